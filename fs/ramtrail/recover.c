// SPDX-License-Identifier: GPL-2.0
/*
 * Recovery: turn the bytes of a region, whatever they hold, into the
 * records that writers provably completed, merged by time.
 *
 * Nothing read from the region is trusted: the header is checked before any
 * offset in it is used, every block is checked before any of its records is
 * returned, and every loop is bounded by the geometry the header declares.
 *
 * Which blocks to read. Blocks carry their block number g; the newest block
 * is the one with the highest g whose header is corroborated by its
 * predecessor (g - 1 in the previous slot), so no single damaged header can
 * move the window. The window is then extended past it over blocks whose
 * header write was lost but whose records are there (an interrupt can fill a
 * block while the writer that entered it has not written the header yet).
 * The window covers the nr_blocks block numbers up to the newest.
 *
 * Which words to trust. In a block of lap L a word is current (lap bits L),
 * stale (L - 1: an older lap, or a reservation never written) or empty
 * (zero). Anything else is a word no writer produces in one boot, and the
 * whole block is dropped as corrupt. A record is returned only when its head
 * and all continuation words are current and carry the same timestamp bits.
 *
 * Which blocks to trust whole. A sealed block (a seal word of its lap) is
 * read only if its seal matches its words. Writers seal in order, so a
 * block that is not sealed while a later block of the window is, is
 * damaged and dropped; the newest blocks, not sealed yet, are read by the
 * rules above alone.
 */
#include "recover.h"
#include "seal.h"
#include "format_asserts.h"

#define RT_WORDS		(RAMTRAIL_BLOCK_SIZE / 8)
/* A task event: head and struct ramtrail_ev_task */
#define RT_TASK_WORDS		(1 + sizeof(struct ramtrail_ev_task) / 4)
/* Block numbers stay far below this: a position is a 64-bit byte count. */
#define RT_MAX_BLOCK_NR		(1ULL << (64 - RAMTRAIL_BLOCK_SHIFT))

_Static_assert(sizeof(struct ramtrail_region_header) <= RAMTRAIL_HEADER_SIZE,
	       "region header larger than its page");
_Static_assert(offsetof(struct ramtrail_region_header, state) ==
	       offsetof(struct ramtrail_region_header, checksum) + 4,
	       "state must follow checksum: one span outside the checksum");
_Static_assert(offsetof(struct ramtrail_saved_trace, erased) ==
	       offsetof(struct ramtrail_saved_trace, checksum) + 4,
	       "erased must follow checksum: one span outside the checksum");
_Static_assert(offsetof(struct ramtrail_module_entry, checksum) ==
	       offsetof(struct ramtrail_module_entry, flags) + 4,
	       "checksum must follow flags: one span outside the checksum");

/* struct ramtrail_record's fields are those of its @head, at its start. */
#define RAMTRAIL_SAME_OFFSET(a, b)					\
	_Static_assert(offsetof(struct ramtrail_record, a) ==		\
		       offsetof(struct ramtrail_record, b),		\
		       "a field of struct ramtrail_record out of its head")
RAMTRAIL_SAME_OFFSET(ts, head.ts);
RAMTRAIL_SAME_OFFSET(pos, head.pos);
RAMTRAIL_SAME_OFFSET(ip, head.ip);
RAMTRAIL_SAME_OFFSET(parent, head.parent);
RAMTRAIL_SAME_OFFSET(type, head.type);
RAMTRAIL_SAME_OFFSET(ctx, head.ctx);
RAMTRAIL_SAME_OFFSET(len, head.len);
RAMTRAIL_SAME_OFFSET(flags, head.flags);
RAMTRAIL_SAME_OFFSET(id, head.id);
RAMTRAIL_SAME_OFFSET(task_known, head.task_known);
_Static_assert(offsetof(struct ramtrail_record, cpu) ==
	       sizeof(struct ramtrail_record_head), "the head comes first");

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
	u64 end = h->region_size;

	if (h->region_size > len || h->region_size < RAMTRAIL_HEADER_SIZE)
		return "region_size";
	if (h->modtab_count > RAMTRAIL_MAX_MODULES ||
	    !ramtrail_area_ok(h->modtab_offset, (u64)h->modtab_count *
			      sizeof(struct ramtrail_module_entry),
			      RAMTRAIL_HEADER_SIZE, end))
		return "modtab";
	if (h->dmesg_count > RAMTRAIL_MAX_DMESG ||
	    (h->dmesg_count &&
	     (h->dmesg_size % 8 ||
	      h->dmesg_size > h->region_size / h->dmesg_count ||
	      h->dmesg_size < sizeof(struct ramtrail_dmesg_header))) ||
	    !ramtrail_area_ok(h->dmesg_offset, h->dmesg_count * h->dmesg_size,
			      RAMTRAIL_HEADER_SIZE, end))
		return "dmesg";
	if (!ramtrail_area_ok(h->saved_offset, h->saved_size,
			      RAMTRAIL_HEADER_SIZE, end))
		return "saved";
	return NULL;
}

/* The zones: after every other area, inside the region. As above. */
static const char *ramtrail_zones_bad(const struct ramtrail_region_header *h)
{
	if (h->block_shift != RAMTRAIL_BLOCK_SHIFT)
		return "block_shift";
	if (h->nr_cpus < 1 || h->nr_cpus > RAMTRAIL_MAX_CPUS)
		return "nr_cpus";
	if (h->nr_blocks < RAMTRAIL_MIN_BLOCKS)
		return "nr_blocks";
	if (h->zone_offset % RAMTRAIL_BLOCK_SIZE ||
	    !ramtrail_area_ok(h->zone_offset, ramtrail_zones_size(h),
			      RAMTRAIL_HEADER_SIZE, h->region_size) ||
	    h->modtab_offset + (u64)h->modtab_count *
	    sizeof(struct ramtrail_module_entry) > h->zone_offset ||
	    h->dmesg_offset + h->dmesg_count * h->dmesg_size > h->zone_offset ||
	    h->saved_offset + h->saved_size > h->zone_offset)
		return "zone_offset";
	return NULL;
}

/* The per-boot fields, bounded to what a writer produces. As above. */
static const char *ramtrail_boot_bad(const struct ramtrail_region_header *h)
{
	if (h->clock_hz && (h->clock_hz < RAMTRAIL_CLOCK_HZ_MIN ||
			    h->clock_hz > RAMTRAIL_CLOCK_HZ_MAX))
		return "clock_hz";
	if (h->flags & ~(RAMTRAIL_F_CLOCK_RELIABLE | RAMTRAIL_F_STOP_WHEN_FULL))
		return "flags";
	if (h->boot_id >= 1ULL << 62)
		return "boot_id";
	if (h->clock_ref_cycles > RAMTRAIL_CLOCK_MASK)
		return "clock_ref_cycles";
	return NULL;
}

/**
 * ramtrail_region_open() - validate a region header
 * @reg: filled on success, and with the layout alone on some errors
 * @buf: the region's bytes
 * @len: bytes readable at @buf
 *
 * Checks magic, version, the layout checksum and that every area that
 * outlives a boot lies inside @len; then the header checksum, the zone
 * geometry, the per-boot fields and the state. For a geometry or a field
 * out of bounds, @reg->bad names the first that is. A header whose layout holds
 * but whose rest does not (a reset while it was rewritten, or while the
 * zones were being formatted) still gives @reg->base, so that saved traces
 * and dmesg records are found: only the zones are unusable.
 *
 * Return: RAMTRAIL_OK (zones usable, if the state says they hold a trace)
 * or an enum ramtrail_error.
 */
int ramtrail_region_open(struct ramtrail_region *reg, const void *buf,
			 u64 len)
{
	struct ramtrail_region_header *h = &reg->hdr;

	memset(reg, 0, sizeof(*reg));
	if (len < RAMTRAIL_HEADER_SIZE)
		return RAMTRAIL_E_SHORT;
	memcpy(h, buf, sizeof(*h));
	h->release[sizeof(h->release) - 1] = 0;
	h->build[sizeof(h->build) - 1] = 0;
	if (h->magic != RAMTRAIL_MAGIC)
		return RAMTRAIL_E_MAGIC;
	if (h->version != RAMTRAIL_VERSION)
		return RAMTRAIL_E_VERSION;
	if (h->layout_checksum != ramtrail_layout_checksum(h))
		return RAMTRAIL_E_CHECKSUM;
	reg->bad = ramtrail_areas_bad(h, len);
	if (reg->bad)
		return RAMTRAIL_E_GEOMETRY;
	reg->base = buf;
	reg->len = len;
	ramtrail_saved_scan(reg);
	if (h->header_size != offsetof(struct ramtrail_region_header, freeze) ||
	    h->checksum != ramtrail_header_checksum(h))
		return RAMTRAIL_E_CHECKSUM;
	reg->bad = ramtrail_zones_bad(h);
	if (reg->bad)
		return RAMTRAIL_E_GEOMETRY;
	reg->bad = ramtrail_boot_bad(h);
	if (reg->bad)
		return RAMTRAIL_E_FIELD;
	if (h->state == RAMTRAIL_STATE_FORMATTING ||
	    h->state >= RAMTRAIL_STATE_NR)
		return RAMTRAIL_E_STATE;
	return RAMTRAIL_OK;
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
	u32 state = reg->hdr.state;

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
	const struct ramtrail_module_entry *mods = ramtrail_region_modules(reg);
	u32 n = 0;

	while (n < reg->hdr.modtab_count && mods[n].base)
		n++;
	return n;
}

/**
 * ramtrail_zone_stats_sum() - add up what decoding each zone found
 * @sum: set to the sums of the counters (newest_block: the largest)
 * @cur: the zones' cursors
 * @n: how many
 */
void ramtrail_zone_stats_sum(struct ramtrail_zone_stats *sum,
			     const struct ramtrail_zone_cursor *cur, u32 n)
{
	u32 i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < n; i++) {
		const struct ramtrail_zone_stats *s = &cur[i].stats;

		sum->records += s->records;
		sum->blocks += s->blocks;
		sum->corrupt_blocks += s->corrupt_blocks;
		sum->sealed_blocks += s->sealed_blocks;
		sum->headerless_blocks += s->headerless_blocks;
		sum->torn += s->torn;
		sum->lost_words += s->lost_words;
		sum->no_base += s->no_base;
		sum->lost_refs += s->lost_refs;
		sum->ts_backwards += s->ts_backwards;
		sum->tasks += s->tasks;
		sum->no_task += s->no_task;
	}
}

/**
 * ramtrail_saved_count() - a saved trace's drop counters from its decode
 * @t: the saved trace, counters zero
 * @reg: the region it was recovered from
 * @cur: the cursors of the merge that filled it, one per zone
 */
void ramtrail_saved_count(struct ramtrail_saved_trace *t,
			  const struct ramtrail_region *reg,
			  const struct ramtrail_zone_cursor *cur)
{
	const struct ramtrail_freeze_info *f = ramtrail_region_freeze(reg);
	struct ramtrail_zone_stats sum;
	u32 cpu;

	ramtrail_zone_stats_sum(&sum, cur, reg->hdr.nr_cpus);
	t->corrupt_blocks = sum.corrupt_blocks;
	t->torn = sum.torn;
	t->lost_words = sum.lost_words;
	t->no_time = sum.no_base;
	t->dropped = 0;
	for (cpu = 0; f && cpu < reg->hdr.nr_cpus; cpu++)
		t->dropped += f->zone[cpu].dropped;
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
	u32 flags = reg->hdr.flags;

	if (f && !(f->clock_flags & RAMTRAIL_F_CLOCK_RELIABLE))
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

	if (f->checksum != ramtrail_freeze_checksum(f) ||
	    f->boot_id != reg->hdr.boot_id || f->nr_zones != reg->hdr.nr_cpus ||
	    f->reason >= RAMTRAIL_FREEZE_NR)
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
	return f && f->sealed[cpu / 64] >> (cpu % 64) & 1;
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
	return ~ramtrail_crc32_update(crc, d + 1, d->len);
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

	if (!reg->base || slot >= h->dmesg_count)
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
	return READ_ONCE(d->magic) == RAMTRAIL_DMESG_MAGIC &&
	       d->len <= h->dmesg_size - sizeof(*d) &&
	       d->checksum == ramtrail_dmesg_checksum(d);
}

/*
 * Whether entry @e, covering an address, can be what a record of counter
 * time @ts named there, given @after: a time before which it cannot have
 * begun (0: unknown). Init text that ended by @ts was not it.
 */
static bool ramtrail_module_at(const struct ramtrail_module_entry *e,
			       u64 ts, u64 after)
{
	if ((after && ts < after) || (e->gone && ts >= e->gone))
		return false;
	return !(e->flags & RAMTRAIL_MOD_INIT) || !e->core_size ||
	       ts < e->core_size;
}

/**
 * ramtrail_module_kernel() - the kernel's build a module table keeps
 * @tab: the table
 * @n: its entries
 * @hash: set to its hash (RAMTRAIL_MOD_KERNEL) when it is whole
 *
 * Return: 1 with *@hash set, 0 if the table has no kernel entry (written
 * before 0.15, or by a module that could not tell its kernel's build), -1
 * if its entry is damaged.
 */
