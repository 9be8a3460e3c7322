// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the format, the writer and the decoder, single-threaded with
 * a clock the test drives (but for a live zone's decode, which races a
 * thread that plays its writer). Each test states one behaviour.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "testlib.h"
#include "text.h"

static u64 clock_now = 1000, clock_step = 10, reserved_ts;

/* The writer read the clock last just before it reserved. */
void test_reservation(local_t *l, long old, long new)
{
	reserved_ts = clock_now & RAMTRAIL_CLOCK_MASK;
}

u64 ramtrail_clock(void)
{
	clock_now += clock_step;
	return clock_now;
}

#define MAXREC	(1024 * 1024)
/* Function records (8 bytes) after a block's header and task event */
#define PER_BLOCK	(RAMTRAIL_BLOCK_WORDS - RAMTRAIL_BLOCK_WORDS_HDR - \
			 RAMTRAIL_TASK_WORDS)
static struct ramtrail_record out[MAXREC];
static struct ramtrail_zone_stats st;

static struct test_region *fresh(u32 cpus, u32 blocks)
{
	clock_now = 1000;
	clock_step = 10;
	return test_region_new(cpus, blocks, 0);
}

/* Words the ring has reserved so far. */
static u64 ring_bytes(struct test_region *t, u32 cpu)
{
	return local_read(&t->ring[cpu].pos);
}

/* Find the zone word holding a record's head, by position. */
static u64 *word_at(struct test_region *t, u32 cpu, u64 pos)
{
	u64 block = (pos >> RAMTRAIL_BLOCK_SHIFT) % t->hdr->nr_blocks;

	return test_zone(t, cpu) + block * RAMTRAIL_BLOCK_WORDS +
	       (pos & RAMTRAIL_BLOCK_MASK) / 8;
}

static void test_zeroed_image_is_not_a_region(void)
{
	struct ramtrail_region reg;
	void *mem = calloc(1, 1 << 16);

	CHECK(ramtrail_region_open(&reg, mem, 1 << 16) == RAMTRAIL_E_MAGIC,
	      "zeroed image accepted");
	free(mem);
}

static void test_fresh_region_has_no_records(void)
{
	struct test_region *t = fresh(4, 8);

	CHECK(test_decode(t, out, MAXREC, &st) == 0, "records in fresh region");
	CHECK(st.blocks == 0 && st.corrupt_blocks == 0, "blocks %llu corrupt %llu",
	      (unsigned long long)st.blocks,
	      (unsigned long long)st.corrupt_blocks);
	test_region_free(t);
}

static void test_single_cpu_records_come_back_in_order(void)
{
	struct test_region *t = fresh(1, 8);
	static u64 expect[1000];
	size_t n, i;

	for (i = 0; i < 1000; i++) {
		ramtrail_ring_func(&t->ring[0], 0x1000 + i, 0);
		expect[i] = reserved_ts;
	}
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 1000, "got %zu records", n);
	for (i = 0; i < n; i++) {
		CHECK(out[i].ip == 0x1000 + i && out[i].type == RAMTRAIL_W_FUNC,
		      "record %zu ip %x", i, out[i].ip);
		CHECK(out[i].ts == expect[i], "record %zu ts %llu", i,
		      (unsigned long long)out[i].ts);
	}
	CHECK(st.torn == 0 && st.lost_words == 0 && st.no_base == 0,
	      "drops in a clean zone");
	test_region_free(t);
}

static void test_many_cpus_merge_by_time(void)
{
	struct test_region *t = fresh(16, 4);
	size_t n, i, per_cpu[16] = { 0 };

	/* The clock is global, so interleaved writes give one total order. */
	for (i = 0; i < 16 * 300; i++)
		ramtrail_ring_func(&t->ring[(i * 7) % 16], i, i + 1);
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 16 * 300, "got %zu", n);
	for (i = 0; i < n; i++) {
		CHECK(out[i].ip == i && out[i].parent == i + 1,
		      "merged record %zu is ip %u", i, out[i].ip);
		CHECK(out[i].cpu == (i * 7) % 16, "record %zu cpu %u", i,
		      out[i].cpu);
		per_cpu[out[i].cpu]++;
	}
	for (i = 0; i < 16; i++)
		CHECK(per_cpu[i] == 300, "cpu %zu has %zu", i, per_cpu[i]);
	test_region_free(t);
}

static void test_wraparound_keeps_the_newest_window(void)
{
	struct test_region *t = fresh(1, 4);
	const u32 total = 200000;
	size_t n, i;

	for (i = 0; i < total; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	n = test_decode(t, out, MAXREC, &st);
	/* 4 blocks of 512 words: at least 3 full blocks survive. */
	CHECK(n >= 3 * (512 - 3) && n <= 4 * (512 - 3), "kept %zu", n);
	CHECK(out[n - 1].ip == total - 1, "last is %u", out[n - 1].ip);
	for (i = 1; i < n; i++)
		CHECK(out[i].ip == out[i - 1].ip + 1, "gap after %u",
		      out[i - 1].ip);
	CHECK(ring_bytes(t, 0) > 50 * 4 * RAMTRAIL_BLOCK_SIZE,
	      "fewer than 50 laps");
	test_region_free(t);
}

/* The tail of zone 0 as a dump finds it: the writer's position known. */
static u32 tail(struct test_region *t, struct ramtrail_tail *w, u32 n,
		u64 end, u64 end_ts)
{
	static struct ramtrail_zone_cursor c;
	u32 got = 0;

	memset(w, 0, sizeof(*w));
	w->zone = test_zone(t, 0);
	w->nr_blocks = t->hdr->nr_blocks;
	w->end = end;
	w->end_ts = end_ts;
	ramtrail_tail_find(w, &c, n);
	ramtrail_tail_open(w, &c, false);
	while (ramtrail_zone_next(&c))
		out[got++] = c.rec;
	return got;
}

static void test_tail_is_the_newest_records_read_from_few_blocks(void)
{
	struct test_region *t = fresh(1, 256);
	struct ramtrail_tail w;
	const u32 total = 300000;
	u32 i, n;

	for (i = 0; i < total; i++)
		ramtrail_ring_func(&t->ring[0], i, i & 1 ? i : 0);
	n = tail(t, &w, 1000, ring_bytes(t, 0), ~0ULL);
	CHECK(n == 1000 && w.records == 1000, "tail of %u, %u", n, w.records);
	for (i = 0; i < n; i++)
		CHECK(out[i].ip == total - 1000 + i, "tail record %u is %u", i,
		      out[i].ip);
	CHECK(w.newest_ts == out[n - 1].ts, "newest_ts");
	/* 1000 records of 12 bytes on average: 4 blocks, read as 4. */
	CHECK(w.last - w.first + 1 == 4, "window of %llu blocks",
	      (unsigned long long)(w.last - w.first + 1));
	test_region_free(t);
}

static void test_tail_leaves_out_what_follows_its_end(void)
{
	struct test_region *t = fresh(1, 64);
	struct ramtrail_tail w;
	u64 end = 0, end_ts = 0;
	u32 i, n;

	for (i = 0; i < 5000; i++) {
		ramtrail_ring_func(&t->ring[0], i, 0);
		if (i == 3999) {
			end = ring_bytes(t, 0);
			end_ts = reserved_ts;
		}
	}
	n = tail(t, &w, 10, end, ~0ULL);
	CHECK(n == 10 && out[9].ip == 3999 && out[0].ip == 3990,
	      "end position: %u records, last %u", n, n ? out[n - 1].ip : 0);
	n = tail(t, &w, 10, ring_bytes(t, 0), end_ts);
	CHECK(n == 10 && out[9].ip == 3999, "end counter: %u records, last %u",
	      n, n ? out[n - 1].ip : 0);
	test_region_free(t);
}

static void test_tail_of_a_short_or_empty_zone_is_what_it_holds(void)
{
	struct test_region *t = fresh(1, 64);
	struct ramtrail_tail w;
	u32 i, n;

	CHECK(tail(t, &w, 10, 0, ~0ULL) == 0 && w.newest_ts == 0,
	      "records in an empty zone");
	for (i = 0; i < 7; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	n = tail(t, &w, 10, ring_bytes(t, 0), ~0ULL);
	CHECK(n == 7 && out[0].ip == 0 && out[6].ip == 6, "%u records", n);
	test_region_free(t);
}

static void test_tail_of_a_garbage_zone_stays_bounded(void)
{
	struct test_region *t = fresh(1, 1024);
	struct ramtrail_tail w;
	u64 *z = test_zone(t, 0);
	u64 end = 1024 * 50;	/* the writer's block */
	u32 i, n;

	srand(7);
	for (i = 0; i < 1024 * RAMTRAIL_BLOCK_WORDS; i++)
		z[i] = (u64)rand() << 33 ^ rand();
	n = tail(t, &w, 16, end << RAMTRAIL_BLOCK_SHIFT, ~0ULL);

	CHECK(w.last - w.first + 1 < 64, "window of %llu blocks for 16 records",
	      (unsigned long long)(w.last - w.first + 1));
	/* Below as well: within the lap before the writer, at most 16 records. */
	CHECK(w.first <= w.last && w.last <= end && w.first + 1024 > end &&
	      n <= 16 && w.records == n,
	      "window %llu..%llu before block %llu, %u records",
	      (unsigned long long)w.first, (unsigned long long)w.last,
	      (unsigned long long)end, n);
	test_region_free(t);
}

static void test_merge_starts_from_cursors_the_caller_opened(void)
{
	struct test_region *t = fresh(2, 64);
	struct ramtrail_zone_cursor cur[2];
	const struct ramtrail_record *r;
	struct ramtrail_tail w[2];
	struct ramtrail_merge m;
	struct ramtrail_merge_slot heap[2];
	u32 i, n = 0;

	for (i = 0; i < 2000; i++)
		ramtrail_ring_func(&t->ring[i & 1], i, 0);
	for (i = 0; i < 2; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].zone = test_zone(t, i);
		w[i].nr_blocks = t->hdr->nr_blocks;
		w[i].cpu = i;
		w[i].end = ring_bytes(t, i);
		w[i].end_ts = ~0ULL;
		ramtrail_tail_find(&w[i], &cur[i], 5);
		ramtrail_tail_open(&w[i], &cur[i], false);
	}
	ramtrail_merge_start(&m, cur, heap, 2);
	while ((r = ramtrail_merge_next(&m)))
		CHECK(r->ip == 1990 + n++ && r->cpu == (r->ip & 1),
		      "merged %u: ip %u cpu %u", n, r->ip, r->cpu);
	CHECK(n == 10, "merged %u", n);
	test_region_free(t);
}

/*
 * A function alone takes 8 bytes; with its caller 16 the first time and 8
 * (a FUNC_REF) when the pair repeats; 16 every time without the pairs.
 */
static void test_function_record_is_8_bytes_16_with_a_new_caller(void)
{
	struct test_region *t = fresh(2, 64);
	u64 before;
	int i;

	ramtrail_ring_func(&t->ring[0], 1, 0);
	ramtrail_ring_func(&t->ring[1], 1, 2);
	before = ring_bytes(t, 0);
	for (i = 0; i < 100; i++)
		ramtrail_ring_func(&t->ring[0], 1, 0);
	CHECK(ring_bytes(t, 0) - before == 800, "100 records took %llu bytes",
	      (unsigned long long)(ring_bytes(t, 0) - before));
	before = ring_bytes(t, 1);
	for (i = 0; i < 100; i++)
		ramtrail_ring_func(&t->ring[1], 1, 2);
	CHECK(ring_bytes(t, 1) - before == 16 + 99 * 8,
	      "100 records took %llu bytes",
	      (unsigned long long)(ring_bytes(t, 1) - before));
	t->ring[1].pairs = NULL;
	before = ring_bytes(t, 1);
	for (i = 0; i < 100; i++)
		ramtrail_ring_func(&t->ring[1], 1, 2);
	CHECK(ring_bytes(t, 1) - before == 1600,
	      "100 records without pairs took %llu bytes",
	      (unsigned long long)(ring_bytes(t, 1) - before));
	CHECK(test_decode(t, out, MAXREC, &st) == 302 && out[301].ip == 1 &&
	      out[301].parent == 2 && st.torn == 0, "decoded back wrong");
	test_region_free(t);
}

/* The word the ring wrote last. */
static u64 last_word(struct test_region *t, u32 cpu)
{
	return le64_to_cpu(*word_at(t, cpu, ring_bytes(t, cpu) - 8));
}

/*
 * A FUNC_REF word is as include/uapi/linux/ramtrail.h says: the context,
 * the word of the record it names in its block or (back) one of the three
 * before, and the pair's check; it decodes as that function and caller,
 * with its own time and context. Four blocks back, the pair is written in
 * full again.
 */
/*
 * A zone of 32 GiB or more (pmem, a large server): the writer reaches
 * block 2^23 and beyond where the decoder reads it, not over block 0. The
 * zone is mapped, never touched but for the words written.
 */
static void test_writer_addresses_zones_past_32_gib(void)
{
	const u64 blocks = (1ULL << 23) + 64, g = (1ULL << 23) + 1;
	const size_t len = blocks * RAMTRAIL_BLOCK_SIZE;
	struct ramtrail_zone_cursor *c = calloc(1, sizeof(*c));
	struct ramtrail_ring r;
	u64 *zone, i, found = 0, low = 0;

	zone = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(zone != MAP_FAILED, "no mapping of %zu bytes", len);
	if (zone == MAP_FAILED) {
		free(c);
		return;
	}
	clock_now = 1000;
	ramtrail_ring_init(&r, zone, blocks, 0);
	/* The first byte of block g: the writer enters it. */
	local_set(&r.pos, g << RAMTRAIL_BLOCK_SHIFT);
	r.sealed = g;	/* as if it had written and sealed the blocks before */
	for (i = 0; i < 4; i++)
		CHECK(ramtrail_ring_func(&r, 0x1000 + i, 0), "record %llu refused",
		      (unsigned long long)i);
	for (i = 0; i < 4 * RAMTRAIL_BLOCK_WORDS; i++)
		low |= zone[i];
	CHECK(!low, "the zone's first blocks were written");
	ramtrail_zone_open_window(c, zone, blocks, 0, g, g);
	while (ramtrail_zone_next(c))
		found += c->rec.ip == 0x1000 + found &&
			 c->rec.pos >> RAMTRAIL_BLOCK_SHIFT == g;
	CHECK(found == 4, "%llu of 4 records read back from block 2^23 + 1",
	      (unsigned long long)found);
	munmap(zone, len);
	free(c);
}

static void test_func_ref_is_the_documented_word(void)
{
	struct test_region *t = fresh(1, 8);
	u64 def, w, ts;
	u32 p, back;
	size_t n, i;

	ramtrail_ring_func(&t->ring[0], 7, 0);	/* the block's slow start */
	def = ring_bytes(t, 0);
	ramtrail_ring_func(&t->ring[0], 0x123456, 0x654321);
	ramtrail_user_env.ctx = RAMTRAIL_CTX_HARDIRQ;
	ramtrail_ring_func(&t->ring[0], 0x123456, 0x654321);
	ts = reserved_ts;
	w = last_word(t, 0);
	p = w >> RAMTRAIL_PAYLOAD_SHIFT;
	CHECK((w & 15) == RAMTRAIL_W_FUNC_REF &&
	      ((w >> RAMTRAIL_TS_SHIFT) & RAMTRAIL_TS_MASK) ==
	      (ts & RAMTRAIL_TS_MASK) &&
	      RAMTRAIL_REF_CTX(p) == RAMTRAIL_CTX_HARDIRQ &&
	      RAMTRAIL_REF_WORD(p) == (def & RAMTRAIL_BLOCK_MASK) / 8 &&
	      RAMTRAIL_REF_BACK(p) == 0 &&
	      p >> RAMTRAIL_REF_CHECK_SHIFT ==
	      RAMTRAIL_REF_CHECK(0x123456, 0x654321), "word %016llx",
	      (unsigned long long)w);
	/* Into the next blocks: the reference names a block before. */
	ramtrail_user_env.ctx = RAMTRAIL_CTX_TASK;
	for (back = 1; back <= RAMTRAIL_REF_BACK_MAX + 1; back++) {
		while (ring_bytes(t, 0) < back * RAMTRAIL_BLOCK_SIZE)
			ramtrail_ring_func(&t->ring[0], 7, 0);
		ramtrail_ring_func(&t->ring[0], 7, 0);
		ramtrail_ring_func(&t->ring[0], 0x123456, 0x654321);
		w = last_word(t, 0);
		p = w >> RAMTRAIL_PAYLOAD_SHIFT;
		if (back <= RAMTRAIL_REF_BACK_MAX)
			CHECK((w & 15) == RAMTRAIL_W_FUNC_REF &&
			      RAMTRAIL_REF_BACK(p) == back &&
			      RAMTRAIL_REF_WORD(p) ==
			      (def & RAMTRAIL_BLOCK_MASK) / 8,
			      "%u back: word %016llx", back,
			      (unsigned long long)w);
		else	/* its continuation: written in full */
			CHECK((w & 15) == RAMTRAIL_W_CONT &&
			      (u32)(w >> RAMTRAIL_PAYLOAD_SHIFT) == 0x654321,
			      "%u back: word %016llx", back,
			      (unsigned long long)w);
	}
	n = test_decode(t, out, MAXREC, &st);
	for (i = 3, back = 0; i < n; i++)
		back += out[i].ip == 0x123456 && out[i].parent == 0x654321 &&
			out[i].ctx == RAMTRAIL_CTX_TASK;
	CHECK(back == RAMTRAIL_REF_BACK_MAX + 1, "%u of the later pairs", back);
	CHECK(n > 4 && out[2].ip == 0x123456 && out[2].parent == 0x654321 &&
	      out[2].type == RAMTRAIL_W_FUNC_PARENT &&
	      out[2].ctx == RAMTRAIL_CTX_HARDIRQ &&
	      (out[2].ts & RAMTRAIL_TS_MASK) == (ts & RAMTRAIL_TS_MASK) &&
	      out[n - 1].ip == 0x123456 && out[n - 1].parent == 0x654321 &&
	      out[n - 1].ctx == RAMTRAIL_CTX_TASK && !st.torn && !st.lost_refs,
	      "%zu records, torn %llu", n, (unsigned long long)st.torn);
	test_region_free(t);
}

/*
 * [R6]: a writer nested in one in flight (the floor is held) writes a
 * function and caller in full and leaves the pairs alone; the outer
 * writer's pairs name only records it completed.
 */
static void test_nested_writer_leaves_the_pairs_alone(void)
{
	struct test_region *t = fresh(1, 8);
	static struct ramtrail_pair was[RAMTRAIL_PAIRS];
	struct ramtrail_ring *r = &t->ring[0];
	u64 before;
	size_t n;

	ramtrail_ring_func(r, 7, 0);
	ramtrail_ring_func(r, 5, 6);
	memcpy(was, r->pairs, sizeof(was));
	before = ring_bytes(t, 0);
	r->floor = before;	/* an outer writer's reservation in flight */
	ramtrail_ring_func(r, 5, 6);
	ramtrail_ring_func(r, 8, 9);
	CHECK(ring_bytes(t, 0) - before == 32 &&
	      !memcmp(was, r->pairs, sizeof(was)),
	      "nested: %llu bytes, pairs %s",
	      (unsigned long long)(ring_bytes(t, 0) - before),
	      memcmp(was, r->pairs, sizeof(was)) ? "changed" : "kept");
	r->floor = RAMTRAIL_FLOOR_IDLE;
	before = ring_bytes(t, 0);
	ramtrail_ring_func(r, 5, 6);
	ramtrail_ring_func(r, 8, 9);
	ramtrail_ring_func(r, 8, 9);
	CHECK(ring_bytes(t, 0) - before == 8 + 16 + 8, "outer: %llu bytes",
	      (unsigned long long)(ring_bytes(t, 0) - before));
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 7 && out[4].ip == 5 && out[4].parent == 6 &&
	      out[6].ip == 8 && out[6].parent == 9 && !st.torn,
	      "%zu records", n);
	test_region_free(t);
}

