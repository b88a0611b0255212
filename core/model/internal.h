/* SPDX-License-Identifier: GPL-2.0-only */
/* What model.c (processes) and files.c (files and images) share of the model. */
#ifndef UNWPROF_MODEL_INTERNAL_H
#define UNWPROF_MODEL_INTERNAL_H

#include "../util/hashmap.h"
#include "model.h"

/*
 * A root that processes see, opened once (O_PATH) and shared while a
 * process of the model has it: by mount namespace and root directory, which
 * together say how a path resolves from it.
 */
struct model_root {
	uint64_t mnt_ns;
	uint64_t dev, ino;
	int fd;
	size_t refs;
};

struct model {
	struct model_opts opts;
	char *debug_dir;
	/* Every file and image, in the order first seen: pointers, so what callers hold stays. */
	struct model_file **files;
	size_t nr_files, cap_files;
	struct model_image **images;
	size_t nr_images, cap_images;
	struct hashmap files_by_id;    /* by device and inode; inode 0 is no identity */
	struct hashmap images_by_key;  /* by build ID or content hash */
	struct hashmap images_by_path; /* model__image_of_path()'s, by the path given */
	struct hashmap paths;	       /* the paths of mappings, each kept once */
	struct hashmap procs;	       /* by pid */
	struct hashmap roots;	       /* of struct model_root, by key */
	struct model_root *own_root;   /* unwprof's, for processes never read */
	uint64_t own_pid_ns;	       /* unwprof's pid namespace, once read */
	struct model_stats stats;
	struct proc_view_counts refused; /* what the views count: stats.files_refused */
	size_t nr_fetching;		 /* images whose debug file is on its way from debuginfod */
	/* Also in files: unwprof's own [vdso], and a file without an image for any other. */
	struct model_file *vdso, *vdso_other;
	uint64_t vdso_len; /* of unwprof's own [vdso] mapping: its image in whole pages */
};

/* The path s kept by the model until model__free(); NULL on allocation failure. */
const char *model__intern(struct model *md, const char *s);

/* Frees the files and images (files.c). */
void model__free_files(struct model *md);

#endif
