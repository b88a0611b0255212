// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compact unwind table of one ELF file, built as record would, and
 * written out as `unwprof dump-unwind` shows it (a table like `readelf -wF`,
 * or JSON), with a summary and what the walks of the runtimes in the file
 * read there. See dump.h.
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
#include "dump.h"
#include "../elf/elf.h"
#include "../runtimes/goruntime.h"
#include "../util/json.h"
#include "../util/log.h"
#include "../runtimes/pyruntime.h"
#include "../runtimes/rbruntime.h"
#include "table.h"
#include "table_encoding.h"

/* What is printed, besides the table itself. */
struct unwind_dump {
	struct unwind_dump_opts opts;
	struct elf_file *elf;
	struct elf_file *debug;
	struct unwind_table *table;
	struct encoder *enc;  /* the wire format record loads: its row size */
	struct go_runtime go; /* valid when has_go */
	bool has_go;
	struct py_runtime py; /* valid when has_py; its version and why when py_refused */
	bool has_py, py_refused;
	struct rb_runtime rb; /* valid when has_rb */
	bool has_rb;
};

#define RULE_STR_MAX 64
#define SRC_MAX \
	6 /* .eh_frame, .debug_frame, the debug file's, .gopclntab, the PLT's or vDSO's code */
#define CFA_COL 12
#define FP_COL 11

static const char *arch_name(int machine)
{
	return machine == EM_AARCH64 ? "aarch64" : "x86_64";
}

/* Writes "0x" and v in lowercase hex, zero-padded to width digits (0: no padding). */
static char *fmt_hex(char *p, uint64_t v, int width)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	*p++ = '0';
	*p++ = 'x';
	for (int i = n; i < width; i++)
		*p++ = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

static int hex_digits(uint64_t v)
{
	int n = 1;

	while (v >>= 4)
		n++;
	return n;
}

static bool row_is_end(const struct table_row *r)
{
	return r->cfa == UNW_CFA_END;
}

/* ---- formatted rules, for the text and the JSON output ---- */

/*
 * The text of rows, by rule. A row's rule is everything but its pc; a table
 * holds few distinct rules, so each is formatted once.
 */
struct rule_key {
	int32_t cfa_off;
	int16_t fp_off;
	int16_t aux_off;
	uint8_t cfa, fp, ra, reason;
};

struct rule_slot {
	struct rule_key key;
	bool used;
	uint16_t len;
	uint32_t off; /* into the pool */
};

#define RULE_CACHE_BITS 14
#define RULE_CACHE_SIZE (1U << RULE_CACHE_BITS)

/* Formats the rule of r into buf (at least 4 * RULE_STR_MAX bytes); returns the length. */
typedef int rule_format_fn(const struct table_row *r, int machine, char *buf);

struct rule_cache {
	rule_format_fn *format;
	struct rule_slot slots[RULE_CACHE_SIZE];
	size_t used;
	char *pool;
	size_t pool_len, pool_cap;
};

static struct rule_cache *rule_cache__new(rule_format_fn *format)
{
	struct rule_cache *rc = calloc(1, sizeof(*rc));

	if (rc)
		rc->format = format;
	return rc;
}

static void rule_cache__free(struct rule_cache *rc)
{
	if (!rc)
		return;
	free(rc->pool);
	free(rc);
}

static struct rule_key rule_key_of(const struct table_row *r)
{
	struct rule_key k;

	memset(&k, 0, sizeof(k));
	k.cfa_off = r->cfa_off;
	k.fp_off = r->fp_off;
	k.aux_off = r->aux_off;
	k.cfa = r->cfa;
	k.fp = r->fp;
	k.ra = r->ra;
	k.reason = r->reason;
	return k;
}

