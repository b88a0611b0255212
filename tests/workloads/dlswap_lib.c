// SPDX-License-Identifier: GPL-2.0-only
/*
 * libswap256.so and libswap2048.so, which the dlswap workload loads one
 * after the other at the same address: swap_entry -> swap_mid_N -> swap_leaf,
 * N (FRAME_BYTES) the bytes of swap_mid_N's frame. Both immediates take
 * four bytes, so the two libraries' code is laid out alike and the same pc
 * of swap_mid has a different rule in each: a walk that kept the first
 * library's rules for the second would compute the wrong caller there.
 */
#include "workload.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define swap_mid CAT(swap_mid_, FRAME_BYTES)

unsigned long swap_entry(unsigned long x);

NOINLINE static unsigned long swap_leaf(unsigned long x)
{
	return mix(x, 20000);
}

NOINLINE static unsigned long swap_mid(unsigned long x)
{
	volatile unsigned char frame[FRAME_BYTES];
	unsigned long r;

	frame[0] = (unsigned char)x;
	frame[FRAME_BYTES - 1] = (unsigned char)(x >> 8);
	r = swap_leaf(mix(x, 16));
	KEEP();
	return r + x + frame[0] + frame[FRAME_BYTES - 1];
}

NOINLINE unsigned long swap_entry(unsigned long x)
{
	unsigned long r = swap_mid(mix(x, 16));

	KEEP();
	return r + x;
}
