// SPDX-License-Identifier: GPL-2.0
/*
 * Crash consistency of the record path, tested with the real writer.
 *
 * One thread per simulated CPU writes records into its own zone as fast as
 * it can. Signals play the interrupts: SIGUSR1 is a hardirq that writes a
 * few records of its own, SIGUSR2 an NMI that may interrupt it, both sent at
 * random instants by an interrupter thread. So every nesting of contexts at
 * any instruction of the record path occurs, as in the kernel.
 *
 * A crash is a freeze signal delivered to every writer: each stops wherever
 * it is, possibly in the middle of a record or of a nested one, and parks.
 * With every CPU parked, the region is copied ("the crash image") and
 * decoded, and checked against what the writers logged:
 *
 *  - every record the decoder returns is, byte for byte and with its
 *    timestamp, one a writer reserved at that position (never torn, stale
 *    or invented);
 *  - every record whose write completed is returned, unless a later lap
 *    entered its block;
 *  - each CPU's records come in reservation order, with rising timestamps;
 *  - the merged stream is ordered by timestamp.
 *
 * Then the writers resume, and the next crash comes at another instant.
 *
 * Function records with a caller come from a small set half the time, so
 * the writers refer to earlier ones (FUNC_REF) as often as a real trace
 * does: a reference that names anything but its own function and caller
 * is a record no writer completed.
 *
 * Now and then an "interrupt" fires right after a reservation, before the
 * record's words are stored, and tries to write 1 to 4 whole zone laps
 * (a hardirq whose exit runs softirqs, with every function traced and a
 * small zone). The writer must refuse what would overwrite the block of
 * the reservation still in flight, and count it.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "testlib.h"

#define NCPU		4
#define BLOCKS		8		/* small zones: many laps */
#define LOG_SIZE	65536		/* per CPU, a ring */
#define MAX_DEPTH	8
/* Log entries to look back: a lap burst sits between a record and its slot. */
#define SCAN		((MAX_LAPS + 2) * BLOCKS * RAMTRAIL_BLOCK_WORDS)
#define TABLE		((BLOCKS + 2) * RAMTRAIL_BLOCK_WORDS)
#define SIG_IRQ		SIGUSR1
#define SIG_NMI		SIGUSR2
#define SIG_FREEZE	SIGRTMIN
#define BURST_ODDS	2048		/* reservations per lap burst, about */
#define MAX_LAPS	4

enum { INTENT = 1, COMMITTED = 2 };

/* What a writer meant to put at a position. */
struct entry {
	u64 pos;
	u64 ts;
	u64 def;	/* a FUNC_REF: position of the record it names; else 0 */
	u32 head;
	u32 cont[4];
	u32 task;	/* ramtrail_user_env.task of the writer */
	u8 type;
	u8 ctx;
	u8 ncont;
	u8 state;	/* written and read with __atomic builtins */
};

struct cpu {
	pthread_t thread;
	struct ramtrail_ring *ring;
	struct entry *log;
	u64 next;	/* log entries used; __atomic builtins */
};

static struct test_region *region;
static struct cpu cpus[NCPU];
static _Atomic int stop, parked, released;
static _Atomic u64 freeze_gen;

static __thread struct cpu *self;
static __thread _Atomic u64 clock_now;
static __thread u64 rnd = 88172645463325252ULL;
static __thread int depth;
static __thread u64 slot[MAX_DEPTH];
static __thread bool bursting;
static __thread u64 refused;		/* writes that returned false */
/* What write_one() at each depth is writing, and its last clock read. */
static __thread struct entry intent[MAX_DEPTH];
static __thread u64 clock_last[MAX_DEPTH];
/*
 * ring->last_ts at that read: the value the writer compares with, if its
 * reservation succeeds (an interrupt in between would reserve too).
 */
static __thread u64 last_ts_seen[MAX_DEPTH];
static _Atomic u64 n_bursts[MAX_LAPS + 1][2], bad_burst_laps;
static u64 refused_total;

static void write_one(void);

/*
 * An interrupt inside the reservation at @pos that writes @laps zone laps,
 * or as much of them as the writer accepts.
 */
