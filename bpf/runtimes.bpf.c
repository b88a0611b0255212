// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtimes' programs: each runtime's walk (bpf/runtimes.h includes
 * them), one for the samples' walks and one for the off-CPU blocks'. None
 * is loaded with the others: user space loads a runtime's programs once a
 * process of it is found (core/session/runtime_walks.h), and puts them in
 * the walkers (bpf/maps.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "walk.bpf.h"

#define UNW_RUNTIMES_WALKS
#include "runtimes.h"
