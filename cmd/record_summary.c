// SPDX-License-Identifier: GPL-2.0-only
/*
 * The summary of a record run: on stderr, and as JSON (--stats-json). Every
 * sample is accounted for once: walked, frame pointers, failed, lost, not
 * drained, or without a user stack (idle CPUs, kernel threads); the
 * counting is core/record/recorder.c's (recorder__result_*). See
 * unwprof-record(1), SUMMARY.
 *
 * One table (summary_entries) says what the summary shows, in order, a
 * line and its keys of --stats-json each: a count of the lists that define
 * them (bpf/abi.h's UNW_STATS, core/session/session.h's SESSION_STATS),
 * shown as its row says, or a part of its own (the reasons, the outcomes,
 * the times, each runtime's frames). The text and the JSON are made by
 * going through it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "record.h"
#include "../core/util/common.h"
#include "../core/runtimes/runtimes.h"
#include "../core/session/failures.h"
#include "../core/session/sample_times.h"
#include "../core/util/json.h"
#include "../core/util/log.h"

#define FAILURES_SHOWN 3  /* in the summary */
#define FAILURES_STATS 10 /* in --stats-json */
#define PROCESSES_SHOWN 5 /* in the summary's time by process */
#define UNNAMED_SHOWN 3	  /* files with frames unnamed for want of symbols, in the summary */

/* A count of the lists: its key, its line's label, how it is shown, the note it may add. */
struct stat_row {
	const char *key;
	const char *label;
	enum unw_stat_show show;
	const char *note;
	size_t offset; /* of its field in struct session_stats */
};

#define STAT_ROW(id, field, key, label, show, note) \
	{ key, label, show, note, offsetof(struct session_stats, field) },
#define SESSION_ROW(field, key, label, show, note) \
	{ key, label, show, note, offsetof(struct session_stats, field) },
static const struct stat_row unw_rows[UNW_ST_NR] = { UNW_STATS(STAT_ROW) UNW_OFF_STATS(STAT_ROW) };
static const struct stat_row session_rows[SESSION_ST_NR] = { SESSION_STATS(SESSION_ROW) };
#undef STAT_ROW
#undef SESSION_ROW

/* What the summary is made of. */
struct summary {
	const struct recorder_result *res;
	struct session_stats st; /* as shown: recorder__result_shown_stats() */
	uint64_t user;		 /* the samples with a user stack: what shares are of */
	unsigned int freq;
	struct json_writer *jw; /* --stats-json; NULL for the text */
};

