/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ramtrail needs from the architecture. A port is one new file,
 * arch-<arch>.h, included below, that provides:
 *
 *   ramtrail_arch_clock()        the record path's counter (inline, notrace,
 *                                callable in NMI)
 *   ramtrail_arch_clock_hz()     its frequency, 0 if unknown
 *   ramtrail_arch_clock_flags()  RAMTRAIL_F_CLOCK_RELIABLE while the counter
 *                                is synchronised across CPUs
 *   ramtrail_arch_flush_cached() write a range of a cached mapping back
 *                                to memory
 *   ramtrail_arch_wc_drain()     order this CPU's stores to a write-combining
 *                                mapping before its later cached stores
 *   RAMTRAIL_ARCH_MACHINE        RAMTRAIL_MACHINE_* of the region header
 *   RAMTRAIL_ARCH_TEXT_BASE      lowest kernel text and module address:
 *                                ips are stored as 32-bit offsets from it
 *   RAMTRAIL_ARCH_MODULES_START  start of the module area
 *   RAMTRAIL_ARCH_MODULES_SIZE   its size
 *   RAMTRAIL_ARCH_MODULES_MOVE   1 if the module area moves with KASLR
 *   ramtrail_arch_is_module()    an address is in this boot's module area
 *   ramtrail_arch_module_areas() its RAMTRAIL_ARCH_MODULE_AREAS ranges
 *                                (start, size), for a full module table
 *   ramtrail_arch_text_anchor()  an address of kernel text that moves with
 *                                KASLR: two boots' difference is the delta
 *   RAMTRAIL_ARCH_KASLR_ALIGN    KASLR moves kernel text by multiples of it
 *   ramtrail_arch_init()         0, or why the module cannot run (at load)
 *   RAMTRAIL_ARCH_UNCACHED       1 where mem_type=1 (uncached) is offered
 *   RAMTRAIL_ARCH_RESERVE_HOW    how a range is reserved, for messages
 *   ramtrail_arch_say_reserve()  the error for a range that is System RAM
 */
#ifndef _RAMTRAIL_ARCH_H
#define _RAMTRAIL_ARCH_H

#if defined(CONFIG_X86_64)
#include "arch-x86.h"
#elif defined(CONFIG_ARM64)
#include "arch-arm64.h"
#else
#error "ramtrail: this architecture is not supported yet (see arch.h)"
#endif

#endif /* _RAMTRAIL_ARCH_H */
