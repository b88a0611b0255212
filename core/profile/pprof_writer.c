// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pprof writer, on the code protoc-c generates from pprof.proto and
 * core/util/gzip.h for the gzip layer (see pprof_writer.h). It builds every
 * part of the message but its samples in memory; the samples, which grow
 * with the length of a run, are packed one at a time and streamed through
 * the compressor with the rest, in field order, so the bytes are those of
 * the whole message packed at once.
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "core/pprof.pb-c.h"
#include "frames.h"
#include "../util/gzip.h"
#include "pprof_writer.h"
#include "profile.h"

#define KERNEL_MAPPING "[kernel.kallsyms]"

/*
 * Interpreters' frames (a runtime's language's: their addresses are code
 * objects', in no mapping) are given a mapping of their own, made up, by
 * which a reader knows them for what they are: their kind's pprof_mapping
 * (frames.h). NULL for a frame of machine code.
 */
static const char *interp_mapping(uint8_t kind)
{
	const struct frame_kind *k = frames__kind(kind);

	return k ? k->pprof_mapping : NULL;
}

/* Interned strings and functions, looked up through tsearch trees. */

struct str_entry {
	const char *s;
	int64_t idx;
};

struct func_entry {
	int64_t name, system_name, filename, start_line;
	uint64_t id;
};

static int str_entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct str_entry *)a)->s, ((const struct str_entry *)b)->s);
}

static int func_entry_cmp(const void *a, const void *b)
{
	const struct func_entry *fa = a, *fb = b;

	if (fa->name != fb->name)
		return fa->name < fb->name ? -1 : 1;
	if (fa->system_name != fb->system_name)
		return fa->system_name < fb->system_name ? -1 : 1;
	if (fa->filename != fb->filename)
		return fa->filename < fb->filename ? -1 : 1;
	if (fa->start_line != fb->start_line)
		return fa->start_line < fb->start_line ? -1 : 1;
	return 0;
}

/* The mapping made up for the frames of an interpreter (id 0: none yet) and what it covers. */
struct interp_map {
	uint64_t id, lo, hi;
};

/* Everything the writer allocates; the message's pointers point into these arrays. */
struct pprof_builder {
	const struct profile *p;
	const struct pprof_writer_opts *opts;
	Pprof__Profile msg;
	/* string table: the strings belong to the profile or are literals */
	char **strs;
	size_t nr_strs, cap_strs;
	void *str_tree;
	/* functions */
	Pprof__Function *funcs;
	Pprof__Function **func_ptrs;
	size_t nr_funcs;
	void *func_tree;
	/* locations: loc_ids[model id] is the pprof id, 0 when unused */
	uint64_t *loc_ids;
	Pprof__Location *locs;
	Pprof__Location **loc_ptrs;
	Pprof__Line *lines;
	Pprof__Line **line_ptrs;
	size_t nr_lines;
	/* mappings: map_ids[model id] is the pprof id, 0 when unused */
	uint64_t *map_ids;
	bool *map_has_funcs;
	uint8_t *map_has_lines; /* MAP_FILENAMES | MAP_LINE_NUMBERS | MAP_INLINE_FRAMES */
	uint64_t kernel_map_id; /* made up for kernel frames without a mapping */
	uint64_t kernel_lo, kernel_hi;
	struct interp_map *interp; /* by frame kind */
	size_t nr_kinds;
	Pprof__Mapping *maps;
	Pprof__Mapping **map_ptrs;
	/* the sample being packed */
	uint64_t *sample_loc_ids;
	size_t cap_sample_loc_ids;
	uint8_t *packed;
	size_t cap_packed;
	Pprof__ValueType value_types[3];
	Pprof__ValueType *value_type_ptrs[3];
	Pprof__ValueType period_type;
	bool off_cpu; /* a third sample type, off-cpu/nanoseconds */
};

static void pprof_builder__free(struct pprof_builder *b)
{
	tdestroy(b->str_tree, free);
	tdestroy(b->func_tree, free);
	free(b->strs);
	free(b->funcs);
	free(b->func_ptrs);
	free(b->loc_ids);
	free(b->locs);
	free(b->loc_ptrs);
	free(b->lines);
	free(b->line_ptrs);
	free(b->map_ids);
	free(b->map_has_funcs);
	free(b->map_has_lines);
	free(b->interp);
	free(b->maps);
	free(b->map_ptrs);
	free(b->sample_loc_ids);
	free(b->packed);
}

