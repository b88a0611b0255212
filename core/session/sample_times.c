// SPDX-License-Identifier: GPL-2.0-only
/* The count and percentiles of the sample times BPF counted. See sample_times.h. */
#include <stddef.h>

#include "sample_times.h"
#include "bpf/sample_time_hist.h"

static uint64_t total_of(const uint64_t buckets[UNW_HIST_BUCKETS])
{
	uint64_t n = 0;

	for (uint32_t b = 0; b < UNW_HIST_BUCKETS; b++)
		n += buckets[b];
	return n;
}

double sample_times__percentile(const uint64_t buckets[UNW_HIST_BUCKETS], double q)
{
	uint64_t total = total_of(buckets), below = 0;
	double rank = q * (double)total, lo, hi;
	uint32_t b;

	if (!total)
		return -1;
	/* The bucket where the rank falls: the first whose samples and those below reach it. */
	for (b = 0; b < UNW_HIST_BUCKETS - 1; b++) {
		if (buckets[b] && (double)(below + buckets[b]) >= rank)
			break;
		below += buckets[b];
	}
	lo = (double)unw_hist__lo(b);
	if (b == UNW_HIST_BUCKETS - 1)
		return lo;
	hi = (double)unw_hist__lo(b + 1);
	return lo + (hi - lo) * (rank - (double)below) / (double)buckets[b];
}

void sample_times__of(const uint64_t buckets[UNW_HIST_BUCKETS], struct sample_times *t)
{
	t->count = total_of(buckets);
	t->p50 = sample_times__percentile(buckets, 0.5);
	t->p99 = sample_times__percentile(buckets, 0.99);
}

/* By enum unw_cost, in its order. */
static const char *const cost_names[] = {
	"switched",  "process_lookup", "table_lookup", "stack_grown", "kernel_stack",
	"new_count", "new_stack",      "event",	       "none",	      "any",
};

_Static_assert(sizeof(cost_names) / sizeof(cost_names[0]) == UNW_COST_NR, "a name per cost");

const char *sample_times__cost_name(uint32_t cost)
{
	return cost < UNW_COST_NR ? cost_names[cost] : NULL;
}
