/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The on-RAM format's every size and offset, checked at build time in the
 * module and in the tools (included by zone.c): a struct that changes
 * by one byte is a new format version, never an accident.
 */
#ifndef _RAMTRAIL_FORMAT_ASSERTS_H
#define _RAMTRAIL_FORMAT_ASSERTS_H

#include <linux/ramtrail.h>

#define RAMTRAIL_SIZE(type, size)					\
	_Static_assert(sizeof(struct type) == (size),			\
		       #type " changed size: a new format version")
#define RAMTRAIL_AT(type, field, off)					\
	_Static_assert(offsetof(struct type, field) == (off),		\
		       #type "." #field " moved: a new format version")

RAMTRAIL_SIZE(ramtrail_zone_info, 16);
RAMTRAIL_AT(ramtrail_zone_info, freeze_pos, 0);
RAMTRAIL_AT(ramtrail_zone_info, dropped, 8);
RAMTRAIL_SIZE(ramtrail_freeze_info, 3136);
RAMTRAIL_AT(ramtrail_freeze_info, checksum, 0);
RAMTRAIL_AT(ramtrail_freeze_info, reason, 4);
RAMTRAIL_AT(ramtrail_freeze_info, boot_id, 8);
RAMTRAIL_AT(ramtrail_freeze_info, cpu, 16);
RAMTRAIL_AT(ramtrail_freeze_info, nr_zones, 20);
RAMTRAIL_AT(ramtrail_freeze_info, cycles, 24);
RAMTRAIL_AT(ramtrail_freeze_info, clock_flags, 32);
RAMTRAIL_AT(ramtrail_freeze_info, reserved, 36);
RAMTRAIL_AT(ramtrail_freeze_info, zone, 40);
RAMTRAIL_AT(ramtrail_freeze_info, sealed, 3112);
RAMTRAIL_SIZE(ramtrail_region_header, 3648);
RAMTRAIL_AT(ramtrail_region_header, magic, 0);
RAMTRAIL_AT(ramtrail_region_header, version, 8);
RAMTRAIL_AT(ramtrail_region_header, header_size, 12);
RAMTRAIL_AT(ramtrail_region_header, checksum, 16);
RAMTRAIL_AT(ramtrail_region_header, state, 20);
RAMTRAIL_AT(ramtrail_region_header, region_size, 24);
RAMTRAIL_AT(ramtrail_region_header, modtab_offset, 32);
RAMTRAIL_AT(ramtrail_region_header, dmesg_offset, 40);
RAMTRAIL_AT(ramtrail_region_header, dmesg_size, 48);
RAMTRAIL_AT(ramtrail_region_header, saved_offset, 56);
RAMTRAIL_AT(ramtrail_region_header, saved_size, 64);
RAMTRAIL_AT(ramtrail_region_header, modtab_count, 72);
RAMTRAIL_AT(ramtrail_region_header, dmesg_count, 76);
RAMTRAIL_AT(ramtrail_region_header, layout_checksum, 80);
RAMTRAIL_AT(ramtrail_region_header, machine, 84);
RAMTRAIL_AT(ramtrail_region_header, zone_offset, 88);
RAMTRAIL_AT(ramtrail_region_header, block_shift, 96);
RAMTRAIL_AT(ramtrail_region_header, nr_cpus, 100);
RAMTRAIL_AT(ramtrail_region_header, nr_blocks, 104);
RAMTRAIL_AT(ramtrail_region_header, flags, 108);
RAMTRAIL_AT(ramtrail_region_header, phys_addr, 112);
RAMTRAIL_AT(ramtrail_region_header, nonce, 120);
RAMTRAIL_AT(ramtrail_region_header, boot_id, 128);
RAMTRAIL_AT(ramtrail_region_header, text_base, 136);
RAMTRAIL_AT(ramtrail_region_header, anchor_addr, 144);
RAMTRAIL_AT(ramtrail_region_header, clock_hz, 152);
RAMTRAIL_AT(ramtrail_region_header, clock_ref_cycles, 160);
RAMTRAIL_AT(ramtrail_region_header, clock_ref_ns, 168);
RAMTRAIL_AT(ramtrail_region_header, release, 176);
RAMTRAIL_AT(ramtrail_region_header, build, 240);
RAMTRAIL_AT(ramtrail_region_header, reserved, 304);
RAMTRAIL_AT(ramtrail_region_header, freeze, 512);
RAMTRAIL_SIZE(ramtrail_module_entry, 120);
RAMTRAIL_AT(ramtrail_module_entry, base, 0);
RAMTRAIL_AT(ramtrail_module_entry, size, 8);
RAMTRAIL_AT(ramtrail_module_entry, core_size, 16);
RAMTRAIL_AT(ramtrail_module_entry, flags, 24);
RAMTRAIL_AT(ramtrail_module_entry, checksum, 28);
RAMTRAIL_AT(ramtrail_module_entry, name, 32);
RAMTRAIL_AT(ramtrail_module_entry, gone, 88);
RAMTRAIL_AT(ramtrail_module_entry, init_end, 96);
RAMTRAIL_AT(ramtrail_module_entry, full_since, 104);
RAMTRAIL_AT(ramtrail_module_entry, funcs_hash, 112);
RAMTRAIL_SIZE(ramtrail_dmesg_header, 48);
RAMTRAIL_AT(ramtrail_dmesg_header, magic, 0);
RAMTRAIL_AT(ramtrail_dmesg_header, len, 4);
RAMTRAIL_AT(ramtrail_dmesg_header, boot_id, 8);
RAMTRAIL_AT(ramtrail_dmesg_header, time_ns, 16);
RAMTRAIL_AT(ramtrail_dmesg_header, reason, 24);
RAMTRAIL_AT(ramtrail_dmesg_header, part, 28);
RAMTRAIL_AT(ramtrail_dmesg_header, compressed, 32);
RAMTRAIL_AT(ramtrail_dmesg_header, count, 36);
RAMTRAIL_AT(ramtrail_dmesg_header, checksum, 40);
RAMTRAIL_AT(ramtrail_dmesg_header, reserved, 44);
RAMTRAIL_SIZE(ramtrail_saved_trace, 288);
_Static_assert(RAMTRAIL_SAVED_HEAD_SLOT ==
	       sizeof(struct ramtrail_saved_trace) + RAMTRAIL_SAVED_HEAD_PARITY,
	       "the header's slot is the header and its parity");
RAMTRAIL_AT(ramtrail_saved_trace, magic, 0);
RAMTRAIL_AT(ramtrail_saved_trace, checksum, 4);
RAMTRAIL_AT(ramtrail_saved_trace, erased, 8);
RAMTRAIL_AT(ramtrail_saved_trace, size, 16);
RAMTRAIL_AT(ramtrail_saved_trace, boot_id, 24);
RAMTRAIL_AT(ramtrail_saved_trace, nonce, 32);
RAMTRAIL_AT(ramtrail_saved_trace, nr_records, 40);
RAMTRAIL_AT(ramtrail_saved_trace, text_base, 48);
RAMTRAIL_AT(ramtrail_saved_trace, anchor_addr, 56);
RAMTRAIL_AT(ramtrail_saved_trace, nr_cpus, 64);
RAMTRAIL_AT(ramtrail_saved_trace, state, 68);
RAMTRAIL_AT(ramtrail_saved_trace, freeze_reason, 72);
RAMTRAIL_AT(ramtrail_saved_trace, freeze_cpu, 76);
RAMTRAIL_AT(ramtrail_saved_trace, modtab_count, 80);
RAMTRAIL_AT(ramtrail_saved_trace, flags, 84);
RAMTRAIL_AT(ramtrail_saved_trace, dropped, 88);
RAMTRAIL_AT(ramtrail_saved_trace, corrupt_blocks, 96);
RAMTRAIL_AT(ramtrail_saved_trace, torn, 104);
RAMTRAIL_AT(ramtrail_saved_trace, lost_words, 112);
RAMTRAIL_AT(ramtrail_saved_trace, no_time, 120);
RAMTRAIL_AT(ramtrail_saved_trace, skipped, 128);
RAMTRAIL_AT(ramtrail_saved_trace, chunk_size, 136);
RAMTRAIL_AT(ramtrail_saved_trace, nr_slots, 140);
RAMTRAIL_AT(ramtrail_saved_trace, nr_chunks, 144);
RAMTRAIL_AT(ramtrail_saved_trace, ecc, 152);
RAMTRAIL_AT(ramtrail_saved_trace, reserved, 156);
RAMTRAIL_AT(ramtrail_saved_trace, release, 160);
RAMTRAIL_AT(ramtrail_saved_trace, build, 224);
RAMTRAIL_SIZE(ramtrail_saved_chunk, 32);
RAMTRAIL_AT(ramtrail_saved_chunk, checksum, 0);
RAMTRAIL_AT(ramtrail_saved_chunk, len, 4);
RAMTRAIL_AT(ramtrail_saved_chunk, seq, 8);
RAMTRAIL_AT(ramtrail_saved_chunk, ns, 16);
RAMTRAIL_AT(ramtrail_saved_chunk, records, 24);
RAMTRAIL_AT(ramtrail_saved_chunk, reserved, 28);
/* A FUNC_REF names any word of a block, and its fields do not overlap. */
_Static_assert(RAMTRAIL_REF_WORD_MASK + 1 == RAMTRAIL_BLOCK_SIZE / 8 &&
	       (RAMTRAIL_REF_WORD_MASK << RAMTRAIL_REF_WORD_SHIFT &
		(RAMTRAIL_REF_BACK_MAX << RAMTRAIL_REF_BACK_SHIFT |
		 RAMTRAIL_CTX_MASK)) == 0 &&
	       RAMTRAIL_REF_WORD_SHIFT + 9 == RAMTRAIL_REF_BACK_SHIFT &&
	       RAMTRAIL_REF_BACK_MAX << RAMTRAIL_REF_BACK_SHIFT <
	       1U << RAMTRAIL_REF_CHECK_SHIFT,
	       "FUNC_REF fields: a new format version");

#endif /* _RAMTRAIL_FORMAT_ASSERTS_H */
