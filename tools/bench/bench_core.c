// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace microbenchmark of the record path and the decoder: the same
 * sources the module builds, with the CPU's counter as clock (the TSC,
 * CNTVCT_EL0). Prints medians of several repetitions. Asserts nothing:
 * it is a measurement, not a test.
 *
 * With --image, the decoder's rate over a region image and a census of
 * what its zones hold (make bench runs it on the guest's region). With
 * --decoder, only the decoder and the module's save of synthetic zones.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include "testlib.h"
#include "seal.h"

#define REPS		7
#define RECORDS		(8u << 20)
#define ZONE_BLOCKS	4096		/* 16 MiB per CPU */

/* The writers' zones: ZONE_BLOCKS, or --blocks N (a zone the caches hold). */
static u32 zone_blocks = ZONE_BLOCKS;

enum kind { FUNC, FUNC_PARENT, EVENT16, SWITCH_EVENT, TASK_SWITCH, NR_KINDS };

static const char *const kind_name[NR_KINDS] = {
	"function entry", "function entry + parent", "event, 16 B payload",
	"sched_switch event, 20 B", "task switch + sched_switch event",
};

struct job {
	struct ramtrail_ring *ring;
	enum kind kind;
	int cpu;
	pthread_barrier_t *start;
	double ns;
};

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* @n records of @kind into @ring, as a writer of that kind makes them. */
static void write_records(struct ramtrail_ring *ring, enum kind kind, u32 n)
{
	static const u32 data[4] = { 1, 2, 3, 4 };
	struct ramtrail_ev_switch e = { .prev_prio = 120, .next_prio = 120 };
	u32 i;

	for (i = 0; i < n; i++) {
		if (kind == TASK_SWITCH) {
			/* Another task runs: the sched_switch probe's call. */
			ramtrail_user_env.task = 1 + (i & 1);
			ramtrail_ring_task_switched(ring);
		}
		switch (kind) {
		case FUNC:
			ramtrail_ring_func(ring, 0x100000 + (i & 0xfff), 0);
			break;
		case FUNC_PARENT:
			ramtrail_ring_func(ring, 0x100000 + (i & 0xfff),
					   0x200000 + (i & 0x3ff));
			break;
		case EVENT16:
			ramtrail_ring_event(ring, RAMTRAIL_EV_USER + 7, data, 16);
			break;
		default:
			e.prev_pid = i;
			e.next_pid = i + 1;
			ramtrail_ring_event(ring, RAMTRAIL_EV_SCHED_SWITCH,
					    (const u32 *)&e, sizeof(e));
		}
	}
}

static void *run(void *arg)
{
	struct job *j = arg;
	double t0;

	pin(j->cpu);
	pthread_barrier_wait(j->start);
	t0 = now_ns();
	write_records(j->ring, j->kind, RECORDS);
	j->ns = (now_ns() - t0) / RECORDS;
	return NULL;
}

/*
 * --insn KIND N: N records of kind KIND (0 to NR_KINDS - 1) on one
 * thread, untimed: run under an instruction counter (valgrind's callgrind,
 * make bench-insn), N and 0, the difference over N is the record's
 * instructions and memory accesses.
 */
static int insn_run(const char *kind, const char *n)
{
	struct test_region *t = test_region_new(1, ZONE_BLOCKS, 0);
	int k = atoi(kind);

	if (k < 0 || k >= NR_KINDS)
		return 1;
	write_records(&t->ring[0], k, strtoul(n, NULL, 0));
	printf("%s: %s records, %ld bytes\n", kind_name[k], n,
	       local_read(&t->ring[0].pos));
	test_region_free(t);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* ns per record with @threads writers at once, one zone each. */
static double measure(enum kind kind, int threads, double *bytes)
{
	double ns[REPS];
	int rep, k;

	for (rep = 0; rep < REPS; rep++) {
		struct test_region *t = test_region_new(threads, zone_blocks, 0);
		pthread_barrier_t start;
		pthread_t tid[2];
		struct job job[2];
		double sum = 0;

		pthread_barrier_init(&start, NULL, threads);
		for (k = 0; k < threads; k++) {
			job[k] = (struct job){ &t->ring[k], kind, k, &start, 0 };
			pthread_create(&tid[k], NULL, run, &job[k]);
		}
		for (k = 0; k < threads; k++) {
			pthread_join(tid[k], NULL);
			sum += job[k].ns;
		}
		ns[rep] = sum / threads;
		*bytes = (double)local_read(&t->ring[0].pos) / RECORDS;
		pthread_barrier_destroy(&start);
		test_region_free(t);
	}
	return median(ns, REPS);
}

static double clock_read_ns(void)
{
	double ns[REPS], t0;
	u64 sum = 0;
	int rep, i;

	for (rep = 0; rep < REPS; rep++) {
		t0 = now_ns();
		for (i = 0; i < RECORDS; i++)
			sum += ramtrail_clock();
		ns[rep] = (now_ns() - t0) / RECORDS;
	}
	return median(ns, REPS) + (sum == 1);	/* keeps the reads */
}

/* A block's seal alone: the writer computes one per block it leaves. */
static double seal_ns(void)
{
	static __le64 block[RAMTRAIL_BLOCK_WORDS];
	double ns[REPS], t0;
	u64 sum = 0;
	int rep, i;

	for (i = 0; i < RAMTRAIL_BLOCK_WORDS; i++)
		block[i] = i * 0x9e3779b97f4a7c15ULL;
	for (rep = 0; rep < REPS; rep++) {
		t0 = now_ns();
		for (i = 0; i < RECORDS / 64; i++) {
			block[5] = i;
			sum += ramtrail_seal_value(block, RAMTRAIL_BLOCK_WORDS);
		}
		ns[rep] = (now_ns() - t0) / (RECORDS / 64);
	}
	return median(ns, REPS) + (sum == 1);
}

/* ramtrail_env_describe() alone: a task switch's task event has it. */
static double describe_ns(void)
{
	struct ramtrail_ev_task t;
	double ns[REPS], t0;
	u32 sum = 0;
	int rep, i;

	for (rep = 0; rep < REPS; rep++) {
		t0 = now_ns();
		for (i = 0; i < RECORDS / 16; i++) {
			ramtrail_env_describe(&t);
			sum += t.comm[5];
		}
		ns[rep] = (now_ns() - t0) / (RECORDS / 16);
	}
	return median(ns, REPS) + (sum == 1);
}

/* Records in a region, all zones merged. */
static size_t merge_all(const u8 *mem, u64 size)
{
	struct ramtrail_zone_cursor *cur;
	struct ramtrail_region reg;
	struct ramtrail_merge_slot heap[RAMTRAIL_MAX_CPUS];
	struct ramtrail_merge m;
	size_t n = 0;

	if (ramtrail_region_open(&reg, mem, size))
		return 0;
	cur = calloc(reg.hdr.nr_cpus, sizeof(*cur));
	ramtrail_merge_init(&m, &reg, cur, heap);
	while (ramtrail_merge_next(&m))
		n++;
	free(cur);
	return n;
}

/*
 * What a region's zones hold: records by kind, the task events between
 * them, and the zone bytes per record. One line "census key=value ..."
 * that make bench reads, then a table.
 */
static void zone_contents(const u8 *mem, u64 size)
{
	u64 funcs = 0, callers = 0, events = 0, sched = 0, irq = 0, log = 0;
	const struct ramtrail_record *rec;
	struct ramtrail_zone_cursor *cur;
	struct ramtrail_zone_stats sum;
	struct ramtrail_region reg;
	struct ramtrail_merge_slot heap[RAMTRAIL_MAX_CPUS];
	struct ramtrail_merge m;
	double bytes;

	if (ramtrail_region_open(&reg, mem, size))
		return;
	cur = calloc(reg.hdr.nr_cpus, sizeof(*cur));
	ramtrail_merge_init(&m, &reg, cur, heap);
	while ((rec = ramtrail_merge_next(&m))) {
		if (rec->type != RAMTRAIL_W_EVENT) {
			funcs++;
			callers += rec->type == RAMTRAIL_W_FUNC_PARENT;
			continue;
		}
		events++;
		if (rec->id >= RAMTRAIL_EV_SCHED_SWITCH &&
		    rec->id <= RAMTRAIL_EV_SCHED_WAKEUP_NEW)
			sched++;
		else if (rec->id >= RAMTRAIL_EV_IRQ_ENTRY &&
			 rec->id <= RAMTRAIL_EV_SOFTIRQ_RAISE)
			irq++;
		else if (rec->id == RAMTRAIL_EV_PRINTK)
			log++;
	}
	ramtrail_zone_stats_sum(&sum, cur, reg.hdr.nr_cpus);
	free(cur);
	bytes = (double)(sum.blocks << reg.hdr.block_shift);
	printf("census records=%llu functions=%llu with_caller=%llu",
	       (unsigned long long)sum.records, (unsigned long long)funcs,
	       (unsigned long long)callers);
	printf(" events=%llu sched=%llu irq=%llu printk=%llu",
	       (unsigned long long)events, (unsigned long long)sched,
	       (unsigned long long)irq, (unsigned long long)log);
	printf(" task_events=%llu no_task=%llu zone_bytes=%.0f\n",
	       (unsigned long long)sum.tasks, (unsigned long long)sum.no_task,
	       bytes);
	printf("\n| zones hold | records | share |\n|---|---|---|\n");
	printf("| function entries | %llu | %.3f |\n", (unsigned long long)funcs,
	       (double)funcs / (sum.records ? sum.records : 1));
	printf("| events | %llu | %.3f |\n", (unsigned long long)events,
	       (double)events / (sum.records ? sum.records : 1));
	printf("| task events (not records) | %llu | %.3f |\n",
	       (unsigned long long)sum.tasks,
	       (double)sum.tasks / (sum.records ? sum.records : 1));
	printf("| zone bytes per record, all included | %.1f | |\n",
	       sum.records ? bytes / sum.records : 0);
}

/*
 * Decoder throughput over a region, against memcpy of it; then the same
 * over the zones alone, the bytes the decoder reads (a region's saved
 * area, empty in a fresh crash's image, counts in the first only).
 */
static void decode_rate(const char *what, const u8 *mem, u64 size)
{
	double dec[REPS], cpy[REPS], t0, mb = size / 1e6, zones;
	u8 *copy = malloc(size);
	struct ramtrail_region reg;
	size_t n = 0;
	int rep;

	for (rep = 0; rep < REPS; rep++) {
		t0 = now_ns();
		n = merge_all(mem, size);
		dec[rep] = mb / ((now_ns() - t0) / 1e9);
		t0 = now_ns();
		memcpy(copy, mem, size);
		cpy[rep] = mb / ((now_ns() - t0) / 1e9);
	}
	printf("| decode + merge, %s | %10.0f MB/s | %zu records |\n", what,
	       median(dec, REPS), n);
	printf("| memcpy of the same region | %10.0f MB/s | decode/memcpy %.2f |\n",
	       median(cpy, REPS), median(dec, REPS) / median(cpy, REPS));
	if (!ramtrail_region_open(&reg, mem, size)) {
		zones = (double)ramtrail_zones_size(&reg.hdr) / size;
		printf("| decode + merge, per zone byte | %10.0f MB/s | ",
		       median(dec, REPS) * zones);
		printf("decode/memcpy %.2f (%.0f%% of the region is zones) |\n",
		       median(dec, REPS) * zones / median(cpy, REPS),
		       zones * 100);
	}
	free(copy);
}

/*
 * What the module's load does with a previous boot's full zones (@what):
 * merge them into the saved area, here a third of the zones' size as with
 * the module's default layout; its ring of chunks keeps the newest. With
 * the module's default parity (ecc=16), then none: their ratio is the
 * parity's cost. The parity of a chunk the ring overwrites later is
 * computed all the same.
 */
static void save_rate(struct test_region *t, const char *what)
{
	static const u32 eccs[] = { TEST_ECC, 0 };
	const struct ramtrail_saved_trace *s = NULL;
	double ms[REPS], t0, with = 0;
	int rep, i;

	for (i = 0; i < 2; i++) {
		test_ecc = eccs[i];
		for (rep = 0; rep < REPS; rep++) {
			t0 = now_ns();
			s = test_save_zones(t, 0, 1, 0, 0);
			ms[rep] = (now_ns() - t0) / 1e6;
		}
		printf("| save of %s into a third of their size, ecc=%u ",
		       what, eccs[i]);
		printf("| %10.1f ms | %llu records kept, ", median(ms, REPS),
		       (unsigned long long)s->nr_records);
		printf("%.1f bytes each, %llu chunks written for %u kept |\n",
		       (double)s->size / s->nr_records,
		       (unsigned long long)s->nr_chunks, s->nr_slots);
		if (!i)
			with = median(ms, REPS);
	}
	printf("| the parity's share of that save (ecc=%u) | %9.1f %% | in this run |\n",
	       TEST_ECC, 100 * (with - median(ms, REPS)) / with);
	test_ecc = TEST_ECC;
}

static void decode_synthetic(void)
{
	struct test_region *t = test_region_new(2, ZONE_BLOCKS, 0);
	struct test_region *s = test_region_new_saved(2, ZONE_BLOCKS, 0,
						      2 * ZONE_BLOCKS / 3 *
						      RAMTRAIL_BLOCK_SIZE);
	struct test_region *f = test_region_new_saved(2, ZONE_BLOCKS, 0,
						      2 * ZONE_BLOCKS / 3 *
						      RAMTRAIL_BLOCK_SIZE);
	u32 i;

	for (i = 0; i < 2 * ZONE_BLOCKS * 500; i++) {
		ramtrail_ring_func(&t->ring[i & 1], i & 0xffff, i & 0xfff);
		ramtrail_ring_func(&s->ring[i & 1], i & 0xffff, i & 0xfff);
		/* A quarter of that, on CPU 0, a few thousand pairs. */
		if (i % 4 == 0)
			ramtrail_ring_func(&f->ring[i & 1], i % 397, i % 13);
	}
	decode_rate("2 zones of 16 MiB", t->mem, t->size);
	save_rate(f, "a quarter as many records (nearly all kept)");
	save_rate(s, "zones of random pairs (4 times the area)");
	test_region_free(t);
	test_region_free(s);
	test_region_free(f);
}

/*
 * What the module's load does with the image's zones: merge them into a
 * saved trace at the start of the saved area, in a copy of the image.
 */
static void image_save_rate(const u8 *mem, u64 size)
{
	struct test_region t = { .size = size };
	const struct ramtrail_saved_trace *s = NULL;
	double ms[REPS], t0;
	u64 records;
	int rep;

	t.mem = malloc(size);
	t.hdr = (void *)t.mem;
	for (rep = 0; rep < REPS; rep++) {
		memcpy(t.mem, mem, size);
		t0 = now_ns();
		s = test_save_zones(&t, 0, t.hdr->boot_id, 0, 0);
		ms[rep] = (now_ns() - t0) / 1e6;
	}
	records = s ? s->nr_records : 0;
	free(t.mem);
	if (!records)
		return;
	printf("| save of the image's zones, as the module's load | %10.1f ms | ",
	       median(ms, REPS));
	printf("%llu records, %.1f ns each |\n", (unsigned long long)records,
	       median(ms, REPS) * 1e6 / records);
}

/* bench_core --image FILE --offset ADDR --size BYTES: decoder only. */
static int decode_image(char **argv)
{
	u64 off = strtoull(argv[3], NULL, 0), size = strtoull(argv[5], NULL, 0);
	int fd = open(argv[1], O_RDONLY);
	u8 *map;

	map = fd < 0 ? MAP_FAILED : mmap(NULL, off + size, PROT_READ,
					  MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		perror(argv[1]);
		return 1;
	}
	printf("| decoder | rate | note |\n|---|---|---|\n");
	decode_rate("guest image", map + off, size);
	image_save_rate(map + off, size);
	zone_contents(map + off, size);
	return 0;
}

int main(int argc, char **argv)
{
	double bytes, seal, clock, func_ns = 0;
	int k;

	if (argc >= 3 && !strcmp(argv[1], "--blocks")) {
		zone_blocks = strtoul(argv[2], NULL, 0);
		if (zone_blocks < RAMTRAIL_MIN_BLOCKS)
			return 1;
		argc -= 2;
		argv += 2;
	}
	if (argc == 7 && !strcmp(argv[1], "--image"))
		return decode_image(argv + 1);
	if (argc == 4 && !strcmp(argv[1], "--insn"))
		return insn_run(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "--decoder")) {
		printf("| decoder | rate | note |\n|---|---|---|\n");
		decode_synthetic();
		return 0;
	}

	printf("ramtrail core benchmark (userspace, this machine's counter as clock)\n");
	printf("%u records per run, median of %d runs; threads pinned, one zone each of %u KiB\n\n",
	       RECORDS, REPS, zone_blocks << (RAMTRAIL_BLOCK_SHIFT - 10));
	seal = seal_ns();
	printf("| record | threads | ns/record | bytes/record | of which block seals; note |\n");
	printf("|---|---|---|---|---|\n");
	for (k = 0; k < NR_KINDS; k++) {
		double ns1 = measure(k, 1, &bytes), ns2;
		/* One seal per block of records: its share of each. */
		double share = seal * bytes / RAMTRAIL_BLOCK_SIZE;

		printf("| %s | 1 | %.2f | %.1f | %.2f ns, %.1f %% |\n",
		       kind_name[k], ns1, bytes, share, 100 * share / ns1);
		ns2 = measure(k, 2, &bytes);
		printf("| %s | 2 | %.2f | %.1f | %.2fx one thread's |\n",
		       kind_name[k], ns2, bytes, ns2 / ns1);
		if (k == FUNC)
			func_ns = ns1;
	}
	clock = clock_read_ns();
	printf("| (clock read alone) | 1 | %.2f | - | a function entry %.2f ns more |\n",
	       clock, func_ns - clock);
	printf("| (a block's seal alone, %u bytes) | 1 | %.2f | - | |\n",
	       RAMTRAIL_BLOCK_SIZE, seal);
	/* snprintf() in userspace, a 24-byte copy in the kernel */
	printf("| (task description alone, userspace) | 1 | %.2f | - | |\n\n",
	       describe_ns());
	printf("| decoder | rate | note |\n|---|---|---|\n");
	decode_synthetic();
	printf("\nA benchmark, not a test: nothing here is asserted.\n");
	return 0;
}
