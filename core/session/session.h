/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A BPF profiling session: loads the unwinder, uploads unwind tables,
 * attaches cpu-clock perf events (one a CPU, or one a thread of the -p
 * targets), follows process events, and drains the in-kernel counts into
 * samples for the caller.
 *
 *	s = session__new(&opts);	 opens and sizes the maps
 *	session__load(s);		 loads and verifies the BPF programs
 *	session__add_process(s, pid);	 tables of a target, before it matters
 *	session__attach(s);		 starts sampling
 *	while (...) session__poll(s, ms); events, periodic drain
 *	session__stop(s);		 no more samples
 *	session__drain(s);		 the rest of the counts, all of them
 *	session__free(s);		 releases every BPF object and perf event
 */
#ifndef UNWPROF_SESSION_H
#define UNWPROF_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/common.h"
#include "bpf/abi.h"
#include "sample_times.h"

struct model;
struct runtime;

/* Sample walk status, as counted by BPF (bpf/abi.h). */
enum {
	SAMPLE_COMPLETE = UNW_SAMPLE_COMPLETE, /* the user stack was walked to its bottom */
	SAMPLE_FP = UNW_SAMPLE_FP, /* at least one frame was unwound with frame pointers */
	SAMPLE_TRUNCATED =
		UNW_SAMPLE_TRUNCATED,	     /* not walked to the bottom within the walk's bounds */
	SAMPLE_KERNEL = UNW_SAMPLE_KERNEL,   /* the sample hit kernel mode */
	SAMPLE_OFF_CPU = UNW_SAMPLE_OFF_CPU, /* blocks of a thread: count blocks, off_cpu_ns */
	SAMPLE_STATE_D = UNW_SAMPLE_STATE_D, /* off-CPU, uninterruptible (D); else sleeping (S) */
	SAMPLE_UNWALKED = UNW_SAMPLE_UNWALKED, /* off-CPU, not walked: no stack */
	SAMPLE_ELIDED = UNW_SAMPLE_ELIDED, /* deeper than stored: a frame names those left out */
	SAMPLE_EXEC = UNW_SAMPLE_EXEC,	   /* inside execve past its point of no return: [exec] */
};

/* The reasons a sample's walk met, as session_stats.errors counts them. */
#define SESSION_NR_ERRORS UNW_E_NR

struct session_sample {
	uint32_t pid;
	uint32_t tid;
	char comm[UNW_COMM_LEN];
	const uint64_t *user_pcs; /* leaf first */
	uint32_t nr_user;
	const uint64_t *kernel_pcs; /* leaf first */
	uint32_t nr_kernel;
	uint64_t count;
	uint64_t off_cpu_ns; /* SAMPLE_OFF_CPU: the time the count's blocks lasted */
	uint32_t flags;	     /* SAMPLE_* */
};

struct session_opts {
	/*
	 * The processes and files (core/model/model.h), which the session reads
	 * the processes it follows into, and removes them from once they exited
	 * and on_exit was called: the caller's, shared with its symbolizer.
	 * NULL: one of its own.
	 */
	struct model *model;
	const pid_t *pids; /* -p targets (and their threads); may be NULL */
	size_t nr_pids;
	bool system_wide;     /* -a */
	bool follow_children; /* processes forked by the targets are profiled too */
	/*
	 * A target about to run code whose table is not loaded (an exec, a new
	 * library) is stopped until it is: for a launched command's tree, where
	 * samples taken meanwhile would be walked with frame pointers.
	 */
	bool hold_new_code;
	unsigned int freq; /* samples per second per CPU */
	const int *cpus;   /* sample only on these CPUs (-C); NULL: on every CPU */
	size_t nr_cpus;
	const pid_t *tids; /* sample only these threads of the targets (-t); NULL: all */
	size_t nr_tids;
	bool fp_only; /* no DWARF tables: frame pointers only */
	bool kernel_stacks;
	size_t max_shards;	  /* cap on unwind table memory, in shards; 0: default */
	size_t count_map_entries; /* 0: default */
	/*
	 * Off-CPU time (bpf/offcpu.bpf.c): the blocks of the targets' threads,
	 * each walked when it lasted off_cpu_min_ns or more, at most
	 * off_cpu_walks walks a second on a CPU; the others counted unwalked.
	 */
	bool off_cpu;
	uint64_t off_cpu_min_ns;
	unsigned int off_cpu_walks;

