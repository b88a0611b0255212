// SPDX-License-Identifier: GPL-2.0-only
/*
 * JIT maps (core/symbols/jit_map.c, and jitdump.c): the perf map text of node
 * and of the JVM, a jitdump's records, bad entries refused one by one with
 * their reason, and the file read again when it changed and an address is not
 * named, as a runtime that writes its map late or adds to it needs; files a
 * runtime would not write refused whole (a FIFO, a link, another user's, a
 * huge one, a jitdump of another process or not the one mapped), counted
 * once each, their names never used.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/profile/profile.h"
#include "core/symbols/jit_map.h"
#include "core/model/model.h"
#include "core/symbols/symbolizer.h"
#include "core/targets/procmaps.h"
#include "core/targets/proc_view.h"
#include "core/util/common.h"
#include "test.h"

/* The name at addr, NULL when none. */
static const char *name_at(struct jit_map *m, uint64_t addr, uint64_t *offset)
{
	const char *name = NULL;
	uint64_t off = 0;

	if (jit_map__lookup(m, addr, &name, &off))
		return NULL;
	if (offset)
		*offset = off;
	return name;
}

static struct jit_map *parsed(enum jit_map_format format, const void *buf, size_t len, int *err)
{
	struct jit_map *m = jit_map__new("test.map", format, NULL);

	CHECK(m != NULL);
	*err = m ? jit_map__parse(m, buf, len) : -ENOMEM;
	return m;
}

static void test_node_and_jvm_lines(void)
{
	static const char text[] =
		"3ef414a0c0 5c LazyCompile:~main /app/a.js:1\n"
		"0x00007f3c2d0e5a20 0x0000000000000128 long Spin.work(int)\n"
		"0x00007f3c2d0e5b80 0x20 java.lang.Object java.util.HashMap.get(java.lang.Object)\r\n"
		"\n"
		"7f3c2d0f0000\t10\tStub:tabs   \n";
	int err;
	struct jit_map *m = parsed(JIT_MAP_PERF_MAP, text, sizeof(text) - 1, &err);
	uint64_t off = 0;

	CHECK_EQ_INT(err, 0);
	CHECK_EQ_STR(name_at(m, 0x3ef414a0c0 + 0x5b, &off), "LazyCompile:~main /app/a.js:1");
	CHECK_EQ_INT(off, 0x5b);
	CHECK(name_at(m, 0x3ef414a0c0 + 0x5c, NULL) == NULL); /* one past its end */
	/* names whole: return type, class, method and arguments */
	CHECK_EQ_STR(name_at(m, 0x7f3c2d0e5a20, NULL), "long Spin.work(int)");
	CHECK_EQ_STR(name_at(m, 0x7f3c2d0e5b9f, NULL),
		     "java.lang.Object java.util.HashMap.get(java.lang.Object)");
	CHECK_EQ_STR(name_at(m, 0x7f3c2d0f0001, NULL), "Stub:tabs");
	CHECK_EQ_INT(jit_map__stats(m)->entries, 4);
	for (int r = 0; r < JIT_MAP_NR_REASONS; r++)
		CHECK_EQ_INT(jit_map__stats(m)->refused[r], 0);
	jit_map__free(m);
}

/* Each bad line is refused with its reason; the good ones around it stay. */
static void test_bad_lines(void)
{
	static const char text[] = "1000 10 good one\n"
				   "not a line at all\n"
				   "2000 10\n"				 /* no name */
				   "2000\n"				 /* no size */
				   "0x 10 empty number\n"		 /* "0x" alone */
				   "0 10 at zero\n"			 /* address 0 */
				   "10000000000000000 10 past 64 bits\n" /* 17 digits */
				   "3000 0 empty\n"
				   "4000 4000001 larger than 64 MiB\n"
				   "fffffffffffffff0 20 wraps around\n"
				   "5000 10 with\0a NUL\n"
				   "6000 10 good two\n"
				   "7000 10 cut sh";
	int err;
	struct jit_map *m = parsed(JIT_MAP_PERF_MAP, text, sizeof(text) - 1, &err);
	const struct jit_map_stats *s = jit_map__stats(m);

	CHECK_EQ_INT(err, 0);
	CHECK_EQ_STR(name_at(m, 0x1008, NULL), "good one");
	CHECK_EQ_STR(name_at(m, 0x6008, NULL), "good two");
	CHECK(name_at(m, 0x3000, NULL) == NULL);
	CHECK(name_at(m, 0x5004, NULL) == NULL);
	CHECK(name_at(m, 0x7004, NULL) == NULL);
	CHECK_EQ_INT(s->entries, 2);
	CHECK_EQ_INT(s->refused[JIT_MAP_GARBAGE], 7);
	CHECK_EQ_INT(s->refused[JIT_MAP_EMPTY], 1);
	CHECK_EQ_INT(s->refused[JIT_MAP_HUGE], 2);
	CHECK_EQ_INT(s->refused[JIT_MAP_TRUNCATED], 1);
	CHECK_EQ_INT(s->refused[JIT_MAP_OVERLAP], 0);
	CHECK_EQ_STR(jit_map__reason_name(JIT_MAP_HUGE), "huge");
	jit_map__free(m);
}

