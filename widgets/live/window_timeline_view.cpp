#include "window_timeline_view.hpp"

#include "live_style.hpp"
#include "time_text.hpp"
#include "window_timeline_model.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFontMetricsF>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSet>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace tideline::live {

namespace {

qint64 niceStep(double span, int ticks)
{
    static const qint64 steps[]
        = {1,      2,      5,       10,      20,      50,       100,      200,     500,
           1000,   2000,   5000,    10000,   15000,   30000,    60000,    120000,  300000,
           600000, 900000, 1800000, 3600000, 7200000, 21600000, 43200000, 86400000};
    for (qint64 s : steps)
        if (span / static_cast<double>(s) <= ticks)
            return s;
    return 86400000;
}

QColor stateColour(TimelineWindow::State s)
{
    switch (s) {
    case TimelineWindow::Open:
        return style::windowOpen();
    case TimelineWindow::Fired:
        return style::windowFired();
    case TimelineWindow::Updated:
        return style::windowUpdated();
    case TimelineWindow::Purged:
        return style::windowPurged();
    }
    return Qt::gray;
}

QColor dotColour(TimelineDot::Status s)
{
    switch (s) {
    case TimelineDot::OnTime:
        return style::onTime();
    case TimelineDot::LateAccepted:
        return style::lateAccepted();
    case TimelineDot::TooLate:
        return style::tooLate();
    }
    return Qt::gray;
}

QString rangeText(qint64 start, qint64 end)
{
    return QStringLiteral("[%1, %2)").arg(eventTimeText(start), eventTimeText(end));
}

/// One entry of the legend: a swatch (bar, dot or line) and its text.
struct LegendItem
{
    enum Kind { Bar, Dot, Line, Note } kind;
    QColor colour;
    QString text;
};

} // namespace

WindowTimelineCanvas::WindowTimelineCanvas(QWidget *parent)
    : QWidget(parent)
{
    setMinimumHeight(static_cast<int>(style::px(150)));
    setAutoFillBackground(false);
    setMouseTracking(true);
    setObjectName(QStringLiteral("windowTimelineCanvas"));
    connect(&widgets::UiScale::instance(), &widgets::UiScale::changed, this, [this] {
        setMinimumHeight(static_cast<int>(style::px(150)));
        updateGeometry();
        update();
    });
}

QSize WindowTimelineCanvas::sizeHint() const
{
    return QSize(static_cast<int>(style::px(900)), static_cast<int>(style::px(320)));
}

qint64 WindowTimelineCanvas::span() const
{
    if (m_span > 0 || !m_model)
        return std::max<qint64>(m_span, 1000);
    switch (m_model->type()) {
    case WindowTimelineModel::Type::Session:
        return std::max<qint64>(m_model->gap() * 8, 1000);
    case WindowTimelineModel::Type::Sliding:
    case WindowTimelineModel::Type::Tumbling:
        return std::max<qint64>(m_model->size() * 5 + m_model->lateness(), 1000);
    case WindowTimelineModel::Type::Unknown:
        break;
    }
    return 60000;
}

void WindowTimelineCanvas::wheelEvent(QWheelEvent *event)
{
    const double factor = event->angleDelta().y() > 0 ? 0.8 : 1.25;
    m_span = std::clamp<qint64>(static_cast<qint64>(static_cast<double>(span()) * factor), 100,
                                86400000LL * 30);
    update();
    event->accept();
}

QList<QPointF> WindowTimelineCanvas::dotCentres() const
{
    QList<QPointF> out;
    for (const auto &h : m_dotHits)
        out << h.centre;
    return out;
}

QList<QRectF> WindowTimelineCanvas::barRects() const
{
    QList<QRectF> out;
    for (const auto &h : m_barHits)
        out << h.rect;
    return out;
}

QString WindowTimelineCanvas::keyText(const QString &key) const
{
    if (!m_model || m_model->keyFields().isEmpty())
        return tr("all records (no key)");
    return m_model->keyFields().join(QStringLiteral(", ")) + QStringLiteral(" = ") + key;
}

