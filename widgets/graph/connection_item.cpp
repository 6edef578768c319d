#include "connection_item.hpp"

#include "graph_style.hpp"

#include <QPainter>
#include <QPainterPathStroker>

#include <cmath>

namespace tideline::widgets {

ConnectionItem::ConnectionItem(const ConnectionId &id, PortRole role)
    : m_id(id)
    , m_role(role)
{
    setFlag(ItemIsSelectable);
    setZValue(0);
    setToolTip(id.toString());
}

void ConnectionItem::setRole(PortRole role)
{
    m_role = role;
    update();
}

QPainterPath ConnectionItem::curve(const QPointF &from, const QPointF &to)
{
    const qreal dx = std::max(60.0, std::abs(to.x() - from.x()) * 0.5);
    QPainterPath path(from);
    path.cubicTo(from + QPointF(dx, 0), to - QPointF(dx, 0), to);
    return path;
}

void ConnectionItem::setEnds(const QPointF &from, const QPointF &to)
{
    const QPainterPath p = curve(from, to);
    QPainterPathStroker stroker;
    stroker.setWidth(12);
    m_shape = stroker.createStroke(p);
    setPath(p);
}

QPainterPath ConnectionItem::shape() const
{
    return m_shape;
}

void ConnectionItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    painter->setRenderHint(QPainter::Antialiasing, true);
    QColor c = style::portColor(m_role);
    if (isSelected()) {
        painter->setPen(QPen(style::nodeSelected(), 5, Qt::SolidLine, Qt::RoundCap));
        painter->drawPath(path());
        c = c.lighter(130);
    }
    painter->setPen(
        QPen(c, 2.5, m_role == PortRole::Data ? Qt::SolidLine : Qt::DashLine, Qt::RoundCap));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path());
}

} // namespace tideline::widgets
