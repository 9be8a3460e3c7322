// SPDX-License-Identifier: GPL-2.0
/*
 * ramtrail_bench: write cost of ramtrail's record path against the kernel's
 * own ring buffer, with the method of kernel/trace/ring_buffer_benchmark.c:
 * producer kthreads pinned to CPUs write records as fast as they can for a
 * fixed time, with no reader. Each ramtrail record has a ring buffer
 * counterpart of the same payload size:
 *
 *   ramtrail         a function entry with its caller (ip and parent)
 *   ringbuf          16 bytes
 *   ramtrail_event   a sched_switch event (struct ramtrail_ev_switch)
 *   ringbuf_event    20 bytes
 *   ramtrail_switch  a task switch: ramtrail_ring_task_switched(), as the
 *                    sched_switch probe calls it, then the same event,
 *                    which now goes through the slow path and writes a
 *                    task event (pid, tgid, comm) before it
 *   ringbuf_switch   44 bytes: both payloads, task and sched_switch
 *   clock            no record: ramtrail's clock read alone
 *   ringbuf_clock    no record: the ring buffer's clock read alone
 *
 * The kernel ring buffer runs in overwrite mode, ramtrail in its default
 * flight-recorder mode, on a reserved range mapped like the module maps it
 * (mem_address/mem_size, mem_type) or on vmalloc'd memory.
 *
 * Loading runs every measurement (interleaved repetitions, one CPU, then
 * all online CPUs) and prints one line per run:
 *   ramtrail_bench: RESULT <kind> cpus=<n> rep=<r> ns=<ns/record> events=<n> [bytes=<b>]
 * (bytes: zone bytes per record, ramtrail only), then frees all it took;
 * unload it with rmmod. (It does not fail its load to leave: busybox's
 * insmod would load it again through init_module().)
 *
 * With floor_ops=1 it measures nothing: it hooks every traceable function
 * with an empty ftrace callback until unloaded, the floor that ramtrail's
 * function-tracing overhead is compared with; floor_ops=2 hooks them with
 * a callback that only reads the clock ramtrail stamps records with, the
 * part of ramtrail's cost that no record format can remove.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/ftrace.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "map.h"
#include "ring.h"

static unsigned long mem_address;
module_param(mem_address, ulong, 0400);
MODULE_PARM_DESC(mem_address, "reserved range for ramtrail's zones (default: vmalloc)");

static unsigned long mem_size = 16 << 20;
module_param(mem_size, ulong, 0400);
MODULE_PARM_DESC(mem_size, "bytes for ramtrail's zones, and the ring buffer's total size");

static unsigned int mem_type;
module_param(mem_type, uint, 0400);
MODULE_PARM_DESC(mem_type, "mapping of mem_address: 0 write-combined, 1 uncached, 2 cached");

static unsigned int ms = 1000;
module_param(ms, uint, 0400);
MODULE_PARM_DESC(ms, "length of one run in milliseconds");

static unsigned int floor_ops;
module_param(floor_ops, uint, 0400);
MODULE_PARM_DESC(floor_ops, "measure nothing: hook every traceable function until unloaded with an empty ftrace callback (1) or one that reads the clock (2)");

static unsigned int reps = 5;
module_param(reps, uint, 0400);
MODULE_PARM_DESC(reps, "repetitions of each measurement");

/* Pairs: ramtrail's record, then the ring buffer's of the same payload. */
enum bench_kind {
	BENCH_RAMTRAIL,
	BENCH_RINGBUF,
	BENCH_RAMTRAIL_EVENT,
	BENCH_RINGBUF_EVENT,
	BENCH_RAMTRAIL_SWITCH,
	BENCH_RINGBUF_SWITCH,
	BENCH_CLOCK,
	BENCH_RINGBUF_CLOCK,
	BENCH_NR_KINDS,
};

static const char * const bench_names[BENCH_NR_KINDS] = {
	"ramtrail", "ringbuf", "ramtrail_event", "ringbuf_event",
	"ramtrail_switch", "ringbuf_switch", "clock", "ringbuf_clock",
};

/* Payload bytes of each pair's ring buffer record. */
static const unsigned int bench_rb_len[BENCH_NR_KINDS / 2] = {
	16,
	sizeof(struct ramtrail_ev_switch),
	sizeof(struct ramtrail_ev_task) + sizeof(struct ramtrail_ev_switch),
	0,
};

struct bench_run {
	enum bench_kind kind;
	struct trace_buffer *rb;
	struct ramtrail_ring __percpu *rings;
	struct ramtrail_pair *pairs;
	struct completion done;
	atomic_t left;
	u64 events[NR_CPUS];
	u64 ns[NR_CPUS];
};

static struct bench_run *run;

/* Where a clock read goes: the clock kinds, floor_ops=2. */
static DEFINE_PER_CPU(u64, bench_clock_sink);

