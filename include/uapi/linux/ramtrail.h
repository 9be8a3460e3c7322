/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ramtrail on-RAM format, version 8 (RAMTRAIL_VERSION).
 *
 * This header is the only definition of the persistent region layout. The
 * kernel module writes it, the module's recovery code and the userspace
 * tools read it. All fields are little-endian, typed __le32 and __le64:
 * every access converts, which sparse checks in the module and in the
 * tools. The module is tested on little-endian CPUs only and refuses to
 * build for a big-endian one.
 *
 * The region:
 *
 *   region_offset 0
 *   +----------------------------------+
 *   | struct ramtrail_region_header    |  RAMTRAIL_HEADER_SIZE (4 KiB)
 *   |   ... struct ramtrail_freeze_info|  how recording ended, own checksum
 *   +----------------------------------+  modtab_offset
 *   | struct ramtrail_module_entry[]   |  loaded modules, for relocation
 *   +----------------------------------+  dmesg_offset
 *   | dmesg record 0 | dmesg record 1 ..|  dmesg_count x dmesg_size
 *   +----------------------------------+  saved_offset
 *   | saved (merged) trace of an       |  survives until erased
 *   | earlier boot                     |
 *   +----------------------------------+  zone_offset
 *   | zone 0: block 0 | block 1 | ...  |  nr_blocks x 2^block_shift bytes
 *   | zone 1: block 0 | block 1 | ...  |  one zone per possible CPU
 *   | ...                              |
 *   +----------------------------------+  region_size
 *
 * A zone is a ring of blocks. A writer's position is a 64-bit byte count
 * that never wraps: block number g = pos >> block_shift lives at block
 * index g % nr_blocks and belongs to lap g / nr_blocks.
 *
 * A block is a sequence of 64-bit words. Every word describes itself:
 *
 *   63                    32 31                      6 5   4 3    0
 *   +-----------------------+-------------------------+-----+------+
 *   |        payload        |   ts: counter bits 25:0 | lap | type |
 *   +-----------------------+-------------------------+-----+------+
 *
 * and is stored with one single-copy-atomic 64-bit store. "lap" holds the
 * low two bits of the lap of the block the word was written for. A reader
 * that knows which lap a block belongs to accepts a word only if its lap
 * matches, so a slot that was reserved but never written still carries an
 * older lap and is rejected on its own, without any commit pointer.
 *
 * A record is a head word followed by zero or more RAMTRAIL_W_CONT words.
 * Every word of a record carries the same 26 timestamp bits, which binds
 * the continuation words to their head. A record is valid only when all
 * of its words are valid.
 *
 *   RAMTRAIL_W_BLOCK        3 words  payload: seq[31:0]; CONT seq[63:32];
 *                                    CONT counter[57:26]. Only at word 0.
 *   RAMTRAIL_W_SEAL         1 word   ts and payload: bits 25:0 and 57:26
 *                                    of the block's seal value. Only at
 *                                    word 3 (RAMTRAIL_SEAL_WORD).
 *   RAMTRAIL_W_PAD          1 word   payload 0; fills a block's tail.
 *   RAMTRAIL_W_TSEXT        1 word   payload counter[57:26]: full time of
 *                                    the record that follows.
 *   RAMTRAIL_W_EVENT        1+n      payload: id[15:0] len[23:16]
 *                                    flags[31:24] (RAMTRAIL_EF_*);
 *                                    n = DIV_ROUND_UP(len, 4) CONT words of
 *                                    data, 4 bytes each, little-endian.
 *   RAMTRAIL_W_FUNC + ctx   1 word   payload: ip - text_base.
 *   RAMTRAIL_W_FUNC_PARENT + ctx
 *                           2 words  ip - text_base; CONT parent - text_base.
 *   RAMTRAIL_W_FUNC_REF     1 word   payload: ctx[1:0] word[10:2] back[12:11]
 *                                    check[31:13]: the function and caller
 *                                    of the FUNC_PARENT record at word
 *                                    index "word" of this block (back 0)
 *                                    or of the block "back" blocks before;
 *                                    check is RAMTRAIL_REF_CHECK() of them.
 *
 * A function record's type carries the context it ran in (enum
 * ramtrail_ctx) in its low two bits; an event carries it in its flags, a
 * FUNC_REF in its payload.
 *
 * A FUNC_REF repeats a function and caller that its CPU wrote in full
 * (FUNC_PARENT) a little earlier, in the same block or one of the three
 * before, in 8 bytes instead of 16. The writer only names a record it completed
 * before it reserved the reference, so the reference is valid exactly
 * when the record it names is valid in the lap of its block, and its
 * check matches: a reader drops it otherwise.
 *
 * The task of a record is the one named by the last RAMTRAIL_EV_TASK
 * event before it in its block. The writer puts one right after every
 * block header, and one before a record whenever the CPU's current task
 * is not the one it named last; a record with no such event before it in
 * its block belongs to an unknown task.
 *
 * A block is sealed once no writer can write into it any more: word 3,
 * a RAMTRAIL_W_PAD word when the block is entered, then gets a
 * RAMTRAIL_W_SEAL word of the block's lap that holds a hash of the block's
 * first n words (all of them, or those before the position recording
 * stopped at, for the newest block when recording stops). A writer seals
 * its blocks in order, so in a zone every block before the newest sealed
 * one is sealed: a reader drops a sealed block whose hash does not match
 * and an unsealed block older than a sealed one, reads a sealed block's
 * first n words only, and reads the unsealed newest blocks record by
 * record.
 *
 * Timestamps are raw counter values (the TSC on x86) truncated to 58 bits.
 * Each record stores bits 25:0; the reader rebuilds the rest from the last
 * full value it saw (block header or TSEXT) and the writer guarantees that
 * no record is 2^26 or more ticks after the last committed record before
 * it without a TSEXT. Documentation/ramtrail/format.rst has the details.
 */
