// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the whole ramtrail command: the input is the image
 * file, handed to ramtrail_main() as a path like a user's file; its last
 * byte also picks the command and options. Every path from the command
 * line to the output (region search, trace choice, pstore text parsing,
 * symbol binding, ftrace text, JSON and trace.dat writers) runs on input
 * nobody validated. Output goes to /dev/null. With the last byte's top
 * bit, the input is a trace's pstore files, split at its NULs: part 0's
 * ftrace-ramtrail-0 and its text, console-ramtrail-0 and -1 (chained),
 * then part 1's ftrace-ramtrail-1 (none if empty) and console-ramtrail-100;
 * their headers may be of one trace or of two. What the collector runs
 * reads them: crash, decode, export to trace.dat and Perfetto, of part 0
 * or both, each part by its ftrace file or its first text file. With the
 * top bit and bit 5, the input is journalctl -o json's lines, which
 * ramtrail fleet groups (its JSON reader, trust, grouping and printers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "chunk.h"
#include "ramtrail.h"

static int image_fd = -1;
static char image_path[64], map_path[] = "/tmp/ramtrail-fuzz-map-XXXXXX";

/* The pstore files, in the order the input gives them. */
static const char *const pstore_names[] = {
	"ftrace-ramtrail-0", "console-ramtrail-0", "console-ramtrail-1",
	"ftrace-ramtrail-1", "console-ramtrail-100",
};

#define FUZZ_PSTORE_FILES	ARRAY_SIZE(pstore_names)

static char pstore_path[FUZZ_PSTORE_FILES][80], fleet_path[80],
	    pstore_dir[] = "/tmp/ramtrail-fuzz-pstore-XXXXXX";

/*
 * A small System.map whose panic() makes a KASLR delta of 0 plausible,
 * the functions of a kernel entry after it, each FUZZ_KFUNC_STEP further
 * (mkseeds' "named" seed hashes the same places).
 */
static const char fuzz_map[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T f0\n"
	"ffffffff81000040 t f1\n"
	"ffffffff81000100 T panic\n";
#define FUZZ_PANIC		0xffffffff81000100ULL
#define FUZZ_KFUNC_STEP		0x10

static void remove_map(void)
{
	u32 i;

	unlink(map_path);
	for (i = 0; i < FUZZ_PSTORE_FILES; i++)
		unlink(pstore_path[i]);
	unlink(fleet_path);
	rmdir(pstore_dir);
}

/* Write @len bytes of @data to @path, replacing it. */
static void put_file(const char *path, const u8 *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
}

/*
 * The input as a trace's pstore files: @opt bit 0 decode (else crash),
 * bit 6 export instead (bit 1: Perfetto, else trace.dat), bit 1 of crash
 * --functions=2, bit 3 part 1 too, bit 4 part 0 by its first text file.
 */
static void run_pstore(const u8 *data, size_t size, u8 opt)
{
	char *argv[8], two[] = "--functions=2", o[] = "-o", null[] = "/dev/null";
	char perfetto[] = "--format=perfetto";
	const u8 *p = data, *end = data + size, *nul;
	int argc = 0;
	u32 i;

	for (i = 0; i < FUZZ_PSTORE_FILES; i++) {
		unlink(pstore_path[i]);
		if (p > end)
			continue;
		nul = memchr(p, 0, end - p);
		/* an empty part 1 ftrace file: a part of events alone */
		if (i != 3 || (nul ? nul : end) > p)
			put_file(pstore_path[i], p, (nul ? nul : end) - p);
		p = nul ? nul + 1 : end + 1;
	}
	argv[argc++] = "ramtrail";
	argv[argc++] = opt & 64 ? "export" : opt & 1 ? "decode" : "crash";
	argv[argc++] = pstore_path[opt & 16 ? 1 : 0];
	if (opt & 8)
		argv[argc++] = pstore_path[access(pstore_path[3], F_OK) ? 4 : 3];
	if (opt & 64) {
		argv[argc++] = o;
		argv[argc++] = null;
		if (opt & 2)
			argv[argc++] = perfetto;
	} else if (opt & 2) {
		argv[argc++] = two;
	}
	argv[argc] = NULL;
	ramtrail_main(argc, argv);
}

/*
 * The input as journal lines for ramtrail fleet: @opt bit 0 --format json,
 * bit 1 csv, bit 2 --trust-any, bit 3 --new-since.
 */
static void run_fleet(const u8 *data, size_t size, u8 opt)
{
	char *argv[8], trust[] = "--trust-any", since[] = "--new-since=2026-01-02";
	char json[] = "--format=json", csv[] = "--format=csv";
	int argc = 0;

	put_file(fleet_path, data, size);
	argv[argc++] = "ramtrail";
	argv[argc++] = "fleet";
	argv[argc++] = fleet_path;
	if (opt & 1)
		argv[argc++] = json;
	else if (opt & 2)
		argv[argc++] = csv;
	if (opt & 4)
		argv[argc++] = trust;
	if (opt & 8)
		argv[argc++] = since;
	argv[argc] = NULL;
	ramtrail_main(argc, argv);
}

static void setup(void)
{
	FILE *f;
	int fd;
	u32 i;

	image_fd = memfd_create("ramtrail-fuzz-image", 0);
	fd = mkstemp(map_path);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (image_fd < 0 || !f || fputs(fuzz_map, f) < 0)
		abort();
	for (i = 0; i < RAMTRAIL_KERNEL_NR_FUNCS; i++)
		fprintf(f, "%016llx T %s\n",
			FUZZ_PANIC + (i + 1) * FUZZ_KFUNC_STEP,
			ramtrail_kernel_funcs[i]);
	fprintf(f, "%016llx T _etext\n", FUZZ_PANIC + (i + 1) * FUZZ_KFUNC_STEP);
	if (fclose(f) || !mkdtemp(pstore_dir))
		abort();
	for (i = 0; i < FUZZ_PSTORE_FILES; i++)
		snprintf(pstore_path[i], sizeof(pstore_path[i]), "%s/%s",
			 pstore_dir, pstore_names[i]);
	snprintf(fleet_path, sizeof(fleet_path), "%s/journal.json", pstore_dir);
	atexit(remove_map);
	snprintf(image_path, sizeof(image_path), "/proc/self/fd/%d", image_fd);
	if (!freopen("/dev/null", "w", stdout))
		abort();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static const char *const commands[][4] = {
		{ "decode" }, { "stats" },
		{ "export", "-o", "/dev/null" },
		{ "export", "--format=json", "-o", "/dev/null" },
		{ "export", "--format=perfetto", "-o", "/dev/null" },
	};
	char *argv[16], boot[] = "--boot=1", offset[] = "--offset=0";
	char sym_offset[] = "--sym-offset", smap[] = "--system-map";
	u8 opt = size ? data[size - 1] : 0;
	int argc = 0, i, c = opt & 64 ? 4 : opt & 3;

	if (image_fd < 0)
		setup();
	if ((opt & 160) == 160) {
		run_fleet(data, size ? size - 1 : 0, opt);
		return 0;
	}
	if (opt & 128) {
		run_pstore(data, size ? size - 1 : 0, opt);
		return 0;
	}
	if (ftruncate(image_fd, 0) || pwrite(image_fd, data, size, 0) != size)
		abort();
	argv[argc++] = "ramtrail";
	for (i = 0; i < 4 && commands[c][i]; i++)
		argv[argc++] = (char *)commands[c][i];
	argv[argc++] = image_path;
	if (opt & 4)
		argv[argc++] = sym_offset;
	if (opt & 8)
		argv[argc++] = boot;
	if (opt & 16)
		argv[argc++] = offset;
	if (opt & 32) {
		argv[argc++] = smap;
		argv[argc++] = map_path;
	}
	argv[argc] = NULL;
	ramtrail_main(argc, argv);
	return 0;
}
