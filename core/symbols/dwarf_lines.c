// SPDX-License-Identifier: GPL-2.0-only
/*
 * Source lines and inline chains from DWARF, read with the DIE reader of
 * core/symbols/dwarf_die.h and the line program decoder of debug_line.h.
 * See dwarf_lines.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf_die.h"
#include "debug_line.h"
#include "dwarf_lines.h"
#include "../elf/elf_file.h"
#include "../util/common.h"
#include "../util/log.h"
#include "../util/radix.h"

#define MAX_SCOPES (1u << 20) /* functions, or inlined calls of one function */
#define MAX_RANGES (1u << 22) /* their address ranges */
#define MAX_ORIGIN_HOPS 8     /* abstract origins and specifications followed for a name */
#define NONE UINT32_MAX

struct range {
	uint64_t lo, hi; /* [lo, hi) */
};

/* A function or a call inlined into one, in tree order. */
struct scope {
	uint32_t first_range, nr_ranges; /* in its tree's ranges */
	uint32_t end;			 /* the index after its subtree */
	uint32_t parent;		 /* NONE for the root of a tree */
	uint32_t call_file, call_line;	 /* where it is inlined: 0 for a function */
	uint32_t decl_file, decl_line;
	uint64_t die; /* offset of its DIE */
	const char *name;
	/* A function of the unit's top level: its own tree, read on the first lookup in it. */
	struct tree *inner;
	bool named; /* name and decl read */
	bool inner_failed;
};

struct tree {
	struct scope *scopes;
	size_t nr_scopes, cap_scopes;
	struct range *ranges; /* of the scopes; none in a function's tree, which has segments */
	size_t nr_ranges, cap_ranges;
	/*
	 * A function's tree cut at every end of a range: segment k is
	 * [bounds[k], bounds[k + 1]), and owner[k] the innermost scope there
	 * (NONE outside the function), so a lookup is a binary search.
	 */
	uint64_t *bounds;
	uint32_t *owner;
	size_t nr_bounds;
};

struct top_range {
	uint64_t lo, hi;
	uint32_t scope;
};

struct unit {
	struct dwarf_unit *du; /* its header and abbreviations */
	bool loaded, failed;
	bool types_hold_code; /* of a language whose types have functions (not C) */
	uint64_t base;	      /* its DW_AT_low_pc: what DWARF 4 range lists are relative to */
	struct debug_line_table lines; /* its seqs sorted by lo */
	uint32_t *row_keys;	       /* the offset of every ROW_BLOCK-th row (unit_index_rows) */
	char **files;		       /* by file number, each joined on first use (unit_file) */
	struct tree top;	       /* the functions of its top level, without their trees */
	struct top_range *tops;	       /* their ranges, sorted */
	size_t nr_tops;
};

struct unit_range {
	uint64_t lo, hi;
	uint32_t unit;
};

struct dwarf_lines {
	const struct elf_file *ef;
	struct dwarf_sections sec;
	struct elf_section line; /* .debug_line, which the line program decoder reads */
	struct dwarf_unit *dus;	 /* every unit of .debug_info, in section order */
	size_t nr_dus;
	struct unit *units; /* the ones with code: compile, partial and skeleton units */
	size_t nr_units;
	struct unit_range *index; /* sorted by lo */
	size_t nr_index;
	size_t loaded, failures;
	uint64_t read_since_release; /* bytes of units */
	struct tree scratch; /* where a function's tree is read, before it is made to measure */
	uint64_t *sort_tmp;
	size_t cap_sort_tmp;
};

/*
 * Once units of this many bytes of .debug_info have been read, the pages of
 * the DWARF are given back: they are not needed until a function's tree is
 * (a few pages) or another unit is, and the sections of a DWARF-rich library
 * are tens of megabytes. Giving them back after each unit made every unit
 * fault in again the pages of strings and abbreviations it shares with the
 * others.
 */
#define RELEASE_AFTER (4u << 20)

