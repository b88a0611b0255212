/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading folded stacks (core/profile/folded.h describes the format) back into the
 * profile model, so `report` takes what `record` printed, and the output of
 * other stackcollapse tools.
 *
 * The first frame of a line is the process: "comm", "comm-PID" or
 * "comm-PID/TID". The PID and TID are taken only when every line of the file
 * has them, since a process name may itself end in "-123"; the comm is cut
 * to 15 bytes as the kernel's is. A trailing run of
 * frames ending in "_[k]" are kernel frames (the suffix is dropped); a frame
 * is a function name, "[file+0xOFFSET]" and "[unknown]" included. Blank lines
 * are skipped; anything else that is not "STACK COUNT" is an error.
 *
 * The lines of record --off-cpu (values in microseconds): a stack whose leaf
 * frame is [off-cpu] is an off-CPU sample of that time, its count the
 * microseconds too, and [unwalked] in place of its user frames marks one
 * not walked; neither is kept as a frame.
 */
#ifndef UNWPROF_FOLDED_READ_H
#define UNWPROF_FOLDED_READ_H

#include <stdbool.h>
#include <stddef.h>

struct profile;

/* What the file's first frames held: how to print the same lines again. */
struct folded_read_info {
	bool pid;    /* every line began with comm-PID or comm-PID/TID */
	bool tid;    /* every line began with comm-PID/TID */
	bool kernel; /* some line had kernel frames */
	bool times;  /* some line was off-CPU: every value is microseconds */
};

/*
 * Adds the stacks of buf (len bytes, need not be NUL-terminated) to p.
 * Errors are printed as name:LINE: what is wrong; returns 0, -EBADMSG for a
 * malformed line, or -ENOMEM.
 */
int folded_read__parse(const char *buf, size_t len, const char *name, struct profile *p,
		       struct folded_read_info *info);

/* True when buf looks like text (no control characters but tab, CR and LF). */
bool folded_read__is_text(const char *buf, size_t len);

#endif
