/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A decoded record as text: the line ftrace's "trace" file prints for it,
 *
 *   "<comm>-<pid> [CPU] <flags> <sec>.<usec>: <what>\n"
 *
 * with the event lines of the kernel's own TP_printk formats. Shared by the
 * module and tools/; plain C, no allocation: the caller gives the line
 * buffer and the memory of the pid -> comm table. The columns before
 * <what> are written without snprintf when they fit (a mount writes the
 * line of every record), the same bytes.
 */
#ifndef _RAMTRAIL_TEXT_H
#define _RAMTRAIL_TEXT_H

#include "chunk.h"

/* A line buffer this long holds any line, with names of up to 256 bytes. */
#define RAMTRAIL_TEXT_LINE_MAX	1024
/* ftrace's flags column ("dNh.."), NUL included */
#define RAMTRAIL_TEXT_FLAGS_LEN	6

/**
 * struct ramtrail_comm - a slot of the pid -> comm table
 * @pid: the task's pid, RAMTRAIL_PID_UNKNOWN for a free slot
 * @tgid: its process id
 * @comm: its command name, NUL-terminated
 */
struct ramtrail_comm {
	u32 pid;
	u32 tgid;
	char comm[RAMTRAIL_COMM_LEN];
};

/**
 * struct ramtrail_comms - the command names of the tasks a trace named
 * @slot: @nr slots, the caller's memory
 * @nr: slots; when the ones a pid may use are taken, a newer pid replaces
 *	an older one, whose comm then prints as unknown ("<...>")
 */
struct ramtrail_comms {
	struct ramtrail_comm *slot;
	u32 nr;
};

/* Which function ramtrail_text.name is asked to name. */
enum ramtrail_text_func {
	RAMTRAIL_TEXT_IP,	/* a function record's function */
	RAMTRAIL_TEXT_PARENT,	/* a function record's caller */
	RAMTRAIL_TEXT_ARG,	/* a function in an event (work, timer) */
};

/**
 * struct ramtrail_text - what printing a record needs besides the record
 * @comms: names of the other tasks an event mentions
 * @name: writes the name of the function at offset @off from the text
 *	base, in a record of counter time @ts (a module's init text may hold
 *	another module later), into @buf (@len bytes, NUL included, @len > 0)
 *	and returns the bytes it wrote before the NUL, as scnprintf() does
 * @arg: passed to @name
 */
struct ramtrail_text {
	struct ramtrail_comms comms;
	size_t (*name)(void *arg, char *buf, size_t len, u32 off, u64 ts,
		       enum ramtrail_text_func which);
	void *arg;
};

/* How the exporter fills a field of a kernel event's payload. */
enum ramtrail_field_kind {
	RAMTRAIL_FIELD_U32,	/* the u32 at @src, in @size bytes */
	RAMTRAIL_FIELD_RAW,	/* the @size bytes at @src */
	RAMTRAIL_FIELD_COMM,	/* the command name of the pid at @src */
	RAMTRAIL_FIELD_FUNC,	/* the address of the text offset at @src */
	RAMTRAIL_FIELD_STR,	/* __data_loc: the string from @src on */
	RAMTRAIL_FIELD_LINE,	/* the same, a final newline dropped */
	/* char[]: the bytes from @src on up to a NUL, no final newline */
	RAMTRAIL_FIELD_CSTR,
	RAMTRAIL_FIELD_LABEL,	/* the address of the function @label names */
};

/**
 * struct ramtrail_event_field - a field of a kernel event, as its format
 *	file in tracefs gives it, and where its value is in the payload
 * @decl: its declaration ("pid_t prev_pid")
 * @offset: its offset in the kernel's event
 * @size: its size there
 * @sign: it is signed
 * @kind: enum ramtrail_field_kind
 * @src: offset of its value in the record's payload
 */
struct ramtrail_event_field {
	const char *decl;
	u8 offset;
	u8 size;
	u8 sign;
	u8 kind;
	u8 src;
};

struct ramtrail_line;

/**
 * struct ramtrail_text_scan - what an event's text names besides its
 *	payload, for the tools that read it back (tools/lib/text_scan.c)
 * @task: the tasks it names by pid and comm (sched_switch's two, a
 *	wakeup's one)
 * @nr_tasks: entries of @task
 * @func: the function it names (work, timer), by name; "" if none
 */
struct ramtrail_text_scan {
	struct ramtrail_ev_task task[2];
	u32 nr_tasks;
	char func[128];
};

