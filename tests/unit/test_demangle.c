// SPDX-License-Identifier: GPL-2.0-only
/*
 * Demangling (core/symbols/demangle.c, and demangle_rust.c for Rust): C++
 * Itanium names, Rust legacy and v0 names, names left alone, and malformed
 * Rust names, which must fail with EINVAL, and fast.
 *
 * The Rust names below are data, so the test needs no Rust toolchain. What
 * each demangles to is what rustc-demangle 0.1.27 prints with "{:#}" (the
 * form without hashes that backtraces and profilers show), printed by a
 * small program linked with it; the demangler agreed with every one. The
 * names came from:
 *
 *   v0_stable, legacy: a fixture program (generic functions instantiated at
 *   tuples, arrays, fn pointers, dyn and for<'a>; trait impls; closures;
 *   const generic structs Matrix<2, 3>, Signed<-5>, Flag<true>,
 *   Letter<'ä'>; modules größe and 日本), built as
 *     rustc 1.95.0 -C symbol-mangling-version=v0 -C opt-level=0 sample.rs
 *     rustc 1.97.0-nightly -Z unstable-options -C symbol-mangling-version=legacy
 *       -C opt-level=0 sample.rs
 *   then `nm`; v0_stable also has names of the std linked in. legacy also
 *   has names of rustc-demangle's own code (and the core generics it uses)
 *   built the same way, and hand-written names for escapes rustc rarely
 *   emits.
 *   v0_driver: `nm` of librustc_driver-*.so of Rust 1.95.0 (ThinLTO and
 *   .cold suffixes, i128 consts, nested binders).
 *   v0_nightly: const generics of adt_const_params (str, struct, enum,
 *   array, tuple, slice and char values) and pattern types, built with
 *   rustc 1.97.0-nightly -C symbol-mangling-version=v0.
 *   v0_grammar: hand-written names for corners of RFC 2603 that the
 *   programs above do not reach.
 *
 * binutils 2.40 c++filt, the other demangler at hand, prints other forms,
 * and this one follows rustc-demangle: c++filt keeps crate hashes
 * ("std[3c1c0]::time") and legacy hashes ("::h0123456789abcdef"), writes
 * the type of const integers ("8: usize"), drops ".cold" suffixes, leaves
 * non-ASCII "$u..$" escapes of legacy names as they are, and misprints
 * 128-bit consts ("-0x0000...0_: i128"). Otherwise the two agree.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "core/symbols/demangle.h"
#include "test.h"

struct demangle_case {
	const char *mangled;
	const char *demangled;
};

static const struct demangle_case v0_stable_cases[] = {
	{ "_RNvMNtCsjrHSEGnQ3l9_3std4timeNtB2_7Instant3now", "<std::time::Instant>::now" },
	{ "_RNvXso_NtCslNYArtu3iFV_5alloc3vecINtB5_3VechENtNtNtCsgEmfK2I1SDS_4core3ops4drop4Drop4dropCsduwmD7cSIQq_5gimli",
	  "<alloc::vec::Vec<u8> as core::ops::drop::Drop>::drop" },
	{ "_RNvXCseg5vz0rOR1E_6sampleNtB2_6CircleNtB2_5Shape4area",
	  "<sample::Circle as sample::Shape>::area" },
	{ "_RNvXs5_Cseg5vz0rOR1E_6sampleNtB5_6CircleNtB5_7Visitor5visit",
	  "<sample::Circle as sample::Visitor>::visit" },
	{ "_RNvMs3_Cseg5vz0rOR1E_6sampleINtB5_4FlagKb1_E5valueB5_", "<sample::Flag<true>>::value" },
	{ "_RNvMs4_Cseg5vz0rOR1E_6sampleINtB5_6LetterKce4_E5valueB5_",
	  "<sample::Letter<'ä'>>::value" },
	{ "_RNvMs1_Cseg5vz0rOR1E_6sampleINtB5_6MatrixKj2_Kj3_E5cellsB5_",
	  "<sample::Matrix<2, 3>>::cells" },
	{ "_RNvMs2_Cseg5vz0rOR1E_6sampleINtB5_6SignedKln5_E5valueB5_",
	  "<sample::Signed<-5>>::value" },
	{ "_RNvYINtCseg5vz0rOR1E_6sample7WrapperReENtB5_5Shape4nameB5_",
	  "<sample::Wrapper<&str> as sample::Shape>::name" },
	{ "_RNvMs0_Cseg5vz0rOR1E_6sampleINtB5_7WrapperINtNtCslNYArtu3iFV_5alloc3vec3VechEE3getB5_",
	  "<sample::Wrapper<alloc::vec::Vec<u8>>>::get" },
	{ "_RNvMNtCseg5vz0rOR1E_6sampleu9gre_6ka8iNtB2_u9Strae_oqau8lnge_loa",
	  "<sample::größe::Straße>::länge" },
	{ "_RNSNvYNCNvCseg5vz0rOR1E_6sample4mains0_0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceTReEE9call_once6vtableB8_",
	  "<sample::main::{closure#2} as core::ops::function::FnOnce<(&str,)>>::call_once::{shim:vtable#0}" },
	{ "_RNvYNCNvCseg5vz0rOR1E_6sample4mains3_0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceTaiEE9call_onceB6_",
	  "<sample::main::{closure#5} as core::ops::function::FnOnce<(i8, isize)>>::call_once" },
	{ "_RINvCseg5vz0rOR1E_6sample7genericThReAsj4_RSmcuEEB2_",
	  "sample::generic::<(u8, &str, [i16; 4], &[u32], char, ())>" },
	{ "_RINvCseg5vz0rOR1E_6sample7genericPhEB2_", "sample::generic::<*const u8>" },
	{ "_RINvCseg5vz0rOR1E_6sample7genericINtNtCsgEmfK2I1SDS_4core6option6OptionINtNtCslNYArtu3iFV_5alloc5boxed3BoxyEEEB2_",
	  "sample::generic::<core::option::Option<alloc::boxed::Box<u64>>>" },
	{ "_RNvNtCseg5vz0rOR1E_6sampleu9gre_6ka8iu18berechne_flche_gib",
	  "sample::größe::berechne_fläche" },
	{ "_RINvCseg5vz0rOR1E_6sample2hrRDG_INtNtNtCsgEmfK2I1SDS_4core3ops8function2FnTRL0_eEEp6OutputRL0_eEL_EB2_",
	  "sample::hr::<&dyn for<'a> core::ops::function::Fn<(&'a str,), Output = &'a str>>" },
	{ "_RINvCseg5vz0rOR1E_6sample2hrPSbEB2_", "sample::hr::<*const [bool]>" },
	{ "_RINvCseg5vz0rOR1E_6sample2hrAINtB2_7WrapperoEj0_EB2_",
	  "sample::hr::<[sample::Wrapper<u128>; 0]>" },
	{ "_RINvCseg5vz0rOR1E_6sample2hrFaiETtfEEB2_",
	  "sample::hr::<fn(i8, isize) -> (u16, f32)>" },
	{ "_RINvCseg5vz0rOR1E_6sample2hrFG_RL0_hERL0_hEB2_",
	  "sample::hr::<for<'a> fn(&'a u8) -> &'a u8>" },
	{ "_RINvCseg5vz0rOR1E_6sample2hrFUKClElEB2_",
	  "sample::hr::<unsafe extern \"C\" fn(i32) -> i32>" },
	{ "_RNvCseg5vz0rOR1E_6sample8iter_sum", "sample::iter_sum" },
	{ "_RNCNvCseg5vz0rOR1E_6sample4mains5_0B3_", "sample::main::{closure#7}" },
	{ "_RINvCseg5vz0rOR1E_6sample8takes_fnNCNvB2_4mains_0EB2_",
	  "sample::takes_fn::<sample::main::{closure#1}>" },
	{ "_RNvNtCseg5vz0rOR1E_6sampleu6wgv71au7kdvt68h", "sample::日本::関数" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeNCINvNtNtCsjrHSEGnQ3l9_3std6thread9lifecycle15spawn_uncheckedNCNvCseg5vz0rOR1E_6sample4mains5_0mEs_0EB1J_",
	  "core::ptr::drop_in_place::<std::thread::lifecycle::spawn_unchecked<sample::main::{closure#7}, u32>::{closure#1}>" },
	{ "_RINvYQDNtNtNtNtCsgEmfK2I1SDS_4core4iter6traits8iterator8Iteratorp4ItemyEL_B5_3sumyECseg5vz0rOR1E_6sample",
	  "<&mut dyn core::iter::traits::iterator::Iterator<Item = u64> as core::iter::traits::iterator::Iterator>::sum::<u64>" },
	{ "_RNvXs8_NtCslNYArtu3iFV_5alloc5boxedINtB5_3BoxDG_INtNtNtCsgEmfK2I1SDS_4core3ops8function2FnTRL0_eEEp6OutputjNtNtBR_6marker4SyncNtB1J_4SendEL_ENtNtBP_4drop4Drop4dropCseg5vz0rOR1E_6sample",
	  "<alloc::boxed::Box<dyn for<'a> core::ops::function::Fn<(&'a str,), Output = usize> + core::marker::Sync + core::marker::Send> as core::ops::drop::Drop>::drop" },
	{ "_RNvXsn_NtCslNYArtu3iFV_5alloc5boxedINtB5_3BoxDNtNtCsgEmfK2I1SDS_4core3any3AnyNtNtBM_6marker4SendEL_ENtNtBM_3fmt5Debug3fmtCseg5vz0rOR1E_6sample",
	  "<alloc::boxed::Box<dyn core::any::Any + core::marker::Send> as core::fmt::Debug>::fmt" },
	{ "_RINvMs2_NtCsgEmfK2I1SDS_4core3fmtNtB6_9Arguments3newKj2_Kj1_ECseg5vz0rOR1E_6sample",
	  "<core::fmt::Arguments>::new::<2, 1>" },
	{ "_RNvNvMs_NtCslNYArtu3iFV_5alloc3vecINtB6_3VecppE7set_len18precondition_checkCseg5vz0rOR1E_6sample",
	  "<alloc::vec::Vec<_, _>>::set_len::precondition_check" },
	{ "_RNvMNtNtCsgEmfK2I1SDS_4core3ptr9const_ptrPu13is_aligned_toCseg5vz0rOR1E_6sample",
	  "<*const ()>::is_aligned_to" },
	{ "_RNvMNtCsgEmfK2I1SDS_4core5sliceSh5firstCseg5vz0rOR1E_6sample", "<[u8]>::first" },
	{ "_RNvMNtNtCsgEmfK2I1SDS_4core4char7methodsc8to_digitCseg5vz0rOR1E_6sample",
	  "<char>::to_digit" },
	{ "_RNvXsZ_NtCsjrHSEGnQ3l9_3std7processuNtB5_11Termination6reportCseg5vz0rOR1E_6sample",
	  "<() as std::process::Termination>::report" },
	{ "_RNvYFEuINtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_onceCseg5vz0rOR1E_6sample",
	  "<fn() as core::ops::function::FnOnce<()>>::call_once" },
	{ "_RNvXs1g_NtCsgEmfK2I1SDS_4core3fmtRAsj4_NtB6_5Debug3fmtCseg5vz0rOR1E_6sample",
	  "<&[i16; 4] as core::fmt::Debug>::fmt" },
	{ "_RINvMNtCsgEmfK2I1SDS_4core6optionINtB3_6OptionReE11map_or_elseNtNtCslNYArtu3iFV_5alloc6string6StringNCNvNtB12_3fmt6format0NvYeNtNtB12_6borrow7ToOwned8to_ownedECseg5vz0rOR1E_6sample",
	  "<core::option::Option<&str>>::map_or_else::<alloc::string::String, alloc::fmt::format::{closure#0}, <str as alloc::borrow::ToOwned>::to_owned>" },
};

static const struct demangle_case v0_driver_cases[] = {
	{ "_RINvMs2_NtCshg5UprtI8ZK_4jiff4spanNtB6_4Span15try_days_rangedINtNtNtB8_4util8rangeint5ri128Knn80000000000000000000000000000000_Kn7fffffffffffffffffffffffffffffff_EEB8_",
	  "<jiff::span::Span>::try_days_ranged::<jiff::util::rangeint::ri128<-0x80000000000000000000000000000000, 0x7fffffffffffffffffffffffffffffff>>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDG1_INtNtNtB4_3ops8function2FnTQL2_INtNtCshek8c565Rq6_18rustc_attr_parsing7context15FinalizeContextL1_L0_NtB1R_4LateEEEp6OutputINtNtB4_6option6OptionNtNtNtCsfqPBR87PSkx_9rustc_hir5attrs15data_structures13AttributeKindENtNtB4_6marker4SyncNtB4N_4SendEL_EEB1T_",
	  "core::ptr::drop_in_place::<alloc::boxed::Box<dyn for<'a, 'b, 'c> core::ops::function::Fn<(&'a mut rustc_attr_parsing::context::FinalizeContext<'b, 'c, rustc_attr_parsing::context::Late>,), Output = core::option::Option<rustc_hir::attrs::data_structures::AttributeKind>> + core::marker::Sync + core::marker::Send>>" },
	{ "_RINvMs0_NtNtCs1HmMIo7Jdcu_10libloading2os4unixNtB6_7Library8get_implFUKCONtNtCsgEmfK2I1SDS_4core3ffi6c_voidhEuNCINvB2_18get_singlethreadedB14_RShE0B2g_ECs59TyybOfEHA_18rustc_codegen_llvm",
	  "<libloading::os::unix::Library>::get_impl::<unsafe extern \"C\" fn(*mut core::ffi::c_void, u8), <libloading::os::unix::Library>::get_singlethreaded<unsafe extern \"C\" fn(*mut core::ffi::c_void, u8), &[u8]>::{closure#0}, &[u8]>" },
	{ "_RNSINvNtCsjrHSEGnQ3l9_3std9panicking11begin_panicReE5reifyB6_",
	  "std::panicking::begin_panic::<&str>::{shim:reify#0}" },
	{ "_RINvCs8nUgGD5k2ut_8smallvec10deallocateNtNtCsdadwybgsbvk_12rustc_middle2ty2TyEBF_.llvm.4311236201544885740",
	  "smallvec::deallocate::<rustc_middle::ty::Ty>" },
	{ "_RINvMNtCsgEmfK2I1SDS_4core3stre18trim_start_matchesReECsaspd4q2l9mR_21rustc_trait_selection.cold",
	  "<str>::trim_start_matches::<&str>.cold" },
	{ "_RINvMs3_NtCslNYArtu3iFV_5alloc3stre7replacecECshb4CxotJIr4_15rustc_interface.warm",
	  "<str>::replace::<char>.warm" },
	{ "_RINvMsE_CsjyvvofjlheH_10rustc_spanNtB6_14SourceFileHash13new_in_memoryRShEB6_.llvm.3879227013986055433.cold",
	  "<rustc_span::SourceFileHash>::new_in_memory::<&[u8]>.llvm.3879227013986055433.cold" },
	{ "_RINvCs2N2TEQjwqGk_7stacker4growINtNtCshpzWpLcxOCw_15rustc_mir_build7builder8BlockAnduENCNvMNtNtBw_4expr4intoNtBw_7Builder14expr_into_dest0EBy_",
	  "stacker::grow::<rustc_mir_build::builder::BlockAnd<()>, <rustc_mir_build::builder::Builder>::expr_into_dest::{closure#0}>" },
	{ "_RINvMs0_NtCsaLBsNTKQP2p_11rustc_parse6parserNtB6_6Parser10look_aheadbNCNCNvMs_NtB6_3patBG_22is_pat_range_end_start00EB8_",
	  "<rustc_parse::parser::Parser>::look_ahead::<bool, <rustc_parse::parser::Parser>::is_pat_range_end_start::{closure#0}::{closure#0}>" },
};

static const struct demangle_case v0_nightly_cases[] = {
	{ "_RINvCsIoqLERgPZM_6consts1aKAh1_h2_h3_EEB2_", "consts::a::<{[1, 2, 3]}>" },
	{ "_RINvCsIoqLERgPZM_6consts1cKc27_EB2_", "consts::c::<'\\''>" },
	{ "_RINvCsIoqLERgPZM_6consts1cKc5c_EB2_", "consts::c::<'\\\\'>" },
	{ "_RINvCsIoqLERgPZM_6consts1cKc65e5_EB2_", "consts::c::<'日'>" },
	{ "_RINvCsIoqLERgPZM_6consts1cKc7f_EB2_", "consts::c::<'\\u{7f}'>" },
	{ "_RINvCsIoqLERgPZM_6consts1mKVNtNtB2_4Mode4FastUEB2_",
	  "consts::m::<{consts::Mode::Fast}>" },
	{ "_RINvCsIoqLERgPZM_6consts1mKVNtNtB2_4Mode4SlowTt12c_EEB2_",
	  "consts::m::<{consts::Mode::Slow(300)}>" },
	{ "_RINvCsIoqLERgPZM_6consts1mKVNtNtB2_4Mode6CustomS5levelh4_EEB2_",
	  "consts::m::<{consts::Mode::Custom { level: 4 }}>" },
	{ "_RINvCsIoqLERgPZM_6consts1pKVNtB2_5PointS1xln3_1yl7_EEB2_",
	  "consts::p::<{consts::Point { x: -3, y: 7 }}>" },
	{ "_RINvCsIoqLERgPZM_6consts1rKRAt5_t6_EEB2_", "consts::r::<{&[5, 6]}>" },
	{ "_RINvCsIoqLERgPZM_6consts1sKRe68c3a96c6c6f202277c3b6726c64220a09277127_EB2_",
	  "consts::s::<\"héllo \\\"wörld\\\"\\n\\t'q'\">" },
	{ "_RINvCsIoqLERgPZM_6consts1sKRe_EB2_", "consts::s::<\"\">" },
	{ "_RINvCsIoqLERgPZM_6consts2t2KVNtB2_4PairTh9_b1_EEB2_",
	  "consts::t2::<{consts::Pair(9, true)}>" },
	{ "_RINvCsIoqLERgPZM_6consts2tuKTc78_an1_EEB2_", "consts::tu::<{('x', -1)}>" },
	{ "_RINvCs1i0r1gcm8aR_3pat1gWaRan3_a7f_EB2_", "pat::g::<i8 is -3..=127>" },
	{ "_RINvCs1i0r1gcm8aR_3pat1gWmRm1_m5_EB2_", "pat::g::<u32 is 1..=5>" },
};

static const struct demangle_case v0_grammar_cases[] = {
	{ "_RNvC6_123foo3bar", "123foo::bar" },
	{ "_RINvC1a1fFEzE", "a::f::<fn() -> !>" },
	{ "_RINvC1a1fFUKClvElE", "a::f::<unsafe extern \"C\" fn(i32, ...) -> i32>" },
	{ "_RINvC1a1fFK8C_unwindEuE", "a::f::<extern \"C-unwind\" fn()>" },
	{ "_RINvC1a1fFG_RL0_DNtB2_1TEL0_EuE", "a::f::<for<'a> fn(&'a dyn a::T + 'a)>" },
	{ "_RINvC1a1fFGp_RL0_hEuE",
	  "a::f::<for<'a, 'b, 'c, 'd, 'e, 'f, 'g, 'h, 'i, 'j, 'k, 'l, 'm, 'n, 'o, 'p, 'q, 'r, 's, 't, 'u, 'v, 'w, 'x, 'y, 'z, '_26> fn(&'_26 u8)>" },
	{ "_RINvC1a1fDNtB2_1Tp1NKj3_EL_E", "a::f::<dyn a::T<N = 3>>" },
	{ "_RINvC1a1fDG0_INtB2_1TRL0_hRL1_tEp1URL1_mEL_E",
	  "a::f::<dyn for<'a, 'b> a::T<&'b u8, &'a u16, U = &'a u32>>" },
	{ "_RNvC1au3b_9", "a::punycode{b-9}" },
	{ "_RNvC1au7gr_99aa", "a::ȤȤgr" },
	{ "_RNCNvC1a4main0", "a::main::{closure#0}" },
	{ "_RNCNvC1a4mains_0", "a::main::{closure#1}" },
	{ "_RNXNvC1a4mains0_3foo", "a::main::{X:foo#2}" },
	{ "_RNvYhNtC1a5Trait3bar", "<u8 as a::Trait>::bar" },
	{ "_RINvC1a1fKpE", "a::f::<_>" },
	{ "_RINvC1a1fKanff_Kb1_Kb0_E", "a::f::<-255, true, false>" },
	{ "_RINvC1a1fKyffffffffffffffff_Ko1ffffffffffffffff_E",
	  "a::f::<18446744073709551615, 0x1ffffffffffffffff>" },
	{ "_RINvC1a1fKc27_Kc5c_Kc0_Kca_E", "a::f::<'\\'', '\\\\', '\\0', '\\n'>" },
	{ "_RINvC1a1fThETEShPhOhQL_hE", "a::f::<(u8,), (), [u8], *const u8, *mut u8, &mut u8>" },
	{ "_RINvC1a1fAhj10_E", "a::f::<[u8; 16]>" },
	{ "_RINvC1a1fKRe616263_KAh1_h2_EKTh1_EE", "a::f::<\"abc\", {[1, 2]}, {(1,)}>" },
	{ "_RNvC1a1fC1b", "a::f" },
	{ "_RNvC1a1f.llvm.1234ABCD", "a::f" },
	{ "_RNvC1a1f.cold", "a::f.cold" },
	{ "_RNvC1a1f.llvm.x12", "a::f.llvm.x12" },
	{ "_RNvC1a1f.cold.llvm.99", "a::f.cold" },
	{ "_RINvC1a1fKVNtB2_1EUKVNtB2_1PTb1_EKVNtB2_1SS1xh7_EE",
	  "a::f::<{a::E}, {a::P(true)}, {a::S { x: 7 }}>" },
};

static const struct demangle_case legacy_cases[] = {
	{ "_ZN48_$LT$sample..Circle$u20$as$u20$sample..Shape$GT$4area17h64225799cfa20576E",
	  "<sample::Circle as sample::Shape>::area" },
	{ "_ZN6sample13gr$uf6$$udf$e10Stra$udf$e9l$ue4$nge17h0d8f5efe4713dec1E",
	  "sample::größe::Straße::länge" },
	{ "_ZN6sample15_$u65e5$$u672c$15_$u95a2$$u6570$17hdee9e68587dd844eE",
	  "sample::日本::関数" },
	{ "_ZN6sample4main28_$u7b$$u7b$closure$u7d$$u7d$17h236486a6e310ed99E",
	  "sample::main::{{closure}}" },
	{ "_ZN6sample13Flag$LT$_$GT$5value17h970628d028d35600E", "sample::Flag<_>::value" },
	{ "_ZN6sample19Matrix$LT$_$C$_$GT$5cells17h2c82c13967bbb153E",
	  "sample::Matrix<_,_>::cells" },
	{ "_ZN52_$LT$$BP$const$u20$T$u20$as$u20$core..fmt..Debug$GT$3fmt17h5421d5098f6bc868E",
	  "<*const T as core::fmt::Debug>::fmt" },
	{ "_ZN4core6option19Option$LT$$RF$T$GT$6cloned17hca13398b9b11bd9bE",
	  "core::option::Option<&T>::cloned" },
	{ "_ZN45_$LT$$LP$$RP$$u20$as$u20$core..fmt..Debug$GT$3fmt17h002a85c7b6093441E",
	  "<() as core::fmt::Debug>::fmt" },
	{ "_ZN4core5slice29_$LT$impl$u20$$u5b$T$u5d$$GT$3get17h2ea1a806f4c31cb0E",
	  "core::slice::<impl [T]>::get" },
	{ "_ZN4core5array69_$LT$impl$u20$core..fmt..Debug$u20$for$u20$$u5b$T$u3b$$u20$N$u5d$$GT$3fmt17hbc76c60c1c72f83dE",
	  "core::array::<impl core::fmt::Debug for [T; N]>::fmt" },
	{ "_ZN4core3ptr87drop_glue$LT$alloc..boxed..Box$LT$dyn$u20$core..any..Any$u2b$core..marker..Send$GT$$GT$17h21be72ce4121f8d6E",
	  "core::ptr::drop_glue<alloc::boxed::Box<dyn core::any::Any+core::marker::Send>>" },
	{ "_ZN4core3ptr150drop_glue$LT$alloc..boxed..Box$LT$dyn$u20$core..ops..function..FnOnce$LT$$LP$$RP$$GT$$u2b$Output$u20$$u3d$$u20$$LP$$RP$$u2b$core..marker..Send$GT$$GT$17hc482ff776b294661E",
	  "core::ptr::drop_glue<alloc::boxed::Box<dyn core::ops::function::FnOnce<()>+Output = ()+core::marker::Send>>" },
	{ "_ZN4test10foo$SP$bar17h0123456789abcdefE", "test::foo@bar" },
	{ "_ZN4core3ptr44drop_in_place$LT$$RF$$u27$static$u20$str$GT$17h0123456789abcdefE",
	  "core::ptr::drop_in_place<&'static str>" },
	{ "_ZN4test7a$XY$b$17h0123456789abcdefE", "test::a$XY$b$" },
	{ "_ZN4test6a$u7$b17h0123456789abcdefE", "test::a$u7$b" },
	{ "_ZN4test10a$u110000$17h0123456789abcdefE", "test::a$u110000$" },
	{ "_ZN4test6a.b..c17h0123456789abcdefE", "test::a.b::c" },
	{ "_ZN4test7_$u7e$x17h0123456789abcdefE", "test::~x" },
	{ "_ZN4test2$u17h0123456789abcdefE", "test::$u" },
	{ "_ZN4test3foo17h0123456789abcdefE.llvm.0A1B2C", "test::foo" },
	{ "_ZN4test3foo17h0123456789abcdefE.cold", "test::foo.cold" },
	{ "_ZN4test3foo17h0123456789abcdefE.cold.llvm.77", "test::foo.cold" },
};

/*
 * Names that must be refused with EINVAL. rustc-demangle refuses them too, or
 * prints "{invalid syntax}" or "{recursion limit reached}" inside the name;
 * "_RC0" it prints as "".
 */
