// SPDX-License-Identifier: GPL-2.0
/*
 * ramtrail fleet: the crash records of many machines grouped by
 * signature. Each machine's ramtrail-collect.service logs one journal
 * entry a trace (ramtrail crash), journal-upload carries it to a
 * collection host's journal-remote; this reads those entries from
 * journalctl -o json (run here on the local journal or on
 * journal-remote's files, or its lines given) and says, for each kind
 * and signature, how many, on which machines and kernels, first and last
 * seen. Only entries whose trusted fields say the unit logged them count:
 * any user can log the message ids. Every string is another machine's:
 * kept bounded, and printable ASCII alone. This file reads and groups;
 * fleet_print.c prints the report.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "ramtrail.h"
#include "fleet.h"

#define RT_FLEET_LINE_MAX	BIT(20)	/* longer: malformed */
#define RT_FLEET_READ		BIT(16)
#define RT_FLEET_GROUPS_MAX	BIT(16)
#define RT_FLEET_MACHINES_MAX	BIT(20)
#define RT_FLEET_RELEASES_MAX	BIT(12)
#define RT_FLEET_PAIRS_MAX	BIT(24)	/* of a group and a machine or release */
#define RT_FLEET_TRACES_MAX	BIT(24)
#define RT_FLEET_CPU_FUNCS	512		/* bytes kept of a CPU's functions */
#define RT_FLEET_FUNCS_MAX	2048		/* bytes of a group's functions */
#define RT_FLEET_NAME_MAX	256		/* of a host name, a release */
/* The last second journalctl can show, 9999-12-31T23:59:59Z. */
#define RT_FLEET_USEC_MAX	(253402300799ULL * 1000000)

/* The fields read of an entry. */
enum rt_fleet_field {
	RT_F_MESSAGE_ID, RT_F_UNIT, RT_F_UID, RT_F_TRANSPORT, RT_F_MACHINE,
	RT_F_HOST, RT_F_TIME, RT_F_KIND, RT_F_STATE, RT_F_SIGNATURE,
	RT_F_HANG_SIGNATURE, RT_F_FUNCTIONS, RT_F_RELEASE, RT_F_TRACE, RT_F_NR,
};

static const char *const rt_fleet_fields[RT_F_NR] = {
	[RT_F_MESSAGE_ID] = "MESSAGE_ID",
	[RT_F_UNIT] = "_SYSTEMD_UNIT",
	[RT_F_UID] = "_UID",
	[RT_F_TRANSPORT] = "_TRANSPORT",
	[RT_F_MACHINE] = "_MACHINE_ID",
	[RT_F_HOST] = "_HOSTNAME",
	[RT_F_TIME] = "__REALTIME_TIMESTAMP",
	[RT_F_KIND] = "RAMTRAIL_KIND",
	[RT_F_STATE] = "RAMTRAIL_STATE",
	[RT_F_SIGNATURE] = "RAMTRAIL_SIGNATURE",
	[RT_F_HANG_SIGNATURE] = "RAMTRAIL_HANG_SIGNATURE",
	[RT_F_FUNCTIONS] = "RAMTRAIL_FUNCTIONS",
	[RT_F_RELEASE] = "RAMTRAIL_RELEASE",
	[RT_F_TRACE] = "RAMTRAIL_TRACE",
};

/* A field of an entry: not given, given once, or unusable. */
enum rt_fleet_state { RT_FS_ABSENT, RT_FS_ONE, RT_FS_BAD };

/*
 * The fields of the entry being read: a null, an array of values, any
 * other JSON or a field given twice is unusable (RT_FS_BAD).
 */
struct rt_fleet_entry {
	char value[RT_F_NR][RT_JOURNAL_VALUE_MAX + 1];
	size_t len[RT_F_NR];
	enum rt_fleet_state state[RT_F_NR];
	char cpu[RAMTRAIL_MAX_CPUS][RT_FLEET_CPU_FUNCS];
	bool cpu_given[RAMTRAIL_MAX_CPUS];
};

/*
 * A hash table of 64-bit keys to indexes, open addressing: what a key
 * names is told apart from a colliding one by its owner (rt_fleet_same).
 */
struct rt_map {
	u64 *key;
	u32 *val;	/* 0: a free slot; else the index plus 1 */
	u32 mask;	/* slots less 1 */
	u32 n;
};

