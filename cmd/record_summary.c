// SPDX-License-Identifier: GPL-2.0-only
/*
 * The summary of a record run: on stderr, and as JSON (--stats-json). Every
 * sample is accounted for once: walked, frame pointers, failed, lost, not
 * drained, or without a user stack (idle CPUs, kernel threads); the
 * counting is core/record/recorder.c's (recorder_result__*). See
 * unwprof-record(1), SUMMARY.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "record.h"
#include "../core/util/common.h"
#include "../core/runtimes/runtimes.h"
#include "../core/session/failures.h"
#include "../core/session/sample_time_stats.h"
#include "../core/util/json.h"
#include "../core/util/log.h"

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

static double mib(uint64_t bytes)
{
	return bytes / (1024.0 * 1024.0);
}

/* The samples with each runtime's frames, of those that had some. */
static void print_runtimes(const struct session_stats *st, uint64_t user)
{
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++) {
		const struct runtime *rt = runtime_of_unwinder(u);
		char label[64];

		if (!rt->namer || !st->runtime_samples[u])
			continue;
		snprintf(label, sizeof(label), "with %s frames", rt->title);
		fprintf(stderr, "  %-22s %10" PRIu64 "   %5.1f%%   (%" PRIu64 " %s frames)\n",
			label, st->runtime_samples[u], percent(st->runtime_samples[u], user),
			st->runtime_frames[u], rt->title);
	}
}

static void print_errors(const struct session_stats *st)
{
	uint64_t total = 0;
	bool first = true;

	for (unsigned int i = 0; i < ARRAY_SIZE(st->errors); i++)
		total += st->errors[i];
	fprintf(stderr, "  %-22s %10" PRIu64, "errors", total);
	for (unsigned int i = 0; i < ARRAY_SIZE(st->errors); i++) {
		const char *name = session__error_name(i);

		if (!st->errors[i])
			continue;
		fprintf(stderr, "%s%s %" PRIu64, first ? "   " : ", ", name ? name : "other",
			st->errors[i]);
		first = false;
	}
	fputc('\n', stderr);
}

#define FAILURES_SHOWN 3  /* in the summary */
#define FAILURES_STATS 10 /* in --stats-json */

/* The files where the most walks stopped short, with the reason: where to look. */
static void print_failures(const struct recorder_result *res)
{
	size_t n = failures__count(res->failures);

	if (!n)
		return;
	fprintf(stderr, "  %-22s", "failed most in");
	for (size_t i = 0; i < n && i < FAILURES_SHOWN; i++) {
		const struct failure *f = failures__get(res->failures, i);
		const char *name = session__error_name(f->reason);

		fprintf(stderr, "%s%s (%s %" PRIu64 ")", i ? ", " : " ", record_base_name(f->file),
			name ? name : "other", f->samples);
	}
	fputc('\n', stderr);
}

/* Every sample in exactly one place, so that the parts add up to the samples. */
static void print_outcomes(const struct recorder_result *res, const struct session_stats *st)
{
	const struct recorder_outcomes *o = &res->outcomes;
	int64_t late = recorder_result__not_drained(res, st);

	fprintf(stderr,
		"  %-22s %10" PRIu64 " = walked %" PRIu64 " + frame pointers %" PRIu64
		" + failed %" PRIu64,
		"samples accounted", st->samples, o->walked, o->fp, o->failed);
	if (o->idle || o->kernel)
		fprintf(stderr, " + idle %" PRIu64 " + kernel threads %" PRIu64, o->idle,
			o->kernel);
	if (o->exec)
		fprintf(stderr, " + exec %" PRIu64, o->exec);
	fprintf(stderr, " + lost %" PRIu64, st->lost);
	if (late)
		fprintf(stderr, " + not drained %" PRId64, late);
	fputc('\n', stderr);
}

