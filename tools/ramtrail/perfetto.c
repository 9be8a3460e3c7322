// SPDX-License-Identifier: GPL-2.0
/*
 * ramtrail export --format perfetto: a trace as Perfetto's own protobuf
 * Trace (protos/perfetto/trace/trace_packet.proto and the ftrace protos),
 * hand-encoded: the few messages it needs.
 *
 * All packets are on one sequence (trusted_packet_sequence_id 1):
 *   1. system_info: "Linux", the traced kernel's release and machine
 *	(Perfetto reads sched_switch's prev_state by the kernel's version);
 *   2. process_tree: every task the trace names, each process with its
 *	comm as cmdline (Perfetto skips a process without one);
 *   3. interned_data.kernel_symbols, the sequence's state cleared: the
 *	names of the functions the records name, by iid;
 *   4. ftrace_events bundles, one CPU each, its events in time order.
 * Kernel events become their own ftrace messages (sched_switch fills the
 * CPU and thread state tracks, sched_waking the runnable states, irq and
 * softirq their CPU tracks). A function record becomes funcgraph_entry and
 * funcgraph_exit at its time: a zero-length slice on its thread's
 * Funcgraph track (an entry without exit would stay open, and every later
 * one nest in it). A marker becomes a print Perfetto reads as systrace's
 * ("I|tgid|text", a zero-length slice on its thread) unless it is one of
 * systrace's already. Timestamps are the trace's nanoseconds, which
 * Perfetto takes as its default clock. A record of an unknown task goes
 * to thread RT_PF_UNKNOWN, named "<unknown>".
 */
#include "ramtrail.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

#define RT_PF_UNKNOWN		0x7fffffffU	/* tid of unknown tasks */
#define RT_PF_BUNDLE_EVENTS	256		/* events in a bundle, about */
#define RT_PF_SEQ		1
/* The bytes a work or timer event stores: up to its function. */
#define RT_PF_WORK_LEN		(offsetof(struct ramtrail_ev_work, function) + 4)
#define RT_PF_TIMER_LEN		(offsetof(struct ramtrail_ev_timer, function) + 4)

/* Field numbers (perfetto_trace.proto), wire types 0 (varint), 2 (bytes) */
enum {
	PF_TRACE_PACKET = 1,
	PF_PKT_FTRACE_EVENTS = 1, PF_PKT_PROCESS_TREE = 2, PF_PKT_TIMESTAMP = 8,
	PF_PKT_SEQ_ID = 10, PF_PKT_INTERNED = 12, PF_PKT_SEQ_FLAGS = 13,
	PF_PKT_SYSTEM_INFO = 45,
	PF_SYSINFO_UTSNAME = 1,
	PF_UTS_SYSNAME = 1, PF_UTS_RELEASE = 3, PF_UTS_MACHINE = 4,
	PF_TREE_PROCESS = 1, PF_TREE_THREAD = 2,
	PF_PROC_PID = 1, PF_PROC_PPID = 2, PF_PROC_CMDLINE = 3,
	PF_PROC_CMDLINE_IS_COMM = 9,
	PF_THREAD_TID = 1, PF_THREAD_NAME = 2, PF_THREAD_TGID = 3,
	PF_INTERNED_KSYMS = 26, PF_ISTR_IID = 1, PF_ISTR_STR = 2,
	PF_BUNDLE_CPU = 1, PF_BUNDLE_EVENT = 2,
	PF_EV_TIMESTAMP = 1, PF_EV_PID = 2,
	PF_EV_PRINT = 3, PF_EV_SCHED_SWITCH = 4, PF_EV_SCHED_WAKEUP = 17,
	PF_EV_SCHED_WAKING = 20, PF_EV_SOFTIRQ_ENTRY = 24,
	PF_EV_SOFTIRQ_EXIT = 25, PF_EV_SOFTIRQ_RAISE = 26,
	PF_EV_IRQ_ENTRY = 36, PF_EV_IRQ_EXIT = 37, PF_EV_WORK_END = 57,
	PF_EV_WORK_START = 58, PF_EV_SCHED_WAKEUP_NEW = 114,
	PF_EV_CONSOLE = 408, PF_EV_FUNCGRAPH_ENTRY = 437,
	PF_EV_FUNCGRAPH_EXIT = 438, PF_EV_TIMER_ENTRY = 557,
	PF_EV_TIMER_EXIT = 558,
};

