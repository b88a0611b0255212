// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwprof report: read a pprof profile or folded stacks and print the
 * functions that took the time (top), the call tree, the folded stacks
 * again, or the difference from a base profile.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cmd.h"
#include "../core/util/common.h"
#include "../core/profile/flamegraph.h"
#include "../core/profile/folded.h"
#include "../core/profile/formats.h"
#include "../core/util/json.h"
#include "../core/util/log.h"
#include "../core/profile/outfile.h"
#include "../core/profile/pprof.h"
#include "../core/profile/profile.h"
#include "../core/profile/report.h"

/* A performance regression beyond --fail-above; documented in --help. */
#define EXIT_REGRESSION 3

enum {
	OPT_TOP = 256,
	OPT_SORT,
	OPT_FOLDED,
	OPT_TREE,
	OPT_MIN_PERCENT,
	OPT_PID,
	OPT_COMM,
	OPT_DIFF,
	OPT_FAIL_ABOVE,
	OPT_JSON,
	OPT_NO_KERNEL,
	OPT_WITH_PID,
	OPT_WITH_TID,
	OPT_LINES,
	OPT_FORMAT,
	OPT_FAIL_TOTAL,
	OPT_SAMPLE_TYPE,
};

enum view {
	VIEW_TOP,
	VIEW_TREE,
	VIEW_FOLDED,
	VIEW_DIFF,
	VIEW_CONVERT, /* -o: write the profile in another format, print nothing */
};

struct report_args {
	const char *input;
	const char *base;
	const char *output;
	enum out_format format; /* of -o */
	bool format_set;
	enum view view;
	int nr_views; /* views asked for; more than one is a usage error */
	size_t top;
	enum report_sort sort;
	double min_percent;
	double fail_above; /* NAN when not given */
	bool fail_total;   /* --fail-total: the whole profile's time too */
	struct report_filter filter;
	bool json;
	bool with_pid, with_tid;
	bool lines; /* by source line */
};

/* A profile as loaded and filtered, with what its file said about itself. */
struct loaded {
	const char *path;
	struct profile *profile;
	struct report_input in;
	struct report *report;
	bool by_line; /* set before loaded__open: functions are "NAME FILE:LINE" */
};

static const char report_doc[] =
	"Read a profile written by `unwprof record` (pprof or folded stacks) or by "
	"another producer (Go's runtime/pprof, perf converters, stackcollapse tools) and "
	"show where the time went. The format is told from the content: gzip or not, "
	"pprof protocol buffer or folded text.\n"
	"\v"
	"Views (one at a time; top when none is given):\n"
	"  top       functions by self (flat) and total (cum) samples, like pprof -top\n"
	"  --tree    callers to callees, children by total, small branches left out\n"
	"  --folded  the stacks as record prints them (comm, comm-PID or comm-PID/TID\n"
	"            as the input had them, or as --with-pid/--with-tid say)\n"
	"  --diff    each function's CPU time in BASE and in the input, the change in\n"
	"            time, in percent of BASE's time and in share, the ratio of times,\n"
	"            and * where the change is beyond sampling noise; largest increase\n"
	"            of time first\n"
	"Functions the compiler inlined into their caller are frames of their own:\n"
	"\"(inline)\" in the tree, \"_[i]\" in folded stacks. --lines shows source lines:\n"
	"top, tree and diff count \"NAME FILE:LINE\" (like pprof -lines), folded\n"
	"stacks get \":LINE\" on each frame.\n"
	"A profile of record --off-cpu holds time on the CPU and off it: every view\n"
	"shows the CPU's (as pprof's default does), or with --sample-type off-cpu the\n"
	"time blocked, or with wall both added; times off the CPU are in microseconds.\n"
	"--pid, --comm and --no-kernel filter the samples before any view. --json\n"
	"prints any view as {\"schema\": 1, \"view\": NAME, ...}. Profiles larger than\n"
	"1 GiB, compressed or not, are refused.\n\n"
	"EXAMPLES:\n"
	"  unwprof report -i app.pb.gz\n"
	"  unwprof report -i app.pb.gz --sort total --top 50\n"
	"  unwprof report -i app.folded --tree --min-percent 2\n"
	"  unwprof report -i app.pb.gz --lines --top 10       # the hottest source lines\n"
	"  unwprof report -i app.pb.gz --pid 4242 --folded > app-4242.folded\n"
	"  unwprof report -i app.folded -o app.pb.gz          # convert to pprof\n"
	"  unwprof report --diff base.pb.gz -i new.pb.gz --fail-above 10\n"
	"  unwprof report --diff base.pb.gz -i new.pb.gz -o diff.svg   # red slower, blue faster\n"
	"  unwprof report -i app.pb.gz --sample-type off-cpu --tree   # where it waits\n\n"
	"Exit status: 0 on success, 1 on failure (a missing, corrupt, truncated or "
	"empty profile), 3 when --fail-above is exceeded, 64 on a usage error.\n\n"
	"See unwprof-report(1).";

