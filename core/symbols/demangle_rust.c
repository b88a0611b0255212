// SPDX-License-Identifier: GPL-2.0-only
/*
 * Demangling Rust names: legacy ones (Itanium-mangled, through libstdc++'s
 * demangler, then their "$" escapes), and v0 names (RFC 2603) with a parser
 * of our own. C++ is demangle.c's.
 *
 * Names come from the ELF files of profiled processes, so they are untrusted:
 * the v0 parser never reads past the end of the name, bounds its recursion
 * depth, the nodes it visits (backrefs can make a short name expand
 * exponentially) and its output, and turns anything outside the grammar into
 * EINVAL rather than a partial name.
 *
 * Rust names come out as rustc-demangle prints them with "{:#}", the form
 * backtraces and profilers show: no legacy "::h<hash>", no "[<hash>]" after
 * v0 crate names, no type suffix on const generic integers ("3", not
 * "3usize"). A ThinLTO ".llvm.<hex>" suffix is dropped and any other
 * ".suffix" (".cold") is kept at the end, as rustc-demangle does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "demangle_rust.h"

/*
 * Longer demangled names are refused. The longest in rustc's own driver
 * (100,000 v0 names) is about 10,000 bytes.
 */
#define DEMANGLE_MAX_LEN (256 * 1024)

#define RUST_HASH_LEN 17 /* 'h' and 16 hex digits */

/* Nesting depth of paths, types, consts and backrefs, as rustc-demangle's limit. */
#define V0_MAX_DEPTH 500

/*
 * Nodes visited while printing one name: backrefs are followed each time, so
 * without this a name of a few hundred bytes could take 2^depth steps.
 */
#define V0_MAX_STEPS 200000

/* Characters of a punycode identifier decoded; longer ones stay encoded. */
#define PUNYCODE_MAX 128

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool is_xdigit_lower(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

static bool is_xdigit(char c)
{
	return is_xdigit_lower(c) || (c >= 'A' && c <= 'F');
}

/* A growing, NUL-terminated output string of at most DEMANGLE_MAX_LEN bytes. */
struct sbuf {
	char *s;
	size_t len;
	size_t cap;
};

static int sbuf_put(struct sbuf *b, const char *s, size_t n)
{
	size_t cap = b->cap ? b->cap : 64;
	char *grown;

	if (n > DEMANGLE_MAX_LEN - b->len)
		return -E2BIG;
	while (cap < b->len + n + 1)
		cap *= 2;
	if (cap != b->cap) {
		grown = realloc(b->s, cap);
		if (!grown)
			return -ENOMEM;
		b->s = grown;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

static int sbuf_puts(struct sbuf *b, const char *s)
{
	return sbuf_put(b, s, strlen(s));
}

static int sbuf_put_u64(struct sbuf *b, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	return sbuf_puts(b, num);
}

/* cp is a Unicode scalar value (no surrogate, at most U+10FFFF). */
static int sbuf_put_utf8(struct sbuf *b, uint32_t cp)
{
	char u[4];

	if (cp < 0x80)
		return sbuf_put(b, (char[]){ (char)cp }, 1);
	if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		return sbuf_put(b, u, 2);
	}
	if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		return sbuf_put(b, u, 3);
	}
	u[0] = (char)(0xf0 | cp >> 18);
	u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	u[3] = (char)(0x80 | (cp & 0x3f));
	return sbuf_put(b, u, 4);
}

static bool is_scalar(uint64_t cp)
{
	return cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff);
}

/* Unicode general category Cc, which rustc-demangle leaves escaped. */
static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/* The result of a demangler: out's string, or NULL with errno set from err. */
static char *demangled(struct sbuf *out, int err)
{
	if (!err && !out->len)
		err = -EINVAL; /* an empty name says less than the mangled one */
	if (err) {
		free(out->s);
		errno = err == -ENOMEM ? ENOMEM : EINVAL;
		return NULL;
	}
	return out->s;
}

/* ---- Rust names: what both manglings share ---- */

/*
 * The length of name without a ThinLTO ".llvm.<hex>" suffix: it tells copies
 * of one function apart, as the legacy hash does, and rustc-demangle drops it.
 */
static size_t rust_strip_llvm(const char *name)
{
	const char *llvm = strstr(name, ".llvm.");

	if (!llvm)
		return strlen(name);
	for (const char *c = llvm + strlen(".llvm."); *c; c++)
		if (!is_digit(*c) && !(*c >= 'A' && *c <= 'F') && *c != '@')
			return strlen(name);
	return (size_t)(llvm - name);
}

