/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lookups and the frame step of the unwinder, written once for both
 * sides: the BPF program walks with them, and user space compiles the same
 * code to test it against tables packed by core/unwind/shards.c. Every loop
 * has a fixed bound and every array index is masked, as the verifier wants.
 */
#ifndef UNWPROF_UNWIND_STEP_H
#define UNWPROF_UNWIND_STEP_H

#include "abi.h"
#include "arch.h"

#ifdef __bpf__
#define UNW_INLINE static __always_inline
#else
#define UNW_INLINE static inline
#endif

/*
 * The lookup of a table's rule (the layout is in bpf/abi.h). A pc's
 * page is found by arithmetic: unw_exec__page gives the page map index of
 * the page holding table pc key, or says the table has no page there.
 */
enum unw_page_found {
	UNW_PAGE_IN = 0, /* *page: the page map index */
	UNW_PAGE_BEFORE, /* before the table's first page: no rule */
	UNW_PAGE_AFTER,	 /* past its last page: e->last_rule governs */
};

UNW_INLINE enum unw_page_found unw_exec__page(const struct unw_exec *e, __u32 key, __u32 *page)
{
	__u32 p = key >> UNW_PAGE_SHIFT;

	if (p < e->first_page)
		return UNW_PAGE_BEFORE;
	if (p - e->first_page >= e->nr_pages)
		return UNW_PAGE_AFTER;
	*page = e->page + (p - e->first_page);
	return UNW_PAGE_IN;
}

/* The row of a pc (from its page's start) and rule. */
UNW_INLINE __u32 unw_row__make(__u32 pc, __u32 rule)
{
	return (pc & (UNW_PAGE_BYTES - 1)) << UNW_ROW_RULE_BITS | rule;
}

UNW_INLINE __u32 unw_row__rule(__u32 row)
{
	return row & ((1u << UNW_ROW_RULE_BITS) - 1);
}

/* What the rows of key's page are compared with: the governing row is the last one <= it. */
UNW_INLINE __u32 unw_row__key(__u32 key)
{
	return unw_row__make(key, (1u << UNW_ROW_RULE_BITS) - 1);
}

/* Row i from the 8-byte shard value holding rows i & ~1 and i | 1, laid out as a __u32 array. */
UNW_INLINE __u32 unw_row__of_value(__u64 v, __u32 i)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return v >> ((i & 1) * 32);
#else
	return v >> ((~i & 1) * 32);
#endif
}

/*
 * One step of a binary search without a branch: [*lo, *hi) narrows to the
 * half past mid (the middle) when after is 0, to the half before it when
 * it is 1. The verifier then follows one path through the search, not one
 * for each way each step can go.
 */
UNW_INLINE void unw_search__halve(__u32 *lo, __u32 *hi, __u32 mid, __u32 after)
{
	*lo += (1 - after) * (mid + 1 - *lo);
	*hi -= after * (*hi - mid);
}

/*
 * One step of the search for the row governing row key, given the row at
 * mid, without a branch on the row. Returns 1 when the row at mid is at or
 * before key.
 */

UNW_INLINE __u32 unw_rows__halve(__u32 *lo, __u32 *hi, __u32 mid, __u32 row, __u32 key)
{
	__u32 after = ((__u64)key - row) >> 63; /* 1 when the row starts after key */

	unw_search__halve(lo, hi, mid, after);
	return 1 - after;
}

/* 1 when key > v, as unsigned numbers, without a branch: the borrow of v - key. */
UNW_INLINE __u32 unw_u64__after(__u64 key, __u64 v)
{
	return ((~v & key) | (~(v ^ key) & (v - key))) >> 63;
}

/* Halving steps of the search of a process's mappings: [lo, hi) is empty after them. */
#define UNW_MAPS_STEPS 9
_Static_assert(UNW_MAPS_MAX < 1u << UNW_MAPS_STEPS, "mapping search steps");
_Static_assert((UNW_MAPS_MAX & (UNW_MAPS_MAX - 1)) == 0, "masked mapping indexes");

