// runtime/thread_heap.cpp: a worker's heap is advised for huge pages, the 2 MiB its arena
// touched before the advice is collapsed into one, memory allocated on it afterwards is in the
// advised region and works, and a thread on the main heap is left alone.

#include "runtime/thread_heap.hpp"

#include <QtTest>

#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <vector>

using namespace tideline;

namespace {

/// The line starting with `field` of the mapping that holds p in /proc/self/smaps ("" if none).
std::string smapsLineOf(const void *p, const char *field)
{
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        unsigned long a = 0, b = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx ", &a, &b) == 2 && line.find('-') < 17) {
            inside = at >= a && at < b;
            continue;
        }
        if (inside && line.rfind(field, 0) == 0)
            return line;
    }
    return {};
}

/// The VmFlags line of the mapping that holds p ("" if none).
std::string vmFlagsOf(const void *p)
{
    return smapsLineOf(p, "VmFlags:");
}

/// The AnonHugePages of the mapping that holds p, in kB (-1 if none).
long anonHugeKbOf(const void *p)
{
    long kb = -1;
    const std::string line = smapsLineOf(p, "AnonHugePages:");
    if (line.empty() || std::sscanf(line.c_str(), "AnonHugePages: %ld kB", &kb) != 1)
        return -1;
    return kb;
}

/// Whether this kernel collapses a touched 2 MiB into a huge page on request (MADV_COLLAPSE,
/// Linux 6.1+, and a free huge page at the moment).
bool collapseWorks()
{
    const std::size_t huge = 2u << 20;
    void *m = mmap(nullptr, 2 * huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return false;
    auto *aligned = reinterpret_cast<char *>((reinterpret_cast<std::uintptr_t>(m) + huge - 1)
                                             & ~std::uintptr_t(huge - 1));
    aligned[0] = 1;
    const bool ok = madvise(aligned, huge, MADV_HUGEPAGE) == 0 && madvise(aligned, huge, 25) == 0;
    munmap(m, 2 * huge);
    return ok;
}

bool transparentHugePagesAvailable()
{
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string mode;
    std::getline(f, mode);
    return !mode.empty() && mode.find("[never]") == std::string::npos;
}

} // namespace

class TestThreadHeap : public QObject
{
    Q_OBJECT

private slots:
    void theArenasFirstTwoMiBBecomesOneHugePage()
    {
        // A worker's arena is made by the call's own probe, its header touched before the
        // advice: that 2 MiB is 4 KiB pages unless it is collapsed (~450 page faults per
        // worker in a run's first rounds otherwise).
        if (!transparentHugePagesAvailable())
            QSKIP("transparent huge pages are off on this machine: the advice does nothing");
        if (!collapseWorks())
            QSKIP("this kernel (or its memory at the moment) does not collapse on request");
        // First of the tests, so that no thread has ended yet: a thread gets the arena of one
        // that ended, and this one needs a fresh arena. The process-wide malloc settings are
        // made first (the call on the main thread changes nothing else), as by a pool's first
        // worker: the arena is then made with room for a 2 MiB page.
        parallel::preferHugePagesForThisThreadsHeap();
        long before = -1, after = -1;
        std::string flagsBefore, flagsAfter;
        std::thread worker([&] {
            void *p = std::malloc(64); // a fresh arena, its header touched before the advice
            before = anonHugeKbOf(p);
            flagsBefore = vmFlagsOf(p);
            parallel::preferHugePagesForThisThreadsHeap();
            after = anonHugeKbOf(p); // nothing touched in between: only a collapse makes it
            flagsAfter = vmFlagsOf(p);
            std::free(p);
        });
        worker.join();
        QVERIFY2(flagsBefore.find(" hg") == std::string::npos, flagsBefore.c_str());
        QVERIFY2(flagsAfter.find(" hg") != std::string::npos, flagsAfter.c_str());
        QCOMPARE(before, 0L);
        QVERIFY2(after >= 2048, std::to_string(after).c_str());
    }

    void aWorkersHeapIsAdvised()
    {
        if (!transparentHugePagesAvailable())
            QSKIP("transparent huge pages are off on this machine: the advice does nothing");
        // (That the arena was not advised before the call is checked by the test above, which
        // alone gets a fresh arena: this thread may take the one that test's thread left.)
        std::string flags;
        bool filled = true;
        std::thread worker([&] {
            void *first = std::malloc(64); // the thread's arena
            parallel::preferHugePagesForThisThreadsHeap();
            // A round's worth of memory, allocated and written after the advice.
            std::vector<char> round(8 << 20);
            std::memset(round.data(), 0x5a, round.size());
            flags = vmFlagsOf(round.data());
            for (std::size_t i = 0; i < round.size(); i += 4096)
                filled &= round[i] == 0x5a;
            std::free(first);
        });
        worker.join();
        QVERIFY2(flags.find(" hg") != std::string::npos, flags.c_str());
        QVERIFY(filled);
    }

    void theMainHeapIsLeftAlone()
    {
        // The main thread allocates from "[heap]" (brk): the advice would reach only the part
        // grown so far, so it is not given; the call must still be harmless.
        void *p = std::malloc(64);
        parallel::preferHugePagesForThisThreadsHeap();
        QVERIFY(vmFlagsOf(p).find(" hg") == std::string::npos);
        std::free(p);
    }
};

QTEST_GUILESS_MAIN(TestThreadHeap)
#include "test_thread_heap.moc"
