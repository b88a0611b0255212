// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampler: one perf_event program per CPU walks the user stack with the
 * DWARF-derived tables (frame pointers where there is no table), takes the
 * kernel stack and counts the pair in a hash map.
 *
 * The walk runs in bpf_loop (sample, Linux 5.17+), or, on older kernels, in
 * tail calls of FRAMES_PER_PROG frames (sample_tc, then walk_tc). Either way
 * it reads the top of the user stack once into a per-CPU copy and walks from
 * it, with a probe read only beyond it.
 *
 * Tracepoints follow the processes: exec (its new mappings are found in the
 * kernel and user space is told), mmap returning an executable mapping of a
 * known file (added to the process at once: dlopen, a new process's
 * libraries), exit (its entries are deleted there), and the forks of
 * targets.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "unwprof.h"
#include "unwind_step.h"

#define PF_EXITING 0x00000004 /* include/linux/sched.h: not in BTF */

char LICENSE[] SEC("license") = "GPL";

const volatile struct unw_config cfg = {};

/* The source of a new, empty process info (too large for the BPF stack). */
struct unw_proc empty_proc = {};

/* Keys added to the count map since the last drain; user space resets it. */
__u64 nr_keys = 0;

/*
 * Set by user space while it can let held processes go on (see
 * event_send_hold): from attach to stop, for a launched command's tree.
 */
__u32 hold_new_code = 0;

/* Every map is sized by user space before load; 1 is a placeholder. */
/*
 * The rows, one shard per inner map of UNW_SHARD_ROWS rows, each created by
 * user space when the packer first fills it (mmapable: filled through mmap),
 * so the memory follows the tables loaded, up to --max-shards. Rows are
 * looked up one at a time by index so the search index stays an imprecise
 * scalar for the verifier, which then prunes the search paths instead of
 * exploding; both lookups are inlined by the verifier.
 */
struct shard_rows {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, UNW_SHARD_ROWS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct unw_row));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct shard_rows);
} shards SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_exec);
} execs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct unw_file_key);
	__type(value, struct unw_file);
} files SEC(".maps");

/* Pids sampled when not system-wide. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

/* With cfg.only_threads, the only threads of the targets sampled (-t). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct unw_count_key);
	__type(value, struct unw_count);
} counts SEC(".maps");

/* User stacks of up to UNW_USTACK_SHORT frames (even keys)... */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u64));
	__uint(value_size, UNW_USTACK_SHORT_SIZE);
} ustacks SEC(".maps");

/* ...and deeper ones (odd keys). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct unw_ustack);
} ustacks_deep SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, UNW_KSTACK_DEPTH * sizeof(__u64));
} kstacks SEC(".maps");

/* walk_tc, for kernels without bpf_loop: ~16 frames per program, tail calls for more. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} walkers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* Last time an event of a type was sent for a pid: rate limiting. */
struct event_key {
	__u32 pid;
	__u32 type;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct event_key);
	__type(value, __u64);
} event_times SEC(".maps");

/* Where samples failed (see errors_flush): drained by user space with the counts. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, UNW_FAIL_SITES);
	__type(key, struct unw_fail_key);
	__type(value, __u64);
} fails SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UNW_ST_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* What bpf_find_vma tells about the mapping of a pc. */
struct vma_info {
	struct unw_file_key key;
	__u64 start;
	__u64 end;
	__u64 pgoff;
	__u64 flags;
	int found;
};

/* The walk, kept on the program's stack for the bpf_loop callback. */
struct walk {
	struct scratch *sc;
	struct unw_proc *proc; /* NULL: no tables for this process yet */
	__u64 pc, sp, bp;
	__u64 hash;
	__u32 pid;
	__u32 flags;
	__u32 done;
	__u32 vma_tried;
	__u32 signal;	     /* pc was interrupted by a signal: not a return address */
	__u32 bp_linked;     /* bp was read from a frame-pointer chain, not a register */
	struct vma_info vma; /* bpf_find_vma works once per sample: keep its answer */
};

/* The scalar state of a walk, kept in the scratch map across tail calls. */
struct walk_saved {
	__u64 pc, sp, bp;
	__u64 hash;
	__u32 pid, tid;
	__u32 flags;
	__u32 done;
	__u32 vma_tried;
	__u32 signal;
	__u32 bp_linked;
	__u32 n;
	struct vma_info vma;
};

