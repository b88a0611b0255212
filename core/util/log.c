// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

int log_level;
static int status_shown; /* a status line is on stderr, without its newline */

void log_status_end(void)
{
	if (!status_shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	status_shown = 0;
}

void log_status(const char *fmt, ...)
{
	va_list ap;

	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	status_shown = 1;
}

__attribute__((format(printf, 3, 0))) static void vlog(int level, const char *prefix,
						       const char *fmt, va_list ap)
{
	if (log_level < level)
		return;
	log_status_end();
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
