// SPDX-License-Identifier: GPL-2.0-only
/*
 * dlmany DIR COUNT [SECONDS]: dlopen()s DIR/libdlm0.so .. DIR/libdlm<COUNT-1>.so
 * (each defines dlm<i>()), calls each once, prints "loaded", then runs
 * main -> dlm_outer -> dlm_inner -> dlm_leaf for SECONDS (default 3).
 * With a few hundred libraries the process has more executable mappings
 * than a profiler may keep per process.
 */
#include <dlfcn.h>

#include "workload.h"

NOINLINE static unsigned long dlm_leaf(unsigned long x)
{
	return mix(x, 20000);
}

NOINLINE static unsigned long dlm_inner(unsigned long x)
{
	unsigned long r = dlm_leaf(mix(x, 16));

	KEEP();
	return r + x;
}

NOINLINE static unsigned long dlm_outer(unsigned long x)
{
	unsigned long r = dlm_inner(mix(x, 16));

	KEEP();
	return r + x;
}

int main(int argc, char **argv)
{
	unsigned long x = 1;
	char path[4096], name[32];
	int count;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DIR COUNT [SECONDS]\n", argv[0]);
		return 64;
	}
	count = atoi(argv[2]);
	for (int i = 0; i < count; i++) {
		unsigned long (*fn)(unsigned long);
		void *h;

		snprintf(path, sizeof(path), "%s/libdlm%d.so", argv[1], i);
		snprintf(name, sizeof(name), "dlm%d", i);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		fn = h ? (unsigned long (*)(unsigned long))dlsym(h, name) : NULL;
		if (!fn) {
			fprintf(stderr, "%s: %s\n", argv[0], dlerror());
			return 1;
		}
		x += fn(x);
	}
	printf("loaded\n");
	fflush(stdout);
	workload_start(argc, argv, 3, 3);
	while (workload_running()) {
		x = dlm_outer(x);
		KEEP();
	}
	workload_sink = x;
	return 0;
}
