/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The output formats, one table that every command writing a profile
 * dispatches on (record, report -o): each format's name (--format), the
 * file names that say it, whether it is binary, and its writer, so that
 * `-o NAME` means the same to both:
 *
 *	.pb.gz .pb .pprof .prof .gz	pprof (gzip-compressed protocol buffer)
 *	.svg				interactive flame graph
 *	.folded .txt			folded stacks
 *
 * Any other name is not guessed at: the caller asks for --format. pprof is
 * binary and never goes to a terminal. What a command tells the writer
 * (record's run and title, report's input) is one struct whatever the
 * format, out_format_opts. A format not in the table is an error, never a
 * default. A new format is its writer and one entry of the table.
 */
#ifndef UNWPROF_OUT_FORMAT_H
#define UNWPROF_OUT_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include "pprof.h"

struct profile;

enum out_format {
	OUT_FOLDED,
	OUT_PPROF,
	OUT_SVG,
	OUT_NR,
};

/* What the command that writes tells the writer; each format reads its part. */
struct out_format_opts {
	bool pid;    /* folded, svg: stacks begin with comm-PID */
	bool tid;    /* folded, svg: ...with comm-PID/TID (and the thread's name) */
	bool kernel; /* kernel frames written */
	bool lines;  /* folded: ":LINE" on frames whose source line is known */
	/*
	 * folded, svg: values in time, on the CPU and off it, an on-CPU
	 * sample's count times meta.period_ns (folded.h, flamegraph.h)
	 */
	bool times;
	/* pprof: the run's start, length and sampling period; 0 when unknown */
	struct pprof_meta meta;
	const char *main_file; /* pprof: the executable, its mapping first; NULL: found */
	const char *title;     /* svg: NULL for "Flame Graph" */
	const char *subtitle;  /* svg: NULL for none */
};

/* The table's entry of a format. */
struct out_format_entry {
	enum out_format format;
	const char *name;	   /* --format's word: "folded", "pprof", "svg" */
	const char *what;	   /* in messages: "pprof", "flame graph", "folded" */
	const char *extensions[6]; /* the file names that say it, NULL-terminated */
	bool binary;		   /* not text (pprof) */
	/* Writes p to f and flushes it, not closing it; 0 or -errno (-ENOSPC: a full disk). */
	int (*write)(FILE *f, const struct profile *p, const struct out_format_opts *o);
};

/* The entry of f; NULL for a format not in the table. */
const struct out_format_entry *out_format__get(enum out_format f);

/* "folded", "pprof", "svg"; "?" for a format not in the table. */
const char *out_format__name(enum out_format f);

/* True for a format that is not text (pprof). */
bool out_format__binary(enum out_format f);

/* The format named (folded, pprof, svg); -EINVAL for another name. */
int out_format__parse(const char *name, enum out_format *f);

/* The format path's extension says (case-insensitive); -ENOENT when none does. */
int out_format__from_path(const char *path, enum out_format *f);

/* "a name ending in .pb.gz, .pb, ..." for messages: every extension, by format. */
const char *out_format__extensions(void);

/* Writes p to f in format; 0, -errno of the writer, -EINVAL for a format not in the table. */
int out_format__write(FILE *f, enum out_format format, const struct profile *p,
		      const struct out_format_opts *o);

#endif
