#pragma once
// A batch of consumed messages decoded on a worker (kafka_source_chunks.cpp).
//
// [Threading] run() on one worker between submit and finish (chunk_runner.hpp); it reads the
// messages and writes decoded, records and reasons. The loop thread emits them after.

#include "connectors/kafka/kafka_message.hpp"
#include "operators/sources/chunk_runner.hpp"

#include <librdkafka/rdkafka.h>

#include <string>
#include <vector>

namespace tideline::kafka {

/// A consumed message's parts, views of it (valid while it lives; kafka_source_message.cpp).
[[nodiscard]] Message messageOf(const rd_kafka_message_t *m);

/// One consumed batch; run() decodes each of its messages (a worker's decoder, its parser).
class KafkaChunk final : public sources::ChunkTask
{
public:
    explicit KafkaChunk(const std::string &topic) { m_decoder.setTopic(topic); }
    ~KafkaChunk() { release(); }
    KafkaChunk(const KafkaChunk &) = delete;
    KafkaChunk &operator=(const KafkaChunk &) = delete;

    void run() noexcept override
    {
        const std::size_t n = messages.size();
        if (decoded.size() < n) {
            decoded.resize(n);
            records.resize(n);
            reasons.resize(n);
        }
        for (std::size_t i = 0; i < n; ++i) {
            const rd_kafka_message_t *m = messages[i];
            if (m->err)
                continue; // accept() handles it on the loop thread
            records[i].clear();
            try {
                decoded[i] = m_decoder.decode(messageOf(m), records[i], reasons[i]);
            } catch (const std::exception &e) { // (out of memory): a clean error, not a crash
                decoded[i] = Decoded::Malformed;
                reasons[i] = std::string("malformed JSON: ") + e.what();
            }
        }
    }
    /// The messages not emitted yet go back to librdkafka (before the consumer is closed).
    void release()
    {
        for (rd_kafka_message_t *&m : messages)
            if (m) {
                rd_kafka_message_destroy(m);
                m = nullptr;
            }
        messages.clear();
    }

    std::vector<rd_kafka_message_t *> messages; ///< owned until emitted (then null)
    std::vector<Decoded> decoded;
    std::vector<Record> records;
    std::vector<std::string> reasons;

private:
    MessageDecoder m_decoder;
};

} // namespace tideline::kafka
