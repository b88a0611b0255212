// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compact encoder (core/unwind/encoder.c) and the BPF lookup over
 * what it writes: tables are packed as record packs them, encoded into
 * shards, a page map and a rule dictionary held here, and then read back two
 * ways, both of which must give the builder's table again: decoding every
 * page, and the lookup bpf/unwind_step.h runs in BPF, compiled here as plain
 * C, at every row's pc, the pc before it and every page boundary. On
 * synthetic tables (page boundaries, empty pages, a function spanning pages,
 * a table split between shards, the last row) and on real files: the fixtures
 * and the system's libraries.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/elf/elf_file.h"
#include "core/unwind/shards.h"
#include "core/unwind/unwind_table.h"
#include "core/unwind/encoder.h"

/* The shards, as BPF reads them: rows of nr_shards x UNW_SHARD_ROWS. */
struct maps {
	uint32_t *rows;
	size_t nr_shards;
	struct unw_rule *rules;
	struct unw_page *pages;
};

/* Row i of a shard, read as BPF reads it: from the 8-byte value holding it. */
static int maps_row(const void *shard, uint32_t i, uint32_t *row);
#define UNW_ROW_READ(shard, i, row) maps_row((shard), (i), (row))
#include "bpf/unwind_step.h"

static int maps_row(const void *shard, uint32_t i, uint32_t *row)
{
	const uint64_t *values = shard;

	if (i >= UNW_SHARD_ROWS)
		return -1;
	*row = unw_row__of_value(values[i / 2], i);
	return 0;
}

/* The rule BPF finds for table pc key, or NULL: exec_rule and page_rule of bpf/native.bpf.h. */
static const struct unw_rule *lookup(const struct maps *m, const struct unw_exec *e, uint32_t key)
{
	const struct unw_page *pg;
	uint32_t page = 0;
	long rule;

	switch (unw_exec__page(e, key, &page)) {
	case UNW_PAGE_IN:
		break;
	case UNW_PAGE_AFTER:
		return e->last_rule == UNW_RULE_NONE ? NULL : &m->rules[e->last_rule];
	default:
		return NULL;
	}
	pg = &m->pages[page];
	rule = pg->rule;
	if (pg->nr) {
		if (pg->row / UNW_SHARD_ROWS >= m->nr_shards)
			return NULL;
		rule = unw_page__rule(&m->rows[pg->row / UNW_SHARD_ROWS * UNW_SHARD_ROWS],
				      pg->row % UNW_SHARD_ROWS, pg->nr, rule, key);
	}
	return rule <= UNW_RULE_NONE ? NULL : &m->rules[rule];
}

static bool same_rule(const struct unw_rule *w, const struct table_row *r)
{
	return w && w->cfa_off == r->cfa_off && w->fp_off == r->fp_off &&
	       w->aux_off == r->aux_off && w->cfa == r->cfa && w->fp == r->fp && w->ra == r->ra &&
	       w->unsupported == r->unsupported;
}

/* Whether the lookup of key gives what the table says, over its placed rows. */
static int check_key(const struct maps *m, const struct unw_exec *e, const struct unwind_table *t,
		     size_t placed, uint32_t key)
{
	/* What the builder's own lookup finds: what BPF's must find. */
	const struct table_row *want = unwind_table__lookup(t, t->base + key);
	const struct unw_rule *got = lookup(m, e, key);

	/* From the page where a table is cut on: no rule (frame pointers). */
	if (placed < t->nr_rows && placed &&
	    key >> UNW_PAGE_SHIFT >= t->rows[placed].pc >> UNW_PAGE_SHIFT)
		want = NULL;
	if (!want)
		return got == NULL;
	return same_rule(got, want);
}

/*
 * Every row of the pages of e, decoded: pcs and rules, in order, equal to
 * the first placed rows of t.
 */
static int decode_equals(const struct maps *m, const struct unw_exec *e,
			 const struct unwind_table *t, size_t placed)
{
	size_t next = 0;

	for (uint32_t p = 0; p < e->nr_pages; p++) {
		const struct unw_page *pg = &m->pages[e->page + p];

		for (uint32_t i = 0; i < pg->nr; i++, next++) {
			uint32_t at = pg->row + i, row;
			uint32_t pc = (e->first_page + p) << UNW_PAGE_SHIFT;

			if (next >= placed ||
			    maps_row(&m->rows[at / UNW_SHARD_ROWS * UNW_SHARD_ROWS],
				     at % UNW_SHARD_ROWS, &row))
				return 0;
			pc |= row >> UNW_ROW_RULE_BITS;
			if (pc != t->rows[next].pc ||
			    !same_rule(&m->rules[unw_row__rule(row)], &t->rows[next]))
				return 0;
		}
	}
	return next == placed;
}

