/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a frame's pc is and the native step from it: the per-CPU cache of
 * lookups, the search of the process's mappings (or the kernel's mapping),
 * the table's page, row and rule, and the step of bpf/unwind_step.h
 * through the copy of the stack.
 */
#ifndef UNWPROF_NATIVE_BPF_H
#define UNWPROF_NATIVE_BPF_H

#include "walk_state.bpf.h"

/*
 * A slot of the per-CPU cache of lookups: what the lookup of pc found in
 * the mappings of version gen of a process (struct unw_proc) and in the
 * tables, which do not change once in place. A CPU-bound program's samples
 * walk the same return addresses again and again; a hit replaces the
 * mapping search, the page lookup, the row search and the read of the rule
 * with one read of the slot, which holds a copy of the rule: a sample's
 * cost is mostly memory it touches for the first time since the last. Only
 * a lookup that found a rule is kept, so a hit meets no reason a lookup
 * would not have met and counted.
 */
#define PC_CACHE_SET_BITS 8 /* sets of two slots per CPU: 2^bits, 16 KiB */
#define PC_CACHE_SLOTS (2u << PC_CACHE_SET_BITS)

struct pc_cached {
	__u64 pc;
	__u32 gen; /* 0: empty */
	__u32 unwinder;
	struct unw_rule rule;
};

/* One value per CPU, not one per slot: a per-CPU element is an allocation of its own at load. */
struct pc_cache {
	struct pc_cached slots[PC_CACHE_SLOTS];
};

/* A cache for each walk family (struct scratch: family). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, WALK_FAMILIES);
	__type(key, __u32);
	__type(value, struct pc_cache);
} pc_cache SEC(".maps") __weak;

/* The native step (bpf/unwind_step.h) reads the stack through the copy. */
#define UNW_READ(mem, addr, val) stack_read((mem), (addr), (val))
#define UNW_NOTE(mem, reason) err_inc((mem), (reason))
#define UNW_VA_MASK(mem) (((struct scratch *)(mem))->va_mask)

/* Row i of a shard (an inner map of shards); non-zero when it cannot be read. */
static __always_inline int shard_row_read(void *shard, __u32 i, __u32 *row);
#define UNW_ROW_READ(shard, i, row) shard_row_read((shard), (i), (row))
#include "unwind_step.h"

static __always_inline int shard_row_read(void *shard, __u32 i, __u32 *row)
{
	__u32 k = i / 2;
	const __u64 *v = bpf_map_lookup_elem(shard, &k);

	if (!v)
		return -1;
	*row = unw_row__of_value(*v, i);
	return 0;
}

/*
 * The rule governing table pc key among rows [low, low + nr) of shard, which
 * the first pcs of their page inherit rule from (bpf/unwind_step.h); -1
 * when none does, -2 when the shard is missing. A global function, verified once: its
 * arguments are plain numbers, so the search is one path, whichever page
 * led to it.
 */
__weak __noinline long shard_rule(__u32 shard, __u32 low, __u32 nr, __u32 rule, __u32 key)
{
	void *rows = bpf_map_lookup_elem(&shards, &shard);

	if (!rows)
		return -2;
	return unw_page__rule(rows, low, nr, rule, key);
}

/* The rule governing table pc key in page page of the page map, or -1 (with the reason counted). */
static __always_inline long page_rule(struct scratch *sc, __u32 page, __u32 key)
{
	const struct unw_page *pg = bpf_map_lookup_elem(&pages, &page);
	long rule;

	if (!pg) {
		err_inc(sc, UNW_E_NO_ROW);
		return -1;
	}
	rule = pg->rule;
	if (pg->nr) {
		rule = shard_rule(pg->row / UNW_SHARD_ROWS, pg->row % UNW_SHARD_ROWS, pg->nr, rule,
				  key);
		if (rule == -2) {
			err_inc(sc, UNW_E_SHARD_MISSING);
			return -1;
		}
	}
	if (rule <= UNW_RULE_NONE) {
		err_inc(sc, UNW_E_NO_ROW);
		return -1;
	}
	return rule;
}

