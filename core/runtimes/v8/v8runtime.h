/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a walk of V8's frames and its namer need to know of one V8, read
 * from its ELF file (node, or a libnode.so): its version
 * (v8::internal::Version), where its embedded builtins' code is
 * (v8_Default_embedded_blob_code_ and its size, in .symtab; in a stripped
 * file, the largest stretch of .text without CFI), and V8's own
 * description of its layout, the v8dbg_ symbols its build exports for
 * debuggers (gen-postmortem-metadata.py), each an int:
 *
 *   v8dbg_off_fp_*: a JavaScript frame's slots below its frame pointer
 *   (its context, or a frame type's marker; its JSFunction; an
 *   interpreted frame's BytecodeArray and bytecode offset).
 *   v8dbg_class_C__F__T: field F of class C (a HeapObject's map, a Map's
 *   instance type, a JSFunction's SharedFunctionInfo, a
 *   SharedFunctionInfo's name or ScopeInfo, function data and Script, a
 *   Script's name, source and line ends, the fields of the String kinds).
 *   v8dbg_type_C__T: class C's instance type; v8dbg_*Tag, *Mask: the tags
 *   of pointers, Smis and strings.
 *
 * A few fields the metadata lost across versions (a BytecodeArray's source
 * position table, a SharedFunctionInfo's function data in V8 12 and
 * later, a Code's deoptimization data and source positions in V8 12, its
 * instructions in V8 11) are placed next to one it has, as the layout of
 * V8's classes puts them; tests/oracle/v8_offsets.py checks them against
 * V8's own printer in a running node. Compiled code: an InstructionStream,
 * its Code, the Code's deoptimization data (the functions inlined, their
 * positions) and source position table.
 * A V8 whose metadata lacks what is needed is refused.
 */
#ifndef UNWPROF_V8RUNTIME_H
#define UNWPROF_V8RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct elf_file;
struct json_writer;

/* V8's layout, as its v8dbg_ symbols give it: offsets in bytes, instance types. */
struct v8_layout {
	int32_t fp_marker, fp_function, fp_bytecode_array, fp_bytecode_offset;
	int32_t map, instance_type;
	int32_t fn_shared;
	int32_t sfi_name, sfi_data, sfi_script;
	int32_t script_name, script_source, script_line_ends;
	int32_t array_length; /* FixedArrayBase, ByteArray: the length, a Smi */
	int32_t string_length, seq_one_chars, seq_two_chars;
	int32_t cons_first, cons_second, thin_actual, sliced_parent, sliced_offset;
	int32_t bytecode_data; /* BytecodeArray: its bytecodes, the header's size */
	int32_t bytecode_positions;
	int32_t scope_first_vars, scope_ncontextlocals;
	int32_t type_function_first, type_function_last;
	int32_t type_sfi, type_script, type_scope_info, type_bytecode_array;
	int32_t type_byte_array, type_trusted_byte_array, type_fixed_array;
	int32_t first_nonstring, string_repr_mask, string_enc_mask, one_byte_tag;
	int32_t seq_tag, cons_tag, sliced_tag, thin_tag, external_tag;
	/*
	 * Compiled code, for the functions inlined into it (-1: not read; V8
	 * 12 and later): an InstructionStream's type, its Code and where its
	 * instructions start; a Code's type, its instruction stream,
	 * instructions and their size, its deoptimization data and source
	 * position table; the deoptimization data's entries.
	 */
	int32_t type_instruction_stream, is_code, is_instructions;
	int32_t type_code, code_stream, code_instructions, code_size, code_deopt, code_positions;
	int32_t deopt_inlined_count, deopt_literals, deopt_inlining;
	/* the code's own function: a SharedFunctionInfo (V8 11), or its wrapper's (V8 12) */
	int32_t deopt_sfi, deopt_wrapped_sfi, wrapper_sfi;
};

struct v8runtime {
	uint32_t major, minor, build, patch;
	uint64_t builtins_lo, builtins_hi; /* file addresses; 0: not known */
	bool builtins_guessed;		   /* the largest stretch of .text without CFI */
	const char *missing;		   /* the v8dbg_ symbol of a layout refused */
	struct v8_layout l;
};

/*
 * Reads the V8 of ef into *r: 0; -ENOENT when ef has no V8 (no v8dbg_
 * symbols); -ENOTSUP when its layout cannot be described (r->missing says
 * what lacks, its version is read); -EINVAL, -ENOMEM.
 */
int v8runtime__read(const struct elf_file *ef, struct v8runtime *r);

void v8runtime__print(FILE *f, const struct v8runtime *r);
void v8runtime__print_json(struct json_writer *jw, const struct v8runtime *r);

#endif
