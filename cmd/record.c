// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwprof record: profile processes (-p), the whole system (-a) or a command
 * it launches. Here its options, and the lines it prints while it runs; the
 * run is core/record/recorder.c's, the summary cmd/record_summary.c's.
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

#include "cmd.h"
#include "args.h"
#include "record.h"
#include "../core/util/big_alloc.h"
#include "../core/util/common.h"
#include "../core/util/log.h"
#include "../core/profile/out_format.h"
#include "../core/record/recorder.h"

#define DEFAULT_FREQ 99
#define MAX_FREQ 10000
/* Off-CPU: see the man page for how these defaults were measured. */
#define DEFAULT_OFF_CPU_MIN_US 100
#define DEFAULT_OFF_CPU_WALKS 1000
#define MAX_OFF_CPU_MIN_US 3600000000L /* an hour */
#define MAX_OFF_CPU_WALKS 1000000
/* 48 bytes an entry in the kernel: 4M entries are about 200 MiB, plenty. */
#define MAX_COUNT_MAP_ENTRIES (1L << 22)

enum {
	OPT_PID = 256,
	OPT_TID,
	OPT_NO_KERNEL,
	OPT_FP_ONLY,
	OPT_MAX_SHARDS,
	OPT_QUIET,
	OPT_FORMAT,
	OPT_STATS_JSON,
	OPT_COUNT_MAP_ENTRIES,
	OPT_AS_ROOT,
	OPT_CALL_GRAPH,
	OPT_NO_LINES,
	OPT_OFF_CPU,
	OPT_OFF_CPU_MIN,
	OPT_OFF_CPU_WALKS,
};

static const char record_doc[] =
	"Sample the CPU with perf events and unwind every user stack in BPF with DWARF "
	"unwind tables, so code built without frame pointers gets complete stacks. "
	"Writes folded stacks (flamegraph.pl, speedscope, inferno), a pprof profile "
	"(go tool pprof, unwprof report) or an interactive SVG flame graph to stdout or to "
	"-o FILE, then a summary to stderr (and as JSON to --stats-json FILE).\n"
	"\v"
	"Exactly one target: -p PID[,PID...], -t TID[,TID...], -a, or a COMMAND to launch "
	"(after --); "
	"-a -- COMMAND profiles every process while COMMAND runs, -C CPUs alone every "
	"process on those CPUs. A "
	"launched command is profiled from its exec, its children too; the run ends "
	"when it exits, at -d SECONDS, or at Ctrl-C or SIGTERM (a second Ctrl-C kills "
	"unwprof). Then every process the command started and that is still running "
	"is sent SIGTERM (the signal unwprof got, after Ctrl-C or SIGTERM), and SIGKILL "
	"a second later: nothing of it outlives unwprof. When the profile goes to "
	"stdout, the command's stdout goes to stderr, so that `record -- make > "
	"make.folded` holds the profile alone; with -o FILE the command keeps its stdout. "
	"The output file is "
	"written under a temporary name and renamed at the end, so a failed run leaves "
	"no partial file.\n\n"
	"Folded lines: the process name first, for every thread (comm-PID with --pid, "
	"comm-PID/TID with --tid, and \" (THREAD)\" when the thread has a name of its "
	"own), user frames root first, then kernel frames with the suffix _[k]. A "
	"frame without a symbol is [FILE+0xOFFSET]: the basename of its mapping and the "
	"offset in that file; [unknown] only when no mapping covers the address.\n\n"
	"Needs root, or CAP_BPF and CAP_PERFMON, and a kernel with BTF.\n\n"
	"EXAMPLES:\n"
	"  unwprof record -p 4242 -d 10 > app.folded\n"
	"  unwprof record -p 4242,4243 -F 999 -d 5 -o app.folded\n"
	"  unwprof record -o build.pb.gz -- make -j2\n"
	"  unwprof record -o app.svg --stats-json app-stats.json -p 4242 -d 10\n"
	"  unwprof record -a -d 5 --no-kernel > system.folded\n"
	"  unwprof record -a -o system.pb.gz -- ./load-test.sh   # everything, while it runs\n"
	"  unwprof record -C 0,2-3 -d 5 -o cpus.svg\n"
	"  unwprof record --tid -- ./build/myapp --input data.bin > myapp.folded\n"
	"  unwprof record --fp-only -- ./app    # frame pointers only, to compare\n\n"
	"-g and --call-graph dwarf are accepted as perf users type them: unwprof always "
	"records stacks and walks them with DWARF tables (perf's -g means frame "
	"pointers); --call-graph fp is --fp-only.\n\n"
	"Exit status: with a launched COMMAND, the command's status when it exited by "
	"itself, 0 when it was still running at -d and the run ended it (the profile "
	"bounds the run, the job does not fail), 128+N when unwprof got signal N (130 "
	"at Ctrl-C, 143 at SIGTERM; 137 when the command needed SIGKILL), unless unwprof "
	"itself failed; otherwise 0 on success. "
	"1 on failure, including a COMMAND that cannot be executed (not found, not "
	"executable), 64 on a usage error.\n\n"
	"See unwprof-record(1).";

