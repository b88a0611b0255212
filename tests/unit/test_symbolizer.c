// SPDX-License-Identifier: GPL-2.0-only
/*
 * The symbolizer (core/symbols/symbolizer.c) on this test program and the
 * shared objects it loads (compared with what the dynamic linker says), on a
 * stripped copy with its debug file in a private /usr/lib/debug tree, after a
 * process has exited, and kernel addresses named from a kallsyms file, read
 * at the first lookup or before it (its parsing: test_ksyms.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "bpf/abi.h"
#include "core/elf/elf_file.h"
#include "core/targets/procfs.h"
#include "core/profile/folded.h"
#include "core/targets/procmaps.h"
#include "core/profile/profile.h"
#include "core/model/model.h"
#include "core/symbols/symbolizer.h"
#include "test.h"

/* Functions with known names; static, so only .symtab has them. */
__attribute__((noinline)) static int sym_test_alpha(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline)) static int sym_test_beta(int x)
{
	__asm__ volatile("" ::: "memory");
	return sym_test_alpha(x) + 2;
}

/* Hand-written assembly without .type: an STT_NOTYPE symbol, like ld.so's _start. */
__asm__(".text\n"
	".globl sym_test_label\n"
	"sym_test_label:\n"
	"\tret\n");
void sym_test_label(void);

/*
 * A return address at the start of a function whose previous byte no
 * symbol covers, as a signal handler returns to glibc's __restore_rt.
 */
__asm__(".text\n"
	".p2align 4\n"
	".type sym_test_before_pad,@function\n"
	"sym_test_before_pad:\n"
	"\tret\n"
	".size sym_test_before_pad, 1\n"
	"\tnop\n"
	".type sym_test_after_pad,@function\n"
	"sym_test_after_pad:\n"
	"\tret\n"
	".size sym_test_after_pad, 1\n");
void sym_test_after_pad(void);

#define FN_ADDR(f) ((uint64_t)(uintptr_t)(f))

static struct symbolizer *symbolizer_of(pid_t pid, const char *debug_dir)
{
	struct symbolizer_opts opts = { .debug_dir = debug_dir };
	struct symbolizer *sym = symbolizer__new(&opts);
	struct procmaps *pm = procfs__read_maps(pid);

	CHECK(sym != NULL);
	CHECK(pm != NULL);
	if (sym && pm)
		CHECK(model__add_maps(symbolizer__model(sym), pm) != NULL);
	procmaps__free(pm);
	return sym;
}

static void test_self(void)
{
	struct symbolizer *sym = symbolizer_of(getpid(), NULL);
	struct symbol_info info;

	CHECK_EQ_INT(symbolizer__lookup(sym, getpid(), FN_ADDR(sym_test_alpha), &info), 0);
	CHECK_EQ_STR(info.name, "sym_test_alpha");
	CHECK_EQ_INT(info.offset, 0);
	CHECK(info.file && strstr(info.file, "test_symbolizer"));
	CHECK(info.map_start <= FN_ADDR(sym_test_alpha) && FN_ADDR(sym_test_alpha) < info.map_end);
	CHECK_EQ_INT(symbolizer__lookup(sym, getpid(), FN_ADDR(sym_test_beta) + 3, &info), 0);
	CHECK_EQ_STR(info.name, "sym_test_beta");
	CHECK_EQ_INT(info.offset, 3);
	CHECK_EQ_INT(symbolizer__lookup(sym, getpid(), FN_ADDR(sym_test_label), &info), 0);
	CHECK_EQ_STR(info.name, "sym_test_label");
	/* No mapping at all. */
	CHECK_EQ_INT(symbolizer__lookup(sym, getpid(), 0x10, &info), 0);
	CHECK(info.file == NULL && info.name == NULL);
	/* A pid never added. */
	CHECK_EQ_INT(symbolizer__lookup(sym, 0x7ffffff0, FN_ADDR(sym_test_alpha), &info), -ENOENT);
	CHECK_EQ_INT(sym_test_beta(1), 6);
	symbolizer__free(sym);
}

