// SPDX-License-Identifier: GPL-2.0
/*
 * The saved area: which saved traces are valid and in which order, the
 * repair of a head a flipped bit hit, and where the next trace goes (over
 * the oldest, never over one not erased that a later boot would miss).
 */
#include "saved.h"
#include "clock.h"

_Static_assert(offsetof(struct ramtrail_saved_trace, erased) ==
	       offsetof(struct ramtrail_saved_trace, checksum) + 4,
	       "erased must follow checksum: one span outside the checksum");

/* Bytes of the saved area a scan reads between two cond_resched(). */
#define RAMTRAIL_SAVED_RESCHED	BIT_ULL(20)

/* A module entry's time @ts (0: none), in the nanoseconds of the records. */
static void ramtrail_saved_time_le(const struct ramtrail_region_header *hdr,
				   __le64 *ts)
{
	u64 t = le64_to_cpu(*ts);

	*ts = cpu_to_le64(t ? max_t(u64, ramtrail_ts_to_ns(hdr, t), 1) : 0);
}

/**
 * ramtrail_saved_modules_copy() - a saved trace's copy of the module table
 * @t: the saved trace
 * @mods: the module table of the boot whose zones it saves
 * @n: entries of @mods
 * @hdr: that boot's region header (its clock)
 *
 * A saved trace's records carry nanoseconds, not counter values: the end
 * of each module's init text, when the table filled and when a module was
 * unloaded are converted to the same (and the entry's checksum set again,
 * only if it held). Sets @t->modtab_count.
 */
void ramtrail_saved_modules_copy(struct ramtrail_saved_trace *t,
				 const struct ramtrail_module_entry *mods,
				 u32 n, const struct ramtrail_region_header *hdr)
{
	struct ramtrail_module_entry *e = ramtrail_saved_modules(t);
	u32 i;

	memcpy(e, mods, n * sizeof(*mods));
	t->modtab_count = cpu_to_le32(n);
	for (i = 0; i < n; i++) {
		if ((!e[i].gone && !e[i].init_end && !e[i].full_since) ||
		    le32_to_cpu(e[i].checksum) !=
			    ramtrail_module_checksum(&e[i]))
			continue;
		ramtrail_saved_time_le(hdr, &e[i].gone);
		ramtrail_saved_time_le(hdr, &e[i].init_end);
		ramtrail_saved_time_le(hdr, &e[i].full_since);
		e[i].checksum = cpu_to_le32(ramtrail_module_checksum(&e[i]));
	}
}

/**
 * ramtrail_saved_checksum() - CRC32 of a saved trace header
 * @t: the header, its checksum field taken as 0
 *
 * Return: the checksum to store in or compare with @t->checksum.
 */
u32 ramtrail_saved_checksum(const struct ramtrail_saved_trace *t)
{
	return ramtrail_crc32_skip(t, sizeof(*t),
				   offsetof(struct ramtrail_saved_trace, checksum),
				   sizeof(t->checksum) + sizeof(t->erased));
}

/* The header at @t and its parity, @erased as 0, into @slot. */
static void ramtrail_saved_head_slot(u8 *slot,
				     const struct ramtrail_saved_trace *t)
{
	memcpy(slot, t, RAMTRAIL_SAVED_HEAD_SLOT);
	memset(slot + offsetof(struct ramtrail_saved_trace, erased), 0,
	       sizeof(t->erased));
}

/**
 * ramtrail_saved_sign() - set a saved trace header's checksum and parity
 * @t: the header, its fields set; the parity goes right after it
 * @enc: an encoder (ramtrail_ecc_encode())
 */
void ramtrail_saved_sign(struct ramtrail_saved_trace *t,
			 struct ramtrail_ecc_encoder *enc)
{
	u8 slot[RAMTRAIL_SAVED_HEAD_SLOT];

	t->checksum = cpu_to_le32(ramtrail_saved_checksum(t));
	ramtrail_saved_head_slot(slot, t);
	ramtrail_ecc_encode(slot, sizeof(slot), RAMTRAIL_SAVED_HEAD_ECC, enc);
	memcpy(t + 1, slot + sizeof(*t), RAMTRAIL_SAVED_HEAD_PARITY);
}

/**
 * ramtrail_saved_all_erased() - is every pstore file of a saved trace erased
 * @t: a saved trace
 *
 * Return: true if nothing of it is shown any more.
 */
