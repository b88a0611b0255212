/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Wire formats of the unwind tables. An encoder turns what the table builder
 * keeps (core/unwind/table.h) and what the packer decides (core/unwind/shards.h) into the
 * bytes the BPF programs read: the rows of a chunk, at their place in a
 * shard, and the index of one table, which leads BPF from a pc to its rows.
 * Its geometry says how big each is: the inner maps of the shard map are
 * created with it, the packer fills shards of its rows and gives a table at
 * most its chunks, and every row size unwprof prints (dump-unwind, shards,
 * the summary of record) comes from it.
 *
 *	enc = encoder__new(ENCODER_ROW16);
 *	g = encoder__geometry(enc);	  shard map geometry, packer options
 *	encoder__rows(enc, t, c, shard);   the rows of chunk c, into its shard
 *	encoder__index(enc, pl, value);    the index of a placed table
 *	encoder__free(enc);
 *
 * One format exists: ENCODER_ROW16, the 16-byte struct unw_row of
 * bpf/unwprof.h, indexed per table by struct unw_exec (a list of chunks).
 *
 * Another format is one more entry of encoder.c's table: its geometry (a
 * row of 4 bytes makes shards of 262144 rows), its rows, its index. A
 * format with run-wide state, such as a dictionary of rules shared by every
 * table, keeps it in its encoder (encoders are objects, one per run, for
 * that reason); one that indexes pages rather than chunks builds that index
 * in encoder__index(), from the placement and the table's rows. What such a
 * format would add here: a call that writes its run-wide state to a map of
 * its own, and, if a page must not straddle two chunks, a packer option to
 * split only at page boundaries.
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
	ENCODER_ROW16, /* struct unw_row, struct unw_exec */
};

struct encoder_geometry {
	const char *name;	   /* "row16" */
	size_t row_bytes;	   /* of one row in a shard */
	size_t shard_rows;	   /* rows one shard holds */
	size_t shard_bytes;	   /* of one shard: value_size x entries of its inner map */
	uint32_t shard_value_size; /* the inner maps of the shard map, as BPF declares them */
	uint32_t shard_entries;
	size_t max_chunks;  /* chunks of one table its index holds */
	size_t index_bytes; /* of the index of one table: a value of the executable map */
};

/* NULL and errno on failure (EINVAL: no such format). */
struct encoder *encoder__new(enum encoder_format format);
void encoder__free(struct encoder *enc);

const struct encoder_geometry *encoder__geometry(const struct encoder *enc);

/* Bytes nr_rows rows take in the shards. */
uint64_t encoder__rows_bytes(const struct encoder *enc, size_t nr_rows);
/* Bytes the rows of t take in the shards, were they all placed. */
uint64_t encoder__table_bytes(const struct encoder *enc, const struct unwind_table *t);

/*
 * Writes the rows of chunk c of table t at rows [c->low, c->high) of shard
 * (shard_bytes, mapped). t's rows must still be there (not released).
 * 0, or a negative errno.
 */
int encoder__rows(struct encoder *enc, const struct unwind_table *t, const struct shards_chunk *c,
		  void *shard);

/*
 * The index of the placed table pl into value (index_bytes): what BPF's
 * executable map holds under pl->id. 0, or a negative errno.
 */
int encoder__index(struct encoder *enc, const struct shards_placement *pl, void *value);

#endif
