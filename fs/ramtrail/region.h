/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A region's header: its layout (ramtrail_layout() lays one out), its
 * checksums, and the checks a reader makes before it uses any offset in
 * it (ramtrail_region_open()); then what the header leads to: the freeze
 * record, the dmesg records, the module table. Shared by the module and
 * tools/; plain C, no allocation.
 */
#ifndef _RAMTRAIL_REGION_H
#define _RAMTRAIL_REGION_H

#include "compat.h"
#include <linux/ramtrail.h>

/*
 * The format before this one, which readers other than the module (the
 * tools) still take: the same words, header and records, but 96-byte
 * module entries (base, size, core_size, flags, checksum, name, gone: one
 * core_size for the core's size, the init's end, the time the table
 * filled and the functions' hash, as the flags said), saved traces of
 * magic "SAV4" whose module entries are those, and no machine in the
 * header (x86-64). ramtrail_region_read() opens it; the module entries
 * are the reader's to convert.
 */
#define RAMTRAIL_PREV_VERSION		7
#define RAMTRAIL_PREV_MODULE_ENTRY_SIZE	96
#define RAMTRAIL_PREV_SAVED_MAGIC	0x34564153 /* "SAV4" */

enum ramtrail_error {
	RAMTRAIL_OK		= 0,
	RAMTRAIL_E_SHORT	= 1,	/* smaller than a header */
	RAMTRAIL_E_MAGIC	= 2,	/* not a ramtrail region */
	RAMTRAIL_E_VERSION	= 3,	/* written by another format version */
	RAMTRAIL_E_CHECKSUM	= 4,	/* header damaged */
	RAMTRAIL_E_GEOMETRY	= 5,	/* sizes or offsets out of bounds */
	RAMTRAIL_E_STATE	= 6,	/* zones not valid (format interrupted) */
	RAMTRAIL_E_FIELD	= 7,	/* a per-boot field out of bounds */
	RAMTRAIL_E_NR		= 8,
};

/**
 * struct ramtrail_region - a region whose header passed validation
 * @base: first byte of the region; NULL if not even its layout is valid
 * @len: bytes available at @base (at least hdr.region_size)
 * @hdr: copy of the header. After ramtrail_region_open() returned
 *	RAMTRAIL_OK every field is checked; with another result but @base
 *	set, only the layout (the areas and the zone geometry) is: the dmesg
 *	records and saved traces can be read, the zones cannot.
 * @nr_saved: entries in @saved
 * @saved: offsets in the saved area of the valid saved traces found by
 *	ramtrail_saved_scan(), in order of boot_id (then offset)
 * @saved_end: where that scan stopped: the saved area's size, or the end
 *	of the RAMTRAIL_MAX_SAVED-th entry (what lies past it is not known)
 * @saved_refused: entries that scan found with a valid checksum but with
 *	fields no writer makes: their traces are not read
 * @bad: the header field (or area) out of bounds, for RAMTRAIL_E_GEOMETRY
 *	and RAMTRAIL_E_FIELD; NULL otherwise
 */
struct ramtrail_region {
	const u8 *base;
	u64 len;
	struct ramtrail_region_header hdr;
	u32 nr_saved;
	u64 saved[RAMTRAIL_MAX_SAVED];
	u64 saved_end;
	u32 saved_refused;
	const char *bad;
};

int ramtrail_region_open(struct ramtrail_region *reg, const void *buf,
			 u64 len);
int ramtrail_region_read(struct ramtrail_region *reg, const void *buf,
			 u64 len);
void ramtrail_region_open_layout(struct ramtrail_region *reg, const void *buf,
				 u64 len,
				 const struct ramtrail_region_header *layout);
const char *ramtrail_strerror(int err);
const char *ramtrail_error_name(int err);
bool ramtrail_zones_hold_trace(const struct ramtrail_region *reg, int err);
const struct ramtrail_freeze_info *
ramtrail_region_freeze(const struct ramtrail_region *reg);
bool ramtrail_freeze_sealed(const struct ramtrail_freeze_info *f, u32 cpu);
u32 ramtrail_region_flags(const struct ramtrail_region *reg);
const char *ramtrail_state_name(u32 state);
const char *ramtrail_reason_name(u32 reason);
u32 ramtrail_dmesg_checksum(const struct ramtrail_dmesg_header *d);
const struct ramtrail_dmesg_header *
ramtrail_dmesg_at(const struct ramtrail_region *reg, u32 slot);
bool ramtrail_dmesg_valid(const struct ramtrail_region_header *h,
			  const struct ramtrail_dmesg_header *d);
int ramtrail_module_kernel(const struct ramtrail_module_entry *tab, u32 n,
			   u64 *hash);
int ramtrail_module_find(const struct ramtrail_module_entry *tab, u32 n,
			 u64 addr, u64 ts, bool *timed);
u32 ramtrail_region_nr_modules(const struct ramtrail_region *reg);

static inline u64 ramtrail_zones_size(const struct ramtrail_region_header *h)
{
	return (u64)le32_to_cpu(h->nr_cpus) * le32_to_cpu(h->nr_blocks)
	       << RAMTRAIL_BLOCK_SHIFT;
}

/* Offset of zone @cpu in its region. */
static inline u64 ramtrail_zone_offset(const struct ramtrail_region_header *h,
				       u32 cpu)
{
	return le64_to_cpu(h->zone_offset) +
	       ((u64)cpu * le32_to_cpu(h->nr_blocks) << RAMTRAIL_BLOCK_SHIFT);
}

/* Offset of dmesg record @slot in its region. */
static inline u64 ramtrail_dmesg_offset(const struct ramtrail_region_header *h,
					u32 slot)
{
	return le64_to_cpu(h->dmesg_offset) +
	       (u64)slot * le64_to_cpu(h->dmesg_size);
}

/* Bytes of a module table entry in a region of format @version. */
static inline u64 ramtrail_module_entry_size(u32 version)
{
	return version == RAMTRAIL_PREV_VERSION ?
	       RAMTRAIL_PREV_MODULE_ENTRY_SIZE :
	       sizeof(struct ramtrail_module_entry);
}

/*
 * The module table of the boot that wrote an opened region, in its
 * format (see ramtrail_module_entry_size()).
 */
static inline const void *
ramtrail_region_modules(const struct ramtrail_region *reg)
{
	return reg->base + le64_to_cpu(reg->hdr.modtab_offset);
}

/* Building a region, shared with the writer side. */
u32 ramtrail_header_checksum(const struct ramtrail_region_header *hdr);
u32 ramtrail_layout_checksum(const struct ramtrail_region_header *hdr);
u32 ramtrail_freeze_checksum(const struct ramtrail_freeze_info *f);
u32 ramtrail_module_checksum(const struct ramtrail_module_entry *e);
u32 ramtrail_module_checksum_len(const struct ramtrail_module_entry *e,
				 size_t len);
u64 ramtrail_module_sym_add(u64 hash, const char *name, size_t len, u64 off);

extern const char *const ramtrail_kernel_funcs[RAMTRAIL_KERNEL_NR_FUNCS];
u64 ramtrail_kernel_hash(const u64 *off);
u32 ramtrail_crc32_skip(const void *p, size_t len, size_t skip,
			size_t skip_len);
int ramtrail_layout(struct ramtrail_region_header *hdr, u64 region_size,
		    u32 nr_cpus, u32 dmesg_count, u64 dmesg_size,
		    u64 saved_size, u32 modtab_count);

#endif /* _RAMTRAIL_REGION_H */
