/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one header shared by the BPF programs and user space: every struct that
 * crosses the boundary and every limit both sides use. Only fixed-width kernel
 * types (__u8..__u64, __s16..__s64) appear here, so the layout is the same on
 * both sides; _Static_assert pins the sizes.
 */
#ifndef UNWPROF_H
#define UNWPROF_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* How to find the canonical frame address (CFA) from the registers of a frame. */
enum unw_cfa_rule {
	UNW_CFA_END = 0,     /* no unwind info from this pc on: a gap after a function */
	UNW_CFA_SP,	     /* CFA = sp + cfa_off (rsp on x86_64, sp on aarch64) */
	UNW_CFA_FP,	     /* CFA = fp + cfa_off (rbp on x86_64, x29 on aarch64) */
	UNW_CFA_PLT,	     /* x86_64 PLT: rsp + cfa_off + ((rip & 15) >= aux_off ? 8 : 0) */
	UNW_CFA_DEREF_SP,    /* CFA = *(sp + cfa_off) + aux_off */
	UNW_CFA_DEREF_FP,    /* CFA = *(fp + cfa_off) + aux_off (gcc's stack realignment) */
	UNW_CFA_UNSUPPORTED, /* the unwinder cannot follow it; see reason */
};

/* How to recover the caller's frame pointer (rbp / x29). */
enum unw_fp_rule {
	UNW_FP_UNCHANGED = 0, /* the caller's fp is the current fp */
	UNW_FP_AT_CFA,	      /* saved at CFA + fp_off */
	UNW_FP_AT_FP,	      /* saved at fp + fp_off (gcc's stack realignment) */
	UNW_FP_UNSUPPORTED,   /* the unwinder cannot follow it; see reason */
};

/* How to recover the return address. */
enum unw_ra_rule {
	UNW_RA_AT_CFA = 0,  /* x86_64: saved at CFA - 8; aarch64: at CFA + aux_off */
	UNW_RA_UNDEFINED,   /* bottom of the stack: the walk ends here */
	UNW_RA_LR,	    /* aarch64: still in the link register (x30) */
	UNW_RA_UNSUPPORTED, /* the unwinder cannot follow it; see reason */
};

/* Why a row is unsupported. Kept in the table so nothing is silently approximated. */
enum unw_reason {
	UNW_R_NONE = 0,
	UNW_R_CFA_REGISTER,   /* CFA based on a register other than sp or fp */
	UNW_R_CFA_EXPRESSION, /* a CFA expression of a shape the unwinder does not know */
	UNW_R_CFA_OFFSET,     /* a CFA offset that does not fit the row */
	UNW_R_FP_RULE,	      /* fp saved in a register, as a value, or by an expression */
	UNW_R_FP_OFFSET,      /* an fp save offset that does not fit the row */
	UNW_R_RA_RULE,	      /* return address not where the ABI puts it */
	UNW_R_RA_OFFSET,      /* aarch64: an LR save offset that does not fit the row */
	UNW_R_NR,
};

/*
 * One row of a compact unwind table: the rule that governs every pc from
 * .pc up to the next row's pc. pc is an offset from the table's base ELF
 * virtual address, so a table may span at most 4 GiB.
 */
struct unw_row {
	__u32 pc;
	__s32 cfa_off;
	__s16 fp_off;
	__s16 aux_off; /* x86_64: M in *(REG+N)+M, the PLT threshold; aarch64: LR at CFA+aux_off */
	__u8 cfa;      /* enum unw_cfa_rule */
	__u8 fp;       /* enum unw_fp_rule */
	__u8 ra;       /* enum unw_ra_rule */
	__u8 reason;   /* enum unw_reason, set when any rule is unsupported */
};

_Static_assert(sizeof(struct unw_row) == 16, "unw_row is 16 bytes in the BPF maps");

#endif /* UNWPROF_H */
