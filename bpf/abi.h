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
	UNW_CFA_UNSUPPORTED, /* the unwinder cannot follow it; see unsupported */
};

/* How to recover the caller's frame pointer (rbp / x29). */
enum unw_fp_rule {
	UNW_FP_UNCHANGED = 0, /* the caller's fp is the current fp */
	UNW_FP_AT_CFA,	      /* saved at CFA + fp_off */
	UNW_FP_AT_FP,	      /* saved at fp + fp_off (gcc's stack realignment) */
	UNW_FP_AT_SP,	      /* saved at sp + fp_off (signal frames) */
	UNW_FP_UNSUPPORTED,   /* the unwinder cannot follow it; see unsupported */
};

/* How to recover the return address. */
enum unw_ra_rule {
	UNW_RA_AT_CFA = 0,  /* x86_64: saved at CFA - 8; aarch64: at CFA + aux_off */
	UNW_RA_UNDEFINED,   /* bottom of the stack: the walk ends here */
	UNW_RA_LR,	    /* aarch64: still in the link register (x30) */
	UNW_RA_AT_SP,	    /* signal frames: the interrupted pc, saved at sp + aux_off */
	UNW_RA_UNSUPPORTED, /* the unwinder cannot follow it; see unsupported */
};

/* Why a row is unsupported. Kept in the table so nothing is silently approximated. */
enum unw_unsupported {
	UNW_UNSUP_NONE = 0,
	UNW_UNSUP_CFA_REGISTER,	  /* CFA based on a register other than sp or fp */
	UNW_UNSUP_CFA_EXPRESSION, /* a CFA expression of a shape the unwinder does not know */
	UNW_UNSUP_CFA_OFFSET,	  /* a CFA offset that does not fit the row */
	UNW_UNSUP_FP_RULE,	  /* fp saved in a register, as a value, or by an expression */
	UNW_UNSUP_FP_OFFSET,	  /* an fp save offset that does not fit the row */
	UNW_UNSUP_RA_RULE,	  /* return address not where the ABI puts it */
	UNW_UNSUP_RA_OFFSET,	  /* aarch64: an LR save offset that does not fit the row */
	UNW_UNSUP_RULES_FULL,	  /* BPF's rule map was full (never in a table, only in the map) */
	UNW_UNSUP_GO_SP_WRITE, /* a Go function that switches stacks: its SP deltas do not hold */
	UNW_UNSUP_NR,
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
	__s32 aux_off;	  /* x86_64: M in *(REG+N)+M, the PLT threshold, the pc of a signal frame
			   * at sp+aux_off; aarch64: LR at CFA+aux_off */
	__u8 cfa;	  /* enum unw_cfa_rule */
	__u8 fp;	  /* enum unw_fp_rule */
	__u8 ra;	  /* enum unw_ra_rule */
	__u8 unsupported; /* enum unw_unsupported, set when any rule is unsupported */
};

/*
 * Rules the rule map holds: about 3,600 distinct ones govern every row of the
 * 350 largest ELF files of a Debian system. Index 0 is no rule (a value of
 * the maps left zero means none); rule 1 says the map was full when a row
 * needed a place (UNW_UNSUP_RULES_FULL: frame pointers there, counted).
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
 * A walk goes on past UNW_DEPTH_MAX words, up to UNW_WALK_MAX frames: of a
 * deeper stack the UNW_STACK_LEAF words nearest the leaf are kept, and the
 * last ones walked in the rest, with a frame of kind UNW_FRAME_ELIDED
 * between them (struct unw_ustack). What the walks of a CPU cost is bounded
 * by frames, never by time, so that a stack walks the same on a busy
 * machine as on an idle one: each CPU has a budget of frames (struct
 * unw_config: frames_per_sec, a bucket of frames_burst at most, refilled
 * at each walk's start by the time since the last); once it is spent, its
 * walks stop at UNW_DEPTH_MAX frames (UNW_E_FRAME_BUDGET) until it is
 * filled again (bpf/walk.bpf.h, walk_budget).
 */
#define UNW_WALK_MAX 32768
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

/* Events from BPF to user space, through the ring buffer. */
enum unw_event_type {
	UNW_EV_UNKNOWN_PROC = 1, /* a sampled pid without process info */
	UNW_EV_NOT_COVERED,	 /* pc in no known mapping: re-read the mappings */
	UNW_EV_EXEC,		 /* addr: the exec's time (bpf_ktime_get_ns, CLOCK_MONOTONIC) */
	UNW_EV_EXIT,
	UNW_EV_FORK,   /* a child of a target (follow_children) */
	UNW_EV_DRAIN,  /* the count map passed its drain threshold */
	UNW_EV_MAPPED, /* a new executable mapping (mmap) */
	/*
	 * A runtime's code (addr: a code object, an iseq) first seen in a
	 * sample, to be read while its process lives: the event of the runtime
	 * of unwinder, whose header says what tag and the bytes after the
	 * event are.
	 */
	UNW_EV_CODE,
};

