// SPDX-License-Identifier: GPL-2.0
/*
 * ramtrail: read a crashed machine's trace from an image (a QEMU -mem-path
 * file, a dump of the reserved range, a pstore file) with the decoder the
 * module uses. The manual is Documentation/ramtrail/ramtrail.1.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "ramtrail.h"

static const char usage[] =
"usage: ramtrail decode IMAGE [options]   print the trace (ftrace text)\n"
"       ramtrail decode ftrace-ramtrail-0 ftrace-ramtrail-1 ... [options]\n"
"                                         the parts of one trace in pstore\n"
"       ramtrail export IMAGE -o FILE [options]\n"
"                                         write trace.dat (trace-cmd, KernelShark),\n"
"                                         a Perfetto trace or Chrome JSON\n"
"       ramtrail stats IMAGE [options]    what the image holds, drop counts\n"
"                                         (--format json: one JSON object)\n"
"       ramtrail crash ftrace-ramtrail-N ... [--functions N]\n"
"                                         the crash record of a trace from its\n"
"                                         pstore files (archived by systemd-pstore),\n"
"                                         as journal fields (logger --journald)\n"
"       ramtrail kallsyms IMAGE [--system-map FILE] [--modules DIR]\n"
"                                         the traced boot's symbols, as its\n"
"                                         /proc/kallsyms would list them\n"
"                                         (one of the two options at least)\n"
"       ramtrail fleet [FILE | --directory DIR] [--new-since TIME] [--trust-any]\n"
"                                         many machines' crash records (the\n"
"                                         journal, journal-remote's files in DIR,\n"
"                                         or journalctl -o json lines in FILE or\n"
"                                         - for standard input), grouped by\n"
"                                         signature, most frequent first\n"
"       ramtrail --help | --version\n"
"\n"
"IMAGE: a bare region, a RAM image holding one (QEMU -mem-path file, dump\n"
"of RAM), or a pstore ftrace-ramtrail-N file.\n"
"\n"
"options:\n"
"  --offset ADDR       the region starts at ADDR in IMAGE (default: search)\n"
"  --size SIZE         the region is at most SIZE bytes (K, M, G suffixes)\n"
"  --boot N            the trace of boot N (default: the newest)\n"
"  --system-map FILE   name kernel functions; the traced kernel's System.map\n"
"  --modules DIR       name module functions from the .ko files below DIR\n"
"  --format FORMAT     decode: ftrace (default) or json;\n"
"                      export: tracedat (default), perfetto or json;\n"
"                      stats: text (default) or json;\n"
"                      fleet: text (default), json or csv\n"
"  --sym-offset        decode: print +offset/size after names\n"
"  --functions N       crash: name the last N functions (default 8, at most 64)\n"
"  --directory DIR     fleet: read the journal files in DIR (journal-remote's)\n"
"  --new-since TIME    fleet: mark groups first seen at or after TIME (seconds\n"
"                      since the epoch, or YYYY-MM-DD[THH:MM[:SS]] in UTC)\n"
"  --trust-any         fleet: count entries whatever their trusted fields say\n"
"                      (UNSAFE: any user can log them; for tests)\n"
"  -o, --output FILE   write to FILE instead of standard output\n"
"\n"
"exit codes: 0 done, 1 usage, 2 a file cannot be read or written, 3 no\n"
"usable trace in IMAGE, 4 the symbols do not match the traced kernel\n";

struct rt_args {
	const char *cmd;
	const char *image;
	char **more;		/* further pstore files, after @image */
	int nr_more;
	const char *system_map;
	const char *modules;
	const char *format;
	const char *output;
	u64 offset;
	u64 size;
	s64 boot;
	u32 functions;
	bool offset_given;
	bool sym_offset;
	struct rt_fleet_args fleet;
	bool fleet_opt;		/* an option of fleet alone was given */
};