QString WindowTimelineCanvas::describeDot(const TimelineDot &d) const
{
    const WindowTimelineModel &m = *m_model;
    QString text;
    switch (d.status) {
    case TimelineDot::OnTime:
        text = tr("Record at %1 — on time").arg(eventTimeText(d.t));
        break;
    case TimelineDot::LateAccepted:
        text = tr("Record at %1 — late (behind W = %2) but accepted: a window still takes it")
                   .arg(eventTimeText(d.t), eventTimeText(d.watermark));
        break;
    case TimelineDot::TooLate:
        text = tr("Record at %1 — too late: sent to `late`").arg(eventTimeText(d.t));
        break;
    }
    text += '\n' + keyText(d.key);
    if (!d.json.isEmpty())
        text += '\n' + d.json;
    if (d.status != TimelineDot::TooLate) {
        const auto wins = m.windowsAt(d.key, d.t);
        QStringList parts;
        for (const auto &w : wins)
            parts << rangeText(w.start, w.end);
        if (!parts.isEmpty())
            text += '\n'
                    + (parts.size() == 1 ? tr("Fell into window %1").arg(parts.first())
                                         : tr("Fell into windows %1").arg(parts.join(", ")));
        return text;
    }
    // Too late: which window(s) it missed, and when they closed for good.
    const qint64 lateness = m.lateness();
    QStringList missed;
    for (const auto &r : m.windowRangesFor(d.t)) {
        const qint64 closedAt = r.second - 1 + lateness;
        missed << tr("%1, closed for good at W = %2 (end − 1%3)")
                      .arg(rangeText(r.first, r.second), eventTimeText(closedAt),
                           lateness > 0 ? tr(" + allowed lateness %1").arg(durationText(lateness))
                                        : QString());
    }
    if (!missed.isEmpty())
        text += '\n'
                + (missed.size() == 1 ? tr("Missed window %1").arg(missed.first())
                                      : tr("Missed windows %1").arg(missed.join("; ")));
    if (d.watermark)
        text += '\n' + tr("W was %1 when it arrived").arg(eventTimeText(d.watermark));
    return text;
}

QString WindowTimelineCanvas::describeWindow(const TimelineWindow &w) const
{
    const WindowTimelineModel &m = *m_model;
    QString state;
    switch (w.state) {
    case TimelineWindow::Open:
        state = tr("open: fires when W reaches %1 (end − 1)").arg(eventTimeText(w.end - 1));
        break;
    case TimelineWindow::Fired:
        state = tr("fired");
        break;
    case TimelineWindow::Updated:
        state = w.updates == 1 ? tr("fired, then updated once by a late record")
                               : tr("fired, then updated %1 times by late records").arg(w.updates);
        break;
    case TimelineWindow::Purged:
        state = tr("purged");
        break;
    }
    QString text = tr("Window %1\n%2\n%3 · %4")
                       .arg(rangeText(w.start, w.end), keyText(w.key),
                            countNoun(w.records, tr("record"), tr("records")), state);
    if (w.parts > 1)
        text += tr(" · merged from %1 sessions").arg(w.parts);
    if (m.lateness() > 0 && w.state != TimelineWindow::Open)
        text += '\n'
                + (w.purged ? tr("Closed for good at W = %1: later records go to `late`")
                            : tr("Takes late records until W = %1 (end − 1 + allowed lateness)"))
                      .arg(eventTimeText(w.end - 1 + m.lateness()));
    if (!w.result.isEmpty())
        text += '\n' + tr("Result: %1").arg(w.result);
    return text;
}

const WindowTimelineCanvas::DotHit *WindowTimelineCanvas::dotAt(const QPointF &pos) const
{
    // Dots lie over bars: the nearest dot within reach wins.
    const DotHit *best = nullptr;
    double bestD = 0;
    for (const auto &h : m_dotHits) {
        const double d = QLineF(h.centre, pos).length();
        if (d <= h.radius + style::px(3) && (!best || d < bestD)) {
            best = &h;
            bestD = d;
        }
    }
    return best;
}

