// SPDX-License-Identifier: GPL-2.0-only
/*
 * The profile model: arrays of samples, locations and mappings, each with a
 * hash index so that identical entries are merged as they are added. The
 * frames of a sample are a stack interned once for every sample that has
 * them: the samples of a run grow with its processes and threads, while
 * their stacks mostly repeat.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "profile.h"

/* Open addressing over ids; a slot holds id + 1 so that 0 means empty. */
struct id_index {
	uint32_t *slots;
	size_t cap; /* a power of two, or 0 */
	size_t nr;
};

/* The frames of a sample: nr_user user ids, then nr_kernel kernel ids. */
struct stack {
	uint32_t *ids;
	uint32_t nr_user, nr_kernel;
};

/* The source lines of one location. */
struct line_set {
	struct profile_line *lines;
	uint32_t nr;
};

/* Strings that lines share (file names repeat in every line of a file): each copied once. */
struct strings {
	char **slots;
	size_t cap; /* a power of two, or 0 */
	size_t nr;
};

struct profile {
	struct profile_sample *samples;
	size_t nr_samples, cap_samples;
	struct profile_location *locations;
	size_t nr_locations, cap_locations;
	struct profile_mapping *mappings;
	size_t nr_mappings, cap_mappings;
	struct stack *stacks;
	size_t nr_stacks, cap_stacks;
	struct id_index stack_index;
	struct id_index sample_index;
	struct id_index location_index;
	struct id_index mapping_index;
	uint64_t total;
	struct line_set *lines; /* by location id, up to nr_line_sets */
	size_t nr_line_sets, cap_line_sets;
	struct strings strings;
};

typedef uint64_t (*hash_fn)(const struct profile *p, uint32_t id);
typedef bool (*eq_fn)(const struct profile *p, uint32_t id, const void *key);

static uint64_t hash_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static uint64_t hash_bytes(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *b = buf;

	for (size_t i = 0; i < len; i++)
		h = hash_mix(h, b[i]);
	return h;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	return s ? hash_bytes(h, s, strlen(s) + 1) : hash_mix(h, 0xff);
}

#define HASH_SEED 0xcbf29ce484222325ULL

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/* The slot holding a match for key, or the empty slot where it would go. */
static uint32_t *id_index__slot(const struct id_index *ix, uint64_t hash, const struct profile *p,
				eq_fn eq, const void *key)
{
	size_t mask = ix->cap - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		uint32_t *slot = &ix->slots[i];

		if (!*slot || eq(p, *slot - 1, key))
			return slot;
	}
}

/* Makes room for one more id, rehashing every id with hash(). */
static int id_index__reserve(struct id_index *ix, const struct profile *p, hash_fn hash)
{
	struct id_index bigger = {};

	if ((ix->nr + 1) * 4 <= ix->cap * 3)
		return 0;
	bigger.cap = ix->cap ? ix->cap * 2 : 64;
	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (size_t i = 0; i < ix->cap; i++) {
		uint32_t id = ix->slots[i];
		size_t j;

		if (!id)
			continue;
		for (j = hash(p, id - 1) & (bigger.cap - 1); bigger.slots[j];
		     j = (j + 1) & (bigger.cap - 1))
			;
		bigger.slots[j] = id;
	}
	bigger.nr = ix->nr;
	free(ix->slots);
	*ix = bigger;
	return 0;
}

/* grow(), for the arrays whose indexes are 32-bit ids. */
static int grow_ids(void **arr, size_t *cap, size_t nr, size_t elem)
{
	if (nr >= PROFILE_NONE - 1)
		return -E2BIG;
	return grow(arr, cap, nr, elem);
}

struct profile *profile__new(void)
{
	return calloc(1, sizeof(struct profile));
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_stacks; i++)
		free(p->stacks[i].ids);
	free(p->stacks);
	free(p->stack_index.slots);
	for (size_t i = 0; i < p->nr_locations; i++) {
		free(p->locations[i].function);
		free(p->locations[i].system_name);
	}
	for (size_t i = 0; i < p->nr_mappings; i++) {
		free(p->mappings[i].file);
		free(p->mappings[i].build_id);
	}
	free(p->samples);
	free(p->locations);
	free(p->mappings);
	free(p->sample_index.slots);
	free(p->location_index.slots);
	free(p->mapping_index.slots);
	for (size_t i = 0; i < p->nr_line_sets; i++)
		free(p->lines[i].lines);
	free(p->lines);
	for (size_t i = 0; i < p->strings.cap; i++)
		free(p->strings.slots[i]);
	free(p->strings.slots);
	free(p);
}

/* Mappings */

