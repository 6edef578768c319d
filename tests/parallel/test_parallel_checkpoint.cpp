// Issue 22: checkpoints and savepoints of a parallel run. A parallel stage saves its instances
// as one keyed state in the single-instance node's format, so a checkpoint taken at N restores
// at any M. In process, on the stress pipeline beside this file (dedup; a tumbling window
// with allowed lateness; a sliding window over its results; a session window keyed by two
// fields; late outputs), checkpoints in RocksDB in a temp folder, exactly-once sink.file:
//   - a run at N = 2 dropped mid-way (a crash) restores at N = 1 and at N = 3, and both finish
//     with sinks byte-identical to an uninterrupted run at N = 1; one at N = 1 restores at 4;
//   - a savepoint taken when a run at N = 4 is stopped restores at N = 1 to the same output;
//   - the state saved at N = 2 is the single-instance state: dedup's bytes are identical to
//     the N = 1 run's at the same cut, the windows' are the same entries (same size; only the
//     order of entries inside a window differs, which the window never looks at).

#include "checkpoint_edit.hpp"
#include "fused_file_chain.hpp"

#include <QtTest>

#include <fstream>
#include <map>

using namespace tideline;
using tideline::recoverytest::completeIds;
using tideline::recoverytest::newestState;
namespace fs = std::filesystem;

namespace {

const std::string kStress = TIDELINE_SOURCE_DIR "/tests/parallel/pipelines/stress.json";

/// The stress pipeline with `settings` (a JSON object's members) added.
std::string pipeline(const std::string &settings)
{
    std::string json = tideline::testing::readFile(kStress);
    const std::string anchor = "\"format\": \"tideline/1\",";
    const auto at = json.find(anchor);
    if (at == std::string::npos)
        qFatal("%s: no format line", kStress.c_str());
    if (!settings.empty())
        json.insert(at + anchor.size(), " \"settings\": {" + settings + "},");
    return json;
}

const std::string kCheckpoints = R"("checkpoint": {"interval_ms": 200, "dir": "checkpoints"})";

/// Every sink file under `dir`/out, by relative path (staging files of uncommitted output
/// left out: a reader never sees them).
std::map<std::string, std::string> outputs(const std::string &dir)
{
    std::map<std::string, std::string> files;
    std::error_code ec;
    for (auto &e : fs::recursive_directory_iterator(dir + "/out", ec)) {
        const std::string name = e.path().filename().string();
        if (!e.is_regular_file() || name.find(".pending-") != std::string::npos)
            continue;
        files[fs::relative(e.path(), dir).string()] = tideline::testing::readFile(e.path());
    }
    return files;
}

/// "" when equal, else the first file that differs.
std::string difference(const std::map<std::string, std::string> &want,
                       const std::map<std::string, std::string> &got)
{
    if (want.size() != got.size())
        return std::to_string(got.size()) + " output files, expected "
               + std::to_string(want.size());
    for (const auto &[path, content] : want) {
        auto it = got.find(path);
        if (it == got.end())
            return path + " is missing";
        if (it->second != content)
            return path + " differs (" + std::to_string(it->second.size()) + " bytes, expected "
                   + std::to_string(content.size()) + ")";
    }
    return {};
}

/// The fused chain over a file (fused_file_chain.hpp): 1 s windows, checkpoints every 200 ms.
const std::string kFusedFile
    = tideline::testing::fusedFileChain(tideline::testing::kFusedFileSource, 200, 1000);

/// 800,000 lines (about 60 MiB: over a hundred ranges), 700 users, 5 ms apart.
constexpr long long kFusedLines = 800000;
void writeFusedInput(const std::string &dir)
{
    tideline::testing::writeFusedEvents(dir, kFusedLines, 700, 5);
}

JobOptions at(int n)
{
    JobOptions o;
    o.parallelism = n;
    return o;
}

/// Copies a stopped run's folder (pipeline outputs, checkpoints) into `to`.
void copyFolder(const std::string &from, const std::string &to)
{
    fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    fs::remove(to + "/checkpoints/LOCK"); // (a lock file, if the folder keeps one)
}

} // namespace

class TestParallelCheckpoint : public QObject
{
    Q_OBJECT

    std::map<std::string, std::string> m_reference;

