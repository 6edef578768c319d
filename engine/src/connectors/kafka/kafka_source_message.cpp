// source.kafka: one consumed message, an error event or a record with its `_kafka.*` metadata
// (kafka_source.hpp).

#include "connectors/kafka/kafka_chunk.hpp"
#include "connectors/kafka/kafka_errors.hpp"
#include "connectors/kafka/kafka_source.hpp"

#include <tideline/engine/record_replay.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tideline::kafka {

Message messageOf(const rd_kafka_message_t *m)
{
    Message msg;
    msg.partition = m->partition;
    msg.offset = m->offset;
    if (m->key)
        msg.key = std::string_view(static_cast<const char *>(m->key), m->key_len);
    rd_kafka_timestamp_type_t tsType;
    msg.timestamp = std::max<std::int64_t>(-1, rd_kafka_message_timestamp(m, &tsType));
    msg.payload = static_cast<const char *>(m->payload);
    msg.length = m->len;
    return msg;
}

/// One message: an error event, or a record to emit. Returns whether it emitted.
bool KafkaSource::handle(rd_kafka_message_t *m, Output &out)
{
    if (!accept(m))
        return false;
    const Message msg = messageOf(m);
    if (m_capture) [[unlikely]]
        capture(m, msg);
    m_decoder.emit(msg, out);
    return true;
}

bool KafkaSource::accept(rd_kafka_message_t *m)
{
    if (m->err) {
        kafka::ErrorClass c = kafka::classify(m->err);
        if (c == kafka::ErrorClass::DataLoss) {
            std::int64_t lo = -1, hi = -1;
            rd_kafka_get_watermark_offsets(m_rk, m_topic.c_str(), m->partition, &lo, &hi);
            throw std::runtime_error(
                "node `" + m_node + "`: " + m_topic + "/" + std::to_string(m->partition)
                + ": offset " + std::to_string(m->offset)
                + " is no longer in the log (it now starts at " + std::to_string(lo)
                + "): data was lost to retention; refusing to skip it "
                  "(auto.offset.reset=error). Restore an older checkpoint or start with "
                  "--fresh");
        }
        // A fetch that briefly sees no topic/partition (metadata moving) is retried.
        bool briefly = m->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
        if ((c == kafka::ErrorClass::Config && !briefly) || c == kafka::ErrorClass::Fatal)
            throw std::runtime_error(
                "node `" + m_node + "`: Kafka consumer error: " + kafka::describe(m->err)
                + (m->payload ? ": " + std::string(static_cast<const char *>(m->payload), m->len)
                              : std::string()));
        ++m_transientErrors; // librdkafka retries (broker down, timeouts)
        return false;
    }
    auto it = m_parts.find(m->partition);
    if (it == m_parts.end())
        return false; // revoked meanwhile
    PartState &st = it->second;
    if (m_bounded) {
        if (st.done || m->offset >= st.end)
            return false;
    }
    st.next = m->offset + 1;
    st.lastActivityMs = m_nowMs;
    if (m_bounded && st.next >= st.end)
        finishPartition(m->partition, st);
    return true;
}

void KafkaSource::finishPartition(std::int32_t p, PartState &st)
{
    st.done = true;
    --m_remaining;
    TopparList l(1);
    rd_kafka_topic_partition_list_add(l.list, m_topic.c_str(), p);
    rd_kafka_pause_partitions(m_rk, l.list);
}

} // namespace tideline::kafka

namespace tideline::kafka {

/// --record: the message as it came (before parsing), with its headers.
void KafkaSource::capture(rd_kafka_message_t *m, const Message &msg)
{
    recording::Entry e;
    e.partition = msg.partition;
    e.offset = msg.offset;
    if (msg.timestamp >= 0)
        e.timestamp = msg.timestamp;
    if (msg.key)
        e.key = std::string(*msg.key);
    rd_kafka_headers_t *headers = nullptr;
    if (rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR && headers) {
        const char *name = nullptr;
        const void *value = nullptr;
        size_t size = 0;
        for (size_t i = 0; rd_kafka_header_get_all(headers, i, &name, &value, &size)
                           == RD_KAFKA_RESP_ERR_NO_ERROR;
             ++i)
            e.headers.emplace_back(name, value ? std::string(static_cast<const char *>(value), size)
                                               : std::string());
    }
    if (msg.payload)
        e.value.assign(msg.payload, msg.length);
    else
        e.valueAbsent = true;
    m_capture->add(m_captureSource, e);
}

} // namespace tideline::kafka
