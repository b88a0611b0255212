// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_oracle: the unwind rules of every FDE of an x86_64 ELF file as libdwarf
 * interprets them, printed in the rule text of `unwprof dump-unwind`, so that
 * tests/oracle/dwarf_compare.py can check unwprof against a second CFI reader.
 *
 * usage: dwarf_oracle [--eh-frame] [--debug-frame] FILE
 *
 * Output, one FDE after the other:
 *     fde SECTION 0xLOW 0xHIGH
 *     0xPC CFA FP RA
 * where CFA is rsp+N, rbp+N, plt, *(REG+N)+M or unsupported:REASON; FP is
 * unchanged, undefined, cfa+N, *(rbp+N) or unsupported:REASON; RA is cfa-8,
 * undefined or unsupported:REASON. The row of a signal frame (an FDE whose
 * CIE has 'S', with the CFA at *(rsp+N), rbp at rsp+M and the return address
 * at rsp+K) is "signal:*(rsp+N) *(rsp+M) *(rsp+K)". "error TEXT" stands for
 * a row libdwarf could not compute. Exit status 0, or 1 when the file cannot
 * be read.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <libdwarf.h>

#define REG_RBP 6
#define REG_RSP 7
#define REG_RIP 16

/* A hostile FDE could describe millions of rows; no real function has this many. */
#define MAX_ROWS_PER_FDE 100000
#define MAX_OPS 16

struct op {
	uint8_t code;
	int64_t arg;
};

static int read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *val)
{
	unsigned int shift = 0;

	*val = 0;
	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			*val |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return 0;
	}
	return -EINVAL;
}

static int read_sleb(const uint8_t **p, const uint8_t *end, int64_t *val)
{
	unsigned int shift = 0;
	uint64_t v = 0;
	uint8_t b = 0;

	while (*p < end) {
		b = *(*p)++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			*val = (int64_t)v;
			return 0;
		}
	}
	return -EINVAL;
}

/* Decodes the few operations the unwinder's expressions are made of; -EINVAL on others. */
static int decode_expr(const uint8_t *p, size_t len, struct op *ops, size_t *nr)
{
	const uint8_t *end = p + len;
	uint64_t u;

	*nr = 0;
	while (p < end) {
		struct op *op = &ops[*nr];

		if (*nr == MAX_OPS)
			return -EINVAL;
		op->code = *p++;
		op->arg = 0;
		if (op->code >= DW_OP_breg0 && op->code <= DW_OP_breg31) {
			if (read_sleb(&p, end, &op->arg))
				return -EINVAL;
		} else if (op->code == DW_OP_plus_uconst) {
			if (read_uleb(&p, end, &u))
				return -EINVAL;
			op->arg = (int64_t)u;
		} else if (op->code == DW_OP_const1u || op->code == DW_OP_const1s) {
			if (p >= end)
				return -EINVAL;
			op->arg = op->code == DW_OP_const1u ? *p : (int8_t)*p;
			p++;
		} else if (op->code == DW_OP_const2u || op->code == DW_OP_const2s) {
			if (end - p < 2)
				return -EINVAL;
			op->arg = p[0] | p[1] << 8;
			if (op->code == DW_OP_const2s)
				op->arg = (int16_t)op->arg;
			p += 2;
		} else if (op->code == DW_OP_constu) {
			if (read_uleb(&p, end, &u))
				return -EINVAL;
			op->arg = (int64_t)u;
		} else if (op->code == DW_OP_consts) {
			if (read_sleb(&p, end, &op->arg))
				return -EINVAL;
		} else if (op->code >= DW_OP_lit0 && op->code <= DW_OP_lit31) {
			op->arg = op->code - DW_OP_lit0;
		} else if (op->code != DW_OP_deref && op->code != DW_OP_and &&
			   op->code != DW_OP_ge && op->code != DW_OP_shl &&
			   op->code != DW_OP_plus) {
			return -EINVAL;
		}
		(*nr)++;
	}
	return 0;
}

static const char *reg_name(int64_t reg)
{
	if (reg == REG_RSP)
		return "rsp";
	if (reg == REG_RBP)
		return "rbp";
	return NULL;
}

static bool is_breg(const struct op *op, int reg)
{
	return op->code == DW_OP_breg0 + reg;
}

static bool is_lit(const struct op *op)
{
	return op->code >= DW_OP_lit0 && op->code <= DW_OP_lit31;
}

static bool is_const(const struct op *op)
{
	return op->code == DW_OP_const1u || op->code == DW_OP_const1s ||
	       op->code == DW_OP_const2u || op->code == DW_OP_const2s || op->code == DW_OP_constu ||
	       op->code == DW_OP_consts;
}

