// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading what a walk of Ruby's frames needs from an interpreter's ELF
 * file. See rbruntime.h. Every symbol and relocation comes from the file
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
#include "rbruntime.h"
#include "../../unwind/unwind_table.h"

/*
 * The offsets of each version known, from its sources (vm_core.h, method.h,
 * include/ruby/internal/core/rstring.h, rarray.h, symbol.c, id.h) and
 * checked against its build: 3.1 against Debian 12's libruby-3.1.so.3.1.2
 * (DWARF-less, by the walk), 3.3 against Debian's libruby-3.3.so.3.3.8 by
 * the code of the functions it exports that read the fields (rb_iseq_label,
 * rb_iseq_first_lineno, rb_iseq_path, rb_iseq_line_no, rb_string_value_ptr,
 * rb_id2str) and by the walk.
 */
static const struct {
	uint8_t major, minor;
	struct rb_offsets off;
} rb_table[] = {
	{ 3,
	  1,
	  { .ec_vm_stack = 0,
	    .ec_vm_stack_size = 8,
	    .ec_cfp = 16,
	    .cfp_size = 64,
	    .cfp_pc = 0,
	    .cfp_iseq = 16,
	    .cfp_ep = 32,
	    .iseq_body = 16,
	    .body_iseq_encoded = 8,
	    .body_location = 64,
	    .location_pathobj = 0,
	    .location_label = 16,
	    .location_first_lineno = 24,
	    .body_insns_body = 120,
	    .body_insns_positions = 128,
	    .body_insns_size = 136,
	    .body_insns_succ = 144,
	    .insn_entry_size = 12,
	    .insn_entry_line = 0,
	    .string_len = 16,
	    .string_heap_ptr = 24,
	    .string_embed = 16,
	    .string_embed_len_mask = 0x1f,
	    .array_embed = 16,
	    .array_embed_len_mask = 0x3,
	    .array_heap_len = 16,
	    .array_heap_ptr = 32,
	    .me_def = 16,
	    .me_called_id = 24,
	    .last_op_id = 0xa9 } },
	/*
	 * The control frame lost its seventh word (__bp__), the iseq location's
	 * first_lineno became an int, and variable width allocation gave every
	 * String its len field and embedded ones their characters after it.
	 */
	{ 3,
	  3,
	  { .ec_vm_stack = 0,
	    .ec_vm_stack_size = 8,
	    .ec_cfp = 16,
	    .cfp_size = 56,
	    .cfp_pc = 0,
	    .cfp_iseq = 16,
	    .cfp_ep = 32,
	    .iseq_body = 16,
	    .body_iseq_encoded = 8,
	    .body_location = 64,
	    .location_pathobj = 0,
	    .location_label = 16,
	    .location_first_lineno = 24,
	    .first_lineno_int = true,
	    .body_insns_body = 112,
	    .body_insns_positions = 120,
	    .body_insns_size = 128,
	    .body_insns_succ = 136,
	    .insn_entry_size = 12,
	    .insn_entry_line = 0,
	    .string_len = 16,
	    .string_heap_ptr = 24,
	    .string_embed = 24,
	    .string_embed_len_mask = 0,
	    .array_embed = 16,
	    .array_embed_len_mask = 0x7f,
	    .array_heap_len = 16,
	    .array_heap_ptr = 32,
	    .me_def = 16,
	    .me_called_id = 24,
	    .last_op_id = 0xa9 } },
};

enum {
	SYM_VERSION,
	SYM_VM_EXEC,
	SYM_EC,
	SYM_ID2STR,
	SYM_THREAD_CURRENT,
	SYM_ISEQ_EVAL,
	SYM_ISEQ_EVAL_MAIN,
	SYM_GLOBAL_SYMBOLS,
	SYM_NR
};

