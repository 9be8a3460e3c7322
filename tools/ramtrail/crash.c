// SPDX-License-Identifier: GPL-2.0
/*
 * ramtrail crash: the crash record of a trace from its pstore files (as
 * systemd-pstore archives them), as journal fields, one "FIELD=value"
 * line each, what `logger --journald` sends: which boot and kernel, how
 * recording ended, the CPU that ended it, its task and its last functions
 * by name, and a signature of those names that equal crashes share. Never
 * an address: the names come from the text the module wrote, which
 * prints none, and the header of that text gives the rest
 * (ramtrail_text_header()). A trace that ended while recording (a
 * watchdog's reset, a power cut, a hang) has no crashing stack: its
 * record also names every CPU's last functions, and a hang signature of
 * them. The fields are an interface, documented in the admin guide.
 */
#include <stdlib.h>
#include <string.h>
#include "ramtrail.h"

/* The newest functions of one context of the crashing CPU, a ring. */
struct rt_crash_ring {
	const char **name;
	u64 n;
};

const char *const rt_kind_names[RT_KIND_NR] = { "crash", "hang", "stop" };

/* "FIELD=value": a byte that would end the line or the field is '?'. */
static void rt_field(FILE *out, const char *field, const char *value)
{
	fprintf(out, "%s=", field);
	for (; *value; value++)
		fputc((unsigned char)*value < 0x20 || *value == 0x7f ? '?' :
		      *value, out);
	fputc('\n', out);
}

static void rt_field_u64(FILE *out, const char *field, unsigned long long v)
{
	fprintf(out, "%s=%llu\n", field, v);
}

/*
 * A function's name as the record gives it, in one word: "ext4_map_blocks
 * [ext4]" becomes "ext4_map_blocks[ext4]", a byte that is not printable
 * ASCII '?'. Return: a copy to free, NULL if out of memory.
 */
static char *rt_crash_name(const char *name)
{
	char *w = malloc(strlen(name) + 1), *p = w;

	if (!w)
		return NULL;
	for (; *name; name++)
		if (*name != ' ')
			*p++ = *name;
	*p = 0;
	rt_printable(w, p - w);
	return w;
}

/*
 * The crash signature: FNV-1a (64 bits) of the names, newest first, each
 * followed by a newline. Names, not addresses: the same crash hashes the
 * same across boots, KASLR and machines of one build.
 */
#define RT_FNV_BASIS	0xcbf29ce484222325ULL

/* FNV-1a (64 bits) of @s, each NUL hashed as a newline, on from @h. */
static u64 rt_fnv1a(u64 h, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= s[i] ? (unsigned char)s[i] : '\n';
		h *= 0x100000001b3ULL;
	}
	return h;
}

static u64 rt_crash_signature(const char *const *names, u32 n)
{
	u64 h = RT_FNV_BASIS;
	u32 i;

	for (i = 0; i < n; i++)
		h = rt_fnv1a(h, names[i], strlen(names[i]) + 1);
	return h;
}

/*
 * The CPU whose last records tell how recording ended: the one that froze
 * it, else (a reset, a power cut) the one that recorded last.
 */
static bool rt_crash_cpu(struct rt_trace *t, u32 *cpu)
{
	struct rt_rec r;
	bool any = false;

	if (t->state == RAMTRAIL_STATE_FROZEN) {
		*cpu = t->freeze_cpu;
		return true;
	}
	rt_trace_rewind(t);
	while (rt_trace_next(t, &r)) {
		*cpu = r.cpu;
		any = true;
	}
	return any;
}

/*
 * Is @r the function record of the entry the module freezes at, for a
 * trace frozen by @reason (record.c's hooks: panic() and nmi_panic(),
 * oops_enter())? The tracer's callback records it just before the
 * freeze's callback runs: an interrupt that comes between the two
 * records its entry and exit glue (irq_enter_rcu(), idle_cpu()) in task
 * context, after it.
 */
