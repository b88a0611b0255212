// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two ends of a deep user stack (bpf/ustack_ends.h): the words BPF
 * pushes, read back in order by user space, against a model that keeps the
 * same frames from the list of frames pushed. Stacks of one-word (native)
 * and two-word (interpreter) frames, whose second words look like any
 * kind, around each size where something changes (the leaf's end, a full
 * stored stack, the ring's first turn), and many random ones, so that both
 * ends are cut before, on and after a frame of two. Then stacks that cannot
 * be: refused, never read past their words.
 */
#include <stdint.h>
#include <stdlib.h>

#include "bpf/ustack_ends.h"
#include "test.h"

#define FRAMES_MAX 40000

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A stack as frames: where each starts in the words, the words one after the other. */
struct model {
	__u64 words[2 * FRAMES_MAX];
	uint32_t start[FRAMES_MAX];
	uint32_t nr_words, nr_frames;
};

static struct model m;
static struct unw_ustack st;

/* Appends a native frame (two == 0) or an interpreter's, whose second word is any. */
static void model_add(int two)
{
	m.start[m.nr_frames++] = m.nr_words;
	if (!two) {
		m.words[m.nr_words++] = (next_random() & 0x7fffffffffffULL) | 0x1000;
		return;
	}
	m.words[m.nr_words++] = UNW_FRAME_WORD(UNW_FRAME_PYTHON, next_random());
	m.words[m.nr_words++] = next_random() >> (next_random() % 64);
}

/*
 * What the reader must give for the model: every word of a stack that fits;
 * else the whole frames within the first UNW_STACK_LEAF words, the number
 * of frames left out, then the last whole frames that fit the rest.
 */
static uint32_t model_expect(__u64 *out)
{
	uint32_t leaf = 0, leaf_frames = 0, first_root, k = 0, room;

	if (m.nr_words <= UNW_DEPTH_MAX) {
		memcpy(out, m.words, m.nr_words * sizeof(*out));
		return m.nr_words;
	}
	while (leaf_frames < m.nr_frames) {
		uint32_t end = leaf_frames + 1 < m.nr_frames ? m.start[leaf_frames + 1] :
							       m.nr_words;

		if (end > UNW_STACK_LEAF)
			break;
		leaf = end;
		leaf_frames++;
	}
	room = UNW_DEPTH_MAX - 1 - leaf;
	first_root = m.nr_frames;
	while (first_root > 0 && m.nr_words - m.start[first_root - 1] <= room)
		first_root--;
	memcpy(out, m.words, leaf * sizeof(*out));
	k = leaf;
	out[k++] = UNW_FRAME_WORD(UNW_FRAME_ELIDED, first_root - leaf_frames);
	for (uint32_t i = m.start[first_root]; i < m.nr_words; i++)
		out[k++] = m.words[i];
	return k;
}

/* Pushes the model's words as the walk does, reads them back, compares. */
static void check_model(const char *what)
{
	static __u64 got[UNW_DEPTH_MAX], want[UNW_DEPTH_MAX];
	__u8 opens = 0;
	uint32_t n;
	int nr;

	memset(&st, 0, sizeof(st));
	for (uint32_t i = 0; i < m.nr_words; i++)
		CHECK_EQ_INT(unw_ustack__push(&st, &opens, m.words[i]), 0);
	CHECK_EQ_INT(st.nr, m.nr_words);
	CHECK_EQ_INT(st.frames & ~UNW_USTACK_RING_SPLIT, m.nr_frames);
	nr = unw_ustack__unfold(&st, got);
	n = model_expect(want);
	CHECK_EQ_INT(nr, n);
	CHECK(nr <= UNW_DEPTH_MAX);
	if (nr == (int)n && memcmp(got, want, n * sizeof(*got)) != 0) {
		test_failures++;
		fprintf(stderr, "%s: %u words, %u frames: read back otherwise\n", what, m.nr_words,
			m.nr_frames);
	}
}

static void build(uint32_t natives_before, int two_at, uint32_t natives_after)
{
	m.nr_words = m.nr_frames = 0;
	for (uint32_t i = 0; i < natives_before; i++)
		model_add(0);
	if (two_at)
		model_add(1);
	for (uint32_t i = 0; i < natives_after; i++)
		model_add(0);
}

/* Native frames only, at each size where the layout changes. */
static void test_native_sizes(void)
{
	static const uint32_t sizes[] = { 0,	1,    511,  512,  513,	1023, 1024,
					  1025, 1535, 1536, 1537, 2048, 5006, 16384 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		build(sizes[i], 0, 0);
		check_model("native");
	}
	/* recurse 5000 deep: bottom, 5001 descend, main and three of libc's start. */
	build(5006, 0, 0);
	check_model("recursion");
	CHECK_EQ_INT(st.nr, 5006);
	{
		__u64 out[UNW_DEPTH_MAX];

		CHECK_EQ_INT(unw_ustack__unfold(&st, out), UNW_DEPTH_MAX);
		CHECK_EQ_INT(out[UNW_STACK_LEAF], UNW_FRAME_WORD(UNW_FRAME_ELIDED, 5006 - 1023));
	}
}

/*
 * A frame of two where the leaf's words end, and at every place in the
 * ring: its oldest word, the first or the second of the frame.
 */
static void test_split_frames(void)
{
	for (uint32_t before = 508; before <= 514; before++) {
		for (uint32_t after = 400; after <= 1600; after++) {
			build(before, 1, after);
			check_model("split");
		}
	}
}

/* Random stacks of both kinds of frame, of every depth up to several rings. */
static void test_random(void)
{
	for (int round = 0; round < 3000; round++) {
		uint32_t frames = next_random() % 3000;
		unsigned int share = next_random() % 100;

		m.nr_words = m.nr_frames = 0;
		for (uint32_t i = 0; i < frames; i++)
			model_add(next_random() % 100 < share);
		check_model("random");
	}
}

/* A stack holds UNW_USTACK_WORDS_MAX words at most: the push after says so, and changes nothing. */
static void test_full(void)
{
	__u8 opens = 0;

	memset(&st, 0, sizeof(st));
	st.nr = UNW_USTACK_WORDS_MAX;
	CHECK_EQ_INT(unw_ustack__push(&st, &opens, 0x1000), -1);
	CHECK_EQ_INT(st.nr, UNW_USTACK_WORDS_MAX);
}

/* Counts that no walk gives (the map's values are not to be trusted): refused, never a read past the words. */
static void test_bad_counts(void)
{
	__u64 out[UNW_DEPTH_MAX];

	build(3000, 0, 0);
	check_model("before the lies");
	st.frames = 10; /* fewer frames than the ends keep */
	CHECK_EQ_INT(unw_ustack__unfold(&st, out), -EINVAL);
	st.frames = 3000;
	st.nr = UNW_USTACK_WORDS_MAX + 1;
	CHECK_EQ_INT(unw_ustack__unfold(&st, out), -EINVAL);
	for (int round = 0; round < 20000; round++) {
		int nr;

		for (int i = 0; i < UNW_DEPTH_MAX; i++)
			st.pcs[i] = next_random() >> (next_random() % 64);
		st.nr = (uint32_t)(next_random() % (3 * UNW_DEPTH_MAX));
		st.frames = (uint32_t)next_random();
		nr = unw_ustack__unfold(&st, out);
		CHECK(nr == -EINVAL || (nr >= 0 && nr <= UNW_DEPTH_MAX));
	}
}

int main(void)
{
	RUN(test_native_sizes);
	RUN(test_split_frames);
	RUN(test_random);
	RUN(test_full);
	RUN(test_bad_counts);
	return test_summary();
}
