/* SPDX-License-Identifier: GPL-2.0 */
/* A block's seal: the hash its writer stores and its reader checks. */
#ifndef _RAMTRAIL_SEAL_H
#define _RAMTRAIL_SEAL_H

#include "compat.h"
#include <linux/ramtrail.h>

#define RAMTRAIL_SEAL_LANES	8

_Static_assert(RAMTRAIL_SEAL_WORD < RAMTRAIL_SEAL_LANES &&
	       RAMTRAIL_BLOCK_WORDS_HDR <= RAMTRAIL_SEAL_LANES,
	       "the header's words are the first group");

static __always_inline u64 ramtrail_seal_mix(u64 x)
{
	x *= RAMTRAIL_SEAL_MIX1;
	x ^= x >> 33;
	x *= RAMTRAIL_SEAL_MIX2;
	return x ^ x >> 29;
}

static __always_inline u64 ramtrail_seal_step(u64 h, __le64 w)
{
	return rol64((h ^ le64_to_cpu(w)) * RAMTRAIL_SEAL_MUL, RAMTRAIL_SEAL_ROT);
}

/* One word into each lane: written out, so that the lanes stay in registers. */
static __always_inline void ramtrail_seal_group(u64 *h, const __le64 *w)
{
	h[0] = ramtrail_seal_step(h[0], w[0]);
	h[1] = ramtrail_seal_step(h[1], w[1]);
	h[2] = ramtrail_seal_step(h[2], w[2]);
	h[3] = ramtrail_seal_step(h[3], w[3]);
	h[4] = ramtrail_seal_step(h[4], w[4]);
	h[5] = ramtrail_seal_step(h[5], w[5]);
	h[6] = ramtrail_seal_step(h[6], w[6]);
	h[7] = ramtrail_seal_step(h[7], w[7]);
}

/*
 * The seal value of the block at @b over its first @n words, from
 * RAMTRAIL_BLOCK_WORDS_HDR to all (format: include/uapi/linux/ramtrail.h).
 * Each word is read once.
 */
static __always_inline u64 ramtrail_seal_value(const __le64 *b, unsigned int n)
{
	u64 h[RAMTRAIL_SEAL_LANES], x = 0;
	__le64 g[RAMTRAIL_SEAL_LANES];
	unsigned int i, k;

	for (k = 0; k < RAMTRAIL_SEAL_LANES; k++) {
		h[k] = RAMTRAIL_SEAL_LANE * (2 * k + 1);
		g[k] = k == RAMTRAIL_SEAL_WORD || k >= n ? 0 : b[k];
	}
	ramtrail_seal_group(h, g);
	for (i = RAMTRAIL_SEAL_LANES; i + RAMTRAIL_SEAL_LANES <= n;
	     i += RAMTRAIL_SEAL_LANES)
		ramtrail_seal_group(h, b + i);
	/* A block sealed in part: the words from @n on count as 0. */
	for (; i < RAMTRAIL_BLOCK_SIZE / 8; i += RAMTRAIL_SEAL_LANES) {
		for (k = 0; k < RAMTRAIL_SEAL_LANES; k++)
			g[k] = i + k < n ? b[i + k] : 0;
		ramtrail_seal_group(h, g);
	}
	for (k = 0; k < RAMTRAIL_SEAL_LANES; k++)
		x = ramtrail_seal_mix(x ^ h[k]);
	return (x & RAMTRAIL_CLOCK_MASK & ~RAMTRAIL_SEAL_N_MASK) | (n - 1);
}

#endif /* _RAMTRAIL_SEAL_H */
