// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building the compact unwind table of a file from its CFI sections.
 *
 * The FDEs of all sections are first reduced to non-overlapping pieces of
 * address space: sections are taken in precedence order (.eh_frame, then the
 * file's .debug_frame, then the debug file's), and each keeps only what the
 * earlier ones do not describe. Within one section, overlapping FDEs (broken
 * or duplicate CFI) are resolved by address: the FDE that starts first, then
 * the one earlier in the section, keeps the overlap; the others are clipped
 * and counted. The pieces are then interpreted in address order straight into
 * one array of rows, so rows never need sorting, only FDEs that are out of
 * order (rare in .eh_frame).
 *
 * Rows of unsupported rules keep the reason of each rule in an offset field
 * the rule does not use (cfa_off, fp_off, and aux_off for the return address
 * when the CFA rule does not use it), so dump-unwind can say why each rule is
 * unsupported (core/unwind/unwind_dump.c); row->unsupported holds the first one.
 *
 * In a Go binary, the rows of Go's pclntab are then merged over these
 * (core/unwind/table_go.c), and take their place (unwind_table__replace_rows).
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "code_a64.h"
#include "code_x64.h"
#include "../elf/elf_file.h"
#include "../util/big_alloc.h"
#include "../util/leb128.h"
#include "../util/log.h"
#include "unwind_table.h"
#include "table_go.h"

/* The DWARF expression operations of the shapes the unwinder follows. */
enum {
	DW_OP_deref = 0x06,
	DW_OP_const1u = 0x08,
	DW_OP_const1s = 0x09,
	DW_OP_const2u = 0x0a,
	DW_OP_const2s = 0x0b,
	DW_OP_const4u = 0x0c,
	DW_OP_const4s = 0x0d,
	DW_OP_constu = 0x10,
	DW_OP_consts = 0x11,
	DW_OP_and = 0x1a,
	DW_OP_plus = 0x22,
	DW_OP_plus_uconst = 0x23,
	DW_OP_shl = 0x24,
	DW_OP_ge = 0x2a,
	DW_OP_lit0 = 0x30,
	DW_OP_lit3 = 0x33,
	DW_OP_lit15 = 0x3f,
	DW_OP_lit31 = 0x4f,
	DW_OP_breg0 = 0x70,
	DW_OP_breg31 = 0x8f,
	DW_OP_bregx = 0x92,
};

/* DWARF register numbers of the registers rows are based on. */
#define X86_64_RSP 7
#define X86_64_RBP 6
#define X86_64_RIP 16
#define AARCH64_FP 29
#define AARCH64_SP 31

/* A piece of address space [lo, hi) described by one FDE. */
struct piece {
	uint64_t lo, hi;
	struct cfi *cfi;
	struct cfi_fde *fde;
};

struct pieces {
	struct piece *v;
	size_t nr;
	size_t mapped; /* of v: util/big_alloc.h */
};

/* A table being built from the rules of the CFI of its pieces, one piece at a time. */
struct table_builder {
	struct unwind_table *t;
	int machine;
	uint32_t sp_reg, fp_reg;
	uint64_t base;
	uint64_t win_lo, win_hi; /* the piece being interpreted */
	bool signal_frame;	 /* its FDE's CIE has 'S' */
	size_t cap;
	size_t nr_outside; /* FDEs outside every executable segment */
};

/* ---- rules to rows ---- */

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* DW_OP_bregN / DW_OP_bregx: register and offset. */
static int expr_breg(const uint8_t **pp, const uint8_t *end, uint64_t *reg, int64_t *off)
{
	const uint8_t *p = *pp;
	uint8_t op;

	if (p >= end)
		return -EINVAL;
	op = *p++;
	if (op >= DW_OP_breg0 && op <= DW_OP_breg31)
		*reg = op - DW_OP_breg0;
	else if (op != DW_OP_bregx || read_uleb(&p, end, reg))
		return -EINVAL;
	if (read_sleb(&p, end, off))
		return -EINVAL;
	*pp = p;
	return 0;
}

/* A constant operation (DW_OP_litN, DW_OP_constN[us]). */
static int expr_const(const uint8_t **pp, const uint8_t *end, int64_t *val)
{
	const uint8_t *p = *pp;
	uint64_t u;
	uint8_t op;
	size_t n = 0;

	if (p >= end)
		return -EINVAL;
	op = *p++;
	if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
		*val = op - DW_OP_lit0;
		*pp = p;
		return 0;
	}
	switch (op) {
	case DW_OP_const1u:
	case DW_OP_const1s:
		n = 1;
		break;
	case DW_OP_const2u:
	case DW_OP_const2s:
		n = 2;
		break;
	case DW_OP_const4u:
	case DW_OP_const4s:
		n = 4;
		break;
	case DW_OP_constu:
		if (read_uleb(&p, end, &u))
			return -EINVAL;
		*val = (int64_t)u;
		*pp = p;
		return 0;
	case DW_OP_consts:
		if (read_sleb(&p, end, val))
			return -EINVAL;
		*pp = p;
		return 0;
	default:
		return -EINVAL;
	}
	if ((size_t)(end - p) < n)
		return -EINVAL;
	if (n == 1)
		*val = op == DW_OP_const1s ? (int8_t)p[0] : p[0];
	else if (n == 2)
		*val = op == DW_OP_const2s ? (int16_t)(p[0] | p[1] << 8) : (p[0] | p[1] << 8);
	else
		*val = op == DW_OP_const4s ?
			       (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
					 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24) :
			       (int64_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
					 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
	*pp = p + n;
	return 0;
}

