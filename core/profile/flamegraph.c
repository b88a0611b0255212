// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SVG flame graph writer. Every frame name (the profile's frames and
 * processes, named by frames.h) is interned into a rank in name order, each
 * sample is a path of ranks from the process to the leaf (frames.h's walk),
 * and the samples sorted by path are merged the way flamegraph.pl does:
 * walking them in order, a frame opens where a path leaves the previous one
 * and closes where the next one leaves it, so a frame's position and width
 * come out in samples without building a tree.
 * Paths are read from the profile as they are compared and merged, and
 * frames written as they close (after a first merge that measures them):
 * what the writer holds follows the locations and the samples, not the
 * depth of their stacks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "flamegraph.h"
#include "frames.h"
#include "profile.h"

#define FG_WIDTH 1200	  /* of the image, in pixels */
#define FG_PAD 10	  /* left and right margins */
#define FG_FRAME_H 16	  /* one level of the stack */
#define FG_TOP 50	  /* title, subtitle and buttons */
#define FG_BOTTOM 30	  /* the details line */
#define FG_CHAR_W 7.2	  /* of the 12px monospace font, to elide names */
#define FG_MIN_W 0.1	  /* frames narrower than this are left out */
#define FG_ALL UINT32_MAX /* name of the root frame */

enum fg_kind {
	FG_USER,
	FG_INLINED,	/* a function the compiler inlined into its caller */
	FG_INTERPRETED, /* a function of a runtime's language, run by its interpreter */
	FG_KERNEL,
	FG_UNKNOWN, /* no symbol */
	FG_PROCESS,
	FG_ROOT,
	FG_OFF_CPU, /* [off-cpu] and [unwalked], the frames of blocks */
};

static const char *const kind_class[] = {
	[FG_USER] = "user",	[FG_INLINED] = "inlined", [FG_INTERPRETED] = "interpreted",
	[FG_KERNEL] = "kernel", [FG_UNKNOWN] = "unknown", [FG_PROCESS] = "process",
	[FG_ROOT] = "root",	[FG_OFF_CPU] = "off-cpu",
};

struct fg_name {
	char *name; /* valid UTF-8 without control characters */
	enum fg_kind kind;
	/*
	 * a frame or a process, numbered as flamegraph.src says: the
	 * profile's, then the base's (diff)
	 */
	uint32_t src;
};

/* A sample of the profile (which 0) or of the base (which 1, diff). */
struct fg_ref {
	uint32_t which;
	uint32_t sample;
};

struct fg_frame {
	uint32_t depth; /* 0: the root */
	uint32_t name;	/* rank, FG_ALL for the root */
	uint64_t start; /* in samples */
	uint64_t count;
	uint64_t base; /* diff: the base's samples of the same stack */
	uint64_t off;  /* times: of count, the time off the CPU */
};

struct flamegraph {
	const struct profile *p;
	const struct profile *base; /* diff, or NULL */
	double max_delta;	    /* diff: the largest change of a frame drawn */
	const struct flamegraph_opts *opts;
	struct fg_name *names; /* sorted and unique: the index is the rank */
	size_t nr_names;
	/*
	 * Name sources: the frames of the profile (core/profile/frames.h),
	 * then one process per sample, from src[0]; the base's after them
	 * from src[1] (diff).
	 */
	struct frames *fr[2];
	uint32_t src[2];
	uint32_t *rank;	      /* of each name source */
	struct fg_ref *paths; /* the samples, in the order of their paths */
	size_t nr_paths;
	/* the merge: the frames open at each depth (1: the process), as long as the deepest path */
	struct fg_frame *open;
	size_t cap_open;
	uint64_t total;
	uint32_t max_depth; /* of the frames drawn */
};

/* Names */

/* Bytes of the valid UTF-8 character at s (not U+FFFE/U+FFFF, which XML forbids), or 0. */
static size_t utf8_char_len(const unsigned char *s)
{
	size_t len;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff) || c >= 0xfffe)) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

/*
 * Makes s safe for XML in place: invalid UTF-8 becomes '?', control
 * characters a space (names come from binaries and may hold anything).
 */
static void sanitize(char *s)
{
	unsigned char *in = (unsigned char *)s, *out = in;

	while (*in) {
		size_t len = utf8_char_len(in);

		if (!len) {
			*out++ = '?';
			in++;
		} else if (len == 1 && (*in < 0x20 || *in == 0x7f)) {
			*out++ = ' ';
			in++;
		} else {
			memmove(out, in, len);
			out += len;
			in += len;
		}
	}
	*out = '\0';
}

