#pragma once
// EngineBridge: runs a pipeline's Job on a worker QThread for the designer.
//
// Run / Pause / Step / Stop are commands to the worker (never blocking the UI). Flat-out file
// and generator runs call Job::runFor() in chunks sized to take ~20 ms; runs whose sources
// wait (paced sources, Kafka) call runFor(1), and the job's clock (LoopClock) holds the loop
// inside its waits while paused, so Pause takes effect between two records at any pace. The
// clock also stops while paused: pacing does not burst and partitions do not turn idle
// because someone pressed Pause. Step is runFor(1). A QTimer on the UI thread takes the engine's
// snapshot (a copy under the engine's publish mutex) and the tapped records at most 30 times
// a second and emits frame(). Taps: late/errors at every node (ledger), inputs at sinks
// (output preview), inputs and outputs at window nodes (timeline), data out at a watched
// edge; when the UI falls behind, the worker waits between chunks (bounded memory).
//
// Record and replay (issue 19, record_replay.hpp): a run may capture every source into a
// recording folder (a Recorder on the run's LoopClock, so time spent paused is no gap in the
// recording), or replay one in place of its sources. A replay runs on the Replayer's virtual
// clock, which LoopClock wraps: Pause holds the loop inside the clock's waits and restarts the
// clock's pacing afterwards (no catch-up burst), Step moves the virtual clock at once to the
// next record (ReplayClock::skipMs) whatever the speed. Flat-out replays run in chunks; paced
// ones one record per runFor(), like other paced runs. A change of speed is applied by the
// worker between two runFor() calls, so a chunk never runs paced.

#include "live/live_types.hpp"

#include <tideline/engine/spec.hpp>

#include <QObject>
#include <QSet>
#include <QTimer>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

class QThread;

namespace tideline {
class Job;
namespace recording {
class Recorder;
class Replayer;
} // namespace recording
namespace lineage {
class Store;
}
} // namespace tideline

namespace tideline::designer::live {

/// Recording a run, or replaying a recording in place of its sources (EngineBridge::start).
/// Outside the class: a default argument cannot use a nested struct's member initializers.
struct RunRecording
{
    enum Mode { None, Record, Replay } mode = None;
    QString dir; ///< relative to the run's baseDir
    /// Record: the limits of --record-max-records / -bytes / -duration (0 = none).
    qint64 maxRecords = 0, maxBytes = 0, maxDurationMs = 0;
    double speed = 0; ///< Replay: 0 = flat out, 1 = as recorded, N = N times as fast
    /// The pipeline file's text as the recording's hash sees it (manifest pipeline_sha256).
    std::string pipelineText;
};

class EngineBridge final : public QObject
{
    Q_OBJECT
public:
    enum class State { Idle, Running, Paused, Finished, Stopped, Failed };
    Q_ENUM(State)

    /// How sources are paced for this run (written into every generator/file source's
    /// params.pace); AsInFile keeps the file's own setting.
    struct Pace
    {
        enum Mode { AsInFile, FlatOut, RecordsPerSecond, EventTimeSpeed } mode = AsInFile;
        double value = 0;
    };

    /// Recording the run, or replaying a recording in place of its sources.
    using Recording = RunRecording;

    explicit EngineBridge(QObject *parent = nullptr);
    ~EngineBridge() override;

    /// Compiles `spec` and starts the worker paused (then call run() or step()).
    /// `baseDir` resolves relative paths. False (and `error`) when the job cannot be built,
    /// or the recording cannot be made or replayed (the engine's message: which sources do
    /// not match, which file and line is damaged). A replay ignores `pace`.
    bool start(const PipelineSpec &spec,
               const QString &baseDir,
               Pace pace,
               QString *error,
               const Recording &recording = {});
    void run();
    void pause();
    /// Processes exactly one source record, then pauses.
    void step();
    void stop();
    /// Stops the worker and joins it (also on destruction).
    void shutdown();
    /// shutdown(), then forgets the run (state Idle, no nodes, empty snapshot): the document
    /// it ran is gone (File > New / Open).
    void reset();
    /// Asks the running job for a savepoint in `dir` (a new or empty folder), taken between two
    /// records at the loop's next tick. While paused, one more record is processed to get
    /// there. savepointFinished() follows on the UI thread. False when no job is running.
    bool requestSavepoint(const QString &dir);

    /// The replay's speed (0 = flat out); applied between two runFor() calls. Any time.
    void setReplaySpeed(double speed);
    Recording::Mode recordingMode() const { return m_recordingMode; }
    /// The recording folder of this run (absolute), "" when it neither records nor replays.
    QString recordingDir() const { return m_recordingDir; }
    /// Records captured so far (Record) or replayed so far (Replay).
    qint64 recordingCount() const { return m_recordingCount.load(); }
    /// Replay: the records the recording holds (its manifest).
    qint64 recordingTotal() const { return m_recordingTotal; }
    /// Replay: the engine's notes (a changed pipeline, a recording cut short).
    QStringList recordingNotes() const { return m_recordingNotes; }
    /// Once the run ended: what the recording holds, or why it could not be closed.
    QString recordingResult() const;

    State state() const { return m_state; }
    bool active() const { return m_job != nullptr; }
    /// UI polling interval (ms); 33 = 30 frames a second.
    void setFrameInterval(int ms) { m_timer.setInterval(ms); }
    /// Records queued beyond this make the worker wait for the UI (0 = never wait).
    void setTapQueueLimit(int records) { m_queueLimit = records; }
    /// Also tap the data records leaving `node`.`port` (an edge the user clicked).
    void watchEdge(const QString &node, const QString &port);

