/* SPDX-License-Identifier: GPL-2.0-only */
/* Diagnostics: every message goes to stderr and starts with "unwprof: ". */
#ifndef UNWPROF_LOG_H
#define UNWPROF_LOG_H

/* -1: silent (fuzzing), 0: errors and warnings, 1: -v, 2: -vv, 3: -vvv (libbpf debug) */
extern int log_level;

void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A status line on a terminal, rewritten in place ("\r"); the messages
 * above clear it first, so they never run into it. log_status_end() clears it.
 */
void log_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_status_end(void);

#endif
