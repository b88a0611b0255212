// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where the rows of unwind tables land in the shards, as `unwprof shards`
 * shows it: the tables of some files, or of the executable mappings of
 * running processes, run through the loader and the shard packer that record
 * uses, then written out per shard, per executable and in total, as text or
 * JSON. See shards_report.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../util/json.h"
#include "../util/log.h"
#include "../model/model.h"
#include "../targets/procmaps.h"
#include "shards.h"
#include "shards_report.h"
#include "unwind_table.h"
#include "encoder.h"
#include "loader.h"

/* One distinct table (by build ID or content hash), as reported. */
struct sh_exec {
	struct model_image *entry;
	const struct shards_placement *pl; /* once every table is packed; NULL: none */
	pid_t *pids;			   /* processes that map it (-p) */
	size_t nr_pids;
	size_t seen;	  /* the order it was first met in */
	uint64_t bytes;	  /* its table alone in the BPF maps: rows, pages and distinct rules */
	bool bytes_known; /* from its encoding: no pass over its rows in the layout */
};

/* One shard: its rows used, and the executables whose chunks it holds. */
struct sh_shard {
	size_t rows;
	size_t *execs; /* indexes into shards_report.execs, in placement order */
	size_t nr_execs;
};

struct shards_report {
	struct shards_report_opts opts;
	struct loader *loader; /* record's */
	struct model *model;   /* the processes and files read */
	struct sh_exec *execs;
	size_t nr_execs, cap_execs;
	struct sh_shard *shards;
	size_t nr_shards;
	size_t inputs;	       /* processes or files read */
	size_t skipped;	       /* processes or files that could not be read */
	size_t unit_rows;      /* rows every process (or file) would load on its own */
	size_t *unit_seen;     /* exec indexes seen in the current process */
	void *scratch;	       /* a shard the rows are encoded into, as record would */
	size_t rows_unindexed; /* placed, but their table's pages did not fit the page map */
	size_t nr_unit_seen;
};

/* Building and packing */

/* Table e's entry, or NULL; *index its place. */
static struct sh_exec *shards_report__find(struct shards_report *rep, const struct model_image *e,
					   size_t *index)
{
	for (size_t i = 0; i < rep->nr_execs; i++) {
		if (rep->execs[i].entry == e) {
			*index = i;
			return &rep->execs[i];
		}
	}
	return NULL;
}

/* Table e's entry, added when new. */
static struct sh_exec *shards_report__exec(struct shards_report *rep, struct model_image *e,
					   size_t *index)
{
	struct sh_exec *n = shards_report__find(rep, e, index);

	if (n)
		return n;
	if (rep->nr_execs == rep->cap_execs) {
		size_t ncap = rep->cap_execs ? rep->cap_execs * 2 : 16;

		n = reallocarray(rep->execs, ncap, sizeof(*n));
		if (!n)
			return NULL;
		rep->execs = n;
		rep->cap_execs = ncap;
	}
	n = &rep->execs[rep->nr_execs];
	memset(n, 0, sizeof(*n));
	n->entry = e;
	n->seen = rep->nr_execs;
	*index = rep->nr_execs++;
	return n;
}

