#include "lab_controller.hpp"

#include "check/check_controller.hpp"
#include "check/check_types.hpp"
#include "labs/lab_panel.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QEvent>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QStyle>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace tideline::designer {

LabController::LabController(MainWindow &window)
    : QObject(&window)
    , m_window(window)
    , m_panel(new LabPanel)
    , m_dock(new QDockWidget(tr("Lab"), &window)) // a short tab: the panel has the title
    , m_openAction(
          new QAction(window.style()->standardIcon(QStyle::SP_DirOpenIcon), tr("Open &Lab…"), this))
{
    setObjectName(QStringLiteral("labController"));
    m_openAction->setObjectName(QStringLiteral("File.OpenLab"));
    m_openAction->setToolTip(tr("Open one of the teaching labs: a pipeline to fix, its task "
                                "and a Check"));
    m_window.addAction(m_openAction);
    connect(m_openAction, &QAction::triggered, this, [this] { openLabDialog(); });
    // File menu, right after Open….
    if (QAction *open = m_window.action(QStringLiteral("File.Open")))
        for (QObject *o : open->associatedObjects())
            if (auto *menu = qobject_cast<QMenu *>(o)) {
                const QList<QAction *> actions = menu->actions();
                const qsizetype at = actions.indexOf(open);
                menu->insertAction(at + 1 < actions.size() ? actions[at + 1] : nullptr,
                                   m_openAction);
            }

    m_dock->setObjectName(QStringLiteral("labDock"));
    // Not a column of two words per line (the palette's 160 px), yet small enough that a
    // 1024 px window still fits beside the Check dock's toolbar and the inspector.
    m_dock->setMinimumWidth(180);
    m_dock->setWidget(m_panel);
    m_dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    // Beside the canvas on the left, a tab over the node palette (a lab gives its nodes; the
    // inspector on the right stays in view to change them).
    m_window.addDockWidget(Qt::LeftDockWidgetArea, m_dock);
    if (auto *palette = m_window.findChild<QDockWidget *>(QStringLiteral("paletteDock")))
        m_window.tabifyDockWidget(palette, m_dock);
    m_dock->hide();

    m_window.installEventFilter(this);
    connect(m_panel, &LabPanel::checkRequested, this, [this] { check(); });
    connect(&m_window.document(), &PipelineDocument::filePathChanged, this,
            &LabController::onFileChanged);
    if (CheckController *c = m_window.checkController())
        connect(c, &CheckController::finished, this, &LabController::onCheckFinished);
    onFileChanged(m_window.document().filePath());
}

LabController::~LabController() = default;

bool LabController::openLabDialog()
{
    const QList<Lab> labs = availableLabs();
    if (labs.isEmpty()) {
        QMessageBox::information(&m_window, tr("Open Lab"),
                                 tr("No labs are installed (pipelines/labs/)."));
        return false;
    }
    if (!m_window.maybeSaveChanges())
        return false;
    const QString path = m_chooseLab ? m_chooseLab(labs) : chooseWithDialog(labs);
    return !path.isEmpty() && openLab(path);
}

bool LabController::openLab(const QString &dirOrPipeline)
{
    const QString path = QFileInfo(dirOrPipeline).isDir()
                             ? QDir(dirOrPipeline).filePath(QStringLiteral("pipeline.json"))
                             : dirOrPipeline;
    if (!labForPipeline(path))
        return false;
    return m_window.openPath(path); // onFileChanged shows the task
}

bool LabController::check()
{
    CheckController *c = m_window.checkController();
    if (!m_lab || !c)
        return false;
    // The lab's own expected outputs (its default folder), even when Test › Expected Outputs
    // Folder… chose another.
    if (QDir::cleanPath(c->expectedDir()) != m_lab->expected)
        c->setExpectedDir(m_lab->expected);
    m_panel->setVerdict(LabPanel::Verdict::Running, {});
    if (!c->check()) {
        // finished() said why when it got that far; otherwise say it here.
        if (m_panel->verdict() == LabPanel::Verdict::Running)
            m_panel->setVerdict(LabPanel::Verdict::Error, tr("See the Problems and Check panels."));
        return false;
    }
    return true;
}

