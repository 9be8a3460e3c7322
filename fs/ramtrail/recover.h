/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a region back: validate the header, decode each zone, merge the
 * zones by time. Shared by the module and tools/; plain C, no allocation:
 * the caller provides one cursor per zone.
 */
#ifndef _RAMTRAIL_RECOVER_H
#define _RAMTRAIL_RECOVER_H

#include "compat.h"
#include <linux/ramtrail.h>

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

/**
 * struct ramtrail_record_head - the fields of a function record, at the
 *	start of struct ramtrail_record (@head there): a zone cursor decodes
 *	a run of function records ahead into these, and returns each with
 *	one copy
 * @ts: see struct ramtrail_record, as every field
 * @pos: zone position
 * @ip: function
 * @parent: caller
 * @type: kind
 * @ctx: context
 * @len: 0 (an event's)
 * @flags: 0 (an event's)
 * @id: 0 (an event's)
 * @task_known: the task is known
 */
struct ramtrail_record_head {
	u64 ts;
	u64 pos;
	u32 ip;
	u32 parent;
	u8 type;
	u8 ctx;
	u8 len;
	u8 flags;
	u16 id;
	bool task_known;
};

/**
 * struct ramtrail_record - one decoded trace record
 * @head: the fields below up to @task_known, as one
 * @ts: counter value, extended to 64 bits; non-decreasing within a zone
 * @pos: zone position of the record's head word
 * @ip: function offset from the text base (function records)
 * @parent: caller offset from the text base (RAMTRAIL_W_FUNC_PARENT)
 * @type: RAMTRAIL_W_FUNC, RAMTRAIL_W_FUNC_PARENT or RAMTRAIL_W_EVENT (the
 *	context taken out, into @ctx)
 * @ctx: enum ramtrail_ctx
 * @len: bytes of @data (events)
 * @flags: RAMTRAIL_EF_* of an event, the context included; 0 for a function
 * @id: event id (events)
 * @task_known: @task holds the record's task; else it is unknown
 * @cpu: zone the record came from
 * @task_gen: a zone cursor's count of the changes of @task and @task_known:
 *	equal in two records of one cursor, they have the same task; 0 for
 *	records from elsewhere (compare @task)
 * @task: the task that was running on the CPU
 * @data: event payload, zero padded to whole words
 */
struct ramtrail_record {
	union {
		struct ramtrail_record_head head;
		struct {	/* the same, in the same order: recover.c checks */
			u64 ts;
			u64 pos;
			u32 ip;
			u32 parent;
			u8 type;
			u8 ctx;
			u8 len;
			u8 flags;
			u16 id;
			bool task_known;
		};
	};
	u32 cpu;
	u32 task_gen;
	struct ramtrail_ev_task task;
	u8 data[RAMTRAIL_EVENT_MAX_LEN + 1];
};

/**
 * struct ramtrail_zone_stats - what decoding a zone found
 * @records: valid records returned
 * @blocks: blocks read (the window between oldest and newest)
 * @corrupt_blocks: blocks dropped whole: they hold words no writer
 *	produces, their seal does not match, or they are not sealed while a
 *	later block is
 * @sealed_blocks: blocks read whose seal matched
 * @headerless_blocks: blocks whose header write was lost (records kept)
 * @torn: records with a missing or stale continuation word, or orphans
 * @lost_words: stale words in the written part of a block (in-flight writes)
 * @no_base: records dropped because no full timestamp preceded them
 * @lost_refs: FUNC_REF records dropped because a later lap took a block
 *	before theirs, which held the record they name (the window's oldest)
 * @ts_backwards: full timestamps older than the record before (clamped)
 * @tasks: task events read (not returned as records)
 * @no_task: records returned whose task is unknown
 * @newest_block: block number of the newest block, or ~0 if none
 */
struct ramtrail_zone_stats {
	u64 records;
	u64 blocks;
	u64 corrupt_blocks;
	u64 sealed_blocks;
	u64 headerless_blocks;
	u64 torn;
	u64 lost_words;
	u64 no_base;
	u64 lost_refs;
	u64 ts_backwards;
	u64 tasks;
	u64 no_task;
	u64 newest_block;
};

