#include "window_timeline_view.hpp"

#include "live_style.hpp"
#include "time_text.hpp"
#include "window_timeline_model.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QSet>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace tideline::live {

namespace {

constexpr int kLabelWidth = 130;
constexpr int kAxisHeight = 50;
constexpr int kLegendHeight = 30;

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

} // namespace

WindowTimelineCanvas::WindowTimelineCanvas(QWidget *parent)
    : QWidget(parent)
{
    setMinimumHeight(200);
    setAutoFillBackground(false);
    setObjectName(QStringLiteral("windowTimelineCanvas"));
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

void WindowTimelineCanvas::paintEvent(QPaintEvent *)
{
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

    // --- visible event-time range: the newest events at the right, the watermark in view ---
    const qint64 spanMs = span();
    qint64 right = *maxT;
    if (m.type() != WindowTimelineModel::Type::Unknown)
        right += std::max(m.size(), m.gap()); // the newest open window fully in view
    if (!m_follow && m_lastRight != 0)
        right = m_lastRight;
    const_cast<WindowTimelineCanvas *>(this)->m_lastRight = right;
    const qint64 left = right - spanMs;
    const QRectF plot(kLabelWidth, kAxisHeight, width() - kLabelWidth - 12,
                      height() - kAxisHeight - kLegendHeight);
    auto xOf = [&](qint64 t) {
        return plot.left()
               + static_cast<double>(t - left) / static_cast<double>(spanMs) * plot.width();
    };

    // --- lanes: one per key (the filter shows one key) ---
    QStringList lanes;
    if (!m_keyFilter.isEmpty())
        lanes << m_keyFilter;
    else {
        // Keys with something in view, newest activity last, as many as fit.
        QSet<QString> seen;
        for (auto it = m.windows().constEnd(); it != m.windows().constBegin();) {
            --it;
            if (it->end < left)
                break;
            if (it->start <= right && !seen.contains(it->key)) {
                seen.insert(it->key);
            }
        }
        for (auto it = m.dots().crbegin(); it != m.dots().crend() && seen.size() < 400; ++it)
            if (it->t >= left && it->t <= right)
                seen.insert(it->key);
        for (const QString &k : m.keys())
            if (seen.contains(k))
                lanes << k;
    }
    const int rowsPerWindow = m.type() == WindowTimelineModel::Type::Sliding && m.slide() > 0
                                  ? static_cast<int>(std::clamp<qint64>(m.size() / m.slide(), 1, 6))
                                  : 1;
    const double minLane = 22.0 + 6.0 * rowsPerWindow;
    const int maxLanes = std::max(1, static_cast<int>(plot.height() / minLane));
    int hiddenLanes = 0;
    if (lanes.size() > maxLanes) {
        hiddenLanes = static_cast<int>(lanes.size()) - maxLanes;
        lanes = lanes.mid(lanes.size() - maxLanes);
    }
    const double laneH
        = lanes.isEmpty() ? plot.height() : std::min(110.0, plot.height() / lanes.size());
    QHash<QString, int> laneOf;
    for (int i = 0; i < lanes.size(); ++i)
        laneOf.insert(lanes[i], i);

    // --- axis ---
    p.setFont(style::font(10));
    const qint64 step
        = niceStep(static_cast<double>(spanMs), std::max(2, static_cast<int>(plot.width() / 110)));
    const qint64 first = (left / step + 1) * step;
    for (qint64 t = first; t <= right; t += step) {
        const double x = xOf(t);
        p.setPen(QPen(style::grid(), 1));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        p.setPen(style::dim());
        const QString label = QDateTime::fromMSecsSinceEpoch(t, Qt::UTC)
                                  .toString(step < 1000 ? QStringLiteral("HH:mm:ss.zzz")
                                                        : QStringLiteral("HH:mm:ss"));
        p.drawText(QRectF(x - 60, 4, 120, 18), Qt::AlignCenter, label);
    }
    p.setPen(style::dim());
    p.drawText(QRectF(4, 4, kLabelWidth - 8, 18), Qt::AlignLeft | Qt::AlignVCenter,
               tr("event time →"));

    // --- lanes backgrounds and labels ---
    for (int i = 0; i < lanes.size(); ++i) {
        const QRectF lane(plot.left(), plot.top() + i * laneH, plot.width(), laneH);
        if (i % 2)
            p.fillRect(lane, style::panel());
        p.setPen(style::text());
        p.setFont(style::font(laneH >= 30 ? 11 : 9));
        const QString name = m.keyFields().size() == 1
                                 ? m.keyFields().first() + QStringLiteral(" = ") + lanes[i]
                                 : lanes[i];
        p.drawText(QRectF(4, lane.top(), kLabelWidth - 8, laneH), Qt::AlignLeft | Qt::AlignVCenter,
                   p.fontMetrics().elidedText(name, Qt::ElideRight, kLabelWidth - 8));
    }
    p.save();
    p.setClipRect(plot.adjusted(-6, -2, 6, 2));

    // --- windows ---
    const double barArea = laneH * 0.62;
    const double rowH = std::max(4.0, (barArea - 4) / rowsPerWindow);
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
        // Merged sessions: the record windows they swallowed, as thin ghost bars underneath.
        if (win.parts > 1)
            for (const auto &r : win.partRanges) {
                QRectF ghost(xOf(r.first), bar.bottom() - 3, xOf(r.second) - xOf(r.first), 3);
                p.fillRect(ghost, QColor(255, 255, 255, 60));
            }
        const QColor c = stateColour(win.state);
        QColor fill = c;
        fill.setAlpha(win.state == TimelineWindow::Open     ? 70
                      : win.state == TimelineWindow::Purged ? 60
                                                            : 150);
        p.setPen(QPen(c, win.state == TimelineWindow::Open ? 2.0 : 1.2,
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
        if (bar.width() > 44 && rowH >= 14) {
            QString text = QStringLiteral("%1 rec").arg(win.records);
            if (win.parts > 1)
                text += tr(" · merged %1").arg(win.parts);
            if (win.updates > 0)
                text += tr(" · %1 upd").arg(win.updates);
            if (!win.result.isEmpty() && bar.width() > 160)
                text += QStringLiteral(" · ") + win.result;
            p.setPen(style::text());
            p.setFont(style::font(rowH >= 20 ? 10 : 8));
            p.drawText(bar.adjusted(6, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
                       p.fontMetrics().elidedText(text, Qt::ElideRight,
                                                  static_cast<int>(bar.width() - 10)));
        }
    }

    // --- records ---
    const double dotY0 = barArea + 2;
    const double radius = std::clamp(laneH * 0.12, 3.0, 6.0);
    // On-time dots first, then late-but-accepted, then too late on top: the rare ones stay
    // visible in a dense stream. A small vertical jitter keeps neighbours apart.
    for (int pass = 0; pass < 3; ++pass)
        for (auto it = m.dots().crbegin(); it != m.dots().crend(); ++it) {
            if (it->status != pass || it->t < left || it->t > right)
                continue;
            auto li = laneOf.constFind(it->key);
            if (li == laneOf.constEnd())
                continue;
            const double jitter = static_cast<double>((it->seq * 37) % 5 - 2) * radius * 0.7;
            const double y = plot.top() + *li * laneH + dotY0 + (laneH - dotY0) / 2 + jitter;
            const QPointF c(xOf(it->t), y);
            const QColor col = dotColour(it->status);
            const double r = it->status == TimelineDot::OnTime ? radius : radius + 1.5;
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
            const double jitter = static_cast<double>((d.seq * 37) % 5 - 2) * radius * 0.7;
            const QPointF c(xOf(d.t),
                            plot.top() + *li * laneH + dotY0 + (laneH - dotY0) / 2 + jitter);
            p.setPen(QPen(Qt::white, 2.2));
            p.setBrush(Qt::NoBrush);
            p.drawEllipse(c, radius + 5, radius + 5);
        }
    }
    p.restore();

    // --- watermark and newest event ---
    auto vline = [&](qint64 t, const QColor &col, Qt::PenStyle ps, const QString &label, bool top) {
        if (t < left || t > right)
            return;
        const double x = xOf(t);
        p.setPen(QPen(col, 2.4, ps));
        p.drawLine(QPointF(x, 27), QPointF(x, plot.bottom()));
        p.setFont(style::font(10, true));
        // Labels live in the band above the lanes: W's left of its line, the newest event's
        // right of it, so they never cover records.
        const double tw = p.fontMetrics().horizontalAdvance(label) + 10;
        const double bx = top ? std::max(0.0, x - tw - 3) : std::min(x + 3, width() - tw - 2);
        const QRectF box(bx, 27, tw, 19);
        p.fillRect(box, QColor(0, 0, 0, 170));
        p.setPen(col);
        p.drawText(box, Qt::AlignCenter, label);
    };
    if (maxT)
        vline(*maxT, style::dim(), Qt::DashLine, tr("newest event %1").arg(eventTimeText(maxT)),
              false);
    if (w && *w != kEnded)
        vline(*w, style::watermark(), Qt::SolidLine, tr("W = %1").arg(eventTimeText(w)), true);

    // --- legend ---
    const double ly = height() - kLegendHeight + 8;
    double lx = 8;
    p.setFont(style::font(10));
    auto swatch = [&](const QColor &c, const QString &text, bool dot) {
        p.setPen(QPen(c, 1.5));
        p.setBrush(dot ? c : QColor(c.red(), c.green(), c.blue(), 130));
        if (dot)
            p.drawEllipse(QPointF(lx + 6, ly + 7), 5, 5);
        else
            p.drawRoundedRect(QRectF(lx, ly + 1, 18, 12), 2, 2);
        p.setPen(style::text());
        const double tw = p.fontMetrics().horizontalAdvance(text);
        p.drawText(QPointF(lx + 24, ly + 12), text);
        lx += 24 + tw + 18;
    };
    swatch(style::windowOpen(), tr("open"), false);
    swatch(style::windowFired(), tr("fired"), false);
    swatch(style::windowUpdated(), tr("updated"), false);
    if (m.lateness() > 0)
        swatch(style::windowPurged(), tr("purged"), false);
    swatch(style::onTime(), tr("on time"), true);
    swatch(style::lateAccepted(), tr("late, accepted"), true);
    swatch(style::tooLate(), tr("too late → late port"), true);
    p.setPen(QPen(style::watermark(), 2.4));
    p.drawLine(QPointF(lx, ly + 7), QPointF(lx + 18, ly + 7));
    p.setPen(style::text());
    p.drawText(QPointF(lx + 24, ly + 12), tr("watermark"));
    lx += 24 + p.fontMetrics().horizontalAdvance(tr("watermark")) + 18;
    if (hiddenLanes > 0) {
        p.setPen(style::dim());
        p.drawText(QPointF(lx, ly + 12),
                   tr("(+%1 keys not shown — pick one above)").arg(hiddenLanes));
    }
}

WindowTimelineView::WindowTimelineView(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_keys(new QComboBox(this))
    , m_follow(new QCheckBox(tr("Follow"), this))
    , m_canvas(new WindowTimelineCanvas(this))
{
    setObjectName(QStringLiteral("windowTimeline"));
    m_summary->setFont(style::font(11));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_keys->setMinimumContentsLength(16);
    m_keys->addItem(tr("All keys"), QString());
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Keep the newest events in view"));
    auto *top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(new QLabel(tr("Key:"), this));
    top->addWidget(m_keys);
    top->addWidget(m_follow);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_canvas, 1);
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
    refresh();
}

QString WindowTimelineView::summaryText() const
{
    return m_summary->text();
}

void WindowTimelineView::refresh()
{
    if (!m_model || m_model->nodeId().isEmpty()) {
        m_summary->setText(tr("<b>Window timeline</b> — no window node selected"));
        m_canvas->update();
        return;
    }
    const WindowTimelineModel &m = *m_model;
    if (m.keys().size() != m_keyCount && m.keys().size() <= 500) {
        // New keys appear at the end; keep the current choice.
        for (qsizetype i = std::max<qsizetype>(0, m_keyCount); i < m.keys().size(); ++i)
            m_keys->addItem(m.keys()[i], m.keys()[i]);
        m_keyCount = static_cast<int>(m.keys().size());
    }
    m_summary->setText(
        tr("<b>%1</b> (%2) &nbsp; W = <b>%3</b> &nbsp;|&nbsp; windows: "
           "<span style='color:%4'>open %5</span> · <span style='color:%6'>fired %7</span> · "
           "<span style='color:%8'>updated %9</span>%10 &nbsp;|&nbsp; records: "
           "<span style='color:%11'>on time %12</span> · <span style='color:%13'>late accepted "
           "%14</span> · "
           "<span style='color:%15'>too late %16</span>")
            .arg(m.nodeId().toHtmlEscaped(), m.describe().toHtmlEscaped(),
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
