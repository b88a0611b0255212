/* SPDX-License-Identifier: GPL-2.0-only */
/* Small helpers every user-space file may use. */
#ifndef UNWPROF_COMMON_H
#define UNWPROF_COMMON_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../bpf/abi.h"

#pragma GCC poison u8 u16 u32 u64 s8 s16 s32 s64

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Makes room for element nr of the array *arr of *cap elements of size
 * bytes: doubles it (16 at first) when nr is past its end. 0, or -ENOMEM
 * with the array unchanged. Callers cast: grow((void **)&v, &cap, nr, sizeof(*v)).
 */
static inline int grow(void **arr, size_t *cap, size_t nr, size_t size)
{
	size_t ncap;
	void *n;

	if (nr < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	n = reallocarray(*arr, ncap, size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

/*
 * The first index in [lo, hi) of array arr, sorted by member, whose member
 * is past key (hi when none is): the element before it is the last one at
 * or before key. Without a branch on the comparison, which compilers turn
 * into a conditional move: a search's steps go either way at random, and
 * their mispredicted branches were two fifths of the time to make the
 * trees of a library's functions (core/symbols/dwarf_lines.c).
 */
#define SORTED_PAST(arr, lo, hi, member, key)                                                  \
	({                                                                                     \
		size_t _base = (lo), _len = (hi)-_base;                                        \
		if (_len) {                                                                    \
			while (_len > 1) {                                                     \
				size_t _half = _len / 2;                                       \
				_base = (arr)[_base + _half].member <= (key) ? _base + _half : \
									       _base;          \
				_len -= _half;                                                 \
			}                                                                      \
			_base += (arr)[_base].member <= (key);                                 \
		}                                                                              \
		_base;                                                                         \
	})

/* Exit codes, documented in unwprof(1). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 64,
};

#endif
