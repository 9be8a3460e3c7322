/* SPDX-License-Identifier: GPL-2.0 */
/* The record path: reserve, write and commit one record in a CPU's zone. */

/**
 * DOC: record states
 *
 * A record at position P of zone Z goes through these states:
 *
 *   reserved   the writer moved ring->pos from P to P + size with a
 *              local_cmpxchg; no other context of this CPU can own P..P+size
 *              in this lap. Memory at P still holds an older lap (or zero).
 *   written    every word holds the new lap; the record is valid for a
 *              reader, word by word, without any commit pointer.
 *   committed  ring->last_ts holds its counter value (or a later one);
 *              later records may rely on it for their timestamp base.
 *   overwritten a later lap reserved the block holding P.
 *
 * A crash between "reserved" and "written" leaves words of the old lap in
 * the slot: the reader drops them. A crash in the middle of "written" leaves
 * a record some of whose words carry the old lap: the reader drops it.
 *
 * Ordering points (all on one CPU; interrupts and NMIs observe program
 * order, so compiler barriers are enough; [R4] is also read by the
 * freeze from another CPU, and orders for it too):
 *
 *  [R1] The counter is read between loading ring->pos and the local_cmpxchg
 *       that reserves. If an interrupt reserved in between, the cmpxchg
 *       fails and the counter is read again, so on each CPU ring order is
 *       time order.
 *  [R2] ring->last_ts is stored after the record's words (barrier()), so it
 *       always names a record that a reader will find valid. A writer that
 *       is 2^26 ticks or more past last_ts prepends a TSEXT word; relies on
 *       [R1]: every valid record before it is at least as new as last_ts.
 *  [R3] ring->block caches the block of ring->pos. It is only trusted when
 *       its generation bits match pos (checked before the cmpxchg; a stale
 *       cache sends the writer to the slow path, which rebuilds it).
 *  [R4] ring->floor is the position of the outermost writer in flight,
 *       stored before its cmpxchg (barrier()). Nested writers run and
 *       return while it waits, so they see it, and they never enter a
 *       block whose slot holds the floor's block or the one before it:
 *       the outer record's stores, made later with an old lap, would land
 *       in a newer lap's block, and a block whose header the outer writer
 *       has not stored yet takes its time base from the block before.
 *       They drop (and count) their records instead, as ftrace does on a
 *       commit overrun. A freeze on another CPU reads the positions, then
 *       (smp_rmb()) waits for each floor to be idle before it seals the
 *       zone up to its position: the reservation's cmpxchg is fully
 *       ordered after the floor's store, so a position it read names a
 *       writer whose floor it sees; the floor is released with
 *       smp_store_release() after the record's words, so the seal hashes
 *       the words (on arm64 a plain store may be seen before earlier ones).
 *       On a write-combining mapping, x86 may hold the words in the CPU's
 *       write-combining buffers past that release (it orders cached
 *       stores only): the writer drains them first (ramtrail_wc_drain()).
 *  [R5] ring->task names the task of the last task event written in the
 *       current block, or is 0. It is stored after the event's words
 *       (barrier()), so a nested writer that sees the old value writes a
 *       task event of its own, and a task event lost in flight is never
 *       taken for one that a later record relies on. Every context of a
 *       CPU that runs while a record is in flight has the same task; the
 *       slow path writes a task event after every block header, and
 *       before any record whose task is not ring->task.
 *  [R6] ring->pairs remembers where function and caller pairs were written
 *       in full. Only the outermost writer (the one that owns ring->floor)
 *       reads or changes it: it sets an entry after the record's words,
 *       before it releases the floor, and a nested writer never touches
 *       it. So an entry names a complete FUNC_PARENT record, and a
 *       FUNC_REF to it is reserved after it: a reset that keeps the
 *       reference keeps a record it can name, or the reader finds that
 *       record's slot of another lap and drops the reference. Its block
 *       is the reference's or one of the ring->ref_back before, fewer
 *       than the zone's blocks: the writer enters its slot again only
 *       after the reference's block.
 *  [R7] ring->sealed is the next block to seal. Only the outermost writer
 *       reads or changes it, in the slow path, after its record's words:
 *       it seals, in order, the blocks before its record's block. Every
 *       writer that wrote into them has returned (the earlier outermost
 *       ones, and the nested ones that ran while this one was in flight),
 *       and none enters them again: the outermost writer is the CPU's
 *       oldest reservation, so a nested one never reserves below it. A
 *       block whose slot a nested writer took over in the meantime ([R4]
 *       allows it for the blocks two or more before the floor's) gets a
 *       seal of its own, older lap, which a reader of the new lap ignores.
 *
 * Documentation/ramtrail/writer.rst proves these in longer form.
 */
