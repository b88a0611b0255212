/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a walk of HotSpot's frames needs to know of one JVM, taken from the
 * JVM's own description of itself: the tables of the Serviceability Agent
 * that libjvm.so exports, filled when the JVM starts, so read from the
 * running process's memory, never from a table of versions.
 *
 *   gHotSpotVMStructs        an array of VMStructEntry: a type's name, a
 *                            field's name, its type's name, whether it is
 *                            static, its offset (a field of an object) or
 *                            address (a static field); the last entry has
 *                            no field name
 *   gHotSpotVMTypes          VMTypeEntry: a type's name, its superclass's,
 *                            three flags and its size
 *   gHotSpotVMIntConstants   VMIntConstantEntry: a name, a 32-bit value
 *   gHotSpotVMLongConstants  VMLongConstantEntry: a name, a 64-bit value
 *
 * Each is a pointer to its array; the layout of an entry is given by
 * 64-bit variables of their own (gHotSpotVMStructEntryTypeNameOffset,
 * ...ArrayStride): 24 symbols of .dynsym, all in Debian's openjdk-17.
 *
 * From them (struct hs_layout): the code cache's heaps (CodeCache::_heaps,
 * a GrowableArray of CodeHeap*, and _low_bound, _high_bound), each heap's
 * reserved memory and segment map (CodeHeap::_memory, _segmap, VirtualSpace
 * bounds, _log2_segment_size, a HeapBlock's size before each blob), a code
 * blob's name, size, frame size and code (CodeBlob), a compiled method's
 * Method* (nmethod or, to JDK 20, CompiledMethod ::_method), a Method's
 * ConstMethod, its constant pool, name and signature indexes and flags, the
 * pool's holder and source file, a Klass's name, a Symbol's length and
 * bytes, the call stub's return address (StubRoutines) and the interpreter
 * frame's words relative to its frame pointer (frame::*_offset, in words).
 *
 * Every entry the walk or the namer needs must be there: a JVM whose
 * tables lack one is refused (-ENOTSUP, naming the entry), never guessed.
 * The tables live in the memory of a process that may be anything:
 * every read is bounded and checked.
 */
#ifndef UNWPROF_HSRUNTIME_H
#define UNWPROF_HSRUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct elf_file;
struct json_writer;

/* The 24 symbols, in the order of their names (hsruntime__symbol_name). */
enum hs_symbol {
	HS_STRUCTS,
	HS_STRUCT_TYPE_NAME,
	HS_STRUCT_FIELD_NAME,
	HS_STRUCT_TYPE_STRING,
	HS_STRUCT_IS_STATIC,
	HS_STRUCT_OFFSET,
	HS_STRUCT_ADDRESS,
	HS_STRUCT_STRIDE,
	HS_TYPES,
	HS_TYPE_TYPE_NAME,
	HS_TYPE_SUPERCLASS_NAME,
	HS_TYPE_IS_OOP_TYPE,
	HS_TYPE_IS_INTEGER_TYPE,
	HS_TYPE_IS_UNSIGNED,
	HS_TYPE_SIZE,
	HS_TYPE_STRIDE,
	HS_INTS,
	HS_INT_NAME,
	HS_INT_VALUE,
	HS_INT_STRIDE,
	HS_LONGS,
	HS_LONG_NAME,
	HS_LONG_VALUE,
	HS_LONG_STRIDE,
	HS_SYMBOL_NR,
};

struct hsruntime {
	uint64_t sym[HS_SYMBOL_NR]; /* ELF addresses of the symbols */
};

/*
 * What the walk and the namer read of a JVM, from its tables: addresses of
 * static fields in the process, offsets of fields and sizes of types in
 * bytes, the interpreter frame's words from its frame pointer in words.
 */
struct hs_layout {
	/* Static fields: their addresses. */
	uint64_t codecache_heaps, codecache_low_bound, codecache_high_bound;
	uint64_t call_stub_return_address;
	/* GrowableArray: its length and its elements. */
	int64_t array_len, array_data;
	int64_t codeheap_memory, codeheap_segmap, codeheap_log2_segment_size;
	int64_t vs_low_boundary, vs_high_boundary, vs_low, vs_high;
	int64_t heapblock_size;
	int64_t blob_name, blob_size, blob_header_size, blob_frame_complete_offset, blob_frame_size,
		blob_code_begin, blob_code_end;
	int64_t nmethod_method, nmethod_compile_id;
	/* An nmethod's debug information: its metadata, scopes' PcDescs and data (nmethod, to JDK 20). */
	int64_t nmethod_metadata_offset, nmethod_scopes_pcs_offset, nmethod_dependencies_offset,
		nmethod_scopes_data_begin;
	int64_t pc_desc_size, pc_desc_pc_offset, pc_desc_scope_decode_offset;
	int64_t method_const_method, method_size;
	int64_t const_method_constants, const_method_flags, const_method_code_size,
		const_method_name_index, const_method_signature_index, const_method_size;
	int64_t pool_holder, pool_length, pool_source_file_name_index, pool_size;
	int64_t klass_name;
	int64_t symbol_length, symbol_body;
	int64_t frame_sender_sp, frame_last_sp, frame_method, frame_bcp;
	int64_t has_linenumber_table; /* ConstMethod's flag */
	/* How many entries each table had. */
	uint32_t nr_structs, nr_types, nr_ints, nr_longs;
};

/* The code heaps of a code cache read at most: non-nmethods, profiled and non-profiled nmethods. */
#define HS_HEAPS_MAX 3

/* A JVM's code cache, as its tables lead to it. */
struct hs_code_cache {
	uint64_t low, high; /* CodeCache::_low_bound, _high_bound */
	unsigned int nr_heaps;
	unsigned int log2_segment_size; /* every heap's */
	struct {
		uint64_t low,
			high; /* its reserved memory (VirtualSpace _low_boundary, _high_boundary) */
		uint64_t committed; /* the end of what is committed (_high) */
		uint64_t segmap;    /* its segment map's first byte */
	} heaps[HS_HEAPS_MAX];
};

/* Reads len bytes at addr (a process's address) into buf: 0 or a negative errno. */
typedef int (*hs_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/*
 * The symbols of ef into *hr. 0; -ENOENT when ef has none of them (not a
 * JVM); -ENOTSUP when it has some, the first missing named in *missing.
 */
int hsruntime__read(const struct elf_file *ef, struct hsruntime *hr, const char **missing);

/*
 * The tables of the JVM of hr, loaded at bias, read through read(ctx) into
 * *out. 0; -EAGAIN when the JVM has not filled them yet (a table's pointer
 * is NULL); -ENOTSUP when an entry needed is missing or out of bounds, named
 * in *missing; -EINVAL when a table is broken (a stride or an entry's
 * member that does not fit, no end); -EFAULT when it could not be read.
 */
int hsruntime__read_layout(const struct hsruntime *hr, uint64_t bias, hs_read_fn read, void *ctx,
			   struct hs_layout *out, const char **missing);

/*
 * The code cache of a JVM whose layout is l, read through read(ctx) into
 * *c. 0; -EAGAIN when the JVM has not set it up yet; -EINVAL when what it
 * holds is not believed (a heap outside the bounds, more heaps than known,
 * heaps of different segment sizes), named in *missing; -EFAULT.
 */
int hsruntime__read_heaps(const struct hs_layout *l, hs_read_fn read, void *ctx,
			  struct hs_code_cache *c, const char **missing);

/*
 * Only the code cache's bounds, of a layout that was refused but has
 * them (CodeCache::_low_bound, _high_bound), into c: 0 or -EINVAL.
 */
int hsruntime__read_bounds(const struct hs_layout *l, hs_read_fn read, void *ctx,
			   struct hs_code_cache *c);

/* The name of symbol s (enum hs_symbol). */
const char *hsruntime__symbol_name(unsigned int s);

/* What dump-unwind shows of hr: a line of its summary, or its "hotspot" member. */
void hsruntime__print(FILE *f, const struct hsruntime *hr);
void hsruntime__print_json(struct json_writer *jw, const struct hsruntime *hr);

/* A layout and code cache read from a process, as JSON: its "layout" and "code_cache" members. */
void hsruntime__print_layout_json(struct json_writer *jw, const struct hs_layout *l);
void hsruntime__print_code_cache_json(struct json_writer *jw, const struct hs_code_cache *c);

#endif
