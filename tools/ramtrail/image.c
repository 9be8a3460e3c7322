// SPDX-License-Identifier: GPL-2.0
/*
 * Inputs of the ramtrail command: read a file, find a region in it (a bare
 * region, or a whole RAM image with the region somewhere inside), choose
 * which trace to show, and read that trace's records in time order with the
 * module's own decoder. Also pstore's text form of a saved trace, as
 * /sys/fs/pstore/ftrace-ramtrail-N shows it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ramtrail.h"

/**
 * struct rt_pstore_line - one record of a pstore ftrace file
 * @ns: its timestamp
 * @cpu: its CPU
 * @ip: function address in the boot that printed the file
 * @parent: caller address in that boot
 * @ip_sym: the name pstore printed for @ip
 * @parent_sym: the name (and offset) pstore printed for @parent
 * @comm: the task, from ramtrail's text of the record (NULL: unknown)
 * @pid: its pid
 * @ctx: enum ramtrail_ctx, from the text's flags column
 * @flags: RAMTRAIL_EF_* of an event, from the same column
 * @event: an event's line of the text after its prefix ("sched_switch:
 *	..."), read back when the record is (ramtrail_text_scan_event());
 *	NULL for a function record
 */
struct rt_pstore_line {
	u64 ns;
	u32 cpu;
	u64 ip;
	u64 parent;
	char *ip_sym;
	char *parent_sym;
	char *comm;
	u32 pid;
	u8 ctx;
	u8 flags;
	char *event;
};

/**
 * rt_image_read_fd() - read a file descriptor to its end
 * @img: its @buf and @len are set, with a NUL after the data
 * @fd: what to read (a pipe, a pstore or sysfs file)
 *
 * Return: 0, or -1 with errno set.
 */
int rt_image_read_fd(struct rt_image *img, int fd)
{
	u64 cap = 1 << 20;
	ssize_t n;
	u8 *grown;

	img->len = 0;
	img->mapped = false;
	img->buf = malloc(cap + 1);
	if (!img->buf)
		return -1;
	while ((n = read(fd, img->buf + img->len, cap - img->len)) != 0) {
		if (n < 0)
			goto fail;
		img->len += n;
		if (img->len < cap)
			continue;
		grown = realloc(img->buf, 2 * cap + 1);
		if (!grown)
			goto fail;
		img->buf = grown;
		cap *= 2;
	}
	img->buf[img->len] = 0;
	return 0;
fail:
	free(img->buf);
	img->buf = NULL;
	return -1;
}

/*
 * Read the window of @fd at @off on to its byte @len (less at the file's
 * end), after the @img->len bytes of it already in @img->buf.
 */
static int rt_image_pread(struct rt_image *img, int fd, u64 off, u64 len)
{
	u8 *grown = realloc(img->buf, len + 1);
	ssize_t n;

	if (!grown)
		return -1;
	img->buf = grown;
	while (img->len < len) {
		n = pread(fd, img->buf + img->len, len - img->len,
			  off + img->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			break;
		img->len += n;
	}
	img->buf[img->len] = 0;
	return 0;
}

/*
 * The region at @off of a device: @size bytes, or as many as the header
 * there says (a header's worth if none is there, for the error to name).
 */
static int rt_image_read_device(struct rt_image *img, int fd, u64 off,
				u64 size)
{
	const struct ramtrail_region_header *h;
	u64 len = size;

	if (!len) {
		if (rt_image_pread(img, fd, off, RAMTRAIL_BLOCK_SIZE))
			goto fail;
		h = (const void *)img->buf;
		len = img->len;
		if (img->len >= sizeof(*h) &&
		    le64_to_cpu(h->magic) == RAMTRAIL_MAGIC &&
		    le64_to_cpu(h->region_size) > img->len &&
		    le64_to_cpu(h->region_size) <= RT_DEVICE_READ_MAX)
			len = le64_to_cpu(h->region_size);
	}
	/* The rest of the window, after the header read above if any. */
	if (rt_image_pread(img, fd, off, len))
		goto fail;
	img->base = off;
	return 0;
fail:
	free(img->buf);
	img->buf = NULL;
	return -1;
}

/**
 * rt_image_read() - map or read a whole input file
 * @img: filled on success
 * @path: the file; anything read() can read (pstore, debugfs, a pipe)
 *
 * A device (/dev/mem, a disk, /dev/zero) has no end to read to: it is
 * refused. rt_image_read_at() reads a window of one.
 *
 * Return: RT_EXIT_OK, RT_EXIT_USAGE for a device, or RT_EXIT_IO after
 * saying why.
 */
int rt_image_read(struct rt_image *img, const char *path)
{
	return rt_image_read_at(img, path, ~0ULL, 0);
}

/**
 * rt_image_read_at() - read an input file, or a window of a device
 * @img: filled on success; @img->base is the offset of its first byte
 * @path: the file
 * @off: where the window of a device starts; ~0 for none
 * @size: bytes of the window; 0 for the size its region header gives
 *	(RT_DEVICE_READ_MAX at most)
 *
 * A file that is not a device is read whole, as rt_image_read() does,
 * whatever @off and @size say: they are then offsets in @img.
 *
 * Return: RT_EXIT_OK, RT_EXIT_USAGE for a device without @off, or
 * RT_EXIT_IO after saying why.
 */
int rt_image_read_at(struct rt_image *img, const char *path, u64 off,
		     u64 size)
{
	struct stat st;
	int fd;

	memset(img, 0, sizeof(*img));
	img->path = path;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		goto fail;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		if (off == ~0ULL) {
			rt_err("%s: a device has no end to read to (a region on one needs --offset ADDR, where it starts)\n",
			       path);
			close(fd);
			return RT_EXIT_USAGE;
		}
		if (rt_image_read_device(img, fd, off, size))
			goto fail;
		close(fd);
		return RT_EXIT_OK;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		/* Private and writable: parsers may cut strings in place. */
		img->buf = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE, fd, 0);
		if (img->buf != MAP_FAILED) {
			img->len = st.st_size;
			img->mapped = true;
			close(fd);
			return RT_EXIT_OK;
		}
	}
	/* pstore, sysfs and pipes have no size or cannot be mapped. */
	if (rt_image_read_fd(img, fd))
		goto fail;
	close(fd);
	return RT_EXIT_OK;