static bool rt_crash_entry(const struct rt_rec *r, u32 reason)
{
	if (r->type == RAMTRAIL_W_EVENT || !r->ip_sym)
		return false;
	if (reason == RAMTRAIL_FREEZE_PANIC)
		return !strcmp(r->ip_sym, "panic") ||
		       !strcmp(r->ip_sym, "nmi_panic");
	return reason == RAMTRAIL_FREEZE_OOPS && !strcmp(r->ip_sym, "oops_enter");
}

/* Names of the crashing CPU's newest interrupt-context functions, a ring. */
#define RT_IRQ_NAMES	32

/* @a and @b name one function: "name" and "name+0x12" alike. */
static bool rt_same_function(const char *a, const char *b)
{
	size_t n = strcspn(a, "+");

	return n == strcspn(b, "+") && !strncmp(a, b, n);
}

/*
 * Is @r, a task-context function record, an interrupt's own? The
 * kernel's entry and exit glue runs before the interrupt's count is
 * raised and after it is dropped (irq_enter_rcu() called from a
 * sysvec_*() vector, handle_softirqs() and idle_cpu() from
 * irq_exit_rcu()), so their records carry the task's context: their
 * caller is a vector, or a function this CPU recorded in interrupt
 * context (@irq, @nr_irq names).
 */
static bool rt_crash_glue(const struct rt_rec *r, const char *const *irq,
			  u32 nr_irq)
{
	static const char *const vectors[] = {
		"asm_", "sysvec_", "__sysvec_", "common_interrupt",
	};
	u32 i;

	if (!r->parent_sym)
		return false;
	for (i = 0; i < ARRAY_SIZE(vectors); i++)
		if (!strncmp(r->parent_sym, vectors[i], strlen(vectors[i])))
			return true;
	for (i = 0; i < nr_irq && i < RT_IRQ_NAMES; i++)
		if (rt_same_function(r->parent_sym, irq[i]))
			return true;
	return false;
}

static const char *const rt_ctx_names[] = {
	"task", "softirq", "hardirq", "nmi"
};

/*
 * A hang's CPUs: each one's newest functions in the context of its last
 * record, newest first, one word each (rt_crash_name()), each followed by
 * a newline; NULL for a CPU with none.
 */
struct rt_crash_hang {
	char *text[RAMTRAIL_MAX_CPUS];
	u64 sig;
};

static int rt_text_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The hang signature: FNV-1a (64 bits) of the CPUs' texts, the distinct
 * ones in byte order, each followed by one more newline. Which CPU hung,
 * and how many idled beside it, changes nothing: the same hang on another
 * CPU, or on a machine of more CPUs, signs the same.
 */
static u64 rt_hang_signature(struct rt_crash_hang *hang)
{
	char *sorted[RAMTRAIL_MAX_CPUS];
	u64 h = RT_FNV_BASIS;
	u32 cpu, n = 0, i;

	for (cpu = 0; cpu < RAMTRAIL_MAX_CPUS; cpu++)
		if (hang->text[cpu])
			sorted[n++] = hang->text[cpu];
	qsort(sorted, n, sizeof(*sorted), rt_text_cmp);
	for (i = 0; i < n; i++) {
		if (i && !strcmp(sorted[i], sorted[i - 1]))
			continue;
		h = rt_fnv1a(h, sorted[i], strlen(sorted[i]));
		h = rt_fnv1a(h, "\n", 1);
	}
	return h;
}

/* A CPU's names, newest first, each followed by a newline: a copy to free. */
static char *rt_hang_text(const struct rt_crash_ring *g, u32 nr_funcs)
{
	size_t len = 0, at = 0;
	char *text, *name;
	u32 i, n = g->n < nr_funcs ? g->n : nr_funcs;

	for (i = 0; i < n; i++)
		len += strlen(g->name[(g->n - 1 - i) % nr_funcs]) + 1;
	text = malloc(len + 1);
	for (i = 0; text && i < n; i++) {
		name = rt_crash_name(g->name[(g->n - 1 - i) % nr_funcs]);
		if (!name) {
			free(text);
			return NULL;
		}
		at += sprintf(text + at, "%s\n", name);
		free(name);
	}
	if (text)
		text[at] = 0;
	return text;
}

