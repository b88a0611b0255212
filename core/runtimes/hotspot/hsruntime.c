// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading what a walk of HotSpot's frames needs from the JVM's own tables.
 * See hsruntime.h. The symbols come from the file; the tables from the
 * process, through a reader, every read bounded.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../../util/common.h"
#include "../../elf/elf_file.h"
#include "../../util/json.h"
#include "hsruntime.h"

static const char *const hs_symbol_names[HS_SYMBOL_NR] = {
	[HS_STRUCTS] = "gHotSpotVMStructs",
	[HS_STRUCT_TYPE_NAME] = "gHotSpotVMStructEntryTypeNameOffset",
	[HS_STRUCT_FIELD_NAME] = "gHotSpotVMStructEntryFieldNameOffset",
	[HS_STRUCT_TYPE_STRING] = "gHotSpotVMStructEntryTypeStringOffset",
	[HS_STRUCT_IS_STATIC] = "gHotSpotVMStructEntryIsStaticOffset",
	[HS_STRUCT_OFFSET] = "gHotSpotVMStructEntryOffsetOffset",
	[HS_STRUCT_ADDRESS] = "gHotSpotVMStructEntryAddressOffset",
	[HS_STRUCT_STRIDE] = "gHotSpotVMStructEntryArrayStride",
	[HS_TYPES] = "gHotSpotVMTypes",
	[HS_TYPE_TYPE_NAME] = "gHotSpotVMTypeEntryTypeNameOffset",
	[HS_TYPE_SUPERCLASS_NAME] = "gHotSpotVMTypeEntrySuperclassNameOffset",
	[HS_TYPE_IS_OOP_TYPE] = "gHotSpotVMTypeEntryIsOopTypeOffset",
	[HS_TYPE_IS_INTEGER_TYPE] = "gHotSpotVMTypeEntryIsIntegerTypeOffset",
	[HS_TYPE_IS_UNSIGNED] = "gHotSpotVMTypeEntryIsUnsignedOffset",
	[HS_TYPE_SIZE] = "gHotSpotVMTypeEntrySizeOffset",
	[HS_TYPE_STRIDE] = "gHotSpotVMTypeEntryArrayStride",
	[HS_INTS] = "gHotSpotVMIntConstants",
	[HS_INT_NAME] = "gHotSpotVMIntConstantEntryNameOffset",
	[HS_INT_VALUE] = "gHotSpotVMIntConstantEntryValueOffset",
	[HS_INT_STRIDE] = "gHotSpotVMIntConstantEntryArrayStride",
	[HS_LONGS] = "gHotSpotVMLongConstants",
	[HS_LONG_NAME] = "gHotSpotVMLongConstantEntryNameOffset",
	[HS_LONG_VALUE] = "gHotSpotVMLongConstantEntryValueOffset",
	[HS_LONG_STRIDE] = "gHotSpotVMLongConstantEntryArrayStride",
};

const char *hsruntime__symbol_name(unsigned int s)
{
	return s < HS_SYMBOL_NR ? hs_symbol_names[s] : NULL;
}

int hsruntime__read(const struct elf_file *ef, struct hsruntime *hr, const char **missing)
{
	struct elf_symbol_query qs[HS_SYMBOL_NR];
	unsigned int found = 0;
	int err;

	*hr = (struct hsruntime){ 0 };
	*missing = NULL;
	for (unsigned int s = 0; s < HS_SYMBOL_NR; s++)
		qs[s] = (struct elf_symbol_query){ .name = hs_symbol_names[s], .type = STT_OBJECT };
	err = elf_file__find_symbols(ef, qs, HS_SYMBOL_NR);
	if (err)
		return err;
	for (unsigned int s = 0; s < HS_SYMBOL_NR; s++) {
		/* Each a pointer or a 64-bit value, in the file's memory image. */
		if (qs[s].found && qs[s].size == 8 && elf_file__vaddr_mapped(ef, qs[s].value, 8)) {
			hr->sym[s] = qs[s].value;
			found++;
		} else if (!*missing) {
			*missing = hs_symbol_names[s];
		}
	}
	if (!found)
		return -ENOENT;
	return found == HS_SYMBOL_NR ? 0 : -ENOTSUP;
}

