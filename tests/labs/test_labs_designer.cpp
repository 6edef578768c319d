// The designer's lab mode (issue 19, item 5), on the real MainWindow offscreen: File › Open
// Lab… lists the labs and opens one; its task shows in the Lab dock beside the canvas; Check
// in that dock fails on the starting pipeline (with the Check panel's findings), and passes
// once the solution's changes are made through the document's undoable commands, as a
// student makes them. Opening a lab's pipeline.json by File › Open is detected as the lab;
// any other pipeline (and a lab's solution) closes the lab mode. The labs are not offered as
// examples (Help › Examples): the solutions would be there.

#include "check/check_controller.hpp"
#include "check/check_panel.hpp"
#include "commands/connect_command.hpp"
#include "commands/remove_items_command.hpp"
#include "commands/set_param_command.hpp"
#include "designer_test_support.hpp"
#include "examples.hpp"
#include "labs/lab_controller.hpp"
#include "labs/lab_panel.hpp"
#include "pipeline_folder_copy.hpp"

#include <tideline/engine/spec.hpp>

#include <QDockWidget>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

using namespace tideline;
using namespace tideline::designer;

namespace {

const QString kLabs = QStringLiteral(TIDELINE_SOURCE_DIR "/pipelines/labs");

/// Presses the Lab dock's Check and waits for the verdict.
LabPanel::Verdict pressCheck(MainWindow &w)
{
    LabPanel *panel = w.labController()->panel();
    QSignalSpy done(w.checkController(), &CheckController::finished);
    QTest::mouseClick(panel->checkButton(), Qt::LeftButton);
    if (done.isEmpty() && !done.wait(60000))
        return LabPanel::Verdict::Error;
    return panel->verdict();
}

/// The param as the file means it: a path resolved against its file's folder.
Json resolved(const std::string &param, const Json &value, const QString &folder)
{
    if (param != "path" || !value.is_string())
        return value;
    return QDir::cleanPath(QDir(folder).absoluteFilePath(QString::fromStdString(value)))
        .toStdString();
}

/// Makes the document equal to the solution as a student would: one undoable command per
/// changed param (paths compared as resolved: the solution lives in solution/), per removed
/// and per added edge. Returns how many commands it pushed.
int applySolution(MainWindow &w, const QString &solutionFile)
{
    auto solution = loadSpecFile(solutionFile.toStdString());
    if (!solution.ok())
        return -1;
    PipelineDocument &doc = w.document();
    const QString labDir = QFileInfo(doc.filePath()).absolutePath();
    const QString solutionDir = QFileInfo(solutionFile).absolutePath();
    int pushed = 0;
    for (const NodeSpec &want : solution.spec->nodes) {
        const auto have = std::find_if(doc.spec().nodes.begin(), doc.spec().nodes.end(),
                                       [&](const NodeSpec &n) { return n.id == want.id; });
        if (have == doc.spec().nodes.end())
            return -1; // the labs' solutions change params and edges, never the nodes
        const Json current = have->params;
        for (auto it = want.params.begin(); it != want.params.end(); ++it) {
            const bool same = current.contains(it.key())
                              && resolved(it.key(), current[it.key()], labDir)
                                     == resolved(it.key(), it.value(), solutionDir);
            if (!same) {
                doc.undoStack()->push(new SetParamCommand(doc, want.id, it.key(), it.value()));
                ++pushed;
            }
        }
    }
    std::vector<EdgeSpec> gone;
    for (const EdgeSpec &e : doc.spec().edges)
        if (std::find(solution.spec->edges.begin(), solution.spec->edges.end(), e)
            == solution.spec->edges.end())
            gone.push_back(e);
    if (!gone.empty()) {
        doc.undoStack()->push(new RemoveItemsCommand(doc, {}, gone));
        ++pushed;
    }
    for (const EdgeSpec &e : solution.spec->edges)
        if (doc.edgeIndex(e) < 0) {
            doc.undoStack()->push(new ConnectCommand(doc, e));
            ++pushed;
        }
    return pushed;
}

QStringList labNames()
{
    QStringList names;
    for (const Lab &lab : availableLabs())
        names << QFileInfo(lab.dir).fileName();
    return names;
}

} // namespace

class LabsDesignerTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void openLabListsTheLabsInTheFileMenu()
    {
        MainWindow w;
        QAction *open = w.action(QStringLiteral("File.OpenLab"));
        QVERIFY(open);
        QMenu *file = nullptr;
        for (QAction *m : w.menuBar()->actions())
            if (m->menu() && m->menu()->actions().contains(open))
                file = m->menu();
        QVERIFY2(file, "Open Lab… is in a menu");
        const QList<QAction *> items = file->actions();
        QCOMPARE(items.indexOf(open), items.indexOf(w.action(QStringLiteral("File.Open"))) + 1);

        QStringList offered;
        w.labController()->setLabChooser([&](const QList<Lab> &labs) {
            for (const Lab &lab : labs)
                offered << QFileInfo(lab.dir).fileName();
            return labs.first().pipeline;
        });
        QVERIFY(w.labController()->openLabDialog());
        QVERIFY(offered.size() >= 5);
        QCOMPARE(offered, labNames());
        QCOMPARE(offered.first(), QStringLiteral("01-watermark-delay"));
        QVERIFY(w.labController()->lab());
        QCOMPARE(w.document().filePath(),
                 kLabs + QStringLiteral("/01-watermark-delay/pipeline.json"));
        QVERIFY(w.labController()->panel()->title().startsWith(QStringLiteral("Lab 1 ")));

        // Cancelled: nothing changes.
        w.labController()->setLabChooser([](const QList<Lab> &) { return QString(); });
        QVERIFY(!w.labController()->openLabDialog());
        QVERIFY(w.labController()->lab());
    }

    void labsAreNotExamples()
    {
        for (const QString &f : exampleFiles())
            QVERIFY2(!f.contains(QStringLiteral("/labs/")), qPrintable(f));
    }

    void checkFailsThenTheSolutionPasses_data()
    {
        QTest::addColumn<QString>("lab");
        for (const QString &name : labNames())
            QTest::newRow(qPrintable(name)) << name;
    }
    void checkFailsThenTheSolutionPasses()
    {
        QFETCH(QString, lab);
        QTemporaryDir temp;
        const QString dir = temp.filePath(lab);
        QVERIFY(copyPipelineFolder(kLabs + '/' + lab, dir));
        MainWindow w;
        w.setRunConfirmer([](const QString &) { return true; }); // a copy is not "shipped"
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Opened like any pipeline (File › Open): detected as the lab.
        QVERIFY(w.openPath(dir + QStringLiteral("/pipeline.json")));
        LabController *labs = w.labController();
        QVERIFY(labs->lab());
        QCOMPARE(labs->lab()->dir, QDir(dir).absolutePath());
        QVERIFY(labs->dock()->isVisible());
        QCOMPARE(w.dockWidgetArea(labs->dock()), Qt::LeftDockWidgetArea);
        QTRY_VERIFY(!labs->dock()->visibleRegion().isEmpty()); // in front of the palette
        const QString task = labs->panel()->taskView()->toPlainText();
        QVERIFY2(task.contains(QStringLiteral("Your task")), qPrintable(task));
        QVERIFY(task.contains(QStringLiteral("Concept:")));
        QVERIFY(!task.contains(QStringLiteral("**"))); // rendered, not shown as Markdown
        QCOMPARE(labs->panel()->verdict(), LabPanel::Verdict::NotChecked);
        QCOMPARE(w.checkController()->expectedDir(),
                 QDir(dir).filePath(QStringLiteral("expected")));

        QCOMPARE(pressCheck(w), LabPanel::Verdict::Failed);
        QVERIFY2(labs->panel()->verdictText().contains(QStringLiteral("differ")),
                 qPrintable(labs->panel()->verdictText()));
        const widgets::CheckReport failed = w.checkController()->panel()->report();
        QVERIFY(!failed.passed);
        QVERIFY(std::any_of(failed.sinks.begin(), failed.sinks.end(), [](const auto &s) {
            return s.status == widgets::SinkCheckStatus::Fail && !s.findings.isEmpty();
        }));
        QVERIFY(w.checkController()->dock()->isVisible()); // the diff, below the canvas

        QVERIFY(applySolution(w, dir + QStringLiteral("/solution/pipeline.json")) > 0);
        QCOMPARE(w.document().errorCount(), 0);
        const LabPanel::Verdict solved = pressCheck(w);
        QVERIFY2(solved == LabPanel::Verdict::Passed,
                 qPrintable(labs->panel()->verdictText() + '\n'
                            + w.checkController()->panel()->summaryText()));
        QVERIFY(w.checkController()->panel()->report().passed);
        QVERIFY(labs->panel()->verdictText().contains(QStringLiteral("Solved")));

        // Undone, the lab fails again: the check reads the document, not the file.
        while (w.document().undoStack()->canUndo())
            w.document().undoStack()->undo();
        QCOMPARE(pressCheck(w), LabPanel::Verdict::Failed);
    }

    void otherPipelinesLeaveLabMode()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(w.labController()->openLab(kLabs + QStringLiteral("/03-allowed-lateness")));
        QVERIFY(w.labController()->dock()->isVisible());
        QVERIFY(w.openPath(kLabs + QStringLiteral("/03-allowed-lateness/solution/pipeline.json")));
        QVERIFY(!w.labController()->lab());
        QVERIFY(!w.labController()->dock()->isVisible());
        QVERIFY(w.labController()->openLab(kLabs + QStringLiteral("/03-allowed-lateness")));
        QVERIFY(w.openPath(
            QStringLiteral(TIDELINE_SOURCE_DIR "/pipelines/sessions-late-data/pipeline.json")));
        QVERIFY(!w.labController()->lab());
        QVERIFY(!w.labController()->dock()->isVisible());
        QVERIFY(!w.labController()->openLab(
            QStringLiteral(TIDELINE_SOURCE_DIR "/pipelines/sessions-late-data")));
    }
};

QTEST_MAIN(LabsDesignerTest)
#include "test_labs_designer.moc"
