// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwprof record: profile processes (-p), the whole system (-a) or a command
 * it launches, then write folded stacks and print a summary.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <search.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "record.h"
#include "../core/util/common.h"
#include "../core/session/failures.h"
#include "../core/profile/flamegraph.h"
#include "../core/profile/formats.h"
#include "../core/profile/folded.h"
#include "../core/util/json.h"
#include "../core/targets/launch.h"
#include "../core/util/log.h"
#include "../core/profile/outfile.h"
#include "../core/profile/pprof.h"
#include "../core/targets/procfs.h"
#include "../core/targets/procmaps.h"
#include "../core/targets/procnames.h"
#include "../core/profile/profile.h"
#include "../core/session/session.h"
#include "../core/symbols/symbolize.h"

#define DEFAULT_FREQ 99
#define MAX_FREQ 10000
#define POLL_MS 100
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
};

/* The writer of each output format (core/profile/formats.h names them). */
typedef int (*output_writer)(FILE *f, const struct record *rec);

static volatile sig_atomic_t exiting;
static volatile sig_atomic_t exit_signal;

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
	{ "max-shards", OPT_MAX_SHARDS, "N", 0, "Cap unwind table memory at N shards", 2 },
	{ "count-map-entries", OPT_COUNT_MAP_ENTRIES, "N", 0,
	  "Distinct stacks held in the kernel between drains", 2 },
	{ "as-root", OPT_AS_ROOT, NULL, 0,
	  "Under sudo, run COMMAND as root instead of as the invoking user", 2 },
	{ NULL, 0, NULL, 0, "Output:", 3 },
	{ "output", 'o', "FILE", 0, "Write the profile to FILE instead of stdout", 3 },
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

static int write_folded(FILE *f, const struct record *rec);
static int write_pprof(FILE *f, const struct record *rec);
static int write_svg(FILE *f, const struct record *rec);

static const output_writer writers[OUT_NR] = {
	[OUT_FOLDED] = write_folded,
	[OUT_PPROF] = write_pprof,
	[OUT_SVG] = write_svg,
};

/*
 * The format -o FILE's name says. A device or FIFO (/dev/null, a pipe) has
 * no extension to go by: folded, which any of them can take.
 */
static void output_format_of(struct argp_state *state, struct record_args *args)
{
	struct stat st;

	if (args->format_set || !args->output || strcmp(args->output, "-") == 0)
		return;
	if (out_format__from_path(args->output, &args->format) == 0)
		return;
	if (stat(args->output, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return;
	argp_error(state,
		   "-o %s: the format cannot be told from the name: give --format folded, pprof "
		   "or svg, or a name ending in %s",
		   args->output, out_format__extensions);
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > INT_MAX)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

/* -p PID,... or -t TID,...: appended to *ids. */
static void parse_pids(struct argp_state *state, int key, pid_t **ids, size_t *nr, const char *arg)
{
	const char *what = key == 't' ? "thread" : "process";
	char *list = strdup(arg), *tok, *save = NULL;
	pid_t *n;

	if (!list)
		argp_failure(state, EXIT_FAIL, ENOMEM, "-%c", key);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		n = reallocarray(*ids, *nr + 1, sizeof(*n));
		if (!n)
			argp_failure(state, EXIT_FAIL, ENOMEM, "-%c", key);
		*ids = n;
		if (parse_pid(tok, &n[*nr]))
			argp_error(state, "-%c: '%s' is not a %s id", key, tok, what);
		(*nr)++;
	}
	free(list);
	if (!*nr)
		argp_error(state, "-%c: no %s id in '%s'", key, what, arg);
}

static void parse_number(struct argp_state *state, int key, const char *arg,
			 struct record_args *args)
{
	char *end;
	double d;
	long v;

	errno = 0;
	if (key == 'd') {
		d = strtod(arg, &end);
		if (errno || end == arg || *end || !isfinite(d) || d <= 0)
			argp_error(state, "-d: '%s' is not a positive number of seconds", arg);
		args->duration = d;
		return;
	}
	v = strtol(arg, &end, 10);
	if (key == 'F') {
		if (errno || end == arg || *end || v < 1 || v > MAX_FREQ)
			argp_error(state, "-F: '%s' is not a frequency in 1..%d Hz", arg, MAX_FREQ);
		args->freq = (unsigned int)v;
		return;
	}
	if (key == OPT_MAX_SHARDS) {
		if (errno || end == arg || *end || v < 1)
			argp_error(state, "--max-shards: '%s' is not a positive number", arg);
		args->max_shards = (size_t)v;
		return;
	}
	if (errno || end == arg || *end || v < 1 || v > MAX_COUNT_MAP_ENTRIES)
		argp_error(state, "--count-map-entries: '%s' is not a number in 1..%ld", arg,
			   MAX_COUNT_MAP_ENTRIES);
	args->count_map_entries = (size_t)v;
}

/* -C 0,2-3: a list of CPUs and ranges, kept sorted and distinct. */
static void parse_cpus(struct argp_state *state, struct record_args *args, const char *arg)
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

			while (i < args->nr_cpus && args->cpus[i] < c)
				i++;
			if (i < args->nr_cpus && args->cpus[i] == c)
				continue;
			n = reallocarray(args->cpus, args->nr_cpus + 1, sizeof(*n));
			if (!n)
				argp_failure(state, EXIT_FAIL, ENOMEM, "-C");
			args->cpus = n;
			memmove(&n[i + 1], &n[i], (args->nr_cpus - i) * sizeof(*n));
			n[i] = (int)c;
			args->nr_cpus++;
		}
		if (!*end)
			return;
		s = end + 1;
	}
}

