// SPDX-License-Identifier: GPL-2.0
/*
 * Images for the ramtrail command's tests, written by the real writer:
 *
 *   DIR/region.img        a bare region: 3 CPUs, function records with and
 *                         without caller in every context, the kernel's
 *                         events and callers' events, a module's function,
 *                         tasks task-1 .. task-5 switching on the CPUs;
 *                         callers in a module's init text (rt_inita), which
 *                         a later module (rt_initb) took once it ended
 *   DIR/ram.img           8 MiB of "RAM" holding that region at RAM_OFFSET
 *   DIR/saved-ecc.img     that region with its zones saved by the real
 *                         saver as boot 7 (parity of TEST_ECC bytes a
 *                         codeword)
 *   DIR/System.map-test   the traced kernel's link-time symbols; its
 *                         RAMTRAIL_KERNEL_FUNCS after panic, at the places
 *                         the kernel entry of the module table hashed
 *   DIR/expect.txt        what decode --sym-offset must print: "CPU TIME TEXT"
 *   DIR/expect-ftrace.txt the same records as whole lines of decode's
 *                         output: task, CPU, flags, time and text
 *   DIR/many.img          a region of one CPU whose function records name
 *                         more functions and callers than a tool keeps
 *                         names of (MANY_FUNCS functions, each called
 *                         from another's + 0x11)
 *   DIR/System.map-many   its kernel's symbols
 *   DIR/expect-many.txt   what decode --sym-offset must print of it
 *
 * The traced kernel ran with a KASLR offset of KASLR bytes: the region's
 * anchor is panic's link-time address plus KASLR.
 */
#include <stdio.h>
#include <stdlib.h>
#include "testlib.h"

#define LINK_TEXT	0xffffffff81000000ULL
#define KASLR		0x1e00000ULL	/* 15 x 2 MiB */
#define NR_FUNCS	64
#define FUNC_SIZE	0x40
#define PANIC		(LINK_TEXT + NR_FUNCS * FUNC_SIZE)
#define MOD_BASE	0xffffffffc0200000ULL
#define MOD_SIZE	0x3000
/* rt_inita's init text, then rt_initb's text, right after rt_fake's */
#define INIT_BASE	(MOD_BASE + MOD_SIZE)
#define INIT_SIZE	0x1000
#define RAM_SIZE	(8 << 20)
#define RAM_OFFSET	0x300000
#define RECORDS		600
#define STEP_NS		1500

static u64 now = 3000000000ULL;

/* The task each CPU runs: its pid; comm "task-<pid>" (tools/lib/compat.c). */
static u32 task_of[3] = { 1, 2, 3 };

/* A pid no record belongs to: events name it, its comm stays unknown. */
#define STRANGER	99

u64 ramtrail_clock(void)
{
	return now;
}

static FILE *open_in(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	return f;
}

/* Offset of a function's runtime address (+ @off) from the text base. */
static u32 func(u32 i, u32 off)
{
	return LINK_TEXT + KASLR + i * FUNC_SIZE + off - TEST_TEXT_BASE;
}

/* ftrace's flags column for a record of context @ctx with @flags. */
static void flags_text(char *out, bool func, u32 ctx, u32 flags)
{
	out[0] = func ? 'X' : flags & RAMTRAIL_EF_IRQS_OFF ? 'd' : '.';
	out[1] = flags & RAMTRAIL_EF_NEED_RESCHED ? 'N' : '.';
	out[2] = ".shz"[ctx];
	out[3] = '.';
	out[4] = '.';
	out[5] = 0;
}

static const char *comm_of(u32 pid, char *buf)
{
	if (pid == STRANGER)
		return "<...>";
	sprintf(buf, "task-%u", pid);
	return buf;
}

/*
 * Kernel event number @k (0..14) on @cpu, with a payload as the module
 * records it; its context and flags set in ramtrail_user_env, its text in
 * @text as ftrace prints the kernel's event.
 */
