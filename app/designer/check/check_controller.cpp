#include "check_controller.hpp"

#include "catalog_adapter.hpp"
#include "check/check_markers.hpp"
#include "check/check_panel.hpp"
#include "document_change.hpp"
#include "expected_check.hpp"
#include "graph/graph_scene.hpp"
#include "graph/graph_view.hpp"
#include "graph/node_item.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"

#include <tideline/engine/expected_outputs.hpp>

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

#include <algorithm>

namespace tideline::designer {

namespace W = tideline::widgets;

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

W::SinkCheckStatus toWidgets(expected::SinkStatus s)
{
    using S = expected::SinkStatus;
    switch (s) {
    case S::Ok:
        return W::SinkCheckStatus::Ok;
    case S::Fail:
        return W::SinkCheckStatus::Fail;
    case S::Missing:
        return W::SinkCheckStatus::Missing;
    case S::Written:
        return W::SinkCheckStatus::Written;
    case S::Error:
        break;
    }
    return W::SinkCheckStatus::Error;
}

W::CheckFinding::Kind toWidgets(expected::Finding::Kind k)
{
    using K = expected::Finding::Kind;
    using WK = W::CheckFinding::Kind;
    switch (k) {
    case K::Missing:
        return WK::Missing;
    case K::Extra:
        return WK::Extra;
    case K::Different:
        return WK::Different;
    case K::Corrupt:
        return WK::Corrupt;
    case K::Order:
        return WK::Order;
    case K::More:
        break;
    }
    return WK::More;
}

} // namespace

W::CheckReport toWidgets(const expected::Report &report, qint64 elapsedMs)
{
    W::CheckReport r;
    r.save = report.update;
    r.passed = report.passed();
    r.expectedDir = q(report.expectedDir);
    r.elapsedMs = elapsedMs;
    for (const auto &s : report.sinks) {
        W::SinkCheck c;
        c.sinkId = q(s.sinkId);
        c.kind = q(s.kind);
        c.status = toWidgets(s.status);
        c.expectedFile = q(s.expectedPath);
        c.producer = q(s.producer);
        c.expectedRows = qint64(s.expectedRows);
        c.actualRows = qint64(s.actualRows);
        c.missing = s.missing;
        c.extra = s.extra;
        c.different = s.different;
        c.orderOnly = s.orderOnly;
        c.error = q(s.error);
        for (const auto &f : s.findings)
            c.findings.push_back({toWidgets(f.kind), q(f.row), q(f.detail), q(f.text)});
        r.sinks.push_back(std::move(c));
    }
    for (const auto &u : report.unchecked)
        r.notes << q(u);
    for (const auto &f : report.staleFiles)
        r.staleFiles << q(f);
    return r;
}

