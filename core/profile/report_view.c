// SPDX-License-Identifier: GPL-2.0-only
/*
 * The views of `unwprof report` written out: top, the call tree and the
 * diff as text, every view as JSON, the --fail-above check of a diff, and
 * the (filtered) profile in another format. See report_view.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "flamegraph.h"
#include "folded.h"
#include "../util/json.h"
#include "../util/log.h"
#include "out_format.h"
#include "pprof.h"
#include "profile.h"
#include "report.h"
#include "report_diff.h"
#include "report_view.h"

/* Helpers */

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

static const char *format_name(enum report_format f)
{
	return f == REPORT_FORMAT_PPROF ? "pprof" : "folded";
}

static void print_header(FILE *f, const struct report_file *l)
{
	const struct pprof_meta *m = &l->in.meta;

	fprintf(f, "File: %s (%s%s)\n", l->path, format_name(l->in.format),
		l->in.gzip ? ", gzip" : "");
	fprintf(f, "Samples: %" PRIu64, report__total(l->report));
	if (m->value_type[0] && strcmp(m->value_type, "samples") != 0)
		fprintf(f, " (%s/%s)", m->value_type, m->value_unit);
	if (m->period_ns)
		fprintf(f, ", period %.3f ms", (double)m->period_ns / 1e6);
	if (m->duration_ns)
		fprintf(f, ", duration %.2f s", (double)m->duration_ns / 1e9);
	fprintf(f, "\n");
}

static size_t rows_shown(size_t nr, size_t top)
{
	return top && top < nr ? top : nr;
}

/* Top */

void report_view__top_text(FILE *f, const struct report_file *l, const struct report_view_opts *o)
{
	const struct report *r = l->report;
	uint64_t total = report__total(r);
	size_t nr = rows_shown(report__nr_funcs(r), o->top);
	double sum = 0;

	print_header(f, l);
	fprintf(f, "Showing %zu of %zu functions, sorted by %s\n", nr, report__nr_funcs(r),
		o->sort == REPORT_SORT_SELF ? "self (flat)" : "total (cum)");
	fprintf(f, "%10s %7s %7s %10s %7s  %s\n", "flat", "flat%", "sum%", "cum", "cum%",
		"function");
	for (size_t i = 0; i < nr; i++) {
		const struct report_func *fn = report__func(r, i);

		sum += pct(fn->self, total);
		fprintf(f, "%10" PRIu64 " %6.2f%% %6.2f%% %10" PRIu64 " %6.2f%%  %s\n", fn->self,
			pct(fn->self, total), sum, fn->total, pct(fn->total, total), fn->name);
	}
}

static void json_input(struct json_writer *jw, const struct report_file *l)
{
	const struct pprof_meta *m = &l->in.meta;

	json__object_start(jw);
	json__string_field(jw, "file", l->path);
	json__string_field(jw, "format", format_name(l->in.format));
	json__bool_field(jw, "gzip", l->in.gzip);
	json__uint_field(jw, "samples", profile__total(l->profile));
	json__key(jw, "sample_type"); /* the pprof sample type counted */
	if (m->value_type[0])
		json__stringf(jw, "%s/%s", m->value_type, m->value_unit);
	else
		json__null(jw);
	json__uint_field(jw, "period_ns", m->period_ns);
	json__uint_field(jw, "duration_ns", m->duration_ns);
	json__uint_field(jw, "start_ns", m->start_ns);
	json__object_end(jw);
}

static void json_begin(struct json_writer *jw, const char *view)
{
	json__object_start(jw);
	json__uint_field(jw, "schema", 1);
	json__string_field(jw, "view", view);
}

void report_view__top_json(struct json_writer *jw, const struct report_file *l,
			   const struct report_view_opts *o)
{
	const struct report *r = l->report;
	uint64_t total = report__total(r);
	size_t nr = rows_shown(report__nr_funcs(r), o->top);
	double sum = 0;

	json_begin(jw, "top");
	json__key(jw, "input");
	json_input(jw, l);
	json__string_field(jw, "sort", o->sort == REPORT_SORT_SELF ? "self" : "total");
	json__uint_field(jw, "nr_functions", report__nr_funcs(r));
	json__key(jw, "functions");
	json__array_start(jw);
	for (size_t i = 0; i < nr; i++) {
		const struct report_func *f = report__func(r, i);

		sum += pct(f->self, total);
		json__object_start(jw);
		json__string_field(jw, "name", f->name);
		json__uint_field(jw, "self", f->self);
		json__double_field(jw, "self_percent", pct(f->self, total));
		json__double_field(jw, "sum_percent", sum);
		json__uint_field(jw, "total", f->total);
		json__double_field(jw, "total_percent", pct(f->total, total));
		json__object_end(jw);
	}
	json__array_end(jw);
	json__object_end(jw);
}

