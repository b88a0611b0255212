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
 *    a location, core/profile.h) are nodes of their own, marked inlined;
 *  - diff: per function, its share of all samples in a base profile and in
 *    the new one, the change in percentage points and as a ratio.
 *
 * A function is named as in folded output: its readable name, else
 * "[file+0xOFFSET]", else "[unknown]".
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

/* Filters applied before every view. */
struct report_filter {
	bool has_pid;
	uint32_t pid;
	const char *comm; /* NULL: any */
	bool no_kernel;	  /* drop kernel frames */
};

/* A new profile with the samples of p that pass f; NULL and errno on failure. */
struct profile *report__filter(const struct profile *p, const struct report_filter *f);

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

/* NULL and errno on failure. */
struct report *report__new(const struct profile *p);
/*
 * The same, by source line when by_line: each function is then "NAME
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

/* Diff */

struct report_diff_row {
	const char *name;
	uint64_t base_self, base_total;
	uint64_t self, total;
	double base_self_pct, base_total_pct; /* of all samples of the base */
	double self_pct, total_pct;	      /* of all samples of the new profile */
	double delta_self, delta_total;	      /* new - base, in percentage points */
	double ratio;			      /* total_pct / base_total_pct; INFINITY when new */
};

struct report_diff {
	uint64_t base_total, total;
	struct report_diff_row *rows; /* largest increase of total share first */
	size_t nr;
};

/* Compares two reports; NULL and errno on failure. The names belong to base and cur. */
struct report_diff *report_diff__new(const struct report *base, const struct report *cur);
void report_diff__free(struct report_diff *d);

/* True when some function's total share grew by more than pct points. */
bool report_diff__exceeds(const struct report_diff *d, double pct);

#endif
