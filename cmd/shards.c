// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwprof shards: build the unwind tables of some files, or of the
 * executable mappings of running processes, run them through the loader
 * and the shard packer that record uses, and print where the rows land: per
 * shard, per executable, and in total, with what deduplication by build ID
 * saved.
 *
 * Here its options; the report is core/unwind/shards_report.c's, whose
 * loading and packing are record's (core/unwind/loader.c).
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cmd.h"
#include "../core/util/big_alloc.h"
#include "../core/util/common.h"
#include "../core/util/json.h"
#include "../core/util/log.h"
#include "../core/unwind/shards_report.h"
#include "../core/unwind/encoder.h"

enum {
	OPT_JSON = 256,
	OPT_SHARD_ROWS,
	OPT_MAX_SHARDS,
};

struct shards_args {
	struct shards_report_opts opts; /* what is packed, and how */
	bool json;
};

static const char shards_doc[] =
	"Show how the unwind tables of FILEs, or of every executable mapping of the "
	"processes PIDs, pack into the BPF map shards record loads them into: each shard "
	"(rows used, how full, which executables' chunks it holds), each executable "
	"(path, build ID, rows, chunks, shards it spans, bytes) and the totals (rows, "
	"BPF map memory allocated and used, rows that did not fit, and the rows that "
	"deduplication by build ID saved when several processes map the same library)."
	"\v"
	"Tables are keyed by GNU build ID, or by a hash of the file's contents when it has "
	"none, so each is built and packed once. With -p, the tables are loaded by the code "
	"record loads them with: the same mappings (past 256 in a process, the lowest and "
	"highest), files opened as each process sees them (through /proc/PID/root), all "
	"tables packed smallest first; so the layout, shard by shard, is what record -p "
	"loads for the same processes and --max-shards. FILEs are packed in the order "
	"given. dedup_saved_rows is the sum, "
	"over processes (or FILEs), of the rows of the distinct tables each one maps, minus "
	"the rows of all distinct tables.\n\n"
	"A table is split between shards only where a 64 KiB page of its code ends. A "
	"table that does not fit (over --max-shards, or with a page of more rows than a "
	"shard holds) is placed in part; the rest is reported as unplaced rows, which the "
	"profiler walks with frame pointers. In --json, \"max_shards\" is null when there "
	"is no cap; \"bytes\" in the totals is the shard memory allocated (shards x shard "
	"rows x row bytes) and \"used_bytes\" what the rows placed take with the page map "
	"entries (\"pages\") and the one dictionary of distinct rules (\"rules\") that "
	"index them; \"row_bytes\" is the size of a row in the BPF maps. An executable's "
	"\"bytes\" is what its table would take alone: rows, pages and its distinct rules.\n\n"
	"A FILE that is not ELF, or a PID that does not exist, is reported and left out: "
	"the others are still shown, and the exit status is 1. When none can be read, "
	"nothing is shown.\n\n"
	"EXAMPLES:\n"
	"  unwprof shards -p 4242\n"
	"  unwprof shards -p 4242,4243 --json       # two processes sharing libraries\n"
	"  unwprof shards /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1\n"
	"  unwprof shards --shard-rows 4096 --max-shards 8 ./app\n\n"
	"Exit status: 0 on success, 1 on failure, 64 on a usage error.\n\n"
	"See unwprof-shards(1).";

static const struct argp_option shards_options[] = {
	{ NULL, 0, NULL, 0, "Input (one of):", 1 },
	{ "pids", 'p', "PID[,PID...]", 0, "Tables of every executable mapping of these processes",
	  1 },
	{ NULL, 0, NULL, 0, "Packing:", 2 },
	{ "shard-rows", OPT_SHARD_ROWS, "N", 0, "Rows per shard, 1..262144 (default 262144)", 2 },
	{ "max-shards", OPT_MAX_SHARDS, "N", 0, "Cap the shards at N (default: no cap)", 2 },
	{ NULL, 0, NULL, 0, "Output:", 3 },
	{ "json", OPT_JSON, NULL, 0, "Print JSON (\"schema\": 1) instead of tables", 3 },
	{},
};

