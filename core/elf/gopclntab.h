/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The function table of Go's pclntab, which every Go binary keeps (the
 * runtime walks it for tracebacks and the garbage collector) even when it is
 * built with -ldflags='-s -w' and has no ELF symbols: each function's entry
 * pc, name and flags, and its table of SP deltas (pcsp), which Go's own
 * traceback unwinds every function with, assembly included. Line tables are
 * not read.
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

/* Go's flags of a function (runtime/symtab.go, funcFlag), from Go 1.17 on. */
enum {
	/* The outermost frame of its stack: runtime.goexit, mstart, rt0_go. */
	GOPCLNTAB_TOPFRAME = 1 << 0,
	/* It writes SP otherwise than by its frame's own pushes and adjustments (a stack switch). */
	GOPCLNTAB_SPWRITE = 1 << 1,
	GOPCLNTAB_ASM = 1 << 2, /* written in assembly */
};

struct gopclntab_func {
	uint64_t entry;	  /* its first pc */
	uint64_t end;	  /* the next function's entry, or the end of the table's text */
	const char *name; /* inside the table's data */
	uint8_t flags;	  /* GOPCLNTAB_*; 0 before Go 1.17 */
};

/* Why the SP deltas of a function are refused: the table lies about it. */
enum gopclntab_bad {
	GOPCLNTAB_OK = 0,
	GOPCLNTAB_BAD_RECORD,	/* its record ends before the offset of its SP deltas */
	GOPCLNTAB_BAD_OFFSET,	/* its SP deltas lie outside the table */
	GOPCLNTAB_BAD_ENCODING, /* a number runs past the end or beyond 32 bits, a pc delta of 0 */
	GOPCLNTAB_BAD_PAST_END, /* they run past the function's end */
	GOPCLNTAB_BAD_DELTA,	/* a delta beyond 32 bits or not a multiple of the pointer size */
	GOPCLNTAB_BAD_ENTRY_DELTA, /* a delta other than 0 at the entry, where nothing is pushed */
	GOPCLNTAB_BAD_NR,
};

/* "record", "offset", "encoding", ...: as dump-unwind and the summary count them. */
const char *gopclntab__bad_str(enum gopclntab_bad why);

/*
 * The SP delta of a run of pcs [lo, hi) of a function: at those pcs, SP
 * is delta bytes below its value at the function's entry. On x86_64 the
 * caller's SP (the CFA) is then SP + delta + 8, the return address at
 * CFA - 8, as runtime/traceback.go computes frame.fp.
 */
typedef int (*gopclntab_sp_fn)(void *ctx, uint64_t lo, uint64_t hi, int64_t delta);

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

/*
 * The SP deltas of function i (its pcsp table, decoded as Go's pcvalue()
 * does), run by run in pc order, to fn, which may stop them by returning
 * nonzero (returned). The whole table is checked before the first run is
 * given: a table that lies gives none, and -EINVAL with the reason in *why.
 * -ENOENT when the function has no table (Go's "external function"),
 * -ERANGE when i is not below the count.
 */
int gopclntab__sp_deltas(const struct gopclntab *t, size_t i, gopclntab_sp_fn fn, void *ctx,
			 enum gopclntab_bad *why);

#endif
