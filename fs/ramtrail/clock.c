// SPDX-License-Identifier: GPL-2.0
/*
 * Counter values to nanoseconds of CLOCK_MONOTONIC: exact 128-bit
 * arithmetic, saturated, and the step that carries the remainder from one
 * value to the next.
 */
#include "clock.h"

/*
 * @d ticks at @hz in ns, saturated. Whole seconds first: the division of the
 * rest then has a quotient below 10^9, which never overflows (a quotient
 * past 64 bits is a divide error in the kernel).
 */
static u64 ramtrail_cycles_to_ns(u64 d, u64 hz)
{
	u64 s = div64_u64(d, hz);

	if (s >= U64_MAX / 1000000000ULL)
		return U64_MAX;
	return s * 1000000000ULL +
	       ramtrail_mul_div(d - s * hz, 1000000000ULL, hz);
}

/**
 * ramtrail_ts_to_ns() - convert a record's counter value to CLOCK_MONOTONIC
 * @hdr: header of the region the record came from
 * @ts: counter value
 *
 * Return: nanoseconds (saturated at 0 and U64_MAX), or @ts itself if the
 * header names no frequency.
 */
u64 ramtrail_ts_to_ns(const struct ramtrail_region_header *hdr, u64 ts)
{
	u64 ref = le64_to_cpu(hdr->clock_ref_cycles) & RAMTRAIL_CLOCK_MASK;
	u64 ref_ns = le64_to_cpu(hdr->clock_ref_ns);
	u64 d = ts >= ref ? ts - ref : ref - ts, ns;

	if (!hdr->clock_hz)
		return ts;
	ns = ramtrail_cycles_to_ns(d, le64_to_cpu(hdr->clock_hz));
	if (ts >= ref)
		return ns > U64_MAX - ref_ns ? U64_MAX : ref_ns + ns;
	return ns > ref_ns ? 0 : ref_ns - ns;
}

/* ramtrail_ts_to_ns_step() where ramtrail_ts_step_near() cannot: exact again. */
noinline u64 ramtrail_ts_step_far(const struct ramtrail_region_header *hdr,
					 struct ramtrail_ns_step *s, u64 ts)
{
	u64 hz = le64_to_cpu(hdr->clock_hz),
	    ref = le64_to_cpu(hdr->clock_ref_cycles) & RAMTRAIL_CLOCK_MASK;
	u64 q, d, f;

	s->ts = ts;
	s->exact = false;
	if (!hz || ts < ref)
		return ramtrail_ts_to_ns(hdr, ts);
	d = ts - ref;
	q = div64_u64(d, hz);
	if (q >= U64_MAX / 1000000000ULL)
		return ramtrail_ts_to_ns(hdr, ts);
	f = ramtrail_mul_div(d - q * hz, 1000000000ULL, hz);
	s->total = q * 1000000000ULL + f;
	if (s->total > U64_MAX - le64_to_cpu(hdr->clock_ref_ns))
		return ramtrail_ts_to_ns(hdr, ts);
	/* The true remainder is below hz: wrapping arithmetic gives it. */
	s->rem = (d - q * hz) * 1000000000ULL - f * hz;
	s->inv = div64_u64(U64_MAX, hz);
	s->exact = true;
	return le64_to_cpu(hdr->clock_ref_ns) + s->total;
}

/**
 * ramtrail_ts_to_ns_step() - ramtrail_ts_to_ns() of counter values in order
 * @hdr: header of the region the records came from
 * @s: the step, zeroed before the first call
 * @ts: counter value, usually not before the last one's
 *
 * Within 2^32 ticks of the last value it divides once by the clock's
 * frequency, as a product with its inverse, instead of twice with a
 * 128-bit product: the merge's times come in order, a few ticks apart.
 * Exact: the remainder is carried.
 *
 * Return: what ramtrail_ts_to_ns() returns for @ts.
 */
u64 ramtrail_ts_to_ns_step(const struct ramtrail_region_header *hdr,
			   struct ramtrail_ns_step *s, u64 ts)
{
	u64 ns;

	if (ramtrail_ts_step_near(hdr, s, ts, &ns))
		return ns;
	return ramtrail_ts_step_far(hdr, s, ts);
}
