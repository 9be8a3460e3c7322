// SPDX-License-Identifier: GPL-2.0
/*
 * The pstore backend "ramtrail": saved traces appear as ftrace text, with
 * tasks, flags and events, in console-ramtrail-(N * 100) and up (each
 * file begins with the trace's header, ramtrail_text_header()), and as
 * ftrace-ramtrail-N (struct pstore_ftrace_record: function records only,
 * each function as its offset in the trace, not an address: pstore prints
 * the value beside the name, and an address of this boot would give its
 * layout to whoever reads the file's copy in the journal); oops and panic
 * logs as dmesg-ramtrail-N. Removing a file erases
 * it from the region for good: a trace's file of either kind erases its
 * part.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/kmsg_dump.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pstore.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/vmalloc.h>
#include "internal.h"
#include "text.h"

/*
 * Bytes of text per console file. 6.1's pstore frees record->buf with
 * kfree(), 6.12's with kvfree(): a text file comes from kmalloc(), which
 * gives up to 4 MiB (KMALLOC_MAX_SIZE); a part's text takes several files.
 */
#define RAMTRAIL_TEXT_FILE_SIZE	SZ_2M
/* Tasks whose names other tasks' events can show: as many as the tools. */
#define RAMTRAIL_TEXT_COMMS	32768
/* Bytes of text a record is counted for, when a part's size is guessed. */
#define RAMTRAIL_TEXT_GUESS	128
/*
 * Text files of one part at most: a file but the last holds at least this
 * many lines of RAMTRAIL_TEXT_LINE_MAX (and its header, shorter than a
 * line), and a part that many records.
 */
#define RAMTRAIL_PART_TEXT_FILES					\
	DIV_ROUND_UP(RAMTRAIL_SAVED_PART_CHUNKS * RAMTRAIL_SAVED_CHUNK_ENTRIES, \
		     RAMTRAIL_TEXT_FILE_SIZE / RAMTRAIL_TEXT_LINE_MAX - 2)
/*
 * The text files of part ftrace-ramtrail-N are console-ramtrail-(N * 100)
 * and up: a name that no other part's text, nor what this kernel makes of
 * the names in the text (its modules), can change.
 */
#define RAMTRAIL_PART_TEXT_IDS	100
/* Names a mount keeps, by offset: a trace's functions are a few thousand. */
#define RAMTRAIL_NAME_CACHE_BITS	12

/**
 * struct ramtrail_name_slot - a function's name, as this kernel printed it
 * @off: the function's offset in the trace
 * @len: bytes of @name before its NUL; 0: the slot is empty
 * @name: what "%ps" gave, whole
 */
struct ramtrail_name_slot {
	u32 off;
	u32 len;
	char name[88];
};

/**
 * struct ramtrail_part_file - a file of a part, made, not yet given to pstore
 * @buf: its contents (pstore frees them: see ramtrail_ftrace_alloc()),
 *	NULL once given
 * @size: bytes of @buf
 */
struct ramtrail_part_file {
	char *buf;
	size_t size;
};

/**
 * struct ramtrail_pstore_walk - the saved trace pstore is reading
 * @t: the trace
 * @ftrace: at the next part whose ftrace file is due
 * @text: where the next text file starts
 * @rl: how the trace's offsets map to this boot
 * @tx: names of functions (kernel's, through @rl) and of tasks
 * @comms: memory of @tx's pid -> comm table
 * @ftrace_file: the part's ftrace file, while not given to pstore
 * @text_file: the part's text files
 * @nr_text: text files made of the part
 * @next_text: the next of them to give
 * @first_text_id: pstore id of the part's first text file
 *	(ramtrail_text_id())
 * @low: a part was left out for want of memory: so are the later ones,
 *	until the next mount
 * @shown_from: first part shown of each trace, by its index in the
 *	region's saved[] (ramtrail_choose_parts())
 * @all: the saved traces, by the same index (NULL: not valid)
 * @first_id: the pstore id of each one's first part
 * @index: the index of @t there
 * @names: the names of @t's functions that @tx printed, by their offset
 * @buf: the text file being written
 */
