// SPDX-License-Identifier: GPL-2.0
/*
 * A zone's decode: the bytes of one CPU's zone, whatever they hold, into
 * the records that its writers provably completed, in time order.
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
#include "zone.h"
#include "seal.h"
#include "format_asserts.h"

#define RT_WORDS		(RAMTRAIL_BLOCK_SIZE / 8)
/* Block numbers stay far below this: a position is a 64-bit byte count. */
#define RT_MAX_BLOCK_NR		(1ULL << (64 - RAMTRAIL_BLOCK_SHIFT))

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

static u64 ramtrail_load(const __le64 *p)
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
static bool ramtrail_record_complete(const __le64 *w, u64 head, unsigned int n,
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
static bool ramtrail_header(const __le64 *b, u64 *g, u64 *ts)
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

static const __le64 *ramtrail_block(const struct ramtrail_zone_cursor *c,
				    u64 g, unsigned int *lap)
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
	const __le64 *b = c->zone + (u64)index * RT_WORDS;
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
static __always_inline u64 ramtrail_current4(const __le64 *w, u64 cur)
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
	const __le64 *b = ramtrail_block(c, g, &lap);
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
	const __le64 *b = ramtrail_block(c, g, &lap);

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
		const __le64 *b = ramtrail_block(c, g, &lap);
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
				  const __le64 *zone, u32 nr_blocks, u32 cpu)
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
void ramtrail_zone_open_raw(struct ramtrail_zone_cursor *c, const __le64 *zone,
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
			       const __le64 *zone, u32 nr_blocks, u32 cpu,
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
	const __le64 *zone = (const __le64 *)(reg->base +
					ramtrail_zone_offset(h, cpu));
	u64 end, last;

	if (!ramtrail_freeze_sealed(f, cpu)) {
		ramtrail_zone_open_raw(c, zone, le32_to_cpu(h->nr_blocks), cpu);
		return;
	}
	/*
	 * Sealed when recording stopped: the zone ends where it stopped, and
	 * every block of it is sealed, whatever its headers and seal words
	 * say now.
	 */
	end = le64_to_cpu(f->zone[cpu].freeze_pos);
	last = end ? (end - 1) >> RAMTRAIL_BLOCK_SHIFT : 0;
	ramtrail_zone_open_window(c, zone, le32_to_cpu(h->nr_blocks), cpu,
				  end ? 0 : 1, last);
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
	const __le64 *b = ramtrail_block(c, c->g, &c->lap);
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
static void ramtrail_fill(struct ramtrail_zone_cursor *c, const __le64 *w,
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
static bool ramtrail_task_event(struct ramtrail_zone_cursor *c, const __le64 *w,
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
	const __le64 *b[RAMTRAIL_REF_BACK_MAX + 1];
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
	for (;;) {
		const __le64 *b;
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
			/*
			 * Every complete record was written, so it is a time
			 * base for the next (a task event, a reference to a
			 * record gone included): the writer counts from the
			 * last it committed, within 2^26.
			 */
			if (c->have_base)
				c->ts += (ramtrail_tsbits(w) - c->ts) &
					 RAMTRAIL_TS_MASK;
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
