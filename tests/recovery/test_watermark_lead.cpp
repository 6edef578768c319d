// Issue 23 item 8: one absurd timestamp poisons the stream. With `max_lead_ms` the watermark
// node sends a record whose event time is further ahead of processing time than that to
// `errors` (with the reason) instead of moving the watermark there; validation warns when a
// Kafka source's watermark node has no such guard.

#include "checkpoint_edit.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/validate.hpp>

#include <QtTest>

using namespace tideline;
using tideline::recoverytest::Harness;

namespace {

constexpr std::int64_t kTenYearsMs = 10LL * 365 * 24 * 3600 * 1000;

/// 100 records 100 ms apart starting at the clock's time; `badAt` (if >= 0) is a record ten
/// years ahead inserted before record badAt.
std::string input(std::int64_t base, int badAt)
{
    std::string s;
    for (int i = 0; i < 100; ++i) {
        if (i == badAt)
            s += "{\"user\":\"bad\",\"t\":" + std::to_string(base + kTenYearsMs) + "}\n";
        s += "{\"user\":\"u" + std::to_string(i % 3) + "\",\"t\":" + std::to_string(base + i * 100)
             + "}\n";
    }
    return s;
}

std::string pipeline(const std::string &leadParam)
{
    return R"({"format":"tideline/1","name":"lead","nodes":[
      {"id":"in","kind":"source.file","params":{"path":"events.jsonl"}},
      {"id":"wm","kind":"watermark","params":{"time_field":"t","max_out_of_orderness_ms":0)"
           + leadParam + R"(}},
      {"id":"w","kind":"window","params":{"type":"tumbling","size_ms":1000,"aggregates":[{"op":"count","as":"n"}]}},
      {"id":"out","kind":"sink.file","params":{"path":"out/windows.jsonl"}},
      {"id":"late","kind":"sink.file","params":{"path":"out/late.jsonl"}},
      {"id":"bad","kind":"sink.file","params":{"path":"out/errors.jsonl"}},
      {"id":"inbad","kind":"sink.file","params":{"path":"out/in-errors.jsonl"}}],
      "edges":[{"from":"in.out","to":"wm.in"},{"from":"in.errors","to":"inbad.in"},
        {"from":"wm.out","to":"w.in"},{"from":"wm.errors","to":"bad.in"},
        {"from":"w.out","to":"out.in"},{"from":"w.late","to":"late.in"}]})";
}

struct Outcome
{
    std::int64_t counted = 0; ///< sum of window counts
    std::vector<Json> errors;
    std::size_t late = 0;
};

Outcome run(Harness &h, const std::string &json)
{
    Outcome o;
    std::string error;
    auto job = h.make(json, error);
    if (!job)
        qFatal("%s", error.c_str());
    if (job->run() != Job::Status::Finished)
        qFatal("%s", job->failure().c_str());
    job.reset();
    for (const auto &l : tideline::testing::readLines(h.file("out/windows.jsonl")))
        o.counted += Json::parse(l)["n"].get<std::int64_t>();
    for (const auto &l : tideline::testing::readLines(h.file("out/errors.jsonl")))
        o.errors.push_back(Json::parse(l));
    o.late = tideline::testing::readLines(h.file("out/late.jsonl")).size();
    return o;
}

} // namespace

