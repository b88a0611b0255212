/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a walk of CPython's frames needs to know of one interpreter, read
 * from its ELF file (the python3.X executable when libpython is linked in
 * statically, else libpython3.X.so): the version, where _PyRuntime is, the
 * range of the eval loop, and the offsets of the fields that lead from
 * _PyRuntime to each thread's state, from a thread state to its frames,
 * and from a frame to its code object's names and line table.
 *
 *   _PyRuntime .interpreters_head -> PyInterpreterState .threads_head ->
 *   PyThreadState (.next, .thread_id = pthread_self, .native_thread_id = tid)
 *   .frame -> the innermost frame:
 *     3.6-3.10  PyFrameObject: .previous (f_back), .code, .instr (f_lasti)
 *     3.11-3.12 via .cframe -> _PyCFrame.current_frame, then
 *     3.11+     _PyInterpreterFrame: .previous, .code (f_code, 3.13
 *               f_executable), .instr (prev_instr, 3.13 instr_ptr),
 *               .owner (3.11 .is_entry too)
 *   code object: co_name, co_qualname (3.11+), co_filename, co_firstlineno,
 *   co_linetable (3.10+; co_lnotab before), the first instruction
 *   (co_code_adaptive, inline, 3.11+; before, co_code -> PyBytesObject .ob_sval);
 *   names are compact ASCII strings: length, state (ascii and compact bits),
 *   characters at str.data.
 *
 * Where the offsets come from: from 3.13 on, CPython keeps a table of them,
 * _Py_DebugOffsets, at the start of _PyRuntime, read here from the file
 * (checked against its version, its build and the size of each struct it
 * describes), so that a patch release that moves a field is read as it
 * is; older versions from a table in pyruntime.c, checked against the
 * DWARF of each build by tests/oracle/python_runtime.py. What is neither
 * is refused (-ENOTSUP), never guessed: a minor version whose layout of
 * _Py_DebugOffsets is not known here (3.16 on), free-threaded builds,
 * versions before 3.6, architectures other than x86_64 and aarch64 (LP64
 * both, with one layout; the table was checked on aarch64 against Debian's
 * arm64 python3.11-dbg), and, on aarch64, versions before 3.11, whose
 * version is read from x86_64 code. A refused interpreter keeps its version and its
 * eval loop, so that its samples are counted (python-version-unsupported).
 *
 * 3.14 on: f_executable is a _PyStackRef, whose low bits are tags (the
 * walk masks them), and an activation's first frame is owned by
 * FRAME_OWNED_BY_INTERPRETER, 3 as FRAME_OWNED_BY_CSTACK was before.
 *
 * The version: Py_Version (3.11+); before, the string Py_GetVersion()
 * formats (the address it loads, x86_64 code), which must agree with the
 * file name (libpython3.X.so, python3.X) when it names one.
 *
 * 3.6 has no _PyRuntime: its interpreter list and TLS key are the static
 * variables interp_head and autoTLSkey, found only in a symbol table
 * (.symtab), so a stripped 3.6 is refused.
 */
#ifndef UNWPROF_PYRUNTIME_H
#define UNWPROF_PYRUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct elf_file;

/* An offset that the version does not have. */
#define PY_OFF_NONE (-1)

/* The offsets by their index in py_offset_names, in the order of struct py_offsets. */
enum py_offset_index {
	PY_O_RUNTIME_INTERPRETERS_HEAD,
	PY_O_RUNTIME_TSS_KEY,
	PY_O_INTERP_NEXT,
	PY_O_INTERP_THREADS_HEAD,
	PY_O_TSTATE_NEXT,
	PY_O_TSTATE_THREAD_ID,
	PY_O_TSTATE_NATIVE_THREAD_ID,
	PY_O_TSTATE_FRAME,
	PY_O_CFRAME_CURRENT_FRAME,
	PY_O_FRAME_PREVIOUS,
	PY_O_FRAME_CODE,
	PY_O_FRAME_INSTR,
	PY_O_FRAME_OWNER,
	PY_O_FRAME_IS_ENTRY,
	PY_O_CODE_NAME,
	PY_O_CODE_QUALNAME,
	PY_O_CODE_FILENAME,
	PY_O_CODE_FIRSTLINENO,
	PY_O_CODE_LINETABLE,
	PY_O_CODE_LNOTAB,
	PY_O_CODE_CODE,
	PY_O_CODE_ADAPTIVE,
	PY_O_BYTES_SVAL,
	PY_O_STR_LENGTH,
	PY_O_STR_STATE,
	PY_O_STR_DATA,
	PY_O_STR_ASCII_BIT,
	PY_O_STR_COMPACT_BIT,
	PY_O_NR,
};

/* Offsets in bytes (bits for the two *_bit fields); PY_OFF_NONE when absent. */
struct py_offsets {
	int32_t runtime_interpreters_head; /* 3.6: 0, interp_head is the head itself */
	int32_t runtime_tss_key;	   /* Py_tss_t autoTSSkey (3.7-3.12); its key at +4 */
	int32_t interp_next;
	int32_t interp_threads_head;
	int32_t tstate_next;
	int32_t tstate_thread_id;
	int32_t tstate_native_thread_id; /* 3.11+ */
	int32_t tstate_frame;		 /* frame, cframe (3.11-3.12), current_frame (3.13) */
	int32_t cframe_current_frame;	 /* 3.11-3.12 */
	int32_t frame_previous;
	int32_t frame_code;
	int32_t frame_instr;
	int32_t frame_owner;	/* 3.11+ */
	int32_t frame_is_entry; /* 3.11 */
	int32_t code_name;
	int32_t code_qualname; /* 3.11+ */
	int32_t code_filename;
	int32_t code_firstlineno;
	int32_t code_linetable; /* 3.10+ */
	int32_t code_lnotab;	/* 3.6-3.9 */
	int32_t code_code;	/* 3.6-3.10: a PyBytesObject */
	int32_t code_adaptive;	/* 3.11+: the instructions themselves */
	int32_t bytes_sval;	/* 3.6-3.10, 3.13+ */
	int32_t str_length;
	int32_t str_state;
	int32_t str_data;
	int32_t str_ascii_bit; /* bit numbers in the state word */
	int32_t str_compact_bit;
};

