// SPDX-License-Identifier: GPL-2.0-only
/*
 * jit [SECONDS [DIR]]: code generated at run time, as a JIT compiler makes
 * it, for SECONDS (default 3): two x86_64 functions copied into anonymous
 * executable memory and named in /tmp/perf-PID.map, as JIT runtimes do for
 * perf; with DIR, in a jitdump, DIR/jit-PID.dump, which the process maps
 * executable so that a profiler finds it (perf's jitdump specification). main -> run_framed -> jit_framed keeps a frame pointer (push rbp;
 * mov rbp, rsp), so a frame-pointer walk gets through it; main -> run_bare
 * -> jit_bare clears rbp and keeps none, so nothing can find its caller.
 * Each spins in a countdown loop. Prints "ready PID" when the code is in place.
 * The map or dump file stays (it names the code after the process is gone);
 * the caller removes it.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

typedef unsigned long (*jit_fn)(unsigned long n);

/* push rbp; mov rbp, rsp; mov rcx, rdi; 1: dec rcx; jnz 1b; pop rbp; mov rax, rdi; ret */
static const uint8_t framed_code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf9, 0x48, 0xff,
				       0xc9, 0x75, 0xfb, 0x5d, 0x48, 0x89, 0xf8, 0xc3 };
/* push rbp; xor ebp, ebp; mov rcx, rdi; 1: dec rcx; jnz 1b; pop rbp; mov rax, rdi; ret */
static const uint8_t bare_code[] = { 0x55, 0x31, 0xed, 0x48, 0x89, 0xf9, 0x48, 0xff,
				     0xc9, 0x75, 0xfb, 0x5d, 0x48, 0x89, 0xf8, 0xc3 };

#define BARE_AT 64 /* offset of jit_bare in the page */

static jit_fn jit_framed, jit_bare;

NOINLINE static unsigned long run_framed(unsigned long n)
{
	unsigned long r = jit_framed(n);

	KEEP();
	return r;
}

NOINLINE static unsigned long run_bare(unsigned long n)
{
	unsigned long r = jit_bare(n);

	KEEP();
	return r;
}

/* perf's jitdump: its header, then a CODE_LOAD record (id 0) per function. */
struct jitdump_header {
	uint32_t magic, version, total_size, elf_mach, pad1, pid;
	uint64_t timestamp, flags;
};

struct jitdump_load {
	uint32_t id, total_size;
	uint64_t timestamp;
	uint32_t pid, tid;
	uint64_t vma, code_addr, code_size, code_index;
};

static void jitdump_load(FILE *f, const void *code, size_t size, const char *name, uint64_t i)
{
	struct jitdump_load r = {
		.total_size = (uint32_t)(sizeof(r) + strlen(name) + 1 + size),
		.pid = (uint32_t)getpid(),
		.tid = (uint32_t)getpid(),
		.vma = (uintptr_t)code,
		.code_addr = (uintptr_t)code,
		.code_size = size,
		.code_index = i,
	};

	fwrite(&r, sizeof(r), 1, f);
	fwrite(name, strlen(name) + 1, 1, f);
	fwrite(code, size, 1, f);
}

/* The names in DIR/jit-PID.dump, mapped (as perf's agents do) to say where it is. */
static int jitdump_write(const char *dir, const uint8_t *mem)
{
	struct jitdump_header h = { .magic = 0x4a695444,
				    .version = 1,
				    .total_size = sizeof(h),
				    .elf_mach = 62 /* EM_X86_64 */,
				    .pid = (uint32_t)getpid() };
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, (int)getpid());
	f = fopen(path, "w+");
	if (!f)
		return -1;
	fwrite(&h, sizeof(h), 1, f);
	jitdump_load(f, mem, sizeof(framed_code), "jit_framed", 1);
	jitdump_load(f, mem + BARE_AT, sizeof(bare_code), "jit_bare", 2);
	fflush(f);
	if (mmap(NULL, sizeof(h), PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(f), 0) == MAP_FAILED)
		return -1;
	return fclose(f);
}

/* The code in an anonymous executable page, named in /tmp/perf-PID.map or a jitdump in dir. */
static int jit_setup(const char *dir)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *mem;
	char path[64];
	FILE *f;

	mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -1;
	memcpy(mem, framed_code, sizeof(framed_code));
	memcpy(mem + BARE_AT, bare_code, sizeof(bare_code));
	if (mprotect(mem, page, PROT_READ | PROT_EXEC))
		return -1;
	jit_framed = (jit_fn)(uintptr_t)mem;
	jit_bare = (jit_fn)(uintptr_t)(mem + BARE_AT);
	if (dir)
		return jitdump_write(dir, mem);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%lx %zx jit_framed\n", (unsigned long)(uintptr_t)mem, sizeof(framed_code));
	fprintf(f, "%lx %zx jit_bare\n", (unsigned long)(uintptr_t)(mem + BARE_AT),
		sizeof(bare_code));
	return fclose(f);
}

int main(int argc, char **argv)
{
	unsigned long x = 0;

	workload_start(argc, argv, 1, 3);
#ifndef __x86_64__
	fprintf(stderr, "jit: the generated code is x86_64\n");
	return 77;
#endif
	if (jit_setup(argc > 2 ? argv[2] : NULL)) {
		perror("jit: cannot set up the generated code");
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (workload_running()) {
		x += run_framed(2000000);
		KEEP();
		x += run_bare(2000000);
		KEEP();
	}
	workload_sink = x;
	return 0;
}
