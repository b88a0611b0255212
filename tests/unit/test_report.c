// SPDX-License-Identifier: GPL-2.0-only
/*
 * Folded reading (core/profile/folded_read.c) and the report views
 * (core/profile/report.c): prefixes and kernel frames read back to the same
 * lines, malformed lines refused, self and total counts (a recursive function
 * counted once per sample), the tree's order, filters, the diff's order and
 * threshold, and inlined functions and source lines (frames of their own,
 * marked in the tree, counted by line).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "core/profile/folded.h"
#include "core/profile/folded_read.h"
#include "core/util/log.h"
#include "core/profile/profile.h"
#include "core/profile/report.h"
#include "core/profile/report_diff.h"
#include "test.h"

static struct profile *read_str(const char *text, struct folded_read_info *info, int expect)
{
	struct profile *p = profile__new();

	CHECK_EQ_INT(folded_read__parse(text, strlen(text), "test", p, info), expect);
	return p;
}

static char *folded_str(const struct profile *p, const struct folded_opts *opts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	CHECK_EQ_INT(folded__write(f, p, opts), 0);
	fclose(f);
	return buf;
}

/* Reading text and writing it again with the prefixes it had gives the same text. */
static void check_round_trip(const char *text, bool pid, bool tid)
{
	struct folded_read_info info;
	struct profile *p = read_str(text, &info, 0);
	struct folded_opts opts = { .pid = info.pid, .tid = info.tid, .kernel = true };
	char *out = folded_str(p, &opts);

	CHECK_EQ_INT(info.pid, pid);
	CHECK_EQ_INT(info.tid, tid);
	CHECK_EQ_STR(out, text);
	free(out);
	profile__free(p);
}

static void test_folded_round_trip(void)
{
	check_round_trip("app;main;run 3\n"
			 "app;main;run;entry_SYSCALL_64_[k];ksys_read_[k] 7\n"
			 "kworker/0:1-ev;worker_thread_[k] 1\n",
			 false, false);
	check_round_trip("app-10;main;run 3\nzeta-20;[libc.so.6+0x1f2e0];[unknown] 2\n", true,
			 false);
	check_round_trip("app-10/11;main;operator new(unsigned long) 3\n"
			 "app-10/12;main;run 4\n",
			 true, true);
	/* a "_[k]" frame followed by user frames is not a kernel frame */
	check_round_trip("app;odd_[k];main 2\n", false, false);
	/* threads with names of their own, even with " (" in them */
	check_round_trip("app (x)-10/11 (io (2));main 3\n"
			 "app (x)-10/12 (worker);main 4\n"
			 "app (x)-10/13;main 5\n",
			 true, true);
}

/* The process's name first; the thread's with --tid; --comm matches either. */
static void test_thread_names(void)
{
	struct folded_read_info info;
	struct profile *p =
		read_str("app-10/11 (worker);main;work 3\napp-10/10;main 4\n", &info, 0);
	struct report_filter f = { .comm = "worker" };
	struct folded_opts plain = { .kernel = true };
	struct profile *q;
	char *out;

	CHECK(info.tid);
	CHECK_EQ_STR(profile__sample(p, 0)->comm, "app");
	CHECK_EQ_STR(profile__sample(p, 0)->thread, "worker");
	out = folded_str(p, &plain);
	CHECK_EQ_STR(out, "app;main 4\napp;main;work 3\n");
	free(out);
	q = report__filter(p, &f);
	CHECK_EQ_INT(profile__total(q), 3);
	profile__free(q);
	f.comm = "app";
	q = report__filter(p, &f);
	CHECK_EQ_INT(profile__total(q), 7);
	profile__free(q);
	profile__free(p);
}

static void test_folded_parse(void)
{
	struct folded_read_info info;
	struct profile *p;
	int saved = log_level;

	/* blank lines, CRLF, tabs before the count; counts merge */
	p = read_str("app;main 2\r\n\n  \napp;main\t3\n", &info, 0);
	CHECK_EQ_INT(profile__total(p), 5);
	CHECK_EQ_INT(profile__nr_samples(p), 1);
	profile__free(p);
	log_level = -1;
	p = read_str("app;main\n", &info, -EBADMSG);
	profile__free(p);
	p = read_str("app;main x12\n", &info, -EBADMSG);
	profile__free(p);
	p = read_str("just some text\n", &info, -EBADMSG);
	profile__free(p);
	p = read_str("app;main 99999999999999999999999\n", &info, -EBADMSG);
	profile__free(p);
	log_level = saved;
	CHECK(folded_read__is_text("a;b 1\n", 6));
	CHECK(!folded_read__is_text("a\0b", 3));
}

static const struct report_func *find_func(const struct report *r, const char *name)
{
	for (size_t i = 0; i < report__nr_funcs(r); i++)
		if (strcmp(report__func(r, i)->name, name) == 0)
			return report__func(r, i);
	return NULL;
}

