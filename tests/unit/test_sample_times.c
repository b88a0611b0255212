// SPDX-License-Identifier: GPL-2.0-only
/*
 * The histogram of sample times: the bucket BPF counts a time in
 * (bpf/sample_time_hist.h, compiled here as plain C) against the bounds user
 * space reads, and the median and p99 user space computes from buckets of
 * known distributions (core/session/sample_times.c).
 */
#include <stdint.h>

#include "bpf/sample_time_hist.h"
#include "core/session/sample_times.h"
#include "test.h"

#define LAST (UNW_HIST_BUCKETS - 1)

/* |got - want| <= tol * want */
static int near(double got, double want, double tol)
{
	double d = got > want ? got - want : want - got;

	return d <= tol * want;
}

/* Each bucket begins where the one before ends, and is at most 1/8 of its start wide. */
static void test_bounds(void)
{
	CHECK_EQ_INT(unw_hist__lo(0), 64);
	CHECK_EQ_INT(unw_hist__lo(1), 72);
	CHECK_EQ_INT(unw_hist__lo(UNW_HIST_SUB), 128);
	CHECK_EQ_INT(unw_hist__lo(UNW_HIST_BUCKETS), 1ULL << 30);
	for (uint32_t b = 0; b < UNW_HIST_BUCKETS; b++) {
		uint64_t lo = unw_hist__lo(b), hi = unw_hist__lo(b + 1);

		CHECK(hi > lo);
		CHECK((hi - lo) * UNW_HIST_SUB <= lo);
	}
}

/* A time at a bucket's start is in it, one ns less in the bucket before. */
static void test_bucket_of_bounds(void)
{
	int bad = 0;

	for (uint32_t b = 0; b < UNW_HIST_BUCKETS; b++) {
		uint64_t lo = unw_hist__lo(b), hi = unw_hist__lo(b + 1);

		bad += unw_hist__bucket(lo) != b;
		bad += unw_hist__bucket(hi - 1) != b;
		bad += unw_hist__bucket(lo + (hi - lo) / 2) != b;
	}
	CHECK_EQ_INT(bad, 0);
}

/* Times below the first bucket count in it, times past the last in the last. */
static void test_bucket_clamps(void)
{
	CHECK_EQ_INT(unw_hist__bucket(0), 0);
	CHECK_EQ_INT(unw_hist__bucket(1), 0);
	CHECK_EQ_INT(unw_hist__bucket(63), 0);
	CHECK_EQ_INT(unw_hist__bucket(64), 0);
	CHECK_EQ_INT(unw_hist__bucket((1ULL << 30) - 1), LAST);
	CHECK_EQ_INT(unw_hist__bucket(1ULL << 30), LAST);
	CHECK_EQ_INT(unw_hist__bucket(1ULL << 40), LAST);
	CHECK_EQ_INT(unw_hist__bucket(UINT64_MAX), LAST);
	/* a time that wrapped (an end before its start) is a huge one */
	CHECK_EQ_INT(unw_hist__bucket((uint64_t)-5), LAST);
}

static void test_empty(void)
{
	uint64_t h[UNW_HIST_BUCKETS] = {};
	struct sample_times t;

	sample_times__of(h, &t);
	CHECK_EQ_INT(t.count, 0);
	CHECK(t.p50 < 0);
	CHECK(t.p99 < 0);
}

/* One sample: both percentiles inside its bucket, interpolated in it. */
static void test_one_sample(void)
{
	uint64_t h[UNW_HIST_BUCKETS] = {};
	uint32_t b = unw_hist__bucket(1000);
	double lo = unw_hist__lo(b), hi = unw_hist__lo(b + 1);
	struct sample_times t;

	h[b] = 1;
	sample_times__of(h, &t);
	CHECK_EQ_INT(t.count, 1);
	CHECK(t.p50 == lo + 0.5 * (hi - lo));
	CHECK(t.p99 == lo + 0.99 * (hi - lo));
	CHECK(t.p50 >= 1000 * 0.875 && t.p50 <= 1000 * 1.125);
}

