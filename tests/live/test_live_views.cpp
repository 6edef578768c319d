// The live views as a student and a debugging engineer use them (issue 17): views that show
// the document on screen or nothing (after New, Open, delete and paste), Pause on a paced run,
// one snapshot for every view, the wording of the figures, the timeline's tooltips and the
// output preview. Each runs the real MainWindow with the live views installed, offscreen.

#include "engine_bridge.hpp"
#include "graph/graph_scene.hpp"
#include "graph/graph_view.hpp"
#include "graph/node_item.hpp"
#include "live/canvas_overlay.hpp"
#include "live/late_ledger.hpp"
#include "live/live_charts.hpp"
#include "live/live_history.hpp"
#include "live/output_preview.hpp"
#include "live/time_series_chart.hpp"
#include "live/watermark_why_panel.hpp"
#include "live/window_timeline_model.hpp"
#include "live/window_timeline_view.hpp"
#include "live_views.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"
#include "pipeline_folder_copy.hpp"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QGraphicsItem>
#include <QLabel>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace tideline::designer;
namespace L = tideline::live;
using State = live::EngineBridge::State;

namespace {

const QString kSessions = QStringLiteral(TIDELINE_SOURCE_DIR "/pipelines/sessions-late-data");
const QString kTumbling
    = QStringLiteral(TIDELINE_SOURCE_DIR "/tests/live/pipelines/tumbling-lateness");

/// A window on a copy of a pipeline folder (runs write their outputs there).
struct Session
{
    QTemporaryDir dir;
    MainWindow window;
    live::LiveController *live = nullptr;
    QString path;

    explicit Session(const QString &folder, const QString &pace = QStringLiteral("flat"))
    {
        live = installLiveViews(window);
        window.resize(1400, 900);
        if (!copyPipelineFolder(folder, dir.path()))
            return;
        path = dir.filePath(QStringLiteral("pipeline.json"));
        if (!window.openPath(path))
            path.clear();
        setPace(pace);
    }
    void setPace(const QString &pace)
    {
        live->paceBox()->setCurrentIndex(live->paceBox()->findData(pace));
    }
    live::EngineBridge *bridge() const { return live->bridge(); }
    bool runToEnd()
    {
        QString error;
        if (!live->startRun(false, &error)) {
            qWarning("%s", qPrintable(error));
            return false;
        }
        return QTest::qWaitFor([this] { return bridge()->state() == State::Finished; }, 60000);
    }
    /// Live labels on the canvas (the overlay's items sit above every canvas item).
    int labelCount() const
    {
        int n = 0;
        for (QGraphicsItem *item : window.scene()->items())
            if (item->isVisible() && item->zValue() >= 50 && !item->parentItem())
                ++n;
        return n;
    }
};

} // namespace

class TestLiveViews : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void viewsAreEmptiedByNewAndOpen();
    void deletedAndPastedNodesShowNoFigures();
    void pausePausesAPacedRun();
    void everyViewShowsTheSameSnapshot();
};

