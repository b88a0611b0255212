// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of core/runtimes/php/phframes.c: the namer reads this
 * process's own memory (/proc/self/mem), where the tests lay out PHP 8.2's
 * and 8.4's objects with the offsets of phruntime.c's table as the
 * interpreter would: a zend_function with its name, its class (a
 * zend_class_entry and its name) and its file, each a zend_string. A
 * function is named as PHP's backtraces name it, a method with its class,
 * a file's code "{main}" or "{include}", an eval's "{eval}"; a line outside
 * the function is none; what is not a user function, too long, or another
 * function than the frame's (its tag) is "<unknown>". Also the version and
 * build read from a php's strings.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "bpf/abi.h"
#include "core/runtimes/php/phframes.h"
#include "core/runtimes/php/phruntime.h"

/* A zend_string: its head (refcount, type info), hash, len, then its bytes. */
struct fake_str {
	uint32_t refcount, type_info;
	uint64_t h, len;
	char val[40];
};

/* The objects of one function's frame. */
struct fake_php {
	uint8_t fn[256];
	uint8_t ce[64];
	struct fake_str name, class_name, file;
};

static uint64_t addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static void put64(uint8_t *body, int32_t off, uint64_t v)
{
	memcpy(body + off, &v, sizeof(v));
}

static void put32(uint8_t *body, int32_t off, uint32_t v)
{
	memcpy(body + off, &v, sizeof(v));
}

static void zstr(struct fake_str *s, const char *v)
{
	s->len = strlen(v);
	strcpy(s->val, v);
}

/* Function "cmp" of lines 10 to 20 of /tmp/app.php, of class "App\Sorter" when scoped. */
static void fake_php(struct fake_php *f, const struct ph_offsets *o, bool scoped)
{
	memset(f, 0, sizeof(*f));
	f->fn[0] = UNW_PH_USER_FUNCTION;
	zstr(&f->name, "cmp");
	zstr(&f->class_name, "App\\Sorter");
	zstr(&f->file, "/tmp/app.php");
	put64(f->fn, o->fn_name, addr(&f->name));
	put64(f->fn, o->fn_scope, scoped ? addr(f->ce) : 0);
	put64(f->fn, o->fn_filename, addr(&f->file));
	put32(f->fn, o->fn_line_start, 10);
	put32(f->fn, o->fn_line_end, 20);
	put64(f->ce, o->ce_name, addr(&f->class_name));
}

static uint64_t what(enum unw_ph_kind kind, const struct fake_php *f)
{
	return (uint64_t)kind << UNW_PH_KIND_SHIFT | addr(f->fn);
}

static uint64_t where(uint64_t name, uint32_t line)
{
	return line | (uint64_t)UNW_CODE_TAG(name) << UNW_PH_TAG_SHIFT;
}

static struct phframes *namer(struct phruntime *pr, unsigned int minor)
{
	struct phframes *n = phframes__new();

	memset(pr, 0, sizeof(*pr));
	pr->major = 8;
	pr->minor = (uint8_t)minor;
	pr->off = *phruntime__offsets_of(8, minor);
	if (n && phframes__add_process(n, (uint32_t)getpid(), pr, 0)) {
		phframes__free(n);
		return NULL;
	}
	return n;
}

static struct ph_frame_name name_of(struct phframes *n, uint64_t w, uint64_t wh)
{
	struct ph_frame_name out;

	CHECK_EQ_INT(phframes__name(n, (uint32_t)getpid(), w, wh, &out), 0);
	return out;
}

static void test_functions(void)
{
	static struct fake_php f, g;

	for (unsigned int minor = 2; minor <= 4; minor += 2) {
		struct phruntime pr;
		struct phframes *n = namer(&pr, minor);
		struct ph_frame_name r;

		if (!n) {
			FAIL("no namer of this process");
			return;
		}
		fake_php(&f, &pr.off, false);
		r = name_of(n, what(UNW_PH_FUNCTION, &f), where(addr(&f.name), 12));
		CHECK_EQ_STR(r.name, "cmp");
		CHECK_EQ_STR(r.file, "/tmp/app.php");
		CHECK_EQ_INT(r.line, 12);
		CHECK_EQ_INT(r.first_line, 10);
		/* a line outside the function is none */
		CHECK_EQ_INT(name_of(n, what(UNW_PH_FUNCTION, &f), where(addr(&f.name), 21)).line,
			     0);
		/* a method, with its class's name */
		fake_php(&g, &pr.off, true);
		r = name_of(n, what(UNW_PH_FUNCTION, &g), where(addr(&g.name), 20));
		CHECK_EQ_STR(r.name, "App\\Sorter::cmp");
		CHECK_EQ_INT(r.line, 20);
		phframes__free(n);
	}
}

static void test_code(void)
{
	struct phruntime pr;
	struct phframes *n = namer(&pr, 2);
	static struct fake_php f;

	if (!n) {
		FAIL("no namer of this process");
		return;
	}
	fake_php(&f, &pr.off, false);
	put64(f.fn, pr.off.fn_name, 0);
	/* a file's code is told apart by its filename's tag */
	CHECK_EQ_STR(name_of(n, what(UNW_PH_MAIN, &f), where(addr(&f.file), 11)).name, "{main}");
	CHECK_EQ_STR(name_of(n, what(UNW_PH_MAIN, &f), where(addr(&f.file), 11)).file,
		     "/tmp/app.php");
	CHECK_EQ_STR(name_of(n, what(UNW_PH_MAIN, &f), where(0, 11)).name, "<unknown>");
	CHECK_EQ_STR(name_of(n, what(UNW_PH_INCLUDE, &f), where(addr(&f.file), 11)).name,
		     "{include}");
	f.fn[0] = UNW_PH_EVAL_CODE;
	CHECK_EQ_STR(name_of(n, what(UNW_PH_EVAL, &f), where(addr(&f.file), 11)).name, "{eval}");
	phframes__free(n);
}

