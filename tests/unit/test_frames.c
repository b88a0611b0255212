// SPDX-License-Identifier: GPL-2.0-only
/*
 * The frames of a profile: one frame per source line of a location of
 * machine code, one for an interpreter's; each named as folded, the flame
 * graph and report ask (frames_name_opts); a sample's frames walked root
 * first with the walk's own [unwalked] and [off-cpu].
 */
#include <errno.h>
#include <stdlib.h>

#include "bpf/abi.h"
#include "core/profile/frames.h"
#include "core/profile/profile.h"
#include "test.h"

static const struct frames_name_opts folded_opts = {
	.marks = FRAMES_MARKS_BOTH,
	.line = FRAMES_LINE_NUMBER,
	.interpreter_place = true,
};
static const struct frames_name_opts svg_opts = { .marks = FRAMES_MARKS_ONE };
static const struct frames_name_opts report_opts = {
	.line = FRAMES_LINE_PLACE,
	.unnamed_as_location = true,
};

/*
 * Locations: 0 main, 1 holder with named and an unnamed function inlined
 * into it, 2 a kernel function with one inlined, 3 no symbol, 4 Python.
 */
static struct profile *build(void)
{
	struct profile *p = profile__new();
	struct profile_mapping m = { 0x1000, 0x9000, 0x400, "/usr/bin/app", NULL };
	struct profile_line inl[] = { { NULL, NULL, "a.c", 3, 0 },
				      { "named", NULL, "a.c", 7, 0 },
				      { "holder", NULL, "a.c", 20, 0 } };
	struct profile_line kinl[] = { { "vfs_read", NULL, NULL, 0, 0 },
				       { "ksys_read", NULL, NULL, 0, 0 } };
	struct profile_line py = { "Worker.work", NULL, "w.py", 22, 21 };
	struct profile_location l = { .addr = 0x1100, .pid = 1, .return_addr = true };
	uint32_t id, mid;
	bool added;

	profile__add_mapping(p, &m, &mid);
	l.mapping = mid;
	l.function = "main";
	profile__add_location(p, &l, &id);
	l.addr = 0x1200;
	l.function = "holder";
	profile__add_location(p, &l, &id);
	profile__set_lines(p, id, inl, 3);
	l = (struct profile_location){
		.addr = 0xffff0000, .kernel = true, .mapping = PROFILE_NONE, .function = "ksys_read"
	};
	profile__add_location(p, &l, &id);
	profile__set_lines(p, id, kinl, 2);
	l = (struct profile_location){ .addr = 0x2345, .pid = 1, .mapping = mid };
	profile__add_location(p, &l, &id);
	profile__intern_frame(p, 1, UNW_UW_PYTHON, 0x77, 22, &id, &added);
	profile__set_symbol(p, id, PROFILE_NONE, "Worker.work", NULL, 0);
	profile__set_lines(p, id, &py, 1);
	return p;
}

static void check_name(const struct frames *fr, uint32_t i, const struct frames_name_opts *o,
		       const char *want)
{
	char *name = frames__name(fr, i, o);

	CHECK_EQ_STR(name, want);
	free(name);
}

static void test_numbering(void)
{
	struct profile *p = build();
	struct frames *fr = frames__new(p);
	uint32_t k;

	CHECK(fr != NULL);
	if (!fr)
		return;
	/* main; holder, named, unnamed; ksys_read, vfs_read; no symbol; Python; own two */
	CHECK_EQ_INT(frames__nr(fr), 1 + 3 + 2 + 1 + 1 + FRAMES_NR_OWN);
	CHECK_EQ_INT(frames__location(fr, 3, &k), 1);
	CHECK_EQ_INT(k, 2);
	CHECK_EQ_INT(frames__location(fr, 7, &k), 4);
	CHECK_EQ_INT(k, 0);
	CHECK_EQ_INT(frames__location(fr, frames__own(fr, FRAMES_OFF_CPU), &k), PROFILE_NONE);
	CHECK_EQ_INT(k, FRAMES_OFF_CPU);
	frames__free(fr);
	profile__free(p);
}

