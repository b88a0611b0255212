/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The state of a walk of a user stack and the helpers every unwinder uses:
 * the per-CPU scratch (the stack being built, the copy of the stack top,
 * the frames a runtime wrote ahead), the reasons a sample met, reading the
 * stack and the process's memory, writing a frame, and the runtimes' code
 * seen. Global functions here are __weak, as the maps (bpf/maps.bpf.h): any
 * unit that walks includes this header, the linker keeps one copy.
 */
#ifndef UNWPROF_WALK_STATE_BPF_H
#define UNWPROF_WALK_STATE_BPF_H

#include "maps.bpf.h"
#include "events.bpf.h"
#include "vma.bpf.h"
#include "arch.h"
#include "kernel.h"
#include "ustack_ends.h"

/*
 * Runtimes' code (an interpreter's code objects) whose event was sent:
 * each is read once, while its process lives. One evicted is sent again,
 * which user space, having read it, ignores.
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
} codes_seen SEC(".maps") __weak;

/* Whether code (a runtime's, tag telling it apart) of pid is seen the first time: it is marked. */
static __always_inline int code_first_seen(__u32 pid, __u32 tag, __u64 code)
{
	struct code_key k = { .pid = pid, .tag = tag, .code = code };
	__u8 one = 1;

	if (bpf_map_lookup_elem(&codes_seen, &k))
		return 0;
	bpf_map_update_elem(&codes_seen, &k, &one, BPF_ANY);
	return 1;
}

/*
 * The walks that share nothing: a sample (bpf/sampler.bpf.c) can interrupt
 * the walk of an off-CPU block (bpf/offcpu.bpf.c) on its CPU, the one in a
 * timer interrupt, the other in a tracepoint of the thread's system call.
 * Each has its scratch, its key in every per-CPU map a walk writes.
 */
enum walk_family {
	WALK_ON_CPU = 0,
	WALK_OFF_CPU,
	WALK_FAMILIES,
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
	__u32 has_proc;	  /* the process has an entry: tables */
	__u32 gen;	  /* the entry's gen */
	__u32 n;	  /* frames walked */
	__u32 n0;	  /* frames walked when the frame loop began (walk_run) */
	__u32 stopped;	  /* the frame loop stopped before its bound */
	__u32 handoff;	  /* the runtime (enum unw_unwinder) frame n is handed over to; 0: none */
	__u32 native_at;  /* n + 1 of a frame its runtime handed back: walked natively; 0: none */
	__u32 frames_max; /* frames it may walk: UNW_WALK_MAX, or the CPU's budget (walk_budget) */
	__u32 walking;	  /* the walk of a user stack began (not a stack of exec, nor none) */
	__u32 plain;	  /* frames walk_plain walked since n0, past the loop's count */
};

/*
 * How a runtime's program hands the walk back to the native walk
 * (bpf/walk.bpf.h), which goes on from the state it saved.
 */
enum walk_resume {
	RESUME_NONE = 0, /* not handed back: a walk of its own, or one the native walk saved */
	RESUME_FRAME,	 /* frame n is walked natively, after the frames written ahead for it */
	RESUME_GO_ON, /* the runtime walked frame n (its word pushed, f the caller's, n past it) */
	RESUME_STOP,  /* the runtime walked frame n and the walk ends there */
};

/*
 * The state of a walk kept in the scratch across tail calls: the walk's
 * scalars, and what the sample is counted under, which the program that
 * ends the walk counts.
 */
struct walk_saved {
	struct unw_frame f;
	__u64 hash;
	__u32 pid, tid;
	__u32 flags;
	__u32 done;
	__u32 n;
	__u32 native_at;
	__u32 resume; /* enum walk_resume */
	__u32 frames_max;
	struct unw_count_key key; /* the count's: its pid, thread, kernel stack and flags */
	__u64 count;		  /* samples, or blocks (off-CPU) */
	__u64 ns;		  /* off-CPU: their time */
};

/*
 * The frames a runtime's program wrote ahead of the native walk, activation
 * by activation of its interpreter's loop, innermost first: the native walk
 * writes a segment before each frame of the loop it meets (ahead_write),
 * without going back to the runtime's program, so a stack of many
 * activations (an interpreter may run each call of its language in one) costs two
 * tail calls, not two an activation. Words past the segments are for the
 * runtime's next program run (more).
 */
#define AHEAD_WORDS 512
#define AHEAD_SEGS 128

struct frames_ahead {
	__u32 unwinder; /* whose frames (enum unw_unwinder); 0: none in this walk */
	__u32 nr_words;
	__u32 nr_segs;
	__u32 next; /* the segment the next frame of the loop gets */
	__u32 more; /* the runtime has activations past the segments: its program writes them */
	__u32 pad;
	__u16 seg_end[AHEAD_SEGS];    /* the word past each segment */
	__u16 seg_frames[AHEAD_SEGS]; /* the frames in each */
	__u64 words[AHEAD_WORDS];
};

