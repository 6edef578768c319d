#pragma once
// Runtime: the executor behind Job. One class, its members written in rooms of one job each:
//   graph.hpp/.cpp          the compiled graph (nodes, ports, routes, topological order)
//   operator_context.cpp    creating and opening a node's operator
//   router.cpp              the per-record hot path and Output
//   watermarks.cpp          combining, idleness, the partition-task merge, and their restore
//   taps.cpp                record and watermark taps
//   publisher.cpp           the metrics snapshot shared with other threads
//   loop.cpp                the loop (pull from sources, push depth-first), ticks, finish
//   restart.cpp             checkpoint wiring, restart after a RecoverableError
//   partition_tasks.cpp     nodes run as one instance per partition
//   parallel_plan.cpp       keyed nodes run as N instances on N threads (parallel.hpp)
//   checkpoint_port.cpp     checkpoint::RuntimePort: all the checkpoint module sees of it
//   job.cpp                 the Job facade
//
// [Threading] Everything here runs on the loop thread, except the instances of parallel stages
// (parallel.hpp: on their workers, handed over in rounds) and: the stop flag (any thread),
// snapshot()/failure()/recordCheckpoint() (under m_publishMutex), and what the checkpoint
// coordinator shares with its writer thread and savepoint requests (checkpoint/coordinator.hpp).

#include "checkpoint/runtime_port.hpp"
#include "runtime/graph.hpp"
#include "runtime/spark_source_target.hpp"
#include "semantics/semantics.hpp"
#include "semantics/spark_clock.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/operator.hpp>
#include <tideline/engine/status.hpp>
#include <tideline/observe/tap.hpp>

#include <atomic>
#include <functional>
#include <mutex>

namespace tideline {

namespace lineage {
class Store;
}
namespace checkpoint {
class Coordinator;
struct RunLocks;
} // namespace checkpoint
namespace state {
class StateBackend;
}
namespace parallel {
class WorkerPool;
struct StageConfig;
} // namespace parallel

/// settings.parallelism ("auto": the cores available), overridden by JobOptions::parallelism,
/// clamped to 1..128 (the key groups).
int resolveParallelism(const PipelineSpec &spec, const JobOptions &options);

// OutputTarget first: Output calls it per record, and as the first base it needs no this-adjusting
// thunk (the checkpoint port is called a few times per checkpoint).
class Runtime final : public OutputTarget, public checkpoint::RuntimePort
{
public:
    using Target = graph::Target;
    using PortRoute = graph::PortRoute;
    using Inbound = graph::Inbound;
    using Node = graph::Node;
    using TaskSection = graph::TaskSection;

    Runtime(const PipelineSpec &spec, JobOptions options);
    ~Runtime();

    /// Builds operators in topological order. Fails naming the node.
    [[nodiscard]] Status compile();

    Job::Status runFor(std::int64_t maxRecords);
    void requestStop() { m_stop.store(true, std::memory_order_relaxed); }
    bool stopRequested() const { return m_stop.load(std::memory_order_relaxed); }

    // --- Output's implementation (loop thread only) ---
    void emit(int node, int port, Record &&record) override;
    void emitWrapped(int node,
                     PortRole role,
                     std::string_view reason,
                     Record &&record,
                     Timestamp watermark,
                     std::string_view raw,
                     std::string_view where) override;
    void emitWatermark(int node, Timestamp w) override;
    void emitIdle(int node, bool idle) override;
    bool connected(int node, int port) const override;
    void traceFate(int node, observe::Fate fate) override;

    // --- Lineage (lineage_hooks.cpp; the store is engine/src/lineage/) ---
    const lineage::Store *lineageStore() const { return m_lineage.get(); }
    /// Lineage on (after compile): every node gets a tap (an empty one when untapped).
    void enableLineage(const lineage::Options &options);

