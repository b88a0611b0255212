// SPDX-License-Identifier: GPL-2.0-only
/*
 * inline-cxx [SECONDS]: C++ whose templates and members the compiler
 * inlined (std::sort, std::vector, a class template's member), built with -g
 * for the oracle of source lines and inlined frames: their names are
 * demangled from the linkage names of the DWARF.
 */
#include <algorithm>
#include <vector>

#include "workload.h"

namespace demo {
template <class T> struct Mixer {
	T seed;
	T mix(T x) const
	{
		return (x ^ seed) * 0x9e3779b97f4a7c15ULL;
	}
};
} // namespace demo

NOINLINE static unsigned long sort_round(std::vector<unsigned long> &v, unsigned long seed)
{
	demo::Mixer<unsigned long> m{ seed };

	for (auto &x : v)
		x = m.mix(x);
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

int main(int argc, char **argv)
{
	std::vector<unsigned long> v(4096);
	unsigned long h = 0;

	workload_start(argc, argv, 1, 1.0);
	for (size_t i = 0; i < v.size(); i++)
		v[i] = i;
	while (workload_running()) {
		h ^= sort_round(v, h + 1);
		KEEP();
	}
	workload_sink = h;
	return 0;
}
