// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compact unwind table of one ELF file, built as record would, and
 * written out as `unwprof dump-unwind` shows it (a table like `readelf -wF`,
 * or JSON), with a summary and what the walks of the runtimes in the file
 * read there; the text of each rule of a row, and of each reason a rule is
 * unsupported, is written here. See unwind_dump.h.
 *
 * Tables run to a million rows, so the text output formats each distinct
 * rule once (a whole library has a few thousand) and writes pcs with a hand
 * hex formatter into a large buffer written with write(2).
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"
#include "../elf/debuginfo.h"
#include "unwind_dump.h"
#include "../elf/elf_file.h"
#include "../util/json.h"
#include "../util/log.h"
#include "../runtimes/runtimes.h"
#include "unwind_table.h"
#include "code_x64.h"
#include "encoder.h"

/* What is printed, besides the table itself. */
struct unwind_dump {
	struct unwind_dump_opts opts;
	struct elf_file *elf;
	struct elf_file *debug;
	struct unwind_table *table;
	struct encoder *enc;	  /* the wire format record loads: its row size */
	struct image_runtimes rt; /* what the runtimes' walks read in it */
};

#define RULE_STR_MAX 64
#define SRC_MAX \
	7 /* .eh_frame, .debug_frame, the debug file's, .gopclntab, the PLT's or vDSO's code, the functions' */
#define CFA_COL 12
#define FP_COL 11

static const char *arch_name(int machine)
{
	return machine == EM_AARCH64 ? "aarch64" : "x86_64";
}

static int hex_digits(uint64_t v)
{
	return v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
}

/* Two hex digits a byte: "00", "01", ... "ff". */
static const char hex_pairs[] = "000102030405060708090a0b0c0d0e0f"
				"101112131415161718191a1b1c1d1e1f"
				"202122232425262728292a2b2c2d2e2f"
				"303132333435363738393a3b3c3d3e3f"
				"404142434445464748494a4b4c4d4e4f"
				"505152535455565758595a5b5c5d5e5f"
				"606162636465666768696a6b6c6d6e6f"
				"707172737475767778797a7b7c7d7e7f"
				"808182838485868788898a8b8c8d8e8f"
				"909192939495969798999a9b9c9d9e9f"
				"a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
				"b0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
				"c0c1c2c3c4c5c6c7c8c9cacbcccdcecf"
				"d0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
				"e0e1e2e3e4e5e6e7e8e9eaebecedeeef"
				"f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/*
 * Writes "0x" and v in lowercase hex, zero-padded to width digits (0: no
 * padding): the digits from the last, a byte at a time, straight into
 * place, as this runs once a row.
 */
static char *fmt_hex(char *p, uint64_t v, int width)
{
	int n = hex_digits(v), i;

	if (n < width)
		n = width;
	*p++ = '0';
	*p++ = 'x';
	for (i = n; i >= 2; i -= 2, v >>= 8)
		memcpy(p + i - 2, &hex_pairs[2 * (v & 0xff)], 2);
	if (i)
		p[0] = hex_pairs[2 * (v & 0xf) + 1];
	return p + n;
}

static bool row_is_end(const struct table_row *r)
{
	return r->cfa == UNW_CFA_END;
}

/* ---- the text of a row's rules ---- */

const char *unwind_dump__unsupported_str(enum unw_unsupported why)
{
	static const char *const names[UNW_UNSUP_NR] = {
		[UNW_UNSUP_NONE] = "none",
		[UNW_UNSUP_CFA_REGISTER] = "cfa-register",
		[UNW_UNSUP_CFA_EXPRESSION] = "cfa-expression",
		[UNW_UNSUP_CFA_OFFSET] = "cfa-offset",
		[UNW_UNSUP_FP_RULE] = "fp-rule",
		[UNW_UNSUP_FP_OFFSET] = "fp-offset",
		[UNW_UNSUP_RA_RULE] = "ra-rule",
		[UNW_UNSUP_RA_OFFSET] = "ra-offset",
		[UNW_UNSUP_RULES_FULL] = "rules-full",
		[UNW_UNSUP_GO_SP_WRITE] = "go-sp-write",
	};

	if ((unsigned int)why >= UNW_UNSUP_NR)
		return "unknown";
	return names[why];
}

