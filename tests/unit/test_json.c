// SPDX-License-Identifier: GPL-2.0-only
/* The JSON writer (core/util/json.c): commas, nesting, escaping, numbers, pretty mode, errors. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/json.h"
#include "test.h"

struct capture {
	char *buf;
	size_t len;
	FILE *f;
	struct json_writer *jw;
};

static void cap_open(struct capture *c, bool pretty)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	c->jw = c->f ? json__new(c->f, pretty) : NULL;
}

/* Frees the writer, checks its result and the text written, then cleans up. */
static void cap_check(struct capture *c, int want_err, const char *want)
{
	CHECK_EQ_INT(json__free(c->jw), want_err);
	fclose(c->f);
	CHECK_EQ_STR(c->buf, want);
	free(c->buf);
}

static void test_nesting_and_commas(void)
{
	struct capture c;

	cap_open(&c, false);
	json__object_start(c.jw);
	json__key(c.jw, "schema");
	json__uint(c.jw, 1);
	json__key(c.jw, "list");
	json__array_start(c.jw);
	json__uint(c.jw, 1);
	json__array_start(c.jw);
	json__array_end(c.jw);
	json__object_start(c.jw);
	json__object_end(c.jw);
	json__object_start(c.jw);
	json__key(c.jw, "a");
	json__null(c.jw);
	json__key(c.jw, "b");
	json__bool(c.jw, false);
	json__object_end(c.jw);
	json__array_end(c.jw);
	json__key(c.jw, "t");
	json__bool(c.jw, true);
	json__object_end(c.jw);
	cap_check(&c, 0, "{\"schema\":1,\"list\":[1,[],{},{\"a\":null,\"b\":false}],\"t\":true}\n");
}

static void test_pretty(void)
{
	struct capture c;

	cap_open(&c, true);
	json__object_start(c.jw);
	json__key(c.jw, "a");
	json__array_start(c.jw);
	json__int(c.jw, -1);
	json__string(c.jw, "x");
	json__array_end(c.jw);
	json__key(c.jw, "e");
	json__object_start(c.jw);
	json__object_end(c.jw);
	json__object_end(c.jw);
	cap_check(&c, 0, "{\n  \"a\": [\n    -1,\n    \"x\"\n  ],\n  \"e\": {}\n}\n");
}

static void test_escaping(void)
{
	struct capture c;

	cap_open(&c, false);
	json__array_start(c.jw);
	json__string(c.jw, "quote \" backslash \\ slash /");
	json__string(c.jw, "\b\f\n\r\t\x01\x1f\x7f");
	json__string(c.jw, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* é € 😀 pass through */
	json__string(c.jw, "bad \xff \xc3 \xe2\x82 end");		 /* invalid bytes */
	json__string(c.jw,
		     "\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80"); /* overlong, surrogate, >10FFFF */
	json__string(c.jw, "");
	json__string(c.jw, NULL);
	json__stringf(c.jw, "%s-%d", "pc", 42);
	json__array_end(c.jw);
	cap_check(&c, 0,
		  "[\"quote \\\" backslash \\\\ slash /\","
		  "\"\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\","
		  "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\","
		  "\"bad \\ufffd \\ufffd \\ufffd\\ufffd end\","
		  "\"\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd\\ufffd\","
		  "\"\",null,\"pc-42\"]\n");
}

static void test_keys_are_escaped(void)
{
	struct capture c;

	cap_open(&c, false);
	json__object_start(c.jw);
	json__key(c.jw, "a\"b\n");
	json__uint(c.jw, 0);
	json__object_end(c.jw);
	cap_check(&c, 0, "{\"a\\\"b\\n\":0}\n");
}

static void test_long_stringf(void)
{
	char want[1200], arg[1001];
	struct capture c;

	memset(arg, 'x', 1000);
	arg[1000] = '\0';
	snprintf(want, sizeof(want), "\"<%s>\"\n", arg);
	cap_open(&c, false);
	json__stringf(c.jw, "<%s>", arg);
	cap_check(&c, 0, want);
}

static void test_numbers(void)
{
	struct capture c;

	cap_open(&c, false);
	json__array_start(c.jw);
	json__uint(c.jw, 0);
	json__uint(c.jw, UINT64_MAX);
	json__int(c.jw, INT64_MIN);
	json__double(c.jw, 0.1);
	json__double(c.jw, 1.5);
	json__double(c.jw, -2.0);
	json__double(c.jw, 1e300);
	json__double(c.jw, 1.0 / 3.0);
	json__double(c.jw, NAN);
	json__double(c.jw, INFINITY);
	json__array_end(c.jw);
	cap_check(&c, 0,
		  "[0,18446744073709551615,-9223372036854775808,0.1,1.5,-2,1e+300,"
		  "0.3333333333333333,null,null]\n");
}

static void test_misuse(void)
{
	struct capture c;

	/* Unclosed object. */
	cap_open(&c, false);
	json__object_start(c.jw);
	cap_check(&c, -EINVAL, "{\n");

	/* A value without a key inside an object. */
	cap_open(&c, false);
	json__object_start(c.jw);
	json__uint(c.jw, 1);
	json__object_end(c.jw);
	cap_check(&c, -EINVAL, "{1}\n");

	/* Two top-level values. */
	cap_open(&c, false);
	json__uint(c.jw, 1);
	json__uint(c.jw, 2);
	cap_check(&c, -EINVAL, "12\n");

	/* Mismatched close. */
	cap_open(&c, false);
	json__array_start(c.jw);
	json__object_end(c.jw);
	json__array_end(c.jw);
	cap_check(&c, -EINVAL, "[}]\n");

	CHECK_EQ_INT(json__free(NULL), 0);
}

static void test_write_error(void)
{
	struct json_writer *jw;
	FILE *f = fopen("/dev/full", "w");

	if (!f) {
		SKIP("no /dev/full");
		return;
	}
	jw = json__new(f, false);
	CHECK(jw != NULL);
	json__object_start(jw);
	json__key(jw, "k");
	json__string(jw, "v");
	json__object_end(jw);
	CHECK_EQ_INT(json__free(jw), -EIO);
	fclose(f);
}

int main(void)
{
	RUN(test_nesting_and_commas);
	RUN(test_pretty);
	RUN(test_escaping);
	RUN(test_keys_are_escaped);
	RUN(test_long_stringf);
	RUN(test_numbers);
	RUN(test_misuse);
	RUN(test_write_error);
	return test_summary();
}
