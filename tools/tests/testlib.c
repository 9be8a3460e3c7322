// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include "testlib.h"

__thread struct test_wc test_wc;

void test_wc_flush(void)
{
	unsigned int i;

	for (i = 0; i < test_wc.n; i++)
		WRITE_ONCE(*test_wc.w[i], cpu_to_le64(test_wc.v[i]));
	test_wc.n = 0;
}

bool test_store_held(void *w, u64 v)
{
	if (!test_wc.hold)
		return false;
	if (test_wc.n == ARRAY_SIZE(test_wc.w) ||
	    (test_wc.max && test_wc.n == test_wc.max))
		test_wc_flush();
	test_wc.w[test_wc.n] = w;
	test_wc.v[test_wc.n++] = v;
	return true;
}

void test_wc_drain(void)
{
	test_wc.drains++;
	test_wc_flush();
}

struct test_region *test_region_new(u32 nr_cpus, u32 blocks, u32 ring_flags)
{
	return test_region_new_saved(nr_cpus, blocks, ring_flags,
				     2 * RAMTRAIL_HEADER_SIZE);
}

struct test_region *test_region_new_saved(u32 nr_cpus, u32 blocks,
					  u32 ring_flags, u64 saved_size)
{
	struct ramtrail_region_header h;
	/*
	 * The rings' cache-line alignment, as alloc_percpu() keeps it:
	 * calloc() would let one thread's ring share a line with another's.
	 */
	struct test_region *t = aligned_alloc(__alignof__(*t), sizeof(*t));
	u64 size = 3 * RAMTRAIL_HEADER_SIZE + saved_size +
		   (u64)nr_cpus * blocks * RAMTRAIL_BLOCK_SIZE;
	u32 cpu;

	if (!t || ramtrail_layout(&h, size, nr_cpus, 1, 1024,
				  saved_size, 16)) {
		fprintf(stderr, "%s: bad geometry\n", __func__);
		exit(2);
	}
	memset(t, 0, sizeof(*t));
	t->size = size;
	t->mem = aligned_alloc(RAMTRAIL_BLOCK_SIZE, size);
	t->pairs = calloc((size_t)nr_cpus * RAMTRAIL_PAIRS, sizeof(*t->pairs));
	if (!t->mem || !t->pairs)
		exit(2);
	memset(t->mem, 0, size);
	h.state = RAMTRAIL_STATE_RECORDING;
	h.nonce = 0x1234abcd5678ef90ULL;
	h.boot_id = 1;
	h.machine = RAMTRAIL_MACHINE_X86_64;
	h.text_base = TEST_TEXT_BASE;
	h.clock_hz = 1000000000ULL;
	if (ring_flags & RAMTRAIL_RING_STOP_WHEN_FULL)
		h.flags |= RAMTRAIL_F_STOP_WHEN_FULL;
	t->hdr = (struct ramtrail_region_header *)t->mem;
	*t->hdr = h;
	test_region_seal(t);
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		ramtrail_ring_init(&t->ring[cpu], (__le64 *)test_zone(t, cpu),
				   t->hdr->nr_blocks, ring_flags);
		t->ring[cpu].pairs = t->pairs + (size_t)cpu * RAMTRAIL_PAIRS;
	}
	return t;
}

void test_region_free(struct test_region *t)
{
	free(t->pairs);
	free(t->mem);
	free(t);
}

void test_region_seal(struct test_region *t)
{
	t->hdr->layout_checksum = ramtrail_layout_checksum(t->hdr);
	t->hdr->checksum = ramtrail_header_checksum(t->hdr);
}

void test_region_stop(struct test_region *t, u32 reason, u32 state,
		      bool seal)
{
	struct ramtrail_freeze_info *f = &t->hdr->freeze;
	u32 cpu;

	memset(f, 0, sizeof(*f));
	for (cpu = 0; cpu < t->hdr->nr_cpus; cpu++) {
		t->ring[cpu].stopped = RAMTRAIL_RING_PAUSED;
		f->zone[cpu].freeze_pos = local_read(&t->ring[cpu].pos);
		f->zone[cpu].dropped = local_read(&t->ring[cpu].dropped);
		if (!seal)
			continue;
		ramtrail_ring_seal_tail(&t->ring[cpu], f->zone[cpu].freeze_pos);
		f->sealed[cpu / 64] |= 1ULL << (cpu % 64);
	}
	f->reason = reason;
	f->boot_id = t->hdr->boot_id;
	f->nr_zones = t->hdr->nr_cpus;
	f->clock_flags = RAMTRAIL_F_CLOCK_RELIABLE;
	f->checksum = ramtrail_freeze_checksum(f);
	t->hdr->state = state;
}

static struct ramtrail_saved_task test_task[RAMTRAIL_MAX_CPUS];
static struct ramtrail_saved_name test_hash[RAMTRAIL_SAVED_HASH];
static u8 test_buf[RAMTRAIL_SAVED_BUF(RAMTRAIL_SAVED_CHUNK_MAX)];
u32 test_ecc = TEST_ECC;

