/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the test workloads: a run-time deadline taken from the
 * command line, and the attributes that keep every named function a real
 * frame on the stack.
 *
 * The workloads are built with -O2 -fomit-frame-pointer, so their stacks can
 * only be walked completely with the DWARF call-frame information. Each
 * function the tests look for is NOINLINE (no inlining, no cloning into
 * .constprop/.isra copies, no interprocedural shortcuts) and calls KEEP()
 * after each call it makes, so the call is never turned into a tail jump that
 * would drop the caller's frame.
 */
#ifndef UNWPROF_WORKLOAD_H
#define UNWPROF_WORKLOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if __has_attribute(noipa)
#define NOINLINE __attribute__((noinline, noipa))
#else
#define NOINLINE __attribute__((noinline))
#endif
#define KEEP() __asm__ volatile("" ::: "memory")

static double workload_deadline __attribute__((unused));
/* Results are stored here so that the compiler cannot drop the work. */
static volatile unsigned long workload_sink __attribute__((unused));

static inline double workload_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run time from argv[idx] in seconds (fractions allowed), default def. */
static inline void workload_start(int argc, char **argv, int idx, double def)
{
	double secs = def;
	char *end;

	if (argc > idx) {
		secs = strtod(argv[idx], &end);
		if (*end || secs < 0) {
			fprintf(stderr, "%s: bad run time '%s' (seconds)\n", argv[0], argv[idx]);
			exit(64);
		}
	}
	workload_deadline = workload_now() + secs;
}

static inline int workload_running(void)
{
	return workload_now() < workload_deadline;
}

/* A few rounds of integer mixing: the work each frame does. */
static inline __attribute__((always_inline)) unsigned long mix(unsigned long x, int rounds)
{
	for (int i = 0; i < rounds; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		x ^= x >> 29;
		KEEP();
	}
	return x;
}

#endif