/* The tail of the x86_64 PLT expression after DW_OP_breg7 N, with K in the middle. */
static int match_plt(const uint8_t *p, const uint8_t *end, int *k)
{
	static const uint8_t head[] = { DW_OP_breg0 + X86_64_RIP, 0, DW_OP_lit15, DW_OP_and };
	static const uint8_t tail[] = { DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus };

	if ((size_t)(end - p) != sizeof(head) + 1 + sizeof(tail))
		return -EINVAL;
	if (memcmp(p, head, sizeof(head)) || memcmp(p + sizeof(head) + 1, tail, sizeof(tail)))
		return -EINVAL;
	p += sizeof(head);
	if (*p < DW_OP_lit0 || *p > DW_OP_lit31)
		return -EINVAL;
	*k = *p - DW_OP_lit0;
	return 0;
}

/*
 * A CFA expression: bregR N alone (the same as def_cfa), the PLT shape, or
 * bregR N; deref, optionally followed by plus_uconst M or a constant and plus.
 */
static enum unw_unsupported cfa_expr(const struct table_builder *b, const uint8_t *p, uint32_t len,
				     struct table_row *r)
{
	const uint8_t *end = p + len;
	uint64_t reg, u;
	int64_t n, m = 0;
	int k;

	if (expr_breg(&p, end, &reg, &n))
		return UNW_UNSUP_CFA_EXPRESSION;
	if (p == end) {
		if (reg != b->sp_reg && reg != b->fp_reg)
			return UNW_UNSUP_CFA_REGISTER;
		if (!fits_s32(n))
			return UNW_UNSUP_CFA_OFFSET;
		r->cfa = reg == b->sp_reg ? UNW_CFA_SP : UNW_CFA_FP;
		r->cfa_off = (int32_t)n;
		return UNW_UNSUP_NONE;
	}
	if (b->machine == EM_X86_64 && reg == X86_64_RSP && !match_plt(p, end, &k)) {
		if (!fits_s32(n))
			return UNW_UNSUP_CFA_OFFSET;
		r->cfa = UNW_CFA_PLT;
		r->cfa_off = (int32_t)n;
		r->aux_off = k;
		return UNW_UNSUP_NONE;
	}
	if (*p++ != DW_OP_deref || (reg != b->sp_reg && reg != b->fp_reg))
		return UNW_UNSUP_CFA_EXPRESSION;
	if (p < end && *p == DW_OP_plus_uconst) {
		p++;
		if (read_uleb(&p, end, &u) || u > INT64_MAX)
			return UNW_UNSUP_CFA_EXPRESSION;
		m = (int64_t)u;
	} else if (p < end) {
		if (expr_const(&p, end, &m) || p >= end || *p++ != DW_OP_plus)
			return UNW_UNSUP_CFA_EXPRESSION;
	}
	if (p != end)
		return UNW_UNSUP_CFA_EXPRESSION;
	if (!fits_s32(n) || !fits_s32(m))
		return UNW_UNSUP_CFA_OFFSET;
	r->cfa = reg == b->sp_reg ? UNW_CFA_DEREF_SP : UNW_CFA_DEREF_FP;
	r->cfa_off = (int32_t)n;
	r->aux_off = (int32_t)m;
	return UNW_UNSUP_NONE;
}

static enum unw_unsupported cfa_rule(const struct table_builder *b, const struct cfi_cfa *cfa,
				     struct table_row *r)
{
	switch (cfa->kind) {
	case CFI_CFA_REG:
		if (cfa->reg != b->sp_reg && cfa->reg != b->fp_reg)
			return UNW_UNSUP_CFA_REGISTER;
		if (!fits_s32(cfa->off))
			return UNW_UNSUP_CFA_OFFSET;
		r->cfa = cfa->reg == b->sp_reg ? UNW_CFA_SP : UNW_CFA_FP;
		r->cfa_off = (int32_t)cfa->off;
		return UNW_UNSUP_NONE;
	case CFI_CFA_EXPR:
		return cfa_expr(b, cfa->expr, cfa->expr_len, r);
	default:
		return UNW_UNSUP_CFA_REGISTER; /* no CFA rule at all */
	}
}

/*
 * The frame pointer. DW_CFA_undefined on it is taken as "unchanged": the walk
 * goes on with the current value, which only matters if a caller's CFA is
 * fp-based, and such a caller saved its fp in a frame of its own.
 */
