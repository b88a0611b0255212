// SPDX-License-Identifier: GPL-2.0-only
/*
 * The diff of two reports and its statistics: each function's time in
 * both, the exact binomial test of its change, the Bonferroni bound over
 * the functions compared, and the smallest change the samples can tell
 * from noise (--fail-above). See report_diff.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_diff.h"

static double percent(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

/* Binomial tails, summed from the tail end inward so that the terms only shrink. */

static double binomial_log_term(uint64_t n, uint64_t k, double q)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
	       (double)k * log(q) + (double)(n - k) * log1p(-q);
}

/* sum of P(X = j) for j >= k, with k at or above the mode */
static double sum_up(uint64_t n, uint64_t k, double q)
{
	double term = exp(binomial_log_term(n, k, q)), sum = 0;

	for (uint64_t j = k; j <= n && term > 0; j++) {
		sum += term;
		if (term < sum * 1e-17)
			break;
		term *= (double)(n - j) / (double)(j + 1) * q / (1 - q);
	}
	return sum;
}

/* sum of P(X = j) for j <= k, with k at or below the mode */
static double sum_down(uint64_t n, uint64_t k, double q)
{
	double term = exp(binomial_log_term(n, k, q)), sum = 0;

	for (uint64_t j = k;; j--) {
		sum += term;
		if (j == 0 || term == 0 || term < sum * 1e-17)
			break;
		term *= (double)j / (double)(n - j + 1) * (1 - q) / q;
	}
	return sum;
}

double report_diff__binomial_ge(uint64_t n, uint64_t k, double q)
{
	double p;

	if (k == 0)
		return 1;
	if (k > n)
		return 0;
	if (q <= 0)
		return 0;
	if (q >= 1)
		return 1;
	p = (double)k >= (double)n * q ? sum_up(n, k, q) : 1 - sum_down(n, k - 1, q);
	return p < 0 ? 0 : p > 1 ? 1 : p;
}

/* P(X <= k) */
static double binomial_le(uint64_t n, uint64_t k, double q)
{
	return k >= n ? 1 : 1 - report_diff__binomial_ge(n, k + 1, q);
}

/*
 * The new profile's count b against the base's a, their sample periods pa
 * and pb: under "the time did not change", each of the n = a + b samples
 * is the new profile's with probability pa / (pa + pb).
 */
static void change_test(uint64_t a, uint64_t b, double pa, double pb, double *p_inc, double *p_dec)
{
	double q = pa / (pa + pb);
	uint64_t n = a + b;

	*p_inc = report_diff__binomial_ge(n, b, q);
	*p_dec = binomial_le(n, b, q);
}

static enum report_change change_of(double p_inc, double p_dec, double alpha)
{
	if (p_inc < alpha)
		return REPORT_INCREASE;
	if (p_dec < alpha)
		return REPORT_DECREASE;
	return REPORT_SAME;
}

static void diff_row_fill(struct report_diff_row *row, const struct report_diff *d, double pa,
			  double pb)
{
	row->base_self_pct = percent(row->base_self, d->base_total);
	row->base_total_pct = percent(row->base_total, d->base_total);
	row->self_pct = percent(row->self, d->total);
	row->total_pct = percent(row->total, d->total);
	row->delta_self = row->self_pct - row->base_self_pct;
	row->delta_total = row->total_pct - row->base_total_pct;
	row->base_self_time = (double)row->base_self * pa;
	row->base_total_time = (double)row->base_total * pa;
	row->self_time = (double)row->self * pb;
	row->total_time = (double)row->total * pb;
	row->delta_self_time = row->self_time - row->base_self_time;
	row->delta_total_time = row->total_time - row->base_total_time;
	row->delta_of_base = d->base_time > 0 ? 100 * row->delta_total_time / d->base_time : 0;
	row->ratio = row->base_total ? row->total_time / row->base_total_time : INFINITY;
	change_test(row->base_total, row->total, pa, pb, &row->p_increase, &row->p_decrease);
	row->change = change_of(row->p_increase, row->p_decrease, d->row_alpha);
}

static int diff_row_cmp(const void *a, const void *b)
{
	const struct report_diff_row *x = a, *y = b;

	if (x->delta_total_time != y->delta_total_time)
		return x->delta_total_time > y->delta_total_time ? -1 : 1;
	if (x->delta_self_time != y->delta_self_time)
		return x->delta_self_time > y->delta_self_time ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* bsearch: a name against a row, for rows sorted by name. */
static int diff_name_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct report_diff_row *)elem)->name);
}