fail:
	rt_err("%s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	img->buf = NULL;
	return RT_EXIT_IO;
}

/**
 * rt_image_append() - add another file's bytes after an image's
 * @img: the image; becomes a buffer in memory if it was mapped
 * @more: the bytes to add
 *
 * Return: RT_EXIT_OK, or RT_EXIT_IO if memory runs out.
 */
int rt_image_append(struct rt_image *img, const struct rt_image *more)
{
	bool nl = img->len && img->buf[img->len - 1] != '\n';
	u8 *buf = malloc(img->len + nl + more->len + 1);

	if (!buf) {
		rt_err("out of memory\n");
		return RT_EXIT_IO;
	}
	memcpy(buf, img->buf, img->len);
	if (nl)		/* never glue two files' lines together */
		buf[img->len] = '\n';
	memcpy(buf + img->len + nl, more->buf, more->len);
	buf[img->len + nl + more->len] = 0;
	rt_image_free(img);
	img->buf = buf;
	img->len += nl + more->len;
	img->mapped = false;
	return RT_EXIT_OK;
}

/** rt_image_free() - release what rt_image_read() took */
void rt_image_free(struct rt_image *img)
{
	if (img->mapped)
		munmap(img->buf, img->len);
	else
		free(img->buf);
	img->buf = NULL;
}

/**
 * rt_printable() - make a string of the image safe to print
 * @s: the string, NUL-terminated within @len bytes or not
 * @len: bytes at @s
 *
 * A byte that is not printable ASCII becomes '?': a release, build,
 * module name or comm of a forged image, a line of a forged pstore file,
 * must not start lines of its own (a newline) or drive the terminal (an
 * escape, or 0x9b, the 8-bit CSI). Applied where such a string is first
 * stored, so that every printer and exporter gets it safe.
 */
void rt_printable(char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && s[i]; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			s[i] = '?';
}

/*
 * rt_image_is_pstore() - the image is pstore's form of a trace: an ftrace
 * file, or a text file of a part (by its name)
 */
bool rt_image_is_pstore(const struct rt_image *img)
{
	return (img->len >= 4 && !memcmp(img->buf, "CPU:", 4)) ||
	       (img->path && rt_pstore_text_part(img->path));
}

/*
 * Correct the saved traces' headers and chunks by their parity, in the
 * image's copy, as the module does at load; said once.
 */
static void rt_region_repair(struct rt_trace *t)
{
	static u8 buf[RAMTRAIL_SAVED_CHUNK_MAX];
	struct ramtrail_saved_walk w = { 0 };
	struct ramtrail_saved_check c;
	u64 boot[RAMTRAIL_MAX_SAVED];
	struct ramtrail_saved_trace *s;
	u32 i, healed = ramtrail_saved_heal(&t->reg, boot);

	for (i = 0; i < healed && i < RAMTRAIL_MAX_SAVED; i++)
		rt_err("boot %llu's saved trace: its header had changed, corrected by its parity\n",
		       (unsigned long long)boot[i]);
	while ((s = (void *)ramtrail_saved_walk(&t->reg, &w))) {
		if (ramtrail_saved_all_erased(s))
			continue;
		ramtrail_saved_check(s, buf, &c);
		t->corrected[w.pos - 1] = c.corrected;
		if (c.corrected)
			rt_err("boot %llu's saved trace: %llu bytes in %llu chunks had changed, corrected by their parity\n",
			       (unsigned long long)le64_to_cpu(s->boot_id),
			       (unsigned long long)c.bytes,
			       (unsigned long long)c.corrected);
	}
}

static int rt_region_try(const struct rt_image *img, u64 off, u64 size,
			 struct rt_trace *t)
{
	u64 avail = img->len - off;

	if (size && size < avail)
		avail = size;
	t->region_offset = img->base + off;
	t->reg_err = ramtrail_region_read(&t->reg, img->buf + off, avail);
	/* A damaged boot header still shows the saved traces and logs. */
	if (!t->reg.base)
		return t->reg_err;
	rt_region_repair(t);
	return 0;
}

/*
 * Say why the region at @off is unusable (@bad: the header field out of
 * bounds, or NULL); a cut image gets its own words.
 */
