// Watermarks, all of them: how a node's inputs combine (minimum over the inputs that are not
// idle; an ended input, +inf, counts even when idle), how idleness propagates (a node whose
// every input is idle is idle itself, as in Flink), how the instances of a partition-task
// `watermark` node merge their partitions' watermarks (partition_tasks.cpp says why), and
// what a checkpoint keeps of them and how a restore primes them again.
//
// Every watermark the runtime holds per node lives in Node (outW, outIdle, combinedIn, the
// inbound edges) and Node::task (ownW, ownIdle); only this file writes them, apart from
// compile-time set-up.

#include "runtime/runtime.hpp"

#include <algorithm>

namespace tideline {

void Runtime::emitWatermark(int nodeIdx, Timestamp w)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    if (node.task.mergedWatermark) [[unlikely]] {
        if (w <= node.task.ownW)
            return;
        const Timestamp before = node.task.ownW;
        node.task.ownW = w;
        // The merge is a minimum: only the partition that held it back can move it (or one
        // that ended).
        if (w != kMaxTime
            && (node.task.ownIdle
                || before > m_nodes[static_cast<std::size_t>(node.task.templ)].task.ownW))
            return;
        mergeTaskWatermark(node.task.templ);
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
            if (t.slot >= 0) // -1: records only, deferred through a parallel stage
                onInboundWatermark(t.node, t.slot, w);
        for (const auto &t : route.watermarkOnly)
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
        if (m_options.trackPeakState) [[unlikely]]
            samplePeakState(node,
                            combined); // state only shrinks in processWatermark: its peak is now
        Output out(*this, nodeIdx);
        node.op->processWatermark(combined, out);
    }
}

void Runtime::emitIdle(int nodeIdx, bool idle)
{
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    if (node.task.mergedWatermark) [[unlikely]] {
        if (node.task.ownIdle == idle)
            return;
        node.task.ownIdle = idle;
        mergeTaskIdle(node.task.templ);
        mergeTaskWatermark(node.task.templ);
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
        if (!dst.kind->assignsEventTime)
            emitIdle(t.node, allIdle);
        recomputeCombined(t.node);
    };
    for (const auto &route : node.outputs) {
        for (const auto &t : route.targets)
            if (t.slot >= 0)
                toTarget(t);
        for (const auto &t : route.watermarkOnly)
            toTarget(t);
        for (const auto &part : route.byPartition)
            for (const auto &t : part)
                toTarget(t);
    }
}

void Runtime::mergeTaskWatermark(int t)
{
    Node &templ = m_nodes[static_cast<std::size_t>(t)];
    const TaskSection &sec = m_tasks[static_cast<std::size_t>(templ.task.section)];
    Timestamp merged = kMaxTime;
    bool any = false;
    for (std::size_t p = 0; p < templ.task.instances.size(); ++p) {
        if (!sec.owned[p])
            continue;
        const Node &inst = m_nodes[static_cast<std::size_t>(templ.task.instances[p])];
        // An input that ended (+inf) counts even when it was idle.
        if (inst.task.ownIdle && inst.task.ownW != kMaxTime)
            continue;
        any = true;
        merged = std::min(merged, inst.task.ownW);
    }
    if (!any)
        return; // nothing owned and active: hold where it is
    templ.task.ownW = merged;
    for (std::size_t p = 0; p < templ.task.instances.size(); ++p)
        if (sec.owned[p])
            propagateWatermark(templ.task.instances[p], merged);
}

void Runtime::mergeTaskIdle(int t)
{
    const Node &templ = m_nodes[static_cast<std::size_t>(t)];
    const TaskSection &sec = m_tasks[static_cast<std::size_t>(templ.task.section)];
    bool allIdle = true;
    for (std::size_t p = 0; p < templ.task.instances.size(); ++p)
        if (sec.owned[p]
            && !m_nodes[static_cast<std::size_t>(templ.task.instances[p])].task.ownIdle)
            allIdle = false;
    // Owned instances are idle together (as the one node was when all its partitions were);
    // instances of partitions owned elsewhere are idle so that nothing after them waits.
    for (std::size_t p = 0; p < templ.task.instances.size(); ++p)
        propagateIdle(templ.task.instances[p], sec.owned[p] ? allIdle : true);
}

void Runtime::refreshSection(int section)
{
    for (int t : m_tasks[static_cast<std::size_t>(section)].templates) {
        const Node &templ = m_nodes[static_cast<std::size_t>(t)];
        if (!templ.task.instances.empty()
            && m_nodes[static_cast<std::size_t>(templ.task.instances[0])].task.mergedWatermark) {
            mergeTaskIdle(t);
            mergeTaskWatermark(t);
        }
    }
}