    // --- Taps (loop thread, or before the run) ---
    /// Installs (or, with an empty callback, removes) a node's record tap. False: no such node.
    bool setTap(const std::string &nodeId,
                observe::TapCallback callback,
                observe::TapFilter filter = {});
    void setWatermarkTap(observe::WatermarkTapCallback callback);

    // --- Metrics ---
    void publish(bool final);
    observe::MetricsSnapshot snapshot() const;

    const PipelineSpec &spec() const override { return m_spec; }
    /// Recreates an instance's operator empty (partition moved away, or about to be restored)
    /// and resets its watermarks and figures.
    [[nodiscard]] Status resetInstance(int node) override;
    const std::vector<int> &topoOrder() const override { return m_order; }
    Clock &clock() override { return *m_clock; }
    const JobOptions &options() const override { return m_options; }
    std::string failure() const;
    void fail(const std::string &message);
    std::int64_t recordsRead() const override { return m_recordsRead; }

    // --- Checkpoint wiring (engine/src/checkpoint) ---
    /// Locks the checkpoint folder for this run (before compile(): no operator has opened).
    [[nodiscard]] Status lockCheckpoints();
    /// Creates the checkpoint coordinator and restores state (after compile()).
    [[nodiscard]] Status initCheckpoints();
    checkpoint::Coordinator *checkpoints() { return m_checkpoints.get(); }
    /// Closes every operator and opens it again empty, with the nodes' watermarks, idleness
    /// and figures reset: a restore that must start over from an earlier checkpoint. The
    /// state backend is not re-applied here.
    [[nodiscard]] Status reopenOperators() override;
    void setRecordsRead(std::int64_t n) override { m_recordsRead = n; }
    /// Publishes a checkpoint outcome (lastCheckpoint + bounded history); any thread.
    void recordCheckpoint(const observe::CheckpointInfo &info, std::size_t historyLimit) override;

    // --- The rest of checkpoint::RuntimePort (checkpoint_port.cpp) ---
    void log(const std::string &line) const override;
    int nodeCount() const override { return static_cast<int>(m_nodes.size()); }
    checkpoint::NodeInfo nodeInfo(int node) const override;
    Operator &op(int node) override { return *m_nodes[static_cast<std::size_t>(node)].op; }
    void captureNode(int node, checkpoint::NodeEntry &e) const override;
    void restoreNode(int node, const checkpoint::NodeEntry &e) override;
    void primeWatermarks(const std::vector<int> &fresh) override;
    void primeInstances(const std::vector<int> &instances) override;
    /// Every parallel stage quiesced, in topological order (parallel_stages.cpp).
    void quiesce() override;
    /// After a source failed: what it handed the parallel stages before reaches the sinks, as
    /// at parallelism 1, where each record ran downstream before the next was read.
    void settleAfterSourceFailure() noexcept;
    [[nodiscard]] Status configureState(const std::string &checkpointDir) override;
    void logSpillSummary() override;
    int sectionCount() const override { return static_cast<int>(m_tasks.size()); }
    checkpoint::SectionInfo section(int s) const override;
    int instance(int templ, int p) const override;
    std::map<int, std::int64_t> taskPositions(int section) const override;
    /// Restarts taken after RecoverableErrors (recoverable.hpp) in this run.
    int restarts() const { return m_restarts; }

