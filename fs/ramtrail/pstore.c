// SPDX-License-Identifier: GPL-2.0
/*
 * The pstore backend "ramtrail": saved traces appear as ftrace-ramtrail-N
 * (struct pstore_ftrace_record, relocated to this boot's addresses so that
 * pstore prints symbols), oops/panic logs as dmesg-ramtrail-N. Removing a
 * file erases it from the region for good.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kmsg_dump.h>
#include <linux/module.h>
#include <linux/pstore.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>
#include "internal.h"

static int ramtrail_open(struct pstore_info *psi)
{
	struct ramtrail_context *cxt = psi->data;

	/* Where read() is: dmesg slots first, then the parts of saved traces. */
	memset(&cxt->cursor, 0, sizeof(cxt->cursor));
	return 0;
}

static ssize_t ramtrail_read_dmesg(struct pstore_record *record,
				   const struct ramtrail_dmesg_header *d,
				   u32 slot)
{
	record->buf = kmemdup(d + 1, d->len, GFP_KERNEL);
	if (!record->buf)
		return -ENOMEM;
	record->type = PSTORE_TYPE_DMESG;
	record->id = slot;
	record->size = d->len;
	record->compressed = d->compressed;
	record->reason = d->reason;
	record->part = d->part;
	record->count = d->count;
	record->time = ns_to_timespec64(d->time_ns);
	return d->len;
}

static ssize_t ramtrail_read_part(struct ramtrail_context *cxt,
				  struct pstore_record *record,
				  const struct ramtrail_saved_trace *t,
				  u32 part, u64 id)
{
	const struct ramtrail_saved_record *s = ramtrail_saved_records(t);
	u64 first = (u64)part * RAMTRAIL_SAVED_PART_RECORDS, i;
	u64 n = min_t(u64, t->nr_records - first, RAMTRAIL_SAVED_PART_RECORDS);
	struct pstore_ftrace_record *out;
	struct ramtrail_reloc rl;

	out = kmalloc_array(n, sizeof(*out), GFP_KERNEL | __GFP_NOWARN);
	if (!out)
		return -ENOMEM;
	ramtrail_reloc_init(cxt, &rl, t);
	for (i = 0; i < n; i++) {
		const struct ramtrail_saved_record *r = &s[first + i];

		out[i].ip = ramtrail_relocate(&rl, r->ip);
		out[i].parent_ip = ramtrail_relocate(&rl, r->parent);
		pstore_ftrace_write_timestamp(&out[i], ramtrail_saved_ns(r));
		pstore_ftrace_encode_cpu(&out[i], ramtrail_saved_cpu(r));
	}
	record->type = PSTORE_TYPE_FTRACE;
	record->id = id;
	record->buf = (char *)out;
	record->size = n * sizeof(*out);
	return record->size;
}

/*
 * The next record pstore has not seen. One that cannot be read now (out
 * of memory) is skipped with a warning rather than returned as an error:
 * pstore stops at the first error and would hide every later file.
 */
static ssize_t ramtrail_read(struct pstore_record *record)
{
	struct ramtrail_context *cxt = record->psi->data;
	struct ramtrail_cursor *c = &cxt->cursor;
	const struct ramtrail_dmesg_header *d;
	struct ramtrail_saved_trace *t;
	ssize_t ret;
	u64 pos;

	while (c->slot < cxt->hdr->dmesg_count) {
		u32 slot = c->slot++;

		d = ramtrail_dmesg_at(&cxt->reg, slot);
		if (!d)
			continue;
		ret = ramtrail_read_dmesg(record, d, slot);
		if (ret >= 0)
			return ret;
		pr_warn("dmesg-ramtrail-%u not shown: error %zd\n", slot, ret);
	}
	for (;;) {
		pos = c->pos;
		t = (void *)ramtrail_saved_next(&cxt->reg, &pos);
		if (!t)
			return 0;
		while (c->part < ramtrail_saved_parts(t)) {
			u32 part = c->part++;
			u64 id = c->id++;

			if (ramtrail_saved_part_erased(t, part))
				continue;
			ret = ramtrail_read_part(cxt, record, t, part, id);
			if (ret >= 0)
				return ret;
			pr_warn("ftrace-ramtrail-%llu not shown: error %zd\n",
				id, ret);
		}
		c->pos = pos;
		c->part = 0;
	}
}

/*
 * Erasing changes one aligned word at a time (the erased bits sit outside
 * the trace's checksum, a dmesg record's magic is cleared in one store),
 * so a reset during an erase never damages a neighbour.
 */
static void ramtrail_erase_trace_part(struct ramtrail_context *cxt, u64 id)
{
	struct ramtrail_saved_walk w = { 0 };
	struct ramtrail_saved_trace *t;

	while ((t = (void *)ramtrail_saved_walk(&cxt->reg, &w))) {
		if (id >= w.first && id < w.next) {
			WRITE_ONCE(t->erased,
				   ramtrail_saved_erase_part(t, id - w.first));
			ramtrail_flush(cxt, &t->erased, sizeof(t->erased));
			return;
		}
	}
}