void Runtime::republishWatermark(int idx)
{
    const Node &node = m_nodes[static_cast<std::size_t>(idx)];
    if (node.outW == kMinTime)
        return;
    for (const auto &route : node.outputs) {
        for (const auto &t : route.targets)
            if (t.slot >= 0)
                onInboundWatermark(t.node, t.slot, node.outW);
        for (const auto &t : route.watermarkOnly)
            onInboundWatermark(t.node, t.slot, node.outW);
    }
}

void Runtime::captureNode(int v, checkpoint::NodeEntry &e) const
{
    const Node &node = m_nodes[static_cast<std::size_t>(v)];
    e.outW = node.outW;
    e.combinedIn = node.combinedIn;
    if (node.task.mergedWatermark) {
        // Its own partition's watermark, not the merge it passes on: a partition restarts
        // where it was, so one that gets no new records cannot hold the others back.
        e.hasOwnW = true;
        e.ownW = node.task.ownW;
    }
    e.outIdle = node.outIdle;
    e.sourceFinished = node.sourceFinished;
    e.recordsIn = node.metrics.recordsIn;
    e.recordsOut = node.metrics.recordsOut;
    e.late = node.metrics.late;
    e.errors = node.metrics.errors;
}

void Runtime::restoreNode(int v, const checkpoint::NodeEntry &e)
{
    Node &node = m_nodes[static_cast<std::size_t>(v)];
    node.outW = e.outW;
    node.combinedIn = e.combinedIn;
    if (node.task.partition >= 0) {
        // (outIdle stays as resetInstance() left it: idle until the partition is owned.)
        // The merge over partitions starts from this partition's own watermark as it was
        // saved. Manifests written before own_w existed only have the merge (out_w): a
        // partition restored from one is raised by its operator with its next record.
        node.task.ownW = e.hasOwnW ? e.ownW : e.outW;
    } else {
        node.outIdle = e.outIdle;
        node.sourceFinished = e.sourceFinished;
    }
    node.metrics.recordsIn = e.recordsIn;
    node.metrics.recordsOut = e.recordsOut;
    node.metrics.late = e.late;
    node.metrics.errors = e.errors;
}

void Runtime::primeWatermarks(const std::vector<int> &fresh)
{
    // An edge's watermark always equals its upstream node's output watermark (emitWatermark
    // updates both together), so the inbound side is derived rather than stored: that also
    // wires restored watermarks into nodes that are new in an edited graph.
    for (auto &node : m_nodes)
        for (auto &in : node.inbound) {
            const auto &from = m_nodes[static_cast<std::size_t>(in.fromNode)];
            in.watermark = from.outW;
            in.idle = from.outIdle;
        }
    // New and reset nodes learn the current watermark now (in topological order, so what they
    // forward reaches the nodes after them).
    for (int v : fresh)
        recomputeCombined(v);
}

void Runtime::primeInstances(const std::vector<int> &instances)
{
    for (int v : instances)
        for (auto &in : m_nodes[static_cast<std::size_t>(v)].inbound) {
            const auto &from = m_nodes[static_cast<std::size_t>(in.fromNode)];
            in.watermark = from.task.partition >= 0 ? from.outW : kMinTime;
            in.idle = from.outIdle;
        }
    // The shared nodes after the section (sinks) learn where the restored instances are.
    for (int v : instances)
        republishWatermark(v);
}

void Runtime::clearWatermarks(int v)
{
    Node &node = m_nodes[static_cast<std::size_t>(v)];
    node.combinedIn = node.outW = node.task.ownW = kMinTime;
    node.outIdle = node.sourceFinished = node.task.ownIdle = false;
    for (auto &in : node.inbound) {
        in.watermark = kMinTime;
        in.idle = false;
    }
}

void Runtime::clearInstanceWatermarks(int v)
{
    Node &node = m_nodes[static_cast<std::size_t>(v)];
    node.combinedIn = node.outW = node.task.ownW = kMinTime;
    node.task.ownIdle = false;
    // Idle until its partition is owned here (what the nodes after it already believe):
    // refreshSection() then wakes it through the normal idleness propagation.
    node.outIdle = true;
    for (auto &in : node.inbound) {
        in.watermark = kMinTime;
        in.idle = m_nodes[static_cast<std::size_t>(in.fromNode)].outIdle;
    }
}

} // namespace tideline
