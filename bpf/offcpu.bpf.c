// SPDX-License-Identifier: GPL-2.0-only
/*
 * Off-CPU time: how long the targets' threads were blocked, and where.
 *
 * A thread that leaves the CPU because it blocks (sched_switch with its
 * state sleeping, S, or uninterruptible, D; not a preemption, which leaves
 * it runnable: that is on-CPU demand) gets the time, its state and its
 * kernel stack in its task's storage (off_tasks). When it is switched in
 * again (the same tracepoint, the thread as next) the block's ns are known:
 * a block shorter than cfg.off_cpu_min_ns is added to the thread's short
 * ones, counted without a walk under its [unwalked] key; a longer one
 * waits, pending, for the walk of its user stack.
 *
 * The walk needs the thread's own context (the stack is read through the
 * current task's memory), which the tracepoints reach first at the exit of
 * the system call it blocked in (sys_exit): its user stack has not moved
 * since it blocked, and the blocks of one call are added up there, under
 * the kernel stack of the first. Kprobes and fentry on finish_task_switch,
 * which other tools use, need kernel options a machine may not have; the
 * tracepoints are always there. A block outside a system call (a page
 * fault waiting for the disk) has no such exit: it is counted with its
 * kernel stack, unwalked, and so is a pending block of a thread that
 * exits, or whose walk is past cfg.off_cpu_walks walks in this second on
 * this CPU. When the run ends, user space runs off_at_end over every task:
 * what each still holds (short blocks, pending ones, the block under way up
 * to now) is counted, so that every block of a target between the start
 * and the end of the run is counted once, with its time.
 *
 * Every context switch and every system call of the machine runs these
 * programs, so their common path is a task storage lookup (a pointer in
 * the task), at a system call's exit a per-CPU lookup (whether a runtime's
 * program hands a walk back) and a few tests: whether a thread is wanted is kept there too,
 * valid while no process entry changed (procs_written).
 *
 * A thread's state is the one sched_switch passes (Linux 5.18+), read as
 * __schedule() found it: the task's own state may have moved on by the
 * time the tracepoint runs, to TASK_WAKING when a wakeup on another CPU
 * races the switch, and the block would be missed.
 *
 * Loaded only with --off-cpu. The walk needs bpf_loop (Linux 5.17+), the
 * state Linux 5.18.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "walk.bpf.h"

#define TASK_INTERRUPTIBLE 0x0001   /* include/linux/sched.h: S */
#define TASK_UNINTERRUPTIBLE 0x0002 /* D */

/* Short blocks of a thread are counted together once they add up to this, or at its end. */
#define OFF_SHORT_FLUSH_NS 1000000ULL

/* What a thread's task keeps of its blocks. */
struct off_task {
	__u64 start;	  /* ns (CLOCK_MONOTONIC) the block under way began; 0: none */
	__u64 pending_ns; /* the ended blocks of the system call it is in, waiting for the walk */
	__u64 short_ns;	  /* short blocks added up, not counted yet */
	__u64 wanted_written; /* procs_written when wanted was found; wanted valid while equal */
	__u64 ran_at_start;   /* the thread's CPU time (se.sum_exec_runtime) when it began */
	__s32 kstack;	      /* of the block under way; < 0: none */
	__s32 pending_kstack; /* of the first pending block */
	__u32 pending_blocks;
	__u32 short_blocks;
	__u8 state_d;	      /* the block under way is uninterruptible (D) */
	__u8 in_syscall;      /* it began in a system call */
	__u8 last_short;      /* the thread's last block was short */
	__u8 pending_state_d; /* of the first pending block */
	__u8 short_state_d;   /* of the short ones added up */
	__u8 wanted;	      /* 1: a target's thread, 2: not one */
	__u8 pad[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct off_task);
} off_tasks SEC(".maps");

/* The walks of this CPU in the current second, against cfg.off_cpu_walks. */
struct off_budget {
	__u64 second;
	__u64 walks;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct off_budget);
} off_budget SEC(".maps");

/* Whether a task in the kernel entered it by a system call (not a fault or an interrupt). */
static __always_inline int task_in_syscall(struct task_struct *t)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);

#ifdef __TARGET_ARCH_x86
	return (long)regs->orig_ax >= 0;
#else
	return (int)regs->syscallno >= 0;
#endif
}

