// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include "testlib.h"

struct test_region *test_region_new(u32 nr_cpus, u32 blocks, u32 ring_flags)
{
	return test_region_new_saved(nr_cpus, blocks, ring_flags,
				     2 * RAMTRAIL_HEADER_SIZE);
}

struct test_region *test_region_new_saved(u32 nr_cpus, u32 blocks,
					  u32 ring_flags, u64 saved_size)
{
	struct ramtrail_region_header h;
	struct test_region *t = calloc(1, sizeof(*t));
	u64 size = 3 * RAMTRAIL_HEADER_SIZE + saved_size +
		   (u64)nr_cpus * blocks * RAMTRAIL_BLOCK_SIZE;
	u32 cpu;

	if (!t || ramtrail_layout(&h, size, nr_cpus, 1, 1024,
				  saved_size, 16)) {
		fprintf(stderr, "%s: bad geometry\n", __func__);
		exit(2);
	}
	t->size = size;
	t->mem = aligned_alloc(RAMTRAIL_BLOCK_SIZE, size);
	if (!t->mem)
		exit(2);
	memset(t->mem, 0, size);
	h.state = RAMTRAIL_STATE_RECORDING;
	h.nonce = 0x1234abcd5678ef90ULL;
	h.boot_id = 1;
	h.text_base = TEST_TEXT_BASE;
	h.clock_hz = 1000000000ULL;
	if (ring_flags & RAMTRAIL_RING_STOP_WHEN_FULL)
		h.flags |= RAMTRAIL_F_STOP_WHEN_FULL;
	t->hdr = (struct ramtrail_region_header *)t->mem;
	*t->hdr = h;
	test_region_seal(t);
	for (cpu = 0; cpu < nr_cpus; cpu++)
		ramtrail_ring_init(&t->ring[cpu], test_zone(t, cpu),
				   t->hdr->nr_blocks, ring_flags);
	return t;
}

void test_region_free(struct test_region *t)
{
	free(t->mem);
	free(t);
}

void test_region_seal(struct test_region *t)
{
	t->hdr->layout_checksum = ramtrail_layout_checksum(t->hdr);
	t->hdr->checksum = ramtrail_header_checksum(t->hdr);
}

struct ramtrail_saved_trace *test_add_saved(struct test_region *t, u64 off,
					    u64 boot_id, u32 nr_records)
{
	struct ramtrail_saved_trace *s = (void *)(t->mem +
						  t->hdr->saved_offset + off);
	struct ramtrail_saved_record *r;
	u32 i;

	memset(s, 0, sizeof(*s));
	s->boot_id = boot_id;
	s->nr_cpus = 1;
	s->nr_records = nr_records;
	s->size = sizeof(*s) + nr_records * sizeof(*r);
	s->text_base = TEST_TEXT_BASE;
	r = ramtrail_saved_records(s);
	for (i = 0; i < nr_records; i++) {
		r[i].ts_cpu = (u64)(i + 1) << 8;
		r[i].ip = 0x1000 + i;
	}
	s->magic = RAMTRAIL_SAVED_MAGIC;
	s->checksum = ramtrail_saved_checksum(s);
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

u64 test_save_unread;

struct ramtrail_saved_trace *test_save_zones(struct test_region *t, u64 off,
					     u64 boot_id, u64 room)
{
	return test_save_zones_marked(t, off, boot_id, room, true);
}

struct ramtrail_saved_trace *test_save_zones_marked(struct test_region *t,
						    u64 off, u64 boot_id,
						    u64 room, bool marked)
{
	struct ramtrail_saved_task task[RAMTRAIL_MAX_CPUS];
	struct ramtrail_saved_writer w = { .task = task };
	struct ramtrail_saved_marks *marks = NULL;
	struct ramtrail_zone_cursor *cur;
	struct ramtrail_merge_slot heap[RAMTRAIL_MAX_CPUS];
	struct ramtrail_saved_trace *s = (void *)(t->mem +
						  t->hdr->saved_offset + off);
	struct ramtrail_region reg;

	if (ramtrail_region_open(&reg, t->mem, t->size))
		return NULL;
	w.nr_cpus = reg.hdr.nr_cpus;
	cur = calloc(reg.hdr.nr_cpus, sizeof(*cur));
	if (marked)
		marks = calloc(reg.hdr.nr_cpus, sizeof(*marks));
	ramtrail_saved_count_zones(&reg, cur, &w, marks);
	memset(s, 0, sizeof(*s));
	ramtrail_saved_writer_start(&w, ramtrail_saved_records(s),
				    room ? room : (t->hdr->saved_size - off -
						   sizeof(*s)) / sizeof(*w.unit),
				    w.units);
	ramtrail_saved_merge(&reg, cur, heap, &w, marks);
	test_save_unread = w.unread;
	free(marks);
	free(cur);
	s->boot_id = boot_id;
	s->nonce = reg.hdr.nonce;
	s->nr_cpus = reg.hdr.nr_cpus;
	s->nr_records = w.units;
	s->skipped = w.skipped;
	s->size = sizeof(*s) + w.units * sizeof(*w.unit);
	s->text_base = reg.hdr.text_base;
	s->magic = RAMTRAIL_SAVED_MAGIC;
	s->checksum = ramtrail_saved_checksum(s);
	return s;
}
