// SPDX-License-Identifier: GPL-2.0
/*
 * A region's header: how ramtrail_layout() lays the areas out, the
 * header's checksums, and the checks of ramtrail_region_open(): nothing in
 * a header is used before its layout checksum, its areas, its zone
 * geometry and its per-boot fields are checked against what a writer
 * produces. The module formats regions with it; tools/ builds regions for
 * tests with it, and both read them back.
 */
#include "region.h"
#include "saved.h"

_Static_assert(sizeof(struct ramtrail_region_header) <= RAMTRAIL_HEADER_SIZE,
	       "region header larger than its page");
_Static_assert(offsetof(struct ramtrail_region_header, state) ==
	       offsetof(struct ramtrail_region_header, checksum) + 4,
	       "state must follow checksum: one span outside the checksum");
_Static_assert(offsetof(struct ramtrail_module_entry, checksum) ==
	       offsetof(struct ramtrail_module_entry, flags) + 4,
	       "checksum must follow flags: one span outside the checksum");

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
 * ramtrail_module_checksum_len() - CRC32 of a module table entry's first
 *	bytes
 * @e: the entry, its checksum and flags taken as 0, then its
 *	RAMTRAIL_MOD_INIT, RAMTRAIL_MOD_FULL and RAMTRAIL_MOD_KERNEL bits if
 *	one is set (see struct ramtrail_module_entry)
 * @len: bytes covered: sizeof(*@e), or RAMTRAIL_PREV_MODULE_ENTRY_SIZE
 *	for an entry of the previous format, whose fields are this one's
 *	first
 *
 * Return: the checksum to store in or compare with @e->checksum.
 */
u32 ramtrail_module_checksum_len(const struct ramtrail_module_entry *e,
				 size_t len)
{
	/* Set with the entry: covered (an init entry's as before FULL was). */
	const u32 kind = le32_to_cpu(READ_ONCE(e->flags)) & (RAMTRAIL_MOD_INIT |
						RAMTRAIL_MOD_FULL |
						RAMTRAIL_MOD_KERNEL);
	u32 crc = ramtrail_crc32_skip(e, len,
				      offsetof(struct ramtrail_module_entry,
					       flags),
				      sizeof(e->flags) + sizeof(e->checksum));

	if (kind)
		crc = ~ramtrail_crc32_update(~crc, &kind, sizeof(kind));
	return crc;
}

/**
 * ramtrail_module_checksum() - CRC32 of a module table entry
 * @e: the entry (see ramtrail_module_checksum_len())
 *
 * Return: the checksum to store in or compare with @e->checksum.
 */
u32 ramtrail_module_checksum(const struct ramtrail_module_entry *e)
{
	return ramtrail_module_checksum_len(e, sizeof(*e));
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
 * Return: the hash, the kernel entry's @funcs_hash.
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
	hdr->magic = cpu_to_le64(RAMTRAIL_MAGIC);
	hdr->version = cpu_to_le32(RAMTRAIL_VERSION);
	hdr->header_size =
		cpu_to_le32(offsetof(struct ramtrail_region_header, freeze));
	hdr->state = cpu_to_le32(RAMTRAIL_STATE_FORMATTING);
	hdr->region_size = cpu_to_le64(region_size);
	hdr->block_shift = cpu_to_le32(RAMTRAIL_BLOCK_SHIFT);
	hdr->nr_cpus = cpu_to_le32(nr_cpus);

	off = RAMTRAIL_HEADER_SIZE;
	hdr->modtab_offset = cpu_to_le64(off);
	hdr->modtab_count = cpu_to_le32(modtab_count);
	off = ramtrail_page_align(off + (u64)modtab_count *
			    sizeof(struct ramtrail_module_entry));
	hdr->dmesg_offset = cpu_to_le64(off);
	hdr->dmesg_count = cpu_to_le32(dmesg_count);
	hdr->dmesg_size = cpu_to_le64(dmesg_size);
	off = ramtrail_page_align(off + dmesg_count * dmesg_size);
	hdr->saved_offset = cpu_to_le64(off);
	hdr->saved_size = cpu_to_le64(saved_size);
	off = ramtrail_page_align(off + saved_size);
	hdr->zone_offset = cpu_to_le64(off);
	if (off >= region_size)
		return RAMTRAIL_E_GEOMETRY;
	per_cpu = (region_size - off) / nr_cpus >> RAMTRAIL_BLOCK_SHIFT;
	if (per_cpu < RAMTRAIL_MIN_BLOCKS)
		return RAMTRAIL_E_GEOMETRY;
	hdr->nr_blocks =
		cpu_to_le32(per_cpu > 0xffffffffULL ? 0xffffffffU : per_cpu);
	hdr->layout_checksum = cpu_to_le32(ramtrail_layout_checksum(hdr));
	return RAMTRAIL_OK;
}

