// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the decoder. The input is a region image. It is
 * decoded three ways: as it is (header checks, checksums included); with
 * its checksums repaired, so that mutations reach the fields, zones, saved
 * traces and dmesg records behind a valid header; and as one bare zone.
 * The userspace build traps where the kernel would (a divide error), so a
 * header that would oops the module is a finding here. The decoder must never read out of bounds,
 * loop forever or return records out of order; a saved trace must read
 * the same whole and part by part; the module's save of the zones must
 * read back as the records it says it kept, in order. The saved traces'
 * checksums and their chunks' are repaired too, so that mutations reach
 * the entries.
 */
#include <stdlib.h>
#include "chunk.h"

/*
 * A saved trace's chunks, read whole and part by part as pstore does: the
 * parts together return the same records, each within the trace's CPUs
 * and its bytes.
 */
static void drain_saved(const struct ramtrail_saved_trace *t)
{
	static struct ramtrail_saved_cursor whole, part;
	const struct ramtrail_record *r;
	u64 p, n = 0, m = 0;

	ramtrail_saved_open(&whole, t);
	while ((r = ramtrail_saved_read(&whole, whole.nr))) {
		if (r->cpu >= t->nr_cpus || whole.next > t->nr_slots ||
		    r->pos >= t->size)
			abort();
		n++;
	}
	ramtrail_saved_open(&part, t);
	for (p = 0; p < ramtrail_saved_parts(t); p++) {
		/* A mount's bound reads the part's chunk headers only. */
		if (ramtrail_saved_part_records(t, p) >
		    RAMTRAIL_SAVED_PART_CHUNKS * RAMTRAIL_SAVED_CHUNK_ENTRIES)
			abort();
		while (ramtrail_saved_read(&part, ramtrail_saved_part_end(t, p)))
			m++;
	}
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
		if (t->size > h->saved_size)
			abort();
		(void)ramtrail_saved_all_erased(t);
		drain_saved(t);
		(void)ramtrail_module_find(ramtrail_saved_modules(t),
					   t->modtab_count, t->text_base + 0x10,
					   t->nonce, NULL);
	}
	for (i = 0; i < h->dmesg_count + 1; i++) {
		const struct ramtrail_dmesg_header *d = ramtrail_dmesg_at(reg, i);

		if (d && (u8 *)(d + 1) + d->len > reg->base + h->region_size)
			abort();
	}
	(void)ramtrail_module_find((const void *)(reg->base + h->modtab_offset),
				   h->modtab_count, 0xffffffffc0001000ULL,
				   h->clock_ref_cycles, NULL);
}

/*
 * The module's save of the zones into a third of their size, in small
 * chunks so that the ring wraps: it must read back as the records it says
 * it kept, in time order, with nothing damaged.
 */
static void save_and_read(const struct ramtrail_region *reg,
			  struct ramtrail_zone_cursor *cur,
			  struct ramtrail_merge_slot *heap)
{
	static struct ramtrail_saved_task task[RAMTRAIL_MAX_CPUS];
	static struct ramtrail_saved_name hash[RAMTRAIL_SAVED_HASH];
	static u8 buf[RAMTRAIL_SAVED_BUF(RAMTRAIL_SAVED_CHUNK_MAX)];
	static struct ramtrail_saved_writer w;
	static struct ramtrail_saved_cursor c;
	u64 room = ramtrail_zones_size(&reg->hdr) / 3 + 4096, last = 0;
	struct ramtrail_saved_trace *t = calloc(1, room);
	u32 chunk = RAMTRAIL_SAVED_CHUNK_MIN + 8 * (reg->hdr.nonce % 64);

	memset(hash, 0, sizeof(hash));
	w = (struct ramtrail_saved_writer) {
		.task = task, .hash = hash, .buf = buf,
		.nr_cpus = reg->hdr.nr_cpus,
	};
	ramtrail_saved_writer_start(&w, ramtrail_saved_slots(t), chunk,
				    ramtrail_saved_slots_for(room - sizeof(*t),
							     chunk),
				    reg->hdr.nonce % (RAMTRAIL_SAVED_ECC_MAX + 1),
				    reg->hdr.boot_id, reg->hdr.nonce);
	ramtrail_saved_merge(reg, cur, heap, &w);
	if (w.nr_chunks) {
		ramtrail_saved_set_chunks(t, &w);
		t->boot_id = reg->hdr.boot_id;
		t->nonce = reg->hdr.nonce;
		t->nr_cpus = reg->hdr.nr_cpus;
		ramtrail_saved_open(&c, t);
		while (ramtrail_saved_read(&c, c.nr)) {
			if (c.rec.ts < last)
				abort();
			last = c.rec.ts;
		}
		if (c.records != t->nr_records || c.bad || t->size > room)
			abort();
	}
	free(t);
}

