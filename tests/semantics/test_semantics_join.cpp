// The interval join under settings.semantics "spark" and "kafka-streams", held to the peers'
// own join tests.
//
// Every case is one test of Spark's StreamingJoinSuite / StreamingOuterJoinSuite or Kafka
// Streams' KStreamKStreamJoinTest / KStreamKStreamLeftJoinTest (named above it), with its
// input records, its micro-batches (Spark: one AddData is one batch, set apart by the field
// `b` through settings.spark.batch_field) or its order of records (Kafka Streams: one
// pipeInput is one record), and the result that test asserts; a case marked "derived" changes
// the peer's input as it says, to pin a boundary the peer test does not reach. Spark's tests
// count in seconds: here t is in ms (10 s = 10000).
//
// The pipeline: one source.file -> two filters (`s == 'L'` / `s == 'R'`, or the peer's own
// condition for a self-join) -> one watermark node per side (time_field "t"; in Spark each is an
// input of the global watermark, as each withWatermark is) -> join.left / join.right, with
// join.out and join.late into one sink, so the file shows rows and dropped records in the
// order the run produced them. Rows are shortened as the peers print them:
//   a pair           "A0+a0@1100"  (left v + right v @ max(l.t, r.t); Kafka's KeyValueTimestamp)
//   a left-only row  "A0+null@0"
//   a dropped record "late A0 t=.. wm=.."
// What Tideline adds at the end of a bounded input (every mode flushes) is marked "flush".

// clang-format off
#include "test_support.hpp"
#include "qt_lines.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/validate.hpp>
// clang-format on

#include <QtTest>

using namespace tideline;

namespace {

struct Side
{
    std::string filter;     ///< the filter's expr
    std::int64_t delay = 0; ///< the side's watermark max_out_of_orderness_ms
};

struct JoinRun
{
    std::vector<std::string> lines;
    std::vector<std::string> reasons;
    std::string error;
};

std::string valueText(const Json &rec)
{
    if (!rec.is_object() || !rec.contains("v"))
        return "?";
    return rec["v"].is_string() ? rec["v"].get<std::string>() : rec["v"].dump();
}

std::string shorten(const std::string &line, std::vector<std::string> &reasons)
{
    const Json j = Json::parse(line);
    if (j.contains("reason") && j.contains("record")) {
        reasons.push_back(j["reason"].get<std::string>());
        return "late " + valueText(j["record"]) + " t=" + j["record"]["t"].dump()
               + " wm=" + j["watermark"].dump();
    }
    const Json &l = j["left"];
    const Json &r = j["right"];
    if (r.is_null())
        return valueText(l) + "+null@" + l["t"].dump();
    const std::int64_t t = std::max(l["t"].get<std::int64_t>(), r["t"].get<std::int64_t>());
    return valueText(l) + "+" + valueText(r) + "@" + std::to_string(t);
}

QStringList q(const std::vector<std::string> &v)
{
    return testing::toQStringList(v);
}

/// A record of side `s` ("L" / "R"), key k, value v, time t, in Spark batch b (0: no batch).
Json rec(const char *s, int k, const std::string &v, std::int64_t t, int b = 0)
{
    Json r = {{"s", s}, {"k", k}, {"v", v}, {"t", t}};
    if (b)
        r["b"] = b;
    return r;
}

Json spark()
{
    return {{"semantics", "spark"},
            {"spark", {{"trigger_records", 1000000}, {"batch_field", "b"}}}};
}

Json kafka()
{
    return {{"semantics", "kafka-streams"}};
}

Json joinParams(std::int64_t lower, std::int64_t upper, const char *type)
{
    return {{"left_key", {"k"}},
            {"right_key", {"k"}},
            {"lower_ms", lower},
            {"upper_ms", upper},
            {"type", type}};
}

} // namespace

class SemanticsJoinTest : public QObject
{
    Q_OBJECT

