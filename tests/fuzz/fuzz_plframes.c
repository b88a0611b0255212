// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the readers of a perl's memory
 * (core/runtimes/perl/plframes.c: a frame's sub, eval or sort BLOCK, its
 * COP's file and line): whatever the interpreter's memory holds, naming a
 * frame must neither crash, hang, leak nor read out of bounds; and what it
 * accepts must be a name and a file of printable characters, each ending
 * in its buffer, and a line below the most it takes. Built with -Dfuzz=true
 * under clang; replay.c runs the same function over corpus-plframes/ in
 * every build.
 *
 * An input: the frame's first word (8 bytes, its kind and address), its
 * COP (8 bytes) and the COP's tag (2), which version's offsets (1 byte:
 * even 5.36, odd 5.42), then the process's memory from MEM_BASE on.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/log.h"
#include "core/runtimes/perl/plframes.h"
#include "core/runtimes/perl/plruntime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEAD 19
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

	if (n == size)
		__builtin_trap();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fake_mem fm;
	struct pl_mem m;
	char name[256], file[256];
	uint64_t what, cop;
	uint16_t tag;
	uint32_t line;
	uint8_t *copy;

	log_level = -1;
	if (size < HEAD)
		return 0;
	memcpy(&what, data, 8);
	memcpy(&cop, data + 8, 8);
	memcpy(&tag, data + 16, 2);
	/* A copy of exactly the memory's bytes: ASan then catches any read past the end. */
	copy = malloc(size - HEAD ? size - HEAD : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + HEAD, size - HEAD);
	fm = (struct fake_mem){ copy, size - HEAD };
	m = (struct pl_mem){ .read = fake_read,
			     .ctx = &fm,
			     .off = plruntime__offsets_of(5, data[18] & 1 ? 42 : 36) };
	if (plframes__what_name(&m, what, name, sizeof(name)) == 0)
		check_string(name, sizeof(name));
	if (plframes__cop(&m, cop, tag, &line, file, sizeof(file)) == 0) {
		check_string(file, sizeof(file));
		if (line >= 1u << 26)
			__builtin_trap();
	}
	free(copy);
	return 0;
}
