// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Go pclntab reader (core/elf/gopclntab.c) on tables built here byte by
 * byte, one per format (Go 1.2, 1.16, 1.18, 1.20), both byte orders and both
 * pointer sizes: lookups at each function's entry, middle and last byte and
 * outside the table; malformed tables (every truncation, bad header, huge
 * counts, offsets out of bounds, unsorted or inconsistent entries) that must
 * fail cleanly; finding the table in ELF files (.gopclntab, the PIE section
 * name, inside .data.rel.ro, the text start when the header's is 0); and the
 * symbolizer taking Go's functions where the ELF symbols leave a gap.
 *
 * Each function also has SP deltas (a pcsp table, encoded here as Go's
 * linker writes it) and, from 1.16's layout on, Go's flag byte: the deltas
 * decoded run by run in every format, the flags read only where
 * runtime.goexit says TOPFRAME, each way the deltas can lie refused for
 * that function alone with its reason, and the unwind rows made of them
 * (core/unwind/table_go.c), alone and over rows of CFI.
 *
 * Each table is copied into a buffer of exactly its size, so that under
 * ASan a read past its end is caught.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util/common.h"
#include "core/elf/elf_file.h"
#include "core/elf/gopclntab.h"
#include "core/profile/profile.h"
#include "core/symbols/symbolizer.h"
#include "core/unwind/unwind_dump.h"
#include "core/unwind/unwind_table.h"
#include "core/unwind/table_go.h"
#include "test.h"

#define TEXT 0x401000ULL
#define END_OFF 0x180 /* the end of the last function, from TEXT */
#define MAX_FUNCS 4
/* nameoff, then the 4-byte fields of a _func: pcsp the fourth, the flag byte in the last two. */
#define RECORD_FIELDS 10
#define PCSP_FIELD 3
#define MAX_RUNS 6
#define PCTAB_MAX 256

struct func_spec {
	uint32_t off; /* from TEXT */
	const char *name;
};

static const struct func_spec three[] = {
	{ 0x000, "main.alpha" },
	{ 0x040, "main.(*T).beta" },
	{ 0x100, "runtime.gamma.func1" },
};

/* A run of a function's SP deltas: len pcs with SP delta bytes pushed; len 0 ends them. */
struct run_spec {
	uint32_t len;
	int32_t delta;
};

/*
 * alpha pushes a frame and pops it (its last 9 bytes are padding), beta
 * checks its stack before it takes a frame of 16 (the rest is padding),
 * gamma is a leaf.
 */
static const struct run_spec three_runs[MAX_FUNCS][MAX_RUNS] = {
	{ { 1, 0 }, { 4, 8 }, { 0x30, 40 }, { 1, 8 }, { 1, 0 } },
	{ { 0x20, 0 }, { 0x10, 16 } },
	{ { 0x80, 0 } },
};

struct spec {
	enum gopclntab_version version;
	bool big_endian;
	size_t ptr_size;
	uint64_t header_text; /* 1.18+: the header's text start */
	const struct func_spec *funcs;
	size_t nfunc;
	const struct run_spec (*runs)[MAX_RUNS]; /* NULL: three_runs; a run list of none: no pcsp */
	uint8_t flags[MAX_FUNCS];		 /* Go's flag bytes, from 1.16's layout on */
};

/* A built table and where its parts landed, for the malformed variants. */
struct table {
	uint8_t d[4096];
	size_t size;
	size_t field;	 /* functab field size */
	size_t functab;	 /* its offset */
	size_t funcdata; /* base of funcoff */
	size_t names;	 /* base of nameoff */
	size_t record[MAX_FUNCS];
	size_t name[MAX_FUNCS];
	size_t names_at; /* where the names are written */
	size_t names_end;
	size_t pctab;		    /* the pc tables: a 0, then each function's SP deltas */
	size_t pcsp[MAX_FUNCS];	    /* where each function's are, 0: none */
	uint8_t pcs[PCTAB_MAX];	    /* the pc tables, */
	size_t pcs_len;		    /* encoded by encode_pctab() */
	size_t pcsp_off[MAX_FUNCS]; /* their offsets in it */
};

static const uint32_t magics[] = {
	[GOPCLNTAB_12] = 0xfffffffb,
	[GOPCLNTAB_116] = 0xfffffffa,
	[GOPCLNTAB_118] = 0xfffffff0,
	[GOPCLNTAB_120] = 0xfffffff1,
};

static bool relative(enum gopclntab_version v)
{
	return v >= GOPCLNTAB_118;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void put_uint(struct table *t, const struct spec *s, size_t off, uint64_t v, size_t len)
{
	for (size_t i = 0; i < len; i++)
		t->d[off + i] = (uint8_t)(v >> (8 * (s->big_endian ? len - 1 - i : i)));
}

static void put_word(struct table *t, const struct spec *s, size_t idx, uint64_t v)
{
	put_uint(t, s, 8 + idx * s->ptr_size, v, s->ptr_size);
}

static uint64_t raw_entry(const struct spec *s, uint32_t off)
{
	return relative(s->version) ? off : TEXT + off;
}

static size_t record_size(const struct table *t)
{
	return align8(t->field + 4 * RECORD_FIELDS);
}

static const struct run_spec (*spec_runs(const struct spec *s))[MAX_RUNS]
{
	return s->runs ? s->runs : three_runs;
}

static size_t put_varint(uint8_t *p, uint32_t v)
{
	size_t n = 0;

	do {
		p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

/* One function's runs as Go's pc-value table: zigzag value changes from -1, pc deltas, a 0. */
static size_t encode_runs(uint8_t *p, const struct run_spec *runs)
{
	int64_t val = -1;
	size_t n = 0;

	for (size_t i = 0; i < MAX_RUNS && runs[i].len; i++) {
		int64_t d = runs[i].delta - val;
		uint32_t z = d < 0 ? (uint32_t)(-d - 1) << 1 | 1 : (uint32_t)d << 1;

		n += put_varint(p + n, z);
		n += put_varint(p + n, runs[i].len);
		val = runs[i].delta;
	}
	p[n++] = 0;
	return n;
}

/* The pc tables of s: a 0 (offset 0 means none), then each function's that has runs. */
static void encode_pctab(struct table *t, const struct spec *s)
{
	const struct run_spec(*runs)[MAX_RUNS] = spec_runs(s);

	t->pcs[0] = 0;
	t->pcs_len = 1;
	for (size_t i = 0; i < s->nfunc; i++) {
		t->pcsp_off[i] = runs[i][0].len ? t->pcs_len : 0;
		if (runs[i][0].len)
			t->pcs_len += encode_runs(t->pcs + t->pcs_len, runs[i]);
	}
}

static size_t names_size(const struct spec *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nfunc; i++)
		n += strlen(s->funcs[i].name) + 1;
	return n;
}

/*
 * Go 1.2: header, nfunc, functab, filetab offset, records, names; both
 * offsets from the header. 1.16+: header words, the names, then the
 * functab and its records, their offsets from the start of each.
 */
static void layout(struct table *t, const struct spec *s)
{
	size_t words = s->version == GOPCLNTAB_12 ? 1 : relative(s->version) ? 8 : 7;
	size_t n = s->nfunc, rec;

	t->field = relative(s->version) ? 4 : s->ptr_size;
	encode_pctab(t, s);
	if (s->version == GOPCLNTAB_12) {
		/* The pc tables before the names, which stay last. */
		t->functab = 8 + s->ptr_size;
		t->funcdata = t->names = 0;
		rec = align8(t->functab + (2 * n + 1) * t->field + 4);
		t->pctab = rec + n * record_size(t);
		t->names_at = t->pctab + t->pcs_len;
	} else {
		t->names = t->names_at = align8(8 + words * s->ptr_size);
		t->functab = t->funcdata = align8(t->names + names_size(s));
		rec = align8(t->functab + (2 * n + 1) * t->field);
		t->pctab = rec + n * record_size(t);
	}
	for (size_t i = 0; i < n; i++) {
		t->record[i] = rec + i * record_size(t);
		t->pcsp[i] = t->pcsp_off[i] ? t->pctab + t->pcsp_off[i] : 0;
	}
	t->size = t->pctab + t->pcs_len;
	if (s->version == GOPCLNTAB_12)
		t->size += names_size(s);
}

/* The flag byte's offset in a record, after the entry; 0: none (Go 1.2's layout). */
static size_t flag_at(const struct spec *s)
{
	if (s->version == GOPCLNTAB_12)
		return 0;
	return 4 * RECORD_FIELDS - (s->version == GOPCLNTAB_120 ? 3 : 7);
}

/* A record's SP deltas and flags; 1.2's offsets are from the header, later ones from pctab. */
static void write_frame(struct table *t, const struct spec *s, size_t i)
{
	size_t base = s->version == GOPCLNTAB_12 ? 0 : t->pctab;

	if (t->pcsp[i])
		put_uint(t, s, t->record[i] + t->field + 4 * PCSP_FIELD, t->pcsp[i] - base, 4);
	if (flag_at(s))
		t->d[t->record[i] + t->field + flag_at(s)] = s->flags[i];
}

static void write_header(struct table *t, const struct spec *s)
{
	put_uint(t, s, 0, magics[s->version], 4);
	t->d[6] = 1;
	t->d[7] = (uint8_t)s->ptr_size;
	put_word(t, s, 0, s->nfunc);
	if (s->version == GOPCLNTAB_116) {
		put_word(t, s, 2, t->names);
		for (size_t w = 3; w <= 6; w++)
			put_word(t, s, w, t->funcdata); /* cu and file tables: empty */
		put_word(t, s, 5, t->pctab);
	} else if (relative(s->version)) {
		put_word(t, s, 2, s->header_text);
		put_word(t, s, 3, t->names);
		for (size_t w = 4; w <= 7; w++)
			put_word(t, s, w, t->funcdata);
		put_word(t, s, 6, t->pctab);
	}
}

static void build(struct table *t, const struct spec *s)
{
	size_t at;

	memset(t, 0, sizeof(*t));
	layout(t, s);
	write_header(t, s);
	at = t->names_at;
	for (size_t i = 0; i < s->nfunc; i++) {
		size_t len = strlen(s->funcs[i].name) + 1;
		uint64_t entry = raw_entry(s, s->funcs[i].off);

		t->name[i] = at;
		memcpy(t->d + at, s->funcs[i].name, len);
		at += len;
		put_uint(t, s, t->functab + 2 * i * t->field, entry, t->field);
		put_uint(t, s, t->functab + (2 * i + 1) * t->field, t->record[i] - t->funcdata,
			 t->field);
		put_uint(t, s, t->record[i], entry, t->field);
		put_uint(t, s, t->record[i] + t->field, t->name[i] - t->names, 4);
		write_frame(t, s, i);
	}
	memcpy(t->d + t->pctab, t->pcs, t->pcs_len);
	put_uint(t, s, t->functab + 2 * s->nfunc * t->field, raw_entry(s, END_OFF), t->field);
	t->names_end = at;
}

/* The first len bytes of t in a buffer of exactly that size, opened. */
static struct gopclntab *open_prefix(const struct table *t, size_t len, const uint64_t *text,
				     uint8_t **copy)
{
	*copy = malloc(len ? len : 1);
	if (!*copy)
		return NULL;
	memcpy(*copy, t->d, len);
	return gopclntab__new(*copy, len, text, "test");
}

static struct gopclntab *open_table(const struct table *t, uint8_t **copy)
{
	return open_prefix(t, t->size, NULL, copy);
}

static void check_func(const struct gopclntab *t, uint64_t pc, const char *name, uint64_t entry,
		       uint64_t end)
{
	struct gopclntab_func f = { 0 };

	CHECK_EQ_INT(gopclntab__lookup(t, pc, &f), 0);
	CHECK_EQ_STR(f.name, name);
	CHECK_EQ_INT(f.entry, entry);
	CHECK_EQ_INT(f.end, end);
}

static void check_none(const struct gopclntab *t, uint64_t pc)
{
	struct gopclntab_func f;

	CHECK_EQ_INT(gopclntab__lookup(t, pc, &f), -ENOENT);
}

/* The three functions at TEXT: entry, middle, last byte; nothing outside. */
static void check_three(const struct gopclntab *t)
{
	struct gopclntab_func f;

	CHECK_EQ_INT(gopclntab__count(t), 3);
	for (size_t i = 0; i < 3; i++) {
		uint64_t entry = TEXT + three[i].off;
		uint64_t end = TEXT + (i + 1 < 3 ? three[i + 1].off : END_OFF);

		CHECK_EQ_INT(gopclntab__func(t, i, &f), 0);
		CHECK_EQ_STR(f.name, three[i].name);
		CHECK_EQ_INT(f.entry, entry);
		CHECK_EQ_INT(f.end, end);
		check_func(t, entry, three[i].name, entry, end);
		check_func(t, entry + (end - entry) / 2, three[i].name, entry, end);
		check_func(t, end - 1, three[i].name, entry, end);
	}
	CHECK_EQ_INT(gopclntab__func(t, 3, &f), -ERANGE);
	check_none(t, TEXT - 1);
	check_none(t, TEXT + END_OFF);
	check_none(t, 0);
	check_none(t, UINT64_MAX);
}

/* The formats tried everywhere; the tests that need one take these three. */
enum { GO12 = 0, GO116 = 3, GO118 = 5 };

static const struct spec formats[] = {
	{ GOPCLNTAB_12, false, 8, 0, three, 3, NULL, { 0 } },	  /* GO12 */
	{ GOPCLNTAB_12, false, 4, 0, three, 3, NULL, { 0 } },	  /* 32-bit */
	{ GOPCLNTAB_12, true, 8, 0, three, 3, NULL, { 0 } },	  /* big-endian */
	{ GOPCLNTAB_116, false, 8, 0, three, 3, NULL, { 0 } },	  /* GO116 */
	{ GOPCLNTAB_116, true, 4, 0, three, 3, NULL, { 0 } },	  /* big-endian 32-bit */
	{ GOPCLNTAB_118, false, 8, TEXT, three, 3, NULL, { 0 } }, /* GO118 */
	{ GOPCLNTAB_118, true, 8, TEXT, three, 3, NULL, { 0 } },  /* big-endian */
	{ GOPCLNTAB_118, false, 4, TEXT, three, 3, NULL, { 0 } }, /* 32-bit */
	{ GOPCLNTAB_120, false, 8, TEXT, three, 3, NULL, { 0 } }, /* laid out as 1.18 */
	{ GOPCLNTAB_120, true, 4, TEXT, three, 3, NULL, { 0 } },  /* big-endian 32-bit */
};

static void test_formats(void)
{
	static struct table t;

	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		const struct spec *s = &formats[i];
		struct gopclntab *g;
		uint8_t *copy;

		build(&t, s);
		g = open_table(&t, &copy);
		CHECK(g != NULL);
		if (g) {
			CHECK_EQ_INT(gopclntab__version(g), s->version);
			CHECK_EQ_INT(gopclntab__text_start(g), relative(s->version) ? TEXT : 0);
			check_three(g);
		}
		gopclntab__free(g);
		free(copy);
	}
}

/* 1.18+ entries are offsets: from the header's text start unless told another. */
static void test_text_start(void)
{
	static struct table t;
	struct spec s = formats[GO118];
	uint64_t text = TEXT;
	struct gopclntab *g;
	uint8_t *copy;

	s.header_text = 0;
	build(&t, &s);
	g = open_table(&t, &copy);
	CHECK(g != NULL);
	if (g)
		check_func(g, 0x50, "main.(*T).beta", 0x40, 0x100);
	gopclntab__free(g);
	free(copy);
	g = open_prefix(&t, t.size, &text, &copy);
	CHECK(g != NULL);
	if (g)
		check_three(g);
	gopclntab__free(g);
	free(copy);

	/* Before 1.18 entries are addresses: a text start changes nothing. */
	build(&t, &formats[GO116]);
	text = 0x999000;
	g = open_prefix(&t, t.size, &text, &copy);
	CHECK(g != NULL);
	if (g)
		check_three(g);
	gopclntab__free(g);
	free(copy);
}

/* A table with no functions opens, and names nothing. */
static void test_empty(void)
{
	static struct table t;
	struct spec s = formats[GO118];
	struct gopclntab *g;
	uint8_t *copy;

	s.nfunc = 0;
	build(&t, &s);
	g = open_table(&t, &copy);
	CHECK(g != NULL);
	if (g) {
		CHECK_EQ_INT(gopclntab__count(g), 0);
		check_none(g, TEXT);
	}
	gopclntab__free(g);
	free(copy);
}

/* Opening t must fail with errno err. */
static void expect_fail(const struct table *t, const uint64_t *text, int err, const char *what)
{
	uint8_t *copy;
	struct gopclntab *g = open_prefix(t, t->size, text, &copy);

	CHECK(g == NULL);
	if (g)
		fprintf(stderr, "  %s: opened\n", what);
	else if (errno != err)
		fprintf(stderr, "  %s: errno %d\n", what, errno);
	CHECK_EQ_INT(errno, err);
	gopclntab__free(g);
	free(copy);
}

/*
 * Every prefix of the table: shorter than what the last function needs
 * (its record's entry and name offset, every name) it must fail, longer it
 * must read the same functions.
 */
static void check_truncations(const struct spec *s)
{
	static struct table t;
	size_t needed;

	build(&t, s);
	needed = t.record[s->nfunc - 1] + t.field + 4;
	if (t.names_end > needed)
		needed = t.names_end;
	for (size_t len = 0; len < t.size; len++) {
		uint8_t *copy;
		struct gopclntab *g = open_prefix(&t, len, NULL, &copy);

		CHECK_EQ_INT(g != NULL, len >= needed);
		if (!g && len >= needed)
			fprintf(stderr, "  version %d: prefix of %zu bytes refused\n", s->version,
				len);
		if (g)
			check_three(g);
		gopclntab__free(g);
		free(copy);
	}
}

static void test_truncated(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		check_truncations(&formats[i]);
}

static void test_bad_header(void)
{
	static struct table t;
	const struct spec *s = &formats[GO118];

	build(&t, s);
	t.d[0] = 0x00; /* flipping its low bit would make 1.18's into 1.20's */
	expect_fail(&t, NULL, ENOTSUP, "magic");
	build(&t, s);
	t.d[5] = 1;
	expect_fail(&t, NULL, EINVAL, "padding");
	build(&t, s);
	t.d[6] = 3;
	expect_fail(&t, NULL, EINVAL, "quantum");
	build(&t, s);
	t.d[7] = 5;
	expect_fail(&t, NULL, EINVAL, "pointer size");
}

/* Counts beyond the data are refused before anything is read or allocated for them. */
static void test_huge_count(void)
{
	static const uint64_t counts[] = { 4, 1ULL << 31, 0xffffffffULL, 1ULL << 62, UINT64_MAX };
	static struct table t;

	for (size_t f = 0; f < ARRAY_SIZE(formats); f++) {
		const struct spec *s = &formats[f];

		for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
			if (s->ptr_size == 4 && counts[i] > UINT32_MAX)
				continue;
			build(&t, s);
			put_word(&t, s, 0, counts[i]);
			expect_fail(&t, NULL, EINVAL, "nfunc");
		}
	}
}

static void test_offsets_out_of_bounds(void)
{
	static struct table t;
	const struct spec *s = &formats[GO118];

	build(&t, s);
	put_word(&t, s, 3, t.size + 1);
	expect_fail(&t, NULL, EINVAL, "name table offset");
	build(&t, s);
	put_word(&t, s, 7, t.size);
	expect_fail(&t, NULL, EINVAL, "pcln offset at the end");
	build(&t, s);
	put_word(&t, s, 7, UINT64_MAX);
	expect_fail(&t, NULL, EINVAL, "pcln offset");
	build(&t, s);
	put_uint(&t, s, t.functab + 3 * t.field, 0xfffffff0, t.field);
	expect_fail(&t, NULL, EINVAL, "funcoff");
	build(&t, s);
	put_uint(&t, s, t.functab + 3 * t.field, t.size - t.funcdata - 4, t.field);
	expect_fail(&t, NULL, EINVAL, "funcoff near the end");
	build(&t, s);
	put_uint(&t, s, t.record[1] + t.field, 0x7fffffff, 4);
	expect_fail(&t, NULL, EINVAL, "nameoff");
	build(&t, s);
	put_uint(&t, s, t.record[1] + t.field, 0xffffffff, 4);
	expect_fail(&t, NULL, EINVAL, "negative nameoff");
}

static void test_inconsistent(void)
{
	static const struct func_spec unsorted[] = {
		{ 0x000, "main.alpha" },
		{ 0x100, "runtime.gamma.func1" },
		{ 0x040, "main.(*T).beta" },
	};
	static struct table t;
	struct spec s = formats[GO118];
	uint64_t text = UINT64_MAX - 0x100;

	s.funcs = unsorted;
	build(&t, &s);
	expect_fail(&t, NULL, EINVAL, "unsorted");
	s.funcs = three;
	build(&t, &s);
	put_uint(&t, &s, t.record[2], 0x104, t.field);
	expect_fail(&t, NULL, EINVAL, "record entry");
	build(&t, &s);
	t.d[t.name[1]] = 0;
	expect_fail(&t, NULL, EINVAL, "empty name");
	build(&t, &s);
	expect_fail(&t, &text, EINVAL, "text start overflow");

	/* Go 1.2 keeps its names last: the last one loses its NUL. */
	build(&t, &formats[GO12]);
	t.d[t.size - 1] = 'x';
	expect_fail(&t, NULL, EINVAL, "unterminated name");
}

/* ---- SP deltas, flags and rows ---- */

/* The runs of one function as gopclntab__sp_deltas() gives them. */
struct got_runs {
	uint64_t lo[MAX_RUNS], hi[MAX_RUNS];
	int64_t delta[MAX_RUNS];
	size_t n;
};

static int got_run(void *ctx, uint64_t lo, uint64_t hi, int64_t delta)
{
	struct got_runs *g = ctx;

	if (g->n == MAX_RUNS)
		return -E2BIG;
	g->lo[g->n] = lo;
	g->hi[g->n] = hi;
	g->delta[g->n++] = delta;
	return 0;
}

/* Function i's runs are exactly runs, from its entry on. */
static void check_runs(const struct gopclntab *g, size_t i, const struct run_spec *runs)
{
	struct gopclntab_func f;
	struct got_runs got = { .n = 0 };
	enum gopclntab_bad why;
	uint64_t pc;
	size_t n = 0;

	CHECK_EQ_INT(gopclntab__func(g, i, &f), 0);
	CHECK_EQ_INT(gopclntab__sp_deltas(g, i, got_run, &got, &why), 0);
	CHECK_EQ_INT(why, GOPCLNTAB_OK);
	pc = f.entry;
	for (; n < MAX_RUNS && runs[n].len; n++) {
		if (n >= got.n)
			break;
		CHECK_EQ_INT(got.lo[n], pc);
		CHECK_EQ_INT(got.hi[n], pc + runs[n].len);
		CHECK_EQ_INT(got.delta[n], runs[n].delta);
		pc += runs[n].len;
	}
	CHECK_EQ_INT(got.n, n);
}

/* Every format: each function's runs, in order; no flags without runtime.goexit's. */
static void test_sp_deltas(void)
{
	static struct table t;

	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		struct gopclntab *g;
		uint8_t *copy;

		build(&t, &formats[i]);
		g = open_table(&t, &copy);
		CHECK(g != NULL);
		for (size_t k = 0; g && k < 3; k++)
			check_runs(g, k, three_runs[k]);
		gopclntab__free(g);
		free(copy);
	}
}

