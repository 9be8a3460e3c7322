// SPDX-License-Identifier: GPL-2.0
/*
 * A zone's tail: its newest records, found from where its writer is
 * without reading the rest of the zone, for the dump that prints them as
 * the kernel dies (dump.c). Windows of the blocks before the writer,
 * doubling, are decoded by zone.c's cursor until one holds the records
 * asked for: the work depends on how many, not on the size of the zone.
 */
#include "zone.h"

#define RT_WORDS		(RAMTRAIL_BLOCK_SIZE / 8)
/* A task event: head and struct ramtrail_ev_task */
#define RT_TASK_WORDS		(1 + sizeof(struct ramtrail_ev_task) / 4)

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
