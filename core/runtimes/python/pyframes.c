// SPDX-License-Identifier: GPL-2.0-only
/*
 * Naming Python frames from the process's memory. See pyframes.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/common.h"
#include "../../util/hashmap.h"
#include "../../profile/profile.h"
#include "bpf/abi.h"
#include "pyframes.h"
#include "pyruntime.h"
#include "../runtimes.h"
#include "../proc_mem.h"

#define NAME_MAX_LEN 1024	   /* longest name or path read */
#define TABLE_MAX_LEN (256 * 1024) /* longest line table read */
#define CODE_UNIT 2		   /* bytes of an instruction (_Py_CODEUNIT) */

static const char unknown[] = "<unknown>";

/* A code object, read once. */
struct py_code {
	uint64_t addr;
	uint32_t tag; /* UNW_PY_TAG of its co_filename pointer: another one at addr has another */
	uint64_t name_ptr, file_ptr;
	char *qualname;
	char *file;
	uint32_t first_line;
	uint8_t *table; /* its line table */
	size_t table_len;
	uint64_t first_instr; /* address of its first instruction (3.11+) */
};

/* A process the Python namer reads: its memory, its interpreter, the code objects read. */
struct pyframes_proc {
	struct proc_mem mem; /* first: an entry of struct proc_mems */
	struct pyruntime rt;
	uint64_t bias;
	struct hashmap codes; /* of struct py_code, by address and tag */
};

/* The namer of Python frames: the processes it reads. */
struct pyframes {
	struct proc_mems procs; /* of struct pyframes_proc */
};

/* Line tables */

/* A varint of the location table: 6-bit chunks, low first, bit 6 set on all but the last. */
static uint64_t loc_varint(const uint8_t *t, size_t size, size_t *i)
{
	uint64_t v = 0;

	for (int shift = 0; *i < size && shift < 64; shift += 6) {
		uint8_t b = t[(*i)++];

		v |= (uint64_t)(b & 63) << shift;
		if (!(b & 64))
			break;
	}
	return v;
}

static int64_t loc_svarint(const uint8_t *t, size_t size, size_t *i)
{
	uint64_t v = loc_varint(t, size, i);

	return v & 1 ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
}

/* 3.11+ (Objects/locations.md): entries of 1..8 code units, each saying how the line moves. */
static uint32_t line_311(const uint8_t *t, size_t size, uint32_t first_line, uint64_t at)
{
	int64_t line = first_line;
	uint64_t unit = 0;
	size_t i = 0;

	while (i < size) {
		uint8_t head = t[i++];
		unsigned code = (head >> 3) & 15, len = (head & 7) + 1;
		bool none = false;

		if (!(head & 128))
			return 0; /* not the start of an entry: a table we do not understand */
		if (code == 15) {
			none = true;
		} else if (code == 14) {
			line += loc_svarint(t, size, &i);
			loc_varint(t, size, &i); /* end line, then the columns */
			loc_varint(t, size, &i);
			loc_varint(t, size, &i);
		} else if (code == 13) {
			line += loc_svarint(t, size, &i);
		} else if (code >= 10) {
			line += code - 10;
			i += 2;
		} else {
			i += 1;
		}
		if (at < unit + len)
			return none || line <= 0 ? 0 : (uint32_t)line;
		unit += len;
	}
	return 0;
}

/* 3.10's co_linetable: (byte delta, line delta) pairs, a line delta of -128 for "no line". */
static uint32_t line_310(const uint8_t *t, size_t size, uint32_t first_line, uint64_t at)
{
	uint64_t addr = 0, target = at * CODE_UNIT;
	int64_t line = first_line;

	for (size_t i = 0; i + 1 < size; i += 2) {
		int8_t ldelta = (int8_t)t[i + 1];
		bool none = ldelta == -128;

		if (!none)
			line += ldelta;
		addr += t[i];
		if (target < addr)
			return none || line <= 0 ? 0 : (uint32_t)line;
	}
	return 0;
}

/* 3.6-3.9's co_lnotab: (byte increment, signed line increment) pairs. */
static uint32_t line_36(const uint8_t *t, size_t size, uint32_t first_line, uint64_t at)
{
	uint64_t addr = 0;
	int64_t line = first_line;

	for (size_t i = 0; i + 1 < size; i += 2) {
		addr += t[i];
		if (addr > at)
			break;
		line += (int8_t)t[i + 1];
	}
	return line <= 0 ? 0 : (uint32_t)line;
}

uint32_t pyframes__line_of(const uint8_t *table, size_t size, int minor, uint32_t first_line,
			   uint64_t at)
{
	if (!table)
		return 0;
	if (minor >= 11)
		return line_311(table, size, first_line, at);
	if (minor == 10)
		return line_310(table, size, first_line, at);
	return line_36(table, size, first_line, at);
}

