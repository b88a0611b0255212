// SPDX-License-Identifier: GPL-2.0-only
/*
 * The folded-stack writer: the text of each frame made once, the samples
 * sorted by the lines they would make, compared text by text, and each line
 * written as it is read, runs of one stack merged.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "folded.h"
#include "profile.h"

struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
};

static int strbuf__reserve(struct strbuf *sb, size_t more)
{
	size_t cap = sb->cap ? sb->cap : 256;
	char *n;

	if (sb->len + more + 1 <= sb->cap)
		return 0;
	while (cap < sb->len + more + 1)
		cap *= 2;
	n = realloc(sb->buf, cap);
	if (!n)
		return -ENOMEM;
	sb->buf = n;
	sb->cap = cap;
	return 0;
}

/* Appends s with the characters that would break a folded line replaced. */
static int strbuf__add_name(struct strbuf *sb, const char *s)
{
	size_t len = strlen(s);
	int err = strbuf__reserve(sb, len);

	if (err)
		return err;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == ';')
			c = ':';
		else if (c == '\n' || c == '\r')
			c = ' ';
		sb->buf[sb->len++] = c;
	}
	sb->buf[sb->len] = '\0';
	return 0;
}

static int strbuf__addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int strbuf__addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n, err;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	err = strbuf__reserve(sb, n);
	if (err)
		return err;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, n + 1, fmt, ap);
	va_end(ap);
	sb->len += n;
	return 0;
}

/* "libfoo.so" of "/usr/lib/libfoo.so", "vdso" of "[vdso]". */
static int add_mapping_name(struct strbuf *sb, const char *file)
{
	const char *base = strrchr(file, '/');
	size_t len;

	base = base ? base + 1 : file;
	len = strlen(base);
	if (len > 2 && base[0] == '[' && base[len - 1] == ']')
		return strbuf__addf(sb, "%.*s", (int)(len - 2), base + 1);
	return strbuf__add_name(sb, base);
}

/* A frame without a function name: "[file+0xOFFSET]", or "[unknown]" without a mapping. */
static int add_address(struct strbuf *sb, const struct profile *p, const struct profile_location *l)
{
	const struct profile_mapping *m;
	int err;

	m = l->mapping == PROFILE_NONE ? NULL : profile__mapping(p, l->mapping);
	if (!m || !m->file)
		return strbuf__addf(sb, "[unknown]");
	err = strbuf__addf(sb, "[");
	if (!err)
		err = add_mapping_name(sb, m->file);
	if (!err)
		err = strbuf__addf(sb, "+0x%" PRIx64 "]", l->addr - m->start + m->offset);
	return err;
}

/* One frame: its name, ":LINE" when asked for, then "_[i]" (inlined) or "_[k]" (kernel). */
static int add_one(struct strbuf *sb, const struct profile *p, const struct profile_location *l,
		   const char *function, uint32_t line, bool inlined,
		   const struct folded_opts *opts)
{
	int err;

	err = strbuf__addf(sb, ";");
	if (!err)
		err = function ? strbuf__add_name(sb, function) : add_address(sb, p, l);
	if (!err && opts->lines && line)
		err = strbuf__addf(sb, ":%" PRIu32, line);
	if (!err && inlined)
		err = strbuf__addf(sb, "_[i]");
	if (!err && l->kernel)
		err = strbuf__addf(sb, "_[k]");
	return err;
}

/* An interpreted frame, as py-spy writes it: "QUALNAME (FILE:LINE)". */
static int add_interpreted(struct strbuf *sb, const struct profile_location *l,
			   const struct profile_line *ln)
{
	int err = strbuf__addf(sb, ";");

	if (!err)
		err = strbuf__add_name(sb, l->function ? l->function : "<unknown>");
	if (!err && ln && ln->file)
		err = strbuf__addf(sb, " (");
	if (!err && ln && ln->file)
		err = strbuf__add_name(sb, ln->file);
	if (!err && ln && ln->file)
		err = strbuf__addf(sb, ":%" PRIu32 ")", ln->line);
	return err;
}

/* The first frame, the process: "comm", "comm-PID", "comm-PID/TID (THREAD)". */
#define COMM_TEXT_MAX 64

static void comm_text(const struct profile_sample *s, const struct folded_opts *opts, char *out)
{
	char comm[PROFILE_COMM_LEN + 1] = {}, thread[PROFILE_COMM_LEN + 1] = {};
	const char *c = comm;

	memcpy(comm, s->comm, sizeof(s->comm));
	memcpy(thread, s->thread, sizeof(s->thread));
	if (!comm[0])
		c = "[unknown]";
	if (opts->tid && thread[0] && strcmp(thread, comm) != 0)
		snprintf(out, COMM_TEXT_MAX, "%s-%" PRIu32 "/%" PRIu32 " (%s)", c, s->pid, s->tid,
			 thread);
	else if (opts->tid)
		snprintf(out, COMM_TEXT_MAX, "%s-%" PRIu32 "/%" PRIu32, c, s->pid, s->tid);
	else if (opts->pid)
		snprintf(out, COMM_TEXT_MAX, "%s-%" PRIu32, c, s->pid);
	else
		snprintf(out, COMM_TEXT_MAX, "%s", c);
	/* only the names can hold what would break the line */
	for (; *out; out++) {
		if (*out == ';')
			*out = ':';
		else if (*out == '\n' || *out == '\r')
			*out = ' ';
	}
}

