/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Go's stack switches, which the BPF walk follows with its Go unwinder
 * (UNW_UW_GO). Go runs runtime code on each thread's system stack
 * (g0): runtime.systemstack(fn) saves the goroutine's sp and bp in its g's
 * sched and calls fn on g0; runtime.morestack saves the state of the
 * function that needs a bigger stack there and calls newstack on g0. A walk
 * that reaches either frame on g0 goes on from the goroutine's saved state,
 * as Go's own traceback does, instead of stopping at the top of g0.
 * runtime.mcall(fn) saves the goroutine's state and calls fn from the base
 * of g0's stack, as morestack does once the scheduler dropped the
 * goroutine: a walk that reaches either there goes on from g0's own saved
 * state, to runtime.mstart, the bottom of g0.
 *
 * Go calls the vDSO's clock_gettime on the system stack too: time.now and
 * runtime.nanotime1 switch to g0's stack for the call when they run on a
 * goroutine's, and say where they came from, for Go's own profiler, in
 * m.vdsoPC and m.vdsoSP (the caller's pc and sp). A walk that reaches
 * either frame while m.vdsoSP is set goes on from there, as Go's traceback
 * does from a signal in the vDSO.
 *
 * What the unwinder needs is read from the binary, not from a table of
 * versions: the two functions' addresses from the pclntab, which every Go
 * binary keeps, stripped or not, and the offsets of g.m, m.g0, m.curg and
 * g.sched from the instructions of runtime.systemstack and runtime.mcall,
 * which use them (amd64, Go 1.17 and later: the register ABI), and of
 * m.vdsoPC and m.vdsoSP from those of time.now and runtime.nanotime1. A
 * binary whose code has another shape has no switch: its walk stops there,
 * as before (a vDSO call only: no vDSO switch, the others stay).
 */
#ifndef UNWPROF_GORUNTIME_H
#define UNWPROF_GORUNTIME_H

#include <stdint.h>
#include <stdio.h>

struct elf_file;

struct goruntime {
	uint64_t systemstack_lo, systemstack_hi; /* ELF virtual addresses: [lo, hi) */
	uint64_t morestack_lo, morestack_hi;
	uint64_t mcall_lo, mcall_hi;
	int32_t tls_g; /* the current g is the word at the thread pointer + tls_g */
	uint32_t g_m;  /* offsets: of g.m in a g, */
	uint32_t m_g0; /* of m.g0 and m.curg in an m, */
	uint32_t m_curg;
	uint32_t sched_sp; /* of g.sched.sp, .pc and .bp in a g */
	uint32_t sched_pc;
	uint32_t sched_bp;
	/* the vDSO's callers, time.now and runtime.nanotime1; hi 0: none */
	uint64_t now_lo, now_hi;
	uint64_t nanotime_lo, nanotime_hi;
	uint32_t m_vdso_pc; /* of m.vdsoPC and m.vdsoSP in an m; 0: no vDSO switch */
	uint32_t m_vdso_sp;
};

/*
 * The stack switches of Go binary ef into *gr. 0; -ENOENT when ef is not a
 * Go binary (no pclntab, no runtime.systemstack); -ENOTSUP when its code
 * does not have the shape read here (another architecture, an older Go).
 */
int goruntime__read(const struct elf_file *ef, struct goruntime *gr);

struct json_writer;
/* What dump-unwind shows of g: lines of its summary, or its "go_switch" member. */
void goruntime__print(FILE *f, const struct goruntime *g);
void goruntime__print_json(struct json_writer *jw, const struct goruntime *g);

#endif
