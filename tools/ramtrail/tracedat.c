// SPDX-License-Identifier: GPL-2.0
/*
 * Export a trace as a trace-cmd data file (trace.dat, file format version
 * 6, trace-cmd.dat.v6(5)), so that trace-cmd report and KernelShark read it.
 *
 * Debian's libtracecmd (3.1) exports only the reading side of trace-cmd,
 * so the file is written here, by the book: the headers describe a 64-bit
 * little-endian kernel ring buffer, the function records become ftrace's
 * "function" events (ip, parent_ip), the kernel's events the events they
 * stand for, with the formats of their kernel's event files (sched:
 * sched_switch etc., fields from TP_STRUCT__entry), and the others
 * "ramtrail:event" events (an event read from pstore text whose payload
 * the text does not keep whole, "ramtrail:text"); the CPU data is ring-buffer pages as the kernel
 * writes them. Every event carries its task (common_pid, -1 if unknown)
 * and ftrace's flags; the saved cmdlines name the tasks. The symbols bound
 * for the trace go in as its kallsyms.
 */
#include <stdlib.h>
#include <string.h>
#include "ramtrail.h"

#define RT_PAGE			4096
#define RT_PAGE_HDR		16	/* u64 timestamp, local_t commit */
#define RT_PAGE_DATA		(RT_PAGE - RT_PAGE_HDR)
#define RT_TYPE_LEN_MAX		28	/* data in 4-byte units, in the header */
#define RT_TYPE_TIME_EXTEND	30
#define RT_DELTA_BITS		27
#define RT_FUNCTION_ID		1	/* ftrace's TRACE_FN */
#define RT_EVENT_ID		1000
#define RT_TEXT_ID		1001
#define RT_SEEN_TEXT		BIT(31)	/* in @seen: a "ramtrail:text" */
#define RT_KERNEL_ID		1100	/* + enum ramtrail_event_id */

/* ftrace's TRACE_FLAG_* (kernel/trace/trace.h): common_flags */
#define RT_FLAG_IRQS_OFF	0x01
#define RT_FLAG_IRQS_NOSUPPORT	0x02
#define RT_FLAG_NEED_RESCHED	0x04
#define RT_FLAG_HARDIRQ		0x08
#define RT_FLAG_SOFTIRQ		0x10
#define RT_FLAG_PREEMPT_RESCHED	0x20
#define RT_FLAG_NMI		0x40

static const char rt_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char rt_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

#define RT_COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char rt_function_format[] =
	"name: function\nID: 1\nformat:\n" RT_COMMON_FIELDS
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n";

/* In pieces: the print fmt line is too long for one line of C. */
static const char *const rt_event_format[] = {
	"name: event\nID: 1000\nformat:\n" RT_COMMON_FIELDS
	"\tfield:unsigned short id;\toffset:8;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned short len;\toffset:10;\tsize:2;\tsigned:0;\n"
	"\tfield:__data_loc unsigned char[] data;\toffset:12;\tsize:4;\tsigned:0;\n\n",
	"print fmt: \"id=%u len=%u data=%s\", REC->id, REC->len, ",
	"__print_hex(__get_dynamic_array(data), REC->len)\n",
};

/*
 * An event known by its text alone: one read from a pstore text whose
 * payload the text does not keep whole (a work or timer event names its
 * function, not where it is).
 */
static const char rt_text_format[] =
	"name: text\nID: 1001\nformat:\n" RT_COMMON_FIELDS
	"\tfield:__data_loc char[] text;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s\", __get_str(text)\n";

/* The ring-buffer pages of one CPU, filled as the kernel would. */
struct rt_cpu_pages {
	u8 *buf;
	u64 nr;		/* pages */
	u64 cap;
	u32 commit;	/* data bytes in the last page */
	u64 last_ns;	/* time of the last event written */
};

static u8 *rt_page(struct rt_cpu_pages *c)
{
	return c->buf + (c->nr - 1) * RT_PAGE;
}

static void rt_put32(u8 *p, u32 v)
{
	__le32 le = cpu_to_le32(v);

	memcpy(p, &le, 4);
}

static void rt_put64(u8 *p, u64 v)
{
	__le64 le = cpu_to_le64(v);

	memcpy(p, &le, 8);
}