static const char *sp_name(int machine)
{
	return machine == EM_AARCH64 ? "sp" : "rsp";
}

static const char *fp_name(int machine)
{
	return machine == EM_AARCH64 ? "x29" : "rbp";
}

/* "+N" or "-N" */
static char sign(long long v)
{
	return v < 0 ? '-' : '+';
}

static unsigned long long mag(long long v)
{
	return v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
}

/* The reason kept in a rule's offset field, or fallback when it is not one of want. */
static const char *kept_unsupported(long long v, enum unw_unsupported first,
				    enum unw_unsupported last, enum unw_unsupported fallback)
{
	if (v >= first && v <= last)
		return unwind_dump__unsupported_str((enum unw_unsupported)v);
	return unwind_dump__unsupported_str(fallback);
}

char *unwind_dump__cfa_str(const struct table_row *r, int machine, char *buf, size_t len)
{
	const char *reg = r->cfa == UNW_CFA_FP || r->cfa == UNW_CFA_DEREF_FP ? fp_name(machine) :
									       sp_name(machine);

	switch (r->cfa) {
	case UNW_CFA_END:
		snprintf(buf, len, "end");
		break;
	case UNW_CFA_SP:
	case UNW_CFA_FP:
		snprintf(buf, len, "%s%c%llu", reg, sign(r->cfa_off), mag(r->cfa_off));
		break;
	case UNW_CFA_PLT:
		snprintf(buf, len, "plt");
		break;
	case UNW_CFA_SIGNAL:
		snprintf(buf, len, "signal:*(%s%c%llu)", reg, sign(r->cfa_off), mag(r->cfa_off));
		break;
	case UNW_CFA_DEREF_SP:
	case UNW_CFA_DEREF_FP:
		if (r->aux_off)
			snprintf(buf, len, "*(%s%c%llu)%c%llu", reg, sign(r->cfa_off),
				 mag(r->cfa_off), sign(r->aux_off), mag(r->aux_off));
		else
			snprintf(buf, len, "*(%s%c%llu)", reg, sign(r->cfa_off), mag(r->cfa_off));
		break;
	default:
		snprintf(buf, len, "unsupported:%s",
			 r->cfa_off == UNW_UNSUP_GO_SP_WRITE ?
				 unwind_dump__unsupported_str(UNW_UNSUP_GO_SP_WRITE) :
				 kept_unsupported(r->cfa_off, UNW_UNSUP_CFA_REGISTER,
						  UNW_UNSUP_CFA_OFFSET, UNW_UNSUP_CFA_EXPRESSION));
		break;
	}
	return buf;
}

char *unwind_dump__fp_str(const struct table_row *r, int machine, char *buf, size_t len)
{
	switch (r->fp) {
	case UNW_FP_UNCHANGED:
		snprintf(buf, len, "unchanged");
		break;
	case UNW_FP_AT_CFA:
		snprintf(buf, len, "cfa%c%llu", sign(r->fp_off), mag(r->fp_off));
		break;
	case UNW_FP_AT_FP:
		snprintf(buf, len, "*(%s%c%llu)", fp_name(machine), sign(r->fp_off),
			 mag(r->fp_off));
		break;
	case UNW_FP_AT_SP:
		snprintf(buf, len, "*(%s%c%llu)", sp_name(machine), sign(r->fp_off),
			 mag(r->fp_off));
		break;
	default:
		snprintf(buf, len, "unsupported:%s",
			 kept_unsupported(r->fp_off, UNW_UNSUP_FP_RULE, UNW_UNSUP_FP_OFFSET,
					  UNW_UNSUP_FP_RULE));
		break;
	}
	return buf;
}

char *unwind_dump__ra_str(const struct table_row *r, int machine, char *buf, size_t len)
{
	switch (r->ra) {
	case UNW_RA_AT_CFA:
		if (machine == EM_AARCH64)
			snprintf(buf, len, "cfa%c%llu", sign(r->aux_off), mag(r->aux_off));
		else
			snprintf(buf, len, "cfa-8");
		break;
	case UNW_RA_UNDEFINED:
		snprintf(buf, len, "undefined");
		break;
	case UNW_RA_LR:
		snprintf(buf, len, "lr");
		break;
	case UNW_RA_AT_SP:
		snprintf(buf, len, "*(%s%c%llu)", sp_name(machine), sign(r->aux_off),
			 mag(r->aux_off));
		break;
	default:
		if (unwind_table__cfa_uses_aux(r))
			snprintf(buf, len, "unsupported:%s",
				 kept_unsupported(r->unsupported, UNW_UNSUP_RA_RULE,
						  UNW_UNSUP_RA_OFFSET, UNW_UNSUP_RA_RULE));
		else
			snprintf(buf, len, "unsupported:%s",
				 kept_unsupported(r->aux_off, UNW_UNSUP_RA_RULE,
						  UNW_UNSUP_RA_OFFSET, UNW_UNSUP_RA_RULE));
		break;
	}
	return buf;
}

