/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a walk of Ruby's (MRI's) frames needs to know of one interpreter,
 * read from its ELF file (libruby-X.Y.so, or a ruby executable with it
 * linked in): the version, the range of the VM's loop (rb_vm_exec), where
 * each thread's execution context is, and the offsets of the fields that
 * lead from it to the frames and from a frame to its names and lines.
 *
 *   ruby_current_ec, a thread-local variable: the sampled thread's
 *   rb_execution_context_t .vm_stack, .vm_stack_size (in VALUEs), .cfp ->
 *   the innermost rb_control_frame_t (.pc, .iseq, .ep); the caller's is
 *   the next one up, cfp_size bytes on, until the two dummy frames at the
 *   end of the VM stack. ep[0] holds the frame's flags: its magic (a
 *   C method's, VM_FRAME_MAGIC_CFUNC), VM_FRAME_FLAG_CFRAME (no iseq) and
 *   VM_FRAME_FLAG_FINISH (the first frame an activation of rb_vm_exec ran:
 *   its last, going up); ep[-2] is a C method's method entry.
 *   iseq .body -> rb_iseq_constant_body .iseq_encoded (the instructions,
 *   a VALUE each), .location (rb_iseq_location_t: .pathobj, a String or an
 *   Array [path, realpath]; .label; .first_lineno, a Fixnum in 3.1, an int
 *   from 3.2 on), .insns_info (.body: entries of .line_no; .positions;
 *   .size; .succ_index_table).
 *   A C method's name: its method entry's .called_id, an ID, whose serial
 *   (the ID >> 4, or the ID itself for an operator's) indexes the symbol
 *   table ruby_global_symbols .ids: ids[serial / 512][serial % 512 * 2].
 *   The table is static: its address is read from the code of rb_id2str,
 *   exported (a jump to the function that compares the serial with
 *   .last_id and loads .ids, both RIP-relative).
 *
 * The thread-local variable is reached as glibc lays out TLS: the
 * thread's DTV at the thread pointer's word 1 (x86_64's fs:8) or 0
 * (aarch64's), the module's block at dtv[module].pointer.val (16 bytes an
 * entry), ruby_current_ec at its offset in the block; the module id is the
 * word the dynamic loader writes into the GOT slot of the variable's
 * DTPMOD64 relocation. aarch64's code reaches it through a TLS descriptor
 * instead (R_AARCH64_TLSDESC): libruby loaded at startup has static TLS,
 * and the loader writes the variable's offset from the thread pointer into
 * the descriptor's second word.
 *
 * From 3.3 on, libruby exports neither ruby_current_ec nor rb_vm_exec.
 * They are then found in the code of functions it exports, which use
 * them: rb_thread_current (GET_THREAD()->self) loads ruby_current_ec
 * through the GOT pair of its module id and offset; rb_iseq_eval and
 * rb_iseq_eval_main both end in a jump to rb_vm_exec, whose FDE gives
 * its range.
 *
 * Offsets come from a table of versions checked against the installed
 * builds (tests/programs/ruby_frames.sh); a version not in it is refused
 * (-ENOTSUP), never guessed.
 */
#ifndef UNWPROF_RBRUNTIME_H
#define UNWPROF_RBRUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct elf_file;

/* Offsets in bytes, of the structures named above. */
struct rb_offsets {
	int32_t ec_vm_stack;
	int32_t ec_vm_stack_size;
	int32_t ec_cfp;
	int32_t cfp_size; /* sizeof(rb_control_frame_t) */
	int32_t cfp_pc;
	int32_t cfp_iseq;
	int32_t cfp_ep;
	int32_t iseq_body;
	int32_t body_iseq_encoded;
	int32_t body_location;	  /* rb_iseq_location_t, inline */
	int32_t location_pathobj; /* from body_location on */
	int32_t location_label;
	int32_t location_first_lineno;
	bool first_lineno_int;	 /* an int, not a Fixnum VALUE (3.2 on) */
	int32_t body_insns_body; /* insns_info.body */
	int32_t body_insns_positions;
	int32_t body_insns_size; /* unsigned int */
	int32_t body_insns_succ; /* insns_info.succ_index_table */
	int32_t insn_entry_size; /* sizeof(struct iseq_insn_info_entry) */
	int32_t insn_entry_line; /* its line_no, an int */
	/*
	 * RString: characters embedded (RB_STRING_NOEMBED clear) or at the
	 * heap ptr; the length of an embedded one in its flags (3.1, the
	 * mask after RB_STRING_EMBED_LEN_SHIFT) or, when the mask is 0, at
	 * string_len, as a heap one's (3.2's variable width allocation).
	 */
	int32_t string_len;
	int32_t string_heap_ptr;
	int32_t string_embed; /* the embedded characters */
	uint32_t string_embed_len_mask;
	/* RArray: elements embedded (length in the flags) or at the heap ptr */
	int32_t array_embed;
	uint32_t array_embed_len_mask; /* after RB_ARRAY_EMBED_LEN_SHIFT */
	int32_t array_heap_len;
	int32_t array_heap_ptr;
	int32_t me_def;	      /* rb_callable_method_entry_t.def */
	int32_t me_called_id; /* rb_callable_method_entry_t.called_id: a C method's name */
	uint32_t last_op_id;  /* tLAST_OP_ID: an ID past it is its serial << 4 */
};

/*
 * Flags of an object (RBasic.flags), as 3.1 and 3.3 have them (the masks
 * of embedded lengths are the table's); a frame's are the BPF walk's.
 */
#define RB_T_MASK 0x1fu
#define RB_T_STRING 0x05u
#define RB_T_ARRAY 0x07u
#define RB_STRING_NOEMBED (1u << 13)
#define RB_STRING_EMBED_LEN_SHIFT 14
#define RB_ARRAY_EMBED (1u << 13)
#define RB_ARRAY_EMBED_LEN_SHIFT 15

struct rbruntime {
	uint8_t major, minor, teeny;
	uint64_t vm_exec_lo, vm_exec_hi; /* rb_vm_exec: [lo, hi), ELF virtual addresses */
	uint64_t ec_module_got;		 /* the GOT slot of ruby_current_ec's DTPMOD64 */
	uint64_t ec_offset;		 /* ruby_current_ec in its module's TLS block */
	bool ec_tlsdesc;		 /* ec_module_got is its TLS descriptor's (aarch64) */
	bool ec_from_code;		 /* both read from rb_thread_current's code */
	bool vm_exec_from_code;		 /* rb_vm_exec found by rb_iseq_eval's jump */
	/*
	 * The symbol table, for the names of C methods by their IDs:
	 * ruby_global_symbols' last_id (a 32-bit serial) and ids (an Array of
	 * Arrays of 512 [String, Symbol] pairs), found in rb_id2str's code;
	 * 0 when it is not there.
	 */
	uint64_t symbols_last_id, symbols_ids;
	struct rb_offsets off;
};

/*
 * Reads the Ruby runtime of ef into *rr. 0; -ENOENT when ef is not a Ruby
 * interpreter (no ruby_version, or neither ruby_current_ec nor
 * rb_thread_current); -ENOTSUP when it is one whose version is not known
 * here (its version, and rb_vm_exec where it was found, are then set), or
 * whose rb_vm_exec or thread-local variable is not found as known (said at
 * debug level); -EINVAL when what it says lies outside the file or its
 * code contradicts its symbols.
 */
int rbruntime__read(const struct elf_file *ef, struct rbruntime *rr);

struct json_writer;
/* What dump-unwind shows of r: lines of its summary, or its "ruby" member. */
void rbruntime__print(FILE *f, const struct rbruntime *r);
void rbruntime__print_json(struct json_writer *jw, const struct rbruntime *r);

/* The offsets of Ruby major.minor, from the table checked against its builds; NULL: unknown. */
const struct rb_offsets *rbruntime__offsets_of(unsigned int major, unsigned int minor);

/*
 * Where the code at vaddr (len bytes) loads a thread-local variable first
 * by the general-dynamic sequence: *slot, the GOT pair it passes to
 * __tls_get_addr, and *disp, added to the address that returns (the load
 * mov disp(%rax), %reg). 0, or -ENOENT when the code has no such load.
 * Exposed for the tests.
 */
int rbruntime__tls_load(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t *slot,
			int32_t *disp);

/*
 * The one address outside both pieces of code that each jumps to (jmp
 * rel32), 0 when there is none or more than one. Exposed for the tests.
 */
uint64_t rbruntime__common_jump(const uint8_t *a, size_t alen, uint64_t avaddr, const uint8_t *b,
				size_t blen, uint64_t bvaddr);

#endif
