// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CFI parser and interpreter (core/unwind/cfi.c) on hand-made .eh_frame /
 * .debug_frame bytes: every instruction, every pointer encoding, both entry
 * formats, both sections' layouts, and malformed input that must give an
 * error, not a crash.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/unwind/cfi.h"
#include "core/util/common.h"
#include "core/util/log.h"
#include "dwarf_builder.h"
#include "test.h"

/* x86_64 .eh_frame CIE "zR", pcrel|sdata4, code 1, data -8, ra 16: CFA rsp+8, ra at cfa-8. */
static size_t eh_cie(struct sec *s)
{
	size_t at = entry_begin(s, false);

	put32(s, 0);
	put8(s, 1);
	put(s, "zR", 3);
	uleb(s, 1);
	sleb(s, -8);
	put8(s, 16);
	uleb(s, 1);
	put8(s, 0x1b);
	put(s, BYTES(0x0c, 7, 8, 0x90, 1));
	entry_end(s, at, false);
	return at;
}

/* An .eh_frame FDE of the "zR" CIE at cie for [lo, lo + len). */
static size_t eh_fde(struct sec *s, size_t cie, uint64_t lo, uint32_t len, const uint8_t *insns,
		     size_t n)
{
	size_t at = entry_begin(s, false);

	put32(s, (uint32_t)(s->n - cie));
	put32(s, (uint32_t)(lo - (SEC_ADDR + s->n)));
	put32(s, len);
	uleb(s, 0);
	put(s, insns, n);
	entry_end(s, at, false);
	return at;
}

static struct cfi_section section(const struct sec *s, bool eh, int machine)
{
	return (struct cfi_section){
		.file = "test",
		.data = s->d,
		.size = s->n,
		.addr = SEC_ADDR,
		.eh_frame = eh,
		.machine = machine,
	};
}

/* ---- recording the rows ---- */

struct rec {
	uint64_t start, end;
	struct cfi_state st;
};

struct recs {
	struct rec r[64];
	size_t n;
};

static int record(void *ctx, uint64_t start, uint64_t end, const struct cfi_state *st)
{
	struct recs *rs = ctx;

	if (rs->n < ARRAY_SIZE(rs->r))
		rs->r[rs->n++] = (struct rec){ start, end, *st };
	return 0;
}

/* Parses s and runs its first FDE into rs. Returns the run's result, or -1 when parsing fails. */
static int run_first(const struct sec *s, bool eh, int machine, struct recs *rs, size_t *nr_bad)
{
	struct cfi_section cs = section(s, eh, machine);
	struct cfi *cfi = cfi__parse(&cs);
	int err;

	memset(rs, 0, sizeof(*rs));
	if (!cfi)
		return -1;
	err = cfi->nr_fdes ? cfi__run_fde(cfi, &cfi->fdes[0], record, rs) : -ENOENT;
	if (nr_bad)
		*nr_bad = cfi->nr_bad;
	cfi__free(cfi);
	return err;
}

/* A section with the standard CIE and one FDE at 0x1000 of 0x100 bytes running insns. */
static int run_insns(const uint8_t *insns, size_t n, struct recs *rs)
{
	struct sec s = { 0 };
	size_t cie = eh_cie(&s);

	eh_fde(&s, cie, 0x1000, 0x100, insns, n);
	return run_first(&s, true, EM_X86_64, rs, NULL);
}

/* ---- tests ---- */

static void test_basic(void)
{
	struct sec s = { 0 };
	struct cfi_section cs;
	struct cfi *cfi;
	size_t cie = eh_cie(&s);

	eh_fde(&s, cie, 0x1000, 0x40, BYTES(0x41, 0x0e, 16, 0x86, 2));
	put32(&s, 0); /* terminator; what follows is ignored */
	put32(&s, 0xdeadbeef);
	cs = section(&s, true, EM_X86_64);
	cfi = cfi__parse(&cs);
	CHECK(cfi != NULL);
	if (!cfi)
		return;
	CHECK_EQ_INT(cfi->nr_cies, 1);
	CHECK_EQ_INT(cfi->nr_fdes, 1);
	CHECK_EQ_INT(cfi->nr_bad, 0);
	CHECK_EQ_INT(cfi->cies[0].code_align, 1);
	CHECK_EQ_INT(cfi->cies[0].data_align, -8);
	CHECK_EQ_INT(cfi->cies[0].ra_reg, 16);
	CHECK_EQ_INT(cfi->cies[0].init.cfa.kind, CFI_CFA_REG);
	CHECK_EQ_INT(cfi->cies[0].init.cfa.reg, 7);
	CHECK_EQ_INT(cfi->cies[0].init.cfa.off, 8);
	CHECK_EQ_INT(cfi->cies[0].init.ra.kind, CFI_RULE_OFFSET);
	CHECK_EQ_INT(cfi->cies[0].init.ra.off, -8);
	CHECK_EQ_INT(cfi->fdes[0].lo, 0x1000);
	CHECK_EQ_INT(cfi->fdes[0].hi, 0x1040);
	cfi__free(cfi);
}

