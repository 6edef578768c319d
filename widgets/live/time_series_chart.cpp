#include "time_series_chart.hpp"

#include "decimate.hpp"
#include "live_style.hpp"
#include "time_text.hpp"

#include <QCategoryAxis>
#include <QDateTime>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tideline::live {

namespace {

/// Tick step for event-time axes: a "round" duration giving about `ticks` labels.
qint64 niceTimeStep(double span, int ticks)
{
    static const qint64 steps[]
        = {1,      2,      5,       10,      20,      50,       100,      200,     500,
           1000,   2000,   5000,    10000,   15000,   30000,    60000,    120000,  300000,
           600000, 900000, 1800000, 3600000, 7200000, 21600000, 43200000, 86400000};
    for (qint64 s : steps)
        if (span / static_cast<double>(s) <= ticks)
            return s;
    return 86400000LL * static_cast<qint64>(std::ceil(span / 86400000.0 / ticks));
}

void styleAxis(QAbstractAxis *axis)
{
    axis->setLabelsColor(style::text());
    axis->setLabelsFont(style::font(10));
    axis->setTitleBrush(style::dim());
    axis->setTitleFont(style::font(10, true));
    axis->setGridLineColor(style::grid());
    axis->setLinePenColor(style::grid());
    // QtCharts cuts labels it thinks too long to "…" (every clock time on an event-time
    // axis): our labels are short, show them whole.
    axis->setTruncateLabels(false);
}

/// A "round" integer step giving at most about `ticks` intervals over `span` (counts: 1, 2,
/// 5, 10, 20, 50, …), so that no two ticks print the same integer.
double niceCountStep(double span, int ticks)
{
    double step = 1;
    for (double magnitude = 1;; magnitude *= 10)
        for (double m : {1.0, 2.0, 5.0}) {
            step = m * magnitude;
            if (span / step <= ticks)
                return step;
        }
}

} // namespace

TimeSeriesChart::TimeSeriesChart(const QString &title, YKind left, QWidget *parent)
    // The chart goes to the constructor: QChartView(parent) would make a default chart that a
    // later setChart() releases without deleting (LeakSanitizer found one per view).
    : QChartView(new QChart, parent)
    , m_chart(chart())
    , m_x(new QValueAxis)
    , m_leftKind(left)
{
    setObjectName(title);
    m_chart->setTitle(title);
    m_chart->setTitleFont(style::font(12, true));
    m_chart->setTitleBrush(style::text());
    m_chart->setBackgroundBrush(style::background());
    m_chart->setPlotAreaBackgroundBrush(style::panel());
    m_chart->setPlotAreaBackgroundVisible(true);
    m_chart->setMargins(QMargins(6, 4, 6, 4));
    m_chart->legend()->setLabelColor(style::text());
    m_chart->legend()->setFont(style::font(11));
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    // Animations would lag behind a 30 Hz feed and cost frame time.
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_x->setTitleText(tr("processing time since start (s)"));
    m_x->setLabelFormat(QStringLiteral("%.0f"));
    styleAxis(m_x);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_left = makeYAxis(left, QString());
    m_chart->addAxis(m_left, Qt::AlignLeft);
    setRenderHint(QPainter::Antialiasing, true);
    setBackgroundBrush(style::background());
    m_placeholder = new QGraphicsSimpleTextItem(m_chart);
    m_placeholder->setBrush(style::dim());
    m_placeholder->setFont(style::font(13));
    m_placeholder->setZValue(100);
    m_placeholder->hide();
    setMinimumHeight(static_cast<int>(style::px(220)));
    // Presentation mode: the chart's own fonts (QtCharts does not inherit widget fonts).
    connect(&widgets::UiScale::instance(), &widgets::UiScale::changed, this, [this] {
        m_chart->setTitleFont(style::font(12, true));
        m_chart->legend()->setFont(style::font(11));
        m_placeholder->setFont(style::font(13));
        for (QAbstractAxis *axis : m_chart->axes()) {
            axis->setLabelsFont(style::font(10));
            axis->setTitleFont(style::font(10, true));
        }
        setMinimumHeight(static_cast<int>(style::px(220)));
        redraw();
    });
}

QAbstractAxis *TimeSeriesChart::makeYAxis(YKind kind, const QString &title)
{
    QAbstractAxis *axis;
    if (kind == YKind::EventTime) {
        auto *c = new QCategoryAxis;
        c->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        axis = c;
    } else {
        auto *v = new QValueAxis;
        v->setLabelFormat(QStringLiteral("%.0f"));
        axis = v;
    }
    axis->setTitleText(title);
    styleAxis(axis);
    return axis;
}

void TimeSeriesChart::setLeftTitle(const QString &title)
{
    m_left->setTitleText(title);
}

void TimeSeriesChart::setRightAxis(const QString &title, YKind kind)
{
    if (m_right)
        return;
    m_rightKind = kind;
    m_right = makeYAxis(kind, title);
    m_chart->addAxis(m_right, Qt::AlignRight);
}