#ifndef _UAPI_LINUX_RAMTRAIL_H
#define _UAPI_LINUX_RAMTRAIL_H

#include <linux/types.h>

#define RAMTRAIL_MAGIC			0x4c494152544d4152ULL /* "RAMTRAIL" */
#define RAMTRAIL_VERSION		8
#define RAMTRAIL_HEADER_SIZE		4096
#define RAMTRAIL_MAX_CPUS		192

/* Word layout. */
#define RAMTRAIL_TYPE_BITS		4
#define RAMTRAIL_LAP_SHIFT		4
#define RAMTRAIL_LAP_BITS		2
#define RAMTRAIL_LAP_MASK		((1U << RAMTRAIL_LAP_BITS) - 1)
#define RAMTRAIL_TS_SHIFT		6
#define RAMTRAIL_TS_BITS		26
#define RAMTRAIL_TS_SPAN		(1ULL << RAMTRAIL_TS_BITS)
#define RAMTRAIL_TS_MASK		(RAMTRAIL_TS_SPAN - 1)
#define RAMTRAIL_PAYLOAD_SHIFT		32
/* Counter values are kept to 58 bits: 26 in every word, 32 in a TSEXT. */
#define RAMTRAIL_CLOCK_BITS		58
#define RAMTRAIL_CLOCK_MASK		((1ULL << RAMTRAIL_CLOCK_BITS) - 1)

enum ramtrail_word_type {
	RAMTRAIL_W_EMPTY	= 0,	/* never written */
	RAMTRAIL_W_BLOCK	= 1,
	RAMTRAIL_W_PAD		= 2,
	RAMTRAIL_W_TSEXT	= 3,
	RAMTRAIL_W_EVENT	= 4,
	RAMTRAIL_W_CONT		= 5,
	RAMTRAIL_W_FUNC_REF	= 6,
	RAMTRAIL_W_SEAL		= 7,
	RAMTRAIL_W_FUNC		= 8,	/* 8..11: + enum ramtrail_ctx */
	RAMTRAIL_W_FUNC_PARENT	= 12,	/* 12..15: + enum ramtrail_ctx */
	RAMTRAIL_W_NR_TYPES	= 16,
};

/* What a CPU was running when it wrote a record. */
enum ramtrail_ctx {
	RAMTRAIL_CTX_TASK	= 0,
	RAMTRAIL_CTX_SOFTIRQ	= 1,	/* serving a softirq */
	RAMTRAIL_CTX_HARDIRQ	= 2,
	RAMTRAIL_CTX_NMI	= 3,
};

#define RAMTRAIL_CTX_MASK		3U
#define RAMTRAIL_W_IS_FUNC(type)	(((type) & 8) != 0)
#define RAMTRAIL_W_HAS_PARENT(type)	(((type) & 12) == 12)
#define RAMTRAIL_W_CTX(type)		((type) & RAMTRAIL_CTX_MASK)

/* Words before a block's first record: the header, then its seal. */
#define RAMTRAIL_BLOCK_WORDS_HDR	4
#define RAMTRAIL_BLOCK_HEAD_WORDS	3	/* the RAMTRAIL_W_BLOCK record */
#define RAMTRAIL_SEAL_WORD		3

/*
 * The seal value of a block whose first n words (RAMTRAIL_BLOCK_WORDS_HDR
 * to all) are sealed: bits 8:0 hold n - 1, bits 57:9 those of a hash of
 * the block's 64-bit little-endian words w[i], the seal word and the
 * words from n on read as 0, computed in eight lanes (mod 2^64):
 *
 *   h[k] = RAMTRAIL_SEAL_LANE * (2k + 1), for k = 0..7;
 *   for i = 0, 8, 16, ... (every word), k = 0..7:
 *     h[k] = rol64((h[k] ^ w[i + k]) * RAMTRAIL_SEAL_MUL, RAMTRAIL_SEAL_ROT);
 *   x = 0; for k = 0..7: x = mix(x ^ h[k]);
 *
 * with mix(x): x *= RAMTRAIL_SEAL_MIX1; x ^= x >> 33; x *=
 * RAMTRAIL_SEAL_MIX2; x ^= x >> 29. Each step is a bijection of the word
 * it takes, so a change to any one word changes x; the rotation carries
 * the high bits, which a product leaves alone below them, to the low
 * ones, so changes to several words go unseen with odds near 2^-49.
 */
