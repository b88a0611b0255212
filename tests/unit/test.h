/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Minimal unit-test support: CHECK() records a failure with its location and
 * goes on; a test file's main() runs its cases with RUN() and returns
 * test_summary(), which is non-zero when anything failed or nothing was
 * checked. A case that made no check fails: a setup that failed must say so
 * with a failed check or FAIL(), never return quietly.
 *
 * A unit case needs nothing the suite's dependencies (setup.sh) do not
 * give. SKIP() is for a system file genuinely absent on this machine: the
 * case says why and its file exits 77 (meson's skip); in CI (CI set in the
 * environment) a skip is a failure.
 */
#ifndef UNWPROF_TEST_H
#define UNWPROF_TEST_H

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int test_failures;
static int test_checks;
static int test_skips;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		test_checks++;                                                                   \
		if (!(cond)) {                                                                   \
			test_failures++;                                                         \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                                \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                                    \
	do {                                                                                  \
		long long _a = (long long)(a), _b = (long long)(b);                           \
		test_checks++;                                                                \
		if (_a != _b) {                                                               \
			test_failures++;                                                      \
			fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
				__LINE__, #a, _a, #b, _b);                                    \
		}                                                                             \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                                  \
	do {                                                                                \
		const char *_a = (a), *_b = (b);                                            \
		test_checks++;                                                              \
		if (!_a || !_b || strcmp(_a, _b) != 0) {                                    \
			test_failures++;                                                    \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, \
				__LINE__, #a, _a ? _a : "(null)", _b ? _b : "(null)");      \
		}                                                                           \
	} while (0)

/* Records a failure that no condition states (a setup that failed), with its reason. */
#define FAIL(...)                                                     \
	do {                                                          \
		test_checks++;                                        \
		test_failures++;                                      \
		fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);                         \
		fputc('\n', stderr);                                  \
	} while (0)

/*
 * The case cannot run here, because of why (a system file absent): the
 * caller returns then. A failure in CI, where everything must run.
 */
#define SKIP(why) test_skip(__FILE__, __LINE__, (why))

static inline void test_skip(const char *file, int line, const char *why)
{
	const char *ci = getenv("CI");

	if (ci && *ci) {
		test_checks++;
		test_failures++;
		fprintf(stderr, "%s:%d: cannot run: %s, and CI runs every case\n", file, line, why);
		return;
	}
	test_skips++;
	printf("%s:%d: skipped: %s\n", file, line, why);
}

/* Runs one case: it fails when a check failed, or when it made none and did not skip. */
static inline void test_run(void (*fn)(void), const char *name)
{
	int failures = test_failures, checks = test_checks, skips = test_skips;
	const char *verdict = "ok  ";

	fn();
	if (test_failures != failures) {
		verdict = "FAIL";
	} else if (test_skips != skips) {
		verdict = "skip";
	} else if (test_checks == checks) {
		test_failures++;
		fprintf(stderr, "%s: no check ran\n", name);
		verdict = "FAIL";
	}
	printf("%s %s\n", verdict, name);
}

#define RUN(fn) test_run((fn), #fn)

/*
 * Writes size bytes of data to dir/name; returns the path, valid until the
 * next call. A file not written is a failure of the case.
 */
static inline const char *test_write_file(const char *dir, const char *name, const void *data,
					  size_t size)
{
	static char path[256];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		FAIL("path too long: %s/%s", dir, name);
		return path;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		FAIL("cannot write %s", path);
	if (fd >= 0)
		close(fd);
	return path;
}

/*
 * The exit status of a test file: 1 when a check failed or none ran, 77
 * (skipped) when a case skipped and nothing failed, else 0.
 */
static inline int test_summary(void)
{
	printf("%d checks, %d failed, %d cases skipped\n", test_checks, test_failures, test_skips);
	if (test_failures)
		return 1;
	if (test_skips)
		return 77;
	if (!test_checks) {
		fprintf(stderr, "no check ran\n");
		return 1;
	}
	return 0;
}

#endif