/* Tree */

struct tree_ctx {
	const struct report *r;
	uint64_t total;
	double min_percent;
	char prefix[1024];
};

static bool node_shown(const struct tree_ctx *t, const struct report_node *n)
{
	return pct(n->total, t->total) >= t->min_percent;
}

/* Children of n above the cut-off: they come first, sorted by total. */
static uint32_t nr_shown(const struct tree_ctx *t, const struct report_node *n)
{
	uint32_t i = 0;

	while (i < n->nr_children && node_shown(t, report__child(t->r, n, i)))
		i++;
	return i;
}

/*
 * Like `perf report --stdio`: each child is "|--PCT%--name", the last one
 * " --PCT%--name", its own children indented under its name. The indent
 * is bounded: deeper frames are summed up in one line.
 */
static void tree_print_children(FILE *f, struct tree_ctx *t, const struct report_node *n);

/* The only callee with all of n's samples; NULL when n has no such single child. */
static const struct report_node *single_child(const struct tree_ctx *t, const struct report_node *n)
{
	const struct report_node *c = report__child(t->r, n, 0);

	return nr_shown(t, n) == 1 && c->total == n->total ? c : NULL;
}

/* After the name of a call the compiler inlined, as pprof marks it. */
static const char *inline_mark(const struct report_node *n)
{
	return n->inlined ? " (inline)" : "";
}

/* A chain of single callees, "---name" and then one name a line, as perf prints it. */
static void tree_print_chain(FILE *f, struct tree_ctx *t, const struct report_node *c)
{
	size_t len = strlen(t->prefix);
	const char *head = "---";

	for (;;) {
		fprintf(f, "%s%s%s%s\n", t->prefix, head, report__func_name(t->r, c->func),
			inline_mark(c));
		head = "   ";
		if (!single_child(t, c))
			break;
		c = single_child(t, c);
	}
	if (!nr_shown(t, c) || len + 4 >= sizeof(t->prefix))
		return;
	snprintf(t->prefix + len, sizeof(t->prefix) - len, "   ");
	fprintf(f, "%s|\n", t->prefix);
	tree_print_children(f, t, c);
	t->prefix[len] = '\0';
}

static void tree_print_children(FILE *f, struct tree_ctx *t, const struct report_node *n)
{
	uint32_t nr = nr_shown(t, n);
	size_t len = strlen(t->prefix);

	if (single_child(t, n)) {
		tree_print_chain(f, t, single_child(t, n));
		return;
	}

	for (uint32_t i = 0; i < nr; i++) {
		const struct report_node *c = report__child(t->r, n, i);
		bool last = i + 1 == nr;
		char head[32];
		int w;

		w = snprintf(head, sizeof(head), "%s%.2f%%--", last ? " --" : "|--",
			     pct(c->total, t->total));
		fprintf(f, "%s%s%s%s\n", t->prefix, head, report__func_name(t->r, c->func),
			inline_mark(c));
		if (!nr_shown(t, c))
			continue;
		if (len + (size_t)w + 1 >= sizeof(t->prefix)) {
			fprintf(f, "%s   (deeper frames left out)\n", t->prefix);
			continue;
		}
		snprintf(t->prefix + len, sizeof(t->prefix) - len, "%s%*s", last ? " " : "|", w - 1,
			 "");
		fprintf(f, "%s|\n", t->prefix);
		tree_print_children(f, t, c);
		if (!last)
			fprintf(f, "%.*s|\n", (int)len, t->prefix);
		t->prefix[len] = '\0';
	}
}

