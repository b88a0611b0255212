/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one header shared by the BPF programs and user space: every struct that
 * crosses the boundary and every limit both sides use. Only fixed-width kernel
 * types (__u8..__u64, __s16..__s64) appear here, so the layout is the same on
 * both sides; _Static_assert pins the sizes.
 */
#ifndef UNWPROF_ABI_H
#define UNWPROF_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/*
 * How to find the canonical frame address (CFA) from the registers of a frame.
 * UNW_CFA_SIGNAL is a signal frame (x86_64: a CIE with the 'S' augmentation,
 * glibc's __restore_rt; aarch64: the vDSO's __kernel_rt_sigreturn, whose
 * rows core/unwind/code_a64.c makes): the kernel saved the interrupted
 * registers at sp, the CFA is the interrupted sp, fp and ra are UNW_FP_AT_SP
 * and UNW_RA_AT_SP (on aarch64 x30 follows fp). The caller was interrupted,
 * not calling: its pc is looked up as is, not pc - 1.
 */
enum unw_cfa_rule {
	UNW_CFA_END = 0,     /* no unwind info from this pc on: a gap after a function */
	UNW_CFA_SP,	     /* CFA = sp + cfa_off (rsp on x86_64, sp on aarch64) */
	UNW_CFA_FP,	     /* CFA = fp + cfa_off (rbp on x86_64, x29 on aarch64) */
	UNW_CFA_PLT,	     /* x86_64 PLT: rsp + cfa_off + ((rip & 15) >= aux_off ? 8 : 0) */
	UNW_CFA_DEREF_SP,    /* CFA = *(sp + cfa_off) + aux_off */
	UNW_CFA_DEREF_FP,    /* CFA = *(fp + cfa_off) + aux_off (gcc's stack realignment) */
	UNW_CFA_SIGNAL,	     /* signal frame: CFA = *(sp + cfa_off) */
	UNW_CFA_UNSUPPORTED, /* the unwinder cannot follow it; see reason */
};

/* How to recover the caller's frame pointer (rbp / x29). */
enum unw_fp_rule {
	UNW_FP_UNCHANGED = 0, /* the caller's fp is the current fp */
	UNW_FP_AT_CFA,	      /* saved at CFA + fp_off */
	UNW_FP_AT_FP,	      /* saved at fp + fp_off (gcc's stack realignment) */
	UNW_FP_AT_SP,	      /* saved at sp + fp_off (signal frames) */
	UNW_FP_UNSUPPORTED,   /* the unwinder cannot follow it; see reason */
};

/* How to recover the return address. */
enum unw_ra_rule {
	UNW_RA_AT_CFA = 0,  /* x86_64: saved at CFA - 8; aarch64: at CFA + aux_off */
	UNW_RA_UNDEFINED,   /* bottom of the stack: the walk ends here */
	UNW_RA_LR,	    /* aarch64: still in the link register (x30) */
	UNW_RA_AT_SP,	    /* signal frames: the interrupted pc, saved at sp + aux_off */
	UNW_RA_UNSUPPORTED, /* the unwinder cannot follow it; see reason */
};

/* Why a row is unsupported. Kept in the table so nothing is silently approximated. */
enum unw_reason {
	UNW_R_NONE = 0,
	UNW_R_CFA_REGISTER,   /* CFA based on a register other than sp or fp */
	UNW_R_CFA_EXPRESSION, /* a CFA expression of a shape the unwinder does not know */
	UNW_R_CFA_OFFSET,     /* a CFA offset that does not fit the row */
	UNW_R_FP_RULE,	      /* fp saved in a register, as a value, or by an expression */
	UNW_R_FP_OFFSET,      /* an fp save offset that does not fit the row */
	UNW_R_RA_RULE,	      /* return address not where the ABI puts it */
	UNW_R_RA_OFFSET,      /* aarch64: an LR save offset that does not fit the row */
	UNW_R_RULES_FULL,     /* BPF's rule map was full (never in a table, only in the map) */
	UNW_R_GO_SP_WRITE,    /* a Go function that switches stacks: its SP deltas do not hold */
	UNW_R_NR,
};

/*
 * The unwind tables in the BPF maps. A table's pcs are offsets from its base
 * ELF virtual address (a table spans at most 4 GiB), cut into pages of
 * UNW_PAGE_BYTES. Each distinct rule is stored once for the whole run in
 * the rule map; a row is 4 bytes, its pc inside its page and the index of
 * its rule:
 *
 *	row = (pc & (UNW_PAGE_BYTES - 1)) << 16 | rule
 *
 * so that, for a pc at offset off of its page, the row governing it is the
 * last row of the page <= off << 16 | 0xffff: one comparison of words. The
 * rows of one page are consecutive in one shard; the page map says where
 * (struct unw_page), and a table's pages are consecutive there
 * (struct unw_exec): from a pc to its page is arithmetic, and the search is
 * bounded by the rows of one page.
 */
#define UNW_PAGE_SHIFT 16
#define UNW_PAGE_BYTES (1u << UNW_PAGE_SHIFT)
#define UNW_ROW_RULE_BITS 16

