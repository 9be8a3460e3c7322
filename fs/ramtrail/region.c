// SPDX-License-Identifier: GPL-2.0
/*
 * Region geometry and header checksum, shared by the module (which formats
 * regions) and tools/ (which build regions for tests).
 */
#include "recover.h"

/**
 * ramtrail_header_checksum() - CRC32 of a header's per-format part
 * @hdr: the header; @hdr->header_size bytes are covered, with the checksum
 *	and the state (changed later by single stores) taken as 0
 *
 * Return: the checksum to store in or compare with @hdr->checksum.
 */
u32 ramtrail_header_checksum(const struct ramtrail_region_header *hdr)
{
	return ramtrail_crc32_skip(hdr, offsetof(struct ramtrail_region_header,
						 freeze),
				   offsetof(struct ramtrail_region_header,
					    checksum),
				   sizeof(hdr->checksum) + sizeof(hdr->state));
}

/**
 * ramtrail_layout_checksum() - CRC32 of a header's layout fields
 * @hdr: the header
 *
 * Return: the checksum to store in or compare with @hdr->layout_checksum.
 */
u32 ramtrail_layout_checksum(const struct ramtrail_region_header *hdr)
{
	size_t from = offsetof(struct ramtrail_region_header, region_size);

	return ramtrail_crc32_skip((const u8 *)hdr + from,
				   offsetof(struct ramtrail_region_header,
					    layout_checksum) - from, 0, 0);
}

/**
 * ramtrail_freeze_checksum() - CRC32 of a freeze record
 * @f: the record, its checksum field taken as 0
 *
 * Return: the checksum to store in or compare with @f->checksum.
 */
u32 ramtrail_freeze_checksum(const struct ramtrail_freeze_info *f)
{
	return ramtrail_crc32_skip(f, sizeof(*f),
				   offsetof(struct ramtrail_freeze_info,
					    checksum), sizeof(f->checksum));
}

/**
 * ramtrail_module_checksum() - CRC32 of a module table entry
 * @e: the entry, its checksum and flags taken as 0, then its
 *	RAMTRAIL_MOD_INIT, RAMTRAIL_MOD_FULL and RAMTRAIL_MOD_KERNEL bits if
 *	one is set (see struct ramtrail_module_entry)
 *
 * Return: the checksum to store in or compare with @e->checksum.
 */
u32 ramtrail_module_checksum(const struct ramtrail_module_entry *e)
{
	/* Set with the entry: covered (an init entry's as before FULL was). */
	const u32 kind = READ_ONCE(e->flags) & (RAMTRAIL_MOD_INIT |
						RAMTRAIL_MOD_FULL |
						RAMTRAIL_MOD_KERNEL);
	u32 crc = ramtrail_crc32_skip(e, sizeof(*e),
				      offsetof(struct ramtrail_module_entry,
					       flags),
				      sizeof(e->flags) + sizeof(e->checksum));

	if (kind)
		crc = ~ramtrail_crc32_update(~crc, &kind, sizeof(kind));
	return crc;
}

/**
 * ramtrail_module_sym_add() - add a function to a module's layout hash
 * @hash: the hash of the functions before (0 for none)
 * @name: the function's name
 * @len: bytes of @name
 * @off: where it lies, from the start of the module's text
 *
 * The loaded module's symbols and its .ko's come in different orders: a
 * sum of mixed terms does not depend on it. Two builds of a module whose
 * functions have the same names at the same offsets name an address the
 * same; any other difference changes the hash.
 *
 * Return: the hash with this function.
 */
u64 ramtrail_module_sym_add(u64 hash, const char *name, size_t len, u64 off)
{
	u64 v = (u64)ramtrail_crc32_update(~0U, name, len) << 32 ^ off;

	/* splitmix64's finaliser: each bit of @v moves every bit of the term */
	v ^= v >> 30;
	v *= 0xbf58476d1ce4e5b9ULL;
	v ^= v >> 27;
	v *= 0x94d049bb133111ebULL;
	v ^= v >> 31;
	return hash + v;
}

/* The names of RAMTRAIL_KERNEL_FUNCS. */
const char *const ramtrail_kernel_funcs[RAMTRAIL_KERNEL_NR_FUNCS] =
	RAMTRAIL_KERNEL_FUNCS;
