// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the folded-stack reader of `unwprof report`: the
 * bytes (gzip-compressed or not, as report takes them) are read into the
 * profile model and, when accepted, run through every report view
 * (fuzz_views.c). Whatever the bytes: no crash, hang, leak or out-of-bounds
 * access, and the views keep their invariants. Built with -Dfuzz=true under
 * clang; replay.c runs the same function over corpus-folded/ in every build.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/folded_read.h"
#include "core/log.h"
#include "core/pprof.h"
#include "core/profile.h"
#include "fuzz_views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct folded_read_info info;
	struct profile *p = NULL;
	char *raw = NULL;
	size_t raw_len = size;
	char *copy;

	log_level = -1;
	/* A copy of exactly size bytes, not NUL-terminated: the reader must not need one. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (pprof__is_gzip(copy, size) &&
	    pprof__gunzip(copy, size, FUZZ_GUNZIP_MAX, &raw, &raw_len))
		goto cleanup;
	p = profile__new();
	if (!p)
		goto cleanup;
	/* report checks folded__is_text first; the reader is given any bytes here. */
	folded__is_text(raw ? raw : copy, raw_len);
	if (folded__read(raw ? raw : copy, raw_len, "fuzz-input", p, &info) == 0)
		fuzz_views(p, data, size);
cleanup:
	profile__free(p);
	free(raw);
	free(copy);
	return 0;
}
