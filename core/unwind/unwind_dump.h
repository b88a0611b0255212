/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `unwprof dump-unwind` shows of an ELF file: the compact unwind table
 * record would build for it (with its separate debug file), one row per
 * line like `readelf -wF` or as JSON, a summary, and what the walks of Go,
 * each runtime (core/runtimes/runtimes.h) reads in the file when it is one of its.
 *
 *	d = unwind_dump__open(&opts);	the file, its debug file, its table
 *	unwind_dump__write_text(d, stdout);	or __write_json, __write_pc_*
 *	unwind_dump__close(d);
 *
 * The text of a row's rules and of the reasons they are unsupported, which
 * both outputs use, is here too (unwind_dump__cfa_str() and the rest).
 */
#ifndef UNWPROF_UNWIND_DUMP_H
#define UNWPROF_UNWIND_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "unwind_table.h"

struct unwind_dump;

struct unwind_dump_opts {
	const char *file;
	const char *debug_file; /* the separate debug file; NULL: looked for */
	bool no_debuginfo;	/* no debug file looked for */
	bool summary;		/* the summary without the rows */
	bool from_code;		/* the rows of the functions' code alone, CFI ignored */
};

/*
 * Opens the file and its debug file (a debug_file that does not match is
 * an error) and builds the table; NULL and errno on failure, said.
 */
struct unwind_dump *unwind_dump__open(const struct unwind_dump_opts *opts);
/* Accepts NULL. */
void unwind_dump__close(struct unwind_dump *d);

/* FDEs skipped as malformed: the table is incomplete. */
size_t unwind_dump__nr_bad_fdes(const struct unwind_dump *d);

/*
 * The writers: the rows (unless opts.summary) and the summary, or only the
 * row that governs pc, as text or as JSON ("schema": 1). 0, -ENOMEM (not
 * said), -EINVAL for JSON that is not well-formed (said), or the -errno of
 * a failed write to f (not said).
 */
int unwind_dump__write_text(const struct unwind_dump *d, FILE *f);
int unwind_dump__write_pc_text(const struct unwind_dump *d, uint64_t pc, FILE *f);
int unwind_dump__write_json(const struct unwind_dump *d, FILE *f);
int unwind_dump__write_pc_json(const struct unwind_dump *d, uint64_t pc, FILE *f);

/*
 * The text of each rule of a row as dump-unwind shows it ("rsp+16",
 * "*(rbp-8)", "plt", "signal:*(rsp+160)", "cfa-16", "*(rsp+120)",
 * "unchanged", "undefined", "unsupported:cfa-expression"), for machine
 * (EM_X86_64, EM_AARCH64). Return buf.
 */
char *unwind_dump__cfa_str(const struct table_row *r, int machine, char *buf, size_t len);
char *unwind_dump__fp_str(const struct table_row *r, int machine, char *buf, size_t len);
char *unwind_dump__ra_str(const struct table_row *r, int machine, char *buf, size_t len);
/* The name of a reason a rule is unsupported: "cfa-register", "cfa-expression", ... */
const char *unwind_dump__unsupported_str(enum unw_unsupported why);

#endif