/* Whether thread tid of process pid is one whose blocks are wanted (as its samples would be). */
static __always_inline int off_wanted(__u32 pid, __u32 tid)
{
	if (pid == 0)
		return 0;
	if (!cfg.system_wide && !bpf_map_lookup_elem(&procs, &pid) &&
	    !bpf_map_lookup_elem(&targets, &pid))
		return 0;
	return !cfg.only_threads || bpf_map_lookup_elem(&threads, &tid);
}

/*
 * The storage of t when its blocks are wanted, made when new; NULL for a
 * thread that is not a target's. Whether it is, is found once per change of
 * the process entries, not at each switch.
 */
static __always_inline struct off_task *off_task_wanted(struct task_struct *t)
{
	__u64 written = *(volatile __u64 *)&procs_written;
	struct off_task *o = bpf_task_storage_get(&off_tasks, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!o) {
		stat_inc(UNW_ST_OFF_UNTIMED);
		return NULL;
	}
	if (!o->wanted || o->wanted_written != written) {
		o->wanted = off_wanted(t->tgid, t->pid) ? 1 : 2;
		o->wanted_written = written;
	}
	return o->wanted == 1 ? o : NULL;
}

/* Counts n blocks of ns under key (of a thread, task: its comm), unwalked: no user stack. */
static __always_inline void off_count_unwalked(struct unw_count_key *key, __u64 n, __u64 ns,
					       struct task_struct *task)
{
	struct walk none = {};

	key->ustack = 0;
	key->flags |= UNW_SAMPLE_OFF_CPU | UNW_SAMPLE_UNWALKED;
	if (count_add(key, &none, n, ns, task)) {
		stat_add(UNW_ST_OFF_LOST, n);
		stat_add(UNW_ST_OFF_LOST_NS, ns);
		return;
	}
	stat_add(UNW_ST_OFF_UNWALKED_NS, ns);
}

/* The count key of the blocks of thread t: its process and itself. */
static __always_inline struct unw_count_key off_key(struct task_struct *t, int state_d)
{
	return (struct unw_count_key){
		.pid = t->tgid,
		.tid = t->pid,
		.kstack = -1,
		.flags = state_d ? UNW_SAMPLE_STATE_D : 0,
	};
}

/* Counts the short blocks o added up, of thread t. */
static __always_inline void off_flush_short(struct off_task *o, struct task_struct *t)
{
	struct unw_count_key key;

	if (!o->short_blocks)
		return;
	key = off_key(t, o->short_state_d);
	off_count_unwalked(&key, o->short_blocks, o->short_ns, t);
	o->short_blocks = 0;
	o->short_ns = 0;
}

/* Counts the pending blocks of o, of thread t, unwalked (with their kernel stack). */
static __always_inline void off_flush_pending(struct off_task *o, struct task_struct *t)
{
	struct unw_count_key key;

	if (!o->pending_blocks)
		return;
	key = off_key(t, o->pending_state_d);
	key.kstack = o->pending_kstack;
	off_count_unwalked(&key, o->pending_blocks, o->pending_ns, t);
	o->pending_blocks = 0;
	o->pending_ns = 0;
}

/*
 * A block shorter than cfg.off_cpu_min_ns: added to the thread's short ones,
 * which are counted together (once they add up to a millisecond, when the
 * state changes, or at the end), so that a storm of switches costs no count
 * each.
 */
static __always_inline void off_block_short(struct off_task *o, __u64 ns, struct task_struct *t)
{
	stat_inc(UNW_ST_OFF_SHORT);
	if (o->short_blocks && o->short_state_d != o->state_d)
		off_flush_short(o, t);
	o->short_state_d = o->state_d;
	o->short_blocks++;
	o->short_ns += ns;
	if (o->short_ns >= OFF_SHORT_FLUSH_NS)
		off_flush_short(o, t);
}

/* The end, at now, of the block under way in o, of thread t: counted, or made pending. */
static __always_inline void off_block_ended(struct off_task *o, struct task_struct *t, __u64 now)
{
	struct unw_count_key key;
	__u64 ns;

	ns = now - o->start;
	o->start = 0;
	stat_inc(UNW_ST_OFF_BLOCKS);
	o->last_short = ns < cfg.off_cpu_min_ns;
	if (o->last_short) {
		off_block_short(o, ns, t);
		return;
	}
	if (!o->in_syscall) {
		stat_inc(UNW_ST_OFF_OUTSIDE);
		key = off_key(t, o->state_d);
		key.kstack = o->kstack;
		off_count_unwalked(&key, 1, ns, t);
		return;
	}
	/* The first pending block of the call gives the call its state and kernel stack. */
	if (!o->pending_blocks) {
		o->pending_kstack = o->kstack;
		o->pending_state_d = o->state_d;
	}
	o->pending_blocks++;
	o->pending_ns += ns;
}

