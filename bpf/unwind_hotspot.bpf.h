/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walk of HotSpot's code cache (bpf/unwind_hotspot.h,
 * core/runtimes/hotspot/): the program the native walk hands a frame whose
 * pc is in a JVM's code cache over to (UNW_UW_HOTSPOT). Its process entries
 * are hotspot_procs (bpf/maps.bpf.h).
 *
 * Code the JIT compiled keeps no frame pointer; the JVM knows each frame
 * by its code blob. A pc is in one of the code cache's heaps, whose
 * segment map gives the start of the block that holds it (a byte per
 * segment: 0 at a block's first, else how many segments back to step,
 * 0xff free), a HeapBlock header before the blob. Its name tells it:
 *
 *  - an nmethod (C1, C2, a native method's wrapper): its frame is
 *    _frame_size words, the return
 *    address its last, the caller's rbp below it; before its frame is
 *    complete (the prologue) the return address is at sp;
 *  - the interpreter: its frames are rbp's, the Method* and the bcp at
 *    fixed words below rbp, the caller's sp (unextended) saved there too;
 *  - any other (the call stub, adapters, runtime stubs): by its
 *    _frame_size when it has one, by rbp when not. The call stub, whose
 *    frame is rbp's, returns into the VM's C++ code: the native walk goes
 *    on there.
 *
 * The Java frames of a run of the code cache are walked here, one after
 * the other, each recorded as its Method* and bcp or pc (two words), and
 * the walk handed back at the first frame outside it. A JVM whose tables
 * lack an entry is counted (hotspot-vmstructs-unsupported) and its frame
 * stepped as the native walk steps code without a table.
 */
#ifndef UNWPROF_UNWIND_HOTSPOT_BPF_H
#define UNWPROF_UNWIND_HOTSPOT_BPF_H

#include "walk.bpf.h"

/* Steps back through a segment map: blobs up to 32 * 254 segments (1 MB of 128-byte segments). */
#define HS_SEGMAP_HOPS 32
/*
 * Java frames walked in one run of the program, in a bounded loop (no
 * bpf_loop: kernels before 5.17 load it too); past them, the native walk
 * hands the next frame over again, to a run of its own.
 */
#define HS_FRAMES_PER_RUN 32

/*
 * The code blob that holds pc (its address), found through the segment
 * map of the heap that holds it; 0 when none does.
 */
__weak __noinline __u64 hs_find_blob(const struct unw_hotspot_proc *hs, __u64 pc)
{
	__u64 lo, seg, segmap;
	__u32 shift;
	__u8 b;
	int i;

	if (!hs)
		return 0;
	for (i = 0; i < UNW_HS_HEAPS_MAX; i++)
		if (i < hs->nr_heaps && pc >= hs->heaps[i].lo && pc < hs->heaps[i].hi)
			break;
	if (i >= UNW_HS_HEAPS_MAX)
		return 0;
	lo = hs->heaps[i].lo;
	segmap = hs->heaps[i].segmap;
	shift = hs->log2_segment & 31;
	seg = (pc - lo) >> shift;
	for (int k = 0; k < HS_SEGMAP_HOPS; k++) {
		if (bpf_probe_read_user(&b, 1, (void *)(segmap + seg)))
			return 0;
		if (b == 0xff || b > seg)
			return 0;
		if (b == 0)
			return lo + (seg << shift) + hs->heapblock_size;
		seg -= b;
	}
	return 0;
}

static __always_inline __s32 hs_int(__u64 addr)
{
	__s32 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)addr);
	return v;
}

/* What a run of the walk works on, for its frames' function. */
struct hs_run {
	struct scratch *sc;
	struct walk_saved *s;
	const struct unw_hotspot_proc *hs;
	__u32 resume; /* how the native walk goes on, once the run stopped */
	__u32 stopped;
};

/*
 * A method or blob of pid first seen (its frame's first word, without its
 * frame kind): user space is told, to read its name and line table while
 * the JVM lives.
 */
