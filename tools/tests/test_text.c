// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of fs/ramtrail/text.c and the module table (region.c): a record as
 * ftrace's text, and the names the module table gives.
 */
#include "test_decode.h"

/* The name of the function at @off, as a tx->name callback writes it. */
static size_t test_name(void *arg, char *buf, size_t len, u32 off, u64 ts,
			enum ramtrail_text_func which)
{
	int n = snprintf(buf, len, "%s_%x", which == RAMTRAIL_TEXT_IP ?
			 "func" : "caller", off);

	return n < (int)len ? (size_t)n : len - 1;
}

/*
 * ftrace's line of a function record, "%16.*s-%-7d [%03u] %s %5llu.%06u: ",
 * the time rounded to the microsecond, then "func <-caller\n", cut at @len.
 */
static void test_line(char *buf, size_t len, const struct ramtrail_record *r,
		      u64 ns)
{
	char task[64], flags[RAMTRAIL_TEXT_FLAGS_LEN];
	u64 us = (ns + 500) / 1000;

	if (!r->task_known)
		snprintf(task, sizeof(task), "%16s-%-7s", "<unknown>", "?");
	else if (!r->task.pid)
		snprintf(task, sizeof(task), "%16s-%-7d", "<idle>", 0);
	else
		snprintf(task, sizeof(task), "%16.*s-%-7d", RAMTRAIL_COMM_LEN - 1,
			 r->task.comm, (int)r->task.pid);
	ramtrail_text_flags(flags, r);
	snprintf(buf, len, "%s [%03u] %s %5llu.%06u: func_%x <-caller_%x\n",
		 task, r->cpu, flags, (unsigned long long)(us / 1000000),
		 (unsigned int)(us % 1000000), r->ip, r->parent);
}

/*
 * A line's columns are ftrace's whatever their values: every width of
 * comm, pids and CPUs up to and past their columns, the idle and unknown
 * tasks, times near a rounding and near 2^64; and any room, cut as
 * snprintf() cuts.
 */
static void test_text_line_is_ftrace_format(void)
{
	static const u32 pids[] = { 1, 9, 10, 4242, 9999999, 10000000,
				    0x7fffffff, 0x80000000, 0xffffffff };
	static const u32 cpus[] = { 0, 7, 99, 191, 999, 1000, 123456 };
	static const u64 times[] = { 0, 499, 500, 999999499, 999999500,
				     12345678901ULL, 1234567890123ULL,
				     99999999999499ULL, 123456789012345678ULL,
				     10000000000000000000ULL, ~0ULL - 600,
				     ~0ULL - 100 };
	static const size_t rooms[] = { 1, 2, 17, 40, 66, 67, 70, 80, 512 };
	static struct ramtrail_comm slots[16];
	struct ramtrail_text tx = { .name = test_name };
	struct ramtrail_record r = { .type = RAMTRAIL_W_FUNC_PARENT };
	char got[512], want[512];
	u32 i, k, bad = 0, lines = 0;
	size_t n;

	ramtrail_comms_init(&tx.comms, slots, 16);
	for (i = 0; i < 17 * 9 * 7 * ARRAY_SIZE(times); i++) {
		u32 c = i % 17, p = i / 17 % 9;

		/* comm of c bytes; 16 has no NUL in its 16 */
		memset(r.task.comm, 0, sizeof(r.task.comm));
		memset(r.task.comm, 'a' + c % 26, c);
		r.task_known = c != 3;
		r.task.pid = c == 5 ? 0 : pids[p];
		r.cpu = cpus[i / (17 * 9) % 7];
		r.ctx = i % 4;
		r.ip = 0x100 + i;
		r.parent = 0x9000 + i;
		for (k = 0; k < ARRAY_SIZE(rooms); k++) {
			u64 ns = times[i / (17 * 9 * 7)];

			test_line(want, rooms[k], &r, ns);
			n = ramtrail_text_record(got, rooms[k], &r, ns, &tx);
			lines++;
			if (strcmp(got, want) || n != strlen(want)) {
				if (bad++ < 3)
					printf("     room %zu: got \"%s\" (%zu) want \"%s\"\n",
					       rooms[k], got, n, want);
			}
		}
	}
	CHECK(!bad && lines == 17 * 9 * 7 * ARRAY_SIZE(times) * ARRAY_SIZE(rooms),
	      "%u of %u lines differ",
	      bad, lines);
}

/*
 * A marker is user space's bytes: printed up to a NUL, a final newline
 * dropped, each control byte as '?', so that it stays one line; the
 * longest one whole.
 */
