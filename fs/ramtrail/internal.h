/* SPDX-License-Identifier: GPL-2.0 */
/* State shared by the module's files. */
#ifndef _RAMTRAIL_INTERNAL_H
#define _RAMTRAIL_INTERNAL_H

#include <linux/mutex.h>
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
 * @prev_err: what opening the region at load said of the previous boot's
 *	header (enum ramtrail_error)
 * @formatted: this load wrote the header: it may end the recording
 * @live: rings are set up; cleared at unload under the parameters' lock
 * @frozen: 0 recording, 1 a freeze is under way, 2 the freeze is sealed
 * @recording: the function tracer hook is registered
 * @nr_modules: entries used in the module table; entries below it are
 *	complete (smp_store_release() after the entry's stores)
 * @modules_lock: serialises appending to the module table
 */
struct ramtrail {
	phys_addr_t phys;
	u64 size;
	unsigned int mem_type;
	bool requested;
	u8 *base;
	struct ramtrail_region_header *hdr;
	struct ramtrail_region reg;
	int prev_err;
	bool formatted;
	bool live;
	atomic_t frozen;
	bool recording;
	unsigned int nr_modules;
	struct mutex modules_lock;	/* appends to the module table */
};

extern struct ramtrail ramtrail;
DECLARE_PER_CPU(struct ramtrail_ring, ramtrail_rings);

/* main.c */
void ramtrail_flush(void *p, size_t len);
void ramtrail_set_state(u32 state);
void ramtrail_end(u32 reason, u32 state);

/**
 * struct ramtrail_reloc - how a saved trace's offsets map to this boot
 * @t: the saved trace
 * @same_build: the recording kernel is this build, at a 2 MiB KASLR delta
 * @delta: KASLR delta of kernel text
 * @now: this boot's module table
 * @nr_now: complete entries in @now
 */
struct ramtrail_reloc {
	const struct ramtrail_saved_trace *t;
	bool same_build;
	long delta;
	const struct ramtrail_module_entry *now;
	int nr_now;
};

/* main.c */
const struct ramtrail_module_entry *ramtrail_modtab_now(int *nr);

/* save.c */
int ramtrail_save_previous(bool reset);
void ramtrail_list_saved(void);
void ramtrail_reloc_init(struct ramtrail_reloc *rl,
			 const struct ramtrail_saved_trace *t);
unsigned long ramtrail_relocate(const struct ramtrail_reloc *rl, u32 off);

/* record.c */
int ramtrail_record_start(const char *functions);
void ramtrail_record_stop(void);
int ramtrail_freeze_hooks_init(void);
void ramtrail_freeze_hooks_exit(void);

/* pstore.c */
int ramtrail_pstore_init(int max_reason);
void ramtrail_pstore_exit(void);

#endif /* _RAMTRAIL_INTERNAL_H */
