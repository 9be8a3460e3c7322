// SPDX-License-Identifier: GPL-2.0
/*
 * The record path's slow side: entering a new block (padding the old
 * block's tail and writing the new block's header), rebuilding a stale block
 * cache, and refusing records. Shared by the module and tools/.
 */
#include "ring.h"
#include "seal.h"

static notrace u64 ramtrail_block_cache(const struct ramtrail_ring *r, u64 g)
{
	u32 index;
	u64 lap = div_u64_rem(g, r->nr_blocks, &index);

	return index | (lap & RAMTRAIL_LAP_MASK) << RAMTRAIL_CB_LAP_SHIFT |
	       (g & RAMTRAIL_CB_GEN_MASK) << RAMTRAIL_CB_GEN_SHIFT;
}

static notrace bool ramtrail_ring_drop(struct ramtrail_ring *r)
{
	local_inc(&r->dropped);
	return false;
}

/* Seal block @g over its first @n words. */
static notrace void ramtrail_block_seal(struct ramtrail_ring *r, u64 g,
					unsigned int n)
{
	u64 blk = ramtrail_block_cache(r, g);
	__le64 *w = ramtrail_cb_words(r, blk);
	u64 v = ramtrail_seal_value(w, n);

	ramtrail_store(w + RAMTRAIL_SEAL_WORD,
		       ramtrail_word(RAMTRAIL_W_SEAL, ramtrail_cb_lap(blk), v,
				     v >> RAMTRAIL_TS_BITS));
}

/*
 * Seal blocks @first to the one before @g, whole, of those the zone still
 * holds: the nr_blocks up to block @top, the newest one entered.
 */
static notrace void ramtrail_blocks_seal(struct ramtrail_ring *r, u64 first,
					 u64 g, u64 top)
{
	/* Slots a later lap took over: their blocks are gone. */
	if (top - first >= r->nr_blocks)
		first = top + 1 - r->nr_blocks;
	for (; first < g; first++)
		ramtrail_block_seal(r, first, RAMTRAIL_BLOCK_WORDS);
}

/*
 * Seal the blocks from ring->sealed to the one before block @g, the block
 * of the outermost writer's record, once its words are stored ([R7]).
 */
static notrace void ramtrail_ring_seal(struct ramtrail_ring *r, u64 g)
{
	ramtrail_blocks_seal(r, r->sealed, g, g);
	r->sealed = g;
}

/**
 * ramtrail_ring_write_slow() - ramtrail_ring_write() when the fast path can't
 * @r: the current CPU's ring
 * @type: record type
 * @head: head payload
 * @cont: continuation payloads
 * @ncont: number of continuation words
 * @outer: this is the CPU's outermost writer in flight, owner of ring->floor
 * @task: ramtrail_env_task() of the writer
 *
 * Reserves like the fast path, with the same ordering points [R1]-[R5], but
 * may also enter the next block: the reservation then covers the old
 * block's tail (filled with PAD words), the new block's header, a task
 * event and the record, all timestamped with the one counter read. The
 * header's full counter value is the record's base, so no TSEXT is needed.
 * The outermost writer then seals the blocks before its record's ([R7]).
 * Within a block, a task event goes before the record when ring->task is
 * not @task. A nested writer does not enter a block whose slot still holds
 * the outermost writer's open reservation ([R4]).
 *
 * Return: true if recorded, false if refused (counted unless the ring is
 * RAMTRAIL_RING_PAUSED).
 */
