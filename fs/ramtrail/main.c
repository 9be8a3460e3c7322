// SPDX-License-Identifier: GPL-2.0
/*
 * ramtrail: a crash-surviving, per-CPU trace store in persistent RAM.
 *
 * Loading the module claims and maps the region, saves the trace the
 * previous boot left in its zones (save.c), formats the zones for this
 * boot, registers the pstore backend (pstore.c) and starts recording
 * (record.c). Documentation/ramtrail/admin-guide.rst describes the
 * parameters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/utsname.h>
#include <linux/version.h>
#include <linux/mm.h>
#include <asm/cacheflush.h>
#include <linux/ramtrail.h>
#include "internal.h"
#include "map.h"

struct ramtrail ramtrail;
DEFINE_PER_CPU(struct ramtrail_ring, ramtrail_rings);

/* Hardware parameters, as ramoops': kernel lockdown refuses them. */
static unsigned long mem_address;
module_param_hw(mem_address, ulong, iomem, 0400);
MODULE_PARM_DESC(mem_address, "physical start of the region (memmap= reserved)");

static char *mem_size;
module_param_hw(mem_size, charp, iomem, 0400);
MODULE_PARM_DESC(mem_size, "size of the region, e.g. 64M");

static char *mem_name;
module_param(mem_name, charp, 0400);
MODULE_PARM_DESC(mem_name, "name of a reserve_mem= region (Linux 6.12+), instead of mem_address/mem_size");

static unsigned int mem_type;
module_param(mem_type, uint, 0400);
MODULE_PARM_DESC(mem_type, "mapping: 0 write-combined (default), 1 uncached, 2 cached");

static char *functions = "";
module_param(functions, charp, 0400);
MODULE_PARM_DESC(functions, "comma-separated function globs to record ('*' for all, empty for none)");

static int max_reason = KMSG_DUMP_OOPS;
module_param(max_reason, int, 0400);
MODULE_PARM_DESC(max_reason, "highest kmsg dump reason kept in dmesg records (as ramoops; 2 = oops and panic)");

static unsigned long dmesg_size = 32768;
module_param(dmesg_size, ulong, 0400);
MODULE_PARM_DESC(dmesg_size, "bytes per dmesg record (default 32768)");

static unsigned int dmesg_count = 4;
module_param(dmesg_count, uint, 0400);
MODULE_PARM_DESC(dmesg_count, "number of dmesg records (default 4)");

static char *saved_size;
module_param(saved_size, charp, 0400);
MODULE_PARM_DESC(saved_size, "bytes kept for traces of earlier boots (default: a quarter of mem_size)");

static bool stop_when_full;
module_param(stop_when_full, bool, 0400);
MODULE_PARM_DESC(stop_when_full, "stop recording a CPU when its zone is full (default: overwrite the oldest)");

static bool reset;
module_param(reset, bool, 0400);
MODULE_PARM_DESC(reset, "ignore and clear what the region holds");

static bool enabled = true;

/* Runs under the module's parameter lock, as ramtrail_exit()'s teardown. */
static int enabled_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int cpu, err = kstrtobool(val, &on);

	if (err)
		return err;
	if (ramtrail.live && atomic_read(&ramtrail.frozen)) {
		pr_warn("recording is frozen by %s: reload the module to record again\n",
			ramtrail_reason_name(ramtrail.hdr->freeze.reason));
		return -EBUSY;
	}
	enabled = on;
	if (!ramtrail.live)
		return 0;
	for (cpu = 0; cpu < ramtrail.reg.hdr.nr_cpus && cpu < nr_cpu_ids; cpu++)
		WRITE_ONCE(per_cpu(ramtrail_rings, cpu).stopped, !on);
	/*
	 * Pairs with the full barrier of the freeze's atomic_cmpxchg(): either
	 * the freeze's stores to stopped come after ours, or we see it here.
	 */
	smp_mb();
	if (atomic_read(&ramtrail.frozen))
		for (cpu = 0; cpu < ramtrail.reg.hdr.nr_cpus &&
		     cpu < nr_cpu_ids; cpu++)
			WRITE_ONCE(per_cpu(ramtrail_rings, cpu).stopped, 1);
	return 0;
}

