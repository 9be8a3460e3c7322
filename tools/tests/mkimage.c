// SPDX-License-Identifier: GPL-2.0
/*
 * Images for the ramtrail command's tests, written by the real writer:
 *
 *   DIR/region.img        a bare region: 3 CPUs, function records with and
 *                         without caller, events, a module's function
 *   DIR/ram.img           8 MiB of "RAM" holding that region at RAM_OFFSET
 *   DIR/System.map-test   the traced kernel's link-time symbols
 *   DIR/expect.txt        what decode --sym-offset must print: "CPU TIME TEXT"
 *
 * The traced kernel ran with a KASLR offset of KASLR bytes: the region's
 * anchor is panic's link-time address plus KASLR.
 */
#include <stdio.h>
#include <stdlib.h>
#include "testlib.h"

#define LINK_TEXT	0xffffffff81000000ULL
#define KASLR		0x1e00000ULL	/* 15 x 2 MiB */
#define NR_FUNCS	64
#define FUNC_SIZE	0x40
#define PANIC		(LINK_TEXT + NR_FUNCS * FUNC_SIZE)
#define MOD_BASE	0xffffffffc0200000ULL
#define MOD_SIZE	0x3000
#define RAM_SIZE	(8 << 20)
#define RAM_OFFSET	0x300000
#define RECORDS		600
#define STEP_NS		1500

static u64 now = 3000000000ULL;

u64 ramtrail_clock(void)
{
	return now;
}

static FILE *open_in(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	return f;
}

/* Offset of a function's runtime address (+ @off) from the text base. */
static u32 func(u32 i, u32 off)
{
	return LINK_TEXT + KASLR + i * FUNC_SIZE + off - TEST_TEXT_BASE;
}

int main(int argc, char **argv)
{
	struct ramtrail_module_entry *mod;
	struct test_region *t;
	FILE *map, *exp, *img;
	u8 *ram;
	u32 i, k;

	if (argc != 2) {
		fprintf(stderr, "usage: mkimage DIR\n");
		return 1;
	}
	t = test_region_new(3, 16, 0);
	snprintf(t->hdr->release, sizeof(t->hdr->release), "test");
	t->hdr->anchor_addr = PANIC + KASLR;
	mod = (void *)(t->mem + t->hdr->modtab_offset);
	mod->base = MOD_BASE;
	mod->size = MOD_SIZE;
	snprintf(mod->name, sizeof(mod->name), "rt_fake");
	mod->checksum = ramtrail_module_checksum(mod);
	test_region_seal(t);

	map = open_in(argv[1], "System.map-test");
	fprintf(map, "%016llx T _stext\n", LINK_TEXT);
	for (i = 0; i < NR_FUNCS; i++)
		fprintf(map, "%016llx %c f%u\n", LINK_TEXT + i * FUNC_SIZE,
			i % 2 ? 't' : 'T', i);
	fprintf(map, "%016llx T panic\n%016llx T _etext\n", PANIC,
		PANIC + FUNC_SIZE);
	fprintf(map, "%016llx D some_data\n", PANIC + 0x1000);
	fclose(map);

	exp = open_in(argv[1], "expect.txt");
	for (i = 0; i < RECORDS; i++) {
		struct ramtrail_ring *r = &t->ring[i % 3];
		u32 a = (i * 7) % NR_FUNCS, b = (i * 13 + 5) % NR_FUNCS;
		u32 data[RAMTRAIL_EVENT_MAX_LEN / 4 + 1] = { 0 };
		u32 len = i % 23, us;

		now += STEP_NS;
		us = (now + 500) / 1000;
		fprintf(exp, "%u %u.%06u ", i % 3, us / 1000000, us % 1000000);
		switch (i % 5) {
		case 0:
			ramtrail_ring_func(r, func(a, 0), 0);
			fprintf(exp, "f%u+0x0/0x40\n", a);
			break;
		case 1:
		case 2:
			ramtrail_ring_func(r, func(a, 0), func(b, 0x11));
			fprintf(exp, "f%u+0x0/0x40 <-f%u+0x11/0x40\n", a, b);
			break;
		case 3:
			for (k = 0; k < len; k++)
				((u8 *)data)[k] = i + k;
			ramtrail_ring_write(r, RAMTRAIL_W_EVENT,
					    RAMTRAIL_EVENT_HEAD(i, len), data,
					    DIV_ROUND_UP(len, 4));
			fprintf(exp, "ramtrail_event: id=%u len=%u data=", i, len);
			for (k = 0; k < len; k++)
				fprintf(exp, "%02x", (i + k) & 0xff);
			fprintf(exp, "\n");
			break;
		default:
			ramtrail_ring_func(r, MOD_BASE + 0x120 + i -
					   TEST_TEXT_BASE, func(b, 0x3));
			fprintf(exp, "[rt_fake]+0x%x <-f%u+0x3/0x40\n", 0x120 + i, b);
		}
	}
	fclose(exp);

	img = open_in(argv[1], "region.img");
	fwrite(t->mem, t->size, 1, img);
	fclose(img);

	/* Filler that is no region, with the region at RAM_OFFSET. */
	ram = malloc(RAM_SIZE);
	if (!ram || RAM_OFFSET + t->size > RAM_SIZE)
		return 2;
	for (i = 0; i < RAM_SIZE; i++)
		ram[i] = i * 2654435761U >> 24;
	memcpy(ram + RAM_OFFSET, t->mem, t->size);
	img = open_in(argv[1], "ram.img");
	fwrite(ram, RAM_SIZE, 1, img);
	fclose(img);
	free(ram);
	test_region_free(t);
	return 0;
}
