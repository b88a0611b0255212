/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The namer of HotSpot's frames (bpf/unwind_hotspot.h: a frame's kind and
 * Method* or code blob, its bcp or pc), reading the JVM's memory with the
 * layout its own tables gave (hsruntime.h):
 *
 *   Method* -> _constMethod -> ConstMethod: _constants (the constant
 *   pool), _name_index; ConstantPool: _pool_holder (the class, a Klass,
 *   whose _name is a Symbol "java/util/ArrayList"), _length, and its
 *   entries after its header (sizeof(ConstantPool)), an utf8 entry a
 *   Symbol*: the method's name, the class's source file
 *   (_source_file_name_index). A Symbol: _length, then its bytes (_body).
 *
 * A method is named as a Java developer reads it, "java.util.ArrayList.sort",
 * its file "ArrayList.java"; an interpreted frame's line from its bytecode
 * index (bcp - the ConstMethod's end, where the bytecodes begin) and the
 * method's compressed line number table, after its bytecodes (JDK 17's
 * encoding: a byte (bci delta << 3 | line delta), or 0xff and two signed
 * ints, each in HotSpot's variable-length code of 6 bits a byte past the
 * first's 192; 0 ends it). A stub or adapter is named by its code blob's
 * name. The memory is untrusted: every read is bounded, every name
 * checked printable, what does not check out is "<unknown>".
 */
#ifndef UNWPROF_HSFRAMES_H
#define UNWPROF_HSFRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "hsruntime.h"

struct hsframes;

struct hs_frame_name {
	const char *name; /* "java.util.ArrayList.sort"; "<unknown>" when it does not check out */
	const char *file; /* "ArrayList.java"; NULL when none (a stub) or unknown */
	uint32_t line;	  /* 0 when unknown */
	/* A compiled frame's methods inlined into it at its pc, innermost first. */
	uint32_t nr_inlined;
	const struct hs_frame_name *inlined;
	uint64_t key; /* what tells its place apart in its method: a line, a pc's scopes */
};

struct hsframes *hsframes__new(void);
void hsframes__free(struct hsframes *n);

/* Process pid runs the JVM of hr at bias: its tables are read now, its frames named from its memory. */
int hsframes__add_process(struct hsframes *n, uint32_t pid, const struct hsruntime *hr,
			  uint64_t bias);
void hsframes__remove_process(struct hsframes *n, uint32_t pid);

/*
 * Reads the name (and lines, an nmethod's scopes) of a frame's first word
 * what of pid now, if not yet: BPF first saw it (its code event's tag).
 */
void hsframes__read(struct hsframes *n, uint32_t pid, uint64_t what, uint32_t tag);

/*
 * Names frame (what, where) of pid (the two words of bpf/unwind_hotspot.h)
 * in *out, valid until the process is removed. 0, or -ENOENT when pid is
 * not known.
 */
int hsframes__name(struct hsframes *n, uint32_t pid, uint64_t what, uint64_t where,
		   struct hs_frame_name *out);

/* The readers the namer is made of, on any memory (the fuzz target's, the unit test's). */
struct hs_mem {
	hs_read_fn read;
	void *ctx;
	const struct hs_layout *l;
};

/* Method m's name ("pkg.Class.method") into name, its source file into file (""): 0 or -EINVAL. */
int hsframes__method(const struct hs_mem *m, uint64_t method, char *name, size_t name_size,
		     char *file, size_t file_size);
/* A line of a method's table: from bytecode index bci on. */
struct hs_line {
	uint32_t bci, line;
};

/*
 * The line table of method m: where its bytecodes begin and their size, its
 * pairs (an array to free, NULL when it has none). 0 or -EINVAL.
 */
int hsframes__lines(const struct hs_mem *m, uint64_t method, uint64_t *code, uint32_t *code_size,
		    struct hs_line **pairs, size_t *nr);
/* The line of bytecode index bci, as HotSpot's Method::line_number_from_bci finds it; 0: none. */
uint32_t hsframes__line_of(const struct hs_line *pairs, size_t nr, uint32_t bci);
/* The line of bytecode pointer bcp in method m: 0 and *line, or -EINVAL, -ENOENT (none). */
int hsframes__line(const struct hs_mem *m, uint64_t method, uint64_t bcp, uint32_t *line);
/* A scope of a compiled method at a pc: the method (inlined, or the nmethod's own) and its bci. */
struct hs_scope {
	uint64_t method;
	int32_t bci; /* -1: the method's entry */
};

/* A PcDesc of an nmethod: its pc (from the code's begin) and its scopes, innermost first. */
struct hs_pc {
	int32_t pc_offset;
	uint32_t first, nr; /* in the scopes */
};

/*
 * What is read of an nmethod (JDK 17's): its Method*, its code's begin,
 * its PcDescs, sorted by pc, and their scopes, each decoded from its
 * scopes data (DebugInfoReadStream: the sender's decode offset, the
 * method's index in its metadata, the bci + 1, each an int of HotSpot's
 * variable-length code; a sender offset of 0 ends the chain).
 */
struct hs_nmethod {
	uint64_t method, code_begin;
	struct hs_pc *pcs;
	size_t nr_pcs;
	struct hs_scope *scopes;
	size_t nr_scopes;
};

/* The nmethod at nm into *out (to free with hsframes__nmethod_free): 0 or -EINVAL. */
int hsframes__nmethod(const struct hs_mem *m, uint64_t nm, struct hs_nmethod *out);
void hsframes__nmethod_free(struct hs_nmethod *x);
/* The PcDesc of the frame at code offset off: the one at it, else the first past it; -1: none. */
long hsframes__pc(const struct hs_nmethod *x, int64_t off);

/* The name of code blob blob into buf: 0 or -EINVAL. */
int hsframes__blob_name(const struct hs_mem *m, uint64_t blob, char *buf, size_t size);

#endif
