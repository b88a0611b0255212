// SPDX-License-Identifier: GPL-2.0-only
/*
 * JIT maps: their entries, read again as the file changes, and the perf map
 * text format. See jit_map.h; jitdump.c reads the binary format.
 *
 * Names live in a pool of their own that only grows, each distinct name
 * once: a name handed out stays valid when the file is read again, and a
 * runtime that rewrites its whole map (the JVM at each jcmd) adds no copy
 * of the names it wrote before.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/common.h"
#include "../util/hashmap.h"
#include "../util/log.h"
#include "../targets/proc_view.h"
#include "jit_map.h"
#include "jitdump.h"

#define POOL_CHUNK (64 * 1024)

struct pool_chunk {
	struct pool_chunk *next;
	size_t used, cap;
	char data[];
};

/* Distinct names: chunks that never move, and a hash set of what they hold. */
struct name_pool {
	struct pool_chunk *chunks;
	struct hashmap names; /* of the chunks' strings, by hash_bytes() of their bytes */
};

struct jit_entry {
	uint64_t start;
	uint64_t size;
	const char *name; /* in the pool */
	size_t seq;	  /* its place in the file: the later wins */
};

/* What a read saw of the file, to tell whether it changed since. */
struct file_id {
	bool exists;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct jit_map {
	char *path; /* inside the process's root */
	enum jit_map_format format;
	/* whose file: its view (root_fd a dup of its own, closed with the map), the rules */
	struct proc_view view;
	bool has_view;
	struct proc_view_rules rules;
	uint32_t pid;		   /* a jitdump's header must name it; 0: any */
	bool refused;		   /* the file last seen was refused: it names nothing */
	bool warned;		   /* a refusal was said: once a map */
	struct jit_entry *entries; /* sorted by start, not overlapping */
	size_t nr;
	struct name_pool pool;
	bool read; /* at least once */
	struct file_id seen;
	struct jit_map_stats stats;
};

struct jit_map_builder {
	struct jit_map *m;
	struct jit_entry *v; /* in file order */
	size_t nr, cap;
	struct jit_map_stats stats;
};

static const char *const reason_names[JIT_MAP_NR_REASONS] = {
	[JIT_MAP_GARBAGE] = "garbage",	   [JIT_MAP_EMPTY] = "empty",
	[JIT_MAP_HUGE] = "huge",	   [JIT_MAP_OVERLAP] = "overlapping",
	[JIT_MAP_TRUNCATED] = "truncated",
};

const char *jit_map__reason_name(enum jit_map_reason r)
{
	return r < JIT_MAP_NR_REASONS ? reason_names[r] : "?";
}

/* The pool */

struct name_key {
	const char *s;
	size_t len;
};

static bool name_is(const void *value, const void *key)
{
	const char *name = value;
	const struct name_key *k = key;

	return strncmp(name, k->s, k->len) == 0 && name[k->len] == '\0';
}

/* Room for len bytes and a NUL in the chunks. */
static char *pool_room(struct name_pool *np, size_t len)
{
	struct pool_chunk *c = np->chunks;
	size_t cap;

	if (!c || c->cap - c->used < len + 1) {
		cap = len + 1 > POOL_CHUNK ? len + 1 : POOL_CHUNK;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		*c = (struct pool_chunk){ .next = np->chunks, .cap = cap };
		np->chunks = c;
	}
	c->used += len + 1;
	return c->data + c->used - len - 1;
}

/* The pool's copy of the len bytes of s, added when new; NULL when out of memory. */
static const char *pool_intern(struct name_pool *np, const char *s, size_t len)
{
	uint64_t hash = hash_bytes(s, len);
	char *copy = hashmap__find(&np->names, hash, name_is, &(struct name_key){ s, len });

	if (copy)
		return copy;
	copy = pool_room(np, len);
	if (!copy)
		return NULL;
	memcpy(copy, s, len);
	copy[len] = '\0';
	return hashmap__add(&np->names, hash, copy) ? NULL : copy;
}

static void pool_free(struct name_pool *np)
{
	while (np->chunks) {
		struct pool_chunk *next = np->chunks->next;

		free(np->chunks);
		np->chunks = next;
	}
	hashmap__exit(&np->names);
}

/* Building the entries of one read */

int jit_map__builder_add(struct jit_map_builder *b, uint64_t start, uint64_t size, const char *name,
			 size_t len)
{
	const char *interned;

	if (!size) {
		jit_map__builder_refuse(b, JIT_MAP_EMPTY);
		return 0;
	}
	if (size > JIT_MAP_MAX_CODE || start + size < start) {
		jit_map__builder_refuse(b, JIT_MAP_HUGE);
		return 0;
	}
	if (!len || len > JIT_MAP_MAX_NAME || memchr(name, '\0', len)) {
		jit_map__builder_refuse(b, JIT_MAP_GARBAGE);
		return 0;
	}
	if (grow((void **)&b->v, &b->cap, b->nr, sizeof(*b->v)))
		return -ENOMEM;
	interned = pool_intern(&b->m->pool, name, len);
	if (!interned)
		return -ENOMEM;
	b->v[b->nr] = (struct jit_entry){ start, size, interned, b->nr };
	b->nr++;
	return 0;
}

void jit_map__builder_refuse(struct jit_map_builder *b, enum jit_map_reason r)
{
	if (r < JIT_MAP_NR_REASONS)
		b->stats.refused[r]++;
}

void jit_map__builder_unwind_record(struct jit_map_builder *b)
{
	b->stats.unwind_records++;
}

uint32_t jit_map__builder_pid(const struct jit_map_builder *b)
{
	return b->m->pid;
}

/* A jitdump moves code rarely, and soon after loading it: the search goes back so far. */
#define FIND_BACK 4096

const char *jit_map__builder_find(const struct jit_map_builder *b, uint64_t start, size_t *len)
{
	for (size_t i = b->nr, n = 0; i > 0 && n < FIND_BACK; i--, n++) {
		if (b->v[i - 1].start == start) {
			*len = strlen(b->v[i - 1].name);
			return b->v[i - 1].name;
		}
	}
	return NULL;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct jit_entry *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * Sorts the entries and, where two overlap, keeps the one written later.
 * The kept ones do not overlap, so an entry can only overlap the last one
 * kept: the one before ends at or before that one's start.
 */
static void builder_resolve(struct jit_map_builder *b)
{
	size_t out = 0;

	if (!b->nr)
		return; /* and b->v may not be allocated */
	qsort(b->v, b->nr, sizeof(*b->v), entry_cmp);
	for (size_t i = 0; i < b->nr; i++) {
		struct jit_entry *e = &b->v[i];
		struct jit_entry *last = out ? &b->v[out - 1] : NULL;

		if (last && last->start + last->size > e->start) {
			b->stats.refused[JIT_MAP_OVERLAP]++;
			if (last->seq > e->seq)
				continue;
			out--;
		}
		b->v[out++] = *e;
	}
	b->nr = out;
}

/* The entries built replace m's. */
static void builder_finish(struct jit_map_builder *b)
{
	struct jit_map *m = b->m;

	builder_resolve(b);
	free(m->entries);
	m->entries = b->v;
	m->nr = b->nr;
	b->stats.entries = b->nr;
	b->stats.reads = m->stats.reads;
	m->stats = b->stats;
	b->v = NULL;
}

/* The perf map format */

/* A hex number with or without "0x", then blanks; false when there is none. */
static bool parse_hex(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	bool any = false;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (*v = 0; p < end; p++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
			d = (*p | 0x20) - 'a' + 10;
		else
			break;
		if (*v >> 60)
			return false; /* more than 64 bits */
		*v = *v << 4 | d;
		any = true;
	}
	if (!any || p == end || (*p != ' ' && *p != '\t'))
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*s = p;
	return true;
}

/* One line, without its newline. */
static int perf_map_line(struct jit_map_builder *b, const char *p, const char *end)
{
	uint64_t start, size;

	while (end > p && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (p == end)
		return 0; /* a blank line says nothing */
	if (!parse_hex(&p, end, &start) || !parse_hex(&p, end, &size) || p == end || !start) {
		jit_map__builder_refuse(b, JIT_MAP_GARBAGE);
		return 0;
	}
	return jit_map__builder_add(b, start, size, p, (size_t)(end - p));
}

static int perf_map_parse(const char *buf, size_t len, struct jit_map_builder *b)
{
	const char *p = buf, *end = buf + len;
	int err = 0;

	while (!err && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl) {
			/* the runtime is writing it: it is read again once whole */
			jit_map__builder_refuse(b, JIT_MAP_TRUNCATED);
			break;
		}
		err = perf_map_line(b, p, nl);
		p = nl + 1;
	}
	return err;
}

/* Replaces the entries of m by those of buf. */
static int jit_map__parse_buf(struct jit_map *m, const void *buf, size_t len)
{
	struct jit_map_builder b = { .m = m };
	int err;

	if (m->format == JIT_MAP_JITDUMP)
		err = jitdump__parse(buf, len, &b);
	else
		err = perf_map_parse(buf, len, &b);
	if (err && err != -EINVAL) {
		free(b.v);
		return err;
	}
	builder_finish(&b);
	return err;
}

int jit_map__parse(struct jit_map *m, const void *buf, size_t len)
{
	m->has_view = false;
	return jit_map__parse_buf(m, buf, len);
}

/* Reading the file */

static void file_id_of(const struct stat *st, struct file_id *id)
{
	*id = (struct file_id){ true, st->st_dev, st->st_ino, st->st_size, st->st_mtim };
}

static bool file_id_eq(const struct file_id *a, const struct file_id *b)
{
	if (a->exists != b->exists)
		return false;
	return !a->exists ||
	       (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
		a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec);
}

/*
 * The size bytes of fd into *buf (malloc'd), and no more: a file that grows
 * while it is read (a runtime appending, or someone keeping it busy) is read
 * as it was, and the rest next time. *len is less at the end of the file.
 */
static int read_all(int fd, size_t size, char **buf, size_t *len)
{
	char *b = malloc(size + 1);
	size_t n = 0;

	if (!b)
		return -ENOMEM;
	while (n < size) {
		ssize_t r = read(fd, b + n, size - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(b);
			return -errno;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* The process and its file, as messages name them. */
static void jit_map__label(const struct jit_map *m, char *buf, size_t size)
{
	snprintf(buf, size, "%s (process %d)", m->path, (int)m->view.pid);
}

/* The file was refused: it names nothing; said once a map, counted once a file. */
static void jit_map__refuse(struct jit_map *m, enum proc_view_refusal why, const struct stat *st)
{
	char label[PATH_MAX + 32];

	m->refused = true;
	proc_view__count(&m->view, why);
	if (m->warned)
		return;
	m->warned = true;
	jit_map__label(m, label, sizeof(label));
	pr_warn("%s: not read: %s; its JIT code stays unnamed", label,
		proc_view__refusal_text(why, st));
}

/* Reads the open file of st again; a jitdump that is not one of this process is refused. */
static void jit_map__read(struct jit_map *m, int fd, const struct stat *st)
{
	char *buf = NULL;
	size_t len = 0;
	int err;

	err = read_all(fd, (size_t)st->st_size, &buf, &len);
	m->stats.reads++;
	if (!err)
		err = jit_map__parse_buf(m, buf, len);
	free(buf);
	if (err == -EINVAL && m->format == JIT_MAP_JITDUMP) {
		/* its header: no entry read, and the refusal said, not its entries' */
		m->stats.refused[JIT_MAP_GARBAGE] = 0;
		/* shorter than a header: the runtime is writing it, read again once it changed */
		if (len >= JITDUMP_HEADER_SIZE)
			jit_map__refuse(m, PROC_VIEW_FORGED, st);
		return;
	}
	m->refused = false;
	pr_debug("%s: read %zu times, %zu entries", m->path, m->stats.reads, m->stats.entries);
}

/*
 * Reads the file when it never was, or when it changed since: a file that
 * went away leaves the entries read before; a refused one names nothing.
 */
static void jit_map__refresh(struct jit_map *m)
{
	enum proc_view_refusal why = PROC_VIEW_NR;
	struct file_id id = {};
	struct stat st;
	int fd;

	fd = proc_view__open(&m->view, m->path, &m->rules, &st, &why);
	if (fd >= 0 || fd == -EPERM)
		file_id_of(&st, &id);
	if (m->read && file_id_eq(&id, &m->seen)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	m->read = true;
	m->seen = id;
	if (fd == -EPERM) {
		jit_map__refuse(m, why, &st);
		free(m->entries);
		m->entries = NULL;
		m->nr = 0;
		return;
	}
	if (fd < 0)
		return;
	jit_map__read(m, fd, &st);
	close(fd);
}

static const struct jit_entry *jit_map__find(const struct jit_map *m, uint64_t addr)
{
	size_t past = SORTED_PAST(m->entries, 0, m->nr, start, addr);
	const struct jit_entry *e = past ? &m->entries[past - 1] : NULL;

	return e && addr - e->start < e->size ? e : NULL;
}

int jit_map__lookup(struct jit_map *m, uint64_t addr, const char **name, uint64_t *offset)
{
	const struct jit_entry *e = jit_map__find(m, addr);

	if (!e && m->has_view) {
		jit_map__refresh(m);
		e = jit_map__find(m, addr);
	}
	if (!e)
		return -ENOENT;
	*name = e->name;
	*offset = addr - e->start;
	return 0;
}

const struct jit_map_stats *jit_map__stats(const struct jit_map *m)
{
	return &m->stats;
}

struct jit_map *jit_map__new(const char *path, enum jit_map_format format,
			     const struct jit_map_opts *opts)
{
	struct jit_map *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->format = format;
	m->view.root_fd = -1;
	m->path = strdup(path);
	if (!m->path)
		goto nomem;
	if (opts && opts->view) {
		m->view = *opts->view;
		m->view.root_fd = fcntl(opts->view->root_fd, F_DUPFD_CLOEXEC, 0);
		m->has_view = true;
		m->rules = (struct proc_view_rules){
			.max_size = JIT_MAP_MAX_FILE,
			.no_links = opts->mapped,
			.dev = opts->dev,
			.ino = opts->ino,
		};
	}
	if (opts)
		m->pid = opts->pid;
	return m;
nomem:
	free(m);
	errno = ENOMEM;
	return NULL;
}

/* What the last read refused, said once: the file is the runtime's, a bad entry is its bug. */
static void jit_map__report(const struct jit_map *m)
{
	const struct jit_map_stats *s = &m->stats;
	char what[256] = "";
	size_t n = 0, bad = 0;

	for (int r = 0; r < JIT_MAP_NR_REASONS; r++) {
		if (!s->refused[r])
			continue;
		n += (size_t)snprintf(what + n, sizeof(what) - n, "%s%zu %s", n ? ", " : "",
				      s->refused[r], reason_names[r]);
		if (n >= sizeof(what))
			n = sizeof(what) - 1;
		if (r != JIT_MAP_OVERLAP)
			bad += s->refused[r];
	}
	if (bad)
		pr_warn("%s: entries refused: %s; %zu kept", m->path, what, s->entries);
	else if (n)
		pr_debug("%s: entries replaced by later ones: %s; %zu kept", m->path, what,
			 s->entries);
}

void jit_map__free(struct jit_map *m)
{
	if (!m)
		return;
	if (m->read && !m->refused)
		jit_map__report(m);
	if (m->view.root_fd >= 0)
		close(m->view.root_fd);
	free(m->entries);
	pool_free(&m->pool);
	free(m->path);
	free(m);
}
