#pragma once
// The designer's Check (issue 19, item 3): "Check Against Expected Outputs" (F7, Test menu and
// main toolbar) runs the open pipeline — bounded, in the background (ExpectedCheck) — and
// compares each sink's output with <folder>/<sink id>.jsonl|.csv; "Save Outputs as
// Expected…" runs it and writes those files (asking before it changes one). The verdict shows
// in the Check dock (widgets/check/CheckPanel) and as a marker above each sink on the canvas.
// The folder: expected/ beside the pipeline file unless one was chosen (Test › Expected
// Outputs Folder…); an unsaved pipeline asks for one. Installed by MainWindow; uses its
// public API only.

#include "check/check_types.hpp"

#include <QObject>
#include <QTimer>

#include <functional>

class QAction;
class QDockWidget;

namespace tideline::expected {
struct Report;
}

namespace tideline::widgets {
class CheckMarkers;
class CheckPanel;
} // namespace tideline::widgets

namespace tideline::designer {

class ExpectedCheck;
class MainWindow;
struct DocumentChange;

class CheckController final : public QObject
{
    Q_OBJECT
public:
    explicit CheckController(MainWindow &window);
    ~CheckController() override;

    /// Check Against Expected Outputs: false when it did not start (the panel says why).
    bool check();
    /// Save Outputs as Expected…: false when it did not start.
    bool saveAsExpected();
    /// Stops a running check (nothing is compared or written).
    void stop();
    bool running() const;

    /// The folder the next check uses: the chosen one, else expected/ beside the pipeline
    /// file; "" for an unsaved pipeline until one is chosen.
    QString expectedDir() const;
    /// Test › Expected Outputs Folder…: asks for a folder; false when cancelled.
    bool chooseExpectedDir();
    void setExpectedDir(const QString &dir);

    widgets::CheckPanel *panel() const { return m_panel; }
    widgets::CheckMarkers *markers() const { return m_markers; }
    QDockWidget *dock() const { return m_dock; }

    /// Picks the expected folder (default: QFileDialog); "" = cancelled. Tests answer instead.
    using FolderChooser = std::function<QString(const QString &start)>;
    void setFolderChooser(FolderChooser chooser) { m_chooseFolder = std::move(chooser); }
    /// Asks before Save outputs as expected changes existing files (default: QMessageBox).
    using OverwriteConfirmer = std::function<bool(const QString &details)>;
    void setOverwriteConfirmer(OverwriteConfirmer c) { m_confirmOverwrite = std::move(c); }

Q_SIGNALS:
    /// A check or save ended (also when it could not run): the panel shows its report.
    void finished(const tideline::widgets::CheckReport &report);

private:
    enum class Mode { Check, Save };
    bool begin(Mode mode);
    void onFinished();
    void showError(Mode mode, const QString &dir, const QString &error);
    void show(const widgets::CheckReport &report);
    void bringForward();
    void onDocumentChanged(const DocumentChange &change);
    void updateActions();
    void updateProgress();

    MainWindow &m_window;
    ExpectedCheck *m_check;
    widgets::CheckPanel *m_panel;
    widgets::CheckMarkers *m_markers;
    QDockWidget *m_dock = nullptr;
    QAction *m_checkAction = nullptr;
    QAction *m_saveAction = nullptr;
    QAction *m_folderAction = nullptr;
    QAction *m_stopAction = nullptr;
    QTimer m_progress;
    Mode m_mode = Mode::Check;
    bool m_discardRun = false; ///< the running check's document was closed: ignore its end
    QString m_chosenDir; ///< set by Expected Outputs Folder… (or asked for an unsaved pipeline)
    QString m_pipelineName;
    FolderChooser m_chooseFolder;
    OverwriteConfirmer m_confirmOverwrite;
};

/// The engine's verdict in the check widgets' terms.
widgets::CheckReport toWidgets(const expected::Report &report, qint64 elapsedMs);

} // namespace tideline::designer
