/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rows of aarch64 code without CFI, where its code says what they are
 * (core/unwind/code_a64.c): the vDSO and the PLT, for the unwind table
 * (core/unwind/unwind_table.h).
 */
#ifndef UNWPROF_CODE_A64_H
#define UNWPROF_CODE_A64_H

struct elf_file;
struct unwind_table;

/*
 * The table of an aarch64 vDSO: NULL and errno ENOENT when ef is none, or
 * its code is not what the table would say.
 */
struct unwind_table *code_a64__vdso(const struct elf_file *ef);

/*
 * The rows of ef's PLT added to its table t: 0 (also when the PLT is not
 * what the rows would say, or CFI describes it), or -ENOMEM.
 */
int code_a64__plt(struct unwind_table *t, const struct elf_file *ef);

#endif
