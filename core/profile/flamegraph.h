/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An interactive flame graph as one self-contained SVG file: no external
 * script, style sheet or font, so it opens offline in any browser.
 *
 * Frames are rectangles as wide as their sample count, the root ("all") at
 * the bottom, then one frame per process (comm, comm-PID with pid, or
 * comm-PID/TID with tid) like the first frame of the folded output, then user
 * frames root to leaf and kernel frames (suffix "_[k]"); a function the
 * compiler inlined into its caller is a frame of its own above it (suffix
 * "_[i]", class "inlined"). Frames are named as in the folded output
 * (core/profile/frames.h), but for one mark at most ("_[k]" before "_[i]"),
 * and an interpreter's frame by its function alone (class "interpreted").
 * Siblings are sorted by name, so the same profile always gives the same
 * bytes; a frame's color is a hash of its name, in a warm hue for user code
 * (lighter for inlined frames), blue for the kernel, grey for frames without
 * a symbol and purple for processes.
 *
 * In a browser: hover shows a frame's samples and share of the total; click
 * zooms into a frame, "Reset Zoom" or a click on "all" goes back; "Search"
 * or Ctrl-F highlights the frames whose name matches a regular expression
 * and shows the share of samples they cover; Escape clears both. The URL
 * fragment does the same: file.svg#s=REGEX&zoom=NAME.
 *
 * With a base profile (opts.base), a differential flame graph: the colors
 * say how each frame's samples changed instead (see flamegraph_opts).
 */
#ifndef UNWPROF_FLAMEGRAPH_H
#define UNWPROF_FLAMEGRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct profile;

struct flamegraph_opts {
	const char *title;    /* NULL: "Flame Graph" */
	const char *subtitle; /* a line under the title; NULL for none */
	bool pid;	      /* process frames "comm-PID" */
	bool tid;	      /* process frames "comm-PID/TID" (implies pid) */
	bool kernel;	      /* draw kernel frames */
	/*
	 * A differential flame graph, as flamegraph.pl draws them: the frames of
	 * the profile, each colored by how its samples changed from those of the
	 * same stack in base (times base_scale, which puts them in the profile's
	 * units; 0 counts as 1): red where they grew, blue where they shrank,
	 * the deeper the color the larger the change; white where equal.
	 */
	const struct profile *base;
	double base_scale;
	/*
	 * Widths in time, not samples (record --off-cpu), as folded.h's
	 * times: an on-CPU sample is its count times period_ns, an off-CPU one
	 * its time blocked; off-CPU stacks end with the frame [off-cpu], an
	 * unwalked one's user frames are [unwalked], and a frame whose time is
	 * all off the CPU is drawn in cold colors (hot/cold flame graph).
	 */
	bool times;
	uint64_t period_ns;
};

/*
 * Writes p to f as SVG and flushes it; returns 0, or -errno when building
 * the graph or writing failed. f is not closed: the caller checks fclose().
 */
int flamegraph__write(FILE *f, const struct profile *p, const struct flamegraph_opts *opts);

#endif
