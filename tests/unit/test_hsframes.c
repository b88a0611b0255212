// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of core/runtimes/hotspot/hsframes.c: made-up memory laid out
 * with JDK 17's offsets (those hotspot-runtime-host checks against the
 * Serviceability Agent) as the JVM lays out a method: a Method, its
 * ConstMethod followed by its bytecodes and compressed line number table,
 * its ConstantPool with its utf8 entries (Symbols), the holder class with
 * its name; and a code blob with its name. A method is named
 * "pkg.Class.method" with its file, a bytecode's line found as
 * Method::line_number_from_bci finds it (pairs of one byte and of 0xff
 * with two signed ints), a blob by its name; what does not check out (an
 * index past the pool, a Symbol too long or not printable, a bcp outside
 * the bytecodes, no table) is refused.
 *
 * An nmethod's scopes are decoded (a method inlined into another at a pc,
 * innermost first), its PcDesc found for a pc; a metadata index past its
 * metadata, PcDescs out of order, a scope its own sender, refused.
 *
 * test_hsframes --seeds DIR writes the images as the fuzz target's corpus
 * (tests/fuzz/corpus-hsframes/): 24 bytes (the Method*, the bcp, the
 * nmethod), then the memory from HS_MEM_BASE.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/runtimes/hotspot/hsframes.h"
#include "hs_jdk17.h"

#define HS_MEM_BASE 0x10000
#define IMG_SIZE 0x2000

enum {
	AT_METHOD = 0x100,
	AT_CONST_METHOD = 0x200, /* 48 bytes, then the bytecodes and the line table */
	AT_POOL = 0x400,	 /* 72 bytes, then 8 bytes an entry */
	AT_KLASS = 0x600,
	AT_SYMBOLS = 0x800,
	AT_BLOB = 0x1000,
	AT_BLOB_NAME = 0x1100,
	AT_NMETHOD = 0x1200, /* its metadata at +0x180, scopes data +0x190, PcDescs +0x200 */
	AT_METHOD_B = 0x1800,
};

#define CODE_SIZE 40

struct image {
	uint8_t mem[IMG_SIZE];
	size_t symbols;
};

