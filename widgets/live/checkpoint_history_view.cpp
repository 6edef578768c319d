#include "checkpoint_history_view.hpp"

#include "live_style.hpp"
#include "time_text.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QPalette>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tideline::live {

CheckpointHistoryView::CheckpointHistoryView(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
{
    setObjectName(QStringLiteral("checkpointHistory"));
    // Dark like the chart above it (a plain QWidget would show the dock's lighter grey).
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, style::background());
    setPalette(pal);
    m_summary->setObjectName(QStringLiteral("checkpointSummary"));
    m_summary->setFont(style::font(11));
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true); // long texts must not widen the bottom dock area
    m_table->setObjectName(QStringLiteral("checkpointTable"));
    m_table->setHorizontalHeaderLabels({tr("#"), tr("Kind"), tr("Status"), tr("Finished"),
                                        tr("Duration"), tr("Size"), tr("Failure cause")});
    m_table->horizontalHeaderItem(Finished)->setToolTip(
        tr("Processing time since the run started"));
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->setFont(style::font(11));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    clear();
}

QString CheckpointHistoryView::summary() const
{
    return m_summary->text();
}

void CheckpointHistoryView::clear()
{
    m_table->setRowCount(0);
    m_summary->setText(tr("Checkpoint history: no run yet."));
}

void CheckpointHistoryView::setHistory(const QList<CheckpointFigures> &history,
                                       qint64 startedAtMs,
                                       bool checkpointsConfigured)
{
    int completed = 0, failed = 0;
    qint64 bytes = 0;
    for (const auto &c : history) {
        completed += c.status == QLatin1String("completed") ? 1 : 0;
        failed += c.status == QLatin1String("failed") ? 1 : 0;
        if (c.status == QLatin1String("completed"))
            bytes = c.bytes;
    }
    if (history.isEmpty())
        m_summary->setText(checkpointsConfigured
                               ? tr("Checkpoint history: none taken yet.")
                               : tr("Checkpoint history: checkpoints are not configured "
                                    "(Pipeline settings); savepoints taken with the Savepoint "
                                    "action appear here."));
    else
        m_summary->setText(tr("Checkpoint history (newest first): %1 completed, %2 "
                              "failed · last completed size %3")
                               .arg(completed)
                               .arg(failed > 0 ? QStringLiteral("<span style='color:%1'>%2</span>")
                                                     .arg(style::tooLate().name())
                                                     .arg(failed)
                                               : QString::number(failed))
                               .arg(completed > 0 ? bytesText(bytes) : QStringLiteral("—")));

    const int n = static_cast<int>(history.size());
    m_table->setRowCount(n);
    for (int row = 0; row < n; ++row) {
        const CheckpointFigures &c = history[n - 1 - row]; // newest first
        auto set = [&](int col, const QString &text, const QColor &colour = style::text(),
                       bool right = false) {
            auto *item = m_table->item(row, col);
            if (!item) {
                item = new QTableWidgetItem;
                m_table->setItem(row, col, item);
            }
            item->setText(text);
            item->setForeground(colour);
            item->setTextAlignment((right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
            item->setToolTip(col == Cause ? text : QString());
        };
        const bool ok = c.status == QLatin1String("completed");
        const bool bad = c.status == QLatin1String("failed");
        set(Id, QString::number(c.id), style::text(), true);
        set(Kind, c.kind, c.kind == QLatin1String("savepoint") ? style::watermark() : style::dim());
        set(Status, c.status.isEmpty() ? tr("—") : QString(c.status).replace('_', ' '),
            ok    ? style::onTime()
            : bad ? style::tooLate()
                  : style::lateAccepted());
        set(Finished,
            c.timeMs > 0 && startedAtMs > 0
                ? tr("+%1").arg(durationText(std::max<qint64>(0, c.timeMs - startedAtMs)))
                : QStringLiteral("—"),
            style::dim(), true);
        set(Duration, durationText(c.durationMs), style::text(), true);
        set(Size, ok ? bytesText(c.bytes) : QStringLiteral("—"), style::text(), true);
        set(Cause, bad ? c.failureCause : QString(), style::tooLate());
    }
}

} // namespace tideline::live
