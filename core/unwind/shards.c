// SPDX-License-Identifier: GPL-2.0-only
/* The shard packer: tables into chunks, chunks into fixed-size shards. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shards.h"
#include "unwind_table.h"

struct shards_entry {
	uint8_t *key;
	size_t key_len;
	struct shards_placement pl;
};

struct shards {
	struct shards_opts opts;
	/* Allocated one by one: a placement handed out never moves. */
	struct shards_entry **entries;
	size_t nr, cap;
	size_t nr_shards; /* shards opened; only the last one has room */
	size_t fill;	  /* rows used in the last shard */
	size_t dedup_hits;
	size_t rows_placed;
	size_t rows_unplaced;
};

struct shards *shards__new(const struct shards_opts *opts)
{
	struct shards *s;

	if (!opts || !opts->shard_rows || opts->shard_rows > UINT32_MAX) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->opts = *opts;
	return s;
}

static void shards_entry__free(struct shards_entry *e)
{
	if (!e)
		return;
	free(e->key);
	free(e->pl.chunks);
	free(e);
}

void shards__free(struct shards *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++)
		shards_entry__free(s->entries[i]);
	free(s->entries);
	free(s);
}

const struct shards_placement *shards__find(const struct shards *s, const void *key, size_t key_len)
{
	for (size_t i = 0; i < s->nr; i++) {
		const struct shards_entry *e = s->entries[i];

		if (e->key_len == key_len && memcmp(e->key, key, key_len) == 0)
			return &e->pl;
	}
	return NULL;
}

/*
 * The most rows of t from pos, up to room, that end where a page (pc >>
 * shift) ends; 0 when the first page alone takes more.
 */
static size_t shards__take_pages(const struct unwind_table *t, size_t pos, size_t room,
				 unsigned int shift)
{
	for (size_t k = pos + room; k > pos; k--)
		if (t->rows[k].pc >> shift != t->rows[k - 1].pc >> shift)
			return k - pos;
	return 0;
}

/* Rows of t to take from pos into room: all, or up to a split between functions (or pages). */
static size_t shards__take(const struct shards *s, const struct unwind_table *t, size_t pos,
			   size_t room)
{
	size_t take = t->nr_rows - pos, min;

	if (take <= room)
		return take;
	if (s->opts.split_shift)
		return shards__take_pages(t, pos, room, s->opts.split_shift);
	take = room;
	min = take - take / 8;
	for (size_t k = pos + take; k > pos + min; k--)
		if (t->rows[k - 1].cfa == UNW_CFA_END)
			return k - pos;
	return take;
}

/* Opens a new shard when the last one is full; false when the cap is hit. */
static bool shards__room(struct shards *s, size_t rest)
{
	size_t room = s->nr_shards ? s->opts.shard_rows - s->fill : 0;

	/* A sliver of room would cost a chunk for a few rows: start afresh. */
	if (room && rest > room && room < s->opts.shard_rows / 16)
		room = 0;
	if (room)
		return true;
	if (s->opts.max_shards && s->nr_shards >= s->opts.max_shards)
		return false;
	s->nr_shards++;
	s->fill = 0;
	return true;
}

/* Whether pl may have one more chunk (opts.max_chunks, 0: any number); -ENOMEM. */
static int shards__chunk_room(const struct shards *s, struct shards_placement *pl, size_t *cap)
{
	if (s->opts.max_chunks && pl->nr_chunks >= s->opts.max_chunks)
		return 0;
	if (grow((void **)&pl->chunks, cap, pl->nr_chunks, sizeof(*pl->chunks)))
		return -ENOMEM;
	return 1;
}

static int shards__place(struct shards *s, struct shards_placement *pl)
{
	const struct unwind_table *t = pl->table;
	size_t pos = 0, cap = 0;
	int room;

	while (pos < t->nr_rows && (room = shards__chunk_room(s, pl, &cap)) > 0 &&
	       shards__room(s, t->nr_rows - pos)) {
		size_t take = shards__take(s, t, pos, s->opts.shard_rows - s->fill);
		struct shards_chunk *c = &pl->chunks[pl->nr_chunks];

		if (!take) {
			/* A page that needs a fresh shard, or more rows than one holds. */
			if (!s->fill)
				break;
			s->fill = s->opts.shard_rows;
			continue;
		}
		pl->nr_chunks++;
		c->pc_lo = t->rows[pos].pc;
		c->pc_hi = pos + take < t->nr_rows ? t->rows[pos + take].pc : SHARDS_PC_END;
		c->shard = s->nr_shards - 1;
		c->low = s->fill;
		c->high = s->fill + take;
		c->first_row = pos;
		s->fill += take;
		pos += take;
	}
	if (room < 0)
		return room;
	pl->rows_placed = pos;
	pl->rows_unplaced = t->nr_rows - pos;
	s->rows_placed += pl->rows_placed;
	s->rows_unplaced += pl->rows_unplaced;
	return 0;
}

const struct shards_placement *shards__add_table(struct shards *s, const void *key, size_t key_len,
						 const struct unwind_table *t)
{
	const struct shards_placement *known = shards__find(s, key, key_len);
	struct shards_entry *e;
	int err;

	if (known) {
		s->dedup_hits++;
		return known;
	}
	if (s->nr == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 16;
		struct shards_entry **n = realloc(s->entries, ncap * sizeof(*n));

		if (!n)
			return NULL;
		s->entries = n;
		s->cap = ncap;
	}
	err = -ENOMEM;
	e = calloc(1, sizeof(*e));
	if (!e)
		goto cleanup;
	e->key = malloc(key_len ? key_len : 1);
	if (!e->key)
		goto cleanup;
	memcpy(e->key, key, key_len);
	e->key_len = key_len;
	e->pl.id = s->nr + 1;
	e->pl.table = t;
	err = shards__place(s, &e->pl);
cleanup:
	if (err) {
		shards_entry__free(e);
		errno = -err;
		return NULL;
	}
	s->entries[s->nr++] = e;
	return &e->pl;
}

size_t shards__count(const struct shards *s)
{
	return s->nr;
}

const struct shards_placement *shards__get(const struct shards *s, size_t i)
{
	return i < s->nr ? &s->entries[i]->pl : NULL;
}

size_t shards__shard_rows(const struct shards *s)
{
	return s->opts.shard_rows;
}

void shards__stats(const struct shards *s, struct shards_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->shards = s->nr_shards;
	st->tables = s->nr;
	st->dedup_hits = s->dedup_hits;
	st->rows_placed = s->rows_placed;
	st->rows_unplaced = s->rows_unplaced;
	st->rows_free = s->nr_shards ? s->opts.shard_rows - s->fill : 0;
}

uint64_t shards__hash(const void *buf, size_t len, uint64_t seed)
{
	const uint8_t *p = buf;
	uint64_t h = seed ? seed : 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}
