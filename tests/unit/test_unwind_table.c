// SPDX-License-Identifier: GPL-2.0-only
/*
 * The unwind-table builder (core/unwind/unwind_table.c) on hand-made CFI: exact rows
 * for each rule and expression shape, END markers, redundant-row removal, the
 * precedence of .eh_frame over .debug_frame, overlaps, lookups and the text
 * of each rule.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/unwind/cfi.h"
#include "core/util/common.h"
#include "core/elf/elf_file.h"
#include "core/util/log.h"
#include "core/unwind/unwind_dump.h"
#include "core/unwind/unwind_table.h"
#include "dwarf_builder.h"
#include "test.h"

struct fde_spec {
	uint64_t lo;
	uint64_t len;
	const uint8_t *insns;
	size_t n;
	bool signal; /* .eh_frame: under a CIE with the 'S' augmentation */
};

#define FDE(lo, len, ...)                              \
	{                                              \
		(lo), (len), BYTES(__VA_ARGS__), false \
	}

/* An FDE of a signal trampoline: its CIE has 'S'. */
#define SIGNAL_FDE(lo, len, ...)                      \
	{                                             \
		(lo), (len), BYTES(__VA_ARGS__), true \
	}

/*
 * x86_64: CIE code 1, data -8, ra 16, CFA rsp+8, ra at cfa-8.
 * aarch64: CIE code 4, data -8, ra 30, CFA sp+0.
 * signal (.eh_frame only): augmentation "zRS", the CIE of signal frames.
 */
static void cie(struct sec *s, bool eh, int machine, bool signal)
{
	size_t at = entry_begin(s, false);

	put32(s, eh ? 0 : 0xffffffff);
	put8(s, 1);
	if (eh) {
		put(s, signal ? "zRS" : "zR", signal ? 4 : 3);
	} else {
		put8(s, 0);
	}
	put8(s, machine == EM_AARCH64 ? 4 : 1);
	put8(s, 0x78); /* -8 */
	put8(s, machine == EM_AARCH64 ? 30 : 16);
	if (eh) {
		put8(s, 1);
		put8(s, 0x1b);
	}
	if (machine == EM_AARCH64)
		put(s, BYTES(0x0c, 31, 0));
	else
		put(s, BYTES(0x0c, 7, 8, 0x90, 1));
	entry_end(s, at, false);
}

/* A section of one CIE (at offset 0), a signal frame CIE when an FDE needs it, and the FDEs f. */
static void section_build(struct sec *s, bool eh, int machine, const struct fde_spec *f, size_t nr)
{
	size_t i, at, signal_cie = 0;

	memset(s, 0, sizeof(*s));
	cie(s, eh, machine, false);
	for (i = 0; i < nr; i++) {
		if (eh && f[i].signal && !signal_cie) {
			signal_cie = s->n;
			cie(s, eh, machine, true);
		}
	}
	for (i = 0; i < nr; i++) {
		at = entry_begin(s, false);
		if (eh) {
			put32(s, (uint32_t)(s->n - (f[i].signal ? signal_cie : 0)));
			put32(s, (uint32_t)(f[i].lo - (SEC_ADDR + s->n)));
			put32(s, (uint32_t)f[i].len);
			put8(s, 0);
		} else {
			put32(s, 0);
			put64(s, f[i].lo);
			put64(s, f[i].len);
		}
		put(s, f[i].insns, f[i].n);
		entry_end(s, at, false);
	}
}

static struct cfi_section section(const struct sec *s, bool eh, int machine, unsigned int src)
{
	return (struct cfi_section){
		.file = "test",
		.data = s->d,
		.size = s->n,
		.addr = SEC_ADDR,
		.eh_frame = eh,
		.machine = machine,
		.source = src,
	};
}

static struct unwind_table *build(const struct fde_spec *f, size_t nr, int machine)
{
	struct sec s;
	struct cfi_section cs;

	section_build(&s, true, machine, f, nr);
	cs = section(&s, true, machine, TABLE_SRC_EH_FRAME);
	return unwind_table__build_sections(machine, &cs, 1, NULL, 0);
}

/* ---- checking rows ---- */

struct want {
	uint64_t pc; /* absolute */
	const char *cfa, *fp, *ra;
};

static void check_rows_at(const struct unwind_table *t, const struct want *w, size_t n, int line)
{
	char buf[64];
	size_t i;

	CHECK(t != NULL);
	if (!t)
		return;
	if (t->nr_rows != n)
		fprintf(stderr, "line %d: %zu rows, expected %zu\n", line, t->nr_rows, n);
	CHECK_EQ_INT(t->nr_rows, n);
	for (i = 0; i < n && i < t->nr_rows; i++) {
		const struct table_row *r = &t->rows[i];
		int before = test_failures;

		CHECK_EQ_INT(unwind_table__pc(t, r), w[i].pc);
		CHECK_EQ_STR(unwind_dump__cfa_str(r, t->machine, buf, sizeof(buf)), w[i].cfa);
		if (w[i].fp)
			CHECK_EQ_STR(unwind_dump__fp_str(r, t->machine, buf, sizeof(buf)), w[i].fp);
		if (w[i].ra)
			CHECK_EQ_STR(unwind_dump__ra_str(r, t->machine, buf, sizeof(buf)), w[i].ra);
		if (test_failures != before)
			fprintf(stderr, "line %d: row %zu\n", line, i);
	}
}

#define CHECK_ROWS(t, ...)                                                                \
	check_rows_at((t), (const struct want[]){ __VA_ARGS__ },                          \
		      sizeof((const struct want[]){ __VA_ARGS__ }) / sizeof(struct want), \
		      __LINE__)

/* The table of one FDE running insns over [0x1000, 0x1100). */
static struct unwind_table *one(const uint8_t *insns, size_t n)
{
	struct fde_spec f = { 0x1000, 0x100, insns, n, false };

	return build(&f, 1, EM_X86_64);
}

