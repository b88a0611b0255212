# SPDX-License-Identifier: GPL-2.0-only
# plshares.pl [SECONDS]: three subs whose exclusive times are 3:2:1, each
# call a few milliseconds of pure Perl, so that a profiler's cost per call
# (Devel::NYTProf's) is small against it: the reference of the subs'
# exclusive shares of time.
use strict;
use warnings;
use Time::HiRes qw(time);

sub heavy {
	my $x = 0;
	$x = ($x * 31 + $_) % 1000003 for 1 .. 30000;
	return $x;
}

sub medium {
	my $x = 0;
	$x = ($x * 31 + $_) % 1000003 for 1 .. 20000;
	return $x;
}

sub light {
	my $x = 0;
	$x = ($x * 31 + $_) % 1000003 for 1 .. 10000;
	return $x;
}

my $end = time + (@ARGV ? $ARGV[0] : 3);
my $sum = 0;
$sum += heavy() + medium() + light() while time < $end;
print "$sum\n";
