/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walk of a user stack, frame by frame, each frame's unwinder chosen by
 * where its pc is: the native step (tables, or frame pointers), or, in a
 * runtime's code (bpf/runtimes.h), the runtime's own program, which the
 * walk hands the frame over to by a tail call and which hands the walk back
 * the same way; then the stack stored and the sample counted with it. The
 * programs that walk (bpf/sampler.bpf.c, bpf/offcpu.bpf.c) and the
 * runtimes' (bpf/runtimes.bpf.c) include it.
 *
 * A runtime's program is loaded only once a process of it is found, so a
 * walk pays the verifier nothing for the runtimes its targets do not run:
 * the native walk is verified once, each runtime's code once, apart.
 */
#ifndef UNWPROF_WALK_BPF_H
#define UNWPROF_WALK_BPF_H

#include "native.bpf.h"
#include "sample_time_hist.h"

/*
 * The frames the walk w may take (w->frames_max): UNW_DEPTH_MAX, what a
 * stored stack holds whole, always; up to UNW_WALK_MAX while this CPU's
 * budget of frames (struct unw_config) is not spent. The budget is filled
 * first for the time since the CPU's walk before, read from the sample's
 * clock (sc->t0, when the sample began; the clock now for an off-CPU
 * block), never from the time a walk takes: a stack walks the same however
 * busy the machine is. A deep walk takes what it walks, past 0: the walks
 * after it are kept to UNW_DEPTH_MAX frames until the budget is filled
 * again, so a deep stack is walked whole or counted cut, and a CPU walks
 * at most frames_per_sec frames a second, and a walk more. A rate of 0: no
 * budget.
 */
static __always_inline void walk_budget(struct scratch *sc, struct walk *w)
{
	__u64 rate = sc->family == WALK_OFF_CPU ? cfg.off_frames_per_sec : cfg.frames_per_sec;
	__u64 now = sc->t0 ? sc->t0 : bpf_ktime_get_ns(), dt = now - sc->budget_at;

	w->frames_max = UNW_WALK_MAX;
	if (!rate)
		return;
	if (dt > 1000000000ULL || now < sc->budget_at)
		dt = 1000000000ULL;
	sc->budget_at = now;
	sc->budget += dt * rate / 1000000000ULL;
	if (sc->budget > (__s64)cfg.frames_burst)
		sc->budget = cfg.frames_burst;
	if (sc->budget <= 0)
		w->frames_max = UNW_DEPTH_MAX;
}

/*
 * The frames walk w took, taken from its CPU's budget; a walk that stopped
 * where the budget kept it is counted (UNW_E_FRAME_BUDGET), truncated.
 */
static __always_inline void walk_budget_spend(struct scratch *sc, const struct walk *w)
{
	if (!w->walking)
		return;
	sc->budget -= w->n;
	if (sc->budget < -(__s64)UNW_WALK_MAX)
		sc->budget = -(__s64)UNW_WALK_MAX;
	if (!w->done && w->n >= w->frames_max && w->frames_max < UNW_WALK_MAX)
		err_inc(sc, UNW_E_FRAME_BUDGET);
}

/*
 * A frame in the code of runtime u: the frames its program wrote ahead of
 * the walk go first, onto the stack of hash (struct frames_ahead), or,
 * when it has not written them, the frame is handed over to its program
 * (1 returned), which hands it back (handed_back: the frame is walked
 * natively). Walked natively too, with the reason counted, when its
 * program is not loaded or the sample's tail calls would run out. A global
 * function: the walk's callback takes one path more for it, not one per
 * way it can go.
 */
__weak __noinline int walk_runtime(struct scratch *sc, __u64 *hash, __u32 u, __u32 handed_back)
{
	int ahead;

	if (!sc || !hash)
		return 0;
	ahead = sc->ahead.unwinder == u;
	if (ahead && sc->ahead.next < sc->ahead.nr_segs) {
		ahead_write(sc, hash);
		return 0;
	}
	if (handed_back || (ahead && !sc->ahead.more))
		return 0;
	if (!(*(volatile __u64 *)&runtimes_loaded & (1ULL << (u & 63)))) {
		err_inc(sc, UNW_E_RUNTIME_UNLOADED);
		return 0;
	}
	if (sc->tail_calls + 2 > UNW_TAIL_CALLS_MAX) {
		err_inc(sc, UNW_E_RUNTIME_TAIL_CALLS);
		return 0;
	}
	return 1;
}