/* The string table index of s (NULL is ""), adding it when new; -1 when out of memory. */
static int64_t pprof_builder__str(struct pprof_builder *b, const char *s)
{
	struct str_entry key = { .s = s ? s : "" }, *e, **found;

	found = tfind(&key, &b->str_tree, str_entry_cmp);
	if (found)
		return (*found)->idx;
	if (b->nr_strs == b->cap_strs) {
		size_t cap = b->cap_strs ? b->cap_strs * 2 : 256;
		char **n = reallocarray(b->strs, cap, sizeof(*n));

		if (!n)
			return -1;
		b->strs = n;
		b->cap_strs = cap;
	}
	e = malloc(sizeof(*e));
	if (!e)
		return -1;
	e->s = key.s;
	e->idx = (int64_t)b->nr_strs;
	if (!tsearch(e, &b->str_tree, str_entry_cmp)) {
		free(e);
		return -1;
	}
	b->strs[b->nr_strs++] = (char *)key.s;
	return e->idx;
}

/*
 * The pprof id of the function (name, system_name, filename, start_line),
 * adding it when new; 0 when out of memory.
 */
static uint64_t pprof_builder__func(struct pprof_builder *b, const char *name,
				    const char *system_name, const char *filename,
				    uint32_t start_line)
{
	struct func_entry key, *e, **found;
	Pprof__Function *f;

	key.name = pprof_builder__str(b, name ? name : system_name);
	key.system_name = pprof_builder__str(b, system_name ? system_name : name);
	key.filename = pprof_builder__str(b, filename);
	key.start_line = start_line;
	if (key.name < 0 || key.system_name < 0 || key.filename < 0)
		return 0;
	found = tfind(&key, &b->func_tree, func_entry_cmp);
	if (found)
		return (*found)->id;
	e = malloc(sizeof(*e));
	/* tsearch reads the key through e, so fill it first */
	if (e)
		*e = key;
	if (!e || !tsearch(e, &b->func_tree, func_entry_cmp)) {
		free(e);
		return 0;
	}
	f = &b->funcs[b->nr_funcs];
	*f = (Pprof__Function)PPROF__FUNCTION__INIT;
	f->id = e->id = ++b->nr_funcs;
	f->name = key.name;
	f->system_name = key.system_name;
	f->filename = key.filename;
	f->start_line = key.start_line;
	b->func_ptrs[f->id - 1] = f;
	return f->id;
}

enum {
	MAP_FILENAMES = 1 << 0,
	MAP_LINE_NUMBERS = 1 << 1,
	MAP_INLINE_FRAMES = 1 << 2,
};

/* What the source lines of location id tell of its mapping (MAP_*); counts them in *nr. */
static uint8_t lines_kind(const struct profile *p, uint32_t id, size_t *nr)
{
	size_t n;
	const struct profile_line *lines = profile__lines(p, id, &n);
	uint8_t kind = n > 1 ? MAP_INLINE_FRAMES : 0;

	*nr += n ? n : 1;
	for (size_t i = 0; i < n; i++) {
		if (lines[i].file)
			kind |= MAP_FILENAMES;
		if (lines[i].line)
			kind |= MAP_LINE_NUMBERS;
	}
	return kind;
}

/* An interpreter's frame l: the made-up mapping of its kind covers it. */
static void pprof_builder__note_interp(struct pprof_builder *b, const struct profile_location *l)
{
	if (!b->interp[l->kind].id || l->addr < b->interp[l->kind].lo)
		b->interp[l->kind].lo = l->addr;
	if (!b->interp[l->kind].id || l->addr >= b->interp[l->kind].hi)
		b->interp[l->kind].hi = l->addr + 1;
	b->interp[l->kind].id = 1;
}

