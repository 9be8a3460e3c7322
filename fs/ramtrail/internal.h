/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's one state object and the calls between its files.
 *
 * Files call only downwards in this order (main.c says it again):
 *
 *   main.c      parameters, init and exit
 *   pstore.c    the pstore backend: reads saved traces and dmesg records
 *   save.c      recovers the previous boot's zones into the saved area
 *   modules.c   this boot's module table; relocating saved addresses
 *   storage.c   the region: claim, map, format, seal, flush, debugfs
 *
 * and beside them record.c (record sources, the freeze), which calls
 * storage.c and dump.c only, and events.c (tracepoint probes) and dump.c
 * (trace-on-oops), which call none of them. All of them use the shared decoder
 * (region.c, zone.c, merge.c, clock.c, saved.c, chunk_*.c, ecc.c) and the
 * record path (ring.h, ring.c) below.
 */
#ifndef _RAMTRAIL_INTERNAL_H
#define _RAMTRAIL_INTERNAL_H

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/pstore.h>
#include "ring.h"
#include "chunk.h"
#include "map.h"

/*
 * Module table entries (max_modules=): the fewest hold ramtrail's own two
 * (text, init text), another module's and the last, kept for the entry
 * that says the table is full.
 */
#define RAMTRAIL_MODTAB_COUNT	512
#define RAMTRAIL_MODTAB_MIN	4
/* The largest dmesg_size: pstore's dump buffer is one kmalloc() of it. */
#define RAMTRAIL_DMESG_SIZE_MAX	BIT(20)
/* Tracepoint probes of events.c */
#define RAMTRAIL_NR_PROBES	15

/* Parameters a device tree node may set too: bits of params.given */
enum ramtrail_param_bit {
	RAMTRAIL_GIVEN_MEM_TYPE,
	RAMTRAIL_GIVEN_MAX_REASON,
	RAMTRAIL_GIVEN_DMESG_SIZE,
	RAMTRAIL_GIVEN_DMESG_COUNT,
	RAMTRAIL_GIVEN_MAX_MODULES,
	RAMTRAIL_GIVEN_SAVED_SIZE,
	RAMTRAIL_GIVEN_ECC,
};

/**
 * struct ramtrail_params - what the module parameters ask for
 * @given: BIT(RAMTRAIL_GIVEN_*) of the parameters given at load
 * @mem_address: physical start of the region (memmap=, a no-map node), or 0
 * @mem_size: its size in bytes
 * @mem_name: a reserve_mem= region's name, instead of @mem_address
 * @mem_type: 0 write-combined, 1 uncached, 2 cached
 * @functions: comma-separated function globs to record at load (a copy)
 * @events: comma-separated event names and globs to record at load (a copy)
 * @max_reason: highest kmsg dump reason kept
 * @dmesg_size: bytes per dmesg record
 * @dmesg_count: dmesg records
 * @max_modules: module table entries of a newly formatted region
 * @saved_size: bytes of the saved area; 0 for a third of the region
 * @ecc: parity bytes per codeword of the traces saved, 0 for none
 * @stop_when_full: stop a CPU's recording when its zone is full
 * @reset: ignore and clear what the region holds
 */
struct ramtrail_params {
	unsigned long given;
	unsigned long mem_address;
	u64 mem_size;
	const char *mem_name;
	unsigned int mem_type;
	char *functions;
	char *events;
	int max_reason;
	unsigned long dmesg_size;
	unsigned int dmesg_count;
	unsigned int max_modules;
	u64 saved_size;
	unsigned int ecc;
	bool stop_when_full;
	bool reset;
};

/* What loading did with the previous boot's zones (debugfs status). */
enum ramtrail_prev_trace {
	RAMTRAIL_PREV_NONE,		/* no usable zones, or reset=1 */
	RAMTRAIL_PREV_EMPTY,		/* they held no record */
	RAMTRAIL_PREV_SAVED,		/* saved by this load */
	RAMTRAIL_PREV_SAVED_BEFORE,	/* saved by a load that was cut */
	RAMTRAIL_PREV_LOST,		/* the saved area had no room */
};

/**
 * struct ramtrail_prev - what the region said of the previous boot at load
 * @header: enum ramtrail_error of opening the region's header
 * @version: format version the header claimed (0 without the magic)
 * @boot_id: its boot number (0 if the header gave none)
 * @state: its enum ramtrail_state
 * @reason: its enum ramtrail_freeze_reason
 * @trace: enum ramtrail_prev_trace
 * @records: records saved by this load
 * @skipped: oldest records that did not fit
 * @dropped: records the previous boot's writers refused
 * @sealed_zones: its zones sealed when its recording stopped
 * @sealed_blocks: blocks whose seal matched when the zones were saved
 */
