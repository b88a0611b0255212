/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The diff of `unwprof report --diff` and its statistics: each function's
 * CPU time in a base profile and in the new one (its samples times the
 * sampling period; samples when a period is unknown), the change in time
 * and in share, and whether the change is more than the noise of sampling.
 * A function's samples are taken as Poisson counts: given the n samples the
 * function has in both profiles together, the new profile's are binomial
 * under "its time did not change", and the one-sided exact binomial test
 * gives the p-value of an increase and of a decrease. A row is significant
 * when its p-value is below (1 - confidence) / nr (Bonferroni over the rows
 * compared), so that two profiles of the same work do not show a
 * "significant" change at the stated confidence anywhere in the table but
 * in 1 - confidence of the diffs. The whole profile's time is tested alone,
 * at 1 - confidence.
 */
#ifndef UNWPROF_REPORT_DIFF_H
#define UNWPROF_REPORT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct report;

struct report_diff_opts {
	/* CPU time one sample stands for in each profile; 0 when unknown */
	uint64_t base_period_ns, period_ns;
	double confidence; /* 0.99 for 99%; 0 for the default, 0.99 */
};

enum report_change {
	REPORT_SAME = 0,      /* within the noise */
	REPORT_INCREASE = 1,  /* significant increase of time */
	REPORT_DECREASE = -1, /* significant decrease of time */
};

struct report_diff_row {
	const char *name;
	uint64_t base_self, base_total;
	uint64_t self, total;
	/* ns when the diff is timed, else samples */
	double base_self_time, base_total_time;
	double self_time, total_time;
	double delta_self_time, delta_total_time; /* new - base */
	double delta_of_base;		      /* delta_total_time in % of the base's whole time */
	double base_self_pct, base_total_pct; /* of all samples of the base */
	double self_pct, total_pct;	      /* of all samples of the new profile */
	double delta_self, delta_total;	      /* shares, new - base, in percentage points */
	double ratio;			      /* total_time / base_total_time; INFINITY when new */
	double p_increase, p_decrease;
	enum report_change change;
};

struct report_diff {
	uint64_t base_total, total; /* samples */
	bool timed;		    /* both periods known: times in ns */
	double base_time, time;	    /* of the whole profile */
	double p_increase, p_decrease;
	enum report_change change; /* of the whole profile */
	double confidence;
	double row_alpha;	      /* (1 - confidence) / nr: a row's p-value must be below it */
	struct report_diff_row *rows; /* largest increase of total time first */
	size_t nr;
};

/*
 * Compares two reports; NULL and errno on failure. The names belong to base
 * and cur. opts may be NULL (samples, 99%).
 */
struct report_diff *report_diff__new(const struct report *base, const struct report *cur,
				     const struct report_diff_opts *opts);
void report_diff__free(struct report_diff *d);

/*
 * True when the function of row's total time grew significantly by more
 * than pct percent of the base's whole time (--fail-above)...
 */
bool report_diff__row_exceeds(const struct report_diff_row *row, double pct);

/* ...and when some function's did. */
bool report_diff__exceeds(const struct report_diff *d, double pct);

/* True when the whole profile's time grew significantly by more than pct percent. */
bool report_diff__total_exceeds(const struct report_diff *d, double pct);

/*
 * About the smallest increase of one function's time, in percent of the
 * base's whole time, that the diff can tell from noise at its confidence
 * (for its busiest function, whose count is the noisiest): a --fail-above
 * below it cannot fire, whatever happened.
 */
double report_diff__detectable(const struct report_diff *d);

/* P(X >= k) for X binomial(n, q); exported for the unit test. */
double report_diff__binomial_ge(uint64_t n, uint64_t k, double q);

#endif