static const struct func_spec with_goexit[] = {
	{ 0x000, "main.alpha" },
	{ 0x040, "runtime.mcall" },
	{ 0x100, "runtime.goexit" },
};

/* Opens s built with flags and checks the flags of its three functions against want. */
static void check_flags(const struct spec *s, const uint8_t *want)
{
	static struct table t;
	struct gopclntab_func f;
	struct gopclntab *g;
	uint8_t *copy;

	build(&t, s);
	g = open_table(&t, &copy);
	CHECK(g != NULL);
	for (size_t k = 0; g && k < 3; k++) {
		CHECK_EQ_INT(gopclntab__func(g, k, &f), 0);
		CHECK_EQ_INT(f.flags, want[k]);
	}
	gopclntab__free(g);
	free(copy);
}

/*
 * Flags are read at 1.17's offset (1.18 laid out alike) or 1.20's, where
 * runtime.goexit has TOPFRAME there; not in 1.2's layout, which has none,
 * nor where goexit's byte says otherwise (1.16's padding).
 */
static void test_flags(void)
{
	static const uint8_t set[] = { 0, GOPCLNTAB_SPWRITE | GOPCLNTAB_ASM,
				       GOPCLNTAB_TOPFRAME | GOPCLNTAB_ASM };
	static const uint8_t none[3] = { 0 };
	const size_t with[] = { 0, GO116, GO118, 8 /* 1.20 */, 9 /* 1.20 big-endian 32-bit */ };

	for (size_t i = 0; i < ARRAY_SIZE(with); i++) {
		struct spec s = formats[with[i]];

		s.funcs = with_goexit;
		memcpy(s.flags, set, sizeof(set));
		check_flags(&s, with[i] == 0 ? none : set);
		s.flags[2] = GOPCLNTAB_ASM; /* goexit without TOPFRAME: no flag is read */
		check_flags(&s, none);
	}
}