/*
 * The mapping of p holding pc, or -1. A binary search for the first mapping
 * that starts after pc, without a branch on the mappings, in the steps of
 * the row search (unw_search__halve): the verifier then follows one path through it,
 * not one for each way each step can go.
 */
UNW_INLINE long unw_proc__find_mapping(const struct unw_proc *p, __u64 pc)
{
	__u32 lo = 0, hi = p->nr_maps < UNW_MAPS_MAX ? p->nr_maps : UNW_MAPS_MAX, mid, after;

	for (int k = 0; k < UNW_MAPS_STEPS; k++) {
		if (lo >= hi)
			break;
		mid = lo + (hi - lo) / 2;
		after = unw_u64__after(p->maps[mid & (UNW_MAPS_MAX - 1)].start, pc);
		unw_search__halve(&lo, &hi, mid, after);
	}
	/* lo: the mappings that start at or before pc; the last of them may hold it. */
	if (lo == 0 || pc >= p->maps[(lo - 1) & (UNW_MAPS_MAX - 1)].end)
		return -1;
	return (lo - 1) & (UNW_MAPS_MAX - 1);
}

/*
 * Address translation, one definition for user space and BPF.
 *
 * The kernel (and ld.so) maps a segment from the page that holds its first
 * byte, so a mapping's file offset can lie before the segment it was made
 * for: lld, mold and rust-lld do not page-align code segments (segment at
 * 0x13e80, mapping from 0x13000). Two segments may then share a page, and
 * the mapping of the later one starts inside the earlier one's bytes: the
 * segment of a mapping is the last one that starts in or after the page
 * holding the mapping's first byte and still has bytes after it. A mapping
 * that mprotect() split starts inside its segment, and is found the same
 * way.
 *
 * Returns the index in segs[0, nr) of the segment of a mapping from file
 * offset off, or -1. page is the kernel's page size (a power of two).
 */
UNW_INLINE long unw_segs__find(const struct unw_seg *segs, __u32 nr, __u64 off, __u64 page)
{
	long found = -1;
	__u64 found_off = 0;

	for (int i = 0; i < UNW_FILE_SEGS; i++) {
		const struct unw_seg *s = &segs[i];

		if ((__u32)i >= nr)
			break;
		if ((s->offset & ~(page - 1)) > off || off >= s->offset + s->filesz)
			continue;
		if (found < 0 || s->offset > found_off) {
			found = i;
			found_off = s->offset;
		}
	}
	return found;
}

/*
 * Table pc = pc - bias for the pcs of a mapping at start, from file offset
 * off, of segment s, in a table whose pcs count from ELF address base. off
 * may be below the segment's offset: the arithmetic wraps and comes out
 * right, as the relation between addresses and offsets is the same for the
 * whole mapping.
 */
UNW_INLINE __u64 unw_seg__bias(const struct unw_seg *s, __u64 start, __u64 off, __u64 base)
{
	return start - (s->vaddr + (off - s->offset)) + base;
}

/* The bias (see unw_seg__bias) of a mapping of file f; 0 when found, -1 otherwise. */
UNW_INLINE int unw_file__bias(const struct unw_file *f, __u64 start, __u64 off, __u64 page,
			      __u64 *bias)
{
	long i = unw_segs__find(f->segs, f->nr_segs, off, page);

	if (i < 0)
		return -1;
	*bias = unw_seg__bias(&f->segs[i & (UNW_FILE_SEGS - 1)], start, off, f->base);
	return 0;
}

_Static_assert((UNW_FILE_SEGS & (UNW_FILE_SEGS - 1)) == 0, "masked segment indexes");

