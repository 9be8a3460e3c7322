// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of fs/ramtrail/merge.c and clock.c: all zones in one time order, and
 * counter values in nanoseconds.
 */
#include "test_decode.h"

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
		w[i].zone = (const __le64 *)test_zone(t, i);
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

void test_merge_all(void)
{
	RUN(test_many_cpus_merge_by_time);
	RUN(test_merge_is_every_zone_sorted_by_time_cpu_position);
	RUN(test_merge_starts_from_cursors_the_caller_opened);
	RUN(test_ts_to_ns_uses_the_saved_clock);
	RUN(test_ts_to_ns_step_is_ts_to_ns);
	RUN(test_absurd_clock_is_refused_and_time_saturates);
}
