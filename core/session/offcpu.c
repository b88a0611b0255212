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