/* A forked child runs its parent's mappings until it execs: its addresses are named alike. */
static void test_fork(void)
{
	struct symbolizer *sym = symbolizer_of(getpid(), NULL);
	const uint32_t child = 0x7ffffff1;
	struct symbol_info info;

	CHECK_EQ_INT(symbolizer__lookup(sym, child, FN_ADDR(sym_test_alpha), &info), -ENOENT);
	CHECK_EQ_INT(model__fork(symbolizer__model(sym), getpid(), child), 0);
	CHECK_EQ_INT(symbolizer__lookup(sym, child, FN_ADDR(sym_test_alpha), &info), 0);
	CHECK_EQ_STR(info.name, "sym_test_alpha");
	CHECK(info.file && strstr(info.file, "test_symbolizer"));
	/* the parent is untouched; an unknown parent gives nothing */
	CHECK_EQ_INT(symbolizer__lookup(sym, getpid(), FN_ADDR(sym_test_beta), &info), 0);
	CHECK_EQ_STR(info.name, "sym_test_beta");
	CHECK_EQ_INT(model__fork(symbolizer__model(sym), 0x7ffffff2, 0x7ffffff3), 0);
	CHECK_EQ_INT(symbolizer__lookup(sym, 0x7ffffff3, FN_ADDR(sym_test_alpha), &info), -ENOENT);
	symbolizer__free(sym);
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

/*
 * The name found for fn must be one the dynamic linker resolves to fn, in the
 * object dladdr names (a sanitizer may interpose libc functions).
 */
static void check_shared(struct symbolizer *sym, const char *what, void *fn)
{
	struct symbol_info info;
	Dl_info dl = {};
	char *real;

	CHECK_EQ_INT(symbolizer__lookup(sym, getpid(), FN_ADDR(fn), &info), 0);
	CHECK(info.name != NULL);
	if (!info.name) {
		fprintf(stderr, "  no symbol for %s\n", what);
		return;
	}
	CHECK_EQ_INT(info.offset, 0);
	CHECK(dlsym(RTLD_DEFAULT, info.name) == fn);
	CHECK(dladdr(fn, &dl) && dl.dli_saddr == fn);
	/* maps show the file itself, the dynamic linker the name it was loaded by */
	real = dl.dli_fname ? realpath(dl.dli_fname, NULL) : NULL;
	CHECK_EQ_STR(base_name(info.file), base_name(real));
	free(real);
	CHECK(info.build_id && strlen(info.build_id) >= 16);
}

static void test_shared_objects(void)
{
	struct symbolizer *sym = symbolizer_of(getpid(), NULL);

	check_shared(sym, "qsort", (void *)qsort);
	check_shared(sym, "abort", (void *)abort);
	check_shared(sym, "crc32", (void *)crc32);
	check_shared(sym, "elf_version", (void *)elf_version);
	symbolizer__free(sym);
}

/* [vdso] addresses are named from unwprof's own vDSO image. */
static void test_vdso(void)
{
	struct symbolizer *sym = symbolizer_of(getpid(), NULL);
	struct procmaps *pm = procfs__read_maps(getpid());
	const struct procmap *vdso = NULL;
	struct symbol_info info;
	bool found = false;

	for (size_t i = 0; pm && i < pm->nr; i++)
		if (pm->maps[i].path && !strcmp(pm->maps[i].path, "[vdso]"))
			vdso = &pm->maps[i];
	CHECK(vdso != NULL);
	for (uint64_t a = vdso ? vdso->start : 0; vdso && a < vdso->end && !found; a += 4) {
		CHECK_EQ_INT(symbolizer__lookup(sym, getpid(), a, &info), 0);
		found = info.name && strstr(info.name, "clock_gettime");
	}
	CHECK(found);
	CHECK_EQ_STR(info.file, "[vdso]");
	procmaps__free(pm);
	symbolizer__free(sym);
}

/*
 * C++ names come out demangled, with the raw name kept: a frame of
 * libstdc++, which unwprof does not link (it loads it to demangle).
 */
static void test_cxx_profile(void)
{
	void *libstdcxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	struct symbolizer *sym = symbolizer_of(getpid(), NULL);
	void *dtor = libstdcxx ? dlsym(libstdcxx, "_ZNSt9exceptionD2Ev") : NULL;
	struct profile *p = profile__new();
	uint64_t user[2];
	struct profile_stack st = {
		.pid = (uint32_t)getpid(),
		.tid = 1,
		.comm = "t",
		.user_addrs = user,
		.nr_user = 2,
	};
	const struct profile_location *l;

	CHECK(dtor != NULL);
	if (!dtor)
		goto cleanup;
	user[0] = FN_ADDR(dtor) + 1;	      /* leaf */
	user[1] = FN_ADDR(sym_test_beta) + 1; /* a return address just past a 1-byte call */
	CHECK_EQ_INT(profile__add_stack(p, &st, 1), 0);
	CHECK_EQ_INT(symbolizer__symbolize_profile(sym, p), 0);
	l = profile__location(p, 0);
	CHECK_EQ_STR(l->function, "std::exception::~exception()");
	CHECK(l->system_name && strncmp(l->system_name, "_ZNSt9exceptionD", 16) == 0);
	CHECK_EQ_INT(l->func_offset, 1);
	CHECK(l->mapping != PROFILE_NONE);
	CHECK(strstr(profile__mapping(p, l->mapping)->file, "libstdc++"));
	l = profile__location(p, 1);
	CHECK_EQ_STR(l->function, "sym_test_beta");
	CHECK_EQ_INT(l->func_offset, 1);
cleanup:
	profile__free(p);
	symbolizer__free(sym);
	if (libstdcxx)
		dlclose(libstdcxx);
}

/* Frames without symbols keep their mapping; frames of an unknown pid stay unknown. */
static void test_unknown_profile(void)
{
	struct symbolizer *sym = symbolizer_of(getpid(), NULL);
	struct profile *p = profile__new();
	uint64_t user[] = { 0x10, FN_ADDR(sym_test_alpha) + 1 };
	struct profile_stack st = {
		.pid = (uint32_t)getpid(),
		.tid = 1,
		.comm = "t",
		.user_addrs = user,
		.nr_user = 2,
	};
	struct folded_opts opts = {};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CHECK_EQ_INT(profile__add_stack(p, &st, 1), 0);
	st.pid = 0x7ffffff0;
	CHECK_EQ_INT(profile__add_stack(p, &st, 1), 0);
	CHECK_EQ_INT(symbolizer__symbolize_profile(sym, p), 0);
	f = open_memstream(&buf, &len);
	CHECK_EQ_INT(folded__write(f, p, &opts), 0);
	CHECK_EQ_INT(fclose(f), 0);
	CHECK_EQ_STR(buf, "t;[unknown];[unknown] 1\n"
			  "t;sym_test_alpha;[unknown] 1\n");
	free(buf);
	profile__free(p);
	symbolizer__free(sym);
}

/* A process seen while alive is still symbolized after it exits. */
static void test_exited(void)
{
	struct symbolizer *sym = NULL;
	struct symbol_info info;
	int fds[2], status;
	pid_t child;
	char c;

	CHECK_EQ_INT(pipe(fds), 0);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		close(fds[1]);
		_exit(read(fds[0], &c, 1) == 0 ? 0 : 1); /* waits for the parent */
	}
	close(fds[0]);
	sym = symbolizer_of(child, NULL);
	close(fds[1]);
	CHECK_EQ_INT(waitpid(child, &status, 0), child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ_INT(symbolizer__lookup(sym, (uint32_t)child, FN_ADDR(sym_test_alpha), &info), 0);
	CHECK_EQ_STR(info.name, "sym_test_alpha");
	symbolizer__free(sym);
}

/*
 * What record does. A code address in a file gets one location for every
 * process that maps the file (here this process seen again as pid 4242,
 * its mappings elsewhere in memory), named at the flush after it is first
 * seen (the recorder's drain ends with one); an address
 * outside any file gets a location of its process's own, named and retired
 * when that process ends, so that a new process with the same pid gets
 * another.
 */
static void test_shared_locations(void)
{
	const uint64_t shift = 0x100000000000ULL;
	struct symbolizer *sym = symbolizer_of(getpid(), NULL);
	struct procmaps *other = procfs__read_maps(getpid());
	struct profile *p = profile__new();
	uint64_t user[] = { 0x10, FN_ADDR(sym_test_alpha) + 1 };
	struct profile_stack st = {
		.pid = (uint32_t)getpid(),
		.tid = 1,
		.comm = "t",
		.user_addrs = user,
		.nr_user = 2,
	};
	const struct profile_location *l;
	const struct profile_mapping *m;
	struct symbol_info info;

	CHECK(other != NULL);
	if (!other)
		goto cleanup;
	other->pid = 4242;
	for (size_t i = 0; i < other->nr; i++) {
		other->maps[i].start += shift;
		other->maps[i].end += shift;
	}
	CHECK(model__add_maps(symbolizer__model(sym), other) != NULL);
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	l = profile__location(p, 1);
	CHECK(l->function == NULL); /* named at the flush */
	CHECK_EQ_INT(symbolizer__flush(sym), 0);
	CHECK_EQ_STR(l->function, "sym_test_alpha");
	CHECK_EQ_INT(l->pid, 0);
	CHECK(profile__location(p, 0)->function == NULL); /* its own: named at its end */

	st.pid = 4242;
	user[1] += shift;
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	CHECK_EQ_INT(profile__nr_locations(p), 3);
	CHECK_EQ_INT(profile__nr_samples(p), 2);
	CHECK_EQ_INT(profile__sample(p, 1)->user[1], 1);
	CHECK_EQ_INT(profile__sample(p, 1)->user[0], 2);
	l = profile__location(p, 1);
	CHECK_EQ_INT(l->addr, FN_ADDR(sym_test_alpha) + 1); /* the first process's address */
	m = profile__mapping(p, l->mapping);
	CHECK(m && m->start <= l->addr && l->addr < m->limit);

	CHECK_EQ_INT(symbolizer__end_process(sym, p, 4242), 0);
	model__remove_process(symbolizer__model(sym), 4242); /* as the session does then */
	CHECK(profile__location(p, 2)->retired);
	CHECK_EQ_INT(symbolizer__lookup(sym, 4242, user[1], &info), -ENOENT);
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0); /* a new process 4242, not added */
	CHECK_EQ_INT(profile__nr_locations(p), 5);
	CHECK_EQ_INT(symbolizer__end_process(sym, p, 4242), 0);
	CHECK_EQ_INT(symbolizer__end_process(sym, p, 4242), 0); /* twice: nothing to do */
	CHECK_EQ_INT(symbolizer__symbolize_profile(sym, p), 0);
	CHECK_EQ_STR(profile__location(p, 1)->function, "sym_test_alpha");
cleanup:
	procmaps__free(other);
	profile__free(p);
	symbolizer__free(sym);
}