static const char * const ramtrail_errors[RAMTRAIL_E_NR] = {
	[RAMTRAIL_OK]		= "ok",
	[RAMTRAIL_E_SHORT]	= "image too small for a region header",
	[RAMTRAIL_E_MAGIC]	= "no ramtrail region (bad magic)",
	[RAMTRAIL_E_VERSION]	= "unsupported format version",
	[RAMTRAIL_E_CHECKSUM]	= "region header checksum mismatch",
	[RAMTRAIL_E_GEOMETRY]	= "region geometry out of bounds",
	[RAMTRAIL_E_STATE]	= "region was being formatted",
	[RAMTRAIL_E_FIELD]	= "region header field out of bounds",
};

static const char * const ramtrail_error_names[RAMTRAIL_E_NR] = {
	[RAMTRAIL_OK]		= "ok",
	[RAMTRAIL_E_SHORT]	= "short",
	[RAMTRAIL_E_MAGIC]	= "magic",
	[RAMTRAIL_E_VERSION]	= "version",
	[RAMTRAIL_E_CHECKSUM]	= "checksum",
	[RAMTRAIL_E_GEOMETRY]	= "geometry",
	[RAMTRAIL_E_STATE]	= "formatting",
	[RAMTRAIL_E_FIELD]	= "field",
};

/**
 * ramtrail_error_name() - one word for an enum ramtrail_error
 * @err: the error
 *
 * Return: a static string, for status files and scripts.
 */
const char *ramtrail_error_name(int err)
{
	if (err < 0 || err >= RAMTRAIL_E_NR)
		return "?";
	return ramtrail_error_names[err];
}

/**
 * ramtrail_strerror() - describe an enum ramtrail_error
 * @err: the error
 *
 * Return: a static string.
 */
const char *ramtrail_strerror(int err)
{
	if (err < 0 || err >= RAMTRAIL_E_NR)
		return "unknown error";
	return ramtrail_errors[err];
}

static bool ramtrail_area_ok(u64 off, u64 size, u64 start, u64 end)
{
	return off % 8 == 0 && off >= start && off <= end && size <= end - off;
}

/*
 * The areas that outlive a boot: each inside the region, after the header.
 * Return: the first field out of bounds, or NULL.
 */
static const char *ramtrail_areas_bad(const struct ramtrail_region_header *h,
				      u64 len)
{
	u64 end = le64_to_cpu(h->region_size);
	u32 nr_mods = le32_to_cpu(h->modtab_count);
	u32 nr_dmesg = le32_to_cpu(h->dmesg_count);
	u64 dmesg_size = le64_to_cpu(h->dmesg_size);
	u64 entry = ramtrail_module_entry_size(le32_to_cpu(h->version));

	if (end > len || end < RAMTRAIL_HEADER_SIZE)
		return "region_size";
	if (nr_mods > RAMTRAIL_MAX_MODULES ||
	    !ramtrail_area_ok(le64_to_cpu(h->modtab_offset), nr_mods * entry,
			      RAMTRAIL_HEADER_SIZE, end))
		return "modtab";
	if (nr_dmesg > RAMTRAIL_MAX_DMESG ||
	    (nr_dmesg &&
	     (dmesg_size % 8 || dmesg_size > end / nr_dmesg ||
	      dmesg_size < sizeof(struct ramtrail_dmesg_header))) ||
	    !ramtrail_area_ok(le64_to_cpu(h->dmesg_offset),
			      nr_dmesg * dmesg_size, RAMTRAIL_HEADER_SIZE, end))
		return "dmesg";
	if (!ramtrail_area_ok(le64_to_cpu(h->saved_offset),
			      le64_to_cpu(h->saved_size),
			      RAMTRAIL_HEADER_SIZE, end))
		return "saved";
	return NULL;
}

