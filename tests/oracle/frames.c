// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions of the frame shapes compilers emit, built with
 * -fno-asynchronous-unwind-tables -g so their CFI lands in .debug_frame (the
 * startup files keep theirs in .eh_frame). The oracles compare unwprof's table
 * of this binary with readelf and libdwarf; it is never run by the tests.
 */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

/* A leaf without a frame. */
static NOINLINE int leaf(int x)
{
	return x * 3 + sink;
}

/* Callee-saved registers pushed one by one. */
static NOINLINE int many_saved(int a, int b, int c, int d)
{
	int r = 0;

	for (int i = 0; i < a; i++)
		r += leaf(i + b) * leaf(c - i) + leaf(d ^ i);
	return r;
}

/* A frame too large for a 16-bit offset. */
static NOINLINE int big_frame(int n)
{
	volatile char buf[70000];

	memset((char *)buf, n, sizeof(buf));
	return buf[n % sizeof(buf)] + leaf(n);
}

#ifdef __clang__
#define KEEP_FP /* the alloca alone makes clang keep rbp */
#else
#define KEEP_FP __attribute__((optimize("no-omit-frame-pointer")))
#endif

/* Frame pointer kept on purpose: CFA on rbp. */
static KEEP_FP NOINLINE int with_fp(int n)
{
	char *p = alloca((size_t)n + 16);

	memset(p, 1, (size_t)n + 16);
	return p[n] + leaf(n);
}

/* Over-aligned locals and a VLA: gcc realigns the stack through a DRAP register. */
static NOINLINE int realigned(int n)
{
	char vla[n + 1];
	char aligned[64] __attribute__((aligned(64)));

	memset(vla, 2, (size_t)n + 1);
	memset(aligned, 3, sizeof(aligned));
	return vla[n] + aligned[n & 63] + leaf(n);
}

/* Never returns: the caller's frame after the call is unreachable. */
static NOINLINE __attribute__((noreturn)) void give_up(const char *why)
{
	fprintf(stderr, "%s\n", why);
	exit(2);
}

/* Recursion with an early exit and a tail call. */
static NOINLINE int recurse(int n)
{
	if (n <= 0)
		return leaf(n);
	if (n == 1000)
		give_up("too deep");
	return recurse(n - 1) + n;
}

int main(int argc, char **argv)
{
	int r = many_saved(argc, 1, 2, 3) + big_frame(argc) + with_fp(argc) + realigned(argc);

	(void)argv;
	return r + recurse(argc) ? 0 : 1;
}
