/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DWARF call-frame information (.eh_frame, .debug_frame): the CIEs and FDEs of
 * one section, and an interpreter of the call-frame instructions that tracks
 * only what the unwinder needs: the CFA rule and the rules of the frame
 * pointer register and of the return-address column.
 *
 * Errors: an entry whose length runs past the section (or whose header is
 * truncated) makes the whole section unreadable, since nothing after it can be
 * found: cfi__parse() fails with a message naming the section and offset. Any
 * other problem (bad augmentation, unknown opcode, expression past the end, CIE
 * pointer to nowhere, restore without remember, absurd register) skips the FDE
 * concerned: it is counted, and cfi__report() prints one warning per section
 * with the count and the first problem.
 */
#ifndef UNWPROF_CFI_H
#define UNWPROF_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deeper DW_CFA_remember_state nesting than this is treated as malformed. */
#define CFI_MAX_REMEMBER 32
/* Register numbers at or above this are treated as malformed. */
#define CFI_MAX_REG 4096

/* One section of CFI as found in a file. */
struct cfi_section {
	const char *file; /* for messages */
	const char *name; /* ".eh_frame" or ".debug_frame", for messages */
	const uint8_t *data;
	size_t size;
	uint64_t addr;	     /* virtual address of data[0], for DW_EH_PE_pcrel */
	bool eh_frame;	     /* .eh_frame layout, else .debug_frame */
	int machine;	     /* EM_X86_64 or EM_AARCH64 */
	unsigned int source; /* opaque to the parser: the caller's tag for this section */
	uint64_t text_base;  /* base of DW_EH_PE_textrel, 0 when unknown */
	uint64_t data_base;  /* base of DW_EH_PE_datarel, 0 when unknown */
	/* Reads the pointer stored at vaddr for DW_EH_PE_indirect; NULL: indirect is an error. */
	int (*read_ptr)(void *ctx, uint64_t vaddr, uint64_t *val);
	void *read_ctx;
};

/* How a tracked register is recovered in the caller (DWARF register rules). */
enum cfi_rule_kind {
	CFI_RULE_UNCHANGED = 0,	 /* no rule given: the ABI's default, same value for callee-saved */
	CFI_RULE_SAME_VALUE,	 /* DW_CFA_same_value */
	CFI_RULE_UNDEFINED,	 /* DW_CFA_undefined */
	CFI_RULE_OFFSET,	 /* saved at CFA + off */
	CFI_RULE_VAL_OFFSET,	 /* the value is CFA + off */
	CFI_RULE_REGISTER,	 /* in register off */
	CFI_RULE_EXPRESSION,	 /* saved at the address expr computes */
	CFI_RULE_VAL_EXPRESSION, /* the value is what expr computes */
};

struct cfi_rule {
	int64_t off;
	const uint8_t *expr; /* DWARF expression bytes, inside the section */
	uint32_t expr_len;
	uint8_t kind; /* enum cfi_rule_kind */
};

enum cfi_cfa_kind {
	CFI_CFA_UNDEFINED = 0, /* no DW_CFA_def_cfa* yet */
	CFI_CFA_REG,	       /* CFA = reg + off */
	CFI_CFA_EXPR,	       /* CFA = value of expr */
};

struct cfi_cfa {
	int64_t off;
	const uint8_t *expr;
	uint32_t expr_len;
	uint32_t reg;
	uint8_t kind; /* enum cfi_cfa_kind */
};

/* The rules in force over a range of pcs. */
struct cfi_state {
	struct cfi_cfa cfa;
	struct cfi_rule fp; /* rbp (6) on x86_64, x29 on aarch64 */
	struct cfi_rule ra; /* the CIE's return-address column (16 on x86_64, x30 on aarch64) */
	bool ra_signed; /* aarch64: DW_CFA_AARCH64_negate_ra_state toggled an odd number of times */
};

struct cfi_cie {
	uint64_t offset; /* in the section */
	uint64_t code_align;
	int64_t data_align;
	uint32_t ra_reg;
	uint8_t fde_enc; /* DW_EH_PE_* of pc_begin and DW_CFA_set_loc */
	uint8_t addr_size;
	bool aug_data;	   /* 'z': FDEs carry an augmentation length */
	bool signal_frame; /* 'S' */
	const char *err;   /* non-NULL: what is malformed; its FDEs are skipped */
	const uint8_t *insns;
	size_t insns_len;
	struct cfi_state init; /* after the initial instructions */
};

struct cfi_fde {
	uint64_t offset; /* in the section */
	uint64_t lo, hi; /* [pc_begin, pc_begin + pc_range) */
	const struct cfi_cie *cie;
	const uint8_t *insns;
	size_t insns_len;
	bool bad;  /* its instructions turned out malformed */
	bool used; /* contributed rows to a table */
};

/* The parsed entries of one section. */
struct cfi {
	struct cfi_section sec;
	struct cfi_cie *cies; /* sorted by offset */
	size_t nr_cies;
	struct cfi_fde *fdes; /* in section order */
	size_t fdes_mapped;   /* of fdes: util/big_alloc.h */
	size_t nr_fdes;
	size_t nr_bad; /* FDEs skipped as malformed */
	uint64_t first_bad_off;
	char first_bad[96]; /* what was wrong with the first one */
};

/*
 * Parses the CIEs and the FDE headers of sec (the bytes must outlive the
 * result). Returns NULL and sets errno on failure (EINVAL after a message
 * naming the file, section and offset when the section cannot be delimited).
 */
struct cfi *cfi__parse(const struct cfi_section *sec);
void cfi__free(struct cfi *cfi);

/*
 * Called for each range [start, end) of pcs over which the tracked rules of
 * st hold, in increasing order of start; a change of untracked registers
 * alone starts no new range. Returns 0 or a negative errno other than
 * -EINVAL, which stops the run.
 */
typedef int (*cfi_row_fn)(void *ctx, uint64_t start, uint64_t end, const struct cfi_state *st);

/*
 * Runs the instructions of fde over its range. Returns 0, -EINVAL when they
 * are malformed (the FDE is marked bad and counted once), or what fn returned.
 */
int cfi__run_fde(struct cfi *cfi, struct cfi_fde *fde, cfi_row_fn fn, void *ctx);

/* Prints one warning when FDEs were skipped as malformed. */
void cfi__report(const struct cfi *cfi);

/* Where encoded pointers are read: what pcrel, funcrel and aligned are relative to. */
struct cfi_ptr_ctx {
	const struct cfi_section *sec;
	uint64_t base; /* virtual address of the first byte of the buffer */
	uint64_t func; /* base of DW_EH_PE_funcrel, 0 when none */
	uint8_t addr_size;
};
/*
 * Reads the DW_EH_PE_* encoded pointer at *p (inside buf, whose first byte is
 * at pc->base) up to end, and advances *p. Returns 0, or -EINVAL when it is
 * truncated, its encoding is unknown, or a base it needs is unknown.
 */
int cfi__read_ptr(const struct cfi_ptr_ctx *pc, const uint8_t *buf, const uint8_t **p,
		  const uint8_t *end, uint8_t enc, uint64_t *val);

#endif