static void lap_burst(struct ramtrail_ring *r, u64 pos, unsigned int laps)
{
	u64 zone = (u64)BLOCKS * RAMTRAIL_BLOCK_SIZE, tries, was;
	bool slow = (pos & RAMTRAIL_BLOCK_MASK) ==
		    (RAMTRAIL_BLOCK_WORDS_HDR + RAMTRAIL_TASK_WORDS) * 8;
	unsigned int refusals = 0;

	bursting = true;
	for (tries = laps * zone / 8 + 64; tries-- && refusals < 64 &&
	     (u64)local_read(&r->pos) - pos < laps * zone;) {
		was = refused;
		write_one();
		refusals = refused != was ? refusals + 1 : 0;
	}
	/* The block of @pos must not have been entered by a later lap. */
	if ((u64)local_read(&r->pos) >
	    ((pos >> RAMTRAIL_BLOCK_SHIFT) + BLOCKS) << RAMTRAIL_BLOCK_SHIFT)
		atomic_fetch_add(&bad_burst_laps, 1);
	atomic_fetch_add(&n_bursts[laps][slow], 1);
	bursting = false;
}

static u64 xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Per simulated CPU, monotonic even when a signal handler interrupts the
 * read: one atomic add. Steps are mostly small, now and then past 2^26 ticks
 * so that extended timestamps are exercised too, or just short of it, so
 * that a record the reader does not return (a lost FUNC_REF) is the last
 * the writer counted from.
 */
u64 ramtrail_clock(void)
{
	u64 r = xorshift(&rnd), step = 1 + (r & 63), now;

	if ((r >> 8) % 4096 == 0)
		step += RAMTRAIL_TS_SPAN + ((r >> 20) & 0xffffff);
	else if ((r >> 8) % 4096 == 1)
		step += RAMTRAIL_TS_SPAN - 64 - ((r >> 20) & 0xff);
	now = atomic_fetch_add_explicit(&clock_now, step,
					memory_order_relaxed) + step;

	clock_last[depth] = now;
	if (self)
		last_ts_seen[depth] = READ_ONCE(self->ring->last_ts);
	return now;
}

/* Right after a writer reserved: log the intent. */
static void test_reserved(struct ramtrail_ring *r, unsigned long pos,
			  unsigned long long ts, unsigned int type,
			  unsigned int head, const unsigned int *cont,
			  unsigned int ncont, u64 def)
{
	u64 i = __atomic_fetch_add(&self->next, 1, __ATOMIC_SEQ_CST);
	struct entry *e = &self->log[i % LOG_SIZE];
	unsigned int k;

	__atomic_store_n(&e->state, 0, __ATOMIC_SEQ_CST);
	e->pos = pos;
	e->ts = ts;
	e->def = def;
	e->type = type;
	e->head = head;
	e->ncont = ncont;
	e->task = ramtrail_user_env.task;
	e->ctx = ramtrail_user_env.ctx;
	for (k = 0; k < ncont; k++)
		e->cont[k] = cont[k];
	__atomic_store_n(&e->state, INTENT, __ATOMIC_SEQ_CST);
	slot[depth] = i;
	if (!bursting && depth < MAX_DEPTH - 1 &&
	    xorshift(&rnd) % BURST_ODDS == 0)
		lap_burst(r, pos, 1 + (xorshift(&rnd) >> 32) % MAX_LAPS);
}

/*
 * Called by local_cmpxchg() after each reservation (tools/Makefile's HOOKS):
 * the record's words end at @new; the writer at this depth read the clock
 * last just before its cmpxchg. A function and caller that take one word
 * (and a TSEXT if the writer needed one) are a FUNC_REF to the record the
 * ring's pairs name: an interrupt between the cmpxchg and this hook
 * writes records of its own, but does not change an entry ([R6]).
 */
void test_reservation(local_t *l, long old, long new)
{
	struct ramtrail_ring *r = (void *)((char *)l -
					   offsetof(struct ramtrail_ring, pos));
	const struct entry *in = &intent[depth];
	u64 ts = clock_last[depth] & RAMTRAIL_CLOCK_MASK, def = 0;
	unsigned int ext = ((ts - last_ts_seen[depth]) & RAMTRAIL_CLOCK_MASK) >=
			   RAMTRAIL_TS_SPAN, words = 1 + in->ncont;

	if (RAMTRAIL_W_HAS_PARENT(in->type) && new - old == (1 + ext) * 8) {
		def = r->pairs[RAMTRAIL_PAIR_HASH(in->head, in->cont[0]) >>
			       (32 - RAMTRAIL_PAIR_BITS)].pos;
		words = 1;
	}
	test_reserved(r, new - words * 8, ts, in->type, in->head, in->cont,
		      in->ncont, def);
}

