/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Process names for samples: a sample carries its thread's name (comm),
 * and the profile wants the process's too (the folded stack's first
 * frame, report --comm). The main thread's name is the process's; for
 * another thread, the name in /proc/PID/comm is read once per process
 * (again once it is forgotten: after an exec), or the thread's own when
 * the process is gone already.
 */
#ifndef UNWPROF_COMM_NAMES_H
#define UNWPROF_COMM_NAMES_H

#include <stdint.h>

struct comm_names;

struct comm_names *comm_names__new(void);
void comm_names__free(struct comm_names *n);

/* The name of process pid, sampled in its thread tid named comm; valid until forgotten. */
const char *comm_names__get(struct comm_names *n, uint32_t pid, uint32_t tid, const char *comm);

/* Forgets the name of pid: it exited or exec'd. */
void comm_names__forget(struct comm_names *n, uint32_t pid);

#endif