/* What may follow a Rust path: nothing, or ".word" of printable ASCII (".cold"). */
static bool rust_suffix_ok(const char *s, size_t n)
{
	if (!n)
		return true;
	if (s[0] != '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* ---- Rust legacy names ---- */

/*
 * Where the path of a Rust legacy name ends (past its 'E'), or 0 if the first
 * len bytes of name are not "_ZN" {<length><element>} "E" with "h" and 16 hex
 * digits as the last element: rustc always adds that hash, C++ never does.
 */
static size_t rust_legacy_end(const char *name, size_t len)
{
	size_t i = 3, last = 0, last_len = 0;

	if (len < 4 || strncmp(name, "_ZN", 3) != 0)
		return 0;
	while (i < len && name[i] != 'E') {
		size_t n = 0;

		if (!is_digit(name[i]))
			return 0;
		for (; i < len && is_digit(name[i]); i++) {
			if (n > len / 10)
				return 0;
			n = n * 10 + (size_t)(name[i] - '0');
		}
		if (n > len - i)
			return 0;
		last = i;
		last_len = n;
		i += n;
	}
	if (i >= len || last_len != RUST_HASH_LEN || name[last] != 'h')
		return 0;
	for (size_t k = 1; k < RUST_HASH_LEN; k++)
		if (!is_xdigit(name[last + k]))
			return 0;
	return i + 1;
}

/*
 * Legacy names demangle to "path::to::fn::h0123456789abcdef": the hash only
 * tells builds apart, so it is dropped as rustc-demangle does.
 */
static void strip_rust_hash(char *name)
{
	size_t len = strlen(name);
	char *hash;

	if (len < RUST_HASH_LEN + 2)
		return;
	hash = name + len - RUST_HASH_LEN;
	if (hash[-2] != ':' || hash[-1] != ':' || hash[0] != 'h')
		return;
	for (size_t i = 1; i < RUST_HASH_LEN; i++)
		if (!is_xdigit(hash[i]))
			return;
	hash[-2] = '\0';
}

/*
 * The character a legacy "$...$" escape (without its dollars) stands for, in
 * *known; false there leaves the escape as it is, as rustc-demangle does.
 */
static int legacy_escape(const char *esc, size_t n, struct sbuf *out, bool *known)
{
	static const char *const names[][2] = {
		{ "SP", "@" }, { "BP", "*" }, { "RF", "&" }, { "LT", "<" },
		{ "GT", ">" }, { "LP", "(" }, { "RP", ")" }, { "C", "," },
	};
	uint32_t cp = 0;

	*known = true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i][0]) == n && memcmp(esc, names[i][0], n) == 0)
			return sbuf_puts(out, names[i][1]);
	*known = false;
	if (n < 2 || esc[0] != 'u')
		return 0;
	for (size_t i = 1; i < n; i++) {
		if (!is_xdigit_lower(esc[i]))
			return 0;
		cp = cp * 16 + (uint32_t)(is_digit(esc[i]) ? esc[i] - '0' : esc[i] - 'a' + 10);
		if (cp > 0x10ffff)
			return 0;
	}
	if (!is_scalar(cp) || is_control(cp))
		return 0;
	*known = true;
	return sbuf_put_utf8(out, cp);
}

/* Writes one path element with "$LT$"-style escapes and ".." decoded. */
static int legacy_element(const char *s, size_t n, struct sbuf *out)
{
	int err = 0;

	/* rustc puts '_' before an element that would start with '$'. */
	if (n >= 2 && s[0] == '_' && s[1] == '$') {
		s++;
		n--;
	}
	while (!err && n) {
		size_t run = 1;
		const char *close;
		bool known;

		if (s[0] == '.') {
			run = n >= 2 && s[1] == '.' ? 2 : 1;
			err = sbuf_puts(out, run == 2 ? "::" : ".");
		} else if (s[0] == '$') {
			close = memchr(s + 1, '$', n - 1);
			if (!close)
				break;
			err = legacy_escape(s + 1, (size_t)(close - s - 1), out, &known);
			if (!known)
				break;
			run = (size_t)(close - s) + 1;
		} else {
			while (run < n && s[run] != '$' && s[run] != '.')
				run++;
			err = sbuf_put(out, s, run);
		}
		s += run;
		n -= run;
	}
	return err ? err : sbuf_put(out, s, n);
}

/*
 * Decodes each "::"-separated element of what __cxa_demangle made of a legacy
 * path: its elements are plain identifiers, which never hold ':'.
 */
static int legacy_unescape(const char *s, struct sbuf *out)
{
	int err = 0;

	for (;;) {
		const char *sep = strstr(s, "::");
		size_t n = sep ? (size_t)(sep - s) : strlen(s);

		err = legacy_element(s, n, out);
		if (err || !sep)
			return err;
		err = sbuf_puts(out, "::");
		if (err)
			return err;
		s = sep + 2;
	}
}

/* name's path ends at end, then come len - end bytes of suffix to keep. */
static char *demangle_legacy(const char *name, size_t end, size_t len)
{
	struct sbuf out = { 0 };
	char *path = strndup(name, end), *cxx;
	int err;

	if (!path)
		return NULL;
	cxx = demangle__itanium(path);
	free(path);
	if (!cxx)
		return NULL;
	strip_rust_hash(cxx);
	err = legacy_unescape(cxx, &out);
	free(cxx);
	if (!err)
		err = sbuf_put(&out, name + end, len - end);
	return demangled(&out, err);
}

/* ---- Rust v0 names (RFC 2603) ---- */

struct v0 {
	const char *sym;	  /* the name after "_R": backrefs count from here */
	size_t len;		  /* bytes of sym to parse: the suffix is left out */
	size_t pos;		  /* next byte to parse */
	unsigned int depth;	  /* nesting now */
	unsigned int steps;	  /* nodes visited so far */
	uint64_t bound_lifetimes; /* bound by the for<...> around what is printed */
	struct sbuf *out;	  /* NULL while only parsing: impl paths, the instantiating crate */
};

struct v0_ident {
	const char *ascii;
	size_t ascii_len;
	const char *puny; /* the punycode deltas; NULL for a plain identifier */
	size_t puny_len;
};

typedef int (*v0_item_fn)(struct v0 *p);

static int v0_path(struct v0 *p, bool in_value);
static int v0_type(struct v0 *p);
static int v0_const(struct v0 *p, bool in_value);

static char v0_peek(const struct v0 *p)
{
	return p->pos < p->len ? p->sym[p->pos] : '\0';
}

static bool v0_eat(struct v0 *p, char c)
{
	if (p->pos >= p->len || p->sym[p->pos] != c)
		return false;
	p->pos++;
	return true;
}