static void test_top(void)
{
	struct folded_read_info info;
	struct profile *p = read_str("app-1;main;fib;fib;fib 6\n"
				     "app-1;main;fib;leaf 2\n"
				     "app-1;main 1\n"
				     "app-1;main;read_[k] 1\n",
				     &info, 0);
	struct report *r = report__new_by(p, false);
	const struct report_func *f;

	CHECK_EQ_INT(report__total(r), 10);
	f = find_func(r, "fib");
	CHECK(f && f->self == 6 && f->total == 8); /* recursion counted once */
	f = find_func(r, "main");
	CHECK(f && f->self == 1 && f->total == 10);
	f = find_func(r, "read");
	CHECK(f && f->self == 1 && f->total == 1);
	report__sort(r, REPORT_SORT_SELF);
	CHECK_EQ_STR(report__func(r, 0)->name, "fib");
	CHECK_EQ_STR(report__func(r, 1)->name, "leaf");
	report__sort(r, REPORT_SORT_TOTAL);
	CHECK_EQ_STR(report__func(r, 0)->name, "main");
	CHECK_EQ_STR(report__func(r, 1)->name, "fib");
	report__free(r);
	profile__free(p);
}

static void test_tree(void)
{
	struct folded_read_info info;
	struct profile *p = read_str("app;main;a 1\napp;main;b;c 5\napp;main 2\n", &info, 0);
	struct report *r = report__new_by(p, false);
	const struct report_node *root = report__root(r), *main_node, *b;

	CHECK_EQ_INT(root->total, 8);
	CHECK_EQ_INT(root->nr_children, 1);
	main_node = report__child(r, root, 0);
	CHECK_EQ_STR(report__func_name(r, main_node->func), "main");
	CHECK_EQ_INT(main_node->self, 2);
	CHECK_EQ_INT(main_node->nr_children, 2);
	b = report__child(r, main_node, 0); /* the largest child first */
	CHECK_EQ_STR(report__func_name(r, b->func), "b");
	CHECK_EQ_INT(b->total, 5);
	CHECK_EQ_STR(report__func_name(r, report__child(r, main_node, 1)->func), "a");
	CHECK(report__child(r, main_node, 2) == NULL);
	report__free(r);
	profile__free(p);
}

/* app;main;run where run's leaf location holds mix_word, inlined there. */
static struct profile *inlined_profile(void)
{
	static const struct profile_line lines[] = {
		{ "mix_word", "mix_word", "/src/a.c", 22, 20 },
		{ "run", "run", "/src/a.c", 39, 33 },
	};
	struct folded_read_info info;
	struct profile *p = read_str("app;main;run 4\napp;main 1\n", &info, 0);

	for (uint32_t i = 0; i < profile__nr_locations(p); i++)
		if (strcmp(profile__location(p, i)->function, "run") == 0)
			CHECK_EQ_INT(profile__set_lines(p, i, lines, 2), 0);
	return p;
}

static void test_inlined(void)
{
	struct report_filter none = { 0 };
	struct profile *all = inlined_profile(), *p = report__filter(all, &none);
	struct report *r = report__new_by(p, false), *by_line = report__new_by(p, true);
	const struct report_node *main_node, *run, *mix;
	const struct report_func *f;

	f = find_func(r, "mix_word");
	CHECK(f && f->self == 4 && f->total == 4);
	f = find_func(r, "run");
	CHECK(f && f->self == 0 && f->total == 4);
	main_node = report__child(r, report__root(r), 0);
	run = report__child(r, main_node, 0);
	CHECK_EQ_STR(report__func_name(r, run->func), "run");
	CHECK(!run->inlined);
	mix = report__child(r, run, 0);
	CHECK(mix != NULL);
	if (mix) {
		CHECK_EQ_STR(report__func_name(r, mix->func), "mix_word");
		CHECK(mix->inlined);
		CHECK_EQ_INT(mix->self, 4);
	}
	f = find_func(by_line, "mix_word /src/a.c:22");
	CHECK(f && f->self == 4);
	f = find_func(by_line, "run /src/a.c:39");
	CHECK(f && f->self == 0 && f->total == 4);
	CHECK(find_func(by_line, "main") != NULL); /* no line: its name */
	report__free(r);
	report__free(by_line);
	profile__free(p);
	profile__free(all);
}

static void test_filter(void)
{
	struct folded_read_info info;
	struct profile *p = read_str("app-1;main;run 3\napp-2;main;run;sys_[k] 4\n"
				     "other-3;main 5\n",
				     &info, 0);
	struct report_filter f = { .has_pid = true, .pid = 2 };
	struct profile *q = report__filter(p, &f);

	CHECK_EQ_INT(profile__total(q), 4);
	profile__free(q);
	f = (struct report_filter){ .comm = "app", .no_kernel = true };
	q = report__filter(p, &f);
	CHECK_EQ_INT(profile__total(q), 7);
	for (size_t i = 0; i < profile__nr_samples(q); i++)
		CHECK_EQ_INT(profile__sample(q, i)->nr_kernel, 0);
	profile__free(q);
	profile__free(p);
}

