// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hash table of core/util/hashmap.c against a plain array of what was
 * added: random adds and removes, with hashes that collide on purpose, so
 * that runs wrap around the table's end and removals shift values back;
 * removals while the slots are walked, and the table shrunk after them; a
 * table of indexes into an array.
 */
#include <stdlib.h>

#include "test.h"
#include "core/util/hashmap.h"

#define KEYS 2000

struct item {
	uint64_t key;
	bool in; /* what the table should hold */
};

static bool item_is(const void *value, const void *key)
{
	return ((const struct item *)value)->key == *(const uint64_t *)key;
}

/* Few distinct hashes: long runs of collisions. */
static uint64_t weak_hash(uint64_t key)
{
	return hash_u64(key % 97);
}

static void check_all(const struct hashmap *h, struct item *items, size_t n, size_t *bad)
{
	size_t in = 0;

	for (size_t i = 0; i < n; i++) {
		void *v = hashmap__find(h, weak_hash(items[i].key), item_is, &items[i].key);

		*bad += items[i].in ? v != &items[i] : v != NULL;
		in += items[i].in;
	}
	*bad += h->nr != in;
}

static void test_against_array(void)
{
	struct item *items = calloc(KEYS, sizeof(*items));
	struct hashmap h = { 0 };
	size_t bad = 0;

	CHECK(items != NULL);
	if (!items)
		return;
	srand(7);
	for (size_t i = 0; i < KEYS; i++)
		items[i].key = (uint64_t)i * 0x9e3779b97f4a7c15ULL;
	for (size_t round = 0; round < 20000; round++) {
		struct item *it = &items[(size_t)rand() % KEYS];

		if (it->in) {
			bad += !hashmap__remove(&h, weak_hash(it->key), it);
			it->in = false;
		} else {
			bad += hashmap__add(&h, weak_hash(it->key), it) != 0;
			it->in = true;
		}
		if (round % 1000 == 0)
			check_all(&h, items, KEYS, &bad);
	}
	check_all(&h, items, KEYS, &bad);
	CHECK_EQ_INT(bad, 0);
	CHECK(h.nr * 4 <= h.cap * 3);
	/* Not there: not removed. */
	for (size_t i = 0; i < KEYS; i++)
		if (!items[i].in)
			CHECK(!hashmap__remove(&h, weak_hash(items[i].key), &items[i]));
	hashmap__exit(&h);
	CHECK(h.nr == 0 && h.cap == 0 && !hashmap__find(&h, 1, item_is, &items[0].key));
	free(items);
}

/* Removes every value whose key is odd while walking the slots, as the session's stack cache does. */
static void test_remove_while_walking(void)
{
	struct item *items = calloc(KEYS, sizeof(*items));
	struct hashmap h = { 0 };
	size_t bad = 0, cap;

	CHECK(items != NULL);
	if (!items)
		return;
	for (size_t i = 0; i < KEYS; i++) {
		items[i] = (struct item){ .key = i, .in = true };
		bad += hashmap__add(&h, weak_hash(items[i].key), &items[i]) != 0;
	}
	for (size_t i = 0; i < h.cap;) {
		struct item *it = h.slots[i].value;

		if (it && it->key % 2) {
			bad += !hashmap__remove(&h, weak_hash(it->key), it);
			it->in = false;
			continue; /* another value may have moved into slot i */
		}
		i++;
	}
	check_all(&h, items, KEYS, &bad);
	CHECK_EQ_INT(h.nr, KEYS / 2);
	for (size_t i = 0; i < KEYS; i++)
		if (items[i].key % 2 == 0) {
			bad += !hashmap__remove(&h, weak_hash(items[i].key), &items[i]);
			items[i].in = false;
		}
	for (size_t i = 0; i < 10; i++) {
		items[i].in = true;
		bad += hashmap__add(&h, weak_hash(items[i].key), &items[i]) != 0;
	}
	cap = h.cap;
	hashmap__shrink(&h);
	CHECK(h.cap < cap && h.nr * 4 <= h.cap * 3);
	check_all(&h, items, KEYS, &bad);
	CHECK_EQ_INT(bad, 0);
	hashmap__exit(&h);
	free(items);
}

static bool key_at(const void *keys, size_t i, const void *key)
{
	return ((const uint64_t *)keys)[i] == *(const uint64_t *)key;
}

/* A table of indexes into an array: each key found at its index, a key not there at none. */
static void test_find_index(void)
{
	uint64_t keys[300];
	struct hashmap h = { 0 };
	size_t bad = 0;
	uint64_t absent = 1000;

	for (size_t i = 0; i < 300; i++) {
		keys[i] = i * 7;
		bad += hashmap__add(&h, weak_hash(keys[i]), hashmap_index_value(i)) != 0;
	}
	for (size_t i = 0; i < 300; i++)
		bad += hashmap__find_index(&h, weak_hash(keys[i]), key_at, keys, &keys[i]) != i;
	bad += hashmap__find_index(&h, weak_hash(absent), key_at, keys, &absent) !=
	       HASHMAP_NO_INDEX;
	CHECK_EQ_INT(bad, 0);
	hashmap__exit(&h);
	CHECK(hashmap__find_index(&h, weak_hash(keys[0]), key_at, keys, &keys[0]) ==
	      HASHMAP_NO_INDEX);
}

static void test_hashes(void)
{
	CHECK(hash_str("libc.so.6") == hash_bytes("libc.so.6", 9));
	CHECK(hash_str("a") != hash_str("b"));
	CHECK(hash_bytes("", 0) != hash_bytes("\0", 1));
	CHECK(hash_u64(1) != hash_u64(2));
}

int main(void)
{
	RUN(test_against_array);
	RUN(test_remove_while_walking);
	RUN(test_find_index);
	RUN(test_hashes);
	return test_summary();
}