	/* Called during poll/drain; ctx is passed back. Any may be NULL. */
	void (*on_sample)(void *ctx, const struct session_sample *s);
	/*
	 * The mappings of pid were read into the model (again: it may have
	 * exec'd, and be named otherwise now).
	 */
	void (*on_process)(void *ctx, uint32_t pid);
	/*
	 * The process pid exited. Called at the end of a drain, after every
	 * sample of it that the count map held has gone through on_sample:
	 * what the process left to symbolize can be dropped here. A sample
	 * taken later still (in the kernel, while the exit completes) has no
	 * user frames. The model forgets the process after this call; a new
	 * process under the same pid is read only after it.
	 */
	void (*on_exit)(void *ctx, uint32_t pid);
	/*
	 * A drain has delivered its samples and failures (before the exits of
	 * that drain): work they left for later can be done now, the recorder
	 * symbolizes the locations they added.
	 */
	void (*on_drained)(void *ctx);
	/*
	 * Process pid runs runtime rt (core/runtimes/runtimes.h), its state
	 * read of a file loaded at bias: a runtime whose frames are to be named
	 * from its memory. Called when its mappings are read, before its
	 * samples.
	 */
	void (*on_runtime)(void *ctx, uint32_t pid, const struct runtime *rt, const void *state,
			   uint64_t bias);
	/* Process pid was forked from ppid, before any event of its own. */
	void (*on_fork)(void *ctx, uint32_t ppid, uint32_t pid);
	/*
	 * A runtime's code object first seen in a sample: an event of size
	 * bytes (at least its struct unw_event; UNW_EV_CODE) that the namer of
	 * the runtime of its unwinder reads, now.
	 */
	void (*on_code)(void *ctx, const struct unw_event *ev, size_t size);
	/*
	 * samples of pid stopped short of the bottom at pc (0: before the walk), for reason
	 * (an index of session_stats.errors). Called during a drain, before
	 * on_exit of that pid, so the pc can still be symbolized.
	 */
	void (*on_failure)(void *ctx, uint32_t pid, uint64_t pc, unsigned int reason,
			   uint64_t samples);
	void *ctx;
};

/*
 * What the session counts itself, as bpf/abi.h's UNW_STATS: X(FIELD, KEY,
 * LABEL, SHOW, NOTE), a field of struct session_stats, its KEY in
 * --stats-json, the LABEL of its line in the summary and how it is shown
 * (enum unw_stat_show), with a NOTE when it is not 0.
 */
#define SESSION_STATS(X)                                                                             \
	/* Whose mappings were read; a reused pid counts again. */                                   \
	X(processes, "processes", "processes", UNW_SHOW_COUNT, "")                                   \
	/* Times a process was stopped until its new code had tables. */                             \
	X(holds, "", "", UNW_SHOW_NONE, "")                                                          \
	/* Rows of the tables loaded; their bytes with the page map entries and rules. */            \
	X(rows_loaded, "rows_loaded", "unwind rows loaded", UNW_SHOW_NONE, "")                       \
	X(bytes_loaded, "bytes_loaded", "bytes loaded", UNW_SHOW_JSON, "")                           \
	X(rules_loaded, "rules_loaded", "rules loaded", UNW_SHOW_JSON, "")                           \
	X(pages_loaded, "pages_loaded", "pages loaded", UNW_SHOW_JSON, "")                           \
	/*                                                                                      \
	 * Kernel memory of unwprof's BPF maps, as charged to it (memlock in fdinfo):        \
	 * the most it was at a drain, or now; hash maps that grow as they fill shrink.      \
	 */    \
	X(map_bytes, "bpf_map_bytes", "BPF map memory", UNW_SHOW_BYTES, "")                          \
	/* What kept processes or files from their tables: */                                        \
	/* rows that did not fit under max_shards (or max executables) */                            \
	X(rows_unplaced, "rows_unplaced", "unwind rows left out", UNW_SHOW_LEFT_OUT,                 \
	  "raise --max-shards")                                                                      \
	/* processes with more than UNW_MAPS_MAX executable mappings: the rest use frame pointers */ \
	X(maps_over_limit, "maps_over_limit", "processes over limit", UNW_SHOW_LEFT_OUT,             \
	  "mappings over the limit")                                                                 \
	X(processes_gone, "processes_gone", "processes gone", UNW_SHOW_LEFT_OUT,                     \
	  "exited while their mappings were read")                                                   \
	/*                                                                                      \
	 * mapped files whose path, resolved inside the process's root, led to another       \
	 * file than the mapped one (a planted symlink, a replaced file); the mapped inode   \
	 * is then read through /proc/PID/map_files when it can                              \
	 */    \
	X(files_replaced, "files_replaced", "files replaced", UNW_SHOW_LEFT_OUT,                     \
	  "the path led to another file")                                                            \
	/* files not opened as the mapped inode, or not ELF: frame pointers */                       \
	X(files_skipped, "files_skipped", "files skipped", UNW_SHOW_LEFT_OUT,                        \
	  "walked with frame pointers")                                                              \
	/*                                                                                      \
	 * Files a process names rather than maps (perf maps, jitdumps, debug files)         \
	 * refused, by reason (core/targets/proc_view.h): never read, nothing named from     \
	 * them; each warned about                                                           \
	 */    \
	X(refused_link, "files_refused_link", "refused: links", UNW_SHOW_LEFT_OUT,                   \
	  "a link where the process's file should be")                                               \
	X(refused_not_regular, "files_refused_not_regular", "refused: not files",                    \
	  UNW_SHOW_LEFT_OUT, "FIFOs, devices, directories: never opened")                            \
	X(refused_too_large, "files_refused_too_large", "refused: too large", UNW_SHOW_LEFT_OUT,     \
	  "more than a JIT map or an ELF file can be")                                               \
	X(refused_owner, "files_refused_owner", "refused: not its own", UNW_SHOW_LEFT_OUT,           \
	  "owned by neither root nor a user of the process")                                         \
	X(refused_replaced, "files_refused_replaced", "refused: replaced", UNW_SHOW_LEFT_OUT,        \
	  "not the jitdump the process maps")                                                        \
	X(refused_forged, "files_refused_forged", "refused: forged", UNW_SHOW_LEFT_OUT,              \
	  "a jitdump whose header is not of its process")

