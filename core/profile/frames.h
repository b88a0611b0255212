/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A profile's frames, shared by every writer that names them (folded, the
 * flame graph, report): what each location's frames are, the one namer of
 * a frame, and the one walk of a sample's frames root first.
 *
 * A location of machine code is one frame per source line (profile.h:
 * the functions the compiler inlined there, innermost first), else one;
 * root first, its first frame is the function that holds the code and the
 * ones after it were inlined into the frame before. A location of an
 * interpreter (frames__kind()) is one frame, its function at its line.
 * The frames of every location are numbered root first, then the walk's
 * own two: [unwalked] in place of the user frames of an off-CPU sample
 * whose stack was not walked, [off-cpu] after an off-CPU sample's frames.
 *
 *	fr = frames__new(p);			 NULL and errno
 *	for (uint32_t i = 0; i < frames__nr(fr); i++)
 *		name = frames__name(fr, i, &opts);	 malloc'd
 *	frames__walk_start(&w, fr, sample, &walk_opts);
 *	while (frames__walk_next(&w, &step))	 root first: step.frame, .loc, .k
 *		...
 *	frames__free(fr);
 *
 * A frame is named by its function: the location's for its first frame,
 * else its source line's; without one, by where it is, "[FILE+0xOFFSET]"
 * (the basename of its mapping, "vdso" of "[vdso]", and the address's
 * offset in the file), or "[unknown]" outside every mapping. What a writer
 * adds to the name is an option of the namer (frames_name_opts).
 */
#ifndef UNWPROF_FRAMES_H
#define UNWPROF_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

/*
 * What a location's kind (profile_location.kind) is: the one place that
 * knows the kinds of profile.h, which the namer and the pprof writer and
 * reader ask.
 */
struct frame_kind {
	const char *name; /* "native", or the name of the runtime whose frames they are */
	/* an interpreter's function: one frame a location, its function at its line */
	bool interpreted;
	/* pprof: the made-up mapping its frames are in ("[NAME]"); NULL: their own */
	const char *pprof_mapping;
};

/* The kind numbered kind; NULL past the last (they are numbered from 0 up). */
const struct frame_kind *frames__kind(uint8_t kind);

/* Numbering */

struct frames;

/* Numbers the frames of every location of p; NULL and errno (ENOMEM, E2BIG). */
struct frames *frames__new(const struct profile *p);
void frames__free(struct frames *fr);

/* The frames numbered: every location's, then the walk's own two. */
uint32_t frames__nr(const struct frames *fr);

/* The walk's own frames, after every location's: frames__own(fr, FRAMES_OFF_CPU). */
enum frames_own {
	FRAMES_UNWALKED, /* [unwalked]: the user frames of an off-CPU sample not walked */
	FRAMES_OFF_CPU,	 /* [off-cpu]: the last frame of an off-CPU sample */
	FRAMES_NR_OWN,
};
uint32_t frames__own(const struct frames *fr, enum frames_own own);

/*
 * The location of frame i, PROFILE_NONE for one of the walk's own; *k its
 * place among the location's frames, root first (> 0: inlined into the
 * frame before), or its enum frames_own.
 */
uint32_t frames__location(const struct frames *fr, uint32_t i, uint32_t *k);

/* Names */

/* After a name: the marks of a frame the compiler inlined and of a kernel frame. */
enum frames_marks {
	FRAMES_MARKS_NONE, /* none (report, whose tree says "(inline)" itself) */
	FRAMES_MARKS_BOTH, /* "_[i]" when inlined, then "_[k]" in the kernel (folded) */
	FRAMES_MARKS_ONE,  /* "_[k]" in the kernel, else "_[i]" when inlined (flame graph) */
};

/* After a name, before its marks: its source line, where known. */
enum frames_line {
	FRAMES_LINE_NONE,
	FRAMES_LINE_NUMBER, /* ":LINE" (folded --lines) */
	FRAMES_LINE_PLACE,  /* " FILE:LINE", "??" for no file (report --lines, as pprof -lines) */
};

