// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report views: loading a profile of any supported format, filtering
 * it, and counting per function (top) and per path (tree); the diff of two
 * is report_diff.c's. Nothing here prints but errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/common.h"
#include "folded_read.h"
#include "frames.h"
#include "../util/gzip.h"
#include "../util/log.h"
#include "pprof_reader.h"
#include "profile.h"
#include "report.h"

/* Loading */

/* Reads the whole of fd, at most max bytes (-EFBIG beyond). */
static int read_all(int fd, size_t max, char **out, size_t *out_len)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t n;

		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 1 << 16;
			char *nbuf;

			if (cap > max) {
				free(buf);
				return -EFBIG;
			}
			nbuf = realloc(buf, ncap + 1);
			if (!nbuf) {
				free(buf);
				return -ENOMEM;
			}
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			free(buf);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		free(buf);
		return -EFBIG;
	}
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return 0;
}

static int load_file(const char *path, char **buf, size_t *len)
{
	int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int err;

	if (fd < 0) {
		err = -errno;
		pr_err("%s: cannot open: %s", path, strerror(errno));
		return err;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		err = -EISDIR;
	else
		err = read_all(fd, PPROF_MAX_SIZE, buf, len);
	if (fd != STDIN_FILENO)
		close(fd);
	if (err == -EFBIG)
		pr_err("%s: larger than the limit of %llu MiB", path, PPROF_MAX_SIZE >> 20);
	else if (err)
		pr_err("%s: cannot read: %s", path, strerror(-err));
	return err;
}

static int gunzip(const char *path, char **buf, size_t *len)
{
	char *out;
	size_t out_len;
	int err;

	err = gzip__decompress(*buf, *len, PPROF_MAX_SIZE, &out, &out_len);
	if (err == -EFBIG)
		pr_err("%s: decompresses to more than the limit of %llu MiB", path,
		       PPROF_MAX_SIZE >> 20);
	else if (err == -ENODATA)
		pr_err("%s: truncated: the gzip data ends early", path);
	else if (err == -EBADMSG)
		pr_err("%s: corrupt gzip data", path);
	else if (err)
		pr_err("%s: cannot decompress: %s", path, strerror(-err));
	if (err)
		return err;
	free(*buf);
	*buf = out;
	*len = out_len;
	return 0;
}

/* What a file that is not a profile is, when it is something well known; NULL otherwise. */
static const char *known_other(const char *buf, size_t len)
{
	static const struct {
		const char *magic;
		const char *what;
	} kinds[] = {
		{ "<?xml",
		  "an XML file (an SVG flame graph?): read the profile it was drawn from" },
		{ "<svg", "an SVG image (a flame graph?): read the profile it was drawn from" },
		{ "<!DOCTYPE", "an HTML or XML document" },
		{ "<html", "an HTML page" },
		{ "PERFILE2",
		  "a perf.data file: fold it with `perf script | stackcollapse-perf.pl`" },
		{ "\x7f"
		  "ELF",
		  "an ELF file, not a profile" },
		{ "{", "JSON (unwprof's --json or --stats-json output?), not a profile" },
	};
	size_t skip = 0;

	while (skip < len && (buf[skip] == ' ' || buf[skip] == '\n' || buf[skip] == '\t'))
		skip++;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		size_t m = strlen(kinds[i].magic);

		if (len - skip >= m && memcmp(buf + skip, kinds[i].magic, m) == 0)
			return kinds[i].what;
	}
	return NULL;
}

static int decode(const char *path, const char *buf, size_t len, struct profile *p,
		  struct report_input *in)
{
	const char *other;

	if (!len) {
		pr_err("%s: empty%s: not a profile", path, in->gzip ? " once decompressed" : "");
		return -EBADMSG;
	}
	other = known_other(buf, len);
	if (other) {
		pr_err("%s: %s", path, other);
		return -EBADMSG;
	}
	/* Folded stacks are text; a protocol buffer has bytes below 0x20 in its tags and sizes. */
	if (folded_read__is_text(buf, len)) {
		in->format = REPORT_FORMAT_FOLDED;
		return folded_read__parse(buf, len, path, p, &in->folded);
	}
	in->format = REPORT_FORMAT_PPROF;
	return pprof_reader__decode(buf, len, path, p, &in->meta);
}

