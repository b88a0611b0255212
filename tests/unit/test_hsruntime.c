// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of core/runtimes/hotspot/hsruntime.c: the JVM's tables read
 * from made-up memory laid out as libjvm.so lays them out (struct, type,
 * int and long constant entries of JDK 17's strides, their names'
 * strings, the statics they point to, a code cache of three heaps): the
 * layout and the code cache read whole; an entry missing, a field whose
 * offset is not believed, a table not filled yet, a stride or an entry's
 * member that does not fit, a table without its end, heaps outside the
 * bounds or of different segment sizes, names without their NUL: each
 * refused as said, with the entry at fault named.
 *
 * test_hsruntime --seeds DIR writes the images to DIR, as the fuzz
 * target's corpus (tests/fuzz/corpus-hsruntime/): the memory from
 * HS_MEM_BASE, the 24 symbols' 64-bit values first, in the order of enum
 * hs_symbol.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/runtimes/hotspot/hsruntime.h"

#define HS_MEM_BASE 0x10000
#define IMG_SIZE 0x4000

/* Where the image's parts are. */
enum {
	AT_STRUCTS = 0x100,
	AT_TYPES = 0xa00,
	AT_INTS = 0xd00,
	AT_LONGS = 0xe00,
	AT_STRINGS = 0x1000,
	AT_STATICS = 0x2000,
	AT_ARRAY = 0x2100,
	AT_HEAPS = 0x2200,
	AT_HEAP_OBJS = 0x2400, /* three CodeHeaps of 0x200 */
};

/* The code cache the image describes. */
#define CC_LOW 0x7f0000000000ull
#define CC_HIGH 0x7f0010000000ull
#define SEGMAP 0x7f1000000000ull

struct image {
	uint8_t mem[IMG_SIZE];
	size_t strings; /* the next string's offset */
	size_t n_structs, n_types, n_ints, n_longs;
};

static uint64_t at(size_t off)
{
	return HS_MEM_BASE + off;
}

static void put64(struct image *im, size_t off, uint64_t v)
{
	memcpy(im->mem + off, &v, 8);
}

static void put32(struct image *im, size_t off, uint32_t v)
{
	memcpy(im->mem + off, &v, 4);
}

static uint64_t str(struct image *im, const char *s)
{
	size_t off = im->strings;

	memcpy(im->mem + off, s, strlen(s) + 1);
	im->strings += strlen(s) + 1;
	return at(off);
}

/* JDK 17's VMStructEntry: type, field, type string, is static, offset, address: 48 bytes. */
static void field(struct image *im, const char *type, const char *name, uint64_t offset)
{
	size_t e = AT_STRUCTS + 48 * im->n_structs++;

	put64(im, e, str(im, type));
	put64(im, e + 8, str(im, name));
	put64(im, e + 16, str(im, "int"));
	put64(im, e + 32, offset);
}

static void static_field(struct image *im, const char *type, const char *name, uint64_t address)
{
	size_t e = AT_STRUCTS + 48 * im->n_structs++;

	put64(im, e, str(im, type));
	put64(im, e + 8, str(im, name));
	put32(im, e + 24, 1);
	put64(im, e + 40, address);
}

/* VMTypeEntry: type, superclass, three flags, size: 40 bytes. */
static void type(struct image *im, const char *name, uint64_t size)
{
	size_t e = AT_TYPES + 40 * im->n_types++;

	put64(im, e, str(im, name));
	put64(im, e + 32, size);
}

/* VMIntConstantEntry: name, value: 16 bytes; VMLongConstantEntry the same, its value 64 bits. */
static void int_constant(struct image *im, const char *name, int32_t v)
{
	size_t e = AT_INTS + 16 * im->n_ints++;

	put64(im, e, str(im, name));
	put32(im, e + 8, (uint32_t)v);
}

static void long_constant(struct image *im, const char *name, uint64_t v)
{
	size_t e = AT_LONGS + 16 * im->n_longs++;

	put64(im, e, str(im, name));
	put64(im, e + 8, v);
}

/* What each image leaves out or breaks. */
struct variant {
	const char *skip; /* an entry left out: "Type::field", a type or a constant */
	uint64_t struct_stride;
	uint64_t symbol_offset; /* gHotSpotVMStructEntryOffsetOffset */
	int64_t body_offset;	/* Symbol::_body */
	bool not_filled, no_end, new_method, heap_outside, segment_sizes, four_heaps, long_name;
};

