// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit headers, abbreviations and DIEs of .debug_info. See dwarf_die.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf_die.h"
#include "../util/common.h"

#define MAX_ABBREVS (1u << 20)	    /* of one unit */
#define MAX_ABBREV_ATTRS (1u << 22) /* of one unit, all its abbreviations together */
#define SKIP_DEPTH_MAX 256	    /* nesting of children passed over without a sibling */

/* Forms past DWARF 5 that GCC writes for split DWARF and dwz. */
#ifndef DW_FORM_GNU_addr_index
#define DW_FORM_GNU_addr_index 0x1f01
#define DW_FORM_GNU_str_index 0x1f02
#define DW_FORM_GNU_ref_alt 0x1f20
#define DW_FORM_GNU_strp_alt 0x1f21
#endif

static uint8_t slot_of(uint64_t at)
{
	switch (at) {
	case DW_AT_sibling:
		return DS_SIBLING;
	case DW_AT_low_pc:
		return DS_LOW_PC;
	case DW_AT_high_pc:
		return DS_HIGH_PC;
	case DW_AT_ranges:
		return DS_RANGES;
	case DW_AT_name:
		return DS_NAME;
	case DW_AT_linkage_name:
	case DW_AT_MIPS_linkage_name:
		return DS_LINKAGE_NAME;
	case DW_AT_comp_dir:
		return DS_COMP_DIR;
	case DW_AT_stmt_list:
		return DS_STMT_LIST;
	case DW_AT_abstract_origin:
		return DS_ABSTRACT_ORIGIN;
	case DW_AT_specification:
		return DS_SPECIFICATION;
	case DW_AT_call_file:
		return DS_CALL_FILE;
	case DW_AT_call_line:
		return DS_CALL_LINE;
	case DW_AT_decl_file:
		return DS_DECL_FILE;
	case DW_AT_decl_line:
		return DS_DECL_LINE;
	case DW_AT_str_offsets_base:
		return DS_STR_OFFSETS_BASE;
	case DW_AT_addr_base:
	case DW_AT_GNU_addr_base:
		return DS_ADDR_BASE;
	case DW_AT_rnglists_base:
		return DS_RNGLISTS_BASE;
	case DW_AT_language:
		return DS_LANGUAGE;
	default:
		return DS_NONE;
	}
}

/*
 * The bytes a value of form takes in unit u when they do not depend on the
 * value; -1 for the forms of variable size (LEB128, strings, blocks,
 * DW_FORM_indirect) and for the forms not known.
 */
static int form_fixed_size(const struct dwarf_unit *u, uint64_t form)
{
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1:
	case DW_FORM_ref1:
	case DW_FORM_flag:
	case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2:
	case DW_FORM_ref2:
	case DW_FORM_strx2:
	case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3:
	case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4:
	case DW_FORM_ref4:
	case DW_FORM_strx4:
	case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8:
	case DW_FORM_ref8:
	case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return u->addr_size;
	case DW_FORM_ref_addr:
		return u->version <= 2 ? u->addr_size : u->offset_size;
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_sec_offset:
	case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt:
		return u->offset_size;
	default:
		return -1;
	}
}

/* Units */

/*
 * The header of the unit at off: 1 when it can be read, 0 when it cannot but
 * its length holds (the next unit can be), -1 when its length does not.
 */