/*
 * A FUNC_REF that names no complete record of its pair is dropped: a
 * word after its own, a function without caller, a record of another
 * lap, a check that does not match, a header word, a block before the
 * zone's first. One whose record a later lap took
 * (the oldest block's, naming the block before) is counted apart.
 */
static void test_func_ref_to_nothing_is_dropped(void)
{
	/* The first record's word: after the header and a task event. */
	const u32 W = RAMTRAIL_BLOCK_WORDS_HDR + RAMTRAIL_TASK_WORDS;
	struct test_region *t = fresh(1, 4);
	u64 *ref, *def, good, newest;
	u32 p, i, k, got, len;
	size_t n;

	ramtrail_ring_func(&t->ring[0], 7, 0);		/* word W */
	ramtrail_ring_func(&t->ring[0], 3, 0);		/* word W + 1 */
	ramtrail_ring_func(&t->ring[0], 5, 6);		/* word W + 2 */
	ramtrail_ring_func(&t->ring[0], 5, 6);		/* W + 4: the ref */
	t->ring[0].pairs = NULL;
	ramtrail_ring_func(&t->ring[0], 5, 6);		/* W + 5, in full */
	ramtrail_ring_func(&t->ring[0], 9, 0);
	def = word_at(t, 0, (W + 2) * 8);
	ref = word_at(t, 0, (W + 4) * 8);
	good = *ref;
	CHECK(test_decode(t, out, MAXREC, &st) == 6 && out[3].ip == 5 &&
	      out[3].parent == 6, "the reference does not decode");
	for (i = 0; i < 8; i++) {
		p = good >> RAMTRAIL_PAYLOAD_SHIFT;
		*ref = good;
		switch (i) {
		case 5:	/* the block's header words */
		case 6:
			p = (p & ~(RAMTRAIL_REF_WORD_MASK << RAMTRAIL_REF_WORD_SHIFT)) |
			    (i - 5) * 2 << RAMTRAIL_REF_WORD_SHIFT;
			break;
		case 7:	/* a block before the first */
			p |= 1U << RAMTRAIL_REF_BACK_SHIFT;
			break;
		case 0:	/* its own word, then a later record of its pair */
		case 1:
			p = (p & ~(RAMTRAIL_REF_WORD_MASK << RAMTRAIL_REF_WORD_SHIFT)) |
			    (W + 4 + i) << RAMTRAIL_REF_WORD_SHIFT;
			break;
		case 2:	/* the function without caller before it */
			p = (p & ~(RAMTRAIL_REF_WORD_MASK << RAMTRAIL_REF_WORD_SHIFT)) |
			    (W + 1) << RAMTRAIL_REF_WORD_SHIFT;
			break;
		case 3:
			p ^= 1U << RAMTRAIL_REF_CHECK_SHIFT;
			break;
		case 4:	/* the record it names is of the lap before (3) */
			*def |= 3ULL << RAMTRAIL_LAP_SHIFT;
			break;
		}
		*ref = (good & 0xffffffffULL) | (u64)p << RAMTRAIL_PAYLOAD_SHIFT;
		n = test_decode(t, out, MAXREC, &st);
		CHECK(n == (i == 4 ? 4 : 5) &&
		      out[n - 1].ip == 9 && !st.lost_refs &&
		      st.torn == (i == 4 ? 2 : 1),
		      "case %u: %zu records, torn %llu", i, n,
		      (unsigned long long)st.torn);
		*def &= ~(3ULL << RAMTRAIL_LAP_SHIFT);
	}
	*ref = good;
	test_region_free(t);

	/*
	 * A block whose header was lost, a function in its words and then a
	 * reference naming a later word of the block: dropped too, whichever
	 * path of the decoder meets it after the function.
	 */
	t = fresh(1, 4);
	for (i = 0; i < PER_BLOCK + 40; i++)
		ramtrail_ring_func(&t->ring[0], 5, 6);
	got = test_decode(t, out, MAXREC, &st);
	for (k = RAMTRAIL_BLOCK_WORDS_HDR; k < RAMTRAIL_BLOCK_WORDS; k++) {
		def = word_at(t, 0, RAMTRAIL_BLOCK_SIZE + k * 8);
		if (RAMTRAIL_W_HAS_PARENT(*def & 15))
			break;
	}
	p = (*def & RAMTRAIL_CTX_MASK) | k << RAMTRAIL_REF_WORD_SHIFT |
	    RAMTRAIL_REF_CHECK(5, 6) << RAMTRAIL_REF_CHECK_SHIFT;
	ref = word_at(t, 0, RAMTRAIL_BLOCK_SIZE);
	ref[0] = 0;
	ref[1] = (*def & 0xfffffff0ULL) | RAMTRAIL_W_FUNC | 7ULL << 32;
	ref[2] = (*def & 0xfffffff0ULL) | RAMTRAIL_W_FUNC_REF |
		 (u64)p << RAMTRAIL_PAYLOAD_SHIFT;
	n = test_decode(t, out, MAXREC, &st);
	CHECK(k < RAMTRAIL_BLOCK_WORDS && n == got + 1 && st.torn == 1 &&
	      st.headerless_blocks == 1,
	      "word %u: %zu records of %u, torn %llu", k, n, got,
	      (unsigned long long)st.torn);
	test_region_free(t);

	/* Wrap: the oldest block's references to the block before are lost. */
	t = fresh(1, 4);
	for (i = 0; i < 12 * PER_BLOCK; i++)
		ramtrail_ring_func(&t->ring[0], 1 + i % 3, 2 + i % 3);
	n = test_decode(t, out, MAXREC, &st);
	CHECK(st.lost_refs > 0 && !st.torn && n + st.lost_refs > 3 * 200,
	      "lost_refs %llu torn %llu, %zu records",
	      (unsigned long long)st.lost_refs, (unsigned long long)st.torn, n);
	for (i = 0; i < n; i++)
		if (out[i].parent != out[i].ip + 1)
			break;
	CHECK(i == n, "record %u misnamed", i);
	test_region_free(t);

	/*
	 * Two blocks: a reference names at most the block before, whose
	 * slot the writer takes only after it leaves the reference's block:
	 * every record of the newest block comes back.
	 */
	for (len = PER_BLOCK; len < 6 * PER_BLOCK; len += 97) {
		t = fresh(1, 2);
		for (i = 0, k = 0, newest = 0; i < len; i++) {
			ramtrail_ring_func(&t->ring[0], 1 + i % 3, 2 + i % 3);
			/* The block of the record's last word is the record's. */
			if ((ring_bytes(t, 0) - 1) >> RAMTRAIL_BLOCK_SHIFT !=
			    newest)
				k = 0;
			newest = (ring_bytes(t, 0) - 1) >> RAMTRAIL_BLOCK_SHIFT;
			k++;
		}
		n = test_decode(t, out, MAXREC, &st);
		for (i = 0, got = 0; i < n; i++)
			got += out[i].pos >> RAMTRAIL_BLOCK_SHIFT == newest;
		CHECK(got == k && !st.torn,
		      "%u records: newest block %u of %u, torn %llu", len, got,
		      k, (unsigned long long)st.torn);
		test_region_free(t);
	}
}

static void test_every_record_kind_round_trips(void)
{
	struct test_region *t = fresh(1, 64);
	u32 cont[RAMTRAIL_MAX_CONT];
	size_t n, i, k = 0;
	unsigned int len;

	ramtrail_ring_func(&t->ring[0], 0xdeadbeef, 0);
	ramtrail_ring_func(&t->ring[0], 0x12345678, 0x9abcdef0);
	for (len = 0; len <= RAMTRAIL_EVENT_MAX_LEN; len++) {
		u8 data[RAMTRAIL_EVENT_MAX_LEN + 4] = { 0 };

		for (i = 0; i < len; i++)
			data[i] = (u8)(len * 31 + i);
		for (i = 0; i < DIV_ROUND_UP(len, 4); i++)
			cont[i] = data[4 * i] | data[4 * i + 1] << 8 |
				  data[4 * i + 2] << 16 |
				  (u32)data[4 * i + 3] << 24;
		ramtrail_ring_write(&t->ring[0], RAMTRAIL_W_EVENT,
				    RAMTRAIL_EVENT_HEAD(0xff00 + len, len), cont,
				    DIV_ROUND_UP(len, 4), NULL);
	}
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 2 + 256, "got %zu", n);
	CHECK(out[0].type == RAMTRAIL_W_FUNC && out[0].ip == 0xdeadbeef &&
	      out[0].parent == 0, "func");
	CHECK(out[1].type == RAMTRAIL_W_FUNC_PARENT && out[1].ip == 0x12345678 &&
	      out[1].parent == 0x9abcdef0, "func parent");
	for (i = 2; i < n; i++) {
		len = i - 2;
		CHECK(out[i].type == RAMTRAIL_W_EVENT && out[i].len == len &&
		      out[i].id == 0xff00 + len, "event %u", len);
		for (k = 0; k < len; k++)
			if (out[i].data[k] != (u8)(len * 31 + k))
				break;
		CHECK(k == len, "event %u byte %zu differs", len, k);
	}
	test_region_free(t);
}

static void test_large_clock_gaps_use_extended_timestamps(void)
{
	static const u64 gaps[] = { 1, RAMTRAIL_TS_SPAN - 1, RAMTRAIL_TS_SPAN,
				    RAMTRAIL_TS_SPAN + 1, 5 * RAMTRAIL_TS_SPAN,
				    1ULL << 40, 3, 1ULL << 50 };
	struct test_region *t = fresh(1, 8);
	u64 expect[64];
	size_t n, i;

	for (i = 0; i < 64; i++) {
		clock_step = gaps[i % 8];
		ramtrail_ring_func(&t->ring[0], i, 0);
		expect[i] = reserved_ts;
	}
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 64, "got %zu", n);
	for (i = 0; i < n; i++)
		CHECK(out[i].ts == expect[i], "record %zu ts %llx want %llx", i,
		      (unsigned long long)out[i].ts,
		      (unsigned long long)expect[i]);
	test_region_free(t);
}

static void test_clock_wrap_at_58_bits_stays_monotonic(void)
{
	struct test_region *t = fresh(1, 8);
	static u64 expect[1000];
	size_t n, i;

	clock_now = RAMTRAIL_CLOCK_MASK - 500 * 1000;
	clock_step = 1000;
	for (i = 0; i < 1000; i++) {
		ramtrail_ring_func(&t->ring[0], i, 0);
		/* Past the wrap the decoder counts on from 2^58. */
		expect[i] = reserved_ts < (1ULL << 40) ?
			    reserved_ts + RAMTRAIL_CLOCK_MASK + 1 : reserved_ts;
	}
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 1000, "got %zu", n);
	for (i = 0; i < n; i++)
		CHECK(out[i].ts == expect[i], "record %zu ts %llx want %llx",
		      i, (unsigned long long)out[i].ts,
		      (unsigned long long)expect[i]);
	CHECK(out[n - 1].ts > RAMTRAIL_CLOCK_MASK, "did not cross the wrap");
	test_region_free(t);
}

static void test_backwards_clock_is_clamped_and_counted(void)
{
	struct test_region *t = fresh(1, 8);
	size_t n, i;

	clock_now = 1ULL << 40;
	ramtrail_ring_func(&t->ring[0], 1, 0);
	clock_now = 1ULL << 36;		/* e.g. an unstable TSC */
	ramtrail_ring_func(&t->ring[0], 2, 0);
	ramtrail_ring_func(&t->ring[0], 3, 0);
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 3, "got %zu", n);
	for (i = 1; i < n; i++)
		CHECK(out[i].ts >= out[i - 1].ts, "time went back at %zu", i);
	CHECK(st.ts_backwards == 1, "ts_backwards %llu",
	      (unsigned long long)st.ts_backwards);
	test_region_free(t);
}

static void test_torn_continuation_drops_only_that_record(void)
{
	struct test_region *t = fresh(1, 8);
	u64 *w, pos;
	size_t n, i;

	for (i = 0; i < 100; i++)
		ramtrail_ring_func(&t->ring[0], i, i + 1000);
	n = test_decode(t, out, MAXREC, &st);
	pos = out[50].pos;
	/* The parent word still holds what was there before: zero. */
	w = word_at(t, 0, pos);
	w[1] = 0;
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 99, "got %zu", n);
	for (i = 0; i < n; i++)
		CHECK(out[i].ip != 50, "torn record returned");
	CHECK(st.torn == 1, "torn %llu", (unsigned long long)st.torn);
	/* A continuation from another record of the same lap is refused too. */
	w[1] = w[3];
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 99, "record with foreign continuation accepted (%zu)", n);
	test_region_free(t);
}

