/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pprof writer (pprof.h): sample types samples/count and
 * cpu/nanoseconds (the count times the sampling period; samples/count
 * alone when the period is unknown), and off-cpu/nanoseconds with off-CPU
 * samples and a period (the default type then cpu), period type
 * cpu/nanoseconds, the main binary as the first mapping, a mapping per
 * executable mapping (kernel frames in "[kernel.kallsyms]", an
 * interpreter's in one made up for its kind, "[NAME]" of its runtime:
 * core/profile/frames.h), a location per sampled address with a Line per
 * source line (the functions inlined there, innermost first, then the one
 * that holds the code; one Line naming the function when there are no
 * source lines), a function per (name, raw name, file, start line), each
 * mapping's has_filenames, has_line_numbers and has_inline_frames set when
 * one of its locations has them, and on every sample the labels pid and
 * tid (numbers), comm (the process's name) and thread (the thread's),
 * which is what `report --folded` needs to print record's folded lines
 * again. The same profile always gives the same bytes (gzip mtime 0, no
 * name).
 */
#ifndef UNWPROF_PPROF_WRITER_H
#define UNWPROF_PPROF_WRITER_H

#include <stdbool.h>
#include <stdio.h>

#include "pprof.h"

struct profile;

struct pprof_writer_opts {
	struct pprof_meta meta;
	/*
	 * The executable's path: its mapping goes first. NULL: the lowest
	 * mapping of the first sample's process.
	 */
	const char *main_file;
	bool no_kernel; /* leave out kernel frames */
};

/*
 * Writes p as gzip-compressed pprof to f and flushes it. Returns 0 or
 * -errno (-ENOSPC for a full disk). f is not closed.
 */
int pprof_writer__write(FILE *f, const struct profile *p, const struct pprof_writer_opts *opts);

#endif
