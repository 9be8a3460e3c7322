// SPDX-License-Identifier: GPL-2.0
/*
 * The region: claim and map it, format it for this boot, and the few
 * stores that change it later (state, freeze record, flushes). Also the
 * debugfs view of it. Calls only the shared decoder and ring code.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/of.h>
#include <linux/of_reserved_mem.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/utsname.h>
#include "internal.h"

/**
 * ramtrail_flush() - make stores to part of the region reach memory
 * @cxt: the context
 * @p: start, inside the region
 * @len: bytes
 *
 * Cached mappings are written back line by line; write-combining buffers
 * are drained by the fence. Callable in any context.
 */
notrace void ramtrail_flush(struct ramtrail_context *cxt, void *p, size_t len)
{
	if (cxt->mem_type == RAMTRAIL_MEM_CACHED)
		ramtrail_arch_flush_cached(p, len);
	wmb();	/* drains this CPU's write-combining buffers */
}

/**
 * ramtrail_flush_zones() - ramtrail_flush() every zone
 * @cxt: the context
 */
notrace void ramtrail_flush_zones(struct ramtrail_context *cxt)
{
	const struct ramtrail_region_header *h = cxt->hdr;

	ramtrail_flush(cxt, cxt->base + le64_to_cpu(h->zone_offset),
		       ramtrail_zones_size(h));
}

/**
 * ramtrail_set_state() - change the region's state, crash-safely
 * @cxt: the context
 * @state: enum ramtrail_state
 *
 * One aligned 32-bit store: the state is outside the header checksum, so
 * a reset at any instant leaves either the old or the new state.
 */
notrace void ramtrail_set_state(struct ramtrail_context *cxt, u32 state)
{
	WRITE_ONCE(cxt->hdr->state, cpu_to_le32(state));
	ramtrail_flush(cxt, &cxt->hdr->state, sizeof(cxt->hdr->state));
}

/**
 * ramtrail_end() - write how recording ended, then the state
 * @cxt: the context
 * @reason: enum ramtrail_freeze_reason (NONE for a clean stop)
 * @state: RAMTRAIL_STATE_FROZEN or RAMTRAIL_STATE_STOPPED
 *
 * The caller has stopped every ring. The freeze record carries its own
 * checksum and is flushed before the state names it: a reset in between
 * leaves a region that reads as cut while recording, never a damaged one.
 * Callable in panic and NMI context.
 */
notrace void ramtrail_end(struct ramtrail_context *cxt, u32 reason, u32 state)
{
	struct ramtrail_region_header *h = cxt->hdr;
	struct ramtrail_freeze_info *f = &h->freeze;
	u32 cpu;

	f->checksum = 0;
	for (cpu = 0; cpu < le32_to_cpu(h->nr_cpus); cpu++) {
		struct ramtrail_ring *r = ramtrail_ring_of(cxt, cpu);

		f->zone[cpu].freeze_pos = cpu_to_le64(r ? local_read(&r->pos) : 0);
		f->zone[cpu].dropped = cpu_to_le64(r ? local_read(&r->dropped) : 0);
	}
	f->reason = cpu_to_le32(reason);
	f->boot_id = h->boot_id;
	f->cpu = cpu_to_le32(raw_smp_processor_id());
	f->nr_zones = h->nr_cpus;
	f->cycles = cpu_to_le64(ramtrail_clock() & RAMTRAIL_CLOCK_MASK);
	f->clock_flags = cpu_to_le32(ramtrail_arch_clock_flags());
	f->reserved = 0;
	memset(f->sealed, 0, sizeof(f->sealed));	/* ramtrail_rings_seal() */
	f->checksum = cpu_to_le32(ramtrail_freeze_checksum(f));
	ramtrail_flush(cxt, f, sizeof(*f));	/* the record before the state */
	ramtrail_set_state(cxt, state);
}

/**
 * ramtrail_resume() - say the region records again, after a freeze
 * @cxt: the context; its rings still stopped
 *
 * The freeze record stops naming this boot first: a reset after the state
 * changes finds a boot cut while recording, not the freeze that was
 * undone.
 */
void ramtrail_resume(struct ramtrail_context *cxt)
{
	struct ramtrail_freeze_info *f = &cxt->hdr->freeze;

	WRITE_ONCE(f->boot_id, 0);	/* boots are numbered from 1 */
	ramtrail_flush(cxt, &f->boot_id, sizeof(f->boot_id));
	ramtrail_set_state(cxt, RAMTRAIL_STATE_RECORDING);
}

