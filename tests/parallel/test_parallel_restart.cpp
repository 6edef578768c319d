// Issue 22: a parallel run's restart after a recoverable failure. A fatal producer error of
// sink.kafka mid-run (injected on librdkafka's mock cluster, as engine.kafka.cluster does)
// makes the runtime recreate every operator, restore the last completed checkpoint and replay;
// with --parallelism 2 the recreated operators must be parallel stages again (the plan is made
// again, Runtime::remakeParallelStages), restored from the one keyed state. The windows' results
// in the topic (at-least-once: the replay may repeat some) must be exactly the results of an
// uninterrupted run at parallelism 1.

#include "kafka_harness.hpp"

#include <QtTest>

#include <set>

using namespace tideline;
using namespace kafkatest;

namespace {

/// Events of the fused variant: a chunk is 8,192 of them, and the checkpoints (every 20 ms)
/// must land mid-run.
constexpr long long kFusedCount = 400000;

/// The pipeline with its sink `out`. Fused: an ordered generator straight into the window, the
/// chain the fused path runs (records made and keyed on the workers, fused_source.cpp).
Json withSink(Json sink, bool fused)
{
    Json j = Json::parse(R"({"format": "tideline/1", "name": "parallel-restart",
      "settings": {"checkpoint": {"interval_ms": 20, "dir": "checkpoints"}},
      "nodes": [
        {"id": "gen", "kind": "source.generator", "params": {"count": 40000, "keys": 500,
          "rate_per_s": 2000, "seed": 4, "disorder": {"max_delay_ms": 300,
          "late_fraction": 0.01, "late_by_ms": 2000, "duplicate_fraction": 0.02}}},
        {"id": "wm", "kind": "watermark", "params": {"time_field": "event_time",
          "max_out_of_orderness_ms": 300}},
        {"id": "once", "kind": "dedup", "params": {"key": ["event_id"], "within_ms": 10000}},
        {"id": "per_second", "kind": "window", "params": {"type": "tumbling", "size_ms": 1000,
          "key": ["user_id"], "allowed_lateness_ms": 1000,
          "aggregates": [{"op": "count", "as": "n"}, {"op": "sum", "field": "value", "as": "total"}]}}
      ],
      "edges": [{"from": "gen.out", "to": "wm.in"}, {"from": "wm.out", "to": "once.in"},
                {"from": "once.out", "to": "per_second.in"}, {"from": "per_second.out", "to": "out.in"}]
    })");
    if (fused) {
        Json &gen = j["nodes"][0]["params"];
        gen.erase("disorder");
        gen["count"] = kFusedCount;
        gen["rate_per_s"] = 20000; // 20 s of event time: 10,000 results, as many as above
        j["nodes"].erase(2);       // `once`
        j["edges"] = Json::parse(R"([{"from": "gen.out", "to": "wm.in"},
            {"from": "wm.out", "to": "per_second.in"}, {"from": "per_second.out", "to": "out.in"}])");
    }
    j["nodes"].push_back(std::move(sink));
    return j;
}

std::unique_ptr<Job> makeJob(const Json &j,
                             const std::string &dir,
                             int parallelism,
                             std::string &error,
                             std::vector<std::string> &logs)
{
    std::string problems;
    PipelineSpec spec = specFrom(j, &problems);
    if (!problems.empty()) {
        error = problems;
        return nullptr;
    }
    JobOptions o;
    o.baseDir = dir;
    o.parallelism = parallelism;
    o.log = [&logs](const std::string &l) {
        logs.push_back(l);
    };
    return Job::create(spec, o, error);
}

std::string joined(const std::vector<std::string> &lines)
{
    std::string s;
    for (const auto &l : lines)
        s += l + "\n";
    return s;
}

/// Results as canonical JSON text (field order does not matter between the two sinks).
std::string canonical(const std::string &line)
{
    return nlohmann::json::parse(line).dump(); // (not ordered: keys sorted)
}

} // namespace

class TestParallelRestart : public QObject
{
    Q_OBJECT
    MockCluster m_mock;

private Q_SLOTS:
    void initTestCase()
    {
        const QString err = m_mock.start(3, {"par_out:2", "par_fused:2"});
        QVERIFY2(err.isEmpty(), qPrintable(err));
    }

    void fatalProducerErrorRestartsTheParallelStages_data()
    {
        QTest::addColumn<bool>("fused");
        QTest::newRow("rounds: dedup, then the window") << false;
        QTest::newRow("fused: generator, watermark, window") << true;
    }