/**
 * struct ramtrail_event_desc - a kernel event ramtrail records
 * @system: its ftrace system ("sched")
 * @name: its tracepoint and event name ("sched_switch")
 * @min_len: the least payload of a record that stands for it
 * @text: writes the text of its TP_printk()
 * @format: its format file in tracefs, for the exporter (the module
 *	keeps none)
 * @format.print: the "print fmt" line
 * @format.fields: the fields after the common ones, ended by one without
 *	@decl
 * @format.scan: reads the text of its TP_printk() (after "name: ") back
 *	into a record's data and len, for the tools (tools/lib/text_scan.c); false if
 *	the text is not one it writes
 * @label: what its text line begins with, if not @name: ftrace's print
 *	event names the kernel function user space wrote through
 */
struct ramtrail_event_desc {
	const char *system;
	const char *name;
	u8 min_len;
	void (*text)(struct ramtrail_line *l, const struct ramtrail_record *r,
		     const struct ramtrail_text *tx);
	struct {
		const char *print;
		const struct ramtrail_event_field *fields;
		bool (*scan)(struct ramtrail_record *r, const char *text,
			     struct ramtrail_text_scan *s);
	} format;
	const char *label;
};

const struct ramtrail_event_desc *ramtrail_event_desc(u32 id);
void ramtrail_comms_init(struct ramtrail_comms *c, struct ramtrail_comm *slot,
			 u32 nr);
void ramtrail_comms_add(struct ramtrail_comms *c,
			const struct ramtrail_ev_task *task);
const char *ramtrail_comms_find(const struct ramtrail_comms *c, u32 pid);
const char *ramtrail_text_comm(const struct ramtrail_text *tx,
			       const struct ramtrail_record *r, u32 pid,
			       char buf[RAMTRAIL_COMM_LEN]);
size_t ramtrail_text_clean(char *dst, const void *src, size_t n);
const char *ramtrail_text_event_name(const struct ramtrail_record *r);
size_t ramtrail_text_module(char *buf, size_t len,
			    const struct ramtrail_module_entry *m, u64 addr);
void ramtrail_text_flags(char *flags, const struct ramtrail_record *r);
size_t ramtrail_text_event(char *buf, size_t len,
			   const struct ramtrail_record *r,
			   const struct ramtrail_text *tx);
size_t ramtrail_text_record(char *buf, size_t len,
			    const struct ramtrail_record *r, u64 ns,
			    const struct ramtrail_text *tx);
size_t ramtrail_text_header(char *buf, size_t len,
			    const struct ramtrail_saved_trace *t, u64 part,
			    u64 parts, u64 file);

#ifndef __KERNEL__
/* tools/lib/text_scan.c: the tools read an event's line back with these. */
bool ramtrail_text_scan_event(struct ramtrail_record *r, const char *what,
			      struct ramtrail_text_scan *s);
#define RAMTRAIL_SCAN_FN(name)						\
	bool ramtrail_scan_##name(struct ramtrail_record *r, const char *text, \
				  struct ramtrail_text_scan *s)
RAMTRAIL_SCAN_FN(switch);
RAMTRAIL_SCAN_FN(wakeup);
RAMTRAIL_SCAN_FN(irq_entry);
RAMTRAIL_SCAN_FN(irq_exit);
RAMTRAIL_SCAN_FN(softirq);
RAMTRAIL_SCAN_FN(work);
RAMTRAIL_SCAN_FN(timer_entry);
RAMTRAIL_SCAN_FN(timer_exit);
RAMTRAIL_SCAN_FN(line);
#endif

/* A time in ns as the text shows it: in microseconds, rounded, as ftrace. */
static inline u64 ramtrail_text_usecs(u64 ns)
{
	u32 rem;

	return div_u64_rem(ns + 500, 1000, &rem);
}

/*
 * Every CPU's idle task has pid 0: the table keeps each one's name
 * ("swapper/N") under a key no pid takes (pids stay below 2^22).
 */
#define RAMTRAIL_COMM_IDLE(cpu)	(0x80000000U | (cpu))

static inline bool ramtrail_comm_is_pid(u32 key)
{
	return key && key < RAMTRAIL_COMM_IDLE(0);
}

/* Note @task, which ran on @cpu, in @c. */
static inline void ramtrail_comms_add_task(struct ramtrail_comms *c,
					   const struct ramtrail_ev_task *task,
					   u32 cpu)
{
	struct ramtrail_ev_task idle = *task;

	if (task->pid)
		return ramtrail_comms_add(c, task);
	idle.pid = cpu_to_le32(RAMTRAIL_COMM_IDLE(cpu));
	ramtrail_comms_add(c, &idle);
}

/* Note the task of @r, if it is known, in @c. */
static inline void ramtrail_comms_add_record(struct ramtrail_comms *c,
					     const struct ramtrail_record *r)
{
	if (r->task_known)
		ramtrail_comms_add_task(c, &r->task, r->cpu);
}

#endif /* _RAMTRAIL_TEXT_H */
