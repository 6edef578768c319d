// What-if sweeps (issue 19, item 4): tideline-run --sweep and the engine's sweep API.
// - every figure of a tiny hand-traced input (tinyPipeline below) against the numbers worked
//   out by hand in the comments;
// - a sweep over an example (pipelines/clicks-per-user) against one plain tideline-run per
//   combination with those values written into the file (late, late_accepted, results, input);
// - bad --sweep specs and unbounded inputs are refused with words naming node, param and fix;
// - the csv and json formats parse, and say the same as the text table.

#include "cli_process.hpp"
#include "qt_lines.hpp"
#include "test_support.hpp"
#include "tiny_window_pipeline.hpp"

#include <tideline/engine/spec.hpp>
#include <tideline/engine/sweep.hpp>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <filesystem>
#include <map>

using namespace tideline;
namespace fs = std::filesystem;

namespace {

using Cli = testing::CliResult;

Cli runCli(const QStringList &args)
{
    return testing::runProgram(QStringLiteral(TIDELINE_RUN), args);
}

// Eight events of one key into 10 s tumbling windows, traced by hand (W = max ts - delay - 1;
// a window [s, e) fires when W >= e - 1 and is dropped, its late records refused, once
// W >= e - 1 + lateness; a row's event time is e - 1):
//   ts: 1000 5000 12000 8000 15000 21000 9000 25000
// delay 0, lateness 0: 8000 and 9000 late; rows [0,10) at max 12000 (latency 2001), [10,20)
//   at 21000 (1001), [20,30) flushed at the end of the input (no latency sample: results_at_end
//   1, in every combination). accepted 6, latencies 1001 2001, peak 2 entries.
// delay 0, lateness 5000: 8000 updates [0,10) (late accepted, a 4th row at 12000: 2001);
//   9000 late (W 20999 >= 14999). accepted 7, latencies 1001 2001 2001, peak 2.
// delay 3000, lateness 0: W after 12000 is 8999, so 8000 is on time; [0,10) fires at 15000
//   (5001), [10,20) at 25000 (5001), [20,30) at the end; 9000 late. accepted 7, peak 2.
// delay 3000, lateness 5000: as above, but [0,10) stays until W 17999 (after 21000): three
//   windows open at once (peak 3); 9000 still late (17999 >= 14999). accepted 7.
// Completeness: accepted / 7, so 6/7 for the first and 1 for the others.
const char *tinyEvents = "{\"k\":\"a\",\"ts\":1000}\n{\"k\":\"a\",\"ts\":5000}\n"
                         "{\"k\":\"a\",\"ts\":12000}\n{\"k\":\"a\",\"ts\":8000}\n"
                         "{\"k\":\"a\",\"ts\":15000}\n{\"k\":\"a\",\"ts\":21000}\n"
                         "{\"k\":\"a\",\"ts\":9000}\n{\"k\":\"a\",\"ts\":25000}\n";

const char *tinyPipeline = testing::kTinyWindowPipeline;

PipelineSpec load(const std::string &text)
{
    return testing::loadPipelineOrDie(text);
}

QJsonObject lastNodeLine(const QString &metricsFile, const QString &node)
{
    QJsonObject last;
    for (const QString &line : testing::readQLines(metricsFile.toStdString()))
        if (auto o = QJsonDocument::fromJson(line.toUtf8()).object();
            o.value(QStringLiteral("node")).toString() == node)
            last = o;
    return last;
}

} // namespace

