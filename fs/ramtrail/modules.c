// SPDX-License-Identifier: GPL-2.0
/*
 * This boot's module table in the region, and turning the offsets of a
 * saved trace into this boot's addresses (KASLR, modules), never into a
 * wrong name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/bitmap.h>
#include <linux/blk-mq.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/net.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include "internal.h"
#include "text.h"

/*
 * The hash of @mod's named functions in its text, @size bytes at @base
 * (an entry's @funcs_hash); 0 if it has none. While the module comes, its
 * symbol table is the .ko's whole; once its init has run, the kernel keeps
 * those of its core: the same functions in the text. Without kallsyms,
 * none.
 */
#ifdef CONFIG_KALLSYMS
static u64 ramtrail_module_syms(struct module *mod, unsigned long base,
				u64 size)
{
	const struct mod_kallsyms *k;
	u64 hash = 0;
	unsigned int i;

	rcu_read_lock();
	k = rcu_dereference(mod->kallsyms);
	for (i = 0; k && i < k->num_symtab; i++) {
		const Elf_Sym *s = &k->symtab[i];
		const char *name = k->strtab + s->st_name;

		if (ELF_ST_TYPE(s->st_info) != STT_FUNC || !*name ||
		    s->st_value - base >= size)
			continue;
		hash = ramtrail_module_sym_add(hash, name, strlen(name),
					       s->st_value - base);
	}
	rcu_read_unlock();
	return hash;
}
#else
static u64 ramtrail_module_syms(struct module *mod, unsigned long base,
				u64 size)
{
	return 0;
}
#endif

/**
 * ramtrail_kernel_build() - this kernel's build (RAMTRAIL_MOD_KERNEL)
 *
 * Return: the hash of where RAMTRAIL_KERNEL_FUNCS lie, or 0 if kallsyms
 * does not give each address its name in the kernel's text (a list out of
 * order, a kernel without kallsyms, one configured without a function's
 * subsystem): no build is claimed then.
 */
u64 ramtrail_kernel_build(void)
{
	static const unsigned long addr[RAMTRAIL_KERNEL_NR_FUNCS] = {
		(unsigned long)_printk, (unsigned long)queue_work_on,
		(unsigned long)mod_timer, (unsigned long)msleep,
		(unsigned long)call_rcu, (unsigned long)kfree,
		(unsigned long)vfree, (unsigned long)filp_open,
		(unsigned long)kern_path, (unsigned long)generic_file_llseek,
		(unsigned long)submit_bio,
		(unsigned long)blk_mq_alloc_tag_set, (unsigned long)device_add,
		(unsigned long)misc_register, (unsigned long)skb_put,
		(unsigned long)sock_create_kern, (unsigned long)idr_alloc,
		(unsigned long)sort, (unsigned long)kstrtoull,
		(unsigned long)memparse, (unsigned long)bitmap_parse,
		(unsigned long)schedule,
	};
	u64 off[RAMTRAIL_KERNEL_NR_FUNCS];
	unsigned int i;
	size_t len;
	char *name;

	name = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!name)
		return 0;
	for (i = 0; i < RAMTRAIL_KERNEL_NR_FUNCS; i++) {
		len = strlen(ramtrail_kernel_funcs[i]);
		sprint_symbol(name, addr[i]);
		/* Not "name+0x0/0xsize [module]": a module's, or a stub's. */
		if (strncmp(name, ramtrail_kernel_funcs[i], len) ||
		    strncmp(name + len, "+0x0/", 5) || strchr(name, '[')) {
			/* Not its text: it may be a raw address, not a name. */
			pr_err("%s's address names another symbol: no kernel build hash\n",
			       ramtrail_kernel_funcs[i]);
			kfree(name);
			return 0;
		}
		off[i] = addr[i] - ramtrail_arch_text_anchor();
	}
	kfree(name);
	return ramtrail_kernel_hash(off);
}

/*
 * The table's first entry: the kernel's build (RAMTRAIL_MOD_KERNEL), when
 * known (else an entry at base 0: none).
 */
static void ramtrail_describe_kernel(struct ramtrail_context *cxt,
				     struct ramtrail_module_entry *e)
{
	memset(e, 0, sizeof(*e));
	if (!cxt->kernel_build)
		return;
	e->base = cpu_to_le64(ramtrail_arch_text_anchor());
	e->funcs_hash = cpu_to_le64(cxt->kernel_build);
	e->flags = cpu_to_le32(RAMTRAIL_MOD_KERNEL);
	strscpy(e->name, "vmlinux", sizeof(e->name));
}

