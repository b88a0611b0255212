// SPDX-License-Identifier: GPL-2.0-only
/*
 * The files of the model (core/model/files.c), with the tables of a process's
 * mappings, on this test's own process: each file is opened once and each
 * table built once per key, however it is reached; the bias maps a pc to a
 * table pc; a mapping whose path leads to another file than the mapped inode
 * gets no table and is counted; the [vdso] gets the table of unwprof's own
 * vDSO.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "core/elf/elf_file.h"
#include "core/targets/procmaps.h"
#include "core/targets/procfs.h"
#include "core/unwind/unwind_table.h"
#include "core/model/model.h"
#include "core/symbols/symtab.h"

/* Somewhere in this executable's code. */
static int __attribute__((noinline)) marker(int x)
{
	return x * 3 + 1;
}

static const struct procmap *own_text(const struct procmaps *pm)
{
	return procmaps__find(pm, (uint64_t)(uintptr_t)&marker);
}

static void test_mapping_built_once(void)
{
	struct model *ts = model__new(NULL);
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *m = pm ? own_text(pm) : NULL;
	struct model_file *f, *again;
	struct model_image *e;
	struct model_stats st;
	char exe[PATH_MAX];
	ssize_t n;

	CHECK(ts != NULL && m != NULL);
	if (!ts || !m)
		goto cleanup;
	f = model__file_of(ts, m, getpid());
	again = model__file_of(ts, m, getpid());
	CHECK(f != NULL);
	CHECK(f == again);
	CHECK(f && f->image && f->image->table && f->image->table->nr_rows > 0);
	CHECK(f && f->image && f->image->nr_segs > 0);
	CHECK_EQ_INT(model__nr_images(ts), 1);
	CHECK(f && f->image && f->image->build_id_len > 0); /* meson links with a build ID */

	/* The same file by its path: the same key, so the same table. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	exe[n > 0 ? n : 0] = '\0';
	e = model__image_of_path(ts, exe);
	CHECK(e != NULL);
	CHECK(f && e == f->image);
	CHECK_EQ_INT(model__nr_images(ts), 1);
	model__stats(ts, &st);
	CHECK_EQ_INT(st.files_replaced, 0);
	CHECK_EQ_INT(st.files_unreadable, 0);
cleanup:
	procmaps__free(pm);
	model__free(ts);
}

/* The table pc of marker is covered by a row of the table. */
static void test_bias(void)
{
	struct model *ts = model__new(NULL);
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *m = pm ? own_text(pm) : NULL;
	uint64_t pc = (uint64_t)(uintptr_t)&marker, bias = 0, tpc;
	const struct unwind_table *t;
	struct model_file *f;
	bool covered = false;

	CHECK(marker(1) == 4);
	f = m ? model__file_of(ts, m, getpid()) : NULL;
	CHECK(f && f->image && f->image->table);
	if (!f || !f->image || !f->image->table)
		goto cleanup;
	t = f->image->table;
	CHECK(model__image_bias(f->image, m->start, m->offset, t->base, &bias));
	tpc = pc - bias;
	for (size_t i = 0; i + 1 < t->nr_rows && !covered; i++)
		covered = t->rows[i].pc <= tpc && tpc < t->rows[i + 1].pc &&
			  t->rows[i].cfa != UNW_CFA_END;
	CHECK(covered);
cleanup:
	procmaps__free(pm);
	model__free(ts);
}

/* A maps line naming another inode than the file at its path: no table, counted. */
static void test_replaced_file_skipped(void)
{
	struct model *ts = model__new(NULL);
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *m = pm ? own_text(pm) : NULL;
	struct model_file *f;
	struct model_stats st;
	struct procmap other;

	CHECK(m != NULL);
	if (!m)
		goto cleanup;
	other = *m;
	other.inode = m->inode + 1;
	f = model__file_of(ts, &other, getpid());
	CHECK(f != NULL);
	CHECK(f && f->image == NULL);
	CHECK_EQ_INT(model__nr_images(ts), 0);
	model__stats(ts, &st);
	CHECK_EQ_INT(st.files_replaced, 1);
	CHECK_EQ_INT(st.files_unreadable, 1);
cleanup:
	procmaps__free(pm);
	model__free(ts);
}

/* no_tables: segments for frame pointers, no table built. */
static void test_no_tables(void)
{
	struct model *ts = model__new(&(struct model_opts){ .no_tables = true });
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *m = pm ? own_text(pm) : NULL;
	struct model_file *f = m ? model__file_of(ts, m, getpid()) : NULL;

	CHECK(f != NULL);
	CHECK(f && f->image && f->image->table == NULL && f->image->nr_segs > 0);
	CHECK_EQ_INT(model__nr_images(ts), 1);
	procmaps__free(pm);
	model__free(ts);
}

static void test_gone_process(void)
{
	struct model *ts = model__new(NULL);
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *m = pm ? own_text(pm) : NULL;
	struct model_file *f;
	pid_t child = fork();

	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	f = m ? model__file_of(ts, m, child) : NULL;
	CHECK(f != NULL);
	CHECK(f && f->image == NULL);
	/* Not the file's fault: the next process that maps it gets its table. */
	CHECK(f && f->unopened);
	CHECK(m && model__file_of(ts, m, getpid()) == f);
	CHECK(f && f->image && f->image->table && !f->unopened);
	procmaps__free(pm);
	model__free(ts);
}

/* The [vdso] of this process, NULL when it has none. */
static const struct procmap *own_vdso(const struct procmaps *pm)
{
	for (size_t i = 0; pm && i < pm->nr; i++)
		if (procmaps__is_vdso(&pm->maps[i]))
			return &pm->maps[i];
	return NULL;
}

/* The ELF virtual address and size of the vDSO's clock_gettime, 0 when not found. */
static uint64_t vdso_clock_gettime(uint64_t *size)
{
	/* x86_64 names it __vdso_, aarch64 __kernel_. */
	static const char *const names[] = { "__vdso_clock_gettime", "__kernel_clock_gettime" };
	struct elf_file *ef = elf_file__open_vdso();
	struct elf_section syms, strs;
	uint64_t addr = 0;

	if (!ef || elf_file__section(ef, ".dynsym", &syms) ||
	    elf_file__section(ef, ".dynstr", &strs))
		goto cleanup;
	for (size_t off = 0; off + sizeof(Elf64_Sym) <= syms.size && !addr;
	     off += sizeof(Elf64_Sym)) {
		Elf64_Sym sym;
		const char *name;

		memcpy(&sym, syms.data + off, sizeof(sym));
		if (sym.st_name >= strs.size || ELF64_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		name = (const char *)strs.data + sym.st_name;
		if (strnlen(name, strs.size - sym.st_name) == strs.size - sym.st_name)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(names) && !addr; i++) {
			if (strcmp(name, names[i]) == 0) {
				addr = sym.st_value;
				*size = sym.st_size;
			}
		}
	}
cleanup:
	elf_file__free(ef);
	return addr;
}

/*
 * The [vdso] gets the table of unwprof's own vDSO, once, and every pc of its
 * clock_gettime falls in a row the unwinder can follow: samples taken in its
 * prologue and epilogue are walked too.
 */
static void test_vdso(void)
{
	struct model *ts = model__new(NULL);
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *m = own_vdso(pm);
	uint64_t fn, fn_size = 0, bias = 0, lo, hi;
	const struct unwind_table *t;
	struct model_file *f;
	struct procmap other;
	struct timespec tv;
	size_t usable = 0;

	CHECK(clock_gettime(CLOCK_MONOTONIC, &tv) == 0);
	CHECK(ts != NULL && m != NULL);
	if (!ts || !m)
		goto cleanup;
	CHECK_EQ_INT(m->start, getauxval(AT_SYSINFO_EHDR));
	f = model__file_of(ts, m, getpid());
	CHECK(f && f->image && f->image->table && f->image->table->nr_rows > 0);
	if (!f || !f->image || !f->image->table)
		goto cleanup;
	/* One file and one table for every process's [vdso], keyed by its build ID. */
	CHECK(model__file_of(ts, m, getppid()) == f);
	CHECK_EQ_INT(model__nr_images(ts), 1);
	CHECK_EQ_STR(f->image->path, "[vdso]");
	CHECK(f->image->build_id_len > 0);
	CHECK(f->inode == 0 && f->image->nr_segs > 0);

	t = f->image->table;
	CHECK(model__image_bias(f->image, m->start, m->offset, t->base, &bias));
	fn = vdso_clock_gettime(&fn_size);
	CHECK(fn != 0 && fn_size > 0);
	/* Table pcs of the function: the mapping starts at file offset 0, as its image. */
	lo = m->start + fn - f->image->segs[0].vaddr - bias;
	hi = lo + fn_size;
	for (size_t i = 0; fn && i < t->nr_rows; i++) {
		const struct table_row *r = &t->rows[i];
		uint64_t end = i + 1 < t->nr_rows ? t->rows[i + 1].pc : UINT64_MAX;

		if (end <= lo || r->pc >= hi)
			continue;
		CHECK(r->pc <= lo || usable > 0); /* no gap at its entry */
		CHECK(r->cfa != UNW_CFA_END && r->cfa != UNW_CFA_UNSUPPORTED);
		CHECK(r->ra == UNW_RA_AT_CFA && r->fp != UNW_FP_UNSUPPORTED);
		usable++;
	}
	CHECK(usable > 0);

	/* A [vdso] of another length is another image: no table for it. */
	other = *m;
	other.end += 16 * 4096;
	f = model__file_of(ts, &other, getpid());
	CHECK(f && f->image == NULL);
	CHECK(model__file_of(ts, &other, getpid()) == f);
	CHECK_EQ_INT(model__nr_images(ts), 1);
cleanup:
	procmaps__free(pm);
	model__free(ts);
}

int main(void)
{
	RUN(test_mapping_built_once);
	RUN(test_bias);
	RUN(test_replaced_file_skipped);
	RUN(test_no_tables);
	RUN(test_gone_process);
	RUN(test_vdso);
	return test_summary();
}
