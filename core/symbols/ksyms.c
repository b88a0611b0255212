// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel symbols from /proc/kallsyms: its text symbols, names and modules
 * copied into one buffer, sorted by address. See ksyms.h.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../util/log.h"
#include "ksyms.h"

struct ksyms {
	struct ksym *syms;
	size_t nr;
	char *names; /* every name and module, NUL-separated */
};

static int ksym_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Text symbols only: t/T, and w/W (weak, in text in practice). */
static bool ksym_type_wanted(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* Parses "ADDR TYPE NAME[\t[MODULE]]" in place; returns false for lines to skip. */
static bool ksym_parse_line(char *line, uint64_t *addr, char **name, char **module)
{
	char *end, *type, *rest, *mod;
	size_t len;

	errno = 0;
	*addr = strtoull(line, &end, 16);
	if (errno || end == line || *end != ' ')
		return false;
	type = end + 1;
	if (!ksym_type_wanted(type[0]) || type[1] != ' ')
		return false;
	*name = type + 2;
	len = strcspn(*name, "\t\n ");
	if (!len)
		return false;
	rest = (*name)[len] ? *name + len + 1 : *name + len;
	(*name)[len] = '\0';
	*module = NULL;
	mod = strchr(rest, '[');
	if (mod) {
		mod++;
		mod[strcspn(mod, "]\n")] = '\0';
		*module = mod;
	}
	return true;
}

struct ksyms_builder {
	struct ksym *syms;
	size_t nr, cap;
	char *names; /* grows; ksym names are offsets until the end */
	size_t len, names_cap;
	bool nonzero;
};

static int builder_add_str(struct ksyms_builder *b, const char *s, size_t *off)
{
	size_t n = strlen(s) + 1;

	if (b->len + n > b->names_cap) {
		size_t cap = b->names_cap ? b->names_cap * 2 : 1 << 16;
		char *names;

		while (cap < b->len + n)
			cap *= 2;
		names = realloc(b->names, cap);
		if (!names)
			return -ENOMEM;
		b->names = names;
		b->names_cap = cap;
	}
	memcpy(b->names + b->len, s, n);
	*off = b->len;
	b->len += n;
	return 0;
}

static int builder_add(struct ksyms_builder *b, uint64_t addr, uint64_t size, const char *name,
		       const char *module)
{
	size_t name_off, mod_off = SIZE_MAX;
	int err;

	if (b->nr == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		struct ksym *syms = reallocarray(b->syms, cap, sizeof(*syms));

		if (!syms)
			return -ENOMEM;
		b->syms = syms;
		b->cap = cap;
	}
	err = builder_add_str(b, name, &name_off);
	if (!err && module)
		err = builder_add_str(b, module, &mod_off);
	if (err)
		return err;
	/* Offsets for now: the names buffer may still move. */
	b->syms[b->nr].addr = addr;
	b->syms[b->nr].size = size;
	b->syms[b->nr].name = (const char *)(uintptr_t)name_off;
	b->syms[b->nr].module = (const char *)(uintptr_t)mod_off;
	b->nr++;
	b->nonzero |= addr != 0;
	return 0;
}

static struct ksyms *builder_finish(struct ksyms_builder *b)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	for (size_t i = 0; i < b->nr; i++) {
		size_t mod = (size_t)(uintptr_t)b->syms[i].module;

		b->syms[i].name = b->names + (size_t)(uintptr_t)b->syms[i].name;
		b->syms[i].module = mod == SIZE_MAX ? NULL : b->names + mod;
	}
	if (b->nr)
		qsort(b->syms, b->nr, sizeof(*b->syms), ksym_cmp);
	ks->syms = b->syms;
	ks->nr = b->nr;
	ks->names = b->names;
	return ks;
}

/* Parses one line in place; false for lines to skip. */
typedef bool (*sym_line_fn)(char *line, uint64_t *addr, uint64_t *size, char **name, char **module);

static bool kallsyms_line(char *line, uint64_t *addr, uint64_t *size, char **name, char **module)
{
	*size = 0; /* kallsyms has none: a symbol reaches the next one */
	return ksym_parse_line(line, addr, name, module);
}

/* Reads every line of f into b; 0 or -errno. */
static int symbols_read(FILE *f, const char *name, sym_line_fn parse, struct ksyms_builder *b)
{
	char *line = NULL, *sym_name, *module;
	uint64_t addr, size;
	size_t cap = 0;
	int err = 0;

	while (!err && getline(&line, &cap, f) > 0)
		if (parse(line, &addr, &size, &sym_name, &module))
			err = builder_add(b, addr, size, sym_name, module);
	free(line);
	if (!err && ferror(f)) {
		pr_err("%s: read error", name);
		err = -EIO;
	}
	return err;
}

static struct ksyms *builder_result(struct ksyms_builder *b, int err)
{
	struct ksyms *ks = err ? NULL : builder_finish(b);

	if (!ks) {
		free(b->syms);
		free(b->names);
		errno = err ? -err : ENOMEM;
	}
	return ks;
}

struct ksyms *ksyms__parse(FILE *f, const char *name)
{
	struct ksyms_builder b = {};
	int err = symbols_read(f, name, kallsyms_line, &b);

	if (!err && !b.nonzero) {
		/* kptr_restrict hides addresses from the unprivileged: useless, say so. */
		err = b.nr ? -EPERM : -ENOENT;
		pr_warn("%s: %s; kernel frames will not be symbolized", name,
			b.nr ? "addresses hidden (kptr_restrict)" : "no text symbols");
	}
	return builder_result(&b, err);
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms *ks;
	FILE *f = fopen(path, "re");

	if (!f) {
		int err = errno;

		pr_warn("cannot open %s: %s; kernel frames will not be symbolized", path,
			strerror(err));
		errno = err;
		return NULL;
	}
	ks = ksyms__parse(f, path);
	fclose(f);
	return ks;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->names);
	free(ks);
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks ? ks->nr : 0;
}

const struct ksym *ksyms__lookup(const struct ksyms *ks, uint64_t addr)
{
	size_t past;

	if (!ks)
		return NULL;
	past = SORTED_PAST(ks->syms, 0, ks->nr, addr, addr);
	return past ? &ks->syms[past - 1] : NULL;
}

/* Reading them in a thread of its own */

struct ksyms_preload {
	pthread_t thread;
	char *path;
	struct ksyms *ks; /* what ksyms__load() returned */
	int err;	  /* its errno when ks is NULL */
};

static void *preload_thread(void *arg)
{
	struct ksyms_preload *pl = arg;

	pl->ks = ksyms__load(pl->path);
	pl->err = pl->ks ? 0 : errno;
	return NULL;
}

struct ksyms_preload *ksyms__preload(const char *path)
{
	struct ksyms_preload *pl = calloc(1, sizeof(*pl));
	sigset_t all, old;
	int err;

	if (!pl)
		return NULL;
	pl->path = strdup(path);
	if (!pl->path) {
		free(pl);
		errno = ENOMEM;
		return NULL;
	}
	/* The thread takes no signal: they are the main thread's, which waits for them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&pl->thread, NULL, preload_thread, pl);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		free(pl->path);
		free(pl);
		errno = err;
		return NULL;
	}
	return pl;
}

struct ksyms *ksyms__preload_join(struct ksyms_preload *pl)
{
	struct ksyms *ks;
	int err;

	pthread_join(pl->thread, NULL);
	ks = pl->ks;
	err = pl->err;
	free(pl->path);
	free(pl);
	if (!ks)
		errno = err;
	return ks;
}
