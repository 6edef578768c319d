#pragma once
// Record and replay in the designer (issue 19, items 1-2): the Run menu's "Record…" (a run that
// captures every source into a recording folder, with tideline-run's limits; the status bar
// counts the records captured), "Replay Recording…" (the open pipeline run on a recording in
// place of its sources, on the recording's virtual clock), the replay speed (flat out, as
// recorded, ×N: --replay-speed) and, through the Run toolbar's Step, one record at a time
// while a replay is paused. The runs are LiveController's (the live views show them); this
// controller only chooses what they read and write, through EngineBridge::Recording.
// A recording that cannot be replayed (another pipeline's sources, a damaged line) is the
// engine's message, shown in a message box and the status bar; never a run.

#include "replay/record_dialog.hpp"

#include <QObject>

#include <functional>
#include <optional>

class QAction;
class QActionGroup;
class QComboBox;
class QLabel;
class QMenu;

namespace tideline::designer {

class MainWindow;

namespace live {
class LiveController;
}

class ReplayController final : public QObject
{
    Q_OBJECT
public:
    ReplayController(MainWindow &window, live::LiveController &live);

    /// Run › Record…: asks for the folder and limits, then starts a recorded run (replacing a
    /// run in progress). False when cancelled or refused (lastMessage() says why).
    bool record();
    /// Run › Replay Recording…: asks for the folder, then replays it. False when cancelled or
    /// refused.
    bool replay();
    /// What record() does after the dialog; `paused` starts the run paused (Step / Run next).
    bool startRecording(const RecordSettings &settings, bool paused = false);
    /// What replay() does after the folder chooser.
    bool startReplay(const QString &dir, bool paused = false);

    /// 0 = flat out, 1 = as recorded, N = N times as fast; applies to the replay in progress.
    void setSpeed(double speed);
    double speed() const;

    /// The last error or note shown (the engine's words).
    QString lastMessage() const { return m_lastMessage; }
    /// The status bar's recording figures ("Recording · 120 records captured").
    QString statusText() const;
    QComboBox *speedBox() const { return m_speed; }
    QMenu *runMenu() const { return m_menu; }
    /// The folder Record… suggests: <pipeline folder>/recordings/<name>-<time>.
    QString suggestedDir() const;

    /// Answers the Record dialog (default: RecordDialog); nullopt = cancelled. Tests answer.
    using RecordChooser = std::function<std::optional<RecordSettings>(const RecordSettings &)>;
    void setRecordChooser(RecordChooser c) { m_chooseRecord = std::move(c); }
    /// Picks a recording folder (default: QFileDialog); "" = cancelled.
    using FolderChooser = std::function<QString(const QString &start)>;
    void setFolderChooser(FolderChooser c) { m_chooseFolder = std::move(c); }
    /// Shows an error or a note (default: a window-modal message box, not waited for).
    using MessageSink = std::function<void(const QString &title, const QString &text)>;
    void setMessageSink(MessageSink s) { m_showMessage = std::move(s); }

Q_SIGNALS:
    void messageShown(const QString &text);

private:
    void buildMenu();
    bool begin(const QString &what);
    void show(const QString &title, const QString &text);
    void updateStatus();
    QString baseDir() const;
    std::string pipelineText() const;

    MainWindow &m_window;
    live::LiveController &m_live;
    QMenu *m_menu = nullptr;
    QAction *m_recordAction = nullptr;
    QAction *m_replayAction = nullptr;
    QActionGroup *m_speedGroup = nullptr;
    QComboBox *m_speed = nullptr;
    QAction *m_speedAction = nullptr; ///< the speed box in the Run toolbar (replays only)
    QAction *m_paceAction = nullptr;  ///< the pace box's, hidden while a replay is shown
    QLabel *m_status = nullptr;
    RecordSettings m_lastRecord;
    QString m_lastReplayDir;
    QString m_lastMessage;
    bool m_reported = true; ///< the ended run's recording result was shown
    RecordChooser m_chooseRecord;
    FolderChooser m_chooseFolder;
    MessageSink m_showMessage;
};

} // namespace tideline::designer
