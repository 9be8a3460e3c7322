// SPDX-License-Identifier: GPL-2.0
/*
 * A decoded record as ftrace's text (text.h). The event lines follow the
 * TP_printk() of the kernel events they stand for (include/trace/events/
 * sched.h, irq.h, workqueue.h, timer.h, printk.h), so that a reader used
 * to ftrace's "trace" file reads them the same way.
 */
#include "text.h"

#ifndef __KERNEL__
#include <stdarg.h>
#include <stdio.h>	/* the kernel's vsnprintf() comes with compat.h */
#endif

/* A line being written: never past @len, always NUL-terminated. */
struct ramtrail_line {
	char *buf;
	size_t len;
	size_t pos;
};

static __printf(2, 3) void ramtrail_put(struct ramtrail_line *l,
					const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->pos + 1 >= l->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->pos, l->len - l->pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->pos = l->pos + n < l->len ? l->pos + n : l->len - 1;
}

/*
 * A pointer an event carries (work, timer): the kernel prints it hashed, as
 * "%p" does, so that no line it makes (a dump, a saved trace's text, which
 * systemd-pstore copies into the journal) gives an address away; equal
 * pointers hash equal within a boot. The tools print the value.
 */
static void ramtrail_put_ptr(struct ramtrail_line *l, u64 ptr)
{
#ifdef __KERNEL__
	ramtrail_put(l, "%p", (void *)(unsigned long)ptr);
#else
	ramtrail_put(l, "%016llx", (unsigned long long)ptr);
#endif
}

/* @n bytes of @s, as ramtrail_put(l, "%.*s", n, s) puts them. */
static void ramtrail_put_str(struct ramtrail_line *l, const char *s, size_t n)
{
	if (l->pos + 1 >= l->len)
		return;
	if (n > l->len - l->pos - 1)
		n = l->len - l->pos - 1;
	memcpy(l->buf + l->pos, s, n);
	l->pos += n;
	l->buf[l->pos] = 0;
}

static void ramtrail_put_name(struct ramtrail_line *l,
			      const struct ramtrail_text *tx, u32 off, u64 ts,
			      enum ramtrail_text_func which)
{
	size_t n;

	if (l->pos + 1 >= l->len)
		return;
	n = tx->name(tx->arg, l->buf + l->pos, l->len - l->pos, off, ts,
		     which);
	l->pos = l->pos + n < l->len ? l->pos + n : l->len - 1;
}

/*
 * Task names, markers, the log's text, a forged header's release reach
 * terminals, journals and the tools' parsers: every byte but printable
 * ASCII prints as '?', so that none ends a line, starts an escape
 * sequence (ESC, or 0x9b, the 8-bit CSI) or hides in a column.
 */
static char ramtrail_text_byte(u8 c)
{
	return c >= ' ' && c < 0x7f ? c : '?';
}

/**
 * ramtrail_text_clean() - copy a string that user space chose, to print it
 * @dst: @n bytes: the string, then NULs to the end (unless @n is 0)
 * @src: up to @n - 1 bytes, up to a NUL
 * @n: bytes
 *
 * Every byte but printable ASCII becomes '?'. The filter of every string
 * on its way into the text this file writes, and into the tools' exports
 * of task names.
 *
 * Return: the length of @dst.
 */
size_t ramtrail_text_clean(char *dst, const void *src, size_t n)
{
	const u8 *s = src;
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n - 1 && s[i]; i++)
		dst[i] = ramtrail_text_byte(s[i]);
	memset(dst + i, 0, n - i);
	return i;
}

/* Pids are dense: a multiplicative hash spreads them over the slots. */
static u32 ramtrail_comm_slot(const struct ramtrail_comms *c, u32 pid, u32 i)
{
	return (u32)((pid * 2654435761U + i) % c->nr);
}

/* Slots a pid may take: its own and the next ones. */
#define RAMTRAIL_COMM_PROBES	8

/**
 * ramtrail_comms_init() - an empty pid -> comm table
 * @c: the table
 * @slot: its memory, @nr slots
 * @nr: slots, at least 1
 */
void ramtrail_comms_init(struct ramtrail_comms *c, struct ramtrail_comm *slot,
			 u32 nr)
{
	u32 i;

	c->slot = slot;
	c->nr = nr;
	for (i = 0; i < nr; i++) {
		slot[i].pid = RAMTRAIL_PID_UNKNOWN;
		slot[i].comm[0] = 0;
	}
}

/**
 * ramtrail_comms_add() - note the command name of a task
 * @c: the table
 * @task: a task event's payload; the latest name of a pid wins
 */
