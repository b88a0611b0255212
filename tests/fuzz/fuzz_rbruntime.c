// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the reader of Ruby's runtime (core/runtimes/ruby/rbruntime.c):
 * whatever the bytes, reading them as a libruby must neither crash, hang,
 * leak nor read out of bounds; and what it accepts must be a version of the
 * table, a VM loop of some size and a variable inside a TLS block. Built
 * with -Dfuzz=true under clang; replay.c runs the same function over
 * corpus-rbruntime/ in every build.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/elf/elf_file.h"
#include "core/util/log.h"
#include "core/runtimes/ruby/rbruntime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct rbruntime *rr)
{
	if (!rbruntime__offsets_of(rr->major, rr->minor) || rr->vm_exec_lo >= rr->vm_exec_hi ||
	    !rr->ec_module_got || rr->ec_offset % 8 || rr->ec_offset >= 65536 ||
	    (rr->symbols_ids && rr->symbols_ids != rr->symbols_last_id + 16))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_file *ef;
	struct rbruntime rr;
	uint8_t *copy;

	log_level = -1;
	/* A copy of exactly size bytes: ASan then catches any read past the end. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	ef = elf_file__open_mem(copy, size, "fuzz-input");
	if (ef && rbruntime__read(ef, &rr) == 0)
		check(&rr);
	elf_file__free(ef);
	free(copy);
	return 0;
}