bool ramtrail_saved_all_erased(const struct ramtrail_saved_trace *t)
{
	u64 parts = ramtrail_saved_parts(t);
	u64 mask = parts >= 64 ? ~0ULL : (1ULL << parts) - 1;

	return (le64_to_cpu(READ_ONCE(t->erased)) & mask) == mask;
}

/* The entry at @off if its magic and checksum hold, whatever its fields. */
static const struct ramtrail_saved_trace *
ramtrail_saved_signed(const struct ramtrail_region *reg, u64 off)
{
	const struct ramtrail_region_header *h = &reg->hdr;
	const struct ramtrail_saved_trace *t;

	if (!reg->base || off % 8 || off > le64_to_cpu(h->saved_size) ||
	    le64_to_cpu(h->saved_size) - off < sizeof(*t))
		return NULL;
	t = (const void *)(reg->base + le64_to_cpu(h->saved_offset) + off);
	if (le32_to_cpu(READ_ONCE(t->magic)) != ramtrail_saved_magic(reg) ||
	    le32_to_cpu(t->checksum) != ramtrail_saved_checksum(t))
		return NULL;
	return t;
}

/* The saved trace at @off, if one is valid there and fits the area. */
static const struct ramtrail_saved_trace *
ramtrail_saved_at(const struct ramtrail_region *reg, u64 off)
{
	const struct ramtrail_saved_trace *t = ramtrail_saved_signed(reg, off);
	u64 room, full, size, slots, chunk;

	if (!t)
		return NULL;
	room = le64_to_cpu(reg->hdr.saved_size) - off;
	if (le32_to_cpu(t->modtab_count) > RAMTRAIL_MAX_MODULES ||
	    le64_to_cpu(t->size) % 8 || le64_to_cpu(t->size) > room ||
	    le32_to_cpu(t->nr_cpus) > RAMTRAIL_MAX_CPUS ||
	    le32_to_cpu(t->nr_cpus) < 1 ||
	    le32_to_cpu(t->chunk_size) < RAMTRAIL_SAVED_CHUNK_MIN ||
	    le32_to_cpu(t->chunk_size) > RAMTRAIL_SAVED_CHUNK_MAX ||
	    le32_to_cpu(t->chunk_size) % 8 ||
	    le32_to_cpu(t->ecc) > RAMTRAIL_SAVED_ECC_MAX || t->reserved ||
	    !le32_to_cpu(t->nr_slots) ||
	    le64_to_cpu(t->nr_chunks) < le32_to_cpu(t->nr_slots))
		return NULL;
	/* Whole slots; the last one cut after its chunk if none wrapped. */
	chunk = le32_to_cpu(t->chunk_size);
	slots = le32_to_cpu(t->nr_slots);
	size = le64_to_cpu(t->size);
	full = ramtrail_saved_head_size(t) + slots * chunk;
	if (le64_to_cpu(t->nr_chunks) > slots ? size != full :
	    (size > full ||
	     size < full - chunk + sizeof(struct ramtrail_saved_chunk)))
		return NULL;
	return t;
}

/**
 * ramtrail_saved_scan() - find the saved traces of a region
 * @reg: region with its layout validated (@reg->base set)
 *
 * Scans the saved area every 8 bytes for a valid entry, skipping the inside
 * of each one found, and lists the first RAMTRAIL_MAX_SAVED in @reg->saved
 * by boot_id, then offset. An entry whose checksum holds but whose fields
 * no writer makes is counted in @reg->saved_refused. Bounded by the area:
 * one look per 8 bytes.
 */
