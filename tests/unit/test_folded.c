// SPDX-License-Identifier: GPL-2.0-only
/*
 * The folded writer (core/profile/folded.c): order, merging, prefixes, kernel
 * frames, unknown frames, errors.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/profile/folded.h"
#include "core/profile/profile.h"
#include "test.h"
#include "test_profiles.h"

/* Writes p with opts into a string. */
static char *folded_str(const struct profile *p, const struct folded_opts *opts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return NULL;
	err = folded__write(f, p, opts);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Names every location by its address: 0x1NN user "uNN", kernel "kNN". */
static void name_all(struct profile *p)
{
	for (uint32_t i = 0; i < profile__nr_locations(p); i++) {
		const struct profile_location *l = profile__location(p, i);
		char name[32];

		snprintf(name, sizeof(name), "%s%02x", l->kernel ? "k" : "u",
			 (unsigned int)(l->addr & 0xff));
		CHECK_EQ_INT(profile__set_symbol(p, i, PROFILE_NONE, name, name, 0), 0);
	}
}

static struct profile *sample_profile(void)
{
	struct profile *p = profile__new();
	uint64_t leaf_b[] = { 0x103, 0x102, 0x101 }; /* leaf first: main=01 → 02 → 03 */
	uint64_t leaf_a[] = { 0x104, 0x101 };
	uint64_t kern[] = { 0xffffffff81000011ULL, 0xffffffff81000010ULL };

	CHECK_EQ_INT(add_stack(p, 20, 21, "zeta", leaf_b, 3, NULL, 0, 1), 0);
	CHECK_EQ_INT(add_stack(p, 10, 10, "app", leaf_b, 3, NULL, 0, 5), 0);
	CHECK_EQ_INT(add_stack(p, 10, 11, "app", leaf_b, 3, NULL, 0, 2), 0);
	CHECK_EQ_INT(add_stack(p, 10, 10, "app", leaf_a, 2, kern, 2, 3), 0);
	name_all(p);
	return p;
}

static void test_basic(void)
{
	struct profile *p = sample_profile();
	struct folded_opts opts = { .kernel = true };
	char *out = folded_str(p, &opts);

	/* Threads of one process merge without --tid; sorted bytewise. */
	CHECK_EQ_STR(out, "app;u01;u02;u03 7\n"
			  "app;u01;u04;k10_[k];k11_[k] 3\n"
			  "zeta;u01;u02;u03 1\n");
	free(out);
	profile__free(p);
}

static void test_prefixes(void)
{
	struct profile *p = sample_profile();
	struct folded_opts opts = { .pid = true, .kernel = true };
	char *out = folded_str(p, &opts);

	CHECK_EQ_STR(out, "app-10;u01;u02;u03 7\n"
			  "app-10;u01;u04;k10_[k];k11_[k] 3\n"
			  "zeta-20;u01;u02;u03 1\n");
	free(out);
	opts.tid = true;
	out = folded_str(p, &opts);
	CHECK_EQ_STR(out, "app-10/10;u01;u02;u03 5\n"
			  "app-10/10;u01;u04;k10_[k];k11_[k] 3\n"
			  "app-10/11;u01;u02;u03 2\n"
			  "zeta-20/21;u01;u02;u03 1\n");
	free(out);
	profile__free(p);
}

static void test_no_kernel(void)
{
	struct profile *p = sample_profile();
	struct folded_opts opts = {};
	char *out = folded_str(p, &opts);

	CHECK_EQ_STR(out, "app;u01;u02;u03 7\n"
			  "app;u01;u04 3\n"
			  "zeta;u01;u02;u03 1\n");
	free(out);
	profile__free(p);
}

static void test_unknown_frames(void)
{
	struct profile *p = profile__new();
	struct profile_mapping lib = {
		.start = 0x7f0000001000,
		.limit = 0x7f0000005000,
		.offset = 0x1000,
		.file = "/usr/lib/libfoo.so.1",
	};
	struct profile_mapping vdso = { .start = 0x7fff0000,
					.limit = 0x7fff2000,
					.file = "[vdso]" };
	struct profile_mapping kernel = { .limit = UINT64_MAX, .file = "[kernel.kallsyms]" };
	uint64_t user[] = { 0x7fff0100, 0x7f0000002a2b, 0x5000 };
	uint64_t kern[] = { 0xffffffff81abcdefULL };
	struct folded_opts opts = { .kernel = true };
	uint32_t m_lib, m_vdso, m_kernel;
	char *out;

	CHECK_EQ_INT(add_stack(p, 1, 1, "a;b c", user, 3, kern, 1, 1), 0);
	CHECK_EQ_INT(profile__add_mapping(p, &lib, &m_lib), 0);
	CHECK_EQ_INT(profile__add_mapping(p, &vdso, &m_vdso), 0);
	CHECK_EQ_INT(profile__add_mapping(p, &kernel, &m_kernel), 0);
	CHECK_EQ_INT(profile__set_symbol(p, 0, m_vdso, NULL, NULL, 0), 0);
	CHECK_EQ_INT(profile__set_symbol(p, 1, m_lib, NULL, NULL, 0), 0);
	/* location 2 (0x5000): no mapping at all */
	CHECK_EQ_INT(profile__set_symbol(p, 3, m_kernel, NULL, NULL, 0), 0);
	out = folded_str(p, &opts);
	/* File offsets: 0x2a2b - 0x1000 + 0x1000; ';' in names cannot split a frame. */
	CHECK_EQ_STR(out, "a:b c;[unknown];[libfoo.so.1+0x2a2b];[vdso+0x100];"
			  "[kernel.kallsyms+0xffffffff81abcdef]_[k] 1\n");
	free(out);
	profile__free(p);
}

static void test_names_sanitized(void)
{
	struct profile *p = profile__new();
	uint64_t user[] = { 0x10 };
	struct folded_opts opts = {};
	char *out;

	CHECK_EQ_INT(add_stack(p, 1, 1, "x", user, 1, NULL, 0, 2), 0);
	CHECK_EQ_INT(profile__set_symbol(p, 0, PROFILE_NONE, "f(std::pair<int;\nint>)", "raw", 0),
		     0);
	out = folded_str(p, &opts);
	CHECK_EQ_STR(out, "x;f(std::pair<int: int>) 2\n");
	free(out);
	profile__free(p);
}

/* Two functions at different addresses with one name merge into one line. */
static void test_merge_by_text(void)
{
	struct profile *p = profile__new();
	uint64_t a[] = { 0x10 }, b[] = { 0x20 };
	struct folded_opts opts = {};
	char *out;

	CHECK_EQ_INT(add_stack(p, 1, 1, "x", a, 1, NULL, 0, 2), 0);
	CHECK_EQ_INT(add_stack(p, 1, 1, "x", b, 1, NULL, 0, 3), 0);
	CHECK_EQ_INT(profile__set_symbol(p, 0, PROFILE_NONE, "same", "same", 0), 0);
	CHECK_EQ_INT(profile__set_symbol(p, 1, PROFILE_NONE, "same", "same", 4), 0);
	out = folded_str(p, &opts);
	CHECK_EQ_STR(out, "x;same 5\n");
	free(out);
	profile__free(p);
}

/* Same samples added in another order: the same bytes. */
static void test_deterministic(void)
{
	struct profile *p1 = profile__new(), *p2 = profile__new();
	struct folded_opts opts = { .tid = true, .kernel = true };
	char *o1, *o2;

	for (uint64_t i = 0; i < 200; i++) {
		uint64_t st[2] = { 0x100 + i % 17, 0x100 + i % 5 };

		CHECK_EQ_INT(add_stack(p1, 1 + i % 3, 1 + i % 3, "w", st, 2, NULL, 0, 1 + i), 0);
	}
	for (uint64_t j = 200; j-- > 0;) {
		uint64_t st[2] = { 0x100 + j % 17, 0x100 + j % 5 };

		CHECK_EQ_INT(add_stack(p2, 1 + j % 3, 1 + j % 3, "w", st, 2, NULL, 0, 1 + j), 0);
	}
	name_all(p1);
	name_all(p2);
	o1 = folded_str(p1, &opts);
	o2 = folded_str(p2, &opts);
	CHECK(o1 && o2 && strlen(o1) > 100);
	CHECK_EQ_STR(o1, o2);
	free(o1);
	free(o2);
	profile__free(p1);
	profile__free(p2);
}

static void test_empty(void)
{
	struct profile *p = profile__new();
	struct folded_opts opts = {};
	char *out = folded_str(p, &opts);

	CHECK_EQ_STR(out, "");
	free(out);
	profile__free(p);
}

static void test_write_error(void)
{
	struct profile *p = sample_profile();
	struct folded_opts opts = { .kernel = true };
	FILE *f = fopen("/dev/full", "w");

	CHECK(f != NULL);
	if (f) {
		CHECK_EQ_INT(folded__write(f, p, &opts), -ENOSPC);
		fclose(f);
	}
	profile__free(p);
}

int main(void)
{
	RUN(test_basic);
	RUN(test_prefixes);
	RUN(test_no_kernel);
	RUN(test_unknown_frames);
	RUN(test_names_sanitized);
	RUN(test_merge_by_text);
	RUN(test_deterministic);
	RUN(test_empty);
	RUN(test_write_error);
	return test_summary();
}
