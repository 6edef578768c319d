#pragma once
// The chart dock: watermark & newest event time per node, window state, late & errors, and
// checkpoints, each over processing time (tabs, so each chart gets the whole dock).

#include <QWidget>

class QTabWidget;
class QLabel;

namespace tideline::live {

class CheckpointHistoryView;
class LiveHistory;
class TimeSeriesChart;

class LiveCharts final : public QWidget
{
    Q_OBJECT
public:
    explicit LiveCharts(QWidget *parent = nullptr);

    void clear();
    /// Redraws every chart from `history` (call at most ~30 times a second).
    void update(const LiveHistory &history, qint64 startedAtMs, bool checkpointsConfigured);

    TimeSeriesChart *watermarkChart() const { return m_watermark; }
    TimeSeriesChart *stateChart() const { return m_state; }
    TimeSeriesChart *lateChart() const { return m_late; }
    TimeSeriesChart *checkpointChart() const { return m_checkpoint; }
    CheckpointHistoryView *checkpointHistory() const { return m_history; }
    QTabWidget *tabs() const { return m_tabs; }
    /// Series keys used by the charts, e.g. "wm:<node>" / "max:<node>".
    static QString key(const QString &figure, const QString &node) { return figure + ':' + node; }

private:
    QTabWidget *m_tabs;
    TimeSeriesChart *m_watermark;
    TimeSeriesChart *m_state;
    TimeSeriesChart *m_late;
    TimeSeriesChart *m_checkpoint;
    QLabel *m_watermarkNote;
    CheckpointHistoryView *m_history;
};

} // namespace tideline::live
