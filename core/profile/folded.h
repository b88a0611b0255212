/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Folded stacks, the stackcollapse convention read by flamegraph.pl,
 * speedscope and inferno: one line per distinct stack, frames root first
 * separated by ';', then a space and the count:
 *
 *	myapp;main;run;compute 42
 *	myapp-4242/4243;start_thread;worker;read;entry_SYSCALL_64_[k];ksys_read_[k] 7
 *
 * The first frame is the process name (comm, the name of the process's main
 * thread), "comm-PID" with pid, and "comm-PID/TID" with tid, followed by
 * " (THREAD)" when the thread has a name of its own (pthread_setname_np).
 * User frames come root to leaf, then kernel frames root to leaf with the
 * suffix "_[k]". A frame is its function name (no offset): a function
 * without a symbol is named by the symbolizer from its file's CFI
 * (core/symbols/cfi_names.h), "[file+0xSTART]"; a frame the symbolizer could
 * not name at all is "[file+0xOFFSET]": the basename of the mapping and the
 * address's offset in that file (addr - start + file offset of the mapping,
 * what /proc/PID/maps gives without opening the file; feed it to
 * `addr2line -e file` after converting with the file's PT_LOAD headers, or
 * directly for the usual PIE/shared-object layout where they coincide).
 * "[unknown]" is used only when no mapping covers the address. An
 * interpreter's frame (a runtime's language's) is named as py-spy writes it,
 * "QUALNAME (FILE:LINE)". Frames and processes are named by
 * core/profile/frames.h, as the flame graph and report name them. ';' and
 * line breaks in names become ':' and ' ' so every line parses.
 *
 * A function the compiler inlined into its caller is a frame of its own,
 * after its caller's, with flamegraph.pl's suffix "_[i]":
 *
 *	inline;main;run;checksum_[i];mix_word_[i];rotate_[i] 90
 *
 * With the lines option each frame whose source line is known gets ":LINE"
 * before its suffix (run:36;checksum:29_[i]): the line of the address in the
 * innermost function, the line of the call in each caller. Off by default,
 * so that stacks stay aggregated by function.
 *
 * With times (record --off-cpu), values are microseconds of time, on the
 * CPU and off it, and an off-CPU stack ends with the frame [off-cpu], after
 * its kernel frames, so that one flame graph shows both:
 *
 *	app;main;serve;read;entry_SYSCALL_64_[k];...;schedule_[k];[off-cpu] 20500
 *	app;[unwalked];[off-cpu] 1200
 *
 * Lines are sorted bytewise and identical stacks merged, so the same profile
 * always gives the same bytes.
 */
#ifndef UNWPROF_FOLDED_H
#define UNWPROF_FOLDED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct profile;

struct folded_opts {
	bool pid;    /* first frame "comm-PID" */
	bool tid;    /* first frame "comm-PID/TID", " (THREAD)" after it when named (implies pid) */
	bool kernel; /* append kernel frames */
	bool lines;  /* append ":LINE" to frames whose source line is known */
	/*
	 * Values in microseconds of time, not counts: an on-CPU sample's count
	 * times period_ns, an off-CPU one's time blocked (--off-cpu); off-CPU
	 * stacks end with the frame [off-cpu], and the user frames of one not
	 * walked are [unwalked].
	 */
	bool times;
	uint64_t period_ns;
};

/*
 * Writes p to f and flushes it; returns 0, or -errno when building the
 * lines or writing failed (a full disk gives -ENOSPC). f is not closed: the
 * caller checks fclose() too.
 */
int folded__write(FILE *f, const struct profile *p, const struct folded_opts *opts);

#endif