/* Function 1 of s is refused with why, or -ENOENT when why is GOPCLNTAB_OK; 0 and 2 hold. */
static void expect_refused(const struct spec *s, void (*spoil)(struct table *, const struct spec *),
			   int err, enum gopclntab_bad why, const char *what)
{
	static struct table t;
	struct got_runs got = { .n = 0 };
	enum gopclntab_bad got_why;
	struct gopclntab *g;
	uint8_t *copy;

	build(&t, s);
	if (spoil)
		spoil(&t, s);
	g = open_table(&t, &copy);
	CHECK(g != NULL);
	if (!g)
		return;
	CHECK_EQ_INT(gopclntab__sp_deltas(g, 1, got_run, &got, &got_why), err);
	if (got_why != why)
		fprintf(stderr, "  %s: %s\n", what, gopclntab__bad_str(got_why));
	CHECK_EQ_INT(got_why, why);
	CHECK_EQ_INT(got.n, 0); /* nothing is given before the whole table was checked */
	check_runs(g, 0, spec_runs(s)[0]);
	if (s->nfunc > 2)
		check_runs(g, 2, spec_runs(s)[2]);
	CHECK_EQ_INT(gopclntab__sp_deltas(g, s->nfunc, got_run, &got, &got_why), -ERANGE);
	gopclntab__free(g);
	free(copy);
}

