/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the native step needs to know of the architecture it walks: where a
 * frame's return address is under the rule "at the CFA", whether a leaf's
 * return address can still be in a register, and the frame record that
 * frame pointers link. UNW_ARCH_AARCH64 selects it: from the BPF target or
 * the host, or set by the includer (the unit tests walk both).
 *
 * Both ABIs link the same frame record: the frame pointer register (rbp,
 * x29) points at the caller's saved frame pointer, the return address is
 * the word above it, and the caller's sp is just above the pair.
 */
#ifndef UNWPROF_ARCH_H
#define UNWPROF_ARCH_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#ifndef UNW_ARCH_AARCH64
#if defined(__TARGET_ARCH_arm64) || (!defined(__bpf__) && defined(__aarch64__))
#define UNW_ARCH_AARCH64 1
#else
#define UNW_ARCH_AARCH64 0
#endif
#endif

#define UNW_FP_RECORD_RA 8    /* the return address: fp + 8 */
#define UNW_FP_RECORD_SIZE 16 /* the caller's sp: fp + 16 */

/*
 * The smallest page size of either architecture: a boundary of it is a
 * boundary of every page size, so a read that stops there stops at a page.
 */
#define UNW_PAGE_MIN 4096

/*
 * aarch64's signal frame, as the kernel lays it out at the sp a handler
 * starts with, where the vDSO's __kernel_rt_sigreturn runs once it returns:
 * struct rt_sigframe, a siginfo of 128 bytes then the ucontext, whose
 * uc_mcontext (struct sigcontext: fault_address, regs[31], sp, pc) is at
 * 176. The interrupted x29, x30, sp and pc are at these offsets from sp.
 */
#define UNW_A64_SIGCONTEXT (128 + 176)
#define UNW_A64_SIG_X29 (UNW_A64_SIGCONTEXT + 8 + 29 * 8)
#define UNW_A64_SIG_X30 (UNW_A64_SIG_X29 + 8)
#define UNW_A64_SIG_SP (UNW_A64_SIGCONTEXT + 8 + 31 * 8)
#define UNW_A64_SIG_PC (UNW_A64_SIG_SP + 8)

/*
 * x86_64's signal frame, where a handler returns to its restorer (glibc's
 * __restore_rt, Go's runtime.sigreturn): the return popped rt_sigframe's
 * pretcode, and sp is at its ucontext, whose uc_mcontext (struct
 * sigcontext: r8-r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip) is at
 * 40. The interrupted rbp, rsp and rip are at these offsets from sp.
 */
#define UNW_X86_SIGCONTEXT 40
#define UNW_X86_SIG_RBP (UNW_X86_SIGCONTEXT + 10 * 8)
#define UNW_X86_SIG_RSP (UNW_X86_SIGCONTEXT + 15 * 8)
#define UNW_X86_SIG_RIP (UNW_X86_SIGCONTEXT + 16 * 8)

#if UNW_ARCH_AARCH64
/* The return address of a frame whose row says "at the CFA": at CFA + aux_off. */
#define UNW_ARCH_RA_AT_CFA(cfa, aux_off) ((cfa) + (__s64)(aux_off))
/* A leaf's return address may still be in the link register (x30). */
#define UNW_ARCH_HAS_LR 1
/*
 * A return address signed with pointer authentication (paciasp) holds its
 * code in the bits above the user virtual address size, in the link
 * register and wherever it is saved: as xpaclri does, they are cleared
 * before the address is looked up. va_mask: the bits of a user virtual
 * address (the task's TASK_SIZE - 1); 0: none cleared.
 */
#define UNW_ARCH_RA_STRIP(ra, va_mask) ((va_mask) ? (ra) & (va_mask) : (ra))
#else
/* x86_64: call pushed it just below the CFA. */
#define UNW_ARCH_RA_AT_CFA(cfa, aux_off) ((cfa)-8)
#define UNW_ARCH_HAS_LR 0
#define UNW_ARCH_RA_STRIP(ra, va_mask) ((void)(va_mask), (ra)) /* no bits to clear */
#endif

/*
 * The registers of the frame being walked, and what the walk knows of them.
 */
struct unw_frame {
	__u64 pc;
	__u64 sp;
	__u64 fp;	 /* rbp, x29 */
	__u64 lr;	 /* aarch64: x30, known in the leaf frame only (0: not known) */
	__u32 signal;	 /* pc was interrupted by a signal: not a return address */
	__u32 fp_linked; /* fp was read from a frame-pointer chain, not a register */
};

#endif
