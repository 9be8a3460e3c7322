// SPDX-License-Identifier: GPL-2.0
/*
 * At load: decode the zones the previous boot left, merge them by time and
 * write the result to the saved area, where it stays until erased through
 * pstore, across any number of later crashes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "internal.h"

/* First word of a ramoops zone (fs/pstore/ram_core.c PERSISTENT_RAM_SIG). */
#define RAMTRAIL_RAMOOPS_SIG	0x43474244

/* What the decode dropped, per CPU in the log and summed into @t. */
static void ramtrail_merge_report(const struct ramtrail_region *reg,
				  const struct ramtrail_zone_cursor *cur,
				  struct ramtrail_saved_trace *t)
{
	u32 cpu;

	ramtrail_saved_count(t, reg, cur);
	for (cpu = 0; cpu < le32_to_cpu(reg->hdr.nr_cpus); cpu++) {
		const struct ramtrail_zone_stats *s = &cur[cpu].stats;

		if (s->corrupt_blocks || s->torn || s->no_base)
			pr_debug("cpu%u: %llu records, dropped %llu corrupt blocks, %llu torn, %llu without time, %llu unfinished words\n",
				 cpu, s->records, s->corrupt_blocks, s->torn,
				 s->no_base, s->lost_words);
	}
	/* A writer leaves none: memory that changed (a bit error), or a forgery. */
	if (t->corrupt_blocks)
		pr_warn("boot %llu: %llu blocks of its zones are damaged (their seal or words do not match what a writer stores): their records are not saved\n",
			le64_to_cpu(reg->hdr.boot_id),
			le64_to_cpu(t->corrupt_blocks));
}

/*
 * Erased traces are garbage: clear their magic (one store each), so that
 * their space is free. A reset in between leaves them erased or gone.
 */
static void ramtrail_saved_collect(struct ramtrail_context *cxt)
{
	struct ramtrail_saved_trace *t;
	u64 pos = 0;

	while ((t = (void *)ramtrail_saved_next(&cxt->reg, &pos))) {
		if (!ramtrail_saved_all_erased(t))
			continue;
		WRITE_ONCE(t->magic, 0);
		ramtrail_flush(cxt, &t->magic, sizeof(t->magic));
	}
	ramtrail_saved_scan(&cxt->reg);
}

static void ramtrail_why_empty(struct ramtrail_context *cxt, int err)
{
	const struct ramtrail_region *reg = &cxt->reg;

	if (err == RAMTRAIL_E_MAGIC)
		pr_debug("no earlier trace in the region (formatting it)\n");
	else if (err == RAMTRAIL_E_VERSION)
		pr_warn("region holds format version %u, this module writes %u: reformatting; its saved traces and logs are not read\n",
			le32_to_cpu(reg->hdr.version), RAMTRAIL_VERSION);
	else if (!reg->base)
		pr_warn("region header unusable (%s%s%s): reformatting%s\n",
			ramtrail_strerror(err), reg->bad ? ": " : "",
			reg->bad ?: "",
			cxt->mem_type == RAMTRAIL_MEM_CACHED ?
			"; a reserve_mem= region can move between boots, memmap= is safer" :
			"");
	else
		pr_warn("boot %llu's header is damaged or half written (%s%s%s): its zones are not read; saved traces and dmesg records are kept\n",
			le64_to_cpu(reg->hdr.boot_id), ramtrail_strerror(err),
			reg->bad ? ": " : "", reg->bad ?: "");
}

/*
 * A header whose layout failed (a flipped bit fails its checksum): read
 * the areas where the parameters put them, so that the saved traces and
 * dmesg records written in that layout, each with a checksum of its own,
 * are kept. Return: true if @cxt->reg now holds that layout.
 */
