// settings.semantics "spark" and "kafka-streams", held to the peers' own tests.
//
// Every case below is one test of Spark's or Kafka Streams' suite (named in the comment above
// it): the same input records, the same micro-batches (Spark: one AddData is one batch, set
// apart by the field `b` through settings.spark.batch_field) or the same record order (Kafka
// Streams: one pipeInput is one record), and the result that test asserts. Spark's tests count
// in seconds; here t is in milliseconds, so 10 s is 10000. What a peer test does not see (the
// rows Tideline adds at the end of a bounded input, when every mode flushes) is marked
// "flush" in the expectation.

// clang-format off
#include "semantics/spark_clock.hpp"

#include <tideline/engine/spec.hpp>
#include <tideline/engine/validate.hpp>

#include "semantics_runner.hpp"
#include "qt_lines.hpp"
// clang-format on

#include <QtTest>

#include <algorithm>
#include <sstream>
#include <tuple>

using namespace tideline;
using testing::ModeRun;

namespace {

Json spark(const Json &extra = Json::object())
{
    Json s = {{"trigger_records", 1000000}, {"batch_field", "b"}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        s[it.key()] = it.value();
    return {{"semantics", "spark"}, {"spark", s}};
}

Json kafka(const char *kind)
{
    return {{"semantics", "kafka-streams"}, {"kafka_streams", {{"emit", kind}}}};
}

/// A window row as the sink writes it (key fields, window_start, window_end, aggregates, emit).
std::string row(const Json &key, Timestamp start, Timestamp end, const Json &aggs, const char *kind)
{
    Json r = key.is_null() ? Json::object() : key;
    r["window_start"] = start;
    r["window_end"] = end;
    for (auto it = aggs.begin(); it != aggs.end(); ++it)
        r[it.key()] = it.value();
    r["emit"] = kind;
    return r.dump();
}

std::string late(Timestamp t, Timestamp wm)
{
    return "late t=" + std::to_string(t) + " wm=" + std::to_string(wm);
}

QStringList q(const std::vector<std::string> &v)
{
    return testing::toQStringList(v);
}

} // namespace

class SemanticsTest : public QObject
{
    Q_OBJECT

    testing::TempDir m_dir;

    ModeRun run(const Json &settings, const Json &node, std::int64_t delay, std::vector<Json> in)
    {
        ModeRun r = testing::runMode(m_dir.path.string(), settings, node, delay, in);
        if (!r.error.empty())
            qWarning("%s", r.error.c_str());
        return r;
    }

    static Json tumbling(Timestamp size, const Json &key = Json::array())
    {
        return {{"kind", "window"},
                {"params",
                 {{"type", "tumbling"},
                  {"size_ms", size},
                  {"key", key},
                  {"aggregates", {{{"op", "count"}, {"as", "count"}}}}}}};
    }

private slots:
    // ---------------------------------------------------------------- Spark: the watermark

    // EventTimeWatermarkSuite "watermark with 2 streams": the global watermark (min policy) is 0
    // until both inputs have data, follows the slower input, and never decreases.
    void sparkGlobalWatermarkWithTwoStreams()
    {
        semantics::SparkClock c(1000, "", false);
        const int first = c.addInput(10000), second = c.addInput(5000);
        auto after = [&](std::vector<Timestamp> a, std::vector<Timestamp> b) {
            for (Timestamp t : a)
                c.observe(first, t * 1000);
            for (Timestamp t : b)
                c.observe(second, t * 1000);
            return c.endBatch();
        };
        QCOMPARE(after({11}, {}), Timestamp(0));
        QCOMPARE(after({}, {6}), Timestamp(1000));
        QCOMPARE(after({}, {8}), Timestamp(1000));
        QCOMPARE(after({21}, {}), Timestamp(3000));
        QCOMPARE(after({}, {17, 28, 39}), Timestamp(11000));
        QCOMPARE(after({31}, {}), Timestamp(21000));
        QCOMPARE(after({41}, {}), Timestamp(31000));
        QCOMPARE(after({51}, {}), Timestamp(34000));
        QCOMPARE(after({100}, {100}), Timestamp(90000));
        QCOMPARE(after({120}, {110}), Timestamp(105000));
        QCOMPARE(after({130}, {125}), Timestamp(120000));
        QCOMPARE(after({100}, {100}), Timestamp(120000));
        QCOMPARE(after({140}, {100}), Timestamp(120000));
        QCOMPARE(after({100}, {135}), Timestamp(130000));
        QCOMPARE(after({200}, {190}), Timestamp(185000));
    }

