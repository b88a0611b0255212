/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The record command's state, shared by its parts: cmd/record.c (options,
 * the run) and cmd/record_summary.c (the summary on stderr and as JSON).
 */
#ifndef UNWPROF_RECORD_H
#define UNWPROF_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../core/profile/formats.h"
#include "../core/record/invoker.h"
#include "../core/record/pids.h"
#include "../core/session/session.h"

struct record_args {
	pid_t *pids; /* -p */
	size_t nr_pids;
	pid_t *tids; /* -t */
	size_t nr_tids;
	bool all;
	int *cpus; /* -C, sorted, distinct; NULL: every CPU */
	size_t nr_cpus;
	double duration; /* seconds; 0: until Ctrl-C or the command exits */
	unsigned int freq;
	const char *output;
	bool pid_prefix;
	bool tid_prefix;
	bool no_kernel;
	bool fp_only;
	bool quiet;
	const char *stats_json; /* --stats-json FILE, NULL when none */
	enum out_format format;
	bool format_set; /* --format given */
	size_t max_shards;
	size_t count_map_entries; /* 0: the session's default */
	bool as_root;		  /* under sudo, run COMMAND as root, not as the invoking user */
	char **command;		  /* NULL-terminated, NULL when none */
};

/* Where each sample that BPF took ended up: the parts add up to the samples. */
struct outcomes {
	uint64_t walked; /* walked to the bottom with the tables alone */
	uint64_t fp;	 /* frame pointers used for at least one frame */
	uint64_t failed; /* neither: truncated, a read failed */
	/* no user stack to walk, which is no failure: */
	uint64_t idle;	 /* no task on the CPU (pid 0) */
	uint64_t kernel; /* a kernel thread (or a process whose memory is gone: exiting) */
};

/* What the session callbacks fill, and what the end of the run needs. */
struct record {
	struct record_args *args;
	struct session *session;
	struct profile *profile;
	struct symbolizer *symbolizer;
	struct failures *failures; /* where samples failed, by file and reason */
	int err;		   /* first error in a callback */
	struct launch *launch;	   /* the launched command, NULL when none */
	pid_t child;		   /* its pid, 0 when none */
	double elapsed;
	double t0;		    /* monotonic time of the start, for -v's timings */
	bool progress;		    /* stderr is a terminal and no --quiet: a live count */
	uint64_t peak_rss;	    /* bytes, once the output is written */
	uint64_t start_ns;	    /* wall clock at the start of sampling */
	char *main_file;	    /* executable of the launched command or of a single -p pid */
	struct outfile *out;	    /* the profile: -o FILE or stdout */
	struct outfile *stats_out;  /* --stats-json FILE */
	struct pid_targets targets; /* -p's processes, or -t's: watched until they exit */
	bool command_ended; /* the launched command was still running at the end: unwprof ended it */
	bool ended_at_duration; /* ...at -d, not because unwprof got a signal */
	struct invoker invoker;
	struct outcomes outcomes;
	struct session_stats stats; /* read right after the last drain */
	struct proc_names *names;   /* the processes' names (core/targets/procnames.h) */
	double bpf_ns_per_sample;   /* < 0: unknown (kernel.bpf_stats_enabled is 0) */
};

/* The last path component of path (all of it when it ends with '/'). */
const char *record_base_name(const char *path);

/* The most resident memory unwprof has had (VmHWM), in bytes; 0 when unknown. */
uint64_t record_peak_rss(void);

/* The index of the reason "no-user-stack" in session_stats.errors. */
unsigned int record_no_user_reason(void);

/* The summary of the run on stderr (without --quiet). */
void record_print_summary(const struct record *rec);

/* The summary as JSON to --stats-json's file; 0 or -errno (said). */
int record_write_stats(struct record *rec);

#endif
