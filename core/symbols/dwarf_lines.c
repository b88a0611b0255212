// SPDX-License-Identifier: GPL-2.0-only
/*
 * Source lines and inline chains from DWARF, with libdwarf reading sections
 * that core/elf/elf.c hands it. See dwarf_lines.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "debug_line.h"
#include "dwarf_lines.h"
#include "../elf/elf.h"
#include "../util/common.h"
#include "../util/log.h"

#define MAX_SCOPES (1u << 20) /* functions, or inlined calls of one function */
#define MAX_RANGES (1u << 22) /* their address ranges */
#define MAX_ORIGIN_HOPS 8     /* abstract origins and specifications followed for a name */
#define NONE UINT32_MAX

/* The sections libdwarf may ask for; index 0 is ELF's empty section, by libdwarf's convention. */
static const char *const section_names[] = {
	".debug_info", ".debug_abbrev",	     ".debug_line",   ".debug_line_str", ".debug_str",
	".debug_addr", ".debug_str_offsets", ".debug_ranges", ".debug_rnglists", ".debug_aranges",
};
#define NR_SECTION_NAMES (sizeof(section_names) / sizeof(section_names[0]))

struct range {
	uint64_t lo, hi; /* [lo, hi) */
};

/* A row of a sequence of the line table: its address as an offset from the sequence's start. */
struct line_row {
	uint32_t off;
	uint32_t line;
	uint32_t file;
};

/* A run of rows over contiguous addresses [lo, hi), as the line program gives it. */
struct sequence {
	uint64_t lo, hi;
	uint32_t first, nr; /* in unit->rows */
};

/* A function of the unit or a call inlined into one, in tree order. */
/* A function or a call inlined into one, in tree order. */
struct scope {
	uint32_t first_range, nr_ranges; /* in its tree's ranges */
	uint32_t end;			 /* the index after its subtree */
	uint32_t parent;		 /* NONE for the root of a tree */
	uint32_t call_file, call_line;	 /* where it is inlined: 0 for a function */
	uint64_t die;			 /* offset of its DIE */
	bool named;			 /* name and decl read */
	const char *name;
	uint32_t decl_file, decl_line;
	/* A function of the unit's top level: its own tree, read on the first lookup in it. */
	struct tree *inner;
	bool inner_failed;
};

struct tree {
	struct scope *scopes;
	size_t nr_scopes, cap_scopes;
	struct range *ranges;
	size_t nr_ranges, cap_ranges;
};

struct top_range {
	uint64_t lo, hi;
	uint32_t scope;
};

struct unit {
	uint64_t die; /* offset of the unit's DIE in .debug_info */
	uint16_t version;
	bool loaded, failed;
	uint64_t base;	       /* its DW_AT_low_pc: what DWARF 4 range lists are relative to */
	struct line_row *rows; /* by sequence, in program order */
	size_t nr_rows;
	struct sequence *seqs; /* sorted by lo */
	size_t nr_seqs;
	char **files; /* by file number (core/symbols/debug_line.h) */
	size_t nr_files;
	struct tree top;	/* the functions of its top level, without their trees */
	struct top_range *tops; /* their ranges, sorted */
	size_t nr_tops;
};

struct unit_range {
	uint64_t lo, hi;
	uint32_t unit;
};

struct section {
	const char *name;
	struct elf_section sec;
};

struct dwarf_lines {
	/*
	 * First: dwarf_finish() reads the first byte of the object to tell its
	 * own readers' objects (E, F, M, P) from others, which it leaves alone.
	 */
	char kind;
	const struct elf_file *ef;
	struct section sections[NR_SECTION_NAMES + 1];
	unsigned int nr_sections; /* counting the empty one */
	Dwarf_Obj_Access_Interface iface;
	Dwarf_Debug dbg;
	struct unit *units;
	size_t nr_units;
	struct unit_range *index; /* sorted by lo */
	size_t nr_index;
	size_t loaded, failures;
};

/*
 * Whether the unit headers of .debug_rnglists hold together: libdwarf
 * 20210528 reads them all on the first range list and frees twice on some
 * broken ones (a length past the end, a wrong version), so a section that
 * fails here is not handed to it (its range lists then read as errors).
 */