    // EventTimeWatermarkSuite "MultipleWatermarkPolicy: max" and "...: min" (delays 10 s, 15 s).
    void sparkWatermarkPolicies()
    {
        for (bool maxPolicy : {true, false}) {
            semantics::SparkClock c(1000, "", maxPolicy);
            const int in1 = c.addInput(10000), in2 = c.addInput(15000);
            c.observe(in1, 20000);
            c.observe(in2, 30000);
            QCOMPARE(c.endBatch(), Timestamp(maxPolicy ? 15000 : 10000));
            c.observe(in1, 120000);
            c.observe(in2, 130000);
            QCOMPARE(c.endBatch(), Timestamp(maxPolicy ? 115000 : 110000));
            c.observe(maxPolicy ? in1 : in2, 150000);
            // max: advances with one input's data; min: does not
            QCOMPARE(c.endBatch(), Timestamp(maxPolicy ? 140000 : 110000));
        }
    }

    // Batches end after trigger_records source records, or before a record whose batch_field
    // value differs from the previous record's, whichever comes first.
    void sparkBatchBoundaries()
    {
        semantics::SparkClock c(3, "b", false);
        Record r1, r2;
        r1.set(std::string_view("b"), Value::integer(1));
        r2.set(std::string_view("b"), Value::integer(2));
        QVERIFY(!c.startsNewBatch(r1));
        QVERIFY(!c.countRecord());
        QVERIFY(!c.startsNewBatch(r1));
        QVERIFY(!c.countRecord());
        QVERIFY(c.startsNewBatch(r2)); // the value changed: the batch of two ends first
        (void)c.endBatch();
        QVERIFY(!c.countRecord());
        QVERIFY(!c.startsNewBatch(r2));
        QVERIFY(!c.countRecord());
        QVERIFY(!c.startsNewBatch(r2));
        QVERIFY(c.countRecord()); // the third record fills the batch
    }

    // ---------------------------------------------------------------- Spark: windows

    // EventTimeWatermarkSuite "append mode": 5 s tumbling windows, delay 10 s. The window
    // [10, 15) is written in the no-data batch after the batch with 25 (W = 15 >= its end), before
    // the next batch's late 10 (end 15 <= W: dropped, not merely t <= W).
    void sparkAppendMode()
    {
        const auto r = run(spark(), tumbling(5000), 10000,
                           {{{"b", 1}, {"t", 10000}},
                            {{"b", 1}, {"t", 11000}},
                            {{"b", 1}, {"t", 12000}},
                            {{"b", 1}, {"t", 13000}},
                            {{"b", 1}, {"t", 14000}},
                            {{"b", 1}, {"t", 15000}},
                            {{"b", 2}, {"t", 25000}},
                            {{"b", 3}, {"t", 10000}}});
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({row({}, 10000, 15000, {{"count", 5}}, "final"), late(10000, 15000),
                                row({}, 15000, 20000, {{"count", 1}}, "final"),    // flush
                                row({}, 25000, 30000, {{"count", 1}}, "final")})); // flush
        QCOMPARE(r.reasons.front(),
                 std::string("Spark drops this row silently (its window ends at or below the "
                             "watermark)"));
    }