static void test_marker_text_is_one_line(void)
{
	static const struct { const char *data; u32 len; const char *text; } m[] = {
		{ "request 42\n", 11, "request 42" },
		{ "a\nb\n\n", 5, "a?b?" },
		{ "ab\0cd", 5, "ab" },
		{ "\x1b[31mred\x7f\t\xc3\xa9\x9b", 14, "?[31mred?????" },
		{ "", 0, "" },
	};
	struct ramtrail_text tx = { .name = test_name };
	struct ramtrail_record r = { .type = RAMTRAIL_W_EVENT,
				     .id = RAMTRAIL_EV_MARKER };
	char got[RAMTRAIL_TEXT_LINE_MAX], want[RAMTRAIL_TEXT_LINE_MAX];
	u32 i;

	for (i = 0; i < ARRAY_SIZE(m); i++) {
		memset(r.data, 0, sizeof(r.data));
		memcpy(r.data, m[i].data, m[i].len);
		r.len = m[i].len;
		snprintf(want, sizeof(want), "tracing_mark_write: %s", m[i].text);
		ramtrail_text_event(got, sizeof(got), &r, &tx);
		CHECK(!strcmp(got, want), "marker %u: \"%s\" want \"%s\"", i,
		      got, want);
	}
	memset(r.data, 'y', RAMTRAIL_MARKER_MAX);
	r.len = RAMTRAIL_MARKER_MAX;
	CHECK(ramtrail_text_event(got, sizeof(got), &r, &tx) ==
	      strlen("tracing_mark_write: ") + RAMTRAIL_MARKER_MAX &&
	      strspn(got + strlen("tracing_mark_write: "), "y") ==
	      RAMTRAIL_MARKER_MAX, "the longest marker is cut: %zu", strlen(got));
}

/*
 * Whatever bytes user space puts in a task's name, a marker or the log, a
 * record's text is one line of printable ASCII whose columns stay where
 * a reader counts them: the comm right-aligned in 16, '-', the pid.
 */
static void test_user_strings_cannot_forge_lines(void)
{
	static const char *const hostile[] = {
		"a\n# trace: x", "\x1b]0;t\x07", "\2332J\xc3\xa9",
		"x [y", "\t\r\x7f\x80\xff",
	};
	static struct ramtrail_comm slots[16];
	struct ramtrail_text tx = { .name = test_name };
	struct ramtrail_record r = { .type = RAMTRAIL_W_EVENT, .cpu = 1,
				     .task_known = true };
	struct ramtrail_ev_switch sw = { .prev_pid = cpu_to_le32(7),
					 .next_pid = cpu_to_le32(8) };
	struct ramtrail_ev_task t8 = { .pid = cpu_to_le32(8) };
	char got[RAMTRAIL_TEXT_LINE_MAX];
	unsigned int i, k, bad = 0;
	size_t n, j;

	ramtrail_comms_init(&tx.comms, slots, ARRAY_SIZE(slots));
	for (i = 0; i < ARRAY_SIZE(hostile); i++) {
		for (k = 0; k < 4; k++) {
			memset(&r.task.comm, 0, sizeof(r.task.comm));
			strncpy(r.task.comm, hostile[i], RAMTRAIL_COMM_LEN - 1);
			r.task.pid = cpu_to_le32(7);
			memset(r.data, 0, sizeof(r.data));
			if (k == 0) {		/* its own task, then the next's */
				strncpy(t8.comm, hostile[i], RAMTRAIL_COMM_LEN - 1);
				ramtrail_comms_add(&tx.comms, &t8);
				r.id = RAMTRAIL_EV_SCHED_SWITCH;
				memcpy(r.data, &sw, sizeof(sw));
				r.len = sizeof(sw);
			} else if (k == 1 || k == 2) {	/* a marker, the log */
				r.id = k == 1 ? RAMTRAIL_EV_MARKER :
						RAMTRAIL_EV_PRINTK;
				r.len = strlen(hostile[i]);
				memcpy(r.data, hostile[i], r.len);
			} else {		/* an interrupt's name */
				r.id = RAMTRAIL_EV_IRQ_ENTRY;
				r.len = 4 + strlen(hostile[i]) + 1;
				memcpy(r.data + 4, hostile[i], r.len - 5);
			}
			n = ramtrail_text_record(got, sizeof(got), &r, 1000, &tx);
			for (j = 0; j < n - 1; j++)
				bad += got[j] < ' ' || got[j] > 0x7e;
			bad += got[n - 1] != '\n' || got[16] != '-' ||
			       strncmp(got + 17, "7       [001]", 13);
			if (bad)
				printf("     %u/%u: %s", i, k, got);
			CHECK(!bad, "hostile string %u, record kind %u", i, k);
		}
	}
}

/*
 * The header a part's text begins with: the lines the tools read back
 * (tools/ramtrail/image.c), a forged release or build kept on its line,
 * the longest fields within a line's room; the line its other files begin
 * with.
 */
