// SPDX-License-Identifier: GPL-2.0-only
/*
 * Naming PHP frames from the process's memory. See phframes.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/common.h"
#include "../../util/hashmap.h"
#include "bpf/abi.h"
#include "phframes.h"
#include "phruntime.h"
#include "../proc_mem.h"

#define NAME_MAX_LEN 1024      /* longest name, class name or file read */
#define LINE_MAX_NR (1u << 24) /* a line past this is not one (as the BPF walk's) */

static const char unknown[] = "<unknown>";

/* A function read: its name, file and lines, by its frame word and tag. */
struct ph_fn {
	uint64_t what;
	uint16_t tag;
	char *name;
	char *file;
	uint32_t line_start, line_end;
};

/* A process the PHP namer reads: its memory, its interpreter, what was read. */
struct phframes_proc {
	struct proc_mem mem; /* first: an entry of struct proc_mems */
	struct phruntime rt;
	uint64_t bias;
	struct hashmap fns; /* of struct ph_fn, by frame word and tag */
};

/* The namer of PHP frames: the processes it reads. */
struct phframes {
	struct proc_mems procs; /* of struct phframes_proc */
};

/* Reading an interpreter's memory */

static uint64_t mem_word(const struct ph_mem *m, uint64_t addr, int32_t off)
{
	uint64_t w = 0;

	if (!addr || m->read(m->ctx, addr + (uint64_t)(int64_t)off, &w, sizeof(w)))
		return 0;
	return w;
}

/* Whether the n bytes of s are a name's or a path's: printable, no NUL. */
static bool printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

/*
 * The zend_string at str appended to buf (size bytes, a C string): -EINVAL
 * when it cannot be read, is empty, longer than NAME_MAX_LEN or than buf
 * has room for, or not printable.
 */
static int append_string(const struct ph_mem *m, uint64_t str, char *buf, size_t size)
{
	const struct ph_offsets *o = m->off;
	size_t have = strlen(buf);
	uint64_t len = mem_word(m, str, o->str_len);

	if (!str || !len || len > NAME_MAX_LEN || len >= size - have ||
	    m->read(m->ctx, str + (uint64_t)o->str_val, buf + have, (size_t)len) ||
	    !printable(buf + have, (size_t)len))
		return -EINVAL;
	buf[have + len] = '\0';
	return 0;
}

static int copy_name(const char *name, char *buf, size_t size)
{
	if (strlen(name) >= size)
		return -EINVAL;
	strcpy(buf, name);
	return 0;
}

/* A function's name: its class's name and "::" when it has a scope, its own. */
static int function_name(const struct ph_mem *m, uint64_t fn, uint64_t name, char *buf, size_t size)
{
	uint64_t scope = mem_word(m, fn, m->off->fn_scope);

	buf[0] = '\0';
	if (scope) {
		size_t len;

		if (append_string(m, mem_word(m, scope, m->off->ce_name), buf, size))
			return -EINVAL;
		len = strlen(buf);
		if (len + 3 > size)
			return -EINVAL;
		memcpy(buf + len, "::", 3);
	}
	return append_string(m, name, buf, size);
}

/* The name of a file's or an eval's code of kind kind into buf; -EINVAL for a function's. */
static int code_name(uint32_t kind, char *buf, size_t size)
{
	switch (kind) {
	case UNW_PH_MAIN:
		return copy_name("{main}", buf, size);
	case UNW_PH_INCLUDE:
		return copy_name("{include}", buf, size);
	case UNW_PH_EVAL:
		return copy_name("{eval}", buf, size);
	}
	return -EINVAL;
}