/* next, the thread switched in: the end of its block, if it was in one. */
static __always_inline void off_switched_in(struct task_struct *next, __u64 now)
{
	struct off_task *o = bpf_task_storage_get(&off_tasks, next, 0, 0);

	if (o && o->start)
		off_block_ended(o, next, now);
}

/*
 * The end of the block under way in o, of thread t, which runs again though
 * no sched_switch switched it in: some kernels do that (seen on a 6.18 one,
 * its own sched_switch trace events missing the switch too). The block
 * ended at most now less the CPU time the thread had since it blocked
 * (se.sum_exec_runtime: exact at a switch, up to a tick behind otherwise),
 * to which it is timed, rather than being lost.
 */
static __always_inline void off_block_ended_unseen(struct off_task *o, struct task_struct *t,
						   __u64 now)
{
	__u64 ran = t->se.sum_exec_runtime - o->ran_at_start;

	stat_inc(UNW_ST_OFF_END_UNSEEN);
	off_block_ended(o, t, now - o->start > ran ? now - ran : o->start);
}

/*
 * The start of a block of prev, the thread switched out. Its kernel stack
 * is taken now, the only time it can be, unless the thread's last block was
 * short: in a storm of short blocks, unwinding the kernel at each would be
 * most of their cost, and a short one needs no stack.
 */
static __always_inline void off_block_start(void *ctx, struct task_struct *prev, __u32 state,
					    __u64 now)
{
	struct off_task *o = off_task_wanted(prev);

	if (!o)
		return;
	if (o->start)
		off_block_ended_unseen(o, prev, now);
	o->start = now;
	o->ran_at_start = prev->se.sum_exec_runtime;
	o->state_d = !!(state & TASK_UNINTERRUPTIBLE);
	o->in_syscall = task_in_syscall(prev);
	o->kstack = -1;
	if (cfg.kernel_stacks && !o->last_short)
		o->kstack = bpf_get_stackid(ctx, &kstacks, 0);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int state)
{
	__u64 now = bpf_ktime_get_ns();

	off_switched_in(next, now);
	if (preempt)
		return 0;
	if (!(state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)))
		return 0; /* runnable (a yield), stopped, traced or dead */
	if (prev->flags & PF_KTHREAD)
		return 0;
	off_block_start(ctx, prev, state, now);
	return 0;
}

/* Whether this CPU may walk one more block in this second: counted when it may. */
static __always_inline int off_budget_take(__u64 now)
{
	__u32 zero = 0;
	struct off_budget *b = bpf_map_lookup_elem(&off_budget, &zero);
	__u64 second = now / 1000000000ULL;

	if (!b)
		return 0;
	if (b->second != second) {
		b->second = second;
		b->walks = 0;
	}
	if (b->walks >= cfg.off_cpu_walks)
		return 0;
	b->walks++;
	return 1;
}

/*
 * Starts the walk of the current thread's user stack, under which its
 * pending blocks (n of them, ns long, key their count's) are counted at its
 * end (off_walk_end).
 */
static __always_inline void off_walk_begin(struct scratch *sc, struct walk *w,
					   const struct unw_count_key *key, __u64 n, __u64 ns)
{
	struct unw_frame regs = {};

	w->sc = sc;
	w->pid = key->pid;
	w->flags = key->flags;
	proc_find(sc, w);
	sc->errs = 0;
	sc->cur_pc = 0;
	sc->t0 = 0; /* the histogram of sample times is of on-CPU samples */
	walk_begin(w);
	sc->saved.key = *key;
	sc->saved.count = n;
	sc->saved.ns = ns;
	if (task_user_regs(bpf_get_current_task_btf(), &regs) == 0)
		walk_user(w, &regs);
	else
		err_inc(sc, UNW_E_NO_USER);
}

/*
 * The end of the walk of off_walk_begin, or of one a runtime's program
 * handed back: counted. A function of its own, as off_pending_walk.
 */