static int unit_header(const struct dwarf_sections *s, uint64_t off, struct dwarf_unit *u)
{
	struct cursor c = { s->info.data + off, s->info.data + s->info.size, false };
	uint64_t len = get_u(&c, 4);

	memset(u, 0, sizeof(*u));
	u->off = off;
	u->offset_size = 4;
	if (len == 0xffffffff) {
		len = get_u(&c, 8);
		u->offset_size = 8;
	} else if (len >= 0xfffffff0) {
		return -1;
	}
	if (c.bad || len > (uint64_t)(c.end - c.p))
		return -1;
	c.end = c.p + len;
	u->end = (uint64_t)(c.end - s->info.data);
	u->version = (uint16_t)get_u(&c, 2);
	if (u->version < 2 || u->version > 5)
		return 0;
	if (u->version >= 5) {
		u->type = (uint8_t)get_u(&c, 1);
		u->addr_size = (uint8_t)get_u(&c, 1);
		u->abbrev_off = get_u(&c, u->offset_size);
		if (u->type == DW_UT_skeleton || u->type == DW_UT_split_compile)
			skip(&c, 8); /* dwo_id */
		else if (u->type == DW_UT_type || u->type == DW_UT_split_type)
			skip(&c, 8 + u->offset_size); /* signature, type_offset */
	} else {
		u->abbrev_off = get_u(&c, u->offset_size);
		u->addr_size = (uint8_t)get_u(&c, 1);
	}
	if (c.bad || (u->addr_size != 4 && u->addr_size != 8) || u->abbrev_off >= s->abbrev.size)
		return 0;
	u->die = (uint64_t)(c.p - s->info.data);
	u->abbrevs.next = u->abbrev_off;
	/* what the bases are when the unit DIE does not say (producers before DWARF 5 was final) */
	u->str_offsets_base = u->offset_size == 8 ? 16 : 8;
	u->addr_base = 8;
	return 1;
}

int dwarf_die__read_units(const struct dwarf_sections *s, struct dwarf_unit **units, size_t *nr)
{
	size_t cap = 0;
	uint64_t off = 0;

	*units = NULL;
	*nr = 0;
	while (off < s->info.size) {
		struct dwarf_unit u;
		int ok = unit_header(s, off, &u);

		if (ok < 0)
			break;
		off = u.end;
		if (!ok)
			continue;
		if (grow((void **)units, &cap, *nr, sizeof(**units))) {
			dwarf_die__free_units(*units, *nr);
			*units = NULL;
			*nr = 0;
			return -ENOMEM;
		}
		(*units)[(*nr)++] = u;
	}
	return 0;
}

static void abbrevs_reset(struct dwarf_unit *u);

void dwarf_die__free_units(struct dwarf_unit *units, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		abbrevs_reset(&units[i]);
	free(units);
}

struct dwarf_unit *dwarf_die__find_unit(struct dwarf_unit *units, size_t nr, uint64_t off)
{
	size_t i = SORTED_PAST(units, 0, nr, off, off);

	return i && off < units[i - 1].end ? &units[i - 1] : NULL;
}

/* Abbreviations */

/*
 * The entry at offset at of .debug_abbrev into *ab, its attributes added to
 * u's table; *next past it. False at the table's end or when it is malformed.
 */
static bool abbrev_parse(const struct dwarf_sections *s, struct dwarf_unit *u, uint64_t at,
			 struct dwarf_abbrev *ab, uint64_t *next, int *error)
{
	struct dwarf_abbrevs *t = &u->abbrevs;
	struct cursor c = { s->abbrev.data + at, s->abbrev.data + s->abbrev.size, false };