enum py_version_source {
	PY_VERSION_FROM_PY_VERSION = 1, /* the Py_Version symbol */
	PY_VERSION_FROM_GETVERSION,	/* the string Py_GetVersion() formats */
};

enum py_offsets_source {
	PY_OFFSETS_TABLE = 1,	  /* pyruntime.c's table of versions */
	PY_OFFSETS_DEBUG_OFFSETS, /* _Py_DebugOffsets in the file */
};

/* How frames are laid out. */
enum py_frame_layout {
	PY_FRAME_OBJECT = 1,  /* 3.6-3.10: PyFrameObject, f_lasti */
	PY_FRAME_INTERPRETER, /* 3.11+: _PyInterpreterFrame, an instruction pointer */
};

/* The field of a code object its name is read from: co_qualname where there is one. */
static inline int32_t pyruntime__code_name_off(const struct py_offsets *o)
{
	return o->code_qualname != PY_OFF_NONE ? o->code_qualname : o->code_name;
}

/* Its line table: co_linetable (3.10+) or co_lnotab, a bytes object. */
static inline int32_t pyruntime__code_table_off(const struct py_offsets *o)
{
	return o->code_linetable != PY_OFF_NONE ? o->code_linetable : o->code_lnotab;
}

/* PyBytesObject.ob_sval, where the table gives none (3.11, 3.12). */
#define PY_BYTES_SVAL_311 32

static inline int32_t pyruntime__bytes_data_off(const struct py_offsets *o)
{
	return o->bytes_sval != PY_OFF_NONE ? o->bytes_sval : PY_BYTES_SVAL_311;
}

struct pyruntime {
	uint32_t version_hex; /* as PY_VERSION_HEX: 0x030b07f0 is 3.11.7 final */
	uint8_t major, minor, micro;
	enum py_version_source version_source;
	enum py_offsets_source offsets_source;
	enum py_frame_layout frame_layout;
	const char *runtime_symbol;  /* "_PyRuntime", or "interp_head" (3.6) */
	uint64_t runtime;	     /* ELF virtual addresses */
	uint64_t tls_key;	     /* of the pthread key of the thread states; 0: none */
	uint64_t eval_lo, eval_hi;   /* _PyEval_EvalFrameDefault: [lo, hi) */
	uint64_t cold_lo, cold_hi;   /* its .cold part, 0 when none is known: */
	bool cold_from_fde;	     /* found in .eh_frame, no symbol naming it */
	bool free_threaded;	     /* _Py_DebugOffsets says so: refused */
	uint32_t from_debug_offsets; /* bit i: py_offset_names[i] read from _Py_DebugOffsets */
	struct py_offsets off;
	char why[160]; /* why the file was refused (-ENOTSUP, -EINVAL), for its one warning */
};

/*
 * Reads the CPython runtime of ef into *pr. 0; -ENOENT when ef is not a
 * CPython interpreter or libpython (no _PyRuntime or interp_head, no
 * _PyEval_EvalFrameDefault); -ENOTSUP when it is one whose version, build
 * or layout is not known here; -EINVAL when what it says is inconsistent
 * or lies outside the file. Either error says why in pr->why (and at debug
 * level); after -ENOTSUP, the version and the eval loop's ranges are set
 * when they could be read (version_hex and eval_lo not 0), the offsets not.
 */
int pyruntime__read(const struct elf_file *ef, struct pyruntime *pr);

struct json_writer;
/*
 * What dump-unwind shows of p: lines of its summary, or its "python"
 * member; of a CPython refused (its version known, its frames not read),
 * its version and why.
 */
void pyruntime__print(FILE *f, const struct pyruntime *p, bool refused);
void pyruntime__print_json(struct json_writer *jw, const struct pyruntime *p, bool refused);

/*
 * Jumps (jmp and jcc with a 32-bit displacement, x86_64) in the len bytes
 * of code at vaddr whose target is in [lo, hi): how the .cold part of a
 * stripped eval loop is found (exposed for the tests).
 */
uint32_t pyruntime__jumps_into(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t lo,
			       uint64_t hi);

/* "3.11.7", "3.13.0rc1" into buf; returns buf. */
const char *pyruntime__version_str(const struct pyruntime *pr, char *buf, size_t size);

/* The offsets by name ("tstate.next", ...), for printing and tests. */
struct py_offset_name {
	const char *name;
	size_t field; /* offsetof(struct py_offsets, ...) */
};
extern const struct py_offset_name py_offset_names[];
extern const size_t py_offset_names_count;

/* The value of py_offset_names[i] in off. */
int32_t pyruntime__offset(const struct py_offsets *off, size_t i);

/*
 * Where offset i of pr came from, for dump-unwind: "_Py_DebugOffsets",
 * "table" (pyruntime.c's, 3.6-3.12) or "constant" (3.13 on, what
 * _Py_DebugOffsets does not hold: the bits of a string's state, fixed by
 * CPython's ABI and checked against the DWARF of each build).
 */
const char *pyruntime__offset_source(const struct pyruntime *pr, size_t i);

#endif
