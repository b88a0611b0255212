// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rows from Go's pclntab, and their merge over a table's rows from CFI.
 * See table_go.h.
 *
 * Functions come in the order of their entries, and each one's deltas in
 * pc order, so rows are appended sorted: a function's END row is replaced
 * by the next function's first row where that one starts right after it.
 * Both sorted, Go's rows and the CFI's are merged in one pass into an array
 * of room for both, which then takes the place of the table's rows.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../elf/elf_file.h"
#include "../util/big_alloc.h"
#include "../util/common.h"
#include "../util/log.h"
#include "table_go.h"
#include "../../bpf/arch.h"

#define X86_64_RA_SIZE 8 /* the call pushed the return address: CFA = SP + delta + 8 */
#define RT0_PREFIX "_rt0_"
#define SIGTRAMP "runtime.sigtramp"
#define X86_64_INT3 0xcc

/* mov $15 (__NR_rt_sigreturn), %rax; syscall: the whole of Go's signal restorer */
static const uint8_t rt_sigreturn_code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

/* What table_go__build_rows() passes along a function's deltas. */
struct func_ctx {
	struct go_rows *g;
	uint8_t flags;
};

/* Appends row r at ELF address pc; a row at the same pc replaces the one before. */
static int table_go__push_row(struct go_rows *g, uint64_t pc, const struct table_row *r)
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

static void unsupported_cfa(struct table_row *r, enum unw_unsupported why)
{
	r->cfa = UNW_CFA_UNSUPPORTED;
	r->cfa_off = why;
	r->unsupported = why;
}

/* Whether a function's name is Go's name, with or without its ABI0 suffix. */
static bool go_name_is(const char *name, const char *go_name)
{
	size_t n = strlen(go_name);

	return !strncmp(name, go_name, n) && (!name[n] || !strcmp(name + n, ".abi0"));
}

/*
 * Whether f is Go's signal restorer (runtime.sigreturn before Go 1.21,
 * runtime.sigreturn__sigaction after): by its name, its code, and the
 * padding byte before it, which no call returns past. base: the first
 * function's entry, before which no row can start.
 */
static bool is_restorer(const struct gopclntab_func *f, const struct go_code *code, uint64_t base)
{
	const uint8_t *p;

	if (!code || f->entry <= base || f->end - f->entry < sizeof(rt_sigreturn_code))
		return false;
	if (!go_name_is(f->name, "runtime.sigreturn") &&
	    !go_name_is(f->name, "runtime.sigreturn__sigaction"))
		return false;
	p = code->bytes(code->ctx, f->entry - 1, 1 + sizeof(rt_sigreturn_code));
	return p && p[0] == X86_64_INT3 &&
	       !memcmp(p + 1, rt_sigreturn_code, sizeof(rt_sigreturn_code));
}

/* Whether t has Go's signal restorer: then its signal handler is not a top frame. */
static bool has_restorer(const struct gopclntab *t, const struct go_code *code, uint64_t base)
{
	struct gopclntab_func f;

	for (size_t i = 0; code && i < gopclntab__count(t); i++)
		if (!gopclntab__func(t, i, &f) && is_restorer(&f, code, base))
			return true;
	return false;
}

/*
 * The restorer's row, the kernel's signal frame at rsp, from the padding
 * byte before its entry, where a return address minus one looks, to its end.
 */
static int restorer_rows(struct go_rows *g, const struct gopclntab_func *f)
{
	struct table_row r = {
		.cfa = UNW_CFA_SIGNAL,
		.cfa_off = UNW_X86_SIG_RSP,
		.fp = UNW_FP_AT_SP,
		.fp_off = UNW_X86_SIG_RBP,
		.ra = UNW_RA_AT_SP,
		.aux_off = UNW_X86_SIG_RIP,
	};
	uint64_t from = f->entry - 1;
	int err;

	/* the padding byte was the function before's: its rows end there */
	while (g->nr && g->base + g->rows[g->nr - 1].pc >= from)
		g->nr--;
	err = table_go__push_row(g, from, &r);
	if (err)
		return err;
	r = (struct table_row){ .cfa = UNW_CFA_END };
	return table_go__push_row(g, f->end, &r);
}