#define RAMTRAIL_SEAL_LANE		0x243f6a8885a308d3ULL
#define RAMTRAIL_SEAL_MUL		0x9e3779b97f4a7c15ULL
#define RAMTRAIL_SEAL_ROT		31
#define RAMTRAIL_SEAL_MIX1		0xff51afd7ed558ccdULL
#define RAMTRAIL_SEAL_MIX2		0xc4ceb9fe1a85ec53ULL
#define RAMTRAIL_SEAL_N_MASK		0x1ffULL

/* RAMTRAIL_W_FUNC_REF payload */
#define RAMTRAIL_REF_WORD_SHIFT		2
#define RAMTRAIL_REF_WORD_MASK		0x1ffU
#define RAMTRAIL_REF_BACK_SHIFT		11
#define RAMTRAIL_REF_BACK_MAX		3U
#define RAMTRAIL_REF_CHECK_SHIFT	13
#define RAMTRAIL_REF_CTX(p)		((p) & RAMTRAIL_CTX_MASK)
#define RAMTRAIL_REF_WORD(p)		\
	(((p) >> RAMTRAIL_REF_WORD_SHIFT) & RAMTRAIL_REF_WORD_MASK)
#define RAMTRAIL_REF_BACK(p)		\
	(((p) >> RAMTRAIL_REF_BACK_SHIFT) & RAMTRAIL_REF_BACK_MAX)
/*
 * The pair hash: its high 19 bits are a reference's check, and the
 * writer indexes its cache of recent pairs with its high bits too.
 */
#define RAMTRAIL_PAIR_HASH(ip, parent)	\
	(((__u32)(ip) * 0x9e3779b1U + (__u32)(parent)) * 0x85ebca77U)
#define RAMTRAIL_REF_CHECK(ip, parent)	\
	(RAMTRAIL_PAIR_HASH(ip, parent) >> RAMTRAIL_REF_CHECK_SHIFT)
#define RAMTRAIL_EVENT_MAX_LEN		255
/*
 * The bytes of one write() to the marker device (/dev/ramtrail_marker) a
 * RAMTRAIL_EV_MARKER record holds; a longer write records its first ones
 * and returns their count.
 */
#define RAMTRAIL_MARKER_MAX		RAMTRAIL_EVENT_MAX_LEN
#define RAMTRAIL_EVENT_ID(p)		((p) & 0xffff)
#define RAMTRAIL_EVENT_LEN(p)		(((p) >> 16) & 0xff)
#define RAMTRAIL_EVENT_FLAGS(p)		((p) >> 24)
#define RAMTRAIL_EVENT_HEAD(id, len)	((__u32)(id) | ((__u32)(len) << 16))
#define RAMTRAIL_EVENT_HEAD_FLAGS(id, len, flags) \
	(RAMTRAIL_EVENT_HEAD(id, len) | ((__u32)(flags) << 24))

/* Event flags: the context in bits 1:0, then these; bits 7:4 are zero. */
#define RAMTRAIL_EF_IRQS_OFF		(1U << 2)
#define RAMTRAIL_EF_NEED_RESCHED	(1U << 3)
#define RAMTRAIL_EF_MASK		0xfU

/*
 * Function offsets from the text base take 32 bits (on x86-64 the kernel
 * and its modules lie within 2 GiB of __START_KERNEL_map; on arm64
 * within 2 GiB of panic(), the text base 2 GiB below it). A function
 * outside is recorded as offset 0.
 */
#define RAMTRAIL_TEXT_OFFSET_MAX	0xffffffffU

/*
 * Event ids. Below RAMTRAIL_EV_USER: ramtrail's own, with the payloads
 * below (u32 fields, pointers as u64, function addresses as u32 offsets
 * from the text base); from RAMTRAIL_EV_USER on: ramtrail_record_event()
 * callers'.
 */
enum ramtrail_event_id {
	RAMTRAIL_EV_TASK		= 0,	/* struct ramtrail_ev_task */
	RAMTRAIL_EV_PRINTK		= 1,	/* the log line's text */
	RAMTRAIL_EV_SCHED_SWITCH	= 2,	/* struct ramtrail_ev_switch */
	RAMTRAIL_EV_SCHED_WAKEUP	= 3,	/* struct ramtrail_ev_wakeup */
	RAMTRAIL_EV_SCHED_WAKING	= 4,	/* struct ramtrail_ev_wakeup */
	RAMTRAIL_EV_SCHED_WAKEUP_NEW	= 5,	/* struct ramtrail_ev_wakeup */
	RAMTRAIL_EV_IRQ_ENTRY		= 6,	/* u32 irq, then the name (<= 16) */
	RAMTRAIL_EV_IRQ_EXIT		= 7,	/* u32 irq, u32 ret */
	RAMTRAIL_EV_SOFTIRQ_ENTRY	= 8,	/* u32 vec */
	RAMTRAIL_EV_SOFTIRQ_EXIT	= 9,	/* u32 vec */
	RAMTRAIL_EV_SOFTIRQ_RAISE	= 10,	/* u32 vec */
	RAMTRAIL_EV_WORK_START		= 11,	/* struct ramtrail_ev_work */
	RAMTRAIL_EV_WORK_END		= 12,	/* struct ramtrail_ev_work */
	RAMTRAIL_EV_TIMER_ENTRY		= 13,	/* struct ramtrail_ev_timer */
	RAMTRAIL_EV_TIMER_EXIT		= 14,	/* u64 timer */
	RAMTRAIL_EV_MARKER		= 15,	/* bytes user space wrote */
	RAMTRAIL_EV_NR			= 16,
	RAMTRAIL_EV_USER		= 0x100,
};

