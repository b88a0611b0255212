// SPDX-License-Identifier: GPL-2.0-only
/*
 * The count ledger (core/session/count_ledger.h) against a real BPF hash
 * map, this test playing BPF's part: it adds keys and grows their counts
 * between drains, and checks that every drain hands on exactly what each
 * key grew by, that a key which did not grow is deleted and one which did
 * is kept, that a flush empties the map, and, over thousands of random
 * rounds across more keys than one batch reads, that what was handed on
 * per key adds up to what was counted.
 *
 * Root and BPF: exits 77 (skipped) without them, unless
 * UNWPROF_REQUIRE_BPF=1.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "core/session/count_ledger.h"
#include "../unit/test.h"

#define KEYS 3000 /* more than a batch of the ledger's reads */

static int fd; /* the count map */

struct handed {
	uint64_t count[KEYS], ns[KEYS];
	unsigned calls;
};

static int skip_or_fail(const char *why)
{
	const char *req = getenv("UNWPROF_REQUIRE_BPF");

	if (req && strcmp(req, "1") == 0) {
		fprintf(stderr, "FAIL: %s (UNWPROF_REQUIRE_BPF=1, so this is not skipped)\n", why);
		return 1;
	}
	fprintf(stderr, "SKIP: %s\n", why);
	return 77;
}

static struct unw_count_key key_of(unsigned i)
{
	return (struct unw_count_key){
		.pid = 100 + i % 7,
		.tid = 1000 + i,
		.ustack = 0x1000ull * i + 2,
		.kstack = (int)(i % 3) - 1,
		.flags = i % 5,
	};
}

static unsigned index_of(const struct unw_count_key *k)
{
	return k->tid - 1000;
}

static void on_count(void *ctx, const struct unw_count_key *key, const struct unw_count *grown)
{
	struct handed *h = ctx;
	unsigned i = index_of(key);

	CHECK(i < KEYS && key->ustack == 0x1000ull * i + 2);
	CHECK(grown->count || grown->ns);
	if (i >= KEYS)
		return;
	h->count[i] += grown->count;
	h->ns[i] += grown->ns;
	h->calls++;
}

/* What BPF's count_add does: the key's count (and time) grows, the key added when new. */
static void count_add(unsigned i, uint64_t n, uint64_t ns)
{
	struct unw_count_key k = key_of(i);
	struct unw_count v = {};

	if (bpf_map_lookup_elem(fd, &k, &v) == 0) {
		v.count += n;
		v.ns += ns;
	} else {
		v = (struct unw_count){ .count = n, .ns = ns };
	}
	CHECK(bpf_map_update_elem(fd, &k, &v, BPF_ANY) == 0);
}

static bool in_map(unsigned i)
{
	struct unw_count_key k = key_of(i);
	struct unw_count v;

	return bpf_map_lookup_elem(fd, &k, &v) == 0;
}

static int new_map(void)
{
	return bpf_map_create(BPF_MAP_TYPE_HASH, "counts", sizeof(struct unw_count_key),
			      sizeof(struct unw_count), 2 * KEYS, NULL);
}