static uint64_t mapping_hash(const struct profile_mapping *m)
{
	uint64_t h = HASH_SEED;

	h = hash_mix(h, m->start);
	h = hash_mix(h, m->limit);
	h = hash_mix(h, m->offset);
	h = hash_str(h, m->file);
	return hash_str(h, m->build_id);
}

static uint64_t mapping_hash_id(const struct profile *p, uint32_t id)
{
	return mapping_hash(&p->mappings[id]);
}

static bool mapping_eq(const struct profile *p, uint32_t id, const void *key)
{
	const struct profile_mapping *a = &p->mappings[id], *b = key;

	return a->start == b->start && a->limit == b->limit && a->offset == b->offset &&
	       str_eq(a->file, b->file) && str_eq(a->build_id, b->build_id);
}

int profile__add_mapping(struct profile *p, const struct profile_mapping *m, uint32_t *id)
{
	struct profile_mapping *n;
	uint32_t *slot;
	int err;

	err = id_index__reserve(&p->mapping_index, p, mapping_hash_id);
	if (err)
		return err;
	slot = id_index__slot(&p->mapping_index, mapping_hash(m), p, mapping_eq, m);
	if (*slot) {
		*id = *slot - 1;
		return 0;
	}
	err = grow_ids((void **)&p->mappings, &p->cap_mappings, p->nr_mappings, sizeof(*n));
	if (err)
		return err;
	n = &p->mappings[p->nr_mappings];
	*n = *m;
	n->file = m->file ? strdup(m->file) : NULL;
	n->build_id = m->build_id ? strdup(m->build_id) : NULL;
	if ((m->file && !n->file) || (m->build_id && !n->build_id)) {
		free(n->file);
		free(n->build_id);
		return -ENOMEM;
	}
	*id = p->nr_mappings++;
	*slot = *id + 1;
	p->mapping_index.nr++;
	return 0;
}

/* Locations */

static uint64_t location_hash(const struct profile_location *l)
{
	uint64_t h = HASH_SEED;

	h = hash_mix(h, l->addr);
	h = hash_mix(h, l->pid);
	h = hash_mix(h, (uint64_t)l->kind << 32 | l->line);
	return hash_mix(h, (uint64_t)l->kernel << 1 | l->return_addr);
}

static uint64_t location_hash_id(const struct profile *p, uint32_t id)
{
	return location_hash(&p->locations[id]);
}

static bool location_eq(const struct profile *p, uint32_t id, const void *key)
{
	const struct profile_location *a = &p->locations[id], *b = key;

	return !a->retired && a->addr == b->addr && a->pid == b->pid && a->kernel == b->kernel &&
	       a->return_addr == b->return_addr && a->kind == b->kind && a->line == b->line;
}

static int location_append(struct profile *p, const struct profile_location *loc, uint32_t *id)
{
	struct profile_location *n;
	int err;

	err = grow_ids((void **)&p->locations, &p->cap_locations, p->nr_locations, sizeof(*n));
	if (err)
		return err;
	n = &p->locations[p->nr_locations];
	*n = *loc;
	n->function = loc->function ? strdup(loc->function) : NULL;
	n->system_name = loc->system_name ? strdup(loc->system_name) : NULL;
	if ((loc->function && !n->function) || (loc->system_name && !n->system_name)) {
		free(n->function);
		free(n->system_name);
		return -ENOMEM;
	}
	*id = p->nr_locations++;
	return 0;
}

int profile__add_location(struct profile *p, const struct profile_location *loc, uint32_t *id)
{
	if (loc->mapping != PROFILE_NONE && loc->mapping >= p->nr_mappings)
		return -EINVAL;
	return location_append(p, loc, id);
}

/* The location equal to key, added when there is none (*added then true). */
static int intern(struct profile *p, const struct profile_location *key, uint32_t *id, bool *added)
{
	uint32_t *slot;
	int err;

	*added = false;
	err = id_index__reserve(&p->location_index, p, location_hash_id);
	if (err)
		return err;
	slot = id_index__slot(&p->location_index, location_hash(key), p, location_eq, key);
	if (*slot) {
		*id = *slot - 1;
		return 0;
	}
	err = location_append(p, key, id);
	if (err)
		return err;
	*slot = *id + 1;
	p->location_index.nr++;
	*added = true;
	return 0;
}

int profile__intern_location(struct profile *p, uint32_t pid, uint64_t addr, bool kernel,
			     bool return_addr, uint32_t *id)
{
	struct profile_location key = {
		.addr = addr,
		.pid = kernel ? 0 : pid,
		.kernel = kernel,
		.return_addr = return_addr,
		.mapping = PROFILE_NONE,
	};
	bool added;

	return intern(p, &key, id, &added);
}