static void check_one_at(const uint8_t *insns, size_t n, const char *cfa, const char *fp,
			 const char *ra, int line)
{
	struct unwind_table *t = one(insns, n);
	const struct want w[] = { { 0x1000, cfa, fp, ra }, { 0x1100, "end", NULL, NULL } };

	check_rows_at(t, w, 2, line);
	unwind_table__free(t);
}

#define CHECK_ONE(insns, cfa, fp, ra) check_one_at(insns, cfa, fp, ra, __LINE__)

/* ---- tests ---- */

static void test_rows_and_ends(void)
{
	const struct fde_spec f[] = {
		FDE(0x1000, 0x10, 0x41, 0x0e, 16), /* rsp+16 from 0x1001 */
		FDE(0x1010, 0x10, 0),		   /* adjacent: no END, rsp+8 */
		FDE(0x1030, 0x10, 0x42, 0x0e, 16), /* after a gap: END at 0x1020 */
	};
	struct unwind_table *t = build(f, 3, EM_X86_64);

	CHECK_ROWS(t, { 0x1000, "rsp+8", "unchanged", "cfa-8" },
		   { 0x1001, "rsp+16", "unchanged", "cfa-8" },
		   { 0x1010, "rsp+8", "unchanged", "cfa-8" }, { 0x1020, "end", NULL, NULL },
		   { 0x1030, "rsp+8", "unchanged", "cfa-8" },
		   { 0x1032, "rsp+16", "unchanged", "cfa-8" }, { 0x1040, "end", NULL, NULL });
	if (t) {
		CHECK_EQ_INT(t->base, 0x1000);
		CHECK_EQ_INT(t->rows[0].pc, 0);
		CHECK_EQ_INT(t->rows[3].pc, 0x20);
		CHECK_EQ_INT(t->nr_fdes, 3);
		CHECK_EQ_INT(t->sources, TABLE_SRC_EH_FRAME);
		CHECK_EQ_INT(t->machine, EM_X86_64);
	}
	unwind_table__free(t);
}

static void test_redundant_rows(void)
{
	const struct fde_spec f[] = {
		/* the same rule set again, and a change to an untracked register */
		FDE(0x1000, 0x10, 0x41, 0x0e, 16, 0x41, 0x0e, 16, 0x41, 0x83, 2, 0x41, 0x0e, 8),
		/* starts with the rule the previous function ended with */
		FDE(0x1010, 0x10, 0x41, 0x0e, 16),
	};
	struct unwind_table *t = build(f, 2, EM_X86_64);

	CHECK_ROWS(t, { 0x1000, "rsp+8", "unchanged", "cfa-8" },
		   { 0x1001, "rsp+16", "unchanged", "cfa-8" },
		   { 0x1004, "rsp+8", "unchanged", "cfa-8" },
		   { 0x1011, "rsp+16", "unchanged", "cfa-8" }, { 0x1020, "end", NULL, NULL });
	unwind_table__free(t);
}

