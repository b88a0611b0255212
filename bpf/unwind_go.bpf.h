/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walk of Go's stack switch (bpf/unwind_go.h, core/runtimes/go/): the
 * program the native walk hands a frame of UNW_UW_GO over to. Its process
 * entries are go_procs (bpf/maps.bpf.h).
 */
#ifndef UNWPROF_UNWIND_GO_BPF_H
#define UNWPROF_UNWIND_GO_BPF_H

#include <bpf/bpf_core_read.h>

#include "walk.bpf.h"

/* What Go's walk keeps of a walk: whether it switched stacks (once a walk). */
struct go_walk {
	__u64 walk_id; /* the walk it is of (struct scratch) */
	__u32 switched;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WALK_FAMILIES);
	__type(key, __u32);
	__type(value, struct go_walk);
} go_walks SEC(".maps");

/*
 * Go's stack switch (core/runtimes/go/goruntime.h) at frame f, a frame of
 * runtime.systemstack, runtime.morestack or runtime.mcall. When the thread
 * runs on its system stack (the current g is its m's g0) for a goroutine
 * (m.curg), systemstack and morestack go on from the state Go saved in the
 * goroutine's g.sched, as Go's traceback does. systemstack returns to its
 * caller there: its frame has no size, the return address is at the saved
 * sp. morestack never returns: its frame is followed by the function that
 * needed the bigger stack, at the saved pc.
 *
 * mcall, and morestack once no goroutine is left (the scheduler dropped
 * it), ran their callee from the base of g0's stack, which g0.sched
 * describes: mstart1 set it once to return into mstart0, whose caller is
 * runtime.mstart, the bottom (runtime/proc.go), and nothing else writes it.
 * Go's traceback stops at mcall (it writes SP); the walk goes on to the
 * root, as the scheduler's other work on g0 does.
 *
 * On a goroutine's stack the only switch is a vDSO call: time.now and
 * runtime.nanotime1 move sp to g0's stack for it, and keep their caller's
 * pc and sp in m.vdsoPC and m.vdsoSP meanwhile (go_vdso_caller).
 *
 * Returns 1 when f is now the caller's frame, 0 when the switch does not
 * apply (the native step goes on), -1 when the saved state could not be
 * read (the reason noted). Memory of the process is untrusted: every read
 * may fail, and a switch happens once per walk.
 */
static __always_inline int in_range(__u64 pc, __u64 lo, __u64 hi)
{
	return pc >= lo && pc < hi;
}

/*
 * The frame of time.now or runtime.nanotime1 at f, on the thread m of a
 * goroutine whose stack it left: while m.vdsoSP is set (from just before the switch to just
 * after the way back) the caller is at m.vdsoPC and m.vdsoSP, and its
 * frame pointer where Go's frame record keeps it, below the return
 * address that sp was pushed past.
 */
static __always_inline int go_vdso_caller(struct unw_frame *f, const struct unw_go_proc *go,
					  __u64 m, struct scratch *sc, struct go_walk *st)
{
	__u64 sp, pc;

	if (!go->m_vdso_sp)
		return 0;
	sp = user_word(m, go->m_vdso_sp);
	if (!sp)
		return 0; /* not in the call: its own rows hold */
	pc = user_word(m, go->m_vdso_pc);
	if (!pc) {
		err_inc(sc, UNW_E_GO_SWITCH);
		return -1;
	}
	st->switched = 1;
	f->pc = pc;
	f->fp = user_word(sp - 16, 0);
	f->sp = sp;
	f->lr = 0;
	f->signal = 0;
	f->fp_linked = 0;
	return 1;
}

__weak __noinline int go_switch(struct unw_frame *f, const struct unw_go_proc *go,
				struct scratch *sc, struct go_walk *st)
{
	__u64 g, m, curg, sp, pc, fp, saved;
	int morestack, mcall;

	if (!f || !go || !sc || !st || st->switched)
		return 0;
#ifdef __TARGET_ARCH_x86
	g = user_word(BPF_CORE_READ(bpf_get_current_task_btf(), thread.fsbase), go->tls_g);
#else
	return 0; /* core/runtimes/go/goruntime.c reads amd64 binaries only */
#endif
	m = user_word(g, go->g_m);
	if (!g || !m)
		return 0;
	/*
	 * A vDSO caller switches only from a goroutine's stack; on g0 it stays
	 * there, and its frame is stepped as any other (frame pointers).
	 */
	if (in_range(f->pc, go->now_lo, go->now_hi) ||
	    in_range(f->pc, go->nanotime_lo, go->nanotime_hi))
		return user_word(m, go->m_g0) != g ? go_vdso_caller(f, go, m, sc, st) : 0;
	if (user_word(m, go->m_g0) != g)
		return 0;
	curg = user_word(m, go->m_curg);
	morestack = f->pc >= go->morestack_lo && f->pc < go->morestack_hi;
	mcall = f->pc >= go->mcall_lo && f->pc < go->mcall_hi;
	if (!curg && !morestack && !mcall)
		return 0;
	saved = mcall || !curg ? g : curg;
	sp = user_word(saved, go->sched_sp);
	fp = user_word(saved, go->sched_bp);
	if (saved == g || morestack)
		pc = user_word(saved, go->sched_pc);
	else
		pc = user_word(sp, 0), sp += 8;
	if (!sp || !pc) {
		err_inc(sc, UNW_E_GO_SWITCH);
		return -1;
	}
	st->switched = 1;
	f->pc = pc;
	f->sp = sp;
	f->fp = fp;
	f->lr = 0;
	f->signal = 0;
	f->fp_linked = 0;
	return 1;
}

/*
 * Go's walk of frame s->n, handed over by the native walk: when the switch
 * applies, the frame is written and the walk goes on from the state Go
 * saved; else the native walk steps it.
 */
static __always_inline __u32 go_step(struct scratch *sc, struct walk_saved *s)
{
	__u32 family = sc->family;
	struct go_walk *st = bpf_map_lookup_elem(&go_walks, &family);
	struct unw_frame f = s->f;
	int r;

	if (!st)
		return RESUME_FRAME;
	if (st->walk_id != sc->walk_id) {
		st->walk_id = sc->walk_id;
		st->switched = 0;
	}
	r = go_switch(&f, bpf_map_lookup_elem(&go_procs, &s->pid), sc, st);
	if (r == 0 || walk_push_frame(sc, s))
		return RESUME_FRAME;
	if (r < 0)
		return RESUME_STOP;
	s->f = f;
	return RESUME_GO_ON;
}

UNW_RUNTIME_PROGRAMS(go)

#endif
