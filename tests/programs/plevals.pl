# SPDX-License-Identifier: GPL-2.0-only
# plevals.pl [SECONDS]: Perl code run by a string eval, by require and in map
# and grep BLOCKs, each a frame of its own: the main program -> via_eval ->
# eval "leaf() + ..." -> leaf, via_map -> map { map_leaf($_) } -> map_leaf,
# via_grep -> grep { grep_leaf($_) } -> grep_leaf, half of SECONDS, then the
# main program -> via_require -> require PlSpin (whose file's own code spins
# at its load) for the rest.
use strict;
use warnings;
use Time::HiRes qw(time);

my $seconds = @ARGV ? $ARGV[0] : 3;
my $end = time + $seconds / 2;

sub leaf {
	my $x = 0;
	$x = ($x * 31 + $_) % 1000003 for 1 .. 30000;
	return $x;
}

sub map_leaf { return leaf() + $_[0] }
sub grep_leaf { return (leaf() + $_[0]) % 2 }

sub via_eval { return eval "leaf() + leaf() + leaf()" }
sub via_map { my @r = map { map_leaf($_) } 1 .. 3; return scalar(@r) }
sub via_grep { my @r = grep { grep_leaf($_) } 1 .. 3; return scalar(@r) }

# PlSpin's file is written in a directory of its own, then loaded: its own
# code runs in the require's frame.
sub via_require {
	my $dir = "/tmp/plevals.$$";
	my $file = "$dir/PlSpin.pm";
	mkdir($dir) or die "$dir: $!";
	open(my $f, ">", $file) or die "$file: $!";
	print $f "package PlSpin;\nuse Time::HiRes qw(time);\nmy (\$t, \$x) = (time(), 0);\n",
		"\$x = (\$x * 31 + 7) % 1000003 while time() - \$t < $_[0];\n1;\n";
	close($f) or die "$file: $!";
	require $file;
	unlink($file);
	rmdir($dir);
	return 1;
}

while (time < $end) {
	via_eval();
	via_map();
	via_grep();
}
via_require(int($seconds / 2) || 1);