static void test_reserved_never_written_slot_is_skipped(void)
{
	struct test_region *t = fresh(1, 8);
	size_t n, i;

	for (i = 0; i < 10; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	/* A writer reserved two words and the machine died before storing. */
	local_set(&t->ring[0].pos, local_read(&t->ring[0].pos) + 16);
	for (i = 10; i < 20; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 20, "got %zu", n);
	CHECK(st.lost_words == 2, "lost_words %llu",
	      (unsigned long long)st.lost_words);
	test_region_free(t);
}

/*
 * Words of the lap before in a block: in the unsealed newest block a
 * record's slot that was reserved and never written (the per-record
 * rules); in a sealed block, stores that were lost, which lose the block.
 */
static void test_stale_words_of_the_previous_lap_are_rejected(void)
{
	struct test_region *t = fresh(1, 4);
	u64 before[RAMTRAIL_BLOCK_WORDS], *zone = test_zone(t, 0);
	size_t n, n0, i, k;

	/* Fill one lap, keep block 1, then write into it again. */
	for (i = 0; i < 4 * PER_BLOCK; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	memcpy(before, zone + RAMTRAIL_BLOCK_WORDS, sizeof(before));
	for (i = 0; i < 4 * PER_BLOCK + 100; i++)
		ramtrail_ring_func(&t->ring[0], 100000 + i, 0);
	n0 = test_decode(t, out, MAXREC, &st);
	/*
	 * Block 8, the newest, in block 0's slot: words 40..89 back to the
	 * lap before (block 4's), a reservation never written.
	 */
	for (i = 40; i < 90; i++)
		zone[i] = (zone[i] & ~(3ULL << RAMTRAIL_LAP_SHIFT)) |
			  1ULL << RAMTRAIL_LAP_SHIFT;
	n = test_decode(t, out, MAXREC, &st);
	for (k = 1; k < n; k++)
		if (out[k].ip != out[k - 1].ip + 1)
			break;
	CHECK(n == n0 - 50 && k < n && out[k].ip == out[k - 1].ip + 51 &&
	      !st.corrupt_blocks && st.lost_words == 50,
	      "unsealed: %zu of %zu records, gap at %zu, lost words %llu", n,
	      n0, k, (unsigned long long)st.lost_words);
	/* Roll words 200.. of block 5 back: a lap whose stores were lost. */
	memcpy(zone + RAMTRAIL_BLOCK_WORDS + 200, before + 200,
	       sizeof(before) - 200 * 8);
	n = test_decode(t, out, MAXREC, &st);
	for (i = 0; i < n; i++)
		CHECK(out[i].ip >= 100000, "stale record %u returned",
		      out[i].ip);
	CHECK(st.corrupt_blocks == 1 && n == n0 - 50 - PER_BLOCK,
	      "sealed: %zu of %zu records, %llu blocks dropped", n, n0,
	      (unsigned long long)st.corrupt_blocks);
	test_region_free(t);
}

static void test_lost_block_header_keeps_the_block_records(void)
{
	struct test_region *t = fresh(1, 8);
	u64 *zone = test_zone(t, 0);
	size_t n, i;

	for (i = 0; i < 700; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	/* Block 1's header, task event and first record never reached memory. */
	for (i = 0; i < RAMTRAIL_BLOCK_WORDS_HDR + RAMTRAIL_TASK_WORDS + 1; i++)
		zone[RAMTRAIL_BLOCK_WORDS + i] = 0;
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 699, "got %zu", n);
	CHECK(st.headerless_blocks == 1, "headerless %llu",
	      (unsigned long long)st.headerless_blocks);
	/* Its records' task is unknown, never the one of block 0. */
	CHECK(st.no_task == 699 - PER_BLOCK, "unknown task %llu",
	      (unsigned long long)st.no_task);
	for (i = 0; i < n; i++)
		CHECK(out[i].task_known == (i < PER_BLOCK), "record %zu", i);
	for (i = 1; i < n; i++)
		CHECK(out[i].ts > out[i - 1].ts, "order broken at %zu", i);
	test_region_free(t);
}

static void test_newest_block_header_lost_after_wrap(void)
{
	struct test_region *t = fresh(1, 4);
	u64 *zone = test_zone(t, 0), pos;
	size_t n, i;

	for (i = 0; i < 5 * PER_BLOCK + 10; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	pos = local_read(&t->ring[0].pos);
	/* The newest block (g = 5, slot 1): header lost, records written. */
	CHECK(pos >> RAMTRAIL_BLOCK_SHIFT == 5, "at block %llu",
	      (unsigned long long)(pos >> RAMTRAIL_BLOCK_SHIFT));
	zone[RAMTRAIL_BLOCK_WORDS] ^= 1ULL << RAMTRAIL_LAP_SHIFT;
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n > 0 && out[n - 1].ip == 5 * PER_BLOCK + 9, "last %u of %zu",
	      n ? out[n - 1].ip : 0, n);
	CHECK(st.headerless_blocks == 1, "headerless %llu",
	      (unsigned long long)st.headerless_blocks);
	test_region_free(t);
}

static void test_corrupt_block_is_dropped_whole_and_others_kept(void)
{
	struct test_region *t = fresh(1, 8);
	u64 *zone = test_zone(t, 0);
	size_t n, i;

	srandom(1);
	for (i = 0; i < 8 * PER_BLOCK; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	for (i = 0; i < RAMTRAIL_BLOCK_WORDS; i++)
		zone[3 * RAMTRAIL_BLOCK_WORDS + i] =
			(u64)random() << 33 ^ random();
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 7 * PER_BLOCK, "got %zu", n);
	CHECK(st.corrupt_blocks == 1, "corrupt %llu",
	      (unsigned long long)st.corrupt_blocks);
	for (i = 0; i < n; i++)
		CHECK(out[i].ip / PER_BLOCK != 3, "record of corrupt block returned");
	test_region_free(t);
}

static void test_damaged_newest_block_is_counted(void)
{
	struct test_region *t = fresh(1, 8);
	u64 *zone = test_zone(t, 0);
	size_t n, i;

	srandom(2);
	for (i = 0; i < 3 * PER_BLOCK + 100; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	for (i = 0; i < RAMTRAIL_BLOCK_WORDS; i++)
		zone[3 * RAMTRAIL_BLOCK_WORDS + i] =
			(u64)random() << 33 ^ random();
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 3 * PER_BLOCK, "got %zu", n);
	CHECK(st.corrupt_blocks == 1, "corrupt %llu",
	      (unsigned long long)st.corrupt_blocks);
	test_region_free(t);
}

/* The seal word of block slot @slot of zone 0, and its type. */
static u64 *seal_at(struct test_region *t, u32 slot)
{
	return test_zone(t, 0) + (u64)slot * RAMTRAIL_BLOCK_WORDS +
	       RAMTRAIL_SEAL_WORD;
}

/* Records 0..n-1 in order, those of block @gone (PER_BLOCK a block) left out. */
static bool records_but_block(size_t n, size_t total, u32 gone)
{
	size_t i, k = 0;

	for (i = 0; i < total; i++) {
		if (i / PER_BLOCK == gone)
			continue;
		if (k >= n || out[k].ip != i || out[k].type != RAMTRAIL_W_FUNC)
			return false;
		k++;
	}
	return k == n;
}

/*
 * [R7]: the outermost writer that enters a block seals the ones before
 * it, a nested one does not. Any one bit flipped in a sealed block, or its
 * seal taken away while a later block is sealed, drops the block whole;
 * the newest block, not sealed yet, is read record by record.
 */
static void test_sealed_block_with_a_flipped_bit_is_dropped_whole(void)
{
	struct test_region *t = fresh(1, 8);
	struct ramtrail_ring *r = &t->ring[0];
	u64 *zone = test_zone(t, 0), keep, words[] = { 0, 1, 2, 3, 11, 100,
						       RAMTRAIL_BLOCK_WORDS - 1 };
	const size_t total = 5 * PER_BLOCK + 10;
	size_t n, i, bad = 0;
	u32 bit, k;

	for (i = 0; i < total; i++)
		ramtrail_ring_func(r, i, 0);
	for (i = 0; i < 6; i++)
		CHECK((*seal_at(t, i) & 15) ==
		      (i < 5 ? RAMTRAIL_W_SEAL : RAMTRAIL_W_PAD),
		      "block %zu: seal word %016llx", i,
		      (unsigned long long)*seal_at(t, i));
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == total && records_but_block(n, total, ~0U) &&
	      st.sealed_blocks == 5 && !st.corrupt_blocks,
	      "%zu records, %llu sealed", n,
	      (unsigned long long)st.sealed_blocks);
	/* Every bit of the header, the seal and records of block 2. */
	for (k = 0; k < ARRAY_SIZE(words); k++)
		for (bit = 0; bit < 64; bit++) {
			u64 *w = zone + 2 * RAMTRAIL_BLOCK_WORDS + words[k];

			*w ^= 1ULL << bit;
			n = test_decode(t, out, MAXREC, &st);
			bad += !records_but_block(n, total, 2) ||
			       st.corrupt_blocks != 1;
			*w ^= 1ULL << bit;
		}
	CHECK(!bad, "%zu of %zu flips in block 2 not dropping it alone", bad,
	      ARRAY_SIZE(words) * 64);
	/* Its seal gone (the word of an entered block), block 3's kept. */
	keep = *seal_at(t, 2);
	*seal_at(t, 2) = (keep & ~15ULL) | RAMTRAIL_W_PAD;
	n = test_decode(t, out, MAXREC, &st);
	CHECK(records_but_block(n, total, 2) && st.corrupt_blocks == 1,
	      "unsealed before a sealed block: %zu records", n);
	*seal_at(t, 2) = keep;
	/* A nested writer that enters block 6 seals nothing... */
	r->floor = local_read(&r->pos);
	while (local_read(&r->pos) >> RAMTRAIL_BLOCK_SHIFT < 6)
		ramtrail_ring_func(r, 1 << 20, 0);
	CHECK(r->sealed == 5 && (*seal_at(t, 5) & 15) == RAMTRAIL_W_PAD,
	      "the nested writer sealed up to %lu", r->sealed);
	/* ...the next outermost one that takes the slow path does. */
	r->floor = RAMTRAIL_FLOOR_IDLE;
	ramtrail_user_env.task++;
	ramtrail_ring_func(r, 1 << 20, 0);
	CHECK(r->sealed == 6 && (*seal_at(t, 5) & 15) == RAMTRAIL_W_SEAL,
	      "the outer writer sealed up to %lu", r->sealed);
	ramtrail_user_env.task--;
	/* The newest block, not sealed: a flipped function goes unseen. */
	*word_at(t, 0, local_read(&r->pos) - 8) ^= 1ULL << 40;
	n = test_decode(t, out, MAXREC, &st);
	CHECK(!st.corrupt_blocks && st.sealed_blocks == 6 &&
	      out[n - 1].ip == (1 << 20 ^ 1 << 8),
	      "unsealed newest block: %llu dropped, last %x",
	      (unsigned long long)st.corrupt_blocks, out[n - 1].ip);
	test_region_free(t);
}

/*
 * When recording stops, the newest blocks are sealed too, the newest over
 * its words before the stop; words written past it later stay outside,
 * and the seal is undone before recording goes on.
 */
static void test_tail_seal_covers_a_stopped_zone(void)
{
	struct test_region *t = fresh(1, 8);
	struct ramtrail_ring *r = &t->ring[0];
	u64 *zone = test_zone(t, 0), end;
	const size_t total = 2 * PER_BLOCK + 10;
	size_t n, i;

	for (i = 0; i < total; i++)
		ramtrail_ring_func(r, i, 0);
	end = local_read(&r->pos);
	ramtrail_ring_seal_tail(r, end);
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == total && st.sealed_blocks == 3 && !st.corrupt_blocks,
	      "sealed tail: %zu records, %llu sealed", n,
	      (unsigned long long)st.sealed_blocks);
	zone[2 * RAMTRAIL_BLOCK_WORDS + 15] ^= 1ULL << 33;
	n = test_decode(t, out, MAXREC, &st);
	CHECK(records_but_block(n, total, 2) && st.corrupt_blocks == 1,
	      "a flip in the sealed tail: %zu records", n);
	zone[2 * RAMTRAIL_BLOCK_WORDS + 15] ^= 1ULL << 33;
	/* A writer past the stop: outside the seal, not read. */
	for (i = 0; i < 5; i++)
		ramtrail_ring_func(r, total + i, 0);
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == total && st.sealed_blocks == 3 && !st.lost_words,
	      "words past the seal: %zu records", n);
	ramtrail_ring_unseal(r);
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == total + 5 && st.sealed_blocks == 2 &&
	      records_but_block(n, total + 5, ~0U),
	      "unsealed again: %zu records", n);
	test_region_free(t);
}

/*
 * A freeze that stops at a block boundary seals the block its slot still
 * holds: in a two-block zone whose newest block a nested writer entered
 * (the outermost one had taken the floor at the boundary), nothing sealed
 * block 0 yet, and the window the reader takes ends at block 1.
 */
static void test_tail_seal_at_a_block_boundary(void)
{
	struct test_region *t = fresh(1, 2);
	struct ramtrail_ring *r = &t->ring[0];
	size_t n, i = 0;

	do
		ramtrail_ring_func(r, i++, 0);
	while (local_read(&r->pos) & RAMTRAIL_BLOCK_MASK);
	/* An outermost writer took the floor at block 1's start... */
	r->floor = local_read(&r->pos);
	/* ...and nested ones fill block 1 to its end. */
	do
		ramtrail_ring_func(r, i++, 0);
	while (local_read(&r->pos) & RAMTRAIL_BLOCK_MASK);
	r->floor = RAMTRAIL_FLOOR_IDLE;
	CHECK(r->sealed == 0 && local_read(&r->pos) == 2 * RAMTRAIL_BLOCK_SIZE,
	      "sealed %lu pos %ld", r->sealed, local_read(&r->pos));
	r->stopped = RAMTRAIL_RING_PAUSED;
	ramtrail_ring_seal_tail(r, local_read(&r->pos));
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == i && st.sealed_blocks == 2 && !st.corrupt_blocks,
	      "%zu of %zu records, %llu sealed, %llu corrupt", n, i,
	      (unsigned long long)st.sealed_blocks,
	      (unsigned long long)st.corrupt_blocks);
	test_region_free(t);
}

static void test_flipped_bit_in_newest_header_loses_one_block(void)
{
	struct test_region *t = fresh(1, 8);
	u64 *zone = test_zone(t, 0);
	size_t n;
	u32 i;

	for (i = 0; i < 20 * PER_BLOCK + 100; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	/* Newest block is g = 20 in slot 4: claim g = 20 + 2^40 there. */
	zone[4 * RAMTRAIL_BLOCK_WORDS + 1] ^= 1ULL << (32 + 8);
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 7 * PER_BLOCK, "got %zu", n);
	CHECK(st.corrupt_blocks == 1, "corrupt %llu",
	      (unsigned long long)st.corrupt_blocks);
	CHECK(n && out[n - 1].ip == 20 * PER_BLOCK - 1, "last %u", out[n - 1].ip);
	test_region_free(t);
}

static void test_stale_block_cache_is_rebuilt(void)
{
	struct test_region *t = fresh(1, 4);
	size_t n, i;

	for (i = 0; i < 600; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	/* An interrupted slow path stored the cache of an older block. */
	t->ring[0].block = 0;
	for (i = 600; i < 700; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 700, "got %zu", n);
	CHECK(n == 700 && out[699].ip == 699 && out[600].ip == 600, "order");
	test_region_free(t);
}

/* The live zone's last record head, which rewrite_head() keeps changing. */
static u64 *live_head, live_small, live_big;

static void *rewrite_head(void *arg)
{
	for (;;) {
		__atomic_store_n(live_head, live_small, __ATOMIC_RELAXED);
		__atomic_store_n(live_head, live_big, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * A dump decodes zones while their writers write. The zone's last two
 * words are an event of 4 bytes whose head a thread rewrites, again and
 * again, to one of 255 bytes (65 words: torn there); a guard page follows
 * the zone. Each word is read once: the record is the 4-byte one or is
 * dropped, and nothing is read past the zone.
 */
static void test_live_zone_head_is_read_once(void)
{
	const size_t zbytes = 2 * RAMTRAIL_BLOCK_WORDS * 8;
	long page = sysconf(_SC_PAGESIZE);
	struct test_region *t = fresh(1, 2);
	struct ramtrail_zone_cursor *c = calloc(1, sizeof(*c));
	u64 *zone, last = RAMTRAIL_BLOCK_WORDS * 2 - 2, runs = 0, seen = 0;
	pthread_t th;
	pid_t pid;
	int status = -1, i;
	u8 *m;

	/* Block 0 full, block 1 begun: its end is empty words. */
	for (i = 0; i < PER_BLOCK + 10; i++)
		ramtrail_ring_func(&t->ring[0], 0x1000 + i, 0);
	m = mmap(NULL, zbytes + page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED && !mprotect(m + zbytes, page, PROT_NONE),
	      "no guarded mapping");
	if (m == MAP_FAILED)
		goto out;
	zone = (u64 *)m;
	memcpy(zone, test_zone(t, 0), zbytes);
	live_head = zone + last;
	live_small = ramtrail_word(RAMTRAIL_W_EVENT, 0, clock_now,
				   RAMTRAIL_EVENT_HEAD(RAMTRAIL_EV_USER, 4));
	live_big = ramtrail_word(RAMTRAIL_W_EVENT, 0, clock_now,
				 RAMTRAIL_EVENT_HEAD(RAMTRAIL_EV_USER, 255));
	zone[last] = live_small;
	zone[last + 1] = ramtrail_word(RAMTRAIL_W_CONT, 0, clock_now, 0x5a5a5a5a);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		/* 1: a record that was never written; a fault kills the child. */
		if (pthread_create(&th, NULL, rewrite_head, NULL))
			_exit(3);
		for (runs = 0; runs < 20000; runs++) {
			ramtrail_zone_open_raw(c, zone, 2, 0);
			while (ramtrail_zone_next(c))
				if (c->rec.pos == last * 8 &&
				    (c->rec.len != 4 || c->rec.data[0] != 0x5a))
					_exit(1);
		}
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "no child");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "decode while the head changes: %s %d",
	      WIFSIGNALED(status) ? "signal" : "exit",
	      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	/* Still: the event itself is decoded when nothing rewrites it. */
	ramtrail_zone_open_raw(c, zone, 2, 0);
	while (ramtrail_zone_next(c))
		seen += c->rec.pos == last * 8 && c->rec.len == 4;
	CHECK(seen == 1, "the 4-byte event decoded %llu times",
	      (unsigned long long)seen);
	munmap(m, zbytes + page);
out:
	free(c);
	test_region_free(t);
}

static void test_stop_when_full_keeps_the_oldest_and_counts_drops(void)
{
	struct test_region *t;
	size_t n, i;

	clock_now = 1000;
	t = test_region_new(1, 4, RAMTRAIL_RING_STOP_WHEN_FULL);
	for (i = 0; i < 5000; i++)
		ramtrail_ring_func(&t->ring[0], i, 0);
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 4 * PER_BLOCK, "got %zu", n);
	CHECK(out[0].ip == 0 && out[n - 1].ip == n - 1, "not the oldest");
	CHECK((size_t)local_read(&t->ring[0].dropped) == 5000 - n,
	      "dropped %ld", local_read(&t->ring[0].dropped));
	test_region_free(t);
}

/*
 * A paused ring (frozen, enabled=0) refuses records without counting
 * them: nothing meant to be recorded is lost. A refusing one (full, no
 * zone) counts each: those are losses.
 */
static void test_stopped_ring_counts_losses_only(void)
{
	struct test_region *t = fresh(1, 4);
	u32 one = 7;
	u64 clock;

	ramtrail_ring_func(&t->ring[0], 1, 0);
	t->ring[0].stopped = RAMTRAIL_RING_PAUSED;
	clock = clock_now;
	CHECK(!ramtrail_ring_func(&t->ring[0], 2, 0), "write while paused");
	CHECK(!ramtrail_ring_func(&t->ring[0], 2, 3),
	      "write with caller while paused");
	CHECK(!ramtrail_ring_event(&t->ring[0], RAMTRAIL_EV_USER, &one, 4),
	      "event while paused");
	CHECK(local_read(&t->ring[0].dropped) == 0,
	      "paused refusals counted: %ld", local_read(&t->ring[0].dropped));
	CHECK(clock_now == clock, "clock read %llu times while paused",
	      (unsigned long long)(clock_now - clock) / clock_step);
	t->ring[0].stopped = RAMTRAIL_RING_REFUSING;
	CHECK(!ramtrail_ring_func(&t->ring[0], 4, 0), "write while refusing");
	CHECK(!ramtrail_ring_event(&t->ring[0], RAMTRAIL_EV_USER, &one, 4),
	      "event while refusing");
	CHECK(local_read(&t->ring[0].dropped) == 2,
	      "refusals not counted: %ld", local_read(&t->ring[0].dropped));
	t->ring[0].stopped = 0;
	CHECK(ramtrail_ring_func(&t->ring[0], 5, 0), "write after resume");
	CHECK(test_decode(t, out, MAXREC, &st) == 2 && out[0].ip == 1 &&
	      out[1].ip == 5, "records while stopped");
	test_region_free(t);
}

static void test_header_checks(void)
{
	struct test_region *t = fresh(2, 4);
	struct ramtrail_region reg;
	u64 zone_offset = t->hdr->zone_offset;

	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_OK, "ok");
	CHECK(ramtrail_region_open(&reg, t->mem, 100) == RAMTRAIL_E_SHORT,
	      "short");
	CHECK(ramtrail_region_open(&reg, t->mem, t->size - 1) ==
	      RAMTRAIL_E_GEOMETRY, "truncated image");
	t->hdr->version = RAMTRAIL_VERSION + 1;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_E_VERSION,
	      "future version");
	t->hdr->version = RAMTRAIL_VERSION;
	t->hdr->nr_cpus = 3;
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) ==
	      RAMTRAIL_E_CHECKSUM && reg.base, "zone field changed");
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) ==
	      RAMTRAIL_E_GEOMETRY && reg.bad && !strcmp(reg.bad, "zone_offset"),
	      "zones past the end: %s", reg.bad);
	t->hdr->nr_cpus = 2;
	t->hdr->zone_offset = ~0ULL - 4095;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) ==
	      RAMTRAIL_E_GEOMETRY, "offset overflow");
	t->hdr->zone_offset = zone_offset;
	t->hdr->dmesg_count = 2;
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) ==
	      RAMTRAIL_E_CHECKSUM && !reg.base, "layout field changed");
	t->hdr->dmesg_count = 0x80000000U;
	t->hdr->dmesg_size = 0x200000000ULL;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) ==
	      RAMTRAIL_E_GEOMETRY && !reg.base, "dmesg size overflow");
	t->hdr->dmesg_count = 1;
	t->hdr->dmesg_size = 1024;
	t->hdr->state = RAMTRAIL_STATE_FORMATTING;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_E_STATE,
	      "interrupted format");
	t->hdr->state = 77;
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_E_STATE,
	      "state out of range");
	t->hdr->state = RAMTRAIL_STATE_RECORDING;
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_OK,
	      "state is outside the checksum");
	test_region_free(t);
}

/* What a reset leaves behind in the header never hides what outlives a boot. */
/* A per-boot field out of bounds is named, and is not the geometry. */
static void test_header_field_out_of_bounds_is_named(void)
{
	static const char *const names[] = {
		"clock_hz", "clock_hz", "flags", "boot_id", "clock_ref_cycles",
	};
	struct ramtrail_region reg;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct test_region *t = fresh(2, 4);
		struct ramtrail_region_header *h = t->hdr;
		int err;

		switch (i) {
		case 0:
			h->clock_hz = RAMTRAIL_CLOCK_HZ_MAX + 1;
			break;
		case 1:
			h->clock_hz = RAMTRAIL_CLOCK_HZ_MIN - 1;
			break;
		case 2:
			h->flags |= 0x80;
			break;
		case 3:
			h->boot_id = 1ULL << 62;
			break;
		default:
			h->clock_ref_cycles = RAMTRAIL_CLOCK_MASK + 1;
		}
		test_region_seal(t);
		err = ramtrail_region_open(&reg, t->mem, t->size);
		CHECK(err == RAMTRAIL_E_FIELD && reg.bad &&
		      !strcmp(reg.bad, names[i]) && reg.base,
		      "case %u, %s: %s (%s)", i, names[i], ramtrail_strerror(err),
		      reg.bad);
		test_region_free(t);
	}
	CHECK(!strcmp(ramtrail_error_name(RAMTRAIL_E_FIELD), "field") &&
	      strstr(ramtrail_strerror(RAMTRAIL_E_FIELD), "field"),
	      "its name");
}

