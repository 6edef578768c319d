#include "live_charts.hpp"

#include "checkpoint_history_view.hpp"
#include "live_history.hpp"
#include "live_style.hpp"
#include "time_series_chart.hpp"
#include "time_text.hpp"

#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace tideline::live {

LiveCharts::LiveCharts(QWidget *parent)
    : QWidget(parent)
    , m_tabs(new QTabWidget(this))
    , m_watermark(
          new TimeSeriesChart(tr("Watermark (solid) and newest event time (dashed) per node"),
                              TimeSeriesChart::YKind::EventTime))
    , m_state(new TimeSeriesChart(
          tr("Window state: open windows (solid), state entries (dashed), bytes (dotted, right)"),
          TimeSeriesChart::YKind::Number))
    , m_late(new TimeSeriesChart(tr("Late (solid) and error (dashed) records per node, cumulative"),
                                 TimeSeriesChart::YKind::Number))
    , m_checkpoint(
          new TimeSeriesChart(tr("Checkpoints: duration of each (green completed, red failed)"),
                              TimeSeriesChart::YKind::Number))
    , m_watermarkNote(new QLabel(this))
    , m_history(new CheckpointHistoryView)
{
    setObjectName(QStringLiteral("liveCharts"));
    m_watermark->setLeftTitle(tr("event time (UTC)"));
    m_state->setLeftTitle(tr("windows / entries"));
    m_state->setRightAxis(tr("state bytes"), TimeSeriesChart::YKind::Number);
    m_late->setLeftTitle(tr("records"));
    m_checkpoint->setLeftTitle(tr("duration (ms)"));
    auto *wmPage = new QWidget;
    auto *wmLayout = new QVBoxLayout(wmPage);
    wmLayout->setContentsMargins(0, 0, 0, 0);
    wmLayout->setSpacing(2);
    wmLayout->addWidget(m_watermark, 1);
    m_watermarkNote->setFont(style::font(11));
    m_watermarkNote->setWordWrap(true);
    wmLayout->addWidget(m_watermarkNote);
    m_tabs->addTab(wmPage, tr("Watermarks"));
    m_tabs->addTab(m_state, tr("Window state"));
    m_tabs->addTab(m_late, tr("Late && errors"));
    m_tabs->addTab(m_checkpoint, tr("Checkpoints"));
    // The chart shows the trend; the table every checkpoint and savepoint with its size and
    // failure cause (its own tab: sharing one would squeeze both, or raise the docks' height).
    m_tabs->addTab(m_history, tr("Checkpoint history"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);
    // Hidden charts skip their redraws; catch up when one is shown.
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int) {
        for (auto *c : {m_watermark, m_state, m_late, m_checkpoint})
            if (c->isVisible())
                c->redraw();
    });
}

void LiveCharts::clear()
{
    for (auto *c : {m_watermark, m_state, m_late, m_checkpoint}) {
        c->removeAll();
        c->redraw();
    }
    m_watermarkNote->clear();
    m_history->clear();
}

