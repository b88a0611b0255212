/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walk of Perl's context stacks (bpf/unwind_perl.h, core/runtimes/perl/):
 * the program the native walk hands a frame of the run loop
 * (Perl_runops_standard) over to (UNW_UW_PERL). It writes the Perl frames
 * of the thread's interpreter ahead of the walk (struct frames_ahead), one
 * segment per activation of the run loop, innermost first. Its process
 * entries are perl_procs (bpf/maps.bpf.h).
 *
 * Perl keeps no frame per call of the run loop: a sub's context (CXt_SUB)
 * says the sub and, in blk_oldcop, the statement of its caller that called
 * it; PL_curcop is the statement being run. The contexts of an
 * interpreter's stack infos, innermost first, give the frames: a sub or
 * format, a string eval, require or do FILE, a sort BLOCK (CXt_NULL on a
 * sort's stack info), the main program at the bottom of the main stack
 * info; a frame's statement is PL_curcop for the first (a sub's first
 * statement while it has not run one), the blk_oldcop of the frame before
 * it for the others. A map's or grep's BLOCK has no context: a frame runs
 * in one when the ops it goes on with (PL_op, or the return op of the
 * frame before it) lead to the map's mapwhile (grep's grepwhile) before a
 * statement begins. Loops, bare blocks, eval {} and
 * try {} are no frames (Perl's caller() skips them too). An activation of
 * the run loop begins with a context C pushed before it called the loop:
 * a sub or eval whose return op is none (call_sv, eval_sv, MULTICALL), a
 * sort BLOCK; such a context at the top while PL_op is none is between
 * its calls (the sort's comparisons, the MULTICALL's items): its
 * activation is not on the thread's stack, and it is no frame. Where that
 * C code set Perl's CATCH (call_sv without G_EVAL, MULTICALL, pp_sort),
 * the activation's outermost eval {}, string eval or require runs the code
 * in it in a run loop of its own (docatch): one more activation, which
 * begins with that eval's context.
 */
#ifndef UNWPROF_UNWIND_PERL_BPF_H
#define UNWPROF_UNWIND_PERL_BPF_H

#include <bpf/bpf_core_read.h>

#include "walk.bpf.h"

/*
 * Steps of one run of the program: a context, or a stack info, each. A
 * sub's frame often comes with a loop's or a block's context: twice as many
 * steps as the ahead holds frames, and more.
 */
#define PL_FILL_STEPS (2 * AHEAD_WORDS)
/* The buffer a context is read into: a power of two, past the bytes read. */
#define PL_CX_BUF 128
#define PL_CXIX_MAX (1 << 20) /* a context index past this is not one */
_Static_assert(UNW_PL_CX_READ <= PL_CX_BUF, "a context fits its buffer");

/* Where the walk of the contexts is: the next context to read, and the statement run there. */
struct perl_cursor {
	__u64 si;      /* the stack info; 0: the walk is at its end */
	__u64 cxstack; /* its contexts */
	__u64 cop;     /* the statement the next frame runs */
	__s32 ix;      /* the next context, counting down; < 0: the stack info's end */
	__s32 si_type;
	__u32 idle; /* PL_op is none: an activation's first context at the top is between calls */
	__u32 top;  /* no frame written yet: the next is the innermost */
	__u32 pending; /* UNW_PL_MAP or UNW_PL_GREP: the next frame runs in one, written first */
	__u32 pad;
};

/* A cache entry of a walk (pl_sub_cached): key 0 is none. */
#define PL_CACHE 8

struct pl_seen {
	__u64 key;
	__u64 word;
};

/* What the Perl walk keeps of a walk, between its runs. */
struct perl_walk {
	__u64 walk_id; /* the walk it is of (struct scratch) */
	struct perl_cursor cur;
	/* The activation being written: where its words and frames began, and its frames. */
	struct perl_cursor seg_cursor;
	__u32 seg_start;
	__u32 seg_frames;
	/*
	 * Its outermost eval {}, string eval or require so far (has_eval):
	 * where its words and frames end; one of an activation its C caller
	 * began with CATCH set ran a run loop of its own (pl_entry).
	 */
	__u32 has_eval;
	__u32 eval_at;
	__u32 eval_frames;
	__u32 last_eval;   /* the context just read is such an eval */
	__u32 catch_entry; /* the activation that just ended began with CATCH set */
	__u32 pad;
	/* The context being read. */
	__u8 buf[PL_CX_BUF];
	/* The subs and COPs this walk found: their frames' words; return ops: map or grep. */
	struct pl_seen subs[PL_CACHE];
	struct pl_seen cops[PL_CACHE];
	struct pl_seen blocks[PL_CACHE];
	__u32 pushed; /* frames the context just read wrote */
	__u32 pad2;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WALK_FAMILIES);
	__type(key, __u32);
	__type(value, struct perl_walk);
} perl_walks SEC(".maps");

