/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mapping a reserved range with ramoops' mem_type meaning, shared by the
 * module and its benchmark so that both measure and use the same mapping.
 * Every mapping is ordinary memory to the CPU (memremap() or vmap()), so
 * plain stores, memset() and memcpy() are correct on it.
 */
#ifndef _RAMTRAIL_MAP_H
#define _RAMTRAIL_MAP_H

#include <linux/io.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#define RAMTRAIL_MEM_WC		0	/* write-combined (default) */
#define RAMTRAIL_MEM_UNCACHED	1
#define RAMTRAIL_MEM_CACHED	2

/* Uncached: a vmap of the range's pages, as ramoops does for mem_type=1. */
static inline void *ramtrail_vmap_uncached(phys_addr_t start, u64 size)
{
	unsigned long i, n = size >> PAGE_SHIFT;
	struct page **pages;
	void *va = NULL;

	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!pfn_valid(PHYS_PFN(start) + i))
			goto out;
		pages[i] = pfn_to_page(PHYS_PFN(start) + i);
	}
	va = vmap(pages, n, VM_MAP, pgprot_noncached(PAGE_KERNEL));
out:
	kvfree(pages);
	return va;
}

/* mem_type: RAMTRAIL_MEM_*. Return: the mapping, or NULL. */
static inline void *ramtrail_memremap(phys_addr_t start, u64 size,
				      unsigned int mem_type)
{
	if (mem_type == RAMTRAIL_MEM_UNCACHED)
		return ramtrail_vmap_uncached(start, size);
	return memremap(start, size, mem_type == RAMTRAIL_MEM_CACHED ?
			MEMREMAP_WB : MEMREMAP_WC);
}

static inline void ramtrail_memunmap(void *p, unsigned int mem_type)
{
	if (mem_type == RAMTRAIL_MEM_UNCACHED)
		vunmap(p);
	else
		memunmap(p);
}

#endif /* _RAMTRAIL_MAP_H */
