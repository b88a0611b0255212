// SPDX-License-Identifier: GPL-2.0-only
/*
 * The folded-stack reader: one pass decides what the first frames hold,
 * a second adds every line as a sample whose frames are locations named by
 * the frame text, one location per distinct (text, kernel).
 */
#include <errno.h>
#include <inttypes.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "folded_read.h"
#include "../util/log.h"
#include "profile.h"

#define KERNEL_SUFFIX "_[k]"
#define KERNEL_SUFFIX_LEN (sizeof(KERNEL_SUFFIX) - 1)

/* A line cut into its parts; the strings point into the buffer and are not NUL-terminated. */
struct line {
	const char *stack;
	size_t stack_len;
	uint64_t count;
};

struct frame_entry {
	char *name;
	bool kernel;
	uint32_t id;
};

struct folded_reader {
	const char *name;
	struct profile *p;
	struct folded_read_info *info;
	void *frames; /* tsearch tree of struct frame_entry */
	uint32_t *ids;
	size_t cap_ids;
	size_t lineno;
};

bool folded_read__is_text(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = buf[i];

		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
			return false;
	}
	return true;
}

static bool is_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* Splits "STACK COUNT"; false when the line has no count. */
static bool line_parse(const char *s, size_t len, struct line *l)
{
	size_t end = len, i;
	uint64_t count = 0;

	while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r'))
		end--;
	for (i = end; i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9'; i--)
		;
	if (i == end || i == 0 || (s[i - 1] != ' ' && s[i - 1] != '\t') || end - i > 19)
		return false;
	for (size_t j = i; j < end; j++)
		count = count * 10 + (uint64_t)(s[j] - '0');
	while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
		i--;
	l->stack = s;
	l->stack_len = i;
	l->count = count;
	return i > 0;
}

/* Parses the decimal digits s[0..len) into *v; false when there are none or too many. */
static bool parse_u32(const char *s, size_t len, uint32_t *v)
{
	uint64_t n = 0;

	if (!len || len > 10)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		n = n * 10 + (uint64_t)(s[i] - '0');
	}
	if (n > UINT32_MAX)
		return false;
	*v = (uint32_t)n;
	return true;
}

/*
 * Splits a first frame "comm-PID/TID" (tid) or "comm-PID" into its parts;
 * *comm_len is the length of the comm. False when it does not have that form.
 */
static bool comm_parse(const char *s, size_t len, bool tid, size_t *comm_len, uint32_t *pid_out,
		       uint32_t *tid_out)
{
	size_t dash, slash = len;

	if (tid) {
		slash = len;
		while (slash > 0 && s[slash - 1] != '/')
			slash--;
		if (!slash || !parse_u32(s + slash, len - slash, tid_out))
			return false;
		slash--;
	}
	dash = slash;
	while (dash > 0 && s[dash - 1] != '-')
		dash--;
	if (dash < 2 || !parse_u32(s + dash, slash - dash, pid_out))
		return false;
	*comm_len = dash - 1;
	return true;
}

/*
 * "comm-PID/TID (THREAD)" or "comm-PID/TID": *thread_len is 0 without a
 * thread name, which starts at s + *thread_off. Names may hold " (" too: the
 * first one after which the part before parses as comm-PID/TID is taken.
 */
static bool comm_parse_tid(const char *s, size_t len, size_t *comm_len, uint32_t *pid,
			   uint32_t *tid, size_t *thread_off, size_t *thread_len)
{
	*thread_len = 0;
	if (comm_parse(s, len, true, comm_len, pid, tid))
		return true;
	if (len < 4 || s[len - 1] != ')')
		return false;
	for (size_t i = 1; i + 3 < len; i++) {
		if (s[i] != ' ' || s[i + 1] != '(' || !comm_parse(s, i, true, comm_len, pid, tid))
			continue;
		*thread_off = i + 2;
		*thread_len = len - 1 - *thread_off;
		return true;
	}
	return false;
}

/* Lines of buf, one at a time: *pos moves past the line; false at the end. */
static bool next_line(const char *buf, size_t len, size_t *pos, const char **s, size_t *n)
{
	const char *nl;

	if (*pos >= len)
		return false;
	*s = buf + *pos;
	nl = memchr(*s, '\n', len - *pos);
	*n = nl ? (size_t)(nl - *s) : len - *pos;
	*pos += *n + 1;
	return true;
}

