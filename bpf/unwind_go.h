/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Go's stack switch, what user space and BPF share of it (bpf/runtimes.h):
 * the value of its process map and its reasons. Its walk is
 * bpf/unwind_go.bpf.h; what it reads of a Go binary,
 * core/runtimes/go/goruntime.h.
 */
#ifndef UNWPROF_UNWIND_GO_H
#define UNWPROF_UNWIND_GO_H

/*
 * Go's runtime.systemstack, runtime.morestack and runtime.mcall
 * (core/runtimes/go/goruntime.h) are its code (UNW_UW_GO): on the system
 * stack, the walk goes on from the goroutine's saved state, or from the
 * base of the system stack; elsewhere, as UNW_UW_TABLE. The vDSO's callers
 * time.now and runtime.nanotime1 too: while in the vDSO, from their
 * caller's state in m. Its frames are native ones.
 *
 * Value of the Go map (go_procs), keyed by pid: how the Go unwinder finds the state Go
 * saved for the goroutine a thread's system stack works for. Offsets are
 * those of core/runtimes/go/goruntime.h; addresses are the process's.
 */
struct unw_go_proc {
	__u64 morestack_lo; /* [lo, hi): runtime.morestack, runtime.mcall; the rest, systemstack */
	__u64 morestack_hi;
	__u64 mcall_lo;
	__u64 mcall_hi;
	__u64 now_lo; /* the vDSO's callers, time.now and runtime.nanotime1; hi 0: none */
	__u64 now_hi;
	__u64 nanotime_lo;
	__u64 nanotime_hi;
	__s32 tls_g;
	__u32 g_m;
	__u32 m_g0;
	__u32 m_curg;
	__u32 sched_sp;
	__u32 sched_pc;
	__u32 sched_bp;
	__u32 m_vdso_pc; /* m.vdsoPC and m.vdsoSP; 0: no vDSO switch */
	__u32 m_vdso_sp;
	__u32 pad;
};

/* Why a walk in Go's stack switch stopped: bpf/abi.h's UNW_ERRORS says how a list is read. */
#define UNW_GO_ERRORS(X)                 \
	X(GO_SWITCH, "go-switch-failed", \
	  "Go's saved goroutine state could not be read: the walk stops")

_Static_assert(sizeof(struct unw_go_proc) == 104, "unw_go_proc layout");

#endif