    // EventTimeWatermarkSuite "update mode": each batch writes the rows it changed.
    void sparkUpdateMode()
    {
        const auto r = run(spark({{"output_mode", "update"}}), tumbling(5000), 10000,
                           {{{"b", 1}, {"t", 10000}},
                            {{"b", 1}, {"t", 11000}},
                            {{"b", 1}, {"t", 12000}},
                            {{"b", 1}, {"t", 13000}},
                            {{"b", 1}, {"t", 14000}},
                            {{"b", 1}, {"t", 15000}},
                            {{"b", 2}, {"t", 25000}},
                            {{"b", 3}, {"t", 10000}},
                            {{"b", 3}, {"t", 25000}},
                            {{"b", 4}, {"t", 10000}}});
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines),
                 q({row({}, 10000, 15000, {{"count", 5}}, "update"),
                    row({}, 15000, 20000, {{"count", 1}}, "update"),
                    row({}, 25000, 30000, {{"count", 1}}, "update"), late(10000, 15000),
                    row({}, 25000, 30000, {{"count", 2}}, "update"), late(10000, 15000)}));
    }

    // EventTimeWatermarkSuite "append mode - session": 5 s sessions per valuegroup (v / 10),
    // count and sum, delay 10 s.
    void sparkAppendSession()
    {
        Json node = {{"kind", "window"},
                     {"params",
                      {{"type", "session"},
                       {"gap_ms", 5000},
                       {"key", {"g"}},
                       {"aggregates",
                        {{{"op", "count"}, {"as", "count"}},
                         {{"op", "sum"}, {"field", "v"}, {"as", "sum"}}}}}}};
        std::vector<Json> in;
        int b = 0;
        for (std::vector<int> batch : {std::vector<int>{10, 11}, {17}, {25}, {35}, {10}, {40}}) {
            ++b;
            for (int v : batch)
                in.push_back({{"b", b}, {"v", v}, {"g", v / 10}, {"t", v * 1000}});
        }
        const auto r = run(spark(), node, 10000, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        auto s = [](int g, int start, int end, int count, int sum) {
            return row({{"g", g}}, start * 1000, end * 1000, {{"count", count}, {"sum", sum}},
                       "final");
        };
        QCOMPARE(q(r.lines), q({s(1, 10, 16, 2, 21), s(1, 17, 22, 1, 17), late(10000, 25000),
                                s(2, 25, 30, 1, 25) /* the last batch's end */,
                                s(3, 35, 40, 1, 35) /* flush */, s(4, 40, 45, 1, 40) /* flush */}));
    }

    // StreamingSessionWindowSuite "append mode - session window": words of sentences, 10 s
    // sessions, delay 30 s; a session at 30 s joins [25, 35) and [40, 50) into [25, 50): sessions
    // that touch merge. The 0 s row's session [0, 10) ends at or below W = 11: dropped (2 rows).
    void sparkSessionWindowSuiteAppend()
    {
        Json node = {{"kind", "window"},
                     {"params",
                      {{"type", "session"},
                       {"gap_ms", 10000},
                       {"key", {"w"}},
                       {"aggregates", {{{"op", "count"}, {"as", "count"}}}}}}};
        std::vector<Json> in;
        int b = 0;
        auto add = [&](std::vector<std::pair<std::string, int>> sentences) {
            ++b;
            for (const auto &[text, sec] : sentences) {
                std::istringstream words(text);
                for (std::string w; words >> w;)
                    in.push_back({{"b", b}, {"w", w}, {"t", sec * 1000}});
            }
        };
        add({{"hello world spark streaming", 40}, {"world hello structured streaming", 41}});
        add({{"spark streaming", 25}});
        add({{"spark streaming", 0}});
        add({{"spark streaming", 30}});
        add({{"hello apache spark", 60}});
        add({{"structured streaming", 90}});
        const auto r = run(spark(), node, 30000, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        auto s = [](const char *w, int start, int end, int count) {
            return row({{"w", w}}, start * 1000, end * 1000, {{"count", count}}, "final");
        };
        QCOMPARE(
            q(r.lines),
            q({late(0, 11000), late(0, 11000), s("spark", 25, 50, 3), s("streaming", 25, 51, 4),
               s("hello", 40, 51, 2), s("world", 40, 51, 2), s("structured", 41, 51, 1),
               // flush: the sessions the suite's last batch leaves open
               s("apache", 60, 70, 1), s("hello", 60, 70, 1), s("spark", 60, 70, 1),
               s("streaming", 90, 100, 1), s("structured", 90, 100, 1)}));
    }

    // Validation: Spark's analyzer rejects session windows in update mode.
    void sparkUpdateModeRejectsSessions()
    {
        const auto r
            = run(spark({{"output_mode", "update"}}),
                  {{"kind", "window"},
                   {"params",
                    {{"type", "session"}, {"gap_ms", 10}, {"aggregates", {{{"op", "count"}}}}}}},
                  0, {{{"b", 1}, {"t", 1}}});
        QVERIFY(r.error.find("nodes[2] \"op\": params.type") != std::string::npos);
        QVERIFY(r.error.find("Spark does not support session windows in update output mode")
                != std::string::npos);
    }

    // ---------------------------------------------------------------- Spark: dedup

    // StreamingDeduplicationWithinWatermarkSuite "deduplicate with subset of columns which event
    // time column is not in subset": key _1, delay 2 s. A key lives until W >= t0 + delay; a row
    // at or below W is dropped.
    void sparkDedupWithinWatermark()
    {
        Json node = {{"kind", "dedup"}, {"params", {{"key", {"id"}}, {"within_ms", 1}}}};
        std::vector<Json> in;
        int b = 0;
        for (std::vector<std::pair<const char *, int>> batch :
             {std::vector<std::pair<const char *, int>>{{"a", 17}},
              {{"a", 16}},
              {{"a", 13}},
              {{"b", 22}, {"c", 21}},
              {{"a", 21}},
              {{"d", 25}}}) {
            ++b;
            for (const auto &[id, sec] : batch)
                in.push_back({{"b", b}, {"id", id}, {"t", sec * 1000}});
        }
        const auto r = run(spark(), node, 2000, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines),
                 q({"pass id=\"a\" t=17000", late(13000, 15000), "pass id=\"b\" t=22000",
                    "pass id=\"c\" t=21000", "pass id=\"a\" t=21000", "pass id=\"d\" t=25000"}));
        QCOMPARE(r.reasons.front(),
                 std::string("Spark drops this row silently (at or below the watermark)"));
        QCOMPARE(r.metrics.node("op")->duplicatesDropped, std::int64_t(1));
    }

    // The boundary the issue names: a row exactly at W is dropped (no -1 ms as in Flink).
    void sparkDedupDropsRowExactlyAtWatermark()
    {
        Json node = {{"kind", "dedup"}, {"params", {{"key", {"id"}}, {"within_ms", 1}}}};
        const auto r = run(spark(), node, 2000,
                           {{{"b", 1}, {"id", "a"}, {"t", 17000}},
                            {{"b", 2}, {"id", "x"}, {"t", 15000}},
                            {{"b", 2}, {"id", "y"}, {"t", 15001}}});
        QCOMPARE(q(r.lines),
                 q({"pass id=\"a\" t=17000", late(15000, 15000), "pass id=\"y\" t=15001"}));
    }

    // ---------------------------------------------------------------- Kafka Streams: windows

    // SuppressScenarioTest "shouldSupportFinalResultsForTimeWindows": 2 ms windows, grace 1 ms
    // (allowed_lateness_ms 1, watermark delay 0). updates = "output-raw", on_close =
    // "output-suppressed"; the last 0 is dropped (stream time 5 >= end 2 + grace 1).
    void kafkaFinalResultsForTimeWindows()
    {
        Json node = tumbling(2, Json::array({"k"}));
        node["params"]["allowed_lateness_ms"] = 1;
        std::vector<Json> in;
        for (int t : {0, 1, 2, 1, 0, 5, 0})
            in.push_back({{"k", "k1"}, {"t", t}});
        auto w = [](int s, int e, int n, const char *kind) {
            return row({{"k", "k1"}}, s, e, {{"count", n}}, kind);
        };
        const auto raw = run(kafka("updates"), node, 0, in);
        QVERIFY2(raw.error.empty(), raw.error.c_str());
        QCOMPARE(q(raw.lines),
                 q({w(0, 2, 1, "update"), w(0, 2, 2, "update"), w(2, 4, 1, "update"),
                    w(0, 2, 3, "update"), w(0, 2, 4, "update"), w(4, 6, 1, "update"), late(0, 4)}));
        const auto fin = run(kafka("on_close"), node, 0, in);
        QCOMPARE(q(fin.lines), q({w(0, 2, 4, "final"), w(2, 4, 1, "final"), late(0, 4),
                                  w(4, 6, 1, "final") /* flush */}));
        QVERIFY(fin.reasons.front().starts_with("Kafka Streams drops this record"));
    }

    // KStreamWindowAggregateTest "shouldLogAndMeterWhenSkippingExpiredWindowByGrace": 10 ms
    // windows, grace 90 ms. After the record at 200, stream time 200 >= 110 + 90, so the six
    // records 100..105 and the one at 6 are dropped (seven drops, one update row).
    void kafkaSkipsExpiredWindowByGrace()
    {
        Json node = tumbling(10, Json::array({"k"}));
        node["params"]["allowed_lateness_ms"] = 90;
        std::vector<Json> in;
        for (int t : {200, 100, 101, 102, 103, 104, 105, 6})
            in.push_back({{"k", "k"}, {"t", t}});
        const auto r = run(kafka("updates"), node, 0, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(r.lines.size(), std::size_t(8));
        QCOMPARE(QString::fromStdString(r.lines[0]),
                 QString::fromStdString(row({{"k", "k"}}, 200, 210, {{"count", 1}}, "update")));
        QCOMPARE(r.metrics.node("op")->late, std::int64_t(7));
    }

    // KStreamWindowAggregateTest "shouldEmitWithInterval0": hopping 10 ms windows advancing by
    // 5 ms, grace 5 ms (here: the watermark's max_out_of_orderness_ms 5, which Kafka Streams mode
    // adds to the grace). A@0 is in [0, 10) only: hopping windows never start before 0.
    void kafkaHoppingEmitWithInterval0()
    {
        Json node = {{"kind", "window"},
                     {"params",
                      {{"type", "sliding"},
                       {"size_ms", 10},
                       {"slide_ms", 5},
                       {"key", {"k"}},
                       {"aggregates", {{{"op", "count"}, {"as", "count"}}}}}}};
        std::vector<Json> in;
        for (auto [k, t] : std::vector<std::pair<const char *, int>>{
                 {"A", 0}, {"A", 5}, {"B", 10}, {"C", 15}, {"D", 20}})
            in.push_back({{"k", k}, {"t", t}});
        auto w = [](const char *k, int s, int n, const char *kind) {
            return row({{"k", k}}, s, s + 10, {{"count", n}}, kind);
        };
        const auto upd = run(kafka("updates"), node, 5, in);
        QVERIFY2(upd.error.empty(), upd.error.c_str());
        QCOMPARE(q(upd.lines),
                 q({w("A", 0, 1, "update"), w("A", 0, 2, "update"), w("A", 5, 1, "update"),
                    w("B", 5, 1, "update"), w("B", 10, 1, "update"), w("C", 10, 1, "update"),
                    w("C", 15, 1, "update"), w("D", 15, 1, "update"), w("D", 20, 1, "update")}));
        const auto fin = run(kafka("on_close"), node, 5, in);
        QCOMPARE(q(fin.lines),
                 q({w("A", 0, 2, "final"), w("A", 5, 1, "final"), w("B", 5, 1, "final"),
                    // flush
                    w("B", 10, 1, "final"), w("C", 10, 1, "final"), w("C", 15, 1, "final"),
                    w("D", 15, 1, "final"), w("D", 20, 1, "final")}));
    }

    // KStreamWindowAggregateTest "shouldNotEmitFinalIfNotProgressEnough": on_close writes only
    // windows whose end + grace stream time has reached.
    void kafkaNoFinalWithoutProgress()
    {
        Json node = {{"kind", "window"},
                     {"params",
                      {{"type", "sliding"},
                       {"size_ms", 10},
                       {"slide_ms", 5},
                       {"key", {"k"}},
                       {"allowed_lateness_ms", 5},
                       {"aggregates", {{{"op", "count"}, {"as", "count"}}}}}}};
        std::vector<Json> in;
        for (auto [k, t] : std::vector<std::pair<const char *, int>>{
                 {"A", 0}, {"B", 5}, {"C", 15}, {"D", 15}, {"E", 19}})
            in.push_back({{"k", k}, {"t", t}});
        const auto fin = run(kafka("on_close"), node, 0, in);
        QVERIFY2(fin.error.empty(), fin.error.c_str());
        // Before the flush only A and B of [0, 10); [5, 15) waits for stream time 20.
        QVERIFY(fin.lines.size() > 2);
        QCOMPARE(QString::fromStdString(fin.lines[0]),
                 QString::fromStdString(row({{"k", "A"}}, 0, 10, {{"count", 1}}, "final")));
        QCOMPARE(QString::fromStdString(fin.lines[1]),
                 QString::fromStdString(row({{"k", "B"}}, 0, 10, {{"count", 1}}, "final")));
        QCOMPARE(QString::fromStdString(fin.lines[2]),
                 QString::fromStdString(row({{"k", "B"}}, 5, 15, {{"count", 1}}, "final")));
    }

    // SuppressScenarioTest "shouldSupportFinalResultsForSlidingWindows": SlidingWindows with a
    // time difference of 5 ms and grace 15 ms ("sliding" without slide_ms).
    void kafkaFinalResultsForSlidingWindows()
    {
        Json node = {{"kind", "window"},
                     {"params",
                      {{"type", "sliding"},
                       {"size_ms", 5},
                       {"key", {"k"}},
                       {"allowed_lateness_ms", 15},
                       {"aggregates", {{{"op", "count"}, {"as", "count"}}}}}}};
        std::vector<Json> in;
        for (int t : {10, 11, 10, 13, 10, 24, 5, 7, 90})
            in.push_back({{"k", "k1"}, {"t", t}});
        auto w = [](int s, int e, int n, const char *kind) {
            return row({{"k", "k1"}}, s, e, {{"count", n}}, kind);
        };
        const auto raw = run(kafka("updates"), node, 0, in);
        QVERIFY2(raw.error.empty(), raw.error.c_str());
        // The peer sorts the raw output by window and timestamp; so does this check.
        std::vector<std::string> got = raw.lines, want;
        for (auto [s, e, n] : std::vector<std::tuple<int, int, int>>{{11, 16, 1},
                                                                     {11, 16, 2},
                                                                     {12, 17, 1},
                                                                     {19, 24, 1},
                                                                     {5, 10, 1},
                                                                     {5, 10, 2},
                                                                     {5, 10, 3},
                                                                     {5, 10, 4},
                                                                     {5, 10, 5},
                                                                     {6, 11, 2},
                                                                     {6, 11, 3},
                                                                     {6, 11, 4},
                                                                     {6, 11, 5},
                                                                     {8, 13, 4},
                                                                     {8, 13, 5},
                                                                     {85, 90, 1}})
            want.push_back(w(s, e, n, "update"));
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        QCOMPARE(q(got), q(want));
        const auto fin = run(kafka("on_close"), node, 0, in);
        QCOMPARE(q(fin.lines), q({w(5, 10, 5, "final"), w(6, 11, 5, "final"), w(8, 13, 5, "final"),
                                  w(11, 16, 2, "final"), w(12, 17, 1, "final"),
                                  w(19, 24, 1, "final"), w(85, 90, 1, "final") /* flush */}));
    }

    // SuppressScenarioTest "shouldSupportFinalResultsForSessionWindows": 5 ms sessions, no
    // grace; sessions are [first, last] (window_end = last). k2@11 moves stream time for k1 too
    // (one partition), so k1's late 5 is dropped. Merged-away sessions' tombstones are not
    // written.
    void kafkaFinalResultsForSessionWindows()
    {
        Json node = {{"kind", "window"},
                     {"params",
                      {{"type", "session"},
                       {"gap_ms", 5},
                       {"key", {"k"}},
                       {"aggregates", {{{"op", "count"}, {"as", "count"}}}}}}};
        std::vector<Json> in;
        for (auto [k, t] : std::vector<std::pair<const char *, int>>{
                 {"k1", 0}, {"k1", 5}, {"k1", 1}, {"k2", 11}, {"k1", 5}, {"k1", 30}})
            in.push_back({{"k", k}, {"t", t}});
        auto w = [](const char *k, int s, int e, int n, const char *kind) {
            return row({{"k", k}}, s, e, {{"count", n}}, kind);
        };
        const auto raw = run(kafka("updates"), node, 0, in);
        QVERIFY2(raw.error.empty(), raw.error.c_str());
        // Each merge first retracts the sessions it replaced (Kafka Streams' tombstones;
        // test_semantics_retract.cpp holds them to KStreamSessionWindowAggregateProcessorTest).
        auto gone = [](const char *k, int s, int e) {
            return Json({{"k", k},
                         {"window_start", s},
                         {"window_end", e},
                         {"count", nullptr},
                         {"emit", "retract"}})
                .dump();
        };
        QCOMPARE(q(raw.lines),
                 q({w("k1", 0, 0, 1, "update"), gone("k1", 0, 0), w("k1", 0, 5, 2, "update"),
                    gone("k1", 0, 5), w("k1", 0, 5, 3, "update"), w("k2", 11, 11, 1, "update"),
                    late(5, 6), w("k1", 30, 30, 1, "update")}));
        const auto fin = run(kafka("on_close"), node, 0, in);
        QCOMPARE(q(fin.lines),
                 q({w("k1", 0, 5, 3, "final"), late(5, 6), w("k2", 11, 11, 1, "final"),
                    w("k1", 30, 30, 1, "final") /* flush */}));
    }

    // KStreamSessionWindowAggregateProcessorTest
    // "shouldLogAndMeterWhenSkippingLateRecordWithNonzeroGrace": gap 10, grace 1. OnTime2 at 0
    // is accepted at stream time 11 (0 >= 11 - 10 - 1); Late1 at 0 is dropped at stream time 12.
    void kafkaSessionLateRecordWithNonzeroGrace()
    {
        Json node = {{"kind", "window"},
                     {"params",
                      {{"type", "session"},
                       {"gap_ms", 10},
                       {"key", {"k"}},
                       {"allowed_lateness_ms", 1},
                       {"aggregates", {{{"op", "count"}, {"as", "count"}}}}}}};
        std::vector<Json> in;
        for (auto [k, t] : std::vector<std::pair<const char *, int>>{{"dummy", 0},
                                                                     {"OnTime1", 0},
                                                                     {"dummy", 11},
                                                                     {"OnTime2", 0},
                                                                     {"dummy", 12},
                                                                     {"Late1", 0}})
            in.push_back({{"k", k}, {"t", t}});
        const auto r = run(kafka("updates"), node, 0, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines),
                 q({row({{"k", "dummy"}}, 0, 0, {{"count", 1}}, "update"),
                    row({{"k", "OnTime1"}}, 0, 0, {{"count", 1}}, "update"),
                    row({{"k", "dummy"}}, 11, 11, {{"count", 1}}, "update"),
                    row({{"k", "OnTime2"}}, 0, 0, {{"count", 1}}, "update"),
                    row({{"k", "dummy"}}, 11, 11, {{"count", nullptr}}, "retract"),
                    row({{"k", "dummy"}}, 11, 12, {{"count", 2}}, "update"), late(0, 1)}));
    }

    // ---------------------------------------------------------------- validation

    void kafkaHasNoBuiltInDedup()
    {
        const LoadResult loaded = loadSpec(R"({"format": "tideline/1", "name": "d",
            "settings": {"semantics": "kafka-streams"},
            "nodes": [{"id": "src", "kind": "source.generator", "params": {"count": 1}},
                      {"id": "wm", "kind": "watermark", "params": {"time_field": "event_time",
                                                                   "max_out_of_orderness_ms": 0}},
                      {"id": "dd", "kind": "dedup", "params": {"key": ["event_id"], "within_ms": 5}},
                      {"id": "out", "kind": "sink.console", "params": {}}],
            "edges": [{"from": "src.out", "to": "wm.in"}, {"from": "wm.out", "to": "dd.in"},
                      {"from": "dd.out", "to": "out.in"}]})");
        QVERIFY(loaded.ok()); // a warning: the run still goes ahead
        bool said = false;
        for (const auto &d : loaded.diagnostics)
            said
                |= d.nodeId == "dd" && d.message.starts_with("Kafka Streams has no built-in dedup");
        QVERIFY(said);
    }

    void sparkHasNoLateSideOutput()
    {
        const LoadResult loaded = loadSpec(R"({"format": "tideline/1", "name": "l",
            "settings": {"semantics": "spark"},
            "nodes": [{"id": "src", "kind": "source.generator", "params": {"count": 1}},
                      {"id": "wm", "kind": "watermark", "params": {"time_field": "event_time",
                                                                   "max_out_of_orderness_ms": 0}},
                      {"id": "win", "kind": "window", "params": {"type": "tumbling", "size_ms": 10,
                                                                 "aggregates": [{"op": "count"}]}},
                      {"id": "out", "kind": "sink.console", "params": {}},
                      {"id": "lt", "kind": "sink.console", "params": {}}],
            "edges": [{"from": "src.out", "to": "wm.in"}, {"from": "wm.out", "to": "win.in"},
                      {"from": "win.out", "to": "out.in"}, {"from": "win.late", "to": "lt.in"}]})");
        QVERIFY(loaded.ok());
        bool said = false;
        for (const auto &d : loaded.diagnostics)
            said |= d.nodeId == "win" && d.message.starts_with("Spark has no late side output");
        QVERIFY(said);
    }

    void settingsAreChecked()
    {
        const LoadResult loaded = loadSpec(R"({"format": "tideline/1", "name": "s",
            "settings": {"semantics": "storm", "spark": {"trigger_records": 0, "output_mode": "all",
                         "watermark_policy": "avg", "batch": "x"},
                         "kafka_streams": {"emit": "suppress"}},
            "nodes": [{"id": "src", "kind": "source.generator", "params": {"count": 1}},
                      {"id": "out", "kind": "sink.console", "params": {}}],
            "edges": [{"from": "src.out", "to": "out.in"}]})");
        QVERIFY(!loaded.ok());
        QStringList paths;
        for (const auto &d : loaded.diagnostics)
            paths << QString::fromStdString(d.path);
        for (const char *p : {"settings.semantics", "settings.spark.trigger_records",
                              "settings.spark.output_mode", "settings.spark.watermark_policy",
                              "settings.spark.batch", "settings.kafka_streams.emit"})
            QVERIFY2(paths.contains(p), p);
    }

    // A file may carry the settings of modes it does not select; Flink mode ignores them, and
    // record-aligned sliding windows stay an error outside Kafka Streams mode.
    void otherModesSettingsAreIgnoredUntilSelected()
    {
        const auto r = run(
            {{"spark", {{"output_mode", "update"}}}, {"kafka_streams", {{"emit", "on_close"}}}},
            tumbling(10), 0, {{{"t", 1}}, {{"t", 25}}});
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({row({}, 0, 10, {{"count", 1}}, "final"),
                                row({}, 20, 30, {{"count", 1}}, "final")}));
        Json node = {
            {"kind", "window"},
            {"params", {{"type", "sliding"}, {"size_ms", 5}, {"aggregates", {{{"op", "count"}}}}}}};
        const auto f = run(Json::object(), node, 0, {{{"t", 1}}});
        QVERIFY(f.error.find("params.slide_ms") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(SemanticsTest)
#include "test_semantics.moc"