/* What the module table says of @mod. */
static void ramtrail_module_describe(struct ramtrail_module_entry *e,
				     struct module *mod)
{
	unsigned long base;
	u64 size, core_size;

	memset(e, 0, sizeof(*e));
	ramtrail_module_sizes(mod, &base, &size, &core_size);
	e->base = cpu_to_le64(base);
	e->size = cpu_to_le64(size);
	e->core_size = cpu_to_le64(core_size);
	strscpy(e->name, mod->name, sizeof(e->name));
	e->funcs_hash = cpu_to_le64(ramtrail_module_syms(mod, base, size));
}

/*
 * What the table's last entries say once a module found no room (they
 * are kept for this), one per part of the module area: from when modules
 * may lie where no entry tells (RAMTRAIL_MOD_FULL), so that an unloaded
 * module's entry stops naming what a later one recorded in its place.
 */
static void ramtrail_describe_full(struct ramtrail_module_entry *e)
{
	u64 start[RAMTRAIL_ARCH_MODULE_AREAS], size[RAMTRAIL_ARCH_MODULE_AREAS];
	u64 since = (ramtrail_clock() & RAMTRAIL_CLOCK_MASK) ?: 1;
	unsigned int i;

	ramtrail_arch_module_areas(start, size);
	for (i = 0; i < RAMTRAIL_ARCH_MODULE_AREAS; i++) {
		memset(&e[i], 0, sizeof(e[i]));
		e[i].base = cpu_to_le64(start[i]);
		e[i].size = cpu_to_le64(size[i]);
		e[i].full_since = cpu_to_le64(since);
		e[i].flags = cpu_to_le32(RAMTRAIL_MOD_FULL);
		e[i].checksum = cpu_to_le32(ramtrail_module_checksum(&e[i]));
	}
}

/*
 * Append @d to the region's module table, unless the table has it (the
 * same name, place and sizes, not gone). Entries are never reused: an
 * unloaded module keeps its entry, marked gone, so a later module at the
 * same address makes that range ambiguous (printed as offsets) instead of
 * taking over its names. A module without text (only init text, or only
 * data) has nothing to name, and an entry at 0 would end the table for
 * its readers: none (the kernel's entry covers no address on purpose).
 * The last entries are kept for ramtrail_describe_full().
 */
static void ramtrail_add_entry(struct ramtrail_context *cxt,
			       const struct ramtrail_module_entry *d)
{
	struct ramtrail_module_entry *e = ramtrail_modtab(cxt);
	unsigned int n, i, count = 1;

	if (!le64_to_cpu(d->base) ||
	    (!le64_to_cpu(d->size) &&
	     !(le32_to_cpu(d->flags) & RAMTRAIL_MOD_KERNEL)))
		return;
	mutex_lock(&cxt->modules_lock);
	n = cxt->nr_modules;
	for (i = 0; i < n; i++)
		if (e[i].base == d->base && e[i].size == d->size &&
		    e[i].core_size == d->core_size &&
		    e[i].funcs_hash == d->funcs_hash &&
		    (le32_to_cpu(e[i].flags) & RAMTRAIL_MOD_INIT) ==
		    (le32_to_cpu(d->flags) & RAMTRAIL_MOD_INIT) &&
		    !(le32_to_cpu(e[i].flags) & RAMTRAIL_MOD_GONE) &&
		    !strncmp(e[i].name, d->name, sizeof(e[i].name)))
			goto out;
	e += n;
	if (n + RAMTRAIL_ARCH_MODULE_AREAS >=
	    le32_to_cpu(cxt->hdr->modtab_count)) {
		if (n + RAMTRAIL_ARCH_MODULE_AREAS !=
		    le32_to_cpu(cxt->hdr->modtab_count))
			goto out;
		ramtrail_describe_full(e);
		count = RAMTRAIL_ARCH_MODULE_AREAS;
		pr_warn("module table full (max_modules=%u): from now on, no name offline for modules loaded or unloaded\n",
			n + count);
	} else {
		*e = *d;
		e->checksum = cpu_to_le32(ramtrail_module_checksum(e));
	}
	ramtrail_flush(cxt, e, count * sizeof(*e));
	/* Pairs with the smp_load_acquire() of readers of this boot's table. */
	smp_store_release(&cxt->nr_modules, n + count);
out:
	mutex_unlock(&cxt->modules_lock);
}

