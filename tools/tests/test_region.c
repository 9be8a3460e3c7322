// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of fs/ramtrail/region.c: a region's header, layout and dmesg records.
 */
#include "test_decode.h"

static void test_zeroed_image_is_not_a_region(void)
{
	struct ramtrail_region reg;
	void *mem = calloc(1, 1 << 16);

	CHECK(ramtrail_region_open(&reg, mem, 1 << 16) == RAMTRAIL_E_MAGIC,
	      "zeroed image accepted");
	free(mem);
}

static void test_fresh_region_has_no_records(void)
{
	struct test_region *t = fresh(4, 8);

	CHECK(test_decode(t, out, MAXREC, &st) == 0, "records in fresh region");
	CHECK(st.blocks == 0 && st.corrupt_blocks == 0, "blocks %llu corrupt %llu",
	      (unsigned long long)st.blocks,
	      (unsigned long long)st.corrupt_blocks);
	test_region_free(t);
}

static void test_header_checks(void)
{
	struct test_region *t = fresh(2, 4);
	struct ramtrail_region reg;
	u64 zone_offset = t->hdr->zone_offset;

	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_OK, "ok");
	CHECK(ramtrail_region_open(&reg, t->mem, 100) == RAMTRAIL_E_SHORT,
	      "short");
	CHECK(ramtrail_region_open(&reg, t->mem, t->size - 1) ==
	      RAMTRAIL_E_GEOMETRY, "truncated image");
	t->hdr->version = RAMTRAIL_VERSION + 1;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_E_VERSION,
	      "future version");
	t->hdr->version = RAMTRAIL_VERSION;
	t->hdr->nr_cpus = 3;
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) ==
	      RAMTRAIL_E_CHECKSUM && reg.base, "zone field changed");
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) ==
	      RAMTRAIL_E_GEOMETRY && reg.bad && !strcmp(reg.bad, "zone_offset"),
	      "zones past the end: %s", reg.bad);
	t->hdr->nr_cpus = 2;
	t->hdr->zone_offset = ~0ULL - 4095;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) ==
	      RAMTRAIL_E_GEOMETRY, "offset overflow");
	t->hdr->zone_offset = zone_offset;
	t->hdr->dmesg_count = 2;
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) ==
	      RAMTRAIL_E_CHECKSUM && !reg.base, "layout field changed");
	t->hdr->dmesg_count = 0x80000000U;
	t->hdr->dmesg_size = 0x200000000ULL;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) ==
	      RAMTRAIL_E_GEOMETRY && !reg.base, "dmesg size overflow");
	t->hdr->dmesg_count = 1;
	t->hdr->dmesg_size = 1024;
	t->hdr->state = RAMTRAIL_STATE_FORMATTING;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_E_STATE,
	      "interrupted format");
	t->hdr->state = 77;
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_E_STATE,
	      "state out of range");
	t->hdr->state = RAMTRAIL_STATE_RECORDING;
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_OK,
	      "state is outside the checksum");
	test_region_free(t);
}

/* What a reset leaves behind in the header never hides what outlives a boot. */
/* A per-boot field out of bounds is named, and is not the geometry. */
static void test_header_field_out_of_bounds_is_named(void)
{
	static const char *const names[] = {
		"clock_hz", "clock_hz", "flags", "boot_id", "clock_ref_cycles",
	};
	struct ramtrail_region reg;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct test_region *t = fresh(2, 4);
		struct ramtrail_region_header *h = t->hdr;
		int err;

		switch (i) {
		case 0:
			h->clock_hz = RAMTRAIL_CLOCK_HZ_MAX + 1;
			break;
		case 1:
			h->clock_hz = RAMTRAIL_CLOCK_HZ_MIN - 1;
			break;
		case 2:
			h->flags |= 0x80;
			break;
		case 3:
			h->boot_id = 1ULL << 62;
			break;
		default:
			h->clock_ref_cycles = RAMTRAIL_CLOCK_MASK + 1;
		}
		test_region_seal(t);
		err = ramtrail_region_open(&reg, t->mem, t->size);
		CHECK(err == RAMTRAIL_E_FIELD && reg.bad &&
		      !strcmp(reg.bad, names[i]) && reg.base,
		      "case %u, %s: %s (%s)", i, names[i], ramtrail_strerror(err),
		      reg.bad);
		test_region_free(t);
	}
	CHECK(!strcmp(ramtrail_error_name(RAMTRAIL_E_FIELD), "field") &&
	      strstr(ramtrail_strerror(RAMTRAIL_E_FIELD), "field"),
	      "its name");
}

