#include "graph_scene.hpp"

#include "connection_item.hpp"
#include "graph_style.hpp"
#include "node_item.hpp"

#include <QGraphicsPathItem>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsSimpleTextItem>
#include <QKeyEvent>

namespace tideline::widgets {

GraphScene::GraphScene(AbstractGraphModel &model, QObject *parent)
    : QGraphicsScene(parent)
    , m_model(model)
{
    // A big fixed scene rect: panning is never clamped and the index is not rebuilt on growth.
    setSceneRect(-20000, -20000, 40000, 40000);
    setItemIndexMethod(BspTreeIndex);
    connect(&m_model, &AbstractGraphModel::modelReset, this, &GraphScene::rebuild);
    connect(&m_model, &AbstractGraphModel::nodeAdded, this, &GraphScene::addNodeItem);
    connect(&m_model, &AbstractGraphModel::nodeRemoved, this, &GraphScene::removeNodeItem);
    connect(&m_model, &AbstractGraphModel::nodeUpdated, this, [this](const QString &id) {
        if (auto *item = m_nodes.value(id)) {
            item->setVisual(m_model.nodeVisual(id));
            updateConnectionsOf(id);
        }
    });
    connect(&m_model, &AbstractGraphModel::nodeMoved, this, [this](const QString &id) {
        if (auto *item = m_nodes.value(id)) {
            const QPointF p = m_model.nodePosition(id);
            if (item->pos() != p)
                item->setPosFromModel(p);
        }
    });
    connect(&m_model, &AbstractGraphModel::nodeRenamed, this, &GraphScene::onRenamed);
    connect(&m_model, &AbstractGraphModel::connectionAdded, this, &GraphScene::addConnectionItem);
    connect(&m_model, &AbstractGraphModel::connectionRemoved, this,
            &GraphScene::removeConnectionItem);
    rebuild();
}

void GraphScene::rebuild()
{
    endDraft();
    for (auto *c : std::as_const(m_connections))
        delete c;
    for (auto *n : std::as_const(m_nodes))
        delete n;
    m_connections.clear();
    m_byNode.clear();
    m_nodes.clear();
    const QStringList ids = m_model.nodeIds();
    for (const auto &id : ids)
        addNodeItem(id);
    const auto conns = m_model.connections();
    for (const auto &c : conns)
        addConnectionItem(c);
}

void GraphScene::addNodeItem(const QString &id)
{
    if (m_nodes.contains(id))
        return;
    auto *item = new NodeItem(m_model.nodeVisual(id));
    item->setSnapToGrid(m_snap);
    item->setPosFromModel(m_model.nodePosition(id));
    connect(item, &NodeItem::positionChanged, this, &GraphScene::updateConnectionsOf);
    m_nodes.insert(id, item);
    addItem(item);
}

void GraphScene::removeNodeItem(const QString &id)
{
    const auto attached = m_byNode.values(id);
    for (auto *c : attached)
        removeConnectionItem(c->connectionId());
    delete m_nodes.take(id);
}

void GraphScene::addConnectionItem(const ConnectionId &c)
{
    if (m_connections.contains(c))
        return;
    auto *from = m_nodes.value(c.fromNode);
    auto *item = new ConnectionItem(c, from ? from->portRole(c.fromPort, false) : PortRole::Data);
    m_connections.insert(c, item);
    m_byNode.insert(c.fromNode, item);
    if (c.toNode != c.fromNode)
        m_byNode.insert(c.toNode, item);
    addItem(item);
    updateConnection(item);
}

void GraphScene::removeConnectionItem(const ConnectionId &c)
{
    auto *item = m_connections.take(c);
    if (!item)
        return;
    m_byNode.remove(c.fromNode, item);
    m_byNode.remove(c.toNode, item);
    delete item;
}

void GraphScene::updateConnection(ConnectionItem *item)
{
    const auto &c = item->connectionId();
    auto *from = m_nodes.value(c.fromNode);
    auto *to = m_nodes.value(c.toNode);
    if (!from || !to)
        return;
    item->setRole(from->portRole(c.fromPort, false));
    item->setEnds(from->portScenePos(c.fromPort, false), to->portScenePos(c.toPort, true));
}

void GraphScene::updateConnectionsOf(const QString &nodeId)
{
    const auto items = m_byNode.values(nodeId);
    for (auto *c : items)
        updateConnection(c);
}

void GraphScene::onRenamed(const QString &oldId, const QString &newId)
{
    const auto attached = m_byNode.values(oldId);
    for (auto *c : attached)
        removeConnectionItem(c->connectionId());
    if (auto *item = m_nodes.take(oldId)) {
        item->setVisual(m_model.nodeVisual(newId));
        m_nodes.insert(newId, item);
    }
    const auto conns = m_model.connections();
    for (const auto &c : conns)
        if (c.fromNode == newId || c.toNode == newId)
            addConnectionItem(c);
}

QStringList GraphScene::selectedNodeIds() const
{
    QStringList ids;
    const auto items = selectedItems();
    for (auto *i : items)
        if (i->type() == NodeItem::Type)
            ids << static_cast<NodeItem *>(i)->nodeId();
    // Document order is stable; selection order is not. Sort for deterministic commands.
    ids.sort();
    return ids;
}

QList<ConnectionId> GraphScene::selectedConnections() const
{
    QList<ConnectionId> out;
    const auto items = selectedItems();
    for (auto *i : items)
        if (i->type() == ConnectionItem::Type)
            out << static_cast<ConnectionItem *>(i)->connectionId();
    return out;
}

void GraphScene::selectNodes(const QStringList &ids)
{
    clearSelection();
    for (const auto &id : ids)
        if (auto *n = m_nodes.value(id))
            n->setSelected(true);
}

void GraphScene::setSnapToGrid(bool snap)
{
    m_snap = snap;
    for (auto *n : std::as_const(m_nodes))
        n->setSnapToGrid(snap);
}

QRectF GraphScene::nodesBoundingRect() const
{
    QRectF r;
    for (auto *n : std::as_const(m_nodes))
        r |= n->sceneBoundingRect();
    return r;
}

NodeItem *GraphScene::nodeAt(const QPointF &scenePos) const
{
    const auto hits = items(QRectF(scenePos - QPointF(8, 8), QSizeF(16, 16)),
                            Qt::IntersectsItemShape, Qt::DescendingOrder);
    for (auto *i : hits)
        if (i->type() == NodeItem::Type)
            return static_cast<NodeItem *>(i);
    return nullptr;
}

// --- moving ---------------------------------------------------------------------------------

void GraphScene::mousePressEvent(QGraphicsSceneMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        if (auto *node = nodeAt(event->scenePos())) {
            const auto hit = node->portAt(node->mapFromScene(event->scenePos()));
            if (hit.valid()) {
                m_draftNode = node->nodeId();
                m_draftPort = hit.name;
                m_draftFromInput = hit.isInput;
                m_draftAnchor = node->portScenePos(hit.name, hit.isInput);
                m_draft = new QGraphicsPathItem;
                m_draft->setZValue(10);
                addItem(m_draft);
                m_draftLabelBack = new QGraphicsRectItem;
                m_draftLabelBack->setZValue(11);
                m_draftLabelBack->setBrush(QColor(0x15, 0x17, 0x1a, 235));
                m_draftLabelBack->setPen(Qt::NoPen);
                addItem(m_draftLabelBack);
                m_draftLabel = new QGraphicsSimpleTextItem;
                m_draftLabel->setZValue(12);
                addItem(m_draftLabel);
                updateDraft(event->scenePos());
                event->accept();
                return;
            }
        }
        ++m_dragSerial;
        m_movingNodes = true;
    }
    QGraphicsScene::mousePressEvent(event);
}