static void test_saved_text_header(void)
{
	static const char want[] =
		"# ramtrail: boot 7 (6.12.0-rt), saved trace, 4 CPUs, frozen by panic on CPU 3\n"
		"# build: #1 SMP?forged?\n"
		"# trace: nonce 000000000000feed boot 7 part 2 of 3 file 1\n"
		"# records: 12345, lost 6, damaged blocks 1, torn 2, without time 4, left out 5\n";
	struct ramtrail_saved_trace t = { 0 };
	char got[RAMTRAIL_TEXT_LINE_MAX];
	size_t n;

	t.boot_id = cpu_to_le64(7);
	t.nonce = cpu_to_le64(0xfeedULL);
	t.nr_cpus = cpu_to_le32(4);
	t.state = cpu_to_le32(RAMTRAIL_STATE_FROZEN);
	t.freeze_reason = cpu_to_le32(RAMTRAIL_FREEZE_PANIC);
	t.freeze_cpu = cpu_to_le32(3);
	t.nr_records = cpu_to_le64(12345);
	t.dropped = cpu_to_le64(6);
	t.corrupt_blocks = cpu_to_le64(1);
	t.torn = cpu_to_le64(2);
	t.no_time = cpu_to_le64(4);
	t.skipped = cpu_to_le64(5);
	strcpy(t.release, "6.12.0-rt");
	strcpy(t.build, "#1 SMP\nforged\x1b");
	n = ramtrail_text_header(got, sizeof(got), &t, 1, 3, 0);
	CHECK(n == strlen(got) && !strcmp(got, want), "header: %s", got);
	n = ramtrail_text_header(got, sizeof(got), &t, 1, 3, 41);
	CHECK(n == strlen(got) &&
	      !strcmp(got, "# trace: nonce 000000000000feed boot 7 part 2 of 3 file 42\n"),
	      "a part's other file begins with its trace line: %s", got);
	t.state = cpu_to_le32(RAMTRAIL_STATE_RECORDING);
	memset(t.release, 'r', sizeof(t.release));
	memset(t.build, 'b', sizeof(t.build));
	t.boot_id = cpu_to_le64(~0ULL);
	t.nonce = cpu_to_le64(~0ULL);
	memset(&t.nr_records, 0xff, sizeof(t.nr_records));
	memset(&t.dropped, 0xff, offsetof(struct ramtrail_saved_trace, chunk_size) -
	       offsetof(struct ramtrail_saved_trace, dropped));
	t.nr_cpus = cpu_to_le32(~0U);
	n = ramtrail_text_header(got, sizeof(got), &t, ~0ULL - 1, ~0ULL, 0);
	CHECK(n == strlen(got) && n < sizeof(got) - 1 && got[n - 1] == '\n' &&
	      strstr(got, "recording\n# build: ") && !strstr(got, " by ") &&
	      strspn(strchr(got, '(') + 1, "r") == sizeof(t.release),
	      "the longest header fits a line: %zu bytes", n);
}

static void test_module_table_never_guesses(void)
{
	struct ramtrail_module_entry tab[3] = {
		{ .base = 0xffffffffc0000000ULL, .size = 0x1000, .name = "a" },
		{ .base = 0xffffffffc0002000ULL, .size = 0x1000, .name = "b" },
		/* loaded where a was, after a was unloaded */
		{ .base = 0xffffffffc0000000ULL, .size = 0x800, .name = "c" },
	};
	bool timed;
	int i;

	for (i = 0; i < 3; i++)
		tab[i].checksum = ramtrail_module_checksum(&tab[i]);
	CHECK(ramtrail_module_find(tab, 3, 0xffffffffc0002010ULL, 5, &timed) ==
	      1 && !timed, "b");
	CHECK(ramtrail_module_find(tab, 3, 0xffffffffc0000010ULL, 5, &timed) ==
	      -1 && timed, "an address a and c both covered got a name");
	CHECK(ramtrail_module_find(tab, 3, 0xffffffffc0000010ULL, ~0ULL, NULL) ==
	      -1, "an unload's time guessed");
	CHECK(ramtrail_module_find(tab, 2, 0xffffffffc0000010ULL, 5, NULL) == 0,
	      "a");
	CHECK(ramtrail_module_find(tab, 3, 0xffffffffc0000900ULL, 5, NULL) == 0,
	      "a past c's end");
	tab[1].flags = RAMTRAIL_MOD_GONE;	/* written later: not covered */
	CHECK(ramtrail_module_find(tab, 3, 0xffffffffc0002010ULL, 5, NULL) == 1,
	      "flags broke the entry");
	tab[1].size++;
	CHECK(ramtrail_module_find(tab, 3, 0xffffffffc0002010ULL, 5, NULL) == -1,
	      "damaged entry used");
}

/*
 * The kernel frees a module's init text when its init ends, and the next
 * module loaded often takes that very place (measured under QEMU: the next
 * one's text began at the address of the last one's init). A record of the
 * init must not get the next module's name, nor the reverse.
 */
