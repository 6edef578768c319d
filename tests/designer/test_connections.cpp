// Every kind of invalid connection is refused, by mouse, with the engine's reason; live
// feedback while dragging says so before the button is released.

#include "designer_test_support.hpp"
#include "pipeline_graph_model.hpp"

#include <QSignalSpy>
#include <QStatusBar>
#include <QtTest>

using namespace tideline;
using namespace tideline::designer;
using namespace tideline::designer::test;

namespace {

const char *kGraph = R"({"format":"tideline/1","name":"conn","nodes":[
  {"id":"gen","kind":"source.generator","params":{},"ui":{"x":0,"y":0}},
  {"id":"gen2","kind":"source.generator","params":{},"ui":{"x":0,"y":300}},
  {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":0},"ui":{"x":300,"y":0}},
  {"id":"f1","kind":"filter","params":{"expr":"value > 1"},"ui":{"x":600,"y":0}},
  {"id":"f2","kind":"filter","params":{"expr":"value > 2"},"ui":{"x":900,"y":0}},
  {"id":"j","kind":"join","params":{"left_key":["user_id"],"right_key":["user_id"],"lower_ms":0,"upper_ms":10},"ui":{"x":600,"y":300}},
  {"id":"out","kind":"sink.console","params":{},"ui":{"x":1200,"y":0}}],
 "edges":[{"from":"gen.out","to":"wm.in"},{"from":"f1.out","to":"f2.in"}]})";

} // namespace

class ConnectionsTest : public QObject
{
    Q_OBJECT

    std::unique_ptr<MainWindow> w;

    void refusedByMouse(QPointF from, QPointF to, const QString &expected)
    {
        const std::string before = w->document().toJson();
        const int undo = w->document().undoStack()->count();
        QSignalSpy feedback(w->scene(), &widgets::GraphScene::connectionFeedback);
        dragOnCanvas(w->view(), from, to);
        QCOMPARE(w->document().toJson(), before);
        QCOMPARE(w->document().undoStack()->count(), undo);
        QVERIFY2(w->lastRefusal().contains(expected, Qt::CaseInsensitive),
                 qPrintable(w->lastRefusal()));
        // While hovering the target the scene already reported it as unacceptable.
        bool sawRefusal = false;
        for (const auto &args : feedback)
            if (!args.at(1).toBool()
                && args.at(0).toString().contains(expected, Qt::CaseInsensitive))
                sawRefusal = true;
        QVERIFY(sawRefusal);
    }

private Q_SLOTS:
    void init()
    {
        w = std::make_unique<MainWindow>();
        w->resize(1500, 900);
        w->show();
        QString error;
        QVERIFY2(w->document().openText(kGraph, QString(), &error), qPrintable(error));
        w->view()->setZoom(0.8);
        w->view()->centerOn(QPointF(650, 200));
    }
    void cleanup() { w.reset(); }

    void acceptedConnectionIsOneUndoEntry()
    {
        connectByMouse(*w, "wm", "out", "f1", "in");
        QCOMPARE(w->document().spec().edges.size(), std::size_t(3));
        QCOMPARE(w->document().spec().edges.back().to.str(), std::string("f1.in"));
        QVERIFY(w->scene()->connectionItem({"wm", "out", "f1", "in"}));
        w->document().undoStack()->undo();
        QCOMPARE(w->document().spec().edges.size(), std::size_t(2));
        QVERIFY(!w->scene()->connectionItem({"wm", "out", "f1", "in"}));
    }

    void dropOnNodeBodyPicksTheFreeInput()
    {
        auto *j = w->scene()->nodeItem("j");
        connectByMouse(*w, "wm", "out", "j", "left");
        // Dropping on the join's body (not a port) picks the input that is still free.
        dragOnCanvas(w->view(), portPos(*w, "gen2", "out", false), j->mapToScene(QPointF(100, 20)));
        QCOMPARE(w->document().spec().edges.back().to.str(), std::string("j.right"));
    }

    void wrongDirectionIsRefused()
    {
        // output -> output
        refusedByMouse(portPos(*w, "wm", "out", false), portPos(*w, "f1", "out", false), "output");
        // input -> input (dragged from an input: asks for an edge into wm.in from f2.in)
        refusedByMouse(portPos(*w, "f1", "in", true), portPos(*w, "j", "left", true), "input");
    }

    void secondEdgeIntoSingleInputIsRefused()
    {
        refusedByMouse(portPos(*w, "gen2", "out", false), portPos(*w, "wm", "in", true),
                       "already has an input");
    }

    void refusedDropKeepsItsReasonAndPointsAtTheFix()
    {
        // The reason stays in the status bar after the button is released, and the edge that
        // occupies the input is selected so that Delete removes it.
        dragOnCanvas(w->view(), portPos(*w, "gen2", "out", false), portPos(*w, "wm", "in", true));
        const QString shown = w->statusBar()->currentMessage();
        QVERIFY2(shown.contains("already has an input") && shown.contains("Delete"),
                 qPrintable(shown));
        const auto selected = w->scene()->selectedConnections();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.first().toNode, QStringLiteral("wm"));
        w->action("Edit.Delete")->trigger();
        connectByMouse(*w, "gen2", "out", "wm", "in");
        QCOMPARE(w->document().spec().edges.back().from.str(), std::string("gen2.out"));
        QCOMPARE(w->document().spec().edges.back().to.str(), std::string("wm.in"));
    }

    void cycleIsRefused()
    {
        refusedByMouse(portPos(*w, "f2", "out", false), portPos(*w, "f1", "in", true), "cycle");
        refusedByMouse(portPos(*w, "f1", "out", false), portPos(*w, "f1", "in", true), "itself");
    }

    void unknownPortIsRefused()
    {
        // The canvas only offers real ports; a node without inputs refuses a drop on its body,
        // and the model (the engine's checkNewEdge) names unknown ports.
        refusedByMouse(portPos(*w, "wm", "out", false),
                       w->scene()->nodeItem("gen2")->mapToScene(QPointF(100, 20)), "no input port");
        auto &model = w->scene()->model();
        const QString reason = model.checkConnection({"wm", "out", "f1", "inn"});
        QVERIFY2(reason.contains("no input port `inn`"), qPrintable(reason));
        QVERIFY(!model.checkConnection({"wm", "outt", "f1", "in"}).isEmpty());
        QVERIFY(model.checkConnection({"wm", "out", "f1", "in"}).isEmpty());
    }
};

QTEST_MAIN(ConnectionsTest)
#include "test_connections.moc"
