// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of core/runtimes/v8/v8frames.c: the namer's readers read a
 * heap laid out here as V8 11.3 (node 20) lays out its objects, with the
 * layout node 20's v8dbg_ symbols give: maps with their instance types, a
 * SharedFunctionInfo with its name (a sequential string, a cons string, a
 * ScopeInfo's, none), its Script (name, source) and its BytecodeArray's
 * source position table. A function is named, its file and the line of a
 * bytecode offset found; what is not a V8 object, a string that does not
 * end, a cons string that loops or a broken table is refused or gives no
 * line, never a wrong one. Compiled code laid out as node 24's V8 13.6 lays
 * it out (an InstructionStream, its Code, source positions, deoptimization
 * data): the function inlined at a pc and its caller's position found from
 * the pc alone, an inlining the data does not have refused.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/runtimes/v8/v8frames.h"
#include "core/runtimes/v8/v8runtime.h"

/* Node 20's layout (v8dbg_ symbols of its /usr/bin/node, V8 11.3.244). */
static const struct v8_layout layout = {
	.fp_marker = -8,
	.fp_function = -16,
	.fp_bytecode_array = -32,
	.fp_bytecode_offset = -40,
	.map = 0,
	.instance_type = 12,
	.fn_shared = 24,
	.sfi_name = 16,
	.sfi_data = 8,
	.sfi_script = 32,
	.script_name = 16,
	.script_source = 8,
	.script_line_ends = 56,
	.array_length = 8,
	.string_length = 12,
	.seq_one_chars = 16,
	.seq_two_chars = 16,
	.cons_first = 16,
	.cons_second = 24,
	.thin_actual = 16,
	.sliced_parent = 16,
	.sliced_offset = 24,
	.bytecode_data = 54,
	.bytecode_positions = 32,
	.scope_first_vars = 3,
	.scope_ncontextlocals = 2,
	.type_function_first = 2066,
	.type_function_last = 2080,
	.type_sfi = 262,
	.type_script = 167,
	.type_scope_info = 261,
	.type_bytecode_array = 191,
	.type_byte_array = 190,
	.type_trusted_byte_array = -1,
	.type_fixed_array = 175,
	.first_nonstring = 128,
	.string_repr_mask = 7,
	.string_enc_mask = 8,
	.one_byte_tag = 8,
	.seq_tag = 0,
	.cons_tag = 1,
	.sliced_tag = 3,
	.thin_tag = 5,
	.external_tag = 2,
};

/* A heap of objects at fixed addresses, read by the namer through heap_read. */
#define HEAP_BASE 0x10000000ULL
#define HEAP_SIZE 16384

static uint8_t heap[HEAP_SIZE];
static uint64_t heap_top;

static int heap_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < HEAP_BASE || addr - HEAP_BASE > HEAP_SIZE ||
	    len > HEAP_SIZE - (addr - HEAP_BASE))
		return -EFAULT;
	memcpy(buf, heap + (addr - HEAP_BASE), len);
	return 0;
}

static const struct v8_mem mem = { heap_read, NULL, &layout };

/* A new object of size bytes (8-aligned): its untagged address. */
static uint64_t alloc(size_t size)
{
	uint64_t a = HEAP_BASE + heap_top;

	heap_top += (size + 7) & ~7ULL;
	if (heap_top > HEAP_SIZE)
		abort(); /* the tests' objects outgrew the heap */
	return a;
}

static void put64(uint64_t obj, int32_t off, uint64_t v)
{
	memcpy(heap + (obj - HEAP_BASE) + off, &v, sizeof(v));
}

static void put32(uint64_t obj, int32_t off, uint32_t v)
{
	memcpy(heap + (obj - HEAP_BASE) + off, &v, sizeof(v));
}

static void put16(uint64_t obj, int32_t off, uint16_t v)
{
	memcpy(heap + (obj - HEAP_BASE) + off, &v, sizeof(v));
}

static uint64_t tagged(uint64_t obj)
{
	return obj + 1;
}

static uint64_t smi(int32_t v)
{
	return (uint64_t)(uint32_t)v << 32;
}

/* The map of instance type type, and an object of it. */
static uint64_t object(uint16_t type, size_t size)
{
	uint64_t map = alloc(16), obj = alloc(size);

	put16(map, layout.instance_type, type);
	put64(obj, layout.map, tagged(map));
	return obj;
}

