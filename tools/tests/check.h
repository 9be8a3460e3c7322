/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A very small test harness: each test is a function; CHECK() records a
 * failure with its location and the test goes on. The summary line is the
 * project's common "N passed, N failed".
 */
#ifndef _RAMTRAIL_CHECK_H
#define _RAMTRAIL_CHECK_H

#include <stdio.h>

static int check_passed, check_failed, check_test_failed;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		if (!check_test_failed)					\
			printf("\n");					\
		check_test_failed = 1;					\
		printf("    %s:%d: %s: ", __FILE__, __LINE__, #cond);	\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

static inline void check_run(const char *name, void (*fn)(void))
{
	check_test_failed = 0;
	printf("  %-52s", name);
	fflush(stdout);
	fn();
	if (check_test_failed) {
		check_failed++;
		printf("  FAIL %s\n", name);
	} else {
		check_passed++;
		printf(" ok\n");
	}
}

#define RUN(fn) check_run(#fn, fn)

static inline int check_summary(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif /* _RAMTRAIL_CHECK_H */
