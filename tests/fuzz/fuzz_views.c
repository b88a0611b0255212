// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report views over a fuzzed profile: filter, top (both sorts), tree,
 * diff, and the folded and pprof writers, with the pprof output read back.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile/folded.h"
#include "core/util/gzip.h"
#include "core/util/log.h"
#include "core/profile/pprof_reader.h"
#include "core/profile/pprof_writer.h"
#include "core/profile/profile.h"
#include "core/profile/report.h"
#include "core/profile/report_diff.h"
#include "fuzz_views.h"

/* A broken invariant is a finding: abort so that libFuzzer keeps the input. */
#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                 \
		}                                                                                \
	} while (0)

/* Tree nodes visited at most: a deep tree is walked, a huge one only in part. */
#define MAX_NODES 100000

/* Nodes still to visit, grown on demand: most trees are small. */
struct node_stack {
	const struct report_node **n;
	size_t nr, cap;
};

static void node_stack__push(struct node_stack *st, const struct report_node *n)
{
	if (st->nr == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 64;
		const struct report_node **tmp;

		if (cap > MAX_NODES)
			return;
		tmp = realloc(st->n, cap * sizeof(*tmp));
		if (!tmp)
			return;
		st->n = tmp;
		st->cap = cap;
	}
	st->n[st->nr++] = n;
}

/* Every node's total is its self count plus its children's totals, children largest first. */
static void check_tree(const struct report *r)
{
	struct node_stack st = {};
	size_t visited = 0;

	CHECK(report__root(r)->total == report__total(r));
	node_stack__push(&st, report__root(r));
	while (st.nr && visited++ < MAX_NODES) {
		const struct report_node *n = st.n[--st.nr], *c, *prev = NULL;
		uint64_t sum = n->self;

		for (uint32_t i = 0; (c = report__child(r, n, i)); i++) {
			CHECK(report__func_name(r, c->func));
			CHECK(c->self <= c->total);
			CHECK(!prev || prev->total >= c->total);
			sum += c->total;
			prev = c;
			node_stack__push(&st, c);
		}
		CHECK(sum == n->total);
	}
	free(st.n);
}

/* Functions in both sorts: the order is what the sort says, every name is there. */
static void check_top(struct report *r)
{
	uint64_t self = 0;

	report__sort(r, REPORT_SORT_SELF);
	for (size_t i = 0; i < report__nr_funcs(r); i++) {
		const struct report_func *f = report__func(r, i);

		CHECK(f && f->name && f->self <= f->total);
		CHECK(i == 0 || report__func(r, i - 1)->self >= f->self);
		self += f->self;
	}
	CHECK(!report__func(r, report__nr_funcs(r)));
	report__sort(r, REPORT_SORT_TOTAL);
	for (size_t i = 1; i < report__nr_funcs(r); i++)
		CHECK(report__func(r, i - 1)->total >= report__func(r, i)->total);
	/* the root's own samples (no frame at all) are no function's */
	CHECK(self + report__root(r)->self == report__total(r));
}

static void check_diff(const struct report *base, const struct report *cur)
{
	struct report_diff_opts opts = { .base_period_ns = 1000000, .period_ns = 10000000 };
	struct report_diff *d = report_diff__new(base, cur, &opts);

	if (!d)
		return;
	CHECK(d->nr >= report__nr_funcs(base) && d->nr >= report__nr_funcs(cur));
	CHECK(d->nr <= report__nr_funcs(base) + report__nr_funcs(cur));
	for (size_t i = 1; i < d->nr; i++)
		CHECK(d->rows[i - 1].delta_total_time >= d->rows[i].delta_total_time);
	for (size_t i = 0; i < d->nr; i++)
		CHECK(d->rows[i].p_increase >= 0 && d->rows[i].p_increase <= 1 &&
		      d->rows[i].p_decrease >= 0 && d->rows[i].p_decrease <= 1);
	report_diff__exceeds(d, 0.5);
	report_diff__detectable(d);
	report_diff__free(d);
}

/* The filtered profile written as pprof and read back keeps every sample. */
static void check_pprof_round_trip(const struct profile *p)
{
	struct pprof_writer_opts opts = { .meta.period_ns = 1000000 };
	struct pprof_meta meta;
	struct profile *back = NULL;
	char *buf = NULL, *raw = NULL;
	size_t len = 0, raw_len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return;
	err = pprof_writer__write(f, p, &opts);
	if (fclose(f) || err)
		goto cleanup;
	CHECK(gzip__decompress(buf, len, FUZZ_GUNZIP_MAX << 4, &raw, &raw_len) == 0);
	back = profile__new();
	if (!back)
		goto cleanup;
	CHECK(pprof_reader__decode(raw, raw_len, "round-trip", back, &meta) == 0);
	CHECK(profile__total(back) == profile__total(p));
cleanup:
	profile__free(back);
	free(raw);
	free(buf);
}

static void write_folded(const struct profile *p, uint8_t bits)
{
	struct folded_opts opts = { .pid = bits & 1, .tid = bits & 2, .kernel = bits & 4 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	folded__write(f, p, &opts);
	fclose(f);
	free(buf);
}

void fuzz_views(const struct profile *p, const uint8_t *data, size_t size)
{
	uint8_t bits = size ? data[size - 1] : 0;
	struct report_filter filter = { .no_kernel = bits & 1 };
	const struct profile_sample *first = profile__sample(p, 0);
	struct report *all = NULL, *some = NULL;
	struct profile *fp = NULL;

	/* The filters of report -p, -c and --no-kernel, on what the first sample holds. */
	if (first && (bits & 2)) {
		filter.has_pid = true;
		filter.pid = first->pid;
	}
	if (first && (bits & 4))
		filter.comm = first->comm;
	fp = report__filter(p, &filter);
	if (!fp)
		return;
	all = report__new_by(p, false);
	some = report__new_by(fp, false);
	if (!all || !some)
		goto cleanup;
	CHECK(report__total(all) == profile__total(p));
	CHECK(report__total(some) == profile__total(fp));
	check_top(some);
	check_tree(some);
	check_diff(all, some);
	check_diff(some, all);
	write_folded(fp, bits >> 3);
	/* Compressing costs more than all the rest: half the inputs, chosen by the fuzzer. */
	if (bits & 0x80)
		check_pprof_round_trip(fp);
cleanup:
	report__free(some);
	report__free(all);
	profile__free(fp);
}

void fuzz_profile_input(const uint8_t *data, size_t size, fuzz_reader_fn read)
{
	struct profile *p = NULL;
	size_t raw_len = size;
	char *raw = NULL;
	char *copy;

	log_level = -1;
	copy = malloc(size ? size : 1);
	if (!copy)
		return;
	memcpy(copy, data, size);
	if (gzip__has_magic(copy, size) &&
	    gzip__decompress(copy, size, FUZZ_GUNZIP_MAX, &raw, &raw_len))
		goto cleanup;
	p = profile__new();
	if (p && read(raw ? raw : copy, raw_len, p) == 0)
		fuzz_views(p, data, size);
cleanup:
	profile__free(p);
	free(raw);
	free(copy);
}