/* The report, and what it is made with. */
struct rt_fleet {
	struct rt_fleet_report r;
	struct rt_map groups, machines, releases, pairs, traces;
	struct rt_fleet_entry e;
	struct rt_journal_field f;
	char line[RT_FLEET_LINE_MAX];
	char buf[RT_FLEET_READ];
};

#define RT_FLEET_BASIS	0xcbf29ce484222325ULL

/* FNV-1a (64 bits) of @len bytes at @s, on from @h. */
static u64 rt_fleet_hash(u64 h, const char *s, size_t len)
{
	while (len--) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static u32 rt_map_first(const struct rt_map *m, u64 key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key & m->mask;
}

/*
 * What @key maps to, plus 1, or 0: none. @same(@ctx, index) tells the
 * one sought from others of the same key; NULL: the key is enough.
 */
static u32 rt_map_get(const struct rt_map *m, u64 key,
		      bool (*same)(const void *ctx, u32 i), const void *ctx)
{
	u32 i;

	if (!m->val)
		return 0;
	for (i = rt_map_first(m, key); m->val[i]; i = (i + 1) & m->mask)
		if (m->key[i] == key && (!same || same(ctx, m->val[i] - 1)))
			return m->val[i];
	return 0;
}

/* Add @key for @val (not there yet). Return: false, out of memory. */
static bool rt_map_put(struct rt_map *m, u64 key, u32 val)
{
	u32 i;

	if (!m->val || (m->n + 1) * 2 > m->mask + 1) {
		struct rt_map big = { .mask = m->val ? m->mask * 2 + 1 : 1023 };

		big.key = calloc(big.mask + 1, sizeof(*big.key));
		big.val = calloc(big.mask + 1, sizeof(*big.val));
		if (!big.key || !big.val) {
			free(big.key);
			free(big.val);
			return false;
		}
		for (i = 0; m->val && i <= m->mask; i++)
			if (m->val[i])
				rt_map_put(&big, m->key[i], m->val[i] - 1);
		free(m->key);
		free(m->val);
		*m = big;
	}
	for (i = rt_map_first(m, key); m->val[i]; i = (i + 1) & m->mask)
		;
	m->key[i] = key;
	m->val[i] = val + 1;
	m->n++;
	return true;
}

static void rt_map_free(struct rt_map *m)
{
	free(m->key);
	free(m->val);
}

/* Is field @i given once, and @s? */
static bool rt_fleet_is(const struct rt_fleet_entry *e, enum rt_fleet_field i,
			const char *s)
{
	return e->state[i] == RT_FS_ONE && e->len[i] == strlen(s) &&
	       !memcmp(e->value[i], s, e->len[i]);
}

/*
 * @len bytes at @s, at most @max, into @dst (@max + 1 bytes), every byte
 * but printable ASCII '?' (rt_printable()). Return: its length.
 */
static size_t rt_fleet_clean(char *dst, const char *s, size_t len, size_t max)
{
	size_t i;

	for (i = 0; i < len && i < max; i++)
		dst[i] = s[i] ? s[i] : '?';
	dst[i] = 0;
	rt_printable(dst, i);
	return i;
}

/* The same, a copy to free (NULL: out of memory). */
static char *rt_fleet_dup(const char *s, size_t len, size_t max)
{
	char *c = malloc((len < max ? len : max) + 1);

	if (c)
		rt_fleet_clean(c, s, len, max);
	return c;
}

/* rt_journal_entry()'s callback: keep the fields read. */
static void rt_fleet_field(void *ctx, const struct rt_journal_field *f)
{
	static const char cpu[] = "RAMTRAIL_CPU", funcs[] = "_FUNCTIONS";
	struct rt_fleet_entry *e = ctx;
	const char *p = f->key, *end;
	u32 i, n = 0;
	bool text = f->kind == RT_JV_STRING || f->kind == RT_JV_BYTES;

	if (f->key_len > RT_JOURNAL_KEY_MAX)
		return;		/* no field of ours; @key is cut */
	end = f->key + f->key_len;
	for (i = 0; i < RT_F_NR; i++) {
		if (f->key_len != strlen(rt_fleet_fields[i]) ||
		    memcmp(f->key, rt_fleet_fields[i], f->key_len))
			continue;
		if (e->state[i] != RT_FS_ABSENT || !text) {
			e->state[i] = RT_FS_BAD;
			return;
		}
		memcpy(e->value[i], f->value, f->len + 1);
		e->len[i] = f->len;
		e->state[i] = RT_FS_ONE;
		return;
	}
	/* RAMTRAIL_CPU<n>_FUNCTIONS: a hang's CPU n */
	if (f->key_len <= sizeof(cpu) - 1 + sizeof(funcs) - 1 ||
	    memcmp(p, cpu, sizeof(cpu) - 1) ||
	    memcmp(end - (sizeof(funcs) - 1), funcs, sizeof(funcs) - 1))
		return;
	for (p += sizeof(cpu) - 1; p < end - (sizeof(funcs) - 1); p++) {
		if (*p < '0' || *p > '9' || n >= RAMTRAIL_MAX_CPUS)
			return;
		n = n * 10 + *p - '0';
	}
	if (n >= RAMTRAIL_MAX_CPUS || !text || e->cpu_given[n])
		return;
	rt_fleet_clean(e->cpu[n], f->value, f->len, RT_FLEET_CPU_FUNCS - 1);
	e->cpu_given[n] = true;
}

/* A signature: 16 hex digits, as ramtrail crash prints it. */
static bool rt_fleet_sig(const struct rt_fleet_entry *e, enum rt_fleet_field i,
			 u64 *sig)
{
	size_t k;

	if (e->state[i] != RT_FS_ONE || e->len[i] != 16)
		return false;
	for (*sig = 0, k = 0; k < 16; k++) {
		char c = e->value[i][k];

		if (c >= '0' && c <= '9')
			*sig = *sig << 4 | (c - '0');
		else if (c >= 'a' && c <= 'f')
			*sig = *sig << 4 | (c - 'a' + 10);
		else
			return false;
	}
	return true;
}

/* __REALTIME_TIMESTAMP: decimal microseconds, up to RT_FLEET_USEC_MAX. */
static bool rt_fleet_usec(const struct rt_fleet_entry *e, u64 *usec)
{
	size_t k;

	if (e->state[RT_F_TIME] != RT_FS_ONE || !e->len[RT_F_TIME] ||
	    e->len[RT_F_TIME] > 18)
		return false;
	for (*usec = 0, k = 0; k < e->len[RT_F_TIME]; k++) {
		char c = e->value[RT_F_TIME][k];

		if (c < '0' || c > '9')
			return false;
		*usec = *usec * 10 + (c - '0');
	}
	return *usec <= RT_FLEET_USEC_MAX;
}

/*
 * The kind: RAMTRAIL_KIND; an entry of a ramtrail before it, by its
 * message id and state.
 */
static enum rt_crash_kind rt_fleet_kind(const struct rt_fleet_entry *e)
{
	u32 k;

	for (k = 0; k < RT_KIND_NR; k++)
		if (rt_fleet_is(e, RT_F_KIND, rt_kind_names[k]))
			return k;
	if (rt_fleet_is(e, RT_F_MESSAGE_ID, RT_CRASH_ID))
		return RT_KIND_CRASH;
	return rt_fleet_is(e, RT_F_STATE, "recording") ? RT_KIND_HANG :
	       RT_KIND_STOP;
}

/*
 * What a group shows of its functions: a crash's (RAMTRAIL_FUNCTIONS);
 * a hang's CPUs', CPUs with the same list together: "cpu0,2: a b; cpu1:
 * c d". At most RT_FLEET_FUNCS_MAX bytes. Return: a copy to free.
 */
static char *rt_fleet_functions(const struct rt_fleet_entry *e,
				enum rt_crash_kind kind)
{
	bool done[RAMTRAIL_MAX_CPUS] = { false };
	char buf[RT_FLEET_FUNCS_MAX + 1];
	size_t at = 0;
	u32 c, d;

	buf[0] = 0;
	for (c = 0; kind == RT_KIND_HANG && c < RAMTRAIL_MAX_CPUS; c++) {
		if (!e->cpu_given[c] || done[c] || at >= sizeof(buf))
			continue;
		at += snprintf(buf + at, sizeof(buf) - at, "%scpu%u",
			       at ? "; " : "", c);
		for (d = c + 1; d < RAMTRAIL_MAX_CPUS && at < sizeof(buf); d++)
			if (e->cpu_given[d] && !done[d] &&
			    !strcmp(e->cpu[c], e->cpu[d])) {
				done[d] = true;
				at += snprintf(buf + at, sizeof(buf) - at, ",%u", d);
			}
		if (at < sizeof(buf))
			at += snprintf(buf + at, sizeof(buf) - at, ": %s",
				       e->cpu[c]);
	}
	if (at)
		return rt_fleet_dup(buf, strlen(buf), RT_FLEET_FUNCS_MAX);
	if (e->state[RT_F_FUNCTIONS] != RT_FS_ONE)
		return rt_fleet_dup("", 0, 0);
	return rt_fleet_dup(e->value[RT_F_FUNCTIONS], e->len[RT_F_FUNCTIONS],
			    RT_FLEET_FUNCS_MAX);
}

/* Context of rt_fleet_same(): the fleet and what is sought. */
struct rt_fleet_key {
	const struct rt_fleet *fl;
	const char *s;		/* a machine's id or a release */
	size_t len;
	u64 sig;
	enum rt_crash_kind kind;
};

static bool rt_fleet_same_group(const void *ctx, u32 i)
{
	const struct rt_fleet_key *k = ctx;

	return k->fl->r.group[i].sig == k->sig && k->fl->r.group[i].kind == k->kind;
}

/* Machines and releases are found by their names as shown (cleaned). */
static bool rt_fleet_same_machine(const void *ctx, u32 i)
{
	const struct rt_fleet_key *k = ctx;

	return !strcmp(k->fl->r.machine[i].id, k->s);
}

static bool rt_fleet_same_release(const void *ctx, u32 i)
{
	const struct rt_fleet_key *k = ctx;

	return !strcmp(k->fl->r.release[i], k->s);
}

/*
 * Room in @*arr, of @n entries of @size bytes, for one more: it doubles
 * at each power of 2. Return: false, out of memory.
 */
static bool rt_fleet_room(void *arr, u32 n, size_t size)
{
	void **p = arr, *q;

	if (n & (n - 1))
		return true;
	q = realloc(*p, (size_t)(n ? n * 2 : 1) * size);
	if (!q)
		return false;
	*p = q;
	return true;
}

/*
 * Make entry @n of @*arr, whose data @owned (allocated, NULL if that
 * failed) will be, and name it by @key in @m. Return: false, out of
 * memory, @owned freed.
 */
static bool rt_fleet_append(void *arr, u32 n, size_t size, struct rt_map *m,
			    u64 key, void *owned)
{
	if (owned && rt_fleet_room(arr, n, size) && rt_map_put(m, key, n))
		return true;
	free(owned);
	return false;
}

/*
 * Count the entry read: its group, machine and release. Return: false,
 * out of memory.
 */
static bool rt_fleet_add(struct rt_fleet *fl)
{
	const struct rt_fleet_entry *e = &fl->e;
	struct rt_fleet_key k = { .fl = fl };
	struct rt_fleet_group *g;
	struct rt_fleet_machine *m;
	char id[65], rel[RT_FLEET_NAME_MAX + 1];
	u64 usec, trace = 0, mhash, rhash;
	size_t mlen, rlen;
	u32 gi, mi, ri;

	if (!rt_fleet_is(e, RT_F_MESSAGE_ID, RT_CRASH_ID) &&
	    !rt_fleet_is(e, RT_F_MESSAGE_ID, RT_ENDED_ID)) {
		fl->r.ignored[RT_IGN_OTHER]++;
		return true;
	}
	if (!fl->r.a->trust_any &&
	    (!rt_fleet_is(e, RT_F_UNIT, "ramtrail-collect.service") ||
	     !rt_fleet_is(e, RT_F_UID, "0") ||
	     !rt_fleet_is(e, RT_F_TRANSPORT, "journal"))) {
		fl->r.ignored[RT_IGN_UNTRUSTED]++;
		return true;
	}
	k.kind = rt_fleet_kind(e);
	if ((k.kind != RT_KIND_HANG ||
	     !rt_fleet_sig(e, RT_F_HANG_SIGNATURE, &k.sig)) &&
	    !rt_fleet_sig(e, RT_F_SIGNATURE, &k.sig)) {
		fl->r.ignored[RT_IGN_INCOMPLETE]++;
		return true;
	}
	if (!rt_fleet_usec(e, &usec) || e->state[RT_F_MACHINE] != RT_FS_ONE ||
	    !e->len[RT_F_MACHINE] || e->len[RT_F_MACHINE] > 64) {
		fl->r.ignored[RT_IGN_INCOMPLETE]++;
		return true;
	}
	if (e->state[RT_F_TRACE] == RT_FS_ONE) {
		trace = rt_fleet_hash(RT_FLEET_BASIS, e->value[RT_F_MACHINE],
				      e->len[RT_F_MACHINE] + 1);
		trace = rt_fleet_hash(trace, e->value[RT_F_TRACE],
				      e->len[RT_F_TRACE]);
		if (rt_map_get(&fl->traces, trace, NULL, NULL)) {
			fl->r.ignored[RT_IGN_DUPLICATE]++;
			return true;
		}
	}
	gi = rt_map_get(&fl->groups, k.sig ^ k.kind, rt_fleet_same_group, &k);
	k.s = id;
	mlen = rt_fleet_clean(id, e->value[RT_F_MACHINE], e->len[RT_F_MACHINE],
			      sizeof(id) - 1);
	mhash = rt_fleet_hash(RT_FLEET_BASIS, id, mlen);
	mi = rt_map_get(&fl->machines, mhash, rt_fleet_same_machine, &k);
	k.s = rel;
	rlen = rt_fleet_clean(rel, e->value[RT_F_RELEASE],
			      e->state[RT_F_RELEASE] == RT_FS_ONE ?
			      e->len[RT_F_RELEASE] : 0, sizeof(rel) - 1);
	rhash = rt_fleet_hash(RT_FLEET_BASIS, rel, rlen);
	ri = rt_map_get(&fl->releases, rhash, rt_fleet_same_release, &k);
	/* What would not fit leaves everything as it was. */
	if ((!gi && fl->r.nr_groups >= RT_FLEET_GROUPS_MAX) ||
	    (!mi && fl->r.nr_machines >= RT_FLEET_MACHINES_MAX) ||
	    (!ri && fl->r.nr_releases >= RT_FLEET_RELEASES_MAX) ||
	    fl->pairs.n + 2 > RT_FLEET_PAIRS_MAX ||
	    fl->traces.n >= RT_FLEET_TRACES_MAX) {
		fl->r.ignored[RT_IGN_LIMIT]++;
		return true;
	}
	if (!ri) {
		char *r = strdup(rel);

		if (!rt_fleet_append(&fl->r.release, fl->r.nr_releases,
				     sizeof(*fl->r.release), &fl->releases,
				     rhash, r))
			return false;
		fl->r.release[fl->r.nr_releases] = r;
		ri = ++fl->r.nr_releases;
	}
	if (!mi) {
		char *i = strdup(id);

		if (!rt_fleet_append(&fl->r.machine, fl->r.nr_machines,
				     sizeof(*fl->r.machine), &fl->machines,
				     mhash, i))
			return false;
		fl->r.machine[fl->r.nr_machines] = (struct rt_fleet_machine){ .id = i };
		mi = ++fl->r.nr_machines;
	}
	m = &fl->r.machine[mi - 1];
	if (!m->host || usec >= m->seen) {
		char *host = rt_fleet_dup(e->value[RT_F_HOST],
					  e->state[RT_F_HOST] == RT_FS_ONE ?
					  e->len[RT_F_HOST] : 0, RT_FLEET_NAME_MAX);

		if (!host)
			return false;
		free(m->host);
		m->host = host;
		m->seen = usec;
	}
	if (!gi) {
		char *funcs = rt_fleet_functions(e, k.kind);

		if (!rt_fleet_append(&fl->r.group, fl->r.nr_groups,
				     sizeof(*fl->r.group), &fl->groups,
				     k.sig ^ k.kind, funcs))
			return false;
		fl->r.group[fl->r.nr_groups] = (struct rt_fleet_group){
			.sig = k.sig, .kind = k.kind, .first = usec,
			.last = usec, .functions = funcs };
		gi = ++fl->r.nr_groups;
	}
	g = &fl->r.group[gi - 1];
	g->count++;
	g->first = usec < g->first ? usec : g->first;
	g->last = usec > g->last ? usec : g->last;
	/* Pairs: bit 63 clear, a machine; set, a release. */
	if ((!rt_map_get(&fl->pairs, (u64)(gi - 1) << 32 | (mi - 1), NULL, NULL) &&
	     !rt_map_put(&fl->pairs, (u64)(gi - 1) << 32 | (mi - 1), 0)) ||
	    (!rt_map_get(&fl->pairs, BIT_ULL(63) | (u64)(gi - 1) << 32 | (ri - 1),
			 NULL, NULL) &&
	     !rt_map_put(&fl->pairs, BIT_ULL(63) | (u64)(gi - 1) << 32 | (ri - 1), 0)))
		return false;
	if (e->state[RT_F_TRACE] == RT_FS_ONE &&
	    !rt_map_put(&fl->traces, trace, 0))
		return false;
	fl->r.records++;
	return true;
}

/* Read the entries of one line (@len bytes at @fl->line). */
static bool rt_fleet_line(struct rt_fleet *fl, size_t len)
{
	struct rt_fleet_entry *e = &fl->e;

	memset(e->state, 0, sizeof(e->state));
	memset(e->cpu_given, 0, sizeof(e->cpu_given));
	if (!rt_journal_entry(fl->line, len, &fl->f, rt_fleet_field, e)) {
		fl->r.ignored[RT_IGN_MALFORMED]++;
		return true;
	}
	return rt_fleet_add(fl);
}

/*
 * Read journalctl -o json's lines from @fd to its end; a line longer than
 * RT_FLEET_LINE_MAX is malformed, read past. Return: an exit code, said.
 */
static int rt_fleet_read(struct rt_fleet *fl, int fd, const char *what)
{
	bool too_long = false;
	size_t len = 0;

	for (;;) {
		ssize_t n = read(fd, fl->buf, sizeof(fl->buf));
		const char *p = fl->buf, *end = fl->buf + (n > 0 ? n : 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rt_err("%s: %s\n", what, strerror(errno));
			return RT_EXIT_IO;
		}
		if (!n) {	/* the end; a last line may have no newline */
			if (too_long)
				fl->r.ignored[RT_IGN_MALFORMED]++;
			else if (len && !rt_fleet_line(fl, len))
				goto oom;
			return RT_EXIT_OK;
		}
		while (p < end) {
			const char *nl = memchr(p, '\n', end - p);
			size_t take = (nl ? nl : end) - p;

			if (!too_long && len + take <= sizeof(fl->line)) {
				memcpy(fl->line + len, p, take);
				len += take;
			} else {
				too_long = true;
			}
			if (!nl)
				break;
			if (too_long)
				fl->r.ignored[RT_IGN_MALFORMED]++;
			else if (len && !rt_fleet_line(fl, len))
				goto oom;
			len = 0;
			too_long = false;
			p = nl + 1;
		}
	}
oom:
	rt_err("out of memory\n");
	return RT_EXIT_IO;
}

/*
 * Run journalctl -o json for ramtrail's two message ids, on the local
 * journal or @dir's files, and read what it prints. Every entry of those
 * ids comes, trusted or not: the ones left out are counted.
 */
static int rt_fleet_journalctl(struct rt_fleet *fl, const char *dir)
{
	char *argv[10], *d = NULL;
	posix_spawn_file_actions_t fa;
	int fd[2], argc = 0, err, status;
	pid_t pid;

	argv[argc++] = "journalctl";
	argv[argc++] = "--output=json";
	argv[argc++] = "--no-pager";
	if (dir) {
		d = malloc(strlen(dir) + sizeof("--directory="));
		if (!d) {
			rt_err("out of memory\n");
			return RT_EXIT_IO;
		}
		sprintf(d, "--directory=%s", dir);
		argv[argc++] = d;
	}
	argv[argc++] = "MESSAGE_ID=" RT_CRASH_ID;
	argv[argc++] = "+";
	argv[argc++] = "MESSAGE_ID=" RT_ENDED_ID;
	argv[argc] = NULL;
	if (pipe2(fd, O_CLOEXEC)) {
		rt_err("pipe: %s\n", strerror(errno));
		free(d);
		return RT_EXIT_IO;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	err = posix_spawnp(&pid, "journalctl", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	free(d);
	close(fd[1]);
	if (err) {
		rt_err("journalctl: %s\n", strerror(err));
		close(fd[0]);
		return RT_EXIT_IO;
	}
	err = rt_fleet_read(fl, fd[0], "journalctl");
	close(fd[0]);	/* a journalctl still writing ends, on SIGPIPE */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			rt_err("journalctl: %s\n", strerror(errno));
			return RT_EXIT_IO;
		}
	if (!err && !(WIFEXITED(status) && !WEXITSTATUS(status))) {
		rt_err("journalctl failed (%s %d): the report is of what it printed\n",
		       WIFEXITED(status) ? "exit" : "signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		err = RT_EXIT_IO;
	}
	return err;
}

static int rt_fleet_digits(const char **p, int n)
{
	int v = 0;

	while (n--) {
		if (**p < '0' || **p > '9')
			return -1;
		v = v * 10 + *(*p)++ - '0';
	}
	return v;
}

/**
 * rt_fleet_time() - a time given on the command line
 * @s: seconds since the epoch, or an ISO 8601 date in UTC:
 *	YYYY-MM-DD[(T| )HH:MM[:SS]][Z]
 * @usec: the time, microseconds since the epoch
 *
 * Return: @s is such a time.
 */
bool rt_fleet_time(const char *s, u64 *usec)
{
	struct tm tm = { 0 };
	const char *p = s;
	time_t t;
	int day;

	if (*p >= '0' && *p <= '9' && strspn(p, "0123456789") == strlen(p)) {
		if (strlen(p) > 12)
			return false;
		*usec = strtoull(p, NULL, 10) * 1000000;
		return *usec <= RT_FLEET_USEC_MAX;
	}
	tm.tm_year = rt_fleet_digits(&p, 4) - 1900;
	if (tm.tm_year < 70 - 1900 || *p++ != '-')
		return false;
	tm.tm_mon = rt_fleet_digits(&p, 2) - 1;
	if (tm.tm_mon < 0 || tm.tm_mon > 11 || *p++ != '-')
		return false;
	tm.tm_mday = rt_fleet_digits(&p, 2);
	if (tm.tm_mday < 1 || tm.tm_mday > 31)
		return false;
	if (*p == 'T' || *p == ' ') {
		p++;
		tm.tm_hour = rt_fleet_digits(&p, 2);
		if (tm.tm_hour < 0 || tm.tm_hour > 23 || *p++ != ':')
			return false;
		tm.tm_min = rt_fleet_digits(&p, 2);
		if (tm.tm_min < 0 || tm.tm_min > 59)
			return false;
		if (*p == ':') {
			p++;
			tm.tm_sec = rt_fleet_digits(&p, 2);
			if (tm.tm_sec < 0 || tm.tm_sec > 60)
				return false;
		}
	}
	if (*p == 'Z')
		p++;
	if (*p)
		return false;
	day = tm.tm_mday;
	t = timegm(&tm);
	if (t < 0 || !gmtime_r(&t, &tm) || tm.tm_mday != day)
		return false;	/* before 1970, or a day the month lacks */
	*usec = (u64)t * 1000000;
	return true;
}

/* Count first, then the newest last seen, then kind and signature. */
static int rt_fleet_group_cmp(const void *a, const void *b, void *ctx)
{
	const struct rt_fleet *fl = ctx;
	const struct rt_fleet_group *x = &fl->r.group[*(const u32 *)a];
	const struct rt_fleet_group *y = &fl->r.group[*(const u32 *)b];

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->last != y->last)
		return x->last > y->last ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->sig < y->sig ? -1 : x->sig > y->sig;
}

/* A group's machines by host name, then id. */
static int rt_fleet_machine_cmp(const void *a, const void *b, void *ctx)
{
	const struct rt_fleet *fl = ctx;
	const struct rt_fleet_machine *x = &fl->r.machine[*(const u32 *)a];
	const struct rt_fleet_machine *y = &fl->r.machine[*(const u32 *)b];

	return strcmp(x->host, y->host) ?: strcmp(x->id, y->id);
}

static int rt_fleet_release_cmp(const void *a, const void *b, void *ctx)
{
	const struct rt_fleet *fl = ctx;

	return strcmp(fl->r.release[*(const u32 *)a], fl->r.release[*(const u32 *)b]);
}

/* Each group's machines and releases, from the pairs, sorted. */
static bool rt_fleet_lists(struct rt_fleet *fl)
{
	const struct rt_map *m = &fl->pairs;
	u32 i, g;

	for (i = 0; m->val && i <= m->mask; i++) {
		if (!m->val[i])
			continue;
		g = (m->key[i] >> 32) & 0x7fffffff;
		if (m->key[i] >> 63)
			fl->r.group[g].nr_releases++;
		else
			fl->r.group[g].nr_machines++;
	}
	for (g = 0; g < fl->r.nr_groups; g++) {
		struct rt_fleet_group *x = &fl->r.group[g];

		x->machines = calloc(x->nr_machines + 1, sizeof(u32));
		x->releases = calloc(x->nr_releases + 1, sizeof(u32));
		if (!x->machines || !x->releases)
			return false;
		x->nr_machines = 0;	/* counted again as filled */
		x->nr_releases = 0;
	}
	for (i = 0; m->val && i <= m->mask; i++) {
		struct rt_fleet_group *x;

		if (!m->val[i])
			continue;
		x = &fl->r.group[(m->key[i] >> 32) & 0x7fffffff];
		if (m->key[i] >> 63)
			x->releases[x->nr_releases++] = (u32)m->key[i];
		else
			x->machines[x->nr_machines++] = (u32)m->key[i];
	}
	for (g = 0; g < fl->r.nr_groups; g++) {
		qsort_r(fl->r.group[g].machines, fl->r.group[g].nr_machines,
			sizeof(u32), rt_fleet_machine_cmp, fl);
		qsort_r(fl->r.group[g].releases, fl->r.group[g].nr_releases,
			sizeof(u32), rt_fleet_release_cmp, fl);
	}
	return true;
}

static void rt_fleet_free(struct rt_fleet *fl)
{
	u32 i;

	for (i = 0; i < fl->r.nr_groups; i++) {
		free(fl->r.group[i].functions);
		free(fl->r.group[i].machines);
		free(fl->r.group[i].releases);
	}
	for (i = 0; i < fl->r.nr_machines; i++) {
		free(fl->r.machine[i].id);
		free(fl->r.machine[i].host);
	}
	for (i = 0; i < fl->r.nr_releases; i++)
		free(fl->r.release[i]);
	free(fl->r.group);
	free(fl->r.machine);
	free(fl->r.release);
	rt_map_free(&fl->groups);
	rt_map_free(&fl->machines);
	rt_map_free(&fl->releases);
	rt_map_free(&fl->pairs);
	rt_map_free(&fl->traces);
	free(fl);
}

/**
 * rt_fleet() - the crash records of a fleet, grouped by signature
 * @a: where to read them, how to print
 * @out: where to print
 *
 * Return: RT_EXIT_OK, or an exit code, said. A failed journalctl still
 * prints what it gave.
 */
int rt_fleet(const struct rt_fleet_args *a, FILE *out)
{
	struct rt_fleet *fl = calloc(1, sizeof(*fl));
	u32 *order = NULL, i;
	int err, fd;

	if (!fl) {
		rt_err("out of memory\n");
		return RT_EXIT_IO;
	}
	fl->r.a = a;
	if (!a->input) {
		err = rt_fleet_journalctl(fl, a->directory);
	} else {
		fd = strcmp(a->input, "-") ? open(a->input, O_RDONLY | O_CLOEXEC) :
		     STDIN_FILENO;
		if (fd < 0) {
			rt_err("%s: %s\n", a->input, strerror(errno));
			rt_fleet_free(fl);
			return RT_EXIT_IO;
		}
		err = rt_fleet_read(fl, fd, a->input);
		if (fd != STDIN_FILENO)
			close(fd);
	}
	order = malloc((fl->r.nr_groups + 1) * sizeof(*order));
	if (!order || !rt_fleet_lists(fl)) {
		rt_err("out of memory\n");
		err = RT_EXIT_IO;
		goto out;
	}
	for (i = 0; i < fl->r.nr_groups; i++)
		order[i] = i;
	qsort_r(order, fl->r.nr_groups, sizeof(*order), rt_fleet_group_cmp, fl);
	rt_fleet_print(&fl->r, order, out);
out:
	free(order);
	rt_fleet_free(fl);
	return err;
}