/* Code replaced at an address: the entry written later names it. */
static void test_overlaps(void)
{
	static const char text[] = "1000 100 old big\n"
				   "1080 10 new inside\n"
				   "2000 10 first\n"
				   "2000 10 second at the same place\n"
				   "3008 10 written before the next\n"
				   "3000 10 written after, starts before\n";
	int err;
	struct jit_map *m = parsed(JIT_MAP_PERF_MAP, text, sizeof(text) - 1, &err);

	CHECK_EQ_INT(err, 0);
	CHECK(name_at(m, 0x1000, NULL) == NULL); /* the old one is gone whole */
	CHECK_EQ_STR(name_at(m, 0x1084, NULL), "new inside");
	CHECK_EQ_STR(name_at(m, 0x2004, NULL), "second at the same place");
	CHECK_EQ_STR(name_at(m, 0x300c, NULL), "written after, starts before");
	CHECK(name_at(m, 0x3014, NULL) == NULL);
	CHECK_EQ_INT(jit_map__stats(m)->entries, 3);
	CHECK_EQ_INT(jit_map__stats(m)->refused[JIT_MAP_OVERLAP], 3);
	jit_map__free(m);
}

static void write_text(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * The file is read when a lookup misses and it changed: not there yet,
 * written late (-XX:+DumpPerfMapAtExit), added to (node), rewritten
 * whole (jcmd Compiler.perfmap). A name given before stays valid.
 */
static void test_read_again(void)
{
	char dir[] = "/tmp/unwprof-test-perfmap.XXXXXX", path[PATH_MAX];
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct proc_view view;
	struct jit_map *m;
	const char *kept;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	proc_view__default(&view, root, getpid());
	snprintf(path, sizeof(path), "%s/perf-77.map", dir);
	m = jit_map__new(path, JIT_MAP_PERF_MAP, &(struct jit_map_opts){ .view = &view });
	CHECK(name_at(m, 0x1000, NULL) == NULL);
	CHECK_EQ_INT(jit_map__stats(m)->reads, 0); /* nothing to read */
	write_text(path, "1000 10 written late\n", "w");
	kept = name_at(m, 0x1000, NULL);
	CHECK_EQ_STR(kept, "written late");
	CHECK_EQ_INT(jit_map__stats(m)->reads, 1);
	/* a miss on an unchanged file does not read it again */
	CHECK(name_at(m, 0x2000, NULL) == NULL);
	CHECK_EQ_INT(jit_map__stats(m)->reads, 1);
	write_text(path, "2000 10 appended\n", "a");
	CHECK_EQ_STR(name_at(m, 0x2000, NULL), "appended");
	CHECK_EQ_INT(jit_map__stats(m)->reads, 2);
	/* a hit does not look at the file */
	write_text(path, "0x3000 0x10 rewritten whole\n", "w");
	CHECK_EQ_STR(name_at(m, 0x1004, NULL), "written late");
	CHECK_EQ_INT(jit_map__stats(m)->reads, 2);
	CHECK_EQ_STR(name_at(m, 0x3004, NULL), "rewritten whole");
	CHECK_EQ_INT(jit_map__stats(m)->reads, 3);
	CHECK(name_at(m, 0x1004, NULL) == NULL);
	CHECK_EQ_STR(kept, "written late"); /* the pool keeps what it gave */
	jit_map__free(m);
	unlink(path);
	rmdir(dir);
	close(root);
}

/* A jitdump made here, record by record. */
struct dump {
	uint8_t buf[4096];
	size_t len;
};

static void put(struct dump *d, const void *p, size_t n)
{
	if (d->len + n <= sizeof(d->buf)) {
		memcpy(d->buf + d->len, p, n);
		d->len += n;
	}
}

static void put32(struct dump *d, uint32_t v)
{
	put(d, &v, 4);
}

static void put64(struct dump *d, uint64_t v)
{
	put(d, &v, 8);
}

static void dump_header(struct dump *d, uint32_t magic, uint32_t version, uint32_t size)
{
	put32(d, magic);
	put32(d, version);
	put32(d, size);
	put32(d, 62); /* EM_X86_64 */
	put32(d, 0);
	put32(d, 4242);
	put64(d, 1);
	put64(d, 0);
	for (uint32_t i = 40; i < size; i++)
		put(d, "", 1);
}

/* The pid the header names (4242 as written): a jitdump's must be its file name's. */
static void dump_set_pid(struct dump *d, uint32_t pid)
{
	memcpy(d->buf + 20, &pid, sizeof(pid));
}

static void dump_record(struct dump *d, uint32_t id, uint32_t size)
{
	put32(d, id);
	put32(d, size);
	put64(d, 2); /* timestamp */
}

/* CODE_LOAD of name at addr, with code_size bytes of code (as many as declared when fill). */
static void dump_load(struct dump *d, uint64_t addr, uint64_t size, const char *name, bool fill)
{
	size_t n = strlen(name) + 1, code = fill ? size : 0;

	dump_record(d, 0, (uint32_t)(16 + 40 + n + code));
	put32(d, 4242);
	put32(d, 4243);
	put64(d, addr);
	put64(d, addr);
	put64(d, size);
	put64(d, 7);
	put(d, name, n);
	for (size_t i = 0; i < code; i++)
		put(d, "\xc3", 1);
}

static void dump_move(struct dump *d, uint64_t from, uint64_t to, uint64_t size)
{
	dump_record(d, 1, 16 + 48);
	put32(d, 4242);
	put32(d, 4243);
	put64(d, to);
	put64(d, from);
	put64(d, to);
	put64(d, size);
	put64(d, 7);
}

static void test_jitdump(void)
{
	struct dump d = {};
	int err;
	struct jit_map *m;
	const struct jit_map_stats *s;

	dump_header(&d, 0x4a695444, 1, 48); /* a longer header is skipped */
	dump_load(&d, 0x1000, 0x20, "py::fib:/app/fib.py", true);
	dump_record(&d, 2, 16 + 8); /* DEBUG_INFO: skipped */
	put64(&d, 0);
	dump_record(&d, 4, 16 + 24); /* UNWINDING_INFO: counted */
	put64(&d, 0);
	put64(&d, 0);
	put64(&d, 0);
	dump_record(&d, 99, 16 + 4); /* an id of a later version: skipped by its size */
	put32(&d, 0);
	dump_load(&d, 0x2000, 0x10, "wasm[0]::function[3]", true);
	dump_move(&d, 0x2000, 0x5000, 0x10);
	dump_move(&d, 0x9000, 0x6000, 0x10);			     /* of code never loaded */
	dump_load(&d, 0x3000, 0x1000, "lies about its size", false); /* its code is not there */
	dump_record(&d, 3, 16);					     /* CLOSE */
	dump_load(&d, 0x4000, 0x10, "after the close", true);
	m = parsed(JIT_MAP_JITDUMP, d.buf, d.len, &err);
	s = jit_map__stats(m);
	CHECK_EQ_INT(err, 0);
	CHECK_EQ_STR(name_at(m, 0x101f, NULL), "py::fib:/app/fib.py");
	CHECK_EQ_STR(name_at(m, 0x2004, NULL), "wasm[0]::function[3]");
	CHECK_EQ_STR(name_at(m, 0x5004, NULL), "wasm[0]::function[3]");
	CHECK(name_at(m, 0x6004, NULL) == NULL);
	CHECK(name_at(m, 0x3004, NULL) == NULL);
	CHECK(name_at(m, 0x4004, NULL) == NULL);
	CHECK_EQ_INT(s->entries, 3);
	CHECK_EQ_INT(s->refused[JIT_MAP_GARBAGE], 2);
	CHECK_EQ_INT(s->unwind_records, 1);
	jit_map__free(m);
}

/* Headers that are not a jitdump of this machine, and records cut or lying. */
static void test_jitdump_bad(void)
{
	struct {
		uint32_t magic, version, size;
	} headers[] = {
		{ 0x4454694a, 1, 40 }, /* the other byte order */
		{ 0x4a695444, 2, 40 }, /* a version not known */
		{ 0x4a695444, 1, 16 }, /* a header shorter than its fields */
	};
	struct dump d = {};
	struct jit_map *m;
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(headers); i++) {
		d.len = 0;
		dump_header(&d, headers[i].magic, headers[i].version, headers[i].size);
		dump_load(&d, 0x1000, 0x10, "never read", true);
		m = parsed(JIT_MAP_JITDUMP, d.buf, d.len, &err);
		CHECK_EQ_INT(err, -EINVAL);
		CHECK(name_at(m, 0x1004, NULL) == NULL);
		CHECK_EQ_INT(jit_map__stats(m)->refused[JIT_MAP_GARBAGE], 1);
		jit_map__free(m);
	}
	m = parsed(JIT_MAP_JITDUMP, "JiT", 3, &err); /* shorter than a header */
	CHECK_EQ_INT(err, -EINVAL);
	jit_map__free(m);

	/* a record cut short: the ones before stay, it is read again later */
	d.len = 0;
	dump_header(&d, 0x4a695444, 1, 40);
	dump_load(&d, 0x1000, 0x10, "whole", true);
	dump_load(&d, 0x2000, 0x10, "cut", true);
	m = parsed(JIT_MAP_JITDUMP, d.buf, d.len - 5, &err);
	CHECK_EQ_INT(err, 0);
	CHECK_EQ_STR(name_at(m, 0x1004, NULL), "whole");
	CHECK(name_at(m, 0x2004, NULL) == NULL);
	CHECK_EQ_INT(jit_map__stats(m)->refused[JIT_MAP_TRUNCATED], 1);
	jit_map__free(m);

	/* a record smaller than its own header: nothing says where the next one is */
	d.len = 0;
	dump_header(&d, 0x4a695444, 1, 40);
	dump_record(&d, 0, 8);
	dump_load(&d, 0x1000, 0x10, "unreachable", true);
	m = parsed(JIT_MAP_JITDUMP, d.buf, d.len, &err);
	CHECK(name_at(m, 0x1004, NULL) == NULL);
	CHECK_EQ_INT(jit_map__stats(m)->refused[JIT_MAP_GARBAGE], 1);
	jit_map__free(m);

	/* a name without its NUL, inside a record that ends there */
	d.len = 0;
	dump_header(&d, 0x4a695444, 1, 40);
	dump_record(&d, 0, 16 + 40 + 3);
	put32(&d, 1);
	put32(&d, 1);
	put64(&d, 0x1000);
	put64(&d, 0x1000);
	put64(&d, 0);
	put64(&d, 0);
	put(&d, "abc", 3);
	dump_load(&d, 0x2000, 0x10, "next", true);
	m = parsed(JIT_MAP_JITDUMP, d.buf, d.len, &err);
	CHECK_EQ_STR(name_at(m, 0x2004, NULL), "next");
	CHECK_EQ_INT(jit_map__stats(m)->refused[JIT_MAP_GARBAGE], 1);
	jit_map__free(m);
}

