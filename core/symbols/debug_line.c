// SPDX-License-Identifier: GPL-2.0-only
/*
 * The .debug_line line number program, DWARF 2 to 5. See debug_line.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "debug_line.h"
#include "../elf/elf_file.h"
#include "../util/common.h"
#include "../util/cursor.h"

/* The string at off in sec, NULL when off is out of it or the string runs past its end. */
static const char *section_str(const struct elf_section *sec, uint64_t off)
{
	if (!sec || off >= sec->size || !memchr(sec->data + off, 0, sec->size - off))
		return NULL;
	return (const char *)sec->data + off;
}

struct header {
	uint16_t version;
	size_t offset_size;
	uint8_t min_inst_len;
	uint8_t max_ops;
	bool default_is_stmt;
	int8_t line_base;
	uint8_t line_range;
	uint8_t opcode_base;
	const uint8_t *opcode_lengths; /* opcode_base - 1 of them */
};

/* Names read from the header: directories and files (name, directory index). */
struct names {
	const char **dirs;
	size_t nr_dirs, cap_dirs;
	const char **file_names;
	uint64_t *file_dirs;
	size_t nr_files, cap_files;
};

static int names_add_dir(struct names *n, const char *dir)
{
	if (n->nr_dirs == n->cap_dirs) {
		size_t cap = n->cap_dirs ? n->cap_dirs * 2 : 16;
		const char **d = reallocarray(n->dirs, cap, sizeof(*d));

		if (!d)
			return -ENOMEM;
		n->dirs = d;
		n->cap_dirs = cap;
	}
	n->dirs[n->nr_dirs++] = dir;
	return 0;
}

static int names_add_file(struct names *n, const char *name, uint64_t dir)
{
	if (n->nr_files == n->cap_files) {
		size_t cap = n->cap_files ? n->cap_files * 2 : 16;
		const char **f = reallocarray(n->file_names, cap, sizeof(*f));
		uint64_t *d;

		if (!f)
			return -ENOMEM;
		n->file_names = f;
		d = reallocarray(n->file_dirs, cap, sizeof(*d));
		if (!d)
			return -ENOMEM;
		n->file_dirs = d;
		n->cap_files = cap;
	}
	n->file_names[n->nr_files] = name;
	n->file_dirs[n->nr_files++] = dir;
	return 0;
}

/* DWARF 2 to 4: strings ended by an empty one, then (name, dir, mtime, size) ended by a 0. */
static int read_names_v4(struct cursor *c, const char *comp_dir, struct names *n)
{
	int err;

	/* directory 0 is the unit's own; file 0 is no file */
	err = names_add_dir(n, comp_dir);
	if (!err)
		err = names_add_file(n, NULL, 0);
	while (!err && !c->bad && c->p < c->end && *c->p)
		err = names_add_dir(n, get_str(c));
	skip(c, 1);
	while (!err && !c->bad && c->p < c->end && *c->p) {
		const char *name = get_str(c);
		uint64_t dir = get_uleb(c);

		get_uleb(c); /* mtime */
		get_uleb(c); /* size */
		err = names_add_file(n, name, dir);
	}
	skip(c, 1);
	return err ? err : c->bad ? -EINVAL : 0;
}

/* One attribute of a DWARF 5 entry: a string (for a path), a number, or skipped. */
static int read_form(struct cursor *c, const struct header *h, uint64_t form,
		     const struct elf_section *line_str, const struct elf_section *str,
		     const char **s, uint64_t *v)
{
	switch (form) {
	case DW_FORM_string:
		*s = get_str(c);
		return 0;
	case DW_FORM_line_strp:
		*s = section_str(line_str, get_u(c, h->offset_size));
		return 0;
	case DW_FORM_strp:
		*s = section_str(str, get_u(c, h->offset_size));
		return 0;
	case DW_FORM_udata:
		*v = get_uleb(c);
		return 0;
	case DW_FORM_data1:
		*v = get_u(c, 1);
		return 0;
	case DW_FORM_data2:
		*v = get_u(c, 2);
		return 0;
	case DW_FORM_data4:
		*v = get_u(c, 4);
		return 0;
	case DW_FORM_data8:
		*v = get_u(c, 8);
		return 0;
	case DW_FORM_data16:
		skip(c, 16);
		return 0;
	case DW_FORM_block:
		skip(c, get_uleb(c));
		return 0;
	case DW_FORM_strx1:
	case DW_FORM_strx2:
	case DW_FORM_strx3:
	case DW_FORM_strx4:
	case DW_FORM_strx:
		/* needs the unit's string offsets base: the name stays unknown */
		if (form == DW_FORM_strx)
			get_uleb(c);
		else
			skip(c, form == DW_FORM_strx1 ? 1 :
				form == DW_FORM_strx2 ? 2 :
				form == DW_FORM_strx3 ? 3 :
							4);
		return 0;
	default:
		return -ENOTSUP; /* its size is unknown: nothing after it can be read */
	}
}