    testing::TempDir m_dir;

    JoinRun run(const Json &settings,
                const Json &params,
                const Side &left,
                const Side &right,
                const std::vector<Json> &input)
    {
        static int runs = 0;
        const std::string tag = std::to_string(++runs);
        const std::string dir = m_dir.path.string();
        std::vector<std::string> lines;
        for (const auto &r : input)
            lines.push_back(r.dump());
        testing::writeLines(dir + "/in" + tag + ".jsonl", lines);
        Json j = Json::parse(R"({"format": "tideline/1", "name": "join", "nodes": [], "edges": [
            {"from": "src.out", "to": "fl.in"}, {"from": "src.out", "to": "fr.in"},
            {"from": "fl.out", "to": "wl.in"}, {"from": "fr.out", "to": "wr.in"},
            {"from": "wl.out", "to": "op.left"}, {"from": "wr.out", "to": "op.right"},
            {"from": "op.out", "to": "all.in"}, {"from": "op.late", "to": "all.in"}]})");
        j["settings"] = settings;
        auto node = [&](const char *id, const char *kind, const Json &p) {
            j["nodes"].push_back({{"id", id}, {"kind", kind}, {"params", p}});
        };
        node("src", "source.file", {{"path", "in" + tag + ".jsonl"}});
        node("fl", "filter", {{"expr", left.filter}});
        node("fr", "filter", {{"expr", right.filter}});
        node("wl", "watermark", {{"time_field", "t"}, {"max_out_of_orderness_ms", left.delay}});
        node("wr", "watermark", {{"time_field", "t"}, {"max_out_of_orderness_ms", right.delay}});
        node("op", "join", params);
        node("all", "sink.file", {{"path", "out" + tag + ".jsonl"}});
        JoinRun r;
        const LoadResult loaded = loadSpec(j.dump());
        if (!loaded.ok() || !loaded.spec) {
            for (const auto &d : loaded.diagnostics)
                r.error += d.format() + "\n";
            qWarning("%s", r.error.c_str());
            return r;
        }
        JobOptions o;
        o.baseDir = dir;
        auto job = Job::create(*loaded.spec, std::move(o), r.error);
        if (!job)
            return r;
        if (job->run() != Job::Status::Finished) {
            r.error = "run failed: " + job->failure();
            return r;
        }
        for (const auto &l : testing::readLines(dir + "/out" + tag + ".jsonl"))
            r.lines.push_back(shorten(l, r.reasons));
        return r;
    }

    static Side sideL(std::int64_t delay) { return {"s == 'L'", delay}; }
    static Side sideR(std::int64_t delay) { return {"s == 'R'", delay}; }

