// SPDX-License-Identifier: GPL-2.0-only
/* The function symbols of an ELF image. See symtab.h. */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../elf/elf_file.h"
#include "../elf/gopclntab.h"
#include "../util/common.h"
#include "../util/log.h"
#include "../util/radix.h"
#include "symtab.h"

struct symtab {
	struct symtab_sym *syms; /* sorted by addr, one per address */
	size_t nr_syms;
	/* While loading: the image's segments, which tell code from data. */
	const struct elf_load_segment *segs;
	size_t nr_segs;
	symtab_keep_fn keep; /* NULL: every symbol */
	void *keep_ctx;
};

static int bind_rank(int bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Among aliases at one address the name people know wins: a function with
 * a size before a marker without one (Go's runtime.text on its first
 * function, as perf prefers too), global before weak before local, then
 * fewer leading underscores ("malloc" over "__libc_malloc"), then the
 * shorter, then bytewise, so the choice is stable.
 */
static int sym_cmp(const void *pa, const void *pb)
{
	const struct symtab_sym *a = pa, *b = pb;
	size_t ua, ub, la, lb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->label != b->label)
		return a->label ? 1 : -1;
	if (!a->size != !b->size)
		return a->size ? -1 : 1;
	if (bind_rank(a->bind) != bind_rank(b->bind))
		return bind_rank(a->bind) - bind_rank(b->bind);
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static bool in_code(const struct symtab *st, uint64_t vaddr)
{
	for (size_t i = 0; i < st->nr_segs; i++)
		if ((st->segs[i].flags & PF_X) && vaddr >= st->segs[i].vaddr &&
		    vaddr - st->segs[i].vaddr < st->segs[i].memsz)
			return true;
	return false;
}

/*
 * Functions, and untyped symbols in code: hand-written assembly often has no
 * .type (ld.so's _start, at the bottom of every stack during startup). Not
 * "$x"-style mapping symbols or ".L" locals.
 */
static bool sym_wanted(const struct symtab *st, const Elf64_Sym *es, const char *name)
{
	int type = ELF64_ST_TYPE(es->st_info);

	if (es->st_shndx == SHN_UNDEF || es->st_shndx == SHN_ABS || !es->st_value || !*name)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	return type == STT_NOTYPE && name[0] != '$' && strncmp(name, ".L", 2) != 0 &&
	       in_code(st, es->st_value);
}

/* Room for one more symbol at the end of st->syms; NULL when out of memory. */
static struct symtab_sym *syms_push(struct symtab *st, size_t *cap)
{
	if (st->nr_syms == *cap) {
		size_t new_cap = *cap ? *cap * 2 : 256;
		struct symtab_sym *syms = reallocarray(st->syms, new_cap, sizeof(*syms));

		if (!syms)
			return NULL;
		st->syms = syms;
		*cap = new_cap;
	}
	return &st->syms[st->nr_syms++];
}

/* Appends the function symbols of section symtab (names in strtab) of ef. */
static int syms_add_table(struct symtab *st, const struct elf_file *ef, const char *symtab,
			  const char *strtab, size_t *cap)
{
	struct elf_section ss, strs;
	size_t n;

	if (elf_file__section(ef, symtab, &ss) || elf_file__section(ef, strtab, &strs))
		return 0;
	n = ss.size / sizeof(Elf64_Sym);
	for (size_t i = 0; i < n; i++) {
		Elf64_Sym es;
		struct symtab_sym *s;

		/* The section need not be aligned in the mapped file. */
		memcpy(&es, ss.data + i * sizeof(es), sizeof(es));
		if (st->keep && !st->keep(st->keep_ctx, es.st_value, es.st_size))
			continue;
		if (es.st_name >= strs.size ||
		    !memchr(strs.data + es.st_name, 0, strs.size - es.st_name))
			continue; /* a name past its table: skip, do not read beyond */
		if (!sym_wanted(st, &es, (const char *)strs.data + es.st_name))
			continue;
		s = syms_push(st, cap);
		if (!s)
			return -ENOMEM;
		s->addr = es.st_value;
		s->size = es.st_size;
		s->name = (const char *)strs.data + es.st_name;
		s->bind = ELF64_ST_BIND(es.st_info);
		s->label = ELF64_ST_TYPE(es.st_info) == STT_NOTYPE;
	}
	return 0;
}

/*
 * st's symbols in sym_cmp's order: by address with a radix sort, then the
 * few that share an address by sym_cmp. qsort() of them all was most of the
 * time to read a large library's symbols. Without memory for it, qsort().
 */
static void syms_sort(struct symtab *st)
{
	size_t n = st->nr_syms;
	struct radix_item *items = malloc(2 * n * sizeof(*items));
	struct symtab_sym *sorted = malloc(n * sizeof(*sorted));

	if (!items || !sorted) {
		free(items);
		free(sorted);
		qsort(st->syms, n, sizeof(*st->syms), sym_cmp);
		return;
	}
	for (size_t i = 0; i < n; i++)
		items[i] = (struct radix_item){ st->syms[i].addr, i };
	radix_sort_items(items, items + n, n);
	for (size_t i = 0; i < n; i++)
		sorted[i] = st->syms[items[i].value];
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && sorted[j].addr == sorted[i].addr; j++)
			;
		if (j - i > 1)
			qsort(sorted + i, j - i, sizeof(*sorted), sym_cmp);
	}
	memcpy(st->syms, sorted, n * sizeof(*sorted));
	free(sorted);
	free(items);
}

