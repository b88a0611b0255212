/* SPDX-License-Identifier: GPL-2.0-only */
/* The subcommand table: each cmd/<name>.c defines one struct unwprof_cmd. */
#ifndef UNWPROF_CMD_H
#define UNWPROF_CMD_H

#include <argp.h>

struct unwprof_cmd {
	const char *name;
	/* argv[0] is the subcommand name; returns an exit code (0, 1, 64, ...). */
	int (*fn)(int argc, char **argv);
	const char *help; /* one line for `unwprof --help` */
};

extern const struct unwprof_cmd cmd_dump_unwind;
extern const struct unwprof_cmd cmd_record;
extern const struct unwprof_cmd cmd_shards;
extern const struct unwprof_cmd cmd_report;

/* argp child shared by every subcommand: -v/--verbose. */
extern const struct argp common_argp;

/*
 * Runs argp over a subcommand's arguments with the exit status for usage
 * errors set to 64 and the program name shown as "unwprof CMD".
 */
int cmd_parse(const struct argp *argp, int argc, char **argv, void *input);

/*
 * A write to stdout failed with -err (the first one is kept): once the
 * command returns, main() says so, with its reason, and fails it. A
 * failure main() sees itself (stdio's error flag, the last flush) needs no
 * call.
 */
void cmd_stdout_failed(int err);

#endif