/* What each entry of a table is read for. */
enum hs_kind {
	HS_FIELD,  /* a field's offset in its object */
	HS_STATIC, /* a static field's address */
	HS_SIZE,   /* a type's size */
	HS_INT,	   /* an int constant */
};

/*
 * The entries wanted. Rows of one member are alternatives (a field that
 * moved between versions); one found is enough. An optional row may be
 * missing: its member keeps its default.
 */
static const struct hs_want {
	enum hs_kind kind;
	const char *type, *name;
	size_t member; /* in struct hs_layout */
	bool optional;
} hs_wants[] = {
#define F(kind, type, name, member)                                         \
	{                                                                   \
		kind, type, name, offsetof(struct hs_layout, member), false \
	}
#define OPT(kind, type, name, member)                                      \
	{                                                                  \
		kind, type, name, offsetof(struct hs_layout, member), true \
	}
	F(HS_STATIC, "CodeCache", "_heaps", codecache_heaps),
	F(HS_STATIC, "CodeCache", "_low_bound", codecache_low_bound),
	F(HS_STATIC, "CodeCache", "_high_bound", codecache_high_bound),
	F(HS_STATIC, "StubRoutines", "_call_stub_return_address", call_stub_return_address),
	F(HS_FIELD, "GrowableArrayBase", "_len", array_len),
	F(HS_FIELD, "GrowableArray<int>", "_data", array_data),
	F(HS_FIELD, "CodeHeap", "_memory", codeheap_memory),
	F(HS_FIELD, "CodeHeap", "_segmap", codeheap_segmap),
	F(HS_FIELD, "CodeHeap", "_log2_segment_size", codeheap_log2_segment_size),
	F(HS_FIELD, "VirtualSpace", "_low_boundary", vs_low_boundary),
	F(HS_FIELD, "VirtualSpace", "_high_boundary", vs_high_boundary),
	F(HS_FIELD, "VirtualSpace", "_low", vs_low),
	F(HS_FIELD, "VirtualSpace", "_high", vs_high),
	F(HS_SIZE, "HeapBlock", NULL, heapblock_size),
	F(HS_FIELD, "CodeBlob", "_name", blob_name),
	F(HS_FIELD, "CodeBlob", "_size", blob_size),
	F(HS_FIELD, "CodeBlob", "_header_size", blob_header_size),
	F(HS_FIELD, "CodeBlob", "_frame_complete_offset", blob_frame_complete_offset),
	F(HS_FIELD, "CodeBlob", "_frame_size", blob_frame_size),
	F(HS_FIELD, "CodeBlob", "_code_begin", blob_code_begin),
	F(HS_FIELD, "CodeBlob", "_code_end", blob_code_end),
	F(HS_FIELD, "nmethod", "_method", nmethod_method),
	F(HS_FIELD, "CompiledMethod", "_method", nmethod_method),
	F(HS_FIELD, "nmethod", "_compile_id", nmethod_compile_id),
	F(HS_FIELD, "nmethod", "_metadata_offset", nmethod_metadata_offset),
	F(HS_FIELD, "nmethod", "_scopes_pcs_offset", nmethod_scopes_pcs_offset),
	F(HS_FIELD, "nmethod", "_dependencies_offset", nmethod_dependencies_offset),
	F(HS_FIELD, "CompiledMethod", "_scopes_data_begin", nmethod_scopes_data_begin),
	F(HS_SIZE, "PcDesc", NULL, pc_desc_size),
	F(HS_FIELD, "PcDesc", "_pc_offset", pc_desc_pc_offset),
	F(HS_FIELD, "PcDesc", "_scope_decode_offset", pc_desc_scope_decode_offset),
	F(HS_FIELD, "Method", "_constMethod", method_const_method),
	F(HS_SIZE, "Method", NULL, method_size),
	F(HS_FIELD, "ConstMethod", "_constants", const_method_constants),
	F(HS_FIELD, "ConstMethod", "_flags", const_method_flags),
	F(HS_FIELD, "ConstMethod", "_code_size", const_method_code_size),
	F(HS_FIELD, "ConstMethod", "_name_index", const_method_name_index),
	F(HS_FIELD, "ConstMethod", "_signature_index", const_method_signature_index),
	F(HS_SIZE, "ConstMethod", NULL, const_method_size),
	F(HS_FIELD, "ConstantPool", "_pool_holder", pool_holder),
	F(HS_FIELD, "ConstantPool", "_length", pool_length),
	F(HS_FIELD, "ConstantPool", "_source_file_name_index", pool_source_file_name_index),
	F(HS_SIZE, "ConstantPool", NULL, pool_size),
	F(HS_FIELD, "Klass", "_name", klass_name),
	F(HS_FIELD, "Symbol", "_length", symbol_length),
	F(HS_FIELD, "Symbol", "_body", symbol_body),
	F(HS_INT, "frame::interpreter_frame_sender_sp_offset", NULL, frame_sender_sp),
	F(HS_INT, "frame::interpreter_frame_last_sp_offset", NULL, frame_last_sp),
	OPT(HS_INT, "frame::interpreter_frame_method_offset", NULL, frame_method),
	OPT(HS_INT, "frame::interpreter_frame_bcp_offset", NULL, frame_bcp),
	F(HS_INT, "ConstMethod::_has_linenumber_table", NULL, has_linenumber_table),
#undef F
#undef OPT
};

