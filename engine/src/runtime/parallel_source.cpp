// Which sources parse in parallel (parallel_source.hpp). Called by planParallel once the whole
// run may be parallel (no checkpoints, lineage, partition tasks, other semantics): a source
// reading a file or generating events hands its chunks to the workers. A source decides for
// itself whether it can (a --replay, --record or pacing keeps it on the loop thread).
//
// Off unless the environment has TIDELINE_PARALLEL_SOURCES=1. Why: measured on the shared
// 2-core machine (docs/benchmarks.md, "Parallelism inside one process"), a record made on a
// worker and then run through the watermark node and the key routing on the loop thread costs
// the loop thread more (cache misses on every record it did not make) than making it there
// did: file-window and generator-window at parallelism 2 ran slower and used more CPU with
// it than without. The outputs are the same either way (tests/parallel checks both). It pays
// once the records no longer pass through the loop thread between the source and the keyed
// stage (the watermark and the key group computed on the worker that parsed the chunk).

#include "runtime/parallel_source.hpp"

#include <cstdlib>
#include <string_view>

namespace tideline::parallel {

std::vector<std::string>
parallelizeSources(std::vector<graph::Node> &nodes, std::unique_ptr<WorkerPool> &pool, int n)
{
    std::vector<std::string> ids;
    const char *on = std::getenv("TIDELINE_PARALLEL_SOURCES");
    if (!on || std::string_view(on) != "1")
        return ids;
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
