// SPDX-License-Identifier: GPL-2.0
/*
 * A saved trace's chunks, written: each record of the zone merge as
 * entries of the open chunk, with the tables of function offsets and
 * pairs the chunk carries and the task events that name each record's
 * task; a full chunk sealed with its checksum and parity into the oldest
 * slot. The entries' encoding is in the uapi header; chunk_read.c reads
 * them back.
 */
#include "chunk.h"

/**
 * ramtrail_saved_count() - a saved trace's drop counters from its decode
 * @t: the saved trace, counters zero
 * @reg: the region it was recovered from
 * @cur: the cursors of the merge that filled it, one per zone
 */
void ramtrail_saved_count(struct ramtrail_saved_trace *t,
			  const struct ramtrail_region *reg,
			  const struct ramtrail_zone_cursor *cur)
{
	const struct ramtrail_freeze_info *f = ramtrail_region_freeze(reg);
	struct ramtrail_zone_stats sum;
	u32 cpu;

	ramtrail_zone_stats_sum(&sum, cur, le32_to_cpu(reg->hdr.nr_cpus));
	t->corrupt_blocks = cpu_to_le64(sum.corrupt_blocks);
	t->torn = cpu_to_le64(sum.torn);
	t->lost_words = cpu_to_le64(sum.lost_words);
	t->no_time = cpu_to_le64(sum.no_base);
	t->dropped = 0;
	for (cpu = 0; f && cpu < le32_to_cpu(reg->hdr.nr_cpus); cpu++)
		le64_add_cpu(&t->dropped, le64_to_cpu(f->zone[cpu].dropped));
}

/**
 * ramtrail_saved_keeps() - does a saved trace keep a decoded record
 * @r: the record
 *
 * Not a function outside the text, which has no name, nor a task event:
 * the writer makes its own.
 *
 * Return: true if ramtrail_saved_add() writes it.
 */
bool ramtrail_saved_keeps(const struct ramtrail_record *r)
{
	if (r->type == RAMTRAIL_W_EVENT)
		return r->id != RAMTRAIL_EV_TASK;
	return r->ip != 0;
}

/* Does @r change what the open chunk says of its CPU's task? */
static bool ramtrail_saved_task_changes(const struct ramtrail_saved_task *cpu,
					const struct ramtrail_record *r)
{
	if (r->task_gen && r->task_gen == cpu->gen)
		return false;
	if (r->task_known != cpu->known)
		return true;
	return r->task_known && memcmp(&r->task, &cpu->task, sizeof(r->task));
}

/**
 * ramtrail_saved_chunk_checksum() - CRC32 of a chunk of a saved trace
 * @k: the chunk, its @len bytes of entries after it
 * @boot_id: boot_id of the trace it belongs to
 * @nonce: nonce of the trace it belongs to
 *
 * Return: the checksum to store in or compare with @k->checksum.
 */
u32 ramtrail_saved_chunk_checksum(const struct ramtrail_saved_chunk *k,
				  u64 boot_id, u64 nonce)
{
	const u64 id[2] = { boot_id, nonce };
	u32 crc = ramtrail_crc32_update(~0U, id, sizeof(id));

	crc = ramtrail_crc32_update(crc, k + 1, le32_to_cpu(k->len));
	return ~ramtrail_crc32_update(crc, (const u8 *)k + sizeof(k->checksum),
				      sizeof(*k) - sizeof(k->checksum));
}

/* A part's ftrace file, 24 bytes a record, fits 6.1's 4 MiB kmalloc. */
_Static_assert(RAMTRAIL_SAVED_PART_CHUNKS * RAMTRAIL_SAVED_CHUNK_ENTRIES * 24 <=
	       4 << 20, "a pstore part's ftrace file fits in one kmalloc");
_Static_assert(RAMTRAIL_SAVED_ENTRY_MAX <=
	       RAMTRAIL_SAVED_CHUNK_MIN - RAMTRAIL_SAVED_ECC_MAX *
	       DIV_ROUND_UP(RAMTRAIL_SAVED_CHUNK_MIN, RAMTRAIL_SAVED_ECC_N) -
	       sizeof(struct ramtrail_saved_chunk),
	       "an empty chunk holds any record");
_Static_assert(sizeof(struct ramtrail_saved_chunk) >= RAMTRAIL_SAVED_ECC_MAX,
	       "a slot that holds a chunk's header holds its parity");

static u8 *ramtrail_put_varint(u8 *p, u64 v)
{
	while (v >= 0x80) {
		*p++ = (u8)v | 0x80;
		v >>= 7;
	}
	*p++ = (u8)v;
	return p;
}

