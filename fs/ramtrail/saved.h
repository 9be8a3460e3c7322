/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The saved area: the traces saved from earlier boots, found and checked
 * (ramtrail_saved_scan()), repaired where a flipped bit hit a head
 * (ramtrail_saved_heal()), walked in boot order and named as pstore files,
 * and the place of the next one (ramtrail_saved_place()); a trace's head,
 * its checksum and parity. Shared by the module and tools/.
 */
#ifndef _RAMTRAIL_SAVED_H
#define _RAMTRAIL_SAVED_H

#include "region.h"
#include "ecc.h"

void ramtrail_saved_scan(struct ramtrail_region *reg);
u32 ramtrail_saved_heal(struct ramtrail_region *reg, u64 *boot_ids);
const struct ramtrail_saved_trace *
ramtrail_saved_next(const struct ramtrail_region *reg, u64 *pos);
u64 ramtrail_saved_place(const struct ramtrail_region *reg, u64 need,
			 u64 *len);
u32 ramtrail_saved_checksum(const struct ramtrail_saved_trace *t);
void ramtrail_saved_sign(struct ramtrail_saved_trace *t,
			 struct ramtrail_ecc_encoder *enc);
bool ramtrail_saved_all_erased(const struct ramtrail_saved_trace *t);
void ramtrail_saved_modules_copy(struct ramtrail_saved_trace *t,
				 const struct ramtrail_module_entry *mods,
				 u32 n, const struct ramtrail_region_header *hdr);

/*
 * The parts of a saved trace entry (layout in the uapi header). Its
 * magic tells its format: one of RAMTRAIL_PREV_SAVED_MAGIC has module
 * entries of RAMTRAIL_PREV_MODULE_ENTRY_SIZE bytes, for its reader to
 * convert.
 */
static inline struct ramtrail_module_entry *
ramtrail_saved_modules(const struct ramtrail_saved_trace *t)
{
	return (struct ramtrail_module_entry *)((u8 *)t +
						RAMTRAIL_SAVED_HEAD_SLOT);
}

/* Bytes of a saved trace of this format before its chunk slots. */
static inline u64 ramtrail_saved_fixed(u32 modtab_count)
{
	return RAMTRAIL_SAVED_HEAD_SLOT +
	       (u64)modtab_count * sizeof(struct ramtrail_module_entry);
}

/* Bytes of @t before its chunk slots, in the format its magic says. */
static inline u64 ramtrail_saved_head_size(const struct ramtrail_saved_trace *t)
{
	u32 version = le32_to_cpu(READ_ONCE(t->magic)) ==
		      RAMTRAIL_PREV_SAVED_MAGIC ?
		      RAMTRAIL_PREV_VERSION : RAMTRAIL_VERSION;

	return RAMTRAIL_SAVED_HEAD_SLOT +
	       (u64)le32_to_cpu(t->modtab_count) *
		       ramtrail_module_entry_size(version);
}

/* The first chunk slot of @t. */
static inline u8 *ramtrail_saved_slots(const struct ramtrail_saved_trace *t)
{
	return (u8 *)t + ramtrail_saved_head_size(t);
}

/* The magic of the saved traces of an opened region's format. */
static inline u32 ramtrail_saved_magic(const struct ramtrail_region *reg)
{
	return le32_to_cpu(reg->hdr.version) == RAMTRAIL_PREV_VERSION ?
	       RAMTRAIL_PREV_SAVED_MAGIC : RAMTRAIL_SAVED_MAGIC;
}

/* Offset of a saved trace in its region's saved area. */
static inline u64 ramtrail_saved_offset(const struct ramtrail_region *reg,
					const struct ramtrail_saved_trace *t)
{
	return (const u8 *)t - (reg->base + le64_to_cpu(reg->hdr.saved_offset));
}

/* Files (parts) a saved trace is shown as through pstore. */
static inline u64 ramtrail_saved_parts(const struct ramtrail_saved_trace *t)
{
	return DIV_ROUND_UP(le32_to_cpu(t->nr_slots),
			    RAMTRAIL_SAVED_PART_CHUNKS);
}