/* Per-CPU scratch: the stack being built and the copy of the stack top. */
struct scratch {
	struct unw_ustack stack;
	__u64 sp0; /* user address of copy[0] */
	__u64 copy_len;
	struct walk_saved saved;
	/* The reasons this sample met (bit per enum unw_err), counted once each at its end. */
	__u32 errs;
	__u32 fail_reason; /* the last of them, at fail_pc */
	__u64 fail_pc;
	__u64 cur_pc;	   /* the pc of the frame being walked; 0 before the walk */
	__u64 start_stack; /* the process's initial sp (mm->start_stack) */
	__u8 copy[UNW_STACK_COPY + 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += 1;
}

/*
 * The sample met reason: counted once per sample at its end (errors_flush),
 * however many frames meet it; the last one is kept with its pc, which is
 * where a walk that stops stopped, so the summary can name the file where
 * samples fail. A global function: verified once, not at each of the many
 * places of the walk that call it.
 */
__noinline int err_inc(__u32 reason)
{
	__u32 zero = 0;
	struct scratch *sc = bpf_map_lookup_elem(&scratch_map, &zero);

	if (!sc)
		return 0;
	sc->fail_reason = reason;
	sc->fail_pc = sc->cur_pc;
	sc->errs |= 1u << (reason & 31);
	return 0;
}

/* Reasons that say nothing about a user stack: no site to name. */
#define ERRS_NO_SITE (1u << UNW_E_NO_USER | 1u << UNW_E_KSTACK)

/*
 * At the end of sample pid: each reason it met counted once, and, when the
 * walk did not reach the bottom, where it stopped.
 */
static __always_inline void errors_flush(__u32 pid, __u32 flags)
{
	struct unw_fail_key k = { .pid = pid };
	__u32 zero = 0;
	struct scratch *sc = bpf_map_lookup_elem(&scratch_map, &zero);
	__u64 one = 1, *n;

	if (!sc || !sc->errs)
		return;
	for (int i = 0; i < UNW_E_NR; i++)
		if (sc->errs & (1u << i))
			stat_inc(UNW_ST_ERR + i);
	if ((flags & UNW_SAMPLE_COMPLETE) || !(sc->errs & ~ERRS_NO_SITE))
		return;
	k.reason = sc->fail_reason;
	k.pc = sc->fail_pc;
	n = bpf_map_lookup_elem(&fails, &k);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&fails, &k, &one, BPF_NOEXIST);
}

static __always_inline void event_send(__u32 type, __u32 pid, __u64 addr)
{
	struct event_key k = { .pid = pid, .type = type };
	struct unw_event ev = { .type = type, .pid = pid, .addr = addr };
	__u64 now = bpf_ktime_get_ns();
	__u64 *last = bpf_map_lookup_elem(&event_times, &k);

	if (last && now - *last < cfg.event_interval_ns)
		return;
	bpf_map_update_elem(&event_times, &k, &now, BPF_ANY);
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

/* Events that must not be rate-limited (exec, exit, fork, drain). */
static __always_inline void event_send_now(__u32 type, __u32 pid, __u64 addr)
{
	struct unw_event ev = { .type = type, .pid = pid, .addr = addr };

	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

#define SIGCONT 18
#define SIGSTOP 19

/*
 * An event about new code of the current process (exec, mmap); when some of
 * it has no table yet (unknown) and hold_new_code is set, the process is
 * stopped before it runs that code, and user space, told by UNW_EVF_HELD,
 * lets it go on once the tables are in place: no sample of it is left to
 * frame pointers. Stopped first, so the event cannot be handled before the
 * stop; an event that cannot be sent undoes the stop, as nobody would end it.
 */
static __always_inline void event_send_hold(__u32 type, __u32 pid, __u64 addr, int unknown)
{
	struct unw_event ev = { .type = type, .pid = pid, .addr = addr };

	if (unknown && hold_new_code && bpf_send_signal(SIGSTOP) == 0)
		ev.flags = UNW_EVF_HELD;
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), 0) == 0)
		return;
	stat_inc(UNW_ST_EVENTS_LOST);
	if (ev.flags & UNW_EVF_HELD)
		bpf_send_signal(SIGCONT);
}

/* A word of the user stack: from the copy when it holds it, else read. */
static __always_inline int stack_read(struct scratch *sc, __u64 addr, __u64 *val)
{
	__u64 off = addr - sc->sp0;

	if (addr >= sc->sp0 && off + 8 <= sc->copy_len) {
		*val = *(__u64 *)&sc->copy[off & (UNW_STACK_COPY - 1)];
		return 0;
	}
	return bpf_probe_read_user(val, sizeof(*val), (void *)addr);
}

