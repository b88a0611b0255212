/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Naming the PHP frames the BPF walk records (bpf/unwind_php.h,
 * UNW_FRAME_PHP: the zend_function being run and its kind, the line of its
 * opline): a function as PHP's own backtraces name it ("foo",
 * "Foo\Bar::baz", "{closure}", "Foo::{closure}"; PHP 8.4's closures carry
 * their file and line in their name), "{main}" for the script's own code (php -r's too),
 * "{include}" for a file's that include or require runs, "{eval}" for an
 * eval()'s; the function's file, read from the process's memory
 * (/proc/PID/mem) with the offsets of its interpreter
 * (core/runtimes/php/phruntime.h). A function's name and file are read at
 * BPF's first sight of it, while it lives (a closure's function is freed
 * with it); else when the frame is named. Memory of a profiled process is
 * untrusted: every length is bounded, every function's type, tag and
 * lines checked, and what does not check out names the frame "<unknown>".
 */
#ifndef UNWPROF_PHFRAMES_H
#define UNWPROF_PHFRAMES_H

#include <stddef.h>
#include <stdint.h>

struct phruntime;
struct ph_offsets;
struct phframes;

struct ph_frame_name {
	const char *name;    /* "Foo::bar"; "<unknown>" when it does not check out */
	const char *file;    /* the function's file; "<unknown>" when it does not check out */
	uint32_t line;	     /* the frame's line; 0 when unknown, or outside its function */
	uint32_t first_line; /* the function's first line; 0 when unknown */
};

struct phframes *phframes__new(void);
void phframes__free(struct phframes *n);

/*
 * Process pid runs the interpreter pr loaded at bias; called again with the
 * same, it keeps what it knows, with another one it starts over (an exec).
 */
int phframes__add_process(struct phframes *n, uint32_t pid, const struct phruntime *pr,
			  uint64_t bias);
/* Process pid was forked from ppid: the same interpreter, read from its own memory. */
int phframes__fork(struct phframes *n, uint32_t ppid, uint32_t pid);
/* The process exited: its memory and what was read of it are dropped. */
void phframes__remove_process(struct phframes *n, uint32_t pid);

/* Reads the function of first word what with tag tag (see phframes__name) of pid now, if not yet. */
void phframes__read_function(struct phframes *n, uint32_t pid, uint64_t what, uint16_t tag);

/*
 * Takes the copy BPF made of the file and lines of a file's or an eval's
 * code, of first word what with tag tag, of pid (its memory is often freed
 * before it could be read), if it checks out; else reads it now.
 */
void phframes__read_code(struct phframes *n, uint32_t pid, uint64_t what, uint16_t tag,
			 const char *file, uint32_t line_start, uint32_t line_end);

/*
 * Names frame (what, where) of pid into *out: what the first word's value
 * (its kind and the zend_function's address), where the second word (the
 * line, and the function's tag). The strings stay valid until the process
 * is removed. 0, or -ENOENT when pid was never added.
 */
int phframes__name(struct phframes *n, uint32_t pid, uint64_t what, uint64_t where,
		   struct ph_frame_name *out);

/*
 * The readers of an interpreter's memory, exposed for the tests and the
 * fuzzer: read(ctx, addr, buf, len) reads all of it (0) or nothing
 * (-EFAULT).
 */
struct ph_mem {
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
	const struct ph_offsets *off;
};

/* What phframes__function reads of a function. */
struct ph_function {
	char name[2 * 1024 + 8];
	char file[1024];
	uint32_t line_start, line_end;
};

/*
 * The function of frame word what (its kind and address) whose tag
 * (bpf/unwind_php.h: UNW_CODE_TAG of its name's pointer, or a file's or an
 * eval's code's filename's) is tag, into *f:
 * 0, or -EINVAL (not a user function or code, another one than the
 * frame's, a name or file that does not check out).
 */
int phframes__function(const struct ph_mem *m, uint64_t what, uint16_t tag, struct ph_function *f);

#endif
