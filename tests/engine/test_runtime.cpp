// The runtime loop: determinism, Step, fan-out, stop, and metrics snapshots read from another
// thread while the loop runs.

#include "test_support.hpp"

#include <QtTest>

#include <atomic>
#include <thread>

using namespace tideline;
using testing::TempDir;

namespace {
const char *kFanOut = R"({"format":"tideline/1","nodes":[
  {"id":"g","kind":"source.generator","params":{"count":%COUNT%,"seed":5,"disorder":{"max_delay_ms":200}}},
  {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":100}},
  {"id":"a","kind":"sink.file","params":{"path":"a.jsonl"}},
  {"id":"b","kind":"sink.file","params":{"path":"b.csv","format":"csv"}},
  {"id":"d","kind":"sink.discard"}],
  "edges":[{"from":"g.out","to":"wm.in"},{"from":"wm.out","to":"a.in"},{"from":"wm.out","to":"b.in"},{"from":"wm.out","to":"d.in"}]})";

std::string fanOut(long long count)
{
    std::string s = kFanOut;
    s.replace(s.find("%COUNT%"), 7, std::to_string(count));
    return s;
}
} // namespace

class TestRuntime : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void boundedRunsAreByteIdentical()
    {
        TempDir dir;
        auto r = testing::runPipeline(fanOut(3000), dir.path);
        QCOMPARE(r.status, Job::Status::Finished);
        std::string a = testing::readFile(dir.file("a.jsonl")),
                    b = testing::readFile(dir.file("b.csv"));
        auto r2 = testing::runPipeline(fanOut(3000), dir.path);
        QCOMPARE(testing::readFile(dir.file("a.jsonl")), a);
        QCOMPARE(testing::readFile(dir.file("b.csv")), b);
        QCOMPARE(testing::readLines(dir.file("a.jsonl")).size(), std::size_t(3000));
        QCOMPARE(testing::readLines(dir.file("b.csv")).size(), std::size_t(3001)); // + header
        // Fan-out delivers every record to each consumer.
        QCOMPARE(r2.metrics.node("d")->recordsIn, std::int64_t(3000));
        QCOMPARE(r2.metrics.node("wm")->recordsOut, std::int64_t(3000));
        QVERIFY(r2.metrics.node("d")->checksum != 0);
        QCOMPARE(r2.metrics.node("d")->checksum, r.metrics.node("d")->checksum);
    }

    void stepProcessesExactlyOneRecord()
    {
        TempDir dir;
        auto loaded = loadSpec(fanOut(10));
        std::string err;
        JobOptions o;
        o.baseDir = dir.path;
        auto job = Job::create(*loaded.spec, o, err);
        QVERIFY(job);
        for (int i = 1; i <= 10; ++i) {
            QCOMPARE(job->runFor(1), Job::Status::Running);
            QCOMPARE(job->snapshot().recordsRead, std::int64_t(i));
            QCOMPARE(job->snapshot().node("d")->recordsIn, std::int64_t(i));
        }
        QCOMPARE(job->runFor(1), Job::Status::Finished);
        QCOMPARE(job->snapshot().state, observe::JobState::Finished);
    }

    /// The snapshot Job::create publishes, before the run opens, has no processing time yet,
    /// and none has a start later than its own clock reading (a scrape once paired the first
    /// snapshot's time with the start set afterwards: processing_ms -1).
    void processingTimeStartsWhenTheRunOpens()
    {
        TempDir dir;
        auto loaded = loadSpec(fanOut(10));
        std::string err;
        ManualClock clock(1'800'000'000'000);
        std::vector<observe::MetricsSnapshot> published;
        JobOptions o;
        o.baseDir = dir.path;
        o.clock = &clock;
        o.onMetrics = [&](const observe::MetricsSnapshot &s) {
            published.push_back(s);
        };
        auto job = Job::create(*loaded.spec, o, err);
        QVERIFY2(job, err.c_str());
        auto before = job->snapshot();
        QCOMPARE(before.takenAtMs, std::int64_t(1'800'000'000'000));
        QCOMPARE(before.takenAtMs - before.startedAtMs, std::int64_t(0));
        QCOMPARE(before.eventsPerSecond, 0.0);
        QCOMPARE(published.size(), std::size_t(1));
        QCOMPARE(published[0].takenAtMs - published[0].startedAtMs, std::int64_t(0));
        clock.advance(250);
        QCOMPARE(job->runFor(1), Job::Status::Running);
        auto opened = job->snapshot();
        QVERIFY(opened.takenAtMs >= opened.startedAtMs);
        clock.advance(1000);
        job->publishMetrics();
        auto later = job->snapshot();
        QCOMPARE(later.startedAtMs, std::int64_t(1'800'000'000'250));
        QCOMPARE(later.takenAtMs - later.startedAtMs, std::int64_t(1000));
        QCOMPARE(later.eventsPerSecond, double(later.recordsRead));
    }

    void stopRequestStopsAnUnboundedRunAndFlushesSinks()
    {
        TempDir dir;
        auto loaded = loadSpec(fanOut(0)); // count 0 = unbounded
        std::string err;
        JobOptions o;
        o.baseDir = dir.path;
        auto job = Job::create(*loaded.spec, o, err);
        QVERIFY(job);
        std::atomic<bool> consistent{true};
        std::atomic<int> reads{0};
        std::thread watcher([&] {
            // Read snapshots concurrently while the loop runs; each must be internally
            // consistent: every record the watermark node emitted reached each sink.
            while (reads < 200) {
                auto s = job->snapshot();
                if (s.node("wm")->recordsOut != s.node("d")->recordsIn
                    || s.node("a")->recordsIn != s.node("d")->recordsIn)
                    consistent = false;
                ++reads;
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            job->requestStop();
        });
        QCOMPARE(job->run(), Job::Status::Stopped);
        watcher.join();
        QVERIFY(consistent);
        auto s = job->snapshot();
        QCOMPARE(s.state, observe::JobState::Stopped);
        QVERIFY(s.recordsRead > 0);
        // Everything received was flushed to the file.
        QCOMPARE(static_cast<std::int64_t>(testing::readLines(dir.file("a.jsonl")).size()),
                 s.node("a")->recordsIn);
    }

    void sinkWriteFailureIsARunFailureNamingTheNode()
    {
        TempDir dir;
        auto r = testing::runPipeline(R"({"format":"tideline/1","nodes":[
            {"id":"g","kind":"source.generator","params":{"count":1}},
            {"id":"out","kind":"sink.file","params":{"path":"/proc/tideline-no-such-dir/out.jsonl"}}],
            "edges":[{"from":"g.out","to":"out.in"}]})",
                                      dir.path);
        QVERIFY(r.createError.find("node `out`") == 0);
        QVERIFY(r.createError.find("cannot write") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestRuntime)
#include "test_runtime.moc"