static void test_module_init_text_named_by_time(void)
{
	enum { A, A_INIT, B, B_INIT, C, C_INIT, N };
	const u64 base = 0xffffffffc0000000ULL, a_end = 1000, b_end = 2000;
	struct ramtrail_module_entry tab[N] = {
		[A] = { .base = base, .size = 0x2000, .core_size = 0x3000,
			.name = "a" },
		[A_INIT] = { .base = base + 0x2000, .size = 0x1000,
			     .init_end = a_end, .flags = RAMTRAIL_MOD_INIT,
			     .name = "a" },
		/* loaded once a's init was freed: its text where that was */
		[B] = { .base = base + 0x2000, .size = 0x1000,
			.core_size = 0x2000, .name = "b" },
		[B_INIT] = { .base = base + 0x3000, .size = 0x1000,
			     .init_end = b_end, .flags = RAMTRAIL_MOD_INIT,
			     .name = "b" },
		/* c's init still ran at the end: no end time */
		[C] = { .base = base + 0x3000, .size = 0x1000,
			.core_size = 0x1000, .name = "c" },
		[C_INIT] = { .base = base + 0x4000, .size = 0x1000,
			     .flags = RAMTRAIL_MOD_INIT, .name = "c" },
	};
	const u64 in_a_init = base + 0x2010, in_b_init = base + 0x3010;
	bool timed = false;
	u32 i;

	for (i = 0; i < N; i++)
		tab[i].checksum = ramtrail_module_checksum(&tab[i]);
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end - 1, &timed) ==
	      A_INIT && timed, "a's init, before it ended");
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end, NULL) == B,
	      "b, once a's init ended");
	CHECK(ramtrail_module_find(tab, N, in_b_init, a_end - 1, NULL) ==
	      B_INIT, "b's init, before it ended");
	CHECK(ramtrail_module_find(tab, N, in_b_init, b_end + 1, NULL) == C,
	      "c, once b's init ended");
	CHECK(ramtrail_module_find(tab, N, base + 0x4010, 5, &timed) ==
	      C_INIT && !timed, "c's init, running at the end");
	CHECK(ramtrail_module_find(tab, N, base + 0x10, 5, &timed) == A &&
	      !timed, "a's text");
	/* Alone, init text that ended names nothing after its end. */
	CHECK(ramtrail_module_find(tab, B, in_a_init, a_end + 1, &timed) ==
	      -1 && timed, "freed init text named");
	/* The flag is covered: neither side can take the other's place. */
	tab[A_INIT].flags = 0;
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end - 1, NULL) == -1,
	      "init text whose flag was cleared used");
	tab[A_INIT].flags = RAMTRAIL_MOD_INIT;
	tab[B].flags = RAMTRAIL_MOD_INIT | RAMTRAIL_MOD_GONE;
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end, NULL) == -1,
	      "text whose init flag was set used");
	tab[B].flags = RAMTRAIL_MOD_GONE;	/* written later: not covered */
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end, NULL) == B,
	      "gone broke the entry");
	/* Damaged, b is nothing sure, but began after a's init ended. */
	tab[B].core_size++;
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end, NULL) == -1,
	      "damaged entry used");
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end - 1, NULL) ==
	      A_INIT, "a damaged later entry hid a's init");
	tab[B].core_size--;
	/* An unloaded module's text keeps no time: a later one makes it -1. */
	tab[C].base = base + 0x2000;
	tab[C].checksum = ramtrail_module_checksum(&tab[C]);
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end + 5, NULL) == -1,
	      "b unloaded, c there: a name guessed");
	CHECK(ramtrail_module_find(tab, N, in_a_init, a_end - 1, NULL) ==
	      A_INIT, "a's init, before b and c");
}

/*
 * An unloaded module's entry keeps when: it names the records before
 * then, and nothing after, whatever came to its place with no entry (a
 * BPF program, a kprobe's page); a module loaded there later is named
 * alone. The time is covered by the checksum and converted to
 * nanoseconds in a saved trace's copy.
 */
static void test_unloaded_module_names_nothing_after_its_unload(void)
{
	enum { A, B, N };
	const u64 base = 0xffffffffc0000000ULL, gone = 500;
	struct ramtrail_module_entry tab[N] = {
		[A] = { .base = base, .size = 0x2000, .core_size = 0x3000,
			.flags = RAMTRAIL_MOD_GONE, .name = "a", .gone = gone },
		/* loaded after a's unload, where a was */
		[B] = { .base = base, .size = 0x1000, .core_size = 0x1000,
			.name = "b" },
	};
	struct ramtrail_region_header h = {
		.clock_hz = 1000000000ULL, .clock_ref_ns = 7,
	};
	struct ramtrail_saved_trace *t =
		calloc(1, RAMTRAIL_SAVED_HEAD_SLOT + sizeof(tab));
	struct ramtrail_module_entry *e = ramtrail_saved_modules(t);
	bool timed = false;
	u32 i;

	for (i = 0; i < N; i++)
		tab[i].checksum = ramtrail_module_checksum(&tab[i]);
	CHECK(ramtrail_module_find(tab, 1, base + 0x10, gone - 1, NULL) == A,
	      "a, before its unload");
	CHECK(ramtrail_module_find(tab, 1, base + 0x10, gone, NULL) == -1 &&
	      ramtrail_module_find(tab, 1, base + 0x1010, ~0ULL, NULL) == -1,
	      "a named after its unload, where no entry tells what came");
	CHECK(ramtrail_module_find(tab, N, base + 0x10, gone - 1, &timed) ==
	      A && timed, "a, before b came there");
	CHECK(ramtrail_module_find(tab, N, base + 0x10, gone + 1, NULL) == B,
	      "b, once a was unloaded");
	CHECK(ramtrail_module_find(tab, N, base + 0x1010, gone + 1, NULL) ==
	      -1, "a's text past b's end named after a's unload");
	tab[A].gone++;	/* covered: the entry is damaged */
	CHECK(ramtrail_module_find(tab, 1, base + 0x10, 1, NULL) == -1,
	      "an entry whose unload time changed used");
	tab[A].gone--;
	ramtrail_saved_modules_copy(t, tab, N, &h);
	CHECK(e[A].gone == ramtrail_ts_to_ns(&h, gone) &&
	      e[A].checksum == ramtrail_module_checksum(&e[A]) &&
	      ramtrail_module_find(e, N, base + 0x10, e[A].gone - 1, NULL) ==
	      A && ramtrail_module_find(e, N, base + 0x10, e[A].gone, NULL) ==
	      B, "saved copy: the unload time not in ns");
	free(t);
}