#ifndef _RAMTRAIL_RING_H
#define _RAMTRAIL_RING_H

#include "compat.h"
#include <linux/ramtrail.h>

#define RAMTRAIL_BLOCK_WORDS	(RAMTRAIL_BLOCK_SIZE / 8)
#define RAMTRAIL_BLOCK_MASK	(RAMTRAIL_BLOCK_SIZE - 1)
/* Largest record: an event with the longest payload, after a TSEXT. */
#define RAMTRAIL_MAX_CONT	DIV_ROUND_UP(RAMTRAIL_EVENT_MAX_LEN, 4)
/* A task event: head and struct ramtrail_ev_task. */
#define RAMTRAIL_TASK_WORDS	(1 + sizeof(struct ramtrail_ev_task) / 4)

/*
 * ring->block: index of the block in the zone (bits 31:0), its lap
 * (33:32) and the low 30 bits of its block number g (63:34).
 */
#define RAMTRAIL_CB_LAP_SHIFT	32
#define RAMTRAIL_CB_GEN_SHIFT	34
#define RAMTRAIL_CB_GEN_MASK	((1ULL << 30) - 1)

/*
 * Every zone the format allows (2^32 - 1 blocks) is addressed whole: a
 * position counts bytes in a long, a block's words are found in a size_t.
 */
_Static_assert(sizeof(long) == 8 && sizeof(size_t) == 8,
	       "the writer is for 64-bit kernels");

/* ring->flags */
#define RAMTRAIL_RING_STOP_WHEN_FULL	0x1
/* The zone is mapped write-combining: drain before releasing the floor. */
#define RAMTRAIL_RING_WC		0x2

/*
 * ring->stopped: 0 records. PAUSED refuses while recording is off (a
 * freeze, enabled=0, the unload): nothing is lost that was meant to be
 * recorded, so nothing is counted. REFUSING refuses records that were
 * meant to be (the zone is full under stop_when_full, or the CPU has no
 * zone): each is counted.
 */
#define RAMTRAIL_RING_PAUSED		1
#define RAMTRAIL_RING_REFUSING		2

/* ring->floor when no writer of the CPU is between reserve and commit */
#define RAMTRAIL_FLOOR_IDLE	(~0UL)

/* Entries of a CPU's cache of recent pairs ([R6]). */
#define RAMTRAIL_PAIR_BITS	11
#define RAMTRAIL_PAIRS		BIT(RAMTRAIL_PAIR_BITS)

/**
 * struct ramtrail_pair - where a CPU last wrote a function and caller in full
 * @ip: the function's offset
 * @parent: the caller's; never 0, so a zeroed entry matches nothing
 * @pos: position of the FUNC_PARENT record's head word
 */
struct ramtrail_pair {
	u32 ip;
	u32 parent;
	unsigned long pos;
};

/**
 * struct ramtrail_ring - a CPU's writer state, in ordinary cached memory
 * @pos: next byte to reserve; counts bytes written since format, never wraps
 * @block: cached block of @pos, see RAMTRAIL_CB_*
 * @last_ts: counter value of a committed record, never newer than the newest
 * @records: records written, task renames included (the task events the
 *	slow path puts before a record are not counted)
 * @floor: reservation of the outermost writer in flight, or
 *	RAMTRAIL_FLOOR_IDLE; see [R4]
 * @task: the task named last in the current block, or 0; see [R5]
 * @stopped: 0, RAMTRAIL_RING_PAUSED or RAMTRAIL_RING_REFUSING
 * @flags: RAMTRAIL_RING_*
 * @zone: first word of the zone
 * @dropped: records lost while recording: refused while REFUSING, by a
 *	nested writer that found no room ([R4]), or by recursion
 * @nr_blocks: blocks in the zone
 * @pairs: RAMTRAIL_PAIRS entries ([R6]), or NULL to write every function
 *	and caller in full
 * @ref_back: how many blocks before its own a FUNC_REF may name: up to
 *	RAMTRAIL_REF_BACK_MAX, and fewer than @nr_blocks, so that the block
 *	it names is not taken by a later lap before its own is left
 * @sealed: block number of the oldest block not sealed yet; see [R7]
 *
 * What every record touches comes first, in the first cache line (@flags
 * too: the floor's release reads it); the ring is cache-line aligned, so
 * that no other CPU's writes share it (arrays of rings in the userspace
 * tests and benchmarks).
 */