static void test_cfa_shapes(void)
{
	struct unwind_table *t;

	CHECK_ONE(BYTES(0x0c, 6, 16), "rbp+16", "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x0e, 0xd0, 0x84, 0x02), "rsp+33360", "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x0e, 0xe0, 0xf8, 0x0b), "rsp+195680", "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x13, 0x02), "rsp-16", "unchanged", "cfa-8"); /* def_cfa_offset_sf 2*-8 */
	/* offsets are exact, not truncated to 16 bits */
	t = one(BYTES(0x0e, 0xe0, 0xf8, 0x0b));
	if (t && t->nr_rows)
		CHECK_EQ_INT(t->rows[0].cfa_off, 195680);
	unwind_table__free(t);
	/* beyond s32 */
	CHECK_ONE(BYTES(0x0e, 0x80, 0x80, 0x80, 0x80, 0x08), "unsupported:cfa-offset", "unchanged",
		  "cfa-8");
	/* a CFA on another register */
	CHECK_ONE(BYTES(0x0c, 5, 8), "unsupported:cfa-register", "unchanged", "cfa-8");
	/* PLT, both thresholds */
	CHECK_ONE(BYTES(0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22),
		  "plt", "unchanged", "cfa-8");
	t = one(BYTES(0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3a, 0x2a, 0x33, 0x24, 0x22));
	if (t && t->nr_rows) {
		CHECK_EQ_INT(t->rows[0].cfa, UNW_CFA_PLT);
		CHECK_EQ_INT(t->rows[0].cfa_off, 8);
		CHECK_EQ_INT(t->rows[0].aux_off, 10);
	}
	unwind_table__free(t);
	t = one(BYTES(0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22));
	if (t && t->nr_rows)
		CHECK_EQ_INT(t->rows[0].aux_off, 11);
	unwind_table__free(t);
	/* the PLT shape with another register or a trailing op is not the PLT */
	CHECK_ONE(BYTES(0x0f, 11, 0x76, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22),
		  "unsupported:cfa-expression", "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x0f, 12, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22, 0x22),
		  "unsupported:cfa-expression", "unchanged", "cfa-8");
	/* dereferences */
	CHECK_ONE(BYTES(0x0f, 3, 0x76, 0x78, 0x06), "*(rbp-8)", "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x0f, 3, 0x77, 8, 0x06), "*(rsp+8)", "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x0f, 5, 0x77, 8, 0x06, 0x23, 16), "*(rsp+8)+16", "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x0f, 5, 0x77, 8, 0x06, 0x40, 0x22), "*(rsp+8)+16", "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x0f, 6, 0x76, 0x70, 0x06, 0x08, 24, 0x22), "*(rbp-16)+24", "unchanged",
		  "cfa-8");
	CHECK_ONE(BYTES(0x0f, 6, 0x76, 0x70, 0x06, 0x11, 0x78, 0x22), "*(rbp-16)-8", "unchanged",
		  "cfa-8");
	CHECK_ONE(BYTES(0x0f, 4, 0x92, 7, 8, 0x06), "*(rsp+8)", "unchanged", "cfa-8");
	t = one(BYTES(0x0f, 5, 0x77, 8, 0x06, 0x23, 16));
	if (t && t->nr_rows) {
		CHECK_EQ_INT(t->rows[0].cfa, UNW_CFA_DEREF_SP);
		CHECK_EQ_INT(t->rows[0].cfa_off, 8);
		CHECK_EQ_INT(t->rows[0].aux_off, 16);
	}
	unwind_table__free(t);
	/* a breg alone is a plain CFA rule */
	CHECK_ONE(BYTES(0x0f, 2, 0x77, 16), "rsp+16", "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x0f, 2, 0x75, 16), "unsupported:cfa-register", "unchanged", "cfa-8");
	/* shapes the unwinder does not know */
	CHECK_ONE(BYTES(0x0f, 1, 0x30), "unsupported:cfa-expression", "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x0f, 3, 0x73, 8, 0x06), "unsupported:cfa-expression", "unchanged",
		  "cfa-8");
	CHECK_ONE(BYTES(0x0f, 5, 0x77, 8, 0x06, 0x06, 0x06), "unsupported:cfa-expression",
		  "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x0f, 0), "unsupported:cfa-expression", "unchanged", "cfa-8");
	/* plus_uconst beyond s16, and beyond s32 */
	CHECK_ONE(BYTES(0x0f, 7, 0x77, 8, 0x06, 0x23, 0x80, 0x80, 0x04), "*(rsp+8)+65536",
		  "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x0f, 9, 0x77, 8, 0x06, 0x23, 0x80, 0x80, 0x80, 0x80, 0x08),
		  "unsupported:cfa-offset", "unchanged", "cfa-8");
}

static void test_fp_rules(void)
{
	CHECK_ONE(BYTES(0x86, 2), "rsp+8", "cfa-16", "cfa-8");
	CHECK_ONE(BYTES(0x11, 6, 0x7f), "rsp+8", "cfa+8", "cfa-8");
	CHECK_ONE(BYTES(0x10, 6, 2, 0x76, 0), "rsp+8", "*(rbp+0)", "cfa-8");
	CHECK_ONE(BYTES(0x10, 6, 2, 0x76, 0x78), "rsp+8", "*(rbp-8)", "cfa-8");
	CHECK_ONE(BYTES(0x08, 6), "rsp+8", "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x07, 6), "rsp+8", "unchanged", "cfa-8");
	CHECK_ONE(BYTES(0x14, 6, 2), "rsp+8", "unsupported:fp-rule", "cfa-8");
	CHECK_ONE(BYTES(0x09, 6, 3), "rsp+8", "unsupported:fp-rule", "cfa-8");
	CHECK_ONE(BYTES(0x10, 6, 2, 0x77, 0), "rsp+8", "unsupported:fp-rule", "cfa-8");
	CHECK_ONE(BYTES(0x16, 6, 2, 0x76, 0), "rsp+8", "unsupported:fp-rule", "cfa-8");
	/* 5000 * -8 is beyond 16 bits, (2^28 + 1) * -8 beyond 32 */
	CHECK_ONE(BYTES(0x86, 0x88, 0x27), "rsp+8", "cfa-40000", "cfa-8");
	CHECK_ONE(BYTES(0x86, 0x81, 0x80, 0x80, 0x80, 0x01), "rsp+8", "unsupported:fp-offset",
		  "cfa-8");
}

static void test_ra_rules(void)
{
	struct unwind_table *t;

	CHECK_ONE(BYTES(0x07, 16), "rsp+8", "unchanged", "undefined");
	CHECK_ONE(BYTES(0x90, 2), "rsp+8", "unchanged", "unsupported:ra-rule");
	CHECK_ONE(BYTES(0x08, 16), "rsp+8", "unchanged", "unsupported:ra-rule");
	/* every rule unsupported: each says why, the row keeps the CFA's reason */
	t = one(BYTES(0x0c, 5, 8, 0x14, 6, 2, 0x90, 2));
	CHECK_ROWS(t,
		   { 0x1000, "unsupported:cfa-register", "unsupported:fp-rule",
		     "unsupported:ra-rule" },
		   { 0x1100, "end", NULL, NULL });
	if (t && t->nr_rows) {
		CHECK_EQ_INT(t->rows[0].unsupported, UNW_UNSUP_CFA_REGISTER);
		CHECK_EQ_INT(t->unsupported[UNW_UNSUP_CFA_REGISTER], 1);
		CHECK_EQ_INT(t->unsupported[UNW_UNSUP_NONE], 0);
	}
	unwind_table__free(t);
	/* fp's reason before ra's; ra's still printed next to a dereferenced CFA */
	t = one(BYTES(0x0f, 5, 0x77, 8, 0x06, 0x23, 16, 0x86, 0x81, 0x80, 0x80, 0x80, 0x01, 0x90,
		      2));
	CHECK_ROWS(t, { 0x1000, "*(rsp+8)+16", "unsupported:fp-offset", "unsupported:ra-rule" },
		   { 0x1100, "end", NULL, NULL });
	if (t && t->nr_rows)
		CHECK_EQ_INT(t->rows[0].unsupported, UNW_UNSUP_FP_OFFSET);
	unwind_table__free(t);
}

/* glibc's __restore_rt: every register of the interrupted code in the ucontext at rsp. */
#define SIGFRAME_CFA 0x0f, 4, 0x77, 0xa0, 0x01, 0x06 /* def_cfa_expression breg7 160; deref */
#define SIGFRAME_RBP 0x10, 6, 3, 0x77, 0xf8, 0x00    /* expression rbp: breg7 120 */
#define SIGFRAME_RIP 0x10, 16, 3, 0x77, 0xa8, 0x01   /* expression rip: breg7 168 */
/* expressions of r8, rbx and rsp */
#define SIGFRAME_OTHERS \
	0x10, 8, 2, 0x77, 40, 0x10, 3, 3, 0x77, 0x80, 0x01, 0x10, 7, 3, 0x77, 0xa0, 0x01

/* The table of one signal frame FDE running insns over [0x1000, 0x1010), after a function. */
static struct unwind_table *signal_one(const uint8_t *insns, size_t n, int machine)
{
	const struct fde_spec f[] = {
		FDE(0xff0, 0x10, 0),
		{ 0x1000, 0x10, insns, n, true },
		FDE(0x1010, 0x10, 0),
	};

	return build(f, 3, machine);
}

static void check_signal_at(const uint8_t *insns, size_t n, const char *cfa, const char *fp,
			    const char *ra, int line)
{
	struct unwind_table *t = signal_one(insns, n, EM_X86_64);
	const struct want w[] = { { 0xff0, "rsp+8", "unchanged", "cfa-8" },
				  { 0x1000, cfa, fp, ra },
				  { 0x1010, "rsp+8", "unchanged", "cfa-8" },
				  { 0x1020, "end", NULL, NULL } };

	check_rows_at(t, w, 4, line);
	unwind_table__free(t);
}

#define CHECK_SIGNAL(insns, cfa, fp, ra) check_signal_at(insns, cfa, fp, ra, __LINE__)

static void test_signal_frame(void)
{
	struct unwind_table *t;
	const struct table_row *r;

	t = signal_one(BYTES(SIGFRAME_CFA, SIGFRAME_OTHERS, SIGFRAME_RBP, SIGFRAME_RIP), EM_X86_64);
	CHECK_ROWS(t, { 0xff0, "rsp+8", "unchanged", "cfa-8" },
		   { 0x1000, "signal:*(rsp+160)", "*(rsp+120)", "*(rsp+168)" },
		   { 0x1010, "rsp+8", "unchanged", "cfa-8" }, { 0x1020, "end", NULL, NULL });
	r = t ? unwind_table__lookup(t, 0x1008) : NULL;
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ_INT(r->cfa, UNW_CFA_SIGNAL);
		CHECK_EQ_INT(r->cfa_off, 160);
		CHECK_EQ_INT(r->fp, UNW_FP_AT_SP);
		CHECK_EQ_INT(r->fp_off, 120);
		CHECK_EQ_INT(r->ra, UNW_RA_AT_SP);
		CHECK_EQ_INT(r->aux_off, 168);
		CHECK_EQ_INT(r->unsupported, UNW_UNSUP_NONE);
	}
	if (t) {
		for (int i = 0; i < UNW_UNSUP_NR; i++)
			CHECK_EQ_INT(t->unsupported[i], 0);
	}
	unwind_table__free(t);
	/* the order of the instructions does not matter, nor the other registers */
	CHECK_SIGNAL(BYTES(SIGFRAME_RIP, SIGFRAME_RBP, SIGFRAME_CFA), "signal:*(rsp+160)",
		     "*(rsp+120)", "*(rsp+168)");
	/* DW_OP_bregx 7 is breg7 */
	CHECK_SIGNAL(BYTES(0x0f, 5, 0x92, 7, 0xa0, 0x01, 0x06, SIGFRAME_RBP, SIGFRAME_RIP),
		     "signal:*(rsp+160)", "*(rsp+120)", "*(rsp+168)");
}

/* Anything but the exact shape of a signal frame keeps the general rules and their reasons. */
static void test_signal_frame_shapes(void)
{
	const struct fde_spec f[] = {
		FDE(0x1000, 0x10, SIGFRAME_CFA, SIGFRAME_RBP, SIGFRAME_RIP),
		SIGNAL_FDE(0x1010, 0x10, SIGFRAME_CFA, SIGFRAME_RBP, SIGFRAME_RIP),
	};
	struct unwind_table *t;

	/* without 'S' in the CIE: the same instructions are no signal frame */
	t = build(f, 2, EM_X86_64);
	CHECK_ROWS(t, { 0x1000, "*(rsp+160)", "unsupported:fp-rule", "unsupported:ra-rule" },
		   { 0x1010, "signal:*(rsp+160)", "*(rsp+120)", "*(rsp+168)" },
		   { 0x1020, "end", NULL, NULL });
	if (t) {
		CHECK_EQ_INT(t->unsupported[UNW_UNSUP_FP_RULE], 1);
		CHECK_EQ_INT(t->unsupported[UNW_UNSUP_RA_RULE], 0);
	}
	unwind_table__free(t);
	/* the CFA not dereferenced, or from rbp, or with a trailing operation */
	CHECK_SIGNAL(BYTES(0x0f, 3, 0x77, 0xa0, 0x01, SIGFRAME_RBP, SIGFRAME_RIP), "rsp+160",
		     "unsupported:fp-rule", "unsupported:ra-rule");
	CHECK_SIGNAL(BYTES(0x0f, 4, 0x76, 0xa0, 0x01, 0x06, SIGFRAME_RBP, SIGFRAME_RIP),
		     "*(rbp+160)", "unsupported:fp-rule", "unsupported:ra-rule");
	CHECK_SIGNAL(BYTES(0x0f, 6, 0x77, 0xa0, 0x01, 0x06, 0x23, 8, SIGFRAME_RBP, SIGFRAME_RIP),
		     "*(rsp+160)+8", "unsupported:fp-rule", "unsupported:ra-rule");
	/* rbp not described, or from rbp, or dereferenced */
	CHECK_SIGNAL(BYTES(SIGFRAME_CFA, SIGFRAME_RIP), "*(rsp+160)", "unchanged",
		     "unsupported:ra-rule");
	CHECK_SIGNAL(BYTES(SIGFRAME_CFA, 0x10, 6, 3, 0x76, 0xf8, 0x00, SIGFRAME_RIP), "*(rsp+160)",
		     "*(rbp+120)", "unsupported:ra-rule");
	CHECK_SIGNAL(BYTES(SIGFRAME_CFA, 0x10, 6, 4, 0x77, 0xf8, 0x00, 0x06, SIGFRAME_RIP),
		     "*(rsp+160)", "unsupported:fp-rule", "unsupported:ra-rule");
	/* rip at the ABI's place, or as a value expression */
	CHECK_SIGNAL(BYTES(SIGFRAME_CFA, SIGFRAME_RBP), "*(rsp+160)", "unsupported:fp-rule",
		     "cfa-8");
	CHECK_SIGNAL(BYTES(SIGFRAME_CFA, SIGFRAME_RBP, 0x16, 16, 3, 0x77, 0xa8, 0x01), "*(rsp+160)",
		     "unsupported:fp-rule", "unsupported:ra-rule");
	/* offsets beyond the row's fields: 2^31 for rbp */
	CHECK_SIGNAL(BYTES(SIGFRAME_CFA, 0x10, 6, 6, 0x77, 0x80, 0x80, 0x80, 0x80, 0x08,
			   SIGFRAME_RIP),
		     "*(rsp+160)", "unsupported:fp-rule", "unsupported:ra-rule");
	/* the same CFI on aarch64 is not a signal frame */
	t = signal_one(BYTES(SIGFRAME_CFA, SIGFRAME_RBP, SIGFRAME_RIP), EM_AARCH64);
	if (t && t->nr_rows > 1)
		CHECK(t->rows[1].cfa != UNW_CFA_SIGNAL);
	unwind_table__free(t);
}

static void test_unsupported_counts(void)
{
	const struct fde_spec f[] = {
		FDE(0x1000, 0x10, 0x41, 0x0c, 5, 8, 0x41, 0x0e, 16),
		FDE(0x1010, 0x10, 0x41, 0x09, 6, 3),
		FDE(0x1020, 0x10, 0x41, 0x0f, 1, 0x30),
	};
	struct unwind_table *t = build(f, 3, EM_X86_64);

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_INT(t->unsupported[UNW_UNSUP_CFA_REGISTER], 1);
	CHECK_EQ_INT(t->unsupported[UNW_UNSUP_FP_RULE], 1);
	CHECK_EQ_INT(t->unsupported[UNW_UNSUP_CFA_EXPRESSION], 1);
	CHECK_EQ_INT(t->unsupported[UNW_UNSUP_RA_RULE], 0);
	unwind_table__free(t);
}

static void test_lookup(void)
{
	const struct fde_spec f[] = {
		FDE(0x1000, 0x10, 0x44, 0x0e, 16),
		FDE(0x1020, 0x10, 0),
	};
	struct unwind_table *t = build(f, 2, EM_X86_64);
	const struct table_row *r;
	size_t nr;

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(unwind_table__lookup(t, 0xfff) == NULL);
	CHECK(unwind_table__lookup(t, 0) == NULL);
	r = unwind_table__lookup(t, 0x1000);
	CHECK(r == &t->rows[0]);
	r = unwind_table__lookup(t, 0x1003);
	CHECK(r == &t->rows[0]);
	r = unwind_table__lookup(t, 0x1004);
	CHECK(r && r->cfa == UNW_CFA_SP && r->cfa_off == 16);
	r = unwind_table__lookup(t, 0x1018); /* in the gap */
	CHECK(r && r->cfa == UNW_CFA_END);
	r = unwind_table__lookup(t, 0x102f);
	CHECK(r && r->cfa == UNW_CFA_SP && r->cfa_off == 8);
	r = unwind_table__lookup(t, 0x1030); /* after the last function */
	CHECK(r && r->cfa == UNW_CFA_END);
	r = unwind_table__lookup(t, 0x7fffffffffffull);
	CHECK(r && r->cfa == UNW_CFA_END);
	/* Rows released once in the BPF maps: the description stays, lookups find nothing. */
	nr = t->nr_rows;
	unwind_table__release_rows(t);
	CHECK(t->rows == NULL);
	CHECK_EQ_INT(t->nr_rows, nr);
	CHECK(unwind_table__lookup(t, 0x1004) == NULL);
	unwind_table__free(t);
}

static void test_merge(void)
{
	const struct fde_spec eh[] = {
		FDE(0x1000, 0x100, 0x50, 0x0e, 16), /* rsp+16 from 0x1010 */
	};
	const struct fde_spec dbg[] = {
		/* rbp+16, then rbp+32 from 0x1050: around and under the .eh_frame FDE */
		FDE(0x0f00, 0x300, 0x0c, 6, 16, 0x03, 0x50, 0x01, 0x0e, 32),
	};
	const struct fde_spec dbg2[] = {
		FDE(0x1000, 0x80, 0x0c, 6, 48), /* all covered */
		FDE(0x1200, 0x40, 0),		/* adjacent to the last */
	};
	struct sec s1, s2, s3;
	struct cfi_section cs[3];
	struct unwind_table *t;

	section_build(&s1, true, EM_X86_64, eh, 1);
	section_build(&s2, false, EM_X86_64, dbg, 1);
	section_build(&s3, false, EM_X86_64, dbg2, 2);
	cs[0] = section(&s1, true, EM_X86_64, TABLE_SRC_EH_FRAME);
	cs[1] = section(&s2, false, EM_X86_64, TABLE_SRC_DEBUG_FRAME);
	cs[2] = section(&s3, false, EM_X86_64, TABLE_SRC_DEBUG_FILE);
	t = unwind_table__build_sections(EM_X86_64, cs, 3, NULL, 0);
	CHECK_ROWS(t, { 0x0f00, "rbp+16", "unchanged", "cfa-8" },
		   { 0x1000, "rsp+8", "unchanged", "cfa-8" },
		   { 0x1010, "rsp+16", "unchanged", "cfa-8" },
		   { 0x1100, "rbp+32", "unchanged", "cfa-8" },
		   { 0x1200, "rsp+8", "unchanged", "cfa-8" }, { 0x1240, "end", NULL, NULL });
	if (t) {
		CHECK_EQ_INT(t->sources,
			     TABLE_SRC_EH_FRAME | TABLE_SRC_DEBUG_FRAME | TABLE_SRC_DEBUG_FILE);
		CHECK_EQ_INT(t->nr_fdes, 3);
		CHECK_EQ_INT(t->nr_overlaps, 0);
		CHECK_EQ_INT(t->base, 0x0f00);
	}
	unwind_table__free(t);

	/* .debug_frame alone */
	t = unwind_table__build_sections(EM_X86_64, &cs[1], 1, NULL, 0);
	CHECK_ROWS(t, { 0x0f00, "rbp+16", "unchanged", "cfa-8" },
		   { 0x1050, "rbp+32", "unchanged", "cfa-8" }, { 0x1200, "end", NULL, NULL });
	if (t)
		CHECK_EQ_INT(t->sources, TABLE_SRC_DEBUG_FRAME);
	unwind_table__free(t);
}

static void test_overlaps(void)
{
	const struct fde_spec f[] = {
		FDE(0x1000, 0x100, 0),
		FDE(0x1080, 0x100, 0x0c, 6, 16), /* clipped to start at 0x1100 */
		FDE(0x1000, 0x100, 0x0c, 6, 32), /* a duplicate: dropped */
		FDE(0x1000, 0x10, 0x0c, 6, 48),	 /* inside the first: dropped */
	};
	struct unwind_table *t = build(f, 4, EM_X86_64);

	CHECK_ROWS(t, { 0x1000, "rsp+8", "unchanged", "cfa-8" },
		   { 0x1100, "rbp+16", "unchanged", "cfa-8" }, { 0x1180, "end", NULL, NULL });
	if (t) {
		CHECK_EQ_INT(t->nr_overlaps, 3);
		CHECK_EQ_INT(t->nr_fdes, 2);
	}
	unwind_table__free(t);
}

static void test_out_of_order(void)
{
	const struct fde_spec f[] = {
		FDE(0x3000, 0x10, 0x0c, 6, 16),
		FDE(0x1000, 0x10, 0),
		FDE(0x2000, 0x10, 0x0e, 32),
		FDE(0x1010, 0x10, 0x0e, 24),
	};
	struct unwind_table *t = build(f, 4, EM_X86_64);

	CHECK_ROWS(t, { 0x1000, "rsp+8", "unchanged", "cfa-8" },
		   { 0x1010, "rsp+24", "unchanged", "cfa-8" }, { 0x1020, "end", NULL, NULL },
		   { 0x2000, "rsp+32", "unchanged", "cfa-8" }, { 0x2010, "end", NULL, NULL },
		   { 0x3000, "rbp+16", "unchanged", "cfa-8" }, { 0x3010, "end", NULL, NULL });
	unwind_table__free(t);
}

static void test_empty(void)
{
	const struct fde_spec f[] = {
		FDE(0x1000, 0, 0x41, 0x0e, 16), /* empty range: dropped */
	};
	struct unwind_table *t = build(f, 1, EM_X86_64);

	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->nr_rows, 0);
		CHECK_EQ_INT(t->nr_fdes, 0);
		CHECK_EQ_INT(t->sources, 0);
		CHECK(unwind_table__lookup(t, 0x1000) == NULL);
	}
	unwind_table__free(t);
	t = build(NULL, 0, EM_X86_64);
	CHECK(t != NULL && t->nr_rows == 0);
	unwind_table__free(t);
	t = unwind_table__build_sections(EM_X86_64, NULL, 0, NULL, 0);
	CHECK(t != NULL && t->nr_rows == 0);
	unwind_table__free(t);
}

