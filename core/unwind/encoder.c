// SPDX-License-Identifier: GPL-2.0-only
/* Wire formats of the unwind tables: the builder's rows into what BPF reads. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../util/big_alloc.h"
#include "../util/hashmap.h"
#include "shards.h"
#include "unwind_table.h"
#include "encoder.h"
#include "../../bpf/unwind_step.h"

struct encoder_ops {
	struct encoder_geometry geometry;
	int (*rows)(struct encoder *enc, const struct unwind_table *t, const struct shards_chunk *c,
		    void *shard);
	int (*index)(struct encoder *enc, const struct shards_placement *pl, void *value);
};

/*
 * Rules by index, [0, nr), and their indexes by rule: open addressing over
 * slots that hold a rule's two words, compared in place. Not
 * util/hashmap.h's table, whose probes call a function to compare and read
 * the rule where it lies: this one is looked up at every row of a table,
 * twice for the rows BPF gets.
 */
struct rule_slot {
	uint64_t w[2];
	uint32_t index; /* + 1; 0: an empty slot */
};

struct rule_dict {
	struct unw_rule *rules;
	size_t nr;
	struct rule_slot *slots;
	size_t cap; /* slots: a power of two, or 0 */
};

struct encoder {
	const struct encoder_ops *ops;
	/* The dictionary: rules in dict.rules, which are own_rules or BPF's map */
	struct rule_dict dict;
	/* The page map: pages [0, nr_pages) given to tables. */
	struct unw_page *pages;
	size_t nr_pages;
	/* Memory of its own until encoder__set_maps(). */
	struct unw_rule *own_rules;
	struct unw_page *own_pages;
	size_t own_rules_mapped, own_pages_mapped; /* util/big_alloc.h: few of them are used */
	uint64_t rows_rules_full;
	/* The indexes the rows of the table encoded last were given (encoder__encoded_cost()). */
	struct {
		const struct unwind_table *table;
		uint64_t rows;		  /* of its rows encoded */
		uint64_t rows_rules_full; /* the encoder's when its first row came */
		uint64_t rules;		  /* bits set */
		uint64_t bits[UNW_RULES_MAX / 64];
	} seen;
};

/* ---- compact: 4-byte rows, pages, one dictionary of rules ---- */

/* Field f lies as far from a row's cfa_off as from the start of a rule. */
#define ROW_RULE_SAME_PLACE(f)                                                  \
	(offsetof(struct table_row, f) - offsetof(struct table_row, cfa_off) == \
	 offsetof(struct unw_rule, f))

_Static_assert(sizeof(struct unw_rule) ==
			       sizeof(struct table_row) - offsetof(struct table_row, cfa_off) &&
		       ROW_RULE_SAME_PLACE(fp_off) && ROW_RULE_SAME_PLACE(aux_off) &&
		       ROW_RULE_SAME_PLACE(cfa) && ROW_RULE_SAME_PLACE(fp) &&
		       ROW_RULE_SAME_PLACE(ra) && ROW_RULE_SAME_PLACE(unsupported),
	       "the bytes of a row after its pc are a rule");

/*
 * A row's rule, copied whole: field by field, the narrow stores of the
 * fields and the loads of the two words rule_hash() reads would stall at
 * every row.
 */
static struct unw_rule rule_of(const struct table_row *r)
{
	struct unw_rule rule;

	memcpy(&rule, &r->cfa_off, sizeof(rule));
	return rule;
}

/* What rule UNW_RULE_FULL says: the dictionary was full when a row needed a place there. */
static const struct unw_rule rule_full = {
	.cfa = UNW_CFA_UNSUPPORTED,
	.fp = UNW_FP_UNSUPPORTED,
	.ra = UNW_RA_UNSUPPORTED,
	.unsupported = UNW_UNSUP_RULES_FULL,
};

