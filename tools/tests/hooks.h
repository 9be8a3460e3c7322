/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forced into every test build (-include): lets the tests observe each
 * reservation the writer makes. The module and the benchmark build without.
 */
#ifndef _RAMTRAIL_TEST_HOOKS_H
#define _RAMTRAIL_TEST_HOOKS_H

struct ramtrail_ring;

void test_reserved(struct ramtrail_ring *r, unsigned long pos,
		   unsigned long long ts, unsigned int type, unsigned int head,
		   const unsigned int *cont, unsigned int ncont);

#define ramtrail_test_reserved(r, pos, ts, type, head, cont, ncont) \
	test_reserved(r, pos, ts, type, head, cont, ncont)

#endif /* _RAMTRAIL_TEST_HOOKS_H */
