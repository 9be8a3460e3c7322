/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel facilities the shared ramtrail sources (ring.c,
 * recover.c, region.c) use, so that the same files build in the module and
 * in tools/. Nothing here may change behaviour between the two builds.
 */
#ifndef _RAMTRAIL_COMPAT_H
#define _RAMTRAIL_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/compiler.h>
#include <linux/string.h>
#include <linux/math64.h>
#include <linux/crc32.h>
#include <asm/local.h>
#include <asm/byteorder.h>
#ifdef CONFIG_X86
#include <asm/msr.h>
#else
#include <linux/trace_clock.h>
#endif

static __always_inline u64 ramtrail_clock(void)
{
#ifdef CONFIG_X86
	return rdtsc();
#else
	return trace_clock_local();
#endif
}

/* Raw CRC32 (IEEE) state update: no inversion in or out. */
static inline u32 ramtrail_crc32_update(u32 crc, const void *p, size_t len)
{
	return crc32_le(crc, p, len);
}

static inline u64 ramtrail_mul_div(u64 a, u64 b, u64 c)
{
	return mul_u64_u64_div_u64(a, b, c);
}

#else
/* tools/lib/user-compat.h: the same names for userspace builds. */
#include "user-compat.h"
#endif /* __KERNEL__ */

#endif /* _RAMTRAIL_COMPAT_H */