static void test_growth_and_idle_keys(void)
{
	struct count_ledger *l = count_ledger__new();
	struct handed *h = calloc(1, sizeof(*h));
	uint64_t deleted = 9;

	CHECK(l && h);
	if (!l || !h)
		goto cleanup;
	count_add(0, 5, 0);
	count_add(1, 3, 0);
	count_add(2, 1, 700);
	CHECK_EQ_INT(count_ledger__drain(l, fd, false, on_count, h, &deleted), 0);
	CHECK_EQ_INT(deleted, 0);
	CHECK_EQ_INT(h->count[0], 5);
	CHECK_EQ_INT(h->count[1], 3);
	CHECK_EQ_INT(h->ns[2], 700);
	CHECK_EQ_INT(count_ledger__keys(l), 3);

	/* 0 and 2 grow, 1 does not: it goes, the others stay. */
	count_add(0, 4, 0);
	count_add(2, 0, 50);
	h->calls = 0;
	CHECK_EQ_INT(count_ledger__drain(l, fd, false, on_count, h, &deleted), 0);
	CHECK_EQ_INT(h->calls, 2);
	CHECK_EQ_INT(deleted, 1);
	CHECK_EQ_INT(h->count[0], 9);
	CHECK_EQ_INT(h->count[1], 3);
	CHECK_EQ_INT(h->ns[2], 750);
	CHECK(in_map(0) && !in_map(1) && in_map(2));
	CHECK_EQ_INT(count_ledger__keys(l), 2);

	/* Deleted behind the ledger's back and added again: its whole new count. */
	struct unw_count_key k0 = key_of(0);
	CHECK(bpf_map_delete_elem(fd, &k0) == 0);
	count_add(0, 2, 0);
	CHECK_EQ_INT(count_ledger__drain(l, fd, false, on_count, h, &deleted), 0);
	CHECK_EQ_INT(h->count[0], 11);

	/* A flush hands on the growth and empties the map and the ledger. */
	count_add(2, 1, 0);
	CHECK_EQ_INT(count_ledger__drain(l, fd, true, on_count, h, &deleted), 0);
	CHECK_EQ_INT(h->count[2], 2);
	CHECK_EQ_INT(deleted, 2);
	CHECK(!in_map(0) && !in_map(2));
	CHECK_EQ_INT(count_ledger__keys(l), 0);

	/* Counted again after the flush: from nothing. */
	count_add(2, 6, 0);
	CHECK_EQ_INT(count_ledger__drain(l, fd, false, on_count, h, &deleted), 0);
	CHECK_EQ_INT(h->count[2], 8);
	CHECK_EQ_INT(count_ledger__drain(l, fd, true, on_count, h, &deleted), 0);
cleanup:
	count_ledger__free(l);
	free(h);
}

/* Random rounds of counts and drains over KEYS keys: nothing lost, nothing twice. */
static void test_random_rounds(void)
{
	struct count_ledger *l = count_ledger__new();
	struct handed *h = calloc(1, sizeof(*h));
	uint64_t *counted = calloc(KEYS, sizeof(*counted)), in_map_keys = 0;
	unsigned seed = 12345, mismatches = 0;

	CHECK(l && h && counted);
	if (!l || !h || !counted)
		goto cleanup;
	for (int round = 0; round < 60; round++) {
		/* A few hot keys every round, a spread of others now and then. */
		for (int j = 0; j < 400; j++) {
			unsigned i = rand_r(&seed) % (round % 4 ? 64 : KEYS);
			uint64_t n = 1 + rand_r(&seed) % 3;

			in_map_keys += !in_map(i);
			count_add(i, n, 0);
			counted[i] += n;
		}
		uint64_t deleted = 0;
		bool flush = rand_r(&seed) % 7 == 0;

		CHECK_EQ_INT(count_ledger__drain(l, fd, flush, on_count, h, &deleted), 0);
		in_map_keys -= deleted;
		if (flush)
			CHECK_EQ_INT(in_map_keys, 0);
		CHECK_EQ_INT(count_ledger__keys(l), in_map_keys);
	}
	uint64_t deleted = 0;

	CHECK_EQ_INT(count_ledger__drain(l, fd, true, on_count, h, &deleted), 0);
	for (unsigned i = 0; i < KEYS; i++)
		mismatches += h->count[i] != counted[i];
	CHECK_EQ_INT(mismatches, 0);
cleanup:
	count_ledger__free(l);
	free(h);
	free(counted);
}

int main(void)
{
	if (geteuid() != 0)
		return skip_or_fail("needs root for BPF maps");
	fd = new_map();
	if (fd < 0)
		return skip_or_fail("cannot create a BPF hash map");
	RUN(test_growth_and_idle_keys);
	RUN(test_random_rounds);
	close(fd);
	return test_summary();
}
