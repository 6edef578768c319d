// Compare engines (issue 20, item 2): compare::run and `tideline-run --compare-engines`.
// - a tiny input traced by hand under each mode's rules (docs/reference/semantics.md):
//   ts 1000, 12000, 5000 of one key into 10 s tumbling windows, no delay:
//     Flink: W = 11999 after 12000 fires [0,10) with n=1; 5000 arrives behind W: late.
//     Spark (default trigger_records 1000): all three records are one micro-batch, the
//       watermark (0 until the batch ends) drops nothing: [0,10) has n=2.
//     Kafka Streams (emit updates): stream time 12000 >= 10000 + grace 0 closes [0,10) for
//       5000 (late); each accepted record emits an update row.
//   So Flink and Spark differ in one final value; Flink and Kafka Streams end with the same
//   final results but emit them differently.
// - a mode the pipeline cannot run in is a run with the validator's error, the others compared;
// - an unbounded input is refused before anything runs;
// - every example: Flink's outputs in the comparison are its expected/ files;
// - the CLI: exit 0 when all agree, 1 when they differ, 2 for a bad engine name; JSON parses.

#include "cli_process.hpp"
#include "qt_lines.hpp"
#include "test_support.hpp"
#include "tiny_window_pipeline.hpp"

#include <tideline/engine/compare_engines.hpp>
#include <tideline/engine/spec.hpp>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <filesystem>
#include <sstream>

using namespace tideline;
namespace fs = std::filesystem;

namespace {

using Cli = testing::CliResult;

Cli runCli(const QStringList &args)
{
    return testing::runProgram(QStringLiteral(TIDELINE_RUN), args);
}

const char *tinyPipeline = testing::kTinyWindowPipeline;

const char *lateEvents = "{\"k\":\"a\",\"ts\":1000}\n{\"k\":\"a\",\"ts\":12000}\n"
                         "{\"k\":\"a\",\"ts\":5000}\n";
const char *inOrderEvents = "{\"k\":\"a\",\"ts\":1000}\n{\"k\":\"a\",\"ts\":5000}\n"
                            "{\"k\":\"a\",\"ts\":12000}\n";

PipelineSpec load(const std::string &text)
{
    return testing::loadPipelineOrDie(text);
}

const compare::PairDiff *
pair(const compare::Report &r, const char *sink, const char *a, const char *b)
{
    for (const auto &p : r.pairs)
        if (p.sinkId == sink && p.a == a && p.b == b)
            return &p;
    return nullptr;
}

std::int64_t lateAt(const compare::EngineRun &run, const std::string &node)
{
    for (const auto &d : run.drops)
        if (d.node == node)
            return d.late;
    return 0;
}

} // namespace

class CompareTest : public QObject
{
    Q_OBJECT

private slots:
    // Final results: the last row per window and key; a Kafka Streams retraction (a session
    // merged away) removes its window from them, and a later row of it counts again.
    void finalRowsDropRetractedWindows()
    {
        expected::RowIdentity id;
        id.fields = {"k", "window_start", "window_end"};
        const std::vector<std::string> rows
            = {R"({"k":"a","window_start":0,"window_end":10,"n":1,"emit":"update"})",
               R"({"k":"b","window_start":0,"window_end":5,"n":1,"emit":"update"})",
               R"({"k":"a","window_start":0,"window_end":10,"n":null,"emit":"retract"})",
               R"({"k":"a","window_start":0,"window_end":20,"n":2,"emit":"update"})",
               R"({"k":"b","window_start":0,"window_end":5,"n":null,"emit":"retract"})",
               R"({"k":"b","window_start":0,"window_end":5,"n":3,"emit":"update"})"};
        const std::vector<std::string> want
            = {R"({"k":"b","window_start":0,"window_end":5,"n":3})",
               R"({"k":"a","window_start":0,"window_end":20,"n":2})"};
        QCOMPARE(compare::finalRows(rows, id), want);
    }

