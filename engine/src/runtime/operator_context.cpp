// Creating a node's operator: the OperatorContext it is made with (what it may know of the
// pipeline: its spec, upstream partitions, the nearest upstream source, whether checkpoints
// are on), the kind's factory, open(). ${env:} / ${file:} references resolve through the
// context (references.cpp).

#include "checkpoint/store.hpp"
#include "operators/operators.hpp"
#include "recording/replay_sources.hpp"
#include "runtime/runtime.hpp"

#include <algorithm>

namespace tideline {

Status Runtime::makeOperator(int v)
{
    Node &node = m_nodes[static_cast<std::size_t>(v)];
    if (m_fateRows.size() < m_nodes.size()) { // before the operator can account for anything
        m_fateRows.resize(m_nodes.size());
        fateRows = m_fateRows.data();
    }
    int parts = 0;
    const SourceOperator *upstream = nullptr;
    for (std::size_t i = 0; i < node.inbound.size(); ++i) {
        const Node &from = m_nodes[static_cast<std::size_t>(node.inbound[i].fromNode)];
        parts = std::max(parts, from.upstreamPartitions);
        upstream = i == 0 || upstream == from.upstreamSource ? from.upstreamSource : nullptr;
    }
    // An instance sees one partition only.
    if (node.task.partition >= 0) {
        parts = 1;
        upstream = nullptr;
    }
    OperatorContext ctx{*node.spec, *node.kind,         m_options.baseDir,
                        *m_clock,   std::max(parts, 1), m_options.console};
    ctx.upstreamSource = upstream;
    ctx.checkpointing = checkpoint::resolveSettings(m_spec, m_options).enabled;
    ctx.capture = m_options.capture;
    ctx.feed = m_options.feed;
    ctx.semantics = semanticsForOperators();
    const KindImpl *impl = findKindImpl(node.spec->kind);
    if (!impl)
        return Status::error("node `" + node.spec->id + "`: kind `" + node.spec->kind
                             + "` is not available in this build");
    try {
        // A replay builds every source from the recording (recording/replay_sources.cpp).
        node.op
            = ctx.feed && node.kind->isSource ? recording::makeReplaySource(ctx) : impl->make(ctx);
        node.op->open();
    } catch (const std::exception &e) {
        node.op.reset();
        return Status::error("node `" + node.spec->id + "`: " + e.what());
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

Status Runtime::openOperators()
{
    for (int v : m_order)
        if (Status s = makeOperator(v); !s.ok())
            return s;
    for (std::size_t s = 0; s < m_tasks.size(); ++s)
        refreshSection(static_cast<int>(s));
    return {};
}

} // namespace tideline
