/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counter values to nanoseconds of CLOCK_MONOTONIC, by the clock a region
 * header recorded (clock_hz, one reference pair): one value, or values in
 * order with one division each (the step, inline here for the save's
 * loop). Shared by the module and tools/.
 */
#ifndef _RAMTRAIL_CLOCK_H
#define _RAMTRAIL_CLOCK_H

#include "compat.h"
#include <linux/ramtrail.h>

u64 ramtrail_ts_to_ns(const struct ramtrail_region_header *hdr, u64 ts);

/**
 * struct ramtrail_ns_step - where ramtrail_ts_to_ns_step() is
 * @ts: the counter value converted last
 * @total: its ns after the header's clock_ref_ns, when @exact
 * @rem: (ts - clock_ref_cycles) * 10^9 mod clock_hz, when @exact
 * @inv: floor((2^64 - 1) / clock_hz), when @exact: a division by the
 *	clock's frequency is a product and at most one correction
 * @exact: @total is floor((ts - clock_ref_cycles) * 10^9 / clock_hz),
 *	not saturated
 */
struct ramtrail_ns_step {
	u64 ts;
	u64 total;
	u64 rem;
	u64 inv;
	bool exact;
};

u64 ramtrail_ts_to_ns_step(const struct ramtrail_region_header *hdr,
			   struct ramtrail_ns_step *s, u64 ts);

u64 ramtrail_ts_step_far(const struct ramtrail_region_header *hdr,
			 struct ramtrail_ns_step *s, u64 ts);

/* Largest whole seconds ramtrail_cycles_to_ns() converts, in ns. */
#define RAMTRAIL_NS_LIMIT	(U64_MAX / 1000000000ULL * 1000000000ULL)

/*
 * ramtrail_ts_to_ns_step() within 2^32 ticks after an exact step: true
 * with the time in *@ns, false if the general path must convert @ts.
 */
static __always_inline bool ramtrail_ts_step_near(const struct ramtrail_region_header *hdr,
						  struct ramtrail_ns_step *s,
						  u64 ts, u64 *ns)
{
	u64 hz = le64_to_cpu(hdr->clock_hz), dt = ts - s->ts, x, q, r;

	if (!s->exact || ts < s->ts || dt >= 1ULL << 32)
		return false;
	/* rem < hz <= 10^11 and dt * 10^9 < 2^62: no overflow. */
	x = s->rem + dt * 1000000000ULL;
	/* @inv is at most 2 below 2^64 / hz: q is short by at most 1. */
	q = ramtrail_mul_hi(x, s->inv);
	r = x - q * hz;
	if (r >= hz) {
		q++;
		r -= hz;
	}
	if (r >= hz || q >= RAMTRAIL_NS_LIMIT - s->total ||
	    s->total + q > U64_MAX - le64_to_cpu(hdr->clock_ref_ns))
		return false;
	s->rem = r;
	s->total += q;
	s->ts = ts;
	*ns = le64_to_cpu(hdr->clock_ref_ns) + s->total;
	return true;
}

#endif /* _RAMTRAIL_CLOCK_H */