void report_view__tree_text(FILE *f, const struct report_file *l, const struct report_view_opts *o)
{
	struct tree_ctx t = {
		.r = l->report,
		.total = report__total(l->report),
		.min_percent = o->min_percent,
	};
	const struct report_node *root = report__root(l->report);

	print_header(f, l);
	fprintf(f, "Call tree, callers first; branches below %.2f%% left out\n\n", o->min_percent);
	for (uint32_t i = 0; i < nr_shown(&t, root); i++) {
		const struct report_node *c = report__child(l->report, root, i);

		fprintf(f, "%6.2f%%  %s\n", pct(c->total, t.total),
			report__func_name(t.r, c->func));
		snprintf(t.prefix, sizeof(t.prefix), "%9s", "");
		if (nr_shown(&t, c)) {
			fprintf(f, "%s|\n", t.prefix);
			tree_print_children(f, &t, c);
		}
		fprintf(f, "\n");
	}
}

static void tree_json_node(struct json_writer *jw, const struct tree_ctx *t,
			   const struct report_node *n, size_t id, size_t parent, size_t depth)
{
	json__object_start(jw);
	json__uint_field(jw, "id", id);
	json__uint_field(jw, "parent", parent);
	json__uint_field(jw, "depth", depth);
	json__string_field(jw, "name", report__func_name(t->r, n->func));
	json__bool_field(jw, "inlined", n->inlined);
	json__uint_field(jw, "self", n->self);
	json__double_field(jw, "self_percent", pct(n->self, t->total));
	json__uint_field(jw, "total", n->total);
	json__double_field(jw, "total_percent", pct(n->total, t->total));
	json__object_end(jw);
}

/* A node being walked: which child comes next, and the node's id in the output. */
struct walk {
	const struct report_node *n;
	uint32_t next;
	size_t id;
};

/*
 * The nodes in depth-first order, each with its parent's id (0: the top), so
 * that stacks of any depth nest neither the JSON nor the C stack.
 */
static int tree_json_nodes(struct json_writer *jw, const struct tree_ctx *t)
{
	struct walk *stack = NULL;
	size_t depth = 0, cap, next_id = 1;

	cap = 16;
	stack = malloc(cap * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	stack[0] = (struct walk){ .n = report__root(t->r) };
	for (;;) {
		struct walk *top = &stack[depth];
		const struct report_node *c;

		if (top->next == nr_shown(t, top->n)) {
			if (!depth--)
				break;
			continue;
		}
		c = report__child(t->r, top->n, top->next++);
		tree_json_node(jw, t, c, next_id, top->id, depth + 1);
		if (depth + 1 == cap) {
			struct walk *n = reallocarray(stack, cap * 2, sizeof(*n));

			if (!n) {
				free(stack);
				return -ENOMEM;
			}
			stack = n;
			cap *= 2;
		}
		stack[++depth] = (struct walk){ .n = c, .id = next_id++ };
	}
	free(stack);
	return 0;
}

int report_view__tree_json(struct json_writer *jw, const struct report_file *l,
			   const struct report_view_opts *o)
{
	struct tree_ctx t = {
		.r = l->report,
		.total = report__total(l->report),
		.min_percent = o->min_percent,
	};
	int err;

	json_begin(jw, "tree");
	json__key(jw, "input");
	json_input(jw, l);
	json__double_field(jw, "min_percent", o->min_percent);
	json__key(jw, "nodes");
	json__array_start(jw);
	err = tree_json_nodes(jw, &t);
	json__array_end(jw);
	json__object_end(jw);
	return err;
}

/* Folded */

struct folded_opts report_view__folded_opts(const struct report_file *l,
					    const struct report_view_opts *o)
{
	struct folded_opts opts = { .kernel = true };

	if (l->in.format == REPORT_FORMAT_FOLDED) {
		opts.pid = l->in.folded.pid;
		opts.tid = l->in.folded.tid;
	}
	if (o->with_pid || o->with_tid) {
		opts.pid = true;
		opts.tid = o->with_tid;
	}
	opts.lines = o->lines;
	return opts;
}

/* The folded lines as JSON: each "stack" as folded prints it, and its count. */
int report_view__folded_json(struct json_writer *jw, const struct report_file *l,
			     const struct folded_opts *opts)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -errno;
	err = folded__write(f, l->profile, opts);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(buf);
		return err;
	}
	json_begin(jw, "folded");
	json__key(jw, "input");
	json_input(jw, l);
	json__key(jw, "stacks");
	json__array_start(jw);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *space = strrchr(line, ' ');

		*space = '\0';
		json__object_start(jw);
		json__string_field(jw, "stack", line);
		json__uint_field(jw, "count", strtoull(space + 1, NULL, 10));
		json__object_end(jw);
	}
	json__array_end(jw);
	json__object_end(jw);
	free(buf);
	return 0;
}

