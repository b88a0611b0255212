/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Radix sorts of 64-bit keys, least significant byte first, the bytes all
 * keys share (the high ones of addresses) passed over: a few passes over
 * the data where qsort() calls a comparison n log n times, and glibc's
 * moves elements of other sizes than a word with memcpy(). Stable.
 */
#ifndef UNWPROF_RADIX_H
#define UNWPROF_RADIX_H

#include <stddef.h>
#include <stdint.h>

/* A key and what goes with it (an index, say). */
struct radix_item {
	uint64_t key;
	uint64_t value;
};

/* Sorts v[0..n) by key, with tmp as room for n more. */
void radix_sort_items(struct radix_item *v, struct radix_item *tmp, size_t n);

/* Sorts v[0..n), with tmp as room for n more. */
void radix_sort_u64(uint64_t *v, uint64_t *tmp, size_t n);

#endif