#define MAX_FORMATS 32

/* DWARF 5: a list of entries whose attributes a format of (content, form) pairs describes. */
static int read_entries_v5(struct cursor *c, const struct header *h,
			   const struct elf_section *line_str, const struct elf_section *str,
			   struct names *n, bool dirs)
{
	uint64_t content[MAX_FORMATS], forms[MAX_FORMATS], count;
	uint8_t nr_formats = (uint8_t)get_u(c, 1);
	int err = 0;

	if (nr_formats > MAX_FORMATS)
		return -ENOTSUP;
	for (uint8_t i = 0; i < nr_formats; i++) {
		content[i] = get_uleb(c);
		forms[i] = get_uleb(c);
	}
	count = get_uleb(c);
	for (uint64_t e = 0; !err && !c->bad && e < count; e++) {
		const char *path = NULL;
		uint64_t dir = 0;

		for (uint8_t i = 0; !err && i < nr_formats; i++) {
			const char *s = NULL;
			uint64_t v = 0;

			err = read_form(c, h, forms[i], line_str, str, &s, &v);
			if (content[i] == DW_LNCT_path)
				path = s;
			else if (content[i] == DW_LNCT_directory_index)
				dir = v;
		}
		if (!err)
			err = dirs ? names_add_dir(n, path) : names_add_file(n, path, dir);
	}
	return err ? err : c->bad ? -EINVAL : 0;
}

static bool absolute(const char *path)
{
	return path && path[0] == '/';
}

/* dir/name, or name when dir is NULL or empty; malloc'd. */
static char *join(const char *dir, const char *name)
{
	size_t dlen, nlen;
	char *s;

	if (!dir || !dir[0])
		return strdup(name);
	/* not asprintf(): a unit has hundreds of files, and parsing its format was a third of the header */
	dlen = strlen(dir);
	nlen = strlen(name);
	s = malloc(dlen + nlen + 2);
	if (!s)
		return NULL;
	memcpy(s, dir, dlen);
	s[dlen] = '/';
	memcpy(s + dlen + 1, name, nlen + 1);
	return s;
}

/* Before DWARF 5, directory 0 is comp_dir itself. */
char *debug_line__file(const struct debug_line_table *t, size_t i)
{
	const char *name = i < t->nr_files ? t->file_names[i] : NULL, *dir;
	const char *comp_dir = t->comp_dir;
	char *d, *full;

	if (!name)
		return NULL;
	if (absolute(name))
		return strdup(name);
	if (t->version < 5 && t->file_dirs[i] == 0)
		return join(comp_dir, name);
	dir = t->file_dirs[i] < t->nr_dirs ? t->dirs[t->file_dirs[i]] : NULL;
	if (!dir || absolute(dir) || !comp_dir || !comp_dir[0])
		return join(dir, name);
	d = join(comp_dir, dir);
	if (!d)
		return NULL;
	full = join(d, name);
	free(d);
	return full;
}

static int read_header(struct cursor *c, struct header *h, const char *comp_dir,
		       const struct elf_section *line_str, const struct elf_section *str,
		       struct names *n, const uint8_t **program)
{
	uint64_t header_len;
	struct cursor hc;
	int err;

	h->version = (uint16_t)get_u(c, 2);
	if (h->version < 2 || h->version > 5)
		return -ENOTSUP;
	if (h->version >= 5) {
		get_u(c, 1); /* address size: set_address says it again */
		if (get_u(c, 1) != 0)
			return -ENOTSUP; /* segment selectors */
	}
	header_len = get_u(c, h->offset_size);
	if (c->bad || header_len > (uint64_t)(c->end - c->p))
		return -EINVAL;
	hc = (struct cursor){ c->p, c->p + header_len, false };
	*program = hc.end;
	h->min_inst_len = (uint8_t)get_u(&hc, 1);
	h->max_ops = h->version >= 4 ? (uint8_t)get_u(&hc, 1) : 1;
	h->default_is_stmt = get_u(&hc, 1);
	h->line_base = (int8_t)get_u(&hc, 1);
	h->line_range = (uint8_t)get_u(&hc, 1);
	h->opcode_base = (uint8_t)get_u(&hc, 1);
	if (hc.bad || !h->line_range || !h->opcode_base || !h->max_ops)
		return -EINVAL;
	h->opcode_lengths = hc.p;
	skip(&hc, h->opcode_base - 1);
	if (h->version >= 5) {
		err = read_entries_v5(&hc, h, line_str, str, n, true);
		if (!err)
			err = read_entries_v5(&hc, h, line_str, str, n, false);
	} else {
		err = read_names_v4(&hc, comp_dir, n);
	}
	return err ? err : hc.bad ? -EINVAL : 0;
}

