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
	c->jw = c->f ? json_writer__new(c->f, pretty) : NULL;
}

/* Frees the writer, checks its result and the text written, then cleans up. */
static void cap_check(struct capture *c, int want_err, const char *want)
{
	CHECK_EQ_INT(json_writer__free(c->jw), want_err);
	fclose(c->f);
	CHECK_EQ_STR(c->buf, want);
	free(c->buf);
}

static void test_nesting_and_commas(void)
{
	struct capture c;

	cap_open(&c, false);
	jw_object_start(c.jw);
	jw_key(c.jw, "schema");
	jw_uint(c.jw, 1);
	jw_key(c.jw, "list");
	jw_array_start(c.jw);
	jw_uint(c.jw, 1);
	jw_array_start(c.jw);
	jw_array_end(c.jw);
	jw_object_start(c.jw);
	jw_object_end(c.jw);
	jw_object_start(c.jw);
	jw_key(c.jw, "a");
	jw_null(c.jw);
	jw_key(c.jw, "b");
	jw_bool(c.jw, false);
	jw_object_end(c.jw);
	jw_array_end(c.jw);
	jw_key(c.jw, "t");
	jw_bool(c.jw, true);
	jw_object_end(c.jw);
	cap_check(&c, 0, "{\"schema\":1,\"list\":[1,[],{},{\"a\":null,\"b\":false}],\"t\":true}\n");
}

static void test_pretty(void)
{
	struct capture c;

	cap_open(&c, true);
	jw_object_start(c.jw);
	jw_key(c.jw, "a");
	jw_array_start(c.jw);
	jw_int(c.jw, -1);
	jw_string(c.jw, "x");
	jw_array_end(c.jw);
	jw_key(c.jw, "e");
	jw_object_start(c.jw);
	jw_object_end(c.jw);
	jw_object_end(c.jw);
	cap_check(&c, 0, "{\n  \"a\": [\n    -1,\n    \"x\"\n  ],\n  \"e\": {}\n}\n");
}

static void test_escaping(void)
{
	struct capture c;

	cap_open(&c, false);
	jw_array_start(c.jw);
	jw_string(c.jw, "quote \" backslash \\ slash /");
	jw_string(c.jw, "\b\f\n\r\t\x01\x1f\x7f");
	jw_string(c.jw, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* é € 😀 pass through */
	jw_string(c.jw, "bad \xff \xc3 \xe2\x82 end");		      /* invalid bytes */
	jw_string(c.jw,
		  "\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80"); /* overlong, surrogate, >10FFFF */
	jw_string(c.jw, "");
	jw_string(c.jw, NULL);
	jw_stringf(c.jw, "%s-%d", "pc", 42);
	jw_array_end(c.jw);
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
	jw_object_start(c.jw);
	jw_key(c.jw, "a\"b\n");
	jw_uint(c.jw, 0);
	jw_object_end(c.jw);
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
	jw_stringf(c.jw, "<%s>", arg);
	cap_check(&c, 0, want);
}

static void test_numbers(void)
{
	struct capture c;

	cap_open(&c, false);
	jw_array_start(c.jw);
	jw_uint(c.jw, 0);
	jw_uint(c.jw, UINT64_MAX);
	jw_int(c.jw, INT64_MIN);
	jw_double(c.jw, 0.1);
	jw_double(c.jw, 1.5);
	jw_double(c.jw, -2.0);
	jw_double(c.jw, 1e300);
	jw_double(c.jw, 1.0 / 3.0);
	jw_double(c.jw, NAN);
	jw_double(c.jw, INFINITY);
	jw_array_end(c.jw);
	cap_check(&c, 0,
		  "[0,18446744073709551615,-9223372036854775808,0.1,1.5,-2,1e+300,"
		  "0.3333333333333333,null,null]\n");
}

static void test_misuse(void)
{
	struct capture c;

	/* Unclosed object. */
	cap_open(&c, false);
	jw_object_start(c.jw);
	cap_check(&c, -EINVAL, "{\n");

	/* A value without a key inside an object. */
	cap_open(&c, false);
	jw_object_start(c.jw);
	jw_uint(c.jw, 1);
	jw_object_end(c.jw);
	cap_check(&c, -EINVAL, "{1}\n");

	/* Two top-level values. */
	cap_open(&c, false);
	jw_uint(c.jw, 1);
	jw_uint(c.jw, 2);
	cap_check(&c, -EINVAL, "12\n");

	/* Mismatched close. */
	cap_open(&c, false);
	jw_array_start(c.jw);
	jw_object_end(c.jw);
	jw_array_end(c.jw);
	cap_check(&c, -EINVAL, "[}]\n");

	CHECK_EQ_INT(json_writer__free(NULL), 0);
}

static void test_write_error(void)
{
	struct json_writer *jw;
	FILE *f = fopen("/dev/full", "w");

	if (!f) {
		SKIP("no /dev/full");
		return;
	}
	jw = json_writer__new(f, false);
	CHECK(jw != NULL);
	jw_object_start(jw);
	jw_key(jw, "k");
	jw_string(jw, "v");
	jw_object_end(jw);
	CHECK_EQ_INT(json_writer__free(jw), -EIO);
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
