// SPDX-License-Identifier: GPL-2.0-only
/*
 * Naming Perl frames from the process's memory. See plframes.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/common.h"
#include "../../util/hashmap.h"
#include "bpf/abi.h"
#include "plframes.h"
#include "plruntime.h"
#include "../proc_mem.h"

#define NAME_MAX_LEN 1024	    /* longest name or file read */
#define LINE_MAX_NR (1u << 26)	    /* a line past this is not one */
#define READ_CHUNK 256		    /* bytes of a C string read at once */
#define SVt_MASK 0x1fu		    /* sv.h: an SV's type in its flags */
#define SVt_PVGV 9		    /* a GV's */
#define SVt_PVHV 12		    /* a stash's */
#define SVt_PVCV 13		    /* a CV's */
#define SVf_OOK 0x02000000u	    /* a hash with its aux struct (HvHasAUX) */
#define CVf_LEXICAL 0x10000u	    /* cv.h: a lexical sub, named without its package */
#define PAGE_SIZE_MIN 4096	    /* a C string is read no further than its page at once */
#define PTR_MASK ((1ULL << 48) - 1) /* where: the COP, a user address */

static const char unknown[] = "<unknown>";

/* A COP read: its file and line. */
struct pl_cop {
	uint64_t addr;
	uint16_t tag;
	uint32_t line;
	char *file;
};

/* What a frame's first word names: a sub, an eval. */
struct pl_name {
	uint64_t what;
	char *name;
};

/* A process the Perl namer reads: its memory, its interpreter, what was read. */
struct plframes_proc {
	struct proc_mem mem; /* first: an entry of struct proc_mems */
	struct plruntime rt;
	uint64_t bias;
	struct hashmap cops;  /* of struct pl_cop, by address and tag */
	struct hashmap names; /* of struct pl_name, by first word */
};

/* The namer of Perl frames: the processes it reads. */
struct plframes {
	struct proc_mems procs; /* of struct plframes_proc */
};

/* Reading an interpreter's memory */

static uint64_t mem_word(const struct pl_mem *m, uint64_t addr, int32_t off)
{
	uint64_t w = 0;

	if (!addr || m->read(m->ctx, addr + (uint64_t)(int64_t)off, &w, sizeof(w)))
		return 0;
	return w;
}

