// runtime/thread_heap.cpp: a worker's heap is advised for huge pages, memory allocated on it
// afterwards is in the advised region and works, and a thread on the main heap is left alone.

#include "runtime/thread_heap.hpp"

#include <QtTest>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using namespace tideline;

namespace {

/// The VmFlags line of the mapping that holds p in /proc/self/smaps ("" if none).
std::string vmFlagsOf(const void *p)
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
        if (inside && line.rfind("VmFlags:", 0) == 0)
            return line;
    }
    return {};
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
    void aWorkersHeapIsAdvised()
    {
        if (!transparentHugePagesAvailable())
            QSKIP("transparent huge pages are off on this machine: the advice does nothing");
        std::string flags, before;
        bool filled = true;
        std::thread worker([&] {
            void *first = std::malloc(64); // the thread's arena, before the advice
            before = vmFlagsOf(first);
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
        QVERIFY2(before.find(" hg") == std::string::npos, before.c_str());
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
