// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

int log_level;

__attribute__((format(printf, 3, 0))) static void vlog(int level, const char *prefix,
						       const char *fmt, va_list ap)
{
	if (log_level < level)
		return;
	fprintf(stderr, "unwprof: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define DEFINE_PR(name, level, prefix)        \
	void name(const char *fmt, ...)       \
	{                                     \
		va_list ap;                   \
		va_start(ap, fmt);            \
		vlog(level, prefix, fmt, ap); \
		va_end(ap);                   \
	}

DEFINE_PR(pr_err, 0, "")
DEFINE_PR(pr_warn, 0, "warning: ")
DEFINE_PR(pr_info, 1, "")
DEFINE_PR(pr_debug, 2, "")
