/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Minimal unit-test support: CHECK() records a failure with its location and
 * goes on; a test file's main() runs its cases with RUN() and returns
 * test_summary(), which is non-zero when anything failed or nothing was
 * checked.
 */
#ifndef UNWPROF_TEST_H
#define UNWPROF_TEST_H

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int test_failures;
static int test_checks;

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

#define RUN(fn)                                                                     \
	do {                                                                        \
		int _before = test_failures;                                        \
		fn();                                                               \
		printf("%s %s\n", test_failures == _before ? "ok  " : "FAIL", #fn); \
	} while (0)

/*
 * Writes size bytes of data to dir/name; returns the path, valid until the
 * next call. A failure is printed: the check that opens the file fails then.
 */
static inline const char *test_write_file(const char *dir, const char *name, const void *data,
					  size_t size)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		fprintf(stderr, "cannot write %s\n", path);
	if (fd >= 0)
		close(fd);
	return path;
}

/* Non-zero when a check failed, or when none ran: a test that checks nothing fails. */
static inline int test_summary(void)
{
	printf("%d checks, %d failed\n", test_checks, test_failures);
	if (!test_checks)
		fprintf(stderr, "no check ran\n");
	return test_failures || !test_checks ? 1 : 0;
}

#endif
