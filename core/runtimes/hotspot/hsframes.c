// SPDX-License-Identifier: GPL-2.0-only
/*
 * Naming HotSpot's frames from the JVM's memory. See hsframes.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/common.h"
#include "../../util/hashmap.h"
#include "bpf/abi.h"
#include "../proc_mem.h"
#include "hotspot.h"
#include "hsframes.h"

static const char unknown[] = "<unknown>";

/* Bounds of what is believed: a Symbol's length read, a line, a line table's pairs. */
#define HS_SYMBOL_MAX 1024
#define HS_LINE_MAX (1u << 24)
#define HS_LINE_PAIRS_MAX 65536
#define HS_CODE_SIZE_MAX 65536

static int mem_word(const struct hs_mem *m, uint64_t addr, uint64_t *v)
{
	return addr && !m->read(m->ctx, addr, v, sizeof(*v)) && *v ? 0 : -EINVAL;
}

static int mem_u16(const struct hs_mem *m, uint64_t addr, uint16_t *v)
{
	return addr && !m->read(m->ctx, addr, v, sizeof(*v)) ? 0 : -EINVAL;
}

static bool printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

/* Symbol sym's bytes into buf, NUL-terminated, '/' as '.' when dots: 0 or -EINVAL. */
static int read_symbol(const struct hs_mem *m, uint64_t sym, char *buf, size_t size, bool dots)
{
	uint16_t len;

	if (!sym || mem_u16(m, sym + (uint64_t)m->l->symbol_length, &len) || !len ||
	    len > HS_SYMBOL_MAX || len >= size ||
	    m->read(m->ctx, sym + (uint64_t)m->l->symbol_body, buf, len))
		return -EINVAL;
	buf[len] = '\0';
	if (!printable(buf, len))
		return -EINVAL;
	/*
	 * A class's name as the JVM writes it (Klass::external_name): its
	 * package's '/' as '.', and a hidden class's '+' before its address
	 * as '/' ("App$$Lambda$14/0x0000000800c01234").
	 */
	for (size_t i = 0; dots && i < len; i++)
		if (buf[i] == '/')
			buf[i] = '.';
		else if (buf[i] == '+' && !strncmp(buf + i + 1, "0x", 2))
			buf[i] = '/';
	return 0;
}

/* The Symbol* of entry i of constant pool cp, which has len entries. */
static int pool_symbol(const struct hs_mem *m, uint64_t cp, int32_t len, uint16_t i, uint64_t *sym)
{
	if (!i || i >= len)
		return -EINVAL;
	return mem_word(m, cp + (uint64_t)m->l->pool_size + 8 * (uint64_t)i, sym);
}

/* Method m's ConstMethod and constant pool and the pool's length. */
static int method_pool(const struct hs_mem *m, uint64_t method, uint64_t *cm, uint64_t *cp,
		       int32_t *len)
{
	const struct hs_layout *l = m->l;

	if (mem_word(m, method + (uint64_t)l->method_const_method, cm) ||
	    mem_word(m, *cm + (uint64_t)l->const_method_constants, cp) ||
	    m->read(m->ctx, *cp + (uint64_t)l->pool_length, len, sizeof(*len)) || *len <= 0 ||
	    *len > 65536)
		return -EINVAL;
	return 0;
}

int hsframes__method(const struct hs_mem *m, uint64_t method, char *name, size_t name_size,
		     char *file, size_t file_size)
{
	const struct hs_layout *l = m->l;
	uint64_t cm, cp, holder, ksym, msym, fsym;
	uint16_t name_index, file_index;
	char mname[256];
	size_t klen;
	int32_t len;

	*file = '\0';
	if (name_size < 2 || method_pool(m, method, &cm, &cp, &len) ||
	    mem_u16(m, cm + (uint64_t)l->const_method_name_index, &name_index) ||
	    pool_symbol(m, cp, len, name_index, &msym) ||
	    read_symbol(m, msym, mname, sizeof(mname), false) ||
	    mem_word(m, cp + (uint64_t)l->pool_holder, &holder) ||
	    mem_word(m, holder + (uint64_t)l->klass_name, &ksym) ||
	    read_symbol(m, ksym, name, name_size, true))
		return -EINVAL;
	klen = strlen(name);
	if (klen + 1 + strlen(mname) + 1 > name_size)
		return -EINVAL;
	name[klen] = '.';
	memcpy(name + klen + 1, mname, strlen(mname) + 1);
	/* The source file, when the class says one. */
	if (!mem_u16(m, cp + (uint64_t)l->pool_source_file_name_index, &file_index) &&
	    !pool_symbol(m, cp, len, file_index, &fsym) &&
	    read_symbol(m, fsym, file, file_size, false))
		*file = '\0';
	return 0;
}

