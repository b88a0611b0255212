/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The function symbols of an ELF image, sorted by address, one per address:
 * those of .symtab and .dynsym of the file and of its separate debug file,
 * and for Go binaries those of the function table in .gopclntab
 * (core/elf/gopclntab.h), which stripped ones keep. Names point into the
 * files, which must outlive the table. core/model/ reads them on the first
 * lookup in an image.
 */
#ifndef UNWPROF_SYMTAB_H
#define UNWPROF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_file;
struct elf_load_segment;
struct symtab;

struct symtab_sym {
	uint64_t addr;
	uint64_t size;	  /* 0 when unknown: covers up to the next symbol */
	const char *name; /* inside the mapped string table */
	int bind;	  /* STB_* */
	bool label;	  /* STT_NOTYPE: an assembler label such as ld.so's _start */
};

/*
 * The symbols of elf and of its debug file (may be NULL); segs, its load
 * segments, tell code from data. NULL and errno ENOMEM.
 */
struct symtab *symtab__load(const struct elf_file *elf, const struct elf_file *debug,
			    const struct elf_load_segment *segs, size_t nr_segs);
/*
 * The same, of only the symbols keep(ctx, addr, size) is true of: the few a
 * reader of a part of the image needs, without the sort of all of them.
 */
typedef bool (*symtab_keep_fn)(void *ctx, uint64_t addr, uint64_t size);
struct symtab *symtab__load_some(const struct elf_file *elf, const struct elf_file *debug,
				 const struct elf_load_segment *segs, size_t nr_segs,
				 symtab_keep_fn keep, void *ctx);
/* The symbol that holds ELF address vaddr, or NULL (st may be NULL). */
const struct symtab_sym *symtab__find(const struct symtab *st, uint64_t vaddr);
size_t symtab__count(const struct symtab *st);
/* The i-th symbol by address, i < symtab__count(st). */
const struct symtab_sym *symtab__get(const struct symtab *st, size_t i);
void symtab__free(struct symtab *st);

#endif