static int name_cmp(const void *a, const void *b)
{
	const struct fg_name *na = a, *nb = b;
	int c = strcmp(na->name, nb->name);

	if (c)
		return c;
	return (int)na->kind - (int)nb->kind;
}

/*
 * A function without a symbol that the symbolizer named by where it starts
 * in its file (core/symbols/cfi_names.h): "[FILE+0xSTART]", grey as the
 * frames it could not name at all.
 */
static bool by_address(const char *function)
{
	size_t len = strlen(function);

	return len > 2 && function[0] == '[' && function[len - 1] == ']' && strstr(function, "+0x");
}

/* The name of frame i of fr and its kind, by which it is colored. */
static void frame_name(const struct frames *fr, const struct profile *p, uint32_t i,
		       struct fg_name *out)
{
	static const struct frames_name_opts name_opts = { .marks = FRAMES_MARKS_ONE };
	const char *function = frames__function(fr, i, &name_opts);
	uint32_t k, loc = frames__location(fr, i, &k);
	const struct profile_location *l;
	const struct frame_kind *kind;

	out->name = frames__name(fr, i, &name_opts);
	if (loc == PROFILE_NONE) {
		out->kind = FG_OFF_CPU;
		return;
	}
	l = profile__location(p, loc);
	kind = frames__kind(l->kind);
	out->kind = !function || by_address(function) ? FG_UNKNOWN :
		    l->kernel			      ? FG_KERNEL :
		    kind && kind->interpreted	      ? FG_INTERPRETED :
		    k > 0			      ? FG_INLINED :
							FG_USER;
}

/*
 * Numbers the name sources of the profile (which 0) or of the base (1)
 * from *nr on: the frames of its locations and its own, then the
 * processes of its samples.
 */
static int flamegraph__count(struct flamegraph *fg, uint32_t which, size_t *nr)
{
	const struct profile *p = which ? fg->base : fg->p;

	fg->fr[which] = frames__new(p);
	if (!fg->fr[which])
		return -errno;
	fg->src[which] = (uint32_t)*nr;
	*nr += frames__nr(fg->fr[which]) + profile__nr_samples(p);
	if (*nr > UINT32_MAX)
		return -E2BIG;
	return 0;
}

/* The sources of the profile, then of the base: *nr in all. */
static int flamegraph__count_sources(struct flamegraph *fg, size_t *nr)
{
	int err;

	*nr = 0;
	err = flamegraph__count(fg, 0, nr);
	if (!err && fg->base)
		err = flamegraph__count(fg, 1, nr);
	return err;
}

/* The names a frame of the profile (which 0) or of the base (1) can have, one per source. */
static int flamegraph__collect(struct flamegraph *fg, uint32_t which, struct fg_name *all)
{
	const struct profile *p = which ? fg->base : fg->p;
	const struct frames *fr = fg->fr[which];
	uint32_t first = fg->src[which], procs = first + frames__nr(fr);
	size_t nr_samples = profile__nr_samples(p);
	char name[FRAMES_PROCESS_MAX];

	for (uint32_t i = 0; i < frames__nr(fr); i++) {
		frame_name(fr, p, i, &all[first + i]);
		all[first + i].src = first + i;
	}
	for (size_t i = 0; i < nr_samples; i++) {
		frames__process_name(profile__sample(p, i), fg->opts->pid, fg->opts->tid, name);
		all[procs + i].name = strdup(name);
		all[procs + i].kind = FG_PROCESS;
		all[procs + i].src = procs + (uint32_t)i;
	}
	for (size_t i = first; i < procs + nr_samples; i++) {
		if (!all[i].name)
			return -ENOMEM;
		sanitize(all[i].name);
	}
	return 0;
}

/* Every name a frame can have, before interning: the profile's, then the base's. */
static int flamegraph__collect_names(struct flamegraph *fg, struct fg_name *all)
{
	int err = flamegraph__collect(fg, 0, all);

	if (!err && fg->base)
		err = flamegraph__collect(fg, 1, all);
	return err;
}