static const struct elf_symbol_query rb_sym_names[SYM_NR] = {
	[SYM_VERSION] = { "ruby_version", STT_OBJECT },
	[SYM_VM_EXEC] = { "rb_vm_exec", STT_FUNC },
	[SYM_EC] = { "ruby_current_ec", STT_TLS },
	[SYM_ID2STR] = { "rb_id2str", STT_FUNC },
	/* what uses the two above, when they are not exported */
	[SYM_THREAD_CURRENT] = { "rb_thread_current", STT_FUNC },
	[SYM_ISEQ_EVAL] = { "rb_iseq_eval", STT_FUNC },
	[SYM_ISEQ_EVAL_MAIN] = { "rb_iseq_eval_main", STT_FUNC },
	/* a local symbol, in a libruby not stripped */
	[SYM_GLOBAL_SYMBOLS] = { "ruby_global_symbols", STT_OBJECT },
};

#define X86_JMP_REL32 0xe9
#define ID2STR_CODE_MAX 64     /* bytes of rb_id2str looked at */
#define ID_LOOKUP_CODE_MAX 160 /* bytes of the function it jumps to */
#define SYMBOLS_IDS_OFF 16     /* rb_symbols_t: last_id, str_sym, ids */
#define TLS_CODE_MAX 64	       /* bytes of rb_thread_current looked at */
#define EVAL_CODE_MAX 1024     /* bytes of rb_iseq_eval(_main) looked at */
#define TLS_OFFSET_MAX 65536   /* an offset in a TLS block past this is not one */

static int32_t rel32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The address of the first RIP-relative operand of an instruction starting
 * with the len bytes op (then a disp32, then nothing) in [code, code +
 * size) at vaddr; 0 when there is none.
 */
static uint64_t rip_operand(const uint8_t *code, size_t size, uint64_t vaddr, const uint8_t *op,
			    size_t len)
{
	for (size_t i = 0; i + len + 4 <= size; i++)
		if (!memcmp(code + i, op, len))
			return vaddr + i + len + 4 + rel32(code + i + len);
	return 0;
}

/*
 * x86_64: rb_id2str jumps (jmp rel32) to the lookup, which compares the
 * serial with last_id (cmp %edi, disp(%rip)) and loads ids 16 bytes on
 * (mov disp(%rip), %rdi).
 */
static void symbols_x64(const struct elf_file *ef, const struct elf_symbol_query *id2str,
			uint64_t *last_id, uint64_t *ids)
{
	static const uint8_t cmp_edi[] = { 0x39, 0x3d }, mov_rdi[] = { 0x48, 0x8b, 0x3d };
	size_t n = id2str->size < ID2STR_CODE_MAX ? id2str->size : ID2STR_CODE_MAX;
	const uint8_t *code = elf_file__vaddr_bytes(ef, id2str->value, n);
	uint64_t lookup = 0;

	for (size_t i = 0; code && i + 5 <= n && !lookup; i++)
		if (code[i] == X86_JMP_REL32)
			lookup = id2str->value + i + 5 + rel32(code + i + 1);
	code = lookup ? elf_file__vaddr_bytes(ef, lookup, ID_LOOKUP_CODE_MAX) : NULL;
	if (!code)
		return;
	*last_id = rip_operand(code, ID_LOOKUP_CODE_MAX, lookup, cmp_edi, sizeof(cmp_edi));
	*ids = rip_operand(code, ID_LOOKUP_CODE_MAX, lookup, mov_rdi, sizeof(mov_rdi));
}

/* The aarch64 instruction at code + i. */
static uint32_t a64_insn(const uint8_t *code, size_t i)
{
	uint32_t insn;

	memcpy(&insn, code + i, sizeof(insn));
	return insn;
}

/* Bits [lo, lo + n) of insn, sign-extended. */
static int64_t a64_sbits(uint32_t insn, unsigned int lo, unsigned int n)
{
	uint64_t v = (insn >> lo) & ((1ULL << n) - 1);

	return (int64_t)(v << (64 - n)) >> (64 - n);
}

