// SPDX-License-Identifier: GPL-2.0-only
#include "radix.h"

#include <string.h>

/* Below this many, an insertion sort costs less than one pass. */
#define RADIX_MIN 32

/*
 * One sort for both element types: TYPE, its key KEY(x). The passes
 * alternate between v and tmp; the result is copied back once at the end
 * when an odd number of passes left it in tmp.
 */
#define RADIX_SORT(TYPE, KEY)                                                          \
	do {                                                                           \
		TYPE *from = v, *to = tmp;                                             \
		uint64_t differ = 0;                                                   \
                                                                                       \
		if (n <= RADIX_MIN) {                                                  \
			for (size_t i = 1; i < n; i++) {                               \
				TYPE x = v[i];                                         \
				size_t j = i;                                          \
                                                                                       \
				for (; j > 0 && KEY(v[j - 1]) > KEY(x); j--)           \
					v[j] = v[j - 1];                               \
				v[j] = x;                                              \
			}                                                              \
			return;                                                        \
		}                                                                      \
		for (size_t i = 1; i < n; i++)                                         \
			differ |= KEY(v[i]) ^ KEY(v[0]);                               \
		for (unsigned int shift = 0; shift < 64; shift += 8) {                 \
			size_t count[257] = { 0 };                                     \
			TYPE *swap;                                                    \
                                                                                       \
			if (!((differ >> shift) & 0xff))                               \
				continue;                                              \
			for (size_t i = 0; i < n; i++)                                 \
				count[((KEY(from[i]) >> shift) & 0xff) + 1]++;         \
			for (int b = 0; b < 256; b++)                                  \
				count[b + 1] += count[b];                              \
			for (size_t i = 0; i < n; i++)                                 \
				to[count[(KEY(from[i]) >> shift) & 0xff]++] = from[i]; \
			swap = from;                                                   \
			from = to;                                                     \
			to = swap;                                                     \
		}                                                                      \
		if (from != v)                                                         \
			memcpy(v, from, n * sizeof(*v));                               \
	} while (0)

#define ITEM_KEY(x) ((x).key)
#define U64_KEY(x) (x)

void radix_sort_items(struct radix_item *v, struct radix_item *tmp, size_t n)
{
	RADIX_SORT(struct radix_item, ITEM_KEY);
}

void radix_sort_u64(uint64_t *v, uint64_t *tmp, size_t n)
{
	RADIX_SORT(uint64_t, U64_KEY);
}