int profile__intern_frame(struct profile *p, uint32_t pid, uint8_t kind, uint64_t addr,
			  uint32_t line, uint32_t *id, bool *added)
{
	struct profile_location key = {
		.addr = addr,
		.kind = kind,
		.line = line,
		.pid = pid,
		.mapping = PROFILE_NONE,
	};

	return intern(p, &key, id, added);
}

int profile__set_symbol(struct profile *p, uint32_t id, uint32_t mapping, const char *function,
			const char *system_name, uint64_t func_offset)
{
	struct profile_location *l;
	char *f = NULL, *s = NULL;

	if (id >= p->nr_locations || (mapping != PROFILE_NONE && mapping >= p->nr_mappings))
		return -EINVAL;
	if ((function && !(f = strdup(function))) || (system_name && !(s = strdup(system_name)))) {
		free(f);
		return -ENOMEM;
	}
	l = &p->locations[id];
	free(l->function);
	free(l->system_name);
	l->mapping = mapping;
	l->function = f;
	l->system_name = s;
	l->func_offset = func_offset;
	return 0;
}

/* Source lines */

static char **strings_slot(char **slots, size_t cap, const char *s)
{
	size_t i = (size_t)hash_str(HASH_SEED, s) & (cap - 1);

	while (slots[i] && strcmp(slots[i], s) != 0)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

/* The profile's copy of s (NULL for NULL), added when new. */
static int strings_intern(struct strings *st, const char *s, const char **out)
{
	char **slot;

	*out = NULL;
	if (!s)
		return 0;
	if (2 * (st->nr + 1) > st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 256;
		char **slots = calloc(cap, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (size_t i = 0; i < st->cap; i++)
			if (st->slots[i])
				*strings_slot(slots, cap, st->slots[i]) = st->slots[i];
		free(st->slots);
		st->slots = slots;
		st->cap = cap;
	}
	slot = strings_slot(st->slots, st->cap, s);
	if (!*slot) {
		*slot = strdup(s);
		if (!*slot)
			return -ENOMEM;
		st->nr++;
	}
	*out = *slot;
	return 0;
}

int profile__set_lines(struct profile *p, uint32_t id, const struct profile_line *lines, size_t n)
{
	struct profile_line *copy = NULL;
	int err = 0;

	if (id >= p->nr_locations || n > UINT32_MAX)
		return -EINVAL;
	while (p->nr_line_sets <= id) {
		err = grow((void **)&p->lines, &p->cap_line_sets, p->nr_line_sets,
			   sizeof(*p->lines));
		if (err)
			return err;
		p->lines[p->nr_line_sets++] = (struct line_set){ 0 };
	}
	if (n) {
		copy = calloc(n, sizeof(*copy));
		if (!copy)
			return -ENOMEM;
	}
	for (size_t i = 0; !err && i < n; i++) {
		copy[i].line = lines[i].line;
		copy[i].start_line = lines[i].start_line;
		err = strings_intern(&p->strings, lines[i].function, &copy[i].function);
		if (!err)
			err = strings_intern(&p->strings, lines[i].system_name,
					     &copy[i].system_name);
		if (!err)
			err = strings_intern(&p->strings, lines[i].file, &copy[i].file);
	}
	if (err) {
		free(copy);
		return err;
	}
	free(p->lines[id].lines);
	p->lines[id] = (struct line_set){ copy, (uint32_t)n };
	return 0;
}

const struct profile_line *profile__lines(const struct profile *p, uint32_t id, size_t *n)
{
	*n = 0;
	if (id >= p->nr_line_sets || !p->lines[id].nr)
		return NULL;
	*n = p->lines[id].nr;
	return p->lines[id].lines;
}

int profile__retire_location(struct profile *p, uint32_t id)
{
	if (id >= p->nr_locations)
		return -EINVAL;
	p->locations[id].retired = true;
	return 0;
}

/* Stacks */

/* Mixes the frames of s into h. */
static uint64_t hash_frames(uint64_t h, const struct profile_sample *s)
{
	h = hash_mix(h, (uint64_t)s->nr_user << 32 | s->nr_kernel);
	for (uint32_t i = 0; i < s->nr_user; i++)
		h = hash_mix(h, s->user[i]);
	for (uint32_t i = 0; i < s->nr_kernel; i++)
		h = hash_mix(h, s->kernel[i]);
	return h;
}

static uint64_t stack_hash(const struct profile_sample *s)
{
	return hash_frames(HASH_SEED, s);
}

static uint64_t stack_hash_id(const struct profile *p, uint32_t id)
{
	const struct stack *st = &p->stacks[id];
	const struct profile_sample s = {
		.user = st->ids,
		.nr_user = st->nr_user,
		.kernel = st->ids + st->nr_user,
		.nr_kernel = st->nr_kernel,
	};

	return stack_hash(&s);
}

/* key: a profile_sample whose frames are compared */
static bool stack_eq(const struct profile *p, uint32_t id, const void *key)
{
	const struct stack *st = &p->stacks[id];
	const struct profile_sample *s = key;

	return st->nr_user == s->nr_user && st->nr_kernel == s->nr_kernel &&
	       !memcmp(st->ids, s->user, s->nr_user * sizeof(*s->user)) &&
	       !memcmp(st->ids + s->nr_user, s->kernel, s->nr_kernel * sizeof(*s->kernel));
}

/* The interned copy of the frames of s. */
static int stack_intern(struct profile *p, const struct profile_sample *s, const struct stack **out)
{
	size_t nr_ids = (size_t)s->nr_user + s->nr_kernel;
	struct stack *st;
	uint32_t *slot;
	int err;

	err = id_index__reserve(&p->stack_index, p, stack_hash_id);
	if (!err)
		err = grow_ids((void **)&p->stacks, &p->cap_stacks, p->nr_stacks, sizeof(*st));
	if (err)
		return err;
	slot = id_index__slot(&p->stack_index, stack_hash(s), p, stack_eq, s);
	if (*slot) {
		*out = &p->stacks[*slot - 1];
		return 0;
	}
	st = &p->stacks[p->nr_stacks];
	st->ids = malloc((nr_ids ? nr_ids : 1) * sizeof(*st->ids));
	if (!st->ids)
		return -ENOMEM;
	memcpy(st->ids, s->user, s->nr_user * sizeof(*st->ids));
	memcpy(st->ids + s->nr_user, s->kernel, s->nr_kernel * sizeof(*st->ids));
	st->nr_user = s->nr_user;
	st->nr_kernel = s->nr_kernel;
	*slot = ++p->nr_stacks;
	p->stack_index.nr++;
	*out = st;
	return 0;
}

/* Samples */

static uint64_t sample_hash(const struct profile_sample *s)
{
	uint64_t h = HASH_SEED;

	h = hash_mix(h, (uint64_t)s->pid << 32 | s->tid);
	h = hash_mix(h, s->flags);
	h = hash_bytes(h, s->comm, strnlen(s->comm, sizeof(s->comm)));
	h = hash_bytes(h, s->thread, strnlen(s->thread, sizeof(s->thread)));
	return hash_frames(h, s);
}

static uint64_t sample_hash_id(const struct profile *p, uint32_t id)
{
	return sample_hash(&p->samples[id]);
}

static bool sample_eq(const struct profile *p, uint32_t id, const void *key)
{
	const struct profile_sample *a = &p->samples[id], *b = key;

	return a->pid == b->pid && a->tid == b->tid && a->flags == b->flags &&
	       strncmp(a->comm, b->comm, sizeof(a->comm)) == 0 &&
	       strncmp(a->thread, b->thread, sizeof(a->thread)) == 0 && a->nr_user == b->nr_user &&
	       a->nr_kernel == b->nr_kernel &&
	       !memcmp(a->user, b->user, a->nr_user * sizeof(*a->user)) &&
	       !memcmp(a->kernel, b->kernel, a->nr_kernel * sizeof(*a->kernel));
}

static bool sample_ids_valid(const struct profile *p, const struct profile_sample *s)
{
	for (uint32_t i = 0; i < s->nr_user; i++)
		if (s->user[i] >= p->nr_locations)
			return false;
	for (uint32_t i = 0; i < s->nr_kernel; i++)
		if (s->kernel[i] >= p->nr_locations)
			return false;
	return true;
}

/* Appends a copy of s (its comm already NUL-terminated) and indexes it at slot. */
static int sample_append(struct profile *p, const struct profile_sample *s, uint32_t *slot)
{
	const struct stack *st;
	struct profile_sample *n;
	int err;

	err = grow_ids((void **)&p->samples, &p->cap_samples, p->nr_samples, sizeof(*n));
	if (!err)
		err = stack_intern(p, s, &st);
	if (err)
		return err;
	n = &p->samples[p->nr_samples];
	*n = *s;
	n->user = st->ids;
	n->kernel = st->ids + s->nr_user;
	*slot = ++p->nr_samples;
	p->sample_index.nr++;
	return 0;
}

int profile__add_sample(struct profile *p, const struct profile_sample *s)
{
	struct profile_sample key = *s;
	uint32_t *slot;
	int err;

	if (!sample_ids_valid(p, s) || (s->nr_user && !s->user) || (s->nr_kernel && !s->kernel))
		return -EINVAL;
	key.comm[sizeof(key.comm) - 1] = '\0';
	key.thread[sizeof(key.thread) - 1] = '\0';
	/* memcmp and memcpy want valid pointers even for 0 bytes */
	if (!key.nr_user)
		key.user = &key.nr_user;
	if (!key.nr_kernel)
		key.kernel = &key.nr_kernel;
	err = id_index__reserve(&p->sample_index, p, sample_hash_id);
	if (err)
		return err;
	slot = id_index__slot(&p->sample_index, sample_hash(&key), p, sample_eq, &key);
	if (!*slot) {
		err = sample_append(p, &key, slot);
		if (err)
			return err;
		p->samples[*slot - 1].count = 0;
		p->samples[*slot - 1].off_cpu_ns = 0;
	}
	p->samples[*slot - 1].count += s->count;
	p->samples[*slot - 1].off_cpu_ns += s->off_cpu_ns;
	p->total += s->count;
	return 0;
}

/* Location ids of addrs; frames past the leaf are return addresses. */
static int locations_of(struct profile *p, uint32_t pid, const uint64_t *addrs, uint32_t nr,
			bool kernel, uint32_t *ids)
{
	for (uint32_t i = 0; i < nr; i++) {
		int err = profile__intern_location(p, pid, addrs[i], kernel, i > 0, &ids[i]);

		if (err)
			return err;
	}
	return 0;
}

/* The user frames by pid and address, each its own location. */
static int user_locations(struct profile *p, const struct profile_stack *st, uint32_t *ids,
			  void *ctx)
{
	int err;

	(void)ctx;
	err = locations_of(p, st->pid, st->user_addrs, st->nr_user, false, ids);
	return err ? err : (int)st->nr_user;
}

int profile__add_stack(struct profile *p, const struct profile_stack *st, uint64_t count)
{
	return profile__add_stack_with(p, st, count, user_locations, NULL);
}

int profile__add_stack_with(struct profile *p, const struct profile_stack *st, uint64_t count,
			    profile_user_locations_fn user, void *ctx)
{
	struct profile_sample s = {
		.pid = st->pid,
		.tid = st->tid,
		.flags = st->flags,
		.nr_user = st->nr_user,
		.nr_kernel = st->nr_kernel,
		.count = count,
		.off_cpu_ns = st->off_cpu_ns,
	};
	uint32_t *ids;
	int err;

	if ((st->nr_user && !st->user_addrs) || (st->nr_kernel && !st->kernel_addrs))
		return -EINVAL;
	ids = calloc((size_t)st->nr_user + st->nr_kernel + 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	if (st->comm)
		strncpy(s.comm, st->comm, sizeof(s.comm) - 1);
	if (st->thread)
		strncpy(s.thread, st->thread, sizeof(s.thread) - 1);
	s.user = ids;
	s.kernel = ids + st->nr_user;
	err = user(p, st, s.user, ctx);
	if (err >= 0) {
		s.nr_user = err;
		err = locations_of(p, st->pid, st->kernel_addrs, st->nr_kernel, true, s.kernel);
	}
	if (!err)
		err = profile__add_sample(p, &s);
	free(ids);
	return err;
}

/* Accessors */

bool profile__has_off_cpu(const struct profile *p)
{
	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->samples[i].flags & PROFILE_SAMPLE_OFF_CPU)
			return true;
	return false;
}

uint64_t profile_sample__time_ns(const struct profile_sample *s, uint64_t period_ns)
{
	return s->flags & PROFILE_SAMPLE_OFF_CPU ? s->off_cpu_ns : s->count * period_ns;
}

size_t profile__nr_samples(const struct profile *p)
{
	return p->nr_samples;
}

const struct profile_sample *profile__sample(const struct profile *p, size_t i)
{
	return i < p->nr_samples ? &p->samples[i] : NULL;
}

size_t profile__nr_locations(const struct profile *p)
{
	return p->nr_locations;
}

const struct profile_location *profile__location(const struct profile *p, uint32_t id)
{
	return id < p->nr_locations ? &p->locations[id] : NULL;
}

size_t profile__nr_mappings(const struct profile *p)
{
	return p->nr_mappings;
}

const struct profile_mapping *profile__mapping(const struct profile *p, uint32_t id)
{
	return id < p->nr_mappings ? &p->mappings[id] : NULL;
}

uint64_t profile__total(const struct profile *p)
{
	return p->total;
}
