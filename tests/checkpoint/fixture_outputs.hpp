#pragma once
// The fixture pipeline's outputs (pipeline_fixture.hpp) as a comparable value: each sink
// file's lines sorted (the order across keys may differ between runs, the set may not) and
// the upsert table's rows. Shared by the in-process checkpoint tests and the crash test.

#include "../support/test_support.hpp"
#include "pipeline_fixture.hpp"
#include "table_dump.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace tideline::cptest {

struct Outputs
{
    std::map<std::string, std::vector<std::string>> files; ///< sorted lines per file
    std::map<std::string, std::string> table;
};

inline Outputs collect(const std::string &dir)
{
    Outputs o;
    for (const char *f : kFixtureOutputs) {
        auto lines = tideline::testing::readLines(dir + "/" + f);
        std::sort(lines.begin(), lines.end());
        o.files[f] = std::move(lines);
    }
    o.table = dumpTable(dir + "/out/table");
    return o;
}

} // namespace tideline::cptest
