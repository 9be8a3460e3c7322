// SPDX-License-Identifier: GPL-2.0
/*
 * What bits that change while the machine is off cost: a region written by
 * the real writer (2 CPUs, zones that wrapped, records of every kind and
 * context, tasks switching) and its trace saved by the real saver; then,
 * trial by trial, 1, 4 or 64 random bits flipped in the zones or in the
 * saved trace, and the result decoded again. Each record returned is
 * looked up among those decoded before the flips, every field compared:
 *
 *   wrong   records returned that were never written (a changed function,
 *           task, time...), and the trials that returned any
 *   lost    records written that are not returned
 *   uncounted  trials that lost records, returned none changed, and
 *           counted none of it (the decoder's counters of dropped blocks
 *           and records, the saved trace's damaged chunks)
 *
 * The zones are flipped twice: as recording left them when it stopped
 * (a freeze or an unload seals every block, the newest over its written
 * words), and as a power cut leaves them (the newest blocks not sealed).
 *
 *   bitflip [TRIALS]          the figures (default 2000 trials a row)
 *   bitflip --check [TRIALS]  and assert: no wrong record from sealed
 *                             blocks or the saved trace, every loss
 *                             counted; ends with "N passed, N failed"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

#define CPUS		2
#define BLOCKS		16
#define SAVED_SIZE	(512 * 1024)
#define MAXREC		BIT(18)

u64 ramtrail_clock(void)
{
	static u64 now = 1000;

	return now += 7;
}

static struct ramtrail_record out[MAXREC];
static u64 *ref_zones, *ref_saved;
static size_t nr_zones, nr_saved;

/* FNV-1a over what a reader shows of a record (with its position: @pos). */
static u64 record_hash(const struct ramtrail_record *r, bool pos)
{
	u64 h = 0xcbf29ce484222325ULL;
	const u8 *p;
	size_t i;

#define MIX(v) do {							\
		u64 _v = (v);						\
		for (p = (const u8 *)&_v, i = 0; i < 8; i++)		\
			h = (h ^ p[i]) * 0x100000001b3ULL;		\
	} while (0)
	MIX(r->ts);
	MIX(pos ? r->pos : 0);
	MIX(r->cpu | (u64)r->type << 32 | (u64)r->ctx << 40 |
	    (u64)r->flags << 48);
	MIX(r->ip | (u64)r->parent << 32);
	MIX(r->id | (u64)r->len << 16 | (u64)r->task_known << 24);
	for (i = 0; i < r->len; i++)
		h = (h ^ r->data[i]) * 0x100000001b3ULL;
	if (r->task_known)
		for (p = (const u8 *)&r->task, i = 0; i < sizeof(r->task); i++)
			h = (h ^ p[i]) * 0x100000001b3ULL;
#undef MIX
	return h;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* What the last decode of the zones counted. */
static struct ramtrail_zone_stats zone_stats;

static size_t decode_zones(struct test_region *t)
{
	return test_decode(t, out, MAXREC, &zone_stats);
}

static u64 corrected;	/* chunks the last decode of a saved trace corrected */

/* As the module loads it: chunks corrected by their parity, then read. */
static size_t decode_saved(struct test_region *t, u64 off)
{
	static u8 buf[RAMTRAIL_SAVED_CHUNK_MAX];
	static struct ramtrail_saved_cursor c;
	const struct ramtrail_saved_trace *s;
	const struct ramtrail_record *r;
	struct ramtrail_region reg;
	u64 pos = 0;
	size_t n = 0;

	/* The zones' part of the header does not matter here. */
	ramtrail_region_open(&reg, t->mem, t->size);
	if (!reg.base)
		return 0;
	corrected = ramtrail_saved_heal(&reg, NULL);
	while ((s = ramtrail_saved_next(&reg, &pos))) {
		struct ramtrail_saved_check k;

		if (ramtrail_saved_offset(&reg, s) != off)
			continue;
		ramtrail_saved_check((void *)s, buf, &k);
		corrected += k.corrected;
		ramtrail_saved_open(&c, s);
		while ((r = ramtrail_saved_read(&c, c.nr)) && n < MAXREC)
			out[n++] = *r;
	}
	return n;
}

