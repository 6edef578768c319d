#include "node_item.hpp"

#include "graph_style.hpp"
#include "ui_scale.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QTextOption>

#include <cmath>

namespace tideline::widgets {

NodeItem::NodeItem(const NodeVisual &visual)
    : m_visual(visual)
{
    setFlags(ItemIsMovable | ItemIsSelectable | ItemSendsGeometryChanges);
    // Node contents change rarely compared with how often the view pans: cache the pixels.
    setCacheMode(DeviceCoordinateCache);
    setZValue(1);
    setToolTip(m_visual.badgeText);
}

void NodeItem::setVisual(const NodeVisual &visual)
{
    prepareGeometryChange();
    m_visual = visual;
    setToolTip(m_visual.badgeText);
    update();
}

void NodeItem::setPosFromModel(const QPointF &pos)
{
    m_fromModel = true;
    setPos(pos);
    m_fromModel = false;
}

qreal NodeItem::height() const
{
    const auto rows = std::max(m_visual.inputs.size(), m_visual.outputs.size());
    qreal h = style::kHeaderHeight + qreal(rows) * style::kPortRowHeight + 8;
    if (!m_visual.summary.isEmpty())
        h += 20;
    return h;
}

QPointF NodeItem::portPos(int row, bool isInput) const
{
    const qreal y = style::kHeaderHeight + 4 + (row + 0.5) * style::kPortRowHeight;
    return {isInput ? 0.0 : style::kNodeWidth, y};
}

QRectF NodeItem::boundingRect() const
{
    const qreal m = style::kPortRadius + 2;
    return QRectF(-m, -m, style::kNodeWidth + 2 * m, height() + 2 * m);
}

QPainterPath NodeItem::shape() const
{
    QPainterPath path;
    path.addRoundedRect(
        QRectF(-style::kPortRadius, 0, style::kNodeWidth + 2 * style::kPortRadius, height()), 6, 6);
    return path;
}

NodeItem::PortHit NodeItem::portAt(const QPointF &p) const
{
    const qreal tolerance = 14;
    auto test = [&](const QList<PortInfo> &ports, bool isInput) -> PortHit {
        for (int i = 0; i < ports.size(); ++i) {
            const QPointF c = portPos(i, isInput);
            if (std::abs(p.x() - c.x()) <= tolerance
                && std::abs(p.y() - c.y()) <= style::kPortRowHeight / 2)
                return {ports[i].name, isInput, ports[i].role};
        }
        return {};
    };
    if (auto hit = test(m_visual.inputs, true); hit.valid())
        return hit;
    return test(m_visual.outputs, false);
}

QPointF NodeItem::portScenePos(const QString &port, bool isInput) const
{
    const auto &ports = isInput ? m_visual.inputs : m_visual.outputs;
    for (int i = 0; i < ports.size(); ++i)
        if (ports[i].name == port)
            return mapToScene(portPos(i, isInput));
    // Unknown port (a file naming a port the kind lacks): attach to the header edge.
    return mapToScene(QPointF(isInput ? 0 : style::kNodeWidth, style::kHeaderHeight / 2));
}

PortRole NodeItem::portRole(const QString &port, bool isInput) const
{
    for (const auto &p : isInput ? m_visual.inputs : m_visual.outputs)
        if (p.name == port)
            return p.role;
    return PortRole::Data;
}

QVariant NodeItem::itemChange(GraphicsItemChange change, const QVariant &value)
{
    if (change == ItemPositionChange && m_snap && !m_fromModel) {
        const QPointF p = value.toPointF();
        return QPointF(std::round(p.x() / style::kGrid) * style::kGrid,
                       std::round(p.y() / style::kGrid) * style::kGrid);
    }
    if (change == ItemPositionHasChanged)
        Q_EMIT positionChanged(m_visual.id);
    return QGraphicsObject::itemChange(change, value);
}

qreal NodeItem::titlePixels(qreal lod)
{
    if (lod < kBlockBelow)
        return 0;
    // 10.5 pt at 96 dpi is 14 px at 1:1; presentation mode asks for proportionally more.
    const qreal scale = UiScale::factor();
    const qreal detailed = 14.0 * lod;
    return lod >= kCompactBelow * scale ? detailed : std::max(detailed, kMinTitlePixels * scale);
}

void NodeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const qreal lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const QRectF body(0, 0, style::kNodeWidth, height());
    const QColor header = style::categoryColor(m_visual.category);
    if (lod < kBlockBelow) {
        // A node a few pixels wide: a block in its category's colour (keeps big graphs fast).
        painter->setPen(isSelected() ? QPen(style::nodeSelected(), 3 / lod) : Qt::NoPen);
        painter->setBrush(header);
        painter->drawRect(body);
        if (m_visual.badge != NodeBadge::None)
            painter->fillRect(QRectF(body.width() - 60, 0, 60, 60),
                              m_visual.badge == NodeBadge::Error ? style::errorColor()
                                                                 : style::warningColor());
        return;
    }
    painter->setRenderHint(QPainter::Antialiasing, true);
    if (lod < kCompactBelow * UiScale::factor())
        paintCompact(painter, lod);
    else
        paintDetailed(painter);
}

