// The router: the per-record hot path. Output (what an operator emits through, operator.hpp)
// forwards to the runtime through OutputTarget (one indirect call: the operator test harness is
// the other target); route() counts the record on its port and hands it to every target's operator,
// depth-first, copying only for all but the last target; deliver() counts it in and calls the
// operator. A tap costs one pointer test per record when none is installed (taps.cpp). Beyond that
// call and the operator's own processRecord() no virtual call or std::function is on this path:
// keep it that way (docs/benchmarks.md).

#include "runtime/runtime.hpp"

#include <tideline/engine/record_json.hpp>

#include <algorithm>

namespace tideline {

void Runtime::deliver(const Target &t, Record &&record)
{
    Node &node = m_nodes[static_cast<std::size_t>(t.node)];
    auto &m = node.metrics;
    ++m.recordsIn;
    if (record.time != kMinTime && (!m.maxEventTime || record.time > *m.maxEventTime))
        m.maxEventTime = record.time;
    if (node.tap) [[unlikely]] {
        deliverTraced(t, std::move(record)); // taps and lineage (lineage_hooks.cpp)
        return;
    }
    Output out(*this, t.node);
    node.op->processRecord(t.input, std::move(record), out);
}

void Runtime::emit(int nodeIdx, int port, Record &&record)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    if (m_sparkBatches && node.source && port == 0) [[unlikely]] {
        sparkSourceRecord(nodeIdx, port, std::move(record)); // semantics_hooks.cpp
        return;
    }
    if (node.tap) [[unlikely]] {
        emitTraced(nodeIdx, port, std::move(record)); // taps and lineage (lineage_hooks.cpp)
        return;
    }
    route(nodeIdx, port, std::move(record));
}

// emit() without the tap: emitWrapped() taps the unwrapped record itself.
void Runtime::route(int nodeIdx, int port, Record &&record)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    PortRoute &route = node.outputs[static_cast<std::size_t>(port)];
    switch (route.role) {
    case PortRole::Data:
        ++node.metrics.recordsOut;
        // The watermark node assigns event time, so its max is known only on the way out.
        if (record.time != kMinTime
            && (!node.metrics.maxEventTime || record.time > *node.metrics.maxEventTime))
            node.metrics.maxEventTime = record.time;
        break;
    case PortRole::Late:
        ++node.metrics.late;
        break;
    case PortRole::Errors:
        ++node.metrics.errors;
        break;
    }
    if (node.source && route.role == PortRole::Data)
        ++m_recordsRead;
    const auto &targets = route.targets;
    if (!route.byPartition.empty()) [[unlikely]] {
        // A partition-task source: the record's own task, plus any shared targets.
        const auto &part = route.byPartition[std::min<std::size_t>(record.partition,
                                                                   route.byPartition.size() - 1)];
        for (const auto &t : targets) {
            Record copy = record;
            deliver(t, std::move(copy));
        }
        if (part.empty())
            return;
        for (std::size_t i = 0; i + 1 < part.size(); ++i) {
            Record copy = record;
            deliver(part[i], std::move(copy));
        }
        deliver(part.back(), std::move(record));
        return;
    }
    if (targets.empty())
        return;
    for (std::size_t i = 0; i + 1 < targets.size(); ++i) {
        Record copy = record;
        deliver(targets[i], std::move(copy));
    }
    deliver(targets.back(), std::move(record));
}

void Runtime::emitWrapped(int nodeIdx,
                          PortRole role,
                          std::string_view reason,
                          Record &&record,
                          Timestamp watermark,
                          std::string_view raw,
                          std::string_view where)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    int port = role == PortRole::Late ? node.latePort : node.errorsPort;
    observe::addCause(role == PortRole::Late ? node.metrics.lateCauses : node.metrics.errorCauses,
                      reason);
    // Tapped before the early returns: late/errors records are seen even when dropped.
    if (node.tap) [[unlikely]] {
        tapOut(nodeIdx, port < 0 ? -1 - static_cast<int>(role) : port, record, reason, watermark,
               raw);
        if (m_lineage) {
            traceWrapped(nodeIdx, role, reason, std::move(record), watermark, raw, where);
            return;
        }
    }
    wrapAndRoute(nodeIdx, role, reason, std::move(record), watermark, raw, where);
}

void Runtime::wrapAndRoute(int nodeIdx,
                           PortRole role,
                           std::string_view reason,
                           Record &&record,
                           Timestamp watermark,
                           std::string_view raw,
                           std::string_view where)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    const int port = role == PortRole::Late ? node.latePort : node.errorsPort;
    if (port < 0) {
        // Kinds without such a port still count what they reject.
        (role == PortRole::Late ? node.metrics.late : node.metrics.errors) += 1;
        return;
    }
    if (node.outputs[static_cast<std::size_t>(port)].targets.empty()) {
        (role == PortRole::Late ? node.metrics.late : node.metrics.errors) += 1;
        if (node.source && role == PortRole::Errors)
            ++m_recordsRead;
        return;
    }
    Record wrapped;
    wrapped.reserve(record.size() + 6, 64 + reason.size() + raw.size());
    wrapped.append("reason", Value::string(reason));
    wrapped.append("node", Value::string(node.spec->id));
    if (watermark == kMinTime)
        wrapped.append("watermark", Value::null());
    else
        wrapped.append("watermark", Value::integer(watermark));
    if (!record.empty())
        wrapped.appendNested("record", record);
    else
        wrapped.append("record", Value::null());
    if (!raw.empty()) {
        // The first 4 KiB as text ("raw"), cut at a character boundary; bytes that are not
        // UTF-8 as "raw_base64" instead, so the errors file stays valid JSON and loses nothing.
        constexpr std::size_t kMaxRaw = 4096;
        const std::string_view text = raw.substr(0, utf8Prefix(raw, kMaxRaw));
        if (invalidUtf8At(text) == std::string_view::npos) {
            wrapped.append("raw", Value::string(text));
        } else {
            std::string b64;
            appendBase64(raw.substr(0, kMaxRaw), b64);
            wrapped.append("raw_base64", Value::string(b64));
        }
        if (raw.size() > kMaxRaw)
            wrapped.append("raw_bytes", Value::integer(static_cast<std::int64_t>(raw.size())));
    }
    if (!where.empty())
        wrapped.append("where", Value::string(where));
    wrapped.time = record.time;
    if (node.source && role == PortRole::Errors)
        ++m_recordsRead;
    route(nodeIdx, port, std::move(wrapped));
}

bool Runtime::connected(int nodeIdx, int port) const
{
    const Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    if (port < 0 || static_cast<std::size_t>(port) >= node.outputs.size())
        return false;
    const PortRoute &route = node.outputs[static_cast<std::size_t>(port)];
    return !route.targets.empty() || !route.byPartition.empty();
}

} // namespace tideline
