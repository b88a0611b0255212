/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A mapping as the kernel knows it (bpf_find_vma), and where the table of
 * its file applies there: the walk asks for a pc no mapping user space
 * wrote covers yet, process tracking for the mappings exec and mmap make.
 */
#ifndef UNWPROF_VMA_BPF_H
#define UNWPROF_VMA_BPF_H

#include "maps.bpf.h"
#include <bpf/bpf_core_read.h>

#include "unwind_step.h"

/* What bpf_find_vma tells about the mapping of a pc. */
struct vma_info {
	struct unw_file_key key;
	__u64 start;
	__u64 end;
	__u64 pgoff;
	__u64 flags;
	int found;
};

/*
 * The bias of a mapping of f at start from file offset off (bpf/unwind_step.h),
 * into *bias: 0, or -1 when no segment of f maps it. A global function, so
 * that the segment search is verified once.
 */
__weak __noinline int file_bias(const struct unw_file *f, __u64 start, __u64 off, __u64 *bias)
{
	if (!f || !bias)
		return -1;
	return unw_file__bias(f, start, off, cfg.page_size, bias);
}

static long vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	struct vma_info *vi = ctx;
	struct file *f = BPF_CORE_READ(vma, vm_file);

	if (!f)
		return 0;
	vi->key.ino = BPF_CORE_READ(f, f_inode, i_ino);
	vi->key.dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	vi->start = BPF_CORE_READ(vma, vm_start);
	vi->end = BPF_CORE_READ(vma, vm_end);
	vi->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	vi->flags = BPF_CORE_READ(vma, vm_flags);
	vi->found = 1;
	return 0;
}

#endif