int ramtrail_module_kernel(const struct ramtrail_module_entry *tab, u32 n,
			   u64 *hash)
{
	u32 i;

	for (i = 0; i < n && tab[i].base; i++) {
		if (!(tab[i].flags & RAMTRAIL_MOD_KERNEL))
			continue;
		if (tab[i].checksum != ramtrail_module_checksum(&tab[i]))
			return -1;
		*hash = tab[i].core_size;
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

		if (addr < e->base || addr - e->base >= e->size)
			continue;
		covering++;
		/* Damaged: what it held is unknown, but not before @after. */
		if (e->checksum != ramtrail_module_checksum(e)) {
			if (after && ts < after)
				continue;
			found = -2;
			break;
		}
		if (e->flags & RAMTRAIL_MOD_FULL) {
			full = min_t(u64, full, e->core_size);
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
		if ((e->flags & RAMTRAIL_MOD_INIT) && e->core_size) {
			after = max_t(u64, after, e->core_size);
			ended = true;
		}
		if (e->gone) {
			after = max_t(u64, after, e->gone);
			ended = true;
		}
	}
	/* Gone at a time not kept: a module with no entry may be it. */
	if (found >= 0 && ts >= full && !tab[found].gone &&
	    (READ_ONCE(tab[found].flags) & RAMTRAIL_MOD_GONE))
		found = -1;
	if (timed)
		*timed = covering > 1 || ended;
	return found < 0 ? -1 : found;
}

static u64 ramtrail_load(const u64 *p)
{
	return le64_to_cpu(READ_ONCE(*p));
}

static unsigned int ramtrail_type(u64 w)
{
	return w & ((1U << RAMTRAIL_TYPE_BITS) - 1);
}

static unsigned int ramtrail_lap(u64 w)
{
	return (w >> RAMTRAIL_LAP_SHIFT) & RAMTRAIL_LAP_MASK;
}

static u64 ramtrail_tsbits(u64 w)
{
	return (w >> RAMTRAIL_TS_SHIFT) & RAMTRAIL_TS_MASK;
}

static u32 ramtrail_payload(u64 w)
{
	return w >> RAMTRAIL_PAYLOAD_SHIFT;
}

/* Types a writer of this version produces (any lap). */
static bool ramtrail_type_valid(unsigned int type)
{
	return type != RAMTRAIL_W_EMPTY && type < RAMTRAIL_W_NR_TYPES;
}

/* Words a record occupies, from its head word; 0 for a non-head. */
static unsigned int ramtrail_record_words(u64 head)
{
	unsigned int type = ramtrail_type(head);

	if (RAMTRAIL_W_IS_FUNC(type))
		return RAMTRAIL_W_HAS_PARENT(type) ? 2 : 1;
	switch (type) {
	case RAMTRAIL_W_BLOCK:
		return RAMTRAIL_BLOCK_HEAD_WORDS;
	case RAMTRAIL_W_PAD:
	case RAMTRAIL_W_TSEXT:
	case RAMTRAIL_W_FUNC_REF:
		return 1;
	case RAMTRAIL_W_EVENT:
		return 1 + DIV_ROUND_UP(RAMTRAIL_EVENT_LEN(ramtrail_payload(head)), 4);
	default:
		return 0;
	}
}

/*
 * Are words 1..n-1 after @w[0] its continuation, all of lap @lap? @head
 * is @w[0] as the caller read it: a live zone's word is read once.
 */
static bool ramtrail_record_complete(const u64 *w, u64 head, unsigned int n,
				     unsigned int lap)
{
	u64 ts = ramtrail_tsbits(head);
	unsigned int i;

	for (i = 1; i < n; i++) {
		u64 c = ramtrail_load(w + i);

		if (ramtrail_type(c) != RAMTRAIL_W_CONT || ramtrail_lap(c) != lap ||
		    ramtrail_tsbits(c) != ts)
			return false;
	}
	return true;
}

/* A complete block header at @b: its block number and full timestamp. */
static bool ramtrail_header(const u64 *b, u64 *g, u64 *ts)
{
	u64 w = ramtrail_load(b);

	if (ramtrail_type(w) != RAMTRAIL_W_BLOCK ||
	    !ramtrail_record_complete(b, w, RAMTRAIL_BLOCK_HEAD_WORDS,
				      ramtrail_lap(w)))
		return false;
	*g = ramtrail_payload(w) | (u64)ramtrail_payload(ramtrail_load(b + 1)) << 32;
	*ts = (u64)ramtrail_payload(ramtrail_load(b + 2)) << RAMTRAIL_TS_BITS |
	      ramtrail_tsbits(w);
	return true;
}

static const u64 *ramtrail_block(const struct ramtrail_zone_cursor *c, u64 g,
				 unsigned int *lap)
{
	u32 index;
	u64 l = div_u64_rem(g, c->nr_blocks, &index);

	*lap = l & RAMTRAIL_LAP_MASK;
	return c->zone + (u64)index * RT_WORDS;
}

/* A header that is complete and consistent with the slot it sits in. */
static bool ramtrail_header_at(const struct ramtrail_zone_cursor *c, u32 index,
			       u64 *g)
{
	const u64 *b = c->zone + (u64)index * RT_WORDS;
	unsigned int lap;
	u64 ts;

	if (!ramtrail_header(b, g, &ts) || *g >= RT_MAX_BLOCK_NR)
		return false;
	return ramtrail_block(c, *g, &lap) == b && ramtrail_lap(ramtrail_load(b)) == lap;
}

/* Words ramtrail_block_sane() looks at as one, when all are current. */
#define RAMTRAIL_SANE_RUN	8
_Static_assert(RT_WORDS % RAMTRAIL_SANE_RUN == 0, "a block is whole runs");

/* Bit 0 set if the 4 words at @w all have a bit of @cur set (type and lap). */
static __always_inline u64 ramtrail_current4(const u64 *w, u64 cur)
{
	return cur >> (ramtrail_load(w) & 63) &
	       cur >> (ramtrail_load(w + 1) & 63) &
	       cur >> (ramtrail_load(w + 2) & 63) &
	       cur >> (ramtrail_load(w + 3) & 63);
}

/*
 * Check a block believed to be block number @g before reading it.
 * Return: false if it holds a word no writer of block @g produces;
 * *written tells whether any word was written for block @g.
 *
 * The low 6 bits of a word (type and lap) index a bitmap of the ones
 * that need no further look, which keeps this pass near memory speed:
 * a run of words that are all of this lap and of a type that needs no
 * look is one test; any other run is looked at word by word.
 */
static bool ramtrail_block_sane(const struct ramtrail_zone_cursor *c, u64 g,
				bool *written)
{
	unsigned int lap, stale, type, i;
	const u64 *b = ramtrail_block(c, g, &lap);
	u64 plain = 0, cur = 0;
	bool any = false;

	stale = (lap - 1) & RAMTRAIL_LAP_MASK;
	for (type = RAMTRAIL_W_BLOCK; type < RAMTRAIL_W_NR_TYPES; type++) {
		if (!ramtrail_type_valid(type))
			continue;
		plain |= 1ULL << (type | stale << RAMTRAIL_LAP_SHIFT);
		if (type != RAMTRAIL_W_BLOCK && type != RAMTRAIL_W_EVENT &&
		    type != RAMTRAIL_W_SEAL)
			cur |= 1ULL << (type | lap << RAMTRAIL_LAP_SHIFT);
	}
	for (i = 0; i < RT_WORDS; i++) {
		u64 w, hg, ts;
		unsigned int low;

		if (!(i % RAMTRAIL_SANE_RUN) &&
		    ramtrail_current4(b + i, cur) &
		    ramtrail_current4(b + i + 4, cur) & 1) {
			any = true;
			i += RAMTRAIL_SANE_RUN - 1;
			continue;
		}
		w = ramtrail_load(b + i);
		low = w & 63;
		if (cur >> low & 1) {
			any = true;
			continue;
		}
		if (!w || plain >> low & 1)
			continue;
		type = ramtrail_type(w);
		if (ramtrail_lap(w) != lap || (type != RAMTRAIL_W_BLOCK &&
					       type != RAMTRAIL_W_EVENT &&
					       type != RAMTRAIL_W_SEAL))
			break;
		if (type == RAMTRAIL_W_SEAL && i != RAMTRAIL_SEAL_WORD)
			break;
		if (type == RAMTRAIL_W_BLOCK &&
		    (i || (ramtrail_header(b, &hg, &ts) && hg != g)))
			break;
		if (type == RAMTRAIL_W_EVENT &&
		    RAMTRAIL_EVENT_FLAGS(ramtrail_payload(w)) & ~RAMTRAIL_EF_MASK)
			break;
		any = true;
	}
	*written = any;
	return i == RT_WORDS;
}

/* The seal word of block @g, if it holds one of the block's lap. */
static bool ramtrail_sealed(const struct ramtrail_zone_cursor *c, u64 g,
			    u64 *seal)
{
	unsigned int lap;
	const u64 *b = ramtrail_block(c, g, &lap);

	*seal = ramtrail_load(b + RAMTRAIL_SEAL_WORD);
	return ramtrail_type(*seal) == RAMTRAIL_W_SEAL &&
	       ramtrail_lap(*seal) == lap;
}

/* The newest sealed block of the window: unsealed ones before it are damaged. */
static void ramtrail_seal_window(struct ramtrail_zone_cursor *c)
{
	u64 g, seal;

	c->seal_top = ~0ULL;
	for (g = c->g_last + 1; g-- > c->g;)
		if (ramtrail_sealed(c, g, &seal)) {
			c->seal_top = g;
			break;
		}
}

/* Pick the window of block numbers to read. */
static void ramtrail_zone_window(struct ramtrail_zone_cursor *c)
{
	u64 g, prev, top = 0, start = 0;
	bool found = false, corroborated = false, written;
	u32 i;

	for (i = 0; i < c->nr_blocks; i++) {
		bool corr;

		if (!ramtrail_header_at(c, i, &g))
			continue;
		corr = !g || (ramtrail_header_at(c, i ? i - 1 : c->nr_blocks - 1,
					   &prev) && prev == g - 1);
		if (!found || (corr && !corroborated) ||
		    (corr == corroborated && g > top)) {
			top = g;
			corroborated = corr;
		}
		found = true;
	}
	if (found)
		start = top + 1;
	/* Blocks entered after the newest header, their headers lost. */
	for (g = start; g < start + c->nr_blocks && g < RT_MAX_BLOCK_NR; g++) {
		unsigned int lap;
		const u64 *b = ramtrail_block(c, g, &lap);
		u64 hg;

		if (ramtrail_header_at(c, (b - c->zone) / RT_WORDS, &hg) && hg == g) {
			top = g;
			found = true;
			continue;
		}
		if (!ramtrail_block_sane(c, g, &written)) {
			/*
			 * Damage. Count it here only in the first lap: later,
			 * this slot is the oldest block of the window and is
			 * checked (and counted) as such.
			 */
			c->stats.corrupt_blocks += g < c->nr_blocks;
			break;
		}
		if (!written)
			break;
		top = g;
		found = true;
	}
	c->stats.newest_block = found ? top : ~0ULL;
	c->g_last = top;
	c->g = top + 1 >= c->nr_blocks ? top + 1 - c->nr_blocks : 0;
	if (!found)
		c->g = 1;	/* g > g_last: nothing to read */
	ramtrail_seal_window(c);
}

/* A cursor on zone @zone that has read nothing and ends nowhere. */
static void ramtrail_cursor_reset(struct ramtrail_zone_cursor *c,
				  const u64 *zone, u32 nr_blocks, u32 cpu)
{
	memset(c, 0, sizeof(*c));
	c->zone = zone;
	c->nr_blocks = nr_blocks;
	c->cpu = cpu;
	c->rec.cpu = cpu;
	c->end_pos = ~0ULL;
	c->end_ts = ~0ULL;
}

/**
 * ramtrail_zone_open_raw() - start decoding a zone given by address
 * @c: the cursor
 * @zone: first word of the zone
 * @nr_blocks: blocks in the zone (at least RAMTRAIL_MIN_BLOCKS)
 * @cpu: number reported in the records
 */
void ramtrail_zone_open_raw(struct ramtrail_zone_cursor *c, const u64 *zone,
			    u32 nr_blocks, u32 cpu)
{
	ramtrail_cursor_reset(c, zone, nr_blocks, cpu);
	ramtrail_zone_window(c);
}

/**
 * ramtrail_zone_open_window() - start decoding given blocks of a zone
 * @c: the cursor
 * @zone: first word of the zone
 * @nr_blocks: blocks in the zone (at least RAMTRAIL_MIN_BLOCKS)
 * @cpu: number reported in the records
 * @first: block number of the first block to read
 * @last: block number of the last one; @first > @last reads nothing
 *
 * For a reader that knows where the newest block is (the writer's own
 * position, in the kernel that writes): no block header is searched, so
 * the work is that of the window, whatever the zone's size. At most the
 * newest @nr_blocks blocks of the window are read; blocks a later lap
 * took over read as stale, as in any decode.
 */
void ramtrail_zone_open_window(struct ramtrail_zone_cursor *c,
			       const u64 *zone, u32 nr_blocks, u32 cpu,
			       u64 first, u64 last)
{
	ramtrail_cursor_reset(c, zone, nr_blocks, cpu);
	if (last >= RT_MAX_BLOCK_NR)
		last = RT_MAX_BLOCK_NR - 1;
	if (first <= last && last - first >= nr_blocks)
		first = last + 1 - nr_blocks;
	c->g = first;
	c->g_last = last;
	c->stats.newest_block = last;
	ramtrail_seal_window(c);
}

/**
 * ramtrail_zone_open() - start decoding one zone of a validated region
 * @c: the cursor
 * @reg: region opened with ramtrail_region_open()
 * @cpu: zone number, below reg->hdr.nr_cpus
 *
 * A zone that the freeze record says was sealed when recording stopped
 * is read up to where it stopped, every block sealed; any other from its
 * newest block, as ramtrail_zone_open_raw() does.
 */
void ramtrail_zone_open(struct ramtrail_zone_cursor *c,
			const struct ramtrail_region *reg, u32 cpu)
{
	const struct ramtrail_region_header *h = &reg->hdr;
	const struct ramtrail_freeze_info *f = ramtrail_region_freeze(reg);
	const u64 *zone = (const u64 *)(reg->base +
					ramtrail_zone_offset(h, cpu));
	u64 end, last;

	if (!ramtrail_freeze_sealed(f, cpu)) {
		ramtrail_zone_open_raw(c, zone, h->nr_blocks, cpu);
		return;
	}
	/*
	 * Sealed when recording stopped: the zone ends where it stopped, and
	 * every block of it is sealed, whatever its headers and seal words
	 * say now.
	 */
	end = f->zone[cpu].freeze_pos;
	last = end ? (end - 1) >> RAMTRAIL_BLOCK_SHIFT : 0;
	ramtrail_zone_open_window(c, zone, h->nr_blocks, cpu, end ? 0 : 1,
				  last);
	if (!end)
		c->stats.newest_block = ~0ULL;
	c->seal_top = last;
	c->end_pos = end;
}

/* A full timestamp (header or TSEXT): becomes the base of what follows. */
static void ramtrail_set_base(struct ramtrail_zone_cursor *c, u64 full)
{
	u64 d = (full - c->ts) & RAMTRAIL_CLOCK_MASK;

	if (!c->have_base) {
		c->ts = full;
		c->have_base = true;
	} else if (d < RAMTRAIL_CLOCK_MASK / 2) {
		c->ts += d;	/* forward, across a 58-bit wrap if need be */
	} else {
		c->stats.ts_backwards++;
	}
}

/* The record's task may change: a new @task_gen, never 0. */
static void ramtrail_task_changed(struct ramtrail_zone_cursor *c)
{
	if (!++c->rec.task_gen)
		c->rec.task_gen = 1;
}

/*
 * The blocks a FUNC_REF of block @c->g may name: the three before it,
 * while the zone has room for them beside it.
 */
static void ramtrail_back_blocks(struct ramtrail_zone_cursor *c)
{
	u32 k;

	for (k = 1; k <= RAMTRAIL_REF_BACK_MAX; k++)
		c->back[k - 1] = c->g >= k && k < c->nr_blocks &&
				 !(c->dropped >> k & 1) ?
				 ramtrail_block(c, c->g - k, &c->back_lap[k - 1]) :
				 NULL;
}

/*
 * Whether block @c->g may be read, and its words (@c->end_word): sealed
 * with a matching seal, its sealed words; or not sealed yet, newer than
 * every sealed block, all of them.
 */
static bool ramtrail_seal_ok(struct ramtrail_zone_cursor *c)
{
	u64 seal, v;
	u32 n;

	c->end_word = RT_WORDS;
	if (!ramtrail_sealed(c, c->g, &seal))
		return c->seal_top == ~0ULL || c->g > c->seal_top;
	v = (u64)ramtrail_payload(seal) << RAMTRAIL_TS_BITS |
	    ramtrail_tsbits(seal);
	n = (v & RAMTRAIL_SEAL_N_MASK) + 1;
	if (n < RAMTRAIL_BLOCK_WORDS_HDR || ramtrail_seal_value(c->block, n) != v)
		return false;
	c->end_word = n;
	c->stats.sealed_blocks++;
	return true;
}

static bool ramtrail_enter_block(struct ramtrail_zone_cursor *c)
{
	const u64 *b = ramtrail_block(c, c->g, &c->lap);
	bool written;
	u64 g, ts;

	/* A zone of stale words is one call of ramtrail_zone_next(). */
	if (c->may_sleep)
		cond_resched();
	c->block = b;
	/* Blocks are entered in order: the verdicts move on by one. */
	c->dropped <<= 1;
	ramtrail_back_blocks(c);
	c->stats.blocks++;
	c->entry_ts = c->ts;
	c->entry_base = c->have_base;
	if (!ramtrail_block_sane(c, c->g, &written) || !ramtrail_seal_ok(c)) {
		c->stats.corrupt_blocks++;
		c->have_base = false;
		c->dropped |= 1;
		return false;
	}
	/* ramtrail_block_sane() checked the number of a current header. */
	if (!ramtrail_header(b, &g, &ts) || ramtrail_lap(ramtrail_load(b)) != c->lap)
		c->stats.headerless_blocks++;
	c->word = 0;
	c->stale = 0;
	c->task_known = false;	/* [R5]: each block names its tasks */
	c->rec.task_known = false;
	ramtrail_task_changed(c);
	return true;
}

/* The record at @w, of @n words, whose head word was read as @head. */
static void ramtrail_fill(struct ramtrail_zone_cursor *c, const u64 *w,
			  u64 head, unsigned int n)
{
	struct ramtrail_record *r = &c->rec;
	unsigned int i, type = ramtrail_type(head);

	r->ts = c->ts;
	r->pos = (c->g << RAMTRAIL_BLOCK_SHIFT) + (u64)c->word * 8;
	r->ip = 0;
	r->parent = 0;
	r->id = 0;
	r->len = 0;
	r->flags = 0;
	/* r->task and r->task_known follow the task events as they come. */
	if (!c->task_known)
		c->stats.no_task++;
	if (type == RAMTRAIL_W_EVENT) {
		r->type = type;
		r->id = RAMTRAIL_EVENT_ID(ramtrail_payload(head));
		r->len = RAMTRAIL_EVENT_LEN(ramtrail_payload(head));
		r->flags = RAMTRAIL_EVENT_FLAGS(ramtrail_payload(head));
		r->ctx = r->flags & RAMTRAIL_CTX_MASK;
		for (i = 0; i < DIV_ROUND_UP(r->len, 4); i++) {
			u32 v = ramtrail_payload(ramtrail_load(w + 1 + i));

			memcpy(r->data + 4 * i, &v, 4);	/* little-endian */
		}
	} else {
		r->type = RAMTRAIL_W_HAS_PARENT(type) ? RAMTRAIL_W_FUNC_PARENT :
							RAMTRAIL_W_FUNC;
		r->ctx = RAMTRAIL_W_CTX(type);
		r->ip = ramtrail_payload(head);
		if (n > 1)
			r->parent = ramtrail_payload(ramtrail_load(w + 1));
	}
}

/* A task event, head word @head: the task of the block's records that follow. */
static bool ramtrail_task_event(struct ramtrail_zone_cursor *c, const u64 *w,
				u64 head)
{
	u32 p = ramtrail_payload(head);
	u32 *t = (u32 *)&c->task;
	unsigned int i;

	if (ramtrail_type(head) != RAMTRAIL_W_EVENT ||
	    RAMTRAIL_EVENT_ID(p) != RAMTRAIL_EV_TASK)
		return false;
	c->task_known = RAMTRAIL_EVENT_LEN(p) == sizeof(c->task);
	if (c->task_known) {
		for (i = 0; i < sizeof(c->task) / 4; i++)
			t[i] = ramtrail_payload(ramtrail_load(w + 1 + i));
		c->stats.tasks++;
		c->rec.task = c->task;
	} else {
		c->stats.torn++;	/* no writer makes it: unknown task */
	}
	c->rec.task_known = c->task_known;
	ramtrail_task_changed(c);
	return true;
}

/*
 * The low half of a FUNC_PARENT's continuation: CONT, with the lap and
 * timestamp bits of its head @w.
 */
static u32 ramtrail_cont_of(u64 w)
{
	return ((u32)w & ~((1U << RAMTRAIL_TYPE_BITS) - 1)) | RAMTRAIL_W_CONT;
}

/*
 * The blocks a FUNC_REF of the cursor's block may name, by how far back:
 * @r->b[0] the block itself, then those of @c->back; in @r->head, the low
 * bits a FUNC_PARENT head of the block's lap has (any context); in
 * @r->end, the word a record of the block before must start below (the
 * header's end for a block there is none of: no word).
 */
struct ramtrail_ref_blocks {
	const u64 *b[RAMTRAIL_REF_BACK_MAX + 1];
	u64 head[RAMTRAIL_REF_BACK_MAX + 1];
	u32 end[RAMTRAIL_REF_BACK_MAX + 1];
};

/* The type bits of a FUNC_PARENT head that do not tell its context. */
#define RAMTRAIL_PARENT_BITS	(RAMTRAIL_W_FUNC_PARENT | \
				 RAMTRAIL_LAP_MASK << RAMTRAIL_LAP_SHIFT)