struct packed {
	struct encoder *enc;
	struct shards *packer;
	struct maps m;
};

static void packed_init(struct packed *pk, size_t nr_shards, size_t max_shards)
{
	const struct encoder_geometry *g;

	pk->enc = encoder__new(ENCODER_COMPACT);
	g = encoder__geometry(pk->enc);
	pk->packer = shards__new(&(struct shards_opts){ .shard_rows = g->shard_rows,
							.max_shards = max_shards,
							.split_shift = g->split_shift });
	pk->m.nr_shards = nr_shards;
	pk->m.rows = calloc(nr_shards * UNW_SHARD_ROWS, sizeof(uint32_t));
	pk->m.rules = calloc(UNW_RULES_MAX, sizeof(*pk->m.rules));
	pk->m.pages = calloc(UNW_PAGES_MAX, sizeof(*pk->m.pages));
	encoder__set_maps(pk->enc, pk->m.rules, pk->m.pages);
}

static void packed_fini(struct packed *pk)
{
	shards__free(pk->packer);
	encoder__free(pk->enc);
	free(pk->m.rows);
	free(pk->m.rules);
	free(pk->m.pages);
}

/* Packs, encodes and indexes t as record uploads it; its placement, or NULL. */
static const struct shards_placement *pack(struct packed *pk, const char *key,
					   const struct unwind_table *t, struct unw_exec *e)
{
	const struct shards_placement *pl = shards__add_table(pk->packer, key, strlen(key), t);

	if (!pl)
		return NULL;
	for (size_t i = 0; i < pl->nr_chunks; i++) {
		const struct shards_chunk *c = &pl->chunks[i];

		if (c->shard >= pk->m.nr_shards ||
		    encoder__rows(pk->enc, t, c, &pk->m.rows[c->shard * UNW_SHARD_ROWS]))
			return NULL;
	}
	return encoder__index(pk->enc, pl, e) ? NULL : pl;
}

/*
 * Looks every row's pc up, the pc before it, the first and last pc of every
 * page the table spans and a page past it; and decodes every page. The
 * number of mismatches.
 */
static int check_table(const struct packed *pk, const struct unw_exec *e,
		       const struct shards_placement *pl)
{
	const struct unwind_table *t = pl->table;
	uint32_t first, last;
	int bad = 0;

	if (!t->nr_rows)
		return 0;
	for (size_t i = 0; i < t->nr_rows; i++) {
		bad += !check_key(&pk->m, e, t, pl->rows_placed, t->rows[i].pc);
		if (t->rows[i].pc)
			bad += !check_key(&pk->m, e, t, pl->rows_placed, t->rows[i].pc - 1);
	}
	first = t->rows[0].pc >> UNW_PAGE_SHIFT;
	last = t->rows[t->nr_rows - 1].pc >> UNW_PAGE_SHIFT;
	for (uint64_t p = first ? first - 1 : 0; p <= (uint64_t)last + 1 && p < 0x10000; p++) {
		bad += !check_key(&pk->m, e, t, pl->rows_placed, p << UNW_PAGE_SHIFT);
		bad += !check_key(&pk->m, e, t, pl->rows_placed,
				  (p << UNW_PAGE_SHIFT) + UNW_PAGE_BYTES - 1);
	}
	bad += !decode_equals(&pk->m, e, t, pl->rows_placed);
	return bad;
}

static struct table_row row_at(uint32_t pc, int32_t cfa_off)
{
	return (struct table_row){ .pc = pc, .cfa = UNW_CFA_SP, .cfa_off = cfa_off };
}

static struct unwind_table *table_of(const struct table_row *rows, size_t nr)
{
	struct unwind_table *t = calloc(1, sizeof(*t));

	t->rows = calloc(nr, sizeof(*rows));
	memcpy(t->rows, rows, nr * sizeof(*rows));
	t->nr_rows = nr;
	return t;
}

static void table_free(struct unwind_table *t)
{
	free(t->rows);
	free(t);
}

