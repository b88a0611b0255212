// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading what a walk of Perl's frames needs from an interpreter's ELF
 * file. See plruntime.h. Every symbol and relocation comes from the file
 * and is checked against it.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../../util/common.h"
#include "../../elf/elf_file.h"
#include "../../util/log.h"
#include "../../util/json.h"
#include "bpf/abi.h"
#include "plruntime.h"

/*
 * The offsets of each version known, from its headers (intrpvar.h, cop.h,
 * sv.h, cv.h, gv.h, hv.h, opnames.h) as Debian builds it (threads, x86_64):
 * 5.36 from Debian 12's libperl5.36, 5.42 from Debian sid's libperl5.42;
 * tests/oracle/perl_offsets.sh compiles each field's offset against each
 * version's installed headers and compares. From 5.36 to 5.42 the
 * context's block reordered its fields (blk_oldsp grew to an SSize_t)
 * without moving those read here, and ops were added before the evals'.
 */
#define PL_OFFSETS_COMMON                                                                        \
	.interp_op = 8, .interp_curcop = 208, .interp_curstackinfo = 224, .si_cxstack = 8,       \
	.si_prev = 16, .si_cxix = 32, .si_cxmax = 36, .si_type = 44, .cx_size = 104,             \
	.cx_oldcop = 16, .cx_retop = 48, .cx_cv = 72, .cop_line = 36, .cop_file = 48,            \
	.sv_flags = 12, .sv_u = 16, .cv_stash = 32, .cv_start = 40, .cv_gv = 56, .cv_flags = 92, \
	.gv_name = 32, .gv_stash = 40, .gp_egv = 56, .hv_aux = 32, .aux_name = 0,                \
	.aux_name_count = 28, .hek_len = 4, .hek_key = 8, .op_type = 32

static const struct {
	uint8_t revision, version;
	struct pl_offsets off;
} pl_table[] = {
	{ 5,
	  36,
	  { PL_OFFSETS_COMMON, .op_require = 342, .op_dofile = 343, .op_entereval = 345,
	    .op_nextstate = 195, .op_dbstate = 196, .op_mapstart = 171, .op_mapwhile = 172,
	    .op_grepstart = 169, .op_grepwhile = 170 } },
	{ 5,
	  42,
	  { PL_OFFSETS_COMMON, .op_require = 349, .op_dofile = 350, .op_entereval = 352,
	    .op_nextstate = 202, .op_dbstate = 203, .op_mapstart = 178, .op_mapwhile = 179,
	    .op_grepstart = 173, .op_grepwhile = 174 } },
};

enum { SYM_REVISION, SYM_VERSION, SYM_SUBVERSION, SYM_RUNOPS, SYM_CONTEXT, SYM_NR };

static const struct elf_symbol_query pl_sym_names[SYM_NR] = {
	[SYM_REVISION] = { "PL_revision", STT_OBJECT },
	[SYM_VERSION] = { "PL_version", STT_OBJECT },
	[SYM_SUBVERSION] = { "PL_subversion", STT_OBJECT },
	[SYM_RUNOPS] = { "Perl_runops_standard", STT_FUNC },
	[SYM_CONTEXT] = { "PL_current_context", STT_TLS },
};

const struct pl_offsets *plruntime__offsets_of(unsigned int revision, unsigned int version)
{
	for (size_t i = 0; i < ARRAY_SIZE(pl_table); i++)
		if (pl_table[i].revision == revision && pl_table[i].version == version)
			return &pl_table[i].off;
	return NULL;
}

/*
 * Whether the fields the BPF walk reads lie in the bytes it reads at once
 * (bpf/unwind_perl.h), and its offsets fit their bytes of struct
 * unw_perl_proc.
 */