/*
 * The rows and sequences being made. A row is held back until the next
 * address shows it counts: of rows at one address only the last does, and a
 * row of the file and line of the one kept before it covers the same
 * addresses as if it were not there. GCC writes several rows a line (views,
 * columns, statements), so this keeps about half of them.
 */
struct rows_out {
	struct debug_line_row *rows; /* room for a row a byte of the program: nothing to grow */
	size_t nr_rows;
	uint64_t seq_lo;  /* the address of the open sequence's first row */
	size_t seq_first; /* its first row */
	bool seq_bad;	  /* an address of it is not within 4 GiB after seq_lo */
	bool held, kept;  /* a row is held; the open sequence has a row kept */
	/*
	 * The held row's offset, and its file and line as one word, file
	 * above line, as are the last kept's: one comparison of registers. Two
	 * fields compared were two stores and a load of both, which stalled.
	 */
	uint32_t hold_off;
	uint64_t hold_where, last_where;
};

/* The held row, unless it says nothing new. */
static inline void keep_held(struct rows_out *o)
{
	if (o->kept && o->last_where == o->hold_where)
		return;
	o->rows[o->nr_rows++] = (struct debug_line_row){ o->hold_off, (uint32_t)o->hold_where,
							 (uint32_t)(o->hold_where >> 32) };
	o->last_where = o->hold_where;
	o->kept = true;
}

static inline void add_row(struct rows_out *o, uint64_t addr, uint64_t file, int64_t line)
{
	uint32_t off;

	if (!o->held && !o->kept)
		o->seq_lo = addr;
	else if (addr - o->seq_lo > UINT32_MAX)
		o->seq_bad = true; /* before the sequence's start, or too far past it */
	off = (uint32_t)(addr - o->seq_lo);
	if (o->held && off != o->hold_off)
		keep_held(o);
	o->hold_off = off;
	o->hold_where = (uint64_t)(file <= UINT32_MAX ? file : UINT32_MAX) << 32 |
			((uint64_t)line - 1 < UINT32_MAX ? (uint64_t)line : 0);
	o->held = true;
}

/* Adds a sequence to t; out of line, as sequences are few. */
static int add_sequence(struct debug_line_table *t, size_t *cap, struct debug_line_seq sq)
{
	if (grow((void **)&t->seqs, cap, t->nr_seqs, sizeof(*t->seqs)))
		return -ENOMEM;
	t->seqs[t->nr_seqs++] = sq;
	return 0;
}

/* DW_LNE_end_sequence at addr: the open sequence is kept, or its rows dropped. */
static int end_sequence(struct rows_out *o, struct debug_line_table *t, size_t *cap_seqs,
			uint64_t addr)
{
	size_t nr;
	int err = 0;

	if (o->held)
		keep_held(o);
	nr = o->nr_rows - o->seq_first;
	if (nr && !o->seq_bad && addr > o->seq_lo && addr - o->seq_lo <= UINT32_MAX)
		err = add_sequence(t, cap_seqs,
				   (struct debug_line_seq){ o->seq_lo, addr, (uint32_t)o->seq_first,
							    (uint32_t)nr });
	else
		o->nr_rows = o->seq_first;
	o->seq_first = o->nr_rows;
	o->seq_bad = o->held = o->kept = false;
	return err;
}

