#include "live/engine_timelines.hpp"

#include "live/live_style.hpp"
#include "live/time_text.hpp"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <map>
#include <utility>

namespace tideline::live {

namespace {

bool samePanes(const EngineLane &a, const EngineLane &b)
{
    if (!a.note.isEmpty() || !b.note.isEmpty() || a.panes.size() != b.panes.size())
        return false;
    for (std::size_t i = 0; i < a.panes.size(); ++i)
        if (a.panes[i].start != b.panes[i].start || a.panes[i].end != b.panes[i].end
            || a.panes[i].label != b.panes[i].label || a.panes[i].update != b.panes[i].update)
            return false;
    return true;
}

} // namespace

EngineTimelines::EngineTimelines(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("engineTimelines"));
    setAutoFillBackground(false);
}

void EngineTimelines::setLanes(std::vector<EngineLane> lanes, const QString &keyText)
{
    m_lanes = std::move(lanes);
    m_key = keyText;
    updateGeometry();
    update();
}

std::vector<int> EngineTimelines::differingLanes() const
{
    std::vector<int> out;
    for (std::size_t i = 1; i < m_lanes.size(); ++i)
        if (!samePanes(m_lanes[0], m_lanes[i]))
            out.push_back(static_cast<int>(i));
    return out;
}

QSize EngineTimelines::sizeHint() const
{
    const int line = QFontMetrics(style::font(11)).height();
    int rows = 0;
    for (const auto &lane : m_lanes) {
        std::map<std::pair<qint64, qint64>, int> depth;
        int most = 1;
        for (const auto &p : lane.panes)
            most = std::max(most, ++depth[{p.start, p.end}]);
        rows += most;
    }
    const int pad = line / 2;
    const int rowH = line + pad / 2;
    // Title, one rowH per stacked row plus a pad per lane, the axis with its labels.
    return {720, pad + line + pad + rows * rowH + static_cast<int>(m_lanes.size()) * pad + pad
                     + line + pad + 4};
}

QSize EngineTimelines::minimumSizeHint() const
{
    // As tall as every lane needs: in a scroll area the lanes scroll rather than overlap the
    // time axis.
    return {320, sizeHint().height()};
}

void EngineTimelines::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), style::background());
    const QFont font = style::font(11);
    const QFont bold = style::font(11, true);
    const QFontMetrics fm(font);
    const int line = fm.height();
    const int pad = line / 2;
    p.setFont(bold);
    p.setPen(style::text());
    p.drawText(QRect(pad, pad, width() - 2 * pad, line), Qt::AlignLeft | Qt::AlignVCenter,
               m_key.isEmpty() ? tr("Windows of one key, per engine")
                               : tr("Windows of %1").arg(m_key));
    if (m_lanes.empty())
        return;

    qint64 lo = std::numeric_limits<qint64>::max(), hi = std::numeric_limits<qint64>::min();
    for (const auto &lane : m_lanes)
        for (const auto &pane : lane.panes) {
            lo = std::min(lo, pane.start);
            hi = std::max(hi, pane.end);
        }
    int titleWidth = 0;
    QFontMetrics bfm(bold);
    for (const auto &lane : m_lanes)
        titleWidth = std::max(titleWidth, bfm.horizontalAdvance(lane.title + QStringLiteral(" ≠")));
    const int left = pad + titleWidth + pad;
    const int right = width() - pad;
    const int axisY = height() - pad - line;
    const bool any = lo < hi;
    auto xOf = [&](qint64 t) {
        if (!any)
            return left;
        return left + static_cast<int>((right - left) * double(t - lo) / double(hi - lo));
    };

    const std::vector<int> differing = differingLanes();
    int y = pad + line + pad;
    const int rowH = line + pad / 2;
    for (std::size_t i = 0; i < m_lanes.size(); ++i) {
        const EngineLane &lane = m_lanes[i];
        std::map<std::pair<qint64, qint64>, int> depth;
        int most = 1;
        for (const auto &pane : lane.panes)
            most = std::max(most, ++depth[{pane.start, pane.end}]);
        const int laneH = std::max(most, 1) * rowH + pad;
        const bool differs
            = std::find(differing.begin(), differing.end(), int(i)) != differing.end();
        p.fillRect(QRect(0, y - pad / 4, width(), laneH),
                   i % 2 ? style::background() : style::panel());
        p.setFont(bold);
        p.setPen(differs ? style::lateAccepted() : style::text());
        p.drawText(QRect(pad, y, titleWidth, rowH), Qt::AlignLeft | Qt::AlignVCenter,
                   lane.title + (differs ? QStringLiteral(" ≠") : QString()));
        p.setFont(font);
        if (!lane.note.isEmpty()) {
            p.setPen(style::dim());
            p.drawText(QRect(left, y, right - left, rowH), Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(lane.note, Qt::ElideRight, right - left));
        } else if (lane.panes.empty()) {
            p.setPen(style::dim());
            p.drawText(QRect(left, y, right - left, rowH), Qt::AlignLeft | Qt::AlignVCenter,
                       tr("no window of this key"));
        }
        std::map<std::pair<qint64, qint64>, int> row;
        for (const auto &pane : lane.panes) {
            const int r = row[{pane.start, pane.end}]++;
            const int x0 = xOf(pane.start), x1 = std::max(xOf(pane.end), x0 + 3);
            QRectF bar(x0 + 1, y + r * rowH + 1, x1 - x0 - 2, rowH - 2);
            QColor c = pane.update ? style::windowUpdated() : style::windowFired();
            QPainterPath path;
            path.addRoundedRect(bar, 3, 3);
            p.fillPath(path, c.darker(150));
            p.setPen(QPen(c, 1.5));
            p.drawPath(path);
            p.setPen(style::text());
            p.drawText(bar.adjusted(4, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(pane.label, Qt::ElideRight, int(bar.width()) - 6));
        }
        y += laneH;
    }
    // The event-time axis: the first and last bound, and the window bounds in between where
    // there is room for their labels.
    p.setPen(style::grid());
    p.drawLine(left, axisY, right, axisY);
    if (!any)
        return;
    p.setPen(style::dim());
    std::vector<qint64> ticks;
    for (const auto &lane : m_lanes)
        for (const auto &pane : lane.panes)
            ticks.push_back(pane.start), ticks.push_back(pane.end);
    std::sort(ticks.begin(), ticks.end());
    ticks.erase(std::unique(ticks.begin(), ticks.end()), ticks.end());
    int lastRight = std::numeric_limits<int>::min();
    for (qint64 t : ticks) {
        const QString text = eventTimeText(t);
        const int w = fm.horizontalAdvance(text);
        const int x = std::clamp(xOf(t) - w / 2, left, right - w);
        p.drawLine(xOf(t), axisY - 3, xOf(t), axisY + 3);
        if (x <= lastRight + pad && t != ticks.back())
            continue;
        p.drawText(QRect(x, axisY + 2, w, line), Qt::AlignCenter, text);
        lastRight = x + w;
    }
}

} // namespace tideline::live