/* Marks the locations and mappings the samples use. */
static int pprof_builder__mark(struct pprof_builder *b)
{
	const struct profile *p = b->p;
	size_t nr_locs = profile__nr_locations(p), nr_maps = profile__nr_mappings(p);

	b->loc_ids = calloc(nr_locs + 1, sizeof(*b->loc_ids));
	b->map_ids = calloc(nr_maps + 1, sizeof(*b->map_ids));
	b->map_has_funcs = calloc(nr_maps + 1, sizeof(*b->map_has_funcs));
	b->map_has_lines = calloc(nr_maps + 1, sizeof(*b->map_has_lines));
	while (b->nr_kinds <= UINT8_MAX && frames__kind((uint8_t)b->nr_kinds))
		b->nr_kinds++;
	b->interp = calloc(b->nr_kinds, sizeof(*b->interp));
	if (!b->loc_ids || !b->map_ids || !b->map_has_funcs || !b->map_has_lines || !b->interp)
		return -ENOMEM;
	for (size_t i = 0; i < profile__nr_samples(p); i++) {
		const struct profile_sample *s = profile__sample(p, i);

		if (!s->count)
			continue;
		for (uint32_t j = 0; j < s->nr_user; j++)
			b->loc_ids[s->user[j]] = 1;
		for (uint32_t j = 0; j < s->nr_kernel && !b->opts->no_kernel; j++)
			b->loc_ids[s->kernel[j]] = 1;
	}
	for (uint32_t i = 0; i < nr_locs; i++) {
		const struct profile_location *l = profile__location(p, i);
		uint8_t kind;

		if (!b->loc_ids[i])
			continue;
		kind = lines_kind(p, i, &b->nr_lines);
		if (interp_mapping(l->kind)) {
			pprof_builder__note_interp(b, l);
		} else if (l->mapping != PROFILE_NONE) {
			b->map_ids[l->mapping] = 1;
			b->map_has_funcs[l->mapping] |= l->function || l->system_name;
			b->map_has_lines[l->mapping] |= kind;
		} else if (l->kernel) {
			if (!b->kernel_map_id || l->addr < b->kernel_lo)
				b->kernel_lo = l->addr;
			if (!b->kernel_map_id || l->addr >= b->kernel_hi)
				b->kernel_hi = l->addr + 1;
			b->kernel_map_id = 1;
		}
	}
	return 0;
}

static bool is_special(const char *file)
{
	return !file || !file[0] || file[0] == '[';
}

/*
 * The main binary: the mapping of opts->main_file, else the lowest
 * file-backed mapping of the first sampled process (executables load below
 * their libraries), else the first file-backed mapping used, else the first
 * mapping used.
 */
static uint32_t pprof_builder__main_mapping(const struct pprof_builder *b)
{
	const struct profile *p = b->p;
	uint32_t best = PROFILE_NONE, pid = 0;
	bool have_pid = false;

	for (uint32_t i = 0; i < profile__nr_mappings(p) && b->opts->main_file; i++)
		if (b->map_ids[i] && profile__mapping(p, i)->file &&
		    strcmp(profile__mapping(p, i)->file, b->opts->main_file) == 0)
			return i;
	for (size_t i = 0; i < profile__nr_samples(p) && !have_pid; i++) {
		const struct profile_sample *s = profile__sample(p, i);

		if (s->count && s->nr_user) {
			pid = s->pid;
			have_pid = true;
		}
	}
	for (uint32_t i = 0; i < profile__nr_locations(p) && have_pid; i++) {
		const struct profile_location *l = profile__location(p, i);
		const struct profile_mapping *m;

		if (!b->loc_ids[i] || l->kernel || l->pid != pid || l->mapping == PROFILE_NONE)
			continue;
		m = profile__mapping(p, l->mapping);
		if (is_special(m->file))
			continue;
		if (best == PROFILE_NONE || m->start < profile__mapping(p, best)->start)
			best = l->mapping;
	}
	for (uint32_t i = 0; i < profile__nr_mappings(p) && best == PROFILE_NONE; i++)
		if (b->map_ids[i] && !is_special(profile__mapping(p, i)->file))
			best = i;
	for (uint32_t i = 0; i < profile__nr_mappings(p) && best == PROFILE_NONE; i++)
		if (b->map_ids[i])
			best = i;
	return best;
}