notrace noinline bool ramtrail_ring_write_slow(struct ramtrail_ring *r,
					       unsigned int type, u32 head,
					       const u32 *cont,
					       unsigned int ncont, bool outer,
					       unsigned long task)
{
	unsigned long pos, next, off, floor;
	unsigned int i, lap, ext, pad, named;
	struct ramtrail_ev_task ev;
	u64 ts, g, blk;
	__le64 *w;

	if (ncont > RAMTRAIL_MAX_CONT)
		return ramtrail_ring_drop(r);
	do {
		if (READ_ONCE(r->stopped))
			return ramtrail_ring_refuse(r);
		pos = local_read(&r->pos);
		if (outer) {
			WRITE_ONCE(r->floor, pos);
			barrier();	/* [R4]: floor before the cmpxchg */
		}
		floor = READ_ONCE(r->floor);
		ts = ramtrail_clock() & RAMTRAIL_CLOCK_MASK;	/* [R1] */
		off = pos & RAMTRAIL_BLOCK_MASK;
		ext = ((ts - READ_ONCE(r->last_ts)) & RAMTRAIL_CLOCK_MASK) >=
		      RAMTRAIL_TS_SPAN;
		pad = 0;
		named = READ_ONCE(r->task) == task ? 0 : RAMTRAIL_TASK_WORDS;
		if (off && off + (named + 1 + ncont + ext) * 8 <=
			   RAMTRAIL_BLOCK_SIZE) {
			next = pos + (named + 1 + ncont + ext) * 8;
		} else {
			pad = off ? (RAMTRAIL_BLOCK_SIZE - off) / 8 : 0;
			ext = 0;
			named = RAMTRAIL_TASK_WORDS;
			next = pos + pad * 8 + (RAMTRAIL_BLOCK_WORDS_HDR +
						named + 1 + ncont) * 8;
			if ((r->flags & RAMTRAIL_RING_STOP_WHEN_FULL) &&
			    (next - 1) >> RAMTRAIL_BLOCK_SHIFT >= r->nr_blocks) {
				WRITE_ONCE(r->stopped, RAMTRAIL_RING_REFUSING);
				return ramtrail_ring_drop(r);
			}
			/*
			 * [R4]: a nested writer enters neither the outer
			 * reservation's block nor the one before it (its time
			 * base while its header may still be unwritten). The
			 * outermost writer has none in flight below it.
			 */
			if (!outer && ((next - 1) >> RAMTRAIL_BLOCK_SHIFT) -
			    (floor >> RAMTRAIL_BLOCK_SHIFT) >= r->nr_blocks - 1)
				return ramtrail_ring_drop(r);
		}
	} while (local_cmpxchg(&r->pos, pos, next) != pos);

	g = pos >> RAMTRAIL_BLOCK_SHIFT;
	if (pad) {
		blk = ramtrail_block_cache(r, g);
		w = ramtrail_cb_words(r, blk) + off / 8;
		for (i = 0; i < pad; i++)
			ramtrail_store(w + i, ramtrail_word(RAMTRAIL_W_PAD,
							    ramtrail_cb_lap(blk),
							    ts, 0));
		g++;
	}
	blk = ramtrail_block_cache(r, g);
	lap = ramtrail_cb_lap(blk);
	w = ramtrail_cb_words(r, blk);
	if (pad || !off) {
		/* ext is 0 here: the header carries the full counter. */
		ramtrail_store(w, ramtrail_word(RAMTRAIL_W_BLOCK, lap, ts, g));
		ramtrail_store(w + 1, ramtrail_word(RAMTRAIL_W_CONT, lap, ts,
						    g >> 32));
		ramtrail_store(w + 2, ramtrail_word(RAMTRAIL_W_CONT, lap, ts,
						    ts >> RAMTRAIL_TS_BITS));
		/* Not sealed yet ([R7]): a seal of an older lap is gone. */
		ramtrail_store(w + RAMTRAIL_SEAL_WORD,
			       ramtrail_word(RAMTRAIL_W_PAD, lap, ts, 0));
		w += RAMTRAIL_BLOCK_WORDS_HDR;
	} else {
		w += off / 8;
	}
	/*
	 * [R3] A nested writer may have moved on already; the generation
	 * check makes the fast path ignore this value then.
	 */
	WRITE_ONCE(r->block, blk);
	if (named) {
		ramtrail_env_describe(&ev);
		w = ramtrail_ring_store(w, lap, ts, ext, RAMTRAIL_W_EVENT,
					RAMTRAIL_EVENT_HEAD(RAMTRAIL_EV_TASK,
							    sizeof(ev)),
					(const u32 *)&ev, RAMTRAIL_TASK_WORDS - 1);
		ext = 0;
	}
	ramtrail_ring_commit(r, w, lap, ts, ext, type, head, cont, ncont);
	if (named)
		ramtrail_ring_task_named(r, task);
	if (outer && r->sealed < g)
		ramtrail_ring_seal(r, g);
	return true;
}

/**
 * ramtrail_ring_seal_tail() - seal a stopped ring's blocks up to a position
 * @r: the ring: stopped, and no writer of it between reserve and commit
 * @end: the position recording stopped at, at most ring->pos
 *
 * Seals the blocks that are not sealed yet before @end's, of those the
 * zone still holds (up to @end's, or the one before when @end is at a
 * block's start and so never entered it), and @end's own over its words
 * before @end: the newest records of a stopped zone are checked whole as
 * the older ones are. Words a writer stores at or past
 * @end later are outside the seal. Leaves ring->sealed alone: a writer
 * that resumes seals @end's block again once it leaves it.
 */
notrace void ramtrail_ring_seal_tail(struct ramtrail_ring *r,
				     unsigned long end)
{
	u64 g = end >> RAMTRAIL_BLOCK_SHIFT;

	if (!end)
		return;
	/* At a block's start, that block was not entered: the one before is. */
	ramtrail_blocks_seal(r, READ_ONCE(r->sealed), g,
			     (end - 1) >> RAMTRAIL_BLOCK_SHIFT);
	if (end & RAMTRAIL_BLOCK_MASK)
		ramtrail_block_seal(r, g, (end & RAMTRAIL_BLOCK_MASK) / 8);
}

/**
 * ramtrail_ring_unseal() - undo the seal of a stopped ring's newest block
 * @r: the ring: stopped, no writer in flight
 *
 * Before the ring records again into the block ramtrail_ring_seal_tail()
 * sealed in part.
 */
notrace void ramtrail_ring_unseal(struct ramtrail_ring *r)
{
	unsigned long pos = local_read(&r->pos);
	u64 blk = ramtrail_block_cache(r, pos >> RAMTRAIL_BLOCK_SHIFT);

	if (pos & RAMTRAIL_BLOCK_MASK)
		ramtrail_store(ramtrail_cb_words(r, blk) + RAMTRAIL_SEAL_WORD,
			       ramtrail_word(RAMTRAIL_W_PAD,
					     ramtrail_cb_lap(blk), 0, 0));
}

/**
 * ramtrail_ring_init() - prepare a CPU's writer for a zone of zeroed memory
 * @r: the ring
 * @zone: first word of the zone, cleared to zero by the caller
 * @nr_blocks: blocks in the zone, at least RAMTRAIL_MIN_BLOCKS
 * @flags: RAMTRAIL_RING_*
 */
notrace void ramtrail_ring_init(struct ramtrail_ring *r, __le64 *zone,
				u32 nr_blocks, u32 flags)
{
	memset(r, 0, sizeof(*r));
	r->zone = zone;
	r->nr_blocks = nr_blocks;
	r->flags = flags;
	r->floor = RAMTRAIL_FLOOR_IDLE;
	r->block = ramtrail_block_cache(r, 0);
	r->ref_back = min_t(u32, RAMTRAIL_REF_BACK_MAX, nr_blocks - 1);
}
