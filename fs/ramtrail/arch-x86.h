/* SPDX-License-Identifier: GPL-2.0 */
/* x86-64: the TSC, clflush, the kernel text map. See arch.h. */
#ifndef _RAMTRAIL_ARCH_X86_H
#define _RAMTRAIL_ARCH_X86_H

#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <asm/cacheflush.h>
#include <asm/msr.h>
#include <asm/page.h>
#include <asm/pgtable.h>
#include <asm/tsc.h>
#include <uapi/linux/ramtrail.h>

#define RAMTRAIL_ARCH_MACHINE		RAMTRAIL_MACHINE_X86_64
/*
 * Kernel text and modules lie in the top 2 GiB, which every 32-bit offset
 * from panic() less 2 GiB reaches. From panic(), not from the top's fixed
 * start: an offset then tells a function's place in the build, never where
 * KASLR put this boot's kernel (pstore's files reach the journal).
 */
#define RAMTRAIL_ARCH_TEXT_BASE	((unsigned long)panic - SZ_2G)
/* The module area, taken to the top of the address space. */
#define RAMTRAIL_ARCH_MODULES_START	MODULES_VADDR
#define RAMTRAIL_ARCH_MODULES_SIZE	(-(u64)MODULES_VADDR)
#define RAMTRAIL_ARCH_MODULES_MOVE	0
#define RAMTRAIL_ARCH_MODULE_AREAS	1
/* The kernel is placed at multiples of CONFIG_PHYSICAL_ALIGN (2 MiB). */
#define RAMTRAIL_ARCH_KASLR_ALIGN	CONFIG_PHYSICAL_ALIGN
#define RAMTRAIL_ARCH_UNCACHED		1
#define RAMTRAIL_ARCH_RESERVE_HOW	"reserved with memmap=SIZE$ADDR"

/* Say how to reserve @start, @size bytes, which is System RAM. */
static inline void ramtrail_arch_say_reserve(phys_addr_t start, u64 size)
{
	pr_err("%pa+%#llx is System RAM: reserve it with memmap=%lluK$%#llx on the kernel command line\n",
	       &start, size, size >> 10, (u64)start);
}

static inline int ramtrail_arch_init(void)
{
	return 0;
}

static __always_inline u64 ramtrail_arch_clock(void)
{
	return rdtsc();
}

static inline u64 ramtrail_arch_clock_hz(void)
{
	return (u64)tsc_khz * 1000;
}

static inline u32 ramtrail_arch_clock_flags(void)
{
	if (boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
	    boot_cpu_has(X86_FEATURE_NONSTOP_TSC) && !check_tsc_unstable())
		return RAMTRAIL_F_CLOCK_RELIABLE;
	return 0;
}

static inline void ramtrail_arch_flush_cached(void *p, size_t len)
{
	clflush_cache_range(p, len);
}

/*
 * Stores to WC memory are not ordered with later stores to WB memory: they
 * may wait in a write-combining buffer. sfence drains them.
 */
static __always_inline void ramtrail_arch_wc_drain(void)
{
	wmb();	/* pairs with ramtrail_rings_seal()'s smp_rmb() ([R4]) */
}

static inline void ramtrail_arch_module_areas(u64 *start, u64 *size)
{
	start[0] = RAMTRAIL_ARCH_MODULES_START;
	size[0] = RAMTRAIL_ARCH_MODULES_SIZE;
}

static inline bool ramtrail_arch_is_module(unsigned long addr)
{
	return addr - RAMTRAIL_ARCH_MODULES_START < RAMTRAIL_ARCH_MODULES_SIZE;
}

/*
 * _text would be the natural anchor, but modules cannot reach it (it is
 * not exported, nor is kallsyms_lookup_name()). panic() is exported, in
 * kernel text, and moves with it by the same KASLR delta.
 */
static inline unsigned long ramtrail_arch_text_anchor(void)
{
	return (unsigned long)panic;
}

#endif /* _RAMTRAIL_ARCH_X86_H */
