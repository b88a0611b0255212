/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The compact unwind table of one ELF file: the rows the BPF unwinder walks
 * with, built from .eh_frame and .debug_frame (.eh_frame wins where both
 * describe an address) and, in a Go binary, from the SP deltas of Go's
 * pclntab (merged over them in core/unwind/table_go.h), which win over both
 * where they describe a function: Go's own traceback trusts them, and the
 * .debug_frame Go's linker writes is made from them anyway. Where no CFI
 * describes code, rows derived from the code itself: an aarch64 PLT or vDSO
 * (core/unwind/code_a64.h), x86-64 functions (core/unwind/code_x64.h). Sorted by pc,
 * redundant rows removed, an END row wherever a gap follows a function,
 * unsupported rules kept with a reason.
 *
 * The rows are the builder's own: how they are laid out in the BPF maps,
 * and how many bytes that takes, is the encoder's (core/unwind/encoder.h).
 */
#ifndef UNWPROF_UNWIND_TABLE_H
#define UNWPROF_UNWIND_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/common.h"
#include "../elf/gopclntab.h"

struct elf_file;

/*
 * One row: the rule that governs every pc from pc up to the next row's pc.
 * pc is an offset from the table's base ELF virtual address, so a table may
 * span at most 4 GiB. The rules and their offsets are those the BPF unwinder
 * follows (enum unw_cfa_rule, unw_fp_rule, unw_ra_rule of bpf/abi.h):
 * aux_off is, on x86_64, M in *(REG+N)+M, the PLT threshold, or where a
 * signal frame saved the pc (sp+aux_off); on aarch64 the LR save offset
 * (CFA+aux_off). An unsupported rule keeps why in an offset it does not
 * use (core/unwind/unwind_table.c says which); unsupported is the first one.
 */
struct table_row {
	uint32_t pc;
	int32_t cfa_off;
	int32_t fp_off;
	int32_t aux_off;
	uint8_t cfa;	     /* enum unw_cfa_rule */
	uint8_t fp;	     /* enum unw_fp_rule */
	uint8_t ra;	     /* enum unw_ra_rule */
	uint8_t unsupported; /* enum unw_unsupported, set when any rule is unsupported */
};

enum {
	TABLE_SRC_EH_FRAME = 1 << 0,
	TABLE_SRC_DEBUG_FRAME = 1 << 1, /* in the file itself */
	TABLE_SRC_DEBUG_FILE = 1 << 2,	/* .debug_frame of the separate debug file */
	TABLE_SRC_GOPCLNTAB = 1 << 3,	/* the SP deltas of Go's pclntab */
	TABLE_SRC_VDSO_CODE = 1 << 4,	/* an aarch64 vDSO's code, which has no CFI */
	TABLE_SRC_PLT_CODE = 1 << 5,	/* an aarch64 PLT's code, which has no CFI */
	TABLE_SRC_X64_CODE = 1 << 6,	/* x86-64 functions' code where no CFI describes it */
};

/* Addresses [lo, hi) whose rows come from code (core/unwind/code_x64.h). */
struct table_range {
	uint64_t lo, hi;
};

struct unwind_table {
	int machine;		/* EM_X86_64 or EM_AARCH64 */
	uint64_t base;		/* rows[i].pc is an offset from this ELF virtual address */
	struct table_row *rows; /* NULL once released (unwind_table__release_rows()) */
	size_t nr_rows;
	size_t nr_fdes;			  /* FDEs that contributed rows */
	unsigned int sources;		  /* TABLE_SRC_* */
	size_t unsupported[UNW_UNSUP_NR]; /* rows by why they are unsupported */
	size_t rows_mapped;		  /* of rows: util/big_alloc.h */
	size_t nr_bad_fdes;		  /* malformed FDEs skipped (warned about) */
	size_t nr_overlaps;		  /* FDEs clipped or dropped: overlapping another one */
	size_t nr_go_funcs;		  /* Go functions described by their SP deltas */
	size_t nr_go_sp_write;		  /* of those, the ones that switch stacks (unsupported) */
	size_t nr_go_refused[GOPCLNTAB_BAD_NR]; /* Go functions whose deltas lie, by reason */
	size_t nr_code_funcs;			/* functions with rows from their x86-64 code */
	size_t nr_code_refused;			/* functions whose code is not understood */
	size_t nr_code_rows;			/* the rows from code added */
	struct table_range *code_ranges;	/* where they are, sorted */
	size_t nr_code_ranges;
};

