// SPDX-License-Identifier: GPL-2.0
/*
 * arm64: where the kernel image lies, for ramtrail_arch_is_module(). Its
 * _text and _end are not exported; the "Kernel code" and "Kernel data"
 * resources (/proc/iomem) hold their physical places, and the image is
 * mapped at a fixed offset from them, kimage_voffset. And the cleaning of
 * a cached mapping to the point of coherency.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init_task.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/sched/task.h>
#include <asm/cpufeature.h>
#include <asm/sysreg.h>
#include "arch.h"

unsigned long ramtrail_arch_image_start, ramtrail_arch_image_end;
/* The smallest data cache line of the system, in bytes. */
static unsigned long ramtrail_arch_dline;

/**
 * ramtrail_arch_flush_cached() - clean a range to the point of coherency
 * @p: start, in a cached mapping of the region
 * @len: bytes
 *
 * With instructions every arm64 kernel has: arch_wb_cache_pmem() is an
 * empty inline in a kernel built without CONFIG_ARCH_HAS_PMEM_API. DC
 * CIVAC, as the kernel uses where an erratum makes DC CVAC unsafe; the
 * DSB waits for the cleaning. Callable in any context.
 */
notrace void ramtrail_arch_flush_cached(void *p, size_t len)
{
	unsigned long a = (unsigned long)p & ~(ramtrail_arch_dline - 1);
	unsigned long end = (unsigned long)p + len;

	for (; a < end; a += ramtrail_arch_dline)
		asm volatile("dc civac, %0" : : "r" (a) : "memory");
	dsb(sy);
}

struct ramtrail_image_walk {
	phys_addr_t code, data;		/* in the code, in the data */
	struct resource found[2];	/* the smallest resources holding them */
};

static int ramtrail_image_res(struct resource *res, void *arg)
{
	struct ramtrail_image_walk *w = arg;
	phys_addr_t at[2] = { w->code, w->data };
	int i;

	for (i = 0; i < 2; i++)
		if (res->start <= at[i] && at[i] <= res->end &&
		    (!w->found[i].end ||
		     resource_size(res) < resource_size(&w->found[i])))
			w->found[i] = *res;
	return 0;
}

/**
 * ramtrail_arch_init() - find the kernel image and the cache line size
 *
 * Its text holds panic(), its data init_task: the smallest System RAM
 * resources that hold them are "Kernel code" and "Kernel data".
 *
 * Return: 0, or -ENODEV if the resources do not say.
 */
int ramtrail_arch_init(void)
{
	struct ramtrail_image_walk w = {
		.code = __kimg_to_phys((unsigned long)panic),
		.data = __kimg_to_phys((unsigned long)&init_task),
	};

	walk_iomem_res_desc(IORES_DESC_NONE,
			    IORESOURCE_SYSTEM_RAM, 0, -1, &w,
			    ramtrail_image_res);
	if (!w.found[0].end || !w.found[1].end ||
	    w.found[1].end < w.found[0].start) {
		pr_err("no Kernel code and Kernel data resources: cannot tell kernel from module addresses\n");
		return -ENODEV;
	}
	ramtrail_arch_image_start = __phys_to_kimg(w.found[0].start);
	ramtrail_arch_image_end = __phys_to_kimg(w.found[1].end) + 1;
	/* CTR_EL0.DminLine, bits 19:16: log2 of the line's words */
	ramtrail_arch_dline = 4UL << ((read_sanitised_ftr_reg(SYS_CTR_EL0) >>
				       16) & 0xf);
	return 0;
}
