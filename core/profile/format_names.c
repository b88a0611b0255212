// SPDX-License-Identifier: GPL-2.0-only
/* Output formats by name and by file name (see format_names.h). */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "../util/common.h"
#include "format_names.h"

static const char *const names[OUT_NR] = {
	[OUT_FOLDED] = "folded",
	[OUT_PPROF] = "pprof",
	[OUT_SVG] = "svg",
};

/* Longest first: ".pb.gz" before ".gz". */
static const struct {
	const char *ext;
	enum out_format format;
} extensions[] = {
	{ ".pb.gz", OUT_PPROF },   { ".pprof", OUT_PPROF }, { ".prof", OUT_PPROF },
	{ ".pb", OUT_PPROF },	   { ".gz", OUT_PPROF },    { ".svg", OUT_SVG },
	{ ".folded", OUT_FOLDED }, { ".txt", OUT_FOLDED },
};

const char out_format__extensions[] =
	".pb.gz, .pb, .pprof, .prof or .gz (pprof), .svg (flame graph), .folded or .txt (folded)";

const char *out_format__name(enum out_format f)
{
	return f < OUT_NR ? names[f] : "?";
}

bool out_format__binary(enum out_format f)
{
	return f == OUT_PPROF;
}

int out_format__parse(const char *name, enum out_format *f)
{
	for (int i = 0; i < OUT_NR; i++) {
		if (strcmp(names[i], name) == 0) {
			*f = (enum out_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

int out_format__from_path(const char *path, enum out_format *f)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(base);

	for (size_t i = 0; i < ARRAY_SIZE(extensions); i++) {
		size_t m = strlen(extensions[i].ext);

		/* ".svg" alone is a hidden file's name, not an extension */
		if (n > m && strcasecmp(base + n - m, extensions[i].ext) == 0) {
			*f = extensions[i].format;
			return 0;
		}
	}
	return -ENOENT;
}