/* A message being encoded: bytes that grow. */
struct rt_pb {
	u8 *b;
	size_t len;
	size_t cap;
	bool oom;
};

static void rt_pb_put(struct rt_pb *p, const void *src, size_t n)
{
	u8 *b;

	if (p->oom || !n)	/* an empty message may have no bytes yet */
		return;
	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap : 256;

		while (cap < p->len + n)
			cap *= 2;
		b = realloc(p->b, cap);
		if (!b) {
			p->oom = true;
			return;
		}
		p->b = b;
		p->cap = cap;
	}
	memcpy(p->b + p->len, src, n);
	p->len += n;
}

static void rt_pb_varint(struct rt_pb *p, u64 v)
{
	u8 b[10];
	size_t n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		b[n++] |= v ? 0x80 : 0;
	} while (v);
	rt_pb_put(p, b, n);
}

/* Field @f as a varint (an int32's negative value takes ten bytes). */
static void rt_pb_u(struct rt_pb *p, u32 f, u64 v)
{
	rt_pb_varint(p, (u64)f << 3);
	rt_pb_varint(p, v);
}

static void rt_pb_i32(struct rt_pb *p, u32 f, u32 v)
{
	rt_pb_u(p, f, (u64)(s64)(int)v);
}

static void rt_pb_bytes(struct rt_pb *p, u32 f, const void *s, size_t n)
{
	rt_pb_varint(p, (u64)f << 3 | 2);
	rt_pb_varint(p, n);
	rt_pb_put(p, s, n);
}

static void rt_pb_str(struct rt_pb *p, u32 f, const char *s)
{
	rt_pb_bytes(p, f, s, strlen(s));
}

/* @sub as field @f of @p; @sub is emptied for the next message. */
static void rt_pb_msg(struct rt_pb *p, u32 f, struct rt_pb *sub)
{
	rt_pb_bytes(p, f, sub->b, sub->len);
	p->oom |= sub->oom;
	sub->len = 0;
	sub->oom = false;
}

/*
 * The export's state: the output, scratch messages, each CPU's bundle
 * being filled, and the interned function names.
 */
struct rt_pf {
	FILE *out;
	struct rt_pb pkt, msg, ev, wrap;
	struct rt_pb *bundle;		/* per CPU: cpu, then its events */
	u32 *nr;			/* events in each CPU's bundle */
	char **names;			/* hash table of interned names */
	u64 *iids;
	size_t cap, nr_names;
	bool oom;
};

static u32 rt_pf_hash(const char *s)
{
	u32 h = 2166136261U;

	while (*s)
		h = (h ^ (u8)*s++) * 16777619U;
	return h;
}

/* The slot of @name in the table: its own, or the free one it would take. */
static size_t rt_pf_slot(const struct rt_pf *pf, const char *name)
{
	size_t i = rt_pf_hash(name) & (pf->cap - 1);

	while (pf->names[i] && strcmp(pf->names[i], name))
		i = (i + 1) & (pf->cap - 1);
	return i;
}

static bool rt_pf_grow(struct rt_pf *pf)
{
	size_t cap = pf->cap ? pf->cap * 2 : 1024, old = pf->cap, i, k;
	char **names = calloc(cap, sizeof(*names)), **was = pf->names;
	u64 *iids = calloc(cap, sizeof(*iids)), *wiids = pf->iids;

	if (!names || !iids) {
		free(names);
		free(iids);
		return false;
	}
	pf->names = names;
	pf->iids = iids;
	pf->cap = cap;
	for (i = 0; i < old; i++) {
		if (!was[i])
			continue;
		k = rt_pf_slot(pf, was[i]);
		names[k] = was[i];
		iids[k] = wiids[i];
	}
	free(was);
	free(wiids);
	return true;
}

