// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rows from Go's pclntab. See table_go.h.
 *
 * Functions come in the order of their entries, and each one's deltas in
 * pc order, so rows are appended sorted: a function's END row is replaced
 * by the next function's first row where that one starts right after it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../util/log.h"
#include "table_go.h"

#define X86_64_RA_SIZE 8 /* the call pushed the return address: CFA = SP + delta + 8 */
#define RT0_PREFIX "_rt0_"

/* What go_rows__build() passes along a function's deltas. */
struct func_ctx {
	struct go_rows *g;
	uint8_t flags;
};

/* Appends row r at ELF address pc; a row at the same pc replaces the one before. */
static int go_rows__push(struct go_rows *g, uint64_t pc, const struct table_row *r)
{
	uint32_t off = (uint32_t)(pc - g->base);

	if (g->nr && g->rows[g->nr - 1].pc == off)
		g->nr--;
	if (grow((void **)&g->rows, &g->cap, g->nr, sizeof(*g->rows)))
		return -ENOMEM;
	g->rows[g->nr] = *r;
	g->rows[g->nr++].pc = off;
	return 0;
}

static void unsupported_cfa(struct table_row *r, enum unw_reason why)
{
	r->cfa = UNW_CFA_UNSUPPORTED;
	r->cfa_off = why;
	r->reason = why;
}

/* The row of a run with SP delta delta in a function with Go's flags flags. */
static void run_row(uint8_t flags, int64_t delta, struct table_row *r)
{
	int64_t cfa_off = delta + X86_64_RA_SIZE;

	*r = (struct table_row){ .cfa = UNW_CFA_SP, .fp = UNW_FP_UNCHANGED, .ra = UNW_RA_AT_CFA };
	if (cfa_off > INT32_MAX) {
		unsupported_cfa(r, UNW_R_CFA_OFFSET);
		return;
	}
	r->cfa_off = (int32_t)cfa_off;
	if (flags & GOPCLNTAB_TOPFRAME) {
		/* The bottom of its stack: nothing to recover, whatever it wrote. */
		r->ra = UNW_RA_UNDEFINED;
		return;
	}
	if (flags & GOPCLNTAB_SPWRITE) {
		unsupported_cfa(r, UNW_R_GO_SP_WRITE);
		return;
	}
	if (delta < 0) {
		/* Its return address was popped off the stack (into a register). */
		r->ra = UNW_RA_UNSUPPORTED;
		r->aux_off = UNW_R_RA_RULE;
		r->reason = UNW_R_RA_RULE;
	}
}

static int func_run(void *ctx, uint64_t lo, uint64_t hi, int64_t delta)
{
	struct func_ctx *fc = ctx;
	struct table_row r;
	int err;

	run_row(fc->flags, delta, &r);
	err = go_rows__push(fc->g, lo, &r);
	if (err)
		return err;
	r = (struct table_row){ .cfa = UNW_CFA_END };
	return go_rows__push(fc->g, hi, &r);
}

/* The rows of function i, or its reason counted when its deltas lie. */
static int func_rows(const struct gopclntab *t, size_t i, struct go_rows *g)
{
	struct gopclntab_func f;
	struct func_ctx fc = { .g = g };
	enum gopclntab_bad why;
	int err = gopclntab__func(t, i, &f);

	if (err || f.entry == f.end)
		return err; /* a function of no bytes has no pc to describe */
	fc.flags = f.flags;
	/* Go's entry points (runtime/rt0_*.s), which the kernel starts: nothing called them. */
	if (!strncmp(f.name, RT0_PREFIX, strlen(RT0_PREFIX)))
		fc.flags |= GOPCLNTAB_TOPFRAME;
	err = gopclntab__sp_deltas(t, i, func_run, &fc, &why);
	if (err == -EINVAL) {
		g->refused[why]++;
		pr_debug("%s: SP deltas refused (%s)", f.name, gopclntab_bad__str(why));
		return 0;
	}
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	g->nr_funcs++;
	if ((f.flags & (GOPCLNTAB_SPWRITE | GOPCLNTAB_TOPFRAME)) == GOPCLNTAB_SPWRITE)
		g->nr_sp_write++;
	return 0;
}

int go_rows__build(const struct gopclntab *t, struct go_rows *out)
{
	size_t n = gopclntab__count(t);
	struct gopclntab_func first, last;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return 0;
	if (gopclntab__func(t, 0, &first) || gopclntab__func(t, n - 1, &last))
		return -EINVAL;
	if (last.end - first.entry > UINT32_MAX)
		return -E2BIG;
	out->base = first.entry;
	for (size_t i = 0; i < n && !err; i++)
		err = func_rows(t, i, out);
	if (err)
		go_rows__free(out);
	return err;
}

void go_rows__free(struct go_rows *g)
{
	free(g->rows);
	g->rows = NULL;
	g->nr = g->cap = 0;
}