static int rt_new_page(struct rt_cpu_pages *c, u64 ns)
{
	if (c->nr) /* the kernel writes commit when it leaves a page */
		rt_put64(rt_page(c) + 8, c->commit);
	if (c->nr == c->cap) {
		u8 *grown;

		c->cap = c->cap ? 2 * c->cap : 16;
		grown = realloc(c->buf, c->cap * RT_PAGE);
		if (!grown)
			return -1;
		c->buf = grown;
	}
	c->nr++;
	memset(rt_page(c), 0, RT_PAGE);
	rt_put64(rt_page(c), ns);
	c->commit = 0;
	c->last_ns = ns;
	return 0;
}

/* Append one event of @len payload bytes (a multiple of 4) at time @ns. */
static int rt_put_event(struct rt_cpu_pages *c, u64 ns, const u8 *payload,
			u32 len)
{
	bool small = len / 4 <= RT_TYPE_LEN_MAX;
	u32 hdr = small ? 4 : 8;
	u64 delta;
	u8 *p;

	if (ns < c->last_ns)
		ns = c->last_ns;	/* never backwards within a CPU */
	delta = ns - c->last_ns;
	if (!c->nr || c->commit + (delta >> RT_DELTA_BITS ? 8 : 0) + hdr +
	    len > RT_PAGE_DATA) {
		if (rt_new_page(c, ns))
			return -1;
		delta = 0;
	}
	p = rt_page(c) + RT_PAGE_HDR + c->commit;
	if (delta >> RT_DELTA_BITS) {
		rt_put32(p, RT_TYPE_TIME_EXTEND |
			 (u32)(delta & ((1U << RT_DELTA_BITS) - 1)) << 5);
		rt_put32(p + 4, delta >> RT_DELTA_BITS);
		p += 8;
		c->commit += 8;
		delta = 0;
	}
	if (small) {
		rt_put32(p, len / 4 | (u32)delta << 5);
	} else {
		/* type_len 0: the length (plus its own word) follows */
		rt_put32(p, (u32)delta << 5);
		rt_put32(p + 4, len + 4);
	}
	memcpy(p + hdr, payload, len);
	c->commit += hdr + len;
	c->last_ns = ns;
	return 0;
}

/* ftrace's common_flags of a record. */
static u8 rt_trace_flags(const struct ramtrail_record *z)
{
	static const u8 ctx[] = {
		[RAMTRAIL_CTX_TASK]	= 0,
		[RAMTRAIL_CTX_SOFTIRQ]	= RT_FLAG_SOFTIRQ,
		[RAMTRAIL_CTX_HARDIRQ]	= RT_FLAG_HARDIRQ,
		/* nmi_enter() counts a hardirq too */
		[RAMTRAIL_CTX_NMI]	= RT_FLAG_NMI | RT_FLAG_HARDIRQ,
	};
	u8 f = ctx[z->ctx & RAMTRAIL_CTX_MASK];

	if (z->type != RAMTRAIL_W_EVENT)
		return f | RT_FLAG_IRQS_NOSUPPORT;
	if (z->flags & RAMTRAIL_EF_IRQS_OFF)
		f |= RT_FLAG_IRQS_OFF;
	if (z->flags & RAMTRAIL_EF_NEED_RESCHED)	/* ftrace's 'N' */
		f |= RT_FLAG_NEED_RESCHED | RT_FLAG_PREEMPT_RESCHED;
	return f;
}

/* The common fields: type, flags, preempt count, pid (-1: unknown). */
static void rt_common(u8 *e, u16 type, const struct ramtrail_record *z)
{
	memset(e, 0, 8);
	e[0] = type & 0xff;
	e[1] = type >> 8;
	e[2] = rt_trace_flags(z);
	rt_put32(e + 4, z->task_known ? le32_to_cpu(z->task.pid) : (u32)-1);
}

/* A comm field: 16 bytes, NUL-padded. */
static void rt_put_comm(u8 *p, const char *comm)
{
	memset(p, 0, RAMTRAIL_COMM_LEN);
	memcpy(p, comm, strnlen(comm, RAMTRAIL_COMM_LEN - 1));
}

/*
 * A __data_loc string at @off: the text of @len bytes through
 * ramtrail_text_clean() (no byte of it ends a reader's line), a NUL;
 * returns the end.
 */
static u32 rt_put_string(u8 *e, u32 loc, u32 off, const u8 *s, u32 len)
{
	len = ramtrail_text_clean((char *)e + off, s, len + 1);
	rt_put32(e + loc, off | (len + 1) << 16);
	return off + len + 1;
}

/*
 * A kernel event, its fields filled as ramtrail_event_desc() says, @label
 * the address of its label's function (or 0); returns its length.
 */