static u64 *hashes(size_t n, bool pos)
{
	u64 *h = malloc((n + 1) * sizeof(*h));
	size_t i;

	for (i = 0; i < n; i++)
		h[i] = record_hash(&out[i], pos);
	qsort(h, n, sizeof(*h), cmp_u64);
	return h;
}

static u64 rnd_state = 88172645463325252ULL;

static u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

struct row {
	const char *where;
	u32 flips;
	u64 trials, bad_trials, wrong, lost, uncounted, wrong_sealed;
	u64 corrected, correctable, correctable_lost;
};

/*
 * The saved trace: where it and its slots start and end in the region,
 * their code.
 */
static u64 head_lo, slots_lo, slots_hi;
static u32 slot_size, slot_ecc;

/* Codeword of byte @rel of a slot of @size, ecc @ecc; ~0 for none. */
static u64 slot_codeword(u32 rel, u32 size, u32 ecc)
{
	u32 data = ramtrail_saved_data_size(size, ecc);
	u32 nr = DIV_ROUND_UP(data, RAMTRAIL_SAVED_ECC_N - ecc);

	if (rel >= data + nr * ecc)
		return ~0ULL;
	return (rel < data ? rel : rel - data) % nr;
}

/*
 * The codeword of the saved trace that region byte @o is in (the format
 * interleaves them): 1 + its slot, times 256, plus its number in the
 * slot; the header's slot is slot -1. ~0 outside every codeword (@erased,
 * which a decode here does not look at, a slot's free tail).
 */
static u64 codeword_of(u64 o)
{
	u64 cw;

	if (o < slots_lo) {
		if (o - head_lo >= offsetof(struct ramtrail_saved_trace, erased) &&
		    o - head_lo < offsetof(struct ramtrail_saved_trace, size))
			return ~0ULL;
		return slot_codeword(o - head_lo, RAMTRAIL_SAVED_HEAD_SLOT,
				     RAMTRAIL_SAVED_HEAD_ECC);
	}
	/* The last slot of a trace that never wrapped is cut. */
	cw = slot_codeword((o - slots_lo) % slot_size,
			   min_t(u64, slot_size, slots_hi - (o - slots_lo) /
			   slot_size * slot_size - slots_lo), slot_ecc);
	return cw == ~0ULL ? cw : ((o - slots_lo) / slot_size + 1) * 256 + cw;
}

/*
 * Do the flipped bytes @at[0..@n) leave the saved trace correctable: at
 * most two of its magic's bytes, at most ecc / 2 bytes in any codeword?
 */
static bool correctable(const u64 *at, u32 n)
{
	u32 i, j, l, m, magic = 0;
	u64 cw;

	for (i = 0; i < n; i++) {
		for (l = 0; l < i && at[l] != at[i]; l++)
			;
		magic += l == i && at[i] - head_lo < 4;
	}
	if (magic > 2)
		return false;
	for (i = 0; i < n; i++) {
		cw = codeword_of(at[i]);
		if (cw == ~0ULL)
			continue;
		for (m = 0, j = 0; j < n; j++) {
			if (codeword_of(at[j]) != cw)
				continue;
			for (l = 0; l < j && at[l] != at[j]; l++)
				;
			m += l == j;	/* a byte counted once */
		}
		if (m > (at[i] < slots_lo ? RAMTRAIL_SAVED_HEAD_ECC : slot_ecc) / 2)
			return false;
	}
	return true;
}

/* Block numbers each zone's writer had sealed up to (a power cut's). */
static unsigned long sealed[CPUS];

/* What the last decode of the zones counted as dropped. */
static u64 zones_counted(void)
{
	const struct ramtrail_zone_stats *st = &zone_stats;

	return st->corrupt_blocks + st->torn + st->lost_words + st->no_base +
	       st->lost_refs;
}

/* Damaged chunks of the saved trace at @off, ~0 if it is not found. */
static u64 saved_counted(struct test_region *t, u64 off)
{
	const struct ramtrail_saved_trace *s;
	struct ramtrail_region reg;
	u64 pos = 0, records;

	ramtrail_region_open(&reg, t->mem, t->size);
	if (!reg.base)
		return ~0ULL;
	while ((s = ramtrail_saved_next(&reg, &pos)))
		if (ramtrail_saved_offset(&reg, s) == off)
			return ramtrail_saved_damage(s, &records);
	return ~0ULL;
}

