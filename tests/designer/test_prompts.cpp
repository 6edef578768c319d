// The unsaved-changes prompt on close, open and new (Save / Discard / Cancel, answered like a
// user by clicking the real message box's buttons; the file picker that may follow is answered
// through MainWindow::setFileChooser), and Auto Layout (one undoable step, no
// overlapping nodes).

#include "designer_test_support.hpp"

#include <QAction>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <functional>

using namespace tideline;
using namespace tideline::designer;
using namespace tideline::designer::test;

namespace {

const char *kPipeline = R"({"format":"tideline/1","name":"p","nodes":[
  {"id":"gen","kind":"source.generator","params":{"count":10},"ui":{"x":0,"y":0}},
  {"id":"wm","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":0},"ui":{"x":0,"y":0}},
  {"id":"win","kind":"window","params":{"type":"tumbling","size_ms":1000,"aggregates":[{"op":"count","as":"n"}]},"ui":{"x":10,"y":10}},
  {"id":"out","kind":"sink.console","params":{},"ui":{"x":20,"y":0}},
  {"id":"late","kind":"sink.console","params":{},"ui":{"x":20,"y":20}},
  {"id":"spare","kind":"sink.console","params":{},"ui":{"x":0,"y":20}}],
 "edges":[{"from":"gen.out","to":"wm.in"},{"from":"wm.out","to":"win.in"},
          {"from":"win.out","to":"out.in"},{"from":"win.late","to":"late.in"}]})";

/// Answers the modal dialogs that will appear, in order, like a user. Each step is called with
/// the active modal widget on every tick until it returns true (done with that dialog); a step
/// that meets the wrong kind of dialog records "unexpected" and gives up on it.
class ModalScript : public QObject
{
public:
    using Step = std::function<bool(QWidget *, QStringList &)>;
    explicit ModalScript(QList<Step> steps)
        : m_steps(std::move(steps))
    {
        m_timer.setInterval(10);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            QWidget *modal = QApplication::activeModalWidget();
            if (!modal)
                return;
            if (modal == m_finished) {
                // Answered, yet still the active modal a while later: it was answered while it
                // was being shown, before its exec() loop ran. Answer it again.
                if (++m_stale > 5 && m_last) {
                    m_stale = 0;
                    m_last(modal, seen);
                }
                return;
            }
            if (m_steps.isEmpty())
                return;
            if (modal != m_current) {
                m_current = modal;
                seen << modal->metaObject()->className();
            }
            if (m_steps.front()(modal, seen)) {
                m_last = m_steps.takeFirst();
                m_stale = 0;
                m_finished = modal;
                m_current = nullptr;
            }
        });
        m_timer.start();
    }
    bool done() const { return m_steps.isEmpty(); }
    QStringList seen;

private:
    QList<Step> m_steps;
    QTimer m_timer;
    QPointer<QWidget> m_current;
    QPointer<QWidget> m_finished;
    Step m_last;
    int m_stale = 0;
};

ModalScript::Step clickButton(QMessageBox::StandardButton button, QString *text = nullptr)
{
    return [button, text](QWidget *w, QStringList &seen) {
        auto *box = qobject_cast<QMessageBox *>(w);
        if (!box) {
            seen << QStringLiteral("unexpected");
            return true;
        }
        if (text)
            *text = box->text();
        box->button(button)->click();
        return true;
    };
}

/// Answers the window's file chooser (Open / Save As) with `path` ("" = cancel) and records
/// that it was asked.
void answerFileChooser(MainWindow &w, const QString &path, QStringList *asked)
{
    w.setFileChooser([path, asked](bool save, const QString &) {
        *asked << (save ? QStringLiteral("save as") : QStringLiteral("open"));
        return path;
    });
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// A window on a saved copy of kPipeline with one unsaved edit.
struct Edited
{
    QTemporaryDir dir;
    QString path;
    MainWindow w;
    QByteArray onDisk;
    Edited()
    {
        path = dir.filePath(QStringLiteral("p.json"));
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(kPipeline);
        f.close();
        w.openPath(path);
        w.addNode(QStringLiteral("filter"), QPointF(600, 400));
        onDisk = readAll(path);
    }
};

bool overlaps(MainWindow &w)
{
    const auto ids = w.scene()->model().nodeIds();
    for (int i = 0; i < ids.size(); ++i)
        for (int j = i + 1; j < ids.size(); ++j)
            if (w.scene()->nodeItem(ids[i])->sceneBoundingRect().intersects(
                    w.scene()->nodeItem(ids[j])->sceneBoundingRect()))
                return true;
    return false;
}

} // namespace

class PromptsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void closeCleanDocumentDoesNotAsk()
    {
        Edited e;
        e.w.document().undoStack()->setClean();
        e.w.show();
        ModalScript script({clickButton(QMessageBox::Cancel)});
        QVERIFY(e.w.close());
        QVERIFY(script.seen.isEmpty());
    }

    void closeCancelKeepsTheWindow()
    {
        Edited e;
        e.w.show();
        QString text;
        ModalScript script({clickButton(QMessageBox::Cancel, &text)});
        QVERIFY(!e.w.close());
        QVERIFY(script.done());
        QVERIFY(text.contains(QStringLiteral("p.json has unsaved changes")));
        QVERIFY(e.w.isVisible());
        QVERIFY(e.w.document().isModified());
        QCOMPARE(readAll(e.path), e.onDisk);
    }

    void closeDiscardLeavesTheFile()
    {
        Edited e;
        e.w.show();
        ModalScript script({clickButton(QMessageBox::Discard)});
        QVERIFY(e.w.close());
        QVERIFY(script.done());
        QCOMPARE(readAll(e.path), e.onDisk);
    }

    void closeSaveWritesTheFile()
    {
        Edited e;
        e.w.show();
        ModalScript script({clickButton(QMessageBox::Save)});
        QVERIFY(e.w.close());
        QVERIFY(script.done());
        QCOMPARE(readAll(e.path).toStdString(), e.w.document().toJson());
        QVERIFY(readAll(e.path).contains("\"filter\""));
        QVERIFY(!e.w.document().isModified());
    }

    void closeSaveUntitledAsksForAPath()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.addNode(QStringLiteral("filter"), QPointF(0, 0));
        w.show();
        const QString path = dir.filePath(QStringLiteral("new.json"));
        QStringList asked;
        answerFileChooser(w, path, &asked);
        ModalScript script({clickButton(QMessageBox::Save)});
        QVERIFY(w.close());
        QVERIFY(script.done());
        QCOMPARE(script.seen, QStringList{"QMessageBox"});
        QCOMPARE(asked, QStringList{"save as"});
        QCOMPARE(readAll(path).toStdString(), w.document().toJson());
        // Cancelling the file dialog cancels the close.
        MainWindow w2;
        w2.addNode(QStringLiteral("filter"), QPointF(0, 0));
        w2.show();
        answerFileChooser(w2, QString(), &asked);
        ModalScript script2({clickButton(QMessageBox::Save)});
        QVERIFY(!w2.close());
        QVERIFY(script2.done());
        QCOMPARE(asked, (QStringList{"save as", "save as"}));
        QVERIFY(w2.document().isModified());
    }

    void newAsksFirst()
    {
        Edited e;
        ModalScript cancel({clickButton(QMessageBox::Cancel)});
        e.w.action(QStringLiteral("File.New"))->trigger();
        QVERIFY(cancel.done());
        QCOMPARE(e.w.document().spec().nodes.size(), std::size_t(7));
        QVERIFY(e.w.document().isModified());

        ModalScript discard({clickButton(QMessageBox::Discard)});
        e.w.action(QStringLiteral("File.New"))->trigger();
        QVERIFY(discard.done());
        QVERIFY(e.w.document().spec().nodes.empty());
        QVERIFY(e.w.document().filePath().isEmpty());
        QCOMPARE(readAll(e.path), e.onDisk);
    }

    void newSaveWritesThenClears()
    {
        Edited e;
        ModalScript save({clickButton(QMessageBox::Save)});
        e.w.action(QStringLiteral("File.New"))->trigger();
        QVERIFY(save.done());
        QVERIFY(readAll(e.path).contains("\"filter\""));
        QVERIFY(e.w.document().spec().nodes.empty());
    }

    void openAsksBeforeTheFileDialog()
    {
        Edited e;
        const QString other = e.dir.filePath(QStringLiteral("other.json"));
        {
            QFile f(other);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"format":"tideline/1","name":"other","nodes":[]})");
        }
        // Cancel: no file dialog at all, nothing changes.
        QStringList asked;
        answerFileChooser(e.w, other, &asked);
        ModalScript cancel({clickButton(QMessageBox::Cancel)});
        e.w.action(QStringLiteral("File.Open"))->trigger();
        QVERIFY(cancel.done());
        QCOMPARE(cancel.seen, QStringList{"QMessageBox"});
        QVERIFY(asked.isEmpty());
        QCOMPARE(e.w.document().filePath(), QFileInfo(e.path).absoluteFilePath());
        QVERIFY(e.w.document().isModified());

        // Save, then pick the other file: the edit is on disk and the other file is open.
        ModalScript save({clickButton(QMessageBox::Save)});
        e.w.action(QStringLiteral("File.Open"))->trigger();
        QVERIFY(save.done());
        QCOMPARE(asked, QStringList{"open"});
        QVERIFY(readAll(e.path).contains("\"filter\""));
        QCOMPARE(e.w.document().filePath(), QFileInfo(other).absoluteFilePath());
        QCOMPARE(e.w.document().spec().name, std::string("other"));
        QVERIFY(!e.w.document().isModified());
    }

    void openDiscardDropsTheEdit()
    {
        Edited e;
        QStringList asked;
        answerFileChooser(e.w, e.path, &asked);
        ModalScript discard({clickButton(QMessageBox::Discard)});
        e.w.action(QStringLiteral("File.Open"))->trigger();
        QVERIFY(discard.done());
        QCOMPARE(asked, QStringList{"open"});
        QCOMPARE(readAll(e.path), e.onDisk);
        QVERIFY(!e.w.document().spec().node("filter"));
        QVERIFY(!e.w.document().isModified());
    }

    void autoLayoutIsOneUndoableStepWithoutOverlaps()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("p.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(kPipeline);
        }
        MainWindow w;
        QVERIFY(w.openPath(path));
        QVERIFY(overlaps(w)); // the file stacks its nodes
        const PipelineSpec before = w.document().spec();
        w.action(QStringLiteral("View.AutoLayout"))->trigger();
        QVERIFY(!overlaps(w));
        QVERIFY(w.document().isModified());
        QCOMPARE(w.document().undoStack()->count(), 1);
        QCOMPARE(w.document().undoStack()->undoText(), QStringLiteral("Auto layout"));
        // Left to right along the edges; the unconnected node does not sit on anyone.
        auto x = [&](const char *id) {
            return w.scene()->nodeItem(id)->pos().x();
        };
        QVERIFY(x("gen") < x("wm"));
        QVERIFY(x("wm") < x("win"));
        QVERIFY(x("win") < x("out"));
        QCOMPARE(x("out"), x("late"));
        // Items and document agree.
        for (const auto &n : w.document().spec().nodes)
            QCOMPARE(w.scene()->nodeItem(QString::fromStdString(n.id))->pos(),
                     QPointF(n.ui["x"].get<double>(), n.ui["y"].get<double>()));
        const PipelineSpec after = w.document().spec();

        w.action(QStringLiteral("Edit.Undo"))->trigger();
        QVERIFY(w.document().spec() == before);
        QVERIFY(overlaps(w));
        QVERIFY(!w.document().isModified());
        w.action(QStringLiteral("Edit.Redo"))->trigger();
        QVERIFY(w.document().spec() == after);
        QVERIFY(!overlaps(w));
        // A second Auto Layout of a laid-out graph changes nothing visible but is still undoable.
        w.action(QStringLiteral("View.AutoLayout"))->trigger();
        QVERIFY(w.document().spec() == after);
        // Nodes only: edges and params are untouched.
        QVERIFY(w.document().spec().edges == before.edges);
    }
};

QTEST_MAIN(PromptsTest)
#include "test_prompts.moc"
