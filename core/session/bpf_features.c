// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the kernel lets a session do. See bpf_features.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../util/common.h"
#include "../util/log.h"
#include "bpf_features.h"
#include "session_priv.h"

/* libbpf's own messages only at -vvv. */
__attribute__((format(printf, 2, 0))) static int libbpf_print(enum libbpf_print_level level,
							      const char *fmt, va_list ap)
{
	(void)level;
	if (log_level < 3)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Root, or CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN covers both). */
int bpf_features__check_privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	const int cap_perfmon = 38, cap_bpf = 39, cap_sys_admin = 21;
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	if (eff & (1ULL << cap_sys_admin))
		return 0;
	if ((eff & (1ULL << cap_bpf)) && (eff & (1ULL << cap_perfmon)))
		return 0;
	pr_err("record needs root or CAP_BPF and CAP_PERFMON");
	return -EPERM;
}

int bpf_features__check_kernel(void)
{
	libbpf_set_print(libbpf_print);
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		pr_err("/sys/kernel/btf/vmlinux: the kernel has no BTF (needs CONFIG_DEBUG_INFO_BTF=y)");
		return -ENOTSUP;
	}
	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs, NULL) <= 0) {
		pr_err("the kernel lacks the bpf_task_pt_regs helper (Linux 5.15 or later is needed)");
		return -ENOTSUP;
	}
	return 0;
}

bool bpf_features__have_helper(enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, id, NULL) > 0;
}

/* Loads a program of type that looks key 0 up in map_fd: its fd, or -errno. */
static int load_lookup_prog(enum bpf_prog_type type, int map_fd)
{
	/* r1 = map; *(u32 *)(r10 - 4) = 0; r2 = r10 - 4; call lookup; r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_LD | BPF_DW | BPF_IMM,
		  .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_FD,
		  .imm = map_fd },
		{ 0 },
		{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = BPF_REG_10, .off = -4 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -4 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(type, NULL, "GPL", insns, ARRAY_SIZE(insns), NULL);
}

/*
 * Whether a perf_event program may use hash maps that allocate their
 * elements as they are added (BPF_F_NO_PREALLOC: Linux 6.1 and later; before,
 * only preallocated ones): a map of one such element is created and a
 * program that looks it up loaded. The test hook UNWPROF_BPF_PREALLOC=1
 * answers no, to test the maps of older kernels on a recent one.
 */
bool bpf_features__growing_maps(void)
{
	const char *force = test_hook("UNWPROF_BPF_PREALLOC");
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_NO_PREALLOC);
	int map_fd, prog_fd;

	if (force && *force == '1')
		return false;
	map_fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 4, 8, 1, &mo);
	if (map_fd < 0)
		return false;
	prog_fd = load_lookup_prog(BPF_PROG_TYPE_PERF_EVENT, map_fd);
	close(map_fd);
	if (prog_fd < 0)
		return false;
	close(prog_fd);
	return true;
}
