// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the readers of a php's memory
 * (core/runtimes/php/phframes.c: a frame's function, its class, its file
 * and lines), and for the reader of a php's version from its strings
 * (core/runtimes/php/phruntime.c): whatever the interpreter's memory
 * holds, naming a frame must neither crash, hang, leak nor read out of
 * bounds; and what it accepts must be a name and a file of printable
 * characters, each ending in its buffer, and lines in order, below the
 * most it takes. Built with -Dfuzz=true under clang; replay.c runs the
 * same function over corpus-phframes/ in every build.
 *
 * An input: the frame's first word (8 bytes, its kind and the function's
 * address), the function's tag (2), which version's offsets (1 byte: even
 * 8.2, odd 8.4), then the process's memory from MEM_BASE on, which is also
 * read as a php's strings.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/log.h"
#include "core/runtimes/php/phframes.h"
#include "core/runtimes/php/phruntime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEAD 11
#define MEM_BASE 0x10000

struct fake_mem {
	const uint8_t *bytes;
	size_t len;
};

/* All or nothing, as /proc/PID/mem reads. */
static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct fake_mem *m = ctx;

	if (addr < MEM_BASE || addr - MEM_BASE > m->len || len > m->len - (addr - MEM_BASE))
		return -EFAULT;
	memcpy(buf, m->bytes + (addr - MEM_BASE), len);
	return 0;
}

/* A string the readers accepted: it ends in its buffer, every character printable. */
static void check_string(const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	if (n == size || n == 0)
		__builtin_trap();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ph_function *f;
	struct phruntime pr;
	struct fake_mem fm;
	struct ph_mem m;
	uint64_t what;
	uint16_t tag;
	uint8_t *copy;

	log_level = -1;
	if (size < HEAD)
		return 0;
	memcpy(&what, data, 8);
	memcpy(&tag, data + 8, 2);
	/* A copy of exactly the memory's bytes: ASan then catches any read past the end. */
	copy = malloc(size - HEAD ? size - HEAD : 1);
	f = malloc(sizeof(*f));
	if (!copy || !f)
		goto out;
	memcpy(copy, data + HEAD, size - HEAD);
	fm = (struct fake_mem){ copy, size - HEAD };
	m = (struct ph_mem){ .read = fake_read,
			     .ctx = &fm,
			     .off = phruntime__offsets_of(8, data[10] & 1 ? 4 : 2) };
	if (phframes__function(&m, what, tag, f) == 0) {
		check_string(f->name, sizeof(f->name));
		check_string(f->file, sizeof(f->file));
		if (f->line_start > f->line_end || f->line_end >= 1u << 24)
			__builtin_trap();
	}
	memset(&pr, 0, sizeof(pr));
	if (phruntime__version(copy, size - HEAD, &pr) == 0 && !pr.api)
		__builtin_trap();
out:
	free(f);
	free(copy);
	return 0;
}