static bool rnglists_sane(const struct elf_section *sec)
{
	const uint8_t *p = sec->data, *end = sec->data + sec->size;

	while (p < end) {
		uint64_t len;
		size_t off_size = 4, hdr;
		uint32_t len32, entries;
		uint16_t version;

		if (end - p < 4)
			return false;
		memcpy(&len32, p, 4);
		p += 4;
		len = len32;
		if (len32 == 0xffffffff) {
			if (end - p < 8)
				return false;
			memcpy(&len, p, 8);
			p += 8;
			off_size = 8;
		} else if (len32 >= 0xfffffff0) {
			return false;
		}
		hdr = 2 + 1 + 1 + 4;
		if (len < hdr || len > (uint64_t)(end - p))
			return false;
		memcpy(&version, p, 2);
		memcpy(&entries, p + 4, 4);
		if (version != 5 || (p[2] != 4 && p[2] != 8) || p[3] != 0 ||
		    (uint64_t)entries * off_size > len - hdr)
			return false;
		p += len;
	}
	return true;
}

/*
 * After a unit is read, its pages of the DWARF are not needed until a
 * function's tree is (a few pages) or another unit is: they stop counting in
 * the resident memory (the sections of a DWARF-rich library are tens of
 * megabytes).
 */
static void release_sections(const struct dwarf_lines *dl)
{
	for (unsigned int i = 1; i < dl->nr_sections; i++)
		elf_file__release(dl->ef, dl->sections[i].sec.data, dl->sections[i].sec.size);
}

/* libdwarf's view of the sections */

static int obj_section_info(void *obj, Dwarf_Half i, Dwarf_Obj_Access_Section *out, int *error)
{
	struct dwarf_lines *dl = obj;

	(void)error;
	if (i >= dl->nr_sections)
		return DW_DLV_NO_ENTRY;
	memset(out, 0, sizeof(*out));
	out->name = dl->sections[i].name;
	out->size = dl->sections[i].sec.size;
	out->type = i ? 1 /* SHT_PROGBITS */ : 0;
	return DW_DLV_OK;
}

static Dwarf_Endianness obj_byte_order(void *obj)
{
	(void)obj;
	return DW_OBJECT_LSB; /* x86_64 and aarch64 as elf.c opens them */
}

static Dwarf_Small obj_length_size(void *obj)
{
	(void)obj;
	return 4;
}

static Dwarf_Small obj_pointer_size(void *obj)
{
	(void)obj;
	return 8;
}

static Dwarf_Unsigned obj_section_count(void *obj)
{
	return ((struct dwarf_lines *)obj)->nr_sections;
}

static int obj_load_section(void *obj, Dwarf_Half i, Dwarf_Small **data, int *error)
{
	struct dwarf_lines *dl = obj;

	(void)error;
	if (i == 0 || i >= dl->nr_sections)
		return DW_DLV_NO_ENTRY;
	*data = (Dwarf_Small *)dl->sections[i].sec.data;
	return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods obj_methods = {
	.get_section_info = obj_section_info,
	.get_byte_order = obj_byte_order,
	.get_length_size = obj_length_size,
	.get_pointer_size = obj_pointer_size,
	.get_section_count = obj_section_count,
	.load_section = obj_load_section,
};

/* libdwarf's three-way results end here: DW_DLV_OK is true, an error is freed. */
static bool ok(struct dwarf_lines *dl, int res, Dwarf_Error err)
{
	if (res == DW_DLV_ERROR) {
		pr_debug("%s: DWARF: %s", elf_file__path(dl->ef), dwarf_errmsg(err));
		dwarf_dealloc_error(dl->dbg, err);
	}
	return res == DW_DLV_OK;
}

/* Attributes */

static bool attr_udata(struct dwarf_lines *dl, Dwarf_Attribute a, uint64_t *v)
{
	Dwarf_Error err = NULL;
	Dwarf_Unsigned u;
	Dwarf_Signed sv;
	Dwarf_Half form;

	/* the form first: a failed read would cost libdwarf an error to build and free */
	if (!ok(dl, dwarf_whatform(a, &form, &err), err))
		return false;
	if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
		if (!ok(dl, dwarf_formsdata(a, &sv, &err), err) || sv < 0)
			return false;
		*v = (uint64_t)sv;
		return true;
	}
	if (!ok(dl, dwarf_formudata(a, &u, &err), err))
		return false;
	*v = u;
	return true;
}

