// SPDX-License-Identifier: GPL-2.0
/*
 * The unit tests of the shared decoder and writer (test_decode.h): what
 * the parts' tests share, and the run of them all.
 */
#include "test_decode.h"

u64 clock_now = 1000, clock_step = 10, reserved_ts;
struct ramtrail_record out[MAXREC];
struct ramtrail_zone_stats st;
u64 rnd_state;

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

struct test_region *fresh(u32 cpus, u32 blocks)
{
	clock_now = 1000;
	clock_step = 10;
	return test_region_new(cpus, blocks, 0);
}

/* Words the ring has reserved so far. */
u64 ring_bytes(struct test_region *t, u32 cpu)
{
	return local_read(&t->ring[cpu].pos);
}

u32 rnd(u32 n)
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
void fill_random(struct test_region *t, u32 nr_cpus, u32 n, u32 damage)
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

/*
 * What a saved trace keeps of @n decoded records, compacted: not a
 * function outside the text (offset 0), which has no name.
 */
size_t kept(struct ramtrail_record *r, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (r[i].type == RAMTRAIL_W_EVENT || r[i].ip)
			r[k++] = r[i];
	return k;
}

int main(void)
{
	printf("ramtrail format/writer/decoder unit tests\n");
	test_zone_all();
	test_region_all();
	test_merge_all();
	test_saved_all();
	test_text_all();
	return check_summary();
}
