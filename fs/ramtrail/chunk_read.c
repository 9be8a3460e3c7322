// SPDX-License-Identifier: GPL-2.0
/*
 * A saved trace's chunks, read: the records again, chunk by chunk from the
 * oldest, each chunk taken only if its number and checksum hold and every
 * entry in it is one a writer makes (chunk_write.c); and the check that
 * corrects what the parity can and counts the rest.
 */
#include "chunk.h"

/**
 * ramtrail_saved_open() - start reading a saved trace's chunks
 * @c: the cursor
 * @t: a saved trace that ramtrail_saved_next() returned
 */
void ramtrail_saved_open(struct ramtrail_saved_cursor *c,
			 const struct ramtrail_saved_trace *t)
{
	/* The tables are set as each chunk opens. */
	memset(c, 0, offsetof(struct ramtrail_saved_cursor, names));
	c->t = t;
	c->nr = le32_to_cpu(t->nr_slots);
	c->nr_cpus = le32_to_cpu(t->nr_cpus);
}

/*
 * Chunk @i of @t (0 the oldest its slots keep): its header, its number
 * in the trace in @n and the bytes of its slot in @room.
 */
static const struct ramtrail_saved_chunk *
ramtrail_saved_chunk_at(const struct ramtrail_saved_trace *t, u64 i, u64 *n,
			u64 *room)
{
	u64 off;

	*n = le64_to_cpu(t->nr_chunks) - le32_to_cpu(t->nr_slots) + i;
	off = *n % le32_to_cpu(t->nr_slots) * le32_to_cpu(t->chunk_size);
	*room = min_t(u64, le64_to_cpu(t->size) -
		      ramtrail_saved_head_size(t) - off,
		      le32_to_cpu(t->chunk_size));
	return (const void *)(ramtrail_saved_slots(t) + off);
}

/**
 * ramtrail_saved_part_records() - the records a part of a saved trace
 *	holds at most, from its chunks' headers alone
 * @t: a saved trace that ramtrail_saved_next() returned
 * @part: the part (ramtrail_saved_part_end())
 *
 * Each chunk counts what its header claims, bounded by what a chunk
 * holds; a chunk whose header names another number, which a reader
 * skips, counts none. Nothing past the headers is read.
 *
 * Return: the bound, task events left out.
 */
u64 ramtrail_saved_part_records(const struct ramtrail_saved_trace *t, u64 part)
{
	u64 i = part ? ramtrail_saved_part_end(t, part - 1) : 0;
	u64 end = ramtrail_saved_part_end(t, part), n, room, sum = 0;
	const struct ramtrail_saved_chunk *k;

	for (; i < end; i++) {
		k = ramtrail_saved_chunk_at(t, i, &n, &room);
		if (room >= sizeof(*k) && le64_to_cpu(READ_ONCE(k->seq)) == n)
			sum += min_t(u32, le32_to_cpu(READ_ONCE(k->records)),
				     RAMTRAIL_SAVED_CHUNK_ENTRIES);
	}
	return sum;
}

/* Is chunk @k of @t, number @n, in a slot of @room bytes, one to read? */
static bool ramtrail_saved_chunk_ok(const struct ramtrail_saved_trace *t,
				    const struct ramtrail_saved_chunk *k,
				    u64 n, u64 room)
{
	room = room >= sizeof(*k) ?
	       ramtrail_saved_data_size(room, le32_to_cpu(t->ecc)) : 0;
	return room >= sizeof(*k) &&
	       le32_to_cpu(k->len) <= room - sizeof(*k) &&
	       le64_to_cpu(k->seq) == n &&
	       le32_to_cpu(k->records) <= RAMTRAIL_SAVED_CHUNK_ENTRIES &&
	       !k->reserved &&
	       le32_to_cpu(k->checksum) ==
	       ramtrail_saved_chunk_checksum(k, le64_to_cpu(t->boot_id),
					     le64_to_cpu(t->nonce));
}

/* Where ramtrail_saved_bad_next() goes on: a part, a chunk. */
struct ramtrail_saved_bad {
	u64 part;
	u64 i;
};

/*
 * The next chunk of @t, in a part not erased, that fails its checks: its
 * header, its number in @n, its slot's bytes in @room; NULL at the end.
 */
