# SPDX-License-Identifier: GPL-2.0-only
# plevals.pl [SECONDS]: Perl code run by a string eval and by require, each a
# frame of its own: the main program -> via_eval -> eval "leaf()" -> leaf,
# and the main program -> via_require -> require PlSpin (whose file's own
# code spins at its load), each for half of SECONDS.
use strict;
use warnings;
use Time::HiRes qw(time);

my $seconds = @ARGV ? $ARGV[0] : 2;
my $end = time + $seconds / 2;

sub leaf {
	my $x = 0;
	$x = ($x * 31 + $_) % 1000003 for 1 .. 30000;
	return $x;
}

sub via_eval { return eval "leaf() + 1" }

# PlSpin's file is written in a directory of its own, then loaded: its own
# code runs in the require's frame.
sub via_require {
	my $dir = "/tmp/plevals.$$";
	my $file = "$dir/PlSpin.pm";
	mkdir($dir) or die "$dir: $!";
	open(my $f, ">", $file) or die "$file: $!";
	print $f "package PlSpin;\nmy (\$t, \$x) = (time(), 0);\n",
		"\$x = (\$x * 31 + 7) % 1000003 while time() - \$t < $_[0];\n1;\n";
	close($f) or die "$file: $!";
	require $file;
	unlink($file);
	rmdir($dir);
	return 1;
}

via_eval() while time < $end;
via_require(int($seconds / 2) || 1);
