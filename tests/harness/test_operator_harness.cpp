// testing::OperatorHarness itself: one operator built from a NodeSpec through the registry,
// driven by hand, its outputs and watermarks recorded, its state moved into a fresh instance.
// Each rule it copies from the runtime (watermark minimum over non-idle inputs, monotonic
// output watermarks, the final watermark of a finished source, counts) is checked here, so
// tests built on it can trust it.

#include <tideline/engine/record_json.hpp>
#include <tideline/engine/testing/operator_harness.hpp>

#include <QtTest>

using namespace tideline;
using testing::Emitted;
using testing::HarnessOptions;
using testing::OperatorHarness;

namespace {

std::unique_ptr<OperatorHarness> make(const std::string &id,
                                      const std::string &kind,
                                      const Json &params,
                                      HarnessOptions options = {})
{
    std::string error;
    auto h = OperatorHarness::create({id, kind, params, {}}, std::move(options), error);
    if (!h)
        qFatal("%s", error.c_str());
    return h;
}

Record rec(const char *json, Timestamp t)
{
    return OperatorHarness::record(json, t);
}

QStringList q(const std::vector<std::string> &lines)
{
    QStringList out;
    for (const auto &l : lines)
        out << QString::fromStdString(l);
    return out;
}

} // namespace

class OperatorHarnessTest : public QObject
{
    Q_OBJECT

private slots:
    void refusesWhatTheRuntimeRefuses()
    {
        std::string error;
        QVERIFY(!OperatorHarness::create({"x", "no.such.kind", Json::object(), {}}, {}, error));
        QCOMPARE(QString::fromStdString(error), QString("node `x`: unknown kind `no.such.kind`"));
        // The factory's ConfigError, named like Job::create names it.
        QVERIFY(!OperatorHarness::create(
            {"j", "join", {{"left_key", {"k"}}, {"right_key", {"k"}}, {"lower_ms", 5}}, {}}, {},
            error));
        QVERIFY2(error.rfind("node `j`: params.lower_ms: must be <= upper_ms", 0) == 0,
                 error.c_str());
    }

    // dedup: records, duplicates, late records and the forwarded watermark, in emit order.
    void recordsLateAndWatermarksInOrder()
    {
        auto h = make("dd", "dedup", {{"key", {"id"}}, {"within_ms", 100}});
        h->processRecord(rec(R"({"id":1})", 10));
        h->processRecord(rec(R"({"id":1})", 11)); // duplicate: dropped, counted
        h->processRecord(rec(R"({"id":2})", 12));
        h->processWatermark(20);
        h->processWatermark(15);                  // lower: ignored, as the runtime ignores it
        h->processRecord(rec(R"({"id":3})", 20)); // t <= W: late
        QCOMPARE(q(h->lines()), QStringList({R"({"id":1})", R"({"id":2})"}));
        QCOMPARE(
            q(h->lines(Emitted::Type::Late)),
            QStringList({R"({"reason":"behind_watermark","watermark":20,"record":{"id":3}})"}));
        QCOMPARE(h->watermarks(), std::vector<Timestamp>({20}));
        const auto &ev = h->emitted();
        QCOMPARE(ev.size(), std::size_t(4));
        QVERIFY(ev[2].type == Emitted::Type::Watermark && ev[3].type == Emitted::Type::Late);
        QCOMPARE(ev[3].port, h->outputIndex("late"));
        QCOMPARE(ev[0].record.time, Timestamp(10));
        const auto m = h->metrics();
        QCOMPARE(m.recordsIn, 4);
        QCOMPARE(m.recordsOut, 2);
        QCOMPARE(m.late, 1);
        QCOMPARE(m.duplicatesDropped, 1);
        QCOMPARE(m.stateEntries, 2);
        QCOMPARE(m.watermark.value_or(-1), 20);
        QCOMPARE(m.maxEventTime.value_or(-1), 20);
        QCOMPARE(h->takeEmitted().size(), std::size_t(4));
        QVERIFY(h->emitted().empty());
    }

