// SPDX-License-Identifier: GPL-2.0-only
/*
 * Large arrays (core/util/big_alloc.c): zeroed, in a mapping of their own
 * that starts at a huge page's boundary from 2 MiB on and from malloc()
 * below, sparse ones in a mapping of their own; every byte writable; a trim
 * keeps the contents it keeps and gives back the pages past them (msync()
 * finds nothing mapped there); and malloc()'s large blocks in its heap,
 * advised for huge pages, only while a command starts.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/util/big_alloc.h"
#include "test.h"

#define MIB ((size_t)1 << 20)

/* Whether malloc() is ASan's, not glibc's: then big_heap_begin() has none to tune. */
#if defined(__SANITIZE_ADDRESS__)
#define MALLOC_REPLACED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MALLOC_REPLACED 1
#endif
#endif
#ifndef MALLOC_REPLACED
#define MALLOC_REPLACED 0
#endif

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Whether the page at p is mapped: msync() fails with ENOMEM where nothing is. */
static bool page_mapped(const void *p)
{
	return msync((void *)((uintptr_t)p & ~(uintptr_t)4095), 4096, MS_ASYNC) == 0 ||
	       errno != ENOMEM;
}

static void check_small(void)
{
	size_t mapped = 1;
	uint8_t *p = big_alloc(1000, &mapped);

	CHECK(p && mapped == 0);
	if (!p)
		return;
	CHECK(all_zero(p, 1000));
	memset(p, 0xab, 1000);
	p = big_trim(p, 10, &mapped);
	CHECK(p && mapped == 0 && p[9] == 0xab);
	big_free(p, mapped);
	big_free(big_alloc(0, &mapped), mapped);
}

/* A sparse array: a mapping of its own, whole pages. */
static void check_sparse(size_t bytes)
{
	size_t mapped = 0;
	uint8_t *p = big_alloc_sparse(bytes, &mapped);

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(mapped >= bytes && mapped % 4096 == 0 && mapped - bytes < 4096);
	CHECK(((uintptr_t)p & 4095) == 0 && page_mapped(p + mapped - 1));
	CHECK(all_zero(p, bytes));
	p[bytes - 1] = 0x33;
	big_free(p, mapped);
}

static void check_large(size_t bytes)
{
	size_t mapped = 0;
	uint8_t *p = big_alloc(bytes, &mapped);

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(((uintptr_t)p & (2 * MIB - 1)) == 0);
	CHECK(mapped >= bytes && mapped % (2 * MIB) == 0 && mapped - bytes < 2 * MIB);
	CHECK(page_mapped(p) && page_mapped(p + mapped - 1));
	CHECK(all_zero(p, bytes));
	for (size_t i = 0; i < bytes; i += 4096)
		p[i] = (uint8_t)(i >> 12);
	p[bytes - 1] = 0x5a;
	p = big_trim(p, bytes / 3, &mapped);
	CHECK(mapped >= bytes / 3 && mapped < bytes / 3 + 4096);
	CHECK(page_mapped(p + mapped - 1) && !page_mapped(p + mapped));
	for (size_t i = 0; i < bytes / 3; i += 4096)
		CHECK(p[i] == (uint8_t)(i >> 12));
	big_free(p, mapped);
}

static void test_sizes(void)
{
	check_small();
	check_sparse(1000);
	check_sparse(768 << 10);
	check_large(2 * MIB);
	check_large(5 * MIB + 123);
	check_large(17 * MIB);
}

/* Whether the mapping holding p is advised for huge pages: "hg" in its VmFlags of smaps. */
static bool advised_huge(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	unsigned long lo, hi;
	bool inside = false, hg = false;
	char line[512];

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (inside && strncmp(line, "VmFlags:", 8) == 0)
			hg = strstr(line, " hg") != NULL;
	}
	fclose(f);
	return hg;
}

/*
 * Blocks of megabytes from malloc() come from its heap, advised for huge
 * pages, between big_heap_begin() and big_heap_end(); after, from mappings
 * of their own again, as glibc's defaults have it. A malloc() that is not
 * glibc's (ASan's) is left alone, and big_heap_begin() says so.
 */
static void test_heap(void)
{
	uint8_t *during, *after;
	bool tuned = big_heap_begin();

	CHECK(tuned == !MALLOC_REPLACED);
	if (!tuned) {
		big_heap_end();
		return;
	}
	during = malloc(6 * MIB);
	CHECK(during != NULL);
	if (during) {
		memset(during, 1, 6 * MIB);
		CHECK((void *)during < sbrk(0));
		CHECK(advised_huge(during + 3 * MIB));
	}
	big_heap_end();
	after = malloc(6 * MIB);
	CHECK(after != NULL);
	if (after) {
		memset(after, 2, 6 * MIB);
		CHECK(!advised_huge(after + 3 * MIB));
		CHECK(during == NULL || during[6 * MIB - 1] == 1);
	}
	free(during);
	free(after);
}

/*
 * What a failed build's cleanup passes: an array no allocation gave (NULL,
 * mapped 0), and NULL with a size, which frees nothing whatever the size
 * covers (here everything up to a live mapping's end).
 */
static void test_free_null(void)
{
	size_t mapped = 1, live_mapped = 0;
	uint8_t *p = big_alloc((size_t)1 << 62, &mapped);
	uint8_t *live = big_alloc_sparse(4096, &live_mapped);

	CHECK(p == NULL && mapped == 0);
	big_free(p, mapped);
	mapped = 1;
	p = big_alloc_sparse((size_t)1 << 62, &mapped);
	CHECK(p == NULL && mapped == 0);
	big_free(p, mapped);

	CHECK(live != NULL && live_mapped == 4096);
	if (!live)
		return;
	big_free(NULL, (uintptr_t)live + live_mapped);
	CHECK(page_mapped(live));
	live[0] = 1;
	big_free(live, live_mapped);
	CHECK(!page_mapped(live));
}

int main(void)
{
	RUN(test_sizes);
	RUN(test_free_null);
	RUN(test_heap);
	return test_summary();
}
