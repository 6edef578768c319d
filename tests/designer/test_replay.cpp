// Run › Record… and Replay Recording… (issue 19, items 1-2, in the designer): the real window,
// offscreen. An example is recorded from its files, replayed, and the replay's sink files must
// equal the recorded run's byte for byte; a paused replay steps one record at a time, at any
// speed; the record limits stop the run where tideline-run's would; a recording made for other
// sources is refused with the engine's words and no run.

#include "engine_bridge.hpp"
#include "live_views.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"
#include "pipeline_folder_copy.hpp"
#include "replay/replay_controller.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace tideline::designer;
using State = live::EngineBridge::State;

namespace {

struct Session
{
    QTemporaryDir dir;
    MainWindow window;
    live::LiveController *live = nullptr;
    ReplayController *replay = nullptr;
    QString path;
    QStringList messages;

    bool open(const QString &example)
    {
        if (!copyPipelineFolder(QStringLiteral(TIDELINE_SOURCE_DIR "/pipelines/") + example,
                                dir.path()))
            return false;
        path = dir.filePath(QStringLiteral("pipeline.json"));
        live = installLiveViews(window);
        replay = live->replayController();
        window.setRunConfirmer([](const QString &) { return true; });
        replay->setMessageSink(
            [this](const QString &title, const QString &text) { messages << title + ": " + text; });
        window.resize(1400, 900);
        live->paceBox()->setCurrentIndex(live->paceBox()->findData(QStringLiteral("flat")));
        return window.openPath(path);
    }
    live::EngineBridge *bridge() const { return live->bridge(); }
    bool waitEnded(int ms = 60000)
    {
        return QTest::qWaitFor(
            [this] {
                const State s = bridge()->state();
                return s == State::Finished || s == State::Stopped || s == State::Failed;
            },
            ms);
    }
    /// Every sink file of the pipeline: path -> contents.
    QMap<QString, QByteArray> outputs() const
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return {};
        QMap<QString, QByteArray> out;
        for (const auto &v : QJsonDocument::fromJson(f.readAll())["nodes"].toArray()) {
            const QJsonObject n = v.toObject();
            if (!n["kind"].toString().startsWith(QLatin1String("sink.")))
                continue;
            const QString p = n["params"].toObject()["path"].toString();
            QFile o(QDir(dir.path()).filePath(p));
            out[p] = o.open(QIODevice::ReadOnly) ? o.readAll() : QByteArray("(missing)");
        }
        return out;
    }
};

} // namespace

class TestReplay : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void runMenuHasRecordReplayAndSpeed();
    void recordDialogGivesTheLimits();
    void replayGivesTheRecordedRunsOutputs();
    void stepAdvancesAPausedReplayByOneRecord_data();
    void stepAdvancesAPausedReplayByOneRecord();
    void recordLimitStopsTheRun();
    void mismatchingRecordingShowsTheEnginesError();
    void damagedRecordingNamesFileAndLine();
};

void TestReplay::runMenuHasRecordReplayAndSpeed()
{
    Session s;
    QVERIFY(s.open(QStringLiteral("clicks-by-country")));
    QMenu *run = s.replay->runMenu();
    QVERIFY(run);
    QVERIFY(s.window.menuBar()->actions().contains(run->menuAction()));
    QVERIFY(run->actions().contains(s.window.action(QStringLiteral("Run.Record"))));
    QVERIFY(run->actions().contains(s.window.action(QStringLiteral("Run.Replay"))));
    QVERIFY(run->actions().contains(s.window.action(QStringLiteral("Live.Step"))));
    QCOMPARE(s.replay->speedBox()->count(), 5);
    QCOMPARE(s.replay->speed(), 0.0); // flat out
    s.replay->setSpeed(10);
    QCOMPARE(s.replay->speedBox()->currentText(), QStringLiteral("Replay ×10"));
}

