/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DIEs of .debug_info, read in place: unit headers, abbreviation
 * tables, and of each DIE its tag and the attributes the symbolizer uses
 * (core/symbols/dwarf_lines.c), every other attribute skipped by its form.
 * DWARF 2 to 5, 32- and 64-bit units, the GNU forms of split DWARF.
 *
 * It is a reader of our own rather than libdwarf because libdwarf builds an
 * object for each DIE, attribute list and range list, and a DWARF-rich
 * library has millions of DIEs: reading every function of libpython took
 * most of its time allocating and freeing them. Here nothing is allocated
 * per DIE: a DIE is decoded into a struct dwarf_die on the caller's stack.
 *
 * The sections come from an untrusted file. Every read is bounded by its
 * unit or section; a form not known, an abbreviation code not in the table
 * or a read past the end makes the reader bad, and the caller gives up on
 * that unit. Offsets found in the data (siblings, references, range lists)
 * are checked before they are followed; following them in a loop is the
 * caller's to bound.
 */
#ifndef UNWPROF_DWARF_DIE_H
#define UNWPROF_DWARF_DIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../elf/elf_file.h"
#include "../util/cursor.h"

/* The sections the reader uses; one that is absent has size 0. */
struct dwarf_sections {
	struct elf_section info, abbrev, str, line_str, str_offsets, addr, ranges, rnglists;
};

/* The attributes decoded, each in a slot of struct dwarf_die. */
enum dwarf_slot {
	DS_SIBLING,
	DS_LOW_PC,
	DS_HIGH_PC,
	DS_RANGES,
	DS_NAME,
	DS_LINKAGE_NAME,
	DS_COMP_DIR,
	DS_STMT_LIST,
	DS_ABSTRACT_ORIGIN,
	DS_SPECIFICATION,
	DS_CALL_FILE,
	DS_CALL_LINE,
	DS_DECL_FILE,
	DS_DECL_LINE,
	DS_STR_OFFSETS_BASE,
	DS_ADDR_BASE,
	DS_RNGLISTS_BASE,
	DS_LANGUAGE,
	DS_NR,
	DS_NONE = 0xff,
};

/* An attribute's value as its form gives it; the accessors below interpret it. */
struct dwarf_value {
	uint64_t val; /* DW_FORM_string: the string's offset in .debug_info */
	uint16_t form;
};

struct dwarf_abbrev_attr {
	uint16_t form;
	uint8_t slot;	  /* enum dwarf_slot */
	int8_t size;	  /* bytes of its value when its form says (up to 8), else -1 */
	int64_t implicit; /* DW_FORM_implicit_const's value */
};

struct dwarf_abbrev {
	uint64_t code;
	uint16_t tag;
	bool children;
	int8_t sibling_size; /* of its DW_AT_sibling at sibling_at, when that is known; else 0 */
	uint32_t first, nr;  /* attributes, in the table's attrs */
	int32_t fixed_size;  /* bytes of its attributes when every form has a fixed size, else -1 */
	int32_t sibling_at;  /* where DW_AT_sibling's value is among them */
};

/* A unit's abbreviations, read as far as the codes asked for so far need. */
struct dwarf_abbrevs {
	struct dwarf_abbrev *list; /* in section order */
	size_t nr, cap;
	struct dwarf_abbrev_attr *attrs;
	size_t nr_attrs, cap_attrs;
	uint64_t next;	  /* offset in .debug_abbrev of the first entry not read */
	bool dense, done; /* dense: list[i].code == i + 1 for all i */
	bool unit_read;	  /* unit holds the unit DIE's entry, read alone */
	struct dwarf_abbrev unit;
};

struct dwarf_unit {
	uint64_t off; /* of its header in .debug_info */
	uint64_t end; /* one past its last byte */
	uint64_t die; /* of its unit DIE */
	uint64_t abbrev_off;
	uint16_t version;
	uint8_t type; /* DW_UT_*, from the unit DIE's tag before DWARF 5 */
	uint8_t addr_size, offset_size;
	/* DWARF 5 bases, from the unit DIE (dwarf_die__read_unit_bases) */
	uint64_t str_offsets_base, addr_base, rnglists_base;
	struct dwarf_abbrevs abbrevs;
};

/*
 * The unit headers of s->info, in section order, into *units (to free with
 * dwarf_die__free_units). A unit whose header cannot be read (a version not
 * known, a wrong address size) is left out; a length past the end of the
 * section ends the list, the units before it kept. 0 or -ENOMEM.
 */
int dwarf_die__read_units(const struct dwarf_sections *s, struct dwarf_unit **units, size_t *nr);
void dwarf_die__free_units(struct dwarf_unit *units, size_t nr);

/* The unit whose bytes hold .debug_info offset off, NULL when none does. */
struct dwarf_unit *dwarf_die__find_unit(struct dwarf_unit *units, size_t nr, uint64_t off);

