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
#include "arch.h"
#include "kernel.h"
#include "sample_time.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct unw_config cfg = {};

/* The source of a new, empty process info (too large for the BPF stack). */
struct unw_proc empty_proc = {};

/* The last gen (struct unw_proc) BPF gave a process entry, odd as BPF's are; 64 bits for the atomic add. */
__u64 proc_gen_last = 1;

/*
 * Writes and deletions of process entries (procs), by BPF or by user space,
 * each counted once done: while the count has not changed since a CPU last
 * looked up the process it samples, the entry is there with the gen it had
 * (struct scratch: last_pid), and the sample needs no lookup.
 */
__u64 procs_written = 0;

/* Keys added to the count map since the last drain; user space resets it. */
__u64 nr_keys = 0;

/*
 * Set by user space while it can let held processes go on (see
 * event_send_hold): from attach to stop, for a launched command's tree.
 */
__u32 hold_new_code = 0;

/* Every map is sized by user space before load; 1 is a placeholder. */
/*
 * The unwind tables (bpf/unwprof.h). The rows: one shard per inner map, of
 * 8-byte values holding two rows each, created by user space when the
 * packer first fills it (mmapable: filled through mmap), so the memory
 * follows the tables loaded, up to --max-shards. Rows are looked up one at
 * a time by index so the search index stays an imprecise scalar for the
 * verifier, which then prunes the search paths instead of exploding; both
 * lookups are inlined by the verifier.
 */
struct shard_rows {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, UNW_SHARD_VALUES);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct shard_rows);
} shards SEC(".maps");

/* Where each page's rows are, the pages of a table one after the other. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, UNW_PAGES_MAX);
	__type(key, __u32);
	__type(value, struct unw_page);
} pages SEC(".maps");

/* Every distinct rule of the tables loaded, once. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, UNW_RULES_MAX);
	__type(key, __u32);
	__type(value, struct unw_rule);
} rules SEC(".maps");

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

/*
 * Interpreters' code (Python code objects, Ruby iseqs) whose event was
 * sent: each is read once, while its process lives. One evicted is sent
 * again, which user space, having read it, ignores.
 */
struct code_key {
	__u32 pid;
	__u32 tag;
	__u64 code;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct code_key);
	__type(value, __u8);
} codes_seen SEC(".maps");

/* Whether code (an interpreter's, tag telling it apart) of pid is seen the first time: it is marked. */
static __always_inline int code_first_seen(__u32 pid, __u32 tag, __u64 code)
{
	struct code_key k = { .pid = pid, .tag = tag, .code = code };
	__u8 one = 1;

	if (bpf_map_lookup_elem(&codes_seen, &k))
		return 0;
	bpf_map_update_elem(&codes_seen, &k, &one, BPF_ANY);
	return 1;
}

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

/* The histogram of the times of the targets' samples (bpf/unwprof.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UNW_HIST_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} sample_ns SEC(".maps");

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
	struct unw_proc *proc; /* the process's entry, once looked up */
	struct unw_frame f;    /* bpf/unwind_step.h */
	__u64 hash;
	__u32 pid;
	__u32 flags;
	__u32 done;
	__u32 has_proc; /* the process has an entry: tables */
	__u32 gen;	/* the entry's gen */
};

/* The scalar state of a walk, kept in the scratch map across tail calls. */
struct walk_saved {
	struct unw_frame f;
	__u64 hash;
	__u32 pid, tid;
	__u32 flags;
	__u32 done;
	__u32 n;
};

/*
 * A slot of the per-CPU cache of lookups: what the lookup of pc found in
 * the mappings of version gen of a process (struct unw_proc) and in the
 * tables, which do not change once in place. A CPU-bound program's samples
 * walk the same return addresses again and again; a hit replaces the
 * mapping search, the page lookup, the row search and the read of the rule
 * with one read of the slot, which holds a copy of the rule: a sample's
 * cost is mostly memory it touches for the first time since the last. Only
 * a lookup that found a rule is kept, so a hit meets no reason a lookup
 * would not have met and counted.
 */
#define PC_CACHE_SET_BITS 8 /* sets of two slots per CPU: 2^bits, 16 KiB */
#define PC_CACHE_SLOTS (2u << PC_CACHE_SET_BITS)

struct pc_cached {
	__u64 pc;
	__u32 gen; /* 0: empty */
	__u32 unwinder;
	struct unw_rule rule;
};