/*
 * A module that finds the table full gets no entry, and may lie where an
 * unloaded module was, alone in the table there: from the time the table
 * filled (its last entry), that entry names nothing. Modules still loaded
 * and init text before its end keep their names; an address no entry
 * covers is unknown then (timed: the dump must not take the kernel's
 * name of now). The entry of a full table is covered by its checksum,
 * and converted to nanoseconds in a saved trace's copy.
 */
static void test_module_table_full(void)
{
	enum { A, A_INIT, B, FULL, N };
	const u64 base = 0xffffffffc0000000ULL, a_end = 1000, full = 5000;
	struct ramtrail_module_entry tab[N] = {
		[A] = { .base = base, .size = 0x1000, .core_size = 0x2000,
			.flags = RAMTRAIL_MOD_GONE, .name = "a" },
		[A_INIT] = { .base = base + 0x1000, .size = 0x1000,
			     .init_end = a_end, .flags = RAMTRAIL_MOD_INIT,
			     .name = "a" },
		[B] = { .base = base + 0x4000, .size = 0x1000,
			.core_size = 0x1000, .name = "b" },	/* stayed */
		[FULL] = { .base = base, .size = -base, .full_since = full,
			   .flags = RAMTRAIL_MOD_FULL },
	};
	struct ramtrail_region_header h = {
		.clock_hz = 1000000000ULL, .clock_ref_ns = 7,
	};
	struct ramtrail_saved_trace *t = calloc(1, RAMTRAIL_SAVED_HEAD_SLOT + sizeof(tab));
	struct ramtrail_module_entry *e = ramtrail_saved_modules(t);
	bool timed = false;
	u32 i;

	for (i = 0; i < N; i++)
		tab[i].checksum = ramtrail_module_checksum(&tab[i]);
	CHECK(ramtrail_module_find(tab, N, base + 0x10, full - 1, &timed) ==
	      A && timed, "a, unloaded, before the table filled");
	CHECK(ramtrail_module_find(tab, N, base + 0x10, full, &timed) == -1 &&
	      timed, "a gone: named after the table filled");
	CHECK(ramtrail_module_find(tab, N, base + 0x4010, ~0ULL, &timed) ==
	      B && timed, "b, loaded all along, lost its name");
	CHECK(ramtrail_module_find(tab, N, base + 0x1010, a_end - 1, NULL) ==
	      A_INIT, "a's init before its end");
	CHECK(ramtrail_module_find(tab, N, base + 0x8000, 1, &timed) == -1 &&
	      timed, "no entry, after: not timed");
	CHECK(ramtrail_module_find(tab, FULL, base + 0x8000, 1, &timed) ==
	      -1 && !timed, "no entry in a table not full: timed");
	CHECK(ramtrail_module_find(tab, N, 0xffffffff81000000ULL, full,
				   &timed) == -1 && !timed,
	      "kernel text, below the module area: timed");
	/* The flag is covered: cleared, the entry is damaged, covering all. */
	tab[FULL].flags = 0;
	CHECK(ramtrail_module_find(tab, N, base + 0x4010, 1, NULL) == -1,
	      "an entry of a full table that lost its flag used");
	tab[FULL].flags = RAMTRAIL_MOD_FULL;
	tab[B].flags = RAMTRAIL_MOD_FULL;
	CHECK(ramtrail_module_find(tab, N, base + 0x4010, 1, NULL) == -1,
	      "a module entry given the flag used");
	tab[B].flags = 0;
	ramtrail_saved_modules_copy(t, tab, N, &h);
	CHECK(e[FULL].full_since == ramtrail_ts_to_ns(&h, full) &&
	      e[FULL].checksum == ramtrail_module_checksum(&e[FULL]),
	      "the time the table filled not in ns");
	CHECK(ramtrail_module_find(e, N, base + 0x10, e[FULL].full_since - 1,
				   NULL) == A &&
	      ramtrail_module_find(e, N, base + 0x10, e[FULL].full_since,
				   NULL) == -1, "saved copy: wrong time");
	free(t);
}

/*
 * The hash that tells the traced build of a module from another: the same
 * functions at the same offsets give it in any order (the kernel's symbol
 * table and the .ko's differ in order); a function moved or renamed, one
 * more or one less, change it.
 */
