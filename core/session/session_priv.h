/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the files of the session share (core/session/session*.c): struct
 * session, its sizes, and the functions each calls of the others. The rest
 * of unwprof has session.h.
 *
 *	session.c		sizing, loading, attaching, freeing
 *	session_tables.c	the unwind tables in the BPF maps: shards, the
 *				rule dictionary and page map, published files
 *	session_procs.c		a process's entry: its mappings, their tables,
 *				its runtimes
 *	session_events.c	BPF's events: new and changed processes, holds,
 *				exits, code first seen
 *	session_drain.c		the counts and stacks read out of BPF
 *	session_stats.c		what the session and BPF counted
 */
#ifndef UNWPROF_SESSION_PRIV_H
#define UNWPROF_SESSION_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>

#include "config.h"
#include "bpf/abi.h"
#include "count_ledger.h"
#include "offcpu.h"
#include "session.h"
#include "ustack_cache.h"

struct model_file;
struct model_image;
struct model_proc;
struct shards_placement;

#define DEFAULT_MAX_SHARDS 256
#define MIN_DEFAULT_MAX_SHARDS 32
#define SHARD_RAM_SHARE 64 /* the default cap is at most 1/64 of memory */
/*
 * The most entries of the maps that hold what BPF took between two drains
 * (a busy machine's), and the fewest; in between, what the sample rate
 * needs (session__stacks_needed).
 */
#define STACK_ENTRIES_MAX 8192
#define STACK_ENTRIES_MIN 1024
#define STACKS_DEEP_SHARE 8 /* stacks deeper than UNW_USTACK_SHORT (4 KiB each): 1 in 8 */
#define COUNTS_PER_STACK 2  /* a stack counted in several threads, with and without kernel */
#define DRAINS_OF_ROOM 4    /* a drain may come late: user space busy loading tables */
#define DRAIN_INTERVAL_MS 1000
/*
 * Counts stay in their map while they grow (count_ledger.h), but their
 * names (comm) are those their threads had when the keys were added: the
 * map is emptied every so many drains, so that a name is at most that old.
 */
#define COUNTS_FLUSH_DRAINS 10
/*
 * The first drain comes early, so that the first stacks are symbolized (their
 * files' DWARF read, compressed sections inflated) while the run goes on
 * rather than after its end: the end of a run of one second was mostly the
 * reading of libc's separate debug file.
 */
#define FIRST_DRAIN_MS 250
/* Entries of the process map: every process of -a; a launched tree's, by CPU (8 KiB each). */
#define PROCS_SYSTEM 2048
#define PROCS_TREE_MIN 256
#define PROCS_PER_CPU 64
/*
 * The budget of frames of a CPU's walks (bpf/abi.h, struct unw_config): an
 * average of FRAMES_PER_SAMPLE frames a sample (a walk of an off-CPU
 * block), a bucket of FRAMES_BURST at most, so that the deepest walks
 * (UNW_WALK_MAX) find room after a quiet time. At 999 Hz a CPU may walk 8
 * million frames a second, some 120 ms of its time at 15 ns a frame; at 99
 * Hz a tenth of that.
 */
#define FRAMES_PER_SAMPLE 8192
#define FRAMES_BURST (2 * UNW_WALK_MAX)
/* Threads of the -p targets sampled with perf events of their own, at most (two fds each). */
#define TASK_EVENTS_MAX 128

/* A live process whose mappings were read; freed when BPF reports its exit. */
struct session_proc {
	pid_t pid;
	bool over_limit; /* more than UNW_MAPS_MAX executable mappings */
	bool in_map;	 /* its process info was written to BPF */
	uint32_t gen;	 /* the gen of that write (even: user space's) */
};

/* A process whose exit was told, and the gen of its entry written here (0: none). */
struct session_exit {
	pid_t pid;
	uint32_t gen;
};