static enum unw_unsupported fp_rule(const struct table_builder *b, const struct cfi_rule *fp,
				    struct table_row *r)
{
	const uint8_t *p;
	uint64_t reg;
	int64_t n;

	switch (fp->kind) {
	case CFI_RULE_UNCHANGED:
	case CFI_RULE_SAME_VALUE:
	case CFI_RULE_UNDEFINED:
		r->fp = UNW_FP_UNCHANGED;
		return UNW_UNSUP_NONE;
	case CFI_RULE_OFFSET:
		if (!fits_s32(fp->off))
			return UNW_UNSUP_FP_OFFSET;
		r->fp = UNW_FP_AT_CFA;
		r->fp_off = (int32_t)fp->off;
		return UNW_UNSUP_NONE;
	case CFI_RULE_EXPRESSION:
		p = fp->expr;
		if (expr_breg(&p, fp->expr + fp->expr_len, &reg, &n) ||
		    p != fp->expr + fp->expr_len || reg != b->fp_reg)
			return UNW_UNSUP_FP_RULE;
		if (!fits_s32(n))
			return UNW_UNSUP_FP_OFFSET;
		r->fp = UNW_FP_AT_FP;
		r->fp_off = (int32_t)n;
		return UNW_UNSUP_NONE;
	default:
		return UNW_UNSUP_FP_RULE;
	}
}

static enum unw_unsupported ra_rule(const struct table_builder *b, const struct cfi_rule *ra,
				    struct table_row *r)
{
	if (ra->kind == CFI_RULE_UNDEFINED) {
		r->ra = UNW_RA_UNDEFINED;
		return UNW_UNSUP_NONE;
	}
	if (b->machine != EM_AARCH64) {
		if (ra->kind != CFI_RULE_OFFSET || ra->off != -8)
			return UNW_UNSUP_RA_RULE;
		r->ra = UNW_RA_AT_CFA;
		return UNW_UNSUP_NONE;
	}
	switch (ra->kind) {
	case CFI_RULE_UNCHANGED:
	case CFI_RULE_SAME_VALUE:
		r->ra = UNW_RA_LR;
		return UNW_UNSUP_NONE;
	case CFI_RULE_OFFSET:
		/* aux_off holds the LR offset, unless the CFA rule needs it */
		if (!fits_s32(ra->off) || r->cfa == UNW_CFA_DEREF_SP || r->cfa == UNW_CFA_DEREF_FP)
			return UNW_UNSUP_RA_OFFSET;
		r->ra = UNW_RA_AT_CFA;
		r->aux_off = (int32_t)ra->off;
		return UNW_UNSUP_NONE;
	default:
		return UNW_UNSUP_RA_RULE;
	}
}

/* An expression of exactly DW_OP_breg7 N, followed by DW_OP_deref when deref. */
static bool expr_rsp(const uint8_t *p, uint32_t len, bool deref, int64_t *n)
{
	const uint8_t *end = p + len;
	uint64_t reg;

	if (!p || expr_breg(&p, end, &reg, n) || reg != X86_64_RSP)
		return false;
	if (deref && (p == end || *p++ != DW_OP_deref))
		return false;
	return p == end;
}

/*
 * An x86_64 signal frame: the FDE of a signal trampoline (glibc's
 * __restore_rt, whose CIE has 'S') describes the interrupted registers as
 * saved by the kernel in the ucontext of the rt_sigframe at rsp: the CFA is
 * the saved rsp, *(rsp+N), rbp is at rsp+M and rip at rsp+K. Only this exact
 * shape is taken; any other stays with the rules of row_from_state.
 */
static bool signal_rule(const struct table_builder *b, const struct cfi_state *st,
			struct table_row *r)
{
	int64_t n, m, k;

	if (!b->signal_frame || b->machine != EM_X86_64)
		return false;
	if (st->cfa.kind != CFI_CFA_EXPR || !expr_rsp(st->cfa.expr, st->cfa.expr_len, true, &n))
		return false;
	if (st->fp.kind != CFI_RULE_EXPRESSION ||
	    !expr_rsp(st->fp.expr, st->fp.expr_len, false, &m))
		return false;
	if (st->ra.kind != CFI_RULE_EXPRESSION ||
	    !expr_rsp(st->ra.expr, st->ra.expr_len, false, &k))
		return false;
	/* offsets that do not fit: the unsupported rules of the general case say why */
	if (!fits_s32(n) || !fits_s32(m) || !fits_s32(k))
		return false;
	r->cfa = UNW_CFA_SIGNAL;
	r->cfa_off = (int32_t)n;
	r->fp = UNW_FP_AT_SP;
	r->fp_off = (int32_t)m;
	r->ra = UNW_RA_AT_SP;
	r->aux_off = k;
	return true;
}

static void row_from_state(const struct table_builder *b, const struct cfi_state *st,
			   struct table_row *r)
{
	enum unw_unsupported why;