/*
 * What the module table says of @mod's init text, which the kernel frees
 * when the init ends (its end time is set then): false if it has none.
 */
static bool ramtrail_module_describe_init(struct ramtrail_module_entry *e,
					  struct module *mod)
{
	unsigned long base;
	u64 size;

	ramtrail_module_init_text(mod, &base, &size);
	if (!size)
		return false;
	memset(e, 0, sizeof(*e));
	e->base = cpu_to_le64(base);
	e->size = cpu_to_le64(size);
	e->flags = cpu_to_le32(RAMTRAIL_MOD_INIT);
	strscpy(e->name, mod->name, sizeof(e->name));
	return true;
}

static void ramtrail_add_module(struct ramtrail_context *cxt,
				struct module *mod)
{
	struct ramtrail_module_entry e;

	ramtrail_module_describe(&e, mod);
	ramtrail_add_entry(cxt, &e);
	if (ramtrail_module_describe_init(&e, mod))
		ramtrail_add_entry(cxt, &e);
}

/*
 * The modules loaded before this one. Their list's lock is not exported:
 * it is walked under RCU, as the kernel's own address lookups walk it,
 * from this module's node; its head, the one node that is not in a
 * module, lies outside the module area. Described under RCU, appended
 * after (the table's lock sleeps).
 */
static void ramtrail_add_loaded(struct ramtrail_context *cxt)
{
	u32 max = le32_to_cpu(cxt->hdr->modtab_count), n = 0, i;
	struct ramtrail_module_entry *found;
	struct module *mod;

	found = kcalloc(max, sizeof(*found), GFP_KERNEL);
	if (!found)	/* their ips stay unnamed; the allocator said why */
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(mod, &THIS_MODULE->list, list) {
		if (!ramtrail_arch_is_module((unsigned long)mod) || n >= max ||
		    (mod->state != MODULE_STATE_LIVE &&
		     mod->state != MODULE_STATE_COMING))
			continue;
		ramtrail_module_describe(&found[n++], mod);
		/* An init running: its text, until its end is noted. */
		if (mod->state == MODULE_STATE_COMING && n < max &&
		    ramtrail_module_describe_init(&found[n], mod))
			n++;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++)
		ramtrail_add_entry(cxt, &found[i]);
	kfree(found);
}

/*
 * @mod's init ended (it is live, or its load failed): the kernel frees its
 * init text next, for a later module to take. Its entry notes when, the
 * counter the records carry, so that a record before then is named as
 * init text and one after as whatever came there. The entry is rewritten
 * whole: a reset halfway leaves a checksum that fails, and no name.
 */
static void ramtrail_module_init_ended(struct ramtrail_context *cxt,
				       struct module *mod)
{
	struct ramtrail_module_entry *e = ramtrail_modtab(cxt);
	u64 now = ramtrail_clock() & RAMTRAIL_CLOCK_MASK;
	unsigned int i;

	mutex_lock(&cxt->modules_lock);
	for (i = 0; i < cxt->nr_modules; i++) {
		if (!(le32_to_cpu(e[i].flags) & RAMTRAIL_MOD_INIT) ||
		    le64_to_cpu(e[i].init_end) ||
		    strncmp(e[i].name, mod->name, sizeof(e[i].name)))
			continue;
		WRITE_ONCE(e[i].init_end, cpu_to_le64(now ?: 1));
		WRITE_ONCE(e[i].checksum,
			   cpu_to_le32(ramtrail_module_checksum(&e[i])));
		ramtrail_flush(cxt, &e[i], sizeof(e[i]));
	}
	mutex_unlock(&cxt->modules_lock);
}

/*
 * @mod is unloaded: its entries note when, so that a record from then on
 * is not named after it, whatever came to its place (a later module, a
 * BPF program, a kprobe's or ftrace's page). The time and checksum are
 * written before the flag: a reset halfway leaves a checksum that fails,
 * and no name.
 */
static void ramtrail_module_gone(struct ramtrail_context *cxt,
				 struct module *mod)
{
	struct ramtrail_module_entry *e = ramtrail_modtab(cxt);
	u64 now;
	unsigned int i;

