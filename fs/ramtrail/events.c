// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events: probes on the kernel's own tracepoints that record the
 * scheduler, interrupts, workqueues, timers and the log (the events=
 * parameter), and the task switches that every record's task relies on
 * ([R5] in ring.h). Each event is stored compactly: ids and numbers, no
 * names but the irq's, the log line's text, and the comm in task events.
 *
 * Probes run with preemption off, in any context; they take no lock and
 * allocate nothing. This file is built without -pg and is notrace.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/glob.h>
#include <linux/interrupt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include "internal.h"
#include "text.h"

/* Record @len bytes of @data as event @id on this CPU. */
static notrace void ramtrail_ev(struct ramtrail_context *cxt, u16 id,
				const void *data, unsigned int len)
{
	ramtrail_ring_event_bytes(this_cpu_ptr(cxt->rings), id, data, len);
}

static notrace bool ramtrail_ev_on(struct ramtrail_context *cxt, int ev)
{
	return READ_ONCE(cxt->events) & BIT(ev);
}

/* ftrace's prev_state of sched_switch (__trace_sched_switch_state()). */
static notrace u32 ramtrail_switch_state(bool preempt, unsigned int state,
					 const struct task_struct *p)
{
	unsigned int index;

	if (preempt)
		return TASK_REPORT_MAX;
	index = __task_state_index(state, p->exit_state);
	return index ? 1U << (index - 1) : 0;
}

/*
 * Always registered while recording: the CPU's next record names its task
 * again. The event itself only if asked for.
 */
static notrace void ramtrail_sched_switch(void *data, bool preempt,
					  struct task_struct *prev,
					  struct task_struct *next,
					  unsigned int prev_state)
{
	struct ramtrail_context *cxt = data;

	if (ramtrail_ev_on(cxt, RAMTRAIL_EV_SCHED_SWITCH)) {
		struct ramtrail_ev_switch e = {
			.prev_pid = cpu_to_le32(prev->pid),
			.prev_prio = cpu_to_le32(prev->prio),
			.prev_state = cpu_to_le32(ramtrail_switch_state(preempt,
								prev_state,
								prev)),
			.next_pid = cpu_to_le32(next->pid),
			.next_prio = cpu_to_le32(next->prio),
		};

		ramtrail_ev(cxt, RAMTRAIL_EV_SCHED_SWITCH, &e, sizeof(e));
	}
	ramtrail_ring_task_switched(this_cpu_ptr(cxt->rings));
}

/*
 * Always registered too: a task renamed (exec, prctl) is named again, with
 * its new comm, before its next record. The tracepoint runs before the
 * comm is copied: the task event is written here, from @comm.
 */
static notrace void ramtrail_task_rename(void *data, struct task_struct *task,
					 const char *comm)
{
	struct ramtrail_context *cxt = data;
	struct ramtrail_ev_task e = {
		.pid = cpu_to_le32(task->pid),
		.tgid = cpu_to_le32(task->tgid),
	};
	struct ramtrail_ring *r = this_cpu_ptr(cxt->rings);
	unsigned int i;

	if (task != current)
		return;
	for (i = 0; i < RAMTRAIL_COMM_LEN - 1 && comm[i]; i++)
		e.comm[i] = comm[i];
	if (ramtrail_ring_event(r, RAMTRAIL_EV_TASK, (const u32 *)&e,
				sizeof(e)))
		ramtrail_ring_task_named(r, (unsigned long)task);
}

static notrace void ramtrail_wakeup_ev(struct ramtrail_context *cxt, u16 id,
				       struct task_struct *p)
{
	struct ramtrail_ev_wakeup e = {
		.pid = cpu_to_le32(p->pid),
		.prio = cpu_to_le32(p->prio),
		.target_cpu = cpu_to_le32(task_cpu(p)),
	};

	ramtrail_ev(cxt, id, &e, sizeof(e));
}

static notrace void ramtrail_sched_wakeup(void *data, struct task_struct *p)
{
	ramtrail_wakeup_ev(data, RAMTRAIL_EV_SCHED_WAKEUP, p);
}

static notrace void ramtrail_sched_waking(void *data, struct task_struct *p)
{
	ramtrail_wakeup_ev(data, RAMTRAIL_EV_SCHED_WAKING, p);
}

