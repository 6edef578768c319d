// Live views against the engine's own figures. Each example pipeline (pipelines/**/pipeline*.json,
// pipelines/*.json, and this folder's fixtures) is copied to a temporary folder, opened in the
// real MainWindow with the live views installed, run flat out to the end on the worker thread,
// and then every view is compared with the final engine snapshot.

#include "engine_bridge.hpp"
#include "live/canvas_overlay.hpp"
#include "live/decimate.hpp"
#include "live/late_ledger.hpp"
#include "live/live_charts.hpp"
#include "live/live_history.hpp"
#include "live/output_preview.hpp"
#include "live/time_series_chart.hpp"
#include "live/watermark_why_panel.hpp"
#include "live/window_timeline_model.hpp"
#include "live_views.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"
#include "pipeline_folder_copy.hpp"

#include <QComboBox>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace tideline::designer;
namespace L = tideline::live;
using State = live::EngineBridge::State;

namespace {

QStringList examplePipelines()
{
    QStringList out;
    const QString root = QStringLiteral(TIDELINE_SOURCE_DIR "/pipelines");
    for (const QFileInfo &fi : QDir(root).entryInfoList({QStringLiteral("*.json")}, QDir::Files))
        out << fi.absoluteFilePath();
    QDirIterator it(root, {QStringLiteral("pipeline*.json")}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString p = it.next();
        // A lab's solution reads its input from the lab's folder (../): tests/labs runs it.
        if (p.startsWith(root + QStringLiteral("/labs/"))
            && p.contains(QStringLiteral("/solution/")))
            continue;
        if (!out.contains(p) && QFileInfo(p).absolutePath() != QDir(root).absolutePath())
            out << p;
    }
    QDirIterator fx(QStringLiteral(TIDELINE_SOURCE_DIR "/tests/live/pipelines"),
                    {QStringLiteral("pipeline*.json")}, QDir::Files, QDirIterator::Subdirectories);
    while (fx.hasNext())
        out << fx.next();
    out.sort();
    return out;
}

/// A window on a copy of the pipeline's folder (runs write their outputs there).
struct Session
{
    QTemporaryDir dir;
    MainWindow window;
    live::LiveController *live = nullptr;
    QString path;

    bool open(const QString &pipeline, const QString &pace = QStringLiteral("flat"))
    {
        const QFileInfo fi(pipeline);
        const bool topLevel
            = fi.absolutePath()
              == QDir(QStringLiteral(TIDELINE_SOURCE_DIR "/pipelines")).absolutePath();
        if (topLevel) {
            QDir().mkpath(dir.path());
            QFile::copy(pipeline, dir.filePath(fi.fileName()));
        } else if (!copyPipelineFolder(fi.absolutePath(), dir.path()))
            return false;
        path = dir.filePath(fi.fileName());
        live = installLiveViews(window);
        window.resize(1400, 900);
        if (!window.openPath(path))
            return false;
        live->paceBox()->setCurrentIndex(live->paceBox()->findData(pace));
        return true;
    }
    const L::Snapshot &snap() const { return live->bridge()->snapshot(); }
};

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

bool hasKafka(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && f.readAll().contains("\"source.kafka\"");
}

} // namespace

class TestLive : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void decimationKeepsEndsAndSpikes();
    void sessionMergeIsRebuilt();
    void examples_data();
    void examples();
    void stepAdvancesExactlyOneRecord();
    void ledgerRingIsBounded();
    void pauseStopsTheEngine();
};

void TestLive::decimationKeepsEndsAndSpikes()
{
    QList<QPointF> pts;
    for (int i = 0; i < 100000; ++i)
        pts.push_back({i * 0.01, i == 51234 ? 1000.0 : (i % 7)});
    const auto d = L::decimate(pts, 400);
    QVERIFY(d.size() <= 2 * 400 + 2);
    QCOMPARE(d.front(), pts.front());
    QCOMPARE(d.back(), pts.back());
    QVERIFY(std::any_of(d.begin(), d.end(), [](const QPointF &p) { return p.y() == 1000.0; }));
    QCOMPARE(L::decimate(pts.mid(0, 100), 400), pts.mid(0, 100));
}