void ramtrail_saved_scan(struct ramtrail_region *reg)
{
	const __le32 *area =
		(const __le32 *)(reg->base +
				 le64_to_cpu(reg->hdr.saved_offset));
	const __le32 magic = cpu_to_le32(ramtrail_saved_magic(reg));
	const struct ramtrail_saved_trace *t, *o;
	u64 off = 0, last;
	u32 i;

	reg->nr_saved = 0;
	reg->saved_refused = 0;
	reg->saved_end = le64_to_cpu(reg->hdr.saved_size);
	if (le64_to_cpu(reg->hdr.saved_size) < sizeof(*t))
		return;
	last = le64_to_cpu(reg->hdr.saved_size) - sizeof(*t);
	while (off <= last) {
		if (reg->nr_saved == RAMTRAIL_MAX_SAVED) {
			reg->saved_end = off;	/* more may follow, unlisted */
			break;
		}
		/* The magic first: most of the area is records or zeroes. */
		while (off + 24 <= last &&
		       READ_ONCE(area[off / 4]) != magic &&
		       READ_ONCE(area[off / 4 + 2]) != magic &&
		       READ_ONCE(area[off / 4 + 4]) != magic &&
		       READ_ONCE(area[off / 4 + 6]) != magic) {
			off += 32;
			/* An uncached MiB takes a while: let others run. */
			if (!(off & (RAMTRAIL_SAVED_RESCHED - 1)))
				cond_resched();
		}
		while (off <= last &&
		       READ_ONCE(area[off / 4]) != magic)
			off += 8;
		if (off > last)
			break;
		t = ramtrail_saved_at(reg, off);
		if (!t) {
			reg->saved_refused += !!ramtrail_saved_signed(reg, off);
			off += 8;
			continue;
		}
		for (i = reg->nr_saved; i > 0; i--) {
			o = (const void *)(reg->base +
					   le64_to_cpu(reg->hdr.saved_offset) +
					   reg->saved[i - 1]);
			if (le64_to_cpu(o->boot_id) <= le64_to_cpu(t->boot_id))
				break;
			reg->saved[i] = reg->saved[i - 1];
		}
		reg->saved[i] = off;
		reg->nr_saved++;
		off += le64_to_cpu(t->size);
	}
}

/* Could the word at a header's start be a magic with bits changed? */
static bool ramtrail_saved_magic_near(u32 w, u32 magic)
{
	u32 x = w ^ magic, right = 0, i;

	for (i = 0; i < 4; i++, x >>= 8)
		right += !(x & 0xff);
	return right >= 2;
}

/*
 * Correct the header at @off of the saved area by its parity, if that
 * makes it a valid entry that ends by @end; @erased is kept as it is.
 */
static bool ramtrail_saved_heal_at(struct ramtrail_region *reg, u64 off,
				   u64 end)
{
	u8 *at = (u8 *)reg->base + le64_to_cpu(reg->hdr.saved_offset) + off;
	u8 slot[RAMTRAIL_SAVED_HEAD_SLOT], was[RAMTRAIL_SAVED_HEAD_SLOT];
	const struct ramtrail_saved_trace *t = (const void *)slot;
	const size_t erased = offsetof(struct ramtrail_saved_trace, erased);

	ramtrail_saved_head_slot(slot, (const void *)at);
	if (ramtrail_ecc_correct(slot, sizeof(slot),
				 RAMTRAIL_SAVED_HEAD_ECC) <= 0 ||
	    le32_to_cpu(t->magic) != ramtrail_saved_magic(reg) ||
	    le32_to_cpu(t->checksum) != ramtrail_saved_checksum(t))
		return false;
	memcpy(was, at, sizeof(was));
	memcpy(at, slot, erased);
	memcpy(at + erased + sizeof(t->erased), slot + erased +
	       sizeof(t->erased), sizeof(slot) - erased - sizeof(t->erased));
	t = ramtrail_saved_at(reg, off);
	if (t && off + le64_to_cpu(t->size) <= end)
		return true;
	memcpy(at, was, sizeof(was));	/* not one a writer made there */
	return false;
}

/**
 * ramtrail_saved_heal() - correct the saved traces' headers by their parity
 * @reg: region scanned (ramtrail_region_open()), in memory the caller may
 *	write
 * @boot_ids: the boot_id of each header corrected is stored there, up to
 *	RAMTRAIL_MAX_SAVED of them; or NULL
 *
 * Looks, outside the entries the scan found, at every 8 bytes whose word
 * is a magic with bits changed, or a magic whose checksum fails: each is
 * a header to correct if its parity makes it one whose entry ends before
 * the next entry found. The area is scanned again if one was corrected.
 *
 * Return: how many headers were corrected.
 */
