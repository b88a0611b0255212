// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/PID/maps parsing (core/targets/procmaps.c), on fixed text and on
 * the test's own mappings.
 */
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "core/elf/elf_file.h"
#include "core/util/log.h"
#include "core/targets/procmaps.h"
#include "core/targets/procfs.h"

static const char maps_text[] =
	"7f0000000000-7f0000001000 r--p 00000000 08:01 1234                       /usr/lib/libx.so\n"
	"7f0000001000-7f0000005000 r-xp 00001000 08:01 1234                       /usr/lib/libx.so\n"
	"55550000a000-55550000b000 r-xp 00002000 fd:00 99    /opt/my app/bin (deleted)\n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
	"7ffd0003e000-7ffd00040000 r-xp 00000000 00:00 0                          [vdso]\n"
	"7e0000000000-7e0000100000 rwxp 00000000 00:00 0 \n"
	"7e0000200000-7e0000201000 r-xp 00000000 00:00 0    [anon:jit]\n";

static struct procmaps *parse(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct procmaps *pm = procmaps__parse(f, 42, "test");

	fclose(f);
	return pm;
}

static void test_parse_text(void)
{
	struct procmaps *pm = parse(maps_text);

	CHECK(pm != NULL);
	if (!pm)
		return;
	CHECK_EQ_INT(pm->pid, 42);
	CHECK_EQ_INT(pm->nr, 5);
	/* Sorted by start. */
	CHECK_EQ_INT(pm->maps[0].start, 0x55550000a000);
	CHECK_EQ_STR(pm->maps[0].path, "/opt/my app/bin (deleted)");
	CHECK_EQ_INT(pm->maps[0].offset, 0x2000);
	CHECK_EQ_INT(pm->maps[0].dev_major, 0xfd);
	CHECK_EQ_INT(pm->maps[0].inode, 99);
	CHECK_EQ_INT(pm->maps[1].kind, PROCMAP_ANON);
	CHECK(pm->maps[1].path == NULL);
	CHECK_EQ_INT(pm->maps[2].kind, PROCMAP_ANON);
	CHECK_EQ_INT(pm->maps[3].kind, PROCMAP_FILE);
	CHECK_EQ_STR(pm->maps[3].path, "/usr/lib/libx.so");
	CHECK_EQ_INT(pm->maps[3].end, 0x7f0000005000);
	CHECK_EQ_INT(pm->maps[4].kind, PROCMAP_SPECIAL);
	CHECK_EQ_STR(pm->maps[4].path, "[vdso]");

	CHECK(procmaps__find(pm, 0x7f0000001000) == &pm->maps[3]);
	CHECK(procmaps__find(pm, 0x7f0000004fff) == &pm->maps[3]);
	CHECK(procmaps__find(pm, 0x7f0000005000) == NULL);
	CHECK(procmaps__find(pm, 0x7f0000000800) == NULL);
	CHECK(procmaps__find(pm, 0x1000) == NULL);
	procmaps__free(pm);
}

static void test_parse_malformed(void)
{
	int saved = log_level;
	struct procmaps *pm;

	log_level = -1;
	errno = 0;
	CHECK(parse("7f0000000000 r-xp 00000000 08:01 1 /x\n") == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	CHECK(parse("7f0000002000-7f0000001000 r-xp 00000000 08:01 1 /x\n") == NULL);
	CHECK(parse("garbage\n") == NULL);
	log_level = saved;

	pm = parse("");
	CHECK(pm != NULL && pm->nr == 0);
	procmaps__free(pm);
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = info->dlpi_addr;
	return 1;
}

__attribute__((noinline)) static int marker(void)
{
	return 7;
}

static void test_self(void)
{
	struct procmaps *pm = procfs__read_maps(getpid());
	uint64_t addr = (uint64_t)(uintptr_t)&marker, bias = 0;
	char *exe = realpath("/proc/self/exe", NULL);
	const struct procmap *m;

	CHECK(pm != NULL);
	if (!pm)
		return;
	for (size_t i = 1; i < pm->nr; i++)
		CHECK(pm->maps[i - 1].end <= pm->maps[i].start);
	m = procmaps__find(pm, addr);
	CHECK(m != NULL);
	if (m) {
		CHECK_EQ_INT(m->kind, PROCMAP_FILE);
		CHECK(exe != NULL && strcmp(m->path, exe) == 0);
		/* the offset of the mapping's start: the executable's own load bias */
		dl_iterate_phdr(first_object, &bias);
		CHECK(m->start - m->offset <= addr && bias <= m->start);
	}
	procmaps__free(pm);
	free(exe);
	CHECK_EQ_INT(marker(), 7);
}

static void test_no_such_process(void)
{
	errno = 0;
	CHECK(procfs__read_maps(0x3ffffff0) == NULL);
	CHECK_EQ_INT(errno, ESRCH);
}

int main(void)
{
	RUN(test_parse_text);
	RUN(test_parse_malformed);
	RUN(test_self);
	RUN(test_no_such_process);
	return test_summary();
}
