// settings.semantics in the runtime: the mode every operator is made with, and Spark mode's
// micro-batches. Flink and Kafka Streams modes need nothing here (Kafka Streams keeps stream
// time inside its operators); Spark mode counts source records in the order they are routed,
// all sources together, and at each batch end (1) lets every node finish the batch
// (Operator::onMicroBatchEnd, in topological order), then (2) hands the new global watermark to
// every watermark node, which sends it on: that is Spark's no-data batch, run at once.

#include "runtime/runtime.hpp"

namespace tideline {

const semantics::JobSemantics *Runtime::semanticsForOperators()
{
    if (!m_semantics) {
        m_semantics = std::make_unique<semantics::JobSemantics>(semantics::readSemantics(m_spec));
        if (m_semantics->engine == semantics::Engine::Spark) {
            const auto &sp = m_semantics->spark;
            m_sparkClock = std::make_unique<semantics::SparkClock>(sp.triggerRecords, sp.batchField,
                                                                   sp.maxPolicy);
            m_semantics->sparkClock = m_sparkClock.get();
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