/*
 * A rule of the rule map: how a frame's caller is recovered from it. Every
 * offset has 32 bits: an aarch64 frame of more than 32 KiB saves x29 and x30
 * that far below its CFA. 16 bytes, a multiple of the 8 that array map
 * values are aligned to.
 */
struct unw_rule {
	__s32 cfa_off;
	__s32 fp_off;
	__s32 aux_off; /* x86_64: M in *(REG+N)+M, the PLT threshold, the pc of a signal frame
			* at sp+aux_off; aarch64: LR at CFA+aux_off */
	__u8 cfa;      /* enum unw_cfa_rule */
	__u8 fp;       /* enum unw_fp_rule */
	__u8 ra;       /* enum unw_ra_rule */
	__u8 reason;   /* enum unw_reason, set when any rule is unsupported */
};

/*
 * Rules the rule map holds: about 3,600 distinct ones govern every row of the
 * 350 largest ELF files of a Debian system. Index 0 is no rule (a value of
 * the maps left zero means none); rule 1 says the map was full when a row
 * needed a place (UNW_R_RULES_FULL: frame pointers there, counted).
 */
#define UNW_RULES_MAX (1u << 14)
#define UNW_RULE_NONE 0
#define UNW_RULE_FULL 1

/*
 * Where the rows of one page are: rows [row, row + nr) of the run, row
 * counted across shards (shard = row / UNW_SHARD_ROWS). rule governs the
 * page's pcs before its first row: the rule of the last row of an earlier
 * page, UNW_RULE_NONE before the table's first row.
 */
struct unw_page {
	__u32 row;
	__u16 nr;
	__u16 rule;
};

/*
 * Value of the executable map, indexed by executable id (0: none): the
 * table's pages are pages [page, page + nr_pages) of the page map, the
 * first one being table page first_page (table pc >> UNW_PAGE_SHIFT).
 * Past its last page, rule last_rule governs (UNW_RULE_NONE when rows were
 * left out there: frame pointers).
 */
struct unw_exec {
	__u32 page;
	__u32 nr_pages;
	__u32 first_page;
	__u16 last_rule;
	__u16 pad;
};

/*
 * Limits shared by both sides. Rows live in shards: the inner maps of an
 * array of maps, each an array of 8-byte values holding two rows
 * (mmapable, filled from user space through mmap, created as tables need
 * them).
 */
#define UNW_SHARD_ROWS (1u << 18) /* rows per shard: 1 MiB */
#define UNW_SHARD_VALUES (UNW_SHARD_ROWS / 2)
#define UNW_PAGE_STEPS 17	 /* binary search steps over the rows of a page */
#define UNW_PAGES_MAX (1u << 16) /* pages of the page map: 4 GiB of code */
#define UNW_MAPS_MAX 256	 /* executable mappings per process */
#define UNW_DEPTH_MAX 1024	 /* words of a user stack stored */
#define UNW_USTACK_SHORT 128	 /* frames of the stacks kept in the map of short stacks */
#define UNW_KSTACK_DEPTH 127	 /* kernel frames per sample */
#define UNW_STACK_COPY 8192	 /* bytes of user stack copied, at most */
#define UNW_STACK_FIRST 1024	 /* bytes of it copied first */
#define UNW_COMM_LEN 16

/*
 * A walk goes on past UNW_DEPTH_MAX words, up to UNW_WALK_MAX frames and,
 * once past UNW_DEPTH_MAX frames, for UNW_WALK_NS more at most: of a deeper
 * stack the UNW_STACK_LEAF words nearest the leaf are kept, and the last
 * ones walked in the rest, with a frame of kind UNW_FRAME_ELIDED between
 * them (struct unw_ustack).
 */
#define UNW_WALK_MAX 32768
#define UNW_WALK_NS 2000000ULL
#define UNW_STACK_LEAF 512

_Static_assert((UNW_SHARD_ROWS & (UNW_SHARD_ROWS - 1)) == 0, "masked shard indexes");
_Static_assert((1u << (UNW_PAGE_STEPS - 1)) >= UNW_PAGE_BYTES, "page search bound");
_Static_assert(UNW_SHARD_ROWS >= UNW_PAGE_BYTES, "a page's rows fit a shard");
_Static_assert((UNW_DEPTH_MAX & (UNW_DEPTH_MAX - 1)) == 0, "masked frame indexes");
_Static_assert(UNW_USTACK_SHORT <= UNW_DEPTH_MAX, "short stacks");
_Static_assert(UNW_STACK_LEAF * 2 == UNW_DEPTH_MAX, "the two ends of a deep stack: masked ring");
_Static_assert(UNW_WALK_MAX >= 16384 && UNW_WALK_MAX <= (1 << 23), "bpf_loop's bound");
_Static_assert((UNW_STACK_COPY & (UNW_STACK_COPY - 1)) == 0, "masked stack copy length");
_Static_assert(UNW_STACK_FIRST <= UNW_STACK_COPY, "first stack copy");
_Static_assert(UNW_RULES_MAX <= 1u << UNW_ROW_RULE_BITS, "rule indexes fit a row");

/*
 * Which unwinder steps from a frame whose pc is in a mapping: the BPF walk
 * dispatches on it frame by frame (walk_frame), user space chooses it when
 * it publishes the mapping. An unwinder is one id here, one case in the
 * walk and the user-space code that decides where it applies.
 */
