// SPDX-License-Identifier: GPL-2.0-only
/*
 * Naming V8 frames from the process's memory. See v8frames.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/common.h"
#include "../../util/hashmap.h"
#include "bpf/abi.h"
#include "v8frames.h"
#include "v8runtime.h"
#include "../proc_mem.h"
#include "../runtimes.h"

#define NAME_MAX_LEN 1024	 /* longest name or file read */
#define SOURCE_MAX (16u << 20)	 /* a Script's source scanned for its lines, at most */
#define POSITIONS_MAX (1u << 20) /* bytes of a source position table read, at most */
#define LINES_MAX (1u << 22)	 /* line ends of a Script, at most */
#define STRING_DEPTH 32		 /* cons, thin and sliced strings followed, at most */
#define SCOPE_SLOTS 16		 /* slots of a ScopeInfo looked at for its function's name */
#define CHUNK 4096		 /* characters of a string read at once */
#define TAG 1			 /* a heap object's pointer's tag */
#define SMI_SHIFT 32

static const char unknown[] = "<unknown>";
static const char anonymous[] = "(anonymous)";

/* Reading V8's memory */

static uint64_t mem_word(const struct v8_mem *m, uint64_t addr, int32_t off)
{
	uint64_t w = 0;

	if (!addr || m->read(m->ctx, addr + (uint64_t)(int64_t)off, &w, sizeof(w)))
		return 0;
	return w;
}

static bool is_object(uint64_t p)
{
	return (p & 3) == TAG && p > 4096;
}

static bool is_smi(uint64_t p)
{
	return (p & 1) == 0;
}

static int32_t smi_value(uint64_t p)
{
	return (int32_t)(p >> SMI_SHIFT);
}

/* The instance type of the object at tagged pointer p; -1 when it is none. */
static int obj_type(const struct v8_mem *m, uint64_t p)
{
	uint64_t map;
	uint16_t type;

	if (!is_object(p))
		return -1;
	map = mem_word(m, p - TAG, m->l->map);
	if (!is_object(map) ||
	    m->read(m->ctx, map - TAG + (uint64_t)m->l->instance_type, &type, sizeof(type)))
		return -1;
	return type;
}

/* Strings */

/* Where the characters of a string go: a chunk of them at a time, narrowed to bytes. */
struct str_sink {
	int (*chunk)(void *ctx, const uint8_t *c, size_t n);
	void *ctx;
};

/* Characters [from, from + count) of the sequential string at object obj to sink. */
static int str_seq(const struct v8_mem *m, uint64_t obj, bool one_byte, uint32_t from,
		   uint32_t count, const struct str_sink *sink)
{
	const struct v8_layout *l = m->l;
	uint8_t buf[CHUNK * 2], out[CHUNK];

	while (count) {
		uint32_t n = count < CHUNK ? count : CHUNK;

		if (one_byte) {
			if (m->read(m->ctx, obj + (uint64_t)l->seq_one_chars + from, out, n))
				return -EINVAL;
		} else {
			if (m->read(m->ctx, obj + (uint64_t)l->seq_two_chars + 2ULL * from, buf,
				    2ULL * n))
				return -EINVAL;
			for (uint32_t i = 0; i < n; i++)
				out[i] = buf[2 * i + 1] || buf[2 * i] >= 0x80 ? '?' : buf[2 * i];
		}
		if (sink->chunk(sink->ctx, out, n))
			return -EINVAL;
		from += n;
		count -= n;
	}
	return 0;
}

/*
 * Characters [from, from + count) of the string at tagged pointer p to
 * sink, following cons, thin and sliced strings to their sequential ones.
 * -EINVAL when it is no string, an external one, or does not check out.
 */