/*
 * Where the CFA of a frame comes from under rule r (x86_64): returns the
 * address itself (*deref == 0) or the address to read it from, to which
 * unw_rule__cfa_add(r) is added (*deref == 1). Returns 0 for a row the walker
 * cannot follow (END or unsupported): the caller falls back to frame pointers.
 */
UNW_INLINE __u64 unw_rule__cfa(const struct unw_rule *r, __u64 pc, __u64 sp, __u64 bp, int *deref)
{
	__u64 cfa;

	*deref = 0;
	switch (r->cfa) {
	case UNW_CFA_SP:
		return sp + (__s64)r->cfa_off;
	case UNW_CFA_FP:
		return bp + (__s64)r->cfa_off;
	case UNW_CFA_PLT:
		cfa = sp + (__s64)r->cfa_off;
		if ((__s64)(pc & 15) >= r->aux_off)
			cfa += 8;
		return cfa;
	case UNW_CFA_DEREF_SP:
		*deref = 1;
		return sp + (__s64)r->cfa_off;
	case UNW_CFA_DEREF_FP:
		*deref = 1;
		return bp + (__s64)r->cfa_off;
	case UNW_CFA_SIGNAL:
		*deref = 1;
		return sp + (__s64)r->cfa_off;
	default:
		return 0;
	}
}

/* What is added to a CFA read from the stack: aux_off, the pc's offset in a signal frame. */
UNW_INLINE __s64 unw_rule__cfa_add(const struct unw_rule *r)
{
	return r->cfa == UNW_CFA_SIGNAL ? 0 : r->aux_off;
}

/*
 * Whether the caller of a frame under rule r was interrupted by a signal
 * rather than calling: its pc is the next instruction to run, not a return
 * address, so its row is the one of pc itself, not of pc - 1.
 */
UNW_INLINE int unw_rule__signal(const struct unw_rule *r)
{
	return r->cfa == UNW_CFA_SIGNAL;
}

/* Whether the walker can follow rule r at all (else: frame pointers). */
UNW_INLINE int unw_rule__usable(const struct unw_rule *r)
{
	if (r->cfa == UNW_CFA_END || r->cfa >= UNW_CFA_UNSUPPORTED)
		return 0;
	if (r->fp >= UNW_FP_UNSUPPORTED)
		return 0;
	/* aux_off holds the pc's offset only in a signal frame */
	if (r->cfa == UNW_CFA_SIGNAL)
		return r->ra == UNW_RA_AT_SP;
	if (UNW_ARCH_HAS_LR && r->ra == UNW_RA_LR)
		return 1;
	return r->ra == UNW_RA_AT_CFA || r->ra == UNW_RA_UNDEFINED;
}

/* Address of the caller's saved frame pointer under rule r, or 0 when unchanged. */
UNW_INLINE __u64 unw_rule__fp_addr(const struct unw_rule *r, __u64 cfa, __u64 sp, __u64 bp)
{
	switch (r->fp) {
	case UNW_FP_AT_CFA:
		return cfa + (__s64)r->fp_off;
	case UNW_FP_AT_FP:
		return bp + (__s64)r->fp_off;
	case UNW_FP_AT_SP:
		return sp + (__s64)r->fp_off;
	default:
		return 0;
	}
}

/*
 * Address of the caller's pc under a usable rule r whose ra is in memory:
 * where the architecture puts it relative to the CFA, or in the signal frame.
 */
UNW_INLINE __u64 unw_rule__ra_addr(const struct unw_rule *r, __u64 cfa, __u64 sp)
{
	if (r->ra == UNW_RA_AT_SP)
		return sp + (__s64)r->aux_off;
	return UNW_ARCH_RA_AT_CFA(cfa, r->aux_off);
}

/* A cheap running hash of the pcs of a stack; never 0 (0 means "no stack"). */
UNW_INLINE __u64 unw_hash__add(__u64 h, __u64 pc)
{
	h ^= pc;
	h *= 0x100000001b3ULL;
	h ^= h >> 29;
	return h;
}