void TestLiveViews::viewsAreEmptiedByNewAndOpen()
{
    Session s(kSessions);
    QVERIFY(!s.path.isEmpty());
    QVERIFY(s.runToEnd());
    QTRY_VERIFY(s.labelCount() > 0);
    s.live->selectNode(QStringLiteral("sessions"));
    QVERIFY(s.live->ledger()->model()->rowCount() > 0);
    QVERIFY(s.live->timeline()->model());
    QVERIFY(!s.live->charts()->watermarkChart()->seriesKeys().isEmpty());

    auto expectEmpty = [&](const char *when) {
        QVERIFY2(s.labelCount() == 0, when);
        QVERIFY2(s.live->ledger()->model()->rowCount() == 0, when);
        QVERIFY2(!s.live->timeline()->model(), when);
        QVERIFY2(s.live->whyPanel()->table()->rowCount() == 0, when);
        QVERIFY2(s.live->charts()->watermarkChart()->seriesKeys().isEmpty(), when);
        QVERIFY2(s.live->preview()->latest(L::OutputPreview::sinkKey("session_log")).isEmpty(),
                 when);
        QVERIFY2(s.bridge()->state() == State::Idle, when);
        // Fit to View fits the nodes on screen and nothing else.
        QVERIFY2(s.window.view()->contentsRect() == s.window.scene()->nodesBoundingRect(), when);
    };
    s.window.action(QStringLiteral("File.New"))->trigger();
    expectEmpty("after File > New");

    QVERIFY(s.window.openPath(s.path));
    QVERIFY(s.runToEnd());
    QTRY_VERIFY(s.labelCount() > 0);
    QTemporaryDir other;
    QVERIFY(copyPipelineFolder(kTumbling, other.path()));
    QVERIFY(s.window.openPath(other.filePath(QStringLiteral("pipeline.json"))));
    expectEmpty("after File > Open");
    s.live->selectNode(QStringLiteral("counts"));
    QCOMPARE(s.live->whyPanel()->table()->rowCount(), 0);
}

void TestLiveViews::deletedAndPastedNodesShowNoFigures()
{
    Session s(kSessions);
    QVERIFY(s.runToEnd());
    auto *overlay = s.live->overlay();
    QTRY_VERIFY(!overlay->nodeText(QStringLiteral("sessions")).isEmpty());
    s.live->selectNode(QStringLiteral("sessions"));
    QVERIFY(s.live->timeline()->model());

    // Deleting `sessions` takes its figures, its edges' figures and those of the nodes whose
    // edges went with it (their figures were of another graph).
    s.window.scene()->selectNodes({QStringLiteral("sessions")});
    s.window.action(QStringLiteral("Edit.Delete"))->trigger();
    QVERIFY(overlay->nodeText(QStringLiteral("sessions")).isEmpty());
    QVERIFY(overlay->nodeText(QStringLiteral("event_time")).isEmpty());
    QVERIFY(overlay->nodeText(QStringLiteral("session_log")).isEmpty());
    QVERIFY(!overlay->nodeText(QStringLiteral("activity")).isEmpty()); // untouched
    QVERIFY(!s.live->timeline()->model());
    s.live->selectNode(QStringLiteral("event_time"));
    QCOMPARE(s.live->whyPanel()->table()->rowCount(), 0);

    // Undo brings the node that ran back, and its figures with it.
    s.window.document().undoStack()->undo();
    QVERIFY(!overlay->nodeText(QStringLiteral("sessions")).isEmpty());
    QVERIFY(!overlay->nodeText(QStringLiteral("event_time")).isEmpty());

    // A pasted copy is a new node, even with the id of one that ran.
    s.window.scene()->selectNodes({QStringLiteral("session_log")});
    s.window.action(QStringLiteral("Edit.Copy"))->trigger();
    s.window.action(QStringLiteral("Edit.Delete"))->trigger();
    s.window.action(QStringLiteral("Edit.Paste"))->trigger();
    QVERIFY(s.window.document().spec().node("session_log"));
    QVERIFY(overlay->nodeText(QStringLiteral("session_log")).isEmpty());
    // ... and no label from elsewhere covers it.
    const QRectF pasted
        = s.window.scene()->nodeItem(QStringLiteral("session_log"))->sceneBoundingRect();
    for (QGraphicsItem *item : s.window.scene()->items(pasted))
        QVERIFY2(item->zValue() < 50, "a live label lies over the pasted node");

    // Moving a node after the run ended takes its labels along.
    auto *item = s.window.scene()->nodeItem(QStringLiteral("activity"));
    const QString before = overlay->nodeText(QStringLiteral("activity"));
    QVERIFY(!before.isEmpty());
    s.window.scene()->selectNodes({QStringLiteral("activity")});
    const QPointF from = item->mapToScene(QPointF(60, 14));
    QTest::mousePress(s.window.view()->viewport(), Qt::LeftButton, {},
                      s.window.view()->mapFromScene(from));
    QTest::mouseMove(s.window.view()->viewport(),
                     s.window.view()->mapFromScene(from + QPointF(0, 400)));
    QTest::mouseRelease(s.window.view()->viewport(), Qt::LeftButton, {},
                        s.window.view()->mapFromScene(from + QPointF(0, 400)));
    QVERIFY(item->pos().y() > 200);
    bool near = false;
    for (QGraphicsItem *l :
         s.window.scene()->items(item->sceneBoundingRect().adjusted(-300, -300, 300, 300)))
        near = near || l->zValue() >= 60;
    QVERIFY2(near, "the node's labels stayed behind");
}