/* A rule is two words: mixed, a row at a time of a million-row table. */
static uint64_t rule_hash(const struct unw_rule *r)
{
	uint64_t w[2];

	_Static_assert(sizeof(*r) == sizeof(w), "a rule is two words");
	memcpy(w, r, sizeof(w));
	return hash_u64(w[0] ^ w[1] * 0x9e3779b97f4a7c15ULL);
}

#define RULE_NOT_FOUND UINT32_MAX

/* The slot of rule r (hash: rule_hash(r)) in d: its own, or the empty one where it would go. */
static struct rule_slot *rule_dict__slot(const struct rule_dict *d, const struct unw_rule *r,
					 uint64_t hash)
{
	uint64_t w[2];
	size_t i = hash & (d->cap - 1);

	memcpy(w, r, sizeof(w));
	while (d->slots[i].index && (d->slots[i].w[0] != w[0] || d->slots[i].w[1] != w[1]))
		i = (i + 1) & (d->cap - 1);
	return &d->slots[i];
}

/* The index of rule r (hash: rule_hash(r)) in d, or RULE_NOT_FOUND. */
static uint32_t rule_dict__find(const struct rule_dict *d, const struct unw_rule *r, uint64_t hash)
{
	const struct rule_slot *s = d->cap ? rule_dict__slot(d, r, hash) : NULL;

	return s && s->index ? s->index - 1 : RULE_NOT_FOUND;
}

/* Twice the slots, at most half full then: every rule moved to its slot in the new ones. */
static int rule_dict__grow(struct rule_dict *d)
{
	struct rule_dict bigger = { .cap = d->cap ? d->cap * 2 : 1024 };

	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (size_t i = 0; i < d->cap; i++) {
		struct unw_rule r;

		if (!d->slots[i].index)
			continue;
		memcpy(&r, d->slots[i].w, sizeof(r));
		*rule_dict__slot(&bigger, &r, rule_hash(&r)) = d->slots[i];
	}
	free(d->slots);
	d->slots = bigger.slots;
	d->cap = bigger.cap;
	return 0;
}

/* Adds r, not there, at index d->nr: d->rules has room. */
static int rule_dict__add(struct rule_dict *d, const struct unw_rule *r, uint64_t hash)
{
	struct rule_slot *s;

	/* At most three quarters full: a probe ends soon at an empty slot. */
	if (4 * (d->nr + 1) > 3 * d->cap && rule_dict__grow(d))
		return -ENOMEM;
	s = rule_dict__slot(d, r, hash);
	memcpy(s->w, r, sizeof(s->w));
	s->index = (uint32_t)d->nr + 1;
	d->rules[d->nr++] = *r;
	return 0;
}

static void rule_dict__exit(struct rule_dict *d)
{
	free(d->slots);
	d->slots = NULL;
	d->cap = 0;
}

/*
 * The dictionary index of row r's rule, added when new; UNW_RULE_FULL when
 * there is no room (or no memory for its index).
 */
static uint32_t encoder__rule(struct encoder *enc, const struct table_row *row)
{
	struct unw_rule r = rule_of(row);
	uint64_t hash = rule_hash(&r);
	uint32_t i = rule_dict__find(&enc->dict, &r, hash);

	if (i != RULE_NOT_FOUND)
		return i;
	if (enc->dict.nr >= UNW_RULES_MAX || rule_dict__add(&enc->dict, &r, hash)) {
		enc->rows_rules_full++;
		return UNW_RULE_FULL;
	}
	return (uint32_t)enc->dict.nr - 1;
}

/* The rows of t are being encoded: a table's first chunk starts the count again. */
static void seen_start(struct encoder *enc, const struct unwind_table *t,
		       const struct shards_chunk *c)
{
	if (enc->seen.table == t && c->first_row)
		return;
	memset(&enc->seen, 0, sizeof(enc->seen));
	enc->seen.table = t;
	enc->seen.rows_rules_full = enc->rows_rules_full;
}