/* Records a zone cursor decodes at once, in a run of function records. */
#define RAMTRAIL_BATCH		64

/**
 * struct ramtrail_zone_cursor - position of a zone decode
 * @zone: first word of the zone
 * @nr_blocks: blocks in the zone
 * @cpu: zone number
 * @g: block number being read
 * @block: first word of block @g
 * @g_last: newest block number to read
 * @word: next word in block @g
 * @lap: lap bits of block @g
 * @back: first word of block @g - 1 - i at @back[i], or NULL if there is
 *	none (@g too small, or the zone too short to keep it with @g)
 * @back_lap: lap bits of those blocks
 * @in_block: block @g was checked and is being read
 * @have_base: @ts holds a full timestamp
 * @stale: stale words seen since the last valid word of the block
 * @task_known: @task names the task of the block's next records
 * @task: the task named by the block's last task event
 * @ts: running timestamp
 * @entry_ts: @ts when block @g was entered
 * @entry_base: @have_base then
 * @may_sleep: the caller sleeps: each block entered may reschedule
 * @seal_top: block number of the newest sealed block of the window, or
 *	~0 if none: an older block that is not sealed is damaged
 * @dropped: bit k set: block @g - k was entered and dropped
 * @end_word: words of block @g to read: its sealed ones, or all
 * @end_pos: the zone ends before this position (a live zone's snapshot)
 * @end_ts: the zone ends before the first record newer than this
 * @stats: counters
 * @rec: the record returned by the last ramtrail_zone_next()
 * @nr_batch: records in @batch
 * @next_batch: the next of them to return; the words up to @word are
 *	decoded, and @ts is the newest record's, when it is below @nr_batch
 * @batch: function records decoded, not returned yet
 */
struct ramtrail_zone_cursor {
	const u64 *zone;
	u32 nr_blocks;
	u32 cpu;
	u64 g;
	const u64 *block;
	u64 g_last;
	u32 word;
	u32 lap;
	const u64 *back[RAMTRAIL_REF_BACK_MAX];
	u32 back_lap[RAMTRAIL_REF_BACK_MAX];
	bool in_block;
	bool have_base;
	bool task_known;
	u32 stale;
	struct ramtrail_ev_task task;
	u64 ts;
	u64 entry_ts;
	bool entry_base;
	bool may_sleep;
	u64 seal_top;
	u64 dropped;
	u32 end_word;
	u64 end_pos;
	u64 end_ts;
	struct ramtrail_zone_stats stats;
	struct ramtrail_record rec;
	u32 nr_batch;
	u32 next_batch;
	struct ramtrail_record_head batch[RAMTRAIL_BATCH];
};

/**
 * struct ramtrail_merge_slot - a cursor in the merge's heap
 * @ts: the counter value of the cursor's record: the heap's key
 * @cursor: the cursor
 */
struct ramtrail_merge_slot {
	u64 ts;
	struct ramtrail_zone_cursor *cursor;
};

/**
 * struct ramtrail_merge - k-way merge of all zones by (ts, cpu, pos)
 * @top: the cursor whose record was returned last, which moves on before
 *	the next is returned; NULL before the first record and at the end
 * @first: the cursor of the first record, until it is returned
 * @heap: nr_cpus slots, owned by the caller
 * @nr: cursors still in the heap
 * @limit: the oldest counter value of the top's children: a top record
 *	older than it stays on top without a sift
 */
struct ramtrail_merge {
	struct ramtrail_zone_cursor *top;
	struct ramtrail_zone_cursor *first;
	struct ramtrail_merge_slot *heap;
	u32 nr;
	u64 limit;
};

/**
 * struct ramtrail_tail - the newest records of a zone, found without
 *	reading the rest: where its writer is must be known
 * @zone: first word of the zone
 * @nr_blocks: blocks in the zone
 * @cpu: zone number
 * @end: the writer's position: records at or past it are left out
 * @end_ts: records newer than this counter value are left out
 * @first: block number of the first block read
 * @last: block number of the newest block
 * @skip: records of the window before the tail
 * @records: records of the tail
 * @newest_ts: counter value of the tail's newest record (0 if none)
 */
