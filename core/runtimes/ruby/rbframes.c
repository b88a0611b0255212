// SPDX-License-Identifier: GPL-2.0-only
/*
 * Naming Ruby frames from the process's memory. See rbframes.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../util/common.h"
#include "../../util/hashmap.h"
#include "../../util/log.h"
#include "../../profile/profile.h"
#include "bpf/abi.h"
#include "rbframes.h"
#include "rbruntime.h"
#include "../runtimes.h"
#include "../proc_mem.h"

#define NAME_MAX_LEN 1024	   /* longest label or path read */
#define INSNS_MAX (1u << 20)	   /* most insns_info entries read */
#define VALUE_SIZE 8		   /* bytes of an instruction word (a VALUE) */
#define PC_MASK ((1ULL << 48) - 1) /* where: the pc, a user address */

/*
 * Ruby 3.1 iseq.c's struct succ_index_table: an immediate part of 6 words,
 * each the ranks of 9 positions in 7 bits, then blocks of 512 positions
 * (unsigned rank, 4 bytes of padding, small_block_ranks, bits[8]).
 */
#define SUCC_IMM_POS 54
#define SUCC_IMM_BYTES 48
#define SUCC_BLOCK_POS 512
#define SUCC_BLOCK_BYTES 80
/* A block per 512 instruction words: this many is 32M of them, past any real iseq. */
#define SUCC_MAX_BLOCKS (1u << 16)

#define ID_SCOPE_SHIFT 4       /* an ID past the operators' is its serial << this */
#define ID_ENTRY_UNIT 512      /* serials per Array of the symbol table */
#define SYMBOLS_MAX (1u << 28) /* a serial past this is not one */

static const char unknown[] = "<unknown>";
static const char cfunc_name[] = "<cfunc>";

/* An iseq, or a C method's method entry (cfunc: only its label is read), read once. */
struct rb_iseq {
	uint64_t addr;
	bool cfunc;
	uint16_t tag; /* UNW_RB_TAG of its body (definition): another one at addr has another */
	char *label;
	char *file;
	uint32_t first_line;
	uint64_t encoded;    /* iseq_encoded: the pc of its instruction 0 */
	int32_t *lines;	     /* the line of each insns_info entry */
	uint32_t nr_lines;   /* 0 when there is no way to find an entry */
	uint32_t *positions; /* the entries' instruction positions, or NULL: */
	uint8_t *succ;	     /* their succinct index table, as the process has it */
	size_t succ_len;
};

/* A process the Ruby namer reads: its memory, its interpreter, the iseqs read. */
struct rbframes_proc {
	struct proc_mem mem; /* first: an entry of struct proc_mems */
	struct rbruntime rt;
	uint64_t bias;
	struct hashmap iseqs; /* of struct rb_iseq, by address, kind and tag */
};

/* The namer of Ruby frames: the processes it reads. */
struct rbframes {
	struct proc_mems procs; /* of struct rbframes_proc */
};

/* Line tables */

static uint64_t load64(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, sizeof(v));
	return v;
}

uint32_t rbframes__succ_index_lookup(const uint8_t *table, size_t size, uint32_t pos)
{
	uint32_t bit, small, small_rank = 0, rank;
	const uint8_t *block;
	size_t off;

	if (!table)
		return 0;
	if (pos < SUCC_IMM_POS) {
		/* a table of fewer positions has only the words they need */
		if ((pos / 9 + 1) * 8 > size)
			return 0;
		return load64(table + pos / 9 * 8) >> (pos % 9 * 7) & 0x7f;
	}
	off = SUCC_IMM_BYTES + (size_t)((pos - SUCC_IMM_POS) / SUCC_BLOCK_POS) * SUCC_BLOCK_BYTES;
	if (off > size || size - off < SUCC_BLOCK_BYTES)
		return 0;
	block = table + off;
	bit = (pos - SUCC_IMM_POS) % SUCC_BLOCK_POS;
	small = bit / 64;
	if (small)
		small_rank = load64(block + 8) >> ((small - 1) * 9) & 0x1ff;
	memcpy(&rank, block, sizeof(rank));
	return rank + small_rank +
	       (uint32_t)__builtin_popcountll(load64(block + 16 + small * 8) << (63 - bit % 64));
}