	*ab = (struct dwarf_abbrev){ .first = (uint32_t)t->nr_attrs, .fixed_size = 0 };
	ab->code = get_uleb(&c);
	if (c.bad || !ab->code)
		return false;
	ab->tag = (uint16_t)get_uleb(&c);
	ab->children = get_u(&c, 1) == DW_CHILDREN_yes;
	for (;;) {
		uint64_t name = get_uleb(&c), form = get_uleb(&c);
		struct dwarf_abbrev_attr a = { .form = (uint16_t)form, .slot = slot_of(name) };
		int size = form_fixed_size(u, form);

		/* an implicit constant has no bytes, but its value is the abbreviation's */
		a.size = form == DW_FORM_implicit_const || size < 0 || size > 8 ? -1 : (int8_t)size;

		if (c.bad)
			return false;
		if (!name && !form)
			break;
		if (form == DW_FORM_implicit_const)
			a.implicit = get_sleb(&c);
		if (form > UINT16_MAX || t->nr_attrs >= MAX_ABBREV_ATTRS)
			return false;
		if (grow((void **)&t->attrs, &t->cap_attrs, t->nr_attrs, sizeof(*t->attrs))) {
			*error = -ENOMEM;
			return false;
		}
		t->attrs[t->nr_attrs++] = a;
		if (a.slot == DS_SIBLING && ab->fixed_size >= 0 && size > 0 &&
		    form != DW_FORM_ref_addr) {
			ab->sibling_at = ab->fixed_size;
			ab->sibling_size = (int8_t)size;
		}
		ab->fixed_size = size < 0 || ab->fixed_size < 0 ? -1 : ab->fixed_size + size;
	}
	ab->nr = (uint32_t)(t->nr_attrs - ab->first);
	*next = (uint64_t)(c.p - s->abbrev.data);
	return true;
}

/* Reads the next entry of u's table; false at its end or when it is malformed. */
static bool abbrev_read_one(const struct dwarf_sections *s, struct dwarf_unit *u, int *error)
{
	struct dwarf_abbrevs *t = &u->abbrevs;
	struct dwarf_abbrev ab;
	uint64_t next;

	if (t->nr >= MAX_ABBREVS || !abbrev_parse(s, u, t->next, &ab, &next, error))
		return false;
	if (grow((void **)&t->list, &t->cap, t->nr, sizeof(*t->list))) {
		*error = -ENOMEM;
		return false;
	}
	t->dense = (t->nr == 0 || t->dense) && ab.code == t->nr + 1;
	t->list[t->nr++] = ab;
	t->next = next;
	return true;
}

/* The offset of the entry of code in u's table, passing over the others unread; false when none. */
static bool abbrev_scan(const struct dwarf_sections *s, const struct dwarf_unit *u, uint64_t code,
			uint64_t *at)
{
	struct cursor c = { s->abbrev.data + u->abbrev_off, s->abbrev.data + s->abbrev.size,
			    u->abbrev_off > s->abbrev.size };

	for (size_t n = 0; !c.bad && n < MAX_ABBREVS; n++) {
		uint64_t here = (uint64_t)(c.p - s->abbrev.data), name, form;
		uint64_t this = get_uleb(&c);

		if (!this || c.bad)
			return false;
		if (this == code) {
			*at = here;
			return true;
		}
		get_uleb(&c); /* tag */
		get_u(&c, 1); /* children */
		do {
			name = get_uleb(&c);
			form = get_uleb(&c);
			if (form == DW_FORM_implicit_const)
				get_sleb(&c);
		} while ((name || form) && !c.bad);
	}
	return false;
}

/*
 * The entry of the unit DIE's code, read alone: compilers give it one of the
 * last codes (GCC numbers them by use), and reading the table up to it was
 * most of the time to open a file's units and to look into one.
 */
static const struct dwarf_abbrev *
abbrev_of_unit_die(const struct dwarf_sections *s, struct dwarf_unit *u, uint64_t code, int *error)
{
	struct dwarf_abbrevs *t = &u->abbrevs;
	uint64_t at, next;

	if (t->unit_read && t->unit.code == code)
		return &t->unit;
	if (!abbrev_scan(s, u, code, &at) || !abbrev_parse(s, u, at, &t->unit, &next, error))
		return NULL;
	t->unit_read = true;
	return &t->unit;
}

static int abbrev_code_cmp(const void *pa, const void *pb)
{
	const struct dwarf_abbrev *a = pa, *b = pb;

	if (a->code != b->code)
		return a->code < b->code ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first; /* of two with one code, the first */
}

/*
 * The abbreviation of code in u. While the codes are 1, 2, 3... in section
 * order, as compilers write them, entries are read only until the code is
 * found, so a unit never looked into costs the entry of its unit DIE. A
 * table that is not in that order is read whole and sorted.
 */