static void test_names(void)
{
	struct profile *p = build();
	struct frames *fr = frames__new(p);

	CHECK(fr != NULL);
	if (!fr)
		return;
	check_name(fr, 0, &folded_opts, "main");
	check_name(fr, 1, &folded_opts, "holder:20");
	check_name(fr, 2, &folded_opts, "named:7_[i]");
	check_name(fr, 3, &folded_opts, "[app+0x600]:3_[i]");
	check_name(fr, 5, &folded_opts, "vfs_read_[i]_[k]");
	check_name(fr, 6, &folded_opts, "[app+0x1745]");
	check_name(fr, 7, &folded_opts, "Worker.work (w.py:22)");
	check_name(fr, frames__own(fr, FRAMES_UNWALKED), &folded_opts, "[unwalked]");

	check_name(fr, 3, &svg_opts, "[app+0x600]_[i]");
	check_name(fr, 4, &svg_opts, "ksys_read_[k]");
	check_name(fr, 5, &svg_opts, "vfs_read_[k]");
	check_name(fr, 7, &svg_opts, "Worker.work");

	check_name(fr, 0, &report_opts, "main");
	check_name(fr, 2, &report_opts, "named a.c:7");
	check_name(fr, 3, &report_opts, "holder a.c:3");
	check_name(fr, 5, &report_opts, "vfs_read");
	check_name(fr, 7, &report_opts, "Worker.work w.py:22");
	CHECK(frames__function(fr, 6, &report_opts) == NULL);
	CHECK(frames__function(fr, 3, &svg_opts) == NULL);
	CHECK_EQ_STR(frames__function(fr, 3, &report_opts), "holder");
	frames__free(fr);
	profile__free(p);
}

static void test_kinds(void)
{
	CHECK(frames__kind(PROFILE_FRAME_NATIVE) &&
	      !frames__kind(PROFILE_FRAME_NATIVE)->interpreted);
	CHECK(frames__kind(PROFILE_FRAME_NATIVE)->pprof_mapping == NULL);
	CHECK_EQ_STR(frames__kind(UNW_UW_PYTHON)->pprof_mapping, "[python]");
	CHECK_EQ_STR(frames__kind(UNW_UW_RUBY)->pprof_mapping, "[ruby]");
	CHECK(frames__kind(UNW_UW_RUBY)->interpreted);
	CHECK_EQ_STR(frames__kind(UNW_UW_PERL)->pprof_mapping, "[perl]");
	CHECK(frames__kind(UNW_UW_NR) == NULL); /* the first past the runtimes' */
}

/* The frame numbers a walk of s gives, root first, into out; how many. */
static size_t walk(const struct frames *fr, const struct profile_sample *s, bool kernel, bool own,
		   uint32_t *out)
{
	const struct frames_walk_opts o = { .kernel = kernel, .own = own };
	struct frames_walk w;
	struct frames_step step;
	size_t n = 0;

	frames__walk_start(&w, fr, s, &o);
	while (frames__walk_next(&w, &step))
		out[n++] = step.frame;
	return n;
}

static void test_walk(void)
{
	struct profile *p = build();
	struct frames *fr = frames__new(p);
	uint32_t user[] = { 1, 0 }, kernel[] = { 2 }, got[16];
	struct profile_sample s = { .user = user, .nr_user = 2, .kernel = kernel, .nr_kernel = 1 };
	uint32_t off, unw;

	CHECK(fr != NULL);
	if (!fr)
		return;
	off = frames__own(fr, FRAMES_OFF_CPU);
	unw = frames__own(fr, FRAMES_UNWALKED);
	CHECK_EQ_INT(walk(fr, &s, true, true, got), 6);
	CHECK(got[0] == 0 && got[1] == 1 && got[2] == 2 && got[3] == 3 && got[4] == 4 &&
	      got[5] == 5);
	CHECK_EQ_INT(walk(fr, &s, false, true, got), 4);
	s.flags = PROFILE_SAMPLE_OFF_CPU;
	CHECK_EQ_INT(walk(fr, &s, true, true, got), 7);
	CHECK_EQ_INT(got[6], off);
	CHECK_EQ_INT(walk(fr, &s, true, false, got), 6);
	s.flags |= PROFILE_SAMPLE_UNWALKED;
	CHECK_EQ_INT(walk(fr, &s, true, true, got), 4);
	CHECK(got[0] == unw && got[1] == 4 && got[2] == 5 && got[3] == off);
	CHECK_EQ_INT(walk(fr, &s, false, false, got), 4);
	frames__free(fr);
	profile__free(p);
}

static void test_process_name(void)
{
	struct profile_sample s = { .pid = 42, .tid = 43 };
	char name[FRAMES_PROCESS_MAX];

	frames__process_name(&s, false, false, name);
	CHECK_EQ_STR(name, "[unknown]");
	memcpy(s.comm, "app", 4);
	frames__process_name(&s, true, false, name);
	CHECK_EQ_STR(name, "app-42");
	frames__process_name(&s, true, true, name);
	CHECK_EQ_STR(name, "app-42/43");
	memcpy(s.thread, "worker", 7);
	frames__process_name(&s, false, true, name);
	CHECK_EQ_STR(name, "app-42/43 (worker)");
	memcpy(s.thread, "app", 4);
	frames__process_name(&s, true, true, name);
	CHECK_EQ_STR(name, "app-42/43");
}

int main(void)
{
	RUN(test_numbering);
	RUN(test_names);
	RUN(test_kinds);
	RUN(test_walk);
	RUN(test_process_name);
	return test_summary();
}