static u32 rt_kernel_payload(const struct rt_text *x,
			     const struct ramtrail_record *z, u64 label, u8 *e)
{
	const struct ramtrail_event_desc *d = ramtrail_event_desc(z->id);
	const struct ramtrail_event_field *f;
	char comm[RAMTRAIL_COMM_LEN];
	u32 len = 0, v, n;

	/* A string goes after the fields: the event's fixed part. */
	for (f = d->format.fields; f->decl; f++)
		len = max_t(u32, len, f->offset + f->size);
	rt_common(e, RT_KERNEL_ID + z->id, z);
	for (f = d->format.fields; f->decl; f++) {
		memcpy(&v, z->data + f->src, 4);	/* data is zero padded */
		switch (f->kind) {
		case RAMTRAIL_FIELD_U32:
			if (f->size == 8)
				rt_put64(e + f->offset, v);
			else
				rt_put32(e + f->offset, v);
			break;
		case RAMTRAIL_FIELD_RAW:
			memcpy(e + f->offset, z->data + f->src, f->size);
			break;
		case RAMTRAIL_FIELD_COMM:
			rt_put_comm(e + f->offset,
				    ramtrail_text_comm(&x->tx, z, v, comm));
			break;
		case RAMTRAIL_FIELD_FUNC:
			rt_put64(e + f->offset, x->t->text_base + v);
			break;
		case RAMTRAIL_FIELD_STR:
		case RAMTRAIL_FIELD_LINE:
			n = strnlen((const char *)z->data + f->src,
				    z->len - f->src);
			/* as the console event drops it */
			if (f->kind == RAMTRAIL_FIELD_LINE && n &&
			    z->data[f->src + n - 1] == '\n')
				n--;
			len = rt_put_string(e, f->offset, len, z->data + f->src, n);
			break;
		case RAMTRAIL_FIELD_CSTR:
			n = strnlen((const char *)z->data + f->src,
				    z->len - f->src);
			if (n && z->data[f->src + n - 1] == '\n')
				n--;
			n = ramtrail_text_clean((char *)e + f->offset,
						z->data + f->src, n + 1);
			len = f->offset + n + 1;
			break;
		case RAMTRAIL_FIELD_LABEL:
			rt_put64(e + f->offset, label);
			break;
		}
	}
	return len;
}

/* A record known by its name alone (pstore text): a "ramtrail:text". */
static bool rt_as_text(const struct rt_rec *r)
{
	return r->ip_sym && (r->type == RAMTRAIL_W_EVENT || !r->ip);
}

/*
 * A record as the payload of its event, @labels[] the addresses of the
 * events' labels; returns its length.
 */
static u32 rt_payload(const struct rt_text *x, const struct rt_rec *r,
		      const struct ramtrail_record *z, const u64 *labels,
		      u8 *e)
{
	u32 len;

	if (rt_as_text(r)) {
		/* a function by its name alone: the text, "name: fields" */
		rt_common(e, RT_TEXT_ID, z);
		len = ramtrail_text_event((char *)e + 12, RAMTRAIL_TEXT_LINE_MAX,
					  z, &x->tx);
		rt_put32(e + 8, 12 | (len + 1) << 16);	/* __data_loc */
		len += 13;
	} else if (r->type != RAMTRAIL_W_EVENT) {
		rt_common(e, RT_FUNCTION_ID, z);
		rt_put64(e + 8, r->ip);
		rt_put64(e + 16, r->parent);
		return 24;
	} else if (ramtrail_text_event_name(z)) {
		len = rt_kernel_payload(x, z, labels[z->id], e);
	} else {
		rt_common(e, RT_EVENT_ID, z);
		e[8] = r->id & 0xff;
		e[9] = r->id >> 8;
		e[10] = r->len;
		e[11] = 0;
		rt_put32(e + 12, 16 | (u32)r->len << 16);	/* __data_loc */
		memcpy(e + 16, r->data, r->len);
		len = 16 + r->len;
	}
	memset(e + len, 0, 3);
	return (len + 3) & ~3U;
}

static void rt_put_blob(FILE *f, const char *s, u64 len, int size_bytes)
{
	u8 b[8];

	if (size_bytes == 8)
		rt_put64(b, len);
	else
		rt_put32(b, len);
	fwrite(b, size_bytes, 1, f);
	fwrite(s, 1, len, f);
}