static int rt_region_error(const struct rt_image *img, u64 off, u64 size,
			   int err, const char *bad)
{
	struct ramtrail_region_header h;
	u64 avail = img->len - off, at = img->base + off;

	if (size && size < avail)
		avail = size;
	if (err == RAMTRAIL_E_SHORT && avail == size) {
		rt_err("%s: --size %llu is less than a region header\n",
		       img->path, (unsigned long long)size);
		return RT_EXIT_NOTRACE;
	}
	if (err == RAMTRAIL_E_GEOMETRY) {
		memcpy(&h, img->buf + off, sizeof(h));
		if (le64_to_cpu(h.region_size) > avail && avail == size) {
			rt_err("%s: the region at %#llx is %llu bytes, more than --size %llu\n",
			       img->path, (unsigned long long)at,
			       (unsigned long long)le64_to_cpu(h.region_size),
			       (unsigned long long)size);
			return RT_EXIT_NOTRACE;
		}
		if (le64_to_cpu(h.region_size) > avail) {
			rt_err("%s: truncated: the region at %#llx is %llu bytes, the image holds %llu of them\n",
			       img->path, (unsigned long long)at,
			       (unsigned long long)le64_to_cpu(h.region_size),
			       (unsigned long long)avail);
			return RT_EXIT_NOTRACE;
		}
	}
	rt_err("%s: region at %#llx: %s%s%s\n", img->path,
	       (unsigned long long)at, ramtrail_strerror(err),
	       bad ? ": " : "", bad ?: "");
	return RT_EXIT_NOTRACE;
}

/**
 * rt_region_find() - locate and validate the region in an image
 * @img: the image
 * @offset: where the region starts, if @offset_given
 * @size: bytes of the region at most (0: up to the end of the image)
 * @offset_given: else look at offset 0, then at every 4 KiB boundary
 * @t: its region is filled on success
 *
 * A RAM image holds the region at its physical address; the module maps
 * page-aligned ranges only, so a scan by pages finds it. The first header
 * that validates wins.
 *
 * Return: RT_EXIT_OK, or RT_EXIT_NOTRACE after saying why.
 */
int rt_region_find(const struct rt_image *img, u64 offset, u64 size,
		   bool offset_given, struct rt_trace *t)
{
	u64 off, first_bad = ~0ULL;
	const char *first_field = NULL;
	int err, first_err = 0;

	if (offset_given) {
		if (offset >= img->len && img->base) {
			rt_err("%s: nothing to read at %#llx\n", img->path,
			       (unsigned long long)img->base);
			return RT_EXIT_NOTRACE;
		}
		if (offset >= img->len) {
			rt_err("%s: offset %#llx is past the end of the image (%llu bytes)\n",
			       img->path, (unsigned long long)offset,
			       (unsigned long long)img->len);
			return RT_EXIT_NOTRACE;
		}
		err = rt_region_try(img, offset, size, t);
		return err ? rt_region_error(img, offset, size, err,
					     t->reg.bad) : 0;
	}
	for (off = 0; off + sizeof(u64) <= img->len; off += RAMTRAIL_BLOCK_SIZE) {
		u64 magic;

		memcpy(&magic, img->buf + off, sizeof(magic));
		if (le64_to_cpu(magic) != RAMTRAIL_MAGIC)
			continue;
		err = rt_region_try(img, off, size, t);
		if (!err)
			return RT_EXIT_OK;
		if (first_bad == ~0ULL) {
			first_bad = off;
			first_err = err;
			first_field = t->reg.bad;
		}
	}
	if (first_bad != ~0ULL)
		return rt_region_error(img, first_bad, size, first_err,
				       first_field);
	rt_err("%s: no ramtrail region in it (neither a region, a RAM image holding one, nor a pstore ftrace file)\n",
	       img->path);
	return RT_EXIT_NOTRACE;
}

/*
 * The module table of the trace: @n entries at @raw, converted when @prev
 * (the previous format's).
 */
static void rt_use_modules(struct rt_trace *t, const void *raw, u32 n,
			   bool prev)
{
	free(t->mods_conv);
	t->mods_conv = prev ? rt_modules_prev(raw, n) : NULL;
	t->mods = prev ? t->mods_conv : raw;
	t->nr_mods = t->mods ? n : 0;
	if (!t->mods)
		rt_err("out of memory: module functions are not named\n");
}

static void rt_use_zones(struct rt_trace *t)
{
	const struct ramtrail_region_header *h = &t->reg.hdr;
	const struct ramtrail_freeze_info *f;

	t->kind = RT_ZONES;
	t->boot_id = le64_to_cpu(h->boot_id);
	memcpy(t->release, h->release, sizeof(h->release));
	rt_printable(t->release, sizeof(t->release));
	t->nr_cpus = le32_to_cpu(h->nr_cpus);
	t->text_base = le64_to_cpu(h->text_base);
	t->anchor_addr = le64_to_cpu(h->anchor_addr);
	rt_use_modules(t, ramtrail_region_modules(&t->reg), le32_to_cpu(h->modtab_count),
		       le32_to_cpu(h->version) == RAMTRAIL_PREV_VERSION);
	t->state = le32_to_cpu(h->state);
	t->flags = ramtrail_region_flags(&t->reg);
	f = ramtrail_region_freeze(&t->reg);
	t->freeze_reason = f ? le32_to_cpu(f->reason) : RAMTRAIL_FREEZE_NONE;
	t->freeze_cpu = f ? le32_to_cpu(f->cpu) : 0;
}

static void rt_use_saved(struct rt_trace *t, const struct ramtrail_saved_trace *s)
{
	t->kind = RT_SAVED;
	t->saved = s;
	t->boot_id = le64_to_cpu(s->boot_id);
	memcpy(t->release, s->release, sizeof(s->release));
	rt_printable(t->release, sizeof(t->release));
	t->nr_cpus = le32_to_cpu(s->nr_cpus);
	t->text_base = le64_to_cpu(s->text_base);
	t->anchor_addr = le64_to_cpu(s->anchor_addr);
	rt_use_modules(t, ramtrail_saved_modules(s), le32_to_cpu(s->modtab_count),
		       le32_to_cpu(s->magic) == RAMTRAIL_PREV_SAVED_MAGIC);
	t->state = le32_to_cpu(s->state);
	t->flags = le32_to_cpu(s->flags);
	t->freeze_reason = le32_to_cpu(s->freeze_reason);
	t->freeze_cpu = le32_to_cpu(s->freeze_cpu);
}

