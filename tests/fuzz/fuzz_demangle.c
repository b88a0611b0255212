// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for demangle__name: symbol names come from the ELF files
 * of profiled processes, so any bytes may be a name. The input, cut at its
 * first NUL, is demangled twice. Whatever the bytes: no crash, hang, leak or
 * out-of-bounds access; a result is at most 256 KiB and the same both times;
 * a failure sets errno to EINVAL or ENOMEM. corpus-demangle/ holds the seeds
 * (Rust v0, Rust legacy and C++ names, and malformed ones).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = strndup((const char *)data, size);
	char *first, *again;

	if (!name)
		return 0;
	errno = 0;
	first = demangle__name(name);
	if (!first && errno != EINVAL && errno != ENOMEM)
		abort();
	again = demangle__name(name);
	if ((!first) != (!again) || (first && strcmp(first, again) != 0))
		abort();
	if (first && strlen(first) > 256 * 1024)
		abort();
	free(first);
	free(again);
	free(name);
	return 0;
}
