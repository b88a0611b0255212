// SPDX-License-Identifier: GPL-2.0-only
/* Unwind tables of mapped files: each file opened once, each table built once per key. */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/unwind_step.h"
#include "../elf/debuginfo.h"
#include "../util/log.h"
#include "../targets/procfs.h"
#include "../targets/procmaps.h"
#include "shards.h"
#include "table.h"
#include "tables.h"

struct tables {
	struct tables_opts opts;
	/* Arrays of pointers, so what callers hold survives growing them. */
	struct tables_file **files;
	size_t nr_files, cap_files;
	struct tables_entry **entries;
	size_t nr_entries, cap_entries;
	struct tables_stats stats;
	/* Also in files: unwprof's own [vdso], and a file without a table for any other. */
	struct tables_file *vdso, *vdso_other;
	uint64_t vdso_len; /* of unwprof's own [vdso] mapping: its image in whole pages */
};

struct tables *tables__new(const struct tables_opts *opts)
{
	struct tables *ts = calloc(1, sizeof(*ts));

	if (!ts)
		return NULL;
	if (opts)
		ts->opts = *opts;
	return ts;
}

void tables__free(struct tables *ts)
{
	if (!ts)
		return;
	for (size_t i = 0; i < ts->nr_entries; i++) {
		unwind_table__free(ts->entries[i]->table);
		free(ts->entries[i]->path);
		free(ts->entries[i]);
	}
	for (size_t i = 0; i < ts->nr_files; i++)
		free(ts->files[i]);
	free(ts->entries);
	free(ts->files);
	free(ts);
}

void tables__stats(const struct tables *ts, struct tables_stats *st)
{
	*st = ts->stats;
}

size_t tables__count(const struct tables *ts)
{
	return ts->nr_entries;
}

struct tables_entry *tables__get(const struct tables *ts, size_t i)
{
	return i < ts->nr_entries ? ts->entries[i] : NULL;
}

size_t tables__key(const struct elf_file *ef, uint8_t *key, size_t *build_id_len)
{
	size_t len = elf_file__build_id(ef, key);
	const void *img;
	uint64_t h;

	if (build_id_len)
		*build_id_len = len;
	if (len)
		return len;
	img = elf_file__image(ef, &len);
	h = shards__hash(img, img ? len : 0, 0);
	key[0] = 'H';
	memcpy(key + 1, &h, sizeof(h));
	return 1 + sizeof(h);
}

static struct tables_entry *tables__find_entry(const struct tables *ts, const uint8_t *key,
					       size_t len)
{
	for (size_t i = 0; i < ts->nr_entries; i++) {
		struct tables_entry *e = ts->entries[i];

		if (e->key_len == len && memcmp(e->key, key, len) == 0)
			return e;
	}
	return NULL;
}

/*
 * The CPython runtime of ef, if it is one. One that cannot be read is said
 * once, with its version and why, by the first path its file has: a
 * version or build not known keeps its eval loop (e->py_refused), where
 * its samples are counted.
 */
static void tables__read_python(struct tables_entry *e, const struct elf_file *ef, const char *path)
{
	int err = py_runtime__read(ef, &e->py);
	char ver[32];

	e->has_py = err == 0;
	e->py_refused = err == -ENOTSUP && e->py.version_hex && e->py.eval_lo;
	if (e->py_refused)
		pr_warn("%s: CPython %s%s is not supported (%s): its samples show the "
			"interpreter's native frames only, counted as python-version-unsupported",
			path, py_runtime__version_str(&e->py, ver, sizeof(ver)),
			e->py.free_threaded ? " (free-threaded)" : "", e->py.why);
	else if (err == -ENOTSUP || err == -EINVAL)
		pr_warn("%s: a CPython whose frames are not read: %s", path, e->py.why);
}

/* The same for Ruby: a version not known keeps rb_vm_exec (e->rb_refused). */
static void tables__read_ruby(struct tables_entry *e, const struct elf_file *ef, const char *path)
{
	int err = rb_runtime__read(ef, &e->rb);
	const struct rb_runtime *r = &e->rb;

	e->has_rb = err == 0;
	e->rb_refused = err == -ENOTSUP && r->major && r->vm_exec_lo &&
			!rb_offsets__of(r->major, r->minor);
	if (e->rb_refused)
		pr_warn("%s: Ruby %u.%u.%u is not supported: its samples show the interpreter's "
			"native frames only, counted as ruby-version-unsupported",
			path, r->major, r->minor, r->teeny);
	else if (err == -ENOTSUP)
		pr_warn("%s: a Ruby whose frames this unwprof cannot read (core/runtimes/rbruntime.h): "
			"its samples show the interpreter's native frames",
			path);
}

