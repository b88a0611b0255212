// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DIE reader of core/symbols/dwarf_die.c on sections built here byte
 * by byte: DWARF 5 units with their string, address and range list tables
 * (in clang's attribute order), the forms that are only passed over,
 * skipping children by DW_AT_sibling and by walking, abbreviation tables
 * out of order, units that end early, DWARF 4 range lists, references
 * across units, 64-bit DWARF, and malformed input, which must make the
 * reader fail rather than read past a section.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/dwarf_die.h"
#include "dwarf_builder.h"
#include "test.h"

/* Building sections */

/* An n-byte value: an offset or an address of the unit's size. */
static void put_un(struct sec *b, uint64_t v, size_t n)
{
	put(b, &v, n); /* little-endian, as the hosts are */
}

/* A NUL-terminated string; returns its offset, for the forms that point to it. */
static uint64_t put_str(struct sec *b, const char *s)
{
	uint64_t at = b->n;

	put(b, s, strlen(s) + 1);
	return at;
}

static void patch_u32(struct sec *b, size_t at, uint32_t v)
{
	memcpy(b->d + at, &v, 4);
}

/* The end of a unit begun with entry_begin(): its unit_length, 32- or 64-bit as it was begun. */
static void unit_end(struct sec *b, size_t at)
{
	uint32_t len32;

	memcpy(&len32, b->d + at, 4);
	entry_end(b, at, len32 == 0xffffffff);
}

/* A .debug_info unit header: DWARF 5's layout from version 5 on, else DWARF 2's. */
static size_t unit_header(struct sec *b, uint16_t version, bool dwarf64, uint8_t addr_size,
			  uint64_t abbrev_off)
{
	size_t at = entry_begin(b, dwarf64), off_size = dwarf64 ? 8 : 4;

	put16(b, version);
	if (version >= 5) {
		put8(b, DW_UT_compile);
		put8(b, addr_size);
		put_un(b, abbrev_off, off_size);
	} else {
		put_un(b, abbrev_off, off_size);
		put8(b, addr_size);
	}
	return at;
}

/* The 32-bit DWARF unit with 8-byte addresses of most cases. */
static size_t cu_header(struct sec *b, uint16_t version, uint64_t abbrev_off)
{
	return unit_header(b, version, false, 8, abbrev_off);
}

/* The header of a DWARF 5 contribution to .debug_str_offsets, .debug_addr or .debug_rnglists. */
static size_t table_header(struct sec *b, bool dwarf64)
{
	size_t at = entry_begin(b, dwarf64);

	put16(b, 5);
	return at;
}

static void abbrev_begin(struct sec *b, uint64_t code, uint64_t tag, bool children)
{
	uleb(b, code);
	uleb(b, tag);
	put8(b, children ? DW_CHILDREN_yes : DW_CHILDREN_no);
}

static void abbrev_attr(struct sec *b, uint64_t at, uint64_t form)
{
	uleb(b, at);
	uleb(b, form);
}

static void abbrev_end(struct sec *b)
{
	abbrev_attr(b, 0, 0);
}

/* An abbreviation whose attributes are pairs of name and form, ended by a 0. */
static void abbrev(struct sec *b, uint64_t code, uint64_t tag, bool children, const uint16_t *attrs)
{
	abbrev_begin(b, code, tag, children);
	for (; attrs[0]; attrs += 2)
		abbrev_attr(b, attrs[0], attrs[1]);
	abbrev_end(b);
}

#define ATTRS(...) ((const uint16_t[]){ __VA_ARGS__, 0 })
#define NO_ATTRS ((const uint16_t[]){ 0 })

/* The sections of one case, and its units once read. */
struct dw {
	struct sec info, abbrev, str, line_str, str_offsets, addr, ranges, rnglists;
	struct dwarf_sections s;
	struct dwarf_unit *units;
	size_t nr;
};

static struct dw *dw_new(void)
{
	struct dw *w = calloc(1, sizeof(*w));

	if (!w) {
		perror("calloc");
		exit(1);
	}
	return w;
}

/*
 * A copy of exactly the section's size, so that under ASan a read past
 * its end is a read past the allocation; none when it is empty, as for a
 * section the file does not have.
 */
static struct elf_section section_of(const struct sec *b)
{
	struct elf_section sec = { 0 };
	uint8_t *copy;

	if (!b->n)
		return sec;
	copy = malloc(b->n);
	if (!copy) {
		perror("malloc");
		exit(1);
	}
	memcpy(copy, b->d, b->n);
	sec.data = copy;
	sec.size = b->n;
	return sec;
}

/* The sections as the reader sees them, then their unit headers. */
static int dw_load(struct dw *w)
{
	w->s.info = section_of(&w->info);
	w->s.abbrev = section_of(&w->abbrev);
	w->s.str = section_of(&w->str);
	w->s.line_str = section_of(&w->line_str);
	w->s.str_offsets = section_of(&w->str_offsets);
	w->s.addr = section_of(&w->addr);
	w->s.ranges = section_of(&w->ranges);
	w->s.rnglists = section_of(&w->rnglists);
	return dwarf_die__read_units(&w->s, &w->units, &w->nr);
}

static void dw_free(struct dw *w)
{
	const struct elf_section *secs[] = { &w->s.info,     &w->s.abbrev,	&w->s.str,
					     &w->s.line_str, &w->s.str_offsets, &w->s.addr,
					     &w->s.ranges,   &w->s.rnglists };

	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
		free((void *)secs[i]->data);
	dwarf_die__free_units(w->units, w->nr);
	free(w);
}

/* Reading values; what a DIE does not have gives a value no case expects. */

#define NONE UINT64_MAX

static uint64_t udata_of(const struct dwarf_die *d, enum dwarf_slot slot)
{
	uint64_t v;

	if (!dwarf_die__has(d, slot) || !dwarf_die__value_udata(&d->v[slot], &v))
		return NONE;
	return v;
}

static uint64_t addr_of(const struct dw *w, const struct dwarf_unit *u, const struct dwarf_die *d,
			enum dwarf_slot slot)
{
	uint64_t v;

	if (!dwarf_die__has(d, slot) || !dwarf_die__value_addr(&w->s, u, &d->v[slot], &v))
		return NONE;
	return v;
}

static uint64_t ref_of(const struct dwarf_unit *u, const struct dwarf_die *d, enum dwarf_slot slot)
{
	uint64_t v;

	if (!dwarf_die__has(d, slot) || !dwarf_die__value_ref(u, &d->v[slot], &v))
		return NONE;
	return v;
}

static const char *str_of(const struct dw *w, const struct dwarf_unit *u, const struct dwarf_die *d,
			  enum dwarf_slot slot)
{
	return dwarf_die__has(d, slot) ? dwarf_die__value_str(&w->s, u, &d->v[slot]) : NULL;
}

/* The next DIE's abbreviation, its offset checked; NULL when the reader fails. */
static const struct dwarf_abbrev *next_at(struct dwarf_reader *r, uint64_t want_off)
{
	uint64_t off = NONE;
	const struct dwarf_abbrev *ab = dwarf_die__next(r, &off);

	CHECK_EQ_INT(off, want_off);
	return ab;
}

/* The next DIE, which must be at want_off with tag want_tag, read whole into *d. */
static void read_next(struct dwarf_reader *r, uint64_t want_off, uint16_t want_tag,
		      struct dwarf_die *d)
{
	const struct dwarf_abbrev *ab = next_at(r, want_off);

	memset(d, 0, sizeof(*d));
	CHECK(ab != NULL);
	if (!ab)
		return;
	CHECK_EQ_INT(ab->tag, want_tag);
	dwarf_die__attrs(r, ab, want_off, d);
	CHECK_EQ_INT(r->error, 0);
}

/* Address ranges */

#define MAX_RANGES 16

struct ranges {
	uint64_t lo[MAX_RANGES], hi[MAX_RANGES];
	int nr;
	int stop_at; /* the number of ranges after which collect returns 42; 0: never */
};

static int collect(void *ctx, uint64_t lo, uint64_t hi)
{
	struct ranges *rs = ctx;

	if (rs->nr < MAX_RANGES) {
		rs->lo[rs->nr] = lo;
		rs->hi[rs->nr] = hi;
	}
	rs->nr++;
	return rs->nr == rs->stop_at ? 42 : 0;
}

static int ranges_of(const struct dw *w, const struct dwarf_unit *u, const struct dwarf_die *d,
		     uint64_t base, struct ranges *rs, int stop_at)
{
	memset(rs, 0, sizeof(*rs));
	rs->stop_at = stop_at;
	return dwarf_die__ranges(&w->s, u, d, base, collect, rs);
}

/* rs holds exactly the n ranges of want, given as lo, hi, lo, hi... */
static void check_ranges(const struct ranges *rs, const uint64_t *want, int n)
{
	CHECK_EQ_INT(rs->nr, n);
	for (int i = 0; i < n && i < rs->nr && i < MAX_RANGES; i++) {
		CHECK_EQ_INT(rs->lo[i], want[2 * i]);
		CHECK_EQ_INT(rs->hi[i], want[2 * i + 1]);
	}
}

/* A DWARF 5 unit as clang writes it, and DW_FORM_rnglistx range lists */

struct dw5 {
	uint64_t str_base, addr_base, rng_base;
	uint64_t cu, big, small; /* DIE offsets */
};

/* .debug_str, .debug_line_str and .debug_str_offsets; the unit's strings are 1 to 3. */
static uint64_t dw5_strings(struct dw *w)
{
	uint64_t wrong, str_base;
	size_t at;

	put8(&w->str, 0);
	wrong = put_str(&w->str, "wrong");
	/* another unit's contribution first: the default base would find its strings */
	at = table_header(&w->str_offsets, false);
	put16(&w->str_offsets, 0);
	put32(&w->str_offsets, (uint32_t)wrong);
	put32(&w->str_offsets, (uint32_t)wrong);
	unit_end(&w->str_offsets, at);

	at = table_header(&w->str_offsets, false);
	put16(&w->str_offsets, 0);
	str_base = w->str_offsets.n;
	put32(&w->str_offsets, (uint32_t)wrong);
	put32(&w->str_offsets, (uint32_t)put_str(&w->str, "main.c"));
	put32(&w->str_offsets, (uint32_t)put_str(&w->str, "big"));
	put32(&w->str_offsets, (uint32_t)put_str(&w->str, "small"));
	unit_end(&w->str_offsets, at);

	put_str(&w->line_str, "x");
	return str_base;
}

/* .debug_addr, after another unit's contribution; the unit's addresses are 0 to 2. */
static uint64_t dw5_addrs(struct dw *w)
{
	uint64_t base;
	size_t at;

	at = table_header(&w->addr, false);
	put8(&w->addr, 8);
	put8(&w->addr, 0);
	put64(&w->addr, 0xdead0000);
	put64(&w->addr, 0xdead0001);
	unit_end(&w->addr, at);

	at = table_header(&w->addr, false);
	put8(&w->addr, 8);
	put8(&w->addr, 0);
	base = w->addr.n;
	put64(&w->addr, 0x401000);
	put64(&w->addr, 0x402000);
	put64(&w->addr, 0x403000);
	unit_end(&w->addr, at);
	return base;
}

/*
 * .debug_rnglists: list 0 one offset pair from the base the caller gives,
 * list 1 every kind of entry, empty ranges among them.
 */
static uint64_t dw5_rnglists(struct dw *w)
{
	struct sec *b = &w->rnglists;
	uint64_t base;
	size_t at = table_header(b, false);

	put8(b, 8);
	put8(b, 0);
	put32(b, 2); /* offset_entry_count */
	base = b->n;
	put32(b, 0);
	put32(b, 0);

	patch_u32(b, base, (uint32_t)(b->n - base));
	put8(b, DW_RLE_offset_pair);
	uleb(b, 0x100);
	uleb(b, 0x180);
	put8(b, DW_RLE_end_of_list);

	patch_u32(b, base + 4, (uint32_t)(b->n - base));
	put8(b, DW_RLE_base_addressx);
	uleb(b, 1);
	put8(b, DW_RLE_offset_pair);
	uleb(b, 0x10);
	uleb(b, 0x20);
	put8(b, DW_RLE_offset_pair); /* empty */
	uleb(b, 0x30);
	uleb(b, 0x30);
	put8(b, DW_RLE_startx_length);
	uleb(b, 2);
	uleb(b, 0x40);
	put8(b, DW_RLE_startx_endx);
	uleb(b, 1);
	uleb(b, 2);
	put8(b, DW_RLE_start_end);
	put64(b, 0x404000);
	put64(b, 0x404100);
	put8(b, DW_RLE_start_length);
	put64(b, 0x405000);
	uleb(b, 0x8);
	put8(b, DW_RLE_base_address);
	put64(b, 0x406000);
	put8(b, DW_RLE_offset_pair);
	uleb(b, 1);
	uleb(b, 2);
	put8(b, DW_RLE_start_end); /* empty */
	put64(b, 0x407000);
	put64(b, 0x407000);
	put8(b, DW_RLE_end_of_list);
	/* not part of the list */
	put8(b, DW_RLE_start_end);
	put64(b, 0x500000);
	put64(b, 0x500100);
	unit_end(b, at);
	return base;
}

static void dw5_build(struct dw *w, struct dw5 *x)
{
	struct sec *b = &w->info;
	uint64_t src;
	size_t at;

	x->str_base = dw5_strings(w);
	src = put_str(&w->line_str, "/src");
	x->addr_base = dw5_addrs(w);
	x->rng_base = dw5_rnglists(w);

	/* clang writes DW_AT_name before the DW_AT_str_offsets_base it needs */
	abbrev(&w->abbrev, 1, DW_TAG_compile_unit, true,
	       ATTRS(DW_AT_name, DW_FORM_strx1, DW_AT_str_offsets_base, DW_FORM_sec_offset,
		     DW_AT_low_pc, DW_FORM_addrx, DW_AT_high_pc, DW_FORM_data4, DW_AT_addr_base,
		     DW_FORM_sec_offset, DW_AT_rnglists_base, DW_FORM_sec_offset, DW_AT_stmt_list,
		     DW_FORM_sec_offset, DW_AT_comp_dir, DW_FORM_line_strp));
	abbrev(&w->abbrev, 2, DW_TAG_subprogram, false,
	       ATTRS(DW_AT_name, DW_FORM_strx1, DW_AT_ranges, DW_FORM_rnglistx));
	put8(&w->abbrev, 0);

	at = cu_header(b, 5, 0);
	x->cu = b->n;
	uleb(b, 1);
	put8(b, 1);
	put32(b, (uint32_t)x->str_base);
	uleb(b, 0);
	put32(b, 0x200);
	put32(b, (uint32_t)x->addr_base);
	put32(b, (uint32_t)x->rng_base);
	put32(b, 0x1234);
	put32(b, (uint32_t)src);
	x->big = b->n;
	uleb(b, 2);
	put8(b, 2);
	uleb(b, 1);
	x->small = b->n;
	uleb(b, 2);
	put8(b, 3);
	uleb(b, 0);
	put8(b, 0);
	unit_end(b, at);
}

static void check_dw5_unit_die(struct dw *w, struct dw5 *x, struct dwarf_unit *u)
{
	static const uint64_t want[] = { 0x401000, 0x401200 };
	struct dwarf_die d;
	struct ranges rs;

	CHECK_EQ_INT(u->version, 5);
	CHECK_EQ_INT(u->type, DW_UT_compile);
	CHECK_EQ_INT(u->offset_size, 4);
	CHECK_EQ_INT(u->addr_size, 8);
	CHECK_EQ_INT(u->die, x->cu);
	CHECK_EQ_INT(u->end, w->info.n);

	CHECK(dwarf_die__read_unit_bases(&w->s, u, &d));
	CHECK_EQ_INT(d.tag, DW_TAG_compile_unit);
	CHECK(d.children);
	CHECK_EQ_INT(u->str_offsets_base, x->str_base);
	CHECK_EQ_INT(u->addr_base, x->addr_base);
	CHECK_EQ_INT(u->rnglists_base, x->rng_base);
	CHECK_EQ_STR(str_of(w, u, &d, DS_NAME), "main.c");
	CHECK_EQ_STR(str_of(w, u, &d, DS_COMP_DIR), "/src");
	CHECK_EQ_INT(addr_of(w, u, &d, DS_LOW_PC), 0x401000);
	CHECK_EQ_INT(udata_of(&d, DS_STMT_LIST), 0x1234);
	CHECK_EQ_INT(ranges_of(w, u, &d, 0, &rs, 0), 0);
	check_ranges(&rs, want, 1);
}

static void test_dwarf5_unit(void)
{
	static const uint64_t big[] = { 0x402010, 0x402020, 0x403000, 0x403040, 0x402000, 0x403000,
					0x404000, 0x404100, 0x405000, 0x405008, 0x406001, 0x406002 };
	static const uint64_t small[] = { 0x401100, 0x401180 };
	struct dw *w = dw_new();
	struct dwarf_reader r;
	struct dwarf_die d;
	struct ranges rs;
	struct dw5 x;
	struct dwarf_unit *u;

	dw5_build(w, &x);
	CHECK_EQ_INT(dw_load(w), 0);
	CHECK_EQ_INT(w->nr, 1);
	if (w->nr != 1)
		goto out;
	u = &w->units[0];
	check_dw5_unit_die(w, &x, u);

	dwarf_die__reader_init(&r, &w->s, u, u->die);
	read_next(&r, x.cu, DW_TAG_compile_unit, &d);
	read_next(&r, x.big, DW_TAG_subprogram, &d);
	CHECK_EQ_STR(str_of(w, u, &d, DS_NAME), "big");
	CHECK_EQ_INT(ranges_of(w, u, &d, 0x401000, &rs, 0), 0);
	check_ranges(&rs, big, 6);
	/* the callback's result ends the walk and is returned */
	CHECK_EQ_INT(ranges_of(w, u, &d, 0x401000, &rs, 2), 42);
	CHECK_EQ_INT(rs.nr, 2);

	read_next(&r, x.small, DW_TAG_subprogram, &d);
	CHECK_EQ_STR(str_of(w, u, &d, DS_NAME), "small");
	CHECK_EQ_INT(ranges_of(w, u, &d, 0x401000, &rs, 0), 0);
	check_ranges(&rs, small, 1);
	read_next(&r, x.small + 3, 0, &d);
	read_next(&r, u->end, 0, &d);
out:
	dw_free(w);
}

/* Forms passed over */

struct forms {
	uint64_t a, m, f, b; /* DIE offsets: a, then m and f with the forms, then b */
	uint64_t m_name;
};

static void forms_abbrevs(struct sec *ab)
{
	abbrev(ab, 1, DW_TAG_compile_unit, true, ATTRS(DW_AT_name, DW_FORM_string));
	abbrev(ab, 2, DW_TAG_variable, false,
	       ATTRS(DW_AT_name, DW_FORM_string, DW_AT_decl_line, DW_FORM_data1));
	/* of variable size: passed over one by one */
	abbrev_begin(ab, 3, DW_TAG_subprogram, false);
	abbrev_attr(ab, DW_AT_location, DW_FORM_exprloc);
	abbrev_attr(ab, DW_AT_const_value, DW_FORM_block1);
	abbrev_attr(ab, DW_AT_data_member_location, DW_FORM_block2);
	abbrev_attr(ab, DW_AT_frame_base, DW_FORM_block4);
	abbrev_attr(ab, DW_AT_upper_bound, DW_FORM_block);
	abbrev_attr(ab, DW_AT_lower_bound, DW_FORM_data16);
	abbrev_attr(ab, DW_AT_external, DW_FORM_flag_present);
	abbrev_attr(ab, DW_AT_decl_file, DW_FORM_implicit_const);
	sleb(ab, 7);
	abbrev_attr(ab, DW_AT_call_line, DW_FORM_indirect);
	abbrev_attr(ab, DW_AT_decl_line, DW_FORM_sdata);
	abbrev_attr(ab, DW_AT_name, DW_FORM_string);
	abbrev_end(ab);
	/* of fixed size: passed over at once */
	abbrev_begin(ab, 4, DW_TAG_variable, false);
	abbrev_attr(ab, DW_AT_const_value, DW_FORM_data16);
	abbrev_attr(ab, DW_AT_external, DW_FORM_flag_present);
	abbrev_attr(ab, DW_AT_decl_file, DW_FORM_implicit_const);
	sleb(ab, 7);
	abbrev_attr(ab, DW_AT_decl_line, DW_FORM_data2);
	abbrev_attr(ab, DW_AT_low_pc, DW_FORM_addr);
	abbrev_end(ab);
	abbrev(ab, 5, DW_TAG_variable, false,
	       ATTRS(DW_AT_name, DW_FORM_strp, DW_AT_decl_line, DW_FORM_data2, DW_AT_low_pc,
		     DW_FORM_addr));
	put8(ab, 0);
}

/* The DIE with the forms of variable size; bytes 0 in its blocks, which are no strings. */
static void forms_die_m(struct sec *b, struct forms *x)
{
	x->m = b->n;
	uleb(b, 3);
	uleb(b, 3); /* exprloc */
	put(b, (const uint8_t[]){ 0x91, 0x00, 0x01 }, 3);
	put8(b, 2); /* block1 */
	put16(b, 0);
	put16(b, 3); /* block2 */
	put(b, (const uint8_t[]){ 0, 0, 0 }, 3);
	put32(b, 1); /* block4 */
	put8(b, 0);
	uleb(b, 130); /* block, of a two-byte length */
	for (int i = 0; i < 130; i++)
		put8(b, i & 1 ? 0 : 0xab);
	put64(b, 0); /* data16 */
	put64(b, 0);
	uleb(b, DW_FORM_udata); /* indirect */
	uleb(b, 300);
	sleb(b, -5);
	x->m_name = put_str(b, "inline_name");
}

static void forms_build(struct dw *w, struct forms *x)
{
	struct sec *b = &w->info;
	size_t at;

	put8(&w->str, 0);
	forms_abbrevs(&w->abbrev);
	at = cu_header(b, 5, 0);
	uleb(b, 1);
	put_str(b, "cu");
	x->a = b->n;
	uleb(b, 2);
	put_str(b, "a");
	put8(b, 3);
	forms_die_m(b, x);
	x->f = b->n;
	uleb(b, 4);
	put64(b, 0xffffffffffffffff); /* data16 */
	put64(b, 0xffffffffffffffff);
	put16(b, 0x55);
	put64(b, 0x99);
	x->b = b->n;
	uleb(b, 5);
	put32(b, (uint32_t)put_str(&w->str, "b"));
	put16(b, 0x1234);
	put64(b, 0x1122334455667788);
	put8(b, 0);
	unit_end(b, at);
}

static void check_die_b(struct dw *w, struct dwarf_unit *u, struct dwarf_reader *r,
			const struct forms *x)
{
	struct dwarf_die d;

	read_next(r, x->b, DW_TAG_variable, &d);
	CHECK_EQ_STR(str_of(w, u, &d, DS_NAME), "b");
	CHECK_EQ_INT(udata_of(&d, DS_DECL_LINE), 0x1234);
	CHECK_EQ_INT(addr_of(w, u, &d, DS_LOW_PC), 0x1122334455667788);
	CHECK_EQ_INT(dwarf_die__reader_off(r), x->b + 1 + 4 + 2 + 8);
}

/* Every DIE's attributes read. */
static void check_forms_read(struct dw *w, struct dwarf_unit *u, const struct forms *x)
{
	struct dwarf_reader r;
	struct dwarf_die d;
	uint64_t v;

	dwarf_die__reader_init(&r, &w->s, u, u->die);
	read_next(&r, u->die, DW_TAG_compile_unit, &d);
	CHECK_EQ_STR(str_of(w, u, &d, DS_NAME), "cu");
	read_next(&r, x->a, DW_TAG_variable, &d);
	CHECK_EQ_STR(str_of(w, u, &d, DS_NAME), "a");
	CHECK_EQ_INT(udata_of(&d, DS_DECL_LINE), 3);

	read_next(&r, x->m, DW_TAG_subprogram, &d);
	CHECK_EQ_INT(d.v[DS_DECL_FILE].form, DW_FORM_implicit_const);
	CHECK_EQ_INT(udata_of(&d, DS_DECL_FILE), 7);
	CHECK_EQ_INT(d.v[DS_CALL_LINE].form, DW_FORM_udata); /* what DW_FORM_indirect said */
	CHECK_EQ_INT(udata_of(&d, DS_CALL_LINE), 300);
	CHECK_EQ_INT(d.v[DS_DECL_LINE].form, DW_FORM_sdata);
	CHECK_EQ_INT((int64_t)d.v[DS_DECL_LINE].val, -5);
	CHECK(!dwarf_die__value_udata(&d.v[DS_DECL_LINE], &v));
	CHECK_EQ_INT(d.v[DS_NAME].val, x->m_name);
	CHECK_EQ_STR(str_of(w, u, &d, DS_NAME), "inline_name");
	CHECK_EQ_INT(d.present, (1u << DS_DECL_FILE) | (1u << DS_CALL_LINE) | (1u << DS_DECL_LINE) |
					(1u << DS_NAME));

	read_next(&r, x->f, DW_TAG_variable, &d);
	CHECK_EQ_INT(udata_of(&d, DS_DECL_FILE), 7);
	CHECK_EQ_INT(udata_of(&d, DS_DECL_LINE), 0x55);
	CHECK_EQ_INT(addr_of(w, u, &d, DS_LOW_PC), 0x99);
	check_die_b(w, u, &r, x);
}

/* The DIEs between a and b passed over. */
static void check_forms_skipped(struct dw *w, struct dwarf_unit *u, const struct forms *x)
{
	const struct dwarf_abbrev *ab;
	struct dwarf_reader r;

	dwarf_die__reader_init(&r, &w->s, u, x->a);
	ab = next_at(&r, x->a);
	CHECK(ab != NULL);
	if (!ab)
		return;
	dwarf_die__skip_attrs(&r, ab);
	ab = next_at(&r, x->m);
	CHECK(ab != NULL && ab->fixed_size < 0);
	if (!ab)
		return;
	dwarf_die__skip_attrs(&r, ab);
	ab = next_at(&r, x->f);
	CHECK(ab != NULL && ab->fixed_size == 16 + 2 + 8);
	if (!ab)
		return;
	dwarf_die__skip_attrs(&r, ab);
	CHECK_EQ_INT(r.error, 0);
	check_die_b(w, u, &r, x);
}

static void test_skipped_forms(void)
{
	struct dw *w = dw_new();
	struct forms x;

	forms_build(w, &x);
	CHECK_EQ_INT(dw_load(w), 0);
	CHECK_EQ_INT(w->nr, 1);
	if (w->nr == 1) {
		check_forms_read(w, &w->units[0], &x);
		check_forms_skipped(w, &w->units[0], &x);
	}
	dw_free(w);
}

/* Skipping children */

enum {
	AB_CU = 1,
	AB_SIB,	       /* children, DW_AT_sibling ref4, decl_line: of fixed size */
	AB_NOSIB,      /* children, decl_line */
	AB_VAR,	       /* no children, decl_line */
	AB_BLOCK,      /* children, no attributes */
	AB_SIBSTR,     /* children, DW_AT_sibling ref4, a DW_FORM_string name: of variable size */
	AB_SIB8,       /* children, DW_AT_sibling ref8, decl_line */
	AB_BAD = 0x7e, /* not in the table */
};

static void children_abbrevs(struct sec *ab)
{
	abbrev(ab, AB_CU, DW_TAG_compile_unit, true, NO_ATTRS);
	abbrev(ab, AB_SIB, DW_TAG_subprogram, true,
	       ATTRS(DW_AT_sibling, DW_FORM_ref4, DW_AT_decl_line, DW_FORM_data1));
	abbrev(ab, AB_NOSIB, DW_TAG_subprogram, true, ATTRS(DW_AT_decl_line, DW_FORM_data1));
	abbrev(ab, AB_VAR, DW_TAG_variable, false, ATTRS(DW_AT_decl_line, DW_FORM_data1));
	abbrev(ab, AB_BLOCK, DW_TAG_lexical_block, true, NO_ATTRS);
	abbrev(ab, AB_SIBSTR, DW_TAG_subprogram, true,
	       ATTRS(DW_AT_sibling, DW_FORM_ref4, DW_AT_name, DW_FORM_string));
	abbrev(ab, AB_SIB8, DW_TAG_subprogram, true,
	       ATTRS(DW_AT_sibling, DW_FORM_ref8, DW_AT_decl_line, DW_FORM_data1));
	put8(ab, 0);
}

static void put_var(struct sec *b, uint8_t line)
{
	uleb(b, AB_VAR);
	put8(b, line);
}

/* Children that can be walked: a variable and a block holding another. */
static void put_children(struct sec *b, uint8_t line)
{
	put_var(b, line);
	uleb(b, AB_BLOCK);
	put_var(b, line + 1);
	put8(b, 0);
	put8(b, 0);
}

/* Children that cannot be walked: only their parent's DW_AT_sibling passes them. */
static void put_bad_children(struct sec *b)
{
	put_var(b, 1);
	uleb(b, AB_BAD);
	put8(b, 0);
}

#define NR_KIDS 9

struct kids {
	uint64_t unit;		 /* the unit's offset, which ref4 is relative to */
	uint64_t p[NR_KIDS + 1]; /* the unit DIE's children, then the null entry after them */
};

/* A DIE with a DW_AT_sibling; returns where its value is, to patch. */
static size_t put_sib_die(struct sec *b, uint64_t code, uint32_t sibling)
{
	size_t at;

	uleb(b, code);
	at = b->n;
	put32(b, sibling);
	return at;
}

static void kids_build(struct sec *b, struct kids *x)
{
	size_t p1_sib, p5_sib, at;

	/* after another unit, so that ref4 being relative to the unit's start matters */
	at = cu_header(b, 5, 0);
	uleb(b, AB_CU);
	put8(b, 0);
	unit_end(b, at);

	x->unit = b->n;
	at = cu_header(b, 5, 0);
	uleb(b, AB_CU);
	x->p[0] = b->n; /* a sibling it goes by */
	p1_sib = put_sib_die(b, AB_SIB, 0);
	put8(b, 1);
	put_bad_children(b);
	x->p[1] = b->n; /* no sibling */
	uleb(b, AB_NOSIB);
	put8(b, 2);
	put_children(b, 21);
	x->p[2] = b->n; /* a sibling backwards */
	put_sib_die(b, AB_SIB, (uint32_t)(x->p[0] - x->unit));
	put8(b, 3);
	put_children(b, 31);
	x->p[3] = b->n; /* a sibling past the unit's end */
	put_sib_die(b, AB_SIB, 0x7fff);
	put8(b, 4);
	put_children(b, 41);
	x->p[4] = b->n; /* a sibling it goes by, among attributes of variable size */
	p5_sib = put_sib_die(b, AB_SIBSTR, 0);
	put_str(b, "p5");
	put_bad_children(b);
	x->p[5] = b->n; /* a sibling to itself */
	put_sib_die(b, AB_SIBSTR, (uint32_t)(x->p[5] - x->unit));
	put_str(b, "p6");
	put_children(b, 61);
	x->p[6] = b->n; /* past the unit's end, among attributes of variable size */
	put_sib_die(b, AB_SIBSTR, 0xffffffff);
	put_str(b, "p7");
	put_children(b, 71);
	x->p[7] = b->n; /* a ref8 past the end, which added to the unit's offset wraps */
	uleb(b, AB_SIB8);
	put64(b, UINT64_MAX);
	put8(b, 8);
	put_children(b, 81);
	x->p[8] = b->n;
	put_var(b, 99);
	x->p[9] = b->n;
	put8(b, 0);
	unit_end(b, at);
	patch_u32(b, p1_sib, (uint32_t)(x->p[1] - x->unit));
	patch_u32(b, p5_sib, (uint32_t)(x->p[5] - x->unit));
}

/* dwarf_die__skip of each child of the unit DIE lands on the next. */
static void check_skip_die(struct dw *w, struct dwarf_unit *u, const struct kids *x)
{
	for (int i = 0; i < NR_KIDS; i++) {
		const struct dwarf_abbrev *ab;
		struct dwarf_reader r;

		dwarf_die__reader_init(&r, &w->s, u, x->p[i]);
		ab = next_at(&r, x->p[i]);
		CHECK(ab != NULL);
		if (!ab)
			continue;
		dwarf_die__skip(&r, ab, x->p[i]);
		CHECK_EQ_INT(r.error, 0);
		CHECK_EQ_INT(dwarf_die__reader_off(&r), x->p[i + 1]);
	}
}

/* dwarf_die__skip_children after the attributes, which have been read. */
static void check_skip_children(struct dw *w, struct dwarf_unit *u, const struct kids *x)
{
	struct dwarf_reader r;
	struct dwarf_die d;

	for (int i = 0; i < NR_KIDS; i++) {
		dwarf_die__reader_init(&r, &w->s, u, x->p[i]);
		read_next(&r, x->p[i], i == NR_KIDS - 1 ? DW_TAG_variable : DW_TAG_subprogram, &d);
		dwarf_die__skip_children(&r, &d);
		CHECK_EQ_INT(r.error, 0);
		CHECK_EQ_INT(dwarf_die__reader_off(&r), x->p[i + 1]);
	}
	/* the unit DIE, past all of them */
	dwarf_die__reader_init(&r, &w->s, u, u->die);
	read_next(&r, u->die, DW_TAG_compile_unit, &d);
	dwarf_die__skip_children(&r, &d);
	CHECK_EQ_INT(r.error, 0);
	CHECK_EQ_INT(dwarf_die__reader_off(&r), u->end);
}

static void test_skip_children(void)
{
	struct dw *w = dw_new();
	struct kids x;

	children_abbrevs(&w->abbrev);
	kids_build(&w->info, &x);
	CHECK_EQ_INT(dw_load(w), 0);
	CHECK_EQ_INT(w->nr, 2);
	if (w->nr == 2) {
		CHECK_EQ_INT(w->units[1].off, x.unit);
		check_skip_die(w, &w->units[1], &x);
		check_skip_children(w, &w->units[1], &x);
	}
	dw_free(w);
}

/* A unit DIE whose first child holds nested blocks, each in the one before; then a variable. */
static void put_nested(struct sec *b, int blocks, uint64_t *first, uint64_t *after)
{
	size_t at = cu_header(b, 5, 0);

	uleb(b, AB_CU);
	*first = b->n;
	for (int i = 0; i <= blocks; i++)
		uleb(b, AB_BLOCK);
	for (int i = 0; i <= blocks; i++)
		put8(b, 0);
	*after = b->n;
	put_var(b, 99);
	put8(b, 0);
	unit_end(b, at);
}

/* Children are walked without siblings up to a nesting of SKIP_DEPTH_MAX, 256. */
static void test_skip_depth(void)
{
	struct dw *w = dw_new();
	uint64_t first[2], after[2];

	children_abbrevs(&w->abbrev);
	put_nested(&w->info, 255, &first[0], &after[0]);
	put_nested(&w->info, 256, &first[1], &after[1]);
	CHECK_EQ_INT(dw_load(w), 0);
	CHECK_EQ_INT(w->nr, 2);
	for (size_t i = 0; i < 2 && w->nr == 2; i++) {
		const struct dwarf_abbrev *ab;
		struct dwarf_reader r;

		dwarf_die__reader_init(&r, &w->s, &w->units[i], first[i]);
		ab = next_at(&r, first[i]);
		CHECK(ab != NULL);
		if (!ab)
			continue;
		dwarf_die__skip(&r, ab, first[i]);
		if (i == 0) {
			CHECK_EQ_INT(r.error, 0);
			CHECK_EQ_INT(dwarf_die__reader_off(&r), after[0]);
		} else {
			CHECK_EQ_INT(r.error, -ELOOP);
		}
	}
	dw_free(w);
}

/* Abbreviation codes */

/* A table out of order, with code 3 twice: the first one counts. */
static void sparse_abbrevs(struct sec *ab)
{
	abbrev(ab, 9, DW_TAG_compile_unit, true, ATTRS(DW_AT_name, DW_FORM_string));
	abbrev(ab, 3, DW_TAG_subprogram, false, ATTRS(DW_AT_decl_line, DW_FORM_data1));
	abbrev(ab, 5, DW_TAG_variable, false, ATTRS(DW_AT_decl_line, DW_FORM_data2));
	abbrev(ab, 3, DW_TAG_label, false, NO_ATTRS);
	put8(ab, 0);
}

static void check_sparse(struct dw *w, struct dwarf_unit *u)
{
	struct dwarf_reader r;
	struct dwarf_die d;
	uint64_t off = u->die;

	dwarf_die__reader_init(&r, &w->s, u, u->die);
	read_next(&r, off, DW_TAG_compile_unit, &d);
	CHECK_EQ_STR(str_of(w, u, &d, DS_NAME), "cu");
	off += 4;
	read_next(&r, off, DW_TAG_variable, &d);
	CHECK_EQ_INT(udata_of(&d, DS_DECL_LINE), 0x1234);
	off += 3;
	read_next(&r, off, DW_TAG_subprogram, &d);
	CHECK_EQ_INT(udata_of(&d, DS_DECL_LINE), 7);
	off += 2;
	read_next(&r, off, DW_TAG_subprogram, &d);
	CHECK_EQ_INT(udata_of(&d, DS_DECL_LINE), 8);
	off += 2;
	CHECK(next_at(&r, off) == NULL); /* code 4 */
	CHECK_EQ_INT(r.error, -EINVAL);
	CHECK(dwarf_die__next(&r, &off) == NULL);
}

/* Codes 1 and 2 in order, read as far as needed; 3 is not there. */
static void check_dense(struct dw *w, struct dwarf_unit *u)
{
	struct dwarf_reader r;
	struct dwarf_die d;

	dwarf_die__reader_init(&r, &w->s, u, u->die);
	read_next(&r, u->die, DW_TAG_compile_unit, &d);
	read_next(&r, u->die + 1, DW_TAG_variable, &d);
	CHECK_EQ_INT(udata_of(&d, DS_DECL_LINE), 6);
	CHECK(next_at(&r, u->die + 3) == NULL);
	CHECK_EQ_INT(r.error, -EINVAL);
}

static void test_abbrev_codes(void)
{
	struct dw *w = dw_new();
	struct sec *b = &w->info;
	uint64_t dense;
	size_t at;

	sparse_abbrevs(&w->abbrev);
	dense = w->abbrev.n;
	abbrev(&w->abbrev, 1, DW_TAG_compile_unit, true, NO_ATTRS);
	abbrev(&w->abbrev, 2, DW_TAG_variable, false, ATTRS(DW_AT_decl_line, DW_FORM_data1));
	put8(&w->abbrev, 0);

	at = cu_header(b, 5, 0);
	uleb(b, 9);
	put_str(b, "cu");
	uleb(b, 5);
	put16(b, 0x1234);
	uleb(b, 3);
	put8(b, 7);
	uleb(b, 3);
	put8(b, 8);
	uleb(b, 4);
	put8(b, 0);
	unit_end(b, at);
	at = cu_header(b, 5, dense);
	uleb(b, 1);
	uleb(b, 2);
	put8(b, 6);
	uleb(b, 3);
	put8(b, 0);
	unit_end(b, at);

	CHECK_EQ_INT(dw_load(w), 0);
	CHECK_EQ_INT(w->nr, 2);
	if (w->nr == 2) {
		check_sparse(w, &w->units[0]);
		check_dense(w, &w->units[1]);
	}
	dw_free(w);
}

/* A unit that ends without the null entries of its last children */

static void test_unit_end(void)
{
	struct dw *w = dw_new();
	struct sec *b = &w->info;
	const struct dwarf_abbrev *ab;
	struct dwarf_reader r;
	struct dwarf_die d;
	struct dwarf_unit *u;
	size_t at;

	children_abbrevs(&w->abbrev);
	at = cu_header(b, 5, 0);
	uleb(b, AB_CU);
	uleb(b, AB_NOSIB);
	put8(b, 1);
	put_var(b, 2);
	unit_end(b, at);
	/* the next unit, which the reader of the first must not go into */
	at = cu_header(b, 5, 0);
	uleb(b, AB_VAR);
	put8(b, 3);
	unit_end(b, at);

	CHECK_EQ_INT(dw_load(w), 0);
	CHECK_EQ_INT(w->nr, 2);
	if (w->nr != 2)
		goto out;
	u = &w->units[0];
	dwarf_die__reader_init(&r, &w->s, u, u->die);
	read_next(&r, u->die, DW_TAG_compile_unit, &d);
	read_next(&r, u->die + 1, DW_TAG_subprogram, &d);
	read_next(&r, u->die + 3, DW_TAG_variable, &d);
	CHECK_EQ_INT(udata_of(&d, DS_DECL_LINE), 2);
	read_next(&r, u->end, 0, &d);
	read_next(&r, u->end, 0, &d);

	dwarf_die__reader_init(&r, &w->s, u, u->die);
	ab = next_at(&r, u->die);
	CHECK(ab != NULL);
	if (ab)
		dwarf_die__skip(&r, ab, u->die);
	CHECK_EQ_INT(r.error, 0);
	CHECK_EQ_INT(dwarf_die__reader_off(&r), u->end);

	/* the end is no DIE to start at */
	dwarf_die__reader_init(&r, &w->s, u, u->end);
	CHECK_EQ_INT(r.error, -EINVAL);
	CHECK(next_at(&r, u->end) == NULL);
out:
	dw_free(w);
}

/* DWARF 4 .debug_ranges */

static void put_pair(struct sec *b, uint64_t a, uint64_t c, size_t addr_size)
{
	put_un(b, a, addr_size);
	put_un(b, c, addr_size);
}

struct dw4 {
	uint64_t list, list4, truncated;
	uint64_t cu, sub[4], cu4;
};

static void dw4_ranges(struct sec *b, struct dw4 *x)
{
	put_pair(b, 0x1, 0x2, 8);
	put_pair(b, 0, 0, 8);
	x->list = b->n;
	put_pair(b, 0x10, 0x20, 8);
	put_pair(b, 0x30, 0x30, 8);		 /* empty */
	put_pair(b, 0xffffffff, 0x100000000, 8); /* with 8-byte addresses, no base selection */
	put_pair(b, UINT64_MAX, 0x50000, 8);
	put_pair(b, 0x4, 0x8, 8);
	put_pair(b, 0, 0, 8);
	put_pair(b, 0x100, 0x200, 8); /* not part of the list */
	x->list4 = b->n;
	put_pair(b, 0xffffffff, 0x8000, 4);
	put_pair(b, 0x10, 0x20, 4);
	put_pair(b, 0, 0, 4);
	x->truncated = b->n;
	put_pair(b, 0x10, 0x20, 8);
}

static void dw4_abbrevs(struct sec *ab)
{
	abbrev(ab, 1, DW_TAG_compile_unit, true,
	       ATTRS(DW_AT_low_pc, DW_FORM_addr, DW_AT_ranges, DW_FORM_sec_offset, DW_AT_name,
		     DW_FORM_string));
	abbrev(ab, 2, DW_TAG_subprogram, false, ATTRS(DW_AT_ranges, DW_FORM_sec_offset));
	abbrev(ab, 3, DW_TAG_subprogram, false,
	       ATTRS(DW_AT_low_pc, DW_FORM_addr, DW_AT_high_pc, DW_FORM_addr));
	put8(ab, 0);
}

static void dw4_build(struct dw *w, struct dw4 *x)
{
	struct sec *b = &w->info;
	size_t at;

	dw4_ranges(&w->ranges, x);
	dw4_abbrevs(&w->abbrev);
	at = cu_header(b, 4, 0);
	x->cu = b->n;
	uleb(b, 1);
	put64(b, 0x10000);
	put32(b, (uint32_t)x->list);
	put_str(b, "cu");
	x->sub[0] = b->n;
	uleb(b, 2);
	put32(b, (uint32_t)w->ranges.n); /* the section's end */
	x->sub[1] = b->n;
	uleb(b, 2);
	put32(b, (uint32_t)x->truncated);
	x->sub[2] = b->n;
	uleb(b, 3);
	put64(b, 0x20000);
	put64(b, 0x20100);
	x->sub[3] = b->n;
	uleb(b, 3);
	put64(b, 0x20100);
	put64(b, 0x20000); /* high below low: no range */
	put8(b, 0);
	unit_end(b, at);

	at = unit_header(b, 4, false, 4, 0);
	x->cu4 = b->n;
	uleb(b, 1);
	put32(b, 0x1000);
	put32(b, (uint32_t)x->list4);
	put_str(b, "cu4");
	unit_end(b, at);
}

static void check_dw4(struct dw *w, struct dw4 *x)
{
	static const uint64_t want[] = {
		0x10010, 0x10020, 0x10000 + 0xffffffffull, 0x10000 + 0x100000000, 0x50004, 0x50008
	};
	static const uint64_t want4[] = { 0x8010, 0x8020 };
	struct dwarf_unit *u = &w->units[0];
	struct dwarf_die d;
	struct ranges rs;

	CHECK(dwarf_die__read_unit_bases(&w->s, u, &d));
	CHECK_EQ_INT(u->type, DW_UT_compile);
	CHECK_EQ_INT(addr_of(w, u, &d, DS_LOW_PC), 0x10000);
	CHECK_EQ_INT(ranges_of(w, u, &d, 0x10000, &rs, 0), 0);
	check_ranges(&rs, want, 3);

	CHECK(dwarf_die__read(&w->s, u, x->sub[0], &d));
	CHECK_EQ_INT(ranges_of(w, u, &d, 0x10000, &rs, 0), -EINVAL);
	CHECK_EQ_INT(rs.nr, 0);
	CHECK(dwarf_die__read(&w->s, u, x->sub[1], &d));
	CHECK_EQ_INT(ranges_of(w, u, &d, 0x10000, &rs, 0), -EINVAL);
	CHECK(dwarf_die__read(&w->s, u, x->sub[2], &d));
	CHECK_EQ_INT(ranges_of(w, u, &d, 0x10000, &rs, 0), 0);
	CHECK_EQ_INT(rs.nr, 1);
	CHECK_EQ_INT(rs.lo[0], 0x20000);
	CHECK_EQ_INT(rs.hi[0], 0x20100);
	CHECK(dwarf_die__read(&w->s, u, x->sub[3], &d));
	CHECK_EQ_INT(ranges_of(w, u, &d, 0x10000, &rs, 0), 0);
	CHECK_EQ_INT(rs.nr, 0);

	/* with 4-byte addresses, 0xffffffff selects a base */
	u = &w->units[1];
	CHECK_EQ_INT(u->addr_size, 4);
	CHECK(dwarf_die__read(&w->s, u, x->cu4, &d));
	CHECK_EQ_STR(str_of(w, u, &d, DS_NAME), "cu4");
	CHECK_EQ_INT(ranges_of(w, u, &d, 0x1000, &rs, 0), 0);
	check_ranges(&rs, want4, 1);
}

static void test_dwarf4_ranges(void)
{
	struct dw *w = dw_new();
	struct dw4 x;

	dw4_build(w, &x);
	CHECK_EQ_INT(dw_load(w), 0);
	CHECK_EQ_INT(w->nr, 2);
	if (w->nr == 2)
		check_dw4(w, &x);
	dw_free(w);
}

/* References */

struct refs {
	uint64_t target;     /* in the first unit */
	uint64_t user, edge; /* in the second */
	uint64_t user2;	     /* in the third, of DWARF 2 */
};

static void refs_abbrevs(struct sec *ab)
{
	abbrev(ab, 1, DW_TAG_compile_unit, true, ATTRS(DW_AT_name, DW_FORM_string));
	abbrev(ab, 2, DW_TAG_subprogram, false, ATTRS(DW_AT_name, DW_FORM_string));
	abbrev(ab, 3, DW_TAG_inlined_subroutine, false,
	       ATTRS(DW_AT_abstract_origin, DW_FORM_ref_addr, DW_AT_specification, DW_FORM_ref4));
	abbrev(ab, 4, DW_TAG_variable, false,
	       ATTRS(DW_AT_abstract_origin, DW_FORM_ref4, DW_AT_specification, DW_FORM_ref4));
	put8(ab, 0);
}

/*
 * A unit whose DIE at *user refers to the first unit's target and to the
 * DIE after it in its own; then the one at *edge, whose ref4s are the
 * unit's size and its size less one.
 */
static void refs_unit(struct sec *b, uint16_t version, uint64_t target, uint64_t *user,
		      uint64_t *edge)
{
	size_t at = cu_header(b, version, 0);

	uleb(b, 1);
	put_str(b, "u2");
	*user = b->n;
	uleb(b, 3);
	put_un(b, target, version <= 2 ? 8 : 4); /* DWARF 2's ref_addr has the address size */
	put32(b, (uint32_t)(b->n + 4 - at));
	uleb(b, 2);
	put_str(b, "spec");
	*edge = b->n;
	uleb(b, 4);
	put32(b, 0);
	put32(b, 0);
	put8(b, 0);
	unit_end(b, at);
	patch_u32(b, *edge + 1, (uint32_t)(b->n - at));
	patch_u32(b, *edge + 5, (uint32_t)(b->n - 1 - at));
}

static void refs_build(struct dw *w, struct refs *x)
{
	struct sec *b = &w->info;
	uint64_t edge2;
	size_t at;

	refs_abbrevs(&w->abbrev);
	at = cu_header(b, 4, 0);
	uleb(b, 1);
	put_str(b, "u1");
	x->target = b->n;
	uleb(b, 2);
	put_str(b, "target");
	put8(b, 0);
	unit_end(b, at);
	refs_unit(b, 4, x->target, &x->user, &x->edge);
	refs_unit(b, 2, x->target, &x->user2, &edge2);
}

/* From the DIE at user, its references: to the first unit, and to spec in its own. */
static void check_user(struct dw *w, struct dwarf_unit *u, uint64_t user, const struct refs *x)
{
	struct dwarf_unit *found;
	struct dwarf_die d;
	uint64_t to;

	CHECK(dwarf_die__read(&w->s, u, user, &d));
	CHECK_EQ_INT(d.v[DS_ABSTRACT_ORIGIN].form, DW_FORM_ref_addr);
	to = ref_of(u, &d, DS_ABSTRACT_ORIGIN);
	CHECK_EQ_INT(to, x->target);
	found = dwarf_die__find_unit(w->units, w->nr, to);
	CHECK(found == &w->units[0]);
	if (found) {
		CHECK(dwarf_die__read(&w->s, found, to, &d));
		CHECK_EQ_INT(d.tag, DW_TAG_subprogram);
		CHECK_EQ_STR(str_of(w, found, &d, DS_NAME), "target");
	}
	CHECK(dwarf_die__read(&w->s, u, user, &d));
	to = ref_of(u, &d, DS_SPECIFICATION);
	CHECK_EQ_INT(to, user + 1 + (u->version <= 2 ? 8 : 4) + 4);
	CHECK(dwarf_die__read(&w->s, u, to, &d));
	CHECK_EQ_STR(str_of(w, u, &d, DS_NAME), "spec");
}

static void check_refs(struct dw *w, const struct refs *x)
{
	struct dwarf_unit *u = &w->units[1];
	struct dwarf_die d;

	check_user(w, u, x->user, x);
	check_user(w, &w->units[2], x->user2, x);

	/* ref4 of the unit's size is past it; of its size less one, its last byte */
	CHECK(dwarf_die__read(&w->s, u, x->edge, &d));
	CHECK_EQ_INT(ref_of(u, &d, DS_ABSTRACT_ORIGIN), NONE);
	CHECK_EQ_INT(ref_of(u, &d, DS_SPECIFICATION), u->end - 1);

	CHECK(dwarf_die__find_unit(w->units, w->nr, 0) == &w->units[0]);
	CHECK(dwarf_die__find_unit(w->units, w->nr, w->units[0].end - 1) == &w->units[0]);
	CHECK(dwarf_die__find_unit(w->units, w->nr, w->units[0].end) == &w->units[1]);
	CHECK(dwarf_die__find_unit(w->units, w->nr, w->units[2].end) == NULL);
}

static void test_references(void)
{
	struct dw *w = dw_new();
	struct refs x;

	refs_build(w, &x);
	CHECK_EQ_INT(dw_load(w), 0);
	CHECK_EQ_INT(w->nr, 3);
	if (w->nr == 3) {
		CHECK_EQ_INT(w->units[2].version, 2);
		check_refs(w, &x);
	}
	dw_free(w);
}

/* 64-bit DWARF */

static void dwarf64_build(struct dw *w, uint64_t *sub)
{
	struct sec *b = &w->info;
	uint64_t wrong;
	size_t at, ref_at;

	put8(&w->str, 0);
	wrong = put_str(&w->str, "wrong");
	/* no DW_AT_str_offsets_base: the default is past a 64-bit header, of 16 bytes */
	at = table_header(&w->str_offsets, true);
	put16(&w->str_offsets, 0);
	put64(&w->str_offsets, wrong);
	put64(&w->str_offsets, put_str(&w->str, "link64"));
	unit_end(&w->str_offsets, at);

	abbrev(&w->abbrev, 1, DW_TAG_compile_unit, true,
	       ATTRS(DW_AT_name, DW_FORM_strp, DW_AT_stmt_list, DW_FORM_sec_offset,
		     DW_AT_linkage_name, DW_FORM_strx1, DW_AT_specification, DW_FORM_ref_addr,
		     DW_AT_decl_line, DW_FORM_data1));
	abbrev(&w->abbrev, 2, DW_TAG_subprogram, false, ATTRS(DW_AT_name, DW_FORM_string));
	put8(&w->abbrev, 0);

	at = unit_header(b, 5, true, 8, 0);
	uleb(b, 1);
	put64(b, put_str(&w->str, "name64"));
	put64(b, 0x100000002);
	put8(b, 1);
	ref_at = b->n;
	put64(b, 0);
	put8(b, 77);
	*sub = b->n;
	memcpy(b->d + ref_at, sub, 8);
	uleb(b, 2);
	put_str(b, "sub");
	put8(b, 0);
	unit_end(b, at);
}

static void test_dwarf64(void)
{
	struct dw *w = dw_new();
	struct dwarf_unit *u;
	struct dwarf_die d;
	uint64_t sub;

	dwarf64_build(w, &sub);
	CHECK_EQ_INT(dw_load(w), 0);
	CHECK_EQ_INT(w->nr, 1);
	if (w->nr != 1)
		goto out;
	u = &w->units[0];
	CHECK_EQ_INT(u->offset_size, 8);
	CHECK_EQ_INT(u->die, 12 + 2 + 1 + 1 + 8);
	CHECK_EQ_INT(u->end, w->info.n);
	CHECK_EQ_INT(u->str_offsets_base, 16);
	CHECK(dwarf_die__read_unit_bases(&w->s, u, &d));
	CHECK_EQ_STR(str_of(w, u, &d, DS_NAME), "name64");
	CHECK_EQ_INT(udata_of(&d, DS_STMT_LIST), 0x100000002);
	CHECK_EQ_STR(str_of(w, u, &d, DS_LINKAGE_NAME), "link64");
	CHECK_EQ_INT(udata_of(&d, DS_DECL_LINE), 77);
	CHECK_EQ_INT(ref_of(u, &d, DS_SPECIFICATION), sub);
	CHECK(dwarf_die__read(&w->s, u, sub, &d));
	CHECK_EQ_STR(str_of(w, u, &d, DS_NAME), "sub");
out:
	dw_free(w);
}

/* Malformed input */

/* A unit of one DIE without attributes, abbreviation 1. */
static void put_tiny_unit(struct sec *b, uint16_t version)
{
	size_t at = cu_header(b, version, 0);

	uleb(b, 1);
	unit_end(b, at);
}

/* How many units dwarf_die__read_units finds in info, with a one-entry .debug_abbrev. */
static size_t units_in(const struct sec *info)
{
	struct dw *w = dw_new();
	size_t nr;

	abbrev(&w->abbrev, 1, DW_TAG_compile_unit, false, NO_ATTRS);
	put8(&w->abbrev, 0);
	w->info = *info;
	CHECK_EQ_INT(dw_load(w), 0);
	nr = w->nr;
	dw_free(w);
	return nr;
}

static void test_bad_headers(void)
{
	struct sec *b = calloc(1, sizeof(*b));
	size_t at;

	CHECK(b != NULL);
	if (!b)
		return;
	put_tiny_unit(b, 5);
	put_tiny_unit(b, 4);
	CHECK_EQ_INT(units_in(b), 2);

	b->n = 0;
	put_tiny_unit(b, 5);
	put32(b, 0x1000); /* past the section's end */
	put16(b, 5);
	CHECK_EQ_INT(units_in(b), 1);

	b->n = 0;
	put_tiny_unit(b, 5);
	put_tiny_unit(b, 6);
	put_tiny_unit(b, 5); /* after one not read, whose length holds: read */
	CHECK_EQ_INT(units_in(b), 2);

	b->n = 0;
	put_tiny_unit(b, 1);
	CHECK_EQ_INT(units_in(b), 0);

	b->n = 0;
	put32(b, 0xfffffff0); /* reserved */
	put(b, (const uint8_t[16]){ 0 }, 16);
	CHECK_EQ_INT(units_in(b), 0);

	b->n = 0;
	at = entry_begin(b, true); /* a 64-bit length past the end */
	put16(b, 5);
	unit_end(b, at);
	b->d[at + 4] += 1;
	CHECK_EQ_INT(units_in(b), 0);

	b->n = 0;
	at = unit_header(b, 5, false, 2, 0); /* 2-byte addresses */
	uleb(b, 1);
	unit_end(b, at);
	CHECK_EQ_INT(units_in(b), 0);

	b->n = 0;
	at = cu_header(b, 5, 1000); /* abbreviations past .debug_abbrev */
	uleb(b, 1);
	unit_end(b, at);
	CHECK_EQ_INT(units_in(b), 0);
	free(b);
}

/* Each DIE after the unit DIE fails to read, each in its own way. */
enum {
	BAD_FORM = 2, /* an unknown form */
	BAD_INDIRECT, /* DW_FORM_indirect to DW_FORM_indirect */
	BAD_IMPLICIT, /* DW_FORM_indirect to DW_FORM_implicit_const */
	BAD_LEB,      /* its LEB128 truncated by the unit's end */
	BAD_STRING,   /* a DW_FORM_string truncated by the unit's end */
	BAD_WIDE,     /* a form past 16 bits: the table ends before it, so it is last */
};

static void bad_abbrevs(struct sec *ab)
{
	abbrev(ab, 1, DW_TAG_compile_unit, true, ATTRS(DW_AT_name, DW_FORM_string));
	abbrev(ab, BAD_FORM, DW_TAG_variable, false,
	       ATTRS(DW_AT_decl_line, DW_FORM_data1, DW_AT_name, 0x7f));
	abbrev(ab, BAD_INDIRECT, DW_TAG_variable, false, ATTRS(DW_AT_name, DW_FORM_indirect));
	abbrev(ab, BAD_IMPLICIT, DW_TAG_variable, false, ATTRS(DW_AT_name, DW_FORM_indirect));
	abbrev(ab, BAD_LEB, DW_TAG_variable, false, ATTRS(DW_AT_decl_line, DW_FORM_udata));
	abbrev(ab, BAD_STRING, DW_TAG_variable, false, ATTRS(DW_AT_name, DW_FORM_string));
	abbrev_begin(ab, BAD_WIDE, DW_TAG_variable, false);
	abbrev_attr(ab, DW_AT_name, 0x10000 | DW_FORM_string);
	abbrev_end(ab);
	put8(ab, 0);
}

/* A unit of the unit DIE and one bad DIE, whose bytes are given; returns the DIE's offset. */
static uint64_t put_bad_unit(struct sec *b, uint64_t code, const uint8_t *bytes, size_t len)
{
	size_t at = cu_header(b, 5, 0);
	uint64_t die;

	uleb(b, 1);
	put_str(b, "cu");
	die = b->n;
	uleb(b, code);
	put(b, bytes, len);
	unit_end(b, at);
	return die;
}

#define NR_BAD 7

/* DIE i of unit i; the last one's abbreviation code itself is truncated. */
static void bad_build(struct sec *b, uint64_t *die)
{
	die[0] = put_bad_unit(b, BAD_FORM, (const uint8_t[]){ 5, 'x', 0 }, 3);
	die[1] = put_bad_unit(b, BAD_INDIRECT, (const uint8_t[]){ DW_FORM_indirect, 8, 'x', 0 }, 4);
	die[2] = put_bad_unit(b, BAD_IMPLICIT, (const uint8_t[]){ DW_FORM_implicit_const, 0 }, 2);
	die[3] = put_bad_unit(b, BAD_LEB, (const uint8_t[]){ 0x80, 0x80 }, 2);
	die[4] = put_bad_unit(b, BAD_STRING, (const uint8_t[]){ 'x', 'y' }, 2);
	die[5] = put_bad_unit(b, BAD_WIDE, (const uint8_t[]){ 'x', 0 }, 2);
	die[6] = put_bad_unit(b, 0x80, NULL, 0);
}

static void check_bad_die(struct dw *w, struct dwarf_unit *u, uint64_t die, bool code_read)
{
	const struct dwarf_abbrev *ab;
	struct dwarf_reader r;
	struct dwarf_die d;

	CHECK(!dwarf_die__read(&w->s, u, die, &d));
	dwarf_die__reader_init(&r, &w->s, u, die);
	ab = next_at(&r, die);
	CHECK_EQ_INT(ab != NULL, code_read);
	if (ab)
		dwarf_die__attrs(&r, ab, die, &d);
	CHECK_EQ_INT(r.error, -EINVAL);
	CHECK(dwarf_die__next(&r, &die) == NULL);

	/* and passed over, as part of the unit DIE's children */
	dwarf_die__reader_init(&r, &w->s, u, u->die);
	ab = next_at(&r, u->die);
	CHECK(ab != NULL);
	if (ab)
		dwarf_die__skip(&r, ab, u->die);
	CHECK_EQ_INT(r.error, -EINVAL);
}

static void test_bad_dies(void)
{
	static const bool code_read[NR_BAD] = { true, true, true, true, true, false, false };
	struct dw *w = dw_new();
	uint64_t die[NR_BAD];
	struct dwarf_reader r;

	bad_abbrevs(&w->abbrev);
	bad_build(&w->info, die);
	CHECK_EQ_INT(dw_load(w), 0);
	CHECK_EQ_INT(w->nr, NR_BAD);
	for (size_t i = 0; i < NR_BAD && w->nr == NR_BAD; i++)
		check_bad_die(w, &w->units[i], die[i], code_read[i]);

	/* an offset in the unit's header is no DIE */
	if (w->nr) {
		dwarf_die__reader_init(&r, &w->s, &w->units[0], w->units[0].die - 1);
		CHECK_EQ_INT(r.error, -EINVAL);
		CHECK(next_at(&r, w->units[0].end) == NULL);
	}
	dw_free(w);
}

/* Indexes and offsets out of their sections. */
static void bad_values_build(struct dw *w)
{
	size_t at;

	put8(&w->str, 0);
	at = table_header(&w->str_offsets, false);
	put16(&w->str_offsets, 0);
	put32(&w->str_offsets, (uint32_t)put_str(&w->str, "last"));
	put32(&w->str_offsets, 1000); /* past .debug_str */
	put32(&w->str_offsets, (uint32_t)w->str.n);
	unit_end(&w->str_offsets, at);
	put(&w->str, "open", 4); /* no NUL before the section's end */

	at = table_header(&w->addr, false);
	put8(&w->addr, 8);
	put8(&w->addr, 0);
	put64(&w->addr, 0x1000);
	unit_end(&w->addr, at);

	at = table_header(&w->rnglists, false);
	put8(&w->rnglists, 8);
	put8(&w->rnglists, 0);
	put32(&w->rnglists, 2);
	put32(&w->rnglists, 8);
	put32(&w->rnglists, 9);
	put8(&w->rnglists, 0x7f);		/* not a DW_RLE kind */
	put8(&w->rnglists, DW_RLE_offset_pair); /* the section ends before the list does */
	uleb(&w->rnglists, 1);
	uleb(&w->rnglists, 2);
	unit_end(&w->rnglists, at);

	abbrev(&w->abbrev, 1, DW_TAG_compile_unit, false, NO_ATTRS);
	put8(&w->abbrev, 0);
	put_tiny_unit(&w->info, 5);
}

static const char *str_index(struct dw *w, struct dwarf_unit *u, uint64_t i)
{
	struct dwarf_value v = { i, DW_FORM_strx };

	return dwarf_die__value_str(&w->s, u, &v);
}

static int rnglist_index(struct dw *w, struct dwarf_unit *u, uint64_t i)
{
	struct dwarf_die d = { .present = 1u << DS_RANGES };
	struct ranges rs;

	d.v[DS_RANGES] = (struct dwarf_value){ i, DW_FORM_rnglistx };
	return ranges_of(w, u, &d, 0, &rs, 0);
}

static void test_bad_values(void)
{
	struct dw *w = dw_new();
	struct dwarf_value v;
	struct dwarf_unit *u;
	uint64_t addr;

	bad_values_build(w);
	CHECK_EQ_INT(dw_load(w), 0);
	CHECK_EQ_INT(w->nr, 1);
	if (w->nr != 1)
		goto out;
	u = &w->units[0];
	u->rnglists_base = 12;
	CHECK_EQ_STR(str_index(w, u, 0), "last");
	CHECK(str_index(w, u, 1) == NULL);
	CHECK(str_index(w, u, 2) == NULL);
	CHECK(str_index(w, u, 3) == NULL);
	CHECK(str_index(w, u, UINT64_MAX / 2) == NULL);
	v = (struct dwarf_value){ w->str.n, DW_FORM_strp };
	CHECK(dwarf_die__value_str(&w->s, u, &v) == NULL);

	v = (struct dwarf_value){ 0, DW_FORM_addrx };
	CHECK(dwarf_die__value_addr(&w->s, u, &v, &addr) && addr == 0x1000);
	v.val = 1;
	CHECK(!dwarf_die__value_addr(&w->s, u, &v, &addr));
	v.val = UINT64_MAX / 4;
	CHECK(!dwarf_die__value_addr(&w->s, u, &v, &addr));
	v = (struct dwarf_value){ 0, DW_FORM_data4 };
	CHECK(!dwarf_die__value_addr(&w->s, u, &v, &addr));

	CHECK_EQ_INT(rnglist_index(w, u, 0), -EINVAL);
	CHECK_EQ_INT(rnglist_index(w, u, 1), -EINVAL);
	CHECK_EQ_INT(rnglist_index(w, u, 3), -EINVAL);
	CHECK_EQ_INT(rnglist_index(w, u, UINT64_MAX), -EINVAL);
out:
	dw_free(w);
}

int main(void)
{
	RUN(test_dwarf5_unit);
	RUN(test_skipped_forms);
	RUN(test_skip_children);
	RUN(test_skip_depth);
	RUN(test_abbrev_codes);
	RUN(test_unit_end);
	RUN(test_dwarf4_ranges);
	RUN(test_references);
	RUN(test_dwarf64);
	RUN(test_bad_headers);
	RUN(test_bad_dies);
	RUN(test_bad_values);
	return test_summary();
}
