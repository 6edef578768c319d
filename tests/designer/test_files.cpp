// Files: save/load round trip through the engine's writer, layout of files without `ui`,
// the modified flag, recent files, and "Export for server" with secrets as ${env:...}.

#include "auto_layout.hpp"
#include "designer_test_support.hpp"
#include "export_dialog.hpp"
#include "recent_files.hpp"
#include "secrets.hpp"

#include <QClipboard>
#include <QFile>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

using namespace tideline;
using namespace tideline::designer;
using namespace tideline::designer::test;

namespace {

const char *kNoLayout = R"({"format":"tideline/1","name":"nolayout","nodes":[
  {"id":"sink","kind":"sink.console","params":{}},
  {"id":"win","kind":"window","params":{"type":"tumbling","size_ms":1000,"aggregates":[{"op":"count","as":"n"}]}},
  {"id":"gen","kind":"source.generator","params":{"count":10}},
  {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":0}},
  {"id":"late_out","kind":"sink.console","params":{}}],
 "edges":[{"from":"gen.out","to":"wm.in"},{"from":"wm.out","to":"win.in"},{"from":"win.out","to":"sink.in"},
          {"from":"win.late","to":"late_out.in"}]})";

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class FilesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void fileWithoutLayoutIsLaidOutLeftToRight()
    {
        PipelineDocument doc;
        QString error;
        QVERIFY2(doc.openText(kNoLayout, QString(), &error), qPrintable(error));
        auto x = [&](const char *id) {
            return doc.spec().node(id)->ui["x"].get<int>();
        };
        auto y = [&](const char *id) {
            return doc.spec().node(id)->ui["y"].get<int>();
        };
        QVERIFY(x("gen") < x("wm"));
        QVERIFY(x("wm") < x("win"));
        QVERIFY(x("win") < x("sink"));
        QCOMPARE(x("sink"), x("late_out")); // same depth, same column
        QVERIFY(y("sink") != y("late_out"));
        QVERIFY(!doc.isModified()); // layout on open is not an edit
    }

    void saveLoadRoundTrip()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("p.json");
        MainWindow w;
        QString error;
        QVERIFY(w.document().openText(kNoLayout, QString(), &error));
        w.addNode("filter", QPointF(500, 500));
        QVERIFY(w.document().isModified());
        QVERIFY(w.savePath(path));
        QVERIFY(!w.document().isModified());
        QCOMPARE(w.document().filePath(), QFileInfo(path).absoluteFilePath());
        const QByteArray saved = readAll(path);
        QCOMPARE(saved.toStdString(), w.document().toJson());
        QCOMPARE(RecentFiles::list().value(0), QFileInfo(path).absoluteFilePath());

        MainWindow w2;
        QVERIFY(w2.openPath(path));
        QVERIFY(w2.document().spec() == w.document().spec());
        QCOMPARE(w2.document().toJson(), saved.toStdString());
        QCOMPARE(w2.scene()->nodeItem("filter")->pos(),
                 QPointF(w.document().spec().node("filter")->ui["x"].get<double>(),
                         w.document().spec().node("filter")->ui["y"].get<double>()));
        // Saving again without edits writes the same bytes.
        QVERIFY(w2.savePath(path));
        QCOMPARE(readAll(path), saved);
    }

    void brokenFileIsReportedNotOpened()
    {
        PipelineDocument doc;
        QString error;
        QVERIFY(!doc.openText("{ not json", "broken.json", &error));
        QVERIFY(error.contains("broken.json"));
        QVERIFY(doc.spec().nodes.empty());
    }

    void exportReplacesLiteralSecrets()
    {
        PipelineDocument doc;
        QString error;
        QVERIFY2(doc.openText(R"({"format":"tideline/1","name":"k","nodes":[
            {"id":"orders","kind":"source.kafka","params":{"bootstrap_servers":"b:9092","topic":"t",
              "properties":{"sasl.password":"hunter2","client.id":"designer","ssl.key.password":"${env:KEYPW}"}}},
            {"id":"out","kind":"sink.console","params":{}}],
            "edges":[{"from":"orders.out","to":"out.in"}]})",
                              QString(), &error),
                 qPrintable(error));
        const auto findings = findLiteralSecrets(doc.spec());
        QCOMPARE(findings.size(), std::size_t(1));
        QCOMPARE(findings[0].key, std::string("sasl.password"));
        QCOMPARE(findings[0].envName, std::string("ORDERS_SASL_PASSWORD"));
        QVERIFY(looksLikeSecretName("sasl.oauthbearer.client.secret"));
        QVERIFY(!looksLikeSecretName("client.id"));

        QTemporaryDir dir;
        const QString path = dir.filePath("server.json");
        // Refused while a literal remains.
        QVERIFY(!exportForServer(doc.spec(), {}, path, &error));
        QVERIFY(error.contains("orders.properties[sasl.password]"));
        QVERIFY(!QFile::exists(path));

        // Through the dialog: replace and export, then the command is shown.
        ExportDialog dialog(doc.spec(), path);
        dialog.exportButton()->click();
        QCOMPARE(dialog.exportedPath(), path);
        QCOMPARE(dialog.command(), runCommand(path));
        QVERIFY(dialog.command().startsWith("tideline-run /"));
        const QByteArray out = readAll(path);
        QVERIFY(!out.contains("hunter2"));
        QVERIFY(out.contains("${env:ORDERS_SASL_PASSWORD}"));
        QVERIFY(out.contains("${env:KEYPW}"));
        auto *result = dialog.findChild<QPlainTextEdit *>("exportCommand");
        QVERIFY(result && result->toPlainText().contains("export ORDERS_SASL_PASSWORD="));
        // The exported file is a valid pipeline for the engine's loader, and the document
        // itself was not changed.
        QVERIFY(loadSpec(out.toStdString()).spec.has_value());
        QVERIFY(doc.toJson().find("hunter2") != std::string::npos);

        QCOMPARE(runCommand("/srv/my pipes/a.json"),
                 QStringLiteral("tideline-run '/srv/my pipes/a.json'"));
    }

    void saveAndCopyNeverWriteLiteralSecrets()
    {
        MainWindow w;
        QString error;
        QVERIFY(w.document().openText(R"({"format":"tideline/1","name":"k","nodes":[
            {"id":"a-b","kind":"source.kafka","params":{"bootstrap_servers":"b:9092","topic":"t",
              "properties":{"sasl.password":"hunter2"}}},
            {"id":"a_b","kind":"source.kafka","params":{"bootstrap_servers":"b:9092","topic":"u",
              "properties":{"sasl.password":"swordfish"}}},
            {"id":"out","kind":"sink.console","params":{}}],
            "edges":[{"from":"a-b.out","to":"out.in"}]})",
                                      QString(), &error));
        // `a-b` and `a_b` upper-case alike: each secret still gets its own variable.
        const auto findings = findLiteralSecrets(w.document().spec());
        QCOMPARE(findings.size(), std::size_t(2));
        QVERIFY(findings[0].envName != findings[1].envName);

        // Copy: the clipboard carries references.
        w.scene()->selectNodes({"a-b"});
        w.action("Edit.Copy")->trigger();
        const QString copied = QApplication::clipboard()->text();
        QVERIFY2(!copied.contains("hunter2") && copied.contains("${env:A_B_SASL_PASSWORD}"),
                 qPrintable(copied));

        // Save: references in the file and in the document, one undoable step.
        QTemporaryDir dir;
        const QString path = dir.filePath("k.json");
        QVERIFY(w.savePath(path));
        const QByteArray saved = readAll(path);
        QVERIFY(!saved.contains("hunter2") && !saved.contains("swordfish"));
        QVERIFY(saved.contains("${env:A_B_SASL_PASSWORD}"));
        QVERIFY(saved.contains("${env:A_B_SASL_PASSWORD_2}"));
        QVERIFY(w.document().toJson().find("hunter2") == std::string::npos);
        QVERIFY(w.statusBar()->currentMessage().contains("A_B_SASL_PASSWORD"));
        w.document().undoStack()->undo();
        QVERIFY(w.document().toJson().find("hunter2") != std::string::npos);
    }

    void titleFollowsSaveAs()
    {
        MainWindow w;
        w.show();
        w.addNode(QStringLiteral("source.generator"), QPointF(0, 0));
        QVERIFY(w.windowTitle().contains("untitled"));
        QTemporaryDir dir;
        const QString path = dir.filePath("clicks.json");
        w.setFileChooser([&](bool, const QString &) { return path; });
        w.action("File.SaveAs")->trigger();
        QVERIFY(QFile::exists(path));
        QVERIFY2(w.windowTitle().startsWith("clicks.json"), qPrintable(w.windowTitle()));
        QVERIFY(!w.windowTitle().contains("untitled"));
        QVERIFY(!w.isWindowModified());
        // ... and so does the pipeline's name (it was "untitled" in the file).
        QCOMPARE(w.document().spec().name, std::string("clicks"));
        QVERIFY(readAll(path).contains("\"name\": \"clicks\""));
    }
};

QTEST_MAIN(FilesTest)
#include "test_files.moc"
