// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of fs/ramtrail/saved.c, chunk_write.c, chunk_read.c and ecc.c: the
 * saved area and its chunks: placement, read back, parity.
 */
#include "test_decode.h"

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

/*
 * The writer's table holds offsets and pairs together: a pair whose
 * function is at offset 2^31 (panic(), from the text base panic() less
 * 2 GiB) and whose caller's offset the chunk holds already is a pair of
 * its own, never that offset's entry.
 */
static void test_saved_pair_at_2_gib_is_not_an_offset(void)
{
	struct test_region *t = test_region_new_saved(1, 8, 0, 256 * 1024);
	static const u32 rec[][2] = {
		{ 0x7f000010, 0x7f000020 },	/* offsets 0x7f000010, 0x...20 */
		{ 0x7f000020, 0x7f000030 },
		{ 0x80000000, 0x7f000020 },	/* panic <- an offset named */
		{ 0x80000000, 0x7f000030 },
		{ 0x7f000020, 0x7f000030 },	/* a pair named again */
	};
	struct ramtrail_saved_trace *s;
	size_t n, m, i;

	for (i = 0; i < ARRAY_SIZE(rec); i++)
		ramtrail_ring_func(&t->ring[0], rec[i][0], rec[i][1]);
	n = test_decode(t, out, MAXREC, &st);
	s = test_save_zones(t, 0, 1, 0, 0);
	m = s ? read_saved(s) : 0;
	for (i = 0; i < m && i < n; i++)
		if (!same_record(t, &out[i], &saved_out[i]))
			break;
	CHECK(n == ARRAY_SIZE(rec) && m == n && i == n,
	      "zones %zu saved %zu, record %zu: %x <- %x", n, m, i,
	      i < m ? saved_out[i].ip : 0, i < m ? saved_out[i].parent : 0);
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

/* "boot:first+files ..." of the saved traces, as pstore numbers them. */
static void saved_names(const struct test_region *t, char *buf, size_t len)
{
	struct ramtrail_saved_walk w = { 0 };
	const struct ramtrail_saved_trace *s;
	struct ramtrail_region reg;
	size_t n = 0;

	buf[0] = 0;
	ramtrail_region_open(&reg, t->mem, t->size);
	while ((s = ramtrail_saved_walk(&reg, &w)) && n < len)
		n += snprintf(buf + n, len - n, "%s%llu:%llu+%llu", n ? " " : "",
			      (unsigned long long)s->boot_id,
			      (unsigned long long)w.first,
			      (unsigned long long)(w.next - w.first));
}

/*
 * A trace of more parts than a boot has names is shown as its newest
 * RAMTRAIL_IDS_PER_BOOT: its files never take the next boot's names, so
 * the next boot's trace is named alike whether it is still there or not.
 */
static void test_saved_trace_files_stay_within_their_boot(void)
{
	u64 slots = (RAMTRAIL_IDS_PER_BOOT + 2) * RAMTRAIL_SAVED_PART_CHUNKS;
	struct test_region *t = test_region_new_saved(1, 4, 0, (slots + 64) *
						      RAMTRAIL_SAVED_CHUNK_MIN);
	struct ramtrail_saved_trace *big = test_add_saved(t, 0, 5, 3);
	char both[128], alone[128];

	big->nr_slots = slots;
	big->nr_chunks = slots;
	big->size = ramtrail_saved_head_size(big) + slots * big->chunk_size;
	big->checksum = ramtrail_saved_checksum(big);
	test_add_saved(t, big->size, 6, 3);
	saved_names(t, both, sizeof(both));
	big->magic = 0;
	saved_names(t, alone, sizeof(alone));
	CHECK(!strcmp(both, "5:4096+1024 6:5120+1") && !strcmp(alone, "6:5120+1"),
	      "named \"%s\", then alone \"%s\"", both, alone);
	big->magic = RAMTRAIL_SAVED_MAGIC;
	CHECK(ramtrail_saved_first_shown(big) == 2 &&
	      ramtrail_saved_part_id(big, 4096, 1) == U64_MAX &&
	      ramtrail_saved_part_id(big, 4096, 2) == 4096 &&
	      ramtrail_saved_part_id(big, 4096, RAMTRAIL_IDS_PER_BOOT + 1) == 5119,
	      "parts 0 and 1 not shown, 2 to 1025 as 4096 to 5119");
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
			       r->ip != 0),
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

void test_saved_all(void)
{
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
	RUN(test_saved_pair_at_2_gib_is_not_an_offset);
	RUN(test_saved_trace_keeps_unknown_tasks);
	RUN(test_saved_task_does_not_cross_chunks);
	RUN(test_saved_trace_that_does_not_fit_keeps_the_newest);
	RUN(test_saved_parts_are_runs_of_chunks);
	RUN(test_saved_skip_passes_parts_unread);
	RUN(test_saved_trace_files_stay_within_their_boot);
	RUN(test_saved_part_records_from_chunk_headers);
	RUN(test_saved_hostile_entries_are_refused_and_counted);
	RUN(test_saved_absurd_entry_is_counted);
}
