// The designer's Compare Engines dialog (Test › Compare Engines…), driven like a user in the
// real main window, on the hand-traced input of test_compare.cpp (ts 1000, 12000, 5000 of key a
// and 15000 of key b: Flink
// and Kafka Streams send 5000 to `late`, Spark counts it): the cards, the differences (Flink
// vs Spark differ in one final value), the drops per node, the three lanes of the window
// timeline, and "Use Spark" as one undoable change of settings.semantics that asks for a
// live run; undo puts the file's settings back exactly.
//
// With TIDELINE_COMPARE_SHOTS=DIR (under xvfb-run with QT_QPA_PLATFORM=xcb) it also saves
// DIR/compare-engines-<width>x<height>.png of the dialog at the screen's size.

#include "compare/compare_controller.hpp"
#include "compare/compare_dialog.hpp"
#include "live/engine_timelines.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"
#include "test_support.hpp"

#include <QAction>
#include <QComboBox>
#include <QGuiApplication>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QTableWidget>
#include <QUndoStack>
#include <QtTest>

using namespace tideline;
using namespace tideline::designer;

namespace {

const char *events = "{\"k\":\"a\",\"ts\":1000}\n{\"k\":\"a\",\"ts\":12000}\n"
                     "{\"k\":\"a\",\"ts\":5000}\n{\"k\":\"b\",\"ts\":15000}\n";

const char *pipeline = R"({
  "format": "tideline/1",
  "name": "tiny",
  "settings": { "spark": { "trigger_records": 1000 } },
  "nodes": [
    { "id": "src", "kind": "source.file", "params": { "path": "events.jsonl" } },
    { "id": "wm", "kind": "watermark",
      "params": { "time_field": "ts", "time_format": "epoch_ms", "max_out_of_orderness_ms": 0 } },
    { "id": "w", "kind": "window",
      "params": { "type": "tumbling", "size_ms": 10000, "key": ["k"],
                  "aggregates": [ { "op": "count", "as": "n" } ] } },
    { "id": "out", "kind": "sink.file", "params": { "path": "out/counts.jsonl" } },
    { "id": "late", "kind": "sink.file", "params": { "path": "out/late.jsonl" } }
  ],
  "edges": [
    { "from": "src.out", "to": "wm.in" },
    { "from": "wm.out", "to": "w.in" },
    { "from": "w.out", "to": "out.in" },
    { "from": "w.late", "to": "late.in" }
  ]
})";

bool tableHas(QTableWidget *t, int column, const QString &text)
{
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, column) && t->item(r, column)->text().contains(text))
            return true;
    return false;
}

} // namespace

class CompareDialogTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void comparesShowsAndSwitchesEngines()
    {
        testing::TempDir dir;
        testing::writeFile(dir.file("events.jsonl"), events);
        testing::writeFile(dir.file("pipeline.json"), pipeline);
        MainWindow window;
        const QSize screen = QGuiApplication::primaryScreen()->size();
        window.resize(screen);
        window.show();
        QString error;
        QVERIFY2(
            window.document().openFile(QString::fromStdString(dir.file("pipeline.json")), &error),
            qPrintable(error));
        PipelineDocument &doc = window.document();
        const Json settingsBefore = doc.spec().settings;

        QAction *action = window.compareController()->action();
        QVERIFY(action);
        QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
        int liveRuns = 0;
        window.compareController()->setLiveRunHook([&liveRuns] { ++liveRuns; });
        action->trigger();
        auto *dialog = window.findChild<CompareDialog *>();
        QVERIFY(dialog);
        dialog->resize(screen);

        QSignalSpy finished(dialog, &CompareDialog::compareFinished);
        QVERIFY2(dialog->runCompare(), qPrintable(dialog->status()));
        QVERIFY(finished.wait(60000));
        QVERIFY2(dialog->status().contains(QStringLiteral("differ")), qPrintable(dialog->status()));
        for (const char *e : {"flink", "spark", "kafka-streams"})
            QVERIFY2(dialog->cardText(QLatin1String(e)).contains(QStringLiteral("4 records read")),
                     qPrintable(dialog->cardText(QLatin1String(e))));
        QVERIFY(dialog->cardText(QStringLiteral("flink")).contains(QStringLiteral("1 late")));
        QVERIFY(dialog->cardText(QStringLiteral("spark")).contains(QStringLiteral("0 late")));

        // Flink vs Spark: the window [0,10) of key a has n 1 against 2, in the final results.
        QTableWidget *diffs = dialog->differences();
        bool found = false;
        for (int r = 0; r < diffs->rowCount(); ++r)
            found |= diffs->item(r, 1)->text() == QStringLiteral("Flink vs Spark")
                     && diffs->item(r, 2)->text() == QStringLiteral("final results")
                     && diffs->item(r, 5)->text().contains(QStringLiteral("n: Flink 1, Spark 2"));
        QVERIFY(found);
        QVERIFY(
            tableHas(diffs, 4, QStringLiteral("they differ only in how the rows were emitted")));
        QVERIFY(tableHas(dialog->drops(), 0, QStringLiteral("w")));

        // The timeline: the sink with windows, key a first (its windows differ), three lanes.
        QCOMPARE(dialog->sinkBox()->currentText(), QStringLiteral("out"));
        QVERIFY(dialog->keyBox()->count() >= 2);
        QCOMPARE(dialog->keyBox()->currentData().toString(), QStringLiteral("k = \"a\""));
        const auto &lanes = dialog->timelines()->lanes();
        QCOMPARE(lanes.size(), std::size_t(3));
        QCOMPARE(lanes[0].title, QStringLiteral("Flink"));
        QCOMPARE(lanes[0].panes.size(), std::size_t(2));
        QCOMPARE(lanes[0].panes[0].label, QStringLiteral("n=1"));
        QCOMPARE(lanes[1].panes[0].label, QStringLiteral("n=2"));
        QVERIFY(!lanes[2].panes.empty() && lanes[2].panes[0].update); // a changelog
        const auto differing = dialog->timelines()->differingLanes();
        QCOMPARE(differing.size(), std::size_t(2));

        if (const QByteArray shots = qgetenv("TIDELINE_COMPARE_SHOTS"); !shots.isEmpty()) {
            QTest::qWait(300);
            const QString file = QStringLiteral("%1/compare-engines-%2x%3.png")
                                     .arg(QString::fromLocal8Bit(shots))
                                     .arg(screen.width())
                                     .arg(screen.height());
            QVERIFY(dialog->grab().save(file));
        }

        // Use Spark: one undoable change of settings.semantics, and a live run asked for.
        auto *useSpark = dialog->findChild<QPushButton *>(QStringLiteral("use-spark"));
        QVERIFY(useSpark && useSpark->isEnabled());
        QVERIFY(!dialog->findChild<QPushButton *>(QStringLiteral("use-flink"))->isEnabled());
        const int undoBefore = doc.undoStack()->count();
        useSpark->click();
        QCOMPARE(doc.spec().settings.value("semantics", std::string()), std::string("spark"));
        QCOMPARE(doc.undoStack()->count(), undoBefore + 1);
        QCOMPARE(liveRuns, 1);
        QVERIFY(!useSpark->isEnabled());
        QVERIFY(!dialog->useEngine(QStringLiteral("spark"))); // already in use: nothing to do
        doc.undoStack()->undo();
        QCOMPARE(doc.spec().settings, settingsBefore);
        QVERIFY(useSpark->isEnabled());
        QVERIFY(!dialog->findChild<QPushButton *>(QStringLiteral("use-flink"))->isEnabled());
    }

    void anUnboundedPipelineIsRefusedWithTheReason()
    {
        testing::TempDir dir;
        std::string text = pipeline;
        const std::string from = R"("kind": "source.file", "params": { "path": "events.jsonl" })";
        text.replace(
            text.find(from), from.size(),
            R"("kind": "source.kafka", "params": { "bootstrap_servers": "127.0.0.1:1", "topic": "t", "group_id": "g" })");
        testing::writeFile(dir.file("pipeline.json"), text);
        MainWindow window;
        QString error;
        QVERIFY(
            window.document().openFile(QString::fromStdString(dir.file("pipeline.json")), &error));
        CompareDialog *dialog = window.compareController()->open();
        QCOMPARE(window.document().errorCount(), 0);
        QVERIFY(!dialog->runCompare());
        QVERIFY2(dialog->status().contains(QStringLiteral("bounded")),
                 qPrintable(dialog->status()));
    }
};

QTEST_MAIN(CompareDialogTest)
#include "test_compare_dialog.moc"
