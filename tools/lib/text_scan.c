// SPDX-License-Identifier: GPL-2.0
/*
 * An event's line of text read back into its record: the inverse of the
 * TP_printk() formatters of text.c, one a kernel event, found through the
 * same table (ramtrail_event_desc()'s format.scan). The tools read a
 * saved trace's pstore text with it, whose events have no other copy.
 * What the text does not keep stays out of the payload: a function an
 * event names (work, timer) comes back by its name alone, a pointer as
 * the hash the kernel printed. Tools only: the module writes text and
 * never reads it.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "text.h"

/* The number of "%d" or "%u" at *@p (a u32, as the payload keeps it). */
static bool rt_scan_num(const char **p, u32 *v)
{
	const char *s = *p + (**p == '-');
	long long n;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	n = strtoll(*p, &end, 10);
	if (end - s > 10 || n < INT_MIN || n > U32_MAX)
		return false;
	*v = (u32)n;
	*p = end;
	return true;
}

/* The 16 hex digits of a pointer as "%p" or "%016llx" print it. */
static bool rt_scan_ptr(const char **p, __le64 *v)
{
	unsigned long long n;
	char *end;

	if (!isxdigit((unsigned char)**p))
		return false;
	n = strtoull(*p, &end, 16);
	if (end - *p > 16)
		return false;
	*v = cpu_to_le64(n);
	*p = end;
	return true;
}

/* @word at *@p, moved past it. */
static bool rt_scan_word(const char **p, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(*p, word, n))
		return false;
	*p += n;
	return true;
}

/* The last @word that starts in [@from, @to), or NULL. */
static const char *rt_scan_last(const char *from, const char *to,
				const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = to; p-- > from;)
		if (!strncmp(p, word, n))
			return p;
	return NULL;
}

/*
 * A task an event names, "<comm>" at [@from, @to) and its pid, into
 * @s->task: "<...>" names none.
 */
static bool rt_scan_task(struct ramtrail_text_scan *s, const char *from,
			 const char *to, u32 pid)
{
	struct ramtrail_ev_task *t = &s->task[s->nr_tasks];

	if (to - from >= RAMTRAIL_COMM_LEN)
		return false;
	if (to - from == 5 && !strncmp(from, "<...>", 5))
		return true;
	memset(t, 0, sizeof(*t));
	t->pid = cpu_to_le32(pid);
	t->tgid = t->pid;
	memcpy(t->comm, from, to - from);
	s->nr_tasks++;
	return true;
}

/* __trace_sched_switch_state()'s letters at [@p, @to), as the bits. */
static bool rt_scan_state(const char *p, const char *to, u32 *state)
{
	static const char letters[] = "SDTtXZPI";
	const char *c;

	*state = 0;
	if (to > p && to[-1] == '+') {
		*state = 0x100;
		to--;
	}
	if (to - p == 1 && *p == 'R')
		return true;
	for (; p < to; p += 2) {
		c = memchr(letters, *p, 8);
		if (!c || (p + 1 < to && p[1] != '|'))
			return false;
		*state |= 1U << (c - letters);
	}
	return *state & 0xff;
}

/*
 * " prev_pid=%d prev_prio=%d prev_state=%s" exactly at [@p, @to), the
 * prev comm at [@comm, @p).
 */
static bool rt_scan_prev(struct ramtrail_ev_switch *sw,
			 struct ramtrail_text_scan *s, const char *comm,
			 const char *p, const char *to)
{
	const char *end = p;
	u32 pid, prio, state;

	if (!rt_scan_word(&p, " prev_pid=") || !rt_scan_num(&p, &pid) ||
	    !rt_scan_word(&p, " prev_prio=") || !rt_scan_num(&p, &prio) ||
	    !rt_scan_word(&p, " prev_state=") || p >= to ||
	    !rt_scan_state(p, to, &state) || !rt_scan_task(s, comm, end, pid))
		return false;
	sw->prev_pid = cpu_to_le32(pid);
	sw->prev_prio = cpu_to_le32(prio);
	sw->prev_state = cpu_to_le32(state);
	return true;
}

/*
 * A comm may hold anything (prctl(PR_SET_NAME)), the numbers not: each
 * part is found from its right, where only numbers follow.
 */
bool ramtrail_scan_switch(struct ramtrail_record *r, const char *text,
			  struct ramtrail_text_scan *s)
{
	const char *end = text + strlen(text), *np = end, *p, *arrow, *pp;
	struct ramtrail_ev_switch sw;
	u32 pid, prio, k;