private slots:
    // ------------------------------------------------------------------------------ Spark

    // StreamingJoinSuite "stream stream inner join with time range - with watermark - two side
    // conditions": leftTime BETWEEN rightTime - 10 s AND rightTime + 5 s (r.t - l.t in [-5 s,
    // 10 s]), left delay 20 s, right delay 30 s, one key. The global watermark is 30 s after
    // the fourth batch (min(66 - 20, 60 - 30)) and 46 s after the sixth (min(46, 80 - 30)): a
    // row exactly at W is dropped (left 30 at W = 30, right 46 at W = 46). At W = 30 the right
    // rows 14 and 15 leave (W > r.t + 5) and 25 stays; at W = 46 the left rows 20 and 31 leave
    // (W > l.t + 10), so right 50 meets only 49 and 50.
    void sparkInnerTwoSideConditions()
    {
        std::vector<Json> in;
        auto add = [&](int b, const char *s, std::vector<int> secs) {
            for (int t : secs)
                in.push_back(rec(s, 1, std::string(s) + std::to_string(t), t * 1000, b));
        };
        add(1, "L", {20});
        add(2, "R", {14, 15, 25, 26, 30, 31});
        add(3, "R", {60});
        add(4, "L", {49, 50, 65, 66});
        add(5, "L", {30, 31});
        add(6, "R", {80});
        add(7, "R", {46, 50});
        const auto r
            = run(spark(), joinParams(-5000, 10000, "inner"), sideL(20000), sideR(30000), in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({
                                 "L20+R15@20000",
                                 "L20+R25@25000",
                                 "L20+R26@26000",
                                 "L20+R30@30000", // batch 2
                                 "L50+R60@60000",
                                 "L65+R60@65000",             // batch 4
                                 "late L30 t=30000 wm=30000", // batch 5: at W, dropped
                                 "L31+R26@31000",
                                 "L31+R30@31000",
                                 "L31+R31@31000",
                                 "late R46 t=46000 wm=46000", // batch 7: at W, dropped
                                 "L49+R50@50000",
                                 "L50+R50@50000",
                             }));
        QCOMPARE(r.reasons.front(),
                 std::string("Spark drops this row silently (at or below the watermark)"));
    }

    // StreamingOuterJoinSuite "SPARK-26187 self left outer join should not return outer nulls
    // for already matched rows": one input (v = t in seconds), left = every row, right = the
    // even ones, rightTime in [leftTime, leftTime + 5 s], both delays 5 s, three batches of
    // five. W = 0, 5, then 9 (min(15 - 5, 14 - 5)): at 9 the left rows 1, 2, 3 leave (W > l.t
    // + 5) and the unmatched 1 and 3 are written with null; left 4 stays (4 + 5 = W: Spark
    // removes a row only once W passes its bound, the peer's state count of 15 says so).
    void sparkSelfLeftOuterNoNullsForMatchedRows()
    {
        std::vector<Json> in;
        for (int v = 1; v <= 15; ++v)
            in.push_back(
                {{"k", v}, {"v", std::to_string(v)}, {"t", v * 1000}, {"b", (v - 1) / 5 + 1}});
        const auto r = run(spark(), joinParams(0, 5000, "left_outer"), {"true", 5000},
                           {"k % 2 == 0", 5000}, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({
                                 "2+2@2000",
                                 "4+4@4000", // batch 1
                                 "6+6@6000",
                                 "8+8@8000",
                                 "10+10@10000", // batch 2
                                 "12+12@12000",
                                 "14+14@14000", // batch 3
                                 "1+null@1000",
                                 "3+null@3000", // no-data batch, W = 9
                                 // flush (W = +inf): the unmatched left rows still held
                                 "5+null@5000",
                                 "7+null@7000",
                                 "9+null@9000",
                                 "11+null@11000",
                                 "13+null@13000",
                                 "15+null@15000",
                             }));
    }

    // StreamingOuterJoinSuite "left outer with watermark range condition"
    // (setupJoinWithRangeCondition: leftTime BETWEEN rightTime - 5 s AND rightTime + 5 s, so
    // r.t - l.t in [-5 s, 5 s]; both delays 10 s). W stays 0 to batch 3 (the left input's
    // 5 - 10 is below 0), is 1 s after batch 4 (min(30 - 10, 11 - 10)) and 20 s after batch 5:
    // then left 3 at 5 s leaves unmatched, its null row the peer's outer result (3, null, 5,
    // null), and only left 30 and right 30 stay (the peer's total of 2 state rows).
    void sparkLeftOuterRangeCondition()
    {
        std::vector<Json> in;
        auto add = [&](int b, const char *s, std::vector<std::pair<int, int>> rows) {
            for (const auto &[k, t] : rows)
                in.push_back(rec(s, k,
                                 std::string(s[0] == 'L' ? "l" : "r") + std::to_string(k) + "_"
                                     + std::to_string(t),
                                 t * 1000, b));
        };
        add(1, "L", {{1, 5}, {3, 5}});
        add(2, "R", {{1, 10}, {2, 5}});
        add(3, "R", {{1, 11}});
        add(4, "L", {{1, 7}, {1, 30}});
        add(5, "R", {{0, 30}});
        const auto r
            = run(spark(), joinParams(-5000, 5000, "left_outer"), sideL(10000), sideR(10000), in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({
                                 "l1_5+r1_10@10000",                     // batch 2
                                 "l1_7+r1_10@10000", "l1_7+r1_11@11000", // batch 4
                                 "l3_5+null@5000",                       // after batch 5, W = 20 s
                                 "l1_30+null@30000",                     // flush
                             }));
    }

    // Derived from the SPARK-26187 self left outer join above, without the right row 4 and with
    // a fourth batch (16): left 4 is unmatched and its bound 4 + 5 s equals W = 9 s after batch
    // 3. Spark keeps it there (W > l.t + upper is false; Flink mode's W >= l.t + upper would
    // let it go with 1 and 3), so its null row comes only after batch 4's pair, when W = 11 s
    // passes its bound (with 5's: 5 + 5 < 11).
    void sparkEvictsOnlyOnceTheWatermarkPassesTheBound()
    {
        std::vector<Json> in;
        for (int v = 1; v <= 16; ++v)
            in.push_back(
                {{"k", v}, {"v", std::to_string(v)}, {"t", v * 1000}, {"b", (v - 1) / 5 + 1}});
        const auto r = run(spark(), joinParams(0, 5000, "left_outer"), {"true", 5000},
                           {"k % 2 == 0 and k != 4", 5000}, in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({
                                 "2+2@2000",
                                 "6+6@6000",
                                 "8+8@8000",
                                 "10+10@10000",
                                 "12+12@12000",
                                 "14+14@14000",
                                 "1+null@1000",
                                 "3+null@3000", // W = 9 s: 4 + 5 s is not passed, 4 stays
                                 "16+16@16000", // batch 4
                                 "4+null@4000",
                                 "5+null@5000", // W = 11 s
                                 // flush
                                 "7+null@7000",
                                 "9+null@9000",
                                 "11+null@11000",
                                 "13+null@13000",
                                 "15+null@15000",
                             }));
    }

    // ---------------------------------------------------------------------- Kafka Streams

    // KStreamKStreamJoinTest "testWindowing" (its first part, to the h records): JoinWindows.of
    // (100 ms), whose legacy grace (24 h less the window) keeps every record; here a 24 h delay
    // on both watermark nodes. Records behind stream time still join while their window store
    // keeps them: g at 899 is outside B0's window [900, 1100], h at 900 is inside.
    void kafkaInnerWindowing()
    {
        std::vector<Json> in;
        auto add = [&](const char *s, const char *v, std::vector<int> keys, std::int64_t t,
                       bool increasing) {
            for (std::size_t i = 0; i < keys.size(); ++i)
                in.push_back(rec(s, keys[i], v + std::to_string(keys[i]),
                                 t + (increasing ? static_cast<std::int64_t>(i) : 0)));
        };
        add("L", "A", {0, 1}, 0, false);
        add("R", "a", {0, 1}, 0, false);
        add("L", "B", {0, 1, 2, 3}, 1000, true);
        add("R", "b", {0, 1, 2, 3}, 1100, false);
        add("R", "c", {0, 1, 2, 3}, 1101, false);
        add("R", "d", {0, 1, 2, 3}, 1102, false);
        add("R", "e", {0, 1, 2, 3}, 1103, false);
        add("R", "f", {0, 1, 2, 3}, 1104, false);
        add("R", "g", {0, 1, 2, 3}, 899, false);
        add("R", "h", {0, 1, 2, 3}, 900, false);
        const std::int64_t day = 86400000;
        const auto r = run(kafka(), joinParams(-100, 100, "inner"), sideL(day), sideR(day), in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({
                                 "A0+a0@0",
                                 "A1+a1@0",
                                 "B0+b0@1100",
                                 "B1+b1@1100",
                                 "B2+b2@1100",
                                 "B3+b3@1100",
                                 "B1+c1@1101",
                                 "B2+c2@1101",
                                 "B3+c3@1101",
                                 "B2+d2@1102",
                                 "B3+d3@1102",
                                 "B3+e3@1103",
                                 "B0+h0@1000",
                             }));
    }

    // KStreamKStreamJoinTest "testAsymmetricWindowingAfter": ofTimeDifferenceWithNoGrace(0)
    // .after(100 ms) is before = 0, after = 100 (lower_ms 0, upper_ms 100). Seen from a right
    // record the two swap: it joins left records in [r.t - 100, r.t], so a at 999 meets
    // nothing, f at 1100 meets all four, i at 1103 only A3.
    void kafkaAsymmetricWindowingAfter()
    {
        std::vector<Json> in;
        for (int k = 0; k < 4; ++k)
            in.push_back(rec("L", k, "A" + std::to_string(k), 1000 + k));
        const std::vector<std::pair<const char *, std::int64_t>> right = {
            {"a", 999},  {"b", 1000}, {"c", 1001}, {"d", 1002}, {"e", 1003},
            {"f", 1100}, {"g", 1101}, {"h", 1102}, {"i", 1103},
        };
        for (const auto &[v, t] : right)
            for (int k = 0; k < 4; ++k)
                in.push_back(rec("R", k, v + std::to_string(k), t));
        const auto r = run(kafka(), joinParams(0, 100, "inner"), sideL(0), sideR(0), in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({
                                 "A0+b0@1000",                                           // b
                                 "A0+c0@1001", "A1+c1@1001",                             // c
                                 "A0+d0@1002", "A1+d1@1002", "A2+d2@1002",               // d
                                 "A0+e0@1003", "A1+e1@1003", "A2+e2@1003", "A3+e3@1003", // e
                                 "A0+f0@1100", "A1+f1@1100", "A2+f2@1100", "A3+f3@1100", // f
                                 "A1+g1@1101", "A2+g2@1101", "A3+g3@1101",               // g
                                 "A2+h2@1102", "A3+h3@1102",                             // h
                                 "A3+i3@1103",                                           // i
                             }));
    }

    // KStreamKStreamLeftJoinTest "testLeftJoinDuplicates": ofTimeDifferenceAndGrace(100 ms,
    // 10 ms) (grace = the watermark delay, 10). A0 and A0-0 at 0 get their null rows once stream
    // time passes 0 + 100 + 10 (a0 at 111 does it; the peer checks after dummy at 500); A2 and
    // A2-0 join a2; a3 at 315 produces nothing (the peer's empty check): stream time 1001 less
    // the retention 210 is 791, so the right store does not keep it, and Tideline shows it on
    // `late`.
    void kafkaLeftJoinDuplicates()
    {
        const std::vector<Json> in = {
            rec("L", 0, "A0", 0),      rec("L", 0, "A0-0", 0),  rec("R", 1, "a0", 111),
            rec("R", 2, "dummy", 500), rec("L", 2, "A2", 1000), rec("L", 2, "A2-0", 1000),
            rec("R", 2, "a2", 1001),   rec("R", 3, "a3", 315),
        };
        const auto r = run(kafka(), joinParams(-100, 100, "left_outer"), sideL(10), sideR(10), in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({"A0+null@0", "A0-0+null@0", "A2+a2@1001", "A2-0+a2@1001",
                                "late a3 t=315 wm=791"}));
        QVERIFY(r.reasons.front().starts_with("Kafka Streams drops this record"));
    }

    // KStreamKStreamLeftJoinTest "testLeftExpiredNonJoinedRecordsAreEmittedByTheRightProcessor":
    // ofTimeDifferenceAndGrace(100 ms, 0): a right record that moves stream time to 401 writes
    // the left records whose window closed (A0 at 1, A0-0 at 3; A1 had joined a1).
    void kafkaLeftExpiredNonJoinedEmittedByTheRightSide()
    {
        const std::vector<Json> in = {
            rec("L", 0, "A0", 1), rec("L", 1, "A1", 2),      rec("L", 0, "A0-0", 3),
            rec("R", 1, "a1", 3), rec("R", 2, "dummy", 401), rec("L", 2, "dummy", 402),
        };
        const auto r = run(kafka(), joinParams(-100, 100, "left_outer"), sideL(0), sideR(0), in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({"A1+a1@3", "A0+null@1", "A0-0+null@3", "dummy+dummy@402"}));
    }

    // Derived from testLeftJoinDuplicates (100 ms, grace 10): the null row's edge. Stream time
    // 110 = 0 + after + grace keeps A0's window open; 111 closes it, and its null row comes
    // before the record that moved stream time is joined. z at 0 is far behind stream time but
    // its window store still keeps records for before + after + grace = 210: it joins A0, whose
    // null row is out already (Kafka Streams' left window store still holds A0).
    void kafkaLeftJoinNullRowAtGraceEdge()
    {
        const std::vector<Json> in = {
            rec("L", 0, "A0", 0),  rec("R", 1, "x", 110), rec("L", 1, "X", 110),
            rec("R", 1, "y", 111), rec("R", 0, "z", 0),
        };
        const auto r = run(kafka(), joinParams(-100, 100, "left_outer"), sideL(10), sideR(10), in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({"X+x@110", "A0+null@0", "X+y@111", "A0+z@0"}));
    }

    // Derived from testLeftJoinDuplicates' a3 (100 ms, grace 10, inner): the window store's
    // retention edge. With the right store at 1001, 791 (= 1001 - 210) is not kept and joins
    // nothing: late; 792 is kept and joins C at 850 later.
    void kafkaInnerRetentionEdge()
    {
        const std::vector<Json> in = {
            rec("R", 1, "a", 1001),
            rec("R", 3, "b", 791),
            rec("R", 3, "c", 792),
            rec("L", 3, "C", 850),
        };
        const auto r = run(kafka(), joinParams(-100, 100, "inner"), sideL(10), sideR(10), in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(q(r.lines), q({"late b t=791 wm=791", "C+c@850"}));
    }

    // ------------------------------------------------------------------------- validation

    // The join is modelled in both modes now; top and window_join are not, and say why.
    void joinValidatesInEveryModeTopDoesNot()
    {
        for (const char *mode : {"spark", "kafka-streams"}) {
            const auto r = run({{"semantics", mode}}, joinParams(0, 10, "inner"), sideL(0),
                               sideR(0), {rec("L", 1, "A", 5), rec("R", 1, "a", 6)});
            QVERIFY2(r.error.empty(), r.error.c_str());
            QCOMPARE(q(r.lines), q({"A+a@6"}));
        }
        // top and window_join: each mode says what the peer itself offers, names the node and
        // gives the fix.
        struct Case
        {
            const char *mode, *kind, *port, *says;
            Json params;
        };
        const Json topParams = {{"field", "value"}, {"size_ms", 10}};
        const Json windowJoinParams = {
            {"size_ms", 10}, {"left_key", Json::array({"k"})}, {"right_key", Json::array({"k"})}};
        const Case cases[] = {
            {"spark", "top", "in", "no Spark Structured Streaming equivalent", topParams},
            {"kafka-streams", "top", "in", "Kafka Streams has no built-in top-N", topParams},
            {"spark", "window_join", "left", "emits each pair as soon as both sides have arrived",
             windowJoinParams},
            {"kafka-streams", "window_join", "left", "has no Kafka Streams equivalent",
             windowJoinParams},
        };
        for (const Case &c : cases) {
            const auto node = [](const char *id, const char *kind, Json params) {
                return Json{{"id", id}, {"kind", kind}, {"params", std::move(params)}};
            };
            const auto edge = [](const std::string &from, const std::string &to) {
                return Json{{"from", from}, {"to", to}};
            };
            Json spec = {{"format", "tideline/1"}, {"name", "t"}};
            spec["settings"] = {{"semantics", c.mode}};
            spec["nodes"] = Json::array(
                {node("src", "source.generator", {{"count", 1}}),
                 node("wm", "watermark",
                      {{"time_field", "event_time"}, {"max_out_of_orderness_ms", 0}}),
                 node("best", c.kind, c.params), node("out", "sink.console", Json::object())});
            spec["edges"] = Json::array({edge("src.out", "wm.in"),
                                         edge("wm.out", std::string("best.") + c.port),
                                         edge("best.out", "out.in")});
            const std::string text = spec.dump();
            const LoadResult loaded = loadSpec(text);
            bool said = false;
            for (const auto &d : loaded.diagnostics)
                said |= d.isError() && d.nodeId == "best"
                        && d.message.find(c.says) != std::string::npos
                        && d.message.find("run the pipeline with semantics \"flink\"")
                               != std::string::npos;
            QVERIFY2(said, (std::string(c.mode) + " " + c.kind).c_str());
        }
    }

    // UnsupportedOperationsSuite "inner join in update mode" (stream-stream: not supported, "is
    // not supported in Update output mode"): a validation error here, naming the node and fix.
    void sparkUpdateModeRejectsJoins()
    {
        Json s = spark();
        s["spark"]["output_mode"] = "update";
        const auto r
            = run(s, joinParams(0, 10, "inner"), sideL(0), sideR(0), {rec("L", 1, "A", 5, 1)});
        QVERIFY2(r.error.find("nodes[5] \"op\"") != std::string::npos, r.error.c_str());
        QVERIFY2(r.error.find("settings.spark.output_mode to \"append\"") != std::string::npos,
                 r.error.c_str());
    }

    // Spark has no late side output for joins either: a connected `late` port is a warning.
    void sparkJoinLatePortIsAWarning()
    {
        const auto r = run(spark(), joinParams(0, 10, "inner"), sideL(0), sideR(0),
                           {rec("L", 1, "A", 5, 1)});
        QVERIFY2(r.error.empty(), r.error.c_str());
        const LoadResult loaded = loadSpec(R"({"format": "tideline/1", "name": "l",
            "settings": {"semantics": "spark"},
            "nodes": [{"id": "a", "kind": "source.generator", "params": {"count": 1}},
                      {"id": "wa", "kind": "watermark", "params": {"time_field": "event_time",
                                                                   "max_out_of_orderness_ms": 0}},
                      {"id": "b", "kind": "source.generator", "params": {"count": 1}},
                      {"id": "wb", "kind": "watermark", "params": {"time_field": "event_time",
                                                                   "max_out_of_orderness_ms": 0}},
                      {"id": "j", "kind": "join", "params": {"left_key": ["user_id"],
                           "right_key": ["user_id"], "lower_ms": 0, "upper_ms": 5}},
                      {"id": "out", "kind": "sink.console", "params": {}},
                      {"id": "lt", "kind": "sink.console", "params": {}}],
            "edges": [{"from": "a.out", "to": "wa.in"}, {"from": "b.out", "to": "wb.in"},
                      {"from": "wa.out", "to": "j.left"}, {"from": "wb.out", "to": "j.right"},
                      {"from": "j.out", "to": "out.in"}, {"from": "j.late", "to": "lt.in"}]})");
        QVERIFY2(loaded.ok(), testing::diagnosticsText(loaded.diagnostics).c_str());
        bool said = false;
        for (const auto &d : loaded.diagnostics)
            said |= d.nodeId == "j" && d.message.starts_with("Spark has no late side output");
        QVERIFY(said);
    }
};

QTEST_GUILESS_MAIN(SemanticsJoinTest)
#include "test_semantics_join.moc"