int report__load(const char *path, struct profile **out, struct report_input *in)
{
	struct profile *p = NULL;
	char *buf = NULL;
	size_t len = 0;
	int err;

	memset(in, 0, sizeof(*in));
	*out = NULL;
	err = load_file(path, &buf, &len);
	if (err)
		return err;
	in->gzip = gzip__has_magic(buf, len);
	if (in->gzip) {
		err = gunzip(path, &buf, &len);
		if (err)
			goto cleanup;
	}
	p = profile__new();
	if (!p) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = decode(path, buf, len, p, in);
	if (err)
		goto cleanup;
	if (!profile__total(p)) {
		pr_err("%s: the profile has no samples", path);
		err = -ENODATA;
		goto cleanup;
	}
	*out = p;
	p = NULL;
cleanup:
	profile__free(p);
	free(buf);
	return err;
}

/* Filtering */

struct filter_ctx {
	const struct profile *src;
	struct profile *dst;
	uint32_t *loc_map; /* src location + 1 -> dst location + 1, 0 when not copied yet */
	uint32_t *map_map; /* the same for mappings */
	uint32_t *ids;
	size_t cap_ids;
};

static int filter_mapping(struct filter_ctx *c, uint32_t id, uint32_t *out)
{
	int err;

	if (id == PROFILE_NONE) {
		*out = PROFILE_NONE;
		return 0;
	}
	if (!c->map_map[id]) {
		err = profile__add_mapping(c->dst, profile__mapping(c->src, id), &c->map_map[id]);
		if (err)
			return err;
		c->map_map[id]++;
	}
	*out = c->map_map[id] - 1;
	return 0;
}

static int filter_location(struct filter_ctx *c, uint32_t id, uint32_t *out)
{
	struct profile_location loc;
	int err;

	if (!c->loc_map[id]) {
		const struct profile_line *lines;
		size_t n;

		loc = *profile__location(c->src, id);
		lines = profile__lines(c->src, id, &n);
		err = filter_mapping(c, loc.mapping, &loc.mapping);
		if (!err)
			err = profile__add_location(c->dst, &loc, &c->loc_map[id]);
		if (!err && n)
			err = profile__set_lines(c->dst, c->loc_map[id], lines, n);
		if (err)
			return err;
		c->loc_map[id]++;
	}
	*out = c->loc_map[id] - 1;
	return 0;
}

