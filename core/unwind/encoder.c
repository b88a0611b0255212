// SPDX-License-Identifier: GPL-2.0-only
/* Wire formats of the unwind tables: the builder's rows into what BPF reads. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "encoder.h"
#include "shards.h"
#include "table.h"

struct encoder_ops {
	struct encoder_geometry geometry;
	int (*rows)(struct encoder *enc, const struct unwind_table *t, const struct shards_chunk *c,
		    void *shard);
	int (*index)(struct encoder *enc, const struct shards_placement *pl, void *value);
};

struct encoder {
	const struct encoder_ops *ops;
};

/* ---- row16: struct unw_row, struct unw_exec ---- */

static int row16_rows(struct encoder *enc, const struct unwind_table *t,
		      const struct shards_chunk *c, void *shard)
{
	const struct table_row *src;
	struct unw_row *dst;

	(void)enc;
	if (!t->rows || c->high > UNW_SHARD_ROWS || c->low > c->high ||
	    c->first_row + (c->high - c->low) > t->nr_rows)
		return -EINVAL;
	src = &t->rows[c->first_row];
	dst = (struct unw_row *)shard + c->low;
	for (size_t i = 0; i < c->high - c->low; i++)
		dst[i] = (struct unw_row){
			.pc = src[i].pc,
			.cfa_off = src[i].cfa_off,
			.fp_off = src[i].fp_off,
			.aux_off = src[i].aux_off,
			.cfa = src[i].cfa,
			.fp = src[i].fp,
			.ra = src[i].ra,
			.reason = src[i].reason,
		};
	return 0;
}

static int row16_index(struct encoder *enc, const struct shards_placement *pl, void *value)
{
	struct unw_exec *ex = value;

	(void)enc;
	if (pl->nr_chunks > UNW_CHUNKS_MAX)
		return -E2BIG;
	memset(ex, 0, sizeof(*ex));
	for (size_t i = 0; i < pl->nr_chunks; i++) {
		const struct shards_chunk *c = &pl->chunks[i];

		ex->chunks[i] = (struct unw_chunk){
			.pc_lo = c->pc_lo,
			.pc_hi = c->pc_hi == SHARDS_PC_END ? UINT32_MAX : c->pc_hi,
			.shard = c->shard,
			.low = c->low,
			.high = c->high,
		};
	}
	ex->nr_chunks = pl->nr_chunks;
	return 0;
}

static const struct encoder_ops row16_ops = {
	.geometry = {
		.name = "row16",
		.row_bytes = sizeof(struct unw_row),
		.shard_rows = UNW_SHARD_ROWS,
		.shard_bytes = sizeof(struct unw_shard),
		.shard_value_size = sizeof(struct unw_row),
		.shard_entries = UNW_SHARD_ROWS,
		.max_chunks = UNW_CHUNKS_MAX,
		.index_bytes = sizeof(struct unw_exec),
	},
	.rows = row16_rows,
	.index = row16_index,
};

/* ---- the interface ---- */

static const struct encoder_ops *const formats[] = {
	[ENCODER_ROW16] = &row16_ops,
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
	return enc;
}

void encoder__free(struct encoder *enc)
{
	free(enc);
}

const struct encoder_geometry *encoder__geometry(const struct encoder *enc)
{
	return &enc->ops->geometry;
}

uint64_t encoder__rows_bytes(const struct encoder *enc, size_t nr_rows)
{
	return (uint64_t)nr_rows * enc->ops->geometry.row_bytes;
}

uint64_t encoder__table_bytes(const struct encoder *enc, const struct unwind_table *t)
{
	return encoder__rows_bytes(enc, t->nr_rows);
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