/*
 * The rule governing table pc key of executable exec_id, or -1 (with the
 * reason counted). A global function: verified once, whatever the paths
 * that lead to it.
 */
__weak __noinline long exec_rule(struct scratch *sc, __u32 exec_id, __u32 key)
{
	const struct unw_exec *e;
	__u32 page = 0;

	e = bpf_map_lookup_elem(&execs, &exec_id);
	if (!e)
		return -1;
	switch (unw_exec__page(e, key, &page)) {
	case UNW_PAGE_IN:
		return page_rule(sc, page, key);
	case UNW_PAGE_AFTER:
		if (e->last_rule != UNW_RULE_NONE)
			return e->last_rule;
		/* fallthrough */
	default:
		err_inc(sc, UNW_E_NO_ROW);
		return -1;
	}
}

/* The mapping search is a global function too. */
__weak __noinline long find_mapping(const struct unw_proc *p, __u64 pc)
{
	if (!p)
		return -1;
	return unw_proc__find_mapping(p, pc);
}

/*
 * The executable and table pc of pc, found through the kernel's own mapping
 * of the pc: for a process (or a library) user space has not read yet, when
 * its file has a table already. Returns 0 when found.
 */
static __always_inline int vma_lookup(struct scratch *sc, __u64 pc, __u32 *exec_id, __u64 *rel)
{
	struct vma_info *vi = &sc->vma, found = {};
	struct unw_file_key key;
	const struct unw_file *f;
	__u64 bias;

	/*
	 * The helper defers its mmap_lock release to an irq_work when called
	 * with interrupts off, as here, and fails while that work is pending:
	 * one lookup per sample, so the frames of one file are covered.
	 */
	if (!cfg.have_find_vma)
		return -1;
	if (!vi->found || pc < vi->start || pc >= vi->end) {
		if (sc->vma_tried)
			return -1;
		sc->vma_tried = 1;
		/* The helper's callback context must be on the stack. */
		if (bpf_find_vma(bpf_get_current_task_btf(), pc, vma_cb, &found, 0) || !found.found)
			return -1;
		*vi = found;
	}
	/* A key on the stack: the verifier of Linux 6.1 takes no key in other memory. */
	key = vi->key;
	f = bpf_map_lookup_elem(&files, &key);
	if (!f || file_bias(f, vi->start, vi->pgoff * cfg.page_size, &bias))
		return -1;
	*exec_id = f->exec_id;
	*rel = pc - bias;
	return 0;
}

/* Where the pc of a frame is: the unwinder that steps from it, and what that unwinder needs. */
struct frame_place {
	__u64 pc;	/* the pc looked up */
	__u64 rel;	/* the table pc */
	__u32 exec_id;	/* the table; 0: none */
	__u32 unwinder; /* enum unw_unwinder */
	__u32 gen;	/* found in this version of the mappings (0: elsewhere, not to be kept) */
	__u32 cached;	/* rule is the cache's copy of the rule */
	struct unw_rule rule;
};

/*
 * This CPU's set of two cache slots (64 bytes side by side) for pc in
 * version gen of a process's mappings: two ways, so that two pcs of a hot
 * loop falling in one set do not evict each other at every sample.
 */
static __always_inline struct pc_cached *pc_cache_set(__u32 family, __u32 gen, __u64 pc)
{
	__u32 set = ((pc ^ (__u64)gen << 40) * 0x9e3779b97f4a7c15ULL) >> (64 - PC_CACHE_SET_BITS);
	struct pc_cache *c = bpf_map_lookup_elem(&pc_cache, &family);

	return c ? &c->slots[(set * 2) & (PC_CACHE_SLOTS - 2)] : NULL;
}

