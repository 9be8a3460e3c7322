/* SPDX-License-Identifier: GPL-2.0 */
/* Building regions in memory with the real writer, for tests and fuzz seeds. */
#ifndef _RAMTRAIL_TESTLIB_H
#define _RAMTRAIL_TESTLIB_H

#include "ring.h"
#include "chunk.h"

#define TEST_TEXT_BASE	0xffffffff80000000ULL

struct test_region {
	u8 *mem;
	u64 size;
	struct ramtrail_region_header *hdr;
	struct ramtrail_ring ring[RAMTRAIL_MAX_CPUS];
	/* Each ring's cache of pairs, as the module gives them. */
	struct ramtrail_pair *pairs;
};

/* A formatted region of @blocks blocks per zone, recording. */
struct test_region *test_region_new(u32 nr_cpus, u32 blocks, u32 ring_flags);
/* The same with a saved area of @saved_size bytes. */
struct test_region *test_region_new_saved(u32 nr_cpus, u32 blocks,
					  u32 ring_flags, u64 saved_size);
void test_region_free(struct test_region *t);
void test_region_seal(struct test_region *t);
/*
 * Recording stops as the module stops it: the freeze record (@reason,
 * each zone's position), the state, and with @seal each zone's newest
 * blocks sealed and said so.
 */
void test_region_stop(struct test_region *t, u32 reason, u32 state,
		      bool seal);
u64 *test_zone(struct test_region *t, u32 cpu);
/*
 * A writer of a saved trace at @s in @t's saved area, of @room bytes (0:
 * up to the area's end), its chunks of @chunk_size bytes (0: as the
 * module chooses); its chunks' checksums name @t's boot and nonce until
 * the caller changes its @boot_id or @nonce. Then its trace, sealed.
 */
struct ramtrail_saved_writer *test_writer_start(struct test_region *t,
						struct ramtrail_saved_trace *s,
						u64 room, u32 chunk_size);
void test_writer_seal(struct ramtrail_saved_trace *s,
		      struct ramtrail_saved_writer *w, u32 nr_cpus);
/*
 * A saved trace of @nr_records function records (CPU 0, ip 0x1000 + i at
 * i + 1 ns) at @off in the saved area, in chunks of the smallest size.
 */
/* Parity bytes per codeword of the traces the tests save: the module's default. */
#define TEST_ECC	16
extern u32 test_ecc;
struct ramtrail_saved_trace *test_add_saved(struct test_region *t, u64 off,
					    u64 boot_id, u32 nr_records);
/*
 * @t's zones merged into a saved trace at @off of its saved area, as the
 * module saves them: the newest records that fit in @room bytes (0: up to
 * the area's end), in chunks of @chunk_size bytes (0: the module's
 * choice); NULL if it holds nothing.
 */
struct ramtrail_saved_trace *test_save_zones(struct test_region *t, u64 off,
					     u64 boot_id, u64 room,
					     u32 chunk_size);
/* A dmesg record holding @text in slot 0. */
struct ramtrail_dmesg_header *test_add_dmesg(struct test_region *t,
					     const char *text);

/*
 * A CPU's write-combining buffers, in test builds: while @hold, the
 * writer's stores to its zone wait here (up to @max of them) until its
 * ramtrail_wc_drain() or test_wc_flush(); @drains counts the drains.
 */
struct test_wc {
	bool hold;
	unsigned int n, max, drains;
	__le64 *w[64];
	u64 v[64];
};

extern __thread struct test_wc test_wc;
/* The held stores reach memory, as a drain or an interrupt makes them. */
void test_wc_flush(void);

/* Decode all zones merged; returns the number of records, up to @max. */
size_t test_decode(const struct test_region *t, struct ramtrail_record *out,
		   size_t max, struct ramtrail_zone_stats *sum);

#endif /* _RAMTRAIL_TESTLIB_H */
