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

struct proc_names;

struct proc_names *proc_names__new(void);
void proc_names__free(struct proc_names *n);

/* The name of process pid, sampled in its thread tid named comm; valid until forgotten. */
const char *proc_names__get(struct proc_names *n, uint32_t pid, uint32_t tid, const char *comm);

/* Forgets the name of pid: it exited or exec'd. */
void proc_names__forget(struct proc_names *n, uint32_t pid);

#endif