#define UNW_HASH_INIT 0xcbf29ce484222325ULL

#endif /* UNWPROF_UNWIND_STEP_H */

/*
 * The parts that read through their includer's readers are outside the
 * guard: each is defined by the first inclusion after its reader is, so a
 * unit may include this header for the lookups before it defines them.
 */
#if defined(UNW_ROW_READ) && !defined(UNWPROF_UNWIND_STEP_ROWS)
#define UNWPROF_UNWIND_STEP_ROWS
/*
 * The rule governing table pc key in a page whose rows are rows [low, low +
 * nr) of a shard and whose first pcs rule governs (UNW_RULE_NONE: none);
 * -1 when no rule does. The last row at or before key is the last middle
 * the search moved past, so its rule is kept as the search goes. The
 * caller defines how a row of the shard is read:
 *
 *	UNW_ROW_READ(shard, i, &row)	0, or non-zero when row i cannot be read
 */
UNW_INLINE long unw_page__rule(void *shard, __u32 low, __u32 nr, __u32 rule, __u32 key)
{
	__u32 lo = low, hi = low + nr, want = unw_row__key(key), mid, row, before;

	for (int k = 0; k < UNW_PAGE_STEPS; k++) {
		if (lo >= hi)
			break;
		mid = lo + (hi - lo) / 2;
		if (UNW_ROW_READ(shard, mid, &row))
			return -1;
		before = unw_rows__halve(&lo, &hi, mid, row, want);
		rule += before * (unw_row__rule(row) - rule);
	}
	return rule == UNW_RULE_NONE ? -1 : (long)rule;
}
#endif /* UNW_ROW_READ */

/*
 * The native step, written once for BPF and the unit tests, which define
 * before including this header how a word of the walked stack is read and
 * how a reason (enum unw_err) the frame met is noted:
 *
 *	UNW_READ(mem, addr, &val)	0, or non-zero when addr is unreadable
 *	UNW_NOTE(mem, reason)
 *	UNW_VA_MASK(mem)		aarch64: the walked task's user virtual
 *					address bits (UNW_ARCH_RA_STRIP)
 *
 * Each step updates f to the caller's frame and returns 1 when the walk
 * goes on, 0 when it ends (UNW_SAMPLE_COMPLETE set in *flags when that is
 * the bottom of the stack, a reason noted when it is not).
 */
#if defined(UNW_READ) && !defined(UNWPROF_UNWIND_STEP_WALK)
#define UNWPROF_UNWIND_STEP_WALK

/* One frame with frame pointers; sets UNW_SAMPLE_FP. */
UNW_INLINE int unw_step_fp(struct unw_frame *f, void *mem, __u32 *flags)
{
	__u64 ra, fp;

	*flags |= UNW_SAMPLE_FP;
	if (f->fp == 0) {
		/*
		 * A chain that led to 0 ends at its outermost frame. A register
		 * that holds 0 is no chain: code built without frame pointers
		 * leaves rbp as _start cleared it, and the stack goes on above.
		 */
		if (f->fp_linked)
			*flags |= UNW_SAMPLE_COMPLETE;
		else
			UNW_NOTE(mem, UNW_E_NO_FP);
		return 0;
	}
	if (f->fp < f->sp) {
		UNW_NOTE(mem, UNW_E_NO_PROGRESS);
		return 0;
	}
	if (UNW_READ(mem, f->fp + UNW_FP_RECORD_RA, &ra)) {
		UNW_NOTE(mem, UNW_E_RA_READ);
		return 0;
	}
	if (UNW_READ(mem, f->fp, &fp)) {
		UNW_NOTE(mem, UNW_E_FP_READ);
		return 0;
	}
	f->sp = f->fp + UNW_FP_RECORD_SIZE;
	f->fp = fp;
	f->fp_linked = 1;
	f->pc = UNW_ARCH_RA_STRIP(ra, UNW_VA_MASK(mem));
	f->lr = 0;
	return 1;
}