/* Diff */

/* A time (ns) as pprof writes it: 1.20s, 601ms, 35us; samples when untimed. */
static void format_time(char *buf, size_t size, double v, bool timed, bool sign)
{
	double a = fabs(v);
	const char *unit = "us";
	double scaled = v / 1e3;
	int prec = 0;

	if (!timed) {
		snprintf(buf, size, sign ? "%+.0f" : "%.0f", v);
		return;
	}
	if (a == 0) {
		snprintf(buf, size, "0");
		return;
	}
	if (a >= 1e9) {
		unit = "s";
		scaled = v / 1e9;
		prec = 2;
	} else if (a >= 1e6) {
		unit = "ms";
		scaled = v / 1e6;
		prec = a >= 1e8 ? 0 : 1;
	}
	if (sign)
		snprintf(buf, size, "%+.*f%s", prec, scaled, unit);
	else
		snprintf(buf, size, "%.*f%s", prec, scaled, unit);
}

static const char *change_word(enum report_change c)
{
	return c == REPORT_INCREASE ? "significant increase" :
	       c == REPORT_DECREASE ? "significant decrease" :
				      "within the noise";
}

static bool diff_row_shown(const struct report_diff_row *row, double min_percent)
{
	return row->base_total_pct >= min_percent || row->total_pct >= min_percent;
}

static size_t diff_nr_shown(const struct report_diff *d, const struct report_view_opts *o)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nr; i++)
		n += diff_row_shown(&d->rows[i], o->min_percent);
	return rows_shown(n, o->top);
}

static void diff_print_input(FILE *f, const char *label, const struct report_file *l,
			     uint64_t samples, double time, bool timed)
{
	char t[32];

	format_time(t, sizeof(t), time, timed, false);
	fprintf(f, "%s %s (%s%s): %" PRIu64 " samples", label, l->path, format_name(l->in.format),
		l->in.gzip ? ", gzip" : "", samples);
	if (timed)
		fprintf(f, ", %s of CPU, period %.3f ms", t, (double)l->in.meta.period_ns / 1e6);
	fprintf(f, "\n");
}

static void diff_print_header(FILE *f, const struct report_diff *d, const struct report_file *base,
			      const struct report_file *cur, size_t shown,
			      const struct report_view_opts *o)
{
	char delta[32];

	diff_print_input(f, "Base:", base, d->base_total, d->base_time, d->timed);
	diff_print_input(f, "New: ", cur, d->total, d->time, d->timed);
	format_time(delta, sizeof(delta), d->time - d->base_time, d->timed, true);
	fprintf(f, "Total: %s (%+.1f%%), %s\n", delta,
		d->base_time > 0 ? 100 * (d->time - d->base_time) / d->base_time : 0.0,
		change_word(d->change));
	if (!d->timed)
		fprintf(f, "Times are in samples: a profile has no sampling period\n");
	fprintf(f,
		"* marks changes of time beyond sampling noise at %.0f%% confidence (binomial "
		"test, Bonferroni over %zu functions)\n",
		100 * d->confidence, d->nr);
	fprintf(f,
		"Showing %zu of %zu functions (cum above %.2f%% in either), largest increase of time "
		"first\n",
		shown, d->nr, o->min_percent);
}

void report_view__diff_text(FILE *f, const struct report_diff *d, const struct report_file *base,
			    const struct report_file *cur, const struct report_view_opts *o)
{
	size_t nr = diff_nr_shown(d, o), done = 0;

	diff_print_header(f, d, base, cur, nr, o);
	fprintf(f, "%10s %10s %10s %7s %10s %7s %7s %7s %7s   %s\n", "base", "new", "Δcum",
		"Δ%base", "Δflat", "base%", "new%", "Δshare", "ratio", "function");
	for (size_t i = 0; i < d->nr && done < nr; i++) {
		const struct report_diff_row *row = &d->rows[i];
		char bt[32], nt[32], dt[32], df[32], ratio[32];

		if (!diff_row_shown(row, o->min_percent))
			continue;
		done++;
		format_time(bt, sizeof(bt), row->base_total_time, d->timed, false);
		format_time(nt, sizeof(nt), row->total_time, d->timed, false);
		format_time(dt, sizeof(dt), row->delta_total_time, d->timed, true);
		format_time(df, sizeof(df), row->delta_self_time, d->timed, true);
		if (isinf(row->ratio))
			snprintf(ratio, sizeof(ratio), "new");
		else if (!row->total)
			snprintf(ratio, sizeof(ratio), "gone");
		else
			snprintf(ratio, sizeof(ratio), "%.2fx", row->ratio);
		fprintf(f, "%10s %10s %10s %+6.1f%% %10s %6.2f%% %6.2f%% %+7.2f %7s %s %s\n", bt,
			nt, dt, row->delta_of_base, df, row->base_total_pct, row->total_pct,
			row->delta_total, ratio, row->change != REPORT_SAME ? "*" : " ", row->name);
	}
}

