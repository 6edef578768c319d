#include "check_markers.hpp"

#include "../graph/graph_scene.hpp"
#include "../graph/graph_style.hpp"
#include "../graph/node_item.hpp"
#include "check_style.hpp"
#include "ui_scale.hpp"

#include <QFontMetricsF>
#include <QGraphicsObject>
#include <QPainter>

#include <algorithm>

namespace tideline::widgets {

/// A rounded dark pill: the marker circle and a word or two.
class CheckMarkerItem final : public QGraphicsObject
{
public:
    CheckMarkerItem(const SinkCheck &sink, QGraphicsItem *parent)
        : QGraphicsObject(parent)
        , m_status(sink.status)
    {
        setZValue(70);
        setAcceptedMouseButtons(Qt::NoButton);
        switch (sink.status) {
        case SinkCheckStatus::Ok:
            m_text = CheckMarkers::tr("ok");
            break;
        case SinkCheckStatus::Fail:
            m_text = sink.orderOnly ? CheckMarkers::tr("FAIL · order")
                                    : CheckMarkers::tr("FAIL · %1")
                                          .arg(sink.missing + sink.extra + sink.different);
            break;
        case SinkCheckStatus::Missing:
            m_text = CheckMarkers::tr("no expected file");
            break;
        case SinkCheckStatus::Written:
            m_text = CheckMarkers::tr("saved");
            break;
        case SinkCheckStatus::Error:
            m_text = CheckMarkers::tr("error");
            break;
        }
        setToolTip(check::statusWord(sink.status) + QStringLiteral(": ")
                   + check::sinkSummary(sink));
        QFontMetricsF fm(font());
        const qreal h = fm.height() + 6;
        m_rect = QRectF(0, 0, h + fm.horizontalAdvance(m_text) + 8, h);
        // Right of the node's header: sinks are the rightmost nodes, their input ports are
        // on the left and an errors port sits below the header; above the node it would
        // cover the node stacked over it (sinks often are).
        setPos(style::kNodeWidth + 6, 10);
    }
    QString text() const { return m_text; }
    QRectF boundingRect() const override { return m_rect; }
    void paint(QPainter *p, const QStyleOptionGraphicsItem *, QWidget *) override
    {
        p->setRenderHint(QPainter::Antialiasing);
        const QColor c = check::statusColor(m_status);
        p->setPen(QPen(c, 1.2));
        p->setBrush(QColor(0x12, 0x14, 0x17, 240));
        p->drawRoundedRect(m_rect.adjusted(0.5, 0.5, -0.5, -0.5), m_rect.height() / 2,
                           m_rect.height() / 2);
        const qreal d = m_rect.height() - 6;
        check::paintMarker(*p, QRectF(3, 3, d, d), m_status);
        p->setFont(font());
        p->setPen(c);
        QFontMetricsF fm(font());
        p->drawText(QPointF(d + 8, 3 + fm.ascent()), m_text);
    }

private:
    static QFont font()
    {
        QFont f;
        f.setPointSizeF(10);
        f.setBold(true);
        return f;
    }
    SinkCheckStatus m_status;
    QString m_text;
    QRectF m_rect;
};

CheckMarkers::CheckMarkers(GraphScene *scene, QObject *parent)
    : QObject(parent)
    , m_scene(scene)
{
}

CheckMarkers::~CheckMarkers()
{
    clear();
}

void CheckMarkers::show(const QList<SinkCheck> &sinks)
{
    clear();
    if (!m_scene)
        return;
    for (const auto &s : sinks)
        if (NodeItem *node = m_scene->nodeItem(s.sinkId))
            m_items.insert(s.sinkId, new CheckMarkerItem(s, node));
    for (auto &item : m_items)
        item->setScale(m_scale);
}

void CheckMarkers::setViewZoom(double zoom)
{
    // 10 pt in the scene is readable down to about 85 % zoom (times the presentation scale);
    // below that the pill grows, up to 2.5×, so it keeps that size on screen.
    const double readableZoom = 0.85 * UiScale::factor();
    m_scale = std::clamp(readableZoom / std::max(zoom, 0.01), 1.0, 2.5);
    for (auto &item : m_items)
        if (item)
            item->setScale(m_scale);
}

void CheckMarkers::clear()
{
    for (auto &item : m_items)
        delete item.data(); // null when its node went first (it took its children along)
    m_items.clear();
}

QString CheckMarkers::markerText(const QString &nodeId) const
{
    const auto item = m_items.value(nodeId);
    return item ? item->text() : QString();
}

} // namespace tideline::widgets
