// tideline-run --record / --replay end to end (issue 19): a recorded run replays to
// byte-identical outputs run after run (idle partitions and processing-time behaviour
// included) and to the live run's where that was deterministic; malformed lines replay to
// `errors`; a kill -9 or a full disk leaves a recording that reads and replays; a recording
// made for another pipeline, or a damaged one, is refused with a message naming what.

#include "test_support.hpp"

#include <tideline/engine/record_replay.hpp>
#include <tideline/engine/recording.hpp>

#include <QElapsedTimer>
#include <QProcess>
#include <QtTest>

#include <algorithm>
#include <csignal>
#include <filesystem>

using namespace tideline;
using tideline::testing::readFile;
using tideline::testing::TempDir;
using tideline::testing::writeFile;

namespace {

struct Run
{
    int code = -1;
    QString err;
    QString out;
    qint64 ms = 0;
};

Run runner(const QStringList &args, int timeoutMs = 60000)
{
    QProcess p;
    QElapsedTimer t;
    t.start();
    p.start(TIDELINE_RUN_EXE, args);
    p.waitForFinished(timeoutMs);
    Run r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.err = QString::fromUtf8(p.readAllStandardError());
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.ms = t.elapsed();
    return r;
}

// Two sources: a file with a malformed and a blank line, and a paced generator with an idle
// partition behind a watermark with an idle timeout (processing-time behaviour).
const char *kPipeline = R"({"format":"tideline/1","name":"rr","nodes":[
  {"id":"clicks","kind":"source.file","params":{"path":"in.jsonl"}},
  {"id":"gen","kind":"source.generator","params":{"count":400,"rate_per_s":1000,"keys":5,
     "start_time":0,"partitions":3,"pace":{"records_per_s":800},
     "disorder":{"idle_partitions":1,"max_delay_ms":300}}},
  {"id":"ct","kind":"watermark","params":{"time_field":"ts","max_out_of_orderness_ms":0}},
  {"id":"gt","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":50,
     "idle_timeout_ms":40}},
  {"id":"cw","kind":"window","params":{"type":"tumbling","size_ms":10,"key":["user"],
     "aggregates":[{"op":"count","as":"n"}]}},
  {"id":"gw","kind":"window","params":{"type":"tumbling","size_ms":50,"key":["user_id"],
     "aggregates":[{"op":"count","as":"n"}]}},
  {"id":"c_out","kind":"sink.file","params":{"path":"out/clicks.jsonl"}},
  {"id":"g_out","kind":"sink.file","params":{"path":"out/gen.jsonl"}},
  {"id":"late","kind":"sink.file","params":{"path":"out/late.jsonl"}},
  {"id":"bad","kind":"sink.file","params":{"path":"out/errors.jsonl"}}],
 "edges":[{"from":"clicks.out","to":"ct.in"},{"from":"ct.out","to":"cw.in"},
  {"from":"cw.out","to":"c_out.in"},{"from":"clicks.errors","to":"bad.in"},
  {"from":"gen.out","to":"gt.in"},{"from":"gt.out","to":"gw.in"},{"from":"gw.out","to":"g_out.in"},
  {"from":"gw.late","to":"late.in"}]})";

std::string clicks()
{
    std::string s;
    for (int i = 0; i < 60; ++i) {
        s += "{\"user\":\"u" + std::to_string(i % 4) + "\",\"ts\":" + std::to_string(i * 3) + "}\n";
        if (i == 17)
            s += "{\"user\": broken\n"; // malformed: replays to `errors` too
        if (i == 30)
            s += "   \n"; // blank: skipped, as in the live run
    }
    return s;
}

struct Outputs
{
    std::string clicks, gen, late, errors;
    bool operator==(const Outputs &) const = default;
};

Outputs outputs(const TempDir &d)
{
    return {readFile(d.file("out/clicks.jsonl")), readFile(d.file("out/gen.jsonl")),
            readFile(d.file("out/late.jsonl")), readFile(d.file("out/errors.jsonl"))};
}

void clearOutputs(const TempDir &d)
{
    std::filesystem::remove_all(d.path / "out");
}