/* The walk stops in its callback at frame n: 1, which ends bpf_loop. */
static __always_inline long walk_stop(struct walk *w, __u32 n)
{
	w->n = n;
	w->stopped = 1;
	return 1;
}

/*
 * One frame of the walk, the loop's i-th: the frame is recorded, then the
 * native step goes to its caller, unless the frame is a runtime's, which
 * its program walks; then, with runs, the plain frames after it
 * (walk_plain). Runs in the bpf_loop callback and in the tail-called
 * walk_tc, which keeps to a stored stack's frames, one by one.
 */
static __always_inline long walk_frame_at(__u32 i, struct walk *w, int runs)
{
	struct scratch *sc = w->sc;
	struct frame_place pl = { .unwinder = UNW_UW_FP };
	__u32 n = w->n0 + (runs ? w->plain : 0) + i;
	__u64 pc = w->f.pc;
	int more, plain;

	if (!sc || n >= w->frames_max)
		return walk_stop(w, n);
	sc->cur_pc = pc;
	sc->cur_sp = w->f.sp;
	/*
	 * A return address points after the call: look up the call itself.
	 * The leaf's pc, and a pc a signal interrupted, are the instruction.
	 */
	if (!cfg.fp_only)
		walk_place(w, sc, n && !w->f.signal ? pc - 1 : pc, &pl);
	if (pl.unwinder >= UNW_UW_RUNTIME &&
	    walk_runtime(sc, &w->hash, pl.unwinder, w->native_at == n + 1)) {
		w->handoff = pl.unwinder;
		return walk_stop(w, n);
	}
	/*
	 * Callers' frames are return addresses, which readers of the stack
	 * look up at pc - 1. A pc a signal interrupted is the instruction
	 * itself: it is recorded one past it, so that pc - 1 finds it too.
	 */
	if (stack_push(sc, &w->hash, n && w->f.signal ? pc + 1 : pc))
		return walk_stop(w, n); /* full: the walk is truncated */
	more = native_step(&w->f, pl.unwinder == UNW_UW_FP ? NULL : place_rule(sc, &pl), sc,
			   &w->flags);
	if (!more) {
		w->done = 1;
		return walk_stop(w, n + 1);
	}
	if (!runs || !w->has_proc)
		return 0;
	plain = walk_plain(&w->f, &w->hash, sc, w->gen, w->frames_max - (n + 1));
	w->plain += plain & (PLAIN_FULL - 1);
	if (plain & PLAIN_FULL)
		return walk_stop(w, n + 1 + (plain & (PLAIN_FULL - 1))); /* truncated */
	return 0;
}

/* The bpf_loop callback: a frame and the plain run after it. */
static long walk_frame(__u32 i, void *ctx)
{
	return walk_frame_at(i, ctx, 1);
}

/* walk_tc's frame: one only, a function of its own as walk_frame is. */
static __noinline long walk_frame_one(__u32 i, struct walk *w)
{
	return walk_frame_at(i, w, 0);
}

/*
 * Walks frames from w->n on, in bpf_loop, until the walk ends or hands a
 * frame over. The callback counts frames by its index from w->n0, plus the
 * plain frames walked in runs (w->plain, by walk_plain's unknown counts),
 * and writes w->n only as it stops: a count in the walk that grows by one
 * at every frame would make each frame a state of its own to the verifier.
 */
static __always_inline void walk_run(struct walk *w)
{
	long walked;

	if (!w->sc || !w->walking || w->done || w->n >= w->frames_max ||
	    w->frames_max > UNW_WALK_MAX)
		return;
	w->n0 = w->n;
	w->plain = 0;
	w->stopped = 0;
	walked = bpf_loop(w->frames_max - w->n, walk_frame, w, 0);
	if (!w->stopped && walked > 0)
		w->n = w->n0 + w->plain + walked;
}