CheckController::CheckController(MainWindow &window)
    : QObject(&window)
    , m_window(window)
    , m_check(new ExpectedCheck(this))
    , m_panel(new W::CheckPanel)
    , m_markers(new W::CheckMarkers(window.scene(), this))
{
    setObjectName(QStringLiteral("checkController"));
    auto make = [this](const QString &id, const QString &text, const QString &tip,
                       QStyle::StandardPixmap icon) {
        auto *a = new QAction(m_window.style()->standardIcon(icon), text, this);
        a->setObjectName(id);
        a->setToolTip(tip);
        m_window.addAction(a);
        return a;
    };
    m_checkAction = make(QStringLiteral("Check.Run"), tr("&Check Against Expected Outputs"),
                         tr("Run the pipeline on its bounded inputs and compare each sink's "
                            "output with its expected file"),
                         QStyle::SP_DialogApplyButton);
    // F7: free (Run F5, Pause F6, Step F10, Stop Shift+F5, Savepoint Ctrl+F5).
    m_checkAction->setShortcut(QKeySequence(Qt::Key_F7));
    m_checkAction->setToolTip(m_checkAction->toolTip() + QStringLiteral(" (F7)"));
    m_saveAction = make(QStringLiteral("Check.Save"), tr("&Save Outputs as Expected…"),
                        tr("Run the pipeline and write each sink's output as its expected file "
                           "(what tideline-run --update-expected writes)"),
                        QStyle::SP_DialogSaveButton);
    m_folderAction = make(QStringLiteral("Check.Folder"), tr("Expected Outputs &Folder…"),
                          tr("Choose the folder of expected outputs (default: expected/ beside "
                             "the pipeline file)"),
                          QStyle::SP_DirOpenIcon);
    m_stopAction = make(QStringLiteral("Check.Stop"), tr("S&top Check"),
                        tr("Stop the running check (nothing is compared or written)"),
                        QStyle::SP_BrowserStop);
    connect(m_checkAction, &QAction::triggered, this, [this] { check(); });
    connect(m_saveAction, &QAction::triggered, this, [this] { saveAsExpected(); });
    connect(m_folderAction, &QAction::triggered, this, [this] { chooseExpectedDir(); });
    connect(m_stopAction, &QAction::triggered, this, &CheckController::stop);

    // Test menu, before Help; Check on the main toolbar and the panel's own buttons, with
    // short labels (twins of the menu's actions: a tool button takes its action's text back
    // whenever the action changes).
    auto *menu = new QMenu(tr("&Test"), m_window.menuBar());
    menu->addAction(m_checkAction);
    menu->addAction(m_saveAction);
    menu->addSeparator();
    menu->addAction(m_folderAction);
    menu->addAction(m_stopAction);
    QAction *help = m_window.action(QStringLiteral("Help.Menu"));
    m_window.menuBar()->insertMenu(help, menu);
    auto twin = [this](QAction *full, const QString &label, const QString &id) {
        auto *a = new QAction(full->icon(), label, this);
        a->setObjectName(id);
        a->setToolTip(full->toolTip());
        a->setEnabled(full->isEnabled());
        connect(a, &QAction::triggered, full, &QAction::trigger);
        connect(full, &QAction::changed, a, [a, full] { a->setEnabled(full->isEnabled()); });
        return a;
    };
    if (auto *bar = m_window.findChild<QToolBar *>(QStringLiteral("mainToolBar"))) {
        bar->addSeparator();
        bar->addAction(twin(m_checkAction, tr("Check"), QStringLiteral("Check.RunButton")));
    }
    m_panel->toolBar()->addAction(
        twin(m_checkAction, tr("Check"), QStringLiteral("Check.PanelRun")));
    m_panel->toolBar()->addAction(
        twin(m_saveAction, tr("Save as expected…"), QStringLiteral("Check.PanelSave")));
    m_panel->toolBar()->addAction(
        twin(m_folderAction, tr("Folder…"), QStringLiteral("Check.PanelFolder")));
    // Stop only while a check runs: the room is the folder's the rest of the time.
    auto *stopTwin = twin(m_stopAction, tr("Stop"), QStringLiteral("Check.PanelStop"));
    stopTwin->setVisible(false);
    connect(m_stopAction, &QAction::changed, stopTwin,
            [stopTwin, this] { stopTwin->setVisible(m_stopAction->isEnabled()); });
    m_panel->toolBar()->addAction(stopTwin);

    m_dock = new QDockWidget(tr("Check"), &m_window);
    m_dock->setObjectName(QStringLiteral("checkDock"));
    m_dock->setWidget(m_panel);
    m_dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    m_window.addDockWidget(Qt::BottomDockWidgetArea, m_dock);
    if (auto *problems = m_window.findChild<QDockWidget *>(QStringLiteral("problemsDock"))) {
        m_window.tabifyDockWidget(problems, m_dock);
        problems->raise();
    }

    connect(m_check, &ExpectedCheck::finished, this, &CheckController::onFinished);
    connect(m_panel, &W::CheckPanel::sinkSelected, this, [this](const QString &id) {
        if (!m_window.scene()->nodeItem(id))
            return;
        m_window.scene()->selectNodes({id});
        m_window.view()->ensureVisible(m_window.scene()->nodeItem(id), 80, 80);
    });
    connect(&m_window.document(), &PipelineDocument::changed, this,
            &CheckController::onDocumentChanged);
    m_markers->setViewZoom(m_window.view()->zoom());
    connect(m_window.view(), &widgets::GraphView::zoomChanged, m_markers,
            &W::CheckMarkers::setViewZoom);
    connect(&m_window.document(), &PipelineDocument::filePathChanged, this,
            [this] { m_panel->setExpectedDir(expectedDir()); });
    m_progress.setInterval(200);
    connect(&m_progress, &QTimer::timeout, this, &CheckController::updateProgress);
    m_panel->setExpectedDir(expectedDir());
    updateActions();
}

