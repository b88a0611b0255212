// SPDX-License-Identifier: GPL-2.0-only
/*
 * The encoder of the 16-byte rows: every field of the builder's rows, at the
 * place the packer chose, and the chunk index BPF reads.
 */
#include <stdlib.h>

#include "test.h"
#include "core/unwind/encoder.h"
#include "core/unwind/shards.h"
#include "core/unwind/table.h"

static const struct table_row rows[] = {
	{ .pc = 0, .cfa = UNW_CFA_SP, .cfa_off = 8, .ra = UNW_RA_AT_CFA },
	{ .pc = 1, .cfa = UNW_CFA_FP, .cfa_off = INT32_MIN, .fp = UNW_FP_AT_CFA, .fp_off = -16 },
	{ .pc = 7, .cfa = UNW_CFA_DEREF_SP, .cfa_off = INT32_MAX, .aux_off = INT16_MIN },
	{ .pc = 9, .cfa = UNW_CFA_PLT, .cfa_off = 8, .aux_off = 11 },
	{ .pc = 0x20,
	  .cfa = UNW_CFA_SIGNAL,
	  .cfa_off = 160,
	  .fp = UNW_FP_AT_SP,
	  .fp_off = INT16_MAX,
	  .ra = UNW_RA_AT_SP,
	  .aux_off = 168 },
	{ .pc = 0x30,
	  .cfa = UNW_CFA_UNSUPPORTED,
	  .cfa_off = UNW_R_CFA_EXPRESSION,
	  .fp = UNW_FP_UNSUPPORTED,
	  .fp_off = UNW_R_FP_RULE,
	  .ra = UNW_RA_UNSUPPORTED,
	  .aux_off = UNW_R_RA_RULE,
	  .reason = UNW_R_CFA_EXPRESSION },
	{ .pc = 0x40, .cfa = UNW_CFA_SP, .ra = UNW_RA_UNDEFINED },
	{ .pc = UINT32_MAX - 1, .cfa = UNW_CFA_END },
};

static void check_row(const struct unw_row *w, const struct table_row *r)
{
	CHECK_EQ_INT(w->pc, r->pc);
	CHECK_EQ_INT(w->cfa_off, r->cfa_off);
	CHECK_EQ_INT(w->fp_off, r->fp_off);
	CHECK_EQ_INT(w->aux_off, r->aux_off);
	CHECK_EQ_INT(w->cfa, r->cfa);
	CHECK_EQ_INT(w->fp, r->fp);
	CHECK_EQ_INT(w->ra, r->ra);
	CHECK_EQ_INT(w->reason, r->reason);
}

static void test_geometry(void)
{
	struct encoder *enc = encoder__new(ENCODER_ROW16);
	const struct encoder_geometry *g = encoder__geometry(enc);
	struct unwind_table t = { .nr_rows = 1000 };

	CHECK_EQ_STR(g->name, "row16");
	CHECK_EQ_INT(g->row_bytes, sizeof(struct unw_row));
	CHECK_EQ_INT(g->shard_rows, UNW_SHARD_ROWS);
	CHECK_EQ_INT(g->shard_bytes, (uint64_t)g->shard_value_size * g->shard_entries);
	CHECK_EQ_INT(g->shard_bytes, g->shard_rows * g->row_bytes);
	CHECK_EQ_INT(g->max_chunks, UNW_CHUNKS_MAX);
	CHECK_EQ_INT(g->index_bytes, sizeof(struct unw_exec));
	CHECK_EQ_INT(encoder__rows_bytes(enc, 3), 3 * g->row_bytes);
	CHECK_EQ_INT(encoder__table_bytes(enc, &t), 1000 * g->row_bytes);
	encoder__free(enc);
	CHECK(encoder__new((enum encoder_format)99) == NULL);
}

/* Each field of each row, at the rows of the shard the chunks give. */
static void test_rows_and_index(void)
{
	struct encoder *enc = encoder__new(ENCODER_ROW16);
	struct unwind_table t = { .rows = (struct table_row *)rows, .nr_rows = ARRAY_SIZE(rows) };
	struct shards_chunk chunks[2] = {
		{ .pc_lo = 0, .pc_hi = 0x20, .shard = 3, .low = 100, .high = 104, .first_row = 0 },
		{ .pc_lo = 0x20,
		  .pc_hi = SHARDS_PC_END,
		  .shard = 4,
		  .low = 0,
		  .high = 4,
		  .first_row = 4 },
	};
	struct shards_placement pl = { .id = 7, .table = &t, .chunks = chunks, .nr_chunks = 2 };
	struct unw_row *shard = calloc(UNW_SHARD_ROWS, sizeof(*shard));
	struct unw_exec *ex = calloc(1, sizeof(*ex));

	for (size_t c = 0; c < 2; c++) {
		memset(shard, 0xa5, UNW_SHARD_ROWS * sizeof(*shard));
		CHECK_EQ_INT(encoder__rows(enc, &t, &chunks[c], shard), 0);
		for (size_t i = chunks[c].low; i < chunks[c].high; i++)
			check_row(&shard[i], &rows[chunks[c].first_row + i - chunks[c].low]);
		/* Nothing written outside the chunk's rows. */
		CHECK_EQ_INT(((uint8_t *)&shard[chunks[c].high])[0], 0xa5);
		if (chunks[c].low)
			CHECK_EQ_INT(((uint8_t *)&shard[chunks[c].low - 1])[15], 0xa5);
	}
	memset(ex, 0xff, sizeof(*ex));
	CHECK_EQ_INT(encoder__index(enc, &pl, ex), 0);
	CHECK_EQ_INT(ex->nr_chunks, 2);
	CHECK_EQ_INT(ex->chunks[0].pc_hi, 0x20);
	CHECK_EQ_INT(ex->chunks[0].shard, 3);
	CHECK_EQ_INT(ex->chunks[0].low, 100);
	CHECK_EQ_INT(ex->chunks[0].high, 104);
	CHECK_EQ_INT(ex->chunks[1].pc_lo, 0x20);
	CHECK_EQ_INT(ex->chunks[1].pc_hi, UINT32_MAX);
	CHECK_EQ_INT(ex->chunks[2].high, 0); /* the rest is cleared */
	/* Out of the shard, past the table, or more chunks than the index holds. */
	chunks[1].high = UNW_SHARD_ROWS + 1;
	CHECK_EQ_INT(encoder__rows(enc, &t, &chunks[1], shard), -EINVAL);
	chunks[1].high = 5;
	CHECK_EQ_INT(encoder__rows(enc, &t, &chunks[1], shard), -EINVAL);
	pl.nr_chunks = UNW_CHUNKS_MAX + 1;
	CHECK_EQ_INT(encoder__index(enc, &pl, ex), -E2BIG);
	free(shard);
	free(ex);
	encoder__free(enc);
}

int main(void)
{
	RUN(test_geometry);
	RUN(test_rows_and_index);
	return test_summary();
}