/* The copy BPF took of a code's file and lines names it where the memory no longer holds it. */
static void test_code_copied(void)
{
	struct phruntime pr;
	struct phframes *n = namer(&pr, 4);
	uint64_t gone = (uint64_t)UNW_PH_EVAL << UNW_PH_KIND_SHIFT | 8;
	struct ph_frame_name r;

	if (!n) {
		FAIL("no namer of this process");
		return;
	}
	phframes__read_code(n, (uint32_t)getpid(), gone, 0x1234, "/tmp/a.php(3) : eval()'d code", 1,
			    2);
	r = name_of(n, gone, 2 | (uint64_t)0x1234 << UNW_PH_TAG_SHIFT);
	CHECK_EQ_STR(r.name, "{eval}");
	CHECK_EQ_STR(r.file, "/tmp/a.php(3) : eval()'d code");
	CHECK_EQ_INT(r.line, 2);
	/* a copy that is no file's is not taken: the memory is read, which is not there */
	phframes__read_code(n, (uint32_t)getpid(), gone, 0x4321, "bad\001file", 1, 2);
	CHECK_EQ_STR(name_of(n, gone, 2 | (uint64_t)0x4321 << UNW_PH_TAG_SHIFT).file, "<unknown>");
	phframes__free(n);
}

static void test_bad_input(void)
{
	struct phruntime pr;
	struct phframes *n = namer(&pr, 2);
	static struct fake_php f;
	struct ph_frame_name r;

	if (!n) {
		FAIL("no namer of this process");
		return;
	}
	fake_php(&f, &pr.off, true);
	/* another function at the frame's address (its name moved): not named */
	r = name_of(n, what(UNW_PH_FUNCTION, &f), where(addr(&f.name) + 16, 12));
	CHECK_EQ_STR(r.name, "<unknown>");
	CHECK_EQ_STR(r.file, "<unknown>");
	/* an internal function, a name too long, a class without a name, lines out of order */
	f.fn[0] = UNW_PH_INTERNAL_FUNCTION;
	CHECK_EQ_STR(name_of(n, what(UNW_PH_FUNCTION, &f), where(addr(&f.name), 12)).name,
		     "<unknown>");
	fake_php(&f, &pr.off, true);
	f.name.len = 1 << 20;
	CHECK_EQ_STR(name_of(n, what(UNW_PH_FUNCTION, &f), where(addr(&f.name), 12)).name,
		     "<unknown>");
	fake_php(&f, &pr.off, true);
	put64(f.ce, pr.off.ce_name, 0);
	CHECK_EQ_STR(name_of(n, what(UNW_PH_FUNCTION, &f), where(addr(&f.name), 12)).name,
		     "<unknown>");
	fake_php(&f, &pr.off, false);
	put32(f.fn, pr.off.fn_line_start, 30);
	CHECK_EQ_STR(name_of(n, what(UNW_PH_FUNCTION, &f), where(addr(&f.name), 12)).name,
		     "<unknown>");
	/* a kind not known, an unmapped address, a process never added */
	fake_php(&f, &pr.off, false);
	CHECK_EQ_STR(name_of(n, what(9, &f), where(addr(&f.name), 12)).name, "<unknown>");
	CHECK_EQ_STR(name_of(n, 8, 8).name, "<unknown>");
	CHECK_EQ_INT(phframes__name(n, 0, 0, 0, &r), -ENOENT);
	phframes__free(n);
}

/* The version and build, from a php's strings. */
static void test_version(void)
{
	static const char nts[] = "\0X-Powered-By: PHP/8.2.36\0API420220829,NTS\0API20220829,NTS\0";
	static const char zts[] = "X-Powered-By: PHP/8.4.7\0API20240924,TS\0";
	static const char none[] = "X-Powered-By: PHP/8.\0API2024,NTS\0";
	struct phruntime pr;

	memset(&pr, 0, sizeof(pr));
	CHECK_EQ_INT(phruntime__version((const uint8_t *)nts, sizeof(nts), &pr), 0);
	CHECK_EQ_INT(pr.major, 8);
	CHECK_EQ_INT(pr.minor, 2);
	CHECK_EQ_INT(pr.release, 36);
	CHECK_EQ_INT(pr.api, 20220829);
	CHECK(!pr.zts);
	memset(&pr, 0, sizeof(pr));
	CHECK_EQ_INT(phruntime__version((const uint8_t *)zts, sizeof(zts), &pr), 0);
	CHECK_EQ_INT(pr.minor, 4);
	CHECK_EQ_INT(pr.api, 20240924);
	CHECK(pr.zts);
	CHECK_EQ_INT(phruntime__version((const uint8_t *)none, sizeof(none), &pr), -ENOENT);
	CHECK(phruntime__offsets_of(8, 3) == NULL);
	CHECK(phruntime__offsets_of(7, 4) == NULL);
}

int main(void)
{
	RUN(test_functions);
	RUN(test_code);
	RUN(test_code_copied);
	RUN(test_bad_input);
	RUN(test_version);
	return test_summary();
}
