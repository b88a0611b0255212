// SPDX-License-Identifier: GPL-2.0-only
/*
 * burn [MILLISECONDS]: main -> burn_outer -> burn_inner -> burn_leaf until
 * the process has used MILLISECONDS of CPU time (default 20), then exits. The
 * short-lived child of the forker workload. CPU time rather than wall time,
 * so a busy machine does not shrink the work against the start-up.
 */
#include "workload.h"

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE static unsigned long burn_leaf(unsigned long x)
{
	return mix(x, 20000);
}

NOINLINE static unsigned long burn_inner(unsigned long x)
{
	unsigned long r = burn_leaf(mix(x, 16));

	KEEP();
	return r + x;
}

NOINLINE static unsigned long burn_outer(unsigned long x)
{
	unsigned long r = burn_inner(mix(x, 16));

	KEEP();
	return r + x;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 20;
	unsigned long x = 1;

	while (cpu_seconds() < ms / 1000) {
		x = burn_outer(x);
		KEEP();
	}
	workload_sink = x;
	return 0;
}
