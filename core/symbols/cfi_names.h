/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Names for the code of a file that has no symbol for it (a stripped
 * executable, the static functions of a library with .dynsym alone), from
 * what the file still has: its entry point, which is the program's _start,
 * and the FDEs of its .eh_frame, one per function, whose ranges say where
 * each function starts and ends. A function without a symbol is named by
 * its start, "[FILE+0xOFFSET]" with the start's offset in the file, as the
 * folded output names an address without a symbol: every sample in one
 * function then has one name, and adds up with the others in a report.
 */
#ifndef UNWPROF_CFI_NAMES_H
#define UNWPROF_CFI_NAMES_H

#include <stdint.h>

struct elf_file;
struct cfi_names;

/*
 * The functions of ef's .eh_frame, named after label (the file's base
 * name). NULL and errno: ENOENT when ef has no .eh_frame, EINVAL when it
 * cannot be read, ENOMEM.
 */
struct cfi_names *cfi_names__new(const struct elf_file *ef, const char *label);
void cfi_names__free(struct cfi_names *n);

/*
 * The name of the function that holds vaddr, made on the first lookup and
 * valid as long as n, and its start in *start; NULL when no FDE holds vaddr
 * (or without memory).
 */
const char *cfi_names__lookup(struct cfi_names *n, uint64_t vaddr, uint64_t *start);

#endif