/* A byte of the line table at *at, which may not pass end. */
static int table_byte(const struct hs_mem *m, uint64_t *at, uint64_t end, uint8_t *b)
{
	if (*at >= end || m->read(m->ctx, *at, b, 1))
		return -EINVAL;
	(*at)++;
	return 0;
}

/* A signed int of HotSpot's variable-length code (JDK 17's CompressedReadStream). */
static int table_signed(const struct hs_mem *m, uint64_t *at, uint64_t end, int32_t *v)
{
	uint32_t sum = 0;
	uint8_t b;

	for (int i = 0; i < 5; i++) {
		if (table_byte(m, at, end, &b))
			return -EINVAL;
		sum += (uint32_t)b << (6 * i);
		if (b < 192 || i == 4)
			break;
	}
	*v = (int32_t)((sum >> 1) ^ -(sum & 1));
	return 0;
}

int hsframes__lines(const struct hs_mem *m, uint64_t method, uint64_t *code, uint32_t *code_size,
		    struct hs_line **pairs, size_t *nr)
{
	const struct hs_layout *l = m->l;
	uint64_t cm, cp, at, end;
	uint16_t flags, size;
	int64_t bci = 0, ln = 0; /* wide: a table's deltas may add up past an int */
	struct hs_line *p = NULL;
	int32_t len;
	size_t n = 0, cap = 0;

	*pairs = NULL;
	*nr = 0;
	if (method_pool(m, method, &cm, &cp, &len) ||
	    mem_u16(m, cm + (uint64_t)l->const_method_flags, &flags) ||
	    mem_u16(m, cm + (uint64_t)l->const_method_code_size, &size))
		return -EINVAL;
	*code = cm + (uint64_t)l->const_method_size;
	*code_size = size;
	if (!(flags & l->has_linenumber_table))
		return 0;
	at = *code + size;
	end = at + 5 * HS_LINE_PAIRS_MAX;
	for (int i = 0; i < HS_LINE_PAIRS_MAX; i++) {
		int32_t dbci, dline;
		uint8_t b;

		if (table_byte(m, &at, end, &b))
			goto broken;
		if (!b)
			break;
		if (b != 0xff) {
			dbci = b >> 3;
			dline = b & 7;
		} else if (table_signed(m, &at, end, &dbci) || table_signed(m, &at, end, &dline)) {
			goto broken;
		}
		bci += dbci;
		ln += dline;
		if (bci < INT32_MIN || bci > INT32_MAX || ln < INT32_MIN || ln > INT32_MAX)
			goto broken; /* no table of a method's bytecodes */
		if (bci < 0 || bci >= size || ln <= 0 || (uint32_t)ln >= HS_LINE_MAX)
			continue; /* not a place in the method: never the answer */
		if (n == cap) {
			struct hs_line *q = realloc(p, (cap = cap ? 2 * cap : 16) * sizeof(*p));

			if (!q)
				goto broken;
			p = q;
		}
		p[n++] = (struct hs_line){ (uint32_t)bci, (uint32_t)ln };
	}
	*pairs = p;
	*nr = n;
	return 0;
broken:
	free(p);
	return -EINVAL;
}

uint32_t hsframes__line_of(const struct hs_line *pairs, size_t nr, uint32_t bci)
{
	uint32_t best_bci = 0, best = 0;

	/* As Method::line_number_from_bci: the pair of the bci, else the last before it. */
	for (size_t i = 0; i < nr; i++) {
		if (pairs[i].bci == bci)
			return pairs[i].line;
		if (pairs[i].bci < bci && pairs[i].bci >= best_bci) {
			best_bci = pairs[i].bci;
			best = pairs[i].line;
		}
	}
	return best;
}