/*
 * Stores st under key h in map, whose values hold max frames; returns h, or
 * 0 when the map is full or holds another stack under h. Looked up first:
 * a new count is often of a stack stored since the last drain (another
 * thread's, or with another kernel stack), and a lookup takes no lock, as
 * an update does.
 */
static __always_inline __u64 ustack_put(void *map, __u64 h, struct scratch *sc, int max)
{
	const struct unw_ustack *st = &sc->stack, *old = bpf_map_lookup_elem(map, &h);
	long err;

	if (!old) {
		sc->costs |= 1u << UNW_COST_NEW_STACK;
		err = bpf_map_update_elem(map, &h, st, BPF_NOEXIST);
		if (err == 0)
			return h;
		if (err != -EEXIST) {
			err_inc(sc, UNW_E_USTACK_FULL);
			return 0;
		}
		old = bpf_map_lookup_elem(map, &h); /* another CPU stored it */
		if (!old)
			return h; /* and it was drained meanwhile: user space kept a copy */
	}
	if (old->nr != st->nr) {
		err_inc(sc, UNW_E_USTACK_COLLISION);
		return 0;
	}
	for (int i = 0; i < max; i++) {
		if ((__u32)i >= old->nr)
			break;
		if (old->pcs[i] != st->pcs[i]) {
			err_inc(sc, UNW_E_USTACK_COLLISION);
			return 0;
		}
	}
	return h;
}

/* The key the walk's user stack has in ustacks or ustacks_deep; 0 when it has none. */
static __always_inline __u64 ustack_key(const struct walk *w)
{
	__u64 h = w->hash & ~UNW_USTACK_DEEP_KEY;

	if (!w->sc || !w->sc->stack.nr)
		return 0;
	if (w->sc->stack.nr > UNW_USTACK_SHORT)
		return h | UNW_USTACK_DEEP_KEY;
	return h ? h : 2;
}

/* Stores the walk's user stack under key; returns key, or 0 when it could not. */
static __always_inline __u64 ustack_store(struct walk *w, __u64 key)
{
	/* A key implies a stack, but the verifier of Linux 6.1 does not follow that. */
	if (!w->sc)
		return 0;
	if (key & UNW_USTACK_DEEP_KEY)
		return ustack_put(&ustacks_deep, key, w->sc, UNW_DEPTH_MAX);
	return ustack_put(&ustacks, key, w->sc, UNW_USTACK_SHORT);
}

/*
 * Counts the sample under key. The user stack is stored only when its
 * count is new: a count under key->ustack exists only once that stack was
 * stored under it (a stack that could not be stored is counted under 0),
 * and user space keeps a copy of every stack it drains. A key stays in the
 * map while it grows from drain to drain (core/session/count_ledger.h), so
 * most samples, which repeat a counted stack, are one lookup. Such a
 * sample's stack is not compared with the stored one: they could differ
 * only if two stacks of the run had one 64-bit hash. n is the samples (or
 * blocks) counted, ns the time they were blocked (off-CPU), the key's comm
 * that of task, or of the current task when NULL. 0, or -1 when the count
 * map is full: not counted.
 */
static __always_inline int count_add(struct unw_count_key *key, struct walk *w, __u64 n, __u64 ns,
				     struct task_struct *task)
{
	struct unw_count *c, init = { .count = n, .ns = ns };
	long err;