struct ramtrail_pstore_walk {
	const struct ramtrail_saved_trace *t;
	struct ramtrail_saved_cursor ftrace;
	struct ramtrail_saved_cursor text;
	struct ramtrail_reloc rl;
	struct ramtrail_text tx;
	struct ramtrail_comm comms[RAMTRAIL_TEXT_COMMS];
	struct ramtrail_part_file ftrace_file;
	struct ramtrail_part_file text_file[RAMTRAIL_PART_TEXT_FILES];
	u32 nr_text;
	u32 next_text;
	u64 first_text_id;
	bool low;
	u32 index;
	u64 shown_from[RAMTRAIL_MAX_SAVED];
	const struct ramtrail_saved_trace *all[RAMTRAIL_MAX_SAVED];
	u64 first_id[RAMTRAIL_MAX_SAVED];
	struct ramtrail_name_slot names[1 << RAMTRAIL_NAME_CACHE_BITS];
	char buf[RAMTRAIL_TEXT_FILE_SIZE];
};

/* Free what was made of a part and not given to pstore. */
static void ramtrail_part_free(struct ramtrail_pstore_walk *w)
{
	u32 i;

	kvfree(w->ftrace_file.buf);
	w->ftrace_file.buf = NULL;
	for (i = w->next_text; i < w->nr_text; i++)
		kfree(w->text_file[i].buf);
	w->nr_text = 0;
	w->next_text = 0;
}

/*
 * The dmesg record in @slot, from a copy of the slot checked whole: an
 * oops of this boot may rewrite the slot while it is read, and a length
 * read twice from it could differ (pstore reads @record->size bytes of
 * @record->buf). Return: its size, -ENODATA if it is no longer valid.
 */
static ssize_t ramtrail_read_dmesg(struct pstore_record *record,
				   struct ramtrail_context *cxt, u32 slot)
{
	const struct ramtrail_region_header *h = &cxt->reg.hdr;
	struct ramtrail_dmesg_header *d =
		kvmalloc(le64_to_cpu(h->dmesg_size), GFP_KERNEL);
	ssize_t ret = -ENOMEM;

	if (!d)
		return ret;
	memcpy(d, ramtrail_dmesg(cxt, slot), le64_to_cpu(h->dmesg_size));
	ret = -ENODATA;
	if (!ramtrail_dmesg_valid(h, d))
		goto out;
	ret = -ENOMEM;
	record->buf = kmemdup(d + 1, le32_to_cpu(d->len), GFP_KERNEL);
	if (!record->buf)
		goto out;
	record->type = PSTORE_TYPE_DMESG;
	record->id = ramtrail_boot_ids(le64_to_cpu(d->boot_id)) + slot;
	record->size = le32_to_cpu(d->len);
	record->compressed = le32_to_cpu(d->compressed);
	record->reason = le32_to_cpu(d->reason);
	record->part = le32_to_cpu(d->part);
	record->count = le32_to_cpu(d->count);
	record->time = ns_to_timespec64(le64_to_cpu(d->time_ns));
	ret = le32_to_cpu(d->len);
out:
	kvfree(d);
	return ret;
}

/*
 * A function of a saved trace, named by this kernel. A part's records name
 * the same few thousand functions over and over: each name is looked up
 * once a trace (in @w->names), unless it is too long to keep.
 */
static size_t ramtrail_text_name(void *arg, char *buf, size_t len, u32 off,
				 u64 ts, enum ramtrail_text_func which)
{
	struct ramtrail_pstore_walk *w = arg;
	struct ramtrail_name_slot *s =
		&w->names[hash_32(off, RAMTRAIL_NAME_CACHE_BITS)];
	bool timed;
	size_t n;

	if (s->len && s->off == off)
		return strscpy(buf, s->name, len) < 0 ? len - 1 : s->len;
	n = ramtrail_reloc_name(&w->rl, buf, len, off, ts, &timed);
	/*
	 * A name that filled @buf or would fill the slot may be cut, one that
	 * depends on the time may differ next time: not kept.
	 */
	if (!timed && n + 1 < len && n < sizeof(s->name) - 1) {
		memcpy(s->name, buf, n + 1);
		s->len = n;
		s->off = off;
	}
	return n;
}

