#pragma once
// The Sweep dialog (Test > Sweep…): choose params of the open pipeline's nodes and type their
// values, run every combination (SweepWorker: the engine's sweep, as `tideline-run --sweep`),
// and see the trade-off as two scatter plots, one point per combination: completeness against
// latency p99, and completeness against peak state. Hovering a point shows its values and
// figures; clicking it applies its values to the document as one undoable command (a macro
// of SetParamCommands: Edit > Undo restores every param at once).
//
// The dialog never changes the document except through that command.

#include <tideline/engine/sweep.hpp>

#include <QDialog>

#include <vector>

class QChart;
class QGraphicsSimpleTextItem;
class QChartView;
class QLabel;
class QProgressBar;
class QPushButton;
class QScatterSeries;
class QTableWidget;

namespace tideline::designer {

class PipelineDocument;
class SweepWorker;

class SweepDialog final : public QDialog
{
    Q_OBJECT
public:
    SweepDialog(PipelineDocument &doc, QWidget *parent = nullptr);
    ~SweepDialog() override;

    /// Adds a row: `node`, `param` (of that node's kind) and the values as typed, "0,5000".
    void addAxis(const QString &node, const QString &param, const QString &values);
    /// Reads the rows into a plan; false and `error` when a row is wrong (same words as
    /// tideline-run --sweep).
    [[nodiscard]] bool readPlan(sweep::Plan &plan, QString *error) const;
    /// Starts the sweep (what the Run button does). False when it cannot start (the status
    /// line says why).
    bool runSweep();
    bool running() const;

    // --- after sweepFinished() ---
    const sweep::Result &result() const;
    /// The points of the two charts and the combination (row of result()) each one shows.
    QScatterSeries *latencySeries() const { return m_latencySeries; }
    QScatterSeries *stateSeries() const { return m_stateSeries; }
    QChartView *latencyView() const { return m_latencyView; }
    QChartView *stateView() const { return m_stateView; }
    const std::vector<std::size_t> &latencyRows() const { return m_latencyRows; }
    const std::vector<std::size_t> &stateRows() const { return m_stateRows; }
    /// What hovering over combination `row` shows.
    QString describe(std::size_t row) const;
    /// Applies combination `row`'s values to the document as one undoable command (what a
    /// click on its point does). False when nothing changed (the values are already set, or
    /// the swept nodes are gone).
    bool applyCombination(std::size_t row);

Q_SIGNALS:
    void sweepFinished();
    void combinationApplied(int row);

private:
    void addRow(const QString &node, const QString &param, const QString &values);
    void fillParams(int row);
    void onFinished();
    void onHovered(QScatterSeries *series,
                   const std::vector<std::size_t> &rows,
                   const QPointF &point,
                   bool state);
    void
    onClicked(const std::vector<std::size_t> &rows, QScatterSeries *series, const QPointF &point);
    void updateCount();
    void buildCharts();
    void plot();
    /// Labels each point with its combination's values (QtCharts 6.4 has no per-point text):
    /// one label per distinct point, placed again whenever the plot area moves.
    void labelPoints(QChart *chart,
                     QScatterSeries *series,
                     const std::vector<std::size_t> &rows,
                     std::vector<QGraphicsSimpleTextItem *> &labels);
    void placeLabels(QChart *chart,
                     QScatterSeries *series,
                     const std::vector<QGraphicsSimpleTextItem *> &labels);

    PipelineDocument &m_doc;
    SweepWorker *m_worker;
    QTableWidget *m_axes;
    QLabel *m_count;
    QPushButton *m_run;
    QPushButton *m_cancel;
    QProgressBar *m_progress;
    QLabel *m_status;
    QLabel *m_legend = nullptr;
    QChart *m_latencyChart = nullptr;
    QChart *m_stateChart = nullptr;
    QChartView *m_latencyView = nullptr;
    QChartView *m_stateView = nullptr;
    QScatterSeries *m_latencySeries = nullptr;
    QScatterSeries *m_stateSeries = nullptr;
    std::vector<std::size_t> m_latencyRows;
    std::vector<std::size_t> m_stateRows;
    std::vector<QGraphicsSimpleTextItem *> m_latencyLabels;
    std::vector<QGraphicsSimpleTextItem *> m_stateLabels;
};

} // namespace tideline::designer