static const struct ramtrail_saved_chunk *
ramtrail_saved_bad_next(const struct ramtrail_saved_trace *t,
			struct ramtrail_saved_bad *b, u64 *n, u64 *room)
{
	const struct ramtrail_saved_chunk *k;
	u64 end;

	for (; b->part < ramtrail_saved_parts(t); b->part++) {
		end = ramtrail_saved_part_end(t, b->part);
		if (ramtrail_saved_part_erased(t, b->part))
			b->i = end;
		while (b->i < end) {
			k = ramtrail_saved_chunk_at(t, b->i++, n, room);
			if (!ramtrail_saved_chunk_ok(t, k, *n, *room))
				return k;
		}
	}
	return NULL;
}

/**
 * ramtrail_saved_check() - correct the damaged chunks of a saved trace that
 *	its parity can, and count the others
 * @t: a saved trace that ramtrail_saved_next() returned; in memory the
 *	caller may write if @buf
 * @buf: @t->chunk_size bytes of scratch to correct in, or NULL to count
 *	only
 * @c: what it found
 *
 * Each chunk that fails ramtrail_saved_read()'s checks is corrected by its
 * slot's parity in @buf, and the slot is written back only if the result
 * passes them. The chunks of erased parts are not looked at. Reads the
 * whole trace once (each chunk's checksum).
 */
void ramtrail_saved_check(struct ramtrail_saved_trace *t, u8 *buf,
			  struct ramtrail_saved_check *c)
{
	struct ramtrail_saved_bad b = { 0 };
	const struct ramtrail_saved_chunk *k;
	u64 n, room;
	int got;

	memset(c, 0, sizeof(*c));
	while ((k = ramtrail_saved_bad_next(t, &b, &n, &room))) {
		if (buf && t->ecc) {
			memcpy(buf, k, room);
			got = ramtrail_ecc_correct(buf, room,
						   le32_to_cpu(t->ecc));
			if (got > 0 &&
			    ramtrail_saved_chunk_ok(t, (void *)buf, n, room)) {
				memcpy((void *)k, buf, room);
				c->bytes += got;
				c->corrected++;
				continue;
			}
		}
		c->damaged++;
		c->records += room >= sizeof(*k) && le64_to_cpu(k->seq) == n ?
			      min_t(u32, le32_to_cpu(k->records),
				    RAMTRAIL_SAVED_CHUNK_ENTRIES) :
			      RAMTRAIL_SAVED_CHUNK_ENTRIES;
	}
}

/**
 * ramtrail_saved_damage() - the chunks of a saved trace that a reader drops
 * @t: a saved trace that ramtrail_saved_next() returned
 * @records: set to the records they held at most: what each one's header
 *	claims if its number is right, else a chunk's most
 *
 * Return: how many chunks fail ramtrail_saved_read()'s checks.
 */
u64 ramtrail_saved_damage(const struct ramtrail_saved_trace *t, u64 *records)
{
	struct ramtrail_saved_check c;

	ramtrail_saved_check((struct ramtrail_saved_trace *)t, NULL, &c);
	*records = c.records;
	return c.damaged;
}

/* Open chunk @c->next; false (and counted) if it is not a valid one. */
static bool ramtrail_saved_chunk_open(struct ramtrail_saved_cursor *c)
{
	const struct ramtrail_saved_trace *t = c->t;
	u64 n, room;
	const struct ramtrail_saved_chunk *k =
		ramtrail_saved_chunk_at(t, c->next++, &n, &room);

	c->p = NULL;
	c->end = NULL;
	if (!ramtrail_saved_chunk_ok(t, k, n, room)) {
		c->bad++;
		return false;
	}
	c->start = (const u8 *)(k + 1);
	c->p = c->start;
	c->end = c->start + le32_to_cpu(k->len);
	c->ns = le64_to_cpu(k->ns);
	c->cpu = U32_MAX;
	c->entries = 0;
	c->nr_names = 0;
	c->nr_pairs = 0;
	memset(c->task, 0, c->nr_cpus * sizeof(*c->task));
	return true;
}

static noinline bool ramtrail_get_varint_long(const u8 **pp, const u8 *end,
					      u64 *v)
{
	const u8 *p = *pp;
	unsigned int shift;
	u64 x = 0;

	for (shift = 0; shift < 64 && p < end; shift += 7) {
		x |= (u64)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80)) {
			*v = x;
			*pp = p;
			return true;
		}
	}
	return false;
}

