// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampler: one perf_event program per CPU walks the user stack of the
 * sample (bpf/walk.bpf.h) with the DWARF-derived tables (frame pointers
 * where there is no table), takes the kernel stack and counts the pair in
 * a hash map.
 *
 * The walk runs in bpf_loop (sample, Linux 5.17+), or, on older kernels, in
 * tail calls of FRAMES_PER_PROG frames (sample_tc, then walk_tc). Either way
 * it reads the top of the user stack once into a per-CPU copy and walks from
 * it, with a probe read only beyond it; a frame of a runtime's code is
 * handed over to the runtime's program (bpf/runtimes.bpf.c), which hands
 * the walk back to the one of walkers at WALKER_NATIVE.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "walk.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * The registers a walk starts from, read from a sample's context (user
 * mode) or from the user registers a task saved on entering the kernel. The
 * context allows only 8-byte loads of them.
 */
#ifdef __TARGET_ARCH_x86
#define CTX_USER_MODE(ctx) ((*(volatile __u64 *)&(ctx)->regs.cs & 3) != 0)
#define CTX_REGS(f, ctx)                  \
	do {                              \
		(f)->pc = (ctx)->regs.ip; \
		(f)->sp = (ctx)->regs.sp; \
		(f)->fp = (ctx)->regs.bp; \
	} while (0)
#else /* arm64: EL0 is mode 0 of pstate; x29 the frame pointer, x30 the link register */
#define CTX_USER_MODE(ctx) ((*(volatile __u64 *)&(ctx)->regs.pstate & 0xf) == 0)
#define CTX_REGS(f, ctx)                        \
	do {                                    \
		(f)->pc = (ctx)->regs.pc;       \
		(f)->sp = (ctx)->regs.sp;       \
		(f)->fp = (ctx)->regs.regs[29]; \
		(f)->lr = (ctx)->regs.regs[30]; \
	} while (0)
#endif

/* The user registers of the sampled task: from the sample, or from the task. */
static __always_inline int user_regs(struct bpf_perf_event_data *ctx, struct unw_frame *f,
				     __u32 *flags)
{
	if (CTX_USER_MODE(ctx)) {
		CTX_REGS(f, ctx);
		return 0;
	}
	*flags |= UNW_SAMPLE_KERNEL;
	return task_user_regs(bpf_get_current_task_btf(), f);
}

/*
 * The user stack, the kernel stack and the stats of a finished walk, then
 * the count. A function of its own, as sample_begin.
 */
static __noinline void sample_finish(struct bpf_perf_event_data *ctx, struct scratch *sc,
				     struct walk *w)
{
	struct unw_count_key key = sc->saved.key;

	walk_finish(ctx, &key, w);
	/* Walked with the tables alone: frame-pointer walks are counted apart. */
	if ((w->flags & UNW_SAMPLE_COMPLETE) && !(w->flags & UNW_SAMPLE_FP))
		stat_inc(UNW_ST_COMPLETE);
	if (w->flags & UNW_SAMPLE_FP)
		stat_inc((w->flags & UNW_SAMPLE_COMPLETE) ? UNW_ST_FP_COMPLETE : UNW_ST_FP);
	if (w->flags & UNW_SAMPLE_TRUNCATED)
		stat_inc(UNW_ST_TRUNCATED);
	if (w->flags & UNW_SAMPLE_ELIDED)
		stat_inc(UNW_ST_ELIDED);
	if (w->flags & UNW_SAMPLE_EXEC)
		stat_inc(UNW_ST_EXEC);
	if (w->flags & UNW_SAMPLE_KERNEL)
		stat_inc(UNW_ST_KERNEL);
	if (count_add(&key, w, 1, 0, NULL))
		stat_inc(UNW_ST_LOST);
	sample_time_end(sc);
}

/*
 * Whether this is the first sample of thread tid on this CPU since the
 * thread was switched out or another thread was sampled here: the memory
 * the last sample touched is likely cold (UNW_COST_SWITCHED).
 */
static __always_inline void sample_switched(struct scratch *sc, __u32 tid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 switches = task->nvcsw + task->nivcsw;

	if (sc->last_tid != tid || sc->last_switches != switches)
		sc->costs |= 1u << UNW_COST_SWITCHED;
	sc->last_tid = tid;
	sc->last_switches = switches;
}

/*
 * Whether the sample of w->pid is of a profiled process; counts it, and
 * starts its errors and its time (t0: when its program started), when it
 * is. Outside -a, the process map holds targets only (user space writes
 * the entries of targets, BPF those of their children, and the exit
 * deletes both), so the process's entry, which the walk needs anyway,
 * answers for most samples, before the map of targets.
 */
