// SPDX-License-Identifier: GPL-2.0
/*
 * Printing a trace: ftrace's text format (the "trace" file of the function
 * tracer), the Chrome trace-event JSON that Perfetto's UI opens, and the
 * statistics of a region.
 */
#include <stdlib.h>
#include <string.h>
#include "ramtrail.h"

/* "name+0x12/0x40 [mod]" -> "name [mod]": pstore prints callers with %pS. */
static const char *rt_strip_offset(const char *sym, char *buf, size_t len)
{
	const char *plus = strstr(sym, "+0x");
	const char *mod;

	if (!plus || sym[0] == '[')
		return sym;
	mod = strchr(plus, ' ');
	snprintf(buf, len, "%.*s%s", (int)(plus - sym), sym, mod ? mod : "");
	return buf;
}

/*
 * Names from symbols, each address's looked up once a trace: its records
 * name the same few thousand functions over and over. A slot holds the
 * whole of what rt_symbolize() writes; it is of this trace if its @gen is
 * rt_names_gen, which rt_text_init() moves on (the table is not cleared:
 * a fuzzer decodes many traces in one process).
 */
struct rt_name_slot {
	u64 addr;
	u32 gen;
	u32 len;
	bool offset;
	char name[RT_SYM_LEN];
};

static struct rt_name_slot rt_names[1 << 14];
static u32 rt_names_gen;

/*
 * rt_symbolize()'s name of @addr in a record of time @ts, its length in
 * *@len. A name that depends on the time is not kept: it is rare (a
 * module's init text that a later module took) and takes @buf.
 */
static const char *rt_symbol(struct rt_trace *t, const struct rt_symbols *s,
			     u64 addr, u64 ts, bool offset, size_t *len,
			     char *buf)
{
	struct rt_name_slot *e =
		&rt_names[(addr * 0x9e3779b97f4a7c15ULL) >> 50];
	bool timed;

	if (e->gen != rt_names_gen || e->addr != addr || e->offset != offset) {
		rt_symbolize(s, t, addr, ts, offset, buf, RT_SYM_LEN, &timed);
		*len = strlen(buf);
		if (timed)
			return buf;
		memcpy(e->name, buf, *len + 1);
		e->len = *len;
		e->addr = addr;
		e->offset = offset;
		e->gen = rt_names_gen;
	}
	*len = e->len;
	return e->name;
}

/* The name to print for @addr, from the input itself or from symbols. */
static const char *rt_name(struct rt_trace *t, const struct rt_symbols *s,
			   u64 addr, u64 ts, const char *given, bool offset,
			   char *buf)
{
	const char *name;
	size_t n;

	if (given)
		return offset ? given : rt_strip_offset(given, buf, RT_SYM_LEN);
	name = rt_symbol(t, s, addr, ts, offset, &n, buf);
	if (name != buf)
		memcpy(buf, name, n + 1);
	return buf;
}

static void rt_print_origin(struct rt_trace *t, FILE *out, const char *lead)
{
	if (t->kind == RT_PSTORE && !t->header.nr_parts) {
		fprintf(out, "%s ramtrail: pstore file, %u CPUs\n", lead,
			t->nr_cpus);
		return;
	}
	fprintf(out, "%s ramtrail: boot %llu (%s), %s, %u CPUs, %s", lead,
		(unsigned long long)t->boot_id, t->release,
		t->kind == RT_ZONES ? "zones" : t->kind == RT_SAVED ?
		"saved trace" : "pstore files", t->nr_cpus,
		ramtrail_state_name(t->state));
	if (t->freeze_reason)
		fprintf(out, " by %s on CPU %u",
			ramtrail_reason_name(t->freeze_reason), t->freeze_cpu);
	fputc('\n', out);
	if (t->kind != RT_PSTORE && !(t->flags & RAMTRAIL_F_CLOCK_RELIABLE))
		fprintf(out, "%s ramtrail: %s: %s\n", lead,
			"counter not synchronised across CPUs",
			"cross-CPU order is approximate");
}

static void rt_hex(FILE *out, const u8 *p, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		fprintf(out, "%02x", p[i]);
}

/* The command names of a trace's tasks; slots for a busy machine's pids. */
static struct ramtrail_comm rt_comm_slots[32768];