static bool skipped(const struct variant *v, const char *type, const char *name)
{
	char full[128];

	if (!v->skip)
		return false;
	snprintf(full, sizeof(full), name ? "%s::%s" : "%s", type, name);
	return !strcmp(full, v->skip);
}

#define FIELD(t, n, o)                      \
	do {                                \
		if (!skipped(v, t, n))      \
			field(im, t, n, o); \
	} while (0)
#define STATIC(t, n, a)                            \
	do {                                       \
		if (!skipped(v, t, n))             \
			static_field(im, t, n, a); \
	} while (0)
#define TYPE(t, s)                        \
	do {                              \
		if (!skipped(v, t, NULL)) \
			type(im, t, s);   \
	} while (0)
#define INT(n, val)                               \
	do {                                      \
		if (!skipped(v, n, NULL))         \
			int_constant(im, n, val); \
	} while (0)

/* The code heaps: three, [lo, hi) each, committed to half, 128-byte segments. */
static void heaps(struct image *im, const struct variant *v)
{
	static const uint64_t bounds[][2] = {
		{ CC_LOW + 0x8000000, CC_HIGH },
		{ CC_LOW, CC_LOW + 0x7000000 },
		{ CC_LOW + 0x7000000, CC_LOW + 0x8000000 },
	};
	unsigned int n = v->four_heaps ? 4 : 3;

	put64(im, AT_STATICS, at(AT_ARRAY)); /* CodeCache::_heaps */
	put64(im, AT_STATICS + 8, CC_LOW);
	put64(im, AT_STATICS + 16, CC_HIGH);
	put32(im, AT_ARRAY, n); /* GrowableArray: _len, _max, _data */
	put32(im, AT_ARRAY + 4, n);
	put64(im, AT_ARRAY + 8, at(AT_HEAPS));
	put64(im, AT_HEAPS + 24, at(AT_HEAP_OBJS)); /* a fourth: the first again */
	for (unsigned int i = 0; i < 3; i++) {
		size_t h = AT_HEAP_OBJS + 0x200 * i;
		uint64_t hi = bounds[i][1] + (v->heap_outside && i == 1 ? 0x1000000000ull : 0);

		put64(im, AT_HEAPS + 8 * i, at(h));
		put64(im, h + 8,
		      bounds[i][0]); /* _memory: low boundary, high boundary, low, high */
		put64(im, h + 16, hi);
		put64(im, h + 24, bounds[i][0]);
		put64(im, h + 32, bounds[i][0] + (hi - bounds[i][0]) / 2);
		put64(im, h + 120, SEGMAP + 0x100000 * i); /* _segmap's low boundary */
		put32(im, h + 256, v->segment_sizes && i == 2 ? 6 : 7);
	}
}