static int rt_usage(const char *why, const char *what)
{
	fprintf(stderr, "ramtrail: %s%s%s (see 'ramtrail --help')\n", why,
		what ? ": " : "", what ? what : "");
	return RT_EXIT_USAGE;
}

/*
 * A size or address: 0x10000000, 64M, 1G. Decimal unless 0x: a leading 0
 * is not octal; no sign, no blank.
 */
static bool rt_number(const char *s, u64 *v)
{
	static const char units[] = "KMG";
	const char *unit = NULL;
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!(base == 16 ? isxdigit((unsigned char)*s) :
	      isdigit((unsigned char)*s)))
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	if (*end)	/* never the NUL: memchr() stops before it */
		unit = memchr(units, *end & ~0x20, sizeof(units) - 1);
	if (unit) {
		u32 shift = 10 * (unit - units + 1);

		if (*v >> (64 - shift))
			return false;
		*v <<= shift;
		end++;
	}
	return !*end && !errno;
}

/* Is the option @arg (its name @len bytes long) @name? */
static bool rt_is(const char *arg, size_t len, const char *name)
{
	return strlen(name) == len && !strncmp(arg, name, len);
}

/* The options that take a value, by their names. */
enum rt_opt { RT_OPT_NONE, RT_OPT_OFFSET, RT_OPT_SIZE, RT_OPT_BOOT,
	      RT_OPT_SYSTEM_MAP, RT_OPT_MODULES, RT_OPT_FORMAT, RT_OPT_OUTPUT,
	      RT_OPT_FUNCTIONS, RT_OPT_DIRECTORY, RT_OPT_NEW_SINCE };

/* Which option that takes a value @arg (its name @len bytes long) is. */
static enum rt_opt rt_option(const char *arg, size_t len)
{
	static const struct {
		const char *name;
		enum rt_opt opt;
	} opts[] = {
		{ "--offset", RT_OPT_OFFSET }, { "--size", RT_OPT_SIZE },
		{ "--boot", RT_OPT_BOOT }, { "--system-map", RT_OPT_SYSTEM_MAP },
		{ "--modules", RT_OPT_MODULES }, { "--format", RT_OPT_FORMAT },
		{ "-o", RT_OPT_OUTPUT }, { "--output", RT_OPT_OUTPUT },
		{ "--functions", RT_OPT_FUNCTIONS },
		{ "--directory", RT_OPT_DIRECTORY },
		{ "--new-since", RT_OPT_NEW_SINCE },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opts); i++)
		if (rt_is(arg, len, opts[i].name))
			return opts[i].opt;
	return RT_OPT_NONE;
}

/* What fleet takes: one input at most, its own formats. */
static int rt_parse_fleet(struct rt_args *a)
{
	static const char *const formats[] = { "text", "json", "csv" };
	u32 i;

	if (a->nr_more)
		return rt_usage("fleet reads one input", a->more[0]);
	if (a->image && a->fleet.directory)
		return rt_usage("fleet reads FILE or --directory, not both", a->image);
	if (a->offset_given || a->size || a->boot >= 0 || a->system_map ||
	    a->modules || a->sym_offset || a->functions != RT_CRASH_FUNCS)
		return rt_usage("an option fleet does not take", NULL);
	a->fleet.input = a->image;
	for (i = 0; i < ARRAY_SIZE(formats); i++)
		if (!strcmp(a->format ?: "text", formats[i]))
			break;
	if (i == ARRAY_SIZE(formats))
		return rt_usage("format not offered by this command", a->format);
	a->fleet.format = i;	/* enum rt_fleet_format's order */
	return 0;
}

