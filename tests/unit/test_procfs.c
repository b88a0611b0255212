// SPDX-License-Identifier: GPL-2.0-only
/*
 * Opening files inside a process's root (core/targets/procfs.c): in a fake
 * root made here, a symlink planted inside (absolute, "../../..", a loop, a
 * /proc magic link) never opens the file outside it, with openat2 and with
 * the fallback walk; with no link allowed (a mapping's path), none is
 * followed, and a last one opened with O_PATH | O_NOFOLLOW is the link
 * itself, as openat2 gives it. Also: the mapped-file check, reading the maps
 * of a process and listing its threads, its ids (its pid in its namespace,
 * its users).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "core/targets/procfs.h"
#include "core/targets/procmaps.h"

typedef int (*open_fn)(int root_fd, const char *path, int flags);

static char top[] = "/tmp/unwprof-procfs-XXXXXX";
static char root[256], host[256];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void link_in_root(const char *target, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	CHECK(symlink(target, path) == 0);
}

/*
 * The host file sits next to the root; the root holds inside.txt, a sub/
 * directory, and the symlinks the cases open.
 */
static void make_root(void)
{
	char path[512];

	CHECK(mkdtemp(top) != NULL);
	snprintf(root, sizeof(root), "%s/root", top);
	snprintf(host, sizeof(host), "%s/host.txt", top);
	CHECK(mkdir(root, 0755) == 0);
	snprintf(path, sizeof(path), "%s/sub", root);
	CHECK(mkdir(path, 0755) == 0);
	write_file(host, "host");
	snprintf(path, sizeof(path), "%s/inside.txt", root);
	write_file(path, "inside");

	link_in_root(host, "abs");				 /* absolute, to the host file */
	link_in_root("/inside.txt", "abs_inside");		 /* absolute, inside: allowed */
	link_in_root("../../../../../../../../../../tmp", "up"); /* climbs out */
	link_in_root("../inside.txt", "sub/rel");		 /* relative, inside */
	link_in_root("loop_b", "loop_a");
	link_in_root("loop_a", "loop_b");
	link_in_root("/proc/self/cwd/host.txt", "magic"); /* the cwd is the host dir */
	link_in_root("sub", "dirlink");
}

/* What fd reads: "" when it is not open. */
static const char *content(int fd, char *buf, size_t size)
{
	ssize_t n = fd >= 0 ? pread(fd, buf, size - 1, 0) : -1;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return buf;
}

/* Opening path under the root never reads the host file. */
static void check_stays_inside(open_fn fn, int root_fd, const char *path)
{
	char buf[64];
	int fd = fn(root_fd, path, O_RDONLY);

	if (strcmp(content(fd, buf, sizeof(buf)), "host") == 0)
		fprintf(stderr, "%s escaped the root\n", path);
	CHECK(strcmp(buf, "host") != 0);
}

static void check_opens(open_fn fn, int root_fd, const char *path, const char *want)
{
	char buf[64];

	CHECK_EQ_STR(content(fn(root_fd, path, O_RDONLY), buf, sizeof(buf)), want);
}

static void check_fn(open_fn fn, int root_fd)
{
	char path[512];

	check_opens(fn, root_fd, "/inside.txt", "inside");
	check_opens(fn, root_fd, "inside.txt", "inside");
	check_opens(fn, root_fd, "/abs_inside", "inside");
	check_opens(fn, root_fd, "/sub/rel", "inside");
	check_opens(fn, root_fd, "/../../../inside.txt", "inside"); /* ".." stops at the root */
	check_opens(fn, root_fd, "/dirlink/../inside.txt", "inside");
	check_opens(fn, root_fd, "/dirlink/rel", "inside");

	check_stays_inside(fn, root_fd, "/abs");
	CHECK_EQ_INT(fn(root_fd, "/abs", O_RDONLY), -ENOENT);
	snprintf(path, sizeof(path), "/up%s", host + strlen("/tmp"));
	check_stays_inside(fn, root_fd, path);
	CHECK_EQ_INT(fn(root_fd, path, O_RDONLY), -ENOENT);
	snprintf(path, sizeof(path), "/../../../../..%s", host);
	check_stays_inside(fn, root_fd, path);
	check_stays_inside(fn, root_fd, "/magic");
	CHECK(fn(root_fd, "/magic", O_RDONLY) < 0);
	CHECK_EQ_INT(fn(root_fd, "/loop_a", O_RDONLY), -ELOOP);
	CHECK_EQ_INT(fn(root_fd, "/inside.txt/x", O_RDONLY), -ENOTDIR);
	CHECK_EQ_INT(fn(root_fd, "/inside.txt", O_RDONLY | O_CREAT), -EINVAL);
}

