// The designer's Check against expected outputs and Save outputs as expected (issue 19,
// item 3), on the real MainWindow offscreen: every example passes; an edited expected file
// fails with the right finding, said as tideline-run --expect says it; Save outputs as
// expected writes the files --update-expected writes, asking before it changes one; an
// unbounded pipeline is refused with a clear message; an unsaved pipeline asks for a folder.

#include "check/check_controller.hpp"
#include "check/check_markers.hpp"
#include "check/check_panel.hpp"
#include "designer_test_support.hpp"
#include "pipeline_folder_copy.hpp"

#include <QDirIterator>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace tideline;
using namespace tideline::designer;
using namespace tideline::designer::test;
using widgets::SinkCheckStatus;

namespace {

const QString kPipelines = QStringLiteral(TIDELINE_PIPELINES_DIR);

/// An example's folder without what earlier runs wrote (out/, state/).
bool copyExample(const QString &name, const QString &to)
{
    return copyPipelineFolder(kPipelines + '/' + name, to);
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

bool writeAll(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

/// How the last runCheck() went, beyond its report.
struct RunInfo
{
    bool started = false;
    bool inBackground = false; ///< check() returned with the run going on and the panel saying so
    bool finished = false;
};
RunInfo g_run;

/// Runs Check (or Save) and waits for its report. The call itself returns at once: the run is
/// in the background, the UI's event loop goes on (the panel's progress text is updated by a
/// timer while it runs).
widgets::CheckReport runCheck(MainWindow &w, bool save = false)
{
    CheckController *c = w.checkController();
    QSignalSpy done(c, &CheckController::finished);
    g_run = {};
    g_run.started = save ? c->saveAsExpected() : c->check();
    if (!g_run.started) // refused before any run: the report (if any) is already shown
        return c->panel()->report();
    const QString what = save ? QStringLiteral("Running ") : QStringLiteral("Checking ");
    g_run.inBackground
        = c->running() && c->panel()->summaryText().startsWith(what) && done.isEmpty();
    g_run.finished = done.wait(60000) && !c->running();
    return c->panel()->report();
}

const widgets::SinkCheck *sinkOf(const widgets::CheckReport &r, const QString &id)
{
    for (const auto &s : r.sinks)
        if (s.sinkId == id)
            return &s;
    return nullptr;
}

QString runner()
{
    return QStringLiteral(TIDELINE_RUN);
}

} // namespace

class CheckExpectedTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyExamplePasses_data()
    {
        QTest::addColumn<QString>("example");
        QDirIterator it(kPipelines, QDir::Dirs | QDir::NoDotAndDotDot);
        QStringList names;
        while (it.hasNext()) {
            const QString dir = it.next();
            if (QFileInfo::exists(dir + QStringLiteral("/expected")))
                names << QFileInfo(dir).fileName();
        }
        names.sort();
        QVERIFY(names.size() >= 5);
        for (const auto &n : names)
            QTest::newRow(qPrintable(n)) << n;
    }

    void everyExamplePasses()
    {
        QFETCH(QString, example);
        MainWindow w;
        QVERIFY(w.openPath(kPipelines + '/' + example + QStringLiteral("/pipeline.json")));
        CheckController *c = w.checkController();
        QVERIFY(w.action(QStringLiteral("Check.Run")));
        QCOMPARE(w.action(QStringLiteral("Check.Run"))->shortcut(), QKeySequence(Qt::Key_F7));
        const QString dir = kPipelines + '/' + example + QStringLiteral("/expected");
        QCOMPARE(c->expectedDir(), QDir(dir).absolutePath());
        const widgets::CheckReport r = runCheck(w);
        QVERIFY(g_run.started && g_run.inBackground && g_run.finished);
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QVERIFY2(r.passed, qPrintable(c->panel()->findingsText()));
        QVERIFY(c->panel()->summaryText().startsWith(QLatin1String("Passed")));
        // One row per expected file, each ok with the file's rows, and its marker on the canvas.
        const QStringList files = QDir(dir).entryList(QDir::Files);
        QCOMPARE(r.sinks.size(), files.size());
        QCOMPARE(c->panel()->sinkList()->topLevelItemCount(), files.size());
        for (const auto &s : r.sinks) {
            QCOMPARE(s.status, SinkCheckStatus::Ok);
            QVERIFY(files.contains(QFileInfo(s.expectedFile).fileName()));
            QCOMPARE(s.actualRows, qint64(readAll(s.expectedFile).count('\n')));
            QCOMPARE(c->markers()->markerText(s.sinkId), QStringLiteral("ok"));
        }
        QVERIFY(c->panel()->folderText().contains(QDir(dir).absolutePath()));
    }

    void anEditedExpectedFileFailsWithTheFinding()
    {
        QTemporaryDir tmp;
        QVERIFY(copyExample(QStringLiteral("sessions-late-data"), tmp.path()));
        // Ann's first session in session_log: one event more than this run counts.
        const QString file = tmp.path() + QStringLiteral("/expected/session_log.jsonl");
        QList<QByteArray> lines = readAll(file).split('\n');
        QVERIFY(lines[2].contains("\"events\":3"));
        lines[2].replace("\"events\":3", "\"events\":4");
        QVERIFY(writeAll(file, lines.join('\n')));

        MainWindow w;
        w.setRunConfirmer([](const QString &) { return true; }); // a copy: not an example
        QVERIFY(w.openPath(tmp.path() + QStringLiteral("/pipeline.json")));
        w.resize(1024, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        CheckController *c = w.checkController();
        // F7, as a user would press it.
        QSignalSpy done(c, &CheckController::finished);
        QTest::keyClick(&w, Qt::Key_F7);
        QVERIFY(c->running());
        QVERIFY(done.wait(60000));
        const widgets::CheckReport r = c->panel()->report();
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QVERIFY(!r.passed);
        QVERIFY(
            c->panel()->summaryText().startsWith(QLatin1String("Failed: 1 of 3 sink(s) differ")));
        const widgets::SinkCheck *log = sinkOf(r, QStringLiteral("session_log"));
        QVERIFY(log);
        QCOMPARE(log->status, SinkCheckStatus::Fail);
        QCOMPARE(log->different, 1);
        QCOMPARE(log->missing + log->extra, 0);
        QCOMPARE(log->producer, QStringLiteral("window `sessions`"));
        QCOMPARE(sinkOf(r, QStringLiteral("dead_letter"))->status, SinkCheckStatus::Ok);
        QCOMPARE(sinkOf(r, QStringLiteral("session_table"))->status, SinkCheckStatus::Ok);
        // The failing sink is shown, its finding in stream terms: which window of which key.
        QCOMPARE(c->panel()->selectedSink(), QStringLiteral("session_log"));
        const QString findings = c->panel()->findingsText();
        QVERIFY2(findings.contains(QLatin1String("events: expected 4, got 3")),
                 qPrintable(findings));
        QVERIFY2(findings.contains(QLatin1String("window [2024-05-01T10:00:00.000Z")),
                 qPrintable(findings));
        QVERIFY(findings.contains(QLatin1String("user=\"ann\"")));
        QVERIFY(findings.contains(QLatin1String("rows from window `sessions`")));
        QCOMPARE(c->markers()->markerText(QStringLiteral("session_log")),
                 QStringLiteral("FAIL · 1"));
        QCOMPARE(c->markers()->markerText(QStringLiteral("dead_letter")), QStringLiteral("ok"));
        // Clicking the sink's row selects its node on the canvas.
        auto *list = c->panel()->sinkList();
        QTreeWidgetItem *row = list->findItems(QStringLiteral("session_log"), Qt::MatchExactly)[0];
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(row).center());
        QCOMPARE(w.scene()->selectedNodeIds(), QStringList{QStringLiteral("session_log")});

        // The same words as tideline-run --expect (one implementation).
        QProcess run;
        run.start(runner(), {QStringLiteral("--expect"), tmp.path() + QStringLiteral("/expected"),
                             tmp.path() + QStringLiteral("/pipeline.json")});
        QVERIFY(run.waitForFinished(60000));
        QCOMPARE(run.exitCode(), 1);
        const QString printed = QString::fromUtf8(run.readAllStandardOutput());
        QCOMPARE(log->findings.size(), 1);
        QVERIFY2(printed.contains(QStringLiteral("  ") + log->findings[0].text + '\n'),
                 qPrintable(printed));

        // An edit makes the verdict stale: the markers go, the panel says so.
        selectByMouse(w, QStringLiteral("sessions"));
        typeInto(lineField(w, QStringLiteral("gap_ms")), QStringLiteral("31000"));
        QCOMPARE(paramText(w, "sessions", "gap_ms"), QStringLiteral("31000"));
        QVERIFY(c->markers()->markerText(QStringLiteral("session_log")).isEmpty());
        QVERIFY(c->panel()->summaryText().contains(QLatin1String("out of date")));
    }

    void saveOutputsWritesWhatUpdateExpectedWrites()
    {
        QTemporaryDir tmp;
        const QString mine = tmp.path() + QStringLiteral("/designer");
        const QString theirs = tmp.path() + QStringLiteral("/runner");
        QVERIFY(copyExample(QStringLiteral("sessions-late-data"), mine));
        QVERIFY(copyExample(QStringLiteral("sessions-late-data"), theirs));
        // Expected files that are out of date: one edited, one gone.
        const QString log = mine + QStringLiteral("/expected/session_log.jsonl");
        const QByteArray edited = readAll(log).replace("\"ann\"", "\"anne\"");
        QVERIFY(writeAll(log, edited));
        QVERIFY(QFile::remove(mine + QStringLiteral("/expected/dead_letter.jsonl")));
        QVERIFY(QFile::remove(theirs + QStringLiteral("/expected/dead_letter.jsonl")));
        QVERIFY(writeAll(theirs + QStringLiteral("/expected/session_log.jsonl"), edited));

        MainWindow w;
        w.setRunConfirmer([](const QString &) { return true; });
        QVERIFY(w.openPath(mine + QStringLiteral("/pipeline.json")));
        CheckController *c = w.checkController();
        QStringList asked;
        bool answer = false;
        c->setOverwriteConfirmer([&](const QString &details) {
            asked << details;
            return answer;
        });
        // Declined: nothing is written, the panel shows how the run differs.
        widgets::CheckReport r = runCheck(w, true);
        QVERIFY(g_run.started && g_run.inBackground && g_run.finished);
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked[0].contains(QLatin1String("session_log.jsonl")), qPrintable(asked[0]));
        QVERIFY(!asked[0].contains(QLatin1String("dead_letter"))); // a new file: no question
        QCOMPARE(readAll(log), edited);
        QVERIFY(!QFileInfo::exists(mine + QStringLiteral("/expected/dead_letter.jsonl")));
        QVERIFY(!r.save);
        QCOMPARE(sinkOf(r, QStringLiteral("dead_letter"))->status, SinkCheckStatus::Missing);

        // Accepted: every file written, equal to what --update-expected writes.
        answer = true;
        r = runCheck(w, true);
        QCOMPARE(asked.size(), 2);
        QVERIFY(r.save);
        QVERIFY(r.passed);
        for (const auto &s : r.sinks)
            QCOMPARE(s.status, SinkCheckStatus::Written);
        QCOMPARE(c->markers()->markerText(QStringLiteral("session_log")), QStringLiteral("saved"));
        QVERIFY(c->panel()->summaryText().startsWith(QLatin1String("Saved 3 expected output")));
        QProcess run;
        run.start(runner(),
                  {QStringLiteral("--update-expected"), theirs + QStringLiteral("/pipeline.json")});
        QVERIFY(run.waitForFinished(60000));
        QCOMPARE(run.exitCode(), 0);
        const QStringList files = QDir(theirs + QStringLiteral("/expected")).entryList(QDir::Files);
        QCOMPARE(files, QDir(mine + QStringLiteral("/expected")).entryList(QDir::Files));
        QCOMPARE(files.size(), 3);
        for (const auto &f : files) {
            QVERIFY(!readAll(theirs + "/expected/" + f).isEmpty());
            QVERIFY2(readAll(mine + "/expected/" + f) == readAll(theirs + "/expected/" + f),
                     qPrintable(f));
        }
        // And the original expectations are what both wrote (the shipped files are right).
        for (const auto &f : files)
            QCOMPARE(readAll(mine + "/expected/" + f),
                     readAll(kPipelines + "/sessions-late-data/expected/" + f));
        // A check now passes; the run never wrote the pipeline's own outputs.
        r = runCheck(w);
        QVERIFY(r.passed);
        QVERIFY(!QFileInfo::exists(mine + QStringLiteral("/out")));
    }

