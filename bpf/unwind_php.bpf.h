/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walk of PHP's frames (bpf/unwind_php.h, core/runtimes/php/): the
 * program the native walk hands a frame of the executor (execute_ex) over
 * to (UNW_UW_PHP). It writes the PHP frames of the process's executor
 * ahead of the walk (struct frames_ahead), one segment per activation of
 * execute_ex, innermost first. Its process entries are php_procs
 * (bpf/maps.bpf.h).
 *
 * EG(current_execute_data) is the frame being run; each frame's
 * prev_execute_data its caller's. A user function's call (ZEND_DO_UCALL)
 * runs in the activation of execute_ex of its caller; an internal
 * function's (usort, array_map) has a frame too, whose C code is on the
 * thread's stack and its native frames: it is no PHP frame here. A frame
 * that C code called (zend_call_function: usort's callback; zend_execute:
 * the script, an include from C) has ZEND_CALL_TOP in its call info and
 * is run by an activation of execute_ex of its own, which it begins: a
 * user frame with it ends its activation's segment. An internal
 * function's frame with it (array_map('strlen', ...)) is called without
 * execute_ex, and ends none. A frame's line is its opline's: a caller's
 * the call it is at; the innermost one's the last the executor saved
 * there (SAVE_OPLINE, before all that can call or throw), in its function.
 */
#ifndef UNWPROF_UNWIND_PHP_BPF_H
#define UNWPROF_UNWIND_PHP_BPF_H

#include "walk.bpf.h"

/* Frames of one run of the program: the ahead holds AHEAD_WORDS / 2. */
#define PH_FILL_STEPS (AHEAD_WORDS / 2)
#define PH_WIN 64	       /* the buffer a frame's fields are read into: a power of two */
#define PH_LINE_MAX (1u << 24) /* a line past this is not one */
_Static_assert(UNW_PH_EX_READ <= PH_WIN && UNW_PH_FN_READ <= PH_WIN, "reads fit their buffer");

/* What the PHP walk keeps of a walk, between its runs. */
struct php_walk {
	__u64 walk_id; /* the walk it is of (struct scratch) */
	__u64 ex;      /* the next frame to read; 0: the walk is at its end */
	__u64 seg_ex;  /* the first frame of the activation being written */
	__u32 seg_start;
	__u32 seg_frames;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WALK_FAMILIES);
	__type(key, __u32);
	__type(value, struct php_walk);
} php_walks SEC(".maps");

/* Where the event of a file's or an eval's code first seen is put together. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WALK_FAMILIES);
	__type(key, __u32);
	__type(value, struct unw_ph_code_event);
} ph_code_buf SEC(".maps");

static __always_inline __u64 ph_win_word(const __u8 *w, __u32 off)
{
	__u64 v;

	if (off > PH_WIN - sizeof(v))
		return 0;
	__builtin_memcpy(&v, &w[off & (PH_WIN - 1)], sizeof(v));
	return v;
}

static __always_inline __u32 ph_win_u32(const __u8 *w, __u32 off)
{
	__u32 v;

	if (off > PH_WIN - sizeof(v))
		return 0;
	__builtin_memcpy(&v, &w[off & (PH_WIN - 1)], sizeof(v));
	return v;
}

/*
 * Writes the two words of a frame ahead, if they fit. Each index is masked
 * behind a barrier: the compiler would otherwise prove the second's mask
 * needless from the first's bound, which the verifier does not follow.
 */
static __always_inline void ph_push2(struct scratch *sc, __u64 a, __u64 b)
{
	__u32 i = sc->ahead.nr_words, j = i + 1;

	if (i + 2 > AHEAD_WORDS)
		return;
	barrier_var(i);
	barrier_var(j);
	sc->ahead.words[i & (AHEAD_WORDS - 1)] = a;
	sc->ahead.words[j & (AHEAD_WORDS - 1)] = b;
	sc->ahead.nr_words = i + 2;
}