/*
 * The entry of ef under its key, building its table on first use; debug
 * files are looked up inside the root of pid (0: /); path is ef's path
 * there, which names it in messages.
 */
static struct tables_entry *tables__build(struct tables *ts, const struct elf_file *ef, pid_t pid,
					  const char *path)
{
	struct debuginfo_opts dopts = { .pid = pid, .path = path };
	uint8_t key[TABLES_KEY_MAX];
	size_t id_len, len = tables__key(ef, key, &id_len);
	struct tables_entry *e = tables__find_entry(ts, key, len);
	struct elf_file *debug = NULL;

	if (e)
		return e;
	if (grow((void **)&ts->entries, &ts->cap_entries, ts->nr_entries, sizeof(*ts->entries)))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->path = strdup(path);
	if (!e->path) {
		free(e);
		return NULL;
	}
	memcpy(e->key, key, len);
	e->index = ts->nr_entries;
	e->key_len = len;
	e->build_id_len = id_len;
	if (!ts->opts.no_debuginfo)
		debug = debuginfo__find(ef, &dopts);
	e->table = unwind_table__build(ef, debug);
	e->has_go = go_runtime__read(ef, &e->go) == 0;
	tables__read_python(e, ef, path);
	tables__read_ruby(e, ef, path);
	if (e->table && (elf_file__truncated(ef) || (debug && elf_file__truncated(debug)))) {
		/* Rows read from the zeros of a truncated file would unwind wrongly. */
		unwind_table__free(e->table);
		e->table = NULL;
		errno = ESTALE;
	}
	if (!e->table)
		pr_warn("%s: no unwind table (%s): frame pointers there", path, strerror(errno));
	elf_file__free(debug);
	ts->entries[ts->nr_entries++] = e;
	return e;
}

struct tables_entry *tables__get_path(struct tables *ts, const char *path)
{
	struct elf_file *ef = elf_file__open(path);
	struct tables_entry *e;
	int err;

	if (!ef)
		return NULL;
	e = tables__build(ts, ef, 0, path);
	err = e ? 0 : -errno;
	elf_file__free(ef);
	if (err) {
		errno = -err;
		return NULL;
	}
	if (!e->table) {
		errno = EINVAL;
		return NULL;
	}
	return e;
}

/*
 * Opens the file of mapping m as the process sees it, inside its root and
 * checked to be the mapped inode; NULL when it cannot be, counted.
 */
static struct elf_file *tables__open_mapping(struct tables *ts, const struct procmap *m, pid_t pid,
					     bool *gone)
{
	struct elf_file *ef;
	bool replaced;
	int fd;

	*gone = false;
	fd = procfs__open_mapping(pid, m, &replaced);
	if (replaced) {
		ts->stats.files_replaced++;
		pr_debug("%s (pid %d): the path leads to another file than the mapped one", m->path,
			 (int)pid);
	}
	if (fd == -ESRCH) {
		/* Not the file's fault: the next process that maps it is asked. */
		ts->stats.files_gone++;
		*gone = true;
		pr_debug("%s (pid %d): the process exited before its file was opened", m->path,
			 (int)pid);
		return NULL;
	}
	if (fd < 0) {
		ts->stats.files_unreadable++;
		pr_info("%s (pid %d): no table: cannot open the mapped file: %s", m->path, (int)pid,
			strerror(-fd));
		return NULL;
	}
	/* Read through the fd: what was checked is what is read. */
	ef = elf_file__open_fd(fd, m->path, ELF_OPEN_QUIET);
	close(fd);
	if (!ef)
		ts->stats.files_unreadable++;
	return ef;
}

static struct tables_file *tables__find_file(const struct tables *ts, const struct procmap *m)
{
	/* An inode of 0 is no identity: such files are never found again. */
	if (!m->inode)
		return NULL;
	for (size_t i = 0; i < ts->nr_files; i++) {
		struct tables_file *f = ts->files[i];

		if (f->inode == m->inode && f->dev_major == m->dev_major &&
		    f->dev_minor == m->dev_minor)
			return f;
	}
	return NULL;
}

/* A new file for mapping m, kept until tables__free(); NULL on allocation failure. */
static struct tables_file *tables__add_file(struct tables *ts, const struct procmap *m)
{
	struct tables_file *f;

	if (grow((void **)&ts->files, &ts->cap_files, ts->nr_files, sizeof(*ts->files)))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev_major = m->dev_major;
	f->dev_minor = m->dev_minor;
	f->inode = m->inode;
	ts->files[ts->nr_files++] = f;
	return f;
}