static uint64_t stat_value(const struct summary *s, const struct stat_row *row)
{
	return *(const uint64_t *)((const char *)&s->st + row->offset);
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

static double mib(uint64_t bytes)
{
	return bytes / (1024.0 * 1024.0);
}

static double seconds(uint64_t ns)
{
	return ns / 1e9;
}

/* v >= 0 rounded to the nearest multiple of 1/scale, halves up. */
static double round_to(double v, double scale)
{
	return (double)(uint64_t)(v * scale + 0.5) / scale;
}

/* {"count": N, "percent": P}, P rounded to 0.01 */
static void put_share(struct json_writer *jw, const char *key, uint64_t n, uint64_t whole)
{
	json__key(jw, key);
	json__object_start(jw);
	json__uint_field(jw, "count", n);
	json__double_field(jw, "percent", round_to(percent(n, whole), 100));
	json__object_end(jw);
}

/* ns to 0.1, null when < 0 (unknown). */
static void put_ns(struct json_writer *jw, const char *key, double ns)
{
	json__key(jw, key);
	if (ns >= 0)
		json__double(jw, round_to(ns, 10));
	else
		json__null(jw);
}

/* ---- a count of the lists, as its row says ---- */

/*
 * A count's line: its figures, then what the row after it (UNW_SHOW_BESIDE)
 * adds in parentheses, then its note, when it is not 0. Returns whether
 * the row after it was shown here.
 */
static bool stat_line(const struct summary *s, const struct stat_row *row,
		      const struct stat_row *next)
{
	uint64_t v = stat_value(s, row);
	bool beside = next && next->show == UNW_SHOW_BESIDE;

	switch (row->show) {
	case UNW_SHOW_COUNT:
		fprintf(stderr, "  %-22s %10" PRIu64, row->label, v);
		break;
	case UNW_SHOW_SHARE:
		fprintf(stderr, "  %-22s %10" PRIu64 "   %5.1f%%", row->label, v,
			percent(v, s->user));
		break;
	case UNW_SHOW_BYTES:
		fprintf(stderr, "  %-22s %10.1f MiB", row->label, mib(v));
		break;
	case UNW_SHOW_LEFT_OUT:
		if (!v)
			return beside;
		fprintf(stderr, "  %-22s %10" PRIu64, row->label, v);
		break;
	default:
		return false;
	}
	if (beside && v)
		fprintf(stderr, "   (%" PRIu64 " %s)", stat_value(s, next), next->label);
	if (v && row->note[0])
		fprintf(stderr, "   (%s)", row->note);
	fputc('\n', stderr);
	return beside;
}

static void stat_json(const struct summary *s, const struct stat_row *row)
{
	uint64_t v = stat_value(s, row);

	switch (row->show) {
	case UNW_SHOW_SHARE:
	case UNW_SHOW_BESIDE:
		put_share(s->jw, row->key, v, s->user);
		break;
	case UNW_SHOW_NONE:
		break;
	default:
		json__uint_field(s->jw, row->key, v);
		break;
	}
}

/* ---- the parts of their own ---- */

/* "recorded N s"; the schema, the duration and the rate of the samples. */
static void run_text(const struct summary *s)
{
	const struct recorder_result *res = s->res;

	fprintf(stderr, "unwprof: recorded %.1f s%s\n", res->elapsed,
		res->targets_gone      ? " (every target exited)" :
		res->ended_at_duration ? " (the command was still running: ended at -d)" :
					 "");
}

static void run_json(const struct summary *s)
{
	json__uint_field(s->jw, "schema", 3);
	json__double_field(s->jw, "duration_s", round_to(s->res->elapsed, 1000));
	json__uint_field(s->jw, "frequency_hz", s->freq);
}

/* The samples without a user stack, when there are some: what the shares are of. */
static void user_text(const struct summary *s)
{
	const struct recorder_outcomes *o = &s->res->outcomes;

	if (o->idle || o->kernel) {
		fprintf(stderr, "  %-22s %10" PRIu64 "   (no task on the CPU)\n", "idle", o->idle);
		fprintf(stderr, "  %-22s %10" PRIu64 "   (no user stack to walk)\n",
			"kernel threads", o->kernel);
	}
	if (o->exec)
		fprintf(stderr, "  %-22s %10" PRIu64 "   (the old stack gone: [exec])\n",
			"inside exec", o->exec);
	if (o->idle || o->kernel || o->exec)
		fprintf(stderr, "  %-22s %10" PRIu64 "   (the shares below are of them)\n",
			"with a user stack", s->user);
}

static void user_json(const struct summary *s)
{
	json__uint_field(s->jw, "user_samples", s->user);
}

/* The samples with each runtime's frames, of those that had some. */
static void runtimes_text(const struct summary *s)
{
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++) {
		const struct runtime *rt = runtimes__of_unwinder(u);
		char label[64];

		if (!rt->namer || !s->st.runtime_samples[u])
			continue;
		snprintf(label, sizeof(label), "with %s frames", rt->title);
		fprintf(stderr, "  %-22s %10" PRIu64 "   %5.1f%%   (%" PRIu64 " %s frames)\n",
			label, s->st.runtime_samples[u], percent(s->st.runtime_samples[u], s->user),
			s->st.runtime_frames[u], rt->title);
	}
}