static const struct dwarf_abbrev *abbrev_find(const struct dwarf_sections *s, struct dwarf_unit *u,
					      uint64_t code, int *error)
{
	struct dwarf_abbrevs *t = &u->abbrevs;
	size_t i;

	while (t->dense || !t->nr) {
		if (code && code <= t->nr)
			return &t->list[code - 1];
		if (t->done)
			return NULL;
		if (!abbrev_read_one(s, u, error))
			t->done = true;
	}
	if (!t->done) {
		while (abbrev_read_one(s, u, error))
			;
		t->done = true;
		qsort(t->list, t->nr, sizeof(*t->list), abbrev_code_cmp);
	}
	i = SORTED_PAST(t->list, 0, t->nr, code, code);
	while (i > 1 && t->list[i - 2].code == code)
		i--;
	return i && t->list[i - 1].code == code ? &t->list[i - 1] : NULL;
}

/* The table given back, to be read again from its start when needed. */
static void abbrevs_reset(struct dwarf_unit *u)
{
	free(u->abbrevs.list);
	free(u->abbrevs.attrs);
	u->abbrevs = (struct dwarf_abbrevs){ .next = u->abbrev_off };
}

/* The reader */

static const struct dwarf_abbrev null_entry = { 0 };

static void reader_fail(struct dwarf_reader *r, int error)
{
	if (!r->error)
		r->error = error;
	cursor_fail(&r->c);
}

void dwarf_die__reader_init(struct dwarf_reader *r, const struct dwarf_sections *s,
			    struct dwarf_unit *u, uint64_t off)
{
	r->s = s;
	r->u = u;
	r->error = 0;
	r->c = (struct cursor){ s->info.data + u->die, s->info.data + u->end, false };
	if (off < u->die || off >= u->end)
		reader_fail(r, -EINVAL);
	else
		r->c.p = s->info.data + off;
}

uint64_t dwarf_die__reader_off(const struct dwarf_reader *r)
{
	return (uint64_t)(r->c.p - r->s->info.data);
}

const struct dwarf_abbrev *dwarf_die__next_slow(struct dwarf_reader *r, uint64_t *off)
{
	const struct dwarf_abbrevs *t = &r->u->abbrevs;
	const struct dwarf_abbrev *ab;
	uint64_t code;

	*off = (uint64_t)(r->c.p - r->s->info.data);
	if (r->c.p == r->c.end) {
		if (r->c.bad)
			return NULL;
		return &null_entry; /* a unit may end without the null entries of its last children */
	}
	code = get_uleb(&r->c);
	if (!code)
		return r->c.bad ? (reader_fail(r, -EINVAL), NULL) : &null_entry;
	if (t->dense && code <= t->nr)
		return &t->list[code - 1]; /* the table read so far holds it */
	if (*off == r->u->die)
		ab = abbrev_of_unit_die(r->s, r->u, code, &r->error);
	else
		ab = abbrev_find(r->s, r->u, code, &r->error);
	if (!ab)
		reader_fail(r, -EINVAL);
	return ab;
}

/* One value of form, of a size not known in advance; DW_FORM_indirect is resolved by the caller. */
static uint64_t read_value(struct dwarf_reader *r, uint64_t form, int64_t implicit)
{
	struct cursor *c = &r->c;
	const uint8_t *at = c->p;
	int size = form_fixed_size(r->u, form);

	if (form == DW_FORM_implicit_const)
		return (uint64_t)implicit;
	if (size >= 0)
		return size <= 8 ? get_u(c, (size_t)size) : (skip(c, (uint64_t)size), 0);
	switch (form) {
	case DW_FORM_sdata:
		return (uint64_t)get_sleb(c);
	case DW_FORM_udata:
	case DW_FORM_ref_udata:
	case DW_FORM_strx:
	case DW_FORM_addrx:
	case DW_FORM_rnglistx:
	case DW_FORM_loclistx:
	case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		return get_uleb(c);
	case DW_FORM_string:
		get_str(c);
		return (uint64_t)(at - r->s->info.data);
	case DW_FORM_block1:
		skip(c, get_u(c, 1));
		return 0;
	case DW_FORM_block2:
		skip(c, get_u(c, 2));
		return 0;
	case DW_FORM_block4:
		skip(c, get_u(c, 4));
		return 0;
	case DW_FORM_block:
	case DW_FORM_exprloc:
		skip(c, get_uleb(c));
		return 0;
	default:
		reader_fail(
			r,
			-EINVAL); /* a form whose size is not known: nothing after it can be read */
		return 0;
	}
}

