#include "sweep/sweep_controller.hpp"

#include "main_window.hpp"
#include "pipeline_document.hpp"
#include "sweep/sweep_dialog.hpp"

#include <QAction>
#include <QMenu>
#include <QMenuBar>

namespace tideline::designer {

SweepController::SweepController(MainWindow &window)
    : QObject(&window)
    , m_window(window)
    , m_action(new QAction(tr("What-if &Sweep…"), &window))
{
    m_action->setObjectName(QStringLiteral("sweep"));
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    m_action->setStatusTip(tr("Run the pipeline once per combination of some params' values "
                              "and plot completeness against latency and state"));
    connect(m_action, &QAction::triggered, this, [this] { open(); });
    // Into the Test menu (CheckController's), after its actions.
    QMenu *test = nullptr;
    for (QAction *a : window.menuBar()->actions())
        if (a->menu() && a->menu()->title().remove(QLatin1Char('&')) == tr("Test"))
            test = a->menu();
    if (test == nullptr)
        test = window.menuBar()->addMenu(tr("&Test"));
    test->addSeparator();
    test->addAction(m_action);
}

SweepDialog *SweepController::open()
{
    // A dialog is for one document: a new pipeline gets a new dialog.
    if (m_dialog && m_dialog->property("documentPath") != m_window.document().filePath()) {
        m_dialog->close(); // deletes itself later (WA_DeleteOnClose)
        m_dialog = nullptr;
    }
    if (!m_dialog) {
        m_dialog = new SweepDialog(m_window.document(), &m_window);
        m_dialog->setAttribute(Qt::WA_DeleteOnClose);
        m_dialog->setProperty("documentPath", m_window.document().filePath());
    }
    m_dialog->show();
    m_dialog->raise();
    m_dialog->activateWindow();
    return m_dialog;
}

} // namespace tideline::designer
