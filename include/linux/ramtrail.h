/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ramtrail: what other kernel code may call. The record path itself
 * (fs/ramtrail/ring.h) is internal; these are the supported entry points.
 * Without ramtrail they compile to nothing.
 */
#ifndef _LINUX_RAMTRAIL_H
#define _LINUX_RAMTRAIL_H

#include <linux/types.h>
#include <uapi/linux/ramtrail.h>

#if IS_ENABLED(CONFIG_RAMTRAIL)
bool ramtrail_record_event(u16 id, const void *data, unsigned int len);
void ramtrail_freeze(u32 reason);
#else
static inline bool ramtrail_record_event(u16 id, const void *data,
					 unsigned int len)
{
	return false;
}

static inline void ramtrail_freeze(u32 reason)
{
}
#endif

#endif /* _LINUX_RAMTRAIL_H */
