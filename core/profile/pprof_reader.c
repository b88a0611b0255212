// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pprof reader, on the code protoc-c generates from pprof.proto (see
 * pprof_reader.h): it checks every index and id of the message before it
 * touches the profile model, and bounds the memory decoding takes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pprof.pb-c.h"
#include "frames.h"
#include "../util/log.h"
#include "pprof_reader.h"
#include "profile.h"

struct id_pos {
	uint64_t id;
	size_t pos;
};

struct reader {
	const Pprof__Profile *msg;
	const char *name;
	struct profile *p;
	struct id_pos *maps, *funcs, *locs; /* sorted by id */
	uint32_t *map_model;		    /* model mapping of each pprof mapping */
	uint32_t *loc_first;		    /* model location of each pprof location */
	bool *loc_kernel;
	uint32_t *frames;
	size_t cap_frames;
};

static int id_pos_cmp(const void *a, const void *b)
{
	const struct id_pos *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static const struct id_pos *id_find(const struct id_pos *arr, size_t nr, uint64_t id)
{
	struct id_pos key = { .id = id };

	return id ? bsearch(&key, arr, nr, sizeof(*arr), id_pos_cmp) : NULL;
}

/* Sorts the ids of one message kind; every id must be nonzero and unique. */
static int reader__index(struct reader *r, struct id_pos **out, size_t nr, const char *what,
			 uint64_t (*id_of)(const Pprof__Profile *msg, size_t i))
{
	struct id_pos *arr = calloc(nr + 1, sizeof(*arr));

	if (!arr)
		return -ENOMEM;
	*out = arr;
	for (size_t i = 0; i < nr; i++) {
		arr[i].id = id_of(r->msg, i);
		arr[i].pos = i;
		if (!arr[i].id) {
			pr_err("%s: %s %zu has id 0", r->name, what, i);
			return -EBADMSG;
		}
	}
	qsort(arr, nr, sizeof(*arr), id_pos_cmp);
	for (size_t i = 1; i < nr; i++) {
		if (arr[i].id == arr[i - 1].id) {
			pr_err("%s: two %ss have id %" PRIu64, r->name, what, arr[i].id);
			return -EBADMSG;
		}
	}
	return 0;
}

static uint64_t mapping_id_of(const Pprof__Profile *msg, size_t i)
{
	return msg->mapping[i]->id;
}

static uint64_t function_id_of(const Pprof__Profile *msg, size_t i)
{
	return msg->function[i]->id;
}

static uint64_t location_id_of(const Pprof__Profile *msg, size_t i)
{
	return msg->location[i]->id;
}

/* The string at idx, NULL (and an error printed) when idx is out of the table. */
static const char *reader__str(const struct reader *r, int64_t idx, const char *what)
{
	if (idx < 0 || (uint64_t)idx >= r->msg->n_string_table) {
		pr_err("%s: %s: string index %" PRId64 " is out of the string table (%zu strings)",
		       r->name, what, idx, r->msg->n_string_table);
		return NULL;
	}
	return r->msg->string_table[idx];
}

static int reader__mappings(struct reader *r)
{
	const Pprof__Profile *msg = r->msg;
	int err;

	r->map_model = calloc(msg->n_mapping + 1, sizeof(*r->map_model));
	if (!r->map_model)
		return -ENOMEM;
	err = reader__index(r, &r->maps, msg->n_mapping, "mapping", mapping_id_of);
	for (size_t i = 0; i < msg->n_mapping && !err; i++) {
		const Pprof__Mapping *m = msg->mapping[i];
		const char *file = reader__str(r, m->filename, "mapping file name");
		const char *build_id = reader__str(r, m->build_id, "mapping build ID");
		struct profile_mapping pm = {
			.start = m->memory_start,
			.limit = m->memory_limit,
			.offset = m->file_offset,
		};

		if (!file || !build_id)
			return -EBADMSG;
		pm.file = file[0] ? (char *)file : NULL;
		pm.build_id = build_id[0] ? (char *)build_id : NULL;
		err = profile__add_mapping(r->p, &pm, &r->map_model[i]);
	}
	return err;
}

static bool is_kernel_file(const char *file)
{
	return file && strncmp(file, "[kernel", 7) == 0;
}

/* The kind of the frames in a mapping of file: an interpreter's made-up one, else native. */
static uint8_t frame_kind_of(const char *file)
{
	for (unsigned int k = 0; file && k <= UINT8_MAX && frames__kind((uint8_t)k); k++) {
		const char *mapping = frames__kind((uint8_t)k)->pprof_mapping;

		if (mapping && !strcmp(file, mapping))
			return (uint8_t)k;
	}
	return PROFILE_FRAME_NATIVE;
}

/* The function of a Line: its names (NULL when empty), file and start line. */
static int reader__line(struct reader *r, const Pprof__Line *line, struct profile_line *out)
{
	const Pprof__Function *f;
	const struct id_pos *fp;
	const char *name, *system_name, *filename;

	fp = id_find(r->funcs, r->msg->n_function, line->function_id);
	if (!fp) {
		pr_err("%s: a location refers to function %" PRIu64 ", which is not there", r->name,
		       line->function_id);
		return -EBADMSG;
	}
	f = r->msg->function[fp->pos];
	name = reader__str(r, f->name, "function name");
	system_name = reader__str(r, f->system_name, "function system name");
	filename = reader__str(r, f->filename, "function file name");
	if (!name || !system_name || !filename)
		return -EBADMSG;
	*out = (struct profile_line){
		.function = name[0]	   ? name :
			    system_name[0] ? system_name :
					     NULL,
		.system_name = system_name[0] ? system_name : NULL,
		.file = filename[0] ? filename : NULL,
		.line = line->line > 0 && line->line <= UINT32_MAX ? (uint32_t)line->line : 0,
		.start_line = f->start_line > 0 && f->start_line <= UINT32_MAX ?
				      (uint32_t)f->start_line :
				      0,
	};
	return 0;
}

/*
 * The model location of a pprof location: named as its last Line (the
 * function that holds the code), with every Line as a source line,
 * innermost first, when there is a file, a line number or an inlined call.
 */
static int reader__location(struct reader *r, size_t i)
{
	const Pprof__Location *loc = r->msg->location[i];
	struct profile_location pl = { .addr = loc->address, .mapping = PROFILE_NONE };
	struct profile_line *lines = NULL;
	const struct id_pos *mp = NULL;
	bool source = loc->n_line > 1;
	int err = 0;

	if (loc->mapping_id) {
		mp = id_find(r->maps, r->msg->n_mapping, loc->mapping_id);
		if (!mp) {
			pr_err("%s: location %" PRIu64 " refers to mapping %" PRIu64
			       ", which is not there",
			       r->name, loc->id, loc->mapping_id);
			return -EBADMSG;
		}
		pl.mapping = r->map_model[mp->pos];
		pl.kernel = is_kernel_file(profile__mapping(r->p, pl.mapping)->file);
		pl.kind = frame_kind_of(profile__mapping(r->p, pl.mapping)->file);
		if (pl.kind != PROFILE_FRAME_NATIVE)
			pl.mapping = PROFILE_NONE;
	}
	r->loc_kernel[i] = pl.kernel;
	if (loc->n_line) {
		lines = calloc(loc->n_line, sizeof(*lines));
		if (!lines)
			return -ENOMEM;
	}
	for (size_t j = 0; j < loc->n_line && !err; j++) {
		err = reader__line(r, loc->line[j], &lines[j]);
		source |= lines[j].file || lines[j].line;
	}
	if (!err && loc->n_line) {
		pl.function = (char *)lines[loc->n_line - 1].function;
		pl.system_name = (char *)lines[loc->n_line - 1].system_name;
		/* an interpreter's frame is its function at its line */
		if (pl.kind != PROFILE_FRAME_NATIVE)
			pl.line = lines[0].line;
	}
	if (!err)
		err = profile__add_location(r->p, &pl, &r->loc_first[i]);
	if (!err && source)
		err = profile__set_lines(r->p, r->loc_first[i], lines, loc->n_line);
	free(lines);
	return err;
}

static int reader__locations(struct reader *r)
{
	const Pprof__Profile *msg = r->msg;
	int err;

	r->loc_first = calloc(msg->n_location + 1, sizeof(*r->loc_first));
	r->loc_kernel = calloc(msg->n_location + 1, sizeof(*r->loc_kernel));
	if (!r->loc_first || !r->loc_kernel)
		return -ENOMEM;
	err = reader__index(r, &r->funcs, msg->n_function, "function", function_id_of);
	if (!err)
		err = reader__index(r, &r->locs, msg->n_location, "location", location_id_of);
	for (size_t i = 0; i < msg->n_location && !err; i++)
		err = reader__location(r, i);
	return err;
}

/* Which Sample.value is the sample count: "samples", else a count, else the default, else the last. */
static int reader__value_index(const struct reader *r, struct pprof_meta *meta, size_t *index)
{
	const Pprof__Profile *msg = r->msg;
	size_t n = msg->n_sample_type, pick = n - 1, rank = 0;

	if (!n) {
		pr_err("%s: the profile has no sample type", r->name);
		return -EBADMSG;
	}
	for (size_t i = 0; i < n; i++) {
		const char *type = reader__str(r, msg->sample_type[i]->type, "sample type");
		const char *unit = reader__str(r, msg->sample_type[i]->unit, "sample unit");
		size_t this_rank = 0;

		if (!type || !unit)
			return -EBADMSG;
		if (strcmp(type, "samples") == 0)
			this_rank = 3;
		else if (strcmp(unit, "count") == 0)
			this_rank = 2;
		else if (msg->default_sample_type &&
			 msg->sample_type[i]->type == msg->default_sample_type)
			this_rank = 1;
		if (this_rank > rank) {
			rank = this_rank;
			pick = i;
		}
	}
	*index = pick;
	snprintf(meta->value_type, sizeof(meta->value_type), "%s",
		 msg->string_table[msg->sample_type[pick]->type]);
	snprintf(meta->value_unit, sizeof(meta->value_unit), "%s",
		 msg->string_table[msg->sample_type[pick]->unit]);
	return 0;
}

static int reader__labels(const struct reader *r, const Pprof__Sample *s, struct profile_sample *ps)
{
	for (size_t i = 0; i < s->n_label; i++) {
		const Pprof__Label *l = s->label[i];
		const char *key = reader__str(r, l->key, "label key");
		const char *str = reader__str(r, l->str, "label value");

		if (!key || !str)
			return -EBADMSG;
		if (strcmp(key, "pid") == 0)
			ps->pid = (uint32_t)l->num;
		else if (strcmp(key, "tid") == 0)
			ps->tid = (uint32_t)l->num;
		else if (strcmp(key, "comm") == 0)
			snprintf(ps->comm, sizeof(ps->comm), "%s", str);
		else if (strcmp(key, "thread") == 0)
			snprintf(ps->thread, sizeof(ps->thread), "%s", str);
		else if (strcmp(key, "state") == 0 && strcmp(str, "D") == 0)
			ps->flags |= PROFILE_SAMPLE_STATE_D;
		else if (strcmp(key, "unwalked") == 0 && strcmp(str, "true") == 0)
			ps->flags |= PROFILE_SAMPLE_UNWALKED;
	}
	return 0;
}

/* Expands the locations of s into frames, leaf first: kernel frames, then user frames. */
static int reader__frames(struct reader *r, const Pprof__Sample *s, struct profile_sample *ps)
{
	size_t nr = 0;

	for (size_t i = 0; i < s->n_location_id; i++) {
		const struct id_pos *lp = id_find(r->locs, r->msg->n_location, s->location_id[i]);
		bool kernel;

		if (!lp) {
			pr_err("%s: a sample refers to location %" PRIu64 ", which is not there",
			       r->name, s->location_id[i]);
			return -EBADMSG;
		}
		if (nr + 1 > r->cap_frames) {
			size_t cap = (nr + 1) * 2;
			uint32_t *n = reallocarray(r->frames, cap, sizeof(*n));

			if (!n)
				return -ENOMEM;
			r->frames = n;
			r->cap_frames = cap;
		}
		kernel = r->loc_kernel[lp->pos];
		/* only the leading run of kernel frames is the kernel stack */
		if (kernel && ps->nr_kernel == nr)
			ps->nr_kernel++;
		r->frames[nr++] = r->loc_first[lp->pos];
	}
	ps->kernel = r->frames;
	/* no location yet: frames is NULL, and NULL + 0 is undefined */
	ps->user = nr ? r->frames + ps->nr_kernel : NULL;
	ps->nr_user = (uint32_t)(nr - ps->nr_kernel);
	return 0;
}

/* A string of the table, or NULL for a bad index (checked, and reported, elsewhere). */
static const char *str_at(const Pprof__Profile *msg, int64_t idx)
{
	return idx >= 0 && (uint64_t)idx < msg->n_string_table ? msg->string_table[idx] : NULL;
}

/*
 * The index of the sample type off-cpu/nanoseconds (record --off-cpu), or
 * n_sample_type when there is none.
 */
static size_t reader__off_cpu_index(const struct reader *r)
{
	const Pprof__Profile *msg = r->msg;

	for (size_t i = 0; i < msg->n_sample_type; i++) {
		const char *type = str_at(msg, msg->sample_type[i]->type);
		const char *unit = str_at(msg, msg->sample_type[i]->unit);

		if (type && unit && !strcmp(type, "off-cpu") && !strcmp(unit, "nanoseconds"))
			return i;
	}
	return msg->n_sample_type;
}

/*
 * Profiles of one program (Go's) label no sample with a comm: their samples
 * get the name of the main binary, mapping[0], as the kernel would name it.
 */
static void reader__default_comm(const struct reader *r, char *comm, size_t size)
{
	const Pprof__Profile *msg = r->msg;
	const char *file, *base;

	for (size_t i = 0; i < msg->n_sample; i++)
		for (size_t j = 0; j < msg->sample[i]->n_label; j++)
			if (str_at(msg, msg->sample[i]->label[j]->key) &&
			    strcmp(str_at(msg, msg->sample[i]->label[j]->key), "comm") == 0)
				return;
	file = msg->n_mapping ? str_at(msg, msg->mapping[0]->filename) : NULL;
	if (!file || !file[0] || file[0] == '[')
		return;
	base = strrchr(file, '/');
	snprintf(comm, size, "%s", base ? base + 1 : file);
}

static int reader__samples(struct reader *r, struct pprof_meta *meta)
{
	const Pprof__Profile *msg = r->msg;
	char comm[PROFILE_COMM_LEN] = "";
	size_t vi = 0, off;
	int err;

	reader__default_comm(r, comm, sizeof(comm));
	err = reader__value_index(r, meta, &vi);
	off = reader__off_cpu_index(r);
	for (size_t i = 0; i < msg->n_sample && !err; i++) {
		const Pprof__Sample *s = msg->sample[i];
		struct profile_sample ps = {};

		if (s->n_value != msg->n_sample_type) {
			pr_err("%s: sample %zu has %zu values for %zu sample types", r->name, i,
			       s->n_value, msg->n_sample_type);
			return -EBADMSG;
		}
		if (s->value[vi] < 0) {
			pr_err("%s: sample %zu has a negative value (%" PRId64
			       "); difference profiles are not supported",
			       r->name, i, s->value[vi]);
			return -EBADMSG;
		}
		ps.count = (uint64_t)s->value[vi];
		/* time off the CPU makes it an off-CPU sample: count blocks, off_cpu_ns */
		if (off < s->n_value && s->value[off] > 0) {
			ps.flags = PROFILE_SAMPLE_OFF_CPU;
			ps.off_cpu_ns = (uint64_t)s->value[off];
		}
		memcpy(ps.comm, comm, sizeof(ps.comm));
		err = reader__labels(r, s, &ps);
		if (!(ps.flags & PROFILE_SAMPLE_OFF_CPU))
			ps.flags = 0; /* state and unwalked mean nothing on the CPU */
		if (!err)
			err = reader__frames(r, s, &ps);
		if (!err && ps.count)
			err = profile__add_sample(r->p, &ps);
	}
	return err;
}

static void reader__meta(const struct reader *r, struct pprof_meta *meta)
{
	const Pprof__Profile *msg = r->msg;
	const char *unit = NULL;

	meta->start_ns = msg->time_nanos > 0 ? (uint64_t)msg->time_nanos : 0;
	meta->duration_ns = msg->duration_nanos > 0 ? (uint64_t)msg->duration_nanos : 0;
	/* informational only: a bad index just leaves the period unknown */
	if (msg->period_type && msg->period_type->unit > 0 &&
	    (uint64_t)msg->period_type->unit < msg->n_string_table)
		unit = msg->string_table[msg->period_type->unit];
	meta->period_ns = unit && strcmp(unit, "nanoseconds") == 0 && msg->period > 0 ?
				  (uint64_t)msg->period :
				  0;
}

static void reader__free(struct reader *r)
{
	free(r->maps);
	free(r->funcs);
	free(r->locs);
	free(r->map_model);
	free(r->loc_first);
	free(r->loc_kernel);
	free(r->frames);
}

/*
 * Decoding allocates a struct per message, up to some 40 times the bytes of
 * a message full of empty ones: the budget keeps a hostile file from taking
 * all memory.
 */
struct alloc_budget {
	size_t used;
	size_t max;
	bool exceeded;
};

static void *budget_alloc(void *data, size_t size)
{
	struct alloc_budget *b = data;

	if (size > b->max - b->used) {
		b->exceeded = true;
		return NULL;
	}
	b->used += size;
	return malloc(size);
}

static void budget_free(void *data, void *ptr)
{
	(void)data;
	free(ptr);
}

int pprof_reader__decode(const void *buf, size_t len, const char *name, struct profile *p,
			 struct pprof_meta *meta)
{
	struct alloc_budget budget = { .max = PPROF_MAX_SIZE };
	ProtobufCAllocator allocator = {
		.alloc = budget_alloc,
		.free = budget_free,
		.allocator_data = &budget,
	};
	struct reader r = { .name = name, .p = p };
	Pprof__Profile *msg;
	int err;

	memset(meta, 0, sizeof(*meta));
	msg = pprof__profile__unpack(&allocator, len, buf);
	if (!msg && budget.exceeded) {
		pr_err("%s: needs more than %llu MiB of memory to decode", name,
		       PPROF_MAX_SIZE >> 20);
		return -EFBIG;
	}
	if (!msg) {
		pr_err("%s: not a pprof profile, or a corrupt or truncated one", name);
		return -EBADMSG;
	}
	r.msg = msg;
	if (!msg->n_string_table || msg->string_table[0][0]) {
		pr_err("%s: not a pprof profile: the string table does not start with \"\"", name);
		err = -EBADMSG;
		goto cleanup;
	}
	err = reader__mappings(&r);
	if (!err)
		err = reader__locations(&r);
	if (!err)
		err = reader__samples(&r, meta);
	if (!err)
		reader__meta(&r, meta);
	if (err == -ENOMEM || err == -E2BIG)
		pr_err("%s: %s", name, strerror(-err));
cleanup:
	reader__free(&r);
	pprof__profile__free_unpacked(msg, &allocator);
	return err;
}