/* Where the parameters put the region: 0 or -errno, said why. */
/* A property of the device tree's node: 4 or 8 bytes. */
static bool ramtrail_dt_u64(struct device_node *np, const char *name, u64 *v)
{
	u32 v32;
	int len;

	if (!of_find_property(np, name, &len))
		return false;
	if (len == sizeof(*v))
		return !of_property_read_u64(np, name, v);
	if (of_property_read_u32(np, name, &v32))
		return false;
	*v = v32;
	return true;
}

/* The node's properties for the parameters not given at load. */
static void ramtrail_dt_params(struct device_node *np,
			       struct ramtrail_params *p)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} props[] = {
		{ "mem-type", RAMTRAIL_GIVEN_MEM_TYPE },
		{ "max-reason", RAMTRAIL_GIVEN_MAX_REASON },
		{ "dmesg-size", RAMTRAIL_GIVEN_DMESG_SIZE },
		{ "dmesg-count", RAMTRAIL_GIVEN_DMESG_COUNT },
		{ "max-modules", RAMTRAIL_GIVEN_MAX_MODULES },
		{ "saved-size", RAMTRAIL_GIVEN_SAVED_SIZE },
		{ "ecc", RAMTRAIL_GIVEN_ECC },
	};
	unsigned int i;
	u64 v;

	for (i = 0; i < ARRAY_SIZE(props); i++) {
		if ((p->given & BIT(props[i].bit)) ||
		    !ramtrail_dt_u64(np, props[i].name, &v))
			continue;
		/* saved-size may take 64 bits; past 32, the others are refused. */
		if (props[i].bit != RAMTRAIL_GIVEN_SAVED_SIZE)
			v = min_t(u64, v, U32_MAX);
		switch (props[i].bit) {
		case RAMTRAIL_GIVEN_MEM_TYPE:
			p->mem_type = v;
			break;
		case RAMTRAIL_GIVEN_MAX_REASON:
			p->max_reason = min_t(u64, v, INT_MAX);
			break;
		case RAMTRAIL_GIVEN_DMESG_SIZE:
			p->dmesg_size = v;
			break;
		case RAMTRAIL_GIVEN_DMESG_COUNT:
			p->dmesg_count = v;
			break;
		case RAMTRAIL_GIVEN_MAX_MODULES:
			p->max_modules = v;
			break;
		case RAMTRAIL_GIVEN_SAVED_SIZE:
			p->saved_size = v;
			break;
		case RAMTRAIL_GIVEN_ECC:
			p->ecc = v;
			break;
		}
	}
}

/*
 * The region of a device tree's /reserved-memory node compatible with
 * "ramtrail" (Documentation/ramtrail/ramtrail.yaml), and its properties
 * for the parameters @p was not given.
 * Return: 0, -ENOENT if there is none, or another errno, said why.
 */
static int ramtrail_dt_find(struct ramtrail_params *p, phys_addr_t *start,
			    u64 *size)
{
	struct device_node *np = of_find_compatible_node(NULL, NULL,
							 "ramtrail");
	struct reserved_mem *rmem;

	if (!np)
		return -ENOENT;
	rmem = of_reserved_mem_lookup(np);
	if (!rmem || !rmem->size) {
		pr_err("%pOF is not a /reserved-memory node with a reg: not used\n",
		       np);
		of_node_put(np);
		return -EINVAL;
	}
	ramtrail_dt_params(np, p);
	of_node_put(np);
	*start = rmem->base;
	*size = rmem->size;
	if (!PAGE_ALIGNED(*start) || !PAGE_ALIGNED(*size) ||
	    *size < 16 * PAGE_SIZE) {
		pr_err("device tree region %pa+%#llx: need a page-aligned range of at least 64K\n",
		       start, *size);
		return -EINVAL;
	}
	pr_info("region %pa+%#llx from the device tree\n", start, *size);
	return 0;
}

/*
 * Where the region is: mem_name's reserve_mem= region, mem_address and
 * mem_size, or, with none of them, a device tree node, whose properties
 * then set the parameters @p was not given. Checks the parameters.
 */
