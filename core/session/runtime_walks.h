/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runtimes' BPF programs of a session (bpf/runtimes.h): each loaded
 * only once a process of the runtime is found, so that the verifier takes
 * no time over the runtimes the targets do not run, and put in the walkers
 * (bpf/maps.bpf.h), where the native walk hands a frame of the runtime's
 * code over to it. Those of the targets known before the session's load
 * are loaded with its object; a runtime found later (-a, an exec) gets an
 * object of its own, opened from the same ELF with every map of the
 * session's.
 *
 *	rw = runtime_walks__new(skel, off_cpu);	after skel's open
 *	runtime_walks__choose(rw, u);		the programs of u load with skel
 *	(skel loaded)
 *	runtime_walks__start(rw, tail_calls);	the native walks and those chosen in the walkers
 *	runtime_walks__enable(rw, u);		u's programs loaded now, if not yet
 *	runtime_walks__free(rw);
 */
#ifndef UNWPROF_RUNTIME_WALKS_H
#define UNWPROF_RUNTIME_WALKS_H

#include <stdbool.h>

struct bpf_map;
struct unwind_bpf;
struct runtime_walks;

/* off_cpu: the programs of the off-CPU walks too. NULL and errno on failure. */
struct runtime_walks *runtime_walks__new(struct unwind_bpf *skel, bool off_cpu);
void runtime_walks__free(struct runtime_walks *rw);

/* Before skel's load: the programs of runtime u (enum unw_unwinder) load with it. */
void runtime_walks__choose(struct runtime_walks *rw, unsigned int u);

/*
 * After skel's load: the native walks (sample, or walk_tc with tail_calls,
 * and the off-CPU one) and the runtimes chosen put in the walkers. 0 or
 * -errno (said).
 */
int runtime_walks__start(struct runtime_walks *rw, bool tail_calls);

/*
 * The programs of runtime u loaded, verified and in the walkers, if they
 * were not: 0, or -errno when they cannot be (said once; the runtime's
 * code is then walked as native code, its samples counted
 * runtime-not-loaded).
 */
int runtime_walks__enable(struct runtime_walks *rw, unsigned int u);

/* The process map of runtime u (its name_procs); NULL for another unwinder. */
struct bpf_map *runtime_walks__procs_map(const struct runtime_walks *rw, unsigned int u);

#endif
