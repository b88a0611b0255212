/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * V8 (node, libnode), what user space and BPF share of it
 * (bpf/runtimes.h): the value of its process map, the words of its frames
 * and its reasons. Its walk is bpf/unwind_v8.bpf.h; what it reads of a
 * node and how it names frames, core/runtimes/v8/.
 */
#ifndef UNWPROF_UNWIND_V8_H
#define UNWPROF_UNWIND_V8_H

/*
 * Value of the V8 map (v8_procs), keyed by pid: where V8's embedded
 * builtins are in the process, and what of a frame and of a heap object
 * the walk reads, from the v8dbg_ symbols of the file
 * (core/runtimes/v8/v8runtime.h). V8's code (the builtins, and the
 * process's executable memory of no file, its JIT code) keeps frame
 * pointers; a JavaScript frame holds its JSFunction below its frame
 * pointer, and an interpreted one its bytecode offset.
 */
struct unw_v8_proc {
	__u64 builtins_lo; /* the embedded builtins' code; 0: not known */
	__u64 builtins_hi;
	__s8 fp_marker;		   /* off_fp_context_or_frame_type: a Smi in a frame of a type */
	__s8 fp_function;	   /* off_fp_function: the JSFunction */
	__s8 fp_bytecode_offset;   /* off_fp_bytecode_offset: a Smi in an interpreted frame */
	__u8 refused;		   /* a layout not read: UNW_E_V8_VERSION, nothing else set */
	__u8 map;		   /* HeapObject: its map */
	__u8 instance_type;	   /* Map: the u16 instance type */
	__u8 shared;		   /* JSFunction: its SharedFunctionInfo */
	__u8 sfi_name;		   /* SharedFunctionInfo: its name or ScopeInfo, its tag's source */
	__u16 type_function_first; /* the instance types of JSFunction and its subclasses */
	__u16 type_function_last;
	__u8 pad2[4];
};

/* V8's tags on 64-bit targets without pointer compression (checked against the file's). */
#define UNW_V8_HEAP_OBJECT_TAG 1
#define UNW_V8_HEAP_OBJECT_MASK 3
#define UNW_V8_SMI_MASK 1
#define UNW_V8_SMI_SHIFT 32
/* Bytes of a frame read at once, from its frame pointer less UNW_V8_FP_BELOW. */
#define UNW_V8_FP_BELOW 48
#define UNW_V8_FP_READ 64

/*
 * A V8 frame (UNW_FRAME_V8) is two words: the first its function's
 * SharedFunctionInfo (an untagged address) and in bits 48 to 55 a tag of
 * it (UNW_V8_TAG of its name or ScopeInfo's pointer), so that another
 * SharedFunctionInfo the garbage collector later puts at the same address
 * is known apart; the second where it runs, its kind (enum unw_v8_kind) in
 * bits 56 to 63 above its value. The code event of a SharedFunctionInfo
 * first seen (addr the address, tag UNW_V8_SFI_TAG plus its tag) has user
 * space read its name, file and position table while the process lives.
 */
enum unw_v8_kind {
	UNW_V8_BYTECODE = 0, /* interpreted: the frame's bytecode offset, as V8 keeps it */
	UNW_V8_PC,	     /* compiled (baseline, Maglev, TurboFan) or a builtin: the pc */
};

#define UNW_V8_KIND_SHIFT 56
#define UNW_V8_VALUE_MASK ((1ULL << UNW_V8_KIND_SHIFT) - 1)
#define UNW_V8_TAG_SHIFT 48
#define UNW_V8_ADDR_MASK ((1ULL << UNW_V8_TAG_SHIFT) - 1)
#define UNW_V8_TAG(p) (UNW_CODE_TAG(p) & 0xff)
#define UNW_V8_SFI_TAG 0x10000u /* past every other runtime's tag: plus the frame's */
/*
 * The code event of a pc of JIT code first seen (addr the pc): user space
 * reads what its code inlined there while the code lives.
 */
#define UNW_V8_PC_TAG 0x10100u

/* Why the V8 frames of a sample were left out, or some of them. */
#define UNW_V8_ERRORS(X)                                                                   \
	X(V8_FRAME, "v8-frame-unreadable",                                                 \
	  "a frame of V8's code whose function did not check out: a native frame instead") \
	X(V8_FP, "v8-frame-pointer-broken",                                                \
	  "a frame of V8's code whose frame pointer does not lead up the stack: the walk " \
	  "ends there")                                                                    \
	X(V8_VERSION, "v8-version-unsupported",                                            \
	  "in the code of a V8 whose frames are not read: native frames only")

_Static_assert(sizeof(struct unw_v8_proc) == 32, "unw_v8_proc layout");

#endif
