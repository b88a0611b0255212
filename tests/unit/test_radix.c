// SPDX-License-Identifier: GPL-2.0-only
/*
 * The radix sorts (core/util/radix.c) against qsort() on the same data:
 * sizes on both sides of the insertion sort's limit, keys that share their
 * high bytes (addresses) or differ only there, duplicates, which keep
 * their order, and keys already sorted or reversed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/radix.h"
#include "test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* By key, then by value: the order a stable sort of values 0, 1, 2... gives. */
static int item_cmp(const void *pa, const void *pb)
{
	const struct radix_item *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->value < b->value ? -1 : a->value > b->value;
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

enum keys { RANDOM, ADDRESSES, HIGH_BYTE, FEW, SORTED, REVERSED };

static uint64_t key_of(enum keys kind, size_t i, size_t n)
{
	switch (kind) {
	case RANDOM:
		return next_random();
	case ADDRESSES: /* a library's code: 0x7f.. and 24 bits that differ */
		return 0x7f1234000000ULL + (next_random() & 0xffffff);
	case HIGH_BYTE: /* only the top byte differs */
		return (next_random() & 0xff00000000000000ULL) | 0x1234;
	case FEW: /* many duplicates */
		return next_random() % 7;
	case SORTED:
		return 0x400000 + i * 3;
	case REVERSED:
		return 0x400000 + (n - i) * 3;
	}
	return 0;
}

static void check_items(enum keys kind, size_t n)
{
	struct radix_item *v = calloc(n + 1, sizeof(*v)), *tmp = calloc(n + 1, sizeof(*tmp));
	struct radix_item *want = calloc(n + 1, sizeof(*want));

	CHECK(v && tmp && want);
	if (!v || !tmp || !want)
		goto out;
	for (size_t i = 0; i < n; i++)
		v[i] = (struct radix_item){ key_of(kind, i, n), i };
	memcpy(want, v, n * sizeof(*v));
	qsort(want, n, sizeof(*want), item_cmp);
	radix_sort_items(v, tmp, n);
	CHECK(memcmp(v, want, n * sizeof(*v)) == 0);
out:
	free(v);
	free(tmp);
	free(want);
}

static void check_u64(enum keys kind, size_t n)
{
	uint64_t *v = calloc(n + 1, sizeof(*v)), *tmp = calloc(n + 1, sizeof(*tmp));
	uint64_t *want = calloc(n + 1, sizeof(*want));

	CHECK(v && tmp && want);
	if (!v || !tmp || !want)
		goto out;
	for (size_t i = 0; i < n; i++)
		v[i] = key_of(kind, i, n);
	memcpy(want, v, n * sizeof(*v));
	qsort(want, n, sizeof(*want), u64_cmp);
	radix_sort_u64(v, tmp, n);
	CHECK(memcmp(v, want, n * sizeof(*v)) == 0);
out:
	free(v);
	free(tmp);
	free(want);
}

static const size_t sizes[] = { 0, 1, 2, 31, 32, 33, 100, 4096, 50000 };

static void test_items(void)
{
	for (enum keys k = RANDOM; k <= REVERSED; k++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			check_items(k, sizes[i]);
}

static void test_u64(void)
{
	for (enum keys k = RANDOM; k <= REVERSED; k++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			check_u64(k, sizes[i]);
}

/* Keys that are all equal: nothing moves, as no byte differs. */
static void test_all_equal(void)
{
	struct radix_item v[100], tmp[100];

	for (size_t i = 0; i < 100; i++)
		v[i] = (struct radix_item){ 42, 99 - i };
	radix_sort_items(v, tmp, 100);
	for (size_t i = 0; i < 100; i++)
		CHECK_EQ_INT(v[i].value, 99 - i);
}

int main(void)
{
	RUN(test_items);
	RUN(test_u64);
	RUN(test_all_equal);
	return test_summary();
}
