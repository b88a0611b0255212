// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recording, from the checks before anything is created to the profile
 * written: the session's callbacks build the profile as samples are
 * drained, the run loop waits for the end of the run. See recorder.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recorder.h"
#include "pid_targets.h"
#include "proc_times.h"
#include "record_output.h"
#include "sudo_user.h"
#include "../util/big_alloc.h"
#include "../util/common.h"
#include "../util/log.h"
#include "../elf/debuginfod.h"
#include "../model/model.h"
#include "../session/failures.h"
#include "../profile/outfile.h"
#include "../profile/profile.h"
#include "../runtimes/runtimes.h"
#include "../symbols/symbolizer.h"
#include "../targets/comm_names.h"
#include "../targets/launch.h"

#define POLL_MS 100
/* How often the hooks' progress line is given the samples so far. */
#define PROGRESS_S 0.25

struct recorder {
	struct recorder_opts opts;
	struct pid_targets targets; /* -p's processes, or -t's: watched until they exit */
	struct sudo_user sudo_user;
	struct model *model; /* the processes and files, the session's and the symbolizer's */
	struct session *session;
	struct profile *profile;
	struct symbolizer *symbolizer;
	struct comm_names *names;  /* the processes' names (core/targets/comm_names.h) */
	struct failures *failures; /* where samples failed, by file and reason */
	struct proc_times *times;  /* each process's time on and off the CPU */
	/* fetches the debug files missing here; NULL unless DEBUGINFOD_URLS names servers */
	struct debuginfod *debuginfod;
	int err;		   /* first error in a callback */
	struct launch *launch;	   /* the launched command, NULL when none */
	pid_t child;		   /* its pid, 0 when none */
	double t0;		   /* monotonic time of recorder__new(), for the startup's */
	uint64_t start_ns;	   /* wall clock at the start of sampling */
	char *main_file;	   /* executable of the launched command or of a single -p pid */
	struct outfile *out;	   /* the profile: -o FILE or stdout */
	struct outfile *stats_out; /* --stats-json FILE */
	bool command_ended; /* the launched command was still running at the end: unwprof ended it */
	struct recorder_result result;
};

static volatile sig_atomic_t exiting;
static volatile sig_atomic_t exit_signal;

/* Helpers */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t wall_ns(void)
{
	struct timespec wall;

	clock_gettime(CLOCK_REALTIME, &wall);
	return (uint64_t)wall.tv_sec * 1000000000ULL + (uint64_t)wall.tv_nsec;
}

/* The most resident memory unwprof has had (VmHWM), in bytes; 0 when unknown. */
static uint64_t peak_rss(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	uint64_t kib = 0;
	char line[128];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %" SCNu64 " kB", &kib) == 1)
			break;
	fclose(f);
	return kib * 1024;
}

unsigned int recorder__no_user_reason(void)
{
	return UNW_E_NO_USER;
}

/* What a summary counts */

/*
 * The stats as the summary shows them: the samples without a user stack
 * (idle, kernel threads) are not "no-user-stack" errors.
 */
struct session_stats recorder__result_shown_stats(const struct recorder_result *res)
{
	struct session_stats st = res->stats;
	unsigned int r = recorder__no_user_reason();
	uint64_t none = res->outcomes.idle + res->outcomes.kernel;

	if (r < ARRAY_SIZE(st.errors))
		st.errors[r] = st.errors[r] > none ? st.errors[r] - none : 0;
	return st;
}

/* The samples that had a user stack to walk: the base of the shares. */
uint64_t recorder__result_user_samples(const struct recorder_result *res,
				       const struct session_stats *st)
{
	uint64_t none = res->outcomes.idle + res->outcomes.kernel + res->outcomes.exec;

	return st->samples > none ? st->samples - none : 0;
}

/*
 * Samples BPF took but user space never received: neither drained nor
 * counted as lost. 0 when sampling stopped before the last drain, as it
 * does; shown when not, so that the parts still add up to the samples.
 */