/* Reading the process */

/*
 * Where a code object is read from: the copies BPF took when it was first
 * seen (bpf/abi.h, struct unw_py_code_event), then the process's memory
 * for what they do not hold.
 */
struct py_view {
	const struct pyframes_proc *p;
	struct {
		uint64_t addr;
		const uint8_t *bytes;
		size_t len;
	} copies[UNW_PY_PARTS];
};

static int mem_read(const struct py_view *v, uint64_t addr, void *buf, size_t len)
{
	if (!addr)
		return -EFAULT;
	for (size_t i = 0; i < ARRAY_SIZE(v->copies); i++) {
		uint64_t at = addr - v->copies[i].addr;

		if (addr >= v->copies[i].addr && at <= v->copies[i].len &&
		    len <= v->copies[i].len - at) {
			memcpy(buf, v->copies[i].bytes + at, len);
			return 0;
		}
	}
	return proc_mem__read(&v->p->mem, addr, buf, len);
}

static uint64_t mem_word(const struct py_view *v, uint64_t addr, int32_t off)
{
	uint64_t w = 0;

	if (off == PY_OFF_NONE || mem_read(v, addr + off, &w, sizeof(w)))
		return 0;
	return w;
}

/*
 * A str object at addr, when it is compact ASCII (every name and path of
 * the interpreter's own code is): NULL otherwise.
 */
static char *read_str(const struct py_view *v, uint64_t addr)
{
	const struct py_offsets *o = &v->p->rt.off;
	uint64_t len = mem_word(v, addr, o->str_length);
	uint32_t state = 0;
	char *s;

	if (!addr || mem_read(v, addr + o->str_state, &state, sizeof(state)))
		return NULL;
	if (!(state & (1u << o->str_ascii_bit)) || !(state & (1u << o->str_compact_bit)) ||
	    len > NAME_MAX_LEN)
		return NULL;
	s = malloc(len + 1);
	if (!s)
		return NULL;
	if (mem_read(v, addr + o->str_data, s, len)) {
		free(s);
		return NULL;
	}
	s[len] = '\0';
	return s;
}

/* The contents of a bytes object at addr (a line table), bounded. */
static uint8_t *read_bytes(const struct py_view *v, uint64_t addr, size_t *len)
{
	uint64_t n = mem_word(v, addr, UNW_PY_VAR_SIZE);
	uint8_t *b;

	*len = 0;
	if (!addr || n == 0 || n > TABLE_MAX_LEN)
		return NULL;
	b = malloc(n);
	if (b && mem_read(v, addr + pyruntime__bytes_data_off(&v->p->rt.off), b, n)) {
		free(b);
		return NULL;
	}
	*len = b ? n : 0;
	return b;
}

static void code_read(const struct py_view *v, uint64_t addr, struct py_code *c)
{
	const struct py_offsets *o = &v->p->rt.off;
	uint32_t first = 0;

	c->addr = addr;
	c->name_ptr = mem_word(v, addr, pyruntime__code_name_off(o));
	c->file_ptr = mem_word(v, addr, o->code_filename);
	c->tag = UNW_PY_TAG(c->file_ptr);
	c->qualname = read_str(v, c->name_ptr);
	c->file = read_str(v, c->file_ptr);
	if (o->code_firstlineno != PY_OFF_NONE)
		mem_read(v, addr + o->code_firstlineno, &first, sizeof(first));
	c->first_line = first;
	c->table = read_bytes(v, mem_word(v, addr, pyruntime__code_table_off(o)), &c->table_len);
	if (o->code_adaptive != PY_OFF_NONE)
		c->first_instr = addr + o->code_adaptive;
}

static void code_free(struct py_code *c)
{
	free(c->qualname);
	free(c->file);
	free(c->table);
	free(c);
}

struct code_key {
	uint64_t addr;
	uint32_t tag;
};

static uint64_t code_hash(uint64_t addr, uint32_t tag)
{
	return hash_u64(addr ^ (uint64_t)tag << 48);
}

static bool code_has_key(const void *value, const void *key)
{
	const struct py_code *c = value;
	const struct code_key *k = key;

	return c->addr == k->addr && c->tag == k->tag;
}

static struct py_code *code_find(const struct pyframes_proc *p, uint64_t addr, uint32_t tag)
{
	return hashmap__find(&p->codes, code_hash(addr, tag), code_has_key,
			     &(struct code_key){ addr, tag });
}