	c = bpf_map_lookup_elem(&counts, key);
	if (!c && key->ustack) {
		key->ustack = ustack_store(w, key->ustack);
		if (!key->ustack)
			c = bpf_map_lookup_elem(&counts, key);
	}
	if (!c) {
		if (w->sc)
			w->sc->costs |= 1u << UNW_COST_NEW_COUNT;
		if ((key->flags & UNW_SAMPLE_EXEC) && w->sc && w->sc->exec_comm[0])
			__builtin_memcpy(init.comm, w->sc->exec_comm, sizeof(init.comm));
		else if (task)
			BPF_CORE_READ_STR_INTO(&init.comm, task, comm);
		else
			bpf_get_current_comm(init.comm, sizeof(init.comm));
		err = bpf_map_update_elem(&counts, key, &init, BPF_NOEXIST);
		if (err == 0) {
			if (__sync_fetch_and_add(&nr_keys, 1) + 1 == cfg.drain_at) {
				if (w->sc)
					w->sc->costs |= 1u << UNW_COST_EVENT;
				event_send_now(UNW_EV_DRAIN, 0, 0);
			}
			return 0;
		}
		if (err != -EEXIST)
			return -1;
		c = bpf_map_lookup_elem(&counts, key); /* another CPU added it */
		if (!c)
			return -1;
	}
	__sync_fetch_and_add(&c->count, n);
	if (ns)
		__sync_fetch_and_add(&c->ns, ns);
	return 0;
}

/* The walk's process entry, looked up: proc, NULL when there is none. */
static __always_inline void walk_set_proc(struct walk *w, struct unw_proc *proc)
{
	w->proc = proc;
	w->has_proc = proc != NULL;
	w->gen = proc ? proc->gen : 0;
}

/*
 * Whether w->pid has a process entry (w->has_proc), and its gen: known
 * without a lookup while no entry was written or deleted since this CPU
 * looked it up (procs_written is read first: a write the lookup may miss
 * changes it after). w->proc is set when it was looked up.
 */
static __always_inline void proc_find(struct scratch *sc, struct walk *w)
{
	__u64 written = *(volatile __u64 *)&procs_written;

	if (sc->last_pid == w->pid && sc->last_written == written && w->pid) {
		w->has_proc = 1;
		w->gen = sc->last_gen;
		return;
	}
	sc->costs |= 1u << UNW_COST_PROC;
	walk_set_proc(w, w->pid ? bpf_map_lookup_elem(&procs, &w->pid) : NULL);
	/*
	 * gen 0: no entry, or one BPF is still writing. The process the CPU
	 * knew is kept then: a sample of another process between two of a
	 * target's (outside -a) costs the target no lookup.
	 */
	if (!w->gen)
		return;
	sc->last_pid = w->pid;
	sc->last_gen = w->gen;
	sc->last_written = written;
}

/*
 * A new walk in w->sc: its stack empty, nothing written ahead, no tail call
 * made, and a new walk_id, which tells the runtimes' state of an earlier
 * walk apart.
 */
static __always_inline void walk_begin(struct walk *w)
{
	struct scratch *sc = w->sc;

	if (!sc)
		return;
	sc->stack.nr = 0;
	sc->stack.frames = 0;
	sc->stack_opens = 0;
	sc->tail_calls = 0;
	sc->walk_id++;
	sc->saved.resume = RESUME_NONE;
	if (sc->ahead.unwinder) {
		sc->ahead.unwinder = 0;
		__builtin_memset(sc->runtime_frames, 0, sizeof(sc->runtime_frames));
	}
}

/* Sets up the walk of the user stack from regs, of a process sample_wanted found: stack copy. */
static __always_inline void walk_start(struct walk *w, const struct unw_frame *regs)
{
	struct scratch *sc = w->sc;

	if (!sc)
		return;
	w->walking = 1;
	sc->vma.found = 0;
	sc->vma_tried = 0;
	sc->lookups = 0;
	sc->lookups_cached = 0;
	if (!w->has_proc) {
		err_inc(sc, UNW_E_NO_PROC);
		/* An exiting task's process may be gone already: nothing to read. */
		if (!cfg.fp_only && !(bpf_get_current_task_btf()->flags & PF_EXITING)) {
			sc->costs |= 1u << UNW_COST_EVENT;
			event_send(UNW_EV_UNKNOWN_PROC, w->pid, 0);
		}
	}
	walk_budget(sc, w);
	w->f = *regs;
	w->hash = UNW_HASH_INIT;
	/* Loads through the task's BTF: no helper call, as BPF_CORE_READ would make. */
	sc->start_stack = bpf_get_current_task_btf()->mm->start_stack;
#ifdef __TARGET_ARCH_arm64
	sc->va_mask = bpf_get_current_task_btf()->mm->task_size - 1; /* 1 << vabits_actual */
#endif
	stack_copy(sc, w->f.sp);
}

