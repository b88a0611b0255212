<?php
// SPDX-License-Identifier: GPL-2.0-only
// phevals.php [SECONDS]: PHP frames of the code an eval() and an include
// run, each a frame of its own between the function that runs it and the
// function it calls:
//
// - {main} -> via_eval -> {eval} -> leaf
// - {main} -> via_include -> {include} -> leaf (a file written at the start)

function leaf(): int
{
	$x = 0;
	for ($i = 1; $i <= 3000; $i++) {
		$x = ($x * 31 + $i) % 1000003;
	}
	return $x;
}

function via_eval(): int
{
	return eval('return leaf();');
}

function via_include(string $file): int
{
	return include $file;
}

$seconds = (float)($argv[1] ?? 3);
$file = tempnam(sys_get_temp_dir(), 'phevals');
file_put_contents($file, "<?php\nreturn leaf();\n");
$end = microtime(true) + $seconds;
while (microtime(true) < $end) {
	via_eval();
	via_include($file);
}
unlink($file);