const WindowTimelineCanvas::BarHit *WindowTimelineCanvas::barAt(const QPointF &pos) const
{
    for (auto it = m_barHits.crbegin(); it != m_barHits.crend(); ++it)
        if (it->rect.contains(pos))
            return &*it;
    return nullptr;
}

QString WindowTimelineCanvas::describeAt(const QPointF &pos) const
{
    if (!m_model)
        return {};
    if (const DotHit *d = dotAt(pos))
        return describeDot(d->dot);
    if (const BarHit *b = barAt(pos))
        return describeWindow(b->window);
    return {};
}

bool WindowTimelineCanvas::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = describeAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void WindowTimelineCanvas::mouseMoveEvent(QMouseEvent *event)
{
    setCursor(describeAt(event->position()).isEmpty() ? Qt::ArrowCursor : Qt::PointingHandCursor);
    QWidget::mouseMoveEvent(event);
}

void WindowTimelineCanvas::mousePressEvent(QMouseEvent *event)
{
    const QString text = describeAt(event->position());
    if (event->button() == Qt::LeftButton && !text.isEmpty()) {
        Q_EMIT itemClicked(text);
        // (copies: a slot may repaint, which rebuilds the hits)
        if (const DotHit *d = dotAt(event->position())) {
            const TimelineDot dot = d->dot;
            Q_EMIT dotClicked(dot);
        } else if (const BarHit *b = barAt(event->position())) {
            const TimelineWindow w = b->window;
            Q_EMIT windowClicked(w);
        }
        event->accept();
        return;
    }
    QWidget::mousePressEvent(event);
}