static uint64_t page_size(void)
{
	static uint64_t page;

	if (!page)
		page = (uint64_t)sysconf(_SC_PAGESIZE);
	return page;
}

/* The executable segments of f, the ones a mapping of code can be made for. */
static void tables_file__exec_segs(struct tables_file *f, const char *path)
{
	f->nr_exec_segs = 0;
	for (size_t i = 0; i < f->nr_segs; i++) {
		const struct elf_load_segment *sg = &f->segs[i];

		if (!(sg->flags & PF_X) || !sg->filesz)
			continue;
		if (f->nr_exec_segs == UNW_FILE_SEGS) {
			pr_debug("%s: more than %d executable segments: frame pointers in the rest",
				 path, UNW_FILE_SEGS);
			return;
		}
		f->exec_segs[f->nr_exec_segs++] = (struct unw_seg){
			.vaddr = sg->vaddr,
			.offset = sg->offset,
			.filesz = sg->filesz,
		};
	}
}

/*
 * The segments and the table of f from ef, which is freed; debug files are
 * looked up inside the root of pid. Returns f, NULL on allocation failure.
 */
static struct tables_file *tables__load_file(struct tables *ts, struct tables_file *f,
					     struct elf_file *ef, pid_t pid, const char *path)
{
	f->nr_segs = elf_file__load_segments(ef, f->segs, TABLES_MAX_SEGS);
	tables_file__exec_segs(f, path);
	if (!ts->opts.no_tables)
		f->table = tables__build(ts, ef, pid, path);
	elf_file__free(ef);
	if (!ts->opts.no_tables && !f->table)
		return NULL; /* ENOMEM */
	return f;
}

/* unwprof's own vDSO, read on first use; its debug files are looked up from /. */
static struct tables_file *tables__own_vdso(struct tables *ts, const struct procmap *m)
{
	struct elf_file *ef;
	size_t size;
	long page;

	if (ts->vdso)
		return ts->vdso;
	ts->vdso = tables__add_file(ts, m);
	if (!ts->vdso)
		return NULL;
	ef = elf_file__open_vdso();
	if (!ef) {
		pr_debug("[vdso]: cannot read unwprof's own: frame pointers there");
		return ts->vdso;
	}
	elf_file__image(ef, &size);
	page = sysconf(_SC_PAGESIZE);
	ts->vdso_len = (size + page - 1) & ~(uint64_t)(page - 1);
	return tables__load_file(ts, ts->vdso, ef, 0, "[vdso]");
}

static struct tables_file *tables__get_vdso(struct tables *ts, const struct procmap *m)
{
	struct tables_file *f = tables__own_vdso(ts, m);

	/* Unread (vdso_len 0), it has no table for any [vdso]. */
	if (!f || !ts->vdso_len || m->end - m->start == ts->vdso_len)
		return f;
	/* Not the image unwprof has: its table would unwind wrongly. */
	if (!ts->vdso_other) {
		pr_debug("[vdso] of %#" PRIx64 " bytes, unwprof's own has %#" PRIx64
			 ": frame pointers there",
			 m->end - m->start, ts->vdso_len);
		ts->vdso_other = tables__add_file(ts, m);
	}
	return ts->vdso_other;
}

struct tables_file *tables__get_mapping(struct tables *ts, const struct procmap *m, pid_t pid)
{
	struct tables_file *f;
	struct elf_file *ef;

	if (procmap__is_vdso(m))
		return tables__get_vdso(ts, m);
	f = tables__find_file(ts, m);
	if (f && !f->unopened)
		return f;
	if (!f)
		f = tables__add_file(ts, m);
	if (!f)
		return NULL;
	ef = m->path ? tables__open_mapping(ts, m, pid, &f->unopened) : NULL;
	if (!ef) {
		if (!f->unopened)
			pr_info("%s (pid %d): no table: not readable as ELF, frame pointers there",
				m->path ? m->path : "[anon]", (int)pid);
		return f;
	}
	f->unopened = false;
	return tables__load_file(ts, f, ef, pid, m->path);
}

bool tables_file__bias(const struct tables_file *f, const struct procmap *m, uint64_t base,
		       uint64_t *bias)
{
	long i = unw_segs__find(f->exec_segs, f->nr_exec_segs, m->offset, page_size());

	if (i < 0)
		return false;
	*bias = unw_seg__bias(&f->exec_segs[i], m->start, m->offset, base);
	return true;
}