/* One value per CPU, not one per slot: a per-CPU element is an allocation of its own at load. */
struct pc_cache {
	struct pc_cached slots[PC_CACHE_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pc_cache);
} pc_cache SEC(".maps");

/* Bytes of a Python frame read at once: every field the walk reads lies in them. */
#define PY_FRAME_READ 128

/* Per-CPU scratch: the stack being built and the copy of the stack top. */
struct scratch {
	struct unw_ustack stack;
	__u64 sp0;	/* user address of copy[0] */
	__u64 copy_len; /* bytes copied */
	__u64 copy_max; /* bytes the copy may grow to (stack_grow) */
	struct walk_saved saved;
	/* The reasons this sample met (bit per enum unw_err), counted once each at its end. */
	__u32 errs;
	__u32 fail_reason; /* the last of them, at fail_pc */
	__u64 fail_pc;
	__u64 t0;     /* when the sampling program started, for sample_ns */
	__u64 cur_pc; /* the pc of the frame being walked; 0 before the walk */
	/* The process this CPU last looked up, its entry's gen, and procs_written then. */
	__u32 last_pid;
	__u32 last_gen;
	__u64 last_written;
	__u64 start_stack;   /* the process's initial sp (mm->start_stack) */
	struct vma_info vma; /* bpf_find_vma works once per sample: its answer is kept */
	__u32 vma_tried;
	__u32 go_switched; /* the walk left Go's system stack: once per sample */
	__u32 py_looked;   /* the sampled thread's Python frame was looked for */
	__u32 py_written;  /* Python frames written for this sample */
	__u32 rb_looked;   /* the same for Ruby */
	__u32 lookups;	   /* frames looked up in the process's mappings (UNW_ST_LOOKUPS) */
	__u32 lookups_cached;
	__u32 rb_written;
	__u64 rb_cfp;	/* the next Ruby control frame to write: the Ruby unwinder's cursor */
	__u64 rb_end;	/* the end of its VM stack */
	__u64 py_frame; /* the next Python frame to write: the cursor of the Python unwinder */
	__u8 py_buf[PY_FRAME_READ]; /* the start of the Python frame being read */
	/* Twice the copy: a read that grows it is bounded by its start and its length. */
	__u8 copy[2 * UNW_STACK_COPY];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

static __always_inline void stat_add(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += n;
}

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

/*
 * The end of a target's sample, however it ended (counted, lost, walked or
 * not): its time since t0, when its program started (sample_wanted),
 * counted in sample_ns. A global function, verified once for the programs
 * that end samples; t0 comes from the caller's scratch, not looked up again.
 */
__noinline int sample_time_end(__u64 t0)
{
	__u32 b;
	__u64 *n;

	if (!t0)
		return 0; /* no scratch: the start was not kept */
	b = unw_hist__bucket(bpf_ktime_get_ns() - t0);
	n = bpf_map_lookup_elem(&sample_ns, &b);
	if (n)
		*n += 1;
	return 0;
}

/* When the sample's program started: in the walk's scratch, looked up only when no walk began. */
static __always_inline __u64 sample_t0(const struct walk *w)
{
	const struct scratch *sc = w->sc;
	__u32 zero = 0;

	if (!sc)
		sc = bpf_map_lookup_elem(&scratch_map, &zero);
	return sc ? sc->t0 : 0;
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

/*
 * The copy of the stack top grows as the walk reads deeper: it starts with
 * the first UNW_STACK_FIRST bytes, and a read past them copies twice as much
 * again, up to copy_max. Most samples need a few hundred bytes of stack; a
 * copy of all UNW_STACK_COPY bytes would be most of their cost. 0, or -1
 * when the stack could not be read (the copy then stops growing).
 */
static __always_inline int stack_grow(struct scratch *sc, __u64 need)
{
	__u64 have = sc->copy_len, want = have * 2, n;

	if (want < need)
		want = need;
	if (want > sc->copy_max)
		want = sc->copy_max;
	n = (want - have) & (UNW_STACK_COPY | (UNW_STACK_COPY - 1));
	have &= UNW_STACK_COPY - 1;
	if (n == 0 || n > UNW_STACK_COPY ||
	    bpf_probe_read_user(&sc->copy[have], n, (void *)(sc->sp0 + have))) {
		sc->copy_max = sc->copy_len;
		return -1;
	}
	sc->copy_len = have + n;
	return 0;
}

/* A word of the user stack: from the copy when it holds it (grown when it may), else read. */
static __always_inline int stack_read(struct scratch *sc, __u64 addr, __u64 *val)
{
	__u64 off = addr - sc->sp0;

	if (addr >= sc->sp0 && off + 8 > sc->copy_len && off + 8 <= sc->copy_max)
		stack_grow(sc, off + 8);
	if (addr >= sc->sp0 && off + 8 <= sc->copy_len) {
		*val = *(__u64 *)&sc->copy[off & (UNW_STACK_COPY - 1)];
		return 0;
	}
	return bpf_probe_read_user(val, sizeof(*val), (void *)addr);
}

/*
 * Starts the copy of the top of the user stack: it may grow to UNW_STACK_COPY
 * bytes, ending on a page boundary, and not past the end of the main
 * thread's stack mapping (the page holding the environment strings) when sp
 * is in it: a read that runs into unmapped memory fails whole, and costs
 * more than the copy. When the first bytes cannot be read, the rest of sp's
 * page is tried.
 */
static __always_inline void stack_copy(struct scratch *sc, __u64 sp)
{
	const __u64 page = UNW_PAGE_MIN;
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 len = ((sp & ~(page - 1)) + UNW_STACK_COPY) - sp;
	__u64 end = (task->mm->env_end + page - 1) & ~(page - 1);

	sc->sp0 = sp;
	sc->copy_len = 0;
	if (sp < end && end - sp < len)
		len = end - sp;
	if (len > UNW_STACK_COPY)
		len = UNW_STACK_COPY;
	sc->copy_max = len;
	if (stack_grow(sc, len < UNW_STACK_FIRST ? len : UNW_STACK_FIRST) == 0)
		return;
	sc->copy_max = page - (sp & (page - 1));
	if (sc->copy_max > len)
		sc->copy_max = len;
	if (stack_grow(sc, sc->copy_max))
		err_inc(UNW_E_STACK_COPY);
}

/* The native step (bpf/unwind_step.h) reads the stack through the copy. */
#define UNW_READ(mem, addr, val) stack_read((mem), (addr), (val))
#define UNW_NOTE(mem, reason) err_inc(reason)

/* Row i of a shard (an inner map of shards); non-zero when it cannot be read. */
static __always_inline int shard_row_read(void *shard, __u32 i, __u32 *row);
#define UNW_ROW_READ(shard, i, row) shard_row_read((shard), (i), (row))
#include "unwind_step.h"

static __always_inline int shard_row_read(void *shard, __u32 i, __u32 *row)
{
	__u32 k = i / 2;
	const __u64 *v = bpf_map_lookup_elem(shard, &k);

	if (!v)
		return -1;
	*row = unw_row__of_value(*v, i);
	return 0;
}

/*
 * The rule governing table pc key among rows [low, low + nr) of shard, which
 * the first pcs of their page inherit rule from (bpf/unwind_step.h); -1
 * when none does, -2 when the shard is missing (counted). A global function, verified once: its
 * arguments are plain numbers, so the search is one path, whichever page
 * led to it.
 */
__noinline long shard_rule(__u32 shard, __u32 low, __u32 nr, __u32 rule, __u32 key)
{
	void *rows = bpf_map_lookup_elem(&shards, &shard);

	if (!rows) {
		err_inc(UNW_E_SHARD_MISSING);
		return -2;
	}
	return unw_page__rule(rows, low, nr, rule, key);
}

/* The rule governing table pc key in page page of the page map, or -1 (with the reason counted). */
static __always_inline long page_rule(__u32 page, __u32 key)
{
	const struct unw_page *pg = bpf_map_lookup_elem(&pages, &page);
	long rule;

	if (!pg) {
		err_inc(UNW_E_NO_ROW);
		return -1;
	}
	rule = pg->rule;
	if (pg->nr) {
		rule = shard_rule(pg->row / UNW_SHARD_ROWS, pg->row % UNW_SHARD_ROWS, pg->nr, rule,
				  key);
		if (rule == -2)
			return -1;
	}
	if (rule <= UNW_RULE_NONE) {
		err_inc(UNW_E_NO_ROW);
		return -1;
	}
	return rule;
}

/*
 * The rule governing table pc key of executable exec_id, or -1 (with the
 * reason counted). A global function: verified once, whatever the paths
 * that lead to it.
 */
__noinline long exec_rule(__u32 exec_id, __u32 key)
{
	const struct unw_exec *e;
	__u32 page = 0;

	e = bpf_map_lookup_elem(&execs, &exec_id);
	if (!e)
		return -1;
	switch (unw_exec__page(e, key, &page)) {
	case UNW_PAGE_IN:
		return page_rule(page, key);
	case UNW_PAGE_AFTER:
		if (e->last_rule != UNW_RULE_NONE)
			return e->last_rule;
		/* fallthrough */
	default:
		err_inc(UNW_E_NO_ROW);
		return -1;
	}
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
static __always_inline int vma_lookup(struct scratch *sc, __u64 pc, __u32 *exec_id, __u64 *rel)
{
	struct vma_info *vi = &sc->vma, found = {};
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
		if (sc->vma_tried)
			return -1;
		sc->vma_tried = 1;
		/* The helper's callback context must be on the stack. */
		if (bpf_find_vma(bpf_get_current_task_btf(), pc, vma_cb, &found, 0) || !found.found)
			return -1;
		*vi = found;
	}
	f = bpf_map_lookup_elem(&files, &vi->key);
	if (!f || file_bias(f, vi->start, vi->pgoff * cfg.page_size, &bias))
		return -1;
	*exec_id = f->exec_id;
	*rel = pc - bias;
	return 0;
}

/* Where the pc of a frame is: the unwinder that steps from it, and what that unwinder needs. */
struct frame_place {
	__u64 pc;	/* the pc looked up */
	__u64 rel;	/* the table pc */
	__u32 exec_id;	/* the table; 0: none */
	__u32 unwinder; /* enum unw_unwinder */
	__u32 gen;	/* found in this version of the mappings (0: elsewhere, not to be kept) */
	__u32 cached;	/* rule is the cache's copy of the rule */
	struct unw_rule rule;
};

/*
 * This CPU's set of two cache slots (64 bytes side by side) for pc in
 * version gen of a process's mappings: two ways, so that two pcs of a hot
 * loop falling in one set do not evict each other at every sample.
 */
static __always_inline struct pc_cached *pc_cache_set(__u32 gen, __u64 pc)
{
	__u32 set = ((pc ^ (__u64)gen << 40) * 0x9e3779b97f4a7c15ULL) >> (64 - PC_CACHE_SET_BITS);
	__u32 zero = 0;
	struct pc_cache *c = bpf_map_lookup_elem(&pc_cache, &zero);

	return c ? &c->slots[(set * 2) & (PC_CACHE_SLOTS - 2)] : NULL;
}

static __always_inline int pc_cached_is(const struct pc_cached *c, __u32 gen, __u64 pc)
{
	return c->gen == gen && c->pc == pc;
}

/*
 * Whether the cache knows pc in version gen: pl's unwinder and rule are
 * copied from it. A global function, verified once: its caller goes on
 * from one state, whatever the slot held.
 */
__noinline int pc_cache_find(__u32 gen, __u64 pc, struct frame_place *pl)
{
	const struct pc_cached *c = gen ? pc_cache_set(gen, pc) : NULL;

	if (!c || !pl)
		return 0;
	if (!pc_cached_is(c, gen, pc)) {
		c++;
		if (!pc_cached_is(c, gen, pc))
			return 0;
	}
	pl->unwinder = c->unwinder;
	pl->rule = c->rule;
	pl->cached = 1;
	return 1;
}

/* Keeps what the lookup of pl found, rule, in the first way of its set, the one there moved to the second. */
static __always_inline void pc_cache_put(const struct frame_place *pl, const struct unw_rule *rule)
{
	struct pc_cached *c = pl->gen ? pc_cache_set(pl->gen, pl->pc) : NULL;

	if (!c)
		return;
	c[1] = c[0];
	c->pc = pl->pc;
	c->gen = pl->gen;
	c->rule = *rule;
	c->unwinder = pl->unwinder;
}

/*
 * The place of pc in process pid (proc: its mappings, NULL when user space
 * has not read them): from the process's mappings, else from the kernel's
 * mapping of pc when its file has a table; frame pointers when neither is
 * known (the reason counted). A global function, verified once.
 */
__noinline int frame_place(const struct unw_proc *proc, struct scratch *sc, __u32 pid, __u64 pc,
			   struct frame_place *pl)
{
	const struct unw_mapping *m;
	long i = -1;

	if (!sc || !pl)
		return -1;
	pl->pc = pc;
	pl->unwinder = UNW_UW_FP;
	if (proc) {
		i = find_mapping(proc, pc);
		if (i < 0)
			event_send(UNW_EV_NOT_COVERED, pid, pc);
	}
	if (proc && i >= 0) {
		m = &proc->maps[i & (UNW_MAPS_MAX - 1)];
		pl->exec_id = m->exec_id;
		pl->rel = pc - m->bias;
		pl->unwinder = m->unwinder;
		pl->gen = proc->gen;
		if (m->unwinder == UNW_UW_FP)
			err_inc(UNW_E_NO_TABLE);
		return 0;
	}
	if (vma_lookup(sc, pc, &pl->exec_id, &pl->rel) == 0) {
		pl->unwinder = UNW_UW_TABLE;
		return 0;
	}
	if (proc)
		err_inc(UNW_E_NOT_COVERED);
	return 0;
}

/* frame_place in the entry of pid, looked up here. */
__noinline int frame_place_of_pid(struct scratch *sc, __u32 pid, __u64 pc, struct frame_place *pl)
{
	return frame_place(bpf_map_lookup_elem(&procs, &pid), sc, pid, pc, pl);
}

/*
 * The place of pc in the walk's process: from the cache of lookups, else
 * from frame_place, in the process's entry, looked up there when the
 * sample did not look it up. It is not kept in the walk: a pointer the
 * callback writes makes its verification a third longer, and a second
 * lookup in one sample finds the entry's lines in the CPU's cache.
 */
static __always_inline void walk_place(struct walk *w, struct scratch *sc, __u64 pc,
				       struct frame_place *pl)
{
	if (w->has_proc) {
		sc->lookups++;
		if (pc_cache_find(w->gen, pc, pl)) {
			sc->lookups_cached++;
			return;
		}
		if (!w->proc) {
			frame_place_of_pid(sc, w->pid, pc, pl);
			return;
		}
	}
	frame_place(w->proc, sc, w->pid, pc, pl);
}

/*
 * The rule governing the pc of place pl, from the cache or from its table,
 * or NULL (with the reason counted); a rule looked up is kept in the cache.
 */
static __always_inline const struct unw_rule *place_rule(const struct frame_place *pl)
{
	const struct unw_rule *r;
	long rule;
	__u32 i;

	if (pl->cached)
		return &pl->rule;
	if (!pl->exec_id) {
		err_inc(UNW_E_NO_TABLE);
		return NULL;
	}
	if (pl->rel >> 32) {
		err_inc(UNW_E_NO_ROW);
		return NULL;
	}
	rule = exec_rule(pl->exec_id, pl->rel);
	if (rule < 0)
		return NULL;
	i = rule;
	r = bpf_map_lookup_elem(&rules, &i);
	if (r)
		pc_cache_put(pl, r);
	return r;
}

/*
 * The native step (bpf/unwind_step.h) of frame f with rule r (NULL: none),
 * flags the sample's. A global function: verified once, on its own, not at
 * every state of the walk that reaches it.
 */
__noinline int native_step(struct unw_frame *f, const struct unw_rule *r, struct scratch *sc,
			   __u32 *flags)
{
	if (!f || !sc || !flags)
		return 0;
	return unw_step_native(f, r, sc->start_stack, sc, flags);
}

/* A word of the profiled process at addr + off; 0 when it cannot be read. */
static __always_inline __u64 user_word(__u64 addr, __s64 off)
{
	__u64 v = 0;

	if (addr)
		bpf_probe_read_user(&v, sizeof(v), (void *)(addr + off));
	return v;
}

#include "unwind_go.h"

/* Appends word to the stack being built; -1 when it is full. */
static __always_inline int stack_push(struct scratch *sc, __u64 *hash, __u64 word)
{
	__u32 nr = sc->stack.nr;

	if (nr >= UNW_DEPTH_MAX)
		return -1;
	sc->stack.pcs[nr & (UNW_DEPTH_MAX - 1)] = word;
	sc->stack.nr = nr + 1;
	*hash = unw_hash__add(*hash, word);
	return 0;
}

/* The interpreters' unwinders, which write frames of their own */
#include "unwind_python.h"
#include "unwind_ruby.h"

/*
 * One frame of the walk: the frame is recorded, then the unwinder of its pc
 * steps to the caller. Adding an unwinder is its file here (bpf/unwind_*.h),
 * its case in this function, its id in bpf/unwprof.h and its entry in
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

	if (!sc)
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
static __always_inline __u64 ustack_put(void *map, __u64 h, const struct unw_ustack *st, int max)
{
	const struct unw_ustack *old = bpf_map_lookup_elem(map, &h);
	long err;

	if (!old) {
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
	if (key & UNW_USTACK_DEEP_KEY)
		return ustack_put(&ustacks_deep, key, &w->sc->stack, UNW_DEPTH_MAX);
	return ustack_put(&ustacks, key, &w->sc->stack, UNW_USTACK_SHORT);
}

/*
 * Counts the sample under key. The user stack is stored only when its
 * count is new since the last drain: a count under key->ustack exists only
 * once that stack was stored under it (a stack that could not be stored is
 * counted under 0), and user space keeps a copy of every stack it drains,
 * so most samples, which repeat a counted stack, are one lookup. Such a
 * sample's stack is not compared with the stored one: they could differ
 * only if two stacks of the run had one 64-bit hash.
 */
static __always_inline void count_add(struct unw_count_key *key, struct walk *w)
{
	struct unw_count *c, init = { .count = 1 };
	long err;

	c = bpf_map_lookup_elem(&counts, key);
	if (!c && key->ustack) {
		key->ustack = ustack_store(w, key->ustack);
		if (!key->ustack)
			c = bpf_map_lookup_elem(&counts, key);
	}
	if (c) {
		__sync_fetch_and_add(&c->count, 1);
		return;
	}
	bpf_get_current_comm(init.comm, sizeof(init.comm));
	err = bpf_map_update_elem(&counts, key, &init, BPF_NOEXIST);
	if (err == -EEXIST) { /* another CPU added it */
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
#define TASK_REGS(f, uregs)                         \
	do {                                        \
		(f)->pc = BPF_CORE_READ(uregs, ip); \
		(f)->sp = BPF_CORE_READ(uregs, sp); \
		(f)->fp = BPF_CORE_READ(uregs, bp); \
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
#define TASK_REGS(f, uregs)                               \
	do {                                              \
		(f)->pc = BPF_CORE_READ(uregs, pc);       \
		(f)->sp = BPF_CORE_READ(uregs, sp);       \
		(f)->fp = BPF_CORE_READ(uregs, regs[29]); \
		(f)->lr = BPF_CORE_READ(uregs, regs[30]); \
	} while (0)
#endif

/* The user registers of the sampled task: from the sample, or from the task. */
static __always_inline int user_regs(struct bpf_perf_event_data *ctx, struct unw_frame *f,
				     __u32 *flags)
{
	struct task_struct *task;
	struct pt_regs *uregs;

	if (CTX_USER_MODE(ctx)) {
		CTX_REGS(f, ctx);
		return 0;
	}
	*flags |= UNW_SAMPLE_KERNEL;
	task = bpf_get_current_task_btf();
	if (BPF_CORE_READ(task, flags) & PF_KTHREAD)
		return -1;
	if (!BPF_CORE_READ(task, mm))
		return -1;
	uregs = (struct pt_regs *)bpf_task_pt_regs(task);
	TASK_REGS(f, uregs);
	return 0;
}

/* Sets up the walk of the user stack from regs, of a process sample_wanted found: scratch, stack copy. */
static __always_inline void walk_start(struct walk *w, const struct unw_frame *regs)
{
	__u32 zero = 0;

	w->sc = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!w->sc)
		return;
	w->sc->stack.nr = 0;
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
		if (!cfg.fp_only && !(bpf_get_current_task_btf()->flags & PF_EXITING))
			event_send(UNW_EV_UNKNOWN_PROC, w->pid, 0);
	}
	w->f = *regs;
	w->hash = UNW_HASH_INIT;
	/* Loads through the task's BTF: no helper call, as BPF_CORE_READ would make. */
	w->sc->start_stack = bpf_get_current_task_btf()->mm->start_stack;
	stack_copy(w->sc, w->f.sp);
}

static __always_inline void walk_user(struct walk *w, const struct unw_frame *regs)
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
	key->ustack = ustack_key(w);
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
	if (w->sc && w->sc->py_written)
		stat_add(UNW_ST_PY_FRAMES, w->sc->py_written);
	if (w->sc && w->sc->rb_written)
		stat_add(UNW_ST_RB_FRAMES, w->sc->rb_written);
	if (w->sc && w->sc->lookups) {
		stat_add(UNW_ST_LOOKUPS, w->sc->lookups);
		stat_add(UNW_ST_LOOKUPS_CACHED, w->sc->lookups_cached);
	}
	count_add(key, w);
	sample_time_end(sample_t0(w));
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
	walk_set_proc(w, w->pid ? bpf_map_lookup_elem(&procs, &w->pid) : NULL);
	/* gen 0: an entry BPF is still writing. */
	sc->last_pid = w->gen ? w->pid : 0;
	sc->last_gen = w->gen;
	sc->last_written = written;
}

/*
 * Whether the sample of w->pid is of a profiled process; counts it, and
 * starts its errors and its time (t0: when its program started), when it
 * is. Outside -a, the process map holds targets only (user space writes
 * the entries of targets, BPF those of their children, and the exit
 * deletes both), so the process's entry, which the walk needs anyway,
 * answers for most samples, before the map of targets.
 */
static __always_inline int sample_wanted(struct walk *w, __u32 tid, __u64 t0)
{
	__u32 pid = w->pid, zero = 0;
	struct scratch *sc;

	if (pid == 0 && !cfg.system_wide)
		return 0;
	sc = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!sc)
		return 0;
	proc_find(sc, w);
	if (!cfg.system_wide && !w->has_proc && !bpf_map_lookup_elem(&targets, &pid))
		return 0;
	if (cfg.only_threads && !bpf_map_lookup_elem(&threads, &tid))
		return 0;
	stat_inc(UNW_ST_SAMPLES);
	sc->errs = 0;
	sc->cur_pc = 0;
	sc->t0 = t0;
	return 1;
}

/* The user registers of the sample into regs: 0, or -1 with the sample marked kernel-only. */
static __always_inline int sample_user_regs(struct bpf_perf_event_data *ctx, struct walk *w,
					    struct unw_frame *regs)
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
	__u64 t0 = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	struct unw_count_key key = { .pid = id >> 32, .tid = (__u32)id, .kstack = -1 };
	struct walk w = {};
	struct unw_frame regs = {};