static bool attr_ref(struct dwarf_lines *dl, Dwarf_Attribute a, uint64_t *off)
{
	Dwarf_Error err = NULL;
	Dwarf_Off o;

	if (!ok(dl, dwarf_global_formref(a, &o, &err), err))
		return false;
	*off = o;
	return true;
}

static const char *attr_string(struct dwarf_lines *dl, Dwarf_Attribute a)
{
	Dwarf_Error err = NULL;
	char *s;

	return ok(dl, dwarf_formstring(a, &s, &err), err) ? s : NULL;
}

/* What the DIEs of interest say, from one pass over their attributes. */
struct die_attrs {
	uint64_t low, high;
	bool has_low, has_high, high_is_offset;
	Dwarf_Attribute ranges; /* kept for the range list readers; freed by die_attrs_free */
	const char *name, *linkage_name, *comp_dir;
	uint64_t stmt_list;
	bool has_stmt_list;
	uint64_t origin, spec; /* DW_AT_abstract_origin, DW_AT_specification: 0 when absent */
	uint64_t call_file, call_line, decl_file, decl_line;
};

static void die_attr(struct dwarf_lines *dl, Dwarf_Attribute a, struct die_attrs *da, bool *keep)
{
	Dwarf_Error err = NULL;
	Dwarf_Half num, form;
	Dwarf_Addr addr;

	if (!ok(dl, dwarf_whatattr(a, &num, &err), err))
		return;
	switch (num) {
	case DW_AT_low_pc:
		da->has_low = ok(dl, dwarf_formaddr(a, &addr, &err), err);
		da->low = addr;
		break;
	case DW_AT_high_pc:
		if (!ok(dl, dwarf_whatform(a, &form, &err), err))
			break;
		if (form == DW_FORM_addr || (form >= DW_FORM_addrx && form <= DW_FORM_addrx4) ||
		    form == DW_FORM_GNU_addr_index) {
			da->has_high = ok(dl, dwarf_formaddr(a, &addr, &err), err);
			da->high = addr;
		} else {
			da->has_high = attr_udata(dl, a, &da->high);
			da->high_is_offset = true;
		}
		break;
	case DW_AT_ranges:
		da->ranges = a;
		*keep = true;
		break;
	case DW_AT_name:
		da->name = attr_string(dl, a);
		break;
	case DW_AT_comp_dir:
		da->comp_dir = attr_string(dl, a);
		break;
	case DW_AT_stmt_list:
		da->has_stmt_list = attr_ref(dl, a, &da->stmt_list) ||
				    attr_udata(dl, a, &da->stmt_list);
		break;
	case DW_AT_linkage_name:
	case DW_AT_MIPS_linkage_name:
		da->linkage_name = attr_string(dl, a);
		break;
	case DW_AT_abstract_origin:
		attr_ref(dl, a, &da->origin);
		break;
	case DW_AT_specification:
		attr_ref(dl, a, &da->spec);
		break;
	case DW_AT_call_file:
		attr_udata(dl, a, &da->call_file);
		break;
	case DW_AT_call_line:
		attr_udata(dl, a, &da->call_line);
		break;
	case DW_AT_decl_file:
		attr_udata(dl, a, &da->decl_file);
		break;
	case DW_AT_decl_line:
		attr_udata(dl, a, &da->decl_line);
		break;
	default:
		break;
	}
}

static void die_attrs_read(struct dwarf_lines *dl, Dwarf_Die die, struct die_attrs *da)
{
	Dwarf_Error err = NULL;
	Dwarf_Attribute *list;
	Dwarf_Signed n;

	memset(da, 0, sizeof(*da));
	if (!ok(dl, dwarf_attrlist(die, &list, &n, &err), err))
		return;
	for (Dwarf_Signed i = 0; i < n; i++) {
		bool keep = false;

		die_attr(dl, list[i], da, &keep);
		if (!keep)
			dwarf_dealloc_attribute(list[i]);
	}
	dwarf_dealloc(dl->dbg, list, DW_DLA_LIST);
}

