/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The output formats and the file names that say them, shared by record
 * and report so that `-o NAME` means the same to both:
 *
 *	.pb.gz .pb .pprof .prof .gz	pprof (gzip-compressed protocol buffer)
 *	.svg				interactive flame graph
 *	.folded .txt			folded stacks
 *
 * Any other name is not guessed at: the caller asks for --format. pprof is
 * binary and never goes to a terminal.
 */
#ifndef UNWPROF_FORMAT_NAMES_H
#define UNWPROF_FORMAT_NAMES_H

#include <stdbool.h>

enum out_format {
	OUT_FOLDED,
	OUT_PPROF,
	OUT_SVG,
	OUT_NR,
};

/* "folded", "pprof", "svg" */
const char *out_format__name(enum out_format f);

/* True for a format that is not text (pprof). */
bool out_format__binary(enum out_format f);

/* The format named (folded, pprof, svg); -EINVAL for another name. */
int out_format__parse(const char *name, enum out_format *f);

/* The format path's extension says (case-insensitive); -ENOENT when none does. */
int out_format__from_path(const char *path, enum out_format *f);

/* "a name ending in .pb.gz, .pb, ..." for messages */
extern const char out_format__extensions[];

#endif