static uint32_t mem_u32(const struct pl_mem *m, uint64_t addr, int32_t off)
{
	uint32_t w = 0;

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
 * The NUL-terminated string at addr into buf (size bytes), read a chunk at
 * a time, none past its page: the string may end its memory. -EINVAL when
 * it cannot be read, does not end within size bytes or is not printable.
 */
static int read_cstring(const struct pl_mem *m, uint64_t addr, char *buf, size_t size)
{
	size_t have = 0;

	while (addr && have + 1 < size) {
		size_t n = PAGE_SIZE_MIN - (addr + have) % PAGE_SIZE_MIN;
		char *end;

		if (n > READ_CHUNK)
			n = READ_CHUNK;
		if (n > size - 1 - have)
			n = size - 1 - have;
		if (m->read(m->ctx, addr + have, buf + have, n))
			return -EINVAL;
		end = memchr(buf + have, '\0', n);
		if (end)
			return end > buf && printable(buf, (size_t)(end - buf)) ? 0 : -EINVAL;
		have += n;
	}
	return -EINVAL;
}

/* The key of HEK hek into buf (size bytes), after the prefix already there; -EINVAL if not one. */
static int append_hek(const struct pl_mem *m, uint64_t hek, char *buf, size_t size)
{
	const struct pl_offsets *o = m->off;
	size_t have = strlen(buf);
	int32_t len = (int32_t)mem_u32(m, hek, o->hek_len);

	if (!hek || len <= 0 || len > NAME_MAX_LEN || (size_t)len >= size - have ||
	    m->read(m->ctx, hek + (uint64_t)o->hek_key, buf + have, (size_t)len) ||
	    !printable(buf + have, (size_t)len))
		return -EINVAL;
	buf[have + (size_t)len] = '\0';
	return 0;
}

/* "NAME::" of stash hv into buf, or "__ANON__::" when it has none (as gv_fullname4). */
static int stash_prefix(const struct pl_mem *m, uint64_t hv, char *buf, size_t size)
{
	const struct pl_offsets *o = m->off;
	uint32_t flags = mem_u32(m, hv, o->sv_flags);
	uint64_t aux, hek;
	size_t len;

	buf[0] = '\0';
	if (!hv || (flags & SVt_MASK) != SVt_PVHV || !(flags & SVf_OOK))
		goto anon;
	aux = mem_word(m, hv, 0) + (uint64_t)o->hv_aux;
	hek = mem_word(m, aux, o->aux_name);
	if (hek && mem_u32(m, aux, o->aux_name_count))
		hek = mem_word(m, hek, 0); /* an array of names: the first is the stash's */
	if (!hek || append_hek(m, hek, buf, size))
		goto anon;
	len = strlen(buf);
	if (len + 3 > size)
		return -EINVAL;
	memcpy(buf + len, "::", 3);
	return 0;
anon:
	if (size < sizeof("__ANON__::"))
		return -EINVAL;
	memcpy(buf, "__ANON__::", sizeof("__ANON__::"));
	return 0;
}

/* A sub's name from its GV gv: its stash's name, "::", its own. */
static int gv_name(const struct pl_mem *m, uint64_t gv, char *buf, size_t size)
{
	const struct pl_offsets *o = m->off;
	uint64_t body = mem_word(m, gv, 0);

	if ((mem_u32(m, gv, o->sv_flags) & SVt_MASK) != SVt_PVGV || !body ||
	    stash_prefix(m, mem_word(m, body, o->gv_stash), buf, size))
		return -EINVAL;
	return append_hek(m, mem_word(m, body, o->gv_name), buf, size);
}

/* A sub's name from its CV cv that has a name HEK: a lexical one's alone. */
static int named_cv_name(const struct pl_mem *m, uint64_t cv, char *buf, size_t size)
{
	const struct pl_offsets *o = m->off;
	uint64_t body = mem_word(m, cv, 0);

	if ((mem_u32(m, cv, o->sv_flags) & SVt_MASK) != SVt_PVCV || !body)
		return -EINVAL;
	buf[0] = '\0';
	if (!(mem_u32(m, body, o->cv_flags) & CVf_LEXICAL) &&
	    stash_prefix(m, mem_word(m, body, o->cv_stash), buf, size))
		return -EINVAL;
	return append_hek(m, mem_word(m, body, o->cv_gv), buf, size);
}

static int copy_name(const char *name, char *buf, size_t size)
{
	if (strlen(name) >= size)
		return -EINVAL;
	strcpy(buf, name);
	return 0;
}

int plframes__what_name(const struct pl_mem *m, uint64_t what, char *buf, size_t size)
{
	uint64_t value = what & UNW_PL_VALUE_MASK;

	if (!size)
		return -EINVAL;
	buf[0] = '\0';
	switch (what >> UNW_PL_KIND_SHIFT & 0xff) {
	case UNW_PL_SUB:
		return gv_name(m, value, buf, size);
	case UNW_PL_SUB_NAMED:
		return named_cv_name(m, value, buf, size);
	case UNW_PL_EVAL:
		if (value == m->off->op_require)
			return copy_name("(require)", buf, size);
		if (value == m->off->op_dofile)
			return copy_name("(do)", buf, size);
		return copy_name("(eval)", buf, size);
	case UNW_PL_SORT:
		return copy_name("(sort)", buf, size);
	case UNW_PL_MAIN:
		return copy_name("main::RUNTIME", buf, size);
	case UNW_PL_MAP:
		return copy_name("(map)", buf, size);
	case UNW_PL_GREP:
		return copy_name("(grep)", buf, size);
	}
	return -EINVAL;
}

int plframes__cop(const struct pl_mem *m, uint64_t cop, uint16_t tag, uint32_t *line, char *buf,
		  size_t size)
{
	const struct pl_offsets *o = m->off;
	uint64_t file;

	if (!cop || m->read(m->ctx, cop + (uint64_t)o->cop_line, line, sizeof(*line)) ||
	    m->read(m->ctx, cop + (uint64_t)o->cop_file, &file, sizeof(file)))
		return -EINVAL;
	if (UNW_PL_TAG(file, *line) != tag || *line >= LINE_MAX_NR)
		return -EINVAL;
	return read_cstring(m, file, buf, size);
}

/* The process's memory as a struct pl_mem reads it. */
static int proc_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return proc_mem__read(ctx, addr, buf, len);
}