/* The row of a run with SP delta delta in a function with Go's flags flags. */
static void run_row(uint8_t flags, int64_t delta, struct table_row *r)
{
	int64_t cfa_off = delta + X86_64_RA_SIZE;

	*r = (struct table_row){ .cfa = UNW_CFA_SP, .fp = UNW_FP_UNCHANGED, .ra = UNW_RA_AT_CFA };
	if (cfa_off > INT32_MAX) {
		unsupported_cfa(r, UNW_UNSUP_CFA_OFFSET);
		return;
	}
	r->cfa_off = (int32_t)cfa_off;
	if (flags & GOPCLNTAB_TOPFRAME) {
		/* The bottom of its stack: nothing to recover, whatever it wrote. */
		r->ra = UNW_RA_UNDEFINED;
		return;
	}
	if (flags & GOPCLNTAB_SPWRITE) {
		unsupported_cfa(r, UNW_UNSUP_GO_SP_WRITE);
		return;
	}
	if (delta < 0) {
		/* Its return address was popped off the stack (into a register). */
		r->ra = UNW_RA_UNSUPPORTED;
		r->aux_off = UNW_UNSUP_RA_RULE;
		r->unsupported = UNW_UNSUP_RA_RULE;
	}
}

static int func_run(void *ctx, uint64_t lo, uint64_t hi, int64_t delta)
{
	struct func_ctx *fc = ctx;
	struct table_row r;
	int err;

	run_row(fc->flags, delta, &r);
	err = table_go__push_row(fc->g, lo, &r);
	if (err)
		return err;
	r = (struct table_row){ .cfa = UNW_CFA_END };
	return table_go__push_row(fc->g, hi, &r);
}

/* The rows of function i, or its reason counted when its deltas lie. */
static int func_rows(const struct gopclntab *t, size_t i, const struct go_code *code, bool restorer,
		     struct go_rows *g)
{
	struct gopclntab_func f;
	struct func_ctx fc = { .g = g };
	enum gopclntab_bad why;
	int err = gopclntab__func(t, i, &f);