static void seen_mark(struct encoder *enc, uint32_t rule)
{
	uint64_t *word = &enc->seen.bits[rule / 64], bit = 1ULL << (rule % 64);

	enc->seen.rules += !(*word & bit);
	*word |= bit;
}

static int compact_rows(struct encoder *enc, const struct unwind_table *t,
			const struct shards_chunk *c, void *shard)
{
	const struct table_row *src;
	uint32_t *dst = shard;

	if (!t->rows || c->high > UNW_SHARD_ROWS || c->low > c->high ||
	    c->first_row + (c->high - c->low) > t->nr_rows)
		return -EINVAL;
	seen_start(enc, t, c);
	src = &t->rows[c->first_row];
	for (size_t i = 0; i < c->high - c->low; i++) {
		uint32_t rule = encoder__rule(enc, &src[i]);

		dst[c->low + i] = unw_row__make(src[i].pc, rule);
		seen_mark(enc, rule);
	}
	enc->seen.rows += c->high - c->low;
	return 0;
}

/* The rule of row r as encoder__rows() gave it: it is in the dictionary. */
static uint32_t encoder__known_rule(const struct encoder *enc, const struct table_row *row)
{
	struct unw_rule r = rule_of(row);
	uint32_t i = rule_dict__find(&enc->dict, &r, rule_hash(&r));

	return i != RULE_NOT_FOUND ? i : UNW_RULE_FULL;
}

/* Row first_row + i of a placement, counted across shards: where its chunk put it. */
static int64_t placed_row(const struct shards_placement *pl, size_t *chunk, size_t row)
{
	while (*chunk < pl->nr_chunks &&
	       row >= pl->chunks[*chunk].first_row +
			       (pl->chunks[*chunk].high - pl->chunks[*chunk].low))
		(*chunk)++;
	if (*chunk >= pl->nr_chunks || row < pl->chunks[*chunk].first_row)
		return -1;
	return (int64_t)pl->chunks[*chunk].shard * UNW_SHARD_ROWS + pl->chunks[*chunk].low +
	       (row - pl->chunks[*chunk].first_row);
}

/*
 * Fills pages[0, n) for table page first on: each page's rows, which the
 * chunks keep together, and the rule its first pcs inherit.
 */
static int compact_pages(const struct encoder *enc, const struct shards_placement *pl,
			 uint32_t first, struct unw_page *pages, size_t n)
{
	const struct unwind_table *t = pl->table;
	uint32_t inherited = UNW_RULE_NONE;
	size_t row = 0, chunk = 0;

	for (size_t p = 0; p < n; p++) {
		size_t from = row;
		int64_t at = -1;

		while (row < pl->rows_placed && (t->rows[row].pc >> UNW_PAGE_SHIFT) == first + p)
			row++;
		if (row - from > UINT16_MAX)
			return -E2BIG;
		if (row > from) {
			int64_t last;

			at = placed_row(pl, &chunk, from);
			last = placed_row(pl, &chunk, row - 1);
			/* The page's rows are one run of one shard. */
			if (at < 0 || last != at + (int64_t)(row - 1 - from) ||
			    at / UNW_SHARD_ROWS != last / UNW_SHARD_ROWS)
				return -EINVAL;
		}
		pages[p] = (struct unw_page){
			.row = at < 0 ? 0 : (uint32_t)at,
			.nr = row - from,
			.rule = inherited,
		};
		if (row > from)
			inherited = encoder__known_rule(enc, &t->rows[row - 1]);
	}
	return 0;
}