/* ---- formatted rules, for the text and the JSON output ---- */

/*
 * The text of rows, by rule. A row's rule is everything but its pc; a table
 * holds few distinct rules, so each is formatted once. The rule of each
 * row is its index among the table's (encoder__table_rules(), the same
 * pass that counts them for the summary): no lookup of its own.
 */

/* Formats the rule of r into buf (at least 4 * RULE_STR_MAX bytes); returns the length. */
typedef int rule_format_fn(const struct table_row *r, int machine, char *buf);

struct rule_texts {
	rule_format_fn *format;
	uint32_t *off; /* by rule, into the pool */
	uint16_t *len; /* by rule; 0: not formatted yet */
	size_t nr;     /* rules */
	char *pool;
	size_t pool_len, pool_cap;
};

static void rule_texts__free(struct rule_texts *rt)
{
	if (!rt)
		return;
	free(rt->off);
	free(rt->len);
	free(rt->pool);
	free(rt);
}

/* Room for the texts of nr rules; NULL when out of memory. */
static struct rule_texts *rule_texts__new(rule_format_fn *format, size_t nr)
{
	struct rule_texts *rt = calloc(1, sizeof(*rt));

	if (!rt)
		return NULL;
	rt->format = format;
	rt->nr = nr;
	rt->off = calloc(nr ? nr : 1, sizeof(*rt->off));
	rt->len = calloc(nr ? nr : 1, sizeof(*rt->len));
	if (!rt->off || !rt->len) {
		rule_texts__free(rt);
		return NULL;
	}
	return rt;
}

static int pad_to(char *buf, int n, int col)
{
	do
		buf[n++] = ' ';
	while (n < col);
	return n;
}

/* "CFA FP RA\n", padded to the columns of the text table. */
static int format_rule_text(const struct table_row *r, int machine, char *buf)
{
	char s[RULE_STR_MAX];
	int n;

	n = snprintf(buf, RULE_STR_MAX, "%s", unwind_dump__cfa_str(r, machine, s, sizeof(s)));
	n = pad_to(buf, n, CFA_COL);
	n += snprintf(buf + n, RULE_STR_MAX, "%s", unwind_dump__fp_str(r, machine, s, sizeof(s)));
	n = pad_to(buf, n, CFA_COL + FP_COL);
	n += snprintf(buf + n, RULE_STR_MAX, "%s\n", unwind_dump__ra_str(r, machine, s, sizeof(s)));
	return n;
}

/*
 * The formatted tail of r, whose rule is rule: from the texts, formatting it
 * into scratch the first time (and each time past the rules known, or
 * without memory: the same text).
 */
static const char *rule_texts__get(struct rule_texts *rt, uint16_t rule, const struct table_row *r,
				   int machine, char *scratch, int *len)
{
	if (rule < rt->nr && rt->len[rule]) {
		*len = rt->len[rule];
		return rt->pool + rt->off[rule];
	}
	*len = rt->format(r, machine, scratch);
	if (rule >= rt->nr)
		return scratch;
	if (rt->pool_len + *len > rt->pool_cap) {
		size_t cap = rt->pool_cap ? rt->pool_cap * 2 : 65536;
		char *p = realloc(rt->pool, cap);

		if (!p)
			return scratch;
		rt->pool = p;
		rt->pool_cap = cap;
	}
	memcpy(rt->pool + rt->pool_len, scratch, *len);
	rt->off[rule] = (uint32_t)rt->pool_len;
	rt->len[rule] = (uint16_t)*len;
	rt->pool_len += *len;
	return scratch;
}

/* ---- text output ---- */