static void diff_json_row(struct json_writer *jw, const struct report_diff_row *row)
{
	json__object_start(jw);
	json__string_field(jw, "name", row->name);
	json__uint_field(jw, "base_self", row->base_self);
	json__uint_field(jw, "base_total", row->base_total);
	json__uint_field(jw, "self", row->self);
	json__uint_field(jw, "total", row->total);
	json__double_field(jw, "base_self_time", row->base_self_time);
	json__double_field(jw, "base_total_time", row->base_total_time);
	json__double_field(jw, "self_time", row->self_time);
	json__double_field(jw, "total_time", row->total_time);
	json__double_field(jw, "delta_self_time", row->delta_self_time);
	json__double_field(jw, "delta_total_time", row->delta_total_time);
	json__double_field(jw, "delta_percent_of_base", row->delta_of_base);
	json__double_field(jw, "base_self_percent", row->base_self_pct);
	json__double_field(jw, "base_total_percent", row->base_total_pct);
	json__double_field(jw, "self_percent", row->self_pct);
	json__double_field(jw, "total_percent", row->total_pct);
	json__double_field(jw, "delta_self_points", row->delta_self);
	json__double_field(jw, "delta_total_points", row->delta_total);
	json__double_field(jw, "ratio", row->ratio); /* null for a function the base did not have */
	json__double_field(jw, "p_increase", row->p_increase);
	json__double_field(jw, "p_decrease", row->p_decrease);
	json__string_field(jw, "change",
			   row->change == REPORT_INCREASE ? "increase" :
			   row->change == REPORT_DECREASE ? "decrease" :
							    "none");
	json__object_end(jw);
}

static void diff_json_totals(struct json_writer *jw, const struct report_diff *d)
{
	json__string_field(jw, "time_unit", d->timed ? "nanoseconds" : "samples");
	json__double_field(jw, "confidence", d->confidence);
	json__double_field(jw, "base_time", d->base_time);
	json__double_field(jw, "time", d->time);
	json__string_field(jw, "total_change",
			   d->change == REPORT_INCREASE ? "increase" :
			   d->change == REPORT_DECREASE ? "decrease" :
							  "none");
	json__double_field(jw, "detectable_percent", report_diff__detectable(d));
}

void report_view__diff_json(struct json_writer *jw, const struct report_diff *d,
			    const struct report_file *base, const struct report_file *cur,
			    const struct report_view_opts *o, bool failed)
{
	size_t nr = diff_nr_shown(d, o), done = 0;

	json_begin(jw, "diff");
	json__key(jw, "base");
	json_input(jw, base);
	json__key(jw, "input");
	json_input(jw, cur);
	diff_json_totals(jw, d);
	json__key(jw, "fail_above");
	if (isnan(o->fail_above))
		json__null(jw);
	else
		json__double(jw, o->fail_above);
	json__bool_field(jw, "failed", failed);
	json__double_field(jw, "min_percent", o->min_percent);
	json__uint_field(jw, "nr_functions", d->nr);
	json__key(jw, "functions");
	json__array_start(jw);
	for (size_t i = 0; i < d->nr && done < nr; i++) {
		if (!diff_row_shown(&d->rows[i], o->min_percent))
			continue;
		done++;
		diff_json_row(jw, &d->rows[i]);
	}
	json__array_end(jw);
	json__object_end(jw);
}

