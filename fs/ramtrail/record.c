// SPDX-License-Identifier: GPL-2.0
/*
 * Record sources and the freeze.
 *
 * Function entries come from an ftrace_ops whose filter is the functions=
 * parameter. The freeze comes from a second ftrace_ops on the entry of
 * panic(), nmi_panic() and oops_enter(): at that point the dying kernel has
 * not yet printed, dumped or stopped CPUs, which would otherwise overwrite
 * the tail with thousands of records of its own. The die and panic
 * notifiers are backstops that run later.
 *
 * This file is built without -pg (see Kbuild) and its functions are
 * notrace anyway: the tracer must never reach them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kdebug.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/panic_notifier.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/ramtrail.h>
#include "internal.h"

static notrace u32 ramtrail_text_offset(unsigned long ip)
{
	unsigned long off = ip - RAMTRAIL_TEXT_BASE;

	return off <= U32_MAX ? off : 0;
}

static notrace void ramtrail_function(unsigned long ip, unsigned long parent,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent);

	if (bit < 0) {
		/* Recursion in this context: dropped, but counted. */
		preempt_disable_notrace();
		local_inc(&this_cpu_ptr(&ramtrail_rings)->dropped);
		preempt_enable_notrace();
		return;
	}
	/* The trylock disabled preemption: this CPU's ring stays ours. */
	ramtrail_ring_func(this_cpu_ptr(&ramtrail_rings),
			   ramtrail_text_offset(ip),
			   ramtrail_text_offset(parent));
	ftrace_test_recursion_unlock(bit);
}

/*
 * No FTRACE_OPS_FL_RECURSION: the callback takes ftrace's recursion lock
 * itself. With the flag ftrace would take it first, and the callback's own
 * trylock would use up the one-level transition allowance that an
 * interrupt arriving before its context is set needs.
 */
static struct ftrace_ops ramtrail_function_ops = {
	.func	= ramtrail_function,
};

/**
 * ramtrail_record_event() - record an event in the current CPU's zone
 * @id: event id
 * @data: payload
 * @len: bytes of payload, at most RAMTRAIL_EVENT_MAX_LEN
 *
 * Callable from any context, NMI included; takes no lock and allocates
 * nothing.
 *
 * Return: true if recorded, false if dropped (counted).
 */
notrace bool ramtrail_record_event(u16 id, const void *data, unsigned int len)
{
	u32 cont[RAMTRAIL_MAX_CONT] = { 0 };
	bool ok = false;

	if (!ramtrail.hdr || len > RAMTRAIL_EVENT_MAX_LEN)
		return false;
	memcpy(cont, data, len);
	preempt_disable_notrace();
	ok = ramtrail_ring_write(this_cpu_ptr(&ramtrail_rings),
				 RAMTRAIL_W_EVENT, RAMTRAIL_EVENT_HEAD(id, len),
				 cont, DIV_ROUND_UP(len, 4));
	preempt_enable_notrace();
	return ok;
}
EXPORT_SYMBOL_GPL(ramtrail_record_event);

/**
 * ramtrail_freeze() - stop recording so the zones keep what led here
 * @reason: enum ramtrail_freeze_reason
 *
 * The first call wins: it stops every CPU's writer, writes each zone's
 * position and the reason to the region with their own checksum, sets the
 * state, and only then flushes the zones (the long part). A CPU that loses
 * the race waits, bounded, until the winner has sealed: a panicking loser
 * would otherwise stop the winner with smp_send_stop() in the middle.
 * Callable from any context, NMI and panic included.
 */
notrace void ramtrail_freeze(u32 reason)
{
	struct ramtrail_region_header *h = ramtrail.hdr;
	int cpu, us;

	/*
	 * Not before this boot's header is complete: a freeze while the
	 * module loads would mark the previous boot's header, or a half
	 * cleared zone, as this boot's frozen trace.
	 */
	if (!h || !READ_ONCE(ramtrail.formatted))
		return;
	if (atomic_cmpxchg(&ramtrail.frozen, 0, 1)) {
		/* Up to 20 ms: the winner may be this CPU, interrupted. */
		for (us = 0; us < 20000 && atomic_read(&ramtrail.frozen) == 1;
		     us++)
			udelay(1);
		return;
	}
	for (cpu = 0; cpu < h->nr_cpus; cpu++)
		WRITE_ONCE(per_cpu_ptr(&ramtrail_rings, cpu)->stopped, 1);
	ramtrail_end(reason, RAMTRAIL_STATE_FROZEN);
	atomic_set(&ramtrail.frozen, 2);
	ramtrail_flush(ramtrail.base + h->zone_offset,
		       (u64)h->nr_cpus * h->nr_blocks << RAMTRAIL_BLOCK_SHIFT);
}
EXPORT_SYMBOL_GPL(ramtrail_freeze);

static notrace void ramtrail_panic_entry(unsigned long ip,
					 unsigned long parent,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
	ramtrail_freeze(RAMTRAIL_FREEZE_PANIC);
}