static void test_torn_or_formatting_header_keeps_saved_and_dmesg(void)
{
	struct test_region *t = fresh(2, 4);
	struct ramtrail_region reg;
	u64 off = 0;
	int i;

	test_add_saved(t, 0, 7, 10);
	test_add_dmesg(t, "Kernel panic - not syncing");
	for (i = 0; i < 3; i++) {
		if (i == 0)	/* a reset in the middle of the format */
			t->hdr->state = RAMTRAIL_STATE_FORMATTING;
		else if (i == 1)	/* per-boot fields half rewritten */
			t->hdr->nonce ^= 0x5a5a;
		else	/* the freeze record half written */
			t->hdr->freeze.cycles = 12345;
		reg.base = NULL;
		CHECK(i == 2 || ramtrail_region_open(&reg, t->mem, t->size) !=
		      RAMTRAIL_OK, "case %d: zones taken as valid", i);
		ramtrail_region_open(&reg, t->mem, t->size);
		CHECK(reg.base, "case %d: layout lost", i);
		off = 0;
		CHECK(ramtrail_saved_next(&reg, &off) &&
		      !ramtrail_saved_next(&reg, &off),
		      "case %d: saved trace lost", i);
		CHECK(ramtrail_dmesg_at(&reg, 0), "case %d: dmesg lost", i);
	}
	CHECK(!ramtrail_region_freeze(&reg), "torn freeze record taken");
	test_region_free(t);
}

/*
 * A flipped bit in the header's layout fails the layout checksum: nothing
 * of the region can be placed from it. Laid out again as it was made,
 * its saved trace and dmesg record, checked on their own, are found; in a
 * layout whose areas lie elsewhere, nothing is taken for them.
 */
static void test_lost_layout_keeps_what_checks_on_its_own(void)
{
	struct test_region *t = test_region_new_saved(2, 4, 0, 64 * 1024);
	struct ramtrail_region_header layout;
	struct ramtrail_region reg;
	int err;

	test_add_saved(t, 0, 1, 100);
	test_add_dmesg(t, "Kernel panic - not syncing: test");
	t->hdr->saved_size ^= 1ULL << 20;
	err = ramtrail_region_open(&reg, t->mem, t->size);
	CHECK(err == RAMTRAIL_E_CHECKSUM && !reg.base, "a damaged layout: %s",
	      ramtrail_strerror(err));
	CHECK(!ramtrail_layout(&layout, t->size, 2, 1, 1024, 64 * 1024, 16),
	      "the layout it was made in");
	ramtrail_region_open_layout(&reg, t->mem, t->size, &layout);
	CHECK(reg.base && reg.nr_saved == 1 && ramtrail_dmesg_at(&reg, 0),
	      "kept: %u saved, dmesg %d", reg.nr_saved,
	      !!ramtrail_dmesg_at(&reg, 0));
	CHECK(!ramtrail_layout(&layout, t->size, 2, 1, 1024, 32 * 1024, 512) &&
	      layout.dmesg_offset > t->hdr->saved_offset,
	      "a layout whose areas lie past the old ones");
	ramtrail_region_open_layout(&reg, t->mem, t->size, &layout);
	CHECK(reg.base && !reg.nr_saved && !ramtrail_dmesg_at(&reg, 0),
	      "another layout takes nothing: %u saved, dmesg %d", reg.nr_saved,
	      !!ramtrail_dmesg_at(&reg, 0));
	test_region_free(t);
}

static void test_dmesg_and_saved_checksums(void)
{
	struct test_region *t = fresh(1, 4);
	struct ramtrail_dmesg_header *d = test_add_dmesg(t, "Oops: 0002");
	struct ramtrail_saved_trace *s = test_add_saved(t, 0, 3, 4), *s2;
	struct ramtrail_dmesg_header *copy;
	struct ramtrail_region reg;
	u64 off = 0;

	s2 = test_add_saved(t, s->size, 4, 2);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_OK, "ok");
	((char *)(d + 1))[3] ^= 1;
	CHECK(!ramtrail_dmesg_at(&reg, 0), "damaged dmesg data accepted");
	((char *)(d + 1))[3] ^= 1;
	CHECK(ramtrail_dmesg_at(&reg, 0), "dmesg record rejected");
	/*
	 * pstore reads a copy of the slot: the copy is what is checked, and a
	 * length past the slot fails however the checksum came out.
	 */
	copy = calloc(1, reg.hdr.dmesg_size + 1);	/* + 1: the checksum below */
	memcpy(copy, d, reg.hdr.dmesg_size);
	CHECK(ramtrail_dmesg_valid(&reg.hdr, copy), "copy of a record rejected");
	copy->len = reg.hdr.dmesg_size - sizeof(*d) + 1;
	copy->checksum = ramtrail_dmesg_checksum(copy);
	CHECK(!ramtrail_dmesg_valid(&reg.hdr, copy), "length past the slot accepted");
	free(copy);
	/* An erase is one store outside the checksum: the list holds. */
	s->erased = 1;
	CHECK(ramtrail_saved_next(&reg, &off) == s &&
	      ramtrail_saved_next(&reg, &off) == s2, "erase broke the list");
	CHECK(ramtrail_saved_all_erased(s) && !ramtrail_saved_all_erased(s2),
	      "erased state");
	s->boot_id++;
	off = 0;
	CHECK(ramtrail_saved_next(&reg, &off) == s2 &&
	      !ramtrail_saved_next(&reg, &off),
	      "damaged entry accepted, or it hid the next one");
	test_region_free(t);
}

/* Offsets of the saved traces listed, as "boot@offset ...". */
static void saved_list(const struct test_region *t, char *buf, size_t len)
{
	const struct ramtrail_saved_trace *s;
	struct ramtrail_region reg;
	size_t n = 0;
	u64 pos = 0;

	buf[0] = 0;
	ramtrail_region_open(&reg, t->mem, t->size);
	while ((s = ramtrail_saved_next(&reg, &pos)) && n < len)
		n += snprintf(buf + n, len - n, "%s%llu@%llu", n ? " " : "",
			      (unsigned long long)s->boot_id,
			      (unsigned long long)ramtrail_saved_offset(&reg, s));
}

/*
 * Saved traces are found wherever they lie, past garbage, listed by boot;
 * a header inside another trace's records is not a trace, and a damaged
 * trace hides none of the others.
 */
static void test_saved_traces_found_anywhere_listed_by_boot(void)
{
	struct test_region *t = test_region_new_saved(1, 4, 0, 65536);
	u8 *area = t->mem + t->hdr->saved_offset;
	struct ramtrail_saved_trace *s;
	char got[256];

	s = test_add_saved(t, 0, 12, 3);
	memset(area + s->size, 0xa5, 1000);
	test_add_saved(t, 4096, 9, 100);
	/* Inside boot 9's chunks. */
	test_add_saved(t, 4096 + sizeof(*s) + 64, 5, 2);
	s = test_add_saved(t, 20000, 3, 5);
	saved_list(t, got, sizeof(got));
	CHECK(!strcmp(got, "3@20000 9@4096 12@0"), "listed: %s", got);
	s->checksum ^= 1;
	saved_list(t, got, sizeof(got));
	CHECK(!strcmp(got, "9@4096 12@0"), "after damage: %s", got);
	test_region_free(t);
}

/*
 * The scan looks at several places at once: a trace is found at every
 * 8-byte offset of such a group, and at the last offset where a trace of
 * one chunk fits.
 */
static void test_saved_trace_found_at_every_offset(void)
{
	struct test_region *t = test_region_new_saved(1, 4, 0, 65536);
	u8 *area = t->mem + t->hdr->saved_offset;
	u64 size = test_add_saved(t, 0, 7, 3)->size, off, want;
	char got[256], exp[64];
	int bad = 0;

	for (off = 0; off <= 64 + 8; off += 8) {
		want = off > 64 ? t->hdr->saved_size - ramtrail_saved_fixed(0) -
				  RAMTRAIL_SAVED_CHUNK_MIN : 4096 + off;
		memset(area, 0, t->hdr->saved_size);
		test_add_saved(t, want, 7, 3);
		saved_list(t, got, sizeof(got));
		snprintf(exp, sizeof(exp), "7@%llu", (unsigned long long)want);
		if (strcmp(got, exp)) {
			printf("     at %llu: listed \"%s\"\n",
			       (unsigned long long)want, got);
			bad++;
		}
	}
	CHECK(!bad && size % 8 == 0 && want % 8 == 0, "%d offsets missed", bad);
	test_region_free(t);
}

/*
 * A new trace goes where no kept trace is: the first free span that holds
 * it (erased traces are free), else the largest, never over a kept trace.
 */
static void test_saved_space_of_erased_traces_is_reused(void)
{
	struct test_region *t = test_region_new_saved(1, 4, 0, 16384);
	struct ramtrail_saved_trace *a, *b, *c;
	struct ramtrail_region reg;
	u64 at, len, size = t->hdr->saved_size, end;
	u32 i;

	a = test_add_saved(t, 0, 1, 3);
	b = test_add_saved(t, a->size, 2, 400);
	c = test_add_saved(t, a->size + b->size, 3, 10);
	end = a->size + b->size + c->size;
	ramtrail_region_open(&reg, t->mem, t->size);
	at = ramtrail_saved_place(&reg, b->size - 8, &len);
	CHECK(at == end && len == size - end, "kept b: at %llu len %llu",
	      (unsigned long long)at, (unsigned long long)len);
	b->erased = ~0ULL;
	at = ramtrail_saved_place(&reg, b->size - 8, &len);
	CHECK(at == a->size && len == b->size, "b erased: at %llu len %llu",
	      (unsigned long long)at, (unsigned long long)len);
	at = ramtrail_saved_place(&reg, size, &len);
	CHECK(at == end && len == size - end, "too big: at %llu len %llu",
	      (unsigned long long)at, (unsigned long long)len);
	a->erased = ~0ULL;
	c->erased = ~0ULL;
	at = ramtrail_saved_place(&reg, size, &len);
	CHECK(at == 0 && len == size, "all erased: at %llu len %llu",
	      (unsigned long long)at, (unsigned long long)len);
	test_region_free(t);

	t = test_region_new_saved(1, 4, 0, 256 * 1024);
	for (i = 0, at = 0; i < RAMTRAIL_MAX_SAVED; i++)
		at += test_add_saved(t, at, i + 1, 1)->size;
	ramtrail_region_open(&reg, t->mem, t->size);
	ramtrail_saved_place(&reg, 280, &len);
	CHECK(reg.nr_saved == RAMTRAIL_MAX_SAVED && !len,
	      "%u traces kept, room %llu past the limit", reg.nr_saved,
	      (unsigned long long)len);
	test_region_free(t);

	/*
	 * One erased and 255 kept fill the scan's list: a kept trace after
	 * them is not listed, and no span may reach it.
	 */
	t = test_region_new_saved(1, 4, 0, 320 * 1024);
	for (i = 0, at = 0; i < RAMTRAIL_MAX_SAVED; i++) {
		a = test_add_saved(t, at, i + 1, 1);
		if (!i)
			a->erased = ~0ULL;
		at += a->size;
	}
	end = at;
	c = test_add_saved(t, end, RAMTRAIL_MAX_SAVED + 1, 1);
	ramtrail_region_open(&reg, t->mem, t->size);
	at = ramtrail_saved_place(&reg, t->hdr->saved_size, &len);
	CHECK(reg.nr_saved == RAMTRAIL_MAX_SAVED && reg.saved_end == end &&
	      at + len <= end && c->magic == RAMTRAIL_SAVED_MAGIC,
	      "an unlisted trace at %llu, span %llu+%llu, scan end %llu",
	      (unsigned long long)end, (unsigned long long)at,
	      (unsigned long long)len, (unsigned long long)reg.saved_end);
	test_region_free(t);
}

/*
 * The parity is the standard code's: RS(255, 239) over GF(2^8), polynomial
 * 0x11d, first root alpha^0 (ramoops' ecc=1). The 16 bytes below are what
 * an independent implementation (Python's reedsolo, RSCodec(16, fcr=0,
 * prim=0x11d, generator=2)) gives for the same 100 bytes.
 */
static void test_ecc_parity_is_the_standard_code(void)
{
	static const u8 want[16] = {
		0xa9, 0x25, 0x7a, 0xde, 0xd2, 0xf4, 0x39, 0xbd,
		0xdc, 0x0f, 0xdc, 0x0c, 0xfc, 0x23, 0xc9, 0xab,
	};
	static struct ramtrail_ecc_encoder enc;
	u8 slot[116];
	u32 i;

	/* 116 bytes: one codeword of 100 data bytes and 16 of parity. */
	for (i = 0; i < 100; i++)
		slot[i] = (i * 37 + 11) & 0xff;
	ramtrail_ecc_encode(slot, sizeof(slot), 16, &enc);
	CHECK(ramtrail_saved_data_size(sizeof(slot), 16) == 100 &&
	      !memcmp(slot + 100, want, sizeof(want)),
	      "parity %02x %02x %02x .. %02x", slot[100], slot[101], slot[102],
	      slot[115]);
}

/* Codewords of a slot: byte i of its data is in codeword i % this. */
static u32 ecc_codewords(u32 size, u32 ecc)
{
	return DIV_ROUND_UP(ramtrail_saved_data_size(size, ecc),
			    RAMTRAIL_SAVED_ECC_N - ecc);
}

/*
 * Change @n distinct bytes of codeword @cw of a slot (data and parity
 * alike), chosen from @seed, each to another value.
 */
static void ecc_spoil(u8 *slot, u32 size, u32 ecc, u32 cw, u32 n, u32 seed)
{
	u32 data = ramtrail_saved_data_size(size, ecc);
	u32 nr = ecc_codewords(size, ecc), len = (data - cw + nr - 1) / nr;
	bool hit[RAMTRAIL_SAVED_ECC_N] = { false };
	u32 j, pick;

	for (j = 0; n; j++) {
		pick = (seed * 2654435761U + j * 97) % (len + ecc);
		if (hit[pick])
			continue;
		hit[pick] = true;
		n--;
		pick = pick < len ? cw + pick * nr :
		       data + (pick - len) * nr + cw;
		slot[pick] ^= 1 + (seed + j) % 255;
	}
}

/*
 * Up to ecc / 2 wrong bytes in every codeword of a slot, parity bytes
 * among them, are corrected; a slot with none reads as correct, and one
 * codeword with more is not claimed corrected to what was written.
 */
static void test_ecc_corrects_half_its_parity_in_every_codeword(void)
{
	static const u32 eccs[] = { 2, 7, 16, RAMTRAIL_SAVED_ECC_MAX };
	static const u32 sizes[] = { RAMTRAIL_SAVED_CHUNK_MIN, 1000, 8192 };
	static struct ramtrail_ecc_encoder enc;
	static u8 slot[8192], orig[8192];
	u32 e, z, i, cw, want, bad = 0, wrong = 0, trial, ecc, size, nr;
	u64 x = 12345;

	for (e = 0; e < ARRAY_SIZE(eccs) * ARRAY_SIZE(sizes) * 20; e++) {
		ecc = eccs[e / 20 % ARRAY_SIZE(eccs)];
		size = sizes[e / 20 / ARRAY_SIZE(eccs)];
		trial = e % 20;
		z = ramtrail_saved_data_size(size, ecc);
		nr = ecc_codewords(size, ecc);
		for (i = 0; i < size; i++) {
			x = x * 6364136223846793005ULL + 1;
			slot[i] = i < z ? x >> 56 : 0;
		}
		ramtrail_ecc_encode(slot, size, ecc, &enc);
		memcpy(orig, slot, size);
		bad += ramtrail_ecc_correct(slot, size, ecc) != 0 ||
		       memcmp(slot, orig, size);
		/* trial % (ecc / 2 + 1) wrong bytes in each codeword */
		for (want = 0, cw = 0; cw < nr; cw++) {
			ecc_spoil(slot, size, ecc, cw, trial % (ecc / 2 + 1),
				  e + cw);
			want += trial % (ecc / 2 + 1);
		}
		bad += ramtrail_ecc_correct(slot, size, ecc) != (int)want ||
		       memcmp(slot, orig, size);
		/* One more than that in codeword 0: not corrected back. */
		ecc_spoil(slot, size, ecc, 0, ecc / 2 + 1, e);
		wrong += ramtrail_ecc_correct(slot, size, ecc) >= 0 &&
			 !memcmp(slot, orig, size);
	}
	CHECK(!bad, "%u slots not corrected to what was written", bad);
	CHECK(!wrong, "%u slots with too many wrong bytes claimed corrected",
	      wrong);
}

/*
 * A saved trace whose header holds wrong bytes (up to 8 a codeword, at
 * most 2 of them in its magic) is found again: corrected by its parity,
 * its @erased kept. Three wrong magic bytes, or a header corrected into
 * an entry that would cover a trace the scan found, are left alone.
 */
static void test_saved_header_with_bit_errors_is_corrected(void)
{
	struct test_region *t = test_region_new_saved(1, 4, 0, 64 * 1024);
	u8 *area = t->mem + t->hdr->saved_offset, *h;
	struct ramtrail_saved_trace *s;
	struct ramtrail_region reg;
	u64 boot[RAMTRAIL_MAX_SAVED], healed;
	char got[256];

	s = test_add_saved(t, 0, 12, 30);
	test_add_saved(t, 8192, 13, 30);
	s->erased = 1;
	h = area;
	h[0] ^= 0x01;			/* magic */
	h[3] ^= 0x80;
	h[24] ^= 0xff;			/* boot_id */
	h[140] ^= 0x10;			/* chunk_size */
	h[sizeof(*s) + 5] ^= 0x42;	/* parity */
	ramtrail_region_open(&reg, t->mem, t->size);
	CHECK(reg.nr_saved == 1, "%u found before", reg.nr_saved);
	healed = ramtrail_saved_heal(&reg, boot);
	saved_list(t, got, sizeof(got));
	CHECK(healed == 1 && boot[0] == 12 && reg.nr_saved == 2 &&
	      !strcmp(got, "12@0 13@8192") && s->erased == 1,
	      "healed %llu (boot %llu), listed %s, erased %llu",
	      (unsigned long long)healed, (unsigned long long)boot[0], got,
	      (unsigned long long)s->erased);
	CHECK(!ramtrail_saved_heal(&reg, NULL), "nothing left to heal");

	/* Three of the magic's bytes: not looked at. */
	h[0] ^= 0x01;
	h[1] ^= 0x01;
	h[2] ^= 0x01;
	ramtrail_region_open(&reg, t->mem, t->size);
	CHECK(!ramtrail_saved_heal(&reg, NULL) && reg.nr_saved == 1,
	      "3 magic bytes wrong: %u listed", reg.nr_saved);
	h[1] ^= 0x01;
	h[2] ^= 0x01;

	/* Boot 14's trace inside boot 12's span: boot 12 is not restored. */
	test_add_saved(t, 512, 14, 2);
	ramtrail_region_open(&reg, t->mem, t->size);
	healed = ramtrail_saved_heal(&reg, NULL);
	saved_list(t, got, sizeof(got));
	CHECK(!healed && !strcmp(got, "13@8192 14@512") &&
	      s->magic != RAMTRAIL_SAVED_MAGIC,
	      "healed %llu over a trace, listed %s", (unsigned long long)healed,
	      got);
	test_region_free(t);
}

