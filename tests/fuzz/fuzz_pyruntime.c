// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the reader of CPython's runtime (core/runtimes/python/pyruntime.c):
 * whatever the bytes, reading them as an interpreter's ELF file must
 * neither crash, hang, leak nor read out of bounds; and what it accepts
 * must be a version it knows, an eval loop of some size, and offsets
 * inside their structs; what it refuses as not supported keeps at most
 * its version and eval loop. The input is opened under two names, one that
 * names no version and one that names 3.11, so the check of the file
 * name against the version is reached both ways. Built with -Dfuzz=true
 * under clang; replay.c runs the same function over corpus-pyruntime/
 * in every build.
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/elf/elf_file.h"
#include "core/util/log.h"
#include "core/runtimes/python/pyruntime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* No struct of CPython's is this large (pyruntime.c refuses larger ones). */
#define OFFSET_MAX (1 << 20)
/* The newest minor version whose _Py_DebugOffsets pyruntime.c knows. */
#define PY_MINOR_MAX 15

/* A refused interpreter keeps its version and eval loop, nothing to read with. */
static void check_refused(const struct pyruntime *pr)
{
	if (pr->eval_lo && (pr->eval_lo >= pr->eval_hi || !pr->version_hex))
		__builtin_trap();
	if (pr->runtime || pr->off.tstate_next || pr->from_debug_offsets ||
	    !memchr(pr->why, '\0', sizeof(pr->why)))
		__builtin_trap();
}

static void check(const struct pyruntime *pr)
{
	char ver[32];

	if (pr->major != 3 || pr->minor < 6 || pr->minor > PY_MINOR_MAX || !pr->runtime ||
	    pr->eval_lo >= pr->eval_hi || (pr->cold_lo && pr->cold_lo >= pr->cold_hi))
		__builtin_trap();
	for (size_t i = 0; i < py_offset_names_count; i++) {
		int32_t v = pyruntime__offset(&pr->off, i);

		if (v != PY_OFF_NONE && (v < 0 || v > OFFSET_MAX))
			__builtin_trap();
	}
	if (strlen(pyruntime__version_str(pr, ver, sizeof(ver))) < 5)
		__builtin_trap();
}

static void read_as(const uint8_t *data, size_t size, const char *name)
{
	struct elf_file *ef = elf_file__open_mem(data, size, name);
	struct pyruntime pr;
	int err;

	if (!ef)
		return;
	err = pyruntime__read(ef, &pr);
	if (err == 0)
		check(&pr);
	else if (err == -ENOTSUP)
		check_refused(&pr);
	elf_file__free(ef);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	log_level = -1;
	/* A copy of exactly size bytes: ASan then catches any read past the end. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	read_as(copy, size, "fuzz-input");
	read_as(copy, size, "libpython3.11.so.1.0");
	free(copy);
	return 0;
}