static int pc_width(const struct unwind_table *t)
{
	if (!t->nr_rows)
		return 1;
	return hex_digits(unwind_table__pc(t, &t->rows[t->nr_rows - 1]));
}

static void print_header(FILE *f, int width)
{
	fprintf(f, "%-*s %-*s%-*sRA\n", width + 2, "PC", CFA_COL, "CFA", FP_COL, "FP");
}

/*
 * The rows are most of the output (35 MB for libLLVM): they are formatted
 * straight into one large buffer written with write(2), so no byte is copied
 * again through stdio.
 */
struct row_out {
	char *buf;
	size_t len;
	int fd;
	int err;
};

#define ROW_OUT_SIZE (1 << 20)
#define ROW_LINE_MAX (32 + 4 * RULE_STR_MAX)

static void row_out__flush(struct row_out *o)
{
	size_t done = 0;

	while (done < o->len && !o->err) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);

		if (n < 0 && errno != EINTR)
			o->err = -errno;
		else if (n > 0)
			done += n;
	}
	o->len = 0;
}

static void print_row(struct row_out *o, struct rule_texts *rt, const struct unwind_table *t,
		      const struct table_row *r, uint16_t rule, int width)
{
	char *line, *p;
	const char *tail;
	int len;

	if (ROW_OUT_SIZE - o->len < ROW_LINE_MAX)
		row_out__flush(o);
	line = o->buf + o->len;
	p = fmt_hex(line, unwind_table__pc(t, r), width);
	*p++ = ' ';
	if (row_is_end(r)) {
		memcpy(p, "end\n", 4);
		o->len += p + 4 - line;
		return;
	}
	tail = rule_texts__get(rt, rule, r, t->machine, p, &len);
	if (tail != p)
		memcpy(p, tail, len);
	o->len += p + len - line;
}

/*
 * The header, then rows [first, first + nr) of t, whose rules are in
 * row_rules (of nr_rules; NULL: each row's text formatted for it).
 */
static int print_rows(FILE *f, const struct unwind_table *t, const uint16_t *row_rules,
		      size_t nr_rules, size_t first, size_t nr)
{
	struct row_out o = { .fd = fileno(f) };
	struct rule_texts *rt;
	int width = pc_width(t);
	int err = 0;

	rt = rule_texts__new(format_rule_text, row_rules ? nr_rules : 0);
	o.buf = malloc(ROW_OUT_SIZE);
	if (!rt || !o.buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	print_header(f, width);
	/* What stdio holds must come out before the rows written around it. */
	if (fflush(f) != 0) {
		err = -errno;
		goto cleanup;
	}
	for (size_t i = first; i < first + nr && !o.err; i++)
		print_row(&o, rt, t, &t->rows[i], row_rules ? row_rules[i] : ENCODER_NO_RULE,
			  width);
	row_out__flush(&o);
	err = o.err;
cleanup:
	free(o.buf);
	rule_texts__free(rt);
	return err;
}

/*
 * What the table costs in BPF, and with row_rules the rule of each row
 * (malloc()'d: every entry is written). 0, or -ENOMEM.
 */
static int table_rules(const struct unwind_dump *c, uint16_t **row_rules, struct encoder_cost *cost)
{
	size_t nr = c->table->nr_rows;
	int err;

	if (!row_rules)
		return encoder__table_cost(c->enc, c->table, cost);
	*row_rules = malloc((nr ? nr : 1) * sizeof(**row_rules));
	if (!*row_rules)
		return -ENOMEM;
	err = encoder__table_rules(c->enc, c->table, *row_rules, cost);
	if (err) {
		free(*row_rules);
		*row_rules = NULL;
	}
	return err;
}

static void build_id_hex(const struct elf_file *elf, char *hex)
{
	uint8_t id[ELF_BUILD_ID_MAX];
	size_t len = elf_file__build_id(elf, id);

	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * len] = '\0';
}

