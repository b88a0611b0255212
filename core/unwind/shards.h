/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shard packer: splits unwind tables into chunks and packs the chunks
 * into fixed-size shards of rows, as the BPF unwinder finds them. A table is
 * added once per key (its GNU build ID, or a hash of its contents), so a
 * library shared by many processes takes its room once.
 *
 * Any row boundary is a correct place to split a table (a chunk covers the
 * pcs from its first row up to the next chunk's first row), but splits are
 * made after an END row, between two functions, whenever one lies in the last
 * eighth of the room, so a function's rows stay together. A format that
 * indexes pages has a table split only between pages (split_shift): a page
 * whose rows do not fit the room left starts a new shard, and one whose
 * rows do not fit a shard ends what is placed of its table.
 *
 * The packer only decides where rows go, in rows: how many a shard holds
 * and how many chunks a table's index may have are the encoder's
 * (core/unwind/encoder.h), which also writes the rows and the index there.
 */
#ifndef UNWPROF_SHARDS_H
#define UNWPROF_SHARDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/common.h"

struct unwind_table;
struct shards;

struct shards_opts {
	size_t shard_rows;	  /* rows per shard (encoder_geometry.shard_rows) */
	size_t max_shards;	  /* 0: no cap */
	size_t max_chunks;	  /* chunks per table (encoder_geometry.max_chunks), 0: any */
	unsigned int split_shift; /* split only where pc >> split_shift changes; 0: anywhere */
};

/* pc_hi of the last chunk of a table: it covers every pc from its pc_lo on. */
#define SHARDS_PC_END UINT32_MAX

/*
 * Rows [first_row, first_row + high - low) of a table, at rows [low, high)
 * of shard, governing table pcs [pc_lo, pc_hi).
 */
struct shards_chunk {
	uint32_t pc_lo;
	uint32_t pc_hi; /* SHARDS_PC_END for the last chunk */
	uint32_t shard;
	uint32_t low;
	uint32_t high;
	size_t first_row;
};

/* Where the rows of one table went. */
struct shards_placement {
	uint32_t id; /* 1, 2, ...: the executable id in the BPF maps */
	const struct unwind_table *table;
	struct shards_chunk *chunks; /* sorted by pc_lo */
	size_t nr_chunks;
	size_t rows_placed;
	size_t rows_unplaced; /* the tail that did not fit: frame pointers there */
};

struct shards_stats {
	size_t shards; /* shards used */
	size_t tables;
	size_t dedup_hits; /* tables added again under a known key */
	size_t rows_placed;
	size_t rows_unplaced;
	size_t rows_free; /* in the shards used */
};

/* NULL and errno on failure (EINVAL without shard_rows). */
struct shards *shards__new(const struct shards_opts *opts);
void shards__free(struct shards *s);

/*
 * Places table t under key (key_len bytes); when the key is known, the
 * earlier placement is returned and t is not looked at. NULL and errno on
 * failure (ENOMEM); a table that does not fit is placed in part, not an error.
 * t must outlive the packer's use of the placement. Placements returned by
 * shards__add_table(), shards__find() and shards__get() stay valid, at the
 * same address, until shards__free().
 */
const struct shards_placement *shards__add_table(struct shards *s, const void *key, size_t key_len,
						 const struct unwind_table *t);
const struct shards_placement *shards__find(const struct shards *s, const void *key,
					    size_t key_len);
/* Placements in the order they were added, index 0 .. n - 1. */
size_t shards__count(const struct shards *s);
const struct shards_placement *shards__get(const struct shards *s, size_t i);
void shards__stats(const struct shards *s, struct shards_stats *st);
size_t shards__shard_rows(const struct shards *s);

/* A 64-bit FNV-1a hash, for keys of tables without a build ID. */
uint64_t shards__hash(const void *buf, size_t len, uint64_t seed);

#endif
