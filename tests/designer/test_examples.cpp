// Every example pipeline shipped in pipelines/ opens in the designer without error
// diagnostics, and the Help > Examples menu offers it (the labs' pipelines open too, but are
// not offered: pipelines/labs/).

#include "designer_test_support.hpp"
#include "examples.hpp"

#include <QDirIterator>
#include <QFile>
#include <QMenuBar>
#include <QtTest>

using namespace tideline;
using namespace tideline::designer;

class ExamplesTest : public QObject
{
    Q_OBJECT

    static QStringList pipelineFiles()
    {
        QStringList files;
        QDirIterator it(QStringLiteral(TIDELINE_PIPELINES_DIR), {QStringLiteral("*.json")},
                        QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString f = it.next();
            QFile file(f);
            // Data files (tables, inputs) may sit next to the pipelines: only pipeline files.
            if (file.open(QIODevice::ReadOnly) && file.read(4096).contains("\"tideline/1\""))
                files << f;
        }
        files.sort();
        return files;
    }

private Q_SLOTS:
    void everyExampleOpensWithoutErrors_data()
    {
        QTest::addColumn<QString>("path");
        const QStringList files = pipelineFiles();
        for (const auto &f : files)
            QTest::newRow(qPrintable(QDir(TIDELINE_PIPELINES_DIR).relativeFilePath(f))) << f;
    }

    void everyExampleOpensWithoutErrors()
    {
        QFETCH(QString, path);
        MainWindow w;
        QVERIFY(w.openPath(path));
        QStringList errors;
        for (const auto &d : w.document().diagnostics())
            if (d.isError())
                errors << QString::fromStdString(d.format());
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        QCOMPARE(w.scene()->model().nodeIds().size(), qsizetype(w.document().spec().nodes.size()));
        for (const auto &id : w.scene()->model().nodeIds())
            QVERIFY(w.scene()->nodeItem(id));
        QCOMPARE(qsizetype(w.document().spec().edges.size()),
                 w.scene()->model().connections().size());
    }

    void thereAreExamplesAndTheMenuListsThem()
    {
        const QStringList files = pipelineFiles();
        QVERIFY2(!files.isEmpty(), "pipelines/ holds at least one example");
        const QStringList offered = exampleFiles();
        // A lab's starting pipeline is wrong on purpose and its solution is for the tests:
        // labs are opened with File > Open Lab... (tests/labs), never offered as examples.
        const QString labs = QStringLiteral(TIDELINE_PIPELINES_DIR "/labs/");
        for (const auto &f : files)
            QVERIFY2(offered.contains(f) != f.startsWith(labs), qPrintable(f));
    }
};

QTEST_MAIN(ExamplesTest)
#include "test_examples.moc"