/*
 * pstore ids. The files of boot B (its trace's ftrace and console files,
 * its dmesg records) are numbered from (B - 1) * RAMTRAIL_IDS_PER_BOOT, so
 * a file keeps its name at every boot and no later boot's file takes it:
 * systemd-pstore, which archives files under their names and replaces
 * one of the same name, then loses nothing. Boot 1's trace is
 * ftrace-ramtrail-0, boot 2's ftrace-ramtrail-1024.
 */
#define RAMTRAIL_IDS_PER_BOOT		1024ULL

/*
 * The highest boot number files are named from, and that numbers the next
 * boot: a boot a second for 285 million years. A larger one in a saved
 * trace or dmesg record is not a writer's (their checksums do not bound it).
 */
#define RAMTRAIL_BOOT_ID_MAX		BIT_ULL(53)

/* The first pstore id of boot @boot_id's files. */
static inline u64 ramtrail_boot_ids(u64 boot_id)
{
	if (!boot_id || boot_id > RAMTRAIL_BOOT_ID_MAX)	/* no overflow */
		return 0;
	return (boot_id - 1) * RAMTRAIL_IDS_PER_BOOT;
}

/*
 * The first part of @t shown through pstore: a trace is shown as its
 * newest RAMTRAIL_IDS_PER_BOOT parts at most (2^13 chunks, 4 MiB to 384
 * MiB of saved area), so that its files never take the numbers of a
 * later boot's: those would then name another trace's file at a later
 * mount, once this trace is gone, and systemd-pstore replaces an
 * archived file by a new one of the same name. The older parts stay in
 * the region, for ramtrail decode.
 */
static inline u64 ramtrail_saved_first_shown(const struct ramtrail_saved_trace *t)
{
	u64 parts = ramtrail_saved_parts(t);

	return parts > RAMTRAIL_IDS_PER_BOOT ? parts - RAMTRAIL_IDS_PER_BOOT : 0;
}

/**
 * struct ramtrail_saved_walk - the saved traces, numbered as pstore files
 * @pos: for ramtrail_saved_next()
 * @first: N of the first ftrace-ramtrail-N file of the trace returned
 *	last, its part ramtrail_saved_first_shown()
 * @next: no file of a later trace is numbered below it
 */
struct ramtrail_saved_walk {
	u64 pos;
	u64 first;
	u64 next;
};

/*
 * ramtrail_saved_next() that also numbers the traces' files as pstore
 * does: each trace, erased parts included, takes an id a part shown
 * (ramtrail_saved_first_shown()) from its boot's first id
 * (ramtrail_boot_ids()), so a file keeps its name at every mount; or
 * from the end of the trace before it, for a second trace of one boot
 * (no writer's), so that names never repeat. Start from a zeroed walk.
 */
static inline const struct ramtrail_saved_trace *
ramtrail_saved_walk(const struct ramtrail_region *reg,
		    struct ramtrail_saved_walk *w)
{
	const struct ramtrail_saved_trace *t = ramtrail_saved_next(reg, &w->pos);
	u64 first;

	if (t) {
		first = ramtrail_boot_ids(le64_to_cpu(t->boot_id));
		w->first = first > w->next ? first : w->next;
		w->next = w->first + ramtrail_saved_parts(t) -
			  ramtrail_saved_first_shown(t);
	}
	return t;
}

/*
 * N of ftrace-ramtrail-N, part @part of @t, whose walk gave @first;
 * U64_MAX for a part not shown (ramtrail_saved_first_shown()).
 */
static inline u64 ramtrail_saved_part_id(const struct ramtrail_saved_trace *t,
					 u64 first, u64 part)
{
	u64 skip = ramtrail_saved_first_shown(t);

	return part < skip ? U64_MAX : first + part - skip;
}

/* Was part @part of @t erased? A part past 64 goes with the whole trace. */
static inline bool ramtrail_saved_part_erased(const struct ramtrail_saved_trace *t,
					      u64 part)
{
	u64 erased = le64_to_cpu(READ_ONCE(t->erased));

	return part < 64 ? erased >> part & 1 : erased == ~0ULL;
}

/* The erased word of @t once part @part is erased too. */
static inline u64 ramtrail_saved_erase_part(const struct ramtrail_saved_trace *t,
					    u64 part)
{
	return part < 64 ? le64_to_cpu(READ_ONCE(t->erased)) | 1ULL << part :
	       ~0ULL;
}

#endif /* _RAMTRAIL_SAVED_H */
