/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What HotSpot reads of a process that runs a JVM (hotspot.c): its tables
 * and its code cache, from its memory (/proc/PID/mem).
 */
#ifndef UNWPROF_HOTSPOT_H
#define UNWPROF_HOTSPOT_H

#include <stdint.h>

#include "hsruntime.h"

struct hotspot_process {
	struct hs_layout layout;
	struct hs_code_cache cache;
};

/*
 * The tables and code cache of the JVM of hr in process pid, which maps
 * it at bias, into *hp. 0, or as hsruntime__read_layout() and
 * hsruntime__read_heaps() say (the entry at fault in *missing), or -errno
 * of opening the process's memory.
 */
int hotspot__read_process(const struct hsruntime *hr, uint32_t pid, uint64_t bias,
			  struct hotspot_process *hp, const char **missing);

#endif
