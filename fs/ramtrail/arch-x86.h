/* SPDX-License-Identifier: GPL-2.0 */
/* x86-64: the TSC, clflush, the kernel text map. See arch.h. */
#ifndef _RAMTRAIL_ARCH_X86_H
#define _RAMTRAIL_ARCH_X86_H

#include <linux/kernel.h>
#include <linux/types.h>
#include <asm/cacheflush.h>
#include <asm/msr.h>
#include <asm/page.h>
#include <asm/pgtable.h>
#include <asm/tsc.h>
#include <uapi/linux/ramtrail.h>

#define RAMTRAIL_ARCH_MACHINE		RAMTRAIL_MACHINE_X86_64
#define RAMTRAIL_ARCH_TEXT_BASE	__START_KERNEL_map
/* The module area, taken to the top of the address space. */
#define RAMTRAIL_ARCH_MODULES_START	MODULES_VADDR
#define RAMTRAIL_ARCH_MODULES_SIZE	(-(u64)MODULES_VADDR)
/* The kernel is placed at multiples of CONFIG_PHYSICAL_ALIGN (2 MiB). */
#define RAMTRAIL_ARCH_KASLR_ALIGN	CONFIG_PHYSICAL_ALIGN

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
