#pragma once
// TraceController (issue 16): Run › Trace a Record. Runs the open pipeline to the end of its
// bounded inputs with lineage on (the engine's lineage.hpp; sinks write into a temporary
// folder through expected::prepare, as Check does, so the pipeline's own outputs stay), on a
// worker thread; then the Trace dock (widgets' TraceView) searches the run's records by
// expression or text, shows the picked record's path in words and lights it on the canvas
// (TraceHighlight). The live run's output preview and ledger hand rows to traceText().
//
// [Threading] The worker owns the Job while it runs; after finished it is handed to the UI
// thread, which alone reads its lineage store.

#include <QObject>
#include <QString>

#include <memory>

class QAction;
class QDockWidget;
class QThread;
class QTemporaryDir;

namespace tideline {
class Job;
}
namespace tideline::live {
class TraceView;
class TraceHighlight;
} // namespace tideline::live

namespace tideline::designer {

class MainWindow;

class TraceController final : public QObject
{
    Q_OBJECT
public:
    explicit TraceController(MainWindow &window);
    ~TraceController() override;

    /// Runs the open pipeline with lineage (false when it cannot start; the view says why).
    bool run();
    bool running() const { return m_thread != nullptr; }
    bool ready() const { return m_job != nullptr; }
    /// Searches the traced run: an expression (click_id == "clk-0082"), else any text.
    void search(const QString &text, bool outputs);
    /// Shows the dock and searches `text` (a row of the output preview or the ledger).
    void traceText(const QString &text, bool outputs);

    tideline::live::TraceView *view() const { return m_view; }
    tideline::live::TraceHighlight *highlight() const { return m_highlight; }
    QDockWidget *dock() const { return m_dock; }
    QAction *action() const { return m_action; }

Q_SIGNALS:
    void finished();

private:
    void onWorkerDone();

    MainWindow &m_window;
    tideline::live::TraceView *m_view;
    tideline::live::TraceHighlight *m_highlight;
    QDockWidget *m_dock;
    QAction *m_action;
    QThread *m_thread = nullptr;
    std::unique_ptr<QTemporaryDir> m_temp;
    std::unique_ptr<Job> m_workerJob; ///< written by the worker
    std::string m_workerError;
    std::unique_ptr<Job> m_job; ///< the finished traced run (UI thread)
};

} // namespace tideline::designer