int report__parse_sample_type(const char *name, enum report_sample_type *t)
{
	static const char *const names[] = {
		[REPORT_CPU] = "cpu", [REPORT_OFF_CPU] = "off-cpu", [REPORT_WALL] = "wall"
	};

	for (size_t i = REPORT_CPU; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(name, names[i]) == 0) {
			*t = (enum report_sample_type)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The count of s in the views of type t (report.h), rounded to the unit. */
static uint64_t typed_count(const struct profile_sample *s, const struct report_filter *f)
{
	bool off = s->flags & PROFILE_SAMPLE_OFF_CPU;

	switch (f->type) {
	case REPORT_CPU:
		return off ? 0 : s->count;
	case REPORT_OFF_CPU:
		return off ? (s->off_cpu_ns + REPORT_TIME_UNIT_NS / 2) / REPORT_TIME_UNIT_NS : 0;
	case REPORT_WALL:
		return (profile__sample_time_ns(s, f->period_ns) + REPORT_TIME_UNIT_NS / 2) /
		       REPORT_TIME_UNIT_NS;
	default:
		return s->count;
	}
}

static bool filter_match(const struct profile_sample *s, const struct report_filter *f)
{
	if (!typed_count(s, f))
		return false;
	if (f->has_pid && s->pid != f->pid)
		return false;
	return !f->comm || strncmp(s->comm, f->comm, sizeof(s->comm) - 1) == 0 ||
	       strncmp(s->thread, f->comm, sizeof(s->thread) - 1) == 0;
}

static int filter_sample(struct filter_ctx *c, const struct profile_sample *s,
			 const struct report_filter *f)
{
	struct profile_sample ns = *s;
	size_t nr = (size_t)s->nr_user + s->nr_kernel;
	int err = 0;

	ns.count = typed_count(s, f);
	if (nr > c->cap_ids) {
		uint32_t *n = reallocarray(c->ids, nr * 2, sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->ids = n;
		c->cap_ids = nr * 2;
	}
	if (f->no_kernel)
		ns.nr_kernel = 0;
	ns.user = c->ids;
	/* a sample without frames before any with: ids is NULL, and NULL + 0 is undefined */
	ns.kernel = nr ? c->ids + s->nr_user : NULL;
	for (uint32_t i = 0; i < s->nr_user && !err; i++)
		err = filter_location(c, s->user[i], &ns.user[i]);
	for (uint32_t i = 0; i < ns.nr_kernel && !err; i++)
		err = filter_location(c, s->kernel[i], &ns.kernel[i]);
	if (!err)
		err = profile__add_sample(c->dst, &ns);
	return err;
}

struct profile *report__filter(const struct profile *p, const struct report_filter *f)
{
	struct filter_ctx c = { .src = p };
	int err = -ENOMEM;

	c.dst = profile__new();
	c.loc_map = calloc(profile__nr_locations(p) + 1, sizeof(*c.loc_map));
	c.map_map = calloc(profile__nr_mappings(p) + 1, sizeof(*c.map_map));
	if (!c.dst || !c.loc_map || !c.map_map)
		goto cleanup;
	err = 0;
	for (size_t i = 0; i < profile__nr_samples(p) && !err; i++) {
		const struct profile_sample *s = profile__sample(p, i);

		if (s->count && filter_match(s, f))
			err = filter_sample(&c, s, f);
	}
cleanup:
	free(c.loc_map);
	free(c.map_map);
	free(c.ids);
	if (err) {
		profile__free(c.dst);
		errno = -err;
		return NULL;
	}
	return c.dst;
}

/* A profile file as the views take it */

/*
 * The filter of l's views, with what a count stands for in them: the type
 * asked for, or, in a profile with off-CPU samples, CPU time (as pprof's
 * default sample type) when it has any; times off the CPU are counted in
 * REPORT_TIME_UNIT_NS, which is then the views' period.
 */
static int report__file_sample_type(struct report_file *l, const struct profile *all,
				    const struct report_filter *filter, struct report_filter *typed)
{
	struct pprof_meta *m = &l->in.meta;
	bool off = profile__has_off_cpu(all), on = false;

	for (size_t i = 0; i < profile__nr_samples(all) && !on; i++)
		on = !(profile__sample(all, i)->flags & PROFILE_SAMPLE_OFF_CPU);
	*typed = *filter;
	/* the values of folded off-CPU lines are microseconds, on the CPU too */
	if (l->in.format == REPORT_FORMAT_FOLDED && l->in.folded.times)
		m->period_ns = REPORT_TIME_UNIT_NS;
	if (typed->type != REPORT_SAMPLES && typed->type != REPORT_CPU && !off) {
		pr_err("%s: no off-CPU samples (unwprof record --off-cpu makes them)", l->path);
		return -ENODATA;
	}
	if (typed->type == REPORT_SAMPLES && off)
		typed->type = on ? REPORT_CPU : REPORT_OFF_CPU;
	if (typed->type == REPORT_WALL && !m->period_ns) {
		pr_err("%s: wall time needs the sampling period, which the profile does not say",
		       l->path);
		return -ENODATA;
	}
	typed->period_ns = m->period_ns;
	if (typed->type == REPORT_OFF_CPU || typed->type == REPORT_WALL) {
		m->period_ns = REPORT_TIME_UNIT_NS;
		snprintf(m->value_type, sizeof(m->value_type), "%s",
			 typed->type == REPORT_WALL ? "wall" : "off-cpu");
		snprintf(m->value_unit, sizeof(m->value_unit), "microseconds");
	}
	return 0;
}

int report__open_file(struct report_file *l, const char *path, const struct report_filter *filter,
		      bool need_report)
{
	struct report_filter typed;
	struct profile *all = NULL;
	int err;

	l->path = path;
	err = report__load(path, &all, &l->in);
	if (!err)
		err = report__file_sample_type(l, all, filter, &typed);
	if (err) {
		profile__free(all);
		return err;
	}
	l->profile = report__filter(all, &typed);
	profile__free(all);
	if (!l->profile) {
		err = -errno;
		pr_err("%s: %s", path, strerror(errno));
		return err;
	}
	if (!profile__total(l->profile)) {
		pr_err("%s: no sample matches --pid/--comm", path);
		return -ENODATA;
	}
	if (!need_report)
		return 0;
	l->report = report__new_by(l->profile, l->by_line);
	if (!l->report) {
		err = -errno;
		pr_err("%s: %s", path, strerror(errno));
	}
	return err;
}

void report__close_file(struct report_file *l)
{
	report__free(l->report);
	profile__free(l->profile);
}

/* Functions and the tree */

struct name_entry {
	const char *name;
	uint32_t idx;
};

struct node_entry {
	uint64_t key; /* parent << 32 | func */
	uint32_t idx;
};

struct report {
	const struct profile *p;
	struct report_func *funcs; /* in the order they were met; names owned */
	size_t nr_funcs, cap_funcs;
	uint32_t *order;      /* funcs in display order */
	void *names;	      /* tsearch tree of struct name_entry */
	struct frames *fr;    /* the profile's frames (frames.h) */
	uint32_t *frame_func; /* frame -> function + 1, 0 when not named yet */
	uint64_t *seen;	      /* per function: the last sample + 1 that counted its total */
	struct report_node *nodes;
	size_t nr_nodes, cap_nodes;
	uint32_t *children; /* node ids sorted by (parent, total desc, name) */
	uint32_t *parent;
	void *node_tree; /* tsearch tree of struct node_entry */
	uint64_t total;
	bool by_line; /* functions are "name file:line" */
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct name_entry *)a)->name, ((const struct name_entry *)b)->name);
}