    // Two inputs: the combined watermark is the minimum, an idle input is left out of it, an
    // input that ended counts even while idle; processWatermark only when it advances.
    void combinesInputWatermarksLikeTheRuntime()
    {
        auto h
            = make("j", "join",
                   {{"left_key", {"k"}}, {"right_key", {"k"}}, {"lower_ms", 0}, {"upper_ms", 0}});
        const int left = h->inputIndex("left"), right = h->inputIndex("right");
        QVERIFY(left >= 0 && right >= 0 && left != right);
        h->processWatermark(left, 100);
        QCOMPARE(h->combinedInputWatermark(), kMinTime);
        h->processWatermark(right, 50);
        QCOMPARE(h->combinedInputWatermark(), Timestamp(50));
        h->setInputIdle(right, true);
        QCOMPARE(h->combinedInputWatermark(), Timestamp(100));
        h->setInputIdle(left, true); // all idle: held where it is
        QCOMPARE(h->combinedInputWatermark(), Timestamp(100));
        h->setInputIdle(left, false);
        h->processWatermark(left, 120);
        QCOMPARE(h->combinedInputWatermark(), Timestamp(120)); // right is still idle
        h->processWatermark(left, kMaxTime); // ended: counts although right is idle
        QCOMPARE(h->combinedInputWatermark(), kMaxTime);
        // Records go to the named input.
        auto j
            = make("j", "join",
                   {{"left_key", {"k"}}, {"right_key", {"k"}}, {"lower_ms", 0}, {"upper_ms", 0}});
        j->processRecord("left", rec(R"({"k":"a","n":1})", 5));
        j->processRecord("right", rec(R"({"k":"a","n":2})", 5));
        QCOMPARE(q(j->lines()),
                 QStringList({R"({"left":{"k":"a","n":1},"right":{"k":"a","n":2}})"}));
    }

    // A source: polled to the end, the final watermark follows; partitions() is reported.
    void sourcePolledToTheEnd()
    {
        auto h = make("src", "source.generator", {{"count", 25}, {"partitions", 3}});
        QVERIFY(h->source());
        int polls = 0;
        while (h->poll(10) != SourceOperator::Poll::Finished)
            QVERIFY(++polls < 100);
        QCOMPARE(h->lines().size(), std::size_t(25));
        QCOMPARE(h->watermarks().back(), kMaxTime);
        QCOMPARE(h->metrics().partitions, 3);
        QCOMPARE(h->metrics().recordsOut, 25);
    }

    // Processing time: the watermark node marks its input idle after idle_timeout_ms of ticks
    // without records, and active again with the next record.
    void processingTimeTicks()
    {
        auto h
            = make("wm", "watermark",
                   {{"time_field", "t"}, {"max_out_of_orderness_ms", 0}, {"idle_timeout_ms", 50}});
        h->processRecord(rec(R"({"t":1000})", kMinTime));
        QCOMPARE(h->outputWatermark(), Timestamp(999));
        QCOMPARE(h->emitted().front().record.time, Timestamp(1000)); // event time assigned
        h->advanceProcessingTime(20);
        QVERIFY(!h->outputIdle());
        h->advanceProcessingTime(40);
        QVERIFY(h->outputIdle());
        h->processRecord(rec(R"({"t":1001})", kMinTime));
        QVERIFY(!h->outputIdle());
        QCOMPARE(q(h->lines(Emitted::Type::Idle, -1)),
                 QStringList({R"({"idle":true})", R"({"idle":false})"}));
    }

    // Harnesses chain: what the watermark node emitted (records and watermarks, in order)
    // replayed into a window fires the window exactly as in a pipeline.
    void replayChainsOperators()
    {
        auto wm = make("wm", "watermark", {{"time_field", "t"}, {"max_out_of_orderness_ms", 0}});
        for (const char *line : {R"({"t":1,"u":"a"})", R"({"t":5,"u":"a"})", R"({"t":12,"u":"b"})"})
            wm->processRecord(rec(line, kMinTime));
        auto win = make("win", "window",
                        {{"type", "tumbling"},
                         {"size_ms", 10},
                         {"key", {"u"}},
                         {"aggregates", {{{"op", "count"}, {"as", "n"}}}}});
        win->replay(wm->emitted());
        QCOMPARE(
            q(win->lines()),
            QStringList({R"({"u":"a","window_start":0,"window_end":10,"n":2,"emit":"final"})"}));
        win->finish();
        QCOMPARE(win->lines().size(), std::size_t(2));
        QCOMPARE(win->outputWatermark(), kMaxTime);
    }