/*
 * aarch64: rb_id2str branches (b) to the lookup, which forms last_id's
 * page (adrp), loads it (ldr w, [page, #off]), adds its offset to the page
 * (add x, page, #off) and loads ids 16 bytes on (ldr x, [last_id, #16]).
 * Each register's address formed so far is followed in addr.
 */
static void symbols_a64(const struct elf_file *ef, const struct elf_symbol_query *id2str,
			uint64_t *last_id, uint64_t *ids)
{
	size_t n = id2str->size < ID2STR_CODE_MAX ? id2str->size : ID2STR_CODE_MAX;
	const uint8_t *code = elf_file__vaddr_bytes(ef, id2str->value, n);
	uint64_t lookup = 0, addr[32] = { 0 };

	for (size_t i = 0; code && i + 4 <= n && !lookup; i += 4)
		if ((a64_insn(code, i) & 0xfc000000) == 0x14000000) /* b imm26 */
			lookup = id2str->value + i +
				 (uint64_t)(a64_sbits(a64_insn(code, i), 0, 26) * 4);
	code = lookup ? elf_file__vaddr_bytes(ef, lookup, ID_LOOKUP_CODE_MAX) : NULL;
	for (size_t i = 0; code && i + 4 <= ID_LOOKUP_CODE_MAX; i += 4) {
		uint32_t insn = a64_insn(code, i), rd = insn & 31, rn = (insn >> 5) & 31;
		uint64_t imm12 = (insn >> 10) & 0xfff, pc = lookup + i;

		if ((insn & 0x9f000000) == 0x90000000) /* adrp */
			addr[rd] =
				(pc & ~0xfffULL) +
				(uint64_t)(a64_sbits(insn, 5, 19) * 4 + ((insn >> 29) & 3)) * 4096;
		else if ((insn & 0xffc00000) == 0xb9400000 && addr[rn] && !*last_id) /* ldr w */
			*last_id = addr[rn] + imm12 * 4;
		else if ((insn & 0xffc00000) == 0x91000000 && addr[rn]) /* add x, #imm12 */
			addr[rd] = addr[rn] + imm12;
		else if ((insn & 0xffc00000) == 0xf9400000 && addr[rn] && *last_id && !*ids)
			*ids = addr[rn] + imm12 * 8; /* ldr x */
	}
}

/*
 * Where ruby_global_symbols is, from rb_id2str's code (symbols_x64,
 * symbols_a64). Nothing is set when the code is not of the shape known:
 * C methods are then "<cfunc>".
 */
static void read_symbols(const struct elf_file *ef, const struct elf_symbol_query *id2str,
			 struct rbruntime *rr)
{
	uint64_t last_id = 0, ids = 0;

	if (elf_file__machine(ef) == EM_AARCH64)
		symbols_a64(ef, id2str, &last_id, &ids);
	else
		symbols_x64(ef, id2str, &last_id, &ids);
	if (!last_id || ids != last_id + SYMBOLS_IDS_OFF ||
	    !elf_file__vaddr_mapped(ef, last_id, 24))
		return;
	rr->symbols_last_id = last_id;
	rr->symbols_ids = ids;
}

/* "3.1.2" into rr's version; -EINVAL when it is not one. */
static int read_version(const struct elf_file *ef, const struct elf_symbol_query *s,
			struct rbruntime *rr)
{
	const char *str = s->size ? elf_file__vaddr_string(ef, s->value, s->size) : NULL;
	unsigned int major, minor, teeny;
	int end = 0;

	if (!str || sscanf(str, "%u.%u.%u%n", &major, &minor, &teeny, &end) != 3 ||
	    str[end] != '\0' || major > 255 || minor > 255 || teeny > 255)
		return -EINVAL;
	rr->major = major;
	rr->minor = minor;
	rr->teeny = teeny;
	return 0;
}

/*
 * The GOT slot the dynamic loader fills with the module id of
 * ruby_current_ec (its DTPMOD64 relocation in .rela.dyn), else on aarch64
 * its TLS descriptor's (ec_tlsdesc); 0 when the variable is reached
 * another way (a static offset).
 */