/* "NAME": the share of the samples with each runtime's frames, "NAME_frames": its frames. */
static void runtimes_json(const struct summary *s)
{
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++) {
		const struct runtime *rt = runtimes__of_unwinder(u);
		char key[64];

		if (!rt->namer)
			continue;
		put_share(s->jw, rt->name, s->st.runtime_samples[u], s->user);
		snprintf(key, sizeof(key), "%s_frames", rt->name);
		json__uint_field(s->jw, key, s->st.runtime_frames[u]);
	}
}

static void errors_text(const struct summary *s)
{
	const uint64_t *errors = s->st.errors;
	uint64_t total = 0;
	bool first = true;

	for (unsigned int i = 0; i < SESSION_NR_ERRORS; i++)
		total += errors[i];
	fprintf(stderr, "  %-22s %10" PRIu64, "errors", total);
	for (unsigned int i = 0; i < SESSION_NR_ERRORS; i++) {
		const char *name = session__error_name(i);

		if (!errors[i])
			continue;
		fprintf(stderr, "%s%s %" PRIu64, first ? "   " : ", ", name ? name : "other",
			errors[i]);
		first = false;
	}
	fputc('\n', stderr);
}

/* Every reason by name, zeros included, so that the keys do not depend on the run. */
static void errors_json(const struct summary *s)
{
	uint64_t other = 0;

	json__key(s->jw, "errors");
	json__object_start(s->jw);
	for (unsigned int i = 0; i < SESSION_NR_ERRORS; i++) {
		const char *name = session__error_name(i);

		if (name)
			json__uint_field(s->jw, name, s->st.errors[i]);
		else
			other += s->st.errors[i];
	}
	if (other)
		json__uint_field(s->jw, "other", other);
	json__object_end(s->jw);
}

/* The files where the most walks stopped short, with the reason: where to look. */
static void failures_text(const struct summary *s)
{
	size_t n = failures__count(s->res->failures);

	if (!n)
		return;
	fprintf(stderr, "  %-22s", "failed most in");
	for (size_t i = 0; i < n && i < FAILURES_SHOWN; i++) {
		const struct failure *f = failures__get(s->res->failures, i);
		const char *name = session__error_name(f->reason);

		fprintf(stderr, "%s%s (%s %" PRIu64 ")", i ? ", " : " ", record_base_name(f->file),
			name ? name : "other", f->samples);
	}
	fputc('\n', stderr);
}

static void failures_json(const struct summary *s)
{
	json__key(s->jw, "failures");
	json__array_start(s->jw);
	for (size_t i = 0; i < failures__count(s->res->failures) && i < FAILURES_STATS; i++) {
		const struct failure *f = failures__get(s->res->failures, i);
		const char *name = session__error_name(f->reason);

		json__object_start(s->jw);
		json__string_field(s->jw, "file", f->file);
		json__string_field(s->jw, "reason", name ? name : "other");
		json__uint_field(s->jw, "samples", f->samples);
		json__object_end(s->jw);
	}
	json__array_end(s->jw);
}

/* Every sample in exactly one place, so that the parts add up to the samples. */
static void outcomes_text(const struct summary *s)
{
	const struct recorder_outcomes *o = &s->res->outcomes;
	int64_t late = recorder__result_not_drained(s->res, &s->st);

	fprintf(stderr,
		"  %-22s %10" PRIu64 " = walked %" PRIu64 " + frame pointers %" PRIu64
		" + failed %" PRIu64,
		"samples accounted", s->st.samples, o->walked, o->fp, o->failed);
	if (o->idle || o->kernel)
		fprintf(stderr, " + idle %" PRIu64 " + kernel threads %" PRIu64, o->idle,
			o->kernel);
	if (o->exec)
		fprintf(stderr, " + exec %" PRIu64, o->exec);
	fprintf(stderr, " + lost %" PRIu64, s->st.lost);
	if (late)
		fprintf(stderr, " + not drained %" PRId64, late);
	fputc('\n', stderr);
}

