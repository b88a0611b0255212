// SPDX-License-Identifier: GPL-2.0-only
/*
 * Process tracking: tracepoints follow the profiled processes so that their
 * entries (bpf/maps.bpf.h: procs and the runtimes') are right before user
 * space reads their mappings. exec (its new mappings are found in the
 * kernel and user space is told), mmap returning an executable mapping of a
 * known file (added to the process at once: dlopen, a new process's
 * libraries), exit (its entries are deleted there), and the forks of
 * targets.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "maps.bpf.h"
#include "events.bpf.h"
#include "vma.bpf.h"
#include "kernel.h"

/*
 * Moves mapping j - 1 of p to j when it starts after start: 1 when it did,
 * 0 when j is the place of a mapping at start. A global function: the
 * verifier goes through each iteration of the loop that calls it in a few
 * instructions, not through the copy of a mapping.
 */
__weak __noinline int proc_shift(struct unw_proc *p, __u32 j, __u64 start)
{
	struct unw_mapping *prev;

	/* j is below UNW_MAPS_MAX (the caller's nr): masked, not compared, for the verifier. */
	if (!p || j == 0)
		return 0;
	prev = &p->maps[(j - 1) & (UNW_MAPS_MAX - 1)];
	if (prev->start <= start)
		return 0;
	p->maps[j & (UNW_MAPS_MAX - 1)] = *prev;
	return 1;
}

/*
 * Inserts m into p, keeping it sorted by start. One loop, shifting from the
 * end, so the verifier follows one path per iteration.
 */
static __always_inline void proc_insert(struct unw_proc *p, const struct unw_mapping *m)
{
	__u32 nr = p->nr_maps, j = nr;

	if (nr >= UNW_MAPS_MAX)
		return;
	for (int k = 0; k < UNW_MAPS_MAX; k++) {
		j = nr - k;
		if (j == 0 || j > nr || !proc_shift(p, j, m->start))
			break;
	}
	p->maps[j & (UNW_MAPS_MAX - 1)] = *m;
	p->nr_maps = nr + 1;
}

/* Counts a write or a deletion of a process entry, once done (procs_written). */
static __always_inline void procs_changed(void)
{
	__sync_fetch_and_add(&procs_written, 1);
}

/* A gen for a process entry BPF wrote (struct unw_proc): odd, as BPF's are. */
static __always_inline __u32 proc_gen_next(void)
{
	return __sync_fetch_and_add(&proc_gen_last, 2) + 2;
}

/*
 * Adds the mapping holding addr to the process info of pid when it is an
 * executable mapping of a file whose table is loaded, so that the libraries
 * a new process maps, or dlopen()s, are walked from their first sample,
 * before user space reads the mappings. Process context only (interrupts
 * on): bpf_find_vma may be called repeatedly there. Returns the end of the
 * mapping, 0 when there is none; *code is set to CODE_KNOWN or CODE_UNKNOWN
 * (a file user space has not seen) for an executable mapping of a file. A
 * global function, verified once for its callers.
 */
enum { CODE_NONE = 0, CODE_KNOWN, CODE_UNKNOWN };

__noinline __u64 proc_add_vma(__u32 pid, __u64 addr, int *code)
{
	struct vma_info vi = {};
	struct unw_mapping m = {};
	const struct unw_file *f;
	struct unw_proc *p;

	if (!code)
		return 0;
	*code = CODE_NONE;
	if (bpf_find_vma(bpf_get_current_task_btf(), addr, vma_cb, &vi, 0) || !vi.found)
		return 0;
	if (!(vi.flags & VM_EXEC))
		return vi.end;
	f = bpf_map_lookup_elem(&files, &vi.key);
	*code = f ? CODE_KNOWN : CODE_UNKNOWN;
	if (!f || file_bias(f, vi.start, vi.pgoff * cfg.page_size, &m.bias))
		return vi.end;
	m.start = vi.start;
	m.end = vi.end;
	m.exec_id = f->exec_id;
	m.unwinder = UNW_UW_TABLE;
	p = bpf_map_lookup_elem(&procs, &pid);
	if (!p) {
		bpf_map_update_elem(&procs, &pid, &empty_proc, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&procs, &pid);
		if (!p)
			return vi.end;
	}
	proc_insert(p, &m);
	/* The new gen only once the mappings are written: a walk that sees it sees them. */
	barrier();
	p->gen = proc_gen_next();
	procs_changed();
	return vi.end;
}

/*
 * The runtimes' entries of a process (bpf/maps.bpf.h, one map each) live
 * and die with its process entry: gone with the image at exec and exit, the parent's copied
 * to a forked child, which runs the same code until it execs.
 */
static __always_inline void runtimes_forget(__u32 pid)
{
#define RUNTIME_FORGET(ID, name) bpf_map_delete_elem(&name##_procs, &pid);
	UNW_RUNTIMES(RUNTIME_FORGET)
#undef RUNTIME_FORGET
}

