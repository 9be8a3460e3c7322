// SPDX-License-Identifier: GPL-2.0
/*
 * The pstore backend "ramtrail": saved traces appear as ftrace-ramtrail-N
 * (struct pstore_ftrace_record, relocated to this boot's addresses so that
 * pstore prints symbols), oops/panic logs as dmesg-ramtrail-N. Removing a
 * file erases it from the region for good.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kmsg_dump.h>
#include <linux/module.h>
#include <linux/pstore.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/version.h>
#include "internal.h"

/* Where read() is: dmesg slots first, then the parts of saved traces. */
static struct {
	u32 slot;
	u64 pos;	/* saved trace being read, for ramtrail_saved_next() */
	u32 part;	/* next part of it */
	u64 id;		/* id of that part */
} ramtrail_cursor;

static struct ramtrail_dmesg_header *ramtrail_dmesg(u32 slot)
{
	const struct ramtrail_region_header *h = ramtrail.hdr;

	return (void *)(ramtrail.base + h->dmesg_offset + slot * h->dmesg_size);
}

static int ramtrail_open(struct pstore_info *psi)
{
	memset(&ramtrail_cursor, 0, sizeof(ramtrail_cursor));
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

static ssize_t ramtrail_read_part(struct pstore_record *record,
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
	ramtrail_reloc_init(&rl, t);
	for (i = 0; i < n; i++) {
		const struct ramtrail_saved_record *r = &s[first + i];

		out[i].ip = ramtrail_relocate(&rl, r->ip);
		out[i].parent_ip = ramtrail_relocate(&rl, r->parent);
		pstore_ftrace_write_timestamp(&out[i], r->ts_cpu >> 8);
		pstore_ftrace_encode_cpu(&out[i], r->ts_cpu & 0xff);
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
	const struct ramtrail_dmesg_header *d;
	struct ramtrail_saved_trace *t;
	ssize_t ret;
	u64 pos;

	while (ramtrail_cursor.slot < ramtrail.hdr->dmesg_count) {
		u32 slot = ramtrail_cursor.slot++;

		d = ramtrail_dmesg_at(&ramtrail.reg, slot);
		if (!d)
			continue;
		ret = ramtrail_read_dmesg(record, d, slot);
		if (ret >= 0)
			return ret;
		pr_warn("dmesg-ramtrail-%u not shown: error %zd\n", slot, ret);
	}
	for (;;) {
		pos = ramtrail_cursor.pos;
		t = (void *)ramtrail_saved_next(&ramtrail.reg, &pos);
		if (!t)
			return 0;
		while (ramtrail_cursor.part < ramtrail_saved_parts(t)) {
			u32 part = ramtrail_cursor.part++;
			u64 id = ramtrail_cursor.id++;

			if (part < 64 ? READ_ONCE(t->erased) >> part & 1 :
			    READ_ONCE(t->erased) == ~0ULL)
				continue;
			ret = ramtrail_read_part(record, t, part, id);
			if (ret >= 0)
				return ret;
			pr_warn("ftrace-ramtrail-%llu not shown: error %zd\n",
				id, ret);
		}
		ramtrail_cursor.pos = pos;
		ramtrail_cursor.part = 0;
	}
}

/*
 * Erasing changes one aligned word at a time (the erased bits sit outside
 * the trace's checksum, a dmesg record's magic is cleared in one store),
 * so a reset during an erase never damages a neighbour.
 */
static void ramtrail_erase_trace_part(u64 id)
{
	struct ramtrail_saved_trace *t;
	u64 pos = 0, first = 0;

	while ((t = (void *)ramtrail_saved_next(&ramtrail.reg, &pos))) {
		u64 parts = ramtrail_saved_parts(t);

		if (id >= first && id < first + parts) {
			u64 part = id - first;

			WRITE_ONCE(t->erased, part < 64 ?
				   READ_ONCE(t->erased) | 1ULL << part : ~0ULL);
			ramtrail_flush(&t->erased, sizeof(t->erased));
			return;
		}
		first += parts;
	}
}

static int ramtrail_erase(struct pstore_record *record)
{
	if (record->type == PSTORE_TYPE_DMESG) {
		struct ramtrail_dmesg_header *d;

		if (record->id >= ramtrail.hdr->dmesg_count)
			return -EINVAL;
		d = ramtrail_dmesg(record->id);
		WRITE_ONCE(d->magic, 0);
		ramtrail_flush(d, sizeof(*d));
		return 0;
	}
	if (record->type == PSTORE_TYPE_FTRACE) {
		ramtrail_erase_trace_part(record->id);
		return 0;
	}
	return -EINVAL;
}

/*
 * A slot for a dump of this boot: a free one, else one this boot wrote
 * before (round robin). Dumps of earlier boots are never overwritten: in a
 * crash loop the first crash's log is the one that matters.
 */
static int ramtrail_dmesg_slot(void)
{
	static u32 next;
	u32 i, n = ramtrail.hdr->dmesg_count;

	for (i = 0; i < n; i++)
		if (!ramtrail_dmesg_at(&ramtrail.reg, i))
			return i;
	for (i = 0; i < n; i++) {
		u32 slot = (next + i) % n;

		if (ramtrail_dmesg(slot)->boot_id == ramtrail.hdr->boot_id) {
			next = slot + 1;
			return slot;
		}
	}
	return -ENOSPC;
}

/* Called by pstore with its buf_lock held, maybe in NMI: no sleeping. */
static notrace int ramtrail_write(struct pstore_record *record)
{
	struct ramtrail_dmesg_header *d;
	int slot;

	if (record->type != PSTORE_TYPE_DMESG)
		return -EINVAL;
	slot = ramtrail_dmesg_slot();
	if (slot < 0)
		return slot;
	d = ramtrail_dmesg(slot);
	WRITE_ONCE(d->magic, 0);
	ramtrail_flush(d, sizeof(d->magic));
	d->len = min_t(size_t, record->size,
		       ramtrail.hdr->dmesg_size - sizeof(*d));
	d->boot_id = ramtrail.hdr->boot_id;
	d->time_ns = timespec64_to_ns(&record->time);
	d->reason = record->reason;
	d->part = record->part;
	d->compressed = record->compressed;
	d->count = record->count;
	d->reserved = 0;
	memcpy(d + 1, record->buf, d->len);
	d->checksum = ramtrail_dmesg_checksum(d);
	ramtrail_flush(d, sizeof(*d) + d->len);	/* data before the magic */
	WRITE_ONCE(d->magic, RAMTRAIL_DMESG_MAGIC);
	ramtrail_flush(d, sizeof(d->magic));
	return 0;
}

static struct pstore_info ramtrail_psi = {
	.owner	= THIS_MODULE,
	.name	= "ramtrail",
	.flags	= PSTORE_FLAGS_DMESG,
	.open	= ramtrail_open,
	.read	= ramtrail_read,
	.write	= ramtrail_write,
	.erase	= ramtrail_erase,
};

/* Name of the backend pstore uses, for the error message. */
static void ramtrail_pstore_owner(char *name, size_t len)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	strscpy(name, "another backend", len);
	f = filp_open("/sys/module/pstore/parameters/backend", O_RDONLY, 0);
	if (IS_ERR(f))
		return;
	n = kernel_read(f, name, len - 1, &pos);
	filp_close(f, NULL);
	name[n > 0 ? n : 0] = 0;
	strim(name);
	if (!*name)
		strscpy(name, "another backend", len);
}

/**
 * ramtrail_pstore_init() - register the pstore backend
 * @max_reason: highest kmsg dump reason to store
 *
 * Return: 0 or a negative errno; nothing stays registered on error.
 */
int ramtrail_pstore_init(int max_reason)
{
	char owner[64];
	int err;

	ramtrail_psi.bufsize = ramtrail.hdr->dmesg_count ?
			       ramtrail.hdr->dmesg_size -
			       sizeof(struct ramtrail_dmesg_header) : 0;
	if (!ramtrail_psi.bufsize)
		ramtrail_psi.flags = 0;
	ramtrail_psi.buf = kzalloc(max_t(size_t, ramtrail_psi.bufsize, 1),
				   GFP_KERNEL);
	if (!ramtrail_psi.buf)
		return -ENOMEM;
	ramtrail_psi.max_reason = max_reason;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	raw_spin_lock_init(&ramtrail_psi.buf_lock);
#else
	spin_lock_init(&ramtrail_psi.buf_lock);
#endif
	err = pstore_register(&ramtrail_psi);
	if (err == -EBUSY || err == -EPERM) {
		/* 6.12 says -EBUSY; 6.1 -EPERM: pstore.backend names another */
		ramtrail_pstore_owner(owner, sizeof(owner));
		pr_err("pstore is taken by %s; boot with pstore.backend=ramtrail to reserve it for ramtrail\n",
		       owner);
	} else if (err) {
		pr_err("pstore refused the backend (error %d)\n", err);
	}
	if (err) {
		kfree(ramtrail_psi.buf);
		ramtrail_psi.buf = NULL;
		return err;
	}
	return 0;
}

/** ramtrail_pstore_exit() - unregister the pstore backend */
void ramtrail_pstore_exit(void)
{
	if (!ramtrail_psi.buf)
		return;
	pstore_unregister(&ramtrail_psi);
	kfree(ramtrail_psi.buf);
	ramtrail_psi.buf = NULL;
}
