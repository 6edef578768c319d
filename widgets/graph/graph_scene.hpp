#pragma once
// The canvas scene: renders an AbstractGraphModel and turns gestures into intents.
//
// It never changes the model. Moving nodes emits nodesMoved() while dragging (one drag shares
// one dragSerial so the application can merge the steps into one undo entry); dragging from a
// port draws a rubber connection that turns green or red as the model accepts or refuses the
// target, and on release emits connectRequested() or connectionRefused() with the reason.

#include "abstract_graph_model.hpp"

#include <QGraphicsScene>
#include <QHash>
#include <QMultiHash>
#include <QPointer>

class QGraphicsPathItem;
class QGraphicsSimpleTextItem;
class QGraphicsRectItem;

namespace tideline::widgets {

class NodeItem;
class ConnectionItem;

class GraphScene final : public QGraphicsScene
{
    Q_OBJECT
public:
    explicit GraphScene(AbstractGraphModel &model, QObject *parent = nullptr);
    GraphScene() = delete;

    AbstractGraphModel &model() const { return m_model; }
    NodeItem *nodeItem(const QString &id) const { return m_nodes.value(id); }
    ConnectionItem *connectionItem(const ConnectionId &c) const { return m_connections.value(c); }

    QStringList selectedNodeIds() const;
    QList<ConnectionId> selectedConnections() const;
    void selectNodes(const QStringList &ids);

    void setSnapToGrid(bool snap);
    bool snapToGrid() const { return m_snap; }
    bool isConnecting() const { return m_draft != nullptr; }
    /// Rect around all nodes (for fit-to-view), empty when there are none.
    QRectF nodesBoundingRect() const;

Q_SIGNALS:
    /// Nodes were dragged to these positions; every step of one drag has the same dragSerial.
    void nodesMoved(const QStringList &ids, const QList<QPointF> &positions, int dragSerial);
    void connectRequested(const tideline::widgets::ConnectionId &c);
    void connectionRefused(const tideline::widgets::ConnectionId &c, const QString &reason);
    /// Live status while dragging a connection (for a status bar).
    void connectionFeedback(const QString &message, bool acceptable);
    void nodeActivated(const QString &id);

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent *event) override;
    void mouseMoveEvent(QGraphicsSceneMouseEvent *event) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent *event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    void rebuild();
    void addNodeItem(const QString &id);
    void removeNodeItem(const QString &id);
    void addConnectionItem(const ConnectionId &c);
    void removeConnectionItem(const ConnectionId &c);
    void updateConnectionsOf(const QString &nodeId);
    void updateConnection(ConnectionItem *item);
    void onRenamed(const QString &oldId, const QString &newId);
    NodeItem *nodeAt(const QPointF &scenePos) const;

    // --- connection dragging ---
    struct Target
    {
        ConnectionId id;
        QString reason; ///< "" when acceptable
        bool found = false;
    };
    Target findTarget(const QPointF &scenePos) const;
    void updateDraft(const QPointF &scenePos);
    void endDraft();
    ConnectionId makeConnection(const QString &node, const QString &port, bool isInput) const;

    AbstractGraphModel &m_model;
    QHash<QString, NodeItem *> m_nodes;
    QHash<ConnectionId, ConnectionItem *> m_connections;
    QMultiHash<QString, ConnectionItem *> m_byNode;
    bool m_snap = true;
    int m_dragSerial = 0;
    bool m_movingNodes = false;

    QGraphicsPathItem *m_draft = nullptr;
    QGraphicsSimpleTextItem *m_draftLabel = nullptr;
    QGraphicsRectItem *m_draftLabelBack = nullptr;
    QString m_draftNode;
    QString m_draftPort;
    bool m_draftFromInput = false;
    QPointF m_draftAnchor;
};

} // namespace tideline::widgets
