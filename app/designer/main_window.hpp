#pragma once
// The designer window: palette | canvas | inspector, problems below, menus and toolbar.
// Turns intents from the views into undo commands on the document; never edits the spec
// directly.

#include <QMainWindow>

#include <functional>

class QAction;
class QLabel;
class QMenu;

namespace tideline::widgets {
class GraphScene;
class GraphView;
class NodeInspector;
class NodePalette;
class ProblemsPanel;
struct ConnectionId;
} // namespace tideline::widgets

namespace tideline::designer {

class CheckController;
class SweepController;
class CompareController;
class LabController;
class TraceController;
class PipelineDocument;
class PipelineGraphModel;
struct PipelineHeader;

class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    PipelineDocument &document() const { return *m_doc; }
    widgets::GraphScene *scene() const { return m_scene; }
    widgets::GraphView *view() const { return m_view; }
    widgets::NodePalette *palette() const { return m_palette; }
    widgets::NodeInspector *inspector() const { return m_inspector; }
    widgets::ProblemsPanel *problemsPanel() const { return m_problems; }
    /// Check against expected outputs / Save outputs as expected (the Test menu).
    CheckController *checkController() const { return m_check; }
    SweepController *sweepController() const { return m_sweep; }
    /// Test › Compare Engines… (Flink, Spark, Kafka Streams semantics side by side).
    CompareController *compareController() const { return m_compare; }
    /// File › Open Lab… and the Lab dock (teaching labs, pipelines/labs/).
    LabController *labController() const { return m_labs; }
    TraceController *traceController() const { return m_trace; }
    /// An action by id ("File.Save"), also those added by the check and live views
    /// ("Check.Run"), found by object name.
    QAction *action(const QString &id) const;
    /// The reason of the last refused connection (shown in the status bar).
    QString lastRefusal() const { return m_lastRefusal; }

    bool openPath(const QString &path);
    bool savePath(const QString &path);
    /// Picks a pipeline file: `save` for Save As, else Open; "" = cancelled. The default shows
    /// QFileDialog; tests answer with a path instead of driving the file dialog.
    using FileChooser = std::function<QString(bool save, const QString &suggested)>;
    void setFileChooser(FileChooser chooser) { m_chooseFile = std::move(chooser); }
    /// Picks the file of a path field (the inspector's Browse…): `save` for sinks, `folder`
    /// for a table folder; "" = cancelled. Default: QFileDialog; tests answer instead.
    using PathChooser = std::function<QString(const QString &start, bool save, bool folder)>;
    void setPathChooser(PathChooser chooser) { m_choosePath = std::move(chooser); }
    /// What the inspector's Browse… puts in a path field of a `kind` node: the picked file,
    /// relative to the pipeline's folder when it lies inside it (as the examples are written),
    /// else absolute; "" when cancelled.
    QString browseForPath(const QString &kind, const QString &field, const QString &current);
    /// Before a run: true when the document was made or saved here, is a shipped example, or
    /// someone already confirmed this file (same contents); otherwise asks, listing the files
    /// and servers it names (a pipeline opened by double-click may come from anywhere).
    bool confirmRun();
    using RunConfirmer = std::function<bool(const QString &details)>;
    void setRunConfirmer(RunConfirmer confirmer) { m_confirmRun = std::move(confirmer); }
    /// Save (Save As for an unsaved document), as File > Save does.
    bool saveInteractively() { return save(); }
    /// Offers to save unsaved changes, as opening another file does; false = cancelled.
    bool maybeSaveChanges() { return maybeSave(); }
    /// Adds a node of `kind` centred at a scene position; returns its id.
    QString addNode(const QString &kind, const QPointF &scenePos);
    /// File > Pipeline Settings: the dialog, then one undoable command when something changed.
    void editPipelineSettings();
    /// Applies a header as one undoable command; false when nothing changed.
    bool applyPipelineSettings(const PipelineHeader &header);

protected:
    void closeEvent(QCloseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void buildActions();
    void buildMenus();
    void buildDocks();
    void connectViews();
    void restoreDockWidths();
    void rememberTrusted(const QString &path);
    bool isTrustedFile(const QString &path) const;
    QString runSummary() const;

    // file
    bool maybeSave();
    void newFile();
    void openDialog();
    bool save();
    bool saveAs();
    void exportForServer();
    void rebuildRecentMenu();
    void rebuildExamplesMenu();
    void updateTitle();

    // edit
    void deleteSelection();
    void copySelection();
    void cutSelection();
    void paste();
    void duplicateSelection();
    void pasteText(const std::string &text, QPointF offset);
    void autoLayout();
    void onConnectRequested(const widgets::ConnectionId &c);
    void onConnectionRefused(const widgets::ConnectionId &c, const QString &reason);
    void onNodesMoved(const QStringList &ids, const QList<QPointF> &positions, int serial);
    void onParamEdited(const QString &nodeId, const QString &name, const QJsonValue &value);
    void onRenameRequested(const QString &oldId, const QString &newId);
    void onProblemActivated(const QString &nodeId, const QString &param);

    // views
    void onUiScaleChanged(double factor, double previous);
    void refreshInspector();
    void refreshProblems();
    QPointF freeSpotNear(QPointF scenePos) const;

    PipelineDocument *m_doc;
    PipelineGraphModel *m_model;
    widgets::GraphScene *m_scene;
    widgets::GraphView *m_view;
    widgets::NodePalette *m_palette;
    widgets::NodeInspector *m_inspector;
    widgets::ProblemsPanel *m_problems;
    CheckController *m_check = nullptr;
    SweepController *m_sweep = nullptr;
    CompareController *m_compare = nullptr;
    LabController *m_labs = nullptr;
    TraceController *m_trace = nullptr; ///< Trace a Record (trace/trace_controller.hpp)
    QHash<QString, QAction *> m_actions;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_examplesMenu = nullptr;
    QLabel *m_zoomLabel;
    QLabel *m_problemLabel;
    QString m_lastRefusal;
    int m_pasteCount = 0;
    FileChooser m_chooseFile;
    PathChooser m_choosePath;
    RunConfirmer m_confirmRun;
    bool m_trusted = true;
    double m_presentationScale = 1.5; ///< the scale presentation mode returns to
    double m_unscaledFontPt = 0;
};

} // namespace tideline::designer