/* One cursor and heap slot per possible zone, then the merge from the start. */
static int rt_trace_cursors(struct rt_trace *t)
{
	t->cur = calloc(RAMTRAIL_MAX_CPUS, sizeof(*t->cur));
	t->heap = calloc(RAMTRAIL_MAX_CPUS, sizeof(*t->heap));
	t->saved_cur = calloc(1, sizeof(*t->saved_cur));
	if (!t->cur || !t->heap || !t->saved_cur) {
		rt_err("out of memory\n");
		return RT_EXIT_IO;
	}
	rt_trace_rewind(t);
	return RT_EXIT_OK;
}

/**
 * rt_trace_zones() - read a found region's zones, whatever their state
 * @t: with its region found
 *
 * Return: RT_EXIT_OK, or RT_EXIT_IO if memory runs out.
 */
int rt_trace_zones(struct rt_trace *t)
{
	rt_use_zones(t);
	return rt_trace_cursors(t);
}

/**
 * rt_trace_choose() - pick the trace of a boot from a found region
 * @t: with its region found
 * @boot: boot id, or -1 for the newest trace: the zones if they hold one,
 *	else the newest saved trace
 *
 * Return: RT_EXIT_OK, or RT_EXIT_NOTRACE after saying why.
 */
int rt_trace_choose(struct rt_trace *t, s64 boot)
{
	const struct ramtrail_region_header *h = &t->reg.hdr;
	const struct ramtrail_saved_trace *s, *pick = NULL;
	bool erased = false;
	u64 pos = 0;

	if (ramtrail_zones_hold_trace(&t->reg, t->reg_err) &&
	    (boot < 0 || le64_to_cpu(h->boot_id) == boot))
		return rt_trace_zones(t);
	while ((s = ramtrail_saved_next(&t->reg, &pos))) {
		if (boot >= 0 && le64_to_cpu(s->boot_id) != (u64)boot)
			continue;
		if (!ramtrail_saved_all_erased(s))
			pick = s;
		else
			erased = true;
	}
	if (!pick) {
		if (boot < 0 && t->reg_err)
			rt_err("the region holds no trace (boot header: %s%s%s; no saved trace)\n",
			       ramtrail_strerror(t->reg_err),
			       t->reg.bad ? ": " : "", t->reg.bad ?: "");
		else if (boot < 0)
			rt_err("the region holds no trace (zones %s, no saved trace)\n",
			       ramtrail_state_name(le32_to_cpu(h->state)));
		else
			rt_err("the trace of boot %lld %s (see 'ramtrail stats')\n",
			       (long long)boot, erased ? "was erased" :
			       "is not in the region");
		return RT_EXIT_NOTRACE;
	}
	rt_use_saved(t, pick);
	return rt_trace_cursors(t);
}

/* "CPU:%d ts:%llu %08lx  %08lx  %ps <- %pS": fs/pstore/inode.c */
static bool rt_pstore_line(char *line, struct rt_pstore_line *l)
{
	char *p = line, *arrow;

	memset(l, 0, sizeof(*l));	/* no task until a text names one */
	if (strncmp(p, "CPU:", 4))
		return false;
	l->cpu = strtoul(p + 4, &p, 10);
	if (strncmp(p, " ts:", 4) || l->cpu >= RAMTRAIL_MAX_CPUS)
		return false;
	l->ns = strtoull(p + 4, &p, 10);
	if (*p != ' ')
		return false;
	l->ip = strtoull(p + 1, &p, 16);
	if (strncmp(p, "  ", 2))
		return false;
	l->parent = strtoull(p + 2, &p, 16);
	if (strncmp(p, "  ", 2))
		return false;
	arrow = strstr(p + 2, " <- ");
	if (!arrow || arrow == p + 2 || !arrow[4])
		return false;
	*arrow = 0;
	l->ip_sym = p + 2;
	l->parent_sym = arrow + 4;
	return true;
}

/**
 * rt_pstore_parse() - read a pstore ftrace file as a trace
 * @img: the file, starting with "CPU:"; its lines are cut in place
 * @t: filled on success
 *
 * Lines that are not records are counted and reported, not fatal; a
 * trace without function records has no ftrace file, and @img may be
 * empty (rt_pstore_names() reads the text's records).
 *
 * Return: RT_EXIT_OK, or RT_EXIT_IO if memory runs out.
 */
int rt_pstore_parse(struct rt_image *img, struct rt_trace *t)
{
	char *p = (char *)img->buf, *end = p + img->len, *nl;
	u64 cap = 0, bad = 0;

	memset(t, 0, sizeof(*t));
	t->kind = RT_PSTORE;
	if (img->mapped && img->len && end[-1] != '\n') {
		/* Lines are cut in place: the last one needs a byte after it. */
		char *copy = malloc(img->len + 1);

		if (!copy) {
			rt_err("out of memory\n");
			return RT_EXIT_IO;
		}
		memcpy(copy, img->buf, img->len);
		munmap(img->buf, img->len);
		img->buf = (u8 *)copy;
		img->mapped = false;
		p = copy;
		end = p + img->len;
	}
	while (p < end) {
		struct rt_pstore_line *grown;

		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;	/* no newline: rt_image_read() left room */
		*nl = 0;
		rt_printable(p, nl - p);	/* pstore's names, forged or not */
		if (t->nr_lines == cap) {
			cap = cap ? 2 * cap : 4096;
			grown = realloc(t->lines, cap * sizeof(*grown));
			if (!grown) {
				rt_err("out of memory\n");
				return RT_EXIT_IO;
			}
			t->lines = grown;
		}
		if (rt_pstore_line(p, &t->lines[t->nr_lines])) {
			if (t->lines[t->nr_lines].cpu >= t->nr_cpus)
				t->nr_cpus = t->lines[t->nr_lines].cpu + 1;
			t->nr_lines++;
		} else if (*p) {
			bad++;
		}
		p = nl + 1;
	}
	if (bad)
		rt_err("%s: %llu lines are not records, skipped\n",
		       img->path, (unsigned long long)bad);
	return RT_EXIT_OK;
}