static uint64_t ec_module_slot(const struct elf_file *ef, struct rbruntime *rr)
{
	struct elf_tls_slots slots;

	elf_file__tls_slots(ef, "ruby_current_ec", &slots);
	rr->ec_tlsdesc = !slots.dtpmod && slots.tlsdesc;
	return slots.dtpmod ? slots.dtpmod : slots.tlsdesc;
}

/* The relocation of type type at vaddr in .rela.dyn into *r; false when there is none. */
static bool reloc_at(const struct elf_file *ef, uint64_t vaddr, uint32_t type, Elf64_Rela *r)
{
	struct elf_section rela;

	if (elf_file__section(ef, ".rela.dyn", &rela) || rela.size % sizeof(*r))
		return false;
	for (size_t i = 0; i < rela.size / sizeof(*r); i++) {
		memcpy(r, rela.data + i * sizeof(*r), sizeof(*r));
		if (r->r_offset == vaddr && ELF64_R_TYPE(r->r_info) == type)
			return true;
	}
	return false;
}

/* The rm = %rax load after the call: mov disp(%rax), %reg64 (REX.W 8b, mod 0, 1 or 2). */
static int tls_load_disp(const uint8_t *code, size_t len, int32_t *disp)
{
	uint8_t mod;

	if (len < 3 || (code[0] & 0xfb) != 0x48 || code[1] != 0x8b || (code[2] & 7) != 0)
		return -ENOENT;
	mod = code[2] >> 6;
	if (mod == 0) {
		*disp = 0;
	} else if (mod == 1 && len >= 4) {
		*disp = (int8_t)code[3];
	} else if (mod == 2 && len >= 7) {
		*disp = rel32(code + 3);
	} else {
		return -ENOENT;
	}
	return 0;
}

int rbruntime__tls_load(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t *slot,
			int32_t *disp)
{
	/* data16 lea disp32(%rip),%rdi; data16 data16 rex.W call rel32, or its -fno-plt form */
	static const uint8_t lea[] = { 0x66, 0x48, 0x8d, 0x3d };
	static const uint8_t call[] = { 0x66, 0x66, 0x48, 0xe8 };
	static const uint8_t call_got[] = { 0x66, 0x48, 0xff, 0x15 };

	for (size_t i = 0; code && i + 16 <= len; i++) {
		if (memcmp(code + i, lea, sizeof(lea)))
			continue;
		if (memcmp(code + i + 8, call, sizeof(call)) &&
		    memcmp(code + i + 8, call_got, sizeof(call_got)))
			return -ENOENT;
		*slot = vaddr + i + 8 + rel32(code + i + 4);
		return tls_load_disp(code + i + 16, len - i - 16, disp);
	}
	return -ENOENT;
}

/*
 * ruby_current_ec from rb_thread_current's code, when it is not exported:
 * GET_THREAD()->self loads it first. The GOT pair it passes holds the
 * module id (a DTPMOD64 relocation) and the variable's offset in the
 * module's block, which the link wrote there for a hidden variable (or a
 * DTPOFF64 relocation without a symbol adds).
 */
static int ec_from_code(const struct elf_file *ef, const struct elf_symbol_query *fn,
			struct rbruntime *rr)
{
	size_t n = fn->size < TLS_CODE_MAX ? fn->size : TLS_CODE_MAX;
	const uint8_t *code = fn->found ? elf_file__vaddr_bytes(ef, fn->value, n) : NULL, *word;
	uint64_t slot, off;
	int32_t disp;
	Elf64_Rela r;