static const struct argp_option report_options[] = {
	{ NULL, 0, NULL, 0, "Input:", 1 },
	{ "input", 'i', "FILE", 0, "The profile to read (required; - for stdin)", 1 },
	{ "pid", OPT_PID, "PID", 0, "Only the samples of process PID", 1 },
	{ "comm", OPT_COMM, "NAME", 0, "Only the samples of processes or threads named NAME", 1 },
	{ "no-kernel", OPT_NO_KERNEL, NULL, 0, "Leave out kernel frames", 1 },
	{ "sample-type", OPT_SAMPLE_TYPE, "cpu|off-cpu|wall", 0,
	  "With off-CPU samples: the time counted (default cpu)", 1 },
	{ NULL, 0, NULL, 0, "Views:", 2 },
	{ "top", OPT_TOP, "N", 0, "Show N functions (default 20; 0 for all)", 2 },
	{ "sort", OPT_SORT, "self|total", 0, "Order of the top view (default self)", 2 },
	{ "tree", OPT_TREE, NULL, 0, "Show the call tree", 2 },
	{ "min-percent", OPT_MIN_PERCENT, "PCT", 0,
	  "Tree: leave out branches below PCT% of all samples; diff: functions below PCT% in "
	  "both (default 0.5)",
	  2 },
	{ "folded", OPT_FOLDED, NULL, 0, "Print folded stacks", 2 },
	{ "with-pid", OPT_WITH_PID, NULL, 0, "Folded: begin each stack with comm-PID", 2 },
	{ "with-tid", OPT_WITH_TID, NULL, 0, "Folded: begin each stack with comm-PID/TID", 2 },
	{ "lines", OPT_LINES, NULL, 0,
	  "By source line: FILE:LINE after each function (top, tree, diff); :LINE on each frame "
	  "(folded)",
	  2 },
	{ "diff", OPT_DIFF, "BASE", 0, "Compare the input with the profile BASE", 2 },
	{ "fail-above", OPT_FAIL_ABOVE, "PCT", 0,
	  "Diff: exit 3 when a function's time grew by more than PCT% of the base's time, "
	  "beyond noise",
	  2 },
	{ "fail-total", OPT_FAIL_TOTAL, NULL, 0,
	  "Diff: --fail-above applies to the whole profile's time too", 2 },
	{ NULL, 0, NULL, 0, "Output:", 3 },
	{ "json", OPT_JSON, NULL, 0, "Print the view as JSON ({\"schema\": 1, \"view\": ...})", 3 },
	{ "output", 'o', "FILE", 0,
	  "Write the (filtered) profile to FILE instead of showing a view: pprof, folded or a "
	  "flame graph, as its name says",
	  3 },
	{ "format", OPT_FORMAT, "FORMAT", 0, "-o: folded, pprof or svg, whatever FILE is named",
	  3 },
	{},
};

/* Options */

static double parse_percent(struct argp_state *state, const char *opt, const char *arg)
{
	return args__real(state, opt, arg, 0, 100, "a percentage in 0..100");
}

static void set_view(struct report_args *args, enum view view)
{
	if (args->view != view)
		args->nr_views++;
	args->view = view;
}

