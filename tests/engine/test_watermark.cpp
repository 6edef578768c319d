// The watermark node: W = max(W, maxTs - d - 1), per-partition minimum, idleness, errors,
// time formats; and the runtime's minimum over several inputs.

#include "test_support.hpp"

#include <QtTest>

using namespace tideline;
using testing::TempDir;

namespace {

std::optional<std::int64_t> watermarkOf(Job &job, const std::string &node)
{
    return job.snapshot().node(node)->watermark;
}

std::unique_ptr<Job> makeJob(const std::string &json, const std::string &dir, Clock *clock)
{
    auto loaded = loadSpec(json);
    if (!loaded.ok())
        qFatal("%s", testing::diagnosticsText(loaded.diagnostics).c_str());
    JobOptions o;
    o.baseDir = dir;
    o.clock = clock;
    std::string err;
    auto job = Job::create(*loaded.spec, o, err);
    if (!job)
        qFatal("%s", err.c_str());
    return job;
}

std::string filePipeline(const std::string &wmParams, const std::string &extra = "")
{
    return R"({"format":"tideline/1","name":"wm","nodes":[
      {"id":"src","kind":"source.file","params":{"path":"in.jsonl"}},
      {"id":"wm","kind":"watermark","params":)"
           + wmParams + R"(},
      {"id":"out","kind":"sink.file","params":{"path":"out.jsonl"}},
      {"id":"err","kind":"sink.file","params":{"path":"errors.jsonl"}})"
           + extra + R"(],
      "edges":[{"from":"src.out","to":"wm.in"},{"from":"wm.out","to":"out.in"},{"from":"wm.errors","to":"err.in"}]})";
}

/// filePipeline over `lines` (written to in.jsonl), run to its end.
testing::RunResult
runOver(const TempDir &dir, const std::string &lines, const std::string &wmParams)
{
    testing::writeFile(dir.file("in.jsonl"), lines);
    return testing::runPipeline(filePipeline(wmParams), dir.path);
}

} // namespace

