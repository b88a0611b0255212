// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the in-memory ELF reader, the CFI parser and the table
 * builder: whatever the bytes, opening, building, looking up and printing
 * must neither crash, hang, leak nor read out of bounds. Built with
 * -Dfuzz=true under clang; replay.c runs the same function over the corpus in
 * every build.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/common.h"
#include "core/elf/elf_file.h"
#include "core/util/log.h"
#include "core/unwind/unwind_dump.h"
#include "core/unwind/unwind_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Rows whose text is printed: enough to reach every rule kind, bounded for speed. */
#define MAX_PRINTED_ROWS 256

static void print_row(const struct unwind_table *t, const struct table_row *r)
{
	char buf[64];

	unwind_dump__cfa_str(r, t->machine, buf, sizeof(buf));
	unwind_dump__fp_str(r, t->machine, buf, sizeof(buf));
	unwind_dump__ra_str(r, t->machine, buf, sizeof(buf));
	unwind_dump__unsupported_str((enum unw_unsupported)r->unsupported);
	/* A buffer too small for the text must truncate, not overflow. */
	unwind_dump__cfa_str(r, t->machine, buf, 4);
}

static void lookup(const struct unwind_table *t, uint64_t vaddr)
{
	const struct table_row *r = unwind_table__lookup(t, vaddr);

	if (r)
		print_row(t, r);
}

static void exercise_table(const struct unwind_table *t, const uint8_t *data, size_t size)
{
	uint64_t probe = 0;

	for (size_t i = 0; i < t->nr_rows && i < MAX_PRINTED_ROWS; i++)
		print_row(t, &t->rows[i]);
	lookup(t, 0);
	lookup(t, UINT64_MAX);
	lookup(t, t->base);
	if (t->base)
		lookup(t, t->base - 1);
	if (t->nr_rows) {
		lookup(t, unwind_table__pc(t, &t->rows[t->nr_rows / 2]));
		lookup(t, unwind_table__pc(t, &t->rows[t->nr_rows - 1]) + 1);
	}
	/* An address taken from the input, so the fuzzer can steer it. */
	memcpy(&probe, data, size < sizeof(probe) ? size : sizeof(probe));
	lookup(t, t->base + (probe & 0xffffffff));
}

static void exercise_elf(const struct elf_file *ef)
{
	struct elf_load_segment segs[16];
	struct elf_section sec;
	uint8_t id[ELF_BUILD_ID_MAX];
	uint32_t crc;

	elf_file__machine(ef);
	elf_file__type(ef);
	elf_file__build_id(ef, id);
	elf_file__debuglink(ef, &crc);
	elf_file__load_segments(ef, segs, sizeof(segs) / sizeof(segs[0]));
	elf_file__section(ef, ".eh_frame", &sec);
	elf_file__section(ef, ".debug_frame", &sec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_table *t;
	struct elf_file *ef;
	uint8_t *copy;

	log_level = -1;
	/* A copy of exactly size bytes: ASan then catches any read past the end. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	ef = elf_file__open_mem(copy, size, "fuzz-input");
	if (!ef)
		goto cleanup;
	exercise_elf(ef);
	t = unwind_table__build(ef, NULL);
	if (t) {
		exercise_table(t, data, size);
		unwind_table__free(t);
	}
	/* The file as its own separate debug file: the .debug_frame-from-a-debug-file path. */
	if (size & 1) {
		t = unwind_table__build(ef, ef);
		if (t) {
			exercise_table(t, data, size);
			unwind_table__free(t);
		}
	}
	elf_file__free(ef);
cleanup:
	free(copy);
	return 0;
}
