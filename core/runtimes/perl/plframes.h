/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Naming the Perl frames the BPF walk records (bpf/unwind_perl.h,
 * UNW_FRAME_PERL: what runs there, and the COP being run): a sub as
 * caller() names it ("main::foo", "Foo::Bar::baz", a lexical sub by its
 * name alone), "(eval)", "(require)" and "(do)" for what a string eval,
 * require and do FILE run, "(sort)" for a sort BLOCK, "(map)" and "(grep)"
 * for a map's or grep's BLOCK (or expression), "main::RUNTIME" for
 * the main program (Devel::NYTProf's name); the COP's file and line, read
 * from the process's memory (/proc/PID/mem) with the offsets of its
 * interpreter (core/runtimes/perl/plruntime.h). A COP's line and file
 * come copied in the event of BPF's first sight of it, a sub's name is
 * read at its own, while they live (a string eval's COPs are freed once it
 * has run, a closure's CV with the closure); else when the frame is named.
 * Memory of a
 * profiled process is untrusted: every length is bounded, every SV's type
 * checked, and what does not check out names the frame "<unknown>".
 */
#ifndef UNWPROF_PLFRAMES_H
#define UNWPROF_PLFRAMES_H

#include <stddef.h>
#include <stdint.h>

struct plruntime;
struct pl_offsets;
struct plframes;

struct pl_frame_name {
	const char *name; /* "main::foo"; "<unknown>" when it does not check out */
	const char *file; /* the COP's file; "<unknown>" when it does not check out */
	uint32_t line;	  /* the COP's line; 0 when unknown */
};

struct plframes *plframes__new(void);
void plframes__free(struct plframes *n);

/*
 * Process pid runs the interpreter pr loaded at bias; called again with the
 * same, it keeps what it knows, with another one it starts over (an exec).
 */
int plframes__add_process(struct plframes *n, uint32_t pid, const struct plruntime *pr,
			  uint64_t bias);
/* Process pid was forked from ppid: the same interpreter, read from its own memory. */
int plframes__fork(struct plframes *n, uint32_t ppid, uint32_t pid);
/* The process exited: its memory and what was read of it are dropped. */
void plframes__remove_process(struct plframes *n, uint32_t pid);

/*
 * Reads the COP of where (its address and tag) of pid now, if it was not
 * read yet: from file and line, a copy of its file and its line BPF took,
 * when file is not NULL.
 */
void plframes__read_cop(struct plframes *n, uint32_t pid, uint64_t where, const char *file,
			uint32_t line);
/* Reads the name of a frame's first word what (see plframes__name) of pid now, if not yet. */
void plframes__read_name(struct plframes *n, uint32_t pid, uint64_t what);

/*
 * Names frame (what, where) of pid into *out: what the first word's value
 * (its kind and address), where the second word. The strings stay valid
 * until the process is removed. 0, or -ENOENT when pid was never added.
 */
int plframes__name(struct plframes *n, uint32_t pid, uint64_t what, uint64_t where,
		   struct pl_frame_name *out);

/*
 * The readers of an interpreter's memory, exposed for the tests and the
 * fuzzer: read(ctx, addr, buf, len) reads all of it (0) or nothing
 * (-EFAULT).
 */
struct pl_mem {
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
	const struct pl_offsets *off;
};

/* The name of frame what (see plframes__name) into buf of size bytes: 0, or -EINVAL. */
int plframes__what_name(const struct pl_mem *m, uint64_t what, char *buf, size_t size);
/*
 * COP cop's line into *line and file into buf of size bytes, when its tag
 * (bpf/unwind_perl.h: UNW_PL_TAG of its file's pointer and line) is tag:
 * 0, or -EINVAL (not a COP, or another one than the frame's).
 */
int plframes__cop(const struct pl_mem *m, uint64_t cop, uint16_t tag, uint32_t *line, char *buf,
		  size_t size);

#endif
