// SPDX-License-Identifier: GPL-2.0-only
/*
 * The profile model (core/profile/profile.c): interning of locations and
 * mappings, merging of samples.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/profile/profile.h"
#include "core/session/session.h"
#include "test.h"
#include "test_profiles.h"

static void test_merge(void)
{
	struct profile *p = profile__new();
	uint64_t a[] = { 0x1010, 0x2020, 0x3030 };
	uint64_t b[] = { 0x1010, 0x2020 };
	uint64_t k[] = { 0xffffffff81000010ULL };
	const struct profile_sample *s;

	CHECK(p != NULL);
	CHECK_EQ_INT(add_stack(p, 10, 10, "app", a, 3, NULL, 0, 5), 0);
	CHECK_EQ_INT(add_stack(p, 10, 10, "app", a, 3, NULL, 0, 7), 0);
	CHECK_EQ_INT(add_stack(p, 10, 11, "app", a, 3, NULL, 0, 1), 0);	 /* other thread */
	CHECK_EQ_INT(add_stack(p, 10, 10, "app", b, 2, NULL, 0, 1), 0);	 /* shorter stack */
	CHECK_EQ_INT(add_stack(p, 10, 10, "app", a, 3, k, 1, 2), 0);	 /* with kernel frames */
	CHECK_EQ_INT(add_stack(p, 10, 10, "app2", a, 3, NULL, 0, 1), 0); /* other comm */
	CHECK_EQ_INT(profile__nr_samples(p), 5);
	CHECK_EQ_INT(profile__total(p), 17);
	s = profile__sample(p, 0);
	CHECK_EQ_INT(s->count, 12);
	CHECK_EQ_INT(s->nr_user, 3);
	CHECK_EQ_STR(s->comm, "app");
	/* Same (pid, addr) shares a location; leaf 0x1010 and callers are distinct kinds. */
	CHECK_EQ_INT(profile__nr_locations(p), 4);
	CHECK(profile__location(p, s->user[0])->return_addr == false);
	CHECK(profile__location(p, s->user[1])->return_addr == true);
	CHECK(profile__location(p, s->user[0])->mapping == PROFILE_NONE);
	CHECK(profile__sample(p, 5) == NULL);
	profile__free(p);
}

static void test_address_spaces(void)
{
	struct profile *p = profile__new();
	uint64_t a[] = { 0x1010 };

	/* The same address in two processes is two locations; in the kernel, one. */
	CHECK_EQ_INT(add_stack(p, 1, 1, "x", a, 1, NULL, 0, 1), 0);
	CHECK_EQ_INT(add_stack(p, 2, 2, "x", a, 1, NULL, 0, 1), 0);
	CHECK_EQ_INT(add_stack(p, 1, 1, "x", NULL, 0, a, 1, 1), 0);
	CHECK_EQ_INT(add_stack(p, 2, 2, "x", NULL, 0, a, 1, 1), 0);
	CHECK_EQ_INT(profile__nr_locations(p), 3);
	CHECK_EQ_INT(profile__nr_samples(p), 4);
	CHECK(profile__location(p, 2)->kernel);
	CHECK_EQ_INT(profile__location(p, 2)->pid, 0);
	profile__free(p);
}

static void test_comm(void)
{
	struct profile *p = profile__new();
	const char long_comm[16] = "0123456789abcdef"; /* no NUL, as BPF may give it */

	CHECK_EQ_INT(add_stack(p, 1, 1, long_comm, NULL, 0, NULL, 0, 1), 0);
	CHECK_EQ_INT(add_stack(p, 1, 1, NULL, NULL, 0, NULL, 0, 1), 0);
	CHECK_EQ_STR(profile__sample(p, 0)->comm, "0123456789abcde");
	CHECK_EQ_STR(profile__sample(p, 1)->comm, "");
	profile__free(p);
}

static void test_flags(void)
{
	struct profile *p = profile__new();
	uint64_t a[] = { 0x1010 };
	struct profile_stack st = { .pid = 1, .tid = 1, .comm = "x", .user_addrs = a, .nr_user = 1 };

	CHECK_EQ_INT(profile__add_stack(p, &st, 1), 0);
	st.flags = SAMPLE_COMPLETE;
	CHECK_EQ_INT(profile__add_stack(p, &st, 1), 0);
	CHECK_EQ_INT(profile__add_stack(p, &st, 1), 0);
	CHECK_EQ_INT(profile__nr_samples(p), 2);
	CHECK_EQ_INT(profile__sample(p, 1)->flags, SAMPLE_COMPLETE);
	CHECK_EQ_INT(profile__sample(p, 1)->count, 2);
	profile__free(p);
}