static void write_one(void)
{
	struct entry *in;
	u64 r = xorshift(&rnd);
	u32 cont[4], id = (u32)(r >> 32);
	unsigned int len, k;
	bool ok;

	depth++;
	in = &intent[depth];
	switch (r % 3) {
	case 0:
		in->type = RAMTRAIL_W_FUNC + ramtrail_user_env.ctx;
		in->head = id | 1;
		in->ncont = 0;
		ok = ramtrail_ring_func(self->ring, id | 1, 0);
		break;
	case 1:
		if (r & 0x100)	/* one of a few: a FUNC_REF, mostly */
			id = 0x10000 + (u32)(r >> 40) % 24;
		in->type = RAMTRAIL_W_FUNC_PARENT + ramtrail_user_env.ctx;
		in->head = id;
		in->cont[0] = id ^ 0x5a5a5a5a;
		in->ncont = 1;
		ok = ramtrail_ring_func(self->ring, id, id ^ 0x5a5a5a5a);
		break;
	default:
		len = 1 + (r >> 8) % 16;
		for (k = 0; k < DIV_ROUND_UP(len, 4); k++)
			cont[k] = (u32)xorshift(&rnd);
		if (len % 4)	/* bytes past len are not stored */
			cont[k - 1] &= (1U << (8 * (len % 4))) - 1;
		id = RAMTRAIL_EV_USER + (id & 0xff);
		in->type = RAMTRAIL_W_EVENT;
		in->head = RAMTRAIL_EVENT_HEAD_FLAGS(id, len,
						     ramtrail_env_flags());
		in->ncont = DIV_ROUND_UP(len, 4);
		memcpy(in->cont, cont, sizeof(cont));
		ok = ramtrail_ring_event(self->ring, id, cont, len);
	}
	if (ok)
		__atomic_store_n(&self->log[slot[depth] % LOG_SIZE].state,
				 COMMITTED, __ATOMIC_SEQ_CST);
	else
		refused++;
	depth--;
}

/* An interrupt runs in the interrupted task, in its own context. */
static void on_irq(int sig)
{
	unsigned int was = ramtrail_user_env.ctx;
	int n = 1 + xorshift(&rnd) % 3;

	ramtrail_user_env.ctx = xorshift(&rnd) % 2 ? RAMTRAIL_CTX_HARDIRQ :
						     RAMTRAIL_CTX_SOFTIRQ;
	while (self && n--)
		write_one();
	ramtrail_user_env.ctx = was;
}

static void on_nmi(int sig)
{
	unsigned int was = ramtrail_user_env.ctx;

	ramtrail_user_env.ctx = RAMTRAIL_CTX_NMI;
	if (self)
		write_one();
	ramtrail_user_env.ctx = was;
}

/*
 * A task switch, as the sched_switch probe sees it: the ring forgets the
 * task it named, then another task runs. Task numbers are reused (as
 * task_structs are), and an interrupt may come between the two steps.
 */
static void switch_task(void)
{
	ramtrail_ring_task_switched(self->ring);
	ramtrail_user_env.task = 1 + xorshift(&rnd) % 5;
}

static void on_freeze(int sig)
{
	u64 gen = atomic_load(&freeze_gen);

	atomic_fetch_add(&parked, 1);
	while (atomic_load(&released) != gen)
		sched_yield();
	atomic_fetch_sub(&parked, 1);
}

static void *writer(void *arg)
{
	self = arg;
	rnd ^= (uintptr_t)arg;
	atomic_store(&clock_now, 1000000 + (xorshift(&rnd) & 0xffffffff));
	while (!atomic_load(&stop)) {
		if (xorshift(&rnd) % 64 == 0)
			switch_task();
		write_one();
	}
	__atomic_fetch_add(&refused_total, refused, __ATOMIC_SEQ_CST);
	return NULL;
}

