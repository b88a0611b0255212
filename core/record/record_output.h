/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A recording's profile in the format its options ask for, by the writer
 * of core/profile/out_format.h's table: folded stacks, pprof with the
 * run's times, or a flame graph titled with the command line that made it.
 */
#ifndef UNWPROF_RECORD_OUTPUT_H
#define UNWPROF_RECORD_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "recorder.h"

struct profile;

/* What the profile says of the run beside its stacks. */
struct record_output_run {
	uint64_t start_ns;     /* wall clock at the start of sampling */
	double elapsed;	       /* seconds sampled */
	const char *main_file; /* the executable pprof puts first, NULL when none */
};

/*
 * Writes p, symbolized already, to f in o->format. 0 or -errno of the
 * writer (not said); -EINVAL for a format not in the table.
 */
int record_output__write(FILE *f, const struct profile *p, const struct recorder_opts *o,
			 const struct record_output_run *run);

#endif
