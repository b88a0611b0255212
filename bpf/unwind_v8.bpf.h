/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walk of V8's frames (bpf/unwind_v8.h, core/runtimes/v8/): the
 * program the native walk hands a frame of V8's code over to (UNW_UW_V8),
 * the embedded builtins' or the JIT code's. V8's code keeps frame
 * pointers: from that frame on, as long as the frames are in V8's code,
 * each is stepped by its frame pointer and written, a JavaScript frame as
 * its function's SharedFunctionInfo and its bytecode offset (interpreted)
 * or pc (compiled), any other (a stub's, an entry's, a builtin's of a type
 * of its own) as its pc. The first frame outside V8's code is handed back
 * to the native walk. Its process entries are v8_procs (bpf/maps.bpf.h).
 *
 * A JavaScript frame is known by the slot below its saved frame pointer:
 * its context, a tagged pointer, where a frame of a type has a Smi, its
 * type's marker; and by the slot below, a JSFunction, whose map's instance
 * type says so. An interpreted frame runs in the builtins (the
 * interpreter's entry trampoline and the bytecodes' handlers, which keep
 * to its frame) and holds its bytecode offset as a Smi.
 */
#ifndef UNWPROF_UNWIND_V8_BPF_H
#define UNWPROF_UNWIND_V8_BPF_H

#include "walk.bpf.h"

/* Frames one run of the program walks; a deeper stack of V8 frames is handed over again. */
#define V8_STEPS 64
/* A frame larger than this is taken for a broken frame pointer. */
#define V8_FRAME_MAX (1 << 20)

/* What one step did (v8_frame_step). */
enum { V8_NEXT = 0, V8_OUT, V8_BROKEN, V8_FULL };

/* Entries of a walk's cache of the functions it found (v8_walk). */
#define V8_CACHE 16

/*
 * What the V8 walk keeps of a walk, between its runs: the first words of
 * the JSFunctions it found, by JSFunction (key 0: none), each read and told
 * to user space once a walk, and the pc of JIT code told last: a
 * recursion's frames repeat a few functions and return to one pc.
 * The stack does not change while it is walked.
 */
struct v8_walk {
	__u64 walk_id; /* the walk it is of (struct scratch) */
	__u64 last_pc; /* the pc of JIT code last told (a recursion's frames return to one) */
	struct {
		__u64 fn;
		__u64 first;
	} seen[V8_CACHE];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WALK_FAMILIES);
	__type(key, __u32);
	__type(value, struct v8_walk);
} v8_walks SEC(".maps");

/* The word at off of a frame's window (fp - UNW_V8_FP_BELOW); 0 past it. */
static __always_inline __u64 v8_win_word(const __u8 *w, __s32 off)
{
	__u64 v;
	__s32 at = off + UNW_V8_FP_BELOW;

	if (at < 0 || at > UNW_V8_FP_READ - (__s32)sizeof(v))
		return 0;
	__builtin_memcpy(&v, &w[at & (UNW_V8_FP_READ - 1)], sizeof(v));
	return v;
}

/* Whether tagged value p is a JSFunction (or of one of its subclasses). */
static __always_inline int v8_is_function(const struct unw_v8_proc *v, __u64 p)
{
	__u64 map;
	__u16 type = 0;

	if ((p & UNW_V8_HEAP_OBJECT_MASK) != UNW_V8_HEAP_OBJECT_TAG)
		return 0;
	map = user_word(p - UNW_V8_HEAP_OBJECT_TAG, v->map);
	if ((map & UNW_V8_HEAP_OBJECT_MASK) != UNW_V8_HEAP_OBJECT_TAG)
		return 0;
	if (bpf_probe_read_user(&type, sizeof(type),
				(void *)(map - UNW_V8_HEAP_OBJECT_TAG + v->instance_type)))
		return 0;
	return type >= v->type_function_first && type <= v->type_function_last;
}