/* beta's pcsp offset past the table, and its record cut before it. */
static void spoil_offset(struct table *t, const struct spec *s)
{
	put_uint(t, s, t->record[1] + t->field + 4 * PCSP_FIELD, t->size, 4);
}

static void spoil_record(struct table *t, const struct spec *s)
{
	size_t at = t->size;

	/* beta's entry and name offset alone at the end, where its funcoff now points */
	memcpy(t->d + at, t->d + t->record[1], t->field + 4);
	put_uint(t, s, t->functab + 3 * t->field, at - t->funcdata, t->field);
	t->size += t->field + 4;
}

/* beta's varint never ends: its table's bytes all have the high bit, to the end. */
static void spoil_varint(struct table *t, const struct spec *s)
{
	(void)s;
	memset(t->d + t->pcsp[1], 0xff, t->size - t->pcsp[1]);
}

/* beta's first pc delta 0, which Go's linker never writes: a step that covers no pc. */
static void spoil_zero_pc(struct table *t, const struct spec *s)
{
	(void)s;
	t->d[t->pcsp[1] + 1] = 0;
}

/* A lie in beta's table costs beta alone its rows, with the reason. */
static void test_sp_lies(void)
{
	static const struct run_spec past_end[MAX_FUNCS][MAX_RUNS] = {
		{ { 8, 0 } }, { { 0x20, 0 }, { 0x200, 16 } }, { { 8, 0 } }
	};
	static const struct run_spec half_word[MAX_FUNCS][MAX_RUNS] = {
		{ { 8, 0 } }, { { 0x20, 0 }, { 0x10, 12 } }, { { 8, 0 } }
	};
	static const struct run_spec at_entry[MAX_FUNCS][MAX_RUNS] = { { { 8, 0 } },
								       { { 1, 8 }, { 0x10, 16 } },
								       { { 8, 0 } } };
	static const struct run_spec none[MAX_FUNCS][MAX_RUNS] = { { { 8, 0 } },
								   { { 0 } },
								   { { 8, 0 } } };
	struct spec s = formats[GO118];

	s.runs = past_end;
	expect_refused(&s, NULL, -EINVAL, GOPCLNTAB_BAD_PAST_END, "past the end");
	s.runs = half_word;
	expect_refused(&s, NULL, -EINVAL, GOPCLNTAB_BAD_DELTA, "half a word");
	s.runs = at_entry;
	expect_refused(&s, NULL, -EINVAL, GOPCLNTAB_BAD_ENTRY_DELTA, "pushed at the entry");
	s.runs = none;
	expect_refused(&s, NULL, -ENOENT, GOPCLNTAB_OK, "no table");
	s.runs = NULL;
	expect_refused(&s, spoil_offset, -EINVAL, GOPCLNTAB_BAD_OFFSET, "offset");
	expect_refused(&s, spoil_record, -EINVAL, GOPCLNTAB_BAD_RECORD, "record");
	expect_refused(&s, spoil_zero_pc, -EINVAL, GOPCLNTAB_BAD_ENCODING, "pc delta of 0");
	/* beta's is not the last table: end it with gamma's bytes spoiled too */
	s.runs = (const struct run_spec[MAX_FUNCS][MAX_RUNS]){ { { 8, 0 } }, { { 8, 0 } } };
	s.nfunc = 2;
	expect_refused(&s, spoil_varint, -EINVAL, GOPCLNTAB_BAD_ENCODING, "endless varint");
}