static void build(struct image *im, const struct variant *v)
{
	static const uint64_t struct_desc[] = { 0, 8, 16, 24, 32, 40, 48 };
	static const uint64_t type_desc[] = { 0, 8, 16, 20, 24, 32, 40 };

	memset(im, 0, sizeof(*im));
	im->strings = AT_STRINGS;
	/* The symbols: the four tables, and the members of each table's entries and their strides. */
	put64(im, 8 * HS_STRUCTS, v->not_filled ? 0 : at(AT_STRUCTS));
	for (unsigned int i = 0; i < 7; i++)
		put64(im, 8 * (HS_STRUCT_TYPE_NAME + i), struct_desc[i]);
	if (v->struct_stride)
		put64(im, 8 * HS_STRUCT_STRIDE, v->struct_stride);
	if (v->symbol_offset)
		put64(im, 8 * HS_STRUCT_OFFSET, v->symbol_offset);
	put64(im, 8 * HS_TYPES, at(AT_TYPES));
	for (unsigned int i = 0; i < 7; i++)
		put64(im, 8 * (HS_TYPE_TYPE_NAME + i), type_desc[i]);
	put64(im, 8 * HS_INTS, at(AT_INTS));
	put64(im, 8 * HS_INT_NAME, 0);
	put64(im, 8 * HS_INT_VALUE, 8);
	put64(im, 8 * HS_INT_STRIDE, 16);
	put64(im, 8 * HS_LONGS, at(AT_LONGS));
	put64(im, 8 * HS_LONG_NAME, 0);
	put64(im, 8 * HS_LONG_VALUE, 8);
	put64(im, 8 * HS_LONG_STRIDE, 16);

	if (v->long_name)
		field(im,
		      "CodeBlob_with_a_name_of_more_than_a_hundred_and_twenty_eight_characters_"
		      "which_no_reader_takes_so_it_is_skipped_as_unknown_and_the_rest_read",
		      "_x", 1);
	STATIC("CodeCache", "_heaps", at(AT_STATICS));
	STATIC("CodeCache", "_low_bound", at(AT_STATICS + 8));
	STATIC("CodeCache", "_high_bound", at(AT_STATICS + 16));
	STATIC("StubRoutines", "_call_stub_return_address", at(AT_STATICS + 24));
	FIELD("GrowableArrayBase", "_len", 0);
	FIELD("GrowableArrayBase", "_max", 4);
	FIELD("GrowableArray<int>", "_data", 8);
	FIELD("CodeHeap", "_memory", 8);
	FIELD("CodeHeap", "_segmap", 120);
	FIELD("CodeHeap", "_log2_segment_size", 256);
	FIELD("VirtualSpace", "_low_boundary", 0);
	FIELD("VirtualSpace", "_high_boundary", 8);
	FIELD("VirtualSpace", "_low", 16);
	FIELD("VirtualSpace", "_high", 24);
	FIELD("CodeBlob", "_name", 96);
	FIELD("CodeBlob", "_size", 12);
	FIELD("CodeBlob", "_header_size", 16);
	FIELD("CodeBlob", "_frame_complete_offset", 20);
	FIELD("CodeBlob", "_frame_size", 28);
	FIELD("CodeBlob", "_code_begin", 32);
	FIELD("CodeBlob", "_code_end", 40);
	/* To JDK 20 the Method* of a compiled method is CompiledMethod's; from JDK 23, nmethod's. */
	FIELD(v->new_method ? "nmethod" : "CompiledMethod", "_method", 112);
	FIELD("nmethod", "_compile_id", 304);
	FIELD("nmethod", "_metadata_offset", 260);
	FIELD("nmethod", "_scopes_pcs_offset", 268);
	FIELD("nmethod", "_dependencies_offset", 272);
	FIELD("CompiledMethod", "_scopes_data_begin", 120);
	FIELD("PcDesc", "_pc_offset", 0);
	FIELD("PcDesc", "_scope_decode_offset", 4);
	FIELD("Method", "_constMethod", 8);
	FIELD("ConstMethod", "_constants", 8);
	FIELD("ConstMethod", "_flags", 28);
	FIELD("ConstMethod", "_code_size", 32);
	FIELD("ConstMethod", "_name_index", 34);
	FIELD("ConstMethod", "_signature_index", 36);
	FIELD("ConstantPool", "_pool_holder", 24);
	FIELD("ConstantPool", "_length", 60);
	FIELD("ConstantPool", "_source_file_name_index", 54);
	FIELD("Klass", "_name", 24);
	FIELD("Symbol", "_length", 4);
	FIELD("Symbol", "_body", (uint64_t)(v->body_offset ? v->body_offset : 6));
	if (v->no_end)
		for (size_t e = AT_STRUCTS + 48 * im->n_structs; e + 48 <= AT_TYPES; e += 48)
			put64(im, e + 8, at(AT_STRINGS)); /* field names to the table's end */
	TYPE("HeapBlock", 16);
	TYPE("PcDesc", 16);
	TYPE("Method", 88);
	TYPE("ConstMethod", 48);
	TYPE("ConstantPool", 72);
	TYPE("Klass", 208);
	INT("frame::interpreter_frame_sender_sp_offset", -1);
	INT("frame::interpreter_frame_last_sp_offset", -2);
	INT("ConstMethod::_has_linenumber_table", 1);
	INT("Method::_dont_inline", 4);
	long_constant(im, "markWord::hash_mask", 0x7fffffff);
	heaps(im, v);
	put64(im, 8 * HS_STRUCT_STRIDE, v->struct_stride ? v->struct_stride : 48);
	put64(im, 8 * HS_TYPE_STRIDE, 40);
}

/* All or nothing, as /proc/PID/mem reads. */
static int image_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct image *im = ctx;

	if (addr < HS_MEM_BASE || addr - HS_MEM_BASE > IMG_SIZE ||
	    len > IMG_SIZE - (addr - HS_MEM_BASE))
		return -EFAULT;
	memcpy(buf, im->mem + (addr - HS_MEM_BASE), len);
	return 0;
}