static void release_sections(struct dwarf_lines *dl)
{
	const struct elf_section *all[] = {
		&dl->sec.info,	   &dl->sec.abbrev,	 &dl->sec.str,
		&dl->sec.line_str, &dl->sec.str_offsets, &dl->sec.addr,
		&dl->sec.ranges,   &dl->sec.rnglists,	 &dl->line,
	};

	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		elf_file__release(dl->ef, all[i]->data, all[i]->size);
	dl->read_since_release = 0;
}

static void unit_read(struct dwarf_lines *dl, const struct dwarf_unit *du)
{
	dl->read_since_release += du->end - du->off;
	if (dl->read_since_release >= RELEASE_AFTER)
		release_sections(dl);
}

/* A DIE's values by slot: 0 or NULL when it has none (or one that cannot be read). */
static uint64_t die_udata(const struct dwarf_die *d, enum dwarf_slot slot)
{
	uint64_t v = 0;

	if (dwarf_die__has(d, slot) && !dwarf_die__value_udata(&d->v[slot], &v))
		v = 0;
	return v;
}

static uint64_t die_ref(const struct dwarf_unit *u, const struct dwarf_die *d, enum dwarf_slot slot)
{
	uint64_t off = 0;

	if (dwarf_die__has(d, slot) && !dwarf_die__value_ref(u, &d->v[slot], &off))
		off = 0;
	return off;
}

static const char *die_str(const struct dwarf_lines *dl, const struct dwarf_unit *u,
			   const struct dwarf_die *d, enum dwarf_slot slot)
{
	return dwarf_die__has(d, slot) ? dwarf_die__value_str(&dl->sec, u, &d->v[slot]) : NULL;
}

/* The unit's DW_AT_low_pc: what range lists are relative to. */
static uint64_t unit_base(const struct dwarf_lines *dl, const struct dwarf_unit *u,
			  const struct dwarf_die *cu)
{
	uint64_t base = 0;

	if (dwarf_die__has(cu, DS_LOW_PC) &&
	    !dwarf_die__value_addr(&dl->sec, u, &cu->v[DS_LOW_PC], &base))
		base = 0;
	return base;
}

/* The unit index, read when the file is opened */

struct index_ctx {
	struct dwarf_lines *dl;
	uint32_t unit;
	size_t cap;
};

static int index_add(void *ctx, uint64_t lo, uint64_t hi)
{
	struct index_ctx *ic = ctx;
	struct dwarf_lines *dl = ic->dl;

	if (grow((void **)&dl->index, &ic->cap, dl->nr_index, sizeof(*dl->index)))
		return -ENOMEM;
	dl->index[dl->nr_index++] = (struct unit_range){ lo, hi, ic->unit };
	return 0;
}

static int unit_range_cmp(const void *pa, const void *pb)
{
	const struct unit_range *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->unit < b->unit ? -1 : a->unit > b->unit;
}

static bool unit_has_code(const struct dwarf_unit *u)
{
	return u->type == DW_UT_compile || u->type == DW_UT_partial || u->type == DW_UT_skeleton;
}

/* A unit whose DIE cannot be read is left out; only memory is an error. */
static int index_units(struct dwarf_lines *dl)
{
	struct index_ctx ic = { .dl = dl };
	size_t cap = 0;
	int ret;

	for (size_t i = 0; i < dl->nr_dus; i++) {
		struct dwarf_unit *du = &dl->dus[i];
		struct dwarf_die cu;

		if (!dwarf_die__read_unit_bases(&dl->sec, du, &cu) || !unit_has_code(du))
			continue;
		if (grow((void **)&dl->units, &cap, dl->nr_units, sizeof(*dl->units)))
			return -ENOMEM;
		ic.unit = (uint32_t)dl->nr_units;
		dl->units[dl->nr_units++] = (struct unit){ .du = du };
		ret = dwarf_die__ranges(&dl->sec, du, &cu, unit_base(dl, du, &cu), index_add, &ic);
		if (ret == -ENOMEM)
			return ret;
	}
	if (dl->nr_index)
		qsort(dl->index, dl->nr_index, sizeof(*dl->index), unit_range_cmp);
	return 0;
}

/* One unit's line table and tree, read on first use */

