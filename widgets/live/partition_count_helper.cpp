#include "partition_count_helper.hpp"

#include "live_style.hpp"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tideline::live {

int partitionsNeeded(double throughput, double perPartitionRate, int consumers)
{
    int forRate = 0;
    if (throughput > 0 && perPartitionRate > 0) {
        // A tiny epsilon keeps 50000 / 10000 at 5 despite floating-point noise.
        const double exact = throughput / perPartitionRate;
        forRate = static_cast<int>(std::min(1e9, std::ceil(exact - 1e-9)));
    }
    return std::max({forRate, consumers, 1});
}

namespace {
QString partitionsText(int n)
{
    return n == 1 ? PartitionCountHelper::tr("1 partition")
                  : PartitionCountHelper::tr("%1 partitions").arg(n);
}
QString rateText(double v)
{
    return QLocale(QLocale::English).toString(v, 'f', v == std::floor(v) ? 0 : 1);
}
} // namespace

PartitionCountHelper::PartitionCountHelper(QWidget *parent)
    : QGroupBox(tr("Partition-count helper"), parent)
    , m_throughput(new QDoubleSpinBox(this))
    , m_perPartition(new QDoubleSpinBox(this))
    , m_consumers(new QSpinBox(this))
    , m_useMeasured(new QPushButton(tr("Use measured"), this))
    , m_resultLabel(new QLabel(this))
    , m_explain(new QLabel(this))
    , m_current(new QLabel(this))
{
    setObjectName(QStringLiteral("partitionHelper"));
    for (auto *box : {m_throughput, m_perPartition}) {
        box->setDecimals(0);
        box->setRange(0, 1e9);
        box->setSingleStep(1000);
        box->setGroupSeparatorShown(true);
        box->setSuffix(tr(" records/s"));
    }
    m_perPartition->setMinimum(1);
    m_throughput->setObjectName(QStringLiteral("helperThroughput"));
    m_throughput->setToolTip(tr("Records per second the topic must carry at peak"));
    m_perPartition->setObjectName(QStringLiteral("helperPerPartition"));
    m_perPartition->setToolTip(
        tr("Records per second one partition can carry: what one consumer (one tideline-run "
           "process) processes from one partition — measure it with a run of this pipeline"));
    m_consumers->setObjectName(QStringLiteral("helperConsumers"));
    m_consumers->setRange(1, 100000);
    m_consumers->setToolTip(tr("tideline-run processes sharing the topic with the same group_id"));
    m_useMeasured->setObjectName(QStringLiteral("helperUseMeasured"));
    m_useMeasured->setToolTip(tr("Copy the source's measured rate of this run into throughput"));
    m_useMeasured->setEnabled(false);

    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    auto *tpRow = new QHBoxLayout;
    tpRow->addWidget(m_throughput, 1);
    tpRow->addWidget(m_useMeasured);
    form->addRow(tr("Expected throughput"), tpRow);
    form->addRow(tr("Per-partition rate"), m_perPartition);
    form->addRow(tr("Consumers"), m_consumers);

    m_resultLabel->setObjectName(QStringLiteral("helperResult"));
    m_resultLabel->setFont(style::font(13, true));
    m_explain->setObjectName(QStringLiteral("helperExplanation"));
    m_explain->setWordWrap(true);
    m_explain->setTextFormat(Qt::RichText);
    m_current->setObjectName(QStringLiteral("helperCurrent"));
    m_current->setWordWrap(true);
    m_current->setTextFormat(Qt::RichText);
    m_current->setVisible(false);
    auto *limit = new QLabel(
        tr("<b>Parallelism ≤ partitions.</b> Each partition is read by exactly one consumer of "
           "a group: consumers beyond the partition count get no partition and sit idle. Keyed "
           "state is correct only when producers partition by the grouping key, and Tideline "
           "does not yet move it with a partition on a rebalance: size the group so partitions "
           "stay put. Kafka can add partitions later but not remove them, and adding some sends "
           "keys to other partitions: leave headroom."),
        this);
    limit->setObjectName(QStringLiteral("helperLimit"));
    limit->setWordWrap(true);
    limit->setTextFormat(Qt::RichText);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_resultLabel);
    layout->addWidget(m_explain);
    layout->addWidget(m_current);
    layout->addWidget(limit);

    connect(m_throughput, &QDoubleSpinBox::valueChanged, this, &PartitionCountHelper::recompute);
    connect(m_perPartition, &QDoubleSpinBox::valueChanged, this, &PartitionCountHelper::recompute);
    connect(m_consumers, &QSpinBox::valueChanged, this, &PartitionCountHelper::recompute);
    connect(m_useMeasured, &QPushButton::clicked, this, [this] {
        if (m_measured)
            m_throughput->setValue(std::round(*m_measured));
    });
    setInputs(50000, 10000, 1);
}

void PartitionCountHelper::setInputs(double throughput, double perPartitionRate, int consumers)
{
    const QSignalBlocker a(m_throughput), b(m_perPartition), c(m_consumers);
    m_throughput->setValue(throughput);
    m_perPartition->setValue(perPartitionRate);
    m_consumers->setValue(consumers);
    recompute();
}

QString PartitionCountHelper::resultText() const
{
    return m_resultLabel->text();
}

QString PartitionCountHelper::explanation() const
{
    return m_explain->text();
}

void PartitionCountHelper::setCurrentPartitions(std::optional<int> count)
{
    if (count == m_currentPartitions)
        return;
    m_currentPartitions = count;
    recompute();
}

void PartitionCountHelper::setMeasuredRate(std::optional<double> recordsPerSecond)
{
    m_measured = recordsPerSecond;
    m_useMeasured->setEnabled(recordsPerSecond.has_value());
    m_useMeasured->setToolTip(
        recordsPerSecond
            ? tr("Copy the source's measured rate of this run (%1 records/s) into throughput")
                  .arg(rateText(std::round(*recordsPerSecond)))
            : tr("Run the pipeline to measure the source's rate"));
}

void PartitionCountHelper::recompute()
{
    const double t = m_throughput->value();
    const double p = m_perPartition->value();
    const int c = m_consumers->value();
    m_result = partitionsNeeded(t, p, c);
    const int forRate = t > 0 && p > 0 ? partitionsNeeded(t, p, 0) : 0;
    m_resultLabel->setText(QStringLiteral("→ ") + partitionsText(m_result));
    m_explain->setText(
        tr("partitions = max(⌈throughput ÷ per-partition rate⌉, consumers) = max(⌈%1 ÷ %2⌉, %3) "
           "= max(%4, %3) = <b>%5</b>. %6")
            .arg(rateText(t), rateText(p))
            .arg(c)
            .arg(forRate)
            .arg(m_result)
            .arg(m_result == c && c > forRate
                     ? tr("The consumers decide: each needs a partition of its own.")
                     : tr("The throughput decides: %1 carry it.").arg(partitionsText(forRate))));
    if (m_currentPartitions) {
        const int n = *m_currentPartitions;
        QString text = tr("The topic has <b>%1</b> now: ").arg(partitionsText(n));
        text += tr("at most %1 share it, carrying about %2 records/s at this per-partition "
                   "rate.")
                    .arg(n == 1 ? tr("1 consumer") : tr("%1 consumers").arg(n), rateText(n * p));
        if (n < m_result)
            text += QStringLiteral(" <span style='color:%1'>%2</span>")
                        .arg(style::lateAccepted().name(),
                             tr("That is %1 fewer than needed.").arg(m_result - n));
        m_current->setText(text);
    }
    m_current->setVisible(m_currentPartitions.has_value());
}

} // namespace tideline::live