/* The ring buffer's record of @kind, with ramtrail's payload. */
static void bench_ringbuf_one(enum bench_kind kind,
			      const struct ramtrail_ev_switch *e, u64 i)
{
	struct ring_buffer_event *ev;
	struct ramtrail_ev_task *t;
	u64 *p;

	ev = ring_buffer_lock_reserve(run->rb, bench_rb_len[kind / 2]);
	if (!ev)
		return;
	p = ring_buffer_event_data(ev);
	switch (kind) {
	case BENCH_RINGBUF:
		p[0] = 0xffffffff81000000ULL + (i & 0xfff);
		p[1] = 0xffffffff81200000ULL + (i & 0x3ff);
		break;
	case BENCH_RINGBUF_SWITCH:
		/* What ramtrail_env_describe() copies. */
		t = (struct ramtrail_ev_task *)p;
		t->pid = cpu_to_le32(current->pid);
		t->tgid = cpu_to_le32(current->tgid);
		__builtin_memcpy(t->comm, current->comm, RAMTRAIL_COMM_LEN);
		__builtin_memcpy(t + 1, e, sizeof(*e));
		break;
	default:
		__builtin_memcpy(p, e, sizeof(*e));
	}
	ramtrail_rb_unlock_commit(run->rb, ev);
}

static void bench_one(enum bench_kind kind, u64 i)
{
	struct ramtrail_ev_switch e = {
		.prev_pid = cpu_to_le32(i), .prev_prio = cpu_to_le32(120),
		.prev_state = cpu_to_le32(1),
		.next_pid = cpu_to_le32(i + 1), .next_prio = cpu_to_le32(120),
	};
	struct ramtrail_ring *r;

	if (kind == BENCH_CLOCK) {
		this_cpu_write(bench_clock_sink, ramtrail_clock());
		return;
	}
	if (kind == BENCH_RINGBUF_CLOCK) {
		/* What each ring buffer record reads: rb_time_stamp(). */
		this_cpu_write(bench_clock_sink,
			       ring_buffer_time_stamp(run->rb));
		return;
	}
	if (kind & 1) {
		bench_ringbuf_one(kind, &e, i);
		return;
	}
	preempt_disable_notrace();
	r = this_cpu_ptr(run->rings);
	if (kind == BENCH_RAMTRAIL) {
		ramtrail_ring_func(r, 0x1000000 + (i & 0xfff),
				   0x1200000 + (i & 0x3ff));
	} else {
		/* As the sched_switch probe does: the next record names its task. */
		if (kind == BENCH_RAMTRAIL_SWITCH)
			ramtrail_ring_task_switched(r);
		ramtrail_ring_event(r, RAMTRAIL_EV_SCHED_SWITCH,
				    (const u32 *)&e, sizeof(e));
	}
	preempt_enable_notrace();
}

static int bench_thread(void *arg)
{
	int cpu = smp_processor_id();
	ktime_t start = ktime_get(), end = ktime_add_ms(start, ms);
	u64 n = 0;

	while (ktime_before(ktime_get(), end)) {
		int k;

		/* Check the time every 256 events, as the rb benchmark does. */
		for (k = 0; k < 256; k++, n++)
			bench_one(run->kind, n);
		cond_resched();
	}
	run->events[cpu] = n;
	run->ns[cpu] = ktime_to_ns(ktime_sub(ktime_get(), start));
	if (atomic_dec_and_test(&run->left))
		complete(&run->done);
	return 0;
}

/*
 * Run producers on @cpus at once; return the mean ns per record, x100, and
 * in @bytes the zone bytes written per record, x100.
 */
static u64 bench_once(enum bench_kind kind, const struct cpumask *cpus,
		      u64 *events, u64 *bytes)
{
	u64 cns = 0, written = 0;
	int cpu, n = cpumask_weight(cpus);

	for_each_cpu(cpu, cpus)
		written -= local_read(&per_cpu_ptr(run->rings, cpu)->pos);

	run->kind = kind;
	init_completion(&run->done);
	atomic_set(&run->left, n);
	for_each_cpu(cpu, cpus) {
		struct task_struct *t = kthread_create_on_node(bench_thread, NULL,
				cpu_to_node(cpu), "ramtrail_bench/%d", cpu);

		if (IS_ERR(t)) {
			if (atomic_dec_and_test(&run->left))
				complete(&run->done);
			continue;
		}
		kthread_bind(t, cpu);
		wake_up_process(t);
	}
	wait_for_completion(&run->done);
	*events = 0;
	for_each_cpu(cpu, cpus) {
		written += local_read(&per_cpu_ptr(run->rings, cpu)->pos);
		*events += run->events[cpu];
		if (run->events[cpu])
			cns += div64_u64(run->ns[cpu] * 100, run->events[cpu]);
	}
	*bytes = *events ? div64_u64(written * 100, *events) : 0;
	return n ? cns / n : 0;
}