static void test_diff(void)
{
	struct folded_read_info info;
	/* run_slow made 3x slower: 10 -> 30 samples, the rest unchanged */
	struct profile *base = read_str("app;main;run_fast;work 10\n"
					"app;main;run_slow;work_slow 10\n"
					"app;main;idle 20\n",
					&info, 0);
	struct profile *cur = read_str("app;main;run_fast;work 10\n"
				       "app;main;run_slow;work_slow 30\n"
				       "app;main;idle 20\n"
				       "app;main;brand_new 1\n",
				       &info, 0);
	struct report *rb = report__new_by(base, false), *rc = report__new_by(cur, false);
	struct report_diff *d = report_diff__new(rb, rc, NULL);

	CHECK(d != NULL);
	CHECK_EQ_INT(d->base_total, 40);
	CHECK_EQ_INT(d->total, 61);
	CHECK(!d->timed);
	/* main grew most (brand_new too), then work_slow, whose self grew, then run_slow */
	CHECK_EQ_STR(d->rows[0].name, "main");
	CHECK_EQ_STR(d->rows[1].name, "work_slow");
	CHECK_EQ_STR(d->rows[2].name, "run_slow");
	CHECK(d->rows[1].delta_total_time == 20 && d->rows[1].delta_self_time == 20);
	CHECK(d->rows[1].delta_of_base == 50);
	CHECK(d->rows[1].delta_total > 20 && d->rows[1].delta_total < 25);
	CHECK(d->rows[1].ratio == 3);
	/* 10 -> 30 of 40: p = P(X >= 30 | 40, 1/2) = 0.0011, below 1% over 5 functions */
	CHECK(d->rows[1].p_increase > 0.001 && d->rows[1].p_increase < 0.0012);
	CHECK(d->rows[1].change == REPORT_INCREASE);
	CHECK(report_diff__exceeds(d, 40));
	CHECK(!report_diff__exceeds(d, 55));
	/* the whole profile, 40 -> 61: p = 0.02, within the noise at 99% */
	CHECK(d->change == REPORT_SAME);
	CHECK(!report_diff__total_exceeds(d, 10));
	for (size_t i = 0; i < d->nr; i++) {
		if (strcmp(d->rows[i].name, "brand_new") == 0)
			CHECK(isinf(d->rows[i].ratio) && d->rows[i].change == REPORT_SAME);
		if (strcmp(d->rows[i].name, "work") == 0)
			CHECK(d->rows[i].ratio == 1 && d->rows[i].change == REPORT_SAME);
	}
	/* 40 samples cannot tell 10% from noise */
	CHECK(report_diff__detectable(d) > 50);
	report_diff__free(d);
	report__free(rb);
	report__free(rc);
	profile__free(base);
	profile__free(cur);
}

static void test_diff_timed(void)
{
	struct folded_read_info info;
	/* the same work at 100 Hz and at 1000 Hz: no change of time */
	struct profile *base = read_str("app;main;work 100\n", &info, 0);
	struct profile *cur = read_str("app;main;work 1000\n", &info, 0);
	struct report *rb = report__new_by(base, false), *rc = report__new_by(cur, false);
	struct report_diff_opts opts = { .base_period_ns = 10000000, .period_ns = 1000000 };
	struct report_diff *d = report_diff__new(rb, rc, &opts);

	CHECK(d != NULL && d->timed);
	CHECK(d->base_time == 1e9 && d->time == 1e9);
	CHECK(d->rows[0].delta_total_time == 0 && d->rows[0].change == REPORT_SAME);
	CHECK(d->change == REPORT_SAME);
	report_diff__free(d);
	report__free(rb);
	report__free(rc);
	profile__free(base);
	profile__free(cur);
}

static void test_binomial(void)
{
	CHECK(fabs(report_diff__binomial_ge(10, 5, 0.5) - 0.623046875) < 1e-12);
	CHECK(fabs(report_diff__binomial_ge(10, 10, 0.5) - 1.0 / 1024) < 1e-15);
	CHECK(report_diff__binomial_ge(10, 0, 0.5) == 1);
	CHECK(report_diff__binomial_ge(10, 11, 0.5) == 0);
	/* far in the tail, and a large n */
	CHECK(report_diff__binomial_ge(100000, 51000, 0.5) < 1e-9);
	CHECK(fabs(report_diff__binomial_ge(100000, 50000, 0.5) - 0.5) < 0.01);
}

int main(void)
{
	RUN(test_folded_round_trip);
	RUN(test_folded_parse);
	RUN(test_thread_names);
	RUN(test_top);
	RUN(test_tree);
	RUN(test_filter);
	RUN(test_inlined);
	RUN(test_diff);
	RUN(test_diff_timed);
	RUN(test_binomial);
	return test_summary();
}
