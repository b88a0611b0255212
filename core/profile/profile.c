// SPDX-License-Identifier: GPL-2.0-only
/*
 * The profile model: arrays of samples, locations and mappings, each with a
 * hash index of their ids (util/hashmap) so that identical entries are
 * merged as they are added. The
 * frames of a sample are a stack interned once for every sample that has
 * them: the samples of a run grow with its processes and threads, while
 * their stacks mostly repeat.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../util/hashmap.h"
#include "profile.h"

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

struct profile {
	struct profile_sample *samples;
	size_t nr_samples, cap_samples;
	struct profile_location *locations;
	size_t nr_locations, cap_locations;
	struct profile_mapping *mappings;
	size_t nr_mappings, cap_mappings;
	struct stack *stacks;
	size_t nr_stacks, cap_stacks;
	/* ids by their entry's hash: the values are hashmap_index_value()s */
	struct hashmap stack_index;
	struct hashmap sample_index;
	struct hashmap location_index;
	struct hashmap mapping_index;
	uint64_t total;
	struct line_set *lines; /* by location id, up to nr_line_sets */
	size_t nr_line_sets, cap_line_sets;
	/* strings that lines share (file names repeat in every line of a file), each copied once */
	struct hashmap strings;
};

static uint64_t hash_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static uint64_t mix_bytes(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *b = buf;

	for (size_t i = 0; i < len; i++)
		h = hash_mix(h, b[i]);
	return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	return s ? mix_bytes(h, s, strlen(s) + 1) : hash_mix(h, 0xff);
}

#define HASH_SEED 0xcbf29ce484222325ULL

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/* The id in index of the entry equal to key (eq compares them), or PROFILE_NONE. */
static uint32_t id_find(const struct hashmap *index, uint64_t hash, hashmap_index_eq_fn *eq,
			const struct profile *p, const void *key)
{
	size_t id = hashmap__find_index(index, hash, eq, p, key);

	return id == HASHMAP_NO_INDEX ? PROFILE_NONE : (uint32_t)id;
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
	hashmap__exit(&p->stack_index);
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
	hashmap__exit(&p->sample_index);
	hashmap__exit(&p->location_index);
	hashmap__exit(&p->mapping_index);
	for (size_t i = 0; i < p->nr_line_sets; i++)
		free(p->lines[i].lines);
	free(p->lines);
	for (size_t i = 0; i < p->strings.cap; i++)
		free(p->strings.slots[i].value);
	hashmap__exit(&p->strings);
	free(p);
}

/* Mappings */

static uint64_t mapping_hash(const struct profile_mapping *m)
{
	uint64_t h = HASH_SEED;

	h = hash_mix(h, m->start);
	h = hash_mix(h, m->limit);
	h = hash_mix(h, m->offset);
	h = mix_str(h, m->file);
	return mix_str(h, m->build_id);
}

static bool mapping_eq(const void *profile, size_t id, const void *key)
{
	const struct profile *p = profile;
	const struct profile_mapping *a = &p->mappings[id], *b = key;

	return a->start == b->start && a->limit == b->limit && a->offset == b->offset &&
	       str_eq(a->file, b->file) && str_eq(a->build_id, b->build_id);
}

