// Issue 23 item 2: a pipeline must not destroy its own files. Validation refuses a sink.file
// that writes the file a source reads, two sinks on one file, and a checkpoint folder or
// sink.upsert table that overlaps another node's file; paths are compared as the runtime
// resolves them (relative to the pipeline file's folder, `.`/`..`, symlinks, ${env:...}).

#include "checkpoint_edit.hpp"

#include <tideline/engine/validate.hpp>

#include <QProcess>
#include <QtTest>

#include <cstdlib>
#include <unistd.h>

using namespace tideline;
using tideline::testing::TempDir;

namespace {

std::string
pipeline(const std::string &nodes, const std::string &edges, const std::string &settings = {})
{
    return R"({"format":"tideline/1","name":"p",)"
           + (settings.empty() ? std::string() : R"("settings":)" + settings + ",") + R"("nodes":[)"
           + nodes + R"(],"edges":[)" + edges + "]}";
}

/// source.file `in` reading `inPath` -> sink.file `out` writing `outPath`.
std::string copyPipeline(const std::string &inPath,
                         const std::string &outPath,
                         const std::string &settings = {})
{
    return pipeline(R"({"id":"in","kind":"source.file","params":{"path":")" + inPath + R"("}},
        {"id":"out","kind":"sink.file","params":{"path":")"
                        + outPath + R"("}})",
                    R"({"from":"in.out","to":"out.in"})", settings);
}

const Diagnostic *find(const std::vector<Diagnostic> &ds, const std::string &fragment)
{
    for (const auto &d : ds)
        if (d.isError() && d.message.find(fragment) != std::string::npos)
            return &d;
    return nullptr;
}

std::string text(const std::vector<Diagnostic> &ds)
{
    return tideline::testing::diagnosticsText(ds);
}

int runTool(const QStringList &args, QString *err = nullptr)
{
    QProcess p;
    p.start(TIDELINE_RUN_EXE, args);
    p.waitForFinished(60000);
    if (err)
        *err = QString::fromUtf8(p.readAllStandardError());
    return p.exitCode();
}

} // namespace

