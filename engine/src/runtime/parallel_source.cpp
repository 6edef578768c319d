// Which sources parse in parallel (parallel_source.hpp). Called by planParallel once the whole
// run may be parallel (no checkpoints, lineage, partition tasks, other semantics): a source
// reading a file or generating events hands its chunks to the workers. A source decides for
// itself whether it can (a --replay, --record or pacing keeps it on the loop thread).

#include "runtime/parallel_source.hpp"

namespace tideline::parallel {

std::vector<std::string>
parallelizeSources(std::vector<graph::Node> &nodes, std::unique_ptr<WorkerPool> &pool, int n)
{
    std::vector<std::string> ids;
    for (graph::Node &node : nodes) {
        if (!node.source || node.task.isTemplate)
            continue;
        auto *chunked = dynamic_cast<sources::ChunkedSource *>(node.op.get());
        if (!chunked)
            continue;
        if (!pool)
            pool = std::make_unique<WorkerPool>(n);
        if (chunked->runChunksOn(*pool))
            ids.push_back(node.id);
    }
    return ids;
}

} // namespace tideline::parallel
