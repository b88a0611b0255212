// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the Go pclntab reader: whatever the bytes, opening
 * them as a table (with the header's text start and with a given one) or,
 * when they are an ELF file, finding the table in it, then listing and
 * looking up its functions, decoding their SP deltas and building unwind
 * rows from them (the input as the code where a row depends on it) must
 * neither crash, hang, leak nor read out of bounds; a table that opens must
 * give every function it counts and find each by its entry; deltas that
 * are given lie inside their function, in order, whole words, 0 at the
 * entry; and the rows come out sorted. Built with
 * -Dfuzz=true under clang; replay.c runs the same function over
 * corpus-gopclntab/ in every build.
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/elf/elf_file.h"
#include "core/elf/gopclntab.h"
#include "core/unwind/unwind_table.h"
#include "core/unwind/table_go.h"
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

/* What the deltas of one function must be: in it, in order, whole words, 0 at the entry. */
struct runs {
	struct gopclntab_func f;
	uint64_t next;
};

static int check_run(void *ctx, uint64_t lo, uint64_t hi, int64_t delta)
{
	struct runs *r = ctx;

	if (lo < r->next || hi <= lo || hi > r->f.end || delta % 4 || (lo == r->f.entry && delta))
		__builtin_trap();
	r->next = hi;
	return 0;
}

static void check_deltas(const struct gopclntab *t, size_t i)
{
	struct runs r = { .next = 0 };
	enum gopclntab_bad why;
	int err;

	gopclntab__func(t, i, &r.f);
	r.next = r.f.entry;
	err = gopclntab__sp_deltas(t, i, check_run, &r, &why);
	if (err == -EINVAL && (why == GOPCLNTAB_OK || why >= GOPCLNTAB_BAD_NR))
		__builtin_trap(); /* a refusal says why */
	if (err != -EINVAL && why != GOPCLNTAB_OK)
		__builtin_trap();
	gopclntab__bad_str(why);
}

/* The input itself as the code at the table's text start, where a function's code is read. */
struct input_code {
	const uint8_t *data;
	size_t size;
	uint64_t text;
};

static const uint8_t *input_bytes(const void *ctx, uint64_t vaddr, size_t len)
{
	const struct input_code *in = ctx;

	if (vaddr < in->text || vaddr - in->text > in->size || len > in->size - (vaddr - in->text))
		return NULL;
	return in->data + (vaddr - in->text);
}

static const uint8_t *elf_bytes(const void *ef, uint64_t vaddr, size_t len)
{
	return elf_file__vaddr_bytes(ef, vaddr, len);
}

/* The rows of the table's deltas over an empty table: sorted, each reason counted. */
static void check_rows(const struct gopclntab *t, const struct go_code *code)
{
	struct unwind_table table = { .machine = EM_X86_64 };

	if (table_go__add(&table, t, code) == 0) {
		for (size_t i = 1; i < table.nr_rows; i++)
			if (table.rows[i].pc <= table.rows[i - 1].pc)
				__builtin_trap();
		unwind_table__lookup(&table, table.base);
	}
	free(table.rows);
}

static void exercise(const struct gopclntab *t, const struct go_code *code)
{
	struct gopclntab_func f;
	size_t n = gopclntab__count(t);

	gopclntab__version(t);
	gopclntab__text_start(t);
	for (size_t i = 0; i < n && i < MAX_CHECKED; i++) {
		check_func(t, i);
		check_deltas(t, i);
	}
	if (n > MAX_CHECKED)
		check_func(t, n - 1);
	if (n <= MAX_CHECKED)
		check_rows(t, code);
	if (gopclntab__func(t, n, &f) != -ERANGE)
		__builtin_trap();
	gopclntab__lookup(t, 0, &f);
	gopclntab__lookup(t, UINT64_MAX, &f);
}

/* The table's functions, with the input as their code at its text start. */
static void exercise_raw(const struct gopclntab *t, const uint8_t *data, size_t size)
{
	struct input_code in = { data, size, gopclntab__text_start(t) };
	const struct go_code code = { .bytes = input_bytes, .ctx = &in };

	exercise(t, &code);
}

static void open_raw(const uint8_t *data, size_t size)
{
	uint64_t text_start = 0x401000;
	struct gopclntab *t;

	t = gopclntab__new(data, size, NULL, "fuzz-input");
	if (t)
		exercise_raw(t, data, size);
	gopclntab__free(t);
	t = gopclntab__new(data, size, &text_start, "fuzz-input");
	if (t)
		exercise_raw(t, data, size);
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
		exercise(t, &(const struct go_code){ .bytes = elf_bytes, .ctx = ef });
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
