// Builds a pipeline the way a user does (palette drops and double-clicks, port-to-port drags,
// typing into the inspector), then undoes everything back to empty and redoes it to the
// byte-identical file.

#include "designer_test_support.hpp"
#include "inspect/enum_field_editor.hpp"
#include "inspect/object_list_field_editor.hpp"

#include <QComboBox>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QToolBar>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>

using namespace tideline;
using namespace tideline::designer;
using namespace tideline::designer::test;

class EditingTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void buildByMouseThenUndoRedoToIdenticalJson()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto &doc = w.document();
        const std::string empty = doc.toJson();
        auto *view = w.view();
        view->setZoom(0.6);
        view->centerOn(QPointF(550, 200));

        // Palette -> canvas (drag and drop) for the source.
        dropKind(view, QStringLiteral("source.generator"), viewPos(view, QPointF(100, 100)));
        QCOMPARE(doc.spec().nodes.size(), std::size_t(1));
        QCOMPARE(doc.spec().nodes[0].id, std::string("generator_source"));
        QCOMPARE(doc.spec().nodes[0].params["count"].get<int>(), 1000); // catalog default

        // Palette double-click for the watermark (lands at the view centre).
        auto *tree = w.palette()->tree();
        auto *item = w.palette()->itemForKind(QStringLiteral("watermark"));
        QVERIFY(item);
        tree->scrollToItem(item);
        // The event sequence a window system delivers: press, release, press, double-click,
        // release (QTest::mouseDClick skips the second press, which item views rely on).
        const QPoint at = tree->visualItemRect(item).center();
        for (auto type :
             {QEvent::MouseButtonPress, QEvent::MouseButtonRelease, QEvent::MouseButtonPress,
              QEvent::MouseButtonDblClick, QEvent::MouseButtonRelease})
            sendMouse(tree->viewport(), type, at, Qt::LeftButton,
                      type == QEvent::MouseButtonRelease ? Qt::NoButton : Qt::LeftButton);
        QCOMPARE(doc.spec().nodes.size(), std::size_t(2));
        QCOMPARE(doc.spec().nodes[1].kind, std::string("watermark"));

        // Search narrows the palette; Enter adds the first match.
        w.palette()->setFilter(QStringLiteral("window"));
        QVERIFY(!w.palette()->itemForKind(QStringLiteral("window"))->isHidden());
        QVERIFY(w.palette()->itemForKind(QStringLiteral("filter"))->isHidden());
        w.palette()->setFilter(QString());
        dropKind(view, QStringLiteral("window"), viewPos(view, QPointF(700, 100)));
        dropKind(view, QStringLiteral("sink.file"), viewPos(view, QPointF(1000, 100)));
        QCOMPARE(doc.spec().nodes.size(), std::size_t(4));

        // Move the watermark where we want it: one drag is one undo entry (merged moves).
        const int before = doc.undoStack()->count();
        auto *wm = w.scene()->nodeItem(QStringLiteral("watermark"));
        QVERIFY(wm);
        const QPointF grab = wm->mapToScene(QPointF(60, 14));
        dragOnCanvas(view, grab, grab + QPointF(340 - wm->pos().x(), 100 - wm->pos().y()), 12);
        QCOMPARE(doc.undoStack()->count(), before + 1);
        QCOMPARE(doc.spec().node("watermark")->ui["x"].get<int>() % 20, 0); // snapped to grid
        QVERIFY(std::abs(doc.spec().node("watermark")->ui["x"].get<int>() - 340) <= 20);

        // Port -> port drags.
        connectByMouse(w, "generator_source", "out", "watermark", "in");
        connectByMouse(w, "watermark", "out", "window", "in");
        connectByMouse(w, "window", "out", "file_sink", "in");
        QCOMPARE(doc.spec().edges.size(), std::size_t(3));
        QCOMPARE(doc.spec().edges[0].from.str(), std::string("generator_source.out"));
        QCOMPARE(doc.spec().edges[0].to.str(), std::string("watermark.in"));
        QCOMPARE(doc.spec().edges[2].to.str(), std::string("file_sink.in"));

        // Inspector: generated fields, typed values.
        selectByMouse(w, "watermark");
        QCOMPARE(w.inspector()->nodeId(), QStringLiteral("watermark"));
        typeInto(lineField(w, "time_field"), "event_time");
        typeInto(lineField(w, "max_out_of_orderness_ms"), "5000");
        QCOMPARE(paramText(w, "watermark", "time_field"), QStringLiteral("\"event_time\""));
        QCOMPARE(paramText(w, "watermark", "max_out_of_orderness_ms"), QStringLiteral("5000"));

        selectByMouse(w, "window");
        auto *typeEditor = w.inspector()->form()->editor("type");
        QVERIFY(typeEditor);
        auto *combo = qobject_cast<QComboBox *>(typeEditor->editorWidget());
        QVERIFY(combo);
        const int tumbling = combo->findText("tumbling");
        QVERIFY(tumbling >= 0);
        combo->setCurrentIndex(tumbling);
        Q_EMIT combo->activated(tumbling); // what a user's pick in the popup emits
        QCOMPARE(paramText(w, "window", "type"), QStringLiteral("\"tumbling\""));
        typeInto(lineField(w, "size_ms"), "60000");
        typeInto(lineField(w, "key"), "user_id");
        QCOMPARE(paramText(w, "window", "key"), QStringLiteral("[\"user_id\"]"));
        auto *aggs = qobject_cast<widgets::ObjectListFieldEditor *>(
            w.inspector()->form()->editor("aggregates"));
        QVERIFY(aggs);
        QTest::mouseClick(aggs->addButton(), Qt::LeftButton);
        QCOMPARE(paramText(w, "window", "aggregates"), QStringLiteral("[{\"op\":\"count\"}]"));
        QCOMPARE(aggs->elementCount(), 1);
        auto *asEdit
            = qobject_cast<QLineEdit *>(aggs->elementForm(0)->editor("as")->editorWidget());
        typeInto(asEdit, "clicks");
        QCOMPARE(paramText(w, "window", "aggregates"),
                 QStringLiteral("[{\"op\":\"count\",\"as\":\"clicks\"}]"));

        selectByMouse(w, "file_sink");
        typeInto(lineField(w, "path"), "out/clicks.jsonl");

        const std::string built = doc.toJson();
        QVERIFY2(doc.errorCount() == 0, built.c_str());
        QVERIFY(doc.isModified());
        QVERIFY(w.isWindowModified());

        // Undo everything back to the empty document...
        const int steps = doc.undoStack()->count();
        QVERIFY(steps >= 15);
        while (doc.undoStack()->canUndo())
            doc.undoStack()->undo();
        QVERIFY(doc.spec().nodes.empty());
        QVERIFY(doc.spec().edges.empty());
        QCOMPARE(doc.toJson(), empty);
        QCOMPARE(w.scene()->items().size(), 0);
        // ...and redo it all to the byte-identical file.
        while (doc.undoStack()->canRedo())
            doc.undoStack()->redo();
        QCOMPARE(doc.toJson(), built);
        QCOMPARE(w.scene()->nodeItem("window")->pos(),
                 QPointF(doc.spec().node("window")->ui["x"].get<double>(),
                         doc.spec().node("window")->ui["y"].get<double>()));
    }

    void invalidValuesAreMarkedWhileTyping()
    {
        MainWindow w;
        w.show();
        const QString id = w.addNode("source.generator", QPointF(0, 0));
        QCOMPARE(w.inspector()->nodeId(), id);
        auto *count = w.inspector()->form()->editor("count");
        auto *edit = lineField(w, "count");
        QVERIFY(edit);
        edit->setFocus();
        edit->selectAll();
        QTest::keyClick(edit, Qt::Key_Backspace);
        QTest::keyClicks(edit, "-5");
        QVERIFY(count->isMarkedInvalid());
        QVERIFY2(count->shownProblem().contains(QStringLiteral("≥ 0")),
                 qPrintable(count->shownProblem()));
        QTest::keyClicks(edit, "x");
        QVERIFY(count->shownProblem().contains(QStringLiteral("whole number")));
        QTest::keyClick(edit, Qt::Key_Backspace);
        QTest::keyClick(edit, Qt::Key_Backspace);
        QTest::keyClick(edit, Qt::Key_Backspace);
        QTest::keyClicks(edit, "250");
        QVERIFY(!count->isMarkedInvalid());

        // Range from the descriptor (late_fraction in [0, 1]) inside a nested object.
        auto *disorder = w.inspector()->form()->editor("disorder");
        QVERIFY(disorder);
        auto *lateEdit = w.inspector()->findChild<QLineEdit *>("field:late_fraction");
        QVERIFY(lateEdit);
        lateEdit->setFocus();
        QTest::keyClicks(lateEdit, "1.5");
        auto *late = qobject_cast<widgets::FieldEditor *>(lateEdit->parentWidget());
        QVERIFY(late && late->isMarkedInvalid());
        QTest::keyClick(lateEdit, Qt::Key_Return);
        // Committed out-of-range values reach the document and the engine reports them.
        QVERIFY(w.document().errorCount() > 0);
        const auto n = w.document().spec().node(id.toStdString());
        QCOMPARE(n->params["disorder"]["late_fraction"].get<double>(), 1.5);
    }

    void renameWarnsAndRewritesEdges()
    {
        MainWindow w;
        w.show();
        QString error;
        QVERIFY2(w.document().openText(R"({"format":"tideline/1","name":"r","nodes":[
            {"id":"src","kind":"source.generator","params":{}},
            {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":0}}],
            "edges":[{"from":"src.out","to":"wm.in"}]})",
                                       QString(), &error),
                 qPrintable(error));
        w.scene()->selectNodes({"wm"});
        auto *idEdit = w.inspector()->idEdit();
        idEdit->setFocus();
        idEdit->selectAll();
        QTest::keyClicks(idEdit, "src");
        QVERIFY(w.inspector()->renameWarning()->isVisible());
        QVERIFY(w.inspector()->renameWarning()->text().contains("already"));
        QTest::keyClick(idEdit, Qt::Key_Return);
        QVERIFY(w.document().spec().node("wm")); // refused: clash
        idEdit->selectAll();
        QTest::keyClicks(idEdit, "assign_time");
        QVERIFY(w.inspector()->renameWarning()->text().contains("will not carry over"));
        QTest::keyClick(idEdit, Qt::Key_Return);
        QVERIFY(w.document().spec().node("assign_time"));
        QCOMPARE(w.document().spec().edges[0].to.str(), std::string("assign_time.in"));
        QVERIFY(w.scene()->nodeItem("assign_time"));
        QCOMPARE(w.scene()->selectedNodeIds(), QStringList{"assign_time"});
        w.document().undoStack()->undo();
        QCOMPARE(w.document().spec().edges[0].to.str(), std::string("wm.in"));
        QVERIFY(w.scene()->nodeItem("wm"));
    }

    void copyPasteDuplicateAndDelete()
    {
        MainWindow w;
        w.show();
        QString error;
        QVERIFY(w.document().openText(R"({"format":"tideline/1","name":"c","nodes":[
            {"id":"src","kind":"source.generator","params":{},"ui":{"x":0,"y":0}},
            {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":0},"ui":{"x":300,"y":0}},
            {"id":"out","kind":"sink.console","params":{},"ui":{"x":600,"y":0}}],
            "edges":[{"from":"src.out","to":"wm.in"},{"from":"wm.out","to":"out.in"}]})",
                                      QString(), &error));
        auto &doc = w.document();
        w.scene()->selectNodes({"src", "wm"});
        w.action("Edit.Copy")->trigger();
        w.action("Edit.Paste")->trigger();
        QCOMPARE(doc.spec().nodes.size(), std::size_t(5));
        QVERIFY(doc.spec().node("src_2") && doc.spec().node("wm_2"));
        QCOMPARE(doc.spec().edges.back().from.str(), std::string("src_2.out"));
        QCOMPARE(doc.spec().edges.back().to.str(), std::string("wm_2.in"));
        QCOMPARE(doc.spec().node("wm_2")->ui["x"].get<int>(), 340);
        QCOMPARE(w.scene()->selectedNodeIds(), (QStringList{"src_2", "wm_2"}));
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Paste 2 node(s)"));

        w.action("Edit.Duplicate")->trigger();
        QVERIFY(doc.spec().node("src_3") && doc.spec().node("wm_3"));
        QCOMPARE(doc.spec().edges.size(), std::size_t(4));

        // Select an edge by clicking on it and delete it; undo puts it back at its index.
        const std::string beforeDelete = doc.toJson();
        w.scene()->clearSelection();
        const QPointF a = portPos(w, "wm", "out", false), b = portPos(w, "out", "in", true);
        clickOnCanvas(w.view(), a + (b - a) * 0.75); // clear of the pasted copies
        QCOMPARE(w.scene()->selectedConnections().size(), 1);
        w.action("Edit.Delete")->trigger();
        QCOMPARE(doc.spec().edges.size(), std::size_t(3));
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Disconnect"));
        doc.undoStack()->undo();
        QCOMPARE(doc.toJson(), beforeDelete);

        // Deleting a node takes its edges; undo restores both exactly.
        w.scene()->selectNodes({"wm"});
        w.action("Edit.Delete")->trigger();
        QVERIFY(!doc.spec().node("wm"));
        QCOMPARE(doc.spec().edges.size(), std::size_t(2));
        doc.undoStack()->undo();
        QCOMPARE(doc.toJson(), beforeDelete);
    }

    void ctrlYRedoesAndToolbarButtonsStayPut()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        auto *tools = w.findChild<QToolBar *>(QStringLiteral("mainToolBar"));
        QVERIFY(tools);
        auto geometries = [&] {
            QList<QRect> out;
            for (QAction *a : tools->actions())
                if (QWidget *b = tools->widgetForAction(a))
                    out << b->geometry();
            return out;
        };
        const QList<QRect> before = geometries();
        w.addNode(QStringLiteral("source.generator"), QPointF(0, 0));
        w.addNode(QStringLiteral("watermark"), QPointF(300, 0));
        QApplication::processEvents();
        // The Undo button's label does not grow with the command's text ("Undo Add …").
        QCOMPARE(geometries(), before);
        auto *undoButton
            = qobject_cast<QToolButton *>(tools->widgetForAction(w.action("Edit.UndoButton")));
        QVERIFY(undoButton);
        QCOMPARE(undoButton->text(), QStringLiteral("Undo"));
        QVERIFY2(undoButton->toolTip().contains(QStringLiteral("watermark")),
                 qPrintable(undoButton->toolTip()));

        auto &doc = w.document();
        const std::string two = doc.toJson();
        undoButton->click();
        QCOMPARE(doc.spec().nodes.size(), std::size_t(1));
        QCOMPARE(geometries(), before);
        // Ctrl+Y redoes (as do Ctrl+Shift+Z and the Redo button).
        w.view()->setFocus();
        QTest::keyClick(w.view(), Qt::Key_Y, Qt::ControlModifier);
        QCOMPARE(doc.toJson(), two);
        QTest::keyClick(w.view(), Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(doc.spec().nodes.size(), std::size_t(1));
        QTest::keyClick(w.view(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(doc.toJson(), two);
    }

    void nodeTitlesReadAtAnyZoom()
    {
        // Zoomed out (Nexmark q5 fits at about 39 %), nodes keep a title one can read: the
        // compact drawing sizes it for the screen instead of shrinking it with the node.
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QString error;
        QVERIFY(w.document().openText(R"({"format":"tideline/1","name":"z","nodes":[
            {"id":"auction_bids","kind":"source.generator","params":{},"ui":{"x":0,"y":0}}],
            "edges":[]})",
                                      QString(), &error));
        auto *item = w.scene()->nodeItem("auction_bids");
        QVERIFY(item);
        const QRectF source = item->sceneBoundingRect();
        // (At 12 % a node is 22 pixels wide: its title is there, shortened.)
        for (qreal zoom : {0.12, 0.2, 0.3, 0.39, 0.5, 0.7, 1.0}) {
            QVERIFY2(widgets::NodeItem::titlePixels(zoom) >= 12.9,
                     qPrintable(QString::number(zoom)));
            // Render the node at that zoom and count the title's light pixels.
            const QSize size = (source.size() * zoom).toSize() + QSize(2, 2);
            QImage image(size, QImage::Format_RGB32);
            image.fill(Qt::black);
            {
                QPainter p(&image);
                w.scene()->render(&p, QRectF(QPointF(0, 0), source.size() * zoom), source);
            }
            int light = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    light += qGray(image.pixel(x, y)) > 200;
            QVERIFY2(light >= (zoom < 0.15 ? 5 : 20),
                     qPrintable(QStringLiteral("zoom %1: %2 light pixels").arg(zoom).arg(light)));
        }
    }

    void windowInspectorShowsItsTypesParamsAndPathsHaveAPicker()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QString error;
        QVERIFY(w.document().openText(R"({"format":"tideline/1","name":"i","nodes":[
            {"id":"src","kind":"source.file","params":{"path":"in.jsonl"},"ui":{"x":0,"y":0}},
            {"id":"win","kind":"window","params":{"aggregates":[{"op":"count"}]},"ui":{"x":300,"y":0}}],
            "edges":[]})",
                                      QString(), &error));
        QVERIFY(w.savePath(dir.filePath("p.json")));
        w.scene()->selectNodes({"win"});
        auto shown = [&](const char *field) {
            auto *e = w.inspector()->form()->editor(field);
            return e && !e->isHidden();
        };
        QVERIFY(!shown("size_ms") && !shown("slide_ms") && !shown("gap_ms"));
        auto *type
            = qobject_cast<QComboBox *>(w.inspector()->form()->editor("type")->editorWidget());
        auto pick = [&](const char *t) {
            type->setCurrentIndex(type->findData(QString::fromLatin1(t)));
            Q_EMIT type->activated(type->currentIndex());
        };
        pick("session");
        QVERIFY(shown("gap_ms") && !shown("size_ms") && !shown("slide_ms"));
        pick("sliding");
        QVERIFY(shown("size_ms") && shown("slide_ms") && !shown("gap_ms"));
        pick("tumbling");
        QVERIFY(shown("size_ms") && !shown("slide_ms") && !shown("gap_ms"));
        // A param the type ignores but the file sets stays visible, to be seen and removed.
        QVERIFY(w.document().openText(R"({"format":"tideline/1","name":"i","nodes":[
            {"id":"win","kind":"window","params":{"type":"tumbling","size_ms":1000,"gap_ms":5,
             "aggregates":[{"op":"count"}]},"ui":{"x":300,"y":0}}],"edges":[]})",
                                      dir.filePath("p.json"), &error));
        w.scene()->selectNodes({"win"});
        QVERIFY(shown("gap_ms") && !shown("slide_ms"));

        // Paths: Browse… picks a file; inside the pipeline's folder it becomes relative.
        QVERIFY(w.document().openText(R"({"format":"tideline/1","name":"i","nodes":[
            {"id":"src","kind":"source.file","params":{"path":"in.jsonl"},"ui":{"x":0,"y":0}}],"edges":[]})",
                                      dir.filePath("p.json"), &error));
        QStringList asked;
        w.setPathChooser([&](const QString &start, bool save, bool folder) {
            asked << start << (save ? "save" : "open") << (folder ? "folder" : "file");
            return dir.filePath("data/clicks.jsonl");
        });
        w.scene()->selectNodes({"src"});
        auto *browse = w.inspector()->findChild<QToolButton *>(QStringLiteral("browse:path"));
        QVERIFY(browse);
        browse->click();
        QCOMPARE(asked.value(0), dir.filePath("in.jsonl"));
        QCOMPARE(asked.value(1), QStringLiteral("open"));
        QCOMPARE(paramText(w, "src", "path"), QStringLiteral("\"data/clicks.jsonl\""));
        w.setPathChooser(
            [](const QString &, bool, bool) { return QStringLiteral("/srv/in/x.jsonl"); });
        browse->click();
        QCOMPARE(paramText(w, "src", "path"), QStringLiteral("\"/srv/in/x.jsonl\""));
    }
};

QTEST_MAIN(EditingTest)
#include "test_editing.moc"
