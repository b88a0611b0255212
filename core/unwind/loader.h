/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The loader of processes' unwind tables: which executable mappings of a
 * process get tables, which tables that makes, in which order they are
 * packed into shards, and where each of their rows lands. record uploads
 * what it decides (core/session/session.c) and `unwprof shards` prints it
 * (core/unwind/shards_report.c), so that `shards -p PID` shows, shard by
 * shard, what `record -p PID` loads.
 *
 *	l = loader__new(&opts);
 *	loader__add_process(l, p, &lp);	   the tables of a process (core/model/) queued
 *	loader__pack(l, on_placed, ctx);   the queued tables packed, smallest first
 *	loader__exec_id(l, lp.maps[i].file->image)	its id in the BPF maps, 0: none
 *	loader__free(l);
 *
 * The rules, in one place:
 *  - A process keeps at most UNW_MAPS_MAX executable mappings (the size of
 *    BPF's process info): past that, the lowest and the highest addresses.
 *    The executable sits at the bottom, the libraries loaded at start (libc,
 *    ld.so) at the top; what is left out is the middle, where later
 *    dlopen()s land. Frame pointers there.
 *  - The tables queued since the last pack (one batch: all the targets of
 *    record before it starts, or one process read again) are packed
 *    smallest first, ties by key: under a cap, as many tables as possible
 *    stay whole and only the largest is cut, instead of a big library
 *    taking the room of every later one.
 *  - Executable ids stay below max_execs: tables past it are never placed
 *    (frame pointers), and their rows are counted as dropped.
 */
#ifndef UNWPROF_LOADER_H
#define UNWPROF_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/common.h"

struct encoder;
struct loader;
struct model;
struct model_file;
struct model_image;
struct model_proc;
struct procmap;
struct shards;
struct shards_placement;

/* Executables record gives ids to: for its targets, and system-wide. */
#define LOADER_EXECS_TARGETS 1024
#define LOADER_EXECS_SYSTEM 4096

struct loader_opts {
	struct encoder *enc; /* the wire format: rows per shard, chunks per table */
	size_t shard_rows;   /* 0: the encoder's */
	size_t max_shards;   /* 0: no cap */
	size_t max_execs;    /* ids stay below it; 0: LOADER_EXECS_TARGETS */
};

/* One mapping of a process that has its place in BPF's process info. */
struct loader_map {
	const struct procmap *map;
	/* Its file (file-backed or the [vdso]); NULL for anonymous and special mappings. */
	struct model_file *file;
};

/* The mappings of a process the loader keeps, sorted by start. */
struct loader_proc {
	struct loader_map maps[UNW_MAPS_MAX];
	size_t nr_maps;
	size_t nr_left_out; /* executable mappings past UNW_MAPS_MAX */
};

struct loader_stats {
	size_t rows_placed;
	size_t rows_unplaced; /* did not fit under max_shards or the chunks of a table */
	size_t rows_dropped;  /* of tables past max_execs: never placed */
	size_t tables_dropped;
};

/*
 * A table was just placed: its rows and index can be uploaded. A negative
 * errno stops loader__pack(), and the table is never given an id.
 */
typedef int loader_placed_fn(void *ctx, struct model_image *e, const struct shards_placement *pl);

/* NULL and errno on failure. */
struct loader *loader__new(const struct loader_opts *opts);
void loader__free(struct loader *l);

/*
 * The current mappings of p (core/model/model.h) that get tables, into lp
 * (which points into p until it is read again), their new tables queued for
 * loader__pack(). 0, or -ENOMEM when a file could not be kept (lp still
 * lists every mapping kept; those have no table).
 */
int loader__add_process(struct loader *l, const struct model_proc *p, struct loader_proc *lp);

/* Queues the table of e (a FILE of `unwprof shards`). */
int loader__add_entry(struct loader *l, struct model_image *e);

/*
 * Packs the queued tables, smallest first, calling placed (may be NULL) for
 * each one placed. 0, or the first error (ENOMEM, or placed's).
 */
int loader__pack(struct loader *l, loader_placed_fn *placed, void *ctx);

/* The id of e's table in the BPF maps; 0 when it has none (yet). */
uint32_t loader__exec_id(const struct loader *l, const struct model_image *e);
/* Its placement, NULL when it has none (yet). */
const struct shards_placement *loader__placement(const struct loader *l,
						 const struct model_image *e);

const struct shards *loader__packer(const struct loader *l);
void loader__stats(const struct loader *l, struct loader_stats *st);

#endif
