// designer.postgres: the sink.postgres inspector's "Test connection" and the output preview's
// read-back of the table, in the real designer window against a real PostgreSQL 15.

#include "engine_bridge.hpp"
#include "graph/graph_scene.hpp"
#include "live/output_preview.hpp"
#include "live_views.hpp"
#include "main_window.hpp"
#include "pg_server.hpp"
#include "pipeline_document.hpp"
#include "postgres_inspector.hpp"

#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace tideline::designer;
using namespace tideline::pgtest;
namespace L = tideline::live;
using State = live::EngineBridge::State;

namespace {

QString pipeline(const std::string &conninfo)
{
    return QString::fromStdString(
        "{\"format\":\"tideline/1\",\"name\":\"pg-designer\",\"nodes\":["
        "{\"id\":\"g\",\"kind\":\"source.generator\",\"params\":{\"count\":500,\"keys\":7,"
        "\"seed\":2},\"ui\":{\"x\":0,\"y\":0}},"
        "{\"id\":\"out\",\"kind\":\"sink.postgres\",\"params\":{\"conninfo\":\""
        + conninfo
        + "\",\"table\":\"designer_rows\",\"key\":[\"user_id\"],\"create_table\":true,"
          "\"columns\":[{\"field\":\"user_id\",\"type\":\"bigint\"},"
          "{\"field\":\"value\",\"type\":\"bigint\"}]},\"ui\":{\"x\":300,\"y\":0}}],"
          "\"edges\":[{\"from\":\"g.out\",\"to\":\"out.in\"}]}");
}

} // namespace

class TestPostgresDesigner : public QObject
{
    Q_OBJECT
    Server m_pg;
    std::string m_skip;

private Q_SLOTS:
    void initTestCase()
    {
        m_skip = unavailable();
        if (!m_skip.empty())
            return;
        std::string err = m_pg.start();
        QVERIFY2(err.empty(), err.c_str());
    }
    void cleanupTestCase() { m_pg.stop(); }

    void testConnectionAndReadBack()
    {
        if (!m_skip.empty())
            QSKIP(m_skip.c_str());
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("pg.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(pipeline(m_pg.conninfo()).toUtf8());
        }
        MainWindow w;
        auto *liveViews = installLiveViews(w);
        w.resize(1400, 900);
        w.show();
        QVERIFY(w.openPath(path));
        QCOMPARE(w.document().errorCount(), 0);
        w.scene()->selectNodes({QStringLiteral("out")});
        auto *pg = liveViews->postgresInspector();
        QVERIFY(pg->section()->isVisibleTo(&w));
        pg->testButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!pg->busy(), 20000);
        const QString before = pg->resultLabel()->text();
        QVERIFY2(before.startsWith(QStringLiteral("✓")), qPrintable(before));
        QVERIFY2(before.contains(QStringLiteral("PostgreSQL 15"))
                     && before.contains(QStringLiteral("does not exist (the sink creates it")),
                 qPrintable(before));
        QVERIFY(!before.contains(QString::fromLatin1(kPassword)));

        // A run fills the table; the preview's table place reads it back.
        QString error;
        QVERIFY2(liveViews->startRun(false, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT((liveViews->onFrame(), liveViews->bridge()->state()),
                                  State::Finished, 30000);
        auto *preview = liveViews->preview();
        preview->setCurrentKey(L::OutputPreview::tableKey(QStringLiteral("out")));
        QCOMPARE(preview->currentKey(), QStringLiteral("table:out"));
        QTRY_VERIFY_WITH_TIMEOUT(preview->table()->rowCount() == 7, 20000);
        QString status;
        for (auto *l : preview->findChildren<QLabel *>())
            if (l->text().startsWith(QStringLiteral("Read back")))
                status = l->text();
        QVERIFY2(status.contains(QStringLiteral("7 newest rows of designer_rows")),
                 qPrintable(status));
        QVERIFY(!status.contains(QString::fromLatin1(kPassword)));
        QCOMPARE(QString::fromStdString(m_pg.sql("SELECT count(*) FROM designer_rows")).trimmed(),
                 QStringLiteral("7"));

        // Now the table exists; a wrong port says so without the password.
        pg->testButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!pg->busy(), 20000);
        QVERIFY2(pg->resultLabel()->text().contains(
                     QStringLiteral("designer_rows has 2 columns, 7 rows")),
                 qPrintable(pg->resultLabel()->text()));
        const std::string down = "host=127.0.0.1 port=" + std::to_string(freePort())
                                 + " dbname=tideline user=tideline password=${env:TL_PG_PASSWORD}";
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(pipeline(down).toUtf8());
        f.close();
        QVERIFY(w.openPath(path));
        w.scene()->selectNodes({QStringLiteral("out")});
        pg->testButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!pg->busy(), 20000);
        const QString failed = pg->resultLabel()->text();
        QVERIFY2(failed.startsWith(QStringLiteral("✗"))
                     && failed.contains(QStringLiteral("cannot connect"))
                     && !failed.contains(QStringLiteral("password")),
                 qPrintable(failed));
    }
};

QTEST_MAIN(TestPostgresDesigner)
#include "test_postgres_designer.moc"