/* fs/ramtrail/text.h's callback: names from the input or the symbols. */
static size_t rt_text_name(void *arg, char *buf, size_t len, u32 off,
			   u64 ts, enum ramtrail_text_func which)
{
	const struct rt_text *x = arg;
	const struct rt_rec *r = x->r;
	/* an event's function prints as %ps: no offset */
	u64 addr = x->t->text_base + off;
	const char *given = NULL, *name;
	bool offset = false;
	char tmp[RT_SYM_LEN];
	size_t n;

	if (which == RAMTRAIL_TEXT_IP) {
		addr = r->ip;
		given = r->ip_sym;
		offset = x->sym_offset;
	} else if (which == RAMTRAIL_TEXT_PARENT) {
		addr = r->parent;
		given = r->parent_sym;
		offset = x->sym_offset;
	} else {
		given = r->ip_sym;	/* an event read from text names it */
	}
	if (given) {
		name = rt_name(x->t, x->s, addr, ts, given, offset, tmp);
		n = strlen(name);
	} else {
		name = rt_symbol(x->t, x->s, addr, ts, offset, &n, tmp);
	}
	if (n >= len)
		n = len - 1;
	memcpy(buf, name, n);
	buf[n] = 0;
	return n;
}

/**
 * rt_text_init() - print a trace's records with fs/ramtrail/text.c
 * @x: set up
 * @t: the trace; read once for its tasks' names, then rewound
 * @s: symbols (may be empty)
 * @sym_offset: function records' names with "+0xoff/0xsize"
 *
 * An event names other tasks by pid (sched_switch's next task): their
 * names come from the task records of the whole trace.
 */
void rt_text_init(struct rt_text *x, struct rt_trace *t,
		  const struct rt_symbols *s, bool sym_offset)
{
	struct ramtrail_ev_task task;
	struct rt_rec r;
	u32 i;

	memset(x, 0, sizeof(*x));
	/* Slots of the earlier traces are empty to this one; 0 is no trace's. */
	if (!++rt_names_gen) {
		memset(rt_names, 0, sizeof(rt_names));
		rt_names_gen = 1;
	}
	x->t = t;
	x->s = s;
	x->sym_offset = sym_offset;
	x->tx.name = rt_text_name;
	x->tx.arg = x;
	ramtrail_comms_init(&x->tx.comms, rt_comm_slots,
			    ARRAY_SIZE(rt_comm_slots));
	rt_trace_rewind(t);
	while (rt_trace_next(t, &r)) {
		/* An event read from text names tasks no record may run. */
		for (i = 0; i < r.nr_named; i++)
			ramtrail_comms_add_task(&x->tx.comms, &r.named[i], r.cpu);
		if (!r.task_known)
			continue;
		task.pid = cpu_to_le32(le32_to_cpu(r.pid));
		task.tgid = cpu_to_le32(le32_to_cpu(r.tgid));
		memcpy(task.comm, r.comm, sizeof(task.comm));
		ramtrail_comms_add_task(&x->tx.comms, &task, r.cpu);
	}
	rt_trace_rewind(t);
}

/**
 * rt_text_record() - a tool's record as the shared text code takes it
 * @x: from rt_text_init(); remembers @r for the names of its functions
 * @r: the record
 * @z: filled
 */
void rt_text_record(struct rt_text *x, const struct rt_rec *r,
		    struct ramtrail_record *z)
{
	memset(z, 0, sizeof(*z));
	x->r = r;
	z->ts = r->ts;	/* for the names, as the trace keeps it */
	z->cpu = r->cpu;
	z->type = r->type == RAMTRAIL_W_EVENT ? RAMTRAIL_W_EVENT :
		  r->parent ? RAMTRAIL_W_FUNC_PARENT : RAMTRAIL_W_FUNC;
	z->len = r->len;
	z->id = r->id;
	z->ctx = r->ctx;
	z->flags = r->flags;
	z->task_known = r->task_known;
	z->task.pid = cpu_to_le32(le32_to_cpu(r->pid));
	z->task.tgid = cpu_to_le32(le32_to_cpu(r->tgid));
	memcpy(z->task.comm, r->comm, RAMTRAIL_COMM_LEN);
	/* Only the name callback reads these, and it takes @r's own. */
	z->ip = r->ip - x->t->text_base;
	z->parent = r->parent - x->t->text_base;
	if (r->len)
		memcpy(z->data, r->data, r->len);
}

/**
 * rt_print_ftrace() - print a trace as ftrace's "trace" file does
 * @t: the trace, read from its start
 * @s: symbols (may be empty)
 * @sym_offset: print "+0xoff/0xsize" after names (ftrace's sym-offset)
 * @out: where to print
 *
 * Each record with its task ("<unknown>-?" if the trace does not say),
 * flags, CPU and time; events as the kernel's own events print.
 *
 * Return: records printed, or -1 on a write error.
 */
