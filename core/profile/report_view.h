/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The views of `unwprof report` written out from what core/profile/report.h
 * computes: top and the call tree (like pprof -top and perf report --stdio)
 * and the diff of two profiles, as text; every view as JSON ({"schema": 1,
 * "view": NAME, ...}); the --fail-above check of a diff; and a profile in
 * another format (-o). See unwprof-report(1).
 */
#ifndef UNWPROF_REPORT_VIEW_H
#define UNWPROF_REPORT_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "folded.h"
#include "out_format.h"
#include "report.h"
#include "report_diff.h"

struct json_writer;

/* What the views show (report's options). */
struct report_view_opts {
	size_t top; /* functions shown by top and diff; 0: all */
	enum report_sort sort;
	double min_percent; /* tree: branches below it left out; diff: functions below it in both */
	double fail_above;  /* diff: NAN when not given */
	bool fail_total;    /* --fail-above applies to the whole profile's time too */
	bool with_pid, with_tid; /* folded: each stack begins with comm-PID or comm-PID/TID */
	bool lines;		 /* by source line */
};

/* Top: functions by self and total samples, in l's report's current order. */
void report_view__top_text(FILE *f, const struct report_file *l, const struct report_view_opts *o);
void report_view__top_json(struct json_writer *jw, const struct report_file *l,
			   const struct report_view_opts *o);

/* The call tree, callers first; -ENOMEM from the JSON. */
void report_view__tree_text(FILE *f, const struct report_file *l, const struct report_view_opts *o);
int report_view__tree_json(struct json_writer *jw, const struct report_file *l,
			   const struct report_view_opts *o);

/* Folded stacks: their prefixes as the input had them or as o asks, and as JSON. */
struct folded_opts report_view__folded_opts(const struct report_file *l,
					    const struct report_view_opts *o);
int report_view__folded_json(struct json_writer *jw, const struct report_file *l,
			     const struct folded_opts *opts);

/* The diff of cur from base; failed: what report_view__diff_check() said. */
void report_view__diff_text(FILE *f, const struct report_diff *d, const struct report_file *base,
			    const struct report_file *cur, const struct report_view_opts *o);
void report_view__diff_json(struct json_writer *jw, const struct report_diff *d,
			    const struct report_file *base, const struct report_file *cur,
			    const struct report_view_opts *o, bool failed);

/*
 * --fail-above: names every function over the limit on stderr (and the
 * whole profile with fail_total); true when there is one.
 */
bool report_view__diff_check(const struct report_diff *d, const struct report_view_opts *o);

/*
 * The differential flame graph of cur against base into path, put in place
 * whole (red slower, blue faster); 0 or -errno, said.
 */
int report_view__diff_svg(const char *path, const struct report_file *base,
			  const struct report_file *cur);

/*
 * l's profile to f in format, by the writer of out_format.h's table; 0 or
 * the writer's -errno (not said), -EINVAL for a format not in the table.
 */
int report_view__convert(FILE *f, const struct report_file *l, const struct report_view_opts *o,
			 enum out_format format);

#endif
