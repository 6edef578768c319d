// engine.postgres.sink: sink.postgres against a real PostgreSQL 15 (pg_server.hpp). Rows,
// types, upserts, refused rows on `errors` with the server's message, a missing table and a
// server that is down reported before the run starts, a server restarted mid-run, and a
// password that appears in no output.

#include "pg_pipelines.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/validate.hpp>

#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <filesystem>
#include <map>
#include <thread>

using namespace tideline;
using namespace tideline::pgtest;
using tideline::testing::readFile;
using tideline::testing::readLines;
using tideline::testing::TempDir;
using tideline::testing::writeFile;
namespace fs = std::filesystem;

namespace {

std::string sinkNode(const std::string &params)
{
    return R"({"id":"out","kind":"sink.postgres","params":{)" + params + "}}";
}

std::string fileSourcePipeline(const std::string &sinkParams, const std::string &settings = "")
{
    return R"({"format":"tideline/1","name":"pg-file",)" + settings + R"("nodes":[
      {"id":"src","kind":"source.file","params":{"path":"in.jsonl"}},)"
           + sinkNode(sinkParams) + R"(,
      {"id":"bad","kind":"sink.file","params":{"path":"errors.jsonl"}}],
      "edges":[{"from":"src.out","to":"out.in"},{"from":"out.errors","to":"bad.in"}]})";
}

} // namespace

class TestPostgresSink : public QObject
{
    Q_OBJECT
    Server m_pg;
    std::string m_skip;

    std::string ci() const { return m_pg.conninfo(); }

private Q_SLOTS:
    void initTestCase()
    {
        m_skip = unavailable();
        if (!m_skip.empty())
            return;
        std::string err = m_pg.start();
        QVERIFY2(err.empty(), err.c_str());
    }
    void init()
    {
        // The validation cases need no server.
        if (!m_skip.empty()
            && std::string(QTest::currentTestFunction()).rfind("validation", 0) != 0)
            QSKIP(m_skip.c_str());
    }

    void validationRefusesWhatTheFactoryWould()
    {
        auto problems = [](const std::string &sinkParams, const std::string &settings = "") {
            LoadResult loaded = loadSpec(fileSourcePipeline(sinkParams, settings));
            std::string text;
            auto add = [&](const std::vector<Diagnostic> &ds) {
                for (const auto &d : ds)
                    text += (d.isError() ? "E: " : "W: ") + d.format() + "\n";
            };
            add(loaded.diagnostics);
            if (loaded.ok())
                add(validate(*loaded.spec));
            return text;
        };
        const std::string ok = "\"conninfo\":\"host=h password=${env:PW}\",\"table\":\"t\"";
        const std::string clean = problems(ok + ",\"key\":[\"id\"]");
        QVERIFY2(clean.find("E: ") == std::string::npos, clean.c_str());
        std::string p = problems(ok);
        QVERIFY2(p.find("E: nodes[1] \"out\": params.key: mode upsert needs the conflict columns")
                     != std::string::npos,
                 p.c_str());
        p = problems(
            "\"conninfo\":\"postgresql://u:hunter2@h/db\",\"table\":\"t\",\"key\":[\"id\"]");
        QVERIFY2(p.find("params.conninfo: holds a literal password") != std::string::npos,
                 p.c_str());
        QVERIFY2(p.find("hunter2") == std::string::npos, p.c_str());
        p = problems(ok
                     + ",\"key\":[\"id\"],\"create_table\":true,\"columns\":[{\"field\":\"id\"}]");
        QVERIFY2(p.find("params.columns[0].type: create_table needs each column's type")
                     != std::string::npos,
                 p.c_str());
        p = problems(ok
                     + ",\"key\":[\"nope\"],\"columns\":[{\"field\":\"id\",\"type\":\"bigint\"}]");
        QVERIFY2(p.find("params.key: `nope` is not one of the columns") != std::string::npos,
                 p.c_str());
        p = problems(ok + ",\"table\":\"a.b.c\",\"key\":[\"id\"]");
        QVERIFY2(p.find("params.table") != std::string::npos, p.c_str());
        // Pitfalls: exactly_once without checkpoints; append + at_least_once with checkpoints.
        p = problems(ok + ",\"mode\":\"append\",\"delivery\":\"exactly_once\"");
        QVERIFY2(p.find("W: ") != std::string::npos
                     && p.find("exactly_once commits a transaction per checkpoint")
                            != std::string::npos,
                 p.c_str());
        p = problems(ok + ",\"mode\":\"append\"",
                     "\"settings\":{\"checkpoint\":{\"interval_ms\":1000,\"dir\":\"ck\"}},");
        QVERIFY2(p.find("duplicate rows") != std::string::npos, p.c_str());
    }
    void cleanupTestCase() { m_pg.stop(); }