/* Every field of a rule, the extremes of each offset, unsupported rules and their reasons. */
static const struct table_row odd_rows[] = {
	{ .pc = 0x10, .cfa = UNW_CFA_SP, .cfa_off = 8, .ra = UNW_RA_AT_CFA },
	{ .pc = 0x11, .cfa = UNW_CFA_FP, .cfa_off = INT32_MIN, .fp = UNW_FP_AT_CFA, .fp_off = -16 },
	{ .pc = 0x17, .cfa = UNW_CFA_DEREF_SP, .cfa_off = INT32_MAX, .aux_off = INT16_MIN },
	{ .pc = 0x19, .cfa = UNW_CFA_PLT, .cfa_off = 8, .aux_off = 11 },
	{ .pc = 0x20,
	  .cfa = UNW_CFA_SIGNAL,
	  .cfa_off = 160,
	  .fp = UNW_FP_AT_SP,
	  .fp_off = INT16_MAX,
	  .ra = UNW_RA_AT_SP,
	  .aux_off = 168 },
	{ .pc = 0x30,
	  .cfa = UNW_CFA_UNSUPPORTED,
	  .cfa_off = UNW_UNSUP_CFA_EXPRESSION,
	  .fp = UNW_FP_UNSUPPORTED,
	  .fp_off = UNW_UNSUP_FP_RULE,
	  .ra = UNW_RA_UNSUPPORTED,
	  .aux_off = UNW_UNSUP_RA_RULE,
	  .unsupported = UNW_UNSUP_CFA_EXPRESSION },
	{ .pc = 0x40, .cfa = UNW_CFA_SP, .ra = UNW_RA_UNDEFINED },
	{ .pc = 0xffff, .cfa = UNW_CFA_SP, .cfa_off = 8 },   /* the last pc of page 0 */
	{ .pc = 0x10000, .cfa = UNW_CFA_SP, .cfa_off = 16 }, /* the first of page 1 */
	/* a function spanning pages 2..5: pages 3 and 4 have no row */
	{ .pc = 0x2fff0, .cfa = UNW_CFA_SP, .cfa_off = 24 },
	{ .pc = 0x5000f, .cfa = UNW_CFA_SP, .cfa_off = 32 },
	{ .pc = 0x50010, .cfa = UNW_CFA_END }, /* the END that closes the table */
};

static void test_geometry(void)
{
	struct encoder *enc = encoder__new(ENCODER_COMPACT);
	const struct encoder_geometry *g = encoder__geometry(enc);
	struct unwind_table *t = table_of(odd_rows, ARRAY_SIZE(odd_rows));
	struct encoder_cost cost;

	CHECK_EQ_STR(g->name, "compact");
	CHECK_EQ_INT(g->row_bytes, 4);
	CHECK_EQ_INT(g->shard_rows, UNW_SHARD_ROWS);
	CHECK_EQ_INT(g->shard_bytes, (uint64_t)g->shard_value_size * g->shard_entries);
	CHECK_EQ_INT(g->shard_bytes, g->shard_rows * g->row_bytes);
	CHECK_EQ_INT(g->split_shift, UNW_PAGE_SHIFT);
	CHECK_EQ_INT(g->index_bytes, sizeof(struct unw_exec));
	CHECK_EQ_INT(encoder__rows_bytes(enc, 3), 3 * g->row_bytes);
	/* Alone: 12 rows, pages 0..5, 11 distinct rules (0x10 and 0xffff share one). */
	CHECK_EQ_INT(encoder__table_cost(enc, t, &cost), 0);
	CHECK_EQ_INT(cost.rows, 12);
	CHECK_EQ_INT(cost.pages, 6);
	CHECK_EQ_INT(cost.rules, 11);
	CHECK_EQ_INT(cost.bytes, 12 * 4 + 6 * 8 + 11 * 16);
	encoder__free(enc);
	table_free(t);
	CHECK(encoder__new((enum encoder_format)99) == NULL);
}

/* Page boundaries, empty pages, a function spanning pages, extremes, the last row. */
static void test_odd_rows(void)
{
	struct unwind_table *t = table_of(odd_rows, ARRAY_SIZE(odd_rows));
	struct packed pk;
	struct unw_exec e;
	const struct shards_placement *pl;
	struct encoder_cost cost;

	packed_init(&pk, 1, 0);
	pl = pack(&pk, "odd", t, &e);
	CHECK(pl != NULL);
	if (!pl)
		goto out;
	CHECK_EQ_INT(e.first_page, 0);
	CHECK_EQ_INT(e.nr_pages, 6);
	CHECK_EQ_INT(pk.m.pages[e.page + 3].nr, 0);
	CHECK_EQ_INT(pk.m.pages[e.page + 3].rule, pk.m.pages[e.page + 4].rule);
	CHECK_EQ_INT(check_table(&pk, &e, pl), 0);
	/* Before the first row: no rule; past the last page: the END row's. */
	CHECK(lookup(&pk.m, &e, 0xf) == NULL);
	CHECK(lookup(&pk.m, &e, 0x70000) != NULL && lookup(&pk.m, &e, 0x70000)->cfa == UNW_CFA_END);
	/* In an empty page: the rule of the last row before it. */
	CHECK(same_rule(lookup(&pk.m, &e, 0x40000), &odd_rows[9]));
	encoder__cost(pk.enc, pl->rows_placed, &cost);
	CHECK_EQ_INT(cost.rules, 11 + 2); /* with no rule and the full rule */
	CHECK_EQ_INT(cost.pages, 6);
out:
	packed_fini(&pk);
	table_free(t);
}