struct ramtrail_ring {
	local_t pos;
	u64 block;
	u64 last_ts;
	local_t records;
	unsigned long floor;
	unsigned long task;
	u32 stopped;
	u32 flags;
	__le64 *zone;
	local_t dropped;
	u32 nr_blocks;
	struct ramtrail_pair *pairs;
	u32 ref_back;
	unsigned long sealed;
} ____cacheline_aligned;

_Static_assert(offsetof(struct ramtrail_ring, zone) + sizeof(__le64 *) <= 64,
	       "the fast path's fields share the ring's first cache line");

static __always_inline u64 ramtrail_word(unsigned int type, unsigned int lap,
					 u64 ts, u32 payload)
{
	return type | (u64)lap << RAMTRAIL_LAP_SHIFT |
	       (ts & RAMTRAIL_TS_MASK) << RAMTRAIL_TS_SHIFT |
	       (u64)payload << RAMTRAIL_PAYLOAD_SHIFT;
}

/* Each word is one single-copy-atomic store: a reader sees all or none. */
static __always_inline void ramtrail_store(__le64 *w, u64 v)
{
#ifdef RAMTRAIL_TEST_HOOKS
	if (test_store_held(w, v))	/* a write-combining buffer's delay */
		return;
#endif
	WRITE_ONCE(*w, cpu_to_le64(v));
}

static __always_inline unsigned int ramtrail_cb_lap(u64 blk)
{
	return (blk >> RAMTRAIL_CB_LAP_SHIFT) & RAMTRAIL_LAP_MASK;
}

/* First word of the block that a ring->block value describes. */
static __always_inline __le64 *
ramtrail_cb_words(const struct ramtrail_ring *r, u64 blk)
{
	return r->zone + (size_t)(u32)blk * RAMTRAIL_BLOCK_WORDS;
}

/* Store a record's words ([TSEXT], head, CONT words) at @w; return the end. */
static __always_inline __le64 *
ramtrail_ring_store(__le64 *w, unsigned int lap, u64 ts, bool ext,
		    unsigned int type, u32 head, const u32 *cont,
		    unsigned int ncont)
{
	unsigned int i;

	if (ext)
		ramtrail_store(w++, ramtrail_word(RAMTRAIL_W_TSEXT, lap, ts,
						  ts >> RAMTRAIL_TS_BITS));
	ramtrail_store(w, ramtrail_word(type, lap, ts, head));
	for (i = 0; i < ncont; i++)
		ramtrail_store(w + 1 + i, ramtrail_word(RAMTRAIL_W_CONT, lap,
							ts, cont[i]));
	return w + 1 + ncont;
}

/*
 * Store a reserved record at @w and commit it. Shared by the fast and the
 * slow path.
 */
static __always_inline void ramtrail_ring_commit(struct ramtrail_ring *r,
						 __le64 *w, unsigned int lap,
						 u64 ts, bool ext,
						 unsigned int type, u32 head,
						 const u32 *cont,
						 unsigned int ncont)
{
	ramtrail_ring_store(w, lap, ts, ext, type, head, cont, ncont);
	barrier();	/* [R2]: words before last_ts */
	WRITE_ONCE(r->last_ts, ts);
	local_inc(&r->records);
}

/*
 * A record refused because the ring is stopped, or recursed into: a loss,
 * counted, unless the ring is paused (nothing meant to be recorded).
 */
static __always_inline bool ramtrail_ring_refuse(struct ramtrail_ring *r)
{
	if (READ_ONCE(r->stopped) != RAMTRAIL_RING_PAUSED)
		local_inc(&r->dropped);
	return false;
}

/*
 * [R4]: the floor is released after the record's words have left the CPU
 * for every other CPU to see, as a freeze that finds it idle hashes them.
 */
static __always_inline void ramtrail_ring_release(struct ramtrail_ring *r)
{
	if (r->flags & RAMTRAIL_RING_WC)
		ramtrail_wc_drain();
	/* pairs with ramtrail_rings_seal()'s smp_rmb() after the floor */
	smp_store_release(&r->floor, RAMTRAIL_FLOOR_IDLE);
}

bool ramtrail_ring_write_slow(struct ramtrail_ring *r, unsigned int type,
			      u32 head, const u32 *cont, unsigned int ncont,
			      bool outer, unsigned long task);

