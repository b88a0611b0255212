// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/unwind_step.h, compiled here as plain C: the native step of the BPF
 * walk and the address translation before it.
 *
 * The step runs on synthetic stacks: frames laid out as the compilers lay
 * them out, each with the row the table builder makes for it, walked frame
 * by frame as walk_frame walks them, and every reason a walk can stop for.
 * Built once for each architecture (UNW_ARCH_AARCH64 set by
 * tests/unit/meson.build): the rules differ where the return address is
 * kept.
 *
 * The translation (which BPF and core/model/files.c both run) goes from a
 * mapping's start and file offset to the bias that turns its pcs into ELF
 * addresses. First on the segment layouts linkers produce, then against
 * the kernel itself: a file mapped the way ld.so maps segments, split by
 * mprotect() and mapped twice, each byte found where the translation says.
 * It does not depend on the architecture, and runs in both builds.
 */
#include <fcntl.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test.h"
#include "core/targets/procmaps.h"
#include "core/targets/procfs.h"

#ifndef UNW_ARCH_AARCH64
#error "UNW_ARCH_AARCH64 is set by the build: one test per architecture"
#endif

/* The stack: words from base up; reads elsewhere fail, as unmapped memory does. */
#define STACK_WORDS 96
#define STACK_BASE 0x7ffd00000000ULL

struct mem {
	__u64 words[STACK_WORDS];
	__u64 va_mask; /* aarch64: the bits of a user address */
	__u32 notes;   /* bit per enum unw_err noted */
	__u32 last;    /* the last one */
};

static int mem_read(struct mem *m, __u64 addr, __u64 *val)
{
	__u64 off = addr - STACK_BASE;

	if (addr < STACK_BASE || off % 8 || off / 8 >= STACK_WORDS)
		return -1;
	*val = m->words[off / 8];
	return 0;
}

static void mem_note(struct mem *m, __u32 reason)
{
	m->notes |= 1u << reason;
	m->last = reason;
}

#define UNW_READ(mem, addr, val) mem_read((mem), (addr), (val))
#define UNW_NOTE(mem, reason) mem_note((mem), (reason))
#define UNW_VA_MASK(mem) (((struct mem *)(mem))->va_mask)
#include "bpf/unwind_step.h"

static __u64 at(int word)
{
	return STACK_BASE + 8 * (__u64)word;
}

static void put(struct mem *m, int word, __u64 val)
{
	m->words[word] = val;
}

static struct unw_rule row_sp(__s32 cfa_off)
{
	return (struct unw_rule){ .cfa = UNW_CFA_SP, .cfa_off = cfa_off };
}

static const struct unw_rule row_bottom = { .cfa = UNW_CFA_SP,
					    .cfa_off = 16,
					    .ra = UNW_RA_UNDEFINED };
static const struct unw_rule row_end = { .cfa = UNW_CFA_END };

/* Steps once: returns whether the walk goes on; *flags accumulates. */
static int step(struct unw_frame *f, const struct unw_rule *r, struct mem *m, __u32 *flags)
{
	return unw_step_native(f, r, 0, m, flags);
}

/* Frame pointers alone, on both architectures: the same frame record. */
static void test_fp_chain(void)
{
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(0), .fp = at(4) };
	__u32 flags = 0;

	put(&m, 4, at(10)); /* saved fp */
	put(&m, 5, 0x402000);
	put(&m, 10, 0); /* the outermost frame: a chain that leads to 0 */
	put(&m, 11, 0x403000);

	CHECK_EQ_INT(step(&f, NULL, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x402000);
	CHECK_EQ_INT(f.sp, at(6));
	CHECK_EQ_INT(f.fp, at(10));
	CHECK_EQ_INT(f.fp_linked, 1);
	CHECK_EQ_INT(step(&f, NULL, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x403000);
	CHECK_EQ_INT(f.fp, 0);
	CHECK_EQ_INT(step(&f, NULL, &m, &flags), 0);
	CHECK_EQ_INT(flags, UNW_SAMPLE_FP | UNW_SAMPLE_COMPLETE);
	CHECK_EQ_INT(m.notes, 0);
}

/* rbp/x29 is 0 in a register (code without frame pointers): no chain, the walk stops short. */
static void test_fp_register_zero(void)
{
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(0), .fp = 0 };
	__u32 flags = 0;

	CHECK_EQ_INT(step(&f, NULL, &m, &flags), 0);
	CHECK_EQ_INT(flags, UNW_SAMPLE_FP);
	CHECK_EQ_INT(m.notes, 1u << UNW_E_NO_FP);
}

