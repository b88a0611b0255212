/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Arrays of megabytes that are filled once and thrown away (unwind rows,
 * the FDEs of a large .eh_frame, their sorted pieces): a mapping of their
 * own, aligned to and advised for transparent huge pages, where malloc()
 * would leave them in 4 KiB pages. Filling 10 MB page by page takes 2,500
 * page faults; on a virtual machine each costs 10-15 us, more than the
 * work that fills the page. Smaller arrays come from malloc().
 *
 *	size_t mapped;
 *	v = big_alloc(bytes, &mapped);	zeroed; NULL: out of memory
 *	v = big_trim(v, used, &mapped);	gives back what is past used bytes
 *	big_free(v, mapped);
 *
 * mapped is the size of the mapping, or 0 when the array is malloc()'s:
 * big_free() of an array with mapped 0 is free().
 */
#ifndef UNWPROF_BIG_ALLOC_H
#define UNWPROF_BIG_ALLOC_H

#include <stddef.h>

/* An array of bytes, zeroed; *mapped says where it lives. NULL when out of memory. */
void *big_alloc(size_t bytes, size_t *mapped);

/* The array keeping only its first used bytes (its address may change). */
void *big_trim(void *p, size_t used, size_t *mapped);

void big_free(void *p, size_t mapped);

#endif
