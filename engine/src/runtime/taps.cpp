// Taps (observe/tap.hpp): the designer's live view of records and watermarks. Only reached
// when a tap is installed: the router tests one pointer per record, the watermark code one
// per advance.

#include "runtime/runtime.hpp"

#include <tideline/engine/record_json.hpp>

#include <algorithm>

namespace tideline {

bool Runtime::setTap(const std::string &nodeId,
                     observe::TapCallback callback,
                     observe::TapFilter filter)
{
    int idx = m_spec.nodeIndex(nodeId);
    if (idx < 0 || static_cast<std::size_t>(idx) >= m_nodes.size())
        return false;
    Node &node = m_nodes[static_cast<std::size_t>(idx)];
    // A node run as partition tasks is tapped on every instance (events carry the spec id).
    for (int inst : node.task.instances) {
        Node &i = m_nodes[static_cast<std::size_t>(inst)];
        i.tap = callback    ? std::make_unique<observe::TapCallback>(callback)
                : m_lineage ? std::make_unique<observe::TapCallback>() // (lineage: stays tapped)
                            : nullptr;
        i.tapFilter = filter;
    }
    // With lineage on every node stays tapped: an empty callback only records lineage.
    node.tap = callback    ? std::make_unique<observe::TapCallback>(std::move(callback))
               : m_lineage ? std::make_unique<observe::TapCallback>()
                           : nullptr;
    node.tapFilter = filter;
    return true;
}

void Runtime::setWatermarkTap(observe::WatermarkTapCallback callback)
{
    m_watermarkTap
        = callback ? std::make_unique<observe::WatermarkTapCallback>(std::move(callback)) : nullptr;
}

Timestamp Runtime::tapWatermarkOf(const Node &node) const
{
    // Sources and the watermark node make their own watermark; everyone else acts on inputs.
    return node.source || node.kind->assignsEventTime ? node.outW : node.combinedIn;
}

void Runtime::tapIn(const Target &t, const Record &record)
{
    Node &node = m_nodes[static_cast<std::size_t>(t.node)];
    if (!node.tapFilter.in || !*node.tap)
        return;
    observe::TapEvent e;
    e.node = node.spec->id;
    e.port = node.kind->inputs[static_cast<std::size_t>(t.input)].name;
    const Inbound &in = node.inbound[static_cast<std::size_t>(t.slot)];
    e.from = m_nodes[static_cast<std::size_t>(in.fromNode)].spec->id;
    e.direction = observe::TapDirection::In;
    if (record.time != kMinTime)
        e.eventTime = record.time;
    Timestamp w = tapWatermarkOf(node);
    if (w != kMinTime)
        e.watermark = w;
    for (const Node &n : m_nodes) // only when tapped: how far event time has got
        if (n.kind->assignsEventTime && n.metrics.maxEventTime
            && (!e.maxEventTime || *n.metrics.maxEventTime > *e.maxEventTime))
            e.maxEventTime = n.metrics.maxEventTime;
    if (node.tapFilter.recordJson)
        e.recordJson = toJson(record);
    e.recordsRead = m_recordsRead;
    e.processingTimeMs = m_lastTickMs;
    (*node.tap)(e);
}

void Runtime::samplePeakState(Node &node, Timestamp w)
{
    // Some operators count their bytes in O(keys) (sessions), so a node is read again only
    // after peak/16 more records came in (amortised O(1) per record) and at the end of input:
    // exact while the peak is under 16 entries, else low by at most 1/16 of it per record's
    // fan-out.
    const auto idx = static_cast<std::size_t>(&node - m_nodes.data());
    if (m_peakSampledAt.size() < m_nodes.size())
        m_peakSampledAt.resize(m_nodes.size(), -1);
    const std::int64_t since = node.metrics.recordsIn - m_peakSampledAt[idx];
    if (!node.op
        || (w != kMaxTime && since < std::max<std::int64_t>(1, node.metrics.peakStateEntries / 16)))
        return;
    m_peakSampledAt[idx] = node.metrics.recordsIn;
    observe::NodeMetrics now; // reportMetrics fills in the state figures
    node.op->reportMetrics(now);
    node.metrics.peakStateEntries = std::max(node.metrics.peakStateEntries, now.stateEntries);
    node.metrics.peakStateBytes = std::max(node.metrics.peakStateBytes, now.stateBytes);
}

void Runtime::tapOut(int nodeIdx,
                     int port,
                     const Record &record,
                     std::string_view reason,
                     Timestamp watermark,
                     std::string_view raw)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    if (!*node.tap)
        return; // lineage only (lineage_hooks.cpp)
    observe::TapEvent e;
    e.node = node.spec->id;
    e.direction = observe::TapDirection::Out;
    PortRole role = PortRole::Data;
    if (port >= 0) {
        e.port = node.kind->outputs[static_cast<std::size_t>(port)].name;
        role = node.outputs[static_cast<std::size_t>(port)].role;
    } else {
        // A kind without the port (emitWrapped passes -1 - role): still counted, so still shown.
        role = static_cast<PortRole>(-1 - port);
        e.port = role == PortRole::Late ? "late" : "errors";
    }
    if (role == PortRole::Data ? !node.tapFilter.dataOut : !node.tapFilter.lateAndErrors)
        return;
    e.role = role == PortRole::Late     ? observe::TapPortRole::Late
             : role == PortRole::Errors ? observe::TapPortRole::Errors
                                        : observe::TapPortRole::Data;
    if (record.time != kMinTime)
        e.eventTime = record.time;
    Timestamp w = role == PortRole::Data ? tapWatermarkOf(node) : watermark;
    if (w != kMinTime)
        e.watermark = w;
    if (!record.empty() && node.tapFilter.recordJson)
        e.recordJson = toJson(record);
    e.reason = std::string(reason);
    e.raw = std::string(raw.substr(0, 4096));
    e.recordsRead = m_recordsRead;
    e.processingTimeMs = m_lastTickMs;
    (*node.tap)(e);
}

void Runtime::tapWatermark(int nodeIdx, observe::WatermarkTapEvent::Which which, Timestamp w)
{
    if (const Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)]; node.task.partition >= 0) {
        // Partition-task instances share their node's id: report each advance of the node
        // once (the template's outW/combinedIn are free to remember the last one reported).
        Node &templ = m_nodes[static_cast<std::size_t>(node.task.templ)];
        Timestamp &last
            = which == observe::WatermarkTapEvent::Which::Output ? templ.outW : templ.combinedIn;
        if (w <= last)
            return;
        last = w;
    }
    observe::WatermarkTapEvent e;
    e.node = m_nodes[static_cast<std::size_t>(nodeIdx)].spec->id;
    e.which = which;
    e.watermark = w;
    e.recordsRead = m_recordsRead;
    e.processingTimeMs = m_lastTickMs;
    (*m_watermarkTap)(e);
}

} // namespace tideline