static __always_inline void
ramtrail_ref_blocks(const struct ramtrail_zone_cursor *c,
		    struct ramtrail_ref_blocks *r)
{
	u32 k;

	r->b[0] = c->block;
	r->head[0] = RAMTRAIL_W_FUNC_PARENT | c->lap << RAMTRAIL_LAP_SHIFT;
	r->end[0] = 0;	/* the referring record's word: ramtrail_ref_resolve() */
	for (k = 1; k <= RAMTRAIL_REF_BACK_MAX; k++) {
		r->b[k] = c->back[k - 1];
		r->head[k] = RAMTRAIL_W_FUNC_PARENT |
			     c->back_lap[k - 1] << RAMTRAIL_LAP_SHIFT;
		r->end[k] = r->b[k] ? RT_WORDS - 1 : RAMTRAIL_BLOCK_WORDS_HDR;
	}
}

/*
 * The function and caller that the FUNC_REF @w at word @word names: those
 * of the FUNC_PARENT record at its word, earlier in its block or in one of
 * the three before (@r from ramtrail_ref_blocks()), complete in the lap of
 * its block, and matching the check @w carries. @word is past the block's
 * header (RAMTRAIL_BLOCK_WORDS_HDR or more). Return: 1 with @ip and
 * @parent set; 0 if there is no such record; -1 if the reference names a
 * block before and a later lap took that block (the window's oldest
 * blocks refer to them).
 */
static __always_inline int ramtrail_ref_resolve(const struct ramtrail_ref_blocks *r,
						u32 word, u64 w, u32 *ip,
						u32 *parent)
{
	u32 p = ramtrail_payload(w), i = RAMTRAIL_REF_WORD(p);
	u32 back = RAMTRAIL_REF_BACK(p), e;
	u64 head, cont;

	/*
	 * Both words of the record inside the block, past its header: in the
	 * block itself, before @word (below RT_WORDS).
	 */
	e = back ? r->end[back] : word;
	if (i - RAMTRAIL_BLOCK_WORDS_HDR >= e - RAMTRAIL_BLOCK_WORDS_HDR)
		return 0;
	head = ramtrail_load(r->b[back] + i);
	/* A FUNC_PARENT (types 12 to 15) of the block's lap. */
	if ((head & RAMTRAIL_PARENT_BITS) != r->head[back])
		return back && ramtrail_lap(head) ==
			       ((ramtrail_lap(r->head[back]) + 1) &
				RAMTRAIL_LAP_MASK) ? -1 : 0;
	cont = ramtrail_load(r->b[back] + i + 1);
	if ((u32)cont != ramtrail_cont_of(head))
		return 0;
	*ip = ramtrail_payload(head);
	*parent = ramtrail_payload(cont);
	return RAMTRAIL_REF_CHECK(*ip, *parent) ==
	       p >> RAMTRAIL_REF_CHECK_SHIFT;
}

/*
 * The common case of ramtrail_zone_next(), a run of function records at
 * the cursor, decoded in one tight loop into @c->batch: the same checks as
 * the general path, the same records. The run ends at the first word the
 * general path must see (another kind, a stale or torn word, a reference
 * to nothing), after RAMTRAIL_BATCH records, or before the record that
 * ends the zone (@c->end_pos, @c->end_ts). Return: the records decoded.
 */
static u32 ramtrail_zone_batch(struct ramtrail_zone_cursor *c)
{
	struct ramtrail_ref_blocks r;
	const u64 *b = c->block;
	u64 ts = c->ts, pos = c->g << RAMTRAIL_BLOCK_SHIFT;
	u64 cur = (u64)c->lap << RAMTRAIL_LAP_SHIFT;
	struct ramtrail_record_head *e = c->batch;
	u32 word = c->word, stop = c->end_word, n = 0;
	bool task_known = c->task_known;

	/* A block's first records are the header: the general path's. */
	if (!c->in_block || !c->have_base || word < RAMTRAIL_BLOCK_WORDS_HDR)
		return 0;
	ramtrail_ref_blocks(c, &r);
	/* The record at or past @c->end_pos ends the zone: the general path's. */
	if (c->end_pos <= pos)
		stop = 0;
	else if (c->end_pos - pos < (u64)stop * 8)
		stop = DIV_ROUND_UP(c->end_pos - pos, 8);
	while (n < RAMTRAIL_BATCH && word < stop) {
		u64 w = ramtrail_load(b + word), cont;
		unsigned int low = w & (RAMTRAIL_PARENT_BITS | RAMTRAIL_CTX_MASK);
		unsigned int kind, ctx = RAMTRAIL_W_CTX(low), words = 1;
		u32 ip = ramtrail_payload(w), parent = 0;

		/* Type and lap at once: a word of another lap matches none. */
		if (low == (RAMTRAIL_W_FUNC_REF | cur)) {
			if (ramtrail_ref_resolve(&r, word, w, &ip, &parent) <= 0)
				break;
			kind = RAMTRAIL_W_FUNC_PARENT;
			ctx = RAMTRAIL_REF_CTX(ramtrail_payload(w));
		} else if ((low & RAMTRAIL_PARENT_BITS) == r.head[0]) {
			if (word + 1 >= stop)
				break;
			cont = ramtrail_load(b + word + 1);
			if ((u32)cont != ramtrail_cont_of(w))
				break;
			parent = ramtrail_payload(cont);
			kind = RAMTRAIL_W_FUNC_PARENT;
			words = 2;
		} else if ((low & RAMTRAIL_PARENT_BITS) == (RAMTRAIL_W_FUNC | cur)) {
			kind = RAMTRAIL_W_FUNC;
		} else {
			break;
		}
		/* The writer keeps records within 2^26 of the base. */
		ts += (ramtrail_tsbits(w) - ts) & RAMTRAIL_TS_MASK;
		/* @len, @flags and @id stay 0 from ramtrail_cursor_reset(). */
		e[n].ts = ts;
		e[n].pos = pos + word * 8;
		e[n].ip = ip;
		e[n].parent = parent;
		e[n].type = kind;
		e[n].ctx = ctx;
		e[n].task_known = task_known;
		word += words;
		n++;
	}
	/* Time never goes back in a zone: the record newer than @c->end_ts ends it. */
	if (n && e[n - 1].ts > c->end_ts) {
		while (n && e[n - 1].ts > c->end_ts)
			n--;
		word = (e[n].pos - pos) / 8;
		ts = n ? e[n - 1].ts : c->ts;
	}
	if (!n)
		return 0;
	/* Counted as decoded: every record of a batch is returned. */
	c->stats.records += n;
	if (!task_known)
		c->stats.no_task += n;
	c->stats.lost_words += c->stale;
	c->stale = 0;
	c->ts = ts;
	c->word = word;
	c->nr_batch = n;
	c->next_batch = 0;
	return n;
}

