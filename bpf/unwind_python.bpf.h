/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walk of CPython's frames (bpf/unwind_python.h, core/runtimes/python/):
 * the program the native walk hands a frame of the eval loop over to
 * (UNW_UW_PYTHON). It writes the Python frames of the thread ahead of the
 * walk (struct frames_ahead), one segment per activation of the eval loop,
 * innermost first, which the native walk puts before each activation's
 * frame. Its process entries are python_procs (bpf/maps.bpf.h).
 */
#ifndef UNWPROF_UNWIND_PYTHON_BPF_H
#define UNWPROF_UNWIND_PYTHON_BPF_H

#include <bpf/bpf_core_read.h>

#include "walk.bpf.h"

#define PY_THREADS_MAX 64 /* threads of an interpreter searched for the sampled one */
#define PY_FRAME_READ 128 /* bytes of a Python frame read at once: every field the walk reads */
/* Steps of one run of the program: a frame each, at most as many as the ahead holds. */
#define PY_FILL_STEPS (AHEAD_WORDS / 2)

/* What the Python walk keeps of a walk, between its runs. */
struct python_walk {
	__u64 walk_id; /* the walk it is of (struct scratch) */
	__u64 frame;   /* the next Python frame to write: the cursor */
	/* The activation being written: where its words and frames began, and its frames. */
	__u64 seg_cursor;
	__u32 seg_start;
	__u32 seg_frames;
	/* The start of the Python frame being read; twice: a read's length is masked. */
	__u8 buf[2 * PY_FRAME_READ];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WALK_FAMILIES);
	__type(key, __u32);
	__type(value, struct python_walk);
} python_walks SEC(".maps");

/* Where the event of a code object first seen is put together (struct unw_py_code_event). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WALK_FAMILIES);
	__type(key, __u32);
	__type(value, struct unw_py_code_event);
} py_code_buf SEC(".maps");

/* The word at off of the Python frame read into st->buf; 0 past it. */
static __always_inline __u64 py_buf_word(const struct python_walk *st, __u32 off)
{
	__u64 v;

	if (off > sizeof(st->buf) - sizeof(v))
		return 0;
	__builtin_memcpy(&v, &st->buf[off & (sizeof(st->buf) - 1)], sizeof(v));
	return v;
}

/*
 * The current Python frame of the sampled thread: its thread state is the
 * one of the interpreter's threads whose pthread_t is the thread's
 * (pthread_is_thread), not the one holding the GIL; 0 when none is (a
 * thread that never ran Python, more threads than searched). Not by
 * native_thread_id: that is the thread's id in its own pid namespace,
 * which in a container is not the kernel's tid here.
 */
__noinline __u64 py_thread_frame(struct scratch *sc, const struct unw_python_proc *py)
{
	__u64 tp = thread_pointer(), tstate, frame;

	if (!py)
		return 0;
	tstate = user_word(user_word(py->runtime, py->interp_head), py->threads_head);
	for (int i = 0; i < PY_THREADS_MAX && tstate; i++) {
		if (pthread_is_thread(user_word(tstate, py->tstate_thread_id), tp))
			break;
		tstate = user_word(tstate, py->tstate_next);
	}
	if (!tstate) {
		err_inc(sc, UNW_E_PY_THREAD);
		return 0;
	}
	frame = user_word(tstate, py->tstate_frame);
	if (py->cframe_frame >= 0)
		frame = user_word(frame, py->cframe_frame);
	return frame;
}

/*
 * Copies len bytes at addr (when they fit in max) to the event's data at
 * *off, as its copy part. Returns the bytes copied.
 */
static __always_inline __u32 py_copy(struct unw_py_code_event *e, __u32 off, int part, __u64 addr,
				     __u64 len, __u32 max)
{
	if (part >= UNW_PY_PARTS || off > UNW_PY_COPY_MAX - max || !addr || len > max)
		return 0;
	if (bpf_probe_read_user(&e->data[off], len, (void *)addr))
		return 0;
	e->copies[part].addr = addr;
	e->copies[part].len = len;
	return len;
}