void TestLiveViews::pausePausesAPacedRun()
{
    Session s(kTumbling, QStringLiteral("rps:20"));
    QString error;
    QVERIFY2(s.live->startRun(false, &error), qPrintable(error));
    auto *bridge = s.bridge();
    QTRY_VERIFY_WITH_TIMEOUT((bridge->poll(), bridge->snapshot().recordsRead >= 3), 10000);
    s.live->findChild<QAction *>(QStringLiteral("Live.Pause"))->trigger();
    QCOMPARE(bridge->state(), State::Paused);
    QTest::qWait(150);
    bridge->poll();
    const qint64 paused = bridge->snapshot().recordsRead;
    QTest::qWait(800); // 16 records at 20 records/s
    bridge->poll();
    QCOMPARE(bridge->snapshot().recordsRead, paused);
    // While paused there is no rate to show.
    s.live->onFrame();
    QVERIFY2(!s.live->statusText().contains(QStringLiteral("events/s")),
             qPrintable(s.live->statusText()));
    // Step processes exactly the one record the source was waiting to send.
    bridge->step();
    QTRY_VERIFY_WITH_TIMEOUT((bridge->poll(), bridge->snapshot().recordsRead == paused + 1), 3000);
    QTest::qWait(300);
    bridge->poll();
    QCOMPARE(bridge->snapshot().recordsRead, paused + 1);
    // Resuming does not burst the records "owed" for the paused time.
    bridge->run();
    QTest::qWait(500);
    bridge->poll();
    const qint64 after = bridge->snapshot().recordsRead - (paused + 1);
    QVERIFY2(after >= 3 && after <= 16, qPrintable(QString::number(after)));
    bridge->stop();
    QTRY_COMPARE_WITH_TIMEOUT(bridge->state(), State::Stopped, 10000);
}

void TestLiveViews::everyViewShowsTheSameSnapshot()
{
    // Paced, so that many frames see the run in progress.
    Session s(kTumbling, QStringLiteral("rps:1000"));
    int frames = 0, mismatches = 0;
    QString first;
    connect(s.bridge(), &live::EngineBridge::frame, this, [&] {
        // (The controller's own frame handler ran first: it was connected first.)
        const L::Snapshot &shown = s.live->shownSnapshot();
        const L::NodeFigures *n = shown.node(QStringLiteral("counts"));
        const L::WindowTimelineModel *m = s.live->timelineModel(QStringLiteral("counts"));
        if (!n || !m)
            return;
        ++frames;
        const bool same = m->recordsIn() == n->recordsIn
                          && m->dotCount(L::TimelineDot::TooLate) == n->late
                          && m->finalEmits() + m->updateEmits() == n->recordsOut
                          && s.live->ledger()->model()->total() == n->late;
        if (!same) {
            ++mismatches;
            if (first.isEmpty())
                first = QStringLiteral("timeline %1 in / %2 late, engine %3 in / %4 late")
                            .arg(m->recordsIn())
                            .arg(m->dotCount(L::TimelineDot::TooLate))
                            .arg(n->recordsIn)
                            .arg(n->late);
        }
    });
    QString error;
    QVERIFY2(s.live->startRun(false, &error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(s.bridge()->state(), State::Finished, 60000);
    QVERIFY(frames > 0);
    QVERIFY2(mismatches == 0, qPrintable(first));
}

QTEST_MAIN(TestLiveViews)
#include "test_live_views.moc"
