// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading the function table of Go's pclntab. See gopclntab.h.
 *
 * The table starts with a header: a 4-byte magic, two zero bytes, the pc
 * quantum, the pointer size, then pointer-sized words: the number of
 * functions, and from 1.16 on the offsets (from the header) of the
 * sub-tables. The function table ("functab") is nfunc (entry, funcoff) pairs
 * followed by the end pc of the last function; funcoff locates the
 * function's _func record, which starts with the same entry and then the
 * offset of its name. What each offset is relative to depends on the
 * version; the layouts table below says it once.
 *
 * A function's SP deltas (pcsp) are a pc-value table: pairs of varints, a
 * zigzag-encoded change of the value (from -1 at the entry) and how many
 * pc quanta the new value holds for, until a 0 where a value change is
 * due. Its offset is the fifth 4-byte field of the _func record, after the
 * entry, from the pc tables (1.16+) or from the header (before); Go's flags
 * are a byte further on, from 1.17 on.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "elf_file.h"
#include "gopclntab.h"
#include "../util/leb128.h"
#include "../util/log.h"

#define HEADER_SIZE 8 /* magic, two pad bytes, quantum, pointer size */
#define NAMEOFF_SIZE 4
#define PCSP_OFF 12  /* of a _func's pcsp field, after its entry: nameoff, args, deferreturn */
#define VARINT_MAX 5 /* bytes of a 32-bit varint */
#define GOEXIT "runtime.goexit"
/* Tables tried inside .data.rel.ro: each costs a pass over the table. */
#define MAX_CANDIDATES 8

/* Where a version keeps what the function table needs: header word indexes. */
struct layout {
	uint32_t magic;
	enum gopclntab_version version;
	int text_word;	/* the text start, -1: entries are addresses */
	int names_word; /* the name table, -1: names are relative to the header */
	int pcln_word;	/* functab and _func records, -1: after nfunc, records from the header */
	int pctab_word; /* the pc tables, -1: pcsp offsets are from the header */
	int flag_off;	/* a _func's flag byte after its entry, -1: none */
};

/*
 * 1.16's byte at 1.17's flag is padding, 0. 1.20 added the start line
 * before funcID and flag.
 */
static const struct layout layouts[] = {
	{ 0xfffffffb, GOPCLNTAB_12, -1, -1, -1, -1, -1 },
	{ 0xfffffffa, GOPCLNTAB_116, -1, 2, 6, 5, 33 },
	{ 0xfffffff0, GOPCLNTAB_118, 2, 3, 7, 6, 33 },
	{ 0xfffffff1, GOPCLNTAB_120, 2, 3, 7, 6, 37 },
};

struct gopclntab {
	const uint8_t *data;
	size_t size;
	const char *name;
	const struct layout *layout;
	bool big_endian;
	size_t ptr_size;
	size_t field_size; /* of a functab field and of a _func's entry */
	uint8_t quantum;   /* of pcs in the pc-value tables */
	uint64_t text_start;
	size_t nfunc;
	size_t functab;	  /* offset of the (entry, funcoff) pairs */
	size_t funcdata;  /* what funcoff is relative to */
	size_t funcnames; /* what a name offset is relative to */
	size_t pctab;	  /* what a pcsp offset is relative to */
	size_t last_nul;  /* of the table: a name that starts before it ends in bounds */
	/*
	 * Flags are read where runtime.goexit has GOPCLNTAB_TOPFRAME: that
	 * checks the layout's flag offset on the table itself (and 1.16's
	 * padding there gives none).
	 */
	bool has_flags;
};

/* A len-byte unsigned integer at off, which the caller has checked is in bounds. */
static uint64_t read_uint(const struct gopclntab *t, size_t off, size_t len)
{
	uint64_t v = 0;

	for (size_t i = 0; i < len; i++)
		v = v << 8 | t->data[off + (t->big_endian ? i : len - 1 - i)];
	return v;
}

/* Field k of the function table; k <= 2 * nfunc was checked against the size. */
static uint64_t functab_field(const struct gopclntab *t, size_t k)
{
	return read_uint(t, t->functab + k * t->field_size, t->field_size);
}

static uint64_t entry_pc(const struct gopclntab *t, size_t i)
{
	uint64_t raw = functab_field(t, 2 * i);

	return t->layout->text_word >= 0 ? t->text_start + raw : raw;
}