#ifdef __TARGET_ARCH_x86
#define NR_EXECVE 59
#define NR_EXECVEAT 322
#define USER_SYSCALL_NR(uregs) BPF_CORE_READ((uregs), orig_ax)
#else
#define NR_EXECVE 221
#define NR_EXECVEAT 281
#define USER_SYSCALL_NR(uregs) BPF_CORE_READ((uregs), syscallno)
#endif

/*
 * Whether the current task, in the kernel with the user registers regs, is
 * inside execve past its point of no return, where the old program's stack
 * is gone: its mm is the new program's, which has no environment yet while
 * the registers are still the old program's (from exec_mmap to
 * create_elf_tables), or whose stack starts at sp once they are the new
 * program's (from start_thread to the return to user space). Before the
 * point of no return the old stack is there, and walked. A sample in the
 * few instructions from create_elf_tables to start_thread is not told
 * apart: it is walked, and fails.
 */
static __always_inline int walk_in_exec(const struct unw_frame *regs)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *uregs = (struct pt_regs *)bpf_task_pt_regs(task);
	long nr = USER_SYSCALL_NR(uregs);
	struct mm_struct *mm = task->mm;

	if (nr != NR_EXECVE && nr != NR_EXECVEAT)
		return 0;
	return mm && (!mm->env_end || regs->sp == mm->start_stack);
}

/*
 * The stack of a sample inside execve past its point of no return into
 * sc: one frame, UNW_FRAME_EXEC, of the new program's inode, and the name
 * it is counted under, which the task takes only later in exec. Returns
 * the sample's flag. A global function: the path of such a sample joins
 * the others' before the end of the sample, which is verified once.
 */
__weak __noinline int exec_stack(struct scratch *sc, __u64 *hash)
{
	struct file *exe = bpf_get_current_task_btf()->mm->exe_file;

	if (!sc || !hash)
		return 0;
	sc->exec_comm[0] = '\0';
	if (exe)
		bpf_probe_read_kernel_str(sc->exec_comm, sizeof(sc->exec_comm),
					  BPF_CORE_READ(exe, f_path.dentry, d_name.name));
	stack_push(sc, hash,
		   UNW_FRAME_WORD(UNW_FRAME_EXEC, exe ? BPF_CORE_READ(exe, f_inode, i_ino) : 0));
	return UNW_SAMPLE_EXEC;
}

static __always_inline void walk_exec(struct walk *w)
{
	w->hash = UNW_HASH_INIT;
	w->flags |= exec_stack(w->sc, &w->hash);
	w->done = 1;
}

/*
 * Starts the walk of the user stack from regs (walk_run walks it), or gives
 * the stack of a task inside execve (a sample in the kernel: on the CPU, or
 * the end of a block).
 */
static __always_inline void walk_user(struct walk *w, const struct unw_frame *regs)
{
	if ((w->flags & (UNW_SAMPLE_KERNEL | UNW_SAMPLE_OFF_CPU)) && walk_in_exec(regs)) {
		walk_exec(w);
		return;
	}
	walk_start(w, regs);
}

/* Keeps the walk's scalars in its scratch, for the program a tail call goes on in. */
static __always_inline void walk_save(struct scratch *sc, const struct walk *w)
{
	struct walk_saved *s = &sc->saved;

	s->f = w->f;
	s->hash = w->hash;
	s->pid = w->pid;
	s->flags = w->flags;
	s->done = w->done;
	s->n = w->n;
	s->native_at = w->native_at;
	s->frames_max = w->frames_max;
}

/*
 * The walk the state saved in sc says, as the program that saved it left it
 * or as a runtime's program handed it back (enum walk_resume).
 */