/*
 * Builds the table of elf, adding the .debug_frame of debug (may be NULL).
 * Returns NULL and sets errno on failure, after a message naming the file
 * and what is wrong. A file without any CFI gives an empty table, not an error.
 */
struct unwind_table *unwind_table__build(const struct elf_file *elf, const struct elf_file *debug);
void unwind_table__free(struct unwind_table *t);

/*
 * Adds rows[0, n) (pcs from lo) over [lo, hi), ELF addresses, and an END
 * row at hi, where no row of t governs: in a gap between functions, before
 * the first or after the last. 0, -EEXIST when a row governs part of the
 * range (nothing is added), -ERANGE when the table would span 4 GiB or more,
 * -ENOMEM.
 */
int unwind_table__add_rows(struct unwind_table *t, const struct table_row *rows, size_t n,
			   uint64_t lo, uint64_t hi);

/* Notes that the rows of [lo, hi) come from code. 0 or -ENOMEM. */
int unwind_table__add_code_range(struct unwind_table *t, uint64_t lo, uint64_t hi);

/*
 * Calls fn with the range [lo, hi) of each FDE of elf's .eh_frame, in
 * section order, until it returns nonzero (which is returned). 0 when
 * there is no .eh_frame, -errno when it cannot be read.
 */
typedef int (*unwind_fde_fn)(void *ctx, uint64_t lo, uint64_t hi);
int unwind_table__each_fde(const struct elf_file *elf, unwind_fde_fn fn, void *ctx);

/*
 * The widest range [lo, hi) of pcs over which one set of rules holds in the
 * .eh_frame FDE of elf that covers pc: a function's body, past its
 * prologue, where its frame is whole. 0, -ENOENT when no FDE covers pc,
 * or -errno when the section cannot be read.
 */
int unwind_table__widest_rows(const struct elf_file *elf, uint64_t pc, uint64_t *lo, uint64_t *hi);

/*
 * Frees the rows of t once they are encoded where they are used (the BPF
 * maps); what describes them (nr_rows, the counts by reason) stays.
 */
void unwind_table__release_rows(struct unwind_table *t);

struct cfi_section;
struct elf_load_segment;

/* At most .eh_frame, .debug_frame, and the debug file's .debug_frame. */
#define TABLE_MAX_SECTIONS 3

/*
 * The same from CFI sections already located (tests, fuzzing), in order of
 * precedence. When segs is not NULL, FDEs outside its executable segments
 * (discarded code in .debug_frame) are ignored.
 */
struct unwind_table *unwind_table__build_sections(int machine, const struct cfi_section *secs,
						  size_t nr, const struct elf_load_segment *segs,
						  size_t nr_segs);

/*
 * Puts rows[0, nr) (big_alloc'ed, mapped bytes; pcs from base, sorted, no
 * two in a row with the same rules) in place of t's, which it takes, and
 * counts them by reason: the rows of another source merged with t's
 * (Go's: core/unwind/table_go.h).
 */
void unwind_table__replace_rows(struct unwind_table *t, struct table_row *rows, size_t nr,
				size_t mapped, uint64_t base);

/* The row governing vaddr (an END row in a gap), or NULL when before the first row. */
const struct table_row *unwind_table__lookup(const struct unwind_table *t, uint64_t vaddr);

static inline uint64_t unwind_table__pc(const struct unwind_table *t, const struct table_row *r)
{
	return t->base + r->pc;
}

/*
 * Whether a and b have the same rules. Field by field: a row just made
 * stays in registers, where a compare of its bytes would store it, and wait
 * for the narrow stores to reach memory before reading them back as words.
 */
static inline bool unwind_table__same_rules(const struct table_row *a, const struct table_row *b)
{
	return a->cfa_off == b->cfa_off && a->fp_off == b->fp_off && a->aux_off == b->aux_off &&
	       a->cfa == b->cfa && a->fp == b->fp && a->ra == b->ra &&
	       a->unsupported == b->unsupported;
}

/* Whether the CFA rule of r takes aux_off, where an unsupported RA rule keeps its reason else. */
static inline bool unwind_table__cfa_uses_aux(const struct table_row *r)
{
	return r->cfa == UNW_CFA_PLT || r->cfa == UNW_CFA_DEREF_SP || r->cfa == UNW_CFA_DEREF_FP;
}

#endif
