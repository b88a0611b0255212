/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The values of options, parsed alike for every subcommand: a bad value is
 * argp_error(), which names the option and the value and exits 64; no
 * value is taken with a sign, blanks or anything after its digits.
 */
#ifndef UNWPROF_ARGS_H
#define UNWPROF_ARGS_H

#include <argp.h>
#include <stddef.h>
#include <sys/types.h>

/* A decimal integer in min..max: "OPT: 'ARG' is not WHAT in MIN..MAX". */
unsigned long long args__uint(struct argp_state *state, const char *opt, const char *arg,
			      unsigned long long min, unsigned long long max, const char *what);

/* A finite decimal number in [min, max], or above min when max is 0: "... is not WHAT". */
double args__real(struct argp_state *state, const char *opt, const char *arg, double min,
		  double max, const char *what);

/*
 * A comma-separated list of process (or thread) ids, WHAT naming them,
 * appended to *ids; an id listed again is kept once.
 */
void args__ids(struct argp_state *state, const char *opt, const char *arg, const char *what,
	       pid_t **ids, size_t *nr);

#endif
