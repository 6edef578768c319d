// Partition tasks: a Kafka consumer group's partitions come and go at run time, and keyed state
// must move with them (Kafka Streams' tasks). The nodes after such a source that see only its
// records (up to, not including, the sinks and any node that also reads something else) run
// as one instance per partition: "w#p3" is partition 3's instance of node `w`. The spec node
// stays as a template without an operator; the source routes each record to its partition's
// instances, whose outputs meet again at the shared nodes after the section.
//
// Event time stays what it was with one instance: the instances of a `watermark` node each
// compute their partition's watermark (ownW); the runtime merges them by minimum over the
// partitions this process owns and are not idle, and sends that merge on from every owned
// instance. A partition that arrives from another process joins the minimum with its own
// restored watermark, so the merge never runs ahead of the moved state; instances already here
// hold (watermarks never decrease). Partitions owned by other processes are not in the
// minimum, so an unowned partition can never hold event time back.
//
// Moving: on revoke the coordinator hands over (a checkpoint that includes the leaving
// partitions, and a pointer per partition to it); the instances keep their state, suspended,
// in case the same partitions come back unchanged. On assign the coordinator restores each
// partition's instances from the newest pointer, whoever wrote it, and names the offset to
// resume at (coordinator.cpp, adoptPartition).

#include "checkpoint/coordinator.hpp"
#include "runtime/runtime.hpp"

#include <algorithm>
#include <stdexcept>