int64_t recorder__result_not_drained(const struct recorder_result *res,
				     const struct session_stats *st)
{
	const struct recorder_outcomes *o = &res->outcomes;

	return (int64_t)(st->samples - o->walked - o->fp - o->failed - o->idle - o->kernel -
			 o->exec - st->lost);
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

/*
 * SIGCHLD does nothing but interrupt the wait for events, so that the run
 * ends as soon as the launched command exits, not at the end of that wait
 * (other system calls are restarted).
 */
static void on_child(int sig)
{
	(void)sig;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct sigaction child = { .sa_handler = on_child, .sa_flags = SA_RESTART | SA_NOCLDSTOP };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&child.sa_mask);
	sigaction(SIGCHLD, &child, NULL);
}

/* Session callbacks */

static void keep_error(struct recorder *r, int err)
{
	if (err && !r->err)
		r->err = err;
}

static void count_outcome(struct recorder_outcomes *o, const struct session_sample *s)
{
	if (s->flags & SAMPLE_EXEC)
		o->exec += s->count;
	else if (s->flags & SAMPLE_FP)
		o->fp += s->count;
	else if (s->flags & SAMPLE_COMPLETE)
		o->walked += s->count;
	else if (!s->nr_user && (s->flags & SAMPLE_KERNEL) && s->pid == 0)
		o->idle += s->count;
	else if (!s->nr_user && (s->flags & SAMPLE_KERNEL))
		o->kernel += s->count;
	else
		o->failed += s->count;
}

/*
 * The frames of BPF's own tracing at the leaf of the kernel stack of an
 * off-CPU block (the stack is taken in the sched_switch program): the
 * program and the tracepoint's call of it, whose names say so. How many
 * there are depends on the kernel, so they are found by name.
 */
static uint32_t bpf_frames_on_top(struct symbolizer *sym, const struct session_sample *s)
{
	static const char *const prefixes[] = { "bpf_prog_", "bpf_trace_run", "__bpf_trace_",
						"__traceiter_" };
	uint32_t n = 0;

	for (; n < s->nr_kernel; n++) {
		struct symbol_info info;
		bool ours = false;

		if (symbolizer__lookup_kernel(sym, s->kernel_pcs[n], &info) || !info.name)
			break;
		for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
			ours |= strncmp(info.name, prefixes[i], strlen(prefixes[i])) == 0;
		if (!ours)
			break;
	}
	return n;
}

static void on_sample(void *ctx, const struct session_sample *s)
{
	struct recorder *r = ctx;
	struct profile_stack st = {
		.pid = s->pid,
		.tid = s->tid,
		.comm = comm_names__get(r->names, s->pid, s->tid, s->comm),
		.thread = s->comm,
		.flags = s->flags,
		.user_addrs = s->user_pcs,
		.nr_user = s->nr_user,
		.kernel_addrs = s->kernel_pcs,
		.nr_kernel = r->opts.no_kernel ? 0 : s->nr_kernel,
		.off_cpu_ns = s->off_cpu_ns,
	};
	int err;

	if ((s->flags & SAMPLE_OFF_CPU) && st.nr_kernel) {
		uint32_t skip = bpf_frames_on_top(r->symbolizer, s);

		st.kernel_addrs += skip;
		st.nr_kernel -= skip;
	}
	err = symbolizer__add_stack(r->symbolizer, r->profile, &st, s->count);

	/*
	 * Kernel frames are named at the end, from symbols read while the run
	 * goes on: from the first drain that has one, so that a run without
	 * them takes no memory for them.
	 */
	if (st.nr_kernel && symbolizer__preload_kernel(r->symbolizer))
		pr_debug("the kernel's symbols are read at the end");
	if (!(s->flags & SAMPLE_OFF_CPU))
		count_outcome(&r->result.outcomes, s);
	if (!err)
		err = proc_times__add(r->times, s->pid, st.comm, s->flags, s->count, s->off_cpu_ns);
	keep_error(r, err);
}