static void test_span(void)
{
	const struct fde_spec f[] = {
		FDE(0x1000, 0x10, 0),
		FDE(0x100002000ull, 0x10, 0),
	};
	const struct fde_spec g[] = {
		FDE(0x1000, 0x10, 0),
		FDE(0xfffff000ull, 0x10, 0), /* ends 0xffffe010 past the base: fits */
	};
	struct sec s;
	struct cfi_section cs;
	struct unwind_table *t;

	/* pcs wider than 32 bits need the .debug_frame's 8-byte addresses */
	section_build(&s, false, EM_X86_64, f, 2);
	cs = section(&s, false, EM_X86_64, TABLE_SRC_DEBUG_FRAME);
	errno = 0;
	t = unwind_table__build_sections(EM_X86_64, &cs, 1, NULL, 0);
	CHECK(t == NULL);
	CHECK_EQ_INT(errno, E2BIG);
	unwind_table__free(t);
	section_build(&s, false, EM_X86_64, g, 2);
	cs = section(&s, false, EM_X86_64, TABLE_SRC_DEBUG_FRAME);
	t = unwind_table__build_sections(EM_X86_64, &cs, 1, NULL, 0);
	CHECK(t != NULL);
	if (t)
		CHECK_EQ_INT(t->rows[t->nr_rows - 1].pc, 0xffffe010u);
	unwind_table__free(t);
}