static int v0_next(struct v0 *p, char *c)
{
	if (p->pos >= p->len)
		return -EINVAL;
	*c = p->sym[p->pos++];
	return 0;
}

static int v0_put(struct v0 *p, const char *s)
{
	return p->out ? sbuf_puts(p->out, s) : 0;
}

static int v0_putn(struct v0 *p, const char *s, size_t n)
{
	return p->out ? sbuf_put(p->out, s, n) : 0;
}

static int v0_put_u64(struct v0 *p, uint64_t v)
{
	return p->out ? sbuf_put_u64(p->out, v) : 0;
}

static int v0_enter(struct v0 *p)
{
	if (p->depth >= V0_MAX_DEPTH || p->steps >= V0_MAX_STEPS)
		return -EINVAL;
	p->depth++;
	p->steps++;
	return 0;
}

static void v0_leave(struct v0 *p)
{
	p->depth--;
}

static int base62_digit(char c)
{
	if (is_digit(c))
		return c - '0';
	if (is_lower(c))
		return c - 'a' + 10;
	if (is_upper(c))
		return c - 'A' + 36;
	return -1;
}

/* <base-62-number>: "_" is 0, otherwise digits and "_" are the value plus one. */
static int v0_base62(struct v0 *p, uint64_t *v)
{
	uint64_t x = 0;
	char c;

	if (v0_eat(p, '_')) {
		*v = 0;
		return 0;
	}
	for (;;) {
		int d;

		if (v0_next(p, &c))
			return -EINVAL;
		if (c == '_')
			break;
		d = base62_digit(c);
		if (d < 0 || x > (UINT64_MAX - (uint64_t)d) / 62)
			return -EINVAL;
		x = x * 62 + (uint64_t)d;
	}
	if (x == UINT64_MAX)
		return -EINVAL;
	*v = x + 1;
	return 0;
}

/* tag <base-62-number>, the number plus one, or 0 when tag is absent. */
static int v0_opt_base62(struct v0 *p, char tag, uint64_t *v)
{
	int err;

	*v = 0;
	if (!v0_eat(p, tag))
		return 0;
	err = v0_base62(p, v);
	if (err || *v == UINT64_MAX)
		return -EINVAL;
	(*v)++;
	return 0;
}

/* <undisambiguated-identifier> = ["u"] <decimal-number> ["_"] <bytes> */
static int v0_ident(struct v0 *p, struct v0_ident *id)
{
	bool puny = v0_eat(p, 'u');
	size_t n = 0;
	const char *start, *sep;
	char c = v0_peek(p);

	if (!is_digit(c))
		return -EINVAL;
	p->pos++;
	n = (size_t)(c - '0');
	while (n && is_digit(c = v0_peek(p))) {
		if (n > p->len / 10)
			return -EINVAL;
		n = n * 10 + (size_t)(c - '0');
		p->pos++;
	}
	v0_eat(p, '_');
	if (n > p->len - p->pos)
		return -EINVAL;
	start = p->sym + p->pos;
	p->pos += n;
	*id = (struct v0_ident){ .ascii = start, .ascii_len = n };
	if (!puny)
		return 0;
	/* The basic characters, '_' (punycode's '-'), then the deltas. */
	sep = NULL;
	for (size_t i = 0; i < n; i++)
		if (start[i] == '_')
			sep = start + i;
	id->ascii_len = sep ? (size_t)(sep - start) : 0;
	id->puny = sep ? sep + 1 : start;
	id->puny_len = n - (size_t)(id->puny - start);
	return id->puny_len ? 0 : -EINVAL;
}

static bool v0_ident_empty(const struct v0_ident *id)
{
	return !id->ascii_len && !id->puny_len;
}

static uint64_t punycode_adapt(uint64_t delta, uint64_t points, bool first)
{
	uint64_t k = 0;

	delta = first ? delta / 700 : delta / 2;
	delta += delta / points;
	while (delta > (35 * 26) / 2) {
		delta /= 35;
		k += 36;
	}
	return k + (36 * delta) / (delta + 38);
}

/* One variable-length delta of RFC 3492, added to *i. */
static int punycode_delta(const struct v0_ident *id, size_t *pos, uint64_t bias, uint64_t *i)
{
	uint64_t w = 1;

	for (uint64_t k = 36;; k += 36) {
		uint64_t t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
		char c = *pos < id->puny_len ? id->puny[(*pos)++] : '\0';
		uint64_t d;

		if (is_lower(c))
			d = (uint64_t)(c - 'a');
		else if (is_digit(c))
			d = (uint64_t)(c - '0') + 26;
		else
			return -EINVAL;
		if (d && w > (UINT64_MAX - *i) / d)
			return -EINVAL;
		*i += d * w;
		if (d < t)
			return 0;
		if (w > UINT64_MAX / (36 - t))
			return -EINVAL;
		w *= 36 - t;
	}
}

/* RFC 3492 decoding of id into out[PUNYCODE_MAX], *n characters. */
static int punycode_decode(const struct v0_ident *id, uint32_t *out, size_t *n)
{
	uint64_t cp = 0x80, bias = 72, i = 0;
	size_t pos = 0, len = id->ascii_len;

	if (len > PUNYCODE_MAX)
		return -E2BIG;
	for (size_t k = 0; k < len; k++)
		out[k] = (unsigned char)id->ascii[k];
	while (pos < id->puny_len) {
		uint64_t old = i;
		int err = punycode_delta(id, &pos, bias, &i);

		if (err)
			return err;
		bias = punycode_adapt(i - old, len + 1, old == 0);
		if (i / (len + 1) > 0x10ffff)
			return -EINVAL;
		cp += i / (len + 1);
		i %= len + 1;
		if (!is_scalar(cp) || len == PUNYCODE_MAX)
			return -EINVAL;
		memmove(out + i + 1, out + i, (len - i) * sizeof(*out));
		out[i++] = (uint32_t)cp;
		len++;
	}
	*n = len;
	return 0;
}