/* The saved trace format: chunks, entries, task events, parts. */

static struct ramtrail_saved_cursor saved_cur;
static struct ramtrail_record saved_out[MAXREC];

/* Every record of a saved trace, into saved_out; returns how many. */
static size_t read_saved(const struct ramtrail_saved_trace *s)
{
	const struct ramtrail_record *r;
	size_t n = 0;

	ramtrail_saved_open(&saved_cur, s);
	while ((r = ramtrail_saved_read(&saved_cur, saved_cur.nr)))
		if (n < MAXREC)
			saved_out[n++] = *r;
	return n;
}

/* The same record, the time in ns on the saved side. */
static bool same_record(const struct test_region *t,
			const struct ramtrail_record *z,
			const struct ramtrail_record *s)
{
	return s->ts == ramtrail_ts_to_ns(t->hdr, z->ts) && s->cpu == z->cpu &&
	       s->type == z->type && s->ctx == z->ctx &&
	       s->flags == z->flags && s->ip == z->ip &&
	       s->parent == z->parent && s->id == z->id && s->len == z->len &&
	       !memcmp(s->data, z->data, z->len) &&
	       s->task_known == z->task_known &&
	       (!z->task_known || !memcmp(&s->task, &z->task, sizeof(s->task)));
}

/* Records of every kind, context and flag, tasks switching, on 2 CPUs. */
static void fill_with_tasks(struct test_region *t, u32 n)
{
	u32 data[4] = { 0x64636261, 0x68676665, 0x6c6b6a69, 0x706f6e6d };
	u32 i;

	for (i = 0; i < n; i++) {
		struct ramtrail_ring *r = &t->ring[i % 2];

		ramtrail_user_env.task = 10 + (i / 40) % 5;
		ramtrail_user_env.ctx = (i / 3) % 4;
		ramtrail_user_env.flags = i % 5 ? 0 : RAMTRAIL_EF_IRQS_OFF |
						    RAMTRAIL_EF_NEED_RESCHED;
		if (i % 3 == 0)
			ramtrail_ring_func(r, 0x1000 + i, 0);
		else if (i % 3 == 1)
			ramtrail_ring_func(r, 0x1000 + i, 0x2000 + i);
		else
			ramtrail_ring_event(r, RAMTRAIL_EV_USER + i % 7, data,
					    i % 17);
	}
	ramtrail_user_env.task = 1;
	ramtrail_user_env.ctx = RAMTRAIL_CTX_TASK;
	ramtrail_user_env.flags = 0;
}

static void test_saved_trace_keeps_events_tasks_and_contexts(void)
{
	struct test_region *t = test_region_new_saved(2, 8, 0, 256 * 1024);
	struct ramtrail_saved_trace *s;
	size_t n, m, i;

	fill_with_tasks(t, 3000);
	n = test_decode(t, out, MAXREC, &st);
	s = test_save_zones(t, 0, 1, 0, 0);
	m = read_saved(s);
	CHECK(n == 3000 && m == n && !s->skipped, "zones %zu saved %zu", n, m);
	for (i = 0; i < m && i < n; i++)
		if (!same_record(t, &out[i], &saved_out[i]))
			break;
	CHECK(i == n, "record %zu differs", i);
	CHECK(!saved_cur.bad && saved_cur.tasks >= 2 * 3000 / 40 / 2,
	      "bad %llu tasks %llu", (unsigned long long)saved_cur.bad,
	      (unsigned long long)saved_cur.tasks);
	test_region_free(t);
}

/*
 * A damaged chunk loses its own records only: the chunks before and after
 * it are read whole, their records with their tasks, and it is counted.
 * So is a chunk whose number is not the one its slot must hold.
 */
static void test_saved_damaged_chunk_loses_only_itself(void)
{
	struct test_region *t = test_region_new_saved(2, 8, 0, 256 * 1024);
	static struct ramtrail_record whole[MAXREC];
	struct ramtrail_saved_chunk *k[3];
	struct ramtrail_saved_trace *s;
	size_t n, m, i, j;
	u64 lo[3], bound, bad;
	u32 lost;

	fill_with_tasks(t, 3000);
	s = test_save_zones(t, 0, 1, 0, 1024);
	CHECK(s && s->nr_slots > 4 && s->nr_chunks == s->nr_slots,
	      "chunks of the trace");
	n = read_saved(s);
	memcpy(whole, saved_out, n * sizeof(*whole));
	for (i = 0; i < 3; i++) {
		lo[i] = (i + 1) * s->chunk_size;
		k[i] = (void *)(ramtrail_saved_slots(s) + lo[i]);
	}
	lost = k[0]->records + k[2]->records;
	((u8 *)(k[0] + 1))[k[0]->len / 2] ^= 0x10;
	k[2]->seq++;
	m = read_saved(s);
	CHECK(m == n - lost && saved_cur.bad == 2, "%zu of %zu records, %u lost, bad %llu",
	      m, n, lost, (unsigned long long)saved_cur.bad);
	/* Said before it is read: the chunks, and the records they claim. */
	bad = ramtrail_saved_damage(s, &bound);
	CHECK(bad == 2 && bound == k[0]->records + RAMTRAIL_SAVED_CHUNK_ENTRIES,
	      "damage: %llu chunks, up to %llu records (%u lost)",
	      (unsigned long long)bad, (unsigned long long)bound, lost);
	/* The others' records are the same, tasks and all. */
	for (i = 0, j = 0; j < n; j++) {
		u64 pos = whole[j].pos;

		if ((pos >= lo[0] && pos < lo[0] + s->chunk_size) ||
		    (pos >= lo[2] && pos < lo[2] + s->chunk_size))
			continue;
		if (i >= m || memcmp(&whole[j], &saved_out[i++],
				     offsetof(struct ramtrail_record, data)))
			break;
	}
	CHECK(j == n && i == m, "record %zu differs", i);
	test_region_free(t);
}

/*
 * A chunk whose slot holds a few wrong bytes (the last one's slot cut
 * too) is repaired in place, whole, and counted; one with more wrong
 * bytes than its parity corrects in a codeword stays damaged and counted
 * as such.
 */
static void test_saved_chunk_with_bit_errors_is_repaired(void)
{
	struct test_region *t = test_region_new_saved(2, 8, 0, 256 * 1024);
	static struct ramtrail_record whole[MAXREC];
	static u8 buf[RAMTRAIL_SAVED_CHUNK_MAX];
	struct ramtrail_saved_trace *s;
	struct ramtrail_saved_check c;
	u64 bound, lo;
	size_t n, m, i, j;
	u32 lost;
	u8 *slot;

	fill_with_tasks(t, 3000);
	s = test_save_zones(t, 0, 1, 0, 1024);
	CHECK(s && s->ecc == TEST_ECC && s->nr_slots > 4, "chunks of the trace");
	n = read_saved(s);
	memcpy(whole, saved_out, n * sizeof(*whole));
	/*
	 * Slot 1: 3 bytes of its header and entries, a run of 16 (interleaved:
	 * 4 in each codeword) and a parity byte.
	 */
	slot = ramtrail_saved_slots(s) + s->chunk_size;
	slot[4] ^= 0x01;
	slot[100] ^= 0x80;
	slot[101] ^= 0x80;
	for (i = 200; i < 216; i++)
		slot[i] ^= 0xff;
	slot[ramtrail_saved_data_size(s->chunk_size, s->ecc) + 9] ^= 8;
	/* The last slot, cut after its chunk: 2 bytes. */
	CHECK(s->nr_chunks == s->nr_slots && s->size < ramtrail_saved_fixed(0) +
	      s->nr_slots * s->chunk_size, "the last slot cut");
	slot = ramtrail_saved_slots(s) + (s->nr_slots - 1) * s->chunk_size;
	slot[40] ^= 0x01;
	slot[60] ^= 0x02;
	/* Slot 2: one more wrong byte in codeword 0 than its parity corrects. */
	lo = 2 * s->chunk_size;
	slot = ramtrail_saved_slots(s) + lo;
	lost = ((struct ramtrail_saved_chunk *)slot)->records;
	ecc_spoil(slot, s->chunk_size, s->ecc, 0, TEST_ECC / 2 + 1, 1);
	CHECK(ramtrail_saved_damage(s, &bound) == 3, "3 chunks damaged before");
	ramtrail_saved_check(s, buf, &c);
	CHECK(c.corrected == 2 && c.bytes == 22 && c.damaged == 1,
	      "repaired %llu chunks, %llu bytes, %llu left damaged",
	      (unsigned long long)c.corrected, (unsigned long long)c.bytes,
	      (unsigned long long)c.damaged);
	CHECK(ramtrail_saved_damage(s, &bound) == 1, "1 chunk damaged after");
	m = read_saved(s);
	CHECK(m == n - lost, "%zu of %zu records read, %u lost", m, n, lost);
	for (i = 0, j = 0; j < n; j++) {
		if (whole[j].pos >= lo && whole[j].pos < lo + s->chunk_size)
			continue;
		if (i >= m || memcmp(&whole[j], &saved_out[i++],
				     offsetof(struct ramtrail_record, data)))
			break;
	}
	CHECK(j == n && i == m, "record %zu differs", i);
	test_region_free(t);
}

static u64 rnd_state;

static u32 rnd(u32 n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return n ? (rnd_state >> 11) % n : 0;
}

/*
 * Random records on @t's CPUs: tasks switching on each CPU on their own,
 * all contexts, events, clock steps of 0 (ties across CPUs), large ones
 * (extended timestamps) and now and then backwards; then a few words of
 * the zones damaged (torn records, lost headers, corrupt blocks).
 */
static void fill_random(struct test_region *t, u32 nr_cpus, u32 n,
			u32 damage)
{
	u32 data[4] = { 1, 2, 3, 4 }, task[RAMTRAIL_MAX_CPUS] = { 0 }, i;
	u64 zone_words = (u64)t->hdr->nr_blocks * RAMTRAIL_BLOCK_WORDS;

	for (i = 0; i < n; i++) {
		u32 cpu = rnd(nr_cpus), k = rnd(100);

		clock_step = k < 20 ? 0 : k < 22 ? RAMTRAIL_TS_SPAN + rnd(999) :
			     k < 23 ? -(u64)rnd(5000) : 1 + rnd(40);
		if (!rnd(30))
			task[cpu] = rnd(4);
		ramtrail_user_env.task = 100 * cpu + task[cpu];
		ramtrail_user_env.ctx = rnd(8) ? RAMTRAIL_CTX_TASK : rnd(4);
		k = rnd(10);
		if (k < 5)
			ramtrail_ring_func(&t->ring[cpu], 0x100 + rnd(64), 0);
		else if (k < 9)
			ramtrail_ring_func(&t->ring[cpu], 0x100 + rnd(64), 0x200);
		else
			ramtrail_ring_event(&t->ring[cpu], RAMTRAIL_EV_USER + k,
					    data, rnd(17));
	}
	for (i = 0; i < damage; i++) {
		u64 *w = test_zone(t, rnd(nr_cpus)) + rnd(zone_words);

		*w = rnd(2) ? 0 : *w ^ 1ULL << rnd(64);
	}
	ramtrail_user_env.task = 1;
	ramtrail_user_env.ctx = RAMTRAIL_CTX_TASK;
	clock_step = 10;
}

struct merge_key {
	u64 ts;
	u64 pos;
	u32 cpu;
};

static int merge_key_cmp(const void *a, const void *b)
{
	const struct merge_key *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * The merge returns every record of every zone, in (time, CPU, position)
 * order: the same as sorting what each zone decodes alone. Random zones
 * of 1 to 17 CPUs, with ties across CPUs (clock steps of 0), clocks that
 * step back, empty zones and damaged words, so that cursors end at
 * different times and the heap loses slots in any order.
 */
static void test_merge_is_every_zone_sorted_by_time_cpu_position(void)
{
	static struct merge_key want[MAXREC];
	u32 seed, bad = 0, ties = 0, runs = 200;

	for (seed = 1; seed <= runs; seed++) {
		u32 cpus = seed % 10 ? 1 + seed % 9 : 16 + seed % 20 / 10;
		u32 blocks = 2 + seed % 12, cpu;
		struct test_region *t = test_region_new(cpus, blocks, 0);
		struct ramtrail_zone_cursor c;
		struct ramtrail_region reg;
		size_t n, k = 0, i;

		rnd_state = seed * 0x9e3779b97f4a7c15ULL;
		clock_now = 1000;
		fill_random(t, seed % 7 ? cpus : cpus / 2 + 1,
			    rnd(blocks * cpus * 600), seed % 3 ? 0 : rnd(6));
		CHECK(!ramtrail_region_open(&reg, t->mem, t->size), "open");
		for (cpu = 0; cpu < cpus; cpu++) {
			ramtrail_zone_open(&c, &reg, cpu);
			while (ramtrail_zone_next(&c) && k < MAXREC)
				want[k++] = (struct merge_key) {
					c.rec.ts, c.rec.pos, c.rec.cpu };
		}
		qsort(want, k, sizeof(*want), merge_key_cmp);
		n = test_decode(t, out, MAXREC, &st);
		bad += n != k;
		for (i = 0; i < n && i < k; i++) {
			bad += out[i].ts != want[i].ts || out[i].cpu != want[i].cpu ||
			       out[i].pos != want[i].pos;
			ties += i && out[i].ts == out[i - 1].ts &&
				out[i].cpu != out[i - 1].cpu;
		}
		test_region_free(t);
	}
	CHECK(!bad, "%u records out of order or missing", bad);
	/* The clock steps of 0 must have made ties across CPUs. */
	CHECK(ties > 1000, "only %u ties across CPUs", ties);
}

/*
 * What a saved trace keeps of @n decoded records, compacted: not a
 * function past the text (damage can make one), nor a caller there.
 */
static size_t kept(struct ramtrail_record *r, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (r[i].type != RAMTRAIL_W_EVENT &&
		    r[i].parent > RAMTRAIL_TEXT_OFFSET_MAX) {
			r[i].parent = 0;
			r[i].type = RAMTRAIL_W_FUNC;
		}
		if (r[i].type == RAMTRAIL_W_EVENT ||
		    (r[i].ip && r[i].ip <= RAMTRAIL_TEXT_OFFSET_MAX))
			r[k++] = r[i];
	}
	return k;
}

/*
 * Random zones saved into random room and chunk sizes: what is kept is
 * the newest records of the merge, each the same as decoded (time in ns,
 * task included), counted in the trace's header; the chunks the ring
 * overwrote are the records said skipped.
 */
static void test_saved_is_the_newest_of_the_merge(void)
{
	u32 seed, good = 0, runs = 300, wrapped = 0;

	for (seed = 1; seed <= runs; seed++) {
		u32 cpus = 1 + seed % 3, blocks = 2 + seed % 40;
		u64 zone = (u64)cpus * blocks * RAMTRAIL_BLOCK_SIZE;
		struct test_region *t = test_region_new_saved(cpus, blocks, 0,
							      4 * zone);
		u32 chunk = RAMTRAIL_SAVED_CHUNK_MIN + 8 * rnd(200);
		struct ramtrail_saved_trace *s;
		size_t n, m, i;
		u64 room;

		rnd_state = seed * 0x9e3779b97f4a7c15ULL;
		clock_now = 1000;
		fill_random(t, cpus, rnd(blocks * cpus * 700), seed % 4 ? 0 :
			    rnd(6));
		room = ramtrail_saved_fixed(0) + chunk * (1 + rnd(seed % 5 ? 40 : 3));
		n = kept(out, test_decode(t, out, MAXREC, &st));
		s = test_save_zones(t, 0, 1, room, chunk);
		m = s ? read_saved(s) : 0;
		wrapped += s && s->nr_chunks > s->nr_slots;
		for (i = 0; i < m && m <= n; i++)
			if (!same_record(t, &out[n - m + i], &saved_out[i]))
				break;
		good += (!n && !s) || (s && i == m && m == s->nr_records &&
				       s->skipped == n - m && !saved_cur.bad &&
				       s->size <= room &&
				       (s->nr_chunks == s->nr_slots || m < n));
		test_region_free(t);
	}
	CHECK(good == runs, "%u of %u saves differ from the merge",
	      runs - good, runs);
	CHECK(wrapped > runs / 4, "only %u of %u saves wrapped", wrapped,
	      runs);
}

/* An entry's bytes, as format.rst gives them. */
static void test_saved_entries_are_the_documented_bytes(void)
{
	struct test_region *t = test_region_new_saved(3, 8, 0, 64 * 1024);
	struct ramtrail_record r = { .type = RAMTRAIL_W_FUNC, .ip = 0x1234 };
	struct ramtrail_saved_trace *s = (void *)(t->mem +
						  t->hdr->saved_offset);
	struct ramtrail_saved_writer *w = test_writer_start(t, s, 0, 0);
	static const u8 want[] = {
		/* CPU 0, at 1000 ns (the chunk's time): new pair, new 0x1234 */
		0x18, 0x00, 0x02, 0x34, 0x12, 0x00, 0x00,
		/* 200 ns later, hardirq: new pair, 0x1234 index 0, new caller */
		0x0a, 0xc8, 0x01, 0x09, 0x00, 0x78, 0x56, 0x00, 0x00,
		/* CPU 2, 0 ns later, task 7 "sh" named first */
		0x30, 0x00, 0x00, 24, 0,
		7, 0, 0, 0, 7, 0, 0, 0, 's', 'h', 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		/* ... then its event 0x101, 3 bytes, irqs off in softirq */
		0x00, 0x00, 0x81, 0x02, 3, 0x05, 'a', 'b', 'c',
		/* CPU 0 again, 5 ns later: new pair, offsets 1 and 0 */
		0x18, 0x05, 0x05, 0x01, 0x00,
		/* the same CPU and time, hardirq: pair 1 */
		0x06, 0x00, 0x01,
	};
	const struct ramtrail_saved_chunk *k;

	ramtrail_saved_add(w, &r, 1000);
	r.type = RAMTRAIL_W_FUNC_PARENT;
	r.ctx = RAMTRAIL_CTX_HARDIRQ;
	r.parent = 0x5678;
	ramtrail_saved_add(w, &r, 1200);
	r = (struct ramtrail_record) {
		.type = RAMTRAIL_W_EVENT, .cpu = 2, .id = RAMTRAIL_EV_USER + 1,
		.len = 3, .flags = RAMTRAIL_EF_IRQS_OFF | RAMTRAIL_CTX_SOFTIRQ,
		.task_known = true, .task = { .pid = 7, .tgid = 7,
					      .comm = "sh" },
	};
	memcpy(r.data, "abc", 3);
	ramtrail_saved_add(w, &r, 1200);
	r = (struct ramtrail_record) { .type = RAMTRAIL_W_FUNC_PARENT,
				       .ip = 0x5678, .parent = 0x1234 };
	ramtrail_saved_add(w, &r, 1205);
	r = (struct ramtrail_record) { .type = RAMTRAIL_W_FUNC_PARENT,
				       .ip = 0x1234, .parent = 0x5678,
				       .ctx = RAMTRAIL_CTX_HARDIRQ };
	ramtrail_saved_add(w, &r, 1205);
	test_writer_seal(s, w, 3);
	k = (const void *)ramtrail_saved_slots(s);
	CHECK(k->len == sizeof(want) && !memcmp(k + 1, want, sizeof(want)),
	      "%u bytes, not the documented %zu", k->len, sizeof(want));
	CHECK(k->ns == 1000 && k->records == 5 && k->seq == 0 &&
	      s->nr_records == 5 && read_saved(s) == 5 && saved_cur.tasks == 1 &&
	      saved_out[4].ip == 0x1234 && saved_out[4].parent == 0x5678 &&
	      saved_out[4].ctx == RAMTRAIL_CTX_HARDIRQ && saved_out[4].ts == 1205,
	      "chunk header, or the pair read back");
	test_region_free(t);
}