/* -o FILE: the format its name says; a device or FIFO, pprof as before. */
static void output_format_of(struct argp_state *state, struct report_args *args)
{
	struct stat st;

	if (args->format_set)
		return;
	args->format = OUT_PPROF;
	if (strcmp(args->output, "-") == 0 ||
	    out_format__from_path(args->output, &args->format) == 0)
		goto tty;
	if (stat(args->output, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		goto tty;
	argp_error(state,
		   "-o %s: the format cannot be told from the name: give --format folded, pprof "
		   "or svg, or a name ending in %s",
		   args->output, out_format__extensions);
tty:
	if (out_format__binary(args->format) && strcmp(args->output, "-") == 0 &&
	    isatty(STDOUT_FILENO))
		argp_error(state, "-o -: pprof is binary and stdout is a terminal: redirect it");
}

static void check_args(struct argp_state *state, struct report_args *args)
{
	if (!args->input)
		argp_error(state, "no input: give -i FILE (- for stdin)");
	/* --diff BASE -o FILE.svg: the diff as a differential flame graph */
	if (args->base && args->output && args->nr_views == 2) {
		args->nr_views = 1;
		args->view = VIEW_DIFF;
		output_format_of(state, args);
		if (args->format != OUT_SVG)
			argp_error(state, "--diff with -o draws a differential flame graph: give "
					  "-o FILE.svg (or --format svg)");
	}
	if (args->nr_views > 1)
		argp_error(state, "--tree, --folded, --diff and -o cannot be combined: give one");
	if (!isnan(args->fail_above) && args->view != VIEW_DIFF)
		argp_error(state, "--fail-above needs --diff BASE");
	if (args->fail_total && isnan(args->fail_above))
		argp_error(state, "--fail-total needs --fail-above PCT");
	if (args->json && args->output)
		argp_error(state, "--json and -o cannot be combined");
	if (args->format_set && !args->output)
		argp_error(state, "--format needs -o FILE");
	if (args->view == VIEW_CONVERT)
		output_format_of(state, args);
	if ((args->with_pid || args->with_tid) && args->view != VIEW_FOLDED &&
	    args->view != VIEW_CONVERT)
		argp_error(state, "--with-pid and --with-tid need --folded or -o");
	if (args->base && strcmp(args->base, "-") == 0 && strcmp(args->input, "-") == 0)
		argp_error(state, "the input and BASE cannot both be stdin");
}

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct report_args *args = state->input;

	switch (key) {
	case 'i':
		args->input = arg;
		return 0;
	case 'o':
		args->output = arg;
		set_view(args, VIEW_CONVERT);
		return 0;
	case OPT_TOP:
		args->top = args__uint(state, "--top", arg, 0, INT_MAX, "a number");
		return 0;
	case OPT_SORT:
		if (strcmp(arg, "self") && strcmp(arg, "total"))
			argp_error(state, "--sort: '%s' is not self or total", arg);
		args->sort = strcmp(arg, "self") ? REPORT_SORT_TOTAL : REPORT_SORT_SELF;
		return 0;
	case OPT_TREE:
		set_view(args, VIEW_TREE);
		return 0;
	case OPT_FOLDED:
		set_view(args, VIEW_FOLDED);
		return 0;
	case OPT_DIFF:
		args->base = arg;
		set_view(args, VIEW_DIFF);
		return 0;
	case OPT_MIN_PERCENT:
		args->min_percent = parse_percent(state, "--min-percent", arg);
		return 0;
	case OPT_FAIL_ABOVE:
		args->fail_above = parse_percent(state, "--fail-above", arg);
		return 0;
	case OPT_FAIL_TOTAL:
		args->fail_total = true;
		return 0;
	case OPT_PID:
		args->filter.pid =
			(uint32_t)args__uint(state, "--pid", arg, 0, UINT32_MAX, "a number");
		args->filter.has_pid = true;
		return 0;
	case OPT_COMM:
		args->filter.comm = arg;
		return 0;
	case OPT_NO_KERNEL:
		args->filter.no_kernel = true;
		return 0;
	case OPT_SAMPLE_TYPE:
		if (report_sample_type__parse(arg, &args->filter.type))
			argp_error(state, "--sample-type: '%s' is not cpu, off-cpu or wall", arg);
		return 0;
	case OPT_JSON:
		args->json = true;
		return 0;
	case OPT_WITH_PID:
		args->with_pid = true;
		return 0;
	case OPT_WITH_TID:
		args->with_tid = true;
		return 0;
	case OPT_LINES:
		args->lines = true;
		return 0;
	case OPT_FORMAT:
		if (out_format__parse(arg, &args->format))
			argp_error(state, "--format: '%s' is not folded, pprof or svg", arg);
		args->format_set = true;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s': give the profile with -i", arg);
		return 0;
	case ARGP_KEY_END:
		check_args(state, args);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child report_children[] = {
	{ &common_argp, 0, NULL, 0 },
	{},
};

static const struct argp report_argp = {
	.options = report_options,
	.parser = report_parse,
	.doc = report_doc,
	.children = report_children,
};

/* Loading */

/*
 * The filter of l's views, with what a count stands for in them: the type
 * asked for, or, in a profile with off-CPU samples, CPU time (as pprof's
 * default sample type) when it has any; times off the CPU are counted in
 * REPORT_TIME_UNIT_NS, which is then the views' period.
 */
static int loaded__sample_type(struct loaded *l, const struct profile *all,
			       const struct report_filter *filter, struct report_filter *typed)
{
	struct pprof_meta *m = &l->in.meta;
	bool off = profile__has_off_cpu(all), on = false;

	for (size_t i = 0; i < profile__nr_samples(all) && !on; i++)
		on = !(profile__sample(all, i)->flags & PROFILE_SAMPLE_OFF_CPU);
	*typed = *filter;
	/* the values of folded off-CPU lines are microseconds, on the CPU too */
	if (l->in.format == REPORT_FORMAT_FOLDED && l->in.folded.times)
		m->period_ns = REPORT_TIME_UNIT_NS;
	if (typed->type != REPORT_SAMPLES && typed->type != REPORT_CPU && !off) {
		pr_err("%s: no off-CPU samples (unwprof record --off-cpu makes them)", l->path);
		return -ENODATA;
	}
	if (typed->type == REPORT_SAMPLES && off)
		typed->type = on ? REPORT_CPU : REPORT_OFF_CPU;
	if (typed->type == REPORT_WALL && !m->period_ns) {
		pr_err("%s: wall time needs the sampling period, which the profile does not say",
		       l->path);
		return -ENODATA;
	}
	typed->period_ns = m->period_ns;
	if (typed->type == REPORT_OFF_CPU || typed->type == REPORT_WALL) {
		m->period_ns = REPORT_TIME_UNIT_NS;
		snprintf(m->value_type, sizeof(m->value_type), "%s",
			 typed->type == REPORT_WALL ? "wall" : "off-cpu");
		snprintf(m->value_unit, sizeof(m->value_unit), "microseconds");
	}
	return 0;
}

static int loaded__open(struct loaded *l, const char *path, const struct report_filter *filter,
			bool need_report)
{
	struct report_filter typed;
	struct profile *all = NULL;
	int err;

	l->path = path;
	err = report__load(path, &all, &l->in);
	if (!err)
		err = loaded__sample_type(l, all, filter, &typed);
	if (err) {
		profile__free(all);
		return err;
	}
	l->profile = report__filter(all, &typed);
	profile__free(all);
	if (!l->profile) {
		err = -errno;
		pr_err("%s: %s", path, strerror(errno));
		return err;
	}
	if (!profile__total(l->profile)) {
		pr_err("%s: no sample matches --pid/--comm", path);
		return -ENODATA;
	}
	if (!need_report)
		return 0;
	l->report = report__new_by(l->profile, l->by_line);
	if (!l->report) {
		err = -errno;
		pr_err("%s: %s", path, strerror(errno));
	}
	return err;
}

static void loaded__close(struct loaded *l)
{
	report__free(l->report);
	profile__free(l->profile);
}

/* Printing helpers */

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

static const char *format_name(enum report_format f)
{
	return f == REPORT_FORMAT_PPROF ? "pprof" : "folded";
}

static void print_header(const struct loaded *l)
{
	const struct pprof_meta *m = &l->in.meta;

	printf("File: %s (%s%s)\n", l->path, format_name(l->in.format), l->in.gzip ? ", gzip" : "");
	printf("Samples: %" PRIu64, report__total(l->report));
	if (m->value_type[0] && strcmp(m->value_type, "samples") != 0)
		printf(" (%s/%s)", m->value_type, m->value_unit);
	if (m->period_ns)
		printf(", period %.3f ms", (double)m->period_ns / 1e6);
	if (m->duration_ns)
		printf(", duration %.2f s", (double)m->duration_ns / 1e9);
	printf("\n");
}

static size_t rows_shown(size_t nr, size_t top)
{
	return top && top < nr ? top : nr;
}

/* Top */

static void top_print_text(const struct loaded *l, const struct report_args *args)
{
	const struct report *r = l->report;
	uint64_t total = report__total(r);
	size_t nr = rows_shown(report__nr_funcs(r), args->top);
	double sum = 0;

	print_header(l);
	printf("Showing %zu of %zu functions, sorted by %s\n", nr, report__nr_funcs(r),
	       args->sort == REPORT_SORT_SELF ? "self (flat)" : "total (cum)");
	printf("%10s %7s %7s %10s %7s  %s\n", "flat", "flat%", "sum%", "cum", "cum%", "function");
	for (size_t i = 0; i < nr; i++) {
		const struct report_func *f = report__func(r, i);

		sum += pct(f->self, total);
		printf("%10" PRIu64 " %6.2f%% %6.2f%% %10" PRIu64 " %6.2f%%  %s\n", f->self,
		       pct(f->self, total), sum, f->total, pct(f->total, total), f->name);
	}
}

static void json_input(struct json_writer *jw, const struct loaded *l)
{
	const struct pprof_meta *m = &l->in.meta;

	jw_object_start(jw);
	jw_string_field(jw, "file", l->path);
	jw_string_field(jw, "format", format_name(l->in.format));
	jw_bool_field(jw, "gzip", l->in.gzip);
	jw_uint_field(jw, "samples", profile__total(l->profile));
	jw_key(jw, "sample_type"); /* the pprof sample type counted */
	if (m->value_type[0])
		jw_stringf(jw, "%s/%s", m->value_type, m->value_unit);
	else
		jw_null(jw);
	jw_uint_field(jw, "period_ns", m->period_ns);
	jw_uint_field(jw, "duration_ns", m->duration_ns);
	jw_uint_field(jw, "start_ns", m->start_ns);
	jw_object_end(jw);
}

static void json_begin(struct json_writer *jw, const char *view)
{
	jw_object_start(jw);
	jw_uint_field(jw, "schema", 1);
	jw_string_field(jw, "view", view);
}

static void top_print_json(struct json_writer *jw, const struct loaded *l,
			   const struct report_args *args)
{
	const struct report *r = l->report;
	uint64_t total = report__total(r);
	size_t nr = rows_shown(report__nr_funcs(r), args->top);
	double sum = 0;

	json_begin(jw, "top");
	jw_key(jw, "input");
	json_input(jw, l);
	jw_string_field(jw, "sort", args->sort == REPORT_SORT_SELF ? "self" : "total");
	jw_uint_field(jw, "nr_functions", report__nr_funcs(r));
	jw_key(jw, "functions");
	jw_array_start(jw);
	for (size_t i = 0; i < nr; i++) {
		const struct report_func *f = report__func(r, i);

		sum += pct(f->self, total);
		jw_object_start(jw);
		jw_string_field(jw, "name", f->name);
		jw_uint_field(jw, "self", f->self);
		jw_double_field(jw, "self_percent", pct(f->self, total));
		jw_double_field(jw, "sum_percent", sum);
		jw_uint_field(jw, "total", f->total);
		jw_double_field(jw, "total_percent", pct(f->total, total));
		jw_object_end(jw);
	}
	jw_array_end(jw);
	jw_object_end(jw);
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
static void tree_print_children(struct tree_ctx *t, const struct report_node *n);

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
static void tree_print_chain(struct tree_ctx *t, const struct report_node *c)
{
	size_t len = strlen(t->prefix);
	const char *head = "---";

	for (;;) {
		printf("%s%s%s%s\n", t->prefix, head, report__func_name(t->r, c->func),
		       inline_mark(c));
		head = "   ";
		if (!single_child(t, c))
			break;
		c = single_child(t, c);
	}
	if (!nr_shown(t, c) || len + 4 >= sizeof(t->prefix))
		return;
	snprintf(t->prefix + len, sizeof(t->prefix) - len, "   ");
	printf("%s|\n", t->prefix);
	tree_print_children(t, c);
	t->prefix[len] = '\0';
}

static void tree_print_children(struct tree_ctx *t, const struct report_node *n)
{
	uint32_t nr = nr_shown(t, n);
	size_t len = strlen(t->prefix);

	if (single_child(t, n)) {
		tree_print_chain(t, single_child(t, n));
		return;
	}

	for (uint32_t i = 0; i < nr; i++) {
		const struct report_node *c = report__child(t->r, n, i);
		bool last = i + 1 == nr;
		char head[32];
		int w;

		w = snprintf(head, sizeof(head), "%s%.2f%%--", last ? " --" : "|--",
			     pct(c->total, t->total));
		printf("%s%s%s%s\n", t->prefix, head, report__func_name(t->r, c->func),
		       inline_mark(c));
		if (!nr_shown(t, c))
			continue;
		if (len + (size_t)w + 1 >= sizeof(t->prefix)) {
			printf("%s   (deeper frames left out)\n", t->prefix);
			continue;
		}
		snprintf(t->prefix + len, sizeof(t->prefix) - len, "%s%*s", last ? " " : "|", w - 1,
			 "");
		printf("%s|\n", t->prefix);
		tree_print_children(t, c);
		if (!last)
			printf("%.*s|\n", (int)len, t->prefix);
		t->prefix[len] = '\0';
	}
}

static void tree_print_text(const struct loaded *l, const struct report_args *args)
{
	struct tree_ctx t = {
		.r = l->report,
		.total = report__total(l->report),
		.min_percent = args->min_percent,
	};
	const struct report_node *root = report__root(l->report);

	print_header(l);
	printf("Call tree, callers first; branches below %.2f%% left out\n\n", args->min_percent);
	for (uint32_t i = 0; i < nr_shown(&t, root); i++) {
		const struct report_node *c = report__child(l->report, root, i);

		printf("%6.2f%%  %s\n", pct(c->total, t.total), report__func_name(t.r, c->func));
		snprintf(t.prefix, sizeof(t.prefix), "%9s", "");
		if (nr_shown(&t, c)) {
			printf("%s|\n", t.prefix);
			tree_print_children(&t, c);
		}
		printf("\n");
	}
}

static void tree_json_node(struct json_writer *jw, const struct tree_ctx *t,
			   const struct report_node *n, size_t id, size_t parent, size_t depth)
{
	jw_object_start(jw);
	jw_uint_field(jw, "id", id);
	jw_uint_field(jw, "parent", parent);
	jw_uint_field(jw, "depth", depth);
	jw_string_field(jw, "name", report__func_name(t->r, n->func));
	jw_bool_field(jw, "inlined", n->inlined);
	jw_uint_field(jw, "self", n->self);
	jw_double_field(jw, "self_percent", pct(n->self, t->total));
	jw_uint_field(jw, "total", n->total);
	jw_double_field(jw, "total_percent", pct(n->total, t->total));
	jw_object_end(jw);
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

static int tree_print_json(struct json_writer *jw, const struct loaded *l,
			   const struct report_args *args)
{
	struct tree_ctx t = {
		.r = l->report,
		.total = report__total(l->report),
		.min_percent = args->min_percent,
	};
	int err;

	json_begin(jw, "tree");
	jw_key(jw, "input");
	json_input(jw, l);
	jw_double_field(jw, "min_percent", args->min_percent);
	jw_key(jw, "nodes");
	jw_array_start(jw);
	err = tree_json_nodes(jw, &t);
	jw_array_end(jw);
	jw_object_end(jw);
	return err;
}

/* Folded */

static struct folded_opts folded_opts_of(const struct loaded *l, const struct report_args *args)
{
	struct folded_opts opts = { .kernel = true };

	if (l->in.format == REPORT_FORMAT_FOLDED) {
		opts.pid = l->in.folded.pid;
		opts.tid = l->in.folded.tid;
	}
	if (args->with_pid || args->with_tid) {
		opts.pid = true;
		opts.tid = args->with_tid;
	}
	opts.lines = args->lines;
	return opts;
}

/* The folded lines as JSON: each "stack" as folded prints it, and its count. */
static int folded_print_json(struct json_writer *jw, const struct loaded *l,
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
	jw_key(jw, "input");
	json_input(jw, l);
	jw_key(jw, "stacks");
	jw_array_start(jw);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *space = strrchr(line, ' ');

		*space = '\0';
		jw_object_start(jw);
		jw_string_field(jw, "stack", line);
		jw_uint_field(jw, "count", strtoull(space + 1, NULL, 10));
		jw_object_end(jw);
	}
	jw_array_end(jw);
	jw_object_end(jw);
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

static size_t diff_nr_shown(const struct report_diff *d, const struct report_args *args)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nr; i++)
		n += diff_row_shown(&d->rows[i], args->min_percent);
	return rows_shown(n, args->top);
}

static void diff_print_input(const char *label, const struct loaded *l, uint64_t samples,
			     double time, bool timed)
{
	char t[32];

	format_time(t, sizeof(t), time, timed, false);
	printf("%s %s (%s%s): %" PRIu64 " samples", label, l->path, format_name(l->in.format),
	       l->in.gzip ? ", gzip" : "", samples);
	if (timed)
		printf(", %s of CPU, period %.3f ms", t, (double)l->in.meta.period_ns / 1e6);
	printf("\n");
}

static void diff_print_header(const struct report_diff *d, const struct loaded *base,
			      const struct loaded *cur, size_t shown,
			      const struct report_args *args)
{
	char delta[32];

	diff_print_input("Base:", base, d->base_total, d->base_time, d->timed);
	diff_print_input("New: ", cur, d->total, d->time, d->timed);
	format_time(delta, sizeof(delta), d->time - d->base_time, d->timed, true);
	printf("Total: %s (%+.1f%%), %s\n", delta,
	       d->base_time > 0 ? 100 * (d->time - d->base_time) / d->base_time : 0.0,
	       change_word(d->change));
	if (!d->timed)
		printf("Times are in samples: a profile has no sampling period\n");
	printf("* marks changes of time beyond sampling noise at %.0f%% confidence (binomial "
	       "test, Bonferroni over %zu functions)\n",
	       100 * d->confidence, d->nr);
	printf("Showing %zu of %zu functions (cum above %.2f%% in either), largest increase of time "
	       "first\n",
	       shown, d->nr, args->min_percent);
}

static void diff_print_text(const struct report_diff *d, const struct loaded *base,
			    const struct loaded *cur, const struct report_args *args)
{
	size_t nr = diff_nr_shown(d, args), done = 0;

	diff_print_header(d, base, cur, nr, args);
	printf("%10s %10s %10s %7s %10s %7s %7s %7s %7s   %s\n", "base", "new", "Δcum", "Δ%base",
	       "Δflat", "base%", "new%", "Δshare", "ratio", "function");
	for (size_t i = 0; i < d->nr && done < nr; i++) {
		const struct report_diff_row *row = &d->rows[i];
		char bt[32], nt[32], dt[32], df[32], ratio[32];

		if (!diff_row_shown(row, args->min_percent))
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
		printf("%10s %10s %10s %+6.1f%% %10s %6.2f%% %6.2f%% %+7.2f %7s %s %s\n", bt, nt,
		       dt, row->delta_of_base, df, row->base_total_pct, row->total_pct,
		       row->delta_total, ratio, row->change != REPORT_SAME ? "*" : " ", row->name);
	}
}

static void diff_json_row(struct json_writer *jw, const struct report_diff_row *row)
{
	jw_object_start(jw);
	jw_string_field(jw, "name", row->name);
	jw_uint_field(jw, "base_self", row->base_self);
	jw_uint_field(jw, "base_total", row->base_total);
	jw_uint_field(jw, "self", row->self);
	jw_uint_field(jw, "total", row->total);
	jw_double_field(jw, "base_self_time", row->base_self_time);
	jw_double_field(jw, "base_total_time", row->base_total_time);
	jw_double_field(jw, "self_time", row->self_time);
	jw_double_field(jw, "total_time", row->total_time);
	jw_double_field(jw, "delta_self_time", row->delta_self_time);
	jw_double_field(jw, "delta_total_time", row->delta_total_time);
	jw_double_field(jw, "delta_percent_of_base", row->delta_of_base);
	jw_double_field(jw, "base_self_percent", row->base_self_pct);
	jw_double_field(jw, "base_total_percent", row->base_total_pct);
	jw_double_field(jw, "self_percent", row->self_pct);
	jw_double_field(jw, "total_percent", row->total_pct);
	jw_double_field(jw, "delta_self_points", row->delta_self);
	jw_double_field(jw, "delta_total_points", row->delta_total);
	jw_double_field(jw, "ratio", row->ratio); /* null for a function the base did not have */
	jw_double_field(jw, "p_increase", row->p_increase);
	jw_double_field(jw, "p_decrease", row->p_decrease);
	jw_string_field(jw, "change",
			row->change == REPORT_INCREASE ? "increase" :
			row->change == REPORT_DECREASE ? "decrease" :
							 "none");
	jw_object_end(jw);
}

static void diff_json_totals(struct json_writer *jw, const struct report_diff *d)
{
	jw_string_field(jw, "time_unit", d->timed ? "nanoseconds" : "samples");
	jw_double_field(jw, "confidence", d->confidence);
	jw_double_field(jw, "base_time", d->base_time);
	jw_double_field(jw, "time", d->time);
	jw_string_field(jw, "total_change",
			d->change == REPORT_INCREASE ? "increase" :
			d->change == REPORT_DECREASE ? "decrease" :
						       "none");
	jw_double_field(jw, "detectable_percent", report_diff__detectable(d));
}

static void diff_print_json(struct json_writer *jw, const struct report_diff *d,
			    const struct loaded *base, const struct loaded *cur,
			    const struct report_args *args, bool failed)
{
	size_t nr = diff_nr_shown(d, args), done = 0;

	json_begin(jw, "diff");
	jw_key(jw, "base");
	json_input(jw, base);
	jw_key(jw, "input");
	json_input(jw, cur);
	diff_json_totals(jw, d);
	jw_key(jw, "fail_above");
	if (isnan(args->fail_above))
		jw_null(jw);
	else
		jw_double(jw, args->fail_above);
	jw_bool_field(jw, "failed", failed);
	jw_double_field(jw, "min_percent", args->min_percent);
	jw_uint_field(jw, "nr_functions", d->nr);
	jw_key(jw, "functions");
	jw_array_start(jw);
	for (size_t i = 0; i < d->nr && done < nr; i++) {
		if (!diff_row_shown(&d->rows[i], args->min_percent))
			continue;
		done++;
		diff_json_row(jw, &d->rows[i]);
	}
	jw_array_end(jw);
	jw_object_end(jw);
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
static bool diff_check(const struct report_diff *d, const struct report_args *args)
{
	const struct report_diff_row **order;
	double limit = args->fail_above, detectable;
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

		if (!report_diff_row__exceeds(row, limit))
			continue;
		format_time(dt, sizeof(dt), row->delta_total_time, d->timed, true);
		pr_err("%s: %s%s, %+.2f%% of the base's time (more than --fail-above %.2f; p = %.2g)",
		       row->name, dt, d->timed ? "" : " samples", row->delta_of_base, limit,
		       row->p_increase);
		failed = true;
	}
	free(order);
	if (args->fail_total && report_diff__total_exceeds(d, limit)) {
		format_time(dt, sizeof(dt), d->time - d->base_time, d->timed, true);
		pr_err("total: %s%s, %+.2f%% (more than --fail-above %.2f; p = %.2g)", dt,
		       d->timed ? "" : " samples", 100 * (d->time - d->base_time) / d->base_time,
		       limit, d->p_increase);
		failed = true;
	}
	return failed;
}

/* Running a view */

static int finish_output(struct json_writer *jw)
{
	int err;

	errno = 0;
	err = json_writer__free(jw);
	if (!err && (fflush(stdout) || ferror(stdout)))
		err = -EIO;
	/* a write error of stdout is said by main() */
	if (err)
		cmd_stdout_failed(errno ? -errno : err);
	return err;
}

/*
 * -o FILE.svg with --diff: the new profile's flame graph colored by the change
 * of each frame's time from the base's (red slower, blue faster).
 */
static int write_diff_svg(const struct report_args *args, const struct loaded *base,
			  const struct loaded *cur)
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
	struct outfile *o = outfile__open(args->output, NULL);
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

/* *regressed: a function went over --fail-above. */
static int run_diff(const struct report_args *args, struct loaded *cur, struct json_writer *jw,
		    bool *regressed)
{
	struct loaded base = { .by_line = args->lines };
	struct report_diff *d = NULL;
	struct report_diff_opts dopts = {};
	bool failed;
	int err;

	err = loaded__open(&base, args->base, &args->filter, true);
	if (err)
		goto cleanup;
	dopts.base_period_ns = base.in.meta.period_ns;
	dopts.period_ns = cur->in.meta.period_ns;
	d = report_diff__new(base.report, cur->report, &dopts);
	if (!d) {
		err = -errno;
		pr_err("diff: %s", strerror(errno));
		goto cleanup;
	}
	failed = diff_check(d, args);
	if (args->output)
		err = write_diff_svg(args, &base, cur);
	else if (jw)
		diff_print_json(jw, d, &base, cur, args, failed);
	else
		diff_print_text(d, &base, cur, args);
	*regressed = failed;
cleanup:
	report_diff__free(d);
	loaded__close(&base);
	return err;
}

static int run_view(const struct report_args *args, struct loaded *l, struct json_writer *jw,
		    bool *regressed)
{
	struct folded_opts fopts = folded_opts_of(l, args);
	int err = 0;

	switch (args->view) {
	case VIEW_TOP:
		report__sort(l->report, args->sort);
		if (jw)
			top_print_json(jw, l, args);
		else
			top_print_text(l, args);
		break;
	case VIEW_TREE:
		if (jw)
			err = tree_print_json(jw, l, args);
		else
			tree_print_text(l, args);
		break;
	case VIEW_FOLDED:
		err = jw ? folded_print_json(jw, l, &fopts) :
			   folded__write(stdout, l->profile, &fopts);
		if (err == -ENOMEM)
			pr_err("%s: %s", l->path, strerror(-err));
		else if (err)
			cmd_stdout_failed(err); /* said by main() */
		break;
	case VIEW_DIFF:
		err = run_diff(args, l, jw, regressed);
		break;
	case VIEW_CONVERT:
		break;
	}
	return err;
}

static int write_converted(FILE *f, const struct report_args *args, const struct loaded *l)
{
	struct pprof_write_opts popts = { .meta = l->in.meta };
	struct folded_opts fopts = folded_opts_of(l, args);
	char subtitle[128];
	struct flamegraph_opts gopts = {
		.title = l->path,
		.subtitle = subtitle,
		.pid = fopts.pid,
		.tid = fopts.tid,
		.kernel = true,
	};

	snprintf(subtitle, sizeof(subtitle), "%" PRIu64 " samples", profile__total(l->profile));
	switch (args->format) {
	case OUT_PPROF:
		return pprof__write(f, l->profile, &popts);
	case OUT_SVG:
		return flamegraph__write(f, l->profile, &gopts);
	default:
		return folded__write(f, l->profile, &fopts);
	}
}

/* -o FILE: the (filtered) profile in the format FILE's name says, put in place whole. */
static int write_output(const struct report_args *args, const struct loaded *l)
{
	struct outfile *o = outfile__open(args->output, NULL);
	int err;

	if (!o)
		return -errno;
	if (out_format__binary(args->format) && outfile__is_tty(o)) {
		pr_err("%s: a terminal: pprof is binary, write it to a file", outfile__name(o));
		outfile__close(o, false);
		return -EINVAL;
	}
	err = write_converted(outfile__stream(o), args, l);
	if (err)
		pr_err("%s: cannot write: %s", outfile__name(o), strerror(-err));
	if (outfile__close(o, !err) && !err)
		err = -EIO;
	return err;
}

static int report_run(const struct report_args *args)
{
	struct loaded l = { .by_line = args->lines };
	struct json_writer *jw = NULL;
	bool regressed = false;
	int err, out_err;

	err = loaded__open(&l, args->input, &args->filter, args->view != VIEW_CONVERT);
	if (err)
		goto cleanup;
	if (args->view == VIEW_CONVERT) {
		err = write_output(args, &l);
		goto cleanup;
	}
	if (args->json) {
		jw = json_writer__new(stdout, false);
		if (!jw) {
			err = -errno;
			goto cleanup;
		}
	}
	err = run_view(args, &l, jw, &regressed);
	out_err = finish_output(jw);
	if (out_err && !err)
		err = out_err;
cleanup:
	loaded__close(&l);
	if (err)
		return EXIT_FAIL;
	return regressed ? EXIT_REGRESSION : EXIT_OK;
}

static int cmd_report_fn(int argc, char **argv)
{
	struct report_args args = {
		.top = 20,
		.min_percent = 0.5,
		.fail_above = NAN,
	};

	if (cmd_parse(&report_argp, argc, argv, &args))
		return EXIT_USAGE;
	return report_run(&args);
}

const struct unwprof_cmd cmd_report = {
	.name = "report",
	.fn = cmd_report_fn,
	.help = "read a profile: top functions, call tree, folded stacks, diff",
};