/*
 * A varint at *@pp, before @end. Most take one or two bytes: an index, a
 * time delta under 16 us.
 */
static __always_inline bool ramtrail_get_varint(const u8 **pp, const u8 *end,
						u64 *v)
{
	const u8 *p = *pp;

	if (likely(end - p >= 2)) {
		if (!(p[0] & 0x80)) {
			*v = p[0];
			*pp = p + 1;
			return true;
		}
		if (!(p[1] & 0x80)) {
			*v = (p[0] & 0x7f) | (u64)p[1] << 7;
			*pp = p + 2;
			return true;
		}
	}
	return ramtrail_get_varint_long(pp, end, v);
}

/* A function offset of an entry, by @ref; false if no writer makes it. */
static bool ramtrail_saved_get_ref(struct ramtrail_saved_cursor *c,
				   const u8 **p, unsigned int ref, u32 *off)
{
	__le32 le;
	u64 i;

	if (ref == RAMTRAIL_SR_NEW) {
		if (c->end - *p < (long)sizeof(le) ||
		    c->nr_names >= RAMTRAIL_SAVED_CHUNK_NAMES)
			return false;
		memcpy(&le, *p, sizeof(le));
		*p += sizeof(le);
		*off = le32_to_cpu(le);
		c->names[c->nr_names++] = *off;
		return *off != 0;
	}
	if (ref != RAMTRAIL_SR_INDEX || !ramtrail_get_varint(p, c->end, &i) ||
	    i >= c->nr_names)
		return false;
	*off = c->names[i];
	return true;
}

/* The event after an entry's time at @p, into @c->rec. */
static bool ramtrail_saved_get_event(struct ramtrail_saved_cursor *c,
				     const u8 **pp, u32 cpu)
{
	struct ramtrail_record *r = &c->rec;
	const u8 *p = *pp;
	u32 len, flags;
	u64 id;

	if (!ramtrail_get_varint(&p, c->end, &id) || id > 0xffff ||
	    c->end - p < 2)
		return false;
	len = p[0];
	flags = p[1];
	p += 2;
	if (flags & ~RAMTRAIL_EF_MASK || c->end - p < len)
		return false;
	r->type = RAMTRAIL_W_EVENT;
	r->id = id;
	r->len = len;
	r->flags = flags;
	r->ctx = flags & RAMTRAIL_CTX_MASK;
	memcpy(r->data, p, len);
	memset(r->data + len, 0, sizeof(r->data) - len);
	*pp = p + len;
	if (id != RAMTRAIL_EV_TASK)
		return true;
	if (len != sizeof(struct ramtrail_ev_task))
		return false;
	memcpy(&c->task[cpu].task, r->data, len);
	c->task[cpu].known = le32_to_cpu(c->task[cpu].task.pid) !=
			     RAMTRAIL_PID_UNKNOWN;
	return true;
}

/* A function's new pair after its tag at @p, into @c->rec and the table. */
static bool ramtrail_saved_get_pair(struct ramtrail_saved_cursor *c,
				    const u8 **p)
{
	struct ramtrail_record *r = &c->rec;
	unsigned int ip_ref, parent_ref;
	u8 refs;

	if (*p >= c->end || c->nr_pairs >= RAMTRAIL_SAVED_CHUNK_PAIRS)
		return false;
	refs = *(*p)++;
	ip_ref = refs & RAMTRAIL_SR_MASK;
	parent_ref = refs >> RAMTRAIL_SR_PARENT_SHIFT & RAMTRAIL_SR_MASK;
	if (refs >> (RAMTRAIL_SR_PARENT_SHIFT + 2) || ip_ref == RAMTRAIL_SR_NONE ||
	    !ramtrail_saved_get_ref(c, p, ip_ref, &r->ip) ||
	    (parent_ref != RAMTRAIL_SR_NONE &&
	     !ramtrail_saved_get_ref(c, p, parent_ref, &r->parent)))
		return false;
	c->pair_ip[c->nr_pairs] = r->ip;
	c->pair_parent[c->nr_pairs++] = r->parent;
	return true;
}

