// SPDX-License-Identifier: GPL-2.0-only
/*
 * qsort [SECONDS]: main -> sort_round -> qsort (libc) -> ... -> compare ->
 * weigh, repeated for SECONDS (default 3).
 *
 * The comparator is where the time goes, so nearly every sample has libc's
 * sorting frames between two frames of this program: the unwinder has to
 * cross libc (its own CFI) and come back into the executable.
 */
#include "workload.h"

#define NR_ITEMS 512

/* The heavy part of a comparison: a key derived from the element. */
NOINLINE static unsigned long weigh(unsigned long x)
{
	return mix(x, 400);
}

NOINLINE static int compare(const void *a, const void *b)
{
	unsigned long ka = weigh(*(const unsigned long *)a);
	unsigned long kb;

	KEEP();
	kb = weigh(*(const unsigned long *)b);
	KEEP();
	return (ka > kb) - (ka < kb);
}

NOINLINE static unsigned long sort_round(unsigned long *items, unsigned long seed)
{
	for (int i = 0; i < NR_ITEMS; i++)
		items[i] = mix(seed + i, 1);
	qsort(items, NR_ITEMS, sizeof(*items), compare);
	KEEP();
	return items[0] ^ items[NR_ITEMS - 1];
}

int main(int argc, char **argv)
{
	static unsigned long items[NR_ITEMS];
	unsigned long x = 1;

	workload_start(argc, argv, 1, 3);
	while (workload_running()) {
		x += sort_round(items, x);
		KEEP();
	}
	workload_sink = x;
	return 0;
}