/*
 * Locations waiting for the flush are named from the mappings they were
 * seen in, even once the process's mappings were read again (the paths and
 * files are the model's, which keeps them); ending it flushes first. Named
 * by address, each gets its own function.
 */
static void test_flush_before_mappings_go(void)
{
	struct symbolizer *sym = symbolizer_of(getpid(), NULL);
	struct procmaps *again = procfs__read_maps(getpid());
	struct profile *p = profile__new();
	uint64_t user[] = { FN_ADDR(sym_test_beta) + 1, FN_ADDR(sym_test_alpha) + 1 };
	struct profile_stack st = {
		.pid = (uint32_t)getpid(),
		.tid = 1,
		.comm = "t",
		.user_addrs = user,
		.nr_user = 2,
	};

	CHECK(again != NULL);
	if (!again)
		goto cleanup;
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	CHECK(profile__location(p, 0)->function == NULL);
	for (size_t i = 0; i < again->nr; i++)
		again->maps[i].offset += 0x10000000; /* were they looked up in these: no name */
	CHECK(model__add_maps(symbolizer__model(sym), again) != NULL); /* replaces every mapping */
	CHECK(profile__location(p, 0)->function == NULL);
	CHECK_EQ_INT(symbolizer__flush(sym), 0);
	CHECK_EQ_STR(profile__location(p, 0)->function, "sym_test_beta");
	CHECK_EQ_STR(profile__location(p, 1)->function, "sym_test_alpha");
	CHECK(profile__mapping(p, profile__location(p, 1)->mapping) != NULL);

	CHECK(model__read_process(symbolizer__model(sym), getpid()) != NULL);
	user[0] = FN_ADDR(sym_test_after_pad);
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	CHECK_EQ_INT(profile__nr_locations(p), 3);
	CHECK_EQ_INT(symbolizer__end_process(sym, p, (uint32_t)getpid()), 0);
	CHECK_EQ_STR(profile__location(p, 2)->function, "sym_test_after_pad");
	CHECK_EQ_INT(symbolizer__flush(sym), 0); /* nothing left: nothing to do */
cleanup:
	procmaps__free(again);
	profile__free(p);
	symbolizer__free(sym);
}

