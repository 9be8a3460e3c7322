// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for what the module reads first at load: the region
 * header (with checksums repaired, so every field value is reachable), the
 * freeze record, the layout, the saved traces and their chunks, the dmesg
 * records, and the time conversion with the header's clock. Inputs are small (one
 * header page and a few areas), so it runs fast enough for long campaigns
 * (make fuzz-long). The userspace build traps where the kernel would.
 */
#include <stdlib.h>
#include "chunk.h"

/* Header page, module table, dmesg and saved areas: no zones needed. */
#define IMAGE	(8 * RAMTRAIL_HEADER_SIZE)

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static u8 buf[IMAGE] __aligned(64);
	struct ramtrail_region_header *h = (void *)buf;
	const struct ramtrail_saved_trace *t;
	struct ramtrail_region reg;
	u64 off = 0, ts;
	int err;
	u32 i;

	if (size > IMAGE)
		return 0;
	memcpy(buf, data, size);
	memset(buf + size, 0, IMAGE - size);
	h->layout_checksum = ramtrail_layout_checksum(h);
	h->checksum = ramtrail_header_checksum(h);
	h->freeze.checksum = ramtrail_freeze_checksum(&h->freeze);
	err = ramtrail_region_read(&reg, buf, IMAGE);
	if (!reg.base)
		return 0;
	while ((t = ramtrail_saved_next(&reg, &off))) {
		static struct ramtrail_saved_cursor c;

		(void)ramtrail_saved_all_erased(t);
		ramtrail_saved_open(&c, t);
		while (ramtrail_saved_read(&c, c.nr))
			if (c.rec.cpu >= t->nr_cpus)
				abort();
	}
	for (i = 0; i < reg.hdr.dmesg_count; i++)
		(void)ramtrail_dmesg_at(&reg, i);
	if (err)
		return 0;
	(void)ramtrail_zones_hold_trace(&reg, err);
	(void)ramtrail_region_freeze(&reg);
	/* Times the zones could hold: any 58-bit counter value. */
	memcpy(&ts, data + (size >= 8 ? size - 8 : 0), size >= 8 ? 8 : 0);
	(void)ramtrail_ts_to_ns(&reg.hdr, ts & RAMTRAIL_CLOCK_MASK);
	(void)ramtrail_ts_to_ns(&reg.hdr, 0);
	(void)ramtrail_ts_to_ns(&reg.hdr, RAMTRAIL_CLOCK_MASK);
	return 0;
}
