#pragma once
// Helpers that drive the designer like a user: mouse events on the canvas viewport, drops from
// the palette, typing into generated inspector fields.

#include "graph/graph_scene.hpp"
#include "graph/graph_view.hpp"
#include "graph/node_item.hpp"
#include "inspect/field_editor.hpp"
#include "inspect/node_inspector.hpp"
#include "inspect/property_form.hpp"
#include "main_window.hpp"
#include "palette/node_palette.hpp"
#include "pipeline_document.hpp"

#include <QApplication>
#include <QLineEdit>
#include <QMimeData>
#include <QMouseEvent>
#include <QTest>
#include <QUndoStack>

namespace tideline::designer::test {

inline void sendMouse(QWidget *w,
                      QEvent::Type type,
                      QPoint pos,
                      Qt::MouseButton button,
                      Qt::MouseButtons buttons,
                      Qt::KeyboardModifiers mods = Qt::NoModifier)
{
    QMouseEvent e(type, QPointF(pos), w->mapToGlobal(QPointF(pos)), button, buttons, mods);
    QApplication::sendEvent(w, &e);
}

inline QPoint viewPos(widgets::GraphView *view, QPointF scenePos)
{
    return view->mapFromScene(scenePos);
}

/// Press at `from`, move in steps, release at `to` (scene coordinates), left button.
inline void dragOnCanvas(widgets::GraphView *view, QPointF from, QPointF to, int steps = 8)
{
    QWidget *vp = view->viewport();
    const QPoint a = viewPos(view, from), b = viewPos(view, to);
    sendMouse(vp, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton);
    for (int i = 1; i <= steps; ++i) {
        const QPoint p = a + (b - a) * i / steps;
        sendMouse(vp, QEvent::MouseMove, p, Qt::NoButton, Qt::LeftButton);
    }
    sendMouse(vp, QEvent::MouseButtonRelease, b, Qt::LeftButton, Qt::NoButton);
}

inline void
clickOnCanvas(widgets::GraphView *view, QPointF at, Qt::KeyboardModifiers mods = Qt::NoModifier)
{
    QWidget *vp = view->viewport();
    const QPoint p = viewPos(view, at);
    sendMouse(vp, QEvent::MouseButtonPress, p, Qt::LeftButton, Qt::LeftButton, mods);
    sendMouse(vp, QEvent::MouseButtonRelease, p, Qt::LeftButton, Qt::NoButton, mods);
}

/// A palette drag ending on the canvas: enter, move, drop with the palette's MIME payload.
inline void dropKind(widgets::GraphView *view, const QString &kind, QPoint viewportPos)
{
    QWidget *vp = view->viewport();
    std::unique_ptr<QMimeData> mime(widgets::NodePalette::mimeDataForKind(kind));
    QDragEnterEvent enter(viewportPos, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(vp, &enter);
    QDragMoveEvent move(viewportPos, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(vp, &move);
    QDropEvent drop(QPointF(viewportPos), Qt::CopyAction, mime.get(), Qt::LeftButton,
                    Qt::NoModifier);
    QApplication::sendEvent(vp, &drop);
}

inline QPointF portPos(MainWindow &w, const QString &node, const QString &port, bool isInput)
{
    auto *item = w.scene()->nodeItem(node);
    return item ? item->portScenePos(port, isInput) : QPointF();
}

/// Drags from an output port to an input port with the mouse.
inline void connectByMouse(MainWindow &w,
                           const QString &from,
                           const QString &fromPort,
                           const QString &to,
                           const QString &toPort)
{
    dragOnCanvas(w.view(), portPos(w, from, fromPort, false), portPos(w, to, toPort, true));
}

/// Clicks a node's header (selects it, shows it in the inspector).
inline void selectByMouse(MainWindow &w, const QString &id)
{
    auto *item = w.scene()->nodeItem(id);
    QVERIFY(item);
    clickOnCanvas(w.view(), item->mapToScene(QPointF(60, 14)));
}

inline QLineEdit *lineField(MainWindow &w, const QString &name)
{
    auto *e = w.inspector()->form()->editor(name);
    return e ? qobject_cast<QLineEdit *>(e->editorWidget()) : nullptr;
}

/// Types into a generated line field and presses Enter (commits like a user).
inline void typeInto(QLineEdit *edit, const QString &text)
{
    QVERIFY(edit);
    edit->setFocus();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
}

inline QString paramText(const MainWindow &w, const char *node, const char *param)
{
    const NodeSpec *n = w.document().spec().node(node);
    if (!n || !n->params.contains(param))
        return QStringLiteral("<unset>");
    return QString::fromStdString(n->params[param].dump());
}

} // namespace tideline::designer::test