	if (strncmp(text, "prev_comm=", 10))
		return false;
	while ((np = rt_scan_last(text, np, " next_pid="))) {
		p = np + 10;
		if (rt_scan_num(&p, &pid) && rt_scan_word(&p, " next_prio=") &&
		    rt_scan_num(&p, &prio) && !*p)
			break;
	}
	for (k = 0; np && k < RAMTRAIL_COMM_LEN; k++) {
		arrow = np - k - 15;
		if (arrow < text + 10 || strncmp(arrow, " ==> next_comm=", 15))
			continue;
		s->nr_tasks = 0;
		for (pp = arrow; (pp = rt_scan_last(text + 10, pp, " prev_pid="));)
			if (rt_scan_prev(&sw, s, text + 10, pp, arrow))
				break;
		if (pp && rt_scan_task(s, arrow + 15, np, pid))
			break;
	}
	if (!np || k == RAMTRAIL_COMM_LEN)
		return false;
	sw.next_pid = cpu_to_le32(pid);
	sw.next_prio = cpu_to_le32(prio);
	memcpy(r->data, &sw, sizeof(sw));
	r->len = sizeof(sw);
	return true;
}

bool ramtrail_scan_wakeup(struct ramtrail_record *r, const char *text,
			  struct ramtrail_text_scan *s)
{
	const char *p, *end = text + strlen(text), *at = end;
	struct ramtrail_ev_wakeup w;
	u32 pid, prio, cpu;

	if (strncmp(text, "comm=", 5))
		return false;
	while ((at = rt_scan_last(text + 5, at, " pid="))) {
		p = at + 5;
		if (rt_scan_num(&p, &pid) && rt_scan_word(&p, " prio=") &&
		    rt_scan_num(&p, &prio) && rt_scan_word(&p, " target_cpu=") &&
		    rt_scan_num(&p, &cpu) && !*p)
			break;
	}
	if (!at || !rt_scan_task(s, text + 5, at, pid))
		return false;
	w.pid = cpu_to_le32(pid);
	w.prio = cpu_to_le32(prio);
	w.target_cpu = cpu_to_le32(cpu);
	memcpy(r->data, &w, sizeof(w));
	r->len = sizeof(w);
	return true;
}

/* The u32s of the payload, little-endian, @n of them. */
static void rt_scan_u32s(struct ramtrail_record *r, const u32 *v, u32 n)
{
	__le32 le;
	u32 i;

	for (i = 0; i < n; i++) {
		le = cpu_to_le32(v[i]);
		memcpy(r->data + 4 * i, &le, 4);
	}
	r->len = 4 * n;
}

bool ramtrail_scan_irq_entry(struct ramtrail_record *r, const char *text,
			     struct ramtrail_text_scan *s)
{
	const char *p = text;
	size_t n;
	u32 irq;

	if (!rt_scan_word(&p, "irq=") || !rt_scan_num(&p, &irq) ||
	    !rt_scan_word(&p, " name="))
		return false;
	n = strlen(p);
	if (n > RAMTRAIL_IRQ_NAME_LEN)
		return false;
	rt_scan_u32s(r, &irq, 1);
	memcpy(r->data + 4, p, n);
	r->len += n;
	return true;
}

bool ramtrail_scan_irq_exit(struct ramtrail_record *r, const char *text,
			    struct ramtrail_text_scan *s)
{
	const char *p = text;
	u32 v[2];

	if (!rt_scan_word(&p, "irq=") || !rt_scan_num(&p, &v[0]) ||
	    !rt_scan_word(&p, " ret="))
		return false;
	v[1] = !strcmp(p, "handled");
	if (!v[1] && strcmp(p, "unhandled"))
		return false;
	rt_scan_u32s(r, v, 2);
	return true;
}

bool ramtrail_scan_softirq(struct ramtrail_record *r, const char *text,
			   struct ramtrail_text_scan *s)
{
	const char *p = text;
	u32 vec;

	if (!rt_scan_word(&p, "vec=") || !rt_scan_num(&p, &vec) ||
	    !rt_scan_word(&p, " [action=") || !*p || p[strlen(p) - 1] != ']')
		return false;
	rt_scan_u32s(r, &vec, 1);
	return true;
}

/* The function an event names, by name: its offset is not in the text. */
static bool rt_scan_func(struct ramtrail_text_scan *s, const char *from,
			 const char *to)
{
	if (to <= from || to - from >= (long)sizeof(s->func))
		return false;
	memcpy(s->func, from, to - from);
	s->func[to - from] = 0;
	return true;
}

