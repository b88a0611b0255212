// SPDX-License-Identifier: GPL-2.0-only
/*
 * DWARF call-frame information: framing of .eh_frame / .debug_frame entries,
 * CIE and FDE headers, pointer encodings, and the call-frame instruction
 * interpreter. Every read is bounded by the end of its entry, so malformed
 * input gives an error, never an out-of-bounds read or an endless loop.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "../util/big_alloc.h"
#include "../util/leb128.h"
#include "../util/log.h"

/* Call-frame instructions (DWARF 5 section 6.4.2, plus the GNU and vendor ones). */
enum {
	DW_CFA_advance_loc = 0x40,
	DW_CFA_offset = 0x80,
	DW_CFA_restore = 0xc0,
	DW_CFA_nop = 0x00,
	DW_CFA_set_loc = 0x01,
	DW_CFA_advance_loc1 = 0x02,
	DW_CFA_advance_loc2 = 0x03,
	DW_CFA_advance_loc4 = 0x04,
	DW_CFA_offset_extended = 0x05,
	DW_CFA_restore_extended = 0x06,
	DW_CFA_undefined = 0x07,
	DW_CFA_same_value = 0x08,
	DW_CFA_register = 0x09,
	DW_CFA_remember_state = 0x0a,
	DW_CFA_restore_state = 0x0b,
	DW_CFA_def_cfa = 0x0c,
	DW_CFA_def_cfa_register = 0x0d,
	DW_CFA_def_cfa_offset = 0x0e,
	DW_CFA_def_cfa_expression = 0x0f,
	DW_CFA_expression = 0x10,
	DW_CFA_offset_extended_sf = 0x11,
	DW_CFA_def_cfa_sf = 0x12,
	DW_CFA_def_cfa_offset_sf = 0x13,
	DW_CFA_val_offset = 0x14,
	DW_CFA_val_offset_sf = 0x15,
	DW_CFA_val_expression = 0x16,
	DW_CFA_MIPS_advance_loc8 = 0x1d,
	DW_CFA_AARCH64_negate_ra_state = 0x2d,
	DW_CFA_GNU_args_size = 0x2e,
	DW_CFA_GNU_negative_offset_extended = 0x2f,
};

/* Pointer encodings of .eh_frame (LSB, "DWARF Extensions"). */
enum {
	DW_EH_PE_absptr = 0x00,
	DW_EH_PE_uleb128 = 0x01,
	DW_EH_PE_udata2 = 0x02,
	DW_EH_PE_udata4 = 0x03,
	DW_EH_PE_udata8 = 0x04,
	DW_EH_PE_signed = 0x08,
	DW_EH_PE_sleb128 = 0x09,
	DW_EH_PE_sdata2 = 0x0a,
	DW_EH_PE_sdata4 = 0x0b,
	DW_EH_PE_sdata8 = 0x0c,
	DW_EH_PE_pcrel = 0x10,
	DW_EH_PE_textrel = 0x20,
	DW_EH_PE_datarel = 0x30,
	DW_EH_PE_funcrel = 0x40,
	DW_EH_PE_aligned = 0x50,
	DW_EH_PE_indirect = 0x80,
	DW_EH_PE_omit = 0xff,
};

/* Hosts and targets are little-endian (x86_64, aarch64). */
static inline uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Reads an unsigned value of the size given by the low bits of enc. */
static int read_enc_value(const struct cfi_ptr_ctx *pc, const uint8_t **pp, const uint8_t *end,
			  uint8_t fmt, uint64_t *val)
{
	const uint8_t *p = *pp;
	size_t n;
	int64_t s;

	switch (fmt) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_signed:
		n = pc->addr_size;
		break;
	case DW_EH_PE_uleb128:
		return read_uleb(pp, end, val);
	case DW_EH_PE_sleb128:
		if (read_sleb(pp, end, &s))
			return -EINVAL;
		*val = (uint64_t)s;
		return 0;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		n = 2;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		n = 4;
		break;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		n = 8;
		break;
	default:
		return -EINVAL;
	}
	if ((size_t)(end - p) < n)
		return -EINVAL;
	if (n == 2)
		*val = fmt == DW_EH_PE_sdata2 ? (uint64_t)(int16_t)get16(p) : get16(p);
	else if (n == 4)
		*val = fmt == DW_EH_PE_sdata4 ? (uint64_t)(int32_t)get32(p) : get32(p);
	else
		*val = get64(p);
	*pp = p + n;
	return 0;
}