/*
 * Processes never added and already gone (pids above pid_max here): their
 * frames cannot be named, and all of them share one unknown frame (and one
 * for callers) instead of a location per process and address.
 */
static void test_gone_processes(void)
{
	struct symbolizer *sym = symbolizer__new(NULL);
	struct profile *p = profile__new();
	uint64_t user[] = { 0x401000, 0x401234, 0x405678 };
	struct profile_stack st = {
		.pid = 0x7ffffff0,
		.tid = 1,
		.comm = "gone",
		.user_addrs = user,
		.nr_user = 3,
	};

	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	st.pid++;
	user[0] += 0x10;
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	CHECK_EQ_INT(profile__nr_locations(p), 2);
	CHECK_EQ_INT(profile__nr_samples(p), 2); /* each process keeps its samples */
	CHECK_EQ_INT(profile__total(p), 2);
	CHECK(profile__location(p, 0)->function == NULL);
	CHECK_EQ_INT(profile__location(p, 1)->addr, 0);
	profile__free(p);
	symbolizer__free(sym);
}

/*
 * Frames that stand for others (bpf/abi.h) are named as any frame: the
 * frames a deep stack left out, by their number, one location per number
 * whatever the process; [exec], one for every program.
 */
static void test_marker_frames(void)
{
	struct symbolizer *sym = symbolizer__new(NULL);
	struct profile *p = profile__new();
	uint64_t deep[] = { 0x401000, UNW_FRAME_WORD(UNW_FRAME_ELIDED, 3412), 0x405678 };
	uint64_t one[] = { 0x401000, UNW_FRAME_WORD(UNW_FRAME_ELIDED, 1), 0x405678 };
	uint64_t exec1[] = { UNW_FRAME_WORD(UNW_FRAME_EXEC, 1234) };
	uint64_t exec2[] = { UNW_FRAME_WORD(UNW_FRAME_EXEC, 5678) };
	struct profile_stack st = { .pid = 0x7ffffff0, .tid = 1, .comm = "deep" };
	const struct profile_sample *s;

	st.user_addrs = deep;
	st.nr_user = 3;
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	st.pid++;
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	st.user_addrs = one;
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	st.user_addrs = exec1;
	st.nr_user = 1;
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	st.pid++;
	st.user_addrs = exec2;
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	CHECK_EQ_INT(profile__nr_samples(p), 5);
	s = profile__sample(p, 0);
	CHECK_EQ_INT(s->nr_user, 3);
	CHECK_EQ_STR(profile__location(p, s->user[1])->function, "[... 3,412 frames ...]");
	CHECK_EQ_INT(profile__sample(p, 1)->user[1], s->user[1]); /* the other process's */
	s = profile__sample(p, 2);
	CHECK_EQ_STR(profile__location(p, s->user[1])->function, "[... 1 frame ...]");
	s = profile__sample(p, 3);
	CHECK_EQ_INT(s->nr_user, 1);
	CHECK_EQ_STR(profile__location(p, s->user[0])->function, "[exec]");
	CHECK_EQ_INT(profile__sample(p, 4)->user[0], s->user[0]); /* another program's exec */
	CHECK_EQ_INT(symbolizer__symbolize_profile(sym, p), 0);
	CHECK_EQ_STR(profile__location(p, s->user[0])->function, "[exec]");
	profile__free(p);
	symbolizer__free(sym);
}