static int rt_parse(int argc, char **argv, struct rt_args *a)
{
	const char *def = "ftrace";	/* the command's default format */
	int i;

	memset(a, 0, sizeof(*a));
	a->boot = -1;
	a->functions = RT_CRASH_FUNCS;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *val, *eq;
		enum rt_opt opt;
		size_t len;
		u64 n;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help") ||
		    !strcmp(arg, "help")) {
			fputs(usage, stdout);
			return -1;
		}
		if (!strcmp(arg, "--version")) {
			printf("ramtrail %s (on-RAM format %u)\n",
			       RAMTRAIL_PKG_VERSION, RAMTRAIL_VERSION);
			return -1;
		}
		if (arg[0] != '-' || !arg[1]) {
			if (!a->cmd)
				a->cmd = arg;
			else if (!a->image)
				a->image = arg;
			else if (!a->nr_more++)
				a->more = &argv[i];
			else if (a->more + a->nr_more - 1 != &argv[i])
				return rt_usage("give the pstore files together", arg);
			continue;
		}
		if (!strcmp(arg, "--sym-offset")) {
			a->sym_offset = true;
			continue;
		}
		if (!strcmp(arg, "--trust-any")) {
			a->fleet.trust_any = true;
			a->fleet_opt = true;
			continue;
		}
		eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		opt = rt_option(arg, len);
		if (opt == RT_OPT_NONE)
			return rt_usage("unknown option", arg);
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return rt_usage("option needs a value", arg);
		switch (opt) {
		case RT_OPT_OFFSET:
			/* Any region starts on 8 bytes (the module's on a page). */
			if (!rt_number(val, &a->offset) || a->offset % 8)
				return rt_usage("bad --offset", val);
			a->offset_given = true;
			break;
		case RT_OPT_SIZE:
			if (!rt_number(val, &a->size) || !a->size)
				return rt_usage("bad --size", val);
			break;
		case RT_OPT_BOOT:
			if (!rt_number(val, &n) || n > (u64)INT64_MAX)
				return rt_usage("bad --boot", val);
			a->boot = n;
			break;
		case RT_OPT_SYSTEM_MAP:
			a->system_map = val;
			break;
		case RT_OPT_MODULES:
			a->modules = val;
			break;
		case RT_OPT_FORMAT:
			a->format = val;
			break;
		case RT_OPT_FUNCTIONS:
			if (!rt_number(val, &n) || !n || n > RT_CRASH_FUNCS_MAX)
				return rt_usage("bad --functions (1 to 64)", val);
			a->functions = n;
			break;
		case RT_OPT_DIRECTORY:
			a->fleet.directory = val;
			a->fleet_opt = true;
			break;
		case RT_OPT_NEW_SINCE:
			if (!rt_fleet_time(val, &a->fleet.new_since))
				return rt_usage("bad --new-since (seconds, YYYY-MM-DD...)",
						val);
			a->fleet.new_given = true;
			a->fleet_opt = true;
			break;
		default:	/* -o, --output */
			a->output = val;
			break;
		}
	}
	if (!a->cmd)
		return rt_usage("no command", NULL);
	if (strcmp(a->cmd, "decode") && strcmp(a->cmd, "export") &&
	    strcmp(a->cmd, "stats") && strcmp(a->cmd, "kallsyms") &&
	    strcmp(a->cmd, "crash") && strcmp(a->cmd, "fleet"))
		return rt_usage("unknown command", a->cmd);
	if (!strcmp(a->cmd, "fleet"))
		return rt_parse_fleet(a);
	if (a->fleet_opt)
		return rt_usage("--directory, --new-since and --trust-any are fleet's",
				NULL);
	if (!a->image)
		return rt_usage("no image", NULL);
	if (!strcmp(a->cmd, "export"))
		def = "tracedat";
	else if (!strcmp(a->cmd, "stats"))
		def = "text";
	else if (!strcmp(a->cmd, "crash"))
		def = "journal";
	if (!a->format)
		a->format = def;
	if ((strcmp(a->format, "json") || !strcmp(a->cmd, "crash")) &&
	    strcmp(a->format, def) &&
	    (strcmp(a->cmd, "export") || strcmp(a->format, "perfetto")))
		return rt_usage("format not offered by this command", a->format);
	if (!strcmp(a->cmd, "export") && !a->output)
		return rt_usage("export needs -o FILE", NULL);
	/* Without either there is nothing to list: say so, not print nothing. */
	if (!strcmp(a->cmd, "kallsyms") && !a->system_map && !a->modules)
		return rt_usage("kallsyms needs --system-map FILE, --modules DIR or both",
				NULL);
	return 0;
}