/*
 * Whether a frame with CFA cfa is an outer frame of the one at sp. A signal
 * handler may run on an alternate stack (sigaltstack) anywhere in memory, so
 * the frame it interrupted only has to be elsewhere. An aarch64 leaf that
 * has not touched the stack has its CFA at sp, its return address in x30:
 * its caller's frame starts where it does, and the step cannot repeat, as
 * x30 is known in the leaf only.
 */
UNW_INLINE int unw_cfa__progress(const struct unw_rule *r, __u64 cfa, __u64 sp)
{
	if (unw_rule__signal(r))
		return cfa != sp;
	if (UNW_ARCH_HAS_LR && r->ra == UNW_RA_LR)
		return cfa >= sp;
	return cfa > sp;
}

/* The caller's pc under usable rule r: in memory, or (aarch64) still in the link register. */
UNW_INLINE int unw_rule__read_ra(const struct unw_rule *r, const struct unw_frame *f, __u64 cfa,
				 void *mem, __u64 *ra)
{
	if (UNW_ARCH_HAS_LR && r->ra == UNW_RA_LR) {
		*ra = f->lr;
		return f->lr == 0;
	}
	return UNW_READ(mem, unw_rule__ra_addr(r, cfa, f->sp), ra);
}

/* One frame with a usable table rule r. */
UNW_INLINE int unw_step_row(struct unw_frame *f, const struct unw_rule *r, void *mem, __u32 *flags)
{
	__u64 cfa, ra, fp = f->fp, fp_addr;
	int deref;

	if (r->ra == UNW_RA_UNDEFINED) {
		*flags |= UNW_SAMPLE_COMPLETE;
		return 0;
	}
	cfa = unw_rule__cfa(r, f->pc, f->sp, f->fp, &deref);
	if (deref) {
		if (UNW_READ(mem, cfa, &cfa)) {
			UNW_NOTE(mem, UNW_E_CFA_READ);
			return 0;
		}
		cfa += unw_rule__cfa_add(r);
	}
	if (!unw_cfa__progress(r, cfa, f->sp)) {
		UNW_NOTE(mem, UNW_E_NO_PROGRESS);
		return 0;
	}
	if (unw_rule__read_ra(r, f, cfa, mem, &ra)) {
		UNW_NOTE(mem, UNW_E_RA_READ);
		return 0;
	}
	fp_addr = unw_rule__fp_addr(r, cfa, f->sp, f->fp);
	if (fp_addr && UNW_READ(mem, fp_addr, &fp)) {
		UNW_NOTE(mem, UNW_E_FP_READ);
		return 0;
	}
	f->lr = 0;
	/* aarch64: an interrupted frame's x30 (its return address in a leaf) follows its x29. */
	if (UNW_ARCH_HAS_LR && unw_rule__signal(r) && fp_addr &&
	    UNW_READ(mem, fp_addr + (UNW_A64_SIG_X30 - UNW_A64_SIG_X29), &f->lr))
		f->lr = 0;
	f->sp = cfa;
	f->fp = fp;
	f->pc = UNW_ARCH_RA_STRIP(ra, UNW_VA_MASK(mem));
	f->signal = unw_rule__signal(r);
	f->fp_linked = 0;
	return 1;
}

/*
 * A word of a copy of the stack, len bytes of it from user address base
 * (no more than UNW_STACK_COPY, in a buffer of twice that, so that a word
 * at a masked offset is inside it): 1 with *val, 0 when addr is outside.
 */
UNW_INLINE int unw_copy__read(const __u8 *copy, __u64 base, __u64 len, __u64 addr, __u64 *val)
{
	__u64 off = addr - base;

	if (addr < base || off >= len || len - off < 8)
		return 0;
	*val = *(const __u64 *)&copy[off & (UNW_STACK_COPY - 1)];
	return 1;
}