static void on_drained(void *ctx)
{
	struct recorder *r = ctx;

	keep_error(r, symbolizer__flush(r->symbolizer));
}

/* The mappings of pid were read again: it may have exec'd, and its name changed. */
static void on_process(void *ctx, uint32_t pid)
{
	struct recorder *r = ctx;

	comm_names__forget(r->names, pid);
}

static void on_runtime(void *ctx, uint32_t pid, const struct runtime *rt, const void *state,
		       uint64_t bias)
{
	struct recorder *r = ctx;
	int err = symbolizer__add_runtime(r->symbolizer, pid, rt, state, bias);

	if (err && err != -ENOENT && err != -ESRCH)
		pr_info("process %u: its %s frames cannot be named: %s", pid, rt->title,
			strerror(-err));
}

static void on_code(void *ctx, const struct unw_event *ev, size_t size)
{
	struct recorder *r = ctx;

	symbolizer__code_event(r->symbolizer, ev, size);
}

/* A forked child's interpreter frames: read from its memory while it lives, or its parent's. */
static void on_fork(void *ctx, uint32_t ppid, uint32_t pid)
{
	struct recorder *r = ctx;

	keep_error(r, symbolizer__fork(r->symbolizer, ppid, pid));
}

static void on_process_exit(void *ctx, uint32_t pid)
{
	struct recorder *r = ctx;
	int err = symbolizer__end_process(r->symbolizer, r->profile, pid);

	comm_names__forget(r->names, pid);
	keep_error(r, err);
}

/* Samples of pid stopped at pc: counted under the file the pc is in. */
static void on_failure(void *ctx, uint32_t pid, uint64_t pc, unsigned int reason, uint64_t n)
{
	struct recorder *r = ctx;
	struct symbol_info info = {};

	/* no user stack: idle CPUs and kernel threads, counted apart, are no failure */
	if (!pc && reason == recorder__no_user_reason())
		return;
	if (pc)
		symbolizer__lookup(r->symbolizer, pid, pc, &info);
	keep_error(r, failures__add(r->failures, pc ? info.file : "[before the walk]", reason, n));
}

/* Outputs */

static struct outfile_opts outfile_opts_of(const struct recorder *r)
{
	/* Under sudo, the files written belong to the user who ran it. */
	return (struct outfile_opts){
		.set_owner = r->sudo_user.set,
		.uid = r->sudo_user.uid,
		.gid = r->sudo_user.gid,
	};
}

/* --stats-json FILE: created (unnamed) before the run, so that it fails before, not after. */
static int open_stats(struct recorder *r)
{
	struct outfile_opts opts = outfile_opts_of(r);

	r->stats_out = outfile__open(r->opts.stats_json, &opts);
	return r->stats_out ? 0 : -errno;
}

static int open_output(struct recorder *r)
{
	struct outfile_opts opts = outfile_opts_of(r);

	r->out = outfile__open(r->opts.output, &opts);
	if (!r->out)
		return -errno;
	if (out_format__binary(r->opts.format) && outfile__is_tty(r->out)) {
		pr_err("%s: a terminal: %s is binary, write it to a file", outfile__name(r->out),
		       out_format__name(r->opts.format));
		return -EINVAL;
	}
	return 0;
}

/* -v: a step of the startup or of the end done, and how long it took. */
static void step_done(double *t, const char *what)
{
	double n = now();

	pr_info("%s: %.0f ms", what, (n - *t) * 1e3);
	*t = n;
}

/*
 * How long the end of the run waits for the debug files still on their way
 * from debuginfod, at most: a slow or dead server delays the output by no
 * more, and the frames of their files are then named without them.
 */
#define DEBUGINFOD_WAIT_NS (2 * 1000000000ULL)

