// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of fs/ramtrail/ring.c and zone.c: the writer and one zone's decode: records,
 * words, blocks, seals, the tail.
 */
#include "test_decode.h"

/* Find the zone word holding a record's head, by position. */
static u64 *word_at(struct test_region *t, u32 cpu, u64 pos)
{
	u64 block = (pos >> RAMTRAIL_BLOCK_SHIFT) % t->hdr->nr_blocks;

	return test_zone(t, cpu) + block * RAMTRAIL_BLOCK_WORDS +
	       (pos & RAMTRAIL_BLOCK_MASK) / 8;
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
	w->zone = (const __le64 *)test_zone(t, 0);
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
	ramtrail_ring_init(&r, (__le64 *)zone, blocks, 0);
	/* The first byte of block g: the writer enters it. */
	local_set(&r.pos, g << RAMTRAIL_BLOCK_SHIFT);
	r.sealed = g;	/* as if it had written and sealed the blocks before */
	for (i = 0; i < 4; i++)
		CHECK(ramtrail_ring_func(&r, 0x1000 + i, 0), "record %llu refused",
		      (unsigned long long)i);
	for (i = 0; i < 4 * RAMTRAIL_BLOCK_WORDS; i++)
		low |= zone[i];
	CHECK(!low, "the zone's first blocks were written");
	ramtrail_zone_open_window(c, (__le64 *)zone, blocks, 0, g, g);
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

/*
 * A record the reader does not return is still a time base ([R2]): a task
 * renamed, and a FUNC_REF whose record is gone, each just short of 2^26
 * ticks after the record before, the next record 10 ticks later without
 * a TSEXT.
 */
static void test_records_not_returned_still_carry_the_time(void)
{
	struct test_region *t = fresh(1, 4);
	struct ramtrail_ring *r = &t->ring[0];
	struct ramtrail_ev_task ev;
	u64 *full, expect[2];
	size_t n;

	ramtrail_env_describe(&ev);
	ramtrail_ring_func(r, 1, 0);	/* opens the block */
	ramtrail_ring_func(r, 5, 6);
	full = word_at(t, 0, local_read(&r->pos) - 16);
	ramtrail_ring_func(r, 2, 0);
	clock_step = RAMTRAIL_TS_SPAN - 5;
	CHECK(ramtrail_ring_event(r, RAMTRAIL_EV_TASK, (const u32 *)&ev,
				  sizeof(ev)), "rename refused");
	clock_step = 10;
	ramtrail_ring_func(r, 7, 0);
	expect[0] = reserved_ts;
	clock_step = RAMTRAIL_TS_SPAN - 5;
	ramtrail_ring_func(r, 5, 6);
	clock_step = 10;
	ramtrail_ring_func(r, 9, 0);
	expect[1] = reserved_ts;
	CHECK(test_decode(t, out, MAXREC, &st) == 6 &&
	      out[4].ip == 5 && out[4].parent == 6,
	      "the reference does not decode");

	/* The record the reference names, of the lap before: both dropped. */
	*full |= 3ULL << RAMTRAIL_LAP_SHIFT;
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == 4 && out[2].ip == 7 && out[3].ip == 9 &&
	      !st.ts_backwards, "%zu records", n);
	CHECK(out[2].ts == expect[0] && out[3].ts == expect[1],
	      "after a rename %llx want %llx, after a lost reference %llx want %llx",
	      (unsigned long long)out[2].ts, (unsigned long long)expect[0],
	      (unsigned long long)out[3].ts, (unsigned long long)expect[1]);
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

/*
 * A freeze on another CPU seals a write-combining zone's newest block
 * while its writer's last words would still sit in the writer CPU's
 * write-combining buffers, were they not drained before the floor is
 * released: they reach memory only after the seal was taken (the CPU's
 * stop interrupt drains them), and the block must still check.
 */
static void test_freeze_seals_a_write_combining_writer_whole(void)
{
	struct test_region *t = fresh(1, 8), *c = fresh(1, 8);
	struct ramtrail_ring *r = &t->ring[0];
	const size_t total = 2 * PER_BLOCK + 10;
	size_t n, i;

	r->flags |= RAMTRAIL_RING_WC;
	for (i = 0; i < total - 5; i++)
		ramtrail_ring_func(r, i, 0);
	test_wc = (struct test_wc){ .hold = true };
	for (; i < total; i++)
		ramtrail_ring_func(r, i, 0);
	CHECK(test_wc.drains == 5 && !test_wc.n,
	      "%u drains, %u stores held at the floor's release",
	      test_wc.drains, test_wc.n);
	/* The freezer sees the floor idle and seals what memory holds. */
	CHECK(r->floor == RAMTRAIL_FLOOR_IDLE, "floor %lx", r->floor);
	r->stopped = RAMTRAIL_RING_PAUSED;
	ramtrail_ring_seal_tail(r, local_read(&r->pos));
	test_wc_flush();
	test_wc.hold = false;
	n = test_decode(t, out, MAXREC, &st);
	CHECK(n == total && st.sealed_blocks == 3 && !st.corrupt_blocks &&
	      out[n - 1].ip == total - 1,
	      "%zu of %zu records, %llu sealed, %llu damaged", n, total,
	      (unsigned long long)st.sealed_blocks,
	      (unsigned long long)st.corrupt_blocks);
	/* A cached or uncached mapping orders its stores: no drain. */
	r = &c->ring[0];
	test_wc = (struct test_wc){ 0 };
	for (i = 0; i < 10; i++)
		ramtrail_ring_func(r, i, 0);
	CHECK(!test_wc.drains, "%u drains on a cached zone", test_wc.drains);
	test_region_free(t);
	test_region_free(c);
}

/*
 * The outermost writer of a two-block zone enters the next block as
 * writers of larger zones do: only nested writers are kept from the
 * slot of the block before the floor's.
 */
static void test_two_block_zone_records_on(void)
{
	struct test_region *t = fresh(1, 2);
	struct ramtrail_ring *r = &t->ring[0];
	const size_t total = 5 * PER_BLOCK;
	size_t n, kept = 0, i;

	/* Callers never repeated: 16 bytes each, a block's tail padded. */
	for (i = 0; i < total; i++)
		kept += ramtrail_ring_func(r, i, i + 1);
	n = test_decode(t, out, MAXREC, &st);
	CHECK(kept == total && !local_read(&r->dropped) &&
	      local_read(&r->pos) >> RAMTRAIL_BLOCK_SHIFT >= 8 &&
	      n > PER_BLOCK / 4 && n <= PER_BLOCK && out[n - 1].ip == total - 1,
	      "%zu of %zu recorded, %ld dropped, %zu read, the last %x", kept,
	      total, local_read(&r->dropped), n, n ? out[n - 1].ip : 0);
	/* A nested writer still keeps out of the floor's block's slot. */
	r->floor = local_read(&r->pos);
	for (i = 0; i < 2 * PER_BLOCK; i++)
		ramtrail_ring_func(r, i, 0);
	CHECK(local_read(&r->dropped) > 0 &&
	      (local_read(&r->pos) - 1) >> RAMTRAIL_BLOCK_SHIFT ==
	      (r->floor >> RAMTRAIL_BLOCK_SHIFT),
	      "nested: %ld dropped, block %ld of the floor's %lu",
	      local_read(&r->dropped),
	      local_read(&r->pos) >> RAMTRAIL_BLOCK_SHIFT,
	      r->floor >> RAMTRAIL_BLOCK_SHIFT);
	r->floor = RAMTRAIL_FLOOR_IDLE;
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
			ramtrail_zone_open_raw(c, (__le64 *)zone, 2, 0);
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
	ramtrail_zone_open_raw(c, (__le64 *)zone, 2, 0);
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

void test_zone_all(void)
{
	RUN(test_single_cpu_records_come_back_in_order);
	RUN(test_wraparound_keeps_the_newest_window);
	RUN(test_tail_is_the_newest_records_read_from_few_blocks);
	RUN(test_tail_leaves_out_what_follows_its_end);
	RUN(test_tail_of_a_short_or_empty_zone_is_what_it_holds);
	RUN(test_tail_of_a_garbage_zone_stays_bounded);
	RUN(test_function_record_is_8_bytes_16_with_a_new_caller);
	RUN(test_func_ref_is_the_documented_word);
	RUN(test_writer_addresses_zones_past_32_gib);
	RUN(test_nested_writer_leaves_the_pairs_alone);
	RUN(test_func_ref_to_nothing_is_dropped);
	RUN(test_every_record_kind_round_trips);
	RUN(test_large_clock_gaps_use_extended_timestamps);
	RUN(test_records_not_returned_still_carry_the_time);
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
	RUN(test_freeze_seals_a_write_combining_writer_whole);
	RUN(test_two_block_zone_records_on);
	RUN(test_stale_block_cache_is_rebuilt);
	RUN(test_live_zone_head_is_read_once);
	RUN(test_stop_when_full_keeps_the_oldest_and_counts_drops);
	RUN(test_stopped_ring_counts_losses_only);
}