enum unw_unwinder {
	UNW_UW_FP = 0, /* frame pointers: no table (JIT code, a file without CFI, [vsyscall]) */
	UNW_UW_TABLE,  /* the DWARF-derived table of exec_id, at table pc = pc - bias */
	/*
	 * Go's runtime.systemstack, runtime.morestack and runtime.mcall
	 * (core/runtimes/goruntime.h): on the system stack, the walk goes on
	 * from the goroutine's saved state, or from the base of the system
	 * stack (struct unw_go_proc); elsewhere, as UNW_UW_TABLE, or UNW_UW_FP
	 * when exec_id is 0. The vDSO's callers time.now and
	 * runtime.nanotime1: while in the vDSO, from their caller's state in m.
	 */
	UNW_UW_GO_SWITCH,
	/*
	 * CPython's _PyEval_EvalFrameDefault: the Python frames the activation
	 * runs are written before it (struct unw_py_proc), then it is stepped
	 * as UNW_UW_TABLE (or UNW_UW_FP when exec_id is 0).
	 */
	UNW_UW_PYTHON,
	/*
	 * Ruby's rb_vm_exec: the Ruby frames the activation runs are written
	 * before it (struct unw_rb_proc), then it is stepped as UNW_UW_TABLE
	 * (or UNW_UW_FP when exec_id is 0).
	 */
	UNW_UW_RUBY,
	UNW_UW_NR,
};

struct unw_mapping {
	__u64 start;
	__u64 end;
	__u64 bias;    /* table pc = pc - bias */
	__u32 exec_id; /* the table of UNW_UW_TABLE; 0: none */
	__u8 unwinder; /* enum unw_unwinder */
	__u8 pad[3];
};

/*
 * A range of pcs inside a mapping with an unwinder of its own (an
 * interpreter's loop, a runtime's stack switch) is a mapping of its own in
 * the process info, cut out of the one it lies in.
 */

/*
 * Value of the Go map, keyed by pid: how the Go unwinder finds the state Go
 * saved for the goroutine a thread's system stack works for. Offsets are
 * those of core/runtimes/goruntime.h; addresses are the process's.
 */
struct unw_go_proc {
	__u64 morestack_lo; /* [lo, hi): runtime.morestack, runtime.mcall; the rest, systemstack */
	__u64 morestack_hi;
	__u64 mcall_lo;
	__u64 mcall_hi;
	__u64 now_lo; /* the vDSO's callers, time.now and runtime.nanotime1; hi 0: none */
	__u64 now_hi;
	__u64 nanotime_lo;
	__u64 nanotime_hi;
	__s32 tls_g;
	__u32 g_m;
	__u32 m_g0;
	__u32 m_curg;
	__u32 sched_sp;
	__u32 sched_pc;
	__u32 sched_bp;
	__u32 m_vdso_pc; /* m.vdsoPC and m.vdsoSP; 0: no vDSO switch */
	__u32 m_vdso_sp;
	__u32 pad;
};

/* How the first frame of one _PyEval_EvalFrameDefault activation is known. */
enum unw_py_entry {
	UNW_PY_ENTRY_EACH = 0, /* before 3.11: each activation runs one frame */
	UNW_PY_ENTRY_FLAG,     /* 3.11: the frame's is_entry byte (at frame_owner) is set */
	/*
	 * 3.12+: a shim frame whose owner is owner_cstack ends it (3.12, 3.13
	 * FRAME_OWNED_BY_CSTACK, 3.14+ FRAME_OWNED_BY_INTERPRETER, both 3); a
	 * frame of a higher owner (3.14's FRAME_OWNED_BY_CSTACK) runs no code:
	 * it is left out.
	 */
	UNW_PY_ENTRY_SHIM,
};

/*
 * Value of the Python map, keyed by pid: how the Python unwinder finds the
 * current frame of the sampled thread and walks its frames. Offsets are
 * those of the interpreter's version (core/runtimes/pyruntime.h); runtime is the
 * process's address of _PyRuntime. The thread is found by its pthread_t,
 * which glibc makes the thread's TCB, the fs base on x86_64.
 */
