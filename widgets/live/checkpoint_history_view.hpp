#pragma once
// Checkpoint history of a run: one row per checkpoint or savepoint, newest first, with status,
// when it finished, how long it took, its size and, for a failed one, the cause (disk full,
// permission denied...).

#include "live_types.hpp"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace tideline::live {

class CheckpointHistoryView final : public QWidget
{
    Q_OBJECT
public:
    enum Column { Id, Kind, Status, Finished, Duration, Size, Cause, ColumnCount };

    explicit CheckpointHistoryView(QWidget *parent = nullptr);
    /// `startedAtMs`: the run's start (finish times are shown relative to it).
    void setHistory(const QList<CheckpointFigures> &history,
                    qint64 startedAtMs,
                    bool checkpointsConfigured);
    void clear();
    QTableWidget *table() const { return m_table; }
    QString summary() const;

private:
    QLabel *m_summary;
    QTableWidget *m_table;
};

} // namespace tideline::live
