/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Debug files fetched by build ID from the debuginfod servers that
 * DEBUGINFOD_URLS names, as gdb, perf and valgrind do, through libdebuginfod
 * and its cache (DEBUGINFOD_CACHE_PATH, by default ~/.cache/debuginfod_client).
 *
 * The fetches run in a process of their own, forked when the fetcher starts
 * (before the run creates threads or opens BPF objects): a request never
 * blocks the caller, and at the end of the run what is still on its way is
 * waited for until a deadline, then abandoned by killing that process, so
 * a slow or dead server delays the end by that bound and no more, and never
 * leaves a transfer running inside unwprof.
 *
 *	struct debuginfod *d = debuginfod__start();   // NULL: not configured
 *	debuginfod__request(d, "8f3a...");              // when a file is seen
 *	...
 *	debuginfod__finish(d, deadline_ns);             // at the end of the run
 *	if (debuginfod__poll(d, "8f3a...", &path) == DEBUGINFOD_FOUND) ...
 */
#ifndef UNWPROF_DEBUGINFOD_H
#define UNWPROF_DEBUGINFOD_H

#include <stdint.h>
#include <sys/types.h>

struct debuginfod;

enum debuginfod_state {
	DEBUGINFOD_UNKNOWN,   /* never requested */
	DEBUGINFOD_PENDING,   /* requested, no answer yet */
	DEBUGINFOD_FOUND,     /* in the client's cache, at the path given */
	DEBUGINFOD_ABSENT,    /* no server has it */
	DEBUGINFOD_FAILED,    /* a server could not be asked (error counted) */
	DEBUGINFOD_ABANDONED, /* no answer before the deadline */
};

/* What the fetches came to, for the end of the run and --stats-json. */
struct debuginfod_stats {
	uint64_t requested, found, absent, failed, abandoned;
	int first_error; /* -errno of the first failure, 0 without one */
};

/*
 * A fetcher for the servers of DEBUGINFOD_URLS; NULL with errno ENOENT
 * when it is unset or empty, EOPNOTSUPP when unwprof was built without
 * libdebuginfod, ELIBACC when libdebuginfod.so.1 cannot be loaded (it is
 * loaded here, not linked), or the error that kept its process from
 * starting.
 */
struct debuginfod *debuginfod__start(void);

/* The servers' list, as DEBUGINFOD_URLS gave it. */
const char *debuginfod__urls(const struct debuginfod *d);

/* The fetcher's process, a child of the caller (0 once stopped): not one to end with others. */
pid_t debuginfod__pid(const struct debuginfod *d);

/*
 * Asks for the debug file of build_id (lowercase hex), once per build ID,
 * without waiting. 0, or -ENOMEM, -EINVAL (not a build ID), -EPIPE (the
 * fetcher is gone or finished: the build ID is then abandoned).
 */
int debuginfod__request(struct debuginfod *d, const char *build_id);

/*
 * What became of build_id's request, reading the answers that came in the
 * meantime; never waits. *path (FOUND) stays valid as long as d.
 */
enum debuginfod_state debuginfod__poll(struct debuginfod *d, const char *build_id,
				       const char **path);

/*
 * Waits for the answers still on their way until every request has one or
 * CLOCK_MONOTONIC reaches deadline_ns; then stops the fetcher: the requests
 * without an answer are ABANDONED, and later ones too. Once.
 */
void debuginfod__finish(struct debuginfod *d, uint64_t deadline_ns);

void debuginfod__stats(const struct debuginfod *d, struct debuginfod_stats *st);

/* Stops the fetcher without waiting, and frees d. */
void debuginfod__free(struct debuginfod *d);

#endif