/*
 * Prints an identifier, decoding punycode. One that does not decode (or is
 * too long) is shown as "punycode{ascii-deltas}", as rustc-demangle does.
 */
static int v0_print_ident(struct v0 *p, const struct v0_ident *id)
{
	uint32_t chars[PUNYCODE_MAX];
	size_t n;
	int err;

	if (!p->out || !id->puny)
		return v0_putn(p, id->ascii, id->ascii_len);
	if (!punycode_decode(id, chars, &n)) {
		err = 0;
		for (size_t k = 0; k < n && !err; k++)
			err = sbuf_put_utf8(p->out, chars[k]);
		return err;
	}
	err = v0_put(p, "punycode{");
	if (!err && id->ascii_len)
		err = v0_putn(p, id->ascii, id->ascii_len);
	if (!err && id->ascii_len)
		err = v0_put(p, "-");
	if (!err)
		err = v0_putn(p, id->puny, id->puny_len);
	return err ? err : v0_put(p, "}");
}

/*
 * After a 'B': checks that the target comes before the backref, which rules
 * out loops that consume nothing, and when printing moves there. The caller
 * parses the target only when printing, then calls v0_backref_return.
 */
static int v0_backref(struct v0 *p, size_t *back)
{
	size_t at = p->pos - 1;
	uint64_t target;
	int err = v0_base62(p, &target);

	if (err)
		return err;
	if (target >= at)
		return -EINVAL;
	err = v0_enter(p);
	if (err)
		return err;
	*back = p->pos;
	if (p->out)
		p->pos = (size_t)target;
	return 0;
}

static void v0_backref_return(struct v0 *p, size_t back)
{
	p->pos = back;
	v0_leave(p);
}

/* Items up to an 'E', with sep between them; *count of them if count. */
static int v0_list(struct v0 *p, v0_item_fn item, const char *sep, size_t *count)
{
	size_t n = 0;
	int err = 0;

	while (!err && !v0_eat(p, 'E')) {
		if (p->pos >= p->len)
			return -EINVAL;
		if (n)
			err = v0_put(p, sep);
		if (!err)
			err = item(p);
		n++;
	}
	if (count)
		*count = n;
	return err;
}

/* 'a for the innermost bound lifetime, 'b for the next..., '_ for an erased one. */
static int v0_lifetime(struct v0 *p, uint64_t lt)
{
	uint64_t depth;
	int err;

	if (!p->out)
		return 0;
	if (!lt)
		return v0_put(p, "'_");
	if (lt > p->bound_lifetimes)
		return -EINVAL;
	depth = p->bound_lifetimes - lt;
	if (depth < 26)
		return v0_put(p, (char[]){ '\'', (char)('a' + depth), '\0' });
	err = v0_put(p, "'_");
	return err ? err : v0_put_u64(p, depth);
}

/*
 * An optional <binder> "G": prints "for<'a, 'b> " and binds the lifetimes
 * for what follows; the caller unbinds the *bound of them after it.
 */
static int v0_binder(struct v0 *p, uint64_t *bound)
{
	uint64_t n;
	int err = v0_opt_base62(p, 'G', &n);

	*bound = 0;
	if (err || !n || !p->out)
		return err;
	err = v0_put(p, "for<");
	/* Each lifetime printed makes the output longer: the size limit ends this. */
	for (uint64_t i = 0; i < n && !err; i++) {
		if (i)
			err = v0_put(p, ", ");
		p->bound_lifetimes++;
		(*bound)++;
		if (!err)
			err = v0_lifetime(p, 1);
	}
	return err ? err : v0_put(p, "> ");
}

static int v0_generic_arg(struct v0 *p)
{
	uint64_t lt;
	int err;

	if (v0_eat(p, 'L')) {
		err = v0_base62(p, &lt);
		return err ? err : v0_lifetime(p, lt);
	}
	if (v0_eat(p, 'K'))
		return v0_const(p, false);
	return v0_type(p);
}

/* "C" <identifier>: the crate's disambiguator (its hash) is not shown. */
static int v0_crate_root(struct v0 *p)
{
	struct v0_ident id;
	uint64_t dis;
	int err = v0_opt_base62(p, 's', &dis);

	if (!err)
		err = v0_ident(p, &id);
	return err ? err : v0_print_ident(p, &id);
}

/* Closures, shims and other special namespaces: "{closure#0}", "{shim:vtable#0}". */
static int v0_special_ns(struct v0 *p, char ns, const struct v0_ident *id, uint64_t dis)
{
	int err = v0_put(p, "::{");

	if (!err)
		err = v0_put(p, ns == 'C' ? "closure" : ns == 'S' ? "shim" : (char[]){ ns, '\0' });
	if (!err && !v0_ident_empty(id)) {
		err = v0_put(p, ":");
		if (!err)
			err = v0_print_ident(p, id);
	}
	if (!err)
		err = v0_put(p, "#");
	if (!err)
		err = v0_put_u64(p, dis);
	return err ? err : v0_put(p, "}");
}

