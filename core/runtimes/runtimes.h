/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runtimes whose frames unwprof walks or names its own way, one
 * operations table each (runtime_unwinders): Go's stack switch, CPython's
 * eval loop, Ruby's VM loop. Each reads what it needs of an ELF file into
 * the file's struct file_runtimes (core/model/model.h keeps one per image),
 * says what `unwprof dump-unwind` shows of it, and, for a file loaded at a
 * bias, gives the pc ranges its BPF unwinder walks and the value of its BPF
 * map (by pid) that tells it how; core/session/session.c cuts the ranges out
 * of their mappings and writes the values. An interpreter's walk records its frames
 * as (code, where) pairs, which its frame namer names from the process's
 * memory, reading a code object when BPF first reports it in an event:
 * core/symbols/symbolize.c asks the namers through the table, and the
 * session and the recorder only pass what they are given along. Adding a
 * runtime is adding an entry here, its unwinder in the BPF walk, its map,
 * and, for an interpreter, its namer.
 */
#ifndef UNWPROF_RUNTIMES_H
#define UNWPROF_RUNTIMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/abi.h"
#include "goruntime.h"
#include "pyruntime.h"
#include "rbruntime.h"

struct elf_file;
struct json_writer;

/*
 * What the runtimes read of one ELF file: the runtime it holds, if any. An
 * interpreter of a version (or build) whose frames are not read is refused:
 * py or rb then holds its version and loop only, where its samples are
 * counted (python-version-unsupported, ruby-version-unsupported).
 */
struct file_runtimes {
	bool has_go;	      /* a Go binary whose stack switch the walk follows: */
	struct go_runtime go; /* its functions and offsets, ELF addresses */
	bool has_py;	      /* a CPython interpreter (or libpython) the walk reads: */
	struct py_runtime py; /* its version, eval loop and offsets, ELF addresses */
	bool has_rb;	      /* a Ruby interpreter (libruby) the walk reads: */
	struct rb_runtime rb; /* its version, VM loop and offsets, ELF addresses */
	bool py_refused, rb_refused;
};

/* Each runtime's reading of ef, named path in what is said of one that cannot be read. */
void file_runtimes__read(struct file_runtimes *fr, const struct elf_file *ef, const char *path);

/* Where a runtime's unwinder applies in one process, and what it reads there. */
struct runtime_place {
	struct {
		uint64_t lo, hi; /* process addresses; the first is needed, hi 0: none */
	} ranges[5];
	union {
		struct unw_go_proc go;
		struct unw_py_proc py;
		struct unw_rb_proc rb;
	} value;
};

/* What an interpreter's frame is named. */
struct frame_name {
	const char *function;
	const char *file; /* NULL: none (a Ruby C method) */
	uint32_t line;	  /* the line being run; 0 when unknown */
	uint32_t first_line;
};

/*
 * The namer of an interpreter's frames (bpf/abi.h: a frame word of kind
 * frame_kind, then where). Memory of a profiled process is untrusted: what
 * cannot be read leaves a name "<unknown>".
 */
struct frame_namer_ops {
	unsigned int frame_kind;   /* UNW_FRAME_* */
	unsigned int profile_kind; /* its frames' in a profile (core/profile/profile.h) */
	uint32_t code_event;	   /* UNW_EV_*: a code object first seen in a sample */
	void *(*new)(void);
	void (*free)(void *n);
	/* Process pid runs the runtime of fr, loaded at bias: its frames are named from its memory. */
	int (*add_process)(void *n, uint32_t pid, const struct file_runtimes *fr, uint64_t bias);
	void (*remove_process)(void *n, uint32_t pid);
	/* Process pid was forked from ppid; NULL when nothing of a process is to copy. */
	int (*fork)(void *n, uint32_t ppid, uint32_t pid);
	/* A code_event of size bytes (at least its struct unw_event): its code is read now. */
	void (*read_code)(void *n, const struct unw_event *ev, size_t size);
	/*
	 * Names frame (code, where) of pid in out (left as it is when unknown);
	 * returns the key of its location: the code and what tells it apart
	 * from an earlier one at its address, per line.
	 */
	uint64_t (*name)(void *n, uint32_t pid, uint64_t code, uint64_t where,
			 struct frame_name *out);
};

struct runtime_unwinder {
	enum unw_unwinder unwinder;
	const char *name; /* "Go's stack switch", "Python", "Ruby" */
	/* Reads its runtime in ef, if it holds it, into fr; says what cannot be read. */
	void (*read)(struct file_runtimes *fr, const struct elf_file *ef, const char *path);
	/* false when fr holds no such runtime */
	bool (*place)(const struct file_runtimes *fr, uint64_t bias, struct runtime_place *rp);
	/* What dump-unwind shows of it, as lines of its summary and as a JSON member; nothing when fr holds none. */
	void (*print)(FILE *f, const struct file_runtimes *fr);
	void (*print_json)(struct json_writer *jw, const struct file_runtimes *fr);
	const struct frame_namer_ops *namer; /* NULL: its frames are native ones */
};

#define RUNTIMES_MAX 8 /* entries of runtime_unwinders, at most */

extern const struct runtime_unwinder runtime_unwinders[];
extern const size_t nr_runtime_unwinders;

/* The runtime whose namer names frames of kind (UNW_FRAME_*); NULL: none. */
const struct runtime_unwinder *runtime_of_frame_kind(unsigned int kind);
/* The runtime whose namer reads the code of events of type (UNW_EV_*); NULL: none. */
const struct runtime_unwinder *runtime_of_code_event(uint32_t type);

extern const struct frame_namer_ops py_frame_namer; /* core/runtimes/pyframes.c */
extern const struct frame_namer_ops rb_frame_namer; /* core/runtimes/rbframes.c */

#endif
