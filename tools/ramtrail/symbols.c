// SPDX-License-Identifier: GPL-2.0
/*
 * Names for the addresses of a trace, in the recording boot's terms.
 *
 * Kernel text: System.map holds link-time addresses. The region saved the
 * address of panic() in the recording boot, so the KASLR delta is that
 * address minus panic's in System.map. On x86-64 KASLR moves the kernel by
 * multiples of 2 MiB (CONFIG_PHYSICAL_ALIGN): any other delta means the map
 * is not the traced kernel's, and no name is printed at all. So does a map
 * whose RAMTRAIL_KERNEL_FUNCS lie elsewhere from panic() than the traced
 * boot's (its module table's kernel entry): another build of the release.
 *
 * Modules: the region saved each module's text base and size, and those of
 * its init text with the time the init ended. A .ko is an ELF relocatable;
 * the loader lays its executable sections out back to back in section
 * order, each at its alignment: those not named .init* in the module's
 * text, the others in its init text. Doing the same gives every function's
 * offset from the start of its text. The kernel frees init text once run,
 * and a later module often takes its place: which one an address names
 * depends on the record's time (ramtrail_module_find()).
 *
 * Like kallsyms, a symbol's size runs to the next symbol, and of several
 * names at one address the first in kallsyms order wins (strong before
 * weak, fewer leading underscores, then file order).
 */
#include <elf.h>
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ramtrail.h"

#define RT_PAGE_ALIGN(x)	(((x) + 4095) & ~4095ULL)

struct rt_sym {
	u64 addr;	/* link-time, module text offset, then bound */
	u64 end;	/* end of the text it lies in, once bound */
	const char *name;
	const char *mod;	/* NULL: kernel */
	u32 order;
	u32 entry;	/* bound: 1 + module table entry, 0 if none */
	bool init;	/* in a .ko: in its init text */
	bool freed;	/* bound: in init text freed before the boot's end */
	char type;
};

struct rt_ko {
	char name[56];
	const char *path;
	u64 text_size;
	u64 init_size;	/* of its init text */
	bool plts;	/* the loader adds text of its own after these */
	u64 syms_hash;	/* of its text's functions: an entry's funcs_hash */
	struct rt_sym *syms;
	size_t nr;
};

struct rt_symbols {
	char *map_text;
	struct rt_sym *map;
	size_t nr_map;
	u64 stext, etext, panic;
	const char *map_path;
	struct rt_ko *ko;
	size_t nr_ko, ko_cap;
	struct rt_sym *v;	/* bound: recording-boot addresses, sorted */
	size_t n;
	bool owns_names;	/* names in @v were allocated for it */
	bool oom;		/* a symbol was left out: out of memory */
	s64 delta;
};

/*
 * Room for element @n of the array @p of *@cap elements: the array, maybe
 * moved, or NULL (out of memory; @p and *@cap unchanged).
 */
static void *rt_grow(void *p, size_t *cap, size_t n, size_t size)
{
	size_t more = *cap ? 2 * *cap : 1024;

	if (n < *cap)
		return p;
	p = realloc(p, more * size);
	if (p)
		*cap = more;
	return p;
}

/* Out of memory while reading symbols: said once, an error at the end. */
static int rt_oom(struct rt_symbols *s)
{
	if (!s->oom)
		rt_err("out of memory: symbols left out\n");
	s->oom = true;
	return RT_EXIT_IO;
}

/**
 * rt_symbols_new() - an empty symbol set (prints no names)
 *
 * Return: the set, or NULL if out of memory.
 */
struct rt_symbols *rt_symbols_new(void)
{
	return calloc(1, sizeof(struct rt_symbols));
}

static bool rt_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/**
 * rt_symbols_load_map() - read a System.map, or /proc/kallsyms
 * @s: the set
 * @path: the file ("address type name" lines); /proc/kallsyms of any boot
 *	of the traced kernel will do: its own KASLR offset cancels out
 *
 * Return: RT_EXIT_OK, RT_EXIT_IO, or RT_EXIT_SYMBOLS if it names no panic().
 */
