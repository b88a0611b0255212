// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the code readers of core/runtimes/ruby/rbruntime.c, on the bytes
 * of the functions a libruby exports: rb_thread_current's load of
 * ruby_current_ec (Debian's 3.3.8 and 3.1.2, as objdump shows them, and the
 * -fno-plt form of the call), and the jump rb_iseq_eval and
 * rb_iseq_eval_main both end in. Code of another shape, cut short or
 * jumping to two common places gives nothing, never a guess.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "../../core/util/common.h"
#include "../../core/runtimes/ruby/rbruntime.h"

/* libruby-3.3.so.3.3.8's rb_thread_current, at 0x23ad70 */
static const uint8_t thread_current_33[] = {
	0xf3, 0x0f, 0x1e, 0xfa,				/* endbr64 */
	0x48, 0x83, 0xec, 0x08,				/* sub $0x8,%rsp */
	0x66, 0x48, 0x8d, 0x3d, 0x38, 0x4d, 0x22, 0x00, /* data16 lea 0x224d38(%rip),%rdi */
	0x66, 0x66, 0x48, 0xe8, 0x78, 0x49, 0xe0, 0xff, /* call __tls_get_addr@plt */
	0x48, 0x8b, 0x00,				/* mov (%rax),%rax */
	0x48, 0x8b, 0x40, 0x30,				/* mov 0x30(%rax),%rax */
	0x48, 0x8b, 0x40, 0x10,				/* mov 0x10(%rax),%rax */
	0x48, 0x83, 0xc4, 0x08,				/* add $0x8,%rsp */
	0xc3,						/* ret */
};

static void test_tls_load(void)
{
	uint8_t code[64];
	uint64_t slot = 0;
	int32_t disp = -1;

	/* Debian's 3.3.8: the GOT pair at 0x45fab8, the variable at the address returned */
	CHECK_EQ_INT(rbruntime__tls_load(thread_current_33, sizeof(thread_current_33), 0x23ad70,
					 &slot, &disp),
		     0);
	CHECK_EQ_INT(slot, 0x45fab8);
	CHECK_EQ_INT(disp, 0);

	/* a load 16 bytes on (disp8, into %r12), one 0x1000 on (disp32) */
	memcpy(code, thread_current_33, sizeof(thread_current_33));
	memcpy(code + 24, (uint8_t[]){ 0x4c, 0x8b, 0x60, 0x10 }, 4);
	CHECK_EQ_INT(rbruntime__tls_load(code, sizeof(thread_current_33), 0x23ad70, &slot, &disp),
		     0);
	CHECK_EQ_INT(disp, 16);
	memcpy(code + 24, (uint8_t[]){ 0x48, 0x8b, 0x80, 0x00, 0x10, 0x00, 0x00 }, 7);
	CHECK_EQ_INT(rbruntime__tls_load(code, sizeof(thread_current_33), 0x23ad70, &slot, &disp),
		     0);
	CHECK_EQ_INT(disp, 0x1000);

	/* -fno-plt: call *__tls_get_addr@GOTPCREL(%rip), padded to 8 bytes as the ABI says */
	memcpy(code, thread_current_33, sizeof(thread_current_33));
	memcpy(code + 16, (uint8_t[]){ 0x66, 0x48, 0xff, 0x15, 0x10, 0x20, 0x00, 0x00 }, 8);
	CHECK_EQ_INT(rbruntime__tls_load(code, sizeof(thread_current_33), 0x1000, &slot, &disp), 0);
	CHECK_EQ_INT(slot, 0x1000 + 16 + 0x224d38);
}

static void test_tls_load_bad(void)
{
	size_t n = sizeof(thread_current_33);
	uint8_t code[64];
	uint64_t slot;
	int32_t disp;

	/* no code, or cut before the load ends */
	CHECK_EQ_INT(rbruntime__tls_load(NULL, 64, 0, &slot, &disp), -ENOENT);
	CHECK_EQ_INT(rbruntime__tls_load(thread_current_33, 26, 0, &slot, &disp), -ENOENT);
	CHECK_EQ_INT(rbruntime__tls_load(thread_current_33, 16, 0, &slot, &disp), -ENOENT);
	/* the lea without its call: another sequence (a local-dynamic one) is not read */
	memcpy(code, thread_current_33, n);
	code[19] = 0x90;
	CHECK_EQ_INT(rbruntime__tls_load(code, n, 0, &slot, &disp), -ENOENT);
	/* what follows is not a load from %rax: from another register, or a register move */
	memcpy(code, thread_current_33, n);
	code[26] = 0x03; /* mov (%rbx),%rax */
	CHECK_EQ_INT(rbruntime__tls_load(code, n, 0, &slot, &disp), -ENOENT);
	code[26] = 0xc0; /* mov %rax,%rax */
	CHECK_EQ_INT(rbruntime__tls_load(code, n, 0, &slot, &disp), -ENOENT);
	code[24] = 0x8b; /* no REX.W: a 32-bit load, not a pointer */
	code[26] = 0x00;
	CHECK_EQ_INT(rbruntime__tls_load(code, n, 0, &slot, &disp), -ENOENT);
	/* a disp32 load cut short */
	memcpy(code, thread_current_33, n);
	memcpy(code + 24, (uint8_t[]){ 0x48, 0x8b, 0x80, 0x00 }, 4);
	CHECK_EQ_INT(rbruntime__tls_load(code, 28, 0, &slot, &disp), -ENOENT);
}