/*
 * Through the symbolizer: a jitdump found by the mapping of its file (as
 * perf finds it), a perf map written after the first lookup missed.
 */
static void test_symbolizer(void)
{
	char dir[] = "/tmp/unwprof-test-jitdump.XXXXXX", dump_path[PATH_MAX], map_path[PATH_MAX];
	struct procmap maps[] = {
		{ .start = 0x10000, .end = 0x20000, .kind = PROCMAP_ANON },
		{ .start = 0x40000, .end = 0x41000, .kind = PROCMAP_FILE, .path = dump_path },
	};
	struct procmaps pm = { .pid = 4242, .maps = maps, .nr = 2 };
	struct symbolizer_opts opts = { .perf_map_dir = dir };
	struct symbolizer *sym;
	struct symbol_info info;
	struct dump d = {};

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(dump_path, sizeof(dump_path), "%s/jit-4242.dump", dir);
	snprintf(map_path, sizeof(map_path), "%s/perf-4242.map", dir);
	dump_header(&d, 0x4a695444, 1, 40);
	dump_load(&d, 0x10100, 0x40, "py::work:/app/w.py", true);
	test_write_file(dir, "jit-4242.dump", d.buf, d.len);
	sym = symbolizer__new(&opts);
	CHECK(model__add_maps(symbolizer__model(sym), &pm) != NULL);
	CHECK_EQ_INT(symbolizer__lookup(sym, 4242, 0x10110, &info), 0);
	CHECK_EQ_STR(info.name, "py::work:/app/w.py");
	CHECK_EQ_INT(info.offset, 0x10);
	CHECK_EQ_INT(symbolizer__lookup(sym, 4242, 0x18000, &info), 0);
	CHECK(info.name == NULL);
	write_text(map_path, "18000 100 long Late.written(int)\n", "w");
	CHECK_EQ_INT(symbolizer__lookup(sym, 4242, 0x18008, &info), 0);
	CHECK_EQ_STR(info.name, "long Late.written(int)");
	symbolizer__free(sym);
	unlink(dump_path);
	unlink(map_path);
	rmdir(dir);
}

