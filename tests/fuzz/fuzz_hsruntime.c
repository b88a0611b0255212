// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the reader of a JVM's own tables
 * (core/runtimes/hotspot/hsruntime.c: gHotSpotVMStructs and the others,
 * then the code cache they lead to): whatever the JVM's memory holds,
 * reading must neither crash, hang, leak nor read out of bounds; a layout
 * it accepts has every offset within the bounds it promises, and a code
 * cache it accepts has its heaps inside its bounds. Built with -Dfuzz=true
 * under clang; replay.c runs the same function over corpus-hsruntime/ in
 * every build.
 *
 * An input: the process's memory from MEM_BASE on, whose first 192 bytes
 * are the 24 symbols' values, in the order of enum hs_symbol (the seeds:
 * test_hsruntime --seeds).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/log.h"
#include "core/runtimes/hotspot/hsruntime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MEM_BASE 0x10000

struct fake_mem {
	const uint8_t *bytes;
	size_t len;
};

/* All or nothing, as /proc/PID/mem reads. */
static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct fake_mem *m = ctx;

	if (addr < MEM_BASE || addr - MEM_BASE > m->len || len > m->len - (addr - MEM_BASE))
		return -EFAULT;
	memcpy(buf, m->bytes + (addr - MEM_BASE), len);
	return 0;
}

/* What an accepted layout promises: fields, sizes and frame words within their bounds. */
static void check_layout(const struct hs_layout *l)
{
	const int64_t fields[] = { l->array_len,       l->array_data,	  l->codeheap_memory,
				   l->codeheap_segmap, l->vs_high,	  l->blob_frame_size,
				   l->blob_code_begin, l->nmethod_method, l->method_const_method,
				   l->pool_holder,     l->klass_name,	  l->symbol_body };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i] < 0 || fields[i] >= 4096)
			__builtin_trap();
	if (l->heapblock_size <= 0 || l->const_method_size <= 0 || l->pool_size <= 0)
		__builtin_trap();
	if (l->frame_method < -40 || l->frame_method > 32 || l->frame_bcp < -40 ||
	    l->frame_bcp > 32)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hsruntime hr;
	struct hs_layout l;
	struct hs_code_cache c;
	struct fake_mem fm;
	const char *missing;
	uint8_t *copy;

	log_level = -1;
	for (unsigned int s = 0; s < HS_SYMBOL_NR; s++)
		hr.sym[s] = MEM_BASE + 8 * s;
	/* A copy of exactly the memory's bytes: ASan then catches any read past the end. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fm = (struct fake_mem){ copy, size };
	if (hsruntime__read_layout(&hr, 0, fake_read, &fm, &l, &missing) == 0) {
		check_layout(&l);
		if (hsruntime__read_heaps(&l, fake_read, &fm, &c, &missing) == 0) {
			if (!c.nr_heaps || c.nr_heaps > HS_HEAPS_MAX)
				__builtin_trap();
			for (unsigned int i = 0; i < c.nr_heaps; i++)
				if (c.heaps[i].low < c.low || c.heaps[i].high > c.high)
					__builtin_trap();
		}
	} else if (missing && !*missing) {
		__builtin_trap();
	}
	free(copy);
	return 0;
}