/* "N" <namespace> <path> <identifier> */
static int v0_nested(struct v0 *p, bool in_value)
{
	struct v0_ident id;
	uint64_t dis;
	char ns;
	int err = v0_next(p, &ns);

	if (!err && !is_upper(ns) && !is_lower(ns))
		err = -EINVAL;
	if (!err)
		err = v0_path(p, in_value);
	if (!err)
		err = v0_opt_base62(p, 's', &dis);
	if (!err)
		err = v0_ident(p, &id);
	if (err)
		return err;
	if (is_upper(ns))
		return v0_special_ns(p, ns, &id, dis);
	/* Lower-case namespaces are the compiler's own: only the name is shown. */
	if (v0_ident_empty(&id))
		return 0;
	err = v0_put(p, "::");
	return err ? err : v0_print_ident(p, &id);
}

/* "M"/"X" <impl-path> <type> [<path>], "Y" <type> <path>: "<T>", "<T as Trait>" */
static int v0_impl(struct v0 *p, char tag)
{
	struct sbuf *out = p->out;
	uint64_t dis;
	int err = 0;

	if (tag != 'Y') {
		/* The impl's own path only says where the impl block is. */
		err = v0_opt_base62(p, 's', &dis);
		p->out = NULL;
		if (!err)
			err = v0_path(p, false);
		p->out = out;
	}
	if (!err)
		err = v0_put(p, "<");
	if (!err)
		err = v0_type(p);
	if (!err && tag != 'M') {
		err = v0_put(p, " as ");
		if (!err)
			err = v0_path(p, false);
	}
	return err ? err : v0_put(p, ">");
}

/* "I" <path> {<generic-arg>} "E": in a value path, "f::<T>" rather than "Vec<T>". */
static int v0_generic_path(struct v0 *p, bool in_value)
{
	int err = v0_path(p, in_value);

	if (!err && in_value)
		err = v0_put(p, "::");
	if (!err)
		err = v0_put(p, "<");
	if (!err)
		err = v0_list(p, v0_generic_arg, ", ", NULL);
	return err ? err : v0_put(p, ">");
}

static int v0_path_backref(struct v0 *p, bool in_value)
{
	size_t back;
	int err = v0_backref(p, &back);

	if (err)
		return err;
	if (p->out)
		err = v0_path(p, in_value);
	v0_backref_return(p, back);
	return err;
}

static int v0_path(struct v0 *p, bool in_value)
{
	char tag;
	int err = v0_enter(p);

	if (err)
		return err;
	err = v0_next(p, &tag);
	if (err)
		return err;
	switch (tag) {
	case 'C':
		err = v0_crate_root(p);
		break;
	case 'N':
		err = v0_nested(p, in_value);
		break;
	case 'M':
	case 'X':
	case 'Y':
		err = v0_impl(p, tag);
		break;
	case 'I':
		err = v0_generic_path(p, in_value);
		break;
	case 'B':
		err = v0_path_backref(p, in_value);
		break;
	default:
		err = -EINVAL;
	}
	v0_leave(p);
	return err;
}

static const char *v0_basic_type(char tag)
{
	static const char *const basic['z' - 'a' + 1] = {
		['a' - 'a'] = "i8",   ['b' - 'a'] = "bool",  ['c' - 'a'] = "char",
		['d' - 'a'] = "f64",  ['e' - 'a'] = "str",   ['f' - 'a'] = "f32",
		['h' - 'a'] = "u8",   ['i' - 'a'] = "isize", ['j' - 'a'] = "usize",
		['l' - 'a'] = "i32",  ['m' - 'a'] = "u32",   ['n' - 'a'] = "i128",
		['o' - 'a'] = "u128", ['p' - 'a'] = "_",     ['s' - 'a'] = "i16",
		['t' - 'a'] = "u16",  ['u' - 'a'] = "()",    ['v' - 'a'] = "...",
		['x' - 'a'] = "i64",  ['y' - 'a'] = "u64",   ['z' - 'a'] = "!",
	};

	return is_lower(tag) ? basic[tag - 'a'] : NULL;
}

/* "R"/"Q" [<lifetime>] <type>: &T, &'a mut T */
static int v0_ref_type(struct v0 *p, bool mut)
{
	uint64_t lt;
	int err = v0_put(p, "&");

	if (!err && v0_eat(p, 'L')) {
		err = v0_base62(p, &lt);
		if (!err && lt) {
			err = v0_lifetime(p, lt);
			if (!err)
				err = v0_put(p, " ");
		}
	}
	if (!err && mut)
		err = v0_put(p, "mut ");
	return err ? err : v0_type(p);
}

static int v0_const_in_value(struct v0 *p)
{
	return v0_const(p, true);
}

/* "A" <type> <const>, "S" <type>: [T; N], [T] */
static int v0_array_type(struct v0 *p, bool sized)
{
	int err = v0_put(p, "[");

	if (!err)
		err = v0_type(p);
	if (!err && sized) {
		err = v0_put(p, "; ");
		if (!err)
			err = v0_const(p, true);
	}
	return err ? err : v0_put(p, "]");
}

/* "T" {<type>} "E": (A, B), and (A,) for one */
static int v0_tuple_type(struct v0 *p)
{
	size_t n;
	int err = v0_put(p, "(");

	if (!err)
		err = v0_list(p, v0_type, ", ", &n);
	if (!err && n == 1)
		err = v0_put(p, ",");
	return err ? err : v0_put(p, ")");
}

/* <abi> = "C" | <undisambiguated-identifier>, whose '_' were '-' ("C-unwind") */
static int v0_abi(struct v0 *p)
{
	struct v0_ident id;
	int err;

	if (v0_eat(p, 'C'))
		return v0_put(p, "extern \"C\" ");
	err = v0_ident(p, &id);
	if (err)
		return err;
	if (!id.ascii_len || id.puny)
		return -EINVAL;
	err = v0_put(p, "extern \"");
	for (size_t i = 0; i < id.ascii_len && !err; i++)
		err = v0_putn(p, id.ascii[i] == '_' ? "-" : id.ascii + i, 1);
	return err ? err : v0_put(p, "\" ");
}

