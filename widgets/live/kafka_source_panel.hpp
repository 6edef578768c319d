#pragma once
// The Kafka source inspector: shown under a source.kafka node's form. While the pipeline runs,
// one row per partition (watermark, lag, idle state, last record), updated every frame; always
// the partition-count helper.

#include "live_types.hpp"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace tideline::live {

class PartitionCountHelper;

class KafkaSourcePanel final : public QWidget
{
    Q_OBJECT
public:
    enum Column { Partition, Watermark, Lag, State, LastRecord, ColumnCount };

    explicit KafkaSourcePanel(QWidget *parent = nullptr);

    /// No run (or the node is not in it): the table is emptied and `message` says why.
    void showNotRunning(const QString &message);
    void showFigures(const KafkaSourceFigures &figures);

    QTableWidget *table() const { return m_table; }
    PartitionCountHelper *helper() const { return m_helper; }
    QString statusText() const;

private:
    QLabel *m_title;
    QLabel *m_status;
    QTableWidget *m_table;
    PartitionCountHelper *m_helper;
};

} // namespace tideline::live
