// SPDX-License-Identifier: GPL-2.0-only
/*
 * dlswap [SECONDS]: spends the first half of SECONDS (default 4) in
 * libswap256.so (main -> run_until -> run_lib -> swap_entry -> swap_mid_256 ->
 * swap_leaf), then dlclose()s it, dlopen()s libswap2048.so, which must land
 * at the same address (checked: exit 2 if not), and spends the second half
 * there (... swap_mid_2048 ...). The same pcs then belong to other code with
 * other unwind rules: only a profiler that forgets what it knew of the
 * first library walks the second one's frames right.
 */
#include <dlfcn.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

typedef unsigned long (*entry_fn)(unsigned long);

NOINLINE static unsigned long run_lib(entry_fn entry, unsigned long x)
{
	unsigned long r = entry(x);

	KEEP();
	return r + x;
}

/* The library name next to /proc/self/exe, opened, and its entry; exits on failure. */
static void *open_library(const char *argv0, const char *name, entry_fn *entry)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;
	void *lib;

	if (n < 0)
		exit(1);
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) + strlen(name) + 2 > sizeof(path))
		exit(1);
	strcpy(slash + 1, name);
	lib = dlopen(path, RTLD_NOW);
	*entry = lib ? (entry_fn)dlsym(lib, "swap_entry") : NULL;
	if (!*entry) {
		fprintf(stderr, "%s: %s: %s\n", argv0, name, dlerror());
		exit(1);
	}
	return lib;
}

/* Runs entry until the clock reaches until. */
NOINLINE static unsigned long run_until(entry_fn entry, unsigned long x, double until)
{
	while (workload_now() < until) {
		x = run_lib(entry, x);
		KEEP();
	}
	return x;
}

int main(int argc, char **argv)
{
	entry_fn first, second;
	unsigned long x = 1;
	double half;
	void *lib;

	workload_start(argc, argv, 1, 4);
	half = workload_now() + (workload_deadline - workload_now()) / 2;
	lib = open_library(argv[0], "libswap256.so", &first);
	x = run_until(first, x, half);
	dlclose(lib);
	lib = open_library(argv[0], "libswap2048.so", &second);
	if (second != first) {
		fprintf(stderr, "%s: libswap2048.so's entry is at %p, libswap256.so's was at %p\n",
			argv[0], (void *)second, (void *)first);
		return 2;
	}
	x = run_until(second, x, workload_deadline);
	workload_sink = x;
	dlclose(lib);
	return 0;
}
