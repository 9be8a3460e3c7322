// SPDX-License-Identifier: GPL-2.0
/*
 * Trace-on-oops: the newest records of the zones, printed to the console.
 *
 * For machines whose RAM does not survive the reset, the dying kernel
 * prints each CPU's newest records itself, merged by time, as ftrace's
 * ftrace_dump_on_oops does: from the oops and panic notifiers after the
 * freeze (record.c), on sysrq-y, and on a write to debugfs "dump". The
 * zones are read with the shared decoder and the lines written by the
 * shared formatter (text.c): a record prints as it does in
 * console-ramtrail-N after the reboot.
 *
 * Safe in a dying kernel: the buffers are allocated at load, one set for
 * the crash (used once) and one for requests; no lock is taken, nothing
 * is allocated, and the work is bounded by dump_lines per CPU whatever the
 * size of the zones: the newest block of a zone is its writer's position,
 * and only a window of blocks before it is decoded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/nmi.h>
#include <linux/printk.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sysrq.h>
#include "internal.h"
#include "text.h"

#define RAMTRAIL_DUMP_COMMS	1024
#define RAMTRAIL_DUMP_KEY	'y'

/**
 * struct ramtrail_dump - what one dump uses, allocated at load
 * @busy: a dump uses this set (the crash's set stays busy once used)
 * @win: one per zone
 * @cursor: one per zone
 * @heap: one slot per zone
 * @tx: the formatter's state
 * @comms: memory of @tx's pid -> comm table
 * @line: the line being printed
 */
struct ramtrail_dump {
	atomic_t busy;
	struct ramtrail_tail *win;
	struct ramtrail_zone_cursor *cursor;
	struct ramtrail_merge_slot *heap;
	struct ramtrail_text tx;
	struct ramtrail_comm comms[RAMTRAIL_DUMP_COMMS];
	char line[RAMTRAIL_TEXT_LINE_MAX];
};

/*
 * "%ps" of this boot's @addr, but where no symbol names it the address
 * hashed, as "%p" prints it: a dump goes to the log.
 */
static notrace size_t ramtrail_dump_sym(char *buf, size_t len,
					unsigned long addr)
{
	size_t n;

	if (!ramtrail_sym(buf, len, addr, &n))
		n = scnprintf(buf, len, "%p", (void *)addr);
	return n;
}

/*
 * A function of this boot, in a record of counter time @ts: "%ps", except
 * where this boot's module table knows better. In the init text of a
 * module whose init has ended, or in a module unloaded, another module
 * may be now: "[module].init+0xoff", "[module]+0xoff". Where the table
 * cannot tell which module held it then: the address, hashed.
 */
static notrace size_t ramtrail_dump_name(void *arg, char *buf, size_t len,
					 u32 off, u64 ts,
					 enum ramtrail_text_func which)
{
	struct ramtrail_context *cxt = arg;
	const struct ramtrail_module_entry *tab =
		ramtrail_region_modules(&cxt->reg), *m;
	unsigned long addr = off ? RAMTRAIL_ARCH_TEXT_BASE + off : 0;
	bool timed;
	u32 n, flags;
	int i;

	if (!addr || !ramtrail_arch_is_module(addr))
		return ramtrail_dump_sym(buf, len, addr);
	/* Pairs with the smp_store_release() of an append (modules.c). */
	n = smp_load_acquire(&cxt->nr_modules);
	i = ramtrail_module_find(tab, n, addr, ts, &timed);
	if (i < 0)	/* the kernel's name, unless two held it */
		return timed ? scnprintf(buf, len, "%p", (void *)addr) :
			       ramtrail_dump_sym(buf, len, addr);
	m = &tab[i];
	flags = le32_to_cpu(READ_ONCE(m->flags));
	if ((flags & RAMTRAIL_MOD_INIT) ? le64_to_cpu(m->init_end) :
	    flags & RAMTRAIL_MOD_GONE)
		return ramtrail_text_module(buf, len, m, addr);
	return ramtrail_dump_sym(buf, len, addr);
}

/*
 * The newest @lines records of zone @cpu not newer than @end_ts, in @w.
 * Records written after this call (on request, recording goes on) are
 * not part of it. Return: the counter of the newest one, 0 if none.
 */
static notrace u64 ramtrail_dump_plan(struct ramtrail_context *cxt,
				      struct ramtrail_tail *w,
				      struct ramtrail_zone_cursor *c, u32 cpu,
				      u32 lines, u64 end_ts)
{
	const struct ramtrail_region_header *h = &cxt->reg.hdr;
	struct ramtrail_ring *r;

	w->zone = (const __le64 *)(cxt->base + ramtrail_zone_offset(h, cpu));
	w->nr_blocks = le32_to_cpu(h->nr_blocks);
	w->cpu = cpu;
	r = ramtrail_ring_of(cxt, cpu);
	w->end = r ? local_read(&r->pos) : 0;
	w->end_ts = end_ts;
	ramtrail_tail_find(w, c, lines);
	return w->newest_ts;
}