/*
 * The part N a path names, "ftrace-ramtrail-N" or one of its text files,
 * "console-ramtrail-M" (M / 100 = N: a trace without function records
 * has no ftrace file); -1 for another name. @text: it is a text file.
 */
static long long rt_pstore_part(const char *path, bool *text)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	long long n, div = 1;
	char *end;

	*text = !strncmp(base, "console-ramtrail-", 17);
	if (*text) {
		base += 17;
		div = 100;
	} else if (!strncmp(base, "ftrace-ramtrail-", 16)) {
		base += 16;
	} else {
		return -1;
	}
	if (!isdigit((unsigned char)*base))
		return -1;
	n = strtoll(base, &end, 10) / div;
	return *end || n < 0 || n > LLONG_MAX / 100 - 100 ? -1 : n;
}

/** rt_pstore_text_part() - the path names a text file of a trace's part */
bool rt_pstore_text_part(const char *path)
{
	bool text;

	return rt_pstore_part(path, &text) >= 0 && text;
}

/*
 * The "# trace:" line of the header of a part's first text file @first
 * (ramtrail_text_header()), into @line without its file number: each of
 * the part's other files begins with it, its own number after it.
 * Return: false if it has none (a module before 0.23 wrote the part: its
 * other files have no header).
 */
static bool rt_pstore_trace_line(const struct rt_image *first, char *line,
				 size_t len)
{
	const char *p = (const char *)first->buf, *end = p + first->len, *nl;
	size_t n;

	for (; p < end && *p == '#'; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			return false;
		n = nl - p;
		if (n > 9 && n < len + 2 && !strncmp(p, "# trace: ", 9) &&
		    !strncmp(nl - 7, " file 1", 7)) {
			snprintf(line, len, "%.*s", (int)n - 2, p);
			return true;
		}
	}
	return false;
}

/*
 * Append the text files of the part @path is the ftrace file of,
 * console-ramtrail-(N * 100) and up in its folder, to @text: those that
 * begin with the line their part's first file names them by (an archive
 * can keep an older trace's files under names a newer part did not
 * take). Return: the files read.
 */
static int rt_pstore_text_files(const char *path, struct rt_image *text)
{
	const char *base = strrchr(path, '/');
	int dir = base ? (int)(base - path) + 1 : 0;
	char name[4096], line[192] = "", want[208];
	int i, fd, err;
	bool is_text, named = false;
	long long n = rt_pstore_part(path, &is_text);

	for (i = 0; n >= 0 && i < 100; i++) {
		struct rt_image f = { .path = path };

		snprintf(name, sizeof(name), "%.*sconsole-ramtrail-%lld", dir,
			 path, n * 100 + i);
		fd = open(name, O_RDONLY);
		if (fd < 0)
			break;
		err = rt_image_read_fd(&f, fd);
		close(fd);
		if (err)
			break;
		if (!text->buf) {
			*text = f;
			continue;
		}
		if (i == 1)
			named = rt_pstore_trace_line(text, line, sizeof(line));
		snprintf(want, sizeof(want), "%s %d\n", line, i + 1);
		if (named && (f.len < strlen(want) ||
			      memcmp(f.buf, want, strlen(want)))) {
			rt_err("%s: not read, nor the files after it: not a file of the trace of %.*sconsole-ramtrail-%lld (it does not begin with \"%s %d\")\n",
			       name, dir, path, n * 100, line, i + 1);
			rt_image_free(&f);
			break;
		}
		err = rt_image_append(text, &f);
		rt_image_free(&f);
		if (err)
			break;
	}
	return i;
}

/*
 * The columns of a text line before what it says, as
 * ramtrail_text_record() writes them: "%16.16s-%-7d [%03d] FLAGS
 * %5llu.%06llu: ". Read by column, not by looking for " [" or '-': a
 * comm is any 15 bytes (prctl(PR_SET_NAME)) and may hold both. Cut in
 * place: @l's task (@l->comm NULL for "<unknown>-?"), CPU and context,
 * the time in microseconds at @us. Return: what follows the prefix, or
 * NULL if @line has none.
 */