static __always_inline void walk_restore(struct scratch *sc, struct walk *w)
{
	struct walk_saved *s = &sc->saved;

	w->sc = sc;
	w->f = s->f;
	w->hash = s->hash;
	w->pid = s->pid;
	w->flags = s->flags;
	w->done = s->done;
	w->n = s->n;
	w->native_at = s->native_at;
	w->frames_max = s->frames_max;
	w->walking = 1;
	if (s->resume == RESUME_FRAME)
		w->native_at = w->n + 1;
	else if (s->resume == RESUME_STOP)
		w->done = 1;
	s->resume = RESUME_NONE;
	proc_find(sc, w);
}

/*
 * A runtime's program wrote frame s->n (its pc, as walk_frame writes a
 * frame's), and the walk goes past it. -1 when the stack is full.
 */
static __always_inline int walk_push_frame(struct scratch *sc, struct walk_saved *s)
{
	__u64 pc = s->f.pc;

	if (stack_push(sc, &s->hash, s->n && s->f.signal ? pc + 1 : pc))
		return -1;
	s->n++;
	return 0;
}

/*
 * Hands frame w->n over to the program of runtime w->handoff in walkers
 * (bpf/maps.bpf.h), which goes on from the state saved here and hands the
 * walk back. Returns only when the tail call failed: the walk stops there.
 */
static __always_inline void walk_hand_over(void *ctx, struct walk *w, void *walkers)
{
	struct scratch *sc = w->sc;

	if (!sc || !w->handoff)
		return;
	walk_save(sc, w);
	sc->tail_calls++;
	bpf_tail_call(ctx, walkers, w->handoff);
	sc->tail_calls--;
	err_inc(sc, UNW_E_TAIL_CALL);
	w->handoff = 0;
}

/*
 * The end of a runtime's program: the walk handed back to the native walk
 * of walkers, resume saying how to go on. When that tail call fails the
 * sample cannot be counted: it is lost, and counted as such.
 */
static __always_inline void runtime_hand_back(void *ctx, void *walkers, struct scratch *sc,
					      __u32 resume)
{
	struct unw_tally *t;

	sc->saved.resume = resume;
	sc->tail_calls++;
	bpf_tail_call(ctx, walkers, WALKER_NATIVE);
	sc->saved.resume = RESUME_NONE;
	t = tally_here();
	if (!t)
		return;
	t->errors[UNW_E_TAIL_CALL]++;
	if (sc->family == WALK_OFF_CPU) {
		t->stats[UNW_ST_OFF_LOST] += sc->saved.count;
		t->stats[UNW_ST_OFF_LOST_NS] += sc->saved.ns;
	} else {
		t->stats[UNW_ST_LOST]++;
	}
}

/*
 * The programs of runtime name (bpf/runtimes.h), whose walk of the frame
 * handed over is name##_step(sc, saved): returns how the native walk goes
 * on (enum walk_resume). One for the samples' walks, one for the off-CPU
 * blocks', each tail-called from its family's walkers.
 */
