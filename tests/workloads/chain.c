// SPDX-License-Identifier: GPL-2.0-only
/*
 * chain [SECONDS] [EXIT_STATUS]: main -> f1 -> ... -> f8 -> leaf, repeated for
 * SECONDS (default 3), then exits with EXIT_STATUS (default 0).
 *
 * leaf does most of the work, every f<n> a little, so nearly all samples
 * stop in leaf with the whole chain under it. Built as PIE, non-PIE, static
 * and static-PIE, all without frame pointers.
 */
#include "workload.h"

NOINLINE static unsigned long leaf(unsigned long x)
{
	return mix(x, 20000);
}

/* f<n>: a little work, then the next function; the sum keeps the call a call. */
#define CHAIN_STEP(name, next)                              \
	NOINLINE static unsigned long name(unsigned long x) \
	{                                                   \
		unsigned long r;                            \
                                                            \
		x = mix(x, 16);                             \
		r = next(x);                                \
		KEEP();                                     \
		return r + x;                               \
	}

CHAIN_STEP(f8, leaf)
CHAIN_STEP(f7, f8)
CHAIN_STEP(f6, f7)
CHAIN_STEP(f5, f6)
CHAIN_STEP(f4, f5)
CHAIN_STEP(f3, f4)
CHAIN_STEP(f2, f3)
CHAIN_STEP(f1, f2)

int main(int argc, char **argv)
{
	unsigned long x = 1;

	workload_start(argc, argv, 1, 3);
	while (workload_running()) {
		x = f1(x);
		KEEP();
	}
	workload_sink = x;
	return argc > 2 ? atoi(argv[2]) : 0;
}