/* Sorts the names, keeps one of each, and notes the rank of every source. */
static int flamegraph__intern(struct flamegraph *fg)
{
	struct fg_name *all = NULL;
	size_t nr = 0;
	int err;

	err = flamegraph__count_sources(fg, &nr);
	if (err)
		return err;
	all = calloc(nr ? nr : 1, sizeof(*all));
	fg->rank = calloc(nr ? nr : 1, sizeof(*fg->rank));
	if (!all || !fg->rank) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = flamegraph__collect_names(fg, all);
	if (err)
		goto cleanup;
	qsort(all, nr, sizeof(*all), name_cmp);
	for (size_t i = 0; i < nr; i++) {
		if (fg->nr_names && name_cmp(&all[fg->nr_names - 1], &all[i]) == 0) {
			fg->rank[all[i].src] = fg->nr_names - 1;
			free(all[i].name);
		} else {
			fg->rank[all[i].src] = fg->nr_names;
			all[fg->nr_names++] = all[i]; /* compacted in place */
		}
	}
	fg->names = all;
	all = NULL;
cleanup:
	for (size_t i = 0; all && i < nr; i++)
		free(all[i].name);
	free(all);
	return err;
}

/* Paths */

/*
 * Walks the path of a sample, the ranks of its frames from the process to
 * the leaf (core/profile/frames.h's walk), without making it: a path is as
 * long as its stack is deep.
 */
struct path_iter {
	const uint32_t *rank;
	uint32_t first;	  /* the source of the first frame of the sample's profile */
	uint32_t process; /* its source, UINT32_MAX once given */
	struct frames_walk walk;
};

static void path_iter__init(struct path_iter *it, const struct flamegraph *fg, struct fg_ref ref)
{
	const struct profile *p = ref.which ? fg->base : fg->p;
	const struct frames *fr = fg->fr[ref.which];
	const struct frames_walk_opts walk_opts = { .kernel = fg->opts->kernel, .own = true };

	it->rank = fg->rank;
	it->first = fg->src[ref.which];
	it->process = it->first + frames__nr(fr) + ref.sample;
	frames__walk_start(&it->walk, fr, profile__sample(p, ref.sample), &walk_opts);
}

/*
 * The rank of the next frame in *rank, false at the end of the path: the
 * frames of a location root first, the inlined ones after their caller.
 */
static bool path_iter__next(struct path_iter *it, uint32_t *rank)
{
	struct frames_step step;

	if (it->process != UINT32_MAX) {
		*rank = it->rank[it->process];
		it->process = UINT32_MAX;
		return true;
	}
	if (!frames__walk_next(&it->walk, &step))
		return false;
	*rank = it->rank[it->first + step.frame];
	return true;
}

/* By rank, frame by frame; a path before the longer ones it begins. */
static int path_cmp(const void *pa, const void *pb, void *arg)
{
	const struct flamegraph *fg = arg;
	struct path_iter a, b;
	uint32_t ra, rb;
	bool more_a, more_b;

	path_iter__init(&a, fg, *(const struct fg_ref *)pa);
	path_iter__init(&b, fg, *(const struct fg_ref *)pb);
	for (;;) {
		more_a = path_iter__next(&a, &ra);
		more_b = path_iter__next(&b, &rb);
		if (!more_a || !more_b)
			return more_a - more_b;
		if (ra != rb)
			return ra < rb ? -1 : 1;
	}
}

/* The width of a sample of the profile: its count, or with times its time. */
static uint64_t sample_value(const struct flamegraph *fg, const struct profile_sample *s)
{
	return fg->opts->times ? profile__sample_time_ns(s, fg->opts->period_ns) : s->count;
}

/* The samples with a count, of the profile then of the base, sorted by path. */
static int flamegraph__sort_paths(struct flamegraph *fg)
{
	size_t nr[2] = { profile__nr_samples(fg->p), fg->base ? profile__nr_samples(fg->base) : 0 };

	if (nr[0] > UINT32_MAX || nr[1] > UINT32_MAX)
		return -E2BIG;
	fg->paths = calloc(nr[0] + nr[1] + 1, sizeof(*fg->paths));
	if (!fg->paths)
		return -ENOMEM;
	for (uint32_t which = 0; which < 2; which++) {
		for (size_t i = 0; i < nr[which]; i++) {
			const struct profile_sample *s =
				profile__sample(which ? fg->base : fg->p, i);

			if (!s->count || (!which && !sample_value(fg, s)))
				continue;
			if (!which)
				fg->total += sample_value(fg, s);
			fg->paths[fg->nr_paths++] = (struct fg_ref){ which, (uint32_t)i };
		}
	}
	qsort_r(fg->paths, fg->nr_paths, sizeof(*fg->paths), path_cmp, fg);
	return 0;
}

/* Frames */

/*
 * What becomes of a frame once the merge knows its width: it is measured
 * (the first pass: the height of the image, the largest change of a diff),
 * then written (the second).
 */
typedef int (*fg_frame_fn)(struct flamegraph *fg, const struct fg_frame *fr, FILE *f);