/* SESSION_ST_FIELD: the index of a row of SESSION_STATS. */
enum session_stat {
#define SESSION_STAT_ENUM(field, ...) SESSION_ST_##field,
	SESSION_STATS(SESSION_STAT_ENUM)
#undef SESSION_STAT_ENUM
		SESSION_ST_NR,
};

/*
 * The session's figures: what BPF counted (UNW_STATS, UNW_OFF_STATS) and what
 * the session counts (SESSION_STATS), a field each, and the figures kept
 * by reason, runtime and time. fp counts every sample with frame pointers,
 * fp_complete those of them that reached the bottom (Go, code that keeps
 * frame pointers); lost, the samples taken but not delivered (the count map
 * was full, or their user stack could not be read back): after
 * session__stop() and the drain that follows, walked + fp + failed + lost
 * adds up to samples. The off-CPU blocks that ended add up: off_blocks =
 * off_walked + off_short + off_outside + off_capped + off_exited + off_lost
 * + off_pending_at_end.
 */
struct session_stats {
#define SESSION_STAT_FIELD(field, ...) uint64_t field;
#define UNW_STAT_FIELD(id, field, ...) uint64_t field;
	UNW_STATS(UNW_STAT_FIELD)
	UNW_OFF_STATS(UNW_STAT_FIELD)
	SESSION_STATS(SESSION_STAT_FIELD)
#undef UNW_STAT_FIELD
#undef SESSION_STAT_FIELD
	uint64_t errors[SESSION_NR_ERRORS]; /* samples per reason, see session__error_name() */
	/* By runtime (enum unw_unwinder): samples with its frames, and its frames written. */
	uint64_t runtime_samples[UNW_UW_NR];
	uint64_t runtime_frames[UNW_UW_NR];
	/*
	 * The time from an exec to its tables in BPF (its process held
	 * meanwhile): how many were timed, the median and p99 in ns (< 0: none).
	 */
	struct sample_times exec_to_tables;
};

/*
 * Whether a session can run here, said on stderr when not: root or CAP_BPF
 * and CAP_PERFMON (CAP_SYS_ADMIN covers both), a kernel with BTF and the
 * helpers the walk needs. 0, -EPERM or -ENOTSUP. session__new checks it
 * too; a command checks it first, before it creates anything.
 */
int session__check_environment(void);
struct session *session__new(const struct session_opts *opts);
int session__load(struct session *s);
/*
 * Loads the walk of runtime u (enum unw_unwinder, bpf/runtimes.h) now, if it
 * is not loaded: a session loads it itself once a process of it is found.
 * 0 or -errno (said).
 */
int session__load_runtime(struct session *s, unsigned int u);
int session__add_process(struct session *s, pid_t pid);
int session__attach(struct session *s);
/* Waits up to timeout_ms for events; returns 0, or -EINTR when interrupted. */
int session__poll(struct session *s, int timeout_ms);
int session__drain(struct session *s);
/*
 * Stops sampling: disables the perf events, so the drain that follows
 * delivers every sample taken. Events are still read by poll. 0 or -errno.
 */
int session__stop(struct session *s);
void session__stats(const struct session *s, struct session_stats *st);
/*
 * The counts of the model's files into st (files_replaced, files_skipped,
 * refused_*): the symbolizer reads files after the run (JIT maps, debug
 * files of the last processes), so a caller reads them again once the
 * profile is written.
 */
void session__model_stats(const struct model *md, struct session_stats *st);
/*
 * Run time and run count of the sampling program attached to the perf
 * events (with tail calls, the walks it chains to are inside its time).
 * The kernel counts them only while kernel.bpf_stats_enabled=1, so both
 * are 0 otherwise. 0 or -errno.
 */
int session__prog_stats(const struct session *s, uint64_t *run_time_ns, uint64_t *run_cnt);
/*
 * The histogram of the time of each sample of the targets, from the start
 * of the sampling program to the end of the sample (bpf/abi.h, struct
 * unw_tally), summed over the CPUs into buckets; counted whatever
 * kernel.bpf_stats_enabled says. 0 or -errno (buckets then all 0).
 */
int session__sample_ns(const struct session *s, uint64_t buckets[UNW_HIST_BUCKETS]);

/*
 * The targets' samples that paid each cost and their time (bpf/abi.h,
 * enum unw_cost), summed over the CPUs into sums. 0 or -errno.
 */
int session__sample_costs(const struct session *s, struct unw_cost_sum sums[UNW_COST_NR]);
/* Name of an error reason index of session_stats.errors, NULL past the last. */
const char *session__error_name(unsigned int reason);
void session__free(struct session *s);

#endif
