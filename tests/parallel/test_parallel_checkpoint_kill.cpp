// Issue 22 (label `slow`): a parallel checkpointed run killed with SIGKILL recovers exactly.
// tideline-run --parallelism 2 runs a pipeline with checkpoints into RocksDB, is killed at
// random points and restarted (at parallelism 2, or 1 or 3 every third restart: a checkpoint
// restores at any parallelism) until it finishes. Its exactly-once sink.file outputs must be
// byte-identical to an uninterrupted run's at parallelism 1, and the kills must have landed
// after checkpoints. Two shapes, two paths through the runtime:
// - the stress pipeline beside this file (dedup, tumbling with allowed lateness, sliding over
//   its results, sessions; paced so that kills land mid-run): the rounds' path;
// - source -> watermark -> one keyed window, over a large file and over the ordered generator:
//   the fused path (records made or parsed, stamped and routed on the workers; the source's
//   position follows the chunks handed over), unpaced, so large enough to be killed mid-run.

#include "cli_process.hpp"
#include "fused_file_chain.hpp"
#include "test_support.hpp"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QThread>
#include <QtTest>

#include <functional>
#include <map>

namespace fs = std::filesystem;
using tideline::testing::completeIds;

namespace {

std::string stressPipeline()
{
    std::string json
        = tideline::testing::readFile(TIDELINE_SOURCE_DIR "/tests/parallel/pipelines/stress.json");
    const std::string format = "\"format\": \"tideline/1\",";
    const std::string gen = "\"count\": 200000,";
    const auto f = json.find(format);
    const auto g = json.find(gen);
    if (f == std::string::npos || g == std::string::npos)
        qFatal("stress.json changed: no format or count line");
    // Paced: ~4 s a run, so that the kills below land mid-stream.
    json.insert(g + gen.size(), " \"pace\": {\"records_per_s\": 50000},");
    json.insert(f + format.size(),
                R"( "settings": {"checkpoint": {"interval_ms": 300, "dir": "checkpoints"}},)");
    return json;
}

/// The fused chain (fused_file_chain.hpp) from `source`: 10 s windows, checkpoints every
/// 40 ms.
std::string fusedPipeline(const std::string &source)
{
    return tideline::testing::fusedFileChain(source, 40, 10000);
}

std::map<std::string, std::string> outputs(const std::string &dir)
{
    std::map<std::string, std::string> files;
    std::error_code ec;
    for (auto &e : fs::recursive_directory_iterator(dir + "/out", ec)) {
        const std::string name = e.path().filename().string();
        if (e.is_regular_file() && name.find(".pending-") == std::string::npos)
            files[fs::relative(e.path(), dir).string()] = tideline::testing::readFile(e.path());
    }
    return files;
}

using Proc = tideline::testing::KilledOrFinished;

/// Runs tideline-run at parallelism `n` in `dir`; kills it (SIGKILL) after `killAfterMs`
/// unless it finished first (<= 0: never). With `afterNewCheckpoint`, the delay starts once
/// the run has completed a checkpoint of its own (or after 5 s): a fast run is then killed
/// mid-stream, past a checkpoint, whatever the machine's speed. TIDELINE_CHECKPOINT_SYNC is
/// unset for the whole test (initTestCase): the runs checkpoint as in production.
Proc run(const std::string &dir, int n, int killAfterMs, bool afterNewCheckpoint = false)
{
    const auto newest = [&] {
        const auto ids = completeIds(dir + "/checkpoints");
        return ids.empty() ? std::int64_t{-1} : ids.back();
    };
    const std::int64_t before = newest();
    std::function<void()> waitForCheckpoint;
    if (afterNewCheckpoint)
        waitForCheckpoint = [&] {
            QElapsedTimer t;
            t.start();
            while (newest() <= before && t.elapsed() < 5000)
                QThread::msleep(2);
        };
    return tideline::testing::runOrKill(
        TIDELINE_RUN_EXE,
        {"--parallelism", QString::number(n), QString::fromStdString(dir + "/pipeline.json")}, dir,
        killAfterMs, {}, waitForCheckpoint);
}

} // namespace

