<?php
// SPDX-License-Identifier: GPL-2.0-only
// phchain.php [SECONDS [EXCIMER_OUT]]: PHP frames of known chains, each
// burning CPU in burn's loop, in pure PHP.
//
// - {main} -> c1 -> c2 -> burn
// - {main} -> Sorter::run -> usort (C, calls cmp back) -> Sorter::cmp
//   -> keyfn -> burn
// - {main} -> mapper -> array_map (C, calls the closure back) -> {closure}
//   -> burn
//
// With EXCIMER_OUT, excimer (a sampling profiler inside PHP) samples the
// run every millisecond of CPU and writes its stacks there, collapsed.

function burn(int $n): int
{
	$x = 0;
	for ($i = 1; $i <= $n; $i++) {
		$x = ($x * 31 + $i) % 1000003;
	}
	return $x;
}

function c2(): int
{
	return burn(4000);
}

function c1(): int
{
	return c2();
}

function keyfn(int $v): int
{
	return burn(300) + $v;
}

class Sorter
{
	public function cmp(int $a, int $b): int
	{
		return keyfn($a) <=> keyfn($b);
	}

	public function run(): int
	{
		$a = range(1, 12);
		usort($a, [$this, 'cmp']);
		return count($a);
	}
}

function mapper(): int
{
	$f = function (int $v): int {
		return burn(1000) + $v;
	};
	return array_sum(array_map($f, [1, 2, 3, 4]));
}

$seconds = (float)($argv[1] ?? 3);
$out = $argv[2] ?? null;
if ($out !== null) {
	$prof = new ExcimerProfiler();
	$prof->setPeriod(0.001);
	$prof->setEventType(EXCIMER_CPU);
	$prof->start();
}
$end = microtime(true) + $seconds;
$sorter = new Sorter();
while (microtime(true) < $end) {
	c1();
	$sorter->run();
	mapper();
}
if ($out !== null) {
	$prof->stop();
	file_put_contents($out, $prof->flush()->formatCollapsed());
}