static __always_inline void runtime_copy(void *map, __u32 ppid, __u32 pid)
{
	const void *v = bpf_map_lookup_elem(map, &ppid);

	if (v)
		bpf_map_update_elem(map, &pid, v, BPF_NOEXIST);
}

static __always_inline void runtimes_fork(__u32 ppid, __u32 pid)
{
#define RUNTIME_FORK(ID, name) runtime_copy(&name##_procs, ppid, pid);
	UNW_RUNTIMES(RUNTIME_FORK)
#undef RUNTIME_FORK
}

static __always_inline int tracked(__u32 pid)
{
	return cfg.system_wide || bpf_map_lookup_elem(&targets, &pid);
}

#ifdef __TARGET_ARCH_x86
#define NR_MMAP 9
#define SYSCALL_NR(regs) ((regs)->orig_ax)
#else
#define NR_MMAP 222
#define SYSCALL_NR(regs) ((regs)->syscallno)
#endif

/* mmap() returned: a library being loaded maps its text this way. */
SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	__u32 pid;
	int code;

	if (SYSCALL_NR(regs) != NR_MMAP || (ret < 0 && ret >= -MAX_ERRNO))
		return 0;
	pid = bpf_get_current_pid_tgid() >> 32;
	if (!tracked(pid))
		return 0;
	proc_add_vma(pid, ret, &code);
	/* User space reads the mappings again: symbols, and tables of new files. */
	if (code != CODE_NONE)
		event_send_hold(UNW_EV_MAPPED, pid, ret, code == CODE_UNKNOWN);
	return 0;
}

/*
 * The mappings exec made: the executable's text (mm->start_code) and the
 * program interpreter's, found from its base (AT_BASE) mapping by mapping.
 */
static __always_inline void proc_add_exec(__u32 pid, struct task_struct *task)
{
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	__u64 at_base = 0, addr;
	int code;

	if (!mm || !cfg.have_find_vma)
		return;
	proc_add_vma(pid, BPF_CORE_READ(mm, start_code), &code);
	for (int i = 0; i < 32; i += 2) {
		__u64 type = 0, val = 0;

		bpf_probe_read_kernel(&type, sizeof(type), &mm->saved_auxv[i]);
		bpf_probe_read_kernel(&val, sizeof(val), &mm->saved_auxv[i + 1]);
		if (type == AT_NULL)
			break;
		if (type == AT_BASE)
			at_base = val;
	}
	addr = at_base;
	for (int i = 0; addr && i < 4; i++)
		addr = proc_add_vma(pid, addr, &code);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 pid = p->tgid;

	if (!cfg.system_wide && !bpf_map_lookup_elem(&targets, &pid))
		return 0;
	/* The old mappings are gone: start again from the ones exec made. */
	if (bpf_map_delete_elem(&procs, &pid) == 0)
		procs_changed();
	runtimes_forget(pid);
	proc_add_exec(pid, p);
	/*
	 * Held at every exec, not only of code without a table: user space
	 * reads the new image's mappings before it runs, so a process that
	 * lives a few milliseconds (a compiler's cc1, as) is named too, not
	 * only walked.
	 */
	event_send_hold(UNW_EV_EXEC, pid, bpf_ktime_get_ns(), 1);
	return 0;
}

/*
 * The last thread of a process exits (the tracepoint runs after the
 * thread's signal->live was decremented, and after its mm was released, so
 * no later sample of it has user frames). Its entries are deleted here, in
 * kernel order: a process forked under the same pid afterwards gets new
 * ones, which a deletion deferred to user space could remove. The event
 * tells user space to free its own state once the samples are drained.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	__u32 pid = p->tgid;
	int had;

	/* Only the process matters, not each of its threads. */
	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		return 0;
	runtimes_forget(pid);
	had = bpf_map_delete_elem(&procs, &pid) == 0;
	if (had)
		procs_changed();
	had |= bpf_map_delete_elem(&targets, &pid) == 0;
	/* -a: user space may know the process without BPF entries (procs full). */
	if (had || cfg.system_wide)
		event_send_now(UNW_EV_EXIT, pid, 0);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = parent->tgid, pid = child->tgid;
	struct unw_proc *proc;
	__u8 one = 1;

	if (!cfg.follow_children || cfg.system_wide || pid == ppid)
		return 0;
	if (!bpf_map_lookup_elem(&targets, &ppid))
		return 0;
	bpf_map_update_elem(&targets, &pid, &one, BPF_ANY);
	/* The child runs the parent's mappings until it execs. */
	proc = bpf_map_lookup_elem(&procs, &ppid);
	if (proc && bpf_map_update_elem(&procs, &pid, proc, BPF_NOEXIST) == 0) {
		proc = bpf_map_lookup_elem(&procs, &pid);
		if (proc)
			proc->gen = proc_gen_next();
		procs_changed();
	}
	runtimes_fork(ppid, pid);
	event_send_now(UNW_EV_FORK, pid, ppid);
	return 0;
}