/* Where the event of a COP first seen is put together (struct unw_pl_cop_event). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WALK_FAMILIES);
	__type(key, __u32);
	__type(value, struct unw_pl_cop_event);
} pl_cop_buf SEC(".maps");

/* The word at off of the context read into st->buf; 0 past it. */
static __always_inline __u64 pl_buf_word(const struct perl_walk *st, __u32 off)
{
	__u64 v;

	if (off > UNW_PL_CX_READ - sizeof(v))
		return 0;
	__builtin_memcpy(&v, &st->buf[off & (PL_CX_BUF - 1)], sizeof(v));
	return v;
}

/* The 32-bit word at addr + off of the process; 0 when it cannot be read. */
static __always_inline __u32 pl_user_u32(__u64 addr, __u32 off)
{
	__u32 v = 0;

	if (addr)
		bpf_probe_read_user(&v, sizeof(v), (void *)(addr + off));
	return v;
}

/* A window of an SV, a body, a COP or an op, read at once: the fields the walk reads of it. */
#define PL_WIN 64

static __always_inline __u64 pl_win_word(const __u8 *w, __u32 off)
{
	__u64 v;

	if (off > PL_WIN - sizeof(v))
		return 0;
	__builtin_memcpy(&v, &w[off & (PL_WIN - 1)], sizeof(v));
	return v;
}

static __always_inline __u32 pl_win_u32(const __u8 *w, __u32 off)
{
	__u32 v;

	if (off > PL_WIN - sizeof(v))
		return 0;
	__builtin_memcpy(&v, &w[off & (PL_WIN - 1)], sizeof(v));
	return v;
}

/* The cursor at the top of stack info si (its type, contexts and index); 0 when it is not one. */
static __always_inline int pl_stackinfo(struct perl_cursor *c, const struct unw_perl_proc *pl,
					__u64 si)
{
	__s32 ix = (__s32)pl_user_u32(si, pl->si_cxix), max = (__s32)pl_user_u32(si, pl->si_cxmax);

	c->si = si;
	c->cxstack = user_word(si, pl->si_cxstack);
	c->si_type = (__s32)pl_user_u32(si, pl->si_type);
	c->ix = ix;
	/* -1 is an empty stack info */
	return si && c->cxstack && ix >= -1 && ix <= max && max < PL_CXIX_MAX;
}

/* Steps of the ops from a return op to its map's or grep's while op. */
#define PL_OP_STEPS 8

/*
 * Whether op, the op being run or the one a sub returns to, is in a map's
 * or grep's BLOCK (or expression): UNW_PL_MAP or UNW_PL_GREP when its ops
 * lead to their mapwhile or grepwhile, which runs the BLOCK again, before
 * a statement or another map or grep begins (the ops a statement ends
 * with, a few but for a long BLOCK, which is then taken as none); 0 when
 * not.
 */