static void test_symbols_and_mappings(void)
{
	struct profile *p = profile__new();
	struct profile_mapping m = {
		.start = 0x1000,
		.limit = 0x2000,
		.offset = 0,
		.file = "/lib/libx.so",
		.build_id = "ab",
	};
	uint64_t a[] = { 0x1010 };
	uint32_t id1, id2, id3;

	CHECK_EQ_INT(profile__add_mapping(p, &m, &id1), 0);
	CHECK_EQ_INT(profile__add_mapping(p, &m, &id2), 0);
	m.build_id = NULL;
	CHECK_EQ_INT(profile__add_mapping(p, &m, &id3), 0);
	CHECK_EQ_INT(id1, id2);
	CHECK(id3 != id1);
	CHECK_EQ_INT(profile__nr_mappings(p), 2);
	CHECK_EQ_STR(profile__mapping(p, id1)->build_id, "ab");
	CHECK(profile__mapping(p, id3)->build_id == NULL);

	CHECK_EQ_INT(add_stack(p, 1, 1, "x", a, 1, NULL, 0, 1), 0);
	CHECK_EQ_INT(profile__set_symbol(p, 0, id1, "ns::f()", "_ZN2ns1fEv", 0x10), 0);
	CHECK_EQ_STR(profile__location(p, 0)->function, "ns::f()");
	CHECK_EQ_STR(profile__location(p, 0)->system_name, "_ZN2ns1fEv");
	CHECK_EQ_INT(profile__location(p, 0)->func_offset, 0x10);
	CHECK_EQ_INT(profile__set_symbol(p, 0, id1, NULL, NULL, 0), 0);
	CHECK(profile__location(p, 0)->function == NULL);
	CHECK_EQ_INT(profile__set_symbol(p, 7, id1, "f", "f", 0), -EINVAL);
	CHECK_EQ_INT(profile__set_symbol(p, 0, 9, "f", "f", 0), -EINVAL);
	profile__free(p);
}

/* The path report takes: mappings, locations, then samples by location id. */
static void test_by_ids(void)
{
	struct profile *p = profile__new();
	struct profile_mapping m = { .start = 0x400000, .limit = 0x500000, .file = "/bin/app" };
	struct profile_location loc = { .addr = 0x401000,
					.function = "main",
					.system_name = "main" };
	struct profile_sample s = { .pid = 3, .tid = 3, .comm = "app", .count = 4 };
	uint32_t ids[2], bad = 99;

	CHECK_EQ_INT(profile__add_mapping(p, &m, &loc.mapping), 0);
	CHECK_EQ_INT(profile__add_location(p, &loc, &ids[1]), 0);
	loc.addr = 0x401100;
	loc.function = loc.system_name = "work";
	CHECK_EQ_INT(profile__add_location(p, &loc, &ids[0]), 0);
	s.user = ids;
	s.nr_user = 2;
	CHECK_EQ_INT(profile__add_sample(p, &s), 0);
	CHECK_EQ_INT(profile__add_sample(p, &s), 0);
	CHECK_EQ_INT(profile__nr_samples(p), 1);
	CHECK_EQ_INT(profile__sample(p, 0)->count, 8);
	/* Another process with the same frames: a sample of its own, the same stack. */
	s.pid = s.tid = 4;
	CHECK_EQ_INT(profile__add_sample(p, &s), 0);
	CHECK_EQ_INT(profile__nr_samples(p), 2);
	CHECK(profile__sample(p, 1)->user == profile__sample(p, 0)->user);
	/* The same ids split otherwise between user and kernel: another stack. */
	s.nr_user = 1;
	s.kernel = &ids[1];
	s.nr_kernel = 1;
	CHECK_EQ_INT(profile__add_sample(p, &s), 0);
	CHECK_EQ_INT(profile__nr_samples(p), 3);
	CHECK(profile__sample(p, 2)->user != profile__sample(p, 0)->user);
	CHECK_EQ_INT(profile__sample(p, 2)->kernel[0], ids[1]);
	s.user = &bad;
	s.nr_user = 1;
	s.nr_kernel = 0;
	CHECK_EQ_INT(profile__add_sample(p, &s), -EINVAL);
	loc.mapping = 5;
	CHECK_EQ_INT(profile__add_location(p, &loc, &ids[0]), -EINVAL);
	profile__free(p);
}

/* Enough distinct entries to grow every index several times. */
static void test_many(void)
{
	struct profile *p = profile__new();
	int err = 0;

	for (uint64_t i = 0; i < 5000 && !err; i++) {
		uint64_t st[3] = { 0x1000 + i % 700, 0x2000 + i % 13, 0x3000 };

		err = add_stack(p, 1, 1, "x", st, 3, NULL, 0, 1);
	}
	for (uint64_t i = 0; i < 5000 && !err; i++) {
		uint64_t st[3] = { 0x1000 + i % 700, 0x2000 + i % 13, 0x3000 };

		err = add_stack(p, 1, 1, "x", st, 3, NULL, 0, 1);
	}
	CHECK_EQ_INT(err, 0);
	CHECK_EQ_INT(profile__nr_samples(p), 700 * 13 > 5000 ? 5000 : 700 * 13);
	CHECK_EQ_INT(profile__total(p), 10000);
	CHECK_EQ_INT(profile__sample(p, 4999)->count, 2);
	profile__free(p);
	profile__free(NULL);
}

int main(void)
{
	RUN(test_merge);
	RUN(test_address_spaces);
	RUN(test_comm);
	RUN(test_flags);
	RUN(test_symbols_and_mappings);
	RUN(test_by_ids);
	RUN(test_many);
	return test_summary();
}