/* The name of a want, as a warning names it: Type::field, or a type's or constant's name. */
static const char *want_name(const struct hs_want *w)
{
	static __thread char buf[160];

	if (!w->name)
		return w->type;
	snprintf(buf, sizeof(buf), "%s::%s", w->type, w->name);
	return buf;
}

/* Bounds of what a field, a size, a constant may be: beyond them, a table is not believed. */
#define HS_FIELD_MAX 4096
#define HS_SIZE_MAX 65536
#define HS_FRAME_WORDS_MAX 32
/* Entries of a table read at most, and per read. */
#define HS_ENTRIES_MAX 16384
#define HS_BATCH 32
#define HS_STRIDE_MAX 256
#define HS_NAME_MAX 128

/*
 * A table: where it is, its entry's stride and the members read: the
 * entry's name (a type's, a constant's), a field's name and whether it is
 * static (the structs), and its value (an offset, a size, a constant) of
 * value_width bytes, or a static field's address.
 */
struct hs_table {
	uint64_t base, stride;
	uint64_t name, field, is_static, value, address;
	unsigned int value_width;
};

struct hs_reader {
	hs_read_fn read;
	void *ctx;
	struct hs_layout *out;
	bool found[ARRAY_SIZE(hs_wants)];
};

/*
 * The C string at addr into buf: false when it cannot be read or is longer
 * than buf. A read does not cross the page the string starts in unless it
 * must: the next page may not be mapped.
 */
static bool read_name(const struct hs_reader *r, uint64_t addr, char *buf, size_t size)
{
	size_t have = 0;

	if (!addr)
		return false;
	while (have < size - 1) {
		uint64_t at = addr + have;
		size_t chunk = 4096 - (at & 4095);

		if (chunk > size - 1 - have)
			chunk = size - 1 - have;
		if (r->read(r->ctx, at, buf + have, chunk))
			return false;
		if (memchr(buf + have, '\0', chunk))
			return true;
		have += chunk;
	}
	return false;
}

/* The value of width bytes at p, zero-extended. */
static uint64_t member_value(const uint8_t *p, unsigned int width)
{
	uint64_t v = 0;

	memcpy(&v, p, width);
	return v;
}

/* Whether a want of kind k (a struct's entry: a field or a static) has type s. */
static bool want_type(enum hs_kind k, const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(hs_wants); i++) {
		enum hs_kind wk = hs_wants[i].kind == HS_STATIC ? HS_FIELD : hs_wants[i].kind;

		if (wk == k && !strcmp(hs_wants[i].type, s))
			return true;
	}
	return false;
}

/* Records value v for every want of kind k named (type, name); name NULL for a type or constant. */
static void want_found(struct hs_reader *r, enum hs_kind k, const char *type, const char *name,
		       int64_t v)
{
	for (size_t i = 0; i < ARRAY_SIZE(hs_wants); i++) {
		const struct hs_want *w = &hs_wants[i];

		if (w->kind != k || strcmp(w->type, type) || !w->name != !name ||
		    (name && strcmp(w->name, name)))
			continue;
		memcpy((char *)r->out + w->member, &v, sizeof(v));
		r->found[i] = true;
	}
}