static const struct kernel_param_ops enabled_ops = {
	.set = enabled_set,
	.get = param_get_bool,
};
module_param_cb(enabled, &enabled_ops, &enabled, 0600);
MODULE_PARM_DESC(enabled, "record (1, default) or not (0); writable at run time");

/**
 * ramtrail_flush() - make stores to part of the region reach memory
 * @p: start, inside the region
 * @len: bytes
 *
 * Cached mappings are written back line by line; write-combining buffers
 * are drained by the fence.
 */
notrace void ramtrail_flush(void *p, size_t len)
{
#ifdef CONFIG_X86
	if (ramtrail.mem_type == 2)
		clflush_cache_range(p, len);
#endif
	wmb();	/* drains this CPU's write-combining buffers */
}

/* RAMTRAIL_F_CLOCK_RELIABLE if the counter is synchronised across CPUs now. */
static notrace u32 ramtrail_clock_flags(void)
{
#ifdef CONFIG_X86
	if (boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
	    boot_cpu_has(X86_FEATURE_NONSTOP_TSC) && !check_tsc_unstable())
		return RAMTRAIL_F_CLOCK_RELIABLE;
#endif
	return 0;	/* trace_clock_local() is per CPU */
}

/**
 * ramtrail_set_state() - change the region's state, crash-safely
 * @state: enum ramtrail_state
 *
 * One aligned 32-bit store: the state is outside the header checksum, so
 * a reset at any instant leaves either the old or the new state.
 */
notrace void ramtrail_set_state(u32 state)
{
	WRITE_ONCE(ramtrail.hdr->state, state);
	ramtrail_flush(&ramtrail.hdr->state, sizeof(ramtrail.hdr->state));
}

/**
 * ramtrail_end() - write how recording ended, then the state
 * @reason: enum ramtrail_freeze_reason (NONE for a clean stop)
 * @state: RAMTRAIL_STATE_FROZEN or RAMTRAIL_STATE_STOPPED
 *
 * The caller has stopped every ring. The freeze record carries its own
 * checksum and is flushed before the state names it: a reset in between
 * leaves a region that reads as cut while recording, never a damaged one.
 * Callable in panic and NMI context.
 */
notrace void ramtrail_end(u32 reason, u32 state)
{
	struct ramtrail_region_header *h = ramtrail.hdr;
	struct ramtrail_freeze_info *f = &h->freeze;
	u32 cpu;

	f->checksum = 0;
	for (cpu = 0; cpu < h->nr_cpus; cpu++) {
		struct ramtrail_ring *r = per_cpu_ptr(&ramtrail_rings, cpu);

		f->zone[cpu].freeze_pos = local_read(&r->pos);
		f->zone[cpu].dropped = local_read(&r->dropped);
	}
	f->reason = reason;
	f->boot_id = h->boot_id;
	f->cpu = raw_smp_processor_id();
	f->nr_zones = h->nr_cpus;
	f->cycles = ramtrail_clock() & RAMTRAIL_CLOCK_MASK;
	f->clock_flags = ramtrail_clock_flags();
	f->reserved = 0;
	f->checksum = ramtrail_freeze_checksum(f);
	ramtrail_flush(f, sizeof(*f));	/* the record before the state */
	ramtrail_set_state(state);
}

static int ramtrail_find_region(phys_addr_t *start, u64 *size)
{
	if (mem_name && *mem_name) {
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
		phys_addr_t s, sz;

		if (mem_address || mem_size) {
			pr_err("give either mem_name or mem_address/mem_size\n");
			return -EINVAL;
		}
		if (!reserve_mem_find_by_name(mem_name, &s, &sz)) {
			pr_err("no reserve_mem= region named '%s'\n", mem_name);
			return -ENOENT;
		}
		*start = s;
		*size = sz;
		return 0;
#else
		pr_err("mem_name needs reserve_mem=, Linux 6.12 or later; use memmap= and mem_address/mem_size\n");
		return -EINVAL;
#endif
	}
	if (!mem_address || !mem_size) {
		pr_err("no region: give mem_address= and mem_size= (reserved with memmap=SIZE$ADDR)\n");
		return -EINVAL;
	}
	if (!dmesg_count || dmesg_count > RAMTRAIL_MAX_DMESG) {
		pr_err("dmesg_count=%u: give 1 to %u (pstore needs a dmesg front end)\n",
		       dmesg_count, RAMTRAIL_MAX_DMESG);
		return -EINVAL;
	}
	*start = mem_address;
	*size = memparse(mem_size, NULL);
	if (*size < 16 * PAGE_SIZE || !PAGE_ALIGNED(*start) ||
	    !PAGE_ALIGNED(*size) || *start + *size < *start) {
		pr_err("mem_address=%#lx mem_size=%s: need a page-aligned range of at least 64K\n",
		       mem_address, mem_size);
		return -EINVAL;
	}
	return 0;
}

