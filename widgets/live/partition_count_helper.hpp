#pragma once
// The partition-count helper of the Kafka source inspector: expected throughput, what one
// partition (read by one consumer) sustains, and the number of consumers give the number of
// partitions a topic needs, with the reasoning spelled out and the scale-out limit
// (parallelism <= partitions).

#include <QGroupBox>

#include <optional>

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace tideline::live {

/// partitions = max(ceil(throughput / perPartitionRate), consumers), at least 1.
/// perPartitionRate <= 0 counts as "unknown": only the consumers decide.
int partitionsNeeded(double throughput, double perPartitionRate, int consumers);

class PartitionCountHelper final : public QGroupBox
{
    Q_OBJECT
public:
    explicit PartitionCountHelper(QWidget *parent = nullptr);

    void setInputs(double throughput, double perPartitionRate, int consumers);
    int result() const { return m_result; }
    QString resultText() const;
    QString explanation() const;
    /// The topic's current partition count while running (nullopt: unknown), compared with
    /// the result.
    void setCurrentPartitions(std::optional<int> count);
    /// The source's measured rate while running; "Use measured" copies it into throughput.
    void setMeasuredRate(std::optional<double> recordsPerSecond);

    QDoubleSpinBox *throughputBox() const { return m_throughput; }
    QDoubleSpinBox *perPartitionBox() const { return m_perPartition; }
    QSpinBox *consumersBox() const { return m_consumers; }
    QPushButton *useMeasuredButton() const { return m_useMeasured; }

private:
    void recompute();

    QDoubleSpinBox *m_throughput;
    QDoubleSpinBox *m_perPartition;
    QSpinBox *m_consumers;
    QPushButton *m_useMeasured;
    QLabel *m_resultLabel;
    QLabel *m_explain;
    QLabel *m_current;
    std::optional<int> m_currentPartitions;
    std::optional<double> m_measured;
    int m_result = 1;
};

} // namespace tideline::live
