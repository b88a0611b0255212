// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shard packer (core/unwind/shards.c), and the BPF unwinder's
 * mapping search and rules (bpf/unwind_step.h, compiled here as plain C).
 */
#include <stdlib.h>

#include "test.h"
#include "core/unwind/shards.h"
#include "core/unwind/unwind_table.h"
#include "core/unwind/encoder.h"
#include "bpf/unwind_step.h"

/* nr_funcs functions of func_rows rows each, every one closed by an END row. */
static struct unwind_table *table_new(size_t nr_funcs, size_t func_rows)
{
	struct unwind_table *t = calloc(1, sizeof(*t));
	uint32_t pc = 0x1000;

	t->rows = calloc(nr_funcs * func_rows, sizeof(*t->rows));
	for (size_t f = 0; f < nr_funcs; f++) {
		for (size_t r = 0; r < func_rows; r++) {
			struct table_row *row = &t->rows[t->nr_rows++];

			row->pc = pc;
			row->cfa = r + 1 == func_rows ? UNW_CFA_END : UNW_CFA_SP;
			row->cfa_off = 8 + 8 * r;
			pc += 4;
		}
		pc += 16;
	}
	return t;
}

static void table_free(struct unwind_table *t)
{
	free(t->rows);
	free(t);
}

/* Chunks cover the placed rows in order, each inside its shard. */
static void check_chunks(const struct shards *s, const struct shards_placement *pl)
{
	size_t next = 0;

	for (size_t i = 0; i < pl->nr_chunks; i++) {
		const struct shards_chunk *c = &pl->chunks[i];

		CHECK_EQ_INT(c->first_row, next);
		CHECK(c->low < c->high);
		CHECK(c->high <= shards__shard_rows(s));
		CHECK_EQ_INT(c->pc_lo, pl->table->rows[next].pc);
		next += c->high - c->low;
		if (i + 1 < pl->nr_chunks)
			CHECK_EQ_INT(c->pc_hi, pl->chunks[i + 1].pc_lo);
	}
	CHECK_EQ_INT(next, pl->rows_placed);
}

static void test_split_between_functions(void)
{
	struct shards_opts o = { .shard_rows = 100 };
	struct shards *s = shards__new(&o);
	struct unwind_table *t = table_new(25, 10); /* 250 rows */
	const struct shards_placement *pl = shards__add_table(s, "a", 1, t);
	struct shards_stats st;

	CHECK(pl != NULL);
	CHECK_EQ_INT(pl->id, 1);
	CHECK_EQ_INT(pl->nr_chunks, 3);
	CHECK_EQ_INT(pl->rows_unplaced, 0);
	for (size_t i = 0; i + 1 < pl->nr_chunks; i++) {
		const struct shards_chunk *c = &pl->chunks[i];
		size_t last = c->first_row + (c->high - c->low) - 1;

		/* Each split falls right after a function's END row. */
		CHECK_EQ_INT(t->rows[last].cfa, UNW_CFA_END);
	}
	check_chunks(s, pl);
	shards__stats(s, &st);
	CHECK_EQ_INT(st.shards, 3);
	CHECK_EQ_INT(st.rows_placed, 250);
	shards__free(s);
	table_free(t);
}

static void test_tiny_shards(void)
{
	struct shards_opts o = { .shard_rows = 4 };
	struct shards *s = shards__new(&o);
	struct unwind_table *t1 = table_new(3, 3), *t2 = table_new(5, 5);
	const struct shards_placement *p1 = shards__add_table(s, "one", 3, t1);
	const struct shards_placement *p2 = shards__add_table(s, "two", 3, t2);
	struct shards_stats st;

	CHECK(p1 && p2);
	CHECK_EQ_INT(p2->id, 2);
	CHECK_EQ_INT(p1->rows_placed, 9);
	CHECK_EQ_INT(p2->rows_placed, 25);
	check_chunks(s, p1);
	check_chunks(s, p2);
	shards__stats(s, &st);
	CHECK_EQ_INT(st.shards, (9 + 25 + 3) / 4);
	shards__free(s);
	table_free(t1);
	table_free(t2);
}

static void test_cap_leaves_rows_unplaced(void)
{
	struct shards_opts o = { .shard_rows = 10, .max_shards = 2 };
	struct shards *s = shards__new(&o);
	struct unwind_table *t = table_new(7, 5), *t2 = table_new(1, 5);
	const struct shards_placement *pl = shards__add_table(s, "big", 3, t);
	const struct shards_placement *p2;
	struct shards_stats st;

	CHECK(pl != NULL);
	CHECK_EQ_INT(pl->rows_placed, 20);
	CHECK_EQ_INT(pl->rows_unplaced, 15);
	check_chunks(s, pl);
	/* Full: a later table is accepted with nothing placed, not an error. */
	p2 = shards__add_table(s, "more", 4, t2);
	CHECK(p2 != NULL);
	CHECK_EQ_INT(p2->nr_chunks, 0);
	CHECK_EQ_INT(p2->rows_unplaced, 5);
	shards__stats(s, &st);
	CHECK_EQ_INT(st.rows_unplaced, 20);
	CHECK_EQ_INT(st.shards, 2);
	shards__free(s);
	table_free(t);
	table_free(t2);
}