static void die_attrs_free(struct die_attrs *da)
{
	if (da->ranges)
		dwarf_dealloc_attribute(da->ranges);
	da->ranges = NULL;
}

/* Address ranges */

typedef int (*range_fn)(void *ctx, uint64_t lo, uint64_t hi);

/* DWARF 5 .debug_rnglists: libdwarf applies the base addresses. */
static int rnglists_each(struct dwarf_lines *dl, Dwarf_Attribute a, range_fn fn, void *ctx)
{
	Dwarf_Unsigned count = 0, global_off, value;
	Dwarf_Rnglists_Head head = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Half form;
	int ret = 0;

	if (!ok(dl, dwarf_whatform(a, &form, &err), err))
		return -EINVAL;
	if (form == DW_FORM_rnglistx) {
		if (!ok(dl, dwarf_formudata(a, &value, &err), err))
			return -EINVAL;
	} else {
		Dwarf_Off off;

		if (!ok(dl, dwarf_global_formref(a, &off, &err), err))
			return -EINVAL;
		value = off;
	}
	if (!ok(dl, dwarf_rnglists_get_rle_head(a, form, value, &head, &count, &global_off, &err),
		err))
		return -EINVAL;
	for (Dwarf_Unsigned i = 0; !ret && i < count; i++) {
		Dwarf_Unsigned raw1, raw2, lo, hi;
		Dwarf_Bool unavailable = false;
		unsigned int len, code;

		if (!ok(dl,
			dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &raw1, &raw2,
							  &unavailable, &lo, &hi, &err),
			err)) {
			ret = -EINVAL;
			break;
		}
		if (unavailable || code == DW_RLE_end_of_list || code == DW_RLE_base_address ||
		    code == DW_RLE_base_addressx)
			continue;
		if (lo < hi)
			ret = fn(ctx, lo, hi);
	}
	dwarf_dealloc_rnglists_head(head);
	return ret;
}

/* DWARF 2 to 4 .debug_ranges: entries are offsets from the unit's base address. */
static int ranges_each(struct dwarf_lines *dl, Dwarf_Die die, Dwarf_Attribute a, uint64_t base,
		       range_fn fn, void *ctx)
{
	Dwarf_Unsigned bytes;
	Dwarf_Ranges *r = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Off real;
	uint64_t off;
	int ret = 0;

	if (!attr_ref(dl, a, &off) && !attr_udata(dl, a, &off))
		return -EINVAL;
	if (!ok(dl, dwarf_get_ranges_b(dl->dbg, off, die, &real, &r, &n, &bytes, &err), err))
		return -EINVAL;
	for (Dwarf_Signed i = 0; !ret && i < n; i++) {
		if (r[i].dwr_type == DW_RANGES_END)
			break;
		if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
			base = r[i].dwr_addr2;
			continue;
		}
		if (r[i].dwr_addr1 < r[i].dwr_addr2)
			ret = fn(ctx, base + r[i].dwr_addr1, base + r[i].dwr_addr2);
	}
	dwarf_ranges_dealloc(dl->dbg, r, n);
	return ret;
}

