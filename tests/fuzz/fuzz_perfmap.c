// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the perf map reader (/tmp/perf-PID.map text) of
 * core/symbols/jit_map.h: the checks are fuzz_jit_map.h's. Built with
 * -Dfuzz=true under clang; replay.c runs the same function over
 * corpus-perfmap/ in every build.
 */
#include <stdint.h>

#include "fuzz_jit_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_jit_map(data, size, JIT_MAP_PERF_MAP);
	return 0;
}