struct unw_py_proc {
	__u64 runtime;
	__u32 interp_head;  /* _PyRuntime.interpreters.head */
	__u32 threads_head; /* PyInterpreterState.threads.head */
	__u32 tstate_next;
	__u32 tstate_thread_id;
	__u32 tstate_frame;   /* ->frame (< 3.11), ->cframe (3.11, 3.12), ->current_frame (3.13+) */
	__s32 cframe_frame;   /* _PyCFrame.current_frame; -1: tstate_frame is the frame */
	__u32 frame_code;     /* f_code, f_executable */
	__u32 frame_previous; /* f_back, previous */
	__u32 frame_instr;    /* f_lasti (int), prev_instr, instr_ptr */
	__u32 frame_owner;    /* is_entry (3.11), owner (3.12+) */
	__u8 entry;	      /* enum unw_py_entry */
	__u8 instr_is_index;  /* frame_instr is f_lasti, a 32-bit index, not a pointer */
	__u8 owner_cstack;    /* the owner of a shim frame */
	__u8 frame_len;	      /* bytes of a frame holding every field read: 8 past the last */
	__u16 code_id;	      /* offset of a code object's co_filename: its tag (UNW_PY_TAG) */
	/* What struct unw_py_code_event copies of a code object: */
	__u16 code_len;	  /* bytes of a code object holding every field named: 8 past the last */
	__u16 code_name;  /* co_qualname, or co_name before 3.11 */
	__u16 code_table; /* co_linetable, or co_lnotab before 3.10: a bytes object */
	__u16 str_length; /* a str object's length (of its compact ASCII data) */
	__u16 str_data;	  /* its compact ASCII data */
	__u16 bytes_data; /* a bytes object's data; its size is at UNW_PY_VAR_SIZE */
	/*
	 * An interpreter whose frames are not read (a version or build not
	 * known, core/runtimes/pyruntime.h): its eval loop's samples count
	 * UNW_E_PY_VERSION and are walked as native code; nothing else is set.
	 */
	__u8 refused;
	__u8 pad[5];
};

/* PyVarObject.ob_size, in every version. */
#define UNW_PY_VAR_SIZE 16

/*
 * A Python frame's second word carries, in its top 16 bits, a tag of its
 * code object (bits of its co_filename pointer), so that another code
 * object later at the same address is known apart: memory of a freed one
 * is soon reused by the next one compiled.
 */
#define UNW_PY_TAG_SHIFT 48
#define UNW_PY_TAG(ptr) ((((ptr) >> 4) ^ ((ptr) >> 20) ^ ((ptr) >> 36)) & 0xffff)

/*
 * Value of the Ruby map, keyed by pid: how the Ruby unwinder finds the
 * sampled thread's execution context (core/runtimes/rbruntime.h: through its DTV,
 * the module id in the GOT slot ec_module_got) and walks its control
 * frames. Addresses are the process's.
 */
struct unw_rb_proc {
	__u64 ec_module_got;
	__u32 ec_offset; /* ruby_current_ec in its module's TLS block */
	__u16 ec_vm_stack;
	__u16 ec_vm_stack_size;
	__u16 ec_cfp;
	__u16 cfp_size;
	__u16 cfp_pc;
	__u16 cfp_iseq;
	__u16 cfp_ep;
	__u16 iseq_body; /* an iseq's body: its tag */
	__u16 me_def;	 /* a method entry's definition: its tag */
	__u8 refused;	 /* a version not read: UNW_E_RB_VERSION, as unw_py_proc's */
	__u8 pad;
};

/*
 * A Ruby frame's second word: its pc (the low 48 bits; 0 for a C method),
 * UNW_RB_TAG of its iseq's body (a C method's definition) above, so that
 * another iseq later in the same slot is known apart, and UNW_RB_CFUNC.
 */
#define UNW_RB_CFUNC (1ULL << 63)
#define UNW_RB_TAG_SHIFT 48
#define UNW_RB_TAG(ptr) (UNW_PY_TAG(ptr) & 0x7fff)

/*
 * Value of the process map, keyed by pid (tgid). gen names this version of
 * the mappings: every write of an entry gives it a gen no entry had before
 * in the run (user space's even, BPF's odd), and 0 is none. The walk's
 * per-CPU cache of lookups (bpf/native.bpf.h) is keyed by gen and pc, so
 * what it holds is valid exactly while the mappings it came from are.
 */
struct unw_proc {
	__u32 nr_maps;
	__u32 gen;
	struct unw_mapping maps[UNW_MAPS_MAX]; /* sorted by start, disjoint */
};

/*
 * The file map: what BPF needs to walk a pc of a mapped file it finds with
 * bpf_find_vma, before user space has read the process's mappings (a new
 * process, an exec, a dlopen). Keyed by the file's device (kernel dev_t
 * encoding: major << 20 | minor) and inode, as /proc/PID/maps shows them.
 */
struct unw_file_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

/*
 * An executable PT_LOAD segment of a file: where its bytes are in the file
 * and at which ELF virtual address. A file has up to UNW_FILE_SEGS of them
 * (BOLT-processed libraries have two); any beyond are not walked.
 */
struct unw_seg {
	__u64 vaddr;
	__u64 offset;
	__u64 filesz;
};

#define UNW_FILE_SEGS 4

struct unw_file {
	__u32 exec_id;
	__u32 nr_segs;
	__u64 base; /* the table's base ELF virtual address */
	struct unw_seg segs[UNW_FILE_SEGS];
};

/* Key of the count map: the in-kernel aggregation of samples. */
struct unw_count_key {
	__u32 pid;
	__u32 tid;
	__u64 ustack; /* key in the user stack map; 0: no user stack */
	__s32 kstack; /* id in the kernel stack map; < 0: none */
	__u32 flags;  /* UNW_SAMPLE_* */
};

struct unw_count {
	__u64 count;
	__u64 ns;		 /* off-CPU: the nanoseconds the blocks counted lasted; 0 on-CPU */
	__u8 comm[UNW_COMM_LEN]; /* recorded when the key was first seen */
};

