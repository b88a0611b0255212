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

#include "core/profile/folded_read.h"
#include "core/profile/profile.h"
#include "fuzz_views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int read_folded(const char *buf, size_t len, struct profile *p)
{
	struct folded_read_info info;

	/* report checks folded_read__is_text first; the reader is given any bytes here. */
	folded_read__is_text(buf, len);
	return folded_read__parse(buf, len, "fuzz-input", p, &info);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_profile_input(data, size, read_folded);
	return 0;
}