static const struct layout *find_layout(uint32_t magic)
{
	for (size_t i = 0; i < ARRAY_SIZE(layouts); i++)
		if (layouts[i].magic == magic)
			return &layouts[i];
	return NULL;
}

/* The magic in either byte order; ENOTSUP when it is no pclntab's. */
static int parse_magic(struct gopclntab *t, const char **why)
{
	uint32_t le, be;

	*why = "not a Go 1.2+ table (magic)";
	if (t->size < HEADER_SIZE)
		return -ENOTSUP;
	le = (uint32_t)t->data[0] | (uint32_t)t->data[1] << 8 | (uint32_t)t->data[2] << 16 |
	     (uint32_t)t->data[3] << 24;
	be = __builtin_bswap32(le);
	t->layout = find_layout(le);
	if (!t->layout) {
		t->layout = find_layout(be);
		t->big_endian = true;
	}
	return t->layout ? 0 : -ENOTSUP;
}

/* An offset from the header word idx, which must lie inside the table. */
static int header_offset(const struct gopclntab *t, int idx, size_t *off)
{
	uint64_t v = read_uint(t, HEADER_SIZE + idx * t->ptr_size, t->ptr_size);

	if (v > t->size)
		return -EINVAL;
	*off = v;
	return 0;
}

static int parse_offsets(struct gopclntab *t, const char **why)
{
	const struct layout *l = t->layout;
	/* nfunc, and the sub-table offsets, the last of which is pcln's. */
	size_t words = l->pcln_word >= 0 ? (size_t)l->pcln_word + 1 : 1;

	if (t->size < HEADER_SIZE + words * t->ptr_size) {
		*why = "shorter than its header";
		return -EINVAL;
	}
	t->funcnames = 0;
	t->funcdata = 0;
	t->functab = HEADER_SIZE + t->ptr_size;
	/* The pc tables are not needed to name functions: their offset is checked when used. */
	t->pctab = 0;
	if (l->pctab_word >= 0 && header_offset(t, l->pctab_word, &t->pctab))
		t->pctab = t->size;
	if ((l->names_word >= 0 && header_offset(t, l->names_word, &t->funcnames)) ||
	    (l->pcln_word >= 0 && header_offset(t, l->pcln_word, &t->funcdata))) {
		*why = "a sub-table offset lies past the end";
		return -EINVAL;
	}
	if (l->pcln_word >= 0)
		t->functab = t->funcdata;
	return 0;
}

/* nfunc pairs and the end pc must fit: a count is never trusted beyond the data. */
static int parse_count(struct gopclntab *t, const char **why)
{
	uint64_t nfunc = read_uint(t, HEADER_SIZE, t->ptr_size);
	size_t slots = (t->size - t->functab) / t->field_size;

	if (!slots || nfunc > (slots - 1) / 2) {
		*why = "more functions than the table holds";
		return -EINVAL;
	}
	t->nfunc = nfunc;
	return 0;
}

static int parse_header(struct gopclntab *t, const uint64_t *text_start, const char **why)
{
	uint8_t quantum = t->data[6];
	int err;

	t->ptr_size = t->data[7];
	t->quantum = quantum;
	if (t->data[4] || t->data[5] || (quantum != 1 && quantum != 2 && quantum != 4) ||
	    (t->ptr_size != 4 && t->ptr_size != 8)) {
		*why = "bad header (padding, pc quantum or pointer size)";
		return -EINVAL;
	}
	t->field_size = t->layout->text_word >= 0 ? 4 : t->ptr_size;
	err = parse_offsets(t, why);
	if (!err)
		err = parse_count(t, why);
	if (err || t->layout->text_word < 0)
		return err;
	t->text_start = text_start ? *text_start :
				     read_uint(t, HEADER_SIZE + t->layout->text_word * t->ptr_size,
					       t->ptr_size);
	if (functab_field(t, 2 * t->nfunc) > UINT64_MAX - t->text_start) {
		*why = "the text start puts functions past the address space";
		return -EINVAL;
	}
	return 0;
}

/* The flag byte of the record at funcoff, 0 when the record ends before it. */
static uint8_t func_flags(const struct gopclntab *t, uint64_t funcoff)
{
	size_t at = t->field_size + (size_t)t->layout->flag_off;

	if (t->layout->flag_off < 0 || t->size - t->funcdata - funcoff <= at)
		return 0;
	return t->data[t->funcdata + funcoff + at];
}

