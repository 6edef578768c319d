#include "trace_highlight.hpp"

#include "graph/connection_item.hpp"
#include "graph/graph_scene.hpp"
#include "graph/node_item.hpp"

#include <QBrush>
#include <QFont>
#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QPainterPath>
#include <QPen>

namespace tideline::live {

namespace {
const QColor kLight(0xff, 0xc8, 0x3d);
}

TraceHighlight::TraceHighlight(widgets::GraphScene *scene, QObject *parent)
    : QObject(parent)
    , m_scene(scene)
{
}

TraceHighlight::~TraceHighlight()
{
    clear();
}

void TraceHighlight::clear()
{
    if (m_scene)
        for (QGraphicsItem *i : m_items) {
            m_scene->removeItem(i);
            delete i;
        }
    m_items.clear();
    m_lit.clear();
    m_connections = 0;
}

void TraceHighlight::show(const QStringList &nodes)
{
    clear();
    if (!m_scene)
        return;
    // Connections first, under the node outlines: each from one path node to the next.
    QStringList order;
    for (const QString &n : nodes)
        if (order.isEmpty() || order.back() != n)
            order << n;
    for (QGraphicsItem *item : m_scene->items()) {
        auto *c = qgraphicsitem_cast<widgets::ConnectionItem *>(item);
        if (!c)
            continue;
        bool onPath = false;
        for (qsizetype i = 0; i + 1 < order.size() && !onPath; ++i)
            onPath = !order[i].isEmpty() && c->connectionId().fromNode == order[i]
                     && c->connectionId().toNode == order[i + 1];
        if (!onPath)
            continue;
        auto *glow = new QGraphicsPathItem(c->path());
        glow->setPen(QPen(kLight, 7, Qt::SolidLine, Qt::RoundCap));
        glow->setOpacity(0.55);
        glow->setZValue(c->zValue() - 0.5);
        m_scene->addItem(glow);
        m_items << glow;
        ++m_connections;
    }
    int step = 0;
    for (const QString &n : order) {
        const widgets::NodeItem *item = n.isEmpty() ? nullptr : m_scene->nodeItem(n);
        if (!item || m_lit.contains(n))
            continue;
        ++step;
        QPainterPath outline;
        outline.addRoundedRect(item->sceneBoundingRect().adjusted(-5, -5, 5, 5), 10, 10);
        auto *ring = new QGraphicsPathItem(outline);
        ring->setPen(QPen(kLight, 3));
        ring->setBrush(Qt::NoBrush);
        ring->setZValue(item->zValue() + 0.5);
        m_scene->addItem(ring);
        m_items << ring;
        auto *badge = new QGraphicsSimpleTextItem(QString::number(step));
        QFont f = badge->font();
        f.setBold(true);
        f.setPointSizeF(10);
        badge->setFont(f);
        badge->setBrush(kLight);
        badge->setPos(item->sceneBoundingRect().topLeft() + QPointF(-4, -22));
        badge->setZValue(ring->zValue());
        m_scene->addItem(badge);
        m_items << badge;
        m_lit << n;
    }
}

} // namespace tideline::live
