// tideline-run as a process: exit codes, stderr format, --validate, --metrics, SIGTERM.

#include "cli_process.hpp"
#include "test_support.hpp"

#include <QProcess>
#include <QtTest>

#include <csignal>
#include <set>

using namespace tideline;
using testing::TempDir;

namespace {

using ProcResult = testing::CliResult;

ProcResult runTool(const QStringList &args, int timeoutMs = 60000)
{
    return testing::runProgram(QStringLiteral(TIDELINE_RUN_EXE), args, timeoutMs);
}

const char *kGood = R"({"format":"tideline/1","name":"g","nodes":[
  {"id":"g","kind":"source.generator","params":{"count":100}},
  {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":10}},
  {"id":"out","kind":"sink.file","params":{"path":"out/result.jsonl"}}],
  "edges":[{"from":"g.out","to":"wm.in"},{"from":"wm.out","to":"out.in"}]})";

} // namespace

class TestRunnerCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void runsAValidPipelineRelativeToItsFolder()
    {
        TempDir dir;
        testing::writeFile(dir.file("p.json"), kGood);
        auto r = runTool({QString::fromStdString(dir.file("p.json")), "--metrics",
                          QString::fromStdString(dir.file("m.jsonl"))});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(testing::readLines(dir.file("out/result.jsonl")).size(), std::size_t(100));
        auto metrics = testing::readLines(dir.file("m.jsonl"));
        QVERIFY(metrics.size() >= 4);
        // The last line per node carries the final figures.
        std::map<std::string, nlohmann::json> last;
        for (const auto &l : metrics) {
            auto j = nlohmann::json::parse(l);
            QVERIFY(j.contains("t_ms"));
            last[j["node"]] = j;
        }
        QCOMPARE(last["out"]["records_in"].get<int>(), 100);
        QCOMPARE(last["wm"]["records_out"].get<int>(), 100);
        QVERIFY(last["wm"].contains("watermark") && last["wm"].contains("state_entries")
                && last["wm"].contains("open_windows"));
        QCOMPARE(last["*"]["records_read"].get<int>(), 100);
    }

    void invalidPipelineExitsTwoListingEveryProblem()
    {
        TempDir dir;
        testing::writeFile(dir.file("bad.json"), R"({"format":"tideline/1","nodes":[
          {"id":"g","kind":"source.generator","params":{"count":-1}},
          {"id":"per_user","kind":"window","params":{"type":"tumbling","size_ms":0,"aggregates":[{"op":"count"}]}}],
          "edges":[{"from":"g.out","to":"per_user.in"}]})");
        auto r = runTool({QString::fromStdString(dir.file("bad.json"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("nodes[0] \"g\": params.count: must be >= 0"), qPrintable(r.err));
        QVERIFY2(r.err.contains("nodes[1] \"per_user\": params.size_ms: must be > 0"),
                 qPrintable(r.err));
        QVERIFY(r.err.contains("needs event time"));
        auto v = runTool({"--validate", QString::fromStdString(dir.file("bad.json"))});
        QCOMPARE(v.exitCode, 2);
    }

    void numberBeyondADoubleExitsTwoWithItsPath()
    {
        TempDir dir;
        std::string text = kGood;
        text.replace(text.find("100"), 3, "1e400");
        testing::writeFile(dir.file("p.json"), text);
        for (const QStringList &extra : {QStringList{"--validate"}, QStringList{}}) {
            auto r = runTool(QStringList{QString::fromStdString(dir.file("p.json"))} + extra);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("nodes[0].params.count: the number 1e400 is too large"),
                     qPrintable(r.err));
        }
    }

    void validatePrintsWarningsAndExitsZero()
    {
        TempDir dir;
        testing::writeFile(dir.file("p.json"), kGood);
        auto r = runTool({"--validate", QString::fromStdString(dir.file("p.json"))});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.err.contains("warning: nodes[1] \"wm\": `errors` is not connected"));
        QVERIFY(
            !QFile::exists(QString::fromStdString(dir.file("out/result.jsonl")))); // nothing ran
    }

    void failureWhileRunningExitsOne()
    {
        TempDir dir;
        testing::writeFile(dir.file("p.json"), R"({"format":"tideline/1","nodes":[
          {"id":"clicks","kind":"source.file","params":{"path":"missing.jsonl"}},
          {"id":"out","kind":"sink.console"}],"edges":[{"from":"clicks.out","to":"out.in"}]})");
        auto r = runTool({QString::fromStdString(dir.file("p.json"))});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("node `clicks`"), qPrintable(r.err));
    }

    void usageErrors()
    {
        QCOMPARE(runTool({}).exitCode, 2);
        QCOMPARE(runTool({"--bogus", "x.json"}).exitCode, 2);
        QCOMPARE(runTool({"/nonexistent/p.json"}).exitCode, 2);
    }

    void dumpTableShowsTheUpsertTable()
    {
        TempDir dir;
        std::filesystem::copy(TIDELINE_SOURCE_DIR "/pipelines/sessions-late-data", dir.path,
                              std::filesystem::copy_options::recursive);
        std::filesystem::remove_all(dir.path / "out");
        QCOMPARE(runTool({QString::fromStdString(dir.file("pipeline.json"))}).exitCode, 0);
        auto dump = runTool({"--dump-table", QString::fromStdString(dir.file("out/sessions.db"))});
        QCOMPARE(dump.exitCode, 0);
        auto rows = dump.out.trimmed().split('\n');
        QCOMPARE(rows.size(), 7); // one row per (user, window_start): the update replaced a row
        bool sawUpdate = false;
        for (const auto &row : rows) {
            auto j = nlohmann::json::parse(row.toStdString());
            QVERIFY(j.dump().find("\"user\"") != std::string::npos);
            sawUpdate |= j.dump().find("\"update\"") != std::string::npos;
        }
        QVERIFY(sawUpdate);
        // Running the same input again (from scratch) leaves the same table.
        std::filesystem::remove_all(dir.path / "state");
        QCOMPARE(runTool({"--fresh", QString::fromStdString(dir.file("pipeline.json"))}).exitCode,
                 0);
        QCOMPARE(runTool({"--dump-table", QString::fromStdString(dir.file("out/sessions.db"))}).out,
                 dump.out);
        QCOMPARE(runTool({"--dump-table", QString::fromStdString(dir.file("nope.db"))}).exitCode,
                 1);
    }

    void sigtermStopsGracefullyAndFlushes()
    {
        TempDir dir;
        std::string unbounded = kGood;
        unbounded.replace(unbounded.find("\"count\":100"), 11,
                          "\"count\":0,\"pace\":{\"records_per_s\":2000}");
        testing::writeFile(dir.file("p.json"), unbounded);
        QProcess p;
        p.start(TIDELINE_RUN_EXE, {QString::fromStdString(dir.file("p.json"))});
        QVERIFY(p.waitForStarted());
        QTest::qWait(700);
        ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("stopped"));
        auto lines = testing::readLines(dir.file("out/result.jsonl"));
        QVERIFY(lines.size() > 100);
        for (const auto &l : lines)
            QVERIFY(nlohmann::json::accept(l)); // flushed whole lines only
    }

    void sighupStopsLikeSigtermWithAFinalCheckpoint()
    {
        // Issue 23 #14: SIGHUP ended the run at once (the default action): no final
        // checkpoint, sinks not flushed. It is a graceful stop now, like SIGTERM.
        TempDir dir;
        std::string unbounded = kGood;
        unbounded.replace(unbounded.find("\"count\":100"), 11,
                          "\"count\":0,\"pace\":{\"records_per_s\":2000}");
        // A long interval: the only checkpoint is the final one taken on the way out.
        unbounded.replace(
            unbounded.find("\"nodes\""), 7,
            R"("settings":{"checkpoint":{"interval_ms":3600000,"dir":"state"}},"nodes")");
        testing::writeFile(dir.file("p.json"), unbounded);
        QProcess p;
        p.start(TIDELINE_RUN_EXE, {QString::fromStdString(dir.file("p.json"))});
        QVERIFY(p.waitForStarted());
        QTest::qWait(800);
        ::kill(static_cast<pid_t>(p.processId()), SIGHUP);
        QVERIFY(p.waitForFinished(10000));
        QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 0, qPrintable(err));
        QVERIFY2(err.contains("stopped"), qPrintable(err));
        int manifests = 0;
        for (const auto &e : std::filesystem::recursive_directory_iterator(dir.path / "state"))
            manifests += e.path().filename().string().rfind("manifest-", 0) == 0;
        QVERIFY2(manifests >= 1, "no final checkpoint after SIGHUP");
        auto lines = testing::readLines(dir.file("out/result.jsonl"));
        QVERIFY(lines.size() > 100);
        for (const auto &l : lines)
            QVERIFY(nlohmann::json::accept(l)); // flushed whole lines only
    }

    void validateAgreesWithTheRunOnAWindowKeyGivenAsAString()
    {
        // Issue 23 #13: `"key": "user_id"` passed --validate and the run exited 1 ("must be a
        // list of field paths"), a restart loop under systemd. One field as a string is the
        // catalog's shorthand for a one-element list, and the window now reads it so.
        TempDir dir;
        testing::writeFile(dir.file("p.json"), R"({"format":"tideline/1","nodes":[
          {"id":"g","kind":"source.generator","params":{"count":200,"keys":3}},
          {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":0}},
          {"id":"w","kind":"window","params":{"type":"tumbling","size_ms":100000,"key":"user_id",
             "aggregates":[{"op":"count","as":"n"}]}},
          {"id":"out","kind":"sink.file","params":{"path":"out/w.jsonl"}}],
          "edges":[{"from":"g.out","to":"wm.in"},{"from":"wm.out","to":"w.in"},{"from":"w.out","to":"out.in"}]})");
        auto v = runTool({"--validate", QString::fromStdString(dir.file("p.json"))});
        QCOMPARE(v.exitCode, 0);
        auto r = runTool({QString::fromStdString(dir.file("p.json"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto rows = testing::readLines(dir.file("out/w.jsonl"));
        QVERIFY(!rows.empty());
        std::set<long long> users;
        long long total = 0;
        for (const auto &l : rows) {
            auto j = nlohmann::json::parse(l);
            users.insert(j["user_id"].get<long long>());
            total += j["n"].get<long long>();
        }
        QCOMPARE(users.size(), std::size_t(3)); // grouped by user_id
        QCOMPARE(total, 200LL);
    }

    void validateRefusesDuplicateEdgesAndAbsurdSettings()
    {
        // Issue 23 #14: a duplicated edge silently doubled every record; state_memory_mb: 1e308
        // became a "0 KiB" budget.
        TempDir dir;
        testing::writeFile(dir.file("dup.json"), R"({"format":"tideline/1","nodes":[
          {"id":"g","kind":"source.generator","params":{"count":10}},
          {"id":"out","kind":"sink.file","params":{"path":"out/d.jsonl"}}],
          "edges":[{"from":"g.out","to":"out.in"},{"from":"g.out","to":"out.in"}]})");
        auto r = runTool({"--validate", QString::fromStdString(dir.file("dup.json"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(
            r.err.contains("edges[1]: duplicate edge: `g.out` -> `out.in` is already edges[0]"),
            qPrintable(r.err));
        QCOMPARE(runTool({QString::fromStdString(dir.file("dup.json"))}).exitCode, 2);
        QVERIFY(!QFile::exists(QString::fromStdString(dir.file("out/d.jsonl"))));

        for (const char *mb : {"1e308", "0", "-5", "0.0000001", "2000000"}) {
            testing::writeFile(
                dir.file("mb.json"),
                std::string(
                    R"({"format":"tideline/1","settings":{"state":"rocksdb","state_memory_mb":)")
                    + mb + R"(},"nodes":[
              {"id":"g","kind":"source.generator","params":{"count":10}},
              {"id":"out","kind":"sink.discard"}],"edges":[{"from":"g.out","to":"out.in"}]})");
            auto m = runTool({"--validate", QString::fromStdString(dir.file("mb.json"))});
            QVERIFY2(m.exitCode == 2, mb);
            QVERIFY2(m.err.contains("settings.state_memory_mb: must be a number of megabytes from "
                                    "0.001 to 1048576"),
                     qPrintable(m.err));
        }
    }
};

QTEST_MAIN(TestRunnerCli)
#include "test_runner_cli.moc"