static __noinline void off_walk_end(void *ctx, struct scratch *sc, struct walk *w)
{
	struct unw_count_key key = sc->saved.key;
	__u64 n = sc->saved.count, ns = sc->saved.ns;
	__s32 kstack = key.kstack;

	w->flags &= ~UNW_SAMPLE_KERNEL; /* the kernel stack is the one taken when it blocked */
	walk_finish(ctx, &key, w);
	key.kstack = kstack;
	if (count_add(&key, w, n, ns, NULL)) {
		stat_add(UNW_ST_OFF_LOST, n);
		stat_add(UNW_ST_OFF_LOST_NS, ns);
		return;
	}
	stat_add(UNW_ST_OFF_WALKED, n);
	if ((w->flags & UNW_SAMPLE_COMPLETE) && !(w->flags & UNW_SAMPLE_FP))
		stat_add(UNW_ST_OFF_COMPLETE, n);
	stat_add(UNW_ST_OFF_NS, ns);
}

/*
 * The blocks of the current thread that the system call it returns from
 * waited in: 1 when their walk begins in w; 0 when there are none, or they
 * are counted unwalked (over the cap). A function of its own: its stack is
 * not the walk's, whose calls go deeper (a program's calls share 512 bytes).
 */
static __noinline int off_pending_walk(struct scratch *sc, struct walk *w)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct off_task *o = bpf_task_storage_get(&off_tasks, task, 0, 0);
	struct unw_count_key key;
	__u64 n, ns;

	if (!o)
		return 0;
	if (o->start)
		off_block_ended_unseen(o, task, bpf_ktime_get_ns());
	if (!o->pending_blocks)
		return 0;
	n = o->pending_blocks;
	ns = o->pending_ns;
	key = off_key(task, o->pending_state_d);
	key.kstack = o->pending_kstack;
	key.flags |= UNW_SAMPLE_OFF_CPU;
	o->pending_blocks = 0;
	o->pending_ns = 0;
	if (cfg.kernel_stacks && key.kstack < 0)
		stat_add(UNW_ST_OFF_NO_KSTACK, n);
	if (!off_budget_take(bpf_ktime_get_ns())) {
		stat_add(UNW_ST_OFF_CAPPED, n);
		off_count_unwalked(&key, n, ns, NULL);
		return 0;
	}
	off_walk_begin(sc, w, &key, n, ns);
	return 1;
}

/*
 * The system call the current thread blocked in returns: its pending blocks
 * are walked, a frame of a runtime's code handed over to its program, which
 * hands the walk back here (sc->saved.resume).
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(on_syscall_exit, struct pt_regs *regs, long ret)
{
	struct scratch *sc = scratch_of(WALK_OFF_CPU);
	struct walk w = {};

	if (!sc)
		return 0;
	if (sc->saved.resume)
		walk_restore(sc, &w);
	else if (!off_pending_walk(sc, &w))
		return 0;
	walk_run(&w);
	walk_hand_over(ctx, &w, &off_walkers);
	off_walk_end(ctx, sc, &w);
	return 0;
}

/* A thread exits: its short and pending blocks are counted unwalked (its storage goes with it). */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_thread_exit, struct task_struct *p)
{
	struct off_task *o = bpf_task_storage_get(&off_tasks, p, 0, 0);

	if (!o)
		return 0;
	off_flush_short(o, p);
	if (o->pending_blocks) {
		stat_add(UNW_ST_OFF_EXITED, o->pending_blocks);
		off_flush_pending(o, p);
	}
	return 0;
}

/*
 * The end of the run, once the programs above are detached: every task's
 * blocks not counted yet, the short ones, those that ended without their
 * walk, and the one under way, its time up to now, each counted unwalked.
 */
SEC("iter/task")
int off_at_end(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct off_task *o;
	struct unw_count_key key;

	if (!t)
		return 0;
	o = bpf_task_storage_get(&off_tasks, t, 0, 0);
	if (!o || o->wanted != 1)
		return 0;
	off_flush_short(o, t);
	stat_add(UNW_ST_OFF_PENDING_AT_END, o->pending_blocks);
	off_flush_pending(o, t);
	if (o->start) {
		key = off_key(t, o->state_d);
		stat_inc(UNW_ST_OFF_UNDER_WAY_AT_END);
		off_count_unwalked(&key, 1, bpf_ktime_get_ns() - o->start, t);
		o->start = 0;
	}
	return 0;
}