/* The iid of function name @name, interned if new; 0 when out of memory. */
static u64 rt_pf_intern(struct rt_pf *pf, const char *name)
{
	size_t i;

	if ((pf->nr_names + 1) * 2 > pf->cap && !rt_pf_grow(pf)) {
		pf->oom = true;
		return 0;
	}
	i = rt_pf_slot(pf, name);
	if (!pf->names[i]) {
		pf->names[i] = strdup(name);
		if (!pf->names[i]) {
			pf->oom = true;
			return 0;
		}
		pf->iids[i] = ++pf->nr_names;
	}
	return pf->iids[i];
}

/* @pkt as a packet of the sequence, written out; @pkt is emptied. */
static void rt_pf_packet(struct rt_pf *pf)
{
	rt_pb_u(&pf->pkt, PF_PKT_SEQ_ID, RT_PF_SEQ);
	rt_pb_msg(&pf->wrap, PF_TRACE_PACKET, &pf->pkt);
	if (pf->wrap.oom)
		pf->oom = true;
	else
		fwrite(pf->wrap.b, 1, pf->wrap.len, pf->out);
	pf->wrap.len = 0;
	pf->wrap.oom = false;
}

/* A CPU's bundle, if it holds events, as a packet. */
static void rt_pf_flush(struct rt_pf *pf, u32 cpu)
{
	if (!pf->nr[cpu])
		return;
	rt_pb_msg(&pf->pkt, PF_PKT_FTRACE_EVENTS, &pf->bundle[cpu]);
	rt_pf_packet(pf);
	pf->nr[cpu] = 0;
}

/* @pf->msg as event @field of @r's task at @r's time, in its CPU's bundle. */
static void rt_pf_event(struct rt_pf *pf, const struct rt_rec *r, u32 field)
{
	struct rt_pb *b = &pf->bundle[r->cpu];

	rt_pb_u(&pf->ev, PF_EV_TIMESTAMP, r->ns);
	rt_pb_u(&pf->ev, PF_EV_PID, r->task_known ? r->pid : RT_PF_UNKNOWN);
	rt_pb_msg(&pf->ev, field, &pf->msg);
	if (!pf->nr[r->cpu])
		rt_pb_u(b, PF_BUNDLE_CPU, r->cpu);	/* always, even 0 */
	rt_pb_msg(b, PF_BUNDLE_EVENT, &pf->ev);
	pf->nr[r->cpu]++;
}

/* The name of function offset @off (its record's, or an event's argument). */
static u64 rt_pf_func(struct rt_pf *pf, struct rt_text *x, u32 off, u64 ts,
		      enum ramtrail_text_func which)
{
	char name[RT_SYM_LEN];

	x->tx.name(x->tx.arg, name, sizeof(name), off, ts, which);
	return rt_pf_intern(pf, name);
}

/*
 * A string field of at most @max bytes at @p: up to a NUL, a final
 * newline dropped.
 */
static void rt_pf_text(struct rt_pb *m, u32 f, const u8 *p, size_t max)
{
	size_t n = strnlen((const char *)p, max);

	if (n && p[n - 1] == '\n')
		n--;
	rt_pb_bytes(m, f, p, n);
}

/*
 * A marker as systrace text: as it is if it is systrace's ("B|...",
 * "I|...", ...), else an instant of its task, "I|tgid|text", '|' in the
 * text as '/'. Another event (no kernel event's) likewise, "event ID"
 * and its bytes in hex.
 */
