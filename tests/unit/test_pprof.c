// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pprof writer and reader (core/profile/pprof_writer.c, pprof_reader.c): a profile with
 * mappings, build IDs, kernel frames, mangled names and an unsymbolized frame
 * survives a round trip; the bytes are the same every time; the main binary
 * comes first; broken input is refused; a location's source lines and inlined
 * functions survive too, and set the mapping's has_* fields.
 * `test_pprof --write FILE` writes the same profile for the report tests,
 * which check it with `go tool pprof`.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/profile/outfile.h"
#include "core/util/common.h"
#include "core/profile/folded.h"
#include "core/util/gzip.h"
#include "core/util/log.h"
#include "core/profile/pprof_reader.h"
#include "core/profile/pprof_writer.h"
#include "core/pprof.pb-c.h"
#include "core/profile/profile.h"
#include "test.h"
#include "test_profiles.h"

#define EXE "/usr/local/bin/pprof-demo"
#define EXE_BUILD_ID "0123456789abcdef0123456789abcdef01234567"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LIBC_BUILD_ID "fedcba9876543210fedcba9876543210fedcba98"
#define EXE_START 0x555555555000ULL
#define LIBC_START 0x7ffff7c28000ULL
#define KERNEL_ADDR 0xffffffff81000000ULL

struct sym {
	uint64_t addr;
	bool kernel;
	const char *function, *system_name;
};

/* Every location's symbol; an address missing here stays unsymbolized. */
static const struct sym syms[] = {
	{ EXE_START + 0x100, false, "_start", "_start" },
	{ EXE_START + 0x200, false, "main", "main" },
	{ EXE_START + 0x300, false, "demo::compute(int)", "_ZN4demo7computeEi" },
	{ EXE_START + 0x400, false, "demo_slow", "demo_slow" },
	{ LIBC_START + 0x1000, false, "__libc_start_main", "__libc_start_main" },
	{ LIBC_START + 0x2000, false, "memcpy", "memcpy" },
	{ KERNEL_ADDR + 0x10, true, "entry_SYSCALL_64", "entry_SYSCALL_64" },
	{ KERNEL_ADDR + 0x20, true, "do_sys_read", "do_sys_read" },
};

/* Which of ids (libc, exe, kernel) covers l; below the executable is no mapping. */
static uint32_t mapping_of(const struct profile_location *l, const uint32_t *ids)
{
	if (l->kernel)
		return ids[2];
	if (l->addr >= LIBC_START)
		return ids[0];
	if (l->addr >= EXE_START)
		return ids[1];
	return PROFILE_NONE;
}

/* Mappings as the symbolizer adds them; libc first so the main binary has to be found. */
static void symbolize(struct profile *p)
{
	struct profile_mapping libc = { LIBC_START, LIBC_START + 0x100000, 0x28000, LIBC,
					LIBC_BUILD_ID };
	struct profile_mapping exe = { EXE_START, EXE_START + 0x1000, 0x1000, EXE, EXE_BUILD_ID };
	struct profile_mapping kernel = { 0, UINT64_MAX, 0, "[kernel.kallsyms]", NULL };
	uint32_t ids[3];

	CHECK_EQ_INT(profile__add_mapping(p, &libc, &ids[0]), 0);
	CHECK_EQ_INT(profile__add_mapping(p, &exe, &ids[1]), 0);
	CHECK_EQ_INT(profile__add_mapping(p, &kernel, &ids[2]), 0);
	for (uint32_t i = 0; i < profile__nr_locations(p); i++) {
		const struct profile_location *l = profile__location(p, i);
		uint32_t m = mapping_of(l, ids);
		const struct sym *s = NULL;

		for (size_t j = 0; j < ARRAY_SIZE(syms); j++)
			if (syms[j].addr == l->addr && syms[j].kernel == l->kernel)
				s = &syms[j];
		CHECK_EQ_INT(profile__set_symbol(p, i, m, s ? s->function : NULL,
						 s ? s->system_name : NULL, 0),
			     0);
	}
}

