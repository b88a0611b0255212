/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The jitdump reader: the binary records of perf's jitdump format into the
 * entries of a JIT map (core/symbols/jit_map.h), which reads a jit-PID.dump
 * through it.
 */
#ifndef UNWPROF_JITDUMP_H
#define UNWPROF_JITDUMP_H

#include <stddef.h>

struct jit_map_builder;

/* The size of a jitdump's header: a file shorter is one being written. */
#define JITDUMP_HEADER_SIZE 40

/*
 * The records of a jitdump into b; 0, -ENOMEM, or -EINVAL when it is none:
 * not its header, or one of another process than jit_map__builder_pid(b).
 */
int jitdump__parse(const void *buf, size_t len, struct jit_map_builder *b);

#endif