/// The recording's records, read through the format's reader (fails the test on an error).
std::vector<recording::Entry> readAll(const std::string &dir, recording::Opened *info = nullptr)
{
    std::string error;
    auto r = recording::Reader::open(dir, error);
    if (!r)
        qFatal("%s", error.c_str());
    std::vector<recording::Entry> out;
    recording::Entry e;
    while (r->next(e))
        out.push_back(e);
    if (!r->error().empty())
        qFatal("%s", r->error().c_str());
    if (info)
        *info = r->info();
    return out;
}

} // namespace

class TestRecordReplay : public QObject
{
    Q_OBJECT

private slots:
    void replaysAreByteIdenticalAndMatchTheLiveRun()
    {
        TempDir d;
        writeFile(d.file("p.json"), kPipeline);
        writeFile(d.file("in.jsonl"), clicks());
        const QString pipeline = QString::fromStdString(d.file("p.json"));
        const QString rec = QString::fromStdString(d.file("rec"));
        Run live = runner({"--record", rec, pipeline});
        QVERIFY2(live.code == 0, qPrintable(live.err));
        const Outputs liveOut = outputs(d);
        QVERIFY(!liveOut.clicks.empty() && !liveOut.gen.empty());
        QVERIFY(liveOut.errors.find("broken") != std::string::npos);

        recording::Opened info;
        const auto entries = readAll(rec.toStdString(), &info);
        const recording::Manifest &m = info.manifest;
        QVERIFY(m.complete);
        QCOMPARE(m.stoppedBy, std::string("end of input"));
        QCOMPARE(m.pipeline, std::string("rr"));
        QCOMPARE(m.pipelineSha256, recording::sha256Hex(kPipeline));
        QCOMPARE(m.sources.size(), std::size_t(2));
        QCOMPARE(m.sources[0].id, std::string("clicks"));
        QCOMPARE(m.sources[0].records, std::int64_t(62)); // every line, blank and broken too
        QCOMPARE(m.sources[1].records, std::int64_t(400));
        QCOMPARE(m.sources[1].partitions, 3);
        QCOMPARE(m.ends, std::int64_t(2));
        QVERIFY(m.durationMs >= 300); // the generator was paced at 800/s
        // The raw line, with its line number, before parsing.
        QCOMPARE(entries[18].value, std::string("{\"user\": broken"));
        QCOMPARE(entries[18].offset.value_or(-1), std::int64_t(19));

        clearOutputs(d);
        Run r1 = runner({"--replay", rec, pipeline});
        QVERIFY2(r1.code == 0, qPrintable(r1.err));
        const Outputs first = outputs(d);
        clearOutputs(d);
        Run r2 = runner({"--replay", rec, pipeline});
        QVERIFY2(r2.code == 0, qPrintable(r2.err));
        const Outputs second = outputs(d);
        QVERIFY(first == second);
        // The file branch has no processing-time dependence: the replay gives the live output.
        QCOMPARE(first.clicks, liveOut.clicks);
        QCOMPARE(first.errors, liveOut.errors);
        QCOMPARE(first.gen.size() > 0, true);

        // The same records as a tideline-recording/1 recording (a line per record) replay
        // to the same outputs: /1 recordings made before /2 still replay.
        {
            recording::Manifest v1 = m;
            v1.version = 1;
            v1.records = v1.ends = v1.bytes = v1.durationMs = 0;
            for (auto &s : v1.sources)
                s.records = 0;
            std::string error;
            auto w = recording::Writer::create(d.file("rec1"), v1, {}, error);
            QVERIFY2(w, error.c_str());
            for (const auto &e : entries)
                QVERIFY(w->add(e));
            QCOMPARE(w->finish(m.stoppedBy), std::string());
            QVERIFY(readFile(d.file("rec1/manifest.json")).find("tideline-recording/1")
                    != std::string::npos);
            QVERIFY(readFile(d.file("rec/manifest.json")).find("tideline-recording/2")
                    != std::string::npos);
            clearOutputs(d);
            Run old = runner({"--replay", QString::fromStdString(d.file("rec1")), pipeline});
            QVERIFY2(old.code == 0, qPrintable(old.err));
            QVERIFY(outputs(d) == first);
        }

        // As recorded (speed 1): the same output, and it takes about the recorded time.
        clearOutputs(d);
        Run paced = runner({"--replay", rec, "--replay-speed", "1", pipeline});
        QVERIFY2(paced.code == 0, qPrintable(paced.err));
        QVERIFY(outputs(d) == first);
        QVERIFY2(paced.ms >= m.durationMs / 2, qPrintable(QString::number(paced.ms)));
    }

