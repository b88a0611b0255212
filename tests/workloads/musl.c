// SPDX-License-Identifier: GPL-2.0-only
/*
 * musl [SECONDS]: built with musl-gcc, whose libc has no CFI (Debian's
 * libc.so of musl has FDEs for 4 functions), so every stack crosses code
 * whose rows unwprof derives from the code itself. For SECONDS (default 3):
 *
 *   main -> work_round -> copy_phase -> memcpy (musl)
 *                      -> sort_phase -> qsort (musl) -> ... -> compare -> weigh
 *                      -> alloc_phase -> malloc, free (musl)
 *
 * The time goes to musl's memcpy, to a comparator below musl's sorting
 * frames, and to musl's allocator, each below a chain of this program.
 */
#include <string.h>

#include "workload.h"

#define COPY_BYTES (256 * 1024)
#define NR_ITEMS 256
#define NR_BLOCKS 64

static unsigned char copy_src[COPY_BYTES], copy_dst[COPY_BYTES];

NOINLINE static unsigned long copy_phase(unsigned long seed)
{
	for (int i = 0; i < 64; i++) {
		copy_src[(seed + i) % COPY_BYTES] = (unsigned char)seed;
		memcpy(copy_dst, copy_src, COPY_BYTES);
		KEEP();
	}
	return copy_dst[seed % COPY_BYTES];
}

NOINLINE static unsigned long weigh(unsigned long x)
{
	return mix(x, 100);
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

NOINLINE static unsigned long sort_phase(unsigned long seed)
{
	static unsigned long items[NR_ITEMS];

	for (int i = 0; i < NR_ITEMS; i++)
		items[i] = mix(seed + i, 1);
	qsort(items, NR_ITEMS, sizeof(*items), compare);
	KEEP();
	return items[0] ^ items[NR_ITEMS - 1];
}

NOINLINE static unsigned long alloc_phase(unsigned long seed)
{
	static void *blocks[NR_BLOCKS];
	unsigned long x = seed;

	for (int round = 0; round < 64; round++) {
		for (int i = 0; i < NR_BLOCKS; i++) {
			x = mix(x, 1);
			blocks[i] = malloc(16 + x % 4000);
			KEEP();
		}
		for (int i = 0; i < NR_BLOCKS; i++) {
			free(blocks[i]);
			KEEP();
		}
	}
	return x;
}

NOINLINE static unsigned long work_round(unsigned long seed)
{
	unsigned long x = copy_phase(seed);

	KEEP();
	x += sort_phase(seed + x);
	KEEP();
	x += alloc_phase(seed ^ x);
	KEEP();
	return x;
}

int main(int argc, char **argv)
{
	unsigned long x = 1;

	workload_start(argc, argv, 1, 3);
	while (workload_running()) {
		x += work_round(x);
		KEEP();
	}
	workload_sink = x;
	return 0;
}
