// SPDX-License-Identifier: GPL-2.0
/*
 * Printing a trace: ftrace's text format (the "trace" file of the function
 * tracer), the Chrome trace-event JSON that Perfetto's UI opens, and the
 * statistics of a region.
 */
#include <stdlib.h>
#include <string.h>
#include "ramtrail.h"

#define RT_SYM_LEN	256

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

/* The name to print for @addr, from the input itself or from symbols. */
static const char *rt_name(struct rt_trace *t, const struct rt_symbols *s,
			   u64 addr, const char *given, bool offset, char *buf)
{
	if (given)
		return offset ? given : rt_strip_offset(given, buf, RT_SYM_LEN);
	return rt_symbolize(s, t, addr, offset, buf, RT_SYM_LEN);
}

static void rt_print_origin(struct rt_trace *t, FILE *out, const char *lead)
{
	if (t->kind == RT_PSTORE) {
		fprintf(out, "%s ramtrail: pstore file, %u CPUs\n", lead,
			t->nr_cpus);
		return;
	}
	fprintf(out, "%s ramtrail: boot %llu (%s), %s, %u CPUs, %s", lead,
		(unsigned long long)t->boot_id, t->release,
		t->kind == RT_ZONES ? "zones" : "saved trace", t->nr_cpus,
		ramtrail_state_name(t->state));
	if (t->freeze_reason)
		fprintf(out, " by %s on CPU %u",
			ramtrail_reason_name(t->freeze_reason), t->freeze_cpu);
	fputc('\n', out);
	if (!(t->flags & RAMTRAIL_F_CLOCK_RELIABLE))
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

/**
 * rt_print_ftrace() - print a trace as ftrace's function tracer does
 * @t: the trace, read from its current position
 * @s: symbols (may be empty)
 * @sym_offset: print "+0xoff/0xsize" after names (ftrace's sym-offset)
 * @out: where to print
 *
 * ramtrail records no task: the TASK-PID column says "<...>-0".
 *
 * Return: records printed, or -1 on a write error.
 */
int rt_print_ftrace(struct rt_trace *t, const struct rt_symbols *s,
		    bool sym_offset, FILE *out)
{
	char a[RT_SYM_LEN], b[RT_SYM_LEN];
	struct rt_rec r;
	int n = 0;

	fprintf(out, "# tracer: function\n#\n");
	rt_print_origin(t, out, "#");
	fprintf(out, "#\n#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n");
	fprintf(out, "#              | |         |   |||||     |         |\n");
	while (rt_trace_next(t, &r)) {
		u64 us = (r.ns + 500) / 1000;	/* rounded, as ftrace does */

		fprintf(out, "%16s-%-7d [%03u] ..... %5llu.%06llu: ", "<...>", 0,
			r.cpu, (unsigned long long)(us / 1000000),
			(unsigned long long)(us % 1000000));
		if (r.type == RAMTRAIL_W_EVENT) {
			fprintf(out, "ramtrail_event: id=%u len=%u data=", r.id,
				r.len);
			rt_hex(out, r.data, r.len);
			fputc('\n', out);
		} else if (r.parent) {
			fprintf(out, "%s <-%s\n",
				rt_name(t, s, r.ip, r.ip_sym, sym_offset, a),
				rt_name(t, s, r.parent, r.parent_sym,
					sym_offset, b));
		} else {
			fprintf(out, "%s\n",
				rt_name(t, s, r.ip, r.ip_sym, sym_offset, a));
		}
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

/**
 * rt_print_json() - print a trace in the Chrome trace-event format
 * @t: the trace, read from its current position
 * @s: symbols (may be empty)
 * @out: where to print
 *
 * One instant event per record on a track per CPU ("tid" is the CPU):
 * function entries have no duration. Timestamps are microseconds.
 *
 * Return: records printed, or -1 on a write error.
 */
int rt_print_json(struct rt_trace *t, const struct rt_symbols *s, FILE *out)
{
	char a[RT_SYM_LEN], b[RT_SYM_LEN], what[160];
	struct rt_rec r;
	int n = 0;
	u32 cpu;

	if (t->kind == RT_PSTORE)
		snprintf(what, sizeof(what), "ramtrail (pstore file)");
	else
		snprintf(what, sizeof(what), "ramtrail boot %llu (%s)",
			 (unsigned long long)t->boot_id, t->release);
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	fprintf(out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":");
	rt_json_string(out, what);
	fprintf(out, "}}");
	for (cpu = 0; cpu < t->nr_cpus; cpu++)
		fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",%s%u%s%u\"}}",
			"\"pid\":0,\"tid\":", cpu, ",\"args\":{\"name\":\"CPU ", cpu);
	while (rt_trace_next(t, &r)) {
		fprintf(out, ",\n{\"name\":");
		if (r.type == RAMTRAIL_W_EVENT) {
			snprintf(a, sizeof(a), "event %u", r.id);
			rt_json_string(out, a);
		} else {
			rt_json_string(out, rt_name(t, s, r.ip, r.ip_sym,
						    false, a));
		}
		fprintf(out, ",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",%s%llu.%03llu%s%u",
			r.type == RAMTRAIL_W_EVENT ? "event" : "function",
			"\"ts\":",
			(unsigned long long)(r.ns / 1000),
			(unsigned long long)(r.ns % 1000), ",\"pid\":0,\"tid\":",
			r.cpu);
		if (r.type == RAMTRAIL_W_EVENT) {
			fprintf(out, ",\"args\":{\"data\":\"");
			rt_hex(out, r.data, r.len);
			fprintf(out, "\"}");
		} else if (r.parent) {
			fprintf(out, ",\"args\":{\"caller\":");
			rt_json_string(out, rt_name(t, s, r.parent,
						    r.parent_sym, true, b));
			fputc('}', out);
		}
		fputc('}', out);
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

static void rt_print_span(FILE *out, const char *lead, const struct rt_span *s)
{
	fprintf(out, "%srecords %llu first_ns %llu last_ns %llu", lead,
		(unsigned long long)s->records, (unsigned long long)s->first,
		(unsigned long long)s->last);
}

static void rt_print_region(struct rt_trace *t, FILE *out)
{
	const struct ramtrail_region_header *h = &t->reg.hdr;
	const struct ramtrail_module_entry *mods =
		(const void *)(t->reg.base + h->modtab_offset);
	const struct ramtrail_freeze_info *f = ramtrail_region_freeze(&t->reg);
	u32 i;

	fprintf(out, "region_offset %#llx\nversion %u\n",
		(unsigned long long)t->region_offset, h->version);
	if (t->reg_err) {
		/* Only the layout holds: say why, and list what survives. */
		fprintf(out, "header_error %s\nsaved_offset %llu\nsaved_size %llu\n",
			ramtrail_strerror(t->reg_err),
			(unsigned long long)h->saved_offset,
			(unsigned long long)h->saved_size);
		return;
	}
	fprintf(out, "boot_id %llu\nrelease %s\nbuild %s\n",
		(unsigned long long)h->boot_id,
		h->release[0] ? h->release : "?", h->build[0] ? h->build : "?");
	fprintf(out, "state %s\nfreeze_reason %s\nfreeze_cpu %u\n",
		ramtrail_state_name(h->state),
		f ? ramtrail_reason_name(f->reason) : "none", f ? f->cpu : 0);
	fprintf(out, "clock_reliable %d\nclock_hz %llu\nmode %s\n",
		!!(h->flags & RAMTRAIL_F_CLOCK_RELIABLE),
		(unsigned long long)h->clock_hz,
		h->flags & RAMTRAIL_F_STOP_WHEN_FULL ? "stop-when-full" :
		"overwrite");
	fprintf(out, "nr_cpus %u\nnr_blocks %u\nzone_offset %llu\nzone_size %llu\n",
		h->nr_cpus, h->nr_blocks, (unsigned long long)h->zone_offset,
		(unsigned long long)h->nr_blocks << RAMTRAIL_BLOCK_SHIFT);
	fprintf(out, "saved_offset %llu\nsaved_size %llu\n",
		(unsigned long long)h->saved_offset,
		(unsigned long long)h->saved_size);
	for (i = 0; i < h->modtab_count && mods[i].base; i++)
		fprintf(out, "module %.*s base %#llx size %llu%s\n",
			(int)sizeof(mods[i].name), mods[i].name,
			(unsigned long long)mods[i].base,
			(unsigned long long)mods[i].size,
			mods[i].flags & RAMTRAIL_MOD_GONE ? " gone" : "");
}

/* What the zones hold now, whatever their state: one line per CPU. */
static void rt_print_zones(struct rt_trace *t, FILE *out)
{
	const struct ramtrail_region_header *h = &t->reg.hdr;
	const struct ramtrail_freeze_info *f = ramtrail_region_freeze(&t->reg);
	struct rt_span *span = calloc(RAMTRAIL_MAX_CPUS, sizeof(*span)), all;
	struct rt_trace z = { .reg = t->reg };
	u32 cpu;

	if (!span || rt_trace_zones(&z))
		exit(RT_EXIT_IO);
	rt_spans(&z, span, &all);
	rt_print_span(out, "zones_", &all);
	fprintf(out, "\nzones_span_ns %llu\n",
		(unsigned long long)(all.last - all.first));
	for (cpu = 0; cpu < h->nr_cpus; cpu++) {
		const struct ramtrail_zone_stats *c = &z.cur[cpu].stats;

		/* "cpuN records X" first and newest_block last: scripts rely on it. */
		fprintf(out, "cpu%u records %llu corrupt_blocks %llu torn %llu ",
			cpu, (unsigned long long)c->records,
			(unsigned long long)c->corrupt_blocks,
			(unsigned long long)c->torn);
		fprintf(out, "lost_words %llu no_base %llu ts_backwards %llu dropped %llu ",
			(unsigned long long)c->lost_words,
			(unsigned long long)c->no_base,
			(unsigned long long)c->ts_backwards,
			(unsigned long long)(f ? f->zone[cpu].dropped : 0));
		fprintf(out, "freeze_pos %llu first_ns %llu last_ns %llu newest_block %lld\n",
			(unsigned long long)(f ? f->zone[cpu].freeze_pos : 0),
			(unsigned long long)span[cpu].first,
			(unsigned long long)span[cpu].last,
			(long long)c->newest_block);
	}
	free(span);
	rt_trace_free(&z);
}

static void rt_print_saved_list(struct rt_trace *t, FILE *out)
{
	const struct ramtrail_saved_trace *s;
	u64 pos = 0;

	while ((s = ramtrail_saved_next(&t->reg, &pos))) {
		fprintf(out, "saved boot %llu records %llu cpus %u erased %d ",
			(unsigned long long)s->boot_id,
			(unsigned long long)s->nr_records, s->nr_cpus,
			ramtrail_saved_all_erased(s));
		fprintf(out, "state %s freeze_reason %s dropped %llu corrupt_blocks %llu ",
			ramtrail_state_name(s->state),
			ramtrail_reason_name(s->freeze_reason),
			(unsigned long long)s->dropped,
			(unsigned long long)s->corrupt_blocks);
		fprintf(out, "torn %llu lost_words %llu no_time %llu skipped %llu release %.*s\n",
			(unsigned long long)s->torn,
			(unsigned long long)s->lost_words,
			(unsigned long long)s->no_time,
			(unsigned long long)s->skipped,
			(int)sizeof(s->release), s->release);
	}
}

/**
 * rt_print_stats() - what an image holds, as "key value" lines
 * @t: a region found (or a pstore file parsed); not yet read
 * @out: where to print
 *
 * For a region: its header, the zones decoded CPU by CPU with every reason
 * a record was dropped, and the saved traces. For a pstore file: records
 * and time span per CPU.
 */
void rt_print_stats(struct rt_trace *t, FILE *out)
{
	struct rt_span *span, all;
	u32 cpu;

	if (t->kind != RT_PSTORE) {
		rt_print_region(t, out);
		if (!t->reg_err)
			rt_print_zones(t, out);
		rt_print_saved_list(t, out);
		return;
	}
	span = calloc(RAMTRAIL_MAX_CPUS, sizeof(*span));
	if (!span)
		exit(RT_EXIT_IO);
	rt_spans(t, span, &all);
	fprintf(out, "source pstore\nnr_cpus %u\n", t->nr_cpus);
	rt_print_span(out, "", &all);
	fputc('\n', out);
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		fprintf(out, "cpu%u ", cpu);
		rt_print_span(out, "", &span[cpu]);
		fputc('\n', out);
	}
	free(span);
}
