/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The line number program of one compilation unit in .debug_line (DWARF 2
 * to 5), run into rows of (address, file, line). Read here rather than with
 * libdwarf, which allocates an object per row: a large unit's table (an
 * interpreter's eval loop) then took tens of megabytes for a moment.
 *
 * File names are joined as binutils and libdwarf join them: the file's
 * directory when the name is relative, the unit's DW_AT_comp_dir when that
 * directory is relative too, with no other cleaning ("./a/./a/b.c" stays).
 *
 * The section comes from an untrusted file: every read is checked against
 * the end of the unit's program, a program that runs past it or a header
 * that does not hold together gives -EINVAL, and nothing is allocated in
 * proportion to what the header claims (rows and files grow with the bytes
 * that describe them).
 */
#ifndef UNWPROF_DEBUG_LINE_H
#define UNWPROF_DEBUG_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_section;

/* A row of a sequence: its address as an offset from the sequence's start. */
struct debug_line_row {
	uint32_t off;
	uint32_t line; /* 0: no line (compiler-generated code) */
	uint32_t file; /* an index in files */
};

/* A run of rows over contiguous addresses [lo, hi), as DW_LNE_end_sequence closes it. */
struct debug_line_seq {
	uint64_t lo, hi;
	uint32_t first, nr; /* its rows */
};

struct debug_line_table {
	/*
	 * Rows of 12 bytes, by sequence, in program order: a large unit has
	 * hundreds of thousands. A sequence of no bytes, of more than 4 GiB, or
	 * whose addresses go back before its start (none of which a compiler
	 * writes) is left out.
	 */
	struct debug_line_row *rows;
	size_t nr_rows;
	struct debug_line_seq *seqs; /* in program order */
	size_t nr_seqs;
	/*
	 * The header's names, pointing into the sections, by the file numbers
	 * the unit uses (DW_AT_decl_file, DW_AT_call_file, the rows): from 0
	 * in DWARF 5, from 1 before. debug_line__file() joins one: a unit
	 * names hundreds of files, a profile a few of them.
	 */
	const char **dirs;
	size_t nr_dirs;
	const char **file_names; /* NULL when a name cannot be read, and file 0 before DWARF 5 */
	uint64_t *file_dirs;
	size_t nr_files;
	const char *comp_dir;
	uint16_t version;
};

/*
 * Runs the program at offset in line, whose strings may be in line_str
 * (DW_FORM_line_strp) and str (DW_FORM_strp); either may be NULL. comp_dir
 * (the unit's DW_AT_comp_dir) may be NULL. Returns 0 and fills *t, or -EINVAL
 * (malformed), -ENOTSUP (a version or form not known), -ENOMEM; *t is then
 * empty.
 */
int debug_line__read(const struct elf_section *line, const struct elf_section *line_str,
		     const struct elf_section *str, uint64_t offset, const char *comp_dir,
		     struct debug_line_table *t);
void debug_line__free(struct debug_line_table *t);

/*
 * The full name of file i, malloc'd: its directory and DW_AT_comp_dir joined
 * to it as binutils and libdwarf join them. NULL when there is no such
 * file, its name cannot be read, or memory ran out.
 */
char *debug_line__file(const struct debug_line_table *t, size_t i);

#endif