static int str_walk(const struct v8_mem *m, uint64_t p, uint32_t from, uint32_t count,
		    const struct str_sink *sink, int depth)
{
	const struct v8_layout *l = m->l;
	int type = obj_type(m, p);
	uint32_t len = 0, first_len;
	uint64_t obj = p - TAG, first;
	int repr;

	if (type < 0 || type >= l->first_nonstring || depth > STRING_DEPTH ||
	    m->read(m->ctx, obj + (uint64_t)l->string_length, &len, sizeof(len)) || from > len ||
	    count > len - from)
		return -EINVAL;
	if (!count)
		return 0;
	repr = type & l->string_repr_mask;
	if (repr == l->seq_tag)
		return str_seq(m, obj, (type & l->string_enc_mask) == l->one_byte_tag, from, count,
			       sink);
	if (repr == l->thin_tag)
		return str_walk(m, mem_word(m, obj, l->thin_actual), from, count, sink, depth + 1);
	if (repr == l->sliced_tag) {
		uint64_t off = mem_word(m, obj, l->sliced_offset);

		if (!is_smi(off) || smi_value(off) < 0)
			return -EINVAL;
		return str_walk(m, mem_word(m, obj, l->sliced_parent),
				from + (uint32_t)smi_value(off), count, sink, depth + 1);
	}
	if (repr != l->cons_tag)
		return -EINVAL;
	first = mem_word(m, obj, l->cons_first);
	if (obj_type(m, first) < 0 || m->read(m->ctx, first - TAG + (uint64_t)l->string_length,
					      &first_len, sizeof(first_len)))
		return -EINVAL;
	if (from < first_len) {
		uint32_t n = count < first_len - from ? count : first_len - from;

		if (str_walk(m, first, from, n, sink, depth + 1))
			return -EINVAL;
		from += n;
		count -= n;
	}
	if (!count)
		return 0;
	return str_walk(m, mem_word(m, obj, l->cons_second), from - first_len, count, sink,
			depth + 1);
}

/* The length of the string at tagged pointer p; -1 when it is none. */
static int64_t str_length(const struct v8_mem *m, uint64_t p)
{
	int type = obj_type(m, p);
	uint32_t len;

	if (type < 0 || type >= m->l->first_nonstring ||
	    m->read(m->ctx, p - TAG + (uint64_t)m->l->string_length, &len, sizeof(len)))
		return -1;
	return len;
}

struct str_buf {
	char *buf;
	size_t have, size;
};

static int buf_chunk(void *ctx, const uint8_t *c, size_t n)
{
	struct str_buf *b = ctx;

	if (b->have + n >= b->size)
		return -1;
	memcpy(b->buf + b->have, c, n);
	b->have += n;
	return 0;
}