static void *bench_zones(void)
{
	if (!mem_address)
		return vzalloc(mem_size);
	if (!request_mem_region(mem_address, mem_size, "ramtrail_bench")) {
		pr_err("%#lx+%#lx busy\n", mem_address, mem_size);
		return NULL;
	}
	return ramtrail_memremap(mem_address, mem_size, mem_type);
}

static void bench_zones_free(void *zones)
{
	if (!mem_address) {
		vfree(zones);
		return;
	}
	ramtrail_memunmap(zones, mem_type);
	release_mem_region(mem_address, mem_size);
}

/*
 * The floor of function tracing: ftrace's hook with nothing behind it, for
 * make bench's overhead table. Flags as ramtrail's own ops (no
 * FTRACE_OPS_FL_RECURSION: ftrace calls it directly), no filter (every
 * function, as functions=*).
 */
static notrace void bench_floor_func(unsigned long ip, unsigned long parent,
				     struct ftrace_ops *op,
				     struct ftrace_regs *fregs)
{
}

/* The floor and the clock read of every record (floor_ops=2). */
static notrace void bench_clock_func(unsigned long ip, unsigned long parent,
				     struct ftrace_ops *op,
				     struct ftrace_regs *fregs)
{
	this_cpu_write(bench_clock_sink, ramtrail_clock());
}

static struct ftrace_ops bench_floor = {
	.func = bench_floor_func,
};

static int __init bench_init(void)
{
	u32 blocks = mem_size / num_possible_cpus() >> RAMTRAIL_BLOCK_SHIFT;
	const struct cpumask *one = cpumask_of(cpumask_first(cpu_online_mask));
	unsigned int r, cpu;
	int err = -ENOMEM;
	void *zones;
	u64 ev, b;

	if (floor_ops == 2)
		bench_floor.func = bench_clock_func;
	if (floor_ops)
		return register_ftrace_function(&bench_floor);
	if (blocks < RAMTRAIL_MIN_BLOCKS)
		return -EINVAL;
	run = kvzalloc(sizeof(*run), GFP_KERNEL);
	zones = run ? bench_zones() : NULL;
	if (!zones) {
		kvfree(run);
		return -ENOMEM;
	}
	run->rings = alloc_percpu(struct ramtrail_ring);
	run->pairs = kvcalloc(nr_cpu_ids, RAMTRAIL_PAIRS * sizeof(*run->pairs),
			      GFP_KERNEL);
	run->rb = ring_buffer_alloc(mem_size / num_possible_cpus(),
				    RB_FL_OVERWRITE);
	if (!run->rings || !run->pairs || !run->rb)
		goto out;
	err = 0;
	for_each_possible_cpu(cpu) {
		struct ramtrail_ring *ring = per_cpu_ptr(run->rings, cpu);

		ramtrail_ring_init(ring, (__le64 *)zones + ((u64)cpu * blocks <<
							 (RAMTRAIL_BLOCK_SHIFT - 3)),
				   blocks, mem_address && mem_type == RAMTRAIL_MEM_WC ?
				   RAMTRAIL_RING_WC : 0);
		ring->pairs = run->pairs + (size_t)cpu * RAMTRAIL_PAIRS;
	}
	pr_info("%u ms runs, %u reps, %lu bytes, mem_type %u%s, %u online CPUs\n",
		ms, reps, mem_size, mem_type, mem_address ? "" : " (vmalloc)",
		num_online_cpus());
	for (r = 0; r < reps; r++) {
		int k, all;

		for (all = 0; all < 2; all++) {
			for (k = 0; k < BENCH_NR_KINDS; k++) {
				/* Alternate which of a pair goes first. */
				enum bench_kind kind = (k & ~1) | ((k + r) & 1);
				const struct cpumask *m = all ? cpu_online_mask : one;
				u64 cns = bench_once(kind, m, &ev, &b);

				if (kind & 1) {
					pr_info("RESULT %s cpus=%u rep=%u ns=%llu.%02llu events=%llu\n",
						bench_names[kind],
						cpumask_weight(m), r,
						cns / 100, cns % 100, ev);
					continue;
				}
				pr_info("RESULT %s cpus=%u rep=%u ns=%llu.%02llu events=%llu bytes=%llu.%02llu\n",
					bench_names[kind], cpumask_weight(m),
					r, cns / 100, cns % 100, ev, b / 100,
					b % 100);
			}
		}
	}
out:
	if (run->rb)
		ring_buffer_free(run->rb);
	free_percpu(run->rings);
	kvfree(run->pairs);
	bench_zones_free(zones);
	kvfree(run);
	return err;	/* done: nothing left but the module's code */
}

static void __exit bench_exit(void)
{
	if (floor_ops)
		unregister_ftrace_function(&bench_floor);
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ramtrail record path against the kernel ring buffer");