/*
 * The step under a plain rule, which most frames have: the CFA at sp or fp
 * plus an offset, the return address in memory at the CFA, the caller's fp
 * unchanged or saved at the CFA; every word read from the copy of the stack
 * (unw_copy__read). 1 with f its caller's frame, as unw_step_row makes it;
 * 0, f untouched, when the rule is not plain, a word lies outside the copy,
 * or the walk would stop there (no progress, a return address of 0): the
 * full step then tells why. Cheap enough to run ahead of it on every frame
 * of a deep stack (bpf/native.bpf.h, walk_plain).
 */
UNW_INLINE int unw_step_plain(struct unw_frame *f, const struct unw_rule *r, const __u8 *copy,
			      __u64 base, __u64 len, __u64 va_mask)
{
	__u64 cfa, ra, pc, fp = f->fp;

	if (r->ra != UNW_RA_AT_CFA || r->fp > UNW_FP_AT_CFA)
		return 0;
	if (r->cfa == UNW_CFA_SP)
		cfa = f->sp + (__s64)r->cfa_off;
	else if (r->cfa == UNW_CFA_FP)
		cfa = f->fp + (__s64)r->cfa_off;
	else
		return 0;
	if (cfa <= f->sp ||
	    !unw_copy__read(copy, base, len, UNW_ARCH_RA_AT_CFA(cfa, r->aux_off), &ra))
		return 0;
	if (r->fp == UNW_FP_AT_CFA && !unw_copy__read(copy, base, len, cfa + (__s64)r->fp_off, &fp))
		return 0;
	pc = UNW_ARCH_RA_STRIP(ra, va_mask);
	if (pc == 0)
		return 0;
	f->pc = pc;
	f->sp = cfa;
	f->fp = fp;
	f->lr = 0;
	f->signal = 0;
	f->fp_linked = 0;
	return 1;
}

/*
 * Whether the frame is the process's entry code: its sp is the one the
 * kernel started the process with (mm->start_stack, where argc is), or that
 * sp aligned down to 16 bytes. No call has pushed anything there, so no
 * frame is above it. The dynamic loader's entry (glibc's _start and
 * _dl_start_user in ld.so) has no CFI: without this, every sample of a
 * process still in ld.so would end in a failed frame-pointer step.
 */
UNW_INLINE int unw_frame__at_entry(const struct unw_frame *f, __u64 start_stack)
{
	return start_stack && f->sp <= start_stack && start_stack - f->sp < 16;
}

/*
 * One native frame: with rule r (NULL when no row governs the pc), falling
 * back to frame pointers where the row cannot be followed; the walk ends at
 * the process's entry code (start_stack: see unw_frame__at_entry) and at a
 * return address of 0 read where the frame is known to keep it: by its row,
 * or by a chain of frame pointers. A frame pointer taken from a register
 * after frames walked by their rows may hold anything (code built without
 * frame pointers uses it as it likes), and a 0 read through it is no bottom.
 */
UNW_INLINE int unw_step_native(struct unw_frame *f, const struct unw_rule *r, __u64 start_stack,
			       void *mem, __u32 *flags)
{
	int more, known = 1;

	if (r && unw_rule__usable(r)) {
		more = unw_step_row(f, r, mem, flags);
	} else if (unw_frame__at_entry(f, start_stack)) {
		*flags |= UNW_SAMPLE_COMPLETE;
		return 0;
	} else {
		if (r)
			UNW_NOTE(mem, r->cfa == UNW_CFA_END ? UNW_E_END_ROW : UNW_E_UNSUPPORTED);
		known = f->fp_linked;
		more = unw_step_fp(f, mem, flags);
	}
	if (more && f->pc == 0) {
		if (known)
			*flags |= UNW_SAMPLE_COMPLETE;
		else
			UNW_NOTE(mem, UNW_E_NO_FP);
		return 0;
	}
	return more;
}

#endif /* UNW_READ */
