/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Naming the V8 frames the BPF walk records (bpf/unwind_v8.h,
 * UNW_FRAME_V8: a SharedFunctionInfo, and the bytecode offset or pc it
 * runs at) as node --cpu-prof names them: the function's name, from its
 * SharedFunctionInfo's name or its ScopeInfo's ("(anonymous)" when it has
 * none), its Script's name for the file, and, for an interpreted frame, the
 * line of the bytecode offset, from the BytecodeArray's source position
 * table and the Script's line ends (computed from its source when V8 has
 * not). A SharedFunctionInfo is read at the event of BPF's first sight of
 * it, while it lives; else when the frame is named. Memory of a profiled
 * process is untrusted, and the garbage collector moves objects while it
 * runs: every object's type is checked, every length bounded, and what does
 * not check out names the frame "<unknown>".
 */
#ifndef UNWPROF_V8FRAMES_H
#define UNWPROF_V8FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "../runtimes.h"

struct v8runtime;
struct v8_layout;
struct v8frames;

struct v8_frame_name {
	const char *name;    /* "foo", "(anonymous)"; "<unknown>" when it does not check out */
	const char *file;    /* the Script's name; NULL when it has none (a builtin's function) */
	uint32_t line;	     /* the line being run, else its function's first; 0 when unknown */
	uint32_t first_line; /* its function's first line; 0 when unknown */
	/* the functions inlined into its compiled code running there, innermost first */
	const struct frame_name *inlined;
	size_t nr_inlined;
};

struct v8frames *v8frames__new(void);
void v8frames__free(struct v8frames *n);

/* Process pid runs V8 r; called again with the same, it keeps what it knows. */
int v8frames__add_process(struct v8frames *n, uint32_t pid, const struct v8runtime *r);
/* Process pid was forked from ppid: the same V8, read from its own memory. */
int v8frames__fork(struct v8frames *n, uint32_t ppid, uint32_t pid);
/* The process exited: its memory and what was read of it are dropped. */
void v8frames__remove_process(struct v8frames *n, uint32_t pid);

/*
 * Reads the SharedFunctionInfo of sfi (a frame's first word's value: its
 * address and tag, bpf/unwind_v8.h) of pid now, if it was not read yet.
 * One whose name or ScopeInfo has another tag is another's, that the
 * garbage collector put at the address: it is refused, the frame
 * "<unknown>".
 */
void v8frames__read_sfi(struct v8frames *n, uint32_t pid, uint64_t sfi);

/*
 * Reads what the JIT code at pc of pid inlined there now (its functions, its
 * own function's position), if it was not read yet: compiled code is freed
 * once it is deoptimized or replaced.
 */
void v8frames__read_pc(struct v8frames *n, uint32_t pid, uint64_t pc);

/*
 * Names frame (sfi, where) of pid into *out, sfi as v8frames__read_sfi
 * takes it; the strings stay valid until the process is removed. 0, or
 * -ENOENT when pid was never added.
 */
int v8frames__name(struct v8frames *n, uint32_t pid, uint64_t sfi, uint64_t where,
		   struct v8_frame_name *out);

/*
 * The readers of V8's memory, exposed for the tests and the fuzzer:
 * read(ctx, addr, buf, len) reads all of it (0) or nothing (-EFAULT).
 */
struct v8_mem {
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
	const struct v8_layout *l;
};

/* What is read of a SharedFunctionInfo. */
struct v8_sfi {
	uint64_t addr;
	uint64_t key; /* the frame's word it was read for: its address and tag */
	uint8_t tag;  /* UNW_V8_TAG of its name or ScopeInfo's pointer */
	char *name;
	char *file;	     /* NULL: no Script */
	uint8_t *positions;  /* its bytecode's source position table; NULL: none */
	size_t nr_positions; /* bytes */
	uint32_t *line_ends; /* of its Script: the offset of each line's end */
	size_t nr_line_ends;
	int32_t start;	     /* the script offset of its start; -1: unknown */
	uint32_t first_line; /* its start's line; 0: unknown */
};

/* The V8 string at tagged pointer p into buf (size bytes, NUL-terminated): 0, or -EINVAL. */
int v8frames__string(const struct v8_mem *m, uint64_t p, char *buf, size_t size);
/* Reads the SharedFunctionInfo at untagged address addr into *s: 0, or -EINVAL (nothing kept). */
int v8frames__sfi_read(const struct v8_mem *m, uint64_t addr, struct v8_sfi *s);
void v8frames__sfi_clear(struct v8_sfi *s);
/* The line of bytecode offset off (as its frame keeps it) of s; 0 when unknown. */
uint32_t v8frames__line(const struct v8_mem *m, const struct v8_sfi *s, uint32_t off);

/* A function's position in compiled code. */
struct v8_code_frame {
	uint64_t sfi;	/* its SharedFunctionInfo, untagged */
	int64_t offset; /* its script offset; -1: unknown */
};

/*
 * The functions running at pc of V8's JIT code (V8 12 and later), innermost
 * first, each called by the next, the last the code's own function (its
 * deoptimization data's, which a frame's must be to be named so): its
 * Code found from the InstructionStream before pc (*stream_map, their map,
 * once known), its source position table's position at pc, and the
 * inlining positions and literals of its deoptimization data. Their
 * number, at most max; 0 when its code is not found or does not check out.
 */
size_t v8frames__pc_frames(const struct v8_mem *m, uint64_t pc, uint64_t *stream_map,
			   struct v8_code_frame *out, size_t max);

#endif
