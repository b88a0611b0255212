// SPDX-License-Identifier: GPL-2.0-only
/*
 * dlopen [SECONDS]: works in the executable (main -> before_load -> spin)
 * for the first half of SECONDS (default 4), then dlopen()s libdlwork.so from
 * the executable's directory and spends the second half in it
 * (main -> run_lib -> dl_entry -> dl_mid -> dl_leaf).
 *
 * The library is mapped after profiling started: its frames are only complete
 * if the profiler notices the new mapping and loads its unwind table.
 */
#include <dlfcn.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

typedef unsigned long (*entry_fn)(unsigned long);

NOINLINE static unsigned long spin(unsigned long x)
{
	return mix(x, 20000);
}

NOINLINE static unsigned long before_load(unsigned long x)
{
	unsigned long r = spin(x);

	KEEP();
	return r + x;
}

NOINLINE static unsigned long run_lib(entry_fn entry, unsigned long x)
{
	unsigned long r = entry(x);

	KEEP();
	return r + x;
}

/* libdlwork.so next to /proc/self/exe. */
static void *open_library(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;

	if (n < 0)
		return NULL;
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) + sizeof("/libdlwork.so") > sizeof(path))
		return NULL;
	strcpy(slash, "/libdlwork.so");
	return dlopen(path, RTLD_NOW);
}

int main(int argc, char **argv)
{
	unsigned long x = 1;
	double half;
	entry_fn entry;
	void *lib;

	workload_start(argc, argv, 1, 4);
	half = workload_now() + (workload_deadline - workload_now()) / 2;
	while (workload_now() < half) {
		x = before_load(x);
		KEEP();
	}
	lib = open_library();
	if (!lib) {
		fprintf(stderr, "%s: dlopen libdlwork.so: %s\n", argv[0], dlerror());
		return 1;
	}
	entry = (entry_fn)dlsym(lib, "dl_entry");
	if (!entry) {
		fprintf(stderr, "%s: dl_entry not found in libdlwork.so\n", argv[0]);
		return 1;
	}
	while (workload_running()) {
		x = run_lib(entry, x);
		KEEP();
	}
	workload_sink = x;
	dlclose(lib);
	return 0;
}