static int pprof_builder__add_mapping(struct pprof_builder *b, uint64_t start, uint64_t limit,
				      uint64_t offset, const char *file, const char *build_id,
				      bool has_funcs, uint8_t has_lines)
{
	size_t n = b->msg.n_mapping;
	Pprof__Mapping *m = &b->maps[n];

	*m = (Pprof__Mapping)PPROF__MAPPING__INIT;
	m->id = n + 1;
	m->memory_start = start;
	m->memory_limit = limit;
	m->file_offset = offset;
	m->filename = pprof_builder__str(b, file);
	m->build_id = pprof_builder__str(b, build_id);
	if (m->filename < 0 || m->build_id < 0)
		return -ENOMEM;
	/* Symbolized here: pprof need not look for the binary. */
	m->has_functions = has_funcs;
	m->has_filenames = has_lines & MAP_FILENAMES;
	m->has_line_numbers = has_lines & MAP_LINE_NUMBERS;
	m->has_inline_frames = has_lines & MAP_INLINE_FRAMES;
	b->map_ptrs[n] = m;
	b->msg.n_mapping++;
	return 0;
}

static int pprof_builder__add_model_mapping(struct pprof_builder *b, uint32_t id)
{
	const struct profile_mapping *m = profile__mapping(b->p, id);

	b->map_ids[id] = b->msg.n_mapping + 1;
	return pprof_builder__add_mapping(b, m->start, m->limit, m->offset, m->file, m->build_id,
					  b->map_has_funcs[id], b->map_has_lines[id]);
}

static int pprof_builder__mappings(struct pprof_builder *b)
{
	size_t nr = profile__nr_mappings(b->p);
	uint32_t main_id = pprof_builder__main_mapping(b);
	int err = 0;

	/* the model's, the kernel's and the interpreters' made up */
	b->maps = calloc(nr + 1 + b->nr_kinds, sizeof(*b->maps));
	b->map_ptrs = calloc(nr + 1 + b->nr_kinds, sizeof(*b->map_ptrs));
	if (!b->maps || !b->map_ptrs)
		return -ENOMEM;
	b->msg.mapping = b->map_ptrs;
	if (main_id != PROFILE_NONE)
		err = pprof_builder__add_model_mapping(b, main_id);
	for (uint32_t i = 0; i < nr && !err; i++)
		if (b->map_ids[i] && i != main_id)
			err = pprof_builder__add_model_mapping(b, i);
	if (!err && b->kernel_map_id) {
		b->kernel_map_id = b->msg.n_mapping + 1;
		err = pprof_builder__add_mapping(b, b->kernel_lo, b->kernel_hi, 0, KERNEL_MAPPING,
						 NULL, false, 0);
	}
	for (size_t k = 0; k < b->nr_kinds && !err; k++) {
		if (!b->interp[k].id)
			continue;
		b->interp[k].id = b->msg.n_mapping + 1;
		err = pprof_builder__add_mapping(b, b->interp[k].lo, b->interp[k].hi, 0,
						 interp_mapping((uint8_t)k), NULL, true,
						 MAP_FILENAMES | MAP_LINE_NUMBERS);
	}
	return err;
}

/* The Line entries of location i (model id) in loc: one per source line, else its function. */
static int pprof_builder__lines(struct pprof_builder *b, uint32_t i, Pprof__Location *loc)
{
	const struct profile_location *l = profile__location(b->p, i);
	size_t n, used = 0;
	const struct profile_line *lines = profile__lines(b->p, i, &n);

	if (!n && !l->function && !l->system_name)
		return 0;
	loc->line = &b->line_ptrs[b->nr_lines];
	for (size_t j = 0; j < (n ? n : 1); j++) {
		Pprof__Line *line = &b->lines[b->nr_lines];
		/* the outermost line is named as the location */
		bool outer = j + 1 == n && (l->function || l->system_name);
		const char *name = !n || outer ? l->function : lines[j].function;
		const char *system_name = !n || outer ? l->system_name : lines[j].system_name;

		*line = (Pprof__Line)PPROF__LINE__INIT;
		if (n)
			line->line = lines[j].line;
		line->function_id = pprof_builder__func(b, name, system_name,
							n ? lines[j].file : NULL,
							n ? lines[j].start_line : 0);
		if (!line->function_id)
			return -ENOMEM;
		b->line_ptrs[b->nr_lines++] = line;
		used++;
	}
	loc->n_line = used;
	return 0;
}