static int ramtrail_erase(struct pstore_record *record)
{
	struct ramtrail_context *cxt = record->psi->data;

	if (record->type == PSTORE_TYPE_DMESG) {
		struct ramtrail_dmesg_header *d;

		if (record->id >= cxt->hdr->dmesg_count)
			return -EINVAL;
		d = ramtrail_dmesg(cxt, record->id);
		WRITE_ONCE(d->magic, 0);
		ramtrail_flush(cxt, d, sizeof(*d));
		return 0;
	}
	if (record->type == PSTORE_TYPE_FTRACE) {
		ramtrail_erase_trace_part(cxt, record->id);
		return 0;
	}
	return -EINVAL;
}

/*
 * A slot for a dump of this boot: a free one, else one this boot wrote
 * before (round robin). Dumps of earlier boots are never overwritten: in a
 * crash loop the first crash's log is the one that matters.
 */
static notrace int ramtrail_dmesg_slot(struct ramtrail_context *cxt)
{
	u32 i, n = cxt->hdr->dmesg_count;

	for (i = 0; i < n; i++)
		if (!ramtrail_dmesg_at(&cxt->reg, i))
			return i;
	for (i = 0; i < n; i++) {
		u32 slot = (cxt->dmesg_next + i) % n;

		if (ramtrail_dmesg(cxt, slot)->boot_id == cxt->hdr->boot_id) {
			cxt->dmesg_next = slot + 1;
			return slot;
		}
	}
	return -ENOSPC;
}

/* Called by pstore with its buf_lock held, maybe in NMI: no sleeping. */
static notrace int ramtrail_write(struct pstore_record *record)
{
	struct ramtrail_context *cxt = record->psi->data;
	struct ramtrail_dmesg_header *d;
	int slot;

	if (record->type != PSTORE_TYPE_DMESG)
		return -EINVAL;
	slot = ramtrail_dmesg_slot(cxt);
	if (slot < 0)
		return slot;
	d = ramtrail_dmesg(cxt, slot);
	WRITE_ONCE(d->magic, 0);
	ramtrail_flush(cxt, d, sizeof(d->magic));
	d->len = min_t(size_t, record->size,
		       cxt->hdr->dmesg_size - sizeof(*d));
	d->boot_id = cxt->hdr->boot_id;
	d->time_ns = timespec64_to_ns(&record->time);
	d->reason = record->reason;
	d->part = record->part;
	d->compressed = record->compressed;
	d->count = record->count;
	d->reserved = 0;
	memcpy(d + 1, record->buf, d->len);
	d->checksum = ramtrail_dmesg_checksum(d);
	ramtrail_flush(cxt, d, sizeof(*d) + d->len);	/* data before the magic */
	WRITE_ONCE(d->magic, RAMTRAIL_DMESG_MAGIC);
	ramtrail_flush(cxt, d, sizeof(d->magic));
	return 0;
}

/**
 * ramtrail_pstore_init() - register the pstore backend
 * @cxt: the context, formatted
 *
 * Return: 0 or a negative errno; nothing stays registered on error.
 */
int ramtrail_pstore_init(struct ramtrail_context *cxt)
{
	struct pstore_info *psi = &cxt->pstore;
	int err;

	psi->owner = THIS_MODULE;
	psi->name = "ramtrail";
	psi->data = cxt;
	psi->open = ramtrail_open;
	psi->read = ramtrail_read;
	psi->write = ramtrail_write;
	psi->erase = ramtrail_erase;
	psi->bufsize = cxt->hdr->dmesg_count ? cxt->hdr->dmesg_size -
		       sizeof(struct ramtrail_dmesg_header) : 0;
	psi->flags = psi->bufsize ? PSTORE_FLAGS_DMESG : 0;
	psi->buf = kzalloc(max_t(size_t, psi->bufsize, 1), GFP_KERNEL);
	if (!psi->buf)
		return -ENOMEM;
	psi->max_reason = cxt->params.max_reason;
	ramtrail_pstore_lock_init(psi);
	err = pstore_register(psi);
	if (err == -EBUSY || err == -EPERM)
		/* 6.12 says -EBUSY; 6.1 -EPERM: pstore.backend names another */
		pr_err("pstore is taken by another backend (see /sys/module/pstore/parameters/backend); boot with pstore.backend=ramtrail to reserve it for ramtrail\n");
	else if (err)
		pr_err("pstore refused the backend (error %d)\n", err);
	if (err) {
		kfree(psi->buf);
		psi->buf = NULL;
		return err;
	}
	return 0;
}

/**
 * ramtrail_pstore_exit() - unregister the pstore backend
 * @cxt: the context
 */
void ramtrail_pstore_exit(struct ramtrail_context *cxt)
{
	if (!cxt->pstore.buf)
		return;
	pstore_unregister(&cxt->pstore);
	kfree(cxt->pstore.buf);
	cxt->pstore.buf = NULL;
}