/* The next record of @c->batch, into @c->rec. */
static __always_inline void ramtrail_batch_pop(struct ramtrail_zone_cursor *c)
{
	/* @c->rec.cpu is the cursor's since it was opened. */
	c->rec.head = c->batch[c->next_batch++];
}

/* ramtrail_zone_next() past its fast path. */
static noinline bool ramtrail_zone_next_slow(struct ramtrail_zone_cursor *c)
{
	for (;;) {
		const u64 *b;
		u64 w;
		unsigned int n, type;
		u32 ip = 0, parent = 0;
		int named;

		if (!c->in_block) {
			if (c->g > c->g_last)
				return false;
			c->in_block = ramtrail_enter_block(c);
			if (!c->in_block) {
				c->g++;
				continue;
			}
		}
		if (c->word >= c->end_word) {
			c->in_block = false;
			c->g++;
			continue;
		}
		if (c->word == RAMTRAIL_SEAL_WORD) {
			c->word++;	/* checked when the block was entered */
			continue;
		}
		b = c->block;
		w = ramtrail_load(b + c->word);
		type = ramtrail_type(w);
		if (!w || ramtrail_lap(w) != c->lap) {
			c->stale++;
			c->word++;
			continue;
		}
		n = ramtrail_record_words(w);
		if (!n || c->word + n > c->end_word ||
		    !ramtrail_record_complete(b + c->word, w, n, c->lap)) {
			c->stats.torn++;
			c->stats.lost_words += c->stale;
			c->stale = 0;
			c->word++;
			continue;
		}
		c->stats.lost_words += c->stale;
		c->stale = 0;
		switch (type) {
		case RAMTRAIL_W_BLOCK:
			ramtrail_set_base(c, (u64)ramtrail_payload(ramtrail_load(b + 2)) <<
				    RAMTRAIL_TS_BITS | ramtrail_tsbits(w));
			break;
		case RAMTRAIL_W_TSEXT:
			ramtrail_set_base(c, (u64)ramtrail_payload(w) << RAMTRAIL_TS_BITS |
				    ramtrail_tsbits(w));
			break;
		case RAMTRAIL_W_PAD:
			break;
		default:
			if (ramtrail_task_event(c, b + c->word, w))
				break;
			if (!c->have_base) {
				c->stats.no_base++;
				break;
			}
			if (type == RAMTRAIL_W_FUNC_REF) {
				u32 past = max_t(u32, c->word,
						 RAMTRAIL_BLOCK_WORDS_HDR);
				struct ramtrail_ref_blocks r;

				ramtrail_ref_blocks(c, &r);
				named = ramtrail_ref_resolve(&r, past, w, &ip,
							     &parent);
				if (named <= 0) {
					if (named)
						c->stats.lost_refs++;
					else
						c->stats.torn++;
					break;
				}
			}
			/* The writer keeps records within 2^26 of the base. */
			c->ts += (ramtrail_tsbits(w) - c->ts) & RAMTRAIL_TS_MASK;
			ramtrail_fill(c, b + c->word, w, n);
			if (type == RAMTRAIL_W_FUNC_REF) {
				c->rec.type = RAMTRAIL_W_FUNC_PARENT;
				c->rec.ctx = RAMTRAIL_REF_CTX(ramtrail_payload(w));
				c->rec.ip = ip;
				c->rec.parent = parent;
			}
			if (c->rec.pos >= c->end_pos || c->rec.ts > c->end_ts) {
				c->in_block = false;
				c->g = c->g_last + 1;
				return false;
			}
			c->word += n;
			c->stats.records++;
			return true;
		}
		c->word += n;
	}
}

/* ramtrail_zone_next() once its batch is returned: the next, or the rest. */
static noinline bool ramtrail_zone_refill(struct ramtrail_zone_cursor *c)
{
	if (ramtrail_zone_batch(c)) {
		ramtrail_batch_pop(c);
		return true;
	}
	return ramtrail_zone_next_slow(c);
}

/* ramtrail_zone_next(), inline where the merge calls it. */
static __always_inline bool ramtrail_zone_step(struct ramtrail_zone_cursor *c)
{
	if (likely(c->next_batch < c->nr_batch)) {
		ramtrail_batch_pop(c);
		return true;
	}
	return ramtrail_zone_refill(c);
}

/**
 * ramtrail_zone_next() - decode the next valid record of a zone
 * @c: cursor from ramtrail_zone_open()
 *
 * Records come in zone order, which is time order: @c->rec.ts never
 * decreases. Dropped words and records are counted in @c->stats.
 *
 * Return: true with the record in @c->rec, false at the end of the zone.
 */
bool ramtrail_zone_next(struct ramtrail_zone_cursor *c)
{
	return ramtrail_zone_step(c);
}

/**
 * ramtrail_tail_open() - open a cursor on a tail found by ramtrail_tail_find()
 * @t: the tail
 * @c: the cursor
 * @whole: from the window's first record, not the tail's
 */
void ramtrail_tail_open(const struct ramtrail_tail *t,
			struct ramtrail_zone_cursor *c, bool whole)
{
	u32 skip = whole ? 0 : t->skip;

	ramtrail_zone_open_window(c, t->zone, t->nr_blocks, t->cpu, t->first,
				  t->last);
	c->end_pos = t->end;
	c->end_ts = t->end_ts;
	while (skip-- && ramtrail_zone_next(c))
		;
}

/*
 * Blocks that hold @n records of the largest kind, each behind a task
 * event, wherever they start: no tail needs more, however torn the zone.
 */
static u64 ramtrail_tail_max_blocks(u32 n)
{
	u64 words = (u64)n * (RT_TASK_WORDS + 2 +
			      DIV_ROUND_UP(RAMTRAIL_EVENT_MAX_LEN, 4));

	return 2 + div64_u64(words, RT_WORDS - RAMTRAIL_BLOCK_WORDS_HDR -
				    RT_TASK_WORDS);
}

/**
 * ramtrail_tail_find() - find the newest records of a zone
 * @t: the tail: @zone, @nr_blocks, @cpu, @end and @end_ts set by the caller
 * @c: a cursor to decode with
 * @n: records wanted
 *
 * Decodes windows of the blocks before @end, doubling, until one holds @n
 * records, reaches the zone's start or covers the most that @n records can
 * take: the work depends on @n, not on the size of the zone. Sets @first,
 * @last, @skip, @records and @newest_ts.
 */
void ramtrail_tail_find(struct ramtrail_tail *t, struct ramtrail_zone_cursor *c,
			u32 n)
{
	u64 max = ramtrail_tail_max_blocks(n), blocks;
	u32 got = 0;

	if (max > t->nr_blocks)
		max = t->nr_blocks;
	t->newest_ts = 0;
	t->skip = 0;
	t->records = 0;
	t->last = t->end ? (t->end - 1) >> RAMTRAIL_BLOCK_SHIFT : 0;
	t->first = t->end ? t->last : t->last + 1;	/* empty */
	for (blocks = 1; t->end; blocks = 2 * blocks < max ? 2 * blocks : max) {
		t->first = t->last + 1 > blocks ? t->last + 1 - blocks : 0;
		ramtrail_tail_open(t, c, true);
		for (got = 0; ramtrail_zone_next(c); got++)
			t->newest_ts = c->rec.ts;
		if (got >= n || !t->first || blocks >= max)
			break;
	}
	t->skip = got > n ? got - n : 0;
	t->records = got - t->skip;
}

/*
 * Merge order: (ts, cpu, pos). The heap keeps each cursor's ts beside it,
 * so only a tie reads the records.
 */
static bool ramtrail_before(const struct ramtrail_merge *m,
			    const struct ramtrail_merge_slot *a,
			    const struct ramtrail_merge_slot *b)
{
	const struct ramtrail_record *x, *y;

	if (a->ts != b->ts)
		return a->ts < b->ts;
	x = &a->cursor->rec;
	y = &b->cursor->rec;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu;
	return x->pos < y->pos;
}

/*
 * Field by field: a slot read back as one 16-byte load after two 8-byte
 * stores would defeat store forwarding.
 */
static __always_inline void ramtrail_slot_set(struct ramtrail_merge_slot *dst,
					      const struct ramtrail_merge_slot *src)
{
	dst->ts = src->ts;
	dst->cursor = src->cursor;
}

/* Put @x in the heap's hole at @i, moving older children up. */
static __always_inline void
ramtrail_sift_down(struct ramtrail_merge *m, u32 i, struct ramtrail_merge_slot x)
{
	struct ramtrail_merge_slot *h = m->heap;
	u32 c;

	while ((c = 2 * i + 1) < m->nr) {
		if (c + 1 < m->nr && ramtrail_before(m, &h[c + 1], &h[c]))
			c++;
		if (!ramtrail_before(m, &h[c], &x))
			break;
		ramtrail_slot_set(&h[i], &h[c]);
		i = c;
	}
	ramtrail_slot_set(&h[i], &x);
}

/* The top's children's oldest counter value: see struct ramtrail_merge. */
static void ramtrail_merge_limit(struct ramtrail_merge *m)
{
	u64 limit = ~0ULL;
	u32 i;

	for (i = 1; i <= 2 && i < m->nr; i++)
		if (m->heap[i].ts < limit)
			limit = m->heap[i].ts;
	m->limit = limit;
}

/**
 * ramtrail_merge_init() - open every zone of a region for a merged read
 * @m: the merge
 * @reg: region opened with ramtrail_region_open()
 * @cursor: reg->hdr.nr_cpus cursors
 * @heap: reg->hdr.nr_cpus slots
 */
void ramtrail_merge_init(struct ramtrail_merge *m,
			 const struct ramtrail_region *reg,
			 struct ramtrail_zone_cursor *cursor,
			 struct ramtrail_merge_slot *heap)
{
	u32 cpu;

	for (cpu = 0; cpu < reg->hdr.nr_cpus; cpu++)
		ramtrail_zone_open(&cursor[cpu], reg, cpu);
	ramtrail_merge_start(m, cursor, heap, reg->hdr.nr_cpus);
}

/**
 * ramtrail_merge_start() - merge zones the caller opened
 * @m: the merge
 * @cursor: @nr cursors, opened (and possibly advanced) by the caller: the
 *	merge starts with each one's next record
 * @heap: @nr slots
 * @nr: cursors
 */
void ramtrail_merge_start(struct ramtrail_merge *m,
			  struct ramtrail_zone_cursor *cursor,
			  struct ramtrail_merge_slot *heap, u32 nr)
{
	u32 i;

	m->heap = heap;
	m->nr = 0;
	for (i = 0; i < nr; i++)
		if (ramtrail_zone_next(&cursor[i]))
			heap[m->nr++] = (struct ramtrail_merge_slot) {
				.ts = cursor[i].rec.ts,
				.cursor = &cursor[i],
			};
	for (i = m->nr / 2; i-- > 0;)
		ramtrail_sift_down(m, i, heap[i]);
	ramtrail_merge_limit(m);
	m->top = NULL;
	m->first = m->nr ? heap[0].cursor : NULL;
}

/*
 * ramtrail_merge_settle() with more than two zones, or the top's ended.
 * heap[0] is the hole: it is stale (the fast paths leave it) and never
 * read; @top goes back in the heap.
 */
static noinline const struct ramtrail_record *
ramtrail_merge_sift(struct ramtrail_merge *m, bool more)
{
	struct ramtrail_zone_cursor *c = m->top;
	struct ramtrail_merge_slot top;

	if (more) {
		top.ts = c->rec.ts;
		top.cursor = c;
	} else if (--m->nr) {
		top = m->heap[m->nr];
	} else {
		m->top = NULL;
		return NULL;
	}
	ramtrail_sift_down(m, 0, top);
	ramtrail_merge_limit(m);
	m->top = m->heap[0].cursor;
	return &m->top->rec;
}

/*
 * The top cursor moved on (@more) or ended: its record or the oldest of
 * the others is the next. Return: that record, NULL at the end.
 */
