// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading Go's stack switches from a binary. See goruntime.h.
 *
 * runtime.systemstack on amd64 (Go 1.17+), as the assembler emits it:
 *
 *	mov  %fs:TLS_G, %rax		the current g
 *	mov  G_M(%rax), %rbx		its m
 *	cmp  M_GSIGNAL(%rbx), %rax
 *	je   noswitch
 *	mov  M_G0(%rbx), %rdx		g0
 *	cmp  %rdx, %rax
 *	je   noswitch
 *	cmp  M_CURG(%rbx), %rax		not curg: bad
 *	jne  bad
 *	call gosave_systemstack_switch	g.sched = the goroutine's state
 *	mov  %rdx, %fs:TLS_G ; mov %rdx, %r14
 *	mov  SCHED_SP(%rdx), %rbx	g0's saved sp
 *	...
 *
 * and runtime.mcall saves the caller's state in g.sched through r14 (the g
 * register): mov %rbx, SCHED_PC(%r14); mov %rbx, SCHED_SP(%r14);
 * mov %rbp, SCHED_BP(%r14). The instructions are found in order, each by
 * its encoding with the registers of the one before it; the offsets they
 * hold must then agree (the same sched.sp in both functions, sched.pc just
 * above it), or the binary is taken for one of another shape.
 *
 * time.now and runtime.nanotime1 load m through r14 into rbx, save the old
 * vdsoPC and vdsoSP (into rcx, rdx), and store the new ones from the same
 * registers: mov G_M(%r14), %rbx; mov VDSO_PC(%rbx), %rcx;
 * mov VDSO_SP(%rbx), %rdx; ...; mov %rcx, VDSO_PC(%rbx);
 * mov %rdx, VDSO_SP(%rbx). Both, where both are there, must agree.
 */
#include <errno.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <elf.h>

#include "../../util/common.h"
#include "../../elf/elf_file.h"
#include "../../elf/gopclntab.h"
#include "goruntime.h"
#include "../../util/log.h"
#include "../../util/json.h"

#define REX_W 0x48
#define REX_WB 0x49 /* r8..r15 in r/m */
#define OP_MOV_LOAD 0x8b
#define OP_MOV_STORE 0x89
#define OP_CMP_LOAD 0x3b
#define PREFIX_FS 0x64
#define REG_R14_LOW 6 /* r14 with REX.B */
#define REG_RCX 1
#define REG_RDX 2
#define REG_RBX 3
#define REG_RBP 5

/* The functions read here, by name: the first three are needed, the vDSO's callers not. */
enum go_func { GO_SYSTEMSTACK, GO_MORESTACK, GO_MCALL, GO_NOW, GO_NANOTIME, GO_NR_FUNCS };

static const char *const go_func_names[GO_NR_FUNCS] = {
	"runtime.systemstack", "runtime.morestack", "runtime.mcall", "time.now",
	"runtime.nanotime1",
};

/* The bytes of one function, and a cursor over them. */
struct code {
	const uint8_t *p;
	size_t size;
	size_t at;
};

/*
 * Finds, from the cursor on, an instruction [rex] op modrm [disp] whose
 * modrm has register reg (-1: any) and base rm, with no displacement or
 * an 8- or 32-bit one; its displacement in *disp, its reg field in *reg_out.
 * The cursor moves past it. Returns false when there is none.
 */
static bool find_mem_op(struct code *c, uint8_t rex, uint8_t op, int reg, int rm, int32_t *disp,
			int *reg_out)
{
	for (size_t i = c->at; i + 3 <= c->size; i++) {
		uint8_t modrm, mod;
		size_t len;

		if (c->p[i] != rex || c->p[i + 1] != op)
			continue;
		modrm = c->p[i + 2];
		mod = modrm >> 6;
		if ((modrm & 7) != rm || mod == 3 || (rm & 7) == 4 /* needs a SIB */)
			continue;
		if (reg >= 0 && ((modrm >> 3) & 7) != reg)
			continue;
		if (mod == 0 && rm == 5)
			continue; /* rip-relative */
		len = mod == 1 ? 1 : mod == 2 ? 4 : 0;
		if (i + 3 + len > c->size)
			return false;
		if (len == 1)
			*disp = (int8_t)c->p[i + 3];
		else if (len == 4)
			memcpy(disp, &c->p[i + 3], 4);
		else
			*disp = 0;
		if (reg_out)
			*reg_out = (modrm >> 3) & 7;
		c->at = i + 3 + len;
		return true;
	}
	return false;
}

