#pragma once
// One node on the canvas: header with id and kind, ports on the sides coloured by role
// (data, late, errors), a one-line param summary and a warning/error badge.
// Painted directly (no child items, no drop shadow) and cached per device transform.

#include "graph_types.hpp"

#include <QGraphicsObject>

namespace tideline::widgets {

class NodeItem final : public QGraphicsObject
{
    Q_OBJECT
public:
    enum { Type = UserType + 1 };

    explicit NodeItem(const NodeVisual &visual);

    int type() const override { return Type; }
    QString nodeId() const { return m_visual.id; }
    const NodeVisual &visual() const { return m_visual; }
    void setVisual(const NodeVisual &visual);

    /// Moves the item to a position that came from the model (no snapping, no move intent).
    void setPosFromModel(const QPointF &pos);
    void setSnapToGrid(bool snap) { m_snap = snap; }

    struct PortHit
    {
        QString name;
        bool isInput = false;
        PortRole role = PortRole::Data;
        bool valid() const { return !name.isEmpty(); }
    };
    /// The port under a point in item coordinates (generous hit area around the dot).
    PortHit portAt(const QPointF &itemPos) const;
    /// Centre of a port's dot in scene coordinates.
    QPointF portScenePos(const QString &port, bool isInput) const;
    PortRole portRole(const QString &port, bool isInput) const;

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

Q_SIGNALS:
    void positionChanged(const QString &id);

protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant &value) override;

private:
    qreal height() const;
    QPointF portPos(int row, bool isInput) const;
    void paintDetailed(QPainter *painter);

    NodeVisual m_visual;
    bool m_snap = true;
    bool m_fromModel = false;
};

} // namespace tideline::widgets