/* The sources, ".eh_frame", ".debug_frame (PATH)", ".gopclntab", ...; returns how many. */
static size_t table_sources(const struct unwind_dump *c, char out[SRC_MAX][PATH_MAX + 32])
{
	unsigned int src = c->table->sources;
	size_t n = 0;

	if (src & TABLE_SRC_EH_FRAME)
		snprintf(out[n++], PATH_MAX + 32, ".eh_frame");
	if (src & TABLE_SRC_DEBUG_FRAME)
		snprintf(out[n++], PATH_MAX + 32, ".debug_frame");
	if ((src & TABLE_SRC_DEBUG_FILE) && c->debug)
		snprintf(out[n++], PATH_MAX + 32, ".debug_frame (%.*s)", PATH_MAX,
			 elf_file__path(c->debug));
	if (src & TABLE_SRC_GOPCLNTAB)
		snprintf(out[n++], PATH_MAX + 32, ".gopclntab");
	if (src & TABLE_SRC_VDSO_CODE)
		snprintf(out[n++], PATH_MAX + 32, "the vDSO's code");
	if (src & TABLE_SRC_PLT_CODE)
		snprintf(out[n++], PATH_MAX + 32, "the PLT's code");
	if (src & TABLE_SRC_X64_CODE)
		snprintf(out[n++], PATH_MAX + 32, "the functions' code");
	return n;
}

static size_t go_refused(const struct unwind_table *t)
{
	size_t n = 0;

	for (int r = 0; r < GOPCLNTAB_BAD_NR; r++)
		n += t->nr_go_refused[r];
	return n;
}

/* The Go functions the table describes from their SP deltas, and those refused, by reason. */
static void print_go_funcs(FILE *f, const struct unwind_table *t)
{
	size_t refused = go_refused(t);

	if (!t->nr_go_funcs && !refused)
		return;
	fprintf(f, "Go funcs:    %zu from .gopclntab (%zu switch stacks), %zu refused",
		t->nr_go_funcs, t->nr_go_sp_write, refused);
	for (int r = 0, first = 1; r < GOPCLNTAB_BAD_NR; r++) {
		if (!t->nr_go_refused[r])
			continue;
		fprintf(f, "%s%s %zu", first ? " (" : ", ", gopclntab__bad_str(r),
			t->nr_go_refused[r]);
		first = 0;
	}
	fprintf(f, "%s\n", refused ? ")" : "");
}

/* The functions whose rows come from their code (x86-64), and those refused. */
static void print_code_funcs(FILE *f, const struct unwind_table *t)
{
	if (!t->nr_code_funcs && !t->nr_code_refused)
		return;
	fprintf(f, "code:        %zu functions, %zu rows from their code, %zu refused\n",
		t->nr_code_funcs, t->nr_code_rows, t->nr_code_refused);
}

static const char *debug_file_text(const struct unwind_dump *c)
{
	if (c->debug)
		return elf_file__path(c->debug);
	if (c->opts.no_debuginfo)
		return "not searched (--no-debuginfo)";
	return "none found";
}

/* What the table takes in BPF's maps, alone in a run (NULL: unknown): rows, pages of the page map, rules. */
static void print_bpf_bytes(FILE *f, const struct unwind_dump *c, const struct encoder_cost *cost)
{
	const struct encoder_geometry *g = encoder__geometry(c->enc);

	if (!cost) {
		fprintf(f, "BPF bytes:   unknown (out of memory)\n");
		return;
	}
	fprintf(f,
		"BPF bytes:   %" PRIu64 " (%" PRIu64 " rows x %zu, %" PRIu64
		" pages x %zu, %" PRIu64 " rules x %zu)\n",
		cost->bytes, cost->rows, g->row_bytes, cost->pages, g->page_bytes, cost->rules,
		g->rule_bytes);
}

static void print_summary(FILE *f, const struct unwind_dump *c, const struct encoder_cost *cost)
{
	const struct unwind_table *t = c->table;
	char hex[2 * ELF_BUILD_ID_MAX + 1], src[SRC_MAX][PATH_MAX + 32];
	size_t nsrc, total = 0;

	build_id_hex(c->elf, hex);
	fprintf(f, "file:        %s\n", c->opts.file);
	fprintf(f, "arch:        %s\n", arch_name(t->machine));
	fprintf(f, "build ID:    %s\n", hex[0] ? hex : "none");
	nsrc = table_sources(c, src);
	fprintf(f, "sources:     ");
	for (size_t i = 0; i < nsrc; i++)
		fprintf(f, "%s%s", i ? ", " : "", src[i]);
	fprintf(f, "%s\n", nsrc ? "" : "none");
	fprintf(f, "debug file:  %s\n", debug_file_text(c));
	fprintf(f, "FDEs:        %zu\n", t->nr_fdes);
	fprintf(f, "rows:        %zu\n", t->nr_rows);
	for (int r = 0; r < UNW_UNSUP_NR; r++)
		total += t->unsupported[r];
	fprintf(f, "unsupported: %zu", total);
	for (int r = 0, first = 1; r < UNW_UNSUP_NR; r++) {
		if (!t->unsupported[r])
			continue;
		fprintf(f, "%s%s %zu", first ? " (" : ", ", unwind_dump__unsupported_str(r),
			t->unsupported[r]);
		first = 0;
	}
	fprintf(f, "%s\n", total ? ")" : "");
	if (t->nr_bad_fdes)
		fprintf(f, "malformed:   %zu FDEs skipped\n", t->nr_bad_fdes);
	print_go_funcs(f, t);
	print_code_funcs(f, t);
	print_bpf_bytes(f, c, cost);
}