static void test_module_syms_hash(void)
{
	static const struct { const char *name; u64 off; } f[] = {
		{ "a_init", 0 }, { "a_poke", 0x40 }, { "a_exit", 0x90 },
	};
	u64 fwd = 0, rev = 0, moved = 0, renamed = 0, fewer = 0;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(f); i++) {
		const u32 j = ARRAY_SIZE(f) - 1 - i;

		fwd = ramtrail_module_sym_add(fwd, f[i].name, strlen(f[i].name),
					      f[i].off);
		rev = ramtrail_module_sym_add(rev, f[j].name, strlen(f[j].name),
					      f[j].off);
		moved = ramtrail_module_sym_add(moved, f[i].name,
						strlen(f[i].name),
						f[i].off + (i == 1) * 8);
		renamed = ramtrail_module_sym_add(renamed, i == 2 ? "a_exiT" :
						  f[i].name, strlen(f[i].name),
						  f[i].off);
		if (i)
			fewer = ramtrail_module_sym_add(fewer, f[i].name,
							strlen(f[i].name),
							f[i].off);
	}
	CHECK(fwd && fwd == rev, "order changed the hash");
	CHECK(moved != fwd && renamed != fwd && fewer != fwd,
	      "a moved, renamed or missing function kept the hash");
}

/*
 * The kernel's entry (RAMTRAIL_MOD_KERNEL): its hash changes when one of
 * its functions moves or two swap places, not with KASLR; the entry names
 * no address, not even its own, keeps its hash in a saved trace's copy,
 * and a flag cleared fails its checksum.
 */
static void test_module_table_kernel(void)
{
	const u64 anchor = 0xffffffff81234560ULL, mod = 0xffffffffc0000000ULL;
	u64 off[RAMTRAIL_KERNEL_NR_FUNCS], h, moved, swapped, k;
	struct ramtrail_module_entry tab[2] = {
		{ .base = anchor, .flags = RAMTRAIL_MOD_KERNEL,
		  .name = "vmlinux" },
		{ .base = mod, .size = 0x1000, .core_size = 0x2000,
		  .name = "a" },
	};
	struct ramtrail_region_header hdr = { .clock_hz = 1000000000ULL };
	struct ramtrail_saved_trace *t = calloc(1, RAMTRAIL_SAVED_HEAD_SLOT + sizeof(tab));
	struct ramtrail_module_entry e;
	u32 i;

	for (i = 0; i < RAMTRAIL_KERNEL_NR_FUNCS; i++)
		off[i] = 0x1000 + i * 0x3a0;
	h = ramtrail_kernel_hash(off);
	off[RAMTRAIL_KERNEL_NR_FUNCS - 1] += 0x10;
	moved = ramtrail_kernel_hash(off);
	off[RAMTRAIL_KERNEL_NR_FUNCS - 1] -= 0x10;
	k = off[0];
	off[0] = off[1];
	off[1] = k;
	swapped = ramtrail_kernel_hash(off);
	CHECK(RAMTRAIL_KERNEL_NR_FUNCS > 16 && h && moved != h &&
	      swapped != h, "a function moved or two swapped kept the hash");
	tab[0].funcs_hash = h;
	for (i = 0; i < 2; i++)
		tab[i].checksum = ramtrail_module_checksum(&tab[i]);
	for (i = 0; i < 2; i++)
		CHECK(ramtrail_module_find(tab, 2, anchor + i, 1, NULL) == -1,
		      "the kernel entry named %#llx",
		      (unsigned long long)anchor + i);
	CHECK(ramtrail_module_find(tab, 2, mod + 8, 1, NULL) == 1,
	      "the module after the kernel entry not found");
	ramtrail_saved_modules_copy(t, tab, 2, &hdr);
	CHECK(!memcmp(ramtrail_saved_modules(t), tab, sizeof(tab)),
	      "the saved copy changed the kernel entry");
	moved = 0;
	CHECK(ramtrail_module_kernel(tab, 2, &moved) == 1 && moved == h &&
	      ramtrail_module_kernel(tab + 1, 1, &moved) == 0,
	      "the kernel entry's hash not found, or found where none is");
	tab[0].funcs_hash ^= 1;
	CHECK(ramtrail_module_kernel(tab, 2, &moved) == -1,
	      "a damaged kernel entry taken as whole");
	tab[0].funcs_hash ^= 1;
	e = tab[0];
	e.flags = 0;
	CHECK(e.checksum != ramtrail_module_checksum(&e),
	      "the kernel flag is not covered by the checksum");
	free(t);
}

