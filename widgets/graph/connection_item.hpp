#pragma once
// A connection on the canvas: a horizontal-tangent cubic curve from an output port to an input
// port, coloured by the output port's role. Selectable (wide hit area) so it can be deleted.

#include "graph_types.hpp"

#include <QGraphicsPathItem>

namespace tideline::widgets {

class ConnectionItem final : public QGraphicsPathItem
{
public:
    enum { Type = UserType + 2 };

    ConnectionItem(const ConnectionId &id, PortRole role);

    int type() const override { return Type; }
    const ConnectionId &connectionId() const { return m_id; }
    void setEnds(const QPointF &from, const QPointF &to);
    void setRole(PortRole role);

    /// The curve used for connections and for the rubber line while connecting.
    static QPainterPath curve(const QPointF &from, const QPointF &to);

    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    ConnectionId m_id;
    PortRole m_role;
    QPainterPath m_shape;
};

} // namespace tideline::widgets