/* A packer for shards of the rows record loads, as record sets it up. */
static struct shards *record_packer(void)
{
	struct encoder *enc = encoder__new(ENCODER_COMPACT);
	const struct encoder_geometry *g = encoder__geometry(enc);
	struct shards *s = shards__new(&(struct shards_opts){
		.shard_rows = g->shard_rows,
		.max_chunks = g->max_chunks,
		.split_shift = g->split_shift,
	});

	encoder__free(enc);
	return s;
}

/*
 * Split only between pages: each chunk starts a page, a page that does not
 * fit the room left starts a new shard, and one larger than a shard ends
 * what is placed of its table.
 */
static void test_split_between_pages(void)
{
	struct shards_opts o = { .shard_rows = 100, .split_shift = 8 };
	struct shards *s = shards__new(&o);
	struct unwind_table *t = table_new(25, 10);   /* 250 rows, 4 + 16 bytes apart */
	struct unwind_table *big = table_new(1, 300); /* 300 rows of 4 bytes: 4 pages of 64 */
	const struct shards_placement *pl = shards__add_table(s, "a", 1, t), *pb;

	CHECK(pl != NULL);
	CHECK_EQ_INT(pl->rows_unplaced, 0);
	CHECK(pl->nr_chunks >= 3);
	for (size_t i = 1; i < pl->nr_chunks; i++) {
		const struct shards_chunk *c = &pl->chunks[i];

		CHECK(c->pc_lo >> 8 != t->rows[c->first_row - 1].pc >> 8);
	}
	check_chunks(s, pl);
	shards__free(s);
	/* pages of 64 rows in shards of 100: one page a shard, and the pcs run on */
	o.split_shift = 8;
	o.shard_rows = 100;
	s = shards__new(&o);
	pb = shards__add_table(s, "big", 3, big);
	CHECK(pb != NULL);
	CHECK_EQ_INT(pb->rows_unplaced, 0);
	check_chunks(s, pb);
	for (size_t i = 0; i < pb->nr_chunks; i++)
		CHECK(pb->chunks[i].high - pb->chunks[i].low <= 64);
	shards__free(s);
	/* pages of 64 rows in shards of 50: nothing fits */
	o.shard_rows = 50;
	s = shards__new(&o);
	pb = shards__add_table(s, "big", 3, big);
	CHECK(pb != NULL);
	CHECK_EQ_INT(pb->rows_placed, 0);
	CHECK_EQ_INT(pb->rows_unplaced, 300);
	shards__free(s);
	table_free(t);
	table_free(big);
}

static void test_dedup_by_build_id(void)
{
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3 };
	struct shards *s = record_packer();
	struct unwind_table *t = table_new(4, 4);
	const struct shards_placement *p1 = shards__add_table(s, id, sizeof(id), t);
	const struct shards_placement *p2 = shards__add_table(s, id, sizeof(id), t);
	struct shards_stats st;

	CHECK(p1 != NULL);
	CHECK(p1 == p2);
	CHECK(shards__find(s, id, sizeof(id)) == p1);
	CHECK(shards__find(s, id, 4) == NULL);
	shards__stats(s, &st);
	CHECK_EQ_INT(st.tables, 1);
	CHECK_EQ_INT(st.dedup_hits, 1);
	CHECK_EQ_INT(st.rows_placed, 16);
	CHECK_EQ_INT(shards__count(s), 1);
	shards__free(s);
	table_free(t);
}

/*
 * A placement taken early is still the same, readable placement after many
 * more tables made the packer grow its bookkeeping (ASan catches a stale one).
 */
