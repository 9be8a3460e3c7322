/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ramtrail fleet's report: what fleet.c made of a fleet's crash records,
 * and what fleet_print.c prints of it.
 */
#ifndef _RAMTRAIL_FLEET_H
#define _RAMTRAIL_FLEET_H

#include "ramtrail.h"

/* Why an entry read was left out. */
enum rt_fleet_ignored {
	RT_IGN_MALFORMED,	/* not a line of journalctl -o json */
	RT_IGN_OTHER,		/* not ramtrail's message ids */
	RT_IGN_UNTRUSTED,	/* not logged by root's ramtrail-collect.service */
	RT_IGN_INCOMPLETE,	/* no signature, machine or time */
	RT_IGN_DUPLICATE,	/* a trace of a machine already counted */
	RT_IGN_LIMIT,		/* more groups, machines or releases than kept */
	RT_IGN_NR,
};

/* The entries of one kind and signature. */
struct rt_fleet_group {
	u64 sig;
	enum rt_crash_kind kind;
	u64 count;
	u64 first;	/* __REALTIME_TIMESTAMP: microseconds since the epoch */
	u64 last;
	char *functions;	/* of its first entry read */
	u32 *machines;	/* its machines and releases, filled at the end */
	u32 nr_machines;
	u32 *releases;
	u32 nr_releases;
};

/* A machine, by its _MACHINE_ID. */
struct rt_fleet_machine {
	char *id;
	char *host;	/* its newest entry's; "" if none */
	u64 seen;	/* when */
};

/**
 * struct rt_fleet_report - a fleet's crash records, grouped
 * @a: what was asked
 * @group: the groups, in the order first read
 * @nr_groups: entries of @group
 * @machine: the machines, in the order first read
 * @nr_machines: entries of @machine
 * @release: the kernel releases, printable ASCII
 * @nr_releases: entries of @release
 * @records: entries counted
 * @ignored: entries left out, by reason
 */
struct rt_fleet_report {
	const struct rt_fleet_args *a;
	struct rt_fleet_group *group;
	u32 nr_groups;
	struct rt_fleet_machine *machine;
	u32 nr_machines;
	char **release;
	u32 nr_releases;
	u64 records;
	u64 ignored[RT_IGN_NR];
};

void rt_fleet_print(const struct rt_fleet_report *r, const u32 *order,
		    FILE *out);

#endif /* _RAMTRAIL_FLEET_H */