static struct hsruntime symbols(void)
{
	struct hsruntime hr;

	for (unsigned int s = 0; s < HS_SYMBOL_NR; s++)
		hr.sym[s] = at(8 * s);
	return hr;
}

static int read_image(const struct variant *v, struct hs_layout *l, const char **missing)
{
	static struct image im;
	struct hsruntime hr = symbols();

	build(&im, v);
	return hsruntime__read_layout(&hr, 0, image_read, &im, l, missing);
}

static void test_whole(void)
{
	struct hs_layout l;
	struct hs_code_cache c;
	struct variant v = { 0 };
	static struct image im;
	struct hsruntime hr = symbols();
	const char *missing;

	build(&im, &v);
	CHECK_EQ_INT(hsruntime__read_layout(&hr, 0, image_read, &im, &l, &missing), 0);
	CHECK(missing == NULL);
	CHECK_EQ_INT(l.nr_structs, 41);
	CHECK_EQ_INT(l.nr_types, 6);
	CHECK_EQ_INT(l.nr_ints, 4);
	CHECK_EQ_INT(l.nr_longs, 1);
	CHECK(l.codecache_heaps == at(AT_STATICS));
	CHECK(l.call_stub_return_address == at(AT_STATICS + 24));
	CHECK_EQ_INT(l.codeheap_segmap, 120);
	CHECK_EQ_INT(l.codeheap_log2_segment_size, 256);
	CHECK_EQ_INT(l.nmethod_method, 112);
	CHECK_EQ_INT(l.nmethod_compile_id, 304);
	CHECK_EQ_INT(l.heapblock_size, 16);
	CHECK_EQ_INT(l.const_method_size, 48);
	CHECK_EQ_INT(l.symbol_body, 6);
	CHECK_EQ_INT(l.frame_sender_sp, -1);
	CHECK_EQ_INT(l.frame_last_sp, -2);
	/* Not in JDK 17's constants: x86-64's layout below the last sp. */
	CHECK_EQ_INT(l.frame_method, -3);
	CHECK_EQ_INT(l.frame_bcp, -8);
	CHECK_EQ_INT(l.has_linenumber_table, 1);

	CHECK_EQ_INT(hsruntime__read_heaps(&l, image_read, &im, &c, &missing), 0);
	CHECK_EQ_INT(c.nr_heaps, 3);
	CHECK_EQ_INT(c.log2_segment_size, 7);
	CHECK(c.low == CC_LOW && c.high == CC_HIGH);
	CHECK(c.heaps[1].low == CC_LOW && c.heaps[1].high == CC_LOW + 0x7000000);
	CHECK(c.heaps[2].segmap == SEGMAP + 0x200000);
	CHECK(c.heaps[0].committed == CC_LOW + 0x8000000 + 0x4000000);

	/* JDK 23's nmethod::_method, in place of CompiledMethod's. */
	v.new_method = true;
	CHECK_EQ_INT(read_image(&v, &l, &missing), 0);
	CHECK_EQ_INT(l.nmethod_method, 112);
	/* A type's name too long for the reader is no type of its: skipped. */
	v = (struct variant){ .long_name = true };
	CHECK_EQ_INT(read_image(&v, &l, &missing), 0);
	CHECK_EQ_INT(l.nr_structs, 42);
}

static void test_refused(void)
{
	static const char *const needed[] = {
		"CodeCache::_heaps",	 "StubRoutines::_call_stub_return_address",
		"CodeHeap::_segmap",	 "HeapBlock",
		"Symbol::_body",	 "frame::interpreter_frame_last_sp_offset",
		"ConstMethod",		 "ConstMethod::_has_linenumber_table",
		"CodeBlob::_code_begin",
	};
	struct hs_layout l;
	const char *missing;
	struct variant v;

	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		v = (struct variant){ .skip = needed[i] };
		CHECK_EQ_INT(read_image(&v, &l, &missing), -ENOTSUP);
		CHECK_EQ_STR(missing, needed[i]);
	}
	/* Optional: without the interpreter frame's Method* word, x86-64's layout gives it. */
	v = (struct variant){ .skip = "frame::interpreter_frame_method_offset" };
	CHECK_EQ_INT(read_image(&v, &l, &missing), 0);
	/* Either of the alternatives: without both, the first is named. */
	v = (struct variant){ .skip = "CompiledMethod::_method" };
	CHECK_EQ_INT(read_image(&v, &l, &missing), -ENOTSUP);
	CHECK_EQ_STR(missing, "nmethod::_method");
	/* An offset not believed is refused as a missing one. */
	v = (struct variant){ .body_offset = 1 << 20 };
	CHECK_EQ_INT(read_image(&v, &l, &missing), -ENOTSUP);
	CHECK_EQ_STR(missing, "Symbol::_body");
}

