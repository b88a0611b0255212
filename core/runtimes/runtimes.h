/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runtimes whose code unwprof walks or names its own way (a runtime's
 * stack switch, an interpreter's loop), each one entry (struct runtime) of
 * one table (bpf/runtimes.h lists them), which the rest of unwprof goes through without
 * naming any runtime:
 *
 *  - the model (core/model/model.h) keeps what each runtime read of an
 *    image (read), opaque, with the image; dump-unwind prints it (print,
 *    print_json);
 *  - the session (core/session/) loads a runtime's BPF programs when a
 *    process of it is found, cuts the pc ranges its walk takes out of their
 *    mappings, gives it the mappings of no file it claims (claims: each
 *    pc stepped with one row of its image) or, when it asks, all of the
 *    process's anonymous executable memory (runtime_place.jit: stepped by
 *    frame pointers), and writes the value its program reads to its map
 *    (place);
 *  - the symbolizer (core/symbols/symbolizer.c) names its frames (namer):
 *    a frame is two words, (code, where), named from the process's memory,
 *    and a code object first seen arrives in an event (UNW_EV_CODE) to be
 *    read at once;
 *  - the summary and --stats-json count the samples with its frames, and
 *    its reasons (bpf/unwind_NAME.h: UNW_NAME_ERRORS).
 *
 * Adding a runtime (bpf/runtimes.h says the same of its BPF side): its
 * folder core/runtimes/NAME/ (its meson.build lists its sources; its entry,
 * `const struct runtime runtime_NAME`, in NAME.c), bpf/unwind_NAME.h and
 * bpf/unwind_NAME.bpf.h; and its name in the lists of bpf/runtimes.h (the
 * runtimes, their reasons, the headers) and of core/runtimes/meson.build.
 */
#ifndef UNWPROF_RUNTIMES_H
#define UNWPROF_RUNTIMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/abi.h"

struct elf_file;
struct json_writer;
struct procmap;

/* What the runtimes read of one image: each one's state, by unwinder; NULL: none of it. */
struct image_runtimes {
	void *state[UNW_UW_NR];
};

#define RUNTIME_RANGES_MAX 5
#define RUNTIME_VALUE_MAX 128

/* Where a runtime's walk applies in one process, and the value its program reads there. */
struct runtime_place {
	struct {
		uint64_t lo, hi; /* process addresses; the first is needed, hi 0: none */
	} ranges[RUNTIME_RANGES_MAX];
	bool jit; /* the process's executable memory of no file (JIT code) is walked too */
	uint8_t value[RUNTIME_VALUE_MAX]; /* struct unw_NAME_proc (bpf/unwind_NAME.h) */
	size_t value_size;
};

/* What a runtime's frame is named. */
struct frame_name {
	const char *function;
	const char *file; /* NULL: none (a function of the interpreter's own, in C) */
	uint32_t line;	  /* the line being run; 0 when unknown */
	uint32_t first_line;
	/*
	 * The functions compiled into the frame's code that run there,
	 * innermost first, each called by the next, the last by the frame's
	 * function (a JIT's inlining); NULL: none. Valid as the names are.
	 */
	const struct frame_name *inlined;
	uint32_t nr_inlined;
};

/* Functions inlined into one frame's code, at most. */
#define FRAME_INLINED_MAX 64

/*
 * The namer of a runtime's frames (bpf/abi.h: a frame word of the runtime's
 * kind, then where). Memory of a profiled process is untrusted: what cannot
 * be read leaves a name "<unknown>".
 */
struct frame_namer_ops {
	void *(*new)(void);
	void (*free)(void *n);
	/* Process pid runs the runtime read in state, loaded at bias: its frames are named from its memory. */
	int (*add_process)(void *n, uint32_t pid, const void *state, uint64_t bias);
	void (*remove_process)(void *n, uint32_t pid);
	/* Process pid was forked from ppid; NULL when nothing of a process is to copy. */
	int (*fork)(void *n, uint32_t ppid, uint32_t pid);
	/* Its code event of size bytes (at least its struct unw_event): the code is read now. */
	void (*read_code)(void *n, const struct unw_event *ev, size_t size);
	/*
	 * Names frame (code, where) of pid in out (left as it is when unknown);
	 * returns the key of its location: the code and what tells it apart
	 * from an earlier one at its address, per line.
	 */
	uint64_t (*name)(void *n, uint32_t pid, uint64_t code, uint64_t where,
			 struct frame_name *out);
};

struct runtime {
	enum unw_unwinder unwinder;
	const char *name;  /* its BPF programs and map are named after it (bpf/runtimes.h) */
	const char *title; /* in what is said of it: "with TITLE frames" */
	/*
	 * Its state of ef (named path in what is said of one it cannot read),
	 * when ef holds it: a state, whose free frees it; NULL when not.
	 */
	void *(*read)(const struct elf_file *ef, const char *path);
	void (*free)(void *state);
	/*
	 * Where it walks in process pid, which maps its image at bias; false
	 * when nowhere. A runtime that describes itself in its memory (a
	 * JVM's tables, filled as it starts) reads it here.
	 */
	bool (*place)(const void *state, uint32_t pid, uint64_t bias, struct runtime_place *rp);
	/*
	 * Whether mapping m, of no image, of the process that maps its image
	 * at bias holds code its walk takes as its own (a JIT's code that runs
	 * on its interpreter's frame): then the pc in its image whose row
	 * walks every pc of m; 0 when not. NULL: it claims none.
	 */
	uint64_t (*claims)(const void *state, uint64_t bias, const struct procmap *m);
	const char *claimed_name; /* what a frame in the code it claims is named */
	/* What dump-unwind shows of it, as lines of its summary and as a JSON member. */
	void (*print)(FILE *f, const void *state);
	void (*print_json)(struct json_writer *jw, const void *state);
	/* The namer of its frames; NULL: its frames are native ones. */
	const struct frame_namer_ops *namer;
};

/*
 * The runtime of unwinder u (enum unw_unwinder): every unwinder from
 * UNW_UW_RUNTIME to UNW_UW_NR is one's; NULL for the others.
 */
const struct runtime *runtimes__of_unwinder(unsigned int u);
/* The runtime whose frames are of kind (UNW_FRAME_*); NULL: none. */
const struct runtime *runtimes__of_frame_kind(unsigned int kind);

/* Each runtime's reading of ef into ir, named path in what is said of one that cannot be read. */
void runtimes__read_image(struct image_runtimes *ir, const struct elf_file *ef, const char *path);
void runtimes__free_image(struct image_runtimes *ir);

#endif