static const char *const v0_malformed[] = {
	"_R",
	"_Rc1a",			/* paths start with an upper-case tag */
	"_R0NvC1a1f",			/* an encoding version, which rustc never writes */
	"_RC0",				/* demangles to nothing */
	"_RNvC1a2\xc3\xa4",		/* not ASCII */
	"_RNvC5ab",			/* identifier past the end */
	"_RINvC1a1fh",			/* generic arguments without their 'E' */
	"_RINvC1a1fThh",		/* tuple without its 'E' */
	"_RINvC1a1fFhh",		/* fn type without its 'E' */
	"_RNvC1a1fx",			/* trailing garbage */
	"_RNvC1a1f x",			/* a suffix that is not ".word" */
	"_RNvC1a1fC",			/* instantiating crate cut short */
	"_RZC1a",			/* unknown path tag */
	"_RINvC1a1fKZ_E",		/* unknown const tag */
	"_RINvC1a1fKjA_E",		/* hex digits are lower-case */
	"_RINvC1a1fKj1",		/* const without its '_' */
	"_RINvC1a1fKb2_E",		/* bool past 1 */
	"_RINvC1a1fKcd800_E",		/* a surrogate is no char */
	"_RINvC1a1fKc110000_E",		/* past U+10FFFF */
	"_RINvC1a1fKRe6_E",		/* odd number of hex digits in a str */
	"_RINvC1a1fKReff_E",		/* not UTF-8 */
	"_RINvC1a1fKRec080_E",		/* overlong UTF-8 */
	"_RINvC1a1fKReeda080_E",	/* UTF-8 of a surrogate */
	"_RINvC1a1fKRee282_E",		/* UTF-8 cut short */
	"_RINvC1a1fRL0_hE",		/* lifetime that no binder bound */
	"_RINvC1a1fDNtB2_1TE",		/* dyn without its lifetime */
	"_RINvC1a1fFK0_EuE",		/* empty ABI name */
	"_RINvC1a1fFKu1a_EuE",		/* punycode ABI name */
	"_RNvB2_1a",			/* backref to itself */
	"_RNvB9_1a",			/* backref forward */
	"_RNvC1aB0_",			/* backref in place of an identifier */
	"_RIC0B_E",			/* backref into its own generic arguments: a loop */
	"_RIC0B_B_E",			/* the same loop, doubling at each turn */
	"_RNvC18446744073709551616a1f", /* identifier length past 64 bits */
	"_RNvC99999999999999999999999a",
	"_RNvCsZZZZZZZZZZZZZZZZ_1a1f", /* disambiguator past 64 bits */
	"_RINvC1a1fAhKj1_E",	       /* an array length is a bare const */
	"_RINvC1a1fWhXE",	       /* unknown pattern */
};

