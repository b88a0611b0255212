/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small streaming JSON writer: commas, nesting and string escaping are
 * handled here so callers only say what comes next. Machine-readable output
 * always starts with "schema": 1.
 */
#ifndef UNWPROF_JSON_H
#define UNWPROF_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer;

/* NULL and errno on failure. pretty: newlines and two-space indentation. */
struct json_writer *json__new(FILE *out, bool pretty);
/* Ends the output with a newline; returns 0 or -EIO when a write failed. Accepts NULL. */
int json__free(struct json_writer *jw);

void json__object_start(struct json_writer *jw);
void json__object_end(struct json_writer *jw);
void json__array_start(struct json_writer *jw);
void json__array_end(struct json_writer *jw);
void json__key(struct json_writer *jw, const char *key);
void json__string(struct json_writer *jw, const char *s); /* NULL writes null */
void json__stringf(struct json_writer *jw, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void json__uint(struct json_writer *jw, uint64_t v);
void json__int(struct json_writer *jw, int64_t v);
void json__double(struct json_writer *jw, double v);
void json__bool(struct json_writer *jw, bool v);
void json__null(struct json_writer *jw);

/* A member of an object: the key, then its value. */
void json__string_field(struct json_writer *jw, const char *key, const char *s);
void json__uint_field(struct json_writer *jw, const char *key, uint64_t v);
void json__int_field(struct json_writer *jw, const char *key, int64_t v);
void json__double_field(struct json_writer *jw, const char *key, double v);
void json__bool_field(struct json_writer *jw, const char *key, bool v);
void json__null_field(struct json_writer *jw, const char *key);

#endif
