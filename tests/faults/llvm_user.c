// SPDX-License-Identifier: GPL-2.0-only
/*
 * llvm_user [SECONDS]: dlopen()s libLLVM-14.so.1 (tens of MiB of code, more
 * unwind rows than one table shard holds), prints "loaded", then runs
 * main -> big_outer -> big_inner -> big_leaf for SECONDS (default 3).
 */
#include <dlfcn.h>

#include "workload.h"

NOINLINE static unsigned long big_leaf(unsigned long x)
{
	return mix(x, 20000);
}

NOINLINE static unsigned long big_inner(unsigned long x)
{
	unsigned long r = big_leaf(mix(x, 16));

	KEEP();
	return r + x;
}

NOINLINE static unsigned long big_outer(unsigned long x)
{
	unsigned long r = big_inner(mix(x, 16));

	KEEP();
	return r + x;
}

int main(int argc, char **argv)
{
	unsigned long x = 1;

	if (!dlopen("libLLVM-14.so.1", RTLD_NOW | RTLD_LOCAL)) {
		fprintf(stderr, "%s: %s\n", argv[0], dlerror());
		return 1;
	}
	printf("loaded\n");
	fflush(stdout);
	workload_start(argc, argv, 1, 3);
	while (workload_running()) {
		x = big_outer(x);
		KEEP();
	}
	workload_sink = x;
	return 0;
}