static struct profile *demo_profile(void)
{
	struct profile *p = profile__new();
	/* leaf first */
	uint64_t compute[] = { EXE_START + 0x300, EXE_START + 0x200, LIBC_START + 0x1000,
			       EXE_START + 0x100 };
	uint64_t slow[] = { EXE_START + 0x400, EXE_START + 0x300, EXE_START + 0x200,
			    LIBC_START + 0x1000, EXE_START + 0x100 };
	uint64_t copy[] = { LIBC_START + 0x2000, EXE_START + 0x200, LIBC_START + 0x1000,
			    EXE_START + 0x100 };
	/* an unsymbolized frame, then one outside every mapping */
	uint64_t unknown[] = { EXE_START + 0x7f0, 0x1234, EXE_START + 0x200 };
	uint64_t kern[] = { KERNEL_ADDR + 0x20, KERNEL_ADDR + 0x10 };

	CHECK_EQ_INT(add_stack(p, 4242, 4242, "pprof-demo", compute, 4, NULL, 0, 50), 0);
	CHECK_EQ_INT(add_stack(p, 4242, 4243, "pprof-demo", slow, 5, NULL, 0, 30), 0);
	CHECK_EQ_INT(add_stack(p, 4242, 4243, "pprof-demo", copy, 4, kern, 2, 15), 0);
	CHECK_EQ_INT(add_stack(p, 4242, 4242, "pprof-demo", unknown, 3, NULL, 0, 5), 0);
	symbolize(p);
	return p;
}

static const struct pprof_writer_opts demo_opts = {
	.meta = {
		.start_ns = 1700000000000000000ULL,
		.duration_ns = 2000000000ULL,
		.period_ns = 10101010ULL, /* 99 Hz */
	},
};