int phframes__function(const struct ph_mem *m, uint64_t what, uint16_t tag, struct ph_function *f)
{
	const struct ph_offsets *o = m->off;
	uint64_t fn = what & UNW_PH_VALUE_MASK, name;
	uint32_t kind = (uint32_t)(what >> UNW_PH_KIND_SHIFT & 0xff), lines[2];
	uint8_t type = 0;
	int err;

	if (!fn || m->read(m->ctx, fn, &type, 1) ||
	    (type != UNW_PH_USER_FUNCTION && type != UNW_PH_EVAL_CODE))
		return -EINVAL;
	name = mem_word(m, fn, o->fn_name);
	if (UNW_CODE_TAG(kind == UNW_PH_FUNCTION ? name : mem_word(m, fn, o->fn_filename)) != tag)
		return -EINVAL;
	if (kind == UNW_PH_FUNCTION)
		err = function_name(m, fn, name, f->name, sizeof(f->name));
	else
		err = code_name(kind, f->name, sizeof(f->name));
	if (err)
		return err;
	f->file[0] = '\0';
	if (append_string(m, mem_word(m, fn, o->fn_filename), f->file, sizeof(f->file)) ||
	    m->read(m->ctx, fn + (uint64_t)o->fn_line_start, &lines[0], sizeof(lines[0])) ||
	    m->read(m->ctx, fn + (uint64_t)o->fn_line_end, &lines[1], sizeof(lines[1])) ||
	    lines[0] > lines[1] || lines[1] >= LINE_MAX_NR)
		return -EINVAL;
	f->line_start = lines[0];
	f->line_end = lines[1];
	return 0;
}

/* The process's memory as a struct ph_mem reads it. */
static int proc_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return proc_mem__read(ctx, addr, buf, len);
}

static struct ph_mem proc_ph_mem(const struct phframes_proc *p)
{
	return (struct ph_mem){ .read = proc_read, .ctx = (void *)&p->mem, .off = &p->rt.off };
}

/* The cache of a process */

static uint64_t fn_hash(uint64_t what, uint16_t tag)
{
	return hash_u64(what ^ (uint64_t)tag << 56);
}

struct fn_key {
	uint64_t what;
	uint16_t tag;
};

static bool fn_has_key(const void *value, const void *key)
{
	const struct ph_fn *f = value;
	const struct fn_key *k = key;

	return f->what == k->what && f->tag == k->tag;
}

/* Keeps function fn, of frame word what with tag; NULL when it cannot. */
static struct ph_fn *fn_add(struct phframes_proc *p, uint64_t what, uint16_t tag,
			    const struct ph_function *fn)
{
	struct ph_fn *f = calloc(1, sizeof(*f));

	if (f)
		*f = (struct ph_fn){ .what = what,
				     .tag = tag,
				     .name = strdup(fn->name),
				     .file = strdup(fn->file),
				     .line_start = fn->line_start,
				     .line_end = fn->line_end };
	if (f && f->name && f->file && !hashmap__add(&p->fns, fn_hash(what, tag), f))
		return f;
	if (f) {
		free(f->name);
		free(f->file);
	}
	free(f);
	return NULL;
}

/*
 * The function of frame word what with tag, read now if it was not read
 * yet; NULL when it cannot be (not kept: tried again when next asked for).
 */
static const struct ph_fn *fn_get(struct phframes_proc *p, uint64_t what, uint16_t tag)
{
	struct ph_mem m = proc_ph_mem(p);
	struct fn_key k = { what, tag };
	struct ph_fn *f = hashmap__find(&p->fns, fn_hash(what, tag), fn_has_key, &k);
	struct ph_function *read;

	if (f)
		return f;
	read = malloc(sizeof(*read));
	if (!read || phframes__function(&m, what, tag, read)) {
		free(read);
		return NULL;
	}
	f = fn_add(p, what, tag, read);
	free(read);
	return f;
}

/* The namer */

static struct phframes_proc *proc_find(struct phframes *n, uint32_t pid)
{
	return proc_mem__find(&n->procs, pid);
}

/* Frees what the entry read, not its memory's fd: struct proc_mems closes it. */
static void proc_clear(void *entry)
{
	struct phframes_proc *p = entry;

	for (size_t i = 0; i < p->fns.cap; i++) {
		struct ph_fn *f = p->fns.slots[i].value;

		if (f) {
			free(f->name);
			free(f->file);
		}
		free(f);
	}
	hashmap__exit(&p->fns);
}