void NodeItem::paintCompact(QPainter *painter, qreal lod)
{
    // Zoomed out: the title is what tells nodes apart. It fills the node, wrapped, at a size
    // that stays readable on screen; the kind, ports' names and summary are left out.
    const QRectF body(0, 0, style::kNodeWidth, height());
    const QColor header = style::categoryColor(m_visual.category);
    painter->setPen(Qt::NoPen);
    painter->setBrush(header.darker(135));
    painter->drawRoundedRect(body, 6, 6);
    QPen border(style::nodeBorder(), 1.2 / lod);
    if (isSelected())
        border = QPen(style::nodeSelected(), 3 / lod);
    else if (m_visual.badge == NodeBadge::Error)
        border = QPen(style::errorColor(), 2.5 / lod);
    else if (m_visual.badge == NodeBadge::Warning)
        border = QPen(style::warningColor(), 2 / lod);
    painter->setPen(border);
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(body, 6, 6);
    // Port dots, where they are connected.
    for (const auto *ports : {&m_visual.inputs, &m_visual.outputs})
        for (int i = 0; i < ports->size(); ++i) {
            const QPointF c = portPos(i, ports == &m_visual.inputs);
            painter->setPen(Qt::NoPen);
            painter->setBrush(style::portColor((*ports)[i].role));
            painter->drawEllipse(c, style::kPortRadius, style::kPortRadius);
        }
    // Title: at least kMinTitlePixels on screen; shrink (not below 80 %) before eliding.
    const QRectF textRect = body.adjusted(8, 6, -8, -6);
    QFont f = painter->font();
    f.setBold(true);
    QTextOption wrap(Qt::AlignCenter);
    wrap.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    // Ids read better broken at _ and - than anywhere: offer those as break points.
    QString title = m_visual.id;
    title.replace(QLatin1Char('_'), QStringLiteral("_\u200b"));
    title.replace(QLatin1Char('-'), QStringLiteral("-\u200b"));
    qreal px = titlePixels(lod) / lod; // in scene units
    for (int attempt = 0; attempt < 3; ++attempt) {
        f.setPixelSize(std::max(1, qRound(px)));
        const QRectF need = QFontMetricsF(f).boundingRect(
            textRect, Qt::AlignCenter | Qt::TextWrapAnywhere, title);
        if (need.height() <= textRect.height() && need.width() <= textRect.width() + 0.5)
            break;
        px *= 0.9;
    }
    painter->setFont(f);
    painter->setPen(style::textPrimary());
    const QFontMetricsF fm(f);
    const int lines = std::max(1, int(textRect.height() / fm.lineSpacing()));
    // Elide what still does not fit (very long ids in very small nodes).
    QString shown = title;
    const QRectF need = fm.boundingRect(textRect, Qt::AlignCenter | Qt::TextWrapAnywhere, title);
    if (need.height() > textRect.height())
        shown = fm.elidedText(title, Qt::ElideRight, textRect.width() * lines * 0.95);
    painter->drawText(textRect, shown, wrap);
    if (m_visual.badge != NodeBadge::None) {
        const qreal r = 7 / lod;
        painter->setPen(Qt::NoPen);
        painter->setBrush(m_visual.badge == NodeBadge::Error ? style::errorColor()
                                                             : style::warningColor());
        painter->drawEllipse(QPointF(body.width() - r * 0.6, r * 0.6), r, r);
    }
}