static void test_advance(void)
{
	struct recs rs;

	/* advance_loc 1; def_cfa_offset 16; advance_loc1 2; def_cfa_offset 24;
	 * advance_loc2 0x10; def_cfa_offset 32; advance_loc4 0x20; def_cfa_offset 40;
	 * set_loc 0x1080 (pcrel sdata4, from the CIE's 'R'); def_cfa_offset 48 */
	struct sec s = { 0 };
	size_t cie = eh_cie(&s), at, setloc;

	at = entry_begin(&s, false);
	put32(&s, (uint32_t)(s.n - cie));
	put32(&s, (uint32_t)(0x1000 - (SEC_ADDR + s.n)));
	put32(&s, 0x100);
	uleb(&s, 0);
	put(&s, BYTES(0x41, 0x0e, 16, 0x02, 2, 0x0e, 24, 0x03, 0x10, 0, 0x0e, 32, 0x04, 0x20, 0, 0,
		      0, 0x0e, 40, 0x01));
	setloc = s.n;
	put32(&s, (uint32_t)(0x1080 - (SEC_ADDR + setloc)));
	put(&s, BYTES(0x0e, 48));
	entry_end(&s, at, false);
	CHECK_EQ_INT(run_first(&s, true, EM_X86_64, &rs, NULL), 0);
	CHECK_EQ_INT(rs.n, 6);
	CHECK_EQ_INT(rs.r[0].start, 0x1000);
	CHECK_EQ_INT(rs.r[0].end, 0x1001);
	CHECK_EQ_INT(rs.r[0].st.cfa.off, 8);
	CHECK_EQ_INT(rs.r[1].start, 0x1001);
	CHECK_EQ_INT(rs.r[1].st.cfa.off, 16);
	CHECK_EQ_INT(rs.r[2].start, 0x1003);
	CHECK_EQ_INT(rs.r[2].st.cfa.off, 24);
	CHECK_EQ_INT(rs.r[3].start, 0x1013);
	CHECK_EQ_INT(rs.r[3].st.cfa.off, 32);
	CHECK_EQ_INT(rs.r[4].start, 0x1033);
	CHECK_EQ_INT(rs.r[4].end, 0x1080);
	CHECK_EQ_INT(rs.r[4].st.cfa.off, 40);
	CHECK_EQ_INT(rs.r[5].start, 0x1080);
	CHECK_EQ_INT(rs.r[5].end, 0x1100);
	CHECK_EQ_INT(rs.r[5].st.cfa.off, 48);
}

static void test_advance_untracked(void)
{
	struct recs rs;

	/* rules of untracked registers (rbx) change nothing: one range */
	CHECK_EQ_INT(run_insns(BYTES(0x41, 0x83, 2, 0x41, 0xc3, 0x41, 0x08, 3), &rs), 0);
	CHECK_EQ_INT(rs.n, 1);
	CHECK_EQ_INT(rs.r[0].start, 0x1000);
	CHECK_EQ_INT(rs.r[0].end, 0x1100);
	/* DW_CFA_MIPS_advance_loc8 */
	CHECK_EQ_INT(run_insns(BYTES(0x1d, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x0e, 16), &rs), 0);
	CHECK_EQ_INT(rs.n, 2);
	CHECK_EQ_INT(rs.r[1].start, 0x1010);
	CHECK_EQ_INT(rs.r[1].st.cfa.off, 16);
	/* nothing at or past the end of the range is reported */
	CHECK_EQ_INT(run_insns(BYTES(0x04, 0x00, 0x01, 0, 0, 0x0e, 16), &rs), 0);
	CHECK_EQ_INT(rs.n, 1);
	CHECK_EQ_INT(rs.r[0].st.cfa.off, 8);
}