/* What debuginfod fetched: only when DEBUGINFOD_URLS named servers. */
static void print_debuginfod(const struct recorder_result *res)
{
	const struct debuginfod_stats *st = &res->debuginfod_stats;

	if (!res->debuginfod)
		return;
	fprintf(stderr, "  %-22s %10" PRIu64 "   of %" PRIu64 " asked for", "debug files fetched",
		st->found, st->requested);
	if (st->absent)
		fprintf(stderr, ", %" PRIu64 " not on the servers", st->absent);
	if (st->failed)
		fprintf(stderr, ", %" PRIu64 " failed", st->failed);
	if (st->abandoned)
		fprintf(stderr, ", %" PRIu64 " without an answer", st->abandoned);
	fputc('\n', stderr);
}

/* What kept processes or files from their tables; silent when nothing did. */
static void print_left_out(const struct session_stats *st)
{
	const struct {
		const char *label;
		uint64_t n;
		const char *why;
	} lines[] = {
		{ "events lost", st->events_lost, "process events: ring buffer full" },
		{ "processes over limit", st->maps_over_limit, "mappings over the limit" },
		{ "processes gone", st->processes_gone, "exited while their mappings were read" },
		{ "files replaced", st->files_replaced, "the path led to another file" },
		{ "files skipped", st->files_skipped, "walked with frame pointers" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		if (lines[i].n)
			fprintf(stderr, "  %-22s %10" PRIu64 "   (%s)\n", lines[i].label,
				lines[i].n, lines[i].why);
}

#define PROCESSES_SHOWN 5 /* in the summary's time by process */

static double seconds(uint64_t ns)
{
	return ns / 1e9;
}

/* --off-cpu: what became of the blocks, and each kind's time; every block in one place. */
static void print_off_cpu_blocks(const struct session_stats *st)
{
	fprintf(stderr,
		"  %-22s %10" PRIu64 " = walked %" PRIu64 " + short %" PRIu64
		" + outside a call %" PRIu64 " + over the cap %" PRIu64 " + exited %" PRIu64
		" + lost %" PRIu64 " + at the end %" PRIu64 "\n",
		"off-CPU blocks", st->off_blocks, st->off_walked, st->off_short, st->off_outside,
		st->off_capped, st->off_exited, st->off_lost, st->off_pending_at_end);
	if (st->off_under_way_at_end)
		fprintf(stderr, "  %-22s %10" PRIu64 "   (blocked when the run ended)\n",
			"blocks under way", st->off_under_way_at_end);
	if (st->off_end_unseen)
		fprintf(stderr, "  %-22s %10" PRIu64 "   (timed by the thread's CPU time since)\n",
			"switched in unseen", st->off_end_unseen);
	if (st->off_untimed)
		fprintf(stderr, "  %-22s %10" PRIu64 "   (no room for their thread: no time)\n",
			"blocks untimed", st->off_untimed);
	if (st->off_no_kstack)
		fprintf(stderr, "  %-22s %10" PRIu64 "   (the thread's block before was short)\n",
			"no kernel stack", st->off_no_kstack);
	fprintf(stderr, "  %-22s %10.3f s = walked %.3f s + unwalked %.3f s + lost %.3f s\n",
		"off-CPU time", seconds(st->off_ns + st->off_unwalked_ns + st->off_lost_ns),
		seconds(st->off_ns), seconds(st->off_unwalked_ns), seconds(st->off_lost_ns));
}

/* --off-cpu: the processes with the most time, on the CPU and off it. */
static void print_times_by_process(const struct recorder_result *res)
{
	const struct proc_times *pt = res->times_by_process;
	size_t n = proc_times__count(pt);

	fprintf(stderr, "  %-22s %10s %10s %10s %10s\n", "time by process", "on-CPU", "off walked",
		"unwalked", "sum");
	for (size_t i = 0; i < n && i < PROCESSES_SHOWN; i++) {
		const struct proc_time *t = proc_times__get(pt, i);
		char who[64];

		snprintf(who, sizeof(who), "%s (%u)", t->comm, t->pid);
		fprintf(stderr, "    %-20s %9.3fs %9.3fs %9.3fs %9.3fs\n", who,
			seconds(proc_time__on_cpu_ns(t, res->period_ns)), seconds(t->off_walked_ns),
			seconds(t->off_unwalked_ns),
			seconds(proc_time__total_ns(t, res->period_ns)));
	}
	if (n > PROCESSES_SHOWN)
		fprintf(stderr, "    %zu more (--stats-json has them all)\n", n - PROCESSES_SHOWN);
}

/*
 * The BPF time of a sample: the kernel's mean over every run of the
 * program (the runs that leave at once too: another process's, an idle
 * CPU's) when it counts it, and the median and p99 of the targets' samples
 * from BPF's own histogram, which is always there. Silent when neither is.
 */
static void print_bpf_time(const struct recorder_result *res)
{
	const struct sample_times *t = &res->times;

	if (res->bpf_ns_per_sample < 0 && !t->count)
		return;
	fprintf(stderr, "  %-22s ", "BPF ns per sample");
	if (res->bpf_ns_per_sample >= 0)
		fprintf(stderr, "%10.0f", res->bpf_ns_per_sample);
	else
		fprintf(stderr, "%10s", "-");
	if (t->count)
		fprintf(stderr, "   (median %.0f, p99 %.0f)", t->p50, t->p99);
	fputc('\n', stderr);
}

/* How long an exec waited for its tables, its process held: only when one did. */
static void print_exec_time(const struct session_stats *st)
{
	const struct sample_times *t = &st->exec_to_tables;

	if (!t->count)
		return;
	fprintf(stderr, "  %-22s %10" PRIu64 "   (median %.1f ms, p99 %.1f ms)\n",
		"execs to tables", t->count, t->p50 / 1e6, t->p99 / 1e6);
}

void record_print_summary(const struct recorder_result *res)
{
	const struct session_stats st = recorder_result__shown_stats(res);

	fprintf(stderr, "unwprof: recorded %.1f s%s\n", res->elapsed,
		res->targets_gone      ? " (every target exited)" :
		res->ended_at_duration ? " (the command was still running: ended at -d)" :
					 "");
	uint64_t user = recorder_result__user_samples(res, &st);

	fprintf(stderr, "  %-22s %10" PRIu64 "\n", "samples", st.samples);
	if (res->outcomes.idle || res->outcomes.kernel) {
		fprintf(stderr, "  %-22s %10" PRIu64 "   (no task on the CPU)\n", "idle",
			res->outcomes.idle);
		fprintf(stderr, "  %-22s %10" PRIu64 "   (no user stack to walk)\n",
			"kernel threads", res->outcomes.kernel);
	}
	if (res->outcomes.exec)
		fprintf(stderr, "  %-22s %10" PRIu64 "   (the old stack gone: [exec])\n",
			"inside exec", res->outcomes.exec);
	if (res->outcomes.idle || res->outcomes.kernel || res->outcomes.exec)
		fprintf(stderr, "  %-22s %10" PRIu64 "   (the shares below are of them)\n",
			"with a user stack", user);
	fprintf(stderr, "  %-22s %10" PRIu64 "   %5.1f%%\n", "walked to the bottom", st.complete,
		percent(st.complete, user));
	fprintf(stderr, "  %-22s %10" PRIu64 "   %5.1f%%", "with frame pointers", st.fp,
		percent(st.fp, user));
	if (st.fp)
		fprintf(stderr, "   (%" PRIu64 " to the bottom)", st.fp_complete);
	fputc('\n', stderr);
	fprintf(stderr, "  %-22s %10" PRIu64 "   %5.1f%%\n", "truncated", st.truncated,
		percent(st.truncated, user));
	fprintf(stderr, "  %-22s %10" PRIu64 "   %5.1f%%", "elided", st.elided,
		percent(st.elided, user));
	if (st.elided)
		fprintf(stderr, "   (deeper than %d words: the middle left out)", UNW_DEPTH_MAX);
	fputc('\n', stderr);
	fprintf(stderr, "  %-22s %10" PRIu64 "\n", "lost", st.lost);
	print_runtimes(&st, user);
	print_errors(&st);
	print_failures(res);
	print_outcomes(res, &st);
	fprintf(stderr, "  %-22s %10" PRIu64 "\n", "processes", st.processes);
	fprintf(stderr, "  %-22s %10" PRIu64 "   %.1f MiB (%.1f bytes a row with their index)\n",
		"unwind rows loaded", st.rows_loaded, mib(st.bytes_loaded),
		st.rows_loaded ? (double)st.bytes_loaded / st.rows_loaded : 0.0);
	fprintf(stderr, "  %-22s %10.1f MiB\n", "peak RSS", mib(res->peak_rss));
	fprintf(stderr, "  %-22s %10.1f MiB\n", "BPF map memory", mib(st.map_bytes));
	print_bpf_time(res);
	print_exec_time(&st);
	print_debuginfod(res);
	if (res->off_cpu) {
		print_off_cpu_blocks(&st);
		print_times_by_process(res);
	}
	if (st.rows_unplaced)
		fprintf(stderr, "  %-22s %10" PRIu64 "   (raise --max-shards)\n",
			"unwind rows left out", st.rows_unplaced);
	print_left_out(&st);
}

/* --stats-json: the summary, schema 3 (stats_put) */

/* v >= 0 rounded to the nearest multiple of 1/scale, halves up. */
static double round_to(double v, double scale)
{
	return (double)(uint64_t)(v * scale + 0.5) / scale;
}

/* ns to 0.1, null when < 0 (unknown). */
static void stats_put_ns(struct json_writer *jw, const char *key, double ns)
{
	jw_key(jw, key);
	if (ns >= 0)
		jw_double(jw, round_to(ns, 10));
	else
		jw_null(jw);
}

/* "bpf_sample_costs": for each cost, {"samples": N, "mean_ns": NS or null}. */
static void stats_put_costs(struct json_writer *jw, const struct recorder_result *res)
{
	jw_key(jw, "bpf_sample_costs");
	jw_object_start(jw);
	for (uint32_t i = 0; i < UNW_COST_NR; i++) {
		const struct unw_cost_sum *c = &res->costs[i];

		jw_key(jw, sample_times__cost_name(i));
		jw_object_start(jw);
		jw_uint_field(jw, "samples", c->samples);
		stats_put_ns(jw, "mean_ns", c->samples ? (double)c->ns / (double)c->samples : -1);
		jw_object_end(jw);
	}
	jw_object_end(jw);
}

/* {"count": N, "percent": P}, P rounded to 0.01 */
static void stats_put_share(struct json_writer *jw, const char *key, uint64_t n, uint64_t whole)
{
	jw_key(jw, key);
	jw_object_start(jw);
	jw_uint_field(jw, "count", n);
	jw_double_field(jw, "percent", round_to(percent(n, whole), 100));
	jw_object_end(jw);
}

/* "NAME": {"count", "percent"} of the samples with each runtime's frames, "NAME_frames": its frames. */
static void stats_put_runtimes(struct json_writer *jw, const struct session_stats *st,
			       uint64_t user)
{
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++) {
		const struct runtime *rt = runtime_of_unwinder(u);
		char key[64];

		if (!rt->namer)
			continue;
		stats_put_share(jw, rt->name, st->runtime_samples[u], user);
		snprintf(key, sizeof(key), "%s_frames", rt->name);
		jw_uint_field(jw, key, st->runtime_frames[u]);
	}
}

/* Every reason by name, zeros included, so that the keys do not depend on the run. */
static void stats_put_errors(struct json_writer *jw, const struct session_stats *st)
{
	uint64_t other = 0;

	jw_key(jw, "errors");
	jw_object_start(jw);
	for (unsigned int i = 0; i < ARRAY_SIZE(st->errors); i++) {
		const char *name = session__error_name(i);

		if (name)
			jw_uint_field(jw, name, st->errors[i]);
		else
			other += st->errors[i];
	}
	if (other)
		jw_uint_field(jw, "other", other);
	jw_object_end(jw);
}

/* The samples split by outcome: walked + frame_pointer + failed + lost + not_drained. */
/* "failures": the files where the most samples failed, with the reason. */
static void stats_put_failures(struct json_writer *jw, const struct recorder_result *res)
{
	jw_key(jw, "failures");
	jw_array_start(jw);
	for (size_t i = 0; i < failures__count(res->failures) && i < FAILURES_STATS; i++) {
		const struct failure *f = failures__get(res->failures, i);
		const char *name = session__error_name(f->reason);

		jw_object_start(jw);
		jw_string_field(jw, "file", f->file);
		jw_string_field(jw, "reason", name ? name : "other");
		jw_uint_field(jw, "samples", f->samples);
		jw_object_end(jw);
	}
	jw_array_end(jw);
}

static void stats_put_outcomes(struct json_writer *jw, const struct recorder_result *res,
			       const struct session_stats *st)
{
	int64_t late = recorder_result__not_drained(res, st);

	jw_key(jw, "outcomes");
	jw_object_start(jw);
	jw_uint_field(jw, "walked", res->outcomes.walked);
	jw_uint_field(jw, "frame_pointer", res->outcomes.fp);
	jw_uint_field(jw, "failed", res->outcomes.failed);
	jw_uint_field(jw, "idle", res->outcomes.idle);
	jw_uint_field(jw, "kernel_threads", res->outcomes.kernel);
	jw_uint_field(jw, "exec", res->outcomes.exec);
	jw_uint_field(jw, "lost", st->lost);
	jw_int_field(jw, "not_drained", late);
	jw_object_end(jw);
}

/* "off_cpu": the blocks by what became of them, and their time (null without --off-cpu). */
static void stats_put_off_cpu(struct json_writer *jw, const struct recorder_result *res,
			      const struct session_stats *st)
{
	jw_key(jw, "off_cpu");
	if (!res->off_cpu) {
		jw_null(jw);
		return;
	}
	jw_object_start(jw);
	jw_uint_field(jw, "blocks", st->off_blocks);
	jw_uint_field(jw, "walked", st->off_walked);
	jw_uint_field(jw, "walked_bottom", st->off_complete);
	jw_uint_field(jw, "short", st->off_short);
	jw_uint_field(jw, "outside_syscall", st->off_outside);
	jw_uint_field(jw, "capped", st->off_capped);
	jw_uint_field(jw, "exited", st->off_exited);
	jw_uint_field(jw, "lost", st->off_lost);
	jw_uint_field(jw, "pending_at_end", st->off_pending_at_end);
	jw_uint_field(jw, "under_way_at_end", st->off_under_way_at_end);
	jw_uint_field(jw, "untimed", st->off_untimed);
	jw_uint_field(jw, "switched_in_unseen", st->off_end_unseen);
	jw_uint_field(jw, "walked_without_kernel_stack", st->off_no_kstack);
	jw_uint_field(jw, "walked_ns", st->off_ns);
	jw_uint_field(jw, "unwalked_ns", st->off_unwalked_ns);
	jw_uint_field(jw, "lost_ns", st->off_lost_ns);
	jw_object_end(jw);
}

/* "debuginfod": what the fetches came to (null without DEBUGINFOD_URLS). */
static void stats_put_debuginfod(struct json_writer *jw, const struct recorder_result *res)
{
	const struct debuginfod_stats *st = &res->debuginfod_stats;

	jw_key(jw, "debuginfod");
	if (!res->debuginfod) {
		jw_null(jw);
		return;
	}
	jw_object_start(jw);
	jw_uint_field(jw, "requested", st->requested);
	jw_uint_field(jw, "fetched", st->found);
	jw_uint_field(jw, "not_found", st->absent);
	jw_uint_field(jw, "failed", st->failed);
	jw_uint_field(jw, "no_answer", st->abandoned);
	jw_object_end(jw);
}

/* "processes_time": each process's time on and off the CPU, the most first. */
static void stats_put_times(struct json_writer *jw, const struct recorder_result *res)
{
	const struct proc_times *pt = res->times_by_process;

	jw_key(jw, "processes_time");
	jw_array_start(jw);
	for (size_t i = 0; i < proc_times__count(pt); i++) {
		const struct proc_time *t = proc_times__get(pt, i);

		jw_object_start(jw);
		jw_uint_field(jw, "pid", t->pid);
		jw_string_field(jw, "comm", t->comm);
		jw_uint_field(jw, "on_cpu_ns", proc_time__on_cpu_ns(t, res->period_ns));
		jw_uint_field(jw, "off_cpu_blocks", t->off_blocks);
		jw_uint_field(jw, "off_cpu_walked_ns", t->off_walked_ns);
		jw_uint_field(jw, "off_cpu_unwalked_ns", t->off_unwalked_ns);
		jw_uint_field(jw, "total_ns", proc_time__total_ns(t, res->period_ns));
		jw_object_end(jw);
	}
	jw_array_end(jw);
}

static void stats_put(struct json_writer *jw, const struct recorder_result *res,
		      const struct session_stats *st, unsigned int freq)
{
	uint64_t user = recorder_result__user_samples(res, st);

	jw_object_start(jw);
	jw_uint_field(jw, "schema", 3);
	jw_double_field(jw, "duration_s", round_to(res->elapsed, 1000));
	jw_uint_field(jw, "frequency_hz", freq);
	jw_uint_field(jw, "samples", st->samples);
	jw_uint_field(jw, "user_samples", user);
	stats_put_share(jw, "walked", st->complete, user);
	stats_put_share(jw, "frame_pointer", st->fp, user);
	stats_put_share(jw, "frame_pointer_bottom", st->fp_complete, user);
	stats_put_share(jw, "truncated", st->truncated, user);
	stats_put_share(jw, "elided", st->elided, user);
	stats_put_runtimes(jw, st, user);
	jw_uint_field(jw, "frames_looked_up", st->lookups);
	jw_uint_field(jw, "frames_cached", st->lookups_cached);
	stats_put_errors(jw, st);
	stats_put_failures(jw, res);
	jw_uint_field(jw, "lost", st->lost);
	stats_put_outcomes(jw, res, st);
	jw_uint_field(jw, "processes", st->processes);
	jw_uint_field(jw, "rows_loaded", st->rows_loaded);
	jw_uint_field(jw, "bytes_loaded", st->bytes_loaded);
	jw_uint_field(jw, "rules_loaded", st->rules_loaded);
	jw_uint_field(jw, "pages_loaded", st->pages_loaded);
	jw_uint_field(jw, "rows_unplaced", st->rows_unplaced);
	jw_uint_field(jw, "events_lost", st->events_lost);
	jw_uint_field(jw, "maps_over_limit", st->maps_over_limit);
	jw_uint_field(jw, "processes_gone", st->processes_gone);
	jw_uint_field(jw, "files_replaced", st->files_replaced);
	jw_uint_field(jw, "files_skipped", st->files_skipped);
	jw_uint_field(jw, "peak_rss_bytes", res->peak_rss);
	jw_uint_field(jw, "bpf_map_bytes", st->map_bytes);
	stats_put_ns(jw, "bpf_ns_per_sample", res->bpf_ns_per_sample);
	jw_uint_field(jw, "bpf_samples_timed", res->times.count);
	stats_put_ns(jw, "bpf_ns_sample_p50", res->times.p50);
	stats_put_ns(jw, "bpf_ns_sample_p99", res->times.p99);
	jw_uint_field(jw, "execs_timed", st->exec_to_tables.count);
	stats_put_ns(jw, "exec_to_tables_ns_p50",
		     st->exec_to_tables.count ? st->exec_to_tables.p50 : -1);
	stats_put_ns(jw, "exec_to_tables_ns_p99",
		     st->exec_to_tables.count ? st->exec_to_tables.p99 : -1);
	stats_put_costs(jw, res);
	stats_put_off_cpu(jw, res, st);
	stats_put_times(jw, res);
	stats_put_debuginfod(jw, res);
	jw_object_end(jw);
}

int record_write_stats(FILE *f, const struct recorder_result *res, void *args)
{
	const struct recorder_opts *o = &((const struct record_args *)args)->opts;
	const struct session_stats shown = recorder_result__shown_stats(res), *st = &shown;
	struct json_writer *jw = json_writer__new(f, true);
	int err;

	if (!jw) {
		err = -errno;
		pr_err("%s: %s", o->stats_json, strerror(errno));
		return err;
	}
	stats_put(jw, res, st, o->freq);
	errno = 0;
	err = json_writer__free(jw);
	/* -EIO for any failed write: the flush's errno says which (ENOSPC, EDQUOT). */
	if (err == -EIO && errno)
		err = -errno;
	if (err)
		pr_err("%s: cannot write the statistics: %s", o->stats_json, strerror(-err));
	return err;
}
