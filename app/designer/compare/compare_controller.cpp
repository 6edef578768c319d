#include "compare/compare_controller.hpp"

#include "compare/compare_dialog.hpp"
#include "main_window.hpp"
#include "pipeline_document.hpp"

#include <QAction>
#include <QMenu>
#include <QMenuBar>

namespace tideline::designer {

CompareController::CompareController(MainWindow &window)
    : QObject(&window)
    , m_window(window)
    , m_action(new QAction(tr("Compare &Engines…"), &window))
{
    m_action->setObjectName(QStringLiteral("compareEngines"));
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    m_action->setStatusTip(tr("Run the pipeline as Flink, Spark and Kafka Streams would and "
                              "show where their results differ"));
    connect(m_action, &QAction::triggered, this, [this] { open(); });
    QMenu *test = nullptr;
    for (QAction *a : window.menuBar()->actions())
        if (a->menu() && a->menu()->title().remove(QLatin1Char('&')) == tr("Test"))
            test = a->menu();
    if (test == nullptr)
        test = window.menuBar()->addMenu(tr("&Test"));
    test->addAction(m_action);
}

CompareDialog *CompareController::open()
{
    // A dialog is for one document: a new pipeline gets a new dialog.
    if (m_dialog && m_dialog->property("documentPath") != m_window.document().filePath()) {
        m_dialog->close(); // deletes itself later (WA_DeleteOnClose)
        m_dialog = nullptr;
    }
    if (!m_dialog) {
        m_dialog = new CompareDialog(m_window.document(), &m_window);
        m_dialog->setAttribute(Qt::WA_DeleteOnClose);
        m_dialog->setProperty("documentPath", m_window.document().filePath());
        m_dialog->setLiveRunHook([this] {
            if (m_liveRun)
                m_liveRun();
        });
    }
    m_dialog->show();
    m_dialog->raise();
    m_dialog->activateWindow();
    return m_dialog;
}

} // namespace tideline::designer
