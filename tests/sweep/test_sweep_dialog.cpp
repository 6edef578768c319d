// The designer's Sweep dialog (Test > What-if Sweep…), driven like a user in the real main
// window: a small sweep over a hand-traced pipeline (the one of test_sweep.cpp), its points,
// the hover text, a mouse click on a point applying its values as one undoable command, and
// undo putting the previous params back exactly.
//
// With TIDELINE_SWEEP_SHOTS=DIR (run under xvfb-run with QT_QPA_PLATFORM=xcb) it also saves
// DIR/sweep-plot-<width>x<height>.png of the main window with the dialog over it, at the
// screen's size (docs/screenshots/).

#include "main_window.hpp"
#include "pipeline_document.hpp"
#include "sweep/sweep_controller.hpp"
#include "sweep/sweep_dialog.hpp"
#include "test_support.hpp"
#include "tiny_window_pipeline.hpp"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QScreen>
#include <QSignalSpy>
#include <QTableWidget>
#include <QUndoStack>
#include <QtTest>

using namespace tideline;
using namespace tideline::designer;

namespace {

const char *tinyEvents = "{\"k\":\"a\",\"ts\":1000}\n{\"k\":\"a\",\"ts\":5000}\n"
                         "{\"k\":\"a\",\"ts\":12000}\n{\"k\":\"a\",\"ts\":8000}\n"
                         "{\"k\":\"a\",\"ts\":15000}\n{\"k\":\"a\",\"ts\":21000}\n"
                         "{\"k\":\"a\",\"ts\":9000}\n{\"k\":\"a\",\"ts\":25000}\n";

const char *tinyPipeline = testing::kTinyWindowPipeline;

void click(QChartView *view, QScatterSeries *series, QPointF value)
{
    const QPoint at = view->mapFromScene(view->chart()->mapToPosition(value, series));
    QWidget *vp = view->viewport();
    QMouseEvent press(QEvent::MouseButtonPress, QPointF(at), vp->mapToGlobal(QPointF(at)),
                      Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(vp, &press);
    QMouseEvent release(QEvent::MouseButtonRelease, QPointF(at), vp->mapToGlobal(QPointF(at)),
                        Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(vp, &release);
}

} // namespace

class SweepDialogTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sweepPlotsAppliesAndUndoes()
    {
        testing::TempDir dir;
        testing::writeFile(dir.file("events.jsonl"), tinyEvents);
        testing::writeFile(dir.file("pipeline.json"), tinyPipeline);
        MainWindow window;
        const QSize screen = QGuiApplication::primaryScreen()->size();
        window.resize(screen);
        window.show();
        QString error;
        QVERIFY2(
            window.document().openFile(QString::fromStdString(dir.file("pipeline.json")), &error),
            qPrintable(error));
        PipelineDocument &doc = window.document();
        const NodeSpec wmBefore = doc.spec().nodes[1];
        const NodeSpec wBefore = doc.spec().nodes[2];

        // Opened from its menu action, with a first row on the watermark node.
        QAction *action = window.sweepController()->action();
        QVERIFY(action);
        action->trigger();
        SweepDialog *dialog = window.findChild<SweepDialog *>();
        QVERIFY(dialog);
        auto *axes = dialog->findChild<QTableWidget *>(QStringLiteral("sweepAxes"));
        QCOMPARE(axes->rowCount(), 1);
        sweep::Plan plan;
        QVERIFY2(dialog->readPlan(plan, &error), qPrintable(error));
        QCOMPARE(QString::fromStdString(plan.axes[0].label()),
                 QStringLiteral("wm.max_out_of_orderness_ms"));
        axes->removeRow(0);
        dialog->addAxis(QStringLiteral("wm"), QStringLiteral("max_out_of_orderness_ms"),
                        QStringLiteral("0, 3000"));
        dialog->addAxis(QStringLiteral("w"), QStringLiteral("allowed_lateness_ms"),
                        QStringLiteral("0,5000"));
        // A typo is refused with the runner's words, before anything runs.
        dialog->addAxis(QStringLiteral("w"), QStringLiteral("size_ms"), QStringLiteral("1x"));
        QVERIFY(!dialog->runSweep());
        QVERIFY(dialog->findChild<QLabel *>(QStringLiteral("sweepStatus"))
                    ->text()
                    .contains(QStringLiteral("`1x` is not an integer")));
        axes->removeRow(2);

        QSignalSpy finished(dialog, &SweepDialog::sweepFinished);
        QVERIFY(dialog->runSweep());
        QVERIFY(finished.wait(60000));
        QCOMPARE(dialog->result().rows.size(), std::size_t(4));

        // One point per combination: (latency p99, completeness %) and (peak state, %),
        // the figures of test_sweep.cpp's hand trace.
        const QList<QPointF> latency = dialog->latencySeries()->points();
        const QList<QPointF> state = dialog->stateSeries()->points();
        QCOMPARE(latency.size(), 4);
        QCOMPARE(state.size(), 4);
        const double sixSevenths = 600.0 / 7.0;
        const QList<QPointF> expectLatency{
            {2001, sixSevenths}, {2001, 100}, {5001, 100}, {5001, 100}};
        const QList<QPointF> expectState{{2, sixSevenths}, {2, 100}, {2, 100}, {3, 100}};
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(latency[i].x(), expectLatency[i].x());
            QVERIFY(qFuzzyCompare(latency[i].y(), expectLatency[i].y()));
            QCOMPARE(state[i].x(), expectState[i].x());
            QVERIFY(qFuzzyCompare(state[i].y(), expectState[i].y()));
        }
        const QString hover = dialog->describe(3);
        QVERIFY2(hover.contains(QStringLiteral("wm.max_out_of_orderness_ms = 3000")),
                 qPrintable(hover));
        QVERIFY(hover.contains(QStringLiteral("w.allowed_lateness_ms = 5000")));
        QVERIFY(hover.contains(QStringLiteral("peak state 3 entries")));

        if (const QByteArray shots = qgetenv("TIDELINE_SWEEP_SHOTS"); !shots.isEmpty()) {
            dialog->resize(std::min(screen.width() - 40, 1400),
                           std::min(screen.height() - 60, 900));
            dialog->move(20, 20);
            QTest::qWait(300);
            const QString name = QStringLiteral("%1/sweep-plot-%2x%3.png")
                                     .arg(QString::fromUtf8(shots))
                                     .arg(screen.width())
                                     .arg(screen.height());
            QVERIFY(QGuiApplication::primaryScreen()->grabWindow(0).save(name));
        }

        // Click the point of delay 3000 / lateness 5000 (the only one at 3 entries).
        QSignalSpy applied(dialog, &SweepDialog::combinationApplied);
        const int undoBefore = doc.undoStack()->count();
        click(dialog->stateView(), dialog->stateSeries(), state[3]);
        QCOMPARE(applied.count(), 1);
        QCOMPARE(applied.first().first().toInt(), 3);
        QCOMPARE(doc.undoStack()->count(), undoBefore + 1); // one command for both params
        QCOMPARE(doc.spec().nodes[1].params["max_out_of_orderness_ms"].get<int>(), 3000);
        QCOMPARE(doc.spec().nodes[2].params["allowed_lateness_ms"].get<int>(), 5000);
        QVERIFY(doc.isModified());

        doc.undoStack()->undo();
        QVERIFY(doc.spec().nodes[1] == wmBefore);
        QVERIFY(doc.spec().nodes[2] == wBefore); // allowed_lateness_ms absent again
        QVERIFY(!doc.isModified());

        // The values the pipeline has already (lateness 0 is the default): no command.
        const int index = doc.undoStack()->index();
        QVERIFY(!dialog->applyCombination(0));
        QCOMPARE(doc.undoStack()->index(), index);
        QVERIFY(doc.spec().nodes[2] == wBefore);
        dialog->close();
    }
};

QTEST_MAIN(SweepDialogTest)
#include "test_sweep_dialog.moc"