	ramtrail_module_init_ended(cxt, mod);	/* if its init failed */
	now = ramtrail_clock() & RAMTRAIL_CLOCK_MASK;
	mutex_lock(&cxt->modules_lock);
	for (i = 0; i < cxt->nr_modules; i++) {
		if (strncmp(e[i].name, mod->name, sizeof(e[i].name)) ||
		    (le32_to_cpu(e[i].flags) & RAMTRAIL_MOD_GONE))
			continue;
		WRITE_ONCE(e[i].gone, cpu_to_le64(now ?: 1));
		WRITE_ONCE(e[i].checksum,
			   cpu_to_le32(ramtrail_module_checksum(&e[i])));
		WRITE_ONCE(e[i].flags,
			   e[i].flags | cpu_to_le32(RAMTRAIL_MOD_GONE));
		ramtrail_flush(cxt, &e[i], sizeof(e[i]));
	}
	mutex_unlock(&cxt->modules_lock);
}

static int ramtrail_module_event(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	struct ramtrail_context *cxt = container_of(nb, struct ramtrail_context,
						    module_nb);

	if (action == MODULE_STATE_COMING)
		ramtrail_add_module(cxt, data);
	else if (action == MODULE_STATE_LIVE)
		ramtrail_module_init_ended(cxt, data);
	else if (action == MODULE_STATE_GOING)
		ramtrail_module_gone(cxt, data);
	return NOTIFY_OK;
}

/**
 * ramtrail_modules_init() - keep this boot's module table up to date
 * @cxt: the context, formatted
 *
 * The kernel's build comes first, then ramtrail itself, then the modules
 * loaded before it; every module loaded later is appended. The notifier
 * is registered before the walk: a module loading meanwhile is seen once
 * or twice, and kept once.
 */
void ramtrail_modules_init(struct ramtrail_context *cxt)
{
	struct ramtrail_module_entry e;

	ramtrail_describe_kernel(cxt, &e);
	ramtrail_add_entry(cxt, &e);
	ramtrail_add_module(cxt, THIS_MODULE);
	cxt->module_nb.notifier_call = ramtrail_module_event;
	register_module_notifier(&cxt->module_nb);
	ramtrail_add_loaded(cxt);
}

/**
 * ramtrail_modules_exit() - undo ramtrail_modules_init()
 * @cxt: the context
 */
void ramtrail_modules_exit(struct ramtrail_context *cxt)
{
	unregister_module_notifier(&cxt->module_nb);
}

/*
 * Whether the kernel that recorded @t is this build by the places of its
 * functions (RAMTRAIL_MOD_KERNEL). A damaged entry says no, and so does
 * any when this kernel's is unknown. A trace whose writer could not tell
 * its kernel's build has none: its release and version say alone.
 */
static bool ramtrail_kernel_same(struct ramtrail_context *cxt,
				 const struct ramtrail_saved_trace *t)
{
	u64 hash;

	switch (ramtrail_module_kernel(ramtrail_saved_modules(t),
				       le32_to_cpu(t->modtab_count), &hash)) {
	case 0:
		return true;
	case 1:
		return cxt->kernel_build && hash == cxt->kernel_build;
	default:
		return false;
	}
}

/**
 * ramtrail_reloc_init() - prepare to turn a saved trace's offsets into names
 * @cxt: the context
 * @rl: filled
 * @t: the saved trace
 *
 * Kernel text is relocated only when the recording kernel is this very
 * build (release and version string, and its functions where this one's
 * are) and the KASLR delta is whole units of the architecture's
 * (RAMTRAIL_ARCH_KASLR_ALIGN, 2 MiB on x86-64, 64 KiB on arm64): after a kernel update
 * the same offset is another function, and a wrong name is worse than
 * none.
 */
void ramtrail_reloc_init(struct ramtrail_context *cxt,
			 struct ramtrail_reloc *rl,
			 const struct ramtrail_saved_trace *t)
{
	rl->t = t;
	rl->delta = ramtrail_arch_text_anchor() - le64_to_cpu(t->anchor_addr);
	rl->same_build = !strncmp(t->release, init_utsname()->release,
				  sizeof(t->release)) &&
			 !strncmp(t->build, init_utsname()->version,
				  sizeof(t->build)) &&
			 t->anchor_addr &&
			 !(rl->delta % RAMTRAIL_ARCH_KASLR_ALIGN) &&
			 ramtrail_kernel_same(cxt, t);
	/* Pairs with smp_store_release() in ramtrail_add_module(). */
	rl->nr_now = smp_load_acquire(&cxt->nr_modules);
	rl->now = ramtrail_modtab(cxt);
}

