/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Naming the Python frames the BPF walk records (bpf/abi.h,
 * UNW_FRAME_PYTHON: a code object's address and where in it the frame
 * was): the code object's qualified name, file and first line, and the line
 * being run, read from the process's memory (/proc/PID/mem) while it lives,
 * with the offsets of its interpreter (core/runtimes/python/pyruntime.h). A code object is
 * read once per process; its line table is kept to find the line of each
 * instruction. Memory of a profiled process is untrusted: every length is
 * bounded, and what cannot be read names the frame "<unknown>".
 */
#ifndef UNWPROF_PYFRAMES_H
#define UNWPROF_PYFRAMES_H

#include <stddef.h>
#include <stdint.h>

struct pyruntime;
struct pyframes;
struct unw_py_code_event;

struct py_frame_name {
	const char *qualname; /* co_qualname (3.11+), else co_name */
	const char *file;     /* co_filename */
	uint32_t line;	      /* the line being run; 0 when unknown */
	uint32_t first_line;  /* co_firstlineno */
};

struct pyframes *pyframes__new(void);
void pyframes__free(struct pyframes *n);

/*
 * Process pid runs the interpreter pr loaded at bias (process address =
 * ELF address + bias); called again, it replaces what was known (an exec).
 */
int pyframes__add_process(struct pyframes *n, uint32_t pid, const struct pyruntime *pr,
			  uint64_t bias);
/* The process exited: its memory and code objects are dropped. */
void pyframes__remove_process(struct pyframes *n, uint32_t pid);

/*
 * Reads the code object of event e (size bytes, as BPF sent it) now, if it
 * was not read yet: from the copies the event holds, the rest from the
 * process. Its names then outlive the code object and the process.
 */
void pyframes__read_code(struct pyframes *n, const struct unw_py_code_event *e, size_t size);

/*
 * Names frame (code, where) of pid into *out (where as BPF writes it, the
 * code object's tag in its top bits); the strings stay valid until
 * the process is removed. 0, or -ENOENT when pid was never added.
 */
int pyframes__name(struct pyframes *n, uint32_t pid, uint64_t code, uint64_t where,
		   struct py_frame_name *out);

/*
 * The line of instruction at in a code object's line table (exposed for
 * the tests): table is in the format of CPython 3.minor (3.6-3.9 co_lnotab,
 * 3.10 co_linetable, 3.11+ the location table), its lines counted from
 * first_line; at counts code units from 3.10 on, bytes before (f_lasti as
 * each version has it). 0 when the table has no line for it.
 */
uint32_t pyframes__line_of(const uint8_t *table, size_t size, int minor, uint32_t first_line,
			   uint64_t at);

#endif
