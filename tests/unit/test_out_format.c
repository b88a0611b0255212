// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of output formats: names and file names told apart as record
 * and report take them, the list messages give, and a format not in the
 * table refused by the dispatch rather than written as another.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/profile/out_format.h"
#include "core/profile/profile.h"
#include "test.h"

static void test_names(void)
{
	enum out_format f = OUT_NR;

	for (int i = 0; i < OUT_NR; i++) {
		CHECK(out_format__get((enum out_format)i) != NULL);
		CHECK_EQ_INT(out_format__parse(out_format__name((enum out_format)i), &f), 0);
		CHECK_EQ_INT(f, i);
	}
	CHECK_EQ_INT(out_format__parse("svg", &f), 0);
	CHECK_EQ_INT(f, OUT_SVG);
	CHECK_EQ_INT(out_format__parse("SVG", &f), -EINVAL);
	CHECK_EQ_INT(out_format__parse("", &f), -EINVAL);
	CHECK(out_format__binary(OUT_PPROF));
	CHECK(!out_format__binary(OUT_FOLDED) && !out_format__binary(OUT_SVG));
	CHECK(out_format__get(OUT_NR) == NULL);
	CHECK_EQ_STR(out_format__name(OUT_NR), "?");
	CHECK(!out_format__binary(OUT_NR));
}

static void check_path(const char *path, int want)
{
	enum out_format f = OUT_NR;
	int err = out_format__from_path(path, &f);

	if (want < 0) {
		CHECK_EQ_INT(err, want);
		return;
	}
	CHECK_EQ_INT(err, 0);
	CHECK_EQ_INT(f, want);
}

static void test_paths(void)
{
	check_path("app.pb.gz", OUT_PPROF);
	check_path("dir.svg/app.pb", OUT_PPROF);
	check_path("APP.PPROF", OUT_PPROF);
	check_path("app.prof", OUT_PPROF);
	check_path("app.gz", OUT_PPROF);
	check_path("/tmp/app.svg", OUT_SVG);
	check_path("app.folded", OUT_FOLDED);
	check_path("app.Txt", OUT_FOLDED);
	check_path(".svg", -ENOENT);
	check_path("dir/.folded", -ENOENT);
	check_path("app.svg/", -ENOENT);
	check_path("app.json", -ENOENT);
	check_path("app", -ENOENT);
	CHECK_EQ_STR(out_format__extensions(), ".pb.gz, .pb, .pprof, .prof or .gz (pprof), .svg "
					       "(flame graph), .folded or .txt (folded)");
}

static void test_write(void)
{
	struct profile *p = profile__new();
	struct out_format_opts opts = { .kernel = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(p && f);
	if (!p || !f)
		return;
	CHECK_EQ_INT(out_format__write(f, OUT_NR, p, &opts), -EINVAL);
	CHECK_EQ_INT(out_format__write(f, (enum out_format)(OUT_NR + 1), p, &opts), -EINVAL);
	fflush(f);
	CHECK_EQ_INT(len, 0);
	CHECK_EQ_INT(out_format__write(f, OUT_SVG, p, &opts), 0);
	fflush(f);
	CHECK(len > 0 && strstr(buf, "<svg") != NULL);
	fclose(f);
	free(buf);
	profile__free(p);
}

int main(void)
{
	RUN(test_names);
	RUN(test_paths);
	RUN(test_write);
	return test_summary();
}