void LiveCharts::update(const LiveHistory &h, qint64 startedAtMs, bool checkpointsConfigured)
{
    const QStringList nodes = h.nodes();
    QStringList notes;
    int colour = 0;
    // Sources have no event time and sinks repeat their upstream's watermark: plot the nodes
    // in between (every node when there is none).
    auto edge = [&h](const QString &n) {
        return h.kind(n).startsWith(QLatin1String("source."))
               || h.kind(n).startsWith(QLatin1String("sink."));
    };
    const bool anyMiddle
        = std::any_of(nodes.begin(), nodes.end(), [&](const QString &n) { return !edge(n); });
    for (const QString &n : nodes) {
        if (anyMiddle && edge(n))
            continue;
        if (h.series(n, Figure::Watermark).isEmpty() && h.series(n, Figure::MaxEventTime).isEmpty()
            && !h.lastWatermark(n))
            continue;
        const QColor c = style::series(colour++);
        m_watermark->ensureSeries(key("wm", n), n, c, TimeSeriesChart::Line::Solid);
        m_watermark->ensureSeries(key("max", n), QString(), c, TimeSeriesChart::Line::Dashed);
        m_watermark->setData(key("wm", n), h.series(n, Figure::Watermark));
        m_watermark->setData(key("max", n), h.series(n, Figure::MaxEventTime));
        const auto w = h.lastWatermark(n);
        const auto m = h.lastMaxEventTime(n);
        QString line = QStringLiteral("<b>%1</b>: W = %2").arg(n.toHtmlEscaped(), eventTimeText(w));
        if (w && m && *w != kEnded && *m >= *w)
            line += tr(", %1 behind the newest event").arg(durationText(*m - *w));
        notes << line;
    }
    m_watermarkNote->setText(notes.join(QStringLiteral(" &nbsp;·&nbsp; ")));

    colour = 0;
    for (const QString &n : nodes) {
        if (!h.everHadState(n))
            continue;
        const QColor c = style::series(colour++);
        m_state->ensureSeries(key("open", n), n, c, TimeSeriesChart::Line::Solid);
        m_state->ensureSeries(key("entries", n), QString(), c, TimeSeriesChart::Line::Dashed);
        m_state->ensureSeries(key("bytes", n), QString(), c, TimeSeriesChart::Line::Dotted, true);
        m_state->setData(key("open", n), h.series(n, Figure::OpenWindows));
        m_state->setData(key("entries", n), h.series(n, Figure::StateEntries));
        m_state->setData(key("bytes", n), h.series(n, Figure::StateBytes));
    }
    m_state->setPlaceholder(m_state->seriesKeys().isEmpty()
                                ? tr("No stateful node (window, dedup, join) in this pipeline")
                                : QString());

    colour = 0;
    for (const QString &n : nodes) {
        if (!h.everLateOrErrors(n))
            continue;
        const QColor c = style::series(colour++);
        m_late->ensureSeries(key("late", n), n, c, TimeSeriesChart::Line::Solid);
        m_late->ensureSeries(key("errors", n), QString(), c, TimeSeriesChart::Line::Dashed);
        m_late->setData(key("late", n), h.series(n, Figure::Late));
        m_late->setData(key("errors", n), h.series(n, Figure::Errors));
    }
    m_late->setPlaceholder(m_late->seriesKeys().isEmpty() && h.snapshotCount() > 0
                               ? tr("No late or error records so far")
                               : QString());

    QList<QPointF> ok, failed;
    for (const auto &c : h.checkpoints()) {
        const QPointF p(static_cast<double>(c.timeMs - startedAtMs) / 1000.0,
                        static_cast<double>(c.durationMs));
        (c.status == QLatin1String("failed") ? failed : ok).push_back(p);
    }
    m_checkpoint->ensureSeries(QStringLiteral("ok"), tr("completed"), style::onTime(),
                               TimeSeriesChart::Line::Points);
    m_checkpoint->ensureSeries(QStringLiteral("failed"), tr("failed"), style::tooLate(),
                               TimeSeriesChart::Line::Points);
    m_checkpoint->setData(QStringLiteral("ok"), ok);
    m_checkpoint->setData(QStringLiteral("failed"), failed);
    m_history->setHistory(h.checkpoints(), startedAtMs, checkpointsConfigured);
    if (!checkpointsConfigured && h.checkpoints().isEmpty())
        m_checkpoint->setPlaceholder(tr(
            "Checkpoints are not configured for this pipeline\n(settings.checkpoint.interval_ms)"));
    else if (h.checkpoints().isEmpty())
        m_checkpoint->setPlaceholder(tr("No checkpoint taken yet"));
    else {
        const auto &last = h.checkpoints().back();
        m_checkpoint->setPlaceholder(QString());
        m_checkpoint->chart()->setTitle(
            tr("Checkpoints — last: %1 #%2 %3, %4, %5")
                .arg(last.kind)
                .arg(last.id)
                .arg(last.status, durationText(last.durationMs), bytesText(last.bytes)));
    }

    for (auto *c : {m_watermark, m_state, m_late, m_checkpoint})
        if (c->isVisible())
            c->redraw();
}

} // namespace tideline::live
