/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel constants the BPF programs test that BTF does not carry (they are
 * macros in the kernel's headers, not types), spelled once, with where they
 * come from. They are part of the kernel's ABI towards its own code and have
 * not changed since the kernels unwprof supports.
 */
#ifndef UNWPROF_KERNEL_H
#define UNWPROF_KERNEL_H

#define PF_EXITING 0x00000004 /* include/linux/sched.h: the task is exiting */
#define PF_KTHREAD 0x00200000 /* include/linux/sched.h: a kernel thread */
#define VM_EXEC 0x00000004    /* include/linux/mm.h: an executable mapping */

#define SIGCONT 18 /* arch/x86 and asm-generic signal numbers agree on both */
#define SIGSTOP 19

#define EEXIST 17
#define MAX_ERRNO 4095 /* include/linux/err.h: a syscall's errors are -1..-4095 */

#define AT_NULL 0 /* include/uapi/linux/auxvec.h */
#define AT_BASE 7

#endif
