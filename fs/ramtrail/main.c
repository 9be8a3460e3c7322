// SPDX-License-Identifier: GPL-2.0
/*
 * ramtrail: a crash-surviving, per-CPU trace store in persistent RAM.
 *
 * Loading the module claims and maps the region (storage.c), saves the
 * trace the previous boot left in its zones (save.c), formats the zones
 * for this boot, registers the pstore backend (pstore.c), keeps the
 * module table (modules.c) and starts recording: kernel events and task
 * switches (events.c), function entries (record.c), user space's markers
 * (marker.c).
 * Documentation/ramtrail/admin-guide.rst describes the parameters.
 *
 * Files call only downwards, in this order:
 *
 *   main.c → pstore.c → save.c → modules.c → storage.c
 *
 * with record.c beside them, calling storage.c and dump.c only, and
 * events.c, dump.c and marker.c, calling none of them; all of them
 * using the shared decoder (region.c to chunk_read.c) and the record path
 * (ring.h, ring.c). internal.h describes the one state object.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kmsg_dump.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include "internal.h"

static struct ramtrail_context ramtrail_cxt = {
	.enabled = true,
	.dump_lines = RAMTRAIL_DUMP_LINES,
};

/* Hardware parameters, as ramoops': kernel lockdown refuses them. */
static unsigned long mem_address;
module_param_hw(mem_address, ulong, iomem, 0400);
MODULE_PARM_DESC(mem_address, "physical start of the region (memmap= reserved)");

static char *mem_size;
module_param_hw(mem_size, charp, iomem, 0400);
MODULE_PARM_DESC(mem_size, "size of the region, e.g. 64M");

static char *mem_name;
module_param(mem_name, charp, 0400);
MODULE_PARM_DESC(mem_name, "name of a reserve_mem= region (Linux 6.12+), instead of mem_address/mem_size");

static char *functions = "";
static char *events = "";

/*
 * The parameters a device tree node may give too (storage.c): given at
 * load, they win over the node. Each notes that it was given.
 */
static unsigned int mem_type;
static int max_reason = KMSG_DUMP_OOPS;
static unsigned long dmesg_size = 32768;
static unsigned int dmesg_count = 4;
static unsigned int max_modules = RAMTRAIL_MODTAB_COUNT;
static char *saved_size;
static unsigned int ecc = 16;
static unsigned long given;

static const struct {
	void *arg;
	int (*set)(const char *val, const struct kernel_param *kp);
	unsigned int bit;
} given_params[] = {
	{ &mem_type, param_set_uint, RAMTRAIL_GIVEN_MEM_TYPE },
	{ &max_reason, param_set_int, RAMTRAIL_GIVEN_MAX_REASON },
	{ &dmesg_size, param_set_ulong, RAMTRAIL_GIVEN_DMESG_SIZE },
	{ &dmesg_count, param_set_uint, RAMTRAIL_GIVEN_DMESG_COUNT },
	{ &max_modules, param_set_uint, RAMTRAIL_GIVEN_MAX_MODULES },
	{ &saved_size, param_set_charp, RAMTRAIL_GIVEN_SAVED_SIZE },
	{ &ecc, param_set_uint, RAMTRAIL_GIVEN_ECC },
};

static int given_set(const char *val, const struct kernel_param *kp)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(given_params); i++) {
		if (kp->arg != given_params[i].arg)
			continue;
		err = given_params[i].set(val, kp);
		if (!err)
			given |= BIT(given_params[i].bit);
		return err;
	}
	return -EINVAL;
}