static bool ramtrail_layout_lost(struct ramtrail_context *cxt, int err)
{
	const char *bad = cxt->reg.bad;
	struct ramtrail_region_header *h;
	bool ok = false;

	if (cxt->reg.base ||
	    (err != RAMTRAIL_E_CHECKSUM && err != RAMTRAIL_E_GEOMETRY))
		return false;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (h && !ramtrail_layout_params(cxt, h)) {
		ramtrail_region_open_layout(&cxt->reg, cxt->base, cxt->size, h);
		ok = cxt->reg.base;
	}
	kfree(h);
	if (ok)
		pr_warn("the region header's layout is damaged (%s%s%s): reading it as the parameters lay it out; saved traces and dmesg records found there are kept, the last boot's zones are not read\n",
			ramtrail_strerror(err), bad ? ": " : "", bad ?: "");
	return ok;
}

/*
 * Correct the saved traces' headers that their parity can, before the
 * save takes what looks free: the traces of headers corrected are said.
 */
static void ramtrail_heal_saved(struct ramtrail_context *cxt)
{
	u64 *boot = kcalloc(RAMTRAIL_MAX_SAVED, sizeof(*boot), GFP_KERNEL);
	u32 i;

	if (!boot)
		return;
	cxt->headers_corrected = ramtrail_saved_heal(&cxt->reg, boot);
	for (i = 0; i < min_t(u32, cxt->headers_corrected, RAMTRAIL_MAX_SAVED);
	     i++)
		pr_warn("boot %llu's saved trace: its header had changed in RAM, corrected by its parity\n",
			boot[i]);
	if (cxt->headers_corrected)
		ramtrail_flush(cxt, cxt->base +
			       le64_to_cpu(cxt->reg.hdr.saved_offset),
			       le64_to_cpu(cxt->reg.hdr.saved_size));
	kfree(boot);
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
				const struct ramtrail_region *reg,
				struct ramtrail_saved_writer *w)
{
	const struct ramtrail_region_header *h = &reg->hdr;
	const struct ramtrail_freeze_info *f = ramtrail_region_freeze(reg);

	t->boot_id = h->boot_id;
	t->nonce = h->nonce;
	t->text_base = h->text_base;
	t->anchor_addr = h->anchor_addr;
	t->nr_cpus = h->nr_cpus;
	t->state = h->state;
	t->freeze_reason = f ? f->reason : RAMTRAIL_FREEZE_NONE;
	t->freeze_cpu = f ? f->cpu : 0;
	t->flags = cpu_to_le32(ramtrail_region_flags(reg));
	memcpy(t->release, h->release, sizeof(t->release));
	memcpy(t->build, h->build, sizeof(t->build));
	t->erased = 0;
	t->magic = cpu_to_le32(RAMTRAIL_SAVED_MAGIC);
	ramtrail_saved_sign(t, &w->enc);
}

/* The seals the save found, for the status file. */
static void ramtrail_prev_seals(struct ramtrail_context *cxt,
				const struct ramtrail_region *reg,
				const struct ramtrail_zone_cursor *cur)
{
	const struct ramtrail_freeze_info *f = ramtrail_region_freeze(reg);
	struct ramtrail_zone_stats sum;
	u32 cpu;

	ramtrail_zone_stats_sum(&sum, cur, le32_to_cpu(reg->hdr.nr_cpus));
	cxt->prev.sealed_blocks = sum.sealed_blocks;
	for (cpu = 0; cpu < le32_to_cpu(reg->hdr.nr_cpus); cpu++)
		cxt->prev.sealed_zones += ramtrail_freeze_sealed(f, cpu);
}

/*
 * Merge the zones into a new saved entry in the first free span that
 * holds half their size (a generous guess at what their records take
 * there), else the largest. Its chunks are a ring over the span: when
 * not all fit, the oldest are the ones lost.
 */
static void ramtrail_save_zones(struct ramtrail_context *cxt,
				struct ramtrail_zone_cursor *cur,
				struct ramtrail_merge_slot *heap,
				struct ramtrail_saved_writer *w)
{
	const struct ramtrail_region *reg = &cxt->reg;
	const struct ramtrail_region_header *h = &reg->hdr;
	const struct ramtrail_module_entry *mods = ramtrail_region_modules(reg);
	u32 nmods = ramtrail_region_nr_modules(reg);
	u64 fixed = ramtrail_saved_fixed(nmods);
	u64 at, room = 0;
	struct ramtrail_saved_trace *t;
	u32 chunk = 0, state;

