// SPDX-License-Identifier: GPL-2.0
/*
 * Region geometry and header checksum, shared by the module (which formats
 * regions) and tools/ (which build regions for tests).
 */
#include "recover.h"

/**
 * ramtrail_header_checksum() - CRC32 of a header, its checksum field as 0
 * @hdr: the header; @hdr->header_size bytes are covered
 *
 * Return: the checksum to store in or compare with @hdr->checksum.
 */
u32 ramtrail_header_checksum(const struct ramtrail_region_header *hdr)
{
	return ramtrail_crc32_skip(hdr, sizeof(*hdr),
				   offsetof(struct ramtrail_region_header,
					    checksum));
}

/**
 * ramtrail_crc32_skip() - CRC32 of a structure, one u32 field taken as 0
 * @p: the structure
 * @len: its size
 * @field: offset of the u32 to skip (the checksum itself)
 *
 * Computed in place: the checksum is sealed in panic context, where a copy
 * of a 4 KiB header on the stack is not welcome.
 *
 * Return: CRC32 (IEEE).
 */
u32 ramtrail_crc32_skip(const void *p, size_t len, size_t field)
{
	static const u32 zero;
	u32 crc = ramtrail_crc32_update(~0U, p, field);

	crc = ramtrail_crc32_update(crc, &zero, sizeof(zero));
	crc = ramtrail_crc32_update(crc, (const u8 *)p + field + sizeof(zero),
				    len - field - sizeof(zero));
	return ~crc;
}

static u64 rt_page_align(u64 v)
{
	return (v + RAMTRAIL_HEADER_SIZE - 1) & ~(u64)(RAMTRAIL_HEADER_SIZE - 1);
}

/**
 * ramtrail_layout() - place the areas of a region and size its zones
 * @hdr: header to fill; every field it does not set is zeroed
 * @region_size: bytes of the region
 * @nr_cpus: zones, one per possible CPU
 * @dmesg_count: dmesg records
 * @dmesg_size: bytes per dmesg record, a multiple of 8
 * @saved_size: bytes for the saved trace of an earlier boot
 * @modtab_count: module table entries
 *
 * Areas are page aligned; the zones share what is left equally, in whole
 * blocks. The header is left in RAMTRAIL_STATE_FORMATTING and unsealed.
 *
 * Return: RAMTRAIL_OK, or RAMTRAIL_E_GEOMETRY if the zones would get fewer
 * than RAMTRAIL_MIN_BLOCKS blocks or a parameter is out of range.
 */
int ramtrail_layout(struct ramtrail_region_header *hdr, u64 region_size,
		    u32 nr_cpus, u32 dmesg_count, u64 dmesg_size,
		    u64 saved_size, u32 modtab_count)
{
	u64 off, per_cpu;

	memset(hdr, 0, sizeof(*hdr));
	if (!nr_cpus || nr_cpus > RAMTRAIL_MAX_CPUS || dmesg_size % 8 ||
	    (dmesg_count && dmesg_size < sizeof(struct ramtrail_dmesg_header)) ||
	    (dmesg_count && dmesg_size > region_size / dmesg_count) ||
	    saved_size > region_size ||
	    modtab_count > region_size)
		return RAMTRAIL_E_GEOMETRY;
	hdr->magic = RAMTRAIL_MAGIC;
	hdr->version = RAMTRAIL_VERSION;
	hdr->header_size = sizeof(*hdr);
	hdr->state = RAMTRAIL_STATE_FORMATTING;
	hdr->region_size = region_size;
	hdr->block_shift = RAMTRAIL_BLOCK_SHIFT;
	hdr->nr_cpus = nr_cpus;

	off = RAMTRAIL_HEADER_SIZE;
	hdr->modtab_offset = off;
	hdr->modtab_count = modtab_count;
	off = rt_page_align(off + (u64)modtab_count *
			    sizeof(struct ramtrail_module_entry));
	hdr->dmesg_offset = off;
	hdr->dmesg_count = dmesg_count;
	hdr->dmesg_size = dmesg_size;
	off = rt_page_align(off + dmesg_count * dmesg_size);
	hdr->saved_offset = off;
	hdr->saved_size = saved_size;
	off = rt_page_align(off + saved_size);
	hdr->zone_offset = off;
	if (off >= region_size)
		return RAMTRAIL_E_GEOMETRY;
	per_cpu = (region_size - off) / nr_cpus >> RAMTRAIL_BLOCK_SHIFT;
	if (per_cpu < RAMTRAIL_MIN_BLOCKS)
		return RAMTRAIL_E_GEOMETRY;
	hdr->nr_blocks = per_cpu > 0xffffffffULL ? 0xffffffffU : per_cpu;
	return RAMTRAIL_OK;
}