    void upsertKeepsTheLatestRowPerKey()
    {
        m_pg.sql("CREATE TABLE latest (user_id bigint PRIMARY KEY, event_id bigint, value bigint)");
        TempDir d;
        const std::string json
            = R"({"format":"tideline/1","name":"up","nodes":[
          {"id":"g","kind":"source.generator","params":{"count":3000,"keys":40,"seed":3}},)"
              + sinkNode("\"conninfo\":\"" + ci()
                         + "\",\"table\":\"latest\",\"key\":[\"user_id\"],\n                       "
                           "                         \"batch_rows\":64")
              + R"(,{"id":"f","kind":"sink.file","params":{"path":"all.jsonl"}}],
          "edges":[{"from":"g.out","to":"out.in"},{"from":"g.out","to":"f.in"}]})";
        auto r = tideline::testing::runPipeline(json, d.path.string());
        QVERIFY2(r.createError.empty(), r.createError.c_str());
        QVERIFY2(r.status == Job::Status::Finished, r.failure.c_str());
        std::map<std::int64_t, std::string> last;
        for (const auto &line : readLines(d.file("all.jsonl"))) {
            Json j = Json::parse(line);
            last[j["user_id"].get<std::int64_t>()] = std::to_string(j["user_id"].get<int>()) + "|"
                                                     + std::to_string(j["event_id"].get<int>())
                                                     + "|" + std::to_string(j["value"].get<int>());
        }
        std::string want;
        for (const auto &[k, row] : last)
            want += row + "\n";
        QCOMPARE(last.size(), std::size_t(40));
        QCOMPARE(m_pg.sql("SELECT user_id, event_id, value FROM latest ORDER BY user_id"), want);
    }

    void typesAndCreatedTables()
    {
        TempDir d;
        // (Plain literals: moc misreads an apostrophe inside a raw string.)
        writeFile(d.file("in.jsonl"),
                  "{\"id\":1,\"t\":1700000000123,\"obj\":{\"a\":1,\"b\":\"x y\"},\"ok\":true,"
                  "\"x\":1.5,\"s\":\"it's\"}\n"
                  "{\"id\":2,\"t\":-1,\"obj\":{\"a\":2},\"ok\":false,\"x\":-2,"
                  "\"s\":\"back\\\\slash\"}\n");
        auto r = tideline::testing::runPipeline(
            fileSourcePipeline(
                "\"conninfo\":\"" + ci()
                + "\",\"table\":\"public.typed\",\n              "
                  "\"mode\":\"append\",\"create_table\":true,\"columns\":[\n              "
                  "{\"field\":\"id\",\"type\":\"bigint\"},{\"field\":\"t\",\"column\":\"at\","
                  "\"type\":\"timestamptz\"},\n              "
                  "{\"field\":\"obj\",\"type\":\"jsonb\"},{\"field\":\"obj.a\",\"type\":\"bigint\"}"
                  ",\n              "
                  "{\"field\":\"ok\",\"type\":\"boolean\"},{\"field\":\"x\",\"type\":\"double "
                  "precision\"},\n              {\"field\":\"s\",\"type\":\"text\"}]"),
            d.path.string());
        QVERIFY2(r.createError.empty(), r.createError.c_str());
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(m_pg.sql("SELECT id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'),"
                          " obj->>'b', obj_a, ok, x, s FROM typed ORDER BY id"),
                 std::string("1|2023-11-14 22:13:20.123|x y|1|t|1.5|it's\n"
                             "2|1969-12-31 23:59:59.999||2|f|-2|back\\slash\n"));
        // Without `columns`: the table is made from the first record's fields.
        auto r2 = tideline::testing::runPipeline(
            fileSourcePipeline(
                "\"conninfo\":\"" + ci()
                + "\",\"table\":\"inferred\",\"key\":[\"id\"],\"create_table\":true"),
            d.path.string());
        QVERIFY2(r2.createError.empty(), r2.createError.c_str());
        QCOMPARE(r2.status, Job::Status::Finished);
        QCOMPARE(m_pg.sql("SELECT column_name || ':' || data_type FROM information_schema.columns"
                          " WHERE table_name = 'inferred' ORDER BY ordinal_position"),
                 std::string("id:bigint\nt:bigint\nobj:jsonb\nok:boolean\nx:double precision\n"
                             "s:text\n"));
        QCOMPARE(m_pg.sql("SELECT id, obj->>'a', s FROM inferred ORDER BY id"),
                 std::string("1|1|it's\n2|2|back\\slash\n"));
    }

    void refusedRowsGoToErrorsWithTheServersMessage_data()
    {
        QTest::addColumn<QString>("delivery");
        QTest::newRow("at_least_once") << "at_least_once";
        QTest::newRow("exactly_once") << "exactly_once";
    }
    void refusedRowsGoToErrorsWithTheServersMessage()
    {
        QFETCH(QString, delivery);
        const std::string table = "checked_" + delivery.toStdString();
        m_pg.sql("CREATE TABLE " + table + " (id bigint PRIMARY KEY, n bigint CHECK (n >= 0))");
        TempDir d;
        writeFile(d.file("in.jsonl"), "{\"id\":1,\"n\":5}\n{\"id\":2,\"n\":\"abc\"}\n"
                                      "{\"id\":3,\"n\":-1}\n{\"id\":4,\"n\":7}\n");
        auto r = tideline::testing::runPipeline(
            fileSourcePipeline("\"conninfo\":\"" + ci() + "\",\"table\":\"" + table
                               + "\",\"key\":[\"id\"],\"delivery\":\"" + delivery.toStdString()
                               + "\""),
            d.path.string());
        QVERIFY2(r.createError.empty(), r.createError.c_str());
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(m_pg.sql("SELECT id, n FROM " + table + " ORDER BY id"),
                 std::string("1|5\n4|7\n"));
        auto errors = readLines(d.file("errors.jsonl"));
        QCOMPARE(errors.size(), std::size_t(2));
        Json e0 = Json::parse(errors[0]), e1 = Json::parse(errors[1]);
        QCOMPARE(e0["node"].get<std::string>(), std::string("out"));
        QVERIFY2(e0["reason"].get<std::string>().find("invalid input syntax for type bigint")
                     != std::string::npos,
                 errors[0].c_str());
        QCOMPARE(e0["record"]["id"].get<int>(), 2);
        QVERIFY2(e1["reason"].get<std::string>().find("violates check constraint")
                     != std::string::npos,
                 errors[1].c_str());
        QCOMPARE(e1["record"]["id"].get<int>(), 3);
    }

    // A time column given a double: floored to the millisecond; one beyond int64's range of
    // milliseconds (1e300) was cast to an integer, which is undefined. It goes to the server as
    // written, and the server's refusal sends that row to `errors`; the others are written.
    void hugeDoubleInATimeColumnIsRefusedNotWrapped()
    {
        m_pg.sql("CREATE TABLE huge_times (id bigint PRIMARY KEY, at timestamptz)");
        TempDir d;
        writeFile(d.file("in.jsonl"), "{\"id\":1,\"t\":1700000000123.7}\n"
                                      "{\"id\":2,\"t\":1e300}\n"
                                      "{\"id\":3,\"t\":-1e300}\n"
                                      "{\"id\":4,\"t\":1700000000000}\n");
        auto r = tideline::testing::runPipeline(
            fileSourcePipeline("\"conninfo\":\"" + ci()
                               + "\",\"table\":\"huge_times\",\"key\":[\"id\"],\"columns\":["
                                 "{\"field\":\"id\",\"type\":\"bigint\"},"
                                 "{\"field\":\"t\",\"column\":\"at\",\"type\":\"timestamptz\"}]"),
            d.path.string());
        QVERIFY2(r.createError.empty(), r.createError.c_str());
        QCOMPARE(r.status, Job::Status::Finished);
        QCOMPARE(m_pg.sql("SELECT id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS')"
                          " FROM huge_times ORDER BY id"),
                 std::string("1|2023-11-14 22:13:20.123\n4|2023-11-14 22:13:20.000\n"));
        auto errors = readLines(d.file("errors.jsonl"));
        QCOMPARE(errors.size(), std::size_t(2));
        QCOMPARE(Json::parse(errors[0])["record"]["id"].get<int>(), 2);
        QCOMPARE(Json::parse(errors[1])["record"]["id"].get<int>(), 3);
    }

    void missingTableIsReportedBeforeTheRun()
    {
        TempDir d;
        writeFile(d.file("in.jsonl"), "{\"id\":1}\n");
        writeFile(d.file("pipeline.json"),
                  fileSourcePipeline("\"conninfo\":\"" + ci()
                                     + "\",\"table\":\"nowhere\",\"key\":[\"id\"]"));
        RunOutcome r = runRunner(d.path.string());
        QVERIFY(r.finished);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.find("node `out`") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("params.table") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("nowhere does not exist") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("create_table") != std::string::npos, r.err.c_str());
        QVERIFY(r.err.find(kPassword) == std::string::npos);
        // A missing key index is reported the same way (upsert needs ON CONFLICT's index).
        m_pg.sql("CREATE TABLE nokey (id bigint)");
        writeFile(d.file("pipeline.json"),
                  fileSourcePipeline("\"conninfo\":\"" + ci()
                                     + "\",\"table\":\"nokey\",\"key\":[\"id\"]"));
        r = runRunner(d.path.string());
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.find("params.key") != std::string::npos
                     && r.err.find("no primary key or unique index on (id)") != std::string::npos,
                 r.err.c_str());
    }

    void serverDownAtStartNamesNodeAndConninfoWithoutPassword()
    {
        TempDir d;
        writeFile(d.file("in.jsonl"), "{\"id\":1}\n");
        const int port = freePort();
        const std::string down = "host=127.0.0.1 port=" + std::to_string(port)
                                 + " dbname=tideline user=tideline password=${env:TL_PG_PASSWORD}";
        writeFile(
            d.file("pipeline.json"),
            fileSourcePipeline("\"conninfo\":\"" + down + "\",\"table\":\"t\",\"key\":[\"id\"]"));
        RunOutcome r = runRunner(d.path.string());
        QVERIFY(r.finished);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.find("node `out`") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("cannot connect to PostgreSQL") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("port=" + std::to_string(port)) != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("password") == std::string::npos, r.err.c_str());
        QVERIFY(r.err.find(kPassword) == std::string::npos);
    }

    void literalPasswordIsRefusedByValidation()
    {
        TempDir d;
        writeFile(d.file("in.jsonl"), "{\"id\":1}\n");
        writeFile(d.file("pipeline.json"),
                  fileSourcePipeline(R"("conninfo":"host=127.0.0.1 password=hunter2","table":"t",)"
                                     R"("key":["id"])"));
        RunOutcome r = runRunner(d.path.string(), 0, {"--validate"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("params.conninfo") != std::string::npos
                     && r.err.find("${env:NAME}") != std::string::npos,
                 r.err.c_str());
    }

    void passwordAppearsInNoOutput()
    {
        // A checkpointed run with metrics, a failing run (wrong table) and a refused login:
        // the password is in no output stream, no file of the run, and no error.
        TempDir d;
        const std::string dir = d.path.string();
        WindowPipeline o;
        o.conninfo = ci();
        o.table = "secretcheck";
        o.count = 4000;
        o.checkpointMs = 50;
        writeFile(d.file("pipeline.json"), windowPipeline(o));
        RunOutcome ok = runRunner(dir, 0, {"--metrics", QString::fromStdString(dir + "/m.jsonl")});
        QVERIFY2(ok.finished && ok.exitCode == 0, ok.err.c_str());
        QVERIFY(m_pg.sql("SELECT count(*) FROM secretcheck") != "0\n");
        std::string all = ok.out + ok.err;
        writeFile(d.file("in.jsonl"), "{\"id\":1}\n");
        writeFile(d.file("pipeline.json"),
                  fileSourcePipeline("\"conninfo\":\"" + ci()
                                     + "\",\"table\":\"missing_one\",\"key\":[\"id\"]"));
        RunOutcome missing = runRunner(dir);
        QCOMPARE(missing.exitCode, 1);
        all += missing.out + missing.err;
        std::string wrong = ci();
        wrong.replace(wrong.find("${env:TL_PG_PASSWORD}"), 21, "${file:" + dir + "/pw}");
        writeFile(d.file("pw"), std::string(kPassword) + "-wrong\n");
        writeFile(
            d.file("pipeline.json"),
            fileSourcePipeline("\"conninfo\":\"" + wrong + "\",\"table\":\"t\",\"key\":[\"id\"]"));
        RunOutcome refused = runRunner(dir);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.find("password authentication failed") != std::string::npos,
                 refused.err.c_str());
        all += refused.out + refused.err;
        QVERIFY2(all.find(kPassword) == std::string::npos, all.c_str());
        int files = 0;
        for (auto &e : fs::recursive_directory_iterator(dir)) {
            if (!e.is_regular_file() || e.path().filename() == "pw")
                continue;
            ++files;
            QVERIFY2(readFile(e.path().string()).find(kPassword) == std::string::npos,
                     e.path().c_str());
        }
        QVERIFY(files > 3); // pipeline, metrics, checkpoint manifests and state
    }

    void serverRestartedMidRunLosesAndRepeatsNothing()
    {
        WindowPipeline ref;
        ref.conninfo = ci();
        ref.table = "restart_ref";
        TempDir rd;
        writeFile(rd.file("pipeline.json"), windowPipeline(ref));
        RunOutcome r0 = runRunner(rd.path.string());
        QVERIFY2(r0.finished && r0.exitCode == 0, r0.err.c_str());

        WindowPipeline o = ref;
        o.table = "restart_eos";
        o.recordsPerSecond = 5000; // ~3 s
        o.checkpointMs = 200;
        TempDir d;
        writeFile(d.file("pipeline.json"), windowPipeline(o));
        std::string restartErr;
        RunOutcome r = runRunner(d.path.string(), 0, {}, [&] {
            QThread::msleep(1200);
            restartErr = m_pg.restart();
        });
        QVERIFY2(restartErr.empty(), restartErr.c_str());
        QVERIFY2(r.finished && r.exitCode == 0, r.err.c_str());
        QCOMPARE(windowRows(m_pg, "restart_eos"), windowRows(m_pg, "restart_ref"));
        QCOMPARE(m_pg.sql("SELECT count(*) = count(DISTINCT epoch), sum(rows) FROM "
                          "tideline_progress WHERE pipeline = 'restart_eos'"),
                 "t|" + m_pg.sql("SELECT count(*) FROM restart_eos"));
    }
};

QTEST_GUILESS_MAIN(TestPostgresSink)
#include "test_postgres_sink.moc"
