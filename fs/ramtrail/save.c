// SPDX-License-Identifier: GPL-2.0
/*
 * At load: decode the zones the previous boot left, merge them by time and
 * append the result to the saved area, where it stays until erased through
 * pstore, across any number of later crashes. Also: turning the saved
 * offsets into this boot's addresses (KASLR, modules).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "internal.h"

/* Merge the zones; count function records, or store them past @skip. */
static u64 ramtrail_merge_zones(const struct ramtrail_region *reg,
				struct ramtrail_zone_cursor *cur, u32 *heap,
				struct ramtrail_saved_record *out, u64 skip,
				struct ramtrail_saved_trace *t)
{
	const struct ramtrail_record *r;
	struct ramtrail_merge m;
	u64 n = 0;
	u32 cpu;

	ramtrail_merge_init(&m, reg, cur, heap);
	while ((r = ramtrail_merge_next(&m))) {
		if (r->type == RAMTRAIL_W_EVENT)
			continue;	/* no event is kept in saved traces yet */
		if (out && n >= skip) {
			out->ts_cpu = ramtrail_ts_to_ns(&reg->hdr, r->ts) << 8 |
				      r->cpu;
			out->ip = r->ip;
			out->parent = r->parent;
			out++;
		}
		n++;
		cond_resched();
	}
	for (cpu = 0; t && cpu < reg->hdr.nr_cpus; cpu++) {
		const struct ramtrail_zone_stats *s = &cur[cpu].stats;

		t->corrupt_blocks += s->corrupt_blocks;
		t->torn += s->torn;
		t->lost_words += s->lost_words;
		t->no_time += s->no_base;
		t->dropped += reg->hdr.cpu[cpu].dropped;
		if (s->corrupt_blocks || s->torn || s->no_base)
			pr_info("cpu%u: %llu records, dropped %llu corrupt blocks, %llu torn, %llu without time, %llu unfinished words\n",
				cpu, s->records, s->corrupt_blocks, s->torn,
				s->no_base, s->lost_words);
	}
	return n;
}

/* Offset of the end of the saved list. */
static u64 ramtrail_saved_end(const struct ramtrail_region *reg)
{
	u64 off = 0;

	while (ramtrail_saved_next(reg, &off))
		;
	return off;
}

static void ramtrail_why_empty(const struct ramtrail_region *reg, int err)
{
	if (err == RAMTRAIL_E_MAGIC)
		pr_info("no earlier trace in the region (formatting it)\n");
	else if (err == RAMTRAIL_E_VERSION)
		pr_warn("region holds format version %u, this module writes %u: reformatting\n",
			reg->hdr.version, RAMTRAIL_VERSION);
	else
		pr_warn("region header unusable (%s): reformatting%s\n",
			ramtrail_strerror(err), ramtrail.mem_type == 2 ?
			"; a reserve_mem= region can move between boots, memmap= is safer" :
			"");
}

/**
 * ramtrail_save_previous() - move the previous boot's trace to the saved area
 *
 * Return: 0 (also when there was nothing to save), -EBUSY if the range
 * belongs to ramoops, or -ENOMEM.
 */