static __always_inline const struct ramtrail_record *
ramtrail_merge_settle(struct ramtrail_merge *m, bool more)
{
	struct ramtrail_zone_cursor *c = m->top;
	struct ramtrail_merge_slot *o = &m->heap[1], top;

	if (!more)
		return ramtrail_merge_sift(m, false);
	if (c->rec.ts < m->limit)
		return &c->rec;	/* older than all others: stays on top */
	if (m->nr != 2)
		return ramtrail_merge_sift(m, true);
	/* Two zones, as on many machines: the top stays, or the two swap. */
	top.ts = c->rec.ts;
	top.cursor = c;
	if (!ramtrail_before(m, o, &top))
		return &c->rec;
	m->top = o->cursor;
	m->limit = top.ts;
	ramtrail_slot_set(o, &top);
	return &m->top->rec;
}

/* The merge's first record, or NULL at the end: @m->top is not set yet. */
static noinline const struct ramtrail_record *
ramtrail_merge_first(struct ramtrail_merge *m)
{
	m->top = m->first;
	m->first = NULL;
	return m->top ? &m->top->rec : NULL;
}

/* ramtrail_merge_next(), inline where the save calls it. */
static __always_inline const struct ramtrail_record *
ramtrail_merge_step(struct ramtrail_merge *m)
{
	struct ramtrail_zone_cursor *c = m->top;

	if (unlikely(!c))
		return ramtrail_merge_first(m);
	/* The top's next decoded record, while no other zone's is older. */
	if (likely(c->next_batch < c->nr_batch)) {
		ramtrail_batch_pop(c);
		return ramtrail_merge_settle(m, true);
	}
	return ramtrail_merge_settle(m, ramtrail_zone_refill(c));
}

/**
 * ramtrail_merge_next() - the next record of all zones in time order
 * @m: merge from ramtrail_merge_init()
 *
 * Return: the record, valid until the next call, or NULL at the end.
 */
const struct ramtrail_record *ramtrail_merge_next(struct ramtrail_merge *m)
{
	return ramtrail_merge_step(m);
}

/*
 * @d ticks at @hz in ns, saturated. Whole seconds first: the division of the
 * rest then has a quotient below 10^9, which never overflows (a quotient
 * past 64 bits is a divide error in the kernel).
 */
static u64 ramtrail_cycles_to_ns(u64 d, u64 hz)
{
	u64 s = div64_u64(d, hz);

	if (s >= U64_MAX / 1000000000ULL)
		return U64_MAX;
	return s * 1000000000ULL +
	       ramtrail_mul_div(d - s * hz, 1000000000ULL, hz);
}

/**
 * ramtrail_ts_to_ns() - convert a record's counter value to CLOCK_MONOTONIC
 * @hdr: header of the region the record came from
 * @ts: counter value
 *
 * Return: nanoseconds (saturated at 0 and U64_MAX), or @ts itself if the
 * header names no frequency.
 */
u64 ramtrail_ts_to_ns(const struct ramtrail_region_header *hdr, u64 ts)
{
	u64 ref = hdr->clock_ref_cycles & RAMTRAIL_CLOCK_MASK;
	u64 d = ts >= ref ? ts - ref : ref - ts, ns;

	if (!hdr->clock_hz)
		return ts;
	ns = ramtrail_cycles_to_ns(d, hdr->clock_hz);
	if (ts >= ref)
		return ns > U64_MAX - hdr->clock_ref_ns ? U64_MAX :
		       hdr->clock_ref_ns + ns;
	return ns > hdr->clock_ref_ns ? 0 : hdr->clock_ref_ns - ns;
}

/**
 * ramtrail_saved_modules_copy() - a saved trace's copy of the module table
 * @t: the saved trace
 * @mods: the module table of the boot whose zones it saves
 * @n: entries of @mods
 * @hdr: that boot's region header (its clock)
 *
 * A saved trace's records carry nanoseconds, not counter values: the end
 * of each module's init text, when the table filled and when a module was
 * unloaded are converted to the same (and the entry's checksum set again,
 * only if it held). Sets @t->modtab_count.
 */
void ramtrail_saved_modules_copy(struct ramtrail_saved_trace *t,
				 const struct ramtrail_module_entry *mods,
				 u32 n, const struct ramtrail_region_header *hdr)
{
	struct ramtrail_module_entry *e = ramtrail_saved_modules(t);
	bool timed;
	u32 i;

	memcpy(e, mods, n * sizeof(*mods));
	t->modtab_count = n;
	for (i = 0; i < n; i++) {
		timed = (e[i].flags & (RAMTRAIL_MOD_INIT | RAMTRAIL_MOD_FULL)) &&
			e[i].core_size;
		if ((!timed && !e[i].gone) ||
		    e[i].checksum != ramtrail_module_checksum(&e[i]))
			continue;
		if (timed)
			e[i].core_size = max_t(u64, ramtrail_ts_to_ns(hdr,
								      e[i].core_size), 1);
		if (e[i].gone)
			e[i].gone = max_t(u64, ramtrail_ts_to_ns(hdr, e[i].gone), 1);
		e[i].checksum = ramtrail_module_checksum(&e[i]);
	}
}

/* Largest whole seconds ramtrail_cycles_to_ns() converts, in ns. */
#define RT_NS_LIMIT	(U64_MAX / 1000000000ULL * 1000000000ULL)

/*
 * ramtrail_ts_to_ns_step() within 2^32 ticks after an exact step: true
 * with the time in *@ns, false if the general path must convert @ts.
 */
static __always_inline bool ramtrail_ts_step_near(const struct ramtrail_region_header *hdr,
						  struct ramtrail_ns_step *s,
						  u64 ts, u64 *ns)
{
	u64 hz = hdr->clock_hz, dt = ts - s->ts, x, q, r;

	if (!s->exact || ts < s->ts || dt >= 1ULL << 32)
		return false;
	/* rem < hz <= 10^11 and dt * 10^9 < 2^62: no overflow. */
	x = s->rem + dt * 1000000000ULL;
	/* @inv is at most 2 below 2^64 / hz: q is short by at most 1. */
	q = ramtrail_mul_hi(x, s->inv);
	r = x - q * hz;
	if (r >= hz) {
		q++;
		r -= hz;
	}
	if (r >= hz || q >= RT_NS_LIMIT - s->total ||
	    s->total + q > U64_MAX - hdr->clock_ref_ns)
		return false;
	s->rem = r;
	s->total += q;
	s->ts = ts;
	*ns = hdr->clock_ref_ns + s->total;
	return true;
}

/* ramtrail_ts_to_ns_step() where ramtrail_ts_step_near() cannot: exact again. */
static noinline u64 ramtrail_ts_step_far(const struct ramtrail_region_header *hdr,
					 struct ramtrail_ns_step *s, u64 ts)
{
	u64 hz = hdr->clock_hz, ref = hdr->clock_ref_cycles & RAMTRAIL_CLOCK_MASK;
	u64 q, d, f;

	s->ts = ts;
	s->exact = false;
	if (!hz || ts < ref)
		return ramtrail_ts_to_ns(hdr, ts);
	d = ts - ref;
	q = div64_u64(d, hz);
	if (q >= U64_MAX / 1000000000ULL)
		return ramtrail_ts_to_ns(hdr, ts);
	f = ramtrail_mul_div(d - q * hz, 1000000000ULL, hz);
	s->total = q * 1000000000ULL + f;
	if (s->total > U64_MAX - hdr->clock_ref_ns)
		return ramtrail_ts_to_ns(hdr, ts);
	/* The true remainder is below hz: wrapping arithmetic gives it. */
	s->rem = (d - q * hz) * 1000000000ULL - f * hz;
	s->inv = div64_u64(U64_MAX, hz);
	s->exact = true;
	return hdr->clock_ref_ns + s->total;
}

/**
 * ramtrail_ts_to_ns_step() - ramtrail_ts_to_ns() of counter values in order
 * @hdr: header of the region the records came from
 * @s: the step, zeroed before the first call
 * @ts: counter value, usually not before the last one's
 *
 * Within 2^32 ticks of the last value it divides once by the clock's
 * frequency, as a product with its inverse, instead of twice with a
 * 128-bit product: the merge's times come in order, a few ticks apart.
 * Exact: the remainder is carried.
 *
 * Return: what ramtrail_ts_to_ns() returns for @ts.
 */
u64 ramtrail_ts_to_ns_step(const struct ramtrail_region_header *hdr,
			   struct ramtrail_ns_step *s, u64 ts)
{
	u64 ns;

	if (ramtrail_ts_step_near(hdr, s, ts, &ns))
		return ns;
	return ramtrail_ts_step_far(hdr, s, ts);
}

/**
 * ramtrail_saved_checksum() - CRC32 of a saved trace header
 * @t: the header, its checksum field taken as 0
 *
 * Return: the checksum to store in or compare with @t->checksum.
 */
u32 ramtrail_saved_checksum(const struct ramtrail_saved_trace *t)
{
	return ramtrail_crc32_skip(t, sizeof(*t),
				   offsetof(struct ramtrail_saved_trace, checksum),
				   sizeof(t->checksum) + sizeof(t->erased));
}

/* The header at @t and its parity, @erased as 0, into @slot. */
static void ramtrail_saved_head_slot(u8 *slot,
				     const struct ramtrail_saved_trace *t)
{
	memcpy(slot, t, RAMTRAIL_SAVED_HEAD_SLOT);
	memset(slot + offsetof(struct ramtrail_saved_trace, erased), 0,
	       sizeof(t->erased));
}

/**
 * ramtrail_saved_sign() - set a saved trace header's checksum and parity
 * @t: the header, its fields set; the parity goes right after it
 * @enc: an encoder (ramtrail_ecc_encode())
 */
void ramtrail_saved_sign(struct ramtrail_saved_trace *t,
			 struct ramtrail_ecc_encoder *enc)
{
	u8 slot[RAMTRAIL_SAVED_HEAD_SLOT];

	t->checksum = ramtrail_saved_checksum(t);
	ramtrail_saved_head_slot(slot, t);
	ramtrail_ecc_encode(slot, sizeof(slot), RAMTRAIL_SAVED_HEAD_ECC, enc);
	memcpy(t + 1, slot + sizeof(*t), RAMTRAIL_SAVED_HEAD_PARITY);
}

/**
 * ramtrail_saved_all_erased() - is every pstore file of a saved trace erased
 * @t: a saved trace
 *
 * Return: true if nothing of it is shown any more.
 */
bool ramtrail_saved_all_erased(const struct ramtrail_saved_trace *t)
{
	u64 parts = ramtrail_saved_parts(t);
	u64 mask = parts >= 64 ? ~0ULL : (1ULL << parts) - 1;

	return (READ_ONCE(t->erased) & mask) == mask;
}

/* The entry at @off if its magic and checksum hold, whatever its fields. */
static const struct ramtrail_saved_trace *
ramtrail_saved_signed(const struct ramtrail_region *reg, u64 off)
{
	const struct ramtrail_region_header *h = &reg->hdr;
	const struct ramtrail_saved_trace *t;

	if (!reg->base || off % 8 || off > h->saved_size ||
	    h->saved_size - off < sizeof(*t))
		return NULL;
	t = (const void *)(reg->base + h->saved_offset + off);
	if (READ_ONCE(t->magic) != RAMTRAIL_SAVED_MAGIC ||
	    t->checksum != ramtrail_saved_checksum(t))
		return NULL;
	return t;
}

/* The saved trace at @off, if one is valid there and fits the area. */
static const struct ramtrail_saved_trace *
ramtrail_saved_at(const struct ramtrail_region *reg, u64 off)
{
	const struct ramtrail_saved_trace *t = ramtrail_saved_signed(reg, off);
	u64 room, full;

	if (!t)
		return NULL;
	room = reg->hdr.saved_size - off;
	if (t->modtab_count > RAMTRAIL_MAX_MODULES || t->size % 8 ||
	    t->size > room || t->nr_cpus > RAMTRAIL_MAX_CPUS || t->nr_cpus < 1 ||
	    t->chunk_size < RAMTRAIL_SAVED_CHUNK_MIN ||
	    t->chunk_size > RAMTRAIL_SAVED_CHUNK_MAX || t->chunk_size % 8 ||
	    t->ecc > RAMTRAIL_SAVED_ECC_MAX || t->reserved ||
	    !t->nr_slots || t->nr_chunks < t->nr_slots)
		return NULL;
	/* Whole slots; the last one cut after its chunk if none wrapped. */
	full = ramtrail_saved_fixed(t->modtab_count) +
	       (u64)t->nr_slots * t->chunk_size;
	if (t->nr_chunks > t->nr_slots ? t->size != full :
	    (t->size > full || t->size < full - t->chunk_size +
					  sizeof(struct ramtrail_saved_chunk)))
		return NULL;
	return t;
}

/**
 * ramtrail_saved_scan() - find the saved traces of a region
 * @reg: region with its layout validated (@reg->base set)
 *
 * Scans the saved area every 8 bytes for a valid entry, skipping the inside
 * of each one found, and lists the first RAMTRAIL_MAX_SAVED in @reg->saved
 * by boot_id, then offset. An entry whose checksum holds but whose fields
 * no writer makes is counted in @reg->saved_refused. Bounded by the area:
 * one look per 8 bytes.
 */