void LabController::onFileChanged(const QString &path)
{
    CheckController *c = m_window.checkController();
    // A lab's Check may have pointed the check at the lab's folder: not the next file's.
    if (m_lab && c && QDir::cleanPath(c->expectedDir()) == m_lab->expected)
        c->setExpectedDir(QString());
    m_lab = path.isEmpty() ? std::nullopt : labForPipeline(path);
    if (!m_lab) {
        m_dock->hide();
        return;
    }
    m_panel->showLab(*m_lab);
    m_dock->show();
    m_dock->raise();
    // Wide enough to read the task in lines of a few words — once the window has its size
    // (a file opened before the window is shown, or resized right after, keeps the column
    // at the palette's width otherwise): see eventFilter().
    m_widen = true;
    m_widenTries = 0;
    QTimer::singleShot(0, this, &LabController::widen);
}

void LabController::widen()
{
    if (!m_lab || !m_widen || !m_window.isVisible())
        return;
    // The column is the palette's too (one tab group): size the group.
    QList<QDockWidget *> column{m_dock};
    if (auto *palette = m_window.findChild<QDockWidget *>(QStringLiteral("paletteDock")))
        column << palette;
    const int width = std::clamp(m_window.width() * 3 / 10, 300, 520);
    m_window.resizeDocks(column, QList<int>(column.size(), width), Qt::Horizontal);
    // Resizing the palette's tab brings it forward: the Lab's again once that is done.
    QTimer::singleShot(100, m_dock, &QDockWidget::raise);
    // Until the window's first layout has settled, a resize may be undone by it: look again
    // shortly, a few times at most.
    QTimer::singleShot(150, this, [this, width] {
        // Wide enough, or as wide as the window allows (a small window: the Check dock's
        // toolbar and the inspector keep their room): done, with the Lab's tab in front.
        if (m_dock->width() >= width - 8 || ++m_widenTries >= 3) {
            m_widen = false;
            m_dock->raise();
        } else {
            widen();
        }
    });
}

bool LabController::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == &m_window && m_widen
        && (event->type() == QEvent::Show || event->type() == QEvent::Resize))
        QTimer::singleShot(0, this, &LabController::widen);
    return QObject::eventFilter(watched, event);
}

void LabController::onCheckFinished(const widgets::CheckReport &report)
{
    // A check of the open lab, from the Lab dock or the Test menu (F7); not Save as expected.
    if (!m_lab || report.save)
        return;
    const qsizetype total = report.sinks.size();
    qsizetype failing = 0;
    for (const auto &s : report.sinks)
        if (s.status != widgets::SinkCheckStatus::Ok)
            ++failing;
    if (report.passed) {
        m_panel->setVerdict(LabPanel::Verdict::Passed,
                            tr("Every sink's output (%n sink(s)) matches the expected output.",
                               nullptr, int(total)));
    } else if (failing == 0 && !report.staleFiles.isEmpty()) {
        m_panel->setVerdict(LabPanel::Verdict::Failed,
                            tr("The expected folder holds files no sink writes: %1")
                                .arg(report.staleFiles.join(QStringLiteral(", "))));
    } else if (total == 0) {
        m_panel->setVerdict(LabPanel::Verdict::Error,
                            report.error.isEmpty() ? tr("See the Check panel.") : report.error);
    } else {
        m_panel->setVerdict(
            LabPanel::Verdict::Failed,
            tr("%1 of %n sink(s) differ from the expected output: the Check panel shows which "
               "rows.",
               nullptr, int(total))
                .arg(failing));
    }
}

QString LabController::chooseWithDialog(const QList<Lab> &labs)
{
    QDialog dialog(&m_window);
    dialog.setWindowTitle(tr("Open Lab"));
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(
        new QLabel(tr("Each lab is a pipeline to fix, with a task and a Check."), &dialog));
    auto *list = new QListWidget(&dialog);
    list->setObjectName(QStringLiteral("labList"));
    list->setWordWrap(true);
    list->setAlternatingRowColors(true);
    for (const Lab &lab : labs) {
        auto *item = new QListWidgetItem(
            lab.conceptText.isEmpty() ? lab.title : lab.title + QLatin1Char('\n') + lab.conceptText,
            list);
        item->setData(Qt::UserRole, lab.pipeline);
        item->setToolTip(lab.dir);
    }
    list->setCurrentRow(0);
    layout->addWidget(list, 1);
    auto *buttons
        = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, &dialog);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    connect(list, &QListWidget::itemDoubleClicked, &dialog, &QDialog::accept);
    dialog.resize(std::min(760, m_window.width() - 40), std::min(520, m_window.height() - 40));
    if (dialog.exec() != QDialog::Accepted || !list->currentItem())
        return {};
    return list->currentItem()->data(Qt::UserRole).toString();
}

} // namespace tideline::designer
