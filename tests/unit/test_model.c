// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model of processes and files (core/model/model.c), on this test's own
 * process and a child of it: each mapped file opened once however many
 * processes map it, as /proc/PID/maps lists them; a process read again
 * keeps its earlier mappings that nothing replaced; a fork runs its
 * parent's; symbols read on first use, at the address the walk's
 * translation gives; how a process sees its files read again only after an
 * exec that may have changed it, a fork in unwprof's pid namespace given
 * its parent's.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "core/model/model.h"
#include "core/symbols/symtab.h"
#include "core/targets/procmaps.h"
#include "core/targets/procfs.h"

static int __attribute__((noinline)) model_test_marker(int x)
{
	return x * 5 + 2;
}

/* Distinct (device, inode) of the file-backed mappings of pm, and the [vdso]: what is opened. */
static size_t distinct_files(const struct procmaps *pm)
{
	size_t n = 0;

	for (size_t i = 0; i < pm->nr; i++) {
		const struct procmap *m = &pm->maps[i];
		bool seen = false;

		if (procmaps__is_vdso(m)) {
			n++;
			continue;
		}
		if (m->kind != PROCMAP_FILE || !m->path)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = pm->maps[k].kind == PROCMAP_FILE && pm->maps[k].inode == m->inode &&
			       pm->maps[k].dev_major == m->dev_major &&
			       pm->maps[k].dev_minor == m->dev_minor;
		n += !seen;
	}
	return n;
}

/* A child that maps what this process maps, until it is killed. */
static pid_t child_new(void)
{
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	return child;
}

/*
 * This process and a child mapping the same files: each file opened once
 * (as many as the distinct files /proc/PID/maps lists), and the child's
 * mappings lead to the same file objects.
 */
static void test_files_opened_once(void)
{
	struct model *md = model__new(NULL);
	struct procmaps *pm = procfs__read_maps(getpid());
	pid_t child = child_new();
	const struct model_proc *self, *other;
	struct model_stats st;

	CHECK(md && pm && child > 0);
	if (!md || !pm || child <= 0)
		goto cleanup;
	self = model__read_process(md, getpid());
	other = model__read_process(md, child);
	CHECK(self && other);
	if (!self || !other)
		goto cleanup;
	model__stats(md, &st);
	CHECK_EQ_INT(st.files_opened, distinct_files(pm));
	CHECK(st.images_parsed <= st.files_opened && st.images_parsed > 0);
	CHECK_EQ_INT(st.maps_read, 2);
	CHECK_EQ_INT(other->nr_current, self->nr_current);
	for (size_t i = 0; i < self->nr && i < other->nr; i++) {
		CHECK(self->maps[i].file == other->maps[i].file);
		/* Paths are the model's, kept once. */
		CHECK(self->maps[i].map.path == other->maps[i].map.path);
	}
	CHECK(model__process(md, child) == other);
	model__remove_process(md, child);
	CHECK(model__process(md, child) == NULL);
	CHECK(model__process(md, getpid()) == self);
cleanup:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	procmaps__free(pm);
	model__free(md);
}

/* The symbol of marker is where the one translation puts its address, read on first use. */
static void test_translation_and_symbols(void)
{
	struct model *md = model__new(NULL);
	const struct model_proc *p = md ? model__read_process(md, getpid()) : NULL;
	uint64_t pc = (uint64_t)(uintptr_t)&model_test_marker, bias;
	const struct model_map *m = p ? model__proc_find(p, pc) : NULL;
	struct model_image *img = m && m->file ? m->file->image : NULL;
	const struct symtab_sym *s;

	CHECK(model_test_marker(1) == 7);
	CHECK(img != NULL);
	if (!img)
		goto cleanup;
	CHECK(!img->symtab_tried); /* not before a lookup */
	CHECK(model__image_bias(img, m->map.start, m->map.offset, 0, &bias));
	s = symtab__find(model__image_symtab(img), pc - bias);
	CHECK(img->symtab_tried);
	CHECK(s && strcmp(s->name, "model_test_marker") == 0 && s->addr == pc - bias);
	/* Not a mapping of an executable segment: no translation. */
	CHECK(!model__image_bias(img, m->map.start, m->map.offset + (1ULL << 40), 0, &bias));
cleanup:
	model__free(md);
}

/* Two mappings at start and start + 0x10000 of one anonymous process. */
static struct procmaps two_maps(struct procmap *maps, uint64_t start)
{
	maps[0] = (struct procmap){ .start = start, .end = start + 0x1000, .kind = PROCMAP_ANON };
	maps[1] = (struct procmap){ .start = start + 0x10000,
				    .end = start + 0x11000,
				    .kind = PROCMAP_SPECIAL,
				    .path = "[jit]" };
	return (struct procmaps){ .pid = 4242, .maps = maps, .nr = 2 };
}