/* One event format file: name, ID, common and own fields, print fmt. */
static void rt_put_kernel_format(FILE *f, u32 id)
{
	const struct ramtrail_event_desc *d = ramtrail_event_desc(id);
	const struct ramtrail_event_field *field;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return;
	fprintf(m, "name: %s\nID: %u\nformat:\n%s", d->name, RT_KERNEL_ID + id,
		RT_COMMON_FIELDS);
	for (field = d->format.fields; field->decl; field++)
		fprintf(m, "\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%u;\n",
			field->decl, field->offset, field->size, field->sign);
	fprintf(m, "\nprint fmt: %s\n", d->format.print);
	if (fclose(m) == 0)
		rt_put_blob(f, text, len, 8);
	free(text);
}

/*
 * The system of kernel event @id, NULL if no kernel event has @id or if
 * it is ftrace's own (its formats go with the function's).
 */
static const char *rt_system(u32 id)
{
	const struct ramtrail_event_desc *d = ramtrail_event_desc(id);

	return d && strcmp(d->system, "ftrace") ? d->system : NULL;
}

/* Is kernel event @id one of ftrace's own, and among those in @seen? */
static bool rt_ftrace_own(u32 id, u32 seen)
{
	return ramtrail_event_desc(id) && !rt_system(id) && (seen & BIT(id));
}

/*
 * The ftrace section: the function's format, then those of ftrace's own
 * events that the trace holds (BIT(id) in @seen).
 */
static void rt_put_ftrace(FILE *f, u32 seen)
{
	u32 i, n = 1;
	u8 b[4];

	for (i = 0; i < RAMTRAIL_EV_NR; i++)
		n += rt_ftrace_own(i, seen);
	rt_put32(b, n);
	fwrite(b, 4, 1, f);
	rt_put_blob(f, rt_function_format, strlen(rt_function_format), 8);
	for (i = 0; i < RAMTRAIL_EV_NR; i++)
		if (rt_ftrace_own(i, seen))
			rt_put_kernel_format(f, i);
}

/*
 * The event systems: ramtrail's own (its text event if @text: the trace
 * holds one), then the kernel's, each once.
 */
static void rt_put_systems(FILE *f, bool text)
{
	const char *sys[RAMTRAIL_EV_NR];
	u32 nr_sys = 0, i, k, n;
	u8 b[4], b8[8];

	for (i = 0; i < RAMTRAIL_EV_NR; i++) {
		if (!rt_system(i))
			continue;
		for (k = 0; k < nr_sys && strcmp(sys[k], rt_system(i)); k++)
			;
		if (k == nr_sys)
			sys[nr_sys++] = rt_system(i);
	}
	rt_put32(b, 1 + nr_sys);
	fwrite(b, 4, 1, f);
	fwrite("ramtrail", 9, 1, f);
	rt_put32(b, 1 + text);
	fwrite(b, 4, 1, f);
	if (text)
		rt_put_blob(f, rt_text_format, strlen(rt_text_format), 8);
	for (i = 0, n = 0; i < ARRAY_SIZE(rt_event_format); i++)
		n += strlen(rt_event_format[i]);
	rt_put64(b8, n);
	fwrite(b8, 8, 1, f);
	for (i = 0; i < ARRAY_SIZE(rt_event_format); i++)
		fputs(rt_event_format[i], f);
	for (k = 0; k < nr_sys; k++) {
		fwrite(sys[k], strlen(sys[k]) + 1, 1, f);
		for (i = 0, n = 0; i < RAMTRAIL_EV_NR; i++)
			n += rt_system(i) && !strcmp(rt_system(i), sys[k]);
		rt_put32(b, n);
		fwrite(b, 4, 1, f);
		for (i = 0; i < RAMTRAIL_EV_NR; i++)
			if (rt_system(i) && !strcmp(rt_system(i), sys[k]))
				rt_put_kernel_format(f, i);
	}
}

/* The saved cmdlines: "pid comm" of every task the trace names. */
static int rt_put_cmdlines(FILE *f, const struct ramtrail_comms *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	u32 i;

	if (!m)
		return -1;
	for (i = 0; i < c->nr; i++)
		if (ramtrail_comm_is_pid(c->slot[i].pid))
			fprintf(m, "%u %s\n", c->slot[i].pid, c->slot[i].comm);
	if (fclose(m)) {
		free(text);
		return -1;
	}
	rt_put_blob(f, text, len, 8);
	free(text);
	return 0;
}

/*
 * Every header section, up to and including "flyrecord\0"; @seen has
 * BIT(id) of each kernel event the trace holds, RT_SEEN_TEXT if it holds
 * a text event.
 */
