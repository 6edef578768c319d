#pragma once
// SweepWorker: one what-if sweep of the open pipeline on a worker thread, through the engine's
// sweep API (the same code as `tideline-run --sweep`).
//
// [Threading] start(), cancel() and the getters are called on the UI thread. The worker
// thread runs sweep::run(), which runs the combinations on its own threads; progress() and
// finished() are emitted on the UI thread (queued). Shared: the cancel flag (an atomic) and the
// result, handed over once the worker has joined.

#include <tideline/engine/sweep.hpp>

#include <QObject>
#include <QString>

#include <atomic>

class QThread;

namespace tideline::designer {

class SweepWorker final : public QObject
{
    Q_OBJECT
public:
    explicit SweepWorker(QObject *parent = nullptr);
    /// Cancels a running sweep and joins it.
    ~SweepWorker() override;

    /// Starts the sweep of `plan` over `spec` (a valid pipeline; relative paths resolve
    /// against `baseDir`). False (and `error`) when it cannot start: an unbounded source, no
    /// axes, a sweep still running.
    [[nodiscard]] bool start(const PipelineSpec &spec,
                             const sweep::Plan &plan,
                             const QString &baseDir,
                             QString *error);
    void cancel();
    bool running() const { return m_thread != nullptr; }
    /// The last finished sweep (empty before the first).
    const sweep::Result &result() const { return m_result; }
    const sweep::Plan &plan() const { return m_plan; }

Q_SIGNALS:
    void progress(int done, int total);
    void finished();

private:
    void onWorkerDone();

    QThread *m_thread = nullptr;
    std::atomic<bool> m_cancel{false};
    sweep::Plan m_plan;
    sweep::Result m_result;
    sweep::Result m_workerResult;
};

} // namespace tideline::designer