struct ramtrail_prev {
	int header;
	u32 version;
	u64 boot_id;
	u32 state;
	u32 reason;
	int trace;
	u64 records;
	u64 skipped;
	u64 dropped;
	u32 sealed_zones;
	u64 sealed_blocks;
};

/*
 * Where the module is in its life, for the writable parameters: sysfs
 * shows them from before init runs until after exit.
 */
enum ramtrail_phase {
	RAMTRAIL_PHASE_PARAMS,		/* load parameters; init not begun */
	RAMTRAIL_PHASE_LOADING,		/* init runs: writes refused */
	RAMTRAIL_PHASE_LIVE,		/* recording: writes take effect */
	RAMTRAIL_PHASE_UNLOADING,	/* exit runs, or init failed: refused */
};

/*
 * Where recording is, in @freeze_state: a freeze, the unload and a thaw
 * move it with atomic_cmpxchg() (record.c).
 */
enum ramtrail_freeze_state {
	RAMTRAIL_RECORDING,		/* the rings record, if enabled */
	RAMTRAIL_FREEZING,		/* a freeze's section: record, seal */
	RAMTRAIL_FROZEN,		/* frozen, or stopped for unload */
	RAMTRAIL_THAWING,		/* a thaw's section: undo a user freeze */
};

struct ramtrail_pstore_walk;
struct ramtrail_dump;

/**
 * struct ramtrail_cursor - where pstore's read is
 * @slot: next dmesg slot
 * @saved: the saved traces before the one being read, numbered
 * @part: next part of it
 * @id: pstore id of that part (ftrace-ramtrail-@id)
 * @made: the part's files are made: pstore.c gives them one by one
 * @walk: pstore.c's read positions in the trace, from open() to close()
 */
struct ramtrail_cursor {
	u32 slot;
	struct ramtrail_saved_walk saved;
	u32 part;
	u64 id;
	bool made;
	struct ramtrail_pstore_walk *walk;
};

/**
 * DOC: the context
 *
 * One struct ramtrail_context holds the module's state; the callbacks
 * that kernel interfaces call (ftrace_ops, notifier blocks, pstore_info)
 * are embedded in it and find it with container_of(). The exported entry
 * points, which get no argument to find it, use the one pointer that
 * record.c publishes while recording is live.
 *
 * Who writes what:
 *
 * - Set during init, before any callback is registered, and read-only
 *   until exit: @params, @phys, @size, @mem_type, @requested, @base, @hdr,
 *   @reg (except its saved-trace index, rebuilt by save.c during init),
 *   @prev, @damaged, @rings and @pairs (the pointers), the ftrace_ops, the notifier
 *   blocks, @kernel_build and @pstore.
 * - Per CPU: each struct ramtrail_ring in @rings is written only by its
 *   CPU's writers (any context, lock-free: ring.h), except ring->stopped,
 *   which any CPU pauses (freeze, unload, the enabled parameter) with
 *   WRITE_ONCE(), and its own writer sets to RAMTRAIL_RING_REFUSING when
 *   full. CPU N's RAMTRAIL_PAIRS entries of @pairs are its ring's
 *   pairs, written only by its outermost writer ([R6] in ring.h). Its
 *   zone is written by its writers, and by ramtrail_rings_seal() and
 *   ramtrail_rings_unseal() on any CPU while the rings are paused and
 *   that CPU's writers are out of their records (ring->floor idle, read
 *   with READ_ONCE()).
 * - @formatted: set once by the format, read by the freeze on any CPU
 *   (READ_ONCE()).
 * - @freeze_state: the freeze's winner is the CPU whose atomic_cmpxchg()
 *   moves it from RAMTRAIL_RECORDING to RAMTRAIL_FREEZING; it stores
 *   RAMTRAIL_FROZEN once the freeze record and the state are written.
 *   Unload takes it from RAMTRAIL_RECORDING to RAMTRAIL_FROZEN the same
 *   way, a thaw from RAMTRAIL_FROZEN through RAMTRAIL_THAWING back.
 * - @events: BIT(enum ramtrail_event_id) of the events recorded; set
 *   before the probes are registered, read by them (READ_ONCE()).
 * - @phase, @enabled, @recording and the function filter, @events and
 *   the probes, and the thaw: written under the module's parameter lock
 *   (kernel_param_lock()), which the writable parameters' set()
 *   callbacks run under. Recording starts and stops under it too, so a
 *   writer sees it started whole or not at all.
 * - @dump_on_oops, @dump_lines: written by their parameters (the same
 *   lock), read anywhere with READ_ONCE().
 * - @dump_crash, @dump_request: allocated at load, each used by one dump
 *   at a time (its busy flag).
 * - @nr_modules and the module table: appended under @modules_lock; the
 *   count is published with smp_store_release() after the entry.
 * - @cursor, @dmesg_next: pstore serialises read() (its read_mutex) and
 *   write() (its buf_lock).
 */
