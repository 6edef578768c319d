// Questions about a pipeline's graph, answered outside the main validate() pass: the node and
// edge index (SpecGraph), the context kinds' pitfall rules read it through (PitfallContext),
// and whether one new edge may be added (checkNewEdge, for the designer).
#include "operators/operators.hpp"

#include <tideline/engine/catalog.hpp>
#include <tideline/engine/validate.hpp>

#include <algorithm>
#include <set>

namespace tideline {

std::vector<int> PitfallContext::appendingSinks(std::string_view port) const
{
    std::vector<int> reach;
    for (int e : outEdges[node]) {
        const auto &edge = spec.edges[static_cast<std::size_t>(e)];
        if (edge.from.port != port)
            continue;
        const int t = graph.nodeIndex(edge.to.node);
        const NodeKind *tk = t < 0 ? nullptr : kinds[static_cast<std::size_t>(t)];
        if (!tk)
            continue;
        if (tk->isSink && !tk->acceptsUpdates)
            reach.push_back(t);
        else if (tk->forwardsUpdates) {
            const auto &more = forwardedSinks[static_cast<std::size_t>(t)];
            reach.insert(reach.end(), more.begin(), more.end());
        }
    }
    std::sort(reach.begin(), reach.end());
    reach.erase(std::unique(reach.begin(), reach.end()), reach.end());
    return reach;
}

NodeParams PitfallContext::params(std::size_t nodeIndex) const
{
    return NodeParams(*kinds[nodeIndex], spec.nodes[nodeIndex].params);
}

void PitfallContext::warning(const std::string &param, const std::string &message) const
{
    Diagnostic d;
    d.severity = Diagnostic::Severity::Warning;
    d.nodeIndex = static_cast<int>(node);
    d.nodeId = spec.nodes[node].id;
    d.path = "nodes[" + std::to_string(node) + "]" + (param.empty() ? "" : ".params." + param);
    d.param = param;
    d.message = message;
    out.push_back(d);
}

SpecGraph::SpecGraph(const PipelineSpec &spec)
    : inEdges(spec.nodes.size())
    , outEdges(spec.nodes.size())
{
    m_ids.reserve(spec.nodes.size());
    for (std::size_t i = 0; i < spec.nodes.size(); ++i)
        m_ids.emplace(spec.nodes[i].id, static_cast<int>(i)); // the first keeps the id
    for (std::size_t e = 0; e < spec.edges.size(); ++e) {
        const int f = nodeIndex(spec.edges[e].from.node), t = nodeIndex(spec.edges[e].to.node);
        if (f >= 0 && t >= 0) {
            outEdges[static_cast<std::size_t>(f)].push_back(static_cast<int>(e));
            inEdges[static_cast<std::size_t>(t)].push_back(static_cast<int>(e));
        }
    }
}

int SpecGraph::nodeIndex(std::string_view id) const
{
    auto it = m_ids.find(id);
    return it == m_ids.end() ? -1 : it->second;
}

std::string checkNewEdge(const PipelineSpec &spec, const EdgeSpec &edge)
{
    const NodeSpec *from = spec.node(edge.from.node);
    const NodeSpec *to = spec.node(edge.to.node);
    if (!from)
        return "there is no node `" + edge.from.node + "`";
    if (!to)
        return "there is no node `" + edge.to.node + "`";
    const NodeKind *fk = findNodeKind(from->kind);
    const NodeKind *tk = findNodeKind(to->kind);
    if (!fk || !tk)
        return "unknown node kind";
    if (!fk->output(edge.from.port)) {
        if (fk->input(edge.from.port))
            return "`" + edge.from.str()
                   + "` is an input; connect from an output port to an input port";
        return "`" + from->id + "` (" + fk->kind + ") has no output port `" + edge.from.port + "`";
    }
    const PortDesc *inPort = tk->input(edge.to.port);
    if (!inPort) {
        if (tk->output(edge.to.port))
            return "`" + edge.to.str() + "` is an output; connect into an input port";
        return "`" + to->id + "` (" + tk->kind + ") has no input port `" + edge.to.port + "`";
    }
    if (edge.from.node == edge.to.node)
        return "a node cannot feed itself (pipelines are acyclic)";
    for (const auto &e : spec.edges) {
        if (e == edge)
            return "these ports are already connected";
        if (!inPort->multi && e.to == edge.to)
            return "`" + edge.to.str() + "` already has an input (from `" + e.from.str()
                   + "`); it accepts one stream: delete that edge first to connect another";
    }
    // Cycle: is `from` reachable from `to`?
    std::vector<std::string> stack{edge.to.node};
    std::set<std::string> seen;
    while (!stack.empty()) {
        std::string n = stack.back();
        stack.pop_back();
        if (n == edge.from.node)
            return "this connection would create a cycle (`" + edge.to.node + "` already feeds `"
                   + edge.from.node + "`)";
        if (!seen.insert(n).second)
            continue;
        for (const auto &e : spec.edges)
            if (e.from.node == n)
                stack.push_back(e.to.node);
    }
    return {};
}

} // namespace tideline