static int pprof_builder__locations(struct pprof_builder *b)
{
	size_t nr = profile__nr_locations(b->p), nr_lines = b->nr_lines;
	int err = 0;

	b->locs = calloc(nr + 1, sizeof(*b->locs));
	b->loc_ptrs = calloc(nr + 1, sizeof(*b->loc_ptrs));
	b->lines = calloc(nr_lines + 1, sizeof(*b->lines));
	b->line_ptrs = calloc(nr_lines + 1, sizeof(*b->line_ptrs));
	b->funcs = calloc(nr_lines + 1, sizeof(*b->funcs));
	b->func_ptrs = calloc(nr_lines + 1, sizeof(*b->func_ptrs));
	if (!b->locs || !b->loc_ptrs || !b->lines || !b->line_ptrs || !b->funcs || !b->func_ptrs)
		return -ENOMEM;
	b->nr_lines = 0;
	b->msg.location = b->loc_ptrs;
	b->msg.function = b->func_ptrs;
	for (uint32_t i = 0; i < nr && !err; i++) {
		const struct profile_location *l = profile__location(b->p, i);
		Pprof__Location *loc = &b->locs[b->msg.n_location];

		if (!b->loc_ids[i])
			continue;
		*loc = (Pprof__Location)PPROF__LOCATION__INIT;
		loc->id = b->loc_ids[i] = ++b->msg.n_location;
		loc->address = l->addr;
		if (interp_mapping(l->kind))
			loc->mapping_id = b->interp[l->kind].id;
		else if (l->mapping != PROFILE_NONE)
			loc->mapping_id = b->map_ids[l->mapping];
		else if (l->kernel)
			loc->mapping_id = b->kernel_map_id;
		err = pprof_builder__lines(b, i, loc);
		b->loc_ptrs[loc->id - 1] = loc;
	}
	b->msg.n_function = b->nr_funcs;
	return err;
}

enum { LABEL_PID, LABEL_TID, LABEL_COMM, LABEL_THREAD, NR_LABELS };
/* An off-CPU sample's, after those: its thread's state, and whether its stack was walked. */
enum { LABEL_STATE, LABEL_UNWALKED, NR_OFF_CPU_LABELS };

static const char *const label_keys[NR_LABELS] = { "pid", "tid", "comm", "thread" };
static const char *const off_cpu_label_keys[NR_OFF_CPU_LABELS] = { "state", "unwalked" };

/* pid and tid always; comm, then thread, when known */
static int nr_labels(const struct profile_sample *s)
{
	if (!s->comm[0])
		return LABEL_COMM;
	return s->thread[0] ? NR_LABELS : LABEL_THREAD;
}

/* Strings of the off-CPU labels, into the table before the first sample. */
static int pprof_builder__off_cpu_strings(struct pprof_builder *b)
{
	static const char *const strs[] = { "state", "unwalked", "S", "D", "true" };

	for (size_t i = 0; b->off_cpu && i < sizeof(strs) / sizeof(strs[0]); i++)
		if (pprof_builder__str(b, strs[i]) < 0)
			return -ENOMEM;
	return 0;
}

/* The string table must be whole before the first sample is packed: the labels' strings. */
static int pprof_builder__sample_strings(struct pprof_builder *b)
{
	size_t nr = profile__nr_samples(b->p);

	for (size_t i = 0; i < nr; i++) {
		const struct profile_sample *s = profile__sample(b->p, i);
		int labels = nr_labels(s);

		for (int j = 0; s->count && j < labels; j++)
			if (pprof_builder__str(b, label_keys[j]) < 0)
				return -ENOMEM;
		if (s->count && s->comm[0] && pprof_builder__str(b, s->comm) < 0)
			return -ENOMEM;
		if (s->count && s->thread[0] && s->comm[0] && pprof_builder__str(b, s->thread) < 0)
			return -ENOMEM;
	}
	return pprof_builder__off_cpu_strings(b);
}

