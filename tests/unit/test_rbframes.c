// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of core/runtimes/ruby/rbframes.c: the namer reads this process's own memory
 * (/proc/self/mem), where the tests lay out Ruby 3.1's objects (and 3.3's,
 * whose Strings and iseqs moved fields) as the interpreter would: Strings embedded and on the heap, a pathobj String or
 * Array, iseqs with a line table of positions or a succinct index table
 * built as iseq.c's succ_index_table_create builds it. The lookup in such
 * a table is checked against the ranks counted one by one; the tables the
 * namer reads end where a mapping ends, so that reading past one fails.
 * What is not a Ruby object, or too long, or unmapped, is "<unknown>".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "../../core/util/common.h"
#include "../../core/runtimes/ruby/rbframes.h"
#include "../../core/runtimes/ruby/rbruntime.h"

#define FIX(n) ((uint64_t)(int64_t)(n) << 1 | 1)
#define MAX_INSNS 8192
#define MAX_ENTRIES 4096
#define SUCC_MAX_LEN (48 + 80 * (MAX_INSNS / 512 + 1))

/* struct iseq_insn_info_entry */
struct insn {
	int32_t line;
	int32_t node_id;
	uint32_t events;
};
_Static_assert(sizeof(struct insn) == 12, "insn_entry_size");

/* An iseq and its body (rb_iseq_constant_body: as far as insns_info reaches). */
struct fake {
	uint64_t iseq[4];
	uint8_t body[160] __attribute__((aligned(8)));
	struct insn entries[MAX_ENTRIES];
	uint32_t positions[MAX_ENTRIES];
};

/* The instructions of every iseq here: only their addresses are used. */
static uint64_t code[MAX_INSNS];

static uint64_t addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static uint64_t pc_of(uint32_t insn)
{
	return addr(&code[insn]);
}

static void put64(void *base, size_t off, uint64_t v)
{
	memcpy((uint8_t *)base + off, &v, sizeof(v));
}

static struct rbruntime runtime(void)
{
	return (struct rbruntime){
		.major = 3, .minor = 1, .teeny = 4, .off = *rbruntime__offsets_of(3, 1)
	};
}

/* Ruby objects (an RVALUE is 40 bytes: 5 words) */

static uint64_t embed_string(uint64_t *obj, const char *s)
{
	size_t len = strlen(s);

	memset(obj, 0, 5 * sizeof(*obj));
	obj[0] = RB_T_STRING | (uint64_t)len << RB_STRING_EMBED_LEN_SHIFT;
	memcpy(obj + 2, s, len);
	return addr(obj);
}

static uint64_t heap_string(uint64_t *obj, const char *s, uint64_t len)
{
	memset(obj, 0, 5 * sizeof(*obj));
	obj[0] = RB_T_STRING | RB_STRING_NOEMBED;
	obj[2] = len;
	obj[3] = addr(s);
	return addr(obj);
}

static uint64_t embed_array(uint64_t *obj, uint64_t path, uint64_t realpath)
{
	memset(obj, 0, 5 * sizeof(*obj));
	obj[0] = RB_T_ARRAY | RB_ARRAY_EMBED | 2ULL << RB_ARRAY_EMBED_LEN_SHIFT;
	obj[2] = path;
	obj[3] = realpath;
	return addr(obj);
}

static uint64_t heap_array(uint64_t *obj, const uint64_t *elems, uint64_t len)
{
	memset(obj, 0, 5 * sizeof(*obj));
	obj[0] = RB_T_ARRAY;
	obj[2] = len;
	obj[4] = addr(elems);
	return addr(obj);
}

/* The iseq of f, named label (a VALUE) in pathobj, first_lineno a VALUE; no lines yet. */
static uint64_t fake_iseq(struct fake *f, uint64_t label, uint64_t pathobj, uint64_t first_lineno)
{
	memset(f->iseq, 0, sizeof(f->iseq));
	memset(f->body, 0, sizeof(f->body));
	f->iseq[2] = addr(f->body);
	put64(f->body, 8, addr(code));
	put64(f->body, 64 + 0, pathobj);
	put64(f->body, 64 + 16, label);
	put64(f->body, 64 + 24, first_lineno);
	return addr(f->iseq);
}

