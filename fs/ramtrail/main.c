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

static unsigned long mem_address;
module_param(mem_address, ulong, 0400);
MODULE_PARM_DESC(mem_address, "physical start of the region (memmap= reserved)");

static char *mem_size;
module_param(mem_size, charp, 0400);
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

static int enabled_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int cpu, err = kstrtobool(val, &on);

	if (err)
		return err;
	enabled = on;
	if (ramtrail.hdr && !atomic_read(&ramtrail.frozen))
		for_each_possible_cpu(cpu)
			if (cpu < ramtrail.hdr->nr_cpus)
				WRITE_ONCE(per_cpu(ramtrail_rings, cpu).stopped,
					   !on);
	return 0;
}

static const struct kernel_param_ops enabled_ops = {
	.set = enabled_set,
	.get = param_get_bool,
};
module_param_cb(enabled, &enabled_ops, &enabled, 0600);
MODULE_PARM_DESC(enabled, "record (1, default) or not (0); writable at run time");

static const char * const reason_names[] = {
	[RAMTRAIL_FREEZE_NONE]	= "none",
	[RAMTRAIL_FREEZE_PANIC]	= "panic",
	[RAMTRAIL_FREEZE_OOPS]	= "oops",
	[RAMTRAIL_FREEZE_API]	= "ramtrail_freeze()",
	[RAMTRAIL_FREEZE_USER]	= "user",
};

/**
 * ramtrail_reason_name() - name of a freeze reason
 * @reason: enum ramtrail_freeze_reason
 *
 * Return: a static string.
 */
const char *ramtrail_reason_name(u32 reason)
{
	return reason < ARRAY_SIZE(reason_names) ? reason_names[reason] : "?";
}

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