/* The lazy-binding PLT: rsp + N + ((rip & 15) >= K ? 8 : 0). */
static bool is_plt(const struct op *o, size_t n)
{
	return n == 9 && is_breg(&o[0], REG_RSP) && is_breg(&o[1], REG_RIP) && o[1].arg == 0 &&
	       is_lit(&o[2]) && o[2].arg == 15 && o[3].code == DW_OP_and && is_lit(&o[4]) &&
	       o[5].code == DW_OP_ge && is_lit(&o[6]) && o[6].arg == 3 && o[7].code == DW_OP_shl &&
	       o[8].code == DW_OP_plus;
}

static void format_cfa_expr(const uint8_t *bytes, size_t len, char *buf, size_t size)
{
	struct op ops[MAX_OPS];
	int64_t add = 0;
	size_t n;

	if (decode_expr(bytes, len, ops, &n) || !n) {
		snprintf(buf, size, "unsupported:cfa-expression");
		return;
	}
	/* DW_OP_bregR N alone is the rule R+N written as an expression. */
	if (n == 1 && ops[0].code >= DW_OP_breg0 && ops[0].code <= DW_OP_breg31) {
		const char *reg = reg_name(ops[0].code - DW_OP_breg0);

		if (reg)
			snprintf(buf, size, "%s%+" PRId64, reg, ops[0].arg);
		else
			snprintf(buf, size, "unsupported:cfa-register");
		return;
	}
	if (n < 2) {
		snprintf(buf, size, "unsupported:cfa-expression");
		return;
	}
	if (is_plt(ops, n)) {
		snprintf(buf, size, "plt");
		return;
	}
	if (ops[0].code < DW_OP_breg0 || ops[0].code > DW_OP_breg31 || ops[1].code != DW_OP_deref) {
		snprintf(buf, size, "unsupported:cfa-expression");
		return;
	}
	if (n == 3 && ops[2].code == DW_OP_plus_uconst) {
		add = ops[2].arg;
	} else if (n == 4 && (is_const(&ops[2]) || is_lit(&ops[2])) && ops[3].code == DW_OP_plus) {
		add = ops[2].arg;
	} else if (n != 2) {
		snprintf(buf, size, "unsupported:cfa-expression");
		return;
	}
	if (!reg_name(ops[0].code - DW_OP_breg0)) {
		snprintf(buf, size, "unsupported:cfa-expression");
		return;
	}
	if (add)
		snprintf(buf, size, "*(%s%+" PRId64 ")%+" PRId64,
			 reg_name(ops[0].code - DW_OP_breg0), ops[0].arg, add);
	else
		snprintf(buf, size, "*(%s%+" PRId64 ")", reg_name(ops[0].code - DW_OP_breg0),
			 ops[0].arg);
}

struct rule {
	Dwarf_Small type;
	Dwarf_Signed offset_relevant;
	Dwarf_Signed reg;
	Dwarf_Signed off; /* or the expression's length */
	Dwarf_Ptr block;
};

static void format_cfa(const struct rule *r, char *buf, size_t size)
{
	if (r->type == DW_EXPR_EXPRESSION || r->type == DW_EXPR_VAL_EXPRESSION) {
		format_cfa_expr(r->block, (size_t)r->off, buf, size);
		return;
	}
	if (r->type != DW_EXPR_OFFSET && r->type != DW_EXPR_VAL_OFFSET) {
		snprintf(buf, size, "unsupported:cfa-expression");
		return;
	}
	if (!reg_name(r->reg)) {
		snprintf(buf, size, "unsupported:cfa-register");
		return;
	}
	snprintf(buf, size, "%s%+" PRId64, reg_name(r->reg), (int64_t)r->off);
}

static void format_fp(const struct rule *r, char *buf, size_t size)
{
	struct op ops[MAX_OPS];
	size_t n;

	/* libdwarf leaves reg at its initial value for the expression rules: test type first. */
	if (r->type == DW_EXPR_EXPRESSION && !decode_expr(r->block, (size_t)r->off, ops, &n) &&
	    n == 1 && is_breg(&ops[0], REG_RBP))
		snprintf(buf, size, "*(rbp%+" PRId64 ")", ops[0].arg);
	else if (r->type != DW_EXPR_OFFSET)
		snprintf(buf, size, "unsupported:fp-rule");
	else if (r->reg == DW_FRAME_SAME_VAL)
		snprintf(buf, size, "unchanged");
	else if (r->reg == DW_FRAME_UNDEFINED_VAL)
		snprintf(buf, size, "undefined");
	else if (r->offset_relevant)
		snprintf(buf, size, "cfa%+" PRId64, (int64_t)r->off);
	else
		snprintf(buf, size, "unsupported:fp-rule");
}