/* The labels of s into l and ptrs; their strings are in the table already. */
static size_t pprof_builder__labels(struct pprof_builder *b, const struct profile_sample *s,
				    Pprof__Label *l, Pprof__Label **ptrs)
{
	size_t n = (size_t)nr_labels(s);

	for (size_t i = 0; i < n; i++) {
		l[i] = (Pprof__Label)PPROF__LABEL__INIT;
		l[i].key = pprof_builder__str(b, label_keys[i]);
		if (i == LABEL_COMM)
			l[i].str = pprof_builder__str(b, s->comm);
		else if (i == LABEL_THREAD)
			l[i].str = pprof_builder__str(b, s->thread);
		else
			l[i].num = i == LABEL_PID ? s->pid : s->tid;
		ptrs[i] = &l[i];
	}
	if (!(s->flags & PROFILE_SAMPLE_OFF_CPU))
		return n;
	l[n] = (Pprof__Label)PPROF__LABEL__INIT;
	l[n].key = pprof_builder__str(b, off_cpu_label_keys[LABEL_STATE]);
	l[n].str = pprof_builder__str(b, s->flags & PROFILE_SAMPLE_STATE_D ? "D" : "S");
	ptrs[n] = &l[n];
	n++;
	if (s->flags & PROFILE_SAMPLE_UNWALKED) {
		l[n] = (Pprof__Label)PPROF__LABEL__INIT;
		l[n].key = pprof_builder__str(b, off_cpu_label_keys[LABEL_UNWALKED]);
		l[n].str = pprof_builder__str(b, "true");
		ptrs[n] = &l[n];
		n++;
	}
	return n;
}

static int grow_buf(void **buf, size_t *cap, size_t need, size_t elem)
{
	void *n;

	if (need <= *cap)
		return 0;
	n = reallocarray(*buf, need, elem);
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = need;
	return 0;
}

/* Stores v as a base-128 varint at out; returns its length. */
static size_t varint_put(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		out[n++] = (uint8_t)(v | 0x80);
	out[n++] = (uint8_t)v;
	return n;
}

#define SAMPLE_FIELD_TAG 0x12 /* Profile.sample: field 2, length-delimited */

/* Packs s as a Profile.sample field into b->packed; *len its length. */
static int pprof_builder__pack_sample(struct pprof_builder *b, const struct profile_sample *s,
				      size_t *len)
{
	Pprof__Sample out = PPROF__SAMPLE__INIT;
	Pprof__Label labels[NR_LABELS + NR_OFF_CPU_LABELS];
	Pprof__Label *label_ptrs[NR_LABELS + NR_OFF_CPU_LABELS];
	bool off = s->flags & PROFILE_SAMPLE_OFF_CPU;
	/* samples (blocks off the CPU), CPU time, time off the CPU */
	int64_t values[3] = { (int64_t)s->count,
			      off ? 0 : (int64_t)(s->count * b->opts->meta.period_ns),
			      off ? (int64_t)s->off_cpu_ns : 0 };
	uint32_t nr_kernel = b->opts->no_kernel ? 0 : s->nr_kernel;
	size_t size, head;
	int err;

	err = grow_buf((void **)&b->sample_loc_ids, &b->cap_sample_loc_ids,
		       (size_t)s->nr_user + nr_kernel + 1, sizeof(*b->sample_loc_ids));
	if (err)
		return err;
	/* leaf first: the kernel frames, then the user frames */
	out.location_id = b->sample_loc_ids;
	for (uint32_t j = 0; j < nr_kernel; j++)
		out.location_id[out.n_location_id++] = b->loc_ids[s->kernel[j]];
	for (uint32_t j = 0; j < s->nr_user; j++)
		out.location_id[out.n_location_id++] = b->loc_ids[s->user[j]];
	out.value = values;
	out.n_value = b->msg.n_sample_type;
	out.label = label_ptrs;
	out.n_label = pprof_builder__labels(b, s, labels, label_ptrs);
	size = pprof__sample__get_packed_size(&out);
	err = grow_buf((void **)&b->packed, &b->cap_packed, size + 11, 1);
	if (err)
		return err;
	b->packed[0] = SAMPLE_FIELD_TAG;
	head = 1 + varint_put(b->packed + 1, size);
	*len = head + pprof__sample__pack(&out, b->packed + head);
	return 0;
}

/*
 * Sample types, period and times: samples/count, cpu/nanoseconds when the
 * period is known, and off-cpu/nanoseconds with off-CPU samples (period
 * type cpu, the default sample type too).
 */
