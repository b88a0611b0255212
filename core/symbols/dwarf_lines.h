/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Source lines and inlined calls from DWARF: for an
 * address, the chain of functions inlined at it (DW_TAG_inlined_subroutine,
 * with the file and line each was called from) up to the function that holds
 * it, and the file and line of the address from .debug_line. DWARF 4 and 5;
 * compressed sections come decompressed from core/elf/elf_file.h.
 *
 * Parsed lazily: opening reads the compilation units' address ranges only;
 * a unit's line table and function tree are read on the first lookup inside
 * it and kept. The DWARF comes from an untrusted file: a unit that cannot be
 * read (core/symbols/dwarf_die.h), a loop of abstract origins, a tree deeper or larger than the
 * limits below give no frames for that unit (counted), never a crash.
 */
#ifndef UNWPROF_DWARF_LINES_H
#define UNWPROF_DWARF_LINES_H

#include <stddef.h>
#include <stdint.h>

struct elf_file;

#define DWARF_LINES_MAX_DEPTH 64 /* frames of one address; nesting of one unit's tree */

struct dwarf_frame {
	/*
	 * The function's raw name: its linkage name when it has one (mangled
	 * C++ or Rust), else its DW_AT_name; NULL when unknown (the outermost
	 * frame of code without a DW_TAG_subprogram, such as assembly).
	 */
	const char *name;
	const char *file; /* where the address (or the inner frame's call) is; NULL when unknown */
	uint32_t line;	  /* 0 when unknown */
	const char *decl_file; /* where the function is declared, NULL when unknown */
	uint32_t decl_line;    /* its DW_AT_decl_line, 0 when unknown */
};

struct dwarf_lines;

/*
 * The DWARF of ef (which must outlive it). NULL with errno ENOENT when ef
 * has no .debug_info or .debug_line, EINVAL when no unit header can be read.
 */
struct dwarf_lines *dwarf_lines__open(const struct elf_file *ef);
void dwarf_lines__free(struct dwarf_lines *dl);

/*
 * The frames at ELF virtual address vaddr, innermost inlined function
 * first, the function that holds the code last, at most max. Returns how
 * many were stored, 0 when the DWARF says nothing of vaddr. Strings stay
 * valid as long as dl.
 */
size_t dwarf_lines__lookup(struct dwarf_lines *dl, uint64_t vaddr, struct dwarf_frame *frames,
			   size_t max);

/* Compilation units read so far, and how many of them could not be read. */
size_t dwarf_lines__units_loaded(const struct dwarf_lines *dl);
size_t dwarf_lines__failures(const struct dwarf_lines *dl);

#endif
