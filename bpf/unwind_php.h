/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PHP, what user space and BPF share of it (bpf/runtimes.h): the value of
 * its process map, the words of its frames and its reasons. Its walk is
 * bpf/unwind_php.bpf.h; what it reads of a php and how it names frames,
 * core/runtimes/php/.
 */
#ifndef UNWPROF_UNWIND_PHP_H
#define UNWPROF_UNWIND_PHP_H

/*
 * Value of the PHP map (php_procs), keyed by pid: where the process's
 * executor_globals.current_execute_data is (a build without threads: one
 * executor, the thread that runs PHP), and the offsets of the fields the
 * walk reads (core/runtimes/php/phruntime.h) of a zend_execute_data, of
 * the head of its zend_function and of a zend_op.
 */
struct unw_php_proc {
	__u64 current_execute_data; /* the address of EG(current_execute_data) */
	__u8 refused;	/* a version or build not read: UNW_E_PH_VERSION, nothing else set */
	__u8 ex_opline; /* zend_execute_data: opline, func, This.u1.type_info, prev */
	__u8 ex_func;
	__u8 ex_call_info;
	__u8 ex_prev;
	__u8 fn_name;	  /* zend_function: common.function_name (its type, a byte at 0) */
	__u8 op_lineno;	  /* zend_op: lineno */
	__u8 fn_filename; /* zend_op_array: filename (its line_start and line_end follow) */
	__u8 str_val;	  /* zend_string: val */
	__u8 pad[6];
};

/* PHP's own constants, the same in every version read (zend_compile.h). */
#define UNW_PH_INTERNAL_FUNCTION 1
#define UNW_PH_USER_FUNCTION 2
#define UNW_PH_EVAL_CODE 4
#define UNW_PH_CALL_CODE (1u << 16) /* a file's or an eval's code, not a function's */
#define UNW_PH_CALL_TOP (1u << 17)  /* C code called it: its execute_ex's first frame */
/*
 * Bytes read at once (core/runtimes/php/phruntime.c checks that the
 * fields read lie in them): of a zend_execute_data, from its opline to its
 * prev_execute_data; of a zend_function, its type and name.
 */
#define UNW_PH_EX_READ 56
#define UNW_PH_FN_READ 16

/*
 * A PHP frame (UNW_FRAME_PHP) is two words. The first is the
 * zend_function being run, with its kind (enum unw_ph_kind) in bits 48 to
 * 55; the second its line (the lineno of the frame's opline) in its low
 * 32 bits, and in its top 16 a tag of the function (UNW_CODE_TAG of its
 * name's pointer; of a file's or an eval's code, which has no name, of its
 * filename's), so that another function later at the same address is known
 * apart (an include's or an eval's code is freed once it has run, and the
 * next one's often takes its place; PHP 8.2's closures may share their
 * name's string, "{closure}", as opcache interns it: then one made where
 * another was freed is not known apart, and keeps the first one's file and
 * lines). Its code event (UNW_EV_CODE): a
 * function first seen (addr the first word's value, tag its tag), whose
 * name and file are read then, while it lives; a file's or an eval's code
 * comes with a copy of its file and lines (struct unw_ph_code_event), as it
 * is often freed before user space could read it.
 */
enum unw_ph_kind {
	UNW_PH_FUNCTION = 0, /* a function, a method, a closure */
	UNW_PH_MAIN,	     /* the script's own code (php -r's too): its outermost frame */
	UNW_PH_INCLUDE,	     /* a file's code that include or require runs */
	UNW_PH_EVAL,	     /* an eval()'s code */
};

#define UNW_PH_KIND_SHIFT 48
#define UNW_PH_VALUE_MASK ((1ULL << UNW_PH_KIND_SHIFT) - 1)
#define UNW_PH_TAG_SHIFT 48
#define UNW_PH_LINE_MASK 0xffffffffULL

#define UNW_PH_FILE_MAX 256

struct unw_ph_code_event {
	struct unw_event ev; /* addr: the first word's value; tag: its tag */
	__u32 line_start, line_end;
	__u32 len; /* bytes of file, its NUL too; 0: none copied */
	__u32 pad;
	char file[UNW_PH_FILE_MAX]; /* sent as long as len says */
};

/* Why the PHP frames of a sample were left out, or some of them. */
#define UNW_PHP_ERRORS(X)                                                              \
	X(PH_THREAD, "php-executor-not-found",                                         \
	  "in the executor of a php whose current frame was not found: no PHP frames") \
	X(PH_FRAME, "php-frame-unreadable",                                            \
	  "a PHP frame whose function did not check out: that frame left out")         \
	X(PH_DEPTH, "php-frames-truncated",                                            \
	  "more PHP frames in one activation than written: the rest left out")         \
	X(PH_VERSION, "php-version-unsupported",                                       \
	  "in the executor of a php whose frames are not read: native frames only")

_Static_assert(sizeof(struct unw_php_proc) == 24, "unw_php_proc layout");
_Static_assert(sizeof(struct unw_ph_code_event) == 40 + UNW_PH_FILE_MAX,
	       "unw_ph_code_event layout");

#endif