static __always_inline int pc_cached_is(const struct pc_cached *c, __u32 gen, __u64 pc)
{
	return c->gen == gen && c->pc == pc;
}

/*
 * Whether the cache knows pc in version gen: pl's unwinder and rule are
 * copied from it. A global function, verified once: its caller goes on
 * from one state, whatever the slot held.
 */
__weak __noinline int pc_cache_find(__u32 family, __u32 gen, __u64 pc, struct frame_place *pl)
{
	const struct pc_cached *c = gen ? pc_cache_set(family, gen, pc) : NULL;

	if (!c || !pl)
		return 0;
	if (!pc_cached_is(c, gen, pc)) {
		c++;
		if (!pc_cached_is(c, gen, pc))
			return 0;
	}
	pl->unwinder = c->unwinder;
	pl->rule = c->rule;
	pl->cached = 1;
	return 1;
}

/* Keeps what the lookup of pl found, rule, in the first way of its set, the one there moved to the second. */
static __always_inline void pc_cache_put(__u32 family, const struct frame_place *pl,
					 const struct unw_rule *rule)
{
	struct pc_cached *c = pl->gen ? pc_cache_set(family, pl->gen, pl->pc) : NULL;

	if (!c)
		return;
	c[1] = c[0];
	c->pc = pl->pc;
	c->gen = pl->gen;
	c->rule = *rule;
	c->unwinder = pl->unwinder;
}

/*
 * The place of pc in process pid (proc: its mappings, NULL when user space
 * has not read them): from the process's mappings, else from the kernel's
 * mapping of pc when its file has a table; frame pointers when neither is
 * known (the reason counted). A global function, verified once.
 */
__weak __noinline int frame_place(const struct unw_proc *proc, struct scratch *sc, __u32 pid,
				  __u64 pc, struct frame_place *pl)
{
	const struct unw_mapping *m;
	long i = -1;

	if (!sc || !pl)
		return -1;
	pl->pc = pc;
	pl->unwinder = UNW_UW_FP;
	if (proc) {
		i = find_mapping(proc, pc);
		if (i < 0) {
			sc->costs |= 1u << UNW_COST_EVENT;
			event_send(UNW_EV_NOT_COVERED, pid, pc);
		}
	}
	if (proc && i >= 0) {
		m = &proc->maps[i & (UNW_MAPS_MAX - 1)];
		pl->exec_id = m->exec_id;
		pl->rel = m->flags & UNW_MAP_ONE_ROW ? m->bias : pc - m->bias;
		pl->unwinder = m->unwinder;
		pl->gen = proc->gen;
		if (m->unwinder == UNW_UW_FP)
			err_inc(sc, UNW_E_NO_TABLE);
		return 0;
	}
	if (vma_lookup(sc, pc, &pl->exec_id, &pl->rel) == 0) {
		pl->unwinder = UNW_UW_TABLE;
		return 0;
	}
	if (proc)
		err_inc(sc, UNW_E_NOT_COVERED);
	return 0;
}

/* frame_place in the entry of pid, looked up here. */
__weak __noinline int frame_place_of_pid(struct scratch *sc, __u32 pid, __u64 pc,
					 struct frame_place *pl)
{
	return frame_place(bpf_map_lookup_elem(&procs, &pid), sc, pid, pc, pl);
}

/*
 * The place of pc in the walk's process: from the walk's places of late
 * (struct scratch: recent, a recursion's few pcs), else from the cache of
 * lookups, else from frame_place, in the process's entry, looked up there
 * when the sample did not look it up. It is not kept in the walk: a pointer the
 * callback writes makes its verification a third longer, and a second
 * lookup in one sample finds the entry's lines in the CPU's cache.
 */
static __always_inline void walk_place(struct walk *w, struct scratch *sc, __u64 pc,
				       struct frame_place *pl)
{
	struct recent_place *r = &sc->recent[recent_slot(pc)];