class TestWatermarkLead : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void withoutTheGuardOneRecordMakesTheRestLate()
    {
        // The behaviour the guard exists for (Flink's too): everything after it is late.
        Harness h;
        tideline::testing::writeFile(h.file("events.jsonl"), input(h.clock.nowMs(), 50));
        Outcome o = run(h, pipeline(""));
        QCOMPARE(o.late, std::size_t(50));
        QVERIFY(o.errors.empty());
    }

    void farFutureRecordGoesToErrorsWithTheReason()
    {
        Harness h;
        tideline::testing::writeFile(h.file("events.jsonl"), input(h.clock.nowMs(), 50));
        Outcome o = run(h, pipeline(R"(,"max_lead_ms":3600000)"));
        QCOMPARE(o.late, std::size_t(0));
        QCOMPARE(o.counted, std::int64_t(100));
        QCOMPARE(o.errors.size(), std::size_t(1));
        const Json &e = o.errors[0];
        const std::string reason = e["reason"].get<std::string>();
        QVERIFY2(reason.find("ahead of processing time") != std::string::npos, reason.c_str());
        QVERIFY2(reason.find("max_lead_ms 3600000") != std::string::npos, reason.c_str());
        QCOMPARE(e["node"].get<std::string>(), std::string("wm"));
        QCOMPARE(e["record"]["user"].get<std::string>(), std::string("bad"));
    }

    // The watermark is still -inf at the first record: a lead over the watermark could not
    // judge it, a lead over processing time can.
    void absurdFirstRecordIsCaughtToo()
    {
        Harness h;
        tideline::testing::writeFile(h.file("events.jsonl"), input(h.clock.nowMs(), 0));
        Outcome o = run(h, pipeline(R"(,"max_lead_ms":60000)"));
        QCOMPARE(o.errors.size(), std::size_t(1));
        QCOMPARE(o.late, std::size_t(0));
        QCOMPARE(o.counted, std::int64_t(100));
    }

    // A replay of old data is far behind processing time: nothing is rejected, however far the
    // stream's own time jumps (a lead over the watermark would reject everything after a gap).
    void oldDataWithGapsPasses()
    {
        Harness h;
        const std::int64_t past = h.clock.nowMs() - 2 * kTenYearsMs;
        std::string s;
        for (int i = 0; i < 100; ++i)
            s += "{\"user\":\"u\",\"t\":" + std::to_string(past + (i < 50 ? i : i + 1000000) * 1000)
                 + "}\n";
        tideline::testing::writeFile(h.file("events.jsonl"), s);
        Outcome o = run(h, pipeline(R"(,"max_lead_ms":1000)"));
        QVERIFY(o.errors.empty());
        QCOMPARE(o.counted, std::int64_t(100));
    }

    void paramIsCheckedAndDescribed()
    {
        auto r = loadSpec(pipeline(R"(,"max_lead_ms":-5)"));
        QVERIFY(!r.ok());
        const NodeKind *k = findNodeKind("watermark");
        QVERIFY(k->param("max_lead_ms") != nullptr);
        QCOMPARE(k->param("max_lead_ms")->defaultValue.get<int>(), 0);
    }

    void kafkaWithoutTheGuardGetsAPitfallWarning()
    {
        auto spec = [](const std::string &lead) {
            return R"({"format":"tideline/1","name":"k","nodes":[
              {"id":"k","kind":"source.kafka","params":{"bootstrap_servers":"localhost:9092","topic":"t"}},
              {"id":"wm","kind":"watermark","params":{"time_field":"ts","max_out_of_orderness_ms":1000,"idle_timeout_ms":10000)"
                   + lead + R"(}},
              {"id":"o","kind":"sink.console"}],
              "edges":[{"from":"k.out","to":"wm.in"},{"from":"wm.out","to":"o.in"}]})";
        };
        auto warned = [](const LoadResult &r) {
            for (const auto &d : r.diagnostics)
                if (!d.isError() && d.path == "nodes[1].params.max_lead_ms"
                    && d.message.find("far in the future") != std::string::npos)
                    return true;
            return false;
        };
        auto off = loadSpec(spec(""));
        QVERIFY2(off.ok(), tideline::testing::diagnosticsText(off.diagnostics).c_str());
        QVERIFY2(warned(off), tideline::testing::diagnosticsText(off.diagnostics).c_str());
        auto on = loadSpec(spec(R"(,"max_lead_ms":86400000)"));
        QVERIFY(on.ok());
        QVERIFY2(!warned(on), tideline::testing::diagnosticsText(on.diagnostics).c_str());
        // A file source gets no such warning (a replay is usually far behind processing time).
        auto file = loadSpec(pipeline(""));
        QVERIFY(!warned(file));
    }
};

QTEST_GUILESS_MAIN(TestWatermarkLead)
#include "test_watermark_lead.moc"