class TestWatermark : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void boundedOutOfOrdernessFormula()
    {
        TempDir dir;
        testing::writeFile(dir.file("in.jsonl"),
                           "{\"t\":1000}\n{\"t\":900}\n{\"t\":1200}\n{\"t\":1150}\n");
        ManualClock clock;
        auto job = makeJob(filePipeline(R"({"time_field":"t","max_out_of_orderness_ms":100})"),
                           dir.path, &clock);
        QVERIFY(!watermarkOf(*job, "wm")); // -inf before any record
        std::vector<std::int64_t> expected{899, 899, 1099, 1099};
        for (auto w : expected) {
            QCOMPARE(job->runFor(1), Job::Status::Running);
            QCOMPARE(*watermarkOf(*job, "wm"), w);
            QCOMPARE(*watermarkOf(*job, "out"), w); // sinks see the same W
        }
        QCOMPARE(job->run(), Job::Status::Finished);
        QCOMPARE(*watermarkOf(*job, "wm"), kMaxTime); // bounded input ends with +inf
        QCOMPARE(*job->snapshot().node("wm")->maxEventTime, std::int64_t(1200));
    }

    void missingOrBadTimeGoesToErrorsWrapped()
    {
        TempDir dir;
        auto r = runOver(
            dir, "{\"t\":5}\n{\"x\":1}\n{\"t\":\"soon\"}\n{\"t\":null}\nnot json\n[1]\n{\"t\":7}\n",
            R"({"time_field":"t","max_out_of_orderness_ms":0})");
        QCOMPARE(r.status, Job::Status::Finished);
        auto out = testing::readLines(dir.file("out.jsonl"));
        QCOMPARE(out.size(), std::size_t(2));
        auto errs = testing::readLines(dir.file("errors.jsonl"));
        QCOMPARE(errs.size(), std::size_t(3)); // the watermark node's errors
        auto first = nlohmann::json::parse(errs[0]);
        QCOMPARE(first["reason"].get<std::string>(), std::string("missing time field `t`"));
        QCOMPARE(first["node"].get<std::string>(), std::string("wm"));
        QCOMPARE(first["watermark"].get<std::int64_t>(), std::int64_t(4));
        QCOMPARE(first["record"]["x"].get<int>(), 1);
        QVERIFY(nlohmann::json::parse(errs[1])["reason"].get<std::string>().find("not a number")
                != std::string::npos);
        QCOMPARE(r.metrics.node("wm")->errors, std::int64_t(3));
        QCOMPARE(r.metrics.node("src")->errors, std::int64_t(2)); // not json, not an object
    }

    void timeFieldFoundWhereverItIs()
    {
        // The node looks where it found the time field last first (keys::findField): records
        // whose field moves, one with another name of the same length at that place (a large
        // number that must not be read as the time), and one without it.
        TempDir dir;
        auto r = runOver(dir,
                         "{\"t\":5,\"x\":1}\n{\"x\":9000000,\"t\":6}\n{\"x\":9000001}\n"
                         "{\"a\":1,\"b\":2,\"t\":8}\n{\"t\":7,\"b\":9000002}\n",
                         R"({"time_field":"t","max_out_of_orderness_ms":100})");
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(testing::readLines(dir.file("out.jsonl")).size(), std::size_t(4));
        const auto errs = testing::readLines(dir.file("errors.jsonl"));
        QCOMPARE(errs.size(), std::size_t(1));
        QCOMPARE(nlohmann::json::parse(errs[0])["reason"].get<std::string>(),
                 std::string("missing time field `t`"));
        QCOMPARE(*r.metrics.node("wm")->maxEventTime, std::int64_t(8));
    }

    void timeFormats()
    {
        TempDir dir;
        auto r
            = runOver(dir,
                      "{\"t\":\"2024-03-01T12:00:00Z\"}\n{\"t\":\"2024-03-01T13:00:00.250+01:"
                      "00\"}\n{\"t\":\"2024-03-01 12:00:01\"}\n{\"t\":\"yesterday\"}\n",
                      R"({"time_field":"t","time_format":"iso8601","max_out_of_orderness_ms":0})");
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(r.metrics.node("wm")->errors, std::int64_t(1));
        QCOMPARE(*r.metrics.node("wm")->maxEventTime, std::int64_t(1709294401000)); // 12:00:01Z
        auto s
            = runOver(dir, "{\"t\":1700000000}\n{\"t\":1700000000.5}\n",
                      R"({"time_field":"t","time_format":"epoch_s","max_out_of_orderness_ms":0})");
        QCOMPARE(*s.metrics.node("wm")->maxEventTime, std::int64_t(1700000000500));
    }

    void minimumOverPartitions()
    {
        TempDir dir;
        ManualClock clock;
        // Ordered generator, 2 partitions: event i (time start+i) is in partition i % 2.
        auto job = makeJob(R"({"format":"tideline/1","nodes":[
            {"id":"g","kind":"source.generator","params":{"count":6,"rate_per_s":1000,"start_time":1000,"partitions":2}},
            {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":0,"idle_timeout_ms":100}},
            {"id":"o","kind":"sink.discard"}],
            "edges":[{"from":"g.out","to":"wm.in"},{"from":"wm.out","to":"o.in"}]})",
                           dir.path, &clock);
        job->runFor(1);
        QVERIFY(!watermarkOf(*job, "wm")); // partition 1 has not produced: W stays -inf
        job->runFor(1);
        QCOMPARE(*watermarkOf(*job, "wm"), std::int64_t(999)); // min(1000-1, 1001-1)
        job->runFor(1);
        QCOMPARE(*watermarkOf(*job, "wm"), std::int64_t(1000)); // min(1001, 1000)
        auto inputs = job->snapshot().node("wm")->inputs;
        QCOMPARE(inputs.size(), std::size_t(2));
        QCOMPARE(inputs[0].name, std::string("partition 0"));
        QCOMPARE(*inputs[0].watermark, std::int64_t(1001));
    }

    void idlePartitionIsExcludedUntilItProducesAgain()
    {
        TempDir dir;
        ManualClock clock;
        auto job = makeJob(R"({"format":"tideline/1","nodes":[
            {"id":"g","kind":"source.generator","params":{"count":100,"rate_per_s":1000,"start_time":0,"partitions":3,"disorder":{"idle_partitions":1}}},
            {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":0,"idle_timeout_ms":100}},
            {"id":"o","kind":"sink.discard"}],
            "edges":[{"from":"g.out","to":"wm.in"},{"from":"wm.out","to":"o.in"}]})",
                           dir.path, &clock);
        job->runFor(10);
        QVERIFY(!watermarkOf(*job, "wm")); // partition 2 never produced and is not idle yet
        clock.advance(150);
        job->runFor(1); // the loop ticks: partitions idle for >= 100 ms are idle
        // Partitions 0 and 1 were also silent for 150 ms, so all went idle; the next records
        // reactivate 0 and 1 while 2 stays idle.
        job->runFor(4);
        const auto snap = job->snapshot(); // node() points into it: keep it alive
        auto wm = snap.node("wm");
        QVERIFY(wm->watermark.has_value());
        QVERIFY(wm->inputs[2].idle);
        QVERIFY(!wm->inputs[0].idle && !wm->inputs[1].idle);
        QCOMPARE(wm->inputs[2].idleSinceMs, clock.nowMs());
        QCOMPARE(*wm->watermark,
                 std::int64_t(std::min(*wm->inputs[0].watermark, *wm->inputs[1].watermark)));
    }

    void sinkWithTwoInputsTakesTheMinimumAndSkipsIdleInputs()
    {
        TempDir dir;
        testing::writeFile(dir.file("a.jsonl"), "{\"t\":100}\n{\"t\":200}\n{\"t\":300}\n");
        testing::writeFile(dir.file("b.jsonl"), "{\"t\":50}\n");
        ManualClock clock;
        auto job = makeJob(R"({"format":"tideline/1","nodes":[
            {"id":"a","kind":"source.file","params":{"path":"a.jsonl"}},
            {"id":"b","kind":"source.file","params":{"path":"b.jsonl","pace":{"records_per_s":0.001}}},
            {"id":"wa","kind":"watermark","params":{"time_field":"t","max_out_of_orderness_ms":0}},
            {"id":"wb","kind":"watermark","params":{"time_field":"t","max_out_of_orderness_ms":0,"idle_timeout_ms":1000}},
            {"id":"o","kind":"sink.discard"}],
            "edges":[{"from":"a.out","to":"wa.in"},{"from":"b.out","to":"wb.in"},{"from":"wa.out","to":"o.in"},{"from":"wb.out","to":"o.in"}]})",
                           dir.path, &clock);
        // The loop visits sources in turn: a (100), b (50; paced, one record allowed), a (200).
        job->runFor(1);
        job->runFor(1);
        job->runFor(1);
        auto s = job->snapshot();
        QCOMPARE(*s.node("wa")->watermark, std::int64_t(199));
        QCOMPARE(*s.node("wb")->watermark, std::int64_t(49));
        QCOMPARE(*s.node("o")->watermark, std::int64_t(49)); // min over inputs
        clock.advance(2000); // b silent: its watermark node goes idle
        job->runFor(1);
        s = job->snapshot();
        QCOMPARE(*s.node("o")->watermark, std::int64_t(299)); // idle input excluded
        QVERIFY(s.node("o")->inputs[1].idle);
    }
};

QTEST_APPLESS_MAIN(TestWatermark)
#include "test_watermark.moc"