/**
 * ramtrail_saved_writer_start() - start a saved trace's chunks
 * @w: the writer, its @task, @hash and @nr_cpus set by the caller
 * @slots: the first chunk slot
 * @chunk_size: bytes of a slot, within RAMTRAIL_SAVED_CHUNK_MIN..MAX
 * @nr_slots: slots at @slots
 * @ecc: parity bytes per codeword of a slot, up to RAMTRAIL_SAVED_ECC_MAX
 * @boot_id: boot_id of the trace
 * @nonce: nonce of the trace
 */
void ramtrail_saved_writer_start(struct ramtrail_saved_writer *w, u8 *slots,
				 u32 chunk_size, u32 nr_slots, u32 ecc,
				 u64 boot_id, u64 nonce)
{
	w->slots = slots;
	w->chunk_size = chunk_size;
	w->nr_slots = nr_slots;
	w->ecc = ecc;
	w->data = ramtrail_saved_data_size(chunk_size, ecc);
	w->boot_id = boot_id;
	w->nonce = nonce;
	w->chunk = NULL;
	w->len = 0;
	w->nr_chunks = 0;
	w->records = 0;
	w->chunk_records = 0;
	w->lost = 0;
}

/*
 * Seal the open chunk, if any, in @w->buf, add its slot's parity there,
 * and copy the slot: the region may be mapped write-combined, slow to
 * read, and takes one copy of a whole slot best. The last chunk of a
 * trace that never wrapped (@last) takes the slot it needs, cut.
 */
static void ramtrail_saved_close(struct ramtrail_saved_writer *w, bool last)
{
	struct ramtrail_saved_chunk *k = (void *)w->buf;
	u32 used = sizeof(*k) + w->len, size = w->chunk_size, sum;

	if (!w->chunk)
		return;
	if (last && w->nr_chunks <= w->nr_slots) {
		size = round_up(used, 8);
		while (ramtrail_saved_data_size(size, w->ecc) < used)
			size += 8;
	}
	k->len = cpu_to_le32(w->len);
	k->records = cpu_to_le32(w->chunk_records);
	sum = ramtrail_saved_chunk_checksum(k, w->boot_id, w->nonce);
	k->checksum = cpu_to_le32(sum);
	memset(w->buf + used, 0, size - used);
	if (w->ecc)
		ramtrail_ecc_encode(w->buf, size, w->ecc, &w->enc);
	memcpy(w->chunk, k, size);
	w->last_size = size;
	w->chunk = NULL;
}

/* Open the next chunk, its time counting from @ns, in the oldest slot. */
static void ramtrail_saved_next_chunk(struct ramtrail_saved_writer *w, u64 ns)
{
	struct ramtrail_saved_chunk *k = (void *)w->buf;
	u64 n = w->nr_chunks++;

	ramtrail_saved_close(w, false);
	w->chunk = (void *)(w->slots + (n % w->nr_slots) * w->chunk_size);
	if (n >= w->nr_slots)	/* sealed by this writer */
		w->lost += le32_to_cpu(w->chunk->records);
	memset(k, 0, sizeof(*k));
	k->seq = cpu_to_le64(n);
	k->ns = cpu_to_le64(ns);
	w->len = 0;
	w->entries = 0;
	w->chunk_records = 0;
	w->nr_names = 0;
	w->nr_pairs = 0;
	w->ns = ns;
	w->cpu = U32_MAX;
	memset(w->task, 0, w->nr_cpus * sizeof(*w->task));
}

/*
 * The index of @key, of @kind (RAMTRAIL_SAVED_PAIR or _OFFSET), in the open
 * chunk's table of that kind, of which there are *@nr; *@new tells that it
 * was not there and is added. The tables never hold more than half of
 * @w->hash together.
 */
static u32 ramtrail_saved_name(struct ramtrail_saved_writer *w, u64 key,
			       u32 kind, u32 *nr, bool *new)
{
	u32 h = ((key + kind) * 0x9e3779b97f4a7c15ULL) >>
		(64 - RAMTRAIL_SAVED_HASH_BITS);
	struct ramtrail_saved_name *e;

	for (;; h = (h + 1) % RAMTRAIL_SAVED_HASH) {
		e = &w->hash[h];
		if (e->chunk != (u32)w->nr_chunks) {
			e->chunk = w->nr_chunks;
			e->key = key;
			e->kind = kind;
			e->index = (*nr)++;
			*new = true;
			return e->index;
		}
		if (e->key == key && e->kind == kind) {
			*new = false;
			return e->index;
		}
	}
}

/* Put function offset @off at @p, as an index or a new offset. */
static u8 *ramtrail_saved_put_ref(struct ramtrail_saved_writer *w, u8 *p,
				  u32 off, u8 *refs, unsigned int shift)
{
	__le32 le = cpu_to_le32(off);
	bool new;
	u32 i = ramtrail_saved_name(w, off, RAMTRAIL_SAVED_OFFSET,
				    &w->nr_names, &new);

	if (!new) {
		*refs |= RAMTRAIL_SR_INDEX << shift;
		return ramtrail_put_varint(p, i);
	}
	*refs |= RAMTRAIL_SR_NEW << shift;
	memcpy(p, &le, sizeof(le));
	return p + sizeof(le);
}