static int node_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct node_entry *)a)->key, y = ((const struct node_entry *)b)->key;

	return x < y ? -1 : x > y;
}

/* The function index of name (taken over), added when new; -errno on failure. */
static int report__intern(struct report *r, char *name, uint32_t *idx)
{
	struct name_entry key = { .name = name }, *e, **found;

	found = tfind(&key, &r->names, name_cmp);
	if (found) {
		free(name);
		*idx = (*found)->idx;
		return 0;
	}
	if (r->nr_funcs == r->cap_funcs) {
		size_t cap = r->cap_funcs ? r->cap_funcs * 2 : 256;
		struct report_func *n = reallocarray(r->funcs, cap, sizeof(*n));
		uint64_t *seen = n ? reallocarray(r->seen, cap, sizeof(*seen)) : NULL;

		if (n)
			r->funcs = n;
		if (!n || !seen)
			goto fail;
		memset(seen + r->cap_funcs, 0, (cap - r->cap_funcs) * sizeof(*seen));
		r->seen = seen;
		r->cap_funcs = cap;
	}
	e = malloc(sizeof(*e));
	if (!e)
		goto fail;
	e->name = name;
	e->idx = (uint32_t)r->nr_funcs;
	if (!tsearch(e, &r->names, name_cmp)) {
		free(e);
		goto fail;
	}
	r->funcs[r->nr_funcs] = (struct report_func){ .name = name };
	*idx = (uint32_t)r->nr_funcs++;
	return 0;
fail:
	free(name);
	return -ENOMEM;
}

/*
 * The function of frame i (frames.h), named on first use as every writer
 * names frames, without their marks: the tree marks inlined calls itself;
 * with " FILE:LINE" when the report is by line.
 */
static int report__frame_func(struct report *r, uint32_t i, uint32_t *func)
{
	const struct frames_name_opts name_opts = {
		.line = r->by_line ? FRAMES_LINE_PLACE : FRAMES_LINE_NONE,
		.unnamed_as_location = true,
	};
	char *name;
	int err;

	if (!r->frame_func[i]) {
		name = frames__name(r->fr, i, &name_opts);
		if (!name)
			return -ENOMEM;
		err = report__intern(r, name, &r->frame_func[i]);
		if (err)
			return err;
		r->frame_func[i]++;
	}
	*func = r->frame_func[i] - 1;
	return 0;
}