/* Seal every saved trace of @reg's area and its chunks again. */
static void repair_saved(struct ramtrail_region *reg)
{
	u8 *area = (u8 *)reg->base + reg->hdr.saved_offset;
	struct ramtrail_saved_trace *t;
	const struct ramtrail_saved_trace *v;
	struct ramtrail_saved_chunk *k;
	u64 off, i, pos;

	for (off = 0; off + sizeof(*t) <= reg->hdr.saved_size; off += 8) {
		t = (void *)(area + off);
		if (t->magic != RAMTRAIL_SAVED_MAGIC)
			continue;
		t->checksum = ramtrail_saved_checksum(t);
	}
	ramtrail_saved_scan(reg);
	for (pos = 0; (v = ramtrail_saved_next(reg, &pos));) {
		t = (void *)v;
		for (i = 0; i < t->nr_slots; i++) {
			u64 at = i * t->chunk_size;
			u64 end = t->size - ramtrail_saved_fixed(t->modtab_count);

			k = (void *)(ramtrail_saved_slots(t) + at);
			if (at + sizeof(*k) > end ||
			    k->len > end - at - sizeof(*k))
				continue;
			k->checksum = ramtrail_saved_chunk_checksum(k, t->boot_id,
								    t->nonce);
		}
	}
}

/* Correct the saved traces' headers and chunks, as a load does. */
static void correct_saved(struct ramtrail_region *reg)
{
	static u8 buf[RAMTRAIL_SAVED_CHUNK_MAX];
	const struct ramtrail_saved_trace *t;
	struct ramtrail_saved_check c;
	u64 pos = 0;

	if (!reg->base)
		return;
	ramtrail_saved_heal(reg, NULL);
	while ((t = ramtrail_saved_next(reg, &pos)))
		ramtrail_saved_check((void *)t, buf, &c);
}

static void drain(const struct ramtrail_region *reg, int err)
{
	struct ramtrail_zone_cursor *cur;
	const struct ramtrail_record *r;
	struct ramtrail_merge_slot heap[RAMTRAIL_MAX_CPUS];
	struct ramtrail_merge m;
	u64 last = 0, n = 0, counted = 0;
	u32 cpu;

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
		n++;
		(void)ramtrail_ts_to_ns(&reg->hdr, r->ts);
	}
	/* The zones' counts are of the records returned. */
	for (cpu = 0; cpu < reg->hdr.nr_cpus; cpu++)
		counted += cur[cpu].stats.records;
	if (counted != n)
		abort();
	save_and_read(reg, cur, heap);
	free(cur);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct ramtrail_region_header *h;
	struct ramtrail_zone_cursor c;
	struct ramtrail_region reg;
	int err;
	u8 *buf;

	/* Aligned like a mapped region, and sized exactly to the input. */
	buf = aligned_alloc(64, (size + 63) & ~(size_t)63);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	err = ramtrail_region_open(&reg, buf, size);
	correct_saved(&reg);
	drain(&reg, err);
	if (size >= sizeof(*h)) {
		/* Checksums repaired: mutations reach what they protect. */
		h = (struct ramtrail_region_header *)buf;
		h->layout_checksum = ramtrail_layout_checksum(h);
		h->checksum = ramtrail_header_checksum(h);
		h->freeze.checksum = ramtrail_freeze_checksum(&h->freeze);
		if (ramtrail_region_open(&reg, buf, size), reg.base)
			repair_saved(&reg);
		err = ramtrail_region_open(&reg, buf, size);
		correct_saved(&reg);
		drain(&reg, err);
	}
	if (size >= RAMTRAIL_MIN_BLOCKS * RAMTRAIL_BLOCK_SIZE) {
		struct ramtrail_tail t = {
			.zone = (const __le64 *)buf,
			.nr_blocks = size / RAMTRAIL_BLOCK_SIZE,
			.end_ts = ~0ULL,
		};
		u32 n = 0;

		ramtrail_zone_open_raw(&c, t.zone, t.nr_blocks, 0);
		while (ramtrail_zone_next(&c))
			n++;
		if (n != c.stats.records)
			abort();
		n = 0;
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