static uint64_t one_byte(const char *s)
{
	uint64_t o = object(40, 16 + strlen(s));

	put32(o, layout.string_length, (uint32_t)strlen(s));
	memcpy(heap + (o - HEAP_BASE) + layout.seq_one_chars, s, strlen(s));
	return o;
}

static uint64_t two_byte(const char *s)
{
	uint64_t o = object(32, 16 + 2 * strlen(s));

	put32(o, layout.string_length, (uint32_t)strlen(s));
	for (size_t i = 0; i < strlen(s); i++)
		put16(o, layout.seq_two_chars + 2 * (int32_t)i, (uint8_t)s[i]);
	return o;
}

static uint64_t cons(uint64_t first, uint64_t second, uint32_t len)
{
	uint64_t o = object(41, 32);

	put32(o, layout.string_length, len);
	put64(o, layout.cons_first, tagged(first));
	put64(o, layout.cons_second, tagged(second));
	return o;
}

static const char source[] = "'use strict';\nfunction inner() {\n  work();\n  more();\n}\n";

/* A zigzag VLQ of v at p; the bytes written. */
static size_t vlq(uint8_t *p, int64_t v)
{
	uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	size_t n = 0;

	do {
		p[n] = u & 0x7f;
		u >>= 7;
		if (u)
			p[n] |= 0x80;
		n++;
	} while (u);
	return n;
}

/*
 * A function "inner" of /tmp/app.js named by name (a tagged pointer): its
 * bytecode's offsets 0 and 5 at the script offsets of "function" (line 2)
 * and of "work" (line 3).
 */
static uint64_t sfi_with(uint64_t name)
{
	uint64_t sfi = object(262, 48), script = object(167, 64), bytecode = object(191, 64);
	uint64_t table = object(190, 32);
	uint8_t enc[16];
	size_t n = 0;
	int64_t fn = strstr(source, "function") - source, work = strstr(source, "work") - source;

	put64(sfi, layout.sfi_name, name);
	put64(sfi, layout.sfi_script, tagged(script));
	put64(sfi, layout.sfi_data, tagged(bytecode));
	put64(script, layout.script_name, tagged(one_byte("/tmp/app.js")));
	put64(script, layout.script_source, tagged(one_byte(source)));
	put64(script, layout.script_line_ends, smi(0));
	put64(bytecode, layout.bytecode_positions, tagged(table));
	n += vlq(enc + n, 1); /* code -1 + 1: 0 */
	n += vlq(enc + n, (fn + 1) << 1);
	n += vlq(enc + n, 5);
	n += vlq(enc + n, (work - fn) << 1);
	put64(table, layout.array_length, smi((int32_t)n));
	memcpy(heap + (table - HEAP_BASE) + layout.array_length + 8, enc, n);
	return sfi;
}

static void reset(void)
{
	memset(heap, 0, sizeof(heap));
	heap_top = 64;
}

/* The frame's slot keeps the bytecode offset past the array's header, less its tag. */
static uint32_t frame_offset(uint32_t off)
{
	return off + (uint32_t)layout.bytecode_data - 1;
}

static void test_named(void)
{
	struct v8_sfi s;

	reset();
	CHECK_EQ_INT(v8frames__sfi_read(&mem, sfi_with(tagged(one_byte("inner"))), &s), 0);
	CHECK_EQ_STR(s.name, "inner");
	CHECK_EQ_STR(s.file, "/tmp/app.js");
	CHECK_EQ_INT(v8frames__line(&mem, &s, frame_offset(0)), 2);
	CHECK_EQ_INT(v8frames__line(&mem, &s, frame_offset(4)), 2);
	CHECK_EQ_INT(v8frames__line(&mem, &s, frame_offset(5)), 3);
	CHECK_EQ_INT(v8frames__line(&mem, &s, frame_offset(200)), 3);
	/* an offset inside the array's header is none */
	CHECK_EQ_INT(v8frames__line(&mem, &s, 3), 0);
	v8frames__sfi_clear(&s);
}