	ramtrail_saved_collect(cxt);
	at = ramtrail_saved_place(reg, fixed + ramtrail_zones_size(h) / 2,
				  &room);
	if (room > fixed)
		chunk = ramtrail_saved_chunk_for(room - fixed);
	t = (void *)(cxt->base + le64_to_cpu(h->saved_offset) + at);
	if (chunk)
		w->buf = kvmalloc(RAMTRAIL_SAVED_BUF(chunk), GFP_KERNEL);
	if (chunk && w->buf) {
		/* An earlier header's parity there must not heal this one. */
		memset(t, 0, RAMTRAIL_SAVED_HEAD_SLOT);
		ramtrail_saved_modules_copy(t, mods, nmods, h);
		ramtrail_saved_writer_start(w, ramtrail_saved_slots(t), chunk,
					    ramtrail_saved_slots_for(room - fixed,
								     chunk),
					    cxt->params.ecc,
					    le64_to_cpu(h->boot_id),
					    le64_to_cpu(h->nonce));
		ramtrail_saved_merge(reg, cur, heap, w);
	}
	kvfree(w->buf);
	if (chunk && !w->buf) {
		pr_warn("boot %llu's trace is lost: out of memory\n",
			le64_to_cpu(h->boot_id));
		cxt->prev.trace = RAMTRAIL_PREV_LOST;
		return;
	}
	if (!w->nr_chunks) {
		pr_warn("saved area full: boot %llu's trace is lost; erase old ones (rm /sys/fs/pstore/ftrace-ramtrail-*)\n",
			le64_to_cpu(h->boot_id));
		cxt->prev.trace = RAMTRAIL_PREV_LOST;
		return;
	}
	ramtrail_saved_set_chunks(t, w);
	ramtrail_merge_report(reg, cur, t);
	ramtrail_flush(cxt, ramtrail_saved_modules(t),
		       le64_to_cpu(t->size) - RAMTRAIL_SAVED_HEAD_SLOT);
	ramtrail_saved_seal(t, reg, w);	/* after the chunks */
	ramtrail_flush(cxt, t, RAMTRAIL_SAVED_HEAD_SLOT);
	cxt->prev.trace = RAMTRAIL_PREV_SAVED;
	cxt->prev.records = le64_to_cpu(t->nr_records);
	cxt->prev.skipped = le64_to_cpu(t->skipped);
	cxt->prev.dropped = le64_to_cpu(t->dropped);
	ramtrail_prev_seals(cxt, reg, cur);
	state = le32_to_cpu(h->state);
	pr_info("saved boot %llu: %llu records of %u CPUs in %llu KiB (%s%s, %llu refused while recording, %llu oldest did not fit)%s\n",
		le64_to_cpu(t->boot_id), le64_to_cpu(t->nr_records),
		le32_to_cpu(t->nr_cpus), le64_to_cpu(t->size) >> 10,
		state == RAMTRAIL_STATE_FROZEN ? "frozen by " :
		state == RAMTRAIL_STATE_STOPPED ? "stopped" :
		"still recording: power cut or reset",
		state == RAMTRAIL_STATE_FROZEN ?
		ramtrail_reason_name(le32_to_cpu(t->freeze_reason)) : "",
		le64_to_cpu(t->dropped), le64_to_cpu(t->skipped),
		le32_to_cpu(t->flags) & RAMTRAIL_F_CLOCK_RELIABLE ? "" :
		"; clock not synchronised across CPUs: their merged order is approximate");
}

/* Does any zone hold a record a saved trace keeps? */
static bool ramtrail_zones_recorded(const struct ramtrail_region *reg,
				    struct ramtrail_zone_cursor *cur)
{
	u32 cpu;

	for (cpu = 0; cpu < le32_to_cpu(reg->hdr.nr_cpus); cpu++) {
		ramtrail_zone_open(&cur[cpu], reg, cpu);
		cur[cpu].may_sleep = true;
		while (ramtrail_zone_next(&cur[cpu]))
			if (ramtrail_saved_keeps(&cur[cpu].rec))
				return true;
	}
	return false;
}