static int ramtrail_find_region(struct ramtrail_params *p,
				phys_addr_t *start, u64 *size)
{
	/* A trace takes its header, the kernel's entry and a chunk at least. */
	u64 least = ramtrail_saved_fixed(1) + RAMTRAIL_SAVED_CHUNK_MIN;
	bool named = p->mem_name && *p->mem_name;
	int err = -ENOENT;

	if (!named && !p->mem_address && !p->mem_size) {
		err = ramtrail_dt_find(p, start, size);
		if (err != -ENOENT && err)
			return err;
	}
	if (!p->dmesg_count || p->dmesg_count > RAMTRAIL_MAX_DMESG) {
		pr_err("dmesg_count=%u: give 1 to %u (pstore needs a dmesg front end)\n",
		       p->dmesg_count, RAMTRAIL_MAX_DMESG);
		return -EINVAL;
	}
	if (p->max_modules < RAMTRAIL_MODTAB_MIN ||
	    p->max_modules > RAMTRAIL_MAX_MODULES) {
		pr_err("max_modules=%u: give %u to %u\n", p->max_modules,
		       RAMTRAIL_MODTAB_MIN, RAMTRAIL_MAX_MODULES);
		return -EINVAL;
	}
	if (p->ecc > RAMTRAIL_SAVED_ECC_MAX) {
		pr_err("ecc=%u: give 0 (none) to %u parity bytes per codeword\n",
		       p->ecc, RAMTRAIL_SAVED_ECC_MAX);
		return -EINVAL;
	}
	if (p->saved_size && round_down(p->saved_size, 8) < least) {
		pr_err("saved_size=%llu holds no trace: give %llu bytes or more, or leave it out for a third of the region\n",
		       p->saved_size, least);
		return -EINVAL;
	}
	if (!err)		/* the device tree's */
		return 0;
	if (named) {
		phys_addr_t s, sz;

		if (!RAMTRAIL_HAVE_RESERVE_MEM) {
			pr_err("mem_name needs reserve_mem=, Linux 6.12 or later; use memmap= and mem_address/mem_size\n");
			return -EINVAL;
		}
		if (p->mem_address || p->mem_size) {
			pr_err("give either mem_name or mem_address/mem_size\n");
			return -EINVAL;
		}
		if (!ramtrail_reserve_mem_find(p->mem_name, &s, &sz)) {
			pr_err("no reserve_mem= region named '%s'\n",
			       p->mem_name);
			return -ENOENT;
		}
		*start = s;
		*size = sz;
		return 0;
	}
	if (!p->mem_address || !p->mem_size) {
		pr_err("no region: give mem_address= and mem_size= (%s)\n",
		       RAMTRAIL_ARCH_RESERVE_HOW);
		return -EINVAL;
	}
	*start = p->mem_address;
	*size = p->mem_size;
	if (*size < 16 * PAGE_SIZE || !PAGE_ALIGNED(*start) ||
	    !PAGE_ALIGNED(*size) || *start + *size < *start) {
		pr_err("mem_address=%#lx mem_size=%llu: need a page-aligned range of at least 64K\n",
		       p->mem_address, p->mem_size);
		return -EINVAL;
	}
	return 0;
}

/**
 * ramtrail_storage_map() - claim and map the region the parameters name
 * @cxt: the context; @cxt->params set
 *
 * Return: 0 or a negative errno, said why in the log.
 */
int ramtrail_storage_map(struct ramtrail_context *cxt)
{
	bool reserve_mem = cxt->params.mem_name && *cxt->params.mem_name;
	unsigned int mem_type;
	phys_addr_t start;
	u64 size;
	int err;

	err = ramtrail_find_region(&cxt->params, &start, &size);
	if (err)
		return err;
	mem_type = cxt->params.mem_type;	/* the device tree's, maybe */
	if (mem_type > RAMTRAIL_MEM_CACHED) {
		pr_err("mem_type=%u: use 0 (write-combined), 1 (uncached) or 2 (cached)\n",
		       mem_type);
		return -EINVAL;
	}
	if (mem_type == RAMTRAIL_MEM_UNCACHED && !RAMTRAIL_ARCH_UNCACHED) {
		pr_err("mem_type=1: uncached is device memory here, where memset() and unaligned accesses fault: use 0 (write-combined) or 2 (cached)\n");
		return -EINVAL;
	}
	if (reserve_mem) {
		/* reserve_mem= hands out RAM pages: only a cached map is safe. */
		if (mem_type != RAMTRAIL_MEM_CACHED)
			pr_info("reserve_mem region: mapping it cached (mem_type=2)\n");
		mem_type = RAMTRAIL_MEM_CACHED;
	} else {
		if (region_intersects(start, size, IORESOURCE_SYSTEM_RAM,
				      IORES_DESC_NONE) != REGION_DISJOINT) {
			ramtrail_arch_say_reserve(start, size);
			return -EINVAL;
		}
		if (!request_mem_region(start, size, "ramtrail")) {
			pr_err("%pa+%#llx is in use (see /proc/iomem)\n",
			       &start, size);
			return -EBUSY;
		}
		cxt->requested = true;
	}
	cxt->phys = start;
	cxt->size = size;
	cxt->mem_type = mem_type;
	cxt->base = ramtrail_memremap(start, size, mem_type);
	if (!cxt->base) {
		pr_err("cannot map %pa+%#llx%s\n", &start, size,
		       mem_type == RAMTRAIL_MEM_UNCACHED ?
		       " uncached: use mem_type=0 or 2 for this range" : "");
		if (cxt->requested)
			release_mem_region(start, size);
		cxt->requested = false;
		return -ENOMEM;
	}
	cxt->hdr = (struct ramtrail_region_header *)cxt->base;
	return 0;
}

