/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a walk of Perl's frames needs to know of one interpreter, read from
 * its ELF file (a perl executable, as Debian's, with the interpreter
 * linked in, or a libperl.so): the version (PL_revision, PL_version,
 * PL_subversion), the range of the run loop (Perl_runops_standard), where
 * each thread's interpreter is, and the offsets of the fields that lead
 * from it to the frames and from a frame to its names and lines.
 *
 *   PL_current_context, a thread-local variable (a threaded build, as
 *   Debian's): the thread's PerlInterpreter .Iop (the op being run),
 *   .Icurcop (the statement), .Icurstackinfo -> struct stackinfo
 *   .si_cxstack (its contexts, struct context, cx_size bytes each),
 *   .si_cxix (the top one), .si_cxmax, .si_type, .si_prev (the one it was
 *   pushed on). A context: its type (byte 0), blk_u16 (bytes 2-3: an
 *   eval's op), .blk_oldcop (the statement that pushed it), .blk_sub.retop
 *   and .cv (a sub's, a format's; an eval's retop too).
 *   A CV: SV head .sv_any (its body), .sv_flags (its type), .sv_u; body
 *   XPVCV .xcv_stash, .xcv_start_u (its first op: a COP, nextstate or
 *   dbstate, for a sub that begins with a statement), .xcv_gv_u (a GV, or
 *   with CVf_NAMED a HEK), .xcv_flags. An op: .op_next (at 0), its type, 9
 *   bits at op_type; a sub called in a map's or grep's BLOCK returns to ops
 *   that lead to its mapwhile (grepwhile) before a statement begins. A GV: body XPVGV .xiv_u (its name, a HEK), .xnv_u (its
 *   stash); .sv_u its GP, whose .gp_egv is the effective GV. A stash: an
 *   HV whose body holds struct xpvhv_aux at hv_aux, .xhv_name_u (a HEK,
 *   or with .xhv_name_count an array of them, the first its name). A
 *   HEK: .hek_len, .hek_key. A COP: .cop_line, .cop_file (a C string).
 *
 * The thread-local variable is reached as glibc lays out TLS on x86_64:
 * in the executable, at the thread pointer (fs base) plus the offset the
 * dynamic loader writes into the GOT slot of its R_X86_64_TPOFF64
 * relocation; in a libperl, in its module's block (the thread's DTV at
 * fs:8, 16 bytes an entry), the module id in the GOT slot of its
 * R_X86_64_DTPMOD64 relocation.
 *
 * Offsets come from a table of versions checked against each version's
 * headers, compiled (tests/oracle/perl_offsets.sh); a version not in it,
 * or a build without threads, is refused (-ENOTSUP), never guessed.
 */
#ifndef UNWPROF_PLRUNTIME_H
#define UNWPROF_PLRUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct elf_file;

/* Offsets in bytes, of the structures named above; op numbers of the ops that begin evals. */
struct pl_offsets {
	int32_t interp_op, interp_curcop, interp_curstackinfo;
	int32_t si_cxstack, si_prev, si_cxix, si_cxmax, si_type;
	int32_t cx_size, cx_oldcop, cx_retop, cx_cv;
	int32_t cop_line, cop_file;
	int32_t sv_flags, sv_u;
	int32_t cv_stash, cv_gv, cv_flags, cv_start;
	int32_t gv_name, gv_stash;
	int32_t gp_egv;
	int32_t hv_aux, aux_name, aux_name_count;
	int32_t hek_len, hek_key;
	int32_t op_type; /* the 16 bits whose low 9 are an op's type */
	uint16_t op_require, op_dofile, op_entereval, op_nextstate, op_dbstate;
	uint16_t op_mapstart, op_mapwhile, op_grepstart, op_grepwhile;
};

struct plruntime {
	uint8_t revision, version, subversion; /* 5, 36, 0 */
	uint64_t runops_lo, runops_hi;	       /* Perl_runops_standard: [lo, hi), ELF addresses */
	uint64_t tls_got;		       /* the GOT slot of PL_current_context's relocation */
	bool tls_static;		       /* it holds the offset from the thread pointer */
	uint64_t tls_offset;		       /* else the variable in its module's TLS block */
	struct pl_offsets off;
};

/*
 * Reads the Perl runtime of ef into *pr. 0; -ENOENT when ef is not a perl
 * (no PL_version, or no Perl_runops_standard); -ENOTSUP when it is one
 * whose version is not known here, or a build whose threads' interpreters
 * are not found as known (its version and run loop are then set); -EINVAL
 * when what it says lies outside the file.
 */
int plruntime__read(const struct elf_file *ef, struct plruntime *pr);

struct json_writer;
/* What dump-unwind shows of p: lines of its summary, or its "perl" member. */
void plruntime__print(FILE *f, const struct plruntime *p);
void plruntime__print_json(struct json_writer *jw, const struct plruntime *p);

/* The offsets of Perl 5.version, from the table checked against its headers; NULL: unknown. */
const struct pl_offsets *plruntime__offsets_of(unsigned int revision, unsigned int version);

#endif
