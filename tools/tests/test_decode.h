/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unit tests of the format, the writer and the decoder, single-threaded with
 * a clock the test drives (but for a live zone's decode, which races a
 * thread that plays its writer). Each test states one behaviour; each file
 * tests one part of the shared code (test_zone.c, test_region.c,
 * test_merge.c, test_saved.c, test_text.c) and lists its tests in its
 * test_<part>_all(); test_decode.c runs them and holds what they share.
 */
#ifndef _RAMTRAIL_TEST_DECODE_H
#define _RAMTRAIL_TEST_DECODE_H

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "testlib.h"
#include "text.h"

#define MAXREC	(1024 * 1024)
/* Function records (8 bytes) after a block's header and task event */
#define PER_BLOCK	(RAMTRAIL_BLOCK_WORDS - RAMTRAIL_BLOCK_WORDS_HDR - \
			 RAMTRAIL_TASK_WORDS)

/* The clock the writer reads: each read steps it by clock_step. */
extern u64 clock_now, clock_step;
/* The clock's value when the writer last reserved. */
extern u64 reserved_ts;
/* Records a test decoded, and what the decode found. */
extern struct ramtrail_record out[MAXREC];
extern struct ramtrail_zone_stats st;
extern u64 rnd_state;

struct test_region *fresh(u32 cpus, u32 blocks);
u64 ring_bytes(struct test_region *t, u32 cpu);
u32 rnd(u32 n);
void fill_random(struct test_region *t, u32 nr_cpus, u32 n, u32 damage);
size_t kept(struct ramtrail_record *r, size_t n);

void test_zone_all(void);
void test_region_all(void);
void test_merge_all(void);
void test_saved_all(void);
void test_text_all(void);

#endif /* _RAMTRAIL_TEST_DECODE_H */