static void format_ra(const struct rule *r, char *buf, size_t size)
{
	if (r->type != DW_EXPR_OFFSET)
		snprintf(buf, size, "unsupported:ra-rule");
	else if (r->reg == DW_FRAME_UNDEFINED_VAL)
		snprintf(buf, size, "undefined");
	else if (r->offset_relevant && r->off == -8)
		snprintf(buf, size, "cfa-8");
	else
		snprintf(buf, size, "unsupported:ra-rule");
}

/* Whether rule r is the expression DW_OP_breg7 N alone (then deref when deref), into *n. */
static bool is_rsp_expr(const struct rule *r, bool deref, int64_t *n)
{
	struct op ops[MAX_OPS];
	size_t nr;

	if (r->type != DW_EXPR_EXPRESSION || decode_expr(r->block, (size_t)r->off, ops, &nr))
		return false;
	if (nr != (deref ? 2u : 1u) || !is_breg(&ops[0], REG_RSP))
		return false;
	if (deref && ops[1].code != DW_OP_deref)
		return false;
	*n = ops[0].arg;
	return true;
}

/*
 * The rules of a signal frame: the registers of the interrupted code saved
 * at rsp, the CFA being the saved rsp. False when c, f and a are not of that
 * shape, or their offsets do not fit unwprof's row.
 */
static bool format_signal(const struct rule *c, const struct rule *f, const struct rule *a,
			  char *cfa, char *fp, char *ra, size_t size)
{
	int64_t n, m, k;

	if (!is_rsp_expr(c, true, &n) || !is_rsp_expr(f, false, &m) || !is_rsp_expr(a, false, &k))
		return false;
	if (n < INT32_MIN || n > INT32_MAX || m < INT16_MIN || m > INT16_MAX || k < INT16_MIN ||
	    k > INT16_MAX)
		return false;
	snprintf(cfa, size, "signal:*(rsp%+" PRId64 ")", n);
	snprintf(fp, size, "*(rsp%+" PRId64 ")", m);
	snprintf(ra, size, "*(rsp%+" PRId64 ")", k);
	return true;
}

/* Whether the CIE of fde has the 'S' augmentation: the FDE of a signal trampoline. */
static bool is_signal_fde(Dwarf_Debug dbg, Dwarf_Fde fde)
{
	Dwarf_Unsigned bytes, code_align, init_len;
	Dwarf_Half ra_reg, offset_size;
	Dwarf_Signed data_align;
	Dwarf_Small version;
	Dwarf_Error err = NULL;
	Dwarf_Ptr init;
	Dwarf_Cie cie;
	char *aug = NULL;

	if (dwarf_get_cie_of_fde(fde, &cie, &err) != DW_DLV_OK ||
	    dwarf_get_cie_info_b(cie, &bytes, &version, &aug, &code_align, &data_align, &ra_reg,
				 &init, &init_len, &offset_size, &err) != DW_DLV_OK) {
		if (err)
			dwarf_dealloc(dbg, err, DW_DLA_ERROR);
		return false;
	}
	return aug && strchr(aug, 'S');
}

static int get_reg(Dwarf_Fde fde, Dwarf_Half col, Dwarf_Addr pc, struct rule *r, Dwarf_Error *err)
{
	Dwarf_Addr row_pc, next_pc;
	Dwarf_Bool more;

	return dwarf_get_fde_info_for_reg3_b(fde, col, pc, &r->type, &r->offset_relevant, &r->reg,
					     &r->off, &r->block, &row_pc, &more, &next_pc, err);
}

static void print_error(Dwarf_Debug dbg, Dwarf_Addr pc, Dwarf_Error err)
{
	printf("0x%" PRIx64 " error %s\n", (uint64_t)pc, err ? dwarf_errmsg(err) : "no entry");
	if (err)
		dwarf_dealloc(dbg, err, DW_DLA_ERROR);
}

/* Prints one row, sets *next to the pc of the next one; 1 when it was the last. */
static int print_row(Dwarf_Debug dbg, Dwarf_Fde fde, bool signal, Dwarf_Addr pc, Dwarf_Addr *next)
{
	char cfa[64], fp[64], ra[64];
	struct rule c = {}, f = {}, a = {};
	Dwarf_Error err = NULL;
	Dwarf_Addr row_pc;
	Dwarf_Bool more = 0;

	if (dwarf_get_fde_info_for_cfa_reg3_b(fde, pc, &c.type, &c.offset_relevant, &c.reg, &c.off,
					      &c.block, &row_pc, &more, next, &err) != DW_DLV_OK) {
		print_error(dbg, pc, err);
		return 1;
	}
	if (get_reg(fde, REG_RBP, pc, &f, &err) != DW_DLV_OK ||
	    get_reg(fde, REG_RIP, pc, &a, &err) != DW_DLV_OK) {
		print_error(dbg, pc, err);
		return more ? 0 : 1;
	}
	if (!signal || !format_signal(&c, &f, &a, cfa, fp, ra, sizeof(cfa))) {
		format_cfa(&c, cfa, sizeof(cfa));
		format_fp(&f, fp, sizeof(fp));
		format_ra(&a, ra, sizeof(ra));
	}
	printf("0x%" PRIx64 " %s %s %s\n", (uint64_t)pc, cfa, fp, ra);
	return more ? 0 : 1;
}