void ramtrail_saved_scan(struct ramtrail_region *reg)
{
	const u32 *area = (const u32 *)(reg->base + reg->hdr.saved_offset);
	const struct ramtrail_saved_trace *t, *o;
	u64 off = 0, last;
	u32 i;

	reg->nr_saved = 0;
	reg->saved_refused = 0;
	reg->saved_end = reg->hdr.saved_size;
	if (reg->hdr.saved_size < sizeof(*t))
		return;
	last = reg->hdr.saved_size - sizeof(*t);
	while (off <= last) {
		if (reg->nr_saved == RAMTRAIL_MAX_SAVED) {
			reg->saved_end = off;	/* more may follow, unlisted */
			break;
		}
		/* The magic first: most of the area is records or zeroes. */
		while (off + 24 <= last &&
		       READ_ONCE(area[off / 4]) != RAMTRAIL_SAVED_MAGIC &&
		       READ_ONCE(area[off / 4 + 2]) != RAMTRAIL_SAVED_MAGIC &&
		       READ_ONCE(area[off / 4 + 4]) != RAMTRAIL_SAVED_MAGIC &&
		       READ_ONCE(area[off / 4 + 6]) != RAMTRAIL_SAVED_MAGIC)
			off += 32;
		while (off <= last &&
		       READ_ONCE(area[off / 4]) != RAMTRAIL_SAVED_MAGIC)
			off += 8;
		if (off > last)
			break;
		t = ramtrail_saved_at(reg, off);
		if (!t) {
			reg->saved_refused += !!ramtrail_saved_signed(reg, off);
			off += 8;
			continue;
		}
		for (i = reg->nr_saved; i > 0; i--) {
			o = (const void *)(reg->base + reg->hdr.saved_offset +
					   reg->saved[i - 1]);
			if (o->boot_id <= t->boot_id)
				break;
			reg->saved[i] = reg->saved[i - 1];
		}
		reg->saved[i] = off;
		reg->nr_saved++;
		off += t->size;
	}
}

/* Could the word at a header's start be a magic with bits changed? */
static bool ramtrail_saved_magic_near(u32 w)
{
	u32 x = w ^ RAMTRAIL_SAVED_MAGIC, right = 0, i;

	for (i = 0; i < 4; i++, x >>= 8)
		right += !(x & 0xff);
	return right >= 2;
}

/*
 * Correct the header at @off of the saved area by its parity, if that
 * makes it a valid entry that ends by @end; @erased is kept as it is.
 */
static bool ramtrail_saved_heal_at(struct ramtrail_region *reg, u64 off,
				   u64 end)
{
	u8 *at = (u8 *)reg->base + reg->hdr.saved_offset + off;
	u8 slot[RAMTRAIL_SAVED_HEAD_SLOT], was[RAMTRAIL_SAVED_HEAD_SLOT];
	const struct ramtrail_saved_trace *t = (const void *)slot;
	const size_t erased = offsetof(struct ramtrail_saved_trace, erased);

	ramtrail_saved_head_slot(slot, (const void *)at);
	if (ramtrail_ecc_correct(slot, sizeof(slot),
				 RAMTRAIL_SAVED_HEAD_ECC) <= 0 ||
	    t->magic != RAMTRAIL_SAVED_MAGIC ||
	    t->checksum != ramtrail_saved_checksum(t))
		return false;
	memcpy(was, at, sizeof(was));
	memcpy(at, slot, erased);
	memcpy(at + erased + sizeof(t->erased), slot + erased +
	       sizeof(t->erased), sizeof(slot) - erased - sizeof(t->erased));
	t = ramtrail_saved_at(reg, off);
	if (t && off + t->size <= end)
		return true;
	memcpy(at, was, sizeof(was));	/* not one a writer made there */
	return false;
}

/**
 * ramtrail_saved_heal() - correct the saved traces' headers by their parity
 * @reg: region scanned (ramtrail_region_open()), in memory the caller may
 *	write
 * @boot_ids: the boot_id of each header corrected is stored there, up to
 *	RAMTRAIL_MAX_SAVED of them; or NULL
 *
 * Looks, outside the entries the scan found, at every 8 bytes whose word
 * is a magic with bits changed, or a magic whose checksum fails: each is
 * a header to correct if its parity makes it one whose entry ends before
 * the next entry found. The area is scanned again if one was corrected.
 *
 * Return: how many headers were corrected.
 */
u32 ramtrail_saved_heal(struct ramtrail_region *reg, u64 *boot_ids)
{
	const u32 *area = (const u32 *)(reg->base + reg->hdr.saved_offset);
	const struct ramtrail_saved_trace *t;
	u64 off, end, last;
	u32 healed = 0, i;

	if (!reg->base || reg->hdr.saved_size < RAMTRAIL_SAVED_HEAD_SLOT)
		return 0;
	last = reg->hdr.saved_size - RAMTRAIL_SAVED_HEAD_SLOT;
	for (off = 0; off <= last; off += 8) {
		if (!ramtrail_saved_magic_near(READ_ONCE(area[off / 4])) ||
		    ramtrail_saved_signed(reg, off))
			continue;
		/* Not inside an entry found; one corrected ends by the next. */
		end = reg->saved_end;
		for (i = 0; i < reg->nr_saved; i++) {
			t = ramtrail_saved_at(reg, reg->saved[i]);
			if (t && reg->saved[i] <= off &&
			    reg->saved[i] + t->size > off)
				break;
			if (reg->saved[i] > off)
				end = min_t(u64, end, reg->saved[i]);
		}
		if (i < reg->nr_saved || !ramtrail_saved_heal_at(reg, off, end))
			continue;
		t = (const void *)(area + off / 4);
		if (boot_ids && healed < RAMTRAIL_MAX_SAVED)
			boot_ids[healed] = t->boot_id;
		healed++;
		off += t->size - 8;	/* past its inside */
	}
	if (healed)
		ramtrail_saved_scan(reg);
	return healed;
}

/**
 * ramtrail_saved_next() - walk the saved traces of a region, oldest first
 * @reg: region with its layout validated (@reg->base set)
 * @pos: 0 to start, advanced past the entry returned
 *
 * Erased traces are returned too (ramtrail_saved_all_erased() tells). An
 * entry found by ramtrail_saved_scan() is checked again, so one that was
 * overwritten since is skipped.
 *
 * Return: the entry, or NULL at the end of the list.
 */
const struct ramtrail_saved_trace *
ramtrail_saved_next(const struct ramtrail_region *reg, u64 *pos)
{
	const struct ramtrail_saved_trace *t;

	while (*pos < reg->nr_saved) {
		t = ramtrail_saved_at(reg, reg->saved[(*pos)++]);
		if (t)
			return t;
	}
	return NULL;
}

/**
 * ramtrail_saved_place() - where a writer puts a new saved trace
 * @reg: region with its layout validated and its saved area scanned
 * @need: bytes of the whole new entry
 * @len: set to the bytes free at the offset returned
 *
 * Traces not fully erased stay where they are; erased ones and garbage are
 * free space. The first free span (by offset) that holds @need bytes is
 * chosen, else the largest one, where the caller keeps what fits. No span
 * goes past @reg->saved_end.
 *
 * Return: offset in the saved area of the span; *@len is 0 when there is
 * no room at all or RAMTRAIL_MAX_SAVED traces are kept already.
 */
u64 ramtrail_saved_place(const struct ramtrail_region *reg, u64 need,
			 u64 *len)
{
	const struct ramtrail_saved_trace *t;
	u64 best = 0, best_len = 0, start, end, o, pos;
	u32 live = 0, i;

	for (pos = 0; (t = ramtrail_saved_next(reg, &pos));)
		live += !ramtrail_saved_all_erased(t);
	*len = 0;
	if (live >= RAMTRAIL_MAX_SAVED)
		return 0;
	/* Each span starts at the area's start or at the end of a trace. */
	for (i = 0; i <= reg->nr_saved; i++) {
		start = 0;
		if (i < reg->nr_saved) {
			t = ramtrail_saved_at(reg, reg->saved[i]);
			if (!t || ramtrail_saved_all_erased(t))
				continue;
			start = reg->saved[i] + t->size;
		}
		/* Never past the scan's end: an unlisted trace may lie there. */
		end = reg->saved_end;
		for (pos = 0; (t = ramtrail_saved_next(reg, &pos));) {
			if (ramtrail_saved_all_erased(t))
				continue;
			o = ramtrail_saved_offset(reg, t);
			if (o < start && o + t->size > start)
				end = 0;	/* inside a trace: no span */
			else if (o >= start && o < end)
				end = o;
		}
		if (end <= start)
			continue;
		if (end - start >= need && (best_len < need || start < best)) {
			best = start;
			best_len = end - start;
		} else if (best_len < need && (end - start > best_len ||
			   (end - start == best_len && start < best))) {
			best = start;
			best_len = end - start;
		}
	}
	*len = best_len;
	return best;
}

/* A function offset a zone writer produces: 0 (none) or one below 2^31. */
static u32 ramtrail_saved_func_off(u32 off)
{
	return off <= RAMTRAIL_TEXT_OFFSET_MAX ? off : 0;
}

/**
 * ramtrail_saved_keeps() - does a saved trace keep a decoded record
 * @r: the record
 *
 * Not a function outside the text, which has no name, nor a task event:
 * the writer makes its own.
 *
 * Return: true if ramtrail_saved_add() writes it.
 */
bool ramtrail_saved_keeps(const struct ramtrail_record *r)
{
	if (r->type == RAMTRAIL_W_EVENT)
		return r->id != RAMTRAIL_EV_TASK;
	return ramtrail_saved_func_off(r->ip) != 0;
}

/* Does @r change what the open chunk says of its CPU's task? */
static bool ramtrail_saved_task_changes(const struct ramtrail_saved_task *cpu,
					const struct ramtrail_record *r)
{
	if (r->task_gen && r->task_gen == cpu->gen)
		return false;
	if (r->task_known != cpu->known)
		return true;
	return r->task_known && memcmp(&r->task, &cpu->task, sizeof(r->task));
}

/**
 * ramtrail_saved_chunk_checksum() - CRC32 of a chunk of a saved trace
 * @k: the chunk, its @len bytes of entries after it
 * @boot_id: boot_id of the trace it belongs to
 * @nonce: nonce of the trace it belongs to
 *
 * Return: the checksum to store in or compare with @k->checksum.
 */
u32 ramtrail_saved_chunk_checksum(const struct ramtrail_saved_chunk *k,
				  u64 boot_id, u64 nonce)
{
	const u64 id[2] = { boot_id, nonce };
	u32 crc = ramtrail_crc32_update(~0U, id, sizeof(id));

	crc = ramtrail_crc32_update(crc, k + 1, k->len);
	return ~ramtrail_crc32_update(crc, (const u8 *)k + sizeof(k->checksum),
				      sizeof(*k) - sizeof(k->checksum));
}

/* A part's ftrace file, 24 bytes a record, fits 6.1's 4 MiB kmalloc. */
_Static_assert(RAMTRAIL_SAVED_PART_CHUNKS * RAMTRAIL_SAVED_CHUNK_ENTRIES * 24 <=
	       4 << 20, "a pstore part's ftrace file fits in one kmalloc");
_Static_assert(RAMTRAIL_SAVED_ENTRY_MAX <=
	       RAMTRAIL_SAVED_CHUNK_MIN - RAMTRAIL_SAVED_ECC_MAX *
	       DIV_ROUND_UP(RAMTRAIL_SAVED_CHUNK_MIN, RAMTRAIL_SAVED_ECC_N) -
	       sizeof(struct ramtrail_saved_chunk),
	       "an empty chunk holds any record");
_Static_assert(sizeof(struct ramtrail_saved_chunk) >= RAMTRAIL_SAVED_ECC_MAX,
	       "a slot that holds a chunk's header holds its parity");

static u8 *ramtrail_put_varint(u8 *p, u64 v)
{
	while (v >= 0x80) {
		*p++ = (u8)v | 0x80;
		v >>= 7;
	}
	*p++ = (u8)v;
	return p;
}

/**
 * ramtrail_saved_writer_start() - start a saved trace's chunks
 * @w: the writer, its @task, @hash and @nr_cpus set by the caller
 * @slots: the first chunk slot
 * @chunk_size: bytes of a slot, within RAMTRAIL_SAVED_CHUNK_MIN..MAX
 * @nr_slots: slots at @slots
 * @ecc: parity bytes per codeword of a slot, up to RAMTRAIL_SAVED_ECC_MAX
 * @boot_id: boot_id of the trace
 * @nonce: nonce of the trace
 */
void ramtrail_saved_writer_start(struct ramtrail_saved_writer *w, u8 *slots,
				 u32 chunk_size, u32 nr_slots, u32 ecc,
				 u64 boot_id, u64 nonce)
{
	w->slots = slots;
	w->chunk_size = chunk_size;
	w->nr_slots = nr_slots;
	w->ecc = ecc;
	w->data = ramtrail_saved_data_size(chunk_size, ecc);
	w->boot_id = boot_id;
	w->nonce = nonce;
	w->chunk = NULL;
	w->len = 0;
	w->nr_chunks = 0;
	w->records = 0;
	w->chunk_records = 0;
	w->lost = 0;
}

/*
 * Seal the open chunk, if any, in @w->buf, add its slot's parity there,
 * and copy the slot: the region may be mapped write-combined, slow to
 * read, and takes one copy of a whole slot best. The last chunk of a
 * trace that never wrapped (@last) takes the slot it needs, cut.
 */
static void ramtrail_saved_close(struct ramtrail_saved_writer *w, bool last)
{
	struct ramtrail_saved_chunk *k = (void *)w->buf;
	u32 used = sizeof(*k) + w->len, size = w->chunk_size;

	if (!w->chunk)
		return;
	if (last && w->nr_chunks <= w->nr_slots) {
		size = round_up(used, 8);
		while (ramtrail_saved_data_size(size, w->ecc) < used)
			size += 8;
	}
	k->len = w->len;
	k->records = w->chunk_records;
	k->checksum = ramtrail_saved_chunk_checksum(k, w->boot_id, w->nonce);
	memset(w->buf + used, 0, size - used);
	if (w->ecc)
		ramtrail_ecc_encode(w->buf, size, w->ecc, &w->enc);
	memcpy(w->chunk, k, size);
	w->last_size = size;
	w->chunk = NULL;
}