static char *rt_text_prefix(char *line, struct rt_pstore_line *l, u64 *us)
{
	static const char ctx[] = ".shz";	/* ramtrail_text_flags() */
	unsigned long long sec = 0, usec = 0;
	char *p, *comm, *c;
	u32 n, cpu = 0;
	u64 pid = 0;

	memset(l, 0, sizeof(*l));
	if (strnlen(line, 17) < 17 || line[16] != '-')
		return NULL;
	/* "%-7d": the pid and spaces, at least 7 columns, then " [" */
	p = line + 17;
	if (*p == '?') {
		p++;
	} else {
		for (n = 0; isdigit((unsigned char)*p) && n < 10; n++, p++)
			pid = pid * 10 + *p - '0';
		if (!n || pid > U32_MAX)
			return NULL;
	}
	while (*p == ' ' && p < line + 24)
		p++;
	if (p < line + 24 || p[0] != ' ' || p[1] != '[')
		return NULL;
	for (p += 2, n = 0; isdigit((unsigned char)*p) && n < 4; n++, p++)
		cpu = cpu * 10 + *p - '0';
	if (n < 3 || cpu >= RAMTRAIL_MAX_CPUS || strncmp(p, "] ", 2) ||
	    strnlen(p + 2, 6) < 6 || p[7] != ' ')
		return NULL;
	c = memchr(ctx, p[4], 4);
	l->ctx = c ? c - ctx : RAMTRAIL_CTX_TASK;
	l->flags = (p[2] == 'd' ? RAMTRAIL_EF_IRQS_OFF : 0) |
		   (p[3] == 'N' ? RAMTRAIL_EF_NEED_RESCHED : 0);
	/* "%5llu.%06llu: " */
	for (p += 8; *p == ' '; p++)
		;
	for (n = 0; isdigit((unsigned char)*p) && n < 19; n++, p++)
		sec = sec * 10 + *p - '0';
	if (!n || *p++ != '.')
		return NULL;
	for (n = 0; n < 6 && isdigit((unsigned char)*p); n++, p++)
		usec = usec * 10 + *p - '0';
	if (n < 6 || strncmp(p, ": ", 2))
		return NULL;
	/* "%16.16s": the comm right-aligned in columns 0 to 15 */
	line[16] = 0;
	for (comm = line; *comm == ' '; comm++)
		;
	if (line[17] != '?') {
		l->comm = comm;
		l->pid = pid;
	}
	l->cpu = cpu;
	*us = sec * 1000000 + usec;
	return p + 2;
}

/*
 * What a function line says, "func <-caller" (@what, cut in place): its
 * names into @l; false for any other line (an event's "name: fields").
 */
static bool rt_text_function(char *what, struct rt_pstore_line *l)
{
	char *arrow;

	if (strstr(what, ": "))
		return false;
	arrow = strstr(what, " <-");
	if (arrow)
		*arrow = 0;
	l->ip_sym = what;
	l->parent_sym = arrow ? arrow + 3 : NULL;
	return true;
}

/* The value of enum ramtrail_state or ramtrail_freeze_reason @name is. */
static int rt_enum_value(const char *name, const char *(*of)(u32), u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++)
		if (!strcmp(of(i), name))
			return i;
	return -1;
}

/*
 * The header a part's text begins with (ramtrail_text_header()), into @t:
 * its boot, kernel, how it ended, its counts. A part whose header names
 * another trace than the parts before it sets @t->header.mixed.
 */
static void rt_pstore_header(struct rt_trace *t, const char *text)
{
	struct rt_pstore_header *h = &t->header, got = { 0 };
	char release[65], state[32], reason[32] = "none";
	unsigned long long boot, boot2, part;
	int st, re = 0, n = 0;
	u32 cpus, cpu = 0;
	const char *nl;

	if (sscanf(text, "# ramtrail: boot %llu (%64[^)\n]), saved trace, %u CPUs, %31[a-z]%n",
		   &boot, release, &cpus, state, &n) != 4 || !n)
		return;
	text += n;
	if (!strncmp(text, " by ", 4) &&
	    sscanf(text, " by %31s on CPU %u", reason, &cpu) != 2)
		return;
	st = rt_enum_value(state, ramtrail_state_name, RAMTRAIL_STATE_NR);
	re = rt_enum_value(reason, ramtrail_reason_name, RAMTRAIL_FREEZE_NR);
	nl = strchr(text, '\n');
	if (st < 0 || re < 0 || !nl ||
	    sscanf(nl + 1, "# build: %64[^\n]", got.build) != 1)
		return;
	nl = strchr(nl + 1, '\n');
	if (!nl || sscanf(nl + 1, "# trace: nonce %16llx boot %llu part %llu of %llu",
			  &got.nonce, &boot2, &part, &got.parts) != 4 ||
	    boot2 != boot || !part || part > got.parts)
		return;
	nl = strchr(nl + 1, '\n');
	n = 0;
	if (!nl || sscanf(nl + 1, "# records: %llu, lost %llu, damaged blocks %llu, %n",
			  &got.records, &got.lost, &got.damaged, &n) != 3 || !n ||
	    sscanf(nl + 1 + n, "torn %llu, without time %llu, left out %llu",
		   &got.torn, &got.no_time, &got.left_out) != 3)
		return;
	got.nr_parts = h->nr_parts + 1;
	if (h->nr_parts) {
		/* The parts of one trace have one header but for the part. */
		h->mixed |= got.nonce != h->nonce || boot != t->boot_id ||
			    st != t->state || re != t->freeze_reason ||
			    cpu != t->freeze_cpu || got.records != h->records ||
			    got.parts != h->parts;
		h->nr_parts++;
		return;
	}
	*h = got;
	/* A forged text's release and build, as an image's: no escape. */
	rt_printable(h->build, sizeof(h->build));
	t->boot_id = boot;
	memcpy(t->release, release, sizeof(release));
	rt_printable(t->release, sizeof(t->release));
	t->state = st;
	t->freeze_reason = re;
	t->freeze_cpu = cpu;
	if (cpus <= RAMTRAIL_MAX_CPUS && cpus > t->nr_cpus)
		t->nr_cpus = cpus;
}

/* The records of a trace as the name pass puts them in order. */
struct rt_pstore_out {
	struct rt_pstore_line *l;
	u64 n;
	u64 cap;
	bool oom;
};