/* First pass: do all first frames carry a pid, a tid? Every line is checked for its count. */
static int folded_reader__scan(struct folded_reader *r, const char *buf, size_t len,
			       size_t *nr_lines)
{
	bool all_pid = true, all_tid = true;
	size_t pos = 0, n;
	const char *s;

	*nr_lines = 0;
	for (r->lineno = 1; next_line(buf, len, &pos, &s, &n); r->lineno++) {
		struct line l;
		const char *semi;
		size_t first_len, comm_len, thread_off, thread_len;
		uint32_t pid, tid;

		if (is_blank(s, n))
			continue;
		if (!line_parse(s, n, &l)) {
			pr_err("%s:%zu: not a folded stack: expected 'frame;frame;... COUNT'",
			       r->name, r->lineno);
			return -EBADMSG;
		}
		semi = memchr(l.stack, ';', l.stack_len);
		first_len = semi ? (size_t)(semi - l.stack) : l.stack_len;
		all_tid = all_tid && comm_parse_tid(l.stack, first_len, &comm_len, &pid, &tid,
						    &thread_off, &thread_len);
		all_pid = all_pid && comm_parse(l.stack, first_len, false, &comm_len, &pid, &tid);
		(*nr_lines)++;
	}
	r->info->tid = *nr_lines && all_tid;
	r->info->pid = *nr_lines && (all_tid || all_pid);
	return 0;
}