/*
 * Half the samples at the start of one bucket, half at another's: the
 * median is the end of the first (every sample of it at or below), the
 * p99 most of the way into the second.
 */
static void test_exact_bounds(void)
{
	uint64_t h[UNW_HIST_BUCKETS] = {};
	struct sample_times t;
	double lo20 = unw_hist__lo(20), w20 = unw_hist__lo(21) - lo20;

	h[unw_hist__bucket(unw_hist__lo(10))] = 50;
	h[unw_hist__bucket(unw_hist__lo(20))] = 50;
	sample_times__of(h, &t);
	CHECK_EQ_INT(t.count, 100);
	CHECK(t.p50 == (double)unw_hist__lo(11));
	CHECK(t.p99 == lo20 + w20 * 49 / 50);
	/* the median of the first bucket alone is the middle of it */
	CHECK(sample_times__percentile(h, 0.25) ==
	      unw_hist__lo(10) + (unw_hist__lo(11) - unw_hist__lo(10)) / 2.0);
	/* q = 0: the start of the first sample's bucket; q = 1: the end of the last's */
	CHECK(sample_times__percentile(h, 0) == (double)unw_hist__lo(10));
	CHECK(sample_times__percentile(h, 1) == (double)unw_hist__lo(21));
}

/* Every sample past the start of the last bucket: that start, not a guess beyond it. */
static void test_all_in_last(void)
{
	uint64_t h[UNW_HIST_BUCKETS] = {};
	struct sample_times t;

	h[unw_hist__bucket(5ULL << 30)] = 7;
	sample_times__of(h, &t);
	CHECK_EQ_INT(t.count, 7);
	CHECK(t.p50 == (double)unw_hist__lo(LAST));
	CHECK(t.p99 == (double)unw_hist__lo(LAST));
}

/*
 * Times spread evenly: over whole buckets (512 ns .. 64 us), the
 * interpolation finds the percentiles; over a part of the last bucket they
 * fill (500 ns .. 50 us), within that bucket's width, 12.5%.
 */
static void test_uniform(void)
{
	uint64_t h[UNW_HIST_BUCKETS] = {}, g[UNW_HIST_BUCKETS] = {};
	struct sample_times t;

	for (uint64_t ns = 512; ns < 65536; ns++)
		h[unw_hist__bucket(ns)]++;
	sample_times__of(h, &t);
	CHECK_EQ_INT(t.count, 65536 - 512);
	CHECK(near(t.p50, 512 + 0.5 * (65536 - 512), 0.001));
	CHECK(near(t.p99, 512 + 0.99 * (65536 - 512), 0.001));
	for (uint64_t ns = 500; ns < 50500; ns++)
		g[unw_hist__bucket(ns)]++;
	sample_times__of(g, &t);
	CHECK_EQ_INT(t.count, 50000);
	CHECK(near(t.p50, 25500, 0.125));
	CHECK(near(t.p99, 50000, 0.125));
}

/* A long tail: 990 samples near 1 us, 10 near 100 us; the p99 at the edge of the tail. */
static void test_tail(void)
{
	uint64_t h[UNW_HIST_BUCKETS] = {};
	struct sample_times t;

	h[unw_hist__bucket(1000)] = 990;
	h[unw_hist__bucket(100000)] = 10;
	sample_times__of(h, &t);
	CHECK(near(t.p50, 1000, 0.125));
	CHECK(near(t.p99, 1000, 0.125));
	CHECK(near(sample_times__percentile(h, 0.995), 100000, 0.125));
}

int main(void)
{
	RUN(test_bounds);
	RUN(test_bucket_of_bounds);
	RUN(test_bucket_clamps);
	RUN(test_empty);
	RUN(test_one_sample);
	RUN(test_exact_bounds);
	RUN(test_all_in_last);
	RUN(test_uniform);
	RUN(test_tail);
	return test_summary();
}
