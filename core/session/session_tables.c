// SPDX-License-Identifier: GPL-2.0-only
/*
 * The unwind tables of a session in the BPF maps: the shards of rows, the
 * rule dictionary and the page map, and the files BPF finds by their inode.
 *
 * Map sizes cannot change after load, so the rows live in an array of
 * maps: one inner map per shard of UNW_SHARD_ROWS rows (1 MiB, mmapable,
 * kernel memory that is neither swapped nor shared), created when the
 * packer first fills it. A launched command that execs a compiler, a
 * dlopen of a big library, a new process under -a: each gets the shards it
 * needs while the run goes on, and a run takes only what its tables take.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "session_priv.h" /* before the skeleton: bpf/abi.h's types */
#include "bpf/unwind.skel.h"
#include "../util/common.h"
#include "../util/log.h"
#include "../model/model.h"
#include "../unwind/unwind_table.h"
#include "../unwind/encoder.h"
#include "../unwind/shards.h"
#include "../unwind/loader.h"

/* Creates the inner maps of the shard map up to shard, which the packer has just opened. */
static int session__shard_create(struct session *s, size_t shard)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_MMAPABLE);
	const struct encoder_geometry *g = encoder__geometry(s->enc);
	size_t len = g->shard_bytes;
	int outer = bpf_map__fd(s->skel->maps.shards);

	while (s->nr_shards <= shard) {
		uint32_t key = s->nr_shards;
		void *rows;
		int fd;

		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unw_shard", sizeof(uint32_t),
				    g->shard_value_size, g->shard_entries, &mo);
		if (fd < 0) {
			pr_err("cannot create unwind shard %u: %s", key, strerror(errno));
			return -errno;
		}
		rows = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (rows == MAP_FAILED || bpf_map_update_elem(outer, &key, &fd, BPF_ANY)) {
			int err = -errno;

			if (rows != MAP_FAILED)
				munmap(rows, len);
			close(fd);
			pr_err("cannot set up unwind shard %u: %s", key, strerror(-err));
			return err;
		}
		s->shard_mem[s->nr_shards] = rows;
		s->shard_fds[s->nr_shards++] = fd;
	}
	return 0;
}

/* A table the loader placed: rows first, then the index that points to them. */
int session__upload_placed(void *ctx, struct model_image *e, const struct shards_placement *pl)
{
	struct session *s = ctx;
	void *index = NULL;
	int err;

	for (size_t i = 0; i < pl->nr_chunks; i++) {
		const struct shards_chunk *c = &pl->chunks[i];

		err = session__shard_create(s, c->shard);
		if (!err)
			err = encoder__rows(s->enc, e->table, c, s->shard_mem[c->shard]);
		if (err)
			return err;
	}
	index = malloc(encoder__geometry(s->enc)->index_bytes);
	if (!index)
		return -ENOMEM;
	err = encoder__index(s->enc, pl, index);
	if (err == -ENOSPC || err == -E2BIG) {
		/* Published empty: its pcs get frame pointers, its rows are counted as left out. */
		if (!s->unindexed_warned)
			pr_warn("%s: the unwind page map is full: frame pointers for this "
				"and later tables",
				e->path);
		s->unindexed_warned = true;
		s->rows_unindexed += pl->rows_placed;
		err = 0;
	}
	if (err)
		goto cleanup;
	if (pl->rows_unplaced && !s->unplaced_warned) {
		/* Once: under -a every later executable would repeat it. */
		pr_warn("unwind tables exceed %zu shards: frame pointers where rows do not fit "
			"(raise --max-shards)",
			s->opts.max_shards);
		s->unplaced_warned = true;
	}
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.execs), &pl->id, index, BPF_ANY)) {
		err = -errno;
		goto cleanup;
	}
	/* In the map for the rest of the run: a copy here would only take memory. */
	unwind_table__release_rows(e->table);
	s->tables_placed++;
cleanup:
	free(index);
	return err;
}

/* Lets BPF walk this file in processes whose mappings user space has not read yet. */
void session__publish_file(struct session *s, struct model_file *f, uint32_t exec_id)
{
	const struct model_image *img = f->image;
	struct unw_file_key key = { .ino = f->inode, .dev = f->dev_major << 20 | f->dev_minor };
	struct unw_file val = {
		.exec_id = exec_id,
		.nr_segs = img->nr_exec_segs,
		.base = img->table->base,
	};

	if (f->published || !f->inode || !img->nr_exec_segs)
		return;
	memcpy(val.segs, img->exec_segs, sizeof(val.segs));
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.files), &key, &val, BPF_ANY) == 0)
		f->published = true;
}

/*
 * Every file of the model whose table is in BPF, published: BPF then walks
 * it in a process that maps it before user space has read its mappings, as
 * a library mapped right after an exec, where no process entry written yet
 * holds it (under -a, whose processes are read as they are first seen, and
 * no exec is held, the library a launched command maps was not walked until
 * user space read the command again: its first tens of milliseconds, on a
 * busy machine, ended their stacks there).
 */
void session__publish_files(struct session *s)
{
	if (s->tables_published == s->tables_placed)
		return;
	for (size_t i = 0; i < model__nr_files(s->model); i++) {
		struct model_file *f = model__file(s->model, i);
		uint32_t exec_id;

		if (f->published || !f->image || !f->image->table)
			continue;
		exec_id = loader__exec_id(s->loader, f->image);
		if (exec_id)
			session__publish_file(s, f, exec_id);
	}
	s->tables_published = s->tables_placed;
}

/* Maps map (entries x size bytes) into *mem, where the encoder writes it. */
static int session__mmap_map(struct bpf_map *map, size_t bytes, void **mem)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);

	if (p == MAP_FAILED) {
		int err = -errno;

		pr_err("cannot map %s: %s", bpf_map__name(map), strerror(-err));
		return err;
	}
	*mem = p;
	return 0;
}

/* The rule dictionary and the page map: the encoder fills them in place from now on. */
int session__map_dictionary(struct session *s)
{
	const struct encoder_geometry *g = encoder__geometry(s->enc);
	int err;

	s->rules_bytes = g->max_rules * g->rule_bytes;
	s->pages_bytes = g->max_pages * g->page_bytes;
	err = session__mmap_map(s->skel->maps.rules, s->rules_bytes, &s->rules_mem);
	if (!err)
		err = session__mmap_map(s->skel->maps.pages, s->pages_bytes, &s->pages_mem);
	if (err)
		return err;
	encoder__set_maps(s->enc, s->rules_mem, s->pages_mem);
	return 0;
}