u32 ramtrail_saved_heal(struct ramtrail_region *reg, u64 *boot_ids)
{
	const __le32 *area =
		(const __le32 *)(reg->base +
				 le64_to_cpu(reg->hdr.saved_offset));
	const struct ramtrail_saved_trace *t;
	u64 off, end, last;
	u32 healed = 0, i;

	if (!reg->base ||
	    le64_to_cpu(reg->hdr.saved_size) < RAMTRAIL_SAVED_HEAD_SLOT)
		return 0;
	last = le64_to_cpu(reg->hdr.saved_size) - RAMTRAIL_SAVED_HEAD_SLOT;
	for (off = 0; off <= last; off += 8) {
		u32 w = le32_to_cpu(READ_ONCE(area[off / 4]));

		if (!(off & (RAMTRAIL_SAVED_RESCHED - 1)))
			cond_resched();
		if (!ramtrail_saved_magic_near(w, ramtrail_saved_magic(reg)) ||
		    ramtrail_saved_signed(reg, off))
			continue;
		/* Not inside an entry found; one corrected ends by the next. */
		end = reg->saved_end;
		for (i = 0; i < reg->nr_saved; i++) {
			t = ramtrail_saved_at(reg, reg->saved[i]);
			if (t && reg->saved[i] <= off &&
			    reg->saved[i] + le64_to_cpu(t->size) > off)
				break;
			if (reg->saved[i] > off)
				end = min_t(u64, end, reg->saved[i]);
		}
		if (i < reg->nr_saved || !ramtrail_saved_heal_at(reg, off, end))
			continue;
		t = (const void *)(area + off / 4);
		if (boot_ids && healed < RAMTRAIL_MAX_SAVED)
			boot_ids[healed] = le64_to_cpu(t->boot_id);
		healed++;
		off += le64_to_cpu(t->size) - 8;	/* past its inside */
	}
	if (healed)
		ramtrail_saved_scan(reg);
	return healed;
}

/**
 * ramtrail_saved_next() - walk the saved traces of a region, oldest first
 * @reg: region with its layout validated (@reg->base set)
 * @pos: 0 to start, advanced past the entry returned
 *
 * Erased traces are returned too (ramtrail_saved_all_erased() tells). An
 * entry found by ramtrail_saved_scan() is checked again, so one that was
 * overwritten since is skipped.
 *
 * Return: the entry, or NULL at the end of the list.
 */
const struct ramtrail_saved_trace *
ramtrail_saved_next(const struct ramtrail_region *reg, u64 *pos)
{
	const struct ramtrail_saved_trace *t;

	while (*pos < reg->nr_saved) {
		t = ramtrail_saved_at(reg, reg->saved[(*pos)++]);
		if (t)
			return t;
	}
	return NULL;
}

/**
 * ramtrail_saved_place() - where a writer puts a new saved trace
 * @reg: region with its layout validated and its saved area scanned
 * @need: bytes of the whole new entry
 * @len: set to the bytes free at the offset returned
 *
 * Traces not fully erased stay where they are; erased ones and garbage are
 * free space. The first free span (by offset) that holds @need bytes is
 * chosen, else the largest one, where the caller keeps what fits. No span
 * goes past @reg->saved_end.
 *
 * Return: offset in the saved area of the span; *@len is 0 when there is
 * no room at all or RAMTRAIL_MAX_SAVED traces are kept already.
 */
u64 ramtrail_saved_place(const struct ramtrail_region *reg, u64 need,
			 u64 *len)
{
	const struct ramtrail_saved_trace *t;
	u64 best = 0, best_len = 0, start, end, o, pos;
	u32 live = 0, i;

	for (pos = 0; (t = ramtrail_saved_next(reg, &pos));)
		live += !ramtrail_saved_all_erased(t);
	*len = 0;
	if (live >= RAMTRAIL_MAX_SAVED)
		return 0;
	/* Each span starts at the area's start or at the end of a trace. */
	for (i = 0; i <= reg->nr_saved; i++) {
		start = 0;
		if (i < reg->nr_saved) {
			t = ramtrail_saved_at(reg, reg->saved[i]);
			if (!t || ramtrail_saved_all_erased(t))
				continue;
			start = reg->saved[i] + le64_to_cpu(t->size);
		}
		/* Never past the scan's end: an unlisted trace may lie there. */
		end = reg->saved_end;
		for (pos = 0; (t = ramtrail_saved_next(reg, &pos));) {
			if (ramtrail_saved_all_erased(t))
				continue;
			o = ramtrail_saved_offset(reg, t);
			if (o < start && o + le64_to_cpu(t->size) > start)
				end = 0;	/* inside a trace: no span */
			else if (o >= start && o < end)
				end = o;
		}
		if (end <= start)
			continue;
		if (end - start >= need && (best_len < need || start < best)) {
			best = start;
			best_len = end - start;
		} else if (best_len < need && (end - start > best_len ||
			   (end - start == best_len && start < best))) {
			best = start;
			best_len = end - start;
		}
	}
	*len = best_len;
	return best;
}