/*
 * A caller's frame is looked up at its return address - 1, inside the
 * call; where no symbol covers that byte, at the return address itself.
 */
static void test_return_to_function_start(void)
{
	struct symbolizer *sym = symbolizer_of(getpid(), NULL);
	struct profile *p = profile__new();
	uint64_t user[] = { FN_ADDR(sym_test_alpha), FN_ADDR(sym_test_after_pad),
			    FN_ADDR(sym_test_beta) + 1 };
	struct profile_stack st = {
		.pid = (uint32_t)getpid(),
		.tid = 1,
		.comm = "t",
		.user_addrs = user,
		.nr_user = 3,
	};
	struct symbol_info info;

	CHECK_EQ_INT(symbolizer__lookup(sym, getpid(), user[1] - 1, &info), 0);
	CHECK(info.name == NULL); /* the padding byte */
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	CHECK_EQ_INT(symbolizer__flush(sym), 0);
	CHECK_EQ_STR(profile__location(p, 1)->function, "sym_test_after_pad");
	CHECK_EQ_INT(profile__location(p, 1)->func_offset, 0);
	CHECK_EQ_STR(profile__location(p, 2)->function, "sym_test_beta");
	CHECK_EQ_INT(profile__location(p, 2)->func_offset, 1);
	profile__free(p);
	symbolizer__free(sym);
}

