/* SPDX-License-Identifier: GPL-2.0-only */
/* Small helpers every user-space file may use. */
#ifndef UNWPROF_COMMON_H
#define UNWPROF_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "../bpf/unwprof.h"

#pragma GCC poison u8 u16 u32 u64 s8 s16 s32 s64

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit codes, documented in unwprof(1). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 64,
};

#endif