/*
 * The zones: after every other area (ramtrail_areas_bad() bounded them),
 * inside the region. As above.
 */
static const char *ramtrail_zones_bad(const struct ramtrail_region_header *h)
{
	u64 zones = le64_to_cpu(h->zone_offset);
	u32 nr_cpus = le32_to_cpu(h->nr_cpus);
	u64 modtab_end = le64_to_cpu(h->modtab_offset) +
			 (u64)le32_to_cpu(h->modtab_count) *
			 ramtrail_module_entry_size(le32_to_cpu(h->version));
	u64 dmesg_end = le64_to_cpu(h->dmesg_offset) +
			le32_to_cpu(h->dmesg_count) *
			le64_to_cpu(h->dmesg_size);
	u64 saved_end = le64_to_cpu(h->saved_offset) +
			le64_to_cpu(h->saved_size);

	if (le32_to_cpu(h->block_shift) != RAMTRAIL_BLOCK_SHIFT)
		return "block_shift";
	if (nr_cpus < 1 || nr_cpus > RAMTRAIL_MAX_CPUS)
		return "nr_cpus";
	if (le32_to_cpu(h->nr_blocks) < RAMTRAIL_MIN_BLOCKS)
		return "nr_blocks";
	if (zones % RAMTRAIL_BLOCK_SIZE ||
	    !ramtrail_area_ok(zones, ramtrail_zones_size(h),
			      RAMTRAIL_HEADER_SIZE,
			      le64_to_cpu(h->region_size)) ||
	    modtab_end > zones || dmesg_end > zones || saved_end > zones)
		return "zone_offset";
	return NULL;
}

/* The per-boot fields, bounded to what a writer produces. As above. */
static const char *ramtrail_boot_bad(const struct ramtrail_region_header *h)
{
	u64 hz = le64_to_cpu(h->clock_hz);
	u32 machine = le32_to_cpu(h->machine);

	if (hz && (hz < RAMTRAIL_CLOCK_HZ_MIN || hz > RAMTRAIL_CLOCK_HZ_MAX))
		return "clock_hz";
	if (le32_to_cpu(h->flags) &
	    ~(RAMTRAIL_F_CLOCK_RELIABLE | RAMTRAIL_F_STOP_WHEN_FULL))
		return "flags";
	if (le64_to_cpu(h->boot_id) >= 1ULL << 62)
		return "boot_id";
	if (le64_to_cpu(h->clock_ref_cycles) > RAMTRAIL_CLOCK_MASK)
		return "clock_ref_cycles";
	if (machine != RAMTRAIL_MACHINE_X86_64 &&
	    machine != RAMTRAIL_MACHINE_AARCH64)
		return "machine";
	return NULL;
}

/*
 * Checks magic, version (@oldest to RAMTRAIL_VERSION), the layout checksum
 * and that every area that outlives a boot lies inside @len; then the
 * header checksum, the zone geometry, the per-boot fields and the state.
 * For a geometry or a field out of bounds, @reg->bad names the first that
 * is. A header whose layout holds but whose rest does not (a reset while
 * it was rewritten, or while the zones were being formatted) still gives
 * @reg->base, so that saved traces and dmesg records are found: only the
 * zones are unusable.
 */