/*
 * Start on @t. An event names tasks (sched_switch's next) that may run
 * only later: the names of all its tasks are taken first, as the tools do.
 */
static void ramtrail_walk_start(struct ramtrail_context *cxt,
				struct ramtrail_pstore_walk *w,
				const struct ramtrail_saved_trace *t)
{
	const struct ramtrail_record *r;

	w->t = t;
	ramtrail_comms_init(&w->tx.comms, w->comms, RAMTRAIL_TEXT_COMMS);
	ramtrail_saved_open(&w->text, t);
	while ((r = ramtrail_saved_read(&w->text, w->text.nr))) {
		ramtrail_comms_add_record(&w->tx.comms, r);
		cond_resched();
	}
	ramtrail_saved_open(&w->text, t);
	ramtrail_saved_open(&w->ftrace, t);
	ramtrail_reloc_init(cxt, &w->rl, t);
	/* Another trace's offsets name other functions. */
	memset(w->names, 0, sizeof(w->names));
	w->tx.name = ramtrail_text_name;
	w->tx.arg = w;
}

/*
 * An ftrace file of @n records: kmalloc() gives a power of two of pages
 * (4 MiB for 2.03 MiB of records); where pstore frees it with kvfree(), it
 * takes the pages it needs, from vmalloc().
 */
static struct pstore_ftrace_record *ramtrail_ftrace_alloc(u64 n)
{
	size_t size = n * sizeof(struct pstore_ftrace_record);

	if (RAMTRAIL_PSTORE_KVFREE && size > PAGE_SIZE)
		return __vmalloc(size, GFP_KERNEL | __GFP_NOWARN);
	return kmalloc(size, GFP_KERNEL | __GFP_NOWARN);
}

/* The pages ramtrail_ftrace_alloc() takes for @n records. */
static unsigned long ramtrail_ftrace_pages(u64 n)
{
	size_t size = n * sizeof(struct pstore_ftrace_record);

	if (RAMTRAIL_PSTORE_KVFREE && size > PAGE_SIZE)
		return PAGE_ALIGN(size) >> PAGE_SHIFT;
	return 1UL << get_order(size);
}

/*
 * The function records of a part, up to @end (@room at most), as pstore's
 * ftrace file, into @w->ftrace_file: a function and its caller as their
 * offsets from the trace's text base, which no symbol lookup resolves
 * (pstore prints "0x..." for the name). Return: 0, or -ENOMEM.
 */
static int ramtrail_make_ftrace(struct ramtrail_pstore_walk *w, u64 end,
				u64 room)
{
	struct pstore_ftrace_record *out = room ? ramtrail_ftrace_alloc(room) : NULL;
	const struct ramtrail_record *r;
	u64 n = 0;

	if (!out) {
		w->ftrace_file.buf = NULL;
		w->ftrace_file.size = 0;
		ramtrail_saved_skip(&w->ftrace, end);
		return room ? -ENOMEM : 0;
	}
	while ((r = ramtrail_saved_read(&w->ftrace, end))) {
		if (r->type == RAMTRAIL_W_EVENT || n >= room)
			continue;
		out[n].ip = r->ip;
		out[n].parent_ip = r->parent;
		pstore_ftrace_write_timestamp(&out[n], r->ts);
		pstore_ftrace_encode_cpu(&out[n], r->cpu);
		n++;
	}
	if (!n) {
		kvfree(out);
		out = NULL;
	}
	w->ftrace_file.buf = (char *)out;
	w->ftrace_file.size = n * sizeof(*out);
	return 0;
}

/*
 * The next text file of a part, up to @end, into @w->buf after the @len
 * bytes of its header already there: whole lines, at most
 * RAMTRAIL_TEXT_FILE_SIZE bytes. Return: its length; 0 if no record was
 * left, unless it is the part's @first file (made for its header alone).
 */
static size_t ramtrail_make_text(struct ramtrail_pstore_walk *w, u64 end,
				 size_t len, bool first)
{
	const struct ramtrail_record *r;
	bool any = first;

	while (len + RAMTRAIL_TEXT_LINE_MAX <= sizeof(w->buf) &&
	       (r = ramtrail_saved_read(&w->text, end))) {
		len += ramtrail_text_record(w->buf + len, sizeof(w->buf) - len,
					    r, r->ts, &w->tx);
		any = true;
		cond_resched();
	}
	return any ? len : 0;
}

