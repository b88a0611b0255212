// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the pprof reader of `unwprof report`: gzip or raw
 * protocol buffer bytes are decompressed, decoded into the profile model and,
 * when accepted, run through every report view (fuzz_views.c). Whatever the
 * bytes: no crash, hang, leak or out-of-bounds access, and the views keep
 * their invariants. Built with -Dfuzz=true under clang; replay.c runs the
 * same function over corpus-pprof/ in every build.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/pprof.h"
#include "core/profile.h"
#include "fuzz_views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pprof_meta meta;
	struct profile *p = NULL;
	char *raw = NULL;
	size_t raw_len = size;
	uint8_t *copy;

	log_level = -1;
	/* A copy of exactly size bytes: ASan then catches any read past the end. */
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
	if (pprof__decode(raw ? raw : (char *)copy, raw_len, "fuzz-input", p, &meta) == 0)
		fuzz_views(p, data, size);
cleanup:
	profile__free(p);
	free(raw);
	free(copy);
	return 0;
}