void GraphScene::mouseMoveEvent(QGraphicsSceneMouseEvent *event)
{
    if (m_draft) {
        updateDraft(event->scenePos());
        event->accept();
        return;
    }
    QGraphicsScene::mouseMoveEvent(event);
    if (!m_movingNodes || !(event->buttons() & Qt::LeftButton) || !mouseGrabberItem()
        || mouseGrabberItem()->type() != NodeItem::Type)
        return;
    QStringList ids;
    QList<QPointF> positions;
    const QStringList selected = selectedNodeIds();
    for (const auto &id : selected) {
        auto *item = m_nodes.value(id);
        if (item && item->pos() != m_model.nodePosition(id)) {
            ids << id;
            positions << item->pos();
        }
    }
    if (!ids.isEmpty())
        Q_EMIT nodesMoved(ids, positions, m_dragSerial);
}

void GraphScene::mouseReleaseEvent(QGraphicsSceneMouseEvent *event)
{
    if (m_draft && event->button() == Qt::LeftButton) {
        const Target t = findTarget(event->scenePos());
        endDraft();
        // The hover feedback ends first: a refusal's reason must outlive the drag (it used to
        // be cleared right after it was shown, so a refused drop seemed to do nothing).
        Q_EMIT connectionFeedback(QString(), true);
        if (t.found) {
            if (t.reason.isEmpty())
                Q_EMIT connectRequested(t.id);
            else
                Q_EMIT connectionRefused(t.id, t.reason);
        }
        event->accept();
        return;
    }
    m_movingNodes = false;
    QGraphicsScene::mouseReleaseEvent(event);
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent *event)
{
    if (auto *node = nodeAt(event->scenePos())) {
        Q_EMIT nodeActivated(node->nodeId());
        event->accept();
        return;
    }
    QGraphicsScene::mouseDoubleClickEvent(event);
}

