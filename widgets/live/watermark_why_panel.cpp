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
    m_title->setWordWrap(true);
    m_explain->setFont(style::font(11));
    m_explain->setWordWrap(true);
    m_explain->setTextFormat(Qt::RichText);
    m_table->setHorizontalHeaderLabels({tr("Input"), tr("Watermark"), tr("Lag"), tr("State")});
    m_table->horizontalHeaderItem(0)->setToolTip(
        tr("Input port and the node feeding it, or partition"));
    m_table->horizontalHeaderItem(2)->setToolTip(
        tr("How far the input's watermark is behind the newest event at this node"));
    // The input's name takes what the narrow dock leaves; the figures keep their width.
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    // A narrow dock wraps the input's name ("in ← event_time") rather than cutting it.
    m_table->setWordWrap(true);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
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

void WatermarkWhyPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // A narrow dock (1024-pixel screens) keeps the input's name readable: the lag is in the
    // explanation above already.
    m_table->setColumnHidden(2, width() < static_cast<int>(style::px(340)));
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
    const bool ended = n->watermark == kEnded;
    // Behind the newest event: only a lag that exists (results stamped end - 1 downstream of
    // a window can be older than the watermark: no "−1.8 s behind").
    auto behind = [&](std::optional<qint64> w) {
        return w && n->maxEventTime && *w != kEnded && *n->maxEventTime >= *w;
    };
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
        text = n->inputs.size() > 1
                   ? tr("W is the <b>minimum</b> over the inputs that are not idle.")
                   : tr("W is the watermark of its input.");
        if (m_minRow >= 0 && n->inputs.size() > 1)
            text += tr(" The minimum is held by <b>%1</b>%2.")
                        .arg(n->inputs[m_minRow].name.toHtmlEscaped(),
                             n->inputs[m_minRow].watermark
                                 ? tr(" at %1").arg(eventTimeText(n->inputs[m_minRow].watermark))
                                 : tr(" (no watermark yet: −∞)"));
        else if (!anyActive)
            text += tr(" Every input is idle: W stays where it was until one produces again.");
        // A left-outer join holds its output back by upper_ms: an unmatched left record is
        // emitted at l.t once W >= l.t + upper, and must not be late downstream.
        const qint64 upper
            = info ? static_cast<qint64>(info->params.value(QLatin1String("upper_ms")).toDouble())
                   : 0;
        const bool outer = info
                           && info->params.value(QLatin1String("type")).toString()
                                  == QLatin1String("left_outer");
        if (n->kind == QLatin1String("join") && outer && upper > 0 && !ended)
            text += tr("<br>A <b>left_outer</b> join holds its output W back by upper_ms (%1): an "
                       "unmatched left record is emitted, stamped l.t, once the inputs' W ≥ "
                       "l.t + upper_ms. So W = %2 − %1 = <b>%3</b>.")
                        .arg(durationText(upper), minW ? eventTimeText(minW) : tr("the minimum"),
                             eventTimeText(n->watermark));
    }
    if (behind(n->watermark))
        text += tr("<br>It is <b>%1</b> behind the newest event this node has seen (%2).")
                    .arg(durationText(*n->maxEventTime - *n->watermark),
                         eventTimeText(n->maxEventTime));
    if (ended) {
        // What the end of input did depends on the node.
        QString did;
        if (n->kind == QLatin1String("window"))
            did = tr("fired every open window");
        else if (n->kind == QLatin1String("join"))
            did = tr("closed every pending record (a left_outer join emitted its unmatched "
                     "left records)");
        else if (n->kind == QLatin1String("dedup"))
            did = tr("forgot every remembered key");
        else if (n->kind == QLatin1String("window_join"))
            did = tr("joined and closed every open window");
        else if (n->kind == QLatin1String("top"))
            did = tr("emitted every open group");
        else
            did = tr("was passed downstream");
        text += tr("<br>Every input ended: W = +∞ %1.").arg(did);
    }
    m_explain->setText(text);

    m_table->setRowCount(static_cast<int>(n->inputs.size()));
    for (int i = 0; i < n->inputs.size(); ++i) {
        const auto &in = n->inputs[i];
        auto set = [&](int col, const QString &s, const QColor &c = style::text()) {
            auto *item = new QTableWidgetItem(s);
            item->setForeground(c);
            if (i == m_minRow) {
                QFont f = m_table->font();
                f.setBold(true);
                item->setFont(f);
            }
            m_table->setItem(i, col, item);
        };
        const bool showMin = i == m_minRow && n->inputs.size() > 1 && !ended;
        QString name = in.name;
        name.replace(QStringLiteral(" <- "), QStringLiteral(" ← "));
        set(0, (showMin ? QStringLiteral("◀ min  ") : QString()) + name,
            showMin ? style::lateAccepted() : style::text());
        set(1, in.assigned ? eventTimeText(in.watermark) : QStringLiteral("—"),
            in.assigned ? style::text() : style::dim());
        set(2, !ended && behind(in.watermark) ? durationText(*n->maxEventTime - *in.watermark)
                                              : QStringLiteral("—"));
        if (!in.assigned)
            set(3, tr("owned by another member of the group"), style::dim());
        else if (in.watermark == kEnded || ended)
            set(3, tr("ended"), style::dim()); // the node's input ended: none is active
        else if (in.idle)
            set(3, tr("idle since %1 ago").arg(durationText(nowMs - in.idleSinceMs)), style::dim());
        else
            set(3, tr("active"), style::onTime());
        // (The table is compact: four columns. Per-partition lag and last activity of Kafka
        // sources are in the Kafka source inspector.)
    }
}

} // namespace tideline::live
