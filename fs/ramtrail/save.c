// SPDX-License-Identifier: GPL-2.0
/*
 * At load: decode the zones the previous boot left, merge them by time and
 * write the result to the saved area, where it stays until erased through
 * pstore, across any number of later crashes. Also: turning the saved
 * offsets into this boot's addresses (KASLR, modules).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/utsname.h>
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
		const struct ramtrail_freeze_info *f = ramtrail_region_freeze(reg);

		t->corrupt_blocks += s->corrupt_blocks;
		t->torn += s->torn;
		t->lost_words += s->lost_words;
		t->no_time += s->no_base;
		t->dropped += f ? f->zone[cpu].dropped : 0;
		if (s->corrupt_blocks || s->torn || s->no_base)
			pr_info("cpu%u: %llu records, dropped %llu corrupt blocks, %llu torn, %llu without time, %llu unfinished words\n",
				cpu, s->records, s->corrupt_blocks, s->torn,
				s->no_base, s->lost_words);
	}
	return n;
}

/*
 * Erased traces are garbage: clear their magic (one store each), so that
 * their space is free. A reset in between leaves them erased or gone.
 */
static void ramtrail_saved_collect(struct ramtrail_region *reg)
{
	struct ramtrail_saved_trace *t;
	u64 pos = 0;

	while ((t = (void *)ramtrail_saved_next(reg, &pos))) {
		if (!ramtrail_saved_all_erased(t))
			continue;
		WRITE_ONCE(t->magic, 0);
		ramtrail_flush(&t->magic, sizeof(t->magic));
	}
	ramtrail_saved_scan(reg);
}

static void ramtrail_why_empty(const struct ramtrail_region *reg, int err)
{
	if (err == RAMTRAIL_E_MAGIC)
		pr_info("no earlier trace in the region (formatting it)\n");
	else if (err == RAMTRAIL_E_VERSION)
		pr_warn("region holds format version %u, this module writes %u: reformatting\n",
			reg->hdr.version, RAMTRAIL_VERSION);
	else if (!reg->base)
		pr_warn("region header unusable (%s): reformatting%s\n",
			ramtrail_strerror(err), ramtrail.mem_type == 2 ?
			"; a reserve_mem= region can move between boots, memmap= is safer" :
			"");
	else
		pr_warn("boot %llu's header is damaged or half written (%s): its zones are not read; saved traces and dmesg records are kept\n",
			reg->hdr.boot_id, ramtrail_strerror(err));
}

/* Was this boot's trace saved already (a reset after saving it)? */
static bool ramtrail_saved_already(const struct ramtrail_region *reg)
{
	const struct ramtrail_saved_trace *t;
	u64 pos = 0;

	while ((t = ramtrail_saved_next(reg, &pos)))
		if (t->boot_id == reg->hdr.boot_id && t->nonce == reg->hdr.nonce)
			return true;
	return false;
}

/* Fill @t's header from the region it was recovered from, and seal it. */
static void ramtrail_saved_seal(struct ramtrail_saved_trace *t,
				const struct ramtrail_region *reg, u32 nmods)
{
	const struct ramtrail_region_header *h = &reg->hdr;
	const struct ramtrail_freeze_info *f = ramtrail_region_freeze(reg);

	t->size = sizeof(*t) + nmods * sizeof(struct ramtrail_module_entry) +
		  t->nr_records * sizeof(struct ramtrail_saved_record);
	t->boot_id = h->boot_id;
	t->nonce = h->nonce;
	t->text_base = h->text_base;
	t->anchor_addr = h->anchor_addr;
	t->nr_cpus = h->nr_cpus;
	t->state = h->state;
	t->freeze_reason = f ? f->reason : RAMTRAIL_FREEZE_NONE;
	t->freeze_cpu = f ? f->cpu : 0;
	t->flags = ramtrail_region_flags(reg);
	memcpy(t->release, h->release, sizeof(t->release));
	memcpy(t->build, h->build, sizeof(t->build));
	t->erased = 0;
	t->magic = RAMTRAIL_SAVED_MAGIC;
	t->checksum = ramtrail_saved_checksum(t);
}

