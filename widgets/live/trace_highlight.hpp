#pragma once
// The traced record's path lit on the canvas (issue 16): a glowing outline around each node it
// reached and along each connection it travelled, numbered in order. Separate scene items over
// GraphScene's public API (nodeItem() geometry, the ConnectionItems' ids), like the live
// overlay: the canvas' own items stay untouched; clear() removes the light.

#include <QList>
#include <QObject>
#include <QPointer>
#include <QStringList>

class QGraphicsItem;

namespace tideline::widgets {
class GraphScene;
}

namespace tideline::live {

class TraceHighlight final : public QObject
{
    Q_OBJECT
public:
    explicit TraceHighlight(widgets::GraphScene *scene, QObject *parent = nullptr);
    ~TraceHighlight() override;

    /// Lights `nodes` (node ids in path order; repeats are drawn once) and the connections
    /// between consecutive ones; an empty id separates two paths (an output row's inputs).
    void show(const QStringList &nodes);
    void clear();
    /// Nodes and connections lit now (for tests).
    QStringList litNodes() const { return m_lit; }
    int litConnections() const { return m_connections; }

private:
    QPointer<widgets::GraphScene> m_scene;
    QList<QGraphicsItem *> m_items;
    QStringList m_lit;
    int m_connections = 0;
};

} // namespace tideline::live