static const struct argp_option record_options[] = {
	{ NULL, 0, NULL, 0, "Target (exactly one):", 1 },
	{ "pids", 'p', "PID[,PID...]", 0, "Profile these processes and their threads", 1 },
	{ "tids", 't', "TID[,TID...]", 0, "Profile these threads only (perf record -t)", 1 },
	{ "all-cpus", 'a', NULL, 0,
	  "Profile every process (with a COMMAND: while it runs, as perf record -a does)", 1 },
	{ "cpu", 'C', "CPU[,CPU...]", 0,
	  "Sample only on these CPUs (0,2-3); with no other target, every process on them", 1 },
	{ NULL, 0, NULL, 0, "Sampling:", 2 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS (fractions allowed)", 2 },
	{ "freq", 'F', "HZ", 0, "Samples per second per CPU, 1..10000 (default 99)", 2 },
	{ "no-kernel", OPT_NO_KERNEL, NULL, 0, "Leave out kernel frames", 2 },
	{ "fp-only", OPT_FP_ONLY, NULL, 0,
	  "Unwind with frame pointers only, no DWARF tables (to compare)", 2 },
	{ "call-graph", OPT_CALL_GRAPH, "dwarf|fp", 0,
	  "As perf takes it: dwarf is what unwprof always does, fp is --fp-only", 2 },
	{ NULL, 'g', NULL, 0,
	  "Accepted for perf users: stacks are always recorded, walked with DWARF tables (not "
	  "frame pointers, as perf -g means)",
	  2 },
	{ "off-cpu", OPT_OFF_CPU, NULL, 0,
	  "Also record where threads block (off-CPU time), with their stacks", 2 },
	{ "off-cpu-min", OPT_OFF_CPU_MIN, "USEC", 0,
	  "Walk only blocks of USEC or more; count shorter ones (default 100)", 2 },
	{ "off-cpu-walks", OPT_OFF_CPU_WALKS, "N", 0,
	  "Walk at most N blocks a second per CPU; count the rest (default 1000)", 2 },
	{ "max-shards", OPT_MAX_SHARDS, "N", 0, "Cap unwind table memory at N shards", 2 },
	{ "count-map-entries", OPT_COUNT_MAP_ENTRIES, "N", 0,
	  "Distinct stacks held in the kernel between drains", 2 },
	{ "as-root", OPT_AS_ROOT, NULL, 0,
	  "Under sudo, run COMMAND as root instead of as the invoking user", 2 },
	{ NULL, 0, NULL, 0, "Output:", 3 },
	{ "output", 'o', "FILE", 0, "Write the profile to FILE instead of stdout", 3 },
	{ "no-lines", OPT_NO_LINES, NULL, 0,
	  "Name frames by their symbols only: no source lines, no inlined functions", 3 },
	{ "pid", OPT_PID, NULL, 0, "Begin each stack with comm-PID", 3 },
	{ "tid", OPT_TID, NULL, 0,
	  "Begin each stack with comm-PID/TID, and the thread's name when it has its own", 3 },
	{ "format", OPT_FORMAT, "FORMAT", 0,
	  "folded, pprof or svg (default: what -o FILE's name says, folded to stdout)", 3 },
	{ "stats-json", OPT_STATS_JSON, "FILE", 0,
	  "Write the summary to FILE as JSON too, even with --quiet", 3 },
	{ "quiet", OPT_QUIET, NULL, 0, "Do not print the summary nor, on a terminal, the progress",
	  3 },
	{},
};

/* Options */

/*
 * The format -o FILE's name says. A device or FIFO (/dev/null, a pipe) has
 * no extension to go by: folded, which any of them can take.
 */
static void output_format_of(struct argp_state *state, struct record_args *args)
{
	struct recorder_opts *o = &args->opts;
	struct stat st;

	if (args->format_set || !o->output || strcmp(o->output, "-") == 0)
		return;
	if (out_format__from_path(o->output, &o->format) == 0)
		return;
	if (stat(o->output, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return;
	argp_error(state,
		   "-o %s: the format cannot be told from the name: give --format folded, pprof "
		   "or svg, or a name ending in %s",
		   o->output, out_format__extensions());
}

/* The values of -d, -F and the options that take a number. */
static void parse_number(struct argp_state *state, int key, const char *arg,
			 struct recorder_opts *o)
{
	switch (key) {
	case 'd':
		o->duration = args__real(state, "-d", arg, 0, 0, "a positive number of seconds");
		break;
	case 'F':
		o->freq =
			(unsigned int)args__uint(state, "-F", arg, 1, MAX_FREQ, "a frequency (Hz)");
		break;
	case OPT_OFF_CPU_MIN:
		o->off_cpu_min_ns = args__uint(state, "--off-cpu-min", arg, 0, MAX_OFF_CPU_MIN_US,
					       "a number of microseconds") *
				    1000;
		break;
	case OPT_OFF_CPU_WALKS:
		o->off_cpu_walks = (unsigned int)args__uint(state, "--off-cpu-walks", arg, 0,
							    MAX_OFF_CPU_WALKS, "a number");
		break;
	case OPT_MAX_SHARDS:
		o->max_shards = args__uint(state, "--max-shards", arg, 1, SIZE_MAX / 2, "a number");
		break;
	default:
		o->count_map_entries = args__uint(state, "--count-map-entries", arg, 1,
						  MAX_COUNT_MAP_ENTRIES, "a number");
		break;
	}
}

/* -C 0,2-3: a list of CPUs and ranges, kept sorted and distinct. */
static void parse_cpus(struct argp_state *state, struct recorder_opts *o, const char *arg)
{
	const char *s = arg;
	char *end;

	for (;;) {
		long lo, hi;

		errno = 0;
		lo = strtol(s, &end, 10);
		hi = lo;
		if (!errno && end != s && *end == '-') {
			s = end + 1;
			hi = strtol(s, &end, 10);
		}
		if (errno || end == s || lo < 0 || hi < lo || hi >= 65536 || (*end && *end != ','))
			argp_error(state, "-C: '%s' is not a list of CPUs such as 0,2-3", arg);
		for (long c = lo; c <= hi; c++) {
			size_t i = 0;
			int *n;

			while (i < o->nr_cpus && o->cpus[i] < c)
				i++;
			if (i < o->nr_cpus && o->cpus[i] == c)
				continue;
			n = reallocarray(o->cpus, o->nr_cpus + 1, sizeof(*n));
			if (!n)
				argp_failure(state, EXIT_FAIL, ENOMEM, "-C");
			o->cpus = n;
			memmove(&n[i + 1], &n[i], (o->nr_cpus - i) * sizeof(*n));
			n[i] = (int)c;
			o->nr_cpus++;
		}
		if (!*end)
			return;
		s = end + 1;
	}
}

static void check_args(struct argp_state *state, struct record_args *args)
{
	struct recorder_opts *o = &args->opts;
	int targets;

	/* perf record -C: every process on those CPUs, when no other target is given */
	if (o->nr_cpus && !o->nr_pids && !o->command)
		o->all = true;
	if (o->nr_tids && o->nr_pids)
		argp_error(state, "-t and -p cannot be combined: give the threads with -t alone");
	targets = (o->nr_pids > 0 || o->nr_tids > 0) + o->all + (o->command != NULL);
	if (targets == 0)
		argp_error(state, "no target: give -p PID, -t TID, -a, or -- COMMAND");
	if (o->nr_tids && targets > 1)
		argp_error(state, "-t cannot be combined with -a or a COMMAND: give one target");
	if (o->nr_pids && targets > 1)
		argp_error(state, "-p cannot be combined with -a or a COMMAND: give one target");
	if (o->as_root && !o->command)
		argp_error(state, "--as-root: only with a COMMAND to launch");
	if (args->off_cpu_limits && !o->off_cpu)
		argp_error(state, "--off-cpu-min and --off-cpu-walks go with --off-cpu");
}

static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	struct record_args *args = state->input;
	struct recorder_opts *o = &args->opts;

	switch (key) {
	case 'p':
		args__ids(state, "-p", arg, "process", &o->pids, &o->nr_pids);
		return 0;
	case 't':
		args__ids(state, "-t", arg, "thread", &o->tids, &o->nr_tids);
		return 0;
	case 'a':
		o->all = true;
		return 0;
	case 'C':
		parse_cpus(state, o, arg);
		return 0;
	case 'g':
		return 0;
	case OPT_CALL_GRAPH:
		/* perf's "dwarf,8192": the stack size is perf's business */
		if (strcmp(arg, "fp") == 0)
			o->fp_only = true;
		else if (strcmp(arg, "dwarf") && strncmp(arg, "dwarf,", 6))
			argp_error(state,
				   "--call-graph: '%s' is not dwarf or fp (lbr is not supported)",
				   arg);
		return 0;
	case 'd':
	case 'F':
	case OPT_MAX_SHARDS:
	case OPT_COUNT_MAP_ENTRIES:
		parse_number(state, key, arg, o);
		return 0;
	case OPT_OFF_CPU_MIN:
	case OPT_OFF_CPU_WALKS:
		args->off_cpu_limits = true;
		parse_number(state, key, arg, o);
		return 0;
	case OPT_OFF_CPU:
		o->off_cpu = true;
		return 0;
	case 'o':
		o->output = arg;
		return 0;
	case OPT_PID:
		o->pid_prefix = true;
		return 0;
	case OPT_TID:
		o->tid_prefix = true;
		return 0;
	case OPT_NO_KERNEL:
		o->no_kernel = true;
		return 0;
	case OPT_NO_LINES:
		o->no_lines = true;
		return 0;
	case OPT_FP_ONLY:
		o->fp_only = true;
		return 0;
	case OPT_QUIET:
		args->quiet = true;
		return 0;
	case OPT_AS_ROOT:
		o->as_root = true;
		return 0;
	case OPT_STATS_JSON:
		o->stats_json = arg;
		return 0;
	case OPT_FORMAT:
		if (out_format__parse(arg, &o->format))
			argp_error(state, "--format: '%s' is not folded, pprof or svg", arg);
		args->format_set = true;
		return 0;
	case ARGP_KEY_ARG:
		/* The command and its arguments: the rest of argv, options included. */
		o->command = &state->argv[state->next - 1];
		state->next = state->argc;
		return 0;
	case ARGP_KEY_END:
		check_args(state, args);
		output_format_of(state, args);
		if (out_format__binary(o->format) && (!o->output || strcmp(o->output, "-") == 0) &&
		    isatty(STDOUT_FILENO))
			argp_error(
				state,
				"--format %s is binary and stdout is a terminal: give -o FILE or "
				"redirect stdout",
				out_format__name(o->format));
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child record_children[] = {
	{ &common_argp, 0, NULL, 0 },
	{},
};

static const struct argp record_argp = {
	.options = record_options,
	.parser = record_parse,
	.args_doc = "[-- COMMAND [ARGS...]]",
	.doc = record_doc,
	.children = record_children,
};

/* Printing */

const char *record_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* What is sampled, for the line that says sampling started. */
static void print_start(void *ctx, double startup)
{
	const struct recorder_opts *o = &((const struct record_args *)ctx)->opts;
	char what[96], cpus[48] = "", until[48] = "; Ctrl-C to stop";

	if (o->all && o->command)
		snprintf(what, sizeof(what), "every process while %s runs",
			 record_base_name(o->command[0]));
	else if (o->all)
		snprintf(what, sizeof(what), "every process");
	else if (o->command)
		snprintf(what, sizeof(what), "%s and its children",
			 record_base_name(o->command[0]));
	else if (o->nr_tids)
		snprintf(what, sizeof(what), "%zu thread%s", o->nr_tids, o->nr_tids > 1 ? "s" : "");
	else
		snprintf(what, sizeof(what), "%zu process%s", o->nr_pids,
			 o->nr_pids > 1 ? "es" : "");
	if (o->nr_cpus)
		snprintf(cpus, sizeof(cpus), " on %zu CPU%s", o->nr_cpus,
			 o->nr_cpus > 1 ? "s" : "");
	if (o->duration > 0)
		snprintf(until, sizeof(until), " for %g s; Ctrl-C to stop sooner", o->duration);
	fprintf(stderr, "unwprof: sampling %s at %u Hz%s%s (%.0f ms to start)\n", what, o->freq,
		cpus, until, startup * 1e3);
}

/* On a terminal, the samples taken so far, rewritten in place a few times a second. */
static void print_progress(void *ctx, uint64_t samples, double elapsed)
{
	(void)ctx;
	log_status("unwprof: %" PRIu64 " samples in %.1f s", samples, elapsed);
}

/* Main */

static int record_run(struct record_args *args)
{
	bool progress = !args->quiet && isatty(STDERR_FILENO) == 1;
	const struct recorder_hooks hooks = {
		/* on a terminal (or with -v) a line says when sampling starts, a live count follows */
		.started = progress || log_level >= 1 ? print_start : NULL,
		.progress = progress ? print_progress : NULL,
		.ctx = args,
	};
	struct recorder *r;
	int err, code;

	r = recorder__new(&args->opts);
	if (!r)
		return EXIT_FAIL;
	err = recorder__run(r, &hooks);
	if (!err)
		err = recorder__write(r);
	if (!err && !args->quiet)
		record_print_summary(recorder__result(r));
	if (!err)
		err = recorder__write_stats(r, record_write_stats, args);
	code = err ? EXIT_FAIL : recorder__exit_code(r);
	recorder__free(r);
	return code;
}

static int cmd_record_main(int argc, char **argv)
{
	struct record_args args = {
		.opts.freq = DEFAULT_FREQ,
		.opts.off_cpu_min_ns = DEFAULT_OFF_CPU_MIN_US * 1000ULL,
		.opts.off_cpu_walks = DEFAULT_OFF_CPU_WALKS,
	};
	int ret = EXIT_USAGE;

	if (!cmd_parse(&record_argp, argc, argv, &args)) {
		/* The start's large blocks (libbpf's copy of the kernel's BTF, the first tables) in huge pages. */
		big_heap_begin();
		ret = record_run(&args);
	}
	free(args.opts.pids);
	free(args.opts.tids);
	free(args.opts.cpus);
	return ret;
}

const struct unwprof_cmd cmd_record = {
	.name = "record",
	.fn = cmd_record_main,
	.help = "profile processes, the system or a command",
};