/* A module named by the table alone: no byte of a forged name gets out. */
static void test_module_name_from_the_table(void)
{
	struct ramtrail_module_entry m = {
		.base = 0xffffffffc0001000ULL, .size = 0x1000,
		.name = "ok_mod-1\n\x1b[2J",
	};
	char buf[64], small[8];

	ramtrail_text_module(buf, sizeof(buf), &m, m.base + 0x2a);
	CHECK(!strcmp(buf, "[ok_mod-1???2J]+0x2a"), "%s", buf);
	m.flags = RAMTRAIL_MOD_INIT;
	CHECK(ramtrail_text_module(buf, sizeof(buf), &m, m.base) ==
	      strlen(buf) && !strcmp(buf, "[ok_mod-1???2J].init+0x0"), "%s",
	      buf);
	CHECK(ramtrail_text_module(small, sizeof(small), &m, m.base) == 7 &&
	      !strcmp(small, "[ok_mod"), "%s", small);
}

/*
 * A saved trace's records carry nanoseconds: its copy of the module table
 * must say when init text ended in nanoseconds too, or a record just
 * before the end would take the next module's name (and one after it the
 * init's). A damaged entry stays damaged.
 */
static void test_saved_module_table_in_nanoseconds(void)
{
	const u64 base = 0xffffffffc0000000ULL;
	struct ramtrail_module_entry tab[3] = {
		{ .base = base, .size = 0x1000, .flags = RAMTRAIL_MOD_INIT,
		  .init_end = 3000000, .name = "a" },	/* 1 ms at 3 GHz */
		{ .base = base, .size = 0x1000, .core_size = 0x2000,
		  .name = "b" },
		{ .base = base + 0x1000, .size = 0x1000,
		  .flags = RAMTRAIL_MOD_INIT, .init_end = 6000000,
		  .name = "c" },
	};
	struct ramtrail_region_header h = {
		.clock_hz = 3000000000ULL, .clock_ref_cycles = 0,
		.clock_ref_ns = 5000000000ULL,
	};
	struct ramtrail_saved_trace *t =
		calloc(1, RAMTRAIL_SAVED_HEAD_SLOT + sizeof(tab));
	struct ramtrail_module_entry *e = ramtrail_saved_modules(t);
	const u64 end_ns = ramtrail_ts_to_ns(&h, 3000000);
	u32 i;

	for (i = 0; i < 3; i++)
		tab[i].checksum = ramtrail_module_checksum(&tab[i]);
	tab[2].checksum ^= 1;			/* damaged */
	ramtrail_saved_modules_copy(t, tab, 3, &h);
	CHECK(t->modtab_count == 3 && end_ns == 5001000000ULL,
	      "count %u end %llu", t->modtab_count,
	      (unsigned long long)end_ns);
	CHECK(e[0].init_end == end_ns &&
	      e[0].checksum == ramtrail_module_checksum(&e[0]),
	      "init end not in ns, or its checksum not set again");
	CHECK(!memcmp(&e[1], &tab[1], sizeof(tab[1])), "text entry changed");
	CHECK(!memcmp(&e[2], &tab[2], sizeof(tab[2])),
	      "damaged entry made whole");
	CHECK(ramtrail_module_find(e, 3, base + 0x10, end_ns - 1, NULL) == 0 &&
	      ramtrail_module_find(e, 3, base + 0x10, end_ns, NULL) == 1,
	      "records in ns named by the wrong entry");
	free(t);
}

/* Names a hostile line could hold: the words the scanners look for. */
static const char *const scan_pieces[] = {
	" next_pid=1", " next_prio=2", " prev_pid=3", " prev_prio=4",
	" prev_state=", "R+", "S|D", " ==> next_comm=", "<...>", " pid=5",
	" prio=6", " target_cpu=007", " now=8", " baseclk=9", "-", "x", " ",
	"\n", "\x1b[", "\xff", "0",
};

static u32 scan_rand(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (u32)(*x >> 16);
}

/* A task's name of up to 15 bytes made of @scan_pieces, or not ended. */
static void scan_comm(char comm[RAMTRAIL_COMM_LEN], u64 *x)
{
	size_t n = 0, k;
	const char *w;

	memset(comm, 0, RAMTRAIL_COMM_LEN);
	while (scan_rand(x) % 4) {
		w = scan_pieces[scan_rand(x) % ARRAY_SIZE(scan_pieces)];
		k = strlen(w);
		if (n + k > RAMTRAIL_COMM_LEN - 1)
			break;
		memcpy(comm + n, w, k);
		n += k;
	}
	if (scan_rand(x) % 16 == 0)
		memset(comm, 'z', RAMTRAIL_COMM_LEN);
}

/* A pid as the kernel gives them (below 2^22), the idle's, the unknown. */
static u32 scan_pid(u64 *x)
{
	static const u32 pids[] = { 0, 1, 7, 4242, (1U << 22) - 1,
				    RAMTRAIL_PID_UNKNOWN };

	return scan_rand(x) % 2 ? pids[scan_rand(x) % ARRAY_SIZE(pids)] :
				  scan_rand(x) % (1U << 22);
}

/* The function an event names: by name, a module's, or an address. */
static size_t scan_name(void *arg, char *buf, size_t len, u32 off, u64 ts,
			enum ramtrail_text_func which)
{
	static const char *const names[] = {
		"caller_%x", "[ext4]+0x%x", "0x%x", "f now=%u", "g: function %x",
	};
	int n;

