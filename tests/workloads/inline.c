// SPDX-License-Identifier: GPL-2.0-only
/*
 * inline [SECONDS]: code the compiler inlined, for source lines and inlined
 * frames. main -> run (a real frame) -> checksum -> mix_word -> rotate, the
 * last three inlined into run, so that a profile shows one location of run
 * holding three functions. Built with -g in the DWARF versions and
 * compressions of tests/workloads/meson.build.
 */
#include <stdint.h>

#include "workload.h"

static inline __attribute__((always_inline)) uint64_t rotate(uint64_t x, unsigned int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline __attribute__((always_inline)) uint64_t mix_word(uint64_t h, uint64_t w)
{
	h ^= w * 0x9e3779b97f4a7c15ULL;
	h = rotate(h, 29);
	return h * 0xbf58476d1ce4e5b9ULL;
}

static inline __attribute__((always_inline)) uint64_t checksum(const uint64_t *words, size_t n,
							       uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = mix_word(h, words[i]);
	return h;
}

NOINLINE static uint64_t run(const uint64_t *words, size_t n)
{
	uint64_t h = 0;

	while (workload_running()) {
		for (int i = 0; i < 1000; i++)
			h = checksum(words, n, h + (uint64_t)i);
		KEEP();
	}
	return h;
}

int main(int argc, char **argv)
{
	static uint64_t words[4096];

	workload_start(argc, argv, 1, 2.0);
	for (size_t i = 0; i < 4096; i++)
		words[i] = i * 0x2545f4914f6cdd1dULL;
	workload_sink = run(words, 4096);
	KEEP();
	return 0;
}