/*
 * Read each CPU's newest @nr_funcs functions in the context of its last
 * record into @hang, and sign them. Return: RT_EXIT_OK, or an exit code,
 * said.
 */
static int rt_hang_read(struct rt_trace *t, u32 nr_funcs,
			struct rt_crash_hang *hang)
{
	struct rt_crash_ring *ring;
	u32 nr_ctx = ARRAY_SIZE(rt_ctx_names), cpu, i;
	u8 ctx[RAMTRAIL_MAX_CPUS] = { 0 };
	const char **all;
	struct rt_rec r;
	int err = RT_EXIT_OK;

	ring = calloc((size_t)RAMTRAIL_MAX_CPUS * nr_ctx, sizeof(*ring));
	all = calloc((size_t)RAMTRAIL_MAX_CPUS * nr_ctx * nr_funcs,
		     sizeof(*all));
	if (!ring || !all) {
		err = RT_EXIT_IO;
		goto out;
	}
	for (i = 0; i < RAMTRAIL_MAX_CPUS * nr_ctx; i++)
		ring[i].name = all + (size_t)i * nr_funcs;
	rt_trace_rewind(t);
	while (rt_trace_next(t, &r)) {
		struct rt_crash_ring *g;

		if (r.cpu >= RAMTRAIL_MAX_CPUS)
			continue;
		ctx[r.cpu] = r.ctx & RAMTRAIL_CTX_MASK;
		g = &ring[r.cpu * nr_ctx + ctx[r.cpu]];
		if (r.type != RAMTRAIL_W_EVENT && r.ip_sym)
			g->name[g->n++ % nr_funcs] = r.ip_sym;
	}
	for (cpu = 0; cpu < RAMTRAIL_MAX_CPUS && !err; cpu++) {
		const struct rt_crash_ring *g = &ring[cpu * nr_ctx + ctx[cpu]];

		if (!g->n)
			continue;
		hang->text[cpu] = rt_hang_text(g, nr_funcs);
		if (!hang->text[cpu])
			err = RT_EXIT_IO;
	}
	hang->sig = rt_hang_signature(hang);
out:
	if (err)
		rt_err("out of memory\n");
	free(all);
	free(ring);
	return err;
}

/* "RAMTRAIL_CPU<n>_FUNCTIONS=names", space-separated, CPU by CPU. */
static void rt_hang_print(const struct rt_crash_hang *hang, FILE *out)
{
	const char *p;
	u32 cpu;

	for (cpu = 0; cpu < RAMTRAIL_MAX_CPUS; cpu++) {
		if (!hang->text[cpu])
			continue;
		fprintf(out, "RAMTRAIL_CPU%u_FUNCTIONS=", cpu);
		for (p = hang->text[cpu]; *p; p++)
			fputc(*p == '\n' && p[1] ? ' ' : *p, out);
	}
	fprintf(out, "RAMTRAIL_HANG_SIGNATURE=%016llx\n",
		(unsigned long long)hang->sig);
}

/**
 * rt_print_crash() - print the crash record of a trace read from pstore files
 * @t: the trace; its text's header read (@t->header)
 * @nr_funcs: functions to name, at most RT_CRASH_FUNCS_MAX
 * @out: where to print
 *
 * The functions are the newest @nr_funcs function records of the CPU that
 * ended recording, in the context of its last record (an interrupt that
 * came between them is left out: one crash, one signature), newest first.
 * In a trace frozen by a panic or an oops whose entry was traced, the
 * last record is that entry's (rt_crash_entry()): what the CPU recorded
 * after it, before the freeze took hold, is an interrupt's.
 *
 * Names are written as one word each (rt_crash_name()), space-separated.
 * A trace that ended while recording, a hang's, also names each CPU's
 * newest @nr_funcs functions in the context of its last record
 * (rt_hang_read()).
 *
 * Return: RT_EXIT_OK, or an exit code, said.
 */