/*
 * Function i, checked: its _func record lies inside the table and starts
 * with the same entry (anything else is a misread table), and its name is
 * non-empty and ends inside the table.
 */
static int func_at(const struct gopclntab *t, size_t i, struct gopclntab_func *f, const char **why)
{
	uint64_t entry = functab_field(t, 2 * i), funcoff = functab_field(t, 2 * i + 1);
	size_t record = t->field_size + NAMEOFF_SIZE;
	uint64_t nameoff;

	if (t->size - t->funcdata < record || funcoff > t->size - t->funcdata - record) {
		*why = "a function record lies past the end";
		return -EINVAL;
	}
	if (read_uint(t, t->funcdata + funcoff, t->field_size) != entry) {
		*why = "a function record disagrees with the function table";
		return -EINVAL;
	}
	nameoff = read_uint(t, t->funcdata + funcoff + t->field_size, NAMEOFF_SIZE);
	if (nameoff >= t->size - t->funcnames || t->funcnames + nameoff >= t->last_nul ||
	    !t->data[t->funcnames + nameoff]) {
		*why = "a function name lies past the end or is empty";
		return -EINVAL;
	}
	f->entry = entry_pc(t, i);
	f->end = entry_pc(t, i + 1);
	f->name = (const char *)t->data + t->funcnames + nameoff;
	f->flags = t->has_flags ? func_flags(t, funcoff) : 0;
	return 0;
}

/*
 * Every function once, so that lookups need no checks: O(nfunc), with no
 * per-name scan (the last NUL of the table bounds every name).
 */
static int check_funcs(struct gopclntab *t, const char **why)
{
	const uint8_t *nul = memrchr(t->data, 0, t->size);
	struct gopclntab_func f;
	int err;

	t->last_nul = nul ? (size_t)(nul - t->data) : 0;
	t->has_flags = false;
	for (size_t i = 0; i < t->nfunc; i++) {
		/* Equal entries are let through, as Go's own search does. */
		if (functab_field(t, 2 * i) > functab_field(t, 2 * i + 2)) {
			*why = "the function table is not sorted";
			return -EINVAL;
		}
		err = func_at(t, i, &f, why);
		if (err)
			return err;
		if (!strcmp(f.name, GOEXIT))
			t->has_flags = func_flags(t, functab_field(t, 2 * i + 1)) &
				       GOPCLNTAB_TOPFRAME;
	}
	return 0;
}