class SweepTest : public QObject
{
    Q_OBJECT

private slots:
    void tinyInputMatchesTheHandTrace()
    {
        testing::TempDir dir;
        testing::writeFile(dir.file("events.jsonl"), tinyEvents);
        const PipelineSpec spec = load(tinyPipeline);
        sweep::Plan plan;
        for (const char *text :
             {"wm.max_out_of_orderness_ms=0,3000", "w.allowed_lateness_ms=0,5000"}) {
            sweep::Axis a;
            QCOMPARE(QString::fromStdString(sweep::parseAxis(text, spec, a)), QString());
            QCOMPARE(QString::fromStdString(sweep::addAxis(plan, a)), QString());
        }
        QCOMPARE(plan.combinations(), std::size_t(4));
        sweep::Options o;
        o.baseDir = dir.path.string();
        o.jobs = 2;
        const sweep::Result r = sweep::run(spec, plan, o);
        QCOMPARE(r.rows.size(), std::size_t(4));
        struct Expect
        {
            std::int64_t delay, lateness, lateDropped, lateAccepted, results, accepted;
            double p50, p99;
            std::int64_t peak;
        };
        const Expect expect[] = {{0, 0, 2, 0, 3, 6, 1001, 2001, 2},
                                 {0, 5000, 1, 1, 4, 7, 2001, 2001, 2},
                                 {3000, 0, 1, 0, 3, 7, 5001, 5001, 2},
                                 {3000, 5000, 1, 0, 3, 7, 5001, 5001, 3}};
        for (std::size_t i = 0; i < 4; ++i) {
            const sweep::Row &row = r.rows[i];
            const Expect &e = expect[i];
            const QByteArray what = QByteArray("delay ") + QByteArray::number(e.delay)
                                    + " lateness " + QByteArray::number(e.lateness);
            QVERIFY2(row.error.empty(), row.error.c_str());
            QCOMPARE(row.values[0].get<std::int64_t>(), e.delay);
            QCOMPARE(row.values[1].get<std::int64_t>(), e.lateness);
            QVERIFY2(row.inputRecords == 8, what);
            QVERIFY2(row.lateDropped == e.lateDropped, what);
            QVERIFY2(row.lateAccepted == e.lateAccepted, what);
            QVERIFY2(row.results == e.results, what);
            QVERIFY2(row.resultsAtEnd == 1, what);
            QVERIFY2(row.accepted == e.accepted, what);
            QVERIFY2(qFuzzyCompare(row.completeness, static_cast<double>(e.accepted) / 7.0), what);
            QVERIFY2(row.latencyP50Ms && *row.latencyP50Ms == e.p50, what);
            QVERIFY2(row.latencyP99Ms && *row.latencyP99Ms == e.p99, what);
            QVERIFY2(row.peakStateEntries == e.peak, what);
            QVERIFY2(row.peakStateBytes > 0, what);
        }
        // More state at the same key count costs bytes too.
        QVERIFY(r.rows[3].peakStateBytes > r.rows[2].peakStateBytes);
        // The pipeline's own outputs were not written: every combination had its own folder.
        QVERIFY(!fs::exists(dir.file("out")));
    }