/* Room for frame depth d among the open ones. */
static int flamegraph__open_room(struct flamegraph *fg, uint32_t d)
{
	return grow((void **)&fg->open, &fg->cap_open, d, sizeof(*fg->open));
}

/*
 * Closes the open frames deeper than keep, the deepest first; x and xb are
 * where the profile's and the base's samples are.
 */
static int flamegraph__close(struct flamegraph *fg, uint32_t nr_open, uint32_t keep, uint64_t x,
			     uint64_t xb, uint64_t xo, fg_frame_fn fn, FILE *f)
{
	int err;

	for (uint32_t d = nr_open; d > keep; d--) {
		struct fg_frame fr = fg->open[d - 1];

		fr.depth = d;
		fr.count = x - fr.start;
		fr.base = xb - fr.base;
		fr.off = xo - fr.off;
		err = fn(fg, &fr, f);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Opens the frames of path at and past depth from (it stands there), at x
 * and xb; *len is then the path's length.
 */
static int flamegraph__open_path(struct flamegraph *fg, struct path_iter *it, uint32_t from,
				 uint32_t rank, uint64_t x, uint64_t xb, uint64_t xo, uint32_t *len)
{
	uint32_t d = from;
	bool more = true;
	int err;

	for (; more; more = path_iter__next(it, &rank), d++) {
		err = flamegraph__open_room(fg, d);
		if (err)
			return err;
		/* base holds where the base's samples were at the frame's start until it closes */
		fg->open[d] = (struct fg_frame){ .name = rank, .start = x, .base = xb, .off = xo };
	}
	*len = d;
	return 0;
}

/*
 * Merges the sorted paths into frames (depth 1 is the process), each given
 * to fn as it closes, the root last: the frames open are the only ones
 * held, and no more than the deepest path.
 */
static int flamegraph__flow(struct flamegraph *fg, fg_frame_fn fn, FILE *f)
{
	uint32_t nr_open = 0, common, rank = 0;
	uint64_t x = 0, xb = 0,
		 xo = 0; /* where the samples are: the profile's, the base's, off-CPU */
	struct path_iter it;
	bool more;
	int err;

	for (size_t i = 0; i < fg->nr_paths; i++) {
		const struct fg_ref ref = fg->paths[i];

		path_iter__init(&it, fg, ref);
		common = 0;
		while ((more = path_iter__next(&it, &rank)) && common < nr_open &&
		       fg->open[common].name == rank)
			common++;
		err = flamegraph__close(fg, nr_open, common, x, xb, xo, fn, f);
		if (!err && more)
			err = flamegraph__open_path(fg, &it, common, rank, x, xb, xo, &nr_open);
		else
			nr_open = common;
		if (err)
			return err;
		if (ref.which) {
			xb += profile__sample(fg->base, ref.sample)->count;
		} else {
			const struct profile_sample *s = profile__sample(fg->p, ref.sample);

			x += sample_value(fg, s);
			if (s->flags & PROFILE_SAMPLE_OFF_CPU)
				xo += sample_value(fg, s);
		}
	}
	err = flamegraph__close(fg, nr_open, 0, x, xb, xo, fn, f);
	if (err)
		return err;
	return fn(fg, &(struct fg_frame){ 0, FG_ALL, 0, x, xb, xo }, f);
}

static double frame_width(const struct flamegraph *fg, const struct fg_frame *fr)
{
	double w = FG_WIDTH - 2 * FG_PAD;

	return fg->total ? w * fr->count / fg->total : w;
}

static bool frame_drawn(const struct flamegraph *fg, const struct fg_frame *fr)
{
	return fr->depth == 0 || frame_width(fg, fr) >= FG_MIN_W;
}

/* Writing */

static void put_escaped(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fputc(s[i], f);
		}
	}
}

/* Writes text from the command line or the caller, made safe as names are; NULL: nothing. */
static void put_text(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (u && *u) {
		size_t len = utf8_char_len(u);

		if (!len || (len == 1 && (*u < 0x20 || *u == 0x7f))) {
			fputc(len ? ' ' : '?', f);
			u++;
			continue;
		}
		put_escaped(f, (const char *)u, len);
		u += len;
	}
}

/* name cut to what fits in width pixels, ".." marking the cut, as the script does. */
static void put_fitted(FILE *f, const char *name, double width)
{
	long fit = (long)((width - 6) / FG_CHAR_W);
	size_t chars = 0, len = strlen(name), cut = 0;

	for (size_t i = 0; i < len; i++)
		chars += ((unsigned char)name[i] & 0xc0) != 0x80;
	if ((long)chars <= fit) {
		put_escaped(f, name, len);
		return;
	}
	if (fit < 3)
		return;
	for (long kept = 0; cut < len; cut++) {
		if (((unsigned char)name[cut] & 0xc0) != 0x80 && kept++ == fit - 2)
			break;
	}
	put_escaped(f, name, cut);
	fputs("..", f);
}