/* Note what the header said, for the status file. */
static void ramtrail_prev_note(struct ramtrail_context *cxt, int err)
{
	const struct ramtrail_region *reg = &cxt->reg;
	const struct ramtrail_freeze_info *f;
	struct ramtrail_prev *p = &cxt->prev;

	p->header = err;
	p->version = err == RAMTRAIL_E_MAGIC || err == RAMTRAIL_E_SHORT ?
		     0 : le32_to_cpu(reg->hdr.version);
	if (err != RAMTRAIL_OK && err != RAMTRAIL_E_STATE)
		return;
	f = ramtrail_region_freeze(reg);
	p->boot_id = le64_to_cpu(reg->hdr.boot_id);
	p->state = le32_to_cpu(reg->hdr.state);
	p->reason = f ? le32_to_cpu(f->reason) : RAMTRAIL_FREEZE_NONE;
}

/**
 * ramtrail_save_previous() - move the previous boot's trace to the saved area
 * @cxt: the context, mapped
 *
 * Fills @cxt->reg and @cxt->prev with what the region holds; with the
 * reset parameter it only looks. The new entry goes where no trace that
 * is not fully erased lies (those are never moved). A reset at any instant
 * of the save is safe: erased entries are cleared with one store each, the
 * new entry is sealed after its records, and an entry of the same boot and
 * format is never saved twice.
 *
 * Return: 0 (also when there was nothing to save), -EBUSY if the range
 * belongs to ramoops, or -ENOMEM.
 */
int ramtrail_save_previous(struct ramtrail_context *cxt)
{
	struct ramtrail_region *reg = &cxt->reg;
	const struct ramtrail_region_header *h = &reg->hdr;
	struct ramtrail_saved_writer *w;
	struct ramtrail_zone_cursor *cur;
	struct ramtrail_merge_slot *heap;
	int err = ramtrail_region_open(reg, cxt->base, cxt->size);

	ramtrail_prev_note(cxt, err);
	if (cxt->params.reset)
		return 0;
	if (err == RAMTRAIL_E_MAGIC &&
	    *(u32 *)cxt->base == RAMTRAIL_RAMOOPS_SIG) {
		/* ramoops does not always claim its range: don't take it. */
		pr_err("the range holds a ramoops buffer (signature DBGC): give ramtrail a range of its own, or load with reset=1 to take this one over\n");
		return -EBUSY;
	}
	if (err) {
		if (!ramtrail_layout_lost(cxt, err))
			ramtrail_why_empty(cxt, err);
		ramtrail_heal_saved(cxt);	/* if a layout holds */
		return 0;
	}
	ramtrail_heal_saved(cxt);
	if (h->phys_addr && le64_to_cpu(h->phys_addr) != cxt->phys)
		pr_warn("region was formatted at %#llx, now at %pa: it moved\n",
			le64_to_cpu(h->phys_addr), &cxt->phys);
	if (!ramtrail_zones_hold_trace(reg, err))
		return 0;
	if (ramtrail_saved_already(reg)) {
		pr_info("boot %llu's trace was saved before a reset\n",
			le64_to_cpu(h->boot_id));
		cxt->prev.trace = RAMTRAIL_PREV_SAVED_BEFORE;
		ramtrail_set_state(cxt, RAMTRAIL_STATE_SAVED);
		return 0;
	}
	/* The header is the one ramtrail_region_open() just checked. */
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	cur = kvcalloc(le32_to_cpu(h->nr_cpus), sizeof(*cur), GFP_KERNEL);
	heap = kcalloc(le32_to_cpu(h->nr_cpus), sizeof(*heap), GFP_KERNEL);
	if (w) {
		w->nr_cpus = le32_to_cpu(h->nr_cpus);
		w->task = kcalloc(le32_to_cpu(h->nr_cpus), sizeof(*w->task),
				  GFP_KERNEL);
		w->hash = kvcalloc(RAMTRAIL_SAVED_HASH, sizeof(*w->hash),
				   GFP_KERNEL);
	}
	if (!w || !cur || !heap || !w->task || !w->hash) {
		err = -ENOMEM;
	} else if (ramtrail_zones_recorded(reg, cur)) {
		ramtrail_save_zones(cxt, cur, heap, w);
	} else {
		pr_debug("boot %llu recorded nothing\n",
			 le64_to_cpu(h->boot_id));
		cxt->prev.trace = RAMTRAIL_PREV_EMPTY;
	}
	if (w) {
		kfree(w->task);
		kvfree(w->hash);
	}
	kfree(w);
	kvfree(cur);
	kfree(heap);
	if (err)
		return err;
	ramtrail_set_state(cxt, RAMTRAIL_STATE_SAVED);
	return 0;
}

