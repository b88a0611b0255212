// SPDX-License-Identifier: GPL-2.0-only
/* The values of options: see args.h. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "../core/util/common.h"

/* The digits of s as a number: 0, or -EINVAL for anything else or too large. */
static int digits(const char *s, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

unsigned long long args__uint(struct argp_state *state, const char *opt, const char *arg,
			      unsigned long long min, unsigned long long max, const char *what)
{
	unsigned long long v;

	if (digits(arg, &v) || v < min || v > max)
		argp_error(state, "%s: '%s' is not %s in %llu..%llu", opt, arg, what, min, max);
	return v;
}

double args__real(struct argp_state *state, const char *opt, const char *arg, double min,
		  double max, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || arg[0] == ' ' || !isfinite(v) || v < min ||
	    (max ? v > max : v <= min))
		argp_error(state, "%s: '%s' is not %s", opt, arg, what);
	return v;
}

/* Appends id to *ids unless it is there already. */
static void add_id(struct argp_state *state, const char *opt, pid_t id, pid_t **ids, size_t *nr)
{
	pid_t *n;

	for (size_t i = 0; i < *nr; i++)
		if ((*ids)[i] == id)
			return;
	n = reallocarray(*ids, *nr + 1, sizeof(*n));
	if (!n)
		argp_failure(state, EXIT_FAIL, ENOMEM, "%s", opt);
	*ids = n;
	(*ids)[(*nr)++] = id;
}

void args__ids(struct argp_state *state, const char *opt, const char *arg, const char *what,
	       pid_t **ids, size_t *nr)
{
	char *list = strdup(arg), *tok, *save = NULL;
	bool any = false;

	if (!list)
		argp_failure(state, EXIT_FAIL, ENOMEM, "%s", opt);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long long v;

		if (digits(tok, &v) || v < 1 || v > INT_MAX)
			argp_error(state, "%s: '%s' is not a %s id", opt, tok, what);
		add_id(state, opt, (pid_t)v, ids, nr);
		any = true;
	}
	free(list);
	if (!any)
		argp_error(state, "%s: no %s id in '%s'", opt, what, arg);
}