/*
 * What density comes from: a (function, caller) pair seen before in the
 * chunk costs an index, its time a delta, its CPU nothing unless it
 * changes. A run of records over a few pairs takes 3 bytes each.
 */
static void test_saved_function_records_take_3_bytes(void)
{
	struct test_region *t = test_region_new_saved(1, 128, 0, 512 * 1024);
	const struct ramtrail_saved_chunk *k;
	struct ramtrail_saved_trace *s;
	u64 bytes = 0;
	u32 i;

	for (i = 0; i < 30000; i++)
		ramtrail_ring_func(&t->ring[0], 0x100 + i % 40,
				   0x200 + i % 20);
	s = test_save_zones(t, 0, 1, 0, 0);
	CHECK(s && s->nr_records == 30000 && s->nr_chunks == 2,
	      "%llu records in %llu chunks",
	      (unsigned long long)(s ? s->nr_records : 0),
	      (unsigned long long)(s ? s->nr_chunks : 0));
	for (i = 0; s && i < s->nr_slots; i++) {
		k = (const void *)(ramtrail_saved_slots(s) + i * s->chunk_size);
		bytes += k->len;
	}
	/*
	 * Per chunk: its CPU's task named (a task event of 29 bytes) and 40
	 * new pairs of up to 8 more bytes (refs, two offsets).
	 */
	CHECK(bytes >= 30000 * 3 && bytes <= 30000 * 3 + 2 * (29 + 40 * 8),
	      "%llu bytes of entries", (unsigned long long)bytes);
	test_region_free(t);
}

/* Block 1's task event lost: its records' task is saved as unknown. */
static void test_saved_trace_keeps_unknown_tasks(void)
{
	struct test_region *t = test_region_new_saved(1, 8, 0, 64 * 1024);
	u64 *zone = test_zone(t, 0);
	struct ramtrail_saved_trace *s;
	size_t n, m, i, unknown = 0;

	for (i = 0; i < 1200; i++)
		ramtrail_ring_func(&t->ring[0], 0x100 + i, 0);
	for (i = 0; i < RAMTRAIL_BLOCK_WORDS_HDR + RAMTRAIL_TASK_WORDS + 1; i++)
		zone[RAMTRAIL_BLOCK_WORDS + i] = 0;
	n = test_decode(t, out, MAXREC, &st);
	s = test_save_zones(t, 0, 1, 0, 0);
	m = read_saved(s);
	CHECK(m == n && st.no_task > 0, "zones %zu saved %zu", n, m);
	for (i = 0; i < m && i < n; i++) {
		if (!same_record(t, &out[i], &saved_out[i]))
			break;
		unknown += !saved_out[i].task_known;
	}
	CHECK(i == n, "record %zu differs", i);
	CHECK(unknown == st.no_task && saved_cur.tasks == 3,
	      "%zu of %llu unknown, %llu task events", unknown,
	      (unsigned long long)st.no_task,
	      (unsigned long long)saved_cur.tasks);
	test_region_free(t);
}

/*
 * Tasks are a chunk's own: a CPU whose task a chunk named is of unknown
 * task in the next chunk until that one names it, so that a lost chunk
 * never lends its task to the records after it.
 */
static void test_saved_task_does_not_cross_chunks(void)
{
	struct test_region *t = test_region_new_saved(2, 4, 0, 64 * 1024);
	struct ramtrail_saved_trace *s = (void *)(t->mem +
						  t->hdr->saved_offset);
	struct ramtrail_saved_writer *w;
	struct ramtrail_record r = { .type = RAMTRAIL_W_FUNC, .ip = 0x100,
				     .cpu = 1, .task_known = true,
				     .task = { .pid = 42 } };
	u64 ns = 1000;
	size_t n;

	w = test_writer_start(t, s, 0, RAMTRAIL_SAVED_CHUNK_MIN);
	ramtrail_saved_add(w, &r, ns);
	r.cpu = 0;
	r.task_known = false;
	while (w->nr_chunks < 2)
		ramtrail_saved_add(w, &r, ns++);
	r.cpu = 1;
	ramtrail_saved_add(w, &r, ns);
	test_writer_seal(s, w, 2);
	n = read_saved(s);
	CHECK(n > 2 && saved_out[0].task_known && saved_out[0].task.pid == 42 &&
	      saved_out[n - 1].cpu == 1 && !saved_out[n - 1].task_known &&
	      !saved_cur.bad && s->nr_chunks == 2,
	      "%zu records, the last of task %u", n,
	      n ? saved_out[n - 1].task.pid : 0);
	test_region_free(t);
}

/*
 * Not all fit: the newest are kept, and the first kept record of each CPU
 * still knows its task (each chunk names them again).
 */
static void test_saved_trace_that_does_not_fit_keeps_the_newest(void)
{
	struct test_region *t = test_region_new_saved(2, 8, 0, 256 * 1024);
	struct ramtrail_saved_trace *s;
	u64 room = ramtrail_saved_fixed(0) + 4 * 1024;
	size_t n, m, i;

	fill_with_tasks(t, 3000);
	n = test_decode(t, out, MAXREC, &st);
	s = test_save_zones(t, 0, 1, room, 1024);
	m = read_saved(s);
	CHECK(s->size == room && s->nr_slots == 4 && s->nr_chunks > 8 &&
	      m > 100 && s->skipped == n - m && s->nr_records == m,
	      "%llu of %llu chunks, %zu of %zu records",
	      (unsigned long long)s->nr_slots,
	      (unsigned long long)s->nr_chunks, m, n);
	for (i = 0; i < m && m <= n; i++)
		if (!same_record(t, &out[n - m + i], &saved_out[i]) ||
		    !saved_out[i].task_known)
			break;
	CHECK(i == m, "record %zu of the newest %zu differs", i, m);
	test_region_free(t);
}

/*
 * A part is RAMTRAIL_SAVED_PART_CHUNKS chunks counted back from the
 * newest, the oldest part holding the rest: read part by part, as
 * pstore does, a trace gives what it gives whole, each record with its
 * task, and a part's reader never enters the next part's chunks.
 */
static void test_saved_parts_are_runs_of_chunks(void)
{
	struct test_region *t = test_region_new_saved(2, 8, 0, 256 * 1024);
	static struct ramtrail_record whole[MAXREC];
	struct ramtrail_saved_trace *s;
	const struct ramtrail_record *x;
	size_t n, k = 0, same = 0;
	u64 p;

	fill_with_tasks(t, 3000);
	s = test_save_zones(t, 0, 1, 0, RAMTRAIL_SAVED_CHUNK_MIN);
	n = read_saved(s);
	memcpy(whole, saved_out, n * sizeof(*whole));
	CHECK(s->nr_slots > 2 * RAMTRAIL_SAVED_PART_CHUNKS &&
	      ramtrail_saved_parts(s) ==
	      DIV_ROUND_UP(s->nr_slots, RAMTRAIL_SAVED_PART_CHUNKS) &&
	      s->nr_slots % RAMTRAIL_SAVED_PART_CHUNKS &&
	      ramtrail_saved_part_end(s, 0) ==
	      s->nr_slots % RAMTRAIL_SAVED_PART_CHUNKS &&
	      ramtrail_saved_part_end(s, 1) - ramtrail_saved_part_end(s, 0) ==
	      RAMTRAIL_SAVED_PART_CHUNKS &&
	      ramtrail_saved_part_end(s, ramtrail_saved_parts(s) - 1) ==
	      s->nr_slots, "%llu chunks in %llu parts",
	      (unsigned long long)s->nr_slots,
	      (unsigned long long)ramtrail_saved_parts(s));
	ramtrail_saved_open(&saved_cur, s);
	for (p = 0; p < ramtrail_saved_parts(s); p++) {
		while ((x = ramtrail_saved_read(&saved_cur,
						ramtrail_saved_part_end(s, p)))) {
			same += k < n && !memcmp(x, &whole[k],
						 offsetof(struct ramtrail_record,
							  data)) &&
				x->pos < ramtrail_saved_part_end(s, p) *
					 s->chunk_size;
			k++;
		}
		CHECK(saved_cur.next == ramtrail_saved_part_end(s, p),
		      "part %llu read up to chunk %llu", (unsigned long long)p,
		      (unsigned long long)saved_cur.next);
	}
	CHECK(k == n && same == n && n == 3000 && !saved_cur.bad,
	      "%zu of %zu records the same, %zu read", same, n, k);
	test_region_free(t);
}

/*
 * A mount passes the parts it does not show unread: after a skip to the
 * end of a part, from its start or from the middle of one of its chunks,
 * a reader gets the records a whole read gives from the next part on,
 * with their tasks; a skip back to a part already passed moves nothing.
 */
static void test_saved_skip_passes_parts_unread(void)
{
	struct test_region *t = test_region_new_saved(2, 8, 0, 256 * 1024);
	static struct ramtrail_record whole[MAXREC];
	size_t first[64], n, k, same = 0, read = 0, want = 0;
	const struct ramtrail_record *x;
	struct ramtrail_saved_trace *s;
	u64 p, parts;

	fill_with_tasks(t, 3000);
	s = test_save_zones(t, 0, 1, 0, RAMTRAIL_SAVED_CHUNK_MIN);
	n = read_saved(s);
	memcpy(whole, saved_out, n * sizeof(*whole));
	parts = ramtrail_saved_parts(s);
	CHECK(parts >= 4 && parts < ARRAY_SIZE(first), "%llu parts",
	      (unsigned long long)parts);
	if (parts < 4 || parts >= ARRAY_SIZE(first))
		goto out;
	ramtrail_saved_open(&saved_cur, s);
	for (p = 0, k = 0; p < parts; p++) {
		first[p] = k;
		while (ramtrail_saved_read(&saved_cur,
					   ramtrail_saved_part_end(s, p)))
			k++;
	}
	first[parts] = k;
	/* Part 0 read, 1 skipped whole, 2 read, 3 left after one record... */
	ramtrail_saved_open(&saved_cur, s);
	for (p = 0; p < parts; p++) {
		u64 end = ramtrail_saved_part_end(s, p);

		if (p % 3 == 1) {
			ramtrail_saved_skip(&saved_cur, end);
			continue;
		}
		k = first[p];
		while ((x = ramtrail_saved_read(&saved_cur, end))) {
			same += k < n && !memcmp(x, &whole[k],
						 offsetof(struct ramtrail_record,
							  data));
			read++;
			k++;
			if (p % 3 == 2)
				break;
		}
		want += p % 3 ? 1 : first[p + 1] - first[p];
		if (p % 3 == 2)
			ramtrail_saved_skip(&saved_cur, end);
		/* Back to a part passed: nothing moves. */
		ramtrail_saved_skip(&saved_cur,
				    p ? ramtrail_saved_part_end(s, p - 1) : 0);
		CHECK(saved_cur.next == end && saved_cur.p == saved_cur.end,
		      "after part %llu: chunk %llu", (unsigned long long)p,
		      (unsigned long long)saved_cur.next);
	}
	CHECK(!ramtrail_saved_read(&saved_cur, saved_cur.nr) &&
	      read == want && same == read && read > parts && !saved_cur.bad,
	      "%zu of %zu records the same, %zu wanted", same, read, want);
out:
	test_region_free(t);
}

/*
 * The bound a mount sizes a part by, read from its chunks' headers
 * alone, is what a reader gets from the part, in a ring that wrapped;
 * a chunk a reader skips for a damaged entry still counts its claim
 * (bounded), one whose header names another chunk counts none.
 */
static void test_saved_part_records_from_chunk_headers(void)
{
	struct test_region *t = test_region_new_saved(2, 8, 0, 256 * 1024);
	struct ramtrail_saved_trace *s;
	struct ramtrail_saved_chunk *k;
	u64 room = ramtrail_saved_fixed(0) + 20 * RAMTRAIL_SAVED_CHUNK_MIN;
	u64 p, last, got, sum = 0, wrong = 0, before, claim;

	fill_with_tasks(t, 3000);
	s = test_save_zones(t, 0, 1, room, RAMTRAIL_SAVED_CHUNK_MIN);
	CHECK(s && s->nr_slots == 20 && s->nr_chunks > s->nr_slots &&
	      ramtrail_saved_parts(s) == 3, "%llu of %llu chunks kept",
	      (unsigned long long)s->nr_slots,
	      (unsigned long long)s->nr_chunks);
	last = ramtrail_saved_parts(s) - 1;
	ramtrail_saved_open(&saved_cur, s);
	for (p = 0; p <= last; p++) {
		for (got = 0; ramtrail_saved_read(&saved_cur,
						  ramtrail_saved_part_end(s, p));)
			got++;
		wrong += got != ramtrail_saved_part_records(s, p);
		sum += got;
	}
	CHECK(!wrong && sum == s->nr_records && sum > 100 && !saved_cur.bad,
	      "%llu parts off, %llu records of %llu",
	      (unsigned long long)wrong, (unsigned long long)sum,
	      (unsigned long long)s->nr_records);
	/* The newest chunk, where the ring's last write went. */
	k = (void *)(ramtrail_saved_slots(s) +
		     (s->nr_chunks - 1) % s->nr_slots * s->chunk_size);
	before = ramtrail_saved_part_records(s, last);
	claim = k->records;
	((u8 *)(k + 1))[k->len / 2] ^= 0x10;
	CHECK(claim && ramtrail_saved_part_records(s, last) == before,
	      "damaged entries: %llu, was %llu",
	      (unsigned long long)ramtrail_saved_part_records(s, last),
	      (unsigned long long)before);
	k->records = U32_MAX;
	CHECK(ramtrail_saved_part_records(s, last) ==
	      before - claim + RAMTRAIL_SAVED_CHUNK_ENTRIES,
	      "a claim past what a chunk holds: %llu",
	      (unsigned long long)ramtrail_saved_part_records(s, last));
	k->seq++;
	CHECK(ramtrail_saved_part_records(s, last) == before - claim,
	      "another chunk's number: %llu",
	      (unsigned long long)ramtrail_saved_part_records(s, last));
	test_region_free(t);
}

/* A chunk of @len entry bytes @e in slot 0 of a fresh trace of 2 CPUs. */
static struct ramtrail_saved_trace *hostile_trace(struct test_region *t,
						  const void *e, u32 len)
{
	struct ramtrail_saved_trace *s = (void *)(t->mem +
						  t->hdr->saved_offset);
	struct ramtrail_saved_chunk *k;

	memset(s, 0, sizeof(*s));
	s->nr_cpus = 2;
	s->chunk_size = RAMTRAIL_SAVED_CHUNK_MAX;
	s->nr_slots = 1;
	s->nr_chunks = 1;
	s->size = ramtrail_saved_fixed(0) + round_up(sizeof(*k) + len, 8);
	k = (void *)ramtrail_saved_slots(s);
	memset(k, 0, sizeof(*k));
	k->len = len;
	k->ns = 1000;
	memcpy(k + 1, e, len);
	k->checksum = ramtrail_saved_chunk_checksum(k, 0, 0);
	s->magic = RAMTRAIL_SAVED_MAGIC;
	s->checksum = ramtrail_saved_checksum(s);
	return s;
}

/*
 * Entries no writer makes, in a chunk whose checksum holds, drop the rest
 * of their chunk and are counted; what came before them is kept. Random
 * bytes give records within bounds only.
 */
/*
 * A saved trace whose entry's checksum holds but whose sizes no writer
 * makes is not read, and is counted: never dropped in silence.
 */
static void test_saved_absurd_entry_is_counted(void)
{
	struct test_region *t = test_region_new_saved(1, 4, 0, 256 * 1024);
	struct ramtrail_saved_trace *s = test_add_saved(t, 0, 1, 100);
	struct ramtrail_region reg;
	u64 bound;

	CHECK(s && ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_OK &&
	      reg.nr_saved == 1 && !reg.saved_refused &&
	      !ramtrail_saved_damage(s, &bound) && !bound, "the good trace");
	s->nr_slots = s->nr_chunks + 1;	/* more slots than chunks */
	s->checksum = ramtrail_saved_checksum(s);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_OK &&
	      reg.nr_saved == 0 && reg.saved_refused == 1,
	      "listed %u, refused %u", reg.nr_saved, reg.saved_refused);
	s->magic = 0;	/* an erased entry, collected: nothing to say */
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_OK &&
	      reg.nr_saved == 0 && !reg.saved_refused, "refused %u",
	      reg.saved_refused);
	test_region_free(t);
}

