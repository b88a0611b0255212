// SPDX-License-Identifier: GPL-2.0-only
/*
 * The count map, read by difference. See count_ledger.h.
 *
 * A drain reads the map in batches without deleting (BPF adds meanwhile
 * land in the next drain's difference), then deletes the keys that did not
 * grow one at a time, each with its value read in the same step: an add
 * that came after the batch read is handed on, not lost. A flush deletes
 * in batches, as it reads. A key BPF adds while a flush goes on is either
 * deleted by it or found by the next drain with no ledger entry: its whole
 * count is its growth. Either way every sample is handed on once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "count_ledger.h"
#include "../util/common.h"
#include "../util/hashmap.h"

#define BATCH 1024
/* The kernel's own "not supported", which its BPF calls return to user space. */
#define KERNEL_ENOTSUPP 524

/* A key and the count and time of it handed on so far. */
struct counted {
	struct unw_count_key key;
	uint64_t count, ns;
};

struct count_ledger {
	struct hashmap by_key; /* struct counted */
	bool no_delete_one;    /* the kernel cannot delete a key with its value: flush */
	/* A drain's buffers, kept from one to the next. */
	struct unw_count_key *keys, *idle;
	struct unw_count *vals;
	size_t nr_idle, cap_idle;
};

struct count_ledger *count_ledger__new(void)
{
	struct count_ledger *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->keys = calloc(BATCH, sizeof(*l->keys));
	l->vals = calloc(BATCH, sizeof(*l->vals));
	if (!l->keys || !l->vals) {
		count_ledger__free(l);
		errno = ENOMEM;
		return NULL;
	}
	return l;
}

static uint64_t key_hash(const struct unw_count_key *k)
{
	return hash_bytes(k, sizeof(*k));
}

static bool counted_is(const void *value, const void *key)
{
	return memcmp(&((const struct counted *)value)->key, key, sizeof(struct unw_count_key)) ==
	       0;
}

static struct counted *ledger_find(const struct count_ledger *l, const struct unw_count_key *k)
{
	return hashmap__find(&l->by_key, key_hash(k), counted_is, k);
}

/*
 * Hands on what key's count grew by since the ledger's entry e (NULL: since
 * it was added), and moves e on to count; false when it did not grow.
 */
static bool hand_on(struct counted *e, const struct unw_count_key *key,
		    const struct unw_count *count, count_ledger_fn *on_count, void *ctx)
{
	struct unw_count grown = *count;

	/* Less than handed on: the key was deleted and added again since. */
	if (e && count->count >= e->count && count->ns >= e->ns) {
		grown.count -= e->count;
		grown.ns -= e->ns;
	}
	if (e) {
		e->count = count->count;
		e->ns = count->ns;
	}
	if (!grown.count && !grown.ns)
		return false;
	on_count(ctx, key, &grown);
	return true;
}

