// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel symbols (core/symbols/ksyms.c): kallsyms text parsed (text
 * symbols only, modules named, addresses hidden by kptr_restrict refused),
 * the same read from a file, in a thread of its own, and from
 * /proc/kallsyms when it can be read.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/symbols/ksyms.h"
#include "test.h"

static const char kallsyms_text[] = "ffffffff81000000 T _stext\n"
				    "ffffffff81000000 T startup_64\n"
				    "ffffffff81001000 t helper_fn\n"
				    "ffffffff82000000 D some_data\n"
				    "ffffffff81000800 T entry_SYSCALL_64\n"
				    "ffffffff81002000 W weak_fn\n"
				    "0000000000000000 A fixed_percpu_data\n"
				    "garbage line\n"
				    "ffffffffc0001000 t mod_func\t[mymod]\n"
				    "ffffffffc0002000 t last_fn"; /* no newline at the end */

/* What ks holds of kallsyms_text. */
static void check_sample(const struct ksyms *ks)
{
	const struct ksym *k;

	CHECK_EQ_INT(ksyms__count(ks), 7);
	k = ksyms__lookup(ks, 0xffffffff81000010ULL);
	CHECK(k && k->addr == 0xffffffff81000000ULL && k->module == NULL);
	k = ksyms__lookup(ks, 0xffffffff81000900ULL);
	CHECK_EQ_STR(k ? k->name : NULL, "entry_SYSCALL_64");
	k = ksyms__lookup(ks, 0xffffffff81001fffULL);
	CHECK_EQ_STR(k ? k->name : NULL, "helper_fn");
	k = ksyms__lookup(ks, 0xffffffff82000010ULL); /* data is not a function */
	CHECK_EQ_STR(k ? k->name : NULL, "weak_fn");
	k = ksyms__lookup(ks, 0xffffffffc0001004ULL);
	CHECK_EQ_STR(k ? k->name : NULL, "mod_func");
	CHECK_EQ_STR(k ? k->module : NULL, "mymod");
	k = ksyms__lookup(ks, 0xffffffffc0002000ULL);
	CHECK_EQ_STR(k ? k->name : NULL, "last_fn");
	CHECK(ksyms__lookup(ks, 0x1000) == NULL);
}

static void test_kallsyms(void)
{
	FILE *f = fmemopen((void *)kallsyms_text, sizeof(kallsyms_text) - 1, "r");
	struct ksyms *ks = ksyms__parse(f, "kallsyms sample");

	fclose(f);
	CHECK(ks != NULL);
	if (!ks)
		return;
	check_sample(ks);
	ksyms__free(ks);
}

static void test_kallsyms_hidden(void)
{
	static const char hidden[] = "0000000000000000 T _stext\n0000000000000000 t helper\n";
	FILE *f = fmemopen((void *)hidden, sizeof(hidden) - 1, "r");
	struct ksyms *ks;

	errno = 0;
	ks = ksyms__parse(f, "hidden kallsyms");
	fclose(f);
	CHECK(ks == NULL);
	CHECK_EQ_INT(errno, EPERM);
	ksyms__free(NULL);
	CHECK(ksyms__lookup(NULL, 0xffffffff81000000ULL) == NULL);
	CHECK_EQ_INT(ksyms__count(NULL), 0);
}

/* kallsyms_text in a file of its own, whose path is written to path. */
static int sample_file(char *path)
{
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return -1;
	CHECK_EQ_INT(write(fd, kallsyms_text, sizeof(kallsyms_text) - 1),
		     (long long)sizeof(kallsyms_text) - 1);
	close(fd);
	return 0;
}

static void test_load(void)
{
	char path[] = "/tmp/unwprof-test-ksyms.XXXXXX";
	struct ksyms *ks;

	if (sample_file(path))
		return;
	ks = ksyms__load(path);
	CHECK(ks != NULL);
	if (ks)
		check_sample(ks);
	ksyms__free(ks);
	unlink(path);
	errno = 0;
	CHECK(ksyms__load(path) == NULL);
	CHECK_EQ_INT(errno, ENOENT);
}

/* The same in a thread of its own, and its failure given back by the join. */
static void test_preload(void)
{
	char path[] = "/tmp/unwprof-test-ksyms.XXXXXX";
	struct ksyms_preload *pl;
	struct ksyms *ks;

	if (sample_file(path))
		return;
	pl = ksyms__preload(path);
	CHECK(pl != NULL);
	ks = pl ? ksyms__preload_join(pl) : NULL;
	CHECK(ks != NULL);
	if (ks)
		check_sample(ks);
	ksyms__free(ks);
	unlink(path);
	pl = ksyms__preload(path);
	CHECK(pl != NULL);
	if (!pl)
		return;
	errno = 0;
	CHECK(ksyms__preload_join(pl) == NULL);
	CHECK_EQ_INT(errno, ENOENT);
}

/* The kernel's own, sorted: when hidden (no privilege, kptr_restrict), refused as such. */
static void test_proc_kallsyms(void)
{
	struct ksyms *ks;
	const struct ksym *k;

	errno = 0;
	ks = ksyms__load("/proc/kallsyms");
	if (!ks) {
		CHECK(errno == EPERM || errno == ENOENT || errno == EACCES);
		return;
	}
	CHECK(ksyms__count(ks) > 0);
	k = ksyms__lookup(ks, UINT64_MAX);
	CHECK(k && k->name[0]);
	if (k)
		CHECK(ksyms__lookup(ks, k->addr) && ksyms__lookup(ks, k->addr)->addr == k->addr);
	ksyms__free(ks);
}

int main(void)
{
	RUN(test_kallsyms);
	RUN(test_kallsyms_hidden);
	RUN(test_load);
	RUN(test_preload);
	RUN(test_proc_kallsyms);
	return test_summary();
}
