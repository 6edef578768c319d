// Why: a parallel run's workers fill rounds (a copy of each line, the 64-byte items, the
// aggregate inputs, the firings' outputs) that rotate, several in flight; each is memory the
// worker touches for the first time until every round has been used once. On the 6 Dec AMD VM
// a page fault costs 7-16 us (a paravirtualized kernel), and file-window at parallelism 2 took
// 6,300 of them (1,400 at parallelism 1): the warm-up cost more CPU than the run's parsing
// (docs/benchmarks.md, "Session 16"). With 2 MiB pages the same memory is a few dozen faults.
//
// How: glibc gives each thread an arena, a heap reserved as one aligned region (mapped
// PROT_NONE) whose front it makes readable as the arena grows (mprotect), by the request plus
// M_TOP_PAD. Transparent huge pages need the advice on the region (Debian's default is
// "madvise") and a whole aligned 2 MiB inside the readable part when it is touched: so the
// region is advised once, from /proc/self/maps (the mapping that holds a fresh allocation of
// this thread and the reservation behind it), and M_TOP_PAD grows arenas by 16 MiB. The
// arena then keeps what it grew (M_TRIM_THRESHOLD), instead of giving pages back when a round
// is freed only to fault them in again. Large blocks stay in the arena (M_MMAP_THRESHOLD at
// glibc's maximum): a block mmap'ed per allocation is fresh pages every time.
//
// All of it is advice: with another allocator, THP off ("never"), or where the thread shares
// the main heap, the calls change nothing and the run is as before. Outputs never depend on
// it. Process-wide settings are made once, by the first worker (the designer's process too,
// once it runs a parallel pipeline).

#include "runtime/thread_heap.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <mutex>
#include <sys/mman.h>

namespace tideline::parallel {

namespace {

constexpr int kTopPad = 16 << 20;
constexpr int kTrimThreshold = 64 << 20;
constexpr int kMmapThreshold = 32 << 20; // glibc's largest (DEFAULT_MMAP_THRESHOLD_MAX)
constexpr std::uintptr_t kHugePage = 2u << 20;
#ifdef MADV_COLLAPSE
constexpr int kMadvCollapse = MADV_COLLAPSE;
#else
constexpr int kMadvCollapse = 25; // Linux 6.1's value; glibc 2.36's headers predate it
#endif

/// The mapping that holds `p` and, when the next one starts where it ends and is not
/// accessible (the arena's reserved rest), that one too: [from, to). False when not found.
bool heapRegionOf(std::uintptr_t p, std::uintptr_t &from, std::uintptr_t &to)
{
    std::FILE *maps = std::fopen("/proc/self/maps", "re");
    if (!maps)
        return false;
    char line[512];
    bool found = false;
    while (std::fgets(line, sizeof line, maps)) {
        unsigned long a = 0, b = 0;
        char perms[8] = {};
        if (std::sscanf(line, "%lx-%lx %7s", &a, &b, perms) != 3)
            continue;
        if (!found) {
            if (p < a || p >= b)
                continue;
            if (perms[0] != 'r' || perms[1] != 'w')
                break;
            // glibc's arenas are anonymous; the main heap is "[heap]" (grown by brk: a new
            // mapping per step, which this advice would not reach) and is left alone.
            if (std::strstr(line, "[heap]"))
                break;
            from = a;
            to = b;
            found = true;
            continue;
        }
        if (a == to && perms[0] == '-' && perms[1] == '-')
            to = b;
        break;
    }
    std::fclose(maps);
    return found;
}

} // namespace

void preferHugePagesForThisThreadsHeap()
{
    static std::once_flag settings;
    std::call_once(settings, [] {
        (void)mallopt(M_TOP_PAD, kTopPad);
        (void)mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
        (void)mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
    });
    void *probe = std::malloc(64); // this thread's arena, made now if it had none
    std::uintptr_t from = 0, to = 0;
    if (probe && heapRegionOf(reinterpret_cast<std::uintptr_t>(probe), from, to)) {
        (void)madvise(reinterpret_cast<void *>(from), to - from, MADV_HUGEPAGE);
        // The arena's header and the probe were touched before the advice: their 2 MiB is
        // already 4 KiB pages, and stays so (a huge page is only made for an untouched 2 MiB),
        // so it is collapsed into one now (Linux 6.1+; older kernels refuse, nothing changes).
        // Left as it was, it was ~450 faults per worker in a run's first rounds.
        if (from % kHugePage == 0 && to - from >= kHugePage)
            (void)madvise(reinterpret_cast<void *>(from), kHugePage, kMadvCollapse);
    }
    std::free(probe);
}

} // namespace tideline::parallel
