// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rows of aarch64 code that has no CFI, where its code says what they
 * are: the vDSO and the PLT.
 *
 * The vDSO of aarch64 kernels has had no CFI since Linux 5.10: libgcc and
 * gdb recognise its signal trampoline by its code. Its functions are leaves
 * that leave sp and the link register as they found them, which is checked
 * here instruction by instruction: their rule is "CFA sp, return address
 * in x30". __kernel_rt_sigreturn, to which a signal handler returns, gets
 * the rule of the signal frame the kernel laid out at sp (bpf/arch.h), from
 * the nop the kernel puts before it so that a return address minus one
 * finds it.
 *
 * The PLT of aarch64 files has no CFI either (binutils, lld and mold emit
 * none): its stubs jump on without touching sp or x30, and the header that
 * lazy binding enters first (and a TLS descriptor's entry) push a pair of
 * registers before they jump.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "code_a64.h"
#include "unwind_table.h"
#include "../elf/elf_file.h"
#include "../util/log.h"
#include "../../bpf/arch.h"

#define A64_NOP 0xd503201fu
#define A64_MOV_X8_SIGRETURN 0xd2801168u /* mov x8, #139 (__NR_rt_sigreturn) */
#define A64_SVC_0 0xd4000001u
#define A64_STP_PAIR_SP_16 0xa9bf03e0u /* stp xN, xM, [sp, #-16]! */
#define A64_BR 0xd61f0000u	       /* br xN */

/* The instruction at vaddr, or 0 (udf, which no code here runs) when it is not in the file. */
static uint32_t insn_at(const struct elf_file *ef, uint64_t vaddr)
{
	const uint8_t *p = elf_file__vaddr_bytes(ef, vaddr, 4);
	uint32_t insn = 0;

	if (p)
		memcpy(&insn, p, 4);
	return insn;
}

/*
 * Whether insn may change sp or x30, so that "CFA sp, return address in
 * x30" would not hold after it: an add or sub (immediate or extended
 * register) into sp, a load or store that writes back its base register sp,
 * a call.
 */
static bool moves_sp_or_lr(uint32_t insn)
{
	bool rd_sp = (insn & 0x1f) == 31, rn_sp = ((insn >> 5) & 0x1f) == 31;

	if ((insn & 0x3f800000) == 0x11000000 && rd_sp) /* add/sub immediate, no flags */
		return true;
	if ((insn & 0x3fe00000) == 0x0b200000 && rd_sp) /* add/sub extended register */
		return true;
	if ((insn & 0x3b200400) == 0x38000400 && rn_sp) /* ldr/str pre- or post-indexed */
		return true;
	if ((insn & 0x3a800000) == 0x28800000 && rn_sp) /* ldp/stp pre- or post-indexed */
		return true;
	return (insn & 0xfc000000) == 0x94000000 || (insn & 0xfffffc1f) == 0xd63f0000; /* bl, blr */
}

static void row_lr(struct table_row *r, uint64_t pc)
{
	*r = (struct table_row){ .pc = pc, .cfa = UNW_CFA_SP, .ra = UNW_RA_LR };
}

static void row_signal(struct table_row *r, uint64_t pc)
{
	*r = (struct table_row){ .pc = pc,
				 .cfa = UNW_CFA_SIGNAL,
				 .cfa_off = UNW_A64_SIG_SP,
				 .fp = UNW_FP_AT_SP,
				 .fp_off = UNW_A64_SIG_X29,
				 .ra = UNW_RA_AT_SP,
				 .aux_off = UNW_A64_SIG_PC };
}

/* The rows of text [lo, hi) with the trampoline at sig (0: none), pcs from lo. */
static size_t vdso_rows(struct table_row *rows, uint64_t lo, uint64_t hi, uint64_t sig,
			const struct elf_file *ef)
{
	uint64_t from = sig, to = sig + 8;
	size_t n = 0;

	row_lr(&rows[n++], 0);
	if (sig) {
		/* A return address minus one lands on the nop before the trampoline. */
		if (insn_at(ef, sig - 4) == A64_NOP)
			from -= 4;
		if (from == lo)
			n = 0;
		row_signal(&rows[n++], from - lo);
		if (to < hi)
			row_lr(&rows[n++], to - lo);
	}
	rows[n++] = (struct table_row){ .pc = hi - lo, .cfa = UNW_CFA_END };
	return n;
}

struct unwind_table *code_a64__vdso(const struct elf_file *ef)
{
	struct elf_symbol_query q = { .name = "__kernel_rt_sigreturn", .type = STT_NOTYPE };
	struct unwind_table *t = NULL;
	struct elf_section text;
	uint64_t sig = 0;

	if (elf_file__machine(ef) != EM_AARCH64 || elf_file__find_symbols(ef, &q, 1) || !q.found ||
	    elf_file__section(ef, ".text", &text) || !text.size || text.size > UINT32_MAX) {
		errno = ENOENT;
		return NULL;
	}
	if (insn_at(ef, q.value) == A64_MOV_X8_SIGRETURN && insn_at(ef, q.value + 4) == A64_SVC_0 &&
	    q.value >= text.addr + 4 && q.value + 8 <= text.addr + text.size)
		sig = q.value;
	for (uint64_t pc = text.addr; pc + 4 <= text.addr + text.size; pc += 4) {
		if (moves_sp_or_lr(insn_at(ef, pc))) {
			pr_debug("%s: the instruction at %#" PRIx64 " moves sp or x30: no table",
				 elf_file__path(ef), pc);
			errno = ENOENT;
			return NULL;
		}
	}
	t = calloc(1, sizeof(*t));
	if (t)
		t->rows = calloc(4, sizeof(*t->rows));
	if (!t || !t->rows) {
		unwind_table__free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->machine = EM_AARCH64;
	t->base = text.addr;
	t->sources = TABLE_SRC_VDSO_CODE;
	t->nr_rows = vdso_rows(t->rows, text.addr, text.addr + text.size, sig, ef);
	return t;
}

/*
 * The rows of a PLT at [lo, hi) (pcs from lo) into rows[PLT_ROWS_MAX]:
 * "CFA sp, return address in x30", and CFA sp+16 in the entries that push
 * a pair of registers before they jump (the lazy-binding header pushes x16
 * and x30, a TLS descriptor's x2 and x3), from the push to their branch.
 * Returns how many, 0 when an instruction moves sp or x30 otherwise.
 */
#define PLT_ROWS_MAX 8

static size_t plt_rows(struct table_row *rows, uint64_t lo, uint64_t hi, const struct elf_file *ef)
{
	int32_t cfa_off = 0, next;
	size_t n = 0;
	uint32_t insn;

	row_lr(&rows[n++], 0);
	for (uint64_t pc = lo; pc + 4 <= hi; pc += 4) {
		insn = insn_at(ef, pc);
		if ((insn & 0xffff83e0) == A64_STP_PAIR_SP_16 && cfa_off == 0)
			next = 16;
		else if ((insn & 0xfffffc1f) == A64_BR)
			next = 0;
		else if (moves_sp_or_lr(insn))
			return 0;
		else
			continue;
		if (next == cfa_off || pc + 4 >= hi)
			continue;
		if (n == PLT_ROWS_MAX)
			return 0;
		row_lr(&rows[n], pc + 4 - lo);
		rows[n++].cfa_off = next;
		cfa_off = next;
	}
	return n;
}

int code_a64__plt(struct unwind_table *t, const struct elf_file *ef)
{
	static const char *const names[] = { ".plt", ".iplt" };
	struct table_row rows[PLT_ROWS_MAX];
	struct elf_section sec;
	size_t n;
	int err;

	if (t->machine != EM_AARCH64)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (elf_file__section(ef, names[i], &sec) || sec.size < 4 ||
		    sec.size > UINT32_MAX || sec.addr + sec.size < sec.addr)
			continue;
		n = plt_rows(rows, sec.addr, sec.addr + sec.size, ef);
		err = n ? unwind_table__add_rows(t, rows, n, sec.addr, sec.addr + sec.size) :
			  -EINVAL;
		if (err == -ENOMEM)
			return err;
		if (err) {
			pr_debug("%s: %s at %#" PRIx64 " has no rows of its code (%s)",
				 elf_file__path(ef), names[i], sec.addr,
				 n ? "CFI describes it" : "it moves sp or x30");
			continue;
		}
		t->sources |= TABLE_SRC_PLT_CODE;
	}
	return 0;
}