static notrace void ramtrail_sched_wakeup_new(void *data,
					      struct task_struct *p)
{
	ramtrail_wakeup_ev(data, RAMTRAIL_EV_SCHED_WAKEUP_NEW, p);
}

static notrace void ramtrail_irq_entry(void *data, int irq,
				       struct irqaction *action)
{
	struct {
		__le32 irq;
		char name[RAMTRAIL_IRQ_NAME_LEN];
	} e = { .irq = cpu_to_le32(irq) };
	const char *name = action->name;
	unsigned int n = 0;

	while (name && n < RAMTRAIL_IRQ_NAME_LEN && name[n]) {
		e.name[n] = name[n];
		n++;
	}
	ramtrail_ev(data, RAMTRAIL_EV_IRQ_ENTRY, &e, sizeof(e.irq) + n);
}

static notrace void ramtrail_irq_exit(void *data, int irq,
				      struct irqaction *action, int ret)
{
	__le32 e[2] = { cpu_to_le32(irq), cpu_to_le32(ret) };

	ramtrail_ev(data, RAMTRAIL_EV_IRQ_EXIT, e, sizeof(e));
}

static notrace void ramtrail_softirq_entry(void *data, unsigned int vec)
{
	__le32 v = cpu_to_le32(vec);

	ramtrail_ev(data, RAMTRAIL_EV_SOFTIRQ_ENTRY, &v, sizeof(v));
}

static notrace void ramtrail_softirq_exit(void *data, unsigned int vec)
{
	__le32 v = cpu_to_le32(vec);

	ramtrail_ev(data, RAMTRAIL_EV_SOFTIRQ_EXIT, &v, sizeof(v));
}

static notrace void ramtrail_softirq_raise(void *data, unsigned int vec)
{
	__le32 v = cpu_to_le32(vec);

	ramtrail_ev(data, RAMTRAIL_EV_SOFTIRQ_RAISE, &v, sizeof(v));
}

static notrace void ramtrail_work_ev(void *data, u16 id,
				     struct work_struct *work,
				     work_func_t function)
{
	struct ramtrail_ev_work e = {
		.work = cpu_to_le64((unsigned long)work),
		.function = cpu_to_le32(ramtrail_text_offset((unsigned long)
							     function)),
	};

	ramtrail_ev(data, id, &e, offsetofend(struct ramtrail_ev_work,
					      function));
}

static notrace void ramtrail_work_start(void *data, struct work_struct *work)
{
	ramtrail_work_ev(data, RAMTRAIL_EV_WORK_START, work, work->func);
}

static notrace void ramtrail_work_end(void *data, struct work_struct *work,
				      work_func_t function)
{
	ramtrail_work_ev(data, RAMTRAIL_EV_WORK_END, work, function);
}

static notrace void ramtrail_timer_entry(void *data, struct timer_list *timer,
					 unsigned long baseclk)
{
	struct ramtrail_ev_timer e = {
		.timer = cpu_to_le64((unsigned long)timer),
		.now = cpu_to_le64(jiffies),
		.baseclk = cpu_to_le64(baseclk),
		.function = cpu_to_le32(ramtrail_text_offset((unsigned long)
							     timer->function)),
	};

	ramtrail_ev(data, RAMTRAIL_EV_TIMER_ENTRY, &e,
		    offsetofend(struct ramtrail_ev_timer, function));
}

static notrace void ramtrail_timer_exit(void *data, struct timer_list *timer)
{
	__le64 t = cpu_to_le64((unsigned long)timer);

	ramtrail_ev(data, RAMTRAIL_EV_TIMER_EXIT, &t, sizeof(t));
}

/* The log: each printk line, without its newline, cut at 255 bytes. */
static notrace void ramtrail_console(void *data, const char *text, size_t len)
{
	while (len && text[len - 1] == '\n')
		len--;
	ramtrail_ev(data, RAMTRAIL_EV_PRINTK, text,
		    min_t(size_t, len, RAMTRAIL_EVENT_MAX_LEN));
}

