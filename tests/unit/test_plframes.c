// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of core/runtimes/perl/plframes.c: the namer reads this
 * process's own memory (/proc/self/mem), where the tests lay out Perl
 * 5.36's objects with the offsets of plruntime.c's table as the interpreter
 * would: a GV with its GP, its name's HEK and its stash (an HV with its aux
 * struct), CVs with a name HEK and no GV (lexical or not), COPs with their
 * files. A sub is named as caller() names it, an eval by the op that began
 * it; what is not a Perl object, too long, or another COP than the frame's
 * (its tag) is "<unknown>"; a COP's copy taken by BPF names it once gone.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "bpf/abi.h"
#include "core/runtimes/perl/plframes.h"
#include "core/runtimes/perl/plruntime.h"

/* An SV head: sv_any, sv_refcnt, sv_flags, sv_u. */
struct fake_sv {
	uint64_t any;
	uint32_t refcnt, flags;
	uint64_t u;
};

struct fake_hek {
	uint32_t hash;
	int32_t len;
	char key[32];
};

/* The objects of one sub's frame, laid out with 5.36's offsets. */
struct fake_perl {
	struct fake_sv gv, stash, cv;
	uint8_t gv_body[48], stash_body[96], cv_body[104];
	struct fake_hek name, stash_name;
	uint8_t cop[64];
	char file[32];
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

static void hek(struct fake_hek *h, const char *key)
{
	h->len = (int32_t)strlen(key);
	strcpy(h->key, key);
}

/* Package stash "Foo::Bar", sub "baz" of it, a COP of line 42 in /tmp/app.pl. */
static void fake_perl(struct fake_perl *f, const struct pl_offsets *o)
{
	memset(f, 0, sizeof(*f));
	hek(&f->name, "baz");
	hek(&f->stash_name, "Foo::Bar");
	f->gv = (struct fake_sv){ .any = addr(f->gv_body), .flags = 9 | 0x8000 };
	put64(f->gv_body, o->gv_name, addr(&f->name));
	put64(f->gv_body, o->gv_stash, addr(&f->stash));
	f->stash = (struct fake_sv){ .any = addr(f->stash_body), .flags = 12 | 0x02000000 };
	put64(f->stash_body, o->hv_aux + o->aux_name, addr(&f->stash_name));
	f->cv = (struct fake_sv){ .any = addr(f->cv_body), .flags = 13 };
	put64(f->cv_body, o->cv_stash, addr(&f->stash));
	put64(f->cv_body, o->cv_gv, addr(&f->name));
	put32(f->cv_body, o->cv_flags, 0x8000);
	strcpy(f->file, "/tmp/app.pl");
	put32(f->cop, o->cop_line, 42);
	put64(f->cop, o->cop_file, addr(f->file));
}

static uint64_t what(enum unw_pl_kind kind, uint64_t value)
{
	return (uint64_t)kind << UNW_PL_KIND_SHIFT | value;
}

static uint64_t where(const struct fake_perl *f)
{
	return addr(f->cop) | (uint64_t)UNW_PL_TAG(addr(f->file), 42) << UNW_PL_TAG_SHIFT;
}

static struct plframes *namer(struct plruntime *pr)
{
	struct plframes *n = plframes__new();

	memset(pr, 0, sizeof(*pr));
	pr->revision = 5;
	pr->version = 36;
	pr->off = *plruntime__offsets_of(5, 36);
	if (n && plframes__add_process(n, (uint32_t)getpid(), pr, 0)) {
		plframes__free(n);
		return NULL;
	}
	return n;
}

static struct pl_frame_name name_of(struct plframes *n, uint64_t w, uint64_t wh)
{
	struct pl_frame_name out;