int ramtrail_save_previous(void)
{
	struct ramtrail_region *reg = &ramtrail.reg;
	const struct ramtrail_region_header *h = &reg->hdr;
	const struct ramtrail_module_entry *mods;
	struct ramtrail_zone_cursor *cur;
	struct ramtrail_saved_trace *t;
	u64 n, end, room, fixed, fit;
	u32 *heap, nmods = 0;
	int err = ramtrail_region_open(reg, ramtrail.base, ramtrail.size);

	if (err == RAMTRAIL_E_MAGIC &&
	    *(u32 *)ramtrail.base == RAMTRAIL_RAMOOPS_SIG) {
		/* ramoops does not always claim its range: don't take it. */
		pr_err("the range holds a ramoops buffer (signature DBGC): give ramtrail a range of its own, or load with reset=1 to take this one over\n");
		return -EBUSY;
	}
	if (err) {
		ramtrail_why_empty(reg, err);
		return 0;
	}
	if (h->phys_addr && h->phys_addr != ramtrail.phys)
		pr_warn("region was formatted at %#llx, now at %pa: it moved\n",
			h->phys_addr, &ramtrail.phys);
	if (h->state != RAMTRAIL_STATE_RECORDING &&
	    h->state != RAMTRAIL_STATE_FROZEN &&
	    h->state != RAMTRAIL_STATE_STOPPED)
		return 0;
	mods = (const void *)(reg->base + h->modtab_offset);
	while (nmods < h->modtab_count && mods[nmods].base)
		nmods++;
	cur = kcalloc(h->nr_cpus, sizeof(*cur), GFP_KERNEL);
	heap = kcalloc(h->nr_cpus, sizeof(*heap), GFP_KERNEL);
	if (!cur || !heap) {
		kfree(cur);
		kfree(heap);
		return -ENOMEM;
	}
	n = ramtrail_merge_zones(reg, cur, heap, NULL, 0, NULL);
	end = ramtrail_saved_end(reg);
	room = h->saved_size - end;
	fixed = sizeof(*t) + nmods * sizeof(*mods);
	if (!n) {
		pr_info("boot %llu recorded nothing\n", h->boot_id);
	} else if (room < fixed + sizeof(struct ramtrail_saved_record)) {
		pr_warn("saved area full: boot %llu's trace (%llu records) is lost; erase old ones (rm /sys/fs/pstore/ftrace-ramtrail-*)\n",
			h->boot_id, n);
	} else {
		fit = (room - fixed) / sizeof(struct ramtrail_saved_record);
		t = (void *)(ramtrail.base + h->saved_offset + end);
		memset(t, 0, sizeof(*t));
		memcpy(ramtrail_saved_modules(t), mods,
		       nmods * sizeof(*mods));
		t->modtab_count = nmods;
		t->skipped = n > fit ? n - fit : 0;
		t->nr_records = ramtrail_merge_zones(reg, cur, heap,
						     ramtrail_saved_records(t),
						     t->skipped, t) - t->skipped;
		t->size = fixed + t->nr_records * sizeof(struct ramtrail_saved_record);
		t->boot_id = h->boot_id;
		t->nonce = h->nonce;
		t->text_base = h->text_base;
		t->anchor_addr = h->anchor_addr;
		t->nr_cpus = h->nr_cpus;
		t->state = h->state;
		t->freeze_reason = h->freeze_reason;
		t->freeze_cpu = h->freeze_cpu;
		t->flags = h->flags;
		memcpy(t->release, h->release, sizeof(t->release));
		t->magic = RAMTRAIL_SAVED_MAGIC;
		t->checksum = ramtrail_saved_checksum(t);
		ramtrail_flush(t, t->size);
		pr_info("saved boot %llu: %llu records of %u CPUs (%s%s, %llu refused while recording, %llu oldest did not fit)\n",
			t->boot_id, t->nr_records, t->nr_cpus,
			h->state == RAMTRAIL_STATE_FROZEN ? "frozen by " :
			h->state == RAMTRAIL_STATE_STOPPED ? "stopped" :
			"still recording: power cut or reset",
			h->state == RAMTRAIL_STATE_FROZEN ?
			ramtrail_reason_name(h->freeze_reason) : "",
			t->dropped, t->skipped);
		if (!(h->flags & RAMTRAIL_F_CLOCK_RELIABLE))
			pr_warn("boot %llu's clock was not synchronised across CPUs: the merged order across CPUs is approximate\n",
				h->boot_id);
	}
	kfree(cur);
	kfree(heap);
	ramtrail.hdr->state = RAMTRAIL_STATE_SAVED;
	ramtrail_seal();
	return 0;
}

/**
 * ramtrail_relocate() - an address of a saved trace, in this boot's terms
 * @t: the saved trace
 * @off: offset from the trace's text base (0: none)
 *
 * Kernel text moves by the KASLR delta, module text to where a module of
 * the same name lies now. An address that cannot be relocated is returned
 * as its bare offset, which no symbol lookup resolves: never a wrong name.
 *
 * Return: the address to print.
 */
unsigned long ramtrail_relocate(const struct ramtrail_saved_trace *t, u32 off)
{
	const struct ramtrail_module_entry *now = (const void *)(ramtrail.base +
						ramtrail.hdr->modtab_offset);
	const struct ramtrail_module_entry *was = ramtrail_saved_modules(t);
	u64 addr = t->text_base + off;
	int i, j;

	if (!off)
		return 0;
	if (addr < MODULES_VADDR)
		return addr + ((unsigned long)panic - t->anchor_addr);
	for (i = t->modtab_count - 1; i >= 0; i--) {
		if (addr < was[i].base || addr - was[i].base >= was[i].size)
			continue;
		for (j = ramtrail.nr_modules - 1; j >= 0; j--)
			if (!strncmp(now[j].name, was[i].name,
				     sizeof(now[j].name)) &&
			    addr - was[i].base < now[j].size)
				return now[j].base + (addr - was[i].base);
		break;
	}
	return off;
}

/** ramtrail_list_saved() - say which pstore files hold which boot's trace */
void ramtrail_list_saved(void)
{
	const struct ramtrail_saved_trace *t;
	u64 off = 0, id = 0;

	while ((t = ramtrail_saved_next(&ramtrail.reg, &off))) {
		u64 parts = ramtrail_saved_parts(t);

		if (t->magic == RAMTRAIL_SAVED_MAGIC && parts > 1)
			pr_info("ftrace-ramtrail-%llu..%llu: trace of boot %llu (%s), %llu records\n",
				id, id + parts - 1, t->boot_id, t->release,
				t->nr_records);
		else if (t->magic == RAMTRAIL_SAVED_MAGIC)
			pr_info("ftrace-ramtrail-%llu: trace of boot %llu (%s), %llu records\n",
				id, t->boot_id, t->release, t->nr_records);
		id += parts;
	}
}