/**
 * struct ramtrail_probe_def - a probe of ramtrail's
 * @probe: the probe; its arguments are the tracepoint's TP_PROTO
 * @id: the kernel event it records, enum ramtrail_event_id, whose system
 *	and name ramtrail_event_desc() gives; -1 for the always-on probe of
 *	task_rename, which keeps the task events right
 */
struct ramtrail_probe_def {
	void *probe;
	int id;
};

static const struct ramtrail_probe_def ramtrail_probe_defs[RAMTRAIL_NR_PROBES] = {
	{ ramtrail_sched_switch,	RAMTRAIL_EV_SCHED_SWITCH },
	{ ramtrail_task_rename,		-1 },
	{ ramtrail_sched_wakeup,	RAMTRAIL_EV_SCHED_WAKEUP },
	{ ramtrail_sched_waking,	RAMTRAIL_EV_SCHED_WAKING },
	{ ramtrail_sched_wakeup_new,	RAMTRAIL_EV_SCHED_WAKEUP_NEW },
	{ ramtrail_irq_entry,		RAMTRAIL_EV_IRQ_ENTRY },
	{ ramtrail_irq_exit,		RAMTRAIL_EV_IRQ_EXIT },
	{ ramtrail_softirq_entry,	RAMTRAIL_EV_SOFTIRQ_ENTRY },
	{ ramtrail_softirq_exit,	RAMTRAIL_EV_SOFTIRQ_EXIT },
	{ ramtrail_softirq_raise,	RAMTRAIL_EV_SOFTIRQ_RAISE },
	{ ramtrail_work_start,		RAMTRAIL_EV_WORK_START },
	{ ramtrail_work_end,		RAMTRAIL_EV_WORK_END },
	{ ramtrail_timer_entry,		RAMTRAIL_EV_TIMER_ENTRY },
	{ ramtrail_timer_exit,		RAMTRAIL_EV_TIMER_EXIT },
	{ ramtrail_console,		RAMTRAIL_EV_PRINTK },
};

/* The tracepoint of probe @d, as ftrace names it: system, name. */
static const char *ramtrail_probe_system(const struct ramtrail_probe_def *d)
{
	return d->id < 0 ? "task" : ramtrail_event_desc(d->id)->system;
}

static const char *ramtrail_probe_name(const struct ramtrail_probe_def *d)
{
	return d->id < 0 ? "task_rename" : ramtrail_event_desc(d->id)->name;
}

/* The first two probes run whatever events= says. */
#define RAMTRAIL_ALWAYS_PROBES	2

/* Does "system:name", "name" or a glob of either name event @d? */
static bool ramtrail_event_match(const char *glob,
				 const struct ramtrail_probe_def *d)
{
	const char *colon = strchr(glob, ':');
	char sys[32];

	if (d->id < 0)
		return false;
	if (!colon)
		return glob_match(glob, ramtrail_probe_name(d));
	if (colon - glob >= sizeof(sys))
		return false;
	memcpy(sys, glob, colon - glob);
	sys[colon - glob] = 0;
	return glob_match(sys, ramtrail_probe_system(d)) &&
	       glob_match(colon + 1, ramtrail_probe_name(d));
}

/* One entry of events=: its events added to the mask at @arg. */
static int ramtrail_events_glob(char *glob, void *arg)
{
	u32 *mask = arg, found = 0;
	int i;

	for (i = 0; i < RAMTRAIL_NR_PROBES; i++)
		if (ramtrail_event_match(glob, &ramtrail_probe_defs[i]))
			found |= BIT(ramtrail_probe_defs[i].id);
	if (!found) {
		pr_err("events: '%s' matches no event ramtrail records (sched:sched_switch, sched:sched_wakeup, sched:sched_waking, sched:sched_wakeup_new, irq:*, workqueue:*, timer:timer_expire_entry/exit, printk:console)\n",
		       glob);
		return -EINVAL;
	}
	*mask |= found;
	return 0;
}

/**
 * ramtrail_events_parse() - the events a list of names and globs asks for
 * @list: comma-separated "system:name" or "name", globs allowed, as
 *	ftrace's set_event takes them; empty for none
 * @mask: set to BIT(id) of each enum ramtrail_event_id asked for
 *
 * Return: 0, or -EINVAL if an entry matches no event ramtrail records.
 */