static int ramtrail_region_check(struct ramtrail_region *reg, const void *buf,
				 u64 len, u32 oldest)
{
	struct ramtrail_region_header *h = &reg->hdr;
	u32 version;
	bool whole;

	memset(reg, 0, sizeof(*reg));
	if (len < RAMTRAIL_HEADER_SIZE)
		return RAMTRAIL_E_SHORT;
	memcpy(h, buf, sizeof(*h));
	h->release[sizeof(h->release) - 1] = 0;
	h->build[sizeof(h->build) - 1] = 0;
	if (le64_to_cpu(h->magic) != RAMTRAIL_MAGIC)
		return RAMTRAIL_E_MAGIC;
	version = le32_to_cpu(h->version);
	if (version < oldest || version > RAMTRAIL_VERSION)
		return RAMTRAIL_E_VERSION;
	if (le32_to_cpu(h->layout_checksum) != ramtrail_layout_checksum(h))
		return RAMTRAIL_E_CHECKSUM;
	reg->bad = ramtrail_areas_bad(h, len);
	if (reg->bad)
		return RAMTRAIL_E_GEOMETRY;
	reg->base = buf;
	reg->len = len;
	ramtrail_saved_scan(reg);
	whole = le32_to_cpu(h->header_size) ==
		offsetof(struct ramtrail_region_header, freeze) &&
		le32_to_cpu(h->checksum) == ramtrail_header_checksum(h);
	if (version == RAMTRAIL_PREV_VERSION)	/* its only machine */
		h->machine = cpu_to_le32(RAMTRAIL_MACHINE_X86_64);
	if (!whole)
		return RAMTRAIL_E_CHECKSUM;
	reg->bad = ramtrail_zones_bad(h);
	if (reg->bad)
		return RAMTRAIL_E_GEOMETRY;
	reg->bad = ramtrail_boot_bad(h);
	if (reg->bad)
		return RAMTRAIL_E_FIELD;
	if (le32_to_cpu(h->state) == RAMTRAIL_STATE_FORMATTING ||
	    le32_to_cpu(h->state) >= RAMTRAIL_STATE_NR)
		return RAMTRAIL_E_STATE;
	return RAMTRAIL_OK;
}

/**
 * ramtrail_region_open() - validate a region header of this format
 * @reg: filled on success, and with the layout alone on some errors
 * @buf: the region's bytes
 * @len: bytes readable at @buf
 *
 * The writer's check: a region of another format version is
 * RAMTRAIL_E_VERSION. See ramtrail_region_check() for the rest.
 *
 * Return: RAMTRAIL_OK (zones usable, if the state says they hold a trace)
 * or an enum ramtrail_error.
 */
int ramtrail_region_open(struct ramtrail_region *reg, const void *buf,
			 u64 len)
{
	return ramtrail_region_check(reg, buf, len, RAMTRAIL_VERSION);
}

/**
 * ramtrail_region_read() - validate a region header of this format or
 *	the one before
 * @reg: filled as by ramtrail_region_open(); @reg->hdr.version tells the
 *	format, and the layout of the module entries (and the magic of the
 *	saved traces) that go with it
 * @buf: the region's bytes
 * @len: bytes readable at @buf
 *
 * A reader's check: a region of RAMTRAIL_PREV_VERSION is read too.
 *
 * Return: as ramtrail_region_open().
 */
int ramtrail_region_read(struct ramtrail_region *reg, const void *buf,
			 u64 len)
{
	return ramtrail_region_check(reg, buf, len, RAMTRAIL_PREV_VERSION);
}

/**
 * ramtrail_region_open_layout() - read a region by a layout of its own
 * @reg: filled with @layout's areas and no boot; @reg->base stays NULL if
 *	they do not fit @len
 * @buf: the region's bytes
 * @len: bytes readable at @buf
 * @layout: a header laid out by ramtrail_layout()
 *
 * For a region whose header's layout failed (a flipped bit fails the
 * layout checksum): its saved traces and dmesg records carry checksums of
 * their own, and are found where @layout puts their areas, when it is the
 * layout they were written in. The zones are not read.
 */
void ramtrail_region_open_layout(struct ramtrail_region *reg, const void *buf,
				 u64 len,
				 const struct ramtrail_region_header *layout)
{
	memset(reg, 0, sizeof(*reg));
	reg->hdr = *layout;
	if (ramtrail_areas_bad(&reg->hdr, len))
		return;
	reg->base = buf;
	reg->len = len;
	ramtrail_saved_scan(reg);
}

