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

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kdebug.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/panic_notifier.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/ramtrail.h>
#include "internal.h"

struct ramtrail_context *ramtrail_published;

static notrace void ramtrail_function(unsigned long ip, unsigned long parent,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	struct ramtrail_context *cxt = container_of(op, struct ramtrail_context,
						    function_ops);
	int bit = ftrace_test_recursion_trylock(ip, parent);

	if (bit < 0) {
		/* Recursion in this context: refused. */
		preempt_disable_notrace();
		ramtrail_ring_refuse(this_cpu_ptr(cxt->rings));
		preempt_enable_notrace();
		return;
	}
	/* The trylock disabled preemption: this CPU's ring stays ours. */
	ramtrail_ring_func(this_cpu_ptr(cxt->rings),
			   ramtrail_text_offset(ip),
			   ramtrail_text_offset(parent));
	ftrace_test_recursion_unlock(bit);
}

/**
 * ramtrail_record_event() - record an event in the current CPU's zone
 * @id: event id, RAMTRAIL_EV_USER or above (lower ones are ramtrail's own)
 * @data: payload
 * @len: bytes of payload, at most RAMTRAIL_EVENT_MAX_LEN
 *
 * Callable from any context, NMI included; takes no lock and allocates
 * nothing. The record carries the task and context of its caller.
 *
 * Return: true if recorded; false for a bad @id or @len, while recording is
 * paused (frozen, disabled), or for a record lost (counted in the zone's
 * dropped records).
 */
notrace bool ramtrail_record_event(u16 id, const void *data, unsigned int len)
{
	struct ramtrail_context *cxt = ramtrail_cxt_published();
	bool ok = false;

	if (!cxt || id < RAMTRAIL_EV_USER || len > RAMTRAIL_EVENT_MAX_LEN)
		return false;
	preempt_disable_notrace();
	ok = ramtrail_ring_event_bytes(this_cpu_ptr(cxt->rings), id, data, len);
	preempt_enable_notrace();
	return ok;
}
EXPORT_SYMBOL_GPL(ramtrail_record_event);

/* How long a freeze waits for another's section, or a thaw's, in all. */
#define RAMTRAIL_FREEZE_WAIT_NS	(20 * NSEC_PER_MSEC)

/*
 * Pause every CPU's ring that has a zone: records refused, uncounted
 * (RAMTRAIL_RING_PAUSED); or resume them. Callable in any context.
 */
static notrace void ramtrail_rings_pause(struct ramtrail_context *cxt, bool pause)
{
	struct ramtrail_ring *r;
	u32 cpu;

	for (cpu = 0; cpu < le32_to_cpu(cxt->hdr->nr_cpus); cpu++) {
		r = ramtrail_ring_of(cxt, cpu);
		if (r)
			WRITE_ONCE(r->stopped, pause ? RAMTRAIL_RING_PAUSED : 0);
	}
}

/*
 * Wait while cxt->freeze_state is @state, until RAMTRAIL_FREEZE_WAIT_NS after
 * *@start (ktime_get_mono_fast_ns(), which NMI and panic may read; taken
 * at the first wait, 0 until then): the section's CPU may be this one,
 * interrupted. The udelay()s bound it too, should that clock stop; they
 * alone do not, as a guest's udelay() may be far shorter than asked
 * (QEMU's TCG: 2.5 ms for 20000 of 1 us). The clock is not read before a
 * freeze must wait: the tracer may reach its read function, and the
 * crashing CPU records nothing after its freeze.
 */
static notrace void ramtrail_frozen_wait(struct ramtrail_context *cxt,
					 enum ramtrail_freeze_state state,
					 u64 *start)
{
	int us;

	if (atomic_read(&cxt->freeze_state) != state)
		return;
	if (!*start)
		*start = ktime_get_mono_fast_ns();
	for (us = 0; us < 10 * RAMTRAIL_FREEZE_WAIT_NS / NSEC_PER_USEC &&
	     atomic_read(&cxt->freeze_state) == state &&
	     ktime_get_mono_fast_ns() - *start < RAMTRAIL_FREEZE_WAIT_NS; us++)
		udelay(1);
}

#ifdef RAMTRAIL_TEST_STRETCH
/*
 * A test build's (qemu-tests, make KCFLAGS=-DRAMTRAIL_TEST_STRETCH): the
 * freeze's and the thaw's sections last test_stretch_us longer, and
 * debugfs ramtrail/test_in_section reads 1 meanwhile (a parameter would
 * wait for the parameter lock the thaw holds), so that a test can crash
 * another CPU, or wake a task that would preempt them, inside one.
 */
