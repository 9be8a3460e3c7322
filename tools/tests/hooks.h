/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forced into every test build (-include): tools/lib/user-compat.h then
 * calls test_reservation() after each reservation a writer makes, so the
 * tests can watch (and interrupt) it there. The module, the benchmark and
 * the command build without.
 */
#ifndef _RAMTRAIL_TEST_HOOKS_H
#define _RAMTRAIL_TEST_HOOKS_H

#define RAMTRAIL_TEST_HOOKS	1

#endif /* _RAMTRAIL_TEST_HOOKS_H */