/* Open the next chunk, its time counting from @ns, in the oldest slot. */
static void ramtrail_saved_next_chunk(struct ramtrail_saved_writer *w, u64 ns)
{
	struct ramtrail_saved_chunk *k = (void *)w->buf;
	u64 n = w->nr_chunks++;

	ramtrail_saved_close(w, false);
	w->chunk = (void *)(w->slots + (n % w->nr_slots) * w->chunk_size);
	if (n >= w->nr_slots)
		w->lost += w->chunk->records;	/* sealed by this writer */
	memset(k, 0, sizeof(*k));
	k->seq = n;
	k->ns = ns;
	w->len = 0;
	w->entries = 0;
	w->chunk_records = 0;
	w->nr_names = 0;
	w->nr_pairs = 0;
	w->ns = ns;
	w->cpu = U32_MAX;
	memset(w->task, 0, w->nr_cpus * sizeof(*w->task));
}

/*
 * The index of @key (an offset or a pair) in the open chunk's table of its
 * kind, of which there are *@nr; *@new tells that it was not there and is
 * added. The tables never hold more than half of @w->hash together.
 */
static u32 ramtrail_saved_name(struct ramtrail_saved_writer *w, u64 key,
			       u32 *nr, bool *new)
{
	u32 h = (key * 0x9e3779b97f4a7c15ULL) >> (64 - RAMTRAIL_SAVED_HASH_BITS);
	struct ramtrail_saved_name *e;

	for (;; h = (h + 1) % RAMTRAIL_SAVED_HASH) {
		e = &w->hash[h];
		if (e->chunk != (u32)w->nr_chunks) {
			e->chunk = w->nr_chunks;
			e->key = key;
			e->index = (*nr)++;
			*new = true;
			return e->index;
		}
		if (e->key == key) {
			*new = false;
			return e->index;
		}
	}
}

/* Put function offset @off at @p, as an index or a new offset. */
static u8 *ramtrail_saved_put_ref(struct ramtrail_saved_writer *w, u8 *p,
				  u32 off, u8 *refs, unsigned int shift)
{
	bool new;
	u32 i = ramtrail_saved_name(w, RAMTRAIL_SAVED_OFFSET | off,
				    &w->nr_names, &new);

	if (!new) {
		*refs |= RAMTRAIL_SR_INDEX << shift;
		return ramtrail_put_varint(p, i);
	}
	*refs |= RAMTRAIL_SR_NEW << shift;
	memcpy(p, &off, sizeof(off));
	return p + sizeof(off);
}

/* An entry's tag at @p (@tag and its CPU), its CPU if need be, its time. */
static __always_inline u8 *
ramtrail_saved_put_head(struct ramtrail_saved_writer *w, u8 *p, u8 tag,
			u32 cpu, u64 ns)
{
	u8 *q = p + 1;

	if (cpu != w->cpu) {
		if (cpu < RAMTRAIL_ST_CPU_VARINT - 1) {
			tag |= (cpu + 1) << RAMTRAIL_ST_CPU_SHIFT;
		} else {
			tag |= RAMTRAIL_ST_CPU_VARINT << RAMTRAIL_ST_CPU_SHIFT;
			q = ramtrail_put_varint(q, cpu);
		}
		w->cpu = cpu;
	}
	*p = tag;
	q = ramtrail_put_varint(q, ns - w->ns);
	w->ns = ns;
	w->entries++;
	return q;
}

static u8 *ramtrail_saved_put_event(struct ramtrail_saved_writer *w, u8 *p,
				    u32 cpu, u64 ns, u32 id, u32 len,
				    u32 flags, const void *data)
{
	u8 *q = ramtrail_saved_put_head(w, p, RAMTRAIL_SK_EVENT <<
					RAMTRAIL_ST_KIND_SHIFT, cpu, ns);

	q = ramtrail_put_varint(q, id);
	*q++ = len;
	*q++ = flags;
	memcpy(q, data, len);
	return q + len;
}

/* A function record: its pair's index, or the new pair's offsets. */
static __always_inline u8 *
ramtrail_saved_put_func(struct ramtrail_saved_writer *w, u8 *p,
			const struct ramtrail_record *r, u64 ns)
{
	u32 parent = ramtrail_saved_func_off(r->parent);
	u8 tag = r->ctx & RAMTRAIL_ST_CTX_MASK, *refs;
	bool new;
	u32 i = ramtrail_saved_name(w, (u64)r->ip << 32 | parent,
				    &w->nr_pairs, &new);

	if (!new) {
		p = ramtrail_saved_put_head(w, p, tag | RAMTRAIL_SK_PAIR <<
					    RAMTRAIL_ST_KIND_SHIFT, r->cpu, ns);
		return ramtrail_put_varint(p, i);
	}
	p = ramtrail_saved_put_head(w, p, tag | RAMTRAIL_SK_NEW_PAIR <<
				    RAMTRAIL_ST_KIND_SHIFT, r->cpu, ns);
	refs = p++;
	*refs = 0;
	p = ramtrail_saved_put_ref(w, p, r->ip, refs, 0);
	if (parent)
		p = ramtrail_saved_put_ref(w, p, parent, refs,
					   RAMTRAIL_SR_PARENT_SHIFT);
	return p;
}

/*
 * Write @r at @out, preceded by a task event (pid RAMTRAIL_PID_UNKNOWN
 * when unknown) if its task is not the one the chunk names last for its
 * CPU. Returns the bytes written: at most RAMTRAIL_SAVED_ENTRY_MAX.
 */
static __always_inline u32
ramtrail_saved_encode(struct ramtrail_saved_writer *w, u8 *out,
		      const struct ramtrail_record *r, u64 ns)
{
	struct ramtrail_saved_task *cpu = &w->task[r->cpu];
	u8 *p = out;

	if (ramtrail_saved_task_changes(cpu, r)) {
		struct ramtrail_ev_task task = { .pid = RAMTRAIL_PID_UNKNOWN };

		cpu->known = r->task_known;
		cpu->task = r->task;
		if (r->task_known)
			task = r->task;
		p = ramtrail_saved_put_event(w, p, r->cpu, ns, RAMTRAIL_EV_TASK,
					     sizeof(task), 0, &task);
	}
	cpu->gen = r->task_gen;
	if (r->type == RAMTRAIL_W_EVENT)
		p = ramtrail_saved_put_event(w, p, r->cpu, ns, r->id, r->len,
					     r->flags, r->data);
	else
		p = ramtrail_saved_put_func(w, p, r, ns);
	return p - out;
}

/* Where the open chunk's next entry goes. */
static u8 *ramtrail_saved_tail(struct ramtrail_saved_writer *w)
{
	return w->buf + sizeof(struct ramtrail_saved_chunk) + w->len;
}

/* ramtrail_saved_add(), inline in ramtrail_saved_merge(). */
static __always_inline void ramtrail_saved_append(struct ramtrail_saved_writer *w,
						  const struct ramtrail_record *r,
						  u64 ns)
{
	u32 cap = w->data - sizeof(struct ramtrail_saved_chunk), n;
	bool again;

	if (!w->nr_slots || !ramtrail_saved_keeps(r))
		return;
	if (w->chunk && ns < w->ns)
		ns = w->ns;	/* the merge's order: not seen */
	if (!w->chunk || w->entries + 2 > RAMTRAIL_SAVED_CHUNK_ENTRIES ||
	    w->nr_names + 2 > RAMTRAIL_SAVED_CHUNK_NAMES ||
	    w->nr_pairs + 1 > RAMTRAIL_SAVED_CHUNK_PAIRS)
		ramtrail_saved_next_chunk(w, ns);
	/*
	 * @w->buf has room for a record's entries past the chunk's end: one
	 * that does not fit goes to the next chunk, made again there.
	 */
	for (again = false;; again = true) {
		n = ramtrail_saved_encode(w, ramtrail_saved_tail(w), r, ns);
		if (again || n <= cap - w->len)
			break;
		ramtrail_saved_next_chunk(w, ns);
	}
	w->len += n;
	w->records++;
	w->chunk_records++;
}

/**
 * ramtrail_saved_add() - append a record of the zone merge to a saved trace
 * @w: the writer, started
 * @r: the record, whose CPU is below @w->nr_cpus
 * @ns: its time in CLOCK_MONOTONIC nanoseconds, not before the last one's
 *
 * A record whose task is not the one the chunk names last for its CPU is
 * preceded by a RAMTRAIL_EV_TASK event, so that a reader knows the task of
 * every record. When the open chunk is full, the next one starts, in the
 * oldest slot once all are taken: the oldest records are the ones lost.
 */
void ramtrail_saved_add(struct ramtrail_saved_writer *w,
			const struct ramtrail_record *r, u64 ns)
{
	ramtrail_saved_append(w, r, ns);
}

/**
 * ramtrail_saved_finish() - seal the last chunk of a saved trace
 * @w: the writer
 */
void ramtrail_saved_finish(struct ramtrail_saved_writer *w)
{
	ramtrail_saved_close(w, true);
}

/**
 * ramtrail_saved_set_chunks() - a saved trace's fields that its chunks set
 * @t: the trace, its @modtab_count set
 * @w: the writer that filled it, finished, with at least one chunk
 *
 * A trace that never wrapped ends after its last chunk's slot, cut.
 */
void ramtrail_saved_set_chunks(struct ramtrail_saved_trace *t,
			       const struct ramtrail_saved_writer *w)
{
	t->chunk_size = w->chunk_size;
	t->nr_chunks = w->nr_chunks;
	t->nr_slots = min_t(u64, w->nr_chunks, w->nr_slots);
	t->ecc = w->ecc;
	t->size = ramtrail_saved_fixed(t->modtab_count) +
		  (u64)t->nr_slots * t->chunk_size;
	if (w->nr_chunks <= w->nr_slots)
		t->size -= t->chunk_size - w->last_size;
	t->nr_records = w->records - w->lost;
	t->skipped = w->lost;
}

/**
 * ramtrail_saved_merge() - merge the zones into a saved trace
 * @reg: region opened with ramtrail_region_open()
 * @cur: reg->hdr.nr_cpus cursors; their stats then tell what the decode
 *	of the whole zones dropped
 * @heap: reg->hdr.nr_cpus slots
 * @w: the writer, started; finished on return
 */
void ramtrail_saved_merge(const struct ramtrail_region *reg,
			  struct ramtrail_zone_cursor *cur,
			  struct ramtrail_merge_slot *heap,
			  struct ramtrail_saved_writer *w)
{
	const struct ramtrail_record *r;
	struct ramtrail_ns_step step = { };
	struct ramtrail_merge m;
	u64 n = 0, ns;
	u32 cpu;

	for (cpu = 0; cpu < reg->hdr.nr_cpus; cpu++) {
		ramtrail_zone_open(&cur[cpu], reg, cpu);
		cur[cpu].may_sleep = true;	/* the save sleeps */
	}
	ramtrail_merge_start(&m, cur, heap, reg->hdr.nr_cpus);
	while ((r = ramtrail_merge_step(&m))) {
		if (!ramtrail_ts_step_near(&reg->hdr, &step, r->ts, &ns))
			ns = ramtrail_ts_step_far(&reg->hdr, &step, r->ts);
		ramtrail_saved_append(w, r, ns);
		if (!(++n & 0xffff))
			cond_resched();
	}
	ramtrail_saved_finish(w);
}

/**
 * ramtrail_saved_open() - start reading a saved trace's chunks
 * @c: the cursor
 * @t: a saved trace that ramtrail_saved_next() returned
 */
void ramtrail_saved_open(struct ramtrail_saved_cursor *c,
			 const struct ramtrail_saved_trace *t)
{
	/* The tables are set as each chunk opens. */
	memset(c, 0, offsetof(struct ramtrail_saved_cursor, names));
	c->t = t;
	c->nr = t->nr_slots;
	c->nr_cpus = t->nr_cpus;
}

/*
 * Chunk @i of @t (0 the oldest its slots keep): its header, its number
 * in the trace in @n and the bytes of its slot in @room.
 */
static const struct ramtrail_saved_chunk *
ramtrail_saved_chunk_at(const struct ramtrail_saved_trace *t, u64 i, u64 *n,
			u64 *room)
{
	u64 off;

	*n = t->nr_chunks - t->nr_slots + i;
	off = *n % t->nr_slots * t->chunk_size;
	*room = min_t(u64, t->size - ramtrail_saved_fixed(t->modtab_count) - off,
		      t->chunk_size);
	return (const void *)(ramtrail_saved_slots(t) + off);
}

/**
 * ramtrail_saved_part_records() - the records a part of a saved trace
 *	holds at most, from its chunks' headers alone
 * @t: a saved trace that ramtrail_saved_next() returned
 * @part: the part (ramtrail_saved_part_end())
 *
 * Each chunk counts what its header claims, bounded by what a chunk
 * holds; a chunk whose header names another number, which a reader
 * skips, counts none. Nothing past the headers is read.
 *
 * Return: the bound, task events left out.
 */
u64 ramtrail_saved_part_records(const struct ramtrail_saved_trace *t, u64 part)
{
	u64 i = part ? ramtrail_saved_part_end(t, part - 1) : 0;
	u64 end = ramtrail_saved_part_end(t, part), n, room, sum = 0;
	const struct ramtrail_saved_chunk *k;

	for (; i < end; i++) {
		k = ramtrail_saved_chunk_at(t, i, &n, &room);
		if (room >= sizeof(*k) && READ_ONCE(k->seq) == n)
			sum += min_t(u32, READ_ONCE(k->records),
				     RAMTRAIL_SAVED_CHUNK_ENTRIES);
	}
	return sum;
}

