// SPDX-License-Identifier: GPL-2.0-only
/* Where samples failed, by file and reason. See failures.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "failures.h"

struct failures {
	struct failure *v;
	size_t nr, cap;
};

struct failures *failures__new(void)
{
	return calloc(1, sizeof(struct failures));
}

static struct failure *failures__find(struct failures *fs, const char *file, unsigned int reason)
{
	for (size_t i = 0; i < fs->nr; i++)
		if (fs->v[i].reason == reason && strcmp(fs->v[i].file, file) == 0)
			return &fs->v[i];
	return NULL;
}

int failures__add(struct failures *fs, const char *file, unsigned int reason, uint64_t samples)
{
	struct failure *f;

	if (!file)
		file = "[unknown]";
	f = failures__find(fs, file, reason);
	if (f) {
		f->samples += samples;
		return 0;
	}
	if (fs->nr == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 16;
		struct failure *v = reallocarray(fs->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		fs->v = v;
		fs->cap = cap;
	}
	f = &fs->v[fs->nr];
	f->file = strdup(file);
	if (!f->file)
		return -ENOMEM;
	f->reason = reason;
	f->samples = samples;
	fs->nr++;
	return 0;
}

static int failure_cmp(const void *pa, const void *pb)
{
	const struct failure *a = pa, *b = pb;
	int c;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	c = strcmp(a->file, b->file);
	if (c)
		return c;
	return a->reason < b->reason ? -1 : a->reason > b->reason;
}

void failures__sort(struct failures *fs)
{
	if (fs->nr)
		qsort(fs->v, fs->nr, sizeof(*fs->v), failure_cmp);
}

size_t failures__count(const struct failures *fs)
{
	return fs ? fs->nr : 0;
}

const struct failure *failures__get(const struct failures *fs, size_t i)
{
	return i < fs->nr ? &fs->v[i] : NULL;
}

void failures__free(struct failures *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->nr; i++)
		free(fs->v[i].file);
	free(fs->v);
	free(fs);
}
