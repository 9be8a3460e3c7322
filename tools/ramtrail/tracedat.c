// SPDX-License-Identifier: GPL-2.0
/*
 * Export a trace as a trace-cmd data file (trace.dat, file format version
 * 6, trace-cmd.dat.v6(5)), so that trace-cmd report and KernelShark read it.
 *
 * Debian's libtracecmd (3.1) exports only the reading side of trace-cmd,
 * so the file is written here, by the book: the headers describe a 64-bit
 * little-endian kernel ring buffer, the function records become ftrace's
 * "function" events (ip, parent_ip) and ramtrail_record_event() records
 * "ramtrail:event" events; the CPU data is ring-buffer pages as the kernel
 * writes them. The symbols bound for the trace go in as its kallsyms.
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
	v = cpu_to_le32(v);
	memcpy(p, &v, 4);
}

static void rt_put64(u8 *p, u64 v)
{
	v = cpu_to_le64(v);
	memcpy(p, &v, 8);
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

static void rt_common(u8 *e, u16 type)
{
	memset(e, 0, 8);
	e[0] = type & 0xff;
	e[1] = type >> 8;
}

/* A record as the payload of its event; returns its length. */
static u32 rt_payload(const struct rt_rec *r, u8 *e)
{
	u32 len;

	if (r->type != RAMTRAIL_W_EVENT) {
		rt_common(e, RT_FUNCTION_ID);
		rt_put64(e + 8, r->ip);
		rt_put64(e + 16, r->parent);
		return 24;
	}
	rt_common(e, RT_EVENT_ID);
	e[8] = r->id & 0xff;
	e[9] = r->id >> 8;
	e[10] = r->len;
	e[11] = 0;
	rt_put32(e + 12, 16 | (u32)r->len << 16);	/* __data_loc */
	memcpy(e + 16, r->data, r->len);
	len = 16 + r->len;
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

/* Every header section, up to and including "flyrecord\0". */
static int rt_write_headers(FILE *f, const struct rt_symbols *s, u32 nr_cpus)
{
	static const u8 magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i',
				    'n', 'g', '6', 0, 0, 8 };
	char *syms = NULL;
	size_t syms_len = 0, i;
	u8 b[4], b8[8];
	u64 len;
	FILE *k;

	fwrite(magic, sizeof(magic), 1, f);
	rt_put32(b, RT_PAGE);
	fwrite(b, 4, 1, f);
	fwrite("header_page", 12, 1, f);
	rt_put_blob(f, rt_header_page, strlen(rt_header_page), 8);
	fwrite("header_event", 13, 1, f);
	rt_put_blob(f, rt_header_event, strlen(rt_header_event), 8);
	rt_put32(b, 1);				/* ftrace formats */
	fwrite(b, 4, 1, f);
	rt_put_blob(f, rt_function_format, strlen(rt_function_format), 8);
	rt_put32(b, 1);				/* event systems */
	fwrite(b, 4, 1, f);
	fwrite("ramtrail", 9, 1, f);
	rt_put32(b, 1);
	fwrite(b, 4, 1, f);
	for (i = 0, len = 0; i < ARRAY_SIZE(rt_event_format); i++)
		len += strlen(rt_event_format[i]);
	rt_put64(b8, len);
	fwrite(b8, 8, 1, f);
	for (i = 0; i < ARRAY_SIZE(rt_event_format); i++)
		fputs(rt_event_format[i], f);
	k = open_memstream(&syms, &syms_len);
	if (!k || rt_symbols_kallsyms(s, k) || fclose(k))
		return -1;
	rt_put_blob(f, syms, syms_len, 4);	/* kallsyms */
	free(syms);
	rt_put_blob(f, "", 0, 4);		/* printk formats */
	rt_put_blob(f, "", 0, 8);		/* cmdlines */
	rt_put32(b, nr_cpus);
	fwrite(b, 4, 1, f);
	fwrite("flyrecord", 10, 1, f);
	return ferror(f) ? -1 : 0;
}

/**
 * rt_export_tracedat() - write a trace as a trace-cmd data file
 * @t: the trace, read from its current position
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
	u8 payload[16 + RAMTRAIL_EVENT_MAX_LEN + 4];
	char *head = NULL;
	size_t head_len = 0;
	u64 off, n = 0;
	struct rt_rec r;
	FILE *h;
	u32 i;
	int ret = -1;

	if (!cpu)
		return -1;
	while (rt_trace_next(t, &r)) {
		if (r.cpu >= t->nr_cpus)
			continue;
		if (rt_put_event(&cpu[r.cpu], r.ns, payload,
				 rt_payload(&r, payload)))
			goto out;
		n++;
	}
	for (i = 0; i < t->nr_cpus; i++)
		if (cpu[i].nr)
			rt_put64(rt_page(&cpu[i]) + 8, cpu[i].commit);
	h = open_memstream(&head, &head_len);
	if (!h || rt_write_headers(h, s, t->nr_cpus) || fclose(h))
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