/*
 * Read the text files beside pstore files, read one after the other into
 * @img (file i from @from[i]; a text file adds nothing): the names of
 * their offsets, and the events.
 */
static int rt_pstore_name(const struct rt_args *a, const struct rt_image *img,
			  struct rt_trace *t, const u64 *from)
{
	char **paths = malloc((a->nr_more + 1) * sizeof(*paths));
	int i, err;

	if (!paths) {
		rt_err("out of memory\n");
		return RT_EXIT_IO;
	}
	paths[0] = (char *)a->image;
	for (i = 0; i < a->nr_more; i++)
		paths[i + 1] = a->more[i];
	err = rt_pstore_names(t, img->buf, paths, from, a->nr_more + 1);
	free(paths);
	return err;
}

/* Load the input and choose its trace. */
static int rt_open(struct rt_args *a, struct rt_image *img, struct rt_trace *t)
{
	u64 *from;
	int err = 0, i;

	memset(t, 0, sizeof(*t));
	err = rt_image_read_at(img, a->image, a->offset_given ? a->offset : ~0ULL,
			       a->size);
	if (err)
		return err;
	if (rt_pstore_text_part(a->image) && !a->offset_given) {
		/* A part without an ftrace file: its text is read as such. */
		rt_image_free(img);
		img->buf = calloc(1, 1);
		img->len = 0;
		img->mapped = false;
		if (!img->buf) {
			rt_err("out of memory\n");
			return RT_EXIT_IO;
		}
	}
	from = calloc(a->nr_more + 1, sizeof(*from));
	if (!from) {
		rt_err("out of memory\n");
		return RT_EXIT_IO;
	}
	for (i = 0; i < a->nr_more && !err; i++) {
		/* The parts of one trace, as pstore splits it: one text. */
		struct rt_image part;

		if (!rt_image_is_pstore(img) || a->offset_given) {
			err = rt_usage("several files: pstore files only",
				       a->more[i]);
			break;
		}
		err = rt_image_read(&part, a->more[i]);
		if (!err && !rt_image_is_pstore(&part))
			err = rt_usage("several files: pstore files only",
				       a->more[i]);
		from[i + 1] = img->len;
		if (!err && !rt_pstore_text_part(a->more[i]))
			err = rt_image_append(img, &part);
		if (part.buf)
			rt_image_free(&part);
	}
	if (!err && rt_image_is_pstore(img) && !a->offset_given) {
		if (a->boot >= 0 || a->system_map || a->modules)
			rt_err("%s: a pstore file names its own symbols and boot: %s\n",
			       a->image, "--boot, --system-map, --modules ignored");
		err = rt_pstore_parse(img, t);
		if (!err)
			err = rt_pstore_name(a, img, t, from);
		free(from);
		return err;
	}
	free(from);
	if (err)
		return err;
	err = rt_region_find(img, a->offset - img->base, a->size,
			     a->offset_given, t);
	if (err || !strcmp(a->cmd, "stats"))
		return err;
	return rt_trace_choose(t, a->boot);
}