#define RAMTRAIL_COMM_LEN		16
#define RAMTRAIL_IRQ_NAME_LEN		16
/* An unknown task: pid of a saved RAMTRAIL_EV_TASK entry */
#define RAMTRAIL_PID_UNKNOWN		0xffffffffU

/**
 * struct ramtrail_ev_task - the task whose records follow on this CPU
 * @pid: its pid (thread id; 0 for a CPU's idle task)
 * @tgid: its thread group (process) id
 * @comm: its command name, NUL-padded, not always NUL-terminated
 */
struct ramtrail_ev_task {
	__le32 pid;
	__le32 tgid;
	char comm[RAMTRAIL_COMM_LEN];
};

/* sched_switch: the names of both tasks are in their task events. */
struct ramtrail_ev_switch {
	__le32 prev_pid;
	__le32 prev_prio;
	__le32 prev_state;
	__le32 next_pid;
	__le32 next_prio;
};

/* sched_wakeup, sched_waking, sched_wakeup_new */
struct ramtrail_ev_wakeup {
	__le32 pid;
	__le32 prio;
	__le32 target_cpu;
};

/*
 * workqueue_execute_start and _end, and timer_expire_entry. An event
 * stores the bytes up to the end of @function, not the tail padding.
 */
struct ramtrail_ev_work {
	__le64 work;
	__le32 function;
};

struct ramtrail_ev_timer {
	__le64 timer;
	__le64 now;
	__le64 baseclk;
	__le32 function;
};

/* Block geometry. The header records it; readers check it. */
#define RAMTRAIL_BLOCK_SHIFT		12
#define RAMTRAIL_BLOCK_SIZE		(1U << RAMTRAIL_BLOCK_SHIFT)
#define RAMTRAIL_MIN_BLOCKS		2

enum ramtrail_state {
	RAMTRAIL_STATE_EMPTY		= 0,
	RAMTRAIL_STATE_FORMATTING	= 1,	/* zones are being cleared */
	RAMTRAIL_STATE_RECORDING	= 2,
	RAMTRAIL_STATE_FROZEN		= 3,	/* oops/panic: zones hold the tail */
	RAMTRAIL_STATE_STOPPED		= 4,	/* clean stop (module unload) */
	RAMTRAIL_STATE_SAVED		= 5,	/* zones copied to the saved area */
	RAMTRAIL_STATE_NR		= 6,
};

enum ramtrail_freeze_reason {
	RAMTRAIL_FREEZE_NONE		= 0,
	RAMTRAIL_FREEZE_PANIC		= 1,
	RAMTRAIL_FREEZE_OOPS		= 2,
	RAMTRAIL_FREEZE_API		= 3,	/* ramtrail_freeze() caller */
	RAMTRAIL_FREEZE_USER		= 4,	/* the frozen parameter */
	RAMTRAIL_FREEZE_NR		= 5,
};

/* ramtrail_region_header.machine: ELF's EM_X86_64 and EM_AARCH64 */
#define RAMTRAIL_MACHINE_X86_64		62
#define RAMTRAIL_MACHINE_AARCH64	183

/* ramtrail_region_header.flags */
#define RAMTRAIL_F_CLOCK_RELIABLE	(1U << 0) /* counter synchronised across CPUs */
#define RAMTRAIL_F_STOP_WHEN_FULL	(1U << 1) /* else overwrite (flight recorder) */

/* Bounds of what a writer produces; a reader refuses anything else. */
#define RAMTRAIL_CLOCK_HZ_MIN		1000000ULL	/* 1 MHz */
#define RAMTRAIL_CLOCK_HZ_MAX		100000000000ULL	/* 100 GHz */
#define RAMTRAIL_MAX_MODULES		4096
#define RAMTRAIL_MAX_DMESG		1024

/**
 * struct ramtrail_zone_info - per-zone facts written when recording ends
 * @freeze_pos: writer position of the zone when recording froze or stopped
 * @dropped: records the zone's writer lost while recording: refused when
 *	full (stop_when_full), by a nested writer that found no room, or by
 *	recursion; not those refused while paused (frozen, enabled=0)
 */
struct ramtrail_zone_info {
	__le64 freeze_pos;
	__le64 dropped;
};