/*
 * The process was stopped (SIGSTOP) because it is about to run code that
 * has no table yet: user space sends SIGCONT once it has loaded the tables.
 */
#define UNW_EVF_HELD 1

struct unw_event {
	__u16 type;	/* enum unw_event_type */
	__u16 unwinder; /* UNW_EV_CODE: the runtime's (enum unw_unwinder) */
	__u32 pid;
	__u64 addr;
	__u32 flags; /* UNW_EVF_* */
	__u32 tag;   /* UNW_EV_CODE: what tells the code apart from an earlier one at addr */
};

/*
 * A tag of a runtime's code (16 bits of a pointer it holds), carried in the
 * top bits of its frame's second word, so that another code object later at
 * the same address is known apart: memory of a freed one is soon reused by
 * the next one made.
 */
#define UNW_CODE_TAG(ptr) ((((ptr) >> 4) ^ ((ptr) >> 20) ^ ((ptr) >> 36)) & 0xffff)

#include "runtimes.h"

/*
 * Which unwinder steps from a frame whose pc is in a mapping: the BPF walk
 * looks it up frame by frame (bpf/walk.bpf.h), user space chooses it when
 * it publishes the mapping. A runtime's (bpf/runtimes.h) is the index of
 * its program in the walkers' program arrays: the native walk hands a frame
 * of its code over to it.
 */
#define UNW_UW_ID(ID, name) UNW_UW_##ID,
enum unw_unwinder {
	UNW_UW_FP = 0, /* frame pointers: no table (JIT code, a file without CFI, [vsyscall]) */
	UNW_UW_TABLE,  /* the DWARF-derived table of exec_id, at table pc = pc - bias */
	/* Each runtime's: its range is stepped as UNW_UW_TABLE once its program wrote its frames. */
	UNW_RUNTIMES(UNW_UW_ID) UNW_UW_NR,
};
#undef UNW_UW_ID

/* The first runtime's unwinder: the native walk hands a frame of one at or past it over. */
#define UNW_UW_RUNTIME (UNW_UW_TABLE + 1)

struct unw_mapping {
	__u64 start;
	__u64 end;
	__u64 bias;    /* table pc = pc - bias; with UNW_MAP_ONE_ROW, the table pc */
	__u32 exec_id; /* the table of UNW_UW_TABLE; 0: none */
	__u8 unwinder; /* enum unw_unwinder */
	__u8 flags;    /* UNW_MAP_* */
	__u8 pad[2];
};

/*
 * A range of pcs inside a mapping with an unwinder of its own (an
 * interpreter's loop, a runtime's stack switch) is a mapping of its own in
 * the process info, cut out of the one it lies in. A mapping of no file
 * that a runtime claims (a JIT's code that runs on its interpreter's
 * frame: PHP's on execute_ex's) has the runtime's unwinder, and each of its
 * pcs walks with one row of another table, that of the function whose
 * frame it runs on (UNW_MAP_ONE_ROW).
 */
#define UNW_MAP_ONE_ROW 1

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
 * on both architectures, so its kind is 0 and the word is the pc as is. A
 * runtime's frame is two words, which the namer of that runtime names.
 */
#define UNW_FRAME_KIND_SHIFT 56
#define UNW_FRAME_VALUE_MASK ((1ULL << UNW_FRAME_KIND_SHIFT) - 1)

#define UNW_FRAME_ID(ID, name) UNW_FRAME_##ID,
enum unw_frame_kind {
	UNW_FRAME_NATIVE = 0, /* 1 word: the pc */
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
	/* Each runtime's: 2 words, its header says which (bpf/runtimes.h). */
	UNW_RUNTIMES(UNW_FRAME_ID) UNW_FRAME_KIND_NR,
};
#undef UNW_FRAME_ID

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
	/* Not walked to the bottom within UNW_WALK_MAX frames or the CPU's budget of frames. */
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

/*
 * How the summary of a recording shows a count, on stderr and in
 * --stats-json (cmd/record_summary.c).
 */