	if (signal_rule(b, st, r))
		return;
	why = cfa_rule(b, &st->cfa, r);
	if (why) {
		r->cfa = UNW_CFA_UNSUPPORTED;
		r->cfa_off = why;
		r->aux_off = 0;
		r->unsupported = why;
	}
	why = fp_rule(b, &st->fp, r);
	if (why) {
		r->fp = UNW_FP_UNSUPPORTED;
		r->fp_off = why;
		if (!r->unsupported)
			r->unsupported = why;
	}
	why = ra_rule(b, &st->ra, r);
	if (why) {
		r->ra = UNW_RA_UNSUPPORTED;
		if (!unwind_table__cfa_uses_aux(r))
			r->aux_off = why;
		if (!r->unsupported)
			r->unsupported = why;
	}
}

/* ---- the row array ---- */

/* Room for cap rows: a large table's in huge pages of their own (util/big_alloc.h). */
static struct table_row *rows_alloc(size_t cap, size_t *mapped)
{
	return big_alloc(cap * sizeof(struct table_row), mapped);
}

/* Grows t's rows to cap, keeping nr_rows of them. */
static int rows_grow(struct unwind_table *t, size_t cap)
{
	struct table_row *rows;
	size_t mapped;

	rows = rows_alloc(cap, &mapped);
	if (!rows)
		return -ENOMEM;
	memcpy(rows, t->rows, t->nr_rows * sizeof(*rows));
	big_free(t->rows, t->rows_mapped);
	t->rows = rows;
	t->rows_mapped = mapped;
	return 0;
}

/* Gives back what the estimate reserved beyond the rows. */
static void rows_trim(struct unwind_table *t)
{
	t->rows = big_trim(t->rows, (t->nr_rows + 1) * sizeof(*t->rows), &t->rows_mapped);
}

/* Twice the room for rows: rare, as the estimate reserves them all. */
static __attribute__((noinline)) int table_builder_grow(struct table_builder *b)
{
	size_t cap = b->cap ? b->cap * 2 : 1024;

	if (rows_grow(b->t, cap))
		return -ENOMEM;
	b->cap = cap;
	return 0;
}

/* Small enough to inline, so the row made in table_builder_row() stays in registers. */
static inline int table_builder_push(struct table_builder *b, const struct table_row *r)
{
	struct unwind_table *t = b->t;

	/* a later rule at the same pc replaces the earlier one */
	if (t->nr_rows && t->rows[t->nr_rows - 1].pc == r->pc)
		t->unsupported[t->rows[--t->nr_rows].unsupported]--;
	if (t->nr_rows && unwind_table__same_rules(&t->rows[t->nr_rows - 1], r))
		return 0;
	if (t->nr_rows == b->cap && table_builder_grow(b))
		return -ENOMEM;
	t->rows[t->nr_rows++] = *r;
	t->unsupported[r->unsupported]++;
	return 0;
}

static int table_builder_row(void *ctx, uint64_t start, uint64_t end, const struct cfi_state *st)
{
	struct table_builder *b = ctx;
	struct table_row r = { 0 };

	if (start < b->win_lo)
		start = b->win_lo;
	if (end > b->win_hi)
		end = b->win_hi;
	if (start >= end)
		return 0;
	r.pc = (uint32_t)(start - b->base);
	row_from_state(b, st, &r);
	return table_builder_push(b, &r);
}

static int table_builder_end_row(struct table_builder *b, uint64_t pc)
{
	struct table_row r = { .pc = (uint32_t)(pc - b->base), .cfa = UNW_CFA_END };

	return table_builder_push(b, &r);
}

/* ---- FDEs to pieces ---- */

static int piece_cmp(const void *pa, const void *pb)
{
	const struct piece *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->fde->offset != b->fde->offset)
		return a->fde->offset < b->fde->offset ? -1 : 1;
	return 0;
}

/*
 * Sorts pieces by address. .eh_frame is made of a few hundred sorted runs
 * (one per linker input), so a merge of the natural runs beats qsort.
 */
static int pieces_sort(struct pieces *ps)
{
	struct piece *tmp, *src = ps->v, *dst;
	size_t n = ps->nr, i, lo, mid, hi, a, b, mapped;
	bool merged = true;

	tmp = big_alloc(n * sizeof(*tmp), &mapped);
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	while (merged) {
		merged = false;
		for (lo = 0; lo < n; lo = hi) {
			for (mid = lo + 1; mid < n && piece_cmp(&src[mid - 1], &src[mid]) <= 0;
			     mid++)
				;
			for (hi = mid;
			     hi < n && (hi == mid || piece_cmp(&src[hi - 1], &src[hi]) <= 0); hi++)
				;
			if (mid < n)
				merged = true;
			for (i = lo, a = lo, b = mid; i < hi; i++) {
				if (b == hi || (a < mid && piece_cmp(&src[a], &src[b]) <= 0))
					dst[i] = src[a++];
				else
					dst[i] = src[b++];
			}
		}
		tmp = src;
		src = dst;
		dst = tmp;
	}
	/* src holds the sorted pieces */
	if (src != ps->v) {
		big_free(ps->v, ps->mapped);
		ps->v = src;
		ps->mapped = mapped;
	} else {
		big_free(dst, mapped);
	}
	return 0;
}