/* The entry of position pos: the last one at or before it, the first when none is. */
static uint32_t positions_index(const uint32_t *positions, uint32_t n, uint64_t pos)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (positions[mid] <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

/* The line at pc of iseq s, as Ruby's vm_backtrace.c calc_pos finds it; 0 when unknown. */
static uint32_t iseq_line(const struct rb_iseq *s, uint64_t pc)
{
	uint64_t pos;
	uint32_t i, rank;

	if (!s->nr_lines || !s->encoded || pc < s->encoded)
		return 0;
	pos = (pc - s->encoded) / VALUE_SIZE;
	/* the pc is already past the instruction being run */
	if (pos)
		pos--;
	if (pos > UINT32_MAX)
		return 0;
	if (s->nr_lines == 1) {
		i = 0;
	} else if (s->positions) {
		i = positions_index(s->positions, s->nr_lines, pos);
	} else {
		rank = rbframes__succ_index_lookup(s->succ, s->succ_len, (uint32_t)pos);
		if (!rank || rank > s->nr_lines)
			return 0;
		i = rank - 1;
	}
	return s->lines[i] > 0 ? (uint32_t)s->lines[i] : 0;
}

/* Reading the process */

static int mem_read(const struct rbframes_proc *p, uint64_t addr, void *buf, size_t len)
{
	return proc_mem__read(&p->mem, addr, buf, len);
}

static uint64_t mem_word(const struct rbframes_proc *p, uint64_t addr, int32_t off)
{
	uint64_t w = 0;

	if (!addr || mem_read(p, addr + off, &w, sizeof(w)))
		return 0;
	return w;
}

/* The flags of the object VALUE v (its type in RB_T_MASK), 0 when it is not one. */
static uint64_t object_flags(const struct rbframes_proc *p, uint64_t v)
{
	/* special constants (nil, Fixnums, Symbols) are not pointers to 8-byte slots */
	if (v & 7)
		return 0;
	return mem_word(p, v, 0);
}

/* The characters of String v, whose flags are flags, bounded; NULL when not one. */
static char *string_chars(const struct rbframes_proc *p, uint64_t v, uint64_t flags)
{
	const struct rb_offsets *o = &p->rt.off;
	uint64_t len, chars;
	char *s;

	if ((flags & RB_T_MASK) != RB_T_STRING)
		return NULL;
	if (flags & RB_STRING_NOEMBED) {
		len = mem_word(p, v, o->string_len);
		chars = mem_word(p, v, o->string_heap_ptr);
	} else {
		len = o->string_embed_len_mask ?
			      flags >> RB_STRING_EMBED_LEN_SHIFT & o->string_embed_len_mask :
			      mem_word(p, v, o->string_len);
		chars = v + o->string_embed;
	}
	/* a negative len too */
	if (len > NAME_MAX_LEN)
		return NULL;
	s = malloc(len + 1);
	if (!s)
		return NULL;
	if (len && mem_read(p, chars, s, len)) {
		free(s);
		return NULL;
	}
	s[len] = '\0';
	return s;
}

static char *read_string(const struct rbframes_proc *p, uint64_t v)
{
	return string_chars(p, v, object_flags(p, v));
}

/* Element i of Array v, whose flags are flags; 0 when there is none. */
static uint64_t array_entry(const struct rbframes_proc *p, uint64_t v, uint64_t flags, uint64_t i)
{
	const struct rb_offsets *o = &p->rt.off;
	uint64_t len, elems;

	if ((flags & RB_T_MASK) != RB_T_ARRAY)
		return 0;
	if (flags & RB_ARRAY_EMBED) {
		len = flags >> RB_ARRAY_EMBED_LEN_SHIFT & o->array_embed_len_mask;
		elems = v + o->array_embed;
	} else {
		len = mem_word(p, v, o->array_heap_len);
		elems = mem_word(p, v, o->array_heap_ptr);
	}
	return i < len ? mem_word(p, elems, (int32_t)(i * VALUE_SIZE)) : 0;
}

/* A location's pathobj: a String, or an Array [path, realpath] of one. */
static char *read_path(const struct rbframes_proc *p, uint64_t v)
{
	uint64_t flags = object_flags(p, v);

	if ((flags & RB_T_MASK) != RB_T_ARRAY)
		return string_chars(p, v, flags);
	return read_string(p, array_entry(p, v, flags, 0));
}

/*
 * The name of ID id from the symbol table (core/runtimes/ruby/rbruntime.h): the String
 * at ids[serial / 512][serial % 512 * 2]; NULL when it cannot be read.
 */
static char *id_name(const struct rbframes_proc *p, uint64_t id)
{
	const struct rbruntime *rt = &p->rt;
	uint64_t serial = id > rt->off.last_op_id ? id >> ID_SCOPE_SHIFT : id, ids, chunk;
	uint32_t last = 0;

	if (!rt->symbols_ids || !serial || serial > SYMBOLS_MAX ||
	    mem_read(p, rt->symbols_last_id + p->bias, &last, sizeof(last)) || serial > last)
		return NULL;
	ids = mem_word(p, rt->symbols_ids + p->bias, 0);
	chunk = array_entry(p, ids, object_flags(p, ids), serial / ID_ENTRY_UNIT);
	return read_string(p, array_entry(p, chunk, object_flags(p, chunk),
					  serial % ID_ENTRY_UNIT * 2));
}

/* The line of each of the n insns_info entries at addr; NULL when they cannot be read. */
static int32_t *read_lines(const struct rbframes_proc *p, uint64_t addr, uint32_t n)
{
	const struct rb_offsets *o = &p->rt.off;
	size_t size = (size_t)o->insn_entry_size;
	int32_t *lines = NULL;
	uint8_t *raw = NULL;

	if (o->insn_entry_size < 4 || o->insn_entry_size > 64 || o->insn_entry_line < 0 ||
	    o->insn_entry_line > o->insn_entry_size - 4)
		return NULL;
	raw = malloc(n * size);
	lines = malloc(n * sizeof(*lines));
	if (!raw || !lines || mem_read(p, addr, raw, n * size)) {
		free(lines);
		lines = NULL;
		goto cleanup;
	}
	for (uint32_t i = 0; i < n; i++)
		memcpy(&lines[i], raw + i * size + o->insn_entry_line, sizeof(*lines));
cleanup:
	free(raw);
	return lines;
}

static uint32_t *read_positions(const struct rbframes_proc *p, uint64_t addr, uint32_t n)
{
	uint32_t *positions = malloc(n * sizeof(*positions));

	if (positions && mem_read(p, addr, positions, n * sizeof(*positions))) {
		free(positions);
		return NULL;
	}
	return positions;
}

/*
 * The immediate part of the succinct table at addr into t: the number of
 * its bytes read, 0 for none. A table whose positions all come before
 * SUCC_IMM_POS is only as long as the words they need, maybe at the end
 * of a mapping: the read stops there, short.
 */
static size_t succ_read_imm(const struct rbframes_proc *p, uint64_t addr, uint8_t *t)
{
	ssize_t n = p->mem.fd >= 0 ? pread(p->mem.fd, t, SUCC_IMM_BYTES, (off_t)addr) : -1;

	return n > 0 ? (size_t)n / 8 * 8 : 0;
}

/*
 * The positions the immediate part of t (len bytes) holds, if they are
 * ranks (each one the last's or one more); -1 when not.
 */
static int64_t succ_imm_rank(const uint8_t *t, size_t len, uint32_t nr)
{
	uint32_t last = 0;

	for (uint32_t x = 0; x < len / 8 * 9; x++) {
		uint32_t r = rbframes__succ_index_lookup(t, len, x);

		if (r < last || r > last + 1)
			return -1;
		/* all held: the words after the last position need not be there */
		if (r == nr)
			return r;
		last = r;
	}
	return len == SUCC_IMM_BYTES ? (int64_t)last : -1;
}

/*
 * Reads the blocks of the succinct table at addr into *t, after its
 * immediate part (which holds held positions), until they hold its nr
 * positions: at each turn as many as those not held yet need at least
 * (512 a block), which the table has, so that nothing past its end is
 * read; each block's rank must be what those before it hold. The number
 * of blocks read, or a negative errno.
 */
static int succ_read_blocks(const struct rbframes_proc *p, uint64_t addr, uint8_t **t,
			    uint32_t held, uint32_t nr)
{
	size_t nr_blocks = 0;

	while (held < nr) {
		size_t need = (nr - held + SUCC_BLOCK_POS - 1) / SUCC_BLOCK_POS;
		size_t at = SUCC_IMM_BYTES + nr_blocks * SUCC_BLOCK_BYTES;
		uint8_t *n;

		if (nr_blocks + need > SUCC_MAX_BLOCKS)
			return -EINVAL;
		n = realloc(*t, at + need * SUCC_BLOCK_BYTES);
		if (!n)
			return -ENOMEM;
		*t = n;
		if (mem_read(p, addr + at, n + at, need * SUCC_BLOCK_BYTES))
			return -EFAULT;
		for (size_t b = 0; b < need; b++) {
			const uint8_t *block = n + at + b * SUCC_BLOCK_BYTES;
			uint32_t rank;

			memcpy(&rank, block, sizeof(rank));
			if (rank != held)
				return -EINVAL;
			for (int w = 0; w < 8; w++)
				held += (uint32_t)__builtin_popcountll(load64(block + 16 + w * 8));
		}
		nr_blocks += need;
	}
	return held == nr ? (int)nr_blocks : -EINVAL;
}

/*
 * The succinct index table at addr of nr positions, read whole, laid out
 * as the process has it (rbframes__succ_index_lookup reads it); its size in *len.
 * Its length is not kept with it (it follows from iseq_size): it is read
 * until it holds nr positions. NULL when it cannot be read or is not one.
 */
static uint8_t *succ_read(const struct rbframes_proc *p, uint64_t addr, uint32_t nr, size_t *len)
{
	uint8_t *t = malloc(SUCC_IMM_BYTES);
	int64_t held = -1;
	int nr_blocks = 0;

	*len = 0;
	if (t && addr) {
		*len = succ_read_imm(p, addr, t);
		held = succ_imm_rank(t, *len, nr);
	}
	if (held >= 0 && held < nr) {
		nr_blocks = succ_read_blocks(p, addr, &t, (uint32_t)held, nr);
		*len = SUCC_IMM_BYTES + (size_t)nr_blocks * SUCC_BLOCK_BYTES;
	}
	if (held < 0 || nr_blocks < 0) {
		if (addr)
			pr_debug("ruby: pid %u: the line table at 0x%" PRIx64 " is not read",
				 p->mem.pid, addr);
		free(t);
		*len = 0;
		return NULL;
	}
	return t;
}

/* Reads into *s what finds the line of each of its pcs, from its body at body. */
static void read_line_table(const struct rbframes_proc *p, uint64_t body, struct rb_iseq *s)
{
	const struct rb_offsets *o = &p->rt.off;
	uint64_t positions;
	uint32_t n = 0;

	if (mem_read(p, body + o->body_insns_size, &n, sizeof(n)) || n == 0)
		return;
	if (n > INSNS_MAX) {
		pr_debug("ruby: pid %u: an iseq of %u line entries is not read", p->mem.pid, n);
		return;
	}
	s->lines = read_lines(p, mem_word(p, body, o->body_insns_body), n);
	if (s->lines && n > 1) {
		/* positions are freed once their succinct table is made, in a release build */
		positions = mem_word(p, body, o->body_insns_positions);
		if (positions)
			s->positions = read_positions(p, positions, n);
		if (!s->positions)
			s->succ = succ_read(p, mem_word(p, body, o->body_insns_succ), n,
					    &s->succ_len);
		if (!s->positions && !s->succ) {
			free(s->lines);
			s->lines = NULL;
		}
	}
	s->nr_lines = s->lines ? n : 0;
}

/* The first_lineno of the iseq location at loc; 0 when it is not a line. */
static uint32_t first_lineno(const struct rbframes_proc *p, uint64_t loc)
{
	const struct rb_offsets *o = &p->rt.off;
	uint64_t first = mem_word(p, loc, o->location_first_lineno);
	int64_t line;

	if (o->first_lineno_int) {
		line = (int32_t)(uint32_t)first;
	} else {
		/* a Fixnum: the value shifted left by one, its low bit set */
		if (!(first & 1))
			return 0;
		line = (int64_t)first >> 1;
	}
	return line > 0 && line <= UINT32_MAX ? (uint32_t)line : 0;
}

/* Reads the iseq at addr into *s; false when its body cannot be read (not one, or gone). */
static bool iseq_read(const struct rbframes_proc *p, uint64_t addr, struct rb_iseq *s)
{
	const struct rb_offsets *o = &p->rt.off;
	uint64_t body = mem_word(p, addr, o->iseq_body), loc;

	*s = (struct rb_iseq){ .addr = addr, .tag = UNW_RB_TAG(body) };
	if (!body || mem_read(p, body + o->body_iseq_encoded, &s->encoded, sizeof(s->encoded)))
		return false;
	loc = body + o->body_location;
	s->label = read_string(p, mem_word(p, loc, o->location_label));
	s->file = read_path(p, mem_word(p, loc, o->location_pathobj));
	s->first_line = first_lineno(p, loc);
	read_line_table(p, body, s);
	return true;
}

static void iseq_free(struct rb_iseq *s)
{
	free(s->label);
	free(s->file);
	free(s->lines);
	free(s->positions);
	free(s->succ);
	free(s);
}

struct iseq_key {
	uint64_t addr;
	bool cfunc;
	uint16_t tag;
};

static uint64_t iseq_hash(uint64_t addr, bool cfunc, uint16_t tag)
{
	return hash_u64(addr ^ (uint64_t)tag << 48 ^ (uint64_t)cfunc << 63);
}

static bool iseq_has_key(const void *value, const void *key)
{
	const struct rb_iseq *s = value;
	const struct iseq_key *k = key;

	return s->addr == k->addr && s->cfunc == k->cfunc && s->tag == k->tag;
}

static struct rb_iseq *iseq_find(const struct rbframes_proc *p, uint64_t addr, bool cfunc,
				 uint16_t tag)
{
	return hashmap__find(&p->iseqs, iseq_hash(addr, cfunc, tag), iseq_has_key,
			     &(struct iseq_key){ addr, cfunc, tag });
}

/* A C method's method entry at addr into *s: its name; false when it has none. */
static bool cfunc_read(const struct rbframes_proc *p, uint64_t addr, struct rb_iseq *s)
{
	*s = (struct rb_iseq){ .addr = addr,
			       .cfunc = true,
			       .tag = UNW_RB_TAG(mem_word(p, addr, p->rt.off.me_def)) };
	s->label = id_name(p, mem_word(p, addr, p->rt.off.me_called_id));
	return s->label != NULL;
}

/*
 * The iseq (or C method's method entry) at addr with tag (UNW_RB_TAG of
 * its body, or definition), read now if it was not read yet; NULL when it
 * cannot be, and then not kept (it is tried again when next asked for, a
 * failed pread costing little), or when the process has another one there
 * now (the slot was freed and reused), which is kept under its own tag.
 */
static const struct rb_iseq *iseq_get(struct rbframes_proc *p, uint64_t addr, bool cfunc,
				      uint16_t tag)
{
	struct rb_iseq *s, *known;

	if (!addr)
		return NULL;
	s = iseq_find(p, addr, cfunc, tag);
	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (!(cfunc ? cfunc_read(p, addr, s) : iseq_read(p, addr, s))) {
		iseq_free(s);
		return NULL;
	}
	known = iseq_find(p, addr, cfunc, s->tag);
	if (known) {
		iseq_free(s);
		s = known;
	} else if (hashmap__add(&p->iseqs, iseq_hash(addr, cfunc, s->tag), s)) {
		iseq_free(s);
		return NULL;
	}
	return s->tag == tag ? s : NULL;
}

/* The tag in the second word of a Ruby frame. */
static uint16_t where_tag(uint64_t where)
{
	return (where >> UNW_RB_TAG_SHIFT) & 0x7fff;
}

/* The namer */

static struct rbframes_proc *proc_find(struct rbframes *n, uint32_t pid)
{
	return proc_mem__find(&n->procs, pid);
}

/* Frees what the entry read, not its memory's fd: struct proc_mems closes it. */
static void proc_clear(void *entry)
{
	struct rbframes_proc *p = entry;

	for (size_t i = 0; i < p->iseqs.cap; i++)
		if (p->iseqs.slots[i].value)
			iseq_free(p->iseqs.slots[i].value);
	hashmap__exit(&p->iseqs);
}

/* The same interpreter at the same place: what was read of it still holds. */
static bool same_runtime(const struct rbframes_proc *p, const struct rbruntime *rr, uint64_t bias)
{
	return p->bias == bias && p->rt.major == rr->major && p->rt.minor == rr->minor &&
	       p->rt.teeny == rr->teeny && p->rt.vm_exec_lo == rr->vm_exec_lo &&
	       p->rt.vm_exec_hi == rr->vm_exec_hi;
}

struct rbframes *rbframes__new(void)
{
	struct rbframes *n = calloc(1, sizeof(struct rbframes));

	if (n)
		n->procs = (struct proc_mems){ .size = sizeof(struct rbframes_proc),
					       .clear = proc_clear };
	return n;
}

void rbframes__free(struct rbframes *n)
{
	if (!n)
		return;
	proc_mem__free(&n->procs);
	free(n);
}

int rbframes__add_process(struct rbframes *n, uint32_t pid, const struct rbruntime *rr,
			  uint64_t bias)
{
	struct rbframes_proc *p = proc_find(n, pid);
	int err;

	if (p && same_runtime(p, rr, bias))
		return 0;
	err = proc_mem__open(&n->procs, pid, (void **)&p);
	if (p) {
		p->rt = *rr;
		p->bias = bias;
	}
	return err;
}

int rbframes__fork(struct rbframes *n, uint32_t ppid, uint32_t pid)
{
	struct rbframes_proc *p, *parent;
	int err = proc_mem__fork(&n->procs, ppid, pid, (void **)&p);

	parent = proc_find(n, ppid);
	if (p && parent) {
		p->rt = parent->rt;
		p->bias = parent->bias;
	}
	return err;
}

void rbframes__remove_process(struct rbframes *n, uint32_t pid)
{
	proc_mem__remove(&n->procs, pid);
}

void rbframes__read_iseq(struct rbframes *n, uint32_t pid, uint64_t iseq, uint64_t where)
{
	struct rbframes_proc *p = proc_find(n, pid);

	if (p)
		iseq_get(p, iseq, where & UNW_RB_CFUNC, where_tag(where));
}

int rbframes__name(struct rbframes *n, uint32_t pid, uint64_t iseq, uint64_t where,
		   struct rb_frame_name *out)
{
	struct rbframes_proc *p = proc_find(n, pid);
	const struct rb_iseq *s;

	*out = (struct rb_frame_name){ .label = unknown, .file = unknown };
	if (!p)
		return -ENOENT;
	if (where & UNW_RB_CFUNC) {
		s = iseq_get(p, iseq, true, where_tag(where));
		out->label = s ? s->label : cfunc_name;
		out->file = cfunc_name;
		return 0;
	}
	s = iseq_get(p, iseq, false, where_tag(where));
	if (!s)
		return 0;
	out->label = s->label ? s->label : unknown;
	out->file = s->file ? s->file : unknown;
	out->first_line = s->first_line;
	out->line = iseq_line(s, where & PC_MASK);
	return 0;
}