struct ramtrail_context {
	struct ramtrail_params params;

	/* The region (storage.c) */
	phys_addr_t phys;
	u64 size;
	unsigned int mem_type;
	bool requested;
	u8 *base;
	struct ramtrail_region_header *hdr;
	struct ramtrail_region reg;
	bool formatted;
	struct ramtrail_prev prev;
	u64 damaged[RAMTRAIL_MAX_SAVED];
	u64 corrected[RAMTRAIL_MAX_SAVED];
	u32 headers_corrected;
	struct debugfs_blob_wrapper blob;
	struct dentry *debugfs;

	/* Recording (record.c) */
	struct ramtrail_ring __percpu *rings;
	struct ramtrail_pair *pairs;
	atomic_t freeze_state;	/* enum ramtrail_freeze_state */
	enum ramtrail_phase phase;
	bool enabled;
	bool recording;
	bool panic_hooked;
	bool oops_hooked;
	struct ftrace_ops function_ops;
	struct ftrace_ops panic_ops;
	struct ftrace_ops oops_ops;
	struct notifier_block die_nb;
	struct notifier_block panic_nb;
	struct ftrace_ops filter_check_ops;
	u32 events;
	struct tracepoint *tp[RAMTRAIL_NR_PROBES];

	/* Trace-on-oops (dump.c) */
	int dump_on_oops;
	u32 dump_lines;
	bool sysrq;
	struct ramtrail_dump *dump_crash;
	struct ramtrail_dump *dump_request;

	/* This boot's modules (modules.c) */
	u64 kernel_build;	/* RAMTRAIL_MOD_KERNEL's hash, 0: unknown */
	struct notifier_block module_nb;
	struct mutex modules_lock;	/* appends to the module table */
	unsigned int nr_modules;

	/* The pstore backend (pstore.c) */
	struct pstore_info pstore;
	struct ramtrail_cursor cursor;
	u32 dmesg_next;
};

/*
 * The ring of CPU @cpu, or NULL for an id no CPU of this boot has: a
 * region's zones may outnumber them (a layout kept from a boot with more
 * CPUs, a sparse cpu_possible_mask), and per_cpu_ptr() of such an id
 * points nowhere.
 */
static __always_inline struct ramtrail_ring *
ramtrail_ring_of(struct ramtrail_context *cxt, u32 cpu)
{
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return NULL;
	return per_cpu_ptr(cxt->rings, cpu);
}

/**
 * struct ramtrail_reloc - how a saved trace's offsets map to this boot
 * @t: the saved trace
 * @same_build: the recording kernel is this build, at a KASLR delta of whole
 *	RAMTRAIL_ARCH_KASLR_ALIGN units
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

/*
 * Offset of a function from the text base, as records store it: 0 for an
 * address outside the RAMTRAIL_TEXT_OFFSET_MAX bytes above it.
 */
static __always_inline u32 ramtrail_text_offset(unsigned long ip)
{
	unsigned long off = ip - RAMTRAIL_ARCH_TEXT_BASE;

	return off <= RAMTRAIL_TEXT_OFFSET_MAX ? off : 0;
}

/*
 * "%ps" of this boot's @addr into @buf (@len bytes), its length in *@n.
 * Return: false where no symbol names it: "%ps" then gave the address,
 * which no file or log line should show.
 */
static inline bool ramtrail_sym(char *buf, size_t len, unsigned long addr,
				size_t *n)
{
	*n = scnprintf(buf, len, "%ps", (void *)addr);
	return *n < 2 || buf[0] != '0' || buf[1] != 'x';
}

/* Newest records per CPU a dump prints: default and bounds */
#define RAMTRAIL_DUMP_LINES	64
#define RAMTRAIL_DUMP_LINES_MAX	65536

/* events.c */
int ramtrail_events_parse(const char *list, u32 *mask);
int ramtrail_events_start(struct ramtrail_context *cxt);
int ramtrail_events_set(struct ramtrail_context *cxt, u32 mask);
void ramtrail_events_stop(struct ramtrail_context *cxt);

/* dump.c */
int ramtrail_dump_init(struct ramtrail_context *cxt);
void ramtrail_dump_debugfs(struct ramtrail_context *cxt);
void ramtrail_dump_exit(struct ramtrail_context *cxt);
void ramtrail_dump_crash(struct ramtrail_context *cxt);