static void rt_pstore_push(struct rt_pstore_out *o,
			   const struct rt_pstore_line *l)
{
	struct rt_pstore_line *grown;

	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 4096;
		grown = realloc(o->l, o->cap * sizeof(*grown));
		if (!grown) {
			o->oom = true;
			return;
		}
		o->l = grown;
	}
	o->l[o->n++] = *l;
}

/*
 * Keep the text files @text of a part with @t, which its lines point
 * into. Return: false if memory runs out (@text is freed).
 */
static bool rt_pstore_keep(struct rt_trace *t, struct rt_image *text)
{
	char **keep = realloc(t->texts, (t->nr_texts + 1) * sizeof(*keep));

	if (!keep) {
		rt_image_free(text);
		return false;
	}
	t->texts = keep;
	t->texts[t->nr_texts++] = (char *)text->buf;
	return true;
}

/*
 * The records of the part @path names, in order, into @o: the lines
 * @l[0..n) of its ftrace file, named from the text files of its part in
 * step (the k-th line unnamed takes the names of the k-th function line
 * of the text, which the module wrote from the same record), and the
 * events of the text between them, where the text has them. A line whose
 * CPU or time differs from its text line's ends the naming: that text is
 * not the file's, and its later events go by their time among the file's
 * later lines. A part without an ftrace file (@path its text) takes its
 * function records from the text. A line of the text that is neither the
 * header nor a record's is counted in @t->unreadable. Return: the lines
 * named.
 */
static long long rt_pstore_name_file(struct rt_trace *t, const char *path,
				     struct rt_pstore_line *l, u64 n,
				     struct rt_pstore_out *o)
{
	struct rt_pstore_out late = { 0 };
	struct rt_image text = { .path = path };
	bool in_step = true, own = rt_pstore_text_part(path);
	struct ramtrail_text_scan scan;
	struct ramtrail_record z;
	struct rt_pstore_line fn;
	char *p, *end, *nl, *what;
	long long named = 0;
	u64 i = 0, k = 0, us;

	if (!rt_pstore_text_files(path, &text) || !rt_pstore_keep(t, &text)) {
		while (i < n)
			rt_pstore_push(o, &l[i++]);
		return 0;
	}
	p = (char *)text.buf;
	end = p + text.len;
	rt_pstore_header(t, p);
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		*nl = 0;
		/* Its names and text go to terminals, files and the journal. */
		rt_printable(p, nl - p);
		if (!*p || *p == '#')
			continue;	/* the header */
		what = rt_text_prefix(p, &fn, &us);
		if (what && !rt_text_function(what, &fn)) {
			if (!ramtrail_text_scan_event(&z, what, &scan))
				what = NULL;
			fn.event = what;
		}
		if (!what) {
			t->unreadable++;
			continue;
		}
		fn.ns = us * 1000;
		if (fn.cpu >= t->nr_cpus && (fn.event || own))
			t->nr_cpus = fn.cpu + 1;
		if (fn.event || own) {
			rt_pstore_push(in_step ? o : &late, &fn);
			continue;
		}
		if (!in_step)
			continue;
		for (; i < n && strncmp(l[i].ip_sym, "0x", 2); i++)
			rt_pstore_push(o, &l[i]);	/* pstore named it */
		if (i == n || fn.cpu != l[i].cpu ||
		    us != ramtrail_text_usecs(l[i].ns)) {
			in_step = false;
			continue;
		}
		l[i].ip_sym = fn.ip_sym;
		if (fn.parent_sym)
			l[i].parent_sym = fn.parent_sym;
		l[i].comm = fn.comm;
		l[i].pid = fn.pid;
		l[i].ctx = fn.ctx;
		rt_pstore_push(o, &l[i++]);
		named++;
	}
	/* The file's lines the text did not name, and the events among them. */
	while (i < n || k < late.n) {
		bool file = k == late.n || (i < n && l[i].ns <= late.l[k].ns);

		rt_pstore_push(o, file ? &l[i++] : &late.l[k++]);
	}
	o->oom |= late.oom;
	free(late.l);
	return named;
}

/**
 * rt_pstore_names() - read ramtrail's pstore files' text with their records
 * @t: what rt_pstore_parse() read from @buf
 * @buf: the ftrace files, one after the other
 * @paths: the files given, in order: each part's ftrace file, or its first
 *	text file for a part without one
 * @from: where each starts in @buf (a text file: empty)
 * @n: entries of @paths and @from
 *
 * ramtrail's ftrace file gives each function as its offset in the trace,
 * which pstore prints as a number: an address would give the reading
 * boot's layout away. The part's text files beside it,
 * console-ramtrail-(N * 100) and up, hold the same function records in
 * the same order, named; they name the file's lines. Lines pstore named
 * keep their names, lines no text names keep their numbers. The text
 * also holds the part's events, which no other file keeps: they join the
 * records where the text has them. Lines of the text that cannot be read
 * are counted (@t->unreadable) and said.
 *
 * Return: RT_EXIT_OK, RT_EXIT_NOTRACE (said) if the files hold no
 * record, or RT_EXIT_IO if memory runs out.
 */
