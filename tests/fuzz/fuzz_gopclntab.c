// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the Go pclntab reader: whatever the bytes, opening
 * them as a table (with the header's text start and with a given one) or,
 * when they are an ELF file, finding the table in it, then listing and
 * looking up its functions must neither crash, hang, leak nor read out of
 * bounds; and a table that opens must give every function it counts and
 * find each by its entry. Built with -Dfuzz=true under clang; replay.c runs
 * the same function over corpus-gopclntab/ in every build.
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/elf/elf.h"
#include "core/elf/gopclntab.h"
#include "core/util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Functions checked one by one: enough for every seed, bounded for speed. */
#define MAX_CHECKED 4096

static void check_func(const struct gopclntab *t, size_t i)
{
	struct gopclntab_func f, g;

	if (gopclntab__func(t, i, &f))
		__builtin_trap(); /* counted, so it must be there */
	if (strlen(f.name) == 0 || f.end < f.entry)
		__builtin_trap();
	if (f.end == f.entry)
		return; /* a function of size 0 names no address */
	if (gopclntab__lookup(t, f.entry, &g) || g.entry > f.entry || f.entry >= g.end)
		__builtin_trap();
	gopclntab__lookup(t, f.end - 1, &g);
	gopclntab__lookup(t, f.end, &g);
}

static void exercise(const struct gopclntab *t)
{
	struct gopclntab_func f;
	size_t n = gopclntab__count(t);

	gopclntab__version(t);
	gopclntab__text_start(t);
	for (size_t i = 0; i < n && i < MAX_CHECKED; i++)
		check_func(t, i);
	if (n > MAX_CHECKED)
		check_func(t, n - 1);
	if (gopclntab__func(t, n, &f) != -ERANGE)
		__builtin_trap();
	gopclntab__lookup(t, 0, &f);
	gopclntab__lookup(t, UINT64_MAX, &f);
}

static void open_raw(const uint8_t *data, size_t size)
{
	uint64_t text_start = 0x401000;
	struct gopclntab *t;

	t = gopclntab__new(data, size, NULL, "fuzz-input");
	if (t)
		exercise(t);
	gopclntab__free(t);
	t = gopclntab__new(data, size, &text_start, "fuzz-input");
	if (t)
		exercise(t);
	gopclntab__free(t);
}

static void open_elf(const uint8_t *data, size_t size)
{
	struct elf_file *ef = elf_file__open_mem(data, size, "fuzz-input");
	struct gopclntab *t;

	if (!ef)
		return;
	t = gopclntab__open_elf(ef);
	if (t)
		exercise(t);
	gopclntab__free(t);
	elf_file__free(ef);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	log_level = -1;
	/* A copy of exactly size bytes: ASan then catches any read past the end. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (size >= SELFMAG && !memcmp(copy, ELFMAG, SELFMAG))
		open_elf(copy, size);
	else
		open_raw(copy, size);
	free(copy);
	return 0;
}