static unsigned int test_stretch_us;
module_param(test_stretch_us, uint, 0644);
static u32 test_in_section;

/**
 * ramtrail_test_debugfs() - debugfs "test_in_section" of a test build
 * @cxt: the context, its debugfs directory made
 */
void ramtrail_test_debugfs(struct ramtrail_context *cxt)
{
	debugfs_create_u32("test_in_section", 0444, cxt->debugfs,
			   &test_in_section);
}

static notrace void ramtrail_test_stretch(void)
{
	u64 end = ktime_get_mono_fast_ns() +
		  (u64)READ_ONCE(test_stretch_us) * NSEC_PER_USEC;

	WRITE_ONCE(test_in_section, 1);
	while (ktime_get_mono_fast_ns() < end)
		cpu_relax();
	WRITE_ONCE(test_in_section, 0);
}
#else
static inline void ramtrail_test_stretch(void)
{
}
#endif

/*
 * The freeze's section, if this caller wins it: the rings stop, the freeze
 * record and the state are written, the zones sealed and flushed. Not
 * preemptible: a crash on another CPU waits for it, bounded
 * (ramtrail_frozen_wait()). Return: the state the caller found,
 * RAMTRAIL_RECORDING if it won.
 */
static notrace int ramtrail_freeze_win(struct ramtrail_context *cxt,
				       u32 reason)
{
	int old;

	preempt_disable_notrace();
	old = atomic_cmpxchg(&cxt->freeze_state, RAMTRAIL_RECORDING,
			     RAMTRAIL_FREEZING);
	if (old == RAMTRAIL_RECORDING) {
		ramtrail_test_stretch();
		ramtrail_rings_pause(cxt, true);
		ramtrail_end(cxt, reason, RAMTRAIL_STATE_FROZEN);
		ramtrail_rings_seal(cxt);	/* and flushes the zones */
		/* the freeze record before FROZEN: pairs with readers' acquire */
		atomic_set_release(&cxt->freeze_state, RAMTRAIL_FROZEN);
	}
	preempt_enable_notrace();
	return old;
}

/* The freeze itself; see ramtrail_freeze(). */
static notrace void ramtrail_freeze_cxt(struct ramtrail_context *cxt,
					u32 reason)
{
	u64 start = 0;
	int old;

	/*
	 * Not before this boot's header is complete: a freeze while the
	 * module loads would mark the previous boot's header, or a half
	 * cleared zone, as this boot's frozen trace.
	 */
	if (!READ_ONCE(cxt->formatted))
		return;
	old = ramtrail_freeze_win(cxt, reason);
	if (old == RAMTRAIL_THAWING) {
		/* A crash while a thaw resumes recording: freeze after it. */
		ramtrail_frozen_wait(cxt, RAMTRAIL_THAWING, &start);
		old = ramtrail_freeze_win(cxt, reason);
	}
	if (old == RAMTRAIL_FREEZING)
		ramtrail_frozen_wait(cxt, RAMTRAIL_FREEZING, &start);
}

/**
 * ramtrail_freeze() - stop recording so the zones keep what led here
 * @reason: RAMTRAIL_FREEZE_API. The freeze is recorded as a caller's
 *	whatever the value: a panic's and an oops's freezes, which nothing
 *	thaws, are the module's own to record, and a user's is the frozen
 *	parameter's
 *
 * The first call wins: it stops every CPU's writer, writes each zone's
 * position and the reason to the region with their own checksum, sets the
 * state, then seals and flushes the zones (the long part), without being
 * preempted. A CPU that loses the race waits, bounded, until the winner is
 * done: a panicking loser would otherwise stop the winner with
 * smp_send_stop() in the middle. Stopped in the seal anyway, the winner
 * leaves a freeze record that checks, with no zone sealed. Callable from
 * any context, NMI and panic included.
 */
notrace void ramtrail_freeze(u32 reason)
{
	struct ramtrail_context *cxt = ramtrail_cxt_published();

	if (cxt)
		ramtrail_freeze_cxt(cxt, RAMTRAIL_FREEZE_API);
}
EXPORT_SYMBOL_GPL(ramtrail_freeze);

static notrace void ramtrail_panic_entry(unsigned long ip,
					 unsigned long parent,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
	ramtrail_freeze_cxt(container_of(op, struct ramtrail_context,
					 panic_ops), RAMTRAIL_FREEZE_PANIC);
}