    void tinyInputMatchesTheHandTrace()
    {
        testing::TempDir dir;
        testing::writeFile(dir.file("events.jsonl"), lateEvents);
        compare::Options o;
        o.baseDir = dir.path.string();
        o.jobs = 2;
        const compare::Report r = compare::run(load(tinyPipeline), o);
        QCOMPARE(r.runs.size(), std::size_t(3));
        for (const auto &run : r.runs) {
            QVERIFY2(run.ran(), run.error.c_str());
            QCOMPARE(run.recordsRead, std::int64_t(3));
        }
        const auto &flink = *r.run("flink");
        const auto &spark = *r.run("spark");
        const auto &kstreams = *r.run("kafka-streams");
        QCOMPARE(lateAt(flink, "w"), std::int64_t(1));
        QCOMPARE(lateAt(spark, "w"), std::int64_t(0));
        QCOMPARE(lateAt(kstreams, "w"), std::int64_t(1));
        QCOMPARE(flink.rowsOf("out")->size(), std::size_t(2));

        const auto *fs = pair(r, "out", "flink", "spark");
        QVERIFY(fs);
        QVERIFY(!fs->diff.equal);
        QCOMPARE(fs->finalDiff.different, 1);
        QCOMPARE(fs->finalDiff.missing, 0);
        QCOMPARE(fs->finalDiff.extra, 0);
        const auto &finding = fs->finalDiff.findings.front();
        QVERIFY2(compare::describeDetail(*fs, finding).find("n: Flink 1, Spark 2")
                     != std::string::npos,
                 compare::describeDetail(*fs, finding).c_str());

        const auto *fk = pair(r, "out", "flink", "kafka-streams");
        QVERIFY(fk);
        QVERIFY(!fk->diff.equal); // "final" rows against a changelog of "update" rows
        QVERIFY(fk->finalDiff.equal || fk->finalDiff.orderOnly);
        QVERIFY(!r.allAgree());

        std::ostringstream text;
        compare::printReport(r, text);
        QVERIFY2(text.str().find("final results: the same") != std::string::npos,
                 text.str().c_str());
        QVERIFY(text.str().find("compare engines: the engines differ") != std::string::npos);
    }

