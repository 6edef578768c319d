// settings.semantics in the runtime: the mode every operator is made with, and Spark mode's
// micro-batches. Flink and Kafka Streams modes need nothing here (Kafka Streams keeps stream
// time inside its operators); Spark mode counts source records in the order they are routed,
// all sources together, and at each batch end (1) lets every node finish the batch
// (Operator::onMicroBatchEnd, in topological order), then (2) hands the new global watermark to
// every watermark node, which sends it on: that is Spark's no-data batch, run at once.

#include "runtime/runtime.hpp"

namespace tideline {

void SparkSourceTarget::emit(int node, int port, Record &&record)
{
    if (port == 0)
        m_rt.sparkSourceRecord(node, port, std::move(record));
    else
        m_rt.emit(node, port, std::move(record));
}

void SparkSourceTarget::emitWrapped(int node,
                                    PortRole role,
                                    std::string_view reason,
                                    Record &&record,
                                    Timestamp watermark,
                                    std::string_view raw,
                                    std::string_view where)
{
    m_rt.emitWrapped(node, role, reason, std::move(record), watermark, raw, where);
}

void SparkSourceTarget::emitWatermark(int node, Timestamp w)
{
    m_rt.emitWatermark(node, w);
}

void SparkSourceTarget::emitIdle(int node, bool idle)
{
    m_rt.emitIdle(node, idle);
}

bool SparkSourceTarget::connected(int node, int port) const
{
    return m_rt.connected(node, port);
}

void SparkSourceTarget::traceFate(int node, observe::Fate fate)
{
    m_rt.traceFate(node, fate);
}

OutputTarget &Runtime::sourceTarget()
{
    if (!m_sparkTarget) [[likely]]
        return *this;
    // Output::account reads these from its target: keep them the runtime's.
    m_sparkTarget->fateRows = fateRows;
    m_sparkTarget->tracing = tracing;
    return *m_sparkTarget;
}

const semantics::JobSemantics *Runtime::semanticsForOperators()
{
    if (!m_semantics) {
        m_semantics = std::make_unique<semantics::JobSemantics>(semantics::readSemantics(m_spec));
        if (m_semantics->engine == semantics::Engine::Spark) {
            const auto &sp = m_semantics->spark;
            m_sparkClock = std::make_unique<semantics::SparkClock>(sp.triggerRecords, sp.batchField,
                                                                   sp.maxPolicy);
            m_semantics->sparkClock = m_sparkClock.get();
            m_sparkTarget = std::make_unique<SparkSourceTarget>(*this);
            m_sparkBatches = true;
        }
    }
    return m_semantics.get();
}

void Runtime::sparkSourceRecord(int nodeIdx, int port, Record &&record)
{
    if (m_sparkClock->startsNewBatch(record))
        sparkEndBatch();
    Node &node = m_nodes[static_cast<std::size_t>(nodeIdx)];
    if (node.tap)
        emitTraced(nodeIdx, port, std::move(record));
    else
        route(nodeIdx, port, std::move(record));
    if (m_sparkClock->countRecord())
        sparkEndBatch();
}

void Runtime::sparkEndBatch()
{
    for (int v : m_order) {
        Output out(*this, v);
        m_nodes[static_cast<std::size_t>(v)].op->onMicroBatchEnd(out);
    }
    const Timestamp before = m_sparkClock->watermark();
    const Timestamp w = m_sparkClock->endBatch();
    if (w <= before && m_sparkClock->batches() > 1)
        return;
    // The first batch end publishes the initial watermark (0) too: from then on every
    // operator downstream holds the global watermark.
    for (int v : m_order)
        if (m_nodes[static_cast<std::size_t>(v)].kind->assignsEventTime)
            emitWatermark(v, w);
}

void Runtime::sparkSourceEnded()
{
    if (m_sparkClock->batchHasRecords())
        sparkEndBatch();
}

} // namespace tideline