/* After a decode: say what was dropped, so a partial result is known. */
static void rt_report_drops(const struct rt_trace *t)
{
	const struct ramtrail_freeze_info *f;
	struct ramtrail_zone_stats sum = { 0 };
	u64 lost = 0;
	u32 cpu;

	if (t->invalid)
		rt_err("%llu saved chunks were damaged: their records are not shown\n",
		       (unsigned long long)t->invalid);
	if (t->kind == RT_SAVED) {
		const struct ramtrail_saved_trace *s = t->saved;

		if (s->corrupt_blocks || s->torn || s->no_time || s->skipped)
			rt_err("boot %llu's recovery dropped %llu corrupt blocks, %llu torn records, %llu without time; %llu oldest did not fit\n",
			       (unsigned long long)le64_to_cpu(s->boot_id),
				(unsigned long long)le64_to_cpu(s->corrupt_blocks),
				(unsigned long long)le64_to_cpu(s->torn),
				(unsigned long long)le64_to_cpu(s->no_time),
				(unsigned long long)le64_to_cpu(s->skipped));
		return;
	}
	if (t->kind != RT_ZONES)
		return;
	f = ramtrail_region_freeze(&t->reg);
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		sum.corrupt_blocks += t->cur[cpu].stats.corrupt_blocks;
		sum.torn += t->cur[cpu].stats.torn;
		sum.no_base += t->cur[cpu].stats.no_base;
		lost += f ? le64_to_cpu(f->zone[cpu].dropped) : 0;
	}
	if (sum.corrupt_blocks || sum.torn || sum.no_base || lost)
		rt_err("dropped %llu corrupt blocks, %llu torn records, %llu without time; the writers lost %llu while recording\n",
		       (unsigned long long)sum.corrupt_blocks,
			(unsigned long long)sum.torn,
			(unsigned long long)sum.no_base,
			(unsigned long long)lost);
}

/* Is @path the file @out is? */
static bool rt_same_file(const char *path, const struct stat *out)
{
	struct stat st;

	return path && !stat(path, &st) && st.st_dev == out->st_dev &&
	       st.st_ino == out->st_ino;
}

/*
 * Open -o FILE without emptying it until it is known not to be an input:
 * "decode img -o img" must not destroy the image it reads.
 */
static FILE *rt_open_output(const struct rt_args *a, int *err)
{
	struct stat st;
	FILE *f = NULL;
	int fd, i;
	bool input;

	fd = open(a->output, O_WRONLY | O_CREAT, 0666);
	if (fd < 0 || fstat(fd, &st)) {
		rt_err("%s: %s\n", a->output, strerror(errno));
		*err = RT_EXIT_IO;
		goto out;
	}
	input = rt_same_file(a->image, &st) ||
		rt_same_file(a->system_map, &st);
	for (i = 0; i < a->nr_more; i++)
		input |= rt_same_file(a->more[i], &st);
	if (input) {
		*err = rt_usage("the output is an input file", a->output);
		goto out;
	}
	/* A device or a FIFO (/dev/stdout) is written as it is. */
	if (!S_ISREG(st.st_mode) || !ftruncate(fd, 0))
		f = fdopen(fd, "w");
	if (!f) {
		rt_err("%s: %s\n", a->output, strerror(errno));
		*err = RT_EXIT_IO;
	}
out:
	if (!f && fd >= 0)
		close(fd);
	return f;
}

/* Load the symbols asked for: a pstore file names its own (rt_open()). */
static int rt_load_symbols(const struct rt_args *a, struct rt_trace *t,
			   struct rt_symbols *s)
{
	int err = 0;

	if (!strcmp(a->cmd, "stats") || !strcmp(a->cmd, "crash"))
		return 0;
	if (a->system_map && t->kind != RT_PSTORE)
		err = rt_symbols_load_map(s, a->system_map);
	if (!err && a->modules && t->kind != RT_PSTORE)
		err = rt_symbols_load_modules(s, a->modules);
	return err ?: rt_symbols_bind(s, t);
}