/*
 * Copies the top of the user stack: up to UNW_STACK_COPY bytes, ending on a
 * page boundary, and not past the end of the main thread's stack mapping
 * (the page holding the environment strings) when sp is in it: a read that
 * runs into unmapped memory fails whole, and costs more than the copy.
 */
static __always_inline void stack_copy(struct scratch *sc, __u64 sp)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 len = ((sp & ~4095ULL) + UNW_STACK_COPY) - sp;
	__u64 end = (BPF_CORE_READ(task, mm, env_end) + 4095) & ~4095ULL;

	sc->sp0 = sp;
	sc->copy_len = 0;
	if (sp < end && end - sp < len)
		len = end - sp;
	if (len > UNW_STACK_COPY)
		len = UNW_STACK_COPY;
	len &= UNW_STACK_COPY | (UNW_STACK_COPY - 1);
	if (len > UNW_STACK_COPY || len == 0)
		return;
	if (bpf_probe_read_user(sc->copy, len, (void *)sp) == 0) {
		sc->copy_len = len;
		return;
	}
	len = 4096 - (sp & 4095);
	len &= 4095 | 4096;
	if (len > 4096)
		return;
	if (bpf_probe_read_user(sc->copy, len, (void *)sp) == 0)
		sc->copy_len = len;
	else
		err_inc(UNW_E_STACK_COPY);
}

/* One frame with frame pointers: returns 1 when the walk goes on. */
static __always_inline int step_fp(struct walk *w)
{
	__u64 ra, bp;

	w->flags |= UNW_SAMPLE_FP;
	if (w->bp == 0) {
		/*
		 * A chain that led to 0 ends at its outermost frame. A register
		 * that holds 0 is no chain: code built without frame pointers
		 * leaves rbp as _start cleared it, and the stack goes on above.
		 */
		if (w->bp_linked)
			w->flags |= UNW_SAMPLE_COMPLETE;
		else
			err_inc(UNW_E_NO_FP);
		return 0;
	}
	if (w->bp < w->sp) {
		err_inc(UNW_E_NO_PROGRESS);
		return 0;
	}
	if (stack_read(w->sc, w->bp + 8, &ra)) {
		err_inc(UNW_E_RA_READ);
		return 0;
	}
	if (stack_read(w->sc, w->bp, &bp)) {
		err_inc(UNW_E_FP_READ);
		return 0;
	}
	w->sp = w->bp + 16;
	w->bp = bp;
	w->bp_linked = 1;
	w->pc = ra;
	return 1;
}

/* A row's place: shard << UNW_SHARD_SHIFT | index in the shard. */
#define UNW_SHARD_SHIFT 16
_Static_assert(1u << UNW_SHARD_SHIFT == UNW_SHARD_ROWS, "row places");

/*
 * The place (shard and index) of the row governing table pc key of
 * executable exec_id, or -1 (with the reason counted). A global function:
 * verified once, whatever the paths that lead to it.
 */
__noinline long exec_row(__u32 exec_id, __u32 key)
{
	const struct unw_exec *e;
	const struct unw_chunk *c;
	const struct unw_row *r;
	__u32 lo, hi, mid, shard;
	void *rows;
	long i;

	e = bpf_map_lookup_elem(&execs, &exec_id);
	if (!e)
		return -1;
	i = unw_exec__find_chunk(e, key);
	if (i < 0) {
		err_inc(UNW_E_NO_ROW);
		return -1;
	}
	c = &e->chunks[i & (UNW_CHUNKS_MAX - 1)];
	shard = c->shard;
	rows = bpf_map_lookup_elem(&shards, &shard);
	if (!rows) {
		err_inc(UNW_E_SHARD_MISSING);
		return -1;
	}
	/* Rows are looked up one at a time: the index stays imprecise, paths prune. */
	lo = c->low;
	hi = c->high;
	for (int k = 0; k < UNW_SHARD_STEPS; k++) {
		if (lo >= hi)
			break;
		mid = lo + (hi - lo) / 2;
		r = bpf_map_lookup_elem(rows, &mid);
		if (!r)
			return -1;
		if (r->pc <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo <= c->low || lo > UNW_SHARD_ROWS) {
		err_inc(UNW_E_NO_ROW);
		return -1;
	}
	return (long)shard << UNW_SHARD_SHIFT | (lo - 1);
}

/*
 * The bias of a mapping of f at start from file offset off (bpf/unwind_step.h),
 * into *bias: 0, or -1 when no segment of f maps it. A global function, so
 * that the segment search is verified once.
 */
__noinline int file_bias(const struct unw_file *f, __u64 start, __u64 off, __u64 *bias)
{
	if (!f || !bias)
		return -1;
	return unw_file__bias(f, start, off, cfg.page_size, bias);
}

/* The mapping search is a global function too. */
__noinline long find_mapping(const struct unw_proc *p, __u64 pc)
{
	if (!p)
		return -1;
	return unw_proc__find_mapping(p, pc);
}

static long vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	struct vma_info *vi = ctx;
	struct file *f = BPF_CORE_READ(vma, vm_file);

	if (!f)
		return 0;
	vi->key.ino = BPF_CORE_READ(f, f_inode, i_ino);
	vi->key.dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	vi->start = BPF_CORE_READ(vma, vm_start);
	vi->end = BPF_CORE_READ(vma, vm_end);
	vi->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	vi->flags = BPF_CORE_READ(vma, vm_flags);
	vi->found = 1;
	return 0;
}

