// SPDX-License-Identifier: GPL-2.0
/*
 * The merge of all zones by time: a heap of zone cursors keyed by each
 * one's next record, (ts, cpu, pos), with the fast paths of merge.h (the
 * top stays on top, two zones swap) and the general sift here.
 */
#include "merge.h"

/* Put @x in the heap's hole at @i, moving older children up. */
static __always_inline void
ramtrail_sift_down(struct ramtrail_merge *m, u32 i, struct ramtrail_merge_slot x)
{
	struct ramtrail_merge_slot *h = m->heap;
	u32 c;

	while ((c = 2 * i + 1) < m->nr) {
		if (c + 1 < m->nr && ramtrail_before(&h[c + 1], &h[c]))
			c++;
		if (!ramtrail_before(&h[c], &x))
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

	for (cpu = 0; cpu < le32_to_cpu(reg->hdr.nr_cpus); cpu++)
		ramtrail_zone_open(&cursor[cpu], reg, cpu);
	ramtrail_merge_start(m, cursor, heap, le32_to_cpu(reg->hdr.nr_cpus));
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
noinline const struct ramtrail_record *
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

/* The merge's first record, or NULL at the end: @m->top is not set yet. */
noinline const struct ramtrail_record *
ramtrail_merge_first(struct ramtrail_merge *m)
{
	m->top = m->first;
	m->first = NULL;
	return m->top ? &m->top->rec : NULL;
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