_Static_assert((AHEAD_WORDS & (AHEAD_WORDS - 1)) == 0 && (AHEAD_SEGS & (AHEAD_SEGS - 1)) == 0,
	       "masked indexes");
_Static_assert(AHEAD_WORDS <= 0xffff, "segment ends fit their slots");

/*
 * The places of the pcs a CPU's walks found of late, a few, in the scratch
 * (bpf/native.bpf.h, walk_place): a recursion's frames repeat a few pcs,
 * which are found here before the cache of lookups, in memory the walk
 * touches anyway. As the cache of lookups, valid for one version (gen) of
 * a process's mappings.
 */
#define RECENT_PLACES 8

struct recent_place {
	__u64 pc;
	__u32 gen; /* 0: empty */
	__u32 unwinder;
	struct unw_rule rule;
};

static __always_inline __u32 recent_slot(__u64 pc)
{
	return (pc ^ (pc >> 5) ^ (pc >> 11)) & (RECENT_PLACES - 1);
}

/*
 * Tail calls a sample may make: the kernel's limit (MAX_TAIL_CALL_CNT).
 * A handover to a runtime and back takes two.
 */
#define UNW_TAIL_CALLS_MAX 33

/* Per-CPU scratch: the stack being built and the copy of the stack top. */
struct scratch {
	struct unw_ustack stack;
	__u64 sp0;	/* user address of copy[0] */
	__u64 copy_len; /* bytes copied */
	__u64 copy_max; /* bytes the copy may grow to (stack_grow) */
	struct walk_saved saved;
	/* The reasons this sample met (bit per enum unw_err), counted once each at its end. */
	__u64 errs;
	__u32 fail_reason; /* the last of them, at fail_pc */
	__u32 family;	   /* enum walk_family: the key of this scratch */
	__u64 fail_pc;
	__u64 t0;     /* when the sampling program started, for the sample's time */
	__u64 cur_pc; /* the pc of the frame being walked; 0 before the walk */
	/* The process this CPU last looked up, its entry's gen, and procs_written then. */
	__u32 last_pid;
	__u32 last_gen;
	__u64 last_written;
	__u32 costs;	/* what this sample paid for: a bit per enum unw_cost */
	__u32 last_tid; /* the thread this CPU last sampled, and its context switches then */
	__u64 last_switches;
	__u64 start_stack;   /* the process's initial sp (mm->start_stack) */
	__u64 va_mask;	     /* arm64: its user virtual address bits (bpf/arch.h) */
	struct vma_info vma; /* bpf_find_vma works once per sample: its answer is kept */
	__u32 vma_tried;
	__u32 lookups; /* frames looked up in the process's mappings (UNW_ST_LOOKUPS) */
	__u32 lookups_cached;
	__u32 tail_calls; /* made in this sample */
	/* This family's walks on this CPU: a runtime's state of another walk is stale. */
	__u64 walk_id;
	/* Frames of each runtime written (by unwinder), for its stats. */
	__u32 runtime_frames[UNW_UW_NR];
	struct frames_ahead ahead;
	struct recent_place recent[RECENT_PLACES];
	/* The CPU's budget of frames (walk_budget): left (less than 0: spent), when last filled. */
	__s64 budget;
	__u64 budget_at;
	/* The sp of the frame being walked: a window of the stack past the copy starts there. */
	__u64 cur_sp;
	/* The new program's name, of a sample inside execve (exec_stack). */
	char exec_comm[UNW_COMM_LEN];
	/* The last word pushed began a frame of two (unw_ustack__push). */
	__u8 stack_opens;
	__u8 pad[7]; /* the copy is read by the word */
	/* Twice the copy: a read that grows it is bounded by its start and its length. */
	__u8 copy[2 * UNW_STACK_COPY];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WALK_FAMILIES);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps") __weak;

/* This CPU's scratch of family (enum walk_family), its family set. */
static __always_inline struct scratch *scratch_of(__u32 family)
{
	struct scratch *sc = bpf_map_lookup_elem(&scratch_map, &family);

	if (sc)
		sc->family = family;
	return sc;
}

/*
 * The sample met reason: counted once per sample at its end (errors_flush),
 * however many frames meet it; the last one is kept with its pc, which is
 * where a walk that stops stopped, so the summary can name the file where
 * samples fail. A global function: verified once, not at each of the many
 * places of the walk that call it.
 */
__weak __noinline int err_inc(struct scratch *sc, __u32 reason)
{
	if (!sc)
		return 0;
	sc->fail_reason = reason;
	sc->fail_pc = sc->cur_pc;
	sc->errs |= 1ULL << (reason & 63);
	return 0;
}

