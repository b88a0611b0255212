// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the rows of x86-64 code without CFI
 * (core/unwind/code_x64.c): whatever the bytes, decoding them instruction
 * by instruction, deriving the rows of a function from them and, when they
 * are an ELF file, building its table from its functions' code alone and
 * with its CFI must neither crash, hang, leak nor read out of bounds (the
 * input is copied to a buffer of its exact size, so ASan sees a read past
 * it); an instruction is 1 to 15 bytes and never longer than what is left;
 * a function's rows start at its entry, are sorted, lie inside it and end
 * with an END row; a table's rows are sorted. Built with -Dfuzz=true under
 * clang; replay.c runs the same function over corpus-code-x64/ in every
 * build.
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/elf/elf_file.h"
#include "core/unwind/code_x64.h"
#include "core/unwind/unwind_table.h"
#include "core/util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ROWS 4096

static void check_decode(const uint8_t *p, size_t size)
{
	struct x64_insn in;

	for (size_t off = 0; off < size;) {
		size_t len = code_x64__decode(p + off, size - off, 0x1000 + off, &in);

		if (len > X64_INSN_MAX || len > size - off)
			__builtin_trap();
		off += len ? len : 1;
	}
}

static void check_function(const uint8_t *p, size_t size)
{
	struct table_row *rows = calloc(MAX_ROWS, sizeof(*rows));
	long n;

	if (!rows)
		return;
	n = code_x64__function_rows(p, size, 0x400000, rows, MAX_ROWS);
	if (n > 0) {
		if (rows[0].pc != 0 || rows[n - 1].cfa != UNW_CFA_END || rows[n - 1].pc > size)
			__builtin_trap();
		for (long i = 1; i < n; i++)
			if (rows[i].pc <= rows[i - 1].pc)
				__builtin_trap();
	} else if (n != -ENOEXEC && n != -E2BIG && n != -ENOMEM) {
		__builtin_trap();
	}
	free(rows);
}

static void check_table(const struct unwind_table *t)
{
	for (size_t i = 1; t && i < t->nr_rows; i++)
		if (t->rows[i].pc <= t->rows[i - 1].pc)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct elf_file *ef;
	struct unwind_table *t;

	log_level = -1;
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	check_decode(copy, size);
	check_function(copy, size);
	ef = elf_file__open_mem(copy, size, "fuzz");
	if (ef) {
		t = code_x64__table(ef, NULL);
		check_table(t);
		unwind_table__free(t);
		t = unwind_table__build(ef, NULL);
		check_table(t);
		unwind_table__free(t);
		elf_file__free(ef);
	}
	free(copy);
	return 0;
}
