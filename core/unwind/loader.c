// SPDX-License-Identifier: GPL-2.0-only
/* The loader of processes' unwind tables: selection, packing order, placement. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/log.h"
#include "../model/model.h"
#include "shards.h"
#include "unwind_table.h"
#include "encoder.h"
#include "loader.h"

/* What became of one table, by its model_image.index. */
enum loader_state {
	LOADER_NEW = 0,
	LOADER_QUEUED,
	LOADER_PLACED,	/* and uploaded: it has an id */
	LOADER_DROPPED, /* past max_execs, or its upload failed: never placed again */
};

struct loader_exec {
	const struct shards_placement *pl;
	uint8_t state; /* enum loader_state */
};

struct loader {
	struct loader_opts opts;
	struct shards *packer;
	struct loader_exec *execs; /* by model_image.index */
	size_t cap_execs;
	struct model_image **queue;
	size_t nr_queue, cap_queue;
	size_t rows_dropped, tables_dropped;
	bool execs_full_warned;
};

struct loader *loader__new(const struct loader_opts *opts)
{
	const struct encoder_geometry *g = encoder__geometry(opts->enc);
	struct shards_opts so = {
		.shard_rows = opts->shard_rows ? opts->shard_rows : g->shard_rows,
		.max_shards = opts->max_shards,
		.max_chunks = g->max_chunks,
		.split_shift = g->split_shift,
	};
	struct loader *l = calloc(1, sizeof(*l));
	int err = -ENOMEM;

	if (!l)
		return NULL;
	l->opts = *opts;
	if (!l->opts.max_execs)
		l->opts.max_execs = LOADER_EXECS_TARGETS;
	l->packer = shards__new(&so);
	if (!l->packer) {
		err = -errno;
		goto cleanup;
	}
	return l;
cleanup:
	loader__free(l);
	errno = -err;
	return NULL;
}

void loader__free(struct loader *l)
{
	if (!l)
		return;
	shards__free(l->packer);
	free(l->execs);
	free(l->queue);
	free(l);
}

static struct loader_exec *loader__exec(const struct loader *l, const struct model_image *e)
{
	return e->index < l->cap_execs ? &l->execs[e->index] : NULL;
}

/* Queues e when its table has rows and was never queued. */
int loader__add_entry(struct loader *l, struct model_image *e)
{
	struct loader_exec *x;

	if (!e->table || !e->table->nr_rows)
		return 0;
	if (e->index >= l->cap_execs) {
		size_t ncap = l->cap_execs ? l->cap_execs : 16;
		struct loader_exec *n;

		while (ncap <= e->index)
			ncap *= 2;
		n = reallocarray(l->execs, ncap, sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + l->cap_execs, 0, (ncap - l->cap_execs) * sizeof(*n));
		l->execs = n;
		l->cap_execs = ncap;
	}
	x = &l->execs[e->index];
	if (x->state != LOADER_NEW)
		return 0;
	if (grow((void **)&l->queue, &l->cap_queue, l->nr_queue, sizeof(*l->queue)))
		return -ENOMEM;
	l->queue[l->nr_queue++] = e;
	x->state = LOADER_QUEUED;
	return 0;
}

/* The n current mappings kept: all, or past UNW_MAPS_MAX the lowest and the highest. */
static void loader__select(size_t n, size_t *low, size_t *high_from)
{
	*low = n;
	*high_from = n;
	if (n <= UNW_MAPS_MAX)
		return;
	*low = UNW_MAPS_MAX / 2;
	*high_from = n - (UNW_MAPS_MAX - *low);
}

