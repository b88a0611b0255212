/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walk of a user stack, frame by frame, each frame's unwinder chosen by
 * where its pc is (native tables, frame pointers, Go's stack switch, the
 * Python and Ruby interpreters), then the stack stored and the sample
 * counted with it. The programs that walk (bpf/sampler.bpf.c) include it.
 */
#ifndef UNWPROF_WALK_BPF_H
#define UNWPROF_WALK_BPF_H

#include "native.bpf.h"
#include "sample_time_hist.h"
#include "unwind_go.h"
#include "unwind_python.h"
#include "unwind_ruby.h"

/*
 * Whether a walk that went past UNW_DEPTH_MAX frames has taken UNW_WALK_NS
 * since: the clock is read there, then every 64 frames. A stack of a few
 * thousand frames is walked to its root; a deeper one costs no more than
 * the bound, and is truncated.
 */
static __always_inline int walk_overtime(struct scratch *sc, __u32 n)
{
	if (n == UNW_DEPTH_MAX) {
		sc->deep_t0 = bpf_ktime_get_ns();
		return 0;
	}
	return !(n & 63) && bpf_ktime_get_ns() - sc->deep_t0 > UNW_WALK_NS;
}

/*
 * One frame of the walk: the frame is recorded, then the unwinder of its pc
 * steps to the caller. Adding an unwinder is its file here (bpf/unwind_*.h),
 * its case in this function, its id in bpf/abi.h and its entry in
 * core/runtimes/runtimes.c, which says which mappings it walks: this
 * function runs in the bpf_loop callback and in the tail-called walk_tc,
 * where a program array could not be used from the first.
 */