    void exampleMatchesSingleRuns()
    {
        // pipelines/clicks-per-user, 3 delays x 2 lateness values, through tideline-run.
        const QString example = QStringLiteral(TIDELINE_PIPELINES_DIR "/clicks-per-user");
        const Cli sweep = runCli(
            {QStringLiteral("--sweep"),
             QStringLiteral("event_time.max_out_of_orderness_ms=0,10000,60000"),
             QStringLiteral("--sweep"), QStringLiteral("per_user.allowed_lateness_ms=0,30000"),
             QStringLiteral("--sweep-format"), QStringLiteral("json"),
             QStringLiteral("--sweep-jobs"), QStringLiteral("2"),
             example + QStringLiteral("/pipeline.json")});
        QVERIFY2(sweep.exitCode == 0, qPrintable(sweep.err));
        const QJsonObject table = QJsonDocument::fromJson(sweep.out.toUtf8()).object();
        const QJsonArray rows = table.value(QStringLiteral("rows")).toArray();
        QCOMPARE(rows.size(), 6);
        const std::string original = testing::readFile(example.toStdString() + "/pipeline.json");
        bool someLate = false, someAccepted = false;
        for (const auto &v : rows) {
            const QJsonObject row = v.toObject();
            const QJsonObject values = row.value(QStringLiteral("values")).toObject();
            const auto delay
                = values.value(QStringLiteral("event_time.max_out_of_orderness_ms")).toInteger();
            const auto lateness
                = values.value(QStringLiteral("per_user.allowed_lateness_ms")).toInteger();
            // The same pipeline with those values, run on its own in a copy of the folder.
            testing::TempDir dir;
            fs::copy_file(example.toStdString() + "/clicks.jsonl", dir.file("clicks.jsonl"));
            PipelineSpec spec = load(original);
            spec.nodes[static_cast<std::size_t>(spec.nodeIndex("event_time"))]
                .params["max_out_of_orderness_ms"]
                = delay;
            spec.nodes[static_cast<std::size_t>(spec.nodeIndex("per_user"))]
                .params["allowed_lateness_ms"]
                = lateness;
            testing::writeFile(dir.file("pipeline.json"), writeSpec(spec));
            const QString metrics = QString::fromStdString(dir.file("metrics.jsonl"));
            const Cli single = runCli({QStringLiteral("--metrics"), metrics,
                                       QString::fromStdString(dir.file("pipeline.json"))});
            QVERIFY2(single.exitCode == 0, qPrintable(single.err));
            const QJsonObject w = lastNodeLine(metrics, QStringLiteral("per_user"));
            const QJsonObject run = lastNodeLine(metrics, QStringLiteral("*"));
            const auto results = testing::readLines(dir.file("out/clicks-per-user.jsonl")).size();
            const QByteArray what = "delay " + QByteArray::number(delay) + " lateness "
                                    + QByteArray::number(lateness);
            QVERIFY2(row.value(QStringLiteral("late_dropped")).toInteger()
                         == w.value(QStringLiteral("late")).toInteger(),
                     what);
            QVERIFY2(row.value(QStringLiteral("late_accepted")).toInteger()
                         == w.value(QStringLiteral("late_accepted")).toInteger(0),
                     what);
            QVERIFY2(row.value(QStringLiteral("results")).toInteger()
                         == static_cast<qint64>(results),
                     what);
            QVERIFY2(row.value(QStringLiteral("input_records")).toInteger()
                         == run.value(QStringLiteral("records_read")).toInteger(),
                     what);
            someLate = someLate || row.value(QStringLiteral("late_dropped")).toInteger() > 0;
            someAccepted
                = someAccepted || row.value(QStringLiteral("late_accepted")).toInteger() > 0;
            QVERIFY(row.value(QStringLiteral("peak_state_entries")).toInteger() > 0);
            QVERIFY(row.value(QStringLiteral("completeness")).toDouble() > 0);
            QVERIFY(row.value(QStringLiteral("completeness")).toDouble() <= 1.0);
        }
        // The sweep is about something: some combination drops late clicks, some takes them.
        QVERIFY(someLate);
        QVERIFY(someAccepted);
    }

    void formatsParseAndAgree()
    {
        testing::TempDir dir;
        testing::writeFile(dir.file("events.jsonl"), tinyEvents);
        testing::writeFile(dir.file("pipeline.json"), tinyPipeline);
        auto run = [&](const QString &format) {
            return runCli(
                {QStringLiteral("--sweep"), QStringLiteral("wm.max_out_of_orderness_ms=0,3000"),
                 QStringLiteral("--sweep"), QStringLiteral("w.allowed_lateness_ms=0,5000"),
                 QStringLiteral("--sweep-format"), format,
                 QString::fromStdString(dir.file("pipeline.json"))});
        };
        const Cli csv = run(QStringLiteral("csv"));
        QVERIFY2(csv.exitCode == 0, qPrintable(csv.err));
        QStringList lines = csv.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 5);
        QCOMPARE(lines[0], QStringLiteral("wm.max_out_of_orderness_ms,w.allowed_lateness_ms,"
                                          "late_dropped,late_accepted,results,completeness,"
                                          "latency_p50_ms,latency_p99_ms,peak_state_entries,"
                                          "peak_state_bytes,error"));
        const QStringList first = lines[1].split(QLatin1Char(','));
        QCOMPARE(first.size(), 11);
        QCOMPARE(first.mid(0, 9),
                 (QStringList{"0", "0", "2", "0", "3", "0.8571", "1001", "2001", "2"}));
        QCOMPARE(first[10], QString());
        const QStringList last = lines[4].split(QLatin1Char(','));
        QCOMPARE(last.mid(0, 9),
                 (QStringList{"3000", "5000", "1", "0", "3", "1.0000", "5001", "5001", "3"}));