    void fatalProducerErrorRestartsTheParallelStages()
    {
        QFETCH(bool, fused);
        const long long count = fused ? kFusedCount : 40000;
        // The reference: parallelism 1, into a file.
        std::set<std::string> want;
        {
            QTemporaryDir dir;
            std::vector<std::string> logs;
            std::string error;
            auto job = makeJob(
                withSink(
                    {{"id", "out"}, {"kind", "sink.file"}, {"params", {{"path", "out.jsonl"}}}},
                    fused),
                dir.path().toStdString(), 1, error, logs);
            QVERIFY2(job, error.c_str());
            QCOMPARE(job->run(), Job::Status::Finished);
            job.reset();
            QFile f(dir.filePath("out.jsonl"));
            QVERIFY(f.open(QIODevice::ReadOnly));
            for (const auto &l : QString::fromUtf8(f.readAll()).split('\n'))
                if (!l.isEmpty())
                    want.insert(canonical(l.toStdString()));
            QVERIFY(want.size() > 1000);
        }

        QTemporaryDir dir;
        std::vector<std::string> logs;
        std::string error;
        auto job = makeJob(withSink({{"id", "out"},
                                     {"kind", "sink.kafka"},
                                     {"params",
                                      {{"bootstrap_servers", m_mock.bootstrap.toStdString()},
                                       {"topic", fused ? "par_fused" : "par_out"}}}},
                                    fused),
                           dir.path().toStdString(), 2, error, logs);
        QVERIFY2(job, error.c_str());
        QVERIFY2(joined(logs).find("run as 2 instances each") != std::string::npos,
                 joined(logs).c_str());
        const std::string fusedLine = "`gen` -> `wm` -> `per_second` fused";
        QCOMPARE(joined(logs).find(fusedLine) != std::string::npos, fused);
        // Until a checkpoint completed with part of the input through.
        QElapsedTimer t;
        t.start();
        auto checkpointed = [&] {
            auto s = job->snapshot();
            return s.lastCheckpoint && s.lastCheckpoint->status == "completed"
                   && s.recordsRead >= 8000;
        };
        while (t.elapsed() < 20000 && !checkpointed()) {
            QCOMPARE(job->runFor(50), Job::Status::Running);
            job->publishMetrics();
            QTest::qWait(2);
        }
        QVERIFY(checkpointed());
        QVERIFY2(job->snapshot().recordsRead < count, "the error must land mid-run");
        QCOMPARE(m_mock.command("err 0 OUT_OF_ORDER_SEQUENCE_NUMBER"), QString("ok"));
        const Job::Status st = runUntilDone(*job, 60000);
        const std::string all = joined(logs);
        QVERIFY2(st == Job::Status::Finished, (job->failure() + "\n" + all).c_str());
        QVERIFY2(job->snapshot().restarts >= 1, all.c_str());
        QVERIFY2(all.find("restart 1/3 after: node `out`") != std::string::npos, all.c_str());
        QVERIFY2(all.find("restoring from checkpoint") != std::string::npos, all.c_str());
        QVERIFY2(all.find(fused ? "parallelism 2: `per_second` made again as instances"
                                : "parallelism 2: `once`, `per_second` made again as instances")
                     != std::string::npos,
                 all.c_str());
        if (fused) { // fused again after the restart, from the restored generator position
            const auto first = all.find(fusedLine);
            QVERIFY2(all.find(fusedLine, first + 1) != std::string::npos, all.c_str());
        }
        job.reset();
        QCOMPARE(m_mock.command("clear 0"), QString("ok"));

        std::set<std::string> got;
        for (const auto &l : kcatConsume(m_mock.bootstrap, fused ? "par_fused" : "par_out"))
            got.insert(canonical(l.split('\t').back().toStdString()));
        std::size_t missing = 0, extra = 0;
        for (const auto &w : want)
            missing += got.count(w) ? 0 : 1;
        for (const auto &g : got)
            extra += want.count(g) ? 0 : 1;
        QVERIFY2(missing == 0 && extra == 0,
                 qPrintable(QString("%1 results missing, %2 not in the reference (of %3)")
                                .arg(missing)
                                .arg(extra)
                                .arg(want.size())));
    }
};

QTEST_GUILESS_MAIN(TestParallelRestart)
#include "test_parallel_restart.moc"