/* A function's frame word of pid first seen: user space is told, to read its name while it lives. */
static __always_inline void ph_function_seen(__u32 pid, __u64 value, __u32 tag)
{
	struct unw_event ev = {
		.type = UNW_EV_CODE, .unwinder = UNW_UW_PHP, .pid = pid, .addr = value, .tag = tag
	};

	if (code_first_seen(pid, tag, value) && bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

/*
 * A file's or an eval's code first seen, of filename (a zend_string) and
 * lines (its line_start and line_end at 8 and 12): user space is told,
 * with a copy of its file and lines, taken now, while it lives.
 */
static __always_inline void ph_code_seen(const struct unw_php_proc *ph, __u32 family, __u32 pid,
					 __u64 value, __u32 tag, __u64 filename, const __u8 *lines)
{
	struct unw_ph_code_event *e;
	long len;

	if (!code_first_seen(pid, tag, value))
		return;
	e = bpf_map_lookup_elem(&ph_code_buf, &family);
	if (!e)
		return;
	e->ev = (struct unw_event){
		.type = UNW_EV_CODE, .unwinder = UNW_UW_PHP, .pid = pid, .addr = value, .tag = tag
	};
	e->line_start = ph_win_u32(lines, 8);
	e->line_end = ph_win_u32(lines, 12);
	len = filename ? bpf_probe_read_user_str(e->file, sizeof(e->file),
						 (void *)(filename + ph->str_val)) :
			 0;
	/* a file cut short is none: user space reads it whole from the process */
	e->len = len > 0 && len < (long)sizeof(e->file) ? (__u32)len : 0;
	if (bpf_ringbuf_output(&events, e,
			       __builtin_offsetof(struct unw_ph_code_event, file) +
				       (e->len & (UNW_PH_FILE_MAX - 1)),
			       0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

/* Closes the segment of the activation being written, which ended at its first frame. */
static __always_inline void ph_segment_end(struct scratch *sc, struct php_walk *st)
{
	ahead_close(sc, st->seg_frames);
	st->seg_frames = 0;
	st->seg_start = sc->ahead.nr_words;
	st->seg_ex = st->ex;
}

/*
 * What a frame of function type type and call info call_info runs (enum
 * unw_ph_kind); prev: it has a caller.
 */
static __always_inline __u32 ph_kind(__u8 type, __u32 call_info, __u64 prev)
{
	if (!(call_info & UNW_PH_CALL_CODE))
		return UNW_PH_FUNCTION;
	if (!prev)
		return UNW_PH_MAIN; /* php -r's code is an eval's */
	return type == UNW_PH_EVAL_CODE ? UNW_PH_EVAL : UNW_PH_INCLUDE;
}

/*
 * One step of ph_fill: the frame at st->ex written ahead, if it is a user
 * function's or code's, and its activation's segment closed when it began
 * it. 1 to go on. A global function: the loop over the steps verifies one
 * path per step.
 */
__noinline int ph_fill_step(struct scratch *sc, struct php_walk *st, const struct unw_php_proc *ph,
			    __u32 pid)
{
	__u8 w[PH_WIN] = {}, f[PH_WIN] = {};
	__u64 ex, func, prev, opline, name, value, filename;
	__u32 call_info, line = 0, tag, kind;
	__u8 type;

	if (!sc || !st || !ph)
		return 0;
	ex = st->ex;
	if (!ex) {
		/* frames of no activation that ended: the one the walk began in */
		if (st->seg_frames)
			ahead_close(sc, st->seg_frames);
		st->seg_frames = 0;
		st->seg_start = sc->ahead.nr_words;
		st->seg_ex = 0;
		return 0;
	}
	if (sc->ahead.nr_words + 2 > AHEAD_WORDS)
		return 0;
	if (bpf_probe_read_user(w, UNW_PH_EX_READ, (void *)ex)) {
		err_inc(sc, UNW_E_PH_FRAME);
		st->ex = 0;
		return 1;
	}
	func = ph_win_word(w, ph->ex_func);
	prev = ph_win_word(w, ph->ex_prev);
	opline = ph_win_word(w, ph->ex_opline);
	call_info = ph_win_u32(w, ph->ex_call_info);
	st->ex = prev != ex ? prev : 0;
	if (!func || bpf_probe_read_user(f, UNW_PH_FN_READ, (void *)func)) {
		err_inc(sc, UNW_E_PH_FRAME);
		return 1;
	}
	type = f[0];
	if (type == UNW_PH_INTERNAL_FUNCTION)
		return 1; /* its C code's frames are the native walk's */
	name = ph_win_word(f, ph->fn_name);
	if ((type != UNW_PH_USER_FUNCTION && type != UNW_PH_EVAL_CODE) ||
	    (!name && !(call_info & UNW_PH_CALL_CODE))) {
		err_inc(sc, UNW_E_PH_FRAME);
		return 1;
	}
	if (opline)
		bpf_probe_read_user(&line, sizeof(line), (void *)(opline + ph->op_lineno));
	if (line >= PH_LINE_MAX)
		line = 0;
	kind = ph_kind(type, call_info, prev);
	value = (func & UNW_PH_VALUE_MASK) | (__u64)kind << UNW_PH_KIND_SHIFT;
	if (kind == UNW_PH_FUNCTION) {
		tag = UNW_CODE_TAG(name);
		ph_function_seen(pid, value, tag);
	} else {
		/* its filename, line_start and line_end, read at once (w is free now) */
		bpf_probe_read_user(w, 16, (void *)(func + ph->fn_filename));
		filename = ph_win_word(w, 0);
		tag = UNW_CODE_TAG(filename);
		ph_code_seen(ph, sc->family, pid, value, tag, filename, w);
	}
	ph_push2(sc, UNW_FRAME_WORD(UNW_FRAME_PHP, value), line | (__u64)tag << UNW_PH_TAG_SHIFT);
	st->seg_frames++;
	if (!(call_info & UNW_PH_CALL_TOP))
		return 1;
	ph_segment_end(sc, st);
	return st->ex && !ahead_full(sc);
}

/*
 * Writes ahead the PHP frames of the activations of execute_ex from
 * st->ex on, one segment each, until the bottom or until the ahead is
 * full: an activation that does not fit is left for the next run, from its
 * start (more), unless it is alone and still does not fit.
 */
static __always_inline void ph_fill(struct scratch *sc, struct php_walk *st,
				    const struct unw_php_proc *ph, __u32 pid)
{
	st->seg_start = sc->ahead.nr_words;
	st->seg_ex = st->ex;
	st->seg_frames = 0;
	for (int i = 0; i < PH_FILL_STEPS; i++)
		if (!ph_fill_step(sc, st, ph, pid))
			break;
	if (sc->ahead.nr_words == st->seg_start) {
		sc->ahead.more = st->ex != 0;
		return;
	}
	if (sc->ahead.nr_segs) {
		ahead_drop(sc, st->seg_start);
		st->ex = st->seg_ex;
		sc->ahead.more = 1;
		return;
	}
	err_inc(sc, UNW_E_PH_DEPTH);
	ahead_close(sc, st->seg_frames);
	st->ex = 0;
}

/*
 * PHP's walk of frame s->n, handed over by the native walk: the PHP frames
 * of the process written ahead, as many as fit, from where the last run of
 * this walk left off (EG(current_execute_data) at the first). The native
 * walk writes them and steps the frame.
 */
static __always_inline __u32 php_step(struct scratch *sc, struct walk_saved *s)
{
	const struct unw_php_proc *ph = bpf_map_lookup_elem(&php_procs, &s->pid);
	__u32 family = sc->family;
	struct php_walk *st = bpf_map_lookup_elem(&php_walks, &family);

	ahead_begin(sc, UNW_UW_PHP);
	if (!ph || !st)
		return RESUME_FRAME;
	if (ph->refused) {
		err_inc(sc, UNW_E_PH_VERSION);
		return RESUME_FRAME;
	}
	if (st->walk_id != sc->walk_id) {
		st->walk_id = sc->walk_id;
		st->ex = user_word(ph->current_execute_data, 0);
		if (!st->ex)
			err_inc(sc, UNW_E_PH_THREAD);
	}
	ph_fill(sc, st, ph, s->pid);
	return RESUME_FRAME;
}

UNW_RUNTIME_PROGRAMS(php)

#endif