static int sequence_cmp(const void *pa, const void *pb)
{
	const struct debug_line_seq *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/*
 * A row is found by a binary search over every ROW_BLOCK-th row's offset,
 * then one over ROW_BLOCK rows: a large unit's rows are megabytes, and a
 * search over all of them missed the cache at almost every step.
 */
#define ROW_BLOCK 16

static int unit_index_rows(struct unit *u)
{
	size_t n = (u->lines.nr_rows + ROW_BLOCK - 1) / ROW_BLOCK;

	u->row_keys = malloc((n ? n : 1) * sizeof(*u->row_keys));
	if (!u->row_keys)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		u->row_keys[i] = u->lines.rows[i * ROW_BLOCK].off;
	return 0;
}

/* The first of the keys [lo, hi) past off. */
static size_t row_keys_past(const uint32_t *keys, size_t lo, size_t hi, uint32_t off)
{
	size_t len = hi - lo;

	if (!len)
		return lo;
	while (len > 1) {
		size_t half = len / 2;

		lo = keys[lo + half] <= off ? lo + half : lo;
		len -= half;
	}
	return lo + (keys[lo] <= off);
}

/* The last row of sq at or before offset off: NULL when its first row is past it. */
static const struct debug_line_row *sequence_row(const struct unit *u,
						 const struct debug_line_seq *sq, uint32_t off)
{
	size_t from = sq->first, to = (size_t)sq->first + sq->nr, i;
	/* the blocks that start inside the sequence */
	size_t b_lo = (from + ROW_BLOCK - 1) / ROW_BLOCK, b_hi = (to - 1) / ROW_BLOCK + 1;

	if (b_lo < b_hi) {
		size_t b = row_keys_past(u->row_keys, b_lo, b_hi, off);

		if (b > b_lo)
			from = (b - 1) * ROW_BLOCK;
		if (b < b_hi)
			to = b * ROW_BLOCK;
	}
	i = SORTED_PAST(u->lines.rows, from, to, off, off);
	return i > sq->first ? &u->lines.rows[i - 1] : NULL;
}

/* The unit's line table, through core/symbols/debug_line.h; none is not an error. */
static int unit_read_lines(struct dwarf_lines *dl, struct unit *u, const struct dwarf_die *cu)
{
	struct debug_line_table t;
	uint64_t stmt_list;
	int err;

	if (!dwarf_die__has(cu, DS_STMT_LIST) ||
	    !dwarf_die__value_udata(&cu->v[DS_STMT_LIST], &stmt_list))
		return 0;
	err = debug_line__read(&dl->line, &dl->sec.line_str, &dl->sec.str, stmt_list,
			       die_str(dl, u->du, cu, DS_COMP_DIR), &t);
	if (err == -ENOMEM)
		return err;
	if (err) {
		pr_debug("%s: line table at 0x%llx not read: %s", elf_file__path(dl->ef),
			 (unsigned long long)stmt_list, strerror(-err));
		return 0; /* functions without lines */
	}
	if (t.nr_seqs)
		qsort(t.seqs, t.nr_seqs, sizeof(*t.seqs), sequence_cmp);
	u->lines = t;
	u->files = calloc(t.nr_files ? t.nr_files : 1, sizeof(*u->files));
	if (!u->files)
		return -ENOMEM;
	return unit_index_rows(u);
}

struct scope_ctx {
	struct tree *t;
	uint32_t scope;
};

static int scope_add_range(void *ctx, uint64_t lo, uint64_t hi)
{
	struct scope_ctx *sc = ctx;
	struct tree *t = sc->t;

	if (t->nr_ranges == t->cap_ranges) {
		size_t cap = t->cap_ranges ? t->cap_ranges * 2 : 16;
		struct range *r;

		if (cap > MAX_RANGES)
			return -E2BIG;
		r = reallocarray(t->ranges, cap, sizeof(*r));
		if (!r)
			return -ENOMEM;
		t->ranges = r;
		t->cap_ranges = cap;
	}
	t->ranges[t->nr_ranges++] = (struct range){ lo, hi };
	t->scopes[sc->scope].nr_ranges++;
	return 0;
}

static int scope_push(struct tree *t, uint32_t parent, uint32_t *id)
{
	if (t->nr_scopes == t->cap_scopes) {
		size_t cap = t->cap_scopes ? t->cap_scopes * 2 : 16;
		struct scope *s;

		if (cap > MAX_SCOPES)
			return -E2BIG;
		s = reallocarray(t->scopes, cap, sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->scopes = s;
		t->cap_scopes = cap;
	}
	*id = (uint32_t)t->nr_scopes++;
	memset(&t->scopes[*id], 0, sizeof(t->scopes[*id]));
	t->scopes[*id].parent = parent;
	t->scopes[*id].first_range = (uint32_t)t->nr_ranges;
	return 0;
}

/* A function's tree, one block (tree_from_scratch). */
static void tree_free(struct tree *t)
{
	free(t);
}

/* Whether a DIE of tag may hold functions or inlined calls among its children. */
static bool tag_holds_code(const struct unit *u, uint16_t tag)
{
	switch (tag) {
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		return true;
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return u->types_hold_code;
	default:
		return false;
	}
}

/*
 * A C unit's structures hold no functions, and walking their members was
 * most of the walk of a unit that includes a large header (an interpreter's C API).
 * Languages not known here are taken to have functions in their types.
 */
static bool language_has_methods(const struct dwarf_die *cu)
{
	uint64_t lang;

	if (!dwarf_die__has(cu, DS_LANGUAGE) || !dwarf_die__value_udata(&cu->v[DS_LANGUAGE], &lang))
		return true;
	return lang != DW_LANG_C89 && lang != DW_LANG_C && lang != DW_LANG_C99 &&
	       lang != DW_LANG_C11 && lang != 0x002c /* DW_LANG_C17 */;
}

static int walk_children(struct dwarf_lines *dl, const struct unit *u, struct tree *t,
			 struct dwarf_reader *r, uint32_t parent, int depth, bool descend);

/*
 * A subprogram or an inlined call d, whose attributes r has just read: a
 * scope of t when it has code, then (when descend) what it holds. r ends
 * past d's children.
 */
static int walk_scope(struct dwarf_lines *dl, const struct unit *u, struct tree *t,
		      struct dwarf_reader *r, const struct dwarf_die *d, uint32_t parent, int depth,
		      bool inlined, bool descend)
{
	struct scope_ctx sc = { .t = t };
	int ret;

	if (!dwarf_die__has_code(d)) {
		/* a declaration, or code the compiler dropped */
		dwarf_die__skip_children(r, d);
		return r->error;
	}
	ret = scope_push(t, parent, &sc.scope);
	if (!ret)
		ret = dwarf_die__ranges(&dl->sec, u->du, d, u->base, scope_add_range, &sc);
	if (ret)
		return ret;
	t->scopes[sc.scope].die = d->off;
	if (inlined) {
		uint64_t file = die_udata(d, DS_CALL_FILE), line = die_udata(d, DS_CALL_LINE);

		t->scopes[sc.scope].call_file = (uint32_t)(file > UINT32_MAX ? 0 : file);
		t->scopes[sc.scope].call_line = (uint32_t)(line > UINT32_MAX ? 0 : line);
	}
	if (descend && d->children) {
		ret = walk_children(dl, u, t, r, sc.scope, depth + 1, true);
	} else {
		dwarf_die__skip_children(r, d);
		ret = r->error;
	}
	t->scopes[sc.scope].end = (uint32_t)t->nr_scopes;
	return ret;
}

/*
 * The scopes among the DIEs from r to the null entry that ends them.
 * Without descend (the unit's top level), functions are taken without what
 * they hold, and only containers (namespaces, classes) are looked into.
 * Everything else is passed over without reading its attributes.
 */
static int walk_children(struct dwarf_lines *dl, const struct unit *u, struct tree *t,
			 struct dwarf_reader *r, uint32_t parent, int depth, bool descend)
{
	if (depth > DWARF_LINES_MAX_DEPTH)
		return -ELOOP;
	for (;;) {
		const struct dwarf_abbrev *ab;
		struct dwarf_die d;
		uint64_t off;
		int ret = 0;

		ab = dwarf_die__next(r, &off);
		if (!ab)
			return r->error;
		if (!ab->tag)
			return 0;
		if (ab->tag == DW_TAG_subprogram || ab->tag == DW_TAG_inlined_subroutine) {
			dwarf_die__attrs(r, ab, off, &d);
			ret = r->error ? r->error :
					 walk_scope(dl, u, t, r, &d, parent, depth,
						    ab->tag == DW_TAG_inlined_subroutine, descend);
		} else if (ab->children && tag_holds_code(u, ab->tag)) {
			dwarf_die__skip_attrs(r, ab);
			ret = r->error ? r->error :
					 walk_children(dl, u, t, r, parent, depth + 1, descend);
		} else {
			dwarf_die__skip(r, ab, off);
			ret = r->error;
		}
		if (ret)
			return ret;
	}
}

static int top_range_cmp(const void *pa, const void *pb)
{
	const struct top_range *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->scope < b->scope ? -1 : a->scope > b->scope;
}

static int unit_index_tops(struct unit *u)
{
	const struct tree *t = &u->top;

	u->tops = calloc(t->nr_ranges ? t->nr_ranges : 1, sizeof(*u->tops));
	if (!u->tops)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr_scopes; i++) {
		const struct scope *s = &t->scopes[i];

		for (uint32_t r = 0; r < s->nr_ranges; r++) {
			const struct range *rg = &t->ranges[s->first_range + r];

			u->tops[u->nr_tops++] = (struct top_range){ rg->lo, rg->hi, (uint32_t)i };
		}
	}
	qsort(u->tops, u->nr_tops, sizeof(*u->tops), top_range_cmp);
	return 0;
}

static void unit_drop(struct unit *u)
{
	for (size_t i = 0; i < u->top.nr_scopes; i++)
		tree_free(u->top.scopes[i].inner);
	for (size_t i = 0; u->files && i < u->lines.nr_files; i++)
		free(u->files[i]);
	free(u->files);
	u->files = NULL;
	debug_line__free(&u->lines);
	free(u->row_keys);
	u->row_keys = NULL;
	free(u->top.scopes);
	free(u->top.ranges);
	free(u->tops);
	u->tops = NULL;
	u->nr_tops = 0;
	u->top = (struct tree){ 0 };
}

/* A reader past the attributes of the DIE at off, which it read into *d; false when it cannot. */
static bool reader_at_die(struct dwarf_lines *dl, struct dwarf_unit *du, uint64_t off,
			  struct dwarf_reader *r, struct dwarf_die *d)
{
	const struct dwarf_abbrev *ab;

	dwarf_die__reader_init(r, &dl->sec, du, off);
	ab = dwarf_die__next(r, &off);
	if (!ab || !ab->tag)
		return false;
	dwarf_die__attrs(r, ab, off, d);
	return !r->error;
}

static void unit_load(struct dwarf_lines *dl, struct unit *u)
{
	struct dwarf_reader r;
	struct dwarf_die cu;
	int ret = -EINVAL;

	u->loaded = true;
	dl->loaded++;
	if (reader_at_die(dl, u->du, u->du->die, &r, &cu)) {
		u->base = unit_base(dl, u->du, &cu);
		u->types_hold_code = language_has_methods(&cu);
		ret = unit_read_lines(dl, u, &cu);
		if (!ret && cu.children)
			ret = walk_children(dl, u, &u->top, &r, NONE, 0, false);
		if (!ret)
			ret = unit_index_tops(u);
	}
	unit_read(dl, u->du);
	if (ret) {
		pr_debug("%s: DWARF unit at 0x%llx not read: %s", elf_file__path(dl->ef),
			 (unsigned long long)u->du->off, strerror(-ret));
		unit_drop(u);
		u->failed = true;
		dl->failures++;
	}
}

/* The first of t's bounds past vaddr; without a branch, as SORTED_PAST. */
static size_t bounds_past(const struct tree *t, uint64_t vaddr)
{
	size_t base = 0, len = t->nr_bounds;

	if (!len)
		return 0;
	while (len > 1) {
		size_t half = len / 2;

		base = t->bounds[base + half] <= vaddr ? base + half : base;
		len -= half;
	}
	return base + (t->bounds[base] <= vaddr);
}

/*
 * The tree of a function from w, where it was read: its scopes, and the
 * function cut into segments, each owned by its innermost scope (w's ranges
 * are not kept). Scopes come in tree order, parents first, and a scope takes
 * a segment only from its parent: where two siblings overlap (broken DWARF),
 * the first keeps it, as a walk down from the root that takes the first
 * child covering an address would find.
 */
_Static_assert(sizeof(struct tree) % 8 == 0 && sizeof(struct scope) % 8 == 0,
	       "the parts of a tree's block are aligned");

static struct tree *tree_from_scratch(struct dwarf_lines *dl, const struct tree *w)
{
	size_t n = 0, max = w->nr_ranges * 2 + 1;
	struct tree *t;

	if (max > dl->cap_sort_tmp) {
		uint64_t *tmp = reallocarray(dl->sort_tmp, max, sizeof(*tmp));

		if (!tmp)
			return NULL;
		dl->sort_tmp = tmp;
		dl->cap_sort_tmp = max;
	}
	/* one block: a tree, its scopes, bounds and owners (scopes and bounds are 8-byte aligned) */
	t = calloc(1, sizeof(*t) + w->nr_scopes * sizeof(*t->scopes) +
			      max * (sizeof(*t->bounds) + sizeof(*t->owner)));
	if (!t)
		return NULL;
	t->scopes = (struct scope *)(t + 1);
	t->bounds = (uint64_t *)(t->scopes + w->nr_scopes);
	t->owner = (uint32_t *)(t->bounds + max);
	memcpy(t->scopes, w->scopes, w->nr_scopes * sizeof(*t->scopes));
	t->nr_scopes = w->nr_scopes;
	for (size_t i = 0; i < w->nr_ranges; i++) {
		t->bounds[n++] = w->ranges[i].lo;
		t->bounds[n++] = w->ranges[i].hi;
	}
	/* a function has thousands of bounds: qsort()'s calls of a comparison were most of the time */
	radix_sort_u64(t->bounds, dl->sort_tmp, n);
	for (size_t i = 0; i < n; i++)
		if (!t->nr_bounds || t->bounds[t->nr_bounds - 1] != t->bounds[i])
			t->bounds[t->nr_bounds++] = t->bounds[i];
	for (size_t k = 0; k < t->nr_bounds; k++)
		t->owner[k] = NONE;
	for (uint32_t s = 0; s < w->nr_scopes; s++) {
		const struct scope *sc = &w->scopes[s];

		for (uint32_t r = 0; r < sc->nr_ranges; r++) {
			const struct range *rg = &w->ranges[sc->first_range + r];
			size_t k = bounds_past(t, rg->lo) - 1;

			for (; k + 1 < t->nr_bounds && t->bounds[k] < rg->hi; k++)
				if (t->owner[k] == sc->parent)
					t->owner[k] = s;
		}
	}
	return t;
}

/* The tree of top function s, read on first use; NULL when it cannot be read. */
static struct tree *scope_inner(struct dwarf_lines *dl, const struct unit *u, struct scope *s)
{
	struct tree *w = &dl->scratch;
	struct dwarf_reader r;
	struct dwarf_die d;
	int ret = -EINVAL;

	if (s->inner || s->inner_failed)
		return s->inner;
	w->nr_scopes = w->nr_ranges = 0;
	if (reader_at_die(dl, u->du, s->die, &r, &d))
		ret = walk_scope(dl, u, w, &r, &d, NONE, 0, false, true);
	if (!ret && !w->nr_scopes)
		ret = -EINVAL;
	if (!ret) {
		s->inner = tree_from_scratch(dl, w);
		ret = s->inner ? 0 : -ENOMEM;
	}
	if (ret) {
		pr_debug("%s: DWARF function at 0x%llx not read: %s", elf_file__path(dl->ef),
			 (unsigned long long)s->die, strerror(-ret));
		s->inner_failed = true;
		dl->failures++;
		return NULL;
	}
	return s->inner;
}

/* Lookups */

/* The full name of a file of u, NULL when unknown; it stays as long as u is loaded. */
static const char *unit_file(struct unit *u, uint64_t fileno)
{
	if (fileno >= u->lines.nr_files)
		return NULL;
	if (!u->files[fileno])
		u->files[fileno] = debug_line__file(&u->lines, fileno);
	return u->files[fileno];
}

static bool unit_line(struct unit *u, uint64_t vaddr, const char **file, uint32_t *line)
{
	size_t lo = SORTED_PAST(u->lines.seqs, 0, u->lines.nr_seqs, lo, vaddr);
	const struct debug_line_seq *sq = NULL;
	const struct debug_line_row *row;

	/* sequences overlap only when code was folded or dropped: look a little further back */
	for (size_t i = lo, seen = 0; i > 0 && seen < 16 && !sq; i--, seen++)
		if (vaddr < u->lines.seqs[i - 1].hi)
			sq = &u->lines.seqs[i - 1];
	if (!sq)
		return false;
	/* the last row at or before vaddr (debug_line.c keeps one row an address) */
	row = sequence_row(u, sq, (uint32_t)(vaddr - sq->lo));
	if (!row)
		return false;
	*file = unit_file(u, row->file);
	*line = row->line;
	return true;
}

static uint32_t top_scope(const struct unit *u, uint64_t vaddr)
{
	size_t lo = SORTED_PAST(u->tops, 0, u->nr_tops, lo, vaddr);

	/* Top functions do not overlap in sane DWARF; look a little further back in case. */
	for (size_t i = lo, seen = 0; i > 0 && seen < 16; i--, seen++)
		if (vaddr < u->tops[i - 1].hi)
			return u->tops[i - 1].scope;
	return NONE;
}

/* The innermost scope of t at vaddr. */
static uint32_t innermost_scope(const struct tree *t, uint64_t vaddr)
{
	size_t k = bounds_past(t, vaddr);

	return k && k < t->nr_bounds ? t->owner[k - 1] : NONE;
}

/* Reads a scope's name and declaration, through its abstract origin and specification. */
static void scope_name(struct dwarf_lines *dl, struct scope *s)
{
	uint64_t off = s->die;

	s->named = true;
	for (int hop = 0; off && hop < MAX_ORIGIN_HOPS; hop++) {
		struct dwarf_unit *du = dwarf_die__find_unit(dl->dus, dl->nr_dus, off);
		const char *linkage_name;
		uint64_t decl_line;
		struct dwarf_die d;

		if (!du || !dwarf_die__read(&dl->sec, du, off, &d))
			return;
		linkage_name = die_str(dl, du, &d, DS_LINKAGE_NAME);
		/* a linkage name found later is still preferred */
		if (linkage_name)
			s->name = linkage_name;
		else if (!s->name)
			s->name = die_str(dl, du, &d, DS_NAME);
		decl_line = die_udata(&d, DS_DECL_LINE);
		if (!s->decl_line && decl_line <= UINT32_MAX) {
			uint64_t decl_file = die_udata(&d, DS_DECL_FILE);

			s->decl_line = (uint32_t)decl_line;
			s->decl_file = (uint32_t)(decl_file > UINT32_MAX ? 0 : decl_file);
		}
		if (s->name && linkage_name && s->decl_line)
			return;
		off = die_ref(du, &d, DS_ABSTRACT_ORIGIN);
		if (!off)
			off = die_ref(du, &d, DS_SPECIFICATION);
	}
}

static struct unit *unit_at(struct dwarf_lines *dl, uint64_t vaddr)
{
	size_t lo = SORTED_PAST(dl->index, 0, dl->nr_index, lo, vaddr);

	for (size_t i = lo, seen = 0; i > 0 && seen < 16; i--, seen++)
		if (vaddr < dl->index[i - 1].hi)
			return &dl->units[dl->index[i - 1].unit];
	return NULL;
}

size_t dwarf_lines__lookup(struct dwarf_lines *dl, uint64_t vaddr, struct dwarf_frame *frames,
			   size_t max)
{
	const char *file = NULL;
	struct tree *t = NULL;
	struct unit *u;
	uint32_t line = 0, top, s = NONE;
	size_t n = 0;

	if (!dl || !max)
		return 0;
	u = unit_at(dl, vaddr);
	if (!u)
		return 0;
	if (!u->loaded)
		unit_load(dl, u);
	if (u->failed)
		return 0;
	if (!unit_line(u, vaddr, &file, &line))
		file = NULL;
	top = top_scope(u, vaddr);
	if (top != NONE)
		t = scope_inner(dl, u, &u->top.scopes[top]);
	if (t)
		s = innermost_scope(t, vaddr);
	if (s == NONE) {
		if (!file)
			return 0;
		frames[0] = (struct dwarf_frame){ .file = file, .line = line };
		return 1;
	}
	while (s != NONE && n < max) {
		struct scope *sc = &t->scopes[s];

		if (!sc->named)
			scope_name(dl, sc);
		frames[n++] = (struct dwarf_frame){
			.name = sc->name,
			.file = file,
			.line = line,
			.decl_file = unit_file(u, sc->decl_file),
			.decl_line = sc->decl_line,
		};
		file = unit_file(u, sc->call_file);
		line = sc->call_line;
		s = sc->parent;
	}
	return n;
}

/* Lifecycle */

/* The section named name of ef into *sec; one absent or empty stays of size 0. */
static void find_section(const struct elf_file *ef, const char *name, struct elf_section *sec)
{
	if (elf_file__section(ef, name, sec))
		*sec = (struct elf_section){ 0 };
}

struct dwarf_lines *dwarf_lines__open(const struct elf_file *ef)
{
	struct dwarf_lines *dl = calloc(1, sizeof(*dl));
	int ret;

	if (!dl)
		return NULL;
	dl->ef = ef;
	find_section(ef, ".debug_info", &dl->sec.info);
	find_section(ef, ".debug_abbrev", &dl->sec.abbrev);
	find_section(ef, ".debug_str", &dl->sec.str);
	find_section(ef, ".debug_line_str", &dl->sec.line_str);
	find_section(ef, ".debug_str_offsets", &dl->sec.str_offsets);
	find_section(ef, ".debug_addr", &dl->sec.addr);
	find_section(ef, ".debug_ranges", &dl->sec.ranges);
	find_section(ef, ".debug_rnglists", &dl->sec.rnglists);
	find_section(ef, ".debug_line", &dl->line);
	if (!dl->sec.info.size || !dl->line.size) {
		free(dl);
		errno = ENOENT;
		return NULL;
	}
	ret = dwarf_die__read_units(&dl->sec, &dl->dus, &dl->nr_dus);
	if (!ret && !dl->nr_dus)
		ret = -EINVAL;
	if (!ret)
		ret = index_units(dl);
	release_sections(dl);
	if (ret) {
		pr_debug("%s: DWARF not read: %s", elf_file__path(ef), strerror(-ret));
		dwarf_lines__free(dl);
		errno = -ret;
		return NULL;
	}
	pr_debug("%s: %zu DWARF units, %zu address ranges", elf_file__path(ef), dl->nr_units,
		 dl->nr_index);
	return dl;
}

void dwarf_lines__free(struct dwarf_lines *dl)
{
	if (!dl)
		return;
	pr_debug("%s: %zu of %zu DWARF units read, %zu of them not readable",
		 elf_file__path(dl->ef), dl->loaded, dl->nr_units, dl->failures);
	for (size_t i = 0; i < dl->nr_units; i++)
		unit_drop(&dl->units[i]);
	free(dl->units);
	free(dl->index);
	dwarf_die__free_units(dl->dus, dl->nr_dus);
	free(dl->scratch.scopes);
	free(dl->scratch.ranges);
	free(dl->sort_tmp);
	free(dl);
}

size_t dwarf_lines__units_loaded(const struct dwarf_lines *dl)
{
	return dl ? dl->loaded : 0;
}

size_t dwarf_lines__failures(const struct dwarf_lines *dl)
{
	return dl ? dl->failures : 0;
}
