// Savepoints under settings.semantics "spark" and "kafka-streams": a run stopped with a
// savepoint at record k and restored from it writes exactly (byte for byte, line for line, in
// order) what the uninterrupted run writes, for cuts at the start, inside a Spark micro-batch
// (trigger_records 97, and a batch_field batch), and near the end.
//
// The pipeline has every mode operator with state: a tumbling window with allowed lateness, a
// session window, a hopping window (Spark) or Kafka Streams' record-aligned SlidingWindows, and a
// dedup; the generator's three partitions give Kafka Streams three tasks, each with its own
// stream time. What the savepoint must carry beyond the operators' keyed state: Spark's clock
// (records in the open batch, the last batch_field value, every input's largest time, the global
// watermark), Spark update mode's rows changed in the open batch, and Kafka Streams' stream time
// per partition.

#include "test_support.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/validate.hpp>

#include <QtTest>

#include <filesystem>
#include <map>

using namespace tideline;
namespace fs = std::filesystem;

namespace {

struct Variant
{
    const char *name;
    Json settings;
    bool session = true;    ///< Spark update mode has no session windows (validation)
    bool fileInput = false; ///< source.file with a batch field `b` instead of the generator
    bool join = true;       ///< Spark update mode has no stream-stream join (validation)
};

Json sparkSettings(const char *mode, bool batchField)
{
    Json sp = {{"trigger_records", batchField ? 1000000 : 97}, {"output_mode", mode}};
    if (batchField)
        sp["batch_field"] = "b";
    return {{"semantics", "spark"}, {"spark", sp}};
}

Json kafkaSettings(const char *emitMode)
{
    Json s = Json::object();
    s["semantics"] = "kafka-streams";
    s["kafka_streams"]["emit"] = emitMode; // not `emit`: a Qt macro
    return s;
}

const std::vector<std::string> &outputFiles()
{
    static const std::vector<std::string> files
        = {"out/tum.jsonl", "out/tum-late.jsonl", "out/ses.jsonl", "out/ses-late.jsonl",
           "out/hop.jsonl", "out/hop-late.jsonl", "out/dd.jsonl",  "out/dd-late.jsonl",
           "out/jn.jsonl",  "out/jn-late.jsonl"};
    return files;
}

std::string pipeline(const Variant &v)
{
    const bool kafka = v.settings["semantics"] == "kafka-streams";
    Json p = Json::parse(R"({"format": "tideline/1", "name": "mode-savepoint", "nodes": [],
        "edges": []})");
    p["settings"] = v.settings;
    auto node = [&](const std::string &id, const std::string &kind, const Json &params) {
        p["nodes"].push_back({{"id", id}, {"kind", kind}, {"params", params}});
    };
    auto edge = [&](const std::string &from, const std::string &to) {
        p["edges"].push_back({{"from", from}, {"to", to}});
    };
    if (v.fileInput)
        node("src", "source.file", {{"path", "in.jsonl"}});
    else
        node("src", "source.generator",
             Json::parse(R"({"count": 2500, "rate_per_s": 200, "keys": 40, "seed": 7,
                 "partitions": 3, "disorder": {"max_delay_ms": 3000, "late_fraction": 0.03,
                 "late_by_ms": 6000, "duplicate_fraction": 0.05}})"));
    node("wm", "watermark", {{"time_field", "event_time"}, {"max_out_of_orderness_ms", 1000}});
    edge("src.out", "wm.in");
    const Json aggs = Json::parse(
        R"([{"op": "count", "as": "n"}, {"op": "sum", "field": "value", "as": "total"}])");
    auto stage = [&](const std::string &id, const std::string &kind, const Json &params) {
        node(id, kind, params);
        node("out_" + id, "sink.file", {{"path", "out/" + id + ".jsonl"}});
        node("late_" + id, "sink.file", {{"path", "out/" + id + "-late.jsonl"}});
        edge("wm.out", id + ".in");
        edge(id + ".out", "out_" + id + ".in");
        edge(id + ".late", "late_" + id + ".in");
    };
    stage("tum", "window",
          {{"type", "tumbling"},
           {"size_ms", 2000},
           {"key", {"user_id"}},
           {"allowed_lateness_ms", 500},
           {"aggregates", aggs}});
    if (v.session)
        stage("ses", "window",
              {{"type", "session"}, {"gap_ms", 700}, {"key", {"user_id"}}, {"aggregates", aggs}});
    Json hop = {{"type", "sliding"}, {"size_ms", 1500}, {"key", {"user_id"}}, {"aggregates", aggs}};
    if (!kafka)
        hop["slide_ms"] = 500; // Kafka Streams: record-aligned SlidingWindows without it
    stage("hop", "window", hop);
    stage("dd", "dedup", {{"key", {"event_id"}}, {"within_ms", 5000}});
    // A left-outer self-join within 300 ms per user: both sides buffer records, some pair,
    // some leave unmatched (a null row), and Kafka Streams keeps its outer-join store.
    if (!v.join)
        return p.dump();
    node("jn", "join",
         {{"type", "left_outer"},
          {"left_key", {"user_id"}},
          {"right_key", {"user_id"}},
          {"lower_ms", -300},
          {"upper_ms", 300}});
    node("out_jn", "sink.file", {{"path", "out/jn.jsonl"}});
    node("late_jn", "sink.file", {{"path", "out/jn-late.jsonl"}});
    edge("wm.out", "jn.left");
    edge("wm.out", "jn.right");
    edge("jn.out", "out_jn.in");
    edge("jn.late", "late_jn.in");
    return p.dump();
}

