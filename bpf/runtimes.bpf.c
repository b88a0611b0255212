// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtimes' programs (bpf/runtimes.h): each runtime's walk, for the
 * samples' walks and for the off-CPU blocks'. None is loaded with the
 * others: user space loads a runtime's programs once a process of it is
 * found (core/session/), and puts them in the walkers (bpf/maps.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "unwind_go.bpf.h"
#include "unwind_python.bpf.h"
#include "unwind_ruby.bpf.h"