int rt_print_ftrace(struct rt_trace *t, const struct rt_symbols *s,
		    bool sym_offset, FILE *out)
{
	char line[RAMTRAIL_TEXT_LINE_MAX];
	struct ramtrail_record z;
	struct rt_text x;
	struct rt_rec r;
	int n = 0;

	rt_text_init(&x, t, s, sym_offset);
	fprintf(out, "# tracer: function\n#\n");
	rt_print_origin(t, out, "#");
	fprintf(out, "#\n#                                _-----=> irqs-off/BH-disabled\n");
	fprintf(out, "#                               / _----=> need-resched\n");
	fprintf(out, "#                              | / _---=> hardirq/softirq\n");
	fprintf(out, "#                              || / _--=> preempt-depth\n");
	fprintf(out, "#                              ||| / _-=> migrate-disable\n");
	fprintf(out, "#                              |||| /     delay\n");
	fprintf(out, "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n");
	fprintf(out, "#              | |         |   |||||     |         |\n");
	while (rt_trace_next(t, &r)) {
		rt_text_record(&x, &r, &z);
		ramtrail_text_record(line, sizeof(line), &z, r.ns, &x.tx);
		fputs(line, out);
		n++;
	}
	return ferror(out) ? -1 : n;
}

static void rt_json_string(FILE *out, const char *str)
{
	fputc('"', out);
	for (; *str; str++) {
		unsigned char c = *str;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* Names of the trace's processes and threads, and of the unknown tasks. */
static void rt_json_names(struct rt_trace *t, const struct ramtrail_comms *c,
			  FILE *out)
{
	char what[160];
	u32 i, idle = 0;

	if (t->kind == RT_PSTORE)
		snprintf(what, sizeof(what), "unknown task (pstore file)");
	else
		snprintf(what, sizeof(what), "unknown task (ramtrail boot %llu, %s)",
			 (unsigned long long)t->boot_id, t->release);
	fprintf(out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":-1,\"args\":{\"name\":");
	rt_json_string(out, what);
	fprintf(out, "}}");
	for (i = 0; i < t->nr_cpus; i++)
		fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",%s%u%s%u\"}}",
			"\"pid\":-1,\"tid\":", i, ",\"args\":{\"name\":\"CPU ", i);
	for (i = 0; i < c->nr; i++) {
		const struct ramtrail_comm *p = &c->slot[i];

		/* The idle tasks (pid 0) share one track, as in ftrace. */
		if (!ramtrail_comm_is_pid(p->pid)) {
			if (p->pid != RAMTRAIL_PID_UNKNOWN && !idle++)
				fprintf(out, ",\n{\"name\":\"thread_name\",%s",
					"\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"<idle>\"}}");
			continue;
		}
		if (p->pid == p->tgid) {
			fprintf(out, ",\n{\"name\":\"process_name\",%s%u%s",
				"\"ph\":\"M\",\"pid\":", p->tgid,
				",\"args\":{\"name\":");
			rt_json_string(out, p->comm);
			fprintf(out, "}}");
		}
		fprintf(out, ",\n{\"name\":\"thread_name\",%s%u%s%u%s",
			"\"ph\":\"M\",\"pid\":", p->tgid, ",\"tid\":", p->pid,
			",\"args\":{\"name\":");
		rt_json_string(out, p->comm);
		fprintf(out, "}}");
	}
}

/**
 * rt_print_json() - print a trace in the Chrome trace-event format
 * @t: the trace, read from its start
 * @s: symbols (may be empty)
 * @out: where to print
 *
 * One instant event per record on the track of its thread ("pid" its
 * process, "tid" its pid, named by metadata events), or, when its task is
 * unknown, on a track per CPU of process -1. Function entries have no
 * duration. Timestamps are microseconds; "args" hold the CPU, ftrace's
 * flags and the event's text.
 *
 * Return: records printed, or -1 on a write error.
 */
int rt_print_json(struct rt_trace *t, const struct rt_symbols *s, FILE *out)
{
	char a[RT_SYM_LEN], b[RT_SYM_LEN], text[RAMTRAIL_TEXT_LINE_MAX];
	char flags[RAMTRAIL_TEXT_FLAGS_LEN];
	struct ramtrail_record z;
	struct rt_text x;
	struct rt_rec r;
	const char *name, *ev;
	int n = 0;

	rt_text_init(&x, t, s, false);
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	rt_json_names(t, &x.tx.comms, out);
	while (rt_trace_next(t, &r)) {
		rt_text_record(&x, &r, &z);
		ramtrail_text_flags(flags, &z);
		fprintf(out, ",\n{\"name\":");
		ev = ramtrail_text_event_name(&z);
		if (ev) {
			name = ev;
		} else if (r.type == RAMTRAIL_W_EVENT) {
			snprintf(a, sizeof(a), "event %u", r.id);
			name = a;
		} else {
			name = rt_name(t, s, r.ip, r.ts, r.ip_sym, false, a);
		}
		rt_json_string(out, name);
		fprintf(out, ",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%llu.%03llu",
			r.type == RAMTRAIL_W_EVENT ? "event" : "function",
			(unsigned long long)(r.ns / 1000),
			(unsigned long long)(r.ns % 1000));
		if (r.task_known)
			fprintf(out, ",\"pid\":%u,\"tid\":%u", r.tgid, r.pid);
		else
			fprintf(out, ",\"pid\":-1,\"tid\":%u", r.cpu);
		fprintf(out, ",\"args\":{\"cpu\":%u,\"flags\":\"%s\"", r.cpu,
			flags);
		if (ev) {
			const char *label = ramtrail_event_desc(z.id)->label;

			/* "name: text", or "label: text" */
			ramtrail_text_event(text, sizeof(text), &z, &x.tx);
			fprintf(out, ",\"text\":");
			rt_json_string(out, text + strlen(label ?: ev) + 2);
		} else if (r.type == RAMTRAIL_W_EVENT) {
			fprintf(out, ",\"data\":\"");
			rt_hex(out, r.data, r.len);
			fputc('"', out);
		} else if (r.parent) {
			fprintf(out, ",\"caller\":");
			rt_json_string(out, rt_name(t, s, r.parent, r.ts,
						    r.parent_sym, true, b));
		}
		fprintf(out, "}}");
		n++;
	}
	fprintf(out, "\n]}\n");
	return ferror(out) ? -1 : n;
}

/* Records, first and last time of each CPU, and of the whole trace. */
struct rt_span {
	u64 records;
	u64 first;
	u64 last;
};

static void rt_spans(struct rt_trace *t, struct rt_span *cpu,
		     struct rt_span *all)
{
	struct rt_rec r;

	memset(all, 0, sizeof(*all));
	while (rt_trace_next(t, &r)) {
		struct rt_span *c = &cpu[r.cpu];

		if (!c->records++)
			c->first = r.ns;
		c->last = r.ns;
		if (!all->records++)
			all->first = r.ns;
		all->last = r.ns;
	}
}

/*
 * The statistics are one list of facts, printed as "key value" text or as
 * one JSON object with the same keys (Documentation/ramtrail/ramtrail.1).
 */
enum rt_field_type {
	RT_F_U64,	/* decimal */
	RT_F_S64,	/* decimal, signed */
	RT_F_HEX,	/* text: 0x..., JSON: a number */
	RT_F_BOOL,	/* text: 0 or 1, JSON: false or true */
	RT_F_FLAG,	/* text: the key alone when set, JSON: false or true */
	RT_F_STR,	/* text: as is, JSON: a string */
};

/**
 * struct rt_field - one fact
 * @key: its name
 * @type: how it prints
 * @json_only: not in the text form (kept byte for byte as it was)
 * @n: the number (all but RT_F_STR)
 * @s: the string (RT_F_STR)
 */
struct rt_field {
	const char *key;
	enum rt_field_type type;
	bool json_only;
	u64 n;
	const char *s;
};

#define RT_U64(k, v)	{ .key = (k), .type = RT_F_U64, .n = (v) }
#define RT_STR(k, v)	{ .key = (k), .type = RT_F_STR, .s = (v) }

/**
 * struct rt_out - where the statistics go, and how
 * @f: the stream
 * @json: JSON, else text
 * @depth: JSON objects and arrays open
 * @more: JSON: a member or element was printed at that depth
 */
struct rt_out {
	FILE *f;
	bool json;
	u32 depth;
	bool more[8];
};

/* JSON: a comma before every member or element but the first. */
static void rt_member(struct rt_out *o, const char *key)
{
	if (o->more[o->depth])
		fputc(',', o->f);
	o->more[o->depth] = true;
	if (key)
		fprintf(o->f, "\"%s\":", key);
}

static void rt_open(struct rt_out *o, const char *key, char c)
{
	rt_member(o, key);
	fputc(c, o->f);
	o->more[++o->depth] = false;
}

static void rt_close(struct rt_out *o, char c)
{
	o->depth--;
	fputc(c, o->f);
}

static void rt_value(struct rt_out *o, const struct rt_field *f)
{
	switch (f->type) {
	case RT_F_U64:
		fprintf(o->f, "%llu", (unsigned long long)f->n);
		break;
	case RT_F_S64:
		fprintf(o->f, "%lld", (long long)f->n);
		break;
	case RT_F_HEX:
		fprintf(o->f, o->json ? "%llu" : "%#llx", (unsigned long long)f->n);
		break;
	case RT_F_BOOL:
	case RT_F_FLAG:
		if (o->json)
			fputs(f->n ? "true" : "false", o->f);
		else if (f->type == RT_F_BOOL)
			fprintf(o->f, "%d", !!f->n);
		break;
	case RT_F_STR:
		if (o->json)
			rt_json_string(o->f, f->s);
		else
			fputs(f->s, o->f);
		break;
	}
}

/*
 * Text: "key value" for each of @f, separated by @sep, and a newline.
 * JSON: members of the object open.
 */
static void rt_fields(struct rt_out *o, const struct rt_field *f, u32 n,
		      char sep)
{
	bool first = true;
	u32 i;

	for (i = 0; i < n; i++) {
		if (o->json) {
			rt_member(o, f[i].key);
			rt_value(o, &f[i]);
			continue;
		}
		if (f[i].json_only || (f[i].type == RT_F_FLAG && !f[i].n))
			continue;
		if (!first)
			fputc(sep, o->f);
		first = false;
		fputs(f[i].key, o->f);
		if (f[i].type != RT_F_FLAG)
			fputc(' ', o->f);
		rt_value(o, &f[i]);
	}
	if (!o->json)
		fputc('\n', o->f);
}

/* One element of a list: text "@lead fields", JSON {@id, fields}. */
static void rt_entry(struct rt_out *o, const char *lead,
		     const struct rt_field *id, const struct rt_field *f, u32 n)
{
	if (!o->json) {
		fprintf(o->f, "%s ", lead);
		rt_fields(o, f, n, ' ');
		return;
	}
	rt_open(o, NULL, '{');
	rt_fields(o, id, 1, 0);
	rt_fields(o, f, n, 0);
	rt_close(o, '}');
}

/* Records and time span: a list element after @lead/@id, else fields. */
static void rt_span_fields(struct rt_out *o, const char *lead,
			   const struct rt_field *id, const struct rt_span *s)
{
	const struct rt_field f[] = {
		RT_U64("records", s->records),
		RT_U64("first_ns", s->first),
		RT_U64("last_ns", s->last),
	};

	if (lead)
		rt_entry(o, lead, id, f, ARRAY_SIZE(f));
	else
		rt_fields(o, f, ARRAY_SIZE(f), ' ');
}

/* A fixed-size name field of the format, as a string. */
static const char *rt_name_field(char *buf, size_t len, const char *field,
				 size_t field_len)
{
	snprintf(buf, len, "%.*s", (int)field_len, field);
	rt_printable(buf, len);
	return buf;
}

/* The region's module table, one line or object per entry. */
static void rt_print_modules(struct rt_trace *t, struct rt_out *o)
{
	const struct ramtrail_region_header *h = &t->reg.hdr;
	struct ramtrail_module_entry *conv = NULL;
	const struct ramtrail_module_entry *mods;
	char name[sizeof(mods->name) + 1], lead[sizeof(name) + 8];
	u32 i, n = le32_to_cpu(h->modtab_count);

	mods = ramtrail_region_modules(&t->reg);
	if (le32_to_cpu(h->version) == RAMTRAIL_PREV_VERSION) {
		conv = rt_modules_prev(mods, n);
		mods = conv;
		if (!conv) {
			rt_err("out of memory: the module table is not listed\n");
			n = 0;
		}
	}
	if (o->json)
		rt_open(o, "modules", '[');
	for (i = 0; i < n && mods[i].base; i++) {
		const struct rt_field id[] = { RT_STR("name", name) };
		const struct rt_field m[] = {
			{ .key = "base", .type = RT_F_HEX, .n = le64_to_cpu(mods[i].base) },
			RT_U64("size", le64_to_cpu(mods[i].size)),
			{ .key = "gone", .type = RT_F_FLAG,
			  .n = le32_to_cpu(mods[i].flags) & RAMTRAIL_MOD_GONE },
			{ .key = "init", .type = RT_F_FLAG,
			  .n = le32_to_cpu(mods[i].flags) & RAMTRAIL_MOD_INIT },
			{ .key = "full", .type = RT_F_FLAG,
			  .n = le32_to_cpu(mods[i].flags) & RAMTRAIL_MOD_FULL },
			{ .key = "kernel", .type = RT_F_FLAG,
			  .n = le32_to_cpu(mods[i].flags) & RAMTRAIL_MOD_KERNEL },
		};

		rt_name_field(name, sizeof(name), mods[i].name,
			      sizeof(mods[i].name));
		/* The entry of a full table has no name. */
		snprintf(lead, sizeof(lead), "module %s",
			 name[0] ? name : "-");
		rt_entry(o, lead, id, m, ARRAY_SIZE(m));
	}
	if (o->json)
		rt_close(o, ']');
	free(conv);
}

/* The region header's machine, as uname -m says it. */
const char *rt_machine_name(u32 machine)
{
	switch (machine) {
	case RAMTRAIL_MACHINE_X86_64:
		return "x86_64";
	case RAMTRAIL_MACHINE_AARCH64:
		return "aarch64";
	default:	/* the header's checks refuse any other */
		return "?";
	}
}

static void rt_print_region(struct rt_trace *t, struct rt_out *o)
{
	const struct ramtrail_region_header *h = &t->reg.hdr;
	const struct ramtrail_freeze_info *f = ramtrail_region_freeze(&t->reg);
	char release[sizeof(h->release) + 1], build[sizeof(h->build) + 1];
	const struct rt_field where[] = {
		{ .key = "source", .type = RT_F_STR, .json_only = true,
		  .s = "region" },
		{ .key = "region_offset", .type = RT_F_HEX,
		  .n = t->region_offset },
		RT_U64("version", le32_to_cpu(h->version)),
	};
	const struct rt_field areas[] = {
		RT_U64("saved_offset", le64_to_cpu(h->saved_offset)),
		RT_U64("saved_size", le64_to_cpu(h->saved_size)),
		RT_U64("saved_refused", t->reg.saved_refused),
	};

	rt_fields(o, where, ARRAY_SIZE(where), '\n');
	if (t->reg_err) {
		/* Only the layout holds: say why, and list what survives. */
		char why[96];
		const struct rt_field err[] = {
			RT_STR("header_error", why),
		};

		snprintf(why, sizeof(why), "%s%s%s", ramtrail_strerror(t->reg_err),
			 t->reg.bad ? ": " : "", t->reg.bad ?: "");
		rt_fields(o, err, ARRAY_SIZE(err), '\n');
		rt_fields(o, areas, ARRAY_SIZE(areas), '\n');
		return;
	}
	rt_name_field(release, sizeof(release), h->release, sizeof(h->release));
	rt_name_field(build, sizeof(build), h->build, sizeof(h->build));
	{
		const struct rt_field hdr[] = {
			RT_U64("boot_id", le64_to_cpu(h->boot_id)),
			/* text: "?" for none; JSON: "" */
			RT_STR("release", release[0] || o->json ? release : "?"),
			RT_STR("build", build[0] || o->json ? build : "?"),
			RT_STR("machine", rt_machine_name(le32_to_cpu(h->machine))),
			RT_STR("state", ramtrail_state_name(le32_to_cpu(h->state))),
			RT_STR("freeze_reason", f ? ramtrail_reason_name(le32_to_cpu(f->reason)) :
			       "none"),
			RT_U64("freeze_cpu", f ? le32_to_cpu(f->cpu) : 0),
			{ .key = "clock_reliable", .type = RT_F_BOOL,
			  .n = le32_to_cpu(h->flags) & RAMTRAIL_F_CLOCK_RELIABLE },
			RT_U64("clock_hz", le64_to_cpu(h->clock_hz)),
			RT_STR("mode", le32_to_cpu(h->flags) & RAMTRAIL_F_STOP_WHEN_FULL ?
			       "stop-when-full" : "overwrite"),
			RT_U64("nr_cpus", le32_to_cpu(h->nr_cpus)),
			RT_U64("nr_blocks", le32_to_cpu(h->nr_blocks)),
			RT_U64("zone_offset", le64_to_cpu(h->zone_offset)),
			RT_U64("zone_size",
			       (u64)le32_to_cpu(h->nr_blocks) << RAMTRAIL_BLOCK_SHIFT),
		};

		rt_fields(o, hdr, ARRAY_SIZE(hdr), '\n');
	}
	rt_fields(o, areas, ARRAY_SIZE(areas), '\n');
	rt_print_modules(t, o);
}

/* What the zones hold now, whatever their state: one line per CPU. */
static int rt_print_zones(struct rt_trace *t, struct rt_out *o)
{
	const struct ramtrail_region_header *h = &t->reg.hdr;
	const struct ramtrail_freeze_info *f = ramtrail_region_freeze(&t->reg);
	struct rt_span *span = calloc(RAMTRAIL_MAX_CPUS, sizeof(*span)), all;
	struct rt_trace z = { .reg = t->reg };
	char lead[16];
	u32 cpu;

	if (!span || rt_trace_zones(&z)) {
		free(span);
		rt_err("out of memory\n");
		return RT_EXIT_IO;
	}
	rt_spans(&z, span, &all);
	if (o->json) {
		const struct rt_field s[] = {
			RT_U64("span_ns", all.last - all.first)
		};

		rt_open(o, "zones", '{');
		rt_span_fields(o, NULL, NULL, &all);
		rt_fields(o, s, ARRAY_SIZE(s), ' ');
		rt_open(o, "cpus", '[');
	} else {
		fputs("zones_", o->f);
		rt_span_fields(o, NULL, NULL, &all);
		fprintf(o->f, "zones_span_ns %llu\n",
			(unsigned long long)(all.last - all.first));
	}
	for (cpu = 0; cpu < le32_to_cpu(h->nr_cpus); cpu++) {
		const struct ramtrail_zone_stats *c = &z.cur[cpu].stats;
		const struct rt_field id[] = { RT_U64("cpu", cpu) };
		/* "cpuN records X" first and newest_block last: scripts rely on it. */
		const struct rt_field zone[] = {
			RT_U64("records", c->records),
			RT_U64("corrupt_blocks", c->corrupt_blocks),
			RT_U64("sealed_blocks", c->sealed_blocks),
			RT_U64("tail_sealed", ramtrail_freeze_sealed(f, cpu)),
			RT_U64("torn", c->torn),
			RT_U64("lost_words", c->lost_words),
			RT_U64("no_base", c->no_base),
			RT_U64("lost_refs", c->lost_refs),
			RT_U64("ts_backwards", c->ts_backwards),
			RT_U64("dropped", f ? le64_to_cpu(f->zone[cpu].dropped) : 0),
			RT_U64("freeze_pos", f ? le64_to_cpu(f->zone[cpu].freeze_pos) : 0),
			RT_U64("first_ns", span[cpu].first),
			RT_U64("last_ns", span[cpu].last),
			{ .key = "newest_block", .type = RT_F_S64,
			  .n = c->newest_block },
		};

		snprintf(lead, sizeof(lead), "cpu%u", cpu);
		rt_entry(o, lead, id, zone, ARRAY_SIZE(zone));
	}
	if (o->json) {
		rt_close(o, ']');
		rt_close(o, '}');
	}
	free(span);
	rt_trace_free(&z);
	return RT_EXIT_OK;
}

/*
 * One line per saved trace, oldest first. JSON also gives the pstore files
 * it is shown as: ftrace-ramtrail-<first_file> and the next files - 1
 * (pstore numbers the parts of every trace in this order, erased or not).
 */
static void rt_print_saved_list(struct rt_trace *t, struct rt_out *o)
{
	const struct ramtrail_saved_trace *s;
	char release[sizeof(s->release) + 1], build[sizeof(s->build) + 1];
	struct ramtrail_saved_walk w = { 0 };
	char lead[40];

	if (o->json)
		rt_open(o, "saved", '[');
	while ((s = ramtrail_saved_walk(&t->reg, &w))) {
		u64 lost, damaged = ramtrail_saved_damage(s, &lost);
		const struct rt_field id[] = { RT_U64("boot_id", le64_to_cpu(s->boot_id)) };
		const struct rt_field saved[] = {
			RT_U64("records", le64_to_cpu(s->nr_records)),
			RT_U64("damaged_chunks", damaged),
			RT_U64("damaged_records", lost),
			RT_U64("corrected_chunks", t->corrected[w.pos - 1]),
			RT_U64("cpus", le32_to_cpu(s->nr_cpus)),
			{ .key = "erased", .type = RT_F_BOOL,
			  .n = ramtrail_saved_all_erased(s) },
			RT_STR("state", ramtrail_state_name(le32_to_cpu(s->state))),
			RT_STR("freeze_reason",
			       ramtrail_reason_name(le32_to_cpu(s->freeze_reason))),
			RT_U64("dropped", le64_to_cpu(s->dropped)),
			RT_U64("corrupt_blocks", le64_to_cpu(s->corrupt_blocks)),
			RT_U64("torn", le64_to_cpu(s->torn)),
			RT_U64("lost_words", le64_to_cpu(s->lost_words)),
			RT_U64("no_time", le64_to_cpu(s->no_time)),
			RT_U64("skipped", le64_to_cpu(s->skipped)),
			RT_STR("release", release),
			{ .key = "build", .type = RT_F_STR, .json_only = true,
			  .s = build },
			{ .key = "freeze_cpu", .type = RT_F_U64,
			  .json_only = true, .n = le32_to_cpu(s->freeze_cpu) },
			{ .key = "erased_mask", .type = RT_F_U64,
			  .json_only = true, .n = le64_to_cpu(s->erased) },
			{ .key = "first_file", .type = RT_F_U64,
			  .json_only = true, .n = w.first },
			{ .key = "files", .type = RT_F_U64, .json_only = true,
			  .n = w.next - w.first },
			{ .key = "offset", .type = RT_F_U64, .json_only = true,
			  .n = ramtrail_saved_offset(&t->reg, s) },
			{ .key = "bytes", .type = RT_F_U64, .json_only = true,
			  .n = le64_to_cpu(s->size) },
			{ .key = "chunks", .type = RT_F_U64, .json_only = true,
			  .n = le32_to_cpu(s->nr_slots) },
			{ .key = "chunk_size", .type = RT_F_U64,
			  .json_only = true, .n = le32_to_cpu(s->chunk_size) },
			{ .key = "slots_offset", .type = RT_F_U64,
			  .json_only = true,
			  .n = ramtrail_saved_offset(&t->reg, s) +
			       ramtrail_saved_head_size(s) },
			{ .key = "ecc", .type = RT_F_U64, .json_only = true,
			  .n = le32_to_cpu(s->ecc) },
		};

		rt_name_field(release, sizeof(release), s->release,
			      sizeof(s->release));
		rt_name_field(build, sizeof(build), s->build, sizeof(s->build));
		snprintf(lead, sizeof(lead), "saved boot %llu",
			 (unsigned long long)le64_to_cpu(s->boot_id));
		rt_entry(o, lead, id, saved, ARRAY_SIZE(saved));
	}
	if (o->json)
		rt_close(o, ']');
}

/**
 * rt_print_stats() - what an image holds
 * @t: a region found (or a pstore file parsed); not yet read
 * @json: one JSON object, else "key value" lines
 * @out: where to print
 *
 * For a region: its header, the zones decoded CPU by CPU with every reason
 * a record was dropped, and the saved traces. For a pstore file: records
 * and time span per CPU. Both forms give the same facts under the same
 * keys; JSON adds a few (source; of a saved trace build, freeze_cpu,
 * erased_mask, first_file, files, offset, bytes, chunks).
 *
 * Return: RT_EXIT_OK, or RT_EXIT_IO if out of memory (the output is then
 * incomplete).
 */
int rt_print_stats(struct rt_trace *t, bool json, FILE *out)
{
	struct rt_out o = { .f = out, .json = json };
	struct rt_span *span, all;
	char lead[16];
	int err = 0;
	u32 cpu;

	if (json)
		rt_open(&o, NULL, '{');
	if (t->kind != RT_PSTORE) {
		rt_print_region(t, &o);
		if (!t->reg_err)
			err = rt_print_zones(t, &o);
		if (!err)
			rt_print_saved_list(t, &o);
	} else {
		const struct rt_field src[] = {
			RT_STR("source", "pstore"),
			RT_U64("nr_cpus", t->nr_cpus),
		};

		span = calloc(RAMTRAIL_MAX_CPUS, sizeof(*span));
		if (!span) {
			rt_err("out of memory\n");
			return RT_EXIT_IO;
		}
		rt_spans(t, span, &all);
		rt_fields(&o, src, ARRAY_SIZE(src), '\n');
		rt_span_fields(&o, NULL, NULL, &all);
		if (json)
			rt_open(&o, "cpus", '[');
		for (cpu = 0; cpu < t->nr_cpus; cpu++) {
			const struct rt_field id[] = { RT_U64("cpu", cpu) };

			snprintf(lead, sizeof(lead), "cpu%u", cpu);
			rt_span_fields(&o, lead, id, &span[cpu]);
		}
		if (json)
			rt_close(&o, ']');
		free(span);
	}
	if (json && !err) {
		rt_close(&o, '}');
		fputc('\n', out);
	}
	return err;
}
