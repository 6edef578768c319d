#include "live_history.hpp"

#include <QSet>

namespace tideline::live {

namespace {
const QList<QPointF> kEmpty;

void push(QList<QPointF> &list, double x, double y)
{
    // Flat stretches collapse to their two ends: a long idle run stays small.
    if (list.size() >= 2 && list[list.size() - 1].y() == y && list[list.size() - 2].y() == y) {
        list.last().setX(x);
        return;
    }
    list.push_back({x, y});
}
} // namespace

void LiveHistory::clear()
{
    *this = LiveHistory();
}

void LiveHistory::append(Snapshot &s)
{
    const double x = static_cast<double>(s.takenAtMs - s.startedAtMs) / 1000.0;
    const bool fresh = s.takenAtMs != m_lastTaken;
    m_lastTaken = s.takenAtMs;
    ++m_count;
    for (auto &n : s.nodes) {
        if (!m_series.contains(n.node)) {
            m_order.push_back(n.node);
            m_kinds.insert(n.node, n.kind);
        }
        NodeSeries &ns = m_series[n.node];
        // Rates over the snapshots of about the last three seconds: over one, a paced run at
        // 2 records/s read 1.0 or 3.0 depending on where the second's edges fell.
        auto &r = m_rates[n.node];
        if (fresh)
            r.push_back({s.takenAtMs, n.recordsIn, n.recordsOut});
        while (r.size() > 2 && r.back().t - r[1].t >= 3000)
            r.pop_front();
        if (r.size() >= 2 && r.back().t > r.front().t) {
            const double dt = static_cast<double>(r.back().t - r.front().t) / 1000.0;
            n.inRate = static_cast<double>(r.back().in - r.front().in) / dt;
            n.outRate = static_cast<double>(r.back().out - r.front().out) / dt;
        }
        ns.watermark = n.watermark;
        ns.maxEventTime = n.maxEventTime;
        if (n.watermark && *n.watermark != kEnded)
            push(ns.figures[int(Figure::Watermark)], x, static_cast<double>(*n.watermark));
        if (n.maxEventTime)
            push(ns.figures[int(Figure::MaxEventTime)], x, static_cast<double>(*n.maxEventTime));
        push(ns.figures[int(Figure::OpenWindows)], x, static_cast<double>(n.openWindows));
        push(ns.figures[int(Figure::StateEntries)], x, static_cast<double>(n.stateEntries));
        push(ns.figures[int(Figure::StateBytes)], x, static_cast<double>(n.stateBytes));
        push(ns.figures[int(Figure::Late)], x, static_cast<double>(n.late));
        push(ns.figures[int(Figure::Errors)], x, static_cast<double>(n.errors));
        if (n.stateEntries > 0 || n.openWindows > 0 || n.kind == QLatin1String("window")
            || n.kind == QLatin1String("dedup") || n.kind == QLatin1String("join"))
            m_stateful.insert(n.node);
        if (n.late > 0 || n.errors > 0)
            m_lateOrErrors.insert(n.node);
    }
    m_checkpoints = s.checkpointHistory;
}

const QList<QPointF> &LiveHistory::series(const QString &node, Figure f) const
{
    auto it = m_series.constFind(node);
    return it == m_series.constEnd() ? kEmpty : it->figures[int(f)];
}

std::optional<qint64> LiveHistory::lastWatermark(const QString &node) const
{
    auto it = m_series.constFind(node);
    return it == m_series.constEnd() ? std::nullopt : it->watermark;
}

std::optional<qint64> LiveHistory::lastMaxEventTime(const QString &node) const
{
    auto it = m_series.constFind(node);
    return it == m_series.constEnd() ? std::nullopt : it->maxEventTime;
}

} // namespace tideline::live
