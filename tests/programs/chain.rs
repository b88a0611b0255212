// SPDX-License-Identifier: GPL-2.0-only
//
// chain-rust [SECONDS]: main -> f1 -> ... -> f8 -> leaf, repeated for SECONDS
// (default 3): the Rust twin of tests/workloads/chain.c.
//
// leaf does most of the work, every f<n> a little, so nearly all samples stop
// in leaf with the whole chain under it. Built with plain `rustc -O`: no frame
// pointers, linked the way rustc links by default. #[inline(never)] keeps
// each function a frame; using the result after each call keeps the call
// from becoming a tail jump. It builds with Debian 12's rustc (1.63) too.
use std::time::{Duration, Instant};

/// x, through memory the compiler cannot see through (std::hint::black_box
/// is only stable since Rust 1.66).
#[inline(always)]
fn black_box(x: u64) -> u64 {
    // SAFETY: a read of a local the function owns.
    unsafe { std::ptr::read_volatile(&x) }
}

/// A few rounds of integer mixing: the work each frame does.
#[inline(always)]
fn mix(mut x: u64, rounds: u32) -> u64 {
    for _ in 0..rounds {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x ^= x >> 29;
        x = black_box(x);
    }
    x
}

#[inline(never)]
fn leaf(x: u64) -> u64 {
    mix(x, 20000)
}

/// f<n>: a little work, then the next function; the sum keeps the call a call.
macro_rules! chain_step {
    ($name:ident, $next:ident) => {
        #[inline(never)]
        fn $name(x: u64) -> u64 {
            let x = mix(x, 16);
            let r = black_box($next(x));
            r.wrapping_add(x)
        }
    };
}

chain_step!(f8, leaf);
chain_step!(f7, f8);
chain_step!(f6, f7);
chain_step!(f5, f6);
chain_step!(f4, f5);
chain_step!(f3, f4);
chain_step!(f2, f3);
chain_step!(f1, f2);

fn main() {
    let secs = match std::env::args().nth(1) {
        None => 3.0,
        Some(s) => match s.parse::<f64>() {
            Ok(v) if v >= 0.0 => v,
            _ => {
                eprintln!("chain-rust: bad run time '{}' (seconds)", s);
                std::process::exit(64);
            }
        },
    };
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let mut x = 1u64;
    while Instant::now() < end {
        x = black_box(f1(x));
    }
    black_box(x);
}