/**
 * struct ramtrail_freeze_info - how recording ended, written at the freeze
 * @checksum: CRC32 (IEEE) of this struct, this field as 0
 * @reason: enum ramtrail_freeze_reason (NONE for a clean stop)
 * @boot_id: the header's boot_id: a record of an earlier boot is ignored
 * @cpu: CPU that froze recording
 * @nr_zones: entries of @zone that are set (the header's nr_cpus)
 * @cycles: counter value when recording froze
 * @clock_flags: RAMTRAIL_F_CLOCK_RELIABLE if the counter was still
 *	synchronised across CPUs when recording ended (the kernel may find
 *	it unstable after the format)
 * @reserved: zero
 * @zone: per-zone facts
 * @sealed: bit n of word n / 64 set: zone n was sealed up to its
 *	@freeze_pos when recording stopped, so every block of it before that
 *	position is sealed; 0 where its writer did not finish in time (see
 *	the zone's words in the comment at the top of this file)
 *
 * It has its own checksum so that a reset in the middle of the freeze
 * leaves the rest of the header valid: the zones then read as a power cut.
 */
struct ramtrail_freeze_info {
	__le32 checksum;
	__le32 reason;
	__le64 boot_id;
	__le32 cpu;
	__le32 nr_zones;
	__le64 cycles;
	__le32 clock_flags;
	__le32 reserved;
	struct ramtrail_zone_info zone[RAMTRAIL_MAX_CPUS];
	__le64 sealed[RAMTRAIL_MAX_CPUS / 64];
};

/**
 * struct ramtrail_region_header - first bytes of the region
 * @magic: RAMTRAIL_MAGIC
 * @version: RAMTRAIL_VERSION of the writer
 * @header_size: bytes covered by @checksum: offsetof(.., freeze)
 * @checksum: CRC32 (IEEE) of the first @header_size bytes, this field and
 *	@state as 0. Written once per boot, when the region is formatted.
 * @state: enum ramtrail_state; changed later with one aligned 32-bit store,
 *	so no reset instant leaves it half written
 * @region_size: bytes of the whole region
 * @modtab_offset: module table
 * @dmesg_offset: first dmesg record
 * @dmesg_size: bytes per dmesg record, struct ramtrail_dmesg_header included
 * @saved_offset: saved trace area
 * @saved_size: bytes of the saved trace area
 * @modtab_count: entries of the module table
 * @dmesg_count: number of dmesg records
 * @layout_checksum: CRC32 of @region_size up to this field: the areas that
 *	outlive a boot. A new boot rewrites them with the same values, so a
 *	torn header write keeps them valid, and the dmesg records and saved
 *	traces are found even when @checksum fails.
 * @machine: the writer's architecture, as ELF's e_machine
 *	(RAMTRAIL_MACHINE_*): how its text addresses and KASLR work
 * @zone_offset: first zone, from the start of the region
 * @block_shift: log2 of the block size (RAMTRAIL_BLOCK_SHIFT)
 * @nr_cpus: number of zones
 * @nr_blocks: blocks per zone
 * @flags: RAMTRAIL_F_*
 * @phys_addr: physical address the region was formatted at
 * @nonce: random value chosen when the region was formatted
 * @boot_id: counts the boots that recorded into this region
 * @text_base: ip of a function record = text_base + 32-bit payload
 * @anchor_addr: address of panic() in the writing boot; the difference to
 *	the reading boot's is the KASLR delta of kernel text
 * @clock_hz: counter frequency, 0 or within RAMTRAIL_CLOCK_HZ_MIN..MAX
 * @clock_ref_cycles: counter value at @clock_ref_ns
 * @clock_ref_ns: CLOCK_MONOTONIC (ns) when the counter read @clock_ref_cycles
 * @release: uname -r of the writing kernel, NUL-terminated
 * @build: uname -v of the writing kernel (build number and date),
 *	NUL-terminated: with @release, tells whether symbols of the reading
 *	kernel apply
 * @reserved: zero; pads the header's checksummed part to 512 bytes
 * @freeze: how recording ended, with its own checksum
 */
struct ramtrail_region_header {
	__le64 magic;
	__le32 version;
	__le32 header_size;
	__le32 checksum;
	__le32 state;
	__le64 region_size;
	__le64 modtab_offset;
	__le64 dmesg_offset;
	__le64 dmesg_size;
	__le64 saved_offset;
	__le64 saved_size;
	__le32 modtab_count;
	__le32 dmesg_count;
	__le32 layout_checksum;
	__le32 machine;
	__le64 zone_offset;
	__le32 block_shift;
	__le32 nr_cpus;
	__le32 nr_blocks;
	__le32 flags;
	__le64 phys_addr;
	__le64 nonce;
	__le64 boot_id;
	__le64 text_base;
	__le64 anchor_addr;
	__le64 clock_hz;
	__le64 clock_ref_cycles;
	__le64 clock_ref_ns;
	char release[64];
	char build[64];
	__le64 reserved[26];
	struct ramtrail_freeze_info freeze;
};

/*
 * A module loaded then unloaded in the recording boot: set after @gone
 * and the checksum.
 */
#define RAMTRAIL_MOD_GONE		(1U << 0)
/*
 * The entry is a module's init text, which the kernel frees once the
 * module's init has run, for a later module to take; @init_end says when:
 * an address of both is the init's before then, the later one's after.
 * Set with the entry and covered by its checksum.
 */
