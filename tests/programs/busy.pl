# SPDX-License-Identifier: GPL-2.0-only
# busy.pl [SECONDS]: a CPU loop for SECONDS (default 3) through the parts of
# perl with native stacks of their own: regular expressions, sort with a
# comparator block, hashes, sprintf, split and join.
use strict;
use warnings;
use Time::HiRes qw(time);

sub round_of_work {
	my ($i) = @_;
	my @recs = map { sprintf("rec%04d:%d:%s", $_, $_ * 7919 % 1000, "x" x ($_ % 9)) } 0 .. 299;
	my $text = join(",", @recs);
	my %count;
	while ($text =~ /rec(\d+):(\d+)/g) {
		$count{ $2 % 17 } += $1;
	}
	my @sorted = sort { (split /:/, $a)[1] <=> (split /:/, $b)[1] or $a cmp $b } @recs;
	my $sum = 0;
	$sum += $_ for values %count;
	return $sum + scalar(@sorted) + length($text) + $i;
}

my $end = time + (@ARGV ? $ARGV[0] : 3);
my ($i, $acc) = (0, 0);
while (time < $end) {
	$acc += round_of_work($i);
	$i++;
}
print "$i rounds, $acc\n";
