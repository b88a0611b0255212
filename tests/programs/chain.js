// A chain of JavaScript functions with a known order, for unwprof's V8
// frames (tests/programs/v8_frames.sh): main -> outer -> middle -> inner,
// whose loop takes the time, and main -> sorter -> Array.prototype.sort
// -> byKey, the comparator, under the sort's builtin frames.
'use strict';

function inner(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s = (s + i * i) % 1000003;
	return s;
}

function middle(n) {
	return inner(n) + 1;
}

function outer(n) {
	return middle(n) + 1;
}

function byKey(a, b) {
	let x = 0;
	for (let i = 0; i < 20; i++)
		x += (a.k ^ i) - (b.k ^ i);
	return x;
}

function sorter(items) {
	return items.slice().sort(byKey);
}

function main() {
	const seconds = Number(process.argv[2] || 3);
	const items = [];
	for (let i = 0; i < 3000; i++)
		items.push({ k: (i * 7919) % 2003 });
	const end = Date.now() + seconds * 1000;
	let sum = 0, rounds = 0;
	while (Date.now() < end) {
		sum += outer(100000);
		sum += sorter(items)[0].k;
		rounds++;
	}
	/* the work done in the time: the slowdown a profiler causes */
	console.log(`${sum > 0 ? rounds : 0} rounds`);
}

main();
