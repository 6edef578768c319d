#include "runtime/runtime.hpp"

#include "checkpoint/coordinator.hpp"
#include "checkpoint/folder_lock.hpp"
#include "operators/operators.hpp"
#include "path_conflicts.hpp"
#include "runtime/recoverable.hpp"

#include <tideline/engine/record_json.hpp>

#include <algorithm>

namespace tideline {

// Output (operator.hpp) forwards to the Runtime through OutputTarget.

// --- Runtime ---

Runtime::Runtime(const PipelineSpec &spec, JobOptions options)
    : m_spec(spec)
    , m_options(std::move(options))
    , m_clock(m_options.clock ? m_options.clock : &SystemClock::instance())
{
}

Runtime::~Runtime() = default;

std::string Runtime::lockCheckpoints()
{
    m_runLocks = std::make_unique<checkpoint::RunLocks>();
    return checkpoint::lockCheckpointFolder(m_spec, m_options, *m_runLocks);
}

std::string Runtime::initCheckpoints()
{
    m_checkpoints = std::make_unique<checkpoint::Coordinator>(*this);
    return m_checkpoints->init();
}

void Runtime::recordCheckpoint(const observe::CheckpointInfo &info, std::size_t historyLimit)
{
    if (info.status == "completed")
        ++m_checkpointsCompleted;
    std::lock_guard lock(m_publishMutex);
    m_published.lastCheckpoint = info;
    auto &h = m_published.checkpointHistory;
    h.push_back(info);
    if (h.size() > historyLimit)
        h.erase(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(h.size() - historyLimit));
}

std::string Runtime::compile()
{
    const std::size_t n = m_spec.nodes.size();
    m_nodes.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        Node &node = m_nodes[i];
        node.spec = &m_spec.nodes[i];
        node.id = node.spec->id;
        node.logical = static_cast<int>(i);
        node.kind = findNodeKind(node.spec->kind);
        if (!node.kind)
            return "node `" + node.spec->id + "`: unknown kind `" + node.spec->kind + "`";
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
    if (std::string err = resolveEdges(edges); !err.empty())
        return err;
    for (const auto &e : edges)
        addEdge(e.from, e.fromPort, e.to, e.toPort, -1);
    if (std::string err = computeOrder(); !err.empty())
        return err;
    // Sources first: they tell how many partitions they have and whether partitions are
    // tasks, which decides the shape of the rest of the graph.
    for (int v : m_order)
        if (m_nodes[static_cast<std::size_t>(v)].kind->isSource)
            if (std::string err = makeOperator(v); !err.empty())
                return err;
    if (std::string err = expandPartitionTasks(edges); !err.empty())
        return err;
    for (int v : m_order)
        if (!m_nodes[static_cast<std::size_t>(v)].op)
            if (std::string err = makeOperator(v); !err.empty())
                return err;
    for (std::size_t s = 0; s < m_tasks.size(); ++s)
        refreshSection(static_cast<int>(s));
    return {};
}

std::string Runtime::resolveEdges(std::vector<ResolvedEdge> &out) const
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
            return "edge " + e.from.str() + " -> " + e.to.str() + " names a missing node";
        int op = portIndex(m_nodes[static_cast<std::size_t>(from)].kind->outputs, e.from.port);
        int ip = portIndex(m_nodes[static_cast<std::size_t>(to)].kind->inputs, e.to.port);
        if (op < 0 || ip < 0)
            return "edge " + e.from.str() + " -> " + e.to.str() + " names a missing port";
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

std::string Runtime::computeOrder()
{
    const std::size_t n = m_nodes.size();
    std::vector<int> indeg(n, 0);
    std::size_t running = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (m_nodes[i].isTemplate)
            continue;
        ++running;
        indeg[i] = static_cast<int>(m_nodes[i].inbound.size());
    }
    // Topological order, stable by index (file order for spec nodes): deterministic.
    m_order.clear();
    std::vector<int> ready;
    for (std::size_t i = 0; i < n; ++i)
        if (!m_nodes[i].isTemplate && indeg[i] == 0)
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
        return "the graph has a cycle";
    return {};
}