    void anUnboundedPipelineIsRefused()
    {
        MainWindow w;
        QString error;
        QVERIFY(w.document().openText(R"({"format": "tideline/1", "name": "forever",
            "nodes": [{"id": "gen", "kind": "source.generator", "params": {"count": 0}},
                      {"id": "print", "kind": "sink.console", "params": {}}],
            "edges": [{"from": "gen.out", "to": "print.in"}]})",
                                      QString(), &error));
        QTemporaryDir tmp;
        CheckController *c = w.checkController();
        c->setFolderChooser([&](const QString &) { return tmp.path(); });
        const widgets::CheckReport r = runCheck(w);
        QVERIFY(!g_run.started && !c->running());
        QVERIFY(r.sinks.isEmpty());
        QVERIFY2(r.error.contains(QLatin1String("Check needs bounded inputs, but source `gen` "
                                                "(source.generator) would run forever: "
                                                "params.count is 0")),
                 qPrintable(r.error));
        QVERIFY(c->panel()->summaryText().startsWith(QLatin1String("Cannot check")));
        QVERIFY(c->panel()->findingsText().contains(QLatin1String("would run forever")));
    }

    void anUnsavedPipelineAsksForAFolder()
    {
        MainWindow w;
        QString error;
        QVERIFY(w.document().openText(R"({"format": "tideline/1", "name": "ten",
            "nodes": [{"id": "gen", "kind": "source.generator",
                       "params": {"count": 10, "seed": 7}},
                      {"id": "print", "kind": "sink.console", "params": {}}],
            "edges": [{"from": "gen.out", "to": "print.in"}]})",
                                      QString(), &error));
        QTemporaryDir tmp;
        CheckController *c = w.checkController();
        QVERIFY(c->expectedDir().isEmpty());
        int asked = 0;
        c->setFolderChooser([&](const QString &) {
            ++asked;
            return QString(); // cancelled: no check
        });
        QVERIFY(!c->check());
        QCOMPARE(asked, 1);
        QVERIFY(!c->panel()->hasReport());
        c->setFolderChooser([&](const QString &) {
            ++asked;
            return tmp.path();
        });
        widgets::CheckReport r = runCheck(w);
        QCOMPARE(asked, 2);
        QCOMPARE(r.sinks.size(), 1);
        QCOMPARE(r.sinks[0].status, SinkCheckStatus::Missing);
        QCOMPARE(r.sinks[0].actualRows, qint64(10));
        QCOMPARE(c->markers()->markerText(QStringLiteral("print")),
                 QStringLiteral("no expected file"));
        // Saved without a question (a new file), then the check passes, without asking again.
        c->setOverwriteConfirmer([](const QString &) {
            qWarning("asked before writing a new file");
            return false;
        });
        r = runCheck(w, true);
        QVERIFY(r.save && r.passed);
        QCOMPARE(readAll(tmp.path() + QStringLiteral("/print.jsonl")).count('\n'), 10);
        r = runCheck(w);
        QVERIFY(r.passed);
        QCOMPARE(asked, 2);
    }
};

QTEST_MAIN(CheckExpectedTest)
#include "test_check_expected.moc"
