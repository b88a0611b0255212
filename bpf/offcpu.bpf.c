// SPDX-License-Identifier: GPL-2.0-only
/*
 * Off-CPU time: how long the targets' threads were blocked, and where.
 *
 * A thread that leaves the CPU because it blocks (sched_switch with its
 * state sleeping, S, or uninterruptible, D; not a preemption, which leaves
 * it runnable: that is on-CPU demand) gets the time, its state and its
 * kernel stack in off_blocks. When it is switched in again (the same
 * tracepoint, the thread as next) the block's ns are known: a block shorter
 * than cfg.off_cpu_min_ns is counted at once, without a walk, under its
 * thread's [unwalked] key; a longer one waits, pending, for the walk of
 * its user stack.
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
 * this CPU. User space counts the blocks still under way when the run
 * ends, so that every block of a target between the start and the end of
 * the run is counted once, with its time.
 *
 * Loaded only with --off-cpu. The walk needs bpf_loop (Linux 5.17+).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "walk.bpf.h"

#define TASK_INTERRUPTIBLE 0x0001   /* include/linux/sched.h: S */
#define TASK_UNINTERRUPTIBLE 0x0002 /* D */

/* unw_off_block.flags, besides UNW_SAMPLE_STATE_D */
#define OFF_IN_SYSCALL (1u << 31)
#define OFF_LAST_SHORT (1u << 30)

/* Short blocks of a thread are counted together once they add up to this, or at its end. */
#define OFF_SHORT_FLUSH_NS 1000000ULL

/* Blocks of the targets' threads, by tid (bpf/unwprof.h, struct unw_off_block); sized by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_off_block);
} off_blocks SEC(".maps");

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

/* task_struct.__state was named state before Linux 5.14. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __u32 task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/* Whether a task in the kernel entered it by a system call (not a fault or an interrupt). */
static __always_inline int task_in_syscall(struct task_struct *t)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);

#ifdef __TARGET_ARCH_x86
	return (long)BPF_CORE_READ(regs, orig_ax) >= 0;
#else
	return (int)BPF_CORE_READ(regs, syscallno) >= 0;
#endif
}

/* Whether the blocks of thread tid of process pid are wanted (as its samples would be). */
static __always_inline int off_wanted(__u32 pid, __u32 tid)
{
	if (pid == 0)
		return 0;
	if (!cfg.system_wide && !bpf_map_lookup_elem(&procs, &pid) &&
	    !bpf_map_lookup_elem(&targets, &pid))
		return 0;
	return !cfg.only_threads || bpf_map_lookup_elem(&threads, &tid);
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

/* Counts the short blocks b added up, of the thread of key (task: its comm). */
static __always_inline void off_flush_short(struct unw_off_block *b, struct unw_count_key key,
					    struct task_struct *task)
{
	if (!b->short_blocks)
		return;
	key.kstack = -1;
	key.flags = b->short_flags;
	off_count_unwalked(&key, b->short_blocks, b->short_ns, task);
	b->short_blocks = 0;
	b->short_ns = 0;
}

/*
 * A block shorter than cfg.off_cpu_min_ns: added to the thread's short ones,
 * which are counted together (once they add up to a millisecond, when the
 * state changes, or at the end), so that a storm of switches costs no count
 * each.
 */
static __always_inline void off_block_short(struct unw_off_block *b, struct unw_count_key *key,
					    __u64 ns, struct task_struct *next)
{
	__u32 state = b->flags & UNW_SAMPLE_STATE_D;

	stat_inc(UNW_ST_OFF_SHORT);
	if (b->short_blocks && b->short_flags != state)
		off_flush_short(b, *key, next);
	b->short_flags = state;
	b->short_blocks++;
	b->short_ns += ns;
	if (b->short_ns >= OFF_SHORT_FLUSH_NS)
		off_flush_short(b, *key, next);
}

/* The end of a block of next, the thread switched in: counted, or made pending. */
static __always_inline void off_block_end(struct task_struct *next, __u64 now)
{
	struct unw_count_key key = { .pid = next->tgid, .tid = next->pid, .kstack = -1 };
	struct unw_off_block *b = bpf_map_lookup_elem(&off_blocks, &key.tid);
	__u64 ns;

	if (!b || !b->start)
		return;
	ns = now - b->start;
	b->start = 0;
	stat_inc(UNW_ST_OFF_BLOCKS);
	b->flags &= ~OFF_LAST_SHORT;
	if (ns < cfg.off_cpu_min_ns) {
		b->flags |= OFF_LAST_SHORT;
		off_block_short(b, &key, ns, next);
		return;
	}
	if (!(b->flags & OFF_IN_SYSCALL)) {
		stat_inc(UNW_ST_OFF_OUTSIDE);
		key.kstack = b->kstack;
		key.flags = b->flags & UNW_SAMPLE_STATE_D;
		off_count_unwalked(&key, 1, ns, next);
		return;
	}
	/* The first pending block of the call gives the call its state and kernel stack. */
	if (!b->pending_blocks) {
		b->pending_kstack = b->kstack;
		b->pending_flags = b->flags & UNW_SAMPLE_STATE_D;
	}
	b->pending_blocks++;
	b->pending_ns += ns;
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
	struct unw_off_block init = { .pid = prev->tgid };
	__u32 tid = prev->pid;
	struct unw_off_block *b;

	b = bpf_map_lookup_elem(&off_blocks, &tid);
	if (!b) {
		bpf_map_update_elem(&off_blocks, &tid, &init, BPF_NOEXIST);
		b = bpf_map_lookup_elem(&off_blocks, &tid);
		if (!b) {
			stat_inc(UNW_ST_OFF_UNTIMED);
			return;
		}
	}
	/* A start still there is a block whose end was not seen. */
	if (b->start)
		stat_inc(UNW_ST_OFF_UNTIMED);
	b->start = now;
	b->flags = (b->flags & OFF_LAST_SHORT) |
		   (state & TASK_UNINTERRUPTIBLE ? UNW_SAMPLE_STATE_D : 0);
	if (task_in_syscall(prev))
		b->flags |= OFF_IN_SYSCALL;
	b->kstack = -1;
	if (cfg.kernel_stacks && !(b->flags & OFF_LAST_SHORT))
		b->kstack = bpf_get_stackid(ctx, &kstacks, 0);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 state;

	off_block_end(next, now);
	if (preempt)
		return 0;
	state = task_state(prev);
	if (!(state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)))
		return 0; /* runnable (a yield), stopped, traced or dead */
	if ((prev->flags & PF_KTHREAD) || !off_wanted(prev->tgid, prev->pid))
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

/* Walks the current thread's user stack and counts its pending blocks under it. */
static __always_inline void off_count_walked(void *ctx, struct unw_count_key *key, __u64 n,
					     __u64 ns)
{
	struct walk w = { .pid = key->pid, .flags = key->flags };
	struct unw_frame regs = {};
	struct scratch *sc;
	__u32 zero = 0;
	__s32 kstack = key->kstack;

	sc = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!sc)
		return;
	proc_find(sc, &w);
	sc->errs = 0;
	sc->cur_pc = 0;
	sc->t0 = 0; /* the histogram of sample times is of on-CPU samples */
	if (task_user_regs(bpf_get_current_task_btf(), &regs) == 0)
		walk_user(&w, &regs);
	else
		err_inc(UNW_E_NO_USER);
	w.flags &= ~UNW_SAMPLE_KERNEL; /* the kernel stack is the one taken when it blocked */
	walk_finish(ctx, key, &w);
	key->kstack = kstack;
	if (count_add(key, &w, n, ns, NULL)) {
		stat_add(UNW_ST_OFF_LOST, n);
		stat_add(UNW_ST_OFF_LOST_NS, ns);
		return;
	}
	stat_add(UNW_ST_OFF_WALKED, n);
	if ((w.flags & UNW_SAMPLE_COMPLETE) && !(w.flags & UNW_SAMPLE_FP))
		stat_add(UNW_ST_OFF_COMPLETE, n);
	stat_add(UNW_ST_OFF_NS, ns);
}

