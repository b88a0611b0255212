/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the kernel and the process's privileges let a session do, probed
 * once: root or the capabilities, BTF, the helpers of the walk, hash maps
 * that grow as they fill.
 */
#ifndef UNWPROF_BPF_FEATURES_H
#define UNWPROF_BPF_FEATURES_H

#include <stdbool.h>

#include <linux/bpf.h>

/* Root, or CAP_BPF and CAP_PERFMON: 0, or -EPERM (said). */
int bpf_features__check_privileges(void);
/* BTF and the helpers the walk needs (libbpf's messages at -vvv from then on): 0, or -ENOTSUP (said). */
int bpf_features__check_kernel(void);
/* Whether a perf_event program may call helper id. */
bool bpf_features__have_helper(enum bpf_func_id id);
/* Whether perf_event programs may use hash maps that grow as they fill (BPF_F_NO_PREALLOC). */
bool bpf_features__growing_maps(void);

#endif