int v8frames__string(const struct v8_mem *m, uint64_t p, char *buf, size_t size)
{
	struct str_buf b = { buf, 0, size };
	struct str_sink sink = { buf_chunk, &b };
	int64_t len = str_length(m, p);

	if (!size)
		return -EINVAL;
	buf[0] = '\0';
	if (len < 0 || (uint64_t)len >= size || str_walk(m, p, 0, (uint32_t)len, &sink, 0)) {
		buf[0] = '\0'; /* nothing of a string cut short */
		return -EINVAL;
	}
	buf[b.have] = '\0';
	for (size_t i = 0; i < b.have; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = '?';
	return 0;
}

/* Lines */

struct line_scan {
	uint32_t *ends;
	size_t nr, cap;
	uint32_t at;
};

static int line_chunk(void *ctx, const uint8_t *c, size_t n)
{
	struct line_scan *s = ctx;

	for (size_t i = 0; i < n; i++, s->at++) {
		if (c[i] != '\n')
			continue;
		if (s->nr == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 256;
			uint32_t *e;

			if (cap > LINES_MAX)
				return -1;
			e = realloc(s->ends, cap * sizeof(*e));
			if (!e)
				return -1;
			s->ends = e;
			s->cap = cap;
		}
		s->ends[s->nr++] = s->at;
	}
	return 0;
}

/* The line ends of Script script (tagged): V8's, or found in its source. */
static int script_lines(const struct v8_mem *m, uint64_t script, uint32_t **ends, size_t *nr)
{
	const struct v8_layout *l = m->l;
	uint64_t le = l->script_line_ends >= 0 ? mem_word(m, script - TAG, l->script_line_ends) : 0;
	struct line_scan s = { 0 };
	struct str_sink sink = { line_chunk, &s };
	uint64_t src;
	int64_t len;

	*ends = NULL;
	*nr = 0;
	if (obj_type(m, le) == l->type_fixed_array) {
		uint64_t n = mem_word(m, le - TAG, l->array_length);
		uint64_t *w;

		if (is_smi(n) && smi_value(n) > 0 && (uint32_t)smi_value(n) <= LINES_MAX) {
			size_t k = (size_t)smi_value(n);

			w = malloc(k * sizeof(*w));
			*ends = malloc(k * sizeof(**ends));
			if (w && *ends &&
			    !m->read(m->ctx, le - TAG + (uint64_t)l->array_length + 8, w,
				     k * sizeof(*w))) {
				for (size_t i = 0; i < k; i++)
					(*ends)[i] = is_smi(w[i]) ? (uint32_t)smi_value(w[i]) : 0;
				*nr = k;
				free(w);
				return 0;
			}
			free(w);
			free(*ends);
			*ends = NULL;
		}
	}
	src = mem_word(m, script - TAG, l->script_source);
	len = str_length(m, src);
	if (len <= 0 || len > SOURCE_MAX || str_walk(m, src, 0, (uint32_t)len, &sink, 0)) {
		free(s.ends);
		return -EINVAL;
	}
	*ends = s.ends;
	*nr = s.nr;
	return 0;
}

/* The 1-based line of script offset pos, from its Script's line ends; 0 when unknown. */
static uint32_t line_of(const struct v8_sfi *s, uint32_t pos)
{
	size_t lo = 0, hi = s->nr_line_ends;

	if (!s->line_ends)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->line_ends[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo + 1;
}

/* A signed VLQ of V8's source position tables (zigzag, 7 bits a byte, low first). */
static bool read_vlq(const uint8_t *p, size_t n, size_t *at, int64_t *v)
{
	uint64_t u = 0;

	for (unsigned int shift = 0; *at < n && shift < 64; shift += 7) {
		uint8_t b = p[(*at)++];

		u |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = (int64_t)((u >> 1) ^ (0 - (u & 1)));
			return true;
		}
	}
	return false;
}

/*
 * The source position of code offset off in source position table p (n
 * bytes): pairs of code offset and source position, each a delta from the
 * last, a code delta negative for a position that is no statement's. A
 * position: bit 0 external, bits 1 to 30 the script offset plus one, bits
 * 31 to 46 the inlining plus one (0: none). -1 when none.
 */
static int64_t raw_position_of(const uint8_t *p, size_t n, uint32_t off)
{
	int64_t code = -1, source = 0, found = -1, d;
	size_t at = 0;

	while (at < n) {
		if (!read_vlq(p, n, &at, &d))
			break;
		code += d >= 0 ? d : -(d + 1);
		if (code > (int64_t)off)
			break;
		if (!read_vlq(p, n, &at, &d))
			break;
		source += d;
		found = source;
	}
	return found;
}

/* The script offset of source position pos; -1 when none, or external (not a script's). */
static int64_t script_offset(int64_t pos)
{
	if (pos < 0 || (pos & 1))
		return -1;
	return ((pos >> 1) & ((1 << 30) - 1)) - 1;
}

static int64_t position_of(const uint8_t *p, size_t n, uint32_t off)
{
	return script_offset(raw_position_of(p, n, off));
}

uint32_t v8frames__line(const struct v8_mem *m, const struct v8_sfi *s, uint32_t off)
{
	int64_t header = m->l->bytecode_data - TAG, pos;

	if (!s->positions || off < header)
		return 0;
	pos = position_of(s->positions, s->nr_positions, off - (uint32_t)header);
	return pos >= 0 ? line_of(s, (uint32_t)pos) : 0;
}

/* SharedFunctionInfos */

/*
 * The function's name in its ScopeInfo at tagged pointer si: the first
 * string past its context locals' names and infos (V8 keeps no offset of
 * it in its metadata) into buf; and its start's script offset in *start,
 * at the fixed slots 3 and 4 (start, end) where it has them (V8 12.8 and
 * later, whose first variable slot is past them), else the first two
 * Smis past the name, the first below the second. 0, or -EINVAL.
 */
static int scope_name(const struct v8_mem *m, uint64_t si, char *buf, size_t size, int32_t *start)
{
	const struct v8_layout *l = m->l;
	uint64_t slots[SCOPE_SLOTS];
	int64_t locals, i;
	int err = -EINVAL;

	if (m->read(m->ctx, si - TAG + 8, slots, sizeof(slots)) || l->scope_ncontextlocals < 0 ||
	    l->scope_ncontextlocals >= SCOPE_SLOTS || l->scope_first_vars < 0)
		return -EINVAL;
	if (!is_smi(slots[l->scope_ncontextlocals]))
		return -EINVAL;
	if (l->scope_first_vars >= 5 && is_smi(slots[3]) && is_smi(slots[4]) &&
	    smi_value(slots[3]) >= 0 && smi_value(slots[3]) < smi_value(slots[4]))
		*start = smi_value(slots[3]);
	locals = smi_value(slots[l->scope_ncontextlocals]);
	for (i = l->scope_first_vars + 2 * locals; i >= 0 && i < SCOPE_SLOTS; i++) {
		int type = obj_type(m, slots[i]);

		if (type >= 0 && type < l->first_nonstring && str_length(m, slots[i]) > 0) {
			err = v8frames__string(m, slots[i], buf, size);
			break;
		}
	}
	for (i++; *start < 0 && i > 0 && i + 1 < SCOPE_SLOTS; i++)
		if (is_smi(slots[i]) && is_smi(slots[i + 1]) && smi_value(slots[i]) >= 0 &&
		    smi_value(slots[i]) < smi_value(slots[i + 1]))
			*start = smi_value(slots[i]);
	return err;
}

/* The source position table of a function's data at tagged pointer data into *s. */
static void read_positions(const struct v8_mem *m, uint64_t data, struct v8_sfi *s)
{
	const struct v8_layout *l = m->l;
	uint64_t t, n;
	int type;

	if (obj_type(m, data) != l->type_bytecode_array)
		return;
	t = mem_word(m, data - TAG, l->bytecode_positions);
	type = obj_type(m, t);
	if (type < 0 || (type != l->type_byte_array && type != l->type_trusted_byte_array))
		return;
	n = mem_word(m, t - TAG, l->array_length);
	if (!is_smi(n) || smi_value(n) <= 0 || (uint32_t)smi_value(n) > POSITIONS_MAX)
		return;
	s->positions = malloc((size_t)smi_value(n));
	if (s->positions && !m->read(m->ctx, t - TAG + (uint64_t)l->array_length + 8, s->positions,
				     (size_t)smi_value(n))) {
		s->nr_positions = (size_t)smi_value(n);
		return;
	}
	free(s->positions);
	s->positions = NULL;
}

int v8frames__sfi_read(const struct v8_mem *m, uint64_t addr, struct v8_sfi *s)
{
	const struct v8_layout *l = m->l;
	char buf[NAME_MAX_LEN];
	uint64_t p = addr + TAG, nos, script;
	int type;

	memset(s, 0, sizeof(*s));
	s->addr = addr;
	s->start = -1;
	if (obj_type(m, p) != l->type_sfi)
		return -EINVAL;
	nos = mem_word(m, addr, l->sfi_name);
	s->tag = UNW_V8_TAG(nos);
	type = obj_type(m, nos);
	buf[0] = '\0';
	if (type >= 0 && type < l->first_nonstring)
		v8frames__string(m, nos, buf, sizeof(buf));
	else if (type == l->type_scope_info)
		scope_name(m, nos, buf, sizeof(buf), &s->start);
	s->name = strdup(buf[0] ? buf : anonymous);
	script = mem_word(m, addr, l->sfi_script);
	if (obj_type(m, script) == l->type_script &&
	    v8frames__string(m, mem_word(m, script - TAG, l->script_name), buf, sizeof(buf)) == 0 &&
	    buf[0])
		s->file = strdup(buf);
	if (!s->name) {
		v8frames__sfi_clear(s);
		return -ENOMEM;
	}
	if (s->file) {
		read_positions(m, mem_word(m, addr, l->sfi_data), s);
		if (s->positions || s->start >= 0)
			script_lines(m, script, &s->line_ends, &s->nr_line_ends);
		if (s->start >= 0)
			s->first_line = line_of(s, (uint32_t)s->start);
	}
	return 0;
}

void v8frames__sfi_clear(struct v8_sfi *s)
{
	free(s->name);
	free(s->file);
	free(s->positions);
	free(s->line_ends);
	memset(s, 0, sizeof(*s));
}

/* Compiled code */

#define CODE_SCAN (256u << 10) /* bytes below a pc looked through for its InstructionStream */
#define CODE_ALIGN 32	       /* V8's code alignment: an InstructionStream starts at one */
#define PAGE 4096

/* Whether the layout says what compiled code's inlining needs (V8 12 and later). */
static bool code_known(const struct v8_layout *l)
{
	return l->type_instruction_stream > 0 && l->is_code > 0 && l->is_instructions > 0 &&
	       l->type_code > 0 && l->code_instructions > 0 && l->code_size > 0 &&
	       l->code_deopt > 0 && l->code_positions > 0 && l->deopt_inlined_count > 0 &&
	       l->deopt_literals > 0 && l->deopt_inlining > 0 &&
	       (l->deopt_sfi > 0 || (l->deopt_wrapped_sfi > 0 && l->wrapper_sfi > 0));
}

/*
 * Whether the InstructionStream at untagged address a (32-aligned) holds
 * pc: its map's type says an InstructionStream (*map, once known, the map
 * itself), its Code's instructions start where its own do and hold pc.
 * Its Code (tagged) in *code.
 */
static bool stream_holds(const struct v8_mem *m, uint64_t a, uint64_t word0, uint64_t pc,
			 uint64_t *map, uint64_t *code)
{
	const struct v8_layout *l = m->l;
	uint64_t start;
	uint32_t size = 0;
	uint16_t type;

	if (!is_object(word0) || (*map && word0 != *map))
		return false;
	if (!*map &&
	    (m->read(m->ctx, word0 - TAG + (uint64_t)l->instance_type, &type, sizeof(type)) ||
	     type != l->type_instruction_stream))
		return false;
	*code = mem_word(m, a, l->is_code);
	if (obj_type(m, *code) != l->type_code)
		return false;
	start = mem_word(m, *code - TAG, l->code_instructions);
	if (start != a + (uint64_t)l->is_instructions ||
	    m->read(m->ctx, *code - TAG + (uint64_t)l->code_size, &size, sizeof(size)))
		return false;
	if (pc < start || pc - start >= size)
		return false;
	*map = word0;
	return true;
}

/*
 * The Code (tagged) whose instructions hold pc, from the InstructionStream
 * before them, looked for a page at a time down to CODE_SCAN below pc; 0
 * when none is found. *map: the InstructionStreams' map, once known.
 */
static uint64_t code_of_pc(const struct v8_mem *m, uint64_t pc, uint64_t *map)
{
	uint64_t page = pc & ~(uint64_t)(PAGE - 1), code;
	uint8_t *buf = malloc(PAGE);

	if (!buf)
		return 0;
	for (uint64_t lo = page; page - lo < CODE_SCAN && lo >= PAGE; lo -= PAGE) {
		uint64_t top = lo == page ? (pc & ~(uint64_t)(CODE_ALIGN - 1)) - lo :
					    PAGE - CODE_ALIGN;

		if (m->read(m->ctx, lo, buf, PAGE))
			break;
		for (int64_t at = (int64_t)top; at >= 0; at -= CODE_ALIGN) {
			uint64_t word0;

			memcpy(&word0, buf + at, sizeof(word0));
			if (stream_holds(m, lo + (uint64_t)at, word0, pc, map, &code)) {
				free(buf);
				return code;
			}
		}
	}
	free(buf);
	return 0;
}

/* Entry i of the deoptimization data at tagged pointer dd; 0 past its length. */
static uint64_t deopt_entry(const struct v8_mem *m, uint64_t dd, int32_t i)
{
	uint64_t n = mem_word(m, dd - TAG, m->l->array_length);

	if (!is_smi(n) || i < 0 || i >= smi_value(n))
		return 0;
	return mem_word(m, dd - TAG, m->l->array_length + 8 + 8 * i);
}

/*
 * The functions running at pc of Code code (tagged), innermost first, the
 * last the code's own function (sfi 0): from its source position table,
 * whose position at pc says an inlining, and its deoptimization data's
 * inlining positions (each a position in the function it is inlined into,
 * and the inlined function's index in the data's literals). Their number,
 * at most max; 0 when they do not check out.
 */
static size_t code_frames(const struct v8_mem *m, uint64_t code, uint64_t pc,
			  struct v8_code_frame *out, size_t max)
{
	const struct v8_layout *l = m->l;
	uint64_t start = mem_word(m, code - TAG, l->code_instructions), t, n, dd, lits, ip, own;
	uint8_t *table = NULL, inl[FRAME_INLINED_MAX * 16];
	size_t k = 0, nr_inl;
	int64_t pos, count;

	t = mem_word(m, code - TAG, l->code_positions);
	n = obj_type(m, t) >= 0 ? mem_word(m, t - TAG, l->array_length) : 1;
	if (!is_smi(n) || smi_value(n) <= 0 || (uint32_t)smi_value(n) > POSITIONS_MAX ||
	    !(table = malloc((size_t)smi_value(n))) ||
	    m->read(m->ctx, t - TAG + (uint64_t)l->array_length + 8, table, (size_t)smi_value(n))) {
		free(table);
		return 0;
	}
	pos = raw_position_of(table, (size_t)smi_value(n), (uint32_t)(pc - start));
	free(table);
	dd = mem_word(m, code - TAG, l->code_deopt);
	if (!is_object(dd))
		return 0;
	/* the code's own function, which the frame's must be */
	if (l->deopt_sfi > 0)
		own = deopt_entry(m, dd, l->deopt_sfi);
	else
		own = mem_word(m, deopt_entry(m, dd, l->deopt_wrapped_sfi) - TAG, l->wrapper_sfi);
	if (!is_object(own))
		return 0;
	count = smi_value(deopt_entry(m, dd, l->deopt_inlined_count));
	lits = count > 0 ? deopt_entry(m, dd, l->deopt_literals) : 0;
	ip = count > 0 ? deopt_entry(m, dd, l->deopt_inlining) : 0;
	n = is_object(ip) ? mem_word(m, ip - TAG, l->array_length) : 0;
	nr_inl = is_smi(n) && smi_value(n) > 0 ? (size_t)smi_value(n) / 16 : 0;
	if (nr_inl > FRAME_INLINED_MAX)
		nr_inl = FRAME_INLINED_MAX;
	if (nr_inl && m->read(m->ctx, ip - TAG + (uint64_t)l->array_length + 8, inl, nr_inl * 16))
		nr_inl = 0;
	while (pos >= 0 && k + 1 < max) {
		uint32_t id = (uint32_t)((uint64_t)pos >> 31) & 0xffff;
		int64_t next;
		int32_t fn;

		if (!id)
			break;
		if (id > nr_inl || !is_object(lits))
			return 0;
		memcpy(&next, inl + 16 * (id - 1), sizeof(next));
		memcpy(&fn, inl + 16 * (id - 1) + 8, sizeof(fn));
		if (fn < 0 || fn >= count)
			return 0;
		out[k].sfi = mem_word(m, lits - TAG, l->array_length + 8 + 8 * fn);
		if ((out[k].sfi & 3) == 3) /* a weak reference (V8 11's literals) */
			out[k].sfi &= ~2ULL;
		if (!is_object(out[k].sfi))
			return 0;
		out[k].sfi -= TAG;
		out[k++].offset = script_offset(pos);
		pos = next;
	}
	out[k++] = (struct v8_code_frame){ own - TAG, script_offset(pos) };
	return k;
}

size_t v8frames__pc_frames(const struct v8_mem *m, uint64_t pc, uint64_t *stream_map,
			   struct v8_code_frame *out, size_t max)
{
	uint64_t code;

	if (!code_known(m->l) || !max)
		return 0;
	code = code_of_pc(m, pc, stream_map);
	return code ? code_frames(m, code, pc, out, max) : 0;
}

/* The namer */

/* What runs at a pc of compiled code: the functions inlined there, its own function's position. */
struct v8_pc {
	uint64_t pc;
	uint64_t own;	    /* its code's own SharedFunctionInfo, untagged */
	bool found;	    /* its code was found and checked out */
	int64_t own_offset; /* its own function's script offset; -1: unknown */
	size_t nr;
	struct frame_name inlined[FRAME_INLINED_MAX];
};

struct v8frames_proc {
	struct proc_mem mem; /* first: an entry of struct proc_mems */
	struct v8_layout l;
	struct hashmap sfis; /* of struct v8_sfi, by address */
	struct hashmap pcs;  /* of struct v8_pc, by SharedFunctionInfo and pc */
	uint64_t stream_map; /* the InstructionStreams' map, once found */
	bool read;	     /* it has a layout */
};

struct v8frames {
	struct proc_mems procs; /* of struct v8frames_proc */
};

static int proc_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return proc_mem__read(ctx, addr, buf, len);
}