static void rt_pf_print(struct rt_pf *pf, const struct rt_rec *r,
			const struct ramtrail_record *z, bool marker)
{
	char buf[64 + 2 * RAMTRAIL_EVENT_MAX_LEN];
	size_t n = 0, i, len = strnlen((const char *)z->data, z->len);

	if (marker && len && z->data[len - 1] == '\n')
		len--;
	if (marker && len >= 2 && z->data[1] == '|' &&
	    strchr("BEICSFNGH", z->data[0])) {
		rt_pb_bytes(&pf->msg, 2, z->data, len);
	} else {
		n = snprintf(buf, sizeof(buf), "I|%u|",
			     r->task_known ? r->tgid : RT_PF_UNKNOWN);
		if (marker) {
			for (i = 0; i < len; i++)
				buf[n++] = z->data[i] == '|' ? '/' : z->data[i];
		} else {
			n += snprintf(buf + n, sizeof(buf) - n, "event %u ",
				      z->id);
			for (i = 0; i < z->len; i++)
				n += snprintf(buf + n, sizeof(buf) - n, "%02x",
					      z->data[i]);
		}
		rt_pb_bytes(&pf->msg, 2, buf, n);
	}
	rt_pf_event(pf, r, PF_EV_PRINT);
}

static void rt_pf_wakeup(struct rt_pf *pf, struct rt_text *x,
			 const struct rt_rec *r,
			 const struct ramtrail_record *z, u32 field)
{
	struct ramtrail_ev_wakeup w;
	char comm[RAMTRAIL_COMM_LEN];
	u32 pid;

	memcpy(&w, z->data, sizeof(w));
	pid = le32_to_cpu(w.pid);
	rt_pb_str(&pf->msg, 1, ramtrail_text_comm(&x->tx, z, pid, comm));
	rt_pb_i32(&pf->msg, 2, pid);
	rt_pb_i32(&pf->msg, 3, le32_to_cpu(w.prio));
	rt_pb_i32(&pf->msg, 4, 1);		/* success */
	rt_pb_i32(&pf->msg, 5, le32_to_cpu(w.target_cpu));
	rt_pf_event(pf, r, field);
}

/* A kernel event (its payload long enough for its kind) as its message. */
static void rt_pf_kernel(struct rt_pf *pf, struct rt_text *x,
			 const struct rt_rec *r,
			 const struct ramtrail_record *z)
{
	struct ramtrail_ev_switch sw;
	char comm[RAMTRAIL_COMM_LEN];
	struct ramtrail_ev_timer tm;
	struct ramtrail_ev_work wo;
	u32 v[2];
	u64 iid;

	memcpy(v, z->data, sizeof(v));
	switch (z->id) {
	case RAMTRAIL_EV_PRINTK:
		rt_pf_text(&pf->msg, 1, z->data, z->len);
		return rt_pf_event(pf, r, PF_EV_CONSOLE);
	case RAMTRAIL_EV_MARKER:
		return rt_pf_print(pf, r, z, true);
	case RAMTRAIL_EV_SCHED_SWITCH:
		memcpy(&sw, z->data, sizeof(sw));
		v[0] = le32_to_cpu(sw.prev_pid);
		v[1] = le32_to_cpu(sw.next_pid);
		rt_pb_str(&pf->msg, 1, ramtrail_text_comm(&x->tx, z, v[0], comm));
		rt_pb_i32(&pf->msg, 2, v[0]);
		rt_pb_i32(&pf->msg, 3, le32_to_cpu(sw.prev_prio));
		rt_pb_u(&pf->msg, 4, le32_to_cpu(sw.prev_state));
		rt_pb_str(&pf->msg, 5, ramtrail_text_comm(&x->tx, z, v[1], comm));
		rt_pb_i32(&pf->msg, 6, v[1]);
		rt_pb_i32(&pf->msg, 7, le32_to_cpu(sw.next_prio));
		return rt_pf_event(pf, r, PF_EV_SCHED_SWITCH);
	case RAMTRAIL_EV_SCHED_WAKEUP:
		return rt_pf_wakeup(pf, x, r, z, PF_EV_SCHED_WAKEUP);
	case RAMTRAIL_EV_SCHED_WAKING:
		return rt_pf_wakeup(pf, x, r, z, PF_EV_SCHED_WAKING);
	case RAMTRAIL_EV_SCHED_WAKEUP_NEW:
		return rt_pf_wakeup(pf, x, r, z, PF_EV_SCHED_WAKEUP_NEW);
	case RAMTRAIL_EV_IRQ_ENTRY:
		rt_pb_i32(&pf->msg, 1, le32_to_cpu(v[0]));
		rt_pf_text(&pf->msg, 2, z->data + 4, z->len - 4);
		return rt_pf_event(pf, r, PF_EV_IRQ_ENTRY);
	case RAMTRAIL_EV_IRQ_EXIT:
		rt_pb_i32(&pf->msg, 1, le32_to_cpu(v[0]));
		rt_pb_i32(&pf->msg, 2, le32_to_cpu(v[1]));
		return rt_pf_event(pf, r, PF_EV_IRQ_EXIT);
	case RAMTRAIL_EV_SOFTIRQ_ENTRY:
	case RAMTRAIL_EV_SOFTIRQ_EXIT:
	case RAMTRAIL_EV_SOFTIRQ_RAISE:
		rt_pb_u(&pf->msg, 1, le32_to_cpu(v[0]));
		return rt_pf_event(pf, r, PF_EV_SOFTIRQ_ENTRY + z->id -
				   RAMTRAIL_EV_SOFTIRQ_ENTRY);
	case RAMTRAIL_EV_WORK_START:
	case RAMTRAIL_EV_WORK_END:
		memcpy(&wo, z->data, RT_PF_WORK_LEN);
		rt_pb_u(&pf->msg, 1, le64_to_cpu(wo.work));
		iid = rt_pf_func(pf, x, le32_to_cpu(wo.function), z->ts,
				 RAMTRAIL_TEXT_ARG);
		rt_pb_u(&pf->msg, 2, iid);
		return rt_pf_event(pf, r, z->id == RAMTRAIL_EV_WORK_START ?
				   PF_EV_WORK_START : PF_EV_WORK_END);
	case RAMTRAIL_EV_TIMER_ENTRY:
		memcpy(&tm, z->data, RT_PF_TIMER_LEN);
		rt_pb_u(&pf->msg, 1, le64_to_cpu(tm.timer));
		rt_pb_u(&pf->msg, 2, le64_to_cpu(tm.now));
		rt_pb_u(&pf->msg, 3, x->t->text_base +
				     le32_to_cpu(tm.function));
		rt_pb_u(&pf->msg, 4, le64_to_cpu(tm.baseclk));
		return rt_pf_event(pf, r, PF_EV_TIMER_ENTRY);
	case RAMTRAIL_EV_TIMER_EXIT:
		memcpy(&tm.timer, z->data, 8);
		rt_pb_u(&pf->msg, 1, le64_to_cpu(tm.timer));
		return rt_pf_event(pf, r, PF_EV_TIMER_EXIT);
	}
}

