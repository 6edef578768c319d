// Issue 23 item 11, in process: with periodic checkpoints a sink.file's file holds only
// committed output. A reader never sees a row that a restore cuts off again; uncommitted
// output waits in hidden staging files; a job dropped between a durable manifest and the
// commit (the writer thread finished, the loop never published) is completed by the restore;
// the result is byte-identical to an uninterrupted run. Checkpoints run on their writer thread
// here (not TIDELINE_CHECKPOINT_SYNC), as in production, so the loop keeps writing while one
// is in flight.

#include "checkpoint_edit.hpp"

#include <QtTest>

#include <chrono>
#include <cstring>
#include <thread>

using namespace tideline;
using tideline::recoverytest::completeIds;
using tideline::recoverytest::copyPipeline;
using tideline::recoverytest::events;
using tideline::recoverytest::Harness;
using tideline::recoverytest::newestState;
namespace fs = std::filesystem;

namespace {

/// The output length the newest complete checkpoint committed (sink `out`'s first field).
std::uint64_t committedBytes(const std::string &ckdir)
{
    std::string s = newestState(ckdir, "out");
    std::uint64_t v = 0;
    if (s.size() >= 8)
        std::memcpy(&v, s.data(), 8);
    return v;
}

std::vector<std::string> stagingFiles(const std::string &dir)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (auto &e : fs::directory_iterator(dir, ec))
        if (e.path().filename().string().find(".pending-") != std::string::npos)
            out.push_back(e.path().filename().string());
    return out;
}

std::string referenceCopy(const std::string &input)
{
    Harness r;
    tideline::testing::writeFile(r.file("data.jsonl"), input);
    std::string error;
    auto job = r.make(copyPipeline(false), error);
    if (!job || job->run() != Job::Status::Finished)
        qFatal("reference run failed: %s", error.c_str());
    job.reset();
    return tideline::testing::readFile(r.file("out/copy.jsonl"));
}

} // namespace

class TestFileSink : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void fileHoldsOnlyCommittedOutput()
    {
        // 300,000 lines (~14 MB) in slices of 10,000 (~470 KB); the manual clock makes a
        // checkpoint due every 6 slices, so several MiB are written between two checkpoints:
        // more than the sink's 1 MiB block.
        const std::string input = events(0, 300000);
        const std::string ref = referenceCopy(input);
        QVERIFY(ref.size() > 10u << 20);
        Harness h;
        tideline::testing::writeFile(h.file("data.jsonl"), input);
        std::string error;
        std::size_t seen = 0;
        int grew = 0, staged = 0;
        auto observe = [&](const char *when, bool exact) {
            const std::string now = tideline::testing::readFile(h.file("out/copy.jsonl"));
            const std::uint64_t committed = committedBytes(h.ckdir());
            QVERIFY2(now.size() >= seen, qPrintable(QString("%1: the file shrank from %2 to %3")
                                                        .arg(when)
                                                        .arg(seen)
                                                        .arg(now.size())));
            QVERIFY2(ref.compare(0, now.size(), now) == 0,
                     qPrintable(QString("%1: the file is not a prefix of the output").arg(when)));
            // Never more than the newest durable checkpoint committed (it may be published a
            // moment after its manifest is written).
            QVERIFY2(now.size() <= committed,
                     qPrintable(QString("%1: %2 bytes in the file, %3 committed")
                                    .arg(when)
                                    .arg(now.size())
                                    .arg(committed)));
            if (exact)
                QCOMPARE(std::uint64_t(now.size()), committed);
            grew += now.size() > seen;
            staged += !stagingFiles(h.file("out")).empty();
            seen = now.size();
        };
        {
            auto job = h.make(copyPipeline(true, 300), error);
            QVERIFY2(job, error.c_str());
            for (int i = 0; i < 20; ++i) {
                QCOMPARE(job->runFor(10000), Job::Status::Running);
                h.clock.advance(50);
                std::this_thread::sleep_for(std::chrono::milliseconds(15));
                observe("first run", false);
            }
            QVERIFY(!completeIds(h.ckdir()).empty());
            // Dropped mid-run (a crash): staged output is not published, and a checkpoint in
            // flight may be durable without its commit.
        }
        observe("after the crash", false);
        auto job = h.make(copyPipeline(true, 300), error);
        QVERIFY2(job, error.c_str());
        QVERIFY2(h.logged("restoring from checkpoint"), h.allLogs().c_str());
        observe("after the restore", true); // the restore completed the commit
        while (job->runFor(10000) == Job::Status::Running) {
            h.clock.advance(50);
            std::this_thread::sleep_for(std::chrono::milliseconds(15));
            observe("second run", false);
        }
        job.reset();
        QVERIFY(tideline::testing::readFile(h.file("out/copy.jsonl")) == ref);
        QVERIFY2(stagingFiles(h.file("out")).empty(), "staging files left behind");
        QVERIFY2(staged > 0, "no output was ever staged: the test did not exercise staging");
        QVERIFY(grew >= 2);
        qInfo("the file grew at %d observations; staged output at %d", grew, staged);
    }

    // CSV: the header goes out with the first committed rows.
    void csvIsStagedAndPublishedWhole()
    {
        const std::string input = events(0, 50000);
        Harness h;
        tideline::testing::writeFile(h.file("data.jsonl"), input);
        const std::string json
            = R"({"format":"tideline/1","name":"c","settings":{"checkpoint":{"interval_ms":100,"dir":"checkpoints"}},
              "nodes":[{"id":"in","kind":"source.file","params":{"path":"data.jsonl"}},
                       {"id":"out","kind":"sink.file","params":{"path":"out.csv","format":"csv"}}],
              "edges":[{"from":"in.out","to":"out.in"}]})";
        std::string error;
        auto job = h.make(json, error);
        QVERIFY2(job, error.c_str());
        QCOMPARE(job->runFor(100), Job::Status::Running);
        QCOMPARE(fs::file_size(h.file("out.csv")), std::uintmax_t(0)); // nothing committed yet
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        auto lines = tideline::testing::readLines(h.file("out.csv"));
        QCOMPARE(lines.size(), std::size_t(50001));
        QCOMPARE(lines[0], std::string("id,user,t"));
        QVERIFY(stagingFiles(h.dir()).empty());
    }

    void withoutCheckpointsOutputStreamsAsBefore()
    {
        Harness h;
        tideline::testing::writeFile(h.file("data.jsonl"), events(0, 100000));
        std::string error;
        auto job = h.make(copyPipeline(false), error);
        QVERIFY2(job, error.c_str());
        job->runFor(60000);
        QVERIFY(fs::file_size(h.file("out/copy.jsonl")) >= 1u << 20);
        QVERIFY(stagingFiles(h.file("out")).empty());
    }
};

QTEST_GUILESS_MAIN(TestFileSink)
#include "test_file_sink.moc"
