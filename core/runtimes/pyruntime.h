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
 * Where the offsets come from: 3.13 keeps a table of them, _Py_DebugOffsets,
 * at the start of _PyRuntime, read here from the file; older versions from
 * a table in pyruntime.c, checked against the DWARF of each build by
 * tests/oracle/python_runtime.py. A version without either is refused
 * (-ENOTSUP), never guessed: 3.14 and later (another _Py_DebugOffsets),
 * free-threaded builds, versions before 3.6, and architectures other than
 * x86_64, on which the table was not checked.
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

struct elf_file;

/* An offset that the version does not have. */
#define PY_OFF_NONE (-1)

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
	int32_t bytes_sval;	/* 3.6-3.10 */
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
static inline int32_t py_code_name_off(const struct py_offsets *o)
{
	return o->code_qualname != PY_OFF_NONE ? o->code_qualname : o->code_name;
}

/* Its line table: co_linetable (3.10+) or co_lnotab, a bytes object. */
static inline int32_t py_code_table_off(const struct py_offsets *o)
{
	return o->code_linetable != PY_OFF_NONE ? o->code_linetable : o->code_lnotab;
}

/* PyBytesObject.ob_sval, where the table gives none (3.11 on). */
#define PY_BYTES_SVAL_311 32

static inline int32_t py_bytes_data_off(const struct py_offsets *o)
{
	return o->bytes_sval != PY_OFF_NONE ? o->bytes_sval : PY_BYTES_SVAL_311;
}

struct py_runtime {
	uint32_t version_hex; /* as PY_VERSION_HEX: 0x030b07f0 is 3.11.7 final */
	uint8_t major, minor, micro;
	enum py_version_source version_source;
	enum py_offsets_source offsets_source;
	enum py_frame_layout frame_layout;
	const char *runtime_symbol; /* "_PyRuntime", or "interp_head" (3.6) */
	uint64_t runtime;	    /* ELF virtual addresses */
	uint64_t tls_key;	    /* of the pthread key of the thread states; 0: none */
	uint64_t eval_lo, eval_hi;  /* _PyEval_EvalFrameDefault: [lo, hi) */
	uint64_t cold_lo, cold_hi;  /* its .cold part, 0 when none is known: */
	bool cold_from_fde;	    /* found in .eh_frame, no symbol naming it */
	struct py_offsets off;
};

/*
 * Reads the CPython runtime of ef into *pr. 0; -ENOENT when ef is not a
 * CPython interpreter or libpython (no _PyRuntime or interp_head, no
 * _PyEval_EvalFrameDefault); -ENOTSUP when it is one whose version or
 * layout is not known here (said at debug level); -EINVAL when what it
 * says is inconsistent or lies outside the file.
 */
int py_runtime__read(const struct elf_file *ef, struct py_runtime *pr);

/*
 * Jumps (jmp and jcc with a 32-bit displacement, x86_64) in the len bytes
 * of code at vaddr whose target is in [lo, hi): how the .cold part of a
 * stripped eval loop is found (exposed for the tests).
 */
uint32_t py_jumps_into(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t lo, uint64_t hi);

/* "3.11.7", "3.13.0rc1" into buf; returns buf. */
const char *py_runtime__version_str(const struct py_runtime *pr, char *buf, size_t size);

/* The offsets by name ("tstate.next", ...), for printing and tests. */
struct py_offset_name {
	const char *name;
	size_t field; /* offsetof(struct py_offsets, ...) */
};
extern const struct py_offset_name py_offset_names[];
extern const size_t py_offset_names_count;

/* The value of py_offset_names[i] in off. */
int32_t py_offsets__get(const struct py_offsets *off, size_t i);

#endif
