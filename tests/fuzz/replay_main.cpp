// The normal suite's side of the fuzzers: runs one harness (linked in) over every file of the
// folders given on the command line (the committed seed corpus and the regression inputs),
// without libFuzzer or sanitizers. A property that fails aborts, so the test fails.

//
// libFuzzer reports a single allocation above -malloc_limit_mb (= -rss_limit_mb, 2048 MiB) as
// an out-of-memory: a length or count trusted from the input. The replay checks the same limit
// in its operator new, so such an input fails here too, even where the allocation would not
// (a reserve() that never touches its pages succeeds without sanitizers).

#include "fuzz_common.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <new>
#include <vector>

namespace {

constexpr std::size_t kMallocLimit = std::size_t{2048} << 20; // libFuzzer's default, in bytes

void checkSize(std::size_t n)
{
    if (n > kMallocLimit) {
        std::fprintf(stderr,
                     "property failed: an allocation of %zu bytes (above libFuzzer's "
                     "malloc limit of 2048 MiB): a size trusted from the input\n",
                     n);
        std::abort();
    }
}

void *allocate(std::size_t n, std::size_t align)
{
    checkSize(n);
    void *p = nullptr;
    if (align <= alignof(std::max_align_t))
        p = std::malloc(n == 0 ? 1 : n);
    else if (posix_memalign(&p, align, n == 0 ? align : n) != 0)
        p = nullptr;
    if (!p)
        throw std::bad_alloc();
    return p;
}

} // namespace

void *operator new(std::size_t n)
{
    return allocate(n, 0);
}
void *operator new[](std::size_t n)
{
    return allocate(n, 0);
}
void *operator new(std::size_t n, std::align_val_t a)
{
    return allocate(n, std::size_t(a));
}
void *operator new[](std::size_t n, std::align_val_t a)
{
    return allocate(n, std::size_t(a));
}
void operator delete(void *p) noexcept
{
    std::free(p);
}
void operator delete[](void *p) noexcept
{
    std::free(p);
}
void operator delete(void *p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete[](void *p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete(void *p, std::align_val_t) noexcept
{
    std::free(p);
}
void operator delete[](void *p, std::align_val_t) noexcept
{
    std::free(p);
}
void operator delete(void *p, std::size_t, std::align_val_t) noexcept
{
    std::free(p);
}
void operator delete[](void *p, std::size_t, std::align_val_t) noexcept
{
    std::free(p);
}

int main(int argc, char **argv)
{
    namespace fs = std::filesystem;
    if (argc == 3 && std::string_view(argv[1]) == "--write-seeds") {
        if (!fuzzWriteSeeds) {
            std::cerr << "this harness has no binary seeds\n";
            return 2;
        }
        fuzzWriteSeeds(argv[2]);
        return 0;
    }
    std::vector<fs::path> files;
    for (int i = 1; i < argc; ++i) {
        const fs::path p(argv[i]);
        if (fs::is_regular_file(p)) {
            files.push_back(p);
            continue;
        }
        if (!fs::is_directory(p)) {
            std::cerr << "no such corpus folder: " << p << "\n";
            return 2;
        }
        for (const auto &e : fs::recursive_directory_iterator(p))
            if (e.is_regular_file())
                files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto &f : files) {
        std::ifstream in(f, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size());
    }
    std::cout << "replayed " << files.size() << " inputs\n";
    return files.empty() ? 1 : 0;
}
