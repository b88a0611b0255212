// SPDX-License-Identifier: GPL-2.0-only
/* The folded-stack writer: format each sample, sort, merge, write. */
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

struct folded_line {
	char *stack;
	uint64_t count;
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

/* The frames of location id, root first: the functions inlined there follow the one that holds them. */
static int add_frame(struct strbuf *sb, const struct profile *p, uint32_t id,
		     const struct folded_opts *opts)
{
	const struct profile_location *l = profile__location(p, id);
	size_t n;
	const struct profile_line *lines = profile__lines(p, id, &n);
	int err = 0;

	if (l->kind != PROFILE_FRAME_NATIVE)
		return add_interpreted(sb, l, n ? &lines[0] : NULL);
	if (!n)
		return add_one(sb, p, l, l->function, 0, false, opts);
	for (size_t i = n; !err && i > 0; i--) {
		const struct profile_line *ln = &lines[i - 1];
		/* the outermost line's function is the location's */
		const char *function = i == n && l->function ? l->function : ln->function;

		err = add_one(sb, p, l, function, ln->line, i < n, opts);
	}
	return err;
}

static int add_comm(struct strbuf *sb, const struct profile_sample *s,
		    const struct folded_opts *opts)
{
	char comm[PROFILE_COMM_LEN + 1] = {};
	int err;

	memcpy(comm, s->comm, sizeof(s->comm));
	err = strbuf__add_name(sb, comm[0] ? comm : "[unknown]");
	if (err)
		return err;
	if (opts->tid && s->thread[0] && strncmp(s->thread, s->comm, sizeof(s->comm)) != 0) {
		char thread[PROFILE_COMM_LEN + 1] = {};

		memcpy(thread, s->thread, sizeof(s->thread));
		err = strbuf__addf(sb, "-%" PRIu32 "/%" PRIu32 " (", s->pid, s->tid);
		if (!err)
			err = strbuf__add_name(sb, thread);
		return err ? err : strbuf__addf(sb, ")");
	}
	if (opts->tid)
		return strbuf__addf(sb, "-%" PRIu32 "/%" PRIu32, s->pid, s->tid);
	if (opts->pid)
		return strbuf__addf(sb, "-%" PRIu32, s->pid);
	return 0;
}

/* The stack of s, root first, without the count. */
static char *format_stack(const struct profile *p, const struct profile_sample *s,
			  const struct folded_opts *opts)
{
	struct strbuf sb = {};
	int err;

	err = add_comm(&sb, s, opts);
	for (uint32_t i = s->nr_user; !err && i > 0; i--)
		err = add_frame(&sb, p, s->user[i - 1], opts);
	for (uint32_t i = s->nr_kernel; opts->kernel && !err && i > 0; i--)
		err = add_frame(&sb, p, s->kernel[i - 1], opts);
	if (err) {
		free(sb.buf);
		errno = -err;
		return NULL;
	}
	return sb.buf;
}

static int line_cmp(const void *a, const void *b)
{
	const struct folded_line *la = a, *lb = b;

	return strcmp(la->stack, lb->stack);
}

static void lines_free(struct folded_line *lines, size_t nr)
{
	for (size_t i = 0; lines && i < nr; i++)
		free(lines[i].stack);
	free(lines);
}

/* Writes sorted lines, merging runs of the same stack. */
static int write_lines(FILE *f, const struct folded_line *lines, size_t nr)
{
	for (size_t i = 0; i < nr;) {
		uint64_t count = 0;
		size_t j;

		for (j = i; j < nr && strcmp(lines[i].stack, lines[j].stack) == 0; j++)
			count += lines[j].count;
		if (fprintf(f, "%s %" PRIu64 "\n", lines[i].stack, count) < 0)
			return errno ? -errno : -EIO;
		i = j;
	}
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int folded__write(FILE *f, const struct profile *p, const struct folded_opts *opts)
{
	size_t nr = profile__nr_samples(p), nr_lines = 0;
	struct folded_line *lines;
	int err = 0;

	lines = calloc(nr ? nr : 1, sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		const struct profile_sample *s = profile__sample(p, i);

		if (!s->count)
			continue;
		lines[nr_lines].stack = format_stack(p, s, opts);
		if (!lines[nr_lines].stack) {
			err = -errno;
			goto cleanup;
		}
		lines[nr_lines++].count = s->count;
	}
	qsort(lines, nr_lines, sizeof(*lines), line_cmp);
	errno = 0;
	err = write_lines(f, lines, nr_lines);
cleanup:
	lines_free(lines, nr_lines);
	return err;
}