/* The system call the current thread blocked in returns: its pending blocks are walked. */
SEC("tp_btf/sys_exit")
int BPF_PROG(on_syscall_exit, struct pt_regs *regs, long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct unw_count_key key = { .pid = id >> 32, .tid = (__u32)id };
	struct unw_off_block *b = bpf_map_lookup_elem(&off_blocks, &key.tid);
	__u64 n, ns;

	if (!b)
		return 0;
	/*
	 * A block under way in a thread that runs: its end was not seen (the
	 * program did not run at that switch), so its time is not known.
	 */
	if (b->start) {
		b->start = 0;
		stat_inc(UNW_ST_OFF_UNTIMED);
	}
	if (!b->pending_blocks)
		return 0;
	n = b->pending_blocks;
	ns = b->pending_ns;
	key.kstack = b->pending_kstack;
	key.flags = UNW_SAMPLE_OFF_CPU | (b->pending_flags & UNW_SAMPLE_STATE_D);
	b->pending_blocks = 0;
	b->pending_ns = 0;
	if (cfg.kernel_stacks && key.kstack < 0)
		stat_add(UNW_ST_OFF_NO_KSTACK, n);
	if (!off_budget_take(bpf_ktime_get_ns())) {
		stat_add(UNW_ST_OFF_CAPPED, n);
		off_count_unwalked(&key, n, ns, NULL);
		return 0;
	}
	off_count_walked(ctx, &key, n, ns);
	return 0;
}

/* A thread exits: its short and pending blocks are counted unwalked, its entry deleted. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_thread_exit, struct task_struct *p)
{
	struct unw_count_key key = { .pid = p->tgid, .tid = p->pid };
	struct unw_off_block *b = bpf_map_lookup_elem(&off_blocks, &key.tid);

	if (!b)
		return 0;
	off_flush_short(b, key, p);
	if (b->pending_blocks) {
		key.kstack = b->pending_kstack;
		key.flags = b->pending_flags & UNW_SAMPLE_STATE_D;
		stat_add(UNW_ST_OFF_EXITED, b->pending_blocks);
		off_count_unwalked(&key, b->pending_blocks, b->pending_ns, p);
	}
	bpf_map_delete_elem(&off_blocks, &key.tid);
	return 0;
}