    // --sweep --replay: every combination replays the recording on its own virtual clock, so
    // two sweeps agree row for row, and the combination with the pipeline's own values has the
    // results of a single --replay.
    void sweepRunsEveryCombinationOnTheRecording()
    {
        TempDir d;
        writeFile(d.file("p.json"), kPipeline);
        writeFile(d.file("in.jsonl"), clicks());
        const QString pipeline = QString::fromStdString(d.file("p.json"));
        const QString rec = QString::fromStdString(d.file("rec"));
        Run live = runner({"--record", rec, pipeline});
        QVERIFY2(live.code == 0, qPrintable(live.err));
        clearOutputs(d);
        Run single = runner({"--replay", rec, pipeline});
        QVERIFY2(single.code == 0, qPrintable(single.err));
        const Outputs replayed = outputs(d);
        const auto lines = [](const std::string &s) {
            return static_cast<long>(std::count(s.begin(), s.end(), '\n'));
        };
        const QStringList sweep = {"--sweep",        "gw.size_ms=50,100",
                                   "--sweep",        "cw.size_ms=10,20",
                                   "--sweep-format", "csv",
                                   "--replay",       rec,
                                   pipeline};
        Run a = runner(sweep);
        QVERIFY2(a.code == 0, qPrintable(a.err + a.out));
        Run b = runner(sweep);
        QVERIFY2(b.code == 0, qPrintable(b.err));
        QCOMPARE(a.out, b.out);
        const QStringList rows = a.out.trimmed().split('\n');
        QCOMPARE(rows.size(), 5); // header + 4 combinations
        const QStringList header = rows[0].split(',');
        const int results = static_cast<int>(header.indexOf("results"));
        QVERIFY2(results >= 0, qPrintable(rows[0]));
        bool found = false;
        for (const QString &row : rows.mid(1)) {
            const QStringList cells = row.split(',');
            if (cells[0] != "50" || cells[1] != "10")
                continue;
            found = true;
            QCOMPARE(cells[results].toLong(), lines(replayed.clicks) + lines(replayed.gen));
        }
        QVERIFY2(found, qPrintable(a.out));
    }

