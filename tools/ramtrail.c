// SPDX-License-Identifier: GPL-2.0
/*
 * ramtrail: read a ramtrail region from an image (a QEMU -mem-path file, a
 * dump of the reserved range) with the decoder the module uses.
 *
 *   ramtrail stats  IMAGE [--offset ADDR] [--size SIZE]
 *   ramtrail decode IMAGE [--offset ADDR] [--size SIZE]
 *
 * Exit codes: 0 ok, 1 usage, 2 cannot read the image, 3 no valid region.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "recover.h"

static const char *const state_names[] = {
	"empty", "formatting", "recording", "frozen", "stopped", "saved",
};

static void bad_usage(void)
{
	fprintf(stderr, "usage: ramtrail stats|decode IMAGE [--offset ADDR] [--size SIZE]\n");
	exit(1);
}

/* A size or address: 0x10000000, 64M, 1G. */
static u64 number(const char *s)
{
	static const char units[] = "KMG";
	const char *unit;
	char *end;
	u64 v = strtoull(s, &end, 0);

	unit = *end ? strchr(units, *end & ~0x20) : NULL;
	if (unit) {
		v <<= 10 * (unit - units + 1);
		end++;
	}
	if (*end)
		bad_usage();
	return v;
}

static void stats(const struct ramtrail_region *reg)
{
	const struct ramtrail_region_header *h = &reg->hdr;
	struct ramtrail_zone_cursor c;
	const struct ramtrail_saved_trace *t;
	u64 off = 0;
	u32 cpu;

	printf("version %u\nboot_id %llu\nstate %s\n", h->version,
	       (unsigned long long)h->boot_id,
	       h->state < 6 ? state_names[h->state] : "?");
	printf("freeze_reason %u\nfreeze_cpu %u\n", h->freeze_reason,
	       h->freeze_cpu);
	printf("clock_reliable %d\nclock_hz %llu\n",
	       !!(h->flags & RAMTRAIL_F_CLOCK_RELIABLE),
	       (unsigned long long)h->clock_hz);
	printf("nr_cpus %u\nnr_blocks %u\nzone_offset %llu\nzone_size %llu\n",
	       h->nr_cpus, h->nr_blocks, (unsigned long long)h->zone_offset,
	       (unsigned long long)h->nr_blocks << RAMTRAIL_BLOCK_SHIFT);
	printf("saved_offset %llu\nsaved_size %llu\n",
	       (unsigned long long)h->saved_offset,
	       (unsigned long long)h->saved_size);
	for (cpu = 0; cpu < h->nr_cpus; cpu++) {
		ramtrail_zone_open(&c, reg, cpu);
		while (ramtrail_zone_next(&c))
			;
		printf("cpu%u records %llu corrupt_blocks %llu torn %llu ",
		       cpu, (unsigned long long)c.stats.records,
		       (unsigned long long)c.stats.corrupt_blocks,
		       (unsigned long long)c.stats.torn);
		printf("lost_words %llu no_base %llu dropped %llu newest_block %lld\n",
		       (unsigned long long)c.stats.lost_words,
		       (unsigned long long)c.stats.no_base,
		       (unsigned long long)h->cpu[cpu].dropped,
		       (long long)c.stats.newest_block);
	}
	while ((t = ramtrail_saved_next(reg, &off)))
		printf("saved boot %llu records %llu cpus %u erased %d\n",
		       (unsigned long long)t->boot_id,
		       (unsigned long long)t->nr_records, t->nr_cpus,
		       t->magic == RAMTRAIL_SAVED_ERASED);
}

static void decode(const struct ramtrail_region *reg)
{
	struct ramtrail_zone_cursor *cur = calloc(reg->hdr.nr_cpus, sizeof(*cur));
	const struct ramtrail_record *r;
	u32 heap[RAMTRAIL_MAX_CPUS];
	struct ramtrail_merge m;

	ramtrail_merge_init(&m, reg, cur, heap);
	while ((r = ramtrail_merge_next(&m))) {
		u64 ns = ramtrail_ts_to_ns(&reg->hdr, r->ts);

		printf("[%03u] %llu.%06llu:", r->cpu,
		       (unsigned long long)(ns / 1000000000),
		       (unsigned long long)(ns % 1000000000 / 1000));
		if (r->type == RAMTRAIL_W_EVENT)
			printf(" event %u len %u\n", r->id, r->len);
		else
			printf(" %#llx <- %#llx\n",
			       (unsigned long long)(reg->hdr.text_base + r->ip),
			       (unsigned long long)(r->parent ?
				reg->hdr.text_base + r->parent : 0));
	}
	free(cur);
}

int main(int argc, char **argv)
{
	u64 offset = 0, size = 0;
	struct ramtrail_region reg;
	struct stat st;
	void *map;
	int i, fd, err;

	if (argc < 3)
		bad_usage();
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--offset") && i + 1 < argc)
			offset = number(argv[++i]);
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			size = number(argv[++i]);
		else
			bad_usage();
	}
	fd = open(argv[2], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "ramtrail: %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	if (offset >= (u64)st.st_size) {
		fprintf(stderr, "ramtrail: %s: offset past the end\n", argv[2]);
		return 2;
	}
	if (!size || size > st.st_size - offset)
		size = st.st_size - offset;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "ramtrail: %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	err = ramtrail_region_open(&reg, (u8 *)map + offset, size);
	if (err) {
		fprintf(stderr, "ramtrail: %s: %s\n", argv[2],
			ramtrail_strerror(err));
		return 3;
	}
	if (!strcmp(argv[1], "stats"))
		stats(&reg);
	else if (!strcmp(argv[1], "decode"))
		decode(&reg);
	else
		bad_usage();
	return 0;
}
