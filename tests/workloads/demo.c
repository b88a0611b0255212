// SPDX-License-Identifier: GPL-2.0-only
/*
 * demo [ROUNDS]: the quick-start workload. Each round generates a block of
 * text-like data, compresses it with a toy LZ77 compressor, hashes it, and
 * sorts a table of records. ROUNDS (default 60) is a fixed amount of work,
 * about 5 s on a current x86-64 core.
 *
 * Built without frame pointers; a profile should show main -> run_round and
 * under it compress_block -> find_match (about half the time),
 * hash_block -> fnv1a_mix and sort_records -> merge_runs.
 */
#include <stdint.h>
#include <string.h>

#include "workload.h"

#define BLOCK_SIZE (256 * 1024)
#define WINDOW 4096
#define MIN_MATCH 4
#define NR_RECORDS (512 * 1024)

struct record {
	uint64_t key;
	uint32_t id;
};

/* Longest earlier occurrence of data[pos..] within the window: the slow part. */
NOINLINE static size_t find_match(const uint8_t *data, size_t pos, size_t len, size_t *dist)
{
	size_t best = 0;
	size_t start = pos > WINDOW ? pos - WINDOW : 0;

	for (size_t cand = start; cand < pos; cand += 3) {
		size_t n = 0;

		while (pos + n < len && n < 255 && data[cand + n] == data[pos + n])
			n++;
		if (n > best) {
			best = n;
			*dist = pos - cand;
		}
	}
	return best;
}

/* Toy LZ77: a literal byte or a (distance, length) pair; returns the output size. */
NOINLINE static size_t compress_block(const uint8_t *data, size_t len, uint8_t *out)
{
	size_t pos = 0, o = 0;

	while (pos < len) {
		size_t dist = 0;
		size_t n = find_match(data, pos, len, &dist);

		KEEP();
		if (n >= MIN_MATCH) {
			out[o++] = 0xff;
			out[o++] = dist >> 8;
			out[o++] = dist & 0xff;
			out[o++] = n;
			pos += n;
		} else {
			out[o++] = data[pos++];
		}
	}
	return o;
}

NOINLINE static uint64_t fnv1a_mix(uint64_t h, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Hashes the block several times with different seeds, like a checksum pass. */
NOINLINE static uint64_t hash_block(const uint8_t *data, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int seed = 0; seed < 96; seed++) {
		h = fnv1a_mix(h ^ seed, data, len);
		KEEP();
	}
	return h;
}

NOINLINE static void merge_runs(struct record *dst, const struct record *src, size_t lo, size_t mid,
				size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		dst[k++] = src[j].key < src[i].key ? src[j++] : src[i++];
	while (i < mid)
		dst[k++] = src[i++];
	while (j < hi)
		dst[k++] = src[j++];
}

/* Bottom-up merge sort by key; the result ends in recs. */
NOINLINE static void sort_records(struct record *recs, struct record *tmp, size_t n)
{
	struct record *src = recs, *dst = tmp, *swap;

	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;

			merge_runs(dst, src, lo, mid, hi);
			KEEP();
		}
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != recs)
		memcpy(recs, src, n * sizeof(*recs));
}

/* Text-like input: words from a small vocabulary, so the compressor finds matches. */
NOINLINE static void make_input(uint8_t *data, size_t len, uint64_t seed)
{
	static const char *const words[] = {
		"profile ", "stack ", "frame ",	 "unwind ", "sample ", "kernel ",
		"table ",   "shard ", "symbol ", "dwarf ",  "perf ",   "event ",
	};
	size_t pos = 0;

	while (pos < len) {
		const char *w;
		size_t n;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		w = words[(seed >> 33) % 12];
		n = strlen(w);
		if (n > len - pos)
			n = len - pos;
		memcpy(data + pos, w, n);
		pos += n;
	}
}

NOINLINE static uint64_t run_round(uint8_t *data, uint8_t *out, struct record *recs,
				   struct record *tmp, uint64_t seed)
{
	uint64_t h;
	size_t clen;

	make_input(data, BLOCK_SIZE, seed);
	clen = compress_block(data, BLOCK_SIZE, out);
	KEEP();
	h = hash_block(data, BLOCK_SIZE);
	KEEP();
	for (size_t i = 0; i < NR_RECORDS; i++) {
		recs[i].key = mix(h + i, 1);
		recs[i].id = i;
	}
	sort_records(recs, tmp, NR_RECORDS);
	KEEP();
	return h ^ clen ^ recs[0].key;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 60;
	uint8_t *data = malloc(BLOCK_SIZE);
	uint8_t *out = malloc(2 * BLOCK_SIZE);
	struct record *recs = malloc(NR_RECORDS * sizeof(*recs));
	struct record *tmp = malloc(NR_RECORDS * sizeof(*tmp));
	double start = workload_now();
	struct timespec cpu;
	uint64_t x = 0;

	if (!data || !out || !recs || !tmp) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		x ^= run_round(data, out, recs, tmp, x + r);
		KEEP();
	}
	/* On stderr: stdout may be carrying the folded stacks of the profiler. */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	fprintf(stderr, "demo: %d rounds in %.3f s (%.3f s of CPU), checksum %016llx\n", rounds,
		workload_now() - start, cpu.tv_sec + cpu.tv_nsec / 1e9, (unsigned long long)x);
	free(data);
	free(out);
	free(recs);
	free(tmp);
	return 0;
}