static bool offsets_fit(const struct pl_offsets *o)
{
	return o->cx_oldcop + 8 <= UNW_PL_CX_READ && o->cx_retop + 8 <= UNW_PL_CX_READ &&
	       o->cx_cv + 8 <= UNW_PL_CX_READ && o->sv_flags + 4 <= UNW_PL_SV_READ &&
	       o->sv_u + 8 <= UNW_PL_SV_READ && o->cv_flags >= o->cv_gv &&
	       o->cv_flags - o->cv_gv + 4 <= UNW_PL_CV_READ && o->cv_gv + UNW_PL_CV_READ <= 255 &&
	       o->cop_file >= o->cop_line && o->cop_file - o->cop_line + 8 <= UNW_PL_COP_READ &&
	       o->cx_size <= 255 && o->si_type <= 255 && o->gp_egv <= 255 && o->cv_start <= 255 &&
	       o->op_type + 2 <= UNW_PL_OP_READ && o->interp_curstackinfo <= 65535 &&
	       o->interp_curcop <= 65535;
}

/* The byte of the one-byte object s into *v; -EINVAL when it is not one. */
static int read_byte(const struct elf_file *ef, const struct elf_symbol_query *s, uint8_t *v)
{
	const uint8_t *b = s->found && s->size == 1 ? elf_file__vaddr_bytes(ef, s->value, 1) : NULL;

	if (!b)
		return -EINVAL;
	*v = *b;
	return 0;
}

static int read_version(const struct elf_file *ef, const struct elf_symbol_query *syms,
			struct plruntime *pr)
{
	if (read_byte(ef, &syms[SYM_REVISION], &pr->revision) ||
	    read_byte(ef, &syms[SYM_VERSION], &pr->version) ||
	    read_byte(ef, &syms[SYM_SUBVERSION], &pr->subversion))
		return -EINVAL;
	return 0;
}

/*
 * The GOT slot the dynamic loader fills for PL_current_context: with the
 * variable's offset from the thread pointer (R_X86_64_TPOFF64, the
 * executable's own variable), or else with its module's id
 * (R_X86_64_DTPMOD64, a libperl's). -ENOTSUP when there is neither.
 */
static int read_tls(const struct elf_file *ef, const struct elf_symbol_query *context,
		    struct plruntime *pr)
{
	struct elf_tls_slots slots;

	elf_file__tls_slots(ef, "PL_current_context", &slots);
	if (slots.tpoff) {
		pr->tls_got = slots.tpoff;
		pr->tls_static = true;
		return 0;
	}
	if (!slots.dtpmod || context->value % 8 || context->value >= 65536)
		return -ENOTSUP;
	pr->tls_got = slots.dtpmod;
	pr->tls_offset = context->value;
	return 0;
}

int plruntime__read(const struct elf_file *ef, struct plruntime *pr)
{
	struct elf_symbol_query syms[SYM_NR];
	const struct elf_symbol_query *runops = &syms[SYM_RUNOPS];
	const struct pl_offsets *off;
	int err;

	memset(pr, 0, sizeof(*pr));
	memcpy(syms, pl_sym_names, sizeof(syms));
	err = elf_file__find_symbols(ef, syms, SYM_NR);
	if (err)
		return err;
	if (!syms[SYM_VERSION].found || !runops->found)
		return -ENOENT;
	if (elf_file__machine(ef) != EM_X86_64) {
		pr_debug("%s: Perl's offsets are known on x86_64 only", elf_file__path(ef));
		return -ENOTSUP;
	}
	if (read_version(ef, syms, pr)) {
		pr_debug("%s: PL_version is not a version", elf_file__path(ef));
		return -EINVAL;
	}
	if (!runops->size || !elf_file__vaddr_bytes(ef, runops->value, runops->size)) {
		pr_debug("%s: Perl_runops_standard lies outside the file", elf_file__path(ef));
		return -EINVAL;
	}
	/* Known first, so that the samples of a version refused are counted there. */
	pr->runops_lo = runops->value;
	pr->runops_hi = runops->value + runops->size;
	off = plruntime__offsets_of(pr->revision, pr->version);
	if (off && !offsets_fit(off)) {
		pr_debug("%s: Perl %u.%u's offsets lie outside what the walk reads",
			 elf_file__path(ef), pr->revision, pr->version);
		return -ENOTSUP;
	}
	if (!off) {
		pr_debug("%s: Perl %u.%u is not supported", elf_file__path(ef), pr->revision,
			 pr->version);
		return -ENOTSUP;
	}
	pr->off = *off;
	if (!syms[SYM_CONTEXT].found || read_tls(ef, &syms[SYM_CONTEXT], pr)) {
		pr_debug("%s: no thread-local PL_current_context reached as known: "
			 "a perl without threads",
			 elf_file__path(ef));
		return -ENOTSUP;
	}
	return 0;
}