/* Entry e of table t, of kind k (HS_FIELD: a struct's; HS_SIZE: a type's; HS_INT: a constant's). */
static void read_entry(struct hs_reader *r, const struct hs_table *t, enum hs_kind k,
		       const uint8_t *e)
{
	char type[HS_NAME_MAX], field[HS_NAME_MAX];
	uint64_t value;
	bool is_static;

	if (!read_name(r, member_value(e + t->name, 8), type, sizeof(type)) || !want_type(k, type))
		return;
	value = member_value(e + t->value, t->value_width);
	if (k == HS_INT) {
		want_found(r, k, type, NULL, (int32_t)(uint32_t)value);
		return;
	}
	if (k == HS_SIZE) {
		want_found(r, k, type, NULL, (int64_t)value);
		return;
	}
	if (!read_name(r, member_value(e + t->field, 8), field, sizeof(field)))
		return;
	is_static = member_value(e + t->is_static, 4) != 0;
	if (is_static)
		want_found(r, HS_STATIC, type, field, (int64_t)member_value(e + t->address, 8));
	else
		want_found(r, HS_FIELD, type, field, (int64_t)value);
}

/*
 * Reads table t of kind k to its end, an entry without a name (a struct's:
 * without a field's name), its number of entries in *nr; a kind not
 * wanted (the long constants) is only counted. Entries are read a batch at
 * a time, one at a time where a batch would reach past what is mapped.
 */
static int read_table(struct hs_reader *r, const struct hs_table *t, enum hs_kind k, uint32_t *nr)
{
	uint8_t batch[HS_BATCH * HS_STRIDE_MAX];
	uint64_t end_member = k == HS_FIELD ? t->field : t->name;

	for (uint32_t i = 0; i < HS_ENTRIES_MAX; i += HS_BATCH) {
		uint64_t at = t->base + i * t->stride;
		uint32_t n = HS_BATCH;

		if (r->read(r->ctx, at, batch, HS_BATCH * t->stride)) {
			/* The last entries, before memory that is not mapped. */
			for (n = 0; n < HS_BATCH; n++)
				if (r->read(r->ctx, at + n * t->stride, batch + n * t->stride,
					    t->stride))
					break;
		}
		for (uint32_t j = 0; j < n; j++) {
			const uint8_t *e = batch + j * t->stride;

			if (!member_value(e + end_member, 8)) {
				*nr = i + j;
				return 0;
			}
			if (k != HS_SIZE || t->value_width)
				read_entry(r, t, k, e);
		}
		if (n < HS_BATCH)
			return -EFAULT;
	}
	return -EINVAL;
}

/* Symbol s's 64-bit value in the process. */
static int read_symbol(const struct hs_reader *r, const struct hsruntime *hr, uint64_t bias,
		       enum hs_symbol s, uint64_t *v)
{
	return r->read(r->ctx, hr->sym[s] + bias, v, sizeof(*v)) ? -EFAULT : 0;
}

/*
 * Table of symbols base (the array's pointer), then stride, then the
 * members' offsets, in t: each member must fit its stride.
 */
static int read_table_desc(const struct hs_reader *r, const struct hsruntime *hr, uint64_t bias,
			   const enum hs_symbol *syms, uint64_t *const *dst, size_t n,
			   const unsigned int *widths, struct hs_table *t)
{
	int err = read_symbol(r, hr, bias, syms[0], &t->base);

	if (!err)
		err = read_symbol(r, hr, bias, syms[1], &t->stride);
	if (err)
		return err;
	if (!t->base)
		return -EAGAIN;
	if (t->stride < 8 || t->stride > HS_STRIDE_MAX || t->stride % 4)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		err = read_symbol(r, hr, bias, syms[2 + i], dst[i]);
		if (err)
			return err;
		if (*dst[i] > t->stride - widths[i])
			return -EINVAL;
	}
	return 0;
}