/* mov %fs:DISP32, %reg: the load of the current g. */
static bool find_tls_load(struct code *c, int32_t *disp, int *reg)
{
	for (size_t i = c->at; i + 9 <= c->size; i++) {
		const uint8_t *q = &c->p[i];

		if (q[0] != PREFIX_FS || q[1] != REX_W || q[2] != OP_MOV_LOAD ||
		    (q[3] & 0xc7) != 0x04 || q[4] != 0x25)
			continue;
		memcpy(disp, &q[5], 4);
		*reg = (q[3] >> 3) & 7;
		c->at = i + 9;
		return true;
	}
	return false;
}

static bool offset_ok(int32_t d)
{
	return d >= 0 && d < 4096 && d % 8 == 0;
}

/* The offsets systemstack uses. */
static int read_systemstack(struct code c, struct goruntime *gr)
{
	int32_t tls, g_m, gsignal, g0, curg, sched_sp;
	int g, m, g0_reg;

	if (!find_tls_load(&c, &tls, &g) || !find_mem_op(&c, REX_W, OP_MOV_LOAD, -1, g, &g_m, &m) ||
	    !find_mem_op(&c, REX_W, OP_CMP_LOAD, g, m, &gsignal, NULL) ||
	    !find_mem_op(&c, REX_W, OP_MOV_LOAD, -1, m, &g0, &g0_reg) ||
	    !find_mem_op(&c, REX_W, OP_CMP_LOAD, g, m, &curg, NULL) ||
	    !find_mem_op(&c, REX_W, OP_MOV_LOAD, -1, g0_reg, &sched_sp, NULL))
		return -ENOTSUP;
	if (!offset_ok(g_m) || !offset_ok(g0) || !offset_ok(curg) || !offset_ok(sched_sp) ||
	    curg == gsignal || curg == g0)
		return -ENOTSUP;
	gr->tls_g = tls;
	gr->g_m = g_m;
	gr->m_g0 = g0;
	gr->m_curg = curg;
	gr->sched_sp = sched_sp;
	return 0;
}

/* The sched offsets mcall stores to: pc, sp (both from rbx), then bp. */
static int read_mcall(struct code c, struct goruntime *gr)
{
	int32_t pc, sp, bp;

	if (!find_mem_op(&c, REX_WB, OP_MOV_STORE, REG_RBX, REG_R14_LOW, &pc, NULL) ||
	    !find_mem_op(&c, REX_WB, OP_MOV_STORE, REG_RBX, REG_R14_LOW, &sp, NULL) ||
	    !find_mem_op(&c, REX_WB, OP_MOV_STORE, REG_RBP, REG_R14_LOW, &bp, NULL))
		return -ENOTSUP;
	/* gobuf: sp, then pc; bp further on. And systemstack's view of sched.sp. */
	if (!offset_ok(pc) || !offset_ok(sp) || !offset_ok(bp) || pc != sp + 8 || bp <= pc ||
	    (uint32_t)sp != gr->sched_sp)
		return -ENOTSUP;
	gr->sched_pc = pc;
	gr->sched_bp = bp;
	return 0;
}

/* The offsets of m.vdsoPC and m.vdsoSP a caller of the vDSO loads and stores. */
static int read_vdso_caller(struct code c, const struct goruntime *gr, int32_t *pc, int32_t *sp)
{
	int32_t g_m, pc_store, sp_store;

	if (!find_mem_op(&c, REX_WB, OP_MOV_LOAD, REG_RBX, REG_R14_LOW, &g_m, NULL) ||
	    !find_mem_op(&c, REX_W, OP_MOV_LOAD, REG_RCX, REG_RBX, pc, NULL) ||
	    !find_mem_op(&c, REX_W, OP_MOV_LOAD, REG_RDX, REG_RBX, sp, NULL) ||
	    !find_mem_op(&c, REX_W, OP_MOV_STORE, REG_RCX, REG_RBX, &pc_store, NULL) ||
	    !find_mem_op(&c, REX_W, OP_MOV_STORE, REG_RDX, REG_RBX, &sp_store, NULL))
		return -ENOTSUP;
	if ((uint32_t)g_m != gr->g_m || !offset_ok(*pc) || !offset_ok(*sp) || *pc == *sp ||
	    pc_store != *pc || sp_store != *sp)
		return -ENOTSUP;
	return 0;
}