static void test_names(void)
{
	uint64_t scope, empty;
	struct v8_sfi s;
	char buf[16];

	reset();
	CHECK_EQ_INT(v8frames__sfi_read(&mem, sfi_with(tagged(two_byte("twoByte"))), &s), 0);
	CHECK_EQ_STR(s.name, "twoByte");
	v8frames__sfi_clear(&s);
	CHECK_EQ_INT(v8frames__sfi_read(
			     &mem, sfi_with(tagged(cons(one_byte("Foo."), one_byte("bar"), 7))),
			     &s),
		     0);
	CHECK_EQ_STR(s.name, "Foo.bar");
	v8frames__sfi_clear(&s);
	/* no name: V8's (anonymous) */
	empty = one_byte("");
	CHECK_EQ_INT(v8frames__sfi_read(&mem, sfi_with(tagged(empty)), &s), 0);
	CHECK_EQ_STR(s.name, "(anonymous)");
	v8frames__sfi_clear(&s);
	/* a ScopeInfo: flags, parameters, 1 context local (its name and info), the name, start, end */
	scope = object(261, 8 + 16 * 8);
	put64(scope, 8 + 2 * 8, smi(1));
	put64(scope, 8 + 3 * 8, tagged(one_byte("local")));
	put64(scope, 8 + 4 * 8, smi(0));
	put64(scope, 8 + 5 * 8, tagged(one_byte("scoped")));
	put64(scope, 8 + 6 * 8, smi((int32_t)(strstr(source, "function") - source)));
	put64(scope, 8 + 7 * 8, smi((int32_t)sizeof(source) - 2));
	CHECK_EQ_INT(v8frames__sfi_read(&mem, sfi_with(tagged(scope)), &s), 0);
	CHECK_EQ_STR(s.name, "scoped");
	CHECK_EQ_INT(s.first_line, 2);
	v8frames__sfi_clear(&s);
	/* a string longer than the buffer is refused, not cut */
	CHECK_EQ_INT(v8frames__string(&mem, tagged(one_byte("a-long-function-name")), buf,
				      sizeof(buf)),
		     -EINVAL);
}

static void test_bad_input(void)
{
	uint64_t loop, sfi, long_one;
	struct v8_sfi s;
	char buf[64];

	reset();
	/* not a SharedFunctionInfo, nor any object */
	CHECK_EQ_INT(v8frames__sfi_read(&mem, one_byte("x"), &s), -EINVAL);
	CHECK_EQ_INT(v8frames__sfi_read(&mem, 8, &s), -EINVAL);
	CHECK_EQ_INT(v8frames__sfi_read(&mem, HEAP_BASE + HEAP_SIZE - 1, &s), -EINVAL);
	/* a cons string that is its own first part: refused at its depth */
	loop = object(41, 32);
	put32(loop, layout.string_length, 8);
	put64(loop, layout.cons_first, tagged(loop));
	put64(loop, layout.cons_second, tagged(loop));
	CHECK_EQ_INT(v8frames__string(&mem, tagged(loop), buf, sizeof(buf)), -EINVAL);
	/* a string longer than what is read */
	long_one = one_byte("abc");
	put32(long_one, layout.string_length, 1u << 30);
	CHECK_EQ_INT(v8frames__string(&mem, tagged(long_one), buf, sizeof(buf)), -EINVAL);
	/* a name that is a Smi: named, as V8 names a function without one */
	CHECK_EQ_INT(v8frames__sfi_read(&mem, sfi_with(smi(3)), &s), 0);
	CHECK_EQ_STR(s.name, "(anonymous)");
	v8frames__sfi_clear(&s);
	/* a broken position table: no line, never a wrong one */
	sfi = sfi_with(tagged(one_byte("broken")));
	CHECK_EQ_INT(v8frames__sfi_read(&mem, sfi, &s), 0);
	memset(s.positions, 0xff, s.nr_positions);
	CHECK_EQ_INT(v8frames__line(&mem, &s, frame_offset(5)), 0);
	v8frames__sfi_clear(&s);
}

/* Node 24's compiled code (V8 13.6's v8dbg_ symbols, and the fields v8runtime.c places). */
static struct v8_layout code_layout(void)
{
	struct v8_layout l = layout;

	l.type_instruction_stream = 192;
	l.is_code = 8;
	l.is_instructions = 32;
	l.type_code = 187;
	l.code_stream = 32;
	l.code_instructions = 40;
	l.code_size = 56;
	l.code_deopt = 8;
	l.code_positions = 16;
	l.deopt_inlined_count = 1;
	l.deopt_literals = 3;
	l.deopt_inlining = 8;
	l.deopt_wrapped_sfi = 7;
	l.wrapper_sfi = 8;
	return l;
}

