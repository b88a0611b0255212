// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf-ids: prints the ids of the BPF programs, maps and links loaded in the
 * kernel, one "KIND ID" a line: in the emulated arm64 machine, which has no
 * bpftool, a run of unwprof is checked to leave none of its own behind
 * (tests/arm64/guest.sh compares the lists before and after).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>

typedef int (*next_id_fn)(__u32 start, __u32 *next);

static int print_ids(const char *kind, next_id_fn next)
{
	__u32 id = 0;

	while (next(id, &id) == 0)
		printf("%s %u\n", kind, id);
	if (errno != ENOENT) {
		fprintf(stderr, "bpf-ids: the %s ids: %s\n", kind, strerror(errno));
		return -errno;
	}
	return 0;
}

int main(void)
{
	int err = 0;

	err = err ?: print_ids("prog", bpf_prog_get_next_id);
	err = err ?: print_ids("map", bpf_map_get_next_id);
	err = err ?: print_ids("link", bpf_link_get_next_id);
	if (fflush(stdout) || ferror(stdout))
		err = -EIO;
	return err ? 1 : 0;
}