static void check_demangle(const char *mangled, const char *expected)
{
	char *out = demangle__name(mangled);

	CHECK_EQ_STR(out, expected);
	free(out);
}

static void check_cases(const struct demangle_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		check_demangle(cases[i].mangled, cases[i].demangled);
}

static void check_refused(const char *mangled)
{
	char *out;

	errno = 0;
	out = demangle__name(mangled);
	if (out)
		fprintf(stderr, "%s demangled to %.200s\n", mangled, out);
	CHECK(out == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	free(out);
}

static void test_cxx(void)
{
	check_demangle("_Z3fooi", "foo(int)");
	check_demangle("_ZN2ns5Klass6methodEv", "ns::Klass::method()");
	check_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi",
		       "std::vector<int, std::allocator<int> >::push_back(int const&)");
	check_demangle("_ZN12_GLOBAL__N_14leafEPKc", "(anonymous namespace)::leaf(char const*)");
	check_demangle("_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const");
	/* C++ suffixes stay as __cxa_demangle shows them. */
	check_demangle("_Z3foov.cold", "foo() [clone .cold]");
}

static void test_rust_legacy(void)
{
	/* The trailing hash is dropped, as rustc-demangle does. */
	check_demangle("_ZN4core3ptr13drop_in_place17h0123456789abcdefE",
		       "core::ptr::drop_in_place");
	check_demangle("_ZN3std2rt10lang_start17hcafebabe12345678E", "std::rt::lang_start");
	/* Not a hash (15 digits): kept, and the name is not taken for Rust. */
	check_demangle("_ZN3foo16h0123456789abcdeE", "foo::h0123456789abcde");
	check_demangle("_ZN3foo9$LT$T$GT$3bar16h0123456789abcdeE",
		       "foo::$LT$T$GT$::bar::h0123456789abcde");
	check_cases(legacy_cases, sizeof(legacy_cases) / sizeof(legacy_cases[0]));
}

