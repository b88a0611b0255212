# SPDX-License-Identifier: GPL-2.0-only
# plcatch.pl [SECONDS]: an eval {} in a sort BLOCK. pp_sort sets Perl's CATCH,
# so the eval runs what it calls in a run loop of its own (docatch): the
# main program -> sorter -> sort { eval { cmp_eval } } (pp_sort calls the
# BLOCK back in a run loop, whose eval runs cmp_eval in another) -> cmp_eval
# -> leaf, three activations of the run loop.
use strict;
use warnings;
use Time::HiRes qw(time);

my $end = time + (@ARGV ? $ARGV[0] : 2);

sub leaf {
	my $x = 0;
	$x = ($x * 31 + $_) % 1000003 for 1 .. 300;
	return $x;
}

sub cmp_eval { return leaf() <=> leaf() }

sub sorter {
	my $n = 0;
	while (time < $end) {
		my @sorted = sort { eval { cmp_eval() } } 1 .. 32;
		$n += $sorted[0];
	}
	return $n;
}

sorter();
