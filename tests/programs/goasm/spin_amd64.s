// SPDX-License-Identifier: GPL-2.0-only

#include "textflag.h"

// func spin(n uint64) uint64
//
// No frame of its own (NOFRAME): it saves BP with a push, which the
// assembler counts in the function's SP deltas, and counts in BP, so a
// walk by frame pointers from here reads a counter as the caller's frame.
TEXT ·spin(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ	n+0(FP), CX
	PUSHQ	BP
	XORQ	BP, BP
	XORQ	AX, AX
loop:
	ADDQ	BP, AX
	ADDQ	$2, BP
	DECQ	CX
	JNZ	loop
	POPQ	BP
	MOVQ	AX, ret+8(FP)
	RET
