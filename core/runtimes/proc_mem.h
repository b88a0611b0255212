/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The processes an interpreter's namer reads (core/runtimes/runtimes.h:
 * struct frame_namer_ops), through /proc/PID/mem: each is an entry of the namer's own
 * type whose first member is a struct proc_mem, kept in an array. Memory
 * of a profiled process is untrusted: a read is all or nothing.
 */
#ifndef UNWPROF_PROC_MEM_H
#define UNWPROF_PROC_MEM_H

#include <stddef.h>
#include <stdint.h>

struct proc_mem {
	uint32_t pid;
	int fd; /* /proc/PID/mem; -1 when it could not be opened */
};

/* Reads len bytes at addr of m's process: 0, or -EFAULT (addr 0 too). */
int proc_mem__read(const struct proc_mem *m, uint64_t addr, void *buf, size_t len);

struct proc_mems {
	void *entries; /* size bytes each, a struct proc_mem first */
	size_t nr, cap;
	size_t size;
	void (*clear)(void *entry); /* frees an entry's own resources, before it goes or is reused */
};

/* The entry of pid, or NULL. */
void *proc_mem__find(const struct proc_mems *s, uint32_t pid);
/* Entry i of nr. */
void *proc_mem__at(const struct proc_mems *s, size_t i);

/*
 * The entry of pid, zeroed, its memory opened anew, in *out (the entry
 * pid had, cleared, or a new one). 0, -errno of the open (the entry is
 * kept, its fd -1), or -ENOMEM (*out NULL).
 */
int proc_mem__open(struct proc_mems *s, uint32_t pid, void **out);

/*
 * The entry of pid, a child of ppid, opened as proc_mem__open() does, in
 * *out: when the child is gone before its memory could be opened, its
 * memory is read through its parent's, which it was until it exited or
 * exec'd. 0 with *out NULL when ppid has no entry or pid has one already;
 * else as proc_mem__open(). The parent's entry may have moved: find it again.
 */
int proc_mem__fork(struct proc_mems *s, uint32_t ppid, uint32_t pid, void **out);
/* Clears and removes the entry of pid. */
void proc_mem__remove(struct proc_mems *s, uint32_t pid);

/* Clears every entry, closes its memory and frees the array. */
void proc_mem__free(struct proc_mems *s);

#endif