static struct pl_mem proc_pl_mem(const struct plframes_proc *p)
{
	return (struct pl_mem){ .read = proc_read, .ctx = (void *)&p->mem, .off = &p->rt.off };
}

/* The caches of a process */

static uint64_t cop_hash(uint64_t addr, uint16_t tag)
{
	return hash_u64(addr ^ (uint64_t)tag << 48);
}

struct cop_key {
	uint64_t addr;
	uint16_t tag;
};

static bool cop_has_key(const void *value, const void *key)
{
	const struct pl_cop *c = value;
	const struct cop_key *k = key;

	return c->addr == k->addr && c->tag == k->tag;
}

/* Keeps the COP at addr with tag, of file and line; NULL when it cannot. */
static const struct pl_cop *cop_add(struct plframes_proc *p, uint64_t addr, uint16_t tag,
				    const char *file, uint32_t line)
{
	struct pl_cop *c = calloc(1, sizeof(*c));

	if (c)
		*c = (struct pl_cop){ .addr = addr, .tag = tag, .line = line, .file = strdup(file) };
	if (c && c->file && !hashmap__add(&p->cops, cop_hash(addr, tag), c))
		return c;
	if (c)
		free(c->file);
	free(c);
	return NULL;
}

static const struct pl_cop *cop_find(const struct plframes_proc *p, uint64_t addr, uint16_t tag)
{
	struct cop_key k = { addr, tag };

	return hashmap__find(&p->cops, cop_hash(addr, tag), cop_has_key, &k);
}

/*
 * The COP at addr with tag, read now if it was not read yet; NULL when it
 * cannot be (not kept: tried again when next asked for).
 */
static const struct pl_cop *cop_get(struct plframes_proc *p, uint64_t addr, uint16_t tag)
{
	struct pl_mem m = proc_pl_mem(p);
	const struct pl_cop *c = cop_find(p, addr, tag);
	char file[NAME_MAX_LEN];
	uint32_t line;

	if (c || !addr)
		return c;
	if (plframes__cop(&m, addr, tag, &line, file, sizeof(file)))
		return NULL;
	return cop_add(p, addr, tag, file, line);
}

static bool name_has_key(const void *value, const void *key)
{
	return ((const struct pl_name *)value)->what == *(const uint64_t *)key;
}

/* The name of first word what, read now if it was not yet; NULL when it does not check out. */
static const char *name_get(struct plframes_proc *p, uint64_t what)
{
	struct pl_mem m = proc_pl_mem(p);
	char buf[2 * NAME_MAX_LEN + 16];
	struct pl_name *nm = hashmap__find(&p->names, hash_u64(what), name_has_key, &what);

	if (nm)
		return nm->name;
	if (plframes__what_name(&m, what, buf, sizeof(buf)))
		return NULL;
	nm = calloc(1, sizeof(*nm));
	if (nm)
		*nm = (struct pl_name){ .what = what, .name = strdup(buf) };
	if (nm && nm->name && !hashmap__add(&p->names, hash_u64(what), nm))
		return nm->name;
	if (nm)
		free(nm->name);
	free(nm);
	return NULL;
}

