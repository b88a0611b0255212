// SPDX-License-Identifier: GPL-2.0-only
/*
 * hs_layout PID LIBJVM: what unwprof reads of the JVM that process PID
 * runs (core/runtimes/hotspot/hotspot.h): its symbols from LIBJVM, then
 * the tables and code cache from the process's memory, as JSON
 * {"layout": ..., "code_cache": ...}, for hotspot_runtime.py to check
 * against the JVM's Serviceability Agent (jhsdb) and jcmd. LIBJVM is
 * found in /proc/PID/maps by its path; its first segment is at 0. Exit 1
 * with the error, and the entry at fault, when it cannot be read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/elf/elf_file.h"
#include "core/runtimes/hotspot/hotspot.h"
#include "core/util/json.h"

/* The start of the mapping of path at offset 0 in process pid; 0: none. */
static uint64_t mapped_at(const char *pid, const char *path)
{
	char maps[64], line[4096], file[4096];
	unsigned long long start, end, off;
	uint64_t at = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%s/maps", pid);
	f = fopen(maps, "r");
	if (!f)
		return 0;
	while (!at && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &start, &end, &off, file) ==
			    4 &&
		    off == 0 && !strcmp(file, path))
			at = start;
	fclose(f);
	return at;
}

int main(int argc, char **argv)
{
	struct hotspot_process hp;
	struct hsruntime hr;
	struct elf_file *ef;
	struct json_writer *jw;
	const char *missing;
	uint64_t bias;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: hs_layout PID LIBJVM\n");
		return 2;
	}
	bias = mapped_at(argv[1], argv[2]);
	ef = elf_file__open(argv[2]);
	if (!bias || !ef) {
		fprintf(stderr, "%s is not mapped by process %s, or cannot be read\n", argv[2],
			argv[1]);
		return 1;
	}
	err = hsruntime__read(ef, &hr, &missing);
	if (!err)
		err = hotspot__read_process(&hr, (uint32_t)atoi(argv[1]), bias, &hp, &missing);
	elf_file__free(ef);
	if (err) {
		fprintf(stderr, "%s: %s (%s)\n", argv[2], strerror(-err), missing ? missing : "-");
		return 1;
	}
	jw = json__new(stdout, true);
	if (!jw)
		return 1;
	json__object_start(jw);
	hsruntime__print_layout_json(jw, &hp.layout);
	hsruntime__print_code_cache_json(jw, &hp.cache);
	json__object_end(jw);
	return json__free(jw) ? 1 : 0;
}