/*
 * A lookup before the process's mappings were read looks for the jitdump
 * next to the perf map; the one the process maps, seen later, replaces it.
 */
static void test_jitdump_seen_late(void)
{
	char dir[] = "/tmp/unwprof-test-jitdump.XXXXXX", sub[256], dump_path[PATH_MAX];
	uint32_t pid = (uint32_t)getpid(); /* alive: its frames wait for its mappings */
	struct procmap maps[] = {
		{ .start = 0x10000, .end = 0x20000, .kind = PROCMAP_ANON },
		{ .start = 0x40000, .end = 0x41000, .kind = PROCMAP_FILE, .path = dump_path },
	};
	struct procmaps pm = { .pid = (pid_t)pid, .maps = maps, .nr = 2 };
	struct symbolizer_opts opts = { .perf_map_dir = dir };
	uint64_t addrs[] = { 0x10110 };
	struct profile_stack st = {
		.pid = pid, .tid = pid, .comm = "late", .user_addrs = addrs, .nr_user = 1
	};
	struct profile *p = profile__new();
	struct symbolizer *sym;
	struct symbol_info info;
	struct dump d = {};
	char name[64];

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(sub, sizeof(sub), "%s/agent", dir);
	mkdir(sub, 0755);
	snprintf(name, sizeof(name), "jit-%u.dump", pid);
	snprintf(dump_path, sizeof(dump_path), "%s/%s", sub, name);
	dump_header(&d, 0x4a695444, 1, 40);
	dump_set_pid(&d, pid);
	dump_load(&d, 0x10100, 0x40, "found by its mapping", true);
	test_write_file(sub, name, d.buf, d.len);
	sym = symbolizer__new(&opts);
	CHECK_EQ_INT(symbolizer__add_stack(sym, p, &st, 1), 0);
	CHECK_EQ_INT(symbolizer__lookup(sym, pid, 0x10110, &info), 0);
	CHECK(info.name == NULL);
	CHECK(model__add_maps(symbolizer__model(sym), &pm) != NULL);
	CHECK_EQ_INT(symbolizer__lookup(sym, pid, 0x10110, &info), 0);
	CHECK_EQ_STR(info.name, "found by its mapping");
	CHECK_EQ_INT(symbolizer__symbolize_profile(sym, p), 0);
	CHECK_EQ_STR(profile__location(p, profile__sample(p, 0)->user[0])->function,
		     "found by its mapping");
	symbolizer__free(sym);
	profile__free(p);
	unlink(dump_path);
	rmdir(sub);
	rmdir(dir);
}