/* A key seen for the first time: kept with the count just handed on. */
static int ledger_add(struct count_ledger *l, const struct unw_count_key *key,
		      const struct unw_count *count)
{
	struct counted *e = malloc(sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->key = *key;
	e->count = count->count;
	e->ns = count->ns;
	if (hashmap__add(&l->by_key, key_hash(key), e)) {
		free(e);
		return -ENOMEM;
	}
	return 0;
}

static void ledger_remove(struct count_ledger *l, struct counted *e)
{
	hashmap__remove(&l->by_key, key_hash(&e->key), e);
	free(e);
}

static void ledger_clear(struct count_ledger *l)
{
	for (size_t i = 0; i < l->by_key.cap; i++)
		free(l->by_key.slots[i].value);
	hashmap__exit(&l->by_key);
}

/* One batch read: a key that grew is handed on, one that did not is noted as idle. */
static int read_batch(struct count_ledger *l, __u32 n, count_ledger_fn *on_count, void *ctx)
{
	for (__u32 i = 0; i < n; i++) {
		struct counted *e = ledger_find(l, &l->keys[i]);
		int err;

		if (hand_on(e, &l->keys[i], &l->vals[i], on_count, ctx)) {
			if (!e && (err = ledger_add(l, &l->keys[i], &l->vals[i])))
				return err;
			continue;
		}
		err = grow((void **)&l->idle, &l->cap_idle, l->nr_idle, sizeof(*l->idle));
		if (err)
			return err;
		l->idle[l->nr_idle++] = l->keys[i];
	}
	return 0;
}

/*
 * Deletes the keys that did not grow, each with its last value: what an
 * add after the batch read brought is handed on. -EOPNOTSUPP when the
 * kernel cannot (the keys are left for the next drain, a flush).
 */
static int delete_idle(struct count_ledger *l, int fd, count_ledger_fn *on_count, void *ctx,
		       uint64_t *deleted)
{
	for (size_t i = 0; i < l->nr_idle; i++) {
		struct counted *e = ledger_find(l, &l->idle[i]);
		struct unw_count last;

		if (bpf_map_lookup_and_delete_elem(fd, &l->idle[i], &last)) {
			if (errno == ENOENT)
				continue;
			if (errno == EINVAL || errno == KERNEL_ENOTSUPP || errno == EOPNOTSUPP) {
				l->no_delete_one = true;
				return -EOPNOTSUPP;
			}
			return -errno;
		}
		(*deleted)++;
		hand_on(e, &l->idle[i], &last, on_count, ctx);
		if (e)
			ledger_remove(l, e);
	}
	return 0;
}

/* Every key read and kept; those that did not grow deleted. */
static int drain_keep(struct count_ledger *l, int fd, count_ledger_fn *on_count, void *ctx,
		      uint64_t *deleted)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint64_t in = 0, out = 0;
	void *inp = NULL;
	bool last;
	int err;

	l->nr_idle = 0;
	do {
		__u32 n = BATCH;

		err = bpf_map_lookup_batch(fd, inp, &out, l->keys, l->vals, &n, &opts);
		if (err && errno != ENOENT)
			return -errno;
		last = err || n == 0; /* ENOENT: the batch read is the map's end */
		err = read_batch(l, n, on_count, ctx);
		if (err)
			return err;
		in = out;
		inp = &in;
	} while (!last);
	err = delete_idle(l, fd, on_count, ctx, deleted);
	return err == -EOPNOTSUPP ? 0 : err;
}

/* Every key read and deleted, in batches; the ledger starts again empty. */
static int drain_flush(struct count_ledger *l, int fd, count_ledger_fn *on_count, void *ctx,
		       uint64_t *deleted)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint64_t in = 0, out = 0;
	void *inp = NULL;
	bool last;
	int err;

	do {
		__u32 n = BATCH;

		err = bpf_map_lookup_and_delete_batch(fd, inp, &out, l->keys, l->vals, &n, &opts);
		if (err && errno != ENOENT)
			return -errno;
		last = err || n == 0;
		*deleted += n;
		for (__u32 i = 0; i < n; i++)
			hand_on(ledger_find(l, &l->keys[i]), &l->keys[i], &l->vals[i], on_count,
				ctx);
		in = out;
		inp = &in;
	} while (!last);
	ledger_clear(l);
	return 0;
}

int count_ledger__drain(struct count_ledger *l, int fd, bool flush, count_ledger_fn *on_count,
			void *ctx, uint64_t *deleted)
{
	*deleted = 0;
	if (flush || l->no_delete_one)
		return drain_flush(l, fd, on_count, ctx, deleted);
	return drain_keep(l, fd, on_count, ctx, deleted);
}

uint64_t count_ledger__keys(const struct count_ledger *l)
{
	return l->by_key.nr;
}

void count_ledger__free(struct count_ledger *l)
{
	if (!l)
		return;
	ledger_clear(l);
	free(l->keys);
	free(l->vals);
	free(l->idle);
	free(l);
}
