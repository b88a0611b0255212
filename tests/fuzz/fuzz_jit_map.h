/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The body of the two JIT map targets (fuzz_perfmap.c, fuzz_jitdump.c):
 * whatever the bytes, parsing them as a map of the format (a jitdump of pid
 * 4242, as the seeds are) and looking
 * addresses up must neither crash, hang, leak nor read out of bounds; an
 * address found is inside its entry, and its name is a string of at most
 * JIT_MAP_MAX_NAME bytes.
 */
#ifndef UNWPROF_FUZZ_JIT_MAP_H
#define UNWPROF_FUZZ_JIT_MAP_H

#include <stdint.h>
#include <string.h>

#include "core/symbols/jit_map.h"

static void fuzz_lookup(struct jit_map *m, uint64_t addr)
{
	const char *name;
	uint64_t off;

	if (jit_map__lookup(m, addr, &name, &off))
		return;
	if (off >= JIT_MAP_MAX_CODE || strlen(name) == 0 || strlen(name) > JIT_MAP_MAX_NAME)
		__builtin_trap();
}

/* Addresses the input is likely to name: every 8 bytes of it, read as one, and around. */
static void fuzz_jit_map(const uint8_t *data, size_t size, enum jit_map_format format)
{
	/* a jitdump's header must name the seeds' pid, as a file's must its name's */
	struct jit_map *m =
		jit_map__new("fuzz-input", format, &(struct jit_map_opts){ .pid = 4242 });
	size_t total = 0;

	if (!m)
		return;
	jit_map__parse(m, data, size);
	for (size_t i = 0; i + 8 <= size && i < 4096; i += 8) {
		uint64_t v;

		memcpy(&v, data + i, 8);
		fuzz_lookup(m, v);
		fuzz_lookup(m, v + 1);
		fuzz_lookup(m, v - 1);
	}
	for (int r = 0; r < JIT_MAP_NR_REASONS; r++)
		total += jit_map__stats(m)->refused[r];
	if (jit_map__stats(m)->entries > size || total > size + 1)
		__builtin_trap(); /* no more entries than the input has bytes */
	jit_map__free(m);
}

#endif