/**
 * ramtrail_storage_unmap() - undo ramtrail_storage_map()
 * @cxt: the context
 */
void ramtrail_storage_unmap(struct ramtrail_context *cxt)
{
	ramtrail_memunmap(cxt->base, cxt->mem_type);
	if (cxt->requested)
		release_mem_region(cxt->phys, cxt->size);
	cxt->base = NULL;
	cxt->hdr = NULL;
	cxt->requested = false;
}

/*
 * A dmesg record size the module makes: a header and 1 KiB of log at
 * least; at most RAMTRAIL_DMESG_SIZE_MAX, which pstore's buffer (one
 * kmalloc of the record's size) takes.
 */
static bool ramtrail_dmesg_size_ok(u64 size)
{
	return size >= sizeof(struct ramtrail_dmesg_header) + 1024 &&
	       size <= RAMTRAIL_DMESG_SIZE_MAX;
}

/**
 * ramtrail_layout_params() - the layout the parameters ask for
 * @cxt: the context, its region mapped
 * @h: laid out by ramtrail_layout()
 *
 * Return: 0; -ERANGE for a dmesg_size the module does not make; -ENOSPC
 * for a region too small for what is asked.
 */
int ramtrail_layout_params(struct ramtrail_context *cxt,
			   struct ramtrail_region_header *h)
{
	const struct ramtrail_params *p = &cxt->params;
	u32 cpus = min_t(u32, nr_cpu_ids, RAMTRAIL_MAX_CPUS);
	u64 saved = round_down(p->saved_size ?: cxt->size / 3, 8);

	if (p->dmesg_size > RAMTRAIL_DMESG_SIZE_MAX ||
	    !ramtrail_dmesg_size_ok(round_up(p->dmesg_size, 8)))
		return -ERANGE;
	if (ramtrail_layout(h, cxt->size, cpus, p->dmesg_count,
			    round_up(p->dmesg_size, 8), saved, p->max_modules))
		return -ENOSPC;
	return 0;
}

/* Lay out a fresh header, keeping the areas of a valid old one. */
static int ramtrail_layout_new(struct ramtrail_context *cxt,
			       struct ramtrail_region_header *h,
			       const struct ramtrail_region *old, bool old_ok,
			       bool *fresh)
{
	const struct ramtrail_params *p = &cxt->params;
	u32 cpus = min_t(u32, nr_cpu_ids, RAMTRAIL_MAX_CPUS);
	u64 saved = round_down(p->saved_size ?: cxt->size / 3, 8);
	int err;

	*fresh = false;
	/*
	 * A layout whose dmesg records this module would not make (only a
	 * forged header has one) is not kept: pstore would get a buffer too
	 * small for its dump header, or none, or one kmalloc() refuses.
	 */
	if (old_ok &&
	    (!old->hdr.dmesg_count ||
	     !ramtrail_dmesg_size_ok(le64_to_cpu(old->hdr.dmesg_size)))) {
		pr_warn("the region's layout has %u dmesg records of %llu bytes, which this module does not make: formatting it anew, its saved traces and logs are lost\n",
			le32_to_cpu(old->hdr.dmesg_count),
			le64_to_cpu(old->hdr.dmesg_size));
		old_ok = false;
	}
	if (old_ok) {
		if (le32_to_cpu(old->hdr.dmesg_count) != p->dmesg_count ||
		    le64_to_cpu(old->hdr.dmesg_size) != p->dmesg_size ||
		    le64_to_cpu(old->hdr.saved_size) != saved ||
		    le32_to_cpu(old->hdr.modtab_count) != p->max_modules)
			pr_notice("keeping the region's layout (dmesg %u x %llu, saved %llu bytes, %u modules); load with reset=1 to change it\n",
				  le32_to_cpu(old->hdr.dmesg_count),
				  le64_to_cpu(old->hdr.dmesg_size),
				  le64_to_cpu(old->hdr.saved_size),
				  le32_to_cpu(old->hdr.modtab_count));
		err = ramtrail_layout(h, cxt->size, cpus,
				      le32_to_cpu(old->hdr.dmesg_count),
				      le64_to_cpu(old->hdr.dmesg_size),
				      le64_to_cpu(old->hdr.saved_size),
				      le32_to_cpu(old->hdr.modtab_count));
		/* Kept only if rewritten byte for byte: see ramtrail_format(). */
		if (!err && !memcmp(&h->region_size, &old->hdr.region_size,
				    offsetof(struct ramtrail_region_header,
					     machine) -
				    offsetof(struct ramtrail_region_header,
					     region_size)))
			return 0;
	}
	err = ramtrail_layout_params(cxt, h);
	if (err == -ERANGE)
		pr_err("dmesg_size=%lu: give %zu to %lu\n", p->dmesg_size,
		       sizeof(struct ramtrail_dmesg_header) + 1024,
		       RAMTRAIL_DMESG_SIZE_MAX);
	else if (err)
		pr_err("region of %llu bytes too small for %u CPUs, %u dmesg records of %lu bytes and %llu saved bytes\n",
		       cxt->size, cpus, p->dmesg_count, p->dmesg_size, saved);
	if (err)
		return -EINVAL;
	*fresh = true;	/* new layout: clear the areas */
	return 0;
}