/* Reasons that say nothing about a user stack: no site to name. */
#define ERRS_NO_SITE (1ULL << UNW_E_NO_USER | 1ULL << UNW_E_KSTACK)

/*
 * At the end of sample pid: each reason it met counted once, and, when the
 * walk did not reach the bottom, where it stopped. The loop over the reasons
 * is unrolled: the verifier of Linux 6.1 (Debian 12's) takes a loop the
 * compiler enters in its middle, whose back edge is then an instruction
 * falling through, for an unbounded one.
 */
static __always_inline void errors_flush(struct scratch *sc, __u32 pid, __u32 flags)
{
	struct unw_fail_key k = { .pid = pid };
	struct unw_tally *t = tally_here();
	__u64 one = 1, *n;

	if (!sc || !sc->errs)
		return;
#pragma unroll
	for (int i = 0; i < UNW_E_NR; i++)
		if (t && (sc->errs & (1ULL << i)))
			t->errors[i]++;
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
	if (have)
		sc->costs |= 1u << UNW_COST_STACK_GROW;
	sc->copy_len = have + n;
	return 0;
}

/*
 * A window of the user stack from sp: it may grow to UNW_STACK_COPY bytes,
 * ending on a page boundary, and not past the end of the main thread's
 * stack mapping (the page holding the environment strings) when sp is in
 * it: a read that runs into unmapped memory fails whole, and costs more
 * than the copy. Its first bytes are copied at once, the rest as the walk
 * reads them (stack_grow); when they cannot be read, the rest of sp's page
 * is tried. 0, or -1 when nothing could be read.
 */
static __always_inline int stack_window(struct scratch *sc, __u64 sp, __u64 first)
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
	if (stack_grow(sc, len < first ? len : first) == 0)
		return 0;
	sc->copy_max = page - (sp & (page - 1));
	if (sc->copy_max > len)
		sc->copy_max = len;
	return stack_grow(sc, sc->copy_max);
}

/* Starts the copy of the top of the user stack, at sp: a window (stack_window). */
static __always_inline void stack_copy(struct scratch *sc, __u64 sp)
{
	if (stack_window(sc, sp, UNW_STACK_FIRST))
		err_inc(sc, UNW_E_STACK_COPY);
}

/*
 * The window of the stack moved up past the copy, to addr: a deep stack is
 * read a window at a time, a few reads of a few KiB for hundreds of frames,
 * not a read each word (a read costs about the same for 8 bytes as for 1
 * KiB), each window copied whole at once, as a walk this deep reads it all.
 * It starts at the sp of the frame being walked, whose reads lie above it,
 * unless addr is below that. 0, or -1 when it could not be read:
 * no window then, every read past the copy on its own.
 */
static __always_inline int stack_slide(struct scratch *sc, __u64 addr)
{
	__u64 base = sc->cur_sp && sc->cur_sp <= addr ? sc->cur_sp : addr;

	sc->costs |= 1u << UNW_COST_STACK_GROW;
	if (stack_window(sc, base & ~7ULL, UNW_STACK_COPY) == 0)
		return 0;
	sc->sp0 = ~0ULL;
	sc->copy_len = 0;
	sc->copy_max = 0;
	return -1;
}

/*
 * A word of the user stack: from the copy when it holds it (grown when it
 * may, moved up when the walk went past it), else read.
 */
static __always_inline int stack_read(struct scratch *sc, __u64 addr, __u64 *val)
{
	__u64 off = addr - sc->sp0;

	if (addr >= sc->sp0 && off + 8 > sc->copy_len && off + 8 <= sc->copy_max)
		stack_grow(sc, off + 8);
	else if (addr >= sc->sp0 && off + 8 > sc->copy_max && sc->copy_len == sc->copy_max &&
		 sc->copy_max && stack_slide(sc, addr) == 0)
		off = addr - sc->sp0;
	if (addr >= sc->sp0 && off + 8 <= sc->copy_len) {
		*val = *(__u64 *)&sc->copy[off & (UNW_STACK_COPY - 1)];
		return 0;
	}
	return bpf_probe_read_user(val, sizeof(*val), (void *)addr);
}

/*
 * The sampled thread's thread pointer, from which its TLS is found: the fs
 * base on x86_64, TPIDR_EL0 on aarch64. In glibc and musl, pthread_self()
 * is the thread pointer on x86_64 (TLS variant 2: the TCB is struct
 * pthread, above the TLS blocks) and just below it on aarch64 (variant 1:
 * the TLS blocks above a TCB of two words, which struct pthread precedes).
 */
static __always_inline __u64 thread_pointer(void)
{
#if UNW_ARCH_AARCH64
	return BPF_CORE_READ(bpf_get_current_task_btf(), thread.uw.tp_value);
#else
	return BPF_CORE_READ(bpf_get_current_task_btf(), thread.fsbase);
#endif
}