static void test_torn_or_formatting_header_keeps_saved_and_dmesg(void)
{
	struct test_region *t = fresh(2, 4);
	struct ramtrail_region reg;
	u64 off = 0;
	int i;

	test_add_saved(t, 0, 7, 10);
	test_add_dmesg(t, "Kernel panic - not syncing");
	for (i = 0; i < 3; i++) {
		if (i == 0)	/* a reset in the middle of the format */
			t->hdr->state = RAMTRAIL_STATE_FORMATTING;
		else if (i == 1)	/* per-boot fields half rewritten */
			t->hdr->nonce ^= 0x5a5a;
		else	/* the freeze record half written */
			t->hdr->freeze.cycles = 12345;
		reg.base = NULL;
		CHECK(i == 2 || ramtrail_region_open(&reg, t->mem, t->size) !=
		      RAMTRAIL_OK, "case %d: zones taken as valid", i);
		ramtrail_region_open(&reg, t->mem, t->size);
		CHECK(reg.base, "case %d: layout lost", i);
		off = 0;
		CHECK(ramtrail_saved_next(&reg, &off) &&
		      !ramtrail_saved_next(&reg, &off),
		      "case %d: saved trace lost", i);
		CHECK(ramtrail_dmesg_at(&reg, 0), "case %d: dmesg lost", i);
	}
	CHECK(!ramtrail_region_freeze(&reg), "torn freeze record taken");
	test_region_free(t);
}

/*
 * A flipped bit in the header's layout fails the layout checksum: nothing
 * of the region can be placed from it. Laid out again as it was made,
 * its saved trace and dmesg record, checked on their own, are found; in a
 * layout whose areas lie elsewhere, nothing is taken for them.
 */
static void test_lost_layout_keeps_what_checks_on_its_own(void)
{
	struct test_region *t = test_region_new_saved(2, 4, 0, 64 * 1024);
	struct ramtrail_region_header layout;
	struct ramtrail_region reg;
	int err;

	test_add_saved(t, 0, 1, 100);
	test_add_dmesg(t, "Kernel panic - not syncing: test");
	t->hdr->saved_size ^= 1ULL << 20;
	err = ramtrail_region_open(&reg, t->mem, t->size);
	CHECK(err == RAMTRAIL_E_CHECKSUM && !reg.base, "a damaged layout: %s",
	      ramtrail_strerror(err));
	CHECK(!ramtrail_layout(&layout, t->size, 2, 1, 1024, 64 * 1024, 16),
	      "the layout it was made in");
	ramtrail_region_open_layout(&reg, t->mem, t->size, &layout);
	CHECK(reg.base && reg.nr_saved == 1 && ramtrail_dmesg_at(&reg, 0),
	      "kept: %u saved, dmesg %d", reg.nr_saved,
	      !!ramtrail_dmesg_at(&reg, 0));
	CHECK(!ramtrail_layout(&layout, t->size, 2, 1, 1024, 32 * 1024, 400) &&
	      layout.dmesg_offset > t->hdr->saved_offset,
	      "a layout whose areas lie past the old ones");
	ramtrail_region_open_layout(&reg, t->mem, t->size, &layout);
	CHECK(reg.base && !reg.nr_saved && !ramtrail_dmesg_at(&reg, 0),
	      "another layout takes nothing: %u saved, dmesg %d", reg.nr_saved,
	      !!ramtrail_dmesg_at(&reg, 0));
	test_region_free(t);
}

static void test_dmesg_and_saved_checksums(void)
{
	struct test_region *t = fresh(1, 4);
	struct ramtrail_dmesg_header *d = test_add_dmesg(t, "Oops: 0002");
	struct ramtrail_saved_trace *s = test_add_saved(t, 0, 3, 4), *s2;
	struct ramtrail_dmesg_header *copy;
	struct ramtrail_region reg;
	u64 off = 0;

	s2 = test_add_saved(t, s->size, 4, 2);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_OK, "ok");
	((char *)(d + 1))[3] ^= 1;
	CHECK(!ramtrail_dmesg_at(&reg, 0), "damaged dmesg data accepted");
	((char *)(d + 1))[3] ^= 1;
	CHECK(ramtrail_dmesg_at(&reg, 0), "dmesg record rejected");
	/*
	 * pstore reads a copy of the slot: the copy is what is checked, and a
	 * length past the slot fails however the checksum came out.
	 */
	copy = calloc(1, reg.hdr.dmesg_size + 1);	/* + 1: the checksum below */
	memcpy(copy, d, reg.hdr.dmesg_size);
	CHECK(ramtrail_dmesg_valid(&reg.hdr, copy), "copy of a record rejected");
	copy->len = reg.hdr.dmesg_size - sizeof(*d) + 1;
	copy->checksum = ramtrail_dmesg_checksum(copy);
	CHECK(!ramtrail_dmesg_valid(&reg.hdr, copy), "length past the slot accepted");
	free(copy);
	/* An erase is one store outside the checksum: the list holds. */
	s->erased = 1;
	CHECK(ramtrail_saved_next(&reg, &off) == s &&
	      ramtrail_saved_next(&reg, &off) == s2, "erase broke the list");
	CHECK(ramtrail_saved_all_erased(s) && !ramtrail_saved_all_erased(s2),
	      "erased state");
	s->boot_id++;
	off = 0;
	CHECK(ramtrail_saved_next(&reg, &off) == s2 &&
	      !ramtrail_saved_next(&reg, &off),
	      "damaged entry accepted, or it hid the next one");
	test_region_free(t);
}

