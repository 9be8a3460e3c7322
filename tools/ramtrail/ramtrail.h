/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ramtrail command: what its parts share. A trace is chosen from an
 * image (a region's live zones, a saved trace of an earlier boot, or a
 * pstore ftrace file as the kernel prints it), read record by record in
 * time order, symbolized and printed or exported.
 */
#ifndef _RAMTRAIL_TOOL_H
#define _RAMTRAIL_TOOL_H

#include <stdio.h>
#include "chunk.h"
#include "text.h"

/* Exit codes (Documentation/ramtrail/ramtrail.1). */
enum {
	RT_EXIT_OK	= 0,
	RT_EXIT_USAGE	= 1,	/* bad command line */
	RT_EXIT_IO	= 2,	/* a file cannot be read or written */
	RT_EXIT_NOTRACE	= 3,	/* no usable trace in the image */
	RT_EXIT_SYMBOLS	= 4,	/* symbols do not match the traced kernel */
};

/**
 * struct rt_image - the bytes of an input file
 * @path: as given
 * @buf: its contents (mapped or read), writable copy-on-write
 * @len: bytes at @buf
 * @mapped: @buf is a mapping (else it was read into memory)
 * @base: offset in the file of @buf's first byte (a window of a device)
 */
struct rt_image {
	const char *path;
	u8 *buf;
	u64 len;
	bool mapped;
	u64 base;
};

/* The most rt_image_read_at() reads of a device on its header's word. */
#define RT_DEVICE_READ_MAX	BIT_ULL(32)

/**
 * struct rt_rec - one record of a trace, in the recording boot's terms
 * @ns: CLOCK_MONOTONIC of the recording boot, nanoseconds
 * @cpu: CPU that wrote it
 * @type: RAMTRAIL_W_FUNC, RAMTRAIL_W_FUNC_PARENT or RAMTRAIL_W_EVENT
 * @len: bytes of @data (events)
 * @id: event id (events)
 * @ctx: enum ramtrail_ctx the CPU was in
 * @flags: RAMTRAIL_EF_* of an event (the context included); 0 otherwise
 * @task_known: @pid, @tgid and @comm name the task that was running;
 *	else it is unknown
 * @pid: the task's pid (thread id)
 * @tgid: its process id
 * @comm: its command name, NUL-terminated
 * @ip: function address (0: none)
 * @parent: caller address (0: none)
 * @data: event payload
 * @ip_sym: name of @ip given by the input itself (pstore files), or NULL;
 *	of an event read from text, the function it names (work, timer)
 * @parent_sym: the same for @parent
 * @named: of an event read from text, the tasks it names by comm
 *	(their names are in no other record)
 * @nr_named: entries of @named
 */
struct rt_rec {
	u64 ns;
	u64 ts;		/* as the trace keeps it: counter or ns; 0 from pstore */
	u32 cpu;
	u8 type;
	u8 len;
	u16 id;
	u8 ctx;
	u8 flags;
	bool task_known;
	u32 pid;
	u32 tgid;
	char comm[RAMTRAIL_COMM_LEN + 1];
	u64 ip;
	u64 parent;
	const u8 *data;
	const char *ip_sym;
	const char *parent_sym;
	struct ramtrail_ev_task named[2];
	u32 nr_named;
};

enum rt_kind {
	RT_ZONES,	/* the live zones of the region */
	RT_SAVED,	/* a saved (merged) trace of an earlier boot */
	RT_PSTORE,	/* pstore's files of a saved trace: ftrace and text */
};

struct rt_pstore_line;

/**
 * struct rt_pstore_header - what the headers of a trace's pstore text say
 *	(ramtrail_text_header()), those of its first part read
 * @nonce: the nonce of the recording boot's region header
 * @records: records of the whole trace
 * @lost: records the writers lost while recording
 * @damaged: blocks the recovery dropped, damaged
 * @torn: torn records it dropped
 * @no_time: records it dropped for want of a time
 * @left_out: oldest records that did not fit in the saved area
 * @parts: parts of the trace
 * @nr_parts: parts read whose text has a header
 * @mixed: the parts read are of different traces
 * @build: uname -v of the recording kernel
 */
struct rt_pstore_header {
	unsigned long long nonce;
	unsigned long long records;
	unsigned long long lost;
	unsigned long long damaged;
	unsigned long long torn;
	unsigned long long no_time;
	unsigned long long left_out;
	unsigned long long parts;
	u32 nr_parts;
	bool mixed;
	char build[65];
};