#define UNW_RUNTIME_PROGRAMS(name)                                                             \
	SEC("perf_event")                                                                      \
	int name##_walk(struct bpf_perf_event_data *ctx)                                       \
	{                                                                                      \
		struct scratch *sc = scratch_of(WALK_ON_CPU);                                  \
                                                                                               \
		if (sc)                                                                        \
			runtime_hand_back(ctx, &walkers, sc, name##_step(sc, &sc->saved));     \
		return 0;                                                                      \
	}                                                                                      \
	SEC("tp_btf/sys_exit")                                                                 \
	int name##_walk_off(void *ctx)                                                         \
	{                                                                                      \
		struct scratch *sc = scratch_of(WALK_OFF_CPU);                                 \
                                                                                               \
		if (sc)                                                                        \
			runtime_hand_back(ctx, &off_walkers, sc, name##_step(sc, &sc->saved)); \
		return 0;                                                                      \
	}

/* A sample of ns that paid for cost (enum unw_cost), counted in tally t. */
static __always_inline void sample_cost_add(struct unw_tally *t, __u32 cost, __u64 ns)
{
	if (cost < UNW_COST_NR) {
		t->costs[cost].samples++;
		t->costs[cost].ns += ns;
	}
}

/*
 * The end of a target's sample, however it ended (counted, lost, walked or
 * not): its time since sc->t0, when its program started (sample_wanted),
 * counted in the histogram of the tally, and under each cost it paid. A
 * global function, verified once for the programs that end samples; sc is
 * the caller's scratch, not looked up again.
 */
__weak __noinline int sample_time_end(const struct scratch *sc)
{
	struct unw_tally *t = tally_here();
	__u32 b, costs;
	__u64 ns;

	if (!sc || !sc->t0 || !t)
		return 0; /* the start was not kept */
	ns = bpf_ktime_get_ns() - sc->t0;
	b = unw_hist__bucket(ns);
	barrier_var(b); /* the index compared is the one used */
	if (b < UNW_HIST_BUCKETS)
		t->sample_ns[b]++;
	costs = sc->costs;
	sample_cost_add(t, costs ? UNW_COST_ANY : UNW_COST_NONE, ns);
#pragma unroll
	for (int i = 0; i < UNW_COST_NONE; i++)
		if (costs & (1u << i))
			sample_cost_add(t, i, ns);
	return 0;
}

/*
 * The user registers a task saved on entering the kernel: where the walk of
 * a task that is in the kernel starts. 0, or -1 for a kernel thread or a
 * task without user memory.
 */
static __always_inline int task_user_regs(struct task_struct *task, struct unw_frame *f)
{
	struct pt_regs *uregs;

	if (BPF_CORE_READ(task, flags) & PF_KTHREAD)
		return -1;
	if (!BPF_CORE_READ(task, mm))
		return -1;
	uregs = (struct pt_regs *)bpf_task_pt_regs(task);
#ifdef __TARGET_ARCH_x86
	f->pc = BPF_CORE_READ(uregs, ip);
	f->sp = BPF_CORE_READ(uregs, sp);
	f->fp = BPF_CORE_READ(uregs, bp);
#else /* arm64: x29 the frame pointer, x30 the link register */
	f->pc = BPF_CORE_READ(uregs, pc);
	f->sp = BPF_CORE_READ(uregs, sp);
	f->fp = BPF_CORE_READ(uregs, regs[29]);
	f->lr = BPF_CORE_READ(uregs, regs[30]);
#endif
	return 0;
}

/* The frames each runtime wrote in this walk, counted with the samples that have some. */
static __always_inline void runtime_frames_count(const struct scratch *sc)
{
	struct unw_tally *t = tally_here();

	if (!t)
		return;
#pragma unroll
	for (int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++) {
		if (!sc->runtime_frames[u])
			continue;
		t->runtime_samples[u]++;
		t->runtime_frames[u] += sc->runtime_frames[u];
	}
}

/*
 * The key of a finished walk: its user stack, the kernel stack of ctx (the
 * program's context) when the walk is of a task in the kernel, its flags;
 * the reasons it met and its frames counted.
 */
static __always_inline void walk_finish(void *ctx, struct unw_count_key *key, struct walk *w)
{
	struct scratch *sc = w->sc;

	key->ustack = ustack_key(w);
	if (w->walking && !w->done)
		w->flags |= UNW_SAMPLE_TRUNCATED;
	if (sc && sc->stack.nr > UNW_DEPTH_MAX)
		w->flags |= UNW_SAMPLE_ELIDED;
	if (cfg.kernel_stacks && (w->flags & UNW_SAMPLE_KERNEL)) {
		if (sc)
			sc->costs |= 1u << UNW_COST_KSTACK;
		key->kstack = bpf_get_stackid(ctx, &kstacks, 0);
		if (key->kstack < 0)
			err_inc(sc, UNW_E_KSTACK);
	}
	if (sc)
		walk_budget_spend(sc, w);
	key->flags = w->flags;
	errors_flush(sc, key->pid, w->flags);
	if (!sc)
		return;
	if (sc->ahead.unwinder)
		runtime_frames_count(sc);
	if (sc->lookups) {
		stat_add(UNW_ST_LOOKUPS, sc->lookups);
		stat_add(UNW_ST_LOOKUPS_CACHED, sc->lookups_cached);
	}
}

#endif