static bool sfi_eq(const void *value, const void *key)
{
	return ((const struct v8_sfi *)value)->key == *(const uint64_t *)key;
}

static void proc_clear(void *entry)
{
	struct v8frames_proc *p = entry;

	for (size_t i = 0; i < p->sfis.cap; i++) {
		struct v8_sfi *s = p->sfis.slots[i].value;

		if (!s)
			continue;
		v8frames__sfi_clear(s);
		free(s);
	}
	hashmap__exit(&p->sfis);
	for (size_t i = 0; i < p->pcs.cap; i++)
		free(p->pcs.slots[i].value);
	hashmap__exit(&p->pcs);
	p->stream_map = 0;
}

struct v8frames *v8frames__new(void)
{
	struct v8frames *n = calloc(1, sizeof(*n));

	if (n) {
		n->procs.size = sizeof(struct v8frames_proc);
		n->procs.clear = proc_clear;
	}
	return n;
}

void v8frames__free(struct v8frames *n)
{
	if (!n)
		return;
	proc_mem__free(&n->procs);
	free(n);
}

int v8frames__add_process(struct v8frames *n, uint32_t pid, const struct v8runtime *r)
{
	struct v8frames_proc *p = proc_mem__find(&n->procs, pid);
	int err;

	if (p && p->read && !memcmp(&p->l, &r->l, sizeof(p->l)))
		return 0;
	err = proc_mem__open(&n->procs, pid, (void **)&p);
	if (!p)
		return err;
	p->l = r->l;
	p->read = true;
	return err;
}