static __always_inline void hs_seen(__u32 pid, __u32 tag, __u64 w)
{
	struct unw_event ev = {
		.type = UNW_EV_CODE, .unwinder = UNW_UW_HOTSPOT, .pid = pid, .addr = w, .tag = tag
	};

	if (code_first_seen(pid, tag, w) && bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

/* Writes the frame (kind, value, where) of the walk: -1 when the stack is full. */
static __always_inline int hs_push(struct hs_run *r, __u32 kind, __u64 value, __u64 where)
{
	__u64 w = (__u64)kind << UNW_HS_KIND_SHIFT | (value & UNW_HS_VALUE_MASK);

	if (stack_push(r->sc, &r->s->hash, UNW_FRAME_WORD(UNW_FRAME_HOTSPOT, w)) ||
	    stack_push(r->sc, &r->s->hash, where))
		return -1;
	r->s->n++;
	if (value)
		hs_seen(r->s->pid, kind | (__u32)(where >> UNW_HS_TAG_SHIFT) << 8, w);
	return 0;
}

/* The run stops, the native walk going on as resume says. */
static __always_inline long hs_stop(struct hs_run *r, __u32 resume)
{
	r->resume = resume;
	r->stopped = 1;
	return 1;
}

/*
 * One frame of a run: the frame at s->f, in the code cache, recorded and
 * stepped to its caller. The caller's frame is checked to be above it.
 */
static __noinline long hs_frame(__u32 i, void *ctx)
{
	struct hs_run *r = ctx;
	struct walk_saved *s = r->s;
	const struct unw_hotspot_proc *hs = r->hs;
	struct unw_frame *f;
	__u64 pc, look, blob, name, begin, method, ra, sp, fp, id;
	__s32 size, complete;

	if (!s || !hs || !r->sc)
		return 1;
	f = &s->f;
	pc = f->pc;
	if (pc < hs->codecache_lo || pc >= hs->codecache_hi)
		return hs_stop(r, RESUME_GO_ON); /* out of the code cache: native code again */
	if (s->n >= s->frames_max)
		return hs_stop(r, RESUME_STOP);
	/* A return address points after the call: the blob of the call itself. */
	look = s->n && !f->signal ? pc - 1 : pc;
	blob = hs_find_blob(hs, look);
	if (!blob) {
		err_inc(r->sc, UNW_E_HS_BLOB);
		return hs_stop(r, i ? RESUME_GO_ON : RESUME_FRAME);
	}
	name = user_word(user_word(blob, hs->blob_name), 0);
	sp = f->sp;
	fp = f->fp;
	if (name == UNW_HS_NAME_INTERPRETER) {
		method = user_word(fp, (__s64)hs->frame_method * 8);
		if (hs_push(r, UNW_HS_INTERPRETED, method, user_word(fp, (__s64)hs->frame_bcp * 8)))
			return hs_stop(r, RESUME_STOP);
		ra = user_word(fp, 8);
		sp = user_word(fp, (__s64)hs->frame_sender_sp * 8);
		fp = user_word(fp, 0);
	} else {
		size = hs_int(blob + hs->blob_frame_size);
		begin = user_word(blob, hs->blob_code_begin);
		complete = hs_int(blob + hs->blob_frame_complete);
		if (name == UNW_HS_NAME_NMETHOD || name == UNW_HS_NAME_NATIVE) {
			id = (__u16)hs_int(blob + hs->nmethod_compile_id);
			if (hs_push(r, UNW_HS_COMPILED, blob, pc | id << UNW_HS_TAG_SHIFT))
				return hs_stop(r, RESUME_STOP);
		} else if (hs_push(r, UNW_HS_STUB, blob, pc)) {
			return hs_stop(r, RESUME_STOP);
		}
		if (size > 0 && size < 1 << 16 && complete >= 0 && look >= begin + complete) {
			sp += (__u64)size * 8;
			ra = user_word(sp, -8);
			fp = user_word(sp, -16);
		} else if (size > 0 || !s->n) {
			/* Its frame not built yet (a prologue, a stub's entry): the return address at sp. */
			ra = user_word(sp, 0);
			sp += 8;
		} else {
			ra = user_word(fp, 8);
			sp = fp + 16;
			fp = user_word(fp, 0);
		}
	}
	if (!ra || sp <= f->sp) {
		err_inc(r->sc, UNW_E_HS_STEP);
		return hs_stop(r, RESUME_STOP);
	}
	f->pc = ra;
	f->sp = sp;
	f->fp = fp;
	f->lr = 0;
	f->signal = 0;
	f->fp_linked = 0;
	return 0;
}

/*
 * HotSpot's walk of frame s->n, handed over by the native walk: the Java
 * frames from there walked and written, up to the first frame outside the
 * code cache, which the native walk goes on with.
 */
static __always_inline __u32 hotspot_step(struct scratch *sc, struct walk_saved *s)
{
	struct hs_run r = { .sc = sc, .s = s, .resume = RESUME_GO_ON };

	r.hs = bpf_map_lookup_elem(&hotspot_procs, &s->pid);
	if (!r.hs)
		return RESUME_FRAME;
	if (r.hs->refused) {
		err_inc(sc, UNW_E_HS_TABLES);
		return RESUME_FRAME;
	}
	for (__u32 i = 0; i < HS_FRAMES_PER_RUN; i++)
		if (hs_frame(i, &r))
			break;
	return r.resume;
}

UNW_RUNTIME_PROGRAMS(hotspot)

#endif
