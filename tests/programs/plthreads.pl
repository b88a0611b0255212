# SPDX-License-Identifier: GPL-2.0-only
# plthreads.pl [SECONDS]: Perl frames of known chains on three threads
# (ithreads: each thread an interpreter of its own).
#
# - thread alpha: alpha_main -> a1 -> a2 -> spin_alpha -> burn
# - thread beta:  beta_main -> b1 -> spin_beta -> burn, and a recursion:
#                 beta_main -> rec x 7 -> spin_beta -> burn
# - the main thread: the main program -> sorter -> sort { cmp_fn } (pp_sort,
#   C, calls the BLOCK back) -> cmp_fn -> keyfn -> spin_key -> burn
# Each chain burns CPU in burn's loop, in pure Perl.
use strict;
use warnings;
use threads;
use Time::HiRes qw(time);

my $end = time + (@ARGV ? $ARGV[0] : 3);

sub burn {
	my ($n) = @_;
	my $x = 0;
	for my $i (1 .. $n) {
		$x = ($x * 31 + $i) % 1000003;
	}
	return $x;
}

sub spin_alpha { return burn(2000) }
sub a2 { return spin_alpha() }
sub a1 { return a2() }

sub alpha_main {
	a1() while time < $end;
	return 0;
}

sub spin_beta { return burn(2000) }
sub b1 { return spin_beta() }

sub rec {
	my ($n) = @_;
	return spin_beta() if $n == 1;
	return rec($n - 1);
}

sub beta_main {
	while (time < $end) {
		b1();
		rec(7);
	}
	return 0;
}

sub spin_key { return burn(200) + $_[0] }
sub keyfn { return spin_key($_[0]) }
sub cmp_fn { return keyfn($_[0]) <=> keyfn($_[1]) }

sub sorter {
	my $n = 0;
	while (time < $end) {
		my @sorted = sort { cmp_fn($a, $b) } map { ($_ * 7919) % 64 } 1 .. 64;
		$n += $sorted[0];
	}
	return $n;
}

my @threads = map { threads->create($_) } \&alpha_main, \&beta_main;
sorter();
$_->join for @threads;
