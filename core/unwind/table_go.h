/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A row source of the unwind table (core/unwind/unwind_table.h): Go's pclntab,
 * whose rows are merged here over those of the CFI.
 * Every Go binary keeps, stripped or not, each function's SP deltas (pcsp,
 * core/elf/gopclntab.h), which Go's own traceback unwinds every function
 * with, assembly included. On x86_64 a run of pcs with delta D is the row
 * CFA = rsp + D + 8, RA at CFA - 8 (runtime/traceback.go: frame.fp = sp +
 * funcspdelta + PtrSize, the return address below it).
 *
 *	the rule of a function's run		row
 *	D >= 0					rsp+D+8, fp unchanged, ra cfa-8
 *	D < 0 (it popped its return address)	unsupported:ra-rule
 *	GOPCLNTAB_TOPFRAME (runtime.goexit,	ra undefined: the walk ends there,
 *	mstart, rt0_go), and the entry points	as Go's traceback does
 *	_rt0_* the kernel starts
 *	GOPCLNTAB_SPWRITE (a stack switch)	unsupported:go-sp-write
 *	the signal restorer (runtime.sigreturn,	the kernel's signal frame at rsp,
 *	sigreturn__sigaction), from the		as glibc's __restore_rt has it
 *	padding byte before it
 *	the signal handler runtime.sigtramp	its deltas' rows, not a top frame
 *	where the restorer is found
 *
 * Go's signal handler (runtime.sigtramp), a top frame for Go's traceback,
 * returns to Go's own restorer, the sa_restorer Go gives the kernel, where
 * the kernel's rt_sigframe holds the interrupted registers: the restorer's
 * row is the signal frame's, found from a return address minus one as
 * glibc's nop before __restore_rt lets it be, and the walk goes on into the
 * code the signal interrupted. The restorer is taken only where its code
 * is the rt_sigreturn system call and an INT3 of padding precedes it, so
 * that no call returns to its entry.
 *
 * The frame pointer is "unchanged", as in the .debug_frame Go's linker
 * writes from the same deltas: where the pcs of a Go function are walked
 * with these rows, no later Go frame needs it. A function that writes SP
 * (runtime.mcall, nanotime1, asmcgocall) is not described by its deltas
 * past that write, so Go's traceback stops there; the BPF walk steps such a
 * frame with frame pointers (its stack switches: bpf/unwind_go.h). A
 * function whose deltas lie (gopclntab_bad) gives no row: whatever else
 * describes it, or frame pointers.
 */
#ifndef UNWPROF_TABLE_GO_H
#define UNWPROF_TABLE_GO_H

#include <stddef.h>
#include <stdint.h>

#include "../elf/gopclntab.h"
#include "unwind_table.h"

/* The rows of a pclntab's functions, sorted, an END row after each function. */
struct go_rows {
	struct table_row *rows; /* pcs are offsets from base */
	size_t nr, cap;
	uint64_t base;
	size_t nr_funcs;		  /* functions with rows */
	size_t refused[GOPCLNTAB_BAD_NR]; /* functions without: their deltas lie, by reason */
	size_t nr_sp_write;		  /* of nr_funcs, those that write SP: unsupported rows */
};

/* The file's code, where a function's code says what its row is. */
struct go_code {
	/* the len bytes at ELF address vaddr, or NULL when the file has not them all */
	const uint8_t *(*bytes)(const void *ctx, uint64_t vaddr, size_t len);
	const void *ctx;
};

/*
 * The rows of t's functions (x86_64) into *out, which table_go__free_rows()
 * releases; code, when not NULL, the file's code. 0; -E2BIG when its
 * functions span more than 4 GiB; -ENOMEM.
 */
int table_go__build_rows(const struct gopclntab *t, const struct go_code *code,
			 struct go_rows *out);
void table_go__free_rows(struct go_rows *g);

/*
 * Puts the rows of Go's pclntab g (x86_64) in place of t's over the
 * functions whose SP deltas hold, and counts those that do not; code, when
 * not NULL, the file's code. 0, or -E2BIG (the table would span more than
 * 4 GiB), -ENOMEM: t is then unchanged.
 */
int table_go__add(struct unwind_table *t, const struct gopclntab *g, const struct go_code *code);

/*
 * The same with the pclntab and code of elf when it is a Go binary for
 * x86_64 (unwind_table__build() adds them); a table that cannot take them
 * keeps the CFI's, with a warning.
 */
struct elf_file;
void table_go__add_elf(struct unwind_table *t, const struct elf_file *elf);

#endif
