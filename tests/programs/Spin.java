// SPDX-License-Identifier: GPL-2.0-only
/*
 * java Spin SECONDS: a loop the JIT compiles, work(int), called from main
 * until SECONDS have passed, so that nearly every sample of the main thread
 * is in compiled code. Prints "pid PID" first.
 */
public class Spin {
	static long work(int n)
	{
		long x = 1;

		for (int i = 0; i < n; i++) {
			x = x * 6364136223846793005L + 1442695040888963407L;
			x ^= x >>> 29;
		}
		return x;
	}

	public static void main(String[] args)
	{
		double secs = args.length > 0 ? Double.parseDouble(args[0]) : 3;
		long end = System.nanoTime() + (long)(secs * 1e9);
		long sink = 0;

		System.out.println("pid " + ProcessHandle.current().pid());
		System.out.flush();
		while (System.nanoTime() < end)
			sink += work(100000);
		System.out.println("done " + sink);
	}
}