static void *interrupter(void *arg)
{
	u64 s = 12345;

	while (!atomic_load(&stop)) {
		u64 r = xorshift(&s);
		struct timespec d = { 0, (r >> 20) % 20000 };

		pthread_kill(cpus[r % NCPU].thread,
			     (r >> 8) % 4 ? SIG_IRQ : SIG_NMI);
		nanosleep(&d, NULL);
	}
	return NULL;
}

static void handle(int sig, void (*fn)(int), int block1, int block2)
{
	struct sigaction sa = { .sa_handler = fn };

	sigemptyset(&sa.sa_mask);
	if (block1)
		sigaddset(&sa.sa_mask, block1);
	if (block2)
		sigaddset(&sa.sa_mask, block2);
	sigaction(sig, &sa, NULL);
}

/* Results over all crashes, one per property. */
static u64 n_snap, n_records, n_expected, n_inflight_snaps, n_big_gaps;
static u64 bad_invented, bad_missing, bad_cpu_order, bad_merge_order;
static u64 n_torn, n_lost, n_headerless, max_laps, n_refs, n_lost_refs;
static u64 n_sealed, n_dropped_blocks;
static u64 bad_task, bad_ctx, n_no_task, n_switches_seen;

static bool same_record(const struct ramtrail_record *r, const struct entry *e)
{
	unsigned int k, type = e->type;

	if (RAMTRAIL_W_IS_FUNC(type))
		type = RAMTRAIL_W_HAS_PARENT(type) ? RAMTRAIL_W_FUNC_PARENT :
						     RAMTRAIL_W_FUNC;
	if (r->type != type || (r->ts & RAMTRAIL_CLOCK_MASK) != e->ts)
		return false;
	switch (type) {
	case RAMTRAIL_W_FUNC:
		return r->ip == e->head && !r->parent;
	case RAMTRAIL_W_FUNC_PARENT:
		return r->ip == e->head && r->parent == e->cont[0];
	default:
		if (r->id != RAMTRAIL_EVENT_ID(e->head) ||
		    r->len != RAMTRAIL_EVENT_LEN(e->head) ||
		    r->flags != RAMTRAIL_EVENT_FLAGS(e->head))
			return false;
		for (k = 0; k < r->len; k++)
			if (r->data[k] != (u8)(e->cont[k / 4] >> (8 * (k % 4))))
				return false;
		return true;
	}
}

static void report(u64 *counter, const char *what, u32 cpu, u64 pos)
{
	if ((*counter)++ < 5)
		printf("    crash %llu: cpu %u pos %llu: %s\n",
		       (unsigned long long)n_snap, cpu,
		       (unsigned long long)pos, what);
}