/*
 * The executable and table pc of pc, found through the kernel's own mapping
 * of the pc: for a process (or a library) user space has not read yet, when
 * its file has a table already. Returns 0 when found.
 */
static __always_inline int vma_lookup(struct walk *w, __u64 pc, __u32 *exec_id, __u64 *rel)
{
	struct vma_info *vi = &w->vma;
	const struct unw_file *f;
	__u64 bias;

	/*
	 * The helper defers its mmap_lock release to an irq_work when called
	 * with interrupts off, as here, and fails while that work is pending:
	 * one lookup per sample, so the frames of one file are covered.
	 */
	if (!cfg.have_find_vma)
		return -1;
	if (!vi->found || pc < vi->start || pc >= vi->end) {
		if (w->vma_tried)
			return -1;
		w->vma_tried = 1;
		if (bpf_find_vma(bpf_get_current_task_btf(), pc, vma_cb, vi, 0) || !vi->found)
			return -1;
	}
	f = bpf_map_lookup_elem(&files, &vi->key);
	if (!f || file_bias(f, vi->start, vi->pgoff * cfg.page_size, &bias))
		return -1;
	*exec_id = f->exec_id;
	*rel = pc - bias;
	return 0;
}

/* The governing row of pc, or NULL (with the reason counted). */
static __always_inline const struct unw_row *row_find(struct walk *w, __u64 pc)
{
	const struct unw_mapping *m;
	__u32 exec_id = 0, idx, shard;
	__u64 rel = 0;
	void *rows;
	long i = -1;

	if (w->proc) {
		i = find_mapping(w->proc, pc);
		if (i < 0)
			event_send(UNW_EV_NOT_COVERED, w->pid, pc);
	}
	if (i >= 0) {
		m = &w->proc->maps[i & (UNW_MAPS_MAX - 1)];
		exec_id = m->exec_id;
		rel = pc - m->bias;
	} else if (vma_lookup(w, pc, &exec_id, &rel)) {
		if (w->proc)
			err_inc(UNW_E_NOT_COVERED);
		return NULL;
	}
	if (!exec_id) {
		err_inc(UNW_E_NO_TABLE);
		return NULL;
	}
	if (rel >> 32) {
		err_inc(UNW_E_NO_ROW);
		return NULL;
	}
	i = exec_row(exec_id, rel);
	if (i < 0)
		return NULL;
	shard = i >> UNW_SHARD_SHIFT;
	idx = i & (UNW_SHARD_ROWS - 1);
	rows = bpf_map_lookup_elem(&shards, &shard);
	if (!rows)
		return NULL;
	return bpf_map_lookup_elem(rows, &idx);
}

/*
 * Whether a frame with CFA cfa is an outer frame of the one at sp. A signal
 * handler may run on an alternate stack (sigaltstack) anywhere in memory, so
 * the frame it interrupted only has to be elsewhere.
 */
static __always_inline int cfa_progress(const struct unw_row *r, __u64 cfa, __u64 sp)
{
	if (unw_row__signal(r))
		return cfa != sp;
	return cfa > sp;
}

/* One frame with a table row: returns 1 when the walk goes on. */
static __always_inline int step_row(struct walk *w, const struct unw_row *r)
{
	__u64 cfa, ra, bp = w->bp, fp_addr;
	int deref;

	if (r->ra == UNW_RA_UNDEFINED) {
		w->flags |= UNW_SAMPLE_COMPLETE;
		return 0;
	}
	cfa = unw_row__cfa(r, w->pc, w->sp, w->bp, &deref);
	if (deref) {
		if (stack_read(w->sc, cfa, &cfa)) {
			err_inc(UNW_E_CFA_READ);
			return 0;
		}
		cfa += unw_row__cfa_add(r);
	}
	if (!cfa_progress(r, cfa, w->sp)) {
		err_inc(UNW_E_NO_PROGRESS);
		return 0;
	}
	if (stack_read(w->sc, unw_row__ra_addr(r, cfa, w->sp), &ra)) {
		err_inc(UNW_E_RA_READ);
		return 0;
	}
	fp_addr = unw_row__fp_addr(r, cfa, w->sp, w->bp);
	if (fp_addr && stack_read(w->sc, fp_addr, &bp)) {
		err_inc(UNW_E_FP_READ);
		return 0;
	}
	w->sp = cfa;
	w->bp = bp;
	w->pc = ra;
	w->signal = unw_row__signal(r);
	w->bp_linked = 0;
	return 1;
}

