// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs a libFuzzer target over files and directories of inputs without
 * libFuzzer, so every build (gcc, ASan+UBSan in CI) replays the corpus.
 *
 * usage: fuzz_replay PATH...   (a directory means every regular file in it)
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Corpus inputs are small files; anything bigger is not ours. */
#define MAX_INPUT_SIZE (16 << 20)

static int replay_file(const char *path)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	long size;
	FILE *f;
	int err = 0;

	f = fopen(path, "rb");
	if (!f) {
		err = -errno;
		fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(-err));
		return err;
	}
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		err = -errno;
		fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(-err));
		goto cleanup;
	}
	if (size > MAX_INPUT_SIZE) {
		fprintf(stderr, "fuzz_replay: %s: larger than %d bytes\n", path, MAX_INPUT_SIZE);
		err = -EFBIG;
		goto cleanup;
	}
	buf = malloc(size ? (size_t)size : 1);
	if (!buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	len = fread(buf, 1, (size_t)size, f);
	if (len != (size_t)size) {
		fprintf(stderr, "fuzz_replay: %s: short read\n", path);
		err = -EIO;
		goto cleanup;
	}
	LLVMFuzzerTestOneInput(buf, len);
cleanup:
	free(buf);
	fclose(f);
	return err;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays the files of a directory in name order, so a run is reproducible. */
static int replay_dir(const char *dir, int *count)
{
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	int err = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		err = -errno;
		fprintf(stderr, "fuzz_replay: %s: %s\n", dir, strerror(-err));
		return err;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **tmp = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*names));

			if (!tmp) {
				err = -ENOMEM;
				goto cleanup;
			}
			names = tmp;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			err = -ENOMEM;
			goto cleanup;
		}
		n++;
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n && !err; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		err = replay_file(path);
		(*count)++;
	}
cleanup:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return err;
}

int main(int argc, char **argv)
{
	struct stat st;
	int count = 0, err = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: fuzz_replay PATH...\n");
		return 64;
	}
	for (int i = 1; i < argc && !err; i++) {
		if (stat(argv[i], &st)) {
			fprintf(stderr, "fuzz_replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			err = replay_dir(argv[i], &count);
		} else {
			err = replay_file(argv[i]);
			count++;
		}
	}
	if (err)
		return 1;
	printf("fuzz_replay: %d inputs replayed\n", count);
	return 0;
}