/* The bounds a member's value must lie in, by kind; frame words by their own. */
static bool want_in_bounds(const struct hs_want *w, int64_t v)
{
	switch (w->kind) {
	case HS_FIELD:
		return v >= 0 && v < HS_FIELD_MAX;
	case HS_STATIC:
		return v != 0;
	case HS_SIZE:
		return v > 0 && v <= HS_SIZE_MAX;
	case HS_INT:
		if (w->member == offsetof(struct hs_layout, has_linenumber_table))
			return v > 0;
		return v >= -HS_FRAME_WORDS_MAX && v <= HS_FRAME_WORDS_MAX;
	}
	return false;
}

/* Every member needed found (by one of its rows) and in bounds; else the first not, in *missing. */
static int check_wants(const struct hs_reader *r, const char **missing)
{
	for (size_t i = 0; i < ARRAY_SIZE(hs_wants); i++) {
		const struct hs_want *w = &hs_wants[i];
		bool have = false;
		int64_t v;

		for (size_t j = 0; j < ARRAY_SIZE(hs_wants); j++)
			have |= r->found[j] && hs_wants[j].member == w->member;
		if (!have && w->optional)
			continue;
		memcpy(&v, (const char *)r->out + w->member, sizeof(v));
		if (!have || !want_in_bounds(w, v)) {
			*missing = want_name(w);
			return -ENOTSUP;
		}
	}
	return 0;
}

int hsruntime__read_layout(const struct hsruntime *hr, uint64_t bias, hs_read_fn read, void *ctx,
			   struct hs_layout *out, const char **missing)
{
	static const enum hs_symbol struct_syms[] = {
		HS_STRUCTS,	     HS_STRUCT_STRIDE, HS_STRUCT_TYPE_NAME, HS_STRUCT_FIELD_NAME,
		HS_STRUCT_IS_STATIC, HS_STRUCT_OFFSET, HS_STRUCT_ADDRESS,
	};
	static const enum hs_symbol type_syms[] = { HS_TYPES, HS_TYPE_STRIDE, HS_TYPE_TYPE_NAME,
						    HS_TYPE_SIZE };
	static const enum hs_symbol int_syms[] = { HS_INTS, HS_INT_STRIDE, HS_INT_NAME,
						   HS_INT_VALUE };
	static const enum hs_symbol long_syms[] = { HS_LONGS, HS_LONG_STRIDE, HS_LONG_NAME,
						    HS_LONG_VALUE };
	static const unsigned int struct_widths[] = { 8, 8, 4, 8, 8 };
	static const unsigned int type_widths[] = { 8, 8 };
	static const unsigned int int_widths[] = { 8, 4 };
	struct hs_reader r = { .read = read, .ctx = ctx, .out = out };
	struct hs_table st = { .value_width = 8 }, tt = { .value_width = 8 },
			it = { .value_width = 4 }, lt = { .value_width = 0 };
	int err;

	*out = (struct hs_layout){ .frame_method = INT64_MIN, .frame_bcp = INT64_MIN };
	*missing = NULL;
	err = read_table_desc(&r, hr, bias, struct_syms,
			      (uint64_t *const[]){ &st.name, &st.field, &st.is_static, &st.value,
						   &st.address },
			      5, struct_widths, &st);
	if (!err)
		err = read_table_desc(&r, hr, bias, type_syms,
				      (uint64_t *const[]){ &tt.name, &tt.value }, 2, type_widths,
				      &tt);
	if (!err)
		err = read_table_desc(&r, hr, bias, int_syms,
				      (uint64_t *const[]){ &it.name, &it.value }, 2, int_widths,
				      &it);
	if (!err)
		err = read_table_desc(&r, hr, bias, long_syms,
				      (uint64_t *const[]){ &lt.name, &lt.value }, 2, type_widths,
				      &lt);
	if (!err)
		err = read_table(&r, &st, HS_FIELD, &out->nr_structs);
	if (!err)
		err = read_table(&r, &tt, HS_SIZE, &out->nr_types);
	if (!err)
		err = read_table(&r, &it, HS_INT, &out->nr_ints);
	/* Counted only: the long constants hold nothing the walk needs yet. */
	if (!err)
		err = read_table(&r, &lt, HS_SIZE, &out->nr_longs);
	if (err)
		return err;
	/*
	 * JDK 17 to 25 say where the interpreter frame's sender's sp and last
	 * sp are; the words below them are x86-64's fixed layout
	 * (frame_x86.hpp): the Method*, the mirror, the mdp, the cache, the
	 * locals, then the bcp.
	 */
	if (out->frame_method == INT64_MIN)
		out->frame_method = out->frame_last_sp - 1;
	if (out->frame_bcp == INT64_MIN)
		out->frame_bcp = out->frame_last_sp - 6;
	return check_wants(&r, missing);
}

