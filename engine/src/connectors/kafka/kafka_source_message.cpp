// source.kafka: one consumed message, an error event or a record with its `_kafka.*` metadata
// (kafka_source.hpp).

#include "connectors/kafka/kafka_errors.hpp"
#include "connectors/kafka/kafka_source.hpp"

#include <stdexcept>
#include <string>

namespace tideline::kafka {

/// One message: an error event, or a record to emit. Returns whether it emitted.
bool KafkaSource::handle(rd_kafka_message_t *m, Output &out)
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

    std::string_view payload = m->payload
                                   ? std::string_view(static_cast<const char *>(m->payload), m->len)
                                   : std::string_view();
    Record rec;
    auto where = [&]() -> const std::string & {
        m_where.clear();
        m_where += m_topic;
        m_where += '/';
        m_where += std::to_string(m->partition);
        m_where += '/';
        m_where += std::to_string(m->offset);
        return m_where;
    };
    if (!m->payload || !m_parser.parse(payload, rec, m_error)) {
        if (!m->payload)
            m_error = "message has no value (tombstone)";
        out.emitError("malformed JSON: " + m_error, Record(), kMinTime, payload, where());
        return true;
    }
    if (rec.has("_kafka")) [[unlikely]] {
        // `_kafka` is the message's metadata: a payload must neither replace it (what
        // expressions and keys would see) nor sit next to it (duplicate keys on output).
        // The record is not rewritten: it goes to `errors` as it came.
        out.emitError("payload has a top-level `_kafka` field, which is reserved for the "
                      "message's metadata (rename it upstream)",
                      std::move(rec), kMinTime, payload, where());
        return true;
    }
    // Field names are literals and the topic an interned copy: the record points at them
    // instead of copying ~80 bytes into its arena per message.
    static constexpr StaticPath kTopic{"_kafka.topic"}, kPartition{"_kafka.partition"},
        kOffset{"_kafka.offset"}, kKey{"_kafka.key"}, kTimestamp{"_kafka.timestamp"};
    rec.append(kTopic, Value::staticString(m_topicInterned.s));
    rec.append(kPartition, Value::integer(m->partition));
    rec.append(kOffset, Value::integer(m->offset));
    if (m->key)
        rec.append(kKey,
                   Value::string(std::string_view(static_cast<const char *>(m->key), m->key_len)));
    else
        rec.append(kKey, Value::null());
    rd_kafka_timestamp_type_t tsType;
    std::int64_t ts = rd_kafka_message_timestamp(m, &tsType);
    if (ts >= 0)
        rec.append(kTimestamp, Value::integer(ts));
    else
        rec.append(kTimestamp, Value::null());
    rec.partition = static_cast<std::uint32_t>(m->partition);
    out.emit(0, std::move(rec));
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
