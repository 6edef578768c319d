// The normal suite's side of the fuzzers: runs one harness (linked in) over every file of the
// folders given on the command line (the committed seed corpus and the regression inputs),
// without libFuzzer or sanitizers. A property that fails aborts, so the test fails.

#include "fuzz_common.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

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