/* A /proc magic link met on the way: with /proc/self as the root, "cwd" is one. */
static void check_magic_root(open_fn fn)
{
	int proc_self = open("/proc/self", O_PATH | O_DIRECTORY);
	char path[512];

	CHECK(proc_self >= 0);
	check_stays_inside(fn, proc_self, "/cwd/host.txt");
	CHECK(fn(proc_self, "/cwd/host.txt", O_RDONLY) < 0);
	snprintf(path, sizeof(path), "/root%s", host);
	check_stays_inside(fn, proc_self, path);
	close(proc_self);
}

static void test_in_root(void)
{
	int root_fd = open(root, O_PATH | O_DIRECTORY);

	CHECK(root_fd >= 0);
	check_fn(procfs__open_in_root, root_fd);
	check_magic_root(procfs__open_in_root);
	close(root_fd);
}

static void test_resolve_fallback(void)
{
	int root_fd = open(root, O_PATH | O_DIRECTORY);

	CHECK(root_fd >= 0);
	check_fn(procfs__resolve_in_root, root_fd);
	check_magic_root(procfs__resolve_in_root);
	close(root_fd);
}

/* Whether fn's fd of path, opened O_PATH | O_NOFOLLOW, is a symbolic link. */
static bool opens_link(open_fn fn, int root_fd, const char *path)
{
	int fd = fn(root_fd, path, O_PATH | O_NOFOLLOW);
	struct stat st;
	bool link = fd >= 0 && fstat(fd, &st) == 0 && S_ISLNK(st.st_mode);

	if (fd >= 0)
		close(fd);
	return link;
}

static void test_no_links(void)
{
	int root_fd = open(root, O_PATH | O_DIRECTORY);

	CHECK(root_fd >= 0);
	check_opens(procfs__open_in_root_no_links, root_fd, "/inside.txt", "inside");
	check_opens(procfs__open_in_root_no_links, root_fd, "/sub/../inside.txt", "inside");
	CHECK_EQ_INT(procfs__open_in_root_no_links(root_fd, "/abs_inside", O_RDONLY), -ELOOP);
	CHECK_EQ_INT(procfs__open_in_root_no_links(root_fd, "/dirlink/rel", O_RDONLY), -ELOOP);
	CHECK_EQ_INT(procfs__open_in_root_no_links(root_fd, "/dirlink/rel", O_PATH | O_NOFOLLOW),
		     -ELOOP);
	CHECK(opens_link(procfs__open_in_root_no_links, root_fd, "/abs_inside"));
	/* the same without the rule, by openat2 and by the walk: the link, not its file */
	CHECK(opens_link(procfs__open_in_root, root_fd, "/abs"));
	CHECK(opens_link(procfs__resolve_in_root, root_fd, "/abs"));
	CHECK(opens_link(procfs__resolve_in_root, root_fd, "/dirlink/rel"));
	CHECK_EQ_INT(procfs__resolve_in_root(root_fd, "/abs_inside", O_RDONLY | O_NOFOLLOW),
		     -ELOOP);
	close(root_fd);
}

/* This process's ids: in the test's pid namespace its pid there is its pid here. */
static void test_ids(void)
{
	struct procfs_ids ids;

	CHECK_EQ_INT(procfs__ids(getpid(), &ids), 0);
	CHECK_EQ_INT(ids.uids[0], getuid());
	CHECK_EQ_INT(ids.uids[1], geteuid());
	/* getpid() is its pid in its own namespace, as NSpid's last */
	CHECK_EQ_INT(ids.nspid, getpid());
	/* a pid no process has */
	CHECK_EQ_INT(procfs__ids(0x3fffffff, &ids), -ESRCH);
}

