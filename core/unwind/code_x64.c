// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rows of x86-64 code that has no CFI, derived from its machine code:
 * the functions of a file built without unwind tables, as Debian's musl
 * libc.so (its FDEs describe 4 functions), whose callers a sample in
 * memcpy or malloc would lose, and below which no stack reaches _start.
 *
 * Functions start where the file says: its function symbols (.symtab and
 * .dynsym, the debug file's too), its entry, and the targets of the calls
 * found by following their code (static functions have no symbol); a
 * function runs up to the next start or the end its symbol's size gives.
 * Where a call is followed by padding, or by a prologue at an aligned
 * address, the callee does not return; what follows such a call or the end
 * of a sized function, aligned and reached by no jump, is taken for a
 * function that only a pointer leads to (one that jumps into another is
 * refused). gcc's NAME.cold parts are entered only by jumps, with their
 * frame. Only the code no row of the table (no FDE) governs is looked at,
 * so CFI always wins.
 *
 * Each function's code is followed from its entry along every branch, one
 * instruction at a time (the length decoder below), with the state "CFA is
 * rsp+N or rbp+N, the caller's rbp is saved at CFA+M or in rbp", which its
 * pushes and pops, sub/add/lea of rsp, mov %rsp,%rbp, mov %rbp,%rsp and
 * leave change; a branch gives its target the state at the branch, so the
 * code after an early ret (shrink-wrapping) or after an epilogue that other
 * paths jump past gets the rule of the paths that reach it. A jump out of a
 * function gives its target in another function the state of the jump (a
 * tail call: the entry's; a cold part: the frame of its hot part). rbp
 * zeroed by code that did not save it marks the outermost frame, as the
 * psABI asks of _start and a thread's entry in clone: its rows say that
 * there is no caller (the return address undefined).
 *
 * A wrong row is worse than none (without a row the walk falls back to
 * frame pointers, and counts it), so a function gets no row at all when its
 * code is not understood on a path from its entry: an instruction the
 * decoder does not know, rsp set from a register or aligned (outside a
 * frame kept in rbp), rbp written while it holds the frame, two paths that
 * meet in different states, a ret whose CFA is not rsp+8, a jump into it
 * from code whose state is unknown, or instructions that overlap. Code that
 * no path reaches gets no row either: behind an indirect jump, unless it is
 * a position-independent jump table whose bound the code gives (see
 * jump_table()), whose targets get the frame of the jump.
 *
 * The rows are those gcc's CFI gives for the same code, rule for rule:
 * the CFA follows rbp from mov %rsp,%rbp to the pop of rbp or leave
 * (tests/oracle/code_x64_oracle.py compares them with a musl built with
 * unwind tables).
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "code_x64.h"
#include "unwind_table.h"
#include "../elf/elf_file.h"
#include "../symbols/symtab.h"
#include "../util/common.h"
#include "../util/log.h"

/* ---- the length decoder ---- */

enum {
	F_M = 1 << 0,	    /* a ModRM byte */
	F_I8 = 1 << 1,	    /* an 8-bit immediate */
	F_IZ = 1 << 2,	    /* a 16- or 32-bit immediate (66) */
	F_I16 = 1 << 3,	    /* a 16-bit immediate */
	F_REL8 = 1 << 4,    /* an 8-bit displacement of a branch */
	F_RELZ = 1 << 5,    /* a 32-bit displacement of a branch */
	F_SPECIAL = 1 << 6, /* prefixes, escapes and the opcodes sized by hand */
	F_BAD = 1 << 7,	    /* invalid in 64-bit mode, or not known here */
};

#define M F_M
#define S F_SPECIAL
#define B F_BAD

/* clang-format off */
static const uint8_t map0[256] = {
	[0x00 ... 0x03] = M, [0x04] = F_I8, [0x05] = F_IZ, [0x06 ... 0x07] = B,
	[0x08 ... 0x0b] = M, [0x0c] = F_I8, [0x0d] = F_IZ, [0x0e] = B, [0x0f] = S,
	[0x10 ... 0x13] = M, [0x14] = F_I8, [0x15] = F_IZ, [0x16 ... 0x17] = B,
	[0x18 ... 0x1b] = M, [0x1c] = F_I8, [0x1d] = F_IZ, [0x1e ... 0x1f] = B,
	[0x20 ... 0x23] = M, [0x24] = F_I8, [0x25] = F_IZ, [0x26] = S, [0x27] = B,
	[0x28 ... 0x2b] = M, [0x2c] = F_I8, [0x2d] = F_IZ, [0x2e] = S, [0x2f] = B,
	[0x30 ... 0x33] = M, [0x34] = F_I8, [0x35] = F_IZ, [0x36] = S, [0x37] = B,
	[0x38 ... 0x3b] = M, [0x3c] = F_I8, [0x3d] = F_IZ, [0x3e] = S, [0x3f] = B,
	[0x40 ... 0x4f] = S, [0x60 ... 0x61] = B, [0x62] = S, [0x63] = M,
	[0x64 ... 0x67] = S, [0x68] = F_IZ, [0x69] = M | F_IZ, [0x6a] = F_I8,
	[0x6b] = M | F_I8, [0x70 ... 0x7f] = F_REL8, [0x80] = M | F_I8, [0x81] = M | F_IZ,
	[0x82] = B, [0x83] = M | F_I8, [0x84 ... 0x8e] = M, [0x8f] = S, [0x9a] = B,
	[0xa0 ... 0xa3] = S, [0xa8] = F_I8, [0xa9] = F_IZ, [0xb0 ... 0xb7] = F_I8,
	[0xb8 ... 0xbf] = S, [0xc0 ... 0xc1] = M | F_I8, [0xc2] = F_I16, [0xc4 ... 0xc5] = S,
	[0xc6] = M | F_I8, [0xc7] = M | F_IZ, [0xc8] = S, [0xca] = F_I16, [0xcd] = F_I8,
	[0xce] = B, [0xd0 ... 0xd3] = M, [0xd4 ... 0xd6] = B, [0xd8 ... 0xdf] = M,
	[0xe0 ... 0xe3] = F_REL8, [0xe4 ... 0xe7] = F_I8, [0xe8 ... 0xe9] = F_RELZ, [0xea] = B,
	[0xeb] = F_REL8, [0xf0] = S, [0xf2 ... 0xf3] = S, [0xf6 ... 0xf7] = S,
	[0xfe ... 0xff] = M,
};

static const uint8_t map1[256] = {
	[0x00 ... 0x03] = M, [0x04] = B, [0x0a] = B, [0x0c] = B, [0x0d] = M, [0x0f] = M | F_I8,
	[0x10 ... 0x23] = M, [0x24 ... 0x27] = B, [0x28 ... 0x2f] = M, [0x38] = S, [0x39] = B,
	[0x3a] = S, [0x3b ... 0x3f] = B, [0x40 ... 0x6f] = M, [0x70 ... 0x73] = M | F_I8,
	[0x74 ... 0x76] = M, [0x78 ... 0x79] = M, [0x7a ... 0x7b] = B, [0x7c ... 0x7f] = M,
	[0x80 ... 0x8f] = F_RELZ, [0x90 ... 0x9f] = M, [0xa3] = M, [0xa4] = M | F_I8,
	[0xa5] = M, [0xa6 ... 0xa7] = B, [0xab] = M, [0xac] = M | F_I8, [0xad ... 0xb9] = M,
	[0xba] = M | F_I8, [0xbb ... 0xc1] = M, [0xc2] = M | F_I8, [0xc3] = M,
	[0xc4 ... 0xc6] = M | F_I8, [0xc7] = M, [0xd0 ... 0xff] = M,
};
/* clang-format on */

#undef M
#undef S
#undef B

/* The ModRM, SIB and displacement at p[0, avail): their length, or 0. */
static size_t decode_modrm(const uint8_t *p, size_t avail, struct x64_insn *in, unsigned int rex_x,
			   unsigned int rex_b)
{
	uint8_t modrm, sib;
	size_t n = 1, disp = 0;

	if (!avail)
		return 0;
	modrm = p[0];
	in->has_modrm = true;
	in->mod = modrm >> 6;
	in->reg = (in->reg & 8) | ((modrm >> 3) & 7);
	in->rm = (modrm & 7) | (rex_b << 3);
	in->base = 16;
	in->index = 16;
	if (in->mod == 3)
		return n;
	if ((modrm & 7) == 4) {
		if (avail < 2)
			return 0;
		sib = p[1];
		n = 2;
		in->base = (sib & 7) | (rex_b << 3);
		if ((((sib >> 3) & 7) | (rex_x << 3)) != 4)
			in->index = ((sib >> 3) & 7) | (rex_x << 3);
		in->scale = 1 << (sib >> 6);
		if ((sib & 7) == 5 && in->mod == 0) {
			in->base = 16;
			disp = 4;
		}
	} else if ((modrm & 7) == 5 && in->mod == 0) {
		in->base = 17;
		disp = 4;
	} else {
		in->base = in->rm;
	}
	if (in->mod == 1)
		disp = 1;
	else if (in->mod == 2)
		disp = 4;
	if (avail < n + disp)
		return 0;
	if (disp == 1)
		in->disp = (int8_t)p[n];
	else if (disp == 4)
		in->disp = (int32_t)((uint32_t)p[n] | (uint32_t)p[n + 1] << 8 |
				     (uint32_t)p[n + 2] << 16 | (uint32_t)p[n + 3] << 24);
	return n + disp;
}

static int64_t read_imm(const uint8_t *p, size_t size)
{
	uint64_t v = 0;

	for (size_t i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (size == 1)
		return (int8_t)v;
	if (size == 2)
		return (int16_t)v;
	if (size == 4)
		return (int32_t)v;
	return (int64_t)v;
}

/* The flags of opcode op of map 1-3 (or an EVEX map), VEX or not. */
static uint8_t map_flags(unsigned int map, uint8_t op, bool vex)
{
	if (map == 1)
		return vex ? F_M | ((op >= 0x70 && op <= 0x73) || op == 0xc2 ||
						    (op >= 0xc4 && op <= 0xc6) ?
					    F_I8 :
					    0) :
			     map1[op];
	if (map == 3)
		return F_M | F_I8;
	if (map == 2 || map == 5 || map == 6)
		return F_M;
	return F_BAD;
}

/* The flow of a one-byte or 0F instruction. */
static enum x64_flow flow_of(const struct x64_insn *in)
{
	if (in->map == 0) {
		switch (in->op) {
		case 0x70 ... 0x7f:
		case 0xe0 ... 0xe3:
			return X64_JCC;
		case 0xe9:
		case 0xeb:
			return X64_JMP;
		case 0xe8:
			return X64_CALL;
		case 0xc2:
		case 0xc3:
			return X64_RET;
		case 0xca:
		case 0xcb:
		case 0xcc:
		case 0xcf:
		case 0xf4:
			return X64_STOP;
		case 0xff:
			if (in->reg == 2 || in->reg == 3)
				return X64_CALL_IND;
			if (in->reg == 4 || in->reg == 5)
				return X64_JMP_IND;
			return X64_NEXT;
		}
		return X64_NEXT;
	}
	if (in->map == 1 && !in->vex) {
		if (in->op >= 0x80 && in->op <= 0x8f)
			return X64_JCC;
		if (in->op == 0x0b || in->op == 0x07 || in->op == 0x35 || in->op == 0xb9 ||
		    in->op == 0xff)
			return X64_STOP;
	}
	return X64_NEXT;
}

/* VEX (c4, c5) or EVEX (62) at p: fills in and returns the prefix's length, or 0. */
static size_t decode_vex(const uint8_t *p, size_t avail, struct x64_insn *in, unsigned int *rex_x,
			 unsigned int *rex_b)
{
	size_t n = p[0] == 0xc5 ? 2 : p[0] == 0xc4 ? 3 : 4;

	if (avail < n + 1)
		return 0;
	in->vex = true;
	in->reg = (p[1] & 0x80) ? 0 : 8;
	if (p[0] == 0xc5) {
		in->map = 1;
		in->vvvv = (~p[1] >> 3) & 15;
		*rex_x = *rex_b = 0;
		return n;
	}
	*rex_x = (p[1] & 0x40) ? 0 : 1;
	*rex_b = (p[1] & 0x20) ? 0 : 1;
	in->vvvv = (~p[2] >> 3) & 15;
	in->rex = 0x40 | ((p[2] & 0x80) ? 8 : 0); /* W */
	if (p[0] == 0xc4) {
		in->map = p[1] & 0x1f;
		return in->map >= 1 && in->map <= 3 ? n : 0;
	}
	/* EVEX: P0's bit 3 and P1's bit 2 are fixed. */
	in->map = p[1] & 7;
	if ((p[1] & 0x08) || !(p[2] & 0x04) || in->map == 0 || in->map == 4 || in->map == 7)
		return 0;
	return n;
}

size_t code_x64__decode(const uint8_t *p, size_t avail, uint64_t addr, struct x64_insn *in)
{
	unsigned int rex_x = 0, rex_b = 0, flags, imm = 0;
	bool addr32 = false;
	size_t n = 0, m;
	uint8_t b;

	*in = (struct x64_insn){ .base = 16, .index = 16, .vvvv = 16 };
	if (avail > X64_INSN_MAX)
		avail = X64_INSN_MAX;
	/* Legacy prefixes, then REX (ignored when a legacy prefix follows it). */
	for (;; n++) {
		if (n >= avail)
			return 0;
		b = p[n];
		if (b >= 0x40 && b <= 0x4f) {
			in->rex = b;
			continue;
		}
		if (!(map0[b] & F_SPECIAL) ||
		    !(b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 || b == 0x65 ||
		      b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3))
			break;
		in->rex = 0;
		if (b == 0x66)
			in->opsize = true;
		else if (b == 0x67)
			addr32 = true;
		else if (b == 0xf2 || b == 0xf3)
			in->rep = b;
	}
	rex_x = (in->rex >> 1) & 1;
	rex_b = in->rex & 1;
	in->reg = (in->rex & 4) << 1;
	if (b == 0xc4 || b == 0xc5 || b == 0x62) {
		if (in->rex || in->opsize || in->rep)
			return 0;
		m = decode_vex(p + n, avail - n, in, &rex_x, &rex_b);
		if (!m)
			return 0;
		n += m;
		in->op = p[n++];
		flags = map_flags(in->map, in->op, true);
		if (in->map == 1 && in->op == 0x77 && p[n - 2] != 0x62)
			flags = 0; /* vzeroupper, vzeroall */
	} else if (b == 0x0f) {
		if (++n >= avail)
			return 0;
		in->map = 1;
		if (p[n] == 0x38 || p[n] == 0x3a) {
			in->map = p[n] == 0x38 ? 2 : 3;
			if (++n >= avail)
				return 0;
		}
		in->op = p[n++];
		flags = map_flags(in->map, in->op, false);
	} else {
		in->op = b;
		n++;
		flags = map0[b];
		if (b == 0x8f) {
			/* pop r/m; with a ModRM.reg other than 0, AMD's XOP (not known here) */
			if (n >= avail || (p[n] & 0x38))
				return 0;
			flags = F_M;
		} else if (b >= 0xb8 && b <= 0xbf) {
			imm = (in->rex & 8) ? 8 : in->opsize ? 2 : 4;
			flags = 0;
		} else if (b >= 0xa0 && b <= 0xa3) {
			imm = addr32 ? 4 : 8; /* moffs */
			flags = 0;
		} else if (b == 0xc8) {
			imm = 3; /* enter imm16, imm8 */
			flags = 0;
		} else if (b == 0xf6 || b == 0xf7) {
			/* test r/m, imm: only /0 and /1 have an immediate */
			if (n >= avail)
				return 0;
			flags = F_M;
			if (!(p[n] & 0x30))
				flags |= b == 0xf6 ? F_I8 : F_IZ;
		} else if (flags & F_SPECIAL) {
			return 0;
		}
	}
	if (flags & F_BAD)
		return 0;
	if (flags & F_M) {
		m = decode_modrm(p + n, avail - n, in, rex_x, rex_b);
		if (!m)
			return 0;
		n += m;
	} else if (in->map == 0 && ((in->op >= 0x50 && in->op <= 0x5f) ||
				    (in->op >= 0x90 && in->op <= 0x97) || in->op >= 0xb0)) {
		in->rm = (in->op & 7) | (rex_b << 3); /* the register in the opcode */
	} else if (in->map == 1 && in->op >= 0xc8 && in->op <= 0xcf) {
		in->rm = (in->op & 7) | (rex_b << 3); /* bswap */
	}
	if (flags & (F_REL8 | F_RELZ)) {
		if (in->opsize)
			return 0; /* 16-bit branches: Intel and AMD differ */
		imm = flags & F_REL8 ? 1 : 4;
	} else if (flags & F_I8) {
		imm = 1;
	} else if (flags & F_IZ) {
		imm = in->opsize ? 2 : 4;
	} else if (flags & F_I16) {
		imm = 2;
	}
	if (imm) {
		if (avail - n < imm)
			return 0;
		in->imm = imm == 3 ? read_imm(p + n, 2) : read_imm(p + n, imm);
		n += imm;
	}
	in->len = (uint8_t)n;
	in->flow = flow_of(in);
	if (flags & (F_REL8 | F_RELZ))
		in->target = addr + n + (uint64_t)in->imm;
	return n;
}

/* ---- which registers an instruction writes ---- */

enum { W_REG = 1, W_RM = 2, W_OP = 4, W_VVVV = 8 };

/* What of insn a one-byte opcode writes (W_*), and whether it is a byte operation. */
static unsigned int writes_map0(const struct x64_insn *in, bool *byte)
{
	uint8_t op = in->op;

	*byte = false;
	if (op < 0x38 && (op & 7) <= 3) {
		*byte = !(op & 1);
		return op & 2 ? W_REG : W_RM;
	}
	switch (op) {
	case 0x63:
	case 0x69:
	case 0x6b:
	case 0x8a:
	case 0x8b:
	case 0x8d:
		*byte = op == 0x8a;
		return W_REG;
	case 0x80 ... 0x83:
		*byte = op == 0x80 || op == 0x82;
		return in->reg % 8 == 7 ? 0 : W_RM;
	case 0x86:
	case 0x87:
		*byte = op == 0x86;
		return W_REG | W_RM;
	case 0x88:
	case 0x89:
	case 0x8c:
	case 0x8f:
	case 0xc0:
	case 0xc1:
	case 0xc6:
	case 0xc7:
	case 0xd0 ... 0xd3:
		*byte = op == 0x88 || op == 0xc0 || op == 0xc6 || op == 0xd0 || op == 0xd2;
		return W_RM;
	case 0x58 ... 0x5f:
	case 0x90 ... 0x97:
	case 0xb0 ... 0xbf:
		*byte = op >= 0xb0 && op <= 0xb7;
		return W_OP;
	case 0xf6:
	case 0xf7:
		*byte = op == 0xf6;
		return in->reg % 8 == 2 || in->reg % 8 == 3 ? W_RM : 0;
	case 0xfe:
	case 0xff:
		*byte = op == 0xfe;
		return in->reg % 8 <= 1 ? W_RM : 0;
	}
	return 0;
}

/* The same of the 0F, 0F 38 and 0F 3A maps, legacy-encoded. */
static unsigned int writes_map123(const struct x64_insn *in, bool *byte)
{
	uint8_t op = in->op;

	*byte = false;
	if (in->map == 2)
		return op == 0xf0 || op == 0xf1 ? W_REG | W_RM : op == 0xf6 ? W_REG : 0;
	if (in->map == 3)
		return op >= 0x14 && op <= 0x17 ? W_RM : 0;
	switch (op) {
	case 0x02:
	case 0x03:
	case 0x2c:
	case 0x2d:
	case 0x40 ... 0x4f:
	case 0x50:
	case 0xaf:
	case 0xb6:
	case 0xb7:
	case 0xb8:
	case 0xbc ... 0xbf:
	case 0xc5:
	case 0xd7:
		return W_REG;
	case 0x00:
	case 0x01:
	case 0x20:
	case 0x21:
	case 0x78:
	case 0x90 ... 0x9f:
	case 0xa4:
	case 0xa5:
	case 0xab:
	case 0xac:
	case 0xad:
	case 0xb0:
	case 0xb1:
	case 0xb3:
	case 0xbb:
		*byte = (op >= 0x90 && op <= 0x9f) || op == 0xb0;
		return W_RM;
	case 0x7e:
		return in->rep == 0xf3 ? 0 : W_RM;
	case 0xba:
		return in->reg % 8 >= 5 ? W_RM : 0;
	case 0xc7:
		return in->reg % 8 >= 6 ? W_RM : 0;
	case 0xc0:
	case 0xc1:
		*byte = op == 0xc0;
		return W_REG | W_RM;
	case 0xc8 ... 0xcf:
		return W_OP;
	}
	return 0;
}

/* The same of VEX and EVEX: the few that write a general register. */
static unsigned int writes_vex(const struct x64_insn *in)
{
	uint8_t op = in->op;

	if (in->map == 1 || in->map == 5)
		return op == 0x50 || op == 0x2c || op == 0x2d || op == 0x78 || op == 0x79 ||
				       op == 0x7e || op == 0xc5 || op == 0xd7 || op == 0x93 ?
			       W_REG | W_RM :
			       0;
	if (in->map == 2)
		return op >= 0xf0 && op <= 0xf7 ? W_REG | W_RM | W_VVVV : 0;
	if (in->map == 3)
		return (op >= 0x14 && op <= 0x17) || op == 0xf0 ? W_REG | W_RM : 0;
	return 0;
}

/*
 * Whether insn may write general register r (rsp or rbp) other than as the
 * stack pointer of a push, pop, call or ret: without REX, registers 4 and 5
 * of a byte operation are ah and ch.
 */
static bool writes_reg(const struct x64_insn *in, unsigned int r)
{
	bool byte = false;
	unsigned int w;

	if (in->vex)
		w = writes_vex(in);
	else if (in->map == 0)
		w = writes_map0(in, &byte);
	else
		w = writes_map123(in, &byte);
	if (byte && !in->rex)
		return false;
	if ((w & W_REG) && in->reg == r)
		return true;
	if ((w & W_RM) && in->has_modrm && in->mod == 3 && in->rm == r)
		return true;
	if ((w & W_OP) && in->rm == r)
		return true;
	return (w & W_VVVV) && in->vvvv == r;
}

/* ---- the state of a frame along the code ---- */

enum { CFA_NONE = 0, CFA_RSP, CFA_RBP };

/*
 * The state before an instruction: CFA = rsp or rbp + cfa_off; with rbp,
 * CFA - rsp is sp_off when sp_known (with rsp it is cfa_off); the caller's
 * rbp at CFA + fp_slot, or still in rbp when fp_slot is 0.
 */
struct frame {
	uint8_t cfa;
	bool sp_known;
	bool outermost; /* rbp zeroed unsaved: no caller (see frame_step()) */
	int32_t cfa_off;
	int32_t sp_off;
	int32_t fp_slot;
};

static const struct frame entry_frame = { .cfa = CFA_RSP,
					  .sp_known = true,
					  .cfa_off = 8,
					  .sp_off = 8 };

/* Room for any frame a function makes (rsp at most this far below the CFA). */
#define FRAME_MAX (1 << 24)

static bool frame_same(const struct frame *a, const struct frame *b)
{
	if (a->outermost || b->outermost)
		return a->outermost == b->outermost;
	return a->cfa == b->cfa && a->cfa_off == b->cfa_off && a->fp_slot == b->fp_slot &&
	       a->sp_known == b->sp_known && (!a->sp_known || a->sp_off == b->sp_off);
}

/* rsp moves down by `by` bytes (up when negative); false when that cannot be. */
static bool frame_push(struct frame *f, int64_t by)
{
	int64_t v;

	if (!f->sp_known)
		return f->cfa == CFA_RBP;
	v = f->sp_off + by;
	if (v < 8 || v > FRAME_MAX)
		return false;
	f->sp_off = (int32_t)v;
	if (f->cfa == CFA_RSP)
		f->cfa_off = f->sp_off;
	return true;
}

/* pop %rbp: with a known rsp, the CFA follows rsp again. */
static bool frame_pop_rbp(struct frame *f)
{
	int32_t slot = -f->sp_off;

	if (!f->sp_known || !frame_push(f, -8))
		return false;
	f->cfa = CFA_RSP;
	f->cfa_off = f->sp_off;
	if (f->fp_slot == slot)
		f->fp_slot = 0;
	return true;
}

/* The frame after an instruction of the one-byte map that moves rsp or rbp; -1 when not one. */
static int step_stack(struct frame *f, const struct x64_insn *in)
{
	bool w64 = in->rex & 8, reg_form = in->has_modrm && in->mod == 3;
	unsigned int sub = in->reg % 8;

	switch (in->op) {
	case 0x50 ... 0x57:
		if (in->opsize || !frame_push(f, 8))
			return 0;
		if (in->rm == X64_RBP && !f->fp_slot && f->cfa == CFA_RSP)
			f->fp_slot = -f->sp_off;
		return 1;
	case 0x58 ... 0x5f:
		if (in->opsize || in->rm == X64_RSP)
			return 0;
		return in->rm == X64_RBP ? frame_pop_rbp(f) : frame_push(f, -8);
	case 0x8f:
		if (reg_form && (in->rm == X64_RSP || in->rm == X64_RBP))
			return in->rm == X64_RBP && !in->opsize && frame_pop_rbp(f);
		return !in->opsize && frame_push(f, -8);
	case 0x68:
	case 0x6a:
	case 0x9c:
		return !in->opsize && frame_push(f, 8);
	case 0x9d:
		return !in->opsize && frame_push(f, -8);
	case 0xff:
		if (sub != 6)
			return -1;
		return !in->opsize && frame_push(f, 8);
	case 0xc9: /* leave */
		if (f->cfa != CFA_RBP)
			return 0;
		f->sp_known = true;
		f->sp_off = f->cfa_off;
		return frame_pop_rbp(f);
	case 0xc8: /* enter */
		return 0;
	case 0x81:
	case 0x83:
		if (!reg_form || in->rm != X64_RSP || sub == 7)
			return -1;
		if (!w64 || in->opsize)
			return 0;
		if (sub == 0 || sub == 5)
			return frame_push(f, sub == 5 ? in->imm : -in->imm);
		return -1;
	case 0x8d: /* lea disp(%rsp), %rsp; lea disp(%rbp), %rsp with the CFA on rbp */
		if (in->reg != X64_RSP)
			return -1;
		if (!w64 || in->index != 16)
			return 0;
		if (in->base == X64_RSP)
			return frame_push(f, -in->disp);
		if (in->base == X64_RBP && f->cfa == CFA_RBP) {
			f->sp_known = true;
			f->sp_off = (int32_t)(f->cfa_off - in->disp);
			return f->sp_off >= 8 && f->sp_off <= FRAME_MAX;
		}
		return 0;
	case 0x89:
	case 0x8b: {
		unsigned int dst = in->op == 0x89 ? in->rm : in->reg;
		unsigned int src = in->op == 0x89 ? in->reg : in->rm;

		if (!reg_form || !w64)
			return -1;
		/*
		 * mov %rsp, %rbp right after push %rbp makes rbp the frame
		 * pointer; elsewhere rbp is a register like any other.
		 */
		if (dst == X64_RBP && src == X64_RSP) {
			if (f->cfa != CFA_RSP || !f->fp_slot || f->fp_slot != -f->sp_off)
				return f->cfa == CFA_RSP ? 1 : 0;
			f->cfa = CFA_RBP;
			f->cfa_off = f->sp_off;
			return 1;
		}
		if (dst == X64_RSP && src == X64_RBP) { /* mov %rbp, %rsp */
			if (f->cfa != CFA_RBP)
				return 0;
			f->sp_known = true;
			f->sp_off = f->cfa_off;
			return 1;
		}
		return -1;
	}
	}
	return -1;
}

/* Whether insn is xor or sub of register r with itself (any width: a 32-bit one clears it all). */
static bool is_zeroing(const struct x64_insn *in, unsigned int r)
{
	return in->map == 0 && !in->vex && in->has_modrm && in->mod == 3 && !in->opsize &&
	       (in->op == 0x31 || in->op == 0x33 || in->op == 0x29 || in->op == 0x2b) &&
	       in->reg == r && in->rm == r;
}

/*
 * The frame after insn, in place: false when it is not understood (rsp set
 * or aligned outside a frame kept in rbp, rbp written while it holds the
 * frame, a stack overflowing FRAME_MAX).
 */
static bool frame_step(struct frame *f, const struct x64_insn *in)
{
	int r = -1;

	/*
	 * The psABI's mark of the deepest frame: rbp zeroed by code that did
	 * not save it (it is callee-saved), as _start and a thread's entry in
	 * clone do before they call. What the stack holds after it is no
	 * caller's: the frame has none, whatever rsp does next.
	 */
	if (f->outermost)
		return true;
	if (is_zeroing(in, X64_RBP) && f->cfa == CFA_RSP && !f->fp_slot) {
		f->outermost = true;
		return true;
	}
	if (in->map == 0 && !in->vex)
		r = step_stack(f, in);
	if (r >= 0)
		return r;
	if (in->map == 1 && !in->vex &&
	    (in->op == 0xa0 || in->op == 0xa1 || in->op == 0xa8 || in->op == 0xa9))
		return false; /* push and pop of fs and gs */
	if (writes_reg(in, X64_RSP)) {
		if (f->cfa != CFA_RBP)
			return false;
		f->sp_known = false; /* alloca, stack realignment: the CFA is on rbp */
	}
	return !(f->cfa == CFA_RBP && writes_reg(in, X64_RBP));
}

static void frame_row(struct table_row *r, const struct frame *f, uint32_t pc)
{
	if (f->outermost) {
		*r = (struct table_row){ .pc = pc,
					 .cfa = UNW_CFA_SP,
					 .cfa_off = 8,
					 .fp = UNW_FP_UNCHANGED,
					 .ra = UNW_RA_UNDEFINED };
		return;
	}
	*r = (struct table_row){ .pc = pc,
				 .cfa = f->cfa == CFA_RBP ? UNW_CFA_FP : UNW_CFA_SP,
				 .cfa_off = f->cfa_off,
				 .fp = f->fp_slot ? UNW_FP_AT_CFA : UNW_FP_UNCHANGED,
				 .fp_off = f->fp_slot,
				 .ra = UNW_RA_AT_CFA };
}

/* ---- one function ---- */

/* A jump from one function into another, with its state. */
struct code_exit {
	uint64_t target;
	struct frame frame;
};

struct exits {
	struct code_exit *v;
	size_t nr, cap;
};

enum { AT_NONE = 0, AT_INSN, AT_INSIDE };

/* A function at [lo, lo + size) being followed from its entry. */
struct func {
	const uint8_t *code;
	uint64_t lo;
	size_t size;
	struct frame *at; /* per byte: the frame before the instruction there */
	uint8_t *kind;	  /* per byte: AT_* */
	uint8_t *jumped;  /* per byte: a branch of its own lands there */
	uint32_t *work;
	size_t nr_work, cap_work;
	struct exits *exits;	   /* where its jumps out go, NULL: not kept */
	const struct elf_file *ef; /* where its jump tables are read, NULL: not read */
	const char *why;	   /* why it is refused, NULL while it is not */
	uint64_t why_at;	   /* where */
};

static int exits_add(struct exits *e, uint64_t target, const struct frame *f)
{
	struct code_exit *v;

	if (e->nr == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 64;
		v = realloc(e->v, e->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		e->v = v;
	}
	e->v[e->nr++] = (struct code_exit){ .target = target, .frame = *f };
	return 0;
}

static int func_push(struct func *fn, uint32_t off)
{
	uint32_t *w;

	if (fn->nr_work == fn->cap_work) {
		fn->cap_work = fn->cap_work ? 2 * fn->cap_work : 64;
		w = realloc(fn->work, fn->cap_work * sizeof(*w));
		if (!w)
			return -ENOMEM;
		fn->work = w;
	}
	fn->work[fn->nr_work++] = off;
	return 0;
}

/* The frame f reaches off: 0, or -ENOMEM; fn->why set when it conflicts. */
static int func_merge(struct func *fn, uint64_t off, const struct frame *f)
{
	struct frame *s = &fn->at[off];

	if (fn->kind[off] == AT_INSIDE) {
		fn->why = "a branch into an instruction";
		return 0;
	}
	if (s->cfa == CFA_NONE) {
		*s = *f;
		return func_push(fn, (uint32_t)off);
	}
	if (frame_same(s, f))
		return 0;
	/* With the CFA on rbp, paths may leave rsp where they like (alloca). */
	if (s->cfa == CFA_RBP && f->cfa == CFA_RBP && s->cfa_off == f->cfa_off &&
	    s->fp_slot == f->fp_slot) {
		if (!s->sp_known)
			return 0;
		s->sp_known = false;
		return func_push(fn, (uint32_t)off);
	}
	fn->why = "paths meet in different states";
	fn->why_at = fn->lo + off;
	return 0;
}

/* Where a branch of the instruction at off with frame f leads. */
static int func_branch(struct func *fn, uint64_t target, const struct frame *f)
{
	uint64_t off = target - fn->lo;

	if (target >= fn->lo && off < fn->size) {
		fn->jumped[off] = 1;
		return func_merge(fn, off, f);
	}
	return fn->exits ? exits_add(fn->exits, target, f) : 0;
}

/* ---- jump tables ---- */

/* The instruction that ends where the one at off starts, decoded; false when none is known. */
static bool insn_before(const struct func *fn, uint32_t off, uint32_t *prev, struct x64_insn *in)
{
	uint32_t p = off;

	if (!off)
		return false;
	do
		p--;
	while (p && fn->kind[p] == AT_INSIDE);
	if (fn->kind[p] != AT_INSN)
		return false;
	if (code_x64__decode(fn->code + p, fn->size - p, fn->lo + p, in) != off - p)
		return false;
	*prev = p;
	return in->flow == X64_NEXT || in->flow == X64_JCC;
}

static bool is_reg_form(const struct x64_insn *in, uint8_t op)
{
	return in->map == 0 && !in->vex && in->op == op && in->has_modrm && in->mod == 3;
}

/*
 * Whether in moves another register, zero-extended, into idx: movzbl,
 * movzwl, or a 32-bit mov; *src is then that register.
 */
static bool zero_extends(const struct x64_insn *in, unsigned int idx, unsigned int *src)
{
	if (!in->has_modrm || in->mod != 3 || in->vex || (in->rex & 8) || in->opsize)
		return false;
	*src = in->op == 0x89 ? in->reg : in->rm;
	if (in->map == 1 && (in->op == 0xb6 || in->op == 0xb7))
		return in->reg == idx;
	return in->map == 0 &&
	       ((in->op == 0x8b && in->reg == idx) || (in->op == 0x89 && in->rm == idx));
}

/* The instructions a jump table is read with, at most this far before the jump. */
#define JT_LOOKBACK 12
#define JT_MAX 4096

/*
 * The targets of the jump through a register at off, when the code before
 * it is gcc's and clang's position-independent jump table, bounded by the
 * compare that guards it:
 *
 *	cmp $N, %I; ja default	(N + 1 entries)
 *	lea T(%rip), %X
 *	movslq (%X,%I,4), %Y
 *	add %X, %Y
 *	jmp *%Y
 *
 * Each entry is the offset of a target from T. Every target has the frame
 * of the jump. A table not found, or one that leads out of the function,
 * leaves its targets without rows (0), as any code no path reaches.
 */
static int jump_table(struct func *fn, uint32_t off, const struct x64_insn *jmp,
		      const struct frame *f)
{
	struct x64_insn in;
	unsigned int x = 16, y, idx = 16, step = 0, src;
	uint64_t table = 0, n = 0, target;
	uint32_t at = off;
	const uint8_t *p;
	bool ja = false;
	int err = 0;

	if (!fn->ef || !jmp->has_modrm || jmp->mod != 3 || jmp->opsize)
		return 0;
	y = jmp->rm;
	while (step++ < JT_LOOKBACK && insn_before(fn, at, &at, &in)) {
		bool w64 = in.rex & 8;

		/* Only the instructions that run in a row before the jump. */
		if (fn->jumped[at + in.len] && at + in.len != off)
			return 0;

		if (x == 16) {
			if (is_reg_form(&in, 0x01) && w64 && in.rm == y)
				x = in.reg; /* add %X, %Y */
			else if (is_reg_form(&in, 0x03) && w64 && in.reg == y)
				x = in.rm;
			else if (writes_reg(&in, y))
				return 0;
			continue;
		}
		if (idx == 16) {
			if (in.map == 0 && in.op == 0x63 && w64 && in.mod != 3 && in.reg == y &&
			    in.base == x && in.scale == 4 && !in.disp)
				idx = in.index; /* movslq (%X,%I,4), %Y */
			else if (writes_reg(&in, x) || writes_reg(&in, y))
				return 0;
			continue;
		}
		if (zero_extends(&in, idx, &src)) {
			idx = src; /* movzbl %Jl, %eI; mov %eJ, %eI: the compare is of J */
			continue;
		}
		if (!table) {
			if (in.map == 0 && in.op == 0x8d && w64 && in.reg == x && in.base == 17)
				table = fn->lo + at + in.len +
					(uint64_t)in.disp; /* lea T(%rip), %X */
			else if (writes_reg(&in, x) || writes_reg(&in, idx) || in.flow == X64_JCC)
				return 0; /* a table whose address was taken earlier is not read */
			continue;
		}
		if (in.flow == X64_JCC) {
			if ((in.map == 0 && in.op == 0x77) || (in.map == 1 && in.op == 0x87))
				ja = true; /* ja default: unsigned, so N bounds the index */
			else if (!ja)
				return 0;
			continue;
		}
		if (ja && in.map == 0 && !in.vex && in.reg % 8 == 7 && in.imm >= 0 &&
		    in.imm < JT_MAX &&
		    ((in.has_modrm && in.mod == 3 && in.rm == idx &&
		      (in.op == 0x80 || in.op == 0x81 || in.op == 0x83)) ||
		     ((in.op == 0x3c || in.op == 0x3d) && idx == 0))) {
			n = (uint64_t)in.imm + 1; /* cmp $N, %I */
			break;
		}
		if (writes_reg(&in, idx))
			return 0;
	}
	if (!n || !(p = elf_file__vaddr_bytes(fn->ef, table, 4 * n)))
		return 0;
	for (uint64_t i = 0; i < n; i++) {
		int32_t e;

		memcpy(&e, p + 4 * i, 4);
		target = table + (uint64_t)(int64_t)e;
		if (target < fn->lo || target - fn->lo >= fn->size)
			return 0;
	}
	for (uint64_t i = 0; i < n && !err && !fn->why; i++) {
		int32_t e;

		memcpy(&e, p + 4 * i, 4);
		err = func_branch(fn, table + (uint64_t)(int64_t)e, f);
	}
	return err;
}

/*
 * Whether the instruction at p[0, avail) is padding: a nop or int3. After a
 * call, padding says the callee does not return (gcc aligns what follows
 * only where a jump leads), and what follows it is another function.
 */
static bool padding_insn(const struct x64_insn *in)
{
	if (in->vex)
		return false;
	if (in->map == 0)
		return (in->op == 0x90 && !(in->rex & 1) && !in->rep) || in->op == 0xcc;
	return in->map == 1 && in->op == 0x1f;
}

static bool is_padding(const uint8_t *p, size_t avail)
{
	struct x64_insn in;

	return code_x64__decode(p, avail, 0, &in) && padding_insn(&in);
}

/* Whether the instruction at p[0, avail) starts a prologue: endbr64, a push of a callee-saved register, sub $N,%rsp. */
static bool is_prologue(const uint8_t *p, size_t avail)
{
	struct x64_insn in;

	if (!code_x64__decode(p, avail, 0, &in) || in.vex)
		return false;
	if (in.map == 1 && in.op == 0x1e && in.rep == 0xf3 && in.mod == 3 && in.rm % 8 == 2)
		return true; /* endbr64 */
	if (in.map != 0 || in.opsize)
		return false;
	if (in.op >= 0x50 && in.op <= 0x57)
		return in.rm == 3 || in.rm == X64_RBP || in.rm >= 12;
	return (in.op == 0x81 || in.op == 0x83) && in.mod == 3 && in.rm == X64_RSP &&
	       in.reg % 8 == 5 && (in.rex & 8);
}

/*
 * Whether the code at p[0, avail), ELF address pc, right after a call, says
 * that the callee does not return: padding (gcc aligns what follows a call
 * only where a jump leads) or, at an aligned address, a prologue. *next is
 * where the code after the padding starts.
 */
static bool call_ends(const uint8_t *p, size_t avail, uint64_t pc, uint64_t *next)
{
	struct x64_insn in;
	size_t len, off = 0;

	while (off < avail && is_padding(p + off, avail - off)) {
		len = code_x64__decode(p + off, avail - off, 0, &in);
		off += len;
	}
	*next = pc + off;
	return off ? true : !(pc % 16) && is_prologue(p, avail);
}

/* Follows the instruction at off; 0, or -ENOMEM. */
static int func_insn(struct func *fn, uint32_t off)
{
	struct frame f = fn->at[off];
	struct x64_insn in;
	uint64_t next;
	size_t len;
	int err = 0;

	len = code_x64__decode(fn->code + off, fn->size - off, fn->lo + off, &in);
	if (!len) {
		fn->why = "an instruction not known";
		return 0;
	}
	if (fn->kind[off] == AT_INSN)
		goto follow; /* again, with a frame whose rsp is no longer known */
	if (fn->kind[off] == AT_INSIDE) {
		fn->why = "overlapping instructions";
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if (fn->kind[off + i] != AT_NONE || fn->at[off + i].cfa != CFA_NONE) {
			fn->why = "overlapping instructions";
			return 0;
		}
		fn->kind[off + i] = AT_INSIDE;
	}
	fn->kind[off] = AT_INSN;
follow:
	if (!frame_step(&f, &in)) {
		fn->why = "the stack pointer or the frame is set in a way not followed";
		fn->why_at = fn->lo + off;
		return 0;
	}
	switch (in.flow) {
	case X64_RET:
		if (f.outermost || f.cfa != CFA_RSP || f.cfa_off != 8) {
			fn->why = "a ret whose CFA is not rsp+8";
			fn->why_at = fn->lo + off;
		}
		return 0;
	case X64_STOP:
		return 0;
	case X64_JMP_IND:
		return jump_table(fn, off, &in, &f);
	case X64_JMP:
		return func_branch(fn, in.target, &f);
	case X64_JCC:
		err = func_branch(fn, in.target, &f);
		break;
	case X64_CALL:
		if (in.target == fn->lo + off + len) {
			fn->why = "a call of the next instruction";
			return 0;
		}
		break;
	default:
		break;
	}
	if (err || fn->why || off + len >= fn->size)
		return err;
	if ((in.flow == X64_CALL || in.flow == X64_CALL_IND) &&
	    call_ends(fn->code + off + len, fn->size - off - len, fn->lo + off + len, &next))
		return 0;
	return func_merge(fn, off + len, &f);
}

/*
 * Follows fn from its entry and the frames of seeds[0, nr) (jumps into it
 * from elsewhere). 0 (fn->why set when refused), or -ENOMEM.
 */
static int func_follow(struct func *fn, const struct code_exit *seeds, size_t nr, bool entry)
{
	int err;

	fn->at = calloc(fn->size, sizeof(*fn->at));
	fn->kind = calloc(fn->size, 2);
	if (!fn->at || !fn->kind)
		return -ENOMEM;
	fn->jumped = fn->kind + fn->size;
	err = entry ? func_merge(fn, 0, &entry_frame) : 0;
	for (size_t i = 0; i < nr && !err && !fn->why; i++)
		err = func_merge(fn, seeds[i].target - fn->lo, &seeds[i].frame);
	while (!err && !fn->why && fn->nr_work)
		err = func_insn(fn, fn->work[--fn->nr_work]);
	return err;
}

static void func_free(struct func *fn)
{
	free(fn->at);
	free(fn->kind);
	free(fn->work);
}

/*
 * The rows of a followed function into rows (room for one per byte and
 * one), pcs from fn->lo: a row at each instruction whose rule changes, an
 * END row where a stretch no path reaches starts, and at the end of the
 * last instruction. Returns how many.
 */
static size_t func_rows(const struct func *fn, struct table_row *rows)
{
	size_t n = 0, end = 0;
	struct table_row r;

	for (size_t off = 0; off < fn->size; off++) {
		if (fn->kind[off] == AT_INSIDE)
			continue;
		if (fn->kind[off] == AT_NONE) {
			if (n && rows[n - 1].cfa != UNW_CFA_END)
				rows[n++] = (struct table_row){ .pc = (uint32_t)off,
								.cfa = UNW_CFA_END };
			continue;
		}
		frame_row(&r, &fn->at[off], (uint32_t)off);
		if (!n || !unwind_table__same_rules(&r, &rows[n - 1]))
			rows[n++] = r;
		end = off + 1;
		while (end < fn->size && fn->kind[end] == AT_INSIDE)
			end++;
	}
	if (n && rows[n - 1].cfa == UNW_CFA_END)
		n--;
	if (n)
		rows[n++] = (struct table_row){ .pc = (uint32_t)end, .cfa = UNW_CFA_END };
	return n;
}

long code_x64__function_rows(const uint8_t *code, size_t size, uint64_t addr,
			     struct table_row *rows, size_t max)
{
	struct func fn = { .code = code, .lo = addr, .size = size };
	struct table_row *all = NULL;
	long n;
	int err;

	if (!size || size > UINT32_MAX)
		return -ENOEXEC;
	err = func_follow(&fn, NULL, 0, true);
	if (!err && !fn.why) {
		all = calloc(size + 1, sizeof(*all));
		err = all ? 0 : -ENOMEM;
	}
	if (err) {
		n = err;
	} else if (fn.why) {
		n = -ENOEXEC;
	} else {
		n = (long)func_rows(&fn, all);
		if ((size_t)n > max)
			n = -E2BIG;
		else
			memcpy(rows, all, n * sizeof(*rows));
	}
	free(all);
	func_free(&fn);
	return n;
}

/* ---- the functions of a file ---- */

/* Functions longer are followed over their first REGION_MAX bytes. */
#define REGION_MAX (1u << 20)

/* Executable code that no row of the table governs, with what is known of its bytes. */
struct gap {
	uint64_t lo, hi;
	const uint8_t *code; /* its bytes, [lo, hi) */
	uint8_t *bits;	     /* per byte: B_* */
};

/*
 * A start, an instruction decoded, a jump's target, a start guessed after
 * padding, the end of a function by its symbol's size.
 */
enum { B_START = 1, B_SEEN = 2, B_TARGET = 4, B_GUESS = 8, B_END = 16, B_PART = 32 };

/*
 * The passes over the functions: where the jumps of those with an entry
 * go, then where those of the parts that only jumps lead to go (gcc's
 * .cold parts: their frame is that of the jumps), then their rows.
 */
enum { PASS_ENTRIES, PASS_PARTS, PASS_ROWS };

struct code_file {
	const struct elf_file *ef;
	struct gap *gaps;
	size_t nr_gaps, cap_gaps;
	struct exits parts; /* where the jumps of parts go, PASS_PARTS */
	uint64_t *todo;	    /* starts to follow */
	size_t nr_todo, cap_todo;
	uint64_t *guess; /* where code follows a call and its padding */
	size_t nr_guess, cap_guess;
	struct exits exits;
	struct table_row *rows; /* a gap's rows, pcs from its first function */
	size_t nr_rows, cap_rows;
	size_t nr_funcs, nr_refused, nr_code_rows;
};

static struct gap *gap_of(const struct code_file *cf, uint64_t addr)
{
	size_t lo = 0, hi = cf->nr_gaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < cf->gaps[mid].lo)
			hi = mid;
		else if (addr >= cf->gaps[mid].hi)
			lo = mid + 1;
		else
			return &cf->gaps[mid];
	}
	return NULL;
}

/*
 * Whether code[0, size) is nothing but padding: what the linker puts between
 * the functions CFI describes, no code of its own.
 */
/*
 * The length of the padding instruction at p[0, avail) in the forms
 * assemblers write between functions: int3, nop, and nopw/nopl with 66 and
 * 2e prefixes (0f 1f /0); 0 for anything else. Tens of thousands of these
 * stretches lie between the functions of a large library.
 */
static size_t plain_padding(const uint8_t *p, size_t avail)
{
	static const uint8_t disp[4] = { 0, 1, 4, 0 };
	size_t at = 0, len;
	uint8_t modrm;

	while (at < avail && at < 8 && (p[at] == 0x66 || p[at] == 0x2e))
		at++;
	if (at < avail && (p[at] == 0x90 || p[at] == 0xcc))
		return p[at] == 0xcc && at ? 0 : at + 1;
	if (at + 3 > avail || p[at] != 0x0f || p[at + 1] != 0x1f)
		return 0;
	modrm = p[at + 2];
	if ((modrm >> 6) == 3 || ((modrm >> 3) & 7) || ((modrm >> 6) == 0 && (modrm & 7) == 5))
		return 0;
	len = at + 3 + ((modrm & 7) == 4) + disp[modrm >> 6];
	return len <= avail ? len : 0;
}

static bool only_padding(const uint8_t *code, size_t size)
{
	struct x64_insn in;

	for (size_t at = 0, len; at < size; at += len) {
		len = plain_padding(code + at, size - at);
		if (len)
			continue;
		len = code_x64__decode(code + at, size - at, 0, &in);
		if (!len || !padding_insn(&in))
			return false;
	}
	return true;
}

/*
 * Adds [lo, hi) as a gap, its bytes at code, unless it is padding. Less
 * than 16 bytes that end where the next function is aligned are taken to
 * be its alignment unread: reading them would fault in every page of a
 * large library's code, as CFI describes its functions but not what lies
 * between them.
 */
static int gap_add(struct code_file *cf, uint64_t lo, uint64_t hi, const uint8_t *code)
{
	struct gap *g;

	if (hi <= lo || (hi - lo < 16 && hi % 16 == 0) || only_padding(code, hi - lo))
		return 0;
	if (cf->nr_gaps == cf->cap_gaps) {
		cf->cap_gaps = cf->cap_gaps ? 2 * cf->cap_gaps : 16;
		g = realloc(cf->gaps, cf->cap_gaps * sizeof(*g));
		if (!g)
			return -ENOMEM;
		cf->gaps = g;
	}
	cf->gaps[cf->nr_gaps++] = (struct gap){ .lo = lo, .hi = hi, .code = code };
	return 0;
}

/*
 * Adds the parts of the code [lo, hi), its bytes at code, that no row of t
 * governs, from row *i on.
 */
static int find_gaps_in(struct code_file *cf, const struct unwind_table *t, uint64_t lo,
			uint64_t hi, const uint8_t *code, size_t *i)
{
	uint64_t at = lo;
	int err = 0;

	/* the rows that end before lo govern none of it */
	while (*i + 1 < t->nr_rows && unwind_table__pc(t, &t->rows[*i + 1]) <= lo)
		(*i)++;
	for (; *i < t->nr_rows && at < hi && !err; (*i)++) {
		uint64_t from = unwind_table__pc(t, &t->rows[*i]);
		uint64_t to = *i + 1 < t->nr_rows ? unwind_table__pc(t, &t->rows[*i + 1]) :
						    UINT64_MAX;

		if (t->rows[*i].cfa == UNW_CFA_END || to <= at)
			continue;
		if (from > at)
			err = gap_add(cf, at, from < hi ? from : hi, code + (at - lo));
		at = to;
	}
	/* the last row may govern the next range too */
	if (*i)
		(*i)--;
	return !err && at < hi ? gap_add(cf, at, hi, code + (at - lo)) : err;
}

static int cmp_range(const void *a, const void *b)
{
	const struct elf_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * The code no row of t governs, in address order: of the sections of code
 * (a segment of code may hold .rodata and .eh_frame too), else of the
 * executable segments.
 */
static int find_gaps(struct code_file *cf, const struct unwind_table *t)
{
	struct elf_range code[64];
	size_t nr = elf_file__code_sections(cf->ef, code, ARRAY_SIZE(code)), row = 0;
	int err = 0;

	if (!nr || nr == ARRAY_SIZE(code)) {
		struct elf_load_segment segs[32];
		size_t nr_segs = elf_file__load_segments(cf->ef, segs, ARRAY_SIZE(segs));

		nr = 0;
		for (size_t s = 0; s < nr_segs; s++)
			if ((segs[s].flags & PF_X) && segs[s].filesz <= segs[s].memsz &&
			    segs[s].vaddr + segs[s].filesz >= segs[s].vaddr)
				code[nr++] = (struct elf_range){ segs[s].vaddr,
								 segs[s].vaddr + segs[s].filesz };
	}
	qsort(code, nr, sizeof(*code), cmp_range);
	for (size_t s = 0; s < nr && !err; s++) {
		const uint8_t *bytes =
			elf_file__vaddr_bytes(cf->ef, code[s].lo, code[s].hi - code[s].lo);

		if (bytes && (!s || code[s].lo >= code[s - 1].hi))
			err = find_gaps_in(cf, t, code[s].lo, code[s].hi, bytes, &row);
	}
	for (size_t i = 0; i < cf->nr_gaps && !err; i++) {
		cf->gaps[i].bits = calloc(cf->gaps[i].hi - cf->gaps[i].lo, 1);
		if (!cf->gaps[i].bits)
			err = -ENOMEM;
	}
	return err;
}

static int todo_add(struct code_file *cf, uint64_t addr)
{
	struct gap *g = gap_of(cf, addr);
	uint64_t *v;

	if (!g || (g->bits[addr - g->lo] & B_START))
		return 0;
	g->bits[addr - g->lo] |= B_START;
	if (cf->nr_todo == cf->cap_todo) {
		cf->cap_todo = cf->cap_todo ? 2 * cf->cap_todo : 256;
		v = realloc(cf->todo, cf->cap_todo * sizeof(*v));
		if (!v)
			return -ENOMEM;
		cf->todo = v;
	}
	cf->todo[cf->nr_todo++] = addr;
	return 0;
}

static int push_addr(uint64_t **v, size_t *nr, size_t *cap, uint64_t addr)
{
	uint64_t *n;

	if (*nr == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		n = realloc(*v, *cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		*v = n;
	}
	(*v)[(*nr)++] = addr;
	return 0;
}

/*
 * After the call that ends at pc in gap g: whether the callee does not
 * return; the code that follows, when 16-byte aligned, may then be a
 * function of its own that only a pointer leads to.
 */
static int after_call(struct code_file *cf, const struct gap *g, uint64_t pc, bool *ends)
{
	uint64_t next;

	*ends = pc < g->hi && call_ends(g->code + (pc - g->lo), g->hi - pc, pc, &next);
	if (!*ends || next >= g->hi || next % 16)
		return 0;
	return push_addr(&cf->guess, &cf->nr_guess, &cf->cap_guess, next);
}

/*
 * After the jmp, ret or ud2 that ends at pc in gap g, where no path goes on:
 * padding, then a prologue at an aligned address, may begin a function of
 * its own that only a pointer leads to (musl's libc_start_main_stage2, a
 * static function whose address __libc_start_main takes). Without the
 * prologue it is more often a block of the function before, which a jump
 * table leads to.
 */
static int after_end(struct code_file *cf, const struct gap *g, uint64_t pc)
{
	uint64_t next;

	if (pc >= g->hi || !call_ends(g->code + (pc - g->lo), g->hi - pc, pc, &next) ||
	    next == pc || next >= g->hi || next % 16 ||
	    !is_prologue(g->code + (next - g->lo), g->hi - next))
		return 0;
	return push_addr(&cf->guess, &cf->nr_guess, &cf->cap_guess, next);
}

static void mark_target(struct code_file *cf, uint64_t addr)
{
	struct gap *g = gap_of(cf, addr);

	if (g)
		g->bits[addr - g->lo] |= B_TARGET;
}

/*
 * Follows the code from start, its branches within its gap too, for the
 * targets of its calls (new starts) and of its jumps: only what
 * instructions do, not yet their frames.
 */
static int discover(struct code_file *cf, uint64_t start)
{
	struct gap *g = gap_of(cf, start);
	uint64_t *stack = NULL, pc;
	size_t nr = 0, cap = 0;
	struct x64_insn in;
	int err = 0;

	if (!g)
		return 0;
	for (pc = start;;) {
		size_t len = 0;
		bool more = false;

		if (pc >= g->lo && pc < g->hi && !(g->bits[pc - g->lo] & B_SEEN) &&
		    !(pc + 1 < g->hi && !g->code[pc - g->lo] && !g->code[pc - g->lo + 1]))
			len = code_x64__decode(g->code + (pc - g->lo), g->hi - pc, pc, &in);
		if (len) {
			g->bits[pc - g->lo] |= B_SEEN;
			more = in.flow != X64_RET && in.flow != X64_STOP && in.flow != X64_JMP &&
			       in.flow != X64_JMP_IND;
			if (!more)
				err = after_end(cf, g, pc + len);
			if (in.flow == X64_CALL)
				err = todo_add(cf, in.target);
			if (!err && (in.flow == X64_CALL || in.flow == X64_CALL_IND)) {
				bool ends;

				err = after_call(cf, g, pc + len, &ends);
				more = !ends;
			}
			if (in.flow == X64_JMP || in.flow == X64_JCC) {
				mark_target(cf, in.target);
				if (in.target >= g->lo && in.target < g->hi) {
					if (nr == cap) {
						uint64_t *s;

						cap = cap ? 2 * cap : 64;
						s = realloc(stack, cap * sizeof(*s));
						if (!s) {
							err = -ENOMEM;
							break;
						}
						stack = s;
					}
					stack[nr++] = in.target;
				}
			}
		}
		if (err)
			break;
		if (more)
			pc += len;
		else if (nr)
			pc = stack[--nr];
		else
			break;
	}
	free(stack);
	return err;
}

static int cmp_exit(const void *a, const void *b)
{
	const struct code_exit *x = a, *y = b;

	return x->target < y->target ? -1 : x->target > y->target;
}

/* The exits that land in [lo, hi): their first index, *nr set. */
static size_t exits_in(const struct exits *e, uint64_t lo, uint64_t hi, size_t *nr)
{
	size_t a = 0, b = e->nr, first;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (e->v[mid].target < lo)
			a = mid + 1;
		else
			b = mid;
	}
	first = a;
	while (a < e->nr && e->v[a].target < hi)
		a++;
	*nr = a - first;
	return first;
}

/*
 * Whether a jump from elsewhere lands inside fn (past its entry) in a frame
 * the exits of the followed functions do not give.
 */
static bool entered_unknown(const struct code_file *cf, const struct gap *g, const struct func *fn,
			    bool entry)
{
	const struct code_exit *seeds = NULL;
	size_t nr = 0, k = 0;

	if (cf->exits.nr)
		seeds = cf->exits.v + exits_in(&cf->exits, fn->lo, fn->lo + fn->size, &nr);
	for (size_t off = entry; off < fn->size; off++) {
		if (!(g->bits[fn->lo - g->lo + off] & B_TARGET) || fn->jumped[off])
			continue;
		while (k < nr && seeds[k].target < fn->lo + off)
			k++;
		if (k == nr || seeds[k].target != fn->lo + off)
			return true;
	}
	return false;
}

static int rows_room(struct code_file *cf, size_t more)
{
	struct table_row *r;

	if (cf->nr_rows + more <= cf->cap_rows)
		return 0;
	cf->cap_rows = 2 * (cf->nr_rows + more);
	r = realloc(cf->rows, cf->cap_rows * sizeof(*r));
	if (!r)
		return -ENOMEM;
	cf->rows = r;
	return 0;
}

/*
 * Follows the function [lo, hi) of gap g in pass (PASS_*): its jumps out
 * kept in the first two, its rows appended to cf->rows in the last (pcs
 * from *first, set by the first function of the gap with rows).
 */
static int follow_function(struct code_file *cf, struct gap *g, uint64_t lo, uint64_t hi, int pass,
			   uint64_t *first)
{
	struct func fn = { .code = g->code + (lo - g->lo), .lo = lo, .size = hi - lo, .ef = cf->ef };
	const struct code_exit *seeds = NULL;
	size_t nr_seeds = 0, n;
	int err;
	bool guessed = g->bits[lo - g->lo] & B_GUESS, entry = g->bits[lo - g->lo] & B_START;
	struct exits own = { 0 };

	if (fn.size > REGION_MAX)
		fn.size = REGION_MAX;
	if ((pass == PASS_ENTRIES && !entry) || (pass == PASS_PARTS && entry))
		return 0;
	if (pass != PASS_ENTRIES && cf->exits.nr)
		seeds = cf->exits.v + exits_in(&cf->exits, lo, lo + fn.size, &nr_seeds);
	if (!entry && !nr_seeds)
		return 0; /* a part no followed jump leads to */
	fn.exits = pass == PASS_ENTRIES ? &cf->exits :
		   pass == PASS_PARTS	? &cf->parts :
		   guessed		? &own :
					  NULL;
	err = func_follow(&fn, seeds, nr_seeds, entry);
	if (err || pass != PASS_ROWS)
		goto out;
	if (!fn.why && entered_unknown(cf, g, &fn, entry)) {
		fn.why = "a jump into it from code not followed";
		fn.why_at = lo;
	}
	/* A function found after padding jumps nowhere but to functions. */
	for (size_t i = 0; i < own.nr && !fn.why; i++) {
		const struct gap *to = gap_of(cf, own.v[i].target);

		if (to && !(to->bits[own.v[i].target - to->lo] & B_START)) {
			fn.why = "a function found after padding that jumps into another";
			fn.why_at = own.v[i].target;
		}
	}
	if (fn.why) {
		pr_debug("%s: no rows from the code at %#" PRIx64 ": %s (at %#" PRIx64 ")",
			 elf_file__path(cf->ef), lo, fn.why, fn.why_at);
		cf->nr_refused++;
		goto out;
	}
	err = rows_room(cf, fn.size + 1);
	if (err)
		goto out;
	if (!cf->nr_rows)
		*first = lo;
	n = func_rows(&fn, cf->rows + cf->nr_rows);
	for (size_t i = 0; i < n; i++)
		cf->rows[cf->nr_rows + i].pc += (uint32_t)(lo - *first);
	/* The END row of the function before gives way to this one's first. */
	if (n && cf->nr_rows && cf->rows[cf->nr_rows - 1].pc == cf->rows[cf->nr_rows].pc) {
		memmove(cf->rows + cf->nr_rows - 1, cf->rows + cf->nr_rows, n * sizeof(*cf->rows));
		cf->nr_rows--;
	}
	cf->nr_rows += n;
	cf->nr_funcs += n > 0;
out:
	func_free(&fn);
	free(own.v);
	return err;
}

/* Follows every function of gap g in pass; the rows into t in PASS_ROWS. */
static int follow_gap(struct code_file *cf, struct gap *g, int pass, struct unwind_table *t)
{
	uint64_t first = 0, lo = 0, end;
	bool have = false;
	int err = 0;

	cf->nr_rows = 0;
	for (uint64_t a = g->lo; a <= g->hi && !err; a++) {
		if (a < g->hi && !(g->bits[a - g->lo] & (B_START | B_END)))
			continue;
		if (have)
			err = follow_function(cf, g, lo, a, pass, &first);
		lo = a;
		have = a < g->hi && (g->bits[a - g->lo] & (B_START | B_PART));
	}
	if (err || pass != PASS_ROWS || !cf->nr_rows)
		return err;
	/* The last row is the END the table adds itself. */
	end = first + cf->rows[--cf->nr_rows].pc;
	if (!cf->nr_rows)
		return 0;
	err = unwind_table__add_rows(t, cf->rows, cf->nr_rows, first, end);
	if (err == -ENOMEM)
		return err;
	if (err) {
		pr_debug("%s: the rows of the code at %#" PRIx64 " were not added (%d)",
			 elf_file__path(cf->ef), first, err);
		return 0;
	}
	cf->nr_code_rows += cf->nr_rows;
	return unwind_table__add_code_range(t, first, end);
}

static void code_file_free(struct code_file *cf)
{
	for (size_t i = 0; i < cf->nr_gaps; i++)
		free(cf->gaps[i].bits);
	free(cf->gaps);
	free(cf->todo);
	free(cf->guess);
	free(cf->exits.v);
	free(cf->parts.v);
	free(cf->rows);
}

/*
 * The end of a function by its symbol's size: what follows its padding,
 * when 16-byte aligned, may be a function that only a pointer leads to.
 */
static int mark_end(struct code_file *cf, uint64_t end)
{
	struct gap *g = gap_of(cf, end);
	struct x64_insn in;
	uint64_t pc = end;

	if (!g)
		return 0;
	g->bits[end - g->lo] |= B_END;
	while (pc < g->hi && is_padding(g->code + (pc - g->lo), g->hi - pc))
		pc += code_x64__decode(g->code + (pc - g->lo), g->hi - pc, pc, &in);
	if (pc >= g->hi || pc % 16)
		return 0;
	return push_addr(&cf->guess, &cf->nr_guess, &cf->cap_guess, pc);
}

/* Whether a function symbol names a part of another function: gcc's NAME.cold, NAME.cold.N. */
static bool is_part(const char *name)
{
	const char *c = strstr(name, ".cold");

	return c && (c[5] == '\0' || c[5] == '.');
}

static void mark_part(struct code_file *cf, uint64_t addr)
{
	struct gap *g = gap_of(cf, addr);

	if (g)
		g->bits[addr - g->lo] |= B_PART | B_END;
}

/* Whether the symbol at addr, of size bytes, starts or ends in a gap of cf. */
static bool in_a_gap(void *ctx, uint64_t addr, uint64_t size)
{
	const struct code_file *cf = ctx;

	return gap_of(cf, addr) || (size && gap_of(cf, addr + size));
}

/* The starts the file gives: its function symbols and its entry. */
static int add_symbols(struct code_file *cf, const struct elf_file *debug)
{
	struct elf_load_segment segs[32];
	size_t nr_segs = elf_file__load_segments(cf->ef, segs, 32);
	struct symtab *st =
		symtab__load_some(cf->ef, debug, segs, nr_segs < 32 ? nr_segs : 0, in_a_gap, cf);
	int err;

	if (!st)
		return -ENOMEM;
	err = todo_add(cf, elf_file__entry(cf->ef));
	for (size_t i = 0; i < symtab__count(st) && !err; i++) {
		const struct symtab_sym *s = symtab__get(st, i);

		if (s->label)
			continue;
		if (is_part(s->name)) {
			mark_part(cf, s->addr);
			continue;
		}
		err = todo_add(cf, s->addr);
		if (!err && s->size)
			err = mark_end(cf, s->addr + s->size);
	}
	symtab__free(st);
	return err;
}

int code_x64__add_rows(struct unwind_table *t, const struct elf_file *ef,
		       const struct elf_file *debug)
{
	struct code_file cf = { .ef = ef };
	int err;

	if (t->machine != EM_X86_64)
		return 0;
	err = find_gaps(&cf, t);
	if (!err && cf.nr_gaps)
		err = add_symbols(&cf, debug);
	/*
	 * The targets of calls are starts too, and their calls, ...; then the
	 * code after a call and its padding, where no jump leads.
	 */
	for (size_t i = 0, added = 1; added && !err;) {
		for (; i < cf.nr_todo && !err; i++)
			err = discover(&cf, cf.todo[i]);
		added = 0;
		for (size_t k = 0; k < cf.nr_guess && !err; k++) {
			struct gap *g = gap_of(&cf, cf.guess[k]);

			if (!g || (g->bits[cf.guess[k] - g->lo] & (B_START | B_TARGET | B_PART)))
				continue;
			err = todo_add(&cf, cf.guess[k]);
			g->bits[cf.guess[k] - g->lo] |= B_GUESS;
			added++;
		}
		cf.nr_guess = 0;
	}
	for (int pass = PASS_ENTRIES; pass <= PASS_ROWS && !err; pass++) {
		for (size_t i = 0; i < cf.nr_gaps && !err; i++)
			err = follow_gap(&cf, &cf.gaps[i], pass, t);
		for (size_t i = 0; i < cf.parts.nr && !err; i++)
			err = exits_add(&cf.exits, cf.parts.v[i].target, &cf.parts.v[i].frame);
		cf.parts.nr = 0;
		if (!err && cf.exits.nr)
			qsort(cf.exits.v, cf.exits.nr, sizeof(*cf.exits.v), cmp_exit);
	}
	if (!err && cf.nr_funcs)
		t->sources |= TABLE_SRC_X64_CODE;
	t->nr_code_funcs += cf.nr_funcs;
	t->nr_code_refused += cf.nr_refused;
	t->nr_code_rows += cf.nr_code_rows;
	code_file_free(&cf);
	return err;
}

struct unwind_table *code_x64__table(const struct elf_file *ef, const struct elf_file *debug)
{
	struct unwind_table *t;
	int err;

	if (elf_file__machine(ef) != EM_X86_64) {
		errno = ENOENT;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->machine = EM_X86_64;
	err = code_x64__add_rows(t, ef, debug);
	if (err) {
		unwind_table__free(t);
		errno = -err;
		return NULL;
	}
	return t;
}