/* FNV-1a: the same name always gets the same color. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void put_color(FILE *f, const char *name, enum fg_kind kind)
{
	uint32_t h = name_hash(name);
	unsigned int a = h & 0xff, b = (h >> 8) & 0xff, c = (h >> 16) & 0xff;
	unsigned int r, g, bl;

	switch (kind) {
	case FG_INLINED: /* warm, lighter: inlined into the frame below */
		r = 230 + c * 25 / 255, g = 120 + a * 120 / 255, bl = 90 + b * 60 / 255;
		break;
	case FG_INTERPRETED: /* green: the interpreter's code, apart from the native frames */
		r = 60 + a * 80 / 255, g = 170 + b * 60 / 255, bl = 60 + c * 60 / 255;
		break;
	case FG_KERNEL: /* blue */
		r = 60 + a * 60 / 255, g = 140 + b * 60 / 255, bl = 200 + c * 55 / 255;
		break;
	case FG_UNKNOWN: /* grey */
		r = g = bl = 170 + a * 40 / 255;
		break;
	case FG_OFF_CPU: /* cold: the time of blocks */
		r = 40 + a * 40 / 255, g = 120 + b * 60 / 255, bl = 180 + c * 50 / 255;
		break;
	case FG_PROCESS:
	case FG_ROOT: /* purple */
		r = 180 + a * 30 / 255, g = 150 + a * 30 / 255, bl = 215 + b * 30 / 255;
		break;
	default: /* warm: red to yellow */
		r = 205 + c * 50 / 255, g = a * 230 / 255, bl = b * 55 / 255;
		break;
	}
	fprintf(f, "rgb(%u,%u,%u)", r, g, bl);
}

/* The change of a frame's samples from the base's, in the profile's units. */
static double frame_delta(const struct flamegraph *fg, const struct fg_frame *fr)
{
	double scale = fg->opts->base_scale > 0 ? fg->opts->base_scale : 1;

	return (double)fr->count - (double)fr->base * scale;
}

/* Diff: red for more samples, blue for fewer, as deep as the change is large; white: equal. */
static void put_diff_color(FILE *f, const struct flamegraph *fg, const struct fg_frame *fr)
{
	double d = frame_delta(fg, fr);
	unsigned int v = 255;

	if (fg->max_delta > 0)
		v = 255 - (unsigned int)(210 * (d < 0 ? -d : d) / fg->max_delta);
	if (d > 0)
		fprintf(f, "rgb(255,%u,%u)", v, v);
	else if (d < 0)
		fprintf(f, "rgb(%u,%u,255)", v, v);
	else
		fputs("rgb(250,250,250)", f);
}

static int svg_height(const struct flamegraph *fg)
{
	return FG_TOP + (int)(fg->max_depth + 1) * FG_FRAME_H + FG_BOTTOM;
}

static void flamegraph__put_frame(const struct flamegraph *fg, FILE *f, const struct fg_frame *fr)
{
	const char *name = fr->name == FG_ALL ? "all" : fg->names[fr->name].name;
	enum fg_kind kind = fr->name == FG_ALL ? FG_ROOT : fg->names[fr->name].kind;
	double w = frame_width(fg, fr);
	double x =
		FG_PAD + (fg->total ? (double)(FG_WIDTH - 2 * FG_PAD) * fr->start / fg->total : 0);
	int y = svg_height(fg) - FG_BOTTOM - (int)(fr->depth + 1) * FG_FRAME_H;

	fprintf(f, "<g class=\"f %s\" data-x=\"%" PRIu64 "\" data-c=\"%" PRIu64 "\"><title>",
		kind_class[kind], fr->start, fr->count);
	put_escaped(f, name, strlen(name));
	if (fg->opts->times)
		fprintf(f, " (%.3f ms, %.2f%%, %.0f%% off-CPU", fr->count / 1e6,
			fg->total ? 100.0 * fr->count / fg->total : 0.0,
			fr->count ? 100.0 * fr->off / fr->count : 0.0);
	else
		fprintf(f, " (%" PRIu64 " sample%s, %.2f%%", fr->count, fr->count == 1 ? "" : "s",
			fg->total ? 100.0 * fr->count / fg->total : 0.0);
	if (fg->base)
		fprintf(f, "; base %" PRIu64 ", %+.0f", fr->base, frame_delta(fg, fr));
	fputs(")</title>", f);
	fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"", x, y, w,
		FG_FRAME_H - 1);
	if (fg->base)
		put_diff_color(f, fg, fr);
	else if (fg->opts->times && fr->count && fr->off == fr->count && kind != FG_ROOT &&
		 kind != FG_PROCESS)
		put_color(f, name, FG_OFF_CPU); /* all its time blocked: cold */
	else
		put_color(f, name, kind);
	fprintf(f, "\"/><text x=\"%.2f\" y=\"%d\">", x + 3, y + FG_FRAME_H - 5);
	put_fitted(f, name, w);
	fputs("</text></g>\n", f);
}

