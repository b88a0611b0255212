/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The time BPF took for each sample of the targets, from the histogram it
 * counts them in (bpf/abi.h, struct unw_tally): how many were timed, their
 * median and their 99th percentile. The kernel's run time of the program
 * gives only the mean, and only with kernel.bpf_stats_enabled=1.
 *
 *	sample_times__of(buckets, &t);		the buckets summed over the CPUs
 *	ns = sample_times__percentile(buckets, 0.99);
 *	name = sample_times__cost_name(UNW_COST_SWITCHED);	what a sample paid for
 */
#ifndef UNWPROF_SAMPLE_TIMES_H
#define UNWPROF_SAMPLE_TIMES_H

#include <stdint.h>

#include "bpf/abi.h"

struct sample_times {
	uint64_t count; /* samples timed */
	double p50;	/* ns; < 0 when no sample was timed */
	double p99;
};

/*
 * The time in ns below which a share q (0..1) of the samples of buckets
 * took, interpolated inside its bucket as if the times there were spread
 * evenly; in the last bucket, which holds every time past its start, that
 * start. -1 when buckets is empty.
 */
double sample_times__percentile(const uint64_t buckets[UNW_HIST_BUCKETS], double q);

/* The count, median and p99 of buckets. */
void sample_times__of(const uint64_t buckets[UNW_HIST_BUCKETS], struct sample_times *t);

/* The name of cost (enum unw_cost) in --stats-json; NULL past the last. */
const char *sample_times__cost_name(uint32_t cost);

#endif
