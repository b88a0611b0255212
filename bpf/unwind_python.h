/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Python unwinder: CPython's frames (core/runtimes/pyruntime.h,
 * pyframes.h), which bpf/walk.bpf.h writes at a frame of UNW_UW_PYTHON.
 * Its process entries are py_procs (bpf/maps.bpf.h).
 */
#ifndef UNWPROF_UNWIND_PYTHON_H
#define UNWPROF_UNWIND_PYTHON_H

#include <bpf/bpf_core_read.h>

#include "walk_state.bpf.h"

/* Where the event of a code object first seen is put together (struct unw_py_code_event). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_py_code_event);
} py_code_buf SEC(".maps") __weak;

#define PY_THREADS_MAX 64      /* threads of an interpreter searched for the sampled one */
#define PY_FRAMES_PER_EVAL 256 /* Python frames written for one eval activation */

/* The word at off of the Python frame read into sc->py_buf; 0 past it. */
static __always_inline __u64 py_buf_word(const struct scratch *sc, __u32 off)
{
	__u64 v;

	if (off > sizeof(sc->py_buf) - sizeof(v))
		return 0;
	__builtin_memcpy(&v, &sc->py_buf[off & (sizeof(sc->py_buf) - 1)], sizeof(v));
	return v;
}

/*
 * The current Python frame of the sampled thread: its thread state is the
 * one of the interpreter's threads whose pthread_t is the thread's fs base
 * (glibc: pthread_self() is the TCB), not the one holding the GIL; 0 when
 * none is (a thread that never ran Python, more threads than searched).
 */
__weak __noinline __u64 py_thread_frame(const struct unw_py_proc *py)
{
	__u64 self = 0, tstate, frame;

	if (!py)
		return 0;
#ifdef __TARGET_ARCH_x86 /* core/runtimes/pyruntime.c reads amd64 binaries only */
	self = BPF_CORE_READ(bpf_get_current_task_btf(), thread.fsbase);
#endif
	tstate = user_word(user_word(py->runtime, py->interp_head), py->threads_head);
	for (int i = 0; i < PY_THREADS_MAX && tstate; i++) {
		if (user_word(tstate, py->tstate_thread_id) == self && self)
			break;
		tstate = user_word(tstate, py->tstate_next);
	}
	if (!tstate) {
		err_inc(UNW_E_PY_THREAD);
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
static __always_inline __u64 py_str_len(const struct unw_py_proc *py, __u64 addr)
{
	return addr ? py->str_data + user_word(addr, py->str_length) : 0;
}

/*
 * A code object seen in a sample of pid: the first time, user space is
 * sent copies of it, its names and its line table (struct
 * unw_py_code_event), taken now: the process may free it, or be gone,
 * before user space reads it.
 */
__weak __noinline int py_code_seen(const struct unw_py_proc *py, __u32 pid, __u64 code, __u32 tag)
{
	struct unw_py_code_event *e;
	__u64 name, file, table;
	__u32 zero = 0, off = 0;

	if (!py || !code_first_seen(pid, tag, code))
		return 0;
	e = bpf_map_lookup_elem(&py_code_buf, &zero);
	if (!e)
		return 0;
	e->ev = (struct unw_event){ .type = UNW_EV_PY_CODE, .pid = pid, .addr = code, .tag = tag };
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

/* What py_frame returns: the activation goes on, or its frames end here. */
enum { PY_MORE = 0, PY_END, PY_WRITTEN_END };

/*
 * Writes the Python frame at the cursor and moves it to the caller's.
 * Returns PY_MORE, PY_WRITTEN_END when the frame written was the
 * activation's first, or PY_END when nothing was written and the activation
 * ends (the shim it began with, the bottom, a frame that cannot be read, a
 * full stack). A global function: the loop over an activation's frames
 * verifies one path per frame, not one per way each frame can go.
 */
__weak __noinline int py_frame(struct scratch *sc, const struct unw_py_proc *py, __u64 *hash,
			       __u32 pid)
{
	__u64 frame, code, where;
	__u32 len, tag;
	__u8 owner;

	if (!sc || !py || !hash)
		return PY_END;
	frame = sc->py_frame;
	len = py->frame_len;
	if (!frame)
		return PY_END;
	/*
	 * The fields the walk needs are near the frame's start: one read for
	 * all, no further than they go (a frame may end its memory).
	 */
	if (len == 0 || len > sizeof(sc->py_buf) ||
	    bpf_probe_read_user(sc->py_buf, len & (sizeof(sc->py_buf) | (sizeof(sc->py_buf) - 1)),
				(void *)frame)) {
		err_inc(UNW_E_PY_FRAME);
		sc->py_frame = 0;
		return PY_END;
	}
	sc->py_frame = py_buf_word(sc, py->frame_previous);
	owner = py->entry == UNW_PY_ENTRY_EACH ? 0 : (__u8)py_buf_word(sc, py->frame_owner);
	if (py->entry == UNW_PY_ENTRY_SHIM && owner == py->owner_cstack)
		return PY_END; /* the shim the activation began with */
	if (py->entry == UNW_PY_ENTRY_SHIM && owner > py->owner_cstack)
		return PY_MORE; /* a frame of the C stack (3.14), which runs no code */
	/* 3.14 on, a _PyStackRef: its low bits are tags, an object is 8-aligned */
	code = py_buf_word(sc, py->frame_code) & ~7ULL;
	where = py_buf_word(sc, py->frame_instr);
	if (py->instr_is_index)
		where = (__u32)where;
	if (!code) {
		err_inc(UNW_E_PY_FRAME);
		return PY_END;
	}
	tag = UNW_PY_TAG(user_word(code, py->code_id));
	py_code_seen(py, pid, code, tag);
	where = (where & ((1ULL << UNW_PY_TAG_SHIFT) - 1)) | (__u64)tag << UNW_PY_TAG_SHIFT;
	if (stack_push(sc, hash, UNW_FRAME_WORD(UNW_FRAME_PYTHON, code)) ||
	    stack_push(sc, hash, where))
		return PY_END;
	sc->py_written++;
	if (py->entry == UNW_PY_ENTRY_EACH || (py->entry == UNW_PY_ENTRY_FLAG && owner))
		return PY_WRITTEN_END;
	return PY_MORE;
}

/*
 * The Python unwinder: writes the Python frames of one activation of the
 * eval loop, innermost first, from the cursor on (the thread's current
 * frame for the innermost activation), and leaves the cursor at the next
 * activation's. A frame is two words (bpf/abi.h, UNW_FRAME_PYTHON): its
 * code object and where in it the frame is. A global function: its loop
 * is verified once, not once in each walk that calls it.
 */
__weak __noinline int py_frames(struct scratch *sc, const struct unw_py_proc *py, __u64 *hash,
				__u32 pid)
{
	__u32 before;
	int i;

	if (!sc || !py || !hash)
		return 0;
	if (py->refused) {
		err_inc(UNW_E_PY_VERSION);
		return 0;
	}
	before = sc->py_written;
	if (!sc->py_looked) {
		sc->py_looked = 1;
		sc->py_frame = py_thread_frame(py);
	}
	for (i = 0; i < PY_FRAMES_PER_EVAL; i++)
		if (py_frame(sc, py, hash, pid) != PY_MORE)
			break;
	/* The rest of the activation would be taken for the next one's: none of it. */
	if (i == PY_FRAMES_PER_EVAL) {
		err_inc(UNW_E_PY_DEPTH);
		sc->py_frame = 0;
	}
	if (!before && sc->py_written)
		stat_inc(UNW_ST_PY_SAMPLES);
	return 0;
}

#endif
