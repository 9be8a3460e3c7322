// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the fuzzer's seed corpus: small regions filled by the real writer
 * (fresh, one lap, many laps, every record kind, big clock gaps, zones
 * sealed when recording stopped), and damaged copies of them (torn words,
 * lost header, random block, flipped bits, truncation, future version).
 * Deterministic: same seeds every run. The corpus keeps two seeds of the
 * format before this one too (20-format7-*), for the readers of both.
 */
#include <stdio.h>
#include <stdlib.h>
#include "testlib.h"

static u64 now = 1000, step = 7;

u64 ramtrail_clock(void)
{
	now += step;
	return now;
}

static const char *dir;
static int nr;

static void save(const char *name, const void *p, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%02d-%s", dir, nr++, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static struct test_region *filled(u32 cpus, u32 records, bool gaps)
{
	struct test_region *t = test_region_new(cpus, 2, 0);
	u32 i, cont[4] = { 0x64636261, 0x68676665, 0x6c6b6a69, 0x706f6e6d };

	for (i = 0; i < records; i++) {
		struct ramtrail_ring *r = &t->ring[i % cpus];

		step = gaps && i % 5 == 0 ? RAMTRAIL_TS_SPAN + i : 7;
		switch (i % 3) {
		case 0:
			ramtrail_ring_func(r, i, 0);
			break;
		case 1:	/* pairs that repeat: FUNC_REF words */
			ramtrail_ring_func(r, 0x100 + i % 11, 0x900 + i % 11);
			break;
		default:
			ramtrail_ring_event(r, RAMTRAIL_EV_USER + (i & 0xff),
					    cont, i % 17);
		}
	}
	return t;
}

/*
 * Tasks switching, every context, ramtrail's own events with payloads of
 * their sizes: what the module saves of a kernel's trace.
 */
static struct test_region *with_tasks(u32 records)
{
	struct test_region *t = test_region_new(2, 2, 0);
	u32 i, cont[8] = { 0x64636261, 0x68676665, 0x6c6b6a69, 0x706f6e6d,
			   42, 120, 1, 7 };

	for (i = 0; i < records; i++) {
		struct ramtrail_ring *r = &t->ring[i % 2];

		ramtrail_user_env.task = 100 + i / 16 % 4;
		ramtrail_user_env.ctx = i / 5 % 4;
		if (i % 2)
			ramtrail_ring_func(r, 0x1000 + i % 13,
					   i % 3 ? 0x2000 : 0);
		else
			ramtrail_ring_event(r, 1 + i / 2 % (RAMTRAIL_EV_NR - 1),
					    cont, 4 + i % 29);
	}
	ramtrail_user_env.task = 1;
	ramtrail_user_env.ctx = RAMTRAIL_CTX_TASK;
	return t;
}

/*
 * Names to bind, for fuzz_cli's System.map: panic() at 0xffffffff81000100
 * (a KASLR delta of 0), f0 and f1 before it, the kernel entry's functions
 * 16 bytes apart after it; a module and its init text, records in each.
 */
static struct test_region *named(void)
{
	const u64 panic = 0xffffffff81000100ULL, mod = 0xffffffffc0200000ULL;
	struct test_region *t = test_region_new(2, 2, 0);
	struct ramtrail_module_entry *m;
	u64 off[RAMTRAIL_KERNEL_NR_FUNCS];
	u32 i;

	for (i = 0; i < RAMTRAIL_KERNEL_NR_FUNCS; i++)
		off[i] = (i + 1) * 0x10;
	t->hdr->anchor_addr = panic;
	m = (void *)(t->mem + t->hdr->modtab_offset);
	m[0] = (struct ramtrail_module_entry){
		.base = panic, .funcs_hash = ramtrail_kernel_hash(off),
		.flags = RAMTRAIL_MOD_KERNEL, .name = "vmlinux" };
	m[1] = (struct ramtrail_module_entry){
		.base = mod, .size = 0x2000, .core_size = 0x3000,
		.name = "rt_fuzz" };
	m[2] = (struct ramtrail_module_entry){
		.base = mod + 0x2000, .size = 0x1000, .init_end = 5000,
		.flags = RAMTRAIL_MOD_INIT, .name = "rt_fuzz" };
	for (i = 0; i < 3; i++)
		m[i].checksum = ramtrail_module_checksum(&m[i]);
	test_region_seal(t);
	for (i = 0; i < 400; i++)
		ramtrail_ring_func(&t->ring[i % 2],
				   (i % 3 ? panic - 0x100 + i % 0x80 :
				    mod + i % 0x3000) - TEST_TEXT_BASE,
				   i % 4 ? panic - 0xc0 - TEST_TEXT_BASE : 0);
	return t;
}

int main(int argc, char **argv)
{
	struct ramtrail_saved_trace *s;
	struct test_region *t;
	u64 *zone;
	u8 *p;
	u32 i;

	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds DIR\n");
		return 2;
	}
	dir = argv[1];
	srandom(7);

	t = filled(2, 0, false);
	save("fresh", t->mem, t->size);
	test_region_free(t);

	t = filled(2, 300, false);
	save("one-lap", t->mem, t->size);
	test_region_free(t);

	t = filled(1, 5000, true);
	save("laps-gaps", t->mem, t->size);
	zone = test_zone(t, 0);
	zone[0] = 0;
	zone[RAMTRAIL_BLOCK_WORDS + 5] &= ~0x30ULL;
	save("lost-header-torn", t->mem, t->size);
	for (i = 0; i < RAMTRAIL_BLOCK_WORDS; i++)
		zone[i] = (u64)random() << 32 ^ random();
	save("random-block", t->mem, t->size);
	save("truncated", t->mem, t->size - 5000);
	test_region_free(t);

	t = filled(3, 3000, false);
	for (i = 0; i < 40; i++)
		t->mem[t->hdr->zone_offset + random() % (t->size -
						t->hdr->zone_offset)] ^=
			1 << (random() % 8);
	save("bit-flips", t->mem, t->size);
	t->hdr->version = RAMTRAIL_VERSION + 1;
	test_region_seal(t);
	save("future-version", t->mem, t->size);
	test_region_free(t);

	/* What outlives a boot, behind a frozen header and a torn one. */
	t = filled(2, 200, false);
	test_add_saved(t, test_add_saved(t, 0, 1, 30)->size, 2, 50)->erased = 1;
	test_add_dmesg(t, "Kernel panic - not syncing: sysrq triggered crash");
	t->hdr->state = RAMTRAIL_STATE_FROZEN;
	t->hdr->freeze.reason = RAMTRAIL_FREEZE_PANIC;
	t->hdr->freeze.boot_id = t->hdr->boot_id;
	t->hdr->freeze.nr_zones = t->hdr->nr_cpus;
	t->hdr->freeze.checksum = ramtrail_freeze_checksum(&t->hdr->freeze);
	save("saved-dmesg-frozen", t->mem, t->size);
	t->hdr->nonce ^= 0xff00;
	save("torn-header", t->mem, t->size);
	test_region_free(t);

	/* A saved trace as the module writes it, the oldest left out. */
	t = with_tasks(600);
	s = test_save_zones(t, 0, 1, ramtrail_saved_fixed(0) +
			    3 * RAMTRAIL_SAVED_CHUNK_MIN,
			    RAMTRAIL_SAVED_CHUNK_MIN);
	save("saved-events", t->mem, t->size);
	/* Bytes changed in its header (two of its magic's) and chunks. */
	p = (u8 *)s;
	p[1] ^= 0x40;
	p[3] ^= 0x02;
	p[40] ^= 0xff;
	p[RAMTRAIL_SAVED_HEAD_SLOT + 50] ^= 0x11;
	p[RAMTRAIL_SAVED_HEAD_SLOT + RAMTRAIL_SAVED_CHUNK_MIN + 60] ^= 0x80;
	save("saved-bit-errors", t->mem, t->size);
	test_region_free(t);

	t = named();
	save("named", t->mem, t->size);
	test_region_free(t);

	/* Recording stopped, every zone sealed to where it stopped. */
	t = filled(2, 3000, false);
	test_region_stop(t, RAMTRAIL_FREEZE_OOPS, RAMTRAIL_STATE_FROZEN, true);
	save("sealed-frozen", t->mem, t->size);
	test_region_free(t);
	return 0;
}