/* The fetches under way waited for, until DEBUGINFOD_WAIT_NS; what they came to said once. */
static void finish_fetches(struct recorder *r)
{
	struct debuginfod_stats *st = &r->result.debuginfod_stats;
	char failed[128] = "", abandoned[64] = "";
	struct timespec ts;
	double t = now();
	uint64_t missed;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	debuginfod__finish(r->debuginfod, (uint64_t)ts.tv_sec * 1000000000ULL +
						  (uint64_t)ts.tv_nsec + DEBUGINFOD_WAIT_NS);
	debuginfod__stats(r->debuginfod, st);
	r->result.debuginfod = true;
	step_done(&t, "the debug files fetched");
	missed = st->failed + st->abandoned;
	if (!missed)
		return;
	if (st->failed)
		snprintf(failed, sizeof(failed), "%" PRIu64 " failed (%s)%s", st->failed,
			 strerror(-st->first_error), st->abandoned ? ", " : "");
	if (st->abandoned)
		snprintf(abandoned, sizeof(abandoned), "%" PRIu64 " without an answer in %llu s",
			 st->abandoned, DEBUGINFOD_WAIT_NS / 1000000000ULL);
	pr_warn("debuginfod (%s): %" PRIu64 " of %" PRIu64
		" debug files not fetched: %s%s; their files' frames are named without them",
		debuginfod__urls(r->debuginfod), missed, st->requested, failed, abandoned);
}

/* -v: what the run opened and parsed, each mapped file and each image once. */
static void say_files(const struct recorder *r)
{
	struct model_stats st;

	model__stats(r->model, &st);
	pr_info("files: %zu mapped files opened, each once; %zu images parsed, each once; the "
		"mappings of processes read %zu times",
		st.files_opened, st.images_parsed, st.maps_read);
}

static int write_profile(struct recorder *r)
{
	const struct record_output_run run = {
		.start_ns = r->start_ns,
		.elapsed = r->result.elapsed,
		.main_file = r->main_file,
	};
	ssize_t n;
	double t;
	int err;

	if (r->debuginfod)
		finish_fetches(r);
	t = now();
	err = symbolizer__symbolize_profile(r->symbolizer, r->profile);
	if (err) {
		pr_err("symbolizing the profile: %s", strerror(-err));
		return err;
	}
	step_done(&t, "the profile symbolized");
	say_files(r);
	/* the files read while symbolizing (JIT maps, debug files) are counted now */
	session__model_stats(r->model, &r->result.stats);
	n = symbolizer__unnamed(r->symbolizer, r->profile, r->result.unnamed,
				ARRAY_SIZE(r->result.unnamed), &r->result.unnamed_frames);
	if (n < 0)
		return (int)n;
	r->result.nr_unnamed = (size_t)n;
	err = record_output__write(outfile__stream(r->out), r->profile, &r->opts, &run);
	if (err)
		pr_err("%s: cannot write: %s", outfile__name(r->out), strerror(-err));
	else
		step_done(&t, "the profile written");
	return err;
}

/* Setup */

/* Forks the command, held before its exec; under sudo it will run as the invoking user. */
static int launch_command(struct recorder *r)
{
	const struct sudo_user *su = &r->sudo_user;
	struct launch_opts opts = {
		.argv = r->opts.command,
		.set_user = su->set && !r->opts.as_root,
		.uid = su->uid,
		.gid = su->gid,
		.groups = su->groups,
		.nr_groups = su->nr_groups,
		/* the profile goes to stdout: the command's output must not mix with it */
		.stdout_to_stderr = !r->opts.output || strcmp(r->opts.output, "-") == 0,
		.spare = r->debuginfod ? debuginfod__pid(r->debuginfod) : 0,
	};

	r->launch = launch__new(&opts);
	if (!r->launch)
		return -errno;
	r->child = launch__pid(r->launch);
	return 0;
}