int rt_symbols_load_map(struct rt_symbols *s, const char *path)
{
	struct rt_image img;
	struct rt_sym *map;
	size_t cap = 0, i;
	char *p, *end;
	int err;

	err = rt_image_read(&img, path);
	if (err)
		return err;
	/* Keep a NUL-terminated copy: names point into it. */
	s->map_text = malloc(img.len + 1);
	if (!s->map_text) {
		rt_image_free(&img);
		return rt_oom(s);
	}
	memcpy(s->map_text, img.buf, img.len);
	s->map_text[img.len] = 0;
	rt_image_free(&img);
	s->map_path = path;
	for (p = s->map_text; *p; p = end) {
		char *nl = strchr(p, '\n'), *name, type;
		u64 addr;

		end = nl ? nl + 1 : p + strlen(p);
		if (nl)
			*nl = 0;
		addr = strtoull(p, &name, 16);
		if (name == p || name[0] != ' ' || !name[1] || name[2] != ' ')
			continue;
		type = name[1];
		name += 3;
		if (strchr(name, '\t'))
			continue;	/* a module's, in /proc/kallsyms */
		if (!strcmp(name, "_stext"))
			s->stext = addr;
		else if (!strcmp(name, "_etext"))
			s->etext = addr;
		else if (!strcmp(name, "panic"))
			s->panic = addr;
		if (!rt_is_text(type))
			continue;
		map = rt_grow(s->map, &cap, s->nr_map, sizeof(*s->map));
		if (!map)
			return rt_oom(s);
		s->map = map;
		s->map[s->nr_map] = (struct rt_sym){
			.addr = addr, .name = name, .type = type,
			.order = s->nr_map,
		};
		s->nr_map++;
	}
	for (i = 0; i < s->nr_map && !s->map[i].addr; i++)
		;
	if (s->nr_map && i == s->nr_map) {
		rt_err("%s: every address is 0: /proc/kallsyms read without root hides them, read it as root\n",
		       path);
		return RT_EXIT_SYMBOLS;
	}
	if (!s->panic || !s->nr_map) {
		rt_err("%s: not a System.map (no text symbols, or no panic)\n",
		       path);
		return RT_EXIT_SYMBOLS;
	}
	if (!s->stext || !s->etext || s->etext <= s->stext) {
		rt_err("%s: no _stext/_etext\n", path);
		return RT_EXIT_SYMBOLS;
	}
	return RT_EXIT_OK;
}

static const Elf64_Shdr *rt_elf_shdr(const u8 *b, u64 len, u32 i)
{
	const Elf64_Ehdr *e = (const void *)b;

	return (const void *)(b + e->e_shoff + (u64)i * e->e_shentsize);
}

static bool rt_elf_in(u64 len, u64 off, u64 size)
{
	return off <= len && size <= len - off;
}

/*
 * Parse one .ko: its name, text layout and function symbols. Return: 0,
 * -ENOMEM, or another negative number if @b is not a kernel module.
 */
