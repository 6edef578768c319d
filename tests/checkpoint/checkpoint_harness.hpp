#pragma once
// What the in-process checkpoint tests share: a Harness that makes jobs of the fixture
// pipeline (pipeline_fixture.hpp) in a temp folder with a ManualClock and captures the log,
// the fixture's outputs collected and compared (lost and extra lines named), the reference
// output of an uninterrupted run, and the complete checkpoint ids of a folder.

#include "../support/test_support.hpp"
#include "checkpoint/coordinator.hpp"
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

struct Harness
{
    tideline::testing::TempDir tmp;
    std::vector<std::string> logs;
    ManualClock clock;

    std::string dir() const { return tmp.path.string(); }
    std::string ckdir() const { return dir() + "/checkpoints"; }

    std::unique_ptr<Job> make(const std::string &json, std::string &error, JobOptions extra = {})
    {
        LoadResult loaded = loadSpec(json);
        if (!loaded.ok()) {
            error = "invalid pipeline";
            for (const auto &d : loaded.diagnostics)
                error += "\n" + d.format();
            return nullptr;
        }
        JobOptions o = std::move(extra);
        o.baseDir = dir();
        o.clock = &clock;
        o.log = [this](const std::string &l) {
            logs.push_back(l);
        };
        return Job::create(*loaded.spec, o, error);
    }
    bool logged(const std::string &needle) const
    {
        return std::any_of(logs.begin(), logs.end(), [&](const std::string &l) {
            return l.find(needle) != std::string::npos;
        });
    }
    std::string allLogs() const
    {
        std::string s;
        for (const auto &l : logs)
            s += l + "\n";
        return s;
    }
    /// Runs `records` source records in slices, moving the clock so checkpoints trigger.
    void advance(Job &job, std::int64_t records, std::int64_t slice = 2000, std::int64_t ms = 60)
    {
        for (std::int64_t done = 0; done < records; done += slice) {
            job.runFor(slice);
            clock.advance(ms);
        }
    }
};

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
