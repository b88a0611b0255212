// SPDX-License-Identifier: GPL-2.0-only
/*
 * What unwprof's symbolizer says of each ELF virtual address of FILE, in
 * the format of `addr2line -a -f -i -C -e FILE`, for lines_oracle.py: the
 * address, then for each frame innermost inlined function first, its name
 * and FILE:LINE ("??" and "??:0" when unknown). The outermost frame is named
 * as the profile names it, from the symbol table when a symbol covers the
 * address. Reads one hex address a line from stdin; looks them up in address
 * order, as the recorder does, and prints them in the order they came.
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
#include "core/util/log.h"
#include "core/util/radix.h"
#include "core/profile/profile.h"
#include "core/symbols/dwarf_lines.h"
#include "core/symbols/symbolizer.h"

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

/* A frame as it is printed; its strings are the symbolizer's, which keeps them. */
struct frame {
	const char *name, *file;
	uint32_t line;
};

static void print_frame(const struct frame *f)
{
	char *readable = f->name ? demangle__name(f->name) : NULL;

	fputs_unlocked(readable ? readable : f->name ? f->name : "??", stdout);
	putchar_unlocked('\n');
	fputs_unlocked(f->file ? f->file : "??", stdout);
	putchar_unlocked(':');
	put_decimal(f->file ? f->line : 0);
	putchar_unlocked('\n');
	free(readable);
}

/* The frames of info, innermost first, added to frames. */
static int add_frames(const struct symbol_info *info, struct frame **frames, size_t *nr,
		      size_t *cap)
{
	size_t n = info->nr_frames ? info->nr_frames : 1;

	for (size_t i = 0; i < n; i++) {
		const struct dwarf_frame *f = info->nr_frames ? &info->frames[i] : NULL;
		bool outer = i == n - 1 && info->name;

		if (grow((void **)frames, cap, *nr, sizeof(**frames)))
			return -ENOMEM;
		(*frames)[(*nr)++] = (struct frame){
			.name = outer ? info->name :
				f     ? f->name :
					NULL,
			.file = f ? f->file : NULL,
			.line = f ? f->line : 0,
		};
	}
	return 0;
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

/* An address's frames. */
struct answer {
	uint64_t vaddr;
	size_t first, nr;
};

/* The addresses, each with where it came in the input. */
static int read_queries(struct radix_item **qs, size_t *nr)
{
	size_t cap = 0;
	char line[128];

	while (fgets(line, sizeof(line), stdin)) {
		char *end;
		uint64_t vaddr = parse_hex(line, &end);

		if (end == line) {
			fprintf(stderr, "src_lookup: not a hex address: %s", line);
			return -EINVAL;
		}
		if (grow((void **)qs, &cap, *nr, sizeof(**qs)))
			return -ENOMEM;
		(*qs)[*nr] = (struct radix_item){ vaddr, *nr };
		(*nr)++;
	}
	return ferror(stdin) ? -EIO : 0;
}

/*
 * Looks the addresses up in address order, as the recorder does
 * (symbolizer__flush()), and prints them in the order they came.
 */
static int lookup_lines(struct symbolizer *sym, const char *path)
{
	struct radix_item *qs = NULL, *tmp = NULL;
	struct answer *answers = NULL;
	struct frame *frames = NULL;
	size_t nr = 0, nr_frames = 0, cap_frames = 0;
	int err = read_queries(&qs, &nr);

	if (!err && nr) {
		tmp = malloc(nr * sizeof(*tmp));
		answers = malloc(nr * sizeof(*answers));
		if (!tmp || !answers)
			err = -ENOMEM;
	}
	if (!err)
		radix_sort_items(qs, tmp, nr);
	for (size_t i = 0; !err && i < nr; i++) {
		struct answer *a = &answers[qs[i].value];
		struct symbol_info info;

		err = symbolizer__lookup_file(sym, path, qs[i].key, &info);
		if (err) {
			fprintf(stderr, "src_lookup: %s: %s\n", path, strerror(-err));
			break;
		}
		a->vaddr = qs[i].key;
		a->first = nr_frames;
		err = add_frames(&info, &frames, &nr_frames, &cap_frames);
		a->nr = nr_frames - a->first;
	}
	for (size_t i = 0; !err && i < nr; i++) {
		fputs_unlocked("0x", stdout);
		put_hex16(answers[i].vaddr);
		putchar_unlocked('\n');
		for (size_t f = 0; f < answers[i].nr; f++)
			print_frame(&frames[answers[i].first + f]);
	}
	free(frames);
	free(answers);
	free(tmp);
	free(qs);
	return err;
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