void ramtrail_comms_add(struct ramtrail_comms *c,
			const struct ramtrail_ev_task *task)
{
	u32 pid = le32_to_cpu(task->pid);
	struct ramtrail_comm *s = &c->slot[ramtrail_comm_slot(c, pid, 0)];
	u32 i;

	if (pid == RAMTRAIL_PID_UNKNOWN)
		return;
	for (i = 0; i < RAMTRAIL_COMM_PROBES && i < c->nr; i++) {
		struct ramtrail_comm *p =
			&c->slot[ramtrail_comm_slot(c, pid, i)];

		if (p->pid == pid || p->pid == RAMTRAIL_PID_UNKNOWN) {
			s = p;
			break;
		}
	}
	s->pid = le32_to_cpu(task->pid);
	s->tgid = le32_to_cpu(task->tgid);
	/* The kernel's comm has at most 15 characters and a NUL. */
	ramtrail_text_clean(s->comm, task->comm, RAMTRAIL_COMM_LEN);
}

/**
 * ramtrail_comms_find() - the command name noted for a pid
 * @c: the table
 * @pid: the task
 *
 * Return: the name, or NULL if none is known.
 */
const char *ramtrail_comms_find(const struct ramtrail_comms *c, u32 pid)
{
	u32 i;

	for (i = 0; i < RAMTRAIL_COMM_PROBES && i < c->nr; i++) {
		const struct ramtrail_comm *p =
			&c->slot[ramtrail_comm_slot(c, pid, i)];

		if (p->pid == pid)
			return p->comm;
		if (p->pid == RAMTRAIL_PID_UNKNOWN)
			break;
	}
	return NULL;
}

/**
 * ramtrail_text_comm() - the command name of a task an event names
 * @tx: its table
 * @r: the event; its own task is the best source for its own pid
 * @pid: the task
 * @buf: room for the name when it is the event's own task's
 *
 * Return: the name, through ramtrail_text_clean(), or "<...>" as ftrace
 * prints a pid it has no name for.
 */
const char *ramtrail_text_comm(const struct ramtrail_text *tx,
			       const struct ramtrail_record *r, u32 pid,
			       char buf[RAMTRAIL_COMM_LEN])
{
	const char *comm;

	if (r->task_known && le32_to_cpu(r->task.pid) == pid &&
	    r->task.comm[0] &&
	    !r->task.comm[RAMTRAIL_COMM_LEN - 1]) {
		ramtrail_text_clean(buf, r->task.comm, RAMTRAIL_COMM_LEN);
		return buf;
	}
	/* pid 0 in an event of CPU N: the idle task of CPU N */
	comm = ramtrail_comms_find(&tx->comms,
				   pid ? pid : RAMTRAIL_COMM_IDLE(r->cpu));
	return comm && comm[0] ? comm : "<...>";
}

/* __trace_sched_switch_state(): bits 0..7 of the state, 8: preempted. */
static void ramtrail_put_state(struct ramtrail_line *l, u32 state)
{
	static const char letters[] = "SDTtXZPI";
	bool first = true;
	unsigned int i;

	for (i = 0; i < 8; i++) {
		if (!(state & 1U << i))
			continue;
		ramtrail_put(l, "%s%c", first ? "" : "|", letters[i]);
		first = false;
	}
	ramtrail_put(l, "%s%s", first ? "R" : "", state & 0x100 ? "+" : "");
}

static const char *const ramtrail_softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

/*
 * A record's payload as the structs it holds: the record's data is only
 * 4-byte aligned, and zero padded past its length.
 */
union ramtrail_payload {
	__le32 u[4];
	struct ramtrail_ev_switch sw;
	struct ramtrail_ev_wakeup wake;
	struct ramtrail_ev_work work;
	struct ramtrail_ev_timer timer;
};

static union ramtrail_payload ramtrail_payload_of(const struct ramtrail_record *r)
{
	union ramtrail_payload p;

	memcpy(&p, r->data, sizeof(p));
	return p;
}

/*
 * The events' TP_printk()s, for records ramtrail_event_desc() accepts.
 *
 * A log line or a marker: its bytes up to a NUL, a final newline dropped,
 * through ramtrail_text_clean(), so that a record is one line.
 */
static void ramtrail_text_string(struct ramtrail_line *l,
				 const struct ramtrail_record *r,
				 const struct ramtrail_text *tx)
{
	size_t n = strnlen((const char *)r->data, r->len);
	char c[RAMTRAIL_EVENT_MAX_LEN + 1];

	if (n && r->data[n - 1] == '\n')
		n--;
	n = ramtrail_text_clean(c, r->data, n + 1);
	ramtrail_put_str(l, c, n);
}

static void ramtrail_text_switch(struct ramtrail_line *l,
				 const struct ramtrail_record *r,
				 const struct ramtrail_text *tx)
{
	union ramtrail_payload p = ramtrail_payload_of(r);
	char comm[RAMTRAIL_COMM_LEN];

	ramtrail_put(l, "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=",
		     ramtrail_text_comm(tx, r, le32_to_cpu(p.sw.prev_pid), comm),
		     (int)le32_to_cpu(p.sw.prev_pid),
		     (int)le32_to_cpu(p.sw.prev_prio));
	ramtrail_put_state(l, le32_to_cpu(p.sw.prev_state));
	ramtrail_put(l, " ==> next_comm=%s next_pid=%d next_prio=%d",
		     ramtrail_text_comm(tx, r, le32_to_cpu(p.sw.next_pid), comm),
		     (int)le32_to_cpu(p.sw.next_pid),
		     (int)le32_to_cpu(p.sw.next_prio));
}

