// SPDX-License-Identifier: GPL-2.0-only
/* The executable mappings of a process, from /proc/PID/maps. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../elf/elf_file.h"
#include "../util/log.h"
#include "procmaps.h"

static enum procmap_kind procmaps__kind(const char *path)
{
	if (!*path || strncmp(path, "[anon:", 6) == 0)
		return PROCMAP_ANON;
	if (*path == '[')
		return PROCMAP_SPECIAL;
	return PROCMAP_FILE;
}

/*
 * One line: "start-end perms offset major:minor inode   path". Returns 1 and
 * fills m for an executable mapping, 0 for another mapping, -EINVAL when the
 * line is malformed.
 */
static int procmaps__parse_line(char *line, struct procmap *m)
{
	char perms[8];
	int path_at = 0;
	size_t len;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &m->start,
		   &m->end, perms, &m->offset, &m->dev_major, &m->dev_minor, &m->inode,
		   &path_at) < 7 ||
	    !path_at || m->end <= m->start)
		return -EINVAL;
	if (strlen(perms) < 4 || perms[2] != 'x')
		return 0;
	len = strlen(line + path_at);
	while (len && (line[path_at + len - 1] == '\n' || line[path_at + len - 1] == ' '))
		line[path_at + --len] = '\0';
	m->kind = procmaps__kind(line + path_at);
	if (m->kind == PROCMAP_ANON && !line[path_at])
		return 1;
	m->path = strdup(line + path_at);
	return m->path ? 1 : -ENOMEM;
}

static int procmaps__cmp(const void *a, const void *b)
{
	const struct procmap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int procmaps__push(struct procmaps *pm, size_t *cap, const struct procmap *m)
{
	if (pm->nr == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct procmap *n = realloc(pm->maps, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		pm->maps = n;
		*cap = ncap;
	}
	pm->maps[pm->nr++] = *m;
	return 0;
}

struct procmaps *procmaps__parse(FILE *f, pid_t pid, const char *name)
{
	struct procmaps *pm = calloc(1, sizeof(*pm));
	char *line = NULL;
	size_t line_cap = 0, cap = 0, lineno = 0;
	struct procmap m;
	int err = -ENOMEM;

	if (!pm)
		goto cleanup;
	pm->pid = pid;
	while (getline(&line, &line_cap, f) > 0) {
		lineno++;
		err = procmaps__parse_line(line, &m);
		if (err == -EINVAL) {
			pr_err("%s:%zu: malformed mapping line", name, lineno);
			goto cleanup;
		}
		if (err < 0)
			goto cleanup;
		if (err == 0)
			continue;
		err = procmaps__push(pm, &cap, &m);
		if (err) {
			free(m.path);
			goto cleanup;
		}
	}
	err = ferror(f) ? -EIO : 0;
	if (err)
		pr_err("%s: read error", name);
	else if (pm->nr)
		qsort(pm->maps, pm->nr, sizeof(*pm->maps), procmaps__cmp);
cleanup:
	free(line);
	if (err) {
		procmaps__free(pm);
		errno = -err;
		return NULL;
	}
	return pm;
}

void procmaps__free(struct procmaps *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < pm->nr; i++)
		free(pm->maps[i].path);
	free(pm->maps);
	free(pm);
}

const struct procmap *procmaps__find(const struct procmaps *pm, uint64_t addr)
{
	size_t lo = SORTED_PAST(pm->maps, 0, pm->nr, start, addr);

	if (lo == 0 || addr >= pm->maps[lo - 1].end)
		return NULL;
	return &pm->maps[lo - 1];
}

bool procmaps__is_vdso(const struct procmap *m)
{
	return m->kind == PROCMAP_SPECIAL && m->path && strcmp(m->path, "[vdso]") == 0;
}