/* Its n entries (their lines from lines), found by positions or succ (a table's address). */
static void fake_lines(struct fake *f, const int32_t *lines, uint32_t n, const uint32_t *positions,
		       uint64_t succ)
{
	for (uint32_t i = 0; i < n; i++)
		f->entries[i] =
			(struct insn){ .line = lines[i], .node_id = (int32_t)i, .events = 1 };
	if (positions)
		memcpy(f->positions, positions, n * sizeof(*positions));
	put64(f->body, 120, addr(f->entries));
	put64(f->body, 128, positions ? addr(f->positions) : 0);
	memcpy(f->body + 136, &n, sizeof(n));
	put64(f->body, 144, succ);
}

static struct rbframes *namer(void)
{
	struct rbruntime rr = runtime();
	struct rbframes *n = rbframes__new();

	CHECK(n != NULL);
	CHECK_EQ_INT(rbframes__add_process(n, (uint32_t)getpid(), &rr, 0), 0);
	return n;
}

/*
 * The second word BPF writes for a frame of iseq (or method entry) at pc:
 * the tag of the word at +16 (its body, or definition) when it can be read.
 */
static uint64_t where_of(uint64_t iseq, uint64_t pc)
{
	uint64_t body = 0;
	int fd = open("/proc/self/mem", O_RDONLY);

	if (fd >= 0 && pread(fd, &body, sizeof(body), (off_t)(iseq + 16)) != sizeof(body))
		body = 0;
	if (fd >= 0)
		close(fd);
	return pc | (uint64_t)UNW_RB_TAG(body) << UNW_RB_TAG_SHIFT;
}

static struct rb_frame_name name_at(struct rbframes *n, uint64_t iseq, uint64_t pc)
{
	struct rb_frame_name out;

	CHECK_EQ_INT(rbframes__name(n, (uint32_t)getpid(), iseq, where_of(iseq, pc), &out), 0);
	return out;
}

/* Succinct index tables */