static bool in_segments(const struct elf_load_segment *segs, size_t nr, uint64_t lo, uint64_t hi)
{
	size_t i;

	if (!segs)
		return true;
	for (i = 0; i < nr; i++) {
		if ((segs[i].flags & PF_X) && lo >= segs[i].vaddr &&
		    hi <= segs[i].vaddr + segs[i].memsz)
			return true;
	}
	return false;
}

/* The non-empty FDEs of one section inside the executable segments, sorted by address. */
static int section_pieces(struct table_builder *b, struct cfi *cfi,
			  const struct elf_load_segment *segs, size_t nr_segs, struct pieces *out)
{
	bool sorted = true;
	size_t i;

	out->nr = 0;
	out->v = big_alloc((cfi->nr_fdes ? cfi->nr_fdes : 1) * sizeof(*out->v), &out->mapped);
	if (!out->v)
		return -ENOMEM;
	for (i = 0; i < cfi->nr_fdes; i++) {
		struct cfi_fde *fde = &cfi->fdes[i];
		struct piece *p;

		if (fde->lo >= fde->hi)
			continue;
		if (!in_segments(segs, nr_segs, fde->lo, fde->hi)) {
			b->nr_outside++;
			continue;
		}
		p = &out->v[out->nr++];
		*p = (struct piece){ fde->lo, fde->hi, cfi, fde };
		if (out->nr > 1 && piece_cmp(p - 1, p) > 0)
			sorted = false;
	}
	if (!sorted)
		return pieces_sort(out);
	return 0;
}

/* Clips overlapping pieces of one section: the first by address keeps the overlap. */
static void pieces_clip_overlaps(struct table_builder *b, struct pieces *ps)
{
	uint64_t covered = 0;
	size_t i, n = 0;

	for (i = 0; i < ps->nr; i++) {
		struct piece p = ps->v[i];

		if (n && p.lo < covered) {
			b->t->nr_overlaps++;
			pr_debug("%s: %s: FDE at offset 0x%" PRIx64 " overlaps an earlier one",
				 p.cfi->sec.file, p.cfi->sec.name, p.fde->offset);
			if (p.hi <= covered)
				continue;
			p.lo = covered;
		}
		ps->v[n++] = p;
		covered = p.hi;
	}
	ps->nr = n;
}

/* First piece of cov whose end is past addr. */
static size_t pieces_find(const struct pieces *cov, uint64_t addr)
{
	return SORTED_PAST(cov->v, 0, cov->nr, hi, addr);
}

/*
 * The parts of the pieces of add that cov does not describe, into out (room
 * for add->nr + cov->nr pieces: each piece of out ends at the end of a piece
 * of add or at the start of a piece of cov, and each of those ends one at most).
 */
static void pieces_subtract(const struct pieces *add, const struct pieces *cov, struct pieces *out)
{
	size_t i, k;

	for (i = 0; i < add->nr; i++) {
		struct piece p = add->v[i];

		for (k = pieces_find(cov, p.lo); k < cov->nr && cov->v[k].lo < p.hi; k++) {
			if (p.lo < cov->v[k].lo)
				out->v[out->nr++] =
					(struct piece){ p.lo, cov->v[k].lo, p.cfi, p.fde };
			p.lo = cov->v[k].hi;
		}
		if (p.lo < p.hi)
			out->v[out->nr++] = p;
	}
}

/* Merges the pieces of a later section into cov, keeping only what cov does not describe. */
static int pieces_merge(struct pieces *cov, const struct pieces *add)
{
	struct pieces out = { 0 };
	struct piece *m;
	size_t i = 0, j = 0, n = 0, mapped;

	out.v = big_alloc((add->nr + cov->nr + 1) * sizeof(*out.v), &out.mapped);
	if (!out.v)
		return -ENOMEM;
	pieces_subtract(add, cov, &out);
	m = big_alloc((cov->nr + out.nr + 1) * sizeof(*m), &mapped);
	if (!m) {
		big_free(out.v, out.mapped);
		return -ENOMEM;
	}
	/* both sorted and disjoint */
	while (i < cov->nr || j < out.nr) {
		if (j == out.nr || (i < cov->nr && cov->v[i].lo < out.v[j].lo))
			m[n++] = cov->v[i++];
		else
			m[n++] = out.v[j++];
	}
	big_free(out.v, out.mapped);
	big_free(cov->v, cov->mapped);
	cov->v = m;
	cov->nr = n;
	cov->mapped = mapped;
	return 0;
}

/* ---- interpreting the pieces ---- */