/* Row text as dump-unwind prints it: "pc cfa fp ra". */
static void row_text(const struct unwind_table *t, size_t i, char *buf, size_t len)
{
	const struct table_row *r = &t->rows[i];
	char cfa[64], fp[64], ra[64];

	if (r->cfa == UNW_CFA_END) {
		snprintf(buf, len, "%#llx end", (unsigned long long)unwind_table__pc(t, r));
		return;
	}
	snprintf(buf, len, "%#llx %s %s %s", (unsigned long long)unwind_table__pc(t, r),
		 unwind_dump__cfa_str(r, t->machine, cfa, sizeof(cfa)),
		 unwind_dump__fp_str(r, t->machine, fp, sizeof(fp)),
		 unwind_dump__ra_str(r, t->machine, ra, sizeof(ra)));
}

static void check_rows(const struct unwind_table *t, const char *const *want, size_t n)
{
	char got[256];

	CHECK_EQ_INT(t->nr_rows, n);
	for (size_t i = 0; i < n && i < t->nr_rows; i++) {
		row_text(t, i, got, sizeof(got));
		CHECK_EQ_STR(got, want[i]);
	}
}

/* Adds the rows of s to t, whose rows are then freed with it; code: the text's bytes or NULL. */
static int add_go_code(struct unwind_table *t, const struct spec *s, const struct go_code *code)
{
	static struct table tab;
	struct gopclntab *g;
	uint8_t *copy;
	int err;

	build(&tab, s);
	g = open_table(&tab, &copy);
	CHECK(g != NULL);
	if (!g)
		return -EINVAL;
	err = table_go__add(t, g, code);
	gopclntab__free(g);
	free(copy);
	return err;
}

static int add_go(struct unwind_table *t, const struct spec *s)
{
	return add_go_code(t, s, NULL);
}

/* A made-up text of END_OFF bytes at TEXT, for what a function's code says. */
static uint8_t text[END_OFF];

