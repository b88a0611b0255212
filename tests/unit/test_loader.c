// SPDX-License-Identifier: GPL-2.0-only
/*
 * The loader record and `unwprof shards` share (core/unwind/loader.c):
 * which mappings of a process keep tables (past UNW_MAPS_MAX, the lowest and
 * the highest), tables of a batch packed smallest first, ids below max_execs,
 * a failed upload leaves no id. On synthetic mappings and tables, and on this
 * test's own process.
 */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "core/unwind/encoder.h"
#include "core/unwind/loader.h"
#include "core/targets/procfs.h"
#include "core/targets/procmaps.h"
#include "core/unwind/shards.h"
#include "core/unwind/unwind_table.h"
#include "core/model/model.h"

static struct loader *loader_new(struct encoder *enc, size_t max_execs)
{
	struct loader_opts o = { .enc = enc, .max_execs = max_execs };

	return loader__new(&o);
}

/* n anonymous executable mappings, 64 KiB apart: no files, no tables. */
static struct procmaps *anon_maps(size_t n)
{
	struct procmaps *pm = calloc(1, sizeof(*pm));

	pm->pid = getpid();
	pm->maps = calloc(n, sizeof(*pm->maps));
	pm->nr = n;
	for (size_t i = 0; i < n; i++) {
		pm->maps[i].start = 0x100000 + i * 0x10000;
		pm->maps[i].end = pm->maps[i].start + 0x1000;
		pm->maps[i].kind = PROCMAP_ANON;
	}
	return pm;
}

static void test_select_lowest_and_highest(void)
{
	struct encoder *enc = encoder__new(ENCODER_COMPACT);
	struct loader *l = loader_new(enc, 0);
	struct loader_proc *lp = calloc(1, sizeof(*lp));
	struct procmaps *pm = anon_maps(300), *few = anon_maps(UNW_MAPS_MAX);
	struct model *md = model__new(NULL);
	const struct model_proc *p = model__add_maps(md, pm);

	CHECK(p != NULL);
	CHECK_EQ_INT(loader__add_process(l, p, lp), 0);
	CHECK_EQ_INT(lp->nr_maps, UNW_MAPS_MAX);
	CHECK_EQ_INT(lp->nr_left_out, 300 - UNW_MAPS_MAX);
	for (size_t i = 0; i < UNW_MAPS_MAX / 2; i++) {
		CHECK(lp->maps[i].map->start == pm->maps[i].start);
		CHECK(lp->maps[UNW_MAPS_MAX / 2 + i].map->start ==
		      pm->maps[300 - UNW_MAPS_MAX / 2 + i].start);
	}
	CHECK(lp->maps[0].file == NULL);
	/* Read again, fewer: those past them stay for earlier samples, not for the loader. */
	p = model__add_maps(md, few);
	CHECK(p && p->nr_current == UNW_MAPS_MAX && p->nr == 300);
	CHECK_EQ_INT(loader__add_process(l, p, lp), 0);
	CHECK_EQ_INT(lp->nr_maps, UNW_MAPS_MAX);
	CHECK_EQ_INT(lp->nr_left_out, 0);
	CHECK(lp->maps[UNW_MAPS_MAX - 1].map->start == few->maps[UNW_MAPS_MAX - 1].start);
	procmaps__free(pm);
	procmaps__free(few);
	free(lp);
	loader__free(l);
	model__free(md);
	encoder__free(enc);
}

/* Images with tables of the given sizes, as core/model/ would number them. */
static struct model_image *entries_new(const size_t *rows, size_t n)
{
	struct model_image *e = calloc(n, sizeof(*e));

	for (size_t i = 0; i < n; i++) {
		struct unwind_table *t = calloc(1, sizeof(*t));

		t->rows = calloc(rows[i] + 1, sizeof(*t->rows));
		for (size_t r = 0; r < rows[i]; r++)
			t->rows[r] = (struct table_row){ .pc = 4 * r, .cfa = UNW_CFA_SP };
		t->nr_rows = rows[i];
		e[i].table = t;
		e[i].index = i;
		e[i].key[0] = 'k';
		e[i].key[1] = (uint8_t)i;
		e[i].key_len = 2;
	}
	return e;
}

static void entries_free(struct model_image *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(e[i].table->rows);
		free(e[i].table);
	}
	free(e);
}

struct placed_log {
	size_t order[8];
	size_t nr;
	size_t fail_at; /* the call that fails (1-based); 0: none */
};

static int log_placed(void *ctx, struct model_image *e, const struct shards_placement *pl)
{
	struct placed_log *log = ctx;

	CHECK(pl->table == e->table);
	log->order[log->nr++] = e->index;
	return log->nr == log->fail_at ? -EIO : 0;
}