/* The next boot number: past every boot the region remembers. */
static u64 ramtrail_next_boot_id(struct ramtrail_context *cxt)
{
	const struct ramtrail_region *old = &cxt->reg;
	const struct ramtrail_saved_trace *t;
	const struct ramtrail_dmesg_header *d;
	/* A header that failed its checksum has no boot number to trust. */
	u64 id = cxt->prev.header == RAMTRAIL_OK ||
		 cxt->prev.header == RAMTRAIL_E_STATE ?
		 le64_to_cpu(old->hdr.boot_id) : 0;
	u64 pos = 0;
	u32 i;

	if (id > RAMTRAIL_BOOT_ID_MAX)
		id = 0;
	/* A forged number past the limit would end the numbering: skipped. */
	while ((t = ramtrail_saved_next(old, &pos)))
		if (le64_to_cpu(t->boot_id) <= RAMTRAIL_BOOT_ID_MAX)
			id = max(id, le64_to_cpu(t->boot_id));
	for (i = 0; i < le32_to_cpu(old->hdr.dmesg_count); i++) {
		d = ramtrail_dmesg_at(old, i);
		if (d && le64_to_cpu(d->boot_id) <= RAMTRAIL_BOOT_ID_MAX)
			id = max(id, le64_to_cpu(d->boot_id));
	}
	return id + 1;
}

/**
 * ramtrail_storage_format() - write this boot's header, clear its zones
 * @cxt: the context; @cxt->reg holds what the region held
 *
 * Reset-safe at every instant: the state goes to FORMATTING first (one
 * store), so a torn header rewrite or a half-cleared zone is never read as
 * a trace; the layout is rewritten with the same values, so its own
 * checksum keeps the dmesg records and saved traces reachable throughout.
 *
 * Return: 0 or a negative errno.
 */
