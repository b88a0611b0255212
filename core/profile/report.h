/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `unwprof report` shows, computed from the profile model and kept
 * apart from printing, so the text and the JSON output show the same
 * numbers:
 *
 *  - top: per function, self samples (the function was the leaf) and total
 *    samples (the function was anywhere on the stack, counted once per
 *    sample even when it recurses);
 *  - tree: the stacks merged from the root down, caller to callee;
 *    functions the compiler inlined into their caller (the source lines of
 *    a location, core/profile/profile.h) are nodes of their own, marked inlined;
 *  - diff: per function, its time and its share in a base profile and in
 *    the new one, the changes, and whether they are more than noise
 *    (core/profile/report_diff.h, built on the functions counted here).
 *
 * A function is a frame named as in folded output (core/profile/frames.h):
 * its readable name, else "[file+0xOFFSET]", else "[unknown]", without the
 * marks "_[i]" and "_[k]"; an inlined function without a name is named as
 * the location it was inlined into.
 */
#ifndef UNWPROF_REPORT_H
#define UNWPROF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "folded_read.h"
#include "pprof.h"

struct profile;

/* Loading: the format is told from the content. */

enum report_format {
	REPORT_FORMAT_PPROF,
	REPORT_FORMAT_FOLDED,
};

struct report_input {
	enum report_format format;
	bool gzip;
	struct pprof_meta meta;		/* pprof only */
	struct folded_read_info folded; /* folded only */
};

/*
 * Reads path ("-" for stdin): a pprof profile, gzip-compressed or not, or
 * folded stacks (also gzip-compressed or not). Sets *out to a new profile.
 * Every error is printed naming the file: missing, unreadable, larger than
 * PPROF_MAX_SIZE, empty, corrupt, truncated, not a profile, no samples.
 */
int report__load(const char *path, struct profile **out, struct report_input *in);

/*
 * What a sample's count stands for in the views (--sample-type), when the
 * profile has off-CPU samples (record --off-cpu): its on-CPU samples, its
 * time off the CPU, or both as time (wall). Off-CPU and wall time are
 * counted in microseconds: the views' period is then REPORT_TIME_UNIT_NS.
 */
enum report_sample_type {
	REPORT_SAMPLES = 0, /* the counts as read (a profile without off-CPU samples) */
	REPORT_CPU,
	REPORT_OFF_CPU,
	REPORT_WALL,
};

#define REPORT_TIME_UNIT_NS 1000

/* "cpu", "off-cpu", "wall" into *t; -EINVAL for another name. */
int report__parse_sample_type(const char *name, enum report_sample_type *t);

/* Filters applied before every view. */
struct report_filter {
	bool has_pid;
	uint32_t pid;
	const char *comm; /* the process's or the thread's name; NULL: any */
	bool no_kernel;	  /* drop kernel frames */
	enum report_sample_type type;
	uint64_t period_ns; /* an on-CPU sample's time, for REPORT_WALL */
};

/*
 * A new profile with the samples of p that pass f, their counts what f->type
 * says; NULL and errno on failure.
 */
struct profile *report__filter(const struct profile *p, const struct report_filter *f);

/*
 * A profile file as the views take it: loaded, with what it said about
 * itself, and filtered; its report built unless only the profile is wanted.
 */
struct report_file {
	const char *path;
	struct profile *profile;
	struct report_input in;
	struct report *report;
	bool by_line; /* set before report__open_file: functions are "NAME FILE:LINE" */
};

/*
 * Loads path and keeps the samples that pass filter, counted as its type
 * says (in a profile with off-CPU samples, CPU time when none is asked
 * for); the report too when need_report. 0 or -errno, said naming the
 * file: the errors of report__load, no off-CPU samples, no sample left.
 */
int report__open_file(struct report_file *l, const char *path, const struct report_filter *filter,
		      bool need_report);
/* What report__open_file() made, even when it failed. */
void report__close_file(struct report_file *l);

/* Top and tree */

enum report_sort {
	REPORT_SORT_SELF,
	REPORT_SORT_TOTAL,
};

struct report_func {
	const char *name;
	uint64_t self;
	uint64_t total;
};

/* A node of the caller-to-callee tree; node 0 is an unnamed root above every stack. */
struct report_node {
	uint32_t func; /* index in the unsorted function table */
	uint64_t self;
	uint64_t total;
	uint32_t nr_children;
	uint32_t first_child; /* internal: where the sorted children start */
	bool inlined;	      /* the compiler inlined this call into the parent's code */
};

struct report;

/*
 * The views of p, NULL and errno on failure; by source line when by_line: each function is then "NAME
 * FILE:LINE" for the line of the address in the innermost function and the
 * line of the call in its callers (pprof -lines), plain "NAME" where the
 * line is unknown.
 */
struct report *report__new_by(const struct profile *p, bool by_line);
void report__free(struct report *r);

/* Sum of the sample counts. */
uint64_t report__total(const struct report *r);

size_t report__nr_funcs(const struct report *r);
/* The i-th function in the current order (as added until report__sort is called). */
const struct report_func *report__func(const struct report *r, size_t i);
/* The function behind a tree node. */
const char *report__func_name(const struct report *r, uint32_t func);
void report__sort(struct report *r, enum report_sort sort);

const struct report_node *report__root(const struct report *r);
/* Children of a node sorted by total, largest first (ties by name). */
const struct report_node *report__child(const struct report *r, const struct report_node *n,
					uint32_t i);

#endif