static int rt_ko_parse(struct rt_ko *ko, const u8 *b, u64 len)
{
	const Elf64_Ehdr *e = (const void *)b;
	const Elf64_Shdr *sh, *sym_sh = NULL, *str_sh, *names;
	u64 *sec_off, off = 0, init_off = 0, *at;
	bool *sec_init;
	struct rt_sym *syms;
	size_t cap = 0;
	int err = 0;
	u32 i;

	if (len < sizeof(*e) || memcmp(e->e_ident, ELFMAG, SELFMAG) ||
	    e->e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->e_ident[EI_DATA] != ELFDATA2LSB || e->e_type != ET_REL ||
	    e->e_shentsize != sizeof(Elf64_Shdr) || !e->e_shnum ||
	    !rt_elf_in(len, e->e_shoff, (u64)e->e_shnum * sizeof(*sh)) ||
	    e->e_shstrndx >= e->e_shnum)
		return -1;
	names = rt_elf_shdr(b, len, e->e_shstrndx);
	if (!rt_elf_in(len, names->sh_offset, names->sh_size) ||
	    !names->sh_size)
		return -1;
	sec_off = calloc(e->e_shnum, sizeof(*sec_off));
	sec_init = calloc(e->e_shnum, sizeof(*sec_init));
	if (!sec_off || !sec_init) {
		free(sec_off);
		free(sec_init);
		return -ENOMEM;
	}
	for (i = 0; i < e->e_shnum; i++) {
		const char *name;
		u64 align;

		sh = rt_elf_shdr(b, len, i);
		sec_off[i] = ~0ULL;
		if (sh->sh_name >= names->sh_size)
			continue;
		name = (const char *)b + names->sh_offset + sh->sh_name;
		/* A name the table does not end is no section's. */
		if (strnlen(name, names->sh_size - sh->sh_name) ==
		    names->sh_size - sh->sh_name)
			continue;
		if (sh->sh_type == SHT_SYMTAB)
			sym_sh = sh;
		if (!strcmp(name, ".modinfo") &&
		    rt_elf_in(len, sh->sh_offset, sh->sh_size)) {
			const char *m = (const char *)b + sh->sh_offset;
			const char *mend = m + sh->sh_size;

			for (; m < mend; m += strnlen(m, mend - m) + 1)
				if (!strncmp(m, "name=", 5) &&
				    strnlen(m, mend - m) < mend - m)
					snprintf(ko->name, sizeof(ko->name),
						 "%s", m + 5);
		}
		/*
		 * arm64's loader sizes these placeholders (PLTs, ftrace's
		 * trampolines) at load, after the code: they move no function.
		 */
		if (e->e_machine == EM_AARCH64 &&
		    (!strcmp(name, ".plt") || !strcmp(name, ".init.plt") ||
		     !strcmp(name, ".text.ftrace_trampoline") ||
		     !strcmp(name, ".init.text.ftrace_trampoline"))) {
			ko->plts = true;
			continue;
		}
		/* The loader's text layout: core and init text, in order. */
		if ((sh->sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
		    (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		align = sh->sh_addralign ? sh->sh_addralign : 1;
		if (align & (align - 1))
			continue;
		sec_init[i] = !strncmp(name, ".init", 5);
		at = sec_init[i] ? &init_off : &off;
		*at = (*at + align - 1) & ~(align - 1);
		sec_off[i] = *at;
		*at += sh->sh_size;
	}
	ko->text_size = off;
	ko->init_size = init_off;
	if (!sym_sh || sym_sh->sh_link >= e->e_shnum ||
	    sym_sh->sh_entsize != sizeof(Elf64_Sym) ||
	    !rt_elf_in(len, sym_sh->sh_offset, sym_sh->sh_size))
		goto out;
	str_sh = rt_elf_shdr(b, len, sym_sh->sh_link);
	if (!rt_elf_in(len, str_sh->sh_offset, str_sh->sh_size) ||
	    !str_sh->sh_size || b[str_sh->sh_offset + str_sh->sh_size - 1])
		goto out;
	for (i = 0; i < sym_sh->sh_size / sizeof(Elf64_Sym); i++) {
		const Elf64_Sym *y = (const Elf64_Sym *)(b + sym_sh->sh_offset) + i;
		const char *y_name;

		if (ELF64_ST_TYPE(y->st_info) != STT_FUNC ||
		    y->st_shndx >= e->e_shnum || sec_off[y->st_shndx] == ~0ULL ||
		    y->st_name >= str_sh->sh_size)
			continue;
		syms = rt_grow(ko->syms, &cap, ko->nr, sizeof(*ko->syms));
		if (!syms) {
			err = -ENOMEM;
			goto out;
		}
		ko->syms = syms;
		ko->syms[ko->nr] = (struct rt_sym){
			.addr = sec_off[y->st_shndx] + y->st_value,
			.name = strdup((const char *)b + str_sh->sh_offset +
				       y->st_name),
			.type = ELF64_ST_BIND(y->st_info) == STB_GLOBAL ?
				'T' : 't',
			.order = ko->nr,
			.init = sec_init[y->st_shndx],
		};
		if (!ko->syms[ko->nr].name) {
			err = -ENOMEM;
			goto out;
		}
		y_name = ko->syms[ko->nr].name;
		/* As the kernel's: named functions of the core text. */
		if (!sec_init[y->st_shndx] && *y_name)
			ko->syms_hash = ramtrail_module_sym_add(ko->syms_hash,
								y_name,
								strlen(y_name),
								ko->syms[ko->nr].addr);
		ko->nr++;
	}
out:
	free(sec_off);
	free(sec_init);
	return err;
}

static void rt_ko_free(struct rt_ko *ko)
{
	size_t j;

	for (j = 0; j < ko->nr; j++)
		free((char *)ko->syms[j].name);
	free(ko->syms);
	free((char *)ko->path);
}

/* Decompress @path with @tool (xz, zstd) into memory, without a shell. */
static int rt_read_decompressed(struct rt_image *img, const char *tool,
				const char *path)
{
	int fd[2], status, err;
	pid_t pid;

	memset(img, 0, sizeof(*img));
	img->path = path;
	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execlp(tool, tool, "-dc", "--", path, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	err = rt_image_read_fd(img, fd[0]);
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || err) {
		rt_err("%s: cannot decompress with %s\n", path, tool);
		free(img->buf);
		img->buf = NULL;
		return -1;
	}
	return 0;
}

static bool rt_ends_with(const char *s, const char *end)
{
	size_t a = strlen(s), b = strlen(end);

	return a >= b && !strcmp(s + a - b, end);
}

static struct rt_symbols *rt_walk_set;

static int rt_walk_ko(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	struct rt_symbols *s = rt_walk_set;
	struct rt_ko ko = { 0 }, *all;
	struct rt_image img;
	char *p;
	int err;

	/* A FIFO or a device named .ko would block the walk or never end. */
	if (flag != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	if (rt_ends_with(path, ".ko")) {
		if (rt_image_read(&img, path))
			return 0;
	} else if (rt_ends_with(path, ".ko.xz") || rt_ends_with(path, ".ko.zst")) {
		if (rt_read_decompressed(&img, rt_ends_with(path, ".xz") ?
					 "xz" : "zstd", path))
			return 0;
	} else {
		return 0;
	}
	err = rt_ko_parse(&ko, img.buf, img.len);
	if (err) {
		rt_image_free(&img);
		rt_ko_free(&ko);
		if (err == -ENOMEM)
			return rt_oom(s);	/* stops the walk */
		rt_err("%s: not a kernel module, skipped\n", path);
		return 0;
	}
	rt_image_free(&img);
	if (!ko.name[0]) {
		/* No .modinfo name: the file name, as kmod would. */
		snprintf(ko.name, sizeof(ko.name), "%s",
			 strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
		ko.name[strcspn(ko.name, ".")] = 0;
		for (p = ko.name; *p; p++)
			if (*p == '-')
				*p = '_';
	}
	ko.path = strdup(path);
	all = rt_grow(s->ko, &s->ko_cap, s->nr_ko, sizeof(*s->ko));
	if (!all) {
		rt_ko_free(&ko);
		return rt_oom(s);	/* stops the walk */
	}
	s->ko = all;
	s->ko[s->nr_ko++] = ko;
	return 0;
}

/**
 * rt_symbols_load_modules() - read every module below a folder
 * @s: the set
 * @dir: the folder (searched recursively); .ko, .ko.xz and .ko.zst files
 *
 * Return: RT_EXIT_OK, or RT_EXIT_IO if @dir cannot be read.
 */
int rt_symbols_load_modules(struct rt_symbols *s, const char *dir)
{
	rt_walk_set = s;
	if (nftw(dir, rt_walk_ko, 16, FTW_PHYS)) {
		if (!s->oom)
			rt_err("%s: %s\n", dir, strerror(errno));
		return RT_EXIT_IO;
	}
	return RT_EXIT_OK;
}

static int rt_leading_underscores(const char *name)
{
	int n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/* kallsyms order (scripts/kallsyms.c): address, strong first, fewer "_". */
static int rt_sym_cmp(const void *a, const void *b)
{
	const struct rt_sym *x = a, *y = b;
	int wx, wy;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	wx = x->type == 'w' || x->type == 'W';
	wy = y->type == 'w' || y->type == 'W';
	if (wx != wy)
		return wx - wy;
	wx = rt_leading_underscores(x->name);
	wy = rt_leading_underscores(y->name);
	if (wx != wy)
		return wx - wy;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Add @y, moved by @delta, to the bound set; left out if out of memory. */
static void rt_add(struct rt_symbols *s, size_t *cap, const struct rt_sym *y,
		   u64 delta, u64 end, const char *mod, u32 entry)
{
	struct rt_sym *v = rt_grow(s->v, cap, s->n, sizeof(*s->v));

	if (!v) {
		rt_oom(s);
		return;
	}
	s->v = v;
	s->v[s->n] = *y;
	s->v[s->n].addr += delta;
	s->v[s->n].end = end;
	s->v[s->n].mod = mod;
	s->v[s->n].entry = entry;
	s->n++;
}

/*
 * "System.map-6.1.0-56-amd64" names its release; a map that names another
 * release than the trace's is the wrong map.
 */
static bool rt_map_release_differs(const char *path, const char *release)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	return !strncmp(base, "System.map-", 11) && release[0] &&
	       strcmp(base + 11, release);
}

/* "name+0xoff/0xsize [mod]" or "name [mod]", as pstore printed it. */
static void rt_add_printed(struct rt_symbols *s, size_t *cap, u64 addr,
			   const char *printed)
{
	const char *mod = strstr(printed, " [");
	size_t len = strcspn(printed, "+ ");
	unsigned long long off = 0, size = 1;
	struct rt_sym y = { .type = 't' };

	if (!len || printed[0] == '[' || !strncmp(printed, "0x", 2))
		return;		/* pstore found no name either */
	if (printed[len] == '+' &&
	    sscanf(printed + len, "+0x%llx/0x%llx", &off, &size) != 2)
		return;
	if (off > addr)
		return;
	y.name = strndup(printed, len);
	y.mod = mod ? strndup(mod + 2, strcspn(mod + 2, "]")) : NULL;
	y.order = s->n;
	rt_add(s, cap, &y, 0, addr - off + size, y.mod, 0);
	s->v[s->n - 1].addr = addr - off;
	s->owns_names = true;
}

/* A pstore file names its addresses itself: keep those names. */
static void rt_symbols_from_pstore(struct rt_symbols *s, struct rt_trace *t)
{
	size_t cap = 0, i, k;
	struct rt_rec r;

	while (rt_trace_next(t, &r)) {
		/* A name the text gives without its address has no place. */
		if (r.parent_sym && r.parent)
			rt_add_printed(s, &cap, r.parent, r.parent_sym);
		if (r.ip_sym && r.ip)
			rt_add_printed(s, &cap, r.ip, r.ip_sym);
	}
	rt_trace_rewind(t);
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), rt_sym_cmp);
	for (i = k = 0; i < s->n; i++) {	/* one entry per (addr, name) */
		if (k && s->v[k - 1].addr == s->v[i].addr &&
		    !strcmp(s->v[k - 1].name, s->v[i].name)) {
			free((char *)s->v[i].name);
			free((char *)s->v[i].mod);
			continue;
		}
		s->v[k++] = s->v[i];
	}
	s->n = k;
}

/*
 * Whether @ko may name entry @i of @t's module table: not when the table
 * keeps the hash of the traced build's functions (its funcs_hash) and
 * @ko's differs. An init text entry follows its module's text entry,
 * written with it: that one's hash says. Said once, at the text entry.
 */
static bool rt_ko_traced(const struct rt_trace *t, size_t i,
			 const struct rt_ko *ko)
{
	const struct ramtrail_module_entry *m = &t->mods[i];
	bool init = le32_to_cpu(m->flags) & RAMTRAIL_MOD_INIT;

	if (init) {
		if (!i || (le32_to_cpu(m[-1].flags) & RAMTRAIL_MOD_INIT) ||
		    strncmp(m[-1].name, m->name, sizeof(m->name)))
			return true;	/* a module with no text: no hash */
		m--;
		if (le32_to_cpu(m->checksum) != ramtrail_module_checksum(m))
			return false;
	}
	if (!le64_to_cpu(m->funcs_hash) || le64_to_cpu(m->funcs_hash) == ko->syms_hash)
		return true;
	if (!init)
		rt_err("%s: its functions lie elsewhere than in the traced %s (another build): not used\n",
		       ko->path, ko->name);
	return false;
}

/*
 * Whether @s's map is of the traced build: the trace's kernel entry
 * (RAMTRAIL_MOD_KERNEL) keeps the hash of where RAMTRAIL_KERNEL_FUNCS lay,
 * from panic(). A trace whose writer could not tell its kernel's build
 * has none: its release says alone. Return: RT_EXIT_OK, or RT_EXIT_SYMBOLS (said why).
 */
static int rt_map_traced(const struct rt_symbols *s, const struct rt_trace *t)
{
	u64 off[RAMTRAIL_KERNEL_NR_FUNCS], hash;
	size_t i, j;
	int k = ramtrail_module_kernel(t->mods, t->nr_mods, &hash);

	if (!k)
		return RT_EXIT_OK;
	if (k < 0) {
		rt_err("the traced kernel's build entry is damaged: whether %s is its build is unknown, not used\n",
		       s->map_path);
		return RT_EXIT_SYMBOLS;
	}
	for (i = 0; i < RAMTRAIL_KERNEL_NR_FUNCS; i++) {
		/* Exported, so global: a static of the same name is another. */
		for (j = 0; j < s->nr_map; j++)
			if ((s->map[j].type == 'T' || s->map[j].type == 'W') &&
			    !strcmp(s->map[j].name, ramtrail_kernel_funcs[i]))
				break;
		if (j == s->nr_map) {
			rt_err("%s has no %s: not the traced kernel's (%s)\n",
			       s->map_path, ramtrail_kernel_funcs[i],
			       t->release);
			return RT_EXIT_SYMBOLS;
		}
		off[i] = s->map[j].addr - s->panic;
	}
	if (ramtrail_kernel_hash(off) != hash) {
		rt_err("%s is another build than the traced kernel (%s): its functions lie elsewhere\n",
		       s->map_path, t->release);
		return RT_EXIT_SYMBOLS;
	}
	return RT_EXIT_OK;
}

/*
 * KASLR's granule on the traced machine (x86-64: the kernel's
 * CONFIG_PHYSICAL_ALIGN; arm64: 64 KiB, where a boot loader may place
 * the image): a map whose panic() is not a whole number of them from the
 * trace's is another kernel's. 0: not known here.
 */
static u64 rt_kaslr_align(const struct rt_trace *t)
{
	switch (le32_to_cpu(t->reg.hdr.machine)) {
	case RAMTRAIL_MACHINE_X86_64:
		return 0x200000;
	case RAMTRAIL_MACHINE_AARCH64:
		return 0x10000;
	default:
		return 0;
	}
}

/**
 * rt_symbols_bind() - place the loaded symbols where a trace's boot had them
 * @s: the set
 * @t: the trace (its anchor address and module table); a pstore file is
 *	read once for the names it holds
 *
 * Return: RT_EXIT_OK, or RT_EXIT_SYMBOLS if the System.map is not the one of
 * the traced kernel (its release, its KASLR granule, its build).
 */
int rt_symbols_bind(struct rt_symbols *s, struct rt_trace *t)
{
	size_t cap = 0, i, j;

	s->n = 0;
	if (t->kind == RT_PSTORE) {
		rt_symbols_from_pstore(s, t);
		return s->oom ? RT_EXIT_IO : RT_EXIT_OK;
	}
	if (s->map) {
		s->delta = t->anchor_addr - s->panic;
		if (rt_map_release_differs(s->map_path, t->release)) {
			rt_err("%s does not match the traced kernel %s\n",
			       s->map_path, t->release);
			return RT_EXIT_SYMBOLS;
		}
		if (!rt_kaslr_align(t)) {
			rt_err("%s: the traced machine (ELF machine %u) is not one whose KASLR this tool knows: not used\n",
			       s->map_path, le32_to_cpu(t->reg.hdr.machine));
			return RT_EXIT_SYMBOLS;
		}
		if (!t->anchor_addr || s->delta % rt_kaslr_align(t)) {
			rt_err("%s does not match the traced kernel (%s): panic() at %#llx there, %#llx in the map\n",
			       s->map_path, t->release,
			       (unsigned long long)t->anchor_addr,
			       (unsigned long long)s->panic);
			return RT_EXIT_SYMBOLS;
		}
		if (rt_map_traced(s, t))
			return RT_EXIT_SYMBOLS;
		for (i = 0; i < s->nr_map; i++)
			if (s->map[i].addr >= s->stext &&
			    s->map[i].addr < s->etext)
				rt_add(s, &cap, &s->map[i], s->delta,
				       s->etext + s->delta, NULL, 0);
	}
	for (i = 0; i < t->nr_mods; i++) {
		const struct ramtrail_module_entry *m = &t->mods[i];
		char name[sizeof(m->name) + 1] = { 0 };
		bool init = le32_to_cpu(m->flags) & RAMTRAIL_MOD_INIT;
		struct rt_ko *ko = NULL;
		u64 size;

		if (!m->base)	/* the table ends, as for module_find() */
			break;
		/* A damaged entry places nothing (kallsyms, trace.dat). */
		if (le32_to_cpu(m->checksum) != ramtrail_module_checksum(m) ||
		    (le32_to_cpu(m->flags) & RAMTRAIL_MOD_KERNEL))
			continue;
		memcpy(name, m->name, sizeof(m->name));
		for (j = 0; j < s->nr_ko; j++)
			if (!strcmp(s->ko[j].name, name))
				ko = &s->ko[j];
		if (!ko)
			continue;
		if (!rt_ko_traced(t, i, ko))
			continue;
		size = init ? ko->init_size : ko->text_size;
		if (ko->plts ? RT_PAGE_ALIGN(size) > RT_PAGE_ALIGN(le64_to_cpu(m->size)) :
		    RT_PAGE_ALIGN(size) != RT_PAGE_ALIGN(le64_to_cpu(m->size))) {
			rt_err("%s: %stext is %llu bytes, the traced %s had %llu: not used\n",
			       ko->path, init ? "init " : "",
			       (unsigned long long)size, name,
			       (unsigned long long)le64_to_cpu(m->size));
			continue;
		}
		for (j = 0; j < ko->nr; j++) {
			size_t n = s->n;

			if (ko->syms[j].init != init)
				continue;
			rt_add(s, &cap, &ko->syms[j], le64_to_cpu(m->base),
			       le64_to_cpu(m->base) + le64_to_cpu(m->size), ko->name, i + 1);
			if (s->n > n)
				s->v[n].freed = init && m->init_end;
		}
	}
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), rt_sym_cmp);
	return s->oom ? RT_EXIT_IO : RT_EXIT_OK;
}

/*
 * The symbol that holds @addr among those bound to module table entry
 * @entry (1 + index; 0: kernel text, or names printed by pstore), whose
 * text starts at @floor, if any. Entries' texts may overlap (one module's
 * freed init text, another's text): the search steps back over the
 * others' symbols.
 */
static const struct rt_sym *rt_sym_at(const struct rt_symbols *s, u64 addr,
				      u32 entry, u64 floor)
{
	size_t lo = 0, hi = s ? s->n : 0;
	const struct rt_sym *y;

	while (lo < hi) {	/* first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo && s->v[lo - 1].addr >= floor) {
		y = &s->v[--lo];
		if (y->entry != entry)
			continue;
		if (addr >= y->end)
			return NULL;
		/* of several names at one address, kallsyms' first */
		while (lo && s->v[lo - 1].addr == y->addr &&
		       s->v[lo - 1].entry == entry)
			y = &s->v[--lo];
		return y;
	}
	return NULL;
}

/* The start of the next symbol of @entry after @y, or @y's end. */
static u64 rt_sym_next(const struct rt_symbols *s, const struct rt_sym *y)
{
	size_t k;

	for (k = y - s->v + 1; k < s->n && s->v[k].addr < y->end; k++)
		if (s->v[k].entry == y->entry && s->v[k].addr > y->addr)
			return s->v[k].addr;
	return y->end;
}

/**
 * rt_symbolize() - name an address of a trace
 * @s: bound symbols
 * @t: the trace
 * @addr: address in the recording boot
 * @ts: time of the record that holds @addr, as the trace keeps it
 * @offset: add "+0xoff/0xsize" as %pS does
 * @buf: room for the result
 * @len: bytes at @buf
 * @timed: if not NULL, set when @addr may have another name at another time
 *
 * In a module, the entry of the module table that held @addr at @ts
 * decides (ramtrail_module_find()): its .ko's symbols, or "[mod]+0xoff"
 * ("[mod].init+0xoff" in init text) when only the module is known; none
 * for sure, the bare address.
 *
 * Return: @buf: "name", "name [mod]", "[mod]+0xoff", or "0xaddr": never a
 * name the address does not have.
 */
const char *rt_symbolize(const struct rt_symbols *s, const struct rt_trace *t,
			 u64 addr, u64 ts, bool offset, char *buf, size_t len,
			 bool *timed)
{
	const struct rt_sym *y;
	bool when = false;
	int i = -1;

	if (t && t->nr_mods)
		i = ramtrail_module_find(t->mods, t->nr_mods, addr, ts, &when);
	if (timed)
		*timed = when;
	if (i < 0 && when) {	/* more than one module may have held it */
		snprintf(buf, len, "%#llx", (unsigned long long)addr);
		return buf;
	}
	y = rt_sym_at(s, addr, i + 1, i >= 0 ? le64_to_cpu(t->mods[i].base) : 0);
	if (y) {
		u64 next = rt_sym_next(s, y);

		if (offset)
			snprintf(buf, len, "%s+0x%llx/0x%llx%s%s%s", y->name,
				 (unsigned long long)(addr - y->addr),
				 (unsigned long long)(next - y->addr),
				 y->mod ? " [" : "", y->mod ? y->mod : "",
				 y->mod ? "]" : "");
		else
			snprintf(buf, len, "%s%s%s%s", y->name,
				 y->mod ? " [" : "", y->mod ? y->mod : "",
				 y->mod ? "]" : "");
		return buf;
	}
	if (i >= 0)
		ramtrail_text_module(buf, len, &t->mods[i], addr);
	else
		snprintf(buf, len, "%#llx", (unsigned long long)addr);
	return buf;
}

/**
 * rt_symbols_kallsyms() - the bound symbols as /proc/kallsyms lines
 * @s: bound symbols
 * @out: where to write
 *
 * As the traced boot's /proc/kallsyms had them at its end: without the
 * init text its modules had freed (a later module may be there), which
 * names only by address cannot tell apart.
 *
 * Return: 0, or -1 on a write error.
 */
int rt_symbols_kallsyms(const struct rt_symbols *s, FILE *out)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct rt_sym *y = &s->v[i];

		if (y->freed)
			continue;
		if (y->mod)
			fprintf(out, "%016llx %c %s\t[%s]\n",
				(unsigned long long)y->addr, y->type, y->name,
				y->mod);
		else
			fprintf(out, "%016llx %c %s\n",
				(unsigned long long)y->addr, y->type, y->name);
	}
	return ferror(out) ? -1 : 0;
}

/**
 * rt_symbols_find() - the address of a kernel function, by name
 * @s: symbols bound for a trace
 * @name: the function's name
 *
 * Return: its address as rt_symbols_kallsyms() prints it, or 0 if the
 * kernel (modules aside) has no text symbol of that name.
 */
u64 rt_symbols_find(const struct rt_symbols *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!s->v[i].mod && !s->v[i].freed &&
		    !strcmp(s->v[i].name, name))
			return s->v[i].addr;
	return 0;
}

/** rt_symbols_free() - release a symbol set */
void rt_symbols_free(struct rt_symbols *s)
{
	size_t i;

	for (i = 0; i < s->nr_ko; i++)
		rt_ko_free(&s->ko[i]);
	for (i = 0; s->owns_names && i < s->n; i++) {
		free((char *)s->v[i].name);
		free((char *)s->v[i].mod);
	}
	free(s->ko);
	free(s->map);
	free(s->map_text);
	free(s->v);
	free(s);
}
