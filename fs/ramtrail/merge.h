/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The merge: every zone's records in one time order, (ts, cpu, pos), by
 * a heap of zone cursors. The step is inline here for the save's loop
 * (ramtrail_saved_merge()), which runs it for every record. Shared by the
 * module and tools/; plain C, no allocation: the caller gives the cursors
 * and the heap.
 */
#ifndef _RAMTRAIL_MERGE_H
#define _RAMTRAIL_MERGE_H

#include "zone.h"

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

void ramtrail_merge_start(struct ramtrail_merge *m,
			  struct ramtrail_zone_cursor *cursor,
			  struct ramtrail_merge_slot *heap, u32 nr);
void ramtrail_merge_init(struct ramtrail_merge *m,
			 const struct ramtrail_region *reg,
			 struct ramtrail_zone_cursor *cursor,
			 struct ramtrail_merge_slot *heap);
const struct ramtrail_record *ramtrail_merge_next(struct ramtrail_merge *m);

const struct ramtrail_record *ramtrail_merge_sift(struct ramtrail_merge *m, bool more);
const struct ramtrail_record *ramtrail_merge_first(struct ramtrail_merge *m);

/*
 * Merge order: (ts, cpu, pos). The heap keeps each cursor's ts beside it,
 * so only a tie reads the records.
 */
static inline bool ramtrail_before(const struct ramtrail_merge_slot *a,
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
	if (!ramtrail_before(o, &top))
		return &c->rec;
	m->top = o->cursor;
	m->limit = top.ts;
	ramtrail_slot_set(o, &top);
	return &m->top->rec;
}

/* ramtrail_merge_next(), inline where the save calls it. */
static __always_inline const struct ramtrail_record *
ramtrail_merge_step(struct ramtrail_merge *m)
{
	struct ramtrail_zone_cursor *c = m->top;

	if (unlikely(!c))
		return ramtrail_merge_first(m);
	/* The top's next record, while no other zone's is older. */
	return ramtrail_merge_settle(m, ramtrail_zone_next(c));
}

#endif /* _RAMTRAIL_MERGE_H */