/*
 * The writer's state: the text of every frame a location can be, ";NAME"
 * with its suffixes, made once and shared by every stack that has it, and
 * the samples in the order of their lines. Nothing grows with the depth of
 * the stacks: a line is compared and written frame by frame from these.
 */
struct folded_writer {
	const struct profile *p;
	const struct folded_opts *opts;
	/*
	 * The frames of location id, root first, are texts[first[id]] up to
	 * texts[first[id + 1]]; equal texts share one string.
	 */
	uint32_t *first;
	char **texts;
	bool *borrowed; /* texts[i] is another slot's string */
	size_t nr_texts;
	size_t *order; /* sample indices, by line */
	size_t nr_order;
};

/* A location's frames: its source lines (inlined functions), or one. */
static size_t frames_of(const struct profile *p, uint32_t id)
{
	size_t n;

	if (profile__location(p, id)->kind != PROFILE_FRAME_NATIVE)
		return 1;
	profile__lines(p, id, &n);
	return n ? n : 1;
}

/* The text of frame k (root first) of location id. */
static char *frame_text(const struct profile *p, uint32_t id, size_t k,
			const struct folded_opts *opts)
{
	const struct profile_location *l = profile__location(p, id);
	size_t n;
	const struct profile_line *lines = profile__lines(p, id, &n);
	struct strbuf sb = {};
	int err;

	if (l->kind != PROFILE_FRAME_NATIVE) {
		err = add_interpreted(&sb, l, n ? &lines[0] : NULL);
	} else if (!n) {
		err = add_one(&sb, p, l, l->function, 0, false, opts);
	} else {
		const struct profile_line *ln = &lines[n - 1 - k];
		/* the outermost line's function is the location's */
		const char *function = !k && l->function ? l->function : ln->function;

		err = add_one(&sb, p, l, function, ln->line, k > 0, opts);
	}
	if (err) {
		free(sb.buf);
		return NULL;
	}
	return sb.buf;
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
	size_t nr_loc = profile__nr_locations(w->p), n = 0;

	w->first = calloc(nr_loc + 1, sizeof(*w->first));
	if (!w->first)
		return -ENOMEM;
	for (size_t i = 0; i < nr_loc; i++) {
		w->first[i] = (uint32_t)n;
		n += frames_of(w->p, (uint32_t)i);
		if (n > UINT32_MAX)
			return -E2BIG;
	}
	w->first[nr_loc] = (uint32_t)n;
	w->texts = calloc(n ? n : 1, sizeof(*w->texts));
	w->borrowed = calloc(n ? n : 1, sizeof(*w->borrowed));
	if (!w->texts || !w->borrowed)
		return -ENOMEM;
	w->nr_texts = n;
	for (size_t i = 0; i < nr_loc; i++) {
		for (uint32_t k = w->first[i]; k < w->first[i + 1]; k++) {
			w->texts[k] = frame_text(w->p, (uint32_t)i, k - w->first[i], w->opts);
			if (!w->texts[k])
				return -ENOMEM;
		}
	}
	return folded_writer__share_texts(w);
}

/* The frames an off-CPU line has besides its locations' (folded.h). */
static char unwalked_text[] = ";[unwalked]";
static char off_cpu_text[] = ";[off-cpu]";

/*
 * Walks the texts of a line: the process, then each frame root first: the
 * user frames ([unwalked] in place of an unwalked one's), the kernel's, and
 * an off-CPU line's last, [off-cpu].
 */
struct line_iter {
	const struct folded_writer *w;
	const struct profile_sample *s;
	uint32_t nr_user; /* texts of user frames: 1 for [unwalked] */
	uint32_t nr_kernel;
	uint32_t nr_frames; /* and [off-cpu] */
	uint32_t frame;	    /* the next location: user ones root first, then kernel ones */
	uint32_t text;	    /* the next text of the current location, end its end */
	uint32_t end;
	char comm[COMM_TEXT_MAX];
};

static void line_iter__init(struct line_iter *it, const struct folded_writer *w, size_t sample)
{
	*it = (struct line_iter){ .w = w, .s = profile__sample(w->p, sample) };
	it->nr_user = it->s->flags & PROFILE_SAMPLE_UNWALKED ? 1 : it->s->nr_user;
	it->nr_kernel = w->opts->kernel ? it->s->nr_kernel : 0;
	it->nr_frames = it->nr_user + it->nr_kernel + !!(it->s->flags & PROFILE_SAMPLE_OFF_CPU);
	comm_text(it->s, w->opts, it->comm);
}

/* The next text of the line, NULL at its end. */
static const char *line_iter__next(struct line_iter *it)
{
	const struct profile_sample *s = it->s;
	uint32_t id;

	if (it->text < it->end)
		return it->w->texts[it->text++];
	if (it->frame >= it->nr_frames)
		return NULL;
	if (it->frame == it->nr_user + it->nr_kernel) {
		it->frame++;
		return off_cpu_text;
	}
	if (it->frame < it->nr_user && (s->flags & PROFILE_SAMPLE_UNWALKED)) {
		it->frame++;
		return unwalked_text;
	}
	if (it->frame < it->nr_user)
		id = s->user[s->nr_user - 1 - it->frame];
	else
		id = s->kernel[s->nr_kernel - 1 - (it->frame - it->nr_user)];
	it->frame++;
	it->text = it->w->first[id];
	it->end = it->w->first[id + 1];
	return it->w->texts[it->text++];
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

	return w->opts->times ? profile_sample__time_ns(s, w->opts->period_ns) : s->count;
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
	free(w->first);
	free(w->order);
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