/*
 * How a writer names frames. The line of a frame is the one being run in
 * the innermost function, the one of the call in the functions it is
 * inlined into.
 */
struct frames_name_opts {
	enum frames_marks marks;
	enum frames_line line;
	/*
	 * An interpreter's frame as py-spy writes it (folded), whatever the
	 * line and the marks: "QUALNAME (FILE:LINE)", "<unknown>" without a
	 * name; else as any frame.
	 */
	bool interpreter_place;
	/*
	 * A function inlined without a name (in its debug information) is
	 * named as its location (report), not by its address.
	 */
	bool unnamed_as_location;
};

/*
 * The function frame i is of, NULL when it has none (named by its
 * address) or is one of the walk's own.
 */
const char *frames__function(const struct frames *fr, uint32_t i, const struct frames_name_opts *o);

/*
 * Frame i's name as o says, malloc'd, as it is: the writer makes it safe
 * for its format. NULL and errno ENOMEM.
 */
char *frames__name(const struct frames *fr, uint32_t i, const struct frames_name_opts *o);

/* The process of s as the first frame of a stack: "comm", "comm-PID", "comm-PID/TID (THREAD)". */
#define FRAMES_PROCESS_MAX 64
void frames__process_name(const struct profile_sample *s, bool pid, bool tid,
			  char out[FRAMES_PROCESS_MAX]);

/* Walk */

struct frames_walk_opts {
	bool kernel; /* the kernel frames too */
	/*
	 * The walk's own frames: [unwalked] in place of an unwalked sample's
	 * user frames, [off-cpu] after an off-CPU sample's frames.
	 */
	bool own;
};

/* One step of the walk: frame number frame, frame k of location loc (frames__location()). */
struct frames_step {
	uint32_t frame;
	uint32_t loc;
	uint32_t k;
};

/*
 * A sample's frames root first: its user frames, its kernel frames, each
 * location's in order. Its step is inline: writers compare stacks by
 * walking them, in their sorts.
 */
struct frames_walk {
	const uint32_t *first; /* of each location's frames, and past the last */
	uint32_t own;	       /* the first of the walk's own frames */
	const struct profile_sample *s;
	bool unwalked;	  /* [unwalked] in place of the user frames */
	uint32_t nr_user; /* user locations: 1 for [unwalked] */
	uint32_t nr_kernel;
	uint32_t nr_locs; /* and [off-cpu] */
	uint32_t next;	  /* the next location: user ones root first, then kernel ones */
	uint32_t loc;	  /* the location being walked */
	uint32_t k, end;  /* its next frame and its end, numbers */
};

void frames__walk_start(struct frames_walk *w, const struct frames *fr,
			const struct profile_sample *s, const struct frames_walk_opts *o);

/* The next frame in *step, false at the end of the sample's. */
static inline bool frames__walk_next(struct frames_walk *w, struct frames_step *step)
{
	const struct profile_sample *s = w->s;
	uint32_t id;

	if (w->k < w->end) {
		*step = (struct frames_step){ w->k, w->loc, w->k - w->first[w->loc] };
		w->k++;
		return true;
	}
	if (w->next >= w->nr_locs)
		return false;
	if (w->next == w->nr_user + w->nr_kernel || (w->next < w->nr_user && w->unwalked)) {
		enum frames_own own = w->next < w->nr_user ? FRAMES_UNWALKED : FRAMES_OFF_CPU;

		w->next++;
		*step = (struct frames_step){ w->own + own, PROFILE_NONE, own };
		return true;
	}
	if (w->next < w->nr_user)
		id = s->user[s->nr_user - 1 - w->next];
	else
		id = s->kernel[s->nr_kernel - 1 - (w->next - w->nr_user)];
	w->next++;
	w->loc = id;
	w->k = w->first[id];
	w->end = w->first[id + 1];
	*step = (struct frames_step){ w->k, id, 0 };
	w->k++;
	return true;
}

#endif