/* The form of an attribute, with DW_FORM_indirect's read from the data. */
static uint64_t attr_form(struct dwarf_reader *r, const struct dwarf_abbrev_attr *a)
{
	uint64_t form = a->form;

	if (form == DW_FORM_indirect) {
		form = get_uleb(&r->c);
		if (form == DW_FORM_indirect || form == DW_FORM_implicit_const || form > UINT16_MAX)
			reader_fail(r, -EINVAL);
	}
	return form;
}

/* An attribute's value, most often of a size its abbreviation knows. */
static inline uint64_t attr_value(struct dwarf_reader *r, const struct dwarf_abbrev_attr *a,
				  uint64_t *form)
{
	if (a->size >= 0) {
		*form = a->form;
		return get_u(&r->c, (size_t)a->size);
	}
	*form = attr_form(r, a);
	return read_value(r, *form, a->implicit);
}

void dwarf_die__attrs(struct dwarf_reader *r, const struct dwarf_abbrev *ab, uint64_t off,
		      struct dwarf_die *d)
{
	const struct dwarf_abbrev_attr *a = ab->nr ? &r->u->abbrevs.attrs[ab->first] : NULL;

	d->off = off;
	d->tag = ab->tag;
	d->children = ab->children;
	d->present = 0;
	for (uint32_t i = 0; i < ab->nr && !r->c.bad; i++) {
		uint64_t form, val = attr_value(r, &a[i], &form);

		if (a[i].slot != DS_NONE) {
			d->v[a[i].slot] = (struct dwarf_value){ val, (uint16_t)form };
			d->present |= 1u << a[i].slot;
		}
	}
	if (r->c.bad)
		reader_fail(r, -EINVAL);
}

void dwarf_die__skip_attrs_slow(struct dwarf_reader *r, const struct dwarf_abbrev *ab)
{
	const struct dwarf_abbrev_attr *a = ab->nr ? &r->u->abbrevs.attrs[ab->first] : NULL;

	if (ab->fixed_size >= 0) {
		skip(&r->c, (uint64_t)ab->fixed_size);
	} else {
		for (uint32_t i = 0; i < ab->nr && !r->c.bad; i++) {
			uint64_t form;

			attr_value(r, &a[i], &form);
		}
	}
	if (r->c.bad)
		reader_fail(r, -EINVAL);
}

/* A DW_AT_sibling that points forward inside the unit, else 0. */
static uint64_t sane_sibling(const struct dwarf_reader *r, const struct dwarf_die *d)
{
	uint64_t to;

	if (!dwarf_die__has(d, DS_SIBLING) || !dwarf_die__value_ref(r->u, &d->v[DS_SIBLING], &to))
		return 0;
	return to > dwarf_die__reader_off(r) && to <= r->u->end ? to : 0;
}

/*
 * Past the DIE whose code r has read, by its DW_AT_sibling when its attributes have a fixed
 * size and the sibling is at a known place among them: without decoding any.
 */
