// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the readers of a JVM's memory that name its frames
 * (core/runtimes/hotspot/hsframes.c: a method's class, name and file, its
 * line number table, a code blob's name): whatever the memory holds,
 * naming must neither crash, hang, leak nor read out of bounds; what it
 * accepts must be printable, end in its buffer, and a line table's pairs
 * lie in the method's bytecodes. Built with -Dfuzz=true under clang;
 * replay.c runs the same function over corpus-hsframes/ in every build.
 *
 * An input: the Method* (8 bytes), a bcp (8), an nmethod (8), then the
 * process's memory from MEM_BASE on (the seeds: test_hsframes --seeds);
 * JDK 17's layout. An nmethod accepted has its PcDescs sorted and their
 * scopes within its scopes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/log.h"
#include "core/runtimes/hotspot/hsframes.h"
#include "tests/unit/hs_jdk17.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEAD 24
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
	char name[640], file[256];
	struct hs_line *pairs;
	struct fake_mem fm;
	struct hs_mem m;
	uint64_t method, bcp, code, nm;
	struct hs_nmethod x;
	uint32_t code_size, line;
	size_t nr;
	uint8_t *copy;

	log_level = -1;
	if (size < HEAD)
		return 0;
	memcpy(&method, data, 8);
	memcpy(&bcp, data + 8, 8);
	memcpy(&nm, data + 16, 8);
	/* A copy of exactly the memory's bytes: ASan then catches any read past the end. */
	copy = malloc(size - HEAD ? size - HEAD : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + HEAD, size - HEAD);
	fm = (struct fake_mem){ copy, size - HEAD };
	m = (struct hs_mem){ .read = fake_read, .ctx = &fm, .l = &jdk17 };
	if (hsframes__method(&m, method, name, sizeof(name), file, sizeof(file)) == 0) {
		check_string(name, sizeof(name));
		check_string(file, sizeof(file));
	}
	if (hsframes__lines(&m, method, &code, &code_size, &pairs, &nr) == 0) {
		for (size_t i = 0; i < nr; i++)
			if (pairs[i].bci >= code_size || !pairs[i].line)
				__builtin_trap();
		free(pairs);
	}
	if (hsframes__line(&m, method, bcp, &line) == 0 && !line)
		__builtin_trap();
	if (hsframes__blob_name(&m, method, name, sizeof(name)) == 0)
		check_string(name, sizeof(name));
	if (hsframes__nmethod(&m, nm, &x) == 0) {
		for (size_t i = 0; i < x.nr_pcs; i++)
			if ((i && x.pcs[i].pc_offset < x.pcs[i - 1].pc_offset) ||
			    x.pcs[i].first + x.pcs[i].nr > x.nr_scopes)
				__builtin_trap();
		if (x.nr_pcs && hsframes__pc(&x, x.pcs[0].pc_offset) != 0)
			__builtin_trap();
		hsframes__nmethod_free(&x);
	}
	free(copy);
	return 0;
}