/**
 * ramtrail_zones_hold_trace() - do the zones of an opened region hold a trace
 * @reg: the region
 * @err: what ramtrail_region_open() returned for it
 *
 * Return: true if the zones can be decoded and were not saved yet.
 */
bool ramtrail_zones_hold_trace(const struct ramtrail_region *reg, int err)
{
	u32 state = le32_to_cpu(reg->hdr.state);

	return !err && (state == RAMTRAIL_STATE_RECORDING ||
			state == RAMTRAIL_STATE_FROZEN ||
			state == RAMTRAIL_STATE_STOPPED);
}

/**
 * ramtrail_region_nr_modules() - entries of an opened region's module table
 * @reg: the region
 *
 * Return: the entries before the first unused one.
 */
u32 ramtrail_region_nr_modules(const struct ramtrail_region *reg)
{
	const u8 *mods = ramtrail_region_modules(reg);
	u64 size = ramtrail_module_entry_size(le32_to_cpu(reg->hdr.version));
	u32 n = 0;

	/* @base, first in either format's entry: 0 ends the table. */
	while (n < le32_to_cpu(reg->hdr.modtab_count) &&
	       *(const __le64 *)(mods + n * size))
		n++;
	return n;
}

/**
 * ramtrail_region_flags() - RAMTRAIL_F_* of the boot that wrote a region
 * @reg: region for which ramtrail_region_open() returned RAMTRAIL_OK
 *
 * The clock counts as reliable only if it still was when recording ended.
 *
 * Return: the flags.
 */
u32 ramtrail_region_flags(const struct ramtrail_region *reg)
{
	const struct ramtrail_freeze_info *f = ramtrail_region_freeze(reg);
	u32 flags = le32_to_cpu(reg->hdr.flags);

	if (f && !(le32_to_cpu(f->clock_flags) & RAMTRAIL_F_CLOCK_RELIABLE))
		flags &= ~RAMTRAIL_F_CLOCK_RELIABLE;
	return flags;
}

/**
 * ramtrail_region_freeze() - how recording ended in an opened region
 * @reg: region for which ramtrail_region_open() returned RAMTRAIL_OK
 *
 * Return: the freeze record, or NULL if none was completed in that boot
 * (still recording, or a reset in the middle of the freeze).
 */
const struct ramtrail_freeze_info *
ramtrail_region_freeze(const struct ramtrail_region *reg)
{
	const struct ramtrail_freeze_info *f = &reg->hdr.freeze;

	if (le32_to_cpu(f->checksum) != ramtrail_freeze_checksum(f) ||
	    f->boot_id != reg->hdr.boot_id || f->nr_zones != reg->hdr.nr_cpus ||
	    le32_to_cpu(f->reason) >= RAMTRAIL_FREEZE_NR)
		return NULL;
	return f;
}

/**
 * ramtrail_freeze_sealed() - was a zone sealed when recording stopped?
 * @f: a freeze record from ramtrail_region_freeze(), or NULL
 * @cpu: zone number, below the record's nr_zones
 *
 * Return: true if @f says zone @cpu was sealed up to its freeze_pos.
 */
bool ramtrail_freeze_sealed(const struct ramtrail_freeze_info *f, u32 cpu)
{
	return f && le64_to_cpu(f->sealed[cpu / 64]) >> (cpu % 64) & 1;
}

static const char * const ramtrail_states[RAMTRAIL_STATE_NR] = {
	[RAMTRAIL_STATE_EMPTY]		= "empty",
	[RAMTRAIL_STATE_FORMATTING]	= "formatting",
	[RAMTRAIL_STATE_RECORDING]	= "recording",
	[RAMTRAIL_STATE_FROZEN]		= "frozen",
	[RAMTRAIL_STATE_STOPPED]	= "stopped",
	[RAMTRAIL_STATE_SAVED]		= "saved",
};