    const tideline::live::Snapshot &snapshot() const { return m_snapshot; }
    /// Takes at most `max` of the oldest tapped records (the rest stay queued, so a slow UI
    /// holds the worker back instead of growing memory).
    QList<tideline::live::TappedRecord> takeRecords(int max = 1 << 30);
    /// Like takeRecords(), but only records tapped while the job had read at most
    /// `recordsRead` source records (the moment of a snapshot).
    QList<tideline::live::TappedRecord> takeRecordsUpTo(qint64 recordsRead, int max);
    qsizetype queuedRecords();
    /// True when a record tapped at or before `recordsRead` is still queued.
    bool hasRecordsUpTo(qint64 recordsRead);
    QList<tideline::live::WatermarkChange> takeWatermarks();
    const QList<tideline::live::NodeInfo> &nodes() const { return m_nodes; }
    const QList<tideline::live::EdgeInfo> &edges() const { return m_edges; }
    bool checkpointsConfigured() const { return m_checkpoints; }
    QString failure() const { return m_failure; }
    /// Polls now (what the timer does): snapshot, records, frame().
    void poll();
    /// Keep lineage in the runs started from now on (Trace a Record reads the live run's):
    /// oldest-first under the engine's budget, so a long run keeps its newest records.
    void setLineage(bool on) { m_lineageOn = on; }
    /// Input records the live run keeps traceable (0: the engine's default, 200,000).
    void setLineageBudget(std::size_t records) { m_lineageRecords = records; }
    bool lineageOn() const { return m_lineageOn; }
    /// Runs `fn` on the run's lineage store, between two records on the loop thread (or here
    /// once the run has ended), and waits for it. False when the run keeps no lineage, or the
    /// loop did not get to it within `timeoutMs` (it is then withdrawn).
    bool withLineage(const std::function<void(const tideline::lineage::Store &)> &fn,
                     int timeoutMs = 3000);
    /// Records skipped because a watched place was not tapped when they passed.
    qint64 framesEmitted() const { return m_frames; }

Q_SIGNALS:
    void stateChanged(tideline::designer::live::EngineBridge::State state);
    /// New figures and records are available (at most once per frame interval).
    void frame();
    void savepointFinished(bool ok, const QString &message, const QString &dir);

private:
    class LoopClock;
    enum class Command { None, Run, Pause, Step, Stop, Quit };
    void workerLoop();
    /// Called by the clock on the loop thread while a source waits: holds there while paused.
    /// True when the wait belongs to a Step (a replay then skips its virtual clock ahead).
    bool holdWhilePaused();
    /// Worker, between two runFor() calls: a requested replay speed takes effect.
    void applyReplaySpeed();
    /// Closes the recording of a run that ended (worker) or was shut down (UI, joined).
    void finishRecording(const std::string &why);
    void installTaps();
    /// Loop thread, `lock` on m_mutex: runs a pending withLineage() request.
    void serveLineage(std::unique_lock<std::mutex> &lock);
    void setState(State s);

    std::unique_ptr<LoopClock> m_clock;              ///< outlives m_job (declared first)
    std::unique_ptr<recording::Replayer> m_replayer; ///< the job's feed and clock
    std::unique_ptr<recording::Recorder> m_recorder; ///< the job's capture
    std::unique_ptr<Job> m_job;
    Recording::Mode m_recordingMode = Recording::None;
    QString m_recordingDir;
    qint64 m_recordingTotal = 0;
    QStringList m_recordingNotes;
    std::atomic<qint64> m_recordingCount{0};
    std::atomic<double> m_speedRequest{-1};  ///< -1 = none pending
    std::int64_t m_lastRecordCheckpoint = 0; ///< worker: steady ms of the last checkpoint()
    bool m_recordingFinished = false;
    std::string m_recordingResult; ///< written before m_workerDone, read after
    PipelineSpec m_spec;
    QThread *m_thread = nullptr;
    QTimer m_timer;
    State m_state = State::Idle;
    tideline::live::Snapshot m_snapshot;
    QList<tideline::live::NodeInfo> m_nodes;
    QList<tideline::live::EdgeInfo> m_edges;
    bool m_checkpoints = false;
    QString m_failure;
    qint64 m_frames = 0;
    /// Flat-out file/generator sources, or a flat-out replay: runFor() in chunks.
    std::atomic<bool> m_chunked{true};
    int m_queueLimit = 200000;
    bool m_lineageOn = false;
    std::size_t m_lineageRecords = 0;

    // --- shared with the worker (m_mutex) ---
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_running = false;    ///< worker loops while true
    int m_steps = 0;           ///< Step requests not yet served
    bool m_inStep = false;     ///< the runFor() in progress serves a Step
    std::int64_t m_budget = 0; ///< records the runFor() in progress may read
    bool m_quit = false;
    bool m_tapsDirty = false;
    const std::function<void(const tideline::lineage::Store &)> *m_lineageFn = nullptr;
    bool m_lineageBusy = false; ///< the loop is running m_lineageFn
    std::condition_variable m_lineageServed;
    QString m_edgeNode, m_edgePort;
    std::atomic<int> m_workerState{static_cast<int>(State::Paused)};
    std::atomic<bool> m_workerDone{false};

    std::mutex m_tapMutex;
    std::condition_variable m_drained;
    std::deque<tideline::live::TappedRecord> m_records;
    QList<tideline::live::WatermarkChange> m_watermarks;
};

} // namespace tideline::designer::live