static notrace void ramtrail_oops_entry(unsigned long ip, unsigned long parent,
					struct ftrace_ops *op,
					struct ftrace_regs *fregs)
{
	ramtrail_freeze_cxt(container_of(op, struct ramtrail_context,
					 oops_ops), RAMTRAIL_FREEZE_OOPS);
}

/*
 * The notifiers run after the oops or panic message and its stack trace,
 * and before the kmsg dumper: the trace-on-oops dump goes there, so that
 * the dmesg record holds it too.
 */
static notrace int ramtrail_die(struct notifier_block *nb, unsigned long val,
				void *data)
{
	struct ramtrail_context *cxt = container_of(nb, struct ramtrail_context,
						    die_nb);

	if (val == DIE_OOPS) {
		ramtrail_freeze_cxt(cxt, RAMTRAIL_FREEZE_OOPS);
		ramtrail_dump_crash(cxt);
	}
	return NOTIFY_DONE;
}

static notrace int ramtrail_panic(struct notifier_block *nb,
				  unsigned long val, void *data)
{
	struct ramtrail_context *cxt = container_of(nb, struct ramtrail_context,
						    panic_nb);

	ramtrail_freeze_cxt(cxt, RAMTRAIL_FREEZE_PANIC);
	ramtrail_dump_crash(cxt);
	return NOTIFY_DONE;
}

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

/**
 * ramtrail_freeze_hooks_init() - freeze on oops and panic
 * @cxt: the context, formatted, its rings set up
 *
 * Also publishes @cxt to the exported entry points.
 *
 * Return: 0 or a negative errno.
 */
int ramtrail_freeze_hooks_init(struct ramtrail_context *cxt)
{
	static const char *const panics[] = { "panic", "nmi_panic", NULL };
	static const char *const oopses[] = { "oops_enter", NULL };
	int err;

	/* No recursion protection: a freeze must happen whatever the context. */
	cxt->panic_ops.func = ramtrail_panic_entry;
	cxt->oops_ops.func = ramtrail_oops_entry;
	cxt->die_nb.notifier_call = ramtrail_die;
	cxt->die_nb.priority = INT_MAX;
	cxt->panic_nb.notifier_call = ramtrail_panic;
	cxt->panic_nb.priority = INT_MAX;
	cxt->panic_hooked = ramtrail_hook_entry(&cxt->panic_ops, panics);
	cxt->oops_hooked = ramtrail_hook_entry(&cxt->oops_ops, oopses);
	err = register_die_notifier(&cxt->die_nb);
	if (err) {
		ramtrail_freeze_hooks_exit(cxt);
		return err;
	}
	atomic_notifier_chain_register(&panic_notifier_list, &cxt->panic_nb);
	/* The context is whole before the entry points may see it. */
	smp_store_release(&ramtrail_published, cxt);
	return 0;
}

/**
 * ramtrail_freeze_hooks_exit() - undo ramtrail_freeze_hooks_init()
 * @cxt: the context
 */
void ramtrail_freeze_hooks_exit(struct ramtrail_context *cxt)
{
	WRITE_ONCE(ramtrail_published, NULL);
	atomic_notifier_chain_unregister(&panic_notifier_list, &cxt->panic_nb);
	unregister_die_notifier(&cxt->die_nb);
	if (cxt->oops_hooked)
		unregister_ftrace_function(&cxt->oops_ops);
	if (cxt->panic_hooked)
		unregister_ftrace_function(&cxt->panic_ops);
	ftrace_free_filter(&cxt->oops_ops);
	ftrace_free_filter(&cxt->panic_ops);
	cxt->oops_hooked = false;
	cxt->panic_hooked = false;
}

/* Where ramtrail_filter_set() is in its list. */
struct ramtrail_filter_walk {
	struct ftrace_ops *ops;
	bool any;	/* an entry was seen */
	bool all;	/* "*" was: the rest changes nothing */
	bool reset;	/* the next glob replaces the filter */
};

/* One entry of functions=: added to the filter, or "*". */
static int ramtrail_filter_glob(char *glob, void *arg)
{
	struct ramtrail_filter_walk *w = arg;
	int err;

	w->any = true;
	if (!strcmp(glob, "*"))
		w->all = true;
	if (w->all)
		return 0;
	err = ftrace_set_filter(w->ops, glob, strlen(glob), w->reset);
	w->reset = false;
	if (err)
		pr_err("functions: no traceable function matches '%s'\n", glob);
	return err;
}