namespace tideline {

namespace {

/// Whether a node's state is split by a key of the record (or it keeps none). A node that
/// keeps one state for everything (a window or top without key) must see every partition's
/// records, so it stays shared: split per partition it would emit one partial result each.
bool stateIsKeyedOrNone(const NodeSpec &n, const NodeKind &kind)
{
    if (kind.stateKeyParam.empty())
        return true;
    auto it = n.params.find(kind.stateKeyParam);
    return it != n.params.end() && !it->is_null() && !it->empty();
}

class TaskHostAdapter final : public PartitionTaskHost
{
public:
    TaskHostAdapter(Runtime &rt, int section)
        : m_rt(rt)
        , m_section(section)
    {
    }
    std::map<int, std::int64_t> partitionsAssigned(const std::vector<int> &partitions,
                                                   bool incremental) override
    {
        return m_rt.onPartitionsAssigned(m_section, partitions, incremental);
    }
    void partitionsRevoked(const std::vector<int> &partitions, bool incremental) override
    {
        m_rt.onPartitionsRevoked(m_section, partitions, incremental);
    }

private:
    Runtime &m_rt;
    int m_section;
};

} // namespace

std::string Runtime::expandPartitionTasks(const std::vector<ResolvedEdge> &edges)
{
    const std::size_t specCount = m_nodes.size();
    for (int v : m_order) {
        if (!m_nodes[static_cast<std::size_t>(v)].source
            || !m_nodes[static_cast<std::size_t>(v)].source->partitionTasks())
            continue;
        const Node &src = m_nodes[static_cast<std::size_t>(v)];
        const int parts = src.source->partitions();
        // The section: every node whose inputs all come from this source's data port or from
        // the section itself. Sinks stay shared (their inputs are a union anyway).
        std::vector<char> inSection(specCount, 0);
        std::vector<int> templates;
        for (int u : m_order) {
            const Node &node = m_nodes[static_cast<std::size_t>(u)];
            if (node.kind->isSource || node.kind->isSink || node.inbound.empty()
                || !stateIsKeyedOrNone(*node.spec, *node.kind))
                continue;
            bool all = true;
            for (const auto &e : edges) {
                if (e.to != u)
                    continue;
                bool fromSourceData
                    = e.from == v
                      && src.outputs[static_cast<std::size_t>(e.fromPort)].role == PortRole::Data;
                if (!fromSourceData && !inSection[static_cast<std::size_t>(e.from)])
                    all = false;
            }
            if (all) {
                inSection[static_cast<std::size_t>(u)] = 1;
                templates.push_back(u);
            }
        }
        if (templates.empty())
            continue;
        const int section = static_cast<int>(m_tasks.size());
        TaskSection sec;
        sec.source = v;
        sec.partitions = parts;
        sec.templates = templates;
        sec.owned.assign(static_cast<std::size_t>(parts), 0);
        sec.suspendedAt.assign(static_cast<std::size_t>(parts), -1);
        sec.host = std::make_unique<TaskHostAdapter>(*this, section);
        m_tasks.push_back(std::move(sec));
        for (int t : templates) {
            m_nodes[static_cast<std::size_t>(t)].isTemplate = true;
            m_nodes[static_cast<std::size_t>(t)].section = section;
            m_nodes[static_cast<std::size_t>(t)].instances.assign(static_cast<std::size_t>(parts),
                                                                  -1);
        }
        for (int p = 0; p < parts; ++p)
            for (int t : templates) {
                const Node &templ = m_nodes[static_cast<std::size_t>(t)];
                Node inst;
                inst.id = templ.spec->id + "#p" + std::to_string(p);
                inst.spec = templ.spec;
                inst.kind = templ.kind;
                inst.logical = t;
                inst.taskPartition = p;
                inst.section = section;
                inst.latePort = templ.latePort;
                inst.errorsPort = templ.errorsPort;
                inst.outputs.resize(templ.outputs.size());
                for (std::size_t k = 0; k < templ.outputs.size(); ++k)
                    inst.outputs[k].role = templ.outputs[k].role;
                inst.mergedWatermark = templ.kind->kind == "watermark";
                inst.metrics.node = templ.spec->id;
                inst.metrics.kind = templ.spec->kind;
                const int idx = static_cast<int>(m_nodes.size());
                m_nodes.push_back(std::move(inst));
                m_nodes[static_cast<std::size_t>(t)].instances[static_cast<std::size_t>(p)] = idx;
            }
        // (m_nodes grew: `src` may dangle)
        m_nodes[static_cast<std::size_t>(v)].source->setTaskHost(m_tasks.back().host.get());
    }
    if (m_tasks.empty())
        return {};

    // Rewire every edge through the instances.
    for (auto &node : m_nodes) {
        node.inbound.clear();
        for (auto &route : node.outputs) {
            route.targets.clear();
            route.byPartition.clear();
        }
    }
    for (const auto &e : edges) {
        const Node &from = m_nodes[static_cast<std::size_t>(e.from)];
        const Node &to = m_nodes[static_cast<std::size_t>(e.to)];
        if (!from.isTemplate && !to.isTemplate) {
            addEdge(e.from, e.fromPort, e.to, e.toPort, -1);
            continue;
        }
        const std::size_t parts = (to.isTemplate ? to : from).instances.size();
        for (std::size_t p = 0; p < parts; ++p) {
            int a = from.isTemplate ? from.instances[p] : e.from;
            int b = to.isTemplate ? to.instances[p] : e.to;
            // From the section's source: only partition p's records go to partition p's task.
            addEdge(a, e.fromPort, b, e.toPort, from.isTemplate ? -1 : static_cast<int>(p));
        }
    }
    return computeOrder();
}

Status Runtime::resetInstance(int idx)
{
    Node &node = m_nodes[static_cast<std::size_t>(idx)];
    // The node's counters stay monotonic: what this instance counted moves to the template.
    auto &kept = m_nodes[static_cast<std::size_t>(node.logical)].metrics;
    kept.recordsIn += node.metrics.recordsIn;
    kept.recordsOut += node.metrics.recordsOut;
    kept.late += node.metrics.late;
    kept.errors += node.metrics.errors;
    if (node.op) {
        observe::NodeMetrics own; // figures only the operator knows
        node.op->reportMetrics(own);
        kept.duplicatesDropped += own.duplicatesDropped;
    }
    node.op.reset();
    if (std::string err = makeOperator(idx); !err.empty())
        return Status::error(err);
    if (configureNodeState)
        if (std::string err = configureNodeState(node); !err.empty())
            return Status::error(err);
    node.combinedIn = node.outW = node.ownW = kMinTime;
    node.ownIdle = false;
    // Idle until its partition is owned here (what the nodes after it already believe):
    // refreshSection() then wakes it through the normal idleness propagation.
    node.outIdle = true;
    for (auto &in : node.inbound) {
        in.watermark = kMinTime;
        in.idle = m_nodes[static_cast<std::size_t>(in.fromNode)].outIdle;
    }
    observe::NodeMetrics m;
    m.node = node.metrics.node;
    m.kind = node.metrics.kind;
    node.metrics = std::move(m);
    return {};
}

void Runtime::republishWatermark(int idx)
{
    const Node &node = m_nodes[static_cast<std::size_t>(idx)];
    if (node.outW == kMinTime)
        return;
    for (const auto &route : node.outputs)
        for (const auto &t : route.targets)
            onInboundWatermark(t.node, t.slot, node.outW);
}

void Runtime::refreshSection(int section)
{
    for (int t : m_tasks[static_cast<std::size_t>(section)].templates) {
        const Node &templ = m_nodes[static_cast<std::size_t>(t)];
        if (!templ.instances.empty()
            && m_nodes[static_cast<std::size_t>(templ.instances[0])].mergedWatermark) {
            mergeTaskIdle(t);
            mergeTaskWatermark(t);
        }
    }
}

void Runtime::mergeTaskWatermark(int t)
{
    Node &templ = m_nodes[static_cast<std::size_t>(t)];
    const TaskSection &sec = m_tasks[static_cast<std::size_t>(templ.section)];
    Timestamp merged = kMaxTime;
    bool any = false;
    for (std::size_t p = 0; p < templ.instances.size(); ++p) {
        if (!sec.owned[p])
            continue;
        const Node &inst = m_nodes[static_cast<std::size_t>(templ.instances[p])];
        // An input that ended (+inf) counts even when it was idle.
        if (inst.ownIdle && inst.ownW != kMaxTime)
            continue;
        any = true;
        merged = std::min(merged, inst.ownW);
    }
    if (!any)
        return; // nothing owned and active: hold where it is
    templ.ownW = merged;
    for (std::size_t p = 0; p < templ.instances.size(); ++p)
        if (sec.owned[p])
            propagateWatermark(templ.instances[p], merged);
}

void Runtime::mergeTaskIdle(int t)
{
    const Node &templ = m_nodes[static_cast<std::size_t>(t)];
    const TaskSection &sec = m_tasks[static_cast<std::size_t>(templ.section)];
    bool allIdle = true;
    for (std::size_t p = 0; p < templ.instances.size(); ++p)
        if (sec.owned[p] && !m_nodes[static_cast<std::size_t>(templ.instances[p])].ownIdle)
            allIdle = false;
    // Owned instances are idle together (as the one node was when all its partitions were);
    // instances of partitions owned elsewhere are idle so that nothing after them waits.
    for (std::size_t p = 0; p < templ.instances.size(); ++p)
        propagateIdle(templ.instances[p], sec.owned[p] ? allIdle : true);
}

std::map<int, std::int64_t>
Runtime::onPartitionsAssigned(int section, const std::vector<int> &partitions, bool incremental)
{
    TaskSection &sec = m_tasks[static_cast<std::size_t>(section)];
    const std::string &sourceId = m_nodes[static_cast<std::size_t>(sec.source)].id;
    for (int p : partitions)
        if (p < 0 || p >= sec.partitions)
            throw std::runtime_error(
                "node `" + sourceId + "`: partition " + std::to_string(p)
                + " was assigned, but the run started with " + std::to_string(sec.partitions)
                + " partitions (the topic grew); restart the run to take the new partitions");
    if (!incremental) {
        // Eager rebalance: suspended partitions that did not come back are gone for good.
        for (int p = 0; p < sec.partitions; ++p) {
            auto pp = static_cast<std::size_t>(p);
            if (sec.owned[pp] || sec.suspendedAt[pp] < 0
                || std::find(partitions.begin(), partitions.end(), p) != partitions.end())
                continue;
            sec.suspendedAt[pp] = -1;
            for (int t : sec.templates)
                if (Status st = resetInstance(m_nodes[static_cast<std::size_t>(t)].instances[pp]);
                    !st.ok())
                    throw std::runtime_error(st.message());
        }
    }
    std::map<int, std::int64_t> offsets;
    for (int p : partitions) {
        auto pp = static_cast<std::size_t>(p);
        if (sec.owned[pp])
            continue;
        std::int64_t offset = -1;
        if (m_checkpoints) {
            offset = m_checkpoints->adoptPartition(section, p);
        } else {
            for (int t : sec.templates)
                if (Status st = resetInstance(m_nodes[static_cast<std::size_t>(t)].instances[pp]);
                    !st.ok())
                    throw std::runtime_error(st.message());
        }
        sec.owned[pp] = 1;
        sec.suspendedAt[pp] = -1;
        if (offset >= 0)
            offsets[p] = offset;
    }
    refreshSection(section);
    return offsets;
}

void Runtime::onPartitionsRevoked(int section, const std::vector<int> &partitions, bool incremental)
{
    TaskSection &sec = m_tasks[static_cast<std::size_t>(section)];
    std::vector<int> leaving;
    for (int p : partitions)
        if (p >= 0 && p < sec.partitions && sec.owned[static_cast<std::size_t>(p)])
            leaving.push_back(p);
    if (leaving.empty())
        return;
    const std::int64_t handover = m_checkpoints ? m_checkpoints->handOver(leaving) : -1;
    for (int p : leaving) {
        auto pp = static_cast<std::size_t>(p);
        sec.owned[pp] = 0;
        // Eager: kept (suspended) when a handover names it; if the partition comes back and
        // nobody else wrote its state meanwhile, it resumes without a reload. Cooperative: it
        // is leaving for good.
        sec.suspendedAt[pp] = incremental ? -1 : handover;
        if (sec.suspendedAt[pp] < 0)
            for (int t : sec.templates)
                if (Status st = resetInstance(m_nodes[static_cast<std::size_t>(t)].instances[pp]);
                    !st.ok())
                    throw std::runtime_error(st.message());
    }
    refreshSection(section);
}

void Runtime::publishTemplate(const Node &templ, observe::NodeMetrics &m) const
{
    const TaskSection &sec = m_tasks[static_cast<std::size_t>(templ.section)];
    // Counted by instances since reset (partitions that left), then the live instances.
    m.recordsIn = templ.metrics.recordsIn;
    m.recordsOut = templ.metrics.recordsOut;
    m.late = templ.metrics.late;
    m.errors = templ.metrics.errors;
    m.duplicatesDropped = templ.metrics.duplicatesDropped;
    m.node = templ.spec->id;
    m.kind = templ.spec->kind;
    const bool watermarkKind = templ.kind->kind == "watermark";
    Timestamp w = kMaxTime;
    bool anyOwned = false;
    for (std::size_t p = 0; p < templ.instances.size(); ++p) {
        const Node &inst = m_nodes[static_cast<std::size_t>(templ.instances[p])];
        observe::NodeMetrics im = inst.metrics;
        if (inst.op)
            inst.op->reportMetrics(im);
        m.recordsIn += im.recordsIn;
        m.recordsOut += im.recordsOut;
        m.late += im.late;
        m.errors += im.errors;
        m.duplicatesDropped += im.duplicatesDropped;
        m.stateEntries += im.stateEntries;
        m.stateBytes += im.stateBytes;
        m.stateSpilled += im.stateSpilled;
        m.openWindows += im.openWindows;
        m.checksum += im.checksum;
        if (im.maxEventTime && (!m.maxEventTime || *im.maxEventTime > *m.maxEventTime))
            m.maxEventTime = im.maxEventTime;
        const bool owned = sec.owned[p] != 0;
        if (owned) {
            anyOwned = true;
            w = std::min(w, inst.outW);
        }
        if (watermarkKind) {
            // "Why is the watermark here": one line per partition, as with one instance.
            observe::InputWatermark iw;
            if (!im.inputs.empty())
                iw = im.inputs.front();
            iw.name = "partition " + std::to_string(p);
            iw.assigned = owned;
            iw.watermark.reset();
            if (owned && inst.ownW != kMinTime)
                iw.watermark = inst.ownW;
            iw.idle = !owned || inst.ownIdle;
            if (!owned)
                iw.idleSinceMs = iw.lastActivityMs = 0;
            m.inputs.push_back(std::move(iw));
        } else if (owned) {
            appendInboundInputs(inst, m.inputs);
        }
    }
    if (anyOwned && w != kMinTime)
        m.watermark = w;
}

} // namespace tideline
