// Lineage hooks (tideline/engine/lineage.hpp): with lineage on, every node is tapped, so the
// router's one pointer test per record (router.cpp) leads here instead of to the untraced path;
// without it nothing here runs and Output::account pays one test of OutputTarget::tracing.
//
// The store needs to know which record an emit or a fate belongs to: the record the node is
// processing (a frame pushed around processRecord), and the row being routed (a stack pushed
// around route, since routing is depth-first and a target's processing routes rows of its own
// before the next target gets this one).

#include "lineage/lineage_store.hpp"
#include "runtime/runtime.hpp"

namespace tideline {

void Runtime::enableLineage(const lineage::Options &options)
{
    // Partition tasks run a node as one instance per partition ("w#p3"): the store keeps each
    // instance's panes apart and names the pipeline's node in every answer.
    std::vector<int> specOf;
    specOf.reserve(m_nodes.size());
    for (const Node &node : m_nodes)
        specOf.push_back(m_spec.nodeIndex(node.spec->id));
    if (!m_tasks.empty())
        log("note: lineage with partition tasks: a partition's records are traced in the process "
            "that reads them; a window that a partition's state brought from another member of "
            "the group lists only the records read here (docs/lineage.md)");
    m_lineage = std::make_unique<lineage::Store>(m_spec, options, std::move(specOf));
    tracing = true;
    for (Node &node : m_nodes)
        if (!node.tap)
            node.tap = std::make_unique<observe::TapCallback>();
}

void Runtime::deliverTraced(const Target &t, Record &&record)
{
    Node &node = m_nodes[static_cast<std::size_t>(t.node)];
    tapIn(t, record);
    Output out(*this, t.node);
    if (!m_lineage) {
        node.op->processRecord(t.input, std::move(record), out);
        return;
    }
    m_lineage->onDeliver(t.node, t.input, m_lineage->routing(), record);
    node.op->processRecord(t.input, std::move(record), out);
    m_lineage->delivered();
}

void Runtime::emitTraced(int nodeIdx, int port, Record &&record)
{
    tapOut(nodeIdx, port, record, {}, kMinTime, {});
    if (!m_lineage) {
        route(nodeIdx, port, std::move(record));
        return;
    }
    m_lineage->pushRouting(m_lineage->onEmit(nodeIdx, record));
    route(nodeIdx, port, std::move(record));
    m_lineage->popRouting();
}

void Runtime::traceWrapped(int nodeIdx,
                           PortRole role,
                           std::string_view reason,
                           Record &&record,
                           Timestamp watermark,
                           std::string_view raw,
                           std::string_view where)
{
    m_lineage->pushRouting(m_lineage->onWrapped(nodeIdx, role == PortRole::Late, reason, record,
                                                watermark, raw, where));
    wrapAndRoute(nodeIdx, role, reason, std::move(record), watermark, raw, where);
    m_lineage->popRouting();
}

void Runtime::traceFate(int nodeIdx, observe::Fate fate)
{
    if (m_lineage)
        m_lineage->onFate(nodeIdx, fate);
}

} // namespace tideline