	w.pid = key.pid;
	if (!sample_wanted(&w, key.tid, t0))
		return 0;
	if (sample_user_regs(ctx, &w, &regs) == 0)
		walk_user(&w, &regs);
	sample_finish(ctx, &key, &w);
	return 0;
}

static __always_inline void walk_save(struct scratch *sc, const struct walk *w, __u32 tid, __u32 n)
{
	struct walk_saved *s = &sc->saved;

	s->f = w->f;
	s->hash = w->hash;
	s->pid = w->pid;
	s->tid = tid;
	s->flags = w->flags;
	s->done = w->done;
	s->n = n;
}

static __always_inline void walk_restore(struct scratch *sc, struct walk *w)
{
	const struct walk_saved *s = &sc->saved;

	w->sc = sc;
	w->f = s->f;
	w->hash = s->hash;
	w->pid = s->pid;
	w->flags = s->flags;
	w->done = s->done;
	walk_set_proc(w, bpf_map_lookup_elem(&procs, &w->pid));
}

#define FRAMES_PER_PROG 32
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
	__u64 t0 = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	struct unw_count_key key = { .pid = id >> 32, .tid = (__u32)id, .kstack = -1 };
	struct walk w = {};
	struct unw_frame regs = {};

	w.pid = key.pid;
	if (!sample_wanted(&w, key.tid, t0))
		return 0;
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
	bpf_map_delete_elem(&go_procs, &pid);
	bpf_map_delete_elem(&py_procs, &pid);
	proc_add_exec(pid, p);
	/*
	 * Held at every exec, not only of code without a table: user space
	 * reads the new image's mappings before it runs, so a process that
	 * lives a few milliseconds (a compiler's cc1, as) is named too, not
	 * only walked.
	 */
	event_send_hold(UNW_EV_EXEC, pid, 0, 1);
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
	bpf_map_delete_elem(&go_procs, &pid);
	bpf_map_delete_elem(&py_procs, &pid);
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
	struct unw_go_proc *go;
	struct unw_py_proc *py;
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
	go = bpf_map_lookup_elem(&go_procs, &ppid);
	if (go)
		bpf_map_update_elem(&go_procs, &pid, go, BPF_NOEXIST);
	py = bpf_map_lookup_elem(&py_procs, &ppid);
	if (py)
		bpf_map_update_elem(&py_procs, &pid, py, BPF_NOEXIST);
	event_send_now(UNW_EV_FORK, pid, ppid);
	return 0;
}