/// 600 records in batches of 25 (field `b`), times in disorder, some late, some duplicated.
std::vector<std::string> fileInput()
{
    std::vector<std::string> lines;
    std::uint64_t x = 12345;
    auto next = [&] {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        return x >> 33;
    };
    for (int i = 0; i < 600; ++i) {
        std::int64_t t = i * 50 + static_cast<std::int64_t>(next() % 1500);
        if (next() % 20 == 0)
            t -= 4000;                                        // late
        const int id = next() % 13 == 0 && i > 0 ? i - 1 : i; // a duplicate of the previous
        lines.push_back(Json({{"b", i / 25},
                              {"event_id", id},
                              {"user_id", "u" + std::to_string(next() % 17)},
                              {"value", static_cast<int>(next() % 100)},
                              {"event_time", std::max<std::int64_t>(0, t)}})
                            .dump());
    }
    return lines;
}

using Outputs = std::map<std::string, std::vector<std::string>>;

Outputs collect(const std::string &dir)
{
    Outputs o;
    for (const auto &f : outputFiles())
        o[f] = testing::readLines(dir + "/" + f);
    return o;
}

} // namespace

class SemanticsCheckpointTest : public QObject
{
    Q_OBJECT

    static void prepare(const testing::JobHarness &h, const Variant &v)
    {
        if (v.fileInput)
            testing::writeLines(h.file("in.jsonl"), fileInput());
    }

    static Outputs uninterrupted(const Variant &v)
    {
        testing::JobHarness h;
        prepare(h, v);
        std::string error;
        auto job = h.make(pipeline(v), error);
        if (!job)
            qFatal("%s: %s", v.name, error.c_str());
        if (job->run() != Job::Status::Finished)
            qFatal("%s: %s", v.name, job->failure().c_str());
        job.reset();
        return collect(h.dir());
    }

    /// Stops the run with a savepoint after `cut` source records, restores it in a fresh
    /// folder (with the output committed so far) and runs to the end.
    static Outputs restored(const Variant &v, std::int64_t cut)
    {
        testing::JobHarness h1;
        prepare(h1, v);
        std::string error;
        const std::string sp = h1.dir() + "/sp";
        {
            auto job = h1.make(pipeline(v), error);
            if (!job)
                qFatal("%s: %s", v.name, error.c_str());
            job->runFor(cut);
            int outcome = 0;
            std::string message;
            job->requestSavepoint(sp, [&](bool ok, const std::string &m) {
                outcome = ok ? 1 : 2;
                message = m;
            });
            h1.clock.advance(5);
            job->runFor(1);
            if (outcome != 1)
                qFatal("%s, cut %lld: savepoint: %s", v.name, static_cast<long long>(cut),
                       message.c_str());
        }
        testing::JobHarness h2;
        prepare(h2, v);
        fs::copy(sp, h2.dir() + "/sp", fs::copy_options::recursive);
        fs::copy(h1.dir() + "/out", h2.dir() + "/out", fs::copy_options::recursive);
        JobOptions o;
        o.restoreFrom = h2.dir() + "/sp";
        auto job = h2.make(pipeline(v), error, o);
        if (!job)
            qFatal("%s, cut %lld: restore: %s", v.name, static_cast<long long>(cut), error.c_str());
        for (const char *node : {"wm", "tum", "hop", "dd", "jn"})
            if ((v.join || std::string(node) != "jn")
                && !h2.logged("node `" + std::string(node) + "`: restored"))
                qFatal("%s: node %s not restored:\n%s", v.name, node, h2.allLogs().c_str());
        if (job->run() != Job::Status::Finished)
            qFatal("%s: %s", v.name, job->failure().c_str());
        job.reset();
        return collect(h2.dir());
    }