/* Whether the current process (or file) already counted exec index i; marks it if not. */
static int shards_report__seen(struct shards_report *rep, size_t i, bool *seen)
{
	size_t *n;

	for (size_t k = 0; k < rep->nr_unit_seen; k++) {
		if (rep->unit_seen[k] == i) {
			*seen = true;
			return 0;
		}
	}
	n = reallocarray(rep->unit_seen, rep->nr_unit_seen + 1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	rep->unit_seen = n;
	rep->unit_seen[rep->nr_unit_seen++] = i;
	*seen = false;
	return 0;
}

/* Table e, met in process pid (0 for a FILE), once per process or file. */
static int shards_report__add(struct shards_report *rep, struct model_image *e, pid_t pid)
{
	const struct unwind_table *t = e->table;
	struct sh_exec *x;
	pid_t *pids;
	size_t i;
	bool seen;
	int err;

	x = shards_report__exec(rep, e, &i);
	if (!x)
		return -ENOMEM;
	err = shards_report__seen(rep, i, &seen);
	if (err || seen)
		return err;
	if (pid) {
		pids = reallocarray(x->pids, x->nr_pids + 1, sizeof(*pids));
		if (!pids)
			return -ENOMEM;
		x->pids = pids;
		x->pids[x->nr_pids++] = pid;
	}
	if (t)
		rep->unit_rows += t->nr_rows;
	return 0;
}

static int shards_report__add_pid(struct shards_report *rep, pid_t pid)
{
	/* What record reads too: the same mappings, the same tables. */
	struct model_proc *mp = model__read_process(rep->model, pid);
	struct loader_proc *lp = NULL;
	int err = mp ? 0 : errno;

	if (!mp) {
		/* model__read_process() reported every other error, naming the file. */
		rep->skipped++;
		if (err == ESRCH)
			pr_err("process %d does not exist", (int)pid);
		return err == ENOMEM ? -ENOMEM : 0;
	}
	rep->inputs++;
	rep->nr_unit_seen = 0;
	err = -ENOMEM;
	lp = malloc(sizeof(*lp));
	if (!lp)
		goto cleanup;
	err = loader__add_process(rep->loader, mp, lp);
	if (!err && lp->nr_left_out)
		pr_warn("process %d: %zu executable mappings, tables for %d of them (the lowest "
			"and highest addresses)",
			(int)pid, mp->nr_current, UNW_MAPS_MAX);
	for (size_t i = 0; i < lp->nr_maps && !err; i++) {
		struct model_file *f = lp->maps[i].file;

		if (f && f->image)
			err = shards_report__add(rep, f->image, pid);
	}
cleanup:
	free(lp);
	return err;
}

/* What table e takes alone, from its rows just encoded, when they can tell. */
static void shards_report__encoded_cost(struct shards_report *rep, const struct model_image *e)
{
	struct sh_exec *x;
	struct encoder_cost cost;
	size_t i;

	x = shards_report__find(rep, e, &i);
	if (!x || encoder__encoded_cost(rep->opts.enc, e->table, &cost))
		return;
	x->bytes = cost.bytes;
	x->bytes_known = true;
}

/*
 * A table the loader placed is encoded as record uploads it, into a shard
 * of scratch: the dictionary of rules and the page map then hold what
 * record's would, and the totals say what they take.
 */
static int shards_report__encode(void *ctx, struct model_image *e,
				 const struct shards_placement *pl)
{
	struct shards_report *rep = ctx;
	struct encoder *enc = rep->opts.enc;
	uint8_t index[64];
	int err = 0;

	(void)e;
	if (encoder__geometry(enc)->index_bytes > sizeof(index))
		return -EINVAL;
	if (!rep->scratch) {
		rep->scratch = malloc(encoder__geometry(enc)->shard_bytes);
		if (!rep->scratch)
			return -ENOMEM;
	}
	for (size_t i = 0; i < pl->nr_chunks && !err; i++)
		err = encoder__rows(enc, pl->table, &pl->chunks[i], rep->scratch);
	if (!err)
		shards_report__encoded_cost(rep, e);
	if (!err)
		err = encoder__index(enc, pl, index);
	if (err == -ENOSPC || err == -E2BIG) {
		rep->rows_unindexed += pl->rows_placed;
		err = 0;
	}
	return err;
}

static int shards_report__add_file(struct shards_report *rep, const char *path)
{
	struct model_image *e = model__image_of_path(rep->model, path);
	int err;

	if (!e && errno == ENOMEM)
		return -ENOMEM;
	if (!e || !e->table) {
		/* elf_file__open() or the table builder said what is wrong. */
		rep->skipped++;
		return 0;
	}
	rep->inputs++;
	rep->nr_unit_seen = 0;
	err = shards_report__add(rep, e, 0);
	/* Packed at once: FILEs in the order given. */
	if (!err)
		err = loader__add_entry(rep->loader, e);
	if (!err)
		err = loader__pack(rep->loader, shards_report__encode, rep);
	return err;
}

/* By executable id, then those without one in the order met. */
static int exec_cmp_id(const void *a, const void *b)
{
	const struct sh_exec *x = a, *y = b;
	uint64_t kx = x->pl ? x->pl->id : (uint64_t)UINT32_MAX + 1 + x->seen;
	uint64_t ky = y->pl ? y->pl->id : (uint64_t)UINT32_MAX + 1 + y->seen;

	return kx < ky ? -1 : kx > ky;
}

/*
 * Rows and executables per shard, from the chunks of every placement, in
 * placement order. With -p, executables are listed by id, as record numbers
 * them; FILEs stay in the order given.
 */
static int shards_report__layout(struct shards_report *rep)
{
	const struct shards *packer = loader__packer(rep->loader);
	size_t nr_ids = shards__count(packer), *by_id;
	struct shards_stats st;

	shards__stats(packer, &st);
	rep->nr_shards = st.shards;
	rep->shards = calloc(st.shards ? st.shards : 1, sizeof(*rep->shards));
	by_id = calloc(nr_ids + 1, sizeof(*by_id));
	if (!rep->shards || !by_id) {
		free(by_id);
		return -ENOMEM;
	}
	for (size_t i = 0; i < rep->nr_execs; i++) {
		struct sh_exec *x = &rep->execs[i];
		struct encoder_cost cost;

		x->pl = loader__placement(rep->loader, x->entry);
		if (x->bytes_known || !x->entry->table)
			continue;
		if (encoder__table_cost(rep->opts.enc, x->entry->table, &cost)) {
			free(by_id);
			return -ENOMEM;
		}
		x->bytes = cost.bytes;
	}
	if (rep->opts.nr_pids && rep->nr_execs)
		qsort(rep->execs, rep->nr_execs, sizeof(*rep->execs), exec_cmp_id);
	for (size_t i = 0; i < rep->nr_execs; i++)
		if (rep->execs[i].pl)
			by_id[rep->execs[i].pl->id] = i + 1;
	for (size_t id = 1; id <= nr_ids; id++) {
		const struct shards_placement *pl = shards__get(packer, id - 1);
		size_t i = by_id[id] - 1;

		for (size_t c = 0; by_id[id] && c < pl->nr_chunks; c++) {
			struct sh_shard *sh = &rep->shards[pl->chunks[c].shard];
			size_t *n;

			sh->rows += pl->chunks[c].high - pl->chunks[c].low;
			if (sh->nr_execs && sh->execs[sh->nr_execs - 1] == i)
				continue;
			n = reallocarray(sh->execs, sh->nr_execs + 1, sizeof(*n));
			if (!n) {
				free(by_id);
				return -ENOMEM;
			}
			sh->execs = n;
			sh->execs[sh->nr_execs++] = i;
		}
	}
	free(by_id);
	return 0;
}

static int shards_report__build(struct shards_report *rep)
{
	const struct shards_report_opts *o = &rep->opts;
	struct loader_opts lo = {
		.enc = o->enc,
		.shard_rows = o->shard_rows,
		.max_shards = o->max_shards,
		.max_execs = LOADER_EXECS_TARGETS,
	};
	int err = 0;

	rep->model = model__new(NULL);
	rep->loader = rep->model ? loader__new(&lo) : NULL;
	if (!rep->loader) {
		pr_err("out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < o->nr_pids && !err; i++)
		err = shards_report__add_pid(rep, o->pids[i]);
	/* The processes' tables in one batch, as record loads its targets. */
	if (!err && o->nr_pids)
		err = loader__pack(rep->loader, shards_report__encode, rep);
	for (size_t i = 0; i < o->nr_files && !err; i++)
		err = shards_report__add_file(rep, o->files[i]);
	if (!err)
		err = shards_report__layout(rep);
	if (err)
		pr_err("out of memory");
	return err;
}

void shards_report__free(struct shards_report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->nr_execs; i++)
		free(rep->execs[i].pids);
	for (size_t i = 0; rep->shards && i < rep->nr_shards; i++)
		free(rep->shards[i].execs);
	free(rep->shards);
	free(rep->execs);
	free(rep->unit_seen);
	free(rep->scratch);
	loader__free(rep->loader);
	model__free(rep->model);
	free(rep);
}

struct shards_report *shards_report__new(const struct shards_report_opts *opts)
{
	struct shards_report *rep = calloc(1, sizeof(*rep));
	int err;

	if (!rep) {
		pr_err("out of memory");
		return NULL;
	}
	rep->opts = *opts;
	err = shards_report__build(rep);
	if (err) {
		shards_report__free(rep);
		errno = -err;
		return NULL;
	}
	return rep;
}

size_t shards_report__inputs(const struct shards_report *rep)
{
	return rep->inputs;
}

size_t shards_report__skipped(const struct shards_report *rep)
{
	return rep->skipped;
}

/* What the report computes */

struct sh_totals {
	size_t shard_rows;
	size_t row_bytes;
	size_t shards;
	size_t rows; /* placed: what record loads */
	size_t unplaced;
	size_t distinct; /* rows of all distinct tables */
	size_t dedup_saved;
	uint64_t bytes;		  /* of the shards allocated */
	struct encoder_cost used; /* rows, page map entries and rules: their bytes */
};

static void shards_report__totals(const struct shards_report *rep, struct sh_totals *t)
{
	const struct shards *packer = loader__packer(rep->loader);
	struct shards_stats st;
	struct loader_stats ls;

	shards__stats(packer, &st);
	loader__stats(rep->loader, &ls);
	memset(t, 0, sizeof(*t));
	t->shard_rows = shards__shard_rows(packer);
	t->row_bytes = encoder__geometry(rep->opts.enc)->row_bytes;
	t->shards = st.shards;
	t->rows = st.rows_placed;
	/* As record counts them: tables past the executables it gives ids to too. */
	t->unplaced = st.rows_unplaced + ls.rows_dropped;
	t->distinct = st.rows_placed + t->unplaced;
	t->dedup_saved = rep->unit_rows - t->distinct;
	t->unplaced += rep->rows_unindexed;
	t->bytes = (uint64_t)t->shards * t->shard_rows * t->row_bytes;
	encoder__cost(rep->opts.enc, t->rows, &t->used);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* Lowercase hex of the build ID, or of the content hash ('H' dropped); buf: 2 * 64 + 1. */
static void exec_key_hex(const struct model_image *e, char *buf)
{
	const uint8_t *p = e->build_id_len ? e->key : e->key + 1;
	size_t len = e->build_id_len ? e->build_id_len : e->key_len - 1;

	for (size_t i = 0; i < len; i++)
		sprintf(buf + 2 * i, "%02x", p[i]);
	buf[2 * len] = '\0';
}

static const char *exec_status(const struct sh_exec *x)
{
	if (!x->entry->table)
		return "error";
	if (!x->entry->table->nr_rows)
		return "no-cfi";
	if (!x->pl)
		return "dropped"; /* past the executables record gives ids to */
	return x->pl->rows_unplaced ? "partial" : "ok";
}

/* Rows of x that have no place in the shards. */
static size_t exec_unplaced(const struct sh_exec *x)
{
	if (x->pl)
		return x->pl->rows_unplaced;
	return x->entry->table ? x->entry->table->nr_rows : 0;
}

/* "3", "0-2", "1,4-5": the shards a placement's chunks are in (ascending). */
static void shard_list(const struct shards_placement *pl, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t c = 0; pl && c < pl->nr_chunks && n < len; c++) {
		uint32_t lo = pl->chunks[c].shard, hi = lo;

		if (c && lo == pl->chunks[c - 1].shard)
			continue;
		while (c + 1 < pl->nr_chunks && pl->chunks[c + 1].shard <= hi + 1)
			hi = pl->chunks[++c].shard;
		n += snprintf(buf + n, len - n, hi > lo ? "%s%u-%u" : "%s%u", n ? "," : "", lo, hi);
	}
	if (!n)
		snprintf(buf, len, "-");
}

/* Text output */

static void fmt_bytes(uint64_t b, char *buf, size_t len)
{
	if (b >= 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", b / (1024.0 * 1024.0));
	else if (b >= 1024)
		snprintf(buf, len, "%.1f KiB", b / 1024.0);
	else
		snprintf(buf, len, "%" PRIu64 " B", b);
}

static int ndigits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void print_shards_text(FILE *f, const struct shards_report *rep, const struct sh_totals *t)
{
	int w = ndigits(t->shard_rows) > 4 ? ndigits(t->shard_rows) : 4;
	int wi = ndigits(rep->nr_shards) > 5 ? ndigits(rep->nr_shards) : 5;

	fprintf(f, "%zu shard%s of %zu rows", t->shards, t->shards == 1 ? "" : "s", t->shard_rows);
	if (rep->opts.max_shards)
		fprintf(f, " (at most %zu)", rep->opts.max_shards);
	fprintf(f, ":\n");
	if (!rep->nr_shards)
		return;
	fprintf(f, "%*s  %*s  %6s  %s\n", wi, "shard", w, "rows", "full", "executables");
	for (size_t i = 0; i < rep->nr_shards; i++) {
		const struct sh_shard *sh = &rep->shards[i];

		fprintf(f, "%*zu  %*zu  %5.1f%%  ", wi, i, w, sh->rows,
			100.0 * sh->rows / t->shard_rows);
		for (size_t k = 0; k < sh->nr_execs; k++)
			fprintf(f, "%s%s", k ? ", " : "",
				base_name(rep->execs[sh->execs[k]].entry->path));
		fprintf(f, "\n");
	}
}

/* Widths of the numeric columns of the executable table. */
struct exec_widths {
	int id, rows, chunks, shards, bytes;
};

static void exec_widths(const struct shards_report *rep, struct exec_widths *w)
{
	char buf[256];

	*w = (struct exec_widths){ 2, 4, 6, 6, 5 };
	for (size_t i = 0; i < rep->nr_execs; i++) {
		const struct sh_exec *x = &rep->execs[i];
		const struct unwind_table *t = x->entry->table;
		int n;

		if (x->pl && ndigits(x->pl->id) > w->id)
			w->id = ndigits(x->pl->id);
		if (t && ndigits(t->nr_rows) > w->rows)
			w->rows = ndigits(t->nr_rows);
		shard_list(x->pl, buf, sizeof(buf));
		n = strlen(buf);
		w->shards = n > w->shards ? n : w->shards;
		fmt_bytes(x->bytes, buf, sizeof(buf));
		n = strlen(buf);
		w->bytes = n > w->bytes ? n : w->bytes;
	}
}

static void print_exec_text(FILE *f, const struct sh_exec *x, const struct exec_widths *w)
{
	const struct unwind_table *t = x->entry->table;
	char list[256], bytes[32], key[2 * ELF_BUILD_ID_MAX + 1];
	const char *status = exec_status(x);

	shard_list(x->pl, list, sizeof(list));
	fmt_bytes(x->bytes, bytes, sizeof(bytes));
	exec_key_hex(x->entry, key);
	if (x->pl)
		fprintf(f, "%*u", w->id, x->pl->id);
	else
		fprintf(f, "%*s", w->id, "-");
	fprintf(f, "  %*zu  %*zu  %-*s  %*s  %-40s  %s", w->rows, t ? t->nr_rows : 0, w->chunks,
		x->pl ? x->pl->nr_chunks : 0, w->shards, list, w->bytes, bytes,
		x->entry->build_id_len ? key : "-", x->entry->path);
	if (strcmp(status, "partial") == 0)
		fprintf(f, "  (%zu rows unplaced)", x->pl->rows_unplaced);
	else if (strcmp(status, "ok") != 0)
		fprintf(f, "  (%s: frame pointers)", status);
	fprintf(f, "\n");
}

static void print_execs_text(FILE *f, const struct shards_report *rep)
{
	struct exec_widths w;

	exec_widths(rep, &w);
	fprintf(f, "\n%zu executable%s:\n", rep->nr_execs, rep->nr_execs == 1 ? "" : "s");
	if (!rep->nr_execs)
		return;
	fprintf(f, "%*s  %*s  %*s  %-*s  %*s  %-40s  %s\n", w.id, "id", w.rows, "rows", w.chunks,
		"chunks", w.shards, "shards", w.bytes, "bytes", "build id", "path");
	for (size_t i = 0; i < rep->nr_execs; i++)
		print_exec_text(f, &rep->execs[i], &w);
}

static void print_totals_text(FILE *f, const struct shards_report *rep, const struct sh_totals *t)
{
	int w = ndigits(t->rows + t->unplaced + t->dedup_saved + t->shards);
	char used[32], alloc[32];

	fmt_bytes(t->used.bytes, used, sizeof(used));
	fmt_bytes(t->bytes, alloc, sizeof(alloc));
	fprintf(f, "\ntotals:\n");
	fprintf(f,
		"  %-16s %*zu  %s used (%.2f bytes a row with %" PRIu64 " pages and %" PRIu64
		" rules)\n",
		"rows placed", w, t->rows, used, t->rows ? (double)t->used.bytes / t->rows : 0.0,
		t->used.pages, t->used.rules);
	fprintf(f, "  %-16s %*zu  %s allocated (%zu x %zu rows x %zu bytes)\n", "shards", w,
		t->shards, alloc, t->shards, t->shard_rows, t->row_bytes);
	fprintf(f, "  %-16s %*zu", "rows unplaced", w, t->unplaced);
	if (t->unplaced && rep->opts.max_shards)
		fprintf(f, "  over --max-shards %zu: frame pointers", rep->opts.max_shards);
	else if (t->unplaced)
		fprintf(f, "  pages of more rows than a shard holds: frame pointers");
	fprintf(f, "\n  %-16s %*zu  of %zu rows without sharing (%zu %s)\n", "dedup saved rows", w,
		t->dedup_saved, rep->unit_rows, rep->inputs,
		rep->opts.nr_pids ? (rep->inputs == 1 ? "process" : "processes") :
				    (rep->inputs == 1 ? "file" : "files"));
}

void shards_report__write_text(const struct shards_report *rep, FILE *f)
{
	struct sh_totals t;

	shards_report__totals(rep, &t);
	print_shards_text(f, rep, &t);
	print_execs_text(f, rep);
	print_totals_text(f, rep, &t);
}

/* JSON output */

static void json_chunks(struct json_writer *jw, const struct sh_exec *x)
{
	const struct shards_placement *pl = x->pl;
	const struct unwind_table *t = x->entry->table;

	json__key(jw, "chunk_index");
	json__array_start(jw);
	for (size_t c = 0; pl && c < pl->nr_chunks; c++) {
		const struct shards_chunk *ch = &pl->chunks[c];

		json__object_start(jw);
		json__uint_field(jw, "shard", ch->shard);
		json__uint_field(jw, "low", ch->low);
		json__uint_field(jw, "high", ch->high);
		json__uint_field(jw, "first_row", ch->first_row);
		json__key(jw, "pc_lo");
		json__stringf(jw, "0x%" PRIx64, t->base + ch->pc_lo);
		json__key(jw, "pc_hi");
		if (ch->pc_hi == SHARDS_PC_END)
			json__null(jw);
		else
			json__stringf(jw, "0x%" PRIx64, t->base + ch->pc_hi);
		json__object_end(jw);
	}
	json__array_end(jw);
}

static void json_exec(struct json_writer *jw, const struct sh_exec *x)
{
	const struct shards_placement *pl = x->pl;
	const struct unwind_table *t = x->entry->table;
	char key[2 * ELF_BUILD_ID_MAX + 1];

	exec_key_hex(x->entry, key);
	json__object_start(jw);
	json__string_field(jw, "path", x->entry->path);
	json__string_field(jw, "build_id", x->entry->build_id_len ? key : NULL);
	if (!x->entry->build_id_len) {
		json__string_field(jw, "content_hash", key);
	}
	json__key(jw, "id");
	if (pl)
		json__uint(jw, pl->id);
	else
		json__null(jw);
	json__string_field(jw, "status", exec_status(x));
	json__uint_field(jw, "rows", t ? t->nr_rows : 0);
	json__uint_field(jw, "unplaced_rows", exec_unplaced(x));
	json__uint_field(jw, "chunks", pl ? pl->nr_chunks : 0);
	json__key(jw, "shards");
	json__array_start(jw);
	for (size_t c = 0; pl && c < pl->nr_chunks; c++)
		if (!c || pl->chunks[c].shard != pl->chunks[c - 1].shard)
			json__uint(jw, pl->chunks[c].shard);
	json__array_end(jw);
	json__uint_field(jw, "bytes", x->bytes);
	json__key(jw, "pids");
	json__array_start(jw);
	for (size_t i = 0; i < x->nr_pids; i++)
		json__uint(jw, x->pids[i]);
	json__array_end(jw);
	json_chunks(jw, x);
	json__object_end(jw);
}

static void json_shards(struct json_writer *jw, const struct shards_report *rep, size_t shard_rows)
{
	json__key(jw, "shards");
	json__array_start(jw);
	for (size_t i = 0; i < rep->nr_shards; i++) {
		const struct sh_shard *sh = &rep->shards[i];

		json__object_start(jw);
		json__uint_field(jw, "index", i);
		json__uint_field(jw, "rows", sh->rows);
		json__uint_field(jw, "free", shard_rows - sh->rows);
		json__key(jw, "executables");
		json__array_start(jw);
		for (size_t k = 0; k < sh->nr_execs; k++)
			json__string(jw, base_name(rep->execs[sh->execs[k]].entry->path));
		json__array_end(jw);
		json__object_end(jw);
	}
	json__array_end(jw);
}

static void json_totals(struct json_writer *jw, const struct shards_report *rep,
			const struct sh_totals *t)
{
	json__key(jw, "totals");
	json__object_start(jw);
	json__uint_field(jw, "rows", t->rows);
	json__uint_field(jw, "bytes", t->bytes);
	json__uint_field(jw, "used_bytes", t->used.bytes);
	json__uint_field(jw, "pages", t->used.pages);
	json__uint_field(jw, "rules", t->used.rules);
	json__uint_field(jw, "shards", t->shards);
	json__uint_field(jw, "unplaced_rows", t->unplaced);
	json__uint_field(jw, "dedup_saved_rows", t->dedup_saved);
	json__uint_field(jw, "executables", rep->nr_execs);
	json__uint_field(jw, rep->opts.nr_pids ? "processes" : "files", rep->inputs);
	json__uint_field(jw, "skipped", rep->skipped);
	json__object_end(jw);
}

void shards_report__write_json(const struct shards_report *rep, struct json_writer *jw)
{
	struct sh_totals t;

	shards_report__totals(rep, &t);
	json__object_start(jw);
	json__uint_field(jw, "schema", 1);
	json__uint_field(jw, "shard_rows", t.shard_rows);
	json__uint_field(jw, "row_bytes", t.row_bytes);
	json__key(jw, "max_shards");
	if (rep->opts.max_shards)
		json__uint(jw, rep->opts.max_shards);
	else
		json__null(jw);
	json_shards(jw, rep, t.shard_rows);
	json__key(jw, "executables");
	json__array_start(jw);
	for (size_t i = 0; i < rep->nr_execs; i++)
		json_exec(jw, &rep->execs[i]);
	json__array_end(jw);
	json_totals(jw, rep, &t);
	json__object_end(jw);
}