int unwind_dump__write_text(const struct unwind_dump *c, FILE *f)
{
	uint16_t *row_rules = NULL;
	struct encoder_cost cost;
	bool known;
	int err = 0;

	known = !table_rules(c, c->opts.summary ? NULL : &row_rules, &cost);
	if (!c->opts.summary) {
		err = print_rows(f, c->table, row_rules, known ? cost.rules : 0, 0,
				 c->table->nr_rows);
		if (err)
			goto out;
		fprintf(f, "\n");
	}
	print_summary(f, c, known ? &cost : NULL);
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++)
		if (c->rt.state[u])
			runtimes__of_unwinder(u)->print(f, c->rt.state[u]);
out:
	free(row_rules);
	return err;
}

int unwind_dump__write_pc_text(const struct unwind_dump *c, uint64_t pc, FILE *f)
{
	const struct table_row *r = unwind_table__lookup(c->table, pc);

	if (!r || row_is_end(r)) {
		fprintf(f, "0x%" PRIx64 ": no unwind info\n", pc);
		return 0;
	}
	return print_rows(f, c->table, NULL, 0, r - c->table->rows, 1);
}

/* ---- JSON output ---- */

/* "CFA\0FP\0RA\0": the three strings of a JSON row. */
static int format_rule_json(const struct table_row *r, int machine, char *buf)
{
	int n = 0;

	unwind_dump__cfa_str(r, machine, buf, RULE_STR_MAX);
	n += strlen(buf) + 1;
	unwind_dump__fp_str(r, machine, buf + n, RULE_STR_MAX);
	n += strlen(buf + n) + 1;
	unwind_dump__ra_str(r, machine, buf + n, RULE_STR_MAX);
	n += strlen(buf + n) + 1;
	return n;
}

static void json_row(struct json_writer *jw, struct rule_texts *rt, const struct unwind_table *t,
		     const struct table_row *r, uint16_t rule)
{
	char pc[32], scratch[4 * RULE_STR_MAX];
	const char *text;
	int len;

	*fmt_hex(pc, unwind_table__pc(t, r), 0) = '\0';
	json__object_start(jw);
	json__key(jw, "pc");
	json__string(jw, pc);
	if (row_is_end(r)) {
		json__key(jw, "end");
		json__bool(jw, true);
	} else {
		text = rule_texts__get(rt, rule, r, t->machine, scratch, &len);
		json__key(jw, "cfa");
		json__string(jw, text);
		text += strlen(text) + 1;
		json__key(jw, "fp");
		json__string(jw, text);
		text += strlen(text) + 1;
		json__key(jw, "ra");
		json__string(jw, text);
	}
	json__object_end(jw);
}

static void json_head(struct json_writer *jw, const struct unwind_dump *c)
{
	json__object_start(jw);
	json__key(jw, "schema");
	json__uint(jw, 1);
	json__key(jw, "file");
	json__string(jw, c->opts.file);
}

static void json_go_funcs(struct json_writer *jw, const struct unwind_table *t)
{
	if (!t->nr_go_funcs && !go_refused(t))
		return;
	json__key(jw, "go_funcs");
	json__object_start(jw);
	json__uint_field(jw, "described", t->nr_go_funcs);
	json__uint_field(jw, "switch_stacks", t->nr_go_sp_write);
	json__key(jw, "refused");
	json__object_start(jw);
	for (int r = 1; r < GOPCLNTAB_BAD_NR; r++) {
		if (t->nr_go_refused[r])
			json__uint_field(jw, gopclntab__bad_str(r), t->nr_go_refused[r]);
	}
	json__object_end(jw);
	json__object_end(jw);
}

