#pragma once
// The designer's live mode: a Run toolbar (Run, Pause, Step, Stop, pacing), docks with the
// live views, and figures on the canvas. Installed into a MainWindow through
// installLiveViews(); it only uses MainWindow's public API (document, scene, docks).

#include "engine_bridge.hpp"
#include "live/live_types.hpp"

#include <tideline/engine/spec.hpp>

#include <QHash>
#include <QObject>
#include <QSet>

#include <memory>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QToolBar;

namespace tideline::live {
class CanvasOverlay;
class LateLedgerView;
class LiveCharts;
class LiveHistory;
class OutputPreview;
class WatermarkWhyPanel;
class WindowTimelineModel;
class WindowTimelineView;
} // namespace tideline::live

namespace tideline::designer {

class MainWindow;
class ReplayController;
struct DocumentChange;

namespace live {

class EngineBridge;
class KafkaInspector;
class PostgresInspector;

class LiveController final : public QObject
{
    Q_OBJECT
public:
    explicit LiveController(MainWindow &window);
    ~LiveController() override;

    EngineBridge *bridge() const { return m_bridge; }
    tideline::live::LiveCharts *charts() const { return m_charts; }
    tideline::live::WindowTimelineView *timeline() const { return m_timeline; }
    tideline::live::WatermarkWhyPanel *whyPanel() const { return m_why; }
    tideline::live::LateLedgerView *ledger() const { return m_ledger; }
    tideline::live::OutputPreview *preview() const { return m_preview; }
    tideline::live::CanvasOverlay *overlay() const { return m_overlay; }
    const tideline::live::LiveHistory &history() const { return *m_history; }
    const tideline::live::WindowTimelineModel *timelineModel(const QString &node) const;
    QToolBar *toolBar() const { return m_toolbar; }
    QComboBox *paceBox() const { return m_pace; }
    KafkaInspector *kafkaInspector() const { return m_kafka; }
    PostgresInspector *postgresInspector() const { return m_postgres; }
    /// Reads the newest rows of a sink.postgres node of the run into the output preview's
    /// "table" place (what the preview does every 2 s while that place is shown).
    void readBackTable(const QString &node);
    QAction *savepointAction() const { return m_savepoint; }
    QList<QDockWidget *> docks() const { return m_docks; }
    QDockWidget *dock(const QString &objectName) const;

    /// Starts a run of the open document (paused when `paused`); false + message when it
    /// cannot start (invalid pipeline, missing input file, a recording that does not fit).
    /// `recording`: record the run, or replay a recording in place of its sources.
    bool
    startRun(bool paused, QString *error = nullptr, const EngineBridge::Recording &recording = {});
    /// Before Run / Step starts a run: saves an unsaved pipeline that has relative paths,
    /// and asks before running a file from elsewhere (MainWindow::confirmRun()).
    bool readyToStart();
    /// Run › Record… / Replay Recording… and the replay speed (replay/replay_controller.hpp).
    ReplayController *replayController() const { return m_replay; }
    /// Shows this node in the timeline / watermark panel (what selecting it does).
    void selectNode(const QString &id);
    /// Processes whatever the bridge has and redraws (what each frame does).
    void onFrame();
    /// Asks the running job for a savepoint in `dir` (what the Savepoint action does after
    /// asking for the folder); the outcome shows in the status bar and the checkpoint history.
    bool takeSavepoint(const QString &dir, QString *error = nullptr);
    /// The folder the Savepoint action suggests: <pipeline folder>/savepoints/<name>-<time>.
    QString suggestedSavepointDir() const;
    /// Frame time statistics of onFrame() (ms), for the benchmark.
    const QList<double> &frameTimes() const { return m_frameTimes; }
    /// The snapshot every view shows (the engine's state when the records shown so far had
    /// been read; views never mix two moments).
    const tideline::live::Snapshot &shownSnapshot() const { return m_shown; }
    /// True when `node` on the canvas is the node that ran: same id, kind, params and edges
    /// as in the run's pipeline. Only such nodes show live figures.
    bool showsFiguresFor(const QString &node) const { return m_matching.contains(node); }
    /// The status text of the Run toolbar.
    QString statusText() const;

Q_SIGNALS:
    void runStateChanged(const QString &state);
    void savepointFinished(bool ok, const QString &message);

private:
    void buildToolbar();
    QStringList relativePaths() const;
    void buildDocks();
    void onSelectionChanged();
    void onStateChanged();
    void updateActions();
    void onDocumentChanged(const DocumentChange &change);
    /// Forgets the run and empties every view (the document it ran is gone).
    void resetViews();
    /// Which canvas nodes are the nodes that ran (m_matching), after any edit.
    void updateMatching();
    /// Redraws the views that depend on the document (canvas figures, why panel, timeline)
    /// from the shown snapshot.
    void refreshDocumentViews(bool refit);
    void processRecords(const QList<tideline::live::TappedRecord> &records);
    void updateStatus();
    void updateTimelineNote();

    MainWindow &m_window;
    EngineBridge *m_bridge;
    ReplayController *m_replay = nullptr;
    std::unique_ptr<tideline::live::LiveHistory> m_history;
    tideline::live::LiveCharts *m_charts = nullptr;
    tideline::live::WindowTimelineView *m_timeline = nullptr;
    tideline::live::WatermarkWhyPanel *m_why = nullptr;
    tideline::live::LateLedgerView *m_ledger = nullptr;
    tideline::live::OutputPreview *m_preview = nullptr;
    tideline::live::CanvasOverlay *m_overlay = nullptr;
    QHash<QString, std::shared_ptr<tideline::live::WindowTimelineModel>> m_timelines;
    QList<QDockWidget *> m_docks;
    QToolBar *m_toolbar = nullptr;
    QAction *m_run = nullptr;
    QAction *m_pauseAction = nullptr;
    QAction *m_step = nullptr;
    QAction *m_stop = nullptr;
    QAction *m_savepoint = nullptr;
    QAction *m_lineage = nullptr; ///< Run › Keep Lineage While Running
    KafkaInspector *m_kafka = nullptr;
    PostgresInspector *m_postgres = nullptr;
    QSet<QString> m_readsInFlight; ///< sink.postgres nodes whose table is being read
    QComboBox *m_pace = nullptr;
    QLabel *m_status = nullptr;
    QString m_selected;
    QList<double> m_frameTimes;
    QList<tideline::live::WatermarkChange> m_pendingMarks;
    /// Snapshots taken but not shown yet: the records up to each are still being processed.
    QList<tideline::live::Snapshot> m_pendingSnapshots;
    tideline::live::Snapshot m_shown; ///< with rates filled in by the history
    PipelineSpec m_runSpec;           ///< the pipeline of the run (as it was started)
    QSet<QString> m_matching;         ///< canvas nodes that are the nodes that ran
    int m_zoomRefits = 0;             ///< refits in a row caused by labels growing
};

} // namespace live

/// Adds the live views to `window` (owned by it) and returns the controller.
live::LiveController *installLiveViews(MainWindow &window);

} // namespace tideline::designer
