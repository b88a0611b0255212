// SPDX-License-Identifier: GPL-2.0-only
/*
 * java JavaChain SECONDS: two threads of known chains, until SECONDS have
 * passed (java_frames.sh runs it):
 *  - "interp": Interp.run -> interpTop -> interpMid -> interpLeaf, which the
 *    test keeps interpreted (-XX:CompileCommand=exclude,JavaChain::interp*);
 *  - "compiled": Compiled.run -> compTop -> compMid -> compLeaf, compiled
 *    by the JIT, C2 inlining some into others;
 *  - "sorter": Sorter.run -> sortOnce -> the JDK's Arrays.sort, whose
 *    TimSort calls back a lambda's compare -> lambda$sortOnce$0 -> sortKey;
 *  - "sleeper": Sleeper.run -> nap -> Thread.sleep, and -> waitOn ->
 *    Object.wait, blocked (an off-CPU recording's).
 * Prints "pid PID" first.
 */
import java.util.Arrays;

public class JavaChain {
	static volatile long sink;

	static long interpLeaf(int n)
	{
		long x = 1;

		for (int i = 0; i < n; i++)
			x = x * 31 + i;
		return x;
	}

	static long interpMid(int n)
	{
		return interpLeaf(n) + 1;
	}

	static long interpTop(int n)
	{
		return interpMid(n) + 1;
	}

	static long compLeaf(int n)
	{
		long x = 1;

		for (int i = 0; i < n; i++) {
			x = x * 6364136223846793005L + 1442695040888963407L;
			x ^= x >>> 29;
		}
		return x;
	}

	static long compMid(int n)
	{
		return compLeaf(n) + 1;
	}

	static long compTop(int n)
	{
		return compMid(n) + 1;
	}

	static int sortKey(int v)
	{
		int x = v;

		for (int i = 0; i < 200; i++)
			x = x * 1103515245 + 12345;
		return x;
	}

	static long sortOnce(Integer[] a)
	{
		Arrays.sort(a, (p, q) -> Integer.compare(sortKey(p), sortKey(q)));
		return a[0];
	}

	static class Sorter extends Thread {
		final long end;

		Sorter(long end)
		{
			super("sorter");
			this.end = end;
		}

		public void run()
		{
			Integer[] a = new Integer[256];

			while (System.nanoTime() < end) {
				for (int i = 0; i < a.length; i++)
					a[i] = (i * 7919) % 256;
				sink += sortOnce(a);
			}
		}
	}

	static void nap() throws InterruptedException
	{
		Thread.sleep(2);
	}

	static void waitOn(Object lock) throws InterruptedException
	{
		synchronized (lock) {
			lock.wait(2);
		}
	}

	static class Sleeper extends Thread {
		final long end;

		Sleeper(long end)
		{
			super("sleeper");
			this.end = end;
		}

		public void run()
		{
			Object lock = new Object();

			try {
				while (System.nanoTime() < end) {
					nap();
					waitOn(lock);
				}
			} catch (InterruptedException e) {
				return;
			}
		}
	}

	static class Interp extends Thread {
		final long end;

		Interp(long end)
		{
			super("interp");
			this.end = end;
		}

		public void run()
		{
			while (System.nanoTime() < end)
				sink += interpTop(2000);
		}
	}

	static class Compiled extends Thread {
		final long end;

		Compiled(long end)
		{
			super("compiled");
			this.end = end;
		}

		public void run()
		{
			while (System.nanoTime() < end)
				sink += compTop(200000);
		}
	}

	public static void main(String[] args) throws InterruptedException
	{
		long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
		Thread a = new Interp(end), b = new Compiled(end), c = new Sorter(end);
		Thread d = new Sleeper(end);

		System.out.println("pid " + ProcessHandle.current().pid());
		System.out.flush();
		a.start();
		b.start();
		c.start();
		d.start();
		a.join();
		b.join();
		c.join();
		d.join();
	}
}