_Static_assert(sizeof((const char *[])RAMTRAIL_KERNEL_FUNCS) ==
	       RAMTRAIL_KERNEL_NR_FUNCS * sizeof(const char *),
	       "RAMTRAIL_KERNEL_NR_FUNCS is not the length of RAMTRAIL_KERNEL_FUNCS");

/**
 * ramtrail_kernel_hash() - the hash of a kernel build (RAMTRAIL_MOD_KERNEL)
 * @off: the address of each of ramtrail_kernel_funcs[], minus panic()'s,
 *	in its order
 *
 * As a module's (ramtrail_module_sym_add()), each function by its name and
 * place: the KASLR offset cancels out, a build that moved one of them
 * does not.
 *
 * Return: the hash, the kernel entry's @core_size.
 */
u64 ramtrail_kernel_hash(const u64 *off)
{
	u64 hash = 0;
	unsigned int i;

	for (i = 0; i < RAMTRAIL_KERNEL_NR_FUNCS; i++)
		hash = ramtrail_module_sym_add(hash, ramtrail_kernel_funcs[i],
					       strlen(ramtrail_kernel_funcs[i]),
					       off[i]);
	return hash;
}

/**
 * ramtrail_crc32_skip() - CRC32 of a structure, some bytes taken as 0
 * @p: the structure
 * @len: its size
 * @skip: offset of the bytes to take as 0 (the checksum itself, fields
 *	written after the checksum)
 * @skip_len: how many, at most 16
 *
 * Computed in place: the checksum is sealed in panic context, where a copy
 * of a 4 KiB header on the stack is not welcome.
 *
 * Return: CRC32 (IEEE).
 */
u32 ramtrail_crc32_skip(const void *p, size_t len, size_t skip,
			size_t skip_len)
{
	static const u8 zero[16];
	u32 crc = ramtrail_crc32_update(~0U, p, skip);

	crc = ramtrail_crc32_update(crc, zero, skip_len);
	crc = ramtrail_crc32_update(crc, (const u8 *)p + skip + skip_len,
				    len - skip - skip_len);
	return ~crc;
}

static u64 ramtrail_page_align(u64 v)
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
 * blocks. The layout checksum is set; the header is left in
 * RAMTRAIL_STATE_FORMATTING and unsealed.
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
	    dmesg_count > RAMTRAIL_MAX_DMESG ||
	    (dmesg_count && dmesg_size < sizeof(struct ramtrail_dmesg_header)) ||
	    (dmesg_count && dmesg_size > region_size / dmesg_count) ||
	    saved_size > region_size || saved_size % 8 ||
	    modtab_count > RAMTRAIL_MAX_MODULES)
		return RAMTRAIL_E_GEOMETRY;
	hdr->magic = RAMTRAIL_MAGIC;
	hdr->version = RAMTRAIL_VERSION;
	hdr->header_size = offsetof(struct ramtrail_region_header, freeze);
	hdr->state = RAMTRAIL_STATE_FORMATTING;
	hdr->region_size = region_size;
	hdr->block_shift = RAMTRAIL_BLOCK_SHIFT;
	hdr->nr_cpus = nr_cpus;

	off = RAMTRAIL_HEADER_SIZE;
	hdr->modtab_offset = off;
	hdr->modtab_count = modtab_count;
	off = ramtrail_page_align(off + (u64)modtab_count *
			    sizeof(struct ramtrail_module_entry));
	hdr->dmesg_offset = off;
	hdr->dmesg_count = dmesg_count;
	hdr->dmesg_size = dmesg_size;
	off = ramtrail_page_align(off + dmesg_count * dmesg_size);
	hdr->saved_offset = off;
	hdr->saved_size = saved_size;
	off = ramtrail_page_align(off + saved_size);
	hdr->zone_offset = off;
	if (off >= region_size)
		return RAMTRAIL_E_GEOMETRY;
	per_cpu = (region_size - off) / nr_cpus >> RAMTRAIL_BLOCK_SHIFT;
	if (per_cpu < RAMTRAIL_MIN_BLOCKS)
		return RAMTRAIL_E_GEOMETRY;
	hdr->nr_blocks = per_cpu > 0xffffffffULL ? 0xffffffffU : per_cpu;
	hdr->layout_checksum = ramtrail_layout_checksum(hdr);
	return RAMTRAIL_OK;
}
