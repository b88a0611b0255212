// SPDX-License-Identifier: GPL-2.0-only
/*
 * Streaming JSON writer. Each nesting level remembers whether it has had a
 * member yet, which decides the comma; a key leaves the writer expecting its
 * value. Strings are written as UTF-8: valid multi-byte sequences pass
 * through, control characters are escaped, and bytes that are not valid
 * UTF-8 (a file name in another encoding) become U+FFFD so the output always
 * parses.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/*
 * A writer is used from one thread; the _unlocked stdio calls save a lock per
 * character or token, most of the time of a million-row dump.
 */
#define JW_MAX_DEPTH 64

struct json_writer {
	FILE *out;
	bool pretty;
	bool misuse;	/* unbalanced nesting or a key outside an object */
	bool after_key; /* a key was written, its value comes next */
	bool wrote_top; /* a top-level value was written */
	int depth;
	bool is_object[JW_MAX_DEPTH];
	bool has_member[JW_MAX_DEPTH];
};

struct json_writer *json__new(FILE *out, bool pretty)
{
	struct json_writer *jw;

	if (!out) {
		errno = EINVAL;
		return NULL;
	}
	jw = calloc(1, sizeof(*jw));
	if (!jw)
		return NULL;
	jw->out = out;
	jw->pretty = pretty;
	return jw;
}

/*
 * Returns -EIO when a write failed (the stream is flushed here, so errors in
 * buffered data show now), -EINVAL when the calls did not form one balanced
 * value, else 0. The stream stays open: it belongs to the caller.
 */
int json__free(struct json_writer *jw)
{
	int err = 0;

	if (!jw)
		return 0;
	if (jw->wrote_top)
		putc_unlocked('\n', jw->out);
	if (fflush(jw->out) != 0 || ferror(jw->out))
		err = -EIO;
	else if (jw->misuse || jw->depth != 0 || jw->after_key)
		err = -EINVAL;
	free(jw);
	return err;
}

static void json__newline(struct json_writer *jw)
{
	putc_unlocked('\n', jw->out);
	for (int i = 0; i < jw->depth; i++)
		fputs_unlocked("  ", jw->out);
}

/* Separator and indentation before a value or a key at the current level. */
static void json__before(struct json_writer *jw, bool is_key)
{
	int d = jw->depth;

	if (jw->after_key) {
		if (is_key)
			jw->misuse = true;
		jw->after_key = false;
		return;
	}
	if (d == 0) {
		if (jw->wrote_top || is_key)
			jw->misuse = true;
		jw->wrote_top = true;
		return;
	}
	/* Inside an object every member starts with a key. */
	if (jw->is_object[d - 1] != is_key)
		jw->misuse = true;
	if (jw->has_member[d - 1])
		putc_unlocked(',', jw->out);
	jw->has_member[d - 1] = true;
	if (jw->pretty)
		json__newline(jw);
}

static void json__open(struct json_writer *jw, bool object)
{
	json__before(jw, false);
	putc_unlocked(object ? '{' : '[', jw->out);
	if (jw->depth == JW_MAX_DEPTH) {
		jw->misuse = true;
		return;
	}
	jw->is_object[jw->depth] = object;
	jw->has_member[jw->depth] = false;
	jw->depth++;
}

static void json__close(struct json_writer *jw, bool object)
{
	bool had_members;

	if (jw->depth == 0 || jw->is_object[jw->depth - 1] != object || jw->after_key) {
		jw->misuse = true;
		putc_unlocked(object ? '}' : ']', jw->out);
		return;
	}
	had_members = jw->has_member[jw->depth - 1];
	jw->depth--;
	if (jw->pretty && had_members)
		json__newline(jw);
	putc_unlocked(object ? '}' : ']', jw->out);
}

void json__object_start(struct json_writer *jw)
{
	json__open(jw, true);
}

void json__object_end(struct json_writer *jw)
{
	json__close(jw, true);
}

void json__array_start(struct json_writer *jw)
{
	json__open(jw, false);
}

