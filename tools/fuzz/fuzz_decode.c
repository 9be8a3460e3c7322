// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the decoder. The input is a region image. It is
 * decoded three ways: as it is (header checks, checksums included); with
 * its checksums repaired, so that mutations reach the fields, zones, saved
 * traces and dmesg records behind a valid header; and as one bare zone.
 * The userspace build traps where the kernel would (a divide error), so a
 * header that would oops the module is a finding here. The decoder must never read out of bounds,
 * loop forever or return records out of order; a saved trace's units must
 * read the same whole and part by part; the module's save of the zones
 * must write the same units from the count's marks as from the start.
 */
#include <stdlib.h>
#include "recover.h"

/*
 * A saved trace's units, read whole and part by part as pstore does: the
 * parts together return the same records, each within the trace's CPUs.
 */
static void drain_saved(const struct ramtrail_saved_trace *t)
{
	static struct ramtrail_saved_cursor whole, part;
	const struct ramtrail_record *r;
	u64 p, n = 0, m = 0;

	ramtrail_saved_open(&whole, t);
	while ((r = ramtrail_saved_read(&whole, whole.nr))) {
		if (r->cpu >= t->nr_cpus || whole.next > t->nr_records)
			abort();
		n++;
	}
	ramtrail_saved_open(&part, t);
	for (p = 0; p < ramtrail_saved_parts(t); p++)
		while (ramtrail_saved_read(&part, ramtrail_saved_part_end(t, p)))
			m++;
	if (m != n || part.bad != whole.bad || part.tasks != whole.tasks)
		abort();
}

/* What outlives a boot: saved traces, dmesg records, the module table. */
static void drain_areas(const struct ramtrail_region *reg)
{
	const struct ramtrail_region_header *h = &reg->hdr;
	const struct ramtrail_saved_trace *t;
	u64 off = 0;
	u32 i;

	while ((t = ramtrail_saved_next(reg, &off))) {
		if (t->nr_records * sizeof(struct ramtrail_saved_record) >
		    h->saved_size)
			abort();
		(void)ramtrail_saved_all_erased(t);
		drain_saved(t);
		(void)ramtrail_module_find(ramtrail_saved_modules(t),
					   t->modtab_count, t->text_base + 0x10);
	}
	for (i = 0; i < h->dmesg_count + 1; i++) {
		const struct ramtrail_dmesg_header *d = ramtrail_dmesg_at(reg, i);

		if (d && (u8 *)(d + 1) + d->len > reg->base + h->region_size)
			abort();
	}
	(void)ramtrail_module_find((const void *)(reg->base + h->modtab_offset),
				   h->modtab_count, 0xffffffffc0001000ULL);
}

/*
 * The module's save of the zones, a third of them fitting: read from the
 * count's marks, it must write what it writes reading from the start.
 */
static void save_both_ways(const struct ramtrail_region *reg,
			   struct ramtrail_zone_cursor *cur,
			   struct ramtrail_merge_slot *heap)
{
	static struct ramtrail_saved_task task[RAMTRAIL_MAX_CPUS];
	u32 nr = reg->hdr.nr_cpus, k;
	struct ramtrail_saved_marks *marks = calloc(nr, sizeof(*marks));
	struct ramtrail_saved_writer w[2] = {
		{ .task = task, .nr_cpus = nr }, { .task = task, .nr_cpus = nr }
	};
	u64 n, room;

	ramtrail_saved_count_zones(reg, cur, &w[0], marks);
	n = w[0].units;
	room = n / 3 + 1;
	for (k = 0; k < 2; k++) {
		ramtrail_saved_writer_start(&w[k], calloc(room, sizeof(*w[k].unit)),
					    room, n);
		ramtrail_saved_merge(reg, cur, heap, &w[k], k ? marks : NULL);
	}
	if (w[0].units != w[1].units || w[0].skipped != w[1].skipped ||
	    w[0].records != w[1].records ||
	    memcmp(w[0].unit, w[1].unit, w[0].units * sizeof(*w[0].unit)))
		abort();
	free(w[0].unit);
	free(w[1].unit);
	free(marks);
}

static void drain(const struct ramtrail_region *reg, int err)
{
	struct ramtrail_zone_cursor *cur;
	const struct ramtrail_record *r;
	struct ramtrail_merge_slot heap[RAMTRAIL_MAX_CPUS];
	struct ramtrail_merge m;
	u64 last = 0;

	if (!reg->base)
		return;
	drain_areas(reg);
	if (err)
		return;
	(void)ramtrail_region_freeze(reg);
	(void)ramtrail_ts_to_ns(&reg->hdr, 0);
	(void)ramtrail_ts_to_ns(&reg->hdr, RAMTRAIL_CLOCK_MASK);
	cur = calloc(reg->hdr.nr_cpus, sizeof(*cur));
	ramtrail_merge_init(&m, reg, cur, heap);
	while ((r = ramtrail_merge_next(&m))) {
		if (r->ts < last || r->cpu >= reg->hdr.nr_cpus)
			abort();
		last = r->ts;
		(void)ramtrail_ts_to_ns(&reg->hdr, r->ts);
	}
	save_both_ways(reg, cur, heap);
	free(cur);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct ramtrail_region_header *h;
	struct ramtrail_zone_cursor c;
	struct ramtrail_region reg;
	u8 *buf;

	/* Aligned like a mapped region, and sized exactly to the input. */
	buf = aligned_alloc(64, (size + 63) & ~(size_t)63);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	drain(&reg, ramtrail_region_open(&reg, buf, size));
	if (size >= sizeof(*h)) {
		/* Checksums repaired: mutations reach what they protect. */
		h = (struct ramtrail_region_header *)buf;
		h->layout_checksum = ramtrail_layout_checksum(h);
		h->checksum = ramtrail_header_checksum(h);
		h->freeze.checksum = ramtrail_freeze_checksum(&h->freeze);
		drain(&reg, ramtrail_region_open(&reg, buf, size));
	}
	if (size >= RAMTRAIL_MIN_BLOCKS * RAMTRAIL_BLOCK_SIZE) {
		struct ramtrail_tail t = {
			.zone = (const u64 *)buf,
			.nr_blocks = size / RAMTRAIL_BLOCK_SIZE,
			.end_ts = ~0ULL,
		};
		u32 n = 0;

		ramtrail_zone_open_raw(&c, t.zone, t.nr_blocks, 0);
		while (ramtrail_zone_next(&c))
			;
		/* A dump's tail, the writer's position taken from the input. */
		memcpy(&t.end, data, sizeof(t.end));
		ramtrail_tail_find(&t, &c, 1 + data[8] % 64);
		ramtrail_tail_open(&t, &c, false);
		while (ramtrail_zone_next(&c))
			n++;
		if (n != t.records || t.records > 1 + data[8] % 64)
			abort();
	}
	free(buf);
	return 0;
}
