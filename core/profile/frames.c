// SPDX-License-Identifier: GPL-2.0-only
/*
 * A profile's frames: the kinds of locations, every location's frames
 * numbered root first, the namer of a frame and of a process, and the walk
 * of a sample's frames. See frames.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "frames.h"
#include "profile.h"

/* Kinds */

/*
 * Numbered as the unwinders that walk them (bpf/abi.h): machine code's, and
 * a runtime's language's (bpf/runtimes.h), named after the runtime.
 */
#define RUNTIME_KIND(ID, name) [UNW_UW_##ID] = { #name, true, "[" #name "]" },
static const struct frame_kind kinds[UNW_UW_NR] = { [UNW_UW_FP] = { "native", false, NULL },
						    [UNW_UW_TABLE] = { "native", false, NULL },
						    UNW_RUNTIMES(RUNTIME_KIND) };
#undef RUNTIME_KIND
_Static_assert((int)PROFILE_FRAME_NATIVE == (int)UNW_UW_FP, "machine code is kind 0");

const struct frame_kind *frames__kind(uint8_t kind)
{
	return kind < ARRAY_SIZE(kinds) ? &kinds[kind] : NULL;
}

static bool interpreted(const struct profile_location *l)
{
	const struct frame_kind *kind = frames__kind(l->kind);

	return kind && kind->interpreted;
}

/* Numbering */

struct frames {
	const struct profile *p;
	uint32_t *first;  /* location id's frames are first[id] to first[id + 1] - 1 */
	uint32_t *loc_of; /* the location of each frame, PROFILE_NONE for the walk's own */
	uint32_t nr;	  /* with the walk's own, the last FRAMES_NR_OWN */
};

static const char *const own_names[FRAMES_NR_OWN] = {
	[FRAMES_UNWALKED] = "[unwalked]",
	[FRAMES_OFF_CPU] = "[off-cpu]",
};

/*
 * A location's frames: one per source line (a function inlined into
 * another, a JIT's method or function inlined into the one compiled), else one.
 */
static uint32_t frames_of(const struct profile *p, uint32_t id)
{
	size_t n;

	profile__lines(p, id, &n);
	return n ? (uint32_t)n : 1;
}

static int frames__number(struct frames *fr)
{
	size_t nr_loc = profile__nr_locations(fr->p), n = 0;

	fr->first = calloc(nr_loc + 1, sizeof(*fr->first));
	if (!fr->first)
		return -ENOMEM;
	for (size_t i = 0; i < nr_loc; i++) {
		fr->first[i] = (uint32_t)n;
		n += frames_of(fr->p, (uint32_t)i);
		if (n > UINT32_MAX - FRAMES_NR_OWN)
			return -E2BIG;
	}
	fr->first[nr_loc] = (uint32_t)n;
	fr->nr = (uint32_t)n + FRAMES_NR_OWN;
	fr->loc_of = malloc(fr->nr * sizeof(*fr->loc_of));
	if (!fr->loc_of)
		return -ENOMEM;
	for (size_t i = 0; i < nr_loc; i++)
		for (uint32_t k = fr->first[i]; k < fr->first[i + 1]; k++)
			fr->loc_of[k] = (uint32_t)i;
	for (uint32_t k = (uint32_t)n; k < fr->nr; k++)
		fr->loc_of[k] = PROFILE_NONE;
	return 0;
}

struct frames *frames__new(const struct profile *p)
{
	struct frames *fr = calloc(1, sizeof(*fr));
	int err;

	if (!fr)
		return NULL;
	fr->p = p;
	err = frames__number(fr);
	if (err) {
		frames__free(fr);
		errno = -err;
		return NULL;
	}
	return fr;
}

void frames__free(struct frames *fr)
{
	if (!fr)
		return;
	free(fr->first);
	free(fr->loc_of);
	free(fr);
}

uint32_t frames__nr(const struct frames *fr)
{
	return fr->nr;
}

uint32_t frames__own(const struct frames *fr, enum frames_own own)
{
	return fr->nr - FRAMES_NR_OWN + own;
}

uint32_t frames__location(const struct frames *fr, uint32_t i, uint32_t *k)
{
	uint32_t loc = fr->loc_of[i];

	*k = loc == PROFILE_NONE ? i - frames__own(fr, 0) : i - fr->first[loc];
	return loc;
}

/* Names */

/* The source line of frame k of location loc, NULL when it has none. */
static const struct profile_line *frame_line(const struct frames *fr, uint32_t loc, uint32_t k)
{
	size_t n;
	const struct profile_line *lines = profile__lines(fr->p, loc, &n);

	if (!n)
		return NULL;
	/* the outermost frame first: the location's function, then those inlined into it */
	return &lines[n - 1 - k];
}

const char *frames__function(const struct frames *fr, uint32_t i, const struct frames_name_opts *o)
{
	uint32_t k, loc = frames__location(fr, i, &k);
	const struct profile_location *l;
	const struct profile_line *ln;

	if (loc == PROFILE_NONE)
		return NULL;
	l = profile__location(fr->p, loc);
	ln = frame_line(fr, loc, k);
	/* the outermost line's function is the location's */
	if (!k)
		return l->function || !ln ? l->function : ln->function;
	return ln->function || !o->unnamed_as_location ? ln->function : l->function;
}

/* A name being made. */
struct name_buf {
	char *s;
	size_t len, cap;
	int err;
};