static const uint8_t *text_bytes(const void *ctx, uint64_t vaddr, size_t len)
{
	(void)ctx;
	if (vaddr < TEXT || vaddr - TEXT > sizeof(text) || len > sizeof(text) - (vaddr - TEXT))
		return NULL;
	return text + (vaddr - TEXT);
}

/* The text with Go's signal restorer's code at off, after an INT3 when padded. */
static void restorer_text(uint32_t off, bool padded)
{
	static const uint8_t code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05, 0xcd, 0x03 };

	memset(text, 0x90, sizeof(text));
	text[off - 1] = padded ? 0xcc : 0xc3;
	memcpy(text + off, code, sizeof(code));
}

/*
 * Go's signal restorer, where its handler returns: the kernel's signal
 * frame from the padding byte before it (as glibc's __restore_rt has it,
 * tests/unit/test_unwind_table.c), whatever its SP deltas say, and its signal
 * handler, a top frame for Go, returns there; not where the byte before it
 * ends a call, its code is another's, or its name another's.
 */
static void test_restorer(void)
{
	static const char *const want[] = {
		"0x401000 rsp+8 unchanged cfa-8",
		"0x401001 rsp+16 unchanged cfa-8",
		"0x401005 rsp+48 unchanged cfa-8",
		"0x401035 rsp+16 unchanged cfa-8",
		"0x401036 rsp+8 unchanged cfa-8",
		"0x401037 end",
		"0x40103f signal:*(rsp+160) *(rsp+120) *(rsp+168)",
		"0x401100 rsp+8 unchanged undefined",
		"0x401180 end",
	};
	const struct go_code code = { .bytes = text_bytes };
	const char *const names[] = { "runtime.sigreturn__sigaction", "runtime.sigreturn.abi0",
				      "runtime.sigreturn" };
	struct unwind_table t;
	struct spec s = formats[GO118];
	struct func_spec funcs[3] = { { 0x000, "runtime.sigtramp.abi0" },
				      { 0x040, NULL },
				      { 0x100, "runtime.goexit" } };

	/* Go's flags are read where runtime.goexit has TOPFRAME */
	s.funcs = funcs;
	s.flags[0] = s.flags[2] = GOPCLNTAB_TOPFRAME | GOPCLNTAB_ASM;
	restorer_text(0x40, true);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		t = (struct unwind_table){ .machine = EM_X86_64 };
		funcs[1].name = names[i];
		CHECK_EQ_INT(add_go_code(&t, &s, &code), 0);
		check_rows(&t, want, ARRAY_SIZE(want));
		CHECK_EQ_INT(t.nr_go_funcs, 3);
		free(t.rows);
	}

	/* its SP deltas where the byte before it may end a call, or its code or name differ */
	for (int k = 0; k < 4; k++) {
		restorer_text(0x40, k != 0);
		if (k == 1)
			text[0x40 + 8] = 0x06; /* syscall's second byte: another instruction */
		funcs[1].name = k == 2 ? "runtime.sigreturnx" : "runtime.sigreturn__sigaction";
		t = (struct unwind_table){ .machine = EM_X86_64 };
		CHECK_EQ_INT(add_go_code(&t, &s, k == 3 ? NULL : &code), 0);
		CHECK(t.nr_rows > 6);
		for (size_t j = 0; j < t.nr_rows; j++)
			CHECK(t.rows[j].cfa != UNW_CFA_SIGNAL);
		/* the handler stays a top frame: nothing to return to */
		CHECK(t.nr_rows && t.rows[0].ra == UNW_RA_UNDEFINED);
		free(t.rows);
	}
}

/*
 * CFA = rsp + delta + 8, RA at CFA-8, an end after each function's last
 * run; goexit's rows end the walk, mcall's are unsupported (it switches
 * stacks), a run whose delta is below 0 (a popped return address) too.
 */
static void test_rows(void)
{
	static const struct run_spec runs[MAX_FUNCS][MAX_RUNS] = {
		{ { 1, 0 }, { 4, 8 }, { 0x30, 40 }, { 1, 8 }, { 1, 0 }, { 2, -8 } },
		{ { 0x20, 0 }, { 0x10, 16 } },
		{ { 1, 0 } },
	};
	static const char *const want[] = {
		"0x401000 rsp+8 unchanged cfa-8",
		"0x401001 rsp+16 unchanged cfa-8",
		"0x401005 rsp+48 unchanged cfa-8",
		"0x401035 rsp+16 unchanged cfa-8",
		"0x401036 rsp+8 unchanged cfa-8",
		"0x401037 rsp+0 unchanged unsupported:ra-rule",
		"0x401039 end",
		"0x401040 unsupported:go-sp-write unchanged cfa-8",
		"0x401070 end",
		"0x401100 rsp+8 unchanged undefined",
		"0x401101 end",
	};
	struct unwind_table t = { .machine = EM_X86_64 };
	struct spec s = formats[GO118];

	s.funcs = with_goexit;
	s.runs = runs;
	s.flags[1] = GOPCLNTAB_SPWRITE | GOPCLNTAB_ASM;
	s.flags[2] = GOPCLNTAB_TOPFRAME | GOPCLNTAB_ASM;
	CHECK_EQ_INT(add_go(&t, &s), 0);
	check_rows(&t, want, ARRAY_SIZE(want));
	CHECK_EQ_INT(t.nr_go_funcs, 3);
	CHECK_EQ_INT(t.nr_go_sp_write, 1);
	CHECK_EQ_INT(t.unsupported[UNW_UNSUP_GO_SP_WRITE], 1);
	CHECK_EQ_INT(t.unsupported[UNW_UNSUP_RA_RULE], 1);
	CHECK(t.sources & TABLE_SRC_GOPCLNTAB);
	free(t.rows);

	/* Go's entry point, which the kernel starts, is a top frame whatever its flags */
	t = (struct unwind_table){ .machine = EM_X86_64 };
	s.funcs = (const struct func_spec[]){ { 0x000, "_rt0_amd64_linux" },
					      { 0x040, "_rt0_amd64" },
					      { 0x100, "runtime.goexit" } };
	s.flags[1] = 0;
	CHECK_EQ_INT(add_go(&t, &s), 0);
	CHECK(t.nr_rows > 8 && t.rows[0].ra == UNW_RA_UNDEFINED &&
	      t.rows[7].ra == UNW_RA_UNDEFINED);
	free(t.rows);

	/* aarch64 is not read: its rows would need the link register's rules */
	t = (struct unwind_table){ .machine = EM_AARCH64 };
	CHECK_EQ_INT(add_go(&t, &s), 0);
	CHECK_EQ_INT(t.nr_rows, 0);
	CHECK_EQ_INT(t.nr_go_funcs, 0);
}