/*
 * pstore keeps the files it is given in memory until they are removed or
 * it is unmounted: a part is made only when RAM keeps a sixteenth of
 * itself available besides a guess at its size, so that a mount leaves
 * the machine room. The guess: the allocation of an ftrace file of
 * @room records and RAMTRAIL_TEXT_GUESS bytes of text for each of the
 * part's @records. Return: the guess, in pages.
 */
static unsigned long ramtrail_part_pages(u64 room, u64 records)
{
	unsigned long pages = records * RAMTRAIL_TEXT_GUESS >> PAGE_SHIFT;

	return room ? pages + ramtrail_ftrace_pages(room) : pages;
}

/* Pages that may be taken before less than a sixteenth of RAM is left. */
static long ramtrail_pages_spare(void)
{
	return si_mem_available() - (long)(totalram_pages() / 16);
}

/*
 * The records the ftrace file of part @part of @t is sized for: what its
 * chunks' headers count (ramtrail_saved_part_records()), at most the
 * trace's count. A trace this module saved holds no more; records past
 * them (a forged entry) are left out of the ftrace file, not of the text.
 */
static u64 ramtrail_part_room(const struct ramtrail_saved_trace *t, u64 part)
{
	return min(ramtrail_saved_part_records(t, part),
		   le64_to_cpu(t->nr_records));
}

/* The guess of ramtrail_part_pages() for part @part of @t. */
static unsigned long ramtrail_part_guess(const struct ramtrail_saved_trace *t,
					 u64 part)
{
	return ramtrail_part_pages(ramtrail_part_room(t, part),
				   ramtrail_saved_part_records(t, part));
}

/*
 * Which parts a mount shows when RAM cannot hold them all: the newest that
 * fit (ramtrail_part_guess()), counted back from the last part of the
 * newest trace, with none left out between them, so that the records of
 * the last crash come first. @w->shown_from[i] is the first part shown of
 * the saved trace at @cxt->reg.saved[i]; the parts before it are left out
 * whole, for a later mount.
 */
static void ramtrail_choose_parts(struct ramtrail_context *cxt,
				  struct ramtrail_pstore_walk *w)
{
	const struct ramtrail_saved_trace *t, **all = w->all;
	struct ramtrail_saved_walk sw = { 0 };
	u64 part, from, hidden = 0, newest = 0;
	long spare = ramtrail_pages_spare();
	unsigned long need;
	u32 i;

	/* The walk's traces, at their index in @cxt->reg.saved. */
	while ((t = ramtrail_saved_walk(&cxt->reg, &sw))) {
		all[sw.pos - 1] = t;
		w->first_id[sw.pos - 1] = sw.first;
	}
	for (i = cxt->reg.nr_saved; i-- > 0;) {
		if (!all[i])
			continue;
		from = ramtrail_saved_parts(all[i]);
		for (part = from; part-- > ramtrail_saved_first_shown(all[i]);) {
			if (ramtrail_saved_part_erased(all[i], part)) {
				from = hidden ? from : part;
				continue;
			}
			need = ramtrail_part_guess(all[i], part);
			if (!hidden && (long)need < spare) {
				spare -= need;
				from = part;
			} else if (!hidden++) {
				newest = ramtrail_saved_part_id(all[i],
								w->first_id[i],
								part);
			}
		}
		w->shown_from[i] = from;
	}
	if (hidden)
		pr_warn("%llu parts of saved traces are not shown, ftrace-ramtrail-%llu and older: making them would leave less than a sixteenth of RAM available; the newest parts come first, the others stay in the region for a later mount (remove the files shown first) or ramtrail decode\n",
			hidden, newest);
}

/*
 * The pstore id of the first text file of ftrace-ramtrail-@id, or U64_MAX
 * if its files cannot be numbered (only a forged boot_id numbers a part
 * that far).
 */