static const char svg_style[] =
	"<style type=\"text/css\"><![CDATA[\n"
	"text { font-family: monospace; font-size: 12px; fill: rgb(0,0,0); }\n"
	"#title { font-size: 17px; text-anchor: middle; }\n"
	"#subtitle { text-anchor: middle; fill: rgb(90,90,90); }\n"
	"#search, #matched { text-anchor: end; }\n"
	"#search, #reset, #matched { cursor: pointer; }\n"
	"#search:hover, #reset:hover { text-decoration: underline; }\n"
	"g.f { cursor: pointer; }\n"
	"g.f > text { pointer-events: none; }\n"
	"g.f:hover > rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
	"g.match > rect { fill: rgb(230,0,230); }\n"
	"g.parent > rect { fill-opacity: 0.5; }\n"
	".hidden { display: none; }\n"
	"]]></style>\n";

/*
 * The viewer. Frames carry their position and width in samples (data-x,
 * data-c), so zooming recomputes pixels from samples; names come from the
 * <title>, "NAME (N samples, P%)".
 */
static const char svg_script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"\"use strict\";\n"
	"var svg = document.documentElement;\n"
	"var PAD = +svg.getAttribute(\"data-pad\"), W = +svg.getAttribute(\"data-width\");\n"
	"var TOTAL = +svg.getAttribute(\"data-total\"), CHAR_W = 7.2, MIN_W = 0.1;\n"
	"var frames = [], index = new Map(), root = -1, term = \"\";\n"
	"var details, matched, reset;\n"
	"\n"
	"function init() {\n"
	"\tvar gs = document.querySelectorAll(\"#frames > g\");\n"
	"\tfor (var i = 0; i < gs.length; i++) {\n"
	"\t\tvar g = gs[i], t = g.firstElementChild.textContent, r = g.querySelector(\"rect\");\n"
	"\t\tframes.push({ g: g, rect: r, text: g.querySelector(\"text\"),\n"
	"\t\t\tname: t.substring(0, t.lastIndexOf(\" (\")), y: +r.getAttribute(\"y\"),\n"
	"\t\t\tx: +g.getAttribute(\"data-x\"), c: +g.getAttribute(\"data-c\") });\n"
	"\t\tindex.set(g, i);\n"
	"\t\tif (g.classList.contains(\"root\"))\n"
	"\t\t\troot = i;\n"
	"\t}\n"
	"\tdetails = document.getElementById(\"details\");\n"
	"\tmatched = document.getElementById(\"matched\");\n"
	"\treset = document.getElementById(\"reset\");\n"
	"\tvar fg = document.getElementById(\"frames\");\n"
	"\tfg.addEventListener(\"click\", function (e) {\n"
	"\t\tvar i = frameOf(e.target);\n"
	"\t\tif (i >= 0)\n"
	"\t\t\tzoom(i);\n"
	"\t});\n"
	"\tfg.addEventListener(\"mouseover\", function (e) {\n"
	"\t\tvar i = frameOf(e.target);\n"
	"\t\tdetails.textContent = i < 0 ? \" \" : frames[i].g.firstElementChild.textContent;\n"
	"\t});\n"
	"\tfg.addEventListener(\"mouseout\", function () { details.textContent = \" \"; });\n"
	"\treset.addEventListener(\"click\", function () { zoom(root); });\n"
	"\tdocument.getElementById(\"search\").addEventListener(\"click\", ask);\n"
	"\tmatched.addEventListener(\"click\", function () { search(\"\"); });\n"
	"\twindow.addEventListener(\"keydown\", onKey);\n"
	"\tfromUrl();\n"
	"\tsvg.setAttribute(\"data-ready\", \"1\");\n"
	"}\n"
	"\n"
	"function frameOf(el) {\n"
	"\tfor (; el && el !== svg; el = el.parentNode)\n"
	"\t\tif (index.has(el))\n"
	"\t\t\treturn index.get(el);\n"
	"\treturn -1;\n"
	"}\n"
	"\n"
	"/* The name cut to what fits, as the writer does. */\n"
	"function fit(name, w) {\n"
	"\tvar n = Math.floor((w - 6) / CHAR_W);\n"
	"\tif (name.length <= n)\n"
	"\t\treturn name;\n"
	"\treturn n < 3 ? \"\" : name.substring(0, n - 2) + \"..\";\n"
	"}\n"
	"\n"
	"function place(f, x, w) {\n"
	"\tf.rect.setAttribute(\"x\", x.toFixed(2));\n"
	"\tf.rect.setAttribute(\"width\", w.toFixed(2));\n"
	"\tf.text.setAttribute(\"x\", (x + 3).toFixed(2));\n"
	"\tf.text.textContent = fit(f.name, w);\n"
	"}\n"
	"\n"
	"/* Frame i fills the width: its ancestors stay (faded), the rest hides. */\n"
	"function zoom(i) {\n"
	"\tvar z = frames[i];\n"
	"\tif (!z.c)\n"
	"\t\treturn;\n"
	"\tfor (var j = 0; j < frames.length; j++) {\n"
	"\t\tvar f = frames[j], end = f.x + f.c, w = f.c / z.c * W;\n"
	"\t\tvar below = f.y > z.y;\n"
	"\t\tvar ancestor = below && f.x <= z.x && end >= z.x + z.c;\n"
	"\t\tvar inside = !below && f.x >= z.x && end <= z.x + z.c && w >= MIN_W;\n"
	"\t\tif (ancestor)\n"
	"\t\t\tplace(f, PAD, W);\n"
	"\t\telse if (inside)\n"
	"\t\t\tplace(f, PAD + (f.x - z.x) / z.c * W, w);\n"
	"\t\tf.g.classList.toggle(\"parent\", ancestor && i !== root);\n"
	"\t\tf.g.classList.toggle(\"hidden\", !ancestor && !inside);\n"
	"\t}\n"
	"\treset.classList.toggle(\"hidden\", i === root);\n"
	"}\n"
	"\n"
	"/* Highlights the frames matching t; the share counts nested matches once. */\n"
	"function search(t) {\n"
	"\tvar re = null, hits = [], covered = 0, end = 0;\n"
	"\tterm = t || \"\";\n"
	"\tif (term) {\n"
	"\t\ttry {\n"
	"\t\t\tre = new RegExp(term);\n"
	"\t\t} catch (e) {\n"
	"\t\t\tre = new RegExp(term.replace(/[.*+?^${}()|[\\]\\\\]/g, \"\\\\$&\"));\n"
	"\t\t}\n"
	"\t}\n"
	"\tfor (var j = 0; j < frames.length; j++) {\n"
	"\t\tvar hit = re !== null && re.test(frames[j].name);\n"
	"\t\tframes[j].g.classList.toggle(\"match\", hit);\n"
	"\t\tif (hit)\n"
	"\t\t\thits.push(frames[j]);\n"
	"\t}\n"
	"\thits.sort(function (a, b) { return a.x - b.x || b.c - a.c; });\n"
	"\tfor (var k = 0; k < hits.length; k++) {\n"
	"\t\tvar s = hits[k];\n"
	"\t\tif (s.x + s.c <= end)\n"
	"\t\t\tcontinue;\n"
	"\t\tcovered += s.x + s.c - Math.max(s.x, end);\n"
	"\t\tend = s.x + s.c;\n"
	"\t}\n"
	"\tmatched.textContent = !term ? \"\" :\n"
	"\t\t\"Matched: \" + (TOTAL ? 100 * covered / TOTAL : 0).toFixed(2) + \"%\";\n"
	"}\n"
	"\n"
	"function ask() {\n"
	"\tvar t = window.prompt(\"Search frames (regular expression):\", term);\n"
	"\tif (t !== null)\n"
	"\t\tsearch(t);\n"
	"}\n"
	"\n"
	"function onKey(e) {\n"
	"\tif ((e.ctrlKey || e.metaKey) && (e.key === \"f\" || e.key === \"F\")) {\n"
	"\t\te.preventDefault();\n"
	"\t\task();\n"
	"\t} else if (e.key === \"Escape\") {\n"
	"\t\tsearch(\"\");\n"
	"\t\tzoom(root);\n"
	"\t}\n"
	"}\n"
	"\n"
	"/* file.svg#s=REGEX&zoom=NAME (or ?s=...): the widest frame named NAME. */\n"
	"function fromUrl() {\n"
	"\tvar q = new URLSearchParams(location.hash.substring(1) || location.search.substring(1));\n"
	"\tvar z = q.get(\"zoom\"), best = -1;\n"
	"\tfor (var j = 0; z !== null && j < frames.length; j++)\n"
	"\t\tif (frames[j].name === z && (best < 0 || frames[j].c > frames[best].c))\n"
	"\t\t\tbest = j;\n"
	"\tif (best >= 0)\n"
	"\t\tzoom(best);\n"
	"\tif (q.get(\"s\") !== null)\n"
	"\t\tsearch(q.get(\"s\"));\n"
	"}\n"
	"\n"
	"window.addEventListener(\"load\", init);\n"
	"]]></script>\n";