static const char * const ramtrail_reasons[RAMTRAIL_FREEZE_NR] = {
	[RAMTRAIL_FREEZE_NONE]	= "none",
	[RAMTRAIL_FREEZE_PANIC]	= "panic",
	[RAMTRAIL_FREEZE_OOPS]	= "oops",
	[RAMTRAIL_FREEZE_API]	= "ramtrail_freeze()",
	[RAMTRAIL_FREEZE_USER]	= "user",
};

/**
 * ramtrail_state_name() - name of an enum ramtrail_state
 * @state: the state, any value
 *
 * Return: a static string, "?" out of range.
 */
const char *ramtrail_state_name(u32 state)
{
	return state < RAMTRAIL_STATE_NR ? ramtrail_states[state] : "?";
}

/**
 * ramtrail_reason_name() - name of an enum ramtrail_freeze_reason
 * @reason: the reason, any value
 *
 * Return: a static string, "?" out of range.
 */
const char *ramtrail_reason_name(u32 reason)
{
	return reason < RAMTRAIL_FREEZE_NR ? ramtrail_reasons[reason] : "?";
}

/**
 * ramtrail_dmesg_checksum() - CRC32 of a dmesg record
 * @d: the record: header and @d->len bytes of data, which the caller has
 *	bounded. The magic (stored last, to publish the record) and the
 *	checksum are not covered.
 *
 * Return: the checksum to store in or compare with @d->checksum.
 */
u32 ramtrail_dmesg_checksum(const struct ramtrail_dmesg_header *d)
{
	size_t from = offsetof(struct ramtrail_dmesg_header, len);
	size_t field = offsetof(struct ramtrail_dmesg_header, checksum);
	u32 crc = ramtrail_crc32_update(~0U, (const u8 *)d + from,
					field - from);

	crc = ramtrail_crc32_update(crc, (const u8 *)d + field + sizeof(u32),
				    sizeof(*d) - field - sizeof(u32));
	return ~ramtrail_crc32_update(crc, d + 1, le32_to_cpu(d->len));
}

/**
 * ramtrail_dmesg_at() - a dmesg record of an opened region, if it is valid
 * @reg: region with its layout validated (@reg->base set)
 * @slot: record number
 *
 * Return: the record, or NULL if the slot is free, out of range or damaged.
 */
const struct ramtrail_dmesg_header *
ramtrail_dmesg_at(const struct ramtrail_region *reg, u32 slot)
{
	const struct ramtrail_region_header *h = &reg->hdr;
	const struct ramtrail_dmesg_header *d;

	if (!reg->base || slot >= le32_to_cpu(h->dmesg_count))
		return NULL;
	d = (const void *)(reg->base + ramtrail_dmesg_offset(h, slot));
	return ramtrail_dmesg_valid(h, d) ? d : NULL;
}

/**
 * ramtrail_dmesg_valid() - whether a dmesg record is whole
 * @h: the region's header, its layout validated
 * @d: the record, in its slot or in a copy of the slot (@h->dmesg_size
 *	bytes): a copy stays valid while the slot is rewritten
 *
 * Return: true if its magic is set, its length fits the slot and its
 * checksum matches.
 */
bool ramtrail_dmesg_valid(const struct ramtrail_region_header *h,
			  const struct ramtrail_dmesg_header *d)
{
	return le32_to_cpu(READ_ONCE(d->magic)) == RAMTRAIL_DMESG_MAGIC &&
	       le32_to_cpu(d->len) <= le64_to_cpu(h->dmesg_size) - sizeof(*d) &&
	       le32_to_cpu(d->checksum) == ramtrail_dmesg_checksum(d);
}

/*
 * Whether entry @e, covering an address, can be what a record of counter
 * time @ts named there, given @after: a time before which it cannot have
 * begun (0: unknown). Init text that ended by @ts was not it.
 */