static struct session *open_session(struct recorder *r)
{
	const struct recorder_opts *o = &r->opts;
	struct session_opts opts = {
		.model = r->model,
		.pids = r->child ? &r->child : r->targets.pids,
		.nr_pids = r->child ? 1 : r->targets.nr,
		.system_wide = o->all,
		/* -a -- COMMAND: everything is sampled, and nothing is held */
		.follow_children = r->child != 0 && !o->all,
		.hold_new_code = r->child != 0 && !o->all,
		.freq = o->freq,
		.cpus = o->cpus,
		.nr_cpus = o->nr_cpus,
		.tids = o->tids,
		.nr_tids = o->nr_tids,
		.fp_only = o->fp_only,
		.kernel_stacks = !o->no_kernel,
		.max_shards = o->max_shards,
		.count_map_entries = o->count_map_entries,
		.off_cpu = o->off_cpu,
		.off_cpu_min_ns = o->off_cpu_min_ns,
		.off_cpu_walks = o->off_cpu_walks,
		.on_sample = on_sample,
		.on_process = on_process,
		.on_exit = on_process_exit,
		.on_drained = on_drained,
		.on_runtime = on_runtime,
		.on_code = on_code,
		.on_fork = on_fork,
		.on_failure = on_failure,
		.ctx = r,
	};

	return session__new(&opts);
}