	if (rbruntime__tls_load(code, n, fn->value, &slot, &disp)) {
		pr_debug("%s: rb_thread_current does not load ruby_current_ec as known",
			 elf_file__path(ef));
		return -ENOTSUP;
	}
	word = elf_file__vaddr_bytes(ef, slot + 8, 8);
	if (!reloc_at(ef, slot, R_X86_64_DTPMOD64, &r) || !word) {
		pr_debug("%s: rb_thread_current's TLS slot %#" PRIx64 " is not a module's",
			 elf_file__path(ef), slot);
		return -EINVAL;
	}
	memcpy(&off, word, sizeof(off));
	if (reloc_at(ef, slot + 8, R_X86_64_DTPOFF64, &r))
		off = ELF64_R_SYM(r.r_info) ? UINT64_MAX : (uint64_t)r.r_addend;
	off += (uint64_t)(int64_t)disp;
	if (off % 8 || off >= TLS_OFFSET_MAX) {
		pr_debug("%s: ruby_current_ec at %#" PRIx64 " of its TLS block is not a variable",
			 elf_file__path(ef), off);
		return -EINVAL;
	}
	rr->ec_module_got = slot;
	rr->ec_offset = off;
	rr->ec_from_code = true;
	return 0;
}

/* Whether code (len bytes at vaddr) has a jmp rel32 to target. */
static bool jumps_to(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t target)
{
	for (size_t i = 0; i + 5 <= len; i++)
		if (code[i] == X86_JMP_REL32 && vaddr + i + 5 + rel32(code + i + 1) == target)
			return true;
	return false;
}

uint64_t rbruntime__common_jump(const uint8_t *a, size_t alen, uint64_t avaddr, const uint8_t *b,
				size_t blen, uint64_t bvaddr)
{
	uint64_t found = 0;

	for (size_t i = 0; a && b && i + 5 <= alen; i++) {
		uint64_t t = avaddr + i + 5 + rel32(a + i + 1);

		if (a[i] != X86_JMP_REL32 || t == found || (t >= avaddr && t < avaddr + alen) ||
		    (t >= bvaddr && t < bvaddr + blen) || !jumps_to(b, blen, bvaddr, t))
			continue;
		if (found)
			return 0;
		found = t;
	}
	return found;
}

struct fde_search {
	uint64_t lo, hi;
};

static int fde_at(void *ctx, uint64_t lo, uint64_t hi)
{
	struct fde_search *fs = ctx;

	if (lo != fs->lo)
		return 0;
	fs->hi = hi;
	return 1;
}

/* The code of fn, at most EVAL_CODE_MAX bytes of it, and their number in *len. */
static const uint8_t *fn_code(const struct elf_file *ef, const struct elf_symbol_query *fn,
			      size_t *len)
{
	*len = fn->size < EVAL_CODE_MAX ? fn->size : EVAL_CODE_MAX;
	return fn->found ? elf_file__vaddr_bytes(ef, fn->value, *len) : NULL;
}

/*
 * rb_vm_exec, when it is not exported: rb_iseq_eval and rb_iseq_eval_main
 * both end in vm_exec(ec), a tail call, and jump nowhere else in common.
 * The target is the start of an FDE, whose range is the function's.
 */
static int vm_exec_from_code(const struct elf_file *ef, const struct elf_symbol_query *syms,
			     struct rbruntime *rr)
{
	const struct elf_symbol_query *a = &syms[SYM_ISEQ_EVAL], *b = &syms[SYM_ISEQ_EVAL_MAIN];
	size_t alen, blen;
	const uint8_t *acode = fn_code(ef, a, &alen), *bcode = fn_code(ef, b, &blen);
	struct fde_search fs = { .lo = rbruntime__common_jump(acode, alen, a->value, bcode, blen,
							      b->value) };

	if (!fs.lo) {
		pr_debug("%s: rb_iseq_eval and rb_iseq_eval_main do not end in one function",
			 elf_file__path(ef));
		return -ENOTSUP;
	}
	if (unwind_table__each_fde(ef, fde_at, &fs) != 1 || fs.hi <= fs.lo ||
	    !elf_file__vaddr_bytes(ef, fs.lo, fs.hi - fs.lo)) {
		pr_debug("%s: rb_vm_exec at %#" PRIx64 " has no FDE", elf_file__path(ef), fs.lo);
		return -ENOTSUP;
	}
	rr->vm_exec_lo = fs.lo;
	rr->vm_exec_hi = fs.hi;
	rr->vm_exec_from_code = true;
	return 0;
}

