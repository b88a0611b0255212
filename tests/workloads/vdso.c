// SPDX-License-Identifier: GPL-2.0-only
/*
 * vdso [SECONDS]: main -> outer -> inner -> clock_gettime (libc) -> the
 * vDSO's clock_gettime, in a loop for SECONDS (default 3).
 *
 * Nearly all the time goes to reading the clock, so most samples stop in
 * the vDSO, which is not built the way this program is: the unwinder must
 * take it from its own call-frame information (the vDSO's .eh_frame) to
 * come back through libc into this program's frames, also in the vDSO's
 * prologues and epilogues, where frame pointers say nothing.
 */
#include "workload.h"

/* Clock reads per call of outer: the deadline check in main is rare. */
#define READS_PER_ROUND 4096

NOINLINE static unsigned long inner(unsigned long x)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	KEEP();
	return x + (unsigned long)ts.tv_nsec;
}

NOINLINE static unsigned long outer(unsigned long x)
{
	for (int i = 0; i < READS_PER_ROUND; i++) {
		x = inner(x);
		KEEP();
	}
	return x;
}

int main(int argc, char **argv)
{
	unsigned long x = 1;

	workload_start(argc, argv, 1, 3);
	while (workload_running()) {
		x = outer(x);
		KEEP();
	}
	workload_sink = x;
	return 0;
}