void TestReplay::recordDialogGivesTheLimits()
{
    RecordSettings initial;
    initial.dir = QStringLiteral("/tmp/recordings/clicks");
    initial.maxRecords = 500;
    RecordDialog d(initial);
    QCOMPARE(d.folderEdit()->text(), initial.dir);
    QCOMPARE(d.maxRecordsBox()->value(), 500);
    QCOMPARE(d.maxSecondsBox()->text(), QStringLiteral("no limit")); // 0, as for the flags
    d.maxMegabytesBox()->setValue(3);
    d.maxSecondsBox()->setValue(60);
    const RecordSettings s = d.settings();
    QCOMPARE(s.maxRecords, 500);
    QCOMPARE(s.maxBytes, 3 * 1024 * 1024);
    QCOMPARE(s.maxDurationMs, 60000);
    // The docs' picture of the dialog: TIDELINE_SHOT_DIR=docs/screenshots.
    if (const QByteArray dir = qgetenv("TIDELINE_SHOT_DIR"); !dir.isEmpty()) {
        d.show();
        QTest::qWait(100);
        QVERIFY(d.grab().save(QString::fromLocal8Bit(dir) + "/designer-replay-record-dialog.png"));
    }
    d.folderEdit()->clear();
    QVERIFY(!d.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
}

void TestReplay::replayGivesTheRecordedRunsOutputs()
{
    Session s;
    QVERIFY(s.open(QStringLiteral("clicks-by-country")));
    const QString rec = s.dir.filePath(QStringLiteral("recordings/first"));
    RecordSettings settings;
    settings.dir = rec;
    QVERIFY2(s.replay->startRecording(settings), qPrintable(s.replay->lastMessage()));
    QVERIFY(s.replay->statusText().contains(QStringLiteral("Recording")));
    QVERIFY(s.waitEnded());
    QCOMPARE(s.bridge()->state(), State::Finished);
    const auto fileRun = s.outputs();
    QCOMPARE(fileRun.size(), 3);
    QVERIFY(!fileRun.value(QStringLiteral("out/clicks-by-country.jsonl")).isEmpty());
    // The status bar counts what was captured: every line of clicks.jsonl.
    QTRY_VERIFY(s.replay->statusText().startsWith(QStringLiteral("Recorded 1,200 records")));
    QVERIFY(QFile::exists(rec + QStringLiteral("/manifest.json")));
    QVERIFY(QFile::exists(rec + QStringLiteral("/records.tsv")));
    QVERIFY(s.window.statusBar()->currentMessage().contains(QStringLiteral("end of input")));

    // Outputs removed: the replay writes them again, from the recording alone.
    QVERIFY(QDir(s.dir.filePath(QStringLiteral("out"))).removeRecursively());
    QVERIFY(QFile::rename(s.dir.filePath(QStringLiteral("clicks.jsonl")),
                          s.dir.filePath(QStringLiteral("clicks.moved"))));
    QVERIFY2(s.replay->startReplay(rec), qPrintable(s.replay->lastMessage()));
    QVERIFY(s.waitEnded());
    QCOMPARE(s.bridge()->state(), State::Finished);
    QCOMPARE(s.bridge()->recordingCount(), 1200);
    QTRY_VERIFY(s.replay->statusText().startsWith(QStringLiteral("Replayed")));
    const auto replayed = s.outputs();
    for (auto it = fileRun.begin(); it != fileRun.end(); ++it)
        QVERIFY2(replayed.value(it.key()) == it.value(), qPrintable(it.key()));
    // The live views saw the replay like a run: the sink's records arrived in the preview.
    QCOMPARE(s.bridge()->snapshot().recordsRead, 1200);
    QVERIFY(s.messages.isEmpty());
}

void TestReplay::stepAdvancesAPausedReplayByOneRecord_data()
{
    QTest::addColumn<double>("speed");
    QTest::newRow("flat out") << 0.0;
    // As recorded, a step must not wait for the next record on the wall clock.
    QTest::newRow("as recorded") << 1.0;
}

void TestReplay::stepAdvancesAPausedReplayByOneRecord()
{
    QFETCH(double, speed);
    Session s;
    QVERIFY(s.open(QStringLiteral("clicks-by-country")));
    const QString rec = s.dir.filePath(QStringLiteral("rec"));
    RecordSettings settings;
    settings.dir = rec;
    // A paced recording: the records arrive 200 ms apart, so "as recorded" has gaps to skip.
    s.live->paceBox()->setCurrentIndex(s.live->paceBox()->findData(QStringLiteral("rps:5")));
    settings.maxRecords = 12;
    QVERIFY(s.replay->startRecording(settings));
    QVERIFY(s.waitEnded());
    QCOMPARE(s.bridge()->recordingCount(), 12);

    s.replay->setSpeed(speed);
    QVERIFY2(s.replay->startReplay(rec, true), qPrintable(s.replay->lastMessage()));
    QCOMPARE(s.bridge()->state(), State::Paused);
    auto *bridge = s.bridge();
    QElapsedTimer waited; // from Step to its record, summed
    qint64 waitedMs = 0;
    for (int i = 0; i < 8; ++i) {
        bridge->poll();
        const qint64 before = bridge->snapshot().recordsRead;
        QCOMPARE(bridge->recordingCount(), before);
        waited.start();
        bridge->step();
        QTRY_VERIFY_WITH_TIMEOUT((bridge->poll(), bridge->snapshot().recordsRead != before), 3000);
        waitedMs += waited.elapsed();
        QTest::qWait(30); // a second record would show up now if Step overran
        bridge->poll();
        QCOMPARE(bridge->snapshot().recordsRead, before + 1);
        QCOMPARE(bridge->recordingCount(), before + 1);
        QCOMPARE(bridge->state(), State::Paused);
        // The live views follow: the status bar counts the replayed record.
        s.live->onFrame();
        QVERIFY2(s.replay->statusText().contains(QStringLiteral("%1 of 12").arg(before + 1)),
                 qPrintable(s.replay->statusText()));
    }
    // Step does not wait for the record's recorded time (7 gaps of 200 ms at ×1): the
    // virtual clock skips to it.
    QVERIFY2(waitedMs < 1000, qPrintable(QString::number(waitedMs)));
    // Run on: the rest replays and the run ends where the recording does.
    bridge->run();
    QVERIFY(s.waitEnded(30000));
    QCOMPARE(bridge->recordingCount(), 12);
}

void TestReplay::recordLimitStopsTheRun()
{
    Session s;
    QVERIFY(s.open(QStringLiteral("clicks-by-country")));
    RecordSettings settings;
    settings.dir = s.dir.filePath(QStringLiteral("limited"));
    settings.maxRecords = 100;
    // Through Run › Record…, as a user: the dialog suggests a folder beside the pipeline.
    QString suggested;
    s.replay->setRecordChooser([&](const RecordSettings &initial) {
        suggested = initial.dir;
        return std::optional<RecordSettings>(settings);
    });
    s.window.action(QStringLiteral("Run.Record"))->trigger();
    QVERIFY2(suggested.startsWith(s.dir.filePath(QStringLiteral("recordings/clicks-by-country-"))),
             qPrintable(suggested));
    QVERIFY(s.waitEnded());
    QCOMPARE(s.bridge()->state(), State::Stopped);
    QCOMPARE(s.bridge()->recordingCount(), 100);
    QFile m(settings.dir + QStringLiteral("/manifest.json"));
    QVERIFY(m.open(QIODevice::ReadOnly));
    const QJsonObject manifest = QJsonDocument::fromJson(m.readAll()).object();
    QCOMPARE(manifest["records"].toInt(), 100);
    QVERIFY(manifest["complete"].toBool());
    // A folder that already holds a recording is refused, not overwritten.
    QVERIFY(!s.replay->startRecording(settings));
    QVERIFY2(s.replay->lastMessage().contains(QStringLiteral("already holds a recording")),
             qPrintable(s.replay->lastMessage()));
}

void TestReplay::mismatchingRecordingShowsTheEnginesError()
{
    Session a;
    QVERIFY(a.open(QStringLiteral("clicks-by-country")));
    const QString rec = a.dir.filePath(QStringLiteral("rec"));
    RecordSettings settings;
    settings.dir = rec;
    settings.maxRecords = 50;
    QVERIFY(a.replay->startRecording(settings));
    QVERIFY(a.waitEnded());

    Session b; // another pipeline, other sources
    QVERIFY(b.open(QStringLiteral("sessions-late-data")));
    // Through Run › Replay Recording…, the folder picked in the chooser.
    b.replay->setFolderChooser([&](const QString &) { return rec; });
    QVERIFY(!b.replay->replay());
    QCOMPARE(b.messages.size(), 1);
    const QString text = b.replay->lastMessage();
    QVERIFY2(text.contains(QStringLiteral("was made for other sources")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("clicks-by-country")), qPrintable(text));
    QVERIFY2(!text.startsWith(QStringLiteral("--replay")), qPrintable(text));
    QVERIFY(b.window.statusBar()->currentMessage().contains(QStringLiteral("other sources")));
    QVERIFY(!b.bridge()->active()); // no run started
    // The designer goes on: a normal run of b still works.
    QVERIFY(b.live->startRun(false));
    QVERIFY(b.waitEnded());
    QCOMPARE(b.bridge()->state(), State::Finished);
}

void TestReplay::damagedRecordingNamesFileAndLine()
{
    Session s;
    QVERIFY(s.open(QStringLiteral("clicks-by-country")));
    const QString rec = s.dir.filePath(QStringLiteral("rec"));
    RecordSettings settings;
    settings.dir = rec;
    settings.maxRecords = 20;
    QVERIFY(s.replay->startRecording(settings));
    QVERIFY(s.waitEnded());
    // Flip a byte inside a recorded line's value (after the fourth line of records.tsv, in a
    // block's payload): only the block's CRC can tell.
    QFile f(rec + QStringLiteral("/records.tsv"));
    QVERIFY(f.open(QIODevice::ReadWrite));
    QByteArray bytes = f.readAll();
    qsizetype at = 0;
    for (int line = 0; line < 4; ++line)
        at = bytes.indexOf('\n', at) + 1;
    const qsizetype brace = bytes.indexOf('{', at);
    bytes[brace + 2] = bytes[brace + 2] == 'x' ? 'y' : 'x';
    f.seek(0);
    f.write(bytes);
    f.close();
    // Replayed, the run fails at that block with the file, line and byte named, never a crash.
    const auto named = [](const QString &m) {
        return m.contains(QStringLiteral("records.tsv line ")) && m.contains(QStringLiteral("CRC"))
               && m.contains(QStringLiteral(" at byte "));
    };
    if (s.replay->startReplay(rec)) {
        QVERIFY(s.waitEnded());
        QCOMPARE(s.bridge()->state(), State::Failed);
        QVERIFY2(named(s.bridge()->failure()), qPrintable(s.bridge()->failure()));
    } else
        QVERIFY2(named(s.replay->lastMessage()), qPrintable(s.replay->lastMessage()));
}

QTEST_MAIN(TestReplay)
#include "test_replay.moc"
