/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walk of Ruby's control frames (bpf/unwind_ruby.h, core/runtimes/ruby/):
 * the program the native walk hands a frame of rb_vm_exec over to
 * (UNW_UW_RUBY). It writes the Ruby frames of the thread ahead of the walk
 * (struct frames_ahead), one segment per activation of rb_vm_exec,
 * innermost first. Its process entries are
 * ruby_procs (bpf/maps.bpf.h).
 */
#ifndef UNWPROF_UNWIND_RUBY_BPF_H
#define UNWPROF_UNWIND_RUBY_BPF_H

#include <bpf/bpf_core_read.h>

#include "walk.bpf.h"

/* Steps of one run of the program: a control frame each. */
#define RB_FILL_STEPS (AHEAD_WORDS / 2)
#define RB_MODULES_MAX 4096 /* a module id past this is not one */
#define RB_TLS_UNALLOCATED ((__u64)-1)
#define RB_TLS_OFF_MAX (1u << 20) /* a static TLS offset past this is not one */
#define RB_FRAME_MAGIC_MASK 0x7fff0001u
#define RB_FRAME_MAGIC_CFUNC 0x55550001u
#define RB_FRAME_FLAG_FINISH 0x0020u
#define RB_FRAME_FLAG_CFRAME 0x0080u
#define RB_EP_ME_CREF (-16) /* ep[-2]: a C method's method entry */

/* What the Ruby walk keeps of a walk, between its runs. */
struct ruby_walk {
	__u64 walk_id; /* the walk it is of (struct scratch) */
	__u64 cfp;     /* the next control frame to write: the cursor */
	__u64 end;     /* the end of its VM stack */
	/* The activation being written: where its words and frames began, and its frames. */
	__u64 seg_cursor;
	__u32 seg_start;
	__u32 seg_frames;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WALK_FAMILIES);
	__type(key, __u32);
	__type(value, struct ruby_walk);
} ruby_walks SEC(".maps");

/*
 * Where the sampled thread's ruby_current_ec is: at the offset its TLS
 * descriptor holds from the thread pointer (aarch64's static TLS), else in
 * its module's block of the thread's DTV (bpf/walk_state.bpf.h: TP_DTV),
 * at its offset there. 0 when neither is found.
 */
static __always_inline __u64 rb_ec_var(const struct unw_ruby_proc *rb)
{
	__u64 tp = thread_pointer(), module, block, off;

	if (rb->ec_tlsdesc) {
		off = user_word(rb->ec_module_got, 8);
		return off && off < RB_TLS_OFF_MAX ? tp + off : 0;
	}
	module = user_word(rb->ec_module_got, 0);
	block = module && module < RB_MODULES_MAX ? user_word(user_word(tp, TP_DTV), module * 16) :
						    0;
	return block && block != RB_TLS_UNALLOCATED ? block + rb->ec_offset : 0;
}

/*
 * The innermost control frame of the sampled thread, from its own
 * execution context (ruby_current_ec, thread-local: rb_ec_var), not the
 * main thread's; sets the end of its VM stack. 0 when there is none.
 */
__noinline __u64 rb_thread_cfp(struct scratch *sc, struct ruby_walk *st,
			       const struct unw_ruby_proc *rb)
{
	__u64 ec, stack, cfp, end;

	if (!sc || !st || !rb)
		return 0;
	ec = user_word(rb_ec_var(rb), 0);
	stack = user_word(ec, rb->ec_vm_stack);
	end = stack + user_word(ec, rb->ec_vm_stack_size) * 8;
	cfp = user_word(ec, rb->ec_cfp);
	if (!ec || !stack || cfp < stack || cfp >= end) {
		err_inc(sc, UNW_E_RB_THREAD);
		return 0;
	}
	st->end = end;
	return cfp;
}

/*
 * An iseq (or a C method's method entry) seen in a walk of pid, tag the top
 * 16 bits of its frame's second word: the first time, user space is told,
 * to read it at once.
 */