static int ramtrail_map(phys_addr_t start, u64 size, bool reserve_mem)
{
	if (mem_type > 2) {
		pr_err("mem_type=%u: use 0 (write-combined), 1 (uncached) or 2 (cached)\n",
		       mem_type);
		return -EINVAL;
	}
	if (reserve_mem) {
		/* reserve_mem= hands out RAM pages: only a cached map is safe. */
		if (mem_type != 2)
			pr_info("reserve_mem region: mapping it cached (mem_type=2)\n");
		mem_type = 2;
	} else {
		if (region_intersects(start, size, IORESOURCE_SYSTEM_RAM,
				      IORES_DESC_NONE) != REGION_DISJOINT) {
			pr_err("%pa+%#llx is System RAM: reserve it with memmap=%lluK$%#llx on the kernel command line\n",
			       &start, size, size >> 10, (u64)start);
			return -EINVAL;
		}
		if (!request_mem_region(start, size, "ramtrail")) {
			pr_err("%pa+%#llx is in use (see /proc/iomem)\n",
			       &start, size);
			return -EBUSY;
		}
		ramtrail.requested = true;
	}
	ramtrail.phys = start;
	ramtrail.size = size;
	ramtrail.mem_type = mem_type;
	ramtrail.base = ramtrail_memremap(start, size, mem_type);
	if (!ramtrail.base) {
		pr_err("cannot map %pa+%#llx\n", &start, size);
		if (ramtrail.requested)
			release_mem_region(start, size);
		ramtrail.requested = false;
		return -ENOMEM;
	}
	ramtrail.hdr = (struct ramtrail_region_header *)ramtrail.base;
	return 0;
}

static void ramtrail_unmap(void)
{
	ramtrail_memunmap(ramtrail.base, ramtrail.mem_type);
	if (ramtrail.requested)
		release_mem_region(ramtrail.phys, ramtrail.size);
	ramtrail.base = NULL;
	ramtrail.hdr = NULL;
	ramtrail.requested = false;
}

/* Lay out a fresh header, keeping the areas of a valid old one. */
static int ramtrail_layout_new(struct ramtrail_region_header *h,
			       const struct ramtrail_region *old, bool old_ok)
{
	u32 cpus = min_t(u32, nr_cpu_ids, RAMTRAIL_MAX_CPUS);
	u64 saved = round_down(saved_size ? memparse(saved_size, NULL) :
			       ramtrail.size / 4, 8);
	int err;

	if (old_ok) {
		if (old->hdr.dmesg_count != dmesg_count ||
		    old->hdr.dmesg_size != dmesg_size ||
		    old->hdr.saved_size != saved)
			pr_notice("keeping the region's layout (dmesg %u x %llu, saved %llu bytes); load with reset=1 to change it\n",
				  old->hdr.dmesg_count, old->hdr.dmesg_size,
				  old->hdr.saved_size);
		err = ramtrail_layout(h, ramtrail.size, cpus,
				      old->hdr.dmesg_count, old->hdr.dmesg_size,
				      old->hdr.saved_size, old->hdr.modtab_count);
		/* Kept only if rewritten byte for byte: see ramtrail_format(). */
		if (!err && !memcmp(&h->region_size, &old->hdr.region_size,
				    offsetof(struct ramtrail_region_header,
					     reserved0) -
				    offsetof(struct ramtrail_region_header,
					     region_size)))
			return 0;
	}
	err = ramtrail_layout(h, ramtrail.size, cpus, dmesg_count,
			      round_up(dmesg_size, 8), saved,
			      RAMTRAIL_MODTAB_COUNT);
	if (err) {
		pr_err("region of %llu bytes too small for %u CPUs, %u dmesg records of %lu bytes and %llu saved bytes\n",
		       ramtrail.size, cpus, dmesg_count, dmesg_size, saved);
		return -EINVAL;
	}
	if (dmesg_count && dmesg_size < sizeof(struct ramtrail_dmesg_header) + 1024) {
		pr_err("dmesg_size=%lu is too small\n", dmesg_size);
		return -EINVAL;
	}
	return 1;	/* new layout: clear the areas */
}

