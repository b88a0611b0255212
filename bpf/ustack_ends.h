/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A user stack deeper than the UNW_DEPTH_MAX words a stored stack holds
 * keeps both ends (struct unw_ustack): its first UNW_STACK_LEAF words stay
 * where they are, the rest of the array is a ring that holds the last words
 * walked, so the walk goes on to the root in a fixed space. The BPF walk
 * pushes words with unw_ustack__push; user space reads a stack in order
 * with unw_ustack__unfold, which puts one frame of kind UNW_FRAME_ELIDED,
 * the number of frames left out, between the leaf's frames and the
 * root's. Written once for both sides, as bpf/unwind_step.h, so that the
 * unit tests run the BPF half too.
 *
 * Frames are one word or two (an interpreter's), so the ends are cut
 * between frames: the leaf's end at the last frame that starts in its
 * UNW_STACK_LEAF words, the root's after a frame whose second word is the
 * oldest in the ring. Only BPF can tell the latter (the second word of an
 * interpreter's frame can look like anything), which it says in the
 * stack's frames (UNW_USTACK_RING_SPLIT).
 */
#ifndef UNWPROF_USTACK_ENDS_H
#define UNWPROF_USTACK_ENDS_H

#ifndef __bpf__
#include <errno.h>
#endif

#include "abi.h"

#ifndef UNW_INLINE
#ifdef __bpf__
#define UNW_INLINE static __always_inline
#else
#define UNW_INLINE static inline
#endif
#endif

/* Words a walk may push: far more than UNW_WALK_MAX frames of any kind take. */
#define UNW_USTACK_WORDS_MAX (1u << 24)
#define UNW_USTACK_RING (UNW_DEPTH_MAX - UNW_STACK_LEAF)

/* The words of a frame whose first word is word: two for an interpreter's. */
UNW_INLINE __u32 unw_frame__words(__u64 word)
{
	return (word >> UNW_FRAME_KIND_SHIFT) == UNW_FRAME_NATIVE ? 1 : 2;
}

/*
 * Appends word to st; *opens says whether the last word pushed began a
 * frame of two (0 for an empty stack), which BPF keeps beside the stack.
 * -1 when the stack holds UNW_USTACK_WORDS_MAX words already.
 */
UNW_INLINE int unw_ustack__push(struct unw_ustack *st, __u8 *opens, __u64 word)
{
	__u32 nr = st->nr, slot = nr, frames = st->frames & ~UNW_USTACK_RING_SPLIT;
	__u32 split = st->frames & UNW_USTACK_RING_SPLIT;
	int start = !*opens;

	if (nr >= UNW_USTACK_WORDS_MAX)
		return -1;
	*opens = start && unw_frame__words(word) == 2;
	if (nr >= UNW_STACK_LEAF) {
		slot = UNW_STACK_LEAF + (nr & (UNW_USTACK_RING - 1));
		if (nr == UNW_STACK_LEAF) {
			split = start ? 0 : UNW_USTACK_RING_SPLIT;
		} else if (nr >= UNW_DEPTH_MAX) {
			/* The oldest word goes: the next is a second word if it began a frame of two. */
			__u64 old = st->pcs[slot & (UNW_DEPTH_MAX - 1)];

			split = !split && unw_frame__words(old) == 2 ? UNW_USTACK_RING_SPLIT : 0;
		}
	}
	st->pcs[slot & (UNW_DEPTH_MAX - 1)] = word;
	st->nr = nr + 1;
	st->frames = (frames + start) | split;
	return 0;
}

#ifndef __bpf__
/*
 * The words of st in order, leaf first, into out (room for UNW_DEPTH_MAX):
 * a stack of up to UNW_DEPTH_MAX words as it is; a deeper one as the whole
 * frames of its first UNW_STACK_LEAF words, a frame UNW_FRAME_ELIDED of the
 * frames left out, then the last whole frames of the ring that fit.
 * Returns the words written, or -EINVAL for a stack whose counts cannot
 * be (read from BPF's map: not to be trusted).
 */
static inline int unw_ustack__unfold(const struct unw_ustack *st, __u64 *out)
{
	__u32 frames = st->frames & ~UNW_USTACK_RING_SPLIT, leaf = 0, leaf_frames = 0;
	__u32 nr = st->nr, kept = 0, left = 0, room, k, i;
	int keep = 0;

	if (nr <= UNW_DEPTH_MAX) {
		for (i = 0; i < nr; i++)
			out[i] = st->pcs[i];
		return (int)nr;
	}
	if (nr > UNW_USTACK_WORDS_MAX)
		return -EINVAL;
	/* The leaf's end: the last frame to start in its words. */
	for (i = 0; i <= UNW_STACK_LEAF; i += unw_frame__words(st->pcs[i])) {
		leaf = i;
		if (i == UNW_STACK_LEAF)
			break;
		leaf_frames++;
	}
	if (leaf < UNW_STACK_LEAF)
		leaf_frames--; /* the frame at leaf runs past the leaf's words: not kept */
	for (k = 0; k < leaf; k++)
		out[k] = st->pcs[k];
	room = UNW_DEPTH_MAX - 1 - leaf;
	k = leaf + 1;
	i = nr - UNW_USTACK_RING + ((st->frames & UNW_USTACK_RING_SPLIT) ? 1 : 0);
	for (; i < nr; i++) {
		__u64 word = st->pcs[UNW_STACK_LEAF + (i & (UNW_USTACK_RING - 1))];

		if (!left) {
			left = unw_frame__words(word);
			keep = nr - i <= room;
			kept += keep;
		}
		left--;
		if (keep)
			out[k++] = word;
	}
	if (leaf_frames + kept > frames)
		return -EINVAL;
	out[leaf] = UNW_FRAME_WORD(UNW_FRAME_ELIDED, frames - leaf_frames - kept);
	return (int)k;
}
#endif

#endif
