#pragma once
// TraceController (issue 16): Run › Trace a Record. Runs the open pipeline to the end of its
// bounded inputs with lineage on (the engine's lineage.hpp; sinks write into a temporary
// folder through expected::prepare, as Check does, so the pipeline's own outputs stay), on a
// worker thread; then the Trace dock (widgets' TraceView) searches the run's records by
// expression or text, shows the picked record's path in words and lights it on the canvas
// (TraceHighlight). The live run's output preview and ledger hand rows to traceText(), the
// window timeline its dots and panes to traceAt(). While a live run keeps lineage (Run › Keep
// Lineage While Running) searches read the live run instead: an unbounded run is traced
// without a second run, its oldest records evicted first, and the view says since when.
//
// [Threading] The worker owns the Job while it runs; after finished it is handed to the UI
// thread, which alone reads its lineage store.

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QThread;
class QTemporaryDir;

namespace tideline {
class Job;
namespace lineage {
class Store;
struct Explanation;
} // namespace lineage
} // namespace tideline
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
    /// Shows the dock and traces what a click on the window timeline picked: the records that
    /// reached `node` as `match` (a dot: the record's JSON), or with `made` the rows `node`
    /// made that contain `match` (a pane: its window bounds and key). `label` is shown as the
    /// query.
    void traceAt(const QString &node, const QString &match, bool made, const QString &label);

    using StoreFn = std::function<void(const lineage::Store &)>;
    /// Where a live run's lineage can be read (LiveController: EngineBridge::withLineage):
    /// true when it ran `fn` on the live run's store. A search reads the live run while it
    /// keeps lineage, else the traced run.
    void setLiveLineage(std::function<bool(const StoreFn &fn)> live) { m_live = std::move(live); }

    tideline::live::TraceView *view() const { return m_view; }
    tideline::live::TraceHighlight *highlight() const { return m_highlight; }
    QDockWidget *dock() const { return m_dock; }
    QAction *action() const { return m_action; }

Q_SIGNALS:
    void finished();

private:
    void onWorkerDone();
    /// Runs `fn` on the live run's store, else the traced run's; false when there is neither.
    bool withStore(const std::function<void(const lineage::Store &, bool fromLive)> &fn);
    void searchAt();
    void show(const lineage::Explanation &e, bool outputs, bool fromLive);

    struct At
    {
        QString node, match;
        bool made = false;
    };
    std::optional<At> m_at; ///< the last traceAt(), until a search replaces it
    std::function<bool(const StoreFn &)> m_live;

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