int hsframes__line(const struct hs_mem *m, uint64_t method, uint64_t bcp, uint32_t *line)
{
	struct hs_line *pairs;
	uint32_t code_size;
	uint64_t code;
	size_t nr;
	int err = hsframes__lines(m, method, &code, &code_size, &pairs, &nr);

	if (err)
		return err;
	*line = bcp >= code && bcp < code + code_size ?
			hsframes__line_of(pairs, nr, (uint32_t)(bcp - code)) :
			0;
	free(pairs);
	return *line ? 0 : -ENOENT;
}

int hsframes__blob_name(const struct hs_mem *m, uint64_t blob, char *buf, size_t size)
{
	uint64_t name;
	size_t n;

	if (size < 2 || mem_word(m, blob + (uint64_t)m->l->blob_name, &name))
		return -EINVAL;
	/* Byte by byte: the page after the name may not be mapped. */
	for (n = 0; n < size - 1; n++)
		if (m->read(m->ctx, name + n, buf + n, 1) || !buf[n])
			break;
	buf[n] = '\0';
	return n && n < size - 1 && printable(buf, n) ? 0 : -EINVAL;
}

/* Bounds of an nmethod's debug information read. */
#define HS_PCS_MAX 65536
#define HS_SCOPES_DATA_MAX (1 << 20)
#define HS_METADATA_MAX 65536
#define HS_SCOPE_DEPTH_MAX 64

/* An unsigned int of HotSpot's variable-length code (JDK 17) at *at of buf: 0 or -EINVAL. */
static int buf_uint(const uint8_t *buf, size_t len, size_t *at, uint32_t *v)
{
	uint32_t sum = 0;

	for (int i = 0; i < 5; i++) {
		uint8_t b;

		if (*at >= len)
			return -EINVAL;
		b = buf[(*at)++];
		sum += (uint32_t)b << (6 * i);
		if (b < 192)
			break;
	}
	*v = sum;
	return 0;
}