/* A frame pointer below sp is no outer frame. */
static void test_fp_no_progress(void)
{
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(8), .fp = at(2) };
	__u32 flags = 0;

	CHECK_EQ_INT(step(&f, NULL, &m, &flags), 0);
	CHECK_EQ_INT(m.last, UNW_E_NO_PROGRESS);
}

/* A frame pointer into unmapped memory: the return address cannot be read. */
static void test_fp_unreadable(void)
{
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(0), .fp = at(STACK_WORDS + 4) };
	__u32 flags = 0;

	CHECK_EQ_INT(step(&f, NULL, &m, &flags), 0);
	CHECK_EQ_INT(m.last, UNW_E_RA_READ);
}

/* The entry frame: sp where the kernel started the process, no row, nothing above. */
static void test_entry_frame(void)
{
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(20) - 8, .fp = 0 };
	__u32 flags = 0;

	CHECK_EQ_INT(unw_step_native(&f, NULL, at(20), &m, &flags), 0);
	CHECK_EQ_INT(flags, UNW_SAMPLE_COMPLETE);
	CHECK_EQ_INT(m.notes, 0);
	/* Further below, the same frame is walked with frame pointers. */
	f.sp = at(20) - 32;
	flags = 0;
	CHECK_EQ_INT(unw_step_native(&f, NULL, at(20), &m, &flags), 0);
	CHECK(flags & UNW_SAMPLE_FP);
}

/* A gap in the table (an END row) falls back to frame pointers, and says so. */
static void test_end_row_falls_back(void)
{
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(0), .fp = at(2) };
	__u32 flags = 0;

	put(&m, 2, 0);
	put(&m, 3, 0x402000);
	CHECK_EQ_INT(step(&f, &row_end, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x402000);
	CHECK(flags & UNW_SAMPLE_FP);
	CHECK_EQ_INT(m.notes, 1u << UNW_E_END_ROW);
}

/* An unsupported rule falls back too, with its own reason. */
static void test_unsupported_row_falls_back(void)
{
	struct unw_rule r = { .cfa = UNW_CFA_UNSUPPORTED, .unsupported = UNW_UNSUP_CFA_EXPRESSION };
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(0), .fp = 0 };
	__u32 flags = 0;

	CHECK_EQ_INT(step(&f, &r, &m, &flags), 0);
	CHECK(m.notes & (1u << UNW_E_UNSUPPORTED));
	CHECK_EQ_INT(m.last, UNW_E_NO_FP);
}

/* A return address of 0 ends the stack: the bottom, however it was reached. */
static void test_zero_return_address(void)
{
	struct unw_rule r = row_sp(8);
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(0) };
	__u32 flags = 0;

	if (UNW_ARCH_AARCH64)
		r.aux_off = -8;
	put(&m, 0, 0);
	CHECK_EQ_INT(step(&f, &r, &m, &flags), 0);
	CHECK_EQ_INT(flags, UNW_SAMPLE_COMPLETE);
}

/* A row whose CFA is not above sp would loop: the walk stops. */
static void test_row_no_progress(void)
{
	struct unw_rule r = row_sp(0);
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(4) };
	__u32 flags = 0;

	CHECK_EQ_INT(step(&f, &r, &m, &flags), 0);
	CHECK_EQ_INT(m.last, UNW_E_NO_PROGRESS);
	CHECK_EQ_INT(flags, 0);
}

#if !UNW_ARCH_AARCH64

static struct unw_rule row_fp_based(__s32 cfa_off, __s16 fp_off)
{
	return (struct unw_rule){
		.cfa = UNW_CFA_FP, .cfa_off = cfa_off, .fp = UNW_FP_AT_CFA, .fp_off = fp_off
	};
}

/*
 * x86_64, gcc -O2 without frame pointers: leaf (no push: CFA = rsp + 8),
 * a function that pushed rbx (CFA = rsp + 16), one with a frame pointer
 * (CFA = rbp + 16, rbp saved at CFA - 16), then _start's undefined rip.
 */
