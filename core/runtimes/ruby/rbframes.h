/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Naming the Ruby frames the BPF walk records (bpf/abi.h,
 * UNW_FRAME_RUBY: an iseq's address and the frame's pc, or a C method's
 * method entry and UNW_RB_CFUNC): the iseq's label, path and first line,
 * and the line being run, read from the process's memory (/proc/PID/mem)
 * with the offsets of its interpreter (core/runtimes/ruby/rbruntime.h). An iseq is read
 * once per process, when it is first seen; its line table (the entries'
 * lines, and their positions or the succinct index of them) is kept to
 * find the line of each pc, so that its frames can be named after the
 * process is gone. Memory of a profiled process is untrusted: every length
 * is bounded, and what cannot be read names the frame "<unknown>".
 */
#ifndef UNWPROF_RBFRAMES_H
#define UNWPROF_RBFRAMES_H

#include <stddef.h>
#include <stdint.h>

struct rbruntime;
struct rbframes;

struct rb_frame_name {
	const char *label;   /* the iseq's label ("block in handler"); "<cfunc>" for a C method */
	const char *file;    /* its path (pathobj, or pathobj[0]); "<cfunc>" for a C method */
	uint32_t line;	     /* the line being run; 0 when unknown */
	uint32_t first_line; /* the iseq's first_lineno */
};

struct rbframes *rbframes__new(void);
void rbframes__free(struct rbframes *n);

/*
 * Process pid runs the interpreter rr loaded at bias (process address =
 * ELF address + bias); called again with the same, it keeps what it knows
 * (a new mapping), with another one it starts over (an exec).
 */
int rbframes__add_process(struct rbframes *n, uint32_t pid, const struct rbruntime *rr,
			  uint64_t bias);
/*
 * Process pid was forked from ppid, a process of the namer: it runs the
 * same interpreter at the same place until it execs. Its iseqs are read
 * from its own memory, or from its parent's, which held the same ones when
 * it forked, when it is gone already. 0; -ENOMEM.
 */
int rbframes__fork(struct rbframes *n, uint32_t ppid, uint32_t pid);

/* The process exited: its memory and iseqs are dropped. */
void rbframes__remove_process(struct rbframes *n, uint32_t pid);

/*
 * Reads iseq (an address of pid) now, if it was not read yet: its names
 * then outlive the process. Called when BPF first sees it (UNW_EV_CODE).
 */
void rbframes__read_iseq(struct rbframes *n, uint32_t pid, uint64_t iseq, uint64_t where);

/*
 * Names frame (iseq, where) of pid into *out, the iseq's address without
 * its frame kind: where is its pc, or UNW_RB_CFUNC for a C method (iseq
 * is then its method entry, not read). An iseq not read yet is read now.
 * The strings stay valid until the process is removed. 0, or -ENOENT when
 * pid was never added.
 */
int rbframes__name(struct rbframes *n, uint32_t pid, uint64_t iseq, uint64_t where,
		   struct rb_frame_name *out);

/*
 * The rank of instruction position pos in a succinct index table (Ruby
 * 3.1 iseq.c, struct succ_index_table) of size bytes: how many of the
 * positions it holds are at or before pos, the entry of pos's line being
 * the rank's minus one. 0 when the table does not reach pos. Exposed for
 * the tests.
 */
uint32_t rbframes__succ_index_lookup(const uint8_t *table, size_t size, uint32_t pos);

#endif