static int table_builder_run(struct table_builder *b, const struct pieces *cov)
{
	struct unwind_table *t = b->t;
	uint64_t last_end = 0;
	bool any = false;
	size_t i, saved;
	int err;

	for (i = 0; i < cov->nr; i++) {
		const struct piece *p = &cov->v[i];

		saved = t->nr_rows;
		if (any && p->lo != last_end) {
			err = table_builder_end_row(b, last_end);
			if (err)
				return err;
		}
		b->win_lo = p->lo;
		b->win_hi = p->hi;
		b->signal_frame = p->fde->cie->signal_frame;
		err = cfi__run_fde(p->cfi, p->fde, table_builder_row, b);
		if (err == -EINVAL) { /* malformed: counted by cfi, its rows dropped */
			while (t->nr_rows > saved)
				t->unsupported[t->rows[--t->nr_rows].unsupported]--;
			continue;
		}
		if (err)
			return err;
		if (!p->fde->used) {
			p->fde->used = true;
			t->nr_fdes++;
		}
		t->sources |= p->cfi->sec.source;
		any = true;
		last_end = p->hi;
	}
	if (any)
		return table_builder_end_row(b, last_end);
	return 0;
}

/* Rebases the rows when the first pieces were dropped as malformed. */
static void table_finish(struct unwind_table *t)
{
	uint32_t shift;
	size_t i;

	t->unsupported[UNW_UNSUP_NONE] = 0;
	if (!t->nr_rows) {
		t->base = 0;
		return;
	}
	shift = t->rows[0].pc;
	if (!shift)
		return;
	t->base += shift;
	for (i = 0; i < t->nr_rows; i++)
		t->rows[i].pc -= shift;
}

/*
 * Rows rarely take less than two bytes of instructions each: reserving that
 * many spares the copies of a growing array; the pages never touched cost
 * nothing, and the array is trimmed at the end.
 */
static size_t rows_estimate(const struct pieces *cov)
{
	size_t i, n = 16;

	for (i = 0; i < cov->nr; i++)
		n += cov->v[i].fde->insns_len / 2 + 2;
	return n;
}

static int table_fill(struct table_builder *b, struct cfi **cfis, size_t nr,
		      const struct elf_load_segment *segs, size_t nr_segs)
{
	struct pieces cov = { 0 }, add = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < nr; i++) {
		err = section_pieces(b, cfis[i], segs, nr_segs, &add);
		if (err)
			goto cleanup;
		pieces_clip_overlaps(b, &add);
		if (!cov.nr) {
			big_free(cov.v, cov.mapped);
			cov = add;
			add.v = NULL;
		} else {
			err = pieces_merge(&cov, &add);
			big_free(add.v, add.mapped);
			add.v = NULL;
			if (err)
				goto cleanup;
		}
	}
	if (!cov.nr)
		goto cleanup;
	if (cov.v[cov.nr - 1].hi - cov.v[0].lo > UINT32_MAX) {
		pr_err("%s: the unwind information spans more than 4 GiB (0x%" PRIx64 "-0x%" PRIx64
		       ")",
		       cfis[0]->sec.file, cov.v[0].lo, cov.v[cov.nr - 1].hi);
		err = -E2BIG;
		goto cleanup;
	}
	b->base = b->t->base = cov.v[0].lo;
	b->cap = rows_estimate(&cov);
	b->t->rows = rows_alloc(b->cap, &b->t->rows_mapped);
	if (!b->t->rows) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = table_builder_run(b, &cov);
	if (!err)
		table_finish(b->t);
	if (!err && b->t->nr_rows < b->cap)
		rows_trim(b->t);
cleanup:
	big_free(cov.v, cov.mapped);
	big_free(add.v, add.mapped);
	return err;
}

struct unwind_table *unwind_table__build_sections(int machine, const struct cfi_section *secs,
						  size_t nr, const struct elf_load_segment *segs,
						  size_t nr_segs)
{
	struct unwind_table *t = NULL;
	struct cfi *cfis[TABLE_MAX_SECTIONS] = { 0 };
	struct table_builder b = { 0 };
	size_t i;
	int err = 0;

	if (nr > TABLE_MAX_SECTIONS) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		err = -ENOMEM;
		goto cleanup;
	}
	t->machine = machine;
	b.t = t;
	b.machine = machine;
	b.sp_reg = machine == EM_AARCH64 ? AARCH64_SP : X86_64_RSP;
	b.fp_reg = machine == EM_AARCH64 ? AARCH64_FP : X86_64_RBP;
	for (i = 0; i < nr; i++) {
		cfis[i] = cfi__parse(&secs[i]);
		if (!cfis[i]) {
			err = -errno;
			goto cleanup;
		}
	}
	err = table_fill(&b, cfis, nr, segs, nr_segs);
	for (i = 0; i < nr; i++) {
		cfi__report(cfis[i]);
		t->nr_bad_fdes += cfis[i]->nr_bad;
	}
	if (b.nr_outside)
		pr_debug("%s: %zu FDEs outside the executable segments ignored",
			 nr ? secs[0].file : "", b.nr_outside);
