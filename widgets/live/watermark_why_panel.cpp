#include "watermark_why_panel.hpp"

#include "live_style.hpp"
#include "time_text.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace tideline::live {

WatermarkWhyPanel::WatermarkWhyPanel(QWidget *parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_explain(new QLabel(this))
    , m_table(new QTableWidget(0, 4, this))
{
    setObjectName(QStringLiteral("watermarkWhy"));
    m_title->setFont(style::font(13, true));
    m_explain->setFont(style::font(11));
    m_explain->setWordWrap(true);
    m_explain->setTextFormat(Qt::RichText);
    m_table->setHorizontalHeaderLabels(
        {tr("Input / partition"), tr("Watermark"), tr("Lag"), tr("State")});
    m_table->horizontalHeaderItem(2)->setToolTip(
        tr("How far the input's watermark is behind the newest event at this node"));
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setFont(style::font(11));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_title);
    layout->addWidget(m_explain);
    layout->addWidget(m_table, 1);
    showNode(nullptr, nullptr, 0);
}

QString WatermarkWhyPanel::explanation() const
{
    return m_explain->text();
}

void WatermarkWhyPanel::showNode(const NodeFigures *n, const NodeInfo *info, qint64 nowMs)
{
    m_minRow = -1;
    if (!n) {
        m_title->setText(tr("Why is the watermark here?"));
        m_explain->setText(tr("Select a node on the canvas."));
        m_table->setRowCount(0);
        return;
    }
    m_title->setText(
        tr("Why is the watermark of “%1” at %2?").arg(n->node, eventTimeText(n->watermark)));
    // Which active input holds the minimum?
    std::optional<qint64> minW;
    bool anyActive = false;
    bool anyNull = false;
    for (int i = 0; i < n->inputs.size(); ++i) {
        const auto &in = n->inputs[i];
        if (in.idle && in.watermark != kEnded)
            continue;
        if (!in.watermark) {
            if (!anyNull)
                m_minRow = i;
            anyNull = true;
            anyActive = true;
            continue;
        }
        anyActive = true;
        if (!anyNull && (!minW || *in.watermark < *minW)) {
            minW = in.watermark;
            m_minRow = i;
        }
    }
    QString text;
    const bool isWatermarkNode = n->kind == QLatin1String("watermark");
    if (isWatermarkNode) {
        const qint64 d
            = info ? static_cast<qint64>(
                  info->params.value(QLatin1String("max_out_of_orderness_ms")).toDouble())
                   : 0;
        text = tr("A <b>watermark</b> node computes W = newest event time − out-of-orderness − 1 "
                  "= %1 − %2 − 1 ms")
                   .arg(eventTimeText(n->maxEventTime), durationText(d));
        const bool grouped
            = std::any_of(n->inputs.begin(), n->inputs.end(),
                          [](const InputWatermarkFigures &in) { return !in.assigned; });
        if (grouped)
            text += tr(", per partition; its W is the minimum over the active partitions this "
                       "process owns (idle ones, and those another member of the consumer group "
                       "owns, are skipped).");
        else if (n->inputs.size() > 1)
            text += tr(", per partition; its W is the minimum over active partitions (idle ones "
                       "are skipped).");
        else
            text += '.';
    } else if (n->kind.startsWith(QLatin1String("source."))) {
        text = tr("Sources have no event time yet: a <b>watermark</b> node downstream assigns it.");
    } else if (n->inputs.isEmpty()) {
        text = tr("No inputs connected.");
    } else {
        text = tr("W is the <b>minimum</b> over the inputs that are not idle.");
        if (m_minRow >= 0)
            text += tr(" The minimum is held by <b>%1</b>%2.")
                        .arg(n->inputs[m_minRow].name.toHtmlEscaped(),
                             n->inputs[m_minRow].watermark ? QString()
                                                           : tr(" (no watermark yet: −∞)"));
        else if (!anyActive)
            text += tr(" Every input is idle: W stays where it was until one produces again.");
    }
    if (n->watermark && n->maxEventTime && *n->watermark != kEnded)
        text += tr("<br>It is <b>%1</b> behind the newest event this node has seen (%2).")
                    .arg(durationText(*n->maxEventTime - *n->watermark),
                         eventTimeText(n->maxEventTime));
    if (n->watermark == kEnded)
        text += tr("<br>Every input ended: W = +∞ fired every open window.");
    m_explain->setText(text);

    m_table->setRowCount(static_cast<int>(n->inputs.size()));
    for (int i = 0; i < n->inputs.size(); ++i) {
        const auto &in = n->inputs[i];
        auto set = [&](int col, const QString &s, const QColor &c = style::text()) {
            auto *item = new QTableWidgetItem(s);
            item->setForeground(c);
            if (i == m_minRow) {
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
            }
            m_table->setItem(i, col, item);
        };
        set(0, (i == m_minRow ? QStringLiteral("◀ min  ") : QString()) + in.name,
            i == m_minRow ? style::lateAccepted() : style::text());
        set(1, in.assigned ? eventTimeText(in.watermark) : QStringLiteral("—"),
            in.assigned ? style::text() : style::dim());
        set(2, in.watermark && n->maxEventTime && *in.watermark != kEnded
                   ? durationText(*n->maxEventTime - *in.watermark)
                   : QStringLiteral("—"));
        if (!in.assigned)
            set(3, tr("owned by another member of the group"), style::dim());
        else if (in.idle)
            set(3, tr("idle since %1 ago").arg(durationText(nowMs - in.idleSinceMs)), style::dim());
        else if (in.watermark == kEnded)
            set(3, tr("ended"), style::dim());
        else
            set(3, tr("active"), style::onTime());
        // (The table is compact: four columns. Per-partition lag and last activity of Kafka
        // sources are in the Kafka source inspector.)
    }
}

} // namespace tideline::live