static void test_saved_hostile_entries_are_refused_and_counted(void)
{
	struct test_region *t = test_region_new_saved(1, 4, 0, 256 * 1024);
	static const u8 good[] = {
		0x20, 0x00, 0x00, 24, 0, 42, 0, 0, 0, 42, 0, 0, 0, 's', 'h',
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* CPU 1: 42 */
		0x0b, 0x05, 0x02, 0x00, 0x01, 0x00, 0x00,	/* 0x100, NMI */
	};
	static const u8 bad[][8] = {
		{ 0x38, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00 },	/* CPU 2 of 2 */
		{ 0x04, 0x00, 0x01 },			/* pair 1 of 1 */
		{ 0x0c, 0x00 },				/* kind 3 */
		{ 0x00, 0x00, 0x81, 0x02, 0, 0x10 },	/* flags bit 4 */
		{ 0x00, 0x00, 0x00, 4, 0, 1, 2, 3 },	/* task of 4 bytes */
		{ 0x00, 0x00, 0x81, 0x02, 9, 0, 1 },	/* data past the end */
		{ 0x01, 0x00, 0x81, 0x02, 0, 0 },	/* event with a ctx */
		{ 0x08, 0x00, 0x02, 0, 0, 0, 0 },	/* new offset 0 */
		{ 0x08, 0x00, 0x00 },			/* a pair without ip */
		{ 0x08, 0x00, 0x12, 0x00, 0x01, 0, 0 },	/* refs bit 4 */
		{ 0x08, 0x00, 0x01, 0x05 },		/* offset 5 of 1 */
		{ 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	static const u8 bad_len[] = { 7, 3, 2, 6, 8, 7, 6, 7, 3, 7, 4, 8 };
	u8 e[sizeof(good) + 8];
	struct ramtrail_saved_trace *s;
	const struct ramtrail_record *r;
	size_t i, n, k, within = 0;

	s = hostile_trace(t, good, sizeof(good));
	n = read_saved(s);
	CHECK(n == 1 && !saved_cur.bad && saved_cur.tasks == 1 &&
	      saved_out[0].cpu == 1 && saved_out[0].ctx == RAMTRAIL_CTX_NMI &&
	      saved_out[0].ip == 0x100 && saved_out[0].ts == 1005 &&
	      saved_out[0].task_known && saved_out[0].task.pid == 42,
	      "the good chunk: %zu records, bad %llu", n,
	      (unsigned long long)saved_cur.bad);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(e, good, sizeof(good));
		memcpy(e + sizeof(good), bad[i], bad_len[i]);
		s = hostile_trace(t, e, sizeof(good) + bad_len[i]);
		n = read_saved(s);
		CHECK(n == 1 && saved_cur.bad == 1, "hostile entry %zu: %zu records, bad %llu",
		      i, n, (unsigned long long)saved_cur.bad);
	}
	/* The checksum names the trace: another boot's chunk is refused. */
	s = hostile_trace(t, good, sizeof(good));
	s->boot_id = 2;
	s->checksum = ramtrail_saved_checksum(s);
	CHECK(!read_saved(s) && saved_cur.bad == 1, "another trace's chunk");

	/*
	 * A writer's chunk with a few bytes changed, its checksum made to
	 * hold: whatever is returned is within bounds.
	 */
	srandom(11);
	for (k = 0; k < 256; k++) {
		static u8 junk[4096];
		struct ramtrail_saved_writer *w;
		struct ramtrail_record x = { .type = RAMTRAIL_W_FUNC };
		struct ramtrail_saved_chunk *c;

		s = (void *)(t->mem + t->hdr->saved_offset);
		w = test_writer_start(t, s, 0, sizeof(junk));
		for (i = 0; i < 600; i++) {
			x.cpu = random() % 2;
			x.ip = 0x100 + random() % 200;
			x.parent = random() % 2 ? 0x100 + random() % 200 : 0;
			x.type = random() % 5 ? RAMTRAIL_W_FUNC :
				 RAMTRAIL_W_EVENT;
			x.id = RAMTRAIL_EV_USER;
			x.len = random() % 20;
			x.task_known = random() % 2;
			x.task.pid = random() % 4;
			ramtrail_saved_add(w, &x, i * 50);
		}
		ramtrail_saved_finish(w);
		c = (void *)ramtrail_saved_slots(s);
		memcpy(junk, c + 1, c->len);
		for (i = 0; i < 1 + k % 4; i++)
			junk[random() % c->len] ^= 1 << random() % 8;
		s = hostile_trace(t, junk, c->len);
		ramtrail_saved_open(&saved_cur, s);
		while ((r = ramtrail_saved_read(&saved_cur, 1))) {
			CHECK(r->cpu < s->nr_cpus && r->pos < sizeof(junk) &&
			      (r->type == RAMTRAIL_W_EVENT ?
			       r->len <= RAMTRAIL_EVENT_MAX_LEN &&
			       !(r->flags & ~RAMTRAIL_EF_MASK) :
			       r->ip && r->ip <= RAMTRAIL_TEXT_OFFSET_MAX),
			      "round %zu record at %llu", k,
			      (unsigned long long)r->pos);
			within++;
		}
		CHECK(saved_cur.next == 1 && saved_cur.bad <= 1, "round %zu", k);
	}
	CHECK(within > 256 * 50, "changed chunks gave only %zu records",
	      within);
	test_region_free(t);
}

/* Bounded fields: a checksummed header with absurd values is refused. */
static void test_absurd_clock_is_refused_and_time_saturates(void)
{
	struct test_region *t = fresh(1, 4);
	struct ramtrail_region_header h = { 0 };
	struct ramtrail_region reg;

	t->hdr->clock_hz = 1;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) ==
	      RAMTRAIL_E_FIELD, "clock_hz 1 accepted");
	t->hdr->clock_hz = RAMTRAIL_CLOCK_HZ_MAX + 1;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) ==
	      RAMTRAIL_E_FIELD, "clock_hz too high accepted");
	/* The slowest clock and the widest gaps: no trap, saturation. */
	h.clock_hz = RAMTRAIL_CLOCK_HZ_MIN;
	h.clock_ref_cycles = 0;
	h.clock_ref_ns = 5;
	CHECK(ramtrail_ts_to_ns(&h, 1ULL << 40) ==
	      5 + ((1ULL << 40) / RAMTRAIL_CLOCK_HZ_MIN) * 1000000000ULL +
	      ((1ULL << 40) % RAMTRAIL_CLOCK_HZ_MIN) * 1000,
	      "slow clock, wide gap");
	CHECK(ramtrail_ts_to_ns(&h, RAMTRAIL_CLOCK_MASK) == ~0ULL,
	      "2^58 ticks at 1 MHz saturates");
	h.clock_ref_cycles = RAMTRAIL_CLOCK_MASK;
	CHECK(ramtrail_ts_to_ns(&h, 0) == 0, "before 0 saturates");
	h.clock_ref_ns = ~0ULL - 10;
	h.clock_ref_cycles = 0;
	CHECK(ramtrail_ts_to_ns(&h, 1000000) == ~0ULL, "past 2^64 saturates");
	test_region_free(t);
}

/* The name of the function at @off, as a tx->name callback writes it. */
static size_t test_name(void *arg, char *buf, size_t len, u32 off, u64 ts,
			enum ramtrail_text_func which)
{
	int n = snprintf(buf, len, "%s_%x", which == RAMTRAIL_TEXT_IP ?
			 "func" : "caller", off);

	return n < (int)len ? (size_t)n : len - 1;
}

/*
 * ftrace's line of a function record, "%16.*s-%-7d [%03u] %s %5llu.%06u: ",
 * the time rounded to the microsecond, then "func <-caller\n", cut at @len.
 */
static void test_line(char *buf, size_t len, const struct ramtrail_record *r,
		      u64 ns)
{
	char task[64], flags[RAMTRAIL_TEXT_FLAGS_LEN];
	u64 us = (ns + 500) / 1000;

	if (!r->task_known)
		snprintf(task, sizeof(task), "%16s-%-7s", "<unknown>", "?");
	else if (!r->task.pid)
		snprintf(task, sizeof(task), "%16s-%-7d", "<idle>", 0);
	else
		snprintf(task, sizeof(task), "%16.*s-%-7d", RAMTRAIL_COMM_LEN - 1,
			 r->task.comm, (int)r->task.pid);
	ramtrail_text_flags(flags, r);
	snprintf(buf, len, "%s [%03u] %s %5llu.%06u: func_%x <-caller_%x\n",
		 task, r->cpu, flags, (unsigned long long)(us / 1000000),
		 (unsigned int)(us % 1000000), r->ip, r->parent);
}

/*
 * A line's columns are ftrace's whatever their values: every width of
 * comm, pids and CPUs up to and past their columns, the idle and unknown
 * tasks, times near a rounding and near 2^64; and any room, cut as
 * snprintf() cuts.
 */
static void test_text_line_is_ftrace_format(void)
{
	static const u32 pids[] = { 1, 9, 10, 4242, 9999999, 10000000,
				    0x7fffffff, 0x80000000, 0xffffffff };
	static const u32 cpus[] = { 0, 7, 99, 191, 999, 1000, 123456 };
	static const u64 times[] = { 0, 499, 500, 999999499, 999999500,
				     12345678901ULL, 1234567890123ULL,
				     99999999999499ULL, 123456789012345678ULL,
				     10000000000000000000ULL, ~0ULL - 600,
				     ~0ULL - 100 };
	static const size_t rooms[] = { 1, 2, 17, 40, 66, 67, 70, 80, 512 };
	static struct ramtrail_comm slots[16];
	struct ramtrail_text tx = { .name = test_name };
	struct ramtrail_record r = { .type = RAMTRAIL_W_FUNC_PARENT };
	char got[512], want[512];
	u32 i, k, bad = 0, lines = 0;
	size_t n;

	ramtrail_comms_init(&tx.comms, slots, 16);
	for (i = 0; i < 17 * 9 * 7 * ARRAY_SIZE(times); i++) {
		u32 c = i % 17, p = i / 17 % 9;

		/* comm of c bytes; 16 has no NUL in its 16 */
		memset(r.task.comm, 0, sizeof(r.task.comm));
		memset(r.task.comm, 'a' + c % 26, c);
		r.task_known = c != 3;
		r.task.pid = c == 5 ? 0 : pids[p];
		r.cpu = cpus[i / (17 * 9) % 7];
		r.ctx = i % 4;
		r.ip = 0x100 + i;
		r.parent = 0x9000 + i;
		for (k = 0; k < ARRAY_SIZE(rooms); k++) {
			u64 ns = times[i / (17 * 9 * 7)];

			test_line(want, rooms[k], &r, ns);
			n = ramtrail_text_record(got, rooms[k], &r, ns, &tx);
			lines++;
			if (strcmp(got, want) || n != strlen(want)) {
				if (bad++ < 3)
					printf("     room %zu: got \"%s\" (%zu) want \"%s\"\n",
					       rooms[k], got, n, want);
			}
		}
	}
	CHECK(!bad && lines == 17 * 9 * 7 * ARRAY_SIZE(times) * ARRAY_SIZE(rooms),
	      "%u of %u lines differ",
	      bad, lines);
}

static void test_module_table_never_guesses(void)
{
	struct ramtrail_module_entry tab[3] = {
		{ .base = 0xffffffffc0000000ULL, .size = 0x1000, .name = "a" },
		{ .base = 0xffffffffc0002000ULL, .size = 0x1000, .name = "b" },
		/* loaded where a was, after a was unloaded */
		{ .base = 0xffffffffc0000000ULL, .size = 0x800, .name = "c" },
	};
	bool timed;
	int i;

	for (i = 0; i < 3; i++)
		tab[i].checksum = ramtrail_module_checksum(&tab[i]);
	CHECK(ramtrail_module_find(tab, 3, 0xffffffffc0002010ULL, 5, &timed) ==
	      1 && !timed, "b");
	CHECK(ramtrail_module_find(tab, 3, 0xffffffffc0000010ULL, 5, &timed) ==
	      -1 && timed, "an address a and c both covered got a name");
	CHECK(ramtrail_module_find(tab, 3, 0xffffffffc0000010ULL, ~0ULL, NULL) ==
	      -1, "an unload's time guessed");
	CHECK(ramtrail_module_find(tab, 2, 0xffffffffc0000010ULL, 5, NULL) == 0,
	      "a");
	CHECK(ramtrail_module_find(tab, 3, 0xffffffffc0000900ULL, 5, NULL) == 0,
	      "a past c's end");
	tab[1].flags = RAMTRAIL_MOD_GONE;	/* written later: not covered */
	CHECK(ramtrail_module_find(tab, 3, 0xffffffffc0002010ULL, 5, NULL) == 1,
	      "flags broke the entry");
	tab[1].size++;
	CHECK(ramtrail_module_find(tab, 3, 0xffffffffc0002010ULL, 5, NULL) == -1,
	      "damaged entry used");
}

/*
 * The kernel frees a module's init text when its init ends, and the next
 * module loaded often takes that very place (measured under QEMU: the next
 * one's text began at the address of the last one's init). A record of the
 * init must not get the next module's name, nor the reverse.
 */
static void test_module_init_text_named_by_time(void)
{
	enum { A, A_INIT, B, B_INIT, C, C_INIT, N };
	const u64 base = 0xffffffffc0000000ULL, a_end = 1000, b_end = 2000;
	struct ramtrail_module_entry tab[N] = {
		[A] = { .base = base, .size = 0x2000, .core_size = 0x3000,
			.name = "a" },
		[A_INIT] = { .base = base + 0x2000, .size = 0x1000,
			     .core_size = a_end, .flags = RAMTRAIL_MOD_INIT,
			     .name = "a" },
		/* loaded once a's init was freed: its text where that was */
		[B] = { .base = base + 0x2000, .size = 0x1000,
			.core_size = 0x2000, .name = "b" },
		[B_INIT] = { .base = base + 0x3000, .size = 0x1000,
			     .core_size = b_end, .flags = RAMTRAIL_MOD_INIT,
			     .name = "b" },
		/* c's init still ran at the end: no end time */
		[C] = { .base = base + 0x3000, .size = 0x1000,
			.core_size = 0x1000, .name = "c" },
		[C_INIT] = { .base = base + 0x4000, .size = 0x1000,
			     .flags = RAMTRAIL_MOD_INIT, .name = "c" },
	};
	const u64 in_a_init = base + 0x2010, in_b_init = base + 0x3010;
	bool timed = false;
	u32 i;

	for (i = 0; i < N; i++)
		tab[i].checksum = ramtrail_module_checksum(&tab[i]);
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end - 1, &timed) ==
	      A_INIT && timed, "a's init, before it ended");
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end, NULL) == B,
	      "b, once a's init ended");
	CHECK(ramtrail_module_find(tab, N, in_b_init, a_end - 1, NULL) ==
	      B_INIT, "b's init, before it ended");
	CHECK(ramtrail_module_find(tab, N, in_b_init, b_end + 1, NULL) == C,
	      "c, once b's init ended");
	CHECK(ramtrail_module_find(tab, N, base + 0x4010, 5, &timed) ==
	      C_INIT && !timed, "c's init, running at the end");
	CHECK(ramtrail_module_find(tab, N, base + 0x10, 5, &timed) == A &&
	      !timed, "a's text");
	/* Alone, init text that ended names nothing after its end. */
	CHECK(ramtrail_module_find(tab, B, in_a_init, a_end + 1, &timed) ==
	      -1 && timed, "freed init text named");
	/* The flag is covered: neither side can take the other's place. */
	tab[A_INIT].flags = 0;
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end - 1, NULL) == -1,
	      "init text whose flag was cleared used");
	tab[A_INIT].flags = RAMTRAIL_MOD_INIT;
	tab[B].flags = RAMTRAIL_MOD_INIT | RAMTRAIL_MOD_GONE;
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end, NULL) == -1,
	      "text whose init flag was set used");
	tab[B].flags = RAMTRAIL_MOD_GONE;	/* written later: not covered */
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end, NULL) == B,
	      "gone broke the entry");
	/* Damaged, b is nothing sure, but began after a's init ended. */
	tab[B].core_size++;
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end, NULL) == -1,
	      "damaged entry used");
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end - 1, NULL) ==
	      A_INIT, "a damaged later entry hid a's init");
	tab[B].core_size--;
	/* An unloaded module's text keeps no time: a later one makes it -1. */
	tab[C].base = base + 0x2000;
	tab[C].checksum = ramtrail_module_checksum(&tab[C]);
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end + 5, NULL) == -1,
	      "b unloaded, c there: a name guessed");
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end - 1, NULL) ==
	      A_INIT, "a's init, before b and c");
}

/*
 * An unloaded module's entry keeps when: it names the records before
 * then, and nothing after, whatever came to its place with no entry (a
 * BPF program, a kprobe's page); a module loaded there later is named
 * alone. The time is covered by the checksum and converted to
 * nanoseconds in a saved trace's copy.
 */
static void test_unloaded_module_names_nothing_after_its_unload(void)
{
	enum { A, B, N };
	const u64 base = 0xffffffffc0000000ULL, gone = 500;
	struct ramtrail_module_entry tab[N] = {
		[A] = { .base = base, .size = 0x2000, .core_size = 0x3000,
			.flags = RAMTRAIL_MOD_GONE, .name = "a", .gone = gone },
		/* loaded after a's unload, where a was */
		[B] = { .base = base, .size = 0x1000, .core_size = 0x1000,
			.name = "b" },
	};
	struct ramtrail_region_header h = {
		.clock_hz = 1000000000ULL, .clock_ref_ns = 7,
	};
	struct ramtrail_saved_trace *t =
		calloc(1, RAMTRAIL_SAVED_HEAD_SLOT + sizeof(tab));
	struct ramtrail_module_entry *e = ramtrail_saved_modules(t);
	bool timed = false;
	u32 i;

	for (i = 0; i < N; i++)
		tab[i].checksum = ramtrail_module_checksum(&tab[i]);
	CHECK(ramtrail_module_find(tab, 1, base + 0x10, gone - 1, NULL) == A,
	      "a, before its unload");
	CHECK(ramtrail_module_find(tab, 1, base + 0x10, gone, NULL) == -1 &&
	      ramtrail_module_find(tab, 1, base + 0x1010, ~0ULL, NULL) == -1,
	      "a named after its unload, where no entry tells what came");
	CHECK(ramtrail_module_find(tab, N, base + 0x10, gone - 1, &timed) ==
	      A && timed, "a, before b came there");
	CHECK(ramtrail_module_find(tab, N, base + 0x10, gone + 1, NULL) == B,
	      "b, once a was unloaded");
	CHECK(ramtrail_module_find(tab, N, base + 0x1010, gone + 1, NULL) ==
	      -1, "a's text past b's end named after a's unload");
	tab[A].gone++;	/* covered: the entry is damaged */
	CHECK(ramtrail_module_find(tab, 1, base + 0x10, 1, NULL) == -1,
	      "an entry whose unload time changed used");
	tab[A].gone--;
	ramtrail_saved_modules_copy(t, tab, N, &h);
	CHECK(e[A].gone == ramtrail_ts_to_ns(&h, gone) &&
	      e[A].checksum == ramtrail_module_checksum(&e[A]) &&
	      ramtrail_module_find(e, N, base + 0x10, e[A].gone - 1, NULL) ==
	      A && ramtrail_module_find(e, N, base + 0x10, e[A].gone, NULL) ==
	      B, "saved copy: the unload time not in ns");
	free(t);
}

/*
 * A module that finds the table full gets no entry, and may lie where an
 * unloaded module was, alone in the table there: from the time the table
 * filled (its last entry), that entry names nothing. Modules still loaded
 * and init text before its end keep their names; an address no entry
 * covers is unknown then (timed: the dump must not take the kernel's
 * name of now). The entry of a full table is covered by its checksum,
 * and converted to nanoseconds in a saved trace's copy.
 */