/*
 * Whether the frame is the process's entry code: its sp is the one the
 * kernel started the process with (mm->start_stack, where argc is), or that
 * sp aligned down to 16 bytes. No call has pushed anything there, so no
 * frame is above it. The dynamic loader's entry (glibc's _start and
 * _dl_start_user in ld.so) has no CFI: without this, every sample of a
 * process still in ld.so would end in a failed frame-pointer step.
 */
static __always_inline int at_process_entry(const struct walk *w)
{
	__u64 top = w->sc->start_stack;

	return top && w->sp <= top && top - w->sp < 16;
}

static long walk_frame(__u32 n, void *ctx)
{
	struct walk *w = ctx;
	struct scratch *sc = w->sc;
	const struct unw_row *r = NULL;
	__u64 pc = w->pc;
	int more;

	if (!sc)
		return 1;
	sc->cur_pc = pc;
	/*
	 * Callers' frames are return addresses, which readers of the stack
	 * look up at pc - 1. A pc a signal interrupted is the instruction
	 * itself: it is recorded one past it, so that pc - 1 finds it too.
	 */
	sc->stack.pcs[n & (UNW_DEPTH_MAX - 1)] = n && w->signal ? pc + 1 : pc;
	sc->stack.nr = n + 1;
	w->hash = unw_hash__add(w->hash, sc->stack.pcs[n & (UNW_DEPTH_MAX - 1)]);

	/*
	 * A return address points after the call: look up the call itself.
	 * The leaf's pc, and a pc a signal interrupted, are the instruction.
	 */
	if (!cfg.fp_only)
		r = row_find(w, n && !w->signal ? pc - 1 : pc);
	w->signal = 0;
	if (r && unw_row__usable(r)) {
		more = step_row(w, r);
	} else if (at_process_entry(w)) {
		w->flags |= UNW_SAMPLE_COMPLETE;
		more = 0;
	} else {
		if (r)
			err_inc(r->cfa == UNW_CFA_END ? UNW_E_END_ROW : UNW_E_UNSUPPORTED);
		more = step_fp(w);
	}
	if (more && w->pc == 0) {
		w->flags |= UNW_SAMPLE_COMPLETE;
		more = 0;
	}
	if (!more) {
		w->done = 1;
		return 1;
	}
	return 0;
}

/*
 * Stores st under key h in map, whose values hold max frames; returns h, or
 * 0 when the map is full or holds another stack under h.
 */
static __always_inline __u64 ustack_put(void *map, __u64 h, const struct unw_ustack *st, int max)
{
	const struct unw_ustack *old;
	long err;

	err = bpf_map_update_elem(map, &h, st, BPF_NOEXIST);
	if (err == 0)
		return h;
	if (err != -17 /* EEXIST */) {
		err_inc(UNW_E_USTACK_FULL);
		return 0;
	}
	old = bpf_map_lookup_elem(map, &h);
	if (!old)
		return h; /* drained meanwhile: user space kept a copy */
	if (old->nr != st->nr) {
		err_inc(UNW_E_USTACK_COLLISION);
		return 0;
	}
	for (int i = 0; i < max; i++) {
		if (i >= old->nr)
			break;
		if (old->pcs[i] != st->pcs[i]) {
			err_inc(UNW_E_USTACK_COLLISION);
			return 0;
		}
	}
	return h;
}

/* The key of the user stack, stored in ustacks or ustacks_deep; 0 when none. */
static __always_inline __u64 ustack_store(struct walk *w)
{
	const struct unw_ustack *st = &w->sc->stack;
	__u64 h = w->hash & ~UNW_USTACK_DEEP_KEY;

	if (st->nr > UNW_USTACK_SHORT)
		return ustack_put(&ustacks_deep, h | UNW_USTACK_DEEP_KEY, st, UNW_DEPTH_MAX);
	return ustack_put(&ustacks, h ? h : 2, st, UNW_USTACK_SHORT);
}