bool ramtrail_scan_work(struct ramtrail_record *r, const char *text,
			struct ramtrail_text_scan *s)
{
	struct ramtrail_ev_work w = { 0 };
	const char *p = text;

	if (!rt_scan_word(&p, "work struct ") || !rt_scan_ptr(&p, &w.work) ||
	    !rt_scan_word(&p, ": function ") || !rt_scan_func(s, p, p + strlen(p)))
		return false;
	memcpy(r->data, &w, sizeof(w));
	r->len = offsetof(struct ramtrail_ev_work, function) + 4;
	return true;
}

bool ramtrail_scan_timer_entry(struct ramtrail_record *r, const char *text,
			       struct ramtrail_text_scan *s)
{
	const char *p = text, *func, *at = text + strlen(text), *q;
	struct ramtrail_ev_timer tm = { 0 };
	unsigned long long now, base;
	int n = 0;

	if (!rt_scan_word(&p, "timer=") || !rt_scan_ptr(&p, &tm.timer) ||
	    !rt_scan_word(&p, " function="))
		return false;
	func = p;
	while ((at = rt_scan_last(func, at, " now="))) {
		q = at;
		if (sscanf(q, " now=%llu baseclk=%llu%n", &now, &base, &n) == 2 &&
		    !q[n] && isdigit((unsigned char)q[5]))
			break;
	}
	if (!at || !rt_scan_func(s, func, at))
		return false;
	tm.now = cpu_to_le64(now);
	tm.baseclk = cpu_to_le64(base);
	memcpy(r->data, &tm, sizeof(tm));
	r->len = offsetof(struct ramtrail_ev_timer, function) + 4;
	return true;
}

bool ramtrail_scan_timer_exit(struct ramtrail_record *r, const char *text,
			      struct ramtrail_text_scan *s)
{
	struct ramtrail_ev_timer tm;
	const char *p = text;

	if (!rt_scan_word(&p, "timer=") || !rt_scan_ptr(&p, &tm.timer) || *p)
		return false;
	memcpy(r->data, &tm.timer, 8);
	r->len = 8;
	return true;
}

/* A log line or a marker: its text is its payload. */
bool ramtrail_scan_line(struct ramtrail_record *r, const char *text,
			struct ramtrail_text_scan *s)
{
	size_t n = strlen(text);

	if (n > RAMTRAIL_EVENT_MAX_LEN)
		return false;
	memcpy(r->data, text, n);
	r->len = n;
	return true;
}

/* Any other event, "ramtrail_event: id=N len=N data=<hex>": its bytes. */
static bool rt_scan_bytes(struct ramtrail_record *r, const char *what)
{
	unsigned int id, len, i, b;
	int n = 0;

	if (sscanf(what, "ramtrail_event: id=%u len=%u data=%n", &id, &len,
		   &n) != 2 || !n || id > USHRT_MAX || len > RAMTRAIL_EVENT_MAX_LEN ||
	    strlen(what + n) != 2 * len)
		return false;
	for (i = 0; i < len; i++) {
		if (!isxdigit((unsigned char)what[n + 2 * i]) ||
		    !isxdigit((unsigned char)what[n + 2 * i + 1]) ||
		    sscanf(what + n + 2 * i, "%2x", &b) != 1)
			return false;
		r->data[i] = b;
	}
	r->id = id;
	r->len = len;
	return true;
}

/**
 * ramtrail_text_scan_event() - read an event's text back into its record
 * @r: its type, id, data and len are set; the rest is left alone
 * @what: what ramtrail_text_event() wrote, "sched_switch: prev_comm=..."
 * @s: what the text names besides the payload: the tasks, by pid and
 *	comm, and the function (work, timer), by name
 *
 * Return: false if @what is no event's text.
 */
bool ramtrail_text_scan_event(struct ramtrail_record *r, const char *what,
			      struct ramtrail_text_scan *s)
{
	const struct ramtrail_event_desc *d;
	const char *name;
	size_t n;
	u32 id;

	memset(s, 0, sizeof(*s));
	memset(r->data, 0, sizeof(r->data));
	r->type = RAMTRAIL_W_EVENT;
	for (id = 0; id < RAMTRAIL_EV_NR; id++) {
		d = ramtrail_event_desc(id);
		if (!d || !d->format.scan)
			continue;
		name = d->label ?: d->name;
		n = strlen(name);
		if (strncmp(what, name, n) || strncmp(what + n, ": ", 2))
			continue;
		r->id = id;
		return d->format.scan(r, what + n + 2, s) && r->len >= d->min_len;
	}
	return rt_scan_bytes(r, what);
}