/* The function a work event names, if @z is one, interned. */
static void rt_pf_work_func(struct rt_pf *pf, struct rt_text *x,
			    const struct ramtrail_record *z)
{
	struct ramtrail_ev_work wo;

	if ((z->id != RAMTRAIL_EV_WORK_START && z->id != RAMTRAIL_EV_WORK_END) ||
	    !ramtrail_text_event_name(z))
		return;
	memcpy(&wo, z->data, RT_PF_WORK_LEN);
	rt_pf_func(pf, x, le32_to_cpu(wo.function), z->ts, RAMTRAIL_TEXT_ARG);
}

/* A record's events: a function's entry and exit, an event's message. */
static void rt_pf_record(struct rt_pf *pf, struct rt_text *x,
			 const struct rt_rec *r,
			 const struct ramtrail_record *z)
{
	u64 iid;

	if (r->type == RAMTRAIL_W_EVENT) {
		if (ramtrail_text_event_name(z))
			rt_pf_kernel(pf, x, r, z);
		else
			rt_pf_print(pf, r, z, false);
		return;
	}
	iid = rt_pf_func(pf, x, z->ip, z->ts, RAMTRAIL_TEXT_IP);
	rt_pb_u(&pf->msg, 1, 0);			/* depth */
	rt_pb_u(&pf->msg, 2, iid);
	rt_pf_event(pf, r, PF_EV_FUNCGRAPH_ENTRY);
	rt_pb_u(&pf->msg, 1, r->ns);			/* calltime */
	rt_pb_u(&pf->msg, 2, 0);
	rt_pb_u(&pf->msg, 3, iid);
	rt_pb_u(&pf->msg, 5, r->ns);			/* rettime */
	rt_pf_event(pf, r, PF_EV_FUNCGRAPH_EXIT);
}