    // --- Partition tasks (partition_tasks.cpp) ---
    std::map<int, std::int64_t>
    onPartitionsAssigned(int section, const std::vector<int> &partitions, bool incremental);
    void onPartitionsRevoked(int section, const std::vector<int> &partitions, bool incremental);

private:
    /// Every operator closed: the fused sources' chunks drained first, then downstream before
    /// upstream (a stage's rounds in flight still read the nodes before it). The destructor and
    /// reopenOperators.
    void closeOperators() noexcept;
    struct ResolvedEdge
    {
        int from, fromPort, to, toPort;
    };
    /// The spec's edges as node and port indexes. Fails naming the edge.
    [[nodiscard]] Status resolveEdges(std::vector<ResolvedEdge> &out) const;
    void addEdge(int from, int fromPort, int to, int toPort, int partition);
    /// Topological order of the nodes that run (not templates), stable by index.
    [[nodiscard]] Status computeOrder();
    /// Creates and opens one operator. Fails naming the node.
    [[nodiscard]] Status makeOperator(int node);
    /// Partition tasks: after the sources opened, replaces the nodes after each
    /// partition-task source by one instance per partition.
    [[nodiscard]] Status expandPartitionTasks(const std::vector<ResolvedEdge> &edges);
    /// Parallelism > 1: replaces each keyed node that can run in parallel by a ParallelStage
    /// of N instances, and logs why any other does not (parallel_plan.cpp).
    [[nodiscard]] Status planParallel();
    /// After planParallel: each chain source.generator -> watermark -> parallel stage that the
    /// fused path covers gets a parallel::FusedSource (fused_source.hpp); logs each one.
    void planFused(const std::function<void(const std::string &)> &note);
    /// A line of the parallel plan's log: "parallelism N: <line>".
    void logParallelism(const std::string &line) const;
    /// Node cfg.node becomes a ParallelStage: its operator is instance 0, N - 1 more are made
    /// (parallel_stages.cpp). The plan is kept so that reopenOperators() makes it again.
    [[nodiscard]] Status makeParallelStage(const parallel::StageConfig &cfg);
    /// After every operator was made anew: the planned stages again.
    [[nodiscard]] Status remakeParallelStages();
    /// Node v's operator, just made again (a partition task's instance reset), run as its
    /// planned stage again if it had one.
    [[nodiscard]] Status remakeParallelStage(int v);
    /// After instances were restored or ownership changed: recompute the merged watermarks
    /// and idleness of the section's watermark nodes.
    void refreshSection(int section);
    /// After a restore set a node's output watermark directly: tell the nodes after it.
    void republishWatermark(int node);
    void propagateWatermark(int node, Timestamp w);
    /// Every watermark of a node back to the start, idleness off (reopenOperators).
    void clearWatermarks(int node);
    /// An instance's watermarks back to the start, idle until its partition is owned here.
    void clearInstanceWatermarks(int node);
    void propagateIdle(int node, bool idle);
    void mergeTaskWatermark(int templ);
    void mergeTaskIdle(int templ);
    void publishTemplate(const Node &templ, observe::NodeMetrics &m) const;
    void appendInboundInputs(const Node &node, std::vector<observe::InputWatermark> &out) const;
    /// Creates and opens every operator (compile, and again after a restart).
    [[nodiscard]] Status openOperators();
    /// After a RecoverableError: recreate the operators and restore the newest complete
    /// checkpoint. False (run fails) without one from this run, or past kMaxRestarts.
    bool restartFromCheckpoint(const std::string &why);
    void deliver(const Target &t, Record &&record);
    /// deliver() / emit() / emitWrapped() of a tapped node when lineage is on: records what
    /// happened around the untraced path (lineage_hooks.cpp).
    void deliverTraced(const Target &t, Record &&record);
    void emitTraced(int node, int port, Record &&record);
    void traceWrapped(int node,
                      PortRole role,
                      std::string_view reason,
                      Record &&record,
                      Timestamp watermark,
                      std::string_view raw,
                      std::string_view where);

    void wrapAndRoute(int node,
                      PortRole role,
                      std::string_view reason,
                      Record &&record,
                      Timestamp watermark,
                      std::string_view raw,
                      std::string_view where);
    void route(int node, int port, Record &&record);
    void tapIn(const Target &t, const Record &record);
    void tapOut(int node,
                int port,
                const Record &record,
                std::string_view reason,
                Timestamp watermark,
                std::string_view raw);
    void tapWatermark(int node, observe::WatermarkTapEvent::Which which, Timestamp w);
    Timestamp tapWatermarkOf(const Node &node) const;
    void samplePeakState(Node &node, Timestamp w); // JobOptions::trackPeakState (taps.cpp)
    std::vector<std::int64_t> m_peakSampledAt;     // per node: recordsIn at the last sample
    void onInboundWatermark(int node, int slot, Timestamp w);
    void recomputeCombined(int node);
    void finishAll();
    /// The run ends: the coordinator's final checkpoint and savepoint on stop. Throws when the
    /// savepoint fails (the run fails); a failed final checkpoint is reported as a warning.
    void finishCheckpoints();
    void tick(std::int64_t now);