/*
 * Set @ops's filter to the globs of @list (comma-separated, as ftrace's
 * set_ftrace_filter takes them; "*" for every traceable function). Each
 * glob replaces or extends the filter at once, even on a registered ops.
 * *@any tells whether @list names any function.
 *
 * Return: 0, or -EINVAL for a glob that matches no traceable function
 * (the filter then holds the globs before it).
 */
static int ramtrail_filter_set(struct ftrace_ops *ops, const char *list,
			       bool *any)
{
	struct ramtrail_filter_walk w = { .ops = ops, .reset = true };
	int err = ramtrail_list_each(list, ramtrail_filter_glob, &w);

	*any = w.any;
	if (!err && w.all)	/* an empty filter: every traceable function */
		err = ftrace_set_filter(ops, NULL, 0, 1);
	return err;
}

/*
 * Empty the filter of @ops, not registered: every function again, and
 * @ops usable for another filter (ftrace_free_filter() leaves its hashes
 * freed but in place, for an ops that goes away).
 */
static void ramtrail_filter_clear(struct ftrace_ops *ops)
{
	ftrace_set_filter(ops, NULL, 0, 1);
}

/**
 * ramtrail_record_start() - record the entries of the functions parameter
 * @cxt: the context, its rings set up
 *
 * Return: 0, or -EINVAL if a glob matches no traceable function.
 */
int ramtrail_record_start(struct ramtrail_context *cxt)
{
	/*
	 * No FTRACE_OPS_FL_RECURSION: the callback takes ftrace's recursion
	 * lock itself. With the flag ftrace would take it first, and the
	 * callback's own trylock would use up the one-level transition
	 * allowance that an interrupt arriving before its context is set
	 * needs.
	 */
	cxt->function_ops.func = ramtrail_function;
	return ramtrail_set_functions(cxt, cxt->params.functions);
}

/**
 * ramtrail_set_functions() - record the entries of other functions
 * @cxt: the context
 * @list: comma-separated function globs as ftrace's set_ftrace_filter
 *	takes them; "*" for every traceable function, empty for none
 *
 * At load, and at run time under the module's parameter lock. The list is
 * checked whole before anything changes; while recording, the filter is
 * then changed in place, glob by glob, without unhooking: the first glob
 * replaces the old filter, the others join it at once after.
 *
 * Return: 0, or -EINVAL if a glob matches no traceable function.
 */
int ramtrail_set_functions(struct ramtrail_context *cxt, const char *list)
{
	struct ftrace_ops *ops = &cxt->function_ops;
	bool any;
	int err;

	err = ramtrail_filter_set(&cxt->filter_check_ops, list, &any);
	ramtrail_filter_clear(&cxt->filter_check_ops);
	if (err)
		return err;
	if (!any) {
		ramtrail_record_stop(cxt);
		return 0;
	}
	err = ramtrail_filter_set(ops, list, &any);
	if (!err && !cxt->recording)
		err = register_ftrace_function(ops);
	if (err) {	/* out of memory: recording stops rather than half */
		ramtrail_record_stop(cxt);
		ramtrail_filter_clear(ops);
		return err;
	}
	cxt->recording = true;
	pr_debug("recording functions '%s'\n", list);
	return 0;
}

/**
 * ramtrail_record_stop() - stop recording function entries
 * @cxt: the context
 */
void ramtrail_record_stop(struct ramtrail_context *cxt)
{
	if (!cxt->recording)
		return;
	unregister_ftrace_function(&cxt->function_ops);
	ramtrail_filter_clear(&cxt->function_ops);
	cxt->recording = false;
}

/**
 * ramtrail_crash_refuses() - refuse a change while a crash holds the tail
 * @cxt: the context
 * @what: the change, for the message
 *
 * An oops or a panic that froze recording keeps its tail until the module
 * is reloaded (the kernel survives an oops); a freeze by the user or a
 * ramtrail_freeze() caller does not refuse anything.
 *
 * Return: 0, or -EBUSY (and a message naming @what and the crash).
 */
int ramtrail_crash_refuses(struct ramtrail_context *cxt, const char *what)
{
	u32 reason;

	/* Not live: parameters given at load, before the region is mapped. */
	if (cxt->phase != RAMTRAIL_PHASE_LIVE ||
	    atomic_read_acquire(&cxt->freeze_state) != RAMTRAIL_FROZEN)
		return 0;
	/* the reason the freeze wrote before it set FROZEN */
	reason = le32_to_cpu(READ_ONCE(cxt->hdr->freeze.reason));
	if (reason != RAMTRAIL_FREEZE_PANIC && reason != RAMTRAIL_FREEZE_OOPS)
		return 0;
	pr_warn("%s refused: recording is frozen by %s; reload the module to record again\n",
		what, ramtrail_reason_name(reason));
	return -EBUSY;
}