struct ramtrail_saved_writer *test_writer_start(struct test_region *t,
						struct ramtrail_saved_trace *s,
						u64 room, u32 chunk_size)
{
	static struct ramtrail_saved_writer w;
	u64 rest = (u8 *)t->mem + t->hdr->saved_offset + t->hdr->saved_size -
		   (u8 *)s;

	if (!room || room > rest)
		room = rest;
	memset(s, 0, RAMTRAIL_SAVED_HEAD_SLOT);
	memset(test_hash, 0, sizeof(test_hash));
	room -= ramtrail_saved_fixed(0);
	if (!chunk_size)
		chunk_size = ramtrail_saved_chunk_for(room);
	w = (struct ramtrail_saved_writer) {
		.task = test_task, .hash = test_hash, .buf = test_buf,
		.nr_cpus = RAMTRAIL_MAX_CPUS,
	};
	ramtrail_saved_writer_start(&w, ramtrail_saved_slots(s), chunk_size,
				    ramtrail_saved_slots_for(room, chunk_size),
				    test_ecc, t->hdr->boot_id, t->hdr->nonce);
	return &w;
}

void test_writer_seal(struct ramtrail_saved_trace *s,
		      struct ramtrail_saved_writer *w, u32 nr_cpus)
{
	ramtrail_saved_finish(w);
	ramtrail_saved_set_chunks(s, w);
	s->boot_id = w->boot_id;
	s->nonce = w->nonce;
	s->nr_cpus = nr_cpus;
	s->text_base = TEST_TEXT_BASE;
	s->magic = RAMTRAIL_SAVED_MAGIC;
	ramtrail_saved_sign(s, &w->enc);
}

struct ramtrail_saved_trace *test_add_saved(struct test_region *t, u64 off,
					    u64 boot_id, u32 nr_records)
{
	struct ramtrail_saved_trace *s = (void *)(t->mem +
						  t->hdr->saved_offset + off);
	struct ramtrail_record r = { .type = RAMTRAIL_W_FUNC };
	struct ramtrail_saved_writer *w;
	u32 i;

	w = test_writer_start(t, s, 0, RAMTRAIL_SAVED_CHUNK_MIN);
	w->boot_id = boot_id;
	for (i = 0; i < nr_records; i++) {
		r.ip = 0x1000 + i;
		ramtrail_saved_add(w, &r, i + 1);
	}
	test_writer_seal(s, w, 1);
	return s;
}

struct ramtrail_dmesg_header *test_add_dmesg(struct test_region *t,
					     const char *text)
{
	struct ramtrail_dmesg_header *d = (void *)(t->mem +
						   t->hdr->dmesg_offset);

	memset(d, 0, sizeof(*d));
	d->len = strlen(text);
	d->boot_id = 1;
	memcpy(d + 1, text, d->len);
	d->checksum = ramtrail_dmesg_checksum(d);
	d->magic = RAMTRAIL_DMESG_MAGIC;
	return d;
}

u64 *test_zone(struct test_region *t, u32 cpu)
{
	return (u64 *)(t->mem + ramtrail_zone_offset(t->hdr, cpu));
}

size_t test_decode(const struct test_region *t, struct ramtrail_record *out,
		   size_t max, struct ramtrail_zone_stats *sum)
{
	struct ramtrail_zone_cursor *cur;
	const struct ramtrail_record *r;
	struct ramtrail_region reg;
	struct ramtrail_merge m;
	struct ramtrail_merge_slot heap[RAMTRAIL_MAX_CPUS];
	size_t n = 0;

	if (sum)
		memset(sum, 0, sizeof(*sum));
	if (ramtrail_region_open(&reg, t->mem, t->size))
		return 0;
	cur = calloc(reg.hdr.nr_cpus, sizeof(*cur));
	ramtrail_merge_init(&m, &reg, cur, heap);
	while ((r = ramtrail_merge_next(&m))) {
		if (n < max)
			out[n] = *r;
		n++;
	}
	if (sum)
		ramtrail_zone_stats_sum(sum, cur, reg.hdr.nr_cpus);
	free(cur);
	return n;
}

struct ramtrail_saved_trace *test_save_zones(struct test_region *t, u64 off,
					     u64 boot_id, u64 room,
					     u32 chunk_size)
{
	struct ramtrail_zone_cursor *cur;
	struct ramtrail_merge_slot heap[RAMTRAIL_MAX_CPUS];
	struct ramtrail_saved_trace *s = (void *)(t->mem +
						  t->hdr->saved_offset + off);
	struct ramtrail_saved_writer *w;
	struct ramtrail_region reg;

	if (ramtrail_region_open(&reg, t->mem, t->size))
		return NULL;
	cur = calloc(reg.hdr.nr_cpus, sizeof(*cur));
	w = test_writer_start(t, s, room, chunk_size);
	w->boot_id = boot_id;
	w->nr_cpus = reg.hdr.nr_cpus;
	ramtrail_saved_merge(&reg, cur, heap, w);
	free(cur);
	if (!w->nr_chunks)
		return NULL;
	test_writer_seal(s, w, reg.hdr.nr_cpus);
	s->text_base = reg.hdr.text_base;
	ramtrail_saved_sign(s, &w->enc);
	return s;
}