static int main_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = info->dlpi_addr;
	return 1; /* the first object is the program */
}

/* Runs cmd; one that fails fails the case (objcopy is binutils', which the tests need). */
static int run(const char *cmd)
{
	int status = system(cmd);

	if (status)
		FAIL("'%s' failed with status %d", cmd, status);
	return status;
}

/* A stripped copy of this program, its debug file only under a private debug tree. */
static void test_debug_file(void)
{
	char dir[] = "/tmp/unwprof-test-symbolize.XXXXXX", self[PATH_MAX], cmd[4 * PATH_MAX + 256];
	char stripped[PATH_MAX], debug_dir[PATH_MAX];
	uint8_t id[ELF_BUILD_ID_MAX];
	struct symbolizer_opts opts = {};
	struct symbolizer *sym = NULL;
	struct elf_file *ef = NULL;
	struct symbol_info info;
	uint64_t bias = 0;
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	size_t len;
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		FAIL("cannot read /proc/self/exe: %s", strerror(errno));
		return;
	}
	if (!mkdtemp(dir)) {
		FAIL("cannot make a private debug tree in /tmp: %s", strerror(errno));
		return;
	}
	self[n] = '\0';
	snprintf(stripped, sizeof(stripped), "%s/app", dir);
	snprintf(debug_dir, sizeof(debug_dir), "%s/usr/lib/debug", dir);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-all '%s' '%s'", self, stripped);
	if (run(cmd))
		goto cleanup;
	ef = elf_file__open(stripped);
	CHECK(ef != NULL);
	len = ef ? elf_file__build_id(ef, id) : 0;
	CHECK(len > 2);
	if (len <= 2)
		goto cleanup;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	snprintf(
		cmd, sizeof(cmd),
		"mkdir -p '%s/.build-id/%.2s' && objcopy --only-keep-debug '%s' '%s/.build-id/%.2s/%s.debug'",
		debug_dir, hex, self, debug_dir, hex, hex + 2);
	if (run(cmd))
		goto cleanup;
	dl_iterate_phdr(main_bias, &bias);

	/* Without the debug tree the static function has no symbol in .dynsym. */
	opts.debug_dir = dir;
	sym = symbolizer__new(&opts);
	CHECK_EQ_INT(symbolizer__lookup_file(sym, stripped, FN_ADDR(sym_test_alpha) - bias, &info),
		     0);
	CHECK(info.name == NULL || strcmp(info.name, "sym_test_alpha") != 0);
	symbolizer__free(sym);

	opts.debug_dir = debug_dir;
	sym = symbolizer__new(&opts);
	CHECK_EQ_INT(symbolizer__lookup_file(sym, stripped, FN_ADDR(sym_test_alpha) - bias + 2,
					     &info),
		     0);
	CHECK_EQ_STR(info.name, "sym_test_alpha");
	CHECK_EQ_INT(info.offset, 2);
	CHECK_EQ_STR(info.build_id, hex);
	/* Not an ELF file: an error, not a crash. */
	CHECK(symbolizer__lookup_file(sym, debug_dir, 0x1000, &info) < 0);
cleanup:
	symbolizer__free(sym);
	elf_file__free(ef);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	run(cmd);
}