static bool skip_by_sibling(struct dwarf_reader *r, const struct dwarf_abbrev *ab)
{
	struct cursor c = r->c;
	uint64_t to, attrs_end;

	if (!ab->sibling_size || ab->fixed_size < 0)
		return false;
	skip(&c, (uint64_t)ab->sibling_at);
	to = r->u->off + get_u(&c, (size_t)ab->sibling_size);
	attrs_end = dwarf_die__reader_off(r) + (uint64_t)ab->fixed_size;
	if (c.bad || to <= attrs_end || to > r->u->end)
		return false;
	r->c.p = r->s->info.data + to;
	return true;
}

void dwarf_die__skip(struct dwarf_reader *r, const struct dwarf_abbrev *ab, uint64_t off)
{
	struct dwarf_die d;

	if (!ab->children) {
		dwarf_die__skip_attrs(r, ab);
		return;
	}
	if (skip_by_sibling(r, ab))
		return;
	dwarf_die__attrs(r, ab, off, &d);
	dwarf_die__skip_children(r, &d);
}

void dwarf_die__skip_children(struct dwarf_reader *r, const struct dwarf_die *d)
{
	uint64_t to = d->children ? sane_sibling(r, d) : 0;
	int depth = d->children;

	if (to) {
		r->c.p = r->s->info.data + to;
		return;
	}
	while (depth > 0) {
		const struct dwarf_abbrev *ab;
		struct dwarf_die child;
		uint64_t off;

		ab = dwarf_die__next(r, &off);
		if (!ab)
			return;
		if (!ab->tag) {
			depth--;
			continue;
		}
		if (!ab->children) {
			dwarf_die__skip_attrs(r, ab);
			continue;
		}
		if (skip_by_sibling(r, ab))
			continue;
		dwarf_die__attrs(r, ab, off, &child);
		to = sane_sibling(r, &child);
		if (to)
			r->c.p = r->s->info.data + to;
		else if (++depth > SKIP_DEPTH_MAX)
			reader_fail(r, -ELOOP);
	}
}

bool dwarf_die__read(const struct dwarf_sections *s, struct dwarf_unit *u, uint64_t off,
		     struct dwarf_die *d)
{
	const struct dwarf_abbrev *ab;
	struct dwarf_reader r;

	dwarf_die__reader_init(&r, s, u, off);
	ab = dwarf_die__next(&r, &off);
	if (!ab || !ab->tag)
		return false;
	dwarf_die__attrs(&r, ab, off, d);
	return !r.error;
}

bool dwarf_die__read_unit_bases(const struct dwarf_sections *s, struct dwarf_unit *u,
				struct dwarf_die *d)
{
	uint64_t v;
	bool ok = dwarf_die__read(s, u, u->die, d);

	/*
	 * Compilers give the unit DIE's abbreviation one of the last codes
	 * (GCC numbers them by use): reading it read most of the table, which
	 * is given back until the unit is looked into. Every unit's tables
	 * together are megabytes (5 MiB of libc6-dbg's libc).
	 */
	abbrevs_reset(u);
	if (!ok)
		return false;
	if (u->version < 5) {
		u->type = d->tag == DW_TAG_partial_unit ? DW_UT_partial :
			  d->tag == DW_TAG_type_unit	? DW_UT_type :
							  DW_UT_compile;
	}
	if (dwarf_die__has(d, DS_STR_OFFSETS_BASE) &&
	    dwarf_die__value_udata(&d->v[DS_STR_OFFSETS_BASE], &v))
		u->str_offsets_base = v;
	if (dwarf_die__has(d, DS_ADDR_BASE) && dwarf_die__value_udata(&d->v[DS_ADDR_BASE], &v))
		u->addr_base = v;
	if (dwarf_die__has(d, DS_RNGLISTS_BASE) &&
	    dwarf_die__value_udata(&d->v[DS_RNGLISTS_BASE], &v))
		u->rnglists_base = v;
	return true;
}

/* Values */