/*
 * Over rows of CFI: Go's where its functions' deltas hold, the CFI's in the
 * gaps they leave (padding, a refused function) and outside Go's text.
 */
static void test_rows_over_cfi(void)
{
	static const struct run_spec runs[MAX_FUNCS][MAX_RUNS] = {
		{ { 1, 0 }, { 0x10, 8 } },
		{ { 1, 8 } }, /* refused: pushed at the entry */
		{ { 0x80, 0 } },
	};
	static const char *const want[] = {
		/* the CFI's rule at TEXT is Go's: one row */
		"0x400f00 rsp+8 unchanged cfa-8", "0x401001 rsp+16 unchanged cfa-8",
		"0x401011 rbp+16 cfa-16 cfa-8",	  "0x401100 rsp+8 unchanged cfa-8",
		"0x401180 rbp+16 cfa-16 cfa-8",	  "0x401200 end",
	};
	struct unwind_table t = { .machine = EM_X86_64, .base = TEXT - 0x100 };
	struct spec s = formats[GO118];
	struct table_row *cfi = calloc(4, sizeof(*cfi));

	CHECK(cfi != NULL);
	if (!cfi)
		return;
	/* CFI: rsp+8 from TEXT - 0x100, rbp+16 from TEXT + 0x10 to TEXT + 0x200 */
	cfi[0] = (struct table_row){ .pc = 0, .cfa = UNW_CFA_SP, .cfa_off = 8 };
	cfi[1] = (struct table_row){ .pc = 0x110, .cfa = UNW_CFA_FP, .cfa_off = 16 };
	cfi[1].fp = UNW_FP_AT_CFA;
	cfi[1].fp_off = -16;
	cfi[2] = (struct table_row){ .pc = 0x300, .cfa = UNW_CFA_END };
	t.rows = cfi;
	t.nr_rows = 3;
	t.sources = TABLE_SRC_EH_FRAME;
	s.runs = runs;
	CHECK_EQ_INT(add_go(&t, &s), 0);
	check_rows(&t, want, ARRAY_SIZE(want));
	CHECK_EQ_INT(t.nr_go_funcs, 2);
	CHECK_EQ_INT(t.nr_go_refused[GOPCLNTAB_BAD_ENTRY_DELTA], 1);
	CHECK_EQ_INT(t.sources, TABLE_SRC_EH_FRAME | TABLE_SRC_GOPCLNTAB);
	free(t.rows);
}

/* ELF files: a minimal ELF64 with the given sections, no program headers. */

struct elf_sec {
	const char *name;
	uint32_t type;
	uint64_t flags;
	uint64_t addr;
	const void *data;
	size_t size;
	uint32_t link;
	size_t entsize;
};

#define ELF_MAX 16384
#define ELF_SECS 8

static size_t build_elf(uint8_t *buf, const struct elf_sec *secs, size_t n)
{
	Elf64_Shdr sh[ELF_SECS + 2] = { 0 };
	Elf64_Ehdr eh = { 0 };
	char shstr[256] = "";
	size_t at = sizeof(eh), nstr = 1;

	memset(buf, 0, ELF_MAX);
	for (size_t i = 0; i < n; i++) {
		at = align8(at);
		memcpy(buf + at, secs[i].data, secs[i].size);
		sh[i + 1] = (Elf64_Shdr){ .sh_name = nstr,
					  .sh_type = secs[i].type,
					  .sh_flags = secs[i].flags,
					  .sh_addr = secs[i].addr,
					  .sh_offset = at,
					  .sh_size = secs[i].size,
					  .sh_link = secs[i].link,
					  .sh_addralign = 8,
					  .sh_entsize = secs[i].entsize };
		strcpy(shstr + nstr, secs[i].name);
		nstr += strlen(secs[i].name) + 1;
		at += secs[i].size;
	}
	sh[n + 1] = (Elf64_Shdr){ .sh_name = nstr, .sh_type = SHT_STRTAB, .sh_offset = at };
	strcpy(shstr + nstr, ".shstrtab");
	nstr += strlen(".shstrtab") + 1;
	sh[n + 1].sh_size = nstr;
	memcpy(buf + at, shstr, nstr);
	at = align8(at + nstr);
	memcpy(buf + at, sh, (n + 2) * sizeof(sh[0]));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_shoff = at;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = n + 2;
	eh.e_shstrndx = n + 1;
	memcpy(buf, &eh, sizeof(eh));
	return at + (n + 2) * sizeof(sh[0]);
}

static const uint8_t code[0x300];

static struct elf_sec text_sec(uint64_t addr, size_t size)
{
	return (struct elf_sec){ .name = ".text",
				 .type = SHT_PROGBITS,
				 .flags = SHF_ALLOC | SHF_EXECINSTR,
				 .addr = addr,
				 .data = code,
				 .size = size };
}

static struct elf_sec data_sec(const char *name, const void *data, size_t size)
{
	return (struct elf_sec){ .name = name,
				 .type = SHT_PROGBITS,
				 .flags = SHF_ALLOC,
				 .addr = 0x600000,
				 .data = data,
				 .size = size };
}

/*
 * Opens the ELF file of secs and its Go table: NULL when there is none;
 * else the text start it took is checked.
 */
static bool elf_table(const struct elf_sec *secs, size_t n, uint64_t text_start)
{
	static uint8_t buf[ELF_MAX];
	size_t size = build_elf(buf, secs, n);
	struct elf_file *ef = elf_file__open_mem(buf, size, "go.elf");
	struct gopclntab *g;

	CHECK(ef != NULL);
	if (!ef)
		return false;
	g = gopclntab__open_elf(ef);
	if (g) {
		CHECK_EQ_INT(gopclntab__text_start(g), text_start);
		check_three(g);
	} else {
		CHECK_EQ_INT(errno, ENOENT);
	}
	gopclntab__free(g);
	elf_file__free(ef);
	return g != NULL;
}