static void check_args(struct argp_state *state, struct record_args *args)
{
	int targets;

	/* perf record -C: every process on those CPUs, when no other target is given */
	if (args->nr_cpus && !args->nr_pids && !args->command)
		args->all = true;
	if (args->nr_tids && args->nr_pids)
		argp_error(state, "-t and -p cannot be combined: give the threads with -t alone");
	targets = (args->nr_pids > 0 || args->nr_tids > 0) + args->all + (args->command != NULL);
	if (targets == 0)
		argp_error(state, "no target: give -p PID, -t TID, -a, or -- COMMAND");
	if (args->nr_tids && targets > 1)
		argp_error(state, "-t cannot be combined with -a or a COMMAND: give one target");
	if (args->nr_pids && targets > 1)
		argp_error(state, "-p cannot be combined with -a or a COMMAND: give one target");
	if (args->as_root && !args->command)
		argp_error(state, "--as-root: only with a COMMAND to launch");
}

static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	struct record_args *args = state->input;

	switch (key) {
	case 'p':
		parse_pids(state, 'p', &args->pids, &args->nr_pids, arg);
		return 0;
	case 't':
		parse_pids(state, 't', &args->tids, &args->nr_tids, arg);
		return 0;
	case 'a':
		args->all = true;
		return 0;
	case 'C':
		parse_cpus(state, args, arg);
		return 0;
	case 'g':
		return 0;
	case OPT_CALL_GRAPH:
		/* perf's "dwarf,8192": the stack size is perf's business */
		if (strcmp(arg, "fp") == 0)
			args->fp_only = true;
		else if (strcmp(arg, "dwarf") && strncmp(arg, "dwarf,", 6))
			argp_error(state,
				   "--call-graph: '%s' is not dwarf or fp (lbr is not supported)",
				   arg);
		return 0;
	case 'd':
	case 'F':
	case OPT_MAX_SHARDS:
	case OPT_COUNT_MAP_ENTRIES:
		parse_number(state, key, arg, args);
		return 0;
	case 'o':
		args->output = arg;
		return 0;
	case OPT_PID:
		args->pid_prefix = true;
		return 0;
	case OPT_TID:
		args->tid_prefix = true;
		return 0;
	case OPT_NO_KERNEL:
		args->no_kernel = true;
		return 0;
	case OPT_FP_ONLY:
		args->fp_only = true;
		return 0;
	case OPT_QUIET:
		args->quiet = true;
		return 0;
	case OPT_AS_ROOT:
		args->as_root = true;
		return 0;
	case OPT_STATS_JSON:
		args->stats_json = arg;
		return 0;
	case OPT_FORMAT:
		if (out_format__parse(arg, &args->format))
			argp_error(state, "--format: '%s' is not folded, pprof or svg", arg);
		args->format_set = true;
		return 0;
	case ARGP_KEY_ARG:
		/* The command and its arguments: the rest of argv, options included. */
		args->command = &state->argv[state->next - 1];
		state->next = state->argc;
		return 0;
	case ARGP_KEY_END:
		check_args(state, args);
		output_format_of(state, args);
		if (out_format__binary(args->format) &&
		    (!args->output || strcmp(args->output, "-") == 0) && isatty(STDOUT_FILENO))
			argp_error(
				state,
				"--format %s is binary and stdout is a terminal: give -o FILE or "
				"redirect stdout",
				out_format__name(args->format));
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

/* Helpers */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *record_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* Signals */

/*
 * The first signal ends the run; a second one removes the temporary files
 * and kills unwprof at once (the kernel releases every BPF object and perf
 * event with the process).
 */
static void on_signal(int sig)
{
	if (!exiting) {
		exiting = 1;
		exit_signal = sig;
		return;
	}
	outfile__unlink_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Output */

static struct outfile_opts outfile_opts_of(const struct record *rec)
{
	/* Under sudo, the files written belong to the user who ran it. */
	return (struct outfile_opts){
		.set_owner = rec->invoker.set,
		.uid = rec->invoker.uid,
		.gid = rec->invoker.gid,
	};
}

/* --stats-json FILE: created (unnamed) before the run, so that it fails before, not after. */
static int stats_open(struct record *rec)
{
	struct outfile_opts opts = outfile_opts_of(rec);

	rec->stats_out = outfile__open(rec->args->stats_json, &opts);
	return rec->stats_out ? 0 : -errno;
}

static int output_open(struct record *rec)
{
	struct outfile_opts opts = outfile_opts_of(rec);

	rec->out = outfile__open(rec->args->output, &opts);
	if (!rec->out)
		return -errno;
	if (out_format__binary(rec->args->format) && outfile__is_tty(rec->out)) {
		pr_err("%s: a terminal: %s is binary, write it to a file", outfile__name(rec->out),
		       out_format__name(rec->args->format));
		return -EINVAL;
	}
	return 0;
}

static int write_folded(FILE *f, const struct record *rec)
{
	struct folded_opts opts = {
		.pid = rec->args->pid_prefix,
		.tid = rec->args->tid_prefix,
		.kernel = !rec->args->no_kernel,
	};

	return folded__write(f, rec->profile, &opts);
}

static int write_pprof(FILE *f, const struct record *rec)
{
	struct pprof_write_opts opts = {
		.meta = {
			.start_ns = rec->start_ns,
			.duration_ns = (uint64_t)(rec->elapsed * 1e9),
			.period_ns = 1000000000ULL / rec->args->freq,
		},
		.main_file = rec->main_file,
		.no_kernel = rec->args->no_kernel,
	};

	return pprof__write(f, rec->profile, &opts);
}

static int write_svg(FILE *f, const struct record *rec)
{
	const struct record_args *args = rec->args;
	char title[PATH_MAX + 64], subtitle[128];
	struct flamegraph_opts opts = {
		.title = title,
		.subtitle = subtitle,
		.pid = args->pid_prefix,
		.tid = args->tid_prefix,
		.kernel = !args->no_kernel,
	};

	if (args->command)
		snprintf(title, sizeof(title), "unwprof record %s-- %s", args->all ? "-a " : "",
			 args->command[0]);
	else if (args->all)
		snprintf(title, sizeof(title), "unwprof record -a");
	else if (args->nr_tids)
		snprintf(title, sizeof(title), "unwprof record -t %d%s", (int)args->tids[0],
			 args->nr_tids > 1 ? ",..." : "");
	else
		snprintf(title, sizeof(title), "unwprof record -p %d%s", (int)args->pids[0],
			 args->nr_pids > 1 ? ",..." : "");
	snprintf(subtitle, sizeof(subtitle), "%" PRIu64 " samples at %u Hz in %.1f s",
		 profile__total(rec->profile), args->freq, rec->elapsed);
	return flamegraph__write(f, rec->profile, &opts);
}

static int write_profile(struct record *rec)
{
	const struct record_args *args = rec->args;
	int err;

	err = symbolizer__symbolize_profile(rec->symbolizer, rec->profile);
	if (err) {
		pr_err("symbolizing the profile: %s", strerror(-err));
		return err;
	}
	err = writers[args->format](outfile__stream(rec->out), rec);
	if (err)
		pr_err("%s: cannot write: %s", outfile__name(rec->out), strerror(-err));
	return err;
}

/* Session callbacks */

static void on_sample(void *ctx, const struct session_sample *s)
{
	struct record *rec = ctx;
	struct profile_stack st = {
		.pid = s->pid,
		.tid = s->tid,
		.comm = proc_names__get(rec->names, s->pid, s->tid, s->comm),
		.thread = s->comm,
		.flags = s->flags,
		.user_addrs = s->user_pcs,
		.nr_user = s->nr_user,
		.kernel_addrs = s->kernel_pcs,
		.nr_kernel = rec->args->no_kernel ? 0 : s->nr_kernel,
	};
	int err = symbolizer__add_stack(rec->symbolizer, rec->profile, &st, s->count);

	if (s->flags & SAMPLE_FP)
		rec->outcomes.fp += s->count;
	else if (s->flags & SAMPLE_COMPLETE)
		rec->outcomes.walked += s->count;
	else if (!s->nr_user && (s->flags & SAMPLE_KERNEL) && s->pid == 0)
		rec->outcomes.idle += s->count;
	else if (!s->nr_user && (s->flags & SAMPLE_KERNEL))
		rec->outcomes.kernel += s->count;
	else
		rec->outcomes.failed += s->count;
	if (err && !rec->err)
		rec->err = err;
}

static void on_process(void *ctx, const struct procmaps *maps)
{
	struct record *rec = ctx;
	int err = symbolizer__add_process(rec->symbolizer, maps);

	proc_names__forget(rec->names, (uint32_t)maps->pid);
	if (err && !rec->err)
		rec->err = err;
}

static void on_python(void *ctx, uint32_t pid, const struct py_runtime *pr, uint64_t bias)
{
	struct record *rec = ctx;
	int err = symbolizer__add_python(rec->symbolizer, pid, pr, bias);

	if (err && err != -ENOENT && err != -ESRCH)
		pr_info("process %u: its Python frames cannot be named: %s", pid, strerror(-err));
}

static void on_python_code(void *ctx, const struct unw_py_code_event *e, size_t size)
{
	struct record *rec = ctx;

	symbolizer__python_code(rec->symbolizer, e, size);
}

static void on_ruby(void *ctx, uint32_t pid, const struct rb_runtime *rr, uint64_t bias)
{
	struct record *rec = ctx;
	int err = symbolizer__add_ruby(rec->symbolizer, pid, rr, bias);

	if (err && err != -ENOENT && err != -ESRCH)
		pr_info("process %u: its Ruby frames cannot be named: %s", pid, strerror(-err));
}

static void on_ruby_iseq(void *ctx, uint32_t pid, uint64_t iseq, uint64_t where)
{
	struct record *rec = ctx;

	symbolizer__ruby_iseq(rec->symbolizer, pid, iseq, where);
}

static void on_process_exit(void *ctx, uint32_t pid)
{
	struct record *rec = ctx;
	int err = symbolizer__end_process(rec->symbolizer, rec->profile, pid);

	proc_names__forget(rec->names, pid);
	if (err && !rec->err)
		rec->err = err;
}

/* Samples of pid stopped at pc: counted under the file the pc is in. */
static void on_failure(void *ctx, uint32_t pid, uint64_t pc, unsigned int reason, uint64_t n)
{
	struct record *rec = ctx;
	struct symbol_info info = {};
	int err;

	/* no user stack: idle CPUs and kernel threads, counted apart, are no failure */
	if (!pc && reason == record_no_user_reason())
		return;
	if (pc)
		symbolizer__lookup(rec->symbolizer, pid, pc, &info);
	err = failures__add(rec->failures, pc ? info.file : "[before the walk]", reason, n);
	if (err && !rec->err)
		rec->err = err;
}

/* Launching a command */

/* Forks the command, held before its exec; under sudo it will run as the invoking user. */
static int record_launch(struct record *rec)
{
	const struct invoker *inv = &rec->invoker;
	struct launch_opts opts = {
		.argv = rec->args->command,
		.set_user = inv->set && !rec->args->as_root,
		.uid = inv->uid,
		.gid = inv->gid,
		.groups = inv->groups,
		.nr_groups = inv->nr_groups,
		/* the profile goes to stdout: the command's output must not mix with it */
		.stdout_to_stderr = !rec->args->output || strcmp(rec->args->output, "-") == 0,
	};

	rec->launch = launch__new(&opts);
	if (!rec->launch)
		return -errno;
	rec->child = launch__pid(rec->launch);
	return 0;
}

/* Session setup */

static struct session *record_session_new(struct record *rec)
{
	const struct record_args *args = rec->args;
	struct session_opts opts = {
		.pids = rec->child ? &rec->child : rec->targets.pids,
		.nr_pids = rec->child ? 1 : rec->targets.nr,
		.system_wide = args->all,
		/* -a -- COMMAND: everything is sampled, and nothing is held */
		.follow_children = rec->child != 0 && !args->all,
		.hold_new_code = rec->child != 0 && !args->all,
		.freq = args->freq,
		.cpus = args->cpus,
		.nr_cpus = args->nr_cpus,
		.tids = args->tids,
		.nr_tids = args->nr_tids,
		.fp_only = args->fp_only,
		.kernel_stacks = !args->no_kernel,
		.max_shards = args->max_shards,
		.count_map_entries = args->count_map_entries,
		.on_sample = on_sample,
		.on_process = on_process,
		.on_exit = on_process_exit,
		.on_python = on_python,
		.on_python_code = on_python_code,
		.on_ruby = on_ruby,
		.on_ruby_iseq = on_ruby_iseq,
		.on_failure = on_failure,
		.ctx = rec,
	};

	return session__new(&opts);
}

static int add_targets(struct record *rec)
{
	const struct pid_targets *t = &rec->targets;
	int err;

	for (size_t i = 0; i < t->nr; i++) {
		err = session__add_process(rec->session, t->pids[i]);
		if (err) {
			pr_err("pid %d: cannot profile it: %s", (int)t->pids[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The executable of pid as its mappings name it: pprof puts its mapping first. */
static char *exe_path(pid_t pid)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

/* Loading can take seconds: a signal meanwhile ends the run before sampling. */
static int check_interrupted(void)
{
	if (!exiting)
		return 0;
	pr_err("interrupted while loading the unwind tables: nothing recorded");
	return -EINTR;
}

/* -v: a step of the startup done, and how long it took. */
static void step_done(double *t, const char *what)
{
	double n = now();

	pr_info("%s: %.0f ms", what, (n - *t) * 1e3);
	*t = n;
}

/*
 * new → load → targets → attach; a launched command is released to exec
 * after load, added at its exec stop, and let go once sampling runs.
 */
static int record_setup(struct record *rec)
{
	double t = now();
	int err;

	if (rec->args->command) {
		err = record_launch(rec);
		if (err)
			return err;
	}
	rec->session = record_session_new(rec);
	if (!rec->session) {
		err = -errno;
		pr_err("cannot create the BPF session: %s", strerror(errno));
		goto cleanup;
	}
	step_done(&t, "BPF maps sized and opened");
	err = session__load(rec->session);
	/* Checked before the exec too: a Ctrl-C at the terminal has ended the command. */
	if (!err)
		err = check_interrupted();
	if (err)
		goto cleanup;
	step_done(&t, "BPF programs loaded and verified, the tables known so far built");
	err = rec->launch ? launch__exec(rec->launch) : add_targets(rec);
	if (!err && rec->child)
		err = session__add_process(rec->session, rec->child);
	if (!err && (rec->child || rec->targets.nr == 1))
		rec->main_file = exe_path(rec->child ? rec->child : rec->targets.pids[0]);
	if (!err)
		err = check_interrupted();
	if (!err && (rec->child || rec->targets.nr))
		step_done(&t,
			  rec->child ?
				  "command started, held at its exec, its unwind tables loaded" :
				  "unwind tables of the targets loaded");
	if (!err)
		err = session__attach(rec->session);
	if (!err)
		step_done(&t, "perf events attached");
	if (!err && rec->launch)
		err = launch__detach(rec->launch);
cleanup:
	/* Held before its exec, or stopped at it and traced by us: only SIGKILL ends it. */
	if (err && rec->launch)
		launch__finish(rec->launch, SIGKILL);
	return err;
}

/* The run */

/* True once the launched command has exited; its status is kept. */
static bool child_exited(struct record *rec)
{
	return rec->launch && launch__exited(rec->launch);
}

/* True when the kernel counts the run time of BPF programs. */
static bool bpf_stats_enabled(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
	int v = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v == 1;
}

/* The sampler's mean run time per sample in ns; -1 when the kernel does not count it. */
static double bpf_ns_per_sample(const struct session *s)
{
	uint64_t ns, cnt;

	if (!bpf_stats_enabled() || session__prog_stats(s, &ns, &cnt) || !cnt)
		return -1;
	return (double)ns / (double)cnt;
}

/* What is sampled, for the line that says sampling started. */
static void print_start(const struct record *rec)
{
	const struct record_args *args = rec->args;
	char what[96], cpus[48] = "", until[48] = "; Ctrl-C to stop";

	if (args->all && args->command)
		snprintf(what, sizeof(what), "every process while %s runs",
			 record_base_name(args->command[0]));
	else if (args->all)
		snprintf(what, sizeof(what), "every process");
	else if (args->command)
		snprintf(what, sizeof(what), "%s and its children",
			 record_base_name(args->command[0]));
	else if (args->nr_tids)
		snprintf(what, sizeof(what), "%zu thread%s", args->nr_tids,
			 args->nr_tids > 1 ? "s" : "");
	else
		snprintf(what, sizeof(what), "%zu process%s", args->nr_pids,
			 args->nr_pids > 1 ? "es" : "");
	if (args->nr_cpus)
		snprintf(cpus, sizeof(cpus), " on %zu CPU%s", args->nr_cpus,
			 args->nr_cpus > 1 ? "s" : "");
	if (args->duration > 0)
		snprintf(until, sizeof(until), " for %g s; Ctrl-C to stop sooner", args->duration);
	if (rec->progress || log_level >= 1)
		fprintf(stderr, "unwprof: sampling %s at %u Hz%s%s (%.0f ms to start)\n", what,
			args->freq, cpus, until, (now() - rec->t0) * 1e3);
}

/* On a terminal, the samples taken so far, rewritten in place a few times a second. */
static void print_progress(const struct record *rec, double elapsed)
{
	struct session_stats st;

	if (!rec->progress)
		return;
	session__stats(rec->session, &st);
	log_status("unwprof: %" PRIu64 " samples in %.1f s", st.samples, elapsed);
}

static int record_loop(struct record *rec)
{
	double start = now(), left, shown = 0;
	struct timespec wall;
	int err = 0, stop_err, timeout;

	clock_gettime(CLOCK_REALTIME, &wall);
	rec->start_ns = (uint64_t)wall.tv_sec * 1000000000ULL + (uint64_t)wall.tv_nsec;
	print_start(rec);

	while (!exiting && !rec->err && !child_exited(rec) && !pid_targets__exited(&rec->targets)) {
		timeout = POLL_MS;
		if (rec->args->duration > 0) {
			left = rec->args->duration - (now() - start);
			if (left <= 0)
				break;
			if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		err = session__poll(rec->session, timeout);
		if (err == -EINTR)
			err = 0;
		if (err)
			break;
		if (now() - shown >= 0.25) {
			shown = now();
			print_progress(rec, shown - start);
		}
	}
	log_status_end();
	rec->elapsed = now() - start;
	rec->command_ended = rec->launch && !launch__exited(rec->launch);
	/* Stopped first, so that the last drain delivers every sample taken. */
	stop_err = session__stop(rec->session);
	if (!err)
		err = session__drain(rec->session);
	if (!err)
		err = stop_err;
	session__stats(rec->session, &rec->stats);
	failures__sort(rec->failures);
	rec->bpf_ns_per_sample = bpf_ns_per_sample(rec->session);
	if (!err && rec->err) {
		err = rec->err;
		pr_err("recording samples: %s", strerror(-err));
	}
	return err;
}

/*
 * The end of the run ends what is left of the launched command's tree: the
 * signal unwprof got, or SIGTERM after a duration or once the command itself
 * exited; SIGKILL to what is still there a second later.
 */
static void child_finish(struct record *rec)
{
	if (rec->launch)
		launch__finish(rec->launch, exit_signal ? exit_signal : SIGTERM);
}

/* Main */

static int record_init(struct record *rec)
{
	int err;

	err = session__check_environment();
	if (!err)
		err = pid_targets__init(&rec->targets, rec->args->pids, rec->args->nr_pids,
					rec->args->tids, rec->args->nr_tids);
	if (!err)
		err = invoker__init(&rec->invoker);
	if (!err && rec->args->stats_json)
		err = stats_open(rec);
	if (!err)
		err = pid_targets__watch(&rec->targets);
	if (err)
		return err;
	rec->profile = profile__new();
	rec->symbolizer = symbolizer__new(NULL);
	rec->failures = failures__new();
	rec->names = proc_names__new();
	if (!rec->profile || !rec->symbolizer || !rec->failures || !rec->names) {
		pr_err("out of memory");
		return -ENOMEM;
	}
	return output_open(rec);
}

static void record_free(struct record *rec)
{
	session__free(rec->session);
	failures__free(rec->failures);
	symbolizer__free(rec->symbolizer);
	profile__free(rec->profile);
	outfile__close(rec->out, false);
	outfile__close(rec->stats_out, false);
	free(rec->main_file);
	launch__free(rec->launch);
	invoker__exit(&rec->invoker);
	pid_targets__exit(&rec->targets);
	proc_names__free(rec->names);
}

static int record_run(struct record_args *args)
{
	struct record rec = { .args = args, .t0 = now() };
	int err, code = EXIT_OK;

	rec.progress = !args->quiet && isatty(STDERR_FILENO) == 1;
	install_signals();
	err = record_init(&rec);
	if (!err)
		err = record_setup(&rec);
	if (!err)
		err = record_loop(&rec);
	child_finish(&rec);
	if (!err)
		err = write_profile(&rec);
	if (rec.out) {
		int close_err = outfile__close(rec.out, !err);

		rec.out = NULL;
		if (!err)
			err = close_err;
	}
	rec.ended_at_duration = rec.command_ended && !exit_signal;
	if (rec.session && !err) {
		/* After the output is written: its peak is part of the run's. */
		rec.peak_rss = record_peak_rss();
		if (!args->quiet)
			record_print_summary(&rec);
		if (args->stats_json)
			err = record_write_stats(&rec);
	}
	/*
	 * The command's own status when it exited by itself; 0 when the run ended
	 * it at -d, so that a CI job can bound a profile; 128+N after a signal N.
	 */
	if (!err && rec.launch && !rec.ended_at_duration)
		code = launch__exit_code(rec.launch);
	record_free(&rec);
	return err ? EXIT_FAIL : code;
}

static int cmd_record_main(int argc, char **argv)
{
	struct record_args args = { .freq = DEFAULT_FREQ };
	int ret;

	if (cmd_parse(&record_argp, argc, argv, &args)) {
		free(args.pids);
		free(args.tids);
		free(args.cpus);
		return EXIT_USAGE;
	}
	ret = record_run(&args);
	free(args.pids);
	free(args.tids);
	free(args.cpus);
	return ret;
}

const struct unwprof_cmd cmd_record = {
	.name = "record",
	.fn = cmd_record_main,
	.help = "profile processes, the system or a command",
};