/* The CPU that froze recording for a crash, or -1. */
static notrace int ramtrail_dump_crash_cpu(struct ramtrail_context *cxt)
{
	u32 reason;

	if (atomic_read_acquire(&cxt->freeze_state) != RAMTRAIL_FROZEN)
		return -1;
	/* the reason the freeze wrote before it set FROZEN */
	reason = le32_to_cpu(READ_ONCE(cxt->hdr->freeze.reason));
	if (reason != RAMTRAIL_FREEZE_PANIC && reason != RAMTRAIL_FREEZE_OOPS)
		return -1;
	return le32_to_cpu(READ_ONCE(cxt->hdr->freeze.cpu));
}

/*
 * Print the newest @lines records of zone @only (-1: every zone) merged by
 * time. With @cut, the zone of that CPU ends the dump: records of other
 * CPUs newer than its newest record (written while it froze recording)
 * are left out.
 */
static notrace void ramtrail_dump_run(struct ramtrail_context *cxt,
				      struct ramtrail_dump *d, int only,
				      int cut, u32 lines, const char *why)
{
	const struct ramtrail_region_header *h = &cxt->reg.hdr;
	u64 t0 = local_clock(), end_ts = ~0ULL, printed = 0, blocks = 0;
	const struct ramtrail_record *r;
	struct ramtrail_merge m;
	u32 cpu, i, nr = 0;

	if (only >= (int)le32_to_cpu(h->nr_cpus))
		only = -1;	/* a CPU without a zone: dump them all */
	if (only >= 0 || cut >= (int)le32_to_cpu(h->nr_cpus))
		cut = -1;
	if (cut >= 0)
		end_ts = ramtrail_dump_plan(cxt, &d->win[nr++], d->cursor, cut,
					    lines, ~0ULL) ?: ~0ULL;
	for (cpu = 0; cpu < le32_to_cpu(h->nr_cpus); cpu++)
		if ((only < 0 || cpu == only) && cpu != cut)
			ramtrail_dump_plan(cxt, &d->win[nr++], d->cursor, cpu,
					   lines, end_ts);

	/* Names first, in time order, as console-ramtrail-N takes them. */
	ramtrail_comms_init(&d->tx.comms, d->comms, RAMTRAIL_DUMP_COMMS);
	d->tx.name = ramtrail_dump_name;
	d->tx.arg = cxt;
	for (i = 0; i < nr; i++) {
		ramtrail_tail_open(&d->win[i], &d->cursor[i], true);
		if (d->win[i].first <= d->win[i].last)
			blocks += d->win[i].last - d->win[i].first + 1;
	}
	ramtrail_merge_start(&m, d->cursor, d->heap, nr);
	while ((r = ramtrail_merge_next(&m)))
		ramtrail_comms_add_record(&d->tx.comms, r);

	if (cut >= 0)
		pr_emerg("dump (%s): newest %u records of %u CPUs, boot %llu, up to the freeze on CPU %d\n",
			 why, lines, nr, le64_to_cpu(h->boot_id), cut);
	else
		pr_emerg("dump (%s): newest %u records of %u CPUs, boot %llu\n",
			 why, lines, nr, le64_to_cpu(h->boot_id));
	for (i = 0; i < nr; i++)
		ramtrail_tail_open(&d->win[i], &d->cursor[i], false);
	ramtrail_merge_start(&m, d->cursor, d->heap, nr);
	while ((r = ramtrail_merge_next(&m))) {
		ramtrail_text_record(d->line, sizeof(d->line), r,
				     ramtrail_ts_to_ns(h, r->ts), &d->tx);
		pr_emerg("%s", d->line);
		printed++;
		touch_nmi_watchdog();
	}
	pr_emerg("end of dump: %llu records of %u CPUs from %llu of %llu blocks in %llu us\n",
		 printed, nr, blocks, (u64)nr * le32_to_cpu(h->nr_blocks),
		 div_u64(local_clock() - t0, 1000));
}

/**
 * ramtrail_dump_crash() - the trace-on-oops dump, once per boot
 * @cxt: the context; recording is frozen
 *
 * dump_on_oops=1 prints the calling CPU's zone, 2 every zone. Callable in
 * any context a notifier of an oops or a panic runs in.
 */
notrace void ramtrail_dump_crash(struct ramtrail_context *cxt)
{
	int mode = READ_ONCE(cxt->dump_on_oops);
	struct ramtrail_dump *d = cxt->dump_crash;

	if (!mode || !d || !READ_ONCE(cxt->formatted) ||
	    atomic_cmpxchg(&d->busy, 0, 1))
		return;
	ramtrail_dump_run(cxt, d, mode == 1 ? (int)raw_smp_processor_id() : -1,
			  ramtrail_dump_crash_cpu(cxt),
			  READ_ONCE(cxt->dump_lines), "crash");
}