/* Where the thread's DTV is: the thread pointer's word 1 on x86_64 (after the TCB's self), 0 on aarch64. */
#define TP_DTV (UNW_ARCH_AARCH64 ? 0 : 8)

/* The most bytes struct pthread takes below the thread pointer on aarch64 (glibc's 1.8 KiB). */
#define PTHREAD_BELOW_TP_MAX 4096

/* Whether pthread_t self is the thread's whose thread pointer is tp (thread_pointer). */
static __always_inline int pthread_is_thread(__u64 self, __u64 tp)
{
	if (UNW_ARCH_AARCH64)
		return self && self < tp && tp - self <= PTHREAD_BELOW_TP_MAX;
	return self && self == tp;
}

/* A word of the profiled process at addr + off; 0 when it cannot be read. */
static __always_inline __u64 user_word(__u64 addr, __s64 off)
{
	__u64 v = 0;

	if (addr)
		bpf_probe_read_user(&v, sizeof(v), (void *)(addr + off));
	return v;
}

/*
 * Appends word to the stack being built: deeper than a stored stack, its
 * middle words go (bpf/ustack_ends.h). -1 when it is full. A global
 * function: its branches, for the ends of a deep stack, are verified once,
 * not at every frame of every unwinder.
 */
__weak __noinline int stack_push_word(struct scratch *sc, __u64 word)
{
	if (!sc)
		return -1;
	return unw_ustack__push(&sc->stack, &sc->stack_opens, word);
}

/* Appends word to the stack being built, whose hash is of every word pushed; -1 when it is full. */
static __always_inline int stack_push(struct scratch *sc, __u64 *hash, __u64 word)
{
	if (stack_push_word(sc, word))
		return -1;
	*hash = unw_hash__add(*hash, word);
	return 0;
}

/*
 * A runtime's program writes its frames ahead (struct frames_ahead): from
 * ahead_begin, words pushed segment by segment, each closed with its
 * frames. -1 when there is no room for the word or the segment.
 */
static __always_inline void ahead_begin(struct scratch *sc, __u32 unwinder)
{
	sc->ahead.unwinder = unwinder;
	sc->ahead.nr_words = 0;
	sc->ahead.nr_segs = 0;
	sc->ahead.next = 0;
	sc->ahead.more = 0;
}

static __always_inline int ahead_push(struct scratch *sc, __u64 word)
{
	__u32 i = sc->ahead.nr_words;

	if (i >= AHEAD_WORDS)
		return -1;
	sc->ahead.words[i & (AHEAD_WORDS - 1)] = word;
	sc->ahead.nr_words = i + 1;
	return 0;
}

static __always_inline int ahead_close(struct scratch *sc, __u32 frames)
{
	__u32 i = sc->ahead.nr_segs;

	if (i >= AHEAD_SEGS)
		return -1;
	sc->ahead.seg_end[i & (AHEAD_SEGS - 1)] = sc->ahead.nr_words;
	sc->ahead.seg_frames[i & (AHEAD_SEGS - 1)] = frames;
	sc->ahead.nr_segs = i + 1;
	return 0;
}

/* Whether no segment fits after those written. */
static __always_inline int ahead_full(const struct scratch *sc)
{
	return sc->ahead.nr_segs >= AHEAD_SEGS || sc->ahead.nr_words >= AHEAD_WORDS;
}

/* The words of the segment begun at word start of the ahead are dropped, and their frames. */
static __always_inline void ahead_drop(struct scratch *sc, __u32 start)
{
	sc->ahead.nr_words = start;
}

/*
 * Pushes the next segment of the frames written ahead onto the stack being
 * built, whose hash is hash, and counts its frames as its runtime's. A
 * global function: its loop is verified once. -1 when the stack is full.
 */
__weak __noinline int ahead_write(struct scratch *sc, __u64 *hash)
{
	__u32 seg, from, to, u;

	if (!sc || !hash)
		return 0;
	seg = sc->ahead.next;
	if (seg >= sc->ahead.nr_segs || seg >= AHEAD_SEGS)
		return 0;
	sc->ahead.next = seg + 1;
	from = seg ? sc->ahead.seg_end[(seg - 1) & (AHEAD_SEGS - 1)] : 0;
	to = sc->ahead.seg_end[seg & (AHEAD_SEGS - 1)];
	u = sc->ahead.unwinder;
	if (u < UNW_UW_NR)
		sc->runtime_frames[u] += sc->ahead.seg_frames[seg & (AHEAD_SEGS - 1)];
	for (__u32 i = 0; i < AHEAD_WORDS; i++) {
		if (from + i >= to)
			break;
		if (stack_push(sc, hash, sc->ahead.words[(from + i) & (AHEAD_WORDS - 1)]))
			return -1;
	}
	return 0;
}

#endif