/* What each image changes. */
struct variant {
	uint16_t name_index; /* 0: the method's own (3) */
	const char *method, *klass;
	bool no_table, not_printable;
	bool bad_index, unsorted, sender_loop; /* an nmethod's */
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

static void put16(struct image *im, size_t off, uint16_t v)
{
	memcpy(im->mem + off, &v, 2);
}

/* A Symbol: a hash and refcount (4 bytes), its length (2), its bytes. */
static uint64_t symbol(struct image *im, const char *s)
{
	size_t off = im->symbols;

	put16(im, off + 4, (uint16_t)strlen(s));
	memcpy(im->mem + off + 6, s, strlen(s));
	im->symbols += 8 + (strlen(s) + 7) / 8 * 8;
	return at(off);
}

/*
 * The line table of interpLeaf-like code: bci 0 line 16, bci 2 line 18,
 * bci 9 line 17 (a loop's test after its body), and, as 0xff with two
 * signed ints, bci 300 line 20 past the code (never an answer), then bci
 * 30 line 220.
 */
static const uint8_t line_table[] = {
	0xff,	      0x00, 0x20,	      /* bci +0, line +16 (zigzag 32) */
	(2 << 3) | 2,			      /* bci +2, line +2 */
	0xff,	      0x0e, 0x01,	      /* bci +7, line -1 (zigzag 14, 1) */
	0xff,	      0xc6, 0x06, 0x06,	      /* bci +291 (zigzag 582: 198 + 6 * 64), line +3 */
	0xff,	      0xdb, 0x05, 0xd0, 0x03, /* bci -270 (zigzag 539), line +200 (zigzag 400) */
	0x00,
};

/*
 * An nmethod of the method at AT_METHOD, its code at 0x7f0000001000, into
 * which the method at AT_METHOD_B (the same ConstMethod) was inlined: its
 * metadata the two Method*s, its scopes data (offset 0 a pad, as HotSpot's
 * begins) a scope of the first at bci 2 (offset 1) and one of the second at
 * bci 9 whose sender is it (offset 4), its PcDescs at -1 (no scope), 0x10
 * (the first) and 0x20 (the second, inlined).
 */
static void nmethod(struct image *im, const struct variant *v)
{
	static const uint8_t data[] = { 0, 0, 1, 3, 1, 2, 10 };
	const int32_t pcs[][2] = { { -1, 0 }, { v->unsorted ? 0x30 : 0x10, 1 }, { 0x20, 4 } };
	size_t nm = AT_NMETHOD;

	put64(im, AT_METHOD_B + 8, at(AT_CONST_METHOD));
	put64(im, nm + 112, at(AT_METHOD));
	put64(im, nm + 32, 0x7f0000001000ull);
	put64(im, nm + 120, at(nm + 0x190));
	put32(im, nm + 260, 0x180);
	put32(im, nm + 268, 0x200);
	put32(im, nm + 272, 0x230);
	put64(im, nm + 0x180, at(AT_METHOD));
	put64(im, nm + 0x188, at(AT_METHOD_B));
	memcpy(im->mem + nm + 0x190, data, sizeof(data));
	if (v->bad_index)
		im->mem[nm + 0x190 + 5] = 3;
	if (v->sender_loop)
		im->mem[nm + 0x190 + 1] = 1;
	for (size_t i = 0; i < 3; i++) {
		put32(im, nm + 0x200 + 16 * i, (uint32_t)pcs[i][0]);
		put32(im, nm + 0x200 + 16 * i + 4, (uint32_t)pcs[i][1]);
	}
}

static void build(struct image *im, const struct variant *v)
{
	size_t code = AT_CONST_METHOD + 48;

	memset(im, 0, sizeof(*im));
	im->symbols = AT_SYMBOLS;
	put64(im, AT_METHOD + 8, at(AT_CONST_METHOD));
	put64(im, AT_CONST_METHOD + 8, at(AT_POOL));
	put16(im, AT_CONST_METHOD + 28, v->no_table ? 0 : 1);
	put16(im, AT_CONST_METHOD + 32, CODE_SIZE);
	put16(im, AT_CONST_METHOD + 34, v->name_index ? v->name_index : 3);
	put16(im, AT_CONST_METHOD + 36, 4);
	memcpy(im->mem + code + CODE_SIZE, line_table, sizeof(line_table));
	put64(im, AT_POOL + 24, at(AT_KLASS));
	put32(im, AT_POOL + 60, 6);
	put16(im, AT_POOL + 54, 5);
	put64(im, AT_POOL + 72 + 8 * 3, symbol(im, v->method ? v->method : "interpLeaf"));
	put64(im, AT_POOL + 72 + 8 * 4, symbol(im, "(I)J"));
	put64(im, AT_POOL + 72 + 8 * 5, symbol(im, "JavaChain.java"));
	put64(im, AT_KLASS + 24, symbol(im, v->klass ? v->klass : "org/example/JavaChain$Interp"));
	if (v->not_printable)
		im->mem[AT_SYMBOLS + 6 + 2] = '\n';
	put64(im, AT_BLOB + 96, at(AT_BLOB_NAME));
	memcpy(im->mem + AT_BLOB_NAME, "StubRoutines (1)", 17);
	nmethod(im, v);
}

static int image_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct image *im = ctx;

	if (addr < HS_MEM_BASE || addr - HS_MEM_BASE > IMG_SIZE ||
	    len > IMG_SIZE - (addr - HS_MEM_BASE))
		return -EFAULT;
	memcpy(buf, im->mem + (addr - HS_MEM_BASE), len);
	return 0;
}

static struct image im;

static struct hs_mem mem_of(const struct variant *v)
{
	build(&im, v);
	return (struct hs_mem){ .read = image_read, .ctx = &im, .l = &jdk17 };
}

static uint64_t bcp(uint32_t bci)
{
	return at(AT_CONST_METHOD + 48 + bci);
}

