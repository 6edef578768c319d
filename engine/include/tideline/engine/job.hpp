#pragma once
// Job: a compiled pipeline and the one explicit loop that executes it.
//
// The loop pulls records from sources in turn and pushes each through the DAG depth-first;
// watermarks follow the records that caused them. Processing time comes only from the
// JobOptions clock, so bounded inputs give byte-identical output for identical files.
//
// [Threading] run()/runFor() execute on the calling thread (the runner's main thread, or the
// designer's worker thread). requestStop(), pause state and snapshot() may be called from any
// thread at any time; snapshot() never blocks the loop for longer than a copy.

#include <tideline/engine/lineage.hpp>
#include <tideline/engine/spec.hpp>
#include <tideline/engine/time.hpp>
#include <tideline/observe/metrics.hpp>
#include <tideline/observe/tap.hpp>

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace tideline {

class Runtime;
namespace recording {
class Capture;
class Feed;
} // namespace recording

/// Everything a run may want to know beyond the pipeline file.
struct JobOptions
{
    std::string baseDir = "."; ///< folder of the pipeline file
    Clock *clock = nullptr;    ///< default: SystemClock
    std::int64_t metricsIntervalMs = 1000;
    /// Called on the loop thread with each published snapshot (every metrics interval, and a
    /// last time when the run ends). Must not block for long.
    std::function<void(const observe::MetricsSnapshot &)> onMetrics;
    std::ostream *console = nullptr; ///< sink.console target (default std::cout)
    int batchSize = 256;             ///< records pulled from one source per turn
    /// Keyed nodes run as this many instances on as many threads (ARCHITECTURE.md "Parallel
    /// execution"); 0 = settings.parallelism (default 1). Outputs do not depend on it.
    int parallelism = 0;
    /// Keep NodeMetrics::peakStateEntries/Bytes: the state's figures read before each watermark
    /// advance of a node (one flag test per advance when off). For what-if sweeps.
    bool trackPeakState = false;

    // --- Checkpoints (settings.checkpoint in the file; these override) ---
    bool fresh = false;                  ///< ignore existing checkpoints
    std::string checkpointDirOverride;   ///< "" = settings.checkpoint.dir
    std::vector<std::string> resetState; ///< node ids whose restored state is discarded
    /// Sinks whose committed output may be deleted when their state is reset (a reset sink
    /// starts its output over; without this the restore refuses and says so).
    std::vector<std::string> discardOutput;
    std::string restoreFrom;     ///< savepoint folder (or checkpoint folder) to start from
    std::string savepointOnStop; ///< write a savepoint here when the run ends ("" = none)
    /// Consumer-group member name: with partition tasks (an unbounded source.kafka) and
    /// checkpoints, this process checkpoints under <dir>/members/<member>/ and shares
    /// <dir>/tasks/ with the other members. Each process of a group needs its own.
    std::string member = "default";
    std::function<void(const std::string &)> log; ///< one-line messages (recovery, warnings)

    // --- Record and replay (record_replay.hpp; not owned) ---
    recording::Capture *capture = nullptr; ///< record every source's raw input into it
    /// Replay: every source reads from the feed instead of its input (with `clock` set to
    /// the Replayer's virtual clock).
    recording::Feed *feed = nullptr;
    /// Record each record's path and each output row's inputs (lineage.hpp; --explain).
    lineage::Options lineage;
};

/// Result of compiling: a job, or the reason there is none.
struct JobCreateResult;

class Job
{
public:
    enum class Status { Running, Finished, Stopped, Failed };

    /// Compiles a validated spec. On failure returns nullptr and sets `error` to a message that
    /// names the node and the cause. The spec must have passed validate() without errors.
    static std::unique_ptr<Job>
    create(const PipelineSpec &spec, JobOptions options, std::string &error);
    ~Job();
    Job(const Job &) = delete;
    Job &operator=(const Job &) = delete;

    /// Runs until every bounded source ended (Finished), requestStop() (Stopped) or a
    /// failure (Failed, see failure()).
    Status run();
    /// Processes at most `maxRecords` source records, then returns (Running if more remain).
    /// runFor(1) is the designer's Step.
    Status runFor(std::int64_t maxRecords);
    /// Asks the loop to stop taking input; it flushes sinks and returns Stopped.
    /// Safe from signal handlers (a relaxed atomic store).
    void requestStop();
    bool stopRequested() const;
    /// Asks the loop to write a savepoint to `dir` (a new or empty folder) between two
    /// records, at its next tick. Thread-safe. `done` runs on the loop thread with the outcome
    /// (or from the destructor if the job ends first). Restore it with JobOptions::restoreFrom.
    void requestSavepoint(const std::string &dir,
                          std::function<void(bool ok, const std::string &message)> done = {});

    /// A consistent copy of every node's figures, taken at the last publish point.
    observe::MetricsSnapshot snapshot() const;
    /// Forces a publish now (call from the loop thread only, e.g. after runFor()).
    void publishMetrics();

    /// Record tap on one node (observe/tap.hpp); an empty callback removes it. Loop thread or
    /// before the run only. False when there is no such node.
    bool setTap(const std::string &nodeId,
                observe::TapCallback callback,
                observe::TapFilter filter = {});
    /// Called whenever a node's input or output watermark advances (same threading rules).
    void setWatermarkTap(observe::WatermarkTapCallback callback);

    std::string failure() const;
    const PipelineSpec &spec() const;
    /// The lineage recorded so far (JobOptions::lineage.enabled), else null. Read it on the
    /// loop thread or after the run.
    const lineage::Store *lineage() const;

private:
    Job();
    std::unique_ptr<Runtime> m_rt;
};

} // namespace tideline