/* storage.c */
int ramtrail_storage_map(struct ramtrail_context *cxt);
void ramtrail_storage_unmap(struct ramtrail_context *cxt);
int ramtrail_storage_format(struct ramtrail_context *cxt);
int ramtrail_layout_params(struct ramtrail_context *cxt,
			   struct ramtrail_region_header *h);
void ramtrail_flush(struct ramtrail_context *cxt, void *p, size_t len);
void ramtrail_flush_zones(struct ramtrail_context *cxt);
void ramtrail_set_state(struct ramtrail_context *cxt, u32 state);
void ramtrail_end(struct ramtrail_context *cxt, u32 reason, u32 state);
void ramtrail_resume(struct ramtrail_context *cxt);
void ramtrail_rings_init(struct ramtrail_context *cxt);
void ramtrail_rings_seal(struct ramtrail_context *cxt);
void ramtrail_rings_unseal(struct ramtrail_context *cxt);
void ramtrail_debugfs_init(struct ramtrail_context *cxt);
void ramtrail_debugfs_exit(struct ramtrail_context *cxt);
struct ramtrail_module_entry *ramtrail_modtab(struct ramtrail_context *cxt);
struct ramtrail_dmesg_header *ramtrail_dmesg(struct ramtrail_context *cxt,
					     u32 slot);

/* marker.c */
int ramtrail_marker_init(void);
void ramtrail_marker_exit(void);

/* record.c */

/*
 * The context, published by ramtrail_freeze_hooks_init() once it is whole
 * and withdrawn first by ramtrail_freeze_hooks_exit(): for the entry
 * points that get no argument, the exported calls (their callers hold a
 * reference on this module) and sysrq-y (its unregistration waits for it).
 */
extern struct ramtrail_context *ramtrail_published;

/* The published context, or NULL. */
static __always_inline struct ramtrail_context *ramtrail_cxt_published(void)
{
	/* Pairs with the release that published it: the context is whole. */
	return smp_load_acquire(&ramtrail_published);
}

int ramtrail_record_start(struct ramtrail_context *cxt);
void ramtrail_record_stop(struct ramtrail_context *cxt);
int ramtrail_freeze_hooks_init(struct ramtrail_context *cxt);
#ifdef RAMTRAIL_TEST_STRETCH
void ramtrail_test_debugfs(struct ramtrail_context *cxt);
#else
static inline void ramtrail_test_debugfs(struct ramtrail_context *cxt)
{
}
#endif
void ramtrail_freeze_hooks_exit(struct ramtrail_context *cxt);
int ramtrail_set_enabled(struct ramtrail_context *cxt, bool on);
void ramtrail_rings_enable(struct ramtrail_context *cxt);
int ramtrail_set_functions(struct ramtrail_context *cxt, const char *list);
int ramtrail_set_frozen(struct ramtrail_context *cxt, bool on);
int ramtrail_crash_refuses(struct ramtrail_context *cxt, const char *what);
void ramtrail_stop_for_unload(struct ramtrail_context *cxt);

/* modules.c */
u64 ramtrail_kernel_build(void);
void ramtrail_modules_init(struct ramtrail_context *cxt);
void ramtrail_modules_exit(struct ramtrail_context *cxt);
void ramtrail_reloc_init(struct ramtrail_context *cxt,
			 struct ramtrail_reloc *rl,
			 const struct ramtrail_saved_trace *t);
size_t ramtrail_reloc_name(const struct ramtrail_reloc *rl, char *buf,
			   size_t len, u32 off, u64 ts, bool *timed);

/* save.c */
int ramtrail_save_previous(struct ramtrail_context *cxt);
void ramtrail_check_saved(struct ramtrail_context *cxt);
void ramtrail_list_saved(struct ramtrail_context *cxt);

/* pstore.c */
int ramtrail_pstore_init(struct ramtrail_context *cxt);
void ramtrail_pstore_exit(struct ramtrail_context *cxt);

/*
 * The one reader of functions= and events=: call @fn on each entry of
 * @list (comma-separated names or globs, as ftrace's set_ftrace_filter
 * and set_event take them), trimmed, empty ones skipped, until @fn fails.
 * An entry is @fn's to change. Return: @fn's error, -ENOMEM, or 0.
 */
static inline int ramtrail_list_each(const char *list,
				     int (*fn)(char *glob, void *arg),
				     void *arg)
{
	char *copy, *p, *glob;
	int err = 0;

	if (!list || !*list)
		return 0;
	copy = kstrdup(list, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	for (p = copy; !err && (glob = strsep(&p, ","));) {
		glob = strim(glob);
		if (*glob)
			err = fn(glob, arg);
	}
	kfree(copy);
	return err;
}

#endif /* _RAMTRAIL_INTERNAL_H */