struct ramtrail_tail {
	const u64 *zone;
	u32 nr_blocks;
	u32 cpu;
	u64 end;
	u64 end_ts;
	u64 first;
	u64 last;
	u32 skip;
	u32 records;
	u64 newest_ts;
};

void ramtrail_region_open_layout(struct ramtrail_region *reg, const void *buf,
				 u64 len,
				 const struct ramtrail_region_header *layout);
const char *ramtrail_strerror(int err);
const char *ramtrail_error_name(int err);
int ramtrail_region_open(struct ramtrail_region *reg, const void *buf,
			 u64 len);
void ramtrail_zone_open(struct ramtrail_zone_cursor *c,
			const struct ramtrail_region *reg, u32 cpu);
void ramtrail_zone_open_raw(struct ramtrail_zone_cursor *c, const u64 *zone,
			    u32 nr_blocks, u32 cpu);
void ramtrail_zone_open_window(struct ramtrail_zone_cursor *c,
			       const u64 *zone, u32 nr_blocks, u32 cpu,
			       u64 first, u64 last);
bool ramtrail_zone_next(struct ramtrail_zone_cursor *c);
void ramtrail_tail_find(struct ramtrail_tail *t, struct ramtrail_zone_cursor *c,
			u32 n);
void ramtrail_tail_open(const struct ramtrail_tail *t,
			struct ramtrail_zone_cursor *c, bool whole);
void ramtrail_merge_start(struct ramtrail_merge *m,
			  struct ramtrail_zone_cursor *cursor,
			  struct ramtrail_merge_slot *heap, u32 nr);
void ramtrail_merge_init(struct ramtrail_merge *m,
			 const struct ramtrail_region *reg,
			 struct ramtrail_zone_cursor *cursor,
			 struct ramtrail_merge_slot *heap);
const struct ramtrail_record *ramtrail_merge_next(struct ramtrail_merge *m);
u64 ramtrail_ts_to_ns(const struct ramtrail_region_header *hdr, u64 ts);
void ramtrail_saved_modules_copy(struct ramtrail_saved_trace *t,
				 const struct ramtrail_module_entry *mods,
				 u32 n, const struct ramtrail_region_header *hdr);

/**
 * struct ramtrail_ns_step - where ramtrail_ts_to_ns_step() is
 * @ts: the counter value converted last
 * @total: its ns after the header's clock_ref_ns, when @exact
 * @rem: (ts - clock_ref_cycles) * 10^9 mod clock_hz, when @exact
 * @inv: floor((2^64 - 1) / clock_hz), when @exact: a division by the
 *	clock's frequency is a product and at most one correction
 * @exact: @total is floor((ts - clock_ref_cycles) * 10^9 / clock_hz),
 *	not saturated
 */
struct ramtrail_ns_step {
	u64 ts;
	u64 total;
	u64 rem;
	u64 inv;
	bool exact;
};

u64 ramtrail_ts_to_ns_step(const struct ramtrail_region_header *hdr,
			   struct ramtrail_ns_step *s, u64 ts);
void ramtrail_saved_scan(struct ramtrail_region *reg);
u32 ramtrail_saved_heal(struct ramtrail_region *reg, u64 *boot_ids);
const struct ramtrail_saved_trace *
ramtrail_saved_next(const struct ramtrail_region *reg, u64 *pos);
u64 ramtrail_saved_place(const struct ramtrail_region *reg, u64 need,
			 u64 *len);
u32 ramtrail_saved_checksum(const struct ramtrail_saved_trace *t);
struct ramtrail_ecc_encoder;
void ramtrail_saved_sign(struct ramtrail_saved_trace *t,
			 struct ramtrail_ecc_encoder *enc);
bool ramtrail_saved_all_erased(const struct ramtrail_saved_trace *t);
const struct ramtrail_freeze_info *
ramtrail_region_freeze(const struct ramtrail_region *reg);
bool ramtrail_freeze_sealed(const struct ramtrail_freeze_info *f, u32 cpu);
u32 ramtrail_region_flags(const struct ramtrail_region *reg);
bool ramtrail_zones_hold_trace(const struct ramtrail_region *reg, int err);
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