static void check_crash(u8 *image)
{
	static struct entry *table[NCPU][TABLE];
	static bool seen[NCPU][TABLE];
	struct ramtrail_zone_cursor cur[NCPU];
	const struct ramtrail_record *r;
	struct ramtrail_region reg;
	struct ramtrail_merge m;
	u64 head[NCPU], last_pos[NCPU], last_ts[NCPU], prev_ts = 0;
	struct ramtrail_merge_slot heap[NCPU];
	u32 cpu;
	bool inflight = false;

	memset(table, 0, sizeof(table));
	memset(seen, 0, sizeof(seen));
	for (cpu = 0; cpu < NCPU; cpu++) {
		struct cpu *c = &cpus[cpu];
		u64 n = __atomic_load_n(&c->next, __ATOMIC_SEQ_CST), i;
		u64 lo;

		head[cpu] = local_read(&c->ring->pos);
		lo = head[cpu] > (BLOCKS + 1) * RAMTRAIL_BLOCK_SIZE ?
		     head[cpu] - (BLOCKS + 1) * RAMTRAIL_BLOCK_SIZE : 0;
		if (head[cpu] / (BLOCKS * RAMTRAIL_BLOCK_SIZE) > max_laps)
			max_laps = head[cpu] / (BLOCKS * RAMTRAIL_BLOCK_SIZE);
		for (i = n; i-- > (n > SCAN ? n - SCAN : 0);) {
			struct entry *e = &c->log[i % LOG_SIZE];
			u8 state = __atomic_load_n(&e->state, __ATOMIC_SEQ_CST);

			if (!state || e->pos < lo || e->pos >= head[cpu])
				continue;
			inflight |= state == INTENT;
			table[cpu][e->pos / 8 % TABLE] = e;
		}
		last_pos[cpu] = 0;
		last_ts[cpu] = 0;
	}
	n_inflight_snaps += inflight;

	if (ramtrail_region_open(&reg, image, region->size)) {
		report(&bad_invented, "region header rejected", 0, 0);
		return;
	}
	ramtrail_merge_init(&m, &reg, cur, heap);
	while ((r = ramtrail_merge_next(&m))) {
		u64 i = r->pos / 8 % TABLE;
		struct entry *e = table[r->cpu][i];

		n_records++;
		if (!e || e->pos != r->pos || !same_record(r, e)) {
			report(&bad_invented, "record no writer completed",
			       r->cpu, r->pos);
		} else {
			seen[r->cpu][i] = true;
			if (r->task_known && r->task.pid != e->task)
				report(&bad_task, "record of a wrong task",
				       r->cpu, r->pos);
			if (r->ctx != e->ctx)
				report(&bad_ctx, "record of a wrong context",
				       r->cpu, r->pos);
			n_no_task += !r->task_known;
			n_switches_seen += e->task != 1;
		}
		if (last_pos[r->cpu] && (r->pos <= last_pos[r->cpu] ||
					 r->ts < last_ts[r->cpu]))
			report(&bad_cpu_order, "CPU order broken", r->cpu,
			       r->pos);
		if (last_pos[r->cpu] &&
		    r->ts - last_ts[r->cpu] >= RAMTRAIL_TS_SPAN)
			n_big_gaps++;
		if (r->ts < prev_ts)
			report(&bad_merge_order, "merged stream out of order",
			       r->cpu, r->pos);
		prev_ts = r->ts;
		last_pos[r->cpu] = r->pos;
		last_ts[r->cpu] = r->ts;
	}
	for (cpu = 0; cpu < NCPU; cpu++) {
		u32 i;

		n_torn += cur[cpu].stats.torn;
		n_lost_refs += cur[cpu].stats.lost_refs;
		n_lost += cur[cpu].stats.lost_words;
		n_headerless += cur[cpu].stats.headerless_blocks;
		n_sealed += cur[cpu].stats.sealed_blocks;
		n_dropped_blocks += cur[cpu].stats.corrupt_blocks;
		for (i = 0; i < TABLE; i++) {
			struct entry *e = table[cpu][i];
			u64 g;

			if (!e || __atomic_load_n(&e->state,
						  __ATOMIC_SEQ_CST) != COMMITTED)
				continue;
			g = (e->def ?: e->pos) >> RAMTRAIL_BLOCK_SHIFT;
			if (head[cpu] > (g + BLOCKS) << RAMTRAIL_BLOCK_SHIFT)
				continue;	/* a later lap entered its block */
			n_refs += !!e->def;
			n_expected++;
			if (!seen[cpu][i])
				report(&bad_missing, "completed record missing",
				       cpu, e->pos);
		}
	}
}

static void crash_once(u8 *image)
{
	u64 gen = atomic_fetch_add(&freeze_gen, 1) + 1;
	int cpu;

	for (cpu = 0; cpu < NCPU; cpu++)
		pthread_kill(cpus[cpu].thread, SIG_FREEZE);
	while (atomic_load(&parked) < NCPU)
		sched_yield();
	memcpy(image, region->mem, region->size);
	check_crash(image);
	n_snap++;
	atomic_store(&released, gen);
	while (atomic_load(&parked))
		sched_yield();
}

static void verdict(const char *name, bool ok, const char *fmt, u64 v)
{
	char detail[64];

	snprintf(detail, sizeof(detail), fmt, (unsigned long long)v);
	check_result(ok, name, detail);
}