struct session {
	struct session_opts opts;
	struct unwind_bpf *skel;
	bool loaded;
	int nr_cpus;
	/* The perf events that run the sampler: one a CPU, or one a thread of the -p targets. */
	size_t nr_pe;
	int *pe_fds;
	struct bpf_link **pe_links;
	struct bpf_link *tp_links[4];
	struct bpf_link *off_links[OFFCPU_NR_LINKS]; /* core/session/offcpu.h */
	bool tail_calls;			     /* sample_tc and walk_tc instead of sample */
	struct runtime_walks *walks;		     /* the runtimes' programs, loaded as needed */
	struct ring_buffer *rb;

	struct encoder *enc;   /* the wire format of the rows and of their index */
	struct loader *loader; /* files, tables and where they go: as `unwprof shards` shows */
	struct model *model;   /* the caller's: processes, files and their images */
	bool own_model;	       /* none given: made by session__new(), freed with it */
	void *rules_mem;       /* the rule dictionary, mmapped */
	void *pages_mem;       /* the page map, mmapped */
	size_t rules_bytes, pages_bytes;
	uint64_t rows_unindexed; /* placed, but their table's pages did not fit */
	bool unindexed_warned;
	void **shard_mem; /* per shard created: its inner map, mmapped */
	int *shard_fds;	  /* and its fd, which shows it as unwprof's */
	size_t nr_shards; /* created and in the outer map */
	size_t max_execs;
	/* Tables uploaded, and how many of them were when their files were last published. */
	size_t tables_placed, tables_published;

	struct session_proc *procs; /* live ones only */
	size_t nr_procs, cap_procs;
	uint32_t proc_gen_last;	  /* of the process entries written here (struct unw_proc): even */
	uint64_t procs_seen;	  /* every process ever read, for the stats */
	uint64_t maps_over_limit; /* of them, with more than UNW_MAPS_MAX mappings */
	struct session_exit *exits; /* exited, reported after the next drain */
	size_t nr_exits, cap_exits;
	bool stopped; /* the perf events are disabled */
	pid_t *dirty; /* mappings to read again after this batch of events */
	size_t nr_dirty, cap_dirty;
	pid_t *held; /* stopped by BPF until their tables are loaded (hold_new_code) */
	size_t nr_held, cap_held;
	uint64_t holds;
	/*
	 * execs whose tables are being loaded, and the histogram of their times
	 * (bpf/sample_time_hist.h)
	 */
	struct exec_start {
		pid_t pid;
		uint64_t ns; /* CLOCK_MONOTONIC */
	} * execs;
	size_t nr_execs, cap_execs;
	uint64_t exec_hist[UNW_HIST_BUCKETS];

	struct ustack_cache ustacks;
	struct count_ledger *counts; /* what the counts in the map were at the last drain */
	uint32_t drains;
	bool drain_requested;
	uint64_t last_drain_ms;
	/* The most the maps held, read at each drain, before it deletes counts. */
	uint64_t map_bytes_peak;
	uint64_t lost;			/* samples whose user stack could not be read back */
	uint64_t off_lost, off_lost_ns; /* the same for off-CPU counts */
	uint64_t procs_gone;		/* exited while their mappings were read */
	bool procs_full_warned;
	bool unplaced_warned;
	bool maps_limit_warned;
};

static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/*
 * A hook of the test suite, read from the environment only in a build made
 * for it (-Dtest_hooks=true): a binary to install, run as root, takes no
 * such orders from its environment. NULL when unset or not built in.
 */
static inline const char *test_hook(const char *name)
{
	return UNWPROF_TEST_HOOKS ? getenv(name) : NULL;
}

/* session_tables.c */
int session__upload_placed(void *ctx, struct model_image *e, const struct shards_placement *pl);
void session__publish_file(struct session *s, struct model_file *f, uint32_t exec_id);
void session__publish_files(struct session *s);
int session__map_dictionary(struct session *s);

/* session_procs.c */
struct session_proc *session__proc_find(struct session *s, pid_t pid);
int session__load_process(struct session *s, pid_t pid, struct model_proc *mp, bool quiet);
void session__forget_exited(struct session *s, const struct session_exit *e);

/* session_events.c */
int session__on_event(void *ctx, void *data, size_t size);
void session__reload_dirty(struct session *s);
void session__release_all(struct session *s);

/* session_stats.c */
uint64_t session__map_bytes(const struct session *s);

#endif