    /// A run at `n` dropped mid-way (a crash: no final checkpoint, staged output unpublished)
    /// after several checkpoints; its folder copied once per m in `restoreAt`, each restored
    /// at m and run to the end: the sinks must equal the uninterrupted run's.
    void takeAndRestore(int n, std::initializer_list<int> restoreAt)
    {
        tideline::testing::JobHarness a;
        std::string error;
        {
            auto job = a.make(pipeline(kCheckpoints), error, at(n));
            QVERIFY2(job, error.c_str());
            QVERIFY2(n == 1 || a.logged("run as " + std::to_string(n) + " instances each"),
                     a.allLogs().c_str());
            QVERIFY2(!a.logged("runs single-threaded"), a.allLogs().c_str());
            a.advance(*job, 110000, 2000, 60);
            QVERIFY(job->snapshot().lastCheckpoint);
            QCOMPARE(job->snapshot().lastCheckpoint->status, std::string("completed"));
        }
        const auto ids = completeIds(a.ckdir());
        // (Retention keeps the newest 3.)
        QVERIFY2(!ids.empty() && ids.back() >= 5,
                 "too few checkpoints for the test to mean anything");
        for (int m : restoreAt) {
            tideline::testing::JobHarness b;
            copyFolder(a.dir(), b.dir());
            auto job = b.make(pipeline(kCheckpoints), error, at(m));
            QVERIFY2(job, error.c_str());
            QVERIFY2(b.logged("restoring from checkpoint " + std::to_string(ids.back())),
                     b.allLogs().c_str());
            QVERIFY2(b.logged("13 of 13 node(s) restored"), b.allLogs().c_str());
            QVERIFY2(m == 1 ? !b.logged("instances each")
                            : b.logged("run as " + std::to_string(m) + " instances each"),
                     b.allLogs().c_str());
            QCOMPARE(job->run(), Job::Status::Finished);
            job.reset();
            const std::string diff = difference(m_reference, outputs(b.dir()));
            QVERIFY2(diff.empty(), qPrintable(QString("taken at %1, restored at %2: %3\n%4")
                                                  .arg(n)
                                                  .arg(m)
                                                  .arg(QString::fromStdString(diff))
                                                  .arg(QString::fromStdString(b.allLogs()))));
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        // Checkpoints written on the loop thread: the cut of each is then at the same source
        // position in every run, whatever the machine's load.
        qputenv("TIDELINE_CHECKPOINT_SYNC", "1");
        tideline::testing::JobHarness ref;
        std::string error;
        auto job = ref.make(pipeline(kCheckpoints), error, at(1));
        QVERIFY2(job, error.c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        m_reference = outputs(ref.dir());
        QCOMPARE(m_reference.size(), std::size_t(7));
        for (const auto &[path, content] : m_reference)
            QVERIFY2(!content.empty() || path.find("late") != std::string::npos, path.c_str());
    }

    void checkpointAtTwoRestoresAtOneAndThree() { takeAndRestore(2, {1, 3}); }

    // The other way: a single-instance checkpoint (entries in arrival order) split at 4.
    void checkpointAtOneRestoresAtFour() { takeAndRestore(1, {4}); }

    void savepointAtFourRestoresAtOne()
    {
        tideline::testing::JobHarness h;
        std::string error;
        const std::string sp = h.file("savepoint");
        {
            JobOptions o = at(4);
            o.savepointOnStop = sp;
            auto job = h.make(pipeline(""), error, o);
            QVERIFY2(job, error.c_str());
            QVERIFY2(h.logged("run as 4 instances each"), h.allLogs().c_str());
            QCOMPARE(job->runFor(90000), Job::Status::Running);
            job->requestStop();
            QCOMPARE(job->runFor(1), Job::Status::Stopped);
        }
        QVERIFY2(fs::exists(sp + "/manifest.json"), h.allLogs().c_str());
        JobOptions o = at(1);
        o.restoreFrom = sp;
        auto job = h.make(pipeline(""), error, o);
        QVERIFY2(job, error.c_str());
        QVERIFY2(h.logged("restoring from savepoint"), h.allLogs().c_str());
        QCOMPARE(job->run(), Job::Status::Finished);
        job.reset();
        const std::string diff = difference(m_reference, outputs(h.dir()));
        QVERIFY2(diff.empty(), qPrintable(QString::fromStdString(diff + "\n" + h.allLogs())));
    }

    /// The fused path checkpoints too: the file source's position follows the ranges handed
    /// over, so a run at 2 dropped mid-file restores at 1, 2 and 3 to the uninterrupted run's
    /// outputs (line numbers of the malformed lines after the restore point included), the
    /// restored runs at 2 and 3 fused again from the restored line.
    void fusedFileCheckpointRestoresAtAnyParallelism()
    {
        std::map<std::string, std::string> want;
        {
            tideline::testing::JobHarness ref;
            writeFusedInput(ref.dir());
            std::string error;
            auto job = ref.make(kFusedFile, error, at(1));
            QVERIFY2(job, error.c_str());
            QCOMPARE(job->run(), Job::Status::Finished);
            job.reset();
            want = outputs(ref.dir());
            QCOMPARE(want.size(), std::size_t(2));
            QVERIFY(tideline::testing::readLines(ref.file("out/dead.jsonl")).size() > 400);
        }
        tideline::testing::JobHarness a;
        writeFusedInput(a.dir());
        std::string error;
        {
            auto job = a.make(kFusedFile, error, at(2));
            QVERIFY2(job, error.c_str());
            QVERIFY2(a.logged("`src` -> `wm` -> `per_user` fused"), a.allLogs().c_str());
            a.advance(*job, 100000, 2000, 60);
            QCOMPARE(job->runFor(1), Job::Status::Running); // mid-file: dropped here
            QVERIFY(job->snapshot().lastCheckpoint);
            QCOMPARE(job->snapshot().lastCheckpoint->status, std::string("completed"));
            QVERIFY2(job->snapshot().recordsRead < kFusedLines * 3 / 4,
                     "the run must stop mid-file");
        }
        const auto ids = completeIds(a.ckdir());
        QVERIFY2(!ids.empty() && ids.back() >= 5,
                 "too few checkpoints for the test to mean anything");
        for (int m : {1, 2, 3}) {
            tideline::testing::JobHarness b;
            copyFolder(a.dir(), b.dir());
            auto job = b.make(kFusedFile, error, at(m));
            QVERIFY2(job, error.c_str());
            QVERIFY2(b.logged("restoring from checkpoint " + std::to_string(ids.back())),
                     b.allLogs().c_str());
            QCOMPARE(job->run(), Job::Status::Finished);
            if (m > 1)
                QVERIFY2(b.logged("`src` -> `wm` -> `per_user` fused"), b.allLogs().c_str());
            job.reset();
            const std::string diff = difference(want, outputs(b.dir()));
            QVERIFY2(diff.empty(), qPrintable(QString("taken at 2, restored at %1: %2\n%3")
                                                  .arg(m)
                                                  .arg(QString::fromStdString(diff))
                                                  .arg(QString::fromStdString(b.allLogs()))));
        }
    }

    void stateAtTwoIsTheSingleInstanceState()
    {
        // The same slices and clock in both runs: the newest checkpoint is taken at the same
        // source position.
        std::map<std::string, std::string> saved[2];
        for (int run = 0; run < 2; ++run) {
            tideline::testing::JobHarness h;
            std::string error;
            auto job = h.make(pipeline(kCheckpoints), error, at(run + 1));
            QVERIFY2(job, error.c_str());
            h.advance(*job, 70000, 2000, 60);
            job.reset();
            for (const char *node : {"once", "per_second", "rolling", "sessions"})
                saved[run][node] = newestState(h.ckdir(), node);
            saved[run]["#id"] = std::to_string(completeIds(h.ckdir()).back());
        }
        QCOMPARE(saved[1]["#id"], saved[0]["#id"]);
        QVERIFY(!saved[0]["once"].empty());
        QVERIFY2(saved[1]["once"] == saved[0]["once"], "dedup's state differs at N = 2");
        for (const char *node : {"per_second", "rolling", "sessions"}) {
            QVERIFY2(saved[0][node].size() > 100, node);
            QCOMPARE(saved[1][node].size(), saved[0][node].size());
        }
    }
};

QTEST_GUILESS_MAIN(TestParallelCheckpoint)
#include "test_parallel_checkpoint.moc"
