#pragma once
// Sources that parse or generate in chunks on the job's workers (parallelism > 1; the chunks'
// side is operators/sources/chunk_runner.hpp, the reasoning in ARCHITECTURE.md "Parallel
// execution").

#include "runtime/graph.hpp"
#include "runtime/parallel.hpp"

#include <memory>
#include <string>
#include <vector>

namespace tideline::parallel {

/// With TIDELINE_PARALLEL_SOURCES=1 in the environment (why not by default: the .cpp), every
/// opened source that can split its input (a sources::ChunkedSource) and agrees to runs its
/// chunks on `pool`, made here with n workers when there is none yet. Returns their ids.
std::vector<std::string>
parallelizeSources(std::vector<graph::Node> &nodes, std::unique_ptr<WorkerPool> &pool, int n);

} // namespace tideline::parallel
