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

#include "core/profile/pprof_reader.h"
#include "core/profile/profile.h"
#include "fuzz_views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int read_pprof(const char *buf, size_t len, struct profile *p)
{
	struct pprof_meta meta;

	return pprof_reader__decode(buf, len, "fuzz-input", p, &meta);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_profile_input(data, size, read_pprof);
	return 0;
}
