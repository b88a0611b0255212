/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small hash table of pointers by a 64-bit hash the caller computes: open
 * addressing with linear probing, at most three quarters full, and removal
 * by shifting the slots after back, so that no tombstone slows a lookup.
 * Each value holds its own key, which the caller's function compares. The
 * hash table of unwprof's model's files and processes, the profile's
 * indexes, the symbolizer's shared locations, the session's stacks and
 * counts, the interpreters' code objects. (The encoder's rules, looked up
 * at every row of a table, have a table of their own:
 * core/unwind/encoder.c.)
 *
 *	struct hashmap h = {};
 *	v = hashmap__find(&h, hash, eq, key);	 NULL: none
 *	i = hashmap__find_index(&h, hash, eq, ctx, key);	 of hashmap_index_value()s
 *	err = hashmap__add(&h, hash, v);	 0 or -ENOMEM
 *	hashmap__remove(&h, hash, v);		 while iterating: look at slot i again
 *	hashmap__shrink(&h);			 after many removals
 *	for (size_t i = 0; i < h.cap; i++)	 every value: h.slots[i].value when not NULL
 *	hashmap__exit(&h);			 the table; the values are the caller's
 *
 * The values are pointers, or indexes into an array (hashmap_index_value()).
 */
#ifndef UNWPROF_HASHMAP_H
#define UNWPROF_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashmap_slot {
	uint64_t hash;
	void *value; /* NULL: empty */
};

struct hashmap {
	struct hashmap_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t nr;
};

/*
 * A table of entries kept in an array of the caller's, which moves as it
 * grows, holds their indexes: index i as the value i + 1, never NULL.
 */
static inline void *hashmap_index_value(size_t i)
{
	return (void *)(uintptr_t)(i + 1);
}

static inline size_t hashmap_value_index(const void *value)
{
	return (size_t)((uintptr_t)value - 1);
}

/* Whether value has key. */
typedef bool hashmap_eq_fn(const void *value, const void *key);

/* The value under hash that eq says has key, or NULL. */
void *hashmap__find(const struct hashmap *h, uint64_t hash, hashmap_eq_fn *eq, const void *key);

/* Whether entry index of the array that ctx holds has key. */
typedef bool hashmap_index_eq_fn(const void *ctx, size_t index, const void *key);

#define HASHMAP_NO_INDEX SIZE_MAX

/* In a table of indexes: the index under hash that eq says has key, or HASHMAP_NO_INDEX. */
size_t hashmap__find_index(const struct hashmap *h, uint64_t hash, hashmap_index_eq_fn *eq,
			   const void *ctx, const void *key);

/* Adds value (not NULL) under hash; a value with the same key is the caller's to avoid. */
int hashmap__add(struct hashmap *h, uint64_t hash, void *value);

/* Removes value, added under hash; false when it is not there. */
bool hashmap__remove(struct hashmap *h, uint64_t hash, const void *value);

/* After removals: a smaller table, at most half full, if there is memory for it. */
void hashmap__shrink(struct hashmap *h);

/* Frees the table, not the values; h is then empty and can be used again. */
void hashmap__exit(struct hashmap *h);

/*
 * Hashes to spread over the table: of a number, of bytes, of a string.
 * hash_u64() is inline: the tables of rules hash once a row of a
 * million-row table.
 */
static inline uint64_t hash_u64(uint64_t x)
{
	/* The finalizer of MurmurHash3: every bit of x moves every bit of the result. */
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}
uint64_t hash_bytes(const void *data, size_t len);
uint64_t hash_str(const char *s);

#endif
