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
// resume at (checkpoint/member.cpp, adoptPartition).

#include "checkpoint/coordinator.hpp"
#include "runtime/runtime.hpp"
#include "state/state_backend.hpp"

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

Status Runtime::expandPartitionTasks(const std::vector<ResolvedEdge> &edges)
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
            m_nodes[static_cast<std::size_t>(t)].task.isTemplate = true;
            m_nodes[static_cast<std::size_t>(t)].task.section = section;
            m_nodes[static_cast<std::size_t>(t)].task.instances.assign(
                static_cast<std::size_t>(parts), -1);
        }
        for (int p = 0; p < parts; ++p)
            for (int t : templates) {
                const Node &templ = m_nodes[static_cast<std::size_t>(t)];
                Node inst;
                inst.id = templ.spec->id + "#p" + std::to_string(p);
                inst.spec = templ.spec;
                inst.kind = templ.kind;
                inst.task.templ = t;
                inst.task.partition = p;
                inst.task.section = section;
                inst.latePort = templ.latePort;
                inst.errorsPort = templ.errorsPort;
                inst.outputs.resize(templ.outputs.size());
                for (std::size_t k = 0; k < templ.outputs.size(); ++k)
                    inst.outputs[k].role = templ.outputs[k].role;
                inst.task.mergedWatermark = templ.kind->assignsEventTime;
                inst.metrics.node = templ.spec->id;
                inst.metrics.kind = templ.spec->kind;
                const int idx = static_cast<int>(m_nodes.size());
                m_nodes.push_back(std::move(inst));
                m_nodes[static_cast<std::size_t>(t)].task.instances[static_cast<std::size_t>(p)]
                    = idx;
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
        if (!from.task.isTemplate && !to.task.isTemplate) {
            addEdge(e.from, e.fromPort, e.to, e.toPort, -1);
            continue;
        }
        const std::size_t parts = (to.task.isTemplate ? to : from).task.instances.size();
        for (std::size_t p = 0; p < parts; ++p) {
            int a = from.task.isTemplate ? from.task.instances[p] : e.from;
            int b = to.task.isTemplate ? to.task.instances[p] : e.to;
            // From the section's source: only partition p's records go to partition p's task.
            addEdge(a, e.fromPort, b, e.toPort, from.task.isTemplate ? -1 : static_cast<int>(p));
        }
    }
    return computeOrder();
}

Status Runtime::resetInstance(int idx)
{
    Node &node = m_nodes[static_cast<std::size_t>(idx)];
    // The node's counters stay monotonic: what this instance counted moves to the template.
    auto &kept = m_nodes[static_cast<std::size_t>(node.task.templ)].metrics;
    kept.recordsIn += node.metrics.recordsIn;
    kept.recordsOut += node.metrics.recordsOut;
    kept.late += node.metrics.late;
    kept.errors += node.metrics.errors;
    for (const auto &c : node.metrics.lateCauses)
        observe::addCause(kept.lateCauses, c.first, c.second);
    for (const auto &c : node.metrics.errorCauses)
        observe::addCause(kept.errorCauses, c.first, c.second);
    if (static_cast<std::size_t>(idx) < m_fateRows.size()) {
        auto &row = m_fateRows[static_cast<std::size_t>(idx)];
        for (std::size_t f = 0; f < row.size(); ++f)
            kept.fates[f] += row[f];
        row.fill(0);
    }
    if (node.op) {
        observe::NodeMetrics own; // figures only the operator knows
        node.op->reportMetrics(own);
        kept.duplicatesDropped += own.duplicatesDropped;
    }
    node.op.reset();
    if (Status s = makeOperator(idx); !s.ok())
        return s;
    if (m_stateBackend)
        if (Status s = m_stateBackend->configure(node.id, *node.op); !s.ok())
            return s;
    // An instance that ran as a parallel stage is one again (empty, like the operator).
    if (Status s = remakeParallelStage(idx); !s.ok())
        return s;
    clearInstanceWatermarks(idx);
    observe::NodeMetrics m;
    m.node = node.metrics.node;
    m.kind = node.metrics.kind;
    node.metrics = std::move(m);
    return {};
}

std::map<int, std::int64_t>
Runtime::onPartitionsAssigned(int section, const std::vector<int> &partitions, bool incremental)
{
    // A partition's instances may run as parallel stages: every record and watermark they
    // were given is through them before one is reset or restored (handOver quiesces too).
    quiesce();
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
                if (Status st
                    = resetInstance(m_nodes[static_cast<std::size_t>(t)].task.instances[pp]);
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
                if (Status st
                    = resetInstance(m_nodes[static_cast<std::size_t>(t)].task.instances[pp]);
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
    quiesce(); // (as on assign; without checkpoints a leaving instance's results still go out)
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
                if (Status st
                    = resetInstance(m_nodes[static_cast<std::size_t>(t)].task.instances[pp]);
                    !st.ok())
                    throw std::runtime_error(st.message());
    }
    refreshSection(section);
}

} // namespace tideline
