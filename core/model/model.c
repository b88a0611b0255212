// SPDX-License-Identifier: GPL-2.0-only
/* The model's processes and their mappings, and its lifecycle. See model.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../targets/procfs.h"
#include "../util/log.h"
#include "internal.h"

struct model *model__new(const struct model_opts *opts)
{
	struct model *md = calloc(1, sizeof(*md));

	if (!md)
		return NULL;
	if (opts)
		md->opts = *opts;
	if (md->opts.debug_dir) {
		md->debug_dir = strdup(md->opts.debug_dir);
		if (!md->debug_dir) {
			free(md);
			errno = ENOMEM;
			return NULL;
		}
		md->opts.debug_dir = md->debug_dir;
	}
	return md;
}

/* ---- roots ---- */

static uint64_t root_hash(const struct model_root *r)
{
	return hash_u64(r->mnt_ns ^ hash_u64(r->dev ^ hash_u64(r->ino)));
}

static bool root_is(const void *value, const void *key)
{
	const struct model_root *a = value, *b = key;

	return a->mnt_ns == b->mnt_ns && a->dev == b->dev && a->ino == b->ino;
}

/*
 * The root of process pid (0: unwprof's own), shared with the processes
 * that have it, one reference more; NULL and errno when it cannot be opened.
 */
static struct model_root *model__root_get(struct model *md, pid_t pid)
{
	struct model_root key = { .fd = -1 }, *r;
	char path[64];
	struct stat st;
	int fd;