/* The next boot number: past every boot the region remembers. */
static u64 ramtrail_next_boot_id(const struct ramtrail_region *old)
{
	const struct ramtrail_saved_trace *t;
	const struct ramtrail_dmesg_header *d;
	/* A header that failed its checksum has no boot number to trust. */
	u64 id = ramtrail.prev_err == RAMTRAIL_OK ||
		 ramtrail.prev_err == RAMTRAIL_E_STATE ? old->hdr.boot_id : 0;
	u64 pos = 0;
	u32 i;

	while ((t = ramtrail_saved_next(old, &pos)))
		id = max(id, t->boot_id);
	for (i = 0; i < old->hdr.dmesg_count; i++) {
		d = ramtrail_dmesg_at(old, i);
		if (d)
			id = max(id, d->boot_id);
	}
	return id + 1;
}

/*
 * Write this boot's header and clear what it does not keep. Reset-safe at
 * every instant: the state goes to FORMATTING first (one store), so a torn
 * header rewrite or a half-cleared zone is never read as a trace; the
 * layout is rewritten with the same values, so its own checksum keeps the
 * dmesg records and saved traces reachable throughout.
 */
static int ramtrail_format(void)
{
	struct ramtrail_region_header *h;
	struct ramtrail_region *old = &ramtrail.reg;
	bool old_ok = !reset && old->base;
	int fresh;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	fresh = ramtrail_layout_new(h, old, old_ok);
	if (fresh < 0) {
		kfree(h);
		return fresh;
	}
	h->nonce = get_random_u64();
	h->boot_id = old_ok ? ramtrail_next_boot_id(old) : 1;
	h->phys_addr = ramtrail.phys;
	h->text_base = RAMTRAIL_TEXT_BASE;
	h->anchor_addr = (unsigned long)panic;
	strscpy(h->release, init_utsname()->release, sizeof(h->release));
	strscpy(h->build, init_utsname()->version, sizeof(h->build));
	if (stop_when_full)
		h->flags |= RAMTRAIL_F_STOP_WHEN_FULL;
#ifdef CONFIG_X86
	h->clock_hz = (u64)tsc_khz * 1000;
#else
	h->clock_hz = NSEC_PER_SEC;
#endif
	h->flags |= ramtrail_clock_flags();
	if (h->clock_hz < RAMTRAIL_CLOCK_HZ_MIN ||
	    h->clock_hz > RAMTRAIL_CLOCK_HZ_MAX)
		h->clock_hz = 0;	/* unknown: times stay in ticks */
	h->clock_ref_cycles = ramtrail_clock() & RAMTRAIL_CLOCK_MASK;
	h->clock_ref_ns = ktime_get_mono_fast_ns();
	h->checksum = ramtrail_header_checksum(h);

	/* Pairs with ramtrail_region_open(): FORMATTING zones are never read. */
	ramtrail_set_state(RAMTRAIL_STATE_FORMATTING);
	memcpy(ramtrail.hdr, h, sizeof(*h));
	ramtrail_flush(ramtrail.hdr, sizeof(*h));
	memset(ramtrail.base + h->modtab_offset, 0,
	       h->dmesg_offset - h->modtab_offset);
	if (fresh)
		memset(ramtrail.base + h->dmesg_offset, 0,
		       h->zone_offset - h->dmesg_offset);
	memset(ramtrail.base + h->zone_offset, 0,
	       (u64)h->nr_cpus * h->nr_blocks << RAMTRAIL_BLOCK_SHIFT);
	ramtrail_flush(ramtrail.base + h->modtab_offset,
		       h->region_size - h->modtab_offset);
	ramtrail_set_state(RAMTRAIL_STATE_RECORDING);
	WRITE_ONCE(ramtrail.formatted, true);
	kfree(h);
	if (ramtrail_region_open(&ramtrail.reg, ramtrail.base, ramtrail.size))
		return -EIO;	/* cannot happen: we just wrote it */
	pr_info("boot %llu: region %pa+%#llx, %u zones of %u KiB, mem_type %u%s\n",
		ramtrail.hdr->boot_id, &ramtrail.phys, ramtrail.size,
		ramtrail.hdr->nr_cpus,
		ramtrail.hdr->nr_blocks << (RAMTRAIL_BLOCK_SHIFT - 10),
		ramtrail.mem_type, fresh && old_ok ? ", new layout" : "");
	return 0;
}

