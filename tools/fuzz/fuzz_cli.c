// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the whole ramtrail command: the input is the image
 * file, handed to ramtrail_main() as a path like a user's file; its last
 * byte also picks the command and options. Every path from the command
 * line to the output (region search, trace choice, pstore text parsing,
 * symbol binding, ftrace text, JSON and trace.dat writers) runs on input
 * nobody validated. Output goes to /dev/null. With the last byte's top
 * bit, the input is two pstore files, split at its first NUL: a trace's
 * ftrace-ramtrail-0 and the console-ramtrail-0 beside it (its header and
 * text), read by the crash command or decode.
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
static char ftrace_path[64], console_path[64],
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
	unlink(map_path);
	unlink(ftrace_path);
	unlink(console_path);
	rmdir(pstore_dir);
}

/* Write @len bytes of @data to @path, replacing it. */
static void put_file(const char *path, const u8 *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
}

/* The input as a trace's pstore files: the crash command or decode. */
static void run_pstore(const u8 *data, size_t size, u8 opt)
{
	const u8 *nul = memchr(data, 0, size);
	size_t split = nul ? (size_t)(nul - data) : size;
	char *argv[5], two[] = "--functions=2";
	int argc = 0;

	argv[argc++] = "ramtrail";
	argv[argc++] = opt & 1 ? "decode" : "crash";
	argv[argc++] = ftrace_path;
	if (opt & 2)
		argv[argc++] = two;
	argv[argc] = NULL;
	put_file(ftrace_path, data, split);
	put_file(console_path, data + split + !!nul, size - split - !!nul);
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
	snprintf(ftrace_path, sizeof(ftrace_path), "%s/ftrace-ramtrail-0", pstore_dir);
	snprintf(console_path, sizeof(console_path), "%s/console-ramtrail-0", pstore_dir);
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