static void test_names(void)
{
	struct variant v = { 0 };
	struct hs_mem m = mem_of(&v);
	char name[256], file[64];

	CHECK_EQ_INT(hsframes__method(&m, at(AT_METHOD), name, sizeof(name), file, sizeof(file)),
		     0);
	CHECK_EQ_STR(name, "org.example.JavaChain$Interp.interpLeaf");
	CHECK_EQ_STR(file, "JavaChain.java");
	CHECK_EQ_INT(hsframes__blob_name(&m, at(AT_BLOB), name, sizeof(name)), 0);
	CHECK_EQ_STR(name, "StubRoutines (1)");
	/* Too small a buffer: refused, not cut. */
	CHECK_EQ_INT(hsframes__method(&m, at(AT_METHOD), name, 20, file, sizeof(file)), -EINVAL);
	CHECK_EQ_INT(hsframes__blob_name(&m, at(AT_BLOB), name, 8), -EINVAL);
	/* Not a Method: its ConstMethod is no pointer. */
	CHECK_EQ_INT(hsframes__method(&m, at(AT_KLASS), name, sizeof(name), file, sizeof(file)),
		     -EINVAL);
	CHECK_EQ_INT(hsframes__method(&m, 0, name, sizeof(name), file, sizeof(file)), -EINVAL);

	v = (struct variant){ .name_index = 6 }; /* past the pool's 6 entries */
	m = mem_of(&v);
	CHECK_EQ_INT(hsframes__method(&m, at(AT_METHOD), name, sizeof(name), file, sizeof(file)),
		     -EINVAL);
	v = (struct variant){ .not_printable = true };
	m = mem_of(&v);
	CHECK_EQ_INT(hsframes__method(&m, at(AT_METHOD), name, sizeof(name), file, sizeof(file)),
		     -EINVAL);
	/* A lambda's method, as javac names it. */
	v = (struct variant){ .method = "lambda$main$0", .klass = "JavaChain" };
	m = mem_of(&v);
	CHECK_EQ_INT(hsframes__method(&m, at(AT_METHOD), name, sizeof(name), file, sizeof(file)),
		     0);
	CHECK_EQ_STR(name, "JavaChain.lambda$main$0");
	/* A hidden class, a lambda's proxy, as the JVM names it. */
	v = (struct variant){ .method = "compare",
			      .klass = "JavaChain$$Lambda$3+0x00007fa0e0004000" };
	m = mem_of(&v);
	CHECK_EQ_INT(hsframes__method(&m, at(AT_METHOD), name, sizeof(name), file, sizeof(file)),
		     0);
	CHECK_EQ_STR(name, "JavaChain$$Lambda$3/0x00007fa0e0004000.compare");
}

static void test_lines(void)
{
	struct variant v = { 0 };
	struct hs_mem m = mem_of(&v);
	struct hs_line *pairs;
	uint32_t line = 0, code_size;
	uint64_t code;
	size_t nr;

	CHECK_EQ_INT(hsframes__lines(&m, at(AT_METHOD), &code, &code_size, &pairs, &nr), 0);
	CHECK(code == bcp(0));
	CHECK_EQ_INT(code_size, CODE_SIZE);
	CHECK_EQ_INT(nr, 4); /* bci 300 is past the code */
	free(pairs);
	CHECK_EQ_INT(hsframes__line(&m, at(AT_METHOD), bcp(0), &line), 0);
	CHECK_EQ_INT(line, 16);
	CHECK_EQ_INT(hsframes__line(&m, at(AT_METHOD), bcp(1), &line), 0);
	CHECK_EQ_INT(line, 16);
	CHECK_EQ_INT(hsframes__line(&m, at(AT_METHOD), bcp(5), &line), 0);
	CHECK_EQ_INT(line, 18);
	CHECK_EQ_INT(hsframes__line(&m, at(AT_METHOD), bcp(9), &line), 0);
	CHECK_EQ_INT(line, 17);
	CHECK_EQ_INT(hsframes__line(&m, at(AT_METHOD), bcp(31), &line), 0);
	CHECK_EQ_INT(line, 220);
	/* Outside the bytecodes. */
	CHECK_EQ_INT(hsframes__line(&m, at(AT_METHOD), bcp(CODE_SIZE), &line), -ENOENT);
	v = (struct variant){ .no_table = true };
	m = mem_of(&v);
	CHECK_EQ_INT(hsframes__line(&m, at(AT_METHOD), bcp(5), &line), -ENOENT);
}

