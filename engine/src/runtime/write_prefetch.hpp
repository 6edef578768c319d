#pragma once
// prefetchForWrite: asks for a cache line in the state a store needs (owned), some stores
// ahead of the store.
//
// Why: a fused round's items (parallel_round.hpp) are written on the core that made the chunk
// and read on the core of their instance. When a later chunk reuses the round's buffers, every
// line it stores to is still in the reader's cache, so each store waits for the line's
// ownership to come over from the other core (a read-for-ownership, 100 ns and more between
// this VM's vCPUs). A few of those fill the store buffer, and then every store waits, the
// parser's own stack and record stores included: in perf, FastParser::object took 60 % longer
// with both cores busy than pinned to one, and not at all when the instances left the items
// unread. PREFETCHW starts the transfer while the records before are made (file-window at
// parallelism 2: 22 % more events/s, docs/benchmarks.md "Session 17").
//
// PREFETCHW is x86's since AMD's K6 and Intel's Broadwell; older CPUs may not know the opcode,
// so it is asked of CPUID once. Without it (and off x86) a plain prefetch brings the line in
// shared, half of the trip.

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace tideline::parallel {

namespace detail {
#if defined(__x86_64__) || defined(__i386__)
inline bool detectPrefetchW()
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid(0x80000001u, &a, &b, &c, &d) != 0 && (c & (1u << 8)) != 0;
}
inline const bool kHasPrefetchW = detectPrefetchW();
#endif
} // namespace detail

[[gnu::always_inline]] inline void prefetchForWrite(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
    if (detail::kHasPrefetchW) {
        asm volatile("prefetchw %0" ::"m"(*static_cast<const char *>(p)));
        return;
    }
#endif
    __builtin_prefetch(p, 1, 3);
}

} // namespace tideline::parallel