/* The entry at @c->p, into @c->rec; false for one no writer makes. */
static bool ramtrail_saved_entry(struct ramtrail_saved_cursor *c)
{
	struct ramtrail_record *r = &c->rec;
	const u8 *p = c->p;
	u8 tag = *p++;
	unsigned int kind = tag >> RAMTRAIL_ST_KIND_SHIFT & RAMTRAIL_ST_KIND_MASK;
	unsigned int cpu_field = tag >> RAMTRAIL_ST_CPU_SHIFT;
	u64 cpu = c->cpu, v;

	if (cpu_field == RAMTRAIL_ST_CPU_VARINT) {
		if (!ramtrail_get_varint(&p, c->end, &cpu))
			return false;
	} else if (cpu_field != RAMTRAIL_ST_CPU_SAME) {
		cpu = cpu_field - 1;
	}
	if (++c->entries > RAMTRAIL_SAVED_CHUNK_ENTRIES ||
	    cpu >= c->nr_cpus || !ramtrail_get_varint(&p, c->end, &v) ||
	    v > U64_MAX - c->ns)
		return false;
	memset(r, 0, offsetof(struct ramtrail_record, data));
	r->ts = c->ns + v;
	r->pos = c->p - ramtrail_saved_slots(c->t);
	r->cpu = cpu;
	r->task_known = c->task[cpu].known;
	r->task = c->task[cpu].task;
	switch (kind) {
	case RAMTRAIL_SK_EVENT:
		if (tag & RAMTRAIL_ST_CTX_MASK ||
		    !ramtrail_saved_get_event(c, &p, cpu))
			return false;
		break;
	case RAMTRAIL_SK_PAIR:
		if (!ramtrail_get_varint(&p, c->end, &v) || v >= c->nr_pairs)
			return false;
		r->ip = c->pair_ip[v];
		r->parent = c->pair_parent[v];
		break;
	case RAMTRAIL_SK_NEW_PAIR:
		if (!ramtrail_saved_get_pair(c, &p))
			return false;
		break;
	default:
		return false;
	}
	if (kind != RAMTRAIL_SK_EVENT) {
		r->ctx = tag & RAMTRAIL_ST_CTX_MASK;
		r->type = r->parent ? RAMTRAIL_W_FUNC_PARENT : RAMTRAIL_W_FUNC;
	}
	c->p = p;
	c->cpu = cpu;
	c->ns = r->ts;
	return true;
}

/**
 * ramtrail_saved_read() - the next record of a saved trace
 * @c: cursor from ramtrail_saved_open()
 * @end: chunk number where reading stops: a chunk numbered @end or later
 *	is left for a later call (@c->nr for the whole trace)
 *
 * Task events are consumed: each record carries its CPU's task. A chunk
 * whose checksum or number does not match is skipped and counted; so is
 * the rest of a chunk from an entry no writer makes (a CPU out of range,
 * an index past the table, data past the end, a task event of another
 * size). Nothing in the chunks is trusted.
 *
 * Return: the record, valid until the next call, or NULL when the next
 * chunk is numbered @end or later.
 */
const struct ramtrail_record *
ramtrail_saved_read(struct ramtrail_saved_cursor *c, u64 end)
{
	for (;;) {
		if (c->p == c->end) {
			if (c->next >= end || c->next >= c->nr)
				return NULL;
			ramtrail_saved_chunk_open(c);
			continue;
		}
		if (!ramtrail_saved_entry(c)) {
			c->bad++;
			c->p = c->end;
			continue;
		}
		if (c->rec.type == RAMTRAIL_W_EVENT &&
		    c->rec.id == RAMTRAIL_EV_TASK) {
			c->tasks++;
			continue;
		}
		c->records++;
		return &c->rec;
	}
}

/**
 * ramtrail_saved_skip() - move a saved trace's cursor past chunks unread
 * @c: the cursor
 * @end: the next ramtrail_saved_read() returns the first record of chunk
 *	@end or later; nothing moves if @c is past chunk @end already
 *
 * Chunks stand alone (their tables, times and tasks start afresh), so the
 * records read after a skip are those a whole read gives there.
 */
void ramtrail_saved_skip(struct ramtrail_saved_cursor *c, u64 end)
{
	if (c->next > end)
		return;
	c->p = c->end;		/* the open chunk, numbered @c->next - 1 */
	c->next = min_t(u64, end, c->nr);
}