static uint32_t rule_hash(const struct rule_key *k)
{
	uint64_t a = (uint32_t)k->cfa_off | (uint64_t)(uint16_t)k->fp_off << 32 |
		     (uint64_t)(uint16_t)k->aux_off << 48;
	uint64_t b = k->cfa | k->fp << 8 | k->ra << 16 | (uint32_t)k->reason << 24;

	a = (a ^ (b * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
	return (uint32_t)(a >> (64 - RULE_CACHE_BITS));
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

	n = snprintf(buf, RULE_STR_MAX, "%s", table_row__cfa_str(r, machine, s, sizeof(s)));
	n = pad_to(buf, n, CFA_COL);
	n += snprintf(buf + n, RULE_STR_MAX, "%s", table_row__fp_str(r, machine, s, sizeof(s)));
	n = pad_to(buf, n, CFA_COL + FP_COL);
	n += snprintf(buf + n, RULE_STR_MAX, "%s\n", table_row__ra_str(r, machine, s, sizeof(s)));
	return n;
}

/* The formatted tail of r, from the cache, formatting it into scratch on a miss. */
static const char *rule_cache__get(struct rule_cache *rc, const struct table_row *r, int machine,
				   char *scratch, int *len)
{
	struct rule_key k = rule_key_of(r);
	uint32_t h = rule_hash(&k);
	struct rule_slot *slot;

	for (;; h = (h + 1) & (RULE_CACHE_SIZE - 1)) {
		slot = &rc->slots[h];
		if (!slot->used)
			break;
		if (memcmp(&slot->key, &k, sizeof(k)) == 0) {
			*len = slot->len;
			return rc->pool + slot->off;
		}
	}
	*len = rc->format(r, machine, scratch);
	/* Kept at most half full so probes stay short; beyond that, format every time. */
	if (rc->used >= RULE_CACHE_SIZE / 2)
		return scratch;
	if (rc->pool_len + *len > rc->pool_cap) {
		size_t cap = rc->pool_cap ? rc->pool_cap * 2 : 65536;
		char *p = realloc(rc->pool, cap);

		if (!p)
			return scratch;
		rc->pool = p;
		rc->pool_cap = cap;
	}
	memcpy(rc->pool + rc->pool_len, scratch, *len);
	slot->key = k;
	slot->used = true;
	slot->len = *len;
	slot->off = rc->pool_len;
	rc->pool_len += *len;
	rc->used++;
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

static void print_row(struct row_out *o, struct rule_cache *rc, const struct unwind_table *t,
		      const struct table_row *r, int width)
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
	tail = rule_cache__get(rc, r, t->machine, p, &len);
	if (tail != p)
		memcpy(p, tail, len);
	o->len += p + len - line;
}

/* The header, then rows [first, first + nr) of t. */
static int print_rows(FILE *f, const struct unwind_table *t, size_t first, size_t nr)
{
	struct row_out o = { .fd = fileno(f) };
	struct rule_cache *rc;
	int width = pc_width(t);
	int err = 0;

	rc = rule_cache__new(format_rule_text);
	o.buf = malloc(ROW_OUT_SIZE);
	if (!rc || !o.buf) {
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
		print_row(&o, rc, t, &t->rows[i], width);
	row_out__flush(&o);
	err = o.err;
cleanup:
	free(o.buf);
	rule_cache__free(rc);
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
		fprintf(f, "%s%s %zu", first ? " (" : ", ", gopclntab_bad__str(r),
			t->nr_go_refused[r]);
		first = 0;
	}
	fprintf(f, "%s\n", refused ? ")" : "");
}

static const char *debug_file_text(const struct unwind_dump *c)
{
	if (c->debug)
		return elf_file__path(c->debug);
	if (c->opts.no_debuginfo)
		return "not searched (--no-debuginfo)";
	return "none found";
}

/* What the table takes in BPF's maps, alone in a run: rows, pages of the page map, rules. */
static void print_bpf_bytes(FILE *f, const struct unwind_dump *c)
{
	const struct encoder_geometry *g = encoder__geometry(c->enc);
	struct encoder_cost cost;

	if (encoder__table_cost(c->enc, c->table, &cost)) {
		fprintf(f, "BPF bytes:   unknown (out of memory)\n");
		return;
	}
	fprintf(f,
		"BPF bytes:   %" PRIu64 " (%" PRIu64 " rows x %zu, %" PRIu64
		" pages x %zu, %" PRIu64 " rules x %zu)\n",
		cost.bytes, cost.rows, g->row_bytes, cost.pages, g->page_bytes, cost.rules,
		g->rule_bytes);
}

static void print_summary(FILE *f, const struct unwind_dump *c)
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
	for (int r = 0; r < UNW_R_NR; r++)
		total += t->unsupported[r];
	fprintf(f, "unsupported: %zu", total);
	for (int r = 0, first = 1; r < UNW_R_NR; r++) {
		if (!t->unsupported[r])
			continue;
		fprintf(f, "%s%s %zu", first ? " (" : ", ", unw_reason__str(r), t->unsupported[r]);
		first = 0;
	}
	fprintf(f, "%s\n", total ? ")" : "");
	if (t->nr_bad_fdes)
		fprintf(f, "malformed:   %zu FDEs skipped\n", t->nr_bad_fdes);
	print_go_funcs(f, t);
	print_bpf_bytes(f, c);
}

/* How the walk follows Go's stack switches in this file (core/runtimes/goruntime.h), when it does. */
static void print_go_switch(FILE *f, const struct unwind_dump *c)
{
	const struct go_runtime *g = &c->go;

	if (!c->has_go)
		return;
	fprintf(f,
		"Go switch:   runtime.systemstack %#" PRIx64 "-%#" PRIx64
		", runtime.morestack %#" PRIx64 "-%#" PRIx64 "\n",
		g->systemstack_lo, g->systemstack_hi, g->morestack_lo, g->morestack_hi);
	fprintf(f,
		"             g at fs%+d; g.m %u, m.g0 %u, m.curg %u, g.sched sp %u pc %u bp %u\n",
		g->tls_g, g->g_m, g->m_g0, g->m_curg, g->sched_sp, g->sched_pc, g->sched_bp);
	if (g->m_vdso_sp)
		fprintf(f,
			"             vDSO calls: time.now %#" PRIx64 "-%#" PRIx64
			", runtime.nanotime1 %#" PRIx64 "-%#" PRIx64 "; m.vdsoPC %u, m.vdsoSP %u\n",
			g->now_lo, g->now_hi, g->nanotime_lo, g->nanotime_hi, g->m_vdso_pc,
			g->m_vdso_sp);
}

/* A range [lo, hi) as a JSON array of two hexadecimal strings. */
static void json_range(struct json_writer *jw, const char *key, uint64_t lo, uint64_t hi)
{
	char hex[24];

	jw_key(jw, key);
	jw_array_start(jw);
	snprintf(hex, sizeof(hex), "%#" PRIx64, lo);
	jw_string(jw, hex);
	snprintf(hex, sizeof(hex), "%#" PRIx64, hi);
	jw_string(jw, hex);
	jw_array_end(jw);
}

/* The vDSO's callers the walk goes back from (core/runtimes/goruntime.h), when read. */
static void json_go_vdso(struct json_writer *jw, const struct go_runtime *g)
{
	if (!g->m_vdso_sp)
		return;
	jw_key(jw, "vdso");
	jw_object_start(jw);
	if (g->now_hi)
		json_range(jw, "time.now", g->now_lo, g->now_hi);
	if (g->nanotime_hi)
		json_range(jw, "runtime.nanotime1", g->nanotime_lo, g->nanotime_hi);
	jw_uint_field(jw, "m_vdso_pc", g->m_vdso_pc);
	jw_uint_field(jw, "m_vdso_sp", g->m_vdso_sp);
	jw_object_end(jw);
}

static void json_go_switch(struct json_writer *jw, const struct unwind_dump *c)
{
	const struct go_runtime *g = &c->go;
	const struct {
		const char *name;
		uint32_t off;
	} offs[] = { { "g_m", g->g_m },		  { "m_g0", g->m_g0 },
		     { "m_curg", g->m_curg },	  { "sched_sp", g->sched_sp },
		     { "sched_pc", g->sched_pc }, { "sched_bp", g->sched_bp } };

	if (!c->has_go)
		return;
	jw_key(jw, "go_switch");
	jw_object_start(jw);
	json_range(jw, "systemstack", g->systemstack_lo, g->systemstack_hi);
	json_range(jw, "morestack", g->morestack_lo, g->morestack_hi);
	jw_int_field(jw, "tls_g", g->tls_g);
	for (size_t i = 0; i < ARRAY_SIZE(offs); i++)
		jw_uint_field(jw, offs[i].name, offs[i].off);
	json_go_vdso(jw, g);
	jw_object_end(jw);
}

static const char *const py_version_sources[] = {
	[PY_VERSION_FROM_PY_VERSION] = "Py_Version",
	[PY_VERSION_FROM_GETVERSION] = "Py_GetVersion",
};

static const char *py_frames_str(const struct py_runtime *p)
{
	return p->frame_layout == PY_FRAME_OBJECT ? "PyFrameObject" : "_PyInterpreterFrame";
}

/* What a walk of CPython's frames reads in this file (core/runtimes/pyruntime.h), when it is one. */
static void print_python(FILE *f, const struct unwind_dump *c)
{
	const struct py_runtime *p = &c->py;
	size_t n = 0;
	char ver[32];

	if (c->py_refused)
		fprintf(f, "Python:      CPython %s%s, frames not read: %s\n",
			py_runtime__version_str(p, ver, sizeof(ver)),
			p->free_threaded ? " (free-threaded)" : "", p->why);
	if (!c->has_py)
		return;
	fprintf(f, "Python:      CPython %s (%s), offsets from %s, %s frames\n",
		py_runtime__version_str(p, ver, sizeof(ver)), py_version_sources[p->version_source],
		p->offsets_source == PY_OFFSETS_TABLE ? "unwprof's table" : "_Py_DebugOffsets",
		py_frames_str(p));
	fprintf(f, "             %s %#" PRIx64 ", TLS key ", p->runtime_symbol, p->runtime);
	if (p->tls_key)
		fprintf(f, "at %#" PRIx64, p->tls_key);
	else
		fprintf(f, "none");
	fprintf(f, ", _PyEval_EvalFrameDefault %#" PRIx64 "-%#" PRIx64, p->eval_lo, p->eval_hi);
	if (p->cold_lo)
		fprintf(f, ", .cold %#" PRIx64 "-%#" PRIx64 "%s", p->cold_lo, p->cold_hi,
			p->cold_from_fde ? " (from .eh_frame)" : "");
	/* the offsets the version has, four a line */
	for (size_t i = 0; i < py_offset_names_count; i++) {
		int32_t v = py_offsets__get(&p->off, i);

		if (v == PY_OFF_NONE)
			continue;
		fprintf(f, "%s%s %d", n++ % 4 ? ", " : "\n             ", py_offset_names[i].name,
			v);
	}
	fprintf(f, "\n");
}

/* What a walk of Ruby's frames reads in this file (core/runtimes/rbruntime.h), when it is one. */
static void print_ruby(FILE *f, const struct unwind_dump *c)
{
	const struct rb_runtime *r = &c->rb;

	if (!c->has_rb)
		return;
	fprintf(f,
		"Ruby:        %u.%u.%u, rb_vm_exec %#" PRIx64 "-%#" PRIx64
		"%s, ruby_current_ec at %#" PRIx64 " of its TLS block"
		" (module id in the GOT at %#" PRIx64 "%s)\n",
		r->major, r->minor, r->teeny, r->vm_exec_lo, r->vm_exec_hi,
		r->vm_exec_from_code ? " (where rb_iseq_eval jumps)" : "", r->ec_offset,
		r->ec_module_got, r->ec_from_code ? "; from rb_thread_current's code" : "");
	if (r->symbols_ids)
		fprintf(f, "             symbol table at %#" PRIx64 " (C methods named)\n",
			r->symbols_last_id);
	else
		fprintf(f, "             no symbol table found (C methods are <cfunc>)\n");
}

static void json_ruby(struct json_writer *jw, const struct unwind_dump *c)
{
	const struct rb_runtime *r = &c->rb;

	if (!c->has_rb)
		return;
	jw_key(jw, "ruby");
	jw_object_start(jw);
	jw_key(jw, "version");
	jw_stringf(jw, "%u.%u.%u", r->major, r->minor, r->teeny);
	jw_key(jw, "vm_exec");
	jw_array_start(jw);
	jw_stringf(jw, "%#" PRIx64, r->vm_exec_lo);
	jw_stringf(jw, "%#" PRIx64, r->vm_exec_hi);
	jw_array_end(jw);
	jw_key(jw, "vm_exec_from");
	jw_string(jw, r->vm_exec_from_code ? "rb_iseq_eval" : "symbol");
	jw_key(jw, "ec_offset");
	jw_stringf(jw, "%#" PRIx64, r->ec_offset);
	jw_key(jw, "ec_module_got");
	jw_stringf(jw, "%#" PRIx64, r->ec_module_got);
	jw_key(jw, "ec_from");
	jw_string(jw, r->ec_from_code ? "rb_thread_current" : "symbol");
	jw_key(jw, "symbols");
	if (r->symbols_ids)
		jw_stringf(jw, "%#" PRIx64, r->symbols_last_id);
	else
		jw_null(jw);
	jw_object_end(jw);
}

/* A CPython whose frames are not read: its version and why, nothing to read with. */
static void json_python_refused(struct json_writer *jw, const struct unwind_dump *c)
{
	const struct py_runtime *p = &c->py;
	char ver[32];

	jw_key(jw, "python");
	jw_object_start(jw);
	jw_key(jw, "version");
	jw_string(jw, py_runtime__version_str(p, ver, sizeof(ver)));
	jw_key(jw, "version_hex");
	jw_stringf(jw, "%#x", p->version_hex);
	jw_key(jw, "free_threaded");
	jw_bool(jw, p->free_threaded);
	jw_key(jw, "refused");
	jw_string(jw, p->why);
	jw_object_end(jw);
}

static void json_python(struct json_writer *jw, const struct unwind_dump *c)
{
	const struct py_runtime *p = &c->py;
	char ver[32];

	if (c->py_refused) {
		json_python_refused(jw, c);
		return;
	}
	if (!c->has_py)
		return;
	jw_key(jw, "python");
	jw_object_start(jw);
	jw_key(jw, "version");
	jw_string(jw, py_runtime__version_str(p, ver, sizeof(ver)));
	jw_key(jw, "version_hex");
	jw_stringf(jw, "%#x", p->version_hex);
	jw_key(jw, "version_source");
	jw_string(jw, py_version_sources[p->version_source]);
	jw_key(jw, "offsets_source");
	jw_string(jw, p->offsets_source == PY_OFFSETS_TABLE ? "table" : "_Py_DebugOffsets");
	jw_key(jw, "frames");
	jw_string(jw, py_frames_str(p));
	jw_key(jw, "runtime_symbol");
	jw_string(jw, p->runtime_symbol);
	jw_key(jw, "runtime");
	jw_stringf(jw, "%#" PRIx64, p->runtime);
	jw_key(jw, "tls_key");
	if (p->tls_key)
		jw_stringf(jw, "%#" PRIx64, p->tls_key);
	else
		jw_null(jw);
	jw_key(jw, "eval_frame");
	jw_array_start(jw);
	for (int i = 0; i < 2; i++) {
		uint64_t lo = i ? p->cold_lo : p->eval_lo, hi = i ? p->cold_hi : p->eval_hi;

		if (!lo)
			continue;
		jw_array_start(jw);
		jw_stringf(jw, "%#" PRIx64, lo);
		jw_stringf(jw, "%#" PRIx64, hi);
		jw_array_end(jw);
	}
	jw_array_end(jw);
	jw_key(jw, "cold_from");
	if (p->cold_lo)
		jw_string(jw, p->cold_from_fde ? ".eh_frame" : "symbol");
	else
		jw_null(jw);
	jw_key(jw, "offsets");
	jw_object_start(jw);
	for (size_t i = 0; i < py_offset_names_count; i++) {
		int32_t v = py_offsets__get(&p->off, i);

		if (v == PY_OFF_NONE)
			continue;
		jw_key(jw, py_offset_names[i].name);
		jw_int(jw, v);
	}
	jw_object_end(jw);
	jw_key(jw, "offset_sources");
	jw_object_start(jw);
	for (size_t i = 0; i < py_offset_names_count; i++) {
		if (py_offsets__get(&p->off, i) == PY_OFF_NONE)
			continue;
		jw_key(jw, py_offset_names[i].name);
		jw_string(jw, py_runtime__offset_source(p, i));
	}
	jw_object_end(jw);
	jw_object_end(jw);
}

int unwind_dump__write_text(const struct unwind_dump *c, FILE *f)
{
	int err;

	if (!c->opts.summary) {
		err = print_rows(f, c->table, 0, c->table->nr_rows);
		if (err)
			return err;
		fprintf(f, "\n");
	}
	print_summary(f, c);
	print_go_switch(f, c);
	print_python(f, c);
	print_ruby(f, c);
	return 0;
}

int unwind_dump__write_pc_text(const struct unwind_dump *c, uint64_t pc, FILE *f)
{
	const struct table_row *r = unwind_table__lookup(c->table, pc);

	if (!r || row_is_end(r)) {
		fprintf(f, "0x%" PRIx64 ": no unwind info\n", pc);
		return 0;
	}
	return print_rows(f, c->table, r - c->table->rows, 1);
}

/* ---- JSON output ---- */

/* "CFA\0FP\0RA\0": the three strings of a JSON row. */
static int format_rule_json(const struct table_row *r, int machine, char *buf)
{
	int n = 0;

	table_row__cfa_str(r, machine, buf, RULE_STR_MAX);
	n += strlen(buf) + 1;
	table_row__fp_str(r, machine, buf + n, RULE_STR_MAX);
	n += strlen(buf + n) + 1;
	table_row__ra_str(r, machine, buf + n, RULE_STR_MAX);
	n += strlen(buf + n) + 1;
	return n;
}

static void json_row(struct json_writer *jw, struct rule_cache *rc, const struct unwind_table *t,
		     const struct table_row *r)
{
	char pc[32], scratch[4 * RULE_STR_MAX];
	const char *rule;
	int len;

	*fmt_hex(pc, unwind_table__pc(t, r), 0) = '\0';
	jw_object_start(jw);
	jw_key(jw, "pc");
	jw_string(jw, pc);
	if (row_is_end(r)) {
		jw_key(jw, "end");
		jw_bool(jw, true);
	} else {
		rule = rule_cache__get(rc, r, t->machine, scratch, &len);
		jw_key(jw, "cfa");
		jw_string(jw, rule);
		rule += strlen(rule) + 1;
		jw_key(jw, "fp");
		jw_string(jw, rule);
		rule += strlen(rule) + 1;
		jw_key(jw, "ra");
		jw_string(jw, rule);
	}
	jw_object_end(jw);
}

static void json_head(struct json_writer *jw, const struct unwind_dump *c)
{
	jw_object_start(jw);
	jw_key(jw, "schema");
	jw_uint(jw, 1);
	jw_key(jw, "file");
	jw_string(jw, c->opts.file);
}

static void json_go_funcs(struct json_writer *jw, const struct unwind_table *t)
{
	if (!t->nr_go_funcs && !go_refused(t))
		return;
	jw_key(jw, "go_funcs");
	jw_object_start(jw);
	jw_uint_field(jw, "described", t->nr_go_funcs);
	jw_uint_field(jw, "switch_stacks", t->nr_go_sp_write);
	jw_key(jw, "refused");
	jw_object_start(jw);
	for (int r = 1; r < GOPCLNTAB_BAD_NR; r++) {
		if (t->nr_go_refused[r])
			jw_uint_field(jw, gopclntab_bad__str(r), t->nr_go_refused[r]);
	}
	jw_object_end(jw);
	jw_object_end(jw);
}

static void json_summary(struct json_writer *jw, const struct unwind_dump *c)
{
	const struct unwind_table *t = c->table;
	char hex[2 * ELF_BUILD_ID_MAX + 1], src[SRC_MAX][PATH_MAX + 32];
	size_t nsrc;

	build_id_hex(c->elf, hex);
	jw_string_field(jw, "arch", arch_name(t->machine));
	jw_string_field(jw, "build_id", hex[0] ? hex : NULL);
	jw_key(jw, "sources");
	jw_array_start(jw);
	nsrc = table_sources(c, src);
	for (size_t i = 0; i < nsrc; i++)
		jw_string(jw, src[i]);
	jw_array_end(jw);
	jw_uint_field(jw, "fdes", t->nr_fdes);
	json_go_funcs(jw, t);
}

static void json_unsupported(struct json_writer *jw, const struct unwind_table *t)
{
	jw_key(jw, "unsupported");
	jw_object_start(jw);
	for (int r = 0; r < UNW_R_NR; r++) {
		if (t->unsupported[r])
			jw_uint_field(jw, unw_reason__str(r), t->unsupported[r]);
	}
	jw_object_end(jw);
}

/*
 * The writer flushes the stream to see write errors: they are returned, not
 * said.
 */
static int json_finish(struct json_writer *jw)
{
	int err;

	errno = 0;
	err = json_writer__free(jw);
	if (err == -EIO && errno)
		err = -errno;
	if (err == -EINVAL)
		pr_err("internal error: the JSON output is not well-formed");
	return err;
}

static int json_rows(struct json_writer *jw, const struct unwind_table *t, FILE *f)
{
	struct rule_cache *rc = rule_cache__new(format_rule_json);

	if (!rc)
		return -ENOMEM;
	jw_key(jw, "rows");
	jw_array_start(jw);
	for (size_t i = 0; i < t->nr_rows; i++) {
		json_row(jw, rc, t, &t->rows[i]);
		/* Stop early when the output is gone; the error is reported at the end. */
		if ((i & 4095) == 4095 && ferror(f))
			break;
	}
	jw_array_end(jw);
	rule_cache__free(rc);
	return 0;
}

int unwind_dump__write_json(const struct unwind_dump *c, FILE *f)
{
	const struct unwind_table *t = c->table;
	struct json_writer *jw;

	jw = json_writer__new(f, false);
	if (!jw)
		return -errno;
	json_head(jw, c);
	json_summary(jw, c);
	json_go_switch(jw, c);
	json_python(jw, c);
	json_ruby(jw, c);
	if (c->opts.summary) {
		jw_key(jw, "row_count");
		jw_uint(jw, t->nr_rows);
		struct encoder_cost cost;

		if (encoder__table_cost(c->enc, t, &cost)) {
			json_writer__free(jw);
			return -ENOMEM;
		}
		jw_key(jw, "bpf_bytes");
		jw_uint(jw, cost.bytes);
	} else if (json_rows(jw, t, f)) {
		json_writer__free(jw);
		return -ENOMEM;
	}
	json_unsupported(jw, t);
	jw_object_end(jw);
	return json_finish(jw);
}

int unwind_dump__write_pc_json(const struct unwind_dump *c, uint64_t pc, FILE *f)
{
	const struct table_row *r = unwind_table__lookup(c->table, pc);
	struct rule_cache *rc = NULL;
	struct json_writer *jw;

	rc = rule_cache__new(format_rule_json);
	jw = json_writer__new(f, false);
	if (!rc || !jw) {
		rule_cache__free(rc);
		json_writer__free(jw);
		return -ENOMEM;
	}
	json_head(jw, c);
	jw_key(jw, "pc");
	jw_stringf(jw, "0x%" PRIx64, pc);
	jw_key(jw, "row");
	if (!r || row_is_end(r))
		jw_null(jw);
	else
		json_row(jw, rc, c->table, r);
	jw_object_end(jw);
	rule_cache__free(rc);
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
	c->table = unwind_table__build(c->elf, c->debug);
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
	c->has_go = go_runtime__read(c->elf, &c->go) == 0;
	err = py_runtime__read(c->elf, &c->py);
	c->has_py = err == 0;
	c->py_refused = err == -ENOTSUP && c->py.version_hex;
	if (err == -EINVAL)
		pr_warn("%s: a CPython whose frames are not read: %s", opts->file, c->py.why);
	c->has_rb = rb_runtime__read(c->elf, &c->rb) == 0;
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
	elf_file__free(c->debug);
	elf_file__free(c->elf);
	free(c);
}