static void test_module_table_full(void)
{
	enum { A, A_INIT, B, FULL, N };
	const u64 base = 0xffffffffc0000000ULL, a_end = 1000, full = 5000;
	struct ramtrail_module_entry tab[N] = {
		[A] = { .base = base, .size = 0x1000, .core_size = 0x2000,
			.flags = RAMTRAIL_MOD_GONE, .name = "a" },
		[A_INIT] = { .base = base + 0x1000, .size = 0x1000,
			     .core_size = a_end, .flags = RAMTRAIL_MOD_INIT,
			     .name = "a" },
		[B] = { .base = base + 0x4000, .size = 0x1000,
			.core_size = 0x1000, .name = "b" },	/* stayed */
		[FULL] = { .base = base, .size = -base, .core_size = full,
			   .flags = RAMTRAIL_MOD_FULL },
	};
	struct ramtrail_region_header h = {
		.clock_hz = 1000000000ULL, .clock_ref_ns = 7,
	};
	struct ramtrail_saved_trace *t = calloc(1, RAMTRAIL_SAVED_HEAD_SLOT + sizeof(tab));
	struct ramtrail_module_entry *e = ramtrail_saved_modules(t);
	bool timed = false;
	u32 i;

	for (i = 0; i < N; i++)
		tab[i].checksum = ramtrail_module_checksum(&tab[i]);
	CHECK(ramtrail_module_find(tab, N, base + 0x10, full - 1, &timed) ==
	      A && timed, "a, unloaded, before the table filled");
	CHECK(ramtrail_module_find(tab, N, base + 0x10, full, &timed) == -1 &&
	      timed, "a gone: named after the table filled");
	CHECK(ramtrail_module_find(tab, N, base + 0x4010, ~0ULL, &timed) ==
	      B && timed, "b, loaded all along, lost its name");
	CHECK(ramtrail_module_find(tab, N, base + 0x1010, a_end - 1, NULL) ==
	      A_INIT, "a's init before its end");
	CHECK(ramtrail_module_find(tab, N, base + 0x8000, 1, &timed) == -1 &&
	      timed, "no entry, after: not timed");
	CHECK(ramtrail_module_find(tab, FULL, base + 0x8000, 1, &timed) ==
	      -1 && !timed, "no entry in a table not full: timed");
	CHECK(ramtrail_module_find(tab, N, 0xffffffff81000000ULL, full,
				   &timed) == -1 && !timed,
	      "kernel text, below the module area: timed");
	/* The flag is covered: cleared, the entry is damaged, covering all. */
	tab[FULL].flags = 0;
	CHECK(ramtrail_module_find(tab, N, base + 0x4010, 1, NULL) == -1,
	      "an entry of a full table that lost its flag used");
	tab[FULL].flags = RAMTRAIL_MOD_FULL;
	tab[B].flags = RAMTRAIL_MOD_FULL;
	CHECK(ramtrail_module_find(tab, N, base + 0x4010, 1, NULL) == -1,
	      "a module entry given the flag used");
	tab[B].flags = 0;
	ramtrail_saved_modules_copy(t, tab, N, &h);
	CHECK(e[FULL].core_size == ramtrail_ts_to_ns(&h, full) &&
	      e[FULL].checksum == ramtrail_module_checksum(&e[FULL]),
	      "the time the table filled not in ns");
	CHECK(ramtrail_module_find(e, N, base + 0x10, e[FULL].core_size - 1,
				   NULL) == A &&
	      ramtrail_module_find(e, N, base + 0x10, e[FULL].core_size,
				   NULL) == -1, "saved copy: wrong time");
	free(t);
}

/*
 * The hash that tells the traced build of a module from another: the same
 * functions at the same offsets give it in any order (the kernel's symbol
 * table and the .ko's differ in order); a function moved or renamed, one
 * more or one less, change it.
 */
static void test_module_syms_hash(void)
{
	static const struct { const char *name; u64 off; } f[] = {
		{ "a_init", 0 }, { "a_poke", 0x40 }, { "a_exit", 0x90 },
	};
	u64 fwd = 0, rev = 0, moved = 0, renamed = 0, fewer = 0;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(f); i++) {
		const u32 j = ARRAY_SIZE(f) - 1 - i;

		fwd = ramtrail_module_sym_add(fwd, f[i].name, strlen(f[i].name),
					      f[i].off);
		rev = ramtrail_module_sym_add(rev, f[j].name, strlen(f[j].name),
					      f[j].off);
		moved = ramtrail_module_sym_add(moved, f[i].name,
						strlen(f[i].name),
						f[i].off + (i == 1) * 8);
		renamed = ramtrail_module_sym_add(renamed, i == 2 ? "a_exiT" :
						  f[i].name, strlen(f[i].name),
						  f[i].off);
		if (i)
			fewer = ramtrail_module_sym_add(fewer, f[i].name,
							strlen(f[i].name),
							f[i].off);
	}
	CHECK(fwd && fwd == rev, "order changed the hash");
	CHECK(moved != fwd && renamed != fwd && fewer != fwd,
	      "a moved, renamed or missing function kept the hash");
}

/*
 * The kernel's entry (RAMTRAIL_MOD_KERNEL): its hash changes when one of
 * its functions moves or two swap places, not with KASLR; the entry names
 * no address, not even its own, keeps its hash in a saved trace's copy,
 * and a flag cleared fails its checksum.
 */
static void test_module_table_kernel(void)
{
	const u64 anchor = 0xffffffff81234560ULL, mod = 0xffffffffc0000000ULL;
	u64 off[RAMTRAIL_KERNEL_NR_FUNCS], h, moved, swapped, k;
	struct ramtrail_module_entry tab[2] = {
		{ .base = anchor, .flags = RAMTRAIL_MOD_KERNEL,
		  .name = "vmlinux" },
		{ .base = mod, .size = 0x1000, .core_size = 0x2000,
		  .name = "a" },
	};
	struct ramtrail_region_header hdr = { .clock_hz = 1000000000ULL };
	struct ramtrail_saved_trace *t = calloc(1, RAMTRAIL_SAVED_HEAD_SLOT + sizeof(tab));
	struct ramtrail_module_entry e;
	u32 i;

	for (i = 0; i < RAMTRAIL_KERNEL_NR_FUNCS; i++)
		off[i] = 0x1000 + i * 0x3a0;
	h = ramtrail_kernel_hash(off);
	off[RAMTRAIL_KERNEL_NR_FUNCS - 1] += 0x10;
	moved = ramtrail_kernel_hash(off);
	off[RAMTRAIL_KERNEL_NR_FUNCS - 1] -= 0x10;
	k = off[0];
	off[0] = off[1];
	off[1] = k;
	swapped = ramtrail_kernel_hash(off);
	CHECK(RAMTRAIL_KERNEL_NR_FUNCS > 16 && h && moved != h &&
	      swapped != h, "a function moved or two swapped kept the hash");
	tab[0].core_size = h;
	for (i = 0; i < 2; i++)
		tab[i].checksum = ramtrail_module_checksum(&tab[i]);
	for (i = 0; i < 2; i++)
		CHECK(ramtrail_module_find(tab, 2, anchor + i, 1, NULL) == -1,
		      "the kernel entry named %#llx",
		      (unsigned long long)anchor + i);
	CHECK(ramtrail_module_find(tab, 2, mod + 8, 1, NULL) == 1,
	      "the module after the kernel entry not found");
	ramtrail_saved_modules_copy(t, tab, 2, &hdr);
	CHECK(!memcmp(ramtrail_saved_modules(t), tab, sizeof(tab)),
	      "the saved copy changed the kernel entry");
	moved = 0;
	CHECK(ramtrail_module_kernel(tab, 2, &moved) == 1 && moved == h &&
	      ramtrail_module_kernel(tab + 1, 1, &moved) == 0,
	      "the kernel entry's hash not found, or found where none is");
	tab[0].core_size ^= 1;
	CHECK(ramtrail_module_kernel(tab, 2, &moved) == -1,
	      "a damaged kernel entry taken as whole");
	tab[0].core_size ^= 1;
	e = tab[0];
	e.flags = 0;
	CHECK(e.checksum != ramtrail_module_checksum(&e),
	      "the kernel flag is not covered by the checksum");
	free(t);
}

/* A module named by the table alone: no byte of a forged name gets out. */
static void test_module_name_from_the_table(void)
{
	struct ramtrail_module_entry m = {
		.base = 0xffffffffc0001000ULL, .size = 0x1000,
		.name = "ok_mod-1\n\x1b[2J",
	};
	char buf[64], small[8];

	ramtrail_text_module(buf, sizeof(buf), &m, m.base + 0x2a);
	CHECK(!strcmp(buf, "[ok_mod-1???2J]+0x2a"), "%s", buf);
	m.flags = RAMTRAIL_MOD_INIT;
	CHECK(ramtrail_text_module(buf, sizeof(buf), &m, m.base) ==
	      strlen(buf) && !strcmp(buf, "[ok_mod-1???2J].init+0x0"), "%s",
	      buf);
	CHECK(ramtrail_text_module(small, sizeof(small), &m, m.base) == 7 &&
	      !strcmp(small, "[ok_mod"), "%s", small);
}

/*
 * A saved trace's records carry nanoseconds: its copy of the module table
 * must say when init text ended in nanoseconds too, or a record just
 * before the end would take the next module's name (and one after it the
 * init's). A damaged entry stays damaged.
 */
static void test_saved_module_table_in_nanoseconds(void)
{
	const u64 base = 0xffffffffc0000000ULL;
	struct ramtrail_module_entry tab[3] = {
		{ .base = base, .size = 0x1000, .flags = RAMTRAIL_MOD_INIT,
		  .core_size = 3000000, .name = "a" },	/* 1 ms at 3 GHz */
		{ .base = base, .size = 0x1000, .core_size = 0x2000,
		  .name = "b" },
		{ .base = base + 0x1000, .size = 0x1000,
		  .flags = RAMTRAIL_MOD_INIT, .core_size = 6000000,
		  .name = "c" },
	};
	struct ramtrail_region_header h = {
		.clock_hz = 3000000000ULL, .clock_ref_cycles = 0,
		.clock_ref_ns = 5000000000ULL,
	};
	struct ramtrail_saved_trace *t =
		calloc(1, RAMTRAIL_SAVED_HEAD_SLOT + sizeof(tab));
	struct ramtrail_module_entry *e = ramtrail_saved_modules(t);
	const u64 end_ns = ramtrail_ts_to_ns(&h, 3000000);
	u32 i;

	for (i = 0; i < 3; i++)
		tab[i].checksum = ramtrail_module_checksum(&tab[i]);
	tab[2].checksum ^= 1;			/* damaged */
	ramtrail_saved_modules_copy(t, tab, 3, &h);
	CHECK(t->modtab_count == 3 && end_ns == 5001000000ULL,
	      "count %u end %llu", t->modtab_count,
	      (unsigned long long)end_ns);
	CHECK(e[0].core_size == end_ns &&
	      e[0].checksum == ramtrail_module_checksum(&e[0]),
	      "init end not in ns, or its checksum not set again");
	CHECK(!memcmp(&e[1], &tab[1], sizeof(tab[1])), "text entry changed");
	CHECK(!memcmp(&e[2], &tab[2], sizeof(tab[2])),
	      "damaged entry made whole");
	CHECK(ramtrail_module_find(e, 3, base + 0x10, end_ns - 1, NULL) == 0 &&
	      ramtrail_module_find(e, 3, base + 0x10, end_ns, NULL) == 1,
	      "records in ns named by the wrong entry");
	free(t);
}

static void test_layout_refuses_regions_too_small_for_zones(void)
{
	struct ramtrail_region_header h;

	CHECK(ramtrail_layout(&h, 64 << 20, 4, 4, 16384, 1 << 20, 512) ==
	      RAMTRAIL_OK, "64M for 4 cpus");
	CHECK(h.zone_offset + (u64)4 * h.nr_blocks * RAMTRAIL_BLOCK_SIZE <=
	      64 << 20, "zones overflow the region");
	CHECK(ramtrail_layout(&h, 8 * 4096, 4, 0, 0, 0, 0) ==
	      RAMTRAIL_E_GEOMETRY, "one block per cpu accepted");
	CHECK(ramtrail_layout(&h, 64 << 20, 0, 0, 0, 0, 0) ==
	      RAMTRAIL_E_GEOMETRY, "zero cpus accepted");
	CHECK(ramtrail_layout(&h, 64 << 20, 1, 1, 12, 0, 0) ==
	      RAMTRAIL_E_GEOMETRY, "unaligned dmesg size accepted");
}

/*
 * The step conversion the save uses is ramtrail_ts_to_ns(), exactly: for
 * times in order and out of it, tiny and huge steps, clocks of 1 MHz to
 * 100 GHz, before the reference and near saturation.
 */
static void test_ts_to_ns_step_is_ts_to_ns(void)
{
	static const u64 hzs[] = { RAMTRAIL_CLOCK_HZ_MIN, 1000000000ULL,
				   2893451789ULL, 3000000000ULL,
				   RAMTRAIL_CLOCK_HZ_MAX };
	u32 k, i, bad = 0, exact = 0;

	rnd_state = 0x2545f4914f6cdd1dULL;
	for (k = 0; k < 40; k++) {
		struct ramtrail_region_header h = { 0 };
		struct ramtrail_ns_step st = { 0 };
		u64 ts;

		h.clock_hz = hzs[k % 5];
		h.clock_ref_cycles = k % 3 ? (u64)rnd(1 << 30) << 8 : 0;
		h.clock_ref_ns = k % 7 == 6 ? ~0ULL - (u64)rnd(1 << 30) :
				 (u64)rnd(1 << 30) << 10;
		ts = k % 4 ? h.clock_ref_cycles - rnd(1000) :
		     RAMTRAIL_CLOCK_MASK - rnd(1 << 20) * 1000ULL;
		for (i = 0; i < 20000; i++) {
			u32 c = rnd(100);

			ts += c < 80 ? rnd(3000) : c < 95 ? rnd(1U << 31) * 3ULL :
			      c < 98 ? -(u64)rnd(100) : (u64)rnd(1U << 31) << 20;
			ts &= RAMTRAIL_CLOCK_MASK;
			bad += ramtrail_ts_to_ns_step(&h, &st, ts) !=
			       ramtrail_ts_to_ns(&h, ts);
			exact += st.exact;
		}
	}
	CHECK(!bad, "%u conversions differ", bad);
	CHECK(exact > 40 * 20000 / 2, "the step was exact only %u times", exact);
}

static void test_ts_to_ns_uses_the_saved_clock(void)
{
	struct ramtrail_region_header h = { 0 };

	h.clock_hz = 2000000000ULL;
	h.clock_ref_cycles = 4000;
	h.clock_ref_ns = 1000000;
	CHECK(ramtrail_ts_to_ns(&h, 4000) == 1000000, "at ref");
	CHECK(ramtrail_ts_to_ns(&h, 6000) == 1001000, "after ref");
	CHECK(ramtrail_ts_to_ns(&h, 2000) == 999000, "before ref");
}

int main(void)
{
	printf("ramtrail format/writer/decoder unit tests\n");
	RUN(test_zeroed_image_is_not_a_region);
	RUN(test_fresh_region_has_no_records);
	RUN(test_single_cpu_records_come_back_in_order);
	RUN(test_many_cpus_merge_by_time);
	RUN(test_merge_is_every_zone_sorted_by_time_cpu_position);
	RUN(test_wraparound_keeps_the_newest_window);
	RUN(test_tail_is_the_newest_records_read_from_few_blocks);
	RUN(test_tail_leaves_out_what_follows_its_end);
	RUN(test_tail_of_a_short_or_empty_zone_is_what_it_holds);
	RUN(test_tail_of_a_garbage_zone_stays_bounded);
	RUN(test_merge_starts_from_cursors_the_caller_opened);
	RUN(test_function_record_is_8_bytes_16_with_a_new_caller);
	RUN(test_func_ref_is_the_documented_word);
	RUN(test_writer_addresses_zones_past_32_gib);
	RUN(test_nested_writer_leaves_the_pairs_alone);
	RUN(test_func_ref_to_nothing_is_dropped);
	RUN(test_every_record_kind_round_trips);
	RUN(test_large_clock_gaps_use_extended_timestamps);
	RUN(test_clock_wrap_at_58_bits_stays_monotonic);
	RUN(test_backwards_clock_is_clamped_and_counted);
	RUN(test_torn_continuation_drops_only_that_record);
	RUN(test_reserved_never_written_slot_is_skipped);
	RUN(test_stale_words_of_the_previous_lap_are_rejected);
	RUN(test_lost_block_header_keeps_the_block_records);
	RUN(test_newest_block_header_lost_after_wrap);
	RUN(test_corrupt_block_is_dropped_whole_and_others_kept);
	RUN(test_damaged_newest_block_is_counted);
	RUN(test_flipped_bit_in_newest_header_loses_one_block);
	RUN(test_sealed_block_with_a_flipped_bit_is_dropped_whole);
	RUN(test_tail_seal_covers_a_stopped_zone);
	RUN(test_tail_seal_at_a_block_boundary);
	RUN(test_stale_block_cache_is_rebuilt);
	RUN(test_live_zone_head_is_read_once);
	RUN(test_stop_when_full_keeps_the_oldest_and_counts_drops);
	RUN(test_stopped_ring_counts_losses_only);
	RUN(test_header_checks);
	RUN(test_header_field_out_of_bounds_is_named);
	RUN(test_layout_refuses_regions_too_small_for_zones);
	RUN(test_ts_to_ns_uses_the_saved_clock);
	RUN(test_ts_to_ns_step_is_ts_to_ns);
	RUN(test_torn_or_formatting_header_keeps_saved_and_dmesg);
	RUN(test_dmesg_and_saved_checksums);
	RUN(test_lost_layout_keeps_what_checks_on_its_own);
	RUN(test_saved_traces_found_anywhere_listed_by_boot);
	RUN(test_saved_trace_found_at_every_offset);
	RUN(test_saved_space_of_erased_traces_is_reused);
	RUN(test_saved_trace_keeps_events_tasks_and_contexts);
	RUN(test_saved_damaged_chunk_loses_only_itself);
	RUN(test_saved_header_with_bit_errors_is_corrected);
	RUN(test_ecc_parity_is_the_standard_code);
	RUN(test_ecc_corrects_half_its_parity_in_every_codeword);
	RUN(test_saved_chunk_with_bit_errors_is_repaired);
	RUN(test_saved_is_the_newest_of_the_merge);
	RUN(test_saved_entries_are_the_documented_bytes);
	RUN(test_saved_function_records_take_3_bytes);
	RUN(test_saved_trace_keeps_unknown_tasks);
	RUN(test_saved_task_does_not_cross_chunks);
	RUN(test_saved_trace_that_does_not_fit_keeps_the_newest);
	RUN(test_saved_parts_are_runs_of_chunks);
	RUN(test_saved_skip_passes_parts_unread);
	RUN(test_saved_part_records_from_chunk_headers);
	RUN(test_saved_hostile_entries_are_refused_and_counted);
	RUN(test_saved_absurd_entry_is_counted);
	RUN(test_absurd_clock_is_refused_and_time_saturates);
	RUN(test_text_line_is_ftrace_format);
	RUN(test_module_table_never_guesses);
	RUN(test_module_init_text_named_by_time);
	RUN(test_unloaded_module_names_nothing_after_its_unload);
	RUN(test_module_table_full);
	RUN(test_module_syms_hash);
	RUN(test_module_table_kernel);
	RUN(test_saved_module_table_in_nanoseconds);
	RUN(test_module_name_from_the_table);
	return check_summary();
}