/* Where an inlined call is kept apart from a real one in the tree. */
#define NODE_INLINED (1u << 31)

/* The child of parent for func (| NODE_INLINED for an inlined call), added when new. */
static int report__node(struct report *r, uint32_t parent, uint32_t func, uint32_t *idx)
{
	struct node_entry key = { .key = (uint64_t)parent << 32 | func }, *e, **found;

	found = tfind(&key, &r->node_tree, node_cmp);
	if (found) {
		*idx = (*found)->idx;
		return 0;
	}
	if (r->nr_nodes == r->cap_nodes) {
		size_t cap = r->cap_nodes * 2;
		struct report_node *n = reallocarray(r->nodes, cap, sizeof(*n));
		uint32_t *np = reallocarray(r->parent, cap, sizeof(*np));

		if (n)
			r->nodes = n;
		if (np)
			r->parent = np;
		if (!n || !np)
			return -ENOMEM;
		r->cap_nodes = cap;
	}
	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->key = key.key;
	e->idx = (uint32_t)r->nr_nodes;
	if (!tsearch(e, &r->node_tree, node_cmp)) {
		free(e);
		return -ENOMEM;
	}
	r->nodes[r->nr_nodes] = (struct report_node){
		.func = func & ~NODE_INLINED,
		.inlined = func & NODE_INLINED,
	};
	r->parent[r->nr_nodes] = parent;
	*idx = (uint32_t)r->nr_nodes++;
	return 0;
}

/* Counts function func in sample number si (root first); *node moves down the tree. */
static int report__count(struct report *r, size_t si, uint32_t func, bool inlined, uint64_t count,
			 bool leaf, uint32_t *node)
{
	int err;

	if (func & NODE_INLINED)
		return -E2BIG;
	err = report__node(r, *node, inlined ? func | NODE_INLINED : func, node);
	if (err)
		return err;
	r->nodes[*node].total += count;
	/* a recursive function counts once per sample in the flat view */
	if (r->seen[func] != si + 1) {
		r->seen[func] = si + 1;
		r->funcs[func].total += count;
	}
	if (leaf) {
		r->nodes[*node].self += count;
		r->funcs[func].self += count;
	}
	return 0;
}

/* Counts sample si frame by frame, root first (frames.h's walk); the last is its leaf. */
static int report__add_sample(struct report *r, size_t si)
{
	const struct profile_sample *s = profile__sample(r->p, si);
	const struct frames_walk_opts walk_opts = { .kernel = true };
	struct frames_step step, next;
	struct frames_walk w;
	uint32_t node = 0, func;
	bool more;
	int err = 0;

	if (!s->count)
		return 0;
	r->total += s->count;
	r->nodes[0].total += s->count;
	frames__walk_start(&w, r->fr, s, &walk_opts);
	more = frames__walk_next(&w, &step);
	if (!more)
		r->nodes[0].self += s->count;
	while (more && !err) {
		bool leaf = !frames__walk_next(&w, &next);

		err = report__frame_func(r, step.frame, &func);
		if (!err)
			err = report__count(r, si, func, step.k > 0, s->count, leaf, &node);
		step = next;
		more = !leaf;
	}
	return err;
}

/* Siblings: by parent, then largest total first, then by name. */
static int child_cmp(const void *a, const void *b, void *arg)
{
	const struct report *r = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct report_node *nx = &r->nodes[x], *ny = &r->nodes[y];

	if (r->parent[x] != r->parent[y])
		return r->parent[x] < r->parent[y] ? -1 : 1;
	if (nx->total != ny->total)
		return nx->total > ny->total ? -1 : 1;
	return strcmp(r->funcs[nx->func].name, r->funcs[ny->func].name);
}

