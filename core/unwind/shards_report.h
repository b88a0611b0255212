/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `unwprof shards` shows: the unwind tables of some files, or of every
 * executable mapping of running processes, loaded and packed by the loader
 * (core/unwind/loader.h) as record loads them, and where their rows land:
 * per shard, per executable, and in total, with what deduplication by build
 * ID saved.
 *
 *	rep = shards_report__new(&opts);	the tables built and packed
 *	shards_report__write_text(rep, stdout);	or __write_json(rep, jw)
 *	shards_report__free(rep);
 *
 * For processes, the layout, shard by shard, is what record -p loads for the
 * same processes under the same max_shards; files are packed in the order
 * given.
 */
#ifndef UNWPROF_SHARDS_REPORT_H
#define UNWPROF_SHARDS_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct encoder;
struct json_writer;
struct shards_report;

struct shards_report_opts {
	struct encoder *enc; /* the wire format record loads */
	pid_t *pids;	     /* the processes, or */
	size_t nr_pids;
	char **files; /* the files */
	size_t nr_files;
	size_t shard_rows;
	size_t max_shards; /* 0: no cap */
};

/*
 * Reads the processes or files and packs their tables. A process or file
 * that cannot be read is said and counted as skipped; NULL and errno only
 * when the whole fails (out of memory, said).
 */
struct shards_report *shards_report__new(const struct shards_report_opts *opts);
/* Accepts NULL. */
void shards_report__free(struct shards_report *rep);

/* The processes or files read, and those that could not be. */
size_t shards_report__inputs(const struct shards_report *rep);
size_t shards_report__skipped(const struct shards_report *rep);

/* The shards, the executables and the totals as tables. */
void shards_report__write_text(const struct shards_report *rep, FILE *f);

/* The same as one JSON object, "schema": 1 (see unwprof-shards(1)). */
void shards_report__write_json(const struct shards_report *rep, struct json_writer *jw);

#endif