/* The mapping of this test's own code, as /proc/self/maps lists it. */
static const struct procmap *own_text(const struct procmaps *pm)
{
	uint64_t pc = (uint64_t)(uintptr_t)&own_text;

	return procmaps__find(pm, pc);
}

static void test_open_mapping(void)
{
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *m = pm ? own_text(pm) : NULL;
	struct procmap other;
	bool replaced = true;
	char fifo[512];
	struct stat st;
	int fd;

	CHECK(m != NULL && m->kind == PROCMAP_FILE);
	if (!m) {
		procmaps__free(pm);
		return;
	}
	fd = procfs__open_mapping(getpid(), m, &replaced);
	CHECK(fd >= 0);
	CHECK(!replaced);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == m->inode);
	if (fd >= 0)
		close(fd);

	/* The same path, but the maps line names another inode: never that file. */
	other = *m;
	other.inode = m->inode + 1;
	CHECK_EQ_INT(procfs__open_mapping(getpid(), &other, &replaced), -ESTALE);
	CHECK(replaced);

	/*
	 * A FIFO where the mapped file was: never opened, so nothing waits for a
	 * writer; the mapped file is read through map_files.
	 */
	snprintf(fifo, sizeof(fifo), "%s/mapped.fifo", top);
	CHECK_EQ_INT(mkfifo(fifo, 0600), 0);
	other = *m;
	other.path = fifo;
	alarm(10); /* a hang fails the test */
	fd = procfs__open_mapping(getpid(), &other, &replaced);
	alarm(0);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == m->inode);
	CHECK(replaced);
	if (fd >= 0)
		close(fd);
	unlink(fifo);
	procmaps__free(pm);
}

static void test_read_maps_gone(void)
{
	pid_t child = fork();
	struct procmaps *pm;

	if (child == 0)
		_exit(0);
	CHECK(child > 0);
	waitpid(child, NULL, 0);
	errno = 0;
	pm = procfs__read_maps(child);
	CHECK(pm == NULL);
	CHECK_EQ_INT(errno, ESRCH);
	procmaps__free(pm);
}

#define NR_THREADS 3

static int hold[2];
static pid_t started[NR_THREADS];

/* A thread that says its id and waits until the pipe is closed. */
static void *thread_main(void *arg)
{
	char c;

	*(pid_t *)arg = gettid();
	while (read(hold[0], &c, 1) > 0)
		;
	return NULL;
}

static bool listed(const pid_t *tids, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

/* The threads, as each knows its own id; less room than threads; a process gone. */
static void test_threads(void)
{
	pthread_t th[NR_THREADS];
	pid_t tids[16], few[3] = { 0, 0, -7 }, child;

	CHECK(pipe(hold) == 0);
	for (int i = 0; i < NR_THREADS; i++)
		CHECK(pthread_create(&th[i], NULL, thread_main, &started[i]) == 0);
	for (int i = 0; i < NR_THREADS; i++)
		while (!__atomic_load_n(&started[i], __ATOMIC_SEQ_CST))
			usleep(1000);
	CHECK_EQ_INT(procfs__threads(getpid(), tids, 16), NR_THREADS + 1);
	CHECK(listed(tids, NR_THREADS + 1, getpid()));
	for (int i = 0; i < NR_THREADS; i++)
		CHECK(listed(tids, NR_THREADS + 1, started[i]));
	CHECK_EQ_INT(procfs__threads(getpid(), few, 2), NR_THREADS + 1);
	CHECK_EQ_INT(few[2], -7);
	close(hold[1]);
	for (int i = 0; i < NR_THREADS; i++)
		pthread_join(th[i], NULL);
	close(hold[0]);

	child = fork();
	if (child == 0)
		_exit(0);
	CHECK(child > 0);
	waitpid(child, NULL, 0);
	CHECK_EQ_INT(procfs__threads(child, tids, 16), -ENOENT);
}

static void remove_root(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	make_root();
	CHECK(chdir(top) == 0);
	RUN(test_in_root);
	RUN(test_resolve_fallback);
	RUN(test_no_links);
	RUN(test_ids);
	RUN(test_open_mapping);
	RUN(test_read_maps_gone);
	RUN(test_threads);
	CHECK(chdir("/") == 0);
	remove_root();
	return test_summary();
}
