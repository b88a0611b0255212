/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CPython, what user space and BPF share of it (bpf/runtimes.h): the value
 * of its process map, the words of its frames, the event of a code object
 * first seen, and its reasons. Its walk is bpf/unwind_python.bpf.h; what it
 * reads of an interpreter and how it names frames, core/runtimes/python/.
 */
#ifndef UNWPROF_UNWIND_PYTHON_H
#define UNWPROF_UNWIND_PYTHON_H

/* How the first frame of one _PyEval_EvalFrameDefault activation is known. */
enum unw_py_entry {
	UNW_PY_ENTRY_EACH = 0, /* before 3.11: each activation runs one frame */
	UNW_PY_ENTRY_FLAG,     /* 3.11: the frame's is_entry byte (at frame_owner) is set */
	/*
	 * 3.12+: a shim frame whose owner is owner_cstack ends it (3.12, 3.13
	 * FRAME_OWNED_BY_CSTACK, 3.14+ FRAME_OWNED_BY_INTERPRETER, both 3); a
	 * frame of a higher owner (3.14's FRAME_OWNED_BY_CSTACK) runs no code:
	 * it is left out.
	 */
	UNW_PY_ENTRY_SHIM,
};

/*
 * Value of the Python map (python_procs), keyed by pid: how the Python unwinder finds the
 * current frame of the sampled thread and walks its frames. Offsets are
 * those of the interpreter's version (core/runtimes/python/pyruntime.h); runtime is the
 * process's address of _PyRuntime. The thread is found by its pthread_t,
 * which the thread pointer gives (bpf/walk_state.bpf.h: pthread_is_thread).
 */
struct unw_python_proc {
	__u64 runtime;
	__u32 interp_head;  /* _PyRuntime.interpreters.head */
	__u32 threads_head; /* PyInterpreterState.threads.head */
	__u32 tstate_next;
	__u32 tstate_thread_id;
	__u32 tstate_frame;   /* ->frame (< 3.11), ->cframe (3.11, 3.12), ->current_frame (3.13+) */
	__s32 cframe_frame;   /* _PyCFrame.current_frame; -1: tstate_frame is the frame */
	__u32 frame_code;     /* f_code, f_executable */
	__u32 frame_previous; /* f_back, previous */
	__u32 frame_instr;    /* f_lasti (int), prev_instr, instr_ptr */
	__u32 frame_owner;    /* is_entry (3.11), owner (3.12+) */
	__u8 entry;	      /* enum unw_py_entry */
	__u8 instr_is_index;  /* frame_instr is f_lasti, a 32-bit index, not a pointer */
	__u8 owner_cstack;    /* the owner of a shim frame */
	__u8 frame_len;	      /* bytes of a frame holding every field read: 8 past the last */
	__u16 code_id;	      /* offset of a code object's co_filename: its tag (UNW_PY_TAG) */
	/* What struct unw_py_code_event copies of a code object: */
	__u16 code_len;	  /* bytes of a code object holding every field named: 8 past the last */
	__u16 code_name;  /* co_qualname, or co_name before 3.11 */
	__u16 code_table; /* co_linetable, or co_lnotab before 3.10: a bytes object */
	__u16 str_length; /* a str object's length (of its compact ASCII data) */
	__u16 str_data;	  /* its compact ASCII data */
	__u16 bytes_data; /* a bytes object's data; its size is at UNW_PY_VAR_SIZE */
	/*
	 * An interpreter whose frames are not read (a version or build not
	 * known, core/runtimes/python/pyruntime.h): its eval loop's samples count
	 * UNW_E_PY_VERSION and are walked as native code; nothing else is set.
	 */
	__u8 refused;
	__u8 pad[5];
};

/* PyVarObject.ob_size, in every version. */
#define UNW_PY_VAR_SIZE 16

/*
 * A Python frame (UNW_FRAME_PYTHON) is two words: the code object's
 * address, then where its frame is: the instruction pointer (3.11+), or the
 * index of the last instruction (f_lasti, before), with, in its top 16
 * bits, the code object's tag (bpf/abi.h, UNW_CODE_TAG of its co_filename
 * pointer).
 */
#define UNW_PY_TAG_SHIFT 48
#define UNW_PY_TAG(ptr) UNW_CODE_TAG(ptr)

/*
 * Python's code event (UNW_EV_CODE: addr the code object, tag its tag)
 * carries copies of the code object and of the objects it names, taken
 * when it is first seen: a module's code is freed once the
 * module has run, often before user space could read it. A part too big
 * to copy, or unreadable, has len 0 and is read from the process instead.
 */
enum unw_py_part {
	UNW_PY_PART_CODE = 0, /* code_len bytes of the code object */
	UNW_PY_PART_NAME,     /* the str object of its name, to the end of its data */
	UNW_PY_PART_FILE,     /* the str object of its file name */
	UNW_PY_PART_TABLE,    /* the bytes object of its line table */
	UNW_PY_PARTS,
};

#define UNW_PY_CODE_MAX 256
#define UNW_PY_STR_MAX 512
#define UNW_PY_TABLE_MAX 16384
#define UNW_PY_COPY_MAX (UNW_PY_CODE_MAX + 2 * UNW_PY_STR_MAX + UNW_PY_TABLE_MAX)

struct unw_py_copy {
	__u64 addr; /* where in the process the bytes were */
	__u32 len;
	__u32 pad;
};

/* Sent with as many bytes of data as the copies hold. */
struct unw_py_code_event {
	struct unw_event ev; /* addr: the code object; tag: its tag */
	struct unw_py_copy copies[UNW_PY_PARTS];
	__u8 data[UNW_PY_COPY_MAX]; /* the copies' bytes, one after the other */
};

/* Why the Python frames of a sample were left out, or some of them. */
#define UNW_PYTHON_ERRORS(X)                                                      \
	X(PY_THREAD, "python-thread-not-found",                                   \
	  "a Python thread whose state was not found: no Python frames")          \
	X(PY_FRAME, "python-frame-unreadable",                                    \
	  "a Python frame could not be read: the activation's others left out")   \
	X(PY_DEPTH, "python-frames-truncated",                                    \
	  "more Python frames in one activation than written: the rest left out") \
	X(PY_VERSION, "python-version-unsupported",                               \
	  "in the eval loop of a CPython whose frames are not read: native frames only")

_Static_assert(sizeof(struct unw_python_proc) == 72, "unw_python_proc layout");
_Static_assert(sizeof(struct unw_py_copy) == 16, "unw_py_copy layout");
_Static_assert(sizeof(struct unw_py_code_event) == 24 + 16 * UNW_PY_PARTS + UNW_PY_COPY_MAX,
	       "unw_py_code_event layout");

#endif
