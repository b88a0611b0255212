/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rows of x86-64 code that has no CFI, derived from its machine code
 * (core/unwind/code_x64.c): the functions of a file built without unwind
 * tables (musl's libc.so), for the unwind table (core/unwind/unwind_table.h).
 * Also the instruction length decoder they are derived with.
 */
#ifndef UNWPROF_CODE_X64_H
#define UNWPROF_CODE_X64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_file;
struct table_row;
struct unwind_table;

/* What code_x64__decode() says of one instruction. */
enum x64_flow {
	X64_NEXT = 0, /* goes on to the next instruction */
	X64_JCC,      /* a conditional branch to target, or the next instruction */
	X64_JMP,      /* an unconditional branch to target */
	X64_CALL,     /* a call of target, then the next instruction */
	X64_JMP_IND,  /* a jump through a register or memory */
	X64_CALL_IND, /* a call through a register or memory, then the next instruction */
	X64_RET,      /* ret, ret imm16 */
	X64_STOP,     /* ud2, hlt, int3, iret, sysret: no next instruction here */
};

struct x64_insn {
	uint8_t len;
	uint8_t map;   /* 0: one byte; 1: 0F; 2: 0F 38; 3: 0F 3A; 5, 6: EVEX maps */
	uint8_t op;    /* the opcode byte in its map */
	uint8_t mod;   /* ModRM, when has_modrm */
	uint8_t reg;   /* ModRM.reg with REX.R / VEX.R */
	uint8_t rm;    /* ModRM.rm with REX.B (a register when mod is 3) */
	uint8_t base;  /* the base register of a memory operand, 16: none, 17: rip */
	uint8_t index; /* its index register, 16: none */
	uint8_t scale; /* and the index's scale, 1, 2, 4 or 8 */
	uint8_t vvvv;  /* VEX/EVEX's extra register, 16: none */
	uint8_t rex;   /* the REX prefix, 0 when none */
	bool has_modrm;
	bool vex;    /* VEX or EVEX */
	bool opsize; /* 66 */
	uint8_t rep; /* F2, F3 or 0 */
	enum x64_flow flow;
	int64_t disp;	 /* of a memory operand */
	int64_t imm;	 /* the first immediate, sign-extended */
	uint64_t target; /* of a relative branch or call, from the address passed */
};

#define X64_RSP 4
#define X64_RBP 5
#define X64_INSN_MAX 15

/*
 * Decodes the instruction at p[0, avail), at ELF address addr. Returns its
 * length (at most 15) with *in filled, 0 when the bytes are not an
 * instruction the decoder knows or run past avail.
 */
size_t code_x64__decode(const uint8_t *p, size_t avail, uint64_t addr, struct x64_insn *in);

/*
 * The rows of the function at code[0, size), loaded at addr, derived from
 * its code alone (its entry the only way in): pcs from addr, an END row
 * after each stretch it does not reach and at its end. Returns how many
 * rows went into rows[0, max), -ENOEXEC when its code is not understood
 * (nothing is derived), -E2BIG when max is too small.
 */
long code_x64__function_rows(const uint8_t *code, size_t size, uint64_t addr,
			     struct table_row *rows, size_t max);

/*
 * Adds to t the rows derived from the code of ef's functions (.symtab and
 * .dynsym of ef and debug, which may be NULL, the targets of their calls,
 * the entry) where no row of t governs. 0 (also when nothing is derived), or
 * -ENOMEM. Counts what it derived in t (nr_code_funcs, nr_code_refused).
 */
int code_x64__add_rows(struct unwind_table *t, const struct elf_file *ef,
		       const struct elf_file *debug);

/*
 * The table of ef from its code alone, any CFI ignored: what dump-unwind
 * --from-code shows, and what the oracle compares with the CFI. NULL and
 * errno set on failure (ENOENT: not an x86-64 file).
 */
struct unwind_table *code_x64__table(const struct elf_file *ef, const struct elf_file *debug);

#endif