static void test_placements_stay_valid(void)
{
	struct shards_opts o = { .shard_rows = 64 };
	struct shards *s = shards__new(&o);
	struct unwind_table *t = table_new(3, 4);
	const struct shards_placement *first, *again;
	uint32_t key;

	key = 0;
	first = shards__add_table(s, &key, sizeof(key), t);
	CHECK(first != NULL);
	for (key = 1; key < 200; key++)
		CHECK(shards__add_table(s, &key, sizeof(key), t) != NULL);
	CHECK_EQ_INT(shards__count(s), 200);
	key = 0;
	again = shards__find(s, &key, sizeof(key));
	CHECK(again == first);
	CHECK(shards__get(s, 0) == first);
	CHECK_EQ_INT(first->id, 1);
	CHECK(first->table == t);
	CHECK_EQ_INT(first->rows_placed, 12);
	CHECK_EQ_INT(first->nr_chunks, 1);
	CHECK_EQ_INT(first->chunks[0].shard, 0);
	CHECK_EQ_INT(first->chunks[0].low, 0);
	CHECK_EQ_INT(first->chunks[0].high, 12);
	check_chunks(s, first);
	CHECK_EQ_INT(shards__get(s, 199)->id, 200);
	shards__free(s);
	table_free(t);
}

static void test_mapping_search(void)
{
	struct unw_proc *p = calloc(1, sizeof(*p));
	int bad = 0;

	for (uint32_t i = 0; i < UNW_MAPS_MAX; i++) {
		p->maps[i].start = 0x10000 + i * 0x1000;
		p->maps[i].end = p->maps[i].start + 0x800;
	}
	for (uint32_t nr = 0; nr <= UNW_MAPS_MAX + 17; nr += 17) {
		p->nr_maps = nr > UNW_MAPS_MAX ? UNW_MAPS_MAX : nr; /* 0, 17, ... 255, then all */
		for (uint64_t pc = 0xf000; pc < 0x10000 + (UNW_MAPS_MAX + 1) * 0x1000;
		     pc += 0x400) {
			long want = -1, got = unw_proc__find_mapping(p, pc);

			for (uint32_t i = 0; i < p->nr_maps; i++)
				if (pc >= p->maps[i].start && pc < p->maps[i].end)
					want = i;
			if (got != want)
				bad++;
		}
	}
	CHECK_EQ_INT(bad, 0);
	/* A pc read from a stack may be anything: none of these is in a mapping. */
	CHECK_EQ_INT(unw_proc__find_mapping(p, 0), -1);
	CHECK_EQ_INT(unw_proc__find_mapping(p, 1ULL << 63), -1);
	CHECK_EQ_INT(unw_proc__find_mapping(p, UINT64_MAX), -1);
	/* Mappings high in the address space, as a stack's or the vDSO's. */
	p->nr_maps = 2;
	p->maps[0].start = 0x7ffc00000000ULL;
	p->maps[0].end = 0x7ffc00021000ULL;
	p->maps[1].start = 0xffffffffff600000ULL;
	p->maps[1].end = 0xffffffffff601000ULL;
	CHECK_EQ_INT(unw_proc__find_mapping(p, 0x7ffc00020ff8ULL), 0);
	CHECK_EQ_INT(unw_proc__find_mapping(p, 0xffffffffff600400ULL), 1);
	CHECK_EQ_INT(unw_proc__find_mapping(p, 0xffffffffff601000ULL), -1);
	CHECK_EQ_INT(unw_proc__find_mapping(p, 0x8000000000000000ULL), -1);
	free(p);
}

/* The branch-free comparison of the searches, at the edges of 64 bits. */
static void test_after(void)
{
	const uint64_t v[] = { 0,
			       1,
			       2,
			       0x7fffffffffffffffULL,
			       1ULL << 63,
			       (1ULL << 63) + 1,
			       UINT64_MAX - 1,
			       UINT64_MAX,
			       0x7ffc00000000ULL };
	int bad = 0;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++)
			if (unw_u64__after(v[i], v[j]) != (v[i] > v[j]))
				bad++;
	CHECK_EQ_INT(bad, 0);
}