int cfi__read_ptr(const struct cfi_ptr_ctx *pc, const uint8_t *buf, const uint8_t **pp,
		  const uint8_t *end, uint8_t enc, uint64_t *val)
{
	const struct cfi_section *sec = pc->sec;
	const uint8_t *p = *pp;
	uint64_t v, vaddr;

	if (enc == DW_EH_PE_omit)
		return -EINVAL;
	if ((enc & 0x70) == DW_EH_PE_aligned) {
		size_t pad;

		vaddr = pc->base + (uint64_t)(p - buf);
		pad = (size_t)(-vaddr & (pc->addr_size - 1));
		if ((size_t)(end - p) < pad)
			return -EINVAL;
		p += pad;
		if (read_enc_value(pc, &p, end, DW_EH_PE_absptr, &v))
			return -EINVAL;
	} else {
		vaddr = pc->base + (uint64_t)(p - buf);
		if (read_enc_value(pc, &p, end, enc & 0x0f, &v))
			return -EINVAL;
		switch (enc & 0x70) {
		case DW_EH_PE_absptr:
			break;
		case DW_EH_PE_pcrel:
			v += vaddr;
			break;
		case DW_EH_PE_textrel:
			if (!sec || !sec->text_base)
				return -EINVAL;
			v += sec->text_base;
			break;
		case DW_EH_PE_datarel:
			if (!sec || !sec->data_base)
				return -EINVAL;
			v += sec->data_base;
			break;
		case DW_EH_PE_funcrel:
			if (!pc->func)
				return -EINVAL;
			v += pc->func;
			break;
		default:
			return -EINVAL;
		}
	}
	if (pc->addr_size == 4)
		v &= 0xffffffffu;
	if (enc & DW_EH_PE_indirect) {
		if (!sec || !sec->read_ptr || sec->read_ptr(sec->read_ctx, v, &v))
			return -EINVAL;
	}
	*pp = p;
	*val = v;
	return 0;
}

/* Everything the interpreter needs, gathered once per run. */
struct interp {
	const struct cfi_cie *cie;
	struct cfi_ptr_ctx pc;
	const uint8_t *buf; /* the section, for set_loc's pcrel */
	uint32_t fp_reg;
	uint64_t loc;	    /* the current location */
	uint64_t row_start; /* where the rules in force began */
	uint64_t hi;
	cfi_row_fn fn; /* NULL while running a CIE's initial instructions */
	void *ctx;
	const char *why; /* what is malformed */
};

static uint32_t fp_reg_of(int machine)
{
	return machine == EM_AARCH64 ? 29 : 6;
}

static inline struct cfi_rule *tracked(struct cfi_state *st, const struct interp *in, uint64_t reg)
{
	if (reg == in->fp_reg)
		return &st->fp;
	if (reg == in->cie->ra_reg)
		return &st->ra;
	return NULL;
}

/*
 * Called before a tracked rule changes: reports the rules in force from
 * row_start up to the current location. Advancing alone reports nothing, so
 * rows that differ only in registers nobody tracks are never produced.
 */
static inline int interp_flush(struct interp *in, const struct cfi_state *st)
{
	uint64_t end = in->loc < in->hi ? in->loc : in->hi;
	int err = 0;

	if (in->fn && in->row_start < end)
		err = in->fn(in->ctx, in->row_start, end, st);
	in->row_start = in->loc;
	return err;
}

static int interp_advance(struct interp *in, uint64_t new_loc)
{
	if (!in->fn) {
		in->why = "location instruction in a CIE";
		return -EINVAL;
	}
	if (new_loc < in->loc) {
		in->why = "location moves backwards";
		return -EINVAL;
	}
	in->loc = new_loc;
	return 0;
}

static inline int interp_delta(struct interp *in, uint64_t delta)
{
	uint64_t d, new_loc;

	if (__builtin_mul_overflow(delta, in->cie->code_align, &d) ||
	    __builtin_add_overflow(in->loc, d, &new_loc)) {
		in->why = "location overflows";
		return -EINVAL;
	}
	return interp_advance(in, new_loc);
}

static inline int64_t factored(uint64_t v, int64_t align)
{
	return (int64_t)(v * (uint64_t)align);
}

