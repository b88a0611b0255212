// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cache of user stacks of a session. See ustack_cache.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "ustack_cache.h"

struct cached_ustack {
	uint64_t key;
	uint32_t gen;	      /* the drain that last used it */
	struct unw_ustack st; /* allocated for its own frames only */
};

/* The bytes of st that hold its frames: most stacks are far shorter than the limit. */
static size_t ustack_size(const struct unw_ustack *st)
{
	size_t nr = st->nr < UNW_DEPTH_MAX ? st->nr : UNW_DEPTH_MAX;

	return offsetof(struct unw_ustack, pcs) + nr * sizeof(st->pcs[0]);
}

static bool cached_ustack_is(const void *value, const void *key)
{
	return ((const struct cached_ustack *)value)->key == *(const uint64_t *)key;
}

/* The stack under key, marked used by the current drain; NULL when not here. */
static struct cached_ustack *ustack_cache__find(struct ustack_cache *c, uint64_t key)
{
	struct cached_ustack *e = hashmap__find(&c->by_key, hash_u64(key), cached_ustack_is, &key);

	if (e)
		e->gen = c->gen;
	return e;
}

int ustack_cache__put(struct ustack_cache *c, uint64_t key, const struct unw_ustack *st)
{
	struct cached_ustack *e;

	if (ustack_cache__find(c, key))
		return 0;
	e = malloc(offsetof(struct cached_ustack, st) + ustack_size(st));
	if (!e)
		return -ENOMEM;
	e->key = key;
	e->gen = c->gen;
	memcpy(&e->st, st, ustack_size(st));
	if (hashmap__add(&c->by_key, hash_u64(key), e)) {
		free(e);
		return -ENOMEM;
	}
	return 0;
}

const struct unw_ustack *ustack_cache__get(struct ustack_cache *c, uint64_t key)
{
	struct cached_ustack *e = ustack_cache__find(c, key);

	return e ? &e->st : NULL;
}

#define USTACK_CACHE_KEEP 4096 /* below this many stacks, nothing is dropped */

/* The end of a drain: drops the stacks neither it nor the one before used. */
void ustack_cache__age(struct ustack_cache *c)
{
	uint32_t min_gen = c->gen > 1 ? c->gen - 1 : 0;

	c->gen++;
	if (c->by_key.nr <= USTACK_CACHE_KEEP)
		return;
	for (size_t i = 0; i < c->by_key.cap;) {
		struct cached_ustack *e = c->by_key.slots[i].value;

		if (e && e->gen < min_gen) {
			hashmap__remove(&c->by_key, c->by_key.slots[i].hash, e);
			free(e);
			continue; /* another stack may have moved into slot i */
		}
		i++;
	}
	hashmap__shrink(&c->by_key);
}

void ustack_cache__free(struct ustack_cache *c)
{
	for (size_t i = 0; i < c->by_key.cap; i++)
		free(c->by_key.slots[i].value);
	hashmap__exit(&c->by_key);
}