__noinline __u32 pl_op_block(const struct unw_perl_proc *pl, __u64 op)
{
	__u8 w[PL_WIN];
	__u16 type;

	if (!pl)
		return 0;
	for (int i = 0; i < PL_OP_STEPS && op; i++) {
		if (bpf_probe_read_user(w, UNW_PL_OP_READ, (void *)op))
			return 0;
		type = (__u16)pl_win_u32(w, pl->op_type) & UNW_PL_OP_TYPE_MASK;
		if (type == pl->op_mapwhile)
			return UNW_PL_MAP;
		if (type == pl->op_grepwhile)
			return UNW_PL_GREP;
		if (type == pl->op_nextstate || type == pl->op_dbstate || type == pl->op_mapstart ||
		    type == pl->op_grepstart)
			return 0;
		op = pl_win_word(w, 0);
	}
	return 0;
}

/*
 * The sampled thread's interpreter, from PL_current_context (its own, not
 * the first interpreter's: each ithread has one), and where its walk
 * starts: its current stack info, statement and op. 0 when it has none.
 */
__noinline int pl_thread_start(struct scratch *sc, struct perl_cursor *c,
			       const struct unw_perl_proc *pl)
{
	__u64 fsbase = 0, got, var, interp;

	if (!sc || !c || !pl)
		return 0;
#ifdef __TARGET_ARCH_x86 /* core/runtimes/perl/plruntime.c reads amd64 binaries only */
	fsbase = BPF_CORE_READ(bpf_get_current_task_btf(), thread.fsbase);
#endif
	got = user_word(pl->tls_got, 0);
	if (pl->tls_static)
		var = fsbase && got ? fsbase + got : 0;
	else
		var = got && got < 4096 ? user_word(user_word(fsbase, 8), got * 16) : 0;
	if (!pl->tls_static && var && var != (__u64)-1)
		var += pl->tls_offset;
	interp = var && var != (__u64)-1 ? user_word(var, 0) : 0;
	if (!interp || !pl_stackinfo(c, pl, user_word(interp, pl->interp_curstackinfo))) {
		err_inc(sc, UNW_E_PL_THREAD);
		return 0;
	}
	c->cop = user_word(interp, pl->interp_curcop);
	c->idle = user_word(interp, pl->interp_op) == 0;
	c->top = 1;
	c->pending = pl_op_block(pl, user_word(interp, pl->interp_op));
	return 1;
}

/* Whether the SV head read into w is a GV's that has its GP. */
static __always_inline int pl_is_gv(const __u8 *w, const struct unw_perl_proc *pl)
{
	return (pl_win_u32(w, pl->sv_flags) & (UNW_PL_SVt_MASK | UNW_PL_SVpgv_GP)) ==
	       (UNW_PL_SVt_PVGV | UNW_PL_SVpgv_GP);
}

/*
 * The first word of the frame of sub cv: its GV (the effective one, as
 * caller() names it), or the CV itself when it has a name HEK and no GV;
 * 0 when cv is not a CV, or its GV not a GV with its GP (counted). Each
 * SV's head and the CV's body are read whole, once.
 */
__noinline __u64 pl_sub_word(struct scratch *sc, const struct unw_perl_proc *pl, __u64 cv)
{
	__u8 w[PL_WIN];
	__u64 body, gv, egv;

	if (!sc || !pl)
		return 0;
	if (!cv || bpf_probe_read_user(w, UNW_PL_SV_READ, (void *)cv) ||
	    (pl_win_u32(w, pl->sv_flags) & UNW_PL_SVt_MASK) != UNW_PL_SVt_PVCV)
		goto bad;
	body = pl_win_word(w, 0);
	if (!body || bpf_probe_read_user(w, UNW_PL_CV_READ, (void *)(body + pl->cv_gv)))
		goto bad;
	if (pl_win_u32(w, (__u32)pl->cv_flags - pl->cv_gv) & UNW_PL_CVf_NAMED)
		return UNW_FRAME_WORD(UNW_FRAME_PERL,
				      (__u64)UNW_PL_SUB_NAMED << UNW_PL_KIND_SHIFT | cv);
	gv = pl_win_word(w, 0);
	if (!gv || bpf_probe_read_user(w, UNW_PL_SV_READ, (void *)gv) || !pl_is_gv(w, pl))
		goto bad;
	/* a GV is its own effective GV but for a glob assigned another's */
	egv = user_word(pl_win_word(w, pl->sv_u), pl->gp_egv);
	if (egv && egv != gv && !bpf_probe_read_user(w, UNW_PL_SV_READ, (void *)egv) &&
	    pl_is_gv(w, pl))
		gv = egv;
	return UNW_FRAME_WORD(UNW_FRAME_PERL, (__u64)UNW_PL_SUB << UNW_PL_KIND_SHIFT | gv);
bad:
	err_inc(sc, UNW_E_PL_FRAME);
	return 0;
}