class TestParallelCheckpointKill : public QObject
{
    Q_OBJECT
    /// Kills and restarts `pipeline` (written into each folder by `prepare`) as described at
    /// the top; `expectLog` must be in the log of a parallel run (the path it takes). The
    /// kills land [minKillMs, maxKillMs) after the start, or with `afterNewCheckpoint` after
    /// the run's first checkpoint.
    void killAndRecover(const std::string &pipeline,
                        const std::function<void(const std::string &)> &prepare,
                        std::size_t outputCount,
                        const QString &expectLog,
                        int minKillMs,
                        int maxKillMs,
                        bool afterNewCheckpoint = false)
    {
        std::map<std::string, std::string> reference;
        {
            tideline::testing::TempDir ref;
            tideline::testing::writeFile(ref.file("pipeline.json"), pipeline);
            prepare(ref.path.string());
            Proc r = run(ref.path.string(), 1, 0);
            QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.err));
            reference = outputs(ref.path.string());
            QCOMPARE(reference.size(), outputCount);
        }

        const quint32 seed = QRandomGenerator::global()->generate();
        QRandomGenerator rng(seed);
        qInfo("kill delays seed %u", seed);
        tideline::testing::TempDir w;
        const std::string dir = w.path.string();
        tideline::testing::writeFile(dir + "/pipeline.json", pipeline);
        prepare(dir);
        int kills = 0, afterCheckpoint = 0, restarts = 0;
        bool parallelSeen = false, pathSeen = false;
        while (kills < 8) {
            // Every third restart at another parallelism: 2, 2, 1, 2, 2, 3, ...
            const int n = restarts % 3 != 2 ? 2 : (restarts % 6 == 2 ? 1 : 3);
            ++restarts;
            Proc r = run(dir, n, static_cast<int>(rng.bounded(minKillMs, maxKillMs)),
                         afterNewCheckpoint);
            parallelSeen = parallelSeen || r.err.contains("run as 2 instances each");
            pathSeen = pathSeen || (n > 1 && r.err.contains(expectLog));
            QVERIFY2(!r.err.contains("runs single-threaded"), qPrintable(r.err));
            if (r.finished) {
                QVERIFY2(r.exitCode == 0, qPrintable(r.err));
                break;
            }
            ++kills;
            afterCheckpoint += !completeIds(dir + "/checkpoints").empty();
        }
        Proc last = run(dir, 2, 0);
        QVERIFY2(last.finished && last.exitCode == 0, qPrintable(last.err));
        qInfo("%d kills (%d after a complete checkpoint)", kills, afterCheckpoint);
        QVERIFY2(parallelSeen, "the runs did not run in parallel");
        QVERIFY2(pathSeen, qPrintable("no parallel run logged \"" + expectLog + "\""));
        QVERIFY2(kills >= 4 && afterCheckpoint >= 3, "too few kills landed mid-run");
        const auto got = outputs(dir);
        QCOMPARE(got.size(), reference.size());
        for (const auto &[path, content] : reference) {
            QVERIFY2(got.count(path), path.c_str());
            QVERIFY2(got.at(path) == content,
                     qPrintable(QString("%1 differs from the uninterrupted run (%2 bytes, "
                                        "expected %3)")
                                    .arg(QString::fromStdString(path))
                                    .arg(got.at(path).size())
                                    .arg(content.size())));
        }
    }

private Q_SLOTS:
    void initTestCase() { qunsetenv("TIDELINE_CHECKPOINT_SYNC"); }

    void killedParallelRunRecoversExactly()
    {
        killAndRecover(
            stressPipeline(), [](const std::string &) {}, 7, "run as 2 instances each", 500, 1500);
    }

    // Unpaced, the fused runs are fast (a few hundred ms for these inputs at parallelism 2):
    // checkpoints every 40 ms, and each kill lands 1 to 100 ms after the run's first one.
    void killedFusedFileRunRecoversExactly()
    {
        killAndRecover(
            fusedPipeline(tideline::testing::kFusedFileSource),
            [](const std::string &dir) {
                tideline::testing::writeFusedEvents(dir, 4000000, 200, 1);
            },
            2, "fused: records made", 1, 100, true);
    }

    void killedFusedGeneratorRunRecoversExactly()
    {
        killAndRecover(
            fusedPipeline(R"({"id": "src", "kind": "source.generator", "params":
            {"count": 20000000, "keys": 500, "rate_per_s": 20000, "seed": 5}})"),
            [](const std::string &) {}, 2, "fused: records made", 1, 100, true);
    }
};

QTEST_GUILESS_MAIN(TestParallelCheckpointKill)
#include "test_parallel_checkpoint_kill.moc"