static int read_block(struct interp *in, const uint8_t **pp, const uint8_t *end,
		      const uint8_t **expr, uint32_t *len)
{
	uint64_t n;

	if (read_uleb(pp, end, &n) || n > (uint64_t)(end - *pp)) {
		in->why = "expression past the end";
		return -EINVAL;
	}
	*expr = *pp;
	*len = (uint32_t)n;
	*pp += n;
	return 0;
}

static int read_reg(struct interp *in, const uint8_t **pp, const uint8_t *end, uint64_t *reg)
{
	if (read_uleb(pp, end, reg)) {
		in->why = "instruction past the end";
		return -EINVAL;
	}
	if (*reg >= CFI_MAX_REG) {
		in->why = "register number out of range";
		return -EINVAL;
	}
	return 0;
}

static int read_u(struct interp *in, const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	if (read_uleb(pp, end, v)) {
		in->why = "instruction past the end";
		return -EINVAL;
	}
	return 0;
}

static int read_s(struct interp *in, const uint8_t **pp, const uint8_t *end, int64_t *v)
{
	if (read_sleb(pp, end, v)) {
		in->why = "instruction past the end";
		return -EINVAL;
	}
	return 0;
}

static inline int set_rule(struct cfi_state *st, struct interp *in, uint64_t reg, uint8_t kind,
			   int64_t off, const uint8_t *expr, uint32_t expr_len)
{
	struct cfi_rule *r = tracked(st, in, reg);
	int err;

	if (!r)
		return 0;
	err = interp_flush(in, st);
	if (err)
		return err;
	r->kind = kind;
	r->off = off;
	r->expr = expr;
	r->expr_len = expr_len;
	return 0;
}

static int restore_rule(struct cfi_state *st, struct interp *in, uint64_t reg)
{
	struct cfi_rule *r = tracked(st, in, reg);
	int err;

	if (!r)
		return 0;
	err = interp_flush(in, st);
	if (err)
		return err;
	if (!in->fn) /* in the CIE itself: back to "no rule" */
		memset(r, 0, sizeof(*r));
	else
		*r = r == &st->fp ? in->cie->init.fp : in->cie->init.ra;
	return 0;
}

static int set_cfa(struct cfi_state *st, struct interp *in, uint8_t kind, uint64_t reg, int64_t off)
{
	int err = interp_flush(in, st);

	if (err)
		return err;
	st->cfa.kind = kind;
	st->cfa.reg = (uint32_t)reg;
	st->cfa.off = off;
	return 0;
}

/* The location instructions. */
static int interp_loc(struct interp *in, uint8_t op, const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	size_t n = op == DW_CFA_advance_loc1 ? 1 :
		   op == DW_CFA_advance_loc2 ? 2 :
		   op == DW_CFA_advance_loc4 ? 4 :
					       8;
	uint64_t v;
	int err;

	if (op == DW_CFA_set_loc) {
		if (cfi__read_ptr(&in->pc, in->buf, &p, end, in->cie->fde_enc, &v)) {
			in->why = "bad DW_CFA_set_loc address";
			return -EINVAL;
		}
		err = interp_advance(in, v);
	} else {
		if ((size_t)(end - p) < n) {
			in->why = "instruction past the end";
			return -EINVAL;
		}
		v = n == 1 ? *p : n == 2 ? get16(p) : n == 4 ? get32(p) : get64(p);
		p += n;
		err = interp_delta(in, v);
	}
	*pp = p;
	return err;
}

/* DW_CFA_remember_state and DW_CFA_restore_state, on a bounded stack. */
static int interp_state(struct interp *in, uint8_t op, struct cfi_state *st,
			struct cfi_state *stack, unsigned int *depth)
{
	int err;

	if (op == DW_CFA_remember_state) {
		if (*depth >= CFI_MAX_REMEMBER) {
			in->why = "DW_CFA_remember_state nested too deep";
			return -EINVAL;
		}
		stack[(*depth)++] = *st;
		return 0;
	}
	if (!*depth) {
		in->why = "DW_CFA_restore_state without DW_CFA_remember_state";
		return -EINVAL;
	}
	err = interp_flush(in, st);
	if (!err)
		*st = stack[--(*depth)];
	return err;
}