/* Options */

static void add_file(struct argp_state *state, struct shards_args *args, char *file)
{
	char **files = reallocarray(args->opts.files, args->opts.nr_files + 1, sizeof(*files));

	if (!files)
		argp_failure(state, EXIT_FAIL, ENOMEM, "FILE");
	args->opts.files = files;
	args->opts.files[args->opts.nr_files++] = file;
}

static error_t shards_parse(int key, char *arg, struct argp_state *state)
{
	struct shards_args *args = state->input;

	switch (key) {
	case 'p':
		/* a process listed twice is one process: it must not count as sharing */
		args__ids(state, "-p", arg, "process", &args->opts.pids, &args->opts.nr_pids);
		return 0;
	case OPT_SHARD_ROWS:
		args->opts.shard_rows = args__uint(state, "--shard-rows", arg, 1,
						   encoder__geometry(args->opts.enc)->shard_rows,
						   "a number");
		return 0;
	case OPT_MAX_SHARDS:
		args->opts.max_shards =
			args__uint(state, "--max-shards", arg, 1, UINT32_MAX, "a number");
		return 0;
	case OPT_JSON:
		args->json = true;
		return 0;
	case ARGP_KEY_ARG:
		add_file(state, args, arg);
		return 0;
	case ARGP_KEY_END:
		if (args->opts.nr_pids && args->opts.nr_files)
			argp_error(state, "-p and FILE cannot be combined: give one of them");
		if (!args->opts.nr_pids && !args->opts.nr_files)
			argp_error(state, "nothing to pack: give -p PID or FILE...");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child shards_children[] = {
	{ &common_argp, 0, NULL, 0 },
	{},
};

static const struct argp shards_argp = {
	.options = shards_options,
	.parser = shards_parse,
	.args_doc = "-p PID[,PID...] | FILE...",
	.doc = shards_doc,
	.children = shards_children,
};

/* The command */

static int print_json(const struct shards_report *rep)
{
	struct json_writer *jw = json__new(stdout, false);
	int err;

	if (!jw)
		return -errno;
	shards_report__write_json(rep, jw);
	errno = 0;
	err = json__free(jw);
	if (err == -EINVAL)
		pr_err("internal error: the JSON output is not well-formed");
	else if (err)
		cmd_stdout_failed(errno ? -errno : err); /* said by main() */
	return err == -EINVAL ? err : 0;
}

static int run_shards(int argc, char **argv)
{
	struct shards_args args = { .opts.enc = encoder__new(ENCODER_COMPACT) };
	struct shards_report *rep = NULL;
	int err = 0, ret = EXIT_FAIL;

	if (!args.opts.enc) {
		pr_err("out of memory");
		goto cleanup;
	}
	if (cmd_parse(&shards_argp, argc, argv, &args)) {
		ret = EXIT_USAGE;
		goto cleanup;
	}
	/* Its large blocks (the tables' and the shards') in huge pages. */
	big_heap_begin();
	rep = shards_report__new(&args.opts);
	if (!rep || !shards_report__inputs(rep))
		goto cleanup;
	errno = 0;
	if (args.json)
		err = print_json(rep);
	else
		shards_report__write_text(rep, stdout);
	if (err || ferror(stdout))
		goto cleanup; /* a write error of stdout is said by main() */
	ret = shards_report__skipped(rep) ? EXIT_FAIL : EXIT_OK;
cleanup:
	shards_report__free(rep);
	free(args.opts.pids);
	free(args.opts.files);
	encoder__free(args.opts.enc);
	return ret;
}

const struct unwprof_cmd cmd_shards = {
	.name = "shards",
	.fn = run_shards,
	.help = "show how unwind tables pack into BPF map shards",
};
