/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Arrays of megabytes that are filled once and thrown away (unwind rows,
 * the FDEs of a large .eh_frame, their sorted pieces): a mapping of their
 * own, aligned to and advised for transparent huge pages, where malloc()
 * would leave them in 4 KiB pages. Filling 10 MB page by page takes 2,500
 * page faults; on a virtual machine each costs 10-15 us, more than the
 * work that fills the page. Smaller arrays come from calloc().
 *
 *	size_t mapped;
 *	v = big_alloc(bytes, &mapped);	zeroed; NULL: out of memory
 *	v = big_trim(v, used, &mapped);	gives back what is past used bytes
 *	big_free(v, mapped);
 *
 * mapped is the size of the mapping, or 0 when the array is malloc()'s:
 * big_free() of an array with mapped 0 is free().
 *
 * Arrays sized for the most they may hold and mostly left empty (the
 * encoder's own rules and pages) are big_alloc_sparse()'s: a mapping of
 * their own whose pages stay zero and cost nothing until touched, where
 * calloc() from the heap clears them all.
 *
 * The arrays of the libraries (libbpf reads the kernel's BTF, 5 MB, and
 * copies it, in every run) are malloc()'s to place: between
 * big_heap_begin() and big_heap_end() malloc() serves blocks up to 32 MiB
 * from its heap, which is advised for huge pages, where it would map each
 * of them in 4 KiB pages of its own (3,600 page faults at record's start,
 * about 200 so). After, its own ways again, and the heap's free memory given
 * back, so that a long run keeps no more than before.
 */
#ifndef UNWPROF_BIG_ALLOC_H
#define UNWPROF_BIG_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* An array of bytes, zeroed; *mapped says where it lives. NULL when out of memory. */
void *big_alloc(size_t bytes, size_t *mapped);

/* An array of bytes, zeroed, of which few are expected to be touched. */
void *big_alloc_sparse(size_t bytes, size_t *mapped);

/* The array keeping only its first used bytes (its address may change). */
void *big_trim(void *p, size_t used, size_t *mapped);

void big_free(void *p, size_t mapped);

/*
 * malloc() in huge pages, from the start of a command that builds tables
 * (record, dump-unwind, shards call it once their arguments are parsed).
 * False when malloc() is not glibc's to tune (a sanitizer's, valgrind's).
 */
bool big_heap_begin(void);

/* malloc()'s defaults again, and its free memory given back: once a command's start is done. */
void big_heap_end(void);

#endif
