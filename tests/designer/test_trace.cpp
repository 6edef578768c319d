// Where did this record go? (issue 16) in the designer, offscreen: Test › Trace a Record runs
// the open example with lineage and finds clk-0082 by expression and clk-0084 by text, shows
// their paths in words ("no partner …") and lights the path on the canvas; an output row lists
// its two join sides; after a run the canvas shows totals and each node's fates, not rates.

#include "designer_test_support.hpp"
#include "live/canvas_overlay.hpp"
#include "live/trace_highlight.hpp"
#include "live/trace_view.hpp"
#include "trace/trace_controller.hpp"

#include <QDockWidget>
#include <QSignalSpy>
#include <QtTest>

using namespace tideline;
using namespace tideline::designer;

namespace {

const QString kPipelines = QStringLiteral(TIDELINE_PIPELINES_DIR);

bool traceRun(MainWindow &w, const QString &query, bool outputs)
{
    TraceController *t = w.traceController();
    QSignalSpy done(t, &TraceController::finished);
    t->traceText(query, outputs);
    return done.wait(60000) && t->ready();
}

bool anyContains(const QStringList &lines, const QString &part)
{
    for (const auto &l : lines)
        if (l.contains(part))
            return true;
    return false;
}

} // namespace

class TraceTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void theVanishedClickIsFoundAndItsPathLit()
    {
        MainWindow w;
        w.setRunConfirmer([](const QString &) { return true; });
        QVERIFY(w.openPath(kPipelines + QStringLiteral("/ad-impressions-clicks/pipeline.json")));
        QVERIFY(w.action(QStringLiteral("Run.Trace")));
        QVERIFY(traceRun(w, QStringLiteral("click_id == \"clk-0082\""), false));
        TraceController *t = w.traceController();
        QVERIFY(!t->dock()->isHidden());
        QCOMPARE(t->view()->resultCount(), 1);
        const QStringList steps = t->view()->shownSteps();
        QVERIFY2(anyContains(steps, QStringLiteral("clicks: read: record 23 of source `clicks`")),
                 qPrintable(steps.join('\n')));
        QVERIFY2(anyContains(steps, QStringLiteral("clicked: no partner")),
                 qPrintable(steps.join('\n')));
        QCOMPARE(t->highlight()->litNodes(),
                 (QStringList{QStringLiteral("clicks"), QStringLiteral("click_time"),
                              QStringLiteral("clicked")}));
        QCOMPARE(t->highlight()->litConnections(), 2);

        // Any text of a record: the click for an impression that does not exist.
        t->search(QStringLiteral("imp-9999"), false);
        QCOMPARE(t->view()->resultCount(), 1);
        QVERIFY(anyContains(t->view()->shownSteps(), QStringLiteral("clk-0084"))
                || anyContains(t->view()->shownSteps(), QStringLiteral("no partner")));

        // An output row: the pair and its two sides, and the path through both inputs.
        t->search(QStringLiteral("right.click_id == \"clk-0001\""), true);
        QCOMPARE(t->view()->resultCount(), 1);
        const QStringList pair = t->view()->shownSteps();
        QVERIFY2(anyContains(pair, QStringLiteral("made by join `clicked`: a pair")),
                 qPrintable(pair.join('\n')));
        QVERIFY2(anyContains(pair, QStringLiteral("impressions: input")),
                 qPrintable(pair.join('\n')));
        QVERIFY2(anyContains(pair, QStringLiteral("clicks: input")), qPrintable(pair.join('\n')));
        QVERIFY(t->highlight()->litNodes().contains(QStringLiteral("joined")));
        QVERIFY(t->highlight()->litNodes().contains(QStringLiteral("impression_time")));
    }

    void afterTheRunTheCanvasShowsTotals()
    {
        MainWindow w;
        QVERIFY(w.openPath(kPipelines + QStringLiteral("/payments-dedup/pipeline.json")));
        live::CanvasOverlay overlay(w.scene());
        live::Snapshot s;
        s.state = QStringLiteral("Finished");
        live::NodeFigures once;
        once.node = QStringLiteral("once");
        once.kind = QStringLiteral("dedup");
        once.recordsIn = 345;
        once.recordsOut = 300;
        once.late = 4;
        once.accounted = {{QStringLiteral("duplicate"), 41}};
        once.inRate = once.outRate = 0;
        s.nodes << once;
        overlay.update(s, {});
        const QString text = overlay.nodeText(QStringLiteral("once"));
        QVERIFY2(text.contains(QStringLiteral("in 345 · out 300")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("41 duplicate")), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("/s")), qPrintable(text));
        // A node whose figures do not add up says so.
        s.nodes[0].balanced = false;
        s.nodes[0].balanceText = QStringLiteral("in 345 = out 300 + duplicate 41");
        overlay.update(s, {});
        QVERIFY(
            overlay.nodeText(QStringLiteral("once")).contains(QStringLiteral("does not balance")));
        // While running: rates.
        s.state = QStringLiteral("Running");
        overlay.update(s, {});
        QVERIFY(overlay.nodeText(QStringLiteral("once")).contains(QStringLiteral("/s")));
    }
};

QTEST_MAIN(TraceTest)
#include "test_trace.moc"
