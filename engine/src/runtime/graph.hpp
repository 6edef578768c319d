#pragma once
// The compiled graph's data: one Node per spec node (spec order), then one per instance of a
// node run as partition tasks; per output port the route to its targets; per node its inbound
// edges, each with the watermark last seen on it. Built by graph.cpp and partition_tasks.cpp,
// read by the router on every record: keep what the hot path touches (op, outputs, metrics,
// tap) in Node and whatever only partition tasks need in Node::task.

#include <tideline/engine/operator.hpp>
#include <tideline/observe/metrics.hpp>
#include <tideline/observe/tap.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tideline::graph {

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
    /// Targets that get this port's watermarks and idleness but not its records: a sink that
    /// also reads a parallel stage gets this port's records through the stage, in order
    /// (parallel_plan.cpp); `targets` then names the stage, with slot -1.
    std::vector<Target> watermarkOnly;
};

struct Inbound
{
    int fromNode;
    int input;
    Timestamp watermark = kMinTime;
    bool idle = false;
};

/// What only partition tasks use of a node (partition_tasks.cpp): a template (the spec node,
/// run as instances, without an operator of its own) or partition N's instance.
struct NodeTask
{
    int templ = -1;             ///< an instance's template (spec node index)
    int partition = -1;         ///< instance of partition N's task (-1: not an instance)
    int section = -1;           ///< index into the sections, for templates and instances
    bool isTemplate = false;    ///< a spec node run as instances
    std::vector<int> instances; ///< template: instance node per partition
    // Instances of a `watermark` node: the watermark the operator made from its partition
    // (ownW, ownIdle); the runtime merges them across the member's partitions by minimum and
    // sends the merge on (watermarks.cpp). A template's ownW is the merge.
    bool mergedWatermark = false;
    Timestamp ownW = kMinTime;
    bool ownIdle = false;
};

struct Node
{
    /// Runtime id: the spec id, or "<spec id>#p<N>" for partition N's instance of a node
    /// that runs as partition tasks (state, checkpoints and logs use it).
    std::string id;
    const NodeSpec *spec = nullptr;
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
    NodeTask task;
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

} // namespace tideline::graph