/* Orders every node's children and records where they start. */
static int report__sort_tree(struct report *r)
{
	r->children = calloc(r->nr_nodes, sizeof(*r->children));
	if (!r->children)
		return -ENOMEM;
	for (size_t i = 1; i < r->nr_nodes; i++)
		r->children[i - 1] = (uint32_t)i;
	qsort_r(r->children, r->nr_nodes - 1, sizeof(*r->children), child_cmp, r);
	for (size_t i = r->nr_nodes - 1; i > 0; i--) {
		struct report_node *parent = &r->nodes[r->parent[r->children[i - 1]]];

		parent->first_child = (uint32_t)(i - 1);
		parent->nr_children++;
	}
	return 0;
}

static int report__build(struct report *r)
{
	int err = 0;

	r->fr = frames__new(r->p);
	if (!r->fr)
		return -errno;
	r->cap_nodes = 256;
	r->nodes = calloc(r->cap_nodes, sizeof(*r->nodes));
	r->parent = calloc(r->cap_nodes, sizeof(*r->parent));
	r->frame_func = calloc(frames__nr(r->fr), sizeof(*r->frame_func));
	if (!r->nodes || !r->parent || !r->frame_func)
		return -ENOMEM;
	r->nr_nodes = 1; /* the root */
	for (size_t i = 0; i < profile__nr_samples(r->p) && !err; i++)
		err = report__add_sample(r, i);
	if (!err)
		err = report__sort_tree(r);
	if (err)
		return err;
	r->order = calloc(r->nr_funcs + 1, sizeof(*r->order));
	if (!r->order)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_funcs; i++)
		r->order[i] = (uint32_t)i;
	return 0;
}

struct report *report__new_by(const struct profile *p, bool by_line)
{
	struct report *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return NULL;
	r->p = p;
	r->by_line = by_line;
	err = report__build(r);
	if (err) {
		report__free(r);
		errno = -err;
		return NULL;
	}
	return r;
}

void report__free(struct report *r)
{
	if (!r)
		return;
	tdestroy(r->names, free);
	tdestroy(r->node_tree, free);
	for (size_t i = 0; i < r->nr_funcs; i++)
		free((char *)r->funcs[i].name);
	free(r->funcs);
	free(r->order);
	free(r->frame_func);
	frames__free(r->fr);
	free(r->seen);
	free(r->nodes);
	free(r->children);
	free(r->parent);
	free(r);
}

uint64_t report__total(const struct report *r)
{
	return r->total;
}

size_t report__nr_funcs(const struct report *r)
{
	return r->nr_funcs;
}

const struct report_func *report__func(const struct report *r, size_t i)
{
	return i < r->nr_funcs ? &r->funcs[r->order[i]] : NULL;
}

const char *report__func_name(const struct report *r, uint32_t func)
{
	return func < r->nr_funcs ? r->funcs[func].name : NULL;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a == b ? 0 : a > b ? -1 : 1;
}

static int func_cmp_self(const void *a, const void *b, void *arg)
{
	const struct report_func *x = &((struct report *)arg)->funcs[*(const uint32_t *)a];
	const struct report_func *y = &((struct report *)arg)->funcs[*(const uint32_t *)b];
	int c = cmp_u64_desc(x->self, y->self);

	if (!c)
		c = cmp_u64_desc(x->total, y->total);
	return c ? c : strcmp(x->name, y->name);
}

static int func_cmp_total(const void *a, const void *b, void *arg)
{
	const struct report_func *x = &((struct report *)arg)->funcs[*(const uint32_t *)a];
	const struct report_func *y = &((struct report *)arg)->funcs[*(const uint32_t *)b];
	int c = cmp_u64_desc(x->total, y->total);

	if (!c)
		c = cmp_u64_desc(x->self, y->self);
	return c ? c : strcmp(x->name, y->name);
}

void report__sort(struct report *r, enum report_sort sort)
{
	qsort_r(r->order, r->nr_funcs, sizeof(*r->order),
		sort == REPORT_SORT_TOTAL ? func_cmp_total : func_cmp_self, r);
}

const struct report_node *report__root(const struct report *r)
{
	return &r->nodes[0];
}

const struct report_node *report__child(const struct report *r, const struct report_node *n,
					uint32_t i)
{
	return i < n->nr_children ? &r->nodes[r->children[n->first_child + i]] : NULL;
}