static int compact_index(struct encoder *enc, const struct shards_placement *pl, void *value)
{
	const struct unwind_table *t = pl->table;
	struct unw_exec *ex = value;
	uint32_t first, last;
	size_t n;
	int err;

	memset(ex, 0, sizeof(*ex));
	ex->last_rule = UNW_RULE_NONE;
	if (!pl->rows_placed)
		return 0;
	if (!t->rows || pl->rows_placed > t->nr_rows)
		return -EINVAL;
	first = t->rows[0].pc >> UNW_PAGE_SHIFT;
	last = t->rows[pl->rows_placed - 1].pc >> UNW_PAGE_SHIFT;
	/*
	 * Cut where a page starts: the pages before it inherit the last rule
	 * placed, the pcs from it on have none (frame pointers).
	 */
	if (pl->rows_unplaced)
		last = (t->rows[pl->rows_placed].pc >> UNW_PAGE_SHIFT) - 1;
	n = (size_t)last - first + 1;
	if (n > UNW_PAGES_MAX - enc->nr_pages)
		return -ENOSPC;
	err = compact_pages(enc, pl, first, &enc->pages[enc->nr_pages], n);
	if (err)
		return err;
	ex->page = enc->nr_pages;
	ex->nr_pages = n;
	ex->first_page = first;
	if (!pl->rows_unplaced)
		ex->last_rule = encoder__known_rule(enc, &t->rows[t->nr_rows - 1]);
	enc->nr_pages += n;
	return 0;
}

static const struct encoder_ops compact_ops = {
	.geometry = {
		.name = "compact",
		.row_bytes = sizeof(uint32_t),
		.shard_rows = UNW_SHARD_ROWS,
		.shard_bytes = UNW_SHARD_VALUES * sizeof(uint64_t),
		.shard_value_size = sizeof(uint64_t),
		.shard_entries = UNW_SHARD_VALUES,
		.max_chunks = 0,
		.split_shift = UNW_PAGE_SHIFT,
		.index_bytes = sizeof(struct unw_exec),
		.rule_bytes = sizeof(struct unw_rule),
		.max_rules = UNW_RULES_MAX,
		.page_bytes = sizeof(struct unw_page),
		.max_pages = UNW_PAGES_MAX,
	},
	.rows = compact_rows,
	.index = compact_index,
};

/* ---- the interface ---- */

static const struct encoder_ops *const formats[] = {
	[ENCODER_COMPACT] = &compact_ops,
};

struct encoder *encoder__new(enum encoder_format format)
{
	struct encoder *enc;

	if ((size_t)format >= ARRAY_SIZE(formats) || !formats[format]) {
		errno = EINVAL;
		return NULL;
	}
	enc = calloc(1, sizeof(*enc));
	if (!enc)
		return NULL;
	enc->ops = formats[format];
	enc->own_rules =
		big_alloc_sparse(UNW_RULES_MAX * sizeof(*enc->own_rules), &enc->own_rules_mapped);
	enc->own_pages =
		big_alloc_sparse(UNW_PAGES_MAX * sizeof(*enc->own_pages), &enc->own_pages_mapped);
	enc->dict.rules = enc->own_rules;
	enc->pages = enc->own_pages;
	/* Index 0 is no rule, never found: an END row's rule is all zeros too. */
	enc->dict.nr = UNW_RULE_NONE + 1;
	if (!enc->own_rules || !enc->own_pages ||
	    rule_dict__add(&enc->dict, &rule_full, rule_hash(&rule_full))) {
		encoder__free(enc);
		errno = ENOMEM;
		return NULL;
	}
	return enc;
}

void encoder__free(struct encoder *enc)
{
	if (!enc)
		return;
	big_free(enc->own_rules, enc->own_rules_mapped);
	big_free(enc->own_pages, enc->own_pages_mapped);
	rule_dict__exit(&enc->dict);
	free(enc);
}

void encoder__set_maps(struct encoder *enc, void *rules, void *pages)
{
	memcpy(rules, enc->dict.rules, enc->dict.nr * sizeof(*enc->dict.rules));
	memcpy(pages, enc->pages, enc->nr_pages * sizeof(*enc->pages));
	enc->dict.rules = rules;
	enc->pages = pages;
	big_free(enc->own_rules, enc->own_rules_mapped);
	big_free(enc->own_pages, enc->own_pages_mapped);
	enc->own_rules = NULL;
	enc->own_pages = NULL;
}