/**
 * ramtrail_save_previous() - move the previous boot's trace to the saved area
 * @reset: only look (for ramoops' signature): the region is to be cleared
 *
 * Fills ramtrail.reg and ramtrail.prev_err with what the region holds. The
 * new entry goes where no trace that is not fully erased lies (those are
 * never moved). A reset at any instant of the save is safe: erased entries
 * are cleared with one store each, the new entry is sealed after its
 * records, and an entry of the same boot and format is never saved twice.
 *
 * Return: 0 (also when there was nothing to save), -EBUSY if the range
 * belongs to ramoops, or -ENOMEM.
 */
int ramtrail_save_previous(bool reset)
{
	struct ramtrail_region *reg = &ramtrail.reg;
	const struct ramtrail_region_header *h = &reg->hdr;
	const struct ramtrail_module_entry *mods;
	struct ramtrail_zone_cursor *cur;
	struct ramtrail_saved_trace *t;
	u64 n, at = 0, room = 0, fixed, fit;
	u32 *heap, nmods = 0;
	int err = ramtrail_region_open(reg, ramtrail.base, ramtrail.size);

	ramtrail.prev_err = err;
	if (reset)
		return 0;
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
	if (!ramtrail_zones_hold_trace(reg, err))
		return 0;
	if (ramtrail_saved_already(reg)) {
		pr_info("boot %llu's trace was saved before a reset\n",
			h->boot_id);
		ramtrail_set_state(RAMTRAIL_STATE_SAVED);
		return 0;
	}
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
	fixed = sizeof(*t) + nmods * sizeof(*mods);
	if (n) {
		ramtrail_saved_collect(reg);
		at = ramtrail_saved_place(reg, fixed + n *
					  sizeof(struct ramtrail_saved_record),
					  &room);
	}
	if (!n) {
		pr_info("boot %llu recorded nothing\n", h->boot_id);
	} else if (room < fixed + sizeof(struct ramtrail_saved_record)) {
		pr_warn("saved area full: boot %llu's trace (%llu records) is lost; erase old ones (rm /sys/fs/pstore/ftrace-ramtrail-*)\n",
			h->boot_id, n);
	} else {
		fit = (room - fixed) / sizeof(struct ramtrail_saved_record);
		t = (void *)(ramtrail.base + h->saved_offset + at);
		memset(t, 0, sizeof(*t));
		memcpy(ramtrail_saved_modules(t), mods,
		       nmods * sizeof(*mods));
		t->modtab_count = nmods;
		t->skipped = n > fit ? n - fit : 0;
		t->nr_records = ramtrail_merge_zones(reg, cur, heap,
						     ramtrail_saved_records(t),
						     t->skipped, t) - t->skipped;
		ramtrail_flush(ramtrail_saved_modules(t), nmods * sizeof(*mods) +
			       t->nr_records *
			       sizeof(struct ramtrail_saved_record));
		ramtrail_saved_seal(t, reg, nmods);	/* after the records */
		ramtrail_flush(t, sizeof(*t));
		pr_info("saved boot %llu: %llu records of %u CPUs (%s%s, %llu refused while recording, %llu oldest did not fit)\n",
			t->boot_id, t->nr_records, t->nr_cpus,
			h->state == RAMTRAIL_STATE_FROZEN ? "frozen by " :
			h->state == RAMTRAIL_STATE_STOPPED ? "stopped" :
			"still recording: power cut or reset",
			h->state == RAMTRAIL_STATE_FROZEN ?
			ramtrail_reason_name(t->freeze_reason) : "",
			t->dropped, t->skipped);
		if (!(t->flags & RAMTRAIL_F_CLOCK_RELIABLE))
			pr_warn("boot %llu's clock was not synchronised across CPUs: the merged order across CPUs is approximate\n",
				h->boot_id);
	}
	kfree(cur);
	kfree(heap);
	ramtrail_set_state(RAMTRAIL_STATE_SAVED);
	return 0;
}