/* A function at vaddr of len bytes: nops, a jmp rel32 to each of targets at its end. */
static void fake_fn(uint8_t *code, size_t len, uint64_t vaddr, const uint64_t *targets, size_t n)
{
	memset(code, 0x90, len);
	for (size_t i = 0; i < n; i++) {
		size_t at = len - (n - i) * 5;
		int32_t rel = (int32_t)(targets[i] - (vaddr + at + 5));

		code[at] = 0xe9;
		memcpy(code + at + 1, &rel, sizeof(rel));
	}
}

static void test_common_jump(void)
{
	uint8_t a[64], b[96];
	/* rb_iseq_eval and rb_iseq_eval_main of 3.3.8 both end in jmp 0x284aa0 */
	const uint64_t ta[] = { 0x284aa0 }, tb[] = { 0x284aa0 }, other[] = { 0x1000, 0x284aa0 };
	const uint64_t two[] = { 0x1000, 0x284aa0 }, self[] = { 0x2854b8, 0x284aa0 };

	fake_fn(a, sizeof(a), 0x2854b0, ta, 1);
	fake_fn(b, sizeof(b), 0x285560, tb, 1);
	CHECK_EQ_INT(rbruntime__common_jump(a, sizeof(a), 0x2854b0, b, sizeof(b), 0x285560),
		     0x284aa0);
	/* a jump of one only is not common; one into itself or the other is no function */
	fake_fn(b, sizeof(b), 0x285560, other, 2);
	CHECK_EQ_INT(rbruntime__common_jump(a, sizeof(a), 0x2854b0, b, sizeof(b), 0x285560),
		     0x284aa0);
	fake_fn(a, sizeof(a), 0x2854b0, self, 2);
	CHECK_EQ_INT(rbruntime__common_jump(a, sizeof(a), 0x2854b0, b, sizeof(b), 0x285560),
		     0x284aa0);
	/* two in common: which one is the VM's is not known */
	fake_fn(a, sizeof(a), 0x2854b0, two, 2);
	CHECK_EQ_INT(rbruntime__common_jump(a, sizeof(a), 0x2854b0, b, sizeof(b), 0x285560), 0);
	/* none, no code, code cut before the jump ends */
	fake_fn(a, sizeof(a), 0x2854b0, ta, 1);
	fake_fn(b, sizeof(b), 0x285560, (const uint64_t[]){ 0x1000 }, 1);
	CHECK_EQ_INT(rbruntime__common_jump(a, sizeof(a), 0x2854b0, b, sizeof(b), 0x285560), 0);
	CHECK_EQ_INT(rbruntime__common_jump(NULL, 64, 0x2854b0, b, sizeof(b), 0x285560), 0);
	fake_fn(b, sizeof(b), 0x285560, tb, 1);
	CHECK_EQ_INT(rbruntime__common_jump(a, sizeof(a) - 1, 0x2854b0, b, sizeof(b), 0x285560), 0);
}

/* The table: the versions whose builds were checked, and no other. */
static void test_offsets(void)
{
	const struct rb_offsets *o31 = rbruntime__offsets_of(3, 1),
				*o33 = rbruntime__offsets_of(3, 3);

	CHECK(o31 != NULL && o33 != NULL);
	CHECK(rbruntime__offsets_of(3, 2) == NULL);
	CHECK(rbruntime__offsets_of(3, 4) == NULL);
	CHECK(rbruntime__offsets_of(2, 7) == NULL);
	/* what the walk relies on: whole fields inside the control frame it steps by */
	CHECK(o33->cfp_ep + 8 <= o33->cfp_size && o31->cfp_ep + 8 <= o31->cfp_size);
	CHECK(o33->cfp_iseq + 8 <= o33->cfp_size && o31->cfp_iseq + 8 <= o31->cfp_size);
}

int main(void)
{
	RUN(test_tls_load);
	RUN(test_tls_load_bad);
	RUN(test_common_jump);
	RUN(test_offsets);
	return test_summary();
}