CheckController::~CheckController() = default;

bool CheckController::running() const
{
    return m_check->running();
}

QString CheckController::expectedDir() const
{
    if (!m_chosenDir.isEmpty())
        return m_chosenDir;
    const QString path = m_window.document().filePath();
    if (path.isEmpty())
        return {};
    return QDir(QFileInfo(path).absolutePath()).filePath(QStringLiteral("expected"));
}

void CheckController::setExpectedDir(const QString &dir)
{
    m_chosenDir = dir.isEmpty() ? QString() : QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
    m_panel->setExpectedDir(expectedDir());
}

bool CheckController::chooseExpectedDir()
{
    const QString path = m_window.document().filePath();
    QString start = expectedDir();
    if (start.isEmpty())
        start = path.isEmpty() ? QDir::homePath() : QFileInfo(path).absolutePath();
    const QString dir
        = m_chooseFolder
              ? m_chooseFolder(start)
              : QFileDialog::getExistingDirectory(&m_window, tr("Folder of expected outputs"),
                                                  start, QFileDialog::ShowDirsOnly);
    if (dir.isEmpty())
        return false;
    setExpectedDir(dir);
    return true;
}

bool CheckController::check()
{
    return begin(Mode::Check);
}

bool CheckController::saveAsExpected()
{
    return begin(Mode::Save);
}

void CheckController::stop()
{
    m_check->cancel();
}

bool CheckController::begin(Mode mode)
{
    if (m_check->running())
        return false;
    PipelineDocument &doc = m_window.document();
    if (doc.errorCount() > 0) {
        showError(mode, expectedDir(),
                  tr("the pipeline has %n problem(s) — see the Problems panel.", nullptr,
                     doc.errorCount()));
        return false;
    }
    // Relative paths resolve against the pipeline file's folder: an unsaved pipeline with any
    // is saved first, as Run does.
    if (doc.filePath().isEmpty() && !relativePathParams(doc.spec()).isEmpty()) {
        m_window.statusBar()->showMessage(
            tr("Save the pipeline first: its relative paths (%1) resolve against the file's "
               "folder")
                .arg(relativePathParams(doc.spec()).join(QStringLiteral(", "))),
            10000);
        if (!m_window.saveInteractively())
            return false;
    }
    if (expectedDir().isEmpty() && !chooseExpectedDir())
        return false;
    const QString dir = expectedDir();
    if (!m_window.confirmRun())
        return false;
    const QString base
        = doc.filePath().isEmpty() ? QDir::homePath() : QFileInfo(doc.filePath()).absolutePath();
    QString error;
    if (!m_check->start(doc.spec(), base, dir, &error)) {
        showError(mode, dir, error);
        return false;
    }
    m_mode = mode;
    m_discardRun = false;
    m_pipelineName = doc.displayName();
    m_markers->clear();
    m_panel->setExpectedDir(dir);
    updateProgress();
    m_progress.start();
    bringForward();
    updateActions();
    return true;
}

void CheckController::bringForward()
{
    m_dock->show();
    m_dock->raise();
    // Room for the findings: the bottom docks start at 170 px, which shows two or three.
    if (m_dock->height() < 200)
        m_window.resizeDocks({m_dock}, {std::max(220, m_window.height() * 9 / 20)}, Qt::Vertical);
}

void CheckController::updateProgress()
{
    if (!m_check->running())
        return;
    const QString what
        = m_mode == Mode::Save ? tr("Running %1 to save its outputs…") : tr("Checking %1…");
    m_panel->setRunning(what.arg(m_pipelineName) + QStringLiteral("  ")
                        + tr("%1 records read · %2 s")
                              .arg(QLocale().toString(m_check->recordsRead()))
                              .arg(double(m_check->elapsedMs()) / 1000.0, 0, 'f', 1));
}

