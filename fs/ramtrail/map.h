/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mapping a reserved range with ramoops' mem_type meaning, shared by the
 * module and its benchmark so that both measure and use the same mapping.
 */
#ifndef _RAMTRAIL_MAP_H
#define _RAMTRAIL_MAP_H

#include <linux/io.h>

/* mem_type: 0 write-combined, 1 uncached, 2 cached. */
static inline void *ramtrail_memremap(phys_addr_t start, u64 size,
				      unsigned int mem_type)
{
	if (mem_type == 1)
		return (__force void *)ioremap(start, size);
	return memremap(start, size, mem_type == 2 ? MEMREMAP_WB : MEMREMAP_WC);
}

static inline void ramtrail_memunmap(void *p, unsigned int mem_type)
{
	if (mem_type == 1)
		iounmap((void __iomem *)p);
	else
		memunmap(p);
}

#endif /* _RAMTRAIL_MAP_H */
