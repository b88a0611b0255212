/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The unwinders of runtimes' pc ranges (bpf/abi.h, enum unw_unwinder):
 * Go's stack switch, CPython's eval loop, Ruby's VM loop. Each knows which
 * files hold its runtime (what core/model/model.h read of them) and, for a file
 * loaded at a bias, the pc ranges it walks and the value of its BPF map
 * (by pid) that tells it how. core/session/session.c cuts the ranges out of their
 * mappings and writes the values; adding a runtime is adding an entry here,
 * its unwinder in the BPF walk, and its map.
 */
#ifndef UNWPROF_RUNTIMES_H
#define UNWPROF_RUNTIMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/abi.h"

struct model_image;

/* Where a runtime's unwinder applies in one process, and what it reads there. */
struct runtime_place {
	struct {
		uint64_t lo, hi; /* process addresses; the first is needed, hi 0: none */
	} ranges[5];
	union {
		struct unw_go_proc go;
		struct unw_py_proc py;
		struct unw_rb_proc rb;
	} value;
};

struct runtime_unwinder {
	enum unw_unwinder unwinder;
	const char *name; /* "Go's stack switch", "Python", "Ruby" */
	/* false when e holds no such runtime */
	bool (*place)(const struct model_image *e, uint64_t bias, struct runtime_place *rp);
};

extern const struct runtime_unwinder runtime_unwinders[];
extern const size_t nr_runtime_unwinders;

#endif
