#pragma once
// Runtime: the executor behind Job. Holds the compiled DAG (operators, port routes, per-edge
// watermarks, metrics) and runs the single loop: pull from sources, push depth-first.
//
// Architecture invariant: everything here runs on one thread (the loop). The only state shared
// with other threads is the published MetricsSnapshot (under m_publishMutex) and the stop flag.

#include <tideline/engine/job.hpp>
#include <tideline/engine/operator.hpp>
#include <tideline/observe/tap.hpp>

#include <atomic>
#include <mutex>

namespace tideline {

namespace checkpoint {
class Coordinator;
struct RunLocks;
} // namespace checkpoint

class Runtime final : public OutputTarget
{
public:
    struct Target
    {
        int node;
        int input; ///< input port index at the target
        int slot;  ///< index into the target's inbound edge list
    };
    struct PortRoute
    {
        PortRole role = PortRole::Data;
        std::vector<Target> targets;
        /// A partition-task source's port: per partition, the instances of that partition's
        /// task (records go to byPartition[record.partition], in addition to `targets`).
        std::vector<std::vector<Target>> byPartition;
    };
    struct Inbound
    {
        int fromNode;
        int input;
        Timestamp watermark = kMinTime;
        bool idle = false;
    };
    struct Node
    {
        /// Runtime id: the spec id, or "<spec id>#p<N>" for partition N's instance of a node
        /// that runs as partition tasks (state, checkpoints and logs use it).
        std::string id;
        const NodeSpec *spec = nullptr;
        int logical = -1;           ///< index of the spec node (itself for spec nodes)
        int taskPartition = -1;     ///< instance of partition N's task (-1: not an instance)
        int section = -1;           ///< index into tasks() for templates and instances
        bool isTemplate = false;    ///< a spec node run as instances: no operator of its own
        std::vector<int> instances; ///< template: instance node per partition
        // Instances of a `watermark` node in a task: the watermark the operator made from its
        // partition (ownW, ownIdle); the runtime merges them across the member's partitions
        // by minimum and sends the merge on (see partition_tasks.cpp).
        bool mergedWatermark = false;
        Timestamp ownW = kMinTime;
        bool ownIdle = false;
        const NodeKind *kind = nullptr;
        std::unique_ptr<Operator> op;
        SourceOperator *source = nullptr;
        std::vector<PortRoute> outputs;
        std::vector<Inbound> inbound;
        int latePort = -1;
        int errorsPort = -1;
        Timestamp combinedIn = kMinTime; ///< min over non-idle inbound watermarks
        Timestamp outW = kMinTime;
        bool outIdle = false;
        bool sourceFinished = false;
        int upstreamPartitions = 1;
        /// The nearest upstream source when every input leads to the same one, else null.
        const SourceOperator *upstreamSource = nullptr;
        observe::NodeMetrics metrics;
        /// Record tap (null = untapped: one pointer check per record, see observe/tap.hpp).
        std::unique_ptr<observe::TapCallback> tap;
        observe::TapFilter tapFilter;
    };

    /// The nodes after one partition-task source, run as one instance per partition.
    struct TaskSection
    {
        int source = -1;
        int partitions = 0;
        std::vector<int> templates;            ///< spec nodes of the section, topological order
        std::vector<char> owned;               ///< per partition: assigned to this process now
        std::vector<std::int64_t> suspendedAt; ///< per partition: handover checkpoint id kept
        std::unique_ptr<PartitionTaskHost> host;
    };

    Runtime(const PipelineSpec &spec, JobOptions options);
    ~Runtime();

    /// Builds operators in topological order. Returns "" or an error naming the node.
    std::string compile();

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

    // --- Taps (loop thread, or before the run) ---
    /// Installs (or, with an empty callback, removes) a node's record tap. False: no such node.
    bool setTap(const std::string &nodeId,
                observe::TapCallback callback,
                observe::TapFilter filter = {});
    void setWatermarkTap(observe::WatermarkTapCallback callback);

    // --- Metrics ---
    void publish(bool final);
    observe::MetricsSnapshot snapshot() const;

    const PipelineSpec &spec() const { return m_spec; }
    std::vector<Node> &nodes() { return m_nodes; }
    std::vector<TaskSection> &tasks() { return m_tasks; }
    bool hasPartitionTasks() const { return !m_tasks.empty(); }
    /// Recreates an instance's operator empty (partition moved away, or about to be restored)
    /// and resets its watermarks and figures. "" or the error.
    std::string resetInstance(int node);
    /// After instances were restored or ownership changed: recompute the merged watermarks
    /// and idleness of the section's watermark nodes.
    void refreshSection(int section);
    /// After a restore set a node's output watermark directly: tell the nodes after it.
    void republishWatermark(int node);
    /// Set by the state backend: configures one (re)created operator's keyed state.
    std::function<std::string(Node &)> configureNodeState;
    const std::vector<int> &topoOrder() const { return m_order; }
    Clock &clock() { return *m_clock; }
    const JobOptions &options() const { return m_options; }
    std::string failure() const;
    void fail(const std::string &message);
    std::int64_t recordsRead() const { return m_recordsRead; }

