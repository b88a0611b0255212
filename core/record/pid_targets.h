/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The processes a run is given by pid: -p's, or those of -t's threads.
 * Each is checked to exist before anything is created, then watched
 * through a pidfd, so that a pid reused after the target exited is not
 * mistaken for it.
 *
 *	struct pid_targets t = {};
 *	err = pid_targets__init(&t, pids, nr_pids, tids, nr_tids);
 *	err = pid_targets__watch(&t);
 *	while (!pid_targets__exited(&t)) ...
 *	pid_targets__exit(&t);
 */
#ifndef UNWPROF_PID_TARGETS_H
#define UNWPROF_PID_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pid_targets {
	pid_t *pids; /* the -p processes, or the processes of the -t threads, each once */
	size_t nr;
	int *pidfds; /* one per pid once watched, -1 where the kernel gave none */
	bool gone;   /* every target exited */
};

/*
 * The targets: pids, and the process of each of the tids. 0, -ESRCH for a
 * thread or process that does not exist (said), or -ENOMEM.
 */
int pid_targets__init(struct pid_targets *t, const pid_t *pids, size_t nr_pids, const pid_t *tids,
		      size_t nr_tids);
/* A pidfd for each target. 0, -ESRCH for one that exited meanwhile (said), or -ENOMEM. */
int pid_targets__watch(struct pid_targets *t);
/* True once every target has exited: nothing is left to sample. */
bool pid_targets__exited(struct pid_targets *t);
void pid_targets__exit(struct pid_targets *t);

#endif
