// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading what a walk of Ruby's frames needs from an interpreter's ELF
 * file. See rbruntime.h. Every symbol and relocation comes from the file
 * and is checked against it.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../util/common.h"
#include "../elf/elf.h"
#include "../util/log.h"
#include "rbruntime.h"

/* The offsets of each version known, checked against its installed build. */
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
	    .string_heap_len = 16,
	    .string_heap_ptr = 24,
	    .string_embed = 16,
	    .array_embed = 16,
	    .array_heap_ptr = 32,
	    .me_def = 16,
	    .me_called_id = 24,
	    .last_op_id = 0xa9 } },
};

enum { SYM_VERSION, SYM_VM_EXEC, SYM_EC, SYM_ID2STR, SYM_NR };

static const struct elf_symbol_query rb_sym_names[SYM_NR] = {
	[SYM_VERSION] = { "ruby_version", STT_OBJECT },
	[SYM_VM_EXEC] = { "rb_vm_exec", STT_FUNC },
	[SYM_EC] = { "ruby_current_ec", STT_TLS },
	[SYM_ID2STR] = { "rb_id2str", STT_FUNC },
};

#define X86_JMP_REL32 0xe9
#define ID2STR_CODE_MAX 64     /* bytes of rb_id2str looked at */
#define ID_LOOKUP_CODE_MAX 160 /* bytes of the function it jumps to */
#define SYMBOLS_IDS_OFF 16     /* rb_symbols_t: last_id, str_sym, ids */

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
 * Where ruby_global_symbols is, from rb_id2str's code: it jumps to the
 * lookup, which compares the serial with last_id (cmp %edi, disp(%rip))
 * and loads ids 16 bytes on (mov disp(%rip), %rdi). Nothing is set when
 * the code is not of that shape: C methods are then "<cfunc>".
 */
static void read_symbols(const struct elf_file *ef, const struct elf_symbol_query *id2str,
			 struct rb_runtime *rr)
{
	static const uint8_t cmp_edi[] = { 0x39, 0x3d }, mov_rdi[] = { 0x48, 0x8b, 0x3d };
	size_t n = id2str->size < ID2STR_CODE_MAX ? id2str->size : ID2STR_CODE_MAX;
	const uint8_t *code = elf_file__vaddr_bytes(ef, id2str->value, n);
	uint64_t lookup = 0, last_id, ids;

	for (size_t i = 0; code && i + 5 <= n && !lookup; i++)
		if (code[i] == X86_JMP_REL32)
			lookup = id2str->value + i + 5 + rel32(code + i + 1);
	code = lookup ? elf_file__vaddr_bytes(ef, lookup, ID_LOOKUP_CODE_MAX) : NULL;
	if (!code)
		return;
	last_id = rip_operand(code, ID_LOOKUP_CODE_MAX, lookup, cmp_edi, sizeof(cmp_edi));
	ids = rip_operand(code, ID_LOOKUP_CODE_MAX, lookup, mov_rdi, sizeof(mov_rdi));
	if (!last_id || ids != last_id + SYMBOLS_IDS_OFF ||
	    !elf_file__vaddr_mapped(ef, last_id, 24))
		return;
	rr->symbols_last_id = last_id;
	rr->symbols_ids = ids;
}

/* "3.1.2" into rr's version; -EINVAL when it is not one. */
static int read_version(const struct elf_file *ef, const struct elf_symbol_query *s,
			struct rb_runtime *rr)
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

/* Index in .dynsym of the symbol named name, or 0. */
static size_t dynsym_index(const struct elf_section *dynsym, const struct elf_section *dynstr,
			   const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 1; i < dynsym->size / sizeof(Elf64_Sym); i++) {
		Elf64_Sym s;

		memcpy(&s, dynsym->data + i * sizeof(s), sizeof(s));
		if (s.st_name < dynstr->size && dynstr->size - s.st_name > len &&
		    !memcmp(dynstr->data + s.st_name, name, len + 1))
			return i;
	}
	return 0;
}