std::string Runtime::makeOperator(int v)
{
    Node &node = m_nodes[static_cast<std::size_t>(v)];
    int parts = 0;
    const SourceOperator *upstream = nullptr;
    for (std::size_t i = 0; i < node.inbound.size(); ++i) {
        const Node &from = m_nodes[static_cast<std::size_t>(node.inbound[i].fromNode)];
        parts = std::max(parts, from.upstreamPartitions);
        upstream = i == 0 || upstream == from.upstreamSource ? from.upstreamSource : nullptr;
    }
    // An instance sees one partition only.
    if (node.taskPartition >= 0) {
        parts = 1;
        upstream = nullptr;
    }
    OperatorContext ctx{*node.spec, *node.kind,         m_options.baseDir,
                        *m_clock,   std::max(parts, 1), m_options.console};
    ctx.upstreamSource = upstream;
    ctx.checkpointing = checkpoint::resolveSettings(m_spec, m_options).enabled;
    const KindImpl *impl = findKindImpl(node.spec->kind);
    if (!impl)
        return "node `" + node.spec->id + "`: kind `" + node.spec->kind
               + "` is not available in this build";
    try {
        node.op = impl->make(ctx);
        node.op->open();
    } catch (const std::exception &e) {
        node.op.reset();
        return "node `" + node.spec->id + "`: " + e.what();
    }
    node.source = node.kind->isSource ? static_cast<SourceOperator *>(node.op.get()) : nullptr;
    node.upstreamPartitions = node.source ? node.source->partitions() : ctx.upstreamPartitions;
    node.upstreamSource = node.source ? node.source : upstream;
    if (node.source) {
        m_sources.push_back(v);
        for (auto &section : m_tasks)
            if (section.source == v)
                node.source->setTaskHost(section.host.get());
    }
    return {};
}

std::string Runtime::openOperators()
{
    for (int v : m_order)
        if (std::string err = makeOperator(v); !err.empty())
            return err;
    for (std::size_t s = 0; s < m_tasks.size(); ++s)
        refreshSection(static_cast<int>(s));
    return {};
}

void Runtime::deliver(const Target &t, Record &&record)
{
    Node &node = m_nodes[static_cast<std::size_t>(t.node)];
    auto &m = node.metrics;
    ++m.recordsIn;
    if (record.time != kMinTime && (!m.maxEventTime || record.time > *m.maxEventTime))
        m.maxEventTime = record.time;
    if (node.tap) [[unlikely]]
        tapIn(t, record);
    Output out(*this, t.node);
    node.op->processRecord(t.input, std::move(record), out);
}

void Runtime::emit(int nodeIdx, int port, Record &&record)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    if (node.tap) [[unlikely]]
        tapOut(nodeIdx, port, record, {}, kMinTime, {});
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
    // Tapped before the early returns: late/errors records are seen even when dropped.
    if (node.tap) [[unlikely]]
        tapOut(nodeIdx, port < 0 ? -1 - static_cast<int>(role) : port, record, reason, watermark,
               raw);
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

void Runtime::emitWatermark(int nodeIdx, Timestamp w)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    if (node.mergedWatermark) [[unlikely]] {
        if (w <= node.ownW)
            return;
        const Timestamp before = node.ownW;
        node.ownW = w;
        // The merge is a minimum: only the partition that held it back can move it (or one
        // that ended).
        if (w != kMaxTime
            && (node.ownIdle || before > m_nodes[static_cast<std::size_t>(node.logical)].ownW))
            return;
        mergeTaskWatermark(node.logical);
        return;
    }
    propagateWatermark(nodeIdx, w);
}

void Runtime::propagateWatermark(int nodeIdx, Timestamp w)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    if (w <= node.outW)
        return;
    node.outW = w;
    if (m_watermarkTap) [[unlikely]]
        tapWatermark(nodeIdx, observe::WatermarkTapEvent::Which::Output, w);
    for (const auto &route : node.outputs) {
        for (const auto &t : route.targets)
            onInboundWatermark(t.node, t.slot, w);
        for (const auto &part : route.byPartition)
            for (const auto &t : part)
                onInboundWatermark(t.node, t.slot, w);
    }
}

void Runtime::onInboundWatermark(int nodeIdx, int slot, Timestamp w)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    Inbound &in = node.inbound[static_cast<std::size_t>(slot)];
    if (w <= in.watermark)
        return;
    in.watermark = w;
    recomputeCombined(nodeIdx);
}