/* A dump asked for by sysrq or debugfs; recording goes on meanwhile. */
static notrace void ramtrail_dump_request(struct ramtrail_context *cxt)
{
	struct ramtrail_dump *d = cxt->dump_request;

	if (atomic_cmpxchg(&d->busy, 0, 1)) {
		pr_info("a dump is already being printed\n");
		return;
	}
	ramtrail_dump_run(cxt, d, -1, ramtrail_dump_crash_cpu(cxt),
			  READ_ONCE(cxt->dump_lines), "request");
	atomic_set(&d->busy, 0);
}

static notrace void ramtrail_sysrq_dump(RAMTRAIL_SYSRQ_KEY_T key)
{
	struct ramtrail_context *cxt = ramtrail_cxt_published();

	if (cxt)
		ramtrail_dump_request(cxt);
}

static const struct sysrq_key_op ramtrail_sysrq_op = {
	.handler	= ramtrail_sysrq_dump,
	.help_msg	= "dump-ramtrail(y)",
	.action_msg	= "Dump ramtrail's newest records",
	.enable_mask	= SYSRQ_ENABLE_DUMP,
};

static ssize_t ramtrail_dump_write(struct file *file, const char __user *buf,
				   size_t len, loff_t *ppos)
{
	ramtrail_dump_request(file->private_data);
	return len;
}

static const struct file_operations ramtrail_dump_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ramtrail_dump_write,
	.llseek	= noop_llseek,
};

static struct ramtrail_dump *ramtrail_dump_alloc(u32 nr)
{
	struct ramtrail_dump *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return NULL;
	d->win = kcalloc(nr, sizeof(*d->win), GFP_KERNEL);
	d->cursor = kvcalloc(nr, sizeof(*d->cursor), GFP_KERNEL);
	d->heap = kcalloc(nr, sizeof(*d->heap), GFP_KERNEL);
	if (d->win && d->cursor && d->heap)
		return d;
	kfree(d->win);
	kvfree(d->cursor);
	kfree(d->heap);
	kfree(d);
	return NULL;
}

static void ramtrail_dump_free(struct ramtrail_dump *d)
{
	if (!d)
		return;
	kfree(d->win);
	kvfree(d->cursor);
	kfree(d->heap);
	kfree(d);
}

/**
 * ramtrail_dump_init() - the buffers of the dumps, and sysrq-y
 * @cxt: the context, formatted
 *
 * sysrq-y dumps once the context is published (ramtrail_freeze_hooks_init()).
 * A sysrq key that another driver took leaves debugfs "dump" (added by
 * ramtrail_dump_debugfs()) as the way to ask.
 *
 * Return: 0 or -ENOMEM.
 */
int ramtrail_dump_init(struct ramtrail_context *cxt)
{
	u32 nr = le32_to_cpu(cxt->reg.hdr.nr_cpus);

	cxt->dump_crash = ramtrail_dump_alloc(nr);
	cxt->dump_request = ramtrail_dump_alloc(nr);
	if (!cxt->dump_crash || !cxt->dump_request) {
		ramtrail_dump_exit(cxt);
		return -ENOMEM;
	}
	cxt->sysrq = !register_sysrq_key(RAMTRAIL_DUMP_KEY, &ramtrail_sysrq_op);
	if (!cxt->sysrq)
		pr_info("sysrq-%c is taken: write to debugfs ramtrail/dump to dump\n",
			RAMTRAIL_DUMP_KEY);
	return 0;
}

/**
 * ramtrail_dump_debugfs() - debugfs "dump": a write prints the dump
 * @cxt: the context, its debugfs directory made
 */
void ramtrail_dump_debugfs(struct ramtrail_context *cxt)
{
	debugfs_create_file("dump", 0200, cxt->debugfs, cxt,
			    &ramtrail_dump_fops);
}

/**
 * ramtrail_dump_exit() - undo ramtrail_dump_init()
 * @cxt: the context, withdrawn (ramtrail_freeze_hooks_exit()): the oops
 *	and panic notifiers are gone, sysrq-y finds no context
 */
void ramtrail_dump_exit(struct ramtrail_context *cxt)
{
	if (cxt->sysrq)	/* waits for a handler that runs */
		unregister_sysrq_key(RAMTRAIL_DUMP_KEY, &ramtrail_sysrq_op);
	cxt->sysrq = false;
	ramtrail_dump_free(cxt->dump_crash);
	ramtrail_dump_free(cxt->dump_request);
	cxt->dump_crash = NULL;
	cxt->dump_request = NULL;
}