/* Bytes of the str object at addr, to the end of its compact data. */
static __always_inline __u64 py_str_len(const struct unw_python_proc *py, __u64 addr)
{
	return addr ? py->str_data + user_word(addr, py->str_length) : 0;
}

/*
 * A code object seen in a walk of pid: the first time, user space is sent
 * copies of it, its names and its line table (struct unw_py_code_event),
 * taken now: the process may free it, or be gone, before user space reads
 * it.
 */
__noinline int py_code_seen(struct scratch *sc, const struct unw_python_proc *py, __u32 pid,
			    __u64 code, __u32 tag)
{
	struct unw_py_code_event *e;
	__u64 name, file, table;
	__u32 family, off = 0;

	if (!sc || !py || !code_first_seen(pid, tag, code))
		return 0;
	family = sc->family;
	e = bpf_map_lookup_elem(&py_code_buf, &family);
	if (!e)
		return 0;
	e->ev = (struct unw_event){
		.type = UNW_EV_CODE, .unwinder = UNW_UW_PYTHON, .pid = pid, .addr = code, .tag = tag
	};
	__builtin_memset(e->copies, 0, sizeof(e->copies));
	off += py_copy(e, off, UNW_PY_PART_CODE, code, py->code_len, UNW_PY_CODE_MAX);
	name = user_word(code, py->code_name);
	off += py_copy(e, off, UNW_PY_PART_NAME, name, py_str_len(py, name), UNW_PY_STR_MAX);
	file = user_word(code, py->code_id);
	off += py_copy(e, off, UNW_PY_PART_FILE, file, py_str_len(py, file), UNW_PY_STR_MAX);
	table = user_word(code, py->code_table);
	if (table)
		off += py_copy(e, off, UNW_PY_PART_TABLE, table,
			       py->bytes_data + user_word(table, UNW_PY_VAR_SIZE),
			       UNW_PY_TABLE_MAX);
	if (off > UNW_PY_COPY_MAX)
		return 0;
	if (bpf_ringbuf_output(&events, e, __builtin_offsetof(struct unw_py_code_event, data) + off,
			       0))
		stat_inc(UNW_ST_EVENTS_LOST);
	return 0;
}

/* What py_frame did: wrote a frame or not, and whether its activation ends there. */
enum { PY_WROTE = 0, PY_SKIPPED, PY_END, PY_WROTE_END, PY_FULL };

/*
 * Writes the Python frame at the cursor ahead, and moves the cursor to the
 * caller's. PY_END when nothing was written and the activation ends (the
 * shim it began with, the bottom, a frame that cannot be read: the cursor
 * then goes to 0), PY_FULL when the ahead has no room left (the cursor
 * unmoved).
 */
static __always_inline int py_frame(struct scratch *sc, struct python_walk *st,
				    const struct unw_python_proc *py, __u32 pid)
{
	__u64 frame, code, where;
	__u32 len, tag;
	__u8 owner;

	frame = st->frame;
	len = py->frame_len;
	if (!frame)
		return PY_END;
	if (sc->ahead.nr_words + 2 > AHEAD_WORDS)
		return PY_FULL;
	/*
	 * The fields the walk needs are near the frame's start: one read for
	 * all, no further than they go (a frame may end its memory).
	 */
	if (len == 0 || len > PY_FRAME_READ ||
	    bpf_probe_read_user(st->buf, len & (2 * PY_FRAME_READ - 1), (void *)frame)) {
		err_inc(sc, UNW_E_PY_FRAME);
		st->frame = 0;
		return PY_END;
	}
	st->frame = py_buf_word(st, py->frame_previous);
	owner = py->entry == UNW_PY_ENTRY_EACH ? 0 : (__u8)py_buf_word(st, py->frame_owner);
	if (py->entry == UNW_PY_ENTRY_SHIM && owner == py->owner_cstack)
		return PY_END; /* the shim the activation began with */
	if (py->entry == UNW_PY_ENTRY_SHIM && owner > py->owner_cstack)
		return PY_SKIPPED; /* a frame of the C stack (3.14), which runs no code */
	/* 3.14 on, a _PyStackRef: its low bits are tags, an object is 8-aligned */
	code = py_buf_word(st, py->frame_code) & ~7ULL;
	where = py_buf_word(st, py->frame_instr);
	if (py->instr_is_index)
		where = (__u32)where;
	if (!code) {
		err_inc(sc, UNW_E_PY_FRAME);
		st->frame = 0;
		return PY_END;
	}
	tag = UNW_PY_TAG(user_word(code, py->code_id));
	py_code_seen(sc, py, pid, code, tag);
	where = (where & ((1ULL << UNW_PY_TAG_SHIFT) - 1)) | (__u64)tag << UNW_PY_TAG_SHIFT;
	ahead_push(sc, UNW_FRAME_WORD(UNW_FRAME_PYTHON, code));
	ahead_push(sc, where);
	if (py->entry == UNW_PY_ENTRY_EACH || (py->entry == UNW_PY_ENTRY_FLAG && owner))
		return PY_WROTE_END;
	return PY_WROTE;
}

