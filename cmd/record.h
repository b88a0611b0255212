/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The record command's parts: cmd/record.c (options, the lines while it
 * runs) and cmd/record_summary.c (the summary on stderr and as JSON). The
 * run itself is core/record/recorder.h's.
 */
#ifndef UNWPROF_RECORD_H
#define UNWPROF_RECORD_H

#include <stdbool.h>
#include <stdio.h>

#include "../core/record/recorder.h"

struct record_args {
	struct recorder_opts opts; /* what the run takes: targets, sampling, outputs */
	bool quiet;
	bool format_set;     /* --format given */
	bool off_cpu_limits; /* --off-cpu-min or --off-cpu-walks given */
};

/* The last path component of path (all of it when it ends with '/'). */
const char *record_base_name(const char *path);

/* The summary of the run on stderr (without --quiet). */
void record_print_summary(const struct recorder_result *res);

/*
 * The summary as JSON to f, --stats-json's file (a recorder_stats_fn: args
 * is the struct record_args). 0 or -errno (said).
 */
int record_write_stats(FILE *f, const struct recorder_result *res, void *args);

#endif