int v8frames__fork(struct v8frames *n, uint32_t ppid, uint32_t pid)
{
	struct v8frames_proc *p, *parent;
	int err = proc_mem__fork(&n->procs, ppid, pid, (void **)&p);

	if (!p)
		return err;
	parent = proc_mem__find(&n->procs, ppid);
	if (parent) {
		p->l = parent->l;
		p->read = parent->read;
	}
	return err;
}

void v8frames__remove_process(struct v8frames *n, uint32_t pid)
{
	proc_mem__remove(&n->procs, pid);
}

/*
 * The SharedFunctionInfo of frame word key (its address and tag) of p, read
 * now if it was not; NULL when it does not check out or is another's.
 */
static const struct v8_sfi *proc_sfi(struct v8frames_proc *p, uint64_t key)
{
	struct v8_mem m = { proc_read, &p->mem, &p->l };
	uint64_t h = hash_u64(key);
	struct v8_sfi *s = hashmap__find(&p->sfis, h, sfi_eq, &key);

	if (s || !p->read)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (v8frames__sfi_read(&m, key & UNW_V8_ADDR_MASK, s) ||
	    s->tag != (key >> UNW_V8_TAG_SHIFT & 0xff)) {
		v8frames__sfi_clear(s);
		free(s);
		return NULL;
	}
	s->key = key;
	if (hashmap__add(&p->sfis, h, s)) {
		v8frames__sfi_clear(s);
		free(s);
		return NULL;
	}
	return s;
}