void TestLive::sessionMergeIsRebuilt()
{
    L::NodeInfo info;
    info.id = QStringLiteral("s");
    info.kind = QStringLiteral("window");
    info.params = QJsonObject{{"type", "session"}, {"gap_ms", 10}, {"key", QJsonArray{"u"}}};
    L::WindowTimelineModel m;
    m.configure(info);
    auto in = [&](qint64 t, qint64 seq) {
        L::TappedRecord r;
        r.node = QStringLiteral("s");
        r.input = true;
        r.port = QStringLiteral("in");
        r.eventTime = t;
        r.json = QStringLiteral(R"({"u":"a","t":%1})").arg(t);
        r.recordsRead = seq;
        m.addRecord(r);
    };
    in(0, 1);
    in(15, 2);
    QCOMPARE(m.windowCount(L::TimelineWindow::Open), 2);
    in(8, 3); // [8,18) touches [0,10) and [15,25): one session [0,25)
    QCOMPARE(m.windowCount(L::TimelineWindow::Open), 1);
    QCOMPARE(m.windows().first().parts, 3);
    QCOMPARE(m.windows().first().start, qint64(0));
    QCOMPARE(m.windows().first().end, qint64(25));
    L::TappedRecord out;
    out.node = QStringLiteral("s");
    out.port = QStringLiteral("out");
    out.json = QStringLiteral(R"({"u":"a","window_start":0,"window_end":25,"emit":"final"})");
    m.addRecord(out);
    QCOMPARE(m.windowCount(L::TimelineWindow::Open), 0);
    QCOMPARE(m.windowCount(L::TimelineWindow::Fired), 1);
    QCOMPARE(m.windows().first().records, 3);
}

void TestLive::examples_data()
{
    QTest::addColumn<QString>("path");
    const QStringList all = examplePipelines();
    QVERIFY2(!all.isEmpty(), "no example pipelines found");
    for (const QString &p : all)
        QTest::newRow(qPrintable(QDir(QStringLiteral(TIDELINE_SOURCE_DIR)).relativeFilePath(p)))
            << p;
}