/* The bytes of function f, from .text. */
static int function_code(const struct elf_section *text, const struct gopclntab_func *f,
			 struct code *c)
{
	if (f->entry < text->addr || f->end <= f->entry || f->end - text->addr > text->size)
		return -EINVAL;
	c->p = text->data + (f->entry - text->addr);
	c->size = f->end - f->entry;
	c->at = 0;
	return 0;
}

/* Finds the functions of go_func_names by name (end 0: not there); 0 when the needed are. */
static int find_functions(const struct gopclntab *t, struct gopclntab_func *fs)
{
	size_t n = gopclntab__count(t), found = 0;

	for (size_t i = 0; i < n && found < GO_NR_FUNCS; i++) {
		struct gopclntab_func f;

		if (gopclntab__func(t, i, &f))
			break;
		for (int k = 0; k < GO_NR_FUNCS; k++) {
			if (!fs[k].end && strcmp(f.name, go_func_names[k]) == 0) {
				fs[k] = f;
				found++;
				break;
			}
		}
	}
	return fs[GO_SYSTEMSTACK].end && fs[GO_MORESTACK].end && fs[GO_MCALL].end ? 0 : -ENOENT;
}

/*
 * The vDSO's callers of fs into gr, where each one there has the shape
 * read and all agree; otherwise none, and the walk stops at them as before.
 */
static void read_vdso_callers(const struct elf_section *text, const struct gopclntab_func *fs,
			      struct goruntime *gr)
{
	int32_t pc = 0, sp = 0;

	for (int k = GO_NOW; k <= GO_NANOTIME; k++) {
		int32_t pc_k, sp_k;
		struct code c;

		if (!fs[k].end)
			continue;
		if (function_code(text, &fs[k], &c) || read_vdso_caller(c, gr, &pc_k, &sp_k) ||
		    (pc && (pc_k != pc || sp_k != sp))) {
			pr_debug("%s: an unknown shape: walks stop at Go's vDSO calls",
				 go_func_names[k]);
			return;
		}
		pc = pc_k;
		sp = sp_k;
	}
	if (!pc)
		return;
	gr->m_vdso_pc = pc;
	gr->m_vdso_sp = sp;
	if (fs[GO_NOW].end) {
		gr->now_lo = fs[GO_NOW].entry;
		gr->now_hi = fs[GO_NOW].end;
	}
	if (fs[GO_NANOTIME].end) {
		gr->nanotime_lo = fs[GO_NANOTIME].entry;
		gr->nanotime_hi = fs[GO_NANOTIME].end;
	}
}

int goruntime__read(const struct elf_file *ef, struct goruntime *gr)
{
	struct gopclntab_func fs[GO_NR_FUNCS] = {};
	struct elf_section text, note;
	struct gopclntab *t;
	struct code ss, mc;
	int err;

	memset(gr, 0, sizeof(*gr));
	/* Go's linker marks what it links: other files are not searched for a pclntab. */
	if (elf_file__section(ef, ".note.go.buildid", &note) &&
	    elf_file__section(ef, ".go.buildinfo", &note))
		return -ENOENT;
	t = gopclntab__open_elf(ef);
	if (!t)
		return -ENOENT;
	err = find_functions(t, fs);
	if (!err && (elf_file__machine(ef) != EM_X86_64 || elf_file__section(ef, ".text", &text)))
		err = -ENOTSUP;
	if (!err && (function_code(&text, &fs[GO_SYSTEMSTACK], &ss) ||
		     function_code(&text, &fs[GO_MCALL], &mc)))
		err = -ENOTSUP;
	if (!err)
		err = read_systemstack(ss, gr);
	if (!err)
		err = read_mcall(mc, gr);
	if (!err) {
		gr->systemstack_lo = fs[GO_SYSTEMSTACK].entry;
		gr->systemstack_hi = fs[GO_SYSTEMSTACK].end;
		gr->morestack_lo = fs[GO_MORESTACK].entry;
		gr->morestack_hi = fs[GO_MORESTACK].end;
		gr->mcall_lo = fs[GO_MCALL].entry;
		gr->mcall_hi = fs[GO_MCALL].end;
		read_vdso_callers(&text, fs, gr);
	}
	if (err == -ENOTSUP)
		pr_debug(
			"%s: Go's stack switch has an unknown shape: walks stop at the system stack",
			elf_file__path(ef));
	gopclntab__free(t);
	return err;
}