int ramtrail_events_parse(const char *list, u32 *mask)
{
	*mask = 0;
	return ramtrail_list_each(list, ramtrail_events_glob, mask);
}

struct ramtrail_tp_find {
	const char *name;
	struct tracepoint *tp;
};

static void ramtrail_tp_find(struct tracepoint *tp, void *priv)
{
	struct ramtrail_tp_find *f = priv;

	if (!strcmp(tp->name, f->name))
		f->tp = tp;
}

/* Register probe @i of ramtrail_probe_defs[] unless it is. */
static int ramtrail_probe_register(struct ramtrail_context *cxt, int i)
{
	const struct ramtrail_probe_def *d = &ramtrail_probe_defs[i];
	struct ramtrail_tp_find f = { .name = ramtrail_probe_name(d) };
	int err;

	if (cxt->tp[i])
		return 0;
	for_each_kernel_tracepoint(ramtrail_tp_find, &f);
	if (!f.tp) {
		pr_err("events: this kernel has no tracepoint %s:%s\n",
		       ramtrail_probe_system(d), f.name);
		return -ENOENT;
	}
	err = tracepoint_probe_register(f.tp, d->probe, cxt);
	if (!err)
		cxt->tp[i] = f.tp;
	return err;
}

/* Unregister the probes of the events outside @keep; true if any was. */
static bool ramtrail_probes_drop(struct ramtrail_context *cxt, u32 keep)
{
	bool any = false;
	int i;

	for (i = RAMTRAIL_ALWAYS_PROBES; i < RAMTRAIL_NR_PROBES; i++) {
		if (!cxt->tp[i] || keep & BIT(ramtrail_probe_defs[i].id))
			continue;
		tracepoint_probe_unregister(cxt->tp[i],
					    ramtrail_probe_defs[i].probe, cxt);
		cxt->tp[i] = NULL;
		any = true;
	}
	return any;
}

/**
 * ramtrail_events_set() - record other events
 * @cxt: the context, its rings set up
 * @mask: BIT(enum ramtrail_event_id) of the events to record, as
 *	ramtrail_events_parse() gives it
 *
 * At load, and at run time under the module's parameter lock. The probes
 * of new events are registered before @mask is published, the ones of
 * dropped events unregistered after: an event in both the old and the
 * new set is never missed.
 *
 * Return: 0, or -errno with the events as they were.
 */
int ramtrail_events_set(struct ramtrail_context *cxt, u32 mask)
{
	u32 old = cxt->events;
	int i, err = 0;

	for (i = RAMTRAIL_ALWAYS_PROBES; i < RAMTRAIL_NR_PROBES && !err; i++)
		if (mask & BIT(ramtrail_probe_defs[i].id))
			err = ramtrail_probe_register(cxt, i);
	if (err)
		mask = old;
	WRITE_ONCE(cxt->events, mask);
	if (ramtrail_probes_drop(cxt, mask))
		tracepoint_synchronize_unregister();
	return err;
}

/**
 * ramtrail_events_start() - register the probes of the asked-for events
 * @cxt: the context, its rings set up and @cxt->events set
 *
 * The sched_switch and task_rename probes are registered in any case:
 * they keep every record's task right.
 *
 * Return: 0, or -errno (a tracepoint this kernel lacks: -ENOENT).
 */
int ramtrail_events_start(struct ramtrail_context *cxt)
{
	int i, err = 0;

	for (i = 0; i < RAMTRAIL_ALWAYS_PROBES && !err; i++)
		err = ramtrail_probe_register(cxt, i);
	if (!err)
		err = ramtrail_events_set(cxt, cxt->events);
	if (err)
		ramtrail_events_stop(cxt);
	return err;
}

/**
 * ramtrail_events_stop() - unregister the probes; none runs on return
 * @cxt: the context
 */
void ramtrail_events_stop(struct ramtrail_context *cxt)
{
	bool any = false;
	int i;

	for (i = 0; i < RAMTRAIL_NR_PROBES; i++) {
		if (!cxt->tp[i])
			continue;
		tracepoint_probe_unregister(cxt->tp[i],
					    ramtrail_probe_defs[i].probe, cxt);
		cxt->tp[i] = NULL;
		any = true;
	}
	if (any)
		tracepoint_synchronize_unregister();
}