/* <fn-sig> after its binder: ["U"] ["K" <abi>] {<type>} "E" <type> */
static int v0_fn_sig(struct v0 *p)
{
	int err = 0;

	if (v0_eat(p, 'U'))
		err = v0_put(p, "unsafe ");
	if (!err && v0_eat(p, 'K'))
		err = v0_abi(p);
	if (!err)
		err = v0_put(p, "fn(");
	if (!err)
		err = v0_list(p, v0_type, ", ", NULL);
	if (!err)
		err = v0_put(p, ")");
	if (err || v0_eat(p, 'u'))
		return err; /* returns () */
	err = v0_put(p, " -> ");
	return err ? err : v0_type(p);
}

static int v0_fn_type(struct v0 *p)
{
	uint64_t bound;
	int err = v0_binder(p, &bound);

	if (!err)
		err = v0_fn_sig(p);
	p->bound_lifetimes -= bound;
	return err;
}

/*
 * A trait's path, leaving "Trait<A, B" open when it has generic arguments so
 * that associated type bindings can follow inside the brackets.
 */
static int v0_trait_open(struct v0 *p, bool *open)
{
	size_t back;
	int err;

	*open = false;
	if (v0_eat(p, 'B')) {
		err = v0_backref(p, &back);
		if (err)
			return err;
		if (p->out)
			err = v0_trait_open(p, open);
		v0_backref_return(p, back);
		return err;
	}
	if (!v0_eat(p, 'I'))
		return v0_path(p, false);
	*open = true;
	err = v0_path(p, false);
	if (!err)
		err = v0_put(p, "<");
	return err ? err : v0_list(p, v0_generic_arg, ", ", NULL);
}

/* <dyn-trait> = <path> {"p" <undisambiguated-identifier> (<type> | "K" <const>)} */
static int v0_dyn_trait(struct v0 *p)
{
	struct v0_ident id;
	bool open;
	int err = v0_trait_open(p, &open);

	while (!err && v0_eat(p, 'p')) {
		err = v0_put(p, open ? ", " : "<");
		open = true;
		if (!err)
			err = v0_ident(p, &id);
		if (!err)
			err = v0_print_ident(p, &id);
		if (!err)
			err = v0_put(p, " = ");
		if (!err)
			err = v0_eat(p, 'K') ? v0_const(p, false) : v0_type(p);
	}
	if (!err && open)
		err = v0_put(p, ">");
	return err;
}

/* "D" [<binder>] {<dyn-trait>} "E" <lifetime>: dyn for<'a> A + B + 'a */
static int v0_dyn_type(struct v0 *p)
{
	uint64_t bound = 0, lt;
	int err = v0_put(p, "dyn ");

	if (!err)
		err = v0_binder(p, &bound);
	if (!err)
		err = v0_list(p, v0_dyn_trait, " + ", NULL);
	p->bound_lifetimes -= bound;
	if (!err && !v0_eat(p, 'L'))
		err = -EINVAL;
	if (!err)
		err = v0_base62(p, &lt);
	if (err || !lt)
		return err;
	err = v0_put(p, " + ");
	return err ? err : v0_lifetime(p, lt);
}

/* A pattern of a pattern type: "R" <const> <const>, "O" {<pat>} "E", "N" */
static int v0_pat(struct v0 *p)
{
	char tag;
	int err = v0_next(p, &tag);

	if (err)
		return err;
	switch (tag) {
	case 'R':
		err = v0_const(p, false);
		if (!err)
			err = v0_put(p, "..=");
		return err ? err : v0_const(p, false);
	case 'N':
		return v0_put(p, "!null");
	case 'O':
		break;
	default:
		return -EINVAL;
	}
	err = v0_enter(p);
	if (!err)
		err = v0_pat(p);
	while (!err && !v0_eat(p, 'E')) {
		err = p->pos < p->len ? v0_put(p, " | ") : -EINVAL;
		if (!err)
			err = v0_pat(p);
	}
	v0_leave(p);
	return err;
}

static int v0_type_backref(struct v0 *p)
{
	size_t back;
	int err = v0_backref(p, &back);

	if (err)
		return err;
	if (p->out)
		err = v0_type(p);
	v0_backref_return(p, back);
	return err;
}

/* A <type> other than a basic one or a path; tag is already consumed. */
static int v0_compound_type(struct v0 *p, char tag)
{
	int err;

	switch (tag) {
	case 'R':
	case 'Q':
		return v0_ref_type(p, tag == 'Q');
	case 'P':
		err = v0_put(p, "*const ");
		return err ? err : v0_type(p);
	case 'O':
		err = v0_put(p, "*mut ");
		return err ? err : v0_type(p);
	case 'A':
	case 'S':
		return v0_array_type(p, tag == 'A');
	case 'T':
		return v0_tuple_type(p);
	case 'F':
		return v0_fn_type(p);
	case 'D':
		return v0_dyn_type(p);
	case 'B':
		return v0_type_backref(p);
	case 'W': /* pattern type: u32 is 1..=5 */
		err = v0_type(p);
		if (!err)
			err = v0_put(p, " is ");
		return err ? err : v0_pat(p);
	}
	p->pos--; /* a path: let it see its tag */
	return v0_path(p, false);
}

static int v0_type(struct v0 *p)
{
	const char *basic;
	char tag;
	int err = v0_next(p, &tag);

	if (err)
		return err;
	basic = v0_basic_type(tag);
	if (basic)
		return v0_put(p, basic);
	err = v0_enter(p);
	if (!err)
		err = v0_compound_type(p, tag);
	v0_leave(p);
	return err;
}