/* n rows, 3 to 13 bytes apart, each of one of 40 rules. */
static struct unwind_table *table_synthetic(size_t n, uint32_t pc)
{
	struct unwind_table *t = calloc(1, sizeof(*t));

	t->rows = calloc(n, sizeof(*t->rows));
	for (size_t i = 0; i < n; i++) {
		t->rows[i] = row_at(pc, 8 * (int32_t)(i % 40));
		pc += 3 + (i * 7919) % 11;
	}
	t->nr_rows = n;
	return t;
}

/*
 * What the encoding says a table takes is what a pass of its own over the
 * rows says (encoder__table_cost()), or -EAGAIN; 1 when both say it alike.
 */
static int encoded_cost_equals(const struct encoder *enc, const struct unwind_table *t)
{
	struct encoder_cost encoded, counted;
	int err = encoder__encoded_cost(enc, t, &encoded);

	if (err)
		return err;
	if (encoder__table_cost(enc, t, &counted))
		return -ENOMEM;
	return encoded.rows == counted.rows && encoded.pages == counted.pages &&
	       encoded.rules == counted.rules && encoded.bytes == counted.bytes;
}

/*
 * A table split between two shards, one shared dictionary with a table
 * packed before it, and a table cut by --max-shards: its placed pages are
 * looked up, its pcs past them have no rule.
 */
static void test_shared_and_split(void)
{
	struct unwind_table *pad = table_synthetic(200000, 0x1000);
	struct unwind_table *t = table_synthetic(150000, 0x400000);
	struct packed pk;
	struct unw_exec ep, et;
	const struct shards_placement *pp, *pt;
	struct encoder_cost cost;

	packed_init(&pk, 2, 2);
	pp = pack(&pk, "pad", pad, &ep);
	pt = pack(&pk, "t", t, &et);
	CHECK(pp && pt);
	if (!pp || !pt)
		goto out;
	CHECK(pt->nr_chunks == 2 && pt->chunks[0].shard == 0 && pt->chunks[1].shard == 1);
	CHECK_EQ_INT(pt->rows_unplaced, 0);
	CHECK_EQ_INT(check_table(&pk, &ep, pp), 0);
	CHECK_EQ_INT(check_table(&pk, &et, pt), 0);
	/* Its two chunks counted as one table; pad's count is gone with t's first chunk. */
	CHECK_EQ_INT(encoded_cost_equals(pk.enc, t), 1);
	CHECK_EQ_INT(encoded_cost_equals(pk.enc, pad), -EAGAIN);
	encoder__cost(pk.enc, pp->rows_placed + pt->rows_placed, &cost);
	CHECK_EQ_INT(cost.rules, 40 + 2);
	CHECK(cost.bytes < 4.1 * cost.rows);
	packed_fini(&pk);

	/* One shard: t is cut where a page ends, and what is left out has no rule. */
	packed_init(&pk, 1, 1);
	pp = pack(&pk, "pad", pad, &ep);
	pt = pack(&pk, "t", t, &et);
	CHECK(pp && pt);
	if (!pp || !pt)
		goto out;
	CHECK(pt->rows_placed > 0 && pt->rows_unplaced > 0);
	CHECK_EQ_INT(encoded_cost_equals(pk.enc, t), -EAGAIN); /* rows left out */
	CHECK_EQ_INT(et.last_rule, UNW_RULE_NONE);
	CHECK_EQ_INT(check_table(&pk, &et, pt), 0);
out:
	packed_fini(&pk);
	table_free(pad);
	table_free(t);
}