/* The n-byte word at off + index * n of sec, false when it is not inside it. */
static bool section_word(const struct elf_section *sec, uint64_t off, uint64_t index, size_t n,
			 uint64_t *out)
{
	struct cursor c;

	if (index > (UINT64_MAX - off) / n || off + index * n >= sec->size)
		return false; /* also when there is no section */
	c = (struct cursor){ sec->data + off + index * n, sec->data + sec->size, false };
	*out = get_u(&c, n);
	return !c.bad;
}

bool dwarf_die__value_addr(const struct dwarf_sections *s, const struct dwarf_unit *u,
			   const struct dwarf_value *v, uint64_t *addr)
{
	switch (v->form) {
	case DW_FORM_addr:
		*addr = v->val;
		return true;
	case DW_FORM_addrx:
	case DW_FORM_addrx1:
	case DW_FORM_addrx2:
	case DW_FORM_addrx3:
	case DW_FORM_addrx4:
	case DW_FORM_GNU_addr_index:
		return section_word(&s->addr, u->addr_base, v->val, u->addr_size, addr);
	default:
		return false;
	}
}

/* The string at off in sec, NULL when off is out of it or the string runs past its end. */
static const char *section_str(const struct elf_section *sec, uint64_t off)
{
	if (off >= sec->size || !memchr(sec->data + off, 0, sec->size - off))
		return NULL;
	return (const char *)sec->data + off;
}

const char *dwarf_die__value_str(const struct dwarf_sections *s, const struct dwarf_unit *u,
				 const struct dwarf_value *v)
{
	uint64_t off;

	switch (v->form) {
	case DW_FORM_string:
		return (const char *)s->info.data + v->val; /* read whole by the reader */
	case DW_FORM_strp:
		return section_str(&s->str, v->val);
	case DW_FORM_line_strp:
		return section_str(&s->line_str, v->val);
	case DW_FORM_strx:
	case DW_FORM_strx1:
	case DW_FORM_strx2:
	case DW_FORM_strx3:
	case DW_FORM_strx4:
	case DW_FORM_GNU_str_index:
		if (!section_word(&s->str_offsets, u->str_offsets_base, v->val, u->offset_size,
				  &off))
			return NULL;
		return section_str(&s->str, off);
	default:
		return NULL; /* DW_FORM_strp_sup, DW_FORM_GNU_strp_alt: in another file */
	}
}

bool dwarf_die__value_ref(const struct dwarf_unit *u, const struct dwarf_value *v, uint64_t *off)
{
	switch (v->form) {
	case DW_FORM_ref1:
	case DW_FORM_ref2:
	case DW_FORM_ref4:
	case DW_FORM_ref8:
	case DW_FORM_ref_udata:
		if (v->val >= u->end - u->off)
			return false;
		*off = u->off + v->val;
		return true;
	case DW_FORM_ref_addr:
		*off = v->val;
		return true;
	default:
		return false;
	}
}

bool dwarf_die__value_udata(const struct dwarf_value *v, uint64_t *out)
{
	switch (v->form) {
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		if ((int64_t)v->val < 0)
			return false;
		/* fallthrough */
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
	case DW_FORM_udata:
	case DW_FORM_sec_offset:
		*out = v->val;
		return true;
	default:
		return false;
	}
}

/* Address ranges */