static void flamegraph__put_header(const struct flamegraph *fg, FILE *f)
{
	const struct flamegraph_opts *opts = fg->opts;
	int h = svg_height(fg);

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
	fprintf(f,
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" data-pad=\"%d\" data-width=\"%d\" "
		"data-total=\"%" PRIu64 "\">\n",
		FG_WIDTH, h, FG_WIDTH, h, FG_PAD, FG_WIDTH - 2 * FG_PAD, fg->total);
	fputs("<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/>"
	      "<stop stop-color=\"#eeeeb0\" offset=\"95%\"/></linearGradient></defs>\n",
	      f);
	fputs(svg_style, f);
	fputs(svg_script, f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#background)\"/>\n",
		FG_WIDTH, h);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\">", FG_WIDTH / 2);
	put_text(f, opts->title ? opts->title : "Flame Graph");
	fprintf(f, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"42\">", FG_WIDTH / 2);
	put_text(f, opts->subtitle);
	fprintf(f,
		"</text>\n<text id=\"reset\" class=\"hidden\" x=\"%d\" y=\"24\">Reset Zoom</text>\n",
		FG_PAD);
	fprintf(f, "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n", FG_WIDTH - FG_PAD);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", FG_PAD, h - 10);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\"></text>\n", FG_WIDTH - FG_PAD, h - 10);
}

