// SPDX-License-Identifier: GPL-2.0-only
/*
 * The folded-stack writer: the text of each frame made once (named by
 * frames.h), the samples sorted by the lines they would make (frames.h's
 * walk), compared text by text, and each line written as it is read, runs
 * of one stack merged.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "frames.h"
#include "profile.h"

/* Makes a name safe for a folded line in place: ';' would split a frame, a line break the line. */
static void folded_escape(char *s)
{
	for (; *s; s++) {
		if (*s == ';')
			*s = ':';
		else if (*s == '\n' || *s == '\r')
			*s = ' ';
	}
}

/*
 * The writer's state: the text of every frame (core/profile/frames.h),
 * ";NAME" with its suffixes, made once and shared by every stack that has
 * it, and the samples in the order of their lines. Nothing grows with the
 * depth of the stacks: a line is compared and written frame by frame from
 * these.
 */
struct folded_writer {
	const struct profile *p;
	const struct folded_opts *opts;
	struct frames *fr;
	char **texts;	/* of each frame; equal texts share one string */
	bool *borrowed; /* texts[i] is another slot's string */
	size_t nr_texts;
	size_t *order; /* sample indices, by line */
	size_t nr_order;
};

/* The text of frame i: ";NAME", ":LINE" when asked for, "_[i]" (inlined), "_[k]" (kernel). */
static char *frame_text(const struct folded_writer *w, uint32_t i)
{
	const struct frames_name_opts name_opts = {
		.marks = FRAMES_MARKS_BOTH,
		.line = w->opts->lines ? FRAMES_LINE_NUMBER : FRAMES_LINE_NONE,
		.interpreter_place = true,
	};
	char *name = frames__name(w->fr, i, &name_opts), *text;

	if (!name)
		return NULL;
	text = malloc(strlen(name) + 2);
	if (text) {
		text[0] = ';';
		strcpy(text + 1, name);
		folded_escape(text + 1);
	}
	free(name);
	return text;
}

static int text_cmp(const void *a, const void *b, void *arg)
{
	char *const *texts = arg;

	return strcmp(texts[*(const uint32_t *)a], texts[*(const uint32_t *)b]);
}

/* Makes equal texts one string, so that comparing two stacks skips a shared frame at once. */
static int folded_writer__share_texts(struct folded_writer *w)
{
	uint32_t *by_text = malloc((w->nr_texts ? w->nr_texts : 1) * sizeof(*by_text));

	if (!by_text)
		return -ENOMEM;
	for (size_t i = 0; i < w->nr_texts; i++)
		by_text[i] = (uint32_t)i;
	qsort_r(by_text, w->nr_texts, sizeof(*by_text), text_cmp, w->texts);
	for (size_t i = 1; i < w->nr_texts; i++) {
		char **prev = &w->texts[by_text[i - 1]], **cur = &w->texts[by_text[i]];

		if (strcmp(*cur, *prev) == 0) {
			free(*cur);
			*cur = *prev;
			w->borrowed[by_text[i]] = true;
		}
	}
	free(by_text);
	return 0;
}

static int folded_writer__make_texts(struct folded_writer *w)
{
	w->fr = frames__new(w->p);
	if (!w->fr)
		return -errno;
	w->nr_texts = frames__nr(w->fr);
	w->texts = calloc(w->nr_texts, sizeof(*w->texts));
	w->borrowed = calloc(w->nr_texts, sizeof(*w->borrowed));
	if (!w->texts || !w->borrowed)
		return -ENOMEM;
	for (uint32_t i = 0; i < w->nr_texts; i++) {
		w->texts[i] = frame_text(w, i);
		if (!w->texts[i])
			return -ENOMEM;
	}
	return folded_writer__share_texts(w);
}

/*
 * Walks the texts of a line: the process, then each frame root first
 * (core/profile/frames.h's walk): the user frames ([unwalked] in place of
 * an unwalked one's), the kernel's, and an off-CPU line's last, [off-cpu].
 */
struct line_iter {
	const struct folded_writer *w;
	struct frames_walk walk;
	char comm[FRAMES_PROCESS_MAX];
};

