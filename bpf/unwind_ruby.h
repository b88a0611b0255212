/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ruby, what user space and BPF share of it (bpf/runtimes.h): the value of
 * its process map, the words of its frames and its reasons. Its walk is
 * bpf/unwind_ruby.bpf.h; what it reads of libruby and how it names frames,
 * core/runtimes/ruby/.
 */
#ifndef UNWPROF_UNWIND_RUBY_H
#define UNWPROF_UNWIND_RUBY_H

/*
 * Value of the Ruby map (ruby_procs), keyed by pid: how the Ruby unwinder finds the
 * sampled thread's execution context (core/runtimes/ruby/rbruntime.h: through its DTV,
 * the module id in the GOT slot ec_module_got; or, ec_tlsdesc, at the offset from the
 * thread pointer in the second word of the TLS descriptor there) and walks its control
 * frames. Addresses are the process's.
 */
struct unw_ruby_proc {
	__u64 ec_module_got;
	__u32 ec_offset; /* ruby_current_ec in its module's TLS block */
	__u16 ec_vm_stack;
	__u16 ec_vm_stack_size;
	__u16 ec_cfp;
	__u16 cfp_size;
	__u16 cfp_pc;
	__u16 cfp_iseq;
	__u16 cfp_ep;
	__u16 iseq_body; /* an iseq's body: its tag */
	__u16 me_def;	 /* a method entry's definition: its tag */
	__u8 refused;	 /* a version not read: UNW_E_RB_VERSION, nothing else set */
	__u8 ec_tlsdesc; /* ec_module_got is a TLS descriptor (aarch64) */
};

/*
 * A Ruby frame (UNW_FRAME_RUBY) is two words: its iseq, or a C method's
 * method entry; then its pc (the low 48 bits; 0 for a C method), UNW_RB_TAG
 * of its iseq's body (a C method's definition) above, so that another iseq
 * later in the same slot is known apart, and UNW_RB_CFUNC. Its code event
 * (UNW_EV_CODE) is of an iseq or a method entry (addr) first seen, tag the
 * top 16 bits of its frame's second word: to be read while its process
 * lives.
 */
#define UNW_RB_CFUNC (1ULL << 63)
#define UNW_RB_TAG_SHIFT 48
#define UNW_RB_TAG(ptr) (UNW_CODE_TAG(ptr) & 0x7fff)

/* Why the Ruby frames of a sample were left out, or some of them. */
#define UNW_RUBY_ERRORS(X)                                                       \
	X(RB_THREAD, "ruby-thread-not-found",                                    \
	  "a Ruby thread whose execution context was not found: no Ruby frames") \
	X(RB_FRAME, "ruby-frame-unreadable",                                     \
	  "a Ruby frame could not be read: the activation's others left out")    \
	X(RB_DEPTH, "ruby-frames-truncated",                                     \
	  "more Ruby frames in one activation than written: the rest left out")  \
	X(RB_VERSION, "ruby-version-unsupported",                                \
	  "in the VM loop of a Ruby whose frames are not read: native frames only")

_Static_assert(sizeof(struct unw_ruby_proc) == 32, "unw_ruby_proc layout");

#endif