/* Every ring paused or not, unless a freeze pauses them meanwhile. */
static void ramtrail_rings_apply(struct ramtrail_context *cxt, bool pause)
{
	ramtrail_rings_pause(cxt, pause);
	/*
	 * Pairs with the full barrier of the freeze's atomic_cmpxchg(): either
	 * the freeze's stores to stopped come after ours, or we see it here.
	 */
	smp_mb();
	if (atomic_read(&cxt->freeze_state) != RAMTRAIL_RECORDING)
		ramtrail_rings_pause(cxt, true);
}

/**
 * ramtrail_set_enabled() - the enabled parameter: record or not
 * @cxt: the context
 * @on: record
 *
 * Runs under the module's parameter lock, as does the change of
 * @cxt->phase at load and unload. Before the module is live, and while a
 * freeze holds the rings, the value waits for ramtrail_rings_enable().
 *
 * Return: 0, or -EBUSY once frozen by a crash (the tail is kept until
 * reload).
 */
int ramtrail_set_enabled(struct ramtrail_context *cxt, bool on)
{
	int err = ramtrail_crash_refuses(cxt, "enabled");

	if (err)
		return err;
	cxt->enabled = on;
	if (cxt->phase == RAMTRAIL_PHASE_LIVE)
		ramtrail_rings_enable(cxt);
	return 0;
}

/**
 * ramtrail_rings_enable() - let the rings record as the enabled parameter says
 * @cxt: the context, live
 *
 * Under the module's parameter lock. A freeze keeps them paused.
 */
void ramtrail_rings_enable(struct ramtrail_context *cxt)
{
	if (atomic_read(&cxt->freeze_state) == RAMTRAIL_RECORDING)
		ramtrail_rings_apply(cxt, !cxt->enabled);
}

/**
 * ramtrail_set_frozen() - the frozen parameter: freeze or thaw on demand
 * @cxt: the context, live
 * @on: freeze (reason user) or thaw
 *
 * A freeze keeps the tail as a crash would: read it from debugfs, or
 * reboot and find it saved. A thaw undoes a freeze by the user or a
 * ramtrail_freeze() caller and resumes recording where the zones are;
 * the freeze of an oops or a panic stays. Runs under the module's
 * parameter lock.
 *
 * Return: 0, or -EBUSY when frozen by a crash.
 */
int ramtrail_set_frozen(struct ramtrail_context *cxt, bool on)
{
	int err;

	if (on) {
		ramtrail_freeze_cxt(cxt, RAMTRAIL_FREEZE_USER);
		return 0;
	}
	err = ramtrail_crash_refuses(cxt, "thaw");
	if (err)
		return err;
	/* Not preemptible, as the freeze's: a crash waits for it. */
	preempt_disable_notrace();
	if (atomic_cmpxchg(&cxt->freeze_state, RAMTRAIL_FROZEN,
			   RAMTRAIL_THAWING) != RAMTRAIL_FROZEN) {
		preempt_enable_notrace();
		return 0;	/* not frozen */
	}
	ramtrail_test_stretch();
	/* A reset from here on finds a boot cut while recording. */
	ramtrail_resume(cxt);
	ramtrail_rings_unseal(cxt);
	atomic_set_release(&cxt->freeze_state, RAMTRAIL_RECORDING);
	preempt_enable_notrace();
	ramtrail_rings_enable(cxt);
	return 0;
}

/**
 * ramtrail_stop_for_unload() - end this boot's recording cleanly
 * @cxt: the context; recording and freeze hooks are gone
 *
 * Unless a freeze came first: its tail is kept as it is.
 */
void ramtrail_stop_for_unload(struct ramtrail_context *cxt)
{
	if (atomic_cmpxchg(&cxt->freeze_state, RAMTRAIL_RECORDING,
			   RAMTRAIL_FROZEN) != RAMTRAIL_RECORDING)
		return;
	ramtrail_rings_pause(cxt, true);
	ramtrail_end(cxt, RAMTRAIL_FREEZE_NONE, RAMTRAIL_STATE_STOPPED);
	ramtrail_rings_seal(cxt);	/* and flushes the zones */
}