/**
 * struct rt_trace - the trace chosen from an image, and a read position
 * @kind: where its records come from
 * @reg: the region (not for RT_PSTORE)
 * @reg_err: what ramtrail_region_open() said: with an error, only the
 *	layout of @reg is valid (saved traces and dmesg, not the zones)
 * @region_offset: where the region starts in the image
 * @boot_id: boot that recorded it (0: unknown)
 * @release: kernel release of that boot ("" if unknown)
 * @nr_cpus: CPUs (zones) it covers
 * @text_base: base of the 32-bit function offsets
 * @anchor_addr: address of panic() in the recording boot (0: unknown)
 * @mods: module table of the recording boot, in this format's entries
 * @nr_mods: entries of @mods
 * @mods_conv: @mods when converted from the previous format (to free)
 * @state: enum ramtrail_state when recovered or imaged
 * @flags: RAMTRAIL_F_* of the recording boot
 * @freeze_reason: enum ramtrail_freeze_reason
 * @freeze_cpu: CPU that froze recording
 * @saved: the saved trace (RT_SAVED)
 * @header: the header of its pstore text files (RT_PSTORE; with
 *	@header.nr_parts, @boot_id, @release, @state, @freeze_reason and
 *	@freeze_cpu come from it)
 * @lines: parsed lines (RT_PSTORE)
 * @nr_lines: entries of @lines
 * @texts: the text files whose names @lines point to (RT_PSTORE)
 * @nr_texts: entries of @texts
 * @event: the event of the last text line read (RT_PSTORE)
 * @func: the function it names
 * @unreadable: lines of @texts that are neither their header nor a
 *	record (RT_PSTORE)
 * @next: next saved record or line to return
 * @invalid: saved chunks dropped, damaged (see ramtrail_saved_read())
 * @saved_cur: read position in @saved (RT_SAVED)
 * @cur: zone cursors (RT_ZONES)
 * @heap: merge heap (RT_ZONES)
 * @merge: the merge (RT_ZONES)
 */
struct rt_trace {
	enum rt_kind kind;
	struct ramtrail_region reg;
	int reg_err;
	u64 region_offset;
	u64 boot_id;
	char release[65];
	u32 nr_cpus;
	u64 text_base;
	u64 anchor_addr;
	const struct ramtrail_module_entry *mods;
	u32 nr_mods;
	struct ramtrail_module_entry *mods_conv;
	u32 state;
	u32 flags;
	u32 freeze_reason;
	u32 freeze_cpu;
	const struct ramtrail_saved_trace *saved;
	u64 corrected[RAMTRAIL_MAX_SAVED];	/* chunks, by walk position */
	struct rt_pstore_header header;
	struct rt_pstore_line *lines;
	u64 nr_lines;
	char **texts;
	u32 nr_texts;
	struct ramtrail_record event;
	char func[sizeof(((struct ramtrail_text_scan *)0)->func)];
	u64 unreadable;
	u64 next;
	u64 invalid;
	struct ramtrail_saved_cursor *saved_cur;
	struct ramtrail_zone_cursor *cur;
	struct ramtrail_merge_slot *heap;
	struct ramtrail_merge merge;
};

/* err.c: "ramtrail: " and the message, on standard error */
__printf(1, 2) void rt_err(const char *fmt, ...);

/* image.c */
int rt_image_read(struct rt_image *img, const char *path);
int rt_image_read_at(struct rt_image *img, const char *path, u64 off,
		     u64 size);
int rt_image_read_fd(struct rt_image *img, int fd);
int rt_image_append(struct rt_image *img, const struct rt_image *more);
bool rt_image_is_pstore(const struct rt_image *img);
void rt_printable(char *s, size_t len);
void rt_image_free(struct rt_image *img);
int rt_region_find(const struct rt_image *img, u64 offset, u64 size,
		   bool offset_given, struct rt_trace *t);
int rt_trace_choose(struct rt_trace *t, s64 boot);
int rt_pstore_names(struct rt_trace *t, const u8 *buf, char *const *paths,
		    const u64 *from, int n);
bool rt_pstore_text_part(const char *path);
int rt_trace_zones(struct rt_trace *t);
int rt_pstore_parse(struct rt_image *img, struct rt_trace *t);
void rt_trace_rewind(struct rt_trace *t);
bool rt_trace_next(struct rt_trace *t, struct rt_rec *r);
void rt_trace_free(struct rt_trace *t);

/* format7.c */
struct ramtrail_module_entry *rt_modules_prev(const void *raw, u32 n);

/* symbols.c */
struct rt_symbols;
struct rt_symbols *rt_symbols_new(void);
int rt_symbols_load_map(struct rt_symbols *s, const char *path);
int rt_symbols_load_modules(struct rt_symbols *s, const char *dir);
int rt_symbols_bind(struct rt_symbols *s, struct rt_trace *t);
const char *rt_symbolize(const struct rt_symbols *s, const struct rt_trace *t,
			 u64 addr, u64 ts, bool offset, char *buf, size_t len,
			 bool *timed);
int rt_symbols_kallsyms(const struct rt_symbols *s, FILE *out);
u64 rt_symbols_find(const struct rt_symbols *s, const char *name);
void rt_symbols_free(struct rt_symbols *s);

