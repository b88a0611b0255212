// SPDX-License-Identifier: GPL-2.0-only
/* Demangling: C++ Itanium names, Rust legacy names, and names left alone. */
#include <errno.h>
#include <stdlib.h>

#include "core/demangle.h"
#include "test.h"

static void check_demangle(const char *mangled, const char *expected)
{
	char *out = demangle__name(mangled);

	CHECK_EQ_STR(out, expected);
	free(out);
}

static void test_cxx(void)
{
	check_demangle("_Z3fooi", "foo(int)");
	check_demangle("_ZN2ns5Klass6methodEv", "ns::Klass::method()");
	check_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi",
		       "std::vector<int, std::allocator<int> >::push_back(int const&)");
	check_demangle("_ZN12_GLOBAL__N_14leafEPKc", "(anonymous namespace)::leaf(char const*)");
	check_demangle("_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const");
}

static void test_rust_legacy(void)
{
	/* The trailing hash is dropped, as rustc-demangle does. */
	check_demangle("_ZN4core3ptr13drop_in_place17h0123456789abcdefE",
		       "core::ptr::drop_in_place");
	check_demangle("_ZN3std2rt10lang_start17hcafebabe12345678E", "std::rt::lang_start");
	/* Not a hash (15 digits): kept. */
	check_demangle("_ZN3foo16h0123456789abcdeE", "foo::h0123456789abcde");
}

static void test_not_mangled(void)
{
	char *out;

	errno = 0;
	out = demangle__name("main");
	CHECK(out == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	/* A bare type code is not a symbol: "i" stays "i". */
	CHECK(demangle__name("i") == NULL);
	CHECK(demangle__name("") == NULL);
	CHECK(demangle__name(NULL) == NULL);
	/* Looks mangled but is not valid. */
	errno = 0;
	out = demangle__name("_Z");
	CHECK(out == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	CHECK(demangle__name("_ZZZZ") == NULL);
}

int main(void)
{
	RUN(test_cxx);
	RUN(test_rust_legacy);
	RUN(test_not_mangled);
	return test_summary();
}
