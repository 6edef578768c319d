#pragma once
// CompareWorker: one Compare Engines run of the open pipeline on a worker thread, through the
// engine's compare API (the same code as `tideline-run --compare-engines`).
//
// [Threading] start(), cancel() and the getters are called on the UI thread. The worker
// thread runs compare::run(), which runs the engines on its own threads; engineFinished() and
// finished() are emitted on the UI thread (queued). Shared: the cancel flag (an atomic) and the
// report, handed over once the worker has joined.

#include <tideline/engine/compare_engines.hpp>

#include <QObject>
#include <QString>

#include <atomic>

class QThread;

namespace tideline::designer {

class CompareWorker final : public QObject
{
    Q_OBJECT
public:
    explicit CompareWorker(QObject *parent = nullptr);
    /// Cancels a running comparison and joins it.
    ~CompareWorker() override;

    /// Starts comparing `spec` (a valid pipeline; relative paths resolve against `baseDir`)
    /// under every engine. False (and `error`) when it cannot start: an unbounded source, no
    /// sink whose output can be compared, a comparison still running.
    [[nodiscard]] bool start(const PipelineSpec &spec, const QString &baseDir, QString *error);
    void cancel();
    bool running() const { return m_thread != nullptr; }
    /// The last finished comparison (empty before the first).
    const compare::Report &report() const { return m_report; }

Q_SIGNALS:
    void engineFinished(const QString &engine, bool ran);
    void finished();

private:
    void onWorkerDone();

    QThread *m_thread = nullptr;
    std::atomic<bool> m_cancel{false};
    compare::Report m_report;
    compare::Report m_workerReport;
};

} // namespace tideline::designer
