/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Ruby unwinder: Ruby's control frames (core/runtimes/rbruntime.h,
 * rbframes.h), which bpf/walk.bpf.h writes at a frame of UNW_UW_RUBY. Its
 * process entries are rb_procs (bpf/maps.bpf.h).
 */
#ifndef UNWPROF_UNWIND_RUBY_H
#define UNWPROF_UNWIND_RUBY_H

#include <bpf/bpf_core_read.h>

#include "walk_state.bpf.h"

#define RB_FRAMES_PER_EXEC 128 /* Ruby frames written for one activation of rb_vm_exec */
#define RB_MODULES_MAX 4096    /* a module id past this is not one */
#define RB_TLS_UNALLOCATED ((__u64)-1)
#define RB_FRAME_MAGIC_MASK 0x7fff0001u
#define RB_FRAME_MAGIC_CFUNC 0x55550001u
#define RB_FRAME_FLAG_FINISH 0x0020u
#define RB_FRAME_FLAG_CFRAME 0x0080u
#define RB_EP_ME_CREF (-16) /* ep[-2]: a C method's method entry */

/*
 * The innermost control frame of the sampled thread, from its own
 * execution context (ruby_current_ec, thread-local: through the thread's
 * DTV at fs:8, its module's block, the variable's offset in it), not the
 * main thread's; sets the end of its VM stack. 0 when there is none.
 */
__weak __noinline __u64 rb_thread_cfp(struct scratch *sc, const struct unw_rb_proc *rb)
{
	__u64 fsbase = 0, module, block, ec, stack, cfp, end;

	if (!sc || !rb)
		return 0;
#ifdef __TARGET_ARCH_x86 /* core/runtimes/rbruntime.c reads amd64 binaries only */
	fsbase = BPF_CORE_READ(bpf_get_current_task_btf(), thread.fsbase);
#endif
	module = user_word(rb->ec_module_got, 0);
	block = module && module < RB_MODULES_MAX ? user_word(user_word(fsbase, 8), module * 16) :
						    0;
	ec = block && block != RB_TLS_UNALLOCATED ? user_word(block, rb->ec_offset) : 0;
	stack = user_word(ec, rb->ec_vm_stack);
	end = stack + user_word(ec, rb->ec_vm_stack_size) * 8;
	cfp = user_word(ec, rb->ec_cfp);
	if (!ec || !stack || cfp < stack || cfp >= end) {
		err_inc(UNW_E_RB_THREAD);
		return 0;
	}
	sc->rb_end = end;
	return cfp;
}

/*
 * An iseq (or a C method's method entry) seen in a sample of pid, tag the
 * top 16 bits of its frame's second word: the first time, user space is
 * told, to read it at once.
 */
static __always_inline void rb_iseq_seen(__u32 pid, __u64 iseq, __u32 tag)
{
	struct unw_event ev = { .type = UNW_EV_RB_ISEQ, .pid = pid, .addr = iseq, .tag = tag };

	if (code_first_seen(pid, tag, iseq) && bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

/* What rb_frame returns, as py_frame. */
enum { RB_MORE = 0, RB_END, RB_WRITTEN_END };

/*
 * Writes the Ruby frame at the cursor and moves it to the caller's. A
 * frame without an iseq (VM_FRAME_FLAG_CFRAME) is written only when it is
 * a C method's, by its method entry; the frame an activation began with
 * (VM_FRAME_FLAG_FINISH) ends it. A global function, as py_frame.
 */
__weak __noinline int rb_frame(struct scratch *sc, const struct unw_rb_proc *rb, __u64 *hash,
			       __u32 pid)
{
	__u64 cfp, ep, flags, what, where;

	if (!sc || !rb || !hash)
		return RB_END;
	cfp = sc->rb_cfp;
	if (!cfp || cfp + rb->cfp_size > sc->rb_end)
		return RB_END;
	sc->rb_cfp = cfp + rb->cfp_size;
	ep = user_word(cfp, rb->cfp_ep);
	flags = ep ? user_word(ep, 0) : 0;
	if (!flags) {
		err_inc(UNW_E_RB_FRAME);
		sc->rb_cfp = 0;
		return RB_END;
	}
	if (flags & RB_FRAME_FLAG_CFRAME) {
		if ((flags & RB_FRAME_MAGIC_MASK) != RB_FRAME_MAGIC_CFUNC)
			return flags & RB_FRAME_FLAG_FINISH ? RB_END : RB_MORE;
		what = user_word(ep, RB_EP_ME_CREF);
		where = UNW_RB_CFUNC | (__u64)UNW_RB_TAG(user_word(what, rb->me_def))
					       << UNW_RB_TAG_SHIFT;
	} else {
		what = user_word(cfp, rb->cfp_iseq);
		where = (user_word(cfp, rb->cfp_pc) & ((1ULL << UNW_RB_TAG_SHIFT) - 1)) |
			(__u64)UNW_RB_TAG(user_word(what, rb->iseq_body)) << UNW_RB_TAG_SHIFT;
	}
	if (what)
		rb_iseq_seen(pid, what, where >> UNW_RB_TAG_SHIFT);
	if (!what) {
		err_inc(UNW_E_RB_FRAME);
		return flags & RB_FRAME_FLAG_FINISH ? RB_END : RB_MORE;
	}
	if (stack_push(sc, hash, UNW_FRAME_WORD(UNW_FRAME_RUBY, what)) ||
	    stack_push(sc, hash, where))
		return RB_END;
	sc->rb_written++;
	return flags & RB_FRAME_FLAG_FINISH ? RB_WRITTEN_END : RB_MORE;
}

/*
 * The Ruby unwinder: writes the Ruby frames of one activation of
 * rb_vm_exec, innermost first, from the cursor on (the thread's current
 * control frame for the innermost activation), and leaves the cursor at
 * the next activation's (bpf/abi.h, UNW_FRAME_RUBY). Global, as
 * py_frames.
 */
__weak __noinline int rb_frames(struct scratch *sc, const struct unw_rb_proc *rb, __u64 *hash,
				__u32 pid)
{
	__u32 before;
	int i, r = RB_MORE;

	if (!sc || !rb || !hash)
		return 0;
	if (rb->refused) {
		err_inc(UNW_E_RB_VERSION);
		return 0;
	}
	before = sc->rb_written;
	if (!sc->rb_looked) {
		sc->rb_looked = 1;
		sc->rb_cfp = rb_thread_cfp(sc, rb);
	}
	for (i = 0; i < RB_FRAMES_PER_EXEC && r == RB_MORE; i++)
		r = rb_frame(sc, rb, hash, pid);
	if (r == RB_MORE) {
		err_inc(UNW_E_RB_DEPTH);
		sc->rb_cfp = 0;
	}
	if (!before && sc->rb_written)
		stat_inc(UNW_ST_RB_SAMPLES);
	return 0;
}

#endif
