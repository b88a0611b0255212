// SPDX-License-Identifier: GPL-2.0-only
/* The processes given by pid, checked and watched until they exit. See pid_targets.h. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pid_targets.h"
#include "../util/log.h"

/* The process of thread tid (Tgid in /proc/TID/status); 0 when there is no such thread. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	FILE *f;
	int tgid = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* -t: the processes of the threads become the targets, each once. */
static int add_processes_of(struct pid_targets *t, const pid_t *tids, size_t nr_tids)
{
	for (size_t i = 0; i < nr_tids; i++) {
		pid_t tgid = tgid_of(tids[i]), *n;
		size_t j = 0;

		if (tgid <= 0) {
			pr_err("thread %d: no such thread", (int)tids[i]);
			return -ESRCH;
		}
		while (j < t->nr && t->pids[j] != tgid)
			j++;
		if (j < t->nr)
			continue;
		n = reallocarray(t->pids, t->nr + 1, sizeof(*n));
		if (!n)
			return -ENOMEM;
		t->pids = n;
		n[t->nr++] = tgid;
	}
	return 0;
}

static int check_exist(const struct pid_targets *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		if (kill(t->pids[i], 0) < 0 && errno == ESRCH) {
			pr_err("pid %d: no such process", (int)t->pids[i]);
			return -ESRCH;
		}
	}
	return 0;
}

int pid_targets__init(struct pid_targets *t, const pid_t *pids, size_t nr_pids, const pid_t *tids,
		      size_t nr_tids)
{
	int err;

	if (nr_pids) {
		t->pids = calloc(nr_pids, sizeof(*t->pids));
		if (!t->pids)
			return -ENOMEM;
		memcpy(t->pids, pids, nr_pids * sizeof(*pids));
		t->nr = nr_pids;
	}
	err = add_processes_of(t, tids, nr_tids);
	if (!err)
		err = check_exist(t);
	return err;
}

int pid_targets__watch(struct pid_targets *t)
{
	if (!t->nr)
		return 0;
	t->pidfds = calloc(t->nr, sizeof(*t->pidfds));
	if (!t->pidfds)
		return -ENOMEM;
	/* Those after a target found gone stay -1: pid_targets__exit() closes no fd 0. */
	for (size_t i = 0; i < t->nr; i++)
		t->pidfds[i] = -1;
	for (size_t i = 0; i < t->nr; i++) {
		t->pidfds[i] = (int)syscall(SYS_pidfd_open, t->pids[i], 0);
		if (t->pidfds[i] < 0 && errno == ESRCH) {
			pr_err("pid %d: no such process", (int)t->pids[i]);
			return -ESRCH;
		}
		/* Kernels before 5.3: no pidfd, the run goes on to its end. */
		if (t->pidfds[i] < 0)
			pr_debug("pid %d: no pidfd: %s", (int)t->pids[i], strerror(errno));
	}
	return 0;
}

bool pid_targets__exited(struct pid_targets *t)
{
	struct pollfd pfd = { .events = POLLIN };

	if (!t->pidfds || t->gone)
		return t->gone;
	for (size_t i = 0; i < t->nr; i++) {
		pfd.fd = t->pidfds[i];
		if (pfd.fd < 0 || poll(&pfd, 1, 0) != 1)
			return false;
	}
	t->gone = true;
	return true;
}

void pid_targets__exit(struct pid_targets *t)
{
	for (size_t i = 0; t->pidfds && i < t->nr; i++)
		if (t->pidfds[i] >= 0)
			close(t->pidfds[i]);
	free(t->pidfds);
	free(t->pids);
	t->pidfds = NULL;
	t->pids = NULL;
	t->nr = 0;
}