/*
 * A user stack is a sequence of words, leaf first, each frame one word or
 * more. The top byte of a frame's first word is its kind, the rest its
 * value. A native frame is one word, its pc: user addresses are below 2^56
 * on both architectures, so its kind is 0 and the word is the pc as is. An
 * interpreter's frame is its kind's number of words, which user space's
 * part of that unwinder names.
 */
#define UNW_FRAME_KIND_SHIFT 56
#define UNW_FRAME_VALUE_MASK ((1ULL << UNW_FRAME_KIND_SHIFT) - 1)

enum unw_frame_kind {
	UNW_FRAME_NATIVE = 0, /* 1 word: the pc */
	/*
	 * 2 words: the code object's address, then where its frame is: the
	 * instruction pointer (3.11+), or the index of the last instruction
	 * (f_lasti, before).
	 */
	UNW_FRAME_PYTHON,
	/*
	 * 2 words: the frame's iseq, then its pc; for a C method's frame, its
	 * method entry, then UNW_RB_CFUNC.
	 */
	UNW_FRAME_RUBY,
	/*
	 * 1 word: the frames a walk deeper than UNW_DEPTH_MAX words left out
	 * between the two ends it kept (UNW_SAMPLE_ELIDED).
	 */
	UNW_FRAME_ELIDED,
	/*
	 * 1 word, a stack's only one: a task inside execve past its point of
	 * no return (UNW_SAMPLE_EXEC), whose old user stack is gone; the value
	 * is the new program's inode, which tells one program's exec from
	 * another's.
	 */
	UNW_FRAME_EXEC,
	UNW_FRAME_KIND_NR,
};

#define UNW_FRAME_WORD(kind, value) \
	((__u64)(kind) << UNW_FRAME_KIND_SHIFT | ((value)&UNW_FRAME_VALUE_MASK))

/*
 * A user stack, keyed by a hash of its words (all those walked, elided ones
 * too: equal hashes are equal stacks). Most stacks are short: those
 * of up to UNW_USTACK_SHORT words are kept in a map of short values (the
 * first bytes of this struct), deeper ones in a smaller map of whole ones.
 * The lowest bit of the key tells which: 0 short, 1 deep.
 */
struct unw_ustack {
	/* Words walked: more than UNW_DEPTH_MAX keeps both ends (bpf/ustack_ends.h). */
	__u32 nr;
	__u32 frames;		  /* frames walked, and UNW_USTACK_RING_SPLIT */
	__u64 pcs[UNW_DEPTH_MAX]; /* the frames' words, leaf first */
};

/* In unw_ustack.frames: the oldest word of a deep stack's ring is the second of a frame. */
#define UNW_USTACK_RING_SPLIT (1u << 31)

#define UNW_USTACK_SHORT_SIZE (8 + 8 * UNW_USTACK_SHORT)
#define UNW_USTACK_DEEP_KEY 1ULL

enum unw_sample_flags {
	UNW_SAMPLE_COMPLETE = 1 << 0, /* walked to the bottom of the stack */
	UNW_SAMPLE_FP = 1 << 1,	      /* at least one frame from frame pointers */
	/* Not walked to the bottom within UNW_WALK_MAX frames and UNW_WALK_NS. */
	UNW_SAMPLE_TRUNCATED = 1 << 2,
	UNW_SAMPLE_KERNEL = 1 << 3, /* taken in kernel mode */
	/*
	 * Off-CPU (bpf/offcpu.bpf.c): the time a thread was blocked, its stack
	 * walked when it ran again; its count is of blocks, its ns of time.
	 */
	UNW_SAMPLE_OFF_CPU = 1 << 4,
	UNW_SAMPLE_STATE_D = 1 << 5,  /* blocked uninterruptibly (D); else sleeping (S) */
	UNW_SAMPLE_UNWALKED = 1 << 6, /* blocks not walked (short, or over the cap): no stack */
	UNW_SAMPLE_ELIDED = 1 << 7,   /* deeper than UNW_DEPTH_MAX words: both ends kept */
	UNW_SAMPLE_EXEC = 1 << 8,     /* inside execve past its point of no return */
};

/* Events from BPF to user space, through the ring buffer. */
enum unw_event_type {
	UNW_EV_UNKNOWN_PROC = 1, /* a sampled pid without process info */
	UNW_EV_NOT_COVERED,	 /* pc in no known mapping: re-read the mappings */
	UNW_EV_EXEC,		 /* addr: the exec's time (bpf_ktime_get_ns, CLOCK_MONOTONIC) */
	UNW_EV_EXIT,
	UNW_EV_FORK,   /* a child of a target (follow_children) */
	UNW_EV_DRAIN,  /* the count map passed its drain threshold */
	UNW_EV_MAPPED, /* a new executable mapping (mmap) */
	/* A Python code object (addr, its tag in tag) first seen: struct unw_py_code_event. */
	UNW_EV_PY_CODE,
	/*
	 * A Ruby iseq (addr) first seen, or a C method's method entry (tag:
	 * the top 16 bits of its frame's second word): to be read while its
	 * process lives.
	 */
	UNW_EV_RB_ISEQ,
};

/*
 * The process was stopped (SIGSTOP) because it is about to run code that
 * has no table yet: user space sends SIGCONT once it has loaded the tables.
 */