struct gopclntab *gopclntab__new(const void *data, size_t size, const uint64_t *text_start,
				 const char *name)
{
	struct gopclntab *t = calloc(1, sizeof(*t));
	const char *why = NULL;
	int err;

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	*t = (struct gopclntab){ .data = data, .size = size, .name = name };
	err = parse_magic(t, &why);
	if (!err)
		err = parse_header(t, text_start, &why);
	if (!err)
		err = check_funcs(t, &why);
	if (err) {
		if (why)
			pr_debug("%s: skipping the Go function table: %s", name, why);
		free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

void gopclntab__free(struct gopclntab *t)
{
	free(t);
}

enum gopclntab_version gopclntab__version(const struct gopclntab *t)
{
	return t->layout->version;
}

uint64_t gopclntab__text_start(const struct gopclntab *t)
{
	return t->text_start;
}

size_t gopclntab__count(const struct gopclntab *t)
{
	return t->nfunc;
}

int gopclntab__func(const struct gopclntab *t, size_t i, struct gopclntab_func *f)
{
	const char *why;

	if (i >= t->nfunc)
		return -ERANGE;
	return func_at(t, i, f, &why);
}

int gopclntab__lookup(const struct gopclntab *t, uint64_t pc, struct gopclntab_func *f)
{
	size_t lo = 0, hi = t->nfunc;

	if (!t->nfunc || pc < entry_pc(t, 0) || pc >= entry_pc(t, t->nfunc))
		return -ENOENT;
	/* The last function starting at or before pc; the first one does. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (entry_pc(t, mid) <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return gopclntab__func(t, lo - 1, f);
}

const char *gopclntab__bad_str(enum gopclntab_bad why)
{
	static const char *const names[GOPCLNTAB_BAD_NR] = {
		[GOPCLNTAB_OK] = "none",
		[GOPCLNTAB_BAD_RECORD] = "record",
		[GOPCLNTAB_BAD_OFFSET] = "offset",
		[GOPCLNTAB_BAD_ENCODING] = "encoding",
		[GOPCLNTAB_BAD_PAST_END] = "past-end",
		[GOPCLNTAB_BAD_DELTA] = "delta",
		[GOPCLNTAB_BAD_ENTRY_DELTA] = "entry-delta",
	};

	if ((unsigned int)why >= GOPCLNTAB_BAD_NR)
		return "unknown";
	return names[why];
}

/* A Go varint (LEB128, at most 32 bits) at *at, which moves past it. */
static int read_varint(const struct gopclntab *t, size_t *at, uint32_t *v)
{
	const uint8_t *p = t->data + *at, *end = t->data + t->size;
	uint64_t val;

	if (end - p > VARINT_MAX)
		end = p + VARINT_MAX;
	if (read_uleb(&p, end, &val) || val > UINT32_MAX)
		return -EINVAL;
	*at = (size_t)(p - t->data);
	*v = (uint32_t)val;
	return 0;
}

/* Where the SP deltas of function i start in the table: 0, -ENOENT (none) or -EINVAL. */
static int pcsp_start(const struct gopclntab *t, size_t i, size_t *at, enum gopclntab_bad *why)
{
	uint64_t funcoff = functab_field(t, 2 * i + 1);
	size_t field = t->field_size + PCSP_OFF;
	uint64_t off;

	/* func_at() checked that funcoff leaves room for the entry and the name offset. */
	if (t->size - t->funcdata - funcoff < field + 4) {
		*why = GOPCLNTAB_BAD_RECORD;
		return -EINVAL;
	}
	off = read_uint(t, t->funcdata + funcoff + field, 4);
	if (!off)
		return -ENOENT;
	if (off >= t->size - t->pctab) {
		*why = GOPCLNTAB_BAD_OFFSET;
		return -EINVAL;
	}
	*at = t->pctab + off;
	return 0;
}

/*
 * One value change and pc advance of a pc-value table at *at: *val and
 * *pc move on, or 1 at the table's end (a 0 where a change is due, but at
 * the entry). Go's step() of runtime/symtab.go.
 */
static int pcvalue_step(const struct gopclntab *t, const struct gopclntab_func *f, size_t *at,
			uint64_t *pc, int64_t *val, enum gopclntab_bad *why)
{
	uint32_t uv, pcd;

	if (*at >= t->size) {
		*why = GOPCLNTAB_BAD_ENCODING;
		return -EINVAL;
	}
	if (!t->data[*at] && *pc != f->entry)
		return 1;
	/* Go's linker never writes a pc delta of 0: each step covers a pc at least. */
	if (read_varint(t, at, &uv) || read_varint(t, at, &pcd) || !pcd) {
		*why = GOPCLNTAB_BAD_ENCODING;
		return -EINVAL;
	}
	*val += (uv & 1) ? -(int64_t)(uv >> 1) - 1 : (int64_t)(uv >> 1);
	if ((uint64_t)pcd * t->quantum > f->end - *pc) {
		*why = GOPCLNTAB_BAD_PAST_END;
		return -EINVAL;
	}
	*pc += (uint64_t)pcd * t->quantum;
	return 0;
}

/*
 * What a run [lo, hi) with SP delta val must be: a whole number of words,
 * as Go's int32, and none pushed at the entry. A delta below 0 is no lie:
 * syscall.rawVforkSyscall pops its own return address.
 */
static int check_run(const struct gopclntab *t, const struct gopclntab_func *f, uint64_t lo,
		     int64_t val, enum gopclntab_bad *why)
{
	if (lo == f->entry && val != 0)
		*why = GOPCLNTAB_BAD_ENTRY_DELTA;
	else if (val < INT32_MIN || val > INT32_MAX || val % (int64_t)t->ptr_size)
		*why = GOPCLNTAB_BAD_DELTA;
	else
		return 0;
	return -EINVAL;
}

/*
 * The runs of the table at at, each checked, to fn when it is not NULL.
 * Every step reads two bytes at least and covers a pc at least: the
 * table's size and the function's bound the loop, so the deltas of all
 * functions together take no more steps than their text has pcs.
 */
static int pcsp_runs(const struct gopclntab *t, const struct gopclntab_func *f, size_t at,
		     gopclntab_sp_fn fn, void *ctx, enum gopclntab_bad *why)
{
	uint64_t pc = f->entry, lo;
	int64_t val = -1;
	int err;

	for (;;) {
		lo = pc;
		err = pcvalue_step(t, f, &at, &pc, &val, why);
		if (err)
			return err < 0 ? err : 0;
		err = check_run(t, f, lo, val, why);
		if (!err && fn)
			err = fn(ctx, lo, pc, val);
		if (err)
			return err;
	}
}

int gopclntab__sp_deltas(const struct gopclntab *t, size_t i, gopclntab_sp_fn fn, void *ctx,
			 enum gopclntab_bad *why)
{
	struct gopclntab_func f;
	const char *ignored;
	size_t at = 0;
	int err;

	*why = GOPCLNTAB_OK;
	if (i >= t->nfunc)
		return -ERANGE;
	err = func_at(t, i, &f, &ignored);
	if (!err)
		err = pcsp_start(t, i, &at, why);
	if (!err)
		err = pcsp_runs(t, &f, at, NULL, NULL, why);
	if (!err)
		err = pcsp_runs(t, &f, at, fn, ctx, why);
	return err;
}

/* ELF files */

static bool in_text(const struct gopclntab *t, const struct elf_section *text)
{
	uint64_t first, end;

	if (!t->nfunc)
		return false;
	first = entry_pc(t, 0);
	end = entry_pc(t, t->nfunc);
	return first >= text->addr && end - text->addr <= text->size;
}

/*
 * The 1.18+ text start (runtime.text) is the header's field when it puts
 * the functions inside .text: it is right where an external linker put C
 * code before Go's, which .text's own address is not. A field left for a
 * dynamic relocation (0) is not, and then .text's address is taken, as
 * Go's debug/gosym does.
 */
static struct gopclntab *open_in_text(const void *data, size_t size, const struct elf_section *text,
				      const char *name)
{
	struct gopclntab *t = gopclntab__new(data, size, NULL, name);

	if (t && !in_text(t, text) && t->layout->text_word >= 0) {
		gopclntab__free(t);
		t = gopclntab__new(data, size, &text->addr, name);
	}
	if (t && !in_text(t, text)) {
		pr_debug("%s: skipping the Go function table: its functions lie outside .text",
			 name);
		gopclntab__free(t);
		errno = EINVAL;
		return NULL;
	}
	return t;
}

static bool looks_like_header(const uint8_t *p)
{
	uint32_t le = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		      (uint32_t)p[3] << 24;

	return (find_layout(le) || find_layout(__builtin_bswap32(le))) && !p[4] && !p[5] &&
	       (p[7] == 4 || p[7] == 8);
}

/*
 * An external linker (-buildmode=pie -linkmode=external) merges the table
 * into .data.rel.ro, whose start it need not be at: look for its header
 * there, in Go files only, trying a bounded number of candidates.
 */
static struct gopclntab *scan_relro(const struct elf_file *ef, const struct elf_section *text)
{
	const char *name = elf_file__path(ef);
	struct elf_section sec;
	int tried = 0;

	if (elf_file__section(ef, ".go.buildinfo", &sec) &&
	    elf_file__section(ef, ".note.go.buildid", &sec))
		return NULL;
	if (elf_file__section(ef, ".data.rel.ro", &sec))
		return NULL;
	for (size_t off = 0; off + HEADER_SIZE <= sec.size && tried < MAX_CANDIDATES; off += 4) {
		struct gopclntab *t;

		if (!looks_like_header(sec.data + off))
			continue;
		tried++;
		t = open_in_text(sec.data + off, sec.size - off, text, name);
		if (t)
			return t;
	}
	return NULL;
}

struct gopclntab *gopclntab__open_elf(const struct elf_file *ef)
{
	struct elf_section text, sec;
	struct gopclntab *t;

	if (elf_file__section(ef, ".text", &text)) {
		errno = ENOENT;
		return NULL;
	}
	if (!elf_file__section(ef, ".gopclntab", &sec) ||
	    !elf_file__section(ef, ".data.rel.ro.gopclntab", &sec))
		t = open_in_text(sec.data, sec.size, &text, elf_file__path(ef));
	else
		t = scan_relro(ef, &text);
	if (!t)
		errno = ENOENT;
	return t;
}
