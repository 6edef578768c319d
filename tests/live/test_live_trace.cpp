// Where did this record go? from the live views (issue 16): a click on a dot of the window
// timeline opens the Trace dock on that record's path and lights it on the canvas; a click on
// a bar lists the records of that pane; a live unbounded run is traced while it runs, its
// oldest records evicted first, and the view says since when it traces and how many went.
// With TIDELINE_TRACE_SHOTS=DIR (under xvfb-run) the traced path after a dot click is also
// saved as DIR/trace-timeline-dot-1024x768.png and -1920x1080.png (docs/screenshots).

#include "engine_bridge.hpp"
#include "graph/graph_view.hpp"
#include "live/trace_highlight.hpp"
#include "live/trace_view.hpp"
#include "live/window_timeline_model.hpp"
#include "live/window_timeline_view.hpp"
#include "live_views.hpp"
#include "main_window.hpp"
#include "pipeline_folder_copy.hpp"
#include "trace/trace_controller.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tideline::designer;
namespace L = tideline::live;
using State = live::EngineBridge::State;

namespace {

const QString kSessions = QStringLiteral(TIDELINE_SOURCE_DIR "/pipelines/sessions-late-data");
const QString kSliding = QStringLiteral(TIDELINE_SOURCE_DIR "/pipelines/sliding-average");

struct Session
{
    QTemporaryDir dir;
    MainWindow window;
    live::LiveController *live = nullptr;
    QString path;

    explicit Session(const QString &folder)
    {
        live = installLiveViews(window);
        window.setRunConfirmer([](const QString &) { return true; });
        window.resize(1400, 900);
        if (!copyPipelineFolder(folder, dir.path()))
            return;
        path = dir.filePath(QStringLiteral("pipeline.json"));
        if (!window.openPath(path))
            path.clear();
        live->paceBox()->setCurrentIndex(live->paceBox()->findData(QStringLiteral("flat")));
    }
    live::EngineBridge *bridge() const { return live->bridge(); }
    TraceController *tracer() const { return window.traceController(); }
};

QStringList steps(const Session &s)
{
    return s.tracer()->view()->shownSteps();
}

bool anyContains(const QStringList &lines, const QString &part)
{
    for (const auto &l : lines)
        if (l.contains(part))
            return true;
    return false;
}

/// The timeline of `node` painted with every dot in view; false when it has none.
bool showTimeline(Session &s, const QString &node)
{
    s.live->selectNode(node);
    s.live->onFrame();
    if (auto *d = s.window.findChild<QDockWidget *>(QStringLiteral("windowTimelineDock")))
        d->raise();
    auto *canvas = s.live->timeline()->canvas();
    s.live->timeline()->findChild<QCheckBox *>()->setChecked(false); // follow off
    canvas->setSpan(24 * 3600 * 1000);
    canvas->repaint();
    return !canvas->dotCentres().isEmpty();
}

/// A dot whose whole pixel still picks it (clicks land on whole pixels).
QPoint clickableDot(L::WindowTimelineCanvas *canvas)
{
    for (const QPointF &c : canvas->dotCentres())
        if (canvas->describeAt(QPointF(c.toPoint())) == canvas->describeAt(c))
            return c.toPoint();
    return {-1, -1};
}

} // namespace