/* Ruby 3.1 iseq.c succ_index_table_create(max_pos, data, size) into t: its length. */
static size_t succ_build(uint8_t *t, uint32_t max_pos, const uint32_t *data, uint32_t size)
{
	uint32_t imm_size = (max_pos < 54 ? max_pos + 8 : 54) / 9;
	uint32_t succ_size = (max_pos < 54 ? 0 : max_pos - 54 + 511) / 512;
	uint32_t r = 0;

	memset(t, 0, 48 + 80 * succ_size);
	for (uint32_t j = 0; j < imm_size; j++) {
		uint64_t imm = 0;

		for (uint32_t i = 0; i < 9; i++) {
			if (r < size && data[r] == j * 9 + i)
				r++;
			imm |= (uint64_t)r << (i * 7);
		}
		put64(t, j * 8, imm);
	}
	for (uint32_t k = 0; k < succ_size; k++) {
		uint8_t *block = t + 48 + 80 * k;
		uint64_t small_ranks = 0;
		uint32_t small_rank = 0;

		memcpy(block, &r, sizeof(r));
		for (uint32_t j = 0; j < 8; j++) {
			uint64_t bits = 0;

			if (j)
				small_ranks |= (uint64_t)small_rank << ((j - 1) * 9);
			for (uint32_t i = 0; i < 64; i++) {
				if (r < size && data[r] == k * 512 + j * 64 + i + 54) {
					bits |= 1ULL << i;
					r++;
				}
			}
			put64(block, 16 + j * 8, bits);
			small_rank += (uint32_t)__builtin_popcountll(bits);
		}
		put64(block, 8, small_ranks);
	}
	return imm_size * 8 + succ_size * 80;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* Ascending positions below max_pos, 0 first, gaps of 1 to max_gap: how many. */
static uint32_t random_positions(uint32_t *pos, uint32_t max_pos, uint32_t max_gap)
{
	uint32_t n = 0;

	for (uint32_t p = 0; p < max_pos && n < MAX_ENTRIES; p += 1 + next_rand() % max_gap)
		pos[n++] = p;
	return n;
}

/* How many of the n positions are at or before x. */
static uint32_t brute_rank(const uint32_t *pos, uint32_t n, uint32_t x)
{
	uint32_t r = 0;

	while (r < n && pos[r] <= x)
		r++;
	return r;
}

/*
 * A copy of len bytes at the very end of a mapping, the page after it
 * unmapped: a read past it fails. *map and *map_len to unmap.
 */
static void *at_mapping_end(const void *bytes, size_t len, void **map, size_t *map_len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (len + page - 1) / page;
	uint8_t *m = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(m != MAP_FAILED);
	munmap(m + pages * page, page);
	*map = m;
	*map_len = pages * page;
	return memcpy(m + pages * page - len, bytes, len);
}

/* The line expected at pc: as Ruby finds it, by the positions themselves. */
static int32_t expected_line(const uint32_t *pos, const int32_t *lines, uint32_t n, uint32_t insn)
{
	uint32_t p = insn ? insn - 1 : 0;

	return lines[brute_rank(pos, n, p) - 1];
}

/* The cases */

static void test_embedded_names(void)
{
	static uint64_t label[5], path[5];
	static struct fake f;
	static const uint32_t positions[] = { 0, 3, 7 };
	static const int32_t lines[] = { 41, 42, 44 };
	struct rbframes *n = namer();
	uint64_t iseq = fake_iseq(&f, embed_string(label, "spin"),
				  embed_string(path, "/srv/app.rb"), FIX(40));
	struct rb_frame_name r;

	fake_lines(&f, lines, 3, positions, 0);
	r = name_at(n, iseq, pc_of(0));
	CHECK_EQ_STR(r.label, "spin");
	CHECK_EQ_STR(r.file, "/srv/app.rb");
	CHECK_EQ_INT(r.first_line, 40);
	CHECK_EQ_INT(r.line, 41);
	/* the pc is the next instruction: pc 1 is still at instruction 0 */
	CHECK_EQ_INT(name_at(n, iseq, pc_of(1)).line, 41);
	CHECK_EQ_INT(name_at(n, iseq, pc_of(3)).line, 41);
	CHECK_EQ_INT(name_at(n, iseq, pc_of(4)).line, 42);
	CHECK_EQ_INT(name_at(n, iseq, pc_of(7)).line, 42);
	CHECK_EQ_INT(name_at(n, iseq, pc_of(8)).line, 44);
	CHECK_EQ_INT(name_at(n, iseq, pc_of(100)).line, 44);
	/* before the instructions, or no pc: the line is not known, the name is */
	r = name_at(n, iseq, pc_of(0) - 8);
	CHECK_EQ_INT(r.line, 0);
	CHECK_EQ_STR(r.label, "spin");
	CHECK_EQ_INT(name_at(n, iseq, 0).line, 0);
	rbframes__free(n);
}

static void test_heap_names(void)
{
	static const char long_label[] = "block (2 levels) in <class:ApplicationController>";
	static const char long_path[] = "/srv/app/controllers/application_controller.rb";
	static uint64_t label[5], path[5], real[5], pathobj[5], elems[2];
	static struct fake f1, f2, f3;
	static const int32_t one[] = { 7 };
	struct rbframes *n = namer();
	uint64_t l = heap_string(label, long_label, strlen(long_label));
	uint64_t p = heap_string(path, long_path, strlen(long_path));
	uint64_t rp = embed_string(real, "/real/app.rb");
	uint64_t i1, i2, i3;
	struct rb_frame_name r;

	/* a heap String as pathobj; a single entry is the line of every pc */
	i1 = fake_iseq(&f1, l, p, FIX(5));
	fake_lines(&f1, one, 1, NULL, 0);
	r = name_at(n, i1, pc_of(30));
	CHECK_EQ_STR(r.label, long_label);
	CHECK_EQ_STR(r.file, long_path);
	CHECK_EQ_INT(r.first_line, 5);
	CHECK_EQ_INT(r.line, 7);

	/* an embedded Array [path, realpath]; no entries: no line */
	i2 = fake_iseq(&f2, l, embed_array(pathobj, p, rp), FIX(6));
	r = name_at(n, i2, pc_of(2));
	CHECK_EQ_STR(r.file, long_path);
	CHECK_EQ_INT(r.first_line, 6);
	CHECK_EQ_INT(r.line, 0);

	/* an Array on the heap */
	elems[0] = rp;
	elems[1] = p;
	i3 = fake_iseq(&f3, l, heap_array(pathobj + 0, elems, 2), FIX(1));
	/* pathobj was rewritten: i2 keeps what it read */
	CHECK_EQ_STR(name_at(n, i3, pc_of(0)).file, "/real/app.rb");
	CHECK_EQ_STR(name_at(n, i2, pc_of(0)).file, long_path);
	rbframes__free(n);
}

/*
 * Ruby 3.3's layout: a String's length in its len field, embedded or not,
 * the embedded characters after it; an embedded Array's length in 7 bits
 * of its flags; first_lineno an int; the line table 8 bytes nearer.
 */
static uint64_t embed_string_33(uint64_t *obj, const char *s, uint64_t len)
{
	memset(obj, 0, 5 * sizeof(*obj));
	obj[0] = RB_T_STRING;
	obj[2] = len;
	memcpy(obj + 3, s, strlen(s) < 16 ? strlen(s) : 16);
	return addr(obj);
}

static void test_layout_33(void)
{
	static uint64_t label[5], path[5], big[5], pathobj[8];
	static struct fake f;
	static const int32_t lines[] = { 10, 12 };
	static const uint32_t positions[] = { 0, 4 };
	struct rbruntime rr = {
		.major = 3, .minor = 3, .teeny = 8, .off = *rbruntime__offsets_of(3, 3)
	};
	struct rbframes *n = rbframes__new();
	uint64_t p = embed_string_33(path, "/srv/app.rb", 11), iseq;
	uint32_t first = 9, node_id = 77, size = 2;
	struct rb_frame_name r;

	CHECK_EQ_INT(rbframes__add_process(n, (uint32_t)getpid(), &rr, 0), 0);
	/* an embedded Array of 4, a length 3.1's two bits of flags would read as 0 */
	memset(pathobj, 0, sizeof(pathobj));
	pathobj[0] = RB_T_ARRAY | RB_ARRAY_EMBED | 4ULL << RB_ARRAY_EMBED_LEN_SHIFT;
	pathobj[2] = p;
	iseq = fake_iseq(&f, embed_string_33(label, "handler", 7), addr(pathobj), 0);
	memcpy(f.body + 64 + 24, &first, sizeof(first));
	memcpy(f.body + 64 + 28, &node_id, sizeof(node_id));
	fake_lines(&f, lines, 2, positions, 0);
	/* 3.3's insns_info: body, positions, size, succ_index_table from 112 on */
	memmove(f.body + 112, f.body + 120, 32);
	memcpy(f.body + 128, &size, sizeof(size));
	put64(f.body, 136, 0);
	r = name_at(n, iseq, pc_of(5));
	CHECK_EQ_STR(r.label, "handler");
	CHECK_EQ_STR(r.file, "/srv/app.rb");
	CHECK_EQ_INT(r.first_line, 9);
	CHECK_EQ_INT(r.line, 12);
	rbframes__free(n);

	/* a length past the bound in the len field; a first_lineno not positive */
	n = rbframes__new();
	CHECK_EQ_INT(rbframes__add_process(n, (uint32_t)getpid(), &rr, 0), 0);
	iseq = fake_iseq(&f, embed_string_33(big, "x", 1u << 20), p, 0);
	memcpy(f.body + 64 + 24, &(int32_t){ -3 }, 4);
	r = name_at(n, iseq, pc_of(0));
	CHECK_EQ_STR(r.label, "<unknown>");
	CHECK_EQ_STR(r.file, "/srv/app.rb");
	CHECK_EQ_INT(r.first_line, 0);
	rbframes__free(n);
}

static void test_succ_lookup(void)
{
	static const uint32_t max_pos[] = { 1, 9, 20, 53, 54, 55, 565, 566, 567, 1000, 3000, 5000 };
	static const uint32_t gaps[] = { 1, 4, 40, 700 };
	static uint8_t table[SUCC_MAX_LEN];
	static uint32_t pos[MAX_ENTRIES];

	for (size_t m = 0; m < ARRAY_SIZE(max_pos); m++) {
		for (size_t g = 0; g < ARRAY_SIZE(gaps); g++) {
			uint32_t nr = random_positions(pos, max_pos[m], gaps[g]);
			size_t len = succ_build(table, max_pos[m], pos, nr);
			int bad = 0;

			for (uint32_t x = 0; x < max_pos[m]; x++)
				bad += rbframes__succ_index_lookup(table, len, x) !=
				       brute_rank(pos, nr, x);
			CHECK_EQ_INT(bad, 0);
			/* past what the table holds */
			if (max_pos[m] < 54)
				CHECK_EQ_INT(rbframes__succ_index_lookup(table, len, len / 8 * 9),
					     0);
			else
				CHECK_EQ_INT(rbframes__succ_index_lookup(
						     table, len, 54 + (len - 48) / 80 * 512),
					     0);
		}
	}
	CHECK_EQ_INT(rbframes__succ_index_lookup(NULL, 0, 0), 0);
	CHECK_EQ_INT(rbframes__succ_index_lookup(table, 7, 0), 0);
}

/* An iseq of insns instructions whose n positions are found by a succinct table. */
static void check_succ_iseq(const uint32_t *pos, uint32_t n, uint32_t insns)
{
	static uint8_t built[SUCC_MAX_LEN];
	static int32_t lines[MAX_ENTRIES];
	static uint64_t label[5], path[5];
	static struct fake f;
	struct rbframes *n_ = namer();
	size_t len = succ_build(built, insns, pos, n), map_len;
	void *map, *table = at_mapping_end(built, len, &map, &map_len);
	uint64_t iseq;
	int bad = 0;

	for (uint32_t i = 0; i < n; i++)
		lines[i] = (int32_t)(1000 + 3 * i);
	iseq = fake_iseq(&f, embed_string(label, "handler"), embed_string(path, "/srv/x.rb"),
			 FIX(999));
	fake_lines(&f, lines, n, NULL, addr(table));
	rbframes__read_iseq(n_, (uint32_t)getpid(), iseq, where_of(iseq, 0));
	/* read once, at first sight: the table can go */
	munmap(map, map_len);
	for (uint32_t i = 0; i < insns; i++)
		bad += name_at(n_, iseq, pc_of(i)).line !=
		       (uint32_t)expected_line(pos, lines, n, i);
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_STR(name_at(n_, iseq, pc_of(0)).label, "handler");
	rbframes__free(n_);
}

static void test_succ_lines(void)
{
	/* blocks with no position between those that have one */
	static const uint32_t sparse[] = { 0, 5, 60, 2000, 2001, 4999 };
	/* all in the immediate part, whose words end with the last one needed */
	static const uint32_t imm[] = { 0, 2, 9, 17, 19 };
	static uint32_t pos[MAX_ENTRIES];

	check_succ_iseq(sparse, ARRAY_SIZE(sparse), 5000);
	check_succ_iseq(imm, ARRAY_SIZE(imm), 20);
	check_succ_iseq(pos, random_positions(pos, 54, 3), 54);
	check_succ_iseq(pos, random_positions(pos, 3000, 6), 3000);
	check_succ_iseq(pos, random_positions(pos, 8000, 300), 8000);
}

/* A symbol table (core/runtimes/ruby/rbruntime.h) naming serial, and a method entry called by it. */
static struct {
	uint32_t last_id;
	uint64_t str_sym;
	uint64_t ids; /* an Array of Arrays */
	uint64_t ids_obj[5], chunks[2], chunk_obj[2][5], entries[1024];
	uint64_t name_obj[5];
	uint64_t me[5];
} symbols __attribute__((aligned(8)));

static struct rbframes *namer_with_symbols(uint64_t serial, const char *name)
{
	struct rbruntime rr = runtime();
	struct rbframes *n = rbframes__new();

	memset(&symbols, 0, sizeof(symbols));
	symbols.last_id = 1000;
	symbols.ids = heap_array(symbols.ids_obj, symbols.chunks, 2);
	symbols.chunks[0] = heap_array(symbols.chunk_obj[0], symbols.entries, 1024);
	symbols.chunks[1] = heap_array(symbols.chunk_obj[1], symbols.entries, 1024);
	symbols.entries[serial % 512 * 2] = embed_string(symbols.name_obj, name);
	/* an ID past the operators' is its serial << 4, its scope in the low bits */
	symbols.me[3] = serial << 4 | 1;
	rr.off.me_called_id = 24;
	rr.off.last_op_id = 0xa9;
	rr.symbols_last_id = addr(&symbols.last_id);
	rr.symbols_ids = addr(&symbols.ids);
	CHECK(n != NULL);
	CHECK_EQ_INT(rbframes__add_process(n, (uint32_t)getpid(), &rr, 0), 0);
	return n;
}

static void test_cfunc(void)
{
	struct rbframes *n = namer();
	struct rb_frame_name r = name_at(n, 0x1000, UNW_RB_CFUNC);

	/* no symbol table: unnamed */
	CHECK_EQ_STR(r.label, "<cfunc>");
	CHECK_EQ_STR(r.file, "<cfunc>");
	CHECK_EQ_INT(r.line, 0);
	rbframes__free(n);

	/* named by its ID, read when first seen: the name outlives the entry */
	n = namer_with_symbols(700, "each");
	rbframes__read_iseq(n, (uint32_t)getpid(), addr(symbols.me),
			    where_of(addr(symbols.me), UNW_RB_CFUNC));
	memset(symbols.name_obj, 0, sizeof(symbols.name_obj));
	CHECK_EQ_STR(name_at(n, addr(symbols.me), UNW_RB_CFUNC).label, "each");
	/* the same address as an iseq is another thing */
	CHECK_EQ_STR(name_at(n, addr(symbols.me), pc_of(0)).label, "<unknown>");
	rbframes__free(n);

	/* a serial past last_id, or its entry not a String: unnamed */
	n = namer_with_symbols(700, "each");
	symbols.last_id = 600;
	CHECK_EQ_STR(name_at(n, addr(symbols.me), UNW_RB_CFUNC).label, "<cfunc>");
	rbframes__free(n);
	n = namer_with_symbols(5, "each");
	symbols.entries[10] = FIX(3);
	CHECK_EQ_STR(name_at(n, addr(symbols.me), UNW_RB_CFUNC).label, "<cfunc>");
	rbframes__free(n);
}

static void test_bad_input(void)
{
	static char long_chars[2000];
	static uint64_t label[5], path[5], arr[5], big[5], neg[5], gone[5], empty[5];
	static uint8_t bad_table[48 + 80];
	static const uint32_t positions[] = { 0, 60 };
	static const int32_t lines[] = { 3, 4 };
	static struct fake f;
	struct rbframes *n = namer();
	uint64_t good = embed_string(label, "ok"), iseq;
	struct rb_frame_name r;

	/* not a String (an Array as label), a Fixnum as pathobj, a bad first_lineno */
	iseq = fake_iseq(&f, embed_array(arr, good, good), FIX(3), 0x10);
	r = name_at(n, iseq, pc_of(0));
	CHECK_EQ_STR(r.label, "<unknown>");
	CHECK_EQ_STR(r.file, "<unknown>");
	CHECK_EQ_INT(r.first_line, 0);
	rbframes__free(n);

	/* a length over the bound, a negative one; a pointer to nothing; an empty Array */
	memset(long_chars, 'a', sizeof(long_chars));
	n = namer();
	iseq = fake_iseq(&f, heap_string(big, long_chars, sizeof(long_chars)),
			 heap_string(neg, long_chars, (uint64_t)-1), FIX(-4));
	r = name_at(n, iseq, pc_of(0));
	CHECK_EQ_STR(r.label, "<unknown>");
	CHECK_EQ_STR(r.file, "<unknown>");
	CHECK_EQ_INT(r.first_line, 0);
	rbframes__free(n);
	n = namer();
	iseq = fake_iseq(&f, heap_string(gone, (const char *)0x1000, 4), heap_array(empty, NULL, 0),
			 8 /* Qnil */);
	r = name_at(n, iseq, pc_of(0));
	CHECK_EQ_STR(r.label, "<unknown>");
	CHECK_EQ_STR(r.file, "<unknown>");
	rbframes__free(n);

	/* more entries than the bound; entries at nothing; a table whose ranks are not */
	n = namer();
	iseq = fake_iseq(&f, good, embed_string(path, "/a.rb"), FIX(2));
	fake_lines(&f, lines, 2, positions, 0);
	memcpy(f.body + 136, &(uint32_t){ (1u << 20) + 1 }, 4);
	r = name_at(n, iseq, pc_of(0));
	CHECK_EQ_STR(r.label, "ok");
	CHECK_EQ_INT(r.line, 0);
	rbframes__free(n);
	n = namer();
	fake_lines(&f, lines, 2, positions, 0);
	put64(f.body, 120, 0x1000);
	CHECK_EQ_INT(name_at(n, iseq, pc_of(0)).line, 0);
	rbframes__free(n);
	n = namer();
	succ_build(bad_table, 100, positions, 2);
	bad_table[48] = 7; /* block 0's rank */
	fake_lines(&f, lines, 2, NULL, addr(bad_table));
	r = name_at(n, iseq, pc_of(62));
	CHECK_EQ_STR(r.file, "/a.rb");
	CHECK_EQ_INT(r.line, 0);
	rbframes__free(n);

	/* an iseq at nothing, or whose body is at nothing */
	n = namer();
	r = name_at(n, 0x1000, pc_of(0));
	CHECK_EQ_STR(r.label, "<unknown>");
	CHECK_EQ_STR(r.file, "<unknown>");
	CHECK_EQ_INT(r.line, 0);
	CHECK_EQ_STR(name_at(n, 0, pc_of(0)).label, "<unknown>");
	CHECK_EQ_STR(name_at(n, 0xffffffffffffff, pc_of(0)).label, "<unknown>");
	f.iseq[2] = 0x2000;
	CHECK_EQ_STR(name_at(n, addr(f.iseq), pc_of(0)).label, "<unknown>");
	/* not kept: read once it can be */
	f.iseq[2] = addr(f.body);
	CHECK_EQ_STR(name_at(n, addr(f.iseq), pc_of(0)).label, "ok");
	rbframes__free(n);
}

static void test_processes(void)
{
	static uint64_t label[5], path[5];
	static struct fake f;
	struct rbruntime rr = runtime();
	uint32_t pid = (uint32_t)getpid();
	struct rbframes *n = namer();
	uint64_t iseq =
		fake_iseq(&f, embed_string(label, "first"), embed_string(path, "/a.rb"), FIX(1));
	struct rb_frame_name r;

	/* read when first seen: what the process does with it after does not matter */
	rbframes__read_iseq(n, pid, iseq, where_of(iseq, 0));
	embed_string(label, "later");
	CHECK_EQ_STR(name_at(n, iseq, pc_of(0)).label, "first");
	/* the same interpreter again (a new mapping): still known */
	CHECK_EQ_INT(rbframes__add_process(n, pid, &rr, 0), 0);
	CHECK_EQ_STR(name_at(n, iseq, pc_of(0)).label, "first");
	/* another one (an exec): read again */
	CHECK_EQ_INT(rbframes__add_process(n, pid, &rr, 0x1000), 0);
	CHECK_EQ_STR(name_at(n, iseq, pc_of(0)).label, "later");

	/* a process never added, or removed */
	CHECK_EQ_INT(rbframes__name(n, pid + 1, iseq, pc_of(0), &r), -ENOENT);
	CHECK_EQ_STR(r.label, "<unknown>");
	CHECK_EQ_STR(r.file, "<unknown>");
	rbframes__read_iseq(n, pid + 1, iseq, 0);
	rbframes__remove_process(n, pid);
	CHECK_EQ_INT(rbframes__name(n, pid, iseq, pc_of(0), &r), -ENOENT);
	CHECK_EQ_INT(rbframes__name(n, pid, iseq, UNW_RB_CFUNC, &r), -ENOENT);
	rbframes__remove_process(n, pid);
	rbframes__free(n);
	rbframes__free(NULL);
}

/* The name of iseq at pc 0 in process pid's memory, as the namer reads it. */
static const char *label_of(struct rbframes *n, uint32_t pid, uint64_t iseq)
{
	struct rb_frame_name r;

	return rbframes__name(n, pid, iseq, where_of(iseq, pc_of(0)), &r) ? NULL : r.label;
}

/*
 * A forked child is named as its parent: from its own memory while it
 * lives (what the parent wrote after the fork is not seen), from its
 * parent's once it is gone; a process forked from one not known is not.
 */
static void test_fork(void)
{
	static uint64_t label[5], path[5];
	static struct fake f;
	struct rbframes *n = namer();
	uint32_t self = (uint32_t)getpid();
	uint64_t iseq =
		fake_iseq(&f, embed_string(label, "before"), embed_string(path, "/a.rb"), FIX(1));
	pid_t alive = fork(), gone;

	if (alive == 0) {
		pause();
		_exit(0);
	}
	gone = fork();
	if (gone == 0)
		_exit(0);
	CHECK(alive > 0 && gone > 0);
	waitpid(gone, NULL, 0);
	embed_string(label, "after");
	CHECK_EQ_INT(rbframes__fork(n, self, (uint32_t)alive), 0);
	CHECK_EQ_INT(rbframes__fork(n, self, (uint32_t)gone), 0);
	CHECK_EQ_STR(label_of(n, (uint32_t)alive, iseq), "before");
	CHECK_EQ_STR(label_of(n, (uint32_t)gone, iseq), "after");
	CHECK_EQ_INT(rbframes__fork(n, self + 1000000, self + 1000001), 0);
	CHECK(label_of(n, self + 1000001, iseq) == NULL);
	kill(alive, SIGKILL);
	waitpid(alive, NULL, 0);
	rbframes__free(n);
}

/* An iseq freed and its slot reused by another: each frame named after its own. */
static void test_slot_reused(void)
{
	static uint64_t label[5], label2[5], path[5];
	static struct fake f, g;
	struct rbframes *n = namer();
	uint64_t iseq =
		fake_iseq(&f, embed_string(label, "old"), embed_string(path, "/a.rb"), FIX(1));
	uint64_t old_where = where_of(iseq, 0);
	struct rb_frame_name r;

	CHECK_EQ_STR(name_at(n, iseq, 0).label, "old");
	/* the same slot, another body: the new one's frames have its tag */
	fake_iseq(&g, embed_string(label2, "new"), embed_string(path, "/a.rb"), FIX(1));
	f.iseq[2] = addr(g.body);
	CHECK(where_of(iseq, 0) != old_where);
	CHECK_EQ_STR(name_at(n, iseq, 0).label, "new");
	/* a frame recorded before keeps the old name */
	CHECK_EQ_INT(rbframes__name(n, (uint32_t)getpid(), iseq, old_where, &r), 0);
	CHECK_EQ_STR(r.label, "old");
	rbframes__free(n);
}

int main(void)
{
	RUN(test_embedded_names);
	RUN(test_heap_names);
	RUN(test_layout_33);
	RUN(test_succ_lookup);
	RUN(test_succ_lines);
	RUN(test_cfunc);
	RUN(test_slot_reused);
	RUN(test_bad_input);
	RUN(test_processes);
	RUN(test_fork);
	return test_summary();
}