/* JIT code named from a perf-PID.map, as node --perf-basic-prof writes it. */
static void test_perf_map(void)
{
	char dir[] = "/tmp/unwprof-test-perfmap.XXXXXX", path[PATH_MAX];
	struct procmap maps[] = { { .start = 0x10000, .end = 0x20000, .kind = PROCMAP_ANON } };
	struct procmaps pm = { .pid = 4242, .maps = maps, .nr = 1 };
	struct symbolizer_opts opts = { .perf_map_dir = dir };
	struct symbolizer *sym = NULL;
	struct symbol_info info;
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/perf-4242.map", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		goto cleanup;
	fputs("10100 40 LazyCompile:*fib /app.js:1\n"
	      "not a line\n"
	      "30000 100 Stub:beyond the mappings\n",
	      f);
	fclose(f);
	sym = symbolizer__new(&opts);
	CHECK(model__add_maps(symbolizer__model(sym), &pm) != NULL);
	CHECK_EQ_INT(symbolizer__lookup(sym, 4242, 0x10110, &info), 0);
	CHECK_EQ_STR(info.name, "LazyCompile:*fib /app.js:1");
	CHECK_EQ_INT(info.offset, 0x10);
	CHECK_EQ_STR(info.file, "[anon]");
	CHECK_EQ_INT(symbolizer__lookup(sym, 4242, 0x10150, &info), 0); /* past its size */
	CHECK(info.name == NULL);
	CHECK_EQ_STR(info.file, "[anon]");
	CHECK_EQ_INT(symbolizer__lookup(sym, 4242, 0x30010, &info), 0); /* mapped later */
	CHECK_EQ_STR(info.name, "Stub:beyond the mappings");
	CHECK(info.file == NULL);
cleanup:
	symbolizer__free(sym);
	unlink(path);
	rmdir(dir);
}

static const char kallsyms_text[] = "ffffffff81000000 T _stext\n"
				    "ffffffff81000000 T startup_64\n"
				    "ffffffff81001000 t helper_fn\n"
				    "ffffffff82000000 D some_data\n"
				    "ffffffff81000800 T entry_SYSCALL_64\n"
				    "ffffffff81002000 W weak_fn\n"
				    "0000000000000000 A fixed_percpu_data\n"
				    "garbage line\n"
				    "ffffffffc0001000 t mod_func\t[mymod]\n"
				    "ffffffffc0002000 t last_fn"; /* no newline at the end */

/* Kernel lookups through a kallsyms file given in the options, preloaded or not. */
static void test_kernel_lookup(void)
{
	char path[] = "/tmp/unwprof-test-kallsyms.XXXXXX";
	struct symbolizer_opts opts = { .kallsyms = path };
	struct symbolizer *sym;
	struct symbol_info info;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_EQ_INT(write(fd, kallsyms_text, sizeof(kallsyms_text) - 1),
		     (long long)sizeof(kallsyms_text) - 1);
	close(fd);
	for (int preload = 0; preload < 2; preload++) {
		sym = symbolizer__new(&opts);
		if (preload)
			CHECK_EQ_INT(symbolizer__preload_kernel(sym), 0);
		CHECK_EQ_INT(symbolizer__lookup_kernel(sym, 0xffffffff81001004ULL, &info), 0);
		CHECK_EQ_STR(info.name, "helper_fn");
		CHECK_EQ_INT(info.offset, 4);
		CHECK_EQ_STR(info.file, "[kernel.kallsyms]");
		symbolizer__free(sym);
	}
	/* preloaded and never looked up: the thread is waited for and its symbols freed */
	sym = symbolizer__new(&opts);
	CHECK_EQ_INT(symbolizer__preload_kernel(sym), 0);
	symbolizer__free(sym);
	unlink(path);
}

int main(void)
{
	RUN(test_self);
	RUN(test_fork);
	RUN(test_shared_objects);
	RUN(test_vdso);
	RUN(test_cxx_profile);
	RUN(test_unknown_profile);
	RUN(test_exited);
	RUN(test_shared_locations);
	RUN(test_return_to_function_start);
	RUN(test_flush_before_mappings_go);
	RUN(test_gone_processes);
	RUN(test_debug_file);
	RUN(test_perf_map);
	RUN(test_marker_frames);
	RUN(test_kernel_lookup);
	return test_summary();
}