static void name_buf__addf(struct name_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void name_buf__addf(struct name_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = -EINVAL;
		return;
	}
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = b->len + (size_t)n + 64;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->err = -ENOMEM;
			return;
		}
		b->s = s;
		b->cap = cap;
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/*
 * A frame without a function: "[FILE+0xOFFSET]" ("libfoo.so" of
 * "/usr/lib/libfoo.so", "vdso" of "[vdso]"), "[unknown]" outside every
 * mapping.
 */
static void add_address(struct name_buf *b, const struct profile *p,
			const struct profile_location *l)
{
	const struct profile_mapping *m;
	const char *base;
	size_t len;

	m = l->mapping == PROFILE_NONE ? NULL : profile__mapping(p, l->mapping);
	if (!m || !m->file) {
		name_buf__addf(b, "[unknown]");
		return;
	}
	base = strrchr(m->file, '/');
	base = base ? base + 1 : m->file;
	len = strlen(base);
	if (len > 2 && base[0] == '[' && base[len - 1] == ']') {
		base++;
		len -= 2;
	}
	name_buf__addf(b, "[%.*s+0x%" PRIx64 "]", (int)len, base, l->addr - m->start + m->offset);
}

/*
 * An interpreter's frame as py-spy names it: "QUALNAME (FILE:LINE)";
 * "QUALNAME (FILE)" when its line is not known (a compiled Java method's).
 */
static void add_interpreter_place(struct name_buf *b, const char *function,
				  const struct profile_line *ln)
{
	name_buf__addf(b, "%s", function ? function : "<unknown>");
	if (ln && ln->file && ln->line)
		name_buf__addf(b, " (%s:%" PRIu32 ")", ln->file, ln->line);
	else if (ln && ln->file)
		name_buf__addf(b, " (%s)", ln->file);
}

static void add_line(struct name_buf *b, const struct profile_line *ln, enum frames_line line)
{
	if (line == FRAMES_LINE_NUMBER && ln && ln->line)
		name_buf__addf(b, ":%" PRIu32, ln->line);
	else if (line == FRAMES_LINE_PLACE && ln && (ln->file || ln->line))
		name_buf__addf(b, " %s:%" PRIu32, ln->file ? ln->file : "??", ln->line);
}

static void add_marks(struct name_buf *b, bool inlined, bool kernel, enum frames_marks marks)
{
	if (marks == FRAMES_MARKS_BOTH)
		name_buf__addf(b, "%s%s", inlined ? "_[i]" : "", kernel ? "_[k]" : "");
	else if (marks == FRAMES_MARKS_ONE)
		name_buf__addf(b, "%s", kernel ? "_[k]" : inlined ? "_[i]" : "");
}

char *frames__name(const struct frames *fr, uint32_t i, const struct frames_name_opts *o)
{
	uint32_t k, loc = frames__location(fr, i, &k);
	const char *function = frames__function(fr, i, o);
	struct name_buf b = {};
	const struct profile_location *l;
	const struct profile_line *ln;

	if (loc == PROFILE_NONE)
		return strdup(own_names[k]);
	l = profile__location(fr->p, loc);
	ln = frame_line(fr, loc, k);
	if (o->interpreter_place && interpreted(l)) {
		add_interpreter_place(&b, function, ln);
		add_marks(&b, k > 0, false, o->marks);
	} else {
		if (function)
			name_buf__addf(&b, "%s", function);
		else
			add_address(&b, fr->p, l);
		add_line(&b, ln, o->line);
		add_marks(&b, k > 0, l->kernel, o->marks);
	}
	if (b.err) {
		free(b.s);
		errno = -b.err;
		return NULL;
	}
	return b.s;
}

void frames__process_name(const struct profile_sample *s, bool pid, bool tid,
			  char out[FRAMES_PROCESS_MAX])
{
	char comm[PROFILE_COMM_LEN + 1] = {}, thread[PROFILE_COMM_LEN + 1] = {};
	const char *c = comm;

	memcpy(comm, s->comm, sizeof(s->comm));
	memcpy(thread, s->thread, sizeof(s->thread));
	if (!comm[0])
		c = "[unknown]";
	/* the thread's name when it has one of its own */
	if (tid && thread[0] && strcmp(thread, comm) != 0)
		snprintf(out, FRAMES_PROCESS_MAX, "%s-%" PRIu32 "/%" PRIu32 " (%s)", c, s->pid,
			 s->tid, thread);
	else if (tid)
		snprintf(out, FRAMES_PROCESS_MAX, "%s-%" PRIu32 "/%" PRIu32, c, s->pid, s->tid);
	else if (pid)
		snprintf(out, FRAMES_PROCESS_MAX, "%s-%" PRIu32, c, s->pid);
	else
		snprintf(out, FRAMES_PROCESS_MAX, "%s", c);
}

/* Walk */

void frames__walk_start(struct frames_walk *w, const struct frames *fr,
			const struct profile_sample *s, const struct frames_walk_opts *o)
{
	*w = (struct frames_walk){ .first = fr->first, .own = frames__own(fr, 0), .s = s };
	w->unwalked = o->own && (s->flags & PROFILE_SAMPLE_UNWALKED);
	w->nr_user = w->unwalked ? 1 : s->nr_user;
	w->nr_kernel = o->kernel ? s->nr_kernel : 0;
	w->nr_locs = w->nr_user + w->nr_kernel;
	if (o->own && (s->flags & PROFILE_SAMPLE_OFF_CPU))
		w->nr_locs++;
}