#define UNW_EVF_HELD 1

struct unw_event {
	__u32 type;
	__u32 pid;
	__u64 addr;
	__u32 flags; /* UNW_EVF_* */
	__u32 tag; /* UNW_EV_PY_CODE: the code object's tag; UNW_EV_RB_ISEQ: its word's top 16 bits */
};

/*
 * UNW_EV_PY_CODE carries copies of the code object and of the objects it
 * names, taken when it is first seen: a module's code is freed once the
 * module has run, often before user space could read it. A part too big
 * to copy, or unreadable, has len 0 and is read from the process instead.
 */
enum unw_py_part {
	UNW_PY_PART_CODE = 0, /* code_len bytes of the code object */
	UNW_PY_PART_NAME,     /* the str object of its name, to the end of its data */
	UNW_PY_PART_FILE,     /* the str object of its file name */
	UNW_PY_PART_TABLE,    /* the bytes object of its line table */
	UNW_PY_PARTS,
};

#define UNW_PY_CODE_MAX 256
#define UNW_PY_STR_MAX 512
#define UNW_PY_TABLE_MAX 16384
#define UNW_PY_COPY_MAX (UNW_PY_CODE_MAX + 2 * UNW_PY_STR_MAX + UNW_PY_TABLE_MAX)

struct unw_py_copy {
	__u64 addr; /* where in the process the bytes were */
	__u32 len;
	__u32 pad;
};

/* Sent with as many bytes of data as the copies hold. */
struct unw_py_code_event {
	struct unw_event ev; /* addr: the code object; tag: its tag */
	struct unw_py_copy copies[UNW_PY_PARTS];
	__u8 data[UNW_PY_COPY_MAX]; /* the copies' bytes, one after the other */
};

/* Indexes of the stats (struct unw_tally). */
enum unw_stat {
	UNW_ST_SAMPLES = 0,
	UNW_ST_COMPLETE,
	UNW_ST_FP,
	UNW_ST_TRUNCATED,
	UNW_ST_KERNEL,
	UNW_ST_LOST,	       /* count map full */
	UNW_ST_EVENTS_LOST,    /* ring buffer full */
	UNW_ST_FP_COMPLETE,    /* of UNW_ST_FP, those that reached the bottom */
	UNW_ST_PY_SAMPLES,     /* samples with Python frames */
	UNW_ST_PY_FRAMES,      /* Python frames written */
	UNW_ST_RB_SAMPLES,     /* samples with Ruby frames */
	UNW_ST_RB_FRAMES,      /* Ruby frames written */
	UNW_ST_LOOKUPS,	       /* frames looked up in a process's mappings */
	UNW_ST_LOOKUPS_CACHED, /* of them, answered by the cache of lookups */
	UNW_ST_ERR = 14,       /* + enum unw_err */
	/*
	 * Off-CPU (bpf/offcpu.bpf.c): the blocks of the targets' threads that
	 * ended, and what became of each: walked, short, outside a system
	 * call, capped or exited (these four counted [unwalked]), lost (the
	 * count map was full), or still pending at the end (user space counts
	 * those). Their ns: walked, unwalked or lost.
	 */
	UNW_ST_OFF_BLOCKS = UNW_ST_ERR + 32,
	UNW_ST_OFF_WALKED,
	UNW_ST_OFF_COMPLETE, /* of the walked, to the bottom with the tables */
	UNW_ST_OFF_SHORT,    /* shorter than off_cpu_min_ns */
	UNW_ST_OFF_OUTSIDE,  /* outside a system call: no exit to walk it at */
	UNW_ST_OFF_CAPPED,   /* past off_cpu_walks in their second */
	UNW_ST_OFF_EXITED,   /* pending when the thread exited */
	UNW_ST_OFF_LOST,
	UNW_ST_OFF_NS,
	UNW_ST_OFF_UNWALKED_NS,
	UNW_ST_OFF_LOST_NS,
	/* Blocks not timed: no room for their thread's storage. */
	UNW_ST_OFF_UNTIMED,
	/* Blocks whose switch back in was not seen: timed by the thread's CPU time since. */
	UNW_ST_OFF_END_UNSEEN,
	/* Walked blocks without their kernel stack: the thread's block before was short. */
	UNW_ST_OFF_NO_KSTACK,
	/* When the run ended: blocks that had ended, not walked yet; blocks under way. */
	UNW_ST_OFF_PENDING_AT_END,
	UNW_ST_OFF_UNDER_WAY_AT_END,
	UNW_ST_ELIDED, /* samples whose stack's middle was left out (UNW_SAMPLE_ELIDED) */
	UNW_ST_EXEC,   /* samples inside execve past its point of no return (UNW_SAMPLE_EXEC) */
	UNW_ST_NR,
};

/*
 * Why a walk stopped early or fell back: the samples that met each reason.
 * Defined once, here: X(ID, NAME, WHAT) gives the enum (UNW_E_ID), the NAME
 * the summary, --stats-json and the man page use (tests/docs checks that
 * unwprof-record(1) names each), and what it means.
 */
