// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the DWARF line and inline reader: whatever the
 * bytes, opening them as an ELF file and its DWARF, then looking up
 * addresses across its code and the units' ranges, must neither crash,
 * hang, leak nor read out of bounds; every frame a lookup gives must hold
 * what dwarf_lines.h promises. Built with -Dfuzz=true under clang; replay.c
 * runs the same function over corpus-dwarf/ in every build.
 */
#include <stdint.h>
#include <string.h>

#include "core/elf/elf_file.h"
#include "core/util/log.h"
#include "core/symbols/dwarf_lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Addresses looked up per input: across .text, and a few fixed ones. */
#define NR_STEPS 512

static void check(const struct dwarf_frame *frames, size_t n, size_t max)
{
	if (n > max)
		__builtin_trap();
	for (size_t i = 0; i < n; i++) {
		/* strings, when given, must be readable to their end */
		if (frames[i].name && strlen(frames[i].name) > SIZE_MAX / 2)
			__builtin_trap();
		if (frames[i].file)
			(void)strlen(frames[i].file);
		if (frames[i].decl_file)
			(void)strlen(frames[i].decl_file);
	}
}

static void lookup(struct dwarf_lines *dl, uint64_t addr)
{
	struct dwarf_frame frames[DWARF_LINES_MAX_DEPTH];
	size_t n = dwarf_lines__lookup(dl, addr, frames, DWARF_LINES_MAX_DEPTH);

	check(frames, n, DWARF_LINES_MAX_DEPTH);
	/* a short array is filled up to its size only */
	check(frames, dwarf_lines__lookup(dl, addr, frames, 1), 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_section text = { 0 };
	struct elf_file *ef;
	struct dwarf_lines *dl;

	log_level = -1;
	ef = elf_file__open_mem(data, size, "fuzz");
	if (!ef)
		return 0;
	dl = dwarf_lines__open(ef);
	if (dl) {
		if (elf_file__section(ef, ".text", &text) == 0 && text.size) {
			uint64_t step = text.size / NR_STEPS ? text.size / NR_STEPS : 1;

			for (uint64_t a = text.addr; a - text.addr < text.size; a += step)
				lookup(dl, a);
		}
		lookup(dl, 0);
		lookup(dl, UINT64_MAX);
		dwarf_lines__units_loaded(dl);
		dwarf_lines__failures(dl);
	}
	dwarf_lines__free(dl);
	elf_file__free(ef);
	return 0;
}
