/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A saved trace's chunks: the writer that turns the zone merge into
 * chunks (ramtrail_saved_merge()), the reader that turns them back into
 * records, and the check of their checksums and parity. The entries'
 * encoding is in the uapi header. Shared by the module and tools/; plain
 * C, no allocation: the caller gives the writer's and cursor's memory.
 */
#ifndef _RAMTRAIL_CHUNK_H
#define _RAMTRAIL_CHUNK_H

#include "saved.h"
#include "merge.h"
#include "clock.h"

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
 * @key: a pair: function << 32 | caller; an offset: the offset
 * @index: its index in the chunk's table of offsets or of pairs
 * @chunk: 1 + the number of the chunk the entry belongs to; another
 *	chunk's entry is free
 * @kind: RAMTRAIL_SAVED_PAIR or RAMTRAIL_SAVED_OFFSET: a pair's key takes
 *	all 64 bits, so no bit of it can tell an offset's apart
 */
struct ramtrail_saved_name {
	u64 key;
	u32 index;
	u32 chunk;
	u32 kind;
};

/* Offsets and pairs share the writer's table: the kinds of its entries. */
#define RAMTRAIL_SAVED_PAIR		0
#define RAMTRAIL_SAVED_OFFSET		1

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
	u64 slots = le32_to_cpu(t->nr_slots), back;

	if (part >= parts)
		return slots;
	back = (parts - 1 - part) * RAMTRAIL_SAVED_PART_CHUNKS;
	return back < slots ? slots - back : 0;
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

void ramtrail_saved_count(struct ramtrail_saved_trace *t,
			  const struct ramtrail_region *reg,
			  const struct ramtrail_zone_cursor *cur);

#endif /* _RAMTRAIL_CHUNK_H */
