// SPDX-License-Identifier: GPL-2.0
/*
 * The module tables of the format before this one (RAMTRAIL_PREV_VERSION,
 * region.h), in this format's entries for the rest of the tool. Its
 * entries are this one's first 96 bytes; their core_size held what the
 * flags said: the init's end (RAMTRAIL_MOD_INIT), when the table filled
 * (RAMTRAIL_MOD_FULL), the hash of the kernel's build
 * (RAMTRAIL_MOD_KERNEL) or of the module's functions (RT_PREV_MOD_SYMS),
 * else the core's size. Its checksum covers those 96 bytes as this
 * format's covers the whole entry.
 */
#include <stdlib.h>
#include <string.h>
#include "ramtrail.h"

#define RT_PREV_MOD_SYMS	BIT(3)

_Static_assert(offsetof(struct ramtrail_module_entry, init_end) ==
	       RAMTRAIL_PREV_MODULE_ENTRY_SIZE,
	       "the previous format's entry is this one's first bytes");

/* Entry @e of the previous format, read into this format's @e. */
static void rt_prev_entry(struct ramtrail_module_entry *e)
{
	bool whole = le32_to_cpu(e->checksum) ==
		     ramtrail_module_checksum_len(e, RAMTRAIL_PREV_MODULE_ENTRY_SIZE);
	u64 v = le64_to_cpu(e->core_size);

	e->core_size = 0;
	if (le32_to_cpu(e->flags) & RAMTRAIL_MOD_INIT)
		e->init_end = cpu_to_le64(v);
	else if (le32_to_cpu(e->flags) & RAMTRAIL_MOD_FULL)
		e->full_since = cpu_to_le64(v);
	else if (le32_to_cpu(e->flags) & (RAMTRAIL_MOD_KERNEL | RT_PREV_MOD_SYMS))
		e->funcs_hash = cpu_to_le64(v);
	else
		e->core_size = cpu_to_le64(v);
	e->flags &= ~cpu_to_le32(RT_PREV_MOD_SYMS);
	/* Damaged there, damaged here. */
	e->checksum = cpu_to_le32(ramtrail_module_checksum(e) ^ !whole);
}

/**
 * rt_modules_prev() - a module table of the previous format, converted
 * @raw: its @n entries of RAMTRAIL_PREV_MODULE_ENTRY_SIZE bytes
 * @n: entries
 *
 * Return: @n entries of this format (free() them), whose checksum holds
 * where the original's did; NULL if memory runs out.
 */
struct ramtrail_module_entry *rt_modules_prev(const void *raw, u32 n)
{
	struct ramtrail_module_entry *e = calloc(n ?: 1, sizeof(*e));
	u32 i;

	if (!e)
		return NULL;
	for (i = 0; i < n; i++) {
		memcpy(&e[i], (const u8 *)raw + (u64)i *
		       RAMTRAIL_PREV_MODULE_ENTRY_SIZE,
		       RAMTRAIL_PREV_MODULE_ENTRY_SIZE);
		rt_prev_entry(&e[i]);
	}
	return e;
}