void TestLive::examples()
{
    QFETCH(QString, path);
    if (hasKafka(path))
        QSKIP("needs a Kafka broker");
    Session s;
    // Checkpoints need processing time to pass: such pipelines keep their own pacing.
    const bool checkpoints = readJson(path)
                                 .value(QStringLiteral("settings"))
                                 .toObject()
                                 .contains(QStringLiteral("checkpoint"));
    QVERIFY2(s.open(path, checkpoints ? QStringLiteral("file") : QStringLiteral("flat")),
             qPrintable(path));
    if (s.window.document().errorCount() > 0)
        QSKIP("the example does not validate in this build");
    QString error;
    QVERIFY2(s.live->startRun(false, &error), qPrintable(error));
    auto *bridge = s.live->bridge();
    // Bounded examples end by themselves; unbounded ones are stopped after a while.
    if (!QTest::qWaitFor([&] { return bridge->state() != State::Running; }, 20000)) {
        bridge->stop();
    }
    QTRY_VERIFY_WITH_TIMEOUT(bridge->state() == State::Finished || bridge->state() == State::Stopped
                                 || bridge->state() == State::Failed,
                             120000);
    QVERIFY2(bridge->state() != State::Failed, qPrintable(bridge->failure()));
    const L::Snapshot &snap = s.snap();
    QVERIFY(snap.recordsRead > 0);

    // Ledger: one row per record the engine counted as late or as an error.
    qint64 late = 0, errors = 0;
    for (const auto &n : snap.nodes) {
        late += n.late;
        errors += n.errors;
    }
    auto *ledger = s.live->ledger()->model();
    QCOMPARE(ledger->countOf(L::TapRole::Late), late);
    QCOMPARE(ledger->countOf(L::TapRole::Errors), errors);
    if (late + errors <= ledger->capacity()) {
        QCOMPARE(static_cast<qint64>(ledger->rowCount()), late + errors);
        QCOMPARE(ledger->fellOut(), qint64(0));
    }

    // Watermark chart: the last point is the engine's final watermark.
    const auto &h = s.live->history();
    auto *chart = s.live->charts()->watermarkChart();
    chart->redraw();
    int watermarkNodes = 0;
    for (const auto &n : snap.nodes) {
        QVERIFY2(h.lastWatermark(n.node) == n.watermark, qPrintable(n.node));
        const auto &series = h.series(n.node, L::Figure::Watermark);
        if (series.isEmpty())
            continue;
        // Sources and sinks are left out of the chart when other nodes carry the watermark.
        if (!chart->seriesKeys().contains(L::LiveCharts::key(QStringLiteral("wm"), n.node)))
            continue;
        ++watermarkNodes;
        const auto drawn = chart->drawnPoints(L::LiveCharts::key(QStringLiteral("wm"), n.node));
        QVERIFY(!drawn.isEmpty());
        QCOMPARE(drawn.last(), series.last());
        QVERIFY(drawn.size() <= 2 * chart->plotWidthPixels() + 2);
        if (n.watermark && *n.watermark != L::kEnded)
            QCOMPARE(static_cast<qint64>(drawn.last().y()), *n.watermark);
    }

    // Window timeline: windows per state and records per class match the node's figures.
    for (const auto &n : snap.nodes) {
        if (n.kind != QLatin1String("window"))
            continue;
        const auto *m = s.live->timelineModel(n.node);
        QVERIFY(m);
        QCOMPARE(m->recordsIn(), n.recordsIn);
        QCOMPARE(static_cast<qint64>(m->dotCount(L::TimelineDot::TooLate)), n.late);
        QCOMPARE(m->finalEmits() + m->updateEmits(), n.recordsOut);
        QCOMPARE(static_cast<qint64>(m->windowCount(L::TimelineWindow::Open)),
                 snap.state == QLatin1String("Finished")
                     ? 0
                     : static_cast<qint64>(m->windowCount(L::TimelineWindow::Open)));
        // Every window that fired is still fired or updated (purged marks them, keeping which),
        // and the end of input purges none of them.
        if (m->forgottenWindows() == 0)
            QCOMPARE(static_cast<qint64>(m->windowCount(L::TimelineWindow::Fired)
                                         + m->windowCount(L::TimelineWindow::Updated)),
                     m->finalEmits());
        if (snap.state == QLatin1String("Finished") && m->lateness() > 0)
            QVERIFY(m->windowCount(L::TimelineWindow::Fired) > 0
                    || m->windowCount(L::TimelineWindow::Updated) > 0);
        if (snap.state == QLatin1String("Finished"))
            QCOMPARE(n.openWindows, qint64(0));
        qInfo("%s: %lld in, windows open %d fired %d updated %d purged %d; dots on time %d "
              "late-accepted %d too late %d",
              qPrintable(n.node), static_cast<long long>(n.recordsIn),
              m->windowCount(L::TimelineWindow::Open), m->windowCount(L::TimelineWindow::Fired),
              m->windowCount(L::TimelineWindow::Updated), m->windowCount(L::TimelineWindow::Purged),
              m->dotCount(L::TimelineDot::OnTime), m->dotCount(L::TimelineDot::LateAccepted),
              m->dotCount(L::TimelineDot::TooLate));
    }

    // Output preview: every record that reached a sink was seen there.
    for (const auto &n : snap.nodes)
        if (n.kind.startsWith(QLatin1String("sink.")))
            QCOMPARE(s.live->preview()->seen(L::OutputPreview::sinkKey(n.node)), n.recordsIn);

    // Canvas: each node's label shows its watermark as the engine reports it.
    for (const auto &n : snap.nodes) {
        const QString text = s.live->overlay()->nodeText(n.node);
        QVERIFY2(!text.isEmpty(), qPrintable(n.node));
        if (n.watermark && *n.watermark == L::kEnded)
            QVERIFY2(text.contains(QStringLiteral("+∞")), qPrintable(text));
    }

    // Checkpoint chart: one point per checkpoint in the engine's history.
    if (checkpoints) {
        auto *cp = s.live->charts()->checkpointChart();
        cp->redraw();
        const qsizetype drawn = cp->drawnPoints(QStringLiteral("ok")).size()
                                + cp->drawnPoints(QStringLiteral("failed")).size();
        QCOMPARE(drawn, static_cast<qsizetype>(snap.checkpointHistory.size()));
        QVERIFY2(!snap.checkpointHistory.isEmpty(),
                 "a paced run of a few seconds takes checkpoints");
        QCOMPARE(snap.lastCheckpoint->id, snap.checkpointHistory.back().id);
    }

    // "Why is the watermark here?": one row per input of the selected node.
    for (const auto &n : snap.nodes) {
        s.live->selectNode(n.node);
        QCOMPARE(s.live->whyPanel()->table()->rowCount(), static_cast<int>(n.inputs.size()));
    }
    qInfo("%s: %lld records, %d nodes with a watermark, %lld late, %lld errors",
          qPrintable(QFileInfo(path).dir().dirName()), static_cast<long long>(snap.recordsRead),
          watermarkNodes, static_cast<long long>(late), static_cast<long long>(errors));
}

