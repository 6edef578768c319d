// Issue 23 items 5, 6 and 11, in process (ManualClock, checkpoints on the loop thread):
//  - 6: a source.file input replaced, rewritten or shortened behind a checkpoint is refused on
//    restore with the fix; one that only grew (appended), or was copied back identical,
//    resumes exactly;
//  - 5: a sink.upsert table deleted or replaced behind a checkpoint is refused; the same table
//    moved away and back resumes;
//  - checkpoints written before these checks (the older state layouts) still restore.

#include "checkpoint_edit.hpp"
#include "table_dump.hpp"

#include <QtTest>

#include <cstring>
#include <sys/stat.h>

using namespace tideline;
using tideline::recoverytest::completeIds;
using tideline::recoverytest::copyPipeline;
using tideline::recoverytest::editNewestCheckpoint;
using tideline::recoverytest::events;
using tideline::recoverytest::Harness;
using tideline::recoverytest::newestState;
namespace fs = std::filesystem;

namespace {

/// source.file -> watermark -> tumbling count per user -> sink.file.
std::string windowPipeline(bool checkpoints)
{
    return std::string(R"({"format":"tideline/1","name":"w",)")
           + (checkpoints ? R"("settings":{"checkpoint":{"interval_ms":50,"dir":"checkpoints"}},)"
                          : "")
           + R"("nodes":[
      {"id":"in","kind":"source.file","params":{"path":"data.jsonl"}},
      {"id":"wm","kind":"watermark","params":{"time_field":"t","max_out_of_orderness_ms":0}},
      {"id":"w","kind":"window","params":{"type":"tumbling","size_ms":1000,"key":["user"],"aggregates":[{"op":"count","as":"n"}]}},
      {"id":"out","kind":"sink.file","params":{"path":"out/windows.jsonl"}}],
      "edges":[{"from":"in.out","to":"wm.in"},{"from":"wm.out","to":"w.in"},{"from":"w.out","to":"out.in"}]})";
}

std::vector<std::string> sortedLines(const std::string &path)
{
    auto l = tideline::testing::readLines(path);
    std::sort(l.begin(), l.end());
    return l;
}

/// The windows an uninterrupted run over `input` writes.
std::vector<std::string> referenceWindows(const std::string &input)
{
    Harness h;
    tideline::testing::writeFile(h.file("data.jsonl"), input);
    std::string error;
    auto job = h.make(windowPipeline(false), error);
    if (!job || job->run() != Job::Status::Finished)
        qFatal("reference run failed: %s", error.c_str());
    job.reset();
    return sortedLines(h.file("out/windows.jsonl"));
}

/// Runs part of the window pipeline over `input` with checkpoints, then drops the job.
void runPartly(Harness &h, const std::string &input, std::int64_t records = 8000)
{
    tideline::testing::writeFile(h.file("data.jsonl"), input);
    std::string error;
    auto job = h.make(windowPipeline(true), error);
    QVERIFY2(job, error.c_str());
    h.advance(*job, records);
    QVERIFY(!completeIds(h.ckdir()).empty());
}

/// generator -> sink.upsert keyed by event_id.
std::string upsertPipeline(const std::string &table, int seed = 42)
{
    return R"({"format":"tideline/1","name":"u",
      "settings":{"checkpoint":{"interval_ms":50,"dir":"checkpoints"}},"nodes":[
      {"id":"g","kind":"source.generator","params":{"count":20000,"keys":50,"seed":)"
           + std::to_string(seed) + R"(}},
      {"id":"up","kind":"sink.upsert","params":{"path":")"
           + table + R"(","key":["event_id"]}}],
      "edges":[{"from":"g.out","to":"up.in"}]})";
}

std::uint64_t inode(const std::string &path)
{
    struct stat st
    {
    };
    return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

} // namespace

class TestRestoreChecks : public QObject
{
    Q_OBJECT