/* An entry's tag at @p (@tag and its CPU), its CPU if need be, its time. */
static __always_inline u8 *
ramtrail_saved_put_head(struct ramtrail_saved_writer *w, u8 *p, u8 tag,
			u32 cpu, u64 ns)
{
	u8 *q = p + 1;

	if (cpu != w->cpu) {
		if (cpu < RAMTRAIL_ST_CPU_VARINT - 1) {
			tag |= (cpu + 1) << RAMTRAIL_ST_CPU_SHIFT;
		} else {
			tag |= RAMTRAIL_ST_CPU_VARINT << RAMTRAIL_ST_CPU_SHIFT;
			q = ramtrail_put_varint(q, cpu);
		}
		w->cpu = cpu;
	}
	*p = tag;
	q = ramtrail_put_varint(q, ns - w->ns);
	w->ns = ns;
	w->entries++;
	return q;
}

static u8 *ramtrail_saved_put_event(struct ramtrail_saved_writer *w, u8 *p,
				    u32 cpu, u64 ns, u32 id, u32 len,
				    u32 flags, const void *data)
{
	u8 *q = ramtrail_saved_put_head(w, p, RAMTRAIL_SK_EVENT <<
					RAMTRAIL_ST_KIND_SHIFT, cpu, ns);

	q = ramtrail_put_varint(q, id);
	*q++ = len;
	*q++ = flags;
	memcpy(q, data, len);
	return q + len;
}

/* A function record: its pair's index, or the new pair's offsets. */
static __always_inline u8 *
ramtrail_saved_put_func(struct ramtrail_saved_writer *w, u8 *p,
			const struct ramtrail_record *r, u64 ns)
{
	u32 parent = r->parent;
	u8 tag = r->ctx & RAMTRAIL_ST_CTX_MASK, *refs;
	bool new;
	u32 i = ramtrail_saved_name(w, (u64)r->ip << 32 | parent,
				    RAMTRAIL_SAVED_PAIR, &w->nr_pairs, &new);

	if (!new) {
		p = ramtrail_saved_put_head(w, p, tag | RAMTRAIL_SK_PAIR <<
					    RAMTRAIL_ST_KIND_SHIFT, r->cpu, ns);
		return ramtrail_put_varint(p, i);
	}
	p = ramtrail_saved_put_head(w, p, tag | RAMTRAIL_SK_NEW_PAIR <<
				    RAMTRAIL_ST_KIND_SHIFT, r->cpu, ns);
	refs = p++;
	*refs = 0;
	p = ramtrail_saved_put_ref(w, p, r->ip, refs, 0);
	if (parent)
		p = ramtrail_saved_put_ref(w, p, parent, refs,
					   RAMTRAIL_SR_PARENT_SHIFT);
	return p;
}

/*
 * Write @r at @out, preceded by a task event (pid RAMTRAIL_PID_UNKNOWN
 * when unknown) if its task is not the one the chunk names last for its
 * CPU. Returns the bytes written: at most RAMTRAIL_SAVED_ENTRY_MAX.
 */
static __always_inline u32
ramtrail_saved_encode(struct ramtrail_saved_writer *w, u8 *out,
		      const struct ramtrail_record *r, u64 ns)
{
	struct ramtrail_saved_task *cpu = &w->task[r->cpu];
	u8 *p = out;

	if (ramtrail_saved_task_changes(cpu, r)) {
		struct ramtrail_ev_task task = {
			.pid = cpu_to_le32(RAMTRAIL_PID_UNKNOWN),
		};

		cpu->known = r->task_known;
		cpu->task = r->task;
		if (r->task_known)
			task = r->task;
		p = ramtrail_saved_put_event(w, p, r->cpu, ns, RAMTRAIL_EV_TASK,
					     sizeof(task), 0, &task);
	}
	cpu->gen = r->task_gen;
	if (r->type == RAMTRAIL_W_EVENT)
		p = ramtrail_saved_put_event(w, p, r->cpu, ns, r->id, r->len,
					     r->flags, r->data);
	else
		p = ramtrail_saved_put_func(w, p, r, ns);
	return p - out;
}

/* Where the open chunk's next entry goes. */
static u8 *ramtrail_saved_tail(struct ramtrail_saved_writer *w)
{
	return w->buf + sizeof(struct ramtrail_saved_chunk) + w->len;
}