void WindowTimelineCanvas::paintEvent(QPaintEvent *)
{
    m_dotHits.clear();
    m_barHits.clear();
    m_wLabel = m_newestLabel = QRectF();
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.fillRect(rect(), style::background());
    if (!m_model || m_model->nodeId().isEmpty()) {
        p.setPen(style::dim());
        p.setFont(style::font(13));
        p.drawText(rect(), Qt::AlignCenter,
                   tr("Select a window node on the canvas to see its windows,\nits records and its "
                      "watermark on an event-time axis."));
        return;
    }
    const WindowTimelineModel &m = *m_model;
    const auto w = m.watermark();
    const auto maxT = m.maxEventTime();
    if (!maxT) {
        p.setPen(style::dim());
        p.setFont(style::font(13));
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                   m_emptyNote.isEmpty() ? tr("No record has reached `%1` yet.").arg(m.nodeId())
                                         : m_emptyNote);
        return;
    }

    // --- layout at the presentation scale ---
    const double rowText = QFontMetricsF(style::font(10)).height();
    const double markerRow = QFontMetricsF(style::font(10, true)).height() + style::px(3);
    const double tickTop = style::px(4);
    const double marker1 = tickTop + rowText + style::px(4);   // W's label row
    const double marker2 = marker1 + markerRow + style::px(2); // newest event's row if they meet
    const double axisHeight = marker2 + markerRow + style::px(3);
    QFontMetricsF laneFm(style::font(11));
    double labelWidth = style::px(90);
    const QStringList allKeys = m.keys();
    for (const QString &k : allKeys.mid(std::max<qsizetype>(0, allKeys.size() - 200)))
        labelWidth = std::max(labelWidth, laneFm.horizontalAdvance(k) + style::px(14));
    labelWidth = std::min(labelWidth, std::max(style::px(90), width() * 0.22));

    // Legend: as many rows as the width needs (it wraps instead of being cut).
    QList<LegendItem> legend{{LegendItem::Bar, style::windowOpen(), tr("open")},
                             {LegendItem::Bar, style::windowFired(), tr("fired")},
                             {LegendItem::Bar, style::windowUpdated(), tr("updated")}};
    if (m.lateness() > 0)
        legend.push_back({LegendItem::Bar, style::windowPurged(), tr("purged")});
    legend.push_back({LegendItem::Dot, style::onTime(), tr("on time")});
    legend.push_back({LegendItem::Dot, style::lateAccepted(), tr("late, accepted")});
    legend.push_back({LegendItem::Dot, style::tooLate(), tr("too late (→ late)")});
    legend.push_back({LegendItem::Line, style::watermark(), tr("watermark")});
    QFontMetricsF legendFm(style::font(10));
    const double swatchW = style::px(22), gapW = style::px(12);
    const double legendRowH = legendFm.height() + style::px(6);
    auto legendLayout = [&](const QList<LegendItem> &items) {
        QList<QPointF> at;
        double x = style::px(8), y = 0;
        int rows = 1;
        for (const auto &it : items) {
            const double wItem = (it.kind == LegendItem::Note ? 0 : swatchW)
                                 + legendFm.horizontalAdvance(it.text) + gapW;
            if (x > style::px(8) && x + wItem > width() - style::px(4)) {
                x = style::px(8);
                y += legendRowH;
                ++rows;
            }
            at.push_back({x, y});
            x += wItem;
        }
        return std::make_pair(at, rows);
    };

    // --- visible event-time range: the newest events at the right, the watermark in view ---
    const qint64 spanMs = span();
    qint64 right = *maxT;
    if (m.type() != WindowTimelineModel::Type::Unknown)
        right += std::max(m.size(), m.gap()); // the newest open window fully in view
    if (!m_follow && m_lastRight != 0)
        right = m_lastRight;
    m_lastRight = right;
    const qint64 left = right - spanMs;

    // --- lanes: one per key (the filter shows one key) ---
    QStringList lanes;
    if (!m_keyFilter.isEmpty())
        lanes << m_keyFilter;
    else {
        // Keys with something in view, as many as fit.
        QSet<QString> seen;
        for (auto it = m.windows().constEnd(); it != m.windows().constBegin();) {
            --it;
            if (it->end < left)
                break;
            if (it->start <= right)
                seen.insert(it->key);
        }
        for (auto it = m.dots().crbegin(); it != m.dots().crend() && seen.size() < 400; ++it)
            if (it->t >= left && it->t <= right)
                seen.insert(it->key);
        for (const QString &k : allKeys)
            if (seen.contains(k))
                lanes << k;
    }
    const int rowsPerWindow = m.type() == WindowTimelineModel::Type::Sliding && m.slide() > 0
                                  ? static_cast<int>(std::clamp<qint64>(m.size() / m.slide(), 1, 6))
                                  : 1;
    // The legend's rows depend on a note about hidden keys, which depends on the lanes: lay
    // out with the note's worst case first.
    auto [legendAt, legendRows] = legendLayout(legend);
    double legendHeight = legendRows * legendRowH + style::px(6);
    QRectF plot(labelWidth, axisHeight, width() - labelWidth - style::px(12),
                height() - axisHeight - legendHeight);
    const double minLane = style::px(22.0 + 6.0 * rowsPerWindow);
    const int maxLanes = std::max(1, static_cast<int>(plot.height() / minLane));
    int hiddenLanes = 0;
    if (lanes.size() > maxLanes) {
        hiddenLanes = static_cast<int>(lanes.size()) - maxLanes;
        lanes = lanes.mid(lanes.size() - maxLanes);
        legend.push_back({LegendItem::Note, style::dim(),
                          tr("+%1 keys not shown: pick one above").arg(hiddenLanes)});
        std::tie(legendAt, legendRows) = legendLayout(legend);
        legendHeight = legendRows * legendRowH + style::px(6);
        plot.setHeight(height() - axisHeight - legendHeight);
    }
    m_legendRows = legendRows;
    auto xOf = [&](qint64 t) {
        return plot.left()
               + static_cast<double>(t - left) / static_cast<double>(spanMs) * plot.width();
    };
    const double laneH
        = lanes.isEmpty() ? plot.height() : std::min(style::px(110), plot.height() / lanes.size());
    QHash<QString, int> laneOf;
    for (int i = 0; i < lanes.size(); ++i)
        laneOf.insert(lanes[i], i);

    // --- axis ---
    p.setFont(style::font(10));
    const qint64 step = niceStep(static_cast<double>(spanMs),
                                 std::max(2, static_cast<int>(plot.width() / style::px(110))));
    const qint64 first = (left / step + 1) * step;
    for (qint64 t = first; t <= right; t += step) {
        const double x = xOf(t);
        p.setPen(QPen(style::grid(), 1));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        p.setPen(style::dim());
        const QString label = QDateTime::fromMSecsSinceEpoch(t, Qt::UTC)
                                  .toString(step < 1000 ? QStringLiteral("HH:mm:ss.zzz")
                                                        : QStringLiteral("HH:mm:ss"));
        p.drawText(QRectF(x - style::px(60), tickTop, style::px(120), rowText), Qt::AlignCenter,
                   label);
    }
    // The key's field names head the lane labels (the lanes show values only: long field
    // names such as bid.auction no longer push the values out of sight).
    p.setPen(style::dim());
    const QString keyHeader = m.keyFields().isEmpty() ? tr("event time →")
                                                      : m.keyFields().join(QStringLiteral(" | "))
                                                            + QStringLiteral(" ↓");
    p.drawText(QRectF(style::px(4), marker1, labelWidth - style::px(8), markerRow * 2),
               Qt::AlignLeft | Qt::AlignBottom,
               p.fontMetrics().elidedText(keyHeader, Qt::ElideRight,
                                          static_cast<int>(labelWidth - style::px(8))));

    // --- lanes backgrounds and labels ---
    for (int i = 0; i < lanes.size(); ++i) {
        const QRectF lane(plot.left(), plot.top() + i * laneH, plot.width(), laneH);
        if (i % 2)
            p.fillRect(lane, style::panel());
        p.setPen(style::text());
        p.setFont(style::font(laneH >= style::px(30) ? 11 : 9));
        const QString name = m.keyFields().isEmpty() ? tr("(all)") : lanes[i];
        p.drawText(QRectF(style::px(4), lane.top(), labelWidth - style::px(8), laneH),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   p.fontMetrics().elidedText(name, Qt::ElideMiddle,
                                              static_cast<int>(labelWidth - style::px(8))));
    }
    p.save();
    p.setClipRect(plot.adjusted(-6, -2, 6, 2));

    // --- windows ---
    const double barArea = laneH * 0.62;
    const double rowH = std::max(style::px(4), (barArea - 4) / rowsPerWindow);
    const qint64 newestFiring = m.firings();
    for (auto it = m.windows().constBegin(); it != m.windows().constEnd(); ++it) {
        const TimelineWindow &win = it.value();
        if (win.end < left || win.start > right)
            continue;
        auto li = laneOf.constFind(win.key);
        if (li == laneOf.constEnd())
            continue;
        int row = 0;
        if (rowsPerWindow > 1)
            row = static_cast<int>(((win.start / m.slide()) % rowsPerWindow + rowsPerWindow)
                                   % rowsPerWindow);
        const double top = plot.top() + *li * laneH + 3 + row * rowH;
        QRectF bar(xOf(win.start), top, std::max(2.0, xOf(win.end) - xOf(win.start)), rowH - 2);
        m_barHits.push_back({bar, win});
        // Merged sessions: the record windows they swallowed, as thin ghost bars underneath.
        if (win.parts > 1)
            for (const auto &r : win.partRanges) {
                QRectF ghost(xOf(r.first), bar.bottom() - 3, xOf(r.second) - xOf(r.first), 3);
                p.fillRect(ghost, QColor(255, 255, 255, 60));
            }
        // A purged window keeps the colour of what it did (fired / updated), faded.
        const QColor c = stateColour(win.state);
        QColor fill = c;
        fill.setAlpha(win.state == TimelineWindow::Open ? 70 : win.purged ? 55 : 150);
        QColor line = c;
        if (win.purged)
            line.setAlpha(150);
        p.setPen(QPen(line, win.state == TimelineWindow::Open ? 2.0 : 1.2,
                      win.state == TimelineWindow::Open ? Qt::DashLine : Qt::SolidLine));
        p.setBrush(fill);
        p.drawRoundedRect(bar.adjusted(1, 0, -1, 0), 3, 3);
        if (win.state != TimelineWindow::Open && win.firedSeq > 0) {
            // Firing marker at the end of the window; the latest firings are brighter.
            const bool recent = newestFiring - win.firedSeq < 3;
            QPainterPath tri;
            const double x = bar.right();
            tri.moveTo(x - 6, top - 3);
            tri.lineTo(x + 6, top - 3);
            tri.lineTo(x, top + 5);
            tri.closeSubpath();
            p.fillPath(tri, recent ? QColor(255, 255, 255) : c.lighter(130));
        }
        // Inside the bar: how many records, and a merge note for sessions.
        if (bar.width() > style::px(44) && rowH >= style::px(14)) {
            QString text = QStringLiteral("%1 rec").arg(win.records);
            if (win.parts > 1)
                text += tr(" · merged %1").arg(win.parts);
            if (win.updates > 0)
                text += tr(" · %1 upd").arg(win.updates);
            if (!win.result.isEmpty() && bar.width() > style::px(160))
                text += QStringLiteral(" · ") + win.result;
            p.setPen(style::text());
            p.setFont(style::font(rowH >= style::px(20) ? 10 : 8));
            p.drawText(bar.adjusted(6, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
                       p.fontMetrics().elidedText(text, Qt::ElideRight,
                                                  static_cast<int>(bar.width() - 10)));
        }
    }

    // --- records ---
    const double dotY0 = barArea + 2;
    const double radius = std::clamp(laneH * 0.12, style::px(3.0), style::px(6.0));
    auto dotCentre = [&](const TimelineDot &d, int lane) {
        const double jitter = static_cast<double>((d.seq * 37) % 5 - 2) * radius * 0.7;
        return QPointF(xOf(d.t), plot.top() + lane * laneH + dotY0 + (laneH - dotY0) / 2 + jitter);
    };
    // On-time dots first, then late-but-accepted, then too late on top: the rare ones stay
    // visible in a dense stream. A small vertical jitter keeps neighbours apart.
    for (int pass = 0; pass < 3; ++pass)
        for (auto it = m.dots().crbegin(); it != m.dots().crend(); ++it) {
            if (it->status != pass || it->t < left || it->t > right)
                continue;
            auto li = laneOf.constFind(it->key);
            if (li == laneOf.constEnd())
                continue;
            const QPointF c = dotCentre(*it, *li);
            const QColor col = dotColour(it->status);
            const double r = it->status == TimelineDot::OnTime ? radius : radius + style::px(1.5);
            if (m_dotHits.size() < 20000)
                m_dotHits.push_back({c, r, *it});
            p.setPen(QPen(col.darker(160), 1));
            p.setBrush(col);
            p.drawEllipse(c, r, r);
            if (it->status == TimelineDot::TooLate) {
                p.setPen(QPen(Qt::white, 1.6));
                p.drawLine(c + QPointF(-r * 0.6, -r * 0.6), c + QPointF(r * 0.6, r * 0.6));
                p.drawLine(c + QPointF(-r * 0.6, r * 0.6), c + QPointF(r * 0.6, -r * 0.6));
            }
        }
    // The newest record gets a ring: Step shows where it went.
    if (!m.dots().empty()) {
        const TimelineDot &d = m.dots().back();
        auto li = laneOf.constFind(d.key);
        if (li != laneOf.constEnd() && d.t >= left && d.t <= right) {
            p.setPen(QPen(Qt::white, 2.2));
            p.setBrush(Qt::NoBrush);
            p.drawEllipse(dotCentre(d, *li), radius + 5, radius + 5);
        }
    }
    p.restore();

    // --- watermark and newest event ---
    // Labels live in the band above the lanes, W's left of its line and the newest event's
    // right of it; when they would meet (clamped at an edge, or the lines close together) the
    // newest event's label takes the second row: neither ever covers the other, nor records.
    p.setFont(style::font(10, true));
    auto labelBox = [&](qint64 t, const QString &label, bool leftOfLine, double y) {
        const double x = xOf(t);
        const double tw = p.fontMetrics().horizontalAdvance(label) + style::px(10);
        const double bx
            = leftOfLine ? std::max(0.0, x - tw - 3) : std::min(x + 3, width() - tw - 2);
        return QRectF(bx, y, tw, markerRow);
    };
    auto drawLine = [&](qint64 t, const QColor &col, Qt::PenStyle ps, double top) {
        const double x = xOf(t);
        p.setPen(QPen(col, style::px(2.4), ps));
        p.drawLine(QPointF(x, top), QPointF(x, plot.bottom()));
    };
    auto drawLabel = [&](const QRectF &box, const QColor &col, const QString &label) {
        p.fillRect(box, QColor(0, 0, 0, 170));
        p.setPen(col);
        p.drawText(box, Qt::AlignCenter, label);
    };
    const bool showW = w && *w != kEnded && *w >= left && *w <= right;
    const bool showNewest = *maxT >= left && *maxT <= right;
    const QString wText = showW ? tr("W = %1").arg(eventTimeText(w)) : QString();
    const QString newestText = tr("newest event %1").arg(eventTimeText(maxT));
    if (showW)
        m_wLabel = labelBox(*w, wText, true, marker1);
    if (showNewest) {
        m_newestLabel = labelBox(*maxT, newestText, false, marker1);
        if (showW && m_newestLabel.intersects(m_wLabel.adjusted(-2, 0, 2, 0)))
            m_newestLabel.moveTop(marker2);
    }
    if (showNewest)
        drawLine(*maxT, style::dim(), Qt::DashLine, m_newestLabel.top());
    if (showW)
        drawLine(*w, style::watermark(), Qt::SolidLine, m_wLabel.top());
    if (showNewest)
        drawLabel(m_newestLabel, style::dim(), newestText);
    if (showW)
        drawLabel(m_wLabel, style::watermark(), wText);

    // --- legend ---
    const double ly0 = height() - legendHeight + style::px(4);
    p.setFont(style::font(10));
    const double sw = style::px(5), sh = style::px(12);
    for (int i = 0; i < legend.size(); ++i) {
        const LegendItem &it = legend[i];
        const double lx = legendAt[i].x();
        const double ly = ly0 + legendAt[i].y();
        const double mid = ly + legendRowH / 2 - style::px(3);
        switch (it.kind) {
        case LegendItem::Bar:
            p.setPen(QPen(it.colour, 1.5));
            p.setBrush(QColor(it.colour.red(), it.colour.green(), it.colour.blue(), 130));
            p.drawRoundedRect(QRectF(lx, mid - sh / 2, style::px(18), sh), 2, 2);
            break;
        case LegendItem::Dot:
            p.setPen(QPen(it.colour, 1.5));
            p.setBrush(it.colour);
            p.drawEllipse(QPointF(lx + style::px(6), mid), sw, sw);
            break;
        case LegendItem::Line:
            p.setPen(QPen(it.colour, style::px(2.4)));
            p.drawLine(QPointF(lx, mid), QPointF(lx + style::px(18), mid));
            break;
        case LegendItem::Note:
            break;
        }
        p.setPen(it.kind == LegendItem::Note ? style::dim() : style::text());
        const double tx = lx + (it.kind == LegendItem::Note ? 0 : swatchW);
        p.drawText(
            QRectF(tx, ly, legendFm.horizontalAdvance(it.text) + 2, legendRowH - style::px(6)),
            Qt::AlignLeft | Qt::AlignVCenter, it.text);
    }
}

