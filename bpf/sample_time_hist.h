/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The buckets of the histogram of sample times (bpf/abi.h), written
 * once for both sides: the BPF program counts a time in the bucket
 * unw_hist__bucket() gives, user space reads the bucket's bounds with
 * unw_hist__lo(), and the unit tests check that the two agree.
 */
#ifndef UNWPROF_SAMPLE_TIME_HIST_H
#define UNWPROF_SAMPLE_TIME_HIST_H

#include "abi.h"

#ifdef __bpf__
#define UNW_HIST_INLINE static __always_inline
#else
#define UNW_HIST_INLINE static inline
#endif

/*
 * 1 when v, below 2^(2 * half), has a bit set at half or above, else 0:
 * the carry of v's high half plus all ones in its low half. Arithmetic,
 * not a comparison, so that the program has no branch there.
 */
#define UNW_HIST_HIGH(v, half) ((((v) >> (half)) + ((1ULL << (half)) - 1)) >> (half))

/*
 * The bucket of a time of ns: its power of two, found by halving (BPF has
 * no count of leading zeros), and the UNW_HIST_SUB_BITS bits below its top
 * bit.
 */
UNW_HIST_INLINE __u32 unw_hist__bucket(__u64 ns)
{
	__u64 v, s, e;

	if (ns >> UNW_HIST_MAX_SHIFT)
		return UNW_HIST_BUCKETS - 1;
	if (ns < 1ULL << UNW_HIST_MIN_SHIFT)
		return 0;
	v = ns; /* below 2^32 */
	s = UNW_HIST_HIGH(v, 16) << 4;
	e = s;
	v >>= s;
	s = UNW_HIST_HIGH(v, 8) << 3;
	e += s;
	v >>= s;
	s = UNW_HIST_HIGH(v, 4) << 2;
	e += s;
	v >>= s;
	s = UNW_HIST_HIGH(v, 2) << 1;
	e += s;
	v >>= s;
	e += v >> 1; /* 2^e <= ns < 2^(e + 1), e >= UNW_HIST_MIN_SHIFT */
	return (e - UNW_HIST_MIN_SHIFT) * UNW_HIST_SUB +
	       ((ns >> (e - UNW_HIST_SUB_BITS)) & (UNW_HIST_SUB - 1));
}

/* The lowest time of bucket b, in ns; of b = UNW_HIST_BUCKETS, the end of the last. */
UNW_HIST_INLINE __u64 unw_hist__lo(__u32 b)
{
	__u32 shift = b / UNW_HIST_SUB + UNW_HIST_MIN_SHIFT - UNW_HIST_SUB_BITS;

	return (__u64)(UNW_HIST_SUB + b % UNW_HIST_SUB) << shift;
}

#endif /* UNWPROF_SAMPLE_TIME_HIST_H */
