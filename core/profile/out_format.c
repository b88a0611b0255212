// SPDX-License-Identifier: GPL-2.0-only
/* The output formats' table and the dispatch on it (see out_format.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../util/common.h"
#include "flamegraph.h"
#include "folded.h"
#include "out_format.h"
#include "pprof_writer.h"

static int write_folded(FILE *f, const struct profile *p, const struct out_format_opts *o)
{
	struct folded_opts opts = {
		.pid = o->pid,
		.tid = o->tid,
		.kernel = o->kernel,
		.lines = o->lines,
		.times = o->times,
		.period_ns = o->meta.period_ns,
	};

	return folded__write(f, p, &opts);
}

static int write_pprof(FILE *f, const struct profile *p, const struct out_format_opts *o)
{
	struct pprof_writer_opts opts = {
		.meta = o->meta,
		.main_file = o->main_file,
		.no_kernel = !o->kernel,
	};

	return pprof_writer__write(f, p, &opts);
}

static int write_svg(FILE *f, const struct profile *p, const struct out_format_opts *o)
{
	struct flamegraph_opts opts = {
		.title = o->title,
		.subtitle = o->subtitle,
		.pid = o->pid,
		.tid = o->tid,
		.kernel = o->kernel,
		.times = o->times,
		.period_ns = o->meta.period_ns,
	};

	return flamegraph__write(f, p, &opts);
}

/* In the order messages list them. */
static const struct out_format_entry formats[] = {
	{
		.format = OUT_PPROF,
		.name = "pprof",
		.what = "pprof",
		.extensions = { ".pb.gz", ".pb", ".pprof", ".prof", ".gz" },
		.binary = true,
		.write = write_pprof,
	},
	{
		.format = OUT_SVG,
		.name = "svg",
		.what = "flame graph",
		.extensions = { ".svg" },
		.write = write_svg,
	},
	{
		.format = OUT_FOLDED,
		.name = "folded",
		.what = "folded",
		.extensions = { ".folded", ".txt" },
		.write = write_folded,
	},
};

const struct out_format_entry *out_format__get(enum out_format f)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (formats[i].format == f)
			return &formats[i];
	return NULL;
}

const char *out_format__name(enum out_format f)
{
	const struct out_format_entry *e = out_format__get(f);

	return e ? e->name : "?";
}

bool out_format__binary(enum out_format f)
{
	const struct out_format_entry *e = out_format__get(f);

	return e && e->binary;
}

int out_format__parse(const char *name, enum out_format *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		if (strcmp(formats[i].name, name) == 0) {
			*f = formats[i].format;
			return 0;
		}
	}
	return -EINVAL;
}

/* The longest extension that ends path's base name: ".pb.gz" before ".gz". */
int out_format__from_path(const char *path, enum out_format *f)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(base), best = 0;

	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		for (const char *const *e = formats[i].extensions; *e; e++) {
			size_t m = strlen(*e);

			/* ".svg" alone is a hidden file's name, not an extension */
			if (n > m && m > best && strcasecmp(base + n - m, *e) == 0) {
				*f = formats[i].format;
				best = m;
			}
		}
	}
	return best ? 0 : -ENOENT;
}

/* The separator before extension j of a format's; the first format's first has none. */
static const char *extension_separator(size_t i, const char *const *e, size_t j)
{
	if (!j)
		return i ? ", " : "";
	return e[j + 1] ? ", " : " or ";
}

/* ".pb.gz, .pb, .pprof, .prof or .gz (pprof), .svg (flame graph), .folded or .txt (folded)" */
const char *out_format__extensions(void)
{
	static char text[256];
	size_t len = 0;

	if (text[0])
		return text;
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		const char *const *e = formats[i].extensions;

		for (size_t j = 0; e[j] && len < sizeof(text); j++)
			len += snprintf(text + len, sizeof(text) - len, "%s%s",
					extension_separator(i, e, j), e[j]);
		if (len < sizeof(text))
			len += snprintf(text + len, sizeof(text) - len, " (%s)", formats[i].what);
	}
	return text;
}

int out_format__write(FILE *f, enum out_format format, const struct profile *p,
		      const struct out_format_opts *o)
{
	const struct out_format_entry *e = out_format__get(format);

	return e ? e->write(f, p, o) : -EINVAL;
}