	if (w->has_proc) {
		sc->lookups++;
		if (r->pc == pc && r->gen == w->gen) {
			pl->unwinder = r->unwinder;
			pl->rule = r->rule;
			pl->cached = 1;
			sc->lookups_cached++;
			return;
		}
		if (pc_cache_find(sc->family, w->gen, pc, pl)) {
			r->pc = pc;
			r->gen = w->gen;
			r->unwinder = pl->unwinder;
			r->rule = pl->rule;
			sc->lookups_cached++;
			return;
		}
	}
	sc->costs |= 1u << UNW_COST_LOOKUP;
	if (w->has_proc && !w->proc) {
		frame_place_of_pid(sc, w->pid, pc, pl);
		return;
	}
	frame_place(w->proc, sc, w->pid, pc, pl);
}

/*
 * The rule governing the pc of place pl, from the cache or from its table,
 * or NULL (with the reason counted); a rule looked up is kept in the cache.
 */
static __always_inline const struct unw_rule *place_rule(struct scratch *sc,
							 const struct frame_place *pl)
{
	const struct unw_rule *r;
	long rule;
	__u32 i;

	if (pl->cached)
		return &pl->rule;
	if (!pl->exec_id) {
		err_inc(sc, UNW_E_NO_TABLE);
		return NULL;
	}
	if (pl->rel >> 32) {
		err_inc(sc, UNW_E_NO_ROW);
		return NULL;
	}
	rule = exec_rule(sc, pl->exec_id, pl->rel);
	if (rule < 0)
		return NULL;
	i = rule;
	r = bpf_map_lookup_elem(&rules, &i);
	if (r)
		pc_cache_put(sc->family, pl, r);
	return r;
}

/*
 * The native step (bpf/unwind_step.h) of frame f with rule r (NULL: none),
 * flags the sample's. A global function: verified once, on its own, not at
 * every state of the walk that reaches it.
 */
__weak __noinline int native_step(struct unw_frame *f, const struct unw_rule *r, struct scratch *sc,
				  __u32 *flags)
{
	if (!f || !sc || !flags)
		return 0;
	return unw_step_native(f, r, sc->start_stack, sc, flags);
}

/*
 * Frames the walk need not take one by one, from frame f on, its stack's
 * hash *hash, in version gen of the process's mappings: each found in the
 * walk's places of late with a rule of its table that unw_step_plain
 * follows inside the copy of the stack, its word pushed and its caller's
 * frame made, up to PLAIN_FRAMES of them and no more than max. Not a frame
 * a signal interrupted, whose own pc is looked up. A global function: a call
 * costs about what a frame's step does, and one call walks a run of a deep
 * stack's frames; its loop is verified once. The frames walked, with
 * PLAIN_FULL set when the stack held no more.
 */
#define PLAIN_FRAMES 8
#define PLAIN_FULL (1 << 16)

__weak __noinline int walk_plain(struct unw_frame *f, __u64 *hash, struct scratch *sc, __u32 gen,
				 __u32 max)
{
	struct unw_frame next;
	int k, full = 0;

	if (!f || !hash || !sc || !gen || cfg.fp_only)
		return 0;
	for (k = 0; k < PLAIN_FRAMES && (__u32)k < max; k++) {
		__u64 pc = f->pc, look = pc - 1;
		const struct recent_place *r = &sc->recent[recent_slot(look)];

		if (f->signal || r->pc != look || r->gen != gen || r->unwinder != UNW_UW_TABLE)
			break;
		next = *f;
		if (!unw_step_plain(&next, &r->rule, sc->copy, sc->sp0, sc->copy_len,
				    UNW_VA_MASK(sc)))
			break;
		if (unw_ustack__push(&sc->stack, &sc->stack_opens, pc)) {
			full = PLAIN_FULL;
			break;
		}
		*hash = unw_hash__add(*hash, pc);
		*f = next;
	}
	sc->lookups += k;
	sc->lookups_cached += k;
	return k | full;
}

#endif
