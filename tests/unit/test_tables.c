// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tables of a process's mappings, on this test's own process: each file is
 * opened once and each table built once per key, however it is reached; the
 * bias maps a pc to a table pc; a mapping whose path leads to another file
 * than the mapped inode gets no table and is counted.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "core/procfs.h"
#include "core/procmaps.h"
#include "core/table.h"
#include "core/tables.h"

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
	struct tables *ts = tables__new(NULL);
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *m = pm ? own_text(pm) : NULL;
	struct tables_file *f, *again;
	struct tables_entry *e;
	struct tables_stats st;
	char exe[PATH_MAX];
	ssize_t n;

	CHECK(ts != NULL && m != NULL);
	if (!ts || !m)
		goto cleanup;
	f = tables__get_mapping(ts, m, getpid());
	again = tables__get_mapping(ts, m, getpid());
	CHECK(f != NULL);
	CHECK(f == again);
	CHECK(f && f->table && f->table->table && f->table->table->nr_rows > 0);
	CHECK(f && f->nr_segs > 0);
	CHECK_EQ_INT(tables__count(ts), 1);
	CHECK(f && f->table && f->table->build_id_len > 0); /* meson links with a build ID */

	/* The same file by its path: the same key, so the same table. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	exe[n > 0 ? n : 0] = '\0';
	e = tables__get_path(ts, exe);
	CHECK(e != NULL);
	CHECK(f && e == f->table);
	CHECK_EQ_INT(tables__count(ts), 1);
	tables__stats(ts, &st);
	CHECK_EQ_INT(st.files_replaced, 0);
	CHECK_EQ_INT(st.files_unreadable, 0);
cleanup:
	procmaps__free(pm);
	tables__free(ts);
}

/* The table pc of marker is covered by a row of the table. */
static void test_bias(void)
{
	struct tables *ts = tables__new(NULL);
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *m = pm ? own_text(pm) : NULL;
	uint64_t pc = (uint64_t)(uintptr_t)&marker, bias = 0, tpc;
	const struct unwind_table *t;
	struct tables_file *f;
	bool covered = false;

	CHECK(marker(1) == 4);
	f = m ? tables__get_mapping(ts, m, getpid()) : NULL;
	CHECK(f && f->table && f->table->table);
	if (!f || !f->table || !f->table->table)
		goto cleanup;
	t = f->table->table;
	CHECK(tables_file__bias(f, m, t->base, &bias));
	tpc = pc - bias;
	for (size_t i = 0; i + 1 < t->nr_rows && !covered; i++)
		covered = t->rows[i].pc <= tpc && tpc < t->rows[i + 1].pc &&
			  t->rows[i].cfa != UNW_CFA_END;
	CHECK(covered);
cleanup:
	procmaps__free(pm);
	tables__free(ts);
}

/* A maps line naming another inode than the file at its path: no table, counted. */
static void test_replaced_file_skipped(void)
{
	struct tables *ts = tables__new(NULL);
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *m = pm ? own_text(pm) : NULL;
	struct tables_file *f;
	struct tables_stats st;
	struct procmap other;

	CHECK(m != NULL);
	if (!m)
		goto cleanup;
	other = *m;
	other.inode = m->inode + 1;
	f = tables__get_mapping(ts, &other, getpid());
	CHECK(f != NULL);
	CHECK(f && f->table == NULL);
	CHECK(f && f->nr_segs == 0);
	CHECK_EQ_INT(tables__count(ts), 0);
	tables__stats(ts, &st);
	CHECK_EQ_INT(st.files_replaced, 1);
	CHECK_EQ_INT(st.files_unreadable, 1);
cleanup:
	procmaps__free(pm);
	tables__free(ts);
}

/* no_tables: segments for frame pointers, no table built. */
static void test_no_tables(void)
{
	struct tables *ts = tables__new(&(struct tables_opts){ .no_tables = true });
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *m = pm ? own_text(pm) : NULL;
	struct tables_file *f = m ? tables__get_mapping(ts, m, getpid()) : NULL;

	CHECK(f != NULL);
	CHECK(f && f->table == NULL && f->nr_segs > 0);
	CHECK_EQ_INT(tables__count(ts), 0);
	procmaps__free(pm);
	tables__free(ts);
}

static void test_gone_process(void)
{
	struct tables *ts = tables__new(NULL);
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *m = pm ? own_text(pm) : NULL;
	struct tables_file *f;
	pid_t child = fork();

	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	f = m ? tables__get_mapping(ts, m, child) : NULL;
	CHECK(f != NULL);
	CHECK(f && f->table == NULL);
	procmaps__free(pm);
	tables__free(ts);
}

int main(void)
{
	RUN(test_mapping_built_once);
	RUN(test_bias);
	RUN(test_replaced_file_skipped);
	RUN(test_no_tables);
	RUN(test_gone_process);
	return test_summary();
}