static int add_targets(struct recorder *r)
{
	const struct pid_targets *t = &r->targets;
	int err;

	for (size_t i = 0; i < t->nr; i++) {
		err = session__add_process(r->session, t->pids[i]);
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

/*
 * new → load → targets → attach; a launched command is released to exec
 * after load, added at its exec stop, and let go once sampling runs.
 */
static int set_up(struct recorder *r)
{
	double t = now();
	int err;

	if (r->opts.command) {
		err = launch_command(r);
		if (err)
			return err;
	}
	r->session = open_session(r);
	if (!r->session) {
		err = -errno;
		pr_err("cannot create the BPF session: %s", strerror(errno));
		goto cleanup;
	}
	step_done(&t, "BPF maps sized and opened");
	err = session__load(r->session);
	/* Checked before the exec too: a Ctrl-C at the terminal has ended the command. */
	if (!err)
		err = check_interrupted();
	if (err)
		goto cleanup;
	step_done(&t, "BPF programs loaded and verified, the tables known so far built");
	err = r->launch ? launch__exec(r->launch) : add_targets(r);
	if (!err && r->child)
		err = session__add_process(r->session, r->child);
	if (!err && (r->child || r->targets.nr == 1))
		r->main_file = exe_path(r->child ? r->child : r->targets.pids[0]);
	if (!err)
		err = check_interrupted();
	if (!err && (r->child || r->targets.nr))
		step_done(&t,
			  r->child ? "command started, held at its exec, its unwind tables loaded" :
				     "unwind tables of the targets loaded");
	if (!err)
		err = session__attach(r->session);
	if (!err)
		step_done(&t, "perf events attached");
	if (!err && r->launch)
		err = launch__detach(r->launch);
cleanup:
	/* Held before its exec, or stopped at it and traced by us: only SIGKILL ends it. */
	if (err && r->launch)
		launch__finish(r->launch, SIGKILL);
	return err;
}

/* The run */

/* True once the launched command has exited; its status is kept. */
static bool child_exited(struct recorder *r)
{
	return r->launch && launch__exited(r->launch);
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

/* The median and p99 of the targets' sample times; none when the histogram cannot be read. */
static void read_sample_times(const struct session *s, struct sample_times *t)
{
	uint64_t buckets[UNW_HIST_BUCKETS];
	int err = session__sample_ns(s, buckets);

	if (err)
		pr_debug("the histogram of sample times: %s", strerror(-err));
	sample_times__of(buckets, t);
}

/* The targets' sample times by what they paid for; none when they cannot be read. */
static void read_sample_costs(const struct session *s, struct unw_cost_sum *costs)
{
	int err = session__sample_costs(s, costs);

	if (err)
		pr_debug("the sample times by cost: %s", strerror(-err));
}

/* The samples so far, to the hooks' progress line, if they have one: reading them costs. */
static void show_progress(struct recorder *r, const struct recorder_hooks *hooks, double elapsed)
{
	struct session_stats st;

	if (!hooks->progress)
		return;
	session__stats(r->session, &st);
	hooks->progress(hooks->ctx, st.samples, elapsed);
}

/* Polls the session until -d, a signal, a callback's error, or the end of every target. */
static int sample_until_end(struct recorder *r, const struct recorder_hooks *hooks)
{
	double start = now(), left, shown = 0;
	int err = 0, timeout;

	r->start_ns = wall_ns();
	if (hooks->started)
		hooks->started(hooks->ctx, now() - r->t0);
	/* The start is done: what a long run allocates and frees goes back to the system. */
	big_heap_end();
	while (!exiting && !r->err && !child_exited(r) && !pid_targets__exited(&r->targets)) {
		timeout = POLL_MS;
		if (r->opts.duration > 0) {
			left = r->opts.duration - (now() - start);
			if (left <= 0)
				break;
			if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		err = session__poll(r->session, timeout);
		if (err == -EINTR)
			err = 0;
		if (err)
			break;
		if (now() - shown >= PROGRESS_S) {
			shown = now();
			show_progress(r, hooks, shown - start);
		}
	}
	/* The live count, if the hooks showed one, ends with sampling. */
	log_status_end();
	r->result.elapsed = now() - start;
	r->result.targets_gone = r->targets.gone;
	r->command_ended = r->launch && !launch__exited(r->launch);
	return err;
}

/* What the run took, once the last drain is done. */
static void take_stats(struct recorder *r)
{
	session__stats(r->session, &r->result.stats);
	failures__sort(r->failures);
	proc_times__sort(r->times, r->result.period_ns);
	r->result.bpf_ns_per_sample = bpf_ns_per_sample(r->session);
	read_sample_times(r->session, &r->result.times);
	read_sample_costs(r->session, r->result.costs);
}

static int sample(struct recorder *r, const struct recorder_hooks *hooks)
{
	int err, stop_err;
	double t;

	err = sample_until_end(r, hooks);
	t = now();
	/* Stopped first, so that the last drain delivers every sample taken. */
	stop_err = session__stop(r->session);
	if (!err)
		err = session__drain(r->session);
	if (!err)
		err = stop_err;
	take_stats(r);
	step_done(&t, "sampling stopped, the last samples drained");
	if (!err && r->err) {
		err = r->err;
		pr_err("recording samples: %s", strerror(-err));
	}
	return err;
}

/*
 * The end of the run ends what is left of the launched command's tree: the
 * signal unwprof got, or SIGTERM after a duration or once the command itself
 * exited; SIGKILL to what is still there a second later.
 */
static void end_command(struct recorder *r)
{
	if (r->launch)
		launch__finish(r->launch, exit_signal ? exit_signal : SIGTERM);
}

/* The recorder */

/*
 * The debuginfod fetcher, a process of its own: forked now, before the run
 * has threads, BPF objects or a command. Without it, debug files are looked
 * for here only, as without DEBUGINFOD_URLS.
 */
static void start_fetches(struct recorder *r)
{
	r->debuginfod = debuginfod__start();
	if (r->debuginfod || errno == ENOENT)
		return;
	if (errno == EOPNOTSUPP)
		pr_warn("DEBUGINFOD_URLS is set, but this unwprof was built without libdebuginfod: "
			"debug files are looked for on this machine only");
	else if (errno == ELIBACC || errno == ELIBBAD)
		pr_warn("DEBUGINFOD_URLS is set, but libdebuginfod.so.1 cannot be loaded (Debian: "
			"libdebuginfod1): debug files are looked for on this machine only");
	else
		pr_warn("debuginfod: cannot start fetching debug files: %s", strerror(errno));
}

static int init(struct recorder *r)
{
	const struct recorder_opts *o = &r->opts;
	int err;

	err = session__check_environment();
	if (!err)
		err = pid_targets__init(&r->targets, o->pids, o->nr_pids, o->tids, o->nr_tids);
	if (!err)
		err = sudo_user__init(&r->sudo_user);
	if (!err && o->stats_json)
		err = open_stats(r);
	if (!err)
		err = pid_targets__watch(&r->targets);
	if (err)
		return err;
	start_fetches(r);
	r->profile = profile__new();
	r->model = model__new(&(struct model_opts){
		.no_tables = o->fp_only,
		.debuginfod = r->debuginfod,
	});
	r->symbolizer = symbolizer__new(
		&(struct symbolizer_opts){ .model = r->model, .no_lines = r->opts.no_lines });
	r->failures = failures__new();
	r->times = proc_times__new();
	r->names = comm_names__new();
	if (!r->profile || !r->model || !r->symbolizer || !r->failures || !r->times || !r->names) {
		pr_err("out of memory");
		return -ENOMEM;
	}
	r->result.failures = r->failures;
	r->result.times_by_process = r->times;
	r->result.period_ns = 1000000000ULL / o->freq;
	r->result.off_cpu = o->off_cpu;
	return open_output(r);
}

struct recorder *recorder__new(const struct recorder_opts *opts)
{
	double t0 = now();
	struct recorder *r;
	int err;

	/* Before anything is created: from here on a signal ends the run, in order. */
	install_signals();
	r = calloc(1, sizeof(*r));
	if (!r) {
		pr_err("out of memory");
		return NULL;
	}
	r->opts = *opts;
	r->t0 = t0;
	err = init(r);
	if (err) {
		recorder__free(r);
		errno = -err;
		return NULL;
	}
	return r;
}

int recorder__run(struct recorder *r, const struct recorder_hooks *hooks)
{
	int err;

	err = set_up(r);
	if (!err)
		err = sample(r, hooks);
	end_command(r);
	return err;
}

int recorder__write(struct recorder *r)
{
	int err, close_err;

	err = write_profile(r);
	close_err = outfile__close(r->out, !err);
	r->out = NULL;
	if (!err)
		err = close_err;
	r->result.ended_at_duration = r->command_ended && !exit_signal;
	/* After the output is written: its peak is part of the run's. */
	if (!err)
		r->result.peak_rss = peak_rss();
	return err;
}

const struct recorder_result *recorder__result(const struct recorder *r)
{
	return &r->result;
}

int recorder__write_stats(struct recorder *r, recorder_stats_fn fn, void *ctx)
{
	int err;

	if (!r->stats_out)
		return 0;
	err = fn(outfile__stream(r->stats_out), &r->result, ctx);
	if (outfile__close(r->stats_out, !err) && !err)
		err = -EIO;
	r->stats_out = NULL;
	return err;
}

int recorder__exit_code(const struct recorder *r)
{
	if (!r->launch || r->result.ended_at_duration)
		return EXIT_OK;
	return launch__exit_code(r->launch);
}

void recorder__free(struct recorder *r)
{
	if (!r)
		return;
	session__free(r->session);
	failures__free(r->failures);
	proc_times__free(r->times);
	symbolizer__free(r->symbolizer);
	model__free(r->model);
	debuginfod__free(r->debuginfod);
	profile__free(r->profile);
	outfile__close(r->out, false);
	outfile__close(r->stats_out, false);
	free(r->main_file);
	launch__free(r->launch);
	sudo_user__exit(&r->sudo_user);
	pid_targets__exit(&r->targets);
	comm_names__free(r->names);
	free(r);
}
