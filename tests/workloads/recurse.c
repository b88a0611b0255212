// SPDX-License-Identifier: GPL-2.0-only
/*
 * recurse [SECONDS] [DEPTH]: main -> descend -> descend -> ... (DEPTH times,
 * default 200) -> bottom, repeated for SECONDS (default 3).
 *
 * Deeper than the unwinder's frame limit (512), the samples must keep
 * the frames nearest the leaf and be counted as truncated.
 */
#include "workload.h"

NOINLINE static unsigned long bottom(unsigned long x)
{
	return mix(x, 200000);
}

/*
 * The work after the recursive call, and the barrier, keep it a real call:
 * neither a loop nor a tail jump.
 */
NOINLINE static unsigned long descend(unsigned long x, int depth)
{
	unsigned long r;

	if (depth <= 0)
		r = bottom(x);
	else
		r = descend(x + 1, depth - 1);
	KEEP();
	return r * 3 + x;
}

int main(int argc, char **argv)
{
	unsigned long x = 1;
	int depth = argc > 2 ? atoi(argv[2]) : 200;

	workload_start(argc, argv, 1, 3);
	while (workload_running()) {
		x = descend(x, depth);
		KEEP();
	}
	workload_sink = x;
	return 0;
}
