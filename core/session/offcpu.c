// SPDX-License-Identifier: GPL-2.0-only
/*
 * The off-CPU side of a session: see offcpu.h and bpf/offcpu.bpf.c.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "session.h" /* before the skeleton: bpf/abi.h's types */
#include "bpf/unwind.skel.h"
#include "../util/log.h"
#include "offcpu.h"

void offcpu__configure(struct unwind_bpf *k, const struct session_opts *opts)
{
	bool on = opts->off_cpu;

	bpf_program__set_autoload(k->progs.on_switch, on);
	bpf_program__set_autoload(k->progs.on_syscall_exit, on);
	bpf_program__set_autoload(k->progs.on_thread_exit, on);
	bpf_program__set_autoload(k->progs.off_at_end, on);
	k->rodata->cfg.off_cpu_min_ns = opts->off_cpu_min_ns;
	k->rodata->cfg.off_cpu_walks = opts->off_cpu_walks;
}

int offcpu__attach(struct unwind_bpf *k, struct bpf_link *links[OFFCPU_NR_LINKS])
{
	struct bpf_program *progs[OFFCPU_NR_LINKS] = { k->progs.on_syscall_exit,
						       k->progs.on_thread_exit,
						       k->progs.on_switch };
	int err;

	/* The ends of blocks before their starts, so that no start misses its end. */
	for (size_t i = 0; i < OFFCPU_NR_LINKS; i++) {
		if (!bpf_program__autoload(progs[i]))
			continue;
		links[i] = bpf_program__attach(progs[i]);
		if (!links[i]) {
			err = -errno;
			pr_err("--off-cpu: cannot attach %s: %s", bpf_program__name(progs[i]),
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

int offcpu__end(struct unwind_bpf *k)
{
	struct bpf_link *link;
	char buf[256];
	int fd, err = 0;

	if (!bpf_program__autoload(k->progs.off_at_end))
		return 0;
	link = bpf_program__attach_iter(k->progs.off_at_end, NULL);
	fd = link ? bpf_iter_create(bpf_link__fd(link)) : -1;
	if (fd < 0) {
		err = -errno;
		pr_err("--off-cpu: cannot count the blocks under way at the end: %s",
		       strerror(-err));
		bpf_link__destroy(link);
		return err;
	}
	/* The program runs over the tasks as the iterator is read; it writes nothing. */
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	bpf_link__destroy(link);
	return 0;
}

void offcpu__stats(const uint64_t *sum, struct session_stats *st)
{
	st->off_blocks = sum[UNW_ST_OFF_BLOCKS];
	st->off_walked = sum[UNW_ST_OFF_WALKED];
	st->off_complete = sum[UNW_ST_OFF_COMPLETE];
	st->off_short = sum[UNW_ST_OFF_SHORT];
	st->off_outside = sum[UNW_ST_OFF_OUTSIDE];
	st->off_capped = sum[UNW_ST_OFF_CAPPED];
	st->off_exited = sum[UNW_ST_OFF_EXITED];
	st->off_lost = sum[UNW_ST_OFF_LOST];
	st->off_ns = sum[UNW_ST_OFF_NS];
	st->off_unwalked_ns = sum[UNW_ST_OFF_UNWALKED_NS];
	st->off_lost_ns = sum[UNW_ST_OFF_LOST_NS];
	st->off_untimed = sum[UNW_ST_OFF_UNTIMED];
	st->off_end_unseen = sum[UNW_ST_OFF_END_UNSEEN];
	st->off_no_kstack = sum[UNW_ST_OFF_NO_KSTACK];
	st->off_pending_at_end = sum[UNW_ST_OFF_PENDING_AT_END];
	st->off_under_way_at_end = sum[UNW_ST_OFF_UNDER_WAY_AT_END];
}