/* DWARF 5 .debug_rnglists, from off: entries until DW_RLE_end_of_list. */
static int rnglist_each(const struct dwarf_sections *s, const struct dwarf_unit *u, uint64_t off,
			uint64_t base, dwarf_range_fn fn, void *ctx)
{
	struct cursor c;
	int ret = 0;

	if (off >= s->rnglists.size)
		return -EINVAL; /* also when there is no section */
	c = (struct cursor){ s->rnglists.data + off, s->rnglists.data + s->rnglists.size, false };
	while (!ret) {
		uint8_t kind = (uint8_t)get_u(&c, 1);
		uint64_t lo = 0, hi = 0, a, b;
		struct dwarf_value x = { .form = DW_FORM_addrx };

		switch (kind) {
		case DW_RLE_end_of_list:
			return c.bad ? -EINVAL : 0;
		case DW_RLE_base_addressx:
			x.val = get_uleb(&c);
			if (!dwarf_die__value_addr(s, u, &x, &base))
				return -EINVAL;
			continue;
		case DW_RLE_startx_endx:
		case DW_RLE_startx_length:
			x.val = get_uleb(&c);
			b = get_uleb(&c);
			if (!dwarf_die__value_addr(s, u, &x, &lo))
				return -EINVAL;
			if (kind == DW_RLE_startx_length) {
				hi = lo + b;
			} else {
				x.val = b;
				if (!dwarf_die__value_addr(s, u, &x, &hi))
					return -EINVAL;
			}
			break;
		case DW_RLE_offset_pair:
			a = get_uleb(&c);
			b = get_uleb(&c);
			lo = base + a;
			hi = base + b;
			break;
		case DW_RLE_base_address:
			base = get_u(&c, u->addr_size);
			continue;
		case DW_RLE_start_end:
			lo = get_u(&c, u->addr_size);
			hi = get_u(&c, u->addr_size);
			break;
		case DW_RLE_start_length:
			lo = get_u(&c, u->addr_size);
			hi = lo + get_uleb(&c);
			break;
		default:
			return -EINVAL;
		}
		if (c.bad)
			return -EINVAL;
		if (lo < hi)
			ret = fn(ctx, lo, hi);
	}
	return ret;
}

/* DWARF 2 to 4 .debug_ranges, from off: pairs of addresses until (0, 0). */
static int ranges_each(const struct dwarf_sections *s, const struct dwarf_unit *u, uint64_t off,
		       uint64_t base, dwarf_range_fn fn, void *ctx)
{
	uint64_t max = u->addr_size == 8 ? UINT64_MAX : UINT32_MAX;
	struct cursor c;
	int ret = 0;

	if (off >= s->ranges.size)
		return -EINVAL; /* also when there is no section */
	c = (struct cursor){ s->ranges.data + off, s->ranges.data + s->ranges.size, false };
	while (!ret) {
		uint64_t a = get_u(&c, u->addr_size), b = get_u(&c, u->addr_size);

		if (c.bad)
			return -EINVAL;
		if (!a && !b)
			break;
		if (a == max)
			base = b; /* a base address selection */
		else if (a < b)
			ret = fn(ctx, base + a, base + b);
	}
	return ret;
}

int dwarf_die__ranges(const struct dwarf_sections *s, const struct dwarf_unit *u,
		      const struct dwarf_die *d, uint64_t base, dwarf_range_fn fn, void *ctx)
{
	uint64_t lo, hi, off;

	if (dwarf_die__has(d, DS_RANGES)) {
		const struct dwarf_value *v = &d->v[DS_RANGES];

		if (v->form == DW_FORM_rnglistx) {
			if (!section_word(&s->rnglists, u->rnglists_base, v->val, u->offset_size,
					  &off))
				return -EINVAL;
			off += u->rnglists_base;
		} else if (!dwarf_die__value_udata(v, &off)) {
			return -EINVAL;
		}
		return u->version >= 5 ? rnglist_each(s, u, off, base, fn, ctx) :
					 ranges_each(s, u, off, base, fn, ctx);
	}
	if (!dwarf_die__has(d, DS_LOW_PC) || !dwarf_die__has(d, DS_HIGH_PC) ||
	    !dwarf_die__value_addr(s, u, &d->v[DS_LOW_PC], &lo))
		return 0;
	if (dwarf_die__value_addr(s, u, &d->v[DS_HIGH_PC], &hi))
		; /* an address */
	else if (dwarf_die__value_udata(&d->v[DS_HIGH_PC], &hi) && hi <= UINT64_MAX - lo)
		hi += lo; /* an offset from low_pc */
	else
		return 0;
	return lo < hi ? fn(ctx, lo, hi) : 0;
}
