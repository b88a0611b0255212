// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loads every set of BPF programs unwprof can run, each under every
 * configuration that the verifier sees as a different program (the
 * read-only config prunes code: frame pointers only, system-wide, kernel
 * stacks, off-CPU), then each runtime's walk (bpf/runtimes.h) into it, and
 * prints how many instructions the verifier processed for each program.
 * Fails when a set or a runtime's walk does not load, when a runtime's
 * program is loaded before a runtime is asked for (a session pays the
 * verifier nothing for the runtimes its targets do not run), or when a
 * program takes more than half of the verifier's limit of 1M
 * instructions: the cost of a walk grows by multiples when a change makes
 * its paths stop pruning, and the limit is near then (the walk took 825k
 * before its steps became global functions; it takes about 140k now).
 *
 * Root and BPF: exits 77 (skipped) without them, unless
 * UNWPROF_REQUIRE_BPF=1.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "core/util/log.h"
#include "core/session/session.h"

#define VERIFIER_LIMIT 1000000
#define BUDGET (VERIFIER_LIMIT / 2)

struct variant {
	const char *walk; /* "bpf_loop" or "tail calls" */
	bool fp_only;
	bool system_wide;
	bool kernel_stacks;
	bool off_cpu;
};

static int skip_or_fail(const char *why)
{
	const char *req = getenv("UNWPROF_REQUIRE_BPF");

	if (req && strcmp(req, "1") == 0) {
		fprintf(stderr, "FAIL: %s (UNWPROF_REQUIRE_BPF=1, so this is not skipped)\n", why);
		return 1;
	}
	fprintf(stderr, "SKIP: %s\n", why);
	return 77;
}

/* Whether file descriptor name (in /proc/self/fd) is a BPF program, not a map or a link. */
static bool is_program(const char *name)
{
	char path[300], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%s", name);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = 0;
	return strcmp(target, "anon_inode:bpf-prog") == 0;
}

/* Whether a program's name is a runtime's walk (bpf/runtimes.h: NAME_walk, NAME_walk_off). */
static bool is_runtime_walk(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && strcmp(name + n - 5, "_walk") == 0) ||
	       (n > 9 && strcmp(name + n - 9, "_walk_off") == 0);
}

/*
 * The BPF programs this process holds open, by their file descriptors:
 * prints each one's name and verified instructions; returns the largest
 * count, or -1 when none was found. *runtimes counts the runtimes' walks.
 */
static long report_programs(const char *label, int *runtimes)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long max = -1;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || !is_program(e->d_name) ||
		    bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		printf("  %-15s %-36s %8u insns verified\n", info.name, label, info.verified_insns);
		*runtimes += is_runtime_walk(info.name);
		if ((long)info.verified_insns > max)
			max = info.verified_insns;
	}
	closedir(d);
	return max;
}

/* Loads each runtime's walk into session s: 0, or -1 when one does not load or none is there. */
static int load_runtimes(struct session *s, const char *label)
{
	char what[96];
	int runtimes = 0;

	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++) {
		int err = session__load_runtime(s, u);

		if (err) {
			fprintf(stderr, "FAIL: %s: the walk of runtime %u does not load: %s\n",
				label, u, strerror(-err));
			return -1;
		}
	}
	snprintf(what, sizeof(what), "%s, runtimes", label);
	report_programs(what, &runtimes);
	if (runtimes < UNW_UW_NR - UNW_UW_RUNTIME) {
		fprintf(stderr, "FAIL: %s: %d walks of runtimes loaded, not %d\n", label, runtimes,
			UNW_UW_NR - UNW_UW_RUNTIME);
		return -1;
	}
	return 0;
}

static int load_variant(const struct variant *v)
{
	struct session_opts opts = {
		.fp_only = v->fp_only,
		.system_wide = v->system_wide,
		.kernel_stacks = v->kernel_stacks,
		.off_cpu = v->off_cpu,
		.off_cpu_min_ns = 100000,
		.off_cpu_walks = 1000,
		.freq = 99,
	};
	int runtimes = 0, err;
	char label[64];
	struct session *s;
	long max;

	setenv("UNWPROF_BPF_TAIL_CALLS", strcmp(v->walk, "tail calls") == 0 ? "1" : "0", 1);
	snprintf(label, sizeof(label), "%s%s%s%s%s", v->walk, v->fp_only ? ", fp-only" : "",
		 v->system_wide ? ", -a" : "", v->kernel_stacks ? ", kernel" : "",
		 v->off_cpu ? ", off-CPU" : "");
	s = session__new(&opts);
	if (!s)
		return -1;
	err = session__load(s);
	if (err) {
		fprintf(stderr, "FAIL: %s: the programs do not load: %s\n", label, strerror(-err));
		session__free(s);
		return -1;
	}
	max = report_programs(label, &runtimes);
	if (runtimes) {
		fprintf(stderr, "FAIL: %s: %d walks of runtimes loaded with no runtime asked for\n",
			label, runtimes);
		max = -1;
	} else if (max >= 0 && load_runtimes(s, label)) {
		max = -1;
	}
	session__free(s);
	if (max < 0) {
		fprintf(stderr, "FAIL: %s: no program found after the load\n", label);
		return -1;
	}
	if (max > BUDGET) {
		fprintf(stderr, "FAIL: %s: %ld instructions verified, over the budget of %d\n",
			label, max, BUDGET);
		return -1;
	}
	return 0;
}

int main(void)
{
	static const char *walks[] = { "bpf_loop", "tail calls" };
	int failed = 0, sets = 0;

	if (geteuid() != 0)
		return skip_or_fail("needs root to load BPF programs");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return skip_or_fail("the kernel has no BTF");
	log_level = 0;
	for (int w = 0; w < 2; w++)
		for (int bits = 0; bits < 16; bits++) {
			struct variant v = {
				.walk = walks[w],
				.fp_only = bits & 1,
				.system_wide = bits & 2,
				.kernel_stacks = bits & 4,
				.off_cpu = bits & 8,
			};

			/* The off-CPU walk needs bpf_loop. */
			if (v.off_cpu && w)
				continue;
			sets++;
			if (load_variant(&v))
				failed++;
		}
	printf("%d of %d program sets failed\n", failed, sets);
	return failed ? 1 : 0;
}