cleanup:
	for (i = 0; i < nr; i++)
		cfi__free(cfis[i]);
	if (err) {
		unwind_table__free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

/* ---- rows merged with another source's (core/unwind/table_go.c) ---- */

void unwind_table__replace_rows(struct unwind_table *t, struct table_row *rows, size_t nr,
				size_t mapped, uint64_t base)
{
	big_free(t->rows, t->rows_mapped);
	t->rows = rows;
	t->rows_mapped = mapped;
	t->nr_rows = nr;
	t->base = base;
	memset(t->unsupported, 0, sizeof(t->unsupported));
	for (size_t i = 0; i < t->nr_rows; i++)
		t->unsupported[t->rows[i].unsupported]++;
	t->unsupported[UNW_UNSUP_NONE] = 0;
	table_finish(t);
	rows_trim(t);
}

/* ---- rows where no CFI describes the code (core/unwind/code_a64.c, code_x64.c) ---- */

int unwind_table__add_code_range(struct unwind_table *t, uint64_t lo, uint64_t hi)
{
	struct table_range *r;
	size_t at = t->nr_code_ranges;

	r = realloc(t->code_ranges, (t->nr_code_ranges + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	t->code_ranges = r;
	while (at && r[at - 1].lo > lo) {
		r[at] = r[at - 1];
		at--;
	}
	r[at] = (struct table_range){ lo, hi };
	t->nr_code_ranges++;
	return 0;
}

int unwind_table__add_rows(struct unwind_table *t, const struct table_row *add, size_t n,
			   uint64_t lo, uint64_t hi)
{
	uint64_t base = t->nr_rows && t->base < lo ? t->base : lo, last;
	size_t at, k = 0, nr, mapped, i, skip, end;
	struct table_row *rows;

	if (!n || hi <= lo)
		return -EINVAL;
	last = t->nr_rows ? t->base + t->rows[t->nr_rows - 1].pc : hi;
	if ((hi > last ? hi : last) - base > UINT32_MAX)
		return -ERANGE;
	for (at = 0; at < t->nr_rows && t->base + t->rows[at].pc <= lo; at++)
		;
	if ((at && t->rows[at - 1].cfa != UNW_CFA_END) ||
	    (at < t->nr_rows && t->base + t->rows[at].pc < hi))
		return -EEXIST;
	/* An END row at lo gives way; a function that starts at hi needs none. */
	skip = at && t->base + t->rows[at - 1].pc == lo;
	end = !(at < t->nr_rows && t->base + t->rows[at].pc == hi);
	nr = t->nr_rows - skip + n + end;
	rows = rows_alloc(nr, &mapped);
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < at - skip; i++) {
		rows[k] = t->rows[i];
		rows[k++].pc += (uint32_t)(t->base - base);
	}
	for (i = 0; i < n; i++) {
		rows[k] = add[i];
		rows[k++].pc += (uint32_t)(lo - base);
	}
	if (end)
		rows[k++] = (struct table_row){ .pc = (uint32_t)(hi - base), .cfa = UNW_CFA_END };
	for (i = at; i < t->nr_rows; i++) {
		rows[k] = t->rows[i];
		rows[k++].pc += (uint32_t)(t->base - base);
	}
	/* The rows added may repeat the rule of the function before or after them. */
	for (i = k = 1; i < nr; i++)
		if (!unwind_table__same_rules(&rows[i], &rows[k - 1]))
			rows[k++] = rows[i];
	nr = k;
	big_free(t->rows, t->rows_mapped);
	t->rows = rows;
	t->rows_mapped = mapped;
	t->nr_rows = nr;
	t->base = base;
	return 0;
}

/* ---- from an ELF file ---- */

/* The sections DW_EH_PE_indirect pointers may point into. */
static int elf_read_ptr(void *ctx, uint64_t vaddr, uint64_t *val)
{
	static const char *const names[] = { ".got",  ".data.rel.ro", ".got.plt",
					     ".data", ".rodata",      ".init_array" };
	const struct elf_file *ef = ctx;
	struct elf_section sec;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (elf_file__section(ef, names[i], &sec))
			continue;
		if (vaddr >= sec.addr && vaddr - sec.addr <= sec.size &&
		    sec.size - (vaddr - sec.addr) >= sizeof(*val)) {
			memcpy(val, sec.data + (vaddr - sec.addr), sizeof(*val));
			return 0;
		}
	}
	return -ENOENT;
}

static uint64_t section_addr(const struct elf_file *ef, const char *name)
{
	struct elf_section sec;

	return elf_file__section(ef, name, &sec) ? 0 : sec.addr;
}

/* Adds section name of ef to secs when present. Returns 0, or -EINVAL when it is broken. */
static int add_section(const struct elf_file *ef, const char *name, unsigned int source,
		       struct cfi_section *secs, size_t *nr)
{
	struct cfi_section *cs = &secs[*nr];
	struct elf_section sec;
	int err;

	err = elf_file__section(ef, name, &sec);
	if (err == -ENOENT)
		return 0;
	if (err) {
		pr_err("%s: cannot read %s", elf_file__path(ef), name);
		return err;
	}
	*cs = (struct cfi_section){
		.file = elf_file__path(ef),
		.name = name,
		.data = sec.data,
		.size = sec.size,
		.addr = sec.addr,
		.eh_frame = !strcmp(name, ".eh_frame"),
		.machine = elf_file__machine(ef),
		.source = source,
		.text_base = section_addr(ef, ".text"),
		.data_base = section_addr(ef, ".got"),
		.read_ptr = elf_read_ptr,
		.read_ctx = (void *)ef,
	};
	elf_file__prefault(ef, sec.data, sec.size);
	(*nr)++;
	return 0;
}

struct unwind_table *unwind_table__build(const struct elf_file *elf, const struct elf_file *debug)
{
	struct cfi_section secs[TABLE_MAX_SECTIONS];
	struct unwind_table *t;
	struct elf_load_segment segs[32];
	size_t nr = 0, nr_segs;
	int err;

	err = add_section(elf, ".eh_frame", TABLE_SRC_EH_FRAME, secs, &nr);
	if (!err)
		err = add_section(elf, ".debug_frame", TABLE_SRC_DEBUG_FRAME, secs, &nr);
	if (!err && debug)
		err = add_section(debug, ".debug_frame", TABLE_SRC_DEBUG_FILE, secs, &nr);
	if (err) {
		errno = -err;
		return NULL;
	}
	if (!nr && elf_file__machine(elf) == EM_AARCH64) {
		t = code_a64__vdso(elf);
		if (t || errno != ENOENT)
			return t;
	}
	/* without the program headers (or with too many), nothing is filtered */
	nr_segs = elf_file__load_segments(elf, segs, ARRAY_SIZE(segs));
	if (nr_segs == ARRAY_SIZE(segs))
		nr_segs = 0;
	t = unwind_table__build_sections(elf_file__machine(elf), secs, nr, nr_segs ? segs : NULL,
					 nr_segs);
	if (t)
		table_go__add_elf(t, elf);
	err = t ? code_a64__plt(t, elf) : 0;
	if (!err && t)
		err = code_x64__add_rows(t, elf, debug);
	if (err) {
		unwind_table__free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

int unwind_table__each_fde(const struct elf_file *elf, unwind_fde_fn fn, void *ctx)
{
	struct cfi_section secs[1];
	struct cfi *cfi;
	size_t nr = 0;
	int err = add_section(elf, ".eh_frame", TABLE_SRC_EH_FRAME, secs, &nr);

	if (err || !nr)
		return err;
	cfi = cfi__parse(&secs[0]);
	if (!cfi)
		return -errno;
	for (size_t i = 0; i < cfi->nr_fdes && !err; i++)
		if (cfi->fdes[i].hi > cfi->fdes[i].lo)
			err = fn(ctx, cfi->fdes[i].lo, cfi->fdes[i].hi);
	cfi__free(cfi);
	return err;
}

/* The widest range of one FDE's rows seen so far. */
struct widest_rows {
	uint64_t lo, hi;
};

static int widest_row(void *ctx, uint64_t start, uint64_t end, const struct cfi_state *st)
{
	struct widest_rows *w = ctx;

	(void)st;
	if (end - start > w->hi - w->lo) {
		w->lo = start;
		w->hi = end;
	}
	return 0;
}

int unwind_table__widest_rows(const struct elf_file *elf, uint64_t pc, uint64_t *lo, uint64_t *hi)
{
	struct cfi_section secs[1];
	struct widest_rows w = { 0 };
	struct cfi *cfi;
	size_t nr = 0;
	int err = add_section(elf, ".eh_frame", TABLE_SRC_EH_FRAME, secs, &nr);

	if (err)
		return err;
	if (!nr)
		return -ENOENT;
	cfi = cfi__parse(&secs[0]);
	if (!cfi)
		return -errno;
	err = -ENOENT;
	for (size_t i = 0; i < cfi->nr_fdes; i++)
		if (cfi->fdes[i].lo <= pc && pc < cfi->fdes[i].hi) {
			err = cfi__run_fde(cfi, &cfi->fdes[i], widest_row, &w);
			break;
		}
	cfi__free(cfi);
	if (!err && w.hi <= w.lo)
		err = -ENOENT;
	*lo = w.lo;
	*hi = w.hi;
	return err;
}

void unwind_table__free(struct unwind_table *t)
{
	if (!t)
		return;
	big_free(t->rows, t->rows_mapped);
	free(t->code_ranges);
	free(t);
}

void unwind_table__release_rows(struct unwind_table *t)
{
	big_free(t->rows, t->rows_mapped);
	t->rows = NULL;
	t->rows_mapped = 0;
}

const struct table_row *unwind_table__lookup(const struct unwind_table *t, uint64_t vaddr)
{
	uint64_t off;
	size_t past;

	if (!t->nr_rows || !t->rows || vaddr < t->base)
		return NULL;
	off = vaddr - t->base;
	if (off > UINT32_MAX)
		return &t->rows[t->nr_rows - 1];
	/* the last row whose pc is <= off */
	past = SORTED_PAST(t->rows, 0, t->nr_rows, pc, off);
	return past ? &t->rows[past - 1] : NULL;
}
