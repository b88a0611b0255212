// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwprof dump-unwind: build the compact unwind table of one ELF file, as
 * record would, and print it (a table like `readelf -wF`, or JSON). Here
 * its options; the table and its printing are core/unwind/unwind_dump.c's.
 */
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "../core/util/big_alloc.h"
#include "../core/util/common.h"
#include "../core/unwind/unwind_dump.h"
#include "../core/util/log.h"

enum {
	OPT_JSON = 256,
	OPT_PC,
	OPT_DEBUG_FILE,
	OPT_NO_DEBUGINFO,
	OPT_SUMMARY,
	OPT_FROM_CODE,
};

struct dump_args {
	struct unwind_dump_opts opts; /* the file, its debug file, --summary */
	uint64_t pc;
	bool have_pc;
	bool json;
};

static const char dump_doc[] =
	"Print the compact unwind table that unwprof builds for an ELF file from its "
	".eh_frame and .debug_frame (and the .debug_frame of its separate debug file), "
	"and in a Go binary from the SP deltas of its .gopclntab, which win where they "
	"describe a function, "
	"one row per line: the first address the row governs, how to find the CFA, "
	"how to recover the frame pointer and the return address; `end` marks a gap "
	"without unwind info. A summary follows.\n"
	"\v"
	"The separate debug file is looked up by build ID under "
	"/usr/lib/debug/.build-id/, then by the .gnu_debuglink name next to the file, "
	"in its .debug/ directory and under /usr/lib/debug; it is used only when its "
	"build ID (or the debug link's CRC) matches. --debug-file names it explicitly: "
	"a missing or non-matching file is an error, since its rows would be wrong.\n\n"
	"--pc prints the row that governs one address. An address without unwind info "
	"(in a gap, before the first or after the last function) is not an error: the "
	"output says so ('\"row\": null' with --json) and the exit status is 0.\n\n"
	"Malformed call-frame information (FDEs that had to be skipped) is reported and "
	"makes the exit status 1, after the output of what could be built.\n\n"
	"With --summary --json, \"rows\" is left out and \"row_count\" and \"bpf_bytes\" "
	"are given instead. Sources are \".eh_frame\", \".debug_frame\" (in the file "
	"itself), \".debug_frame (PATH)\" (in the separate debug file PATH) and "
	"\".gopclntab\"; where no CFI describes the code, \"the PLT's code\" and \"the vDSO's "
	"code\" (aarch64) and \"the functions' code\" (x86-64: rows derived from each "
	"function's prologue and epilogues, with \"code\" saying how many functions and "
	"rows, how many were refused and the ranges they cover).\n\n"
	"--from-code builds the table of an x86-64 file from the code of its functions "
	"alone, its CFI ignored: what unwprof would derive if the file had none.\n\n"
	"EXAMPLES:\n"
	"  unwprof dump-unwind /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"  unwprof dump-unwind --summary ./app\n"
	"  unwprof dump-unwind --pc 0x26010 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"  unwprof dump-unwind --json --no-debuginfo ./app > app-unwind.json\n"
	"  unwprof dump-unwind --debug-file ./app.debug ./app\n\n"
	"Exit status: 0 on success, 1 on failure, 64 on a usage error.\n\n"
	"See unwprof-dump-unwind(1).";

static const struct argp_option dump_options[] = {
	{ NULL, 0, NULL, 0, "Output:", 1 },
	{ "json", OPT_JSON, NULL, 0, "Print JSON (\"schema\": 1) instead of a table", 1 },
	{ "summary", OPT_SUMMARY, NULL, 0, "Print only the summary, not the rows", 1 },
	{ "pc", OPT_PC, "ADDR", 0,
	  "Print only the row governing the ELF virtual address ADDR (hex with 0x, or decimal)",
	  1 },
	{ NULL, 0, NULL, 0, "Debug files:", 2 },
	{ "debug-file", OPT_DEBUG_FILE, "PATH", 0,
	  "Use PATH as the separate debug file (it must match the build ID)", 2 },
	{ "no-debuginfo", OPT_NO_DEBUGINFO, NULL, 0, "Do not look for a separate debug file", 2 },
	{ NULL, 0, NULL, 0, "Table:", 3 },
	{ "from-code", OPT_FROM_CODE, NULL, 0,
	  "Derive the rows from the functions' code alone, ignoring the CFI (x86-64)", 3 },
	{},
};