	CHECK_EQ_INT(plframes__name(n, (uint32_t)getpid(), w, wh, &out), 0);
	return out;
}

static void test_subs(void)
{
	struct plruntime pr;
	struct plframes *n = namer(&pr);
	static struct fake_perl f, g, h;
	struct pl_frame_name r;

	if (!n) {
		FAIL("no namer of this process");
		return;
	}
	fake_perl(&f, &pr.off);
	r = name_of(n, what(UNW_PL_SUB, addr(&f.gv)), where(&f));
	CHECK_EQ_STR(r.name, "Foo::Bar::baz");
	CHECK_EQ_STR(r.file, "/tmp/app.pl");
	CHECK_EQ_INT(r.line, 42);
	CHECK_EQ_STR(name_of(n, what(UNW_PL_SUB_NAMED, addr(&f.cv)), where(&f)).name,
		     "Foo::Bar::baz");
	/* a lexical sub is named without its package; a new address, not the cached name */
	fake_perl(&g, &pr.off);
	put32(g.cv_body, pr.off.cv_flags, 0x18000);
	CHECK_EQ_STR(name_of(n, what(UNW_PL_SUB_NAMED, addr(&g.cv)), where(&g)).name, "baz");
	/* a stash without a name: __ANON__, as gv_fullname4 has it */
	fake_perl(&h, &pr.off);
	put64(h.stash_body, pr.off.hv_aux + pr.off.aux_name, 0);
	CHECK_EQ_STR(name_of(n, what(UNW_PL_SUB, addr(&h.gv)), where(&h)).name, "__ANON__::baz");
	plframes__free(n);
}

static void test_kinds(void)
{
	struct plruntime pr;
	struct plframes *n = namer(&pr);
	static struct fake_perl f;

	if (!n) {
		FAIL("no namer of this process");
		return;
	}
	fake_perl(&f, &pr.off);
	CHECK_EQ_STR(name_of(n, what(UNW_PL_EVAL, pr.off.op_entereval), where(&f)).name, "(eval)");
	CHECK_EQ_STR(name_of(n, what(UNW_PL_EVAL, pr.off.op_require), where(&f)).name, "(require)");
	CHECK_EQ_STR(name_of(n, what(UNW_PL_EVAL, pr.off.op_dofile), where(&f)).name, "(do)");
	CHECK_EQ_STR(name_of(n, what(UNW_PL_SORT, 0), where(&f)).name, "(sort)");
	CHECK_EQ_STR(name_of(n, what(UNW_PL_MAIN, 0), where(&f)).name, "main::RUNTIME");
	CHECK_EQ_STR(name_of(n, what(UNW_PL_MAIN, 0), where(&f)).file, "/tmp/app.pl");
	plframes__free(n);
}

static void test_bad_input(void)
{
	struct plruntime pr;
	struct plframes *n = namer(&pr);
	static struct fake_perl f;
	struct pl_frame_name r;
	uint64_t w;

	if (!n) {
		FAIL("no namer of this process");
		return;
	}
	fake_perl(&f, &pr.off);
	/* another COP at the frame's address (its file or line changed): not named */
	w = addr(f.cop) | (uint64_t)(UNW_PL_TAG(addr(f.file), 42) ^ 1) << UNW_PL_TAG_SHIFT;
	CHECK_EQ_STR(name_of(n, what(UNW_PL_MAIN, 0), w).file, "<unknown>");
	/* a GV that is no GV, a HEK too long, an unmapped address */
	f.gv.flags = 13;
	CHECK_EQ_STR(name_of(n, what(UNW_PL_SUB, addr(&f.gv)), where(&f)).name, "<unknown>");
	f.gv.flags = 9 | 0x8000;
	f.name.len = 1 << 20;
	CHECK_EQ_STR(name_of(n, what(UNW_PL_SUB, addr(&f.gv)), where(&f)).name, "<unknown>");
	r = name_of(n, what(UNW_PL_SUB, 8), 8);
	CHECK_EQ_STR(r.name, "<unknown>");
	CHECK_EQ_STR(r.file, "<unknown>");
	CHECK_EQ_INT(plframes__name(n, 0, 0, 0, &r), -ENOENT);
	plframes__free(n);
}

/* A COP's copy BPF took names it where the process's memory no longer holds it. */
static void test_cop_copied(void)
{
	struct plruntime pr;
	struct plframes *n = namer(&pr);
	uint64_t gone = 8, where = gone | (uint64_t)0x1234 << UNW_PL_TAG_SHIFT;
	struct pl_frame_name r;

	if (!n) {
		FAIL("no namer of this process");
		return;
	}
	plframes__read_cop(n, (uint32_t)getpid(), where, "(eval 12)", 3);
	r = name_of(n, what(UNW_PL_MAIN, 0), where);
	CHECK_EQ_STR(r.file, "(eval 12)");
	CHECK_EQ_INT(r.line, 3);
	/* a copy that is no file's is not taken: the memory is read, which is not there */
	where = gone | (uint64_t)0x4321 << UNW_PL_TAG_SHIFT;
	plframes__read_cop(n, (uint32_t)getpid(), where, "bad\001file", 3);
	CHECK_EQ_STR(name_of(n, what(UNW_PL_MAIN, 0), where).file, "<unknown>");
	plframes__free(n);
}

int main(void)
{
	RUN(test_subs);
	RUN(test_cop_copied);
	RUN(test_kinds);
	RUN(test_bad_input);
	return test_summary();
}