#define UNW_ERRORS(X)                                                                      \
	X(NO_USER, "no-user-stack", "a kernel thread: no user stack")                      \
	X(NO_PROC, "process-without-tables", "process without tables yet: frame pointers") \
	X(NOT_COVERED, "pc-not-covered", "pc in no known mapping")                         \
	X(NO_ROW, "no-unwind-row", "no page or row covers the pc: frame pointers")         \
	X(END_ROW, "pc-without-cfi", "pc in a gap without unwind info: frame pointers")    \
	X(UNSUPPORTED, "unsupported-row", "unsupported row: frame pointers")               \
	X(CFA_READ, "cfa-read-failed", "reading a dereferenced CFA failed")                \
	X(RA_READ, "ra-read-failed", "reading the return address failed")                  \
	X(FP_READ, "fp-read-failed", "reading the saved frame pointer failed")             \
	X(NO_PROGRESS, "no-progress", "the next frame is not above this one")              \
	X(USTACK_FULL, "user-stack-map-full", "user stack map full")                       \
	X(USTACK_COLLISION, "user-stack-hash-collision", "two stacks with the same hash")  \
	X(KSTACK, "kernel-stack-failed", "bpf_get_stackid failed")                         \
	X(SHARD_MISSING, "shard-missing", "a page pointing to a missing shard")            \
	X(STACK_COPY, "stack-copy-failed", "the stack top could not be copied")            \
	X(NO_FP, "no-frame-pointer",                                                       \
	  "frame pointers needed where the frame pointer is 0 or no chain's")              \
	X(NO_TABLE, "mapping-without-table",                                               \
	  "a mapping without a table (JIT, a file without CFI): frame pointers")           \
	X(TAIL_CALL, "tail-call-failed",                                                   \
	  "the tail call to the next walker failed: the walk stops")                       \
	X(GO_SWITCH, "go-switch-failed",                                                   \
	  "Go's saved goroutine state could not be read: the walk stops")                  \
	X(PY_THREAD, "python-thread-not-found",                                            \
	  "a Python thread whose state was not found: no Python frames")                   \
	X(PY_FRAME, "python-frame-unreadable",                                             \
	  "a Python frame could not be read: the activation's others left out")            \
	X(PY_DEPTH, "python-frames-truncated",                                             \
	  "more Python frames in one activation than written: the rest left out")          \
	X(RB_THREAD, "ruby-thread-not-found",                                              \
	  "a Ruby thread whose execution context was not found: no Ruby frames")           \
	X(RB_FRAME, "ruby-frame-unreadable",                                               \
	  "a Ruby frame could not be read: the activation's others left out")              \
	X(RB_DEPTH, "ruby-frames-truncated",                                               \
	  "more Ruby frames in one activation than written: the rest left out")            \
	X(PY_VERSION, "python-version-unsupported",                                        \
	  "in the eval loop of a CPython whose frames are not read: native frames only")   \
	X(RB_VERSION, "ruby-version-unsupported",                                          \
	  "in the VM loop of a Ruby whose frames are not read: native frames only")

/* The list is no expression, whatever clang-format takes it for. */
/* clang-format off */
enum unw_err {
#define UNW_ERR_ENUM(id, name, what) UNW_E_##id,
	UNW_ERRORS(UNW_ERR_ENUM)
#undef UNW_ERR_ENUM
	UNW_E_NR,
};
/* clang-format on */

_Static_assert(UNW_E_NR <= UNW_ST_OFF_BLOCKS - UNW_ST_ERR, "stats array holds every reason");

/*
 * The histogram of sample times (struct unw_tally): for each sample of a
 * target, the ns from the start of the sampling program to the end of the
 * sample's processing (counted, lost or dropped), tail calls included.
 * The kernel's run time of the program gives only a mean over every run,
 * the non-target ones too; this gives the median and the tail.
 *
 * Buckets are log-linear: UNW_HIST_SUB of them per power of two, from
 * 2^UNW_HIST_MIN_SHIFT ns (64 ns) to 2^UNW_HIST_MAX_SHIFT (1.07 s), so that
 * a bucket is at most 1/UNW_HIST_SUB (12.5%) of its lower bound wide. A
 * time below the first counts in the first, one above the last in the
 * last. Bucket b holds [lo(b), lo(b + 1)) (bpf/sample_time_hist.h):
 *
 *	lo(b) = (UNW_HIST_SUB + b % UNW_HIST_SUB) << (b / UNW_HIST_SUB + MIN_SHIFT - SUB_BITS)
 */
#define UNW_HIST_SUB_BITS 3
#define UNW_HIST_SUB (1u << UNW_HIST_SUB_BITS)
#define UNW_HIST_MIN_SHIFT 6
#define UNW_HIST_MAX_SHIFT 30
#define UNW_HIST_BUCKETS ((UNW_HIST_MAX_SHIFT - UNW_HIST_MIN_SHIFT) * UNW_HIST_SUB)

/*
 * What a target's sample did beyond walking frames the cache of lookups
 * knew, a bit each (struct scratch: costs): the time of a sample is added,
 * with a count, to the entry (struct unw_tally) of every bit it has, or to
 * UNW_COST_NONE's when it has none, and to UNW_COST_ANY's when it has
 * some. So user space tells what the samples that pay for each cost on
 * average, against those that pay for none.
 */