int loader__add_process(struct loader *l, const struct model_proc *p, struct loader_proc *lp)
{
	size_t low, high_from, nth = 0;
	int err = 0, e = 0;

	loader__select(p->nr_current, &low, &high_from);
	lp->nr_maps = 0;
	lp->nr_left_out = high_from - low;
	/* Short of memory, a mapping has no table; the others are still kept. */
	for (size_t i = 0; i < p->nr; i++) {
		const struct model_map *mm = &p->maps[i];
		struct loader_map *lm;

		if (!mm->current)
			continue; /* kept for the samples taken before, not mapped now */
		if (++nth > low && nth <= high_from)
			continue; /* the nth current mapping is in the middle left out */
		lm = &lp->maps[lp->nr_maps++];
		lm->map = &mm->map;
		lm->file = mm->file;
		if (mm->map.kind != PROCMAP_FILE && !procmaps__is_vdso(&mm->map))
			continue;
		if (!lm->file)
			e = -ENOMEM;
		else if (lm->file->image && lm->file->image->table)
			e = loader__add_entry(l, lm->file->image);
		if (e && !err)
			err = e;
	}
	return err;
}

static int entry_cmp_rows(const void *a, const void *b)
{
	const struct model_image *x = *(const struct model_image *const *)a;
	const struct model_image *y = *(const struct model_image *const *)b;

	if (x->table->nr_rows != y->table->nr_rows)
		return x->table->nr_rows < y->table->nr_rows ? -1 : 1;
	/* Same size: by key, so the order does not depend on the order found. */
	if (x->key_len != y->key_len)
		return x->key_len < y->key_len ? -1 : 1;
	return memcmp(x->key, y->key, x->key_len);
}

/* Places e, or drops it past max_execs. */
static int loader__place(struct loader *l, struct model_image *e, loader_placed_fn *placed,
			 void *ctx)
{
	struct loader_exec *x = loader__exec(l, e);
	const struct shards_placement *pl;
	int err;

	/* Ids start at 1: the next one must stay below max_execs. */
	if (shards__count(l->packer) + 1 >= l->opts.max_execs) {
		if (!l->execs_full_warned)
			pr_warn("more than %zu executables: frame pointers for the rest",
				l->opts.max_execs - 1);
		l->execs_full_warned = true;
		l->rows_dropped += e->table->nr_rows;
		l->tables_dropped++;
		x->state = LOADER_DROPPED;
		return 0;
	}
	pl = shards__add_table(l->packer, e->key, e->key_len, e->table);
	if (!pl)
		return -errno;
	err = placed ? placed(ctx, e, pl) : 0;
	x->state = err ? LOADER_DROPPED : LOADER_PLACED;
	x->pl = err ? NULL : pl;
	return err;
}

int loader__pack(struct loader *l, loader_placed_fn *placed, void *ctx)
{
	size_t i;
	int err = 0;

	if (l->nr_queue)
		qsort(l->queue, l->nr_queue, sizeof(*l->queue), entry_cmp_rows);
	for (i = 0; i < l->nr_queue && !err; i++)
		err = loader__place(l, l->queue[i], placed, ctx);
	/* What an error left queued is given up: frame pointers there. */
	for (; i < l->nr_queue; i++)
		loader__exec(l, l->queue[i])->state = LOADER_DROPPED;
	l->nr_queue = 0;
	return err;
}

const struct shards_placement *loader__placement(const struct loader *l,
						 const struct model_image *e)
{
	const struct loader_exec *x = loader__exec(l, e);

	return x && x->state == LOADER_PLACED ? x->pl : NULL;
}

uint32_t loader__exec_id(const struct loader *l, const struct model_image *e)
{
	const struct shards_placement *pl = loader__placement(l, e);

	return pl ? pl->id : 0;
}

const struct shards *loader__packer(const struct loader *l)
{
	return l->packer;
}

void loader__stats(const struct loader *l, struct loader_stats *st)
{
	struct shards_stats ss;

	shards__stats(l->packer, &ss);
	*st = (struct loader_stats){
		.rows_placed = ss.rows_placed,
		.rows_unplaced = ss.rows_unplaced,
		.rows_dropped = l->rows_dropped,
		.tables_dropped = l->tables_dropped,
	};
}