WindowTimelineView::WindowTimelineView(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_keys(new QComboBox(this))
    , m_follow(new QCheckBox(tr("Follow"), this))
    , m_canvas(new WindowTimelineCanvas(this))
    , m_details(new QLabel(this))
{
    setObjectName(QStringLiteral("windowTimeline"));
    m_summary->setFont(style::font(11));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_keys->setMinimumContentsLength(10);
    m_keys->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_summary->setMinimumWidth(120);
    m_keys->addItem(tr("All keys"), QString());
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Keep the newest events in view"));
    // The summary's two lines beside the key picker over Follow: no width wasted.
    auto *top = new QGridLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(m_summary, 0, 0, 2, 1);
    auto *keyRow = new QHBoxLayout;
    keyRow->addWidget(new QLabel(tr("Key:"), this));
    keyRow->addWidget(m_keys, 1);
    top->addLayout(keyRow, 0, 1);
    top->addWidget(m_follow, 1, 1, Qt::AlignRight);
    top->setColumnStretch(0, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_canvas, 1);
    m_details->setObjectName(QStringLiteral("timelineDetails"));
    m_details->setFont(style::font(10));
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setVisible(false); // until something is clicked: the canvas needs the height
    layout->addWidget(m_details);
    connect(m_canvas, &WindowTimelineCanvas::itemClicked, this, [this](const QString &details) {
        m_details->setText(details);
        m_details->setVisible(true);
    });
    connect(m_canvas, &WindowTimelineCanvas::dotClicked, this,
            [this](const TimelineDot &d) { Q_EMIT traceRequested(traceQueryFor(d)); });
    connect(m_canvas, &WindowTimelineCanvas::windowClicked, this,
            [this](const TimelineWindow &w) { Q_EMIT traceRequested(traceQueryFor(w)); });
    connect(m_keys, &QComboBox::currentIndexChanged, this,
            [this](int) { m_canvas->setKeyFilter(m_keys->currentData().toString()); });
    connect(m_follow, &QCheckBox::toggled, m_canvas, &WindowTimelineCanvas::setFollow);
}

void WindowTimelineView::setModel(const WindowTimelineModel *model)
{
    m_model = model;
    m_keyCount = -1;
    m_keys->blockSignals(true);
    m_keys->clear();
    m_keys->addItem(tr("All keys"), QString());
    m_keys->blockSignals(false);
    m_canvas->setKeyFilter(QString());
    m_canvas->setSpan(0);
    m_canvas->setModel(model);
    m_details->clear();
    m_details->setVisible(false);
    refresh();
}

QString WindowTimelineView::summaryText() const
{
    return m_summary->text();
}

QString WindowTimelineView::detailsText() const
{
    return m_details->text();
}

void WindowTimelineView::refresh()
{
    if (!m_model || m_model->nodeId().isEmpty()) {
        m_summary->setText(tr("<b>Window timeline</b> — no window node selected"));
        m_canvas->update();
        return;
    }
    const WindowTimelineModel &m = *m_model;
    m_summary->setToolTip(m.describe());
    if (m.keys().size() != m_keyCount && m.keys().size() <= 500) {
        // New keys appear at the end; keep the current choice.
        for (qsizetype i = std::max<qsizetype>(0, m_keyCount); i < m.keys().size(); ++i)
            m_keys->addItem(m.keys()[i], m.keys()[i]);
        m_keyCount = static_cast<int>(m.keys().size());
    }
    // Two short lines: what the node is and where W is; then the counts.
    m_summary->setText(
        tr("<b>%1</b> <span style='color:#a8aeb8'>(%2)</span> · W = <b>%3</b><br>windows: "
           "<span style='color:%4'>open %5</span> · <span style='color:%6'>fired %7</span> · "
           "<span style='color:%8'>updated %9</span>%10 &nbsp;·&nbsp; records: "
           "<span style='color:%11'>on time %12</span> · <span style='color:%13'>late, accepted "
           "%14</span> · "
           "<span style='color:%15'>too late %16</span>")
            .arg(m.nodeId().toHtmlEscaped(), m.describe(true).toHtmlEscaped(),
                 eventTimeText(m.watermark()), style::windowOpen().name())
            .arg(m.windowCount(TimelineWindow::Open))
            .arg(style::windowFired().name())
            .arg(m.windowCount(TimelineWindow::Fired))
            .arg(style::windowUpdated().name())
            .arg(m.windowCount(TimelineWindow::Updated))
            .arg(m.lateness() > 0 ? tr(" · purged %1").arg(m.windowCount(TimelineWindow::Purged))
                                  : QString())
            .arg(style::onTime().name())
            .arg(m.dotCount(TimelineDot::OnTime))
            .arg(style::lateAccepted().name())
            .arg(m.dotCount(TimelineDot::LateAccepted))
            .arg(style::tooLate().name())
            .arg(m.dotCount(TimelineDot::TooLate)));
    m_canvas->update();
}

} // namespace tideline::live