/* The register rules of the "extended" range. */
static int interp_rule(struct interp *in, uint8_t op, const uint8_t **pp, const uint8_t *end,
		       struct cfi_state *st)
{
	const uint8_t *expr = NULL;
	uint32_t len = 0;
	uint64_t reg, u = 0;
	int64_t s = 0, off = 0;
	uint8_t kind;

	if (read_reg(in, pp, end, &reg))
		return -EINVAL;
	switch (op) {
	case DW_CFA_offset_extended:
	case DW_CFA_val_offset:
	case DW_CFA_GNU_negative_offset_extended:
		if (read_u(in, pp, end, &u))
			return -EINVAL;
		off = factored(u, in->cie->data_align);
		if (op == DW_CFA_GNU_negative_offset_extended)
			off = (int64_t)(0 - (uint64_t)off);
		kind = op == DW_CFA_val_offset ? CFI_RULE_VAL_OFFSET : CFI_RULE_OFFSET;
		break;
	case DW_CFA_offset_extended_sf:
	case DW_CFA_val_offset_sf:
		if (read_s(in, pp, end, &s))
			return -EINVAL;
		off = factored((uint64_t)s, in->cie->data_align);
		kind = op == DW_CFA_val_offset_sf ? CFI_RULE_VAL_OFFSET : CFI_RULE_OFFSET;
		break;
	case DW_CFA_restore_extended:
		return restore_rule(st, in, reg);
	case DW_CFA_undefined:
		kind = CFI_RULE_UNDEFINED;
		break;
	case DW_CFA_same_value:
		kind = CFI_RULE_SAME_VALUE;
		break;
	case DW_CFA_register:
		if (read_reg(in, pp, end, &u))
			return -EINVAL;
		off = (int64_t)u;
		kind = CFI_RULE_REGISTER;
		break;
	default: /* DW_CFA_expression, DW_CFA_val_expression */
		if (read_block(in, pp, end, &expr, &len))
			return -EINVAL;
		kind = op == DW_CFA_expression ? CFI_RULE_EXPRESSION : CFI_RULE_VAL_EXPRESSION;
		break;
	}
	return set_rule(st, in, reg, kind, off, expr, len);
}

/* The CFA definitions. */
static int interp_cfa(struct interp *in, uint8_t op, const uint8_t **pp, const uint8_t *end,
		      struct cfi_state *st)
{
	int64_t align = in->cie->data_align, s = 0;
	uint64_t reg = st->cfa.reg, u = 0;
	uint8_t kind = CFI_CFA_REG;
	int64_t off = st->cfa.off;
	const uint8_t *expr;
	uint32_t len;
	int err;

	switch (op) {
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_def_cfa_register:
		if (read_reg(in, pp, end, &reg))
			return -EINVAL;
		if (op == DW_CFA_def_cfa && read_u(in, pp, end, &u))
			return -EINVAL;
		if (op == DW_CFA_def_cfa)
			off = (int64_t)u;
		if (op == DW_CFA_def_cfa_sf && read_s(in, pp, end, &s))
			return -EINVAL;
		if (op == DW_CFA_def_cfa_sf)
			off = factored((uint64_t)s, align);
		break;
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
		/* only the offset changes, as readelf and libgcc do even after an expression */
		kind = st->cfa.kind;
		if (op == DW_CFA_def_cfa_offset && read_u(in, pp, end, &u))
			return -EINVAL;
		if (op == DW_CFA_def_cfa_offset)
			off = (int64_t)u;
		if (op == DW_CFA_def_cfa_offset_sf && read_s(in, pp, end, &s))
			return -EINVAL;
		if (op == DW_CFA_def_cfa_offset_sf)
			off = factored((uint64_t)s, align);
		break;
	default: /* DW_CFA_def_cfa_expression */
		if (read_block(in, pp, end, &expr, &len))
			return -EINVAL;
		err = interp_flush(in, st);
		if (!err)
			st->cfa = (struct cfi_cfa){ .kind = CFI_CFA_EXPR,
						    .expr = expr,
						    .expr_len = len };
		return err;
	}
	return set_cfa(st, in, kind, reg, off);
}

/* The DW_CFA_* of the "extended" range (high two bits zero). */
static int interp_extended(struct interp *in, uint8_t op, const uint8_t **pp, const uint8_t *end,
			   struct cfi_state *st, struct cfi_state *stack, unsigned int *depth)
{
	uint64_t u;
	int err;