	if (err || f.entry == f.end)
		return err; /* a function of no bytes has no pc to describe */
	if (restorer && is_restorer(&f, code, g->base)) {
		g->nr_funcs++;
		return restorer_rows(g, &f);
	}
	fc.flags = f.flags;
	/* Go's entry points (runtime/rt0_*.s), which the kernel starts: nothing called them. */
	if (!strncmp(f.name, RT0_PREFIX, strlen(RT0_PREFIX)))
		fc.flags |= GOPCLNTAB_TOPFRAME;
	/* Go's traceback ends at its signal handler; the walk goes on through the restorer. */
	if (restorer && go_name_is(f.name, SIGTRAMP))
		fc.flags &= (uint8_t)~GOPCLNTAB_TOPFRAME;
	err = gopclntab__sp_deltas(t, i, func_run, &fc, &why);
	if (err == -EINVAL) {
		g->refused[why]++;
		pr_debug("%s: SP deltas refused (%s)", f.name, gopclntab__bad_str(why));
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

int table_go__build_rows(const struct gopclntab *t, const struct go_code *code, struct go_rows *out)
{
	size_t n = gopclntab__count(t);
	struct gopclntab_func first, last;
	bool restorer;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return 0;
	if (gopclntab__func(t, 0, &first) || gopclntab__func(t, n - 1, &last))
		return -EINVAL;
	if (last.end - first.entry > UINT32_MAX)
		return -E2BIG;
	out->base = first.entry;
	restorer = has_restorer(t, code, out->base);
	for (size_t i = 0; i < n && !err; i++)
		err = func_rows(t, i, code, restorer, out);
	if (err)
		table_go__free_rows(out);
	return err;
}

void table_go__free_rows(struct go_rows *g)
{
	free(g->rows);
	g->rows = NULL;
	g->nr = g->cap = 0;
}

/* ---- Go's rows over the CFI's ---- */

/* The rows of both sources, pcs from base, into an array of room for all of them. */
struct merge {
	struct table_row *v;
	size_t nr;
	size_t mapped; /* of v: util/big_alloc.h */
	uint64_t base;
};

/* Row r (NULL: none, a gap) from pc on; a row at the same pc replaces the one before. */
static void merge_emit(struct merge *m, uint64_t pc, const struct table_row *r)
{
	static const struct table_row end = { .cfa = UNW_CFA_END };
	uint32_t off = (uint32_t)(pc - m->base);

	if (!r)
		r = &end;
	if (m->nr && m->v[m->nr - 1].pc == off)
		m->nr--;
	if (!m->nr && r->cfa == UNW_CFA_END)
		return; /* a table starts with a rule, not a gap */
	if (m->nr && unwind_table__same_rules(&m->v[m->nr - 1], r))
		return;
	m->v[m->nr] = *r;
	m->v[m->nr++].pc = off;
}

/*
 * At each pc where either source has a row, the rule of Go's row where it
 * is not a gap (the pc is in a function whose deltas hold), else the CFI's.
 */
static void merge_rows(struct merge *m, const struct unwind_table *t, const struct go_rows *g)
{
	const struct table_row *c = NULL, *gr = NULL;
	size_t i = 0, j = 0;

	while (i < t->nr_rows || j < g->nr) {
		uint64_t ci = i < t->nr_rows ? t->base + t->rows[i].pc : UINT64_MAX;
		uint64_t gj = j < g->nr ? g->base + g->rows[j].pc : UINT64_MAX;
		uint64_t pc = ci < gj ? ci : gj;

		for (; i < t->nr_rows && t->base + t->rows[i].pc == pc; i++)
			c = &t->rows[i];
		for (; j < g->nr && g->base + g->rows[j].pc == pc; j++)
			gr = &g->rows[j];
		merge_emit(m, pc, gr && gr->cfa != UNW_CFA_END ? gr : c);
	}
}

/* The merged table's base; -E2BIG when both together span more than 4 GiB. */
static int merge_base(const struct unwind_table *t, const struct go_rows *g, uint64_t *base)
{
	uint64_t lo = g->base, hi = g->base + g->rows[g->nr - 1].pc;

	if (t->nr_rows) {
		lo = t->base < lo ? t->base : lo;
		if (t->base + t->rows[t->nr_rows - 1].pc > hi)
			hi = t->base + t->rows[t->nr_rows - 1].pc;
	}
	if (hi - lo > UINT32_MAX)
		return -E2BIG;
	*base = lo;
	return 0;
}

int table_go__add(struct unwind_table *t, const struct gopclntab *g, const struct go_code *code)
{
	struct go_rows gr;
	struct merge m = { 0 };
	int err;

	if (t->machine != EM_X86_64)
		return 0;
	err = table_go__build_rows(g, code, &gr);
	if (err || !gr.nr)
		goto cleanup;
	err = merge_base(t, &gr, &m.base);
	if (err)
		goto cleanup;
	m.v = big_alloc((t->nr_rows + gr.nr + 1) * sizeof(*m.v), &m.mapped);
	if (!m.v) {
		err = -ENOMEM;
		goto cleanup;
	}
	merge_rows(&m, t, &gr);
	unwind_table__replace_rows(t, m.v, m.nr, m.mapped, m.base);
	t->sources |= TABLE_SRC_GOPCLNTAB;
cleanup:
	if (!err) {
		t->nr_go_funcs = gr.nr_funcs;
		t->nr_go_sp_write = gr.nr_sp_write;
		memcpy(t->nr_go_refused, gr.refused, sizeof(t->nr_go_refused));
	}
	table_go__free_rows(&gr);
	return err;
}

static const uint8_t *elf_code(const void *elf, uint64_t vaddr, size_t len)
{
	return elf_file__vaddr_bytes(elf, vaddr, len);
}

void table_go__add_elf(struct unwind_table *t, const struct elf_file *elf)
{
	const struct go_code code = { .bytes = elf_code, .ctx = elf };
	struct gopclntab *g;
	int err;

	if (elf_file__machine(elf) != EM_X86_64)
		return;
	g = gopclntab__open_elf(elf);
	if (!g)
		return;
	err = table_go__add(t, g, &code);
	if (err)
		pr_warn("%s: the SP deltas of Go's pclntab left out: %s", elf_file__path(elf),
			strerror(-err));
	gopclntab__free(g);
}
