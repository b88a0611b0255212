// SPDX-License-Identifier: GPL-2.0-only
/*
 * The output writer (core/profile/outfile.c): a file appears whole at
 * close or not at all, an old file stays until then, a symlink's target is
 * replaced and the link kept, nothing is left behind after a failure.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/profile/outfile.h"
#include "core/util/log.h"
#include "test.h"

static char dir[] = "/tmp/unwprof-outfile-XXXXXX";

static const char *path_in(const char *name)
{
	static char buf[4][128];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries of dir other than . and .. */
static int nr_entries(void)
{
	char cmd[160];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

static void test_whole_or_nothing(void)
{
	const char *path = path_in("out.txt");
	struct outfile *o;

	o = outfile__open(path, NULL);
	CHECK(o != NULL);
	fputs("new", outfile__stream(o));
	CHECK(access(path, F_OK) != 0); /* not there before close */
	CHECK_EQ_INT(outfile__close(o, true), 0);
	CHECK_EQ_STR(slurp(path), "new");

	/* A failed run keeps the old file and leaves no other. */
	o = outfile__open(path, NULL);
	CHECK(o != NULL);
	fputs("half", outfile__stream(o));
	CHECK_EQ_INT(outfile__close(o, false), 0);
	CHECK_EQ_STR(slurp(path), "new");
	CHECK_EQ_INT(nr_entries(), 1);
	unlink(path);
}

static void test_symlink_and_errors(void)
{
	const char *target = path_in("target.txt"), *link = path_in("link.txt");
	struct outfile *o;
	struct stat st;

	CHECK_EQ_INT(symlink("target.txt", link), 0);
	/* A dangling symlink: its target is created, in place. */
	o = outfile__open(link, NULL);
	CHECK(o != NULL);
	fputs("a", outfile__stream(o));
	CHECK_EQ_INT(outfile__close(o, true), 0);
	CHECK_EQ_STR(slurp(target), "a");
	/* An existing target is replaced, the link kept. */
	o = outfile__open(link, NULL);
	CHECK(o != NULL);
	fputs("b", outfile__stream(o));
	CHECK_EQ_INT(outfile__close(o, true), 0);
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK_EQ_STR(slurp(target), "b");
	unlink(link);
	unlink(target);

	CHECK(outfile__open(dir, NULL) == NULL && errno == EISDIR);
	CHECK(outfile__open(path_in("missing/x"), NULL) == NULL);
	o = outfile__open("/dev/full", NULL);
	CHECK(o != NULL);
	fputs("x", outfile__stream(o));
	CHECK_EQ_INT(outfile__close(o, true), -ENOSPC);
	CHECK_EQ_INT(outfile__close(NULL, true), 0);
	o = outfile__open("-", NULL);
	CHECK(o != NULL && outfile__stream(o) == stdout);
	CHECK_EQ_STR(outfile__name(o), "stdout");
	CHECK_EQ_INT(outfile__close(o, true), 0);
	CHECK_EQ_INT(nr_entries(), 0);
}

int main(void)
{
	int saved = log_level;

	if (!mkdtemp(dir))
		return 1;
	log_level = -1;
	RUN(test_whole_or_nothing);
	RUN(test_symlink_and_errors);
	log_level = saved;
	rmdir(dir);
	return test_summary();
}