static void ramtrail_text_wakeup(struct ramtrail_line *l,
				 const struct ramtrail_record *r,
				 const struct ramtrail_text *tx)
{
	union ramtrail_payload p = ramtrail_payload_of(r);
	char comm[RAMTRAIL_COMM_LEN];

	ramtrail_put(l, "comm=%s pid=%d prio=%d target_cpu=%03d",
		     ramtrail_text_comm(tx, r, le32_to_cpu(p.wake.pid), comm),
		     (int)le32_to_cpu(p.wake.pid),
		     (int)le32_to_cpu(p.wake.prio),
		     (int)le32_to_cpu(p.wake.target_cpu));
}

static void ramtrail_text_irq_entry(struct ramtrail_line *l,
				    const struct ramtrail_record *r,
				    const struct ramtrail_text *tx)
{
	size_t n = strnlen((const char *)r->data + 4, r->len - 4);
	char name[RAMTRAIL_EVENT_MAX_LEN];

	ramtrail_text_clean(name, r->data + 4, n + 1);
	ramtrail_put(l, "irq=%d name=%s",
		     (int)le32_to_cpu(ramtrail_payload_of(r).u[0]), name);
}

static void ramtrail_text_irq_exit(struct ramtrail_line *l,
				   const struct ramtrail_record *r,
				   const struct ramtrail_text *tx)
{
	union ramtrail_payload p = ramtrail_payload_of(r);

	ramtrail_put(l, "irq=%d ret=%s", (int)le32_to_cpu(p.u[0]),
		     p.u[1] ? "handled" : "unhandled");
}

static void ramtrail_text_softirq(struct ramtrail_line *l,
				  const struct ramtrail_record *r,
				  const struct ramtrail_text *tx)
{
	u32 vec = le32_to_cpu(ramtrail_payload_of(r).u[0]);

	if (vec < ARRAY_SIZE(ramtrail_softirq_names))
		ramtrail_put(l, "vec=%u [action=%s]", vec,
			     ramtrail_softirq_names[vec]);
	else	/* __print_symbolic() of an unknown value */
		ramtrail_put(l, "vec=%u [action=0x%x]", vec, vec);
}

static void ramtrail_text_work(struct ramtrail_line *l,
			       const struct ramtrail_record *r,
			       const struct ramtrail_text *tx)
{
	union ramtrail_payload p = ramtrail_payload_of(r);

	ramtrail_put(l, "work struct ");
	ramtrail_put_ptr(l, le64_to_cpu(p.work.work));
	ramtrail_put(l, ": function ");
	ramtrail_put_name(l, tx, le32_to_cpu(p.work.function), r->ts,
			  RAMTRAIL_TEXT_ARG);
}

static void ramtrail_text_timer_entry(struct ramtrail_line *l,
				      const struct ramtrail_record *r,
				      const struct ramtrail_text *tx)
{
	union ramtrail_payload p = ramtrail_payload_of(r);

	ramtrail_put(l, "timer=");
	ramtrail_put_ptr(l, le64_to_cpu(p.timer.timer));
	ramtrail_put(l, " function=");
	ramtrail_put_name(l, tx, le32_to_cpu(p.timer.function), r->ts,
			  RAMTRAIL_TEXT_ARG);
	ramtrail_put(l, " now=%llu baseclk=%llu",
		     (unsigned long long)le64_to_cpu(p.timer.now),
		     (unsigned long long)le64_to_cpu(p.timer.baseclk));
}

static void ramtrail_text_timer_exit(struct ramtrail_line *l,
				     const struct ramtrail_record *r,
				     const struct ramtrail_text *tx)
{
	ramtrail_put(l, "timer=");
	ramtrail_put_ptr(l, le64_to_cpu(ramtrail_payload_of(r).timer.timer));
}

#ifdef __KERNEL__
/* The module writes no trace.dat: it keeps no format files. */
#define RT_FORMAT(print, fields, scan)	{ }
#else
#define RT_FORMAT(print, fields, scan)	{ print, fields, ramtrail_scan_##scan }