int rt_pstore_names(struct rt_trace *t, const u8 *buf, char *const *paths,
		    const u64 *from, int n)
{
	struct rt_pstore_out o = { 0 };
	u64 i = 0, j;
	int k;

	for (k = 0; k < n; k++) {
		u64 stop = k + 1 < n ? from[k + 1] : ~0ULL;

		for (j = i; j < t->nr_lines &&
		     (u64)((u8 *)t->lines[j].ip_sym - buf) < stop; j++)
			;
		/* no line of its own (a text file): no pointer into none */
		rt_pstore_name_file(t, paths[k], j > i ? t->lines + i : NULL,
				    j - i, &o);
		i = j;
	}
	free(t->lines);
	t->lines = o.l;
	t->nr_lines = o.n;
	if (o.oom) {
		rt_err("out of memory\n");
		return RT_EXIT_IO;
	}
	if (t->unreadable)
		rt_err("%llu lines of the text files beside the pstore files cannot be read, skipped\n",
		       (unsigned long long)t->unreadable);
	if (!t->nr_lines) {
		rt_err("%s: no record in the pstore files\n", paths[0]);
		return RT_EXIT_NOTRACE;
	}
	return RT_EXIT_OK;
}

/** rt_trace_rewind() - read the chosen trace again from its start */
void rt_trace_rewind(struct rt_trace *t)
{
	t->next = 0;
	t->invalid = 0;
	if (t->kind == RT_ZONES)
		ramtrail_merge_init(&t->merge, &t->reg, t->cur, t->heap);
	if (t->kind == RT_SAVED)
		ramtrail_saved_open(t->saved_cur, t->saved);
}

/* @r's fields from a decoded record of the trace, but its time. */
static void rt_rec_fill(const struct rt_trace *t, struct rt_rec *r,
			const struct ramtrail_record *z)
{
	r->cpu = z->cpu;
	r->type = z->type;
	r->id = z->id;
	r->len = z->len;
	r->data = z->data;
	r->ctx = z->ctx;
	r->flags = z->flags;
	r->task_known = z->task_known;
	if (z->task_known) {
		r->pid = le32_to_cpu(z->task.pid);
		r->tgid = le32_to_cpu(z->task.tgid);
		memcpy(r->comm, z->task.comm, RAMTRAIL_COMM_LEN);
		/* A forged image's comm reaches every output from here. */
		rt_printable(r->comm, RAMTRAIL_COMM_LEN);
	}
	if (z->type != RAMTRAIL_W_EVENT)
		r->ip = t->text_base + z->ip;
	if (z->type == RAMTRAIL_W_FUNC_PARENT && z->parent)
		r->parent = t->text_base + z->parent;
}

/*
 * The event of text line @l, read back (rt_pstore_name_file() read it
 * once): its payload into @t->event, the function it names as @r's
 * @ip_sym, the tasks it names as @r's @named.
 */
static void rt_pstore_event(struct rt_trace *t, const struct rt_pstore_line *l,
			    struct rt_rec *r)
{
	struct ramtrail_text_scan s;

	ramtrail_text_scan_event(&t->event, l->event, &s);
	r->type = RAMTRAIL_W_EVENT;
	r->id = t->event.id;
	r->len = t->event.len;
	r->data = t->event.data;
	r->flags = l->flags | l->ctx;
	memcpy(t->func, s.func, sizeof(t->func));
	r->ip_sym = t->func[0] ? t->func : NULL;
	r->nr_named = s.nr_tasks;
	memcpy(r->named, s.task, sizeof(r->named));
}

/**
 * rt_trace_next() - the next record of a trace, in time order
 * @t: the trace
 * @r: filled; its @data stays valid until the next call
 *
 * Return: false at the end.
 */
bool rt_trace_next(struct rt_trace *t, struct rt_rec *r)
{
	const struct ramtrail_record *z;
	const struct rt_pstore_line *l;

	memset(r, 0, sizeof(*r));
	switch (t->kind) {
	case RT_ZONES:
		z = ramtrail_merge_next(&t->merge);
		if (!z)
			return false;
		r->ns = ramtrail_ts_to_ns(&t->reg.hdr, z->ts);
		r->ts = z->ts;
		rt_rec_fill(t, r, z);
		return true;
	case RT_SAVED:
		z = ramtrail_saved_read(t->saved_cur, t->saved_cur->nr);
		t->invalid = t->saved_cur->bad;
		if (!z)
			return false;
		r->ns = z->ts;	/* saved in nanoseconds */
		r->ts = z->ts;
		rt_rec_fill(t, r, z);
		return true;
	case RT_PSTORE:
		if (t->next >= t->nr_lines)
			return false;
		l = &t->lines[t->next++];
		r->ns = l->ns;
		r->cpu = l->cpu;
		r->type = RAMTRAIL_W_FUNC_PARENT;
		r->ip = l->ip;
		r->parent = l->parent;
		r->ip_sym = l->ip_sym;
		r->parent_sym = l->parent_sym;
		r->ctx = l->ctx;
		if (l->event)
			rt_pstore_event(t, l, r);
		/* The text gives the thread alone: its process is itself. */
		r->task_known = l->comm;
		if (l->comm) {
			r->pid = l->pid;
			r->tgid = l->pid;
			snprintf(r->comm, sizeof(r->comm), "%s", l->comm);
		}
		return true;
	}
	return false;
}

/** rt_trace_free() - release what choosing and reading a trace took */
void rt_trace_free(struct rt_trace *t)
{
	free(t->cur);
	free(t->heap);
	free(t->lines);
	while (t->nr_texts)
		free(t->texts[--t->nr_texts]);
	free(t->texts);
	free(t->saved_cur);
	free(t->mods_conv);
	t->saved_cur = NULL;
	t->mods_conv = NULL;
	t->mods = NULL;
	t->nr_mods = 0;
	t->cur = NULL;
	t->heap = NULL;
	t->lines = NULL;
	t->texts = NULL;
}