    // --- settings.semantics (semantics_hooks.cpp) ---
    friend class SparkSourceTarget;
    /// The mode every operator is made with; built on first use from m_spec.settings.
    const semantics::JobSemantics *semanticsForOperators();
    /// Spark mode: a source's data record, between the micro-batch boundaries around it.
    void sparkSourceRecord(int node, int port, Record &&record);
    /// Spark mode: the batch ends (onMicroBatchEnd everywhere), then the global watermark it
    /// computed goes out of every watermark node (the no-data batch).
    void sparkEndBatch();
    /// Spark mode: a source ended; the batch in progress ends (if it has records).
    void sparkSourceEnded();
    /// What a source's Output sends to: the runtime itself, or in Spark mode a target that
    /// counts the source's records into micro-batches first (one test per poll, none per
    /// record, in every mode).
    OutputTarget &sourceTarget();
    std::unique_ptr<semantics::JobSemantics> m_semantics;
    std::unique_ptr<semantics::SparkClock> m_sparkClock;
    std::unique_ptr<SparkSourceTarget> m_sparkTarget; ///< Spark mode only (semantics_hooks.cpp)
    bool m_sparkBatches = false;

    PipelineSpec m_spec;
    JobOptions m_options;
    Clock *m_clock;
    /// The worker threads of parallel stages (before m_nodes: the stages in it go first).
    std::unique_ptr<parallel::WorkerPool> m_pool;
    /// The parallel stages planParallel chose (remade after reopenOperators).
    std::vector<std::shared_ptr<const parallel::StageConfig>> m_stagePlans;
    std::vector<Node> m_nodes;
    std::vector<int> m_order;
    std::vector<int> m_sources;
    std::vector<TaskSection> m_tasks;
    bool m_opened = false;
    bool m_done = false;
    /// The last failure was a source's (its input: a damaged recording, a failed read).
    bool m_sourceFailed = false;
    Job::Status m_final = Job::Status::Running;
    std::int64_t m_recordsRead = 0;
    std::int64_t m_startMs = 0;
    std::int64_t m_lastTickMs = 0;
    std::int64_t m_lastPublishMs = 0;
    std::int64_t m_lastCallbackMs = 0;
    std::size_t m_sourceCursor = 0;
    std::atomic<bool> m_stop{false};
    std::unique_ptr<observe::WatermarkTapCallback> m_watermarkTap;

    /// Made by configureState(); configures every stateful operator, and each partition-task
    /// instance (re)created later (resetInstance).
    std::unique_ptr<state::StateBackend> m_stateBackend;
    std::unique_ptr<checkpoint::Coordinator> m_checkpoints;
    /// The coordinator's init() succeeded: the loop ticks it and it takes the final checkpoint.
    bool m_checkpointsLive = false;
    /// The checkpoint folder's locks, held for the whole run (restarts included).
    std::unique_ptr<checkpoint::RunLocks> m_runLocks;
    std::atomic<std::int64_t> m_checkpointsCompleted{0};
    int m_restarts = 0;

    /// Output::account's counters, one row per node (OutputTarget::fateRows points here;
    /// grown by makeOperator, copied into NodeMetrics::fates by publish).
    std::vector<observe::FateCounts> m_fateRows;
    /// Lineage (JobOptions::lineage): every node tapped, the store fed by lineage_hooks.cpp.
    std::unique_ptr<lineage::Store> m_lineage;

    mutable std::mutex m_publishMutex;
    observe::MetricsSnapshot m_published;
    std::string m_failure;
};

} // namespace tideline