void Runtime::recomputeCombined(int nodeIdx)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    Timestamp combined = kMaxTime;
    bool anyActive = false;
    for (const auto &in : node.inbound) {
        // An input that ended (+inf) counts even when it was idle.
        if (in.idle && in.watermark != kMaxTime)
            continue;
        anyActive = true;
        combined = std::min(combined, in.watermark);
    }
    if (!anyActive)
        return; // all inputs idle: hold the watermark where it is
    if (combined > node.combinedIn) {
        node.combinedIn = combined;
        if (m_watermarkTap) [[unlikely]]
            tapWatermark(nodeIdx, observe::WatermarkTapEvent::Which::Input, combined);
        Output out(*this, nodeIdx);
        node.op->processWatermark(combined, out);
    }
}

void Runtime::emitIdle(int nodeIdx, bool idle)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    if (node.mergedWatermark) [[unlikely]] {
        if (node.ownIdle == idle)
            return;
        node.ownIdle = idle;
        mergeTaskIdle(node.logical);
        mergeTaskWatermark(node.logical);
        return;
    }
    propagateIdle(nodeIdx, idle);
}

void Runtime::propagateIdle(int nodeIdx, bool idle)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    if (node.outIdle == idle)
        return;
    node.outIdle = idle;
    auto toTarget = [&](const Target &t) {
        Node &dst = m_nodes[static_cast<std::size_t>(t.node)];
        dst.inbound[static_cast<std::size_t>(t.slot)].idle = idle;
        bool allIdle = std::all_of(dst.inbound.begin(), dst.inbound.end(),
                                   [](const Inbound &in) { return in.idle; });
        // Idleness propagates: a node whose every input is idle is idle itself (Flink).
        // The watermark node decides its own idleness from its partitions.
        if (dst.kind->kind != "watermark")
            emitIdle(t.node, allIdle);
        recomputeCombined(t.node);
    };
    for (const auto &route : node.outputs) {
        for (const auto &t : route.targets)
            toTarget(t);
        for (const auto &part : route.byPartition)
            for (const auto &t : part)
                toTarget(t);
    }
}

// --- Taps (observe/tap.hpp): only reached when a tap is installed ---

bool Runtime::setTap(const std::string &nodeId,
                     observe::TapCallback callback,
                     observe::TapFilter filter)
{
    int idx = m_spec.nodeIndex(nodeId);
    if (idx < 0 || static_cast<std::size_t>(idx) >= m_nodes.size())
        return false;
    Node &node = m_nodes[static_cast<std::size_t>(idx)];
    // A node run as partition tasks is tapped on every instance (events carry the spec id).
    for (int inst : node.instances) {
        Node &i = m_nodes[static_cast<std::size_t>(inst)];
        i.tap = callback ? std::make_unique<observe::TapCallback>(callback) : nullptr;
        i.tapFilter = filter;
    }
    node.tap = callback ? std::make_unique<observe::TapCallback>(std::move(callback)) : nullptr;
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
    return node.source || node.kind->kind == "watermark" ? node.outW : node.combinedIn;
}

void Runtime::tapIn(const Target &t, const Record &record)
{
    Node &node = m_nodes[static_cast<std::size_t>(t.node)];
    if (!node.tapFilter.in)
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
    e.recordJson = toJson(record);
    e.recordsRead = m_recordsRead;
    e.processingTimeMs = m_lastTickMs;
    (*node.tap)(e);
}

void Runtime::tapOut(int nodeIdx,
                     int port,
                     const Record &record,
                     std::string_view reason,
                     Timestamp watermark,
                     std::string_view raw)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
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
    if (!record.empty())
        e.recordJson = toJson(record);
    e.reason = std::string(reason);
    e.raw = std::string(raw.substr(0, 4096));
    e.recordsRead = m_recordsRead;
    e.processingTimeMs = m_lastTickMs;
    (*node.tap)(e);
}