/* The CFA and frame pointer rules of the x86_64 rows, as the walker applies them. */
static void test_row_rules(void)
{
	struct unw_rule r = { .cfa = UNW_CFA_SP, .cfa_off = 16 };
	const uint64_t sp = 0x7ffc1000, bp = 0x7ffc2000;
	int deref;

	CHECK_EQ_INT(unw_rule__cfa(&r, 0x1000, sp, bp, &deref), sp + 16);
	CHECK_EQ_INT(deref, 0);
	r.cfa = UNW_CFA_FP;
	r.cfa_off = -8;
	CHECK_EQ_INT(unw_rule__cfa(&r, 0x1000, sp, bp, &deref), bp - 8);
	/* PLT: rsp + 8, plus 8 from the 11th byte of each 16-byte entry on. */
	r.cfa = UNW_CFA_PLT;
	r.cfa_off = 8;
	r.aux_off = 11;
	CHECK_EQ_INT(unw_rule__cfa(&r, 0x1000 + 10, sp, bp, &deref), sp + 8);
	CHECK_EQ_INT(unw_rule__cfa(&r, 0x1000 + 11, sp, bp, &deref), sp + 16);
	/* *(rbp - 8) + 16: gcc's stack realignment. */
	r.cfa = UNW_CFA_DEREF_FP;
	r.cfa_off = -8;
	r.aux_off = 16;
	CHECK_EQ_INT(unw_rule__cfa(&r, 0x1000, sp, bp, &deref), bp - 8);
	CHECK_EQ_INT(deref, 1);
	r.cfa = UNW_CFA_END;
	CHECK_EQ_INT(unw_rule__cfa(&r, 0x1000, sp, bp, &deref), 0);
	CHECK(!unw_rule__usable(&r));
	r.cfa = UNW_CFA_SP;
	r.fp = UNW_FP_AT_CFA;
	r.fp_off = -16;
	CHECK(unw_rule__usable(&r));
	CHECK_EQ_INT(unw_rule__fp_addr(&r, sp + 16, sp, bp), sp);
	CHECK_EQ_INT(unw_rule__ra_addr(&r, sp + 16, sp), sp + 8);
	CHECK(!unw_rule__signal(&r));
	r.fp = UNW_FP_UNCHANGED;
	CHECK_EQ_INT(unw_rule__fp_addr(&r, sp + 16, sp, bp), 0);
	r.fp = UNW_FP_UNSUPPORTED;
	CHECK(!unw_rule__usable(&r));
	r.fp = UNW_FP_UNCHANGED;
	r.ra = UNW_RA_UNDEFINED;
	CHECK(unw_rule__usable(&r));
	CHECK(unw_hash__add(UNW_HASH_INIT, 0x1234) != unw_hash__add(UNW_HASH_INIT, 0x1235));
}

/*
 * A signal frame, as glibc's __restore_rt describes it: the kernel's
 * rt_sigframe at sp, the interrupted rsp at sp+160, rbp at sp+120 and rip
 * at sp+168 (the ucontext's sigcontext). One step through it, reading a
 * hand-made frame, gives the interrupted registers, and the next pc is
 * marked as an interrupted instruction.
 */
static void test_signal_frame_step(void)
{
	const struct unw_rule r = { .cfa = UNW_CFA_SIGNAL,
				    .cfa_off = 160,
				    .fp = UNW_FP_AT_SP,
				    .fp_off = 120,
				    .ra = UNW_RA_AT_SP,
				    .aux_off = 168 };
	uint64_t frame[64] = { 0 };
	const uint64_t sp = (uint64_t)(uintptr_t)frame;
	uint64_t cfa, fp_addr, ra_addr;
	struct unw_rule bad = r;
	int deref;

	frame[160 / 8] = sp + 0x1000; /* the interrupted rsp */
	frame[120 / 8] = sp + 0x1230; /* its rbp */
	frame[168 / 8] = 0x401234;    /* its rip */
	CHECK(unw_rule__usable(&r));
	CHECK(unw_rule__signal(&r));
	cfa = unw_rule__cfa(&r, 0x1000, sp, 0xdead, &deref);
	CHECK_EQ_INT(deref, 1);
	CHECK_EQ_INT(cfa, sp + 160);
	/* the pc's offset is not added to the CFA read */
	cfa = *(uint64_t *)(uintptr_t)cfa + unw_rule__cfa_add(&r);
	CHECK_EQ_INT(cfa, sp + 0x1000);
	fp_addr = unw_rule__fp_addr(&r, cfa, sp, 0xdead);
	ra_addr = unw_rule__ra_addr(&r, cfa, sp);
	CHECK_EQ_INT(fp_addr, sp + 120);
	CHECK_EQ_INT(ra_addr, sp + 168);
	CHECK_EQ_INT(*(uint64_t *)(uintptr_t)fp_addr, sp + 0x1230);
	CHECK_EQ_INT(*(uint64_t *)(uintptr_t)ra_addr, 0x401234);
	/* the rules of a signal frame only come together */
	bad.ra = UNW_RA_AT_CFA;
	CHECK(!unw_rule__usable(&bad));
	bad = r;
	bad.cfa = UNW_CFA_DEREF_SP;
	CHECK(!unw_rule__usable(&bad));
	CHECK_EQ_INT(unw_rule__cfa_add(&bad), 168);
	CHECK(!unw_rule__signal(&bad));
}

int main(void)
{
	RUN(test_split_between_functions);
	RUN(test_tiny_shards);
	RUN(test_cap_leaves_rows_unplaced);
	RUN(test_dedup_by_build_id);
	RUN(test_placements_stay_valid);
	RUN(test_split_between_pages);
	RUN(test_mapping_search);
	RUN(test_after);
	RUN(test_row_rules);
	RUN(test_signal_frame_step);
	return test_summary();
}
