/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pprof profiles (github.com/google/pprof): a gzip-compressed protocol
 * buffer, the messages of core/profile/pprof.proto. Written from the
 * profile model (pprof_writer.h) and read back into it (pprof_reader.h), so
 * `go tool pprof` and `unwprof report` see what record saw. Here what both
 * share: what a profile says of its run beside its samples, and the bound
 * on what is read.
 */
#ifndef UNWPROF_PPROF_H
#define UNWPROF_PPROF_H

#include <stdint.h>

/* Profile-level facts the profile model does not hold; 0 when unknown. */
struct pprof_meta {
	uint64_t start_ns;    /* start of the run, wall clock, ns since the epoch */
	uint64_t duration_ns; /* length of the run */
	uint64_t period_ns;   /* CPU time one sample stands for: 1e9 / frequency */
	/* Read only: the sample type counted, e.g. "samples" and "count". */
	char value_type[32];
	char value_unit[32];
};

/* Upper bound of a profile once decompressed: the input is untrusted. */
#define PPROF_MAX_SIZE (1ULL << 30)

#endif