    // The interval join runs in every mode (docs/reference/semantics.md, "Joins", traces this
    // input): Flink's join watermark passes b's bound before the click on b at 12 s arrives
    // (late); Spark's watermark moves only after the batch, so the click joins b; Kafka
    // Streams writes b with null (stream time 25 s > 3 + 10 + grace 5) and keeps the click in
    // its window store without a partner. Flink and Kafka Streams write the same rows.
    void joinsCompareInEveryEngine()
    {
        testing::TempDir dir;
        testing::writeFile(dir.file("ads.jsonl"), R"({"b":1,"kind":"imp","ad":"a","t":1000}
{"b":1,"kind":"click","ad":"a","t":2000}
{"b":1,"kind":"imp","ad":"b","t":3000}
{"b":1,"kind":"click","ad":"x","t":25000}
{"b":1,"kind":"imp","ad":"c","t":26000}
{"b":1,"kind":"click","ad":"b","t":12000}
{"b":2,"kind":"click","ad":"c","t":30000}
)");
        const PipelineSpec spec = load(R"({"format": "tideline/1", "name": "ads",
          "settings": {"spark": {"batch_field": "b"}},
          "nodes": [
            {"id": "src", "kind": "source.file", "params": {"path": "ads.jsonl"}},
            {"id": "imps", "kind": "filter", "params": {"expr": "kind == 'imp'"}},
            {"id": "clicks", "kind": "filter", "params": {"expr": "kind == 'click'"}},
            {"id": "wi", "kind": "watermark",
             "params": {"time_field": "t", "max_out_of_orderness_ms": 5000}},
            {"id": "wc", "kind": "watermark",
             "params": {"time_field": "t", "max_out_of_orderness_ms": 5000}},
            {"id": "j", "kind": "join", "params": {"left_key": ["ad"], "right_key": ["ad"],
             "lower_ms": 0, "upper_ms": 10000, "type": "left_outer"}},
            {"id": "out", "kind": "sink.file", "params": {"path": "out/joined.jsonl"}},
            {"id": "late", "kind": "sink.file", "params": {"path": "out/late.jsonl"}}],
          "edges": [
            {"from": "src.out", "to": "imps.in"}, {"from": "src.out", "to": "clicks.in"},
            {"from": "imps.out", "to": "wi.in"}, {"from": "clicks.out", "to": "wc.in"},
            {"from": "wi.out", "to": "j.left"}, {"from": "wc.out", "to": "j.right"},
            {"from": "j.out", "to": "out.in"}, {"from": "j.late", "to": "late.in"}]})");
        compare::Options o;
        o.baseDir = dir.path.string();
        const compare::Report r = compare::run(spec, o);
        for (const char *e : {"flink", "spark", "kafka-streams"})
            QVERIFY2(r.run(e)->ran(), (std::string(e) + ": " + r.run(e)->error).c_str());
        QCOMPARE(r.run("flink")->rowsOf("out")->size(), std::size_t(3));
        QCOMPARE(r.run("spark")->rowsOf("out")->size(), std::size_t(3));
        QCOMPARE(lateAt(*r.run("flink"), "j"), std::int64_t(1));
        QCOMPARE(lateAt(*r.run("spark"), "j"), std::int64_t(0));
        QCOMPARE(lateAt(*r.run("kafka-streams"), "j"), std::int64_t(0));
        QVERIFY(pair(r, "out", "flink", "kafka-streams")->diff.equal);
        QVERIFY(!pair(r, "out", "flink", "spark")->diff.equal);
        QVERIFY(!pair(r, "late", "flink", "kafka-streams")->diff.equal);
        QVERIFY(r.run("spark")->rowsOf("out")->at(1).find("\"right\":{") != std::string::npos);
    }

    void aModeThePipelineCannotRunInIsSaidAndTheOthersCompared()
    {
        testing::TempDir dir;
        testing::writeFile(dir.file("events.jsonl"), inOrderEvents);
        PipelineSpec spec = load(tinyPipeline);
        // Spark rejects update mode with session windows, as Spark does.
        auto &w = *spec.node("w");
        w.params["type"] = "session";
        w.params.erase("size_ms");
        w.params["gap_ms"] = 3000;
        spec.settings["spark"] = {{"output_mode", "update"}};
        compare::Options o;
        o.baseDir = dir.path.string();
        const compare::Report r = compare::run(spec, o);
        QVERIFY(r.run("flink")->ran());
        QVERIFY(r.run("kafka-streams")->ran());
        QVERIFY(!r.run("spark")->ran());
        QVERIFY2(r.run("spark")->error.find("update") != std::string::npos,
                 r.run("spark")->error.c_str());
        QVERIFY(pair(r, "out", "flink", "kafka-streams"));
        QVERIFY(!pair(r, "out", "flink", "spark"));
        std::ostringstream text;
        compare::printReport(r, text);
        QVERIFY(text.str().find("Spark: did not run:") != std::string::npos);
        QVERIFY(text.str().find("2 of 3 engines ran") != std::string::npos);
    }

    void theFileSaysSparkYetFlinkRunsAsFlink()
    {
        testing::TempDir dir;
        testing::writeFile(dir.file("events.jsonl"), lateEvents);
        PipelineSpec spec = load(tinyPipeline);
        spec.settings["semantics"] = "spark";
        QCOMPARE(compare::withEngine(spec, "flink").settings["semantics"].get<std::string>(),
                 std::string("flink"));
        compare::Options o;
        o.baseDir = dir.path.string();
        o.engines = {"flink"};
        const compare::Report r = compare::run(spec, o);
        QVERIFY(r.run("flink")->ran());
        QCOMPARE(lateAt(*r.run("flink"), "w"), std::int64_t(1)); // Flink's rule, not Spark's
    }

    void anUnboundedInputIsRefusedBeforeAnythingRuns()
    {
        PipelineSpec spec = load(tinyPipeline);
        auto &src = *spec.node("src");
        src.kind = "source.kafka";
        src.params = {{"bootstrap_servers", "127.0.0.1:1"}, {"topic", "t"}, {"group_id", "g"}};
        compare::Options o;
        const std::string e = compare::check(spec, o, false);
        QVERIFY2(e.find("bounded") != std::string::npos, e.c_str());
        QVERIFY2(e.find("src") != std::string::npos, e.c_str());
        o.engines = {"flink", "storm"};
        QVERIFY(compare::check(load(tinyPipeline), o, false).find("unknown engine `storm`")
                != std::string::npos);
    }

    void everyExampleComparesAndFlinkWritesItsExpectedOutputs()
    {
        int examples = 0;
        for (const auto &entry : fs::directory_iterator(TIDELINE_PIPELINES_DIR)) {
            const fs::path file = entry.path() / "pipeline.json";
            const fs::path expectedDir = entry.path() / "expected";
            if (!fs::exists(file) || !fs::exists(expectedDir))
                continue;
            LoadResult loaded = loadSpec(testing::readFile(file.string()));
            QVERIFY(loaded.spec);
            compare::Options o;
            o.baseDir = entry.path().string();
            if (!compare::check(*loaded.spec, o, false).empty())
                continue; // an example that never ends (Kafka) is compared on a recording
            ++examples;
            const compare::Report r = compare::run(*loaded.spec, o);
            const auto &flink = *r.run("flink");
            QVERIFY2(flink.ran(), (file.string() + ": " + flink.error).c_str());
            for (const auto &c : flink.plan.captures) {
                const fs::path want = expectedDir / c.expectedName;
                if (!fs::exists(want))
                    continue;
                QCOMPARE(*flink.rowsOf(c.sinkId), testing::readLines(want.string()));
            }
            for (const auto &run : r.runs) // each mode either ran or says why not
                QVERIFY2(run.ran() || !run.error.empty(), run.engine.c_str());
        }
        QVERIFY(examples >= 5);
    }

    void commandLine()
    {
        testing::TempDir dir;
        testing::writeFile(dir.file("events.jsonl"), inOrderEvents);
        testing::writeFile(dir.file("p.json"), tinyPipeline);
        const QString p = QString::fromStdString(dir.file("p.json"));
        Cli agree = runCli({QStringLiteral("--compare-engines=flink,spark"), p});
        QVERIFY2(agree.exitCode == 0, qPrintable(agree.out + agree.err));
        QVERIFY(agree.out.contains(QStringLiteral("all 2 engines agree")));

        testing::writeFile(dir.file("events.jsonl"), lateEvents);
        Cli differ = runCli({QStringLiteral("--compare-engines"),
                             QStringLiteral("--compare-format"), QStringLiteral("json"), p});
        QCOMPARE(differ.exitCode, 1);
        const QJsonObject j = QJsonDocument::fromJson(differ.out.toUtf8()).object();
        QCOMPARE(j.value(QStringLiteral("agree")).toBool(true), false);
        QCOMPARE(j.value(QStringLiteral("runs")).toArray().size(), 3);
        bool sawFinal = false;
        for (const auto &v : j.value(QStringLiteral("pairs")).toArray()) {
            const QJsonObject pr = v.toObject();
            if (pr.value(QStringLiteral("a")).toString() == QLatin1String("flink")
                && pr.value(QStringLiteral("b")).toString() == QLatin1String("spark")
                && pr.value(QStringLiteral("sink")).toString() == QLatin1String("out")) {
                QCOMPARE(pr.value(QStringLiteral("final"))
                             .toObject()
                             .value(QStringLiteral("different"))
                             .toInt(),
                         1);
                sawFinal = true;
            }
        }
        QVERIFY(sawFinal);

        Cli bad = runCli({QStringLiteral("--compare-engines=flink,storm"), p});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("`storm` is not an engine")), qPrintable(bad.err));
        Cli combined
            = runCli({QStringLiteral("--compare-engines"), QStringLiteral("--validate"), p});
        QCOMPARE(combined.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(CompareTest)
#include "test_compare.moc"