	if (arg)	/* the name the scanner read back */
		n = snprintf(buf, len, "%s", (const char *)arg);
	else
		n = snprintf(buf, len, names[off % ARRAY_SIZE(names)], off);
	return n < (int)len ? (size_t)n : len - 1;
}

/*
 * Each scanner of tools/lib/text_scan.c undoes its formatter: whatever the
 * payload, and whatever names user space gave the tasks it names, an
 * event's text read back gives a record whose text is the same, with the
 * tasks and the function the scanner found as the only names known.
 */
static void test_text_scan_undoes_the_text(void)
{
	static struct ramtrail_comm slots[64], slots2[64];
	struct ramtrail_text tx = { .name = scan_name };
	struct ramtrail_text tx2 = { .name = scan_name };
	struct ramtrail_record r = { .type = RAMTRAIL_W_EVENT }, back;
	const struct ramtrail_event_desc *d;
	char line[RAMTRAIL_TEXT_LINE_MAX], again[RAMTRAIL_TEXT_LINE_MAX];
	struct ramtrail_ev_task t;
	struct ramtrail_text_scan s;
	u32 i, k, id, len, v, bad = 0, scanned = 0;
	u64 x = 0x9e3779b97f4a7c15ULL;

	for (i = 0; i < 200000; i++) {
		id = scan_rand(&x) % RAMTRAIL_EV_NR;
		d = ramtrail_event_desc(id);
		if (!d || !d->format.scan)
			continue;
		ramtrail_comms_init(&tx.comms, slots, ARRAY_SIZE(slots));
		memset(r.data, 0, sizeof(r.data));
		r.id = id;
		r.cpu = scan_rand(&x) % 4;
		len = d->min_len + scan_rand(&x) % 24;
		for (k = 0; k < len; k += 4) {
			v = scan_rand(&x) % 3 ? scan_pid(&x) : scan_rand(&x);
			memcpy(r.data + k, &v, 4);
		}
		if (id == RAMTRAIL_EV_PRINTK || id == RAMTRAIL_EV_MARKER ||
		    id == RAMTRAIL_EV_IRQ_ENTRY) {
			len = id == RAMTRAIL_EV_IRQ_ENTRY ? 4 : 0;
			for (k = 0; k < 1 + scan_rand(&x) % 12; k++)
				scan_comm((char *)r.data + len +
					  RAMTRAIL_COMM_LEN * k, &x);
			len += id == RAMTRAIL_EV_IRQ_ENTRY ? RAMTRAIL_IRQ_NAME_LEN :
			       RAMTRAIL_COMM_LEN * k;
		}
		r.len = len > RAMTRAIL_EVENT_MAX_LEN ? RAMTRAIL_EVENT_MAX_LEN : len;
		/* The tasks it names: its own, and others from the table. */
		for (k = 0; k < 5; k += 4) {
			memcpy(&t.pid, r.data + (id == RAMTRAIL_EV_SCHED_SWITCH ?
						  k * 3 : 0), 4);
			t.tgid = t.pid;
			scan_comm(t.comm, &x);
			ramtrail_comms_add_task(&tx.comms, &t, r.cpu);
		}
		/* Its own task: a record's task is never the unknown pid. */
		memcpy(&r.task.pid, r.data + 4 * (scan_rand(&x) % 4), 4);
		r.task_known = scan_rand(&x) % 2 &&
			       r.task.pid != cpu_to_le32(RAMTRAIL_PID_UNKNOWN);
		scan_comm(r.task.comm, &x);

		ramtrail_text_event(line, sizeof(line), &r, &tx);
		back = r;
		if (!ramtrail_text_scan_event(&back, line, &s)) {
			if (bad++ < 8)
				printf("     not read back: %s\n", line);
			continue;
		}
		ramtrail_comms_init(&tx2.comms, slots2, ARRAY_SIZE(slots2));
		for (k = 0; k < s.nr_tasks; k++)	/* as the tools do */
			ramtrail_comms_add_task(&tx2.comms, &s.task[k], r.cpu);
		tx2.arg = s.func[0] ? s.func : NULL;
		back.task_known = false;
		ramtrail_text_event(again, sizeof(again), &back, &tx2);
		scanned++;
		if (back.id != r.id || strcmp(line, again)) {
			if (bad++ < 8)
				printf("     %s\n  as %s\n", line, again);
		}
	}
	CHECK(!bad && scanned > 100000, "%u of %u lines misread", bad, scanned);
}

void test_text_all(void)
{
	RUN(test_text_line_is_ftrace_format);
	RUN(test_marker_text_is_one_line);
	RUN(test_user_strings_cannot_forge_lines);
	RUN(test_text_scan_undoes_the_text);
	RUN(test_saved_text_header);
	RUN(test_module_table_never_guesses);
	RUN(test_module_init_text_named_by_time);
	RUN(test_unloaded_module_names_nothing_after_its_unload);
	RUN(test_module_table_full);
	RUN(test_module_syms_hash);
	RUN(test_module_table_kernel);
	RUN(test_saved_module_table_in_nanoseconds);
	RUN(test_module_name_from_the_table);
}