/* Bounds of a segment's size (log2): HotSpot's CodeCacheSegmentSize is 64 to 4096 bytes. */
#define HS_LOG2_SEGMENT_MIN 4
#define HS_LOG2_SEGMENT_MAX 12

static int read_word(hs_read_fn read, void *ctx, uint64_t addr, uint64_t *v)
{
	return read(ctx, addr, v, sizeof(*v)) ? -EFAULT : 0;
}

static int read_int(hs_read_fn read, void *ctx, uint64_t addr, int32_t *v)
{
	return read(ctx, addr, v, sizeof(*v)) ? -EFAULT : 0;
}

/* Heap i of c, at the CodeHeap heap. */
static int read_heap(const struct hs_layout *l, hs_read_fn read, void *ctx, uint64_t heap,
		     struct hs_code_cache *c, unsigned int i, const char **missing)
{
	uint64_t mem = heap + (uint64_t)l->codeheap_memory;
	int32_t log2;
	int err;

	err = read_word(read, ctx, mem + (uint64_t)l->vs_low_boundary, &c->heaps[i].low);
	if (!err)
		err = read_word(read, ctx, mem + (uint64_t)l->vs_high_boundary, &c->heaps[i].high);
	if (!err)
		err = read_word(read, ctx, mem + (uint64_t)l->vs_high, &c->heaps[i].committed);
	if (!err)
		err = read_word(read, ctx,
				heap + (uint64_t)l->codeheap_segmap + (uint64_t)l->vs_low_boundary,
				&c->heaps[i].segmap);
	if (!err)
		err = read_int(read, ctx, heap + (uint64_t)l->codeheap_log2_segment_size, &log2);
	if (err)
		return err;
	if (c->heaps[i].low >= c->heaps[i].high || c->heaps[i].low < c->low ||
	    c->heaps[i].high > c->high || c->heaps[i].committed < c->heaps[i].low ||
	    c->heaps[i].committed > c->heaps[i].high || !c->heaps[i].segmap) {
		*missing = "CodeHeap::_memory";
		return -EINVAL;
	}
	if (log2 < HS_LOG2_SEGMENT_MIN || log2 > HS_LOG2_SEGMENT_MAX ||
	    (i && (unsigned int)log2 != c->log2_segment_size)) {
		*missing = "CodeHeap::_log2_segment_size";
		return -EINVAL;
	}
	c->log2_segment_size = (unsigned int)log2;
	return 0;
}

int hsruntime__read_bounds(const struct hs_layout *l, hs_read_fn read, void *ctx,
			   struct hs_code_cache *c)
{
	*c = (struct hs_code_cache){ 0 };
	if (!l->codecache_low_bound || !l->codecache_high_bound ||
	    read_word(read, ctx, l->codecache_low_bound, &c->low) ||
	    read_word(read, ctx, l->codecache_high_bound, &c->high) || c->low >= c->high) {
		*c = (struct hs_code_cache){ 0 };
		return -EINVAL;
	}
	return 0;
}

int hsruntime__read_heaps(const struct hs_layout *l, hs_read_fn read, void *ctx,
			  struct hs_code_cache *c, const char **missing)
{
	uint64_t array, data, heap;
	int32_t len;
	int err;