/* Hex with 0x, or decimal; no sign, no octal, no trailing text. */
static int parse_addr(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	/* strtoull() would also take a sign or leading blanks. */
	if (base == 16 ? !isxdigit((unsigned char)s[0]) : !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static error_t dump_parse(int key, char *arg, struct argp_state *state)
{
	struct dump_args *args = state->input;

	switch (key) {
	case OPT_JSON:
		args->json = true;
		return 0;
	case OPT_SUMMARY:
		args->opts.summary = true;
		return 0;
	case OPT_PC:
		if (parse_addr(arg, &args->pc))
			argp_error(state, "--pc: '%s' is not an address (hex with 0x, or decimal)",
				   arg);
		args->have_pc = true;
		return 0;
	case OPT_DEBUG_FILE:
		args->opts.debug_file = arg;
		return 0;
	case OPT_NO_DEBUGINFO:
		args->opts.no_debuginfo = true;
		return 0;
	case OPT_FROM_CODE:
		args->opts.from_code = true;
		return 0;
	case ARGP_KEY_ARG:
		if (args->opts.file)
			argp_error(state, "one FILE only ('%s' and '%s')", args->opts.file, arg);
		args->opts.file = arg;
		return 0;
	case ARGP_KEY_END:
		if (!args->opts.file)
			argp_error(state, "missing FILE");
		if (args->have_pc && args->opts.summary)
			argp_error(state, "--pc and --summary cannot be used together");
		if (args->opts.debug_file && args->opts.no_debuginfo)
			argp_error(state,
				   "--debug-file and --no-debuginfo cannot be used together");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child dump_children[] = {
	{ &common_argp, 0, NULL, 0 },
	{},
};

static const struct argp dump_argp = {
	.options = dump_options,
	.parser = dump_parse,
	.args_doc = "FILE",
	.doc = dump_doc,
	.children = dump_children,
};

static int print_output(const struct unwind_dump *d, const struct dump_args *args)
{
	size_t bad = unwind_dump__nr_bad_fdes(d);
	int err;

	if (args->have_pc && args->json)
		err = unwind_dump__write_pc_json(d, args->pc, stdout);
	else if (args->have_pc)
		err = unwind_dump__write_pc_text(d, args->pc, stdout);
	else if (args->json)
		err = unwind_dump__write_json(d, stdout);
	else
		err = unwind_dump__write_text(d, stdout);
	if (err == -ENOMEM)
		pr_err("%s: out of memory", args->opts.file);
	else if (err && err != -EINVAL)
		cmd_stdout_failed(err); /* said by main() */
	if (err)
		return err;
	/*
	 * dump-unwind is how a file is checked: what could be built is printed,
	 * but malformed CFI still makes it fail.
	 */
	if (bad) {
		pr_err("%s: %zu malformed FDE%s skipped: the table is incomplete", args->opts.file,
		       bad, bad == 1 ? "" : "s");
		return -EINVAL;
	}
	return 0;
}

static int run_dump_unwind(int argc, char **argv)
{
	static char outbuf[1 << 18];
	struct dump_args args = {};
	struct unwind_dump *d;
	int err;

	if (cmd_parse(&dump_argp, argc, argv, &args))
		return EXIT_USAGE;
	/* Its large blocks (the table's and the output's) in huge pages. */
	big_heap_begin();
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	d = unwind_dump__open(&args.opts);
	err = d ? print_output(d, &args) : -errno;
	unwind_dump__close(d);
	/* A write error of stdout is said by main(). */
	return err ? EXIT_FAIL : EXIT_OK;
}

const struct unwprof_cmd cmd_dump_unwind = {
	.name = "dump-unwind",
	.fn = run_dump_unwind,
	.help = "print the unwind table built for an ELF file",
};