static __always_inline void count_add(struct unw_count_key *key)
{
	struct unw_count *c, init = { .count = 1 };
	long err;

	c = bpf_map_lookup_elem(&counts, key);
	if (c) {
		__sync_fetch_and_add(&c->count, 1);
		return;
	}
	bpf_get_current_comm(init.comm, sizeof(init.comm));
	err = bpf_map_update_elem(&counts, key, &init, BPF_NOEXIST);
	if (err == -17 /* EEXIST: another CPU added it */) {
		c = bpf_map_lookup_elem(&counts, key);
		if (c)
			__sync_fetch_and_add(&c->count, 1);
		return;
	}
	if (err) {
		stat_inc(UNW_ST_LOST);
		return;
	}
	if (__sync_fetch_and_add(&nr_keys, 1) + 1 == cfg.drain_at)
		event_send_now(UNW_EV_DRAIN, 0, 0);
}

/* The user registers of the sampled task: from the sample, or from the task. */
static __always_inline int user_regs(struct bpf_perf_event_data *ctx, struct pt_regs *regs,
				     __u32 *flags)
{
	struct task_struct *task;
	struct pt_regs *uregs;

	/* The context only allows 8-byte loads of the registers. */
	if (*(volatile __u64 *)&ctx->regs.cs & 3) {
		regs->ip = ctx->regs.ip;
		regs->sp = ctx->regs.sp;
		regs->bp = ctx->regs.bp;
		return 0;
	}
	*flags |= UNW_SAMPLE_KERNEL;
	task = bpf_get_current_task_btf();
	if (BPF_CORE_READ(task, flags) & 0x00200000 /* PF_KTHREAD */)
		return -1;
	if (!BPF_CORE_READ(task, mm))
		return -1;
	uregs = (struct pt_regs *)bpf_task_pt_regs(task);
	regs->ip = BPF_CORE_READ(uregs, ip);
	regs->sp = BPF_CORE_READ(uregs, sp);
	regs->bp = BPF_CORE_READ(uregs, bp);
	return 0;
}

/* Sets up the walk of the user stack from regs: process info, stack copy. */
static __always_inline void walk_start(struct walk *w, struct pt_regs *regs)
{
	__u32 zero = 0;

	w->sc = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!w->sc)
		return;
	w->sc->stack.nr = 0;
	w->proc = bpf_map_lookup_elem(&procs, &w->pid);
	if (!w->proc) {
		err_inc(UNW_E_NO_PROC);
		/* An exiting task's process may be gone already: nothing to read. */
		if (!cfg.fp_only && !(bpf_get_current_task_btf()->flags & PF_EXITING))
			event_send(UNW_EV_UNKNOWN_PROC, w->pid, 0);
	}
	w->pc = regs->ip;
	w->sp = regs->sp;
	w->bp = regs->bp;
	w->hash = UNW_HASH_INIT;
	w->sc->start_stack = BPF_CORE_READ(bpf_get_current_task_btf(), mm, start_stack);
	stack_copy(w->sc, w->sp);
}

static __always_inline void walk_user(struct walk *w, struct pt_regs *regs)
{
	walk_start(w, regs);
	if (!w->sc)
		return;
	bpf_loop(UNW_DEPTH_MAX, walk_frame, w, 0);
	if (!w->done)
		w->flags |= UNW_SAMPLE_TRUNCATED;
}

/* The user stack, the kernel stack and the stats of a finished walk, then the count. */
static __always_inline void sample_finish(struct bpf_perf_event_data *ctx,
					  struct unw_count_key *key, struct walk *w)
{
	if (w->sc && w->sc->stack.nr)
		key->ustack = ustack_store(w);
	if (cfg.kernel_stacks && (w->flags & UNW_SAMPLE_KERNEL)) {
		key->kstack = bpf_get_stackid(ctx, &kstacks, 0);
		if (key->kstack < 0)
			err_inc(UNW_E_KSTACK);
	}
	key->flags = w->flags;
	errors_flush(key->pid, w->flags);
	/* Walked with the tables alone: frame-pointer walks are counted apart. */
	if ((w->flags & UNW_SAMPLE_COMPLETE) && !(w->flags & UNW_SAMPLE_FP))
		stat_inc(UNW_ST_COMPLETE);
	if (w->flags & UNW_SAMPLE_FP)
		stat_inc((w->flags & UNW_SAMPLE_COMPLETE) ? UNW_ST_FP_COMPLETE : UNW_ST_FP);
	if (w->flags & UNW_SAMPLE_TRUNCATED)
		stat_inc(UNW_ST_TRUNCATED);
	if (w->flags & UNW_SAMPLE_KERNEL)
		stat_inc(UNW_ST_KERNEL);
	count_add(key);
}

