// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SVG flame graph writer (core/profile/flamegraph.c): well-formed XML
 * whatever the names hold, widths proportional to counts, root at the bottom,
 * same profile same bytes.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/profile/flamegraph.h"
#include "core/profile/profile.h"
#include "test.h"
#include "test_profiles.h"

#define DRAW_W 1180.0 /* width of the frames area of the writer */

static char *svg_str(const struct profile *p, const struct flamegraph_opts *opts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return NULL;
	err = flamegraph__write(f, p, opts);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Names locations by address; 0x1ff stays unnamed, 0x1ee gets every XML special. */
static void name_all(struct profile *p)
{
	for (uint32_t i = 0; i < profile__nr_locations(p); i++) {
		const struct profile_location *l = profile__location(p, i);
		const char *fn = NULL;
		char name[32];

		if (l->addr == 0x1ee)
			fn = "operator<<(a&b, \"c\", 'd')>";
		else if (l->addr == 0x1dd)
			fn = "bad\xff\x01utf8\xc3";
		else if (l->addr != 0x1ff) {
			snprintf(name, sizeof(name), "%s%02x", l->kernel ? "k" : "u",
				 (unsigned int)(l->addr & 0xff));
			fn = name;
		}
		if (fn)
			CHECK_EQ_INT(profile__set_symbol(p, i, PROFILE_NONE, fn, fn, 0), 0);
	}
}

/* app: u01 → u02 → u03 (6), u01 → u04 (2), u01 → u03 + kernel k10 → k11 (2); zeta: 1 more. */
static struct profile *sample_profile(bool reverse)
{
	struct profile *p = profile__new();
	uint64_t a[] = { 0x103, 0x102, 0x101 }, b[] = { 0x104, 0x101 }, c[] = { 0x103, 0x101 };
	uint64_t z[] = { 0x1ee, 0x1dd, 0x1ff },
		 kern[] = { 0xffffffff81000011ULL, 0xffffffff81000010ULL };

	if (!reverse) {
		CHECK_EQ_INT(add_stack(p, 10, 10, "app", a, 3, NULL, 0, 6), 0);
		CHECK_EQ_INT(add_stack(p, 10, 10, "app", b, 2, NULL, 0, 2), 0);
		CHECK_EQ_INT(add_stack(p, 10, 10, "app", c, 2, kern, 2, 2), 0);
		CHECK_EQ_INT(add_stack(p, 20, 20, "z<&>", z, 3, NULL, 0, 1), 0);
	} else {
		CHECK_EQ_INT(add_stack(p, 20, 20, "z<&>", z, 3, NULL, 0, 1), 0);
		CHECK_EQ_INT(add_stack(p, 10, 10, "app", c, 2, kern, 2, 2), 0);
		CHECK_EQ_INT(add_stack(p, 10, 10, "app", b, 2, NULL, 0, 2), 0);
		CHECK_EQ_INT(add_stack(p, 10, 10, "app", a, 3, NULL, 0, 6), 0);
	}
	name_all(p);
	return p;
}

/* A minimal XML checker: nesting, quoted attributes, entities, valid UTF-8. */

static bool valid_entity(const char *s)
{
	static const char *const ents[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };

	for (size_t i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
		if (strncmp(s, ents[i], strlen(ents[i])) == 0)
			return true;
	return false;
}

static bool valid_utf8(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		int n = *u < 0x80 ? 0 : (*u & 0xe0) == 0xc0 ? 1 : (*u & 0xf0) == 0xe0 ? 2 : 3;

		if (*u >= 0x80 && ((*u & 0xf8) == 0xf8 || (*u & 0xc0) == 0x80 || *u < 0xc2))
			return false;
		if (*u < 0x20 && *u != '\n' && *u != '\t')
			return false;
		for (u++; n > 0; n--, u++)
			if ((*u & 0xc0) != 0x80)
				return false;
	}
	return true;
}

/* Text or an attribute value up to stop: '<' never, '&' only as an entity. */
static const char *skip_chars(const char *s, char stop)
{
	for (; *s && *s != stop; s++) {
		if (*s == '<')
			return NULL;
		if (*s == '&' && !valid_entity(s))
			return NULL;
	}
	return *s ? s : NULL;
}

static const char *skip_past(const char *s, const char *end)
{
	const char *e = strstr(s, end);

	return e ? e + strlen(end) : NULL;
}

/* The tag at s (after '<'): pushes or pops names[]; returns the end, NULL when malformed. */
static const char *parse_tag(const char *s, char names[][32], int *depth)
{
	bool closing = *s == '/';
	size_t n;

	s += closing;
	n = strcspn(s, " \t\n/>");
	if (!n || n >= 32 || *depth >= 64)
		return NULL;
	if (closing) {
		if (*depth == 0 || strncmp(names[*depth - 1], s, n) || names[*depth - 1][n])
			return NULL;
		(*depth)--;
		return s[n] == '>' ? s + n + 1 : NULL;
	}
	memcpy(names[*depth], s, n);
	names[*depth][n] = '\0';
	for (s += n; *s == ' ' || *s == '\n';) {
		s += strspn(s, " \n");
		if (*s == '/' || *s == '>')
			break;
		s += strcspn(s, "=\" >");
		if (s[0] != '=' || s[1] != '"')
			return NULL;
		s = skip_chars(s + 2, '"');
		if (!s)
			return NULL;
		s++;
	}
	if (s[0] == '/' && s[1] == '>')
		return s + 2;
	if (s[0] != '>')
		return NULL;
	(*depth)++;
	return s + 1;
}

static bool well_formed(const char *s)
{
	char names[64][32];
	int depth = 0, roots = 0;

	if (!s || !valid_utf8(s) || strncmp(s, "<?xml ", 6))
		return false;
	s = skip_past(s, "?>");
	while (s && *s) {
		if (*s != '<') {
			s = skip_chars(s, '<');
			if (!s && depth == 0)
				return roots == 1;
			continue;
		}
		if (strncmp(s, "<![CDATA[", 9) == 0) {
			s = skip_past(s, "]]>");
			continue;
		}
		if (strncmp(s, "<!--", 4) == 0) {
			s = skip_past(s, "-->");
			continue;
		}
		roots += depth == 0;
		s = parse_tag(s + 1, names, &depth);
	}
	return s && depth == 0 && roots == 1;
}

static int count_str(const char *s, const char *needle)
{
	int n = 0;

	for (; s && (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/*
 * The width and y of the rect of a frame whose title starts with "NAME (":
 * the first one, or with *y >= 0 the one at that height.
 */
static bool frame_geometry(const char *svg, const char *name, double *width, int *y)
{
	int want = *y >= 0 ? *y : -1;
	char key[128];
	const char *t = svg;

	snprintf(key, sizeof(key), "<title>%s (", name);
	while (t && (t = strstr(t, key))) {
		t = strstr(t, "<rect ");
		if (t && sscanf(t, "<rect x=\"%*f\" y=\"%d\" width=\"%lf\"", y, width) == 2 &&
		    (want < 0 || *y == want))
			return true;
	}
	return false;
}

static void test_well_formed(void)
{
	struct profile *p = sample_profile(false);
	struct flamegraph_opts opts = { .title = "t<i>t&l'e\"",
					.subtitle = "sub\x01\xfe",
					.kernel = true };
	char *svg = svg_str(p, &opts);

	CHECK(svg != NULL);
	CHECK(well_formed(svg));
	CHECK(svg && strstr(svg, "operator&lt;&lt;(a&amp;b, &quot;c&quot;, &apos;d&apos;)&gt; ("));
	CHECK(svg && strstr(svg, "<title>z&lt;&amp;&gt; (1 sample, 9.09%)</title>"));
	CHECK(svg && strstr(svg, ">t&lt;i&gt;t&amp;l&apos;e&quot;</text>"));
	CHECK(svg && strstr(svg, "<title>bad? utf8? ("));
	CHECK(svg && strstr(svg, "<title>[unknown] ("));
	CHECK(svg && strstr(svg, "<![CDATA[") && strstr(svg, "<script"));
	/* Self-contained: no link but the SVG namespace. */
	CHECK(count_str(svg, "http") == 1 &&
	      count_str(svg, "xmlns=\"http://www.w3.org/2000/svg\"") == 1);
	CHECK(count_str(svg, "href") == 0);
	free(svg);
	profile__free(p);
}

static void test_widths(void)
{
	struct profile *p = sample_profile(false);
	struct flamegraph_opts opts = { .kernel = true };
	char *svg = svg_str(p, &opts);
	double w_all = 0, w_app = 0, w_u01 = 0, w_u03 = 0, w_k10 = 0;
	int y_all = -1, y_app = -1, y_u01 = -1, y_u03, y_k10 = -1;

	CHECK(frame_geometry(svg, "all", &w_all, &y_all));
	CHECK(frame_geometry(svg, "app", &w_app, &y_app));
	CHECK(frame_geometry(svg, "u01", &w_u01, &y_u01));
	y_u03 = y_u01 - 16; /* the one called by u01 */
	CHECK(frame_geometry(svg, "u03", &w_u03, &y_u03));
	CHECK(frame_geometry(svg, "k10_[k]", &w_k10, &y_k10));
	/* 11 samples in all: 10 in app; u03 twice, 2 called by u01, 6 by u02. */
	CHECK(w_all > DRAW_W - 0.01 && w_all < DRAW_W + 0.01);
	CHECK(w_app > DRAW_W * 10 / 11 - 0.01 && w_app < DRAW_W * 10 / 11 + 0.01);
	CHECK(w_u01 > w_app - 0.01 && w_u01 < w_app + 0.01);
	CHECK(w_u03 > DRAW_W * 2 / 11 - 0.01 && w_u03 < DRAW_W * 2 / 11 + 0.01);
	CHECK(w_k10 > DRAW_W * 2 / 11 - 0.01 && w_k10 < DRAW_W * 2 / 11 + 0.01);
	/* The root at the bottom, each level one frame higher. */
	CHECK(y_all > y_app && y_app - y_u01 == 16 && y_all - y_app == 16);
	CHECK(y_u01 - y_k10 == 32);
	CHECK(svg && strstr(svg, "<title>u03 (6 samples, 54.55%)</title>"));
	CHECK(svg && strstr(svg, "class=\"f kernel\" data-x=\"6\" data-c=\"2\""));
	CHECK(svg && strstr(svg, "class=\"f unknown\""));
	CHECK(svg && strstr(svg, "class=\"f root\" data-x=\"0\" data-c=\"11\""));
	free(svg);
	profile__free(p);
}

static void test_deterministic(void)
{
	struct profile *p1 = sample_profile(false), *p2 = sample_profile(true);
	struct flamegraph_opts opts = { .kernel = true, .pid = true };
	char *a = svg_str(p1, &opts), *b = svg_str(p1, &opts), *c = svg_str(p2, &opts);

	CHECK(a && b && c);
	CHECK(a && b && strcmp(a, b) == 0);
	CHECK(a && c && strcmp(a, c) == 0);
	CHECK(a && strstr(a, "<title>app-10 (10 samples"));
	free(a);
	free(b);
	free(c);
	profile__free(p1);
	profile__free(p2);
}

static void test_no_kernel_and_empty(void)
{
	struct profile *p = sample_profile(false), *empty = profile__new();
	struct flamegraph_opts opts = { .kernel = false };
	char *svg = svg_str(p, &opts), *none = svg_str(empty, NULL);

	CHECK(svg && !strstr(svg, "_[k]"));
	CHECK(well_formed(svg));
	CHECK(well_formed(none));
	CHECK(none && strstr(none, "<title>all (0 samples, 0.00%)</title>"));
	free(svg);
	free(none);
	profile__free(p);
	profile__free(empty);
}

/* A long name is cut with ".." to fit its frame; a short one is whole. */
static void test_elided(void)
{
	struct profile *p = profile__new();
	uint64_t a[] = { 0x102, 0x101 }, b[] = { 0x103, 0x101 }, c[] = { 0x104, 0x101 };
	char half[121], cut[128];
	const char *longname = "a_function_name_long_enough_never_to_fit_in_a_narrow_frame";
	char *svg;

	CHECK_EQ_INT(add_stack(p, 1, 1, "x", a, 2, NULL, 0, 1), 0);
	CHECK_EQ_INT(add_stack(p, 1, 1, "x", b, 2, NULL, 0, 99), 0);
	CHECK_EQ_INT(add_stack(p, 1, 1, "x", c, 2, NULL, 0, 100), 0);
	memset(half, 'h', 120);
	half[120] = '\0';
	for (uint32_t i = 0; i < profile__nr_locations(p); i++) {
		const struct profile_location *l = profile__location(p, i);
		const char *fn = l->addr == 0x102 ? longname : l->addr == 0x103 ? "wide" : "main";

		if (l->addr == 0x104)
			fn = half;

		profile__set_symbol(p, i, PROFILE_NONE, fn, fn, 0);
	}
	svg = svg_str(p, NULL);
	/* 0.5% of 1180 px is 5.9 px: not even "x..". */
	CHECK(svg && strstr(svg, "(1 sample, 0.50%)</title>"));
	CHECK(svg && !strstr(svg, "frame</text>") && !strstr(svg, "a_f..</text>"));
	CHECK(svg && strstr(svg, ">wide</text>"));
	/* 50% is 590 px: (590 - 6) / 7.2 = 81 characters, 79 of the name and "..". */
	snprintf(cut, sizeof(cut), ">%.79s..</text>", half);
	CHECK(svg && strstr(svg, cut));
	free(svg);
	profile__free(p);
}

/* A function named by where it starts (a stripped file's) is grey, as a frame without a name. */
static void test_named_by_address(void)
{
	struct profile *p = profile__new();
	uint64_t a[] = { 0x102, 0x101 };
	char *svg;

	CHECK_EQ_INT(add_stack(p, 1, 1, "x", a, 2, NULL, 0, 3), 0);
	for (uint32_t i = 0; i < profile__nr_locations(p); i++) {
		const char *fn = profile__location(p, i)->addr == 0x102 ? "[sqlite3+0x35f0]" :
									  "main";

		profile__set_symbol(p, i, PROFILE_NONE, fn, fn, 0);
	}
	svg = svg_str(p, NULL);
	CHECK(svg &&
	      strstr(svg,
		     "<g class=\"f unknown\" data-x=\"0\" data-c=\"3\"><title>[sqlite3+0x35f0] ("));
	CHECK(svg && strstr(svg, "<g class=\"f user\" data-x=\"0\" data-c=\"3\"><title>main ("));
	free(svg);
	profile__free(p);
}

static void test_write_error(void)
{
	struct profile *p = sample_profile(false);
	FILE *f = fopen("/dev/full", "w");

	CHECK(f != NULL);
	if (f) {
		CHECK(flamegraph__write(f, p, NULL) < 0);
		fclose(f);
	}
	profile__free(p);
}

int main(void)
{
	RUN(test_well_formed);
	RUN(test_widths);
	RUN(test_deterministic);
	RUN(test_no_kernel_and_empty);
	RUN(test_elided);
	RUN(test_named_by_address);
	RUN(test_write_error);
	return test_summary();
}
