#include "kafka_source_panel.hpp"

#include "live_style.hpp"
#include "partition_count_helper.hpp"
#include "time_text.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tideline::live {

KafkaSourcePanel::KafkaSourcePanel(QWidget *parent)
    : QWidget(parent)
    , m_title(new QLabel(tr("Kafka partitions"), this))
    , m_status(new QLabel(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
    , m_helper(new PartitionCountHelper(this))
{
    setObjectName(QStringLiteral("kafkaSourcePanel"));
    m_title->setObjectName(QStringLiteral("inspectorSection"));
    m_title->setFont(style::font(12, true));
    m_status->setObjectName(QStringLiteral("kafkaStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_table->setObjectName(QStringLiteral("kafkaPartitions"));
    m_table->setHorizontalHeaderLabels(
        {tr("Partition"), tr("Watermark"), tr("Lag"), tr("State"), tr("Last record")});
    m_table->horizontalHeaderItem(Watermark)->setToolTip(
        tr("The partition's watermark in the watermark node downstream"));
    m_table->horizontalHeaderItem(Lag)->setToolTip(
        tr("Records between this consumer's position and the end of the partition"));
    m_table->horizontalHeaderItem(State)->setToolTip(
        tr("Idle partitions (no record for idle_timeout_ms) do not hold the watermark back"));
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setFocusPolicy(Qt::NoFocus);
    m_table->setWordWrap(false);
    m_table->setMinimumHeight(150);
    // Never widen the inspector beyond its dock (that cuts the form's text off at the right):
    // the table scrolls sideways instead.
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_table->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 8, 0, 0);
    layout->setSpacing(6);
    layout->addWidget(m_title);
    layout->addWidget(m_status);
    layout->addWidget(m_table);
    layout->addSpacing(6);
    layout->addWidget(m_helper);
    showNotRunning(tr("Run the pipeline to see each partition's watermark, lag and idle state."));
}

QString KafkaSourcePanel::statusText() const
{
    return m_status->text();
}

void KafkaSourcePanel::showNotRunning(const QString &message)
{
    m_status->setText(message.toHtmlEscaped());
    m_table->setRowCount(0);
    m_table->setVisible(false);
    m_helper->setCurrentPartitions(std::nullopt);
    m_helper->setMeasuredRate(std::nullopt);
}

void KafkaSourcePanel::showFigures(const KafkaSourceFigures &f)
{
    const auto &parts = f.partitions;
    int idle = 0, assigned = 0;
    qint64 totalLag = 0;
    for (const auto &p : parts) {
        idle += p.idle ? 1 : 0;
        assigned += p.assigned ? 1 : 0;
        totalLag += p.assigned && p.lag > 0 ? p.lag : 0; // -1: not known yet
    }
    QString status;
    if (parts.isEmpty())
        status = tr("No partition assigned yet (waiting for metadata or the group).");
    else {
        status = parts.size() == 1 ? tr("1 partition") : tr("%1 partitions").arg(parts.size());
        if (assigned != parts.size())
            status += tr(", %1 read by this run (the others belong to other members of the group)")
                          .arg(assigned);
        status += tr(" · total lag %1 · %2 records/s")
                      .arg(QLocale(QLocale::English).toString(totalLag),
                           countText(f.recordsPerSecond));
        if (idle > 0)
            status += tr(" · <span style='color:%1'>%2 idle</span>")
                          .arg(style::dim().name())
                          .arg(idle);
    }
    if (f.watermarkNode.isEmpty())
        status += tr("<br>No watermark node downstream: partitions have no watermark.");
    else
        status += tr("<br>Watermarks per partition from “%1”; its watermark is the minimum over "
                     "the partitions that are not idle.")
                      .arg(f.watermarkNode.toHtmlEscaped());
    m_status->setText(status);

    // The partition holding the watermark back: the minimum over active partitions.
    int minRow = -1;
    for (int i = 0; i < parts.size(); ++i) {
        const auto &p = parts[i];
        if (!p.hasWatermark || p.idle || p.watermark == kEnded)
            continue;
        if (minRow < 0)
            minRow = i;
        else {
            const auto &m = parts[minRow];
            if (!p.watermark || (m.watermark && *p.watermark < *m.watermark))
                minRow = i;
        }
    }

    m_table->setVisible(true);
    m_table->setRowCount(static_cast<int>(parts.size()));
    for (int i = 0; i < parts.size(); ++i) {
        const auto &p = parts[i];
        auto set = [&](int col, const QString &text, const QColor &colour = style::text(),
                       Qt::Alignment align = Qt::AlignLeft | Qt::AlignVCenter) {
            auto *item = m_table->item(i, col);
            if (!item) {
                item = new QTableWidgetItem;
                m_table->setItem(i, col, item);
            }
            item->setText(text);
            item->setForeground(colour);
            item->setTextAlignment(align);
            QFont font = item->font();
            font.setBold(i == minRow);
            item->setFont(font);
        };
        const auto right = Qt::AlignRight | Qt::AlignVCenter;
        set(Partition, QString::number(p.partition), style::text(), right);
        if (!p.hasWatermark)
            set(Watermark, QStringLiteral("—"), style::dim());
        else
            set(Watermark, eventTimeText(p.watermark) + (i == minRow ? tr("  ◀ min") : QString()),
                i == minRow ? style::lateAccepted() : style::watermark());
        if (p.assigned && p.lag >= 0)
            set(Lag, QLocale(QLocale::English).toString(p.lag),
                p.lag > 0 ? style::lateAccepted() : style::text(), right);
        else
            set(Lag, QStringLiteral("—"), style::dim(), right);
        if (!p.assigned)
            set(State, tr("other member"), style::dim());
        else if (p.idle)
            set(State, tr("idle %1").arg(durationText(f.nowMs - p.idleSinceMs)), style::dim());
        else if (p.watermark == kEnded)
            set(State, tr("ended"), style::dim());
        else
            set(State, tr("active"), style::onTime());
        // A partition whose watermark is still -inf has delivered no record yet (the source
        // counts activity from its assignment).
        const bool none = p.lastActivityMs <= 0 || (p.hasWatermark && !p.watermark);
        set(LastRecord,
            none ? tr("none yet") : tr("%1 ago").arg(durationText(f.nowMs - p.lastActivityMs)),
            style::dim());
        m_table->item(i, State)->setToolTip(
            p.idle ? tr("No record for the watermark node's idle_timeout_ms: excluded from the "
                        "minimum until it produces again")
                   : QString());
    }
    m_helper->setCurrentPartitions(parts.isEmpty() ? std::nullopt
                                                   : std::optional<int>(parts.size()));
    m_helper->setMeasuredRate(f.recordsPerSecond);
}

} // namespace tideline::live
