// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwprof report: read a pprof profile or folded stacks and print the
 * functions that took the time (top), the call tree, the folded stacks
 * again, or the difference from a base profile. Here its options and which
 * view runs; loading is core/profile/report.c's, the views'
 * printing core/profile/report_view.c's.
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
#include "../core/profile/outfile.h"
#include "cmd.h"
#include "../core/util/common.h"
#include "../core/profile/folded.h"
#include "../core/util/json.h"
#include "../core/util/log.h"
#include "../core/profile/out_format.h"
#include "../core/profile/report.h"
#include "../core/profile/report_diff.h"
#include "../core/profile/report_view.h"

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
	int nr_views;		      /* views asked for; more than one is a usage error */
	struct report_view_opts show; /* --top, --sort, --min-percent, --fail-above, ... */
	struct report_filter filter;
	bool json;
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
		   args->output, out_format__extensions());
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
	if (!isnan(args->show.fail_above) && args->view != VIEW_DIFF)
		argp_error(state, "--fail-above needs --diff BASE");
	if (args->show.fail_total && isnan(args->show.fail_above))
		argp_error(state, "--fail-total needs --fail-above PCT");
	if (args->json && args->output)
		argp_error(state, "--json and -o cannot be combined");
	if (args->format_set && !args->output)
		argp_error(state, "--format needs -o FILE");
	if (args->view == VIEW_CONVERT)
		output_format_of(state, args);
	if ((args->show.with_pid || args->show.with_tid) && args->view != VIEW_FOLDED &&
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
		args->show.top = args__uint(state, "--top", arg, 0, INT_MAX, "a number");
		return 0;
	case OPT_SORT:
		if (strcmp(arg, "self") && strcmp(arg, "total"))
			argp_error(state, "--sort: '%s' is not self or total", arg);
		args->show.sort = strcmp(arg, "self") ? REPORT_SORT_TOTAL : REPORT_SORT_SELF;
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
		args->show.min_percent = parse_percent(state, "--min-percent", arg);
		return 0;
	case OPT_FAIL_ABOVE:
		args->show.fail_above = parse_percent(state, "--fail-above", arg);
		return 0;
	case OPT_FAIL_TOTAL:
		args->show.fail_total = true;
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
		if (report__parse_sample_type(arg, &args->filter.type))
			argp_error(state, "--sample-type: '%s' is not cpu, off-cpu or wall", arg);
		return 0;
	case OPT_JSON:
		args->json = true;
		return 0;
	case OPT_WITH_PID:
		args->show.with_pid = true;
		return 0;
	case OPT_WITH_TID:
		args->show.with_tid = true;
		return 0;
	case OPT_LINES:
		args->show.lines = true;
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

/* Running a view */

static int finish_output(struct json_writer *jw)
{
	int err;

	errno = 0;
	err = json__free(jw);
	if (!err && (fflush(stdout) || ferror(stdout)))
		err = -EIO;
	/* a write error of stdout is said by main() */
	if (err)
		cmd_stdout_failed(errno ? -errno : err);
	return err;
}

/* *regressed: a function went over --fail-above. */
static int run_diff(const struct report_args *args, struct report_file *cur, struct json_writer *jw,
		    bool *regressed)
{
	struct report_file base = { .by_line = args->show.lines };
	struct report_diff *d = NULL;
	struct report_diff_opts dopts = {};
	bool failed;
	int err;

	err = report__open_file(&base, args->base, &args->filter, true);
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
	failed = report_view__diff_check(d, &args->show);
	if (args->output)
		err = report_view__diff_svg(args->output, &base, cur);
	else if (jw)
		report_view__diff_json(jw, d, &base, cur, &args->show, failed);
	else
		report_view__diff_text(stdout, d, &base, cur, &args->show);
	*regressed = failed;
cleanup:
	report_diff__free(d);
	report__close_file(&base);
	return err;
}

static int run_view(const struct report_args *args, struct report_file *l, struct json_writer *jw,
		    bool *regressed)
{
	struct folded_opts fopts = report_view__folded_opts(l, &args->show);
	int err = 0;

	switch (args->view) {
	case VIEW_TOP:
		report__sort(l->report, args->show.sort);
		if (jw)
			report_view__top_json(jw, l, &args->show);
		else
			report_view__top_text(stdout, l, &args->show);
		break;
	case VIEW_TREE:
		if (jw)
			err = report_view__tree_json(jw, l, &args->show);
		else
			report_view__tree_text(stdout, l, &args->show);
		break;
	case VIEW_FOLDED:
		err = jw ? report_view__folded_json(jw, l, &fopts) :
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

/* -o FILE: the (filtered) profile in the format FILE's name says, put in place whole. */
static int write_output(const struct report_args *args, const struct report_file *l)
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
	err = report_view__convert(outfile__stream(o), l, &args->show, args->format);
	if (err)
		pr_err("%s: cannot write: %s", outfile__name(o), strerror(-err));
	if (outfile__close(o, !err) && !err)
		err = -EIO;
	return err;
}

static int report_run(const struct report_args *args)
{
	struct report_file l = { .by_line = args->show.lines };
	struct json_writer *jw = NULL;
	bool regressed = false;
	int err, out_err;

	err = report__open_file(&l, args->input, &args->filter, args->view != VIEW_CONVERT);
	if (err)
		goto cleanup;
	if (args->view == VIEW_CONVERT) {
		err = write_output(args, &l);
		goto cleanup;
	}
	if (args->json) {
		jw = json__new(stdout, false);
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
	report__close_file(&l);
	if (err)
		return EXIT_FAIL;
	return regressed ? EXIT_REGRESSION : EXIT_OK;
}

static int cmd_report_fn(int argc, char **argv)
{
	struct report_args args = {
		.show.top = 20,
		.show.min_percent = 0.5,
		.show.fail_above = NAN,
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
