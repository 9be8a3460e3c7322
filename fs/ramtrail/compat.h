/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel facilities ramtrail uses that differ between the builds:
 *
 *  - the shared sources (ring.c and the decoder, region.c to chunk_read.c)
 *    build in the module and in tools/, whose build forces its stand-ins
 *    of the same names (tools/lib/user-compat.h) into every file; nothing
 *    may change behaviour between the two builds;
 *  - the kernel versions the module builds for (6.1 to 6.12): every
 *    LINUX_VERSION_CODE test of the module is here.
 *
 * The on-RAM format is little-endian and the code stores it in the CPU's
 * order: a big-endian build is refused.
 */
#ifndef _RAMTRAIL_COMPAT_H
#define _RAMTRAIL_COMPAT_H

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ramtrail: the on-RAM format is little-endian; big-endian builds are not supported"
#endif

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/compiler.h>
#include <linux/string.h>
#include <linux/math64.h>
#include <linux/crc32.h>
#include <linux/module.h>
#include <linux/version.h>
#include <linux/sched.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <asm/local.h>
#include <asm/byteorder.h>
#include <uapi/linux/ramtrail.h>
#include "arch.h"

static __always_inline u64 ramtrail_clock(void)
{
	return ramtrail_arch_clock();
}

/*
 * Make this CPU's stores to a write-combining mapping visible before its
 * later stores to cached memory.
 */
static __always_inline void ramtrail_wc_drain(void)
{
	ramtrail_arch_wc_drain();
}

/*
 * The writer's task and context, for the record path (ring.h). The task
 * is named by the address of its task_struct; ramtrail_env_describe()
 * fills the task event of the task running now.
 */
static __always_inline unsigned long ramtrail_env_task(void)
{
	return (unsigned long)current;
}

static __always_inline unsigned int ramtrail_env_ctx(void)
{
	if (in_nmi())
		return RAMTRAIL_CTX_NMI;
	if (in_hardirq())
		return RAMTRAIL_CTX_HARDIRQ;
	if (in_serving_softirq())
		return RAMTRAIL_CTX_SOFTIRQ;
	return RAMTRAIL_CTX_TASK;
}

/* Event flags: the context, interrupts off, a reschedule pending. */
static __always_inline unsigned int ramtrail_env_flags(void)
{
	return ramtrail_env_ctx() |
	       (irqs_disabled() ? RAMTRAIL_EF_IRQS_OFF : 0) |
	       (tif_need_resched() ? RAMTRAIL_EF_NEED_RESCHED : 0);
}

static __always_inline void ramtrail_env_describe(struct ramtrail_ev_task *t)
{
	const struct task_struct *p = current;

	t->pid = cpu_to_le32(p->pid);
	t->tgid = cpu_to_le32(p->tgid);
	/* No lock: a rename in flight may leave a mix, as in ftrace. */
	__builtin_memcpy(t->comm, p->comm, RAMTRAIL_COMM_LEN);
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

/* The high 64 bits of the product @a * @b. */
static inline u64 ramtrail_mul_hi(u64 a, u64 b)
{
	return mul_u64_u64_shr(a, b, 64);
}

/* reserve_mem= regions: Linux 6.12 and later. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/mm.h>
#define RAMTRAIL_HAVE_RESERVE_MEM	1
static inline bool ramtrail_reserve_mem_find(const char *name,
					     phys_addr_t *start,
					     phys_addr_t *size)
{
	return reserve_mem_find_by_name(name, start, size);
}
#else
#define RAMTRAIL_HAVE_RESERVE_MEM	0
static inline bool ramtrail_reserve_mem_find(const char *name,
					     phys_addr_t *start,
					     phys_addr_t *size)
{
	return false;
}
#endif

/*
 * pstore frees the buffer of a file it was given with kvfree() in 6.12, with
 * kfree() in 6.1; the versions between, not built here, take kmalloc(),
 * which both free.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define RAMTRAIL_PSTORE_KVFREE	1
#else
#define RAMTRAIL_PSTORE_KVFREE	0
#endif

/* pstore_info.buf_lock became a raw spinlock in 6.12. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define ramtrail_pstore_lock_init(psi)	raw_spin_lock_init(&(psi)->buf_lock)
#else
#define ramtrail_pstore_lock_init(psi)	spin_lock_init(&(psi)->buf_lock)
#endif

/* A module's text and core sizes: struct module_memory since 6.4. */
static inline void ramtrail_module_sizes(const struct module *mod,
					 unsigned long *base, u64 *size,
					 u64 *core_size)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	*base = (unsigned long)mod->mem[MOD_TEXT].base;
	*size = mod->mem[MOD_TEXT].size;
	*core_size = mod->mem[MOD_TEXT].size + mod->mem[MOD_DATA].size +
		     mod->mem[MOD_RODATA].size +
		     mod->mem[MOD_RO_AFTER_INIT].size;
#else
	*base = (unsigned long)mod->core_layout.base;
	*size = mod->core_layout.text_size;
	*core_size = mod->core_layout.size;
#endif
}

/* Where @mod's init text lies, 0 bytes if it has none (or it was freed). */
static inline void ramtrail_module_init_text(const struct module *mod,
					     unsigned long *base, u64 *size)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	*base = (unsigned long)mod->mem[MOD_INIT_TEXT].base;
	*size = mod->mem[MOD_INIT_TEXT].size;
#else
	*base = (unsigned long)mod->init_layout.base;
	*size = mod->init_layout.text_size;
#endif
	if (!*base)
		*size = 0;
}

/* A sysrq handler's key became a u8 in 6.6. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define RAMTRAIL_SYSRQ_KEY_T	u8
#else
#define RAMTRAIL_SYSRQ_KEY_T	int
#endif

/* ring_buffer_unlock_commit() lost its event argument in 6.2 (bench). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define ramtrail_rb_unlock_commit(rb, ev)	ring_buffer_unlock_commit(rb)
#else
#define ramtrail_rb_unlock_commit(rb, ev)	ring_buffer_unlock_commit(rb, ev)
#endif

#elif !defined(_RAMTRAIL_USER_COMPAT_H)
#error "a userspace build gives its stand-ins first (tools/Makefile: -include)"
#endif /* __KERNEL__ */

#endif /* _RAMTRAIL_COMPAT_H */