	*c = (struct hs_code_cache){ 0 };
	*missing = NULL;
	err = read_word(read, ctx, l->codecache_low_bound, &c->low);
	if (!err)
		err = read_word(read, ctx, l->codecache_high_bound, &c->high);
	if (!err)
		err = read_word(read, ctx, l->codecache_heaps, &array);
	if (err)
		return err;
	if (!c->low || !c->high || !array)
		return -EAGAIN;
	if (c->low >= c->high) {
		*missing = "CodeCache::_low_bound";
		return -EINVAL;
	}
	err = read_int(read, ctx, array + (uint64_t)l->array_len, &len);
	if (!err)
		err = read_word(read, ctx, array + (uint64_t)l->array_data, &data);
	if (err)
		return err;
	if (len < 1 || len > HS_HEAPS_MAX) {
		*missing = "CodeCache::_heaps";
		return len ? -EINVAL : -EAGAIN;
	}
	for (int32_t i = 0; i < len; i++) {
		err = read_word(read, ctx, data + 8 * (uint64_t)i, &heap);
		if (!err)
			err = read_heap(l, read, ctx, heap, c, (unsigned int)i, missing);
		if (err)
			return err;
	}
	c->nr_heaps = (unsigned int)len;
	return 0;
}

/* What dump-unwind shows of a JVM: the tables are read from its process. */
void hsruntime__print(FILE *f, const struct hsruntime *hr)
{
	fprintf(f,
		"HotSpot:     the JVM's tables read from its process: %s at %#" PRIx64
		", %s at %#" PRIx64 ", %s at %#" PRIx64 ", %s at %#" PRIx64 "\n",
		hs_symbol_names[HS_STRUCTS], hr->sym[HS_STRUCTS], hs_symbol_names[HS_TYPES],
		hr->sym[HS_TYPES], hs_symbol_names[HS_INTS], hr->sym[HS_INTS],
		hs_symbol_names[HS_LONGS], hr->sym[HS_LONGS]);
}

void hsruntime__print_json(struct json_writer *jw, const struct hsruntime *hr)
{
	json__key(jw, "hotspot");
	json__object_start(jw);
	json__key(jw, "symbols");
	json__object_start(jw);
	for (unsigned int s = 0; s < HS_SYMBOL_NR; s++) {
		json__key(jw, hs_symbol_names[s]);
		json__stringf(jw, "%#" PRIx64, hr->sym[s]);
	}
	json__object_end(jw);
	json__object_end(jw);
}

void hsruntime__print_layout_json(struct json_writer *jw, const struct hs_layout *l)
{
	json__key(jw, "layout");
	json__object_start(jw);
	json__uint_field(jw, "structs", l->nr_structs);
	json__uint_field(jw, "types", l->nr_types);
	json__uint_field(jw, "int_constants", l->nr_ints);
	json__uint_field(jw, "long_constants", l->nr_longs);
	for (size_t i = 0; i < ARRAY_SIZE(hs_wants); i++) {
		const struct hs_want *w = &hs_wants[i];
		int64_t v;

		/* An alternative's member is printed under the name of its first row. */
		if (i && hs_wants[i - 1].member == w->member)
			continue;
		memcpy(&v, (const char *)l + w->member, sizeof(v));
		if (w->kind == HS_STATIC) {
			json__key(jw, want_name(w));
			json__stringf(jw, "%#" PRIx64, (uint64_t)v);
		} else {
			json__int_field(jw, want_name(w), v);
		}
	}
	json__object_end(jw);
}

void hsruntime__print_code_cache_json(struct json_writer *jw, const struct hs_code_cache *c)
{
	json__key(jw, "code_cache");
	json__object_start(jw);
	json__key(jw, "bounds");
	json__array_start(jw);
	json__stringf(jw, "%#" PRIx64, c->low);
	json__stringf(jw, "%#" PRIx64, c->high);
	json__array_end(jw);
	json__uint_field(jw, "log2_segment_size", c->log2_segment_size);
	json__key(jw, "heaps");
	json__array_start(jw);
	for (unsigned int i = 0; i < c->nr_heaps; i++) {
		const char *names[] = { "low", "high", "committed", "segmap" };
		const uint64_t values[] = { c->heaps[i].low, c->heaps[i].high,
					    c->heaps[i].committed, c->heaps[i].segmap };

		json__object_start(jw);
		for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
			json__key(jw, names[k]);
			json__stringf(jw, "%#" PRIx64, values[k]);
		}
		json__object_end(jw);
	}
	json__array_end(jw);
	json__object_end(jw);
}