enum unw_stat_show {
	UNW_SHOW_COUNT,	 /* a line, the count; a number */
	UNW_SHOW_SHARE,	 /* a line, the count and its share of the samples with a user stack */
	UNW_SHOW_BESIDE, /* "(COUNT LABEL)" on the line before, when that one's is not 0; a share */
	UNW_SHOW_BYTES,	 /* a line in MiB; bytes */
	UNW_SHOW_LEFT_OUT, /* a line when not 0, its NOTE saying what was left out; a number */
	UNW_SHOW_JSON,	   /* a number of --stats-json only */
	UNW_SHOW_NONE,	   /* not shown apart: another part of the summary says it */
};

#define UNW_STR_(x) #x
#define UNW_STR(x) UNW_STR_(x)

/*
 * What BPF counts of the samples (struct unw_tally: stats), defined once:
 * X(ID, FIELD, KEY, LABEL, SHOW, NOTE) gives the enum (UNW_ST_ID), the
 * field of core/session/session.h's struct session_stats, the KEY of
 * --stats-json, the LABEL of the summary's line, how it is shown (enum
 * unw_stat_show) and a NOTE in parentheses when it is not 0. tests/stats
 * checks --stats-json has every KEY, tests/docs that unwprof-record(1)
 * explains each.
 */
#define UNW_STATS(X)                                                                               \
	X(SAMPLES, samples, "samples", "samples", UNW_SHOW_COUNT, "")                              \
	X(COMPLETE, complete, "walked", "walked to the bottom", UNW_SHOW_SHARE, "")                \
	/* with frame pointers, not to the bottom (the summary's counts all) */                    \
	X(FP, fp, "frame_pointer", "with frame pointers", UNW_SHOW_SHARE, "")                      \
	X(FP_COMPLETE, fp_complete, "frame_pointer_bottom", "to the bottom", UNW_SHOW_BESIDE, "")  \
	X(TRUNCATED, truncated, "truncated", "truncated", UNW_SHOW_SHARE, "")                      \
	X(ELIDED, elided, "elided", "elided", UNW_SHOW_SHARE,                                      \
	  "deeper than " UNW_STR(UNW_DEPTH_MAX) " words: the middle left out")                     \
	X(LOST, lost, "lost", "lost", UNW_SHOW_COUNT, "") /* the count map was full */             \
	X(KERNEL, kernel, "", "", UNW_SHOW_NONE, "")	  /* taken in the kernel */                \
	X(EXEC, exec, "", "", UNW_SHOW_NONE, "")	  /* inside execve: the outcomes say it */ \
	X(EVENTS_LOST, events_lost, "events_lost", "events lost", UNW_SHOW_LEFT_OUT,               \
	  "process events: ring buffer full")                                                      \
	/* Frames looked up in a process's mappings, and of them, answered by the cache. */        \
	X(LOOKUPS, lookups, "frames_looked_up", "frames looked up", UNW_SHOW_JSON, "")             \
	X(LOOKUPS_CACHED, lookups_cached, "frames_cached", "frames cached", UNW_SHOW_JSON, "")

/*
 * What BPF counts of off-CPU blocks (bpf/offcpu.bpf.c), in the "off_cpu"
 * object of --stats-json, as UNW_STATS: the blocks of the targets' threads
 * that ended, and what became of each: walked, short, outside a system
 * call, capped or exited (these four counted [unwalked]), lost (the count
 * map was full), or still pending at the end; their ns; the blocks not
 * timed, or timed otherwise; those under way when the run ended.
 */
#define UNW_OFF_STATS(X)                                                                         \
	X(OFF_BLOCKS, off_blocks, "blocks", "off-CPU blocks", UNW_SHOW_JSON, "")                 \
	X(OFF_WALKED, off_walked, "walked", "walked", UNW_SHOW_JSON, "")                         \
	X(OFF_COMPLETE, off_complete, "walked_bottom", "to the bottom", UNW_SHOW_JSON, "")       \
	X(OFF_SHORT, off_short, "short", "short", UNW_SHOW_JSON, "")                             \
	X(OFF_OUTSIDE, off_outside, "outside_syscall", "outside a call", UNW_SHOW_JSON, "")      \
	X(OFF_CAPPED, off_capped, "capped", "over the cap", UNW_SHOW_JSON, "")                   \
	X(OFF_EXITED, off_exited, "exited", "exited", UNW_SHOW_JSON, "")                         \
	X(OFF_LOST, off_lost, "lost", "lost", UNW_SHOW_JSON, "")                                 \
	X(OFF_PENDING_AT_END, off_pending_at_end, "pending_at_end", "at the end", UNW_SHOW_JSON, \
	  "")                                                                                    \
	X(OFF_UNDER_WAY_AT_END, off_under_way_at_end, "under_way_at_end", "blocks under way",    \
	  UNW_SHOW_JSON, "blocked when the run ended")                                           \
	X(OFF_UNTIMED, off_untimed, "untimed", "blocks untimed", UNW_SHOW_JSON,                  \
	  "no room for their thread: no time")                                                   \
	X(OFF_END_UNSEEN, off_end_unseen, "switched_in_unseen", "switched in unseen",            \
	  UNW_SHOW_JSON, "timed by the thread's CPU time since")                                 \
	X(OFF_NO_KSTACK, off_no_kstack, "walked_without_kernel_stack", "no kernel stack",        \
	  UNW_SHOW_JSON, "the thread's block before was short")                                  \
	X(OFF_NS, off_ns, "walked_ns", "walked", UNW_SHOW_JSON, "")                              \
	X(OFF_UNWALKED_NS, off_unwalked_ns, "unwalked_ns", "unwalked", UNW_SHOW_JSON, "")        \
	X(OFF_LOST_NS, off_lost_ns, "lost_ns", "lost", UNW_SHOW_JSON, "")

