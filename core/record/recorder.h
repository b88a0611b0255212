/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A recording: the targets checked and the outputs opened before anything
 * is created, the BPF session set up on them, sampling until the run ends,
 * the launched command's tree ended, the profile written. What the terminal
 * shows meanwhile is the caller's, through hooks; what the run took is
 * there for its summary.
 *
 *	r = recorder__new(&opts);		 checks, opens the outputs; NULL: said why
 *	err = recorder__run(r, &hooks);		 sets up, samples until the end, ends the command
 *	err = recorder__write(r);		 the profile, symbolized, put in place
 *	res = recorder__result(r);		 for the summary
 *	err = recorder__write_stats(r, fn, ctx); --stats-json, put in place
 *	code = recorder__exit_code(r);
 *	recorder__free(r);
 *
 * recorder__new() takes SIGINT and SIGTERM: the first ends the run (a
 * signal during the startup ends it before sampling), a second one removes
 * the temporary files and kills unwprof at once. So there is one recorder
 * in a process.
 */
#ifndef UNWPROF_RECORDER_H
#define UNWPROF_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../elf/debuginfod.h"
#include "../profile/out_format.h"
#include "../session/session.h"
#include "../session/sample_times.h"
#include "../symbols/symbolizer.h"
#include "proc_times.h"

/* What to record and where to write it; the arrays and strings outlive the recorder. */
struct recorder_opts {
	pid_t *pids; /* -p */
	size_t nr_pids;
	pid_t *tids; /* -t */
	size_t nr_tids;
	bool all;  /* -a: every process */
	int *cpus; /* -C, sorted, distinct; NULL: every CPU */
	size_t nr_cpus;
	double duration; /* seconds; 0: until Ctrl-C or the command exits */
	unsigned int freq;
	const char *output; /* the profile's file; NULL or "-": stdout */
	enum out_format format;
	bool pid_prefix; /* stacks begin with comm-PID */
	bool tid_prefix; /* ...with comm-PID/TID */
	bool no_kernel;
	bool no_lines; /* frames named by their symbols only, without DWARF's lines */
	bool fp_only;
	const char *stats_json; /* --stats-json FILE, NULL when none */
	size_t max_shards;
	size_t count_map_entries;   /* 0: the session's default */
	bool as_root;		    /* under sudo, run command as root, not as the invoking user */
	bool off_cpu;		    /* --off-cpu: the time threads spend blocked, too */
	uint64_t off_cpu_min_ns;    /* shorter blocks counted, not walked */
	unsigned int off_cpu_walks; /* walks of blocks a second per CPU, at most */
	char **command;		    /* to launch, NULL-terminated; NULL when none */
};

/* The caller's lines on the terminal while the run goes; each may be NULL. */
struct recorder_hooks {
	/* Sampling has started, startup seconds after recorder__new() was called. */
	void (*started)(void *ctx, double startup);
	/* A few times a second while sampling: the samples taken in the elapsed seconds. */
	void (*progress)(void *ctx, uint64_t samples, double elapsed);
	void *ctx;
};

/* Where each sample that BPF took ended up: the parts add up to the samples. */
struct recorder_outcomes {
	uint64_t walked; /* walked to the bottom with the tables alone */
	uint64_t fp;	 /* frame pointers used for at least one frame */
	uint64_t failed; /* neither: truncated, a read failed */
	/* no user stack to walk, which is no failure: */
	uint64_t idle;	 /* no task on the CPU (pid 0) */
	uint64_t kernel; /* a kernel thread (or a process whose memory is gone: exiting) */
	uint64_t exec;	 /* inside execve past its point of no return: the old stack is gone */
};

#define RECORDER_UNNAMED_MAX 10 /* files whose unnamed frames are told */

/* What a run took: filled by recorder__run(), the peak by recorder__write(). */
struct recorder_result {
	double elapsed;		/* seconds sampled */
	bool targets_gone;	/* every -p target exited: the run ended early */
	bool ended_at_duration; /* the launched command was still running at -d: the run ended it */
	struct recorder_outcomes outcomes;
	struct session_stats stats;	 /* read right after the last drain */
	const struct failures *failures; /* where samples failed, by file and reason, most first */
	uint64_t peak_rss;		 /* bytes, once the output is written */
	double bpf_ns_per_sample;	 /* < 0: unknown (kernel.bpf_stats_enabled is 0) */
	struct sample_times times;	 /* BPF's time of each target sample: median, p99 */
	struct unw_cost_sum costs[UNW_COST_NR]; /* the same samples by what they paid for */
	uint64_t period_ns;			/* the CPU time of an on-CPU sample */
	bool off_cpu;				/* --off-cpu */
	/* Each process's time on and off the CPU, the most first (core/record/proc_times.h). */
	const struct proc_times *times_by_process;
	/* What debuginfod fetched (core/elf/debuginfod.h), when DEBUGINFOD_URLS named servers. */
	bool debuginfod;
	struct debuginfod_stats debuginfod_stats;
	/*
	 * The frames of the profile left unnamed for want of symbols, and the
	 * files they are in, the most first (core/symbols/symbolizer.h): what
	 * a debug file would name. nr_unnamed may be more than there is room
	 * for. Filled by recorder__write().
	 */
	uint64_t unnamed_frames;
	struct symbolizer_unnamed unnamed[RECORDER_UNNAMED_MAX];
	size_t nr_unnamed;
};

/* Writes the content of the --stats-json file to f. 0 or -errno (said). */
typedef int (*recorder_stats_fn)(FILE *f, const struct recorder_result *res, void *ctx);

/*
 * Checks that the run can be made (privileges and kernel, the targets),
 * and opens the outputs, so that nothing fails after the run that could
 * have failed before. NULL and errno when it cannot: said on stderr.
 */
struct recorder *recorder__new(const struct recorder_opts *opts);

/*
 * Launches the command (held at its exec until its tables are loaded),
 * sets up the session on the targets, samples until -d, a signal, the exit
 * of the command or of every target; then ends what is left of the
 * command's tree, even after a failure. 0 or -errno (said).
 */
int recorder__run(struct recorder *r, const struct recorder_hooks *hooks);

/* Symbolizes the profile, writes it in its format, puts the file in place. 0 or -errno (said). */
int recorder__write(struct recorder *r);

const struct recorder_result *recorder__result(const struct recorder *r);

/*
 * Fills the --stats-json file (opened by recorder__new(), so that it failed
 * before the run if it had to) with fn(f, result, ctx), and puts it in
 * place. 0 when there is none, or -errno.
 */
int recorder__write_stats(struct recorder *r, recorder_stats_fn fn, void *ctx);

/*
 * The exit status of the run once written: the launched command's own
 * when it exited by itself (128+N when signal N killed it), 0 when the run
 * ended it at -d, so that a CI job can bound a profile, and 0 without one.
 */
int recorder__exit_code(const struct recorder *r);

/* Accepts NULL. */
void recorder__free(struct recorder *r);

/* The index of the reason "no-user-stack" in session_stats.errors. */
unsigned int recorder__no_user_reason(void);

/*
 * What a summary of the run counts: the stats with the samples without a
 * user stack (idle, kernel threads) taken out of the "no-user-stack"
 * errors; of them, the samples that had a user stack to walk (the base of
 * the shares), and those BPF took but user space never received.
 */
struct session_stats recorder__result_shown_stats(const struct recorder_result *res);
uint64_t recorder__result_user_samples(const struct recorder_result *res,
				       const struct session_stats *st);
int64_t recorder__result_not_drained(const struct recorder_result *res,
				     const struct session_stats *st);

#endif
