// SPDX-License-Identifier: GPL-2.0
/*
 * ramtrail fleet's report (fleet.c makes it) as a text table, JSON or
 * CSV. Its strings are printable ASCII already; the table bounds its
 * lines, JSON and CSV quote what their syntax needs.
 */
#include <string.h>
#include <time.h>
#include "fleet.h"

#define RT_FLEET_SHOWN		160	/* of a list in the text table */

static const char *const rt_ignored_names[RT_IGN_NR] = {
	"malformed", "not_ramtrail", "untrusted", "incomplete", "duplicate",
	"over_limit",
};

/* @usec as ISO 8601 in UTC, to the second. */
static const char *rt_fleet_iso(u64 usec, char *buf, size_t len)
{
	time_t t = usec / 1000000;
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
	return buf;
}

/* A machine as shown: its host name, else its id. */
static const char *rt_fleet_host(const struct rt_fleet_report *r, u32 m)
{
	return r->machine[m].host[0] ? r->machine[m].host : r->machine[m].id;
}

static bool rt_fleet_new(const struct rt_fleet_report *r, const struct rt_fleet_group *g)
{
	return r->a->new_given && g->first >= r->a->new_since;
}

/* @s as the text table shows it: at most RT_FLEET_SHOWN bytes. */
static void rt_fleet_cut(FILE *out, const char *s)
{
	if (strlen(s) <= RT_FLEET_SHOWN)
		fputs(s, out);
	else
		fprintf(out, "%.*s...", RT_FLEET_SHOWN - 3, s);
}

/* A list of names on one line of the table, cut where it gets long. */
static void rt_fleet_list(FILE *out, const struct rt_fleet_report *r,
			  const char *what, const u32 *idx, u32 n, bool hosts)
{
	size_t at;
	u32 i;

	at = fprintf(out, "        %s:", what);
	for (i = 0; i < n; i++) {
		const char *s = hosts ? rt_fleet_host(r, idx[i]) :
			r->release[idx[i]];

		if (at + 1 + strlen(s) > RT_FLEET_SHOWN && i) {
			fprintf(out, " ... (%u more)", n - i);
			break;
		}
		fputc(' ', out);
		rt_fleet_cut(out, s[0] ? s : "?");
		at += 1 + strlen(s);
	}
	fputc('\n', out);
}

static void rt_fleet_text(const struct rt_fleet_report *r, const u32 *order, FILE *out)
{
	u64 ignored = 0;
	char a[32], b[32];
	u32 i;
	bool first = true;

	for (i = 0; i < RT_IGN_NR; i++)
		ignored += r->ignored[i];
	fprintf(out, "ramtrail fleet: records %llu, groups %u, machines %u; ignored %llu",
		(unsigned long long)r->records, r->nr_groups, r->nr_machines,
		(unsigned long long)ignored);
	for (i = 0; i < RT_IGN_NR; i++)
		if (r->ignored[i]) {
			fprintf(out, "%s%llu %s", first ? ": " : ", ",
				(unsigned long long)r->ignored[i],
				rt_ignored_names[i]);
			first = false;
		}
	fprintf(out, "\n%8s %8s %-5s %-16s %-20s %s%s\n", "COUNT", "MACHINES",
		"KIND", "SIGNATURE", "FIRST SEEN (UTC)",
		r->a->new_given ? "LAST SEEN (UTC)      " : "LAST SEEN (UTC)",
		r->a->new_given ? "NEW" : "");
	for (i = 0; i < r->nr_groups; i++) {
		const struct rt_fleet_group *g = &r->group[order[i]];

		fprintf(out, "%8llu %8u %-5s %016llx %-20s %s%s\n",
			(unsigned long long)g->count, g->nr_machines,
			rt_kind_names[g->kind], (unsigned long long)g->sig,
			rt_fleet_iso(g->first, a, sizeof(a)),
			rt_fleet_iso(g->last, b, sizeof(b)),
			rt_fleet_new(r, g) ? " new" : "");
		fprintf(out, "        functions: ");
		rt_fleet_cut(out, g->functions[0] ? g->functions : "?");
		fputc('\n', out);
		rt_fleet_list(out, r, "releases", g->releases, g->nr_releases,
			      false);
		rt_fleet_list(out, r, "machines", g->machines, g->nr_machines,
			      true);
	}
}

