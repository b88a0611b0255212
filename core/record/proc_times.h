/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The time of each process of a run, on the CPU and off it (--off-cpu), as
 * the summary shows it: added up from the samples as they are drained.
 *
 *	pt = proc_times__new();
 *	proc_times__add(pt, pid, comm, flags, count, off_cpu_ns);   each sample
 *	proc_times__sort(pt);		the most time first
 *	for (i = 0; i < proc_times__count(pt); i++) proc_times__get(pt, i)
 *	proc_times__free(pt);
 */
#ifndef UNWPROF_PROC_TIMES_H
#define UNWPROF_PROC_TIMES_H

#include <stddef.h>
#include <stdint.h>

struct proc_time {
	uint32_t pid;
	char comm[16];		  /* the name of the first sample of it */
	uint64_t on_cpu_samples;  /* on-CPU samples: times the period, its CPU time */
	uint64_t off_blocks;	  /* off-CPU: the blocks counted */
	uint64_t off_walked_ns;	  /* their time, with a stack */
	uint64_t off_unwalked_ns; /* and without */
};

struct proc_times;

/* NULL and errno on failure. */
struct proc_times *proc_times__new(void);
/* A sample of pid (flags: SAMPLE_* of core/session/session.h). 0 or -ENOMEM. */
int proc_times__add(struct proc_times *pt, uint32_t pid, const char *comm, uint32_t flags,
		    uint64_t count, uint64_t off_cpu_ns);
/* The most time first, period_ns the CPU time of an on-CPU sample; ties by pid. */
void proc_times__sort(struct proc_times *pt, uint64_t period_ns);
size_t proc_times__count(const struct proc_times *pt);
const struct proc_time *proc_times__get(const struct proc_times *pt, size_t i);
/* A process's on-CPU, off-CPU and total time in ns. */
uint64_t proc_times__on_cpu_ns(const struct proc_time *t, uint64_t period_ns);
uint64_t proc_times__total_ns(const struct proc_time *t, uint64_t period_ns);
void proc_times__free(struct proc_times *pt);

#endif