void GraphScene::keyPressEvent(QKeyEvent *event)
{
    if (m_draft && event->key() == Qt::Key_Escape) {
        endDraft();
        Q_EMIT connectionFeedback(QString(), true);
        event->accept();
        return;
    }
    QGraphicsScene::keyPressEvent(event);
}

// --- connecting -----------------------------------------------------------------------------

ConnectionId
GraphScene::makeConnection(const QString &node, const QString &port, bool isInput) const
{
    // The dragged-from end keeps its role: dragging from an input asks for an edge *into* it.
    // Same-direction pairs are passed through as they are so that the model names the problem.
    if (m_draftFromInput)
        return {node, port, m_draftNode, m_draftPort};
    Q_UNUSED(isInput);
    return {m_draftNode, m_draftPort, node, port};
}

GraphScene::Target GraphScene::findTarget(const QPointF &scenePos) const
{
    Target t;
    NodeItem *node = nodeAt(scenePos);
    if (!node)
        return t;
    const auto hit = node->portAt(node->mapFromScene(scenePos));
    if (hit.valid()) {
        t.found = true;
        t.id = makeConnection(node->nodeId(), hit.name, hit.isInput);
        t.reason = m_model.checkConnection(t.id);
        return t;
    }
    // Over a node's body: pick the first port on the facing side that would accept it.
    const auto &ports = m_draftFromInput ? node->visual().outputs : node->visual().inputs;
    for (const auto &p : ports) {
        Target candidate;
        candidate.found = true;
        candidate.id = makeConnection(node->nodeId(), p.name, !m_draftFromInput);
        candidate.reason = m_model.checkConnection(candidate.id);
        if (candidate.reason.isEmpty())
            return candidate;
        if (!t.found)
            t = candidate;
    }
    if (!t.found && node->nodeId() != m_draftNode) {
        t.found = true;
        t.reason = m_draftFromInput ? tr("%1 has no output port").arg(node->nodeId())
                                    : tr("%1 has no input port").arg(node->nodeId());
        t.id = makeConnection(node->nodeId(), QString(), !m_draftFromInput);
    }
    return t;
}

void GraphScene::updateDraft(const QPointF &scenePos)
{
    const Target t = findTarget(scenePos);
    QPointF end = scenePos;
    QColor colour = style::textSecondary();
    QString message;
    if (t.found) {
        const bool ok = t.reason.isEmpty();
        colour = ok ? style::accepted() : style::errorColor();
        message = ok ? tr("Connect %1").arg(t.id.toString()) : t.reason;
        if (auto *n = m_nodes.value(m_draftFromInput ? t.id.fromNode : t.id.toNode); n && ok)
            end = m_draftFromInput ? n->portScenePos(t.id.fromPort, false)
                                   : n->portScenePos(t.id.toPort, true);
    }
    const QPainterPath path = m_draftFromInput ? ConnectionItem::curve(end, m_draftAnchor)
                                               : ConnectionItem::curve(m_draftAnchor, end);
    m_draft->setPath(path);
    m_draft->setPen(QPen(colour, 2.5, Qt::DashLine, Qt::RoundCap));
    m_draftLabel->setText(message);
    m_draftLabel->setBrush(colour.lighter(120));
    QFont f = m_draftLabel->font();
    f.setPointSizeF(10);
    m_draftLabel->setFont(f);
    m_draftLabel->setPos(scenePos + QPointF(16, 14));
    m_draftLabelBack->setVisible(!message.isEmpty());
    m_draftLabelBack->setRect(m_draftLabel->sceneBoundingRect().adjusted(-6, -4, 6, 4));
    Q_EMIT connectionFeedback(message, t.reason.isEmpty());
}

void GraphScene::endDraft()
{
    delete m_draft;
    delete m_draftLabel;
    delete m_draftLabelBack;
    m_draft = nullptr;
    m_draftLabel = nullptr;
    m_draftLabelBack = nullptr;
}

} // namespace tideline::widgets