/*
 * @trials runs of @flips bits flipped in [@lo, @hi) of the region. A
 * wrong record of a zone is also told apart by where it is: in a block
 * its writer had sealed, or in one of the newest, not sealed yet.
 */
static void run(struct test_region *t, const u8 *clean, struct row *row,
		u64 lo, u64 hi, bool zones, u64 saved_off)
{
	const u64 *ref = zones ? ref_zones : ref_saved;
	size_t nref = zones ? nr_zones : nr_saved, n, i, found;
	u64 k, h, wrong, at[64];
	bool fixable;
	u32 f;

	for (k = 0; k < row->trials; k++) {
		memcpy(t->mem, clean, t->size);
		for (f = 0; f < row->flips; f++) {
			u64 bit = lo * 8 + rnd() % ((hi - lo) * 8);

			t->mem[bit / 8] ^= 1 << (bit % 8);
			at[f] = bit / 8;
		}
		fixable = !zones && correctable(at, row->flips);
		n = zones ? decode_zones(t) : decode_saved(t, saved_off);
		wrong = 0;
		found = 0;
		for (i = 0; i < n && i < MAXREC; i++) {
			h = record_hash(&out[i], zones);
			if (bsearch(&h, ref, nref, sizeof(*ref), cmp_u64)) {
				found++;
				continue;
			}
			wrong++;
			row->wrong_sealed += !zones ||
				out[i].pos >> RAMTRAIL_BLOCK_SHIFT <
				sealed[out[i].cpu];
		}
		row->wrong += wrong;
		row->bad_trials += wrong > 0;
		row->lost += nref > found ? nref - found : 0;
		if (!zones) {
			row->corrected += corrected;
			row->correctable += fixable;
			row->correctable_lost += fixable && nref > found;
		}
		/* A record changed where nothing is sealed is not seen. */
		if (nref > found && !wrong)
			row->uncounted += zones ? !zones_counted() :
					  !saved_counted(t, saved_off);
	}
}

static u32 passed, failed;

static void check(bool ok, const char *what, const struct row *r)
{
	printf("%s %s, %s %u flips: %llu\n", ok ? "ok  " : "FAIL", what,
	       r->where, r->flips,
	       (unsigned long long)(strstr(what, "wrong") ? r->wrong_sealed :
				    strstr(what, "reach") ? r->correctable_lost :
				    r->uncounted));
	if (ok)
		passed++;
	else
		failed++;
}

