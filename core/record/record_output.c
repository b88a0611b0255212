// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recording's profile in its format: what the run tells the writers
 * (its times, the flame graph's title), then the format's writer from the
 * table of core/profile/out_format.h. See record_output.h.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

#include "record_output.h"
#include "../profile/out_format.h"
#include "../profile/profile.h"

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

/* The line under it: what the samples are, their rate and the run's length. */
static void svg_subtitle(const struct profile *p, const struct recorder_opts *o,
			 const struct record_output_run *run, char *subtitle, size_t size)
{
	if (o->off_cpu)
		snprintf(subtitle, size,
			 "time on the CPU (%u Hz samples) and off it (blocked, in blue) in %.1f s",
			 o->freq, run->elapsed);
	else
		snprintf(subtitle, size, "%" PRIu64 " samples at %u Hz in %.1f s",
			 profile__total(p), o->freq, run->elapsed);
}

int record_output__write(FILE *f, const struct profile *p, const struct recorder_opts *o,
			 const struct record_output_run *run)
{
	char title[PATH_MAX + 64], subtitle[128];
	struct out_format_opts opts = {
		.pid = o->pid_prefix,
		.tid = o->tid_prefix,
		.kernel = !o->no_kernel,
		.times = o->off_cpu,
		.meta = {
			.start_ns = run->start_ns,
			.duration_ns = (uint64_t)(run->elapsed * 1e9),
			.period_ns = 1000000000ULL / o->freq,
		},
		.main_file = run->main_file,
		.title = title,
		.subtitle = subtitle,
	};

	svg_title(o, title, sizeof(title));
	svg_subtitle(p, o, run, subtitle, sizeof(subtitle));
	return out_format__write(f, o->format, p, &opts);
}