/* A full dictionary: rows past it get the full rule, unsupported, counted. */
static void test_dictionary_full(void)
{
	struct unwind_table *t = calloc(1, sizeof(*t));
	size_t n = UNW_RULES_MAX + 100;
	const struct shards_placement *pl;
	struct encoder_cost cost;
	const struct unw_rule *r;
	struct packed pk;
	struct unw_exec e;

	t->rows = calloc(n, sizeof(*t->rows));
	for (size_t i = 0; i < n; i++)
		t->rows[i] = row_at(16 * i, 8 * i);
	t->nr_rows = n;
	packed_init(&pk, 1, 0);
	pl = pack(&pk, "many", t, &e);
	CHECK(pl != NULL);
	encoder__cost(pk.enc, n, &cost);
	CHECK_EQ_INT(cost.rules, UNW_RULES_MAX);
	CHECK_EQ_INT(cost.rows_rules_full, 102);
	CHECK_EQ_INT(encoded_cost_equals(pk.enc, t), -EAGAIN); /* rows found it full */
	CHECK_EQ_INT(encoder__table_cost(pk.enc, t, &cost), 0);
	CHECK_EQ_INT(cost.rules, UNW_RULES_MAX);
	r = lookup(&pk.m, &e, 16 * (n - 1));
	CHECK(r && r->cfa == UNW_CFA_UNSUPPORTED && r->unsupported == UNW_UNSUP_RULES_FULL);
	CHECK(!unw_rule__usable(r));
	CHECK(same_rule(lookup(&pk.m, &e, 16 * 100), &t->rows[100]));
	packed_fini(&pk);
	table_free(t);
}

/* Bad chunks are refused, and a full page map is said. */
static void test_refused(void)
{
	struct unwind_table *t = table_of(odd_rows, ARRAY_SIZE(odd_rows));
	struct shards_chunk c = { .shard = 0, .low = 0, .high = ARRAY_SIZE(odd_rows) + 1 };
	struct packed pk;
	struct unw_exec e;

	packed_init(&pk, 1, 0);
	CHECK_EQ_INT(encoder__rows(pk.enc, t, &c, pk.m.rows), -EINVAL);
	c.high = UNW_SHARD_ROWS + 1;
	c.low = UNW_SHARD_ROWS - 1;
	CHECK_EQ_INT(encoder__rows(pk.enc, t, &c, pk.m.rows), -EINVAL);
	packed_fini(&pk);
	/* A table spanning every page of 4 GiB fills the page map. */
	t->rows[t->nr_rows - 1].pc = UINT32_MAX;
	packed_init(&pk, 1, 0);
	CHECK(pack(&pk, "wide", t, &e) != NULL);
	t->rows[t->nr_rows - 1].pc = 0x50010;
	CHECK(pack(&pk, "more", t, &e) == NULL); /* ENOSPC */
	packed_fini(&pk);
	table_free(t);
}

/* A table built from an ELF file round-trips; false when the file cannot be read. */
static bool check_file(const char *path, size_t *rows)
{
	struct elf_file *elf = elf_file__open(path);
	struct unwind_table *t;
	const struct shards_placement *pl;
	struct packed pk;
	struct unw_exec e;

	if (!elf)
		return false;
	t = unwind_table__build(elf, NULL);
	if (!t) {
		elf_file__free(elf);
		return false;
	}
	packed_init(&pk, (t->nr_rows + UNW_SHARD_ROWS - 1) / UNW_SHARD_ROWS + 1, 0);
	pl = pack(&pk, path, t, &e);
	CHECK(pl != NULL);
	if (pl) {
		int bad = check_table(&pk, &e, pl);

		if (bad)
			fprintf(stderr, "%s: %d lookups differ from the table\n", path, bad);
		CHECK_EQ_INT(bad, 0);
		CHECK_EQ_INT(pl->rows_unplaced, 0);
		CHECK_EQ_INT(encoded_cost_equals(pk.enc, t), 1);
	}
	*rows += t->nr_rows;
	packed_fini(&pk);
	unwind_table__free(t);
	elf_file__free(elf);
	return true;
}

/* The fixtures (UNWPROF_FIXTURES) and the system's libraries. */
static void test_real_files(void)
{
	static const char *const libs[] = {
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
		"/proc/self/exe",
	};
	const char *dir = getenv("UNWPROF_FIXTURES");
	size_t files = 0, rows = 0;
	struct dirent *de;
	DIR *d = dir ? opendir(dir) : NULL;

	CHECK(d != NULL);
	while (d && (de = readdir(d))) {
		char path[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		files += check_file(path, &rows);
	}
	if (d)
		closedir(d);
	for (size_t i = 0; i < ARRAY_SIZE(libs); i++)
		files += check_file(libs[i], &rows);
	CHECK(files >= 8);
	CHECK(rows > 10000);
}

int main(void)
{
	RUN(test_geometry);
	RUN(test_odd_rows);
	RUN(test_shared_and_split);
	RUN(test_dictionary_full);
	RUN(test_refused);
	RUN(test_real_files);
	return test_summary();
}