static void line_iter__init(struct line_iter *it, const struct folded_writer *w, size_t sample)
{
	const struct profile_sample *s = profile__sample(w->p, sample);
	const struct frames_walk_opts walk_opts = { .kernel = w->opts->kernel, .own = true };

	it->w = w;
	frames__walk_start(&it->walk, w->fr, s, &walk_opts);
	frames__process_name(s, w->opts->pid, w->opts->tid, it->comm);
	folded_escape(it->comm);
}

/* The next text of the line, NULL at its end. */
static const char *line_iter__next(struct line_iter *it)
{
	struct frames_step step;

	return frames__walk_next(&it->walk, &step) ? it->w->texts[step.frame] : NULL;
}

/*
 * strcmp() of the two lines' texts, without making them: a text both have
 * at the same place is skipped whole, the rest compared byte by byte
 * across the texts.
 */
static int line_cmp(const void *pa, const void *pb, void *arg)
{
	const struct folded_writer *w = arg;
	struct line_iter a, b;
	const char *ta, *tb;

	line_iter__init(&a, w, *(const size_t *)pa);
	line_iter__init(&b, w, *(const size_t *)pb);
	ta = a.comm;
	tb = b.comm;
	for (;;) {
		if (!ta || !tb)
			return !tb - !ta;
		while (*ta && *ta == *tb)
			ta++, tb++;
		if (*ta && *tb)
			return (unsigned char)*ta - (unsigned char)*tb;
		if (!*ta && !*tb) {
			/* both at the start of their next texts: equal ones are skipped */
			do {
				ta = line_iter__next(&a);
				tb = line_iter__next(&b);
			} while (ta && ta == tb);
			continue;
		}
		if (!*ta)
			ta = line_iter__next(&a);
		if (tb && !*tb)
			tb = line_iter__next(&b);
	}
}

static int folded_writer__sort(struct folded_writer *w)
{
	size_t nr = profile__nr_samples(w->p);

	w->order = malloc((nr ? nr : 1) * sizeof(*w->order));
	if (!w->order)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		if (profile__sample(w->p, i)->count)
			w->order[w->nr_order++] = i;
	qsort_r(w->order, w->nr_order, sizeof(*w->order), line_cmp, w);
	return 0;
}

/* The value of sample i on its line: its count, or its time in ns (folded.h). */
static uint64_t folded_writer__value(const struct folded_writer *w, size_t i)
{
	const struct profile_sample *s = profile__sample(w->p, i);

	return w->opts->times ? profile__sample_time_ns(s, w->opts->period_ns) : s->count;
}

static int folded_writer__put_line(const struct folded_writer *w, FILE *f, size_t sample,
				   uint64_t count)
{
	struct line_iter it;

	line_iter__init(&it, w, sample);
	fputs(it.comm, f);
	for (const char *t = line_iter__next(&it); t; t = line_iter__next(&it))
		fputs(t, f);
	if (fprintf(f, " %" PRIu64 "\n", count) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

/* Writes the sorted lines, merging runs of the same stack. */
static int folded_writer__put(const struct folded_writer *w, FILE *f)
{
	for (size_t i = 0; i < w->nr_order;) {
		uint64_t value = 0;
		size_t j;
		int err;

		for (j = i; j < w->nr_order &&
			    (j == i || line_cmp(&w->order[i], &w->order[j], (void *)w) == 0);
		     j++)
			value += folded_writer__value(w, w->order[j]);
		/* times in microseconds, rounded; a stack of less than half of one is left out */
		if (w->opts->times)
			value = (value + 500) / 1000;
		err = value ? folded_writer__put_line(w, f, w->order[i], value) : 0;
		if (err)
			return err;
		i = j;
	}
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

static void folded_writer__free(struct folded_writer *w)
{
	for (size_t i = 0; w->texts && i < w->nr_texts; i++)
		if (!w->borrowed[i])
			free(w->texts[i]);
	free(w->texts);
	free(w->borrowed);
	free(w->order);
	frames__free(w->fr);
}

int folded__write(FILE *f, const struct profile *p, const struct folded_opts *opts)
{
	struct folded_writer w = { .p = p, .opts = opts };
	int err;

	err = folded_writer__make_texts(&w);
	if (!err)
		err = folded_writer__sort(&w);
	errno = 0;
	if (!err)
		err = folded_writer__put(&w, f);
	folded_writer__free(&w);
	return err;
}