/* Lower-case hex digits up to a '_', as in const values. */
static int v0_hex(struct v0 *p, const char **hex, size_t *n)
{
	size_t start = p->pos;
	char c;

	do {
		if (v0_next(p, &c) || (c != '_' && !is_xdigit_lower(c)))
			return -EINVAL;
	} while (c != '_');
	*hex = p->sym + start;
	*n = p->pos - 1 - start;
	return 0;
}

static unsigned int hex_digit(char c)
{
	return is_digit(c) ? (unsigned int)(c - '0') : (unsigned int)(c - 'a' + 10);
}

/* The value of n hex digits, false when it does not fit in 64 bits. */
static bool hex_value(const char *hex, size_t n, uint64_t *v)
{
	while (n && *hex == '0') {
		hex++;
		n--;
	}
	if (n > 16)
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v = *v << 4 | hex_digit(hex[i]);
	return true;
}

/* An integer in decimal, or one past 64 bits as its hex digits ("0x..."). */
static int v0_const_int(struct v0 *p)
{
	const char *hex;
	uint64_t v;
	size_t n;
	int err = v0_hex(p, &hex, &n);

	if (err)
		return err;
	if (hex_value(hex, n, &v))
		return v0_put_u64(p, v);
	err = v0_put(p, "0x");
	return err ? err : v0_putn(p, hex, n);
}

/*
 * Whether Rust's char::escape_debug writes cp as "\u{...}". Rust decides from
 * Unicode's tables, of the Unicode version of the std that prints; without
 * them this covers controls, combining diacritics, invisible formatting,
 * private use and the planes past 3, which hold no printable characters.
 * Other unassigned or combining characters come out as they are.
 */
static bool escapes_as_unicode(uint32_t cp)
{
	return is_control(cp) || cp == 0xad || (cp >= 0x300 && cp <= 0x36f) ||
	       (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x206f) || (cp >= 0xe000 && cp <= 0xf8ff) || cp == 0xfeff ||
	       (cp >= 0xfff0 && cp <= 0xfffb) || cp == 0xfffe || cp == 0xffff || cp >= 0x40000;
}

/* Writes cp in a quoted char or string const, escaped as Rust does. */
static int v0_put_escaped(struct v0 *p, uint32_t cp, char quote)
{
	static const char *const named[] = {
		['\0'] = "\\0",	 ['\t'] = "\\t", ['\r'] = "\\r", ['\n'] = "\\n",
		['\\'] = "\\\\", ['\''] = "\\'", ['"'] = "\\\"",
	};
	char esc[16];

	if ((quote == '\'' && cp == '"') || (quote == '"' && cp == '\''))
		return v0_putn(p, (char[]){ (char)cp }, 1);
	if (cp < sizeof(named) / sizeof(named[0]) && named[cp])
		return v0_put(p, named[cp]);
	if (escapes_as_unicode(cp)) {
		snprintf(esc, sizeof(esc), "\\u{%" PRIx32 "}", cp);
		return v0_put(p, esc);
	}
	return p->out ? sbuf_put_utf8(p->out, cp) : 0;
}

/* Byte k of a string given as pairs of lower-case hex digits. */
static unsigned char hex_byte(const char *hex, size_t k)
{
	return (unsigned char)(hex_digit(hex[2 * k]) << 4 | hex_digit(hex[2 * k + 1]));
}

/*
 * The UTF-8 character at byte *i of the n bytes in hex, rejecting what is not
 * UTF-8: stray continuation bytes, overlong forms, surrogates, past U+10FFFF.
 */
static int utf8_next(const char *hex, size_t n, size_t *i, uint32_t *cp)
{
	static const uint32_t min[] = { 0, 0x80, 0x800, 0x10000 };
	unsigned char b = hex_byte(hex, (*i)++);
	size_t more = b < 0x80 ? 0 : b < 0xc0 ? 4 : b < 0xe0 ? 1 : b < 0xf0 ? 2 : b < 0xf8 ? 3 : 4;
	uint32_t v;

	if (more == 4 || more > n - *i)
		return -EINVAL;
	v = more ? b & (0x3fu >> more) : b;
	for (size_t k = 0; k < more; k++) {
		b = hex_byte(hex, (*i)++);
		if ((b & 0xc0) != 0x80)
			return -EINVAL;
		v = v << 6 | (b & 0x3fu);
	}
	if (v < min[more] || !is_scalar(v))
		return -EINVAL;
	*cp = v;
	return 0;
}

/* A string const: its UTF-8 bytes in hex, shown as "..." */
static int v0_const_str(struct v0 *p)
{
	const char *hex;
	size_t n, i = 0;
	uint32_t cp;
	int err = v0_hex(p, &hex, &n);

	if (!err && n % 2)
		err = -EINVAL;
	if (!err)
		err = v0_put(p, "\"");
	while (!err && i < n / 2) {
		err = utf8_next(hex, n / 2, &i, &cp);
		if (!err)
			err = v0_put_escaped(p, cp, '"');
	}
	return err ? err : v0_put(p, "\"");
}

static int v0_const_bool_char(struct v0 *p, char tag)
{
	const char *hex;
	uint64_t v;
	size_t n;
	int err = v0_hex(p, &hex, &n);

	if (err || !hex_value(hex, n, &v))
		return -EINVAL;
	if (tag == 'b')
		return v > 1 ? -EINVAL : v0_put(p, v ? "true" : "false");
	if (!is_scalar(v))
		return -EINVAL;
	err = v0_put(p, "'");
	if (!err)
		err = v0_put_escaped(p, (uint32_t)v, '\'');
	return err ? err : v0_put(p, "'");
}