/* Whether the sample is of a profiled process; counts it, and starts its errors, when it is. */
static __always_inline int sample_wanted(__u32 pid, __u32 tid)
{
	struct scratch *sc;
	__u32 zero = 0;

	if (pid == 0 && !cfg.system_wide)
		return 0;
	if (!cfg.system_wide && !bpf_map_lookup_elem(&targets, &pid))
		return 0;
	if (cfg.only_threads && !bpf_map_lookup_elem(&threads, &tid))
		return 0;
	stat_inc(UNW_ST_SAMPLES);
	sc = bpf_map_lookup_elem(&scratch_map, &zero);
	if (sc) {
		sc->errs = 0;
		sc->cur_pc = 0;
	}
	return 1;
}

/* The user registers of the sample into regs: 0, or -1 with the sample marked kernel-only. */
static __always_inline int sample_user_regs(struct bpf_perf_event_data *ctx, struct walk *w,
					    struct pt_regs *regs)
{
	if (w->pid && user_regs(ctx, regs, &w->flags) == 0)
		return 0;
	w->flags |= UNW_SAMPLE_KERNEL;
	err_inc(UNW_E_NO_USER);
	return -1;
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct unw_count_key key = { .pid = id >> 32, .tid = (__u32)id, .kstack = -1 };
	struct walk w = {};
	struct pt_regs regs = {};

	if (!sample_wanted(key.pid, key.tid))
		return 0;
	w.pid = key.pid;
	if (sample_user_regs(ctx, &w, &regs) == 0)
		walk_user(&w, &regs);
	sample_finish(ctx, &key, &w);
	return 0;
}

static __always_inline void walk_save(struct scratch *sc, const struct walk *w, __u32 tid, __u32 n)
{
	struct walk_saved *s = &sc->saved;

	s->pc = w->pc;
	s->sp = w->sp;
	s->bp = w->bp;
	s->hash = w->hash;
	s->pid = w->pid;
	s->tid = tid;
	s->flags = w->flags;
	s->done = w->done;
	s->vma_tried = w->vma_tried;
	s->signal = w->signal;
	s->bp_linked = w->bp_linked;
	s->vma = w->vma;
	s->n = n;
}

static __always_inline void walk_restore(struct scratch *sc, struct walk *w)
{
	const struct walk_saved *s = &sc->saved;

	w->sc = sc;
	w->pc = s->pc;
	w->sp = s->sp;
	w->bp = s->bp;
	w->hash = s->hash;
	w->pid = s->pid;
	w->flags = s->flags;
	w->done = s->done;
	w->vma_tried = s->vma_tried;
	w->signal = s->signal;
	w->bp_linked = s->bp_linked;
	w->vma = s->vma;
	w->proc = bpf_map_lookup_elem(&procs, &w->pid);
}

#define FRAMES_PER_PROG 16
_Static_assert(UNW_DEPTH_MAX / FRAMES_PER_PROG <= 32, "tail call limit");

/* The walk for kernels without bpf_loop: FRAMES_PER_PROG frames, then itself again. */
SEC("perf_event")
int walk_tc(struct bpf_perf_event_data *ctx)
{
	struct unw_count_key key = { .kstack = -1 };
	struct walk w = {};
	struct scratch *sc;
	__u32 zero = 0, n;

	sc = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!sc)
		return 0;
	walk_restore(sc, &w);
	n = sc->saved.n;
	for (int i = 0; i < FRAMES_PER_PROG && n < UNW_DEPTH_MAX; i++) {
		if (walk_frame(n++, &w))
			break;
	}
	if (!w.done && n < UNW_DEPTH_MAX) {
		walk_save(sc, &w, sc->saved.tid, n);
		bpf_tail_call(ctx, &walkers, 0);
		/* Only when the tail call failed: the walk stops here, not at the depth limit. */
		err_inc(UNW_E_TAIL_CALL);
	} else if (!w.done) {
		w.flags |= UNW_SAMPLE_TRUNCATED;
	}
	key.pid = w.pid;
	key.tid = sc->saved.tid;
	sample_finish(ctx, &key, &w);
	return 0;
}

