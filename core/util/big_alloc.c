// SPDX-License-Identifier: GPL-2.0-only
#include "big_alloc.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* A transparent huge page: arrays of at least one get a mapping of their own. */
#define HUGE_PAGE ((size_t)2 << 20)

/* Blocks malloc() serves from its heap while it is in huge pages: glibc's largest. */
#define HEAP_BLOCK_MAX (32 << 20)
/* How much the heap grows at a time then: room for the start of a run. */
#define HEAP_PAD (64 << 20)
/* glibc's defaults for both (mallopt(3)). */
#define MALLOC_DEFAULT (128 << 10)

void *big_alloc(size_t bytes, size_t *mapped)
{
	size_t len = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uint8_t *p, *aligned;
	size_t head;

	*mapped = 0;
	if (bytes < HUGE_PAGE)
		return calloc(1, bytes ? bytes : 1);
	/*
	 * One huge page more than needed, so that the array can start at a
	 * huge page's boundary whatever address the kernel gives; what is
	 * before and after is given back.
	 */
	p = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	aligned = (uint8_t *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	head = (size_t)(aligned - p);
	if (head)
		munmap(p, head);
	munmap(aligned + len, HUGE_PAGE - head);
	madvise(aligned, len, MADV_HUGEPAGE);
	*mapped = len;
	return aligned;
}

void *big_alloc_sparse(size_t bytes, size_t *mapped)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (bytes + page - 1) & ~(page - 1);
	void *p;

	*mapped = 0;
	if (!len)
		return calloc(1, 1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	*mapped = len;
	return p;
}

void *big_trim(void *p, size_t used, size_t *mapped)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), keep;
	void *q;

	if (!*mapped) {
		q = realloc(p, used ? used : 1);
		return q ? q : p;
	}
	keep = (used + page - 1) & ~(page - 1);
	if (keep && keep < *mapped) {
		munmap((uint8_t *)p + keep, *mapped - keep);
		*mapped = keep;
	}
	return p;
}

void big_free(void *p, size_t mapped)
{
	if (p && mapped)
		munmap(p, mapped);
	else
		free(p);
}

/*
 * The heap's part below its first huge page boundary, which can only have
 * 4 KiB pages: held by a block never touched (its pages cost nothing) while
 * the heap is in huge pages, so that the blocks after come from above.
 */
static void *heap_head;

bool big_heap_begin(void)
{
	uintptr_t lo, hi, top, boundary;
	void *volatile grow; /* volatile: a malloc() and free() of nothing is not left out */

	if (!mallopt(M_MMAP_THRESHOLD, HEAP_BLOCK_MAX) || !mallopt(M_TOP_PAD, HEAP_PAD))
		return false;
	/* A block the heap has no room for makes it grow by the pad, which is then advised. */
	lo = (uintptr_t)sbrk(0);
	grow = malloc(HUGE_PAGE);
	top = (uintptr_t)grow; /* freed, it is the start of the heap's free top again */
	free(grow);
	hi = (uintptr_t)sbrk(0);
	boundary = (lo + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (hi <= boundary || madvise((void *)boundary, hi - boundary, MADV_HUGEPAGE))
		return false;
	/*
	 * The growth wrote a header past the block, in 4 KiB pages: all of it
	 * is free now, so its pages go, and the first touch of each 2 MiB
	 * brings a huge page (a range with one small page keeps small ones).
	 */
	madvise((void *)boundary, hi - boundary, MADV_DONTNEED);
	if (top && boundary - top > 4096)
		heap_head = malloc(boundary - top - 2 * sizeof(size_t));
	return true;
}

void big_heap_end(void)
{
	free(heap_head);
	heap_head = NULL;
	mallopt(M_MMAP_THRESHOLD, MALLOC_DEFAULT);
	mallopt(M_TOP_PAD, MALLOC_DEFAULT);
	malloc_trim(0);
}