/* How the walk follows Go's stack switches in this file, as dump-unwind shows it. */
void goruntime__print(FILE *f, const struct goruntime *g)
{
	fprintf(f,
		"Go switch:   runtime.systemstack %#" PRIx64 "-%#" PRIx64
		", runtime.morestack %#" PRIx64 "-%#" PRIx64 "\n",
		g->systemstack_lo, g->systemstack_hi, g->morestack_lo, g->morestack_hi);
	fprintf(f,
		"             g at fs%+d; g.m %u, m.g0 %u, m.curg %u, g.sched sp %u pc %u bp %u\n",
		g->tls_g, g->g_m, g->m_g0, g->m_curg, g->sched_sp, g->sched_pc, g->sched_bp);
	if (g->m_vdso_sp)
		fprintf(f,
			"             vDSO calls: time.now %#" PRIx64 "-%#" PRIx64
			", runtime.nanotime1 %#" PRIx64 "-%#" PRIx64 "; m.vdsoPC %u, m.vdsoSP %u\n",
			g->now_lo, g->now_hi, g->nanotime_lo, g->nanotime_hi, g->m_vdso_pc,
			g->m_vdso_sp);
}

/* A range [lo, hi) as a JSON array of two hexadecimal strings. */
static void json_range(struct json_writer *jw, const char *key, uint64_t lo, uint64_t hi)
{
	char hex[24];

	json__key(jw, key);
	json__array_start(jw);
	snprintf(hex, sizeof(hex), "%#" PRIx64, lo);
	json__string(jw, hex);
	snprintf(hex, sizeof(hex), "%#" PRIx64, hi);
	json__string(jw, hex);
	json__array_end(jw);
}

/* The vDSO's callers the walk goes back from (core/runtimes/go/goruntime.h), when read. */
static void json_go_vdso(struct json_writer *jw, const struct goruntime *g)
{
	if (!g->m_vdso_sp)
		return;
	json__key(jw, "vdso");
	json__object_start(jw);
	if (g->now_hi)
		json_range(jw, "time.now", g->now_lo, g->now_hi);
	if (g->nanotime_hi)
		json_range(jw, "runtime.nanotime1", g->nanotime_lo, g->nanotime_hi);
	json__uint_field(jw, "m_vdso_pc", g->m_vdso_pc);
	json__uint_field(jw, "m_vdso_sp", g->m_vdso_sp);
	json__object_end(jw);
}

void goruntime__print_json(struct json_writer *jw, const struct goruntime *g)
{
	const struct {
		const char *name;
		uint32_t off;
	} offs[] = { { "g_m", g->g_m },		  { "m_g0", g->m_g0 },
		     { "m_curg", g->m_curg },	  { "sched_sp", g->sched_sp },
		     { "sched_pc", g->sched_pc }, { "sched_bp", g->sched_bp } };

	json__key(jw, "go_switch");
	json__object_start(jw);
	json_range(jw, "systemstack", g->systemstack_lo, g->systemstack_hi);
	json_range(jw, "morestack", g->morestack_lo, g->morestack_hi);
	json__int_field(jw, "tls_g", g->tls_g);
	for (size_t i = 0; i < ARRAY_SIZE(offs); i++)
		json__uint_field(jw, offs[i].name, offs[i].off);
	json_go_vdso(jw, g);
	json__object_end(jw);
}