static void ramtrail_rings_init(void)
{
	const struct ramtrail_region_header *h = ramtrail.hdr;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ramtrail_ring *r = per_cpu_ptr(&ramtrail_rings, cpu);

		if (cpu >= h->nr_cpus) {
			/* No zone: records of this CPU are refused, counted. */
			ramtrail_ring_init(r, NULL, RAMTRAIL_MIN_BLOCKS, 0);
			r->stopped = 1;
			continue;
		}
		ramtrail_ring_init(r, (u64 *)(ramtrail.base + h->zone_offset +
			((u64)cpu * h->nr_blocks << RAMTRAIL_BLOCK_SHIFT)),
			h->nr_blocks,
			stop_when_full ? RAMTRAIL_RING_STOP_WHEN_FULL : 0);
		r->stopped = !enabled;
	}
}

/* Text and core size of a module, in this boot. */
static void ramtrail_module_text(struct module *mod,
				 struct ramtrail_module_entry *e)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	e->base = (unsigned long)mod->mem[MOD_TEXT].base;
	e->size = mod->mem[MOD_TEXT].size;
	e->core_size = mod->mem[MOD_TEXT].size + mod->mem[MOD_DATA].size +
		       mod->mem[MOD_RODATA].size + mod->mem[MOD_RO_AFTER_INIT].size;
#else
	e->base = (unsigned long)mod->core_layout.base;
	e->size = mod->core_layout.text_size;
	e->core_size = mod->core_layout.size;
#endif
}

static struct ramtrail_module_entry *ramtrail_modtab(void)
{
	return (void *)(ramtrail.base + ramtrail.hdr->modtab_offset);
}

/**
 * ramtrail_modtab_now() - this boot's module table, as far as it is written
 * @nr: set to the number of complete entries
 *
 * Return: the first entry.
 */
const struct ramtrail_module_entry *ramtrail_modtab_now(int *nr)
{
	/* Pairs with smp_store_release() in ramtrail_add_module(). */
	*nr = smp_load_acquire(&ramtrail.nr_modules);
	return ramtrail_modtab();
}

/*
 * Append @mod to the region's module table. Entries are never reused: an
 * unloaded module keeps its entry, marked gone, so a later module at the
 * same address makes that range ambiguous (printed as offsets) instead of
 * taking over its names.
 */
static void ramtrail_add_module(struct module *mod)
{
	struct ramtrail_module_entry *e;
	unsigned int n;

	mutex_lock(&ramtrail.modules_lock);
	n = ramtrail.nr_modules;
	if (n >= ramtrail.hdr->modtab_count) {
		mutex_unlock(&ramtrail.modules_lock);
		pr_warn_once("module table full: ips in later modules stay unnamed\n");
		return;
	}
	e = ramtrail_modtab() + n;
	memset(e, 0, sizeof(*e));
	ramtrail_module_text(mod, e);
	strscpy(e->name, mod->name, sizeof(e->name));
	e->checksum = ramtrail_module_checksum(e);
	ramtrail_flush(e, sizeof(*e));
	/* Pairs with the smp_load_acquire() of readers of this boot's table. */
	smp_store_release(&ramtrail.nr_modules, n + 1);
	mutex_unlock(&ramtrail.modules_lock);
}