static void test_broken(void)
{
	struct hs_layout l;
	const char *missing;
	struct variant v;

	v = (struct variant){ .not_filled = true };
	CHECK_EQ_INT(read_image(&v, &l, &missing), -EAGAIN);
	v = (struct variant){ .struct_stride = 4 };
	CHECK_EQ_INT(read_image(&v, &l, &missing), -EINVAL);
	v = (struct variant){ .struct_stride = 1 << 20 };
	CHECK_EQ_INT(read_image(&v, &l, &missing), -EINVAL);
	/* An entry's member past its stride. */
	v = (struct variant){ .symbol_offset = 44 };
	CHECK_EQ_INT(read_image(&v, &l, &missing), -EINVAL);
	/* No end: the entries run into the types' table, whose entries have no field name. */
	v = (struct variant){ .no_end = true };
	CHECK(read_image(&v, &l, &missing) != 0 || l.nr_structs > 41);
}

static void test_heaps(void)
{
	static struct image im;
	struct hsruntime hr = symbols();
	struct hs_code_cache c;
	struct hs_layout l;
	const char *missing;
	struct variant v;

	v = (struct variant){ .heap_outside = true };
	build(&im, &v);
	CHECK_EQ_INT(hsruntime__read_layout(&hr, 0, image_read, &im, &l, &missing), 0);
	CHECK_EQ_INT(hsruntime__read_heaps(&l, image_read, &im, &c, &missing), -EINVAL);
	CHECK_EQ_STR(missing, "CodeHeap::_memory");
	v = (struct variant){ .segment_sizes = true };
	build(&im, &v);
	CHECK_EQ_INT(hsruntime__read_layout(&hr, 0, image_read, &im, &l, &missing), 0);
	CHECK_EQ_INT(hsruntime__read_heaps(&l, image_read, &im, &c, &missing), -EINVAL);
	CHECK_EQ_STR(missing, "CodeHeap::_log2_segment_size");
	v = (struct variant){ .four_heaps = true };
	build(&im, &v);
	CHECK_EQ_INT(hsruntime__read_layout(&hr, 0, image_read, &im, &l, &missing), 0);
	CHECK_EQ_INT(hsruntime__read_heaps(&l, image_read, &im, &c, &missing), -EINVAL);
	CHECK_EQ_STR(missing, "CodeCache::_heaps");
	/* The code cache not set up yet. */
	v = (struct variant){ 0 };
	build(&im, &v);
	put64(&im, AT_STATICS + 8, 0);
	CHECK_EQ_INT(hsruntime__read_layout(&hr, 0, image_read, &im, &l, &missing), 0);
	CHECK_EQ_INT(hsruntime__read_heaps(&l, image_read, &im, &c, &missing), -EAGAIN);
}

/* The images, as the fuzz target's seeds. */
static int write_seeds(const char *dir)
{
	static const struct {
		const char *name;
		struct variant v;
	} seeds[] = {
		{ "whole", { 0 } },
		{ "nmethod-method", { .new_method = true } },
		{ "missing-body", { .skip = "Symbol::_body" } },
		{ "not-filled", { .not_filled = true } },
		{ "stride-4", { .struct_stride = 4 } },
		{ "member-past-stride", { .symbol_offset = 44 } },
		{ "no-end", { .no_end = true } },
		{ "heap-outside", { .heap_outside = true } },
		{ "segment-sizes", { .segment_sizes = true } },
		{ "four-heaps", { .four_heaps = true } },
		{ "long-name", { .long_name = true } },
	};
	static struct image im;

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		char path[4096];
		FILE *f;

		build(&im, &seeds[i].v);
		snprintf(path, sizeof(path), "%s/seed-%s", dir, seeds[i].name);
		f = fopen(path, "wb");
		if (!f || fwrite(im.mem, IMG_SIZE, 1, f) != 1 || fclose(f)) {
			perror(path);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--seeds"))
		return write_seeds(argv[2]);
	test_whole();
	test_refused();
	test_broken();
	test_heaps();
	return test_summary();
}