	fd = pid ? procfs__open_root(pid) : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && !pid)
		fd = -errno;
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	snprintf(path, sizeof(path), pid ? "/proc/%d/ns/mnt" : "/proc/self/ns/mnt", (int)pid);
	if (fstat(fd, &st) == 0)
		key = (struct model_root){ .dev = st.st_dev, .ino = st.st_ino, .fd = fd, .refs = 1 };
	if (key.fd < 0 || stat(path, &st)) {
		close(fd);
		errno = ESRCH;
		return NULL;
	}
	key.mnt_ns = st.st_ino;
	r = hashmap__find(&md->roots, root_hash(&key), root_is, &key);
	if (r) {
		close(fd);
		r->refs++;
		return r;
	}
	r = malloc(sizeof(*r));
	if (r)
		*r = key;
	if (!r || hashmap__add(&md->roots, root_hash(r), r)) {
		free(r);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

/* One reference less to r (may be NULL): closed with the last, so a container's mounts go. */
static void model__root_put(struct model *md, struct model_root *r)
{
	if (!r || --r->refs)
		return;
	hashmap__remove(&md->roots, root_hash(r), r);
	close(r->fd);
	free(r);
}

int model__own_root(struct model *md)
{
	if (!md->own_root)
		md->own_root = model__root_get(md, 0);
	return md->own_root ? md->own_root->fd : -1;
}

void model__view(struct model *md, pid_t pid, struct proc_view *v)
{
	const struct model_proc *p = model__process(md, pid);

	if (p && p->root) {
		*v = p->view;
		return;
	}
	proc_view__default(v, model__own_root(md), pid);
	v->counts = &md->refused;
}

/*
 * Reads how p sees the files it names: its ids and its root, now. The view
 * read before stays when the process is gone.
 */
static void model__read_view(struct model *md, struct model_proc *p)
{
	struct model_root *root;
	struct proc_view v;

	if (proc_view__read(p->pid, &v))
		return;
	root = model__root_get(md, p->pid);
	if (!root)
		return;
	model__root_put(md, p->root);
	p->root = root;
	p->view = v;
	p->view.root_fd = root->fd;
	p->view.counts = &md->refused;
}

/* unwprof's pid namespace (the inode of /proc/self/ns/pid), 0 when unknown. */
static uint64_t model__own_pid_ns(struct model *md)
{
	struct stat st;

	if (!md->own_pid_ns && stat("/proc/self/ns/pid", &st) == 0)
		md->own_pid_ns = st.st_ino;
	return md->own_pid_ns;
}

/*
 * Whether p's view still holds after an exec: the same pid and mount
 * namespaces, the same root and the same effective user (the owner of
 * /proc/PID; root's for a process that changed users, read again then).
 * Stats of /proc cost a third of a view's reads, and every exec asks.
 */
static bool model__view_holds(const struct model_proc *p)
{
	struct stat st;
	char path[32];
	bool holds;
	int dir;

	snprintf(path, sizeof(path), "/proc/%d", (int)p->pid);
	dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return true; /* gone: what was read stays */
	holds = fstat(dir, &st) == 0 && st.st_uid == p->view.euid &&
		fstatat(dir, "ns/pid", &st, 0) == 0 && st.st_ino == p->view.pid_ns &&
		fstatat(dir, "ns/mnt", &st, 0) == 0 && st.st_ino == p->root->mnt_ns &&
		fstatat(dir, "root", &st, 0) == 0 && st.st_dev == p->root->dev &&
		st.st_ino == p->root->ino;
	close(dir);
	return holds;
}

/*
 * Whether p may have exec'd since its view was read: it was told
 * (model__exec()), or pm replaces every mapping p had (an exec whose event
 * was lost; a child's first read, its mappings its parent's). Both are in
 * order of address: one walk.
 */
static bool model__exec_seen(const struct model_proc *p, const struct procmaps *pm)
{
	size_t i = 0, j = 0;

	if (p->exec)
		return true;
	while (i < p->nr && j < pm->nr) {
		const struct procmap *old = &p->maps[i].map, *m = &pm->maps[j];

		if (!p->maps[i].current || old->start < m->start) {
			i++;
		} else if (m->start < old->start) {
			j++;
		} else {
			if (m->end == old->end && m->inode == old->inode)
				return false;
			i++;
			j++;
		}
	}
	return true;
}

/*
 * How p sees its files, read when it never was or an exec may have changed
 * it, before its files are opened (their debug files are looked up as it
 * sees them).
 */
static void model__update_view(struct model *md, struct model_proc *p, const struct procmaps *pm)
{
	if (!p->root || !p->view.nspid || (model__exec_seen(p, pm) && !model__view_holds(p)))
		model__read_view(md, p);
	p->exec = false;
}

static void model__proc_free(struct model *md, struct model_proc *p)
{
	if (!p)
		return;
	model__root_put(md, p->root);
	free(p->maps);
	free(p);
}

void model__free(struct model *md)
{
	if (!md)
		return;
	for (size_t i = 0; i < md->procs.cap; i++)
		model__proc_free(md, md->procs.slots[i].value);
	hashmap__exit(&md->procs);
	model__root_put(md, md->own_root);
	hashmap__exit(&md->roots);
	for (size_t i = 0; i < md->paths.cap; i++)
		free(md->paths.slots[i].value);
	hashmap__exit(&md->paths);
	model__free_files(md);
	free(md->debug_dir);
	free(md);
}

void model__stats(const struct model *md, struct model_stats *st)
{
	*st = md->stats;
	memcpy(st->files_refused, md->refused.refused, sizeof(st->files_refused));
}

static bool str_is(const void *value, const void *key)
{
	return strcmp(value, key) == 0;
}

const char *model__intern(struct model *md, const char *s)
{
	uint64_t h = hash_str(s);
	char *kept = hashmap__find(&md->paths, h, str_is, s);

	if (kept)
		return kept;
	kept = strdup(s);
	if (kept && hashmap__add(&md->paths, h, kept)) {
		free(kept);
		kept = NULL;
	}
	return kept;
}

/* ---- processes ---- */

static bool proc_is(const void *value, const void *key)
{
	return ((const struct model_proc *)value)->pid == *(const pid_t *)key;
}

struct model_proc *model__process(const struct model *md, pid_t pid)
{
	return hashmap__find(&md->procs, hash_u64((uint64_t)pid), proc_is, &pid);
}

/* Process pid, added without mappings when new; NULL on allocation failure. */
static struct model_proc *model__proc_get(struct model *md, pid_t pid)
{
	struct model_proc *p = model__process(md, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (hashmap__add(&md->procs, hash_u64((uint64_t)pid), p)) {
		free(p);
		return NULL;
	}
	return p;
}

void model__exec(struct model *md, pid_t pid)
{
	struct model_proc *p = model__process(md, pid);

	if (p)
		p->exec = true;
}

void model__remove_process(struct model *md, pid_t pid)
{
	struct model_proc *p = model__process(md, pid);

	if (p && hashmap__remove(&md->procs, hash_u64((uint64_t)pid), p))
		model__proc_free(md, p);
}

const struct model_map *model__proc_find(const struct model_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < p->maps[mid].map.start)
			hi = mid;
		else if (addr >= p->maps[mid].map.end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

static int model__map_cmp(const void *pa, const void *pb)
{
	const struct model_map *a = pa, *b = pb;

	return a->map.start < b->map.start ? -1 : a->map.start > b->map.start;
}

static bool overlaps_any(const struct procmaps *pm, const struct procmap *m)
{
	for (size_t i = 0; i < pm->nr; i++)
		if (pm->maps[i].start < m->end && m->start < pm->maps[i].end)
			return true;
	return false;
}

/*
 * The mappings of pm into out (at least pm->nr entries), their paths kept
 * by the model and their files opened. 0 or -ENOMEM.
 */
static int model__fill_maps(struct model *md, const struct procmaps *pm, struct model_map *out)
{
	for (size_t i = 0; i < pm->nr; i++) {
		const struct procmap *m = &pm->maps[i];
		bool has_file = (m->kind == PROCMAP_FILE && m->path) || procmaps__is_vdso(m);

		out[i] = (struct model_map){ .map = *m, .current = true };
		if (m->path && !(out[i].map.path = (char *)model__intern(md, m->path)))
			return -ENOMEM;
		if (has_file && !(out[i].file = model__file_of(md, m, pm->pid)))
			return -ENOMEM;
	}
	return 0;
}

struct model_proc *model__add_maps(struct model *md, const struct procmaps *pm)
{
	struct model_proc *p = model__proc_get(md, pm->pid);
	struct model_map *maps;
	size_t nr = pm->nr;

	if (!p)
		goto nomem;
	maps = calloc(pm->nr + p->nr + 1, sizeof(*maps));
	if (!maps)
		goto nomem;
	if (model__fill_maps(md, pm, maps)) {
		free(maps);
		goto nomem;
	}
	/* Earlier mappings stay unless replaced: samples taken before still refer to them. */
	for (size_t i = 0; i < p->nr; i++) {
		if (overlaps_any(pm, &p->maps[i].map))
			continue;
		maps[nr] = p->maps[i];
		maps[nr++].current = false;
	}
	qsort(maps, nr, sizeof(*maps), model__map_cmp);
	free(p->maps);
	p->maps = maps;
	p->nr = nr;
	p->nr_current = pm->nr;
	p->changes++;
	return p;
nomem:
	errno = ENOMEM;
	return NULL;
}

struct model_proc *model__read_process(struct model *md, pid_t pid)
{
	struct procmaps *pm = procfs__read_maps(pid);
	struct model_proc *p;
	int err;

	if (!pm)
		return NULL;
	md->stats.maps_read++;
	p = model__proc_get(md, pid);
	if (p)
		model__update_view(md, p, pm);
	p = p ? model__add_maps(md, pm) : NULL;
	err = errno;
	procmaps__free(pm);
	errno = err;
	return p;
}

/*
 * A child sees files as its parent, in its root. Its pid there is its pid
 * here when its parent is in unwprof's pid namespace (a child in a new one
 * is checked at its first read: model__update_view()): forks are many, and
 * reading a view costs some 50 us of /proc. A container's child's is read
 * while it lives; 0 (unknown) when it cannot be.
 */
static void model__fork_view(struct model *md, const struct model_proc *parent,
			     struct model_proc *child)
{
	bool own_ns;

	if (!parent->root)
		return;
	own_ns = parent->view.nspid && parent->view.pid_ns == model__own_pid_ns(md);
	if (!own_ns)
		model__read_view(md, child);
	if (child->root)
		return;
	child->root = parent->root;
	child->root->refs++;
	child->view = parent->view;
	child->view.pid = child->pid;
	child->view.nspid = own_ns ? child->pid : 0;
}

int model__fork(struct model *md, pid_t ppid, pid_t pid)
{
	struct model_proc *parent = model__process(md, ppid), *child;

	if (!parent || !parent->nr || model__process(md, pid))
		return 0;
	child = model__proc_get(md, pid);
	if (!child)
		return -ENOMEM;
	/* The paths and files are the model's: a copy of the array is a copy of them. */
	child->maps = malloc(parent->nr * sizeof(*child->maps));
	if (!child->maps) {
		model__remove_process(md, pid);
		return -ENOMEM;
	}
	memcpy(child->maps, parent->maps, parent->nr * sizeof(*child->maps));
	for (size_t i = 0; i < parent->nr; i++)
		child->maps[i].current = false;
	child->nr = parent->nr;
	child->changes++;
	model__fork_view(md, parent, child);
	return 0;
}