/*
 * The code object at addr with tag (UNW_PY_TAG of its co_filename), read
 * now if it was not read yet; NULL when the process has another one there
 * now (it was freed and its memory reused) or it cannot be read.
 */
static const struct py_code *code_get(struct pyframes_proc *p, uint64_t addr, uint32_t tag,
				      const struct py_view *copied)
{
	struct py_view mem = { .p = p };
	struct py_code *c = code_find(p, addr, tag), *known;

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	code_read(copied ? copied : &mem, addr, c);
	if (!c->file_ptr) {
		code_free(c);
		return NULL;
	}
	/* Kept under the tag it has now, which the samples that follow will name. */
	known = code_find(p, addr, c->tag);
	if (known) {
		code_free(c);
		c = known;
	} else if (hashmap__add(&p->codes, code_hash(addr, c->tag), c)) {
		code_free(c);
		return NULL;
	}
	return c->tag == tag ? c : NULL;
}

/* The namer */

static struct pyframes_proc *proc_find(struct pyframes *n, uint32_t pid)
{
	return proc_mem__find(&n->procs, pid);
}

/* Frees what the entry read, not its memory's fd: struct proc_mems closes it. */
static void proc_clear(void *entry)
{
	struct pyframes_proc *p = entry;

	for (size_t i = 0; i < p->codes.cap; i++)
		if (p->codes.slots[i].value)
			code_free(p->codes.slots[i].value);
	hashmap__exit(&p->codes);
}

struct pyframes *pyframes__new(void)
{
	struct pyframes *n = calloc(1, sizeof(struct pyframes));

	if (n)
		n->procs = (struct proc_mems){ .size = sizeof(struct pyframes_proc),
					       .clear = proc_clear };
	return n;
}

void pyframes__free(struct pyframes *n)
{
	if (!n)
		return;
	proc_mem__free(&n->procs);
	free(n);
}

int pyframes__add_process(struct pyframes *n, uint32_t pid, const struct pyruntime *pr,
			  uint64_t bias)
{
	struct pyframes_proc *p = proc_find(n, pid);
	int err;

	/* Read again (a new mapping): what it knows stays, unless an exec changed the interpreter. */
	if (p && p->bias == bias && p->rt.version_hex == pr->version_hex &&
	    p->rt.runtime == pr->runtime)
		return 0;
	err = proc_mem__open(&n->procs, pid, (void **)&p);
	if (p) {
		p->rt = *pr;
		p->bias = bias;
	}
	return err;
}

void pyframes__remove_process(struct pyframes *n, uint32_t pid)
{
	proc_mem__remove(&n->procs, pid);
}

/* The copies of event e of size bytes into *v; false when they overrun it. */
static bool view_of_event(struct py_view *v, const struct unw_py_code_event *e, size_t size)
{
	size_t off = offsetof(struct unw_py_code_event, data);

	for (size_t i = 0; i < UNW_PY_PARTS; i++) {
		const struct unw_py_copy *c = &e->copies[i];

		if (c->len > size - off)
			return false;
		v->copies[i].addr = c->addr;
		v->copies[i].bytes = (const uint8_t *)e + off;
		v->copies[i].len = c->len;
		off += c->len;
	}
	return true;
}

void pyframes__read_code(struct pyframes *n, const struct unw_py_code_event *e, size_t size)
{
	struct pyframes_proc *p;
	struct py_view v = {};

	if (size < offsetof(struct unw_py_code_event, data))
		return;
	p = proc_find(n, e->ev.pid);
	v.p = p;
	if (p && view_of_event(&v, e, size))
		code_get(p, e->ev.addr, e->ev.tag, &v);
}

int pyframes__name(struct pyframes *n, uint32_t pid, uint64_t code, uint64_t where,
		   struct py_frame_name *out)
{
	struct pyframes_proc *p = proc_find(n, pid);
	uint32_t tag = where >> UNW_PY_TAG_SHIFT;
	const struct py_code *c;
	uint64_t at;

	*out = (struct py_frame_name){ .qualname = unknown, .file = unknown };
	if (!p)
		return -ENOENT;
	where &= (1ULL << UNW_PY_TAG_SHIFT) - 1;
	at = where;
	c = code_get(p, code, tag, NULL);
	if (!c)
		return 0;
	out->qualname = c->qualname ? c->qualname : unknown;
	out->file = c->file ? c->file : unknown;
	out->first_line = c->first_line;
	if (p->rt.frame_layout == PY_FRAME_INTERPRETER) {
		if (!c->first_instr || where < c->first_instr)
			return 0;
		at = (where - c->first_instr) / CODE_UNIT;
	}
	out->line = pyframes__line_of(c->table, c->table_len, p->rt.minor, c->first_line, at);
	return 0;
}