	switch (op) {
	case DW_CFA_nop:
		return 0;
	case DW_CFA_set_loc:
	case DW_CFA_advance_loc1:
	case DW_CFA_advance_loc2:
	case DW_CFA_advance_loc4:
	case DW_CFA_MIPS_advance_loc8:
		return interp_loc(in, op, pp, end);
	case DW_CFA_remember_state:
	case DW_CFA_restore_state:
		return interp_state(in, op, st, stack, depth);
	case DW_CFA_offset_extended:
	case DW_CFA_val_offset:
	case DW_CFA_GNU_negative_offset_extended:
	case DW_CFA_offset_extended_sf:
	case DW_CFA_val_offset_sf:
	case DW_CFA_restore_extended:
	case DW_CFA_undefined:
	case DW_CFA_same_value:
	case DW_CFA_register:
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		return interp_rule(in, op, pp, end, st);
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_def_cfa_register:
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
	case DW_CFA_def_cfa_expression:
		return interp_cfa(in, op, pp, end, st);
	case DW_CFA_GNU_args_size:
		return read_u(in, pp, end, &u);
	case DW_CFA_AARCH64_negate_ra_state:
		if (in->pc.sec->machine != EM_AARCH64)
			break;
		err = interp_flush(in, st);
		if (!err)
			st->ra_signed = !st->ra_signed;
		return err;
	default:
		break;
	}
	in->why = "unknown call-frame instruction";
	return -EINVAL;
}

/* Interprets [p, end) from state st; the tight loop of the table build. */
static int interp_run(struct interp *in, const uint8_t *p, const uint8_t *end, struct cfi_state *st)
{
	struct cfi_state stack[CFI_MAX_REMEMBER];
	unsigned int depth = 0;
	uint64_t u;
	int err;

	while (p < end) {
		uint8_t op = *p++;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			err = interp_delta(in, op & 0x3f);
			break;
		case DW_CFA_offset:
			if (read_u(in, &p, end, &u))
				return -EINVAL;
			err = set_rule(st, in, op & 0x3f, CFI_RULE_OFFSET,
				       factored(u, in->cie->data_align), NULL, 0);
			break;
		case DW_CFA_restore:
			err = restore_rule(st, in, op & 0x3f);
			break;
		default:
			err = interp_extended(in, op, &p, end, st, stack, &depth);
			break;
		}
		if (err)
			return err;
		/* nothing at or after the end of the range can matter */
		if (in->loc >= in->hi && in->fn)
			return 0;
	}
	return 0;
}

static void cfi_bad(struct cfi *cfi, uint64_t off, const char *why)
{
	if (!cfi->nr_bad++) {
		cfi->first_bad_off = off;
		snprintf(cfi->first_bad, sizeof(cfi->first_bad), "%s", why);
	}
	pr_debug("%s: %s: skipping the entry at offset 0x%" PRIx64 ": %s", cfi->sec.file,
		 cfi->sec.name, off, why);
}

void cfi__report(const struct cfi *cfi)
{
	if (!cfi || !cfi->nr_bad)
		return;
	pr_warn("%s: %s: skipped %zu malformed FDE%s (first at offset 0x%" PRIx64 ": %s)",
		cfi->sec.file, cfi->sec.name, cfi->nr_bad, cfi->nr_bad == 1 ? "" : "s",
		cfi->first_bad_off, cfi->first_bad);
}

int cfi__run_fde(struct cfi *cfi, struct cfi_fde *fde, cfi_row_fn fn, void *ctx)
{
	const struct cfi_cie *cie = fde->cie;
	struct cfi_state st = cie->init;
	struct interp in = {
		.cie = cie,
		.pc = { .sec = &cfi->sec,
			.base = cfi->sec.addr,
			.func = fde->lo,
			.addr_size = cie->addr_size },
		.buf = cfi->sec.data,
		.fp_reg = fp_reg_of(cfi->sec.machine),
		.loc = fde->lo,
		.row_start = fde->lo,
		.hi = fde->hi,
		.fn = fn,
		.ctx = ctx,
	};
	int err;

	if (fde->bad)
		return -EINVAL;
	err = interp_run(&in, fde->insns, fde->insns + fde->insns_len, &st);
	if (!err && in.row_start < in.hi)
		err = fn(ctx, in.row_start, in.hi, &st);
	if (err && in.why) {
		fde->bad = true;
		cfi_bad(cfi, fde->offset, in.why);
	}
	return err;
}

