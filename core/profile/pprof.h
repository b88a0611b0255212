/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pprof profiles (github.com/google/pprof): a gzip-compressed protocol
 * buffer, the messages of core/profile/pprof.proto. Written from the profile model
 * and read back into it, so `go tool pprof` and `unwprof report` see what
 * record saw.
 *
 * Written: sample types samples/count and cpu/nanoseconds (the count times
 * the sampling period; samples/count alone when the period is unknown),
 * period type cpu/nanoseconds, the main binary as the first mapping, a
 * mapping per executable mapping (kernel frames in "[kernel.kallsyms]"), a
 * location per sampled address with a Line per source line (the functions
 * inlined there, innermost first, then the one that holds the code; one
 * Line naming the function when there are no source lines), a function per
 * (name, raw name, file, start line), each mapping's has_filenames,
 * has_line_numbers and has_inline_frames set when one of its locations has
 * them, and on every sample the labels pid and tid (numbers), comm (the
 * process's name) and thread (the thread's), which is what `report
 * --folded` needs to print record's folded lines again.
 * The same profile always gives the same bytes (gzip mtime 0, no name).
 *
 * Read: files by unwprof and by other producers (Go's runtime/pprof, perf
 * converters). A location's Lines (inlined functions, innermost first)
 * become its source lines (profile__lines()), the location named as the
 * last one. The value used as the sample count is the sample type
 * "samples", else the first with unit "count", else the default or the last
 * one. Frames in a mapping named "[kernel...]" are kernel frames. Labels
 * pid, tid and comm fill the sample's; a profile with no comm label at all
 * (Go's) takes the name of its main binary, the file of mapping[0].
 */
#ifndef UNWPROF_PPROF_H
#define UNWPROF_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct profile;

/* Profile-level facts the profile model does not hold; 0 when unknown. */
struct pprof_meta {
	uint64_t start_ns;    /* start of the run, wall clock, ns since the epoch */
	uint64_t duration_ns; /* length of the run */
	uint64_t period_ns;   /* CPU time one sample stands for: 1e9 / frequency */
	/* Read only: the sample type counted, e.g. "samples" and "count". */
	char value_type[32];
	char value_unit[32];
};

struct pprof_write_opts {
	struct pprof_meta meta;
	/* The executable's path: its mapping goes first. NULL: the lowest mapping of the first
	 * sample's process. */
	const char *main_file;
	bool no_kernel; /* leave out kernel frames */
};

/* Upper bound of a profile once decompressed: the input is untrusted. */
#define PPROF_MAX_SIZE (1ULL << 30)

/*
 * Writes p as gzip-compressed pprof to f and flushes it. Returns 0 or
 * -errno (-ENOSPC for a full disk). f is not closed.
 */
int pprof__write(FILE *f, const struct profile *p, const struct pprof_write_opts *opts);

/*
 * Decodes an uncompressed pprof protocol buffer into p (which should be
 * empty) and fills meta. Errors are printed naming name and say what is
 * wrong; returns -EBADMSG for data that is not a valid profile.
 */
int pprof__decode(const void *buf, size_t len, const char *name, struct profile *p,
		  struct pprof_meta *meta);

#endif