static int rt_pf_u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* The command name of a process: its main thread's, else a thread's. */
static const char *rt_pf_process_name(const struct ramtrail_comms *c,
				      u32 tgid)
{
	const char *name = ramtrail_comms_find(c, tgid);
	u32 i;

	if (name)
		return name;
	for (i = 0; i < c->nr; i++)
		if (ramtrail_comm_is_pid(c->slot[i].pid) &&
		    c->slot[i].tgid == tgid)
			return c->slot[i].comm;
	return "?";
}

/*
 * The tasks the trace names: each process (its comm as its cmdline) and
 * each thread, and the unknown task's if @unknown.
 */
static void rt_pf_tasks(struct rt_pf *pf, const struct ramtrail_comms *c,
			u64 first_ns, bool unknown)
{
	struct rt_pb tree = { 0 };
	u32 *tgids = calloc(c->nr + 1, sizeof(*tgids)), n = 0, i;

	if (!tgids) {
		pf->oom = true;
		return;
	}
	for (i = 0; i < c->nr; i++) {
		const struct ramtrail_comm *p = &c->slot[i];

		if (!ramtrail_comm_is_pid(p->pid))
			continue;	/* the idle tasks: Perfetto's own */
		tgids[n++] = p->tgid;
		rt_pb_i32(&pf->msg, PF_THREAD_TID, p->pid);
		rt_pb_str(&pf->msg, PF_THREAD_NAME, p->comm);
		rt_pb_i32(&pf->msg, PF_THREAD_TGID, p->tgid);
		rt_pb_msg(&tree, PF_TREE_THREAD, &pf->msg);
	}
	qsort(tgids, n, sizeof(*tgids), rt_pf_u32_cmp);
	for (i = 0; i < n; i++) {
		if (i && tgids[i] == tgids[i - 1])
			continue;
		rt_pb_i32(&pf->msg, PF_PROC_PID, tgids[i]);
		rt_pb_str(&pf->msg, PF_PROC_CMDLINE,
			  rt_pf_process_name(c, tgids[i]));
		rt_pb_u(&pf->msg, PF_PROC_CMDLINE_IS_COMM, 1);
		rt_pb_msg(&tree, PF_TREE_PROCESS, &pf->msg);
	}
	if (unknown) {
		rt_pb_i32(&pf->msg, PF_PROC_PID, RT_PF_UNKNOWN);
		rt_pb_str(&pf->msg, PF_PROC_CMDLINE, "<unknown>");
		rt_pb_u(&pf->msg, PF_PROC_CMDLINE_IS_COMM, 1);
		rt_pb_msg(&tree, PF_TREE_PROCESS, &pf->msg);
		rt_pb_i32(&pf->msg, PF_THREAD_TID, RT_PF_UNKNOWN);
		rt_pb_str(&pf->msg, PF_THREAD_NAME, "<unknown>");
		rt_pb_i32(&pf->msg, PF_THREAD_TGID, RT_PF_UNKNOWN);
		rt_pb_msg(&tree, PF_TREE_THREAD, &pf->msg);
	}
	free(tgids);
	rt_pb_u(&pf->pkt, PF_PKT_TIMESTAMP, first_ns);
	rt_pb_msg(&pf->pkt, PF_PKT_PROCESS_TREE, &tree);
	free(tree.b);
	rt_pf_packet(pf);
}

/* The kernel that wrote the trace, as uname(2) would say it. */
static void rt_pf_system(struct rt_pf *pf, const struct rt_trace *t)
{
	rt_pb_str(&pf->ev, PF_UTS_SYSNAME, "Linux");
	if (t->release[0])
		rt_pb_str(&pf->ev, PF_UTS_RELEASE, t->release);
	if (t->kind != RT_PSTORE)
		rt_pb_str(&pf->ev, PF_UTS_MACHINE,
			  rt_machine_name(le32_to_cpu(t->reg.hdr.machine)));
	rt_pb_msg(&pf->msg, PF_SYSINFO_UTSNAME, &pf->ev);
	rt_pb_msg(&pf->pkt, PF_PKT_SYSTEM_INFO, &pf->msg);
	rt_pf_packet(pf);
}