/* Reads [lo, hi) of the process into a buffer of its own, of at most max bytes. */
static uint8_t *read_range(const struct hs_mem *m, uint64_t lo, uint64_t hi, size_t max)
{
	uint8_t *buf;

	if (hi < lo || hi - lo > max)
		return NULL;
	buf = malloc(hi - lo ? hi - lo : 1);
	if (buf && hi > lo && m->read(m->ctx, lo, buf, hi - lo)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The scopes of decode offset off, innermost first, appended to x's. */
static int decode_scopes(struct hs_nmethod *x, const uint8_t *data, size_t len,
			 const uint64_t *metadata, size_t nr_metadata, uint32_t off, size_t *cap)
{
	for (int depth = 0; off && depth < HS_SCOPE_DEPTH_MAX; depth++) {
		uint32_t sender, index, bci;
		size_t at = off;

		if (buf_uint(data, len, &at, &sender) || buf_uint(data, len, &at, &index) ||
		    buf_uint(data, len, &at, &bci) || !index || index > nr_metadata ||
		    sender >= len)
			return -EINVAL;
		if (x->nr_scopes == *cap) {
			struct hs_scope *q =
				realloc(x->scopes, (*cap = *cap ? 2 * *cap : 64) * sizeof(*q));

			if (!q)
				return -ENOMEM;
			x->scopes = q;
		}
		x->scopes[x->nr_scopes++] =
			(struct hs_scope){ metadata[index - 1], (int32_t)bci - 1 };
		off = sender;
	}
	return off ? -EINVAL : 0;
}

void hsframes__nmethod_free(struct hs_nmethod *x)
{
	if (!x)
		return;
	free(x->pcs);
	free(x->scopes);
	*x = (struct hs_nmethod){ 0 };
}

int hsframes__nmethod(const struct hs_mem *m, uint64_t nm, struct hs_nmethod *out)
{
	const struct hs_layout *l = m->l;
	int32_t meta_off, pcs_off, deps_off;
	uint64_t data_begin, *metadata = NULL;
	uint8_t *pcs = NULL, *data = NULL;
	size_t nr_pcs, nr_meta, cap = 0;
	int err = -EINVAL;

	*out = (struct hs_nmethod){ 0 };
	if (!nm || mem_word(m, nm + (uint64_t)l->nmethod_method, &out->method) ||
	    mem_word(m, nm + (uint64_t)l->blob_code_begin, &out->code_begin) ||
	    mem_word(m, nm + (uint64_t)l->nmethod_scopes_data_begin, &data_begin) ||
	    m->read(m->ctx, nm + (uint64_t)l->nmethod_metadata_offset, &meta_off, 4) ||
	    m->read(m->ctx, nm + (uint64_t)l->nmethod_scopes_pcs_offset, &pcs_off, 4) ||
	    m->read(m->ctx, nm + (uint64_t)l->nmethod_dependencies_offset, &deps_off, 4) ||
	    meta_off < 0 || pcs_off < meta_off || deps_off < pcs_off || l->pc_desc_size < 8 ||
	    data_begin < nm + (uint64_t)meta_off || data_begin > nm + (uint64_t)pcs_off)
		return -EINVAL;
	nr_meta = (data_begin - nm - (uint64_t)meta_off) / 8;
	nr_pcs = (size_t)(deps_off - pcs_off) / (size_t)l->pc_desc_size;
	if (nr_meta > HS_METADATA_MAX || nr_pcs > HS_PCS_MAX)
		return -EINVAL;
	metadata = (uint64_t *)read_range(m, nm + (uint64_t)meta_off,
					  nm + (uint64_t)meta_off + 8 * nr_meta,
					  8 * HS_METADATA_MAX);
	pcs = read_range(m, nm + (uint64_t)pcs_off, nm + (uint64_t)deps_off,
			 HS_PCS_MAX * (size_t)l->pc_desc_size);
	data = read_range(m, data_begin, nm + (uint64_t)pcs_off, HS_SCOPES_DATA_MAX);
	out->pcs = calloc(nr_pcs ? nr_pcs : 1, sizeof(*out->pcs));
	if (!metadata || !pcs || !data || !out->pcs)
		goto out;
	for (size_t i = 0; i < nr_pcs; i++) {
		const uint8_t *d = pcs + i * (size_t)l->pc_desc_size;
		int32_t pc, decode;

		memcpy(&pc, d + l->pc_desc_pc_offset, 4);
		memcpy(&decode, d + l->pc_desc_scope_decode_offset, 4);
		/* Sorted by pc, as HotSpot writes them: one out of order is not believed. */
		if (decode < 0 || (i && pc < out->pcs[i - 1].pc_offset)) {
			err = -EINVAL;
			goto out;
		}
		out->pcs[i] = (struct hs_pc){ pc, (uint32_t)out->nr_scopes, 0 };
		err = decode_scopes(out, data, nm + (uint64_t)pcs_off - data_begin, metadata,
				    nr_meta, (uint32_t)decode, &cap);
		if (err)
			goto out;
		out->pcs[i].nr = (uint32_t)(out->nr_scopes - out->pcs[i].first);
		out->nr_pcs = i + 1;
	}
	err = 0;
out:
	free(metadata);
	free(pcs);
	free(data);
	if (err)
		hsframes__nmethod_free(out);
	return err ? -EINVAL : 0;
}

long hsframes__pc(const struct hs_nmethod *x, int64_t off)
{
	size_t lo = 0, hi = x->nr_pcs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->pcs[mid].pc_offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->nr_pcs ? (long)lo : -1;
}

/* The namer */

/* A method's or a blob's name, read once. */
struct hs_name {
	uint64_t what;
	char *name;
	char *file;	    /* NULL: none */
	uint64_t code;	    /* an interpreted method's bytecodes, */
	uint32_t code_size; /* their size */
	struct hs_line *lines;
	size_t nr_lines;
};

/* An nmethod read when first seen, its scopes named: per scope, its method's name and line. */
struct hs_compiled {
	uint64_t key; /* the nmethod, its compile id's 16 bits above */
	struct hs_nmethod nm;
	const struct hs_name *own;    /* the nmethod's method */
	struct hs_frame_name *frames; /* one per scope of nm */
};

struct hsframes_proc {
	struct proc_mem mem; /* first: an entry of struct proc_mems */
	struct hs_layout layout;
	bool ready;		 /* the layout was read */
	struct hashmap names;	 /* of struct hs_name, by the frame's first word */
	struct hashmap compiled; /* of struct hs_compiled, by its key */
};

struct hsframes {
	struct proc_mems procs; /* of struct hsframes_proc */
};

static void proc_clear(void *entry)
{
	struct hsframes_proc *p = entry;

	for (size_t i = 0; i < p->names.cap; i++) {
		struct hs_name *nm = p->names.slots[i].value;

		if (nm) {
			free(nm->name);
			free(nm->file);
			free(nm->lines);
		}
		free(nm);
	}
	hashmap__exit(&p->names);
	for (size_t i = 0; i < p->compiled.cap; i++) {
		struct hs_compiled *c = p->compiled.slots[i].value;

		if (c) {
			hsframes__nmethod_free(&c->nm);
			free(c->frames);
		}
		free(c);
	}
	hashmap__exit(&p->compiled);
}

struct hsframes *hsframes__new(void)
{
	struct hsframes *n = calloc(1, sizeof(*n));

	if (n)
		n->procs = (struct proc_mems){ .size = sizeof(struct hsframes_proc),
					       .clear = proc_clear };
	return n;
}

void hsframes__free(struct hsframes *n)
{
	if (!n)
		return;
	proc_mem__free(&n->procs);
	free(n);
}

int hsframes__add_process(struct hsframes *n, uint32_t pid, const struct hsruntime *hr,
			  uint64_t bias)
{
	struct hsframes_proc *p = proc_mem__find(&n->procs, pid);
	struct hotspot_process hp;
	const char *missing;
	int err;

	if (p && p->ready)
		return 0;
	err = hotspot__read_process(hr, pid, bias, &hp, &missing);
	if (err)
		return err;
	err = proc_mem__open(&n->procs, pid, (void **)&p);
	if (p) {
		p->layout = hp.layout;
		p->ready = true;
	}
	return err;
}

void hsframes__remove_process(struct hsframes *n, uint32_t pid)
{
	proc_mem__remove(&n->procs, pid);
}

static int proc_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return proc_mem__read(ctx, addr, buf, len);
}

static bool name_has_key(const void *value, const void *key)
{
	return ((const struct hs_name *)value)->what == *(const uint64_t *)key;
}

/* The name of the frame whose first word is what, read now if it was not: NULL when it cannot be. */
static const struct hs_name *name_get(struct hsframes_proc *p, const struct hs_mem *m,
				      uint64_t what)
{
	struct hs_name *nm = hashmap__find(&p->names, hash_u64(what), name_has_key, &what);
	uint64_t value = what & UNW_HS_VALUE_MASK;
	char name[640], file[256];
	int err;

	if (nm)
		return nm;
	if ((what >> UNW_HS_KIND_SHIFT & 0xff) == UNW_HS_STUB)
		err = hsframes__blob_name(m, value, name, sizeof(name)), file[0] = '\0';
	else
		err = hsframes__method(m, value, name, sizeof(name), file, sizeof(file));
	if (err)
		return NULL;
	nm = calloc(1, sizeof(*nm));
	if (!nm)
		return NULL;
	nm->what = what;
	nm->name = strdup(name);
	nm->file = file[0] ? strdup(file) : NULL;
	/* An interpreted method's lines, read with its name: its frames are named after it is gone. */
	if ((what >> UNW_HS_KIND_SHIFT & 0xff) == UNW_HS_INTERPRETED)
		hsframes__lines(m, value, &nm->code, &nm->code_size, &nm->lines, &nm->nr_lines);
	if (nm->name && (!file[0] || nm->file) && !hashmap__add(&p->names, hash_u64(what), nm))
		return nm;
	free(nm->name);
	free(nm->file);
	free(nm->lines);
	free(nm);
	return NULL;
}

static bool compiled_has_key(const void *value, const void *key)
{
	return ((const struct hs_compiled *)value)->key == *(const uint64_t *)key;
}

/* The method at scope s named, with its line at its bci. */
static struct hs_frame_name scope_name(struct hsframes_proc *p, const struct hs_mem *m,
				       const struct hs_scope *s)
{
	const struct hs_name *nm = name_get(p, m,
					    (uint64_t)UNW_HS_INTERPRETED << UNW_HS_KIND_SHIFT |
						    (s->method & UNW_HS_VALUE_MASK));

	if (!nm)
		return (struct hs_frame_name){ .name = unknown };
	return (struct hs_frame_name){
		.name = nm->name,
		.file = nm->file,
		.line = s->bci >= 0 ? hsframes__line_of(nm->lines, nm->nr_lines, (uint32_t)s->bci) :
				      0,
	};
}

/*
 * The nmethod of key (its address, its compile id's 16 bits above), read
 * now if it was not: NULL when it cannot be. Another nmethod at the same
 * address has another key: a frame of the one flushed is never named as
 * the new one's.
 */
static const struct hs_compiled *compiled_get(struct hsframes_proc *p, const struct hs_mem *m,
					      uint64_t key)
{
	struct hs_compiled *c = hashmap__find(&p->compiled, hash_u64(key), compiled_has_key, &key);

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->key = key;
	if (hsframes__nmethod(m, key & UNW_HS_VALUE_MASK, &c->nm))
		goto fail;
	c->own = name_get(p, m,
			  (uint64_t)UNW_HS_INTERPRETED << UNW_HS_KIND_SHIFT |
				  (c->nm.method & UNW_HS_VALUE_MASK));
	c->frames = calloc(c->nm.nr_scopes ? c->nm.nr_scopes : 1, sizeof(*c->frames));
	if (!c->own || !c->frames)
		goto fail;
	for (size_t i = 0; i < c->nm.nr_scopes; i++)
		c->frames[i] = scope_name(p, m, &c->nm.scopes[i]);
	if (!hashmap__add(&p->compiled, hash_u64(key), c))
		return c;
fail:
	hsframes__nmethod_free(&c->nm);
	free(c->frames);
	free(c);
	return NULL;
}

/* Compiled frame of nmethod key at pc: its own method, its line and the methods inlined there. */
static void compiled_name(struct hsframes_proc *p, const struct hs_mem *m, uint64_t key,
			  uint64_t pc, struct hs_frame_name *out)
{
	const struct hs_compiled *c = compiled_get(p, m, key);
	const struct hs_pc *d;
	long i;

	if (!c)
		return;
	out->name = c->own->name;
	out->file = c->own->file;
	i = hsframes__pc(&c->nm, (int64_t)(pc - c->nm.code_begin));
	if (i < 0 || !c->nm.pcs[i].nr)
		return;
	d = &c->nm.pcs[i];
	/* The last scope is the nmethod's own method; those before it were inlined into it. */
	*out = c->frames[d->first + d->nr - 1];
	out->nr_inlined = d->nr - 1;
	out->inlined = d->nr > 1 ? &c->frames[d->first] : NULL;
	out->key = (uint64_t)i + 1;
}

int hsframes__name(struct hsframes *n, uint32_t pid, uint64_t what, uint64_t where,
		   struct hs_frame_name *out)
{
	struct hsframes_proc *p = proc_mem__find(&n->procs, pid);
	unsigned int kind = what >> UNW_HS_KIND_SHIFT & 0xff;
	const struct hs_name *nm;
	struct hs_mem m;

	*out = (struct hs_frame_name){ .name = unknown };
	if (!p || !p->ready)
		return -ENOENT;
	m = (struct hs_mem){ .read = proc_read, .ctx = &p->mem, .l = &p->layout };
	what &= UNW_FRAME_VALUE_MASK;
	if (kind == UNW_HS_COMPILED) {
		compiled_name(p, &m,
			      (what & UNW_HS_VALUE_MASK) | (where >> UNW_HS_TAG_SHIFT)
								   << UNW_HS_TAG_SHIFT,
			      where & UNW_HS_VALUE_MASK, out);
		return 0;
	}
	nm = name_get(p, &m, what);
	if (!nm)
		return 0;
	out->name = nm->name;
	out->file = nm->file;
	if (where >= nm->code && where < nm->code + nm->code_size)
		out->line =
			hsframes__line_of(nm->lines, nm->nr_lines, (uint32_t)(where - nm->code));
	out->key = out->line;
	return 0;
}

void hsframes__read(struct hsframes *n, uint32_t pid, uint64_t what, uint32_t tag)
{
	struct hsframes_proc *p = proc_mem__find(&n->procs, pid);
	struct hs_mem m;

	if (!p || !p->ready)
		return;
	m = (struct hs_mem){ .read = proc_read, .ctx = &p->mem, .l = &p->layout };
	what &= UNW_FRAME_VALUE_MASK;
	if ((what >> UNW_HS_KIND_SHIFT & 0xff) == UNW_HS_COMPILED)
		compiled_get(p, &m,
			     (what & UNW_HS_VALUE_MASK) | (uint64_t)(tag >> 8) << UNW_HS_TAG_SHIFT);
	else
		name_get(p, &m, what);
}
