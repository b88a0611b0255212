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
struct json_writer *json_writer__new(FILE *out, bool pretty);
/* Ends the output with a newline; returns 0 or -EIO when a write failed. Accepts NULL. */
int json_writer__free(struct json_writer *jw);

void jw_object_start(struct json_writer *jw);
void jw_object_end(struct json_writer *jw);
void jw_array_start(struct json_writer *jw);
void jw_array_end(struct json_writer *jw);
void jw_key(struct json_writer *jw, const char *key);
void jw_string(struct json_writer *jw, const char *s); /* NULL writes null */
void jw_stringf(struct json_writer *jw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void jw_uint(struct json_writer *jw, uint64_t v);
void jw_int(struct json_writer *jw, int64_t v);
void jw_double(struct json_writer *jw, double v);
void jw_bool(struct json_writer *jw, bool v);
void jw_null(struct json_writer *jw);

/* A member of an object: the key, then its value. */
void jw_string_field(struct json_writer *jw, const char *key, const char *s);
void jw_uint_field(struct json_writer *jw, const char *key, uint64_t v);
void jw_int_field(struct json_writer *jw, const char *key, int64_t v);
void jw_double_field(struct json_writer *jw, const char *key, double v);
void jw_bool_field(struct json_writer *jw, const char *key, bool v);
void jw_null_field(struct json_writer *jw, const char *key);

#endif