static void json_code_funcs(struct json_writer *jw, const struct unwind_table *t)
{
	char lo[32], hi[32];

	if (!t->nr_code_funcs && !t->nr_code_refused)
		return;
	json__key(jw, "code");
	json__object_start(jw);
	json__uint_field(jw, "functions", t->nr_code_funcs);
	json__uint_field(jw, "rows", t->nr_code_rows);
	json__uint_field(jw, "refused", t->nr_code_refused);
	json__key(jw, "ranges");
	json__array_start(jw);
	for (size_t i = 0; i < t->nr_code_ranges; i++) {
		*fmt_hex(lo, t->code_ranges[i].lo, 0) = '\0';
		*fmt_hex(hi, t->code_ranges[i].hi, 0) = '\0';
		json__array_start(jw);
		json__string(jw, lo);
		json__string(jw, hi);
		json__array_end(jw);
	}
	json__array_end(jw);
	json__object_end(jw);
}

static void json_summary(struct json_writer *jw, const struct unwind_dump *c)
{
	const struct unwind_table *t = c->table;
	char hex[2 * ELF_BUILD_ID_MAX + 1], src[SRC_MAX][PATH_MAX + 32];
	size_t nsrc;

	build_id_hex(c->elf, hex);
	json__string_field(jw, "arch", arch_name(t->machine));
	json__string_field(jw, "build_id", hex[0] ? hex : NULL);
	json__key(jw, "sources");
	json__array_start(jw);
	nsrc = table_sources(c, src);
	for (size_t i = 0; i < nsrc; i++)
		json__string(jw, src[i]);
	json__array_end(jw);
	json__uint_field(jw, "fdes", t->nr_fdes);
	json_go_funcs(jw, t);
	json_code_funcs(jw, t);
}

static void json_unsupported(struct json_writer *jw, const struct unwind_table *t)
{
	json__key(jw, "unsupported");
	json__object_start(jw);
	for (int r = 0; r < UNW_UNSUP_NR; r++) {
		if (t->unsupported[r])
			json__uint_field(jw, unwind_dump__unsupported_str(r), t->unsupported[r]);
	}
	json__object_end(jw);
}

/*
 * The writer flushes the stream to see write errors: they are returned, not
 * said.
 */
static int json_finish(struct json_writer *jw)
{
	int err;

	errno = 0;
	err = json__free(jw);
	if (err == -EIO && errno)
		err = -errno;
	if (err == -EINVAL)
		pr_err("internal error: the JSON output is not well-formed");
	return err;
}

static int json_rows(struct json_writer *jw, const struct unwind_table *t,
		     const uint16_t *row_rules, size_t nr_rules, FILE *f)
{
	struct rule_texts *rt = rule_texts__new(format_rule_json, nr_rules);

	if (!rt)
		return -ENOMEM;
	json__key(jw, "rows");
	json__array_start(jw);
	for (size_t i = 0; i < t->nr_rows; i++) {
		json_row(jw, rt, t, &t->rows[i], row_rules[i]);
		/* Stop early when the output is gone; the error is reported at the end. */
		if ((i & 4095) == 4095 && ferror(f))
			break;
	}
	json__array_end(jw);
	rule_texts__free(rt);
	return 0;
}

int unwind_dump__write_json(const struct unwind_dump *c, FILE *f)
{
	const struct unwind_table *t = c->table;
	uint16_t *row_rules = NULL;
	struct encoder_cost cost;
	struct json_writer *jw;

	if (table_rules(c, c->opts.summary ? NULL : &row_rules, &cost))
		return -ENOMEM;
	jw = json__new(f, false);
	if (!jw) {
		free(row_rules);
		return -errno;
	}
	json_head(jw, c);
	json_summary(jw, c);
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++)
		if (c->rt.state[u])
			runtimes__of_unwinder(u)->print_json(jw, c->rt.state[u]);
	if (c->opts.summary) {
		json__key(jw, "row_count");
		json__uint(jw, t->nr_rows);
		json__key(jw, "bpf_bytes");
		json__uint(jw, cost.bytes);
	} else if (json_rows(jw, t, row_rules, cost.rules, f)) {
		free(row_rules);
		json__free(jw);
		return -ENOMEM;
	}
	free(row_rules);
	json_unsupported(jw, t);
	json__object_end(jw);
	return json_finish(jw);
}

