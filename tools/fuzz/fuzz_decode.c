// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the decoder. The input is a region image. It is
 * decoded three ways: as it is (header checks, checksum included); with its
 * checksum repaired, so that mutations reach the zones behind a valid
 * header; and as one bare zone. The decoder must never read out of bounds,
 * loop forever or return records out of order.
 */
#include <stdlib.h>
#include "recover.h"

static void drain(const struct ramtrail_region *reg)
{
	struct ramtrail_zone_cursor *cur;
	const struct ramtrail_record *r;
	u32 heap[RAMTRAIL_MAX_CPUS];
	const struct ramtrail_saved_trace *t;
	struct ramtrail_merge m;
	u64 last = 0, off = 0;

	cur = calloc(reg->hdr.nr_cpus, sizeof(*cur));
	ramtrail_merge_init(&m, reg, cur, heap);
	while ((r = ramtrail_merge_next(&m))) {
		if (r->ts < last || r->cpu >= reg->hdr.nr_cpus)
			abort();
		last = r->ts;
		(void)ramtrail_ts_to_ns(&reg->hdr, r->ts);
	}
	free(cur);
	while ((t = ramtrail_saved_next(reg, &off)))
		if (t->nr_records * sizeof(struct ramtrail_saved_record) >
		    reg->hdr.saved_size)
			abort();
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
	if (!ramtrail_region_open(&reg, buf, size))
		drain(&reg);
	if (size >= sizeof(*h)) {
		h = (struct ramtrail_region_header *)buf;
		h->checksum = ramtrail_header_checksum(h);
		if (!ramtrail_region_open(&reg, buf, size))
			drain(&reg);
	}
	if (size >= RAMTRAIL_MIN_BLOCKS * RAMTRAIL_BLOCK_SIZE) {
		ramtrail_zone_open_raw(&c, (const u64 *)buf,
				       size / RAMTRAIL_BLOCK_SIZE, 0);
		while (ramtrail_zone_next(&c))
			;
	}
	free(buf);
	return 0;
}