static void kernel_event(struct ramtrail_ring *r, u32 cpu, u32 k, u32 i,
			 char *text)
{
	static const struct { u32 state; const char *text; } states[] = {
		{ 0, "R" }, { 1, "S" }, { 2, "D" }, { 0x100, "R+" },
		{ 0x80, "I" }, { 3, "S|D" },
	};
	static const char *const vec[] = { "HI", "TIMER", "NET_TX", "NET_RX",
		"BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };
	u32 d[RAMTRAIL_EVENT_MAX_LEN / 4 + 1] = { 0 };
	struct ramtrail_ev_switch sw;
	struct ramtrail_ev_wakeup wk;
	struct ramtrail_ev_work wo;
	struct ramtrail_ev_timer tm;
	char a[24], b[24];
	u32 len = 0, id, prev = task_of[cpu], next = prev % 5 + 1;
	u64 ptr = 0xffff888000c0ffeeULL + i;

	ramtrail_user_env.ctx = RAMTRAIL_CTX_TASK;
	ramtrail_user_env.flags = 0;
	switch (k) {
	case 0:
		id = RAMTRAIL_EV_SCHED_SWITCH;
		sw = (struct ramtrail_ev_switch){ prev, 120, states[i % 6].state,
						  next, 100 + i % 40 };
		len = sizeof(sw);
		memcpy(d, &sw, len);
		ramtrail_user_env.flags = RAMTRAIL_EF_IRQS_OFF;
		sprintf(text, "sched_switch: prev_comm=%s prev_pid=%u %s%s%s",
			comm_of(prev, a), prev, "prev_prio=120 prev_state=",
			states[i % 6].text, " ==> ");
		sprintf(text + strlen(text), "next_comm=%s next_pid=%u next_prio=%u",
			comm_of(next, b), next, 100 + i % 40);
		break;
	case 1:
	case 2:
	case 3:
		id = RAMTRAIL_EV_SCHED_WAKEUP + k - 1;
		wk = (struct ramtrail_ev_wakeup){ k == 2 ? STRANGER : next,
						  110 + k, (cpu + 1) % 3 };
		len = sizeof(wk);
		memcpy(d, &wk, len);
		ramtrail_user_env.ctx = k == 1 ? RAMTRAIL_CTX_HARDIRQ :
						 RAMTRAIL_CTX_TASK;
		ramtrail_user_env.flags = RAMTRAIL_EF_IRQS_OFF |
					  RAMTRAIL_EF_NEED_RESCHED;
		sprintf(text, "%s: comm=%s pid=%u prio=%u target_cpu=%03u",
			k == 1 ? "sched_wakeup" : k == 2 ? "sched_waking" :
			"sched_wakeup_new", comm_of(wk.pid, a), wk.pid, 110 + k,
			(cpu + 1) % 3);
		break;
	case 4:
		id = RAMTRAIL_EV_IRQ_ENTRY;
		d[0] = 4 + i % 3;
		memcpy(&d[1], "ttyS0", 5);	/* the name, no NUL */
		len = 9;
		ramtrail_user_env.ctx = RAMTRAIL_CTX_HARDIRQ;
		ramtrail_user_env.flags = RAMTRAIL_EF_IRQS_OFF;
		sprintf(text, "irq_handler_entry: irq=%u name=ttyS0", d[0]);
		break;
	case 5:
		id = RAMTRAIL_EV_IRQ_EXIT;
		d[0] = 4 + i % 3;
		d[1] = i / 140 % 2;
		len = 8;
		ramtrail_user_env.ctx = RAMTRAIL_CTX_HARDIRQ;
		ramtrail_user_env.flags = RAMTRAIL_EF_IRQS_OFF;
		sprintf(text, "irq_handler_exit: irq=%u ret=%s", d[0],
			d[1] ? "handled" : "unhandled");
		break;
	case 6:
	case 7:
	case 8:
		id = RAMTRAIL_EV_SOFTIRQ_ENTRY + k - 6;
		d[0] = i / 10 % 10;
		len = 4;
		ramtrail_user_env.ctx = k == 8 ? RAMTRAIL_CTX_HARDIRQ :
						 RAMTRAIL_CTX_SOFTIRQ;
		sprintf(text, "softirq_%s: vec=%u [action=%s]",
			k == 6 ? "entry" : k == 7 ? "exit" : "raise", d[0],
			vec[d[0]]);
		break;
	case 9:
	case 10:
		id = RAMTRAIL_EV_WORK_START + k - 9;
		wo = (struct ramtrail_ev_work){ ptr, func(i % NR_FUNCS, 0) };
		len = offsetof(struct ramtrail_ev_work, function) + 4;
		memcpy(d, &wo, len);
		sprintf(text, "workqueue_execute_%s: work struct %016llx: function f%u",
			k == 9 ? "start" : "end", (unsigned long long)ptr,
			i % NR_FUNCS);
		break;
	case 11:
		id = RAMTRAIL_EV_TIMER_ENTRY;
		tm = (struct ramtrail_ev_timer){ ptr, 4294892 + i, 4294890 + i,
						 func(i % NR_FUNCS, 0) };
		len = offsetof(struct ramtrail_ev_timer, function) + 4;
		memcpy(d, &tm, len);
		ramtrail_user_env.ctx = RAMTRAIL_CTX_SOFTIRQ;
		sprintf(text, "timer_expire_entry: timer=%016llx function=f%u now=%u baseclk=%u",
			(unsigned long long)ptr, i % NR_FUNCS, 4294892 + i,
			4294890 + i);
		break;
	case 12:
		id = RAMTRAIL_EV_TIMER_EXIT;
		memcpy(d, &ptr, 8);
		len = 8;
		ramtrail_user_env.ctx = RAMTRAIL_CTX_SOFTIRQ;
		sprintf(text, "timer_expire_exit: timer=%016llx",
			(unsigned long long)ptr);
		break;
	case 14:	/* a marker: a control byte, a final newline */
		id = RAMTRAIL_EV_MARKER;
		len = sprintf((char *)d, "request %u\tdone\n", i);
		sprintf(text, "tracing_mark_write: request %u?done", i);
		break;
	default:
		id = RAMTRAIL_EV_PRINTK;
		len = sprintf((char *)d, "ramtrail: line %u of the log\n", i);
		sprintf(text, "console: ramtrail: line %u of the log", i);
	}
	ramtrail_ring_event(r, id, d, len);
	if (k == 0) {	/* the next records are the next task's */
		ramtrail_ring_task_switched(r);
		task_of[cpu] = next;
	}
}

/* Functions of many.img: 20000, twice as many names with the callers. */
#define MANY_FUNCS	20000
#define MANY_PANIC	(LINK_TEXT + MANY_FUNCS * FUNC_SIZE)

/* many.img, its System.map and what decode prints of it. */
static void many_names(const char *dir)
{
	struct test_region *t = test_region_new(1, 128, 0);
	FILE *map, *exp, *img;
	u32 i, us, caller;

	snprintf(t->hdr->release, sizeof(t->hdr->release), "many");
	t->hdr->anchor_addr = MANY_PANIC + KASLR;
	test_region_seal(t);
	map = open_in(dir, "System.map-many");
	fprintf(map, "%016llx T _stext\n", LINK_TEXT);
	for (i = 0; i < MANY_FUNCS; i++)
		fprintf(map, "%016llx T m%u\n", LINK_TEXT + i * FUNC_SIZE, i);
	fprintf(map, "%016llx T panic\n%016llx T _etext\n", MANY_PANIC,
		MANY_PANIC + FUNC_SIZE);
	fclose(map);
	exp = open_in(dir, "expect-many.txt");
	ramtrail_user_env.task = 1;
	ramtrail_user_env.ctx = 0;
	ramtrail_user_env.flags = 0;
	for (i = 0; i < MANY_FUNCS; i++) {
		now += STEP_NS;
		us = (now + 500) / 1000;
		caller = (i * 7919 + 1) % MANY_FUNCS;
		ramtrail_ring_func(&t->ring[0], func(i, 0), func(caller, 0x11));
		fprintf(exp, "0 %u.%06u m%u+0x0/0x40 <-m%u+0x11/0x40\n",
			us / 1000000, us % 1000000, i, caller);
	}
	fclose(exp);
	img = open_in(dir, "many.img");
	fwrite(t->mem, t->size, 1, img);
	fclose(img);
	test_region_free(t);
}

int main(int argc, char **argv)
{
	struct ramtrail_module_entry *mod;
	struct test_region *t;
	FILE *map, *exp, *ftr, *img;
	char text[512], flags[6], comm[24];
	u64 init_end = 0, full = 0, koff[RAMTRAIL_KERNEL_NR_FUNCS];
	u8 *ram;
	u32 i, k;

	if (argc != 2) {
		fprintf(stderr, "usage: mkimage DIR\n");
		return 1;
	}
	t = test_region_new(3, 16, 0);
	snprintf(t->hdr->release, sizeof(t->hdr->release), "test");
	t->hdr->anchor_addr = PANIC + KASLR;
	/* The kernel's build: RAMTRAIL_KERNEL_FUNCS after panic, in order. */
	for (i = 0; i < RAMTRAIL_KERNEL_NR_FUNCS; i++)
		koff[i] = (i + 1) * FUNC_SIZE;
	mod = (void *)(t->mem + t->hdr->modtab_offset);
	mod[0] = (struct ramtrail_module_entry){
		.base = PANIC + KASLR, .funcs_hash = ramtrail_kernel_hash(koff),
		.flags = RAMTRAIL_MOD_KERNEL, .name = "vmlinux" };
	mod[1] = (struct ramtrail_module_entry){
		.base = MOD_BASE, .size = MOD_SIZE, .name = "rt_fake" };
	for (i = 0; i < 2; i++)
		mod[i].checksum = ramtrail_module_checksum(&mod[i]);
	test_region_seal(t);

	map = open_in(argv[1], "System.map-test");
	fprintf(map, "%016llx T _stext\n", LINK_TEXT);
	for (i = 0; i < NR_FUNCS; i++)
		fprintf(map, "%016llx %c f%u\n", LINK_TEXT + i * FUNC_SIZE,
			i % 2 ? 't' : 'T', i);
	fprintf(map, "%016llx T panic\n", PANIC);
	for (i = 0; i < RAMTRAIL_KERNEL_NR_FUNCS; i++)
		fprintf(map, "%016llx T %s\n", PANIC + koff[i],
			ramtrail_kernel_funcs[i]);
	/* The function ftrace's print event names (markers). */
	fprintf(map, "%016llx T tracing_mark_write\n", PANIC + (i + 1) * FUNC_SIZE);
	fprintf(map, "%016llx T _etext\n", PANIC + (i + 2) * FUNC_SIZE);
	fprintf(map, "%016llx D some_data\n", PANIC + 0x1000 + i * FUNC_SIZE);
	fclose(map);

	exp = open_in(argv[1], "expect.txt");
	ftr = open_in(argv[1], "expect-ftrace.txt");
	for (i = 0; i < RECORDS; i++) {
		u32 cpu = i % 3;
		struct ramtrail_ring *r = &t->ring[cpu];
		u32 a = (i * 7) % NR_FUNCS, b = (i * 13 + 5) % NR_FUNCS;
		u32 data[RAMTRAIL_EVENT_MAX_LEN / 4 + 1] = { 0 };
		u32 len = i % 23, us, ctx = i % 7 < 4 ? 0 : i % 7 - 3, n = 0;
		u32 pid;

		now += STEP_NS;
		us = (now + 500) / 1000;
		if (i == RECORDS * 3 / 4)
			full = now;
		if (i % 37 == 36) {	/* a switch with no event recorded */
			ramtrail_ring_task_switched(r);
			task_of[cpu] = task_of[cpu] % 5 + 1;
		}
		/* A sched_switch belongs to the task it switches from. */
		pid = task_of[cpu];
		ramtrail_user_env.task = pid;
		ramtrail_user_env.ctx = ctx;
		ramtrail_user_env.flags = 0;
		flags_text(flags, i % 5 != 3, ctx, 0);
		switch (i % 5) {
		case 0:
			ramtrail_ring_func(r, func(a, 0), 0);
			sprintf(text, "f%u+0x0/0x40", a);
			break;
		case 1:
			ramtrail_ring_func(r, func(a, 0), func(b, 0x11));
			sprintf(text, "f%u+0x0/0x40 <-f%u+0x11/0x40", a, b);
			break;
		case 2:
			if (i / 5 % 3) {
				ramtrail_ring_func(r, func(a, 0), func(b, 0x11));
				sprintf(text, "f%u+0x0/0x40 <-f%u+0x11/0x40", a,
					b);
				break;
			}
			/* Called from rt_inita's init, or rt_initb once it ended. */
			if (i == RECORDS / 2 + 2)
				init_end = now;
			ramtrail_ring_func(r, func(a, 0), INIT_BASE + 0x10 + i % 64 -
					   TEST_TEXT_BASE);
			sprintf(text, init_end ? "f%u+0x0/0x40 <-[rt_initb]+0x%x" :
				"f%u+0x0/0x40 <-[rt_inita].init+0x%x", a,
				0x10 + i % 64);
			break;
		case 3:
			if (i / 5 % 2 == 0) {
				kernel_event(r, cpu, i / 10 % 15, i, text);
				flags_text(flags, false, ramtrail_user_env.ctx,
					   ramtrail_user_env.flags);
				break;
			}
			for (k = 0; k < len; k++)
				((u8 *)data)[k] = i + k;
			ramtrail_ring_event(r, RAMTRAIL_EV_USER + (i & 0xff),
					    data, len);
			n = sprintf(text, "ramtrail_event: id=%u len=%u data=",
				    RAMTRAIL_EV_USER + (i & 0xff), len);
			for (k = 0; k < len; k++)
				n += sprintf(text + n, "%02x", (i + k) & 0xff);
			break;
		default:
			ramtrail_ring_func(r, MOD_BASE + 0x120 + i -
					   TEST_TEXT_BASE, func(b, 0x3));
			sprintf(text, "[rt_fake]+0x%x <-f%u+0x3/0x40", 0x120 + i, b);
		}
		fprintf(exp, "%u %u.%06u %s\n", cpu, us / 1000000, us % 1000000,
			text);
		fprintf(ftr, "%16s-%-7u [%03u] %s %5u.%06u: %s\n",
			comm_of(pid, comm), pid, cpu, flags, us / 1000000,
			us % 1000000, text);
	}
	fclose(exp);
	fclose(ftr);
	/* The table as the module leaves it, the end of the init noted. */
	mod[2] = (struct ramtrail_module_entry){
		.base = INIT_BASE, .size = INIT_SIZE, .init_end = init_end,
		.flags = RAMTRAIL_MOD_INIT, .name = "rt_inita" };
	mod[3] = (struct ramtrail_module_entry){
		.base = INIT_BASE, .size = INIT_SIZE, .core_size = 0x2000,
		.name = "rt_initb" };
	/*
	 * Full since then: no entry named gone, no record of an address
	 * without an entry, so every name stays.
	 */
	mod[4] = (struct ramtrail_module_entry){
		.base = MOD_BASE, .size = -(u64)MOD_BASE, .full_since = full,
		.flags = RAMTRAIL_MOD_FULL };
	for (i = 2; i < 5; i++)
		mod[i].checksum = ramtrail_module_checksum(&mod[i]);

	img = open_in(argv[1], "region.img");
	fwrite(t->mem, t->size, 1, img);
	fclose(img);

	/* Filler that is no region, with the region at RAM_OFFSET. */
	ram = malloc(RAM_SIZE);
	if (!ram || RAM_OFFSET + t->size > RAM_SIZE)
		return 2;
	for (i = 0; i < RAM_SIZE; i++)
		ram[i] = i * 2654435761U >> 24;
	memcpy(ram + RAM_OFFSET, t->mem, t->size);
	img = open_in(argv[1], "ram.img");
	fwrite(ram, RAM_SIZE, 1, img);
	fclose(img);
	free(ram);

	/* The zones saved as the module saves them, parity and all. */
	if (!test_save_zones(t, 0, 7, 0, 0))
		return 2;
	img = open_in(argv[1], "saved-ecc.img");
	fwrite(t->mem, t->size, 1, img);
	fclose(img);
	test_region_free(t);
	many_names(argv[1]);
	return 0;
}
