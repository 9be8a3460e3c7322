/* SPDX-License-Identifier: GPL-2.0 */
/* State shared by the module's files. */
#ifndef _RAMTRAIL_INTERNAL_H
#define _RAMTRAIL_INTERNAL_H

#include <linux/percpu.h>
#include <linux/pstore.h>
#include "ring.h"
#include "recover.h"

#define RAMTRAIL_TEXT_BASE	0xffffffff80000000UL
#define RAMTRAIL_MODTAB_COUNT	256
/* First word of a ramoops zone (fs/pstore/ram_core.c PERSISTENT_RAM_SIG). */
#define RAMTRAIL_RAMOOPS_SIG	0x43474244

/**
 * struct ramtrail - the module's one region
 * @phys: physical address
 * @size: bytes
 * @mem_type: 0 write-combined, 1 uncached, 2 cached
 * @requested: the range was claimed with request_mem_region()
 * @base: kernel mapping of the region
 * @hdr: the header at @base
 * @reg: validated view of the region (geometry checked)
 * @frozen: recording froze (oops/panic/API)
 * @recording: the function tracer hook is registered
 * @nr_modules: entries used in the module table
 */
struct ramtrail {
	phys_addr_t phys;
	u64 size;
	unsigned int mem_type;
	bool requested;
	u8 *base;
	struct ramtrail_region_header *hdr;
	struct ramtrail_region reg;
	atomic_t frozen;
	bool recording;
	unsigned int nr_modules;
};

extern struct ramtrail ramtrail;
DECLARE_PER_CPU(struct ramtrail_ring, ramtrail_rings);

/* main.c */
void ramtrail_seal(void);
void ramtrail_flush(void *p, size_t len);
const char *ramtrail_reason_name(u32 reason);

/* save.c */
int ramtrail_save_previous(void);
void ramtrail_list_saved(void);
unsigned long ramtrail_relocate(const struct ramtrail_saved_trace *t,
				u32 off);

/* record.c */
int ramtrail_record_start(const char *functions);
void ramtrail_record_stop(void);
int ramtrail_freeze_hooks_init(void);
void ramtrail_freeze_hooks_exit(void);

/* pstore.c */
int ramtrail_pstore_init(int max_reason);
void ramtrail_pstore_exit(void);

#endif /* _RAMTRAIL_INTERNAL_H */