int rt_print_crash(struct rt_trace *t, u32 nr_funcs, FILE *out)
{
	struct rt_crash_ring ring[ARRAY_SIZE(rt_ctx_names)] = { 0 };
	const struct rt_pstore_header *h = &t->header;
	struct rt_crash_hang hang = { 0 };
	enum rt_crash_kind kind;
	const char **names, **all;
	bool crash, any = false;
	char msg[1024], id[64];
	struct rt_rec r, last;
	int err = RT_EXIT_OK;
	size_t len;
	u32 cpu = 0, i, n = 0;
	u64 sig, seq, end = U64_MAX;
	const char *irq[RT_IRQ_NAMES];
	u32 nr_irq = 0;

	if (t->kind != RT_PSTORE || !h->nr_parts) {
		rt_err("crash: %s\n", t->kind != RT_PSTORE ?
		       "give the ftrace-ramtrail-N files of one trace" :
		       "no header in the text files beside them (console-ramtrail-(N * 100)): missing, or written by a module before 0.22");
		return RT_EXIT_NOTRACE;
	}
	if (h->mixed) {
		rt_err("crash: the files are parts of different traces\n");
		return RT_EXIT_USAGE;
	}
	all = calloc(ARRAY_SIZE(ring) * nr_funcs + nr_funcs, sizeof(*all));
	if (!all) {
		rt_err("out of memory\n");
		return RT_EXIT_IO;
	}
	for (i = 0; i < ARRAY_SIZE(ring); i++)
		ring[i].name = all + i * nr_funcs;
	names = all + ARRAY_SIZE(ring) * nr_funcs;
	if (rt_crash_cpu(t, &cpu)) {
		rt_trace_rewind(t);
		seq = 0;
		while (t->state == RAMTRAIL_STATE_FROZEN &&
		       rt_trace_next(t, &r)) {
			if (r.cpu != cpu)
				continue;
			if (rt_crash_entry(&r, t->freeze_reason))
				end = seq;
			seq++;
		}
		rt_trace_rewind(t);
		seq = 0;
		while (rt_trace_next(t, &r)) {
			struct rt_crash_ring *g = &ring[r.ctx & RAMTRAIL_CTX_MASK];

			if (r.cpu != cpu)
				continue;
			if (seq++ > end)
				break;	/* after the freeze's entry: an interrupt */
			last = r;
			any = true;
			if (r.type == RAMTRAIL_W_EVENT || !r.ip_sym)
				continue;
			if ((r.ctx & RAMTRAIL_CTX_MASK) != RAMTRAIL_CTX_TASK)
				irq[nr_irq++ % RT_IRQ_NAMES] = r.ip_sym;
			else if (rt_crash_glue(&r, irq, nr_irq))
				continue;
			g->name[g->n++ % nr_funcs] = r.ip_sym;
		}
	}
	if (any) {
		struct rt_crash_ring *g = &ring[last.ctx & RAMTRAIL_CTX_MASK];

		for (n = 0; n < nr_funcs && n < g->n; n++) {
			names[n] = rt_crash_name(g->name[(g->n - 1 - n) % nr_funcs]);
			if (!names[n]) {
				rt_err("out of memory\n");
				err = RT_EXIT_IO;
				goto out;
			}
		}
	}
	sig = rt_crash_signature(names, n);
	crash = t->state == RAMTRAIL_STATE_FROZEN &&
		t->freeze_reason != RAMTRAIL_FREEZE_USER;
	kind = crash ? RT_KIND_CRASH : t->state == RAMTRAIL_STATE_RECORDING ?
	       RT_KIND_HANG : RT_KIND_STOP;
	if (kind == RT_KIND_HANG) {
		err = rt_hang_read(t, nr_funcs, &hang);
		if (err)
			goto out;
	}
	snprintf(id, sizeof(id), "%016llx-%llu", h->nonce,
		 (unsigned long long)t->boot_id);

	len = snprintf(msg, sizeof(msg), "ramtrail: boot %llu (%s) ",
		       (unsigned long long)t->boot_id, t->release);
	if (t->state == RAMTRAIL_STATE_FROZEN)
		len += snprintf(msg + len, sizeof(msg) - len,
				"frozen by %s on CPU %u",
				ramtrail_reason_name(t->freeze_reason), cpu);
	else if (t->state == RAMTRAIL_STATE_RECORDING)
		len += snprintf(msg + len, sizeof(msg) - len,
				"ended while recording (reset, power cut or reboot), CPU %u last",
				cpu);
	else
		len += snprintf(msg + len, sizeof(msg) - len, "%s",
				ramtrail_state_name(t->state));
	if (any && last.task_known && len < sizeof(msg))
		len += snprintf(msg + len, sizeof(msg) - len, " in %s[%u]",
				last.comm, last.pid);
	for (i = 0; i < n && len < sizeof(msg); i++)
		len += snprintf(msg + len, sizeof(msg) - len, "%s%s",
				i ? " <- " : ": ", names[i]);
	if (len < sizeof(msg))
		len += snprintf(msg + len, sizeof(msg) - len, "; signature %016llx",
				(unsigned long long)sig);
	if (kind == RT_KIND_HANG && len < sizeof(msg))
		snprintf(msg + len, sizeof(msg) - len, ", hang signature %016llx",
			 (unsigned long long)hang.sig);

	rt_field(out, "MESSAGE_ID", crash ? RT_CRASH_ID : RT_ENDED_ID);
	rt_field(out, "MESSAGE", msg);
	rt_field(out, "PRIORITY", crash ? "2" : "5");
	rt_field(out, "SYSLOG_IDENTIFIER", "ramtrail");
	rt_field(out, "RAMTRAIL_TRACE", id);
	rt_field_u64(out, "RAMTRAIL_BOOT", t->boot_id);
	fprintf(out, "RAMTRAIL_NONCE=%016llx\n", h->nonce);
	rt_field(out, "RAMTRAIL_RELEASE", t->release);
	rt_field(out, "RAMTRAIL_BUILD", h->build);
	rt_field(out, "RAMTRAIL_STATE", ramtrail_state_name(t->state));
	rt_field(out, "RAMTRAIL_REASON", ramtrail_reason_name(t->freeze_reason));
	rt_field(out, "RAMTRAIL_KIND", rt_kind_names[kind]);
	if (any) {
		rt_field_u64(out, "RAMTRAIL_CPU", cpu);
		rt_field(out, "RAMTRAIL_CONTEXT",
			 rt_ctx_names[last.ctx & RAMTRAIL_CTX_MASK]);
	}
	if (any && last.task_known) {
		rt_field(out, "RAMTRAIL_TASK", last.comm);
		rt_field_u64(out, "RAMTRAIL_PID", last.pid);
	}
	fprintf(out, "RAMTRAIL_FUNCTIONS=");
	for (i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? " " : "", names[i]);
	fputc('\n', out);
	fprintf(out, "RAMTRAIL_SIGNATURE=%016llx\n", (unsigned long long)sig);
	if (kind == RT_KIND_HANG)
		rt_hang_print(&hang, out);
	rt_field_u64(out, "RAMTRAIL_RECORDS", h->records);
	rt_field_u64(out, "RAMTRAIL_LOST", h->lost);
	rt_field_u64(out, "RAMTRAIL_DAMAGED_BLOCKS", h->damaged);
	rt_field_u64(out, "RAMTRAIL_TORN", h->torn);
	rt_field_u64(out, "RAMTRAIL_LEFT_OUT", h->left_out);
	rt_field_u64(out, "RAMTRAIL_PARTS", h->parts);
	rt_field_u64(out, "RAMTRAIL_PARTS_READ", h->nr_parts);
	rt_field_u64(out, "RAMTRAIL_UNREADABLE", t->unreadable);
out:
	for (i = 0; i < RAMTRAIL_MAX_CPUS; i++)
		free(hang.text[i]);
	for (i = 0; i < n; i++)
		free((char *)names[i]);
	free(all);
	return err;
}