static int diff_name_sort(const void *a, const void *b)
{
	return strcmp(((const struct report_diff_row *)a)->name,
		      ((const struct report_diff_row *)b)->name);
}

struct report_diff *report_diff__new(const struct report *base, const struct report *cur,
				     const struct report_diff_opts *opts)
{
	struct report_diff *d = calloc(1, sizeof(*d));
	size_t nr_base = report__nr_funcs(base), nr_cur = report__nr_funcs(cur);
	double pa = 1, pb = 1;

	if (!d)
		return NULL;
	d->rows = calloc(nr_base + nr_cur + 1, sizeof(*d->rows));
	if (!d->rows) {
		free(d);
		return NULL;
	}
	d->confidence = opts && opts->confidence > 0 && opts->confidence < 1 ? opts->confidence :
									       0.99;
	d->timed = opts && opts->base_period_ns && opts->period_ns;
	if (d->timed) {
		pa = (double)opts->base_period_ns;
		pb = (double)opts->period_ns;
	}
	d->base_total = report__total(base);
	d->total = report__total(cur);
	d->base_time = (double)d->base_total * pa;
	d->time = (double)d->total * pb;
	for (size_t i = 0; i < nr_base; i++) {
		const struct report_func *f = report__func(base, i);

		d->rows[i].name = f->name;
		d->rows[i].base_self = f->self;
		d->rows[i].base_total = f->total;
	}
	qsort(d->rows, nr_base, sizeof(*d->rows), diff_name_sort);
	d->nr = nr_base;
	for (size_t i = 0; i < nr_cur; i++) {
		const struct report_func *f = report__func(cur, i);
		struct report_diff_row *row =
			bsearch(f->name, d->rows, nr_base, sizeof(*d->rows), diff_name_cmp);

		if (!row) {
			row = &d->rows[d->nr++];
			row->name = f->name;
		}
		row->self = f->self;
		row->total = f->total;
	}
	d->row_alpha = (1 - d->confidence) / (double)(d->nr ? d->nr : 1);
	change_test(d->base_total, d->total, pa, pb, &d->p_increase, &d->p_decrease);
	d->change = change_of(d->p_increase, d->p_decrease, 1 - d->confidence);
	for (size_t i = 0; i < d->nr; i++)
		diff_row_fill(&d->rows[i], d, pa, pb);
	qsort(d->rows, d->nr, sizeof(*d->rows), diff_row_cmp);
	return d;
}

void report_diff__free(struct report_diff *d)
{
	if (!d)
		return;
	free(d->rows);
	free(d);
}

bool report_diff__row_exceeds(const struct report_diff_row *row, double pct)
{
	return row->change == REPORT_INCREASE && row->delta_of_base > pct;
}

bool report_diff__exceeds(const struct report_diff *d, double pct)
{
	for (size_t i = 0; i < d->nr; i++)
		if (report_diff__row_exceeds(&d->rows[i], pct))
			return true;
	return false;
}

bool report_diff__total_exceeds(const struct report_diff *d, double pct)
{
	return d->change == REPORT_INCREASE && d->base_time > 0 &&
	       100 * (d->time - d->base_time) / d->base_time > pct;
}

/* The z with P(Z > z) = alpha for a standard normal Z, by bisection. */
static double normal_quantile(double alpha)
{
	double lo = 0, hi = 40;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(mid / M_SQRT2) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * An increase of x samples over a count a is about z standard deviations
 * when x = z * sqrt(2a + x) (the difference of two Poisson counts): x =
 * (z^2 + sqrt(z^4 + 8 z^2 a)) / 2, for the largest a of the base.
 */
double report_diff__detectable(const struct report_diff *d)
{
	double z = normal_quantile(d->row_alpha), a = 0, x;

	for (size_t i = 0; i < d->nr; i++)
		if ((double)d->rows[i].base_total > a)
			a = (double)d->rows[i].base_total;
	if (!d->base_total)
		return INFINITY;
	x = (z * z + sqrt(z * z * z * z + 8 * z * z * a)) / 2;
	return 100 * x / (double)d->base_total;
}