enum unw_cost {
	UNW_COST_SWITCHED = 0, /* the first of its thread on the CPU since another ran there */
	UNW_COST_PROC,	       /* the process entry was looked up */
	UNW_COST_LOOKUP,       /* a frame missed the cache of lookups: the tables were searched */
	UNW_COST_STACK_GROW,   /* the copy of the stack grew past its first read */
	UNW_COST_KSTACK,       /* the kernel stack was taken */
	UNW_COST_NEW_COUNT,    /* a count was added to the count map */
	UNW_COST_NEW_STACK,    /* a user stack was stored */
	UNW_COST_EVENT,	       /* an event was sent, or its rate limit looked up */
	UNW_COST_NONE,
	UNW_COST_ANY,
	UNW_COST_NR,
};

struct unw_cost_sum {
	__u64 samples;
	__u64 ns;
};

/*
 * What BPF counts on each CPU, in the one value of the per-CPU map tally:
 * the stats, the samples by what they paid for and the histogram of their
 * times. One value rather than a map each: a sample adds to all three, and
 * each map more is a cache line and a page that the sample finds cold
 * (some 40-60 ns each, of a sample of about a microsecond, measured here).
 * The entries a sample adds to nearly always come first.
 */
struct unw_tally {
	__u64 stats[UNW_ST_NR];
	struct unw_cost_sum costs[UNW_COST_NR];
	__u64 sample_ns[UNW_HIST_BUCKETS];
};

_Static_assert(UNW_HIST_MIN_SHIFT >= UNW_HIST_SUB_BITS, "a bucket is at least 1 ns wide");
_Static_assert(UNW_HIST_MAX_SHIFT <= 32, "times fit the bucket search's 32 bits");

/*
 * Key of the map of failure sites: samples of pid whose walk stopped short
 * of the bottom at pc (0: before the walk), the last reason (enum unw_err)
 * it met there. Value: the samples.
 */
struct unw_fail_key {
	__u32 pid;
	__u32 reason;
	__u64 pc;
};

#define UNW_FAIL_SITES 4096

/* Set by user space before load (read-only data of the program). */
struct unw_config {
	__u32 drain_at;	  /* keys in the count map that make BPF ask for a drain */
	__u8 system_wide; /* sample every process, not only targets */
	__u8 fp_only;	  /* never use the tables */
	__u8 kernel_stacks;
	__u8 follow_children;
	__u8 have_find_vma; /* bpf_find_vma exists (5.17+) */
	__u8 only_threads;  /* sample only the threads in the map threads (-t) */
	__u8 pad;
	__u32 page_size;	 /* of the kernel: the unit of a mapping's file offset */
	__u64 event_interval_ns; /* per pid and event type */
	/* Off-CPU (bpf/offcpu.bpf.c): shorter blocks are counted, not walked... */
	__u64 off_cpu_min_ns;
	__u32 off_cpu_walks; /* ...nor those past this many walks a second on a CPU */
	__u32 pad2;
};

_Static_assert(sizeof(struct unw_rule) == 16, "unw_rule layout");
_Static_assert(sizeof(struct unw_page) == 8, "unw_page layout");
_Static_assert(sizeof(struct unw_exec) == 16, "unw_exec layout");
_Static_assert(sizeof(struct unw_mapping) == 32, "unw_mapping layout");
_Static_assert(sizeof(struct unw_proc) == 8 + 32 * UNW_MAPS_MAX, "unw_proc layout");
_Static_assert(sizeof(struct unw_file_key) == 16, "unw_file_key layout");
_Static_assert(sizeof(struct unw_seg) == 24, "unw_seg layout");
_Static_assert(sizeof(struct unw_file) == 16 + 24 * UNW_FILE_SEGS, "unw_file layout");
_Static_assert(sizeof(struct unw_count_key) == 24, "unw_count_key layout");
_Static_assert(sizeof(struct unw_count) == 32, "unw_count layout");
_Static_assert(sizeof(struct unw_ustack) == 8 + 8 * UNW_DEPTH_MAX, "unw_ustack layout");
_Static_assert(sizeof(struct unw_event) == 24, "unw_event layout");
_Static_assert(sizeof(struct unw_config) == 40, "unw_config layout");
_Static_assert(sizeof(struct unw_cost_sum) == 16, "unw_cost_sum layout");
_Static_assert(sizeof(struct unw_tally) % 8 == 0, "per-CPU values: a whole number of words");
_Static_assert(sizeof(struct unw_fail_key) == 16, "unw_fail_key layout");
_Static_assert(sizeof(struct unw_go_proc) == 104, "unw_go_proc layout");
_Static_assert(sizeof(struct unw_py_proc) == 72, "unw_py_proc layout");
_Static_assert(sizeof(struct unw_py_copy) == 16, "unw_py_copy layout");
_Static_assert(sizeof(struct unw_rb_proc) == 32, "unw_rb_proc layout");
_Static_assert(sizeof(struct unw_py_code_event) == 24 + 16 * UNW_PY_PARTS + UNW_PY_COPY_MAX,
	       "unw_py_code_event layout");

#endif /* UNWPROF_ABI_H */