/* ramtrail_saved_add(), inline in ramtrail_saved_merge(). */
static __always_inline void ramtrail_saved_append(struct ramtrail_saved_writer *w,
						  const struct ramtrail_record *r,
						  u64 ns)
{
	u32 cap = w->data - sizeof(struct ramtrail_saved_chunk), n;
	bool again;

	if (!w->nr_slots || !ramtrail_saved_keeps(r))
		return;
	if (w->chunk && ns < w->ns)
		ns = w->ns;	/* the merge's order: not seen */
	if (!w->chunk || w->entries + 2 > RAMTRAIL_SAVED_CHUNK_ENTRIES ||
	    w->nr_names + 2 > RAMTRAIL_SAVED_CHUNK_NAMES ||
	    w->nr_pairs + 1 > RAMTRAIL_SAVED_CHUNK_PAIRS)
		ramtrail_saved_next_chunk(w, ns);
	/*
	 * @w->buf has room for a record's entries past the chunk's end: one
	 * that does not fit goes to the next chunk, made again there.
	 */
	for (again = false;; again = true) {
		n = ramtrail_saved_encode(w, ramtrail_saved_tail(w), r, ns);
		if (again || n <= cap - w->len)
			break;
		ramtrail_saved_next_chunk(w, ns);
	}
	w->len += n;
	w->records++;
	w->chunk_records++;
}

/**
 * ramtrail_saved_add() - append a record of the zone merge to a saved trace
 * @w: the writer, started
 * @r: the record, whose CPU is below @w->nr_cpus
 * @ns: its time in CLOCK_MONOTONIC nanoseconds, not before the last one's
 *
 * A record whose task is not the one the chunk names last for its CPU is
 * preceded by a RAMTRAIL_EV_TASK event, so that a reader knows the task of
 * every record. When the open chunk is full, the next one starts, in the
 * oldest slot once all are taken: the oldest records are the ones lost.
 */
void ramtrail_saved_add(struct ramtrail_saved_writer *w,
			const struct ramtrail_record *r, u64 ns)
{
	ramtrail_saved_append(w, r, ns);
}

/**
 * ramtrail_saved_finish() - seal the last chunk of a saved trace
 * @w: the writer
 */
void ramtrail_saved_finish(struct ramtrail_saved_writer *w)
{
	ramtrail_saved_close(w, true);
}

/**
 * ramtrail_saved_set_chunks() - a saved trace's fields that its chunks set
 * @t: the trace, its @modtab_count set
 * @w: the writer that filled it, finished, with at least one chunk
 *
 * A trace that never wrapped ends after its last chunk's slot, cut.
 */
void ramtrail_saved_set_chunks(struct ramtrail_saved_trace *t,
			       const struct ramtrail_saved_writer *w)
{
	u64 size;

	t->chunk_size = cpu_to_le32(w->chunk_size);
	t->nr_chunks = cpu_to_le64(w->nr_chunks);
	t->nr_slots = cpu_to_le32(min_t(u64, w->nr_chunks, w->nr_slots));
	t->ecc = cpu_to_le32(w->ecc);
	size = ramtrail_saved_fixed(le32_to_cpu(t->modtab_count)) +
	       (u64)le32_to_cpu(t->nr_slots) * w->chunk_size;
	if (w->nr_chunks <= w->nr_slots)
		size -= w->chunk_size - w->last_size;
	t->size = cpu_to_le64(size);
	t->nr_records = cpu_to_le64(w->records - w->lost);
	t->skipped = cpu_to_le64(w->lost);
}

/**
 * ramtrail_saved_merge() - merge the zones into a saved trace
 * @reg: region opened with ramtrail_region_open()
 * @cur: reg->hdr.nr_cpus cursors; their stats then tell what the decode
 *	of the whole zones dropped
 * @heap: reg->hdr.nr_cpus slots
 * @w: the writer, started; finished on return
 */
void ramtrail_saved_merge(const struct ramtrail_region *reg,
			  struct ramtrail_zone_cursor *cur,
			  struct ramtrail_merge_slot *heap,
			  struct ramtrail_saved_writer *w)
{
	const struct ramtrail_record *r;
	struct ramtrail_ns_step step = { };
	struct ramtrail_merge m;
	u64 n = 0, ns;
	u32 cpu;

	for (cpu = 0; cpu < le32_to_cpu(reg->hdr.nr_cpus); cpu++) {
		ramtrail_zone_open(&cur[cpu], reg, cpu);
		cur[cpu].may_sleep = true;	/* the save sleeps */
	}
	ramtrail_merge_start(&m, cur, heap, le32_to_cpu(reg->hdr.nr_cpus));
	while ((r = ramtrail_merge_step(&m))) {
		if (!ramtrail_ts_step_near(&reg->hdr, &step, r->ts, &ns))
			ns = ramtrail_ts_step_far(&reg->hdr, &step, r->ts);
		ramtrail_saved_append(w, r, ns);
		if (!(++n & 0xffff))
			cond_resched();
	}
	ramtrail_saved_finish(w);
}