const struct rb_offsets *rbruntime__offsets_of(unsigned int major, unsigned int minor)
{
	for (size_t i = 0; i < ARRAY_SIZE(rb_table); i++)
		if (rb_table[i].major == major && rb_table[i].minor == minor)
			return &rb_table[i].off;
	return NULL;
}

static int read_offsets(const struct elf_file *ef, struct rbruntime *rr)
{
	const struct rb_offsets *off = rbruntime__offsets_of(rr->major, rr->minor);

	if (off) {
		rr->off = *off;
		return 0;
	}
	pr_debug("%s: Ruby %u.%u is not supported", elf_file__path(ef), rr->major, rr->minor);
	return -ENOTSUP;
}

/* rb_vm_exec's range, by its symbol or from the code that calls it. */
static int read_vm_exec(const struct elf_file *ef, const struct elf_symbol_query *syms,
			struct rbruntime *rr)
{
	const struct elf_symbol_query *exec = &syms[SYM_VM_EXEC];

	if (!exec->found && elf_file__machine(ef) != EM_X86_64) {
		pr_debug("%s: rb_vm_exec is found from x86_64 code only", elf_file__path(ef));
		return -ENOTSUP;
	}
	if (!exec->found)
		return vm_exec_from_code(ef, syms, rr);
	if (!exec->size || !elf_file__vaddr_bytes(ef, exec->value, exec->size)) {
		pr_debug("%s: rb_vm_exec lies outside the file", elf_file__path(ef));
		return -EINVAL;
	}
	rr->vm_exec_lo = exec->value;
	rr->vm_exec_hi = exec->value + exec->size;
	return 0;
}

/*
 * Where ruby_current_ec is, by its exported symbol and its relocation, or
 * from the code that reads it. A hidden variable may still have a local
 * symbol (a libruby not stripped): it must then agree with the code.
 */
static int read_ec(const struct elf_file *ef, const struct elf_symbol_query *syms,
		   struct rbruntime *rr)
{
	const struct elf_symbol_query *ec = &syms[SYM_EC];
	int err;

	rr->ec_module_got = ec->found ? ec_module_slot(ef, rr) : 0;
	if (rr->ec_module_got) {
		if (ec->value % 8 || ec->value >= TLS_OFFSET_MAX) {
			pr_debug("%s: ruby_current_ec at %#" PRIx64
				 " is no variable of a TLS block",
				 elf_file__path(ef), ec->value);
			return -EINVAL;
		}
		rr->ec_offset = ec->value;
		return 0;
	}
	if (elf_file__machine(ef) != EM_X86_64) {
		pr_debug("%s: ruby_current_ec is found from x86_64 code only", elf_file__path(ef));
		return -ENOTSUP;
	}
	err = ec_from_code(ef, &syms[SYM_THREAD_CURRENT], rr);
	if (!err && ec->found && ec->value != rr->ec_offset) {
		pr_debug("%s: rb_thread_current loads ruby_current_ec at %#" PRIx64
			 " of its TLS block, its symbol says %#" PRIx64,
			 elf_file__path(ef), rr->ec_offset, ec->value);
		return -EINVAL;
	}
	return err;
}