/* A map at path, looked up at 0x1004 through view: whether it names it, and the counts. */
static const char *refused_lookup(const struct proc_view *view, const char *path,
				  enum jit_map_format format, const struct jit_map_opts *extra)
{
	struct jit_map_opts opts = extra ? *extra : (struct jit_map_opts){};
	static char name[64];
	const char *found;
	struct jit_map *m;

	opts.view = view;
	m = jit_map__new(path, format, &opts);
	found = name_at(m, 0x1004, NULL);
	snprintf(name, sizeof(name), "%s", found ? found : "");
	/* looked up again, the same file: neither read nor counted again */
	name_at(m, 0x1008, NULL);
	jit_map__free(m);
	return name[0] ? name : NULL;
}

/*
 * Files a runtime would not write: each refused whole, counted once by its
 * reason, nothing named from it, nothing blocking (a FIFO without a writer).
 */
static void test_refused_files(void)
{
	char dir[] = "/tmp/unwprof-test-refused.XXXXXX", path[PATH_MAX], target[PATH_MAX];
	static const char map[] = "1000 10 planted\n";
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), fd;
	struct proc_view_counts counts = {};
	struct proc_view view, stranger;
	struct dump d = {};
	struct stat st;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	proc_view__default(&view, root, 77);
	view.counts = &counts;
	/* the reference: the same text in a regular file of the process's user is read */
	test_write_file(dir, "perf-77.map", map, sizeof(map) - 1);
	snprintf(path, sizeof(path), "%s/perf-77.map", dir);
	CHECK_EQ_STR(refused_lookup(&view, path, JIT_MAP_PERF_MAP, NULL), "planted");

	/* owned by no user of the process */
	stranger = view;
	stranger.owners[0] = 4000000000u;
	stranger.nr_owners = 1;
	CHECK(refused_lookup(&stranger, path, JIT_MAP_PERF_MAP, NULL) == NULL);
	CHECK_EQ_INT(counts.refused[PROC_VIEW_OWNER], 1);

	/* a link to it */
	snprintf(target, sizeof(target), "%s/link.map", dir);
	CHECK_EQ_INT(symlink(path, target), 0);
	CHECK(refused_lookup(&view, target, JIT_MAP_PERF_MAP, NULL) == NULL);
	CHECK_EQ_INT(counts.refused[PROC_VIEW_LINK], 1);

	/* a FIFO without a writer: an open for reading would wait for one */
	snprintf(target, sizeof(target), "%s/fifo.map", dir);
	CHECK_EQ_INT(mkfifo(target, 0600), 0);
	CHECK(refused_lookup(&view, target, JIT_MAP_PERF_MAP, NULL) == NULL);
	CHECK_EQ_INT(counts.refused[PROC_VIEW_NOT_REGULAR], 1);

	/* 2 GiB, sparse, the map's line first */
	snprintf(target, sizeof(target), "%s/huge.map", dir);
	fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, map, sizeof(map) - 1) == (ssize_t)sizeof(map) - 1 &&
	      ftruncate(fd, 2LL << 30) == 0);
	if (fd >= 0)
		close(fd);
	CHECK(refused_lookup(&view, target, JIT_MAP_PERF_MAP, NULL) == NULL);
	CHECK_EQ_INT(counts.refused[PROC_VIEW_TOO_LARGE], 1);
	unlink(target);

	/* a jitdump whose header names another process than its file name */
	dump_header(&d, 0x4a695444, 1, 40); /* of pid 4242 */
	dump_load(&d, 0x1000, 0x10, "planted", true);
	test_write_file(dir, "jit-77.dump", d.buf, d.len);
	snprintf(target, sizeof(target), "%s/jit-77.dump", dir);
	CHECK(refused_lookup(&view, target, JIT_MAP_JITDUMP, &(struct jit_map_opts){ .pid = 77 }) ==
	      NULL);
	CHECK_EQ_INT(counts.refused[PROC_VIEW_FORGED], 1);
	CHECK_EQ_STR(refused_lookup(&view, target, JIT_MAP_JITDUMP,
				    &(struct jit_map_opts){ .pid = 4242 }),
		     "planted");

	/* a mapped jitdump: another file at its path now */
	CHECK_EQ_INT(stat(path, &st), 0);
	CHECK(refused_lookup(&view, target, JIT_MAP_JITDUMP,
			     &(struct jit_map_opts){
				     .mapped = true, .dev = st.st_dev, .ino = st.st_ino }) == NULL);
	CHECK_EQ_INT(counts.refused[PROC_VIEW_REPLACED], 1);
	CHECK_EQ_INT(counts.refused[PROC_VIEW_LINK], 1);
	CHECK_EQ_INT(counts.refused[PROC_VIEW_OWNER], 1);

	snprintf(target, sizeof(target), "rm -rf '%s'", dir);
	CHECK_EQ_INT(system(target), 0);
	close(root);
}

int main(void)
{
	RUN(test_node_and_jvm_lines);
	RUN(test_bad_lines);
	RUN(test_overlaps);
	RUN(test_read_again);
	RUN(test_jitdump);
	RUN(test_jitdump_bad);
	RUN(test_symbolizer);
	RUN(test_jitdump_seen_late);
	RUN(test_refused_files);
	return test_summary();
}
