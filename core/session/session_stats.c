// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a session and its BPF programs counted, and the memory of its maps. See session_priv.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "session_priv.h" /* before the skeleton: bpf/abi.h's types */
#include "bpf/unwind.skel.h"
#include "../util/common.h"
#include "../util/log.h"
#include "../model/model.h"
#include "../unwind/encoder.h"
#include "../unwind/loader.h"

static const char *const error_names[UNW_E_NR] = {
#define ERROR_NAME(id, name, what) [UNW_E_##id] = name,
	UNW_ALL_ERRORS(ERROR_NAME)
#undef ERROR_NAME
};

const char *session__error_name(unsigned int reason)
{
	return reason < UNW_E_NR ? error_names[reason] : NULL;
}

/* The memlock of map m, as /proc/self/fdinfo shows it; 0 when unknown. */
/* Kernel memory charged for the BPF map behind fd (memlock in fdinfo); 0 when unknown. */
static uint64_t map_memlock_fd(int fd)
{
	char path[64], line[128];
	uint64_t bytes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %" SCNu64, &bytes) == 1)
			break;
	fclose(f);
	return bytes;
}

static uint64_t map_memlock(const struct bpf_map *m)
{
	return map_memlock_fd(bpf_map__fd(m));
}

uint64_t session__map_bytes(const struct session *s)
{
	const struct bpf_map *m;
	uint64_t sum = 0;

	bpf_object__for_each_map(m, s->skel->obj) sum += map_memlock(m);
	for (size_t i = 0; i < s->nr_shards; i++)
		sum += map_memlock_fd(s->shard_fds[i]);
	return sum;
}

/* What BPF counted on every CPU, summed into sum (bpf/abi.h). 0 or -errno (sum then all 0). */
static int session__tally(const struct session *s, struct unw_tally *sum)
{
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct unw_tally *vals;
	uint32_t zero = 0;

	memset(sum, 0, sizeof(*sum));
	if (!s || !s->loaded)
		return -EINVAL;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	/* Per-CPU values are 8-byte aligned: the tally is a whole number of words. */
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.tally), &zero, vals)) {
		err = -errno;
		goto cleanup;
	}
	for (int c = 0; c < ncpu; c++) {
		for (size_t i = 0; i < UNW_ST_NR; i++)
			sum->stats[i] += vals[c].stats[i];
		for (size_t i = 0; i < UNW_E_NR; i++)
			sum->errors[i] += vals[c].errors[i];
		for (size_t i = 0; i < UNW_UW_NR; i++) {
			sum->runtime_samples[i] += vals[c].runtime_samples[i];
			sum->runtime_frames[i] += vals[c].runtime_frames[i];
		}
		for (size_t i = 0; i < UNW_COST_NR; i++) {
			sum->costs[i].samples += vals[c].costs[i].samples;
			sum->costs[i].ns += vals[c].costs[i].ns;
		}
		for (size_t i = 0; i < UNW_HIST_BUCKETS; i++)
			sum->sample_ns[i] += vals[c].sample_ns[i];
	}
cleanup:
	free(vals);
	return err;
}

void session__model_stats(const struct model *md, struct session_stats *st)
{
	struct model_stats ms;

	model__stats(md, &ms);
	st->files_replaced = ms.files_replaced;
	st->files_skipped = ms.files_unreadable;
	st->refused_link = ms.files_refused[PROC_VIEW_LINK];
	st->refused_not_regular = ms.files_refused[PROC_VIEW_NOT_REGULAR];
	st->refused_too_large = ms.files_refused[PROC_VIEW_TOO_LARGE];
	st->refused_owner = ms.files_refused[PROC_VIEW_OWNER];
	st->refused_replaced = ms.files_refused[PROC_VIEW_REPLACED];
	st->refused_forged = ms.files_refused[PROC_VIEW_FORGED];
}

void session__stats(const struct session *s, struct session_stats *st)
{
	struct unw_tally tally;
	const uint64_t *sum = (const uint64_t *)tally.stats;
	struct loader_stats ls;
	struct encoder_cost cost;

	memset(st, 0, sizeof(*st));
	if (!s || !s->loaded)
		return;
	session__tally(s, &tally); /* all 0 when it cannot be read */
#define UNW_STAT_COPY(id, field, ...) st->field = sum[UNW_ST_##id];
	UNW_STATS(UNW_STAT_COPY)
	UNW_OFF_STATS(UNW_STAT_COPY)
#undef UNW_STAT_COPY
	st->fp += st->fp_complete; /* BPF counts those apart */
	st->lost += s->lost;	   /* and user space those it could not read back */
	memcpy(st->runtime_samples, tally.runtime_samples, sizeof(st->runtime_samples));
	memcpy(st->runtime_frames, tally.runtime_frames, sizeof(st->runtime_frames));
	memcpy(st->errors, tally.errors, sizeof(st->errors));
	st->processes = s->procs_seen;
	st->holds = s->holds;
	sample_times__of(s->exec_hist, &st->exec_to_tables);
	st->maps_over_limit = s->maps_over_limit;
	loader__stats(s->loader, &ls);
	st->rows_loaded = ls.rows_placed;
	encoder__cost(s->enc, ls.rows_placed, &cost);
	st->bytes_loaded = cost.bytes;
	st->rules_loaded = cost.rules;
	st->pages_loaded = cost.pages;
	st->rows_unplaced = ls.rows_unplaced + ls.rows_dropped + s->rows_unindexed;
	st->processes_gone = s->procs_gone;
	session__model_stats(s->model, st);
	st->map_bytes = session__map_bytes(s);
	if (st->map_bytes < s->map_bytes_peak)
		st->map_bytes = s->map_bytes_peak;
	/* Off-CPU blocks walked in BPF, but whose user stack could not be read back. */
	st->off_walked -= s->off_lost < st->off_walked ? s->off_lost : st->off_walked;
	st->off_ns -= s->off_lost_ns < st->off_ns ? s->off_lost_ns : st->off_ns;
	st->off_lost += s->off_lost;
	st->off_lost_ns += s->off_lost_ns;
}

int session__prog_stats(const struct session *s, uint64_t *run_time_ns, uint64_t *run_cnt)
{
	const struct bpf_program *prog;
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	*run_time_ns = 0;
	*run_cnt = 0;
	if (!s || !s->loaded)
		return -EINVAL;
	/* The one program attached to every perf event. */
	prog = s->tail_calls ? s->skel->progs.sample_tc : s->skel->progs.sample;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return -errno;
	*run_time_ns = info.run_time_ns;
	*run_cnt = info.run_cnt;
	return 0;
}

int session__sample_ns(const struct session *s, uint64_t buckets[UNW_HIST_BUCKETS])
{
	struct unw_tally sum;
	int err = session__tally(s, &sum);

	memcpy(buckets, sum.sample_ns, sizeof(sum.sample_ns));
	return err;
}

int session__sample_costs(const struct session *s, struct unw_cost_sum sums[UNW_COST_NR])
{
	struct unw_tally sum;
	int err = session__tally(s, &sum);

	memcpy(sums, sum.costs, sizeof(sum.costs));
	return err;
}