static void ramtrail_module_gone(struct module *mod)
{
	struct ramtrail_module_entry *e = ramtrail_modtab();
	unsigned int i;

	mutex_lock(&ramtrail.modules_lock);
	for (i = 0; i < ramtrail.nr_modules; i++)
		if (!strncmp(e[i].name, mod->name, sizeof(e[i].name)))
			WRITE_ONCE(e[i].flags, e[i].flags | RAMTRAIL_MOD_GONE);
	mutex_unlock(&ramtrail.modules_lock);
}

static int ramtrail_module_event(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	if (action == MODULE_STATE_COMING)
		ramtrail_add_module(data);
	else if (action == MODULE_STATE_GOING)
		ramtrail_module_gone(data);
	return NOTIFY_OK;
}

static struct notifier_block ramtrail_module_nb = {
	.notifier_call = ramtrail_module_event,
};

/*
 * The region as it is, read-only: tools/ramtrail reads a live system's
 * zones and saved traces from here (records being written show as torn).
 */
static struct debugfs_blob_wrapper ramtrail_blob;
static struct dentry *ramtrail_debugfs;

static void ramtrail_debugfs_init(void)
{
	ramtrail_blob.data = ramtrail.base;
	ramtrail_blob.size = ramtrail.size;
	ramtrail_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_blob("region", 0400, ramtrail_debugfs, &ramtrail_blob);
}

static int __init ramtrail_init(void)
{
	phys_addr_t start;
	u64 size;
	int err;

	mutex_init(&ramtrail.modules_lock);
	err = ramtrail_find_region(&start, &size);
	if (!err)
		err = ramtrail_map(start, size, mem_name && *mem_name);
	if (err)
		return err;
	err = ramtrail_save_previous(reset);
	if (!err)
		err = ramtrail_format();
	if (!err)
		err = ramtrail_pstore_init(max_reason);
	if (err)
		goto unmap;
	ramtrail_list_saved();
	ramtrail_rings_init();
	ramtrail_add_module(THIS_MODULE);
	register_module_notifier(&ramtrail_module_nb);
	err = ramtrail_freeze_hooks_init();
	if (err)
		goto hooks;
	kernel_param_lock(THIS_MODULE);
	ramtrail.live = true;
	kernel_param_unlock(THIS_MODULE);
	err = ramtrail_record_start(functions);
	if (err)
		goto record;
	ramtrail_debugfs_init();
	return 0;
record:
	kernel_param_lock(THIS_MODULE);
	ramtrail.live = false;
	kernel_param_unlock(THIS_MODULE);
	ramtrail_freeze_hooks_exit();
hooks:
	unregister_module_notifier(&ramtrail_module_nb);
	ramtrail_pstore_exit();
unmap:
	/* Only this load's own, empty recording is ended here. */
	if (ramtrail.formatted)
		ramtrail_end(RAMTRAIL_FREEZE_NONE, RAMTRAIL_STATE_STOPPED);
	ramtrail_unmap();
	return err;
}

static void __exit ramtrail_exit(void)
{
	int cpu;

	/* enabled_set() runs under this lock: it sees live false after. */
	kernel_param_lock(THIS_MODULE);
	ramtrail.live = false;
	kernel_param_unlock(THIS_MODULE);
	debugfs_remove_recursive(ramtrail_debugfs);
	ramtrail_record_stop();
	ramtrail_freeze_hooks_exit();
	unregister_module_notifier(&ramtrail_module_nb);
	ramtrail_pstore_exit();
	if (!atomic_cmpxchg(&ramtrail.frozen, 0, 2)) {
		const struct ramtrail_region_header *h = ramtrail.hdr;

		for (cpu = 0; cpu < h->nr_cpus; cpu++)
			WRITE_ONCE(per_cpu_ptr(&ramtrail_rings, cpu)->stopped, 1);
		ramtrail_flush(ramtrail.base + h->zone_offset, (u64)h->nr_cpus *
			       h->nr_blocks << RAMTRAIL_BLOCK_SHIFT);
		ramtrail_end(RAMTRAIL_FREEZE_NONE, RAMTRAIL_STATE_STOPPED);
	}
	ramtrail_unmap();
}

module_init(ramtrail_init);
module_exit(ramtrail_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Crash-surviving per-CPU trace store in persistent RAM");