static const struct kernel_param_ops given_uint_ops = {
	.set = given_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops given_int_ops = {
	.set = given_set,
	.get = param_get_int,
};

static const struct kernel_param_ops given_ulong_ops = {
	.set = given_set,
	.get = param_get_ulong,
};

static const struct kernel_param_ops given_charp_ops = {
	.set = given_set,
	.get = param_get_charp,
	.free = param_free_charp,
};

module_param_cb(mem_type, &given_uint_ops, &mem_type, 0400);
MODULE_PARM_DESC(mem_type, "mapping: 0 write-combined (default), 1 uncached, 2 cached");
module_param_cb(max_reason, &given_int_ops, &max_reason, 0400);
MODULE_PARM_DESC(max_reason, "highest kmsg dump reason kept in dmesg records (as ramoops; 2 = oops and panic)");
module_param_cb(dmesg_size, &given_ulong_ops, &dmesg_size, 0400);
MODULE_PARM_DESC(dmesg_size, "bytes per dmesg record, 1072 to 1 MiB (default 32768)");
module_param_cb(dmesg_count, &given_uint_ops, &dmesg_count, 0400);
MODULE_PARM_DESC(dmesg_count, "number of dmesg records (default 4)");
module_param_cb(max_modules, &given_uint_ops, &max_modules, 0400);
MODULE_PARM_DESC(max_modules, "module table entries of a newly formatted region, 4 to 4096 (default 512)");
module_param_cb(saved_size, &given_charp_ops, &saved_size, 0400);
MODULE_PARM_DESC(saved_size, "bytes kept for traces of earlier boots (default: a third of mem_size)");
module_param_cb(ecc, &given_uint_ops, &ecc, 0400);
MODULE_PARM_DESC(ecc, "Reed-Solomon parity bytes per 255-byte codeword of a saved trace, 0 (none) to 32 (default 16: up to 8 wrong bytes corrected in each)");

static bool stop_when_full;
module_param(stop_when_full, bool, 0400);
MODULE_PARM_DESC(stop_when_full, "stop recording a CPU when its zone is full (default: overwrite the oldest)");

static bool reset;
module_param(reset, bool, 0400);
MODULE_PARM_DESC(reset, "ignore and clear what the region holds");

/*
 * The writable parameters' set() callbacks run under the module's
 * parameter lock, as init's and exit's changes of phase.
 */
static int enabled_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err = kstrtobool(val, &on);

	return err ?: ramtrail_set_enabled(&ramtrail_cxt, on);
}

/*
 * A run-time control written before the module is live: given with the
 * load, the value is kept (@load_ok) or refused; while init or exit runs,
 * refused. Return: 0 to go on, 1 if kept, or -errno.
 */
static int ramtrail_param_phase(const struct kernel_param *kp, bool load_ok)
{
	switch (ramtrail_cxt.phase) {
	case RAMTRAIL_PHASE_LIVE:
		return 0;
	case RAMTRAIL_PHASE_PARAMS:
		if (load_ok)
			return 1;
		pr_err("%s: a run-time control, not a load parameter\n",
		       kp->name);
		return -EINVAL;
	default:
		pr_err("%s: the module is loading or unloading; write it once it is loaded\n",
		       kp->name);
		return -EBUSY;
	}
}

/* param_set_charp()'s limit, checked before a list takes effect. */
#define RAMTRAIL_LIST_MAX	1024

/*
 * functions= and events=: at load the value is kept for init; later it
 * takes effect first, then is kept (without the newline of an echo). A
 * write that fails changes nothing.
 */
static int list_set(const char *val, const struct kernel_param *kp)
{
	struct ramtrail_context *cxt = &ramtrail_cxt;
	char *list;
	u32 mask;
	int err = ramtrail_param_phase(kp, true);

	if (err)
		return err < 0 ? err : param_set_charp(val, kp);
	err = ramtrail_crash_refuses(cxt, kp->name);
	if (err)
		return err;
	list = kstrdup(val, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	strim(list);
	if (strlen(list) > RAMTRAIL_LIST_MAX) {
		pr_err("%s: longer than %d bytes\n", kp->name,
		       RAMTRAIL_LIST_MAX);
		err = -ENOSPC;
	} else if (kp->arg == &functions) {
		err = ramtrail_set_functions(cxt, list);
	} else {
		err = ramtrail_events_parse(list, &mask);
		if (!err)
			err = ramtrail_events_set(cxt, mask);
	}
	if (!err)
		err = param_set_charp(list, kp);
	kfree(list);
	return err;
}

static const struct kernel_param_ops list_ops = {
	.set = list_set,
	.get = param_get_charp,
	.free = param_free_charp,
};
module_param_cb(functions, &list_ops, &functions, 0600);
MODULE_PARM_DESC(functions, "comma-separated function globs to record ('*' for all, empty for none); writable at run time");
module_param_cb(events, &list_ops, &events, 0600);
MODULE_PARM_DESC(events, "comma-separated kernel events to record, as set_event takes them (e.g. 'sched:*,irq:*,printk:console'); writable at run time");

static int frozen_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err = kstrtobool(val, &on);

	if (!err)
		err = ramtrail_param_phase(kp, false);
	return err ?: ramtrail_set_frozen(&ramtrail_cxt, on);
}

