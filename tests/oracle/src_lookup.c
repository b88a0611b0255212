// SPDX-License-Identifier: GPL-2.0-only
/*
 * What unwprof's symbolizer says of each ELF virtual address of FILE, in
 * the format of `addr2line -a -f -i -C -e FILE`, for lines_oracle.py: the
 * address, then for each frame innermost inlined function first, its name
 * and FILE:LINE ("??" and "??:0" when unknown). The outermost frame is named
 * as the profile names it, from the symbol table when a symbol covers the
 * address. Reads one hex address a line from stdin.
 *
 * usage: src_lookup [-v] FILE < ADDRESSES   (-v: the symbolizer's debug messages)
 * Exit status: 0, 1 when FILE cannot be read or output fails, 64 on usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/common.h"
#include "core/symbols/demangle.h"
#include "core/symbols/dwarf_lines.h"
#include "core/util/log.h"
#include "core/profile/profile.h"
#include "core/symbols/symbolize.h"

/*
 * v in hex, 16 digits, and in decimal: printf's parsing of a format was a
 * tenth of the run, and a division by a base not known when compiled one
 * per digit.
 */
static void put_hex16(uint64_t v)
{
	char buf[16];

	for (int i = 15; i >= 0; i--, v >>= 4)
		buf[i] = "0123456789abcdef"[v & 0xf];
	fwrite_unlocked(buf, 1, sizeof(buf), stdout);
}

static void put_decimal(uint64_t v)
{
	char buf[24];
	int n = sizeof(buf);

	do {
		buf[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(buf + n, 1, sizeof(buf) - (size_t)n, stdout);
}

static void print_frame(const char *name, const char *file, uint32_t line)
{
	char *readable = name ? demangle__name(name) : NULL;

	fputs_unlocked(readable ? readable : name ? name : "??", stdout);
	putchar_unlocked('\n');
	fputs_unlocked(file ? file : "??", stdout);
	putchar_unlocked(':');
	put_decimal(file ? line : 0);
	putchar_unlocked('\n');
	free(readable);
}

static void print_info(const struct symbol_info *info)
{
	if (!info->nr_frames) {
		print_frame(info->name, NULL, 0);
		return;
	}
	for (size_t i = 0; i < info->nr_frames; i++) {
		const struct dwarf_frame *f = &info->frames[i];
		bool outer = i == info->nr_frames - 1 && info->name;

		print_frame(outer ? info->name : f->name, f->file, f->line);
	}
}

/* The hex number at s, "0x" allowed; *end past it, at s when there is none or it overflows. */
static uint64_t parse_hex(char *s, char **end)
{
	char *p = s + (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 2 : 0), *digits = p;
	uint64_t v = 0;

	for (;; p++) {
		unsigned int d = (unsigned char)*p;

		if (d - '0' < 10)
			d -= '0';
		else if ((d | 0x20) - 'a' < 6)
			d = (d | 0x20) - 'a' + 10;
		else
			break;
		if (v >> 60) {
			*end = s;
			return 0;
		}
		v = v << 4 | d;
	}
	*end = p == digits ? s : p;
	return v;
}

static int lookup_lines(struct symbolizer *sym, const char *path)
{
	char line[128];

	while (fgets(line, sizeof(line), stdin)) {
		struct symbol_info info;
		char *end;
		uint64_t vaddr;
		int err;

		vaddr = parse_hex(line, &end);
		if (end == line) {
			fprintf(stderr, "src_lookup: not a hex address: %s", line);
			return -EINVAL;
		}
		err = symbolizer__lookup_file(sym, path, vaddr, &info);
		if (err) {
			fprintf(stderr, "src_lookup: %s: %s\n", path, strerror(-err));
			return err;
		}
		fputs_unlocked("0x", stdout);
		put_hex16(vaddr);
		putchar_unlocked('\n');
		print_info(&info);
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
		fprintf(stderr, "usage: src_lookup [-v] FILE < ADDRESSES\n");
		return EXIT_USAGE;
	}
	sym = symbolizer__new(NULL);
	if (!sym) {
		perror("src_lookup");
		return EXIT_FAIL;
	}
	err = lookup_lines(sym, argv[1]);
	symbolizer__free(sym);
	if (fflush(stdout) || ferror(stdout))
		err = -EIO;
	return err ? EXIT_FAIL : EXIT_OK;
}