/* Indexes of the stats (struct unw_tally). */
/* clang-format off */
enum unw_stat {
#define UNW_STAT_ENUM(id, field, key, label, show, note) UNW_ST_##id,
	UNW_STATS(UNW_STAT_ENUM)
	UNW_OFF_STATS(UNW_STAT_ENUM)
#undef UNW_STAT_ENUM
	UNW_ST_NR,
};
/* clang-format on */

/*
 * Why a walk stopped early or fell back: the samples that met each reason.
 * Defined once: X(ID, NAME, WHAT) gives the enum (UNW_E_ID), the NAME the
 * summary, --stats-json and the man page use (tests/docs checks that
 * unwprof-record(1) names each), and what it means. The walk's own here,
 * each runtime's in its header (UNW_RUNTIMES_ERRORS), after them.
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
	X(FRAME_BUDGET, "frame-budget-spent",                                              \
	  "the CPU's budget of frames ran out: the walk stops, the stack truncated")       \
	X(RUNTIME_UNLOADED, "runtime-not-loaded",                                          \
	  "in a runtime's code whose walk is not loaded: native frames only")              \
	X(RUNTIME_TAIL_CALLS, "runtime-tail-calls-spent",                                  \
	  "the sample's tail calls ran out before a runtime's code: native frames only")

/* The list is no expression, whatever clang-format takes it for. */
/* clang-format off */
#define UNW_ALL_ERRORS(X) UNW_ERRORS(X) UNW_RUNTIMES_ERRORS(X)
enum unw_err {
#define UNW_ERR_ENUM(id, name, what) UNW_E_##id,
	UNW_ALL_ERRORS(UNW_ERR_ENUM)
#undef UNW_ERR_ENUM
	UNW_E_NR,
};
/* clang-format on */

/* A sample keeps the reasons it met as bits of a word (struct scratch: errs). */
_Static_assert(UNW_E_NR <= 64, "a bit for each reason");

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
 * the stats, the reasons, the runtimes' frames, the samples by what they
 * paid for and the histogram of their times. One value rather than a map each: a sample adds to all three, and
 * each map more is a cache line and a page that the sample finds cold
 * (some 40-60 ns each, of a sample of about a microsecond, measured here).
 * The entries a sample adds to nearly always come first.
 */
struct unw_tally {
	__u64 stats[UNW_ST_NR];
	__u64 errors[UNW_E_NR]; /* samples that met each reason */
	/* Samples with frames of each runtime (by unwinder), and its frames written. */
	__u64 runtime_samples[UNW_UW_NR];
	__u64 runtime_frames[UNW_UW_NR];
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
	/*
	 * The budget of frames of a CPU's walks (UNW_WALK_MAX): frames_per_sec
	 * of the samples' walks, off_frames_per_sec of the off-CPU blocks', a
	 * bucket of frames_burst at most. core/session/session.c sizes them.
	 */
	__u32 frames_burst;
	__u64 frames_per_sec;
	__u64 off_frames_per_sec;
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
_Static_assert(sizeof(struct unw_config) == 56, "unw_config layout");
_Static_assert(sizeof(struct unw_cost_sum) == 16, "unw_cost_sum layout");
_Static_assert(sizeof(struct unw_tally) % 8 == 0, "per-CPU values: a whole number of words");
_Static_assert(sizeof(struct unw_fail_key) == 16, "unw_fail_key layout");

#endif /* UNWPROF_ABI_H */
