/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the kernel facilities fs/ramtrail/compat.h names,
 * so that the shared sources build in tools/. Kernel-looking macros on
 * purpose; checkpatch is not run on this file.
 */
#ifndef _RAMTRAIL_USER_COMPAT_H
#define _RAMTRAIL_USER_COMPAT_H


#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <endian.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define notrace
#ifndef ____cacheline_aligned
#define ____cacheline_aligned	__attribute__((__aligned__(64)))
#endif
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#define noinline	__attribute__((__noinline__))
#define __weak		__attribute__((__weak__))
#define __aligned(n)	__attribute__((__aligned__(n)))
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define barrier()	__asm__ __volatile__("" : : : "memory")
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define smp_store_release(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
/* @a a power of two, as the kernel's. */
#define round_up(x, a)	((((x) - 1) | ((__typeof__(x))(a) - 1)) + 1)
#define round_down(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define min_t(type, x, y) ((type)(x) < (type)(y) ? (type)(x) : (type)(y))
#define max_t(type, x, y) ((type)(x) > (type)(y) ? (type)(x) : (type)(y))
/*
 * The format's fields are __le32/__le64 (linux/types.h): sparse, run over
 * the tools as over the module, checks every access converts.
 */
#ifdef __CHECKER__
#define __force		__attribute__((force))
#else
#define __force
#endif
#define le64_to_cpu(x)	((__force u64)le64toh((__force u64)(x)))
#define le32_to_cpu(x)	((__force u32)le32toh((__force u32)(x)))
#define cpu_to_le64(x)	((__force __le64)htole64(x))
#define cpu_to_le32(x)	((__force __le32)htole32(x))
#define le64_add_cpu(p, v) (*(p) = cpu_to_le64(le64_to_cpu(*(p)) + (v)))

/*
 * local_t: a counter only its own CPU (here: its own thread and the signal
 * handlers that interrupt it) modifies, with the kernel's instructions: on
 * x86-64 unlocked ones (one instruction is atomic against a signal, and a
 * migration happens between instructions), on arm64 atomic_long_t's
 * (asm-generic/local.h: a fully ordered cmpxchg, a relaxed increment).
 */
typedef struct {
	long v;
} local_t;

static inline long local_read(const local_t *l)
{
	return __atomic_load_n(&l->v, __ATOMIC_RELAXED);
}

static inline void local_set(local_t *l, long v)
{
	__atomic_store_n(&l->v, v, __ATOMIC_RELAXED);
}

static inline void local_inc(local_t *l)
{
#if defined(__x86_64__)
	__asm__ __volatile__("incq %0" : "+m"(l->v));
#else
	__atomic_fetch_add(&l->v, 1, __ATOMIC_RELAXED);
#endif
}

#ifdef RAMTRAIL_TEST_HOOKS
/*
 * Test builds only (tools/Makefile's HOOKS): called after each successful
 * local_cmpxchg(), which in the shared sources is a writer's reservation
 * of @old..@new in a ring.
 */
void test_reservation(local_t *l, long old, long new);
#endif

#ifdef RAMTRAIL_TEST_HOOKS
/*
 * Test builds: ramtrail_store() offers each store to the test, which may
 * hold it back as a write-combining buffer would, until the writer's
 * ramtrail_wc_drain() (or the test) lets it through.
 */
bool test_store_held(void *w, u64 v);
void test_wc_drain(void);

static inline void ramtrail_wc_drain(void)
{
	test_wc_drain();
}
#else
static inline void ramtrail_wc_drain(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#endif

static inline long local_cmpxchg(local_t *l, long old, long new)
{
	long was = old;

#if defined(__x86_64__)
	__asm__ __volatile__("cmpxchgq %2, %1"
			     : "+a"(was), "+m"(l->v) : "r"(new) : "memory");
#else
	__atomic_compare_exchange_n(&l->v, &was, new, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
#endif
#ifdef RAMTRAIL_TEST_HOOKS
	if (was == old)
		test_reservation(l, old, new);
#endif
	return was;
}

static inline u64 rol64(u64 word, unsigned int shift)
{
	return (word << (shift & 63)) | (word >> ((-shift) & 63));
}

static inline u64 div_u64_rem(u64 n, u32 d, u32 *rem)
{
	*rem = n % d;
	return n / d;
}

#define U64_MAX		UINT64_MAX
#define U32_MAX		UINT32_MAX

/* A long loop of the shared code lets the kernel run others: no-op here. */
#define cond_resched()	do { } while (0)

/*
 * Trap where the kernel traps: on x86 mul_u64_u64_div_u64() ends in a divq,
 * which raises a divide error for a zero divisor or a quotient past 64
 * bits. Truncating here would hide from the fuzzers a header that oopses
 * the module.
 */
static inline u64 ramtrail_mul_div(u64 a, u64 b, u64 c)
{
	unsigned __int128 q;

	if (!c)
		__builtin_trap();
	q = (unsigned __int128)a * b / c;
	if (q > UINT64_MAX)
		__builtin_trap();
	return (u64)q;
}

static inline u64 ramtrail_mul_hi(u64 a, u64 b)
{
	return (u64)((unsigned __int128)a * b >> 64);
}

static inline u64 div64_u64(u64 a, u64 b)
{
	if (!b)
		__builtin_trap();
	return a / b;
}

u32 ramtrail_crc32_update(u32 crc, const void *p, size_t len);

/*
 * The writer's task and context (fs/ramtrail/compat.h): a thread's own
 * values, which a test sets; a signal handler standing for an interrupt
 * keeps its thread's task, as an interrupt does.
 */
struct ramtrail_user_env {
	unsigned long task;	/* never 0; task event: pid = tgid = task */
	unsigned int ctx;	/* enum ramtrail_ctx */
	unsigned int flags;	/* RAMTRAIL_EF_* other than the context */
};

extern __thread struct ramtrail_user_env ramtrail_user_env;

static __always_inline unsigned long ramtrail_env_task(void)
{
	return READ_ONCE(ramtrail_user_env.task);
}

static __always_inline unsigned int ramtrail_env_ctx(void)
{
	return READ_ONCE(ramtrail_user_env.ctx);
}

static __always_inline unsigned int ramtrail_env_flags(void)
{
	return ramtrail_env_ctx() | READ_ONCE(ramtrail_user_env.flags);
}

struct ramtrail_ev_task;
void ramtrail_env_describe(struct ramtrail_ev_task *t);

#ifdef RAMTRAIL_CLOCK_COUNTER
/* The CPU's counter, the one the module's arch header reads. */
#if defined(__x86_64__)
#include <x86intrin.h>
static __always_inline u64 ramtrail_clock(void)
{
	return __rdtsc();
}
#elif defined(__aarch64__)
static __always_inline u64 ramtrail_clock(void)
{
	u64 v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}
#else
#error "no counter known for this architecture: build without RAMTRAIL_CLOCK_COUNTER"
#endif
#else
/* The crash test supplies a clock it controls; see tools/tests/. */
u64 ramtrail_clock(void);
#endif


#endif /* _RAMTRAIL_USER_COMPAT_H */