#define RAMTRAIL_MOD_INIT		(1U << 1)
/*
 * The table's last entries once a module found no room in it: one per
 * part of the module area (@base its start, @size its size; on x86-64
 * one, up to the top of the address space; on arm64 two, the text
 * window below the kernel image and above it), no name, and @full_since
 * says when that module came. From then on a module may lie where no entry
 * says: a record of that time or later is named only by an entry of a
 * module still loaded when the table was last written, or of an init
 * text before its end. Set with the entry and covered by its checksum.
 */
#define RAMTRAIL_MOD_FULL		(1U << 2)
/*
 * Not a module: the kernel's build, the table's first entry (none when
 * the writer could not tell its kernel's functions apart). @base is
 * the anchor (panic()'s address), @size 0 (it covers no address: it names
 * nothing), @name "vmlinux", and @funcs_hash the hash of
 * RAMTRAIL_KERNEL_FUNCS, each by its name and its address minus the
 * anchor. A kernel rebuilt with the same release and version strings
 * moves some of these: its names are not the traced kernel's. Set with
 * the entry and covered by its checksum.
 */
#define RAMTRAIL_MOD_KERNEL		(1U << 4)

/*
 * The kernel functions whose places tell a build (RAMTRAIL_MOD_KERNEL),
 * an initializer of RAMTRAIL_KERNEL_NR_FUNCS names in the hash's input
 * order: exported, so the module links to them, built in whatever the
 * configuration (given BLOCK and NET), and spread along the kernel's
 * text in link order (core, mm, fs, block, drivers, net, lib),
 * schedule() in the scheduler's section after all of .text.
 */
#define RAMTRAIL_KERNEL_NR_FUNCS	22
#define RAMTRAIL_KERNEL_FUNCS {						\
	"_printk", "queue_work_on", "mod_timer", "msleep", "call_rcu",	\
	"kfree", "vfree", "filp_open", "kern_path",			\
	"generic_file_llseek", "submit_bio", "blk_mq_alloc_tag_set",	\
	"device_add", "misc_register", "skb_put", "sock_create_kern",	\
	"idr_alloc", "sort", "kstrtoull", "memparse", "bitmap_parse",	\
	"schedule" }

/**
 * struct ramtrail_module_entry - a module's text, to relocate its ips
 * @base: start of the module's text in the writing boot (0: unused entry)
 * @size: bytes of text
 * @core_size: bytes of the module's core (text, rodata, data); 0 for init
 *	text, the kernel and the last entry of a full table
 * @flags: RAMTRAIL_MOD_*
 * @checksum: CRC32 of this entry, @flags and this field as 0, then of
 *	the value of its RAMTRAIL_MOD_INIT, RAMTRAIL_MOD_FULL and
 *	RAMTRAIL_MOD_KERNEL bits if one is set; RAMTRAIL_MOD_GONE, written
 *	later, is not covered
 * @name: module name, NUL-terminated
 * @gone: when the module was unloaded; 0 while it is loaded
 * @init_end: for init text (RAMTRAIL_MOD_INIT), when the init ended; 0
 *	while it runs, and for other entries
 * @full_since: for the last entry of a full table (RAMTRAIL_MOD_FULL),
 *	when it filled; 0 for other entries
 * @funcs_hash: the hash of the module's named functions in its text,
 *	each by its name and offset from the text's start: the 64-bit sum,
 *	in any order, of splitmix64's finaliser of (CRC32 of the name) << 32
 *	^ the offset; equal only when a build names every address of the
 *	text as the traced one did. For the kernel (RAMTRAIL_MOD_KERNEL):
 *	the hash of its build, see there. 0: unknown (a writer without
 *	kallsyms, init text)
 *
 * Times (@gone, @init_end, @full_since) are the counter value (masked)
 * the records carry, in a saved trace's copy nanoseconds, as its records.
 *
 * Entries are only appended: an unloaded module keeps its entry (marked
 * gone), and names no address of a record at @gone or later. An address
 * that two entries may cover at a record's time is ambiguous and is never
 * given a name.
 */
struct ramtrail_module_entry {
	__le64 base;
	__le64 size;
	__le64 core_size;
	__le32 flags;
	__le32 checksum;
	char name[56];
	__le64 gone;
	__le64 init_end;
	__le64 full_since;
	__le64 funcs_hash;
};

#define RAMTRAIL_DMESG_MAGIC		0x47534d44 /* "DMSG" */

/**
 * struct ramtrail_dmesg_header - start of a dmesg record
 * @magic: RAMTRAIL_DMESG_MAGIC when the record holds data
 * @len: bytes of data after this header
 * @boot_id: boot that wrote it
 * @time_ns: wall-clock time of the dump (ns since the epoch)
 * @reason: kmsg dump reason
 * @part: pstore part number
 * @compressed: data is compressed by pstore
 * @count: pstore's oops count
 * @checksum: CRC32 of this header (the field as 0) and the @len bytes of data
 * @reserved: zero
 */
struct ramtrail_dmesg_header {
	__le32 magic;
	__le32 len;
	__le64 boot_id;
	__le64 time_ns;
	__le32 reason;
	__le32 part;
	__le32 compressed;
	__le32 count;
	__le32 checksum;
	__le32 reserved;
};