/**
 * ramtrail_check_saved() - correct the saved traces' chunks by their parity
 * @cxt: the context, its saved area scanned
 *
 * Each trace's chunks are checked once: bit errors the parity corrects are
 * written back, said and counted in the status file (@cxt->corrected);
 * the records of a chunk left damaged are not shown, so they are said and
 * counted too (@cxt->damaged).
 */
void ramtrail_check_saved(struct ramtrail_context *cxt)
{
	struct ramtrail_saved_walk w = { 0 };
	struct ramtrail_saved_check c;
	struct ramtrail_saved_trace *t;
	u8 *buf;

	/* Without it, the chunks are only counted. */
	buf = kvmalloc(RAMTRAIL_SAVED_CHUNK_MAX, GFP_KERNEL);
	while ((t = (void *)ramtrail_saved_walk(&cxt->reg, &w))) {
		if (ramtrail_saved_all_erased(t))
			continue;
		ramtrail_saved_check(t, buf, &c);
		cxt->corrected[w.pos - 1] = c.corrected;
		cxt->damaged[w.pos - 1] = c.damaged;
		if (c.corrected) {
			ramtrail_flush(cxt, t, le64_to_cpu(t->size));
			pr_warn("boot %llu's saved trace: %llu bytes in %llu chunks had changed in RAM, corrected by their parity\n",
				le64_to_cpu(t->boot_id), c.bytes, c.corrected);
		}
		if (c.damaged)
			pr_warn("boot %llu's saved trace (ftrace-ramtrail-%llu..%llu): %llu damaged chunks, up to %llu records not shown\n",
				le64_to_cpu(t->boot_id), w.first, w.next - 1,
				c.damaged,
				c.records);
	}
	kvfree(buf);
}

/**
 * ramtrail_list_saved() - say which pstore files hold which boot's trace
 * @cxt: the context
 *
 * And the entries that were refused whole, counted in the status file.
 */
void ramtrail_list_saved(struct ramtrail_context *cxt)
{
	struct ramtrail_saved_walk w = { 0 };
	const struct ramtrail_saved_trace *t;

	if (cxt->reg.saved_refused)
		pr_warn("%u saved traces not shown: their checksum holds, but their sizes are ones no writer makes\n",
			cxt->reg.saved_refused);
	while ((t = ramtrail_saved_walk(&cxt->reg, &w))) {
		if (ramtrail_saved_all_erased(t))
			continue;
		if (ramtrail_saved_first_shown(t))
			pr_warn("boot %llu's saved trace: its oldest %llu parts are not shown through pstore, only the newest %llu (a boot's files are numbered within %llu); ramtrail decode of the region reads them\n",
				le64_to_cpu(t->boot_id),
				ramtrail_saved_first_shown(t),
				RAMTRAIL_IDS_PER_BOOT, RAMTRAIL_IDS_PER_BOOT);
		if (w.next - w.first > 1)
			pr_debug("ftrace-ramtrail-%llu..%llu: trace of boot %llu (%.*s), %llu records\n",
				 w.first, w.next - 1, le64_to_cpu(t->boot_id),
				 (int)sizeof(t->release), t->release,
				 le64_to_cpu(t->nr_records));
		else
			pr_debug("ftrace-ramtrail-%llu: trace of boot %llu (%.*s), %llu records\n",
				 w.first, le64_to_cpu(t->boot_id),
				 (int)sizeof(t->release), t->release,
				 le64_to_cpu(t->nr_records));
	}
}