void Runtime::tapWatermark(int nodeIdx, observe::WatermarkTapEvent::Which which, Timestamp w)
{
    if (const Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)]; node.taskPartition >= 0) {
        // Partition-task instances share their node's id: report each advance of the node
        // once (the template's outW/combinedIn are free to remember the last one reported).
        Node &templ = m_nodes[static_cast<std::size_t>(node.logical)];
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

void Runtime::tick(std::int64_t now)
{
    m_lastTickMs = now;
    for (int v : m_order) {
        Output out(*this, v);
        m_nodes[static_cast<std::size_t>(v)].op->onTick(now, out);
    }
    if (onLoopTick)
        onLoopTick(now);
    if (now - m_lastPublishMs >= 33)
        publish(false);
}

Job::Status Runtime::runFor(std::int64_t maxRecords)
{
    if (m_done)
        return m_final;
    if (!m_opened) {
        m_opened = true;
        m_startMs = m_clock->nowMs();
        m_lastTickMs = m_lastPublishMs = m_lastCallbackMs = m_startMs;
        m_published.startedAtMs = m_startMs;
    }
    std::int64_t budget = maxRecords;
    // A RecoverableError restores the last checkpoint and goes round again.
    for (bool again = true; again;) {
        again = false;
        try {
            while (budget > 0) {
                if (stopRequested()) {
                    m_final = Job::Status::Stopped;
                    break;
                }
                bool produced = false;
                bool allFinished = true;
                for (std::size_t k = 0; k < m_sources.size() && budget > 0; ++k) {
                    int v = m_sources[(m_sourceCursor + k) % m_sources.size()];
                    Node &node = m_nodes[static_cast<std::size_t>(v)];
                    if (node.sourceFinished)
                        continue;
                    allFinished = false;
                    std::int64_t before = m_recordsRead;
                    Output out(*this, v);
                    auto want
                        = static_cast<int>(std::min<std::int64_t>(budget, m_options.batchSize));
                    SourceOperator::Poll r = node.source->poll(out, want);
                    budget -= std::max<std::int64_t>(m_recordsRead - before,
                                                     r == SourceOperator::Poll::Produced ? 1 : 0);
                    if (r == SourceOperator::Poll::Produced)
                        produced = true;
                    else if (r == SourceOperator::Poll::Finished) {
                        node.sourceFinished = true;
                        produced = true;
                        emitWatermark(v, kMaxTime);
                    }
                }
                m_sourceCursor = (m_sourceCursor + 1) % std::max<std::size_t>(1, m_sources.size());
                if (allFinished) {
                    m_final = Job::Status::Finished;
                    break;
                }
                std::int64_t now = m_clock->nowMs();
                if (now != m_lastTickMs)
                    tick(now);
                if (!produced)
                    m_clock->sleepMs(1);
            }
        } catch (const RecoverableError &e) {
            again = restartFromCheckpoint(e.what());
            if (!again) {
                fail(e.what()); // keeps the restart's own failure when it set one
                m_final = Job::Status::Failed;
            }
        } catch (const std::exception &e) {
            fail(e.what());
            m_final = Job::Status::Failed;
        }
    }
    if (m_final == Job::Status::Running) {
        publish(false);
        return Job::Status::Running;
    }
    if (m_final != Job::Status::Failed) {
        try {
            if (onBeforeFinish)
                onBeforeFinish(m_final);
            finishAll();
        } catch (const RecoverableError &e) {
            // E.g. the sink's last flush at the end of input: restore and read to the end again.
            if (m_final == Job::Status::Finished && restartFromCheckpoint(e.what())) {
                m_final = Job::Status::Running;
                return runFor(std::max<std::int64_t>(budget, 1));
            }
            fail(e.what());
            m_final = Job::Status::Failed;
        } catch (const std::exception &e) {
            fail(e.what());
            m_final = Job::Status::Failed;
        }
    }
    m_done = true;
    publish(true);
    return m_final;
}

bool Runtime::restartFromCheckpoint(const std::string &why)
{
    auto log = [this](const std::string &line) {
        if (m_options.log)
            m_options.log(line);
    };
    if (!m_checkpoints || !m_checkpoints->settings().enabled || m_checkpointsCompleted.load() == 0
        || m_restarts >= kMaxRestarts) {
        log(m_restarts >= kMaxRestarts
                ? "not restarting: " + std::to_string(kMaxRestarts) + " restarts already"
                : "not restarting: no checkpoint completed in this run to restore");
        return false;
    }
    ++m_restarts;
    log("restart " + std::to_string(m_restarts) + "/" + std::to_string(kMaxRestarts)
        + " after: " + why + "; restoring the last completed checkpoint");
    // Joins an in-flight checkpoint writer; the hooks point into the old coordinator.
    m_checkpoints.reset();
    onLoopTick = nullptr;
    onBeforeFinish = nullptr;
    // The newest complete checkpoint of this run, not the savepoint or state it started from.
    m_options.fresh = false;
    m_options.restoreFrom.clear();
    m_options.resetState.clear();
    std::string err = reopenOperators();
    if (err.empty())
        err = initCheckpoints();
    if (!err.empty()) {
        fail(why + "; restarting from the last checkpoint failed: " + err);
        return false;
    }
    return true;
}

std::string Runtime::reopenOperators()
{
    // Sinks close before the sources they read from (reverse topological order).
    for (auto it = m_order.rbegin(); it != m_order.rend(); ++it)
        m_nodes[static_cast<std::size_t>(*it)].op.reset();
    m_sources.clear();
    // The new consumer joins its group again: partitions are assigned (and their task state
    // restored) anew.
    for (auto &section : m_tasks) {
        std::fill(section.owned.begin(), section.owned.end(), 0);
        std::fill(section.suspendedAt.begin(), section.suspendedAt.end(), -1);
    }
    for (auto &node : m_nodes) {
        node.source = nullptr;
        node.combinedIn = node.outW = node.ownW = kMinTime;
        node.outIdle = node.sourceFinished = node.ownIdle = false;
        for (auto &in : node.inbound) {
            in.watermark = kMinTime;
            in.idle = false;
        }
        observe::NodeMetrics m;
        m.node = node.metrics.node;
        m.kind = node.metrics.kind;
        node.metrics = std::move(m);
    }
    m_recordsRead = 0;
    return openOperators();
}

void Runtime::finishAll()
{
    for (int v : m_order) {
        Output out(*this, v);
        try {
            m_nodes[static_cast<std::size_t>(v)].op->finish(out);
        } catch (const RecoverableError &) {
            throw; // already names its node; runFor() restores the last checkpoint
        } catch (const std::exception &e) {
            throw std::runtime_error("node `" + m_nodes[static_cast<std::size_t>(v)].spec->id
                                     + "`: " + e.what());
        }
    }
}

void Runtime::fail(const std::string &message)
{
    std::lock_guard lock(m_publishMutex);
    if (m_failure.empty())
        m_failure = message;
}

std::string Runtime::failure() const
{
    std::lock_guard lock(m_publishMutex);
    return m_failure;
}

void Runtime::publish(bool final)
{
    std::int64_t now = m_clock->nowMs();
    observe::MetricsSnapshot s;
    s.takenAtMs = now;
    s.startedAtMs = m_startMs;
    s.recordsRead = m_recordsRead;
    s.restarts = m_restarts;
    double secs = static_cast<double>(now - m_startMs) / 1000.0;
    s.eventsPerSecond = secs > 0 ? static_cast<double>(m_recordsRead) / secs : 0;
    s.nodes.reserve(m_spec.nodes.size());
    // Spec nodes only, in file order; a node run as partition tasks reports its instances'
    // figures folded together.
    for (std::size_t i = 0; i < m_spec.nodes.size(); ++i) {
        const Node &node = m_nodes[i];
        if (node.isTemplate) {
            observe::NodeMetrics m;
            publishTemplate(node, m);
            s.nodes.push_back(std::move(m));
            continue;
        }
        observe::NodeMetrics m = node.metrics;
        Timestamp w = node.kind->isSink ? node.combinedIn : node.outW;
        if (w == kMinTime)
            m.watermark.reset();
        else
            m.watermark = w;
        if (m.inputs.empty() && !node.kind->isSource && node.kind->kind != "watermark")
            appendInboundInputs(node, m.inputs);
        if (node.source)
            m.partitions = node.source->partitions();
        if (node.op)
            node.op->reportMetrics(m);
        s.nodes.push_back(std::move(m));
    }
    if (m_done || final)
        s.state = m_final == Job::Status::Finished  ? observe::JobState::Finished
                  : m_final == Job::Status::Stopped ? observe::JobState::Stopped
                  : m_final == Job::Status::Failed  ? observe::JobState::Failed
                                                    : observe::JobState::Running;
    else
        s.state = observe::JobState::Running;
    {
        std::lock_guard lock(m_publishMutex);
        s.failure = m_failure;
        s.lastCheckpoint = m_published.lastCheckpoint;
        s.checkpointHistory = m_published.checkpointHistory;
        m_published = s;
    }
    m_lastPublishMs = now;
    if (m_options.onMetrics && (final || now - m_lastCallbackMs >= m_options.metricsIntervalMs)) {
        m_lastCallbackMs = now;
        m_options.onMetrics(s);
    }
}

void Runtime::appendInboundInputs(const Node &node, std::vector<observe::InputWatermark> &out) const
{
    for (const auto &in : node.inbound) {
        std::string name = node.kind->inputs[static_cast<std::size_t>(in.input)].name + " <- "
                           + m_nodes[static_cast<std::size_t>(in.fromNode)].spec->id;
        std::optional<std::int64_t> w;
        if (in.watermark != kMinTime)
            w = in.watermark;
        // The instances of one upstream node (partition tasks) show as one input: the
        // minimum over those not idle, idle when all are.
        auto same = std::find_if(out.begin(), out.end(),
                                 [&](const observe::InputWatermark &e) { return e.name == name; });
        if (same == out.end()) {
            observe::InputWatermark iw;
            iw.name = std::move(name);
            iw.watermark = w;
            iw.idle = in.idle;
            out.push_back(std::move(iw));
            continue;
        }
        if (in.idle)
            continue;
        if (same->idle)
            same->watermark = w;
        else if (!w || (same->watermark && *w < *same->watermark))
            same->watermark = w;
        same->idle = false;
    }
}

observe::MetricsSnapshot Runtime::snapshot() const
{
    std::lock_guard lock(m_publishMutex);
    return m_published;
}

// --- Job ---

Job::Job() = default;
Job::~Job() = default;

std::unique_ptr<Job> Job::create(const PipelineSpec &spec, JobOptions options, std::string &error)
{
    // Paths as the operators resolve them (validation cannot see ${env:...} or
    // --checkpoint-dir): no sink may overwrite what another node reads or writes.
    std::vector<Diagnostic> conflicts;
    PathCheckOptions paths;
    paths.baseDir = options.baseDir;
    paths.checkpointDirOverride = options.checkpointDirOverride;
    paths.resolveReferences = true;
    checkPathConflicts(spec, paths, conflicts);
    if (!conflicts.empty()) {
        error.clear();
        for (const auto &d : conflicts)
            error += (error.empty() ? "node `" : "; node `") + d.nodeId + "`: params." + d.param
                     + ": " + d.message;
        return nullptr;
    }
    std::unique_ptr<Job> job(new Job());
    job->m_rt = std::make_unique<Runtime>(spec, std::move(options));
    error = job->m_rt->lockCheckpoints();
    if (!error.empty())
        return nullptr;
    error = job->m_rt->compile();
    if (!error.empty())
        return nullptr;
    error = job->m_rt->initCheckpoints();
    if (!error.empty())
        return nullptr;
    job->m_rt->publish(false);
    return job;
}

Job::Status Job::run()
{
    while (true) {
        Status s = m_rt->runFor(1 << 20);
        if (s != Status::Running)
            return s;
    }
}
Job::Status Job::runFor(std::int64_t maxRecords)
{
    return m_rt->runFor(maxRecords);
}
void Job::requestStop()
{
    m_rt->requestStop();
}
void Job::requestSavepoint(const std::string &dir,
                           std::function<void(bool ok, const std::string &message)> done)
{
    m_rt->checkpoints()->requestSavepoint(dir, std::move(done));
}
bool Job::stopRequested() const
{
    return m_rt->stopRequested();
}
observe::MetricsSnapshot Job::snapshot() const
{
    return m_rt->snapshot();
}
bool Job::setTap(const std::string &nodeId,
                 observe::TapCallback callback,
                 observe::TapFilter filter)
{
    return m_rt->setTap(nodeId, std::move(callback), filter);
}
void Job::setWatermarkTap(observe::WatermarkTapCallback callback)
{
    m_rt->setWatermarkTap(std::move(callback));
}
void Job::publishMetrics()
{
    m_rt->publish(false);
}
std::string Job::failure() const
{
    return m_rt->failure();
}
const PipelineSpec &Job::spec() const
{
    return m_rt->spec();
}

} // namespace tideline