/** ramtrail_seal() - recompute the header checksum and flush the header */
notrace void ramtrail_seal(void)
{
	ramtrail.hdr->checksum = ramtrail_header_checksum(ramtrail.hdr);
	ramtrail_flush(ramtrail.hdr, sizeof(*ramtrail.hdr));
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
	u64 saved = saved_size ? memparse(saved_size, NULL) : ramtrail.size / 4;
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
		if (!err && h->saved_offset == old->hdr.saved_offset &&
		    h->dmesg_offset == old->hdr.dmesg_offset)
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

/* Write this boot's header and clear what it does not keep. */
static int ramtrail_format(void)
{
	struct ramtrail_region_header *h, *old_hdr = &ramtrail.reg.hdr;
	bool old_ok = !reset && ramtrail_region_open(&ramtrail.reg,
						      ramtrail.base,
						      ramtrail.size) == RAMTRAIL_OK;
	u64 boot_id = old_ok ? old_hdr->boot_id + 1 : 1;
	int fresh;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	fresh = ramtrail_layout_new(h, &ramtrail.reg, old_ok);
	if (fresh < 0) {
		kfree(h);
		return fresh;
	}
	h->nonce = get_random_u64();
	h->boot_id = boot_id;
	h->phys_addr = ramtrail.phys;
	h->text_base = RAMTRAIL_TEXT_BASE;
	h->anchor_addr = (unsigned long)panic;
	strscpy(h->release, init_utsname()->release, sizeof(h->release));
	if (stop_when_full)
		h->flags |= RAMTRAIL_F_STOP_WHEN_FULL;
#ifdef CONFIG_X86
	h->clock_hz = (u64)tsc_khz * 1000;
	if (boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
	    boot_cpu_has(X86_FEATURE_NONSTOP_TSC) && !check_tsc_unstable())
		h->flags |= RAMTRAIL_F_CLOCK_RELIABLE;
#else
	h->clock_hz = NSEC_PER_SEC;
	h->flags |= RAMTRAIL_F_CLOCK_RELIABLE;
#endif
	h->clock_ref_cycles = ramtrail_clock() & RAMTRAIL_CLOCK_MASK;
	h->clock_ref_ns = ktime_get_mono_fast_ns();

	/* A crash in the middle leaves FORMATTING: zones are never read. */
	*ramtrail.hdr = *h;
	ramtrail_seal();
	memset(ramtrail.base + h->modtab_offset, 0,
	       h->dmesg_offset - h->modtab_offset);
	if (fresh)
		memset(ramtrail.base + h->dmesg_offset, 0,
		       h->zone_offset - h->dmesg_offset);
	memset(ramtrail.base + h->zone_offset, 0,
	       (u64)h->nr_cpus * h->nr_blocks << RAMTRAIL_BLOCK_SHIFT);
	ramtrail.hdr->state = RAMTRAIL_STATE_RECORDING;
	ramtrail_seal();
	kfree(h);
	if (ramtrail_region_open(&ramtrail.reg, ramtrail.base, ramtrail.size))
		return -EIO;	/* cannot happen: we just wrote it */
	pr_info("boot %llu: region %pa+%#llx, %u zones of %u KiB, mem_type %u%s\n",
		boot_id, &ramtrail.phys, ramtrail.size, ramtrail.hdr->nr_cpus,
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

/* Text of a module, in this boot. */
static void ramtrail_module_text(struct module *mod, u64 *base, u64 *size)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	*base = (unsigned long)mod->mem[MOD_TEXT].base;
	*size = mod->mem[MOD_TEXT].size;
#else
	*base = (unsigned long)mod->core_layout.base;
	*size = mod->core_layout.text_size;
#endif
}

static void ramtrail_add_module(struct module *mod)
{
	struct ramtrail_module_entry *e;
	const struct ramtrail_region_header *h = ramtrail.hdr;

	if (ramtrail.nr_modules >= h->modtab_count) {
		pr_warn_once("module table full: ips in later modules stay unrelocated\n");
		return;
	}
	e = (struct ramtrail_module_entry *)(ramtrail.base + h->modtab_offset) +
	    ramtrail.nr_modules++;
	ramtrail_module_text(mod, &e->base, &e->size);
	strscpy(e->name, mod->name, sizeof(e->name));
}

static int ramtrail_module_event(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	if (action == MODULE_STATE_COMING)
		ramtrail_add_module(data);
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

	err = ramtrail_find_region(&start, &size);
	if (!err)
		err = ramtrail_map(start, size, mem_name && *mem_name);
	if (err)
		return err;
	if (!reset)
		err = ramtrail_save_previous();
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
	err = ramtrail_record_start(functions);
	if (err)
		goto record;
	ramtrail_debugfs_init();
	return 0;
record:
	ramtrail_freeze_hooks_exit();
hooks:
	unregister_module_notifier(&ramtrail_module_nb);
	ramtrail_pstore_exit();
unmap:
	if (ramtrail.reg.base) {
		ramtrail.hdr->state = RAMTRAIL_STATE_STOPPED;
		ramtrail_seal();
	}
	ramtrail_unmap();
	return err;
}

static void __exit ramtrail_exit(void)
{
	debugfs_remove_recursive(ramtrail_debugfs);
	ramtrail_record_stop();
	ramtrail_freeze_hooks_exit();
	unregister_module_notifier(&ramtrail_module_nb);
	ramtrail_pstore_exit();
	if (!atomic_read(&ramtrail.frozen)) {
		int cpu;

		for (cpu = 0; cpu < ramtrail.hdr->nr_cpus; cpu++) {
			struct ramtrail_ring *r = per_cpu_ptr(&ramtrail_rings, cpu);

			ramtrail.hdr->cpu[cpu].freeze_pos = local_read(&r->pos);
			ramtrail.hdr->cpu[cpu].dropped = local_read(&r->dropped);
		}
		ramtrail.hdr->state = RAMTRAIL_STATE_STOPPED;
		ramtrail_seal();
	}
	ramtrail_unmap();
}

module_init(ramtrail_init);
module_exit(ramtrail_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Crash-surviving per-CPU trace store in persistent RAM");