/* A SharedFunctionInfo first seen of pid: user space is told, to read it while it lives. */
static __always_inline void v8_sfi_seen(__u32 pid, __u64 word)
{
	struct unw_event ev = { .type = UNW_EV_CODE,
				.unwinder = UNW_UW_V8,
				.pid = pid,
				.addr = word & UNW_V8_ADDR_MASK,
				.tag = UNW_V8_SFI_TAG +
				       ((word & UNW_FRAME_VALUE_MASK) >> UNW_V8_TAG_SHIFT) };

	if (code_first_seen(pid, ev.tag, ev.addr) &&
	    bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

/* A pc of JIT code first seen of pid: user space is told, to read its code while it lives. */
static __always_inline void v8_pc_seen(__u32 pid, __u64 pc)
{
	struct unw_event ev = { .type = UNW_EV_CODE,
				.unwinder = UNW_UW_V8,
				.pid = pid,
				.addr = pc,
				.tag = UNW_V8_PC_TAG };

	if (code_first_seen(pid, ev.tag, ev.addr) &&
	    bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

/*
 * The first word of the frame of JSFunction fn (tagged) of pid, read, and
 * told to user space the first time, unless this walk found it already
 * (st); 0 when fn does not check out.
 */
static __always_inline __u64 v8_function_word(const struct unw_v8_proc *v, struct v8_walk *st,
					      __u32 pid, __u64 fn)
{
	__u32 i = (fn >> 4) & (V8_CACHE - 1);
	__u64 sfi, name, first;

	if (st && st->seen[i].fn == fn)
		return st->seen[i].first;
	if (!v8_is_function(v, fn))
		return 0;
	sfi = user_word(fn - UNW_V8_HEAP_OBJECT_TAG, v->shared);
	if ((sfi & UNW_V8_HEAP_OBJECT_MASK) != UNW_V8_HEAP_OBJECT_TAG)
		return 0;
	name = user_word(sfi - UNW_V8_HEAP_OBJECT_TAG, v->sfi_name);
	first = UNW_FRAME_WORD(UNW_FRAME_V8, (sfi - UNW_V8_HEAP_OBJECT_TAG) |
						     (__u64)UNW_V8_TAG(name) << UNW_V8_TAG_SHIFT);
	v8_sfi_seen(pid, first);
	if (st) {
		st->seen[i].fn = fn;
		st->seen[i].first = first;
	}
	return first;
}

/*
 * The two words of the JavaScript frame whose window (fp -
 * UNW_V8_FP_BELOW) is w, at pc: 0 in *first when it is none. -1 when it
 * has a context but its function does not check out.
 */
static __always_inline int v8_js_words(const struct unw_v8_proc *v, struct v8_walk *st, __u32 pid,
				       const __u8 *w, __u64 pc, __u64 *first, __u64 *second)
{
	__u64 off;

	*first = 0;
	if (!(v8_win_word(w, v->fp_marker) & UNW_V8_SMI_MASK))
		return 0; /* a Smi: a frame of a type */
	*first = v8_function_word(v, st, pid, v8_win_word(w, v->fp_function));
	if (!*first)
		return -1;
	off = v8_win_word(w, v->fp_bytecode_offset);
	if (pc >= v->builtins_lo && pc < v->builtins_hi) {
		if (!(off & UNW_V8_SMI_MASK)) {
			*second = (__u64)UNW_V8_BYTECODE << UNW_V8_KIND_SHIFT |
				  ((off >> UNW_V8_SMI_SHIFT) & 0xffffffffULL);
			return 0;
		}
	} else if (!st || st->last_pc != pc) {
		v8_pc_seen(pid, pc); /* JIT code, which may inline other functions */
		if (st)
			st->last_pc = pc;
	}
	*second = (__u64)UNW_V8_PC << UNW_V8_KIND_SHIFT | (pc & UNW_V8_VALUE_MASK);
	return 0;
}

/*
 * Writes the frame of the walk's state saved in sc (its frame n), steps it
 * by its frame pointer and says whether its caller is in V8's code
 * (V8_NEXT) or not (V8_OUT); V8_BROKEN when the frame cannot be stepped
 * (nothing written), V8_FULL when the stack is. A global function: the
 * loop over the steps verifies one path per step.
 */
__noinline int v8_frame_step(struct scratch *sc, const struct unw_v8_proc *v, struct v8_walk *st)
{
	struct frame_place pl = {};
	struct walk_saved *s;
	__u8 w[UNW_V8_FP_READ];
	__u64 fp, pc, caller_fp, ret, first, second;

	if (!sc || !v)
		return V8_BROKEN;
	s = &sc->saved;
	fp = s->f.fp;
	pc = s->f.pc;
	if (!fp || (fp & 7) || fp < s->f.sp || fp - s->f.sp > V8_FRAME_MAX ||
	    bpf_probe_read_user(w, sizeof(w), (void *)(fp - UNW_V8_FP_BELOW))) {
		err_inc(sc, UNW_E_V8_FP);
		return V8_BROKEN;
	}
	caller_fp = v8_win_word(w, 0);
	ret = v8_win_word(w, 8);
	if (caller_fp <= fp || caller_fp - fp > V8_FRAME_MAX || !ret) {
		err_inc(sc, UNW_E_V8_FP);
		return V8_BROKEN;
	}
	/* a return address is looked up at the call */
	if (v8_js_words(v, st, s->pid, w, s->n && !s->f.signal ? pc - 1 : pc, &first, &second))
		err_inc(sc, UNW_E_V8_FRAME);
	if (first) {
		if (stack_push(sc, &s->hash, first) || stack_push(sc, &s->hash, second))
			return V8_FULL;
		s->n++;
		sc->runtime_frames[UNW_UW_V8]++;
	} else if (walk_push_frame(sc, s)) {
		return V8_FULL;
	}
	s->f.pc = ret;
	s->f.sp = fp + 16;
	s->f.fp = caller_fp;
	s->f.lr = 0;
	s->f.signal = 0;
	s->f.fp_linked = 1;
	/* an interpreted caller returns into the builtins: no lookup of its mapping */
	if (ret - 1 >= v->builtins_lo && ret - 1 < v->builtins_hi)
		return V8_NEXT;
	frame_place_of_pid(sc, s->pid, ret - 1, &pl);
	return pl.unwinder == UNW_UW_V8 ? V8_NEXT : V8_OUT;
}

/*
 * V8's walk of frame s->n, handed over by the native walk: its frames
 * written and stepped while they are in V8's code, the first one outside
 * it handed back.
 */
static __always_inline __u32 v8_step(struct scratch *sc, struct walk_saved *s)
{
	const struct unw_v8_proc *v = bpf_map_lookup_elem(&v8_procs, &s->pid);
	__u32 family = sc->family;
	struct v8_walk *st = bpf_map_lookup_elem(&v8_walks, &family);
	int r = V8_NEXT;

	/*
	 * no frames ahead, and more to come: every frame of V8's code the
	 * native walk meets is handed over (bpf/walk.bpf.h, walk_runtime); the
	 * walk's frames of V8 are counted from a count reset at its start
	 */
	ahead_begin(sc, UNW_UW_V8);
	sc->ahead.more = 1;
	if (!v)
		return RESUME_FRAME;
	if (v->refused) {
		err_inc(sc, UNW_E_V8_VERSION);
		return RESUME_FRAME;
	}
	if (st && st->walk_id != sc->walk_id) {
		st->walk_id = sc->walk_id;
		st->last_pc = 0;
		__builtin_memset(st->seen, 0, sizeof(st->seen));
	}
	for (int i = 0; i < V8_STEPS && r == V8_NEXT; i++) {
		if (s->n >= s->frames_max)
			break;
		r = v8_frame_step(sc, v, st);
	}
	if (r == V8_FULL)
		return RESUME_STOP;
	/* a frame not stepped is the native walk's, which may yet step it */
	return r == V8_BROKEN ? RESUME_FRAME : RESUME_GO_ON;
}

UNW_RUNTIME_PROGRAMS(v8)

#endif
