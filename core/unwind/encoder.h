/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Wire formats of the unwind tables. An encoder turns what the table builder
 * keeps (core/unwind/unwind_table.h) and what the packer decides
 * (core/unwind/shards.h) into the bytes the BPF programs read: the
 * rows of a chunk, at their place in a shard, and the index of one table,
 * which leads BPF from a pc to its rows.
 * Its geometry says how big each is: the inner maps of the shard map are
 * created with it, the packer fills shards of its rows and gives a table at
 * most its chunks, and every row size unwprof prints (dump-unwind, shards,
 * the summary of record) comes from it.
 *
 *	enc = encoder__new(ENCODER_COMPACT);
 *	g = encoder__geometry(enc);	  shard map geometry, packer options
 *	encoder__rows(enc, t, c, shard);   the rows of chunk c, into its shard
 *	encoder__index(enc, pl, value);    the index of a placed table
 *	encoder__free(enc);
 *
 * One format exists: ENCODER_COMPACT (bpf/abi.h). A row is 4 bytes, its
 * pc inside its 64 KiB page and the index of its rule in one dictionary of
 * rules shared by every table of the run; a table's index is its pages in
 * the page map (where each page's rows are) and its struct unw_exec. The
 * dictionary and the page map are the encoder's run-wide state: in memory
 * of its own until encoder__set_maps() gives it BPF's maps, mapped. A page's
 * rows stay in one chunk: the packer splits tables only at page boundaries
 * (encoder_geometry.split_shift).
 *
 * Another format is one more entry of encoder.c's table: its geometry, its
 * rows, its index, and the run-wide state it keeps.
 */
#ifndef UNWPROF_ENCODER_H
#define UNWPROF_ENCODER_H

#include <stddef.h>
#include <stdint.h>

#include "../util/common.h"

struct encoder;
struct shards_chunk;
struct shards_placement;
struct unwind_table;

enum encoder_format {
	ENCODER_COMPACT, /* 4-byte rows, pages, one dictionary of rules */
};

struct encoder_geometry {
	const char *name;	   /* "compact" */
	size_t row_bytes;	   /* of one row in a shard */
	size_t shard_rows;	   /* rows one shard holds */
	size_t shard_bytes;	   /* of one shard: value_size x entries of its inner map */
	uint32_t shard_value_size; /* the inner maps of the shard map, as BPF declares them */
	uint32_t shard_entries;
	size_t max_chunks;	  /* chunks of one table its index holds; 0: any number */
	unsigned int split_shift; /* tables are split only where pc >> split_shift changes */
	size_t index_bytes;	  /* of the index of one table: a value of the executable map */
	size_t rule_bytes;	  /* of one rule of the dictionary */
	size_t max_rules;
	size_t page_bytes; /* of one entry of the page map */
	size_t max_pages;
};

/* What a table, or everything encoded so far, takes in BPF's maps. */
struct encoder_cost {
	uint64_t rows;
	uint64_t pages;		  /* entries of the page map */
	uint64_t rules;		  /* distinct rules: of the table, or in the dictionary */
	uint64_t bytes;		  /* all three, in bytes */
	uint64_t rows_rules_full; /* rows whose rule found the dictionary full */
};

/* NULL and errno on failure (EINVAL: no such format). */
struct encoder *encoder__new(enum encoder_format format);
void encoder__free(struct encoder *enc);

const struct encoder_geometry *encoder__geometry(const struct encoder *enc);

/* Bytes nr_rows rows take in the shards. */
uint64_t encoder__rows_bytes(const struct encoder *enc, size_t nr_rows);
/*
 * What the rows of t (still there) would take, alone in a run: its rows,
 * its pages and its distinct rules. 0, or -ENOMEM.
 */
int encoder__table_cost(const struct encoder *enc, const struct unwind_table *t,
			struct encoder_cost *cost);

/* A row whose rule is past the UNW_RULES_MAX first distinct ones of its table. */
#define ENCODER_NO_RULE UINT16_MAX

/*
 * encoder__table_cost(), and the rule of each row: row_rules[i] the index
 * of row i's rule among t's distinct rules in the order first met, or
 * ENCODER_NO_RULE. What shows the rows (dump-unwind) keeps one text a rule
 * by it, with no lookup of its own. 0, or -ENOMEM.
 */
int encoder__table_rules(const struct encoder *enc, const struct unwind_table *t,
			 uint16_t *row_rules, struct encoder_cost *cost);
/*
 * encoder__table_cost() of t, whose rows encoder__rows() has just encoded,
 * every one and last, from the rules they were given: no pass of its own
 * over them. -EAGAIN when those cannot tell (rows not encoded, or that found
 * the dictionary full): encoder__table_cost() can.
 */
int encoder__encoded_cost(const struct encoder *enc, const struct unwind_table *t,
			  struct encoder_cost *cost);
/* What rows rows encoded so far take, with the dictionary and page map as filled. */
void encoder__cost(const struct encoder *enc, uint64_t rows, struct encoder_cost *cost);

/*
 * From now on, the dictionary is rules (max_rules x rule_bytes) and the page
 * map pages (max_pages x page_bytes): BPF's maps, mapped. What was encoded
 * so far is copied there.
 */
void encoder__set_maps(struct encoder *enc, void *rules, void *pages);

/*
 * Writes the rows of chunk c of table t at rows [c->low, c->high) of shard
 * (shard_bytes, mapped), adding their rules to the dictionary. t's rows
 * must still be there (not released). 0, or a negative errno.
 */
int encoder__rows(struct encoder *enc, const struct unwind_table *t, const struct shards_chunk *c,
		  void *shard);

/*
 * The index of the placed table pl, whose rows encoder__rows() wrote: its
 * pages into the page map, and into value (index_bytes) what BPF's
 * executable map holds under pl->id. t's rows must still be there. 0, or a
 * negative errno (ENOSPC: the page map is full; E2BIG: a page of more rows
 * than an index entry counts).
 */
int encoder__index(struct encoder *enc, const struct shards_placement *pl, void *value);

#endif