static notrace void ramtrail_oops_entry(unsigned long ip, unsigned long parent,
					struct ftrace_ops *op,
					struct ftrace_regs *fregs)
{
	ramtrail_freeze(RAMTRAIL_FREEZE_OOPS);
}

/* No recursion protection: a freeze must happen whatever the context. */
static struct ftrace_ops ramtrail_panic_ops = {
	.func	= ramtrail_panic_entry,
};

static struct ftrace_ops ramtrail_oops_ops = {
	.func	= ramtrail_oops_entry,
};

static notrace int ramtrail_die(struct notifier_block *nb, unsigned long val,
				void *data)
{
	if (val == DIE_OOPS)
		ramtrail_freeze(RAMTRAIL_FREEZE_OOPS);
	return NOTIFY_DONE;
}

static notrace int ramtrail_panic(struct notifier_block *nb,
				  unsigned long val, void *data)
{
	ramtrail_freeze(RAMTRAIL_FREEZE_PANIC);
	return NOTIFY_DONE;
}

static struct notifier_block ramtrail_die_nb = {
	.notifier_call	= ramtrail_die,
	.priority	= INT_MAX,
};

static struct notifier_block ramtrail_panic_nb = {
	.notifier_call	= ramtrail_panic,
	.priority	= INT_MAX,
};

/* Hook the entry of each named function; a name that is missing is skipped. */
static bool ramtrail_hook_entry(struct ftrace_ops *ops, const char *const *names)
{
	bool any = false;

	for (; *names; names++) {
		char *name = kstrdup(*names, GFP_KERNEL);

		if (name && !ftrace_set_filter(ops, name, strlen(name), 0))
			any = true;
		else
			pr_warn("cannot hook %s(): relying on later notifiers\n",
				*names);
		kfree(name);
	}
	return any && !register_ftrace_function(ops);
}

static bool ramtrail_panic_hooked, ramtrail_oops_hooked;

/**
 * ramtrail_freeze_hooks_init() - freeze on oops and panic
 *
 * Return: 0 or a negative errno.
 */
int ramtrail_freeze_hooks_init(void)
{
	static const char *const panics[] = { "panic", "nmi_panic", NULL };
	static const char *const oopses[] = { "oops_enter", NULL };
	int err;

	ramtrail_panic_hooked = ramtrail_hook_entry(&ramtrail_panic_ops, panics);
	ramtrail_oops_hooked = ramtrail_hook_entry(&ramtrail_oops_ops, oopses);
	err = register_die_notifier(&ramtrail_die_nb);
	if (err) {
		ramtrail_freeze_hooks_exit();
		return err;
	}
	atomic_notifier_chain_register(&panic_notifier_list, &ramtrail_panic_nb);
	return 0;
}

/** ramtrail_freeze_hooks_exit() - undo ramtrail_freeze_hooks_init() */
void ramtrail_freeze_hooks_exit(void)
{
	atomic_notifier_chain_unregister(&panic_notifier_list,
					 &ramtrail_panic_nb);
	unregister_die_notifier(&ramtrail_die_nb);
	if (ramtrail_oops_hooked)
		unregister_ftrace_function(&ramtrail_oops_ops);
	if (ramtrail_panic_hooked)
		unregister_ftrace_function(&ramtrail_panic_ops);
	ftrace_free_filter(&ramtrail_oops_ops);
	ftrace_free_filter(&ramtrail_panic_ops);
	ramtrail_oops_hooked = false;
	ramtrail_panic_hooked = false;
}

/**
 * ramtrail_record_start() - record the entries of the named functions
 * @list: comma-separated globs as ftrace's set_ftrace_filter takes them;
 *	"*" for every traceable function, empty for none
 *
 * Return: 0, or -EINVAL if a glob matches no traceable function.
 */
int ramtrail_record_start(const char *list)
{
	char *copy, *p, *glob;
	bool all = false, any = false;
	int err = 0;

	if (!list || !*list)
		return 0;
	copy = kstrdup(list, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	for (p = copy; (glob = strsep(&p, ",")) && !err;) {
		glob = strim(glob);
		all |= !strcmp(glob, "*");
		any |= *glob;
		if (!*glob || all)
			continue;
		err = ftrace_set_filter(&ramtrail_function_ops, glob,
					strlen(glob), 0);
		if (err)
			pr_err("functions: no traceable function matches '%s'\n",
			       glob);
	}
	kfree(copy);
	if (!any)	/* " " or ",": no function, not every function */
		return 0;
	if (all)	/* no filter: every traceable function */
		ftrace_free_filter(&ramtrail_function_ops);
	if (!err)
		err = register_ftrace_function(&ramtrail_function_ops);
	if (err) {
		ftrace_free_filter(&ramtrail_function_ops);
		return err;
	}
	ramtrail.recording = true;
	pr_info("recording functions '%s'\n", list);
	return 0;
}

/** ramtrail_record_stop() - undo ramtrail_record_start() */
void ramtrail_record_stop(void)
{
	if (!ramtrail.recording)
		return;
	unregister_ftrace_function(&ramtrail_function_ops);
	ftrace_free_filter(&ramtrail_function_ops);
	ramtrail.recording = false;
}