static int frame_entry_cmp(const void *a, const void *b)
{
	const struct frame_entry *x = a, *y = b;

	if (x->kernel != y->kernel)
		return x->kernel ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void frame_entry_free(void *e)
{
	free(((struct frame_entry *)e)->name);
	free(e);
}

/* The location of the frame s[0..len), added when new. */
static int folded_reader__frame(struct folded_reader *r, const char *s, size_t len, bool kernel,
				uint32_t *id)
{
	struct frame_entry key = { .kernel = kernel }, *e = NULL, **found;
	struct profile_location loc = { .kernel = kernel, .mapping = PROFILE_NONE };
	int err = -ENOMEM;

	key.name = strndup(s, len);
	if (!key.name)
		return -ENOMEM;
	found = tfind(&key, &r->frames, frame_entry_cmp);
	if (found) {
		*id = (*found)->id;
		free(key.name);
		return 0;
	}
	loc.function = key.name;
	err = profile__add_location(r->p, &loc, &key.id);
	if (err)
		goto cleanup;
	e = malloc(sizeof(*e));
	if (e)
		*e = key;
	if (!e || !tsearch(e, &r->frames, frame_entry_cmp)) {
		err = -ENOMEM;
		goto cleanup;
	}
	*id = key.id;
	return 0;
cleanup:
	free(e);
	free(key.name);
	return err;
}

static int folded_reader__reserve(struct folded_reader *r, size_t nr)
{
	uint32_t *n;

	if (nr <= r->cap_ids)
		return 0;
	n = reallocarray(r->ids, nr * 2, sizeof(*n));
	if (!n)
		return -ENOMEM;
	r->ids = n;
	r->cap_ids = nr * 2;
	return 0;
}

static bool is_kernel_frame(const char *s, size_t len)
{
	return len > KERNEL_SUFFIX_LEN &&
	       memcmp(s + len - KERNEL_SUFFIX_LEN, KERNEL_SUFFIX, KERNEL_SUFFIX_LEN) == 0;
}

/* Fills s->comm, pid and tid from the first frame. */
static void folded_reader__comm(struct folded_reader *r, const char *s, size_t len,
				struct profile_sample *ps)
{
	size_t comm_len = len, thread_off = 0, thread_len = 0;

	if (r->info->tid)
		comm_parse_tid(s, len, &comm_len, &ps->pid, &ps->tid, &thread_off, &thread_len);
	else if (r->info->pid)
		comm_parse(s, len, false, &comm_len, &ps->pid, &ps->tid);
	if (comm_len >= sizeof(ps->comm))
		comm_len = sizeof(ps->comm) - 1;
	memcpy(ps->comm, s, comm_len);
	if (thread_len >= sizeof(ps->thread))
		thread_len = sizeof(ps->thread) - 1;
	memcpy(ps->thread, s + thread_off, thread_len);
}

/*
 * Adds one line. Frames come root first; the model wants them leaf first,
 * so they are stored from the end of ids backwards.
 */
static int folded_reader__line(struct folded_reader *r, const struct line *l)
{
	static const char off_cpu[] = ";[off-cpu]", unwalked[] = "[unwalked]";
	struct profile_sample ps = { .count = l->count };
	const char *s = l->stack, *end = l->stack + l->stack_len, *semi;
	size_t nr = 1, n = 0, nr_kernel = 0;
	int err;

	if (l->stack_len > sizeof(off_cpu) - 1 &&
	    !memcmp(end - (sizeof(off_cpu) - 1), off_cpu, sizeof(off_cpu) - 1)) {
		end -= sizeof(off_cpu) - 1;
		ps.flags = PROFILE_SAMPLE_OFF_CPU;
		ps.off_cpu_ns = l->count * 1000;
		r->info->times = true;
	}

	for (const char *c = s; c < end; c++)
		nr += *c == ';';
	err = folded_reader__reserve(r, nr);
	if (err)
		return err;
	semi = memchr(s, ';', l->stack_len);
	folded_reader__comm(r, s, semi ? (size_t)(semi - s) : l->stack_len, &ps);
	while (semi) {
		const char *f = semi + 1;
		size_t flen;
		bool kernel;

		semi = memchr(f, ';', (size_t)(end - f));
		flen = semi ? (size_t)(semi - f) : (size_t)(end - f);
		if ((ps.flags & PROFILE_SAMPLE_OFF_CPU) && !n && flen == sizeof(unwalked) - 1 &&
		    !memcmp(f, unwalked, flen)) {
			ps.flags |= PROFILE_SAMPLE_UNWALKED;
			nr--;
			continue;
		}
		kernel = is_kernel_frame(f, flen);
		/* a kernel frame followed by a user frame was not a kernel frame */
		nr_kernel = kernel ? nr_kernel + 1 : 0;
		err = folded_reader__frame(r, f, kernel ? flen - KERNEL_SUFFIX_LEN : flen, kernel,
					   &r->ids[nr - 1 - n]);
		if (err)
			return err;
		n++;
	}
	ps.kernel = r->ids + nr - n;
	/* Kernel frames that turned out to be followed by user frames keep their suffix. */
	for (size_t i = nr_kernel; i < n; i++) {
		const struct profile_location *loc = profile__location(r->p, ps.kernel[i]);
		char *full;

		if (!loc->kernel)
			continue;
		if (asprintf(&full, "%s" KERNEL_SUFFIX, loc->function) < 0)
			return -ENOMEM;
		err = folded_reader__frame(r, full, strlen(full), false, &ps.kernel[i]);
		free(full);
		if (err)
			return err;
	}
	ps.nr_kernel = (uint32_t)nr_kernel;
	ps.user = ps.kernel + nr_kernel;
	ps.nr_user = (uint32_t)(n - nr_kernel);
	r->info->kernel |= nr_kernel > 0;
	return profile__add_sample(r->p, &ps);
}

int folded_read__parse(const char *buf, size_t len, const char *name, struct profile *p,
		       struct folded_read_info *info)
{
	struct folded_reader r = { .name = name, .p = p, .info = info };
	size_t pos = 0, n, nr_lines;
	const char *s;
	int err;

	memset(info, 0, sizeof(*info));
	err = folded_reader__scan(&r, buf, len, &nr_lines);
	for (r.lineno = 1; !err && next_line(buf, len, &pos, &s, &n); r.lineno++) {
		struct line l;

		if (is_blank(s, n) || !line_parse(s, n, &l) || !l.count)
			continue;
		err = folded_reader__line(&r, &l);
		if (err)
			pr_err("%s:%zu: %s", name, r.lineno, strerror(-err));
	}
	tdestroy(r.frames, frame_entry_free);
	free(r.ids);
	return err;
}
