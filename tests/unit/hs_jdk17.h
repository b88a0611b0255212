/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * JDK 17's layout (x86-64), as its tables give it: the layout the HotSpot
 * namer's unit test (test_hsframes.c) lays its made-up memory out by, and
 * its fuzz target (tests/fuzz/fuzz_hsframes.c) mutates.
 */
#ifndef UNWPROF_TESTS_HS_JDK17_H
#define UNWPROF_TESTS_HS_JDK17_H

#include "core/runtimes/hotspot/hsframes.h"

static const struct hs_layout jdk17 = {
	.method_const_method = 8,
	.method_size = 88,
	.const_method_constants = 8,
	.const_method_flags = 28,
	.const_method_code_size = 32,
	.const_method_name_index = 34,
	.const_method_signature_index = 36,
	.const_method_size = 48,
	.pool_holder = 24,
	.pool_length = 60,
	.pool_source_file_name_index = 54,
	.pool_size = 72,
	.klass_name = 24,
	.symbol_length = 4,
	.symbol_body = 6,
	.blob_name = 96,
	.blob_code_begin = 32,
	.nmethod_method = 112,
	.nmethod_scopes_data_begin = 120,
	.nmethod_metadata_offset = 260,
	.nmethod_scopes_pcs_offset = 268,
	.nmethod_dependencies_offset = 272,
	.pc_desc_size = 16,
	.pc_desc_pc_offset = 0,
	.pc_desc_scope_decode_offset = 4,
	.has_linenumber_table = 1,
};

#endif