static void print_fde(Dwarf_Debug dbg, Dwarf_Fde fde, const char *section)
{
	Dwarf_Unsigned len, fde_len;
	Dwarf_Addr low, pc, next;
	Dwarf_Ptr bytes;
	Dwarf_Off cie_off, fde_off;
	Dwarf_Signed cie_index;
	Dwarf_Error err = NULL;
	bool signal;

	if (dwarf_get_fde_range(fde, &low, &len, &bytes, &fde_len, &cie_off, &cie_index, &fde_off,
				&err) != DW_DLV_OK) {
		print_error(dbg, 0, err);
		return;
	}
	printf("fde %s 0x%" PRIx64 " 0x%" PRIx64 "\n", section, (uint64_t)low,
	       (uint64_t)(low + len));
	signal = is_signal_fde(dbg, fde);
	pc = low;
	for (int i = 0; i < MAX_ROWS_PER_FDE && pc < low + len; i++) {
		next = pc;
		if (print_row(dbg, fde, signal, pc, &next) || next <= pc)
			break;
		pc = next;
	}
}

static int print_section(Dwarf_Debug dbg, bool eh)
{
	const char *section = eh ? ".eh_frame" : ".debug_frame";
	Dwarf_Cie *cies = NULL;
	Dwarf_Fde *fdes = NULL;
	Dwarf_Signed nr_cies = 0, nr_fdes = 0;
	Dwarf_Error err = NULL;
	int res;

	if (eh)
		res = dwarf_get_fde_list_eh(dbg, &cies, &nr_cies, &fdes, &nr_fdes, &err);
	else
		res = dwarf_get_fde_list(dbg, &cies, &nr_cies, &fdes, &nr_fdes, &err);
	if (res == DW_DLV_NO_ENTRY)
		return 0;
	if (res != DW_DLV_OK) {
		fprintf(stderr, "dwarf_oracle: %s: %s\n", section, dwarf_errmsg(err));
		dwarf_dealloc(dbg, err, DW_DLA_ERROR);
		return -EINVAL;
	}
	for (Dwarf_Signed i = 0; i < nr_fdes; i++)
		print_fde(dbg, fdes[i], section);
	dwarf_fde_cie_list_dealloc(dbg, cies, nr_cies, fdes, nr_fdes);
	return 0;
}

int main(int argc, char **argv)
{
	bool eh = false, debug = false;
	Dwarf_Debug dbg = NULL;
	Dwarf_Error err = NULL;
	const char *path = NULL;
	int fd = -1, res, ret = 1;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--eh-frame") == 0)
			eh = true;
		else if (strcmp(argv[i], "--debug-frame") == 0)
			debug = true;
		else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: dwarf_oracle [--eh-frame] [--debug-frame] FILE\n");
		return 64;
	}
	if (!eh && !debug)
		debug = true;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "dwarf_oracle: %s: %s\n", path, strerror(errno));
		return 1;
	}
	res = dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &dbg, &err);
	if (res == DW_DLV_NO_ENTRY) {
		/* No DWARF section at all: no FDE to print. */
		ret = 0;
		goto cleanup;
	}
	if (res != DW_DLV_OK) {
		fprintf(stderr, "dwarf_oracle: %s: %s\n", path, dwarf_errmsg(err));
		goto cleanup;
	}
	/* Registers without a rule keep their value (callee-saved on x86_64). */
	dwarf_set_frame_rule_initial_value(dbg, DW_FRAME_SAME_VAL);
	dwarf_set_frame_same_value(dbg, DW_FRAME_SAME_VAL);
	dwarf_set_frame_undefined_value(dbg, DW_FRAME_UNDEFINED_VAL);
	dwarf_set_frame_cfa_value(dbg, DW_FRAME_CFA_COL3);
	dwarf_set_frame_rule_table_size(dbg, 66);
	if ((eh && print_section(dbg, true)) || (debug && print_section(dbg, false)))
		goto cleanup;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "dwarf_oracle: writing the output failed\n");
		goto cleanup;
	}
	ret = 0;
cleanup:
	if (dbg)
		dwarf_finish(dbg, &err);
	close(fd);
	return ret;
}