static __always_inline int sample_wanted(struct scratch *sc, struct walk *w, __u32 tid, __u64 t0)
{
	__u32 pid = w->pid;

	if (pid == 0 && !cfg.system_wide)
		return 0;
	sc->costs = 0;
	proc_find(sc, w);
	if (!cfg.system_wide && !w->has_proc && !bpf_map_lookup_elem(&targets, &pid))
		return 0;
	if (cfg.only_threads && !bpf_map_lookup_elem(&threads, &tid))
		return 0;
	stat_inc(UNW_ST_SAMPLES);
	sample_switched(sc, tid);
	sc->errs = 0;
	sc->cur_pc = 0;
	sc->t0 = t0;
	return 1;
}

/*
 * A new sample of the current task into sc and w, when it is of a
 * profiled process: its count's key kept, its walk started (or its stack
 * of exec, or none for a task without user registers). 0 when it is not
 * wanted. A function of its own: its stack is not the walk's, whose calls
 * go deeper (a program's calls share 512 bytes).
 */
static __noinline int sample_begin(struct bpf_perf_event_data *ctx, struct scratch *sc,
				   struct walk *w)
{
	__u64 t0 = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	struct unw_frame regs = {};

	w->sc = sc;
	w->pid = id >> 32;
	if (!sample_wanted(sc, w, (__u32)id, t0))
		return 0;
	sc->saved.key = (struct unw_count_key){ .pid = w->pid, .tid = (__u32)id, .kstack = -1 };
	walk_begin(w);
	if (w->pid && user_regs(ctx, &regs, &w->flags) == 0) {
		walk_user(w, &regs);
		return 1;
	}
	w->flags |= UNW_SAMPLE_KERNEL;
	err_inc(sc, UNW_E_NO_USER);
	return 1;
}

/*
 * The sampler: a new sample, or the walk of one a runtime's program hands
 * back (sc->saved.resume), walked in bpf_loop, a frame of a runtime's code
 * handed over to its program; then counted.
 */
SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	struct scratch *sc = scratch_of(WALK_ON_CPU);
	struct walk w = {};

	if (!sc)
		return 0;
	if (sc->saved.resume)
		walk_restore(sc, &w);
	else if (!sample_begin(ctx, sc, &w))
		return 0;
	walk_run(&w);
	walk_hand_over(ctx, &w, &walkers);
	sample_finish(ctx, sc, &w);
	return 0;
}

#define FRAMES_PER_PROG 32
_Static_assert(UNW_DEPTH_MAX / FRAMES_PER_PROG <= UNW_TAIL_CALLS_MAX - 1, "tail call limit");

/*
 * The walk for kernels without bpf_loop: FRAMES_PER_PROG frames, then
 * itself again, from the state sample_tc, itself or a runtime's program
 * saved (WALKER_NATIVE of walkers).
 */
SEC("perf_event")
int walk_tc(struct bpf_perf_event_data *ctx)
{
	struct scratch *sc = scratch_of(WALK_ON_CPU);
	struct walk w = {};

	if (!sc)
		return 0;
	walk_restore(sc, &w);
	w.n0 = w.n;
	for (int i = 0; i < FRAMES_PER_PROG && !w.done && w.n0 + i < UNW_DEPTH_MAX; i++) {
		if (walk_frame_one(i, &w))
			break;
		w.n = w.n0 + i + 1;
	}
	if (w.handoff) {
		walk_hand_over(ctx, &w, &walkers);
	} else if (!w.done && w.n < UNW_DEPTH_MAX && sc->tail_calls < UNW_TAIL_CALLS_MAX) {
		walk_save(sc, &w);
		sc->tail_calls++;
		bpf_tail_call(ctx, &walkers, WALKER_NATIVE);
		/* Only when the tail call failed: the walk stops here, not at the depth limit. */
		sc->tail_calls--;
		err_inc(sc, UNW_E_TAIL_CALL);
	}
	sample_finish(ctx, sc, &w);
	return 0;
}

/*
 * The sampler for kernels without bpf_loop (before 5.17): a new sample,
 * its walk on in walk_tc, which finishes it; here only for a sample without
 * a walk (no user registers, inside execve), or when the tail call failed.
 */
SEC("perf_event")
int sample_tc(struct bpf_perf_event_data *ctx)
{
	struct scratch *sc = scratch_of(WALK_ON_CPU);
	struct walk w = {};

	if (!sc || !sample_begin(ctx, sc, &w))
		return 0;
	if (w.walking && !w.done) {
		walk_save(sc, &w);
		sc->tail_calls++;
		bpf_tail_call(ctx, &walkers, WALKER_NATIVE);
		sc->tail_calls--;
		err_inc(sc, UNW_E_TAIL_CALL);
		sc->stack.nr = 0; /* no walk after all */
	}
	sample_finish(ctx, sc, &w);
	return 0;
}