static void test_nmethod(void)
{
	struct variant v = { 0 };
	struct hs_mem m = mem_of(&v);
	struct hs_nmethod x;

	CHECK_EQ_INT(hsframes__nmethod(&m, at(AT_NMETHOD), &x), 0);
	CHECK(x.method == at(AT_METHOD));
	CHECK(x.code_begin == 0x7f0000001000ull);
	CHECK_EQ_INT(x.nr_pcs, 3);
	CHECK_EQ_INT(x.nr_scopes, 3);
	CHECK_EQ_INT(x.pcs[0].nr, 0);
	CHECK_EQ_INT(x.pcs[1].pc_offset, 0x10);
	CHECK_EQ_INT(x.pcs[1].nr, 1);
	CHECK(x.scopes[x.pcs[1].first].method == at(AT_METHOD));
	CHECK_EQ_INT(x.scopes[x.pcs[1].first].bci, 2);
	/* Innermost first: the method inlined, then the nmethod's own. */
	CHECK_EQ_INT(x.pcs[2].nr, 2);
	CHECK(x.scopes[x.pcs[2].first].method == at(AT_METHOD_B));
	CHECK_EQ_INT(x.scopes[x.pcs[2].first].bci, 9);
	CHECK(x.scopes[x.pcs[2].first + 1].method == at(AT_METHOD));
	/* A return address's PcDesc is at it; a leaf's pc, the first past it. */
	CHECK_EQ_INT(hsframes__pc(&x, 0x10), 1);
	CHECK_EQ_INT(hsframes__pc(&x, 0x15), 2);
	CHECK_EQ_INT(hsframes__pc(&x, 0x21), -1);
	hsframes__nmethod_free(&x);

	v = (struct variant){ .bad_index = true };
	m = mem_of(&v);
	CHECK_EQ_INT(hsframes__nmethod(&m, at(AT_NMETHOD), &x), -EINVAL);
	v = (struct variant){ .unsorted = true };
	m = mem_of(&v);
	CHECK_EQ_INT(hsframes__nmethod(&m, at(AT_NMETHOD), &x), -EINVAL);
	v = (struct variant){ .sender_loop = true };
	m = mem_of(&v);
	CHECK_EQ_INT(hsframes__nmethod(&m, at(AT_NMETHOD), &x), -EINVAL);
	CHECK_EQ_INT(hsframes__nmethod(&m, at(AT_METHOD), &x), -EINVAL);
}

static int write_seeds(const char *dir)
{
	static const struct {
		const char *name;
		struct variant v;
		uint32_t bci;
	} seeds[] = {
		{ "method", { 0 }, 5 },
		{ "lambda", { .method = "lambda$main$0", .klass = "JavaChain" }, 31 },
		{ "index-past-pool", { .name_index = 6 }, 0 },
		{ "not-printable", { .not_printable = true }, 9 },
		{ "no-table", { .no_table = true }, 1 },
		{ "nmethod-bad-index", { .bad_index = true }, 0 },
		{ "nmethod-unsorted", { .unsorted = true }, 0 },
		{ "nmethod-sender-loop", { .sender_loop = true }, 0 },
	};

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		uint64_t head[3] = { at(AT_METHOD), bcp(seeds[i].bci), at(AT_NMETHOD) };
		char path[4096];
		FILE *f;

		build(&im, &seeds[i].v);
		snprintf(path, sizeof(path), "%s/seed-%s", dir, seeds[i].name);
		f = fopen(path, "wb");
		if (!f || fwrite(head, sizeof(head), 1, f) != 1 ||
		    fwrite(im.mem, IMG_SIZE, 1, f) != 1 || fclose(f)) {
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
	test_names();
	test_lines();
	test_nmethod();
	return test_summary();
}
