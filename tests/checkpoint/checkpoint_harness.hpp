#pragma once
// What the in-process checkpoint tests share: a Harness that makes jobs of the fixture
// pipeline (pipeline_fixture.hpp) in a temp folder with a ManualClock and captures the log,
// the fixture's outputs collected and compared (lost and extra lines named), the reference
// output of an uninterrupted run, and the complete checkpoint ids of a folder.

#include "../support/test_support.hpp"
#include "checkpoint/coordinator.hpp"
#include "fixture_outputs.hpp"
#include "pipeline_fixture.hpp"
#include "table_dump.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/time.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace tideline::cptest {

namespace fs = std::filesystem;

inline void compareOutputs(const Outputs &got, const Outputs &want)
{
    for (const auto &[file, lines] : want.files) {
        const auto &g = got.files.at(file);
        if (g != lines) {
            std::vector<std::string> lost, extra;
            std::set_difference(lines.begin(), lines.end(), g.begin(), g.end(),
                                std::back_inserter(lost));
            std::set_difference(g.begin(), g.end(), lines.begin(), lines.end(),
                                std::back_inserter(extra));
            QFAIL(qPrintable(
                QString::fromStdString(file)
                + QString(": %1 lost, %2 duplicated/extra (of %3); first lost: %4; first extra: %5")
                      .arg(lost.size())
                      .arg(extra.size())
                      .arg(lines.size())
                      .arg(lost.empty() ? QString() : QString::fromStdString(lost[0]))
                      .arg(extra.empty() ? QString() : QString::fromStdString(extra[0]))));
        }
    }
    QCOMPARE(got.table.size(), want.table.size());
    QVERIFY(got.table == want.table);
}

/// The checkpoint tests' job maker (tests/support): slices of 2,000 records.
using Harness = tideline::testing::JobHarness;

inline Outputs reference(std::int64_t count)
{
    Harness h;
    FixtureOptions fo;
    fo.count = count;
    std::string error;
    auto job = h.make(fixturePipeline(fo), error);
    if (!job)
        qFatal("reference: %s", error.c_str());
    if (job->run() != Job::Status::Finished)
        qFatal("reference run failed: %s", job->failure().c_str());
    job.reset();
    return collect(h.dir());
}

using tideline::testing::completeIds;

} // namespace tideline::cptest