/* The loaded module that is the one @was names: same build, still here. */
static int ramtrail_module_now(const struct ramtrail_reloc *rl,
			       const struct ramtrail_module_entry *was)
{
	int i, found = -1;

	for (i = 0; i < rl->nr_now; i++) {
		const struct ramtrail_module_entry *e = &rl->now[i];

		if (strncmp(e->name, was->name, sizeof(e->name)) ||
		    e->size != was->size || e->core_size != was->core_size ||
		    e->funcs_hash != was->funcs_hash ||
		    ((le32_to_cpu(e->flags) ^ le32_to_cpu(was->flags)) &
		     RAMTRAIL_MOD_INIT) ||
		    (le32_to_cpu(READ_ONCE(e->flags)) & RAMTRAIL_MOD_GONE))
			continue;
		if (found >= 0)
			return -1;
		found = i;
	}
	return found;
}

/*
 * Was @a a module's address in the boot that recorded it? Where the
 * module area moves with the kernel (RAMTRAIL_ARCH_MODULES_MOVE), this
 * boot's area tells only for the same build, at the KASLR delta; for
 * another build every address is looked up in the recording boot's
 * table, which has no entry for kernel text.
 */
static bool ramtrail_was_module(const struct ramtrail_reloc *rl, u64 a)
{
	if (!RAMTRAIL_ARCH_MODULES_MOVE)
		return ramtrail_arch_is_module(a);
	return !rl->same_build || ramtrail_arch_is_module(a + rl->delta);
}

/*
 * Where @off of a record at counter time @ts was: the recording boot's
 * module table entry, if in a module (NULL if none is sure), and in
 * *@addr the address to print: relocated to this boot, or the bare
 * offset, which no symbol lookup resolves. *@timed: the same @off may be
 * elsewhere at another time.
 */
static const struct ramtrail_module_entry *
ramtrail_reloc_find(const struct ramtrail_reloc *rl, u32 off, u64 ts,
		    unsigned long *addr, bool *timed)
{
	const struct ramtrail_saved_trace *t = rl->t;
	const struct ramtrail_module_entry *m;
	u64 a = le64_to_cpu(t->text_base) + off;
	int i, j;

	*addr = off;
	*timed = false;
	if (!off)
		return NULL;
	if (!ramtrail_was_module(rl, a)) {
		if (rl->same_build)
			*addr = a + rl->delta;
		return NULL;
	}
	i = ramtrail_module_find(ramtrail_saved_modules(t),
				 le32_to_cpu(t->modtab_count), a, ts, timed);
	if (i < 0)
		return NULL;
	m = &ramtrail_saved_modules(t)[i];
	/* Init text is freed once run: never in this boot's terms. */
	if (rl->same_build && !(le32_to_cpu(m->flags) & RAMTRAIL_MOD_INIT)) {
		j = ramtrail_module_now(rl, m);
		if (j >= 0)
			*addr = le64_to_cpu(rl->now[j].base) +
				(a - le64_to_cpu(m->base));
	}
	return m;
}

/**
 * ramtrail_reloc_name() - name an address of a saved trace
 * @rl: from ramtrail_reloc_init()
 * @buf: where to write the name
 * @len: bytes at @buf, at least 1
 * @off: offset from the trace's text base (0: none)
 * @ts: counter time of the record that holds it
 * @timed: set if @off may have another name at another time
 *
 * As "%ps" names the address @off has in this boot, except for an address of a
 * module that is not loaded now (or not the same build), or of its init
 * text: "[module]+0xoff" or "[module].init+0xoff", the offset from that
 * text's start, for the module's .ko to name (ramtrail decode --modules).
 * Where no symbol names the relocated address, its offset: "%ps" would
 * print this boot's address.
 *
 * Return: the bytes written before the NUL, as scnprintf().
 */
size_t ramtrail_reloc_name(const struct ramtrail_reloc *rl, char *buf,
			   size_t len, u32 off, u64 ts, bool *timed)
{
	const struct ramtrail_module_entry *m;
	unsigned long addr;
	size_t n;

	m = ramtrail_reloc_find(rl, off, ts, &addr, timed);
	if (m && addr == off)	/* a module's, not relocated */
		return ramtrail_text_module(buf, len, m,
					    le64_to_cpu(rl->t->text_base) +
					    off);
	if (!ramtrail_sym(buf, len, addr, &n) && addr != off)
		n = scnprintf(buf, len, "%#x", off);
	return n;
}