static int self_growth_cmp(const void *a, const void *b)
{
	const struct report_diff_row *x = *(const struct report_diff_row *const *)a;
	const struct report_diff_row *y = *(const struct report_diff_row *const *)b;

	if (x->delta_self_time != y->delta_self_time)
		return x->delta_self_time > y->delta_self_time ? -1 : 1;
	if (x->delta_total_time != y->delta_total_time)
		return x->delta_total_time > y->delta_total_time ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Names every function over the limit on stderr (and the whole profile with
 * --fail-total); true when there is one.
 */
bool report_view__diff_check(const struct report_diff *d, const struct report_view_opts *o)
{
	const struct report_diff_row **order;
	double limit = o->fail_above, detectable;
	bool failed = false;
	char dt[32];

	if (isnan(limit))
		return false;
	detectable = report_diff__detectable(d);
	if (detectable > limit)
		pr_warn("profiles of %" PRIu64 " and %" PRIu64
			" samples are too small for --fail-above "
			"%.2f: at %.0f%% confidence, an increase is told from noise only above about "
			"%.1f%% of the base's time (in a function on every stack; less in smaller "
			"ones); sample more (a higher -F, a longer run)",
			d->base_total, d->total, limit, 100 * d->confidence, detectable);
	/* The function whose own time grew most first: its callers grew with it. */
	order = calloc(d->nr + 1, sizeof(*order));
	for (size_t i = 0; i < d->nr; i++)
		if (order)
			order[i] = &d->rows[i];
	if (order)
		qsort(order, d->nr, sizeof(*order), self_growth_cmp);
	for (size_t i = 0; i < d->nr; i++) {
		const struct report_diff_row *row = order ? order[i] : &d->rows[i];

		if (!report_diff__row_exceeds(row, limit))
			continue;
		format_time(dt, sizeof(dt), row->delta_total_time, d->timed, true);
		pr_err("%s: %s%s, %+.2f%% of the base's time (more than --fail-above %.2f; p = %.2g)",
		       row->name, dt, d->timed ? "" : " samples", row->delta_of_base, limit,
		       row->p_increase);
		failed = true;
	}
	free(order);
	if (o->fail_total && report_diff__total_exceeds(d, limit)) {
		format_time(dt, sizeof(dt), d->time - d->base_time, d->timed, true);
		pr_err("total: %s%s, %+.2f%% (more than --fail-above %.2f; p = %.2g)", dt,
		       d->timed ? "" : " samples", 100 * (d->time - d->base_time) / d->base_time,
		       limit, d->p_increase);
		failed = true;
	}
	return failed;
}

/*
 * -o FILE.svg with --diff: the new profile's flame graph colored by the change
 * of each frame's time from the base's (red slower, blue faster).
 */
int report_view__diff_svg(const char *path, const struct report_file *base,
			  const struct report_file *cur)
{
	uint64_t pa = base->in.meta.period_ns, pb = cur->in.meta.period_ns;
	char title[512], subtitle[160];
	struct flamegraph_opts opts = {
		.title = title,
		.subtitle = subtitle,
		.kernel = true,
		.base = base->profile,
		.base_scale = pa && pb ? (double)pa / (double)pb : 1,
	};
	struct outfile *o = outfile__open(path, NULL);
	int err;

	if (!o)
		return -errno;
	snprintf(title, sizeof(title), "Differential flame graph: %s against %s", cur->path,
		 base->path);
	snprintf(subtitle, sizeof(subtitle),
		 "%" PRIu64 " samples, base %" PRIu64 "; red: more time than in the base, blue: "
		 "less",
		 profile__total(cur->profile), profile__total(base->profile));
	err = flamegraph__write(outfile__stream(o), cur->profile, &opts);
	if (err)
		pr_err("%s: cannot write: %s", outfile__name(o), strerror(-err));
	if (outfile__close(o, !err) && !err)
		err = -EIO;
	return err;
}

int report_view__convert(FILE *f, const struct report_file *l, const struct report_view_opts *o,
			 enum out_format format)
{
	struct folded_opts fopts = report_view__folded_opts(l, o);
	char subtitle[128];
	struct out_format_opts opts = {
		.pid = fopts.pid,
		.tid = fopts.tid,
		.kernel = fopts.kernel,
		.lines = fopts.lines,
		.meta = l->in.meta,
		.title = l->path,
		.subtitle = subtitle,
	};

	snprintf(subtitle, sizeof(subtitle), "%" PRIu64 " samples", profile__total(l->profile));
	return out_format__write(f, format, l->profile, &opts);
}
