// The compiled graph: the spec's nodes and edges as indexes (graph.hpp), each output port's
// route to its targets, and the topological order the loop and checkpoints use. compile()
// also opens the operators (operator_context.cpp), sources first: how many partitions they
// have, and whether those are partition tasks (partition_tasks.cpp), shapes the rest.

#include "runtime/runtime.hpp"

#include <algorithm>

namespace tideline {

Status Runtime::compile()
{
    const std::size_t n = m_spec.nodes.size();
    m_nodes.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        Node &node = m_nodes[i];
        node.spec = &m_spec.nodes[i];
        node.id = node.spec->id;
        node.kind = findNodeKind(node.spec->kind);
        if (!node.kind)
            return Status::error("node `" + node.spec->id + "`: unknown kind `" + node.spec->kind
                                 + "`");
        node.outputs.resize(node.kind->outputs.size());
        for (std::size_t p = 0; p < node.kind->outputs.size(); ++p) {
            node.outputs[p].role = node.kind->outputs[p].role;
            if (node.kind->outputs[p].role == PortRole::Late)
                node.latePort = static_cast<int>(p);
            if (node.kind->outputs[p].role == PortRole::Errors)
                node.errorsPort = static_cast<int>(p);
        }
        node.metrics.node = node.spec->id;
        node.metrics.kind = node.spec->kind;
    }
    std::vector<ResolvedEdge> edges;
    if (Status s = resolveEdges(edges); !s.ok())
        return s;
    for (const auto &e : edges)
        addEdge(e.from, e.fromPort, e.to, e.toPort, -1);
    if (Status s = computeOrder(); !s.ok())
        return s;
    // Sources first: they tell how many partitions they have and whether partitions are
    // tasks, which decides the shape of the rest of the graph.
    for (int v : m_order)
        if (m_nodes[static_cast<std::size_t>(v)].kind->isSource)
            if (Status s = makeOperator(v); !s.ok())
                return s;
    if (Status s = expandPartitionTasks(edges); !s.ok())
        return s;
    for (int v : m_order)
        if (!m_nodes[static_cast<std::size_t>(v)].op)
            if (Status s = makeOperator(v); !s.ok())
                return s;
    for (std::size_t s = 0; s < m_tasks.size(); ++s)
        refreshSection(static_cast<int>(s));
    return planParallel();
}

Status Runtime::resolveEdges(std::vector<ResolvedEdge> &out) const
{
    auto portIndex = [](const std::vector<PortDesc> &ports, const std::string &name) {
        for (std::size_t i = 0; i < ports.size(); ++i)
            if (ports[i].name == name)
                return static_cast<int>(i);
        return -1;
    };
    for (const auto &e : m_spec.edges) {
        int from = m_spec.nodeIndex(e.from.node), to = m_spec.nodeIndex(e.to.node);
        if (from < 0 || to < 0)
            return Status::error("edge " + e.from.str() + " -> " + e.to.str()
                                 + " names a missing node");
        int op = portIndex(m_nodes[static_cast<std::size_t>(from)].kind->outputs, e.from.port);
        int ip = portIndex(m_nodes[static_cast<std::size_t>(to)].kind->inputs, e.to.port);
        if (op < 0 || ip < 0)
            return Status::error("edge " + e.from.str() + " -> " + e.to.str()
                                 + " names a missing port");
        out.push_back({from, op, to, ip});
    }
    return {};
}

void Runtime::addEdge(int from, int fromPort, int to, int toPort, int partition)
{
    Node &src = m_nodes[static_cast<std::size_t>(from)];
    Node &dst = m_nodes[static_cast<std::size_t>(to)];
    int slot = static_cast<int>(dst.inbound.size());
    dst.inbound.push_back({from, toPort});
    PortRoute &route = src.outputs[static_cast<std::size_t>(fromPort)];
    if (partition < 0) {
        route.targets.push_back({to, toPort, slot});
        return;
    }
    if (route.byPartition.size() <= static_cast<std::size_t>(partition))
        route.byPartition.resize(static_cast<std::size_t>(partition) + 1);
    route.byPartition[static_cast<std::size_t>(partition)].push_back({to, toPort, slot});
}

Status Runtime::computeOrder()
{
    const std::size_t n = m_nodes.size();
    std::vector<int> indeg(n, 0);
    std::size_t running = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (m_nodes[i].task.isTemplate)
            continue;
        ++running;
        indeg[i] = static_cast<int>(m_nodes[i].inbound.size());
    }
    // Topological order, stable by index (file order for spec nodes): deterministic.
    m_order.clear();
    std::vector<int> ready;
    for (std::size_t i = 0; i < n; ++i)
        if (!m_nodes[i].task.isTemplate && indeg[i] == 0)
            ready.push_back(static_cast<int>(i));
    auto release = [&](const Target &t) {
        if (--indeg[static_cast<std::size_t>(t.node)] == 0)
            ready.push_back(t.node);
    };
    while (!ready.empty()) {
        auto it = std::min_element(ready.begin(), ready.end());
        int v = *it;
        ready.erase(it);
        m_order.push_back(v);
        for (const auto &route : m_nodes[static_cast<std::size_t>(v)].outputs) {
            for (const auto &t : route.targets)
                release(t);
            for (const auto &part : route.byPartition)
                for (const auto &t : part)
                    release(t);
        }
    }
    if (m_order.size() != running)
        return Status::error("the graph has a cycle");
    return {};
}

} // namespace tideline