/* A field of a format file: declaration, offset, size, signed; its source. */
#define RT_F(decl, off, size, sign, kind, src) \
	{ decl, off, size, sign, RAMTRAIL_FIELD_##kind, src }

static const struct ramtrail_event_field ramtrail_console_fields[] = {
	RT_F("__data_loc char[] msg",		8, 4, 0, LINE, 0),
	{ }
};

static const struct ramtrail_event_field ramtrail_print_fields[] = {
	RT_F("unsigned long ip",		8, 8, 0, LABEL, 0),
	RT_F("char buf[]",			16, 0, 0, CSTR, 0),
	{ }
};

static const struct ramtrail_event_field ramtrail_switch_fields[] = {
	RT_F("char prev_comm[16]",		8, 16, 0, COMM, 0),
	RT_F("pid_t prev_pid",			24, 4, 1, U32, 0),
	RT_F("int prev_prio",			28, 4, 1, U32, 4),
	RT_F("long prev_state",			32, 8, 1, U32, 8),
	RT_F("char next_comm[16]",		40, 16, 0, COMM, 12),
	RT_F("pid_t next_pid",			56, 4, 1, U32, 12),
	RT_F("int next_prio",			60, 4, 1, U32, 16),
	{ }
};

static const struct ramtrail_event_field ramtrail_wakeup_fields[] = {
	RT_F("char comm[16]",			8, 16, 0, COMM, 0),
	RT_F("pid_t pid",			24, 4, 1, U32, 0),
	RT_F("int prio",			28, 4, 1, U32, 4),
	RT_F("int target_cpu",			32, 4, 1, U32, 8),
	{ }
};

static const struct ramtrail_event_field ramtrail_irq_entry_fields[] = {
	RT_F("int irq",				8, 4, 1, U32, 0),
	RT_F("__data_loc char[] name",		12, 4, 0, STR, 4),
	{ }
};

static const struct ramtrail_event_field ramtrail_irq_exit_fields[] = {
	RT_F("int irq",				8, 4, 1, U32, 0),
	RT_F("int ret",				12, 4, 1, U32, 4),
	{ }
};

static const struct ramtrail_event_field ramtrail_softirq_fields[] = {
	RT_F("unsigned int vec",		8, 4, 0, U32, 0),
	{ }
};

static const struct ramtrail_event_field ramtrail_work_fields[] = {
	RT_F("void * work",			8, 8, 0, RAW, 0),
	RT_F("void * function",			16, 8, 0, FUNC, 8),
	{ }
};

static const struct ramtrail_event_field ramtrail_timer_entry_fields[] = {
	RT_F("void * timer",			8, 8, 0, RAW, 0),
	RT_F("unsigned long now",		16, 8, 0, RAW, 8),
	RT_F("void * function",			24, 8, 0, FUNC, 24),
	RT_F("unsigned long baseclk",		32, 8, 0, RAW, 16),
	{ }
};

static const struct ramtrail_event_field ramtrail_timer_exit_fields[] = {
	RT_F("void * timer",			8, 8, 0, RAW, 0),
	{ }
};
#endif

#define RT_CONSOLE_PRINT	"\"%s\", __get_str(msg)"
#define RT_SWITCH_PRINT							\
	"\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "	\
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, "	\
	"REC->prev_pid, REC->prev_prio, (REC->prev_state & 0xff) ? "	\
	"__print_flags(REC->prev_state & 0xff, \"|\", { 0x01, \"S\" }, "	\
	"{ 0x02, \"D\" }, { 0x04, \"T\" }, { 0x08, \"t\" }, "		\
	"{ 0x10, \"X\" }, { 0x20, \"Z\" }, { 0x40, \"P\" }, "		\
	"{ 0x80, \"I\" }) : \"R\", REC->prev_state & 0x100 ? \"+\" : "	\
	"\"\", REC->next_comm, REC->next_pid, REC->next_prio"
#define RT_WAKEUP_PRINT							\
	"\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, "	\
	"REC->pid, REC->prio, REC->target_cpu"
#define RT_IRQ_ENTRY_PRINT	"\"irq=%d name=%s\", REC->irq, __get_str(name)"
#define RT_IRQ_EXIT_PRINT						\
	"\"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\""
#define RT_SOFTIRQ_PRINT						\
	"\"vec=%u [action=%s]\", REC->vec, __print_symbolic(REC->vec, "	\
	"{ 0, \"HI\" }, { 1, \"TIMER\" }, { 2, \"NET_TX\" }, "		\
	"{ 3, \"NET_RX\" }, { 4, \"BLOCK\" }, { 5, \"IRQ_POLL\" }, "	\
	"{ 6, \"TASKLET\" }, { 7, \"SCHED\" }, { 8, \"HRTIMER\" }, "	\
	"{ 9, \"RCU\" })"
#define RT_WORK_PRINT \
	"\"work struct %p: function %ps\", REC->work, REC->function"
#define RT_TIMER_ENTRY_PRINT						\
	"\"timer=%p function=%ps now=%lu baseclk=%lu\", REC->timer, "	\
	"REC->function, REC->now, REC->baseclk"
#define RT_TIMER_EXIT_PRINT	"\"timer=%p\", REC->timer"
#define RT_PRINT_PRINT		"\"%ps: %s\", (void *)REC->ip, REC->buf"

/*
 * The kernel events ramtrail records, by enum ramtrail_event_id: the one
 * table of them. The probes (events.c) attach by its names, the text
 * comes from its formatters (which the tools read back with its scanners,
 * tools/lib/text_scan.c, from a saved trace's pstore text), and the
 * exporter (tools/ramtrail/tracedat.c) writes each event's format file
 * and fills its payload from its fields, as the kernel's format files in
 * tracefs describe them on x86-64
 * (TP_STRUCT__entry of include/trace/events/sched.h, irq.h, workqueue.h,
 * timer.h, printk.h; ftrace's print of kernel/trace/trace_entries.h). A
 * new event: its id and payload in the uapi, its entry here, its probe in
 * events.c (or its writer: marker.c).
 */
static const struct ramtrail_event_desc ramtrail_event_descs[RAMTRAIL_EV_NR] = {
	[RAMTRAIL_EV_PRINTK] = { "printk", "console", 0,
		ramtrail_text_string,
		RT_FORMAT(RT_CONSOLE_PRINT, ramtrail_console_fields, line), NULL },
	[RAMTRAIL_EV_SCHED_SWITCH] = { "sched", "sched_switch",
		sizeof(struct ramtrail_ev_switch), ramtrail_text_switch,
		RT_FORMAT(RT_SWITCH_PRINT, ramtrail_switch_fields, switch), NULL },
	[RAMTRAIL_EV_SCHED_WAKEUP] = { "sched", "sched_wakeup",
		sizeof(struct ramtrail_ev_wakeup), ramtrail_text_wakeup,
		RT_FORMAT(RT_WAKEUP_PRINT, ramtrail_wakeup_fields, wakeup), NULL },
	[RAMTRAIL_EV_SCHED_WAKING] = { "sched", "sched_waking",
		sizeof(struct ramtrail_ev_wakeup), ramtrail_text_wakeup,
		RT_FORMAT(RT_WAKEUP_PRINT, ramtrail_wakeup_fields, wakeup), NULL },
	[RAMTRAIL_EV_SCHED_WAKEUP_NEW] = { "sched", "sched_wakeup_new",
		sizeof(struct ramtrail_ev_wakeup), ramtrail_text_wakeup,
		RT_FORMAT(RT_WAKEUP_PRINT, ramtrail_wakeup_fields, wakeup), NULL },
	[RAMTRAIL_EV_IRQ_ENTRY] = { "irq", "irq_handler_entry", 4,
		ramtrail_text_irq_entry,
		RT_FORMAT(RT_IRQ_ENTRY_PRINT, ramtrail_irq_entry_fields, irq_entry), NULL },
	[RAMTRAIL_EV_IRQ_EXIT] = { "irq", "irq_handler_exit", 8,
		ramtrail_text_irq_exit,
		RT_FORMAT(RT_IRQ_EXIT_PRINT, ramtrail_irq_exit_fields, irq_exit), NULL },
	[RAMTRAIL_EV_SOFTIRQ_ENTRY] = { "irq", "softirq_entry", 4,
		ramtrail_text_softirq,
		RT_FORMAT(RT_SOFTIRQ_PRINT, ramtrail_softirq_fields, softirq), NULL },
	[RAMTRAIL_EV_SOFTIRQ_EXIT] = { "irq", "softirq_exit", 4,
		ramtrail_text_softirq,
		RT_FORMAT(RT_SOFTIRQ_PRINT, ramtrail_softirq_fields, softirq), NULL },
	[RAMTRAIL_EV_SOFTIRQ_RAISE] = { "irq", "softirq_raise", 4,
		ramtrail_text_softirq,
		RT_FORMAT(RT_SOFTIRQ_PRINT, ramtrail_softirq_fields, softirq), NULL },
	[RAMTRAIL_EV_WORK_START] = { "workqueue", "workqueue_execute_start",
		offsetof(struct ramtrail_ev_work, function) + 4,
		ramtrail_text_work,
		RT_FORMAT(RT_WORK_PRINT, ramtrail_work_fields, work), NULL },
	[RAMTRAIL_EV_WORK_END] = { "workqueue", "workqueue_execute_end",
		offsetof(struct ramtrail_ev_work, function) + 4,
		ramtrail_text_work,
		RT_FORMAT(RT_WORK_PRINT, ramtrail_work_fields, work), NULL },
	[RAMTRAIL_EV_TIMER_ENTRY] = { "timer", "timer_expire_entry",
		offsetof(struct ramtrail_ev_timer, function) + 4,
		ramtrail_text_timer_entry,
		RT_FORMAT(RT_TIMER_ENTRY_PRINT, ramtrail_timer_entry_fields, timer_entry), NULL },
	[RAMTRAIL_EV_TIMER_EXIT] = { "timer", "timer_expire_exit", 8,
		ramtrail_text_timer_exit,
		RT_FORMAT(RT_TIMER_EXIT_PRINT, ramtrail_timer_exit_fields, timer_exit), NULL },
	/* ftrace's own event (its ftrace section), as trace_marker writes */
	[RAMTRAIL_EV_MARKER] = { "ftrace", "print", 0, ramtrail_text_string,
		RT_FORMAT(RT_PRINT_PRINT, ramtrail_print_fields, line),
		.label = "tracing_mark_write" },
};

/**
 * ramtrail_event_desc() - the kernel event an id stands for
 * @id: enum ramtrail_event_id
 *
 * Return: its entry of the table, or NULL if no kernel event has @id.
 */
const struct ramtrail_event_desc *ramtrail_event_desc(u32 id)
{
	if (id >= RAMTRAIL_EV_NR || !ramtrail_event_descs[id].name)
		return NULL;
	return &ramtrail_event_descs[id];
}

/**
 * ramtrail_text_event_name() - the kernel event a record stands for
 * @r: a record
 *
 * Return: the event's name ("sched_switch"), or NULL for a function
 * record, an event of ramtrail_record_event() callers, or one whose
 * payload is too short for its format (printed as "ramtrail_event").
 */
const char *ramtrail_text_event_name(const struct ramtrail_record *r)
{
	const struct ramtrail_event_desc *d;

	if (r->type != RAMTRAIL_W_EVENT)
		return NULL;
	d = ramtrail_event_desc(r->id);
	return d && r->len >= d->min_len ? d->name : NULL;
}

/**
 * ramtrail_text_module() - name an address by its module alone
 * @buf: the name, NUL-terminated, cut if @len is short
 * @len: bytes at @buf, at least 1
 * @m: the module table entry whose text holds @addr
 * @addr: the address
 *
 * "[module]+0xoff", or "[module].init+0xoff" in init text: the offset from
 * that text's start, for the module's .ko to name. A byte of the name
 * other than a letter, digit, '_' or '-' prints as '?': a line holds no
 * byte a forged entry could bring.
 *
 * Return: the length of the name.
 */
size_t ramtrail_text_module(char *buf, size_t len,
			    const struct ramtrail_module_entry *m, u64 addr)
{
	struct ramtrail_line l = { .buf = buf, .len = len };
	char name[sizeof(m->name)];
	size_t i;

	for (i = 0; i < sizeof(name) - 1 && m->name[i]; i++) {
		char c = m->name[i];

		name[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '-' ?
			  c : '?';
	}
	name[i] = 0;
	buf[0] = 0;
	ramtrail_put(&l, "[%s]%s+0x%llx", name,
		     le32_to_cpu(m->flags) & RAMTRAIL_MOD_INIT ? ".init" : "",
		     (unsigned long long)(addr - le64_to_cpu(m->base)));
	return l.pos;
}

/**
 * ramtrail_text_event() - what a record says, after ftrace's "TIME: "
 * @buf: the text, NUL-terminated, cut if @len is short
 * @len: bytes at @buf, at least 1
 * @r: the record
 * @tx: names of functions and tasks
 *
 * "func <-caller" for a function record, "sched_switch: prev_comm=..."
 * for a kernel event, "ramtrail_event: id=N len=N data=<hex>" for others.
 *
 * Return: the length of the text.
 */
size_t ramtrail_text_event(char *buf, size_t len,
			   const struct ramtrail_record *r,
			   const struct ramtrail_text *tx)
{
	struct ramtrail_line l = { .buf = buf, .len = len };
	const char *name = ramtrail_text_event_name(r);
	u32 i;

	buf[0] = 0;
	if (r->type != RAMTRAIL_W_EVENT) {
		ramtrail_put_name(&l, tx, r->ip, r->ts, RAMTRAIL_TEXT_IP);
		if (r->type == RAMTRAIL_W_FUNC_PARENT && r->parent) {
			ramtrail_put_str(&l, " <-", 3);
			ramtrail_put_name(&l, tx, r->parent, r->ts,
					  RAMTRAIL_TEXT_PARENT);
		}
	} else if (name) {
		ramtrail_put(&l, "%s: ", ramtrail_event_descs[r->id].label ?:
					 name);
		ramtrail_event_descs[r->id].text(&l, r, tx);
	} else {
		ramtrail_put(&l, "ramtrail_event: id=%u len=%u data=", r->id,
			     r->len);
		for (i = 0; i < r->len; i++)
			ramtrail_put(&l, "%02x", r->data[i]);
	}
	return l.pos;
}

/**
 * ramtrail_text_flags() - ftrace's flags column of a record
 * @flags: RAMTRAIL_TEXT_FLAGS_LEN bytes: 5 characters and a NUL
 * @r: the record
 *
 * irqs-off ('d'; 'X' for a function record, which does not record it),
 * need-resched ('N'), context ('z' NMI, 'h' hardirq, 's' softirq), then
 * the preempt depth and migrate-disable columns, never recorded: '.'.
 */
void ramtrail_text_flags(char *flags, const struct ramtrail_record *r)
{
	static const char ctx[] = ".shz";	/* enum ramtrail_ctx */

	flags[0] = r->type != RAMTRAIL_W_EVENT ? 'X' :
		   r->flags & RAMTRAIL_EF_IRQS_OFF ? 'd' : '.';
	flags[1] = r->flags & RAMTRAIL_EF_NEED_RESCHED ? 'N' : '.';
	flags[2] = ctx[r->ctx & RAMTRAIL_CTX_MASK];
	flags[3] = '.';
	flags[4] = '.';
	flags[5] = 0;
}

/*
 * The longest prefix ramtrail_text_prefix() writes: the task's columns
 * (16 + 1 + 7), " [CPU] " (7), the flags (5), " ", the seconds (20 digits
 * at most), ".", the microseconds (6) and ": ".
 */
#define RAMTRAIL_TEXT_PREFIX_MAX	(24 + 7 + 5 + 1 + 20 + 1 + 6 + 2)

/* "00" to "99": two digits a lookup. */
static const char ramtrail_digit_pairs[] = {
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
};

/* @v, below 10^@n, in @n decimal digits at @p (zeros before). */
static __always_inline char *ramtrail_put_digits(char *p, u64 v,
						 unsigned int n)
{
	unsigned int i = n;
	u32 digit, y;

	for (; v > U32_MAX; i--) {
		v = div_u64_rem(v, 10, &digit);
		p[i - 1] = '0' + digit;
	}
	/* Two digits a step: one division of the whole number for both. */
	for (y = v; i > 1; i -= 2) {
		digit = y % 100;
		y /= 100;
		memcpy(p + i - 2, ramtrail_digit_pairs + 2 * digit, 2);
	}
	if (i)
		p[0] = '0' + y;
	return p + n;
}

/* The decimal digits of @v: 1 to 20 (10^20 is past 2^64). */
static __always_inline unsigned int ramtrail_dec_len(u64 v)
{
	unsigned int n = 1;
	u64 x = 10;

	for (; n < 20 && v >= x; n++)
		x *= 10;
	return n;
}

/*
 * ramtrail_text_record()'s "<comm>-<pid> [CPU] <flags> <sec>.<usec>: ",
 * the same bytes as its vsnprintf() formats, written directly: a mount
 * writes the line of every record of a trace. False, with nothing
 * written, when the line's room or a value does not fit the columns
 * (a pid of 8 digits, a CPU of 4), which vsnprintf() then writes.
 * Columns are filled with spaces first, then written over; nothing is
 * written past the prefix's longest.
 */
static bool ramtrail_text_prefix(struct ramtrail_line *l,
				 const struct ramtrail_record *r,
				 const char comm[RAMTRAIL_COMM_LEN],
				 const char *flags, u64 sec, u32 usec)
{
	/* A comm's 16 bytes are copied whole: so are these. */
	static const char unknown[RAMTRAIL_COMM_LEN] = "<unknown>";
	static const char idle[RAMTRAIL_COMM_LEN] = "<idle>";
	char *p = l->buf + l->pos, *start;
	unsigned int n;
	u32 pid = le32_to_cpu(r->task.pid);

	if (l->len - l->pos <= RAMTRAIL_TEXT_PREFIX_MAX || r->cpu > 999 ||
	    (r->task_known && pid > 9999999))
		return false;
	if (!r->task_known)
		comm = unknown;
	else if (!pid)
		comm = idle;
	/* "%16.16s": right-aligned; @p + 32 is within the prefix. */
	n = strnlen(comm, RAMTRAIL_COMM_LEN - 1);
	memset(p, ' ', 16);
	memcpy(p + 16 - n, comm, RAMTRAIL_COMM_LEN);
	p[16] = '-';
	/* "%-7d", then " [" */
	start = p + 17;
	memset(start, ' ', 7);
	if (r->task_known)
		ramtrail_put_digits(start, pid, ramtrail_dec_len(pid));
	else
		*start = '?';
	p = start + 7;
	memcpy(p, " [", 2);
	p = ramtrail_put_digits(p + 2, r->cpu, 3);
	*p++ = ']';
	*p++ = ' ';
	memcpy(p, flags, 5);
	p += 5;
	*p++ = ' ';
	/* "%5llu": right-aligned in 5 columns. */
	n = ramtrail_dec_len(sec);
	memset(p, ' ', 4);
	if (n < 5)
		p += 5 - n;
	p = ramtrail_put_digits(p, sec, n);
	*p++ = '.';
	p = ramtrail_put_digits(p, usec, 6);
	memcpy(p, ": ", 3);
	l->pos = p + 2 - l->buf;
	return true;
}

/* @s (at most @n bytes, up to a NUL), its unprintable bytes as '?'. */
static void ramtrail_put_printable(struct ramtrail_line *l, const char *s,
				   size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i] && l->pos + 1 < l->len; i++)
		l->buf[l->pos++] = ramtrail_text_byte(s[i]);
	l->buf[l->pos] = 0;
}

/* The "# trace:" line of file @file of part @part of @t's text. */
static void ramtrail_put_trace(struct ramtrail_line *l,
			       const struct ramtrail_saved_trace *t, u64 part,
			       u64 parts, u64 file)
{
	ramtrail_put(l, "# trace: nonce %016llx boot %llu part %llu of %llu file %llu\n",
		     (unsigned long long)le64_to_cpu(t->nonce),
		     (unsigned long long)le64_to_cpu(t->boot_id),
		     (unsigned long long)part + 1, (unsigned long long)parts,
		     (unsigned long long)file + 1);
}

/**
 * ramtrail_text_header() - the lines a file of a saved trace's text begins with
 * @buf: the lines, NUL included, cut if @len is short
 * @len: bytes at @buf; RAMTRAIL_TEXT_LINE_MAX is enough
 * @t: the saved trace
 * @part: the part whose text follows, from 0
 * @parts: the parts of the trace
 * @file: the file of the part's text they begin, from 0
 *
 * Comment lines, as ftrace's "trace" file begins with, that say which boot
 * the records come from and how it ended, for a reader of the text alone
 * (systemd-pstore's archive keeps no other file of it). A part's first
 * file begins with:
 *
 *   # ramtrail: boot B (RELEASE), saved trace, N CPUs, STATE[ by REASON on CPU C]
 *   # build: BUILD
 *   # trace: nonce NONCE boot B part P of Q file 1
 *   # records: R, lost L, damaged blocks D, torn T, without time W, left out S
 *
 * and each of its other files with its own "# trace:" line (file F), so
 * that a reader chains a part's files only: an archive keeps a file of an
 * older trace whose name the newer one did not take. NONCE (the recording
 * boot's, struct ramtrail_saved_trace) in 16 hex digits, P and F from 1;
 * unprintable bytes of the release and the build print as '?'. The tools
 * read these lines back (the crash command): their words are an interface.
 *
 * Return: the length of the lines.
 */
size_t ramtrail_text_header(char *buf, size_t len,
			    const struct ramtrail_saved_trace *t, u64 part,
			    u64 parts, u64 file)
{
	struct ramtrail_line l = { .buf = buf, .len = len };
	u32 state = le32_to_cpu(t->state);

	buf[0] = 0;
	if (file) {
		ramtrail_put_trace(&l, t, part, parts, file);
		return l.pos;
	}
	ramtrail_put(&l, "# ramtrail: boot %llu (",
		     (unsigned long long)le64_to_cpu(t->boot_id));
	ramtrail_put_printable(&l, t->release, sizeof(t->release));
	ramtrail_put(&l, "), saved trace, %u CPUs, %s", le32_to_cpu(t->nr_cpus),
		     ramtrail_state_name(state));
	if (state == RAMTRAIL_STATE_FROZEN)
		ramtrail_put(&l, " by %s on CPU %u",
			     ramtrail_reason_name(le32_to_cpu(t->freeze_reason)),
			     le32_to_cpu(t->freeze_cpu));
	ramtrail_put_str(&l, "\n# build: ", 10);
	ramtrail_put_printable(&l, t->build, sizeof(t->build));
	ramtrail_put_str(&l, "\n", 1);
	ramtrail_put_trace(&l, t, part, parts, 0);
	ramtrail_put(&l, "# records: %llu, lost %llu, damaged blocks %llu, ",
		     (unsigned long long)le64_to_cpu(t->nr_records),
		     (unsigned long long)le64_to_cpu(t->dropped),
		     (unsigned long long)le64_to_cpu(t->corrupt_blocks));
	ramtrail_put(&l, "torn %llu, without time %llu, left out %llu\n",
		     (unsigned long long)le64_to_cpu(t->torn),
		     (unsigned long long)le64_to_cpu(t->no_time),
		     (unsigned long long)le64_to_cpu(t->skipped));
	return l.pos;
}

/**
 * ramtrail_text_record() - the line ftrace's "trace" file prints
 * @buf: the line, newline and NUL included, cut if @len is short
 * @len: bytes at @buf, at least 1; RAMTRAIL_TEXT_LINE_MAX is enough
 * @r: the record
 * @ns: its time, nanoseconds
 * @tx: names of functions and tasks
 *
 * "<comm>-<pid> [CPU] <flags> <sec>.<usec>: <what>": the task as ftrace
 * prints it ("<idle>" for pid 0), "<unknown>-?" when the record's task is
 * unknown; the time rounded to the microsecond.
 *
 * Return: the length of the line.
 */
size_t ramtrail_text_record(char *buf, size_t len,
			    const struct ramtrail_record *r, u64 ns,
			    const struct ramtrail_text *tx)
{
	struct ramtrail_line l = { .buf = buf, .len = len };
	char flags[RAMTRAIL_TEXT_FLAGS_LEN], comm[RAMTRAIL_COMM_LEN];
	u32 usec;
	u64 sec;

	buf[0] = 0;
	ramtrail_text_flags(flags, r);
	ramtrail_text_clean(comm, r->task.comm, sizeof(comm));
	sec = div_u64_rem(ramtrail_text_usecs(ns), 1000000, &usec);
	if (!ramtrail_text_prefix(&l, r, comm, flags, sec, usec)) {
		if (!r->task_known)
			ramtrail_put(&l, "%16s-%-7s", "<unknown>", "?");
		else if (!r->task.pid)
			ramtrail_put(&l, "%16s-%-7d", "<idle>", 0);
		else
			ramtrail_put(&l, "%16s-%-7d", comm,
				     (int)le32_to_cpu(r->task.pid));
		ramtrail_put(&l, " [%03u] %s %5llu.%06u: ", r->cpu, flags,
			     (unsigned long long)sec, usec);
	}
	if (l.pos + 1 < l.len)
		l.pos += ramtrail_text_event(l.buf + l.pos, l.len - l.pos, r, tx);
	ramtrail_put_str(&l, "\n", 1);
	return l.pos;
}
