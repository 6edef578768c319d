#pragma once
// ExpectedCheck: one run of the open pipeline against its expected outputs, on a worker
// thread, through the engine's expected_outputs API (the same code as `tideline-run
// --expect`): prepare() points the sinks into a temporary folder, the Job runs to the end of
// its bounded inputs, the outputs are read back and compared with the folder.
//
// Why not EngineBridge (live/): a live run taps every node, holds the worker back until the
// views have drained the taps, paces sources and pauses; a check must run the pipeline as
// tideline-run does — Job::run() on the system clock, to the end — and nothing in the UI
// waits for it. [Threading] start(), cancel(), the getters and save() are called on the UI
// thread; the worker owns the Job; finished() is emitted on the UI thread once the worker
// has joined. Only m_job (under m_mutex) and the cancel flag are shared.

#include <tideline/engine/expected_outputs.hpp>

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <memory>
#include <mutex>

class QTemporaryDir;
class QThread;

namespace tideline {
class Job;
}

namespace tideline::designer {

class ExpectedCheck final : public QObject
{
    Q_OBJECT
public:
    explicit ExpectedCheck(QObject *parent = nullptr);
    /// Stops a running check and joins it.
    ~ExpectedCheck() override;

    /// Starts a run of `spec` (a valid pipeline; relative paths resolve against `baseDir`)
    /// whose outputs are compared with `expectedDir`. False (and `error`) when it cannot start:
    /// a source that never ends, no sink whose output can be compared, a check still running.
    [[nodiscard]] bool start(const PipelineSpec &spec,
                             const QString &baseDir,
                             const QString &expectedDir,
                             QString *error);
    /// Asks the run to stop; finished() follows with failure() set.
    void cancel();
    bool running() const { return m_thread != nullptr; }
    /// Source records read so far by the running check (0 when none runs).
    qint64 recordsRead() const;
    qint64 elapsedMs() const;

    // --- after finished() ---
    /// "" when the run went to the end of its inputs and was compared; otherwise why there
    /// is no verdict (the job could not start, failed, or was stopped).
    QString failure() const { return m_failure; }
    /// The comparison with the expected folder (empty when failure() is set).
    const expected::Report &report() const { return m_report; }
    QString expectedDir() const { return m_expectedDir; }
    bool hasOutputs() const { return m_failure.isEmpty() && !m_outputs.empty(); }
    /// Writes this run's outputs into `dir` as `tideline-run --update-expected` does (Save
    /// outputs as expected). Only after a run that finished without failure().
    [[nodiscard]] expected::Report save(const QString &dir) const;

Q_SIGNALS:
    void finished();

private:
    void onWorkerDone();

    QThread *m_thread = nullptr;
    std::unique_ptr<QTemporaryDir> m_temp; ///< the sinks' outputs while the run lasts
    QElapsedTimer m_clock;
    qint64 m_elapsedMs = 0;
    QString m_expectedDir;
    expected::Plan m_plan;

    // Written by the worker, read on the UI thread after it has joined.
    std::string m_workerFailure;
    expected::Report m_workerReport;
    std::vector<expected::SinkOutput> m_workerOutputs;

    QString m_failure;
    expected::Report m_report;
    std::vector<expected::SinkOutput> m_outputs;

    // --- shared with the worker ---
    mutable std::mutex m_mutex;
    Job *m_job = nullptr; ///< while it runs
    bool m_cancel = false;
};

} // namespace tideline::designer