/**
 * struct rt_text - printing a trace's records with fs/ramtrail/text.c
 * @tx: what ramtrail_text_record() takes; its comms are the trace's tasks
 * @t: the trace
 * @s: its symbols
 * @sym_offset: function records' names with "+0xoff/0xsize"
 * @r: the record being printed, whose names @tx's callback gives
 */
struct rt_text {
	struct ramtrail_text tx;
	struct rt_trace *t;
	const struct rt_symbols *s;
	bool sym_offset;
	const struct rt_rec *r;
};

/* output.c */
#define RT_SYM_LEN	256	/* a function's name, as printed */
void rt_text_init(struct rt_text *x, struct rt_trace *t,
		  const struct rt_symbols *s, bool sym_offset);
void rt_text_record(struct rt_text *x, const struct rt_rec *r,
		    struct ramtrail_record *z);
int rt_print_ftrace(struct rt_trace *t, const struct rt_symbols *s,
		    bool sym_offset, FILE *out);
int rt_print_json(struct rt_trace *t, const struct rt_symbols *s, FILE *out);
int rt_print_stats(struct rt_trace *t, bool json, FILE *out);
const char *rt_machine_name(u32 machine);

/* tracedat.c */
int rt_export_tracedat(struct rt_trace *t, const struct rt_symbols *s,
		       FILE *out);

/* perfetto.c */
int rt_export_perfetto(struct rt_trace *t, const struct rt_symbols *s,
		       FILE *out);

/* crash.c */
#define RT_CRASH_ID	"5160ece0466c4b9bb1358cb46880f020"	/* frozen by a crash */
#define RT_ENDED_ID	"b6f8b111439746f19ea8b76324f9b5e8"	/* any other end */

/* What a crash record says a trace's end was (RAMTRAIL_KIND). */
enum rt_crash_kind {
	RT_KIND_CRASH,	/* frozen by a panic, an oops or ramtrail_freeze() */
	RT_KIND_HANG,	/* ended while recording: reset, power cut, reboot */
	RT_KIND_STOP,	/* the module unloaded, or the user froze it */
	RT_KIND_NR,
};

extern const char *const rt_kind_names[RT_KIND_NR];
#define RT_CRASH_FUNCS		8	/* functions named by default */
#define RT_CRASH_FUNCS_MAX	64
int rt_print_crash(struct rt_trace *t, u32 nr_funcs, FILE *out);

/* journal.c */
#define RT_JOURNAL_KEY_MAX	64	/* journald's bound on a field's name */
#define RT_JOURNAL_VALUE_MAX	4096	/* bytes of a value kept; more: cut */

/* What a field's value is, as journalctl -o json gives it. */
enum rt_journal_kind {
	RT_JV_STRING,	/* a string */
	RT_JV_BYTES,	/* an array of numbers: a value that is not text */
	RT_JV_NULL,	/* null: a value too large to show */
	RT_JV_MANY,	/* an array of values: a field given several times */
	RT_JV_OTHER,	/* any other JSON: not journalctl's */
};

/**
 * struct rt_journal_field - one field of an entry, as read
 * @key: its name, NUL-terminated, its first RT_JOURNAL_KEY_MAX bytes
 * @key_len: bytes of the name, however long (more: @key is cut)
 * @kind: what its value is
 * @value: a string's or bytes' value, NUL-terminated (it may hold NULs)
 * @len: bytes of @value
 * @cut: the value was longer: @value is its first RT_JOURNAL_VALUE_MAX
 */
struct rt_journal_field {
	char key[RT_JOURNAL_KEY_MAX + 1];
	size_t key_len;
	enum rt_journal_kind kind;
	char value[RT_JOURNAL_VALUE_MAX + 1];
	size_t len;
	bool cut;
};

bool rt_journal_entry(const char *line, size_t len, struct rt_journal_field *f,
		      void (*fn)(void *ctx, const struct rt_journal_field *f),
		      void *ctx);

/* fleet.c */
enum rt_fleet_format { RT_FLEET_TEXT, RT_FLEET_JSON, RT_FLEET_CSV };

/**
 * struct rt_fleet_args - where ramtrail fleet reads, and how it prints
 * @input: a file of journalctl -o json lines ("-": standard input), or
 *	NULL: run journalctl
 * @directory: journalctl's --directory (journal-remote's files), or NULL
 * @new_since: microseconds since the epoch: a group first seen at or
 *	after it is new (with @new_given)
 * @new_given: --new-since was given
 * @trust_any: keep entries whatever their trusted fields say (tests)
 * @format: how to print
 */
struct rt_fleet_args {
	const char *input;
	const char *directory;
	u64 new_since;
	bool new_given;
	bool trust_any;
	enum rt_fleet_format format;
};

bool rt_fleet_time(const char *s, u64 *usec);
int rt_fleet(const struct rt_fleet_args *a, FILE *out);

/* main.c: the whole command, also called by the fuzz target */
int ramtrail_main(int argc, char **argv);

#endif /* _RAMTRAIL_TOOL_H */