void json__array_end(struct json_writer *jw)
{
	json__close(jw, false);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;

	if (c < 0xc2 || c > 0xf4)
		return 0; /* continuation byte, overlong 2-byte lead, or beyond U+10FFFF */
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	cp = c & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void json__escape(struct json_writer *jw, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), run = 0, i = 0;
	FILE *out = jw->out;

	putc_unlocked('"', out);
	while (i < n) {
		unsigned char c = s[i];
		size_t len;

		/* Plain printable ASCII goes out in runs. */
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			run++;
			i++;
			continue;
		}
		if (run)
			fwrite_unlocked(s + i - run, 1, run, out);
		run = 0;
		if (c >= 0x80) {
			len = utf8_len(s + i, n - i);
			if (len)
				fwrite_unlocked(s + i, 1, len, out);
			else
				fputs_unlocked("\\ufffd", out);
			i += len ? len : 1;
			continue;
		}
		switch (c) {
		case '"':
			fputs_unlocked("\\\"", out);
			break;
		case '\\':
			fputs_unlocked("\\\\", out);
			break;
		case '\b':
			fputs_unlocked("\\b", out);
			break;
		case '\f':
			fputs_unlocked("\\f", out);
			break;
		case '\n':
			fputs_unlocked("\\n", out);
			break;
		case '\r':
			fputs_unlocked("\\r", out);
			break;
		case '\t':
			fputs_unlocked("\\t", out);
			break;
		default:
			fprintf(out, "\\u%04x", c);
			break;
		}
		i++;
	}
	if (run)
		fwrite_unlocked(s + i - run, 1, run, out);
	putc_unlocked('"', out);
}

void json__key(struct json_writer *jw, const char *key)
{
	json__before(jw, true);
	json__escape(jw, key ? key : "");
	fputs_unlocked(jw->pretty ? ": " : ":", jw->out);
	jw->after_key = true;
}

void json__string(struct json_writer *jw, const char *s)
{
	if (!s) {
		json__null(jw);
		return;
	}
	json__before(jw, false);
	json__escape(jw, s);
}

void json__stringf(struct json_writer *jw, const char *fmt, ...)
{
	char small[256], *buf = small;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		jw->misuse = true;
		json__null(jw);
		return;
	}
	if ((size_t)n >= sizeof(small)) {
		buf = malloc((size_t)n + 1);
		if (!buf) {
			jw->misuse = true;
			json__null(jw);
			return;
		}
		va_start(ap, fmt);
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	json__string(jw, buf);
	if (buf != small)
		free(buf);
}

/* Decimal digits of v, with a minus sign when negative. */
static void json__number(struct json_writer *jw, uint64_t v, bool negative)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	if (negative)
		*--p = '-';
	json__before(jw, false);
	fwrite_unlocked(p, 1, buf + sizeof(buf) - p, jw->out);
}

void json__uint(struct json_writer *jw, uint64_t v)
{
	json__number(jw, v, false);
}

void json__int(struct json_writer *jw, int64_t v)
{
	/* The magnitude computed in unsigned arithmetic, so INT64_MIN works too. */
	json__number(jw, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

/* The shortest of %.15g..%.17g that reads back as v; JSON has no NaN or infinity. */
void json__double(struct json_writer *jw, double v)
{
	char buf[40];

	if (!isfinite(v)) {
		json__null(jw);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	json__before(jw, false);
	fputs_unlocked(buf, jw->out);
}

void json__bool(struct json_writer *jw, bool v)
{
	json__before(jw, false);
	fputs_unlocked(v ? "true" : "false", jw->out);
}

void json__null(struct json_writer *jw)
{
	json__before(jw, false);
	fputs_unlocked("null", jw->out);
}

void json__string_field(struct json_writer *jw, const char *key, const char *s)
{
	json__key(jw, key);
	json__string(jw, s);
}

void json__uint_field(struct json_writer *jw, const char *key, uint64_t v)
{
	json__key(jw, key);
	json__uint(jw, v);
}

void json__int_field(struct json_writer *jw, const char *key, int64_t v)
{
	json__key(jw, key);
	json__int(jw, v);
}

void json__double_field(struct json_writer *jw, const char *key, double v)
{
	json__key(jw, key);
	json__double(jw, v);
}

void json__bool_field(struct json_writer *jw, const char *key, bool v)
{
	json__key(jw, key);
	json__bool(jw, v);
}

void json__null_field(struct json_writer *jw, const char *key)
{
	json__key(jw, key);
	json__null(jw);
}