int rbruntime__read(const struct elf_file *ef, struct rbruntime *rr)
{
	struct elf_symbol_query syms[SYM_NR];
	int err;

	memset(rr, 0, sizeof(*rr));
	memcpy(syms, rb_sym_names, sizeof(syms));
	err = elf_file__find_symbols(ef, syms, SYM_NR);
	if (err)
		return err;
	/* libruby, or a ruby with it linked in: it has its version and runs Ruby's threads */
	if (!syms[SYM_VERSION].found || !(syms[SYM_EC].found || syms[SYM_THREAD_CURRENT].found))
		return -ENOENT;
	if (elf_file__machine(ef) != EM_X86_64 && elf_file__machine(ef) != EM_AARCH64) {
		pr_debug("%s: Ruby's offsets are known on x86_64 and aarch64 only",
			 elf_file__path(ef));
		return -ENOTSUP;
	}
	if (read_version(ef, &syms[SYM_VERSION], rr)) {
		pr_debug("%s: ruby_version is not a version", elf_file__path(ef));
		return -EINVAL;
	}
	/* Known first, so that the samples of a version refused are counted there. */
	err = read_vm_exec(ef, syms, rr);
	if (!err)
		err = read_offsets(ef, rr);
	if (!err)
		err = read_ec(ef, syms, rr);
	if (err)
		return err;
	if (syms[SYM_GLOBAL_SYMBOLS].found &&
	    elf_file__vaddr_mapped(ef, syms[SYM_GLOBAL_SYMBOLS].value, 24)) {
		rr->symbols_last_id = syms[SYM_GLOBAL_SYMBOLS].value;
		rr->symbols_ids = rr->symbols_last_id + SYMBOLS_IDS_OFF;
	} else if (syms[SYM_ID2STR].found) {
		read_symbols(ef, &syms[SYM_ID2STR], rr);
	}
	if (!rr->symbols_ids)
		pr_debug("%s: Ruby's symbol table was not found: C methods are <cfunc>",
			 elf_file__path(ef));
	return 0;
}

/* What a walk of Ruby's frames reads in this file, as dump-unwind shows it. */
void rbruntime__print(FILE *f, const struct rbruntime *r)
{
	fprintf(f, "Ruby:        %u.%u.%u, rb_vm_exec %#" PRIx64 "-%#" PRIx64 "%s, ", r->major,
		r->minor, r->teeny, r->vm_exec_lo, r->vm_exec_hi,
		r->vm_exec_from_code ? " (where rb_iseq_eval jumps)" : "");
	if (r->ec_tlsdesc)
		fprintf(f,
			"ruby_current_ec at %#" PRIx64 " of its TLS block"
			" (its TLS descriptor in the GOT at %#" PRIx64 ")\n",
			r->ec_offset, r->ec_module_got);
	else
		fprintf(f,
			"ruby_current_ec at %#" PRIx64 " of its TLS block"
			" (module id in the GOT at %#" PRIx64 "%s)\n",
			r->ec_offset, r->ec_module_got,
			r->ec_from_code ? "; from rb_thread_current's code" : "");
	if (r->symbols_ids)
		fprintf(f, "             symbol table at %#" PRIx64 " (C methods named)\n",
			r->symbols_last_id);
	else
		fprintf(f, "             no symbol table found (C methods are <cfunc>)\n");
}

void rbruntime__print_json(struct json_writer *jw, const struct rbruntime *r)
{
	json__key(jw, "ruby");
	json__object_start(jw);
	json__key(jw, "version");
	json__stringf(jw, "%u.%u.%u", r->major, r->minor, r->teeny);
	json__key(jw, "vm_exec");
	json__array_start(jw);
	json__stringf(jw, "%#" PRIx64, r->vm_exec_lo);
	json__stringf(jw, "%#" PRIx64, r->vm_exec_hi);
	json__array_end(jw);
	json__key(jw, "vm_exec_from");
	json__string(jw, r->vm_exec_from_code ? "rb_iseq_eval" : "symbol");
	json__key(jw, "ec_offset");
	json__stringf(jw, "%#" PRIx64, r->ec_offset);
	json__key(jw, r->ec_tlsdesc ? "ec_tlsdesc_got" : "ec_module_got");
	json__stringf(jw, "%#" PRIx64, r->ec_module_got);
	json__key(jw, "ec_from");
	json__string(jw, r->ec_from_code ? "rb_thread_current" : "symbol");
	json__key(jw, "symbols");
	if (r->symbols_ids)
		json__stringf(jw, "%#" PRIx64, r->symbols_last_id);
	else
		json__null(jw);
	json__object_end(jw);
}