/* The parts of a saved trace entry (layout in the uapi header). */
static inline struct ramtrail_module_entry *
ramtrail_saved_modules(const struct ramtrail_saved_trace *t)
{
	return (struct ramtrail_module_entry *)((u8 *)t +
						RAMTRAIL_SAVED_HEAD_SLOT);
}

/* The first chunk slot of @t. */
static inline u8 *ramtrail_saved_slots(const struct ramtrail_saved_trace *t)
{
	return (u8 *)(ramtrail_saved_modules(t) + t->modtab_count);
}

/* Bytes of a saved trace before its chunk slots. */
static inline u64 ramtrail_saved_fixed(u32 modtab_count)
{
	return RAMTRAIL_SAVED_HEAD_SLOT +
	       (u64)modtab_count * sizeof(struct ramtrail_module_entry);
}

/* Offset of a saved trace in its region's saved area. */
static inline u64 ramtrail_saved_offset(const struct ramtrail_region *reg,
					const struct ramtrail_saved_trace *t)
{
	return (const u8 *)t - (reg->base + reg->hdr.saved_offset);
}

/* Files (parts) a saved trace is shown as through pstore. */
static inline u64 ramtrail_saved_parts(const struct ramtrail_saved_trace *t)
{
	return DIV_ROUND_UP(t->nr_slots, RAMTRAIL_SAVED_PART_CHUNKS);
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

/**
 * struct ramtrail_saved_walk - the saved traces, numbered as pstore files
 * @pos: for ramtrail_saved_next()
 * @first: N of the first ftrace-ramtrail-N file of the trace returned last
 * @next: no file of a later trace is numbered below it
 */
struct ramtrail_saved_walk {
	u64 pos;
	u64 first;
	u64 next;
};

/*
 * ramtrail_saved_next() that also numbers the traces' files as pstore
 * does: each trace, erased parts included, takes ramtrail_saved_parts()
 * ids from its boot's first id (ramtrail_boot_ids()), or from the end of
 * the trace before it if that one took more (traces come in boot order,
 * so names never repeat). Start from a zeroed walk.
 */
static inline const struct ramtrail_saved_trace *
ramtrail_saved_walk(const struct ramtrail_region *reg,
		    struct ramtrail_saved_walk *w)
{
	const struct ramtrail_saved_trace *t = ramtrail_saved_next(reg, &w->pos);
	u64 first;

	if (t) {
		first = ramtrail_boot_ids(t->boot_id);
		w->first = first > w->next ? first : w->next;
		w->next = w->first + ramtrail_saved_parts(t);
	}
	return t;
}

/* Was part @part of @t erased? A part past 64 goes with the whole trace. */
static inline bool ramtrail_saved_part_erased(const struct ramtrail_saved_trace *t,
					      u64 part)
{
	u64 erased = READ_ONCE(t->erased);

	return part < 64 ? erased >> part & 1 : erased == ~0ULL;
}

/* The erased word of @t once part @part is erased too. */
static inline u64 ramtrail_saved_erase_part(const struct ramtrail_saved_trace *t,
					    u64 part)
{
	return part < 64 ? READ_ONCE(t->erased) | 1ULL << part : ~0ULL;
}

/**
 * struct ramtrail_saved_task - the task a saved chunk names last for a CPU
 * @known: @task is the CPU's task; false before its first task event too
 * @task: the task
 * @gen: the writer's: @task_gen of the record it was last set from, which
 *	spares comparing @task with the records that follow; 0 for none
 *
 * Writer and reader keep one per CPU; all zero is the state at a chunk's
 * start.
 */
struct ramtrail_saved_task {
	bool known;
	u32 gen;
	struct ramtrail_ev_task task;
};

/**
 * struct ramtrail_saved_cursor - a read position in a saved trace's chunks
 * @t: the trace
 * @nr: chunks kept, numbered 0 (the oldest) to @nr - 1
 * @next: number of the next chunk to open
 * @p: next entry of the open chunk
 * @end: end of the open chunk's entries; @p == @end: none open
 * @start: the open chunk's first entry
 * @ns: time of the entry read last in the open chunk
 * @cpu: CPU of the entry read last in the open chunk; U32_MAX for none
 * @entries: entries read in the open chunk
 * @nr_names: offsets in @names
 * @nr_pairs: pairs in @pair_ip and @pair_parent
 * @nr_cpus: CPUs of the trace; an entry naming another is malformed
 * @records: records returned
 * @tasks: task events read (not returned as records)
 * @bad: chunks dropped: a checksum or number that does not match, or an
 *	entry no writer makes (the rest of its chunk is dropped then)
 * @names: the open chunk's table of function offsets
 * @pair_ip: the function of each of the open chunk's pairs
 * @pair_parent: the caller of each (0: none)
 * @task: the task each CPU runs, from the open chunk's task events
 * @rec: the record returned by the last ramtrail_saved_read(); its @ts is
 *	in nanoseconds and its @pos the byte of its entry from the first slot
 */
struct ramtrail_saved_cursor {
	const struct ramtrail_saved_trace *t;
	u64 nr;
	u64 next;
	const u8 *p;
	const u8 *end;
	const u8 *start;
	u64 ns;
	u32 cpu;
	u32 entries;
	u32 nr_names;
	u32 nr_pairs;
	u32 nr_cpus;
	u64 records;
	u64 tasks;
	u64 bad;
	u32 names[RAMTRAIL_SAVED_CHUNK_NAMES];
	u32 pair_ip[RAMTRAIL_SAVED_CHUNK_PAIRS];
	u32 pair_parent[RAMTRAIL_SAVED_CHUNK_PAIRS];
	struct ramtrail_saved_task task[RAMTRAIL_MAX_CPUS];
	struct ramtrail_record rec;
};

/* Entries of the writer's table of offsets and pairs: twice what a chunk holds. */
#define RAMTRAIL_SAVED_HASH_BITS	14
#define RAMTRAIL_SAVED_HASH		BIT(RAMTRAIL_SAVED_HASH_BITS)
/*
 * Bytes of a record's entries at most: a task event (tag, time, id, len,
 * flags, struct ramtrail_ev_task), then the record (tag, CPU, time, and an
 * event of RAMTRAIL_EVENT_MAX_LEN bytes, or refs and two offsets). A chunk of
 * RAMTRAIL_SAVED_CHUNK_MIN bytes holds one.
 */
#define RAMTRAIL_SAVED_ENTRY_MAX \
	(2 * (1 + 3 + 10 + 3 + 2) + sizeof(struct ramtrail_ev_task) + \
	 RAMTRAIL_EVENT_MAX_LEN)

/**
 * struct ramtrail_saved_name - an offset or a pair in the writer's table
 * @key: a pair: function << 32 | caller; an offset: RAMTRAIL_SAVED_OFFSET
 *	| the offset
 * @index: its index in the chunk's table of offsets or of pairs
 * @chunk: 1 + the number of the chunk the entry belongs to; another
 *	chunk's entry is free
 */
struct ramtrail_saved_name {
	u64 key;
	u32 index;
	u32 chunk;
};

/* Offsets and pairs share the writer's table: an offset's key. */
#define RAMTRAIL_SAVED_OFFSET		BIT_ULL(63)

/* Codewords a Reed-Solomon encoder divides side by side. */
#define RAMTRAIL_ECC_LANES	8

/**
 * struct ramtrail_ecc_encoder - a Reed-Solomon encoder's memory
 * @ecc: parity bytes its table was built for, 0 for none yet
 * @row: row f: f times the generator's coefficients, highest power first
 * @win: one division's window per codeword divided side by side
 */
struct ramtrail_ecc_encoder {
	u32 ecc;
	u8 row[256][RAMTRAIL_SAVED_ECC_MAX];
	u8 win[RAMTRAIL_ECC_LANES][RAMTRAIL_SAVED_ECC_N + 8];
};

/**
 * struct ramtrail_saved_writer - merged records going into a saved trace
 * @slots: the first chunk slot
 * @chunk_size: bytes of a slot
 * @nr_slots: slots at @slots
 * @ecc: parity bytes per codeword of a slot, 0 for none
 * @data: bytes of a slot's data (ramtrail_saved_data_size())
 * @boot_id: the trace's, for the chunks' checksums
 * @nonce: the trace's, for the chunks' checksums
 * @task: per CPU, the caller's memory: the task the open chunk names last
 * @hash: RAMTRAIL_SAVED_HASH entries, the caller's memory, zeroed
 * @nr_cpus: entries of @task
 * @buf: the open chunk as it is made, then copied to its slot: the
 *	caller's memory, RAMTRAIL_SAVED_BUF(@chunk_size) bytes
 * @chunk: the open chunk's slot, NULL for none
 * @len: bytes of entries in it
 * @entries: entries in it
 * @nr_names: offsets in its table
 * @nr_pairs: pairs in its table
 * @ns: time of its last entry
 * @cpu: CPU of its last entry; U32_MAX for none
 * @nr_chunks: chunks written or open
 * @records: records written
 * @chunk_records: records in the open chunk
 * @lost: records of the chunks overwritten
 * @last_size: bytes of the slot of the chunk closed last
 * @enc: the parity's encoder
 */
struct ramtrail_saved_writer {
	u8 *slots;
	u32 chunk_size;
	u32 nr_slots;
	u32 ecc;
	u32 data;
	u64 boot_id;
	u64 nonce;
	struct ramtrail_saved_task *task;
	struct ramtrail_saved_name *hash;
	u32 nr_cpus;
	u8 *buf;
	struct ramtrail_saved_chunk *chunk;
	u32 len;
	u32 entries;
	u32 nr_names;
	u32 nr_pairs;
	u64 ns;
	u32 cpu;
	u64 nr_chunks;
	u64 records;
	u32 chunk_records;
	u64 lost;
	u32 last_size;
	struct ramtrail_ecc_encoder enc;
};

/*
 * Bytes of a chunk slot of @chunk_size that its chunk may fill, with @ecc
 * parity bytes per codeword after them (the format's picture).
 */
static inline u32 ramtrail_saved_data_size(u32 chunk_size, u32 ecc)
{
	return chunk_size - DIV_ROUND_UP(chunk_size, RAMTRAIL_SAVED_ECC_N) * ecc;
}

void ramtrail_ecc_encode(u8 *slot, u32 size, u32 ecc,
			 struct ramtrail_ecc_encoder *enc);
int ramtrail_ecc_correct(u8 *slot, u32 size, u32 ecc);

/* Bytes of a writer's @buf: a chunk and a record's entries past it. */
#define RAMTRAIL_SAVED_BUF(chunk_size)	((chunk_size) + RAMTRAIL_SAVED_ENTRY_MAX)

/*
 * The chunk size for @room bytes after a saved trace's module entries (0:
 * too few), and the slots: one chunk's worth of records, or all, fills
 * the room.
 */
static inline u32 ramtrail_saved_chunk_for(u64 room)
{
	if (room < RAMTRAIL_SAVED_CHUNK_MIN)
		return 0;
	return room < RAMTRAIL_SAVED_CHUNK_MAX ? round_down(room, 8) :
	       RAMTRAIL_SAVED_CHUNK_MAX;
}

static inline u32 ramtrail_saved_slots_for(u64 room, u32 chunk_size)
{
	return min_t(u64, room / chunk_size, U32_MAX);
}

void ramtrail_saved_writer_start(struct ramtrail_saved_writer *w, u8 *slots,
				 u32 chunk_size, u32 nr_slots, u32 ecc,
				 u64 boot_id, u64 nonce);
bool ramtrail_saved_keeps(const struct ramtrail_record *r);
void ramtrail_saved_add(struct ramtrail_saved_writer *w,
			const struct ramtrail_record *r, u64 ns);
void ramtrail_saved_finish(struct ramtrail_saved_writer *w);
u32 ramtrail_saved_chunk_checksum(const struct ramtrail_saved_chunk *k,
				  u64 boot_id, u64 nonce);
void ramtrail_saved_merge(const struct ramtrail_region *reg,
			  struct ramtrail_zone_cursor *cur,
			  struct ramtrail_merge_slot *heap,
			  struct ramtrail_saved_writer *w);
void ramtrail_saved_set_chunks(struct ramtrail_saved_trace *t,
			       const struct ramtrail_saved_writer *w);

void ramtrail_saved_open(struct ramtrail_saved_cursor *c,
			 const struct ramtrail_saved_trace *t);
const struct ramtrail_record *
ramtrail_saved_read(struct ramtrail_saved_cursor *c, u64 end);
void ramtrail_saved_skip(struct ramtrail_saved_cursor *c, u64 end);

/*
 * Part @part of @t holds the chunks from the end of the part before up to
 * this one. Parts are counted back from the newest chunk: every part but
 * the oldest holds RAMTRAIL_SAVED_PART_CHUNKS chunks, so the newest file,
 * the one that holds the crash, is never a short remainder.
 */
static inline u64 ramtrail_saved_part_end(const struct ramtrail_saved_trace *t,
					  u64 part)
{
	u64 parts = ramtrail_saved_parts(t);
	u64 back;

	if (part >= parts)
		return t->nr_slots;
	back = (parts - 1 - part) * RAMTRAIL_SAVED_PART_CHUNKS;
	return back < t->nr_slots ? t->nr_slots - back : 0;
}

u64 ramtrail_saved_part_records(const struct ramtrail_saved_trace *t, u64 part);
/**
 * struct ramtrail_saved_check - what ramtrail_saved_check() found
 * @corrected: chunks its parity corrected
 * @bytes: bytes corrected in them
 * @damaged: chunks left failing their checks (not read)
 * @records: records those held at most
 */
struct ramtrail_saved_check {
	u64 corrected;
	u64 bytes;
	u64 damaged;
	u64 records;
};

void ramtrail_saved_check(struct ramtrail_saved_trace *t, u8 *buf,
			  struct ramtrail_saved_check *c);
u64 ramtrail_saved_damage(const struct ramtrail_saved_trace *t, u64 *records);

/* Bytes of all zones of a region. */
static inline u64 ramtrail_zones_size(const struct ramtrail_region_header *h)
{
	return (u64)h->nr_cpus * h->nr_blocks << RAMTRAIL_BLOCK_SHIFT;
}

/* Offset of zone @cpu in its region. */
static inline u64 ramtrail_zone_offset(const struct ramtrail_region_header *h,
				       u32 cpu)
{
	return h->zone_offset + ((u64)cpu * h->nr_blocks << RAMTRAIL_BLOCK_SHIFT);
}

/* Offset of dmesg record @slot in its region. */
static inline u64 ramtrail_dmesg_offset(const struct ramtrail_region_header *h,
					u32 slot)
{
	return h->dmesg_offset + (u64)slot * h->dmesg_size;
}

/* The module table of the boot that wrote an opened region. */
static inline const struct ramtrail_module_entry *
ramtrail_region_modules(const struct ramtrail_region *reg)
{
	return (const void *)(reg->base + reg->hdr.modtab_offset);
}

u32 ramtrail_region_nr_modules(const struct ramtrail_region *reg);
void ramtrail_zone_stats_sum(struct ramtrail_zone_stats *sum,
			     const struct ramtrail_zone_cursor *cur, u32 n);
void ramtrail_saved_count(struct ramtrail_saved_trace *t,
			  const struct ramtrail_region *reg,
			  const struct ramtrail_zone_cursor *cur);

/* region.c: building a region, shared with the writer side. */
u32 ramtrail_header_checksum(const struct ramtrail_region_header *hdr);
u32 ramtrail_layout_checksum(const struct ramtrail_region_header *hdr);
u32 ramtrail_freeze_checksum(const struct ramtrail_freeze_info *f);
u32 ramtrail_module_checksum(const struct ramtrail_module_entry *e);
u64 ramtrail_module_sym_add(u64 hash, const char *name, size_t len, u64 off);

extern const char *const ramtrail_kernel_funcs[RAMTRAIL_KERNEL_NR_FUNCS];
u64 ramtrail_kernel_hash(const u64 *off);
u32 ramtrail_crc32_skip(const void *p, size_t len, size_t skip,
			size_t skip_len);
int ramtrail_layout(struct ramtrail_region_header *hdr, u64 region_size,
		    u32 nr_cpus, u32 dmesg_count, u64 dmesg_size,
		    u64 saved_size, u32 modtab_count);

#endif /* _RAMTRAIL_RECOVER_H */