/* The interned names, by iid; the sequence's state starts with them. */
static void rt_pf_symbols(struct rt_pf *pf)
{
	size_t i;

	for (i = 0; i < pf->cap; i++) {
		if (!pf->names[i])
			continue;
		rt_pb_u(&pf->ev, PF_ISTR_IID, pf->iids[i]);
		rt_pb_str(&pf->ev, PF_ISTR_STR, pf->names[i]);
		rt_pb_msg(&pf->msg, PF_INTERNED_KSYMS, &pf->ev);
	}
	rt_pb_msg(&pf->pkt, PF_PKT_INTERNED, &pf->msg);
	rt_pb_u(&pf->pkt, PF_PKT_SEQ_FLAGS, 1);	/* incremental state cleared */
	rt_pf_packet(pf);
}

static void rt_pf_free(struct rt_pf *pf, u32 nr_cpus)
{
	size_t i;

	for (i = 0; i < nr_cpus && pf->bundle; i++)
		free(pf->bundle[i].b);
	for (i = 0; i < pf->cap; i++)
		free(pf->names[i]);
	free(pf->names);
	free(pf->iids);
	free(pf->bundle);
	free(pf->nr);
	free(pf->pkt.b);
	free(pf->msg.b);
	free(pf->ev.b);
	free(pf->wrap.b);
}

/**
 * rt_export_perfetto() - write a trace as a Perfetto protobuf trace
 * @t: the trace, read from its start
 * @s: symbols bound for the trace (they name the functions)
 * @out: the file
 *
 * Return: records written, or -1 on a write or memory error.
 */
int rt_export_perfetto(struct rt_trace *t, const struct rt_symbols *s,
		       FILE *out)
{
	u32 i, nr_cpus = t->nr_cpus ? t->nr_cpus : 1;
	struct rt_pf pf = { .out = out };
	struct ramtrail_record z;
	u64 first_ns = 0;
	bool unknown = false;
	struct rt_text x;
	struct rt_rec r;
	int n = 0;

	pf.bundle = calloc(nr_cpus, sizeof(*pf.bundle));
	pf.nr = calloc(nr_cpus, sizeof(*pf.nr));
	if (!pf.bundle || !pf.nr || !rt_pf_grow(&pf))
		goto out;
	/* First the names and tasks, which come before the events. */
	rt_text_init(&x, t, s, false);
	while (rt_trace_next(t, &r)) {
		if (!n++)
			first_ns = r.ns;
		unknown |= !r.task_known;
		rt_text_record(&x, &r, &z);
		if (r.type != RAMTRAIL_W_EVENT)
			rt_pf_func(&pf, &x, z.ip, z.ts, RAMTRAIL_TEXT_IP);
		else
			rt_pf_work_func(&pf, &x, &z);
	}
	rt_pf_system(&pf, t);
	rt_pf_tasks(&pf, &x.tx.comms, first_ns, unknown);
	rt_pf_symbols(&pf);
	rt_trace_rewind(t);
	n = 0;
	while (rt_trace_next(t, &r) && !pf.oom) {
		if (r.cpu >= nr_cpus)
			continue;
		rt_text_record(&x, &r, &z);
		rt_pf_record(&pf, &x, &r, &z);
		/* A function's entry and exit stay in one bundle. */
		if (pf.nr[r.cpu] >= RT_PF_BUNDLE_EVENTS)
			rt_pf_flush(&pf, r.cpu);
		n++;
	}
	for (i = 0; i < nr_cpus; i++)
		rt_pf_flush(&pf, i);
out:
	if (!pf.bundle || !pf.nr || pf.oom) {
		rt_err("out of memory\n");
		n = -1;
	}
	rt_pf_free(&pf, nr_cpus);
	return ferror(out) ? -1 : n;
}
