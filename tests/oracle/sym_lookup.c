// SPDX-License-Identifier: GPL-2.0-only
/*
 * What unwprof's symbolizer names each ELF virtual address of FILE, for the
 * oracle scripts that compare it with another tool (go_symbols.py). Reads
 * one hex address a line from stdin and prints "ADDR NAME OFFSET", or
 * "ADDR ?" when no symbol covers it, both in hex.
 *
 * usage: sym_lookup [-v] FILE < ADDRESSES   (-v: the symbolizer's debug messages)
 * Exit status: 0, 1 when FILE cannot be read or output fails, 64 on usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/common.h"
#include "core/util/log.h"
#include "core/profile/profile.h"
#include "core/symbols/symbolizer.h"

static int lookup_lines(struct symbolizer *sym, const char *path)
{
	char line[128];

	while (fgets(line, sizeof(line), stdin)) {
		struct symbol_info info;
		char *end;
		uint64_t vaddr;
		int err;

		errno = 0;
		vaddr = strtoull(line, &end, 16);
		if (errno || end == line) {
			fprintf(stderr, "sym_lookup: not a hex address: %s", line);
			return -EINVAL;
		}
		err = symbolizer__lookup_file(sym, path, vaddr, &info);
		if (err) {
			fprintf(stderr, "sym_lookup: %s: %s\n", path, strerror(-err));
			return err;
		}
		if (info.name)
			printf("%" PRIx64 " %s %" PRIx64 "\n", vaddr, info.name, info.offset);
		else
			printf("%" PRIx64 " ?\n", vaddr);
	}
	return ferror(stdin) ? -EIO : 0;
}

int main(int argc, char **argv)
{
	struct symbolizer *sym;
	int err;

	if (argc == 3 && !strcmp(argv[1], "-v")) {
		log_level = 2;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: sym_lookup [-v] FILE < ADDRESSES\n");
		return EXIT_USAGE;
	}
	sym = symbolizer__new(NULL);
	if (!sym) {
		perror("sym_lookup");
		return EXIT_FAIL;
	}
	err = lookup_lines(sym, argv[1]);
	symbolizer__free(sym);
	if (fflush(stdout) || ferror(stdout))
		err = -EIO;
	return err ? EXIT_FAIL : EXIT_OK;
}