/* Skips an encoded pointer whose value is not needed (the personality routine). */
static int skip_ptr(const struct cfi_ptr_ctx *pc, const uint8_t *buf, const uint8_t **pp,
		    const uint8_t *end, uint8_t enc)
{
	uint64_t v;

	if ((enc & 0x70) == DW_EH_PE_aligned)
		return cfi__read_ptr(pc, buf, pp, end, DW_EH_PE_aligned, &v);
	if ((enc & 0x70) > DW_EH_PE_aligned)
		return -EINVAL;
	return read_enc_value(pc, pp, end, enc & 0x0f, &v);
}

static bool enc_valid(uint8_t enc)
{
	uint8_t fmt = enc & 0x0f;

	if ((enc & 0x70) > DW_EH_PE_aligned)
		return false;
	return fmt <= DW_EH_PE_udata8 || (fmt >= DW_EH_PE_signed && fmt <= DW_EH_PE_sdata8);
}

/* The augmentation letters GCC and LLVM emit, after 'z'. */
static const char *cie_parse_aug(struct cfi *cfi, struct cfi_cie *cie, const char *aug,
				 const uint8_t *p, const uint8_t *aug_end)
{
	struct cfi_ptr_ctx pc = { .sec = &cfi->sec,
				  .base = cfi->sec.addr,
				  .addr_size = cie->addr_size };
	uint8_t enc;

	for (; *aug; aug++) {
		switch (*aug) {
		case 'L': /* LSDA encoding: the FDE's LSDA pointer is skipped with its data */
			if (p >= aug_end)
				return "augmentation data past the end";
			p++;
			break;
		case 'R':
			if (p >= aug_end)
				return "augmentation data past the end";
			cie->fde_enc = *p++;
			if (!enc_valid(cie->fde_enc))
				return "bad FDE pointer encoding";
			break;
		case 'P':
			if (p >= aug_end)
				return "augmentation data past the end";
			enc = *p++;
			if (skip_ptr(&pc, cfi->sec.data, &p, aug_end, enc))
				return "bad personality pointer";
			break;
		case 'S':
			cie->signal_frame = true;
			break;
		case 'B': /* aarch64: return address signed with the B key */
		case 'G': /* aarch64: MTE-tagged stack frames */
			break;
		default:
			/* unknown from here on, but 'z' lets us skip its data, as libgcc does */
			return NULL;
		}
	}
	return NULL;
}

/* Parses a CIE whose body (after the CIE id) is [p, end). Returns what is wrong, or NULL. */
static const char *cie_parse(struct cfi *cfi, struct cfi_cie *cie, const uint8_t *p,
			     const uint8_t *end)
{
	const char *aug, *why;
	size_t aug_len;
	uint64_t u;
	uint8_t version;

	cie->addr_size = 8;
	cie->fde_enc = DW_EH_PE_absptr;
	if (p >= end)
		return "truncated CIE";
	version = *p++;
	if (version < 1 || version > 5)
		return "unsupported CIE version";
	aug = (const char *)p;
	aug_len = strnlen(aug, (size_t)(end - p));
	if (aug_len == (size_t)(end - p))
		return "unterminated augmentation string";
	p += aug_len + 1;
	if (aug[0] == 'e' && aug[1] == 'h') { /* old GCC: the EH data address follows */
		if (end - p < 8)
			return "truncated CIE";
		p += 8;
		aug += 2;
	}
	if (version >= 4) {
		if (end - p < 2)
			return "truncated CIE";
		if (p[0] != 4 && p[0] != 8)
			return "unsupported address size";
		if (p[1] != 0)
			return "segment selectors are not supported";
		cie->addr_size = p[0];
		p += 2;
	}
	if (read_uleb(&p, end, &cie->code_align) || read_sleb(&p, end, &cie->data_align))
		return "truncated CIE";
	if (version == 1) {
		if (p >= end)
			return "truncated CIE";
		u = *p++;
	} else if (read_uleb(&p, end, &u)) {
		return "truncated CIE";
	}
	if (u >= CFI_MAX_REG)
		return "register number out of range";
	cie->ra_reg = (uint32_t)u;
	if (aug[0] == 'z') {
		if (read_uleb(&p, end, &u) || u > (uint64_t)(end - p))
			return "augmentation data past the end";
		why = cie_parse_aug(cfi, cie, aug + 1, p, p + u);
		if (why)
			return why;
		cie->aug_data = true;
		p += u;
	} else if (aug[0]) {
		return "unknown augmentation";
	}
	cie->insns = p;
	cie->insns_len = (size_t)(end - p);
	return NULL;
}