/* The state machine of DWARF 5 section 6.2.2 (VLIW op_index is not kept: x86_64, aarch64). */
static int run_program(struct cursor *program, const struct header *h, struct debug_line_table *t)
{
	/* the cursor and the header's fields in locals, which the loop keeps in registers */
	struct cursor cur = *program, *c = &cur;
	const uint8_t opcode_base = h->opcode_base, *opcode_lengths = h->opcode_lengths;
	const uint64_t min_inst_len = h->min_inst_len;
	/* a row takes an opcode, of a byte at least: no more rows than bytes, and no growing to check */
	size_t room = (size_t)(c->end - c->p) + 1, cap_seqs = 0;
	struct rows_out o = { .rows = malloc(room * sizeof(*o.rows)) };
	uint64_t addr = 0, file = 1;
	int64_t line = 1;
	int err = o.rows ? 0 : -ENOMEM;

	/* what each special opcode adds: two divisions a row were a tenth of the program's time */
	uint32_t addr_adv[256];
	int32_t line_adv[256];

	for (unsigned int op = h->opcode_base; op < 256; op++) {
		addr_adv[op] = (uint32_t)((op - h->opcode_base) / h->line_range) * h->min_inst_len;
		line_adv[op] = h->line_base + (int32_t)((op - h->opcode_base) % h->line_range);
	}
	/* a read that fails leaves the cursor at its end: the loop ends, c->bad says why */
	while (!err && c->p < c->end) {
		uint8_t op = *c->p++;

		if (op >= opcode_base) {
			addr += addr_adv[op];
			line += line_adv[op];
			add_row(&o, addr, file, line);
			continue;
		}
		switch (op) {
		case DW_LNS_set_column:
			get_uleb(c); /* columns are not kept */
			break;
		case DW_LNS_negate_stmt:
		case DW_LNS_set_basic_block:
		case DW_LNS_set_prologue_end:
		case DW_LNS_set_epilogue_begin:
			break; /* flags rows do not keep */
		case 0: {      /* extended */
			uint64_t len = get_uleb(c);
			const uint8_t *next;
			uint8_t sub;

			if (c->bad || !len || len > (uint64_t)(c->end - c->p)) {
				err = -EINVAL;
				break;
			}
			next = c->p + len;
			sub = (uint8_t)get_u(c, 1);
			if (sub == DW_LNE_end_sequence) {
				err = end_sequence(&o, t, &cap_seqs, addr);
				addr = 0;
				file = 1;
				line = 1;
			} else if (sub == DW_LNE_set_address) {
				addr = get_u(c, len - 1 > 8 ? 8 : (size_t)(len - 1));
			}
			/* define_file (DWARF 2-4), set_discriminator, vendor ones: skipped */
			c->p = next;
			break;
		}
		case DW_LNS_copy:
			add_row(&o, addr, file, line);
			break;
		case DW_LNS_advance_pc:
			addr += get_uleb(c) * min_inst_len;
			break;
		case DW_LNS_advance_line:
			line += get_sleb(c);
			break;
		case DW_LNS_set_file:
			file = get_uleb(c);
			break;
		case DW_LNS_const_add_pc:
			addr += (uint64_t)((255 - opcode_base) / h->line_range) * min_inst_len;
			break;
		case DW_LNS_fixed_advance_pc:
			addr += get_u(c, 2);
			break;
		default:
			/* isa, and opcodes past DWARF 5's: their operands */
			for (uint8_t i = 0; i < opcode_lengths[op - 1]; i++)
				get_uleb(c);
			break;
		}
	}
	/* rows after the last sequence's end belong to none; the room past the others is given back */
	t->nr_rows = o.seq_first;
	t->rows = t->nr_rows ? realloc(o.rows, t->nr_rows * sizeof(*o.rows)) : NULL;
	if (!t->rows) {
		free(o.rows);
		if (t->nr_rows)
			err = -ENOMEM;
	}
	*program = cur;
	return err ? err : c->bad ? -EINVAL : 0;
}

int debug_line__read(const struct elf_section *line, const struct elf_section *line_str,
		     const struct elf_section *str, uint64_t offset, const char *comp_dir,
		     struct debug_line_table *t)
{
	struct cursor c = { 0 };
	struct names n = { 0 };
	const uint8_t *program = NULL;
	struct header h = { .offset_size = 4 };
	uint64_t len;
	int err;

	memset(t, 0, sizeof(*t));
	if (!line || offset >= line->size)
		return -EINVAL;
	c = (struct cursor){ line->data + offset, line->data + line->size, false };
	len = get_u(&c, 4);
	if (len == 0xffffffff) {
		len = get_u(&c, 8);
		h.offset_size = 8;
	} else if (len >= 0xfffffff0) {
		return -EINVAL;
	}
	if (c.bad || len > (uint64_t)(c.end - c.p))
		return -EINVAL;
	c.end = c.p + len;
	err = read_header(&c, &h, comp_dir, line_str, str, &n, &program);
	if (!err) {
		c.p = program;
		t->version = h.version;
		err = run_program(&c, &h, t);
	}
	/* the names are taken over */
	t->dirs = n.dirs;
	t->nr_dirs = n.nr_dirs;
	t->file_names = n.file_names;
	t->file_dirs = n.file_dirs;
	t->nr_files = n.nr_files;
	t->comp_dir = comp_dir;
	if (err)
		debug_line__free(t);
	return err;
}

void debug_line__free(struct debug_line_table *t)
{
	if (!t)
		return;
	free(t->dirs);
	free(t->file_names);
	free(t->file_dirs);
	free(t->rows);
	free(t->seqs);
	memset(t, 0, sizeof(*t));
}