static int pprof_builder__header(struct pprof_builder *b)
{
	const struct pprof_meta *meta = &b->opts->meta;
	size_t nr = meta->period_ns ? 2 : 1;
	const char *names[3][2] = { { "samples", "count" },
				    { "cpu", "nanoseconds" },
				    { "off-cpu", "nanoseconds" } };

	b->off_cpu = nr == 2 && profile__has_off_cpu(b->p);
	if (b->off_cpu)
		nr = 3;
	for (size_t i = 0; i < nr; i++) {
		b->value_types[i] = (Pprof__ValueType)PPROF__VALUE_TYPE__INIT;
		b->value_types[i].type = pprof_builder__str(b, names[i][0]);
		b->value_types[i].unit = pprof_builder__str(b, names[i][1]);
		b->value_type_ptrs[i] = &b->value_types[i];
	}
	b->msg.sample_type = b->value_type_ptrs;
	b->msg.n_sample_type = nr;
	b->period_type = b->value_types[nr > 1 ? 1 : 0];
	b->msg.period_type = &b->period_type;
	b->msg.period = nr > 1 ? (int64_t)meta->period_ns : 1;
	if (b->off_cpu)
		b->msg.default_sample_type = b->value_types[1].type;
	b->msg.time_nanos = (int64_t)meta->start_ns;
	b->msg.duration_nanos = (int64_t)meta->duration_ns;
	if (b->value_types[0].type < 0 || b->value_types[nr - 1].unit < 0)
		return -ENOMEM;
	return 0;
}

static int pprof_builder__build(struct pprof_builder *b)
{
	int err;

	b->msg = (Pprof__Profile)PPROF__PROFILE__INIT;
	if (pprof_builder__str(b, "") != 0)
		return -ENOMEM;
	err = pprof_builder__header(b);
	if (!err)
		err = pprof_builder__mark(b);
	if (!err)
		err = pprof_builder__mappings(b);
	if (!err)
		err = pprof_builder__locations(b);
	if (!err)
		err = pprof_builder__sample_strings(b);
	if (err)
		return err;
	b->msg.string_table = b->strs;
	b->msg.n_string_table = b->nr_strs;
	return 0;
}

/* Packs part, some fields of the Profile message, and compresses it. */
static int write_part(struct pprof_builder *b, struct gzip *gz, const Pprof__Profile *part)
{
	size_t len = pprof__profile__get_packed_size(part);
	int err = grow_buf((void **)&b->packed, &b->cap_packed, len + 1, 1);

	if (err)
		return err;
	return gzip__write(gz, b->packed, pprof__profile__pack(part, b->packed));
}

static int write_samples(struct pprof_builder *b, struct gzip *gz)
{
	size_t nr = profile__nr_samples(b->p);

	for (size_t i = 0; i < nr; i++) {
		const struct profile_sample *s = profile__sample(b->p, i);
		size_t len;
		int err;

		if (!s->count)
			continue;
		err = pprof_builder__pack_sample(b, s, &len);
		if (!err)
			err = gzip__write(gz, b->packed, len);
		if (err)
			return err;
	}
	return 0;
}

/* Field 1 (the sample types), the samples (field 2), then every later field. */
static int write_message(struct pprof_builder *b, struct gzip *gz)
{
	Pprof__Profile head = PPROF__PROFILE__INIT, tail = b->msg;
	int err;

	head.sample_type = b->msg.sample_type;
	head.n_sample_type = b->msg.n_sample_type;
	tail.sample_type = NULL;
	tail.n_sample_type = 0;
	err = write_part(b, gz, &head);
	if (!err)
		err = write_samples(b, gz);
	if (!err)
		err = write_part(b, gz, &tail);
	return err;
}

int pprof_writer__write(FILE *f, const struct profile *p, const struct pprof_writer_opts *opts)
{
	struct pprof_builder b = { .p = p, .opts = opts };
	struct gzip *gz = gzip__new(f);
	int err;

	if (!gz)
		return -ENOMEM;
	err = pprof_builder__build(&b);
	if (!err)
		err = write_message(&b, gz);
	if (!err)
		err = gzip__finish(gz);
	errno = 0;
	if (!err && (fflush(f) || ferror(f)))
		err = errno ? -errno : -EIO;
	gzip__free(gz);
	pprof_builder__free(&b);
	return err;
}