static long walk_frame(__u32 n, void *ctx)
{
	struct walk *w = ctx;
	struct scratch *sc = w->sc;
	struct frame_place pl = { .unwinder = UNW_UW_FP };
	__u64 pc = w->f.pc;
	int more;

	if (!sc || (n >= UNW_DEPTH_MAX && walk_overtime(sc, n)))
		return 1;
	sc->cur_pc = pc;
	/*
	 * A return address points after the call: look up the call itself.
	 * The leaf's pc, and a pc a signal interrupted, are the instruction.
	 */
	if (!cfg.fp_only)
		walk_place(w, sc, n && !w->f.signal ? pc - 1 : pc, &pl);
	/* The frames an interpreter's activation runs come before it. */
	if (pl.unwinder == UNW_UW_PYTHON)
		py_frames(sc, bpf_map_lookup_elem(&py_procs, &w->pid), &w->hash, w->pid);
	else if (pl.unwinder == UNW_UW_RUBY)
		rb_frames(sc, bpf_map_lookup_elem(&rb_procs, &w->pid), &w->hash, w->pid);
	/*
	 * Callers' frames are return addresses, which readers of the stack
	 * look up at pc - 1. A pc a signal interrupted is the instruction
	 * itself: it is recorded one past it, so that pc - 1 finds it too.
	 */
	if (stack_push(sc, &w->hash, n && w->f.signal ? pc + 1 : pc))
		return 1; /* full: the walk is truncated */
	switch (pl.unwinder) {
	case UNW_UW_TABLE:
		more = native_step(&w->f, place_rule(&pl), sc, &w->flags);
		break;
	case UNW_UW_GO_SWITCH:
		more = go_switch(&w->f, bpf_map_lookup_elem(&go_procs, &w->pid), sc);
		if (more == 0)
			more = native_step(&w->f, place_rule(&pl), sc, &w->flags);
		else
			more = more > 0;
		break;
	case UNW_UW_PYTHON:
	case UNW_UW_RUBY:
		more = native_step(&w->f, place_rule(&pl), sc, &w->flags);
		break;
	default: /* UNW_UW_FP */
		more = native_step(&w->f, NULL, sc, &w->flags);
		break;
	}
	if (!more) {
		w->done = 1;
		return 1;
	}
	return 0;
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
			err_inc(UNW_E_USTACK_FULL);
			return 0;
		}
		old = bpf_map_lookup_elem(map, &h); /* another CPU stored it */
		if (!old)
			return h; /* and it was drained meanwhile: user space kept a copy */
	}
	if (old->nr != st->nr) {
		err_inc(UNW_E_USTACK_COLLISION);
		return 0;
	}
	for (int i = 0; i < max; i++) {
		if ((__u32)i >= old->nr)
			break;
		if (old->pcs[i] != st->pcs[i]) {
			err_inc(UNW_E_USTACK_COLLISION);
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

/* The walk's scratch, looked up, its stack empty. */
static __always_inline void walk_scratch(struct walk *w)
{
	__u32 zero = 0;

	w->sc = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!w->sc)
		return;
	w->sc->stack.nr = 0;
	w->sc->stack.frames = 0;
	w->sc->stack_opens = 0;
}

/* Sets up the walk of the user stack from regs, of a process sample_wanted found: scratch, stack copy. */
static __always_inline void walk_start(struct walk *w, const struct unw_frame *regs)
{
	walk_scratch(w);
	if (!w->sc)
		return;
	w->sc->vma.found = 0;
	w->sc->vma_tried = 0;
	w->sc->go_switched = 0;
	w->sc->py_looked = 0;
	w->sc->py_written = 0;
	w->sc->py_frame = 0;
	w->sc->rb_looked = 0;
	w->sc->rb_written = 0;
	w->sc->rb_cfp = 0;
	w->sc->lookups = 0;
	w->sc->lookups_cached = 0;
	if (!w->has_proc) {
		err_inc(UNW_E_NO_PROC);
		/* An exiting task's process may be gone already: nothing to read. */
		if (!cfg.fp_only && !(bpf_get_current_task_btf()->flags & PF_EXITING)) {
			w->sc->costs |= 1u << UNW_COST_EVENT;
			event_send(UNW_EV_UNKNOWN_PROC, w->pid, 0);
		}
	}
	w->f = *regs;
	w->hash = UNW_HASH_INIT;
	/* Loads through the task's BTF: no helper call, as BPF_CORE_READ would make. */
	w->sc->start_stack = bpf_get_current_task_btf()->mm->start_stack;
#ifdef __TARGET_ARCH_arm64
	w->sc->va_mask = bpf_get_current_task_btf()->mm->task_size - 1; /* 1 << vabits_actual */
#endif
	stack_copy(w->sc, w->f.sp);
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
	walk_scratch(w);
	w->hash = UNW_HASH_INIT;
	w->flags |= exec_stack(w->sc, &w->hash);
	w->done = 1;
}

/*
 * Walks the user stack from regs, or gives the stack of a task inside
 * execve (a sample in the kernel: on the CPU, or the end of a block).
 */
static __always_inline void walk_user(struct walk *w, const struct unw_frame *regs)
{
	if ((w->flags & (UNW_SAMPLE_KERNEL | UNW_SAMPLE_OFF_CPU)) && walk_in_exec(regs)) {
		walk_exec(w);
		return;
	}
	walk_start(w, regs);
	if (!w->sc)
		return;
	bpf_loop(UNW_WALK_MAX, walk_frame, w, 0);
	if (!w->done)
		w->flags |= UNW_SAMPLE_TRUNCATED;
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

/* The scratch of the sample: the walk's, looked up only when no walk began. */
static __always_inline const struct scratch *sample_scratch(const struct walk *w)
{
	__u32 zero = 0;

	return w->sc ? w->sc : bpf_map_lookup_elem(&scratch_map, &zero);
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

/*
 * The key of a finished walk: its user stack, the kernel stack of ctx (the
 * program's context) when the walk is of a task in the kernel, its flags;
 * the reasons it met and its frames counted.
 */
static __always_inline void walk_finish(void *ctx, struct unw_count_key *key, struct walk *w)
{
	key->ustack = ustack_key(w);
	if (w->sc && w->sc->stack.nr > UNW_DEPTH_MAX)
		w->flags |= UNW_SAMPLE_ELIDED;
	if (cfg.kernel_stacks && (w->flags & UNW_SAMPLE_KERNEL)) {
		if (w->sc)
			w->sc->costs |= 1u << UNW_COST_KSTACK;
		key->kstack = bpf_get_stackid(ctx, &kstacks, 0);
		if (key->kstack < 0)
			err_inc(UNW_E_KSTACK);
	}
	key->flags = w->flags;
	errors_flush(key->pid, w->flags);
	if (w->sc && w->sc->py_written)
		stat_add(UNW_ST_PY_FRAMES, w->sc->py_written);
	if (w->sc && w->sc->rb_written)
		stat_add(UNW_ST_RB_FRAMES, w->sc->rb_written);
	if (w->sc && w->sc->lookups) {
		stat_add(UNW_ST_LOOKUPS, w->sc->lookups);
		stat_add(UNW_ST_LOOKUPS_CACHED, w->sc->lookups_cached);
	}
}

#endif