/* The first pass: the height of the image and, for a diff, the largest change drawn. */
static int flamegraph__measure(struct flamegraph *fg, const struct fg_frame *fr, FILE *f)
{
	double d = fg->base ? frame_delta(fg, fr) : 0;

	(void)f;
	if (!frame_drawn(fg, fr))
		return 0;
	if (fr->depth > fg->max_depth)
		fg->max_depth = fr->depth;
	/* the root's change is every frame's sum: it would pale them all */
	if (fr->depth && (d < 0 ? -d : d) > fg->max_delta)
		fg->max_delta = d < 0 ? -d : d;
	return 0;
}

/* The second pass: the frames drawn, as they close, the deepest of a stack first. */
static int flamegraph__draw(struct flamegraph *fg, const struct fg_frame *fr, FILE *f)
{
	if (frame_drawn(fg, fr))
		flamegraph__put_frame(fg, f, fr);
	return ferror(f) ? (errno ? -errno : -EIO) : 0;
}

/* The frames are merged twice rather than kept: they are as many as the stacks are deep. */
static int flamegraph__put(struct flamegraph *fg, FILE *f)
{
	int err = flamegraph__flow(fg, flamegraph__measure, f);

	if (err)
		return err;
	flamegraph__put_header(fg, f);
	fputs("<g id=\"frames\">\n", f);
	err = flamegraph__flow(fg, flamegraph__draw, f);
	if (err)
		return err;
	fputs("</g>\n</svg>\n", f);
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

static void flamegraph__free(struct flamegraph *fg)
{
	for (size_t i = 0; i < fg->nr_names; i++)
		free(fg->names[i].name);
	free(fg->names);
	free(fg->rank);
	frames__free(fg->fr[0]);
	frames__free(fg->fr[1]);
	free(fg->paths);
	free(fg->open);
}

int flamegraph__write(FILE *f, const struct profile *p, const struct flamegraph_opts *opts)
{
	struct flamegraph_opts defaults = {};
	struct flamegraph fg = { .p = p, .opts = opts ? opts : &defaults };

	fg.base = fg.opts->base;
	int err;

	err = flamegraph__intern(&fg);
	if (!err)
		err = flamegraph__sort_paths(&fg);
	errno = 0;
	if (!err)
		err = flamegraph__put(&fg, f);
	flamegraph__free(&fg);
	return err;
}