static u64 ramtrail_text_id(u64 id)
{
	BUILD_BUG_ON(RAMTRAIL_PART_TEXT_FILES > RAMTRAIL_PART_TEXT_IDS);
	if (id >= U64_MAX / RAMTRAIL_PART_TEXT_IDS)
		return U64_MAX;
	return id * RAMTRAIL_PART_TEXT_IDS;
}

/*
 * Make every file of part @c->part of @t before pstore is given the first:
 * a part is shown whole or not at all, so that no rm of one of its files
 * erases records that were never shown. A part erased or left out is
 * passed unread: no other part's file names depend on it.
 */
static void ramtrail_make_part(struct ramtrail_context *cxt,
			       const struct ramtrail_saved_trace *t)
{
	struct ramtrail_cursor *c = &cxt->cursor;
	struct ramtrail_pstore_walk *w = c->walk;
	u64 end = ramtrail_saved_part_end(t, c->part);
	struct ramtrail_part_file *f;
	size_t len;
	int err;

	/* The last part's files were all given: its slots are free. */
	w->nr_text = 0;
	w->next_text = 0;
	w->first_text_id = ramtrail_text_id(c->id);
	if (ramtrail_saved_part_erased(t, c->part) ||
	    c->part < w->shown_from[w->index]) {
		ramtrail_saved_skip(&w->ftrace, end);
		ramtrail_saved_skip(&w->text, end);
		return;
	}
	if ((long)ramtrail_part_guess(t, c->part) >= ramtrail_pages_spare()) {
		pr_warn("ftrace-ramtrail-%llu and its console files are not shown, nor are the later parts: making them would leave less than a sixteenth of RAM available; they stay in the region, for a later mount (remove the files shown first) or ramtrail decode\n",
			c->id);
		w->low = true;
		return;
	}
	err = ramtrail_make_ftrace(w, end, ramtrail_part_room(t, c->part));
	if (!err && w->first_text_id == U64_MAX)
		err = -ENOSPC;
	/*
	 * Each text file begins with the trace's header: the part's first
	 * with all of it, the others with its "# trace:" line.
	 */
	while (!err) {
		len = ramtrail_text_header(w->buf, RAMTRAIL_TEXT_LINE_MAX, t,
					   c->part, ramtrail_saved_parts(t),
					   w->nr_text);
		len = ramtrail_make_text(w, end, len, !w->nr_text);
		if (!len)
			break;
		if (w->nr_text == ARRAY_SIZE(w->text_file)) {
			err = -ENOSPC;
			break;
		}
		f = &w->text_file[w->nr_text];
		f->buf = kmemdup(w->buf, len, GFP_KERNEL | __GFP_NOWARN);
		f->size = len;
		if (!f->buf)
			err = -ENOMEM;
		else
			w->nr_text++;
	}
	if (!err)
		return;
	ramtrail_saved_skip(&w->text, end);
	ramtrail_part_free(w);
	if (err == -ENOSPC)
		pr_warn("ftrace-ramtrail-%llu and its console files are not shown: its text takes more files than a part has names for; ramtrail decode reads the region\n",
			c->id);
	else
		pr_warn("ftrace-ramtrail-%llu and its console files are not shown: out of memory; they stay in the region, for a later mount or ramtrail decode\n",
			c->id);
}

/* The next file made of the part: its ftrace file, then its text. */
static ssize_t ramtrail_part_next(struct ramtrail_cursor *c,
				  struct pstore_record *record)
{
	struct ramtrail_pstore_walk *w = c->walk;
	struct ramtrail_part_file *f;

	if (w->ftrace_file.buf) {
		f = &w->ftrace_file;
		record->type = PSTORE_TYPE_FTRACE;
		record->id = c->id;
	} else if (w->next_text < w->nr_text) {
		f = &w->text_file[w->next_text];
		record->type = PSTORE_TYPE_CONSOLE;
		record->id = w->first_text_id + w->next_text++;
	} else {
		return 0;
	}
	record->buf = f->buf;
	record->size = f->size;
	f->buf = NULL;
	return record->size;
}

static int ramtrail_open(struct pstore_info *psi)
{
	struct ramtrail_context *cxt = psi->data;

	/* Where read() is: dmesg slots first, then the parts of saved traces. */
	memset(&cxt->cursor, 0, sizeof(cxt->cursor));
	/* Without it, read() shows the dmesg records only. */
	cxt->cursor.walk = vzalloc(sizeof(*cxt->cursor.walk));
	if (cxt->cursor.walk)
		ramtrail_choose_parts(cxt, cxt->cursor.walk);
	return 0;
}