/*
 * The GOT slot the dynamic loader fills with the module id of
 * ruby_current_ec (its R_X86_64_DTPMOD64 relocation in .rela.dyn), 0 when
 * the variable is reached another way (TLSDESC, a static offset).
 */
static uint64_t ec_module_slot(const struct elf_file *ef)
{
	struct elf_section rela, dynsym, dynstr;
	size_t sym;

	if (elf_file__section(ef, ".rela.dyn", &rela) ||
	    elf_file__section(ef, ".dynsym", &dynsym) ||
	    elf_file__section(ef, ".dynstr", &dynstr) || rela.size % sizeof(Elf64_Rela))
		return 0;
	sym = dynsym_index(&dynsym, &dynstr, "ruby_current_ec");
	if (!sym)
		return 0;
	for (size_t i = 0; i < rela.size / sizeof(Elf64_Rela); i++) {
		Elf64_Rela r;

		memcpy(&r, rela.data + i * sizeof(r), sizeof(r));
		if (ELF64_R_TYPE(r.r_info) == R_X86_64_DTPMOD64 && ELF64_R_SYM(r.r_info) == sym &&
		    elf_file__vaddr_mapped(ef, r.r_offset, 8))
			return r.r_offset;
	}
	return 0;
}

const struct rb_offsets *rb_offsets__of(unsigned int major, unsigned int minor)
{
	for (size_t i = 0; i < ARRAY_SIZE(rb_table); i++)
		if (rb_table[i].major == major && rb_table[i].minor == minor)
			return &rb_table[i].off;
	return NULL;
}

static int read_offsets(const struct elf_file *ef, struct rb_runtime *rr)
{
	const struct rb_offsets *off = rb_offsets__of(rr->major, rr->minor);

	if (off) {
		rr->off = *off;
		return 0;
	}
	pr_debug("%s: Ruby %u.%u is not supported", elf_file__path(ef), rr->major, rr->minor);
	return -ENOTSUP;
}

int rb_runtime__read(const struct elf_file *ef, struct rb_runtime *rr)
{
	struct elf_symbol_query syms[SYM_NR];
	const struct elf_symbol_query *exec = &syms[SYM_VM_EXEC];
	int err;

	memset(rr, 0, sizeof(*rr));
	memcpy(syms, rb_sym_names, sizeof(syms));
	err = elf_file__find_symbols(ef, syms, SYM_NR);
	if (err)
		return err;
	for (int i = 0; i < SYM_ID2STR; i++)
		if (!syms[i].found)
			return -ENOENT;
	if (elf_file__machine(ef) != EM_X86_64) {
		pr_debug("%s: Ruby's offsets are known on x86_64 only", elf_file__path(ef));
		return -ENOTSUP;
	}
	if (read_version(ef, &syms[SYM_VERSION], rr)) {
		pr_debug("%s: ruby_version is not a version", elf_file__path(ef));
		return -EINVAL;
	}
	if (!exec->size || !elf_file__vaddr_bytes(ef, exec->value, exec->size)) {
		pr_debug("%s: rb_vm_exec lies outside the file", elf_file__path(ef));
		return -EINVAL;
	}
	/* Known first, so that the samples of a version refused are counted there. */
	rr->vm_exec_lo = exec->value;
	rr->vm_exec_hi = exec->value + exec->size;
	err = read_offsets(ef, rr);
	if (err)
		return err;
	rr->ec_offset = syms[SYM_EC].value;
	rr->ec_module_got = ec_module_slot(ef);
	if (!rr->ec_module_got) {
		pr_debug("%s: ruby_current_ec is not reached through the DTV", elf_file__path(ef));
		return -ENOTSUP;
	}
	if (syms[SYM_ID2STR].found)
		read_symbols(ef, &syms[SYM_ID2STR], rr);
	if (!rr->symbols_ids)
		pr_debug("%s: Ruby's symbol table was not found: C methods are <cfunc>",
			 elf_file__path(ef));
	return 0;
}
