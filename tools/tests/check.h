/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A very small test harness: each test is a function; CHECK() records a
 * failure with its location and the test goes on. Every test command of
 * the project, C or Python (tools/tests/check.py), prints its results the
 * same way: one line a check, "ok   NAME" or "FAIL NAME" (": DETAIL"
 * after it if there is one), what failed indented below, and last the
 * summary "N passed, N failed" that tools/run-checks.sh adds up.
 */
#ifndef _RAMTRAIL_CHECK_H
#define _RAMTRAIL_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Weak: one of each, however many files of a test command include this. */
__weak int check_passed, check_failed, check_test_failed;
__weak FILE *check_notes;	/* the running test's failed CHECK()s */

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		FILE *o = check_notes ? check_notes : stdout;		\
									\
		check_test_failed = 1;					\
		fprintf(o, "    %s:%d: %s: ", __FILE__, __LINE__, #cond);\
		fprintf(o, __VA_ARGS__);				\
		fputc('\n', o);						\
	}								\
} while (0)

/* One result line, counted: "ok   NAME[: DETAIL]" or "FAIL NAME[: DETAIL]". */
static inline void check_result(bool ok, const char *name, const char *detail)
{
	printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", name,
	       detail && *detail ? ": " : "", detail ? detail : "");
	fflush(stdout);
	if (ok)
		check_passed++;
	else
		check_failed++;
}

/* Run one test; its result, then what failed in it. */
static inline void check_run(const char *name, void (*fn)(void))
{
	char *notes = NULL;
	size_t len = 0;

	check_test_failed = 0;
	check_notes = open_memstream(&notes, &len);
	fn();
	if (check_notes)
		fclose(check_notes);
	check_notes = NULL;
	check_result(!check_test_failed, name, NULL);
	if (notes)
		fputs(notes, stdout);
	free(notes);
}

#define RUN(fn) check_run(#fn, fn)

static inline int check_summary(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif /* _RAMTRAIL_CHECK_H */