    std::vector<std::string> m_ref;

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("TIDELINE_CHECKPOINT_SYNC", "1");
        m_ref = referenceWindows(events(0, 20000));
        QVERIFY(m_ref.size() > 1000);
    }

    // --- item 6: source.file ---

    void replacedInputIsRefusedWithTheFix()
    {
        Harness h;
        runPartly(h, events(0, 20000));
        // A different file of the same length: the old offset lands in other data.
        std::string other = events(0, 20000, "x");
        QCOMPARE(other.size(), events(0, 20000).size());
        fs::remove(h.file("data.jsonl"));
        tideline::testing::writeFile(h.file("data.jsonl"), other);
        std::string error;
        auto job = h.make(windowPipeline(true), error);
        QVERIFY2(!job, "the restore accepted a replaced input");
        QVERIFY2(error.find("node `in`") != std::string::npos, error.c_str());
        QVERIFY2(error.find("data.jsonl") != std::string::npos, error.c_str());
        QVERIFY2(error.find("replaced") != std::string::npos, error.c_str());
        QVERIFY2(error.find("--reset-state in") != std::string::npos, error.c_str());
        QVERIFY2(error.find("--fresh") != std::string::npos, error.c_str());
        // The suggested flag reads the new file from its start; the rest keeps its state.
        JobOptions o;
        o.resetState = {"in"};
        job = h.make(windowPipeline(true), error, o);
        QVERIFY2(job, error.c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
    }

    void rewrittenInPlaceIsRefused()
    {
        // Same inode, same size, other bytes before the offset.
        Harness h;
        runPartly(h, events(0, 20000));
        const auto ino = inode(h.file("data.jsonl"));
        std::string text = tideline::testing::readFile(h.file("data.jsonl"));
        text[10] = text[10] == '1' ? '2' : '1';
        {
            std::FILE *f = std::fopen(h.file("data.jsonl").c_str(), "r+");
            QVERIFY(f);
            std::fwrite(text.data(), 1, text.size(), f);
            std::fclose(f);
        }
        QCOMPARE(inode(h.file("data.jsonl")), ino);
        std::string error;
        auto job = h.make(windowPipeline(true), error);
        QVERIFY2(!job, "the restore accepted a rewritten input");
        QVERIFY2(error.find("differ") != std::string::npos, error.c_str());
    }

    void shortenedInputIsRefused()
    {
        Harness h;
        runPartly(h, events(0, 20000));
        fs::resize_file(h.file("data.jsonl"), 1000);
        std::string error;
        auto job = h.make(windowPipeline(true), error);
        QVERIFY2(!job, "the restore accepted a shortened input");
        QVERIFY2(error.find("holds 1000 bytes") != std::string::npos, error.c_str());
        QVERIFY2(error.find("--reset-state in") != std::string::npos, error.c_str());
    }

    void appendedInputResumesExactly()
    {
        Harness h;
        runPartly(h, events(0, 20000));
        {
            std::FILE *f = std::fopen(h.file("data.jsonl").c_str(), "a");
            std::string more = events(20000, 25000);
            std::fwrite(more.data(), 1, more.size(), f);
            std::fclose(f);
        }
        std::string error;
        auto job = h.make(windowPipeline(true), error);
        QVERIFY2(job, error.c_str());
        QVERIFY2(h.logged("restoring from checkpoint"), h.allLogs().c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        QVERIFY(sortedLines(h.file("out/windows.jsonl")) == referenceWindows(events(0, 25000)));
    }

    void identicalCopyResumesExactly()
    {
        // Restored from a backup or copied over: another inode, the same bytes.
        Harness h;
        runPartly(h, events(0, 20000));
        const auto before = inode(h.file("data.jsonl"));
        fs::copy_file(h.file("data.jsonl"), h.file("copy.jsonl"));
        fs::rename(h.file("copy.jsonl"), h.file("data.jsonl"));
        QVERIFY(inode(h.file("data.jsonl")) != before);
        std::string error;
        auto job = h.make(windowPipeline(true), error);
        QVERIFY2(job, error.c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        QVERIFY(sortedLines(h.file("out/windows.jsonl")) == m_ref);
    }

    void oldSourceStateStillRestores()
    {
        // Before the identity: offset, line, "held back" flag (no pacing: no record).
        Harness h;
        runPartly(h, events(0, 20000));
        std::string err = editNewestCheckpoint(
            h.ckdir(), "in", [](const std::string &s) { return s.substr(0, 17); });
        QVERIFY2(err.empty(), err.c_str());
        std::string error;
        auto job = h.make(windowPipeline(true), error);
        QVERIFY2(job, error.c_str());
        QVERIFY2(h.logged("restoring from checkpoint"), h.allLogs().c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        QVERIFY(sortedLines(h.file("out/windows.jsonl")) == m_ref);
    }

    // --- item 5: sink.upsert ---

    void deletedTableIsRefusedWithTheFix()
    {
        Harness h;
        std::string error;
        {
            auto job = h.make(upsertPipeline("out/table"), error);
            QVERIFY2(job, error.c_str());
            h.advance(*job, 9000);
            QVERIFY(!completeIds(h.ckdir()).empty());
        }
        fs::remove_all(h.file("out/table"));
        auto job = h.make(upsertPipeline("out/table"), error);
        QVERIFY2(!job, "the restore accepted a deleted table");
        QVERIFY2(error.find("node `up`") != std::string::npos, error.c_str());
        QVERIFY2(error.find("out/table") != std::string::npos, error.c_str());
        QVERIFY2(error.find("--fresh") != std::string::npos, error.c_str());
        // --fresh rebuilds it from the start of the input.
        JobOptions o;
        o.fresh = true;
        job = h.make(upsertPipeline("out/table"), error, o);
        QVERIFY2(job, error.c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        QCOMPARE(tideline::cptest::dumpTable(h.file("out/table")).size(), std::size_t(20000));
    }

    void replacedTableIsRefused()
    {
        Harness h;
        std::string error;
        {
            auto job = h.make(upsertPipeline("out/table"), error);
            QVERIFY2(job, error.c_str());
            h.advance(*job, 9000);
        }
        {
            // Another table (another run's) put in its place.
            Harness other;
            auto job = other.make(upsertPipeline("t2", 7), error);
            QVERIFY2(job, error.c_str());
            QCOMPARE(job->run(), Job::Status::Finished);
            job.reset();
            fs::remove_all(h.file("out/table"));
            fs::copy(other.file("t2"), h.file("out/table"), fs::copy_options::recursive);
        }
        auto job = h.make(upsertPipeline("out/table"), error);
        QVERIFY2(!job, "the restore accepted a replaced table");
        QVERIFY2(error.find("not the table") != std::string::npos, error.c_str());
    }

    void tableMovedAwayAndBackResumes()
    {
        Harness ref;
        std::string error;
        {
            auto job = ref.make(upsertPipeline("out/table"), error);
            QVERIFY2(job, error.c_str());
            QCOMPARE(job->run(), Job::Status::Finished);
        }
        Harness h;
        {
            auto job = h.make(upsertPipeline("out/table"), error);
            QVERIFY2(job, error.c_str());
            h.advance(*job, 9000);
        }
        fs::rename(h.file("out/table"), h.file("table.bak"));
        fs::rename(h.file("table.bak"), h.file("out/table"));
        auto job = h.make(upsertPipeline("out/table"), error);
        QVERIFY2(job, error.c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        QVERIFY(tideline::cptest::dumpTable(h.file("out/table"))
                == tideline::cptest::dumpTable(ref.file("out/table")));
    }

    void oldUpsertStateStillRestores()
    {
        Harness h;
        std::string error;
        {
            auto job = h.make(upsertPipeline("out/table"), error);
            QVERIFY2(job, error.c_str());
            h.advance(*job, 9000);
        }
        // Before the identity: the row count only.
        std::string err = editNewestCheckpoint(h.ckdir(), "up",
                                               [](const std::string &s) { return s.substr(0, 8); });
        QVERIFY2(err.empty(), err.c_str());
        auto job = h.make(upsertPipeline("out/table"), error);
        QVERIFY2(job, error.c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        QCOMPARE(tideline::cptest::dumpTable(h.file("out/table")).size(), std::size_t(20000));
    }

    // --- item 11: sink.file with checkpoints (test_file_sink.cpp) ---

    void oldFileSinkStateStillRestores()
    {
        const std::string input = events(0, 60000);
        Harness h;
        tideline::testing::writeFile(h.file("data.jsonl"), input);
        std::string error;
        {
            auto job = h.make(copyPipeline(true, 50), error);
            QVERIFY2(job, error.c_str());
            h.advance(*job, 30000, 5000, 60);
        }
        // Before staging: committed length, rows, CSV columns (none).
        std::string err = editNewestCheckpoint(
            h.ckdir(), "out", [](const std::string &s) { return s.substr(0, 24); });
        QVERIFY2(err.empty(), err.c_str());
        auto job = h.make(copyPipeline(true, 50), error);
        QVERIFY2(job, error.c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        Harness r;
        tideline::testing::writeFile(r.file("data.jsonl"), input);
        auto ref = r.make(copyPipeline(false), error);
        QCOMPARE(ref->run(), Job::Status::Finished);
        ref.reset();
        QVERIFY(tideline::testing::readFile(h.file("out/copy.jsonl"))
                == tideline::testing::readFile(r.file("out/copy.jsonl")));
    }
};

QTEST_GUILESS_MAIN(TestRestoreChecks)
#include "test_restore_checks.moc"