/* The same interpreter at the same place: what was read of it still holds. */
static bool same_runtime(const struct phframes_proc *p, const struct phruntime *pr, uint64_t bias)
{
	return p->bias == bias && p->rt.major == pr->major && p->rt.minor == pr->minor &&
	       p->rt.release == pr->release && p->rt.execute_lo == pr->execute_lo &&
	       p->rt.executor_globals == pr->executor_globals;
}

struct phframes *phframes__new(void)
{
	struct phframes *n = calloc(1, sizeof(struct phframes));

	if (n)
		n->procs = (struct proc_mems){ .size = sizeof(struct phframes_proc),
					       .clear = proc_clear };
	return n;
}

void phframes__free(struct phframes *n)
{
	if (!n)
		return;
	proc_mem__free(&n->procs);
	free(n);
}

int phframes__add_process(struct phframes *n, uint32_t pid, const struct phruntime *pr,
			  uint64_t bias)
{
	struct phframes_proc *p = proc_find(n, pid);
	int err;

	if (p && same_runtime(p, pr, bias))
		return 0;
	err = proc_mem__open(&n->procs, pid, (void **)&p);
	if (p) {
		p->rt = *pr;
		p->bias = bias;
	}
	return err;
}

int phframes__fork(struct phframes *n, uint32_t ppid, uint32_t pid)
{
	struct phframes_proc *p, *parent;
	int err = proc_mem__fork(&n->procs, ppid, pid, (void **)&p);

	parent = proc_find(n, ppid);
	if (p && parent) {
		p->rt = parent->rt;
		p->bias = parent->bias;
	}
	return err;
}

void phframes__remove_process(struct phframes *n, uint32_t pid)
{
	proc_mem__remove(&n->procs, pid);
}

void phframes__read_function(struct phframes *n, uint32_t pid, uint64_t what, uint16_t tag)
{
	struct phframes_proc *p = proc_find(n, pid);

	if (p)
		fn_get(p, what, tag);
}

void phframes__read_code(struct phframes *n, uint32_t pid, uint64_t what, uint16_t tag,
			 const char *file, uint32_t line_start, uint32_t line_end)
{
	struct phframes_proc *p = proc_find(n, pid);
	struct fn_key k = { what, tag };
	struct ph_function *f;

	if (!p || hashmap__find(&p->fns, fn_hash(what, tag), fn_has_key, &k))
		return;
	f = malloc(sizeof(*f));
	/* the copy is taken as the process's memory is: checked */
	if (f && *file && strlen(file) < sizeof(f->file) && printable(file, strlen(file)) &&
	    line_start <= line_end && line_end < LINE_MAX_NR &&
	    !code_name((uint32_t)(what >> UNW_PH_KIND_SHIFT & 0xff), f->name, sizeof(f->name))) {
		strcpy(f->file, file);
		f->line_start = line_start;
		f->line_end = line_end;
		fn_add(p, what, tag, f);
	} else {
		fn_get(p, what, tag);
	}
	free(f);
}

int phframes__name(struct phframes *n, uint32_t pid, uint64_t what, uint64_t where,
		   struct ph_frame_name *out)
{
	struct phframes_proc *p = proc_find(n, pid);
	uint32_t line = (uint32_t)(where & UNW_PH_LINE_MASK);
	const struct ph_fn *f;

	*out = (struct ph_frame_name){ .name = unknown, .file = unknown };
	if (!p)
		return -ENOENT;
	f = fn_get(p, what, (uint16_t)(where >> UNW_PH_TAG_SHIFT));
	if (!f)
		return 0;
	out->name = f->name;
	out->file = f->file;
	out->first_line = f->line_start;
	/* an opline's line lies in its function; one that does not is none */
	if (line >= f->line_start && line <= f->line_end)
		out->line = line;
	return 0;
}