/* Is chunk @k of @t, number @n, in a slot of @room bytes, one to read? */
static bool ramtrail_saved_chunk_ok(const struct ramtrail_saved_trace *t,
				    const struct ramtrail_saved_chunk *k,
				    u64 n, u64 room)
{
	room = room >= sizeof(*k) ? ramtrail_saved_data_size(room, t->ecc) : 0;
	return room >= sizeof(*k) && k->len <= room - sizeof(*k) &&
	       k->seq == n && k->records <= RAMTRAIL_SAVED_CHUNK_ENTRIES &&
	       !k->reserved &&
	       k->checksum == ramtrail_saved_chunk_checksum(k, t->boot_id,
							    t->nonce);
}

/* Where ramtrail_saved_bad_next() goes on: a part, a chunk. */
struct ramtrail_saved_bad {
	u64 part;
	u64 i;
};

/*
 * The next chunk of @t, in a part not erased, that fails its checks: its
 * header, its number in @n, its slot's bytes in @room; NULL at the end.
 */
static const struct ramtrail_saved_chunk *
ramtrail_saved_bad_next(const struct ramtrail_saved_trace *t,
			struct ramtrail_saved_bad *b, u64 *n, u64 *room)
{
	const struct ramtrail_saved_chunk *k;
	u64 end;

	for (; b->part < ramtrail_saved_parts(t); b->part++) {
		end = ramtrail_saved_part_end(t, b->part);
		if (ramtrail_saved_part_erased(t, b->part))
			b->i = end;
		while (b->i < end) {
			k = ramtrail_saved_chunk_at(t, b->i++, n, room);
			if (!ramtrail_saved_chunk_ok(t, k, *n, *room))
				return k;
		}
	}
	return NULL;
}

/**
 * ramtrail_saved_check() - correct the damaged chunks of a saved trace that
 *	its parity can, and count the others
 * @t: a saved trace that ramtrail_saved_next() returned; in memory the
 *	caller may write if @buf
 * @buf: @t->chunk_size bytes of scratch to correct in, or NULL to count
 *	only
 * @c: what it found
 *
 * Each chunk that fails ramtrail_saved_read()'s checks is corrected by its
 * slot's parity in @buf, and the slot is written back only if the result
 * passes them. The chunks of erased parts are not looked at. Reads the
 * whole trace once (each chunk's checksum).
 */
void ramtrail_saved_check(struct ramtrail_saved_trace *t, u8 *buf,
			  struct ramtrail_saved_check *c)
{
	struct ramtrail_saved_bad b = { 0 };
	const struct ramtrail_saved_chunk *k;
	u64 n, room;
	int got;

	memset(c, 0, sizeof(*c));
	while ((k = ramtrail_saved_bad_next(t, &b, &n, &room))) {
		if (buf && t->ecc) {
			memcpy(buf, k, room);
			got = ramtrail_ecc_correct(buf, room, t->ecc);
			if (got > 0 &&
			    ramtrail_saved_chunk_ok(t, (void *)buf, n, room)) {
				memcpy((void *)k, buf, room);
				c->bytes += got;
				c->corrected++;
				continue;
			}
		}
		c->damaged++;
		c->records += room >= sizeof(*k) && k->seq == n ?
			      min_t(u32, k->records,
				    RAMTRAIL_SAVED_CHUNK_ENTRIES) :
			      RAMTRAIL_SAVED_CHUNK_ENTRIES;
	}
}

/**
 * ramtrail_saved_damage() - the chunks of a saved trace that a reader drops
 * @t: a saved trace that ramtrail_saved_next() returned
 * @records: set to the records they held at most: what each one's header
 *	claims if its number is right, else a chunk's most
 *
 * Return: how many chunks fail ramtrail_saved_read()'s checks.
 */
u64 ramtrail_saved_damage(const struct ramtrail_saved_trace *t, u64 *records)
{
	struct ramtrail_saved_check c;

	ramtrail_saved_check((struct ramtrail_saved_trace *)t, NULL, &c);
	*records = c.records;
	return c.damaged;
}

/* Open chunk @c->next; false (and counted) if it is not a valid one. */
static bool ramtrail_saved_chunk_open(struct ramtrail_saved_cursor *c)
{
	const struct ramtrail_saved_trace *t = c->t;
	u64 n, room;
	const struct ramtrail_saved_chunk *k =
		ramtrail_saved_chunk_at(t, c->next++, &n, &room);

	c->p = NULL;
	c->end = NULL;
	if (!ramtrail_saved_chunk_ok(t, k, n, room)) {
		c->bad++;
		return false;
	}
	c->start = (const u8 *)(k + 1);
	c->p = c->start;
	c->end = c->start + k->len;
	c->ns = k->ns;
	c->cpu = U32_MAX;
	c->entries = 0;
	c->nr_names = 0;
	c->nr_pairs = 0;
	memset(c->task, 0, c->nr_cpus * sizeof(*c->task));
	return true;
}

static noinline bool ramtrail_get_varint_long(const u8 **pp, const u8 *end,
					      u64 *v)
{
	const u8 *p = *pp;
	unsigned int shift;
	u64 x = 0;

	for (shift = 0; shift < 64 && p < end; shift += 7) {
		x |= (u64)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80)) {
			*v = x;
			*pp = p;
			return true;
		}
	}
	return false;
}

/*
 * A varint at *@pp, before @end. Most take one or two bytes: an index, a
 * time delta under 16 us.
 */
static __always_inline bool ramtrail_get_varint(const u8 **pp, const u8 *end,
						u64 *v)
{
	const u8 *p = *pp;

	if (likely(end - p >= 2)) {
		if (!(p[0] & 0x80)) {
			*v = p[0];
			*pp = p + 1;
			return true;
		}
		if (!(p[1] & 0x80)) {
			*v = (p[0] & 0x7f) | (u64)p[1] << 7;
			*pp = p + 2;
			return true;
		}
	}
	return ramtrail_get_varint_long(pp, end, v);
}

/* A function offset of an entry, by @ref; false if no writer makes it. */
static bool ramtrail_saved_get_ref(struct ramtrail_saved_cursor *c,
				   const u8 **p, unsigned int ref, u32 *off)
{
	u64 i;

	if (ref == RAMTRAIL_SR_NEW) {
		if (c->end - *p < (long)sizeof(*off) ||
		    c->nr_names >= RAMTRAIL_SAVED_CHUNK_NAMES)
			return false;
		memcpy(off, *p, sizeof(*off));
		*p += sizeof(*off);
		c->names[c->nr_names++] = *off;
		return *off && *off <= RAMTRAIL_TEXT_OFFSET_MAX;
	}
	if (ref != RAMTRAIL_SR_INDEX || !ramtrail_get_varint(p, c->end, &i) ||
	    i >= c->nr_names)
		return false;
	*off = c->names[i];
	return true;
}

/* The event after an entry's time at @p, into @c->rec. */
static bool ramtrail_saved_get_event(struct ramtrail_saved_cursor *c,
				     const u8 **pp, u32 cpu)
{
	struct ramtrail_record *r = &c->rec;
	const u8 *p = *pp;
	u32 len, flags;
	u64 id;

	if (!ramtrail_get_varint(&p, c->end, &id) || id > 0xffff ||
	    c->end - p < 2)
		return false;
	len = p[0];
	flags = p[1];
	p += 2;
	if (flags & ~RAMTRAIL_EF_MASK || c->end - p < len)
		return false;
	r->type = RAMTRAIL_W_EVENT;
	r->id = id;
	r->len = len;
	r->flags = flags;
	r->ctx = flags & RAMTRAIL_CTX_MASK;
	memcpy(r->data, p, len);
	memset(r->data + len, 0, sizeof(r->data) - len);
	*pp = p + len;
	if (id != RAMTRAIL_EV_TASK)
		return true;
	if (len != sizeof(struct ramtrail_ev_task))
		return false;
	memcpy(&c->task[cpu].task, r->data, len);
	c->task[cpu].known = c->task[cpu].task.pid != RAMTRAIL_PID_UNKNOWN;
	return true;
}

/* A function's new pair after its tag at @p, into @c->rec and the table. */
static bool ramtrail_saved_get_pair(struct ramtrail_saved_cursor *c,
				    const u8 **p)
{
	struct ramtrail_record *r = &c->rec;
	unsigned int ip_ref, parent_ref;
	u8 refs;

	if (*p >= c->end || c->nr_pairs >= RAMTRAIL_SAVED_CHUNK_PAIRS)
		return false;
	refs = *(*p)++;
	ip_ref = refs & RAMTRAIL_SR_MASK;
	parent_ref = refs >> RAMTRAIL_SR_PARENT_SHIFT & RAMTRAIL_SR_MASK;
	if (refs >> (RAMTRAIL_SR_PARENT_SHIFT + 2) || ip_ref == RAMTRAIL_SR_NONE ||
	    !ramtrail_saved_get_ref(c, p, ip_ref, &r->ip) ||
	    (parent_ref != RAMTRAIL_SR_NONE &&
	     !ramtrail_saved_get_ref(c, p, parent_ref, &r->parent)))
		return false;
	c->pair_ip[c->nr_pairs] = r->ip;
	c->pair_parent[c->nr_pairs++] = r->parent;
	return true;
}

/* The entry at @c->p, into @c->rec; false for one no writer makes. */
static bool ramtrail_saved_entry(struct ramtrail_saved_cursor *c)
{
	struct ramtrail_record *r = &c->rec;
	const u8 *p = c->p;
	u8 tag = *p++;
	unsigned int kind = tag >> RAMTRAIL_ST_KIND_SHIFT & RAMTRAIL_ST_KIND_MASK;
	unsigned int cpu_field = tag >> RAMTRAIL_ST_CPU_SHIFT;
	u64 cpu = c->cpu, v;

	if (cpu_field == RAMTRAIL_ST_CPU_VARINT) {
		if (!ramtrail_get_varint(&p, c->end, &cpu))
			return false;
	} else if (cpu_field != RAMTRAIL_ST_CPU_SAME) {
		cpu = cpu_field - 1;
	}
	if (++c->entries > RAMTRAIL_SAVED_CHUNK_ENTRIES ||
	    cpu >= c->nr_cpus || !ramtrail_get_varint(&p, c->end, &v) ||
	    v > U64_MAX - c->ns)
		return false;
	memset(r, 0, offsetof(struct ramtrail_record, data));
	r->ts = c->ns + v;
	r->pos = c->p - ramtrail_saved_slots(c->t);
	r->cpu = cpu;
	r->task_known = c->task[cpu].known;
	r->task = c->task[cpu].task;
	switch (kind) {
	case RAMTRAIL_SK_EVENT:
		if (tag & RAMTRAIL_ST_CTX_MASK ||
		    !ramtrail_saved_get_event(c, &p, cpu))
			return false;
		break;
	case RAMTRAIL_SK_PAIR:
		if (!ramtrail_get_varint(&p, c->end, &v) || v >= c->nr_pairs)
			return false;
		r->ip = c->pair_ip[v];
		r->parent = c->pair_parent[v];
		break;
	case RAMTRAIL_SK_NEW_PAIR:
		if (!ramtrail_saved_get_pair(c, &p))
			return false;
		break;
	default:
		return false;
	}
	if (kind != RAMTRAIL_SK_EVENT) {
		r->ctx = tag & RAMTRAIL_ST_CTX_MASK;
		r->type = r->parent ? RAMTRAIL_W_FUNC_PARENT : RAMTRAIL_W_FUNC;
	}
	c->p = p;
	c->cpu = cpu;
	c->ns = r->ts;
	return true;
}

/**
 * ramtrail_saved_read() - the next record of a saved trace
 * @c: cursor from ramtrail_saved_open()
 * @end: chunk number where reading stops: a chunk numbered @end or later
 *	is left for a later call (@c->nr for the whole trace)
 *
 * Task events are consumed: each record carries its CPU's task. A chunk
 * whose checksum or number does not match is skipped and counted; so is
 * the rest of a chunk from an entry no writer makes (a CPU out of range,
 * an index past the table, data past the end, a task event of another
 * size). Nothing in the chunks is trusted.
 *
 * Return: the record, valid until the next call, or NULL when the next
 * chunk is numbered @end or later.
 */
const struct ramtrail_record *
ramtrail_saved_read(struct ramtrail_saved_cursor *c, u64 end)
{
	for (;;) {
		if (c->p == c->end) {
			if (c->next >= end || c->next >= c->nr)
				return NULL;
			ramtrail_saved_chunk_open(c);
			continue;
		}
		if (!ramtrail_saved_entry(c)) {
			c->bad++;
			c->p = c->end;
			continue;
		}
		if (c->rec.type == RAMTRAIL_W_EVENT &&
		    c->rec.id == RAMTRAIL_EV_TASK) {
			c->tasks++;
			continue;
		}
		c->records++;
		return &c->rec;
	}
}

/**
 * ramtrail_saved_skip() - move a saved trace's cursor past chunks unread
 * @c: the cursor
 * @end: the next ramtrail_saved_read() returns the first record of chunk
 *	@end or later; nothing moves if @c is past chunk @end already
 *
 * Chunks stand alone (their tables, times and tasks start afresh), so the
 * records read after a skip are those a whole read gives there.
 */
void ramtrail_saved_skip(struct ramtrail_saved_cursor *c, u64 end)
{
	if (c->next > end)
		return;
	c->p = c->end;		/* the open chunk, numbered @c->next - 1 */
	c->next = min_t(u64, end, c->nr);
}