/* The samples split by outcome: walked + frame_pointer + failed + lost + not_drained. */
static void outcomes_json(const struct summary *s)
{
	const struct recorder_outcomes *o = &s->res->outcomes;
	struct json_writer *jw = s->jw;

	json__key(jw, "outcomes");
	json__object_start(jw);
	json__uint_field(jw, "walked", o->walked);
	json__uint_field(jw, "frame_pointer", o->fp);
	json__uint_field(jw, "failed", o->failed);
	json__uint_field(jw, "idle", o->idle);
	json__uint_field(jw, "kernel_threads", o->kernel);
	json__uint_field(jw, "exec", o->exec);
	json__uint_field(jw, "lost", s->st.lost);
	json__int_field(jw, "not_drained", recorder__result_not_drained(s->res, &s->st));
	json__object_end(jw);
}

/* The rows loaded and what they take with their index (the rest of them are counts). */
static void rows_text(const struct summary *s)
{
	const struct stat_row *row = &session_rows[SESSION_ST_rows_loaded];
	const struct session_stats *st = &s->st;

	fprintf(stderr, "  %-22s %10" PRIu64 "   %.1f MiB (%.1f bytes a row with their index)\n",
		row->label, st->rows_loaded, mib(st->bytes_loaded),
		st->rows_loaded ? (double)st->bytes_loaded / st->rows_loaded : 0.0);
}

static void rows_json(const struct summary *s)
{
	json__uint_field(s->jw, session_rows[SESSION_ST_rows_loaded].key, s->st.rows_loaded);
}

static void rss_text(const struct summary *s)
{
	fprintf(stderr, "  %-22s %10.1f MiB\n", "peak RSS", mib(s->res->peak_rss));
}

static void rss_json(const struct summary *s)
{
	json__uint_field(s->jw, "peak_rss_bytes", s->res->peak_rss);
}

/*
 * The BPF time of a sample: the kernel's mean over every run of the
 * program (the runs that leave at once too: another process's, an idle
 * CPU's) when it counts it, and the median and p99 of the targets' samples
 * from BPF's own histogram, which is always there. Silent when neither is.
 */
static void bpf_time_text(const struct summary *s)
{
	const struct sample_times *t = &s->res->times;

	if (s->res->bpf_ns_per_sample < 0 && !t->count)
		return;
	fprintf(stderr, "  %-22s ", "BPF ns per sample");
	if (s->res->bpf_ns_per_sample >= 0)
		fprintf(stderr, "%10.0f", s->res->bpf_ns_per_sample);
	else
		fprintf(stderr, "%10s", "-");
	if (t->count)
		fprintf(stderr, "   (median %.0f, p99 %.0f)", t->p50, t->p99);
	fputc('\n', stderr);
}

static void bpf_time_json(const struct summary *s)
{
	put_ns(s->jw, "bpf_ns_per_sample", s->res->bpf_ns_per_sample);
	json__uint_field(s->jw, "bpf_samples_timed", s->res->times.count);
	put_ns(s->jw, "bpf_ns_sample_p50", s->res->times.p50);
	put_ns(s->jw, "bpf_ns_sample_p99", s->res->times.p99);
}

/* How long an exec waited for its tables, its process held: only when one did. */
static void exec_time_text(const struct summary *s)
{
	const struct sample_times *t = &s->st.exec_to_tables;

	if (!t->count)
		return;
	fprintf(stderr, "  %-22s %10" PRIu64 "   (median %.1f ms, p99 %.1f ms)\n",
		"execs to tables", t->count, t->p50 / 1e6, t->p99 / 1e6);
}

static void exec_time_json(const struct summary *s)
{
	const struct sample_times *t = &s->st.exec_to_tables;

	json__uint_field(s->jw, "execs_timed", t->count);
	put_ns(s->jw, "exec_to_tables_ns_p50", t->count ? t->p50 : -1);
	put_ns(s->jw, "exec_to_tables_ns_p99", t->count ? t->p99 : -1);
}