    // Snapshot -> fresh instance: the state, the watermarks and the behaviour carry over; a
    // snapshot of the restored copy is the same bytes.
    void snapshotRestoresIntoAFreshInstance()
    {
        auto a = make("dd", "dedup", {{"key", {"id"}}, {"within_ms", 100}});
        a->processRecord(rec(R"({"id":1})", 10));
        a->processWatermark(30);
        const auto snap = a->snapshot();
        QCOMPARE(snap.kind, std::string("dedup"));
        QVERIFY(!snap.fingerprint.empty());
        std::string error;
        auto b = a->restoredCopy(error);
        QVERIFY2(b, error.c_str());
        QCOMPARE(b->outputWatermark(), Timestamp(30));
        QCOMPARE(b->combinedInputWatermark(), Timestamp(30));
        QVERIFY(b->snapshot().state == snap.state);
        b->processRecord(rec(R"({"id":1})", 40)); // still a duplicate after the restore
        b->processRecord(rec(R"({"id":2})", 41));
        b->processRecord(rec(R"({"id":9})", 30)); // still behind the restored watermark
        QCOMPARE(q(b->lines()), QStringList({R"({"id":2})"}));
        QCOMPARE(b->metrics().late, 1);
        QCOMPARE(b->metrics().duplicatesDropped, 1);
    }

    // What a checkpoint restore refuses, the harness refuses: another fingerprint, another
    // kind, state cut short, bytes left over.
    void restoreChecksLikeACheckpointRestore()
    {
        auto a = make("dd", "dedup", {{"key", {"id"}}, {"within_ms", 100}});
        a->processRecord(rec(R"({"id":1})", 10));
        auto snap = a->snapshot();
        auto otherKey = make("dd", "dedup", {{"key", {"user"}}, {"within_ms", 100}});
        std::string err = otherKey->restore(snap);
        QVERIFY2(err.find("node `dd`: incompatible (saved `dedup/1 key=id`") == 0, err.c_str());
        auto win
            = make("dd", "window",
                   {{"type", "tumbling"}, {"size_ms", 10}, {"aggregates", {{{"op", "count"}}}}});
        err = win->restore(snap);
        QVERIFY2(err.find("incompatible (kind dedup -> window)") != std::string::npos, err.c_str());
        auto cut = snap;
        cut.state.resize(cut.state.size() - 3);
        err = make("dd", "dedup", {{"key", {"id"}}, {"within_ms", 100}})->restore(cut);
        QVERIFY2(!err.empty(), "a truncated state was accepted");
        auto longer = snap;
        longer.state += "xyz";
        err = make("dd", "dedup", {{"key", {"id"}}, {"within_ms", 100}})->restore(longer);
        QVERIFY2(err.find("left part of its state unread") != std::string::npos, err.c_str());
    }

    // settings.state "rocksdb": a window with a tiny budget spills, and its snapshot (deferred
    // part included) restores into a memory-mode instance with the same output.
    void spillingStateRoundTrip()
    {
        const Json params = {{"type", "tumbling"},
                             {"size_ms", 1000},
                             {"key", {"u"}},
                             {"aggregates", {{{"op", "count"}, {"as", "n"}}}}};
        HarnessOptions spill;
        spill.spillMemoryMb = 0.002;
        auto a = make("win", "window", params, spill);
        auto ref = make("win", "window", params);
        for (int i = 0; i < 3000; ++i) {
            const std::string line = "{\"u\":\"k" + std::to_string(i % 700) + "\"}";
            a->processRecord(rec(line.c_str(), i / 3));
            ref->processRecord(rec(line.c_str(), i / 3));
        }
        QVERIFY2(a->metrics().stateSpilled > 0, "nothing spilled");
        QCOMPARE(ref->metrics().stateSpilled, 0);
        std::string error;
        auto b = make("win", "window", params);
        QVERIFY2((error = b->restore(a->snapshot())).empty(), error.c_str());
        b->finish();
        ref->finish();
        QCOMPARE(b->lines().size(), std::size_t(700));
        QCOMPARE(q(b->lines()), q(ref->lines()));
    }

    // Output::connected() follows the options; what is emitted anyway is still recorded.
    void unconnectedPorts()
    {
        HarnessOptions o;
        o.unconnected = {"late"};
        auto h = make("dd", "dedup", {{"key", {"id"}}, {"within_ms", 100}}, o);
        QVERIFY(h->connected(0, h->outputIndex("out")));
        QVERIFY(!h->connected(0, h->outputIndex("late")));
        QVERIFY(!h->connected(0, 99));
    }
};

QTEST_GUILESS_MAIN(OperatorHarnessTest)
#include "test_operator_harness.moc"
