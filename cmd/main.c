// SPDX-License-Identifier: GPL-2.0-only
/* unwprof: dispatch to a subcommand from the table below. */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "../core/util/common.h"
#include "../core/util/log.h"

static const struct unwprof_cmd *const commands[] = {
	&cmd_record,
	&cmd_report,
	&cmd_dump_unwind,
	&cmd_shards,
};

const char *argp_program_version = "unwprof " UNWPROF_VERSION;
const char *argp_program_bug_address = NULL;

static const struct unwprof_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static void print_commands(FILE *f)
{
	fprintf(f, "Commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-14s %s\n", commands[i]->name, commands[i]->help);
	fprintf(f, "  %-14s %s\n", "help", "show the help of a command");
}

static const struct argp_option cmd_options[] = {
	{ "verbose", 'v', NULL, 0, "More messages on stderr (repeat for more)", 0 },
	{},
};

static error_t parse_common(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	switch (key) {
	case 'v':
		log_level++;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp common_argp = {
	.options = cmd_options,
	.parser = parse_common,
};

int cmd_parse(const struct argp *argp, int argc, char **argv, void *input)
{
	char name[64];
	char *saved = argv[0];
	int err;

	snprintf(name, sizeof(name), "unwprof %s", argv[0]);
	argv[0] = name;
	err = argp_parse(argp, argc, argv, ARGP_IN_ORDER, NULL, input);
	argv[0] = saved;
	return err;
}

struct main_args {
	int cmd_index; /* index in argv of the subcommand, 0 when none */
};

static const char main_doc[] =
	"A CPU profiler that unwinds stacks in BPF with DWARF unwind tables.\v"
	"Run `unwprof COMMAND --help` for the options of a command.\n\n"
	"Exit status: 0 on success, 1 on failure, 64 on a usage error.\n\n"
	"See unwprof(1) and unwprof-COMMAND(1).";

static error_t parse_main(int key, char *arg, struct argp_state *state)
{
	struct main_args *args = state->input;

	switch (key) {
	case 'v':
		log_level++;
		return 0;
	case ARGP_KEY_ARG:
		(void)arg;
		args->cmd_index = state->next - 1;
		state->next = state->argc; /* the rest belongs to the subcommand */
		return 0;
	case ARGP_KEY_END:
		if (!args->cmd_index) {
			argp_state_help(state, stderr, ARGP_HELP_SHORT_USAGE);
			fprintf(stderr, "\n");
			print_commands(stderr);
			exit(EXIT_USAGE);
		}
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static char *main_help_filter(int key, const char *text, void *input)
{
	(void)input;
	if (key == ARGP_KEY_HELP_POST_DOC) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		if (!f)
			return (char *)text;
		print_commands(f);
		fprintf(f, "\n%s", text);
		fclose(f);
		return buf;
	}
	return (char *)text;
}

static const struct argp main_argp = {
	.options = cmd_options,
	.parser = parse_main,
	.args_doc = "COMMAND [ARGS...]",
	.doc = main_doc,
	.help_filter = main_help_filter,
};

static int run_help(int argc, char **argv)
{
	const struct unwprof_cmd *cmd;
	char help[] = "--help";
	char *help_argv[3];

	if (argc < 2) {
		print_commands(stdout);
		return EXIT_OK;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		pr_err("unknown command '%s'; run 'unwprof --help' for the list", argv[1]);
		return EXIT_USAGE;
	}
	help_argv[0] = argv[1];
	help_argv[1] = help;
	help_argv[2] = NULL;
	return cmd->fn(2, help_argv);
}

static int stdout_err; /* errno of the first failed write a command told of */

void cmd_stdout_failed(int err)
{
	if (!stdout_err && err < 0)
		stdout_err = -err;
}

/*
 * What a command wrote to stdout must have been written: a failed write (a
 * full disk, a closed pipe) fails the command, said once, here, for all.
 */
static int close_stdout(int status)
{
	int err = stdout_err;

	errno = 0;
	if ((fflush(stdout) != 0 || ferror(stdout)) && !err)
		err = errno ? errno : EIO;
	if (fclose(stdout) != 0 && !err)
		err = errno ? errno : EIO;
	if (!err)
		return status;
	pr_err("cannot write the output to stdout: %s", strerror(err));
	return status == EXIT_USAGE ? status : EXIT_FAIL;
}

int main(int argc, char **argv)
{
	struct main_args args = {};
	const struct unwprof_cmd *cmd;
	char *name;

	argp_err_exit_status = EXIT_USAGE;
	if (argp_parse(&main_argp, argc, argv, ARGP_IN_ORDER, NULL, &args))
		return EXIT_USAGE;

	name = argv[args.cmd_index];
	if (strcmp(name, "help") == 0)
		return close_stdout(run_help(argc - args.cmd_index, argv + args.cmd_index));
	cmd = find_command(name);
	if (!cmd) {
		pr_err("unknown command '%s'; run 'unwprof --help' for the list", name);
		return EXIT_USAGE;
	}
	return close_stdout(cmd->fn(argc - args.cmd_index, argv + args.cmd_index));
}