const struct encoder_geometry *encoder__geometry(const struct encoder *enc)
{
	return &enc->ops->geometry;
}

uint64_t encoder__rows_bytes(const struct encoder *enc, size_t nr_rows)
{
	return (uint64_t)nr_rows * enc->ops->geometry.row_bytes;
}

static void cost_total(const struct encoder_geometry *g, struct encoder_cost *c)
{
	c->bytes = c->rows * g->row_bytes + c->pages * g->page_bytes + c->rules * g->rule_bytes;
}

/* What t takes alone with rules distinct rules: its rows, its pages and those. */
static void table_cost(const struct encoder *enc, const struct unwind_table *t, uint64_t rules,
		       struct encoder_cost *cost)
{
	memset(cost, 0, sizeof(*cost));
	cost->rows = t->nr_rows;
	if (t->nr_rows && t->rows) {
		cost->rules = rules;
		cost->pages = (t->rows[t->nr_rows - 1].pc >> UNW_PAGE_SHIFT) -
			      (t->rows[0].pc >> UNW_PAGE_SHIFT) + 1;
	}
	cost_total(&enc->ops->geometry, cost);
}

int encoder__table_rules(const struct encoder *enc, const struct unwind_table *t,
			 uint16_t *row_rules, struct encoder_cost *cost)
{
	struct rule_dict d = { 0 };
	size_t cap = 0;
	int err = 0;

	_Static_assert(UNW_RULES_MAX <= ENCODER_NO_RULE, "a rule index fits row_rules");
	if (t->nr_rows && t->rows) {
		for (size_t i = 0; i < t->nr_rows && !err; i++) {
			struct unw_rule r = rule_of(&t->rows[i]);
			uint64_t hash = rule_hash(&r);
			uint32_t k = rule_dict__find(&d, &r, hash);

			if (k == RULE_NOT_FOUND && d.nr < UNW_RULES_MAX) {
				k = (uint32_t)d.nr;
				err = grow((void **)&d.rules, &cap, d.nr, sizeof(*d.rules));
				if (!err)
					err = rule_dict__add(&d, &r, hash);
			}
			if (row_rules)
				row_rules[i] = k == RULE_NOT_FOUND ? ENCODER_NO_RULE : (uint16_t)k;
			else if (d.nr >= UNW_RULES_MAX)
				break;
		}
	}
	free(d.rules);
	rule_dict__exit(&d);
	if (err)
		return err;
	table_cost(enc, t, d.nr, cost);
	return 0;
}

int encoder__table_cost(const struct encoder *enc, const struct unwind_table *t,
			struct encoder_cost *cost)
{
	return encoder__table_rules(enc, t, NULL, cost);
}

/*
 * Each distinct rule of t is one index of the dictionary, when every row of
 * t was encoded and none found the dictionary full: the indexes met are as
 * many as encoder__table_rules() counts.
 */
int encoder__encoded_cost(const struct encoder *enc, const struct unwind_table *t,
			  struct encoder_cost *cost)
{
	if (enc->seen.table != t || enc->seen.rows != t->nr_rows ||
	    enc->seen.rows_rules_full != enc->rows_rules_full)
		return -EAGAIN;
	table_cost(enc, t, enc->seen.rules, cost);
	return 0;
}

void encoder__cost(const struct encoder *enc, uint64_t rows, struct encoder_cost *cost)
{
	memset(cost, 0, sizeof(*cost));
	cost->rows = rows;
	cost->pages = enc->nr_pages;
	cost->rules = enc->dict.nr;
	cost->rows_rules_full = enc->rows_rules_full;
	cost_total(&enc->ops->geometry, cost);
}

int encoder__rows(struct encoder *enc, const struct unwind_table *t, const struct shards_chunk *c,
		  void *shard)
{
	return enc->ops->rows(enc, t, c, shard);
}

int encoder__index(struct encoder *enc, const struct shards_placement *pl, void *value)
{
	return enc->ops->index(enc, pl, value);
}
