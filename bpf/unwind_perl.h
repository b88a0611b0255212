/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Perl, what user space and BPF share of it (bpf/runtimes.h): the value of
 * its process map, the words of its frames and its reasons. Its walk is
 * bpf/unwind_perl.bpf.h; what it reads of a perl and how it names frames,
 * core/runtimes/perl/.
 */
#ifndef UNWPROF_UNWIND_PERL_H
#define UNWPROF_UNWIND_PERL_H

/*
 * Value of the Perl map (perl_procs), keyed by pid: how the Perl unwinder
 * finds the sampled thread's interpreter (PL_current_context, a
 * thread-local variable: at the thread pointer plus the offset the
 * dynamic loader wrote into the GOT slot tls_got, or, in a libperl, in
 * the TLS block of the module whose id it wrote there) and walks its
 * context stacks (core/runtimes/perl/plruntime.h). Addresses are the
 * process's; offsets those of the interpreter's version.
 */
struct unw_perl_proc {
	__u64 tls_got;
	__u32 tls_offset; /* in a libperl: PL_current_context in its module's TLS block */
	__u8 tls_static;  /* tls_got holds the variable's offset from the thread pointer */
	__u8 refused;	  /* a version or build not read: UNW_E_PL_VERSION, nothing else set */
	__u16 interp_op;  /* PerlInterpreter: Iop, Icurcop, Icurstackinfo */
	__u16 interp_curcop;
	__u16 interp_curstackinfo;
	__u8 si_cxstack; /* struct stackinfo */
	__u8 si_prev;
	__u8 si_cxix;
	__u8 si_cxmax;
	__u8 si_type;
	__u8 cx_size; /* struct context: its size, and where in it */
	__u8 cx_oldcop;
	__u8 cx_retop;
	__u8 cx_cv;
	__u8 sv_flags; /* every SV's head: flags, and sv_u (a GV's GP) */
	__u8 sv_u;
	__u8 cv_gv; /* XPVCV: the GV (or a name HEK), the flags, the first op */
	__u8 cv_flags;
	__u8 cv_start;
	__u8 gp_egv;   /* GP: the effective GV */
	__u8 cop_line; /* COP: its line and file, a tag of it */
	__u8 cop_file;
	__u8 op_type;	    /* an op's type, the low 9 bits of the 16 there */
	__u16 op_nextstate; /* the types of a COP: nextstate, dbstate */
	__u16 op_dbstate;
	__u16 op_mapstart; /* the types of the ops of map and grep */
	__u16 op_mapwhile;
	__u16 op_grepstart;
	__u16 op_grepwhile;
	__u8 pad[4];
};

/*
 * Perl's own constants, the same in every version read (cop.h, sv.h,
 * cv.h): a context's type and flags, the stack infos' types, SV types.
 */
#define UNW_PL_CXTYPEMASK 0x0f
#define UNW_PL_CXt_NULL 0 /* only a sort BLOCK's */
#define UNW_PL_CXt_SUB 9
#define UNW_PL_CXt_FORMAT 10
#define UNW_PL_CXt_EVAL 11
#define UNW_PL_CXp_SUB_RE_FAKE 0x80
#define UNW_PL_CXp_EVALBLOCK 0x40 /* eval {} */
#define UNW_PL_CXp_TRY 0x80	  /* try {} */
#define UNW_PL_PERLSI_MAIN 1
#define UNW_PL_PERLSI_SORT 3
#define UNW_PL_SVt_MASK 0x1f
#define UNW_PL_SVt_PVGV 9
#define UNW_PL_SVt_PVCV 13
#define UNW_PL_SVpgv_GP 0x8000
#define UNW_PL_CVf_NAMED 0x8000
/*
 * Bytes read at once (core/runtimes/perl/plruntime.c checks that the
 * fields read lie in them): of a context, every field the walk reads; of
 * an SV, its head (flags, sv_u); of a CV's body, from its GV to its flags;
 * of a COP, from its line to its file.
 */
#define UNW_PL_CX_READ 80
#define UNW_PL_SV_READ 24
#define UNW_PL_CV_READ 40
#define UNW_PL_COP_READ 24
#define UNW_PL_OP_TYPE_MASK 0x1ff /* an op's type: 9 bits */
#define UNW_PL_OP_READ 40	  /* bytes of an op read: op_next (at 0) to its type */

/*
 * A Perl frame (UNW_FRAME_PERL) is two words. The first says what runs
 * there, its kind (enum unw_pl_kind) in bits 48 to 55 above its value;
 * the second is the COP (the statement) being run there: its address,
 * with in its top 16 bits a tag of it (UNW_PL_TAG of its file's pointer
 * and its line), so that another COP later at the same address is known
 * apart (a string eval's are freed once it has run). Its code events
 * (UNW_EV_CODE), to be read while the process lives: a COP first seen
 * (addr the COP, tag its tag), and a sub first seen (addr the value of its
 * frame's first word, tag UNW_PL_NAME_TAG), whose name is read then, as a
 * closure's CV is freed with it.
 */
enum unw_pl_kind {
	UNW_PL_SUB = 0,	  /* a sub (or format) by its GV, the effective one */
	UNW_PL_SUB_NAMED, /* a sub by its CV, which has a name HEK and no GV */
	UNW_PL_EVAL,	  /* a string eval, require or do FILE: value, the op that began it */
	UNW_PL_SORT,	  /* a sort BLOCK */
	UNW_PL_MAIN,	  /* the main program */
	UNW_PL_MAP,	  /* a map's BLOCK or expression */
	UNW_PL_GREP,	  /* a grep's */
};

#define UNW_PL_KIND_SHIFT 48
#define UNW_PL_VALUE_MASK ((1ULL << UNW_PL_KIND_SHIFT) - 1)
#define UNW_PL_TAG_SHIFT 48
#define UNW_PL_TAG(file, line) ((UNW_CODE_TAG(file) ^ (line)) & 0xffff)
#define UNW_PL_NAME_TAG 0x10000u /* past every COP's tag */

/*
 * The code event of a COP carries a copy of its line and file, taken when
 * it is first seen: a string eval's COPs are freed once it has run, often
 * before user space could read them. A file too long, or unreadable, has
 * len 0 and is read from the process instead.
 */
#define UNW_PL_FILE_MAX 256

struct unw_pl_cop_event {
	struct unw_event ev; /* addr: the COP; tag: its tag */
	__u32 line;
	__u32 len;		    /* bytes of file, its NUL too; 0: none copied */
	char file[UNW_PL_FILE_MAX]; /* sent as long as len says */
};

/* Why the Perl frames of a sample were left out, or some of them. */
#define UNW_PERL_ERRORS(X)                                                                  \
	X(PL_THREAD, "perl-interpreter-not-found",                                          \
	  "a Perl thread whose interpreter or context stack was not found: no Perl frames") \
	X(PL_FRAME, "perl-frame-unreadable",                                                \
	  "a Perl context whose sub did not check out: that frame left out")                \
	X(PL_DEPTH, "perl-frames-truncated",                                                \
	  "more Perl frames in one activation than written: the rest left out")             \
	X(PL_VERSION, "perl-version-unsupported",                                           \
	  "in the run loop of a perl whose frames are not read: native frames only")

_Static_assert(sizeof(struct unw_perl_proc) == 56, "unw_perl_proc layout");
_Static_assert(sizeof(struct unw_pl_cop_event) == 32 + UNW_PL_FILE_MAX, "unw_pl_cop_event layout");

#endif