int ramtrail_storage_format(struct ramtrail_context *cxt)
{
	struct ramtrail_region_header *h;
	struct ramtrail_region *old = &cxt->reg;
	bool old_ok = !cxt->params.reset && old->base;
	bool fresh;
	int err;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	err = ramtrail_layout_new(cxt, h, old, old_ok, &fresh);
	if (err) {
		kfree(h);
		return err;
	}
	h->nonce = cpu_to_le64(get_random_u64());
	h->boot_id = cpu_to_le64(old_ok ? ramtrail_next_boot_id(cxt) : 1);
	h->phys_addr = cpu_to_le64(cxt->phys);
	h->machine = cpu_to_le32(RAMTRAIL_ARCH_MACHINE);
	h->text_base = cpu_to_le64(RAMTRAIL_ARCH_TEXT_BASE);
	h->anchor_addr = cpu_to_le64(ramtrail_arch_text_anchor());
	strscpy(h->release, init_utsname()->release, sizeof(h->release));
	strscpy(h->build, init_utsname()->version, sizeof(h->build));
	if (cxt->params.stop_when_full)
		h->flags |= cpu_to_le32(RAMTRAIL_F_STOP_WHEN_FULL);
	h->clock_hz = cpu_to_le64(ramtrail_arch_clock_hz());
	h->flags |= cpu_to_le32(ramtrail_arch_clock_flags());
	if (le64_to_cpu(h->clock_hz) < RAMTRAIL_CLOCK_HZ_MIN ||
	    le64_to_cpu(h->clock_hz) > RAMTRAIL_CLOCK_HZ_MAX)
		h->clock_hz = 0;	/* unknown: times stay in ticks */
	h->clock_ref_cycles =
		cpu_to_le64(ramtrail_clock() & RAMTRAIL_CLOCK_MASK);
	h->clock_ref_ns = cpu_to_le64(ktime_get_mono_fast_ns());
	h->checksum = cpu_to_le32(ramtrail_header_checksum(h));

	/* Pairs with ramtrail_region_open(): FORMATTING zones are never read. */
	ramtrail_set_state(cxt, RAMTRAIL_STATE_FORMATTING);
	memcpy(cxt->hdr, h, sizeof(*h));
	ramtrail_flush(cxt, cxt->hdr, sizeof(*h));
	memset(cxt->base + le64_to_cpu(h->modtab_offset), 0,
	       le64_to_cpu(h->dmesg_offset) - le64_to_cpu(h->modtab_offset));
	if (fresh)
		memset(cxt->base + le64_to_cpu(h->dmesg_offset), 0,
		       le64_to_cpu(h->zone_offset) -
		       le64_to_cpu(h->dmesg_offset));
	memset(cxt->base + le64_to_cpu(h->zone_offset), 0,
	       ramtrail_zones_size(h));
	ramtrail_flush(cxt, cxt->base + le64_to_cpu(h->modtab_offset),
		       le64_to_cpu(h->region_size) -
			       le64_to_cpu(h->modtab_offset));
	ramtrail_set_state(cxt, RAMTRAIL_STATE_RECORDING);
	WRITE_ONCE(cxt->formatted, true);
	kfree(h);
	err = ramtrail_region_open(&cxt->reg, cxt->base, cxt->size);
	if (err) {
		/* A range with no memory behind it, or memory that fails. */
		pr_err("%pa+%#llx does not keep what is written to it (the header read back: %s%s%s): is there RAM at this address?\n",
		       &cxt->phys, cxt->size, ramtrail_strerror(err),
		       cxt->reg.bad ? ": " : "", cxt->reg.bad ?: "");
		return -EIO;
	}
	pr_info("boot %llu: region %pa+%#llx, %u zones of %llu KiB, mem_type %u%s, functions '%s'\n",
		le64_to_cpu(cxt->hdr->boot_id), &cxt->phys, cxt->size,
		le32_to_cpu(cxt->hdr->nr_cpus),
		(u64)le32_to_cpu(cxt->hdr->nr_blocks) <<
		(RAMTRAIL_BLOCK_SHIFT - 10),
		cxt->mem_type, fresh && old_ok ? ", new layout" : "",
		cxt->params.functions ?: "");
	return 0;
}

/**
 * ramtrail_rings_init() - point each CPU's ring at its zone
 * @cxt: the context, formatted
 *
 * A possible CPU beyond the region's zones gets a ring that refuses its
 * records and counts them (RAMTRAIL_RING_REFUSING). The rings' pairs are
 * empty (zeroed when allocated; rings start at position 0 only here).
 */
void ramtrail_rings_init(struct ramtrail_context *cxt)
{
	const struct ramtrail_region_header *h = cxt->hdr;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ramtrail_ring *r = per_cpu_ptr(cxt->rings, cpu);

		if (cpu >= le32_to_cpu(h->nr_cpus)) {
			ramtrail_ring_init(r, NULL, RAMTRAIL_MIN_BLOCKS, 0);
			r->stopped = RAMTRAIL_RING_REFUSING;
			continue;
		}
		ramtrail_ring_init(r, (__le64 *)(cxt->base +
						 ramtrail_zone_offset(h, cpu)),
				   le32_to_cpu(h->nr_blocks),
				   (cxt->params.stop_when_full ?
				    RAMTRAIL_RING_STOP_WHEN_FULL : 0) |
				   (cxt->mem_type == RAMTRAIL_MEM_WC ?
				    RAMTRAIL_RING_WC : 0));
		r->pairs = cxt->pairs + (size_t)cpu * RAMTRAIL_PAIRS;
		r->stopped = cxt->enabled ? 0 : RAMTRAIL_RING_PAUSED;
	}
}

/* Bound of ramtrail_rings_seal()'s wait for writers in flight, in us. */
#define RAMTRAIL_SEAL_WAIT_US	1000

/**
 * ramtrail_rings_seal() - seal every stopped zone up to where it stopped
 * @cxt: the context; its rings paused, the freeze record written
 *
 * A zone is sealed once no writer of its CPU is between reserve and
 * commit (ring->floor idle): the writers that reserved before the freeze
 * record's position have then stored their words. Waits at most
 * RAMTRAIL_SEAL_WAIT_US for all of them; a zone whose writer does not
 * finish (this CPU's, interrupted by the crash, or a CPU that stopped
 * with a record in flight) keeps its newest blocks unsealed, read
 * record by record. The freeze record then says which zones are sealed,
 * in its last stores: stopped before them, it says none, and checks; a
 * reset between them and its new checksum leaves a freeze record that does
 * not check, and the zones read as a power cut's. Callable in any context,
 * panic and NMI included.
 */
