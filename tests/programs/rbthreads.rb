# SPDX-License-Identifier: GPL-2.0-only
# rbthreads.rb SECONDS: Ruby frames of known chains on three threads.
#
# - thread "alpha": alpha_main -> Alpha#a1 (a method) -> a2 -> spin_alpha
# - thread "beta":  beta_main -> b1 -> spin_beta, and recursion:
#                   beta_main -> rec(6) -> ... -> spin_beta
# - the main thread: <main> -> sorter -> Array#sort_by (C) -> block in sorter
#                    (a block called from C) -> keyfn -> spin_key
# Each spin_* burns CPU in pure Ruby, so its samples have the chain above it.
# The lines of burn's loop are BURN_FIRST..BURN_LAST (the test reads them).

END_AT = Process.clock_gettime(Process::CLOCK_MONOTONIC) + (ARGV[0] || 3).to_f

def now
  Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

def burn(n)
  x = 0
  i = 0
  while i < n # BURN_FIRST
    x += i * i % 7
    i += 1
  end # BURN_LAST
  x
end

def spin_alpha
  burn(20_000)
end

def a2
  spin_alpha
end

class Alpha
  def a1
    a2
  end
end

def alpha_main
  alpha = Alpha.new
  alpha.a1 while now < END_AT
end

def spin_beta
  burn(20_000)
end

def b1
  spin_beta
end

def rec(n)
  return spin_beta if n.zero?

  rec(n - 1)
end

def beta_main
  while now < END_AT
    b1
    rec(6)
  end
end

def spin_key(v)
  burn(3_000) + v
end

def keyfn(v)
  spin_key(v)
end

def sorter
  (0...50).to_a.sort_by { |v| keyfn(v) } while now < END_AT
end

threads = [Thread.new { alpha_main }, Thread.new { beta_main }]
threads[0].name = 'alpha'
threads[1].name = 'beta'
sorter
threads.each(&:join)