/* "fieldname: value" of a struct-like const */
static int v0_const_field(struct v0 *p)
{
	struct v0_ident id;
	uint64_t dis;
	int err = v0_opt_base62(p, 's', &dis);

	if (!err)
		err = v0_ident(p, &id);
	if (!err)
		err = v0_print_ident(p, &id);
	if (!err)
		err = v0_put(p, ": ");
	return err ? err : v0_const(p, true);
}

/* "V" <path> then "U" (unit), "T" {<const>} "E" (tuple) or "S" {<field>} "E" (struct) */
static int v0_const_adt(struct v0 *p)
{
	char kind;
	int err = v0_path(p, true);

	if (!err)
		err = v0_next(p, &kind);
	if (err)
		return err;
	switch (kind) {
	case 'U':
		return 0;
	case 'T':
		err = v0_put(p, "(");
		if (!err)
			err = v0_list(p, v0_const_in_value, ", ", NULL);
		return err ? err : v0_put(p, ")");
	case 'S':
		err = v0_put(p, " { ");
		if (!err)
			err = v0_list(p, v0_const_field, ", ", NULL);
		return err ? err : v0_put(p, " }");
	}
	return -EINVAL;
}

static int v0_const_backref(struct v0 *p, bool in_value)
{
	size_t back;
	int err = v0_backref(p, &back);

	if (err)
		return err;
	if (p->out)
		err = v0_const(p, in_value);
	v0_backref_return(p, back);
	return err;
}

/* Consts that are written as literals: integers, bool, char, "_". */
static int v0_const_literal(struct v0 *p, char tag)
{
	int err = 0;

	if (tag == 'p')
		return v0_put(p, "_");
	if (tag == 'b' || tag == 'c')
		return v0_const_bool_char(p, tag);
	if (!tag || !strchr("hmtyojaslxni", tag))
		return -EINVAL;
	if (strchr("aslxni", tag) && v0_eat(p, 'n'))
		err = v0_put(p, "-");
	return err ? err : v0_const_int(p);
}

/* Consts that need braces in a generic argument: {&"..."}, {[1, 2]}, {Foo { a: 1 }} */
static int v0_const_expr(struct v0 *p, char tag)
{
	size_t n;
	int err = 0;

	switch (tag) {
	case 'e': /* a str, so "*" of the string literal */
		err = v0_put(p, "*");
		return err ? err : v0_const_str(p);
	case 'R':
	case 'Q':
		err = v0_put(p, tag == 'R' ? "&" : "&mut ");
		return err ? err : v0_const(p, true);
	case 'A':
		err = v0_put(p, "[");
		if (!err)
			err = v0_list(p, v0_const_in_value, ", ", NULL);
		return err ? err : v0_put(p, "]");
	case 'T':
		err = v0_put(p, "(");
		if (!err)
			err = v0_list(p, v0_const_in_value, ", ", &n);
		if (!err && n == 1)
			err = v0_put(p, ",");
		return err ? err : v0_put(p, ")");
	case 'V':
		return v0_const_adt(p);
	}
	return -EINVAL;
}

/*
 * <const>. Outside another const's value (in_value false), anything but a
 * literal is put in braces, as Rust needs in a generic argument.
 */
static int v0_const(struct v0 *p, bool in_value)
{
	bool braces;
	char tag;
	int err = v0_next(p, &tag);

	if (!err)
		err = v0_enter(p);
	if (err)
		return err;
	if (tag == 'B') {
		err = v0_const_backref(p, in_value);
	} else if (tag == 'R' && v0_eat(p, 'e')) {
		err = v0_const_str(p); /* &str: just the literal */
	} else if (tag && strchr("eRQATV", tag)) {
		braces = !in_value;
		err = braces ? v0_put(p, "{") : 0;
		if (!err)
			err = v0_const_expr(p, tag);
		if (!err && braces)
			err = v0_put(p, "}");
	} else {
		err = v0_const_literal(p, tag);
	}
	v0_leave(p);
	return err;
}

/*
 * "_R" <path> [<instantiating-crate>] [<suffix>], in the first len bytes of
 * name. The instantiating crate only says where generic code was copied to.
 */
static char *demangle_v0(const char *name, size_t len)
{
	struct sbuf out = { 0 };
	struct v0 p = { .sym = name + 2, .len = len - 2, .out = &out };
	int err = 0;

	/* Paths start with an upper-case tag; a leading digit would be a version. */
	if (len < 3 || !is_upper(p.sym[0]))
		err = -EINVAL;
	for (size_t i = 0; i < p.len && !err; i++)
		if (p.sym[i] & 0x80)
			err = -EINVAL;
	if (!err)
		err = v0_path(&p, true);
	if (!err && is_upper(v0_peek(&p))) {
		p.out = NULL;
		err = v0_path(&p, false);
	}
	if (!err && !rust_suffix_ok(p.sym + p.pos, p.len - p.pos))
		err = -EINVAL;
	if (!err)
		err = sbuf_put(&out, p.sym + p.pos, p.len - p.pos);
	return demangled(&out, err);
}

char *demangle_rust__name(const char *name, bool *is_rust)
{
	size_t len, end;

	*is_rust = true;
	if (strncmp(name, "_R", 2) == 0)
		return demangle_v0(name, rust_strip_llvm(name));
	if (strncmp(name, "_ZN", 3) == 0) {
		len = rust_strip_llvm(name);
		end = rust_legacy_end(name, len);
		if (end && rust_suffix_ok(name + end, len - end))
			return demangle_legacy(name, end, len);
	}
	*is_rust = false;
	return NULL;
}