    static void check(const Variant &v, const std::vector<std::int64_t> &cuts)
    {
        const Outputs want = uninterrupted(v);
        // The run must have something to lose: rows from every window and the dedup.
        for (const char *f : {"out/tum.jsonl", "out/hop.jsonl", "out/dd.jsonl", "out/jn.jsonl"})
            QVERIFY2((!v.join && std::string(f) == "out/jn.jsonl") || want.at(f).size() > 20,
                     (std::string(v.name) + ": " + f).c_str());
        if (v.session)
            QVERIFY(want.at("out/ses.jsonl").size() > 20);
        for (std::int64_t cut : cuts) {
            const Outputs got = restored(v, cut);
            for (const auto &[file, lines] : want) {
                const auto &g = got.at(file);
                std::size_t i = 0;
                while (i < g.size() && i < lines.size() && g[i] == lines[i])
                    ++i;
                QVERIFY2(
                    g == lines,
                    qPrintable(QString("%1, cut %2, %3: line %4 differs (%5 lines, want "
                                       "%6): got `%7`, want `%8`")
                                   .arg(v.name)
                                   .arg(cut)
                                   .arg(QString::fromStdString(file))
                                   .arg(i + 1)
                                   .arg(g.size())
                                   .arg(lines.size())
                                   .arg(QString::fromStdString(i < g.size() ? g[i] : ""))
                                   .arg(QString::fromStdString(i < lines.size() ? lines[i] : ""))));
            }
        }
    }

private slots:
    void sparkAppend()
    {
        check({"spark append", sparkSettings("append", false)}, {1, 500, 1319, 2600});
    }
    void sparkUpdate()
    {
        check({"spark update", sparkSettings("update", false), false, false, false},
              {1, 500, 1319, 2600});
    }
    void sparkBatchField()
    {
        // Cuts inside a batch of 25 (b = 5 is records 125..149) and at a batch's last record.
        check({"spark batch_field", sparkSettings("append", true), true, true}, {1, 137, 299, 590});
        check({"spark batch_field update", sparkSettings("update", true), false, true, false},
              {137, 299});
    }
    void kafkaUpdates()
    {
        check({"kafka updates", kafkaSettings("updates")}, {1, 500, 1319, 2600});
    }
    void kafkaOnClose()
    {
        check({"kafka on_close", kafkaSettings("on_close")}, {1, 500, 1319, 2600});
    }

    // settings.checkpoint validates in both modes; "rocksdb" is refused with the nodes named.
    void validation()
    {
        for (Json settings : {sparkSettings("append", false), kafkaSettings("updates")}) {
            settings["checkpoint"] = {{"interval_ms", 1000}, {"dir", "checkpoints"}};
            Json p = Json::parse(pipeline({"v", settings}));
            LoadResult ok = loadSpec(p.dump());
            QVERIFY2(ok.ok(), testing::diagnosticsText(ok.diagnostics).c_str());
            p["settings"]["state"] = "rocksdb";
            LoadResult bad = loadSpec(p.dump());
            QVERIFY(!bad.ok());
            const std::string text = testing::diagnosticsText(bad.diagnostics);
            QVERIFY2(text.find("settings.state") != std::string::npos
                         && text.find("`tum` (window)") != std::string::npos
                         && text.find("`dd` (dedup)") != std::string::npos
                         && text.find("`jn` (join)") != std::string::npos
                         && text.find("remove settings.state") != std::string::npos,
                     text.c_str());
        }
    }

    // A savepoint of one mode does not restore into another: the state is that engine's.
    void modeChangeIsRefused()
    {
        const Variant spark{"spark", sparkSettings("append", false)};
        testing::JobHarness h;
        std::string error;
        {
            auto job = h.make(pipeline(spark), error);
            QVERIFY2(job, error.c_str());
            job->runFor(300);
            job->requestSavepoint(h.dir() + "/sp");
            h.clock.advance(5);
            job->runFor(1);
        }
        JobOptions o;
        o.restoreFrom = h.dir() + "/sp";
        auto job = h.make(pipeline({"kafka", kafkaSettings("updates")}), error, o);
        QVERIFY(!job);
        QVERIFY2(h.logged("node `tum`: incompatible"), h.allLogs().c_str());
        QVERIFY2(error.find("--reset-state") != std::string::npos, error.c_str());
    }
};

QTEST_GUILESS_MAIN(SemanticsCheckpointTest)
#include "test_semantics_checkpoint.moc"