static int ramtrail_close(struct pstore_info *psi)
{
	struct ramtrail_context *cxt = psi->data;

	if (cxt->cursor.walk)
		ramtrail_part_free(cxt->cursor.walk);
	vfree(cxt->cursor.walk);
	cxt->cursor.walk = NULL;
	return 0;
}

/*
 * The next record pstore has not seen. One that cannot be read now (out
 * of memory) is skipped with a warning rather than returned as an error:
 * pstore stops at the first error and would hide every later file. A
 * part of a trace is skipped whole (ramtrail_make_part()).
 */
static ssize_t ramtrail_read(struct pstore_record *record)
{
	struct ramtrail_context *cxt = record->psi->data;
	struct ramtrail_cursor *c = &cxt->cursor;
	struct ramtrail_saved_trace *t;
	struct ramtrail_saved_walk w;
	ssize_t ret;

	while (c->slot < le32_to_cpu(cxt->hdr->dmesg_count)) {
		u32 slot = c->slot++;

		if (!ramtrail_dmesg_at(&cxt->reg, slot))
			continue;
		ret = ramtrail_read_dmesg(record, cxt, slot);
		if (ret >= 0)
			return ret;
		/* -ENODATA: an oops is rewriting it; it shows at the next mount. */
		if (ret != -ENODATA)
			pr_warn("dmesg-ramtrail in slot %u not shown: error %zd\n",
				slot, ret);
	}
	if (!c->walk) {
		pr_warn("saved traces not shown: out of memory\n");
		return 0;
	}
	for (;;) {
		w = c->saved;
		t = (void *)ramtrail_saved_walk(&cxt->reg, &w);
		if (!t)
			return 0;
		/* Nothing to show: no part of it is read. */
		if (ramtrail_saved_all_erased(t) ||
		    c->walk->shown_from[w.pos - 1] >= ramtrail_saved_parts(t)) {
			c->saved = w;
			continue;
		}
		if (c->walk->t != t) {
			ramtrail_walk_start(cxt, c->walk, t);
			c->walk->index = w.pos - 1;
		}
		while (c->part < ramtrail_saved_parts(t)) {
			c->id = ramtrail_saved_part_id(t, w.first, c->part);
			if (!c->made) {
				ramtrail_make_part(cxt, t);
				c->made = true;
			}
			/* The first part left out for memory ends the mount's. */
			if (c->walk->low)
				return 0;
			ret = ramtrail_part_next(c, record);
			if (ret > 0)
				return ret;
			c->part++;
			c->made = false;
		}
		c->saved = w;
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
			u64 erased = ramtrail_saved_erase_part(t, id - w.first +
						ramtrail_saved_first_shown(t));

			WRITE_ONCE(t->erased, cpu_to_le64(erased));
			ramtrail_flush(cxt, &t->erased, sizeof(t->erased));
			return;
		}
	}
}