struct dwarf_die {
	uint64_t off;	  /* of the DIE in .debug_info */
	uint16_t tag;	  /* 0: the null entry that ends a list of children */
	bool children;	  /* its children follow it */
	uint32_t present; /* a bit for each slot that the DIE has */
	struct dwarf_value v[DS_NR];
};

static inline bool dwarf_die__has(const struct dwarf_die *d, enum dwarf_slot slot)
{
	return d->present & (1u << slot);
}

/* Walks the DIEs of one unit. */
struct dwarf_reader {
	const struct dwarf_sections *s;
	struct dwarf_unit *u;
	struct cursor c; /* inside the unit */
	int error;	 /* 0, -EINVAL (malformed) or -ENOMEM: the reader stops */
};

/* A reader at .debug_info offset off, which must be inside u's DIEs. */
void dwarf_die__reader_init(struct dwarf_reader *r, const struct dwarf_sections *s,
			    struct dwarf_unit *u, uint64_t off);
uint64_t dwarf_die__reader_off(const struct dwarf_reader *r);

/*
 * The abbreviation of the next DIE, whose offset goes to *off; one whose
 * tag is 0 for a null entry. NULL when the reader is bad. Then the DIE's
 * attributes are read with dwarf_die__attrs or passed over with
 * dwarf_die__skip_attrs.
 */
const struct dwarf_abbrev *dwarf_die__next_slow(struct dwarf_reader *r, uint64_t *off);
void dwarf_die__attrs(struct dwarf_reader *r, const struct dwarf_abbrev *ab, uint64_t off,
		      struct dwarf_die *d);
void dwarf_die__skip_attrs_slow(struct dwarf_reader *r, const struct dwarf_abbrev *ab);

/* Inline for the common case (a one-byte code of a table read that far): a walk reads millions. */
static inline const struct dwarf_abbrev *dwarf_die__next(struct dwarf_reader *r, uint64_t *off)
{
	const struct dwarf_abbrevs *t = &r->u->abbrevs;

	if (r->c.p < r->c.end && *r->c.p && *r->c.p < 0x80 && *r->c.p <= t->nr && t->dense) {
		*off = (uint64_t)(r->c.p - r->s->info.data);
		return &t->list[*r->c.p++ - 1];
	}
	return dwarf_die__next_slow(r, off);
}

static inline void dwarf_die__skip_attrs(struct dwarf_reader *r, const struct dwarf_abbrev *ab)
{
	if (ab->fixed_size >= 0 && (size_t)(r->c.end - r->c.p) >= (size_t)ab->fixed_size)
		r->c.p += ab->fixed_size;
	else
		dwarf_die__skip_attrs_slow(r, ab);
}

/* After d's attributes: past all its children, by its DW_AT_sibling when it has a sane one. */
void dwarf_die__skip_children(struct dwarf_reader *r, const struct dwarf_die *d);

/* Instead of reading the attributes of the DIE at off: past it and its children. */
void dwarf_die__skip(struct dwarf_reader *r, const struct dwarf_abbrev *ab, uint64_t off);

/* The whole DIE at off: false when it cannot be read. */
bool dwarf_die__read(const struct dwarf_sections *s, struct dwarf_unit *u, uint64_t off,
		     struct dwarf_die *d);

/* Reads u's unit DIE into *d and takes its DWARF 5 bases; false when it cannot be read. */
bool dwarf_die__read_unit_bases(const struct dwarf_sections *s, struct dwarf_unit *u,
				struct dwarf_die *d);

/* Values, each false or NULL when the form does not give one or what it points to is not there */
bool dwarf_die__value_addr(const struct dwarf_sections *s, const struct dwarf_unit *u,
			   const struct dwarf_value *v, uint64_t *addr);
const char *dwarf_die__value_str(const struct dwarf_sections *s, const struct dwarf_unit *u,
				 const struct dwarf_value *v);
/* A reference, as an offset in .debug_info; references to other files give false. */
bool dwarf_die__value_ref(const struct dwarf_unit *u, const struct dwarf_value *v, uint64_t *off);
/* A constant or a section offset; a negative one gives false. */
bool dwarf_die__value_udata(const struct dwarf_value *v, uint64_t *out);

typedef int (*dwarf_range_fn)(void *ctx, uint64_t lo, uint64_t hi);

/*
 * Calls fn for each non-empty address range [lo, hi) of d: its
 * DW_AT_ranges (relative to base, the unit's DW_AT_low_pc, where DWARF
 * says so), else its DW_AT_low_pc and DW_AT_high_pc. Returns fn's first
 * non-zero result, -EINVAL when the range list cannot be read, 0 when done
 * (also when d has no ranges).
 */
int dwarf_die__ranges(const struct dwarf_sections *s, const struct dwarf_unit *u,
		      const struct dwarf_die *d, uint64_t base, dwarf_range_fn fn, void *ctx);

/* Whether d has code: DW_AT_ranges or DW_AT_low_pc. */
static inline bool dwarf_die__has_code(const struct dwarf_die *d)
{
	return dwarf_die__has(d, DS_RANGES) || dwarf_die__has(d, DS_LOW_PC);
}

#endif