class TestPaths : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sinkOverItsOwnInputIsRefused_data()
    {
        QTest::addColumn<QString>("in");
        QTest::addColumn<QString>("out");
        QTest::newRow("same text") << "data.jsonl"
                                   << "data.jsonl";
        QTest::newRow("./ prefix") << "data.jsonl"
                                   << "./data.jsonl";
        QTest::newRow("via ..") << "in/data.jsonl"
                                << "out/../in/data.jsonl";
        QTest::newRow("doubled slash") << "in//data.jsonl"
                                       << "in/data.jsonl";
    }
    void sinkOverItsOwnInputIsRefused()
    {
        QFETCH(QString, in);
        QFETCH(QString, out);
        auto r = loadSpec(copyPipeline(in.toStdString(), out.toStdString()));
        QVERIFY(!r.ok());
        const Diagnostic *d = find(r.diagnostics, "reads");
        QVERIFY2(d, text(r.diagnostics).c_str());
        // On the sink's path param; names both nodes and says what to do.
        QCOMPARE(d->nodeId, std::string("out"));
        QCOMPARE(d->path, std::string("nodes[1].params.path"));
        QCOMPARE(d->param, std::string("path"));
        QVERIFY2(d->message.find("`in`") != std::string::npos, d->message.c_str());
        QVERIFY2(d->message.find("nodes[0].params.path") != std::string::npos, d->message.c_str());
        QVERIFY2(d->message.find("write to another file") != std::string::npos, d->message.c_str());
    }

    void twoSinksOnOneFileAreRefused()
    {
        auto r = loadSpec(pipeline(
            R"({"id":"g","kind":"source.generator","params":{"count":10}},
               {"id":"a","kind":"sink.file","params":{"path":"out/all.jsonl"}},
               {"id":"b","kind":"sink.file","params":{"path":"out/./x/../all.jsonl","format":"csv"}})",
            R"({"from":"g.out","to":"a.in"},{"from":"g.out","to":"b.in"})"));
        QVERIFY(!r.ok());
        const Diagnostic *d = find(r.diagnostics, "both write");
        QVERIFY2(d, text(r.diagnostics).c_str());
        QCOMPARE(d->nodeId, std::string("b"));
        QCOMPARE(d->path, std::string("nodes[2].params.path"));
        QVERIFY2(d->message.find("`a`") != std::string::npos, d->message.c_str());
        // The fix: separate files, or one sink (its input takes several edges).
        QVERIFY2(d->message.find("several edges") != std::string::npos, d->message.c_str());
    }

    void foldersOverlappingFilesAreRefused_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("fragment");
        QTest::addColumn<QString>("node");
        QTest::newRow("checkpoint folder inside the output file") << QString::fromStdString(
            copyPipeline("data.jsonl", "out.jsonl",
                         R"({"checkpoint":{"interval_ms":1000,"dir":"out.jsonl/ck"}})"))
                                                                  << "settings.checkpoint.dir"
                                                                  << "out";
        QTest::newRow("output file where the checkpoints spill state")
            << QString::fromStdString(
                   copyPipeline("data.jsonl", "state/work/out.jsonl",
                                R"({"checkpoint":{"interval_ms":1000,"dir":"./state"}})"))
            << "inside the checkpoint folder"
            << "out";
        QTest::newRow("checkpoint folder is the input file") << QString::fromStdString(copyPipeline(
            "data.jsonl", "out.jsonl", R"({"checkpoint":{"interval_ms":1000,"dir":"data.jsonl"}})"))
                                                             << "settings.checkpoint.dir"
                                                             << "in";
        QTest::newRow("upsert table over the input") << QString::fromStdString(pipeline(
            R"({"id":"in","kind":"source.file","params":{"path":"t/data.jsonl"}},
                      {"id":"up","kind":"sink.upsert","params":{"path":"t","key":["id"]}})",
            R"({"from":"in.out","to":"up.in"})")) << "table folder"
                                                     << "up";
        QTest::newRow("checkpoint folder is the upsert table") << QString::fromStdString(pipeline(
            R"({"id":"g","kind":"source.generator","params":{"count":10}},
                      {"id":"up","kind":"sink.upsert","params":{"path":"state","key":["id"]}})",
            R"({"from":"g.out","to":"up.in"})",
            R"({"checkpoint":{"interval_ms":1000,"dir":"state/"}})"))
                                                               << "settings.checkpoint.dir"
                                                               << "up";
        QTest::newRow("enrich table written by a sink") << QString::fromStdString(pipeline(
            R"({"id":"g","kind":"source.generator","params":{"count":10}},
                      {"id":"e","kind":"enrich","params":{"table":"users.csv","key":"user_id"}},
                      {"id":"o","kind":"sink.file","params":{"path":"users.csv","format":"csv"}})",
            R"({"from":"g.out","to":"e.in"},{"from":"e.out","to":"o.in"})"))
                                                        << "reads"
                                                        << "o";
    }
    void foldersOverlappingFilesAreRefused()
    {
        QFETCH(QString, json);
        QFETCH(QString, fragment);
        QFETCH(QString, node);
        auto r = loadSpec(json.toStdString());
        const Diagnostic *d = find(r.diagnostics, fragment.toStdString());
        QVERIFY2(d, text(r.diagnostics).c_str());
        QCOMPARE(QString::fromStdString(d->nodeId), node);
        QVERIFY2(d->path.find(".params.path") != std::string::npos
                     || d->path.find(".params.table") != std::string::npos,
                 d->path.c_str());
    }

    void siblingsAndReadersAreFine()
    {
        // A name that merely starts like another path is not inside it; two readers of one
        // file are fine; an output file next to the checkpoints (not under a name they use,
        // the systemd unit's layout) is fine.
        auto r = loadSpec(pipeline(
            R"({"id":"a","kind":"source.file","params":{"path":"data.jsonl"}},
               {"id":"b","kind":"source.file","params":{"path":"./data.jsonl"}},
               {"id":"o","kind":"sink.file","params":{"path":"state.jsonl"}},
               {"id":"p","kind":"sink.file","params":{"path":"out/table.jsonl"}},
               {"id":"up","kind":"sink.upsert","params":{"path":"out/table","key":["id"]}},
               {"id":"q","kind":"sink.file","params":{"path":"state/results.jsonl"}})",
            R"({"from":"a.out","to":"o.in"},{"from":"b.out","to":"p.in"},{"from":"b.out","to":"up.in"},
               {"from":"a.out","to":"q.in"})",
            R"({"checkpoint":{"interval_ms":1000,"dir":"state"}})"));
        for (const auto &d : r.diagnostics)
            QVERIFY2(!d.isError(), d.format().c_str());
    }

    void examplesStayValid()
    {
        for (const char *f :
             {"clicks-by-country/pipeline.json", "ad-impressions-clicks/pipeline.json",
              "payments-dedup/pipeline.json", "sessions-late-data/pipeline.json",
              "clicks-per-user/pipeline.json", "sliding-average/pipeline.json"}) {
            auto r = loadSpecFile(std::string(TIDELINE_SOURCE_DIR "/pipelines/") + f);
            QVERIFY2(r.ok(), (std::string(f) + "\n" + text(r.diagnostics)).c_str());
        }
    }

    // With the pipeline file known, paths are resolved like the runtime does: against the
    // file's folder, through symlinks.
    void symlinksAndAbsolutePathsAreResolved()
    {
        TempDir dir;
        tideline::testing::writeFile(dir.file("data/events.jsonl"), "{\"a\":1}\n");
        QVERIFY(::symlink("data/events.jsonl", dir.file("link.jsonl").c_str()) == 0);
        QVERIFY(::symlink("data", dir.file("alias").c_str()) == 0);

        tideline::testing::writeFile(dir.file("p1.json"),
                                     copyPipeline("link.jsonl", "data/events.jsonl"));
        auto r1 = loadSpecFile(dir.file("p1.json"));
        QVERIFY2(find(r1.diagnostics, "reads"), text(r1.diagnostics).c_str());

        tideline::testing::writeFile(
            dir.file("p2.json"), copyPipeline(dir.file("data/events.jsonl"), "alias/events.jsonl"));
        auto r2 = loadSpecFile(dir.file("p2.json"));
        QVERIFY2(find(r2.diagnostics, "reads"), text(r2.diagnostics).c_str());

        // A hard link is the same file under another name.
        QVERIFY(::link(dir.file("data/events.jsonl").c_str(), dir.file("hard.jsonl").c_str()) == 0);
        tideline::testing::writeFile(dir.file("p4.json"),
                                     copyPipeline("hard.jsonl", "data/events.jsonl"));
        auto r4 = loadSpecFile(dir.file("p4.json"));
        QVERIFY2(find(r4.diagnostics, "reads"), text(r4.diagnostics).c_str());

        // Different files through the same folder link are fine.
        tideline::testing::writeFile(dir.file("p3.json"),
                                     copyPipeline("link.jsonl", "alias/other.jsonl"));
        auto r3 = loadSpecFile(dir.file("p3.json"));
        QVERIFY2(r3.ok(), text(r3.diagnostics).c_str());
    }

    // What validation cannot see (a ${env:...} path, --checkpoint-dir) is checked when the
    // job is created, with the values the run would use.
    void jobCreationChecksResolvedPaths()
    {
        TempDir dir;
        tideline::testing::writeFile(dir.file("data.jsonl"), "{\"a\":1}\n{\"a\":2}\n");
        ::setenv("TIDELINE_TEST_OUT", "./data.jsonl", 1);
        auto loaded = loadSpec(copyPipeline("data.jsonl", "${env:TIDELINE_TEST_OUT}"));
        QVERIFY2(loaded.ok(), text(loaded.diagnostics).c_str());
        JobOptions o;
        o.baseDir = dir.path.string();
        std::string error;
        auto job = Job::create(*loaded.spec, o, error);
        QVERIFY(!job);
        QVERIFY2(error.find("`in`") != std::string::npos
                     && error.find("reads") != std::string::npos,
                 error.c_str());
        QCOMPARE(tideline::testing::readFile(dir.file("data.jsonl")),
                 std::string("{\"a\":1}\n{\"a\":2}\n"));

        auto plain = loadSpec(copyPipeline("data.jsonl", "out.jsonl"));
        JobOptions o2;
        o2.baseDir = dir.path.string();
        o2.checkpointDirOverride = dir.file("out.jsonl");
        job = Job::create(*plain.spec, o2, error);
        QVERIFY(!job);
        QVERIFY2(error.find("checkpoint") != std::string::npos
                     && error.find("`out`") != std::string::npos,
                 error.c_str());
    }

    // The issue's reproduction: the run exited 0 and left the input cut short.
    void runnerRefusesAndLeavesTheInputAlone()
    {
        TempDir dir;
        std::string input;
        for (int i = 0; i < 20000; ++i)
            input += "{\"i\":" + std::to_string(i) + ",\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxx\"}\n";
        tideline::testing::writeFile(dir.file("data.jsonl"), input);
        tideline::testing::writeFile(dir.file("p.json"),
                                     copyPipeline("data.jsonl", "./data.jsonl"));
        QString err;
        QCOMPARE(runTool({QString::fromStdString(dir.file("p.json"))}, &err), 2);
        QVERIFY2(err.contains("reads"), qPrintable(err));
        QCOMPARE(runTool({"--validate", QString::fromStdString(dir.file("p.json"))}, &err), 2);
        QVERIFY(tideline::testing::readFile(dir.file("data.jsonl")) == input);
    }
};

QTEST_GUILESS_MAIN(TestPaths)
#include "test_paths.moc"