void NodeItem::paintDetailed(QPainter *painter)
{
    const QRectF body(0, 0, style::kNodeWidth, height());
    const QColor header = style::categoryColor(m_visual.category);

    painter->setPen(Qt::NoPen);
    painter->setBrush(style::nodeBody());
    painter->drawRoundedRect(body, 6, 6);

    // Header = the body's rounded outline cut at the header height (rounded top corners only).
    QPainterPath outline;
    outline.addRoundedRect(body, 6, 6);
    QPainterPath top;
    top.addRect(QRectF(0, 0, body.width(), style::kHeaderHeight));
    painter->setBrush(header);
    painter->drawPath(outline.intersected(top));

    // Border: selection wins, then error, then warning.
    QPen border(style::nodeBorder(), 1.2);
    if (isSelected())
        border = QPen(style::nodeSelected(), 2.5);
    else if (m_visual.badge == NodeBadge::Error)
        border = QPen(style::errorColor(), 2);
    painter->setPen(border);
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(body, 6, 6);

    QFont idFont = painter->font();
    idFont.setPointSizeF(10.5);
    idFont.setBold(true);
    QFont kindFont = painter->font();
    kindFont.setPointSizeF(8.5);
    QFont portFont = kindFont;

    const qreal badgeSpace = m_visual.badge == NodeBadge::None ? 0 : 26;
    painter->setFont(idFont);
    painter->setPen(style::textPrimary());
    const QRectF idRect(10, 5, body.width() - 20 - badgeSpace, 20);
    painter->drawText(
        idRect, Qt::AlignLeft | Qt::AlignVCenter,
        QFontMetricsF(idFont).elidedText(m_visual.id, Qt::ElideRight, idRect.width()));
    painter->setFont(kindFont);
    painter->setPen(QColor(255, 255, 255, 190));
    painter->drawText(QRectF(10, 24, body.width() - 20, 16), Qt::AlignLeft | Qt::AlignVCenter,
                      m_visual.kind);

    if (m_visual.badge != NodeBadge::None) {
        const QRectF b(body.width() - 30, 9, 20, 20);
        painter->setPen(QPen(QColor(0, 0, 0, 90), 1));
        painter->setBrush(m_visual.badge == NodeBadge::Error ? style::errorColor()
                                                             : style::warningColor());
        painter->drawEllipse(b);
        QFont bf = idFont;
        bf.setPointSizeF(10);
        painter->setFont(bf);
        painter->setPen(m_visual.badge == NodeBadge::Error ? Qt::white : QColor(0x20, 0x20, 0x20));
        painter->drawText(b, Qt::AlignCenter, QStringLiteral("!"));
    }

    painter->setFont(portFont);
    auto drawPorts = [&](const QList<PortInfo> &ports, bool isInput) {
        for (int i = 0; i < ports.size(); ++i) {
            const QPointF c = portPos(i, isInput);
            const QColor col = style::portColor(ports[i].role);
            painter->setPen(QPen(style::background(), 2));
            painter->setBrush(col);
            painter->drawEllipse(c, style::kPortRadius, style::kPortRadius);
            painter->setPen(ports[i].role == PortRole::Data ? style::textSecondary() : col);
            const QRectF label = isInput ? QRectF(c.x() + 12, c.y() - 9, 90, 18)
                                         : QRectF(c.x() - 102, c.y() - 9, 90, 18);
            painter->drawText(label, (isInput ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter,
                              ports[i].name);
        }
    };
    drawPorts(m_visual.inputs, true);
    drawPorts(m_visual.outputs, false);

    if (!m_visual.summary.isEmpty()) {
        painter->setPen(style::textSecondary());
        const QRectF sr(10, body.height() - 24, body.width() - 20, 18);
        painter->drawText(
            sr, Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetricsF(portFont).elidedText(m_visual.summary, Qt::ElideRight, sr.width()));
    }
}

} // namespace tideline::widgets
