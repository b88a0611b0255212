// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rows of x86-64 code without CFI (core/unwind/code_x64.c): its length
 * decoder on hand-picked encodings and against every instruction boundary
 * objdump prints in the functions of real libraries (glibc's libc.so.6,
 * musl's libc.so, python3.11), and the rows derived from small functions
 * written as bytes: prologues and several epilogues, a jump past an
 * epilogue, shrink-wrapping, leave, a red-zone leaf, tail calls, and the
 * code it must refuse.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/elf/elf_file.h"
#include "core/unwind/code_x64.h"
#include "core/unwind/unwind_dump.h"
#include "core/unwind/unwind_table.h"
#include "core/util/log.h"
#include "test.h"

/* ---- the decoder on encodings whose length is known ---- */

struct encoding {
	const char *what;
	uint8_t bytes[16];
	size_t len; /* 0: not an instruction the decoder knows */
};

static const struct encoding encodings[] = {
	{ "ret", { 0xc3 }, 1 },
	{ "push %rbp", { 0x55 }, 1 },
	{ "push %r15", { 0x41, 0x57 }, 2 },
	{ "mov %rsp,%rbp", { 0x48, 0x89, 0xe5 }, 3 },
	{ "sub $0x98,%rsp", { 0x48, 0x81, 0xec, 0x98, 0x00, 0x00, 0x00 }, 7 },
	{ "mov %fs:0x28,%rax", { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0 }, 9 },
	{ "movabs $imm64,%rax", { 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 }, 10 },
	{ "mov $imm16,%ax", { 0x66, 0xb8, 1, 2 }, 4 },
	{ "cs nopw 0(%rax,%rax)", { 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 }, 10 },
	{ "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa }, 4 },
	{ "lea 0x10(%rip),%rsi", { 0x48, 0x8d, 0x35, 0x10, 0, 0, 0 }, 7 },
	{ "movl $1,0x68(%rsp)", { 0xc7, 0x44, 0x24, 0x68, 1, 0, 0, 0 }, 8 },
	{ "testb $1,(%rdi)", { 0xf6, 0x07, 0x01 }, 3 },
	{ "notl (%rdi)", { 0xf7, 0x17 }, 2 },
	{ "enter $16,$0", { 0xc8, 0x10, 0x00, 0x00 }, 4 },
	{ "movabs 0x1122334455667788,%al", { 0xa0, 1, 2, 3, 4, 5, 6, 7, 8 }, 9 },
	{ "pshufb %xmm1,%xmm0", { 0x66, 0x0f, 0x38, 0x00, 0xc1 }, 5 },
	{ "palignr $8,%xmm1,%xmm0", { 0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x08 }, 6 },
	{ "pshufd $0,%xmm1,%xmm0", { 0x66, 0x0f, 0x70, 0xc1, 0x00 }, 5 },
	{ "vmovdqa %xmm1,%xmm0", { 0xc5, 0xf9, 0x6f, 0xc1 }, 4 },
	{ "vpalignr (VEX 0F3A)", { 0xc4, 0xe3, 0x79, 0x0f, 0xc1, 0x08 }, 6 },
	{ "vzeroupper", { 0xc5, 0xf8, 0x77 }, 3 },
	{ "vmovdqu64 (%rdi),%zmm0", { 0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x07 }, 6 },
	{ "vpcmpeqb 0x40(%rdi),%zmm1,%k0", { 0x62, 0xf1, 0x75, 0x48, 0x74, 0x47, 0x01 }, 7 },
	{ "jne rel32", { 0x0f, 0x85, 1, 2, 3, 4 }, 6 },
	{ "call rel32", { 0xe8, 1, 2, 3, 4 }, 5 },
	{ "jmp *0x10(%rip)", { 0xff, 0x25, 0x10, 0, 0, 0 }, 6 },
	{ "lock cmpxchg %ecx,(%rdx)", { 0xf0, 0x0f, 0xb1, 0x0a }, 4 },
	{ "fldt 0x10(%rsp)", { 0xdb, 0x6c, 0x24, 0x10 }, 4 },
	{ "invalid in 64-bit mode (push %es)", { 0x06 }, 0 },
	{ "XOP (not known)", { 0x8f, 0xe9, 0x78, 0x01, 0xc8 }, 0 },
	{ "truncated ModRM", { 0x48, 0x8b }, 0 },
	{ "more than 15 bytes of prefixes",
	  { 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
	    0x66, 0x90 },
	  0 },
};

static void test_encodings(void)
{
	struct x64_insn in;

	for (size_t i = 0; i < sizeof(encodings) / sizeof(encodings[0]); i++) {
		const struct encoding *e = &encodings[i];
		size_t avail = e->len ? e->len : sizeof(e->bytes);
		size_t got;

		if (!strcmp(e->what, "truncated ModRM"))
			avail = 2;
		got = code_x64__decode(e->bytes, avail, 0x1000, &in);
		if (got != e->len)
			fprintf(stderr, "%s: length %zu, expected %zu\n", e->what, got, e->len);
		CHECK_EQ_INT(got, e->len);
		/* One byte fewer is never enough. */
		if (e->len)
			CHECK_EQ_INT(code_x64__decode(e->bytes, e->len - 1, 0x1000, &in), 0);
	}
	CHECK_EQ_INT(code_x64__decode((const uint8_t[]){ 0xe8, 0xfb, 0xff, 0xff, 0xff }, 5, 0x1000,
				      &in),
		     5);
	CHECK_EQ_INT(in.flow, X64_CALL);
	CHECK_EQ_INT(in.target, 0x1000);
}

/* ---- the decoder against objdump ---- */

/*
 * Decodes each function objdump prints of path from its first instruction
 * on: every boundary objdump prints in it must be one the decoder finds.
 * Functions where objdump prints (bad) or .byte are left out.
 */
static void check_against_objdump(const char *path)
{
	char cmd[512], line[1024], name[256] = "";
	uint64_t *addrs = NULL, a;
	size_t nr = 0, cap = 0, funcs = 0, insns = 0, missed = 0;
	struct elf_file *ef;
	bool bad = false;
	FILE *p;

	if (access(path, R_OK)) {
		SKIP(path);
		return;
	}
	ef = elf_file__open(path);
	CHECK(ef != NULL);
	if (!ef)
		return;
	snprintf(cmd, sizeof(cmd), "objdump -d -w --no-show-raw-insn '%s'", path);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	if (!p) {
		elf_file__free(ef);
		return;
	}
	for (bool more = true; more;) {
		char fn[256];

		more = fgets(line, sizeof(line), p) != NULL;
		if (more && sscanf(line, "%*x <%255[^>]>:", fn) != 1) {
			int end = 0;

			if (line[0] == ' ' && sscanf(line, " %" SCNx64 ":%n", &a, &end) == 1 &&
			    end) {
				bad |= strstr(line, "(bad)") || strstr(line, ".byte") ||
				       strstr(line, "rex.") || strstr(line, "data16");
				if (nr == cap) {
					cap = cap ? 2 * cap : 1024;
					addrs = realloc(addrs, cap * sizeof(*addrs));
				}
				addrs[nr++] = a;
			}
			continue;
		}
		/* The function before ends here: decode it. */
		if (nr && !bad) {
			size_t k = 0;

			funcs++;
			for (uint64_t pc = addrs[0]; k < nr;) {
				struct x64_insn in;
				const uint8_t *b = elf_file__vaddr_bytes(ef, pc, 1);
				size_t len, avail = 15;

				while (avail && !elf_file__vaddr_bytes(ef, pc, avail))
					avail--;
				len = b ? code_x64__decode(b, avail, pc, &in) : 0;
				while (k < nr && addrs[k] < pc) {
					if (missed++ < 10)
						fprintf(stderr,
							"%s: %s: %#" PRIx64 " is no boundary\n",
							path, name, addrs[k]);
					k++;
				}
				if (k < nr && addrs[k] == pc) {
					insns++;
					k++;
				}
				if (!len) {
					missed += nr - k;
					if (k < nr)
						fprintf(stderr,
							"%s: %s: no instruction at %#" PRIx64 "\n",
							path, name, pc);
					break;
				}
				pc += len;
			}
		}
		nr = 0;
		bad = false;
		if (more)
			snprintf(name, sizeof(name), "%s", fn);
	}
	CHECK_EQ_INT(pclose(p), 0);
	printf("%s: %zu functions, %zu instructions, %zu boundaries missed\n", path, funcs, insns,
	       missed);
	CHECK(funcs > 100);
	CHECK_EQ_INT(missed, 0);
	free(addrs);
	elf_file__free(ef);
}

static void test_objdump_glibc(void)
{
	check_against_objdump("/usr/lib/x86_64-linux-gnu/libc.so.6");
}

static void test_objdump_musl(void)
{
	check_against_objdump("/usr/lib/x86_64-linux-musl/libc.so");
}

static void test_objdump_python(void)
{
	check_against_objdump("/usr/bin/python3.11");
}

/* ---- rows derived from small functions ---- */

/*
 * "pc:cfa:fp" for each row (pcs from the function's start), "pc:undefined"
 * for a row of the outermost frame, "pc:end" for an END row, joined with
 * spaces.
 */
static const char *rows_text(const uint8_t *code, size_t size)
{
	static char out[1024];
	struct table_row rows[64];
	char cfa[64], fp[64];
	long n = code_x64__function_rows(code, size, 0x1000, rows, 64);
	size_t len = 0;

	if (n < 0) {
		snprintf(out, sizeof(out), "refused (%ld)", n);
		return out;
	}
	out[0] = '\0';
	for (long i = 0; i < n; i++) {
		if (rows[i].cfa == UNW_CFA_END) {
			len += snprintf(out + len, sizeof(out) - len, "%s%x:end", i ? " " : "",
					rows[i].pc);
			continue;
		}
		if (rows[i].ra == UNW_RA_UNDEFINED) {
			len += snprintf(out + len, sizeof(out) - len, "%s%x:undefined",
					i ? " " : "", rows[i].pc);
			continue;
		}
		unwind_dump__cfa_str(&rows[i], EM_X86_64, cfa, sizeof(cfa));
		unwind_dump__fp_str(&rows[i], EM_X86_64, fp, sizeof(fp));
		len += snprintf(out + len, sizeof(out) - len, "%s%x:%s:%s", i ? " " : "",
				rows[i].pc, cfa, fp);
	}
	return out;
}

#define ROWS(code) rows_text((code), sizeof(code))

/* A leaf that keeps its data in the red zone below rsp. */
static void test_red_zone_leaf(void)
{
	static const uint8_t code[] = {
		0x48, 0x89, 0x7c, 0x24, 0xf8, /* mov %rdi,-0x8(%rsp) */
		0x48, 0x8b, 0x44, 0x24, 0xf8, /* mov -0x8(%rsp),%rax */
		0xc3,			      /* ret */
	};

	CHECK_EQ_STR(ROWS(code), "0:rsp+8:unchanged b:end");
}

/* Two epilogues, the second one at the target of a jump from inside the frame. */
static void test_two_epilogues(void)
{
	static const uint8_t code[] = {
		0x53,			/* 0: push %rbx */
		0x48, 0x83, 0xec, 0x10, /* 1: sub $0x10,%rsp */
		0x85, 0xff,		/* 5: test %edi,%edi */
		0x74, 0x06,		/* 7: je f */
		0x48, 0x83, 0xc4, 0x10, /* 9: add $0x10,%rsp */
		0x5b,			/* d: pop %rbx */
		0xc3,			/* e: ret */
		0x31, 0xc0,		/* f: xor %eax,%eax */
		0x48, 0x83, 0xc4, 0x10, /* 11: add $0x10,%rsp */
		0x5b,			/* 15: pop %rbx */
		0xc3,			/* 16: ret */
	};

	CHECK_EQ_STR(ROWS(code), "0:rsp+8:unchanged 1:rsp+16:unchanged 5:rsp+32:unchanged "
				 "d:rsp+16:unchanged e:rsp+8:unchanged f:rsp+32:unchanged "
				 "15:rsp+16:unchanged 16:rsp+8:unchanged 17:end");
}

/* The push after a conditional early return (shrink-wrapping). */
static void test_shrink_wrapped(void)
{
	static const uint8_t code[] = {
		0x48, 0x85, 0xff,	      /* 0: test %rdi,%rdi */
		0x74, 0x07,		      /* 3: je c */
		0x53,			      /* 5: push %rbx */
		0xe8, 0xf5, 0x00, 0x00, 0x00, /* 6: call 100 */
		0x5b,			      /* b: pop %rbx */
		0xc3,			      /* c: ret */
	};

	CHECK_EQ_STR(ROWS(code), "0:rsp+8:unchanged 6:rsp+16:unchanged c:rsp+8:unchanged d:end");
}

/* A frame kept in rbp, alloca below it, leave. */
static void test_leave(void)
{
	static const uint8_t code[] = {
		0x55,			/* 0: push %rbp */
		0x48, 0x89, 0xe5,	/* 1: mov %rsp,%rbp */
		0x48, 0x83, 0xec, 0x20, /* 4: sub $0x20,%rsp */
		0x48, 0x29, 0xfc,	/* 8: sub %rdi,%rsp */
		0xc9,			/* b: leave */
		0xc3,			/* c: ret */
	};

	CHECK_EQ_STR(ROWS(code), "0:rsp+8:unchanged 1:rsp+16:cfa-16 4:rbp+16:cfa-16 "
				 "c:rsp+8:unchanged d:end");
}

/* The frame pointer's epilogue without leave: lea of rsp from rbp, pops. */
static void test_rbp_epilogue(void)
{
	static const uint8_t code[] = {
		0x55,			/* 0: push %rbp */
		0x48, 0x89, 0xe5,	/* 1: mov %rsp,%rbp */
		0x53,			/* 4: push %rbx */
		0x48, 0x83, 0xe4, 0xf0, /* 5: and $-16,%rsp */
		0x48, 0x8d, 0x65, 0xf8, /* 9: lea -0x8(%rbp),%rsp */
		0x5b,			/* d: pop %rbx */
		0x5d,			/* e: pop %rbp */
		0xc3,			/* f: ret */
	};

	CHECK_EQ_STR(ROWS(code), "0:rsp+8:unchanged 1:rsp+16:cfa-16 4:rbp+16:cfa-16 "
				 "f:rsp+8:unchanged 10:end");
}

/* Tail calls: a jmp out of the function after its epilogue, and through a register. */
static void test_tail_calls(void)
{
	static const uint8_t code[] = {
		0x53,			      /* 0: push %rbx */
		0x85, 0xff,		      /* 1: test %edi,%edi */
		0x75, 0x06,		      /* 3: jne b */
		0x5b,			      /* 5: pop %rbx */
		0xe9, 0xf5, 0x00, 0x00, 0x00, /* 6: jmp 100 */
		0x5b,			      /* b: pop %rbx */
		0xff, 0xe0,		      /* c: jmp *%rax */
		0x0f, 0x0b,		      /* e: ud2, reached by no path */
	};

	CHECK_EQ_STR(ROWS(code), "0:rsp+8:unchanged 1:rsp+16:unchanged 6:rsp+8:unchanged "
				 "b:rsp+16:unchanged c:rsp+8:unchanged e:end");
}

/* A call to a function that does not return, then padding: no row past it. */
static void test_noreturn_call(void)
{
	static const uint8_t code[] = {
		0x48, 0x83, 0xec, 0x08,	      /* 0: sub $8,%rsp */
		0xe8, 0xf7, 0x00, 0x00, 0x00, /* 4: call 100 */
		0x0f, 0x1f, 0x00,	      /* 9: nopl (%rax) */
		0x41, 0x57,		      /* c: push %r15 (another function) */
		0xc3,			      /* e: ret */
	};

	CHECK_EQ_STR(ROWS(code), "0:rsp+8:unchanged 4:rsp+16:unchanged 9:end");
}

/* What is not understood gives no row at all. */
static void test_refused(void)
{
	static const uint8_t realign[] = {
		0x53,			/* push %rbx */
		0x48, 0x83, 0xe4, 0xf0, /* and $-16,%rsp: outside a frame in rbp */
		0x5b, 0xc3,		/* pop %rbx; ret */
	};
	static const uint8_t unbalanced[] = { 0x53, 0xc3 }; /* push %rbx; ret */
	static const uint8_t meet[] = {
		0x85, 0xff, /* test %edi,%edi */
		0x74, 0x01, /* je 5: with rsp+8 */
		0x53,	    /* push %rbx */
		0xc3,	    /* 5: ret, with rsp+8 and rsp+16 */
	};
	static const uint8_t unknown[] = { 0x53, 0x0f, 0x04, 0x5b, 0xc3 }; /* 0f 04: invalid */
	static const uint8_t into_insn[] = {
		0x74, 0x01,			       /* je 3: inside the movabs that follows */
		0x48, 0xb8, 0xc3, 0, 0, 0, 0, 0, 0, 0, /* movabs */
		0xc3,
	};
	static const uint8_t sp_from_reg[] = { 0x48, 0x89, 0xc4, 0xc3 }; /* mov %rax,%rsp; ret */
	static const uint8_t rbp_written[] = {
		0x55, 0x48, 0x89, 0xe5, /* push %rbp; mov %rsp,%rbp */
		0x31, 0xed,		/* xor %ebp,%ebp: the frame lost */
		0xc9, 0xc3,		/* leave; ret */
	};

	CHECK_EQ_STR(ROWS(realign), "refused (-8)");
	CHECK_EQ_STR(ROWS(unbalanced), "refused (-8)");
	CHECK_EQ_STR(ROWS(meet), "refused (-8)");
	CHECK_EQ_STR(ROWS(unknown), "refused (-8)");
	CHECK_EQ_STR(ROWS(into_insn), "refused (-8)");
	CHECK_EQ_STR(ROWS(sp_from_reg), "refused (-8)");
	CHECK_EQ_STR(ROWS(rbp_written), "refused (-8)");
}

/*
 * rbp zeroed by code that did not save it marks the deepest frame (the
 * psABI): _start's and a thread's entry in clone have no caller, whatever
 * they do to rsp next. Zeroed after it was saved, rbp is only a register.
 */
static void test_outermost(void)
{
	static const uint8_t start[] = {
		0x48, 0x31, 0xed,	      /* 0: xor %rbp,%rbp */
		0x48, 0x89, 0xe7,	      /* 3: mov %rsp,%rdi */
		0x48, 0x83, 0xe4, 0xf0,	      /* 6: and $-16,%rsp */
		0xe8, 0xf1, 0x00, 0x00, 0x00, /* a: call 100 */
		0xf4,			      /* f: hlt */
	};
	static const uint8_t clone[] = {
		0x0f, 0x05,	  /* 0: syscall */
		0x85, 0xc0,	  /* 2: test %eax,%eax */
		0x75, 0x08,	  /* 4: jne e: the parent returns */
		0x31, 0xed,	  /* 6: xor %ebp,%ebp: the child */
		0x5f,		  /* 8: pop %rdi */
		0x41, 0xff, 0xd1, /* 9: call *%r9 */
		0x0f, 0x0b,	  /* c: ud2 */
		0xc3,		  /* e: ret */
	};
	static const uint8_t saved[] = {
		0x55,	    /* 0: push %rbp */
		0x31, 0xed, /* 1: xor %ebp,%ebp: a register like any other */
		0x5d,	    /* 3: pop %rbp */
		0xc3,	    /* 4: ret */
	};

	CHECK_EQ_STR(ROWS(start), "0:rsp+8:unchanged 3:undefined 10:end");
	CHECK_EQ_STR(ROWS(clone), "0:rsp+8:unchanged 8:undefined e:rsp+8:unchanged f:end");
	CHECK_EQ_STR(ROWS(saved), "0:rsp+8:unchanged 1:rsp+16:cfa-16 4:rsp+8:unchanged 5:end");
}

/* A byte register 4 without REX is ah, not spl; with REX it is spl. */
static void test_byte_registers(void)
{
	static const uint8_t ah[] = { 0xb4, 0x01, 0xc3 };	 /* mov $1,%ah; ret */
	static const uint8_t spl[] = { 0x40, 0xb4, 0x01, 0xc3 }; /* mov $1,%spl; ret */

	CHECK_EQ_STR(ROWS(ah), "0:rsp+8:unchanged 3:end");
	CHECK_EQ_STR(ROWS(spl), "refused (-8)");
}

int main(void)
{
	log_level = -1;
	RUN(test_encodings);
	RUN(test_red_zone_leaf);
	RUN(test_two_epilogues);
	RUN(test_shrink_wrapped);
	RUN(test_leave);
	RUN(test_rbp_epilogue);
	RUN(test_tail_calls);
	RUN(test_noreturn_call);
	RUN(test_refused);
	RUN(test_outermost);
	RUN(test_byte_registers);
	RUN(test_objdump_glibc);
	RUN(test_objdump_musl);
	RUN(test_objdump_python);
	return test_summary();
}
