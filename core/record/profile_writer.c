// SPDX-License-Identifier: GPL-2.0-only
/* The profile in its format: folded, pprof or a flame graph. See profile_writer.h. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

#include "profile_writer.h"
#include "../profile/flamegraph.h"
#include "../profile/folded.h"
#include "../profile/pprof.h"
#include "../profile/profile.h"

/* The writer of each output format (core/profile/format_names.h names them). */
typedef int (*output_writer)(FILE *f, const struct profile *p, const struct recorder_opts *o,
			     const struct record_output_run *run);

static int write_folded(FILE *f, const struct profile *p, const struct recorder_opts *o,
			const struct record_output_run *run)
{
	struct folded_opts opts = {
		.pid = o->pid_prefix,
		.tid = o->tid_prefix,
		.kernel = !o->no_kernel,
		.times = o->off_cpu,
		.period_ns = 1000000000ULL / o->freq,
	};

	(void)run;
	return folded__write(f, p, &opts);
}

static int write_pprof(FILE *f, const struct profile *p, const struct recorder_opts *o,
		       const struct record_output_run *run)
{
	struct pprof_write_opts opts = {
		.meta = {
			.start_ns = run->start_ns,
			.duration_ns = (uint64_t)(run->elapsed * 1e9),
			.period_ns = 1000000000ULL / o->freq,
		},
		.main_file = run->main_file,
		.no_kernel = o->no_kernel,
	};

	return pprof__write(f, p, &opts);
}

/* The flame graph's title: the command line of the run, as far as it says what was profiled. */
static void svg_title(const struct recorder_opts *o, char *title, size_t size)
{
	if (o->command)
		snprintf(title, size, "unwprof record %s-- %s", o->all ? "-a " : "", o->command[0]);
	else if (o->all)
		snprintf(title, size, "unwprof record -a");
	else if (o->nr_tids)
		snprintf(title, size, "unwprof record -t %d%s", (int)o->tids[0],
			 o->nr_tids > 1 ? ",..." : "");
	else
		snprintf(title, size, "unwprof record -p %d%s", (int)o->pids[0],
			 o->nr_pids > 1 ? ",..." : "");
}

static int write_svg(FILE *f, const struct profile *p, const struct recorder_opts *o,
		     const struct record_output_run *run)
{
	char title[PATH_MAX + 64], subtitle[128];
	struct flamegraph_opts opts = {
		.title = title,
		.subtitle = subtitle,
		.pid = o->pid_prefix,
		.tid = o->tid_prefix,
		.kernel = !o->no_kernel,
		.times = o->off_cpu,
		.period_ns = 1000000000ULL / o->freq,
	};

	svg_title(o, title, sizeof(title));
	if (o->off_cpu)
		snprintf(subtitle, sizeof(subtitle),
			 "time on the CPU (%u Hz samples) and off it (blocked, in blue) in %.1f s",
			 o->freq, run->elapsed);
	else
		snprintf(subtitle, sizeof(subtitle), "%" PRIu64 " samples at %u Hz in %.1f s",
			 profile__total(p), o->freq, run->elapsed);
	return flamegraph__write(f, p, &opts);
}

static const output_writer writers[OUT_NR] = {
	[OUT_FOLDED] = write_folded,
	[OUT_PPROF] = write_pprof,
	[OUT_SVG] = write_svg,
};

int record_output__write(FILE *f, const struct profile *p, const struct recorder_opts *o,
			 const struct record_output_run *run)
{
	return writers[o->format](f, p, o, run);
}
