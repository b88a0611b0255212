// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two functions whose unwind rules differ only in where rbp is saved:
 * 70,016 and 4,480 bytes below the CFA, 65,536 apart, in frames of 70 KB.
 * A table that kept the offsets in 16 bits would give both the same rule.
 */
__asm__(".text\n"
	".globl far_save\n"
	".type far_save, @function\n"
	"far_save:\n"
	".cfi_startproc\n"
	"sub $70008, %rsp\n"
	".cfi_adjust_cfa_offset 70008\n"
	"mov %rbp, 0(%rsp)\n"
	".cfi_offset %rbp, -70016\n"
	"mov 0(%rsp), %rbp\n"
	".cfi_restore %rbp\n"
	"add $70008, %rsp\n"
	".cfi_adjust_cfa_offset -70008\n"
	"ret\n"
	".cfi_endproc\n"
	".size far_save, .-far_save\n"
	".globl near_save\n"
	".type near_save, @function\n"
	"near_save:\n"
	".cfi_startproc\n"
	"sub $70008, %rsp\n"
	".cfi_adjust_cfa_offset 70008\n"
	"mov %rbp, 65536(%rsp)\n"
	".cfi_offset %rbp, -4480\n"
	"mov 65536(%rsp), %rbp\n"
	".cfi_restore %rbp\n"
	"add $70008, %rsp\n"
	".cfi_adjust_cfa_offset -70008\n"
	"ret\n"
	".cfi_endproc\n"
	".size near_save, .-near_save\n");

void far_save(void);
void near_save(void);

int main(void)
{
	far_save();
	near_save();
	return 0;
}