static bool pc_eq(const void *value, const void *key)
{
	return ((const struct v8_pc *)value)->pc == *(const uint64_t *)key;
}

/* The line of script offset off of s: its function's first when unknown. */
static uint32_t sfi_line(const struct v8_sfi *s, int64_t off)
{
	uint32_t line = off >= 0 ? line_of(s, (uint32_t)off) : 0;

	return line ? line : s->first_line;
}

/*
 * What runs at pc of compiled code of p, read now if it was not (none
 * found is kept too: compiled code is read once, while it lives); NULL
 * when its code was not found or does not check out.
 */
static const struct v8_pc *proc_pc(struct v8frames_proc *p, uint64_t pc)
{
	struct v8_mem m = { proc_read, &p->mem, &p->l };
	uint64_t h = hash_u64(pc);
	struct v8_pc *e = hashmap__find(&p->pcs, h, pc_eq, &pc);
	struct v8_code_frame frames[FRAME_INLINED_MAX + 1];
	size_t n = 0;

	if (e || !p->read)
		return e && e->found ? e : NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->pc = pc;
	n = v8frames__pc_frames(&m, pc, &p->stream_map, frames, FRAME_INLINED_MAX + 1);
	for (size_t i = 0; n && i + 1 < n; i++) {
		uint64_t nos = mem_word(&m, frames[i].sfi, p->l.sfi_name);
		const struct v8_sfi *in =
			proc_sfi(p, frames[i].sfi | (uint64_t)UNW_V8_TAG(nos) << UNW_V8_TAG_SHIFT);

		/* an inlined function that does not check out: none of them is named */
		if (!in) {
			e->nr = 0;
			n = 0;
			break;
		}
		e->inlined[e->nr++] = (struct frame_name){ .function = in->name,
							   .file = in->file,
							   .line = sfi_line(in, frames[i].offset),
							   .first_line = in->first_line };
	}
	e->found = n > 0;
	e->own = n ? frames[n - 1].sfi : 0;
	e->own_offset = n ? frames[n - 1].offset : -1;
	if (hashmap__add(&p->pcs, h, e)) {
		free(e);
		return NULL;
	}
	return e->found ? e : NULL;
}

