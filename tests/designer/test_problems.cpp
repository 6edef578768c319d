// A pipeline with errors lists them live in the problems panel; clicking one selects the node
// and focuses the field; fixing it in the inspector clears it.

#include "designer_test_support.hpp"
#include "problems/problems_panel.hpp"

#include <QComboBox>
#include <QTreeWidget>
#include <QtTest>

using namespace tideline;
using namespace tideline::designer;
using namespace tideline::designer::test;

class ProblemsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void errorIsListedAndClickSelectsNodeAndFocusesField()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QApplication::setActiveWindow(&w);
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QString error;
        QVERIFY(w.document().openText(R"({"format":"tideline/1","name":"bad","nodes":[
            {"id":"gen","kind":"source.generator","params":{"count":10},"ui":{"x":0,"y":0}},
            {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":0},"ui":{"x":300,"y":0}},
            {"id":"per_user","kind":"window","params":{"type":"tumbling","size_ms":-5,"aggregates":[{"op":"count"}]},"ui":{"x":600,"y":0}},
            {"id":"out","kind":"sink.console","params":{},"ui":{"x":900,"y":0}}],
            "edges":[{"from":"gen.out","to":"wm.in"},{"from":"wm.out","to":"per_user.in"},{"from":"per_user.out","to":"out.in"}]})",
                                      QString(), &error));
        auto *panel = w.problemsPanel();
        QVERIFY(panel->errorCount() >= 1);
        int row = -1;
        const auto problems = panel->problems();
        for (int i = 0; i < problems.size(); ++i)
            if (problems[i].nodeId == "per_user" && problems[i].param == "size_ms")
                row = i;
        QVERIFY2(row >= 0, "size_ms error listed for per_user");
        QVERIFY(problems[row].error);
        QCOMPARE(w.scene()->nodeItem("per_user")->visual().badge, widgets::NodeBadge::Error);

        QTreeWidget *list = panel->list();
        QTreeWidgetItem *item = list->topLevelItem(row);
        list->scrollToItem(item);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualItemRect(item).center());
        QCOMPARE(w.scene()->selectedNodeIds(), QStringList{"per_user"});
        QCOMPARE(w.inspector()->nodeId(), QStringLiteral("per_user"));
        auto *sizeEditor = w.inspector()->form()->editor("size_ms");
        QVERIFY(sizeEditor->isMarkedInvalid());
        QVERIFY(!sizeEditor->shownProblem().isEmpty());
        QCOMPARE(QApplication::focusWidget(), sizeEditor->editorWidget());

        // Fix it in the inspector: the problem goes away live, and so does the badge.
        typeInto(lineField(w, "size_ms"), "60000");
        for (const auto &p : panel->problems())
            QVERIFY(!(p.nodeId == "per_user" && p.param == "size_ms"));
        QVERIFY(!sizeEditor->isMarkedInvalid());
        QVERIFY(w.scene()->nodeItem("per_user")->visual().badge != widgets::NodeBadge::Error);

        // Deleting the watermark makes the window invalid again (needs event time).
        w.scene()->selectNodes({"wm"});
        w.action("Edit.Delete")->trigger();
        bool needsTime = false;
        for (const auto &p : panel->problems())
            needsTime = needsTime || (p.nodeId == "per_user" && p.error);
        QVERIFY(needsTime);
    }

    void problemsNameTheParamAndComeAllAtOnce()
    {
        // A pipeline built from scratch, node by node, the way a new user does.
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        w.addNode(QStringLiteral("source.file"), QPointF(0, 0));
        w.addNode(QStringLiteral("watermark"), QPointF(300, 0));
        w.addNode(QStringLiteral("window"), QPointF(600, 0));
        auto *panel = w.problemsPanel();
        auto messageFor = [&](const QString &node, const QString &param) {
            for (const auto &p : panel->problems())
                if (p.nodeId == node && p.param == param)
                    return p.message;
            return QString();
        };
        // Named by the param, with what to do: not by the param's help text.
        const QString timeField
            = messageFor(QStringLiteral("watermark"), QStringLiteral("time_field"));
        QVERIFY2(timeField.contains(QStringLiteral("`time_field`"))
                     && timeField.contains(QStringLiteral("set it")),
                 qPrintable(timeField));
        QVERIFY2(!timeField.contains(QStringLiteral("(Field holding")), qPrintable(timeField));
        const QString path = messageFor(QStringLiteral("file_source"), QStringLiteral("path"));
        QVERIFY2(path.contains(QStringLiteral("`path`"))
                     && path.contains(QStringLiteral("file path")),
                 qPrintable(path));
        // The user picks "tumbling" in the inspector: a window without aggregates is also told
        // it needs size_ms, both at once, not the second only after the first is fixed.
        w.scene()->selectNodes({QStringLiteral("window")});
        auto *type
            = qobject_cast<QComboBox *>(w.inspector()->form()->editor("type")->editorWidget());
        QVERIFY(type);
        type->setCurrentIndex(type->findData(QStringLiteral("tumbling")));
        Q_EMIT type->activated(type->currentIndex());
        QCOMPARE(paramText(w, "window", "type"), QStringLiteral("\"tumbling\""));
        const QString aggregates
            = messageFor(QStringLiteral("window"), QStringLiteral("aggregates"));
        const QString size = messageFor(QStringLiteral("window"), QStringLiteral("size_ms"));
        QVERIFY2(!aggregates.isEmpty(), "aggregates listed");
        QVERIFY2(size.contains(QStringLiteral("tumbling")), qPrintable(size));
        // ... and the inspector marks both fields.
        w.scene()->selectNodes({QStringLiteral("window")});
        QVERIFY(w.inspector()->form()->editor("size_ms")->isMarkedInvalid());
        QVERIFY(w.inspector()->form()->editor("aggregates")->isMarkedInvalid());
    }
};

QTEST_MAIN(ProblemsTest)
#include "test_problems.moc"