/* The sampler for kernels without bpf_loop (before 5.17). */
SEC("perf_event")
int sample_tc(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct unw_count_key key = { .pid = id >> 32, .tid = (__u32)id, .kstack = -1 };
	struct walk w = {};
	struct pt_regs regs = {};

	if (!sample_wanted(key.pid, key.tid))
		return 0;
	w.pid = key.pid;
	if (sample_user_regs(ctx, &w, &regs) == 0) {
		walk_start(&w, &regs);
		if (w.sc) {
			walk_save(w.sc, &w, key.tid, 0);
			bpf_tail_call(ctx, &walkers, 0);
			err_inc(UNW_E_TAIL_CALL);
			w.sc->stack.nr = 0; /* no walk after all */
		}
	}
	sample_finish(ctx, &key, &w);
	return 0;
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
		struct unw_mapping *prev;

		j = nr - k;
		if (j == 0 || j > nr)
			break;
		prev = &p->maps[(j - 1) & (UNW_MAPS_MAX - 1)];
		if (prev->start <= m->start)
			break;
		p->maps[j & (UNW_MAPS_MAX - 1)] = *prev;
	}
	p->maps[j & (UNW_MAPS_MAX - 1)] = *m;
	p->nr_maps = nr + 1;
}

/*
 * Adds the mapping holding addr to the process info of pid when it is an
 * executable mapping of a file whose table is loaded, so that the libraries
 * a new process maps, or dlopen()s, are walked from their first sample,
 * before user space reads the mappings. Process context only (interrupts
 * on): bpf_find_vma may be called repeatedly there. Returns the end of the
 * mapping, 0 when there is none; *code is set to CODE_KNOWN or CODE_UNKNOWN
 * (a file user space has not seen) for an executable mapping of a file.
 */
enum { CODE_NONE = 0, CODE_KNOWN, CODE_UNKNOWN };

static __always_inline __u64 proc_add_vma(__u32 pid, __u64 addr, int *code)
{
	struct vma_info vi = {};
	struct unw_mapping m = {};
	const struct unw_file *f;
	struct unw_proc *p;

	*code = CODE_NONE;
	if (bpf_find_vma(bpf_get_current_task_btf(), addr, vma_cb, &vi, 0) || !vi.found)
		return 0;
	if (!(vi.flags & 0x4 /* VM_EXEC */))
		return vi.end;
	f = bpf_map_lookup_elem(&files, &vi.key);
	*code = f ? CODE_KNOWN : CODE_UNKNOWN;
	if (!f || file_bias(f, vi.start, vi.pgoff * cfg.page_size, &m.bias))
		return vi.end;
	m.start = vi.start;
	m.end = vi.end;
	m.exec_id = f->exec_id;
	m.type = UNW_MAP_FILE;
	p = bpf_map_lookup_elem(&procs, &pid);
	if (!p) {
		bpf_map_update_elem(&procs, &pid, &empty_proc, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&procs, &pid);
		if (!p)
			return vi.end;
	}
	proc_insert(p, &m);
	return vi.end;
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

	if (SYSCALL_NR(regs) != NR_MMAP || (ret < 0 && ret > -4096))
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
 * Returns whether any of them is code of a file user space has not seen.
 */
static __always_inline int proc_add_exec(__u32 pid, struct task_struct *task)
{
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	__u64 at_base = 0, addr;
	int code, unknown;

	if (!mm || !cfg.have_find_vma)
		return 0;
	proc_add_vma(pid, BPF_CORE_READ(mm, start_code), &code);
	unknown = code == CODE_UNKNOWN;
	for (int i = 0; i < 32; i += 2) {
		__u64 type = 0, val = 0;

		bpf_probe_read_kernel(&type, sizeof(type), &mm->saved_auxv[i]);
		bpf_probe_read_kernel(&val, sizeof(val), &mm->saved_auxv[i + 1]);
		if (type == 0 /* AT_NULL */)
			break;
		if (type == 7 /* AT_BASE */)
			at_base = val;
	}
	addr = at_base;
	for (int i = 0; addr && i < 4; i++) {
		addr = proc_add_vma(pid, addr, &code);
		unknown |= code == CODE_UNKNOWN;
	}
	return unknown;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 pid = p->tgid;
	int unknown;

	if (!cfg.system_wide && !bpf_map_lookup_elem(&targets, &pid))
		return 0;
	/* The old mappings are gone: start again from the ones exec made. */
	bpf_map_delete_elem(&procs, &pid);
	unknown = proc_add_exec(pid, p);
	event_send_hold(UNW_EV_EXEC, pid, 0, unknown);
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
	had = bpf_map_delete_elem(&procs, &pid) == 0;
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
	if (proc)
		bpf_map_update_elem(&procs, &pid, proc, BPF_NOEXIST);
	event_send_now(UNW_EV_FORK, pid, ppid);
	return 0;
}
