// Pipeline settings (name, description, checkpoints, state backend, delivery): edited in the
// settings dialog, applied as one undoable command, written by the engine's writer and read
// back unchanged; settings problems open the dialog.

#include "designer_test_support.hpp"
#include "pipeline_settings_dialog.hpp"
#include "problems/problems_panel.hpp"

#include <QAction>
#include <QComboBox>
#include <QGroupBox>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <functional>

using namespace tideline;
using namespace tideline::designer;
using namespace tideline::designer::test;

namespace {

const char *kPipeline = R"({"format":"tideline/1","name":"clicks","nodes":[
  {"id":"gen","kind":"source.generator","params":{"count":10},"ui":{"x":0,"y":0}},
  {"id":"out","kind":"sink.console","params":{},"ui":{"x":300,"y":0}}],
 "edges":[{"from":"gen.out","to":"out.in"}]})";

/// Runs `fill` on the settings dialog once it is open (it is modal), then presses OK.
void whenSettingsDialogOpens(std::function<void(PipelineSettingsDialog &)> fill, bool accept = true)
{
    auto *timer = new QTimer;
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, [timer, fill, accept] {
        auto *d = qobject_cast<PipelineSettingsDialog *>(QApplication::activeModalWidget());
        if (!d)
            return;
        timer->stop();
        timer->deleteLater();
        fill(*d);
        accept ? d->accept() : d->reject();
    });
    timer->start();
}

} // namespace

class SettingsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void dialogEditsThroughOneUndoableCommand()
    {
        MainWindow w;
        QString error;
        QVERIFY(w.document().openText(kPipeline, QString(), &error));
        QVERIFY(w.document().spec().settings.empty());
        QCOMPARE(w.windowTitle(), QStringLiteral("clicks.json[*] — Tideline"));
        whenSettingsDialogOpens([](PipelineSettingsDialog &d) {
            QVERIFY(!d.checkpointGroup()->isChecked()); // none in the file
            QCOMPARE(d.dirEdit()->text(), QStringLiteral("state/clicks"));
            d.nameEdit()->setText(QStringLiteral("clicks-per-user"));
            d.descriptionEdit()->setPlainText(QStringLiteral("counts clicks"));
            d.checkpointGroup()->setChecked(true);
            d.intervalBox()->setValue(2500);
            d.dirEdit()->setText(QStringLiteral("state/cpu"));
            d.keepBox()->setValue(5);
            QVERIFY(!d.memoryBudgetBox()->isEnabled()); // only meaningful with rocksdb
            d.stateBox()->setCurrentIndex(d.stateBox()->findData(QStringLiteral("rocksdb")));
            QVERIFY(d.memoryBudgetBox()->isEnabled());
            QCOMPARE(d.memoryBudgetBox()->value(), 256); // the engine's default
        });
        w.action(QStringLiteral("File.Settings"))->trigger();
        const PipelineSpec &spec = w.document().spec();
        QCOMPARE(spec.name, std::string("clicks-per-user"));
        QCOMPARE(spec.description, std::string("counts clicks"));
        QCOMPARE(spec.settings.dump(),
                 std::string(R"({"checkpoint":{"interval_ms":2500,"dir":"state/cpu","keep":5},)"
                             R"("state":"rocksdb"})"));
        QCOMPARE(w.document().errorCount(), 0);
        QVERIFY(w.document().isModified());
        QCOMPARE(w.document().undoStack()->count(), 1);
        QCOMPARE(w.document().undoStack()->undoText(), QStringLiteral("Edit pipeline settings"));
        // The untitled document is named after the pipeline.
        QCOMPARE(w.windowTitle(), QStringLiteral("clicks-per-user.json[*] — Tideline"));

        w.action(QStringLiteral("Edit.Undo"))->trigger();
        QCOMPARE(w.document().spec().name, std::string("clicks"));
        QVERIFY(w.document().spec().settings.empty());
        QVERIFY(w.document().spec().description.empty());
        QVERIFY(!w.document().isModified());
        QCOMPARE(w.windowTitle(), QStringLiteral("clicks.json[*] — Tideline"));
        w.action(QStringLiteral("Edit.Redo"))->trigger();
        QCOMPARE(w.document().spec().settings["checkpoint"]["keep"].get<int>(), 5);

        // Cancel changes nothing; OK without edits pushes no command.
        whenSettingsDialogOpens([](PipelineSettingsDialog &d) { d.keepBox()->setValue(9); }, false);
        w.action(QStringLiteral("File.Settings"))->trigger();
        whenSettingsDialogOpens([](PipelineSettingsDialog &) {});
        w.action(QStringLiteral("File.Settings"))->trigger();
        QCOMPARE(w.document().undoStack()->count(), 1);
        QCOMPARE(w.document().spec().settings["checkpoint"]["keep"].get<int>(), 5);
    }

    void settingsRoundTripThroughSaveAndLoad()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("p.json"));
        MainWindow w;
        QString error;
        QVERIFY(w.document().openText(kPipeline, QString(), &error));
        PipelineHeader h = w.document().header();
        h.settings = Json::parse(R"({"checkpoint":{"interval_ms":750,"dir":"cp","keep":2},
                                     "state":"rocksdb","state_memory_mb":64,
                                     "delivery":"exactly_once"})");
        QVERIFY(w.applyPipelineSettings(h));
        QVERIFY(!w.applyPipelineSettings(h)); // unchanged: no command
        QVERIFY(w.savePath(path));

        MainWindow w2;
        QVERIFY(w2.openPath(path));
        QVERIFY(w2.document().spec() == w.document().spec());
        QVERIFY(w2.document().header() == h);
        // The dialog shows what the file says.
        whenSettingsDialogOpens([](PipelineSettingsDialog &d) {
            QVERIFY(d.checkpointGroup()->isChecked());
            QCOMPARE(d.intervalBox()->value(), 750);
            QCOMPARE(d.dirEdit()->text(), QStringLiteral("cp"));
            QCOMPARE(d.keepBox()->value(), 2);
            QCOMPARE(d.stateBox()->currentData().toString(), QStringLiteral("rocksdb"));
            QCOMPARE(d.memoryBudgetBox()->value(), 64);
            QCOMPARE(d.deliveryBox()->currentData().toString(), QStringLiteral("exactly_once"));
        });
        w2.action(QStringLiteral("File.Settings"))->trigger();
        QVERIFY(!w2.document().isModified());
        // Saving again writes the same bytes.
        const QString again = dir.filePath(QStringLiteral("again.json"));
        QVERIFY(w2.savePath(again));
        QFile a(path), b(again);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QCOMPARE(a.readAll(), b.readAll());
    }

    void turningCheckpointsOffKeepsOtherSettings()
    {
        MainWindow w;
        QString error;
        QVERIFY(w.document().openText(
            R"({"format":"tideline/1","name":"x","settings":{"delivery":"exactly_once",
               "checkpoint":{"interval_ms":100,"dir":"a"}},"nodes":[]})",
            QString(), &error));
        whenSettingsDialogOpens([](PipelineSettingsDialog &d) {
            QCOMPARE(d.keepBox()->value(), 3); // the engine's default when absent
            d.checkpointGroup()->setChecked(false);
        });
        w.action(QStringLiteral("File.Settings"))->trigger();
        QCOMPARE(w.document().spec().settings.dump(),
                 std::string(R"({"delivery":"exactly_once"})"));
    }

    void settingsProblemOpensTheDialog()
    {
        MainWindow w;
        QString error;
        QVERIFY(w.document().openText(
            R"({"format":"tideline/1","name":"x","settings":{"checkpoint":{"interval_ms":0,"dir":"a"}},
               "nodes":[{"id":"gen","kind":"source.generator","params":{"count":1}},
                        {"id":"out","kind":"sink.console","params":{}}],
               "edges":[{"from":"gen.out","to":"out.in"}]})",
            QString(), &error));
        QCOMPARE(w.document().errorCount(), 1);
        QString param;
        for (const auto &p : w.problemsPanel()->problems())
            if (p.error)
                param = p.param;
        QCOMPARE(param, QStringLiteral("settings.checkpoint.interval_ms"));
        whenSettingsDialogOpens([](PipelineSettingsDialog &d) {
            QCOMPARE(d.intervalBox()->value(), 1); // 0 is out of range: shown as the minimum
            d.intervalBox()->setValue(1000);
        });
        Q_EMIT w.problemsPanel()->problemActivated(QString(), param);
        QCOMPARE(w.document().errorCount(), 0);
        QCOMPARE(w.document().spec().settings["checkpoint"]["interval_ms"].get<int>(), 1000);
    }
};

QTEST_MAIN(SettingsTest)
#include "test_settings.moc"