int unwind_dump__write_pc_json(const struct unwind_dump *c, uint64_t pc, FILE *f)
{
	const struct table_row *r = unwind_table__lookup(c->table, pc);
	struct rule_texts *rt = NULL;
	struct json_writer *jw;

	rt = rule_texts__new(format_rule_json, 0);
	jw = json__new(f, false);
	if (!rt || !jw) {
		rule_texts__free(rt);
		json__free(jw);
		return -ENOMEM;
	}
	json_head(jw, c);
	json__key(jw, "pc");
	json__stringf(jw, "0x%" PRIx64, pc);
	json__key(jw, "row");
	if (!r || row_is_end(r))
		json__null(jw);
	else
		json_row(jw, rt, c->table, r, ENCODER_NO_RULE);
	json__object_end(jw);
	rule_texts__free(rt);
	return json_finish(jw);
}

static struct elf_file *open_debug_file(const struct unwind_dump_opts *args,
					const struct elf_file *elf)
{
	uint8_t id[ELF_BUILD_ID_MAX];
	struct elf_file *debug;

	if (args->no_debuginfo)
		return NULL;
	if (!args->debug_file)
		return debuginfo__find(elf, NULL);
	debug = elf_file__open(args->debug_file);
	if (!debug)
		return NULL;
	if (!elf_file__debug_matches(elf, debug)) {
		if (elf_file__build_id(elf, id))
			pr_err("%s is not the debug file of %s: the build IDs differ",
			       args->debug_file, args->file);
		else if (elf_file__debuglink(elf, NULL))
			pr_err("%s is not the debug file of %s: the CRC in its .gnu_debuglink differs",
			       args->debug_file, args->file);
		else
			pr_err("%s has neither a build ID nor a .gnu_debuglink to check the debug file %s against",
			       args->file, args->debug_file);
		elf_file__free(debug);
		errno = EINVAL;
		return NULL;
	}
	return debug;
}

struct unwind_dump *unwind_dump__open(const struct unwind_dump_opts *opts)
{
	struct unwind_dump *c = calloc(1, sizeof(*c));
	int err;

	if (!c) {
		pr_err("%s: out of memory", opts->file);
		return NULL;
	}
	c->opts = *opts;
	c->elf = elf_file__open(opts->file);
	if (!c->elf) {
		err = -errno;
		goto fail;
	}
	/* Unrelocated, the pc-relative addresses in its CFI would all be wrong. */
	if (elf_file__type(c->elf) == ET_REL) {
		pr_err("%s: a relocatable object (.o): its code addresses are not final; dump a linked executable or shared library",
		       opts->file);
		err = -EINVAL;
		goto fail;
	}
	c->debug = open_debug_file(opts, c->elf);
	if (!c->debug && opts->debug_file) {
		err = -errno;
		goto fail;
	}
	if (c->debug)
		pr_info("%s: using debug file %s", opts->file, elf_file__path(c->debug));
	c->table = opts->from_code ? code_x64__table(c->elf, c->debug) :
				     unwind_table__build(c->elf, c->debug);
	if (!c->table && opts->from_code && errno == ENOENT)
		pr_err("%s: --from-code: not an x86-64 file", opts->file);
	if (!c->table) {
		err = -errno;
		goto fail;
	}
	c->enc = encoder__new(ENCODER_COMPACT);
	if (!c->enc) {
		err = -errno;
		pr_err("%s: out of memory", opts->file);
		goto fail;
	}
	runtimes__read_image(&c->rt, c->elf, opts->file);
	return c;
fail:
	unwind_dump__close(c);
	errno = -err;
	return NULL;
}

size_t unwind_dump__nr_bad_fdes(const struct unwind_dump *c)
{
	return c->table->nr_bad_fdes;
}

void unwind_dump__close(struct unwind_dump *c)
{
	if (!c)
		return;
	encoder__free(c->enc);
	unwind_table__free(c->table);
	runtimes__free_image(&c->rt);
	elf_file__free(c->debug);
	elf_file__free(c->elf);
	free(c);
}