static int ramtrail_erase(struct pstore_record *record)
{
	struct ramtrail_context *cxt = record->psi->data;

	if (record->type == PSTORE_TYPE_DMESG) {
		const struct ramtrail_dmesg_header *found;
		struct ramtrail_dmesg_header *d;
		u64 slot = record->id % RAMTRAIL_IDS_PER_BOOT;

		if (slot >= le32_to_cpu(cxt->hdr->dmesg_count))
			return -EINVAL;
		/* Only the record pstore showed: not a later one in its slot. */
		found = ramtrail_dmesg_at(&cxt->reg, slot);
		if (!found ||
		    ramtrail_boot_ids(le64_to_cpu(found->boot_id)) + slot !=
			    record->id)
			return -ENOENT;
		d = ramtrail_dmesg(cxt, slot);
		WRITE_ONCE(d->magic, 0);
		ramtrail_flush(cxt, d, sizeof(*d));
		return 0;
	}
	if (record->type == PSTORE_TYPE_FTRACE) {
		ramtrail_erase_trace_part(cxt, record->id);
		return 0;
	}
	if (record->type == PSTORE_TYPE_CONSOLE) {
		/* Not record->part: an unsigned int, the id may be larger. */
		ramtrail_erase_trace_part(cxt, record->id /
					  RAMTRAIL_PART_TEXT_IDS);
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
	u32 i, n = le32_to_cpu(cxt->hdr->dmesg_count);

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
	size_t len;
	int slot;

	if (record->type != PSTORE_TYPE_DMESG)
		return -EINVAL;
	slot = ramtrail_dmesg_slot(cxt);
	if (slot < 0)
		return slot;
	d = ramtrail_dmesg(cxt, slot);
	WRITE_ONCE(d->magic, 0);
	ramtrail_flush(cxt, d, sizeof(d->magic));
	len = min_t(size_t, record->size,
		    le64_to_cpu(cxt->hdr->dmesg_size) - sizeof(*d));
	d->len = cpu_to_le32(len);
	d->boot_id = cxt->hdr->boot_id;
	d->time_ns = cpu_to_le64(timespec64_to_ns(&record->time));
	d->reason = cpu_to_le32(record->reason);
	d->part = cpu_to_le32(record->part);
	d->compressed = cpu_to_le32(record->compressed);
	d->count = cpu_to_le32(record->count);
	d->reserved = 0;
	memcpy(d + 1, record->buf, le32_to_cpu(d->len));
	d->checksum = cpu_to_le32(ramtrail_dmesg_checksum(d));
	ramtrail_flush(cxt, d,
		       sizeof(*d) +
			       le32_to_cpu(d->len)); /* data before the magic */
	WRITE_ONCE(d->magic, cpu_to_le32(RAMTRAIL_DMESG_MAGIC));
	ramtrail_flush(cxt, d, sizeof(d->magic));
	return 0;
}

/**
 * ramtrail_pstore_init() - register the pstore backend
 * @cxt: the context, formatted
 *
 * pstore takes one backend. If another holds it, recording goes on
 * without pstore, said once: this boot's trace is saved by the next load
 * and shown by a later boot whose ramtrail has pstore, and the region
 * reads it now (debugfs region, ramtrail decode); no crash log is kept.
 *
 * Return: 0 (registered, or pstore taken: @cxt->pstore.buf is NULL) or a
 * negative errno; nothing stays registered on error.
 */
int ramtrail_pstore_init(struct ramtrail_context *cxt)
{
	struct pstore_info *psi = &cxt->pstore;
	int err;

	/* A dmesg record's id tells its slot (ramtrail_erase()). */
	BUILD_BUG_ON(RAMTRAIL_MAX_DMESG > RAMTRAIL_IDS_PER_BOOT);
	psi->owner = THIS_MODULE;
	psi->name = "ramtrail";
	psi->data = cxt;
	psi->open = ramtrail_open;
	psi->close = ramtrail_close;
	psi->read = ramtrail_read;
	psi->write = ramtrail_write;
	psi->erase = ramtrail_erase;
	psi->bufsize = cxt->hdr->dmesg_count ?
		       le64_to_cpu(cxt->hdr->dmesg_size) -
		       sizeof(struct ramtrail_dmesg_header) : 0;
	psi->flags = psi->bufsize ? PSTORE_FLAGS_DMESG : 0;
	psi->buf = kzalloc(max_t(size_t, psi->bufsize, 1), GFP_KERNEL);
	if (!psi->buf)
		return -ENOMEM;
	psi->max_reason = cxt->params.max_reason;
	ramtrail_pstore_lock_init(psi);
	err = pstore_register(psi);
	if (!err)
		return 0;
	kfree(psi->buf);
	psi->buf = NULL;
	/* 6.12 says -EBUSY; 6.1 -EPERM: pstore.backend names another */
	if (err != -EBUSY && err != -EPERM) {
		pr_err("pstore refused the backend (error %d)\n", err);
		return err;
	}
	pr_warn("pstore is taken by another backend (see /sys/module/pstore/parameters/backend): recording without it, and keeping no crash log; read this boot's trace from /sys/kernel/debug/ramtrail/region (ramtrail decode), or at a later boot with pstore.backend=ramtrail\n");
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