notrace void ramtrail_rings_seal(struct ramtrail_context *cxt)
{
	struct ramtrail_freeze_info *f = &cxt->hdr->freeze;
	u32 nr = min_t(u32, le32_to_cpu(cxt->hdr->nr_cpus), nr_cpu_ids);
	u32 cpu, left = nr, self = raw_smp_processor_id();
	DECLARE_BITMAP(done, RAMTRAIL_MAX_CPUS) = { 0 };
	__le64 sealed[ARRAY_SIZE(f->sealed)] = { 0 };
	u64 pos;
	int us;

	smp_rmb();	/* [R4]: ramtrail_end()'s positions before the floors */
	for (us = 0; left && us < RAMTRAIL_SEAL_WAIT_US; us++) {
		for (cpu = 0; cpu < nr; cpu++) {
			struct ramtrail_ring *r = ramtrail_ring_of(cxt, cpu);

			if (test_bit(cpu, done))
				continue;
			if (!r) {	/* no CPU: nothing written */
				__set_bit(cpu, done);
				left--;
				continue;
			}
			if (READ_ONCE(r->floor) != RAMTRAIL_FLOOR_IDLE) {
				/* Ours never finishes: the crash interrupted it. */
				if (cpu == self) {
					__set_bit(cpu, done);
					left--;
				}
				continue;
			}
			smp_rmb();	/* the writers' words after their floor */
			pos = le64_to_cpu(f->zone[cpu].freeze_pos);
			ramtrail_ring_seal_tail(r, pos);
			sealed[cpu / 64] |= cpu_to_le64(BIT_ULL(cpu % 64));
			__set_bit(cpu, done);
			left--;
		}
		if (left)
			udelay(1);
	}
	ramtrail_flush_zones(cxt);	/* the seals before the record says so */
	/* Stopped before these stores, the record still checks: none sealed. */
	memcpy(f->sealed, sealed, sizeof(sealed));
	f->checksum = 0;
	f->checksum = cpu_to_le32(ramtrail_freeze_checksum(f));
	ramtrail_flush(cxt, f, sizeof(*f));
}

/**
 * ramtrail_rings_unseal() - let every stopped zone record again
 * @cxt: the context; its rings paused
 *
 * Undoes ramtrail_rings_seal() on the blocks that recording goes on in.
 */
notrace void ramtrail_rings_unseal(struct ramtrail_context *cxt)
{
	u32 cpu, nr = le32_to_cpu(cxt->hdr->nr_cpus);
	struct ramtrail_ring *r;

	for (cpu = 0; cpu < nr; cpu++) {
		r = ramtrail_ring_of(cxt, cpu);
		if (r)
			ramtrail_ring_unseal(r);
	}
}

/**
 * ramtrail_modtab() - this boot's module table in the region
 * @cxt: the context, formatted
 *
 * Return: the first entry.
 */
struct ramtrail_module_entry *ramtrail_modtab(struct ramtrail_context *cxt)
{
	return (void *)(cxt->base + le64_to_cpu(cxt->hdr->modtab_offset));
}

/**
 * ramtrail_dmesg() - a dmesg slot of the region, valid or not
 * @cxt: the context, formatted
 * @slot: below the header's dmesg_count
 *
 * Return: the slot's header.
 */
notrace struct ramtrail_dmesg_header *ramtrail_dmesg(struct ramtrail_context *cxt,
						     u32 slot)
{
	return (void *)(cxt->base + ramtrail_dmesg_offset(cxt->hdr, slot));
}

static const char * const ramtrail_prev_traces[] = {
	[RAMTRAIL_PREV_NONE]		= "none",
	[RAMTRAIL_PREV_EMPTY]		= "empty",
	[RAMTRAIL_PREV_SAVED]		= "saved",
	[RAMTRAIL_PREV_SAVED_BEFORE]	= "saved-before",
	[RAMTRAIL_PREV_LOST]		= "lost",
};