static int frozen_get(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%c\n",
			 atomic_read(&ramtrail_cxt.freeze_state) !=
			 RAMTRAIL_RECORDING ? 'Y' : 'N');
}

static const struct kernel_param_ops frozen_ops = {
	.set = frozen_set,
	.get = frozen_get,
};
module_param_cb(frozen, &frozen_ops, NULL, 0600);
MODULE_PARM_DESC(frozen, "1 freezes recording (the tail is kept, as by a crash), 0 thaws a freeze that no crash made; run time only");

/* dump_on_oops and dump_lines: an int in [min, max], kp->arg's bounds below. */
static int bounded_set(const char *val, const struct kernel_param *kp)
{
	bool lines = kp->arg == &ramtrail_cxt.dump_lines;
	int min = lines ? 1 : 0;
	int max = lines ? RAMTRAIL_DUMP_LINES_MAX : 2;
	int v, err = kstrtoint(val, 0, &v);

	if (err || v < min || v > max) {
		pr_err("%s: give %d to %d\n", kp->name, min, max);
		return -EINVAL;
	}
	WRITE_ONCE(*(int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops bounded_ops = {
	.set = bounded_set,
	.get = param_get_int,
};
module_param_cb(dump_on_oops, &bounded_ops, &ramtrail_cxt.dump_on_oops, 0600);
MODULE_PARM_DESC(dump_on_oops, "on oops and panic print the newest records to the console: 0 no (default), 1 of the CPU that oopsed, 2 of every CPU");
module_param_cb(dump_lines, &bounded_ops, &ramtrail_cxt.dump_lines, 0600);
MODULE_PARM_DESC(dump_lines, "newest records per CPU a dump prints (default 64)");

static int enabled_get(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%c\n",
			 ramtrail_cxt.enabled ? 'Y' : 'N');
}

static const struct kernel_param_ops enabled_ops = {
	.set = enabled_set,
	.get = enabled_get,
};
module_param_cb(enabled, &enabled_ops, NULL, 0600);
MODULE_PARM_DESC(enabled, "record (1, default) or not (0); writable at run time");

/*
 * A size parameter: a number with memparse()'s suffix (K, M, G...), and
 * nothing after it; not given or empty, 0. Return: 0, or -EINVAL, said.
 */
static int ramtrail_param_size(const char *name, const char *s, u64 *size)
{
	char *end;

	*size = 0;
	if (!s || !*s)
		return 0;
	*size = memparse(s, &end);
	if (end != s && !*end)
		return 0;
	pr_err("%s=%s: not a size (a number, K, M or G after it if need be)\n",
	       name, s);
	return -EINVAL;
}

/*
 * The load's parameters, the lists copied: from here on, until the module
 * is live, writes of the writable ones are refused.
 */
static int ramtrail_params_read(struct ramtrail_params *p)
{
	kernel_param_lock(THIS_MODULE);
	ramtrail_cxt.phase = RAMTRAIL_PHASE_LOADING;
	p->functions = kstrdup(functions ?: "", GFP_KERNEL);
	p->events = kstrdup(events ?: "", GFP_KERNEL);
	kernel_param_unlock(THIS_MODULE);
	if (!p->functions || !p->events)
		return -ENOMEM;
	p->given = given;
	p->mem_address = mem_address;
	p->mem_name = mem_name;
	p->mem_type = mem_type;
	p->max_reason = max_reason;
	p->dmesg_size = dmesg_size;
	p->dmesg_count = dmesg_count;
	p->max_modules = max_modules;
	p->ecc = ecc;
	p->stop_when_full = stop_when_full;
	p->reset = reset;
	return ramtrail_param_size("mem_size", mem_size, &p->mem_size) ?:
	       ramtrail_param_size("saved_size", saved_size, &p->saved_size);
}

static void ramtrail_params_free(struct ramtrail_params *p)
{
	kfree(p->functions);
	kfree(p->events);
}

/*
 * Recording starts under the parameter lock: a writer finds it started
 * whole, with the value it wrote during the load applied, or, if a start
 * fails, undone whole.
 */
static int ramtrail_go_live(struct ramtrail_context *cxt)
{
	int err;

	kernel_param_lock(THIS_MODULE);
	cxt->phase = RAMTRAIL_PHASE_LIVE;
	ramtrail_rings_enable(cxt);
	err = ramtrail_events_start(cxt);
	if (!err) {
		err = ramtrail_record_start(cxt);
		if (err)
			ramtrail_events_stop(cxt);
	}
	if (err)
		cxt->phase = RAMTRAIL_PHASE_UNLOADING;
	kernel_param_unlock(THIS_MODULE);
	return err;
}

static void ramtrail_set_phase(struct ramtrail_context *cxt,
			       enum ramtrail_phase phase)
{
	kernel_param_lock(THIS_MODULE);
	cxt->phase = phase;
	kernel_param_unlock(THIS_MODULE);
}

/* From here on, writes are refused; then recording stops. */
static void ramtrail_stop(struct ramtrail_context *cxt)
{
	ramtrail_set_phase(cxt, RAMTRAIL_PHASE_UNLOADING);
	ramtrail_record_stop(cxt);
	ramtrail_events_stop(cxt);
}

static int __init ramtrail_init(void)
{
	struct ramtrail_context *cxt = &ramtrail_cxt;
	int err;

	err = ramtrail_arch_init();
	if (err)
		return err;
	mutex_init(&cxt->modules_lock);
	cxt->kernel_build = ramtrail_kernel_build();
	err = ramtrail_params_read(&cxt->params);
	if (!err)
		err = ramtrail_events_parse(cxt->params.events, &cxt->events);
	if (err)
		goto params;
	cxt->rings = alloc_percpu(struct ramtrail_ring);
	cxt->pairs = kvcalloc(nr_cpu_ids, RAMTRAIL_PAIRS * sizeof(*cxt->pairs),
			      GFP_KERNEL);
	if (!cxt->rings || !cxt->pairs) {
		err = -ENOMEM;
		goto free;
	}
	err = ramtrail_storage_map(cxt);
	if (err)
		goto free;
	err = ramtrail_save_previous(cxt);
	if (!err)
		err = ramtrail_storage_format(cxt);
	if (!err) {
		ramtrail_check_saved(cxt);	/* before pstore reads them */
		err = ramtrail_pstore_init(cxt);
	}
	if (err)
		goto unmap;
	ramtrail_list_saved(cxt);
	ramtrail_rings_init(cxt);
	ramtrail_modules_init(cxt);
	err = ramtrail_dump_init(cxt);
	if (err)
		goto dump;
	err = ramtrail_freeze_hooks_init(cxt);
	if (err)
		goto hooks;
	err = ramtrail_go_live(cxt);
	if (err)
		goto live;
	err = ramtrail_marker_init();
	if (err)
		goto marker;
	ramtrail_debugfs_init(cxt);
	ramtrail_dump_debugfs(cxt);
	ramtrail_test_debugfs(cxt);
	return 0;
marker:
	ramtrail_stop(cxt);
live:
	ramtrail_freeze_hooks_exit(cxt);
hooks:
	ramtrail_dump_exit(cxt);
dump:
	ramtrail_modules_exit(cxt);
	ramtrail_pstore_exit(cxt);
unmap:
	/* Only this load's own, empty recording is ended here. */
	if (cxt->formatted)
		ramtrail_end(cxt, RAMTRAIL_FREEZE_NONE, RAMTRAIL_STATE_STOPPED);
	ramtrail_storage_unmap(cxt);
free:
	kvfree(cxt->pairs);
	free_percpu(cxt->rings);
params:
	ramtrail_set_phase(cxt, RAMTRAIL_PHASE_UNLOADING);
	ramtrail_params_free(&cxt->params);
	return err;
}

static void __exit ramtrail_exit(void)
{
	struct ramtrail_context *cxt = &ramtrail_cxt;

	ramtrail_marker_exit();
	ramtrail_stop(cxt);
	ramtrail_debugfs_exit(cxt);
	ramtrail_freeze_hooks_exit(cxt);
	ramtrail_dump_exit(cxt);
	ramtrail_modules_exit(cxt);
	ramtrail_pstore_exit(cxt);
	ramtrail_stop_for_unload(cxt);
	ramtrail_storage_unmap(cxt);
	kvfree(cxt->pairs);
	free_percpu(cxt->rings);
	ramtrail_params_free(&cxt->params);
}

module_init(ramtrail_init);
module_exit(ramtrail_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Crash-surviving per-CPU trace store in persistent RAM");
MODULE_VERSION(RAMTRAIL_PKG_VERSION);