static void test_pack_smallest_first(void)
{
	static const size_t rows[] = { 50, 10, 30, 0, 10 };
	struct encoder *enc = encoder__new(ENCODER_COMPACT);
	struct loader *l = loader_new(enc, 0);
	struct model_image *e = entries_new(rows, ARRAY_SIZE(rows));
	struct placed_log log = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		CHECK_EQ_INT(loader__add_entry(l, &e[i]), 0);
	CHECK_EQ_INT(loader__exec_id(l, &e[0]), 0); /* queued, not packed yet */
	CHECK_EQ_INT(loader__pack(l, log_placed, &log), 0);
	/* Smallest first, equal sizes by key; a table without rows is not placed. */
	CHECK_EQ_INT(log.nr, 4);
	CHECK_EQ_INT(log.order[0], 1);
	CHECK_EQ_INT(log.order[1], 4);
	CHECK_EQ_INT(log.order[2], 2);
	CHECK_EQ_INT(log.order[3], 0);
	CHECK_EQ_INT(loader__exec_id(l, &e[1]), 1);
	CHECK_EQ_INT(loader__exec_id(l, &e[4]), 2);
	CHECK_EQ_INT(loader__exec_id(l, &e[2]), 3);
	CHECK_EQ_INT(loader__exec_id(l, &e[0]), 4);
	CHECK_EQ_INT(loader__exec_id(l, &e[3]), 0);
	CHECK(loader__placement(l, &e[0]) == shards__get(loader__packer(l), 3));
	/* Added again (another process maps it): nothing new to pack. */
	CHECK_EQ_INT(loader__add_entry(l, &e[0]), 0);
	CHECK_EQ_INT(loader__pack(l, log_placed, &log), 0);
	CHECK_EQ_INT(log.nr, 4);
	loader__free(l);
	entries_free(e, ARRAY_SIZE(rows));
	encoder__free(enc);
}

static void test_execs_limit_and_failed_upload(void)
{
	static const size_t rows[] = { 1, 2, 3, 4 };
	struct encoder *enc = encoder__new(ENCODER_COMPACT);
	struct loader *l = loader_new(enc, 3); /* ids 1 and 2 */
	struct model_image *e = entries_new(rows, ARRAY_SIZE(rows));
	struct placed_log log = { 0 };
	struct loader_stats st;

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		loader__add_entry(l, &e[i]);
	CHECK_EQ_INT(loader__pack(l, log_placed, &log), 0);
	CHECK_EQ_INT(loader__exec_id(l, &e[0]), 1);
	CHECK_EQ_INT(loader__exec_id(l, &e[1]), 2);
	CHECK_EQ_INT(loader__exec_id(l, &e[2]), 0);
	CHECK_EQ_INT(loader__exec_id(l, &e[3]), 0);
	loader__stats(l, &st);
	CHECK_EQ_INT(st.rows_placed, 3);
	CHECK_EQ_INT(st.rows_dropped, 7);
	CHECK_EQ_INT(st.tables_dropped, 2);
	loader__free(l);

	/* The second upload fails: that table and the ones after it get no id. */
	l = loader_new(enc, 0);
	log = (struct placed_log){ .fail_at = 2 };
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		loader__add_entry(l, &e[i]);
	CHECK_EQ_INT(loader__pack(l, log_placed, &log), -EIO);
	CHECK_EQ_INT(loader__exec_id(l, &e[0]), 1);
	CHECK_EQ_INT(loader__exec_id(l, &e[1]), 0);
	CHECK_EQ_INT(loader__exec_id(l, &e[2]), 0);
	CHECK_EQ_INT(loader__add_entry(l, &e[2]), 0); /* given up: not queued again */
	CHECK_EQ_INT(loader__pack(l, log_placed, &log), 0);
	CHECK_EQ_INT(log.nr, 2);
	loader__free(l);
	entries_free(e, ARRAY_SIZE(rows));
	encoder__free(enc);
}

/* This process: every kept mapping with a table gets an id, the smallest table first. */
static void test_own_process(void)
{
	struct encoder *enc = encoder__new(ENCODER_COMPACT);
	struct loader *l = loader_new(enc, 0);
	struct loader_proc *lp = calloc(1, sizeof(*lp));
	struct model *md = model__new(NULL);
	const struct model_proc *p = model__read_process(md, getpid());
	size_t tables = 0, prev_rows = 0, with_id = 0;

	CHECK(p != NULL);
	if (!p)
		goto cleanup;
	CHECK_EQ_INT(loader__add_process(l, p, lp), 0);
	CHECK_EQ_INT(lp->nr_maps, p->nr_current);
	CHECK_EQ_INT(loader__pack(l, NULL, NULL), 0);
	for (size_t i = 0; i < lp->nr_maps; i++) {
		const struct model_file *f = lp->maps[i].file;

		if (f && f->image && f->image->table && f->image->table->nr_rows)
			with_id += loader__exec_id(l, f->image) != 0;
	}
	for (size_t id = 1; id <= shards__count(loader__packer(l)); id++) {
		const struct shards_placement *pl = shards__get(loader__packer(l), id - 1);

		CHECK(pl->table->nr_rows >= prev_rows);
		prev_rows = pl->table->nr_rows;
		tables++;
	}
	CHECK(tables >= 2); /* this test and libc at least */
	CHECK(with_id >= tables);
cleanup:
	free(lp);
	loader__free(l);
	model__free(md);
	encoder__free(enc);
}

int main(void)
{
	RUN(test_select_lowest_and_highest);
	RUN(test_pack_smallest_first);
	RUN(test_execs_limit_and_failed_upload);
	RUN(test_own_process);
	return test_summary();
}