static int rt_run(struct rt_args *a, struct rt_trace *t, struct rt_symbols *s)
{
	FILE *out = stdout;
	int n, err;

	err = rt_load_symbols(a, t, s);
	if (err)
		return err;
	if (a->output && strcmp(a->output, "-")) {
		out = rt_open_output(a, &err);
		if (!out)
			return err;
	}
	errno = 0;
	if (!strcmp(a->cmd, "stats"))
		n = rt_print_stats(t, !strcmp(a->format, "json"), out);
	else if (!strcmp(a->cmd, "crash"))
		n = rt_print_crash(t, a->functions, out);
	else if (!strcmp(a->cmd, "kallsyms"))
		n = rt_symbols_kallsyms(s, out) ? -1 : 0;
	else if (!strcmp(a->format, "tracedat"))
		n = rt_export_tracedat(t, s, out);
	else if (!strcmp(a->format, "perfetto"))
		n = rt_export_perfetto(t, s, out);
	else if (!strcmp(a->format, "json"))
		n = rt_print_json(t, s, out);
	else
		n = rt_print_ftrace(t, s, a->sym_offset, out);
	if ((!strcmp(a->cmd, "stats") || !strcmp(a->cmd, "crash")) && n)
		err = n;	/* said; the output is cut or empty */
	if (ferror(out))
		n = -1;
	if (out != stdout ? fclose(out) : fflush(out))
		n = -1;
	if (n < 0) {
		rt_err("%s: write failed%s%s\n",
		       a->output ? a->output : "standard output",
		       errno ? ": " : "", errno ? strerror(errno) : "");
		return RT_EXIT_IO;
	}
	if (!strcmp(a->cmd, "stats") || !strcmp(a->cmd, "crash"))
		return err;
	rt_report_drops(t);
	if (out != stdout && strcmp(a->cmd, "kallsyms"))
		rt_err("%d records written to %s\n", n,
		       a->output);
	return RT_EXIT_OK;
}

static int rt_run_fleet(const struct rt_args *a)
{
	FILE *out = stdout;
	int err = 0, n;

	if (a->output && strcmp(a->output, "-")) {
		out = rt_open_output(a, &err);
		if (!out)
			return err;
	}
	errno = 0;
	n = rt_fleet(&a->fleet, out);
	if (ferror(out) || (out != stdout ? fclose(out) : fflush(out))) {
		rt_err("%s: write failed%s%s\n",
		       a->output ? a->output : "standard output",
		       errno ? ": " : "", errno ? strerror(errno) : "");
		return RT_EXIT_IO;
	}
	return n;
}

/**
 * ramtrail_main() - the whole command
 * @argc: as main()'s
 * @argv: as main()'s
 *
 * Return: the exit code.
 */
int ramtrail_main(int argc, char **argv)
{
	struct rt_symbols *s;
	struct rt_image img = { 0 };
	struct rt_args a;
	struct rt_trace t;
	int err;

	err = rt_parse(argc, argv, &a);
	if (err)
		return err < 0 ? RT_EXIT_OK : err;
	if (!strcmp(a.cmd, "fleet"))
		return rt_run_fleet(&a);
	s = rt_symbols_new();
	if (!s) {
		rt_err("out of memory\n");
		return RT_EXIT_IO;
	}
	err = rt_open(&a, &img, &t);
	if (!err)
		err = rt_run(&a, &t, s);
	rt_trace_free(&t);
	rt_symbols_free(s);
	if (img.buf)
		rt_image_free(&img);
	return err;
}

#ifndef RT_NO_MAIN
#ifndef RAMTRAIL_SETUP
#define RAMTRAIL_SETUP "/usr/libexec/ramtrail/ramtrail-setup"
#endif
int main(int argc, char **argv)
{
	/* ramtrail setup is a script (scripts/package/ramtrail-setup). */
	if (argc > 1 && !strcmp(argv[1], "setup")) {
		execv(RAMTRAIL_SETUP, argv + 1);
		rt_err("setup: cannot run %s: %s\n", RAMTRAIL_SETUP, strerror(errno));
		return RT_EXIT_IO;
	}
	return ramtrail_main(argc, argv);
}
#endif
