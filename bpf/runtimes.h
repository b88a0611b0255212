/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runtimes whose code has a walk of its own, each registered once here:
 * a runtime is its files and one line of each list below.
 *
 *	bpf/unwind_RT.h		what user space and BPF share of it: the value of
 *				its process map (struct unw_RT_proc), the words
 *				of its frames, its reasons (UNW_RT_ERRORS)
 *	bpf/unwind_RT.bpf.h	its walk: the BPF program that writes its frames
 *				or steps its frames, tail-called by the native
 *				walk (bpf/walk.bpf.h), and its per-CPU state;
 *				bpf/runtimes.bpf.c builds them (UNW_RUNTIMES_WALKS)
 *	core/runtimes/RT/	what it reads of a file, where it walks in a
 *				process and the value it places there, what
 *				dump-unwind shows of it, the namer of its frames
 *				(core/runtimes/runtimes.h: its entry)
 *
 * X(ID, name): ID names its unwinder (UNW_UW_ID), its frame kind
 * (UNW_FRAME_ID); name its process map (name_procs, of struct
 * unw_name_proc), its programs (name_walk, name_walk_off) and its entry
 * (runtime_name).
 */
#ifndef UNWPROF_BPF_RUNTIMES_H
#define UNWPROF_BPF_RUNTIMES_H

#define UNW_RUNTIMES(X) \
	X(GO, go)       \
	X(PYTHON, python) X(RUBY, ruby) X(PERL, perl) X(PHP, php) X(HOTSPOT, hotspot) X(V8, v8)

/* Every runtime's reasons, after the walk's own (bpf/abi.h, UNW_ERRORS). */
#define UNW_RUNTIMES_ERRORS(X) \
	UNW_GO_ERRORS(X)       \
	UNW_PYTHON_ERRORS(X)   \
	UNW_RUBY_ERRORS(X)     \
	UNW_PERL_ERRORS(X) UNW_PHP_ERRORS(X) UNW_HOTSPOT_ERRORS(X) UNW_V8_ERRORS(X)

#include "unwind_go.h"
#include "unwind_python.h"
#include "unwind_ruby.h"
#include "unwind_perl.h"
#include "unwind_php.h"
#include "unwind_hotspot.h"
#include "unwind_v8.h"

#endif

/*
 * Each runtime's walk, for the unit that builds them (bpf/runtimes.bpf.c),
 * which defines UNW_RUNTIMES_WALKS once it has what they use.
 */
#if defined(UNW_RUNTIMES_WALKS) && !defined(UNWPROF_BPF_RUNTIMES_WALKS)
#define UNWPROF_BPF_RUNTIMES_WALKS
#include "unwind_go.bpf.h"
#include "unwind_python.bpf.h"
#include "unwind_ruby.bpf.h"
#include "unwind_perl.bpf.h"
#include "unwind_php.bpf.h"
#include "unwind_hotspot.bpf.h"
#include "unwind_v8.bpf.h"
#endif