        const Cli json = run(QStringLiteral("json"));
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        QJsonParseError error{};
        const QJsonDocument doc = QJsonDocument::fromJson(json.out.toUtf8(), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonArray rows = doc.object().value(QStringLiteral("rows")).toArray();
        QCOMPARE(rows.size(), 4);
        const QJsonObject r1 = rows[1].toObject();
        QCOMPARE(r1.value(QStringLiteral("values"))
                     .toObject()
                     .value(QStringLiteral("w.allowed_lateness_ms"))
                     .toInteger(),
                 5000);
        QCOMPARE(r1.value(QStringLiteral("late_accepted")).toInteger(), 1);
        QCOMPARE(r1.value(QStringLiteral("results")).toInteger(), 4);
        QCOMPARE(r1.value(QStringLiteral("latency_p50_ms")).toDouble(), 2001.0);
        QCOMPARE(r1.value(QStringLiteral("results_at_end")).toInteger(), 1);
        QCOMPARE(doc.object().value(QStringLiteral("axes")).toArray().size(), 2);

        const Cli text = run(QStringLiteral("text"));
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        lines = text.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 5);
        QVERIFY(lines[0].startsWith(QStringLiteral("wm.max_out_of_orderness_ms")));
        QCOMPARE(lines[1].split(QLatin1Char(' '), Qt::SkipEmptyParts).mid(0, 9),
                 (QStringList{"0", "0", "2", "0", "3", "0.8571", "1001", "2001", "2"}));
    }

    void badSpecsAreRefusedWithTheFix_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("words");
        QTest::newRow("no node") << QStringList{"--sweep", "wn.max_out_of_orderness_ms=0"}
                                 << QStringList{"no node `wn`", "did you mean",
                                                "src, wm, w, out, late"};
        QTest::newRow("no param") << QStringList{"--sweep", "wm.max_out_of_order_ms=0"}
                                  << QStringList{
                                         "node `wm` (watermark) has no param `max_out_of_order_ms`",
                                         "did you mean `wm.max_out_of_orderness_ms`"};
        QTest::newRow("not an integer") << QStringList{"--sweep", "wm.max_out_of_orderness_ms=0,5s"}
                                        << QStringList{"`5s` is not an integer", "milliseconds"};
        QTest::newRow("out of range") << QStringList{"--sweep", "wm.max_out_of_orderness_ms=-5"}
                                      << QStringList{"`-5` is out of range", "takes 0 to"};
        QTest::newRow("not a choice") << QStringList{"--sweep", "w.type=tumbling,hopping"}
                                      << QStringList{"`hopping` is not one of", "sliding"};
        QTest::newRow("not one value") << QStringList{"--sweep", "w.key=a,b"}
                                       << QStringList{"a sweep sets params of type", "key is a"};
        QTest::newRow("no equals") << QStringList{"--sweep", "wm.max_out_of_orderness_ms"}
                                   << QStringList{"expected NODE.PARAM=V1,V2,..."};
        QTest::newRow("no values")
            << QStringList{"--sweep", "wm.max_out_of_orderness_ms="} << QStringList{"no values"};
        QTest::newRow("empty value") << QStringList{"--sweep", "wm.max_out_of_orderness_ms=1,,2"}
                                     << QStringList{"an empty value"};
        QTest::newRow("twice") << QStringList{"--sweep", "wm.max_out_of_orderness_ms=1", "--sweep",
                                              "wm.max_out_of_orderness_ms=2"}
                               << QStringList{"given twice", "list all its values in one"};
        QTest::newRow("repeated value") << QStringList{"--sweep", "wm.max_out_of_orderness_ms=1,1"}
                                        << QStringList{"listed twice"};
        QTest::newRow("with --expect")
            << QStringList{"--sweep", "wm.max_out_of_orderness_ms=1", "--expect", "x"}
            << QStringList{"cannot be combined with", "--expect"};
        QTest::newRow("bad format")
            << QStringList{"--sweep", "wm.max_out_of_orderness_ms=1", "--sweep-format", "xml"}
            << QStringList{"--sweep-format must be text, csv or json"};
        QTest::newRow("bad jobs") << QStringList{"--sweep", "wm.max_out_of_orderness_ms=1",
                                                 "--sweep-jobs", "0"}
                                  << QStringList{"--sweep-jobs must be a positive number"};
    }

    void badSpecsAreRefusedWithTheFix()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, words);
        testing::TempDir dir;
        testing::writeFile(dir.file("events.jsonl"), tinyEvents);
        testing::writeFile(dir.file("pipeline.json"), tinyPipeline);
        const Cli r = runCli(args << QString::fromStdString(dir.file("pipeline.json")));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
        for (const QString &w : words)
            QVERIFY2(r.err.contains(w), qPrintable(w + QStringLiteral(" not in: ") + r.err));
        QVERIFY(!fs::exists(dir.file("out")));
    }

    void unboundedSourceIsRefused()
    {
        testing::TempDir dir;
        const std::string pipeline = R"({
          "format": "tideline/1", "name": "forever",
          "nodes": [
            { "id": "gen", "kind": "source.generator", "params": { "count": 0 } },
            { "id": "wm", "kind": "watermark", "params": { "time_field": "ts", "max_out_of_orderness_ms": 0 } },
            { "id": "out", "kind": "sink.discard", "params": {} }
          ],
          "edges": [ { "from": "gen.out", "to": "wm.in" }, { "from": "wm.out", "to": "out.in" } ]
        })";
        testing::writeFile(dir.file("pipeline.json"), pipeline);
        const Cli r
            = runCli({QStringLiteral("--sweep"), QStringLiteral("wm.max_out_of_orderness_ms=0,1"),
                      QString::fromStdString(dir.file("pipeline.json"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--sweep needs a bounded input")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("source `gen`")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("give it a count")), qPrintable(r.err));
        // The engine API refuses it too (the designer's path), instead of running forever.
        const PipelineSpec spec = load(pipeline);
        sweep::Plan plan;
        sweep::Axis a;
        QVERIFY(sweep::parseAxis("wm.max_out_of_orderness_ms=0,1", spec, a).empty());
        QVERIFY(sweep::addAxis(plan, a).empty());
        const sweep::Result result = sweep::run(spec, plan, {});
        QCOMPARE(result.rows.size(), std::size_t(2));
        for (const auto &row : result.rows)
            QVERIFY2(row.error.find("needs a bounded input") != std::string::npos,
                     row.error.c_str());
    }

    void anInvalidCombinationIsARowNotACrash()
    {
        // A sliding window needs slide_ms: the window's validator refuses that row, the other runs.
        testing::TempDir dir;
        testing::writeFile(dir.file("events.jsonl"), tinyEvents);
        const PipelineSpec spec = load(tinyPipeline);
        sweep::Plan plan;
        sweep::Axis a;
        QCOMPARE(QString::fromStdString(sweep::parseAxis("w.type=tumbling,sliding", spec, a)),
                 QString());
        QVERIFY(sweep::addAxis(plan, a).empty());
        sweep::Options o;
        o.baseDir = dir.path.string();
        const sweep::Result r = sweep::run(spec, plan, o);
        QCOMPARE(r.rows.size(), std::size_t(2));
        QVERIFY2(r.rows[0].error.empty(), r.rows[0].error.c_str());
        QCOMPARE(r.rows[0].results, std::int64_t(3));
        QVERIFY2(r.rows[1].error.find("slide_ms") != std::string::npos, r.rows[1].error.c_str());
        QCOMPARE(r.rows[1].results, std::int64_t(0));
    }

    void cancelStopsTheSweep()
    {
        testing::TempDir dir;
        testing::writeFile(dir.file("events.jsonl"), tinyEvents);
        const PipelineSpec spec = load(tinyPipeline);
        sweep::Plan plan;
        sweep::Axis a;
        QVERIFY(sweep::parseAxis("wm.max_out_of_orderness_ms=0,1,2,3", spec, a).empty());
        QVERIFY(sweep::addAxis(plan, a).empty());
        std::atomic<bool> cancel{true};
        sweep::Options o;
        o.baseDir = dir.path.string();
        o.cancel = &cancel;
        const sweep::Result r = sweep::run(spec, plan, o);
        QVERIFY(r.cancelled);
        for (const auto &row : r.rows)
            QCOMPARE(QString::fromStdString(row.error), QStringLiteral("cancelled"));
    }
};

QTEST_GUILESS_MAIN(SweepTest)
#include "test_sweep.moc"