static void test_x86_chain(void)
{
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(0), .fp = 0x1234 };
	struct unw_rule leaf = row_sp(8), pushed = row_sp(16), framed = row_fp_based(16, -16);
	__u32 flags = 0;

	put(&m, 0, 0x402005); /* leaf's return address, at CFA - 8 */
	put(&m, 1, 0xbbbb);   /* pushed rbx */
	put(&m, 2, 0x403005); /* pushed's return address */
	/* framed: rsp = at(3); it pushed rbp (the caller's: at(12)) at at(6), rbp = at(6) */
	f.fp = at(6);
	put(&m, 6, at(12));
	put(&m, 7, 0x404005);

	CHECK_EQ_INT(step(&f, &leaf, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x402005);
	CHECK_EQ_INT(f.sp, at(1));
	CHECK_EQ_INT(f.fp, at(6)); /* unchanged */
	CHECK_EQ_INT(step(&f, &pushed, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x403005);
	CHECK_EQ_INT(f.sp, at(3));
	CHECK_EQ_INT(step(&f, &framed, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x404005);
	CHECK_EQ_INT(f.sp, at(8));
	CHECK_EQ_INT(f.fp, at(12));
	CHECK_EQ_INT(f.fp_linked, 0);
	CHECK_EQ_INT(step(&f, &row_bottom, &m, &flags), 0);
	CHECK_EQ_INT(flags, UNW_SAMPLE_COMPLETE);
	CHECK_EQ_INT(m.notes, 0);
}

/* gcc's stack realignment (main with AVX locals): CFA = *(rbp - 8), rbp at rbp + 0. */
static void test_x86_realigned(void)
{
	struct unw_rule r = { .cfa = UNW_CFA_DEREF_FP,
			      .cfa_off = -8,
			      .aux_off = 0,
			      .fp = UNW_FP_AT_FP,
			      .fp_off = 0 };
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(0), .fp = at(4) };
	__u32 flags = 0;

	put(&m, 3, at(10));   /* *(rbp - 8): the CFA */
	put(&m, 4, at(20));   /* the caller's rbp */
	put(&m, 9, 0x402000); /* CFA - 8 */
	CHECK_EQ_INT(step(&f, &r, &m, &flags), 1);
	CHECK_EQ_INT(f.sp, at(10));
	CHECK_EQ_INT(f.pc, 0x402000);
	CHECK_EQ_INT(f.fp, at(20));
}

/* A PLT stub: CFA = rsp + 8, + 8 once the stub has pushed its index (rip & 15 >= 11). */
static void test_x86_plt(void)
{
	struct unw_rule r = { .cfa = UNW_CFA_PLT, .cfa_off = 8, .aux_off = 11 };
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401020, .sp = at(0) };
	__u32 flags = 0;

	put(&m, 0, 0x402000);
	put(&m, 1, 0x403000);
	CHECK_EQ_INT(step(&f, &r, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x402000);
	f = (struct unw_frame){ .pc = 0x40102b, .sp = at(0) };
	CHECK_EQ_INT(step(&f, &r, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x403000);
	CHECK_EQ_INT(f.sp, at(2));
}

/*
 * __restore_rt: the kernel's signal frame at sp. The interrupted rsp, rbp
 * and rip are read from it; the next pc is not a return address.
 */
static void test_x86_signal_frame(void)
{
	struct unw_rule r = { .cfa = UNW_CFA_SIGNAL,
			      .cfa_off = 160,
			      .fp = UNW_FP_AT_SP,
			      .fp_off = 120,
			      .ra = UNW_RA_AT_SP,
			      .aux_off = 168 };
	struct mem m = {};
	struct unw_frame f = { .pc = 0x7f0000001000, .sp = at(0) };
	__u32 flags = 0;

	put(&m, 20, at(40));   /* uc_mcontext.rsp at sp + 160 */
	put(&m, 15, at(50));   /* rbp at sp + 120 */
	put(&m, 21, 0x401234); /* rip at sp + 168 */
	CHECK_EQ_INT(step(&f, &r, &m, &flags), 1);
	CHECK_EQ_INT(f.sp, at(40));
	CHECK_EQ_INT(f.fp, at(50));
	CHECK_EQ_INT(f.pc, 0x401234);
	CHECK_EQ_INT(f.signal, 1);
	CHECK_EQ_INT(m.notes, 0);
}

/* The link register is no x86_64 rule: a row that says so is not followed. */
static void test_x86_lr_rule_unusable(void)
{
	struct unw_rule r = { .cfa = UNW_CFA_SP, .cfa_off = 16, .ra = UNW_RA_LR };

	CHECK(!unw_rule__usable(&r));
}

#else /* aarch64 */

/* A frame that saved the caller's fp at CFA + fp_off (stp x29, x30). */
static struct unw_rule row_sp_fp(__s32 cfa_off, __s16 fp_off)
{
	return (struct unw_rule){
		.cfa = UNW_CFA_SP, .cfa_off = cfa_off, .fp = UNW_FP_AT_CFA, .fp_off = fp_off
	};
}

/*
 * aarch64, gcc -O2: a leaf that saved nothing (CFA = sp, the return
 * address still in x30), then a function that ran stp x29, x30,
 * [sp, #-32]! (CFA = sp + 32, x29 at CFA - 32, x30 at CFA - 24), then
 * _start's undefined return address.
 */
static void test_arm64_chain(void)
{
	struct unw_rule leaf = { .cfa = UNW_CFA_SP, .cfa_off = 0, .ra = UNW_RA_LR };
	struct unw_rule framed = row_sp_fp(32, -32);
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(0), .fp = at(0), .lr = 0x402004 };
	__u32 flags = 0;

	framed.aux_off = -24;
	put(&m, 0, at(12));   /* x29 */
	put(&m, 1, 0x403004); /* x30 */

	CHECK_EQ_INT(step(&f, &leaf, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x402004);
	CHECK_EQ_INT(f.sp, at(0));
	CHECK_EQ_INT(f.lr, 0); /* no longer known */
	CHECK_EQ_INT(step(&f, &framed, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x403004);
	CHECK_EQ_INT(f.sp, at(4));
	CHECK_EQ_INT(f.fp, at(12));
	CHECK_EQ_INT(step(&f, &row_bottom, &m, &flags), 0);
	CHECK_EQ_INT(flags, UNW_SAMPLE_COMPLETE);
	CHECK_EQ_INT(m.notes, 0);
}

/*
 * A row that keeps the return address in x30 is followed only where x30 is
 * known, in the leaf: above it, x30 holds whatever the callee left there.
 */
static void test_arm64_lr_outside_leaf(void)
{
	struct unw_rule r = { .cfa = UNW_CFA_SP, .cfa_off = 16, .ra = UNW_RA_LR };
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(0), .lr = 0 };
	__u32 flags = 0;

	CHECK(unw_rule__usable(&r));
	CHECK_EQ_INT(step(&f, &r, &m, &flags), 0);
	CHECK_EQ_INT(m.last, UNW_E_RA_READ);
}

/* The saved x30 is at CFA + aux_off, not at CFA - 8 as on x86_64. */
static void test_arm64_ra_offset(void)
{
	struct unw_rule r = row_sp_fp(48, -48);
	struct mem m = {};
	struct unw_frame f = { .pc = 0x401000, .sp = at(0) };
	__u32 flags = 0;

	r.aux_off = -40;
	put(&m, 0, at(20));   /* x29 at CFA - 48 */
	put(&m, 1, 0x402000); /* x30 at CFA - 40 */
	put(&m, 5, 0x999999); /* CFA - 8: not the return address here */
	CHECK_EQ_INT(step(&f, &r, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x402000);
	CHECK_EQ_INT(f.fp, at(20));
	CHECK_EQ_INT(f.sp, at(6));
}

/* User addresses of 48 bits: a return address signed with PAC has its code above them. */
#define VA_MASK ((1ULL << 48) - 1)
#define PAC(addr) ((addr) | 0x002d000000000000ULL)

/*
 * Return addresses signed with pointer authentication (paciasp), in the
 * link register, in a frame record and where CFI says they were saved, are
 * looked up without their PAC, as xpaclri leaves them.
 */
static void test_arm64_pac_stripped(void)
{
	struct unw_rule leaf = { .cfa = UNW_CFA_SP, .cfa_off = 0, .ra = UNW_RA_LR };
	struct unw_rule framed = row_sp_fp(16, -16);
	struct mem m = { .va_mask = VA_MASK };
	struct unw_frame f = { .pc = 0x401000, .sp = at(0), .lr = PAC(0x402004) };
	__u32 flags = 0;

	framed.aux_off = -8;
	put(&m, 0, at(4));	   /* x29 */
	put(&m, 1, PAC(0x403004)); /* x30, signed */
	put(&m, 4, 0);		   /* the outermost frame record */
	put(&m, 5, PAC(0x404004));

	CHECK_EQ_INT(step(&f, &leaf, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x402004);
	CHECK_EQ_INT(step(&f, &framed, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x403004);
	CHECK_EQ_INT(step(&f, NULL, &m, &flags), 1); /* frame pointers */
	CHECK_EQ_INT(f.pc, 0x404004);
	CHECK_EQ_INT(m.notes, 0);
}

/*
 * A signal handler returns to the vDSO's __kernel_rt_sigreturn at the
 * kernel's signal frame (the row core/unwind/code_a64.c makes): the
 * interrupted pc, sp and x29 come from its sigcontext, and so does x30, with
 * which the interrupted leaf, whose return address is still in it, is
 * walked.
 */
static void test_arm64_signal_frame(void)
{
	struct unw_rule sig = { .cfa = UNW_CFA_SIGNAL,
				.cfa_off = UNW_A64_SIG_SP,
				.fp = UNW_FP_AT_SP,
				.fp_off = UNW_A64_SIG_X29,
				.ra = UNW_RA_AT_SP,
				.aux_off = UNW_A64_SIG_PC };
	struct unw_rule leaf = { .cfa = UNW_CFA_SP, .cfa_off = 0, .ra = UNW_RA_LR };
	struct mem m = { .va_mask = VA_MASK };
	struct unw_frame f = { .pc = 0x7f00000007bc, .sp = at(0) };
	__u32 flags = 0;

	CHECK_EQ_INT(UNW_A64_SIG_X29, 544);
	CHECK_EQ_INT(UNW_A64_SIG_PC, 568);
	put(&m, UNW_A64_SIG_X29 / 8, at(90));
	put(&m, UNW_A64_SIG_X30 / 8, PAC(0x402004));
	put(&m, UNW_A64_SIG_SP / 8, at(80));
	put(&m, UNW_A64_SIG_PC / 8, 0x401010);
	CHECK(unw_rule__usable(&sig));
	CHECK_EQ_INT(step(&f, &sig, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x401010);
	CHECK_EQ_INT(f.sp, at(80));
	CHECK_EQ_INT(f.fp, at(90));
	CHECK_EQ_INT(f.signal, 1);
	CHECK_EQ_INT(step(&f, &leaf, &m, &flags), 1);
	CHECK_EQ_INT(f.pc, 0x402004);
	CHECK_EQ_INT(f.sp, at(80));
	CHECK_EQ_INT(m.notes, 0);
}

#endif

/* ---- address translation ---- */

#define PAGE 0x1000ULL

static struct unw_file file_of(const struct unw_seg *segs, __u32 nr, __u64 base)
{
	struct unw_file f = { .exec_id = 1, .nr_segs = nr, .base = base };

	for (__u32 i = 0; i < nr && i < UNW_FILE_SEGS; i++)
		f.segs[i] = segs[i];
	return f;
}

/* The ELF address of pc in a mapping at start from offset off, or -1 when none. */
static __u64 vaddr_of(const struct unw_file *f, __u64 start, __u64 off, __u64 pc, __u64 page)
{
	__u64 bias;

	if (unw_file__bias(f, start, off, page, &bias))
		return (__u64)-1;
	return pc - bias + f->base;
}

/* GNU ld: page-aligned code, the mapping from the segment's own offset. */
static void test_aligned_segment(void)
{
	const struct unw_seg segs[] = { { .vaddr = 0x1000, .offset = 0x1000, .filesz = 0x2345 } };
	struct unw_file f = file_of(segs, 1, 0);
	__u64 start = 0x555555555000;

	CHECK_EQ_INT(vaddr_of(&f, start, 0x1000, start + 0x10, PAGE), 0x1010);
	CHECK_EQ_INT(vaddr_of(&f, start, 0x1000, start + 0x2344, PAGE), 0x3344);
}

/*
 * lld, mold, rust-lld: the code segment starts mid-page (0x970), the kernel
 * maps it from offset 0 at the page of its address (0x1000).
 */
static void test_misaligned_segment(void)
{
	const struct unw_seg segs[] = { { .vaddr = 0x1970, .offset = 0x970, .filesz = 0xd40 } };
	struct unw_file f = file_of(segs, 1, 0);
	__u64 start = 0x7f0000001000;

	CHECK_EQ_INT(vaddr_of(&f, start, 0, start + 0x970, PAGE), 0x1970);
	CHECK_EQ_INT(vaddr_of(&f, start, 0, start + 0x1000, PAGE), 0x2000);
	/* A table based elsewhere shifts its pcs, not the addresses they stand for. */
	f.base = 0x1000;
	CHECK_EQ_INT(vaddr_of(&f, start, 0, start + 0x970, PAGE), 0x1970);
	/* Offsets past the segment's bytes map no segment. */
	CHECK_EQ_INT(vaddr_of(&f, start, 0x2000, start, PAGE), (__u64)-1);
}

/*
 * Two code segments sharing a file page (BOLT's second text segment after
 * the original one): the later one's mapping starts inside the earlier
 * one's bytes and still belongs to the later one.
 */
static void test_segments_sharing_a_page(void)
{
	const struct unw_seg segs[] = {
		{ .vaddr = 0x10000, .offset = 0x10000, .filesz = 0x5800 },
		{ .vaddr = 0x215800, .offset = 0x15800, .filesz = 0x3000 },
	};
	struct unw_file f = file_of(segs, 2, 0);
	__u64 a = 0x7f0000010000, b = 0x7f0000215000;

	CHECK_EQ_INT(unw_segs__find(f.segs, f.nr_segs, 0x10000, PAGE), 0);
	CHECK_EQ_INT(unw_segs__find(f.segs, f.nr_segs, 0x15000, PAGE), 1);
	CHECK_EQ_INT(vaddr_of(&f, a, 0x10000, a + 0x57f0, PAGE), 0x157f0);
	CHECK_EQ_INT(vaddr_of(&f, b, 0x15000, b + 0x800, PAGE), 0x215800);
	CHECK_EQ_INT(vaddr_of(&f, b, 0x15000, b + 0x2000, PAGE), 0x217000);
}

/* -z max-page-size=0x200000: addresses 2 MiB apart from offsets, mapped in 4 KiB pages. */
static void test_huge_page_alignment(void)
{
	const struct unw_seg segs[] = { { .vaddr = 0x201970, .offset = 0x970, .filesz = 0x8000 } };
	struct unw_file f = file_of(segs, 1, 0);
	__u64 start = 0x7f0000201000;

	CHECK_EQ_INT(vaddr_of(&f, start, 0, start + 0x970, PAGE), 0x201970);
	/* 64 KiB pages (aarch64): offsets congruent mod 64 KiB, mapped from the 64 KiB page. */
	f.segs[0].vaddr = 0x210970;
	start = 0x7f0000210000;
	CHECK_EQ_INT(vaddr_of(&f, start, 0, start + 0x970, 0x10000), 0x210970);
	CHECK_EQ_INT(vaddr_of(&f, start, 0, start + 0x8000, 0x10000), 0x218000);
}

/* A mapping that mprotect() split starts inside its segment: same bias as the rest. */
static void test_split_mapping(void)
{
	const struct unw_seg segs[] = { { .vaddr = 0x1970, .offset = 0x970, .filesz = 0x40000 } };
	struct unw_file f = file_of(segs, 1, 0);
	__u64 start = 0x7f0000001000, bias_a = 0, bias_b = 0;

	CHECK(unw_file__bias(&f, start, 0, PAGE, &bias_a) == 0);
	CHECK(unw_file__bias(&f, start + 0x8000, 0x8000, PAGE, &bias_b) == 0);
	CHECK_EQ_INT(bias_a, bias_b);
}

/* Only UNW_FILE_SEGS segments are held; more is the caller's to cut. */
static void test_segment_count_bound(void)
{
	struct unw_seg segs[UNW_FILE_SEGS];
	struct unw_file f;

	for (int i = 0; i < UNW_FILE_SEGS; i++)
		segs[i] = (struct unw_seg){ .vaddr = 0x100000 * (i + 1),
					    .offset = 0x10000 * i,
					    .filesz = 0x1000 };
	f = file_of(segs, UNW_FILE_SEGS, 0);
	CHECK_EQ_INT(unw_segs__find(f.segs, f.nr_segs, 0x10000 * (UNW_FILE_SEGS - 1), PAGE),
		     UNW_FILE_SEGS - 1);
	f.nr_segs = 0;
	CHECK_EQ_INT(unw_segs__find(f.segs, f.nr_segs, 0, PAGE), -1);
}

/* ---- against the kernel ---- */

#define FILE_PAGES 16

/* The mapping of this process holding addr, from /proc/self/maps. */
static int own_mapping(__u64 addr, __u64 *start, __u64 *off)
{
	struct procmaps *pm = procfs__read_maps(getpid());
	int found = -1;

	for (size_t i = 0; pm && i < pm->nr; i++) {
		if (pm->maps[i].start <= addr && addr < pm->maps[i].end) {
			*start = pm->maps[i].start;
			*off = pm->maps[i].offset;
			found = 0;
		}
	}
	procmaps__free(pm);
	return found;
}

/* Every 64th byte of the segment is where vaddr_of() says: the file's byte at its offset. */
static void check_bytes(const struct unw_file *f, const __u8 *map, size_t len, __u64 page)
{
	const struct unw_seg *s = &f->segs[0];
	__u64 start = 0, off = 0, bias = 0;

	CHECK(own_mapping((__u64)(uintptr_t)map + len / 2, &start, &off) == 0);
	CHECK(unw_file__bias(f, start, off, page, &bias) == 0);
	for (__u64 v = s->vaddr; v < s->vaddr + s->filesz; v += 64) {
		__u64 pc = v - f->base + bias;
		__u64 file_off = s->offset + (v - s->vaddr);

		if (pc < (__u64)(uintptr_t)map || pc >= (__u64)(uintptr_t)map + len)
			continue; /* in another piece of a split mapping */
		if (*(const __u8 *)(uintptr_t)pc != (__u8)(file_off * 7 + 3)) {
			CHECK(!"byte of the segment not where the translation puts it");
			return;
		}
	}
}

/*
 * A segment at offset 0x970, vaddr 0x1970 (lld's layout), mapped as ld.so
 * does: from the page holding its first byte. Then split by mprotect, and
 * mapped a second time elsewhere.
 */
static void test_kernel_mappings(void)
{
	__u64 page = (__u64)sysconf(_SC_PAGESIZE);
	const struct unw_seg seg = { .vaddr = page + 0x970,
				     .offset = 0x970,
				     .filesz = (FILE_PAGES - 2) * page };
	struct unw_file f = file_of(&seg, 1, 0);
	char path[] = "/tmp/unwprof-translate-XXXXXX";
	size_t len = FILE_PAGES * page;
	__u8 *buf = malloc(len), *a = MAP_FAILED, *b = MAP_FAILED;
	int fd = mkstemp(path);

	CHECK(fd >= 0 && buf);
	if (fd < 0 || !buf)
		goto cleanup;
	for (size_t i = 0; i < len; i++)
		buf[i] = (__u8)(i * 7 + 3);
	CHECK(write(fd, buf, len) == (ssize_t)len);
	a = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	b = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	CHECK(a != MAP_FAILED && b != MAP_FAILED);
	if (a == MAP_FAILED || b == MAP_FAILED)
		goto cleanup;
	check_bytes(&f, a, len, page);
	check_bytes(&f, b, len, page);
	/* Split: the part after a read-write page starts mid-segment. */
	CHECK(mprotect(a + 4 * page, page, PROT_READ | PROT_WRITE) == 0);
	check_bytes(&f, a + 5 * page, len - 5 * page, page);
	check_bytes(&f, a, 4 * page, page);
cleanup:
	if (a != MAP_FAILED)
		munmap(a, len);
	if (b != MAP_FAILED)
		munmap(b, len);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	free(buf);
}

/* A number from a fixed sequence (xorshift), for the randomized comparison below. */
static __u64 next_random(__u64 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* plain half the time, else any value up to last. */
static __u8 half_plain(__u64 *seed, __u8 plain, __u8 last)
{
	return next_random(seed) % 2 ? plain : next_random(seed) % (last + 1);
}

/*
 * unw_step_plain against the full step, on random rows, frames and stacks:
 * where the plain step takes a frame, the full step takes it too and makes
 * the same caller's frame; where it declines, the frame is untouched. Every
 * word is aligned, as the test's memory wants (the copy would read the
 * others too). Both outcomes must occur often, or the comparison says
 * nothing.
 */
static void test_plain_step_matches_full(void)
{
	static __u8 copy[2 * UNW_STACK_COPY];
	__u64 seed = 0x9e3779b97f4a7c15ULL;
	int taken = 0, declined = 0;

	for (int trial = 0; trial < 200000; trial++) {
		struct mem m = {};
		/* Half the rows plain in each of their rules, the rest anything. */
		struct unw_rule r = {
			.cfa = half_plain(&seed, UNW_CFA_SP + next_random(&seed) % 2,
					  UNW_CFA_UNSUPPORTED),
			.fp = half_plain(&seed, next_random(&seed) % 2, UNW_FP_UNSUPPORTED),
			.ra = half_plain(&seed, UNW_RA_AT_CFA, UNW_RA_UNSUPPORTED),
			.cfa_off = 8 * (__s32)(next_random(&seed) % 24) - 32,
			.fp_off = 8 * (__s32)(next_random(&seed) % 8) - 32,
			.aux_off = 8 * (__s32)(next_random(&seed) % 4) - 16,
		};
		__u64 base = at((int)(next_random(&seed) % 8));
		__u64 len = 8 * (next_random(&seed) % (STACK_WORDS + 1));
		struct unw_frame f = { .pc = 0x401000,
				       .sp = at((int)(next_random(&seed) % 48)),
				       .fp = at((int)(next_random(&seed) % 64)) };
		struct unw_frame plain, full;
		__u32 flags = 0;

		for (int w = 0; w < STACK_WORDS; w++)
			m.words[w] = next_random(&seed) % 5 ?
					     0x400000 + next_random(&seed) % 0x10000 :
					     0;
		if (UNW_ARCH_AARCH64 && next_random(&seed) % 2)
			m.va_mask = (1ULL << 48) - 1;
		if (base + len > at(STACK_WORDS))
			len = at(STACK_WORDS) - base;
		memcpy(copy, &m.words[(base - STACK_BASE) / 8], len);
		plain = full = f;
		if (!unw_step_plain(&plain, &r, copy, base, len, m.va_mask)) {
			declined++;
			CHECK(memcmp(&plain, &f, sizeof(f)) == 0);
			continue;
		}
		taken++;
		CHECK_EQ_INT(unw_step_native(&full, &r, 0, &m, &flags), 1);
		CHECK(memcmp(&plain, &full, sizeof(full)) == 0);
		CHECK_EQ_INT(m.notes, 0);
	}
	CHECK(taken > 5000);
	CHECK(declined > 5000);
}

int main(void)
{
	RUN(test_fp_chain);
	RUN(test_fp_register_zero);
	RUN(test_fp_no_progress);
	RUN(test_fp_unreadable);
	RUN(test_entry_frame);
	RUN(test_end_row_falls_back);
	RUN(test_unsupported_row_falls_back);
	RUN(test_zero_return_address);
	RUN(test_row_no_progress);
	RUN(test_plain_step_matches_full);
#if !UNW_ARCH_AARCH64
	RUN(test_x86_chain);
	RUN(test_x86_realigned);
	RUN(test_x86_plt);
	RUN(test_x86_signal_frame);
	RUN(test_x86_lr_rule_unusable);
#else
	RUN(test_arm64_chain);
	RUN(test_arm64_lr_outside_leaf);
	RUN(test_arm64_ra_offset);
	RUN(test_arm64_pac_stripped);
	RUN(test_arm64_signal_frame);
#endif

	RUN(test_aligned_segment);
	RUN(test_misaligned_segment);
	RUN(test_segments_sharing_a_page);
	RUN(test_huge_page_alignment);
	RUN(test_split_mapping);
	RUN(test_segment_count_bound);
	RUN(test_kernel_mappings);
	return test_summary();
}