static void test_segments(void)
{
	const struct fde_spec f[] = {
		FDE(0x0, 0x10, 0), /* discarded code: outside every segment */
		FDE(0x401000, 0x10, 0),
		FDE(0x402000, 0x10, 0), /* in a segment that is not executable */
	};
	const struct elf_load_segment segs[] = {
		{ .vaddr = 0x400000, .memsz = 0x1800, .flags = PF_R | PF_X },
		{ .vaddr = 0x402000, .memsz = 0x1000, .flags = PF_R },
	};
	struct sec s;
	struct cfi_section cs;
	struct unwind_table *t;

	section_build(&s, false, EM_X86_64, f, 3);
	cs = section(&s, false, EM_X86_64, TABLE_SRC_DEBUG_FRAME);
	t = unwind_table__build_sections(EM_X86_64, &cs, 1, segs, 2);
	CHECK_ROWS(t, { 0x401000, "rsp+8", "unchanged", "cfa-8" }, { 0x401010, "end", NULL, NULL });
	unwind_table__free(t);
}

static void test_bad_fde_skipped(void)
{
	const struct fde_spec f[] = {
		FDE(0x1000, 0x10, 0),
		FDE(0x1010, 0x10, 0x41, 0x0e, 16, 0x41, 0x3f), /* unknown opcode */
		FDE(0x1020, 0x10, 0x0e, 16),
	};
	const struct fde_spec g[] = {
		FDE(0x1000, 0x10, 0x0b), /* restore without remember */
		FDE(0x1020, 0x10, 0x0e, 16),
	};
	struct unwind_table *t = build(f, 3, EM_X86_64);

	CHECK_ROWS(t, { 0x1000, "rsp+8", "unchanged", "cfa-8" }, { 0x1010, "end", NULL, NULL },
		   { 0x1020, "rsp+16", "unchanged", "cfa-8" }, { 0x1030, "end", NULL, NULL });
	if (t) {
		CHECK_EQ_INT(t->nr_bad_fdes, 1);
		CHECK_EQ_INT(t->nr_fdes, 2);
	}
	unwind_table__free(t);
	/* the first FDE dropped: the base moves to the first row */
	t = build(g, 2, EM_X86_64);
	CHECK_ROWS(t, { 0x1020, "rsp+16", "unchanged", "cfa-8" }, { 0x1030, "end", NULL, NULL });
	if (t) {
		CHECK_EQ_INT(t->base, 0x1020);
		CHECK_EQ_INT(t->rows[0].pc, 0);
	}
	unwind_table__free(t);
}