static void test_layout_refuses_regions_too_small_for_zones(void)
{
	struct ramtrail_region_header h;

	CHECK(ramtrail_layout(&h, 64 << 20, 4, 4, 16384, 1 << 20, 512) ==
	      RAMTRAIL_OK, "64M for 4 cpus");
	CHECK(h.zone_offset + (u64)4 * h.nr_blocks * RAMTRAIL_BLOCK_SIZE <=
	      64 << 20, "zones overflow the region");
	CHECK(ramtrail_layout(&h, 8 * 4096, 4, 0, 0, 0, 0) ==
	      RAMTRAIL_E_GEOMETRY, "one block per cpu accepted");
	CHECK(ramtrail_layout(&h, 64 << 20, 0, 0, 0, 0, 0) ==
	      RAMTRAIL_E_GEOMETRY, "zero cpus accepted");
	CHECK(ramtrail_layout(&h, 64 << 20, 1, 1, 12, 0, 0) ==
	      RAMTRAIL_E_GEOMETRY, "unaligned dmesg size accepted");
}

/*
 * The header names its machine; a reader refuses one it does not know.
 * The format before this one (its header without a machine, its saved
 * traces of their own magic) is read by ramtrail_region_read() only, and
 * a saved trace of one format is never found in a region of the other.
 */
static void test_machine_and_previous_format(void)
{
	struct test_region *t = test_region_new_saved(2, 4, 0, 64 * 1024);
	struct ramtrail_saved_trace *s = test_add_saved(t, 0, 1, 100);
	struct ramtrail_region reg;

	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_OK &&
	      reg.hdr.machine == RAMTRAIL_MACHINE_X86_64 && reg.nr_saved == 1,
	      "this format: %u saved", reg.nr_saved);
	t->hdr->machine = RAMTRAIL_MACHINE_X86_64 + 1;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_E_FIELD &&
	      reg.bad && !strcmp(reg.bad, "machine"), "unknown machine: %s",
	      reg.bad);
	t->hdr->machine = RAMTRAIL_MACHINE_AARCH64;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_OK,
	      "arm64 refused");
	t->hdr->version = RAMTRAIL_PREV_VERSION;
	t->hdr->machine = 0;
	test_region_seal(t);
	CHECK(ramtrail_region_open(&reg, t->mem, t->size) == RAMTRAIL_E_VERSION,
	      "the writer took the previous format");
	CHECK(ramtrail_region_read(&reg, t->mem, t->size) == RAMTRAIL_OK &&
	      reg.hdr.machine == RAMTRAIL_MACHINE_X86_64 && !reg.nr_saved,
	      "previous format: machine %u, %u saved of this format's magic",
	      reg.hdr.machine, reg.nr_saved);
	s->magic = RAMTRAIL_PREV_SAVED_MAGIC;
	s->checksum = ramtrail_saved_checksum(s);
	CHECK(ramtrail_region_read(&reg, t->mem, t->size) == RAMTRAIL_OK &&
	      reg.nr_saved == 1, "its saved trace not found");
	t->hdr->version = RAMTRAIL_VERSION;
	t->hdr->machine = RAMTRAIL_MACHINE_X86_64;
	test_region_seal(t);
	CHECK(ramtrail_region_read(&reg, t->mem, t->size) == RAMTRAIL_OK &&
	      !reg.nr_saved, "a saved trace of the previous format in this one");
	test_region_free(t);
}

void test_region_all(void)
{
	RUN(test_zeroed_image_is_not_a_region);
	RUN(test_fresh_region_has_no_records);
	RUN(test_header_checks);
	RUN(test_header_field_out_of_bounds_is_named);
	RUN(test_layout_refuses_regions_too_small_for_zones);
	RUN(test_torn_or_formatting_header_keeps_saved_and_dmesg);
	RUN(test_dmesg_and_saved_checksums);
	RUN(test_lost_layout_keeps_what_checks_on_its_own);
	RUN(test_machine_and_previous_format);
}