static void test_cfa_rules(void)
{
	struct recs rs;

	/* def_cfa rbp 16 */
	CHECK_EQ_INT(run_insns(BYTES(0x0c, 6, 16), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.cfa.reg, 6);
	CHECK_EQ_INT(rs.r[0].st.cfa.off, 16);
	/* def_cfa_register rbp keeps the offset */
	CHECK_EQ_INT(run_insns(BYTES(0x0e, 16, 0x0d, 6), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.cfa.reg, 6);
	CHECK_EQ_INT(rs.r[0].st.cfa.off, 16);
	/* def_cfa_sf rsp, -3 * -8 = 24 */
	CHECK_EQ_INT(run_insns(BYTES(0x12, 7, 0x7d), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.cfa.reg, 7);
	CHECK_EQ_INT(rs.r[0].st.cfa.off, 24);
	/* def_cfa_offset_sf -4 * -8 = 32 */
	CHECK_EQ_INT(run_insns(BYTES(0x13, 0x7c), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.cfa.off, 32);
	/* def_cfa_offset of 33360 and 195680: multi-byte ULEB, exact */
	CHECK_EQ_INT(run_insns(BYTES(0x0e, 0xd0, 0x84, 0x02), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.cfa.off, 33360);
	CHECK_EQ_INT(run_insns(BYTES(0x0e, 0xe0, 0xf8, 0x0b), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.cfa.off, 195680);
	/* def_cfa_expression: breg7 8; deref */
	CHECK_EQ_INT(run_insns(BYTES(0x0f, 3, 0x77, 8, 0x06), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.cfa.kind, CFI_CFA_EXPR);
	CHECK_EQ_INT(rs.r[0].st.cfa.expr_len, 3);
	CHECK(rs.r[0].st.cfa.expr && rs.r[0].st.cfa.expr[0] == 0x77);
}

static void test_register_rules(void)
{
	struct recs rs;

	/* offset rbp 2 -> cfa-16 */
	CHECK_EQ_INT(run_insns(BYTES(0x86, 2), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.fp.kind, CFI_RULE_OFFSET);
	CHECK_EQ_INT(rs.r[0].st.fp.off, -16);
	/* offset_extended rbp 3 */
	CHECK_EQ_INT(run_insns(BYTES(0x05, 6, 3), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.fp.off, -24);
	/* offset_extended_sf rbp -5 -> +40 */
	CHECK_EQ_INT(run_insns(BYTES(0x11, 6, 0x7b), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.fp.kind, CFI_RULE_OFFSET);
	CHECK_EQ_INT(rs.r[0].st.fp.off, 40);
	/* GNU_negative_offset_extended rbp 2 -> +16 */
	CHECK_EQ_INT(run_insns(BYTES(0x2f, 6, 2), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.fp.kind, CFI_RULE_OFFSET);
	CHECK_EQ_INT(rs.r[0].st.fp.off, 16);
	/* val_offset, val_offset_sf */
	CHECK_EQ_INT(run_insns(BYTES(0x14, 6, 1), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.fp.kind, CFI_RULE_VAL_OFFSET);
	CHECK_EQ_INT(rs.r[0].st.fp.off, -8);
	CHECK_EQ_INT(run_insns(BYTES(0x15, 6, 0x7f), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.fp.kind, CFI_RULE_VAL_OFFSET);
	CHECK_EQ_INT(rs.r[0].st.fp.off, 8);
	/* undefined, same_value, register */
	CHECK_EQ_INT(run_insns(BYTES(0x07, 16), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.ra.kind, CFI_RULE_UNDEFINED);
	CHECK_EQ_INT(run_insns(BYTES(0x08, 6), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.fp.kind, CFI_RULE_SAME_VALUE);
	CHECK_EQ_INT(run_insns(BYTES(0x09, 6, 3), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.fp.kind, CFI_RULE_REGISTER);
	CHECK_EQ_INT(rs.r[0].st.fp.off, 3);
	/* expression, val_expression: breg6 0 */
	CHECK_EQ_INT(run_insns(BYTES(0x10, 6, 2, 0x76, 0), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.fp.kind, CFI_RULE_EXPRESSION);
	CHECK_EQ_INT(rs.r[0].st.fp.expr_len, 2);
	CHECK_EQ_INT(run_insns(BYTES(0x16, 6, 2, 0x76, 0), &rs), 0);
	CHECK_EQ_INT(rs.r[0].st.fp.kind, CFI_RULE_VAL_EXPRESSION);
	/* restore and restore_extended go back to the CIE's rule */
	CHECK_EQ_INT(run_insns(BYTES(0x86, 2, 0x90, 3, 0x41, 0xc6, 0xd0), &rs), 0);
	CHECK_EQ_INT(rs.n, 2);
	CHECK_EQ_INT(rs.r[0].st.ra.off, -24);
	CHECK_EQ_INT(rs.r[1].st.fp.kind, CFI_RULE_UNCHANGED);
	CHECK_EQ_INT(rs.r[1].st.ra.kind, CFI_RULE_OFFSET);
	CHECK_EQ_INT(rs.r[1].st.ra.off, -8);
	CHECK_EQ_INT(run_insns(BYTES(0x86, 2, 0x41, 0x06, 6), &rs), 0);
	CHECK_EQ_INT(rs.n, 2);
	CHECK_EQ_INT(rs.r[1].st.fp.kind, CFI_RULE_UNCHANGED);
	/* nop and GNU_args_size change nothing */
	CHECK_EQ_INT(run_insns(BYTES(0x00, 0x2e, 0x80, 0x01, 0x00), &rs), 0);
	CHECK_EQ_INT(rs.n, 1);
	CHECK_EQ_INT(rs.r[0].st.cfa.off, 8);
}

static void test_remember_restore(void)
{
	struct recs rs;

	/* push rbp; mov rbp,rsp; remember; epilogue: def_cfa rsp 8; restore_state */
	CHECK_EQ_INT(run_insns(BYTES(0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0x48, 0x0a, 0x0c, 7, 8,
				     0x41, 0x0b),
			       &rs),
		     0);
	CHECK_EQ_INT(rs.n, 5);
	CHECK_EQ_INT(rs.r[2].start, 0x1004);
	CHECK_EQ_INT(rs.r[2].st.cfa.reg, 6);
	CHECK_EQ_INT(rs.r[3].start, 0x100c);
	CHECK_EQ_INT(rs.r[3].st.cfa.reg, 7);
	CHECK_EQ_INT(rs.r[3].st.cfa.off, 8);
	CHECK_EQ_INT(rs.r[4].start, 0x100d);
	CHECK_EQ_INT(rs.r[4].st.cfa.reg, 6);
	CHECK_EQ_INT(rs.r[4].st.cfa.off, 16);
	CHECK_EQ_INT(rs.r[4].st.fp.off, -16);
}

static void test_aarch64(void)
{
	struct sec s = { 0 };
	struct recs rs;
	size_t at;

	/* CIE "zR" code 4, data -8, ra 30, def_cfa sp 0 */
	at = entry_begin(&s, false);
	put32(&s, 0);
	put8(&s, 1);
	put(&s, "zR", 3);
	uleb(&s, 4);
	sleb(&s, -8);
	put8(&s, 30);
	uleb(&s, 1);
	put8(&s, 0x1b);
	put(&s, BYTES(0x0c, 31, 0));
	entry_end(&s, at, false);
	/* negate_ra_state; advance 1 (4 bytes); def_cfa_offset 16; offset x29 2; offset x30 1 */
	eh_fde(&s, 0, 0x1000, 0x20, BYTES(0x2d, 0x41, 0x0e, 16, 0x9d, 2, 0x9e, 1));
	CHECK_EQ_INT(run_first(&s, true, EM_AARCH64, &rs, NULL), 0);
	CHECK_EQ_INT(rs.n, 2);
	CHECK_EQ_INT(rs.r[0].end, 0x1004);
	CHECK(rs.r[0].st.ra_signed);
	CHECK_EQ_INT(rs.r[0].st.ra.kind, CFI_RULE_UNCHANGED);
	CHECK_EQ_INT(rs.r[1].st.cfa.reg, 31);
	CHECK_EQ_INT(rs.r[1].st.cfa.off, 16);
	CHECK_EQ_INT(rs.r[1].st.fp.off, -16);
	CHECK_EQ_INT(rs.r[1].st.ra.off, -8);
	/* 0x2d means nothing on x86_64 */
	CHECK_EQ_INT(run_insns(BYTES(0x2d), &rs), -EINVAL);
}

static void test_pointer_encodings(void)
{
	static const uint8_t buf[] = {
		0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, /* 8 bytes */
		0xe5, 0x8e, 0x26,				/* uleb 624485, sleb -... */
		0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	struct cfi_section cs = { .addr = 0x5000, .text_base = 0x10000, .data_base = 0x20000 };
	struct cfi_ptr_ctx pc = { .sec = &cs, .base = 0x5000, .func = 0x7000, .addr_size = 8 };
	const uint8_t *p;
	uint64_t v;

#define READ(off, enc, want, used)                                                          \
	do {                                                                                \
		p = buf + (off);                                                            \
		CHECK_EQ_INT(cfi__read_ptr(&pc, buf, &p, buf + sizeof(buf), (enc), &v), 0); \
		CHECK_EQ_INT(v, (uint64_t)(want));                                          \
		CHECK_EQ_INT(p - buf, (off) + (used));                                      \
	} while (0)

	READ(0, 0x00, 0xfedcba9876543210ull, 8);     /* absptr */
	READ(8, 0x01, 624485, 3);		     /* uleb128 */
	READ(0, 0x02, 0x3210, 2);		     /* udata2 */
	READ(0, 0x03, 0x76543210, 4);		     /* udata4 */
	READ(0, 0x04, 0xfedcba9876543210ull, 8);     /* udata8 */
	READ(8, 0x09, 624485, 3);		     /* sleb128 */
	READ(11, 0x0a, -2, 2);			     /* sdata2 */
	READ(11, 0x0b, -2, 4);			     /* sdata4 */
	READ(11, 0x0c, -2, 8);			     /* sdata8 */
	READ(11, 0x1b, 0x5000 + 11 - 2, 4);	     /* pcrel sdata4 */
	READ(11, 0x2b, 0x10000 - 2, 4);		     /* textrel */
	READ(11, 0x3b, 0x20000 - 2, 4);		     /* datarel */
	READ(11, 0x4b, 0x7000 - 2, 4);		     /* funcrel */
	READ(1, 0x50, 0xfffffffffe268ee5ull, 7 + 8); /* aligned: to 0x5008 */
#undef READ
	/* omit, unknown formats and applications, truncated values */
	p = buf;
	CHECK_EQ_INT(cfi__read_ptr(&pc, buf, &p, buf + sizeof(buf), 0xff, &v), -EINVAL);
	CHECK_EQ_INT(cfi__read_ptr(&pc, buf, &p, buf + sizeof(buf), 0x05, &v), -EINVAL);
	CHECK_EQ_INT(cfi__read_ptr(&pc, buf, &p, buf + sizeof(buf), 0x60, &v), -EINVAL);
	CHECK_EQ_INT(cfi__read_ptr(&pc, buf, &p, buf + 3, 0x03, &v), -EINVAL);
	CHECK(p == buf);
	/* textrel and datarel without a base, indirect without a reader */
	cs.text_base = cs.data_base = 0;
	CHECK_EQ_INT(cfi__read_ptr(&pc, buf, &p, buf + sizeof(buf), 0x23, &v), -EINVAL);
	CHECK_EQ_INT(cfi__read_ptr(&pc, buf, &p, buf + sizeof(buf), 0x33, &v), -EINVAL);
	CHECK_EQ_INT(cfi__read_ptr(&pc, buf, &p, buf + sizeof(buf), 0x9b, &v), -EINVAL);
	/* 4-byte addresses wrap */
	pc.addr_size = 4;
	CHECK_EQ_INT(cfi__read_ptr(&pc, buf, &p, buf + sizeof(buf), 0x00, &v), 0);
	CHECK_EQ_INT(v, 0x76543210);
}

static uint64_t indirect_target;

static int read_ptr_at(void *ctx, uint64_t vaddr, uint64_t *val)
{
	(void)ctx;
	if (vaddr != 0x5000 + 11 - 2)
		return -ENOENT;
	*val = indirect_target;
	return 0;
}

static void test_indirect(void)
{
	static const uint8_t buf[16] = { [11] = 0xfe, 0xff, 0xff, 0xff };
	struct cfi_section cs = { .addr = 0x5000, .read_ptr = read_ptr_at };
	struct cfi_ptr_ctx pc = { .sec = &cs, .base = 0x5000, .addr_size = 8 };
	const uint8_t *p = buf + 11;
	uint64_t v;

	indirect_target = 0x123456;
	CHECK_EQ_INT(cfi__read_ptr(&pc, buf, &p, buf + sizeof(buf), 0x9b, &v), 0);
	CHECK_EQ_INT(v, 0x123456);
	p = buf + 11;
	CHECK_EQ_INT(cfi__read_ptr(&pc, buf, &p, buf + sizeof(buf), 0x8b, &v), -EINVAL);
}

static int read_ptr_any(void *ctx, uint64_t vaddr, uint64_t *val)
{
	(void)ctx;
	*val = vaddr == SEC_ADDR + 0x100 ? 0x5000 : 0;
	return 0;
}

/* An FDE whose pc_begin is indirect: resolved through the file, or skipped. */
static void test_fde_indirect(void)
{
	struct sec s = { 0 };
	struct cfi_section cs;
	struct cfi *cfi;
	size_t at;

	at = entry_begin(&s, false);
	put32(&s, 0);
	put8(&s, 1);
	put(&s, "zR", 3);
	uleb(&s, 1);
	sleb(&s, -8);
	put8(&s, 16);
	uleb(&s, 1);
	put8(&s, 0x9b);
	entry_end(&s, at, false);
	at = entry_begin(&s, false);
	put32(&s, (uint32_t)s.n);
	put32(&s, (uint32_t)(SEC_ADDR + 0x100 - (SEC_ADDR + s.n)));
	put32(&s, 0x10);
	uleb(&s, 0);
	entry_end(&s, at, false);
	cs = section(&s, true, EM_X86_64);
	cs.read_ptr = read_ptr_any;
	cfi = cfi__parse(&cs);
	CHECK(cfi && cfi->nr_fdes == 1 && cfi->fdes[0].lo == 0x5000 && cfi->fdes[0].hi == 0x5010);
	cfi__free(cfi);
	cs.read_ptr = NULL;
	cfi = cfi__parse(&cs);
	CHECK(cfi && cfi->nr_fdes == 0 && cfi->nr_bad == 1);
	cfi__free(cfi);
}

/* FDEs with other encodings through a "zR" CIE with the given encoding. */
static void test_fde_encodings(void)
{
	static const uint8_t encs[] = { 0x00, 0x03, 0x04, 0x0c, 0x1b, 0x1c, 0x01, 0x09, 0x02 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(encs); i++) {
		struct sec s = { 0 };
		struct cfi_section cs;
		struct cfi *cfi;
		size_t at, field;
		uint8_t enc = encs[i];
		uint64_t lo = enc == 0x02 ? 0x1000 : 0x401000, v;

		at = entry_begin(&s, false);
		put32(&s, 0);
		put8(&s, 1);
		put(&s, "zR", 3);
		uleb(&s, 1);
		sleb(&s, -8);
		put8(&s, 16);
		uleb(&s, 1);
		put8(&s, enc);
		put(&s, BYTES(0x0c, 7, 8, 0x90, 1));
		entry_end(&s, at, false);
		at = entry_begin(&s, false);
		put32(&s, (uint32_t)(s.n - 0));
		field = s.n;
		v = enc & 0x10 ? lo - (SEC_ADDR + field) : lo;
		switch (enc & 0x0f) {
		case 0x00:
		case 0x04:
		case 0x0c:
			put64(&s, v);
			put64(&s, 0x30);
			break;
		case 0x03:
		case 0x0b:
			put32(&s, (uint32_t)v);
			put32(&s, 0x30);
			break;
		case 0x02:
			put16(&s, (uint16_t)v);
			put16(&s, 0x30);
			break;
		case 0x01:
			uleb(&s, v);
			uleb(&s, 0x30);
			break;
		case 0x09:
			sleb(&s, (int64_t)v);
			sleb(&s, 0x30);
			break;
		}
		uleb(&s, 0);
		entry_end(&s, at, false);
		cs = section(&s, true, EM_X86_64);
		cfi = cfi__parse(&cs);
		CHECK(cfi != NULL);
		if (!cfi)
			continue;
		CHECK_EQ_INT(cfi->nr_fdes, 1);
		if (cfi->nr_fdes) {
			CHECK_EQ_INT(cfi->fdes[0].lo, lo);
			CHECK_EQ_INT(cfi->fdes[0].hi, lo + 0x30);
		}
		cfi__free(cfi);
	}
}

/* CIE "zPLR" with an indirect personality, FDE with an LSDA pointer; "zRS"; old "eh". */
static void test_augmentations(void)
{
	struct sec s = { 0 };
	struct cfi_section cs;
	struct cfi *cfi;
	size_t at, cie1, cie2, cie3;

	cie1 = at = entry_begin(&s, false);
	put32(&s, 0);
	put8(&s, 1);
	put(&s, "zPLR", 5);
	uleb(&s, 1);
	sleb(&s, -8);
	put8(&s, 16);
	uleb(&s, 7);
	put8(&s, 0x9b); /* indirect pcrel sdata4: skipped, not dereferenced */
	put32(&s, 0x1234);
	put8(&s, 0x1b);
	put8(&s, 0x1b);
	put(&s, BYTES(0x0c, 7, 8, 0x90, 1));
	entry_end(&s, at, false);
	at = entry_begin(&s, false);
	put32(&s, (uint32_t)(s.n - cie1));
	put32(&s, (uint32_t)(0x1000 - (SEC_ADDR + s.n)));
	put32(&s, 0x10);
	uleb(&s, 4);
	put32(&s, 0x99); /* LSDA */
	put(&s, BYTES(0x41, 0x0e, 16));
	entry_end(&s, at, false);

	cie2 = at = entry_begin(&s, false);
	put32(&s, 0);
	put8(&s, 3); /* version 3: ULEB return-address column */
	put(&s, "zRS", 4);
	uleb(&s, 1);
	sleb(&s, -8);
	uleb(&s, 16);
	uleb(&s, 1);
	put8(&s, 0x1b);
	put(&s, BYTES(0x0c, 7, 8, 0x90, 1));
	entry_end(&s, at, false);
	eh_fde(&s, cie2, 0x2000, 0x10, BYTES(0));

	cie3 = at = entry_begin(&s, false);
	put32(&s, 0);
	put8(&s, 1);
	put(&s, "eh", 3);
	put64(&s, 0xabcdef); /* the EH data pointer of old GCC */
	uleb(&s, 1);
	sleb(&s, -8);
	put8(&s, 16);
	put(&s, BYTES(0x0c, 7, 8, 0x90, 1));
	entry_end(&s, at, false);
	at = entry_begin(&s, false);
	put32(&s, (uint32_t)(s.n - cie3));
	put64(&s, 0x3000); /* absptr: no 'R' */
	put64(&s, 0x10);
	put(&s, BYTES(0x41, 0x0e, 16));
	entry_end(&s, at, false);

	cs = section(&s, true, EM_X86_64);
	cfi = cfi__parse(&cs);
	CHECK(cfi != NULL);
	if (!cfi)
		return;
	CHECK_EQ_INT(cfi->nr_cies, 3);
	CHECK_EQ_INT(cfi->nr_fdes, 3);
	CHECK_EQ_INT(cfi->nr_bad, 0);
	CHECK(cfi->cies[0].err == NULL);
	CHECK(cfi->cies[1].signal_frame);
	CHECK_EQ_INT(cfi->fdes[0].lo, 0x1000);
	CHECK_EQ_INT(cfi->fdes[0].insns_len, 3);
	CHECK_EQ_INT(cfi->fdes[1].lo, 0x2000);
	CHECK_EQ_INT(cfi->fdes[2].lo, 0x3000);
	CHECK_EQ_INT(cfi->fdes[2].hi, 0x3010);
	cfi__free(cfi);
}

/* aarch64 'B' and 'G', and an unknown letter after 'z' (skipped with its data). */
static void test_augmentation_letters(void)
{
	static const char *const augs[] = { "zRB", "zRG", "zRX" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(augs); i++) {
		struct sec s = { 0 };
		struct recs rs;
		size_t at = entry_begin(&s, false);

		put32(&s, 0);
		put8(&s, 1);
		put(&s, augs[i], 4);
		uleb(&s, 4);
		sleb(&s, -8);
		put8(&s, 30);
		uleb(&s, 2);
		put8(&s, 0x1b);
		put8(&s, 0x55); /* the unknown letter's data */
		put(&s, BYTES(0x0c, 31, 0));
		entry_end(&s, at, false);
		eh_fde(&s, 0, 0x1000, 0x10, BYTES(0));
		CHECK_EQ_INT(run_first(&s, true, EM_AARCH64, &rs, NULL), 0);
		CHECK_EQ_INT(rs.n, 1);
		CHECK_EQ_INT(rs.r[0].st.cfa.reg, 31);
	}
}

/* 64-bit entries in .eh_frame and .debug_frame. */
static void test_dwarf64(void)
{
	struct sec s = { 0 };
	struct recs rs;
	size_t at;

	at = entry_begin(&s, true);
	put64(&s, 0);
	put8(&s, 1);
	put(&s, "zR", 3);
	uleb(&s, 1);
	sleb(&s, -8);
	put8(&s, 16);
	uleb(&s, 1);
	put8(&s, 0x1b);
	put(&s, BYTES(0x0c, 7, 8, 0x90, 1));
	entry_end(&s, at, true);
	at = entry_begin(&s, true);
	put64(&s, s.n); /* back to offset 0 */
	put32(&s, (uint32_t)(0x1000 - (SEC_ADDR + s.n)));
	put32(&s, 0x20);
	uleb(&s, 0);
	put(&s, BYTES(0x41, 0x0e, 16));
	entry_end(&s, at, true);
	CHECK_EQ_INT(run_first(&s, true, EM_X86_64, &rs, NULL), 0);
	CHECK_EQ_INT(rs.n, 2);
	CHECK_EQ_INT(rs.r[1].start, 0x1001);
	CHECK_EQ_INT(rs.r[1].end, 0x1020);
	CHECK_EQ_INT(rs.r[1].st.cfa.off, 16);

	/* .debug_frame, DWARF64: CIE id ~0, CIE pointer an absolute offset */
	memset(&s, 0, sizeof(s));
	at = entry_begin(&s, true);
	put64(&s, ~0ull);
	put8(&s, 4);
	put8(&s, 0); /* augmentation "" */
	put8(&s, 8); /* address size */
	put8(&s, 0); /* segment selector size */
	uleb(&s, 1);
	sleb(&s, -8);
	uleb(&s, 16);
	put(&s, BYTES(0x0c, 7, 8, 0x90, 1));
	entry_end(&s, at, true);
	at = entry_begin(&s, true);
	put64(&s, 0);
	put64(&s, 0x1000);
	put64(&s, 0x20);
	put(&s, BYTES(0x41, 0x0e, 16));
	entry_end(&s, at, true);
	CHECK_EQ_INT(run_first(&s, false, EM_X86_64, &rs, NULL), 0);
	CHECK_EQ_INT(rs.n, 2);
	CHECK_EQ_INT(rs.r[1].st.cfa.off, 16);
}

/* .debug_frame: CIE versions 1 to 5, CIE after its FDE, zero padding. */
static void test_debug_frame(void)
{
	static const uint8_t versions[] = { 1, 2, 3, 4, 5 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(versions); i++) {
		struct sec s = { 0 };
		struct recs rs;
		size_t at, fde;

		fde = entry_begin(&s, false);
		put32(&s, 0); /* CIE pointer, patched below */
		put64(&s, 0x1000);
		put64(&s, 0x20);
		put(&s, BYTES(0x41, 0x0e, 16));
		entry_end(&s, fde, false);
		put32(&s, 0); /* zero-length padding */
		at = entry_begin(&s, false);
		put32(&s, 0xffffffff);
		put8(&s, versions[i]);
		put8(&s, 0);
		if (versions[i] >= 4) {
			put8(&s, 8);
			put8(&s, 0);
		}
		uleb(&s, 1);
		sleb(&s, -8);
		if (versions[i] == 1)
			put8(&s, 16);
		else
			uleb(&s, 16);
		put(&s, BYTES(0x0c, 7, 8, 0x90, 1));
		entry_end(&s, at, false);
		memcpy(s.d + fde + 4, &(uint32_t){ (uint32_t)at }, 4);
		CHECK_EQ_INT(run_first(&s, false, EM_X86_64, &rs, NULL), 0);
		CHECK_EQ_INT(rs.n, 2);
		CHECK_EQ_INT(rs.r[0].start, 0x1000);
		CHECK_EQ_INT(rs.r[0].st.cfa.off, 8);
		CHECK_EQ_INT(rs.r[1].end, 0x1020);
		CHECK_EQ_INT(rs.r[1].st.cfa.off, 16);
	}
}

/* A section cfi__parse must reject as a whole. */
static void check_parse_fails(const struct sec *s, bool eh)
{
	struct cfi_section cs = section(s, eh, EM_X86_64);
	struct cfi *cfi;

	errno = 0;
	cfi = cfi__parse(&cs);
	CHECK(cfi == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	cfi__free(cfi);
}

static void test_malformed_framing(void)
{
	struct sec s = { 0 };
	size_t cie;

	/* length past the end of the section */
	cie = eh_cie(&s);
	eh_fde(&s, cie, 0x1000, 0x10, BYTES(0));
	memcpy(s.d + 0, &(uint32_t){ 0x1000 }, 4);
	check_parse_fails(&s, true);
	/* truncated length */
	memset(&s, 0, sizeof(s));
	eh_cie(&s);
	put8(&s, 0x10);
	put8(&s, 0x00);
	check_parse_fails(&s, true);
	/* truncated 64-bit length */
	memset(&s, 0, sizeof(s));
	put32(&s, 0xffffffff);
	put32(&s, 0);
	check_parse_fails(&s, false);
	/* reserved length */
	memset(&s, 0, sizeof(s));
	put32(&s, 0xfffffff5);
	put32(&s, 0);
	check_parse_fails(&s, true);
	/* 64-bit length past the end (and overflowing) */
	memset(&s, 0, sizeof(s));
	put32(&s, 0xffffffff);
	put64(&s, ~0ull - 4);
	put32(&s, 0);
	check_parse_fails(&s, true);
}

/* An FDE whose instructions are malformed: skipped and counted, never a crash. */
static void check_bad_insns(const uint8_t *insns, size_t n)
{
	struct sec s = { 0 };
	struct recs rs;
	size_t nr_bad = 0, cie = eh_cie(&s);

	eh_fde(&s, cie, 0x1000, 0x100, insns, n);
	CHECK_EQ_INT(run_first(&s, true, EM_X86_64, &rs, &nr_bad), -EINVAL);
	CHECK_EQ_INT(nr_bad, 1);
}

static void test_malformed_insns(void)
{
	uint8_t deep[CFI_MAX_REMEMBER + 2];

	check_bad_insns(BYTES(0x41, 0x3f));		      /* unknown opcode */
	check_bad_insns(BYTES(0x41, 0x1c));		      /* DW_CFA_lo_user */
	check_bad_insns(BYTES(0x0f, 9, 0x77, 8));	      /* expression past the end */
	check_bad_insns(BYTES(0x10, 6, 0x80, 0x01, 0x76));    /* same, with a long length */
	check_bad_insns(BYTES(0x0b));			      /* restore without remember */
	check_bad_insns(BYTES(0x0c, 0xff, 0xff, 0x7f, 8));    /* absurd register */
	check_bad_insns(BYTES(0x0e, 0x80));		      /* ULEB past the end */
	check_bad_insns(BYTES(0x03, 0x01));		      /* advance_loc2 past the end */
	check_bad_insns(BYTES(0x01, 0x00, 0x00, 0xe0, 0xff)); /* set_loc backwards */
	memset(deep, 0x0a, sizeof(deep));		      /* remember too deep */
	check_bad_insns(deep, sizeof(deep));
}

static void test_malformed_entries(void)
{
	struct sec s = { 0 };
	struct recs rs;
	size_t nr_bad = 0, cie, at, c1, c2, c3;

	/* CIE pointer to nowhere */
	cie = eh_cie(&s);
	at = eh_fde(&s, cie, 0x1000, 0x10, BYTES(0));
	memcpy(s.d + at + 4, &(uint32_t){ 3 }, 4);
	CHECK_EQ_INT(run_first(&s, true, EM_X86_64, &rs, &nr_bad), -ENOENT);
	CHECK_EQ_INT(nr_bad, 1);
	/* CIE pointer before the section */
	memcpy(s.d + at + 4, &(uint32_t){ 0x10000 }, 4);
	CHECK_EQ_INT(run_first(&s, true, EM_X86_64, &rs, &nr_bad), -ENOENT);
	CHECK_EQ_INT(nr_bad, 1);

	/* bad augmentation: every FDE of the CIE is skipped and counted */
	memset(&s, 0, sizeof(s));
	at = entry_begin(&s, false);
	put32(&s, 0);
	put8(&s, 1);
	put(&s, "Q", 2);
	uleb(&s, 1);
	sleb(&s, -8);
	put8(&s, 16);
	entry_end(&s, at, false);
	eh_fde(&s, 0, 0x1000, 0x10, BYTES(0));
	eh_fde(&s, 0, 0x2000, 0x10, BYTES(0));
	CHECK_EQ_INT(run_first(&s, true, EM_X86_64, &rs, &nr_bad), -ENOENT);
	CHECK_EQ_INT(nr_bad, 2);

	/* unsupported version, augmentation data past the end, unterminated string */
	memset(&s, 0, sizeof(s));
	c1 = at = entry_begin(&s, false);
	put32(&s, 0);
	put8(&s, 9);
	put(&s, "zR", 3);
	entry_end(&s, at, false);
	c2 = at = entry_begin(&s, false);
	put32(&s, 0);
	put8(&s, 1);
	put(&s, "zR", 3);
	uleb(&s, 1);
	sleb(&s, -8);
	put8(&s, 16);
	uleb(&s, 50);
	entry_end(&s, at, false);
	c3 = at = entry_begin(&s, false);
	put32(&s, 0);
	put8(&s, 1);
	put(&s, "zR", 2);
	entry_end(&s, at, false);
	eh_fde(&s, c1, 0x1000, 0x10, BYTES(0));
	eh_fde(&s, c2, 0x1000, 0x10, BYTES(0));
	eh_fde(&s, c3, 0x1000, 0x10, BYTES(0));
	CHECK_EQ_INT(run_first(&s, true, EM_X86_64, &rs, &nr_bad), -ENOENT);
	CHECK_EQ_INT(nr_bad, 3);

	/* an entry too short for its id, and a range that overflows */
	memset(&s, 0, sizeof(s));
	cie = eh_cie(&s);
	put32(&s, 2);
	put16(&s, 0);
	at = entry_begin(&s, false);
	put32(&s, (uint32_t)(s.n - cie));
	put32(&s, 0);
	put32(&s, 0xffffffff);
	uleb(&s, 0);
	entry_end(&s, at, false);
	memcpy(s.d + at + 8, &(uint32_t){ (uint32_t)(-(int64_t)(SEC_ADDR + at + 8) - 0x10) }, 4);
	CHECK_EQ_INT(run_first(&s, true, EM_X86_64, &rs, &nr_bad), -ENOENT);
	CHECK_EQ_INT(nr_bad, 2);
}

/* A truncated copy of a good section at every length: an error or a result, never a crash. */
static void test_truncations(void)
{
	struct sec s = { 0 }, t;
	size_t cie = eh_cie(&s), n;

	eh_fde(&s, cie, 0x1000, 0x100,
	       BYTES(0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0x0f, 3, 0x77, 8, 0x06, 0x0a, 0x0b));
	for (n = 0; n <= s.n; n++) {
		struct recs rs;

		t = s;
		t.n = n;
		run_first(&t, true, EM_X86_64, &rs, NULL);
		/* and with the length fields claiming the rest */
		memcpy(t.d + cie, &(uint32_t){ (uint32_t)(n > 4 ? n - 4 : 0) }, 4);
		run_first(&t, true, EM_X86_64, &rs, NULL);
	}
	CHECK(1);
}

int main(void)
{
	log_level = -1;
	RUN(test_basic);
	RUN(test_advance);
	RUN(test_advance_untracked);
	RUN(test_cfa_rules);
	RUN(test_register_rules);
	RUN(test_remember_restore);
	RUN(test_aarch64);
	RUN(test_pointer_encodings);
	RUN(test_indirect);
	RUN(test_fde_indirect);
	RUN(test_fde_encodings);
	RUN(test_augmentations);
	RUN(test_augmentation_letters);
	RUN(test_dwarf64);
	RUN(test_debug_frame);
	RUN(test_malformed_framing);
	RUN(test_malformed_insns);
	RUN(test_malformed_entries);
	RUN(test_truncations);
	return test_summary();
}