void TimeSeriesChart::ensureSeries(
    const QString &key, const QString &name, const QColor &colour, Line line, bool right)
{
    if (m_series.contains(key))
        return;
    QXYSeries *s;
    if (line == Line::Points) {
        auto *sc = new QScatterSeries;
        sc->setMarkerSize(11);
        sc->setColor(colour);
        sc->setBorderColor(colour.darker(140));
        s = sc;
    } else {
        auto *l = new QLineSeries;
        QPen pen(colour);
        pen.setWidthF(line == Line::Solid ? 2.6 : 2.0);
        pen.setStyle(line == Line::Dashed   ? Qt::DashLine
                     : line == Line::Dotted ? Qt::DotLine
                                            : Qt::SolidLine);
        l->setPen(pen);
        s = l;
    }
    s->setName(name);
    m_chart->addSeries(s);
    // One legend entry per node: unnamed companion series (dashed, dotted) stay out of it.
    if (name.isEmpty())
        for (QLegendMarker *marker : m_chart->legend()->markers(s))
            marker->setVisible(false);
    s->attachAxis(m_x);
    s->attachAxis(right && m_right ? m_right : m_left);
    m_series.insert(key, Entry{s, {}, right && m_right});
    m_order.push_back(key);
}

void TimeSeriesChart::setData(const QString &key, const QList<QPointF> &points)
{
    auto it = m_series.find(key);
    if (it != m_series.end())
        it->data = points;
}

void TimeSeriesChart::removeAll()
{
    m_chart->removeAllSeries();
    m_series.clear();
    m_order.clear();
}

void TimeSeriesChart::setPlaceholder(const QString &text)
{
    m_placeholder->setText(text);
    m_placeholder->setVisible(!text.isEmpty());
    const QRectF plot = m_chart->plotArea();
    m_placeholder->setPos(plot.center() - m_placeholder->boundingRect().center());
}

int TimeSeriesChart::plotWidthPixels() const
{
    return std::max(50, static_cast<int>(m_chart->plotArea().width()));
}

QList<QPointF> TimeSeriesChart::drawnPoints(const QString &key) const
{
    auto it = m_series.constFind(key);
    return it == m_series.constEnd() ? QList<QPointF>() : it->series->points();
}

void TimeSeriesChart::fitAxis(QAbstractAxis *axis, YKind kind, double lo, double hi)
{
    if (lo > hi) {
        lo = 0;
        hi = 1;
    }
    if (kind == YKind::EventTime) {
        double span = std::max(hi - lo, 1000.0);
        const int maxTicks = std::clamp(static_cast<int>(m_chart->plotArea().height() / 36), 2, 8);
        const qint64 step = niceTimeStep(span, maxTicks);
        const double start = std::floor(lo / step) * step;
        const double end = std::ceil(hi / step) * step + (hi - lo < 1 ? step : 0);
        auto *c = static_cast<QCategoryAxis *>(axis);
        for (const QString &l : c->categoriesLabels())
            c->remove(l);
        c->setStartValue(start);
        const bool withMs = step < 1000;
        for (double v = start; v <= end + 0.5; v += static_cast<double>(step)) {
            QDateTime t = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(v), Qt::UTC);
            c->append(
                t.toString(withMs ? QStringLiteral("HH:mm:ss.zzz") : QStringLiteral("HH:mm:ss")),
                v);
        }
        c->setRange(start, end);
        return;
    }
    auto *v = static_cast<QValueAxis *>(axis);
    // Counts and durations are integers: integer ticks at a round step from 0 (an empty or
    // nearly flat chart used to print 0, 0, 1, 1, 1).
    lo = std::min(lo, 0.0);
    if (hi - lo < 1)
        hi = lo + 1;
    const int maxTicks = std::clamp(static_cast<int>(m_chart->plotArea().height() / 36), 2, 8);
    const double step = niceCountStep((hi - lo) * 1.05, maxTicks);
    const double top = std::ceil(hi * 1.05 / step) * step;
    v->setTickType(QValueAxis::TicksDynamic);
    v->setTickAnchor(0);
    v->setTickInterval(step);
    v->setRange(std::floor(lo / step) * step, std::max(top, step));
    v->setLabelFormat(QStringLiteral("%.0f"));
}

void TimeSeriesChart::redraw()
{
    const int px = plotWidthPixels();
    double xMax = 1;
    double lo[2] = {std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
    double hi[2] = {std::numeric_limits<double>::lowest(), std::numeric_limits<double>::lowest()};
    for (const QString &key : m_order) {
        Entry &e = m_series[key];
        QList<QPointF> pts = decimate(e.data, px);
        for (const QPointF &p : pts) {
            lo[e.right] = std::min(lo[e.right], p.y());
            hi[e.right] = std::max(hi[e.right], p.y());
            xMax = std::max(xMax, p.x());
        }
        e.series->replace(pts);
    }
    m_x->setRange(0, xMax < 5 ? xMax * 1.05 : std::ceil(xMax * 1.02));
    m_x->applyNiceNumbers();
    m_x->setLabelFormat(m_x->max() - m_x->min() < 8 ? QStringLiteral("%.1f")
                                                    : QStringLiteral("%.0f"));
    fitAxis(m_left, m_leftKind, lo[0], hi[0]);
    if (m_right)
        fitAxis(m_right, m_rightKind, lo[1], hi[1]);
    if (m_placeholder->isVisible())
        setPlaceholder(m_placeholder->text());
}

void TimeSeriesChart::resizeEvent(QResizeEvent *event)
{
    QChartView::resizeEvent(event);
    redraw();
}

} // namespace tideline::live