/* Writes p into memory. */
static char *write_mem(const struct profile *p, const struct pprof_writer_opts *opts, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int err;

	if (!f)
		return NULL;
	err = pprof_writer__write(f, p, opts);
	CHECK_EQ_INT(err, 0);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *folded_str(const struct profile *p)
{
	struct folded_opts opts = { .pid = true, .tid = true, .kernel = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	CHECK_EQ_INT(folded__write(f, p, &opts), 0);
	fclose(f);
	return buf;
}

/* Decodes a gzip pprof of len bytes into a new profile. */
static struct profile *read_mem(const char *gz, size_t len, struct pprof_meta *meta)
{
	struct profile *q = profile__new();
	char *raw = NULL;
	size_t raw_len = 0;

	CHECK(gzip__has_magic(gz, len));
	CHECK_EQ_INT(gzip__decompress(gz, len, PPROF_MAX_SIZE, &raw, &raw_len), 0);
	CHECK_EQ_INT(pprof_reader__decode(raw, raw_len, "memory", q, meta), 0);
	free(raw);
	return q;
}

static void test_round_trip(void)
{
	struct profile *p = demo_profile(), *q;
	struct pprof_meta meta;
	size_t len = 0;
	char *gz = write_mem(p, &demo_opts, &len);
	char *before = folded_str(p), *after;
	const struct profile_mapping *m;
	bool mangled = false;

	q = read_mem(gz, len, &meta);
	after = folded_str(q);
	CHECK_EQ_STR(after, before);
	CHECK(before && strstr(before, ";main;[unknown];[pprof-demo+0x17f0] 5\n"));
	CHECK_EQ_INT(profile__total(q), 100);
	CHECK_EQ_INT(meta.start_ns, demo_opts.meta.start_ns);
	CHECK_EQ_INT(meta.duration_ns, demo_opts.meta.duration_ns);
	CHECK_EQ_INT(meta.period_ns, demo_opts.meta.period_ns);
	CHECK_EQ_STR(meta.value_type, "samples");
	CHECK_EQ_STR(meta.value_unit, "count");
	/* The main binary first, with its build ID, though libc was added first. */
	m = profile__mapping(q, 0);
	CHECK(m != NULL);
	if (m) {
		CHECK_EQ_STR(m->file, EXE);
		CHECK_EQ_STR(m->build_id, EXE_BUILD_ID);
		CHECK_EQ_INT(m->start, EXE_START);
		CHECK_EQ_INT(m->offset, 0x1000);
	}
	for (uint32_t i = 0; i < profile__nr_locations(q); i++) {
		const struct profile_location *l = profile__location(q, i);

		if (l->system_name && strcmp(l->system_name, "_ZN4demo7computeEi") == 0) {
			mangled = true;
			CHECK_EQ_STR(l->function, "demo::compute(int)");
		}
	}
	CHECK(mangled);
	free(before);
	free(after);
	free(gz);
	profile__free(p);
	profile__free(q);
}

static void test_deterministic(void)
{
	struct profile *p = demo_profile(), *p2 = demo_profile();
	size_t len1 = 0, len2 = 0;
	char *a = write_mem(p, &demo_opts, &len1), *b = write_mem(p2, &demo_opts, &len2);

	CHECK(a && b);
	CHECK_EQ_INT(len1, len2);
	CHECK(a && b && len1 == len2 && memcmp(a, b, len1) == 0);
	/* gzip header: no mtime, no name */
	CHECK(a && len1 > 10 && !a[4] && !a[5] && !a[6] && !a[7] && !(a[3] & 0x08));
	free(a);
	free(b);
	profile__free(p);
	profile__free(p2);
}

static void test_main_file_and_no_kernel(void)
{
	struct profile *p = demo_profile(), *q;
	struct pprof_writer_opts opts = demo_opts;
	struct pprof_meta meta;
	size_t len = 0;
	char *gz;

	opts.main_file = LIBC;
	opts.no_kernel = true;
	gz = write_mem(p, &opts, &len);
	q = read_mem(gz, len, &meta);
	CHECK_EQ_STR(profile__mapping(q, 0)->file, LIBC);
	for (size_t i = 0; i < profile__nr_samples(q); i++)
		CHECK_EQ_INT(profile__sample(q, i)->nr_kernel, 0);
	CHECK_EQ_INT(profile__total(q), 100);
	free(gz);
	profile__free(p);
	profile__free(q);
}

static void test_no_period(void)
{
	struct profile *p = demo_profile(), *q;
	struct pprof_writer_opts opts = {};
	struct pprof_meta meta;
	size_t len = 0;
	char *gz = write_mem(p, &opts, &len);

	q = read_mem(gz, len, &meta);
	CHECK_EQ_INT(meta.period_ns, 0);
	CHECK_EQ_INT(profile__total(q), 100);
	free(gz);
	profile__free(p);
	profile__free(q);
}

static void test_gunzip_errors(void)
{
	struct profile *p = demo_profile();
	size_t len = 0, out_len;
	char *gz = write_mem(p, &demo_opts, &len), *out;

	CHECK_EQ_INT(gzip__decompress(gz, len / 2, PPROF_MAX_SIZE, &out, &out_len), -ENODATA);
	CHECK(out == NULL);
	CHECK_EQ_INT(gzip__decompress(gz, len, 16, &out, &out_len), -EFBIG);
	gz[12] ^= 0xff;
	gz[13] ^= 0xff;
	gz[14] ^= 0xff;
	CHECK(gzip__decompress(gz, len, PPROF_MAX_SIZE, &out, &out_len) < 0);
	free(gz);
	profile__free(p);
}

static void test_decode_errors(void)
{
	/* string_table "" and "x"; a sample type whose unit is string 9, out of the table */
	static const unsigned char bad_index[] = { 0x32, 0x00, 0x32, 0x01, 'x', 0x0a,
						   0x04, 0x08, 0x01, 0x10, 0x09 };
	/* a string table that does not start with "" */
	static const unsigned char bad_first[] = { 0x32, 0x01, 'x' };
	/* a sample pointing at location 7, which is not there */
	static const unsigned char bad_loc[] = { 0x32, 0x00, 0x0a, 0x00, 0x12, 0x05,
						 0x0a, 0x01, 0x07, 0x10, 0x01 };
	static const char garbage[] = "\x7f"
				      "ELF\x02\x01\x01";
	struct pprof_meta meta;
	struct profile *p;
	int saved = log_level;

	log_level = -1;
	p = profile__new();
	CHECK_EQ_INT(pprof_reader__decode(bad_index, sizeof(bad_index), "bad", p, &meta), -EBADMSG);
	profile__free(p);
	p = profile__new();
	CHECK_EQ_INT(pprof_reader__decode(bad_first, sizeof(bad_first), "bad", p, &meta), -EBADMSG);
	profile__free(p);
	p = profile__new();
	CHECK_EQ_INT(pprof_reader__decode(bad_loc, sizeof(bad_loc), "bad", p, &meta), -EBADMSG);
	profile__free(p);
	p = profile__new();
	CHECK_EQ_INT(pprof_reader__decode(garbage, sizeof(garbage) - 1, "elf", p, &meta), -EBADMSG);
	profile__free(p);
	log_level = saved;
}

/* What record and report do: pprof written through the one output writer. */
static int write_file(const char *path, const struct profile *p)
{
	struct outfile *o = outfile__open(path, NULL);
	int err, close_err;

	if (!o)
		return -errno;
	err = pprof_writer__write(outfile__stream(o), p, &demo_opts);
	close_err = outfile__close(o, !err);
	return err ? err : close_err;
}

/* The labels comm and thread keep the process's name and the thread's. */
static void test_thread_label(void)
{
	struct profile *p = profile__new(), *q;
	const uint64_t user[] = { 0x1000 };
	struct profile_stack st = {
		.pid = 7,
		.tid = 8,
		.comm = "app",
		.thread = "worker",
		.user_addrs = user,
		.nr_user = 1,
	};
	struct pprof_meta meta;
	size_t len = 0;
	char *gz;

	CHECK_EQ_INT(profile__add_stack(p, &st, 3), 0);
	st.tid = 7;
	st.thread = NULL;
	CHECK_EQ_INT(profile__add_stack(p, &st, 2), 0);
	gz = write_mem(p, &demo_opts, &len);
	q = read_mem(gz, len, &meta);
	CHECK_EQ_INT(profile__nr_samples(q), 2);
	for (size_t i = 0; i < profile__nr_samples(q); i++) {
		const struct profile_sample *s = profile__sample(q, i);

		CHECK_EQ_STR(s->comm, "app");
		CHECK_EQ_STR(s->thread, s->tid == 8 ? "worker" : "");
	}
	free(gz);
	profile__free(q);
	profile__free(p);
}

static void test_write_file_errors(void)
{
	struct profile *p = demo_profile();
	char dir[] = "/tmp/unwprof-pprof-XXXXXX", path[64];
	int saved = log_level;
	struct stat st;

	log_level = -1;
	CHECK_EQ_INT(write_file("/dev/full", p), -ENOSPC);
	CHECK(write_file("/nonexistent-dir/x.pb.gz", p) < 0);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/out.pb.gz", dir);
	CHECK_EQ_INT(write_file(path, p), 0);
	CHECK(stat(path, &st) == 0 && st.st_size > 0);
	unlink(path);
	/* root writes into a read-only directory anyway */
	if (geteuid() != 0 && chmod(dir, 0555) == 0) {
		CHECK(write_file(path, p) < 0);
		CHECK(stat(path, &st) < 0);
		chmod(dir, 0755);
	}
	CHECK_EQ_INT(rmdir(dir), 0); /* nothing left behind */
	log_level = saved;
	profile__free(p);
}

/* demo::square(int) inlined into demo::compute(int) at the compute frame. */
static const struct profile_line compute_lines[] = {
	{ "demo::square(int)", "_ZN4demo6squareEi", "/src/demo.h", 7, 5 },
	{ "demo::compute(int)", "_ZN4demo7computeEi", "/src/demo.cc", 42, 40 },
};

static struct profile *lines_profile(void)
{
	struct profile *p = demo_profile();

	for (uint32_t i = 0; i < profile__nr_locations(p); i++) {
		const struct profile_location *l = profile__location(p, i);

		if (l->addr == EXE_START + 0x300 && !l->return_addr)
			CHECK_EQ_INT(profile__set_lines(p, i, compute_lines, 2), 0);
	}
	return p;
}

static char *folded_lines_str(const struct profile *p, bool lines)
{
	struct folded_opts opts = { .kernel = true, .lines = lines };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	CHECK_EQ_INT(folded__write(f, p, &opts), 0);
	fclose(f);
	return buf;
}

/* The raw message, to look at what the reader does not keep (mapping flags). */
static Pprof__Profile *unpack(const char *gz, size_t len)
{
	Pprof__Profile *msg;
	char *raw = NULL;
	size_t raw_len = 0;

	CHECK_EQ_INT(gzip__decompress(gz, len, PPROF_MAX_SIZE, &raw, &raw_len), 0);
	msg = pprof__profile__unpack(NULL, raw_len, (const uint8_t *)raw);
	free(raw);
	return msg;
}

static void test_lines(void)
{
	struct profile *p = lines_profile(), *q;
	struct pprof_meta meta;
	size_t len = 0, n, found = 0;
	char *gz = write_mem(p, &demo_opts, &len);
	char *before = folded_lines_str(p, false), *after, *with_lines;
	Pprof__Profile *msg = unpack(gz, len);

	/* the inlined function is a frame of its own, after its caller */
	CHECK(before && strstr(before, "pprof-demo;_start;__libc_start_main;main;"
				       "demo::compute(int);demo::square(int)_[i] 50\n"));
	CHECK(msg != NULL);
	for (size_t i = 0; msg && i < msg->n_mapping; i++) {
		const Pprof__Mapping *m = msg->mapping[i];
		bool exe = strcmp(msg->string_table[m->filename], EXE) == 0;

		CHECK_EQ_INT(m->has_inline_frames, exe);
		CHECK_EQ_INT(m->has_line_numbers, exe);
		CHECK_EQ_INT(m->has_filenames, exe);
	}
	for (size_t i = 0; msg && i < msg->n_location; i++) {
		const Pprof__Location *l = msg->location[i];

		if (l->n_line != 2)
			continue;
		found++;
		CHECK_EQ_INT(l->line[0]->line, 7);
		CHECK_EQ_INT(l->line[1]->line, 42);
		for (size_t f = 0; f < msg->n_function; f++) {
			const Pprof__Function *fn = msg->function[f];

			if (fn->id != l->line[0]->function_id)
				continue;
			CHECK_EQ_STR(msg->string_table[fn->name], "demo::square(int)");
			CHECK_EQ_STR(msg->string_table[fn->system_name], "_ZN4demo6squareEi");
			CHECK_EQ_STR(msg->string_table[fn->filename], "/src/demo.h");
			CHECK_EQ_INT(fn->start_line, 5);
		}
	}
	CHECK_EQ_INT(found, 1);
	pprof__profile__free_unpacked(msg, NULL);

	/* read back: one location with both lines, named as the outer one */
	q = read_mem(gz, len, &meta);
	after = folded_lines_str(q, false);
	CHECK_EQ_STR(after, before);
	found = 0;
	for (uint32_t i = 0; i < profile__nr_locations(q); i++) {
		const struct profile_line *ln = profile__lines(q, i, &n);

		if (n != 2)
			continue;
		found++;
		CHECK_EQ_STR(profile__location(q, i)->function, "demo::compute(int)");
		CHECK_EQ_STR(ln[0].function, "demo::square(int)");
		CHECK_EQ_STR(ln[0].system_name, "_ZN4demo6squareEi");
		CHECK_EQ_STR(ln[0].file, "/src/demo.h");
		CHECK_EQ_INT(ln[0].line, 7);
		CHECK_EQ_INT(ln[0].start_line, 5);
		CHECK_EQ_STR(ln[1].file, "/src/demo.cc");
		CHECK_EQ_INT(ln[1].line, 42);
	}
	CHECK_EQ_INT(found, 1);
	with_lines = folded_lines_str(q, true);
	CHECK(with_lines && strstr(with_lines, ";main;demo::compute(int):42;"
					       "demo::square(int):7_[i] 50\n"));
	free(before);
	free(after);
	free(with_lines);
	free(gz);
	profile__free(p);
	profile__free(q);
}

/* A Python frame and a Ruby one above a native frame, as the symbolizer makes them. */
static struct profile *interp_profile(void)
{
	struct profile *p = demo_profile();
	struct profile_line py = {
		.function = "Alpha.a1", .file = "/srv/app.py", .line = 12, .start_line = 10
	};
	struct profile_line rb = {
		.function = "block in run", .file = "/srv/app.rb", .line = 7, .start_line = 6
	};
	uint32_t ids[3];
	bool added;
	struct profile_sample smp = {
		.pid = 4242, .tid = 4242, .comm = "pprof-demo", .user = ids, .nr_user = 3, .count = 9
	};

	CHECK_EQ_INT(profile__intern_frame(p, 4242, UNW_UW_PYTHON, 0x7f0000001000, 12, &ids[0],
					   &added),
		     0);
	CHECK_EQ_INT(profile__set_symbol(p, ids[0], PROFILE_NONE, py.function, NULL, 0), 0);
	CHECK_EQ_INT(profile__set_lines(p, ids[0], &py, 1), 0);
	CHECK_EQ_INT(
		profile__intern_frame(p, 4242, UNW_UW_RUBY, 0x7f0000002000, 7, &ids[1], &added), 0);
	CHECK_EQ_INT(profile__set_symbol(p, ids[1], PROFILE_NONE, rb.function, NULL, 0), 0);
	CHECK_EQ_INT(profile__set_lines(p, ids[1], &rb, 1), 0);
	CHECK_EQ_INT(profile__intern_location(p, 4242, EXE_START + 0x100, false, true, &ids[2]), 0);
	CHECK_EQ_INT(profile__add_sample(p, &smp), 0);
	return p;
}

static void test_interpreted(void)
{
	struct profile *p = interp_profile(), *q;
	struct pprof_meta meta;
	size_t len = 0, kinds = 0;
	char *gz = write_mem(p, &demo_opts, &len);
	char *before = folded_lines_str(p, false), *after;
	Pprof__Profile *msg = unpack(gz, len);

	CHECK(before &&
	      strstr(before, ";block in run (/srv/app.rb:7);Alpha.a1 (/srv/app.py:12) 9\n"));
	/* each interpreter's frames in a mapping of its own, made up, with names and lines */
	for (size_t i = 0; msg && i < msg->n_mapping; i++) {
		const Pprof__Mapping *m = msg->mapping[i];
		const char *file = msg->string_table[m->filename];

		if (strcmp(file, "[python]") && strcmp(file, "[ruby]"))
			continue;
		kinds++;
		CHECK(m->has_functions && m->has_filenames && m->has_line_numbers);
	}
	CHECK_EQ_INT(kinds, 2);
	pprof__profile__free_unpacked(msg, NULL);
	/* read back: the same frames, of the same kinds, at the same lines */
	q = read_mem(gz, len, &meta);
	after = folded_lines_str(q, false);
	CHECK_EQ_STR(after, before);
	kinds = 0;
	for (uint32_t i = 0; q && i < profile__nr_locations(q); i++) {
		const struct profile_location *l = profile__location(q, i);

		if (l->kind == UNW_UW_PYTHON)
			kinds += l->line == 12 && l->mapping == PROFILE_NONE;
		if (l->kind == UNW_UW_RUBY)
			kinds += l->line == 7 && l->mapping == PROFILE_NONE;
	}
	CHECK_EQ_INT(kinds, 2);
	free(before);
	free(after);
	free(gz);
	profile__free(p);
	profile__free(q);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write") == 0) {
		struct profile *p = demo_profile();
		int err = write_file(argv[2], p);

		profile__free(p);
		return err ? 1 : 0;
	}
	RUN(test_round_trip);
	RUN(test_thread_label);
	RUN(test_deterministic);
	RUN(test_main_file_and_no_kernel);
	RUN(test_no_period);
	RUN(test_gunzip_errors);
	RUN(test_decode_errors);
	RUN(test_write_file_errors);
	RUN(test_lines);
	RUN(test_interpreted);
	return test_summary();
}