/**
 * ramtrail_reloc_init() - prepare to turn a saved trace's offsets into names
 * @rl: filled
 * @t: the saved trace
 *
 * Kernel text is relocated only when the recording kernel is this very
 * build (release and version string) and the KASLR delta is whole 2 MiB
 * units: after a kernel update the same offset is another function, and a
 * wrong name is worse than none.
 */
void ramtrail_reloc_init(struct ramtrail_reloc *rl,
			 const struct ramtrail_saved_trace *t)
{
	rl->t = t;
	rl->delta = (unsigned long)panic - t->anchor_addr;
	rl->same_build = !strncmp(t->release, init_utsname()->release,
				  sizeof(t->release)) &&
			 !strncmp(t->build, init_utsname()->version,
				  sizeof(t->build)) &&
			 t->anchor_addr && !(rl->delta % SZ_2M);
	rl->now = ramtrail_modtab_now(&rl->nr_now);
}

/* The loaded module that is the one @was names: same build, still here. */
static int ramtrail_module_now(const struct ramtrail_reloc *rl,
			       const struct ramtrail_module_entry *was)
{
	int i, found = -1;

	for (i = 0; i < rl->nr_now; i++) {
		const struct ramtrail_module_entry *e = &rl->now[i];

		if (strncmp(e->name, was->name, sizeof(e->name)) ||
		    e->size != was->size || e->core_size != was->core_size ||
		    (READ_ONCE(e->flags) & RAMTRAIL_MOD_GONE))
			continue;
		if (found >= 0)
			return -1;
		found = i;
	}
	return found;
}

/**
 * ramtrail_relocate() - an address of a saved trace, in this boot's terms
 * @rl: from ramtrail_reloc_init()
 * @off: offset from the trace's text base (0: none)
 *
 * Kernel text moves by the KASLR delta, module text to where the same
 * module (name, text and core size) lies now. An address that cannot be
 * relocated for sure is returned as its bare offset, which no symbol lookup
 * resolves: never a wrong name.
 *
 * Return: the address to print.
 */
unsigned long ramtrail_relocate(const struct ramtrail_reloc *rl, u32 off)
{
	const struct ramtrail_saved_trace *t = rl->t;
	u64 addr = t->text_base + off;
	int i, j;

	if (!off || !rl->same_build)
		return off;
	if (addr < MODULES_VADDR)
		return addr + rl->delta;
	i = ramtrail_module_find(ramtrail_saved_modules(t), t->modtab_count,
				 addr);
	if (i < 0)
		return off;
	j = ramtrail_module_now(rl, &ramtrail_saved_modules(t)[i]);
	if (j < 0)
		return off;
	return rl->now[j].base + (addr - ramtrail_saved_modules(t)[i].base);
}

/** ramtrail_list_saved() - say which pstore files hold which boot's trace */
void ramtrail_list_saved(void)
{
	const struct ramtrail_saved_trace *t;
	u64 pos = 0, id = 0;

	while ((t = ramtrail_saved_next(&ramtrail.reg, &pos))) {
		u64 parts = ramtrail_saved_parts(t);

		if (ramtrail_saved_all_erased(t))
			;
		else if (parts > 1)
			pr_info("ftrace-ramtrail-%llu..%llu: trace of boot %llu (%.*s), %llu records\n",
				id, id + parts - 1, t->boot_id,
				(int)sizeof(t->release), t->release,
				t->nr_records);
		else
			pr_info("ftrace-ramtrail-%llu: trace of boot %llu (%.*s), %llu records\n",
				id, t->boot_id, (int)sizeof(t->release),
				t->release, t->nr_records);
		id += parts;
	}
}