int profile__add_mapping(struct profile *p, const struct profile_mapping *m, uint32_t *id)
{
	uint64_t hash = mapping_hash(m);
	struct profile_mapping *n;
	int err;

	*id = id_find(&p->mapping_index, hash, mapping_eq, p, m);
	if (*id != PROFILE_NONE)
		return 0;
	err = grow_ids((void **)&p->mappings, &p->cap_mappings, p->nr_mappings, sizeof(*n));
	if (err)
		return err;
	n = &p->mappings[p->nr_mappings];
	*n = *m;
	n->file = m->file ? strdup(m->file) : NULL;
	n->build_id = m->build_id ? strdup(m->build_id) : NULL;
	if ((m->file && !n->file) || (m->build_id && !n->build_id) ||
	    hashmap__add(&p->mapping_index, hash, hashmap_index_value(p->nr_mappings))) {
		free(n->file);
		free(n->build_id);
		return -ENOMEM;
	}
	*id = p->nr_mappings++;
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

static bool location_eq(const void *profile, size_t id, const void *key)
{
	const struct profile *p = profile;
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

/* Takes back the location location_append() added last, which failed to be indexed. */
static void location_pop(struct profile *p)
{
	struct profile_location *l = &p->locations[--p->nr_locations];

	free(l->function);
	free(l->system_name);
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
	uint64_t hash = location_hash(key);
	int err;

	*added = false;
	*id = id_find(&p->location_index, hash, location_eq, p, key);
	if (*id != PROFILE_NONE)
		return 0;
	err = location_append(p, key, id);
	if (err)
		return err;
	err = hashmap__add(&p->location_index, hash, hashmap_index_value(*id));
	if (err) {
		location_pop(p);
		return err;
	}
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

static bool string_eq(const void *value, const void *key)
{
	return strcmp(value, key) == 0;
}

/* The profile's copy of s (NULL for NULL), added when new. */
static int strings_intern(struct hashmap *strings, const char *s, const char **out)
{
	uint64_t hash;
	char *copy;

	*out = NULL;
	if (!s)
		return 0;
	hash = hash_str(s);
	*out = hashmap__find(strings, hash, string_eq, s);
	if (*out)
		return 0;
	copy = strdup(s);
	if (!copy || hashmap__add(strings, hash, copy)) {
		free(copy);
		return -ENOMEM;
	}
	*out = copy;
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

/* key: a profile_sample whose frames are compared */
static bool stack_eq(const void *profile, size_t id, const void *key)
{
	const struct profile *p = profile;
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
	uint64_t hash = stack_hash(s);
	struct stack *st;
	uint32_t id;
	int err;

	id = id_find(&p->stack_index, hash, stack_eq, p, s);
	if (id != PROFILE_NONE) {
		*out = &p->stacks[id];
		return 0;
	}
	err = grow_ids((void **)&p->stacks, &p->cap_stacks, p->nr_stacks, sizeof(*st));
	if (err)
		return err;
	st = &p->stacks[p->nr_stacks];
	st->ids = malloc((nr_ids ? nr_ids : 1) * sizeof(*st->ids));
	if (!st->ids || hashmap__add(&p->stack_index, hash, hashmap_index_value(p->nr_stacks))) {
		free(st->ids);
		return -ENOMEM;
	}
	memcpy(st->ids, s->user, s->nr_user * sizeof(*st->ids));
	memcpy(st->ids + s->nr_user, s->kernel, s->nr_kernel * sizeof(*st->ids));
	st->nr_user = s->nr_user;
	st->nr_kernel = s->nr_kernel;
	p->nr_stacks++;
	*out = st;
	return 0;
}

/* Samples */

static uint64_t sample_hash(const struct profile_sample *s)
{
	uint64_t h = HASH_SEED;

	h = hash_mix(h, (uint64_t)s->pid << 32 | s->tid);
	h = hash_mix(h, s->flags);
	h = mix_bytes(h, s->comm, strnlen(s->comm, sizeof(s->comm)));
	h = mix_bytes(h, s->thread, strnlen(s->thread, sizeof(s->thread)));
	return hash_frames(h, s);
}

static bool sample_eq(const void *profile, size_t id, const void *key)
{
	const struct profile *p = profile;
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

/* Appends a copy of s (its comm already NUL-terminated), with no count yet, indexed under hash. */
static int sample_append(struct profile *p, const struct profile_sample *s, uint64_t hash,
			 uint32_t *id)
{
	const struct stack *st;
	struct profile_sample *n;
	int err;

	err = grow_ids((void **)&p->samples, &p->cap_samples, p->nr_samples, sizeof(*n));
	if (!err)
		err = stack_intern(p, s, &st);
	if (!err)
		err = hashmap__add(&p->sample_index, hash, hashmap_index_value(p->nr_samples));
	if (err)
		return err;
	n = &p->samples[p->nr_samples];
	*n = *s;
	n->user = st->ids;
	n->kernel = st->ids + s->nr_user;
	n->count = 0;
	n->off_cpu_ns = 0;
	*id = p->nr_samples++;
	return 0;
}

int profile__add_sample(struct profile *p, const struct profile_sample *s)
{
	struct profile_sample key = *s;
	struct profile_sample *n;
	uint64_t hash;
	uint32_t id;
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
	hash = sample_hash(&key);
	id = id_find(&p->sample_index, hash, sample_eq, p, &key);
	if (id == PROFILE_NONE) {
		err = sample_append(p, &key, hash, &id);
		if (err)
			return err;
	}
	n = &p->samples[id];
	n->count += s->count;
	n->off_cpu_ns += s->off_cpu_ns;
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

uint64_t profile__sample_time_ns(const struct profile_sample *s, uint64_t period_ns)
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