/* "bpf_sample_costs": for each cost, {"samples": N, "mean_ns": NS or null}. */
static void costs_json(const struct summary *s)
{
	json__key(s->jw, "bpf_sample_costs");
	json__object_start(s->jw);
	for (uint32_t i = 0; i < UNW_COST_NR; i++) {
		const struct unw_cost_sum *c = &s->res->costs[i];

		json__key(s->jw, sample_times__cost_name(i));
		json__object_start(s->jw);
		json__uint_field(s->jw, "samples", c->samples);
		put_ns(s->jw, "mean_ns", c->samples ? (double)c->ns / (double)c->samples : -1);
		json__object_end(s->jw);
	}
	json__object_end(s->jw);
}

/* What debuginfod fetched: only when DEBUGINFOD_URLS named servers. */
static void debuginfod_text(const struct summary *s)
{
	const struct debuginfod_stats *st = &s->res->debuginfod_stats;

	if (!s->res->debuginfod)
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

/* "debuginfod": what the fetches came to (null without DEBUGINFOD_URLS). */
static void debuginfod_json(const struct summary *s)
{
	const struct debuginfod_stats *st = &s->res->debuginfod_stats;
	struct json_writer *jw = s->jw;

	json__key(jw, "debuginfod");
	if (!s->res->debuginfod) {
		json__null(jw);
		return;
	}
	json__object_start(jw);
	json__uint_field(jw, "requested", st->requested);
	json__uint_field(jw, "fetched", st->found);
	json__uint_field(jw, "not_found", st->absent);
	json__uint_field(jw, "failed", st->failed);
	json__uint_field(jw, "no_answer", st->abandoned);
	json__object_end(jw);
}

/*
 * The frames left unnamed for want of symbols and the files they are in,
 * the most first: the debug files to install. Only when there are some.
 */
static void unnamed_text(const struct summary *s)
{
	const struct recorder_result *res = s->res;
	size_t n = res->nr_unnamed < ARRAY_SIZE(res->unnamed) ? res->nr_unnamed :
								ARRAY_SIZE(res->unnamed);

	if (!res->unnamed_frames)
		return;
	fprintf(stderr, "  %-22s %10" PRIu64 "   (in", "frames without symbols",
		res->unnamed_frames);
	for (size_t i = 0; i < n && i < UNNAMED_SHOWN; i++)
		fprintf(stderr, "%s %s %" PRIu64, i ? "," : "",
			record_base_name(res->unnamed[i].file), res->unnamed[i].frames);
	if (res->nr_unnamed > UNNAMED_SHOWN)
		fprintf(stderr, ", %zu more files", res->nr_unnamed - UNNAMED_SHOWN);
	fprintf(stderr, "; their debug files name them: install them%s)\n",
		res->debuginfod ? "" : ", or set DEBUGINFOD_URLS");
}

/* "frames_without_symbols", and "files_without_symbols": each file, its build ID, its frames. */
static void unnamed_json(const struct summary *s)
{
	const struct recorder_result *res = s->res;
	struct json_writer *jw = s->jw;

	json__uint_field(jw, "frames_without_symbols", res->unnamed_frames);
	json__key(jw, "files_without_symbols");
	json__array_start(jw);
	for (size_t i = 0; i < res->nr_unnamed && i < ARRAY_SIZE(res->unnamed); i++) {
		const struct symbolizer_unnamed *u = &res->unnamed[i];

		json__object_start(jw);
		json__string_field(jw, "file", u->file);
		json__string_field(jw, "build_id", u->build_id); /* null without one */
		json__uint_field(jw, "frames", u->frames);
		json__object_end(jw);
	}
	json__array_end(jw);
}

/* The label and value of off-CPU count id. */
#define OFF(s, id) unw_rows[UNW_ST_##id].label, stat_value((s), &unw_rows[UNW_ST_##id])

/* --off-cpu: what became of the blocks, and each kind's time; every block in one place. */
static void off_cpu_text(const struct summary *s)
{
	static const enum unw_stat notes[] = { UNW_ST_OFF_UNDER_WAY_AT_END, UNW_ST_OFF_END_UNSEEN,
					       UNW_ST_OFF_UNTIMED, UNW_ST_OFF_NO_KSTACK };
	const struct session_stats *st = &s->st;

	if (!s->res->off_cpu)
		return;
	fprintf(stderr,
		"  %-22s %10" PRIu64 " = %s %" PRIu64 " + %s %" PRIu64 " + %s %" PRIu64
		" + %s %" PRIu64 " + %s %" PRIu64 " + %s %" PRIu64 " + %s %" PRIu64 "\n",
		unw_rows[UNW_ST_OFF_BLOCKS].label, st->off_blocks, OFF(s, OFF_WALKED),
		OFF(s, OFF_SHORT), OFF(s, OFF_OUTSIDE), OFF(s, OFF_CAPPED), OFF(s, OFF_EXITED),
		OFF(s, OFF_LOST), OFF(s, OFF_PENDING_AT_END));
	for (size_t i = 0; i < ARRAY_SIZE(notes); i++) {
		const struct stat_row *row = &unw_rows[notes[i]];

		if (stat_value(s, row))
			fprintf(stderr, "  %-22s %10" PRIu64 "   (%s)\n", row->label,
				stat_value(s, row), row->note);
	}
	fprintf(stderr, "  %-22s %10.3f s = walked %.3f s + unwalked %.3f s + lost %.3f s\n",
		"off-CPU time", seconds(st->off_ns + st->off_unwalked_ns + st->off_lost_ns),
		seconds(st->off_ns), seconds(st->off_unwalked_ns), seconds(st->off_lost_ns));
}

/* "off_cpu": the blocks by what became of them, and their time (null without --off-cpu). */
static void off_cpu_json(const struct summary *s)
{
	json__key(s->jw, "off_cpu");
	if (!s->res->off_cpu) {
		json__null(s->jw);
		return;
	}
	json__object_start(s->jw);
#define OFF_JSON(id, ...) \
	json__uint_field(s->jw, unw_rows[UNW_ST_##id].key, stat_value(s, &unw_rows[UNW_ST_##id]));
	UNW_OFF_STATS(OFF_JSON)
#undef OFF_JSON
	json__object_end(s->jw);
}

/* --off-cpu: the processes with the most time, on the CPU and off it. */
static void times_text(const struct summary *s)
{
	const struct recorder_result *res = s->res;
	const struct proc_times *pt = res->times_by_process;
	size_t n = proc_times__count(pt);

	if (!res->off_cpu)
		return;
	fprintf(stderr, "  %-22s %10s %10s %10s %10s\n", "time by process", "on-CPU", "off walked",
		"unwalked", "sum");
	for (size_t i = 0; i < n && i < PROCESSES_SHOWN; i++) {
		const struct proc_time *t = proc_times__get(pt, i);
		char who[64];

		snprintf(who, sizeof(who), "%s (%u)", t->comm, t->pid);
		fprintf(stderr, "    %-20s %9.3fs %9.3fs %9.3fs %9.3fs\n", who,
			seconds(proc_times__on_cpu_ns(t, res->period_ns)),
			seconds(t->off_walked_ns), seconds(t->off_unwalked_ns),
			seconds(proc_times__total_ns(t, res->period_ns)));
	}
	if (n > PROCESSES_SHOWN)
		fprintf(stderr, "    %zu more (--stats-json has them all)\n", n - PROCESSES_SHOWN);
}

/* "processes_time": each process's time on and off the CPU, the most first. */
static void times_json(const struct summary *s)
{
	const struct recorder_result *res = s->res;
	const struct proc_times *pt = res->times_by_process;
	struct json_writer *jw = s->jw;

	json__key(jw, "processes_time");
	json__array_start(jw);
	for (size_t i = 0; i < proc_times__count(pt); i++) {
		const struct proc_time *t = proc_times__get(pt, i);

		json__object_start(jw);
		json__uint_field(jw, "pid", t->pid);
		json__string_field(jw, "comm", t->comm);
		json__uint_field(jw, "on_cpu_ns", proc_times__on_cpu_ns(t, res->period_ns));
		json__uint_field(jw, "off_cpu_blocks", t->off_blocks);
		json__uint_field(jw, "off_cpu_walked_ns", t->off_walked_ns);
		json__uint_field(jw, "off_cpu_unwalked_ns", t->off_unwalked_ns);
		json__uint_field(jw, "total_ns", proc_times__total_ns(t, res->period_ns));
		json__object_end(jw);
	}
	json__array_end(jw);
}

/* ---- the table ---- */

/* A line of the summary and its keys: a count's row, or a part's two functions (either NULL). */
struct summary_entry {
	const struct stat_row *row;
	void (*text)(const struct summary *s);
	void (*json)(const struct summary *s);
};

#define STAT(id)                              \
	{                                     \
		.row = &unw_rows[UNW_ST_##id] \
	}
#define SESSION(field)                                   \
	{                                                \
		.row = &session_rows[SESSION_ST_##field] \
	}
#define PART(name)                                       \
	{                                                \
		.text = name##_text, .json = name##_json \
	}
#define JSON_PART(name)             \
	{                           \
		.json = name##_json \
	}

static const struct summary_entry summary_entries[] = {
	PART(run),
	STAT(SAMPLES),
	PART(user),
	STAT(COMPLETE),
	STAT(FP),
	STAT(FP_COMPLETE),
	STAT(TRUNCATED),
	STAT(ELIDED),
	STAT(LOST),
	PART(runtimes),
	STAT(LOOKUPS),
	STAT(LOOKUPS_CACHED),
	PART(errors),
	PART(failures),
	PART(outcomes),
	SESSION(processes),
	PART(rows),
	SESSION(bytes_loaded),
	SESSION(rules_loaded),
	SESSION(pages_loaded),
	PART(rss),
	SESSION(map_bytes),
	PART(bpf_time),
	PART(exec_time),
	JSON_PART(costs),
	PART(debuginfod),
	PART(off_cpu),
	PART(times),
	SESSION(rows_unplaced),
	STAT(EVENTS_LOST),
	SESSION(maps_over_limit),
	SESSION(processes_gone),
	SESSION(files_replaced),
	SESSION(files_skipped),
	SESSION(refused_link),
	SESSION(refused_not_regular),
	SESSION(refused_too_large),
	SESSION(refused_owner),
	SESSION(refused_replaced),
	SESSION(refused_forged),
	PART(unnamed),
};

static struct summary summary_of(const struct recorder_result *res)
{
	struct summary s = { .res = res, .st = recorder__result_shown_stats(res) };

	s.user = recorder__result_user_samples(res, &s.st);
	return s;
}

void record_print_summary(const struct recorder_result *res)
{
	const struct summary s = summary_of(res);
	size_t n = ARRAY_SIZE(summary_entries);

	for (size_t i = 0; i < n; i++) {
		const struct summary_entry *e = &summary_entries[i];

		if (e->row && stat_line(&s, e->row, i + 1 < n ? summary_entries[i + 1].row : NULL))
			i++; /* the row beside it was shown with it */
		else if (e->text)
			e->text(&s);
	}
}

static void summary_json(const struct summary *s)
{
	json__object_start(s->jw);
	for (size_t i = 0; i < ARRAY_SIZE(summary_entries); i++) {
		const struct summary_entry *e = &summary_entries[i];

		if (e->row)
			stat_json(s, e->row);
		else if (e->json)
			e->json(s);
	}
	json__object_end(s->jw);
}

int record_write_stats(FILE *f, const struct recorder_result *res, void *args)
{
	const struct recorder_opts *o = &((const struct record_args *)args)->opts;
	struct summary s = summary_of(res);
	int err;

	s.freq = o->freq;
	s.jw = json__new(f, true);
	if (!s.jw) {
		err = -errno;
		pr_err("%s: %s", o->stats_json, strerror(errno));
		return err;
	}
	summary_json(&s);
	errno = 0;
	err = json__free(s.jw);
	/* -EIO for any failed write: the flush's errno says which (ENOSPC, EDQUOT). */
	if (err == -EIO && errno)
		err = -errno;
	if (err)
		pr_err("%s: cannot write the statistics: %s", o->stats_json, strerror(-err));
	return err;
}