/*
 * A process read again: what the new mappings overlap goes, the rest stays
 * for samples taken before, not current. A fork copies its parent's, once.
 */
static void test_read_again_and_fork(void)
{
	struct model *md = model__new(NULL);
	struct procmap a[2], b[2];
	struct procmaps first = two_maps(a, 0x100000), second = two_maps(b, 0x108000);
	const struct model_proc *p, *child;
	uint32_t changes;

	CHECK(md != NULL);
	if (!md)
		return;
	p = model__add_maps(md, &first);
	CHECK(p && p->nr == 2 && p->nr_current == 2);
	if (!p)
		goto cleanup;
	changes = p->changes;
	CHECK_EQ_STR(model__proc_find(p, 0x110800)->map.path, "[jit]");
	CHECK(model__proc_find(p, 0x101000) == NULL);
	/* [0x108000, 0x109000) and [0x118000, 0x119000): the old [jit] one is overlapped by none. */
	p = model__add_maps(md, &second);
	CHECK(p && p->nr == 4 && p->nr_current == 2 && p->changes != changes);
	CHECK(p && model__proc_find(p, 0x100800) && !model__proc_find(p, 0x100800)->current);
	CHECK(p && model__proc_find(p, 0x108800) && model__proc_find(p, 0x108800)->current);
	/* The paths of mappings outlive the procmaps they came from. */
	b[1].path = NULL;
	CHECK(p && p->maps[3].map.path && strcmp(p->maps[3].map.path, "[jit]") == 0);

	CHECK_EQ_INT(model__fork(md, 4242, 4243), 0);
	child = model__process(md, 4243);
	CHECK(child && child->nr == 4 && child->nr_current == 0);
	CHECK(child && child->maps != p->maps && child->maps[3].map.path == p->maps[3].map.path);
	/* Known already, or a parent never seen: nothing. */
	CHECK_EQ_INT(model__fork(md, 1, 4243), 0);
	CHECK_EQ_INT(model__fork(md, 0x7ffffff2, 0x7ffffff3), 0);
	CHECK(model__process(md, 0x7ffffff3) == NULL);
cleanup:
	model__free(md);
}

/* A process that does not exist: NULL and ESRCH, nothing kept. */
static void test_no_such_process(void)
{
	struct model *md = model__new(NULL);

	errno = 0;
	CHECK(model__read_process(md, 0x3ffffff0) == NULL);
	CHECK_EQ_INT(errno, ESRCH);
	CHECK(model__process(md, 0x3ffffff0) == NULL);
	model__free(md);
}

/*
 * The view of this process: read with its first mappings, kept while its
 * mappings are read again, and after an exec that kept its user, root and
 * namespaces; read again after one that did not (its user here made up). A
 * child forked in unwprof's pid namespace is its own pid there, unread.
 */
static void test_view_kept(void)
{
	struct model *md = model__new(NULL);
	struct model_proc *p, *child;

	CHECK(md != NULL);
	if (!md)
		return;
	p = model__read_process(md, getpid());
	CHECK(p && p->root && p->view.nspid && p->view.pid_ns);
	if (!p || !p->root)
		goto cleanup;
	p->view.nspid = 0x7ffffff0; /* made up: a view read again puts it right */
	p = model__read_process(md, getpid());
	CHECK(p && p->view.nspid == 0x7ffffff0);
	model__exec(md, getpid());
	p = model__read_process(md, getpid());
	CHECK(p && p->view.nspid == 0x7ffffff0 && !p->exec);
	p->view.euid = geteuid() + 1;
	model__exec(md, getpid());
	p = model__read_process(md, getpid());
	CHECK(p && p->view.nspid != 0x7ffffff0 && p->view.euid == geteuid());
	if (p->view.nspid != getpid()) /* this test in a pid namespace of its own */
		goto cleanup;
	CHECK_EQ_INT(model__fork(md, getpid(), 0x7ffffff1), 0);
	child = model__process(md, 0x7ffffff1);
	CHECK(child && child->root == p->root && child->view.nspid == 0x7ffffff1);
cleanup:
	model__free(md);
}

int main(void)
{
	RUN(test_files_opened_once);
	RUN(test_translation_and_symbols);
	RUN(test_read_again_and_fork);
	RUN(test_no_such_process);
	RUN(test_view_kept);
	return test_summary();
}
