// SPDX-License-Identifier: GPL-2.0
/*
 * ramtrail_bench: write cost of ramtrail's record path against the kernel's
 * own ring buffer, with the method of kernel/trace/ring_buffer_benchmark.c:
 * producer kthreads pinned to CPUs write events as fast as they can for a
 * fixed time, with no reader. The payload is the same 16 bytes for both
 * (a function entry: ip and parent). The kernel ring buffer runs in
 * overwrite mode, ramtrail in its default flight-recorder mode, on a
 * reserved range mapped like the module maps it (mem_address/mem_size,
 * mem_type) or on vmalloc'd memory.
 *
 * Loading runs every measurement (interleaved repetitions, one CPU, then
 * all online CPUs) and prints one line per run:
 *   ramtrail_bench: RESULT <ramtrail|ringbuf> cpus=<n> rep=<r> ns=<ns/event> events=<n>
 * and then refuses to stay loaded (-EAGAIN), so nothing is left behind.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/module.h>
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

static unsigned int reps = 5;
module_param(reps, uint, 0400);
MODULE_PARM_DESC(reps, "repetitions of each measurement");

enum bench_kind { BENCH_RAMTRAIL, BENCH_RINGBUF };

struct bench_run {
	enum bench_kind kind;
	struct trace_buffer *rb;
	struct ramtrail_ring *rings;
	struct completion done;
	atomic_t left;
	u64 events[NR_CPUS];
	u64 ns[NR_CPUS];
};

static struct bench_run *run;

static void bench_ringbuf_one(struct trace_buffer *rb, u64 i)
{
	struct ring_buffer_event *ev = ring_buffer_lock_reserve(rb, 16);
	u64 *p;

	if (!ev)
		return;
	p = ring_buffer_event_data(ev);
	p[0] = 0xffffffff81000000ULL + (i & 0xfff);
	p[1] = 0xffffffff81200000ULL + (i & 0x3ff);
	ramtrail_rb_unlock_commit(rb, ev);
}

static int bench_thread(void *arg)
{
	int cpu = smp_processor_id();
	ktime_t start = ktime_get(), end = ktime_add_ms(start, ms);
	u64 n = 0;

	while (ktime_before(ktime_get(), end)) {
		int k;

		/* Check the time every 256 events, as the rb benchmark does. */
		for (k = 0; k < 256; k++, n++) {
			if (run->kind == BENCH_RINGBUF) {
				bench_ringbuf_one(run->rb, n);
				continue;
			}
			preempt_disable_notrace();
			ramtrail_ring_func(this_cpu_ptr(run->rings),
					   0x1000000 + (n & 0xfff),
					   0x1200000 + (n & 0x3ff));
			preempt_enable_notrace();
		}
		cond_resched();
	}
	run->events[cpu] = n;
	run->ns[cpu] = ktime_to_ns(ktime_sub(ktime_get(), start));
	if (atomic_dec_and_test(&run->left))
		complete(&run->done);
	return 0;
}

/* Run producers on @cpus at once; return the mean ns per event, x100. */
static u64 bench_once(enum bench_kind kind, const struct cpumask *cpus,
		      u64 *events)
{
	u64 cns = 0;
	int cpu, n = cpumask_weight(cpus);

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
		*events += run->events[cpu];
		if (run->events[cpu])
			cns += div64_u64(run->ns[cpu] * 100, run->events[cpu]);
	}
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

static int __init bench_init(void)
{
	u32 blocks = mem_size / num_possible_cpus() >> RAMTRAIL_BLOCK_SHIFT;
	const struct cpumask *one = cpumask_of(cpumask_first(cpu_online_mask));
	unsigned int r, cpu;
	void *zones;
	u64 ev;

	if (blocks < RAMTRAIL_MIN_BLOCKS)
		return -EINVAL;
	run = kvzalloc(sizeof(*run), GFP_KERNEL);
	zones = run ? bench_zones() : NULL;
	if (!zones) {
		kvfree(run);
		return -ENOMEM;
	}
	run->rings = alloc_percpu(struct ramtrail_ring);
	run->rb = ring_buffer_alloc(mem_size / num_possible_cpus(),
				    RB_FL_OVERWRITE);
	if (!run->rings || !run->rb)
		goto out;
	for_each_possible_cpu(cpu)
		ramtrail_ring_init(per_cpu_ptr(run->rings, cpu),
				   (u64 *)zones + ((u64)cpu * blocks <<
						   (RAMTRAIL_BLOCK_SHIFT - 3)),
				   blocks, 0);
	pr_info("%u ms runs, %u reps, %lu bytes, mem_type %u%s, %u online CPUs\n",
		ms, reps, mem_size, mem_type, mem_address ? "" : " (vmalloc)",
		num_online_cpus());
	for (r = 0; r < reps; r++) {
		static const char * const names[] = { "ramtrail", "ringbuf" };
		int k, all;

		for (all = 0; all < 2; all++) {
			for (k = 0; k < 2; k++) {
				/* Alternate which goes first, rep by rep. */
				enum bench_kind kind = (k + r) % 2;
				const struct cpumask *m = all ? cpu_online_mask : one;
				u64 cns = bench_once(kind, m, &ev);

				pr_info("RESULT %s cpus=%u rep=%u ns=%llu.%02llu events=%llu\n",
					names[kind], cpumask_weight(m), r,
					cns / 100, cns % 100, ev);
			}
		}
	}
out:
	if (run->rb)
		ring_buffer_free(run->rb);
	free_percpu(run->rings);
	bench_zones_free(zones);
	kvfree(run);
	return -EAGAIN;	/* done: nothing to keep loaded */
}

module_init(bench_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ramtrail record path against the kernel ring buffer");