/* Runs the initial instructions of a parsed CIE into cie->init. */
static const char *cie_init(struct cfi *cfi, struct cfi_cie *cie)
{
	struct interp in = {
		.cie = cie,
		.pc = { .sec = &cfi->sec, .base = cfi->sec.addr, .addr_size = cie->addr_size },
		.buf = cfi->sec.data,
		.fp_reg = fp_reg_of(cfi->sec.machine),
	};

	memset(&cie->init, 0, sizeof(cie->init));
	if (interp_run(&in, cie->insns, cie->insns + cie->insns_len, &cie->init))
		return in.why ? in.why : "bad initial instructions";
	return NULL;
}

/* One entry of the section, delimited. */
struct entry {
	uint64_t off;	     /* of its length field */
	uint64_t id;	     /* CIE id or CIE pointer */
	uint64_t id_off;     /* of the id field */
	const uint8_t *body; /* after the id */
	const uint8_t *end;
	bool is_cie;
	bool too_short; /* not even room for the id */
};

static int section_fail(const struct cfi *cfi, uint64_t off, const char *why)
{
	pr_err("%s: %s: malformed at offset 0x%" PRIx64 ": %s", cfi->sec.file, cfi->sec.name, off,
	       why);
	return -EINVAL;
}

/* Delimits the entry at *off. Returns 1 with *e, 0 at the end, -EINVAL when it cannot. */
static int next_entry(const struct cfi *cfi, uint64_t *off, struct entry *e)
{
	const uint8_t *d = cfi->sec.data;
	uint64_t size = cfi->sec.size, o = *off, len, hdr = 4, idsz = 4;

	for (;;) {
		if (o >= size)
			return 0;
		if (size - o < 4) {
			while (o < size && !d[o]) /* alignment padding */
				o++;
			if (o == size)
				return 0;
			return section_fail(cfi, o, "truncated entry length");
		}
		len = get32(d + o);
		if (len)
			break;
		if (cfi->sec.eh_frame) /* the zero terminator */
			return 0;
		o += 4;
	}
	if (len == 0xffffffff) {
		if (size - o < 12)
			return section_fail(cfi, o, "truncated 64-bit entry length");
		len = get64(d + o + 4);
		hdr = 12;
		idsz = 8;
	} else if (len >= 0xfffffff0) {
		return section_fail(cfi, o, "reserved entry length");
	}
	if (len > size - o - hdr)
		return section_fail(cfi, o, "entry length past the end of the section");
	memset(e, 0, sizeof(*e));
	e->off = o;
	e->end = d + o + hdr + len;
	*off = o + hdr + len;
	if (len < idsz) {
		e->too_short = true;
		return 1;
	}
	e->id_off = o + hdr;
	e->id = idsz == 8 ? get64(d + o + hdr) : get32(d + o + hdr);
	e->body = d + o + hdr + idsz;
	if (cfi->sec.eh_frame)
		e->is_cie = e->id == 0;
	else
		e->is_cie = idsz == 8 ? e->id == ~(uint64_t)0 : e->id == 0xffffffff;
	return 1;
}

