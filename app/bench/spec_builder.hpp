#pragma once
// Small helpers to assemble a PipelineSpec in code (the benchmarks build their pipelines
// instead of shipping files, so sizes and densities come from the command line).

#include <tideline/engine/spec.hpp>

#include <string>

namespace tideline::bench {

inline void addNode(PipelineSpec &spec, std::string id, std::string kind, Json params)
{
    NodeSpec n;
    n.id = std::move(id);
    n.kind = std::move(kind);
    n.params = std::move(params);
    spec.nodes.push_back(std::move(n));
}

inline void addEdge(PipelineSpec &spec, const std::string &from, const std::string &to)
{
    spec.edges.push_back({*Endpoint::parse(from), *Endpoint::parse(to)});
}

} // namespace tideline::bench