/*
 * The FUNC_REF payload, context aside, that names the record @e remembers
 * for a record at @pos of @ip and @parent; 0 if there is none to name: not
 * that pair, or more than @back blocks before @pos's block ([R6]).
 */
static __always_inline u32 ramtrail_pair_ref(const struct ramtrail_pair *e,
					     u32 ip, u32 parent,
					     unsigned long pos, u32 back)
{
	unsigned long g = pos >> RAMTRAIL_BLOCK_SHIFT;
	unsigned long d = e->pos >> RAMTRAIL_BLOCK_SHIFT;

	if (e->ip != ip || e->parent != parent || g - d > back)
		return 0;
	/* The word is past the block header: the payload is never 0. */
	return (e->pos & RAMTRAIL_BLOCK_MASK) / 8 << RAMTRAIL_REF_WORD_SHIFT |
	       (g - d) << RAMTRAIL_REF_BACK_SHIFT |
	       RAMTRAIL_REF_CHECK(ip, parent) << RAMTRAIL_REF_CHECK_SHIFT;
}

/**
 * ramtrail_ring_write() - record one head word and @ncont CONT words
 * @r: the current CPU's ring; the caller keeps preemption off
 * @type: RAMTRAIL_W_FUNC or RAMTRAIL_W_FUNC_PARENT plus the context, or
 *	RAMTRAIL_W_EVENT
 * @head: payload of the head word
 * @cont: payloads of the continuation words
 * @ncont: number of continuation words, at most RAMTRAIL_MAX_CONT
 * @pair: for a FUNC_PARENT record, the entry of ring->pairs for it, or
 *	NULL: a record the entry names in this block or one of the
 *	ring->ref_back before is then referred to in one word, and the entry
 *	names a record written in full ([R6])
 *
 * Lock-free and reentrant: any interrupt or NMI on this CPU may call it
 * while an outer call is at any instruction. The record belongs to the
 * task ramtrail_env_task() names; a task event comes first if the block
 * does not name it yet ([R5]).
 *
 * Return: true if recorded, false if refused (counted unless paused).
 */
static __always_inline bool ramtrail_ring_write(struct ramtrail_ring *r,
						unsigned int type, u32 head,
						const u32 *cont,
						unsigned int ncont,
						struct ramtrail_pair *pair)
{
	bool outer = READ_ONCE(r->floor) == RAMTRAIL_FLOOR_IDLE, ok = true;
	unsigned long pos, size, task = ramtrail_env_task();
	u32 ref = 0;
	u64 ts, blk;
	__le64 *w;
	bool ext;

	if (!outer)
		pair = NULL;	/* [R6] */
	if (unlikely(READ_ONCE(r->stopped))) {
		/* Refused before the clock read: a paused ring costs little. */
		ok = ramtrail_ring_write_slow(r, type, head, cont, ncont,
					      outer, task);
		goto out;
	}
	do {
		pos = local_read(&r->pos);
		if (outer) {
			WRITE_ONCE(r->floor, pos);
			barrier();	/* [R4]: floor before the cmpxchg */
		}
		blk = READ_ONCE(r->block);
		ts = ramtrail_clock() & RAMTRAIL_CLOCK_MASK;	/* [R1] */
		ext = ((ts - READ_ONCE(r->last_ts)) & RAMTRAIL_CLOCK_MASK) >=
		      RAMTRAIL_TS_SPAN;
		size = (1 + ncont + ext) * 8;
		if (pair) {
			ref = ramtrail_pair_ref(pair, head, cont[0], pos,
						r->ref_back);
			if (ref)
				size -= 8;
		}
		/* [R3]; offset 0 means the block still needs its header. */
		if (unlikely(READ_ONCE(r->stopped) ||
			     READ_ONCE(r->task) != task ||
			     (blk >> RAMTRAIL_CB_GEN_SHIFT) !=
			     ((pos >> RAMTRAIL_BLOCK_SHIFT) & RAMTRAIL_CB_GEN_MASK) ||
			     (pos & RAMTRAIL_BLOCK_MASK) == 0 ||
			     (pos & RAMTRAIL_BLOCK_MASK) + size > RAMTRAIL_BLOCK_SIZE)) {
			ok = ramtrail_ring_write_slow(r, type, head, cont,
						      ncont, outer, task);
			goto out;
		}
	} while (local_cmpxchg(&r->pos, pos, pos + size) != pos);