int main(int argc, char **argv)
{
	u64 snaps = argc > 1 ? strtoull(argv[1], NULL, 0) : 4000, s = 99;
	u64 dropped = 0;
	unsigned int laps;
	pthread_t irq;
	u8 *image;
	int cpu;

	printf("ramtrail crash-consistency test: %d writer threads with nested\n"
	       "signal 'interrupts', %llu crashes at random instants\n", NCPU,
	       (unsigned long long)snaps);
	handle(SIG_IRQ, on_irq, 0, 0);
	handle(SIG_NMI, on_nmi, SIG_IRQ, 0);
	handle(SIG_FREEZE, on_freeze, SIG_IRQ, SIG_NMI);
	region = test_region_new(NCPU, BLOCKS, 0);
	image = aligned_alloc(RAMTRAIL_BLOCK_SIZE, region->size);
	for (cpu = 0; cpu < NCPU; cpu++) {
		cpus[cpu].ring = &region->ring[cpu];
		cpus[cpu].log = calloc(LOG_SIZE, sizeof(struct entry));
		pthread_create(&cpus[cpu].thread, NULL, writer, &cpus[cpu]);
	}
	pthread_create(&irq, NULL, interrupter, NULL);
	while (n_snap < snaps) {
		struct timespec d = { 0, xorshift(&s) % 1000000 };

		nanosleep(&d, NULL);
		crash_once(image);
	}
	atomic_store(&stop, 1);
	pthread_join(irq, NULL);
	for (cpu = 0; cpu < NCPU; cpu++)
		pthread_join(cpus[cpu].thread, NULL);

	printf("  checked %llu crashes, %llu decoded records, %llu that had to be there\n",
	       (unsigned long long)n_snap,
	       (unsigned long long)n_records, (unsigned long long)n_expected);
	printf("  decoder dropped %llu torn, %llu lost words; %llu headerless blocks\n",
	       (unsigned long long)n_torn,
	       (unsigned long long)n_lost, (unsigned long long)n_headerless);
	printf("  %llu sealed blocks checked\n", (unsigned long long)n_sealed);
	verdict("blocks sealed as writers left them (many), none dropped",
		n_sealed > n_snap && !n_dropped_blocks,
		"%llu dropped", n_dropped_blocks);
	verdict("returned records are ones writers reserved", !bad_invented,
		"%llu bad", bad_invented);
	verdict("completed records are all returned", !bad_missing,
		"%llu missing", bad_missing);
	verdict("no record given a wrong task (tasks switch, ids reused)",
		!bad_task && n_switches_seen, "%llu wrong", bad_task);
	verdict("records whose task is unknown are rare (lost task events)",
		n_no_task * 1000 < n_records, "%llu unknown", n_no_task);
	verdict("every record keeps its context (task/softirq/hardirq/NMI)",
		!bad_ctx, "%llu wrong", bad_ctx);
	verdict("per-CPU order and timestamps kept", !bad_cpu_order,
		"%llu bad", bad_cpu_order);
	verdict("merged stream ordered by timestamp", !bad_merge_order,
		"%llu bad", bad_merge_order);
	verdict("references (FUNC_REF) made up many of the records that had to be there",
		n_refs * 20 > n_expected, "%llu", n_refs);
	verdict("the oldest blocks' references to overwritten records were counted",
		n_lost_refs > 0, "%llu", n_lost_refs);
	verdict("crashes hit records in flight", n_inflight_snaps > snaps / 10,
		"%llu crashes", n_inflight_snaps);
	verdict("zones wrapped many laps", max_laps >= 10, "%llu laps",
		max_laps);
	verdict("extended timestamps crossed and checked", n_big_gaps > 0,
		"%llu gaps >= 2^26", n_big_gaps);
	for (laps = 1; laps <= MAX_LAPS; laps++) {
		char name[64];

		snprintf(name, sizeof(name),
			 "%u-lap bursts inside fast/slow reservations", laps);
		verdict(name, n_bursts[laps][0] && n_bursts[laps][1],
			"%llu", n_bursts[laps][0] + n_bursts[laps][1]);
	}
	verdict("no burst entered the block of an open reservation",
		!bad_burst_laps, "%llu did", bad_burst_laps);
	for (cpu = 0; cpu < NCPU; cpu++)
		dropped += local_read(&cpus[cpu].ring->dropped);
	verdict("every refused record counted as dropped",
		dropped == refused_total, "%llu dropped", dropped);
	return check_summary();
}