class TestLiveTrace : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void aTimelineDotOpensItsTraceAndLightsThePath()
    {
        Session s(kSessions);
        QVERIFY(!s.path.isEmpty());
        s.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&s.window));
        QString error;
        QVERIFY2(s.live->startRun(false, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(s.bridge()->state() == State::Finished, 60000);
        QVERIFY(showTimeline(s, QStringLiteral("sessions")));
        auto *canvas = s.live->timeline()->canvas();
        const QPoint at = clickableDot(canvas);
        QVERIFY(at.x() >= 0);
        QTest::mouseClick(canvas, Qt::LeftButton, {}, at);
        // The live run kept lineage: no second run, the answer is there at once.
        TraceController *t = s.tracer();
        QVERIFY(!t->dock()->isHidden());
        QVERIFY(!t->running());
        QTRY_VERIFY_WITH_TIMEOUT(t->view()->resultCount() >= 1, 10000);
        const QStringList path = steps(s);
        QVERIFY2(anyContains(path, QStringLiteral("activity: read: record")),
                 qPrintable(path.join('\n')));
        QVERIFY2(anyContains(path, QStringLiteral("sessions: ")), qPrintable(path.join('\n')));
        QVERIFY2(t->view()->query().contains(QStringLiteral("reached `sessions`")),
                 qPrintable(t->view()->query()));
        const QStringList lit = t->highlight()->litNodes();
        QVERIFY2(lit.contains(QStringLiteral("activity"))
                     && lit.contains(QStringLiteral("sessions")),
                 qPrintable(lit.join(',')));
        QVERIFY(t->highlight()->litConnections() >= 2);
        // The record the dot is: the trace's record reached `sessions` as the dot shows it.
        QVERIFY2(anyContains(path, QStringLiteral("counted in window"))
                     || anyContains(path, QStringLiteral("late")),
                 qPrintable(path.join('\n')));
        if (const QByteArray dir = qgetenv("TIDELINE_TRACE_SHOTS"); !dir.isEmpty()) {
            t->dock()->raise();
            for (const QSize size : {QSize(1024, 768), QSize(1920, 1080)}) {
                s.window.showNormal();
                s.window.resize(size);
                QTest::qWait(300);
                s.window.view()->fitToContents();
                QTest::qWait(300);
                const QString file = QDir(QString::fromLocal8Bit(dir))
                                         .filePath(QStringLiteral("trace-timeline-dot-%1x%2.png")
                                                       .arg(size.width())
                                                       .arg(size.height()));
                QVERIFY(s.window.grab().save(file));
            }
        }
    }

    void aTimelineBarListsThePanesRecords()
    {
        Session s(kSessions);
        s.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&s.window));
        QString error;
        QVERIFY2(s.live->startRun(false, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(s.bridge()->state() == State::Finished, 60000);
        QVERIFY(showTimeline(s, QStringLiteral("sessions")));
        // A fired session of the model, traced as a pane: its rows list exactly its records.
        const L::WindowTimelineModel *m = s.live->timelineModel(QStringLiteral("sessions"));
        QVERIFY(m);
        const L::TimelineWindow *fired = nullptr;
        for (const auto &w : m->windows())
            if (w.state != L::TimelineWindow::Open && w.records > 1) {
                fired = &w;
                break;
            }
        QVERIFY(fired);
        const auto q = s.live->timeline()->traceQueryFor(*fired);
        QVERIFY(q.made);
        const QJsonObject match = QJsonDocument::fromJson(q.match.toUtf8()).object();
        QCOMPARE(match.value(QStringLiteral("window_start")).toInteger(), fired->start);
        QVERIFY2(match.contains(QStringLiteral("user")), qPrintable(q.match)); // the key's value
        s.tracer()->traceAt(q.node, q.match, q.made, q.label);
        QTRY_VERIFY_WITH_TIMEOUT(s.tracer()->view()->resultCount() >= 1, 10000);
        const QStringList made = steps(s);
        QVERIFY2(anyContains(made, QStringLiteral("made by window `sessions`")),
                 qPrintable(made.join('\n')));
        int inputs = 0;
        for (const auto &l : made)
            inputs += l.startsWith(QStringLiteral("activity: input #"));
        QVERIFY2(inputs >= fired->records, qPrintable(made.join('\n')));
        // Clicking a bar itself asks for its pane.
        auto *canvas = s.live->timeline()->canvas();
        QPoint bar(-1, -1);
        for (const QRectF &r : canvas->barRects()) {
            const QPoint c = r.center().toPoint();
            if (canvas->describeAt(QPointF(c)).startsWith(QStringLiteral("Window ["))) {
                bar = c;
                break;
            }
        }
        QVERIFY(bar.x() >= 0);
        s.tracer()->view()->setResults({}, {});
        QTest::mouseClick(canvas, Qt::LeftButton, {}, bar);
        QTRY_VERIFY_WITH_TIMEOUT(s.tracer()->view()->resultCount() >= 1, 10000);
        QVERIFY2(s.tracer()->view()->query().startsWith(QStringLiteral("the pane [")),
                 qPrintable(s.tracer()->view()->query()));
        QVERIFY2(anyContains(steps(s), QStringLiteral("made by window `sessions`")),
                 qPrintable(steps(s).join('\n')));
    }

    void aLiveUnboundedRunSaysWhatIsNoLongerTraceable()
    {
        // sliding-average's generator made unbounded; the live run keeps the newest 300.
        Session s(kSliding);
        QVERIFY(!s.path.isEmpty());
        QFile f(s.path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject spec = QJsonDocument::fromJson(f.readAll()).object();
        f.close();
        QJsonArray nodes = spec.value(QStringLiteral("nodes")).toArray();
        QJsonObject readings = nodes[0].toObject();
        QJsonObject params = readings.value(QStringLiteral("params")).toObject();
        params.insert(QStringLiteral("count"), 0);
        readings.insert(QStringLiteral("params"), params);
        nodes[0] = readings;
        spec.insert(QStringLiteral("nodes"), nodes);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QJsonDocument(spec).toJson());
        f.close();
        QVERIFY(s.window.openPath(s.path));
        s.live->paceBox()->setCurrentIndex(s.live->paceBox()->findData(QStringLiteral("rps:1000")));
        s.bridge()->setLineageBudget(300);
        QString error;
        QVERIFY2(s.live->startRun(false, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(s.bridge()->snapshot().recordsRead > 1200, 30000);
        QCOMPARE(s.bridge()->state(), State::Running);
        // Traced while it runs (no second run of an unbounded pipeline).
        s.tracer()->traceText(QStringLiteral("user_id != null"), false);
        QVERIFY(!s.tracer()->running());
        QTRY_VERIFY_WITH_TIMEOUT(s.tracer()->view()->resultCount() >= 250, 10000);
        QVERIFY(s.tracer()->view()->resultCount() <= 300);
        auto *note = s.tracer()->view()->findChild<QLabel *>(QStringLiteral("traceNote"));
        QVERIFY(note);
        QVERIFY2(note->text().contains(QStringLiteral("From the live run.")),
                 qPrintable(note->text()));
        QVERIFY2(note->text().contains(QRegularExpression(QStringLiteral(
                     "Traced from \\d\\d:\\d\\d:\\d\\d on; \\d+ older records evicted"))),
                 qPrintable(note->text()));
        s.bridge()->stop();
        QTRY_VERIFY_WITH_TIMEOUT(
            s.bridge()->state() == State::Stopped || s.bridge()->state() == State::Finished, 10000);
    }
};

QTEST_MAIN(TestLiveTrace)
#include "test_live_trace.moc"
