#include "canvas_overlay.hpp"

#include "graph/connection_item.hpp"
#include "graph/graph_scene.hpp"
#include "graph/node_item.hpp"
#include "live_style.hpp"
#include "time_text.hpp"

#include <QFontMetricsF>
#include <QGraphicsItem>
#include <QPainter>
#include <QSet>

#include <algorithm>

namespace tideline::live {

/// A rounded dark box with one or more lines of text (cheap: no child items, cached).
class OverlayLabel final : public QGraphicsItem
{
public:
    explicit OverlayLabel(bool edge)
        : m_edge(edge)
    {
        setZValue(edge ? 50 : 60);
        setAcceptedMouseButtons(Qt::NoButton);
        setCacheMode(QGraphicsItem::DeviceCoordinateCache);
    }
    void setLines(const QStringList &lines, const QList<QColor> &colours, double scale)
    {
        if (lines == m_lines && colours == m_colours && scale == m_scale)
            return;
        prepareGeometryChange();
        m_lines = lines;
        m_colours = colours;
        m_scale = scale;
        QFontMetricsF fm(font());
        double w = 0;
        for (const auto &l : m_lines)
            w = std::max(w, fm.horizontalAdvance(l));
        m_rect = QRectF(0, 0, w + 12, m_lines.size() * fm.height() + 6);
        if (m_edge)
            m_rect.moveCenter(QPointF(0, 0));
        update();
    }
    QString text() const { return m_lines.join('\n'); }
    bool placed() const { return m_placed; }
    void setPlaced(bool placed) { m_placed = placed; }
    QRectF boundingRect() const override { return m_rect; }
    void paint(QPainter *p, const QStyleOptionGraphicsItem *, QWidget *) override
    {
        p->setRenderHint(QPainter::Antialiasing);
        p->setPen(QPen(m_edge ? QColor(0x4f, 0xb3, 0xe8, 160) : QColor(0x45, 0x4a, 0x52), 1));
        p->setBrush(QColor(0x12, 0x14, 0x17, 235));
        p->drawRoundedRect(m_rect, 4, 4);
        p->setFont(font());
        QFontMetricsF fm(font());
        for (int i = 0; i < m_lines.size(); ++i) {
            p->setPen(i < m_colours.size() ? m_colours[i] : style::text());
            p->drawText(
                QPointF(m_rect.left() + 6, m_rect.top() + 3 + fm.ascent() + i * fm.height()),
                m_lines[i]);
        }
    }

private:
    // Scene items: the canvas' zoom (which includes the presentation scale) sizes them.
    QFont font() const
    {
        QFont f;
        f.setPointSizeF(11 * m_scale);
        return f;
    }
    bool m_edge;
    bool m_placed = false;
    double m_scale = 1;
    QStringList m_lines;
    QList<QColor> m_colours;
    QRectF m_rect;
};

CanvasOverlay::CanvasOverlay(widgets::GraphScene *scene, QObject *parent)
    : QObject(parent)
    , m_scene(scene)
{
}

CanvasOverlay::~CanvasOverlay()
{
    clear();
}

OverlayLabel *
CanvasOverlay::label(QHash<QString, OverlayLabel *> &map, const QString &key, bool edge)
{
    auto it = map.find(key);
    if (it != map.end())
        return *it;
    auto *l = new OverlayLabel(edge);
    m_scene->addItem(l);
    map.insert(key, l);
    return l;
}

void CanvasOverlay::setViewZoom(double zoom)
{
    // Labels are scene items: zoomed out, their 11 pt shrink with the nodes. Below the zoom at
    // which they stop being readable (about 12 px at the presentation scale) they grow in the
    // scene to keep that size on screen, up to 2.5×.
    const double readableZoom = 0.85 * widgets::UiScale::factor();
    m_labelScale = std::clamp(readableZoom / std::max(zoom, 0.01), 1.0, 2.5);
}

void CanvasOverlay::update(const Snapshot &s, const QList<EdgeInfo> &edges)
{
    if (!m_scene)
        return;
    QSet<QString> seenNodes, seenEdges;
    // After the run a rate says nothing (it decays to 0/s): the run's totals instead.
    const bool ended = s.state == QLatin1String("Finished") || s.state == QLatin1String("Stopped")
                       || s.state == QLatin1String("Failed");
    // --- texts ---
    QList<OverlayLabel *> nodeLabels;
    QList<const widgets::NodeItem *> owners;
    for (const auto &n : s.nodes) {
        auto *item = m_scene->nodeItem(n.node);
        if (!item)
            continue;
        QStringList lines;
        QList<QColor> colours;
        const bool source = n.kind.startsWith(QLatin1String("source."));
        const bool sink = n.kind.startsWith(QLatin1String("sink."));
        if (ended) {
            const auto total = [](qint64 v) {
                return countText(static_cast<double>(v));
            };
            if (source)
                lines << tr("out %1").arg(total(n.recordsOut));
            else if (sink)
                lines << tr("in %1 · written %2").arg(total(n.recordsIn), total(n.recordsOut));
            else
                lines << tr("in %1 · out %2").arg(total(n.recordsIn), total(n.recordsOut));
        } else if (source)
            lines << tr("out %1/s").arg(countText(n.outRate));
        else if (sink)
            lines << tr("in %1/s").arg(countText(n.inRate));
        else
            lines << tr("in %1/s · out %2/s").arg(countText(n.inRate), countText(n.outRate));
        colours << style::text();
        if (ended && !n.accounted.isEmpty()) {
            QStringList fates;
            for (const auto &f : n.accounted)
                fates << QStringLiteral("%1 %2").arg(f.second).arg(
                    QString(f.first).replace(QLatin1Char('_'), QLatin1Char(' ')));
            lines << fates.join(QStringLiteral(" · "));
            colours << style::dim();
        }
        if (ended && !n.balanced) {
            lines << tr("does not balance: %1").arg(n.balanceText);
            colours << style::tooLate();
        }
        if (n.watermark) {
            QString w = QStringLiteral("W ") + eventTimeText(n.watermark);
            // Behind the newest event; sinks after a window see results stamped end - 1, which
            // can be older than the watermark: no lag to show there.
            if (n.maxEventTime && *n.watermark != kEnded && *n.maxEventTime >= *n.watermark)
                w += tr(" (lag %1)").arg(durationText(*n.maxEventTime - *n.watermark));
            lines << w;
            colours << style::watermark();
        } else if (!source) {
            lines << tr("W −∞ (no watermark yet)");
            colours << style::dim();
        }
        QStringList extra;
        if (n.stateEntries > 0 || n.kind == QLatin1String("window")
            || n.kind == QLatin1String("dedup") || n.kind == QLatin1String("join"))
            extra << tr("state %1").arg(countText(static_cast<double>(n.stateEntries)));
        if (n.late > 0)
            extra << tr("late %1").arg(n.late);
        if (n.errors > 0)
            extra << countNoun(n.errors, tr("error"), tr("errors"));
        if (!extra.isEmpty()) {
            lines << extra.join(QStringLiteral(" · "));
            colours << (n.late > 0 || n.errors > 0 ? style::lateAccepted() : style::dim());
        }
        auto *l = label(m_nodes, n.node, false);
        l->setLines(lines, colours, m_labelScale);
        l->show();
        nodeLabels << l;
        owners << item;
        seenNodes.insert(n.node);
    }
    QList<OverlayLabel *> edgeLabels;
    QList<const widgets::ConnectionItem *> paths;
    for (const auto &e : edges) {
        widgets::ConnectionId id{e.fromNode, e.fromPort, e.toNode, e.toPort};
        auto *item = m_scene->connectionItem(id);
        const NodeFigures *from = s.node(e.fromNode);
        if (!item || !from)
            continue;
        QString text;
        QColor colour = style::text();
        // "0 errors" on an edge says nothing and, on an edge routed behind another node,
        // looked like that node's count: late / errors edges get a label once they carry one.
        if ((e.fromPort == QLatin1String("late") && from->late == 0)
            || (e.fromPort == QLatin1String("errors") && from->errors == 0))
            continue;
        if (e.fromPort == QLatin1String("late")) {
            text = tr("%1 late").arg(from->late);
            colour = style::lateAccepted();
        } else if (e.fromPort == QLatin1String("errors")) {
            text = countNoun(from->errors, tr("error"), tr("errors"));
            colour = style::tooLate();
        } else if (ended)
            text = countText(static_cast<double>(from->recordsOut));
        else
            text = tr("%1/s").arg(countText(from->outRate));
        const QString key = id.toString();
        auto *l = label(m_edges, key, true);
        l->setLines({text}, {colour}, m_labelScale);
        l->show();
        edgeLabels << l;
        paths << item;
        seenEdges.insert(key);
    }
    // Nodes or edges deleted while running lose their labels.
    for (auto it = m_nodes.begin(); it != m_nodes.end();) {
        if (!seenNodes.contains(it.key())) {
            delete *it;
            it = m_nodes.erase(it);
        } else
            ++it;
    }
    for (auto it = m_edges.begin(); it != m_edges.end();) {
        if (!seenEdges.contains(it.key())) {
            delete *it;
            it = m_edges.erase(it);
        } else
            ++it;
    }

    // --- layout: no label covers a node or another label ---
    // Obstacles are every node of the canvas; each label placed joins them. A label keeps last
    // frame's place while that is still free (no jitter), else takes the first free candidate
    // around its anchor, nearest first.
    QList<QRectF> taken;
    for (QGraphicsItem *i : m_scene->items())
        if (i->type() == widgets::NodeItem::Type && i->isVisible())
            taken << i->sceneBoundingRect().adjusted(-2, -2, 2, 2);
    auto free = [&taken](const QRectF &r) {
        for (const QRectF &t : taken)
            if (t.intersects(r))
                return false;
        return true;
    };
    auto place = [&](OverlayLabel *l, const QList<QPointF> &candidates, bool ringsAll) {
        const QSizeF size = l->boundingRect().size();
        const QPointF offset = l->boundingRect().topLeft(); // edge labels are centred on pos
        const QRectF previous(l->pos() + offset, size);
        QPointF chosen = candidates.isEmpty() ? l->pos() : candidates.first();
        if (l->placed() && candidates.contains(l->pos()) && free(previous))
            chosen = l->pos();
        else {
            bool found = false;
            for (const QPointF &c : candidates)
                if (free(QRectF(c + offset, size))) {
                    chosen = c;
                    found = true;
                    break;
                }
            // Crowded: step outwards, ring by ring, from the candidates (all of them for an
            // edge, so the label stays nearest its own edge; the first for a node).
            const qsizetype anchors
                = ringsAll ? candidates.size() : std::min<qsizetype>(1, candidates.size());
            for (int ring = 1; !found && ring <= 40; ++ring)
                for (qsizetype a = 0; a < anchors && !found; ++a)
                    for (int k = 0; k < 8 && !found; ++k) {
                        static const QPointF dirs[] = {{0, 1}, {1, 0},  {0, -1}, {-1, 0},
                                                       {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
                        const QPointF c = candidates[a]
                                          + QPointF(dirs[k].x() * ring * size.width() * 0.25,
                                                    dirs[k].y() * ring * (size.height() + 4) * 0.5);
                        if (free(QRectF(c + offset, size))) {
                            chosen = c;
                            found = true;
                        }
                    }
        }
        l->setPos(chosen);
        l->setPlaced(true);
        taken << QRectF(chosen + offset, size).adjusted(-2, -2, 2, 2);
    };
    for (int i = 0; i < nodeLabels.size(); ++i) {
        // Below the node, then right of it, then above it, then further down.
        const QRectF r = owners[i]->sceneBoundingRect();
        const QSizeF size = nodeLabels[i]->boundingRect().size();
        place(nodeLabels[i],
              {{r.left() + 4, r.bottom() + 4},
               {r.right() + 8, r.top()},
               {r.left() + 4, r.top() - size.height() - 4},
               {r.right() + 8, r.bottom() - size.height()},
               {r.left() - size.width() - 8, r.top()},
               {r.left() + 4, r.bottom() + size.height() + 8}},
              false);
    }
    for (int i = 0; i < edgeLabels.size(); ++i) {
        // Along its own edge, from the middle outwards: never beside a node it does not
        // belong to (an edge routed behind another node used to get its label there).
        const QPainterPath path = paths[i]->mapToScene(paths[i]->path());
        QList<QPointF> along;
        for (int k = 0; k <= 8; ++k)
            for (int sign : {1, -1}) {
                along << path.pointAtPercent(0.5 + sign * k * 0.05);
                if (k == 0)
                    break;
            }
        place(edgeLabels[i], along, true);
    }
}

QString CanvasOverlay::nodeText(const QString &node) const
{
    auto *l = m_nodes.value(node);
    return l ? l->text() : QString();
}

QString CanvasOverlay::edgeText(const QString &fromNode,
                                const QString &fromPort,
                                const QString &toNode,
                                const QString &toPort) const
{
    auto *l = m_edges.value(widgets::ConnectionId{fromNode, fromPort, toNode, toPort}.toString());
    return l ? l->text() : QString();
}

void CanvasOverlay::clear()
{
    // The scene may already be gone (window closing): its items died with it.
    if (m_scene) {
        qDeleteAll(m_nodes);
        qDeleteAll(m_edges);
    }
    m_nodes.clear();
    m_edges.clear();
}

} // namespace tideline::live
