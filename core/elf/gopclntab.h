/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The function table of Go's pclntab, which every Go binary keeps (the
 * runtime walks it for tracebacks and the garbage collector) even when it is
 * built with -ldflags='-s -w' and has no ELF symbols: each function's entry
 * pc and name. Line tables are not read.
 *
 * Formats by their magic: Go 1.2 to 1.15 (0xfffffffb), 1.16 and 1.17
 * (0xfffffffa), 1.18 and 1.19 (0xfffffff0), 1.20 and later (0xfffffff1),
 * either byte order, 4- or 8-byte pointers. The table comes from an
 * untrusted file: every offset and count is checked against its size when it
 * is opened, so a table that opens reads in bounds, and nothing is allocated
 * in proportion to what it claims.
 */
#ifndef UNWPROF_GOPCLNTAB_H
#define UNWPROF_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

struct elf_file;

enum gopclntab_version {
	GOPCLNTAB_12,  /* Go 1.2 to 1.15 */
	GOPCLNTAB_116, /* Go 1.16, 1.17 */
	GOPCLNTAB_118, /* Go 1.18, 1.19: entries are offsets from the start of the text */
	GOPCLNTAB_120, /* Go 1.20 and later: laid out as 1.18 */
};

struct gopclntab_func {
	uint64_t entry;	  /* its first pc */
	uint64_t end;	  /* the next function's entry, or the end of the table's text */
	const char *name; /* inside the table's data */
};

struct gopclntab;

/*
 * Opens the table in data (size bytes, which must outlive it, as must the
 * names it gives). From Go 1.18 on, entries are offsets from the start of the
 * text: *text_start when text_start is not NULL, else the header's field.
 * name is for messages. Returns NULL and sets errno: EINVAL when the table is
 * malformed (the reason at debug level), ENOTSUP for an unknown magic, ENOMEM.
 */
struct gopclntab *gopclntab__new(const void *data, size_t size, const uint64_t *text_start,
				 const char *name);

/*
 * The table of a Go ELF file: its .gopclntab section (.data.rel.ro.gopclntab
 * in a PIE), else one found inside .data.rel.ro, where an external linker
 * puts it. Functions must lie inside .text. NULL and errno ENOENT when the
 * file has no usable table (a file that is not Go's, a malformed table).
 */
struct gopclntab *gopclntab__open_elf(const struct elf_file *ef);

void gopclntab__free(struct gopclntab *t);

enum gopclntab_version gopclntab__version(const struct gopclntab *t);
/* What 1.18+ entries are relative to; 0 before 1.18. */
uint64_t gopclntab__text_start(const struct gopclntab *t);
size_t gopclntab__count(const struct gopclntab *t);
/* Function i, in order of entry. 0, or -ERANGE when i is not below the count. */
int gopclntab__func(const struct gopclntab *t, size_t i, struct gopclntab_func *f);
/* The function whose [entry, end) holds pc: 0, or -ENOENT when none does. */
int gopclntab__lookup(const struct gopclntab *t, uint64_t pc, struct gopclntab_func *f);

#endif
