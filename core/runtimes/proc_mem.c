// SPDX-License-Identifier: GPL-2.0-only
/*
 * The processes an interpreter's namer reads. See proc_mem.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"
#include "proc_mem.h"

int proc_mem__read(const struct proc_mem *m, uint64_t addr, void *buf, size_t len)
{
	ssize_t n;

	if (!addr || m->fd < 0)
		return -EFAULT;
	n = pread(m->fd, buf, len, (off_t)addr);
	return n == (ssize_t)len ? 0 : -EFAULT;
}

void *proc_mem__at(const struct proc_mems *s, size_t i)
{
	return (char *)s->entries + i * s->size;
}

void *proc_mem__find(const struct proc_mems *s, uint32_t pid)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct proc_mem *m = proc_mem__at(s, i);

		if (m->pid == pid)
			return m;
	}
	return NULL;
}

int proc_mem__open(struct proc_mems *s, uint32_t pid, void **out)
{
	struct proc_mem *m = proc_mem__find(s, pid);
	char path[64];

	*out = NULL;
	if (m) {
		s->clear(m);
		if (m->fd >= 0)
			close(m->fd);
	} else {
		if (grow(&s->entries, &s->cap, s->nr, s->size))
			return -ENOMEM;
		m = proc_mem__at(s, s->nr++);
	}
	memset(m, 0, s->size);
	m->pid = pid;
	snprintf(path, sizeof(path), "/proc/%u/mem", pid);
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	*out = m;
	return m->fd < 0 ? -errno : 0;
}

int proc_mem__fork(struct proc_mems *s, uint32_t ppid, uint32_t pid, void **out)
{
	const struct proc_mem *parent;
	struct proc_mem *m;
	int err;

	*out = NULL;
	if (!proc_mem__find(s, ppid) || proc_mem__find(s, pid))
		return 0;
	err = proc_mem__open(s, pid, out);
	m = *out;
	parent = proc_mem__find(s, ppid); /* the entries may have moved */
	if (m && err && parent && parent->fd >= 0)
		m->fd = fcntl(parent->fd, F_DUPFD_CLOEXEC, 0);
	return m ? 0 : err;
}

void proc_mem__remove(struct proc_mems *s, uint32_t pid)
{
	struct proc_mem *m = proc_mem__find(s, pid);

	if (!m)
		return;
	s->clear(m);
	if (m->fd >= 0)
		close(m->fd);
	memmove(m, proc_mem__at(s, --s->nr), s->size);
}

void proc_mem__free(struct proc_mems *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct proc_mem *m = proc_mem__at(s, i);

		s->clear(m);
		if (m->fd >= 0)
			close(m->fd);
	}
	free(s->entries);
	*s = (struct proc_mems){ .size = s->size, .clear = s->clear };
}