/* Calls fn for each address range of a DIE whose attributes are da. */
static int die_ranges(struct dwarf_lines *dl, Dwarf_Die die, uint16_t version, uint64_t base,
		      const struct die_attrs *da, range_fn fn, void *ctx)
{
	uint64_t hi;

	if (da->ranges)
		return version >= 5 ? rnglists_each(dl, da->ranges, fn, ctx) :
				      ranges_each(dl, die, da->ranges, base, fn, ctx);
	if (!da->has_low || !da->has_high)
		return 0;
	hi = da->high_is_offset ? da->low + da->high : da->high;
	return da->low < hi ? fn(ctx, da->low, hi) : 0;
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

	if (dl->nr_index == ic->cap) {
		size_t cap = ic->cap ? ic->cap * 2 : 256;
		struct unit_range *r = reallocarray(dl->index, cap, sizeof(*r));

		if (!r)
			return -ENOMEM;
		dl->index = r;
		ic->cap = cap;
	}
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

static int index_unit(struct dwarf_lines *dl, Dwarf_Die cu, uint16_t version, struct index_ctx *ic)
{
	Dwarf_Error err = NULL;
	Dwarf_Off off;
	struct die_attrs da;
	struct unit *u;
	int ret;

	if (!ok(dl, dwarf_dieoffset(cu, &off, &err), err))
		return 0;
	u = reallocarray(dl->units, dl->nr_units + 1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	dl->units = u;
	u = &dl->units[dl->nr_units];
	memset(u, 0, sizeof(*u));
	u->die = off;
	u->version = version;
	ic->unit = (uint32_t)dl->nr_units++;
	die_attrs_read(dl, cu, &da);
	ret = die_ranges(dl, cu, version, da.has_low ? da.low : 0, &da, index_add, ic);
	die_attrs_free(&da);
	return ret == -ENOMEM ? ret : 0;
}

static int index_units(struct dwarf_lines *dl)
{
	struct index_ctx ic = { .dl = dl };
	int ret = 0;

	for (;;) {
		Dwarf_Unsigned hdr_len, type_off, next;
		Dwarf_Half version, addr_size, len_size, ext_size, type;
		Dwarf_Error err = NULL;
		Dwarf_Die cu = NULL;
		Dwarf_Off abbrev;
		Dwarf_Sig8 sig;
		int res;

		res = dwarf_next_cu_header_d(dl->dbg, true, &hdr_len, &version, &abbrev, &addr_size,
					     &len_size, &ext_size, &sig, &type_off, &next, &type,
					     &err);
		if (!ok(dl, res, err))
			break; /* the end, or a header past which nothing can be read */
		if (!ok(dl, dwarf_siblingof_b(dl->dbg, NULL, true, &cu, &err), err))
			continue;
		if (type == DW_UT_compile || type == DW_UT_partial || type == DW_UT_skeleton)
			ret = index_unit(dl, cu, version, &ic);
		dwarf_dealloc_die(cu);
		if (ret)
			return ret;
	}
	if (dl->nr_index)
		qsort(dl->index, dl->nr_index, sizeof(*dl->index), unit_range_cmp);
	return 0;
}

/* One unit's line table and tree, read on first use */

static int sequence_cmp(const void *pa, const void *pb)
{
	const struct sequence *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* Splits the rows of t into sequences, each row 12 bytes: a large unit has hundreds of thousands. */
static int unit_add_rows(struct unit *u, const struct debug_line_table *t)
{
	size_t start = 0, nr_seqs = 0;

	for (size_t i = 0; i < t->nr_rows; i++)
		nr_seqs += t->rows[i].end;
	u->rows = calloc(t->nr_rows ? t->nr_rows : 1, sizeof(*u->rows));
	u->seqs = calloc(nr_seqs ? nr_seqs : 1, sizeof(*u->seqs));
	if (!u->rows || !u->seqs)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct debug_line_row *r = &t->rows[i];
		struct sequence *sq = &u->seqs[u->nr_seqs];
		uint64_t lo = t->rows[start].addr;

		if (!r->end)
			continue;
		/* a sequence of no bytes, or of more than 4 GiB (hostile), names nothing */
		if (i > start && r->addr > lo && r->addr - lo <= UINT32_MAX) {
			*sq = (struct sequence){ lo, r->addr, (uint32_t)u->nr_rows,
						 (uint32_t)(i - start) };
			for (size_t k = start; k < i; k++)
				u->rows[u->nr_rows++] =
					(struct line_row){ (uint32_t)(t->rows[k].addr - lo),
							   t->rows[k].line, t->rows[k].file };
			u->nr_seqs++;
		}
		start = i + 1;
	}
	qsort(u->seqs, u->nr_seqs, sizeof(*u->seqs), sequence_cmp);
	return 0;
}

/* The section named name, NULL when the file has none (or libdwarf was not given it). */
static const struct elf_section *dl_section(const struct dwarf_lines *dl, const char *name)
{
	for (unsigned int i = 1; i < dl->nr_sections; i++)
		if (strcmp(dl->sections[i].name, name) == 0)
			return &dl->sections[i].sec;
	return NULL;
}

/* The unit's line table, through core/symbols/debug_line.h; none is not an error. */
static int unit_read_lines(struct dwarf_lines *dl, struct unit *u, const struct die_attrs *cu)
{
	struct debug_line_table t;
	int err;

	if (!cu->has_stmt_list)
		return 0;
	err = debug_line__read(dl_section(dl, ".debug_line"), dl_section(dl, ".debug_line_str"),
			       dl_section(dl, ".debug_str"), cu->stmt_list, cu->comp_dir, &t);
	if (err == -ENOMEM)
		return err;
	if (err) {
		pr_debug("%s: line table at 0x%llx not read: %s", elf_file__path(dl->ef),
			 (unsigned long long)cu->stmt_list, strerror(-err));
		return 0; /* functions without lines */
	}
	err = unit_add_rows(u, &t);
	if (err) {
		debug_line__free(&t);
		return err;
	}
	/* the names are taken over */
	u->files = t.files;
	u->nr_files = t.nr_files;
	free(t.rows);
	return 0;
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

static void tree_free(struct tree *t)
{
	if (!t)
		return;
	free(t->scopes);
	free(t->ranges);
	free(t);
}

static bool tag_holds_code(Dwarf_Half tag)
{
	switch (tag) {
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		return true;
	default:
		return false;
	}
}

static int walk_children(struct dwarf_lines *dl, const struct unit *u, struct tree *t,
			 Dwarf_Die die, uint32_t parent, int depth, bool descend);

/*
 * A subprogram or an inlined call: a scope of t when it has code, then
 * (when descend) what it holds.
 */
static int walk_scope(struct dwarf_lines *dl, const struct unit *u, struct tree *t, Dwarf_Die die,
		      uint32_t parent, int depth, bool inlined, bool descend)
{
	struct scope_ctx sc = { .t = t };
	Dwarf_Error err = NULL;
	struct die_attrs da;
	Dwarf_Off off;
	int ret;

	die_attrs_read(dl, die, &da);
	if (!da.ranges && !da.has_low) {
		die_attrs_free(&da);
		return 0; /* a declaration, or code the compiler dropped */
	}
	ret = scope_push(t, parent, &sc.scope);
	if (!ret)
		ret = die_ranges(dl, die, u->version, u->base, &da, scope_add_range, &sc);
	die_attrs_free(&da);
	if (ret)
		return ret;
	if (!ok(dl, dwarf_dieoffset(die, &off, &err), err))
		return -EINVAL;
	t->scopes[sc.scope].die = off;
	if (inlined) {
		t->scopes[sc.scope].call_file =
			(uint32_t)(da.call_file > UINT32_MAX ? 0 : da.call_file);
		t->scopes[sc.scope].call_line =
			(uint32_t)(da.call_line > UINT32_MAX ? 0 : da.call_line);
	}
	if (descend)
		ret = walk_children(dl, u, t, die, sc.scope, depth + 1, true);
	t->scopes[sc.scope].end = (uint32_t)t->nr_scopes;
	return ret;
}

/*
 * The scopes under die. Without descend (the unit's top level), functions
 * are taken without what they hold, and only containers (namespaces,
 * classes) are looked into.
 */
static int walk_children(struct dwarf_lines *dl, const struct unit *u, struct tree *t,
			 Dwarf_Die die, uint32_t parent, int depth, bool descend)
{
	Dwarf_Error err = NULL;
	Dwarf_Die child = NULL;
	int res, ret = 0;

	if (depth > DWARF_LINES_MAX_DEPTH)
		return -ELOOP;
	res = dwarf_child(die, &child, &err);
	if (!ok(dl, res, err))
		return res == DW_DLV_NO_ENTRY ? 0 : -EINVAL;
	while (!ret) {
		Dwarf_Die next = NULL;
		Dwarf_Half tag;

		if (ok(dl, dwarf_tag(child, &tag, &err), err)) {
			if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
				ret = walk_scope(dl, u, t, child, parent, depth,
						 tag == DW_TAG_inlined_subroutine, descend);
			else if (tag_holds_code(tag))
				ret = walk_children(dl, u, t, child, parent, depth + 1, descend);
		}
		res = dwarf_siblingof_b(dl->dbg, child, true, &next, &err);
		dwarf_dealloc_die(child);
		child = next;
		if (!ok(dl, res, err)) {
			if (res == DW_DLV_ERROR && !ret)
				ret = -EINVAL;
			break;
		}
	}
	dwarf_dealloc_die(child); /* the next sibling, when a failure ended the walk */
	return ret;
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
	for (size_t i = 0; i < u->nr_files; i++)
		free(u->files[i]);
	free(u->files);
	u->files = NULL;
	u->nr_files = 0;
	free(u->rows);
	free(u->seqs);
	u->seqs = NULL;
	u->nr_seqs = 0;
	free(u->top.scopes);
	free(u->top.ranges);
	free(u->tops);
	u->rows = NULL;
	u->tops = NULL;
	u->nr_rows = u->nr_tops = 0;
	u->top = (struct tree){ 0 };
}

static void unit_load(struct dwarf_lines *dl, struct unit *u)
{
	Dwarf_Error err = NULL;
	struct die_attrs da;
	Dwarf_Die cu = NULL;
	int ret;

	u->loaded = true;
	dl->loaded++;
	if (!ok(dl, dwarf_offdie_b(dl->dbg, u->die, true, &cu, &err), err)) {
		ret = -EINVAL;
		goto cleanup;
	}
	die_attrs_read(dl, cu, &da);
	die_attrs_free(&da);
	u->base = da.has_low ? da.low : 0;
	ret = unit_read_lines(dl, u, &da);
	if (!ret)
		ret = walk_children(dl, u, &u->top, cu, NONE, 0, false);
	if (!ret)
		ret = unit_index_tops(u);
cleanup:
	dwarf_dealloc_die(cu);
	release_sections(dl);
	if (ret) {
		pr_debug("%s: DWARF unit at 0x%llx not read: %s", elf_file__path(dl->ef),
			 (unsigned long long)u->die, strerror(-ret));
		unit_drop(u);
		u->failed = true;
		dl->failures++;
	}
}

/* The tree of top function s, read on first use; NULL when it cannot be read. */
static struct tree *scope_inner(struct dwarf_lines *dl, const struct unit *u, struct scope *s)
{
	Dwarf_Error err = NULL;
	struct tree *t;
	Dwarf_Die die;
	int ret;

	if (s->inner || s->inner_failed)
		return s->inner;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	if (!ok(dl, dwarf_offdie_b(dl->dbg, s->die, true, &die, &err), err)) {
		ret = -EINVAL;
	} else {
		ret = walk_scope(dl, u, t, die, NONE, 0, false, true);
		dwarf_dealloc_die(die);
	}
	if (!ret && !t->nr_scopes)
		ret = -EINVAL;
	if (ret) {
		pr_debug("%s: DWARF function at 0x%llx not read: %s", elf_file__path(dl->ef),
			 (unsigned long long)s->die, strerror(-ret));
		tree_free(t);
		s->inner_failed = true;
		dl->failures++;
		return NULL;
	}
	s->inner = t;
	return t;
}

/* Lookups */

static const char *unit_file(const struct unit *u, uint64_t fileno)
{
	return fileno < u->nr_files ? u->files[fileno] : NULL;
}

static bool unit_line(const struct unit *u, uint64_t vaddr, const char **file, uint32_t *line)
{
	size_t lo = SORTED_PAST(u->seqs, 0, u->nr_seqs, lo, vaddr);
	const struct sequence *sq = NULL;
	const struct line_row *rows;
	uint32_t off;

	/* sequences overlap only when code was folded or dropped: look a little further back */
	for (size_t i = lo, seen = 0; i > 0 && seen < 16 && !sq; i--, seen++)
		if (vaddr < u->seqs[i - 1].hi)
			sq = &u->seqs[i - 1];
	if (!sq)
		return false;
	/* the last row at or before vaddr; of rows at one address, the last */
	rows = &u->rows[sq->first];
	off = (uint32_t)(vaddr - sq->lo);
	lo = SORTED_PAST(rows, 0, sq->nr, off, off);
	if (!lo)
		return false;
	*file = unit_file(u, rows[lo - 1].file);
	*line = rows[lo - 1].line;
	return true;
}

static bool scope_covers(const struct tree *t, const struct scope *s, uint64_t vaddr)
{
	for (uint32_t r = 0; r < s->nr_ranges; r++) {
		const struct range *rg = &t->ranges[s->first_range + r];

		if (vaddr >= rg->lo && vaddr < rg->hi)
			return true;
	}
	return false;
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

/* The innermost scope of t at vaddr: from its root, down through what covers it. */
static uint32_t innermost_scope(const struct tree *t, uint64_t vaddr)
{
	uint32_t s = 0;

	if (!t->nr_scopes || !scope_covers(t, &t->scopes[0], vaddr))
		return NONE;
	for (int depth = 0; depth < DWARF_LINES_MAX_DEPTH; depth++) {
		uint32_t c = s + 1, found = NONE;

		while (c < t->scopes[s].end && c < t->nr_scopes) {
			if (scope_covers(t, &t->scopes[c], vaddr)) {
				found = c;
				break;
			}
			c = t->scopes[c].end > c ? t->scopes[c].end : c + 1;
		}
		if (found == NONE)
			break;
		s = found;
	}
	return s;
}

/* Reads a scope's name and declaration, through its abstract origin and specification. */
static void scope_name(struct dwarf_lines *dl, struct scope *s)
{
	uint64_t off = s->die;

	s->named = true;
	for (int hop = 0; off && hop < MAX_ORIGIN_HOPS; hop++) {
		Dwarf_Error err = NULL;
		struct die_attrs da;
		Dwarf_Die die;

		if (!ok(dl, dwarf_offdie_b(dl->dbg, off, true, &die, &err), err))
			return;
		die_attrs_read(dl, die, &da);
		die_attrs_free(&da);
		dwarf_dealloc_die(die);
		if (!s->name)
			s->name = da.linkage_name ? da.linkage_name : da.name;
		else if (da.linkage_name)
			s->name =
				da.linkage_name; /* a linkage name found later is still preferred */
		if (!s->decl_line && da.decl_line <= UINT32_MAX) {
			s->decl_line = (uint32_t)da.decl_line;
			s->decl_file = (uint32_t)(da.decl_file > UINT32_MAX ? 0 : da.decl_file);
		}
		if (s->name && da.linkage_name && s->decl_line)
			return;
		off = da.origin ? da.origin : da.spec;
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

struct dwarf_lines *dwarf_lines__open(const struct elf_file *ef)
{
	struct dwarf_lines *dl = calloc(1, sizeof(*dl));
	Dwarf_Error err = NULL;
	int res, ret;

	if (!dl)
		return NULL;
	dl->kind = 'U';
	dl->ef = ef;
	dl->sections[0].name = "";
	dl->nr_sections = 1;
	for (size_t i = 0; i < NR_SECTION_NAMES; i++) {
		struct section *s = &dl->sections[dl->nr_sections];

		if (elf_file__section(ef, section_names[i], &s->sec) == 0 && s->sec.size &&
		    (strcmp(section_names[i], ".debug_rnglists") || rnglists_sane(&s->sec))) {
			s->name = section_names[i];
			dl->nr_sections++;
		}
	}
	if (elf_file__section(ef, ".debug_info", &(struct elf_section){ 0 }) ||
	    elf_file__section(ef, ".debug_line", &(struct elf_section){ 0 })) {
		free(dl);
		errno = ENOENT;
		return NULL;
	}
	dl->iface.object = dl;
	dl->iface.methods = &obj_methods;
	res = dwarf_object_init_b(&dl->iface, NULL, NULL, DW_GROUPNUMBER_ANY, &dl->dbg, &err);
	if (res != DW_DLV_OK) {
		pr_debug("%s: DWARF not read: %s", elf_file__path(ef),
			 res == DW_DLV_ERROR ? dwarf_errmsg(err) : "no DWARF");
		if (res == DW_DLV_ERROR)
			dwarf_dealloc_error(NULL, err);
		free(dl);
		errno = EINVAL;
		return NULL;
	}
	ret = index_units(dl);
	release_sections(dl);
	if (ret) {
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
	Dwarf_Error err = NULL;

	if (!dl)
		return;
	pr_debug("%s: %zu of %zu DWARF units read, %zu of them not readable",
		 elf_file__path(dl->ef), dl->loaded, dl->nr_units, dl->failures);
	for (size_t i = 0; i < dl->nr_units; i++)
		unit_drop(&dl->units[i]);
	free(dl->units);
	free(dl->index);
	if (dl->dbg && dwarf_finish(dl->dbg, &err) == DW_DLV_ERROR)
		dwarf_dealloc_error(NULL, err);
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
