// SPDX-License-Identifier: GPL-2.0-only
/* A small hash table of pointers by hash. See hashmap.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

#define HASHMAP_MIN_CAP 16

uint64_t hash_bytes(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a, then mixed: its low bits are weak */

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return hash_u64(h ^ len);
}

uint64_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s));
}

void *hashmap__find(const struct hashmap *h, uint64_t hash, hashmap_eq_fn *eq, const void *key)
{
	size_t mask = h->cap - 1;

	if (!h->nr)
		return NULL;
	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		const struct hashmap_slot *s = &h->slots[i];

		if (!s->value)
			return NULL;
		if (s->hash == hash && eq(s->value, key))
			return s->value;
	}
}

size_t hashmap__find_index(const struct hashmap *h, uint64_t hash, hashmap_index_eq_fn *eq,
			   const void *ctx, const void *key)
{
	size_t mask = h->cap - 1;

	if (!h->nr)
		return HASHMAP_NO_INDEX;
	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		const struct hashmap_slot *s = &h->slots[i];

		if (!s->value)
			return HASHMAP_NO_INDEX;
		if (s->hash == hash && eq(ctx, hashmap_value_index(s->value), key))
			return hashmap_value_index(s->value);
	}
}

/* Puts value in the first empty slot from its place: the table has room. */
static void hashmap__place(struct hashmap *h, uint64_t hash, void *value)
{
	size_t mask = h->cap - 1, i = hash & mask;

	while (h->slots[i].value)
		i = (i + 1) & mask;
	h->slots[i] = (struct hashmap_slot){ hash, value };
}

/* Moves the values of h into a table of cap slots. */
static int hashmap__resize(struct hashmap *h, size_t cap)
{
	struct hashmap n = { .cap = cap, .nr = h->nr };

	n.slots = calloc(n.cap, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap; i++)
		if (h->slots[i].value)
			hashmap__place(&n, h->slots[i].hash, h->slots[i].value);
	free(h->slots);
	*h = n;
	return 0;
}

/* Room for one more value, at most three quarters full. */
static int hashmap__reserve(struct hashmap *h)
{
	if ((h->nr + 1) * 4 <= h->cap * 3)
		return 0;
	return hashmap__resize(h, h->cap ? h->cap * 2 : HASHMAP_MIN_CAP);
}

void hashmap__shrink(struct hashmap *h)
{
	size_t cap = h->cap;

	while (cap > HASHMAP_MIN_CAP && h->nr * 4 < cap)
		cap /= 2;
	if (cap < h->cap)
		hashmap__resize(h, cap); /* without memory, it stays as large: correct */
}

int hashmap__add(struct hashmap *h, uint64_t hash, void *value)
{
	int err = hashmap__reserve(h);

	if (err)
		return err;
	hashmap__place(h, hash, value);
	h->nr++;
	return 0;
}

/* Whether slot i, between the empty slot at hole and here, may move back into it. */
static bool hashmap__may_fill(const struct hashmap *h, size_t hole, size_t i)
{
	size_t mask = h->cap - 1, home = h->slots[i].hash & mask;

	/* It may unless its home lies after the hole, in probe order up to i. */
	return ((i - home) & mask) >= ((i - hole) & mask);
}

bool hashmap__remove(struct hashmap *h, uint64_t hash, const void *value)
{
	size_t mask = h->cap - 1, i, hole;

	if (!h->nr)
		return false;
	for (i = hash & mask; h->slots[i].value != value; i = (i + 1) & mask)
		if (!h->slots[i].value)
			return false;
	hole = i;
	/* The values after it in its run move back, so that no probe stops short. */
	for (i = (i + 1) & mask; h->slots[i].value; i = (i + 1) & mask) {
		if (!hashmap__may_fill(h, hole, i))
			continue;
		h->slots[hole] = h->slots[i];
		hole = i;
	}
	h->slots[hole] = (struct hashmap_slot){ 0 };
	h->nr--;
	return true;
}

void hashmap__exit(struct hashmap *h)
{
	free(h->slots);
	*h = (struct hashmap){ 0 };
}