/*
 * The first statement of sub cv, its first op when that is a COP; 0 when
 * it is not. The innermost sub whose statement is still the one its
 * caller called it from has not run one of its own: it is at its first.
 */
__noinline __u64 pl_sub_start(const struct unw_perl_proc *pl, __u64 cv)
{
	__u64 start;
	__u16 type;

	if (!pl)
		return 0;
	start = user_word(user_word(cv, 0), pl->cv_start);
	type = (__u16)pl_user_u32(start, pl->op_type) & UNW_PL_OP_TYPE_MASK;
	return type == pl->op_nextstate || type == pl->op_dbstate ? start : 0;
}

/*
 * Tells user space of COP cop of pid first seen, with tag: its line and a
 * copy of its file (struct unw_pl_cop_event), taken now, while it lives.
 */
static __always_inline void pl_cop_seen(__u32 family, __u32 pid, __u64 cop, __u32 tag, __u32 line,
					__u64 file)
{
	struct unw_pl_cop_event *e = bpf_map_lookup_elem(&pl_cop_buf, &family);
	long len;

	if (!e)
		return;
	e->ev = (struct unw_event){
		.type = UNW_EV_CODE, .unwinder = UNW_UW_PERL, .pid = pid, .addr = cop, .tag = tag
	};
	e->line = line;
	len = file ? bpf_probe_read_user_str(e->file, sizeof(e->file), (void *)file) : 0;
	/* a file cut short is none: user space reads it whole from the process */
	e->len = len > 0 && len < (long)sizeof(e->file) ? (__u32)len : 0;
	if (bpf_ringbuf_output(&events, e,
			       __builtin_offsetof(struct unw_pl_cop_event, file) +
				       (e->len & (UNW_PL_FILE_MAX - 1)),
			       0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

/*
 * The second word of a frame at statement cop of pid: the COP and its tag;
 * the first time the COP is seen, user space is told, with its line and
 * file.
 */
__noinline __u64 pl_cop_word(const struct unw_perl_proc *pl, __u32 family, __u32 pid, __u64 cop)
{
	__u8 w[PL_WIN] = {};
	__u64 addr, file;
	__u32 tag, line;

	if (!pl)
		return 0;
	/* its line and its file's pointer, read at once */
	if (cop)
		bpf_probe_read_user(w, UNW_PL_COP_READ, (void *)(cop + pl->cop_line));
	addr = cop & UNW_PL_VALUE_MASK;
	file = pl_win_word(w, (__u32)pl->cop_file - pl->cop_line);
	line = pl_win_u32(w, 0);
	tag = UNW_PL_TAG(file, line);
	if (cop && code_first_seen(pid, tag, addr))
		pl_cop_seen(family, pid, addr, tag, line, file);
	return addr | (__u64)tag << UNW_PL_TAG_SHIFT;
}

/*
 * A sub's frame word of pid first seen: user space is told, to read its
 * name while the sub lives.
 */
static __always_inline void pl_sub_seen(__u32 pid, __u64 word)
{
	struct unw_event ev = { .type = UNW_EV_CODE,
				.unwinder = UNW_UW_PERL,
				.pid = pid,
				.addr = word & UNW_FRAME_VALUE_MASK,
				.tag = UNW_PL_NAME_TAG };

	if (word && code_first_seen(pid, ev.tag, ev.addr) &&
	    bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

/*
 * What this walk found of sub cv (its frame's first word) or COP cop (the
 * second), found again in the cache of the walk: a recursion's frames
 * repeat a few subs and statements, each read once a walk. The stack does
 * not change while it is walked.
 */
static __always_inline __u64 pl_sub_cached(struct scratch *sc, struct perl_walk *st,
					   const struct unw_perl_proc *pl, __u64 cv, __u32 pid)
{
	struct pl_seen *e = &st->subs[(cv >> 4) & (PL_CACHE - 1)];

	if (cv && e->key == cv)
		return e->word;
	e->word = pl_sub_word(sc, pl, cv);
	e->key = e->word ? cv : 0;
	pl_sub_seen(pid, e->word);
	return e->word;
}

/*
 * Writes the two words of a frame ahead, if they fit. Each index is masked
 * behind a barrier: the compiler would otherwise prove the second's mask
 * needless from the first's bound, which the verifier does not follow.
 */
static __always_inline void pl_push2(struct scratch *sc, __u64 a, __u64 b)
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

/*
 * Writes the frame of first word what ahead, at statement cop of pid, and
 * first the frame of the map or grep it runs in, if it does, at the same
 * statement; counts them (st->pushed).
 */
static __always_inline void pl_frame_push(struct scratch *sc, struct perl_walk *st,
					  const struct unw_perl_proc *pl, __u32 pid, __u64 what,
					  __u64 cop)
{
	struct pl_seen *e = &st->cops[(cop >> 3) & (PL_CACHE - 1)];
	__u32 block = st->cur.pending;

	if (!cop || e->key != cop) {
		e->word = pl_cop_word(pl, sc->family, pid, cop);
		e->key = cop;
	}
	st->cur.pending = 0;
	if (block) {
		pl_push2(sc, UNW_FRAME_WORD(UNW_FRAME_PERL, (__u64)block << UNW_PL_KIND_SHIFT),
			 e->word);
		st->pushed++;
	}
	pl_push2(sc, what, e->word);
	st->pushed++;
}

/* The map or grep (UNW_PL_MAP, UNW_PL_GREP) return op retop is in, found again in the walk's cache. */
static __always_inline __u32 pl_block_cached(struct perl_walk *st, const struct unw_perl_proc *pl,
					     __u64 retop)
{
	struct pl_seen *e = &st->blocks[(retop >> 3) & (PL_CACHE - 1)];

	if (!retop)
		return 0;
	if (e->key != retop) {
		e->word = pl_op_block(pl, retop);
		e->key = retop;
	}
	return (__u32)e->word;
}

/* What pl_context did: wrote a frame or not, and whether its activation ends there. */
enum { PL_WROTE = 0, PL_SKIPPED, PL_END, PL_WROTE_END, PL_FULL, PL_BOTTOM };

/*
 * Whether the context below the one read into st->buf is a sort BLOCK on
 * its stack info: the one read is then the last of the BLOCK's ops, whose
 * return op is none as the BLOCK's ops end with none.
 */
static __always_inline int pl_below_sort(const struct perl_walk *st, const struct unw_perl_proc *pl)
{
	const struct perl_cursor *c = &st->cur;
	__u8 below = 0xff;

	if (c->si_type != UNW_PL_PERLSI_SORT || c->ix < 0)
		return 0;
	bpf_probe_read_user(&below, sizeof(below),
			    (void *)(c->cxstack + (__u64)c->ix * pl->cx_size));
	return (below & UNW_PL_CXTYPEMASK) == UNW_PL_CXt_NULL;
}

/* How a context began an activation of the run loop (pl_entry). */
enum { PL_NO_ENTRY = 0, PL_ENTRY, PL_ENTRY_CATCH };

/*
 * Whether the sub or eval context read into st->buf began an activation of
 * the run loop: its return op is none (the loop ends when it returns), and
 * it is not the last op of a sort BLOCK, the context below it, whose ops
 * end with none too: a sub called there is the BLOCK's, in its activation.
 * PL_ENTRY_CATCH: a sub its C caller called with Perl's CATCH set (call_sv
 * without G_EVAL, whose G_EVAL pushes an eval context below it with no
 * return op either; MULTICALL; a sort's), in whose activation the first
 * eval {}, string eval or require runs a run loop of its own (docatch).
 */
static __always_inline int pl_entry(const struct perl_walk *st, const struct unw_perl_proc *pl,
				    __u8 type)
{
	const struct perl_cursor *c = &st->cur;
	__u8 below[UNW_PL_CX_READ] = {};
	__u64 below_retop;

	if (pl_buf_word(st, pl->cx_retop) || pl_below_sort(st, pl))
		return PL_NO_ENTRY;
	if ((type & UNW_PL_CXTYPEMASK) == UNW_PL_CXt_EVAL)
		return PL_ENTRY; /* eval_sv, which catches what dies itself */
	if (c->ix < 0)
		return PL_ENTRY_CATCH;
	bpf_probe_read_user(below, sizeof(below),
			    (void *)(c->cxstack + (__u64)c->ix * pl->cx_size));
	__builtin_memcpy(&below_retop, &below[pl->cx_retop & 63], sizeof(below_retop));
	if ((below[0] & UNW_PL_CXTYPEMASK) == UNW_PL_CXt_EVAL && !below_retop)
		return PL_ENTRY;
	return PL_ENTRY_CATCH;
}

/*
 * The frame word of the context read into st->buf, of type type, that is
 * one (see above); 0 when it is no frame, or when its sub does not check
 * out. *entry: it began an activation of the run loop; *frame: it is a
 * frame's, even one left out.
 */
static __always_inline __u64 pl_context_word(struct scratch *sc, struct perl_walk *st,
					     const struct unw_perl_proc *pl, __u32 pid, __u8 type,
					     int *entry, int *frame)
{
	__u8 t = type & UNW_PL_CXTYPEMASK;
	__u16 u16;

	*entry = 0;
	*frame = 1;
	if ((t == UNW_PL_CXt_SUB || t == UNW_PL_CXt_FORMAT) && !(type & UNW_PL_CXp_SUB_RE_FAKE)) {
		*entry = pl_entry(st, pl, type);
		return pl_sub_cached(sc, st, pl, pl_buf_word(st, pl->cx_cv), pid);
	}
	if (t == UNW_PL_CXt_EVAL && !(type & (UNW_PL_CXp_EVALBLOCK | UNW_PL_CXp_TRY))) {
		*entry = pl_entry(st, pl, type);
		/* blk_u16: the op that began it, in its bits 7 to 15 */
		__builtin_memcpy(&u16, &st->buf[2], sizeof(u16));
		return UNW_FRAME_WORD(UNW_FRAME_PERL,
				      (__u64)UNW_PL_EVAL << UNW_PL_KIND_SHIFT | (u16 >> 7));
	}
	if (t == UNW_PL_CXt_NULL && st->cur.si_type == UNW_PL_PERLSI_SORT) {
		*entry = PL_ENTRY_CATCH; /* pp_sort sets CATCH */
		return UNW_FRAME_WORD(UNW_FRAME_PERL, (__u64)UNW_PL_SORT << UNW_PL_KIND_SHIFT);
	}
	*frame = 0;
	return 0;
}

/*
 * The end of the cursor's stack info: the main program's frame at the
 * bottom of the main one, which ends the walk, or the stack info below.
 */
static __always_inline int pl_stackinfo_end(struct scratch *sc, struct perl_walk *st,
					    const struct unw_perl_proc *pl, __u32 pid)
{
	struct perl_cursor *c = &st->cur;

	if (c->si_type == UNW_PL_PERLSI_MAIN) {
		pl_frame_push(sc, st, pl, pid,
			      UNW_FRAME_WORD(UNW_FRAME_PERL,
					     (__u64)UNW_PL_MAIN << UNW_PL_KIND_SHIFT),
			      c->cop);
		c->si = 0;
		return PL_WROTE_END;
	}
	if (!pl_stackinfo(c, pl, user_word(c->si, pl->si_prev))) {
		c->si = 0;
		return PL_END;
	}
	return PL_SKIPPED;
}

/*
 * Writes the frame of the context at the cursor ahead, if it is one, and
 * moves the cursor to the context below. PL_BOTTOM when the walk is at its
 * end, PL_FULL when the ahead has no room left (the cursor unmoved).
 */
static __always_inline int pl_context(struct scratch *sc, struct perl_walk *st,
				      const struct unw_perl_proc *pl, __u32 pid)
{
	struct perl_cursor *c = &st->cur;
	__u64 what, cx, start;
	int entry, frame;
	__u8 type;

	st->last_eval = 0;
	st->catch_entry = 0;
	st->pushed = 0;
	if (!c->si)
		return PL_BOTTOM;
	/* room for a frame and the map or grep it may run in */
	if (sc->ahead.nr_words + 4 > AHEAD_WORDS)
		return PL_FULL;
	if (c->ix < 0)
		return pl_stackinfo_end(sc, st, pl, pid);
	cx = c->cxstack + (__u64)c->ix * pl->cx_size;
	c->ix--;
	if (bpf_probe_read_user(st->buf, UNW_PL_CX_READ, (void *)cx))
		return PL_SKIPPED; /* the top one may be written as it is read: it is no frame */
	type = st->buf[0];
	what = pl_context_word(sc, st, pl, pid, type, &entry, &frame);
	/*
	 * one C began (eval_sv, call_sv's G_EVAL) has no return op, and
	 * catches itself; so has a sort BLOCK's last
	 */
	st->last_eval = (type & UNW_PL_CXTYPEMASK) == UNW_PL_CXt_EVAL && !entry &&
			(pl_buf_word(st, pl->cx_retop) || pl_below_sort(st, pl));
	/*
	 * a frame left out (its sub did not check out), and the map or grep
	 * it runs in, still says its caller's statement
	 */
	if (!frame)
		return PL_SKIPPED;
	if (entry && c->idle) {
		/* between its calls: no frame, and the C code that calls it runs at its caller's */
		c->idle = 0;
		c->pending = 0;
		c->cop = pl_buf_word(st, pl->cx_oldcop);
		return PL_SKIPPED;
	}
	c->idle = 0;
	if (what && c->top && (type & UNW_PL_CXTYPEMASK) == UNW_PL_CXt_SUB &&
	    c->cop == pl_buf_word(st, pl->cx_oldcop)) {
		start = pl_sub_start(pl, pl_buf_word(st, pl->cx_cv));
		if (start)
			c->cop = start;
	}
	c->top = 0;
	if (what)
		pl_frame_push(sc, st, pl, pid, what, c->cop);
	c->cop = pl_buf_word(st, pl->cx_oldcop);
	/* its caller runs on at its return op: in a map or grep, or not */
	c->pending = entry ? 0 : pl_block_cached(st, pl, pl_buf_word(st, pl->cx_retop));
	st->catch_entry = entry == PL_ENTRY_CATCH;
	if (entry)
		return what ? PL_WROTE_END : PL_END;
	return what ? PL_WROTE : PL_SKIPPED;
}

/* Closes a segment of the ahead at word end, with frames frames: one written before the last. */
static __always_inline void pl_close_at(struct scratch *sc, __u32 end, __u32 frames)
{
	__u32 i = sc->ahead.nr_segs;

	if (i >= AHEAD_SEGS || end > sc->ahead.nr_words)
		return;
	sc->ahead.seg_end[i & (AHEAD_SEGS - 1)] = end;
	sc->ahead.seg_frames[i & (AHEAD_SEGS - 1)] = frames;
	sc->ahead.nr_segs = i + 1;
}

/*
 * Closes the activation being written, which ended at its entry context:
 * two when its C caller began it with CATCH set and it has an eval, whose
 * run loop (docatch) ran the frames above the eval and the eval's own.
 */
static __always_inline void pl_segment_end(struct scratch *sc, struct perl_walk *st)
{
	if (st->catch_entry && st->has_eval && st->eval_at >= st->seg_start &&
	    st->eval_frames <= st->seg_frames) {
		pl_close_at(sc, st->eval_at, st->eval_frames);
		st->seg_frames -= st->eval_frames;
	}
	ahead_close(sc, st->seg_frames);
	st->seg_frames = 0;
	st->has_eval = 0;
	st->seg_start = sc->ahead.nr_words;
	st->seg_cursor = st->cur;
}

/*
 * One step of pl_fill: the context at the cursor written ahead, and its
 * activation's segment closed when it ends there. 1 to go on. A global
 * function: the loop over the steps verifies one path per step.
 */
__noinline int pl_fill_step(struct scratch *sc, struct perl_walk *st,
			    const struct unw_perl_proc *pl, __u32 pid)
{
	int r;

	if (!sc || !st || !pl)
		return 0;
	r = pl_context(sc, st, pl, pid);
	if (r == PL_FULL)
		return 0;
	if (r == PL_BOTTOM) {
		/* frames of no activation that ended: the one the walk began in */
		if (st->seg_frames)
			ahead_close(sc, st->seg_frames);
		st->seg_frames = 0;
		st->has_eval = 0;
		st->seg_start = sc->ahead.nr_words;
		st->seg_cursor = st->cur;
		return 0;
	}
	st->seg_frames += st->pushed;
	if (st->last_eval) {
		st->has_eval = 1;
		st->eval_at = sc->ahead.nr_words;
		st->eval_frames = st->seg_frames;
	}
	if (r == PL_WROTE || r == PL_SKIPPED)
		return 1;
	pl_segment_end(sc, st);
	return st->cur.si && !ahead_full(sc);
}

/*
 * Writes ahead the Perl frames of the activations of the run loop from
 * the cursor on, one segment each, until the bottom or until the ahead is
 * full: an activation that does not fit is left for the next run, from its
 * start (more), unless it is alone and still does not fit.
 */
static __always_inline void pl_fill(struct scratch *sc, struct perl_walk *st,
				    const struct unw_perl_proc *pl, __u32 pid)
{
	st->seg_start = sc->ahead.nr_words;
	st->seg_cursor = st->cur;
	st->seg_frames = 0;
	st->has_eval = 0;
	for (int i = 0; i < PL_FILL_STEPS; i++)
		if (!pl_fill_step(sc, st, pl, pid))
			break;
	if (sc->ahead.nr_words == st->seg_start) {
		sc->ahead.more = st->cur.si != 0;
		return;
	}
	if (sc->ahead.nr_segs) {
		ahead_drop(sc, st->seg_start);
		st->cur = st->seg_cursor;
		sc->ahead.more = 1;
		return;
	}
	err_inc(sc, UNW_E_PL_DEPTH);
	ahead_close(sc, st->seg_frames);
	st->cur.si = 0;
}

/*
 * Perl's walk of frame s->n, handed over by the native walk: the Perl
 * frames of the thread written ahead, as many as fit, from where the last
 * run of this walk left off (the thread's interpreter's top at the first).
 * The native walk writes them and steps the frame.
 */
static __always_inline __u32 perl_step(struct scratch *sc, struct walk_saved *s)
{
	const struct unw_perl_proc *pl = bpf_map_lookup_elem(&perl_procs, &s->pid);
	__u32 family = sc->family;
	struct perl_walk *st = bpf_map_lookup_elem(&perl_walks, &family);

	ahead_begin(sc, UNW_UW_PERL);
	if (!pl || !st)
		return RESUME_FRAME;
	if (pl->refused) {
		err_inc(sc, UNW_E_PL_VERSION);
		return RESUME_FRAME;
	}
	if (st->walk_id != sc->walk_id) {
		st->walk_id = sc->walk_id;
		__builtin_memset(st->subs, 0, sizeof(st->subs));
		__builtin_memset(st->cops, 0, sizeof(st->cops));
		__builtin_memset(st->blocks, 0, sizeof(st->blocks));
		if (!pl_thread_start(sc, &st->cur, pl))
			st->cur.si = 0;
	}
	pl_fill(sc, st, pl, s->pid);
	return RESUME_FRAME;
}

UNW_RUNTIME_PROGRAMS(perl)

#endif