/* What a walk of Perl's frames reads in this file, as dump-unwind shows it. */
void plruntime__print(FILE *f, const struct plruntime *p)
{
	fprintf(f,
		"Perl:        %u.%u.%u, Perl_runops_standard %#" PRIx64 "-%#" PRIx64
		", PL_current_context %s %#" PRIx64,
		p->revision, p->version, p->subversion, p->runops_lo, p->runops_hi,
		p->tls_static ? "at the thread pointer plus the offset in the GOT at" :
				"in its module's TLS block (module id in the GOT at",
		p->tls_got);
	if (p->tls_static)
		fprintf(f, "\n");
	else
		fprintf(f, ", offset %#" PRIx64 ")\n", p->tls_offset);
}

void plruntime__print_json(struct json_writer *jw, const struct plruntime *p)
{
	const struct pl_offsets *o = &p->off;
	const struct {
		const char *name;
		int32_t value;
	} fields[] = {
		{ "interp.op", o->interp_op },
		{ "interp.curcop", o->interp_curcop },
		{ "interp.curstackinfo", o->interp_curstackinfo },
		{ "si.cxstack", o->si_cxstack },
		{ "si.prev", o->si_prev },
		{ "si.cxix", o->si_cxix },
		{ "si.cxmax", o->si_cxmax },
		{ "si.type", o->si_type },
		{ "cx.size", o->cx_size },
		{ "cx.oldcop", o->cx_oldcop },
		{ "cx.retop", o->cx_retop },
		{ "cx.cv", o->cx_cv },
		{ "cop.line", o->cop_line },
		{ "cop.file", o->cop_file },
		{ "sv.flags", o->sv_flags },
		{ "sv.u", o->sv_u },
		{ "cv.stash", o->cv_stash },
		{ "cv.start", o->cv_start },
		{ "op.type", o->op_type },
		{ "cv.gv", o->cv_gv },
		{ "cv.flags", o->cv_flags },
		{ "gv.name", o->gv_name },
		{ "gv.stash", o->gv_stash },
		{ "gp.egv", o->gp_egv },
		{ "hv.aux", o->hv_aux },
		{ "aux.name", o->aux_name },
		{ "aux.name_count", o->aux_name_count },
		{ "hek.len", o->hek_len },
		{ "hek.key", o->hek_key },
		{ "op.require", o->op_require },
		{ "op.dofile", o->op_dofile },
		{ "op.entereval", o->op_entereval },
		{ "op.nextstate", o->op_nextstate },
		{ "op.dbstate", o->op_dbstate },
		{ "op.mapstart", o->op_mapstart },
		{ "op.mapwhile", o->op_mapwhile },
		{ "op.grepstart", o->op_grepstart },
		{ "op.grepwhile", o->op_grepwhile },
	};

	json__key(jw, "perl");
	json__object_start(jw);
	json__key(jw, "version");
	json__stringf(jw, "%u.%u.%u", p->revision, p->version, p->subversion);
	json__key(jw, "runops");
	json__array_start(jw);
	json__stringf(jw, "%#" PRIx64, p->runops_lo);
	json__stringf(jw, "%#" PRIx64, p->runops_hi);
	json__array_end(jw);
	json__key(jw, "tls_got");
	json__stringf(jw, "%#" PRIx64, p->tls_got);
	json__key(jw, "tls");
	json__string(jw, p->tls_static ? "static" : "module");
	json__key(jw, "tls_offset");
	json__stringf(jw, "%#" PRIx64, p->tls_offset);
	json__key(jw, "offsets");
	json__object_start(jw);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		json__key(jw, fields[i].name);
		json__int(jw, fields[i].value);
	}
	json__object_end(jw);
	json__object_end(jw);
}