	w = ramtrail_cb_words(r, blk) + (pos & RAMTRAIL_BLOCK_MASK) / 8;
	if (ref) {
		ramtrail_ring_commit(r, w, ramtrail_cb_lap(blk), ts, ext,
				     RAMTRAIL_W_FUNC_REF,
				     ref | RAMTRAIL_W_CTX(type), NULL, 0);
	} else {
		ramtrail_ring_commit(r, w, ramtrail_cb_lap(blk), ts, ext,
				     type, head, cont, ncont);
		if (pair) {
			/* [R6]: after the record's words */
			barrier();
			pair->ip = head;
			pair->parent = cont[0];
			pair->pos = pos + ext * 8;
		}
	}
out:
	if (outer)
		ramtrail_ring_release(r);
	return ok;
}

/**
 * ramtrail_ring_func() - record a function entry
 * @r: the current CPU's ring
 * @ip: offset of the function from the region's text base
 * @parent: offset of the caller, or 0 to record the function alone (8 bytes)
 *
 * With the ring's pairs, a function and caller written in full shortly
 * before take 8 bytes too (a FUNC_REF).
 *
 * The record carries the context ramtrail_env_ctx() reports.
 *
 * Return: true if recorded.
 */
static __always_inline bool ramtrail_ring_func(struct ramtrail_ring *r,
					       u32 ip, u32 parent)
{
	unsigned int ctx = ramtrail_env_ctx();
	struct ramtrail_pair *pair = NULL;

	if (!parent)
		return ramtrail_ring_write(r, RAMTRAIL_W_FUNC + ctx, ip,
					   NULL, 0, NULL);
	if (r->pairs)
		pair = &r->pairs[RAMTRAIL_PAIR_HASH(ip, parent) >>
				 (32 - RAMTRAIL_PAIR_BITS)];
	return ramtrail_ring_write(r, RAMTRAIL_W_FUNC_PARENT + ctx, ip,
				   &parent, 1, pair);
}

/**
 * ramtrail_ring_event() - record an event
 * @r: the current CPU's ring
 * @id: enum ramtrail_event_id, or from RAMTRAIL_EV_USER on
 * @cont: the payload, padded with zeroes to whole words
 * @len: bytes of payload, at most RAMTRAIL_EVENT_MAX_LEN
 *
 * The record carries the flags ramtrail_env_flags() reports.
 *
 * Return: true if recorded.
 */
static __always_inline bool ramtrail_ring_event(struct ramtrail_ring *r,
						u16 id, const u32 *cont,
						unsigned int len)
{
	return ramtrail_ring_write(r, RAMTRAIL_W_EVENT,
				   RAMTRAIL_EVENT_HEAD_FLAGS(id, len,
							     ramtrail_env_flags()),
				   cont, DIV_ROUND_UP(len, 4), NULL);
}

/**
 * ramtrail_ring_event_bytes() - record an event from a byte buffer
 * @r: the current CPU's ring
 * @id: enum ramtrail_event_id, or from RAMTRAIL_EV_USER on
 * @data: the payload, @len bytes
 * @len: at most RAMTRAIL_EVENT_MAX_LEN
 *
 * ramtrail_ring_event() of @data copied into whole words, the bytes of
 * the last one past @len zero (they are stored too).
 *
 * Return: true if recorded.
 */
static __always_inline bool ramtrail_ring_event_bytes(struct ramtrail_ring *r,
						      u16 id, const void *data,
						      unsigned int len)
{
	u32 cont[RAMTRAIL_MAX_CONT];

	if (len)
		cont[(len - 1) / 4] = 0;
	__builtin_memcpy(cont, data, len);
	return ramtrail_ring_event(r, id, cont, len);
}

/* A task event for @task is stored: later records may rely on it ([R5]). */
static __always_inline void ramtrail_ring_task_named(struct ramtrail_ring *r,
						     unsigned long task)
{
	barrier();	/* [R5]: the task event before ring->task */
	WRITE_ONCE(r->task, task);
}

/* The CPU switched tasks: the next record names its task again ([R5]). */
static __always_inline void ramtrail_ring_task_switched(struct ramtrail_ring *r)
{
	WRITE_ONCE(r->task, 0);
}

void ramtrail_ring_init(struct ramtrail_ring *r, __le64 *zone, u32 nr_blocks,
			u32 flags);
void ramtrail_ring_seal_tail(struct ramtrail_ring *r, unsigned long end);
void ramtrail_ring_unseal(struct ramtrail_ring *r);

#endif /* _RAMTRAIL_RING_H */