static __always_inline void rb_iseq_seen(__u32 pid, __u64 iseq, __u32 tag)
{
	struct unw_event ev = {
		.type = UNW_EV_CODE, .unwinder = UNW_UW_RUBY, .pid = pid, .addr = iseq, .tag = tag
	};

	if (code_first_seen(pid, tag, iseq) && bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

/* What rb_frame did: wrote a frame or not, and whether its activation ends there. */
enum { RB_WROTE = 0, RB_SKIPPED, RB_END, RB_WROTE_END, RB_FULL };

/*
 * Writes the Ruby frame at the cursor ahead and moves the cursor to the
 * caller's. A frame without an iseq (VM_FRAME_FLAG_CFRAME) is written only
 * when it is a C method's, by its method entry; the frame an activation
 * began with (VM_FRAME_FLAG_FINISH) ends it.
 */
static __always_inline int rb_frame(struct scratch *sc, struct ruby_walk *st,
				    const struct unw_ruby_proc *rb, __u32 pid)
{
	__u64 cfp, ep, flags, what, where;

	cfp = st->cfp;
	if (!cfp || cfp + rb->cfp_size > st->end) {
		st->cfp = 0; /* the bottom of its VM stack */
		return RB_END;
	}
	if (sc->ahead.nr_words + 2 > AHEAD_WORDS)
		return RB_FULL;
	st->cfp = cfp + rb->cfp_size;
	ep = user_word(cfp, rb->cfp_ep);
	flags = ep ? user_word(ep, 0) : 0;
	if (!flags) {
		err_inc(sc, UNW_E_RB_FRAME);
		st->cfp = 0;
		return RB_END;
	}
	if (flags & RB_FRAME_FLAG_CFRAME) {
		if ((flags & RB_FRAME_MAGIC_MASK) != RB_FRAME_MAGIC_CFUNC)
			return flags & RB_FRAME_FLAG_FINISH ? RB_END : RB_SKIPPED;
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
		err_inc(sc, UNW_E_RB_FRAME);
		return flags & RB_FRAME_FLAG_FINISH ? RB_END : RB_SKIPPED;
	}
	ahead_push(sc, UNW_FRAME_WORD(UNW_FRAME_RUBY, what));
	ahead_push(sc, where);
	return flags & RB_FRAME_FLAG_FINISH ? RB_WROTE_END : RB_WROTE;
}

/*
 * One step of rb_fill: the frame at the cursor written ahead, and its
 * activation's segment closed when it ends there. 1 to go on. A global
 * function: the loop over the steps verifies one path per step.
 */
__noinline int rb_fill_step(struct scratch *sc, struct ruby_walk *st,
			    const struct unw_ruby_proc *rb, __u32 pid)
{
	int r;

	if (!sc || !st || !rb)
		return 0;
	r = rb_frame(sc, st, rb, pid);
	if (r == RB_FULL)
		return 0;
	if (r == RB_WROTE || r == RB_WROTE_END)
		st->seg_frames++;
	if (r == RB_WROTE || r == RB_SKIPPED)
		return 1;
	ahead_close(sc, st->seg_frames);
	st->seg_frames = 0;
	st->seg_start = sc->ahead.nr_words;
	st->seg_cursor = st->cfp;
	return st->cfp && !ahead_full(sc);
}

/*
 * Writes ahead the Ruby frames of the activations of rb_vm_exec from the
 * cursor on, one segment each, until the bottom or until the ahead is
 * full: an activation that does not fit is left for the next run, from its
 * start (more), unless it is alone and still does not fit.
 */
static __always_inline void rb_fill(struct scratch *sc, struct ruby_walk *st,
				    const struct unw_ruby_proc *rb, __u32 pid)
{
	st->seg_start = sc->ahead.nr_words;
	st->seg_cursor = st->cfp;
	st->seg_frames = 0;
	for (int i = 0; i < RB_FILL_STEPS; i++)
		if (!rb_fill_step(sc, st, rb, pid))
			break;
	if (sc->ahead.nr_words == st->seg_start && st->cfp == st->seg_cursor) {
		sc->ahead.more = st->cfp != 0;
		return;
	}
	if (sc->ahead.nr_segs) {
		ahead_drop(sc, st->seg_start);
		st->cfp = st->seg_cursor;
		sc->ahead.more = 1;
		return;
	}
	err_inc(sc, UNW_E_RB_DEPTH);
	ahead_close(sc, st->seg_frames);
	st->cfp = 0;
}

/*
 * Ruby's walk of frame s->n, handed over by the native walk: the Ruby
 * frames of the thread written ahead, from the sampled thread's current
 * control frame on, as many as fit, from where the last run of this walk
 * left off. The native walk writes them and steps the frame.
 */
static __always_inline __u32 ruby_step(struct scratch *sc, struct walk_saved *s)
{
	const struct unw_ruby_proc *rb = bpf_map_lookup_elem(&ruby_procs, &s->pid);
	__u32 family = sc->family;
	struct ruby_walk *st = bpf_map_lookup_elem(&ruby_walks, &family);

	ahead_begin(sc, UNW_UW_RUBY);
	if (!rb || !st)
		return RESUME_FRAME;
	if (rb->refused) {
		err_inc(sc, UNW_E_RB_VERSION);
		return RESUME_FRAME;
	}
	if (st->walk_id != sc->walk_id) {
		st->walk_id = sc->walk_id;
		st->cfp = rb_thread_cfp(sc, st, rb);
	}
	rb_fill(sc, st, rb, s->pid);
	return RESUME_FRAME;
}

UNW_RUNTIME_PROGRAMS(ruby)

#endif