/*
 * Sorts and keeps one symbol per address, the best named, with the largest
 * size seen; a label inside a function with a size is dropped, so the frame
 * keeps the function's name.
 */
static void syms_unique(struct symtab *st)
{
	uint64_t func_end = 0;
	size_t out = 0;

	if (!st->nr_syms)
		return;
	syms_sort(st);
	for (size_t i = 0; i < st->nr_syms; i++) {
		struct symtab_sym *s = &st->syms[i];

		if (out && st->syms[out - 1].addr == s->addr) {
			if (s->size > st->syms[out - 1].size)
				st->syms[out - 1].size = s->size;
			continue;
		}
		if (s->label && s->addr < func_end)
			continue;
		if (!s->label && s->size && s->addr + s->size > func_end)
			func_end = s->addr + s->size;
		st->syms[out++] = *s;
	}
	st->nr_syms = out;
}

/* The last of the first n symbols of st (sorted) starting at or before addr, or NULL. */
static const struct symtab_sym *syms_at_or_before(const struct symtab *st, size_t n, uint64_t addr)
{
	size_t past = SORTED_PAST(st->syms, 0, n, addr, addr);

	return past ? &st->syms[past - 1] : NULL;
}

/* Whether one of the first n symbols of st (sorted, unique) starts at addr or, sized, holds it. */
static bool syms_cover(const struct symtab *st, size_t n, uint64_t addr)
{
	const struct symtab_sym *s = syms_at_or_before(st, n, addr);

	return s && (s->addr == addr || (s->size && addr - s->addr < s->size));
}

/*
 * Go binaries keep a function table for the runtime even when built without
 * ELF symbols (-ldflags='-s -w', Debian's Go tools): its functions name what
 * the ELF symbols, sorted before, leave uncovered, so .symtab wins where both
 * name an address. A malformed table is skipped (gopclntab.c says why at
 * debug level): the ELF symbols are still there.
 */
static int syms_add_gopclntab(struct symtab *st, const struct elf_file *elf, size_t *cap)
{
	struct gopclntab *t = gopclntab__open_elf(elf);
	size_t n = st->nr_syms;
	int err = 0;

	if (!t)
		return 0;
	for (size_t i = 0; i < gopclntab__count(t); i++) {
		struct gopclntab_func f;
		struct symtab_sym *s;

		/* A function of size 0 names no address. */
		if (gopclntab__func(t, i, &f) || f.end <= f.entry || syms_cover(st, n, f.entry) ||
		    (st->keep && !st->keep(st->keep_ctx, f.entry, f.end - f.entry)))
			continue;
		s = syms_push(st, cap);
		if (!s) {
			err = -ENOMEM;
			break;
		}
		s->addr = f.entry;
		s->size = f.end - f.entry;
		s->name = f.name;
		s->bind = STB_GLOBAL;
		s->label = false;
	}
	pr_debug("%s: %zu functions from the Go function table", elf_file__path(elf),
		 st->nr_syms - n);
	gopclntab__free(t);
	return err;
}

/*
 * The symbols of debug, then of elf's .symtab and .dynsym, one per address
 * (sym_cmp's choice), then those of Go's function table that they leave
 * uncovered.
 */
static int symtab__read(struct symtab *st, const struct elf_file *elf, const struct elf_file *debug)
{
	size_t cap = 0, nr_elf;
	int err = 0;

	if (debug)
		err = syms_add_table(st, debug, ".symtab", ".strtab", &cap);
	if (!err)
		err = syms_add_table(st, elf, ".symtab", ".strtab", &cap);
	if (!err)
		err = syms_add_table(st, elf, ".dynsym", ".dynstr", &cap);
	if (err)
		return err;
	syms_unique(st);
	nr_elf = st->nr_syms;
	err = syms_add_gopclntab(st, elf, &cap);
	if (!err && st->nr_syms != nr_elf)
		syms_unique(st);
	return err;
}

struct symtab *symtab__load_some(const struct elf_file *elf, const struct elf_file *debug,
				 const struct elf_load_segment *segs, size_t nr_segs,
				 symtab_keep_fn keep, void *ctx)
{
	struct symtab *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return NULL;
	st->segs = segs;
	st->nr_segs = nr_segs;
	st->keep = keep;
	st->keep_ctx = ctx;
	err = symtab__read(st, elf, debug);
	st->segs = NULL;
	st->nr_segs = 0;
	st->keep = NULL;
	if (err) {
		symtab__free(st);
		errno = -err;
		return NULL;
	}
	pr_debug("%s: %zu function symbols", elf_file__path(elf), st->nr_syms);
	return st;
}

struct symtab *symtab__load(const struct elf_file *elf, const struct elf_file *debug,
			    const struct elf_load_segment *segs, size_t nr_segs)
{
	return symtab__load_some(elf, debug, segs, nr_segs, NULL, NULL);
}

const struct symtab_sym *symtab__find(const struct symtab *st, uint64_t vaddr)
{
	const struct symtab_sym *s;

	if (!st || !st->nr_syms)
		return NULL;
	s = syms_at_or_before(st, st->nr_syms, vaddr);
	if (s && s->size && vaddr - s->addr >= s->size)
		return NULL; /* past its end: padding, PLT, code without a symbol */
	return s;
}

size_t symtab__count(const struct symtab *st)
{
	return st ? st->nr_syms : 0;
}

const struct symtab_sym *symtab__get(const struct symtab *st, size_t i)
{
	return &st->syms[i];
}

void symtab__free(struct symtab *st)
{
	if (!st)
		return;
	free(st->syms);
	free(st);
}