/* debugfs status: what a test or a script needs, one "key: value" a line. */
static int ramtrail_status_show(struct seq_file *m, void *unused)
{
	struct ramtrail_context *cxt = m->private;
	const struct ramtrail_region_header *h = cxt->hdr;
	const struct ramtrail_prev *p = &cxt->prev;
	const struct ramtrail_saved_trace *t;
	struct ramtrail_saved_walk w = { 0 };

	seq_printf(m, "boot_id: %llu\n", le64_to_cpu(h->boot_id));
	seq_printf(m, "state: %s\n",
		   ramtrail_state_name(le32_to_cpu(READ_ONCE(h->state))));
	seq_printf(m, "freeze_reason: %s\n",
		   atomic_read(&cxt->freeze_state) == RAMTRAIL_FROZEN ?
			   ramtrail_reason_name(le32_to_cpu(h->freeze.reason)) :
			   "none");
	seq_printf(m, "recording: %d\n", cxt->recording);
	seq_printf(m, "pstore: %s\n", cxt->pstore.buf ? "registered" : "taken");
	seq_printf(m, "previous_header: %s\n", ramtrail_error_name(p->header));
	seq_printf(m, "previous_version: %u\n", p->version);
	seq_printf(m, "previous_boot_id: %llu\n", p->boot_id);
	seq_printf(m, "previous_state: %s\n", ramtrail_state_name(p->state));
	seq_printf(m, "previous_freeze_reason: %s\n",
		   ramtrail_reason_name(p->reason));
	seq_printf(m, "previous_trace: %s\n", ramtrail_prev_traces[p->trace]);
	seq_printf(m, "previous_records: %llu\n", p->records);
	seq_printf(m, "previous_skipped: %llu\n", p->skipped);
	seq_printf(m, "previous_dropped: %llu\n", p->dropped);
	seq_printf(m, "previous_sealed_zones: %u\n", p->sealed_zones);
	seq_printf(m, "previous_sealed_blocks: %llu\n", p->sealed_blocks);
	seq_printf(m, "saved_refused: %u\n", cxt->reg.saved_refused);
	seq_printf(m, "saved_headers_corrected: %u\n", cxt->headers_corrected);
	while ((t = ramtrail_saved_walk(&cxt->reg, &w)))
		if (!ramtrail_saved_all_erased(t))
			seq_printf(m, "trace: first=%llu files=%llu boot=%llu records=%llu damaged=%llu corrected=%llu release=%.*s\n",
				   w.first, w.next - w.first,
				   le64_to_cpu(t->boot_id),
				   le64_to_cpu(t->nr_records),
				   cxt->damaged[w.pos - 1],
				   cxt->corrected[w.pos - 1],
				   (int)sizeof(t->release), t->release);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramtrail_status);

/*
 * debugfs cpus: each zone's writer, live. pos counts the bytes written
 * since the format (block headers, padding and task events included), so
 * the laps over the zone are pos / zone size.
 */
static int ramtrail_cpus_show(struct seq_file *m, void *unused)
{
	struct ramtrail_context *cxt = m->private;
	const struct ramtrail_region_header *h = cxt->hdr;
	u64 zone = (u64)le32_to_cpu(h->nr_blocks) << RAMTRAIL_BLOCK_SHIFT;
	u32 cpu;

	for (cpu = 0; cpu < le32_to_cpu(h->nr_cpus); cpu++) {
		struct ramtrail_ring *r = ramtrail_ring_of(cxt, cpu);
		u64 pos;

		if (!r)
			continue;
		pos = local_read(&r->pos);

		seq_printf(m, "cpu: %u records=%lu dropped=%lu laps=%llu pos=%llu stopped=%u\n",
			   cpu, local_read(&r->records), local_read(&r->dropped),
			   div64_u64(pos, zone), pos, READ_ONCE(r->stopped));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ramtrail_cpus);

/**
 * ramtrail_debugfs_init() - the region (read-only) and a status file
 * @cxt: the context, formatted
 *
 * tools/ramtrail reads a live system's zones and saved traces from
 * "region" (records being written show as torn); "status" says what
 * this load found and did, for scripts and tests; "cpus" counts what each
 * CPU's writer did.
 */
void ramtrail_debugfs_init(struct ramtrail_context *cxt)
{
	cxt->blob.data = cxt->base;
	cxt->blob.size = cxt->size;
	cxt->debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_blob("region", 0400, cxt->debugfs, &cxt->blob);
	debugfs_create_file("status", 0400, cxt->debugfs, cxt,
			    &ramtrail_status_fops);
	debugfs_create_file("cpus", 0400, cxt->debugfs, cxt,
			    &ramtrail_cpus_fops);
}

/**
 * ramtrail_debugfs_exit() - undo ramtrail_debugfs_init()
 * @cxt: the context
 */
void ramtrail_debugfs_exit(struct ramtrail_context *cxt)
{
	debugfs_remove_recursive(cxt->debugfs);
	cxt->debugfs = NULL;
}
