#pragma once
// RuntimePort: everything the checkpoint module needs of a running job, and nothing more. The
// runtime implements it (runtime/checkpoint_port.cpp); checkpoint/ sees the job only through
// it and never includes a runtime header, so the two can be read (and tested) apart. The
// port is called on the loop thread only, between two source batches (no record in flight),
// and never per record: its virtual calls cost nothing on the hot path.
//
// A node is an index in [0, nodeCount()): the spec nodes first (spec order), then the
// instances of nodes run as partition tasks (runtime/partition_tasks.cpp). What a checkpoint
// keeps of a node is its operator's bytes plus the runtime's side of it (watermarks,
// idleness, figures): captureNode() reads that side into a NodeEntry and restoreNode() puts
// it back, so the rules for both (a partition task's own watermark, what an instance keeps
// of its idleness) stay with the runtime's watermark code.

#include "checkpoint/manifest.hpp"

#include <tideline/engine/job.hpp>
#include <tideline/engine/operator.hpp>
#include <tideline/engine/status.hpp>
#include <tideline/observe/metrics.hpp>

#include <map>
#include <string>
#include <vector>

namespace tideline::checkpoint {

/// What the checkpoint module may know of one node.
struct NodeInfo
{
    std::string id; ///< runtime id: the spec id, or "<spec id>#p<N>"
    const NodeSpec *spec = nullptr;
    const NodeKind *kind = nullptr;
    bool isTemplate = false; ///< a spec node run as instances: no operator, nothing saved
    int section = -1;        ///< partition tasks: the section of a template or instance
    int partition = -1;      ///< partition N's instance (-1: not an instance)
};

/// One section of partition tasks: the nodes after one partition-task source.
struct SectionInfo
{
    int source = -1; ///< the source node
    int partitions = 0;
    std::vector<int> templates;            ///< spec nodes of the section, topological order
    std::vector<char> owned;               ///< per partition: assigned to this process now
    std::vector<std::int64_t> suspendedAt; ///< per partition: handover checkpoint id kept
};

class RuntimePort
{
public:
    virtual ~RuntimePort() = default;

    virtual const PipelineSpec &spec() const = 0;
    virtual const JobOptions &options() const = 0;
    virtual Clock &clock() = 0;
    /// JobOptions::log, when set.
    virtual void log(const std::string &line) const = 0;

    // --- Nodes ---
    virtual int nodeCount() const = 0;
    virtual NodeInfo nodeInfo(int node) const = 0;
    /// Nodes that run (not templates), in topological order.
    virtual const std::vector<int> &topoOrder() const = 0;
    /// A running node's operator (never a template's: it has none).
    virtual Operator &op(int node) = 0;
    /// Writes the runtime's side of a node (watermarks, idleness, figures) into `e`.
    virtual void captureNode(int node, NodeEntry &e) const = 0;
    /// Puts a restored node's saved runtime side back (after its operator's restoreState).
    virtual void restoreNode(int node, const NodeEntry &e) = 0;
    /// After a restore of the whole job: every edge takes its upstream node's restored
    /// watermark, and the nodes in `fresh` (new or reset: no saved state) learn the current
    /// watermark now, in topological order.
    virtual void primeWatermarks(const std::vector<int> &fresh) = 0;
    /// After partition `instances` were restored: their edges take the restored watermarks,
    /// and the shared nodes after the section learn them.
    virtual void primeInstances(const std::vector<int> &instances) = 0;

    /// Before every snapshot: work handed to other threads is finished and its outputs
    /// delivered (parallel stages: runtime/parallel.hpp), so that the cut between two source
    /// batches has no record in flight anywhere. May throw what processing throws.
    virtual void quiesce() = 0;

    // --- The job ---
    virtual std::int64_t recordsRead() const = 0;
    virtual void setRecordsRead(std::int64_t n) = 0;
    /// Publishes a checkpoint outcome (lastCheckpoint + bounded history).
    virtual void recordCheckpoint(const observe::CheckpointInfo &info, std::size_t historyLimit)
        = 0;
    /// Closes every operator and opens it again empty, the runtime's side of every node reset
    /// (a restore that must start over from an earlier checkpoint).
    [[nodiscard]] virtual Status reopenOperators() = 0;
    /// settings.state for every stateful operator (state files under `checkpointDir`/work,
    /// or a temporary folder when "").
    [[nodiscard]] virtual Status configureState(const std::string &checkpointDir) = 0;
    /// One log line per node that spilled keyed state during the run.
    virtual void logSpillSummary() = 0;

    // --- Partition tasks ---
    virtual int sectionCount() const = 0;
    virtual SectionInfo section(int s) const = 0;
    /// Partition p's instance of template node `templ`.
    virtual int instance(int templ, int p) const = 0;
    /// The source's next offset of every partition it owns now.
    virtual std::map<int, std::int64_t> taskPositions(int section) const = 0;
    /// Recreates an instance's operator empty, its watermarks and figures reset.
    [[nodiscard]] virtual Status resetInstance(int node) = 0;
};

} // namespace tideline::checkpoint