void TestLive::stepAdvancesExactlyOneRecord()
{
    Session s;
    QVERIFY(s.open(QStringLiteral(TIDELINE_SOURCE_DIR
                                  "/tests/live/pipelines/tumbling-lateness/pipeline.json")));
    QVERIFY(s.window.document().errorCount() == 0);
    QString error;
    QVERIFY2(s.live->startRun(true, &error), qPrintable(error));
    auto *bridge = s.live->bridge();
    const auto *timeline = s.live->timelineModel(QStringLiteral("counts"));
    QVERIFY(timeline);
    for (int i = 0; i < 25; ++i) {
        bridge->poll();
        const qint64 before = s.snap().recordsRead;
        const qint64 dotsBefore = timeline->recordsIn();
        bridge->step();
        QTRY_VERIFY_WITH_TIMEOUT((bridge->poll(), s.snap().recordsRead != before), 5000);
        // Give the worker a moment: a second record would show up now if Step overran.
        QTest::qWait(30);
        bridge->poll();
        QCOMPARE(s.snap().recordsRead, before + 1);
        QCOMPARE(bridge->state(), State::Paused);
        // The one record reached the window (the generator's records all have event time).
        QCOMPARE(timeline->recordsIn(), dotsBefore + 1);
        QCOMPARE(s.snap().node(QStringLiteral("counts"))->recordsIn, dotsBefore + 1);
    }
    bridge->stop();
    QTRY_COMPARE_WITH_TIMEOUT(bridge->state(), State::Stopped, 10000);
}

void TestLive::ledgerRingIsBounded()
{
    Session s;
    QVERIFY(s.open(QStringLiteral(TIDELINE_SOURCE_DIR
                                  "/tests/live/pipelines/tumbling-lateness/pipeline.json")));
    s.live->ledger()->model()->setCapacity(5);
    QString error;
    QVERIFY2(s.live->startRun(false, &error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(s.live->bridge()->state(), State::Finished, 60000);
    const qint64 late = s.snap().node(QStringLiteral("counts"))->late;
    QVERIFY2(late > 5, "the fixture should produce more late records than the ring holds");
    auto *ledger = s.live->ledger()->model();
    QCOMPARE(ledger->rowCount(), 5);
    QCOMPARE(ledger->total(), late);
    QCOMPARE(ledger->fellOut(), late - 5);
    // Filtering: every row is from `counts` and says why.
    s.live->ledger()->filter()->setText(QStringLiteral("window_closed"));
    QCOMPARE(s.live->ledger()->filter()->rowCount(), 5);
    s.live->ledger()->filter()->setText(QStringLiteral("no such reason"));
    QCOMPARE(s.live->ledger()->filter()->rowCount(), 0);
}

void TestLive::pauseStopsTheEngine()
{
    Session s;
    QVERIFY(s.open(
        QStringLiteral(TIDELINE_SOURCE_DIR "/tests/live/pipelines/tumbling-lateness/pipeline.json"),
        QStringLiteral("rps:1000")));
    QString error;
    QVERIFY2(s.live->startRun(false, &error), qPrintable(error));
    auto *bridge = s.live->bridge();
    QTRY_VERIFY_WITH_TIMEOUT((bridge->poll(), s.snap().recordsRead > 100), 10000);
    bridge->pause();
    QTest::qWait(150); // the current chunk (~20 ms) ends
    bridge->poll();
    const qint64 paused = s.snap().recordsRead;
    QTest::qWait(300);
    bridge->poll();
    QCOMPARE(s.snap().recordsRead, paused);
    // Mid-run the timeline's open windows exist and the charts have points.
    QVERIFY(s.live->timelineModel(QStringLiteral("counts"))->windowCount(L::TimelineWindow::Open)
            > 0);
    QVERIFY(!s.live->history().series(QStringLiteral("counts"), L::Figure::Watermark).isEmpty());
    bridge->run();
    QTRY_VERIFY_WITH_TIMEOUT((bridge->poll(), s.snap().recordsRead > paused), 5000);
    bridge->stop();
    QTRY_COMPARE_WITH_TIMEOUT(bridge->state(), State::Stopped, 10000);
}

QTEST_MAIN(TestLive)
#include "test_live.moc"
