/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One zone's decode (zone.c): a cursor that returns the records its
 * writers completed, in zone (time) order; and the tail of a zone, its
 * newest records found without reading the rest (tail.c). Shared by the
 * module and tools/; plain C, no allocation: the caller gives the cursor.
 */
#ifndef _RAMTRAIL_ZONE_H
#define _RAMTRAIL_ZONE_H

#include "region.h"

/**
 * struct ramtrail_record - one decoded trace record
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
 */
struct ramtrail_zone_cursor {
	const __le64 *zone;
	u32 nr_blocks;
	u32 cpu;
	u64 g;
	const __le64 *block;
	u64 g_last;
	u32 word;
	u32 lap;
	const __le64 *back[RAMTRAIL_REF_BACK_MAX];
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
	const __le64 *zone;
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

void ramtrail_zone_open(struct ramtrail_zone_cursor *c,
			const struct ramtrail_region *reg, u32 cpu);
void ramtrail_zone_open_raw(struct ramtrail_zone_cursor *c, const __le64 *zone,
			    u32 nr_blocks, u32 cpu);
void ramtrail_zone_open_window(struct ramtrail_zone_cursor *c,
			       const __le64 *zone, u32 nr_blocks, u32 cpu,
			       u64 first, u64 last);
bool ramtrail_zone_next(struct ramtrail_zone_cursor *c);
void ramtrail_tail_find(struct ramtrail_tail *t, struct ramtrail_zone_cursor *c,
			u32 n);
void ramtrail_tail_open(const struct ramtrail_tail *t,
			struct ramtrail_zone_cursor *c, bool whole);
void ramtrail_zone_stats_sum(struct ramtrail_zone_stats *sum,
			     const struct ramtrail_zone_cursor *cur, u32 n);

#endif /* _RAMTRAIL_ZONE_H */