/* A position: script offset off, inlined as inlining id (0: none). */
static int64_t position(int64_t off, uint32_t inlining)
{
	return (off + 1) << 1 | (int64_t)inlining << 31;
}

/*
 * Compiled code of 64 bytes: its instructions 0 to 15 at script offset 40
 * of its own function, 16 on in a function inlined there (inlining id,
 * its literal 0) at its script offset 7, called at offset 50 of its own.
 * Its instructions' start.
 */
static uint64_t compiled(const struct v8_layout *l, uint64_t own_sfi, uint64_t inlined_sfi,
			 uint32_t id)
{
	uint64_t code = object(187, 64), deopt = object(193, 16 + 10 * 8), lits = object(199, 24);
	uint64_t wrapper = object(195, 16);
	uint64_t table = object(196, 32), inl = object(196, 32), map = alloc(16), stream;
	uint8_t enc[32];
	size_t n = 0;
	int64_t e0[2] = { position(50, 0), 0 };

	put16(map, l->instance_type, 192);
	heap_top = (heap_top + 31) & ~31ULL;
	stream = alloc(32 + 64);
	put64(stream, 0, tagged(map));
	put64(stream, l->is_code, tagged(code));
	put64(code, l->code_instructions, stream + (uint64_t)l->is_instructions);
	put32(code, l->code_size, 64);
	put64(code, l->code_deopt, tagged(deopt));
	put64(code, l->code_positions, tagged(table));
	n += vlq(enc + n, 1); /* code 0 */
	n += vlq(enc + n, position(40, 0));
	n += vlq(enc + n, 16);
	n += vlq(enc + n, position(7, id) - position(40, 0));
	put64(table, l->array_length, smi((int32_t)n));
	memcpy(heap + (table - HEAP_BASE) + l->array_length + 8, enc, n);
	put64(deopt, l->array_length, smi(10));
	put64(deopt, l->array_length + 8 + 8 * l->deopt_inlined_count, smi(1));
	put64(deopt, l->array_length + 8 + 8 * l->deopt_literals, tagged(lits));
	put64(deopt, l->array_length + 8 + 8 * l->deopt_inlining, tagged(inl));
	put64(deopt, l->array_length + 8 + 8 * l->deopt_wrapped_sfi, tagged(wrapper));
	put64(wrapper, l->wrapper_sfi, tagged(own_sfi));
	put64(lits, l->array_length, smi(1));
	put64(lits, l->array_length + 8, tagged(inlined_sfi));
	put64(inl, l->array_length, smi(16));
	memcpy(heap + (inl - HEAP_BASE) + l->array_length + 8, e0, sizeof(e0));
	return stream + (uint64_t)l->is_instructions;
}

static void test_inlined(void)
{
	struct v8_layout l = code_layout();
	struct v8_mem m = { heap_read, NULL, &l };
	struct v8_code_frame f[4];
	uint64_t start, callee, caller, map = 0;

	reset();
	callee = object(282, 48);
	caller = object(282, 48);
	start = compiled(&l, caller, callee, 1);
	/* in its own function's code */
	CHECK_EQ_INT(v8frames__pc_frames(&m, start + 4, &map, f, 4), 1);
	CHECK(f[0].sfi == caller);
	CHECK_EQ_INT(f[0].offset, 40);
	/* in the inlined function's: it, then its caller at the call */
	CHECK_EQ_INT(v8frames__pc_frames(&m, start + 20, &map, f, 4), 2);
	CHECK(f[0].sfi == callee);
	CHECK_EQ_INT(f[0].offset, 7);
	CHECK(f[1].sfi == caller);
	CHECK_EQ_INT(f[1].offset, 50);
	CHECK(map != 0);
	/* past its code, or a layout without compiled code's fields: none */
	CHECK_EQ_INT(v8frames__pc_frames(&m, start + 64, &map, f, 4), 0);
	CHECK_EQ_INT(v8frames__pc_frames(&mem, start + 20, &map, f, 4), 0);
	/* an inlining its deoptimization data does not have: none, never a wrong one */
	map = 0;
	start = compiled(&l, caller, callee, 2);
	CHECK_EQ_INT(v8frames__pc_frames(&m, start + 20, &map, f, 4), 0);
	CHECK_EQ_INT(v8frames__pc_frames(&m, start + 4, &map, f, 4), 1);
}

int main(void)
{
	RUN(test_named);
	RUN(test_names);
	RUN(test_bad_input);
	RUN(test_inlined);
	return test_summary();
}