int main(int argc, char **argv)
{
	bool assert = argc > 1 && !strcmp(argv[1], "--check");
	u64 trials = argc > 1 + assert ? strtoull(argv[1 + assert], NULL, 0) :
					 2000;
	struct test_region *t = test_region_new_saved(CPUS, BLOCKS, 0,
						      SAVED_SIZE);
	u32 data[4] = { 0x64636261, 0x68676665, 0x6c6b6a69, 0x706f6e6d };
	static const char *const where[] = { "stopped", "cut", "saved" };
	static const u32 flips[] = { 0, 1, 4, 64 };
	struct row rows[12];
	struct ramtrail_saved_trace *s;
	u64 zlo, zhi, slo, shi, soff = 0;
	u8 *stopped, *cut;
	u32 i, cpu;

	/* Three laps of each zone: every kind, context and flag, tasks. */
	for (i = 0; i < 3 * CPUS * BLOCKS * 400; i++) {
		struct ramtrail_ring *r = &t->ring[i % CPUS];

		ramtrail_user_env.task = 10 + (i / 40) % 5;
		ramtrail_user_env.ctx = (i / 3) % 4;
		ramtrail_user_env.flags = i % 5 ? 0 : RAMTRAIL_EF_IRQS_OFF;
		if (i % 3 == 0)
			ramtrail_ring_func(r, 0x1000 + i % 977, 0);
		else if (i % 3 == 1)
			ramtrail_ring_func(r, 0x1000 + i % 977, 0x2000 + i % 31);
		else
			ramtrail_ring_event(r, RAMTRAIL_EV_USER + i % 7, data,
					    i % 17);
	}
	nr_zones = decode_zones(t);
	ref_zones = hashes(nr_zones, true);
	/* A power cut: recording, nothing sealed past the writers' own. */
	cut = malloc(t->size);
	memcpy(cut, t->mem, t->size);
	for (cpu = 0; cpu < CPUS; cpu++)
		sealed[cpu] = t->ring[cpu].sealed;
	test_region_stop(t, RAMTRAIL_FREEZE_NONE, RAMTRAIL_STATE_STOPPED, true);
	s = test_save_zones(t, soff, 1, 0, 0);
	if (!s || decode_zones(t) != nr_zones) {
		fprintf(stderr, "bitflip: %s\n",
			"nothing saved, or sealing changed the zones");
		return 1;
	}
	nr_saved = decode_saved(t, soff);
	ref_saved = hashes(nr_saved, false);
	zlo = t->hdr->zone_offset;
	zhi = zlo + ramtrail_zones_size(t->hdr);
	slo = t->hdr->saved_offset + soff;
	shi = slo + s->size;
	head_lo = slo;
	slots_lo = slo + ramtrail_saved_fixed(s->modtab_count);
	slots_hi = slo + s->size;
	slot_size = s->chunk_size;
	slot_ecc = s->ecc;
	stopped = malloc(t->size);
	memcpy(stopped, t->mem, t->size);
	/* The cut image has the same saved trace; its zones are not sealed. */
	memcpy(cut + slo, stopped + slo, shi - slo);

	printf("bit flips in a region of the real writer and saver:\n");
	printf("%u CPUs, zones of %u blocks (%llu records decoded),\n", CPUS,
	       BLOCKS, (unsigned long long)nr_zones);
	printf("a saved trace of %llu bytes in %u chunks (%zu records),\n",
	       (unsigned long long)s->size, s->nr_slots, nr_saved);
	printf("%u parity bytes a codeword\n", s->ecc);
	printf("zones stopped: every block sealed; cut: a power cut's, %s\n",
	       "the newest blocks not sealed");
	printf("%-8s %5s %7s %10s %7s %12s %9s %9s\n", "where", "flips",
	       "trials", "bad trials", "wrong", "(sealed)", "lost",
	       "uncounted");
	/* 0 flips first: the control, nothing wrong or lost. */
	for (i = 0; i < 12; i++) {
		struct row *r = &rows[i];

		*r = (struct row){ .where = where[i / 4], .flips = flips[i % 4],
				   .trials = i % 4 ? trials : 10 };
		if (i < 4)
			run(t, stopped, r, zlo, zhi, true, 0);
		else if (i < 8)
			run(t, cut, r, zlo, zhi, true, 0);
		else
			run(t, stopped, r, slo, shi, false, soff);
		printf("%-8s %5u %7llu %10llu %7llu %12llu %9llu %9llu\n",
		       r->where, r->flips, (unsigned long long)r->trials,
		       (unsigned long long)r->bad_trials,
		       (unsigned long long)r->wrong,
		       (unsigned long long)r->wrong_sealed,
		       (unsigned long long)r->lost,
		       (unsigned long long)r->uncounted);
	}
	printf("bad trials: trials that returned a record never written\n");
	printf("wrong: such records, (sealed): those of sealed blocks or the saved trace\n");
	printf("lost: records written and not returned (sums over the trials)\n");
	printf("uncounted: trials that lost records, %s\n",
	       "returned none changed, and counted none");
	printf("\nsaved trace: trials within its parity's reach (at most 2 of its magic's\n");
	printf("bytes wrong, at most %u in a codeword), and those that lost records\n",
	       slot_ecc / 2);
	printf("%5s %7s %11s %10s %21s\n", "flips", "trials", "in reach", "lost",
	       "headers+chunks fixed");
	for (i = 8; i < 12; i++)
		printf("%5u %7llu %11llu %10llu %21llu\n", rows[i].flips,
		       (unsigned long long)rows[i].trials,
		       (unsigned long long)rows[i].correctable,
		       (unsigned long long)rows[i].correctable_lost,
		       (unsigned long long)rows[i].corrected);
	if (assert) {
		for (i = 8; i < 12; i++)
			check(!rows[i].correctable_lost,
			      "every trial in the parity's reach reads back whole",
			      &rows[i]);
		for (i = 0; i < 12; i++) {
			check(!rows[i].wrong_sealed,
			      "no wrong record from a sealed block or the saved trace",
			      &rows[i]);
			check(!rows[i].uncounted, "every loss counted", &rows[i]);
		}
		printf("%u passed, %u failed\n", passed, failed);
	}
	free(stopped);
	free(cut);
	test_region_free(t);
	return assert && failed;
}