    void mismatchedPipelineNamesTheSources()
    {
        TempDir d;
        writeFile(d.file("p.json"), kPipeline);
        writeFile(d.file("in.jsonl"), clicks());
        const QString rec = QString::fromStdString(d.file("rec"));
        QCOMPARE(runner({"--record", rec, QString::fromStdString(d.file("p.json"))}).code, 0);
        std::string other = kPipeline;
        other.replace(other.find("\"clicks\",\"kind\""), 8, "\"views\"");
        other.replace(other.find("clicks.out"), 10, "views.out");
        other.replace(other.find("clicks.errors"), 13, "views.errors");
        writeFile(d.file("q.json"), other);
        Run r = runner({"--replay", rec, QString::fromStdString(d.file("q.json"))});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("source `views` (source.file) is not in the recording")
                     && r.err.contains("the recording has source `clicks`"),
                 qPrintable(r.err));
    }

    void damagedRecordingNamesFileAndLine()
    {
        TempDir d;
        writeFile(d.file("p.json"), kPipeline);
        writeFile(d.file("in.jsonl"), clicks());
        const QString rec = QString::fromStdString(d.file("rec"));
        QCOMPARE(runner({"--record", rec, QString::fromStdString(d.file("p.json"))}).code, 0);
        std::string text = readFile(d.file("rec/records.tsv"));
        // An edit inside the fourth click's line (a raw line of a block), so only the block's
        // CRC tells.
        const std::size_t at = text.find("{\"user\":\"u3\",\"ts\":9}");
        QVERIFY(at != std::string::npos);
        text[at + 10] = '4';
        writeFile(d.file("rec/records.tsv"), text);
        Run r = runner({"--replay", rec, QString::fromStdString(d.file("p.json"))});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("records.tsv line ") && r.err.contains(" at byte ")
                     && r.err.contains("fail the block's CRC"),
                 qPrintable(r.err));
    }

    void limitsStopTheRunWithACompleteRecording()
    {
        TempDir d;
        writeFile(d.file("p.json"), kPipeline);
        writeFile(d.file("in.jsonl"), clicks());
        const QString rec = QString::fromStdString(d.file("rec"));
        Run r = runner({"--record", rec, "--record-max-records", "100",
                        QString::fromStdString(d.file("p.json"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        recording::Opened info;
        QCOMPARE(readAll(rec.toStdString(), &info).size(), std::size_t(100 + 1)); // + clicks' end
        QCOMPARE(info.manifest.records, std::int64_t(100));
        QCOMPARE(info.manifest.stoppedBy, std::string("max records"));
        // The replay of a stopped recording stops where it ended, like the recorded run.
        Run replay = runner({"--replay", rec, QString::fromStdString(d.file("p.json"))});
        QVERIFY2(replay.code == 0 && replay.err.contains("stopping the replay"),
                 qPrintable(replay.err));
    }

    void killLeavesAReadableRecording()
    {
        TempDir d;
        std::string p = kPipeline;
        p.replace(p.find("\"count\":400"), 11, "\"count\":0"); // unbounded
        writeFile(d.file("p.json"), p);
        writeFile(d.file("in.jsonl"), clicks());
        const QString rec = QString::fromStdString(d.file("rec"));
        QProcess proc;
        proc.start(TIDELINE_RUN_EXE, {"--record", rec, QString::fromStdString(d.file("p.json"))});
        QVERIFY(proc.waitForStarted(5000));
        QElapsedTimer t;
        t.start();
        // Wait until a checkpoint of the recording wrote some lines, then kill -9.
        std::error_code ec;
        while (t.elapsed() < 20000
               && (std::filesystem::file_size(d.file("rec/records.tsv"), ec) < 2000 || ec))
            QThread::msleep(100);
        QThread::msleep(300);
        ::kill(static_cast<pid_t>(proc.processId()), SIGKILL);
        QVERIFY(proc.waitForFinished(5000));
        // Whatever the kill cut, the recording reads (a torn last line is left out, with a
        // note) and replays.
        recording::Opened info;
        const auto entries = readAll(rec.toStdString(), &info);
        QVERIFY(!info.manifest.complete);
        QVERIFY(entries.size() >= 20);
        Run replay = runner({"--replay", rec, QString::fromStdString(d.file("p.json"))});
        QVERIFY2(replay.code == 0, qPrintable(replay.err));
        QVERIFY2(replay.err.contains("did not end cleanly"), qPrintable(replay.err));
    }

    void fullDiskLeavesAValidRecording()
    {
        // A file size limit stands in for a full disk: writes fail the same way (EFBIG instead
        // of ENOSPC), and the recorder cuts records.tsv back to its last whole line.
        TempDir d;
        std::string p = kPipeline;
        p.replace(p.find("\"count\":400"), 11, "\"count\":60000");
        p.replace(p.find("\"pace\":{\"records_per_s\":800},"), 29, "");
        const std::string lateSink
            = R"({"id":"late","kind":"sink.file","params":{"path":"out/late.jsonl"}})";
        p.replace(p.find(lateSink), lateSink.size(), R"({"id":"late","kind":"sink.discard"})");
        writeFile(d.file("p.json"), p);
        writeFile(d.file("in.jsonl"), clicks());
        const std::string rec = d.file("rec");
        QProcess proc;
        proc.start("/bin/sh",
                   {"-c", QString("trap '' XFSZ; ulimit -f 3000; exec '%1' --record '%2' '%3'")
                              .arg(TIDELINE_RUN_EXE, QString::fromStdString(rec),
                                   QString::fromStdString(d.file("p.json")))});
        QVERIFY(proc.waitForFinished(60000));
        const QString err = QString::fromUtf8(proc.readAllStandardError());
        QVERIFY2(proc.exitCode() == 0, qPrintable(err));
        recording::Opened info;
        const auto entries = readAll(rec, &info);
        QVERIFY(info.manifest.complete);
        QVERIFY2(info.manifest.stoppedBy.find("File too large") != std::string::npos,
                 info.manifest.stoppedBy.c_str());
        QVERIFY(entries.size() > 100 && entries.size() < 50000);
        QCOMPARE(static_cast<std::int64_t>(std::filesystem::file_size(rec + "/records.tsv")),
                 info.manifest.bytes);
        Run replay = runner(
            {"--replay", QString::fromStdString(rec), QString::fromStdString(d.file("p.json"))});
        QVERIFY2(replay.code == 0, qPrintable(replay.err));
    }
};

QTEST_GUILESS_MAIN(TestRecordReplay)
#include "test_record_replay.moc"