void v8frames__read_pc(struct v8frames *n, uint32_t pid, uint64_t pc)
{
	struct v8frames_proc *p = proc_mem__find(&n->procs, pid);

	if (p)
		proc_pc(p, pc);
}

void v8frames__read_sfi(struct v8frames *n, uint32_t pid, uint64_t sfi)
{
	struct v8frames_proc *p = proc_mem__find(&n->procs, pid);

	if (p)
		proc_sfi(p, sfi);
}

int v8frames__name(struct v8frames *n, uint32_t pid, uint64_t sfi, uint64_t where,
		   struct v8_frame_name *out)
{
	struct v8frames_proc *p = proc_mem__find(&n->procs, pid);
	const struct v8_sfi *s;

	*out = (struct v8_frame_name){ unknown, NULL, 0, 0, NULL, 0 };
	if (!p)
		return -ENOENT;
	s = proc_sfi(p, sfi);
	if (!s)
		return 0;
	out->name = s->name;
	out->file = s->file;
	out->first_line = s->first_line;
	if (where >> UNW_V8_KIND_SHIFT == UNW_V8_BYTECODE) {
		struct v8_mem m = { proc_read, &p->mem, &p->l };

		out->line = v8frames__line(&m, s, (uint32_t)(where & UNW_V8_VALUE_MASK));
	} else if (where >> UNW_V8_KIND_SHIFT == UNW_V8_PC) {
		const struct v8_pc *e = proc_pc(p, where & UNW_V8_VALUE_MASK);

		/* code of another function at the pc, since it was read: none of it */
		if (e && e->own == (sfi & UNW_V8_ADDR_MASK)) {
			out->line = sfi_line(s, e->own_offset);
			out->inlined = e->nr ? e->inlined : NULL;
			out->nr_inlined = e->nr;
		}
	}
	/* a line not known: its function's first, as --cpu-prof names a frame */
	if (!out->line)
		out->line = s->first_line;
	return 0;
}
