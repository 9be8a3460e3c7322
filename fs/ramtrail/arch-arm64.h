/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64: the generic timer's virtual counter, cleaning to the point of
 * coherency (arch-arm64.c), a text window placed around the kernel image.
 * See arch.h.
 *
 * With KASLR the kernel image lies anywhere in the vmalloc area, and its
 * modules in a 2 GiB box that contains the image (6.12; 6.1: a 128 MiB
 * region that starts up to 2 GiB below it, RANDOMIZE_MODULE_REGION_FULL):
 * every module lies within 2 GiB of panic(), so the text base is panic()
 * minus 2 GiB and offsets take all 32 bits. A module address is one of
 * that window outside the kernel image, whose place arch-arm64.c reads
 * from the "Kernel code" and "Kernel data" resources at load.
 */
#ifndef _RAMTRAIL_ARCH_ARM64_H
#define _RAMTRAIL_ARCH_ARM64_H

#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <asm/arch_timer.h>
#include <clocksource/arm_arch_timer.h>
#include <uapi/linux/ramtrail.h>

#define RAMTRAIL_ARCH_MACHINE		RAMTRAIL_MACHINE_AARCH64
#define RAMTRAIL_ARCH_TEXT_BASE		((unsigned long)panic - SZ_2G)
/* The module area is the window, the kernel image aside. */
#define RAMTRAIL_ARCH_MODULES_START	RAMTRAIL_ARCH_TEXT_BASE
#define RAMTRAIL_ARCH_MODULES_SIZE	SZ_4G
#define RAMTRAIL_ARCH_MODULES_MOVE	1
/* Below the kernel image and above it */
#define RAMTRAIL_ARCH_MODULE_AREAS	2
/*
 * KASLR moves the image by multiples of 2 MiB, but where the boot loader
 * or the EFI stub put it (at 64 KiB alignment when it could not
 * randomise) moves it by multiples of 64 KiB.
 */
#define RAMTRAIL_ARCH_KASLR_ALIGN	SZ_64K
/* Uncached is Device memory: memset() and unaligned accesses fault there. */
#define RAMTRAIL_ARCH_UNCACHED		0
#define RAMTRAIL_ARCH_RESERVE_HOW \
	"reserved by a no-map /reserved-memory node, or use reserve_mem= and mem_name"

/* Say how to reserve @start, @size bytes, which is System RAM. */
static inline void ramtrail_arch_say_reserve(phys_addr_t start, u64 size)
{
	pr_err("%pa+%#llx is System RAM: reserve it with a no-map /reserved-memory node compatible with \"ramtrail\" (then no mem_address/mem_size), or with reserve_mem=%lluK:4K:NAME and mem_name=NAME\n",
	       &start, size, size >> 10);
}

/* The kernel image, [start, end): set by ramtrail_arch_init() */
extern unsigned long ramtrail_arch_image_start, ramtrail_arch_image_end;

int ramtrail_arch_init(void);

/*
 * The kernel's own reader of the counter (sched_clock's): CNTVCT_EL0 after
 * an ISB, or the erratum workaround the boot chose; notrace, callable in
 * NMI. The ISB keeps the read in program order, so a CPU's records are in
 * time order as they are in ring order.
 */
static __always_inline u64 ramtrail_arch_clock(void)
{
	return arch_timer_read_counter();
}

static inline u64 ramtrail_arch_clock_hz(void)
{
	return arch_timer_get_cntfrq();
}

/* One system counter, which every CPU reads: synchronised by design. */
static inline u32 ramtrail_arch_clock_flags(void)
{
	return RAMTRAIL_F_CLOCK_RELIABLE;
}

void ramtrail_arch_flush_cached(void *p, size_t len);

/*
 * Write-combining is Normal Non-cacheable memory, which a release orders
 * like any other Normal memory: nothing to drain.
 */
static __always_inline void ramtrail_arch_wc_drain(void)
{
}

static inline bool ramtrail_arch_is_module(unsigned long addr)
{
	return addr - RAMTRAIL_ARCH_MODULES_START < RAMTRAIL_ARCH_MODULES_SIZE &&
	       addr - ramtrail_arch_image_start >=
			ramtrail_arch_image_end - ramtrail_arch_image_start;
}

static inline void ramtrail_arch_module_areas(u64 *start, u64 *size)
{
	start[0] = RAMTRAIL_ARCH_MODULES_START;
	size[0] = ramtrail_arch_image_start - start[0];
	start[1] = ramtrail_arch_image_end;
	size[1] = RAMTRAIL_ARCH_MODULES_START + RAMTRAIL_ARCH_MODULES_SIZE -
		  start[1];
}

/* panic(): exported, in kernel text, moved by KASLR with it. */
static inline unsigned long ramtrail_arch_text_anchor(void)
{
	return (unsigned long)panic;
}

#endif /* _RAMTRAIL_ARCH_ARM64_H */