static const struct cfi_cie *find_cie(const struct cfi *cfi, uint64_t off)
{
	size_t lo = 0, hi = cfi->nr_cies;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cfi->cies[mid].offset == off)
			return &cfi->cies[mid];
		if (cfi->cies[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Parses an FDE's header. Returns what is wrong, or NULL. */
static const char *fde_parse(const struct cfi *cfi, const struct entry *e,
			     const struct cfi_cie **last, struct cfi_fde *fde)
{
	const struct cfi_cie *cie = *last;
	const uint8_t *p = e->body;
	struct cfi_ptr_ctx pc = { .sec = &cfi->sec, .base = cfi->sec.addr };
	uint64_t cie_off, range, u;

	if (cfi->sec.eh_frame) {
		if (e->id > e->id_off)
			return "CIE pointer to nowhere";
		cie_off = e->id_off - e->id;
	} else {
		cie_off = e->id;
	}
	if (!cie || cie->offset != cie_off) {
		cie = find_cie(cfi, cie_off);
		if (!cie)
			return "CIE pointer to nowhere";
		*last = cie;
	}
	if (cie->err)
		return cie->err;
	pc.addr_size = cie->addr_size;
	fde->offset = e->off;
	fde->cie = cie;
	if (cfi__read_ptr(&pc, cfi->sec.data, &p, e->end, cie->fde_enc, &fde->lo))
		return "bad pc_begin";
	if (read_enc_value(&pc, &p, e->end, cie->fde_enc & 0x0f, &range))
		return "bad pc_range";
	if (cie->addr_size == 4)
		range &= 0xffffffffu;
	if (cie->aug_data) {
		if (read_uleb(&p, e->end, &u) || u > (uint64_t)(e->end - p))
			return "augmentation data past the end";
		p += u;
	}
	if (__builtin_add_overflow(fde->lo, range, &fde->hi))
		return "pc range overflows";
	fde->insns = p;
	fde->insns_len = (size_t)(e->end - p);
	return NULL;
}

/* First pass: delimits every entry, parses the CIEs, counts the FDEs. */
static int cfi_parse_cies(struct cfi *cfi, size_t *nr_fdes)
{
	struct entry e;
	uint64_t off = 0;
	size_t cap = 0;
	int ret;

	*nr_fdes = 0;
	while ((ret = next_entry(cfi, &off, &e)) > 0) {
		struct cfi_cie *cie;

		if (e.too_short || !e.is_cie) {
			(*nr_fdes)++;
			continue;
		}
		if (cfi->nr_cies == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			void *n = realloc(cfi->cies, ncap * sizeof(*cfi->cies));

			if (!n)
				return -ENOMEM;
			cfi->cies = n;
			cap = ncap;
		}
		cie = &cfi->cies[cfi->nr_cies++];
		memset(cie, 0, sizeof(*cie));
		cie->offset = e.off;
		cie->err = cie_parse(cfi, cie, e.body, e.end);
		if (!cie->err)
			cie->err = cie_init(cfi, cie);
		if (cie->err)
			pr_debug("%s: %s: CIE at offset 0x%" PRIx64 ": %s", cfi->sec.file,
				 cfi->sec.name, e.off, cie->err);
	}
	return ret;
}

/* Second pass: the FDE headers. */
static int cfi_parse_fdes(struct cfi *cfi, size_t nr)
{
	const struct cfi_cie *last = NULL;
	struct entry e;
	uint64_t off = 0;
	const char *why;

	cfi->fdes = big_alloc((nr ? nr : 1) * sizeof(*cfi->fdes), &cfi->fdes_mapped);
	if (!cfi->fdes)
		return -ENOMEM;
	while (next_entry(cfi, &off, &e) > 0 && cfi->nr_fdes < nr) {
		if (e.is_cie)
			continue;
		why = e.too_short ? "entry too short" : NULL;
		if (!why)
			why = fde_parse(cfi, &e, &last, &cfi->fdes[cfi->nr_fdes]);
		if (why) {
			cfi_bad(cfi, e.off, why);
			continue;
		}
		cfi->nr_fdes++;
	}
	return 0;
}

struct cfi *cfi__parse(const struct cfi_section *sec)
{
	struct cfi *cfi;
	size_t nr_fdes;
	int err;

	cfi = calloc(1, sizeof(*cfi));
	if (!cfi)
		return NULL;
	cfi->sec = *sec;
	if (!cfi->sec.file)
		cfi->sec.file = "(memory)";
	if (!cfi->sec.name)
		cfi->sec.name = sec->eh_frame ? ".eh_frame" : ".debug_frame";
	err = cfi_parse_cies(cfi, &nr_fdes);
	if (err)
		goto cleanup;
	err = cfi_parse_fdes(cfi, nr_fdes);
cleanup:
	if (err) {
		cfi__free(cfi);
		errno = -err;
		return NULL;
	}
	return cfi;
}

void cfi__free(struct cfi *cfi)
{
	if (!cfi)
		return;
	free(cfi->cies);
	big_free(cfi->fdes, cfi->fdes_mapped);
	free(cfi);
}