static bool ramtrail_module_at(const struct ramtrail_module_entry *e,
			       u64 ts, u64 after)
{
	if ((after && ts < after) ||
	    (le64_to_cpu(e->gone) && ts >= le64_to_cpu(e->gone)))
		return false;
	return !(le32_to_cpu(e->flags) & RAMTRAIL_MOD_INIT) ||
	       !le64_to_cpu(e->init_end) || ts < le64_to_cpu(e->init_end);
}

/**
 * ramtrail_module_kernel() - the kernel's build a module table keeps
 * @tab: the table
 * @n: its entries
 * @hash: set to its hash (RAMTRAIL_MOD_KERNEL) when it is whole
 *
 * Return: 1 with *@hash set, 0 if the table has no kernel entry (its
 * writer could not tell its kernel's build), -1 if its entry is damaged.
 */
int ramtrail_module_kernel(const struct ramtrail_module_entry *tab, u32 n,
			   u64 *hash)
{
	u32 i;

	for (i = 0; i < n && tab[i].base; i++) {
		if (!(le32_to_cpu(tab[i].flags) & RAMTRAIL_MOD_KERNEL))
			continue;
		if (le32_to_cpu(tab[i].checksum) !=
		    ramtrail_module_checksum(&tab[i]))
			return -1;
		*hash = le64_to_cpu(tab[i].funcs_hash);
		return 1;
	}
	return 0;
}

/**
 * ramtrail_module_find() - the module table entry an address was in
 * @tab: the table
 * @n: its entries
 * @addr: the address
 * @ts: counter time of the record that names @addr
 * @timed: if not NULL, set when the answer depends on @ts (more than one
 *	entry covers @addr, or init text that ended)
 *
 * Entries are only appended, in the order the kernel allocated their text,
 * and one covering an address began after every earlier one covering it
 * was freed. A module's init text is freed when its init ends, and a
 * module when it is unloaded, whose times its entry keeps: a record
 * before then names it, one after names a later module there, or nothing
 * (code that no entry tells of may have come there). Once the table was
 * full (RAMTRAIL_MOD_FULL), modules came that no entry tells of: a record
 * of that time or later is named only by an entry of a module not
 * unloaded before it, or of an init text not ended (they were there).
 *
 * Return: the entry's index, or -1 if none or more than one may be it (or
 * one that may be it is damaged: its checksum fails).
 */
int ramtrail_module_find(const struct ramtrail_module_entry *tab, u32 n,
			 u64 addr, u64 ts, bool *timed)
{
	int found = -1, covering = 0;
	bool ended = false;
	u64 after = 0, full = U64_MAX;
	u32 i;

	for (i = 0; i < n && tab[i].base; i++) {
		const struct ramtrail_module_entry *e = &tab[i];

		if (addr < le64_to_cpu(e->base) ||
		    addr - le64_to_cpu(e->base) >= le64_to_cpu(e->size))
			continue;
		covering++;
		/* Damaged: what it held is unknown, but not before @after. */
		if (le32_to_cpu(e->checksum) != ramtrail_module_checksum(e)) {
			if (after && ts < after)
				continue;
			found = -2;
			break;
		}
		if (le32_to_cpu(e->flags) & RAMTRAIL_MOD_FULL) {
			full = min_t(u64, full, le64_to_cpu(e->full_since));
			ended = true;
			continue;
		}
		if (ramtrail_module_at(e, ts, after)) {
			if (found != -1) {
				found = -2;
				break;
			}
			found = i;
		}
		/* A later entry here began after this text was freed. */
		if ((le32_to_cpu(e->flags) & RAMTRAIL_MOD_INIT) &&
		    e->init_end) {
			after = max_t(u64, after, le64_to_cpu(e->init_end));
			ended = true;
		}
		if (e->gone) {
			after = max_t(u64, after, le64_to_cpu(e->gone));
			ended = true;
		}
	}
	/* Gone at a time not kept: a module with no entry may be it. */
	if (found >= 0 && ts >= full && !tab[found].gone &&
	    (le32_to_cpu(READ_ONCE(tab[found].flags)) & RAMTRAIL_MOD_GONE))
		found = -1;
	if (timed)
		*timed = covering > 1 || ended;
	return found < 0 ? -1 : found;
}