/*
 * The saved area holds merged traces of earlier boots, each a struct
 * ramtrail_saved_trace at an 8-byte aligned offset, then
 * RAMTRAIL_SAVED_HEAD_PARITY bytes of its parity, then modtab_count module
 * entries, then nr_slots chunk slots of chunk_size bytes. Entries do not
 * overlap; the space between them is free (the space of erased traces is
 * reused). A reader finds them by scanning the area for a valid entry
 * (magic, checksum, bounds) every 8 bytes, skipping the inside of each one
 * found, and lists them by boot_id. A writer keeps at most
 * RAMTRAIL_MAX_SAVED entries.
 *
 * The header and its parity are coded as a chunk slot (below) of
 * RAMTRAIL_SAVED_HEAD_SLOT bytes with ecc RAMTRAIL_SAVED_HEAD_ECC, @erased
 * taken as 0: a reader may correct a header whose checksum fails and at
 * least two of whose magic's bytes are right.
 *
 * The slots are a ring: chunk n (counted from 0 in time order) is in slot
 * n % nr_slots, and the newest nr_slots of the nr_chunks written are kept.
 * A trace that never wrapped (nr_chunks == nr_slots) ends right after its
 * last slot, cut to the bytes its chunk and parity need (a multiple of 8).
 * Each chunk is a struct ramtrail_saved_chunk and @len bytes of entries,
 * checked by its own CRC, and starts afresh: a damaged chunk loses only
 * its own records.
 *
 * With ecc (parity bytes per codeword) not 0, a slot of S bytes ends in
 * Reed-Solomon parity that corrects up to ecc / 2 wrong bytes in each of
 * its nr codewords, interleaved:
 *
 *   slot:  | chunk, entries, zeroes | parity        | free |
 *          |<-------- data -------->|<- nr * ecc -->|
 *   data = S - DIV_ROUND_UP(S, 255) * ecc, nr = DIV_ROUND_UP(data, 255 - ecc)
 *   codeword c: data bytes c, c + nr, c + 2 * nr, ..., then parity bytes
 *   data + c, data + nr + c, ..., data + (ecc - 1) * nr + c; its first
 *   byte is its highest power. The code is RS(255, 255 - ecc) over GF(2^8),
 *   field polynomial 0x11d, the generator's roots alpha^0 .. alpha^(ecc - 1).
 *
 * With ecc 0 the data is the whole slot.
 *
 * An entry is a tag byte (RAMTRAIL_ST_*), then, if the tag says so, the
 * CPU as a varint, then the time as a varint of nanoseconds after the
 * entry before it in the chunk (the chunk's @ns for the first), then:
 *   a function whose (function, caller) pair the chunk has seen: the
 *     pair's index in the chunk's table of pairs (a varint);
 *   a function with a new pair, appended to that table: a byte of
 *     RAMTRAIL_SR_* refs (function in bits 1:0, caller in bits 3:2), then
 *     the function's offset from the text base, then its caller's (if
 *     any), each an index into the chunk's table of offsets (a varint)
 *     or a new offset (4 bytes), which is appended to that table;
 *   an event: its id as a varint, its length and flags as a byte each,
 *     then the length in bytes of data.
 * Varints are LEB128: 7 bits a byte, low bits first, bit 7 set on all but
 * the last byte. The first entry of a chunk names its CPU.
 *
 * A RAMTRAIL_EV_TASK event says which task its CPU's later entries in the
 * chunk belong to (pid RAMTRAIL_PID_UNKNOWN: an unknown one); a CPU's
 * entries before its first task event in a chunk belong to an unknown
 * task.
 */
#define RAMTRAIL_SAVED_MAGIC		0x56535452 /* "RTSV" */
#define RAMTRAIL_MAX_SAVED		256
#define RAMTRAIL_SAVED_HEAD_PARITY	32
#define RAMTRAIL_SAVED_HEAD_ECC		16	/* two codewords */
#define RAMTRAIL_SAVED_HEAD_SLOT	(288 + RAMTRAIL_SAVED_HEAD_PARITY)

/* Tag byte of a saved entry. */
#define RAMTRAIL_ST_CTX_MASK		0x03	/* a function's enum ramtrail_ctx */
#define RAMTRAIL_ST_KIND_SHIFT		2	/* enum ramtrail_saved_kind */
#define RAMTRAIL_ST_KIND_MASK		3U
/*
 * Bits 7:4, the CPU: 0 the one of the entry before, n from 1 to 14 CPU
 * n - 1, RAMTRAIL_ST_CPU_VARINT: the CPU follows as a varint.
 */
#define RAMTRAIL_ST_CPU_SHIFT		4
#define RAMTRAIL_ST_CPU_SAME		0
#define RAMTRAIL_ST_CPU_VARINT		15

enum ramtrail_saved_kind {
	RAMTRAIL_SK_EVENT	= 0,	/* context bits zero */
	RAMTRAIL_SK_PAIR	= 1,	/* a function of a pair seen before */
	RAMTRAIL_SK_NEW_PAIR	= 2,	/* a function of a new pair */
	/* 3: invalid */
};