/* The namer */

static struct plframes_proc *proc_find(struct plframes *n, uint32_t pid)
{
	return proc_mem__find(&n->procs, pid);
}

/* Frees what the entry read, not its memory's fd: struct proc_mems closes it. */
static void proc_clear(void *entry)
{
	struct plframes_proc *p = entry;

	for (size_t i = 0; i < p->cops.cap; i++) {
		struct pl_cop *c = p->cops.slots[i].value;

		if (c)
			free(c->file);
		free(c);
	}
	for (size_t i = 0; i < p->names.cap; i++) {
		struct pl_name *nm = p->names.slots[i].value;

		if (nm)
			free(nm->name);
		free(nm);
	}
	hashmap__exit(&p->cops);
	hashmap__exit(&p->names);
}

/* The same interpreter at the same place: what was read of it still holds. */
static bool same_runtime(const struct plframes_proc *p, const struct plruntime *pr, uint64_t bias)
{
	return p->bias == bias && p->rt.revision == pr->revision && p->rt.version == pr->version &&
	       p->rt.subversion == pr->subversion && p->rt.runops_lo == pr->runops_lo &&
	       p->rt.runops_hi == pr->runops_hi;
}

struct plframes *plframes__new(void)
{
	struct plframes *n = calloc(1, sizeof(struct plframes));

	if (n)
		n->procs = (struct proc_mems){ .size = sizeof(struct plframes_proc),
					       .clear = proc_clear };
	return n;
}

void plframes__free(struct plframes *n)
{
	if (!n)
		return;
	proc_mem__free(&n->procs);
	free(n);
}

int plframes__add_process(struct plframes *n, uint32_t pid, const struct plruntime *pr,
			  uint64_t bias)
{
	struct plframes_proc *p = proc_find(n, pid);
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

int plframes__fork(struct plframes *n, uint32_t ppid, uint32_t pid)
{
	struct plframes_proc *p, *parent;
	int err = proc_mem__fork(&n->procs, ppid, pid, (void **)&p);

	parent = proc_find(n, ppid);
	if (p && parent) {
		p->rt = parent->rt;
		p->bias = parent->bias;
	}
	return err;
}

void plframes__remove_process(struct plframes *n, uint32_t pid)
{
	proc_mem__remove(&n->procs, pid);
}

void plframes__read_cop(struct plframes *n, uint32_t pid, uint64_t where, const char *file,
			uint32_t line)
{
	struct plframes_proc *p = proc_find(n, pid);
	uint64_t addr = where & PTR_MASK;
	uint16_t tag = (uint16_t)(where >> UNW_PL_TAG_SHIFT);

	if (!p)
		return;
	/* the copy is taken as the process's memory is: checked */
	if (file && *file && printable(file, strlen(file)) && line < LINE_MAX_NR &&
	    !cop_find(p, addr, tag))
		cop_add(p, addr, tag, file, line);
	else
		cop_get(p, addr, tag);
}

void plframes__read_name(struct plframes *n, uint32_t pid, uint64_t what)
{
	struct plframes_proc *p = proc_find(n, pid);

	if (p)
		name_get(p, what);
}

int plframes__name(struct plframes *n, uint32_t pid, uint64_t what, uint64_t where,
		   struct pl_frame_name *out)
{
	struct plframes_proc *p = proc_find(n, pid);
	const struct pl_cop *c;
	const char *name;

	*out = (struct pl_frame_name){ .name = unknown, .file = unknown };
	if (!p)
		return -ENOENT;
	name = name_get(p, what);
	c = cop_get(p, where & PTR_MASK, (uint16_t)(where >> UNW_PL_TAG_SHIFT));
	if (name)
		out->name = name;
	if (c) {
		out->file = c->file;
		out->line = c->line;
	}
	return 0;
}
