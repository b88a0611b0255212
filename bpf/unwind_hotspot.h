/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * HotSpot, what user space and BPF share of it (bpf/runtimes.h): the value
 * of its process map and its reasons. Its walk is bpf/unwind_hotspot.bpf.h;
 * what it reads of a JVM, from the JVM's own tables in its memory,
 * core/runtimes/hotspot/hsruntime.h.
 */
#ifndef UNWPROF_UNWIND_HOTSPOT_H
#define UNWPROF_UNWIND_HOTSPOT_H

/* The code heaps of a code cache: non-nmethods, profiled and non-profiled nmethods. */
#define UNW_HS_HEAPS_MAX 3

/*
 * Value of the HotSpot map (hotspot_procs), keyed by pid: the JVM's code
 * cache (UNW_UW_HOTSPOT: its interpreter, stubs and compiled code) and
 * how a pc there leads to its code blob: the heap that holds it, its
 * segment map (a byte per segment of 2^log2_segment bytes: 0xff none,
 * else how many segments back to step towards the block's first), the
 * HeapBlock header before each blob, and the blob's fields. Addresses are
 * the process's; offsets and sizes those the JVM's tables said.
 */
struct unw_hotspot_proc {
	__u64 codecache_lo; /* CodeCache::_low_bound, _high_bound */
	__u64 codecache_hi;
	struct {
		__u64 lo; /* the heap's reserved memory: [lo, hi) */
		__u64 hi;
		__u64 segmap; /* its segment map's first byte */
	} heaps[UNW_HS_HEAPS_MAX];
	__u64 call_stub_return; /* StubRoutines::_call_stub_return_address's address */
	__u8 refused;		/* the JVM's tables lack an entry: UNW_E_HS_TABLES, only that */
	__u8 nr_heaps;
	__u8 log2_segment;
	__u8 heapblock_size;
	__u16 blob_size; /* CodeBlob: its size, frame size (in words), frame complete offset, */
	__u16 blob_frame_size;
	__u16 blob_frame_complete;
	__u16 blob_code_begin; /* code begin and end, name */
	__u16 blob_code_end;
	__u16 blob_name;
	__u16 nmethod_method; /* an nmethod's Method* and compile id */
	__u16 nmethod_compile_id;
	__s8 frame_sender_sp; /* the interpreter frame's words from its fp */
	__s8 frame_method;
	__s8 frame_bcp;
	__u8 pad[1];
};

/*
 * A HotSpot frame (UNW_FRAME_HOTSPOT) is two words. The first says what
 * runs there, its kind (enum unw_hs_kind) in bits 48 to 55 above its
 * value: a Method* (an interpreted method), an nmethod (a compiled one)
 * or a code blob (a stub, an adapter); the second where: the bytecode
 * pointer of an interpreted frame, the pc of the others, an nmethod's
 * with the low 16 bits of its compile id in its top 16 (UNW_HS_TAG_SHIFT):
 * an nmethod flushed and another compiled at its address are told apart.
 * Its code event (UNW_EV_CODE: addr its first word, tag its kind, an
 * nmethod's with its compile id's 16 bits above) is sent when BPF first
 * sees it, to be read while the JVM lives.
 */
enum unw_hs_kind {
	UNW_HS_INTERPRETED = 0, /* value: the Method*; where: its bcp */
	UNW_HS_COMPILED,	/* value: the nmethod; where: the pc and the compile id */
	UNW_HS_STUB,		/* value: the code blob; where: the pc */
};

#define UNW_HS_TAG_SHIFT 48

#define UNW_HS_KIND_SHIFT 48
#define UNW_HS_VALUE_MASK ((1ULL << UNW_HS_KIND_SHIFT) - 1)

/* The first 8 bytes of the names of the blobs the walk tells apart (CodeBlob::_name). */
#define UNW_HS_NAME_NMETHOD 0x00646f6874656d6eULL     /* "nmethod" */
#define UNW_HS_NAME_NATIVE 0x6e2065766974616eULL      /* "native n": a native method's wrapper */
#define UNW_HS_NAME_INTERPRETER 0x6572707265746e49ULL /* "Interpre" */

/* Why the HotSpot frames of a sample were left out, or some of them. */
#define UNW_HOTSPOT_ERRORS(X)                                                                    \
	X(HS_TABLES, "hotspot-vmstructs-unsupported",                                            \
	  "in the code cache of a JVM whose tables lack an entry the walk needs: native frames " \
	  "only")                                                                                \
	X(HS_BLOB, "hotspot-blob-not-found",                                                     \
	  "a pc in a JVM's code cache in no code blob its segment map knows: walked as native "  \
	  "code")                                                                                \
	X(HS_STEP, "hotspot-step-failed",                                                        \
	  "a Java frame whose caller could not be read, or is not above it: the walk stops")

_Static_assert(sizeof(struct unw_hotspot_proc) == 120, "unw_hotspot_proc layout");

#endif