static void test_malformed_section(void)
{
	const struct fde_spec f[] = { FDE(0x1000, 0x10, 0) };
	struct sec s;
	struct cfi_section cs;
	struct unwind_table *t;

	section_build(&s, true, EM_X86_64, f, 1);
	s.n -= 2; /* the last entry runs past the end */
	cs = section(&s, true, EM_X86_64, TABLE_SRC_EH_FRAME);
	errno = 0;
	t = unwind_table__build_sections(EM_X86_64, &cs, 1, NULL, 0);
	CHECK(t == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	unwind_table__free(t);
}

/*
 * Rows added where no FDE describes the code (aarch64's PLT): in a gap, with
 * an END row after them unless a function starts there; before the first
 * row, rebasing the table; never over a function.
 */
static void test_add_rows(void)
{
	const struct fde_spec f[] = { FDE(0x1000, 0x10, 0x0e, 16), FDE(0x1040, 0x10, 0x0e, 32) };
	const struct table_row lr[] = {
		{ .pc = 0, .cfa = UNW_CFA_SP, .ra = UNW_RA_LR },
		{ .pc = 4, .cfa = UNW_CFA_SP, .cfa_off = 16, .ra = UNW_RA_LR }
	};
	struct unwind_table *t = build(f, 2, EM_AARCH64);

	if (!t) {
		FAIL("no table of the two FDEs to add rows to: %s", strerror(errno));
		return;
	}
	CHECK_EQ_INT(unwind_table__add_rows(t, lr, 2, 0x1008, 0x1020), -EEXIST);
	CHECK_EQ_INT(unwind_table__add_rows(t, lr, 2, 0x1030, 0x1048), -EEXIST);
	CHECK_EQ_INT(unwind_table__add_rows(t, lr, 2, 0x1010, 0x1020), 0);
	CHECK_EQ_INT(unwind_table__add_rows(t, lr, 1, 0x1030, 0x1040), 0);
	CHECK_EQ_INT(unwind_table__add_rows(t, lr, 2, 0x800, 0x900), 0);
	CHECK_ROWS(t, { 0x800, "sp+0", "unchanged", "lr" }, { 0x804, "sp+16", "unchanged", "lr" },
		   { 0x900, "end", NULL, NULL }, { 0x1000, "sp+16", "unchanged", "lr" },
		   { 0x1010, "sp+0", "unchanged", "lr" }, { 0x1014, "sp+16", "unchanged", "lr" },
		   { 0x1020, "end", NULL, NULL }, { 0x1030, "sp+0", "unchanged", "lr" },
		   { 0x1040, "sp+32", "unchanged", "lr" }, { 0x1050, "end", NULL, NULL });
	unwind_table__free(t);
}

static void test_aarch64(void)
{
	const struct fde_spec f[] = {
		/* stp x29, x30, [sp, #-16]!; mov x29, sp; ...; ldp; ret */
		FDE(0x1000, 0x20, 0x41, 0x0e, 16, 0x9d, 2, 0x9e, 1, 0x41, 0x0c, 29, 16, 0x44, 0x0c,
		    31, 0, 0xdd, 0xde),
		FDE(0x1020, 0x10, 0x07, 30),			       /* bottom of the stack */
		FDE(0x1030, 0x10, 0x0e, 0x80, 0x80, 0x04),	       /* LR at cfa-N beyond s16 */
		FDE(0x1040, 0x10, 0x9e, 0x81, 0x80, 0x80, 0x80, 0x01), /* (2^28 + 1) * -8 */
		FDE(0x1050, 0x10, 0x14, 30, 1),
		FDE(0x1060, 0x10, 0x9e, 0x81, 0x20), /* 4097 * -8: a frame of more than 32 KiB */
	};
	struct unwind_table *t = build(f, 6, EM_AARCH64);

	CHECK_ROWS(t, { 0x1000, "sp+0", "unchanged", "lr" }, { 0x1004, "sp+16", "cfa-16", "cfa-8" },
		   { 0x1008, "x29+16", "cfa-16", "cfa-8" }, { 0x1018, "sp+0", "unchanged", "lr" },
		   { 0x1020, "sp+0", "unchanged", "undefined" },
		   { 0x1030, "sp+65536", "unchanged", "lr" },
		   { 0x1040, "sp+0", "unchanged", "unsupported:ra-offset" },
		   { 0x1050, "sp+0", "unchanged", "unsupported:ra-rule" },
		   { 0x1060, "sp+0", "unchanged", "cfa-32776" }, { 0x1070, "end", NULL, NULL });
	if (t && t->nr_rows > 1) {
		CHECK_EQ_INT(t->rows[1].ra, UNW_RA_AT_CFA);
		CHECK_EQ_INT(t->rows[1].aux_off, -8);
		CHECK_EQ_INT(t->rows[1].fp_off, -16);
	}
	unwind_table__free(t);
}

static void test_strings(void)
{
	struct table_row r = { 0 };
	char buf[64];

	r.cfa = UNW_CFA_END;
	CHECK_EQ_STR(unwind_dump__cfa_str(&r, EM_X86_64, buf, sizeof(buf)), "end");
	r = (struct table_row){ .cfa = UNW_CFA_SP, .cfa_off = -8 };
	CHECK_EQ_STR(unwind_dump__cfa_str(&r, EM_X86_64, buf, sizeof(buf)), "rsp-8");
	r = (struct table_row){ .cfa = UNW_CFA_FP, .cfa_off = INT32_MIN };
	CHECK_EQ_STR(unwind_dump__cfa_str(&r, EM_X86_64, buf, sizeof(buf)), "rbp-2147483648");
	r = (struct table_row){ .cfa = UNW_CFA_DEREF_FP, .cfa_off = -8, .aux_off = 0 };
	CHECK_EQ_STR(unwind_dump__cfa_str(&r, EM_X86_64, buf, sizeof(buf)), "*(rbp-8)");
	CHECK_EQ_STR(unwind_dump__cfa_str(&r, EM_AARCH64, buf, sizeof(buf)), "*(x29-8)");
	r = (struct table_row){ .cfa = UNW_CFA_DEREF_SP, .cfa_off = 8, .aux_off = -16 };
	CHECK_EQ_STR(unwind_dump__cfa_str(&r, EM_X86_64, buf, sizeof(buf)), "*(rsp+8)-16");
	CHECK_EQ_STR(unwind_dump__cfa_str(&r, EM_AARCH64, buf, sizeof(buf)), "*(sp+8)-16");
	r = (struct table_row){ .cfa = UNW_CFA_PLT, .cfa_off = 8, .aux_off = 11 };
	CHECK_EQ_STR(unwind_dump__cfa_str(&r, EM_X86_64, buf, sizeof(buf)), "plt");
	r = (struct table_row){ .cfa = UNW_CFA_SIGNAL,
				.cfa_off = 160,
				.fp = UNW_FP_AT_SP,
				.fp_off = 120,
				.ra = UNW_RA_AT_SP,
				.aux_off = 168 };
	CHECK_EQ_STR(unwind_dump__cfa_str(&r, EM_X86_64, buf, sizeof(buf)), "signal:*(rsp+160)");
	CHECK_EQ_STR(unwind_dump__fp_str(&r, EM_X86_64, buf, sizeof(buf)), "*(rsp+120)");
	CHECK_EQ_STR(unwind_dump__ra_str(&r, EM_X86_64, buf, sizeof(buf)), "*(rsp+168)");
	r = (struct table_row){ .fp = UNW_FP_AT_CFA, .fp_off = -16 };
	CHECK_EQ_STR(unwind_dump__fp_str(&r, EM_X86_64, buf, sizeof(buf)), "cfa-16");
	r = (struct table_row){ .fp = UNW_FP_AT_FP, .fp_off = 0 };
	CHECK_EQ_STR(unwind_dump__fp_str(&r, EM_X86_64, buf, sizeof(buf)), "*(rbp+0)");
	r = (struct table_row){ .fp = UNW_FP_UNSUPPORTED, .unsupported = UNW_UNSUP_FP_RULE };
	CHECK_EQ_STR(unwind_dump__fp_str(&r, EM_X86_64, buf, sizeof(buf)), "unsupported:fp-rule");
	r = (struct table_row){ .ra = UNW_RA_AT_CFA, .aux_off = 8 };
	CHECK_EQ_STR(unwind_dump__ra_str(&r, EM_X86_64, buf, sizeof(buf)), "cfa-8");
	CHECK_EQ_STR(unwind_dump__ra_str(&r, EM_AARCH64, buf, sizeof(buf)), "cfa+8");
	r = (struct table_row){ .ra = UNW_RA_LR };
	CHECK_EQ_STR(unwind_dump__ra_str(&r, EM_AARCH64, buf, sizeof(buf)), "lr");
	r = (struct table_row){ .ra = UNW_RA_UNDEFINED };
	CHECK_EQ_STR(unwind_dump__ra_str(&r, EM_X86_64, buf, sizeof(buf)), "undefined");
	/* a short buffer is truncated, not overrun */
	r = (struct table_row){ .cfa = UNW_CFA_SP, .cfa_off = 123456 };
	CHECK_EQ_STR(unwind_dump__cfa_str(&r, EM_X86_64, buf, 5), "rsp+");
	CHECK_EQ_STR(unwind_dump__unsupported_str(UNW_UNSUP_CFA_REGISTER), "cfa-register");
	CHECK_EQ_STR(unwind_dump__unsupported_str(UNW_UNSUP_CFA_EXPRESSION), "cfa-expression");
	CHECK_EQ_STR(unwind_dump__unsupported_str(UNW_UNSUP_CFA_OFFSET), "cfa-offset");
	CHECK_EQ_STR(unwind_dump__unsupported_str(UNW_UNSUP_FP_RULE), "fp-rule");
	CHECK_EQ_STR(unwind_dump__unsupported_str(UNW_UNSUP_FP_OFFSET), "fp-offset");
	CHECK_EQ_STR(unwind_dump__unsupported_str(UNW_UNSUP_RA_RULE), "ra-rule");
	CHECK_EQ_STR(unwind_dump__unsupported_str(UNW_UNSUP_RA_OFFSET), "ra-offset");
	CHECK_EQ_STR(unwind_dump__unsupported_str(UNW_UNSUP_NR), "unknown");
}

int main(void)
{
	log_level = -1;
	RUN(test_rows_and_ends);
	RUN(test_redundant_rows);
	RUN(test_cfa_shapes);
	RUN(test_fp_rules);
	RUN(test_ra_rules);
	RUN(test_signal_frame);
	RUN(test_signal_frame_shapes);
	RUN(test_unsupported_counts);
	RUN(test_lookup);
	RUN(test_merge);
	RUN(test_overlaps);
	RUN(test_out_of_order);
	RUN(test_empty);
	RUN(test_span);
	RUN(test_segments);
	RUN(test_bad_fde_skipped);
	RUN(test_malformed_section);
	RUN(test_aarch64);
	RUN(test_add_rows);
	RUN(test_strings);
	return test_summary();
}
