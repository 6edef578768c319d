// runtime/write_prefetch.hpp: PREFETCHW is used exactly when the CPU says it has it (CPUID,
// as Linux reports it: the `3dnowprefetch` flag), and asking for a line never changes memory
// or faults, whatever the address (route() asks for lines up to a buffer's capacity).

#include "runtime/write_prefetch.hpp"

#include <QtTest>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace tideline::parallel;

namespace {

/// 1 when /proc/cpuinfo's first `flags` line lists `flag`, 0 when not, -1 without one.
int cpuinfoHas(const std::string &flag)
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("flags", 0) != 0)
            continue;
        std::istringstream words(line.substr(line.find(':') + 1));
        std::string w;
        while (words >> w)
            if (w == flag)
                return 1;
        return 0;
    }
    return -1;
}

} // namespace

class TestWritePrefetch : public QObject
{
    Q_OBJECT

private slots:
    void detectionAgreesWithTheKernel()
    {
#if defined(__x86_64__) || defined(__i386__)
        const int listed = cpuinfoHas("3dnowprefetch");
        if (listed < 0)
            QSKIP("no /proc/cpuinfo flags line");
        QCOMPARE(detail::kHasPrefetchW, listed == 1);
#else
        QSKIP("PREFETCHW is x86's");
#endif
    }

    void askingForALineLeavesItAsItWas()
    {
        std::vector<char> bytes(4096);
        for (std::size_t i = 0; i < bytes.size(); ++i)
            bytes[i] = static_cast<char>(i * 7);
        for (std::size_t i = 0; i < bytes.size(); i += 64)
            prefetchForWrite(bytes.data() + i);
        for (std::size_t i = 0; i < bytes.size(); ++i)
            QCOMPARE(bytes[i], static_cast<char>(i * 7));
    }

    void anAddressNothingIsMappedAtDoesNotFault()
    {
        prefetchForWrite(nullptr);
        prefetchForWrite(reinterpret_cast<const void *>(std::uintptr_t{0xdead0000}));
        QVERIFY(true); // reaching here is the test: a prefetch is a hint, never a load
    }
};

QTEST_APPLESS_MAIN(TestWritePrefetch)
#include "test_write_prefetch.moc"