static int rt_write_headers(FILE *f, const struct rt_symbols *s, u32 nr_cpus,
			    const struct ramtrail_comms *comms, u32 seen)
{
	static const u8 magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i',
				    'n', 'g', '6', 0, 0, 8 };
	char *syms = NULL;
	size_t syms_len = 0;
	u8 b[4];
	FILE *k;

	fwrite(magic, sizeof(magic), 1, f);
	rt_put32(b, RT_PAGE);
	fwrite(b, 4, 1, f);
	fwrite("header_page", 12, 1, f);
	rt_put_blob(f, rt_header_page, strlen(rt_header_page), 8);
	fwrite("header_event", 13, 1, f);
	rt_put_blob(f, rt_header_event, strlen(rt_header_event), 8);
	rt_put_ftrace(f, seen);
	rt_put_systems(f, seen & RT_SEEN_TEXT);
	k = open_memstream(&syms, &syms_len);
	if (!k || rt_symbols_kallsyms(s, k) || fclose(k))
		return -1;
	rt_put_blob(f, syms, syms_len, 4);	/* kallsyms */
	free(syms);
	rt_put_blob(f, "", 0, 4);		/* printk formats */
	if (rt_put_cmdlines(f, comms))
		return -1;
	rt_put32(b, nr_cpus);
	fwrite(b, 4, 1, f);
	fwrite("flyrecord", 10, 1, f);
	return ferror(f) ? -1 : 0;
}

/**
 * rt_export_tracedat() - write a trace as a trace-cmd data file
 * @t: the trace, read from its start
 * @s: symbols bound for the trace (they become its kallsyms)
 * @out: the file; written front to back, no seeking
 *
 * Return: events written, or -1 on a write or memory error.
 */
int rt_export_tracedat(struct rt_trace *t, const struct rt_symbols *s,
		       FILE *out)
{
	struct rt_cpu_pages *cpu = calloc(t->nr_cpus ? t->nr_cpus : 1,
					  sizeof(*cpu));
	u8 payload[16 + RAMTRAIL_TEXT_LINE_MAX + 4];
	const struct ramtrail_event_desc *d;
	u64 labels[RAMTRAIL_EV_NR] = { 0 };
	struct ramtrail_record z;
	char *head = NULL;
	size_t head_len = 0;
	u64 off, n = 0;
	u32 seen = 0;
	struct rt_text x;
	struct rt_rec r;
	FILE *h;
	u32 i;
	int ret = -1;

	if (!cpu)
		return -1;
	for (i = 0; i < RAMTRAIL_EV_NR; i++) {
		d = ramtrail_event_desc(i);
		if (d && d->label)
			labels[i] = rt_symbols_find(s, d->label);
	}
	rt_text_init(&x, t, s, false);
	while (rt_trace_next(t, &r)) {
		if (r.cpu >= t->nr_cpus)
			continue;
		rt_text_record(&x, &r, &z);
		if (rt_as_text(&r))
			seen |= RT_SEEN_TEXT;
		else if (ramtrail_text_event_name(&z))
			seen |= BIT(z.id);
		if (rt_put_event(&cpu[r.cpu], r.ns, payload,
				 rt_payload(&x, &r, &z, labels, payload)))
			goto out;
		n++;
	}
	for (i = 0; i < t->nr_cpus; i++)
		if (cpu[i].nr)
			rt_put64(rt_page(&cpu[i]) + 8, cpu[i].commit);
	h = open_memstream(&head, &head_len);
	if (!h || rt_write_headers(h, s, t->nr_cpus, &x.tx.comms, seen) ||
	    fclose(h))
		goto out;
	/* The CPU data starts on a page boundary, after the offset table. */
	off = (head_len + 16ULL * t->nr_cpus + RT_PAGE - 1) & ~(RT_PAGE - 1ULL);
	fwrite(head, head_len, 1, out);
	for (i = 0; i < t->nr_cpus; i++) {
		u8 b[16];

		rt_put64(b, off);
		rt_put64(b + 8, cpu[i].nr * RT_PAGE);
		fwrite(b, 16, 1, out);
		off += cpu[i].nr * RT_PAGE;
	}
	for (off = head_len + 16ULL * t->nr_cpus; off % RT_PAGE; off++)
		fputc(0, out);
	for (i = 0; i < t->nr_cpus; i++)
		fwrite(cpu[i].buf, RT_PAGE, cpu[i].nr, out);
	ret = ferror(out) ? -1 : (int)n;
out:
	for (i = 0; i < t->nr_cpus; i++)
		free(cpu[i].buf);
	free(cpu);
	free(head);
	return ret;
}