/* How a new pair gives a function offset (a refs byte: 2 bits each). */
enum ramtrail_saved_ref {
	RAMTRAIL_SR_NONE	= 0,	/* the caller only: none */
	RAMTRAIL_SR_INDEX	= 1,	/* varint index into the offsets */
	RAMTRAIL_SR_NEW		= 2,	/* 4 bytes, appended to the offsets */
};

#define RAMTRAIL_SR_MASK		3U
#define RAMTRAIL_SR_PARENT_SHIFT	2

/* Bounds of what a writer produces; a reader refuses anything else. */
/*
 * A chunk holds at most RAMTRAIL_SAVED_CHUNK_ENTRIES entries: records of
 * 3 bytes (a pair's index) fill the largest one.
 */
#define RAMTRAIL_SAVED_CHUNK_MIN	512
#define RAMTRAIL_SAVED_CHUNK_MAX	49152
#define RAMTRAIL_SAVED_CHUNK_ENTRIES	16384	/* task events included */
#define RAMTRAIL_SAVED_CHUNK_NAMES	4096	/* offsets in a chunk's table */
#define RAMTRAIL_SAVED_CHUNK_PAIRS	4096	/* pairs in a chunk's table */
#define RAMTRAIL_SAVED_ECC_N		255	/* bytes of a whole codeword */
#define RAMTRAIL_SAVED_ECC_MAX		32	/* parity bytes per codeword */
/*
 * Chunks per pstore file (part), counted back from the newest chunk: the
 * oldest part holds the rest. erased tells the parts apart.
 */
#define RAMTRAIL_SAVED_PART_CHUNKS	8

/**
 * struct ramtrail_saved_trace - one boot's trace, recovered and merged
 * @magic: RAMTRAIL_SAVED_MAGIC
 * @checksum: CRC32 of this struct, this field and @erased as 0
 * @erased: bit n set: pstore part n was erased; all ones: the whole trace.
 *	Changed with one aligned 64-bit store, outside the checksum, so an
 *	erase never leaves the entry (and the list after it) invalid.
 * @size: bytes of the whole entry (this struct, modules and chunks)
 * @boot_id: boot that recorded the trace
 * @nonce: nonce of the region format that boot wrote
 * @nr_records: records in the chunks kept (task events not counted)
 * @text_base: text base of the recording boot
 * @anchor_addr: anchor address of the recording boot
 * @nr_cpus: zones merged
 * @state: enum ramtrail_state of the region when recovered
 * @freeze_reason: enum ramtrail_freeze_reason
 * @freeze_cpu: CPU that froze recording
 * @modtab_count: module entries that follow this struct
 * @flags: RAMTRAIL_F_* of the recording boot
 * @dropped: records the writers lost while recording (struct
 *	ramtrail_zone_info, summed)
 * @corrupt_blocks: blocks dropped by the decoder
 * @torn: torn records dropped by the decoder
 * @lost_words: words of unfinished writes skipped by the decoder
 * @no_time: records dropped for lack of a timestamp base
 * @skipped: recovered records that did not fit in the saved area (oldest)
 * @chunk_size: bytes of a chunk slot, a multiple of 8 within
 *	RAMTRAIL_SAVED_CHUNK_MIN..MAX
 * @nr_slots: chunk slots after the module entries
 * @nr_chunks: chunks written, at least @nr_slots
 * @ecc: parity bytes per codeword of a slot, 0 to RAMTRAIL_SAVED_ECC_MAX
 * @reserved: zero
 * @release: uname -r of the recording kernel
 * @build: uname -v of the recording kernel
 */
struct ramtrail_saved_trace {
	__le32 magic;
	__le32 checksum;
	__le64 erased;
	__le64 size;
	__le64 boot_id;
	__le64 nonce;
	__le64 nr_records;
	__le64 text_base;
	__le64 anchor_addr;
	__le32 nr_cpus;
	__le32 state;
	__le32 freeze_reason;
	__le32 freeze_cpu;
	__le32 modtab_count;
	__le32 flags;
	__le64 dropped;
	__le64 corrupt_blocks;
	__le64 torn;
	__le64 lost_words;
	__le64 no_time;
	__le64 skipped;
	__le32 chunk_size;
	__le32 nr_slots;
	__le64 nr_chunks;
	__le32 ecc;
	__le32 reserved;
	char release[64];
	char build[64];
};

/**
 * struct ramtrail_saved_chunk - start of a chunk of a saved trace
 * @checksum: CRC32 of the trace's @boot_id and @nonce (8 bytes each), then
 *	of the @len bytes of entries that follow, then of this struct after
 *	this field
 * @len: bytes of entries
 * @seq: the chunk's number in its trace
 * @ns: CLOCK_MONOTONIC ns of the recording boot that the first entry's
 *	time counts from
 * @records: entries that are not task events
 * @reserved: zero
 */
struct ramtrail_saved_chunk {
	__le32 checksum;
	__le32 len;
	__le64 seq;
	__le64 ns;
	__le32 records;
	__le32 reserved;
};

#endif /* _UAPI_LINUX_RAMTRAIL_H */