void CheckController::showError(Mode mode, const QString &dir, const QString &error)
{
    W::CheckReport r;
    r.save = mode == Mode::Save;
    r.expectedDir = dir;
    r.error = (mode == Mode::Save ? tr("Cannot save the outputs as expected: %1")
                                  : tr("Cannot check: %1"))
                  .arg(error);
    show(r);
    m_window.statusBar()->showMessage(r.error, 10000);
}

void CheckController::show(const W::CheckReport &report)
{
    m_panel->setReport(report);
    m_markers->show(report.sinks);
    // A fitted canvas keeps the markers inside (the one on the rightmost sink sticks out).
    if (m_window.view()->isFitted())
        m_window.view()->fitToContents();
    bringForward();
    updateActions();
    Q_EMIT finished(report);
}

void CheckController::onFinished()
{
    m_progress.stop();
    if (m_discardRun) {
        m_discardRun = false;
        updateActions();
        return;
    }
    if (!m_check->failure().isEmpty()) {
        showError(m_mode, m_check->expectedDir(), m_check->failure());
        return;
    }
    const expected::Report &compared = m_check->report();
    W::CheckReport report = toWidgets(compared, m_check->elapsedMs());
    if (m_mode == Mode::Save) {
        // Ask before changing what someone wrote down as right: list the files this run
        // would change and how. New files and equal ones are written without asking.
        QStringList changes;
        for (const auto &s : report.sinks)
            if (s.status == W::SinkCheckStatus::Fail)
                changes << QStringLiteral("• %1 — %2")
                               .arg(QFileInfo(s.expectedFile).fileName(),
                                    s.orderOnly ? tr("the same rows in another order")
                                                : tr("%1 missing, %2 extra, %3 different")
                                                      .arg(s.missing)
                                                      .arg(s.extra)
                                                      .arg(s.different));
        if (!changes.isEmpty()) {
            const QString details
                = tr("This run's outputs differ from %n expected file(s) in %1:\n\n%2\n\n"
                     "Overwrite them with this run's outputs?",
                     nullptr, int(changes.size()))
                      .arg(m_check->expectedDir(), changes.join('\n'));
            const bool yes = m_confirmOverwrite
                                 ? m_confirmOverwrite(details)
                                 : QMessageBox::question(
                                       &m_window, tr("Overwrite expected outputs?"), details,
                                       QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel)
                                       == QMessageBox::Yes;
            if (!yes) {
                // Nothing written: show how this run differs, which is what was asked about.
                show(report);
                m_window.statusBar()->showMessage(tr("Nothing was saved."), 8000);
                return;
            }
        }
        report = toWidgets(m_check->save(m_check->expectedDir()), m_check->elapsedMs());
    }
    show(report);
    QString message;
    if (report.save)
        message = report.passed ? tr("Saved the expected outputs of %n sink(s) in %1", nullptr,
                                     int(report.sinks.size()))
                                      .arg(report.expectedDir)
                                : tr("Could not save every expected output: see the Check panel");
    else
        message = report.passed ? tr("Check passed: every sink matches its expected output")
                                : tr("Check failed: see the Check panel");
    m_window.statusBar()->showMessage(message, 10000);
}

void CheckController::onDocumentChanged(const DocumentChange &change)
{
    using T = DocumentChange::Type;
    if (change.type == T::NodeMoved)
        return; // layout only: the verdict still holds
    if (change.type == T::Reset) {
        // Another document: a check still running is about the one that is gone.
        if (m_check->running()) {
            m_discardRun = true;
            m_check->cancel();
        }
        m_progress.stop();
        m_chosenDir.clear();
        m_markers->clear();
        m_panel->clear();
        m_panel->setExpectedDir(expectedDir());
        return;
    }
    // The verdict was about the pipeline before this edit.
    m_markers->clear();
    if (m_panel->hasReport())
        m_panel->setOutdated(true);
}

void CheckController::updateActions()
{
    const bool busy = m_check->running();
    m_checkAction->setEnabled(!busy);
    m_saveAction->setEnabled(!busy);
    m_folderAction->setEnabled(!busy);
    m_stopAction->setEnabled(busy);
}

} // namespace tideline::designer