    /// Hook for checkpointing, called by the loop between records (now = clock time).
    /// Set by the checkpoint module when settings.checkpoint is present.
    std::function<void(std::int64_t nowMs)> onLoopTick;
    /// Called when the run stops (finished or stopped), before sinks are finished.
    std::function<void(Job::Status)> onBeforeFinish;

    // --- Checkpoint wiring (engine/src/checkpoint) ---
    /// Locks the checkpoint folder for this run (before compile(): no operator has opened).
    [[nodiscard]] std::string lockCheckpoints();
    /// Creates the checkpoint coordinator and restores state (after compile()). "" or error.
    [[nodiscard]] std::string initCheckpoints();
    checkpoint::Coordinator *checkpoints() { return m_checkpoints.get(); }
    /// Closes every operator and opens it again empty, with the nodes' watermarks, idleness
    /// and figures reset: a restore that must start over from an earlier checkpoint. The
    /// state backend's configureNodeState is not re-applied here. "" or the error.
    [[nodiscard]] std::string reopenOperators();
    /// Re-derives a node's combined input watermark (after a restore) and tells its operator.
    void primeWatermark(int node) { recomputeCombined(node); }
    void setRecordsRead(std::int64_t n) { m_recordsRead = n; }
    /// Publishes a checkpoint outcome (lastCheckpoint + bounded history); any thread.
    void recordCheckpoint(const observe::CheckpointInfo &info, std::size_t historyLimit);
    /// Restarts taken after RecoverableErrors (recoverable.hpp) in this run.
    int restarts() const { return m_restarts; }

    // --- Partition tasks (partition_tasks.cpp) ---
    std::map<int, std::int64_t>
    onPartitionsAssigned(int section, const std::vector<int> &partitions, bool incremental);
    void onPartitionsRevoked(int section, const std::vector<int> &partitions, bool incremental);

private:
    struct ResolvedEdge
    {
        int from, fromPort, to, toPort;
    };
    /// The spec's edges as node and port indexes. "" or an error naming the edge.
    std::string resolveEdges(std::vector<ResolvedEdge> &out) const;
    void addEdge(int from, int fromPort, int to, int toPort, int partition);
    /// Topological order of the nodes that run (not templates), stable by index.
    std::string computeOrder();
    /// Creates and opens one operator. "" or an error naming the node.
    std::string makeOperator(int node);
    /// Partition tasks: after the sources opened, replaces the nodes after each
    /// partition-task source by one instance per partition. "" or an error.
    std::string expandPartitionTasks(const std::vector<ResolvedEdge> &edges);
    void propagateWatermark(int node, Timestamp w);
    void propagateIdle(int node, bool idle);
    void mergeTaskWatermark(int templ);
    void mergeTaskIdle(int templ);
    void publishTemplate(const Node &templ, observe::NodeMetrics &m) const;
    void appendInboundInputs(const Node &node, std::vector<observe::InputWatermark> &out) const;
    /// Creates and opens every operator (compile, and again after a restart). "" or error.
    std::string openOperators();
    /// After a RecoverableError: recreate the operators and restore the newest complete
    /// checkpoint. False (run fails) without one from this run, or past kMaxRestarts.
    bool restartFromCheckpoint(const std::string &why);
    void deliver(const Target &t, Record &&record);
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
    void onInboundWatermark(int node, int slot, Timestamp w);
    void recomputeCombined(int node);
    void finishAll();
    void tick(std::int64_t now);

    PipelineSpec m_spec;
    JobOptions m_options;
    Clock *m_clock;
    std::vector<Node> m_nodes;
    std::vector<int> m_order;
    std::vector<int> m_sources;
    std::vector<TaskSection> m_tasks;
    bool m_opened = false;
    bool m_done = false;
    Job::Status m_final = Job::Status::Running;
    std::int64_t m_recordsRead = 0;
    std::int64_t m_startMs = 0;
    std::int64_t m_lastTickMs = 0;
    std::int64_t m_lastPublishMs = 0;
    std::int64_t m_lastCallbackMs = 0;
    std::size_t m_sourceCursor = 0;
    std::atomic<bool> m_stop{false};
    std::unique_ptr<observe::WatermarkTapCallback> m_watermarkTap;

    std::unique_ptr<checkpoint::Coordinator> m_checkpoints;
    /// The checkpoint folder's locks, held for the whole run (restarts included).
    std::unique_ptr<checkpoint::RunLocks> m_runLocks;
    std::atomic<std::int64_t> m_checkpointsCompleted{0};
    int m_restarts = 0;

    mutable std::mutex m_publishMutex;
    observe::MetricsSnapshot m_published;
    std::string m_failure;
};

} // namespace tideline
