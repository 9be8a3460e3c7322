/* SPDX-License-Identifier: GPL-2.0 */
/* Building regions in memory with the real writer, for tests and fuzz seeds. */
#ifndef _RAMTRAIL_TESTLIB_H
#define _RAMTRAIL_TESTLIB_H

#include "ring.h"
#include "recover.h"

#define TEST_TEXT_BASE	0xffffffff80000000ULL

struct test_region {
	u8 *mem;
	u64 size;
	struct ramtrail_region_header *hdr;
	struct ramtrail_ring ring[RAMTRAIL_MAX_CPUS];
};

/* A formatted region of @blocks blocks per zone, recording. */
struct test_region *test_region_new(u32 nr_cpus, u32 blocks, u32 ring_flags);
/* The same with a saved area of @saved_size bytes. */
struct test_region *test_region_new_saved(u32 nr_cpus, u32 blocks,
					  u32 ring_flags, u64 saved_size);
void test_region_free(struct test_region *t);
void test_region_seal(struct test_region *t);
u64 *test_zone(struct test_region *t, u32 cpu);
/* A saved trace of @nr_records records at @off in the saved area. */
struct ramtrail_saved_trace *test_add_saved(struct test_region *t, u64 off,
					    u64 boot_id, u32 nr_records);
/*
 * @t's zones merged into a saved trace at @off of its saved area, as the
 * module saves them: the newest records that fit in @room units (0: all).
 */
struct ramtrail_saved_trace *test_save_zones(struct test_region *t, u64 off,
					     u64 boot_id, u64 room);
/*
 * The same, read from the zones' marks (@marked) or from their start;
 * test_save_unread: the records it left out without reading them.
 */
struct ramtrail_saved_trace *test_save_zones_marked(struct test_region *t,
						    u64 off, u64 boot_id,
						    u64 room, bool marked);
extern u64 test_save_unread;
/* A dmesg record holding @text in slot 0. */
struct ramtrail_dmesg_header *test_add_dmesg(struct test_region *t,
					     const char *text);

/* Decode all zones merged; returns the number of records, up to @max. */
size_t test_decode(const struct test_region *t, struct ramtrail_record *out,
		   size_t max, struct ramtrail_zone_stats *sum);

#endif /* _RAMTRAIL_TESTLIB_H */