static void test_rust_v0(void)
{
	check_cases(v0_stable_cases, sizeof(v0_stable_cases) / sizeof(v0_stable_cases[0]));
	check_cases(v0_driver_cases, sizeof(v0_driver_cases) / sizeof(v0_driver_cases[0]));
	check_cases(v0_nightly_cases, sizeof(v0_nightly_cases) / sizeof(v0_nightly_cases[0]));
	check_cases(v0_grammar_cases, sizeof(v0_grammar_cases) / sizeof(v0_grammar_cases[0]));
}

static void test_not_mangled(void)
{
	char *out;

	errno = 0;
	out = demangle__name("main");
	CHECK(out == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	/* A bare type code is not a symbol: "i" stays "i". */
	CHECK(demangle__name("i") == NULL);
	CHECK(demangle__name("") == NULL);
	CHECK(demangle__name(NULL) == NULL);
	CHECK(demangle__name("R") == NULL);
	/* Looks mangled but is not valid. */
	errno = 0;
	out = demangle__name("_Z");
	CHECK(out == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	CHECK(demangle__name("_ZZZZ") == NULL);
}

static void test_rust_v0_malformed(void)
{
	for (size_t i = 0; i < sizeof(v0_malformed) / sizeof(v0_malformed[0]); i++)
		check_refused(v0_malformed[i]);
}

/*
 * Every name cut short is refused, or, when only its instantiating crate
 * was cut, still demangles to the same: nothing is read past the end.
 */
static void test_rust_v0_truncated(void)
{
	static const struct demangle_case *const names[] = {
		&v0_stable_cases[0],
		&v0_driver_cases[0],
		&v0_driver_cases[1],
		&v0_nightly_cases[0],
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len = strlen(names[i]->mangled);
		char *cut = malloc(len + 1);

		CHECK(cut != NULL);
		for (size_t n = 0; cut && n < len; n++) {
			char *out;

			memcpy(cut, names[i]->mangled, n);
			cut[n] = '\0';
			errno = 0;
			out = demangle__name(cut);
			if (out)
				CHECK_EQ_STR(out, names[i]->demangled);
			else
				CHECK_EQ_INT(errno, EINVAL);
			free(out);
		}
		free(cut);
	}
}

/* Appends n in <base-62-number> form to s. */
static void put_base62(char *s, unsigned long n)
{
	static const char digits[] =
		"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char rev[16];
	size_t k = 0, len = strlen(s);

	if (n == 0) {
		strcat(s, "_");
		return;
	}
	for (n--; k == 0 || n; n /= 62)
		rev[k++] = digits[n % 62];
	while (k)
		s[len++] = rev[--k];
	s[len++] = '_';
	s[len] = '\0';
}

/*
 * a::f::<(u8, (u8, u8), ((u8, u8), (u8, u8)), ...)>: each tuple holds two
 * backrefs to the one before, so tuple k prints 2^k times "u8". At 40
 * tuples that is a few hundred bytes of name for terabytes of output.
 */
static char *doubling_name(int tuples)
{
	char *s = calloc(1, 64 + (size_t)tuples * 32);
	size_t prev;

	if (!s)
		return NULL;
	strcpy(s, "_RINvC1a1fT");
	prev = strlen(s) - 2; /* backrefs count from after "_R" */
	strcat(s, "h");
	for (int k = 1; k < tuples; k++) {
		size_t start = strlen(s) - 2;

		strcat(s, "TB");
		put_base62(s, prev);
		strcat(s, "B");
		put_base62(s, prev);
		strcat(s, "E");
		prev = start;
	}
	strcat(s, "EE");
	return s;
}

static char *repeated(const char *head, char c, size_t n, const char *tail)
{
	size_t len = strlen(head);
	char *s = malloc(len + n + strlen(tail) + 1);

	if (!s)
		return NULL;
	memcpy(s, head, len);
	memset(s + len, c, n);
	strcpy(s + len + n, tail);
	return s;
}

static double cpu_seconds(void)
{
	return (double)clock() / CLOCKS_PER_SEC;
}

/* Names made to exhaust the demangler are refused, each well within a second. */
static void test_rust_v0_limits(void)
{
	char *deep_ok = repeated("_RINvC1a1f", 'R', 400, "hE");
	char *deep = repeated("_RINvC1a1f", 'R', 100000, "hE");
	char *binder = repeated("_RINvC1a1fFG", 'Z', 10, "_EuE");
	char *small = doubling_name(4);
	char *big = doubling_name(40);
	char *out;
	double start;

	CHECK(deep_ok && deep && binder && small && big);
	if (!deep_ok || !deep || !binder || !small || !big)
		goto cleanup;
	/* Nesting within the limit (500, as rustc-demangle's) is fine. */
	out = demangle__name(deep_ok);
	CHECK(out && strlen(out) == strlen("a::f::<u8>") + 400);
	free(out);
	check_demangle(small, "a::f::<(u8, (u8, u8), ((u8, u8), (u8, u8)), "
			      "(((u8, u8), (u8, u8)), ((u8, u8), (u8, u8))))>");

	start = cpu_seconds();
	check_refused(deep);   /* too deep */
	check_refused(big);    /* too much output, too many steps */
	check_refused(binder); /* for<'a, 'b, ...> with 62^10 lifetimes */
	CHECK(cpu_seconds() - start < 2.0);
cleanup:
	free(deep_ok);
	free(deep);
	free(binder);
	free(small);
	free(big);
}

int main(void)
{
	RUN(test_cxx);
	RUN(test_rust_legacy);
	RUN(test_rust_v0);
	RUN(test_not_mangled);
	RUN(test_rust_v0_malformed);
	RUN(test_rust_v0_truncated);
	RUN(test_rust_v0_limits);
	return test_summary();
}
