// source.kafka at parallelism > 1 (kafka_source.hpp, "Parallelism"): a consumed batch of
// messages is decoded on a worker; the loop thread emits the batches in the order it consumed
// them, doing at emission everything else handle() does (accept: an error event, the
// partition's position, the end of a bounded partition). A message is decoded before anyone
// knows whether it will be emitted (a bounded partition may end before it): the worker's
// work on it is then wasted, never its effect, since only what accept() lets through is used.
//
// Why bounded only: a group member's partitions move in rebalances while batches are in
// flight, and a partition revoked and assigned back would emit the old batch's messages and
// then fetch them again. A bounded source assigns every partition once, and rebalances never.

#include "connectors/kafka/kafka_chunk.hpp"
#include "connectors/kafka/kafka_source.hpp"

namespace tideline::kafka {

bool KafkaSource::runChunksOn(sources::ChunkRunner &runner)
{
    if (!m_bounded || m_capture)
        return false; // group mode (see above); --record captures each message as it is handled
    m_chunks = std::make_unique<sources::ChunkQueue<KafkaChunk>>(runner);
    return true;
}

SourceOperator::Poll KafkaSource::pollChunks(Output &out, int maxRecords)
{
    if (m_bounded && m_remaining == 0) {
        // Every partition reached its end: what was consumed past it is not emitted.
        m_chunks->drain();
        m_chunkAt = 0;
        return Poll::Finished;
    }
    // Batches consumed ahead, while there is room: librdkafka's queue already holds them, and
    // the workers decode them while the loop emits the oldest.
    while (!m_chunks->full()) {
        std::unique_ptr<KafkaChunk> c = m_chunks->take();
        if (!c)
            c = std::make_unique<KafkaChunk>(m_topic);
        c->messages.resize(kMaxBatch);
        const ssize_t n
            = rd_kafka_consume_batch_queue(m_queue, 0, c->messages.data(), c->messages.size());
        c->messages.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
        if (!m_failure.empty())
            throw std::runtime_error(m_failure); // set by a callback served in that call
        if (n <= 0)
            break; // (the chunk is dropped: an empty one is cheap to make again)
        m_chunks->submit(std::move(c));
    }
    bool emitted = false;
    int budget = maxRecords;
    while (budget > 0) {
        KafkaChunk *c = m_chunks->front(); // waits for it, or decodes it here
        if (!c)
            break;
        for (; m_chunkAt < c->messages.size() && budget > 0; ++m_chunkAt) {
            rd_kafka_message_t *&m = c->messages[m_chunkAt];
            if (accept(m)) { // throws on a fatal error: the queue's chunks release theirs
                m_decoder.emitDecoded(messageOf(m), c->decoded[m_chunkAt],
                                      std::move(c->records[m_chunkAt]), c->reasons[m_chunkAt], out);
                emitted = true;
                --budget;
            }
            rd_kafka_message_destroy(m);
            m = nullptr;
        }
        if (m_chunkAt < c->messages.size())
            break; // the budget ran out inside it
        c->release();
        m_chunks->pop();
        m_chunkAt = 0;
    }
    if (m_bounded && m_remaining == 0 && !emitted) {
        m_chunks->drain();
        m_chunkAt = 0;
        return Poll::Finished;
    }
    return emitted ? Poll::Produced : Poll::Waiting;
}

} // namespace tideline::kafka
