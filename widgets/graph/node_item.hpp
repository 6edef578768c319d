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

    /// Level of detail: below this zoom (times the presentation scale) the full node's text
    /// (10.5 pt title, 8.5 pt ports) would be too small to read; the node is drawn compact
    /// instead, its title alone, wrapped and sized to stay legible on screen (kMinTitlePixels
    /// times the presentation scale) however far out the view is.
    static constexpr qreal kCompactBelow = 0.75;
    static constexpr qreal kMinTitlePixels = 13;
    /// Below this zoom a node is a block (no text fits a node a few pixels wide).
    static constexpr qreal kBlockBelow = 0.08;
    /// On-screen pixel size of the title at a zoom (level of detail); 0 when not drawn.
    static qreal titlePixels(qreal lod);

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
    void paintCompact(QPainter *painter, qreal lod);

    NodeVisual m_visual;
    bool m_snap = true;
    bool m_fromModel = false;
};

} // namespace tideline::widgets