static void test_elf_sections(void)
{
	static struct table t;
	static uint8_t relro[2048];
	struct spec s = formats[GO118];
	uint8_t note[4] = { 0 };

	build(&t, &s);
	CHECK(elf_table((struct elf_sec[]){ text_sec(TEXT, 0x200),
					    data_sec(".gopclntab", t.d, t.size) },
			2, TEXT));
	CHECK(elf_table((struct elf_sec[]){ text_sec(TEXT, 0x200),
					    data_sec(".data.rel.ro.gopclntab", t.d, t.size) },
			2, TEXT));
	/* No .text, or functions outside it: not used. */
	CHECK(!elf_table((struct elf_sec[]){ data_sec(".gopclntab", t.d, t.size) }, 1, 0));
	CHECK(!elf_table((struct elf_sec[]){ text_sec(TEXT, 0x17f),
					     data_sec(".gopclntab", t.d, t.size) },
			 2, 0));
	build(&t, &formats[GO116]);
	CHECK(!elf_table((struct elf_sec[]){ text_sec(0x500000, 0x200),
					     data_sec(".gopclntab", t.d, t.size) },
			 2, 0));
	build(&t, &s);
	/* Merged into .data.rel.ro by an external linker, in a Go file only. */
	memcpy(relro + 0x28, t.d, t.size);
	CHECK(elf_table((struct elf_sec[]){ text_sec(TEXT, 0x200),
					    data_sec(".data.rel.ro", relro, 0x28 + t.size),
					    data_sec(".go.buildinfo", note, sizeof(note)) },
			3, TEXT));
	CHECK(elf_table((struct elf_sec[]){ text_sec(TEXT, 0x200),
					    data_sec(".data.rel.ro", relro, 0x28 + t.size),
					    data_sec(".note.go.buildid", note, sizeof(note)) },
			3, TEXT));
	CHECK(!elf_table((struct elf_sec[]){ text_sec(TEXT, 0x200),
					     data_sec(".data.rel.ro", relro, 0x28 + t.size) },
			 2, 0));
	/* A malformed table is no table. */
	t.d[t.record[1]] ^= 1;
	CHECK(!elf_table((struct elf_sec[]){ text_sec(TEXT, 0x200),
					     data_sec(".gopclntab", t.d, t.size) },
			 2, 0));
}

/*
 * The 1.18+ text start: the header's when it puts the functions in .text,
 * even where .text starts earlier (C code linked before Go's); .text's
 * address when the header's is 0 (left for a dynamic relocation).
 */
static void test_elf_text_start(void)
{
	static struct table t;
	struct spec s = formats[GO118];

	build(&t, &s);
	CHECK(elf_table((struct elf_sec[]){ text_sec(TEXT - 0x100, 0x300),
					    data_sec(".gopclntab", t.d, t.size) },
			2, TEXT));
	s.header_text = 0;
	build(&t, &s);
	CHECK(elf_table((struct elf_sec[]){ text_sec(TEXT, 0x200),
					    data_sec(".gopclntab", t.d, t.size) },
			2, TEXT));
	/* One that puts them elsewhere (relocated) gives way to .text's too. */
	s.header_text = 0x7f0000401000ULL;
	build(&t, &s);
	CHECK(elf_table((struct elf_sec[]){ text_sec(TEXT, 0x200),
					    data_sec(".gopclntab", t.d, t.size) },
			2, TEXT));
}

/* The symbolizer: ELF symbols win where they name or hold an address, Go's fill the rest. */

static char tmpdir[] = "/tmp/unwprof-test-gopclntab-XXXXXX";

static const char *write_file(const char *name, const void *data, size_t size)
{
	return test_write_file(tmpdir, name, data, size);
}

static Elf64_Sym func_sym(uint32_t name, uint64_t addr, uint64_t size)
{
	return (Elf64_Sym){ .st_name = name,
			    .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			    .st_shndx = 1,
			    .st_value = addr,
			    .st_size = size };
}

static void check_sym(struct symbolizer *sym, const char *path, uint64_t vaddr, const char *name,
		      uint64_t offset)
{
	struct symbol_info info;

	CHECK_EQ_INT(symbolizer__lookup_file(sym, path, vaddr, &info), 0);
	if (!name) {
		CHECK(info.name == NULL);
		return;
	}
	CHECK_EQ_STR(info.name, name);
	CHECK_EQ_INT(info.offset, offset);
}

static void test_symbolizer(void)
{
	static const char strtab[] = "\0sym_beta\0sym_inner";
	static uint8_t buf[ELF_MAX];
	static struct table t;
	Elf64_Sym syms[3] = { { 0 },
			      func_sym(1, TEXT + 0x40, 0x20),
			      func_sym(10, TEXT + 0x110, 0x10) };
	struct symbolizer *sym;
	const char *path;
	size_t size;

	build(&t, &formats[GO118]);
	size = build_elf(buf,
			 (struct elf_sec[]){ text_sec(TEXT, 0x200),
					     data_sec(".gopclntab", t.d, t.size),
					     { .name = ".symtab",
					       .type = SHT_SYMTAB,
					       .data = syms,
					       .size = sizeof(syms),
					       .link = 4,
					       .entsize = sizeof(Elf64_Sym) },
					     { .name = ".strtab",
					       .type = SHT_STRTAB,
					       .data = strtab,
					       .size = sizeof(strtab) } },
			 4);
	path = write_file("go", buf, size);
	sym = symbolizer__new(&(struct symbolizer_opts){ .debug_dir = tmpdir });
	CHECK(sym != NULL);
	if (!sym)
		return;
	check_sym(sym, path, TEXT, "main.alpha", 0);
	check_sym(sym, path, TEXT + 0x3f, "main.alpha", 0x3f);
	/* The ELF symbol at beta's entry wins, with its own size. */
	check_sym(sym, path, TEXT + 0x50, "sym_beta", 0x10);
	check_sym(sym, path, TEXT + 0x70, NULL, 0);
	/* An ELF symbol inside gamma wins from its start. */
	check_sym(sym, path, TEXT + 0x10f, "runtime.gamma.func1", 0xf);
	check_sym(sym, path, TEXT + 0x118, "sym_inner", 0x8);
	check_sym(sym, path, TEXT + END_OFF, NULL, 0);
	symbolizer__free(sym);
	unlink(path);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_formats);
	RUN(test_text_start);
	RUN(test_empty);
	RUN(test_truncated);
	RUN(test_bad_header);
	RUN(test_huge_count);
	RUN(test_offsets_out_of_bounds);
	RUN(test_inconsistent);
	RUN(test_sp_deltas);
	RUN(test_flags);
	RUN(test_sp_lies);
	RUN(test_rows);
	RUN(test_rows_over_cfi);
	RUN(test_restorer);
	RUN(test_elf_sections);
	RUN(test_elf_text_start);
	RUN(test_symbolizer);
	rmdir(tmpdir);
	return test_summary();
}