/*
 * One step of py_fill: the frame at the cursor written ahead, and its
 * activation's segment closed when it ends there. 1 to go on; 0 at the
 * bottom, or when the ahead is full. A global function: the loop over the
 * steps verifies one path per step, not one per way each frame can go.
 */
__noinline int py_fill_step(struct scratch *sc, struct python_walk *st,
			    const struct unw_python_proc *py, __u32 pid)
{
	int r;

	if (!sc || !st || !py)
		return 0;
	r = py_frame(sc, st, py, pid);
	if (r == PY_FULL)
		return 0;
	if (r == PY_WROTE || r == PY_WROTE_END)
		st->seg_frames++;
	if (r == PY_WROTE || r == PY_SKIPPED)
		return 1;
	ahead_close(sc, st->seg_frames);
	st->seg_frames = 0;
	st->seg_start = sc->ahead.nr_words;
	st->seg_cursor = st->frame;
	return st->frame && !ahead_full(sc);
}

/*
 * Writes ahead the Python frames of the activations of the eval loop from
 * the cursor on, one segment each, until the bottom or until the ahead is
 * full: an activation that does not fit is left for the next run, from its
 * start (more), unless it is alone and still does not fit, when its first
 * frames are written and the rest of the thread's left out.
 */
static __always_inline void py_fill(struct scratch *sc, struct python_walk *st,
				    const struct unw_python_proc *py, __u32 pid)
{
	st->seg_start = sc->ahead.nr_words;
	st->seg_cursor = st->frame;
	st->seg_frames = 0;
	for (int i = 0; i < PY_FILL_STEPS; i++)
		if (!py_fill_step(sc, st, py, pid))
			break;
	if (sc->ahead.nr_words == st->seg_start && st->frame == st->seg_cursor) {
		sc->ahead.more = st->frame != 0; /* every activation begun is written */
		return;
	}
	if (sc->ahead.nr_segs) {
		ahead_drop(sc, st->seg_start);
		st->frame = st->seg_cursor;
		sc->ahead.more = 1;
		return;
	}
	/* The rest of the activation would be taken for the next one's: none of it. */
	err_inc(sc, UNW_E_PY_DEPTH);
	ahead_close(sc, st->seg_frames);
	st->frame = 0;
}

/*
 * Python's walk of frame s->n, handed over by the native walk: the Python
 * frames of the thread written ahead, as many as fit, from where the last
 * run of this walk left off (the thread's current frame at the first). The
 * native walk writes them and steps the frame.
 */
static __always_inline __u32 python_step(struct scratch *sc, struct walk_saved *s)
{
	const struct unw_python_proc *py = bpf_map_lookup_elem(&python_procs, &s->pid);
	__u32 family = sc->family;
	struct python_walk *st = bpf_map_lookup_elem(&python_walks, &family);

	ahead_begin(sc, UNW_UW_PYTHON);
	if (!py || !st)
		return RESUME_FRAME;
	if (py->refused) {
		err_inc(sc, UNW_E_PY_VERSION);
		return RESUME_FRAME;
	}
	if (st->walk_id != sc->walk_id) {
		st->walk_id = sc->walk_id;
		st->frame = py_thread_frame(sc, py);
	}
	py_fill(sc, st, py, s->pid);
	return RESUME_FRAME;
}

UNW_RUNTIME_PROGRAMS(python)

#endif