/* A string of ours in JSON: printable ASCII already, '"' and '\' escaped. */
static void rt_fleet_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void rt_fleet_json(const struct rt_fleet_report *r, const u32 *order, FILE *out)
{
	char a[32];
	u32 i, j;

	fprintf(out, "{\"records\":%llu,\"machines\":%u,\"ignored\":{",
		(unsigned long long)r->records, r->nr_machines);
	for (i = 0; i < RT_IGN_NR; i++)
		fprintf(out, "%s\"%s\":%llu", i ? "," : "", rt_ignored_names[i],
			(unsigned long long)r->ignored[i]);
	fprintf(out, "},\"new_since\":");
	if (r->a->new_given)
		rt_fleet_json_str(out, rt_fleet_iso(r->a->new_since, a, sizeof(a)));
	else
		fputs("null", out);
	fprintf(out, ",\"groups\":[");
	for (i = 0; i < r->nr_groups; i++) {
		const struct rt_fleet_group *g = &r->group[order[i]];

		fprintf(out, "%s\n{\"kind\":\"%s\",\"signature\":\"%016llx\",",
			i ? "," : "", rt_kind_names[g->kind],
			(unsigned long long)g->sig);
		fprintf(out, "\"count\":%llu,\"new\":%s,",
			(unsigned long long)g->count,
			rt_fleet_new(r, g) ? "true" : "false");
		fprintf(out, "\"first_seen\":\"%s\",", rt_fleet_iso(g->first, a, sizeof(a)));
		fprintf(out, "\"last_seen\":\"%s\",",
			rt_fleet_iso(g->last, a, sizeof(a)));
		fprintf(out, "\"first_seen_usec\":%llu,\"last_seen_usec\":%llu,",
			(unsigned long long)g->first, (unsigned long long)g->last);
		fprintf(out, "\"functions\":");
		rt_fleet_json_str(out, g->functions);
		fprintf(out, ",\"releases\":[");
		for (j = 0; j < g->nr_releases; j++) {
			fputs(j ? "," : "", out);
			rt_fleet_json_str(out, r->release[g->releases[j]]);
		}
		fprintf(out, "],\"machines\":[");
		for (j = 0; j < g->nr_machines; j++) {
			fprintf(out, "%s{\"machine_id\":", j ? "," : "");
			rt_fleet_json_str(out, r->machine[g->machines[j]].id);
			fprintf(out, ",\"hostname\":");
			rt_fleet_json_str(out, r->machine[g->machines[j]].host);
			fputc('}', out);
		}
		fprintf(out, "]}");
	}
	fprintf(out, "\n]}\n");
}

/*
 * Text in a CSV cell, '"' doubled; a cell that a spreadsheet would take
 * for a formula (= + - @ first) begins with '.
 */
static void rt_fleet_csv_text(FILE *out, const char *s, bool first)
{
	if (first && (*s == '=' || *s == '+' || *s == '-' || *s == '@'))
		fputc('\'', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
}

static void rt_fleet_csv(const struct rt_fleet_report *r, const u32 *order, FILE *out)
{
	char a[32], b[32];
	u32 i, j;

	fputs("count,machines,kind,signature,first_seen,last_seen,new,", out);
	fputs("functions,releases,hosts\n", out);
	for (i = 0; i < r->nr_groups; i++) {
		const struct rt_fleet_group *g = &r->group[order[i]];

		fprintf(out, "%llu,%u,%s,%016llx,%s,%s,%s,\"",
			(unsigned long long)g->count, g->nr_machines,
			rt_kind_names[g->kind], (unsigned long long)g->sig,
			rt_fleet_iso(g->first, a, sizeof(a)),
			rt_fleet_iso(g->last, b, sizeof(b)),
			rt_fleet_new(r, g) ? "new" : "");
		rt_fleet_csv_text(out, g->functions, true);
		fputs("\",\"", out);
		for (j = 0; j < g->nr_releases; j++) {
			fputs(j ? " " : "", out);
			rt_fleet_csv_text(out, r->release[g->releases[j]], !j);
		}
		fputs("\",\"", out);
		for (j = 0; j < g->nr_machines; j++) {
			fputs(j ? " " : "", out);
			rt_fleet_csv_text(out, rt_fleet_host(r, g->machines[j]), !j);
		}
		fputs("\"\n", out);
	}
}

/**
 * rt_fleet_print() - print a fleet's report as its arguments ask
 * @r: the report
 * @order: its groups' indexes, in the order to print them
 * @out: where to print
 *
 * The entries left out are said on standard error too, by reason.
 */
void rt_fleet_print(const struct rt_fleet_report *r, const u32 *order,
		    FILE *out)
{
	u64 ignored = 0;
	u32 i;

	if (r->a->format == RT_FLEET_JSON)
		rt_fleet_json(r, order, out);
	else if (r->a->format == RT_FLEET_CSV)
		rt_fleet_csv(r, order, out);
	else
		rt_fleet_text(r, order, out);
	for (i = 0; i < RT_IGN_NR; i++)
		ignored += r->ignored[i];
	if (!ignored)
		return;
	rt_err("fleet: %llu entries ignored:", (unsigned long long)ignored);
	for (i = 0; i < RT_IGN_NR; i++)
		if (r->ignored[i])
			fprintf(stderr, " %llu %s",
				(unsigned long long)r->ignored[i],
				rt_ignored_names[i]);
	fputc('\n', stderr);
}
